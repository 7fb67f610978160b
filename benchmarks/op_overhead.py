"""Per-op overhead of eagerkernel beside NumPy, PyTorch and TensorFlow, in one run.

The workload is a chain of multiply/add ops on 10-element float32 tensors,
``y = y * a + b`` repeated (2000 ops by default), so the time is almost all per-op
bookkeeping, not arithmetic. Two modes:

- no tape: the chain alone (PyTorch under ``torch.no_grad()``);
- tape+backward: the chain recorded on a tape (``ek.GradientTape``, ``requires_grad``,
  ``tf.GradientTape``), summed, and differentiated; the forward and backward time together
  is divided by the number of chain ops.

Each cell of the table is the best of several runs after warm-up, in µs per op; the cells
take turns run by run, so a change in the machine's load touches every column alike. PyTorch
and TensorFlow are measured only when they import. Every framework's result is checked
against the closed form (the gradient of ``sum(y)`` is ``a ** (ops / 2)`` per element); a
wrong result makes the script exit with status 1. Missing a speed target does not.

Usage::

    python benchmarks/op_overhead.py            # 2000 ops, best of 7
    python benchmarks/op_overhead.py --quick    # 200 ops, best of 2: a smoke run
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import timeit
from collections.abc import Callable

import numpy as np

SIZE = 10
A, B = 0.999, 0.001  # close to 1 and 0: y stays finite and gradients stay well above zero
MODES = ("no tape", "tape+backward")
COLUMNS = ("NumPy", "eagerkernel", "PyTorch", "TensorFlow")
# eagerkernel's time per op over PyTorch's, per mode (the product's targets).
TARGETS = {"no tape": 2.5, "tape+backward": 1.0}


def chain(y, a, b, steps: int):
    """``steps`` rounds of ``y = y * a + b``: 2 * steps ops, written once for every framework."""
    for _ in range(steps):
        y = y * a + b
    return y


def expected(steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Closed-form value and gradient of ``chain(ones, A, B, steps)`` (in float64)."""
    value = A**steps + B * sum(A**k for k in range(steps))
    return np.full(SIZE, value), np.full(SIZE, A**steps)


# Each setup function returns {mode: run}, where run() returns the result as a NumPy array
# (the chain's value without a tape, the gradient with one), or None if the peer is absent.
Runs = dict[str, Callable[[], np.ndarray]]


def numpy_runs(steps: int) -> Runs:
    x = np.ones(SIZE, np.float32)
    a = np.full(SIZE, A, np.float32)
    b = np.full(SIZE, B, np.float32)
    return {"no tape": lambda: chain(x, a, b, steps)}  # NumPy has no autodiff


def eagerkernel_runs(steps: int) -> Runs:
    import eagerkernel as ek

    x = ek.constant(np.ones(SIZE, np.float32))
    a = ek.constant(np.full(SIZE, A, np.float32))
    b = ek.constant(np.full(SIZE, B, np.float32))

    def taped():
        with ek.GradientTape() as tape:
            tape.watch(x)
            # The sum is inside the `with`: a tape only differentiates what it recorded.
            loss = ek.reduce_sum(chain(x, a, b, steps))
        return tape.gradient(loss, x).numpy()

    return {"no tape": lambda: chain(x, a, b, steps).numpy(), "tape+backward": taped}


def torch_runs(steps: int) -> Runs | None:
    try:
        import torch
    except ImportError:
        return None
    x = torch.ones(SIZE, dtype=torch.float32, requires_grad=True)
    a = torch.full((SIZE,), A, dtype=torch.float32)
    b = torch.full((SIZE,), B, dtype=torch.float32)

    def untaped():
        with torch.no_grad():
            return chain(x, a, b, steps).numpy()

    def taped():
        loss = chain(x, a, b, steps).sum()
        (grad,) = torch.autograd.grad(loss, x)
        return grad.numpy()

    return {"no tape": untaped, "tape+backward": taped}


def tensorflow_runs(steps: int) -> Runs | None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow as tf
    except ImportError:
        return None
    x = tf.constant(np.ones(SIZE, np.float32))
    a = tf.constant(np.full(SIZE, A, np.float32))
    b = tf.constant(np.full(SIZE, B, np.float32))

    def taped():
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(chain(x, a, b, steps))
        return tape.gradient(loss, x).numpy()

    return {"no tape": lambda: chain(x, a, b, steps).numpy(), "tape+backward": taped}


