"""RaggedTensor methods across several dimensions: ``row_lengths(axis)``,
``nested_value_rowids``, ``merge_dims`` and ``from_tensor`` with nested lengths (follow
`tf.RaggedTensor`'s)."""

from __future__ import annotations

import numpy as np

from ..core.tensor import make
from .ragged_tensor import RaggedTensor, convert_values

__all__ = [
    "from_tensor_nested",
    "merge_dims",
    "nested_value_rowids",
    "positive_axis",
    "row_lengths",
]


def positive_axis(axis, rank: int, name: str) -> int:
    """TF's ``getpositive_axis``: ``axis`` in ``[-rank, rank)`` as a non-negative int."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"{name} must be an int; got {type(axis).__name__}")
    if not -rank <= axis < rank:
        raise ValueError(f"{name}={axis} out of bounds: expected {-rank}<={name}<{rank}")
    return int(axis) + rank if axis < 0 else int(axis)


def row_lengths(rt: RaggedTensor, axis=1):
    """The lengths of the rows at ``axis`` (follows `tf.RaggedTensor.row_lengths`): ``axis`` 0
    gives ``nrows()``, 1 the int64 vector of row lengths, and ``axis`` >= 2 a RaggedTensor
    of ``rank - (rank - axis)`` dims (``axis - 1`` of them ragged) whose entries are the
    lengths of the rows at that axis.

    Raises:
        ValueError: ``axis`` out of ``[-rank, rank)``.
    """
    axis = positive_axis(axis, rt.ndim, "axis")
    if axis == 0:
        return rt.nrows()
    if axis == 1:
        splits = rt.row_splits
        return make(np.diff(np.asarray(splits._value)), splits._device)
    values = rt.values
    if isinstance(values, RaggedTensor):
        return rt.with_values(row_lengths(values, axis - 1))
    shape = values._value.shape
    lengths = np.full(shape[: axis - 1], shape[axis - 1], dtype=np.int64)
    return rt.with_values(make(lengths, values._device))


def nested_value_rowids(rt: RaggedTensor) -> tuple:
    """``(rt.value_rowids(), rt.values.value_rowids(), ...)``: the int64 row ids of each
    ragged dimension, outermost first (follows `tf.RaggedTensor.nested_value_rowids`)."""
    out = []
    while isinstance(rt, RaggedTensor):
        out.append(rt.value_rowids())
        rt = rt.values
    return tuple(out)


def merge_dims(value, outer_axis: int, inner_axis: int):
    """``value`` with dims ``outer_axis..inner_axis`` (non-negative, outer <= inner) merged
    into one; a Tensor when everything up to ``inner_axis`` merges into the rows (follows
    TensorFlow's ``ragged_tensor.merge_dims``)."""
    from ..ops.array_ops import reshape
    from ..ops.indexing import gather

    if outer_axis == inner_axis:
        return value
    while outer_axis == 0 and isinstance(value, RaggedTensor):
        value = value.values
        inner_axis -= 1
        if inner_axis == 0:
            return value
    if not isinstance(value, RaggedTensor):
        shape = list(value.shape)
        return reshape(value, [*shape[:outer_axis], -1, *shape[inner_axis + 1 :]])
    if outer_axis > 1:
        return value.with_values(merge_dims(value.values, outer_axis - 1, inner_axis - 1))
    values, splits = value.values, value.row_splits
    for axis in range(outer_axis, inner_axis):
        if isinstance(values, RaggedTensor):  # flatten one ragged dimension
            splits = gather(values.row_splits, splits)
            values = values.values
        else:  # flatten the remaining dense dimensions
            cut = inner_axis - axis + 1
            shape = list(values.shape)
            values = reshape(values, [-1, *shape[cut:]])
            splits = splits * int(np.prod(shape[1:cut], dtype=np.int64))
            break
    return RaggedTensor.from_row_splits(values, splits, validate=False)


def from_tensor_nested(tensor, lengths, ragged_rank: int) -> RaggedTensor:
    """`RaggedTensor.from_tensor` with ``lengths`` a list or tuple of row-length vectors, one
    per ragged dimension (outermost first): ``output[i][j]... = tensor[i][j]...`` within them.

    Raises:
        ValueError: ``ragged_rank`` other than 1 (the default) or ``len(lengths)``; a tensor
            of rank <= ``len(lengths)``.
    """
    from ..ops.indexing import boolean_mask

    op = "from_tensor"
    if ragged_rank not in (1, len(lengths)):
        raise ValueError(
            "If Argument `lengths` is a tuple of row_lengths, argument `ragged_rank` must be "
            f"len(lengths): {len(lengths)}. Received ragged_rank: {ragged_rank}."
        )
    t = convert_values(tensor, op)
    k = len(lengths)
    if t.ndim < k + 1:
        raise ValueError(
            f"{op}: tensor must have rank >= len(lengths) + 1 = {k + 1}, got shape {list(t.shape)}."
        )
    nested = [np.maximum(np.asarray(n, dtype=np.int64).reshape(-1), 0) for n in lengths]
    ones = np.ones(int(nested[-1].sum()), dtype=bool)
    mask = RaggedTensor.from_nested_row_lengths(ones, nested, validate=False)
    dense = mask.to_tensor(default_value=False, shape=list(t.shape[: k + 1]))
    values = boolean_mask(t, dense)
    return RaggedTensor.from_nested_row_lengths(values, nested, validate=False)
