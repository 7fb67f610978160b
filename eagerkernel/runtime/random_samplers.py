"""TensorFlow's rejection and inversion samplers on Philox streams, in Python: binomial
(``random_binomial_op.cc``), Poisson (``random_poisson_op.cc``) and gamma (``RandomGamma`` in
``random_op.cc``), so that `Generator.binomial`, `stateless_binomial`, `ek.random.poisson`,
`stateless_poisson` and `ek.random.gamma` give TensorFlow's numbers on the CPU.

Each output ``i`` (in the kernel's batch-major order) reads its own Philox stream, the
kernel's ``(key, counter)`` skipped by a fixed number of blocks per output; its uniform
doubles are drawn two per block (52 bits each, ``Uint64ToDouble``) and used second first, as
the kernel's ``UNIFORM`` macro takes them. The kernels compute in float64 whatever the
parameters' dtype; ``log``/``exp``/``pow`` are Python's (the C library's), ``lgamma`` the C
library's (`_c_lgamma`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import struct

import numpy as np

from . import philox
from .core.errors import InvalidArgumentError

__all__ = ["binomial", "binomial_skip", "check_poisson_range", "gamma", "poisson"]

_BLOCKS = 8  # Philox blocks fetched at a time


class _Uniforms:
    """The uniform doubles of one Philox stream, in the order TF's ``UNIFORM`` macro reads
    them: per block the second double (words 2, 3), then the first (words 0, 1)."""

    __slots__ = ("_buf", "_counter", "_key")

    def __init__(self, key: int, counter: int):
        self._key, self._counter, self._buf = key, counter, []

    def __call__(self) -> float:
        if not self._buf:
            words = philox.blocks(self._key, self._counter, _BLOCKS).tolist()
            self._counter += _BLOCKS
            buf = []
            for w0, w1, w2, w3 in reversed(words):
                buf += (_to_double(w0, w1), _to_double(w2, w3))
            self._buf = buf  # popped from the end: block 0's second double first
        return self._buf.pop()


def _to_double(hi: int, lo: int) -> float:
    bits = (0x3FF << 52) | ((hi & 0xFFFFF) << 32) | lo
    return struct.unpack("<d", struct.pack("<Q", bits))[0] - 1.0


def _binomial_inversion(count: float, prob: float, uniform: _Uniforms) -> float:
    geom_sum, num_geom = 0.0, 0
    log1p_q = math.log1p(-prob)
    while True:
        q = _log(uniform()) / log1p_q
        geom_sum += math.ceil(q) if math.isfinite(q) else q  # u == 0: an infinite wait
        if geom_sum > count:
            return float(num_geom)
        num_geom += 1


def _log(x: float) -> float:
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


_TAIL = (
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
)


def _stirling_tail(k: float) -> float:
    if k <= 9:
        return _TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _btrs(count: float, prob: float, uniform: _Uniforms) -> float:
    """Hormann's transformed rejection (BTRS), as TF's kernel writes it."""
    stddev = math.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor((count + 1) * prob)
    while True:
        u = uniform() - 0.5
        v = uniform()
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + c)
        if us >= 0.07 and v <= v_r:
            return float(k)
        if k < 0 or k > count:
            continue
        v = _log(v * alpha / (a / (us * us) + b))
        upper = (
            (m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
            + (count + 1) * math.log((count - m + 1) / (count - k + 1))
            + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
            + _stirling_tail(m)
            + _stirling_tail(count - m)
            - _stirling_tail(k)
            - _stirling_tail(count - k)
        )
        if v <= upper:
            return float(k)


def _binomial_one(count, prob, key: int, counter: int, index: int) -> float:
    """One sample (``count``, ``prob`` NumPy scalars of the parameters' dtype)."""
    t = type(prob)
    if float(count) <= 0.0 or prob <= t(0):
        return 0.0
    if prob >= t(1):
        return float(count)
    if prob <= t(0.5):
        flip, p = False, prob
    elif prob > t(0.5):
        flip, p = True, t(1) - prob
    else:  # NaN
        return math.nan
    if count * p >= t(10):
        draw = _btrs(float(count), float(p), _Uniforms(key, counter + 256 * index))
    else:  # the kernel reserves 42 blocks for an inversion
        draw = _binomial_inversion(float(count), float(p), _Uniforms(key, counter + 42 * index))
    return float(count) - draw if flip else draw


def binomial_skip(shape: tuple, batch_shape: tuple) -> int:
    """The ``delta`` (in 256-block units) `StatefulRandomBinomial` advances a state by."""
    nb = math.prod(batch_shape)
    spb = math.prod(shape[: len(shape) - len(batch_shape)])
    return nb * 2 * 100 * (spb + 3) // 4


def binomial(key: int, counter: int, counts, probs, shape: tuple) -> np.ndarray:
    """TF's CPU ``RandomBinomialFunctor``: float64 samples of ``shape``, whose trailing
    dimensions are the broadcast shape of ``counts`` and ``probs`` (NumPy arrays of one
    floating dtype, in which the kernel compares)."""
    counts, probs = np.broadcast_arrays(counts, probs)
    nb = counts.size
    n = math.prod(shape)
    spb = n // nb if nb else 0
    cflat, pflat = counts.reshape(-1), probs.reshape(-1)
    out = np.empty(n, np.float64)
    for i in range(n):
        b, s = divmod(i, spb)
        out[s * nb + b] = _binomial_one(cflat[b], pflat[b], key, counter, i)
    return out.reshape(shape)


# -- the C library's lgamma, which TF's Poisson kernel calls (CPython's math.lgamma is its own)


def _c_lgamma():
    name = ctypes.util.find_library("m")
    try:
        fn = ctypes.CDLL(name).lgamma if name else None
    except (OSError, AttributeError):
        fn = None
    if fn is None:
        return math.lgamma
    fn.restype, fn.argtypes = ctypes.c_double, [ctypes.c_double]
    return fn


_lgamma = _c_lgamma()


class _Stream:
    """One output's Philox stream and TF's float64 ``UniformDistribution`` and
    ``NormalDistribution`` on it: each call of a distribution takes the next block, whose two
    numbers are used second first (the kernels' ``*_remaining`` counters count down)."""

    __slots__ = ("_blocks", "_counter", "_key", "_normals", "_uniforms")

    def __init__(self, key: int, counter: int):
        self._key, self._counter = key, counter
        self._blocks: list = []
        self._uniforms: list = []
        self._normals: list = []

    def _block(self) -> np.ndarray:
        if not self._blocks:
            self._blocks = list(philox.blocks(self._key, self._counter, _BLOCKS)[::-1])
            self._counter += _BLOCKS
        return self._blocks.pop()

    def uniform(self) -> float:
        if not self._uniforms:
            w0, w1, w2, w3 = (int(x) for x in self._block())
            self._uniforms = [_to_double(w0, w1), _to_double(w2, w3)]
        return self._uniforms.pop()

    def normal(self) -> float:
        if not self._normals:  # TF's BoxMullerDouble on Python floats: the C library's maths
            w0, w1, w2, w3 = (int(x) for x in self._block())
            u1 = max(_to_double(w0, w1), 1.0e-7)
            v1 = 2 * math.pi * _to_double(w2, w3)
            u2 = math.sqrt(-2.0 * math.log(u1))
            self._normals = [math.sin(v1) * u2, math.cos(v1) * u2]
        return self._normals.pop()


# -- Poisson -------------------------------------------------------------------------------------


def _poisson_one(rate: float, consts, highest: float, stream: _Stream) -> float:
    if rate < 10:  # Knuth: multiply uniforms until the product is <= exp(-rate)
        prod, x = 1.0, 0.0
        while True:
            prod *= stream.uniform()
            if prod <= consts and x <= highest:
                return x
            x += 1
    log_rate, b, a, inv_alpha, v_r = consts  # Hormann's transformed rejection
    while True:
        u = stream.uniform() - 0.5
        v = stream.uniform()
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + rate + 0.43)
        if k > highest:  # the kernel retries what its output type cannot hold
            continue
        if us >= 0.07 and v <= v_r:
            return float(k)
        if k < 0 or (us < 0.013 and v > us):
            continue
        s = _log(v * inv_alpha / (a / (us * us) + b))
        if s <= -rate + k * log_rate - _lgamma(k + 1):
            return float(k)


