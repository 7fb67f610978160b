"""TensorFlow's numbers for the stateful random ops (`ek.random.uniform`, ``normal``,
``truncated_normal``, ``shuffle``, ``categorical``) on the CPU.

TensorFlow derives an op's two seeds with ``random_seed.get_seed(op_seed)``: with a global
seed, ``(global_seed, op_seed)``, where an op without ``seed`` takes the next draw of
``random.Random(global_seed).randint(0, 2**31 - 1)`` (``context.internal_operation_seed``);
without one, ``(87654321, op_seed)``; both taken modulo ``2**31 - 1``. The kernel is a Philox
generator with key ``seed`` and counter ``seed2 * 2**64``, cached by the eager runtime for
each (op, dtype, seed, seed2), so repeated calls with the same explicit ``seed`` continue one
stream; each call advances it by ``256`` blocks per output (``ReserveRandomOutputs``).
``set_seed`` starts the op seeds over and clears the streams.
"""

from __future__ import annotations

import math
import random as _pyrandom
import threading

import numpy as np

from . import philox

__all__ = [
    "categorical_draw",
    "fill",
    "get_seed",
    "multinomial",
    "reset",
    "shuffle_permutation",
]

MAXINT32 = 2**31 - 1
DEFAULT_GRAPH_SEED = 87654321

_state: dict = {"seed": None, "rng": None}
# (op, dtype, seed, seed2, device) -> [key, next counter]: the eager kernel cache's Philox
# states (each device has its own kernels).
_kernels: dict = {}
# One lock for the op-seed draws and the streams' counters: threads (a Dataset's workers, a
# strategy's replicas) draw from them at once, and no two calls may get one counter.
_lock = threading.Lock()


def reset(seed: int | None) -> None:
    """`set_seed`'s part: the op-seed generator of ``seed`` and no cached streams."""
    with _lock:
        _state["seed"] = seed
        _state["rng"] = None if seed is None else _pyrandom.Random(seed)
        _kernels.clear()


def get_seed(op_seed) -> tuple:
    """``(seed, seed2)`` of an op with op-level seed ``op_seed`` (TF's
    ``random_seed.get_seed`` in eager mode); ``(None, None)`` when nothing is seeded."""
    global_seed = _state["seed"]
    if global_seed is not None:
        if op_seed is None:
            op_seed = _state["rng"].randint(0, MAXINT32)
        seeds = (global_seed % MAXINT32, int(op_seed) % MAXINT32)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed) % MAXINT32)
    else:
        return None, None
    return (0, MAXINT32) if seeds == (0, 0) else seeds


def reserve(op: str, dtype, op_seed, count: int, device=None) -> tuple[int, int]:
    """The Philox ``(key, counter)`` of this call of ``op`` on ``device`` (a name), and the
    stream advanced by ``count`` blocks."""
    with _lock:
        seed, seed2 = get_seed(op_seed)
        cache = op_seed is not None or seed is None  # an unseeded op's seed2: fresh each call
        k = (op, dtype, seed, seed2, device)
        entry = _kernels.get(k)
        if entry is None:
            if seed is None:  # TF seeds such a kernel from the OS
                sysrand = _pyrandom.SystemRandom()
                entry = [sysrand.getrandbits(64), sysrand.getrandbits(64) << 64]
            else:
                entry = [seed, seed2 << 64]
            if cache:
                _kernels[k] = entry
        key, counter = entry
        entry[1] = counter + count
    return key, counter


def fill(op: str, kind: str, dtype, shape: tuple, op_seed, lo=0, hi=0, device=None):
    """The numbers of a ``RandomUniform``/``RandomStandardNormal``/``TruncatedNormal``/
    ``RandomUniformInt`` kernel call of ``shape`` (``kind`` as in `philox.fill`)."""
    n = math.prod(shape)
    key, counter = reserve(op, dtype, op_seed, 256 * n, device)
    return philox.fill(kind, dtype, key, counter, n, lo, hi).reshape(shape)


def shuffle_permutation(n: int, dtype, op_seed, device=None) -> list:
    """The permutation of ``range(n)`` TF's ``RandomShuffle`` applies: a Fisher-Yates pass
    swapping ``i`` with ``i + word_i % (n - i)``, one 32-bit word per step."""
    samples = max(n - 1, 0)
    key, counter = reserve("RandomShuffle", dtype, op_seed, (samples + 3) // 4, device)
    perm = list(range(n))
    if samples == 0:
        return perm
    words = philox.blocks(key, counter, (samples + 3) // 4).reshape(-1)[:samples].tolist()
    for i, w in enumerate(words):
        j = i + w % (n - i)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def categorical_draw(logits: np.ndarray, num_samples: int, dtype, op_seed, device=None):
    """TF's ``Multinomial`` kernel call (see `multinomial`); the CPU kernel reserves two
    words per sample, rounded up to 4 samples per row."""
    batch = logits.shape[0]
    ceil4 = (num_samples + 3) // 4 * 4
    key, counter = reserve("Multinomial", dtype, op_seed, 2 * 256 * batch * ceil4, device)
    return multinomial(key, counter, logits, num_samples)


def multinomial(key: int, counter: int, logits: np.ndarray, num_samples: int) -> np.ndarray:
    """TF's CPU ``Multinomial``/``StatelessMultinomial`` from Philox ``(key, counter)``: per
    row, a float64 CDF of ``exp(logit - max)`` over the finite logits, and each sample the
    first class whose CDF exceeds a uniform double (two words) times the total."""
    batch = logits.shape[0]
    total_words = 2 * batch * num_samples
    words = philox.blocks(key, counter, -(-total_words // 4)).reshape(-1)[:total_words]
    hi = (words[0::2].astype(np.uint64) & np.uint64(0xFFFFF)) << np.uint64(32)
    man = hi | words[1::2].astype(np.uint64)
    u = ((man | np.uint64(0x3FF << 52)).view(np.float64) - 1.0).reshape(batch, num_samples)
    out = np.empty((batch, num_samples), np.int64)
    x = logits.astype(np.float64)
    finite = np.isfinite(logits)
    for b in range(batch):
        row = x[b]
        fin = finite[b]
        top = row[fin].max() if fin.any() else float(np.finfo(logits.dtype).min)
        cdf = np.cumsum(np.where(fin, np.exp(row - top), 0.0))
        out[b] = np.searchsorted(cdf, u[b] * cdf[-1], side="right")
    return out
