"""Every float32 through the float32 kernels: the proof behind `native/kernels.py`'s claims.

The unit tests (``tests/test_elementwise_exhaustive.py``) check every 7th float32 bit
pattern, to stay fast; this one-off script checks all 2^32 of them (about a minute an op on
two cores) and prints, per op, how many results differ from the reference and the largest
distance in ulps (the count of float32 values between the two results; NaN against NaN counts
as equal, whatever the payloads). References:

- ``sigmoid``: NumPy's stable sigmoid formula, ``where(x >= 0, 1 / (1 + e), e / (1 + e))``
  with ``e = np.exp(-|x|)`` (today's bits, and the kernel's claim is 0 ulp);
- ``softplus_grad``: SoftplusGrad with a cotangent of ones, ``1 * sigmoid(x)``, against the
  same formula (its sigmoid is computed by a pass of its own), claim 0 ulp;
- ``erf``: SciPy's double erf rounded to float32 (the correctly rounded erf but for a few
  results next to a rounding boundary), claim 1 ulp: the float32 tables on AVX-512F CPUs and
  the double polynomial elsewhere (``--portable``) are both within it (``_kernels.c``);
- ``gelu``: NumPy's float32 formula ``0.5 * x * (1 + erf(x * sqrt(1/2)))`` around the erf
  pass, claim 0 ulp;
- ``gelu_grad``: GeluGrad with a cotangent of ones, against the program's NumPy steps around
  the erf pass (``1 * (0.5 * (1 + erf) + x * exp(-0.5 * x * x) / sqrt(2 pi))``), claim 0 ulp.

Usage::

    python benchmarks/exhaustive_float32.py                  # every op
    python benchmarks/exhaustive_float32.py sigmoid gelu     # some
    python benchmarks/exhaustive_float32.py --step 7         # every 7th pattern (quicker)
    python benchmarks/exhaustive_float32.py --portable       # the portable C, not AVX-512F

Exit status 1 when an op's largest distance exceeds its claim.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

from eagerkernel.runtime.native import kernels

CHUNK = 1 << 24


def numpy_sigmoid(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def rounded_double_erf(x):
    from scipy.special import erf

    return erf(x.astype(np.float64)).astype(np.float32)


SQRT_HALF = np.float32(math.sqrt(0.5))


def gelu_formula(x):
    return np.float32(0.5) * x * (np.float32(1) + kernels._run("erf", x * SQRT_HALF))


def gelu_grad_formula(x):
    cdf = np.float32(0.5) * (np.float32(1) + kernels._run("erf", x * SQRT_HALF))
    pdf = (x * np.exp((np.float32(-0.5) * x) * x)) * np.float32(1 / math.sqrt(2 * math.pi))
    return np.float32(1) * (cdf + pdf)


# op -> (the kernel, the reference, the claimed largest distance in ulps)
OPS = {
    "sigmoid": (lambda x: kernels._run("sigmoid", x), numpy_sigmoid, 0),
    "softplus_grad": (
        lambda x: kernels._run("softplus_grad", np.ones_like(x), x),
        numpy_sigmoid,
        0,
    ),
    "erf": (lambda x: kernels._run("erf", x), rounded_double_erf, 1),
    "gelu": (lambda x: kernels._run("gelu", x), gelu_formula, 0),
    "gelu_grad": (lambda x: kernels._run("gelu_grad", np.ones_like(x), x), gelu_grad_formula, 0),
}


def ordered(bits: np.ndarray) -> np.ndarray:
    """float32 bit patterns as integers in the order of their values (-0 and +0 both 0)."""
    b = bits.astype(np.int64)
    return np.where(b & 0x80000000, -(b & 0x7FFFFFFF), b)


def ulp_distance(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Per element, how many float32 steps apart (NaN and NaN: 0; NaN and a number: 2^32)."""
    gn, wn = np.isnan(got), np.isnan(want)
    d = np.abs(ordered(got.view(np.uint32)) - ordered(want.view(np.uint32)))
    d[gn & wn] = 0
    d[gn != wn] = 1 << 32
    return d


def check(name: str, step: int) -> bool:
    kernel, reference, claim = OPS[name]
    t0 = time.perf_counter()
    worst, differ, worst_x = 0, 0, None
    for start in range(0, 1 << 32, CHUNK * step):
        bits = np.arange(start, min(1 << 32, start + CHUNK * step), step, dtype=np.uint64)
        x = bits.astype(np.uint32).view(np.float32)
        with np.errstate(all="ignore"):
            got, want = kernel(x), reference(x)
        d = ulp_distance(got, want)
        differ += int(np.count_nonzero(d))
        i = int(np.argmax(d))
        if d[i] > worst:
            worst, worst_x = int(d[i]), x[i]
    checked = -(-(1 << 32) // step)
    where = "" if worst_x is None else f" (at x = {worst_x!r})"
    ok = worst <= claim
    print(
        f"{name:<8} {checked} inputs: {differ} differ, largest distance {worst} ulp{where}; "
        f"claim {claim} ulp: {'OK' if ok else 'FAILED'} ({time.perf_counter() - t0:.0f} s)"
    )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("ops", nargs="*", choices=[*OPS, []], help="default: all")
    parser.add_argument("--step", type=int, default=1, help="check every step-th pattern")
    parser.add_argument(
        "--portable", action="store_true", help="the portable C passes, not the intrinsics"
    )
    args = parser.parse_args()
    if not kernels.available():
        print("the C extension is not built: nothing to check")
        return 0
    kernels._kernels._use_avx512(not args.portable)
    avx512 = kernels._kernels._use_avx512(not args.portable)  # the setting now in force
    print(f"exp32 and erf passes: {'AVX-512F intrinsics' if avx512 else 'portable C'}")
    ok = [check(name, args.step) for name in args.ops or OPS]
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())