def _poisson_consts(rate: float):
    if rate < 10:
        return math.exp(-rate)
    b = 0.931 + 2.53 * math.sqrt(rate)
    a = -0.059 + 0.02483 * b
    return math.log(rate), b, a, 1.1239 + 1.1328 / (b - 3.4), 0.9277 - 3.6224 / (b - 2)


def check_poisson_range(rate: np.ndarray, dtype, op: str) -> None:
    """InvalidArgumentError for a finite rate above an integer ``dtype``'s largest value: TF's
    kernel redraws every count the output cannot hold, so for such a rate it never returns
    (most counts are above the rate); here the call fails instead.

    >>> try:
    ...     check_poisson_range(np.array([1e12]), np.int32, "random.poisson")
    ... except ValueError as error:  # an InvalidArgumentError
    ...     print(str(error)[:55])
    random.poisson: a rate of 1e+12 exceeds the range of dt
    """
    dt = np.dtype(dtype)
    finite = rate[np.isfinite(rate)]
    if dt.kind in "iu" and finite.size and finite.max() > np.iinfo(dt).max:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: a rate of {finite.max():.4g} exceeds the range of dtype {dt.name} "
            "(TensorFlow's kernel would never return); use a wider output dtype for rates "
            "this large.",
        )


def poisson(key: int, counter: int, rate: np.ndarray, num_samples: int, dtype) -> np.ndarray:
    """TF's CPU ``PoissonFunctor`` (in float64 whatever the rates' dtype; Knuth's method
    below rate 10, Hormann's transformed rejection above): ``num_samples * rate.size``
    float64 counts in the layout ``[sample, rate]`` (flat), output ``i`` (rate-major) from
    the stream at ``counter + 256 * i``; ``dtype`` is the output's, whose largest value
    bounds the counts.

    Raises:
        ValueError: a NaN rate (TF's kernel never returns for one)."""
    flat = rate.reshape(-1).astype(np.float64)
    dt = np.dtype(dtype)
    highest = float(np.finfo(dt).max if dt.kind == "f" else np.iinfo(dt).max)
    nr = flat.size
    out = np.empty(num_samples * nr, np.float64)
    for r in range(nr):
        rt = float(flat[r])
        if math.isnan(rt):
            raise ValueError("poisson: a NaN rate (TF's kernel never returns for one).")
        if math.isinf(rt):  # the rejection loop cannot place k; TF's returns inf or spins
            out[r::nr] = math.inf
            continue
        consts = _poisson_consts(rt)
        for s in range(num_samples):
            stream = _Stream(key, counter + 256 * (r * num_samples + s))
            out[s * nr + r] = _poisson_one(rt, consts, highest, stream)
    return out


