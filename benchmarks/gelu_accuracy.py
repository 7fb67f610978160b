"""How accurate the exact GELU is here and in PyTorch, over every float32 in [-10, 10].

Both compute ``0.5 * x * (1 + erf(x / sqrt(2)))`` in float32 arithmetic around an erf: ours
the float32 rounding of a degree-18 double polynomial (``erf_poly`` in ``_kernels.c``), then
NumPy's float32 operations in NumPy's order; PyTorch its own vectorized float32 erf. The
reference is the same function in float64 with the tail written without cancellation,
``x * 0.5 * erfc(-x / sqrt(2))`` (SciPy's ``erfc``). The error of each result is given in
ulps of the float32 nearest the reference; the table breaks [-10, 10] into ranges because for
negative x both float32 formulas lose everything to ``1 + erf`` cancelling (the result is
tiny, the error of ``1 + erf`` is a float32 ulp of 1), so the largest error overall says
little. Also printed: the largest absolute error. For the record of the kernels' decision:
the GELU is NumPy's formula with that erf, and how far it and PyTorch's are from the exact
GELU is the question whether that formula is worth its cost.

Usage::

    python benchmarks/gelu_accuracy.py            # every float32 in [-10, 10] (a few minutes)
    python benchmarks/gelu_accuracy.py --step 97  # every 97th
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

RANGES = ((-10.0, -5.0), (-5.0, -2.0), (-2.0, 0.0), (0.0, 2.0), (2.0, 10.0))
CHUNK = 1 << 23


def float32_in(lo: float, hi: float, step: int):
    """Chunks of the float32s between lo and hi, one sign (every step-th by bit pattern)."""
    sign = -1 if hi <= 0 else 1
    a, b = sorted((abs(lo), abs(hi)))
    first, last = (int(np.float32(v).view(np.int32)) for v in (a, b))
    for start in range(first, last, CHUNK * step):
        bits = np.arange(start, min(last, start + CHUNK * step), step, dtype=np.int64)
        yield np.float32(sign) * bits.astype(np.uint32).view(np.float32)


def reference(x: np.ndarray) -> np.ndarray:
    from scipy.special import erfc

    x64 = x.astype(np.float64)
    return x64 * 0.5 * erfc(-x64 / np.sqrt(2.0))


def ulp_errors(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    nearest = np.abs(ref.astype(np.float32))
    ulp = np.spacing(nearest).astype(np.float64)
    return np.abs(got.astype(np.float64) - ref) / ulp


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--step", type=int, default=1, help="every step-th float32")
    args = parser.parse_args()
    try:
        import scipy.special  # noqa: F401
        import torch
    except ImportError as e:
        print(f"needs SciPy and PyTorch: {e}")
        return 0
    import eagerkernel as ek
    from eagerkernel.runtime.native import kernels

    torch.set_num_threads(1)
    impls = {
        "eagerkernel": lambda x: ek.nn.gelu(ek.constant(x)).numpy(),
        "PyTorch": lambda x: torch.nn.functional.gelu(torch.from_numpy(x)).numpy(),
    }
    print(
        f"GELU (exact, erf) in float32 against float64 x * 0.5 * erfc(-x / sqrt(2)): largest "
        f"error in ulps (and largest absolute error), every {args.step}. float32"
        + ("" if kernels.available() else " [C kernels not built: NumPy + SciPy's erf]")
    )
    print(f"{'x in':<16}" + "".join(f"{name:>30}" for name in impls))
    for lo, hi in RANGES:
        worst = {name: (0.0, 0.0, None) for name in impls}
        for x in float32_in(lo, hi, args.step):
            ref = reference(x)
            for name, f in impls.items():
                got = f(x)
                err = ulp_errors(got, ref)
                i = int(np.argmax(err))
                absolute = float(np.max(np.abs(got.astype(np.float64) - ref)))
                u, a, at = worst[name]
                worst[name] = (max(u, float(err[i])), max(a, absolute), x[i] if err[i] > u else at)
        line = f"[{lo:g}, {hi:g})".ljust(16)
        for name in impls:
            u, a, at = worst[name]
            line += f"{u:>14.3g} ulp ({a:.1e})".rjust(30)
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
