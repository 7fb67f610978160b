"""`Dataset.shuffle`: tf.data's buffer algorithm, on elements or (fast path) on indices.

The algorithm: fill a buffer with the first ``buffer_size`` elements; then, for each further
input element, emit a uniformly chosen buffered element and put the input element in its slot;
at the end of the input, emit the buffered elements in random order (choose one uniformly, move
the last one into its slot). Each choice consumes exactly one double ``u`` from the pass's
generator (slot ``floor(u * len(buffer))``), so the element-wise and the index versions below
give the same order for the same seed.

Seeds (as tf.data): an op seed, with or without `ek.random.set_seed`, fixes the sequence of
orders; a global seed alone derives an op seed from a counter of shuffles created since
`set_seed`; neither gives fresh entropy. Pass ``e`` of a dataset (its e-th iterator, or e-th
repetition) draws from ``default_rng([global, op, e])``, so ``reshuffle_each_iteration=True``
gives a new order each pass and the same sequence of orders for a fresh dataset; with False
every pass uses pass 0's order.
"""

from __future__ import annotations

import itertools
import threading

import numpy as np

from .. import random
from ..core.errors import InvalidArgumentError
from .dataset import Dataset, int_arg
from .plan import IndexPlan
from .sources import input_spec

__all__ = ["Shuffle", "seed_key", "shuffle_elements", "shuffle_indices"]

# Op seeds derived from the global seed start here, away from small user-chosen op seeds.
_DERIVED_SEED_BASE = 1 << 31
_counter_state = [None, 0]  # [the `ek.random` generator the count belongs to, count]
_counter_lock = threading.Lock()


def seed_key(seed) -> tuple:
    """The seed tuple an op with op seed ``seed`` (or None) draws from; see the module doc."""
    global_seed = random.get_seed()
    if seed is not None:
        return (0 if global_seed is None else global_seed % 2**64, int(seed) % 2**64)
    if global_seed is None:
        return (np.random.SeedSequence().entropy,)
    with _counter_lock:
        # `set_seed` installs a new generator, even for the same seed: that restarts the count.
        if _counter_state[0] is not random.generator():
            _counter_state[0] = random.generator()
            _counter_state[1] = 0
        _counter_state[1] += 1
        return (global_seed % 2**64, _DERIVED_SEED_BASE + _counter_state[1])


def _uniforms(rng: np.random.Generator):
    while True:
        yield from rng.random(1024).tolist()


def shuffle_elements(it, buffer_size: int, rng: np.random.Generator):
    """Shuffles the elements of iterator ``it`` with a buffer of ``buffer_size``."""
    us = _uniforms(rng)
    buf = []
    for x in it:
        buf.append(x)
        if len(buf) == buffer_size:
            break
    if len(buf) == buffer_size:
        for x in it:
            j = int(next(us) * buffer_size)
            out = buf[j]
            buf[j] = x
            yield out
    while buf:
        j = int(next(us) * len(buf))
        out = buf[j]
        buf[j] = buf[-1]
        buf.pop()
        yield out


def shuffle_indices(chunks, buffer_size: int, rng: np.random.Generator):
    """`shuffle_elements` on a stream of int64 index chunks, vectorised per chunk."""
    chunks = iter(chunks)
    parts, have, leftover = [], 0, None
    for c in chunks:
        need = buffer_size - have
        if len(c) > need:
            parts.append(c[:need])
            leftover = c[need:]
            have = buffer_size
            break
        parts.append(c)
        have += len(c)
        if have == buffer_size:
            break
    buf = np.concatenate(parts) if parts else np.empty(0, np.int64)
    if have == buffer_size:
        rest = chunks if leftover is None else itertools.chain([leftover], chunks)
        for x in rest:
            j = (rng.random(len(x)) * buffer_size).astype(np.int64)
            yield steady_state(buf, x, j)
    n = len(buf)
    if n:
        # Emptying the buffer: emit slot j and move the last element into it, for lengths
        # n, n-1, ..., 1. That is a swap of slots j and L-1 followed by popping the end, so
        # swapping in place and reading the list backwards gives the same order.
        slots = (rng.random(n) * np.arange(n, 0, -1)).astype(np.int64).tolist()
        b = buf.tolist()
        last = n - 1
        for j in slots:
            b[j], b[last] = b[last], b[j]
            last -= 1
        b.reverse()
        yield np.asarray(b, dtype=np.int64)


def steady_state(buf: np.ndarray, x: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Runs ``for k: out[k] = buf[j[k]]; buf[j[k]] = x[k]`` without a Python loop.

    Step k emits what slot ``j[k]`` held just before it: the ``x`` of the previous step that
    wrote that slot in this chunk, or the buffer's value if none did. A stable sort by slot
    lines each slot's steps up in order, so "previous writer" is the previous sorted entry.
    ``buf`` is updated in place to each slot's last write.
    """
    m = len(j)
    # NumPy's stable sort is a radix sort (linear time) for keys of 16 bits or fewer.
    keys = j.astype(np.uint16) if len(buf) <= 1 << 16 else j
    order = np.argsort(keys, kind="stable")
    sj = j[order]
    same_as_prev = np.zeros(m, dtype=bool)
    same_as_prev[1:] = sj[1:] == sj[:-1]
    src = np.empty(m, dtype=buf.dtype)
    first = np.flatnonzero(~same_as_prev)
    src[first] = buf[sj[first]]
    again = np.flatnonzero(same_as_prev)
    src[again] = x[order[again - 1]]
    out = np.empty(m, dtype=buf.dtype)
    out[order] = src
    last = np.ones(m, dtype=bool)
    last[:-1] = ~same_as_prev[1:]
    buf[sj[last]] = x[order[last]]
    return out


class Shuffle(Dataset):
    """`Dataset.shuffle`."""

    def __init__(self, input: Dataset, buffer_size, seed, reshuffle_each_iteration):
        super().__init__(input)
        self._size = int_arg(buffer_size, "shuffle", "buffer_size")
        if self._size <= 0:
            raise InvalidArgumentError(
                "shuffle: buffer_size must be greater than zero. Received: "
                f"buffer_size={self._size}"
            )
        if seed is not None:
            seed = int_arg(seed, "shuffle", "seed")
        self._key = seed_key(seed)
        self._reshuffle = bool(reshuffle_each_iteration)
        self._epoch = 0
        self._lock = threading.Lock()

    def _rng(self, ctx) -> np.random.Generator:
        """The generator of a new pass (a peek reuses the next pass's, without using it up)."""
        epoch = 0
        if self._reshuffle:
            with self._lock:
                epoch = self._epoch
                if not ctx.peek:
                    self._epoch += 1
        return np.random.default_rng([*self._key, epoch])

    def _plan(self):
        p = self._inputs[0]._plan()
        if p is None:
            return None
        size = self._size

        def chunks(ctx):
            return shuffle_indices(p.chunks(ctx), size, self._rng(ctx))

        return IndexPlan(p.source, chunks, runs=False)

    def _iter(self, ctx):
        p = self._plan()
        if p is not None:
            return p.elements(ctx)
        return shuffle_elements(iter(self._inputs[0]._iter(ctx)), self._size, self._rng(ctx))

    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()

    def _spec(self, peek):
        return input_spec(self._inputs[0], peek)
