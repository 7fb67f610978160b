"""``logf`` and ``sincosf`` as glibc computes them, vectorized in NumPy, so that the float32
Box-Muller normals of TensorFlow's Philox kernels (`philox`) come out bit for bit.

TensorFlow's CPU kernels call the C library's float32 ``log``/``sincosf``; glibc's (since
2.28) are Arm's optimized routines, which evaluate a short polynomial in float64 and round
once to float32. Their results are within 0.82 ULP, not correctly rounded, so NumPy's float32
functions (or float64 ones rounded) differ in the last bit for a few percent of inputs.
Repeating the same float64 steps reproduces them, except where a fused multiply-add of the
C build changes a float64 result that lies within a few float64 ULPs of a float32 rounding
boundary (a chance of about 2**-28 per number).

The tables and coefficients are those of Arm's optimized-routines (``math/logf_data.c``,
``math/sincosf_data.c``; Copyright (c) 2017-2018, Arm Limited; SPDX-License-Identifier: MIT).
"""

from __future__ import annotations

import numpy as np

__all__ = ["logf", "sincosf"]

_LOGF_TAB = np.array(
    [
        (float.fromhex("0x1.661ec79f8f3bep+0"), float.fromhex("-0x1.57bf7808caadep-2")),
        (float.fromhex("0x1.571ed4aaf883dp+0"), float.fromhex("-0x1.2bef0a7c06ddbp-2")),
        (float.fromhex("0x1.49539f0f010bp+0"), float.fromhex("-0x1.01eae7f513a67p-2")),
        (float.fromhex("0x1.3c995b0b80385p+0"), float.fromhex("-0x1.b31d8a68224e9p-3")),
        (float.fromhex("0x1.30d190c8864a5p+0"), float.fromhex("-0x1.6574f0ac07758p-3")),
        (float.fromhex("0x1.25e227b0b8eap+0"), float.fromhex("-0x1.1aa2bc79c81p-3")),
        (float.fromhex("0x1.1bb4a4a1a343fp+0"), float.fromhex("-0x1.a4e76ce8c0e5ep-4")),
        (float.fromhex("0x1.12358f08ae5bap+0"), float.fromhex("-0x1.1973c5a611cccp-4")),
        (float.fromhex("0x1.0953f419900a7p+0"), float.fromhex("-0x1.252f438e10c1ep-5")),
        (1.0, 0.0),
        (float.fromhex("0x1.e608cfd9a47acp-1"), float.fromhex("0x1.aa5aa5df25984p-5")),
        (float.fromhex("0x1.ca4b31f026aap-1"), float.fromhex("0x1.c5e53aa362eb4p-4")),
        (float.fromhex("0x1.b2036576afce6p-1"), float.fromhex("0x1.526e57720db08p-3")),
        (float.fromhex("0x1.9c2d163a1aa2dp-1"), float.fromhex("0x1.bc2860d22477p-3")),
        (float.fromhex("0x1.886e6037841edp-1"), float.fromhex("0x1.1058bc8a07ee1p-2")),
        (float.fromhex("0x1.767dcf5534862p-1"), float.fromhex("0x1.4043057b6ee09p-2")),
    ]
)
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_A0, _A1, _A2 = (
    float.fromhex("-0x1.00ea348b88334p-2"),
    float.fromhex("0x1.5575b0be00b6ap-2"),
    float.fromhex("-0x1.ffffef20a4123p-2"),
)


def logf(x: np.ndarray) -> np.ndarray:
    """glibc's ``logf`` of a float32 array (positive normal inputs; others fall back to the
    float64 logarithm rounded to float32)."""
    x = np.asarray(x, np.float32)
    if x.size <= _SMALL:
        return _small(_logf1, x, 1)[0]
    ix = x.view(np.uint32)
    tmp = ix - np.uint32(0x3F330000)  # wraps as C's uint32
    i = (tmp >> np.uint32(19)) & np.uint32(15)
    k = tmp.view(np.int32) >> np.int32(23)
    z = (ix - (tmp & np.uint32(0xFF800000))).view(np.float32).astype(np.float64)
    r = z * _INVC[i]
    r -= 1.0
    y0 = k * _LN2
    y0 += _LOGC[i]
    r2 = r * r
    y = _A1 * r
    y += _A2
    y += _A0 * r2
    y *= r2
    y0 += r
    y += y0
    out = y.astype(np.float32)
    odd = (ix - np.uint32(0x00800000)) >= np.uint32(0x7F800000 - 0x00800000)
    if odd.any():
        with np.errstate(divide="ignore", invalid="ignore"):
            out[odd] = np.log(x[odd].astype(np.float64)).astype(np.float32)
    return out


_INVC, _LOGC = _LOGF_TAB[:, 0].copy(), _LOGF_TAB[:, 1].copy()


# sincosf_data.c: sign, 2/pi * 2**24, pi/2, cos c0..c4 and sin s1..s3 (table 1 gives -cos)
_HPI_INV = float.fromhex("0x1.45F306DC9C883p+23")
_HPI = float.fromhex("0x1.921FB54442D18p0")
_C = [
    float.fromhex(h)
    for h in (
        "0x1p0",
        "-0x1.ffffffd0c621cp-2",
        "0x1.55553e1068f19p-5",
        "-0x1.6c087e89a359dp-10",
        "0x1.99343027bf8c3p-16",
    )
]
_S = [
    float.fromhex(h)
    for h in ("-0x1.555545995a603p-3", "0x1.1107605230bc4p-7", "-0x1.994eb3774cf24p-13")
]
_SIGN = np.array([1.0, -1.0, -1.0, 1.0])