def check(name: str, mode: str, result, steps: int) -> str | None:
    """An error message if ``result`` is not the closed-form answer, else None."""
    value, grad = expected(steps)
    want = value if mode == "no tape" else grad
    if result is None:
        return f"{name} ({mode}): got None"
    got = np.asarray(result, dtype=np.float64)
    if got.shape != want.shape or not np.allclose(got, want, rtol=1e-3):
        return f"{name} ({mode}): expected {want[0]:.6g} x{SIZE}, got {got.ravel()[:3]}..."
    return None


def best_times(cells: dict, repeats: int, warmup: int) -> dict:
    """Best wall time of each run over ``repeats`` rounds, in seconds.

    The rounds go through the frameworks in turn, so that a change in the machine's load
    touches every column alike. Each call is timed by timeit (perf_counter, GC off).
    """
    for run in cells.values():
        for _ in range(warmup):
            run()
    best = dict.fromkeys(cells, float("inf"))
    for _ in range(repeats):
        for key, run in cells.items():
            best[key] = min(best[key], timeit.timeit(run, number=1))
    return best


def fmt_us(seconds_per_op: float | None) -> str:
    return "-" if seconds_per_op is None else f"{seconds_per_op * 1e6:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 ops, best of 2 (smoke run)")
    parser.add_argument("--ops", type=int, help="ops in the chain (even; default 2000)")
    parser.add_argument("--repeats", type=int, help="timed runs per cell (default 7)")
    args = parser.parse_args(argv)
    ops = args.ops or (200 if args.quick else 2000)
    repeats = args.repeats or (2 if args.quick else 7)
    warmup = 1 if args.quick else 2
    steps = max(1, ops // 2)
    ops = 2 * steps

    setups = {
        "NumPy": numpy_runs,
        "eagerkernel": eagerkernel_runs,
        "PyTorch": torch_runs,
        "TensorFlow": tensorflow_runs,
    }
    versions = {"Python": platform.python_version(), "NumPy": np.__version__}
    cells: dict[tuple[str, str], Callable[[], np.ndarray]] = {}
    errors: list[str] = []
    for name, setup in setups.items():
        runs = setup(steps)
        if runs is None:
            versions[name] = "not installed"
            continue
        module = {"PyTorch": "torch", "TensorFlow": "tensorflow"}.get(name, name.lower())
        versions[name] = getattr(sys.modules.get(module), "__version__", "?")
        for mode, run in runs.items():
            error = check(name, mode, run(), steps)
            if error:
                errors.append(error)
            else:
                cells[name, mode] = run
    times = {key: t / ops for key, t in best_times(cells, repeats, warmup).items()}

    print(
        f"Per-op overhead: chain of {ops} ops (y = y * a + b) on float32[{SIZE}],"
        f" best of {repeats} runs after {warmup} warm-up; µs per op"
    )
    print("  " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    print()
    ratio_head = "eagerkernel / PyTorch"
    header = f"{'mode':<15}" + "".join(f"{c:>13}" for c in COLUMNS) + f"{ratio_head:>24}"
    print(header)
    print("-" * len(header))
    ratios: dict[str, float | None] = {}
    for mode in MODES:
        cells = "".join(f"{fmt_us(times.get((c, mode))):>13}" for c in COLUMNS)
        ours, theirs = times.get(("eagerkernel", mode)), times.get(("PyTorch", mode))
        ratios[mode] = ours / theirs if ours is not None and theirs is not None else None
        ratio = "-" if ratios[mode] is None else f"{ratios[mode]:.2f}x"
        print(f"{mode:<15}{cells}{ratio:>24}")
    print()
    print("Targets (eagerkernel / PyTorch):")
    for mode, limit in TARGETS.items():
        r = ratios[mode]
        verdict = "n/a (PyTorch not measured)" if r is None else ("PASS" if r <= limit else "MISS")
        got = "" if r is None else f" got {r:.2f}x"
        print(f"  {mode:<15} <= {limit:.1f}x{got:<13}  {verdict}")

    if errors:
        print("\nWrong results:", *errors, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
