"""Philox-4x32-10, the counter-based generator behind TensorFlow's "philox" algorithm, and the
distributions TensorFlow's kernels build on it (``random_distributions.h``), in NumPy.

Philox-4x32-10 (Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3", SC 2011) hashes
a 128-bit counter with a 64-bit key into four 32-bit words. TensorFlow stores a Philox state
as three int64s ``[counter_low, counter_high, key]``; block ``i`` of a draw hashes the counter
``counter + i`` (a 128-bit addition), and a draw of ``n`` numbers advances the stored counter
by ``256 * n`` (TensorFlow's ``RngReadAndSkip``). The distributions below consume the words
exactly as TensorFlow's CPU kernels do, so the numbers are TensorFlow's bit for bit (float32
normals through glibc's ``logf``/``sincosf``, `libm_float`).

Where the C twin ``native/_philox.c`` was built (and ``EAGERKERNEL_NATIVE`` is not ``0``),
`blocks` and the float32/float64 uniform, normal and truncated normal draws of `fill` run in
it, a few nanoseconds a number instead of tens to hundreds; the NumPy code here is the
reference it is tested against (tests/test_philox_native.py), bit for bit.
"""

from __future__ import annotations

import functools

import numpy as np

from .libm_float import logf, sincosf
from .native import ENABLED as _NATIVE_ENABLED

try:  # the C twin (native/_philox.c): the same numbers, a few ns each
    from .native import _philox
except ImportError:  # not built: the NumPy code below runs
    _philox = None
if not _NATIVE_ENABLED:
    _philox = None

__all__ = [
    "MASK64",
    "blocks",
    "box_muller_double",
    "fill",
    "key_counter_from_seed",
]

MASK64 = (1 << 64) - 1
_MASK128 = (1 << 128) - 1
_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = 0x9E3779B9, 0xBB67AE85
_LOW = np.uint64(0xFFFFFFFF)
_32 = np.uint64(32)


@functools.lru_cache(maxsize=256)
def _schedule(key: int) -> tuple:
    """The ten round keys ``(k0, k1)`` of a 64-bit ``key``."""
    k0, k1 = key & 0xFFFFFFFF, key >> 32
    out = []
    for _ in range(10):
        out.append((k0, k1))
        k0, k1 = (k0 + _W0) & 0xFFFFFFFF, (k1 + _W1) & 0xFFFFFFFF
    return tuple(out)


def _blocks_small(rounds: tuple, counter: int, n: int) -> np.ndarray:
    """`blocks` on Python ints: faster than NumPy's per-call overhead for a few blocks."""
    out = []
    for i in range(n):
        c = (counter + i) & _MASK128
        c0, c1, c2, c3 = c & 0xFFFFFFFF, (c >> 32) & 0xFFFFFFFF, (c >> 64) & 0xFFFFFFFF, c >> 96
        for k0, k1 in rounds:
            p0, p1 = 0xD2511F53 * c0, 0xCD9E8D57 * c2
            c0, c1, c2, c3 = (
                (p1 >> 32) ^ c1 ^ k0,
                p1 & 0xFFFFFFFF,
                (p0 >> 32) ^ c3 ^ k1,
                p0 & 0xFFFFFFFF,
            )
        out += (c0, c1, c2, c3)
    return np.array(out, np.uint32).reshape(n, 4)


def blocks(key: int, counter: int, n: int) -> np.ndarray:
    """The ``(n, 4)`` uint32 outputs of Philox-4x32-10 with 64-bit ``key`` for the 128-bit
    counters ``counter, counter + 1, ..., counter + n - 1`` (Python ints, taken modulo 2**64
    and 2**128)."""
    counter &= _MASK128
    if _philox is not None:
        return _native("w", np.uint32, key, counter, 4 * n).reshape(n, 4)
    rounds = _schedule(key & MASK64)
    if n <= 16:
        return _blocks_small(rounds, counter, n)
    lo0, hi0 = counter & MASK64, counter >> 64
    lo = np.arange(n, dtype=np.uint64)
    lo += np.uint64(lo0)  # wraps modulo 2**64
    hi = (lo < np.uint64(lo0)).astype(np.uint64)
    hi += np.uint64(hi0)
    return _blocks_at(rounds, lo, hi)