def _abstop12(bits: np.ndarray) -> np.ndarray:
    return (bits >> 20) & 0x7FF


_TOP_TINY = int(_abstop12(np.float32(2.0**-12).view(np.uint32)))
_TOP_PIO4 = int(_abstop12(np.float32(float.fromhex("0x1.921FB6p-1")).view(np.uint32)))
_TOP_120 = int(_abstop12(np.float32(120.0).view(np.uint32)))


def sincosf(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """glibc's ``sincosf`` of a float32 array: ``(sin, cos)`` in float32 (inputs of magnitude
    120 or more fall back to the float64 functions rounded to float32).

    The reduction ``x - n * pi/2`` with ``n = round(x * 2/pi)`` leaves ``x`` unchanged below
    pi/4 (glibc's first branch); the second table (``n & 2``) negates the cosine polynomial and
    the sign table the sine's odd polynomial, both exact negations, applied after."""
    v = np.asarray(v, np.float32)
    if v.size <= _SMALL:
        return _small(_sincosf1, v, 2)
    top = _abstop12(v.view(np.uint32))
    x = v.astype(np.float64)
    big = top >= _TOP_120
    if big.any():
        x = np.where(big, 0.0, x)
    n = ((x * _HPI_INV).astype(np.int32) + np.int32(0x800000)) >> np.int32(24)
    x -= n * _HPI
    x2 = x * x
    x4 = x2 * x2
    x3 = x2 * x
    sp = x3 * _S[0]
    sp += x
    s1 = x2 * _S[2]
    s1 += _S[1]
    s1 *= x3 * x2
    sp += s1
    cp = x2 * _C[1]
    cp += _C[0]
    cp += x4 * _C[2]
    c2 = x2 * _C[4]
    c2 += _C[3]
    c2 *= x4 * x2
    cp += c2
    sp *= _SIGN[n & 3]
    cp *= _CSIGN[n & 3]
    sin_part, cos_part = sp.astype(np.float32), cp.astype(np.float32)
    odd = (n & 1).astype(bool)
    sin_out = np.where(odd, cos_part, sin_part)
    cos_out = np.where(odd, sin_part, cos_part)
    tiny = top < _TOP_TINY
    if tiny.any():
        sin_out[tiny] = v[tiny]
        cos_out[tiny] = 1.0
    if big.any():
        with np.errstate(invalid="ignore"):
            sin_out[big] = np.sin(v[big].astype(np.float64)).astype(np.float32)
            cos_out[big] = np.cos(v[big].astype(np.float64)).astype(np.float32)
    return sin_out, cos_out


_CSIGN = np.array([1.0, 1.0, -1.0, -1.0])


# A few numbers: the same float64 steps on Python floats (IEEE doubles), without NumPy's
# per-call overhead.
_SMALL = 32
_M32 = 0xFFFFFFFF
_INVC_L, _LOGC_L = _INVC.tolist(), _LOGC.tolist()
_SIGN_L, _CSIGN_L = _SIGN.tolist(), _CSIGN.tolist()


def _small(fn, x: np.ndarray, outs: int) -> tuple:
    """``fn`` (float32 value, its bits) -> float64 results, over ``x``, rounded to float32."""
    flat = x.reshape(-1)
    res = [fn(v, b) for v, b in zip(flat.tolist(), flat.view(np.uint32).tolist(), strict=True)]
    arr = np.array(res, np.float64).reshape(len(res), outs).astype(np.float32)
    return tuple(arr[:, j].reshape(x.shape) for j in range(outs))


def _logf1(v: float, ix: int) -> tuple:
    if ((ix - 0x00800000) & _M32) >= 0x7F800000 - 0x00800000:
        return (float(np.log(np.float64(v))) if v >= 0 else float("nan"),)
    tmp = (ix - 0x3F330000) & _M32
    i = (tmp >> 19) & 15
    k = (tmp >> 23) - (512 if tmp & 0x80000000 else 0)
    z = float(np.uint32((ix - (tmp & 0xFF800000)) & _M32).view(np.float32))
    r = z * _INVC_L[i] - 1.0
    y0 = _LOGC_L[i] + k * _LN2
    r2 = r * r
    y = _A1 * r + _A2
    y = _A0 * r2 + y
    return (y * r2 + (y0 + r),)


def _sincosf1(v: float, bits: int) -> tuple:
    top = (bits >> 20) & 0x7FF
    if top < _TOP_TINY:
        return v, 1.0
    if top >= _TOP_120:
        return float(np.sin(v)), float(np.cos(v))
    x = v
    n = (int(x * _HPI_INV) + 0x800000) >> 24
    x = x - n * _HPI
    x2 = x * x
    x4 = x2 * x2
    x3 = x2 * x
    sp = (x3 * _S[0] + x) + (x2 * _S[2] + _S[1]) * (x3 * x2)
    cp = (x2 * _C[1] + _C[0]) + x4 * _C[2]
    cp = cp + (x2 * _C[4] + _C[3]) * (x4 * x2)
    sp *= _SIGN_L[n & 3]
    cp *= _CSIGN_L[n & 3]
    return (cp, sp) if n & 1 else (sp, cp)