# -- gamma ---------------------------------------------------------------------------------------


def _gamma_one(alpha: float, d: float, c: float, stream: _Stream) -> float:
    if alpha == 1.0:  # an exponential sample
        return -math.log1p(-stream.uniform())
    while True:
        x = stream.normal()
        v = 1 + c * x
        if v <= 0:
            continue
        v = v * v * v
        u = stream.uniform()
        if u < 1 - 0.0331 * (x * x) * (x * x) or _log(u) < 0.5 * x * x + d * (1 - v + _log(v)):
            res = d * v
            if alpha < 1:
                with np.errstate(all="ignore"):  # alpha <= 0: C's pow of 1 / alpha
                    res *= float(np.power(stream.uniform(), np.float64(1) / np.float64(alpha)))
            return res


def gamma(key: int, counter: int, alpha: np.ndarray, num_samples: int) -> np.ndarray:
    """TF's CPU ``RandomGamma`` (Marsaglia and Tsang, in float64 whatever ``alpha``'s dtype;
    for ``alpha < 1`` the sample for ``alpha + 1`` times ``u ** (1 / alpha)``; for
    ``alpha == 1`` ``-log1p(-u)``; ``StatelessRandomGammaV3`` is the same):
    ``num_samples * alpha.size`` float64 samples in the
    layout ``[sample, alpha]`` (flat), output ``i`` (alpha-major) from the stream at
    ``counter + 256 * i``."""
    flat = alpha.reshape(-1).astype(np.float64)
    na = flat.size
    out = np.empty(num_samples * na, np.float64)
    for j in range(na):
        a = float(flat[j])
        d = a + (2.0 / 3 if a < 1 else -1.0 / 3)
        with np.errstate(all="ignore"):  # C's sqrt and division: NaN below 0, inf at 0
            c = float(np.float64(1.0 / 3) / np.sqrt(np.float64(d)))
        for s in range(num_samples):
            i = j * num_samples + s
            out[s * na + j] = _gamma_one(a, d, c, _Stream(key, counter + 256 * i))
    return out
