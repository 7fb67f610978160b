"""Generates the tables of the float32 erf in eagerkernel/runtime/native/_kernels.c (`ERF32_*`).

erf(t) = t * Q(t) for t = |x| in [0, 4), Q(t) = erf(t) / t. [0, 4) is cut into 32 intervals of
width 1/8; on interval i, with center c = (i + 1/2) / 8 and d = t - c in [-1/16, 1/16],

    Q(c + d) = q0 + d * (c1 + d * (c2 + d * (c3 + d * (c4 + d * c5))))

where the degree-5 polynomial interpolates Q at the Chebyshev points of the interval (SciPy's
double erf, ``numpy.polynomial.chebyshev.chebinterpolate``), converted to powers of d. q0 is
kept as two float32 numbers (``QHI + QLO``) so that the C code can add the big term exactly in
its last fused multiply-add; c1..c5 are rounded to float32. That last step runs on t * 2^32
(exact), so that t * (QLO + ...) stays a normal number for the tiniest t, and the result is
scaled back by 2^-32 (exact unless it is subnormal).

Run ``python tools/erf32_tables.py`` to print the C tables; ``--check`` evaluates the float32
scheme in NumPy on a grid and prints its largest error in units in the last place against the
double erf (an estimate: benchmarks/exhaustive_float32.py checks the C code on all inputs).
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from numpy.polynomial import chebyshev
from scipy.special import erf

INTERVALS = 32
WIDTH = 1 / 8
DEGREE = 5


def q_of(t: np.ndarray) -> np.ndarray:
    t = np.asarray(t, dtype=np.float64)
    out = np.full_like(t, 2 / math.sqrt(math.pi))
    nz = t != 0
    out[nz] = erf(t[nz]) / t[nz]
    return out


def tables() -> dict[str, np.ndarray]:
    rows = []
    half = WIDTH / 2
    for i in range(INTERVALS):
        c = (i + 0.5) * WIDTH
        cheb = chebyshev.chebinterpolate(lambda s, c=c: q_of(c + s * half), DEGREE)
        mono = chebyshev.cheb2poly(cheb)  # powers of s = d / half
        coef = mono / half ** np.arange(DEGREE + 1)  # powers of d
        rows.append(coef)
    coef = np.array(rows)
    hi = coef[:, 0].astype(np.float32)
    lo = (coef[:, 0] - hi.astype(np.float64)).astype(np.float32)
    out = {"QHI": hi, "QLO": lo}
    for k in range(1, DEGREE + 1):
        out[f"C{k}"] = coef[:, k].astype(np.float32)
    return out


def _fma(a, b, c):
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)


def erf32(x: np.ndarray, tab: dict) -> np.ndarray:
    """The C scheme in NumPy (fma emulated in double: an estimate)."""
    x = np.asarray(x, dtype=np.float32)
    t = np.abs(x)
    with np.errstate(invalid="ignore", over="ignore"):
        i = np.where(t < 4, np.floor(t * np.float32(8)), 31).astype(np.int64)
    i = np.clip(i, 0, 31)
    c = i.astype(np.float32) * np.float32(0.125) + np.float32(0.0625)
    d = t - c
    h = tab["C5"][i]
    for k in (4, 3, 2, 1):
        h = _fma(h, d, tab[f"C{k}"][i])
    lo = _fma(d, h, tab["QLO"][i])
    ts = np.minimum(t, np.float32(4)) * np.float32(2.0**32)  # exact; keeps t * lo normal
    r = _fma(ts, tab["QHI"][i], ts * lo) * np.float32(2.0**-32)
    r = np.where(t >= 4, np.float32(1), np.minimum(r, np.float32(1)))
    return np.copysign(r, x)


def ulp_error(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    ref = erf(x.astype(np.float64))
    ulp = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    return np.abs(y.astype(np.float64) - ref) / ulp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    tab = tables()
    if args.check:
        x = np.linspace(0, 4.2, 20_000_001, dtype=np.float32)
        x = np.concatenate([x, np.geomspace(1e-38, 0.2, 2_000_000).astype(np.float32)])
        err = ulp_error(x, erf32(x, tab))
        worst = int(np.argmax(err))
        print(f"max error {err[worst]:.4f} ulp at x = {x[worst]!r}; mean {err.mean():.4f}")
        return
    for name, values in tab.items():
        body = ",\n".join(
            "    " + ", ".join(f"{float(v)!r}f" for v in values[j : j + 3])
            for j in range(0, INTERVALS, 3)
        )
        print(f"static const float ERF32_{name}[32] = {{\n{body},\n}};")


if __name__ == "__main__":
    main()
