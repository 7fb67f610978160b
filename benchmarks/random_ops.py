"""Seeded random numbers: eagerkernel's TensorFlow-exact Philox draws beside NumPy's Generator,
PyTorch and TensorFlow (when installed), in one run.

Rows: ``uniform``, ``normal`` and ``truncated_normal`` float32 tensors of a small shape (``[3]``:
per-call overhead), a dropout-mask shape (``[32, 1024]``) and a weight-matrix shape
(``[1024, 1024]``: per-number cost, what a ``he_normal`` initializer of a large layer pays).
Columns: median time per call in µs for NumPy (``default_rng``: PCG64, not TensorFlow's
numbers), eagerkernel (``ek.random.*`` with a global seed: TensorFlow's numbers bit for bit),
PyTorch (``torch.rand``/``randn``/``nn.init.trunc_normal_``) and TensorFlow; then eagerkernel
over NumPy and over PyTorch. Before timing, eagerkernel's draws are checked to be the NumPy
twin's of ``runtime/philox.py`` (the C twin and the reference give the same bits) and, where
TensorFlow imports, TensorFlow's own numbers; a mismatch exits with status 1.

The frameworks take turns in rounds, so a change in the machine's load touches all alike;
ratios are what matters (the machines are shared).

Usage::

    python benchmarks/random_ops.py          # full run
    python benchmarks/random_ops.py --quick  # a smoke run
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

SHAPES = [(3,), (32, 1024), (1024, 1024)]
KINDS = ["uniform", "normal", "truncated_normal"]


def _numpy(kind, shape):
    rng = np.random.default_rng(0)
    if kind == "uniform":
        return lambda: rng.random(shape, np.float32)
    if kind == "normal":
        return lambda: rng.standard_normal(shape, np.float32)

    def truncated():  # resampling outside [-2, 2], as a truncated normal needs
        z = rng.standard_normal(shape, np.float32)
        bad = np.abs(z) >= 2
        while bad.any():
            z[bad] = rng.standard_normal(int(bad.sum()), np.float32)
            bad = np.abs(z) >= 2
        return z

    return truncated


def _eagerkernel(kind, shape):
    import eagerkernel as ek

    ek.random.set_seed(0)
    fn = getattr(ek.random, kind)
    return lambda: fn(shape)


def _torch(kind, shape):
    try:
        import torch
    except ImportError:
        return None
    torch.manual_seed(0)
    if kind == "uniform":
        return lambda: torch.rand(shape)
    if kind == "normal":
        return lambda: torch.randn(shape)
    return lambda: torch.nn.init.trunc_normal_(torch.empty(shape), a=-2.0, b=2.0)


def _tensorflow(kind, shape):
    if os.environ.get("EAGERKERNEL_BENCH_TF", "1") == "0":
        return None
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
    except ImportError:
        return None
    tf.random.set_seed(0)
    fn = getattr(tf.random, kind)
    return lambda: fn(shape)


def check() -> list[str]:
    """eagerkernel's draws against the NumPy twin and, when it imports, TensorFlow."""
    import eagerkernel as ek
    from eagerkernel.runtime import philox

    errors = []
    for kind in KINDS:
        ek.random.set_seed(7)
        got = getattr(ek.random, kind)([5, 7], seed=3).numpy()
        native, philox._philox = philox._philox, None
        try:
            ek.random.set_seed(7)
            want = getattr(ek.random, kind)([5, 7], seed=3).numpy()
        finally:
            philox._philox = native
        if not np.array_equal(got, want):
            errors.append(f"{kind}: the C twin differs from the NumPy reference")
        tf_fn = _tensorflow(kind, (5, 7))
        if tf_fn is not None:
            import tensorflow as tf

            tf.random.set_seed(7)
            ref = getattr(tf.random, kind)([5, 7], seed=3).numpy()
            if not np.array_equal(got, ref):
                errors.append(f"{kind}: differs from TensorFlow's numbers")
    return errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few rounds, small shapes only")
    args = parser.parse_args(argv)
    rounds = 3 if args.quick else 7
    shapes = SHAPES[:2] if args.quick else SHAPES
    errors = check()
    makers = {"NumPy": _numpy, "eagerkernel": _eagerkernel, "PyTorch": _torch, "TF": _tensorflow}
    print("Seeded float32 draws, median µs per call over rounds (frameworks take turns)")
    header = f"{'draw':<30}" + "".join(f"{k:>12}" for k in makers) + f"{'ek/NumPy':>10}"
    header += f"{'ek/torch':>10}"
    print(header)
    print("-" * len(header))
    for shape in shapes:
        size = int(np.prod(shape))
        calls = max(3, min(2000, 2_000_000 // max(size, 1) // 8))
        for kind in KINDS:
            fns = {k: make(kind, shape) for k, make in makers.items()}
            times: dict[str, list[float]] = {k: [] for k, f in fns.items() if f is not None}
            for _ in range(rounds):
                for k in times:
                    fn = fns[k]
                    fn()
                    t0 = time.perf_counter()
                    for _ in range(calls):
                        fn()
                    times[k].append((time.perf_counter() - t0) / calls * 1e6)
            med = {k: statistics.median(v) for k, v in times.items()}
            cells = "".join(f"{med[k]:>12.1f}" if k in med else f"{'-':>12}" for k in makers)
            ratio_np = med["eagerkernel"] / med["NumPy"]
            ratio_torch = med["eagerkernel"] / med["PyTorch"] if "PyTorch" in med else None
            torch_text = f"{ratio_torch:>9.2f}x" if ratio_torch else f"{'-':>10}"
            name = f"{kind} {list(shape)}"
            print(f"{name:<30}{cells}{ratio_np:>9.2f}x{torch_text}")
    if errors:
        print("\nWrong results:", *errors, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
