"""The datasets of `MoreMethods`: `CyclicBatch` (`rebatch` with sizes that take turns) and
`RandomSource` (`Dataset.random`); `ignore_errors`'s is `error_checks.IgnoreErrors`."""

from __future__ import annotations

import itertools

import numpy as np

from ..core import dtypes
from ..core.device import CPU
from ..core.tensor import make
from ..ops.creation import zeros
from ..philox import blocks
from .dataset import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from .sources import input_spec
from .structure import TensorSpec, flatten, map_structure
from .transforms import stack_elements

__all__ = ["CyclicBatch", "RandomSource"]


class CyclicBatch(Dataset):
    """`Dataset.rebatch`: the rows of ``input``'s batches in batches of ``sizes`` taking turns
    (0: an empty batch). Its cardinality is unknown, as TF's; its batch dimension is known
    when the sizes are one size and no partial batch can form (TF's rule): ``drop`` or every
    input batch of a known size that the size divides."""

    def __init__(self, input: Dataset, sizes: list, drop: bool):
        super().__init__(input.unbatch())
        self._batched = input
        self._sizes, self._drop = sizes, drop

    def _iter(self, ctx):
        if len(set(self._sizes)) == 1:
            return self._inputs[0].batch(self._sizes[0], self._drop)._iter(ctx)
        return self._cycle(ctx)

    def _cycle(self, ctx):
        it = self._inputs[0]._iter(ctx)
        for size in itertools.cycle(self._sizes):
            buf = list(itertools.islice(it, size))
            if len(buf) < size:  # the input is exhausted: a partial batch is the last, as in TF
                if buf and not self._drop:
                    yield stack_elements(buf, "rebatch")
                return
            yield stack_elements(buf, "rebatch") if buf else self._empty()

    def _empty(self):
        return map_structure(
            lambda s: zeros([0, *(d or 0 for d in s.shape.as_list())], s.dtype),  # TF: 0 if None
            self._inputs[0].element_spec,
        )

    def _cardinality(self) -> int:
        return UNKNOWN_CARDINALITY

    def _spec(self, peek):
        spec = input_spec(self._inputs[0].batch(2), peek)
        if spec is None or len(set(self._sizes)) != 1:
            return spec
        size = self._sizes[0]
        if not self._drop:
            known = {
                s.shape[0]
                for s in flatten(input_spec(self._batched, peek))
                if getattr(s, "shape", None) is not None and s.shape.rank
            } - {None}
            if len(known) != 1 or known.pop() % size:
                return spec  # a partial batch may form: the batch dimension stays None
        return map_structure(lambda s: _with_batch_dim(s, size), spec)


def _with_batch_dim(spec, size: int):
    if isinstance(spec, TensorSpec) and spec.shape.rank:
        return TensorSpec((size, *spec.shape.as_list()[1:]), spec.dtype)
    if type(spec).__name__ == "RaggedTensorSpec" and spec.shape.rank:
        return type(spec)((size, *spec.shape.as_list()[1:]), spec.dtype, spec.ragged_rank)
    return spec


class RandomSource(Dataset):
    """`Dataset.random`: Philox-4x32-10's 32-bit outputs, in order, as int64 scalars; the
    generator is TensorFlow's ``PhiloxRandom(seed, seed2)`` (key ``seed``, the counter's high
    64 bits ``seed2``)."""

    _BLOCKS = 256  # Philox blocks drawn at a time (4 outputs each)

    def __init__(self, seeds: tuple, rerandomize: bool):
        super().__init__()
        self._seeds, self._rerandomize, self._epoch = seeds, rerandomize, 0

    def _iter(self, ctx):
        key, counter = self._seeds[0], self._seeds[1] << 64
        if self._rerandomize and not ctx.peek:  # a new key per iteration
            key ^= (self._epoch * 0x9E3779B97F4A7C15) & ((1 << 64) - 1)
            self._epoch += 1
        while True:
            values = blocks(key, counter, self._BLOCKS).reshape(-1).astype(np.int64)
            counter += self._BLOCKS
            for v in values:
                yield make(np.int64(v), CPU)

    def _cardinality(self) -> int:
        return INFINITE_CARDINALITY

    def _spec(self, peek):
        return TensorSpec([], dtypes.int64)