def _blocks_at(rounds: tuple, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The Philox blocks of the counters ``hi * 2**64 + lo`` (uint64 arrays)."""
    c0, c1 = lo & _LOW, lo >> _32
    c2, c3 = hi & _LOW, hi >> _32
    for k0, k1 in rounds:
        p0 = c0 * _M0
        p1 = c2 * _M1
        c0 = p1 >> _32
        c0 ^= c1
        c0 ^= np.uint64(k0)
        c2 = p0 >> _32
        c2 ^= c3
        c2 ^= np.uint64(k1)
        p1 &= _LOW
        p0 &= _LOW
        c1, c3 = p1, p0
    out = np.empty((len(lo), 4), np.uint32)
    out[:, 0], out[:, 1], out[:, 2], out[:, 3] = c0, c1, c2, c3
    return out


def key_counter_from_seed(seed0: int, seed1: int) -> tuple[int, int]:
    """TensorFlow's scrambling of a stateless op's ``seed=[seed0, seed1]`` into a Philox
    ``(key, counter)`` (``StatelessRandomGetKeyCounter``): the seed is the counter of one
    Philox block under a fixed key; that block's words are the new key and counter."""
    counter = (seed0 & MASK64) | ((seed1 & MASK64) << 64)
    mix = blocks(0x02461E293EC8F720, counter, 1)[0].astype(np.uint64)
    key = int(mix[0]) | (int(mix[1]) << 32)
    return key, (int(mix[2]) | (int(mix[3]) << 32)) << 64


def _uint32_to_float(x: np.ndarray) -> np.ndarray:
    """A float32 in [0, 1) from the low 23 bits of ``x`` (TF's ``Uint32ToFloat``)."""
    bits = (x & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)
    return bits.view(np.float32) - np.float32(1.0)


def _uint64_to_double(x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
    """A float64 in [0, 1) from 52 bits of ``x0, x1`` (TF's ``Uint64ToDouble``)."""
    man = ((x0.astype(np.uint64) & np.uint64(0xFFFFF)) << _32) | x1.astype(np.uint64)
    return (man | np.uint64(0x3FF << 52)).view(np.float64) - 1.0


def _uint16_to_half(x: np.ndarray) -> np.ndarray:
    """A float16 in [0, 1) from the low 10 bits of ``x`` (TF's ``Uint16ToHalf``)."""
    bits = ((x & np.uint32(0x3FF)) | np.uint32(15 << 10)).astype(np.uint16)
    return bits.view(np.float16) - np.float16(1.0)


def _box_muller_float(x0: np.ndarray, x1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two float32 standard normals per pair of words (TF's ``BoxMullerFloat``)."""
    u1 = np.maximum(_uint32_to_float(x0), np.float32(1.0e-7))
    # TF multiplies by the double 2 * M_PI and rounds the product to float32
    v1 = (2.0 * np.pi * _uint32_to_float(x1).astype(np.float64)).astype(np.float32)
    # glibc's logf and sincosf, which TF's kernel calls (NumPy's differ in the last bit)
    u2 = np.sqrt(np.float32(-2.0) * logf(u1))
    sin, cos = sincosf(v1)
    return sin * u2, cos * u2


def box_muller_double(x0, x1, x2, x3) -> tuple[np.ndarray, np.ndarray]:
    """Two float64 standard normals per four words (TF's ``BoxMullerDouble``)."""
    u1 = np.maximum(_uint64_to_double(x0, x1), 1.0e-7)
    v1 = 2.0 * np.pi * _uint64_to_double(x2, x3)
    u2 = np.sqrt(-2.0 * np.log(u1))
    return np.sin(v1) * u2, np.cos(v1) * u2


def _interleave(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.stack([a, b], axis=-1).reshape(-1)


def _truncated(key: int, counter: int, n: int, double: bool) -> np.ndarray:
    """TF's ``TruncatedNormalDistribution``: output group ``g`` (4 float32s or 2 float64s)
    reads its own stream of blocks from ``counter + 64 * 4 * g`` (``64 * 2 * g``) and keeps,
    in order, the Box-Muller normals with magnitude below 2. All groups' first blocks (2, or
    3 for float64: 8 or 6 normals) are drawn at once; the rare group they do not fill is drawn
    again one by one (`_truncated_group`)."""
    per = 2 if double else 4
    nb = 3 if double else 2
    skip = 64 * per  # TF skips 256 samples (64 blocks) per output of a group
    groups = -(-n // per)
    dt = np.float64 if double else np.float32
    if groups == 0:
        return np.empty(0, dt)
    # counters counter + skip * g + j for j < nb, as (lo, hi) uint64 pairs
    starts = [(counter + skip * g) & _MASK128 for g in range(groups)] if groups <= 16 else None
    if starts is not None:
        w = np.concatenate([_blocks_small(_schedule(key & MASK64), c, nb) for c in starts])
    else:
        base = counter & _MASK128
        lo0, hi0 = base & MASK64, base >> 64
        off = (np.arange(groups, dtype=np.uint64)[:, None] * np.uint64(skip)) + np.arange(
            nb, dtype=np.uint64
        )
        lo = off.reshape(-1) + np.uint64(lo0)  # wraps modulo 2**64
        hi = (lo < np.uint64(lo0)).astype(np.uint64) + np.uint64(hi0)
        w = _blocks_at(_schedule(key & MASK64), lo, hi)
    w = w.reshape(groups, 4 * nb)
    if double:
        a, b = box_muller_double(w[:, 0::4], w[:, 1::4], w[:, 2::4], w[:, 3::4])
    else:
        a, b = _box_muller_float(w[:, 0::2], w[:, 1::2])
    z = np.stack([a, b], axis=-1).reshape(groups, -1)
    ok = np.abs(z) < 2.0
    rank = np.cumsum(ok, axis=1)
    full = rank[:, -1] >= per
    out = np.empty((groups, per), dt)
    keep = ok & (rank <= per)
    out[full] = z[full][keep[full]].reshape(-1, per)
    for g in np.flatnonzero(~full):
        out[g] = _truncated_group(key, counter + skip * int(g), per, double)
    return out.reshape(-1)[:n]


def _truncated_group(key: int, start: int, per: int, double: bool) -> list:
    """One group of `_truncated`, drawn 8 blocks at a time until it has ``per`` numbers."""
    got: list = []
    while len(got) < per:
        w = blocks(key, start, 8).reshape(-1)
        start += 8
        if double:
            w = w.reshape(-1, 4)
            a, b = box_muller_double(w[:, 0], w[:, 1], w[:, 2], w[:, 3])
        else:
            a, b = _box_muller_float(w[0::2], w[1::2])
        z = _interleave(a, b)
        got.extend(z[np.abs(z) < 2.0][: per - len(got)].tolist())
    return got


def fill(kind: str, dtype: np.dtype, key: int, counter: int, n: int, lo=0, hi=0) -> np.ndarray:
    """``n`` numbers of distribution ``kind`` in ``dtype``, as TensorFlow's Philox kernels
    fill them from ``(key, counter)``.

    ``kind`` is "normal", "uniform" (floats in [0, 1); integers in ``[lo, hi)``),
    "full_int" (the whole range of an integer dtype) or "truncated_normal". float16 normals
    are float32 ones rounded, as TF's; float16 uniforms take 10 bits of each word."""
    dtype = np.dtype(dtype)
    wide = dtype.itemsize == 8
    code = _NATIVE_KINDS.get((kind, dtype.char)) if _philox is not None else None
    if code is not None:
        return _native(code, dtype, key, counter & _MASK128, n)
    if kind == "truncated_normal":
        return _truncated(key, counter, n, wide and dtype.kind == "f").astype(dtype)
    per = 2 if wide else 4  # outputs per Philox block
    w = blocks(key, counter, -(-n // per))
    if kind == "normal":
        if wide:
            a, b = box_muller_double(w[:, 0], w[:, 1], w[:, 2], w[:, 3])
        else:
            a, b = _box_muller_float(w[:, 0::2].reshape(-1), w[:, 1::2].reshape(-1))
        out = _interleave(a, b)
    elif kind == "uniform" and dtype.kind == "f":
        w = w.reshape(-1)
        if wide:
            out = _uint64_to_double(w[0::2], w[1::2])
        elif dtype == np.float16:  # one number per word, from its low 16 bits
            out = _uint16_to_half(w)
        else:
            out = _uint32_to_float(w)
    elif dtype.kind in "iu":
        w = w.reshape(-1)
        bits = (w[0::2].astype(np.uint64) | (w[1::2].astype(np.uint64) << _32)) if wide else w
        if kind == "uniform":
            span = (hi - lo) & (MASK64 if wide else 0xFFFFFFFF)
            base = np.uint64(lo & MASK64) if wide else np.uint32(lo & 0xFFFFFFFF)
            bits = base + bits % bits.dtype.type(span)  # wraps as TF's SignedAdd
        out = bits.view(np.dtype(f"i{dtype.itemsize if wide else 4}"))
        out = out if dtype.kind == "i" else bits
    else:
        raise ValueError(f"philox.fill: unknown distribution {kind!r} for {dtype}.")
    return out[:n].astype(dtype)


# The (kind, dtype) pairs the C twin fills itself, and its code for each.
_NATIVE_KINDS = {
    ("uniform", "f"): "u",
    ("uniform", "d"): "U",
    ("normal", "f"): "n",
    ("normal", "d"): "N",
    ("truncated_normal", "f"): "t",
    ("truncated_normal", "d"): "T",
}


def _native(code: str, dtype, key: int, counter: int, n: int) -> np.ndarray:
    """``n`` numbers of the C twin's distribution ``code`` (see ``_philox.c``)."""
    out = np.empty(n, dtype)
    _philox.fill(out, code, key & MASK64, counter & MASK64, counter >> 64)
    return out
