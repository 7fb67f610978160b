"""conv2d forward and backward (input and filter gradients) on float32 NHWC batches, beside
PyTorch and TensorFlow when they are installed: one row per layer shape, from the guide CNN's
layers to the ones that go to fewer channels (a 3x3 head to one channel, a 7x7 conv of 128
channels to one, 1x1 bottlenecks), which eagerkernel runs with kernels of their own.

Each cell is the median of several runs after warm-up, the frameworks taking turns; the ratio
columns are eagerkernel's time over the peer's (below 1: eagerkernel is faster). Every row's
output and gradients are checked against PyTorch's when it is installed; a mismatch makes the
script exit with status 1.

Usage::

    python benchmarks/conv.py            # 9 runs per cell
    python benchmarks/conv.py --quick    # 2 runs, smaller batches: a smoke run
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time

import numpy as np

CASES = [
    # (name, input shape NHWC, kernel size, output channels, padding)
    ("guide CNN conv1 5x5 1->32", (32, 28, 28, 1), 5, 32, "SAME"),
    ("guide CNN conv2 5x5 32->64", (32, 14, 14, 32), 5, 64, "SAME"),
    ("3x3 64->64", (32, 16, 16, 64), 3, 64, "SAME"),
    ("3x3 64->32 (halves)", (32, 16, 16, 64), 3, 32, "SAME"),
    ("1x1 64->16 (bottleneck)", (32, 28, 28, 64), 1, 16, "VALID"),
    ("1x1 16->64 (expansion)", (32, 28, 28, 16), 1, 64, "VALID"),
    ("3x3 16->1 (image head)", (32, 28, 28, 16), 3, 1, "SAME"),
    ("5x5 32->8", (16, 28, 28, 32), 5, 8, "SAME"),
    ("7x7 128->1", (64, 28, 28, 128), 7, 1, "SAME"),
]


def timed(fn, repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def tape_step(tf, x, w, padding):
    """The step in TensorFlow's API, which eagerkernel (``tf``) shares."""
    xe, we = tf.constant(x), tf.Variable(w)

    def step():
        with tf.GradientTape() as tape:
            tape.watch(xe)
            y = tf.nn.conv2d(xe, we, 1, padding)
            loss = tf.reduce_sum(y * y)
        gx, gw = tape.gradient(loss, [xe, we])
        return y.numpy(), gx.numpy(), gw.numpy()

    return step


def eagerkernel_step(x, w, padding):
    import eagerkernel

    return tape_step(eagerkernel, x, w, padding)


def torch_step(x, w, padding):
    import torch
    import torch.nn.functional as F

    k = w.shape[0]
    xt = torch.tensor(x).permute(0, 3, 1, 2).contiguous().requires_grad_()
    wt = torch.tensor(w).permute(3, 2, 0, 1).contiguous().requires_grad_()
    pad = k // 2 if padding == "SAME" else 0

    def step():
        y = F.conv2d(xt, wt, padding=pad)
        gx, gw = torch.autograd.grad((y * y).sum(), [xt, wt])
        return (
            y.detach().permute(0, 2, 3, 1).numpy(),
            gx.permute(0, 2, 3, 1).numpy(),
            gw.permute(2, 3, 1, 0).numpy(),
        )

    return step


def tensorflow_step(x, w, padding):
    import tensorflow

    return tape_step(tensorflow, x, w, padding)


def available(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 runs, batches of 4")
    args = parser.parse_args(argv)
    repeats = 2 if args.quick else 9
    peers = {"PyTorch": "torch", "TensorFlow": "tensorflow"}
    peers = {name: mod for name, mod in peers.items() if available(mod)}
    if "torch" in peers.values():
        import torch

        torch.set_num_threads(2)
    makers = {"eagerkernel": eagerkernel_step, "PyTorch": torch_step, "TensorFlow": tensorflow_step}
    rng = np.random.default_rng(0)
    print(
        "conv2d forward + input and filter gradients (loss = sum(y**2)), float32 NHWC, stride 1;"
        f" median ms of {repeats} runs"
    )
    print(f"  Python {platform.python_version()}, NumPy {np.__version__}")
    names = ["eagerkernel", *peers]
    header = f"{'layer':<28}{'input':>20}" + "".join(f"{n:>13}" for n in names)
    header += "".join(f"{'/ ' + n:>15}" for n in peers)
    print()
    print(header)
    print("-" * len(header))
    errors = []
    for label, shape, k, cout, padding in CASES:
        if args.quick:
            shape = (4, *shape[1:])
        x = rng.standard_normal(shape).astype(np.float32)
        w = (rng.standard_normal((k, k, shape[3], cout)) / np.sqrt(k * k * shape[3])).astype(
            np.float32
        )
        steps = {n: makers[n](x, w, padding) for n in names}
        results = {n: step() for n, step in steps.items()}  # warm-up, and the values
        if "PyTorch" in results:
            for part, a, b in zip(("y", "dx", "dw"), results["eagerkernel"], results["PyTorch"]):
                scale = np.abs(b).max() or 1.0
                if np.abs(a - b).max() > 1e-3 * scale:
                    errors.append(f"{label}: {part} differs from PyTorch's")
        times: dict[str, list[float]] = {n: [] for n in names}
        for _ in range(repeats):  # the frameworks take turns
            for n, step in steps.items():
                times[n] += timed(step, 1)
        med = {n: statistics.median(ts) * 1e3 for n, ts in times.items()}
        row = f"{label:<28}{shape!s:>20}" + "".join(f"{med[n]:>13.2f}" for n in names)
        row += "".join(f"{med['eagerkernel'] / med[n]:>14.2f}x" for n in peers)
        print(row)
    for e in errors:
        print("ERROR:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
