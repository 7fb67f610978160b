"""The fast path: pipelines over in-memory arrays, planned on indices.

``from_tensor_slices(arrays) -> [shuffle | take | skip | repeat]... -> batch`` moves no
element through Python (nor does the same chain from `range`, or from a filled `cache`). Each
stage that can works on a stream of *index chunks* (int64 arrays of positions into the source
arrays): the source yields ``arange`` chunks, `shuffle` runs tf.data's buffer algorithm on
indices (`shuffle.shuffle_indices`), `take`/`skip` cut the stream, `repeat` chains it, and
`batch` gathers each batch with one fancy index per component.
Only where a stage needs whole elements (an element-wise iteration, a `map`) are indices turned
into element tensors, by slicing the arrays.

The plan gives exactly the order the element-wise path gives for the same seed (the shuffle
draws the same random numbers in the same order); `enabled` switches it off, for tests.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..core.tensor import make
from .structure import is_structure, packer

# Set enabled[0] = False to force the element-wise path everywhere (tests compare the two).
enabled = [True]

# A batch gathered from memory up to this size takes microseconds: `prefetch(AUTOTUNE)` makes it
# in the consumer's thread rather than hand it over from a background thread, which under the
# GIL costs more than it hides.
CHEAP_BATCH_BYTES = 4 << 20

# Index chunk length: large enough that NumPy's per-call overhead is amortised, small enough that
# the first batch is not delayed much.
CHUNK = 8192


class SliceSource:
    """Arrays sliced along their first axis: the elements of `from_tensor_slices`, `range` or
    a filled `cache`.

    Attributes:
        arrays: one array per flattened component, all of length ``n``.
        devices: each component's device.
        n: the number of elements.
    """

    __slots__ = ("_leaf", "_pack", "arrays", "devices", "n")

    def __init__(self, arrays, devices, structure, n: int):
        self.arrays = list(arrays)
        self.devices = list(devices)
        self._pack = packer(structure)
        self._leaf = not is_structure(structure)
        self.n = n

    def elements(self, indices):
        """Iterates the elements at ``indices`` (an int64 array)."""
        arrays, devices, pack = self.arrays, self.devices, self._pack
        if self._leaf:
            a, d = arrays[0], devices[0]
            if a.dtype.kind == "O":  # strings: `a[i, ...]` keeps an element an array
                for i in indices.tolist():
                    yield make(a[i, ...], d)
                return
            for i in indices.tolist():
                yield make(a[i], d)
        elif any(a.dtype.kind == "O" for a in arrays):
            pairs = list(zip(arrays, devices))
            for i in indices.tolist():
                yield pack([make(a[i, ...], d) for a, d in pairs])
        else:
            pairs = list(zip(arrays, devices))
            for i in indices.tolist():
                yield pack([make(a[i], d) for a, d in pairs])

    def gather(self, indices, start: int | None = None):
        """The batch at ``indices``: one fancy index per component (a slice when the indices
        are the run ``start, start + 1, ...``, given as ``start``)."""
        out = []
        for a, d in zip(self.arrays, self.devices):
            if start is not None:
                v = a[start : start + len(indices)]
            elif d.xp is np:
                v = a.take(indices, axis=0)
            else:
                v = a[d.xp.asarray(indices)]
            out.append(make(v, d))
        return self._pack(out)


class IndexPlan:
    """A dataset's elements as a stream of index chunks into ``source``.

    ``chunks(ctx)`` starts one pass and yields non-empty int64 arrays. ``runs`` is True when
    every chunk is a run of consecutive indices (no shuffle), so batches inside one chunk can
    be slices rather than gathers.
    """

    __slots__ = ("chunks", "runs", "source")

    def __init__(self, source: SliceSource, chunks, runs: bool):
        self.source = source
        self.chunks = chunks
        self.runs = runs

    def elements(self, ctx):
        """Iterates the planned elements one at a time."""
        source = self.source
        for chunk in self.chunks(ctx):
            yield from source.elements(chunk)


def source_plan(source: SliceSource) -> IndexPlan:
    def chunks(ctx):
        for start in range(0, source.n, CHUNK):
            yield np.arange(start, min(start + CHUNK, source.n), dtype=np.int64)

    return IndexPlan(source, chunks, runs=True)


def take_plan(plan: IndexPlan, count: int) -> IndexPlan:
    def chunks(ctx):
        left = count
        if left == 0:
            return
        for chunk in plan.chunks(ctx):
            if len(chunk) >= left:
                yield chunk[:left]
                return
            left -= len(chunk)
            yield chunk

    return IndexPlan(plan.source, chunks, plan.runs)


def skip_plan(plan: IndexPlan, count: int) -> IndexPlan:
    def chunks(ctx):
        left = count
        for chunk in plan.chunks(ctx):
            if left >= len(chunk):
                left -= len(chunk)
                continue
            yield chunk[left:]
            left = 0

    return IndexPlan(plan.source, chunks, plan.runs)


def repeat_plan(plan: IndexPlan, count: int) -> IndexPlan:
    def chunks(ctx):
        epochs = itertools.count() if count < 0 else range(count)
        for _ in epochs:
            empty = True
            for chunk in plan.chunks(ctx):
                empty = False
                yield chunk
            if empty:  # repeating an empty dataset gives an empty dataset, not a hang
                return

    return IndexPlan(plan.source, chunks, plan.runs)


def batches(plan: IndexPlan, batch_size: int, drop_remainder: bool, ctx):
    """Iterates batches of ``batch_size`` planned elements, each gathered in one go."""
    source = plan.source
    runs = plan.runs
    pending = None
    for chunk in plan.chunks(ctx):
        if pending is not None:
            chunk = np.concatenate([pending, chunk])
        n_full = len(chunk) // batch_size
        for b in range(n_full):
            idx = chunk[b * batch_size : (b + 1) * batch_size]
            start = int(idx[0])
            # In a plan of runs, consecutive runs only ever restart lower (repeat), so a batch
            # spanning exactly batch_size - 1 is one run: slice it instead of gathering.
            contiguous = runs and int(idx[-1]) - start == batch_size - 1
            yield source.gather(idx, start if contiguous else None)
        rest = chunk[n_full * batch_size :]
        pending = rest if len(rest) else None
    if pending is not None and not drop_remainder:
        yield source.gather(pending)
