"""`Dataset.ragged_batch`: batches whose components of rank >= 1 become RaggedTensors."""

from __future__ import annotations

from ..core.composite import CompositeTensor
from ..core.tensor import Tensor
from .dataset import Dataset
from .structure import flatten, pack
from .transforms import batched_cardinality, positive_arg, stack_elements

__all__ = ["RaggedBatch"]


class RaggedBatch(Dataset):
    """Batches of ``batch_size`` elements: scalar components are stacked into a vector, the
    others into a RaggedTensor whose rows are the elements (their first dimension ragged)."""

    def __init__(self, input: Dataset, batch_size, drop_remainder):
        super().__init__(input)
        self._size = positive_arg(batch_size, "ragged_batch", "batch_size")
        self._drop = bool(drop_remainder)

    def _batch(self, buf):
        from ..ragged.ragged_ops import stack_rows

        first = buf[0]
        flats = [flatten(e) for e in buf]
        dense = self._dense_components()
        ragged_ranks = self._ragged_ranks()
        out = []
        for i in range(len(flats[0])):
            parts = [f[i] for f in flats]
            if isinstance(parts[0], Tensor) and (parts[0]._value.ndim == 0 or i in dense):
                out.append(stack_elements(parts, "ragged_batch"))
            elif isinstance(parts[0], (Tensor, CompositeTensor)):
                if ragged_ranks.get(i, 0) > 0:
                    parts = [_as_ragged(p, ragged_ranks[i]) for p in parts]
                out.append(stack_rows(parts, "ragged_batch"))
            else:
                raise TypeError(f"ragged_batch: cannot batch component {parts[0]!r:.60}.")
        return pack(first, out) if isinstance(first, (tuple, dict)) else out[0]

    def _dense_components(self) -> set:
        """The flat indices of the components TF batches densely: TensorSpecs of fully defined
        shape (TF's ragged_batch makes only those with a None dimension ragged)."""
        spec = self._inputs[0]._static_spec()
        if spec is None:
            spec = self._inputs[0].element_spec
        return {i for i, s in enumerate(flatten(spec)) if _fully_defined(s)}

    def _ragged_ranks(self) -> dict:
        """``{flat index: ragged rank}`` of the dense components TF makes ragged before
        batching them: up to their last unknown dimension (TF's ``_normalize_spec``)."""
        spec = self._inputs[0]._static_spec()
        if spec is None:
            spec = self._inputs[0].element_spec
        return {i: _last_unknown(s) for i, s in enumerate(flatten(spec)) if _last_unknown(s)}

    def _iter(self, ctx):
        buf = []
        for x in self._inputs[0]._iter(ctx):
            buf.append(x)
            if len(buf) == self._size:
                yield self._batch(buf)
                buf = []
        if buf and not self._drop:
            yield self._batch(buf)

    def _spec(self, peek):
        from ..ragged.ragged_tensor import RaggedTensorSpec
        from .structure import TensorSpec, map_structure
        from .transforms import input_spec

        spec = input_spec(self._inputs[0], peek)
        if spec is None:
            return None
        batch = self._size if self._drop else None

        def leaf(s):
            if isinstance(s, RaggedTensorSpec):  # as TF's RaggedTensorSpec._batch: dims stay
                return RaggedTensorSpec([batch, *s.shape], s.dtype, s.ragged_rank + 1)
            if _fully_defined(s):
                return TensorSpec([batch, *s.shape.as_list()], s.dtype)
            return RaggedTensorSpec([batch, *s.shape], s.dtype, (_last_unknown(s) or 0) + 1)

        return map_structure(leaf, spec)

    def _cardinality(self) -> int:
        return batched_cardinality(self._inputs[0]._cardinality(), self._size, self._drop)


def _fully_defined(spec) -> bool:
    from .structure import TensorSpec

    if type(spec) is not TensorSpec or spec.shape.rank is None:
        return False
    return all(d is not None for d in spec.shape.as_list())


def _last_unknown(spec) -> int | None:
    """The last axis of a TensorSpec whose size is unknown (None if none or not a Tensor)."""
    from .structure import TensorSpec

    if type(spec) is not TensorSpec or not spec.shape.rank:
        return None
    axes = [i for i, d in enumerate(spec.shape.as_list()) if d is None]
    return axes[-1] if axes else None


def _as_ragged(value, ragged_rank: int):
    """A dense Tensor as a RaggedTensor of uniform rows with ``ragged_rank`` ragged dims."""
    import numpy as np

    from ..ops.array_ops import reshape
    from ..ragged.ragged_tensor import RaggedTensor

    dims = list(value.shape)
    out = reshape(value, [-1, *dims[ragged_rank + 1 :]])
    for k in range(ragged_rank, 0, -1):
        out = RaggedTensor.from_row_lengths(out, np.full(int(np.prod(dims[:k])), dims[k]))
    return out
