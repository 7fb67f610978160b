"""More ops of TensorFlow's ragged dispatch list on `RaggedTensor`s (``ragged_ops.py`` has
the core ones)."""

from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import make
from .ragged_ops import (
    check_same_splits,
    gather_rows,
    ragged_row,
)
from .ragged_tensor import RaggedTensor, convert_values, row_ids_of_splits

__all__ = [
    "add_n",
    "boolean_mask",
    "expand_dims",
    "ragged_stack",
    "unstack",
    "where",
]


# -- more ops of TensorFlow's ragged dispatch list ----------------------------------------------


def expand_dims(rt: RaggedTensor, axis) -> RaggedTensor:
    """`ek.expand_dims` of a RaggedTensor (follows TensorFlow's ragged expand_dims): a
    uniform dimension of size 1 at ``axis`` in ``[-rank - 1, rank]``."""
    rank = rt.ndim
    a = int(axis)
    if not -rank - 1 <= a <= rank:
        raise InvalidArgumentError(
            None,
            "expand_dims",
            f"expand_dims: axis {axis} is out of range for a RaggedTensor of rank {rank}.",
        )
    return _expand(rt, a + rank + 1 if a < 0 else a)


def _expand(x, a: int):
    if not isinstance(x, RaggedTensor):
        from ..ops.array_ops import expand_dims as dense_expand_dims

        return dense_expand_dims(x, a)
    if a == 0:
        n = x.nrows_int()
        return RaggedTensor.from_uniform_row_length(x, n, nrows=1, validate=False)
    if a == 1:
        return RaggedTensor.from_uniform_row_length(x, 1, validate=False)
    return x.with_values(_expand(x.values, a - 1))


def unstack(rt: RaggedTensor, num=None, axis=0) -> list:
    """`ek.unstack` of a RaggedTensor along axis 0: its rows."""
    if int(axis) != 0:
        raise NotImplementedError(f"unstack: a RaggedTensor is unstacked on axis 0, got {axis}.")
    n = rt.nrows_int()
    if num is not None and int(num) != n:
        raise InvalidArgumentError(
            None, "unstack", f"unstack: num={num}, but the RaggedTensor has {n} rows."
        )
    return [ragged_row(rt, i) for i in range(n)]


def _flat_of(x, rt: RaggedTensor, op: str):
    """``x``'s flat values if it is a RaggedTensor partitioned as ``rt``, else ``x`` (a
    scalar or broadcastable dense value)."""
    if isinstance(x, RaggedTensor):
        check_same_splits(rt, x, op)
        return x.flat_values
    return x


def where(condition, x=None, y=None):
    """`ek.where` with RaggedTensors (follows TensorFlow's ragged where): with ``x`` and
    ``y``, elementwise on the flat values (``x``, ``y`` ragged with ``condition``'s row
    partition, or scalars); with ``condition`` alone, the coordinates of its true values."""
    from ..ops.elementwise import where as dense_where

    op = "where"
    if not isinstance(condition, RaggedTensor):
        raise TypeError(
            f"{op}: with RaggedTensor x or y, condition must be a RaggedTensor of the same row "
            f"partition, got {condition!r:.80}."
        )
    flat = condition.flat_values
    if x is None and y is None:
        if flat._value.ndim != 1:
            raise NotImplementedError(f"{op}: coordinates of a condition with inner dimensions.")
        keep = np.asarray(flat._value).astype(bool)
        return make(condition._value_indices()[keep], flat._device)
    if x is None or y is None:
        raise ValueError(f"{op}: x and y must both be given, or neither.")
    out = dense_where(flat, _flat_of(x, condition, op), _flat_of(y, condition, op))
    return condition.with_flat_values(out)


def boolean_mask(data, mask, name=None):
    """The values of ``data`` where ``mask`` is true, keeping the mask's dimensions (follows
    `tf.ragged.boolean_mask`): a 1-D mask keeps rows; a 2-D mask (dense, or ragged with
    ``data``'s row partition) keeps values within each row, so rows may shrink.

    >>> T, F = True, False
    >>> ek.ragged.boolean_mask([[1, 2, 3], [4, 5, 6], [7, 8, 9]],
    ...                        [[T, F, T], [F, F, F], [T, F, F]]).to_list()
    [[1, 3], [], [7]]
    >>> ek.ragged.boolean_mask(ek.ragged.constant([[1, 2, 3], [4], [5, 6]]),
    ...                        ek.ragged.constant([[F, F, T], [F], [T, T]])).to_list()
    [[3], [], [5, 6]]
    >>> ek.ragged.boolean_mask(ek.ragged.constant([[1, 2, 3], [4], [5, 6]]),
    ...                        [True, False, True]).to_list()
    [[1, 2, 3], [5, 6]]

    Raises:
        ValueError: a mask that is not a prefix of ``data``'s shape (its rows or values).
        TypeError: a mask that is not bool.
    """
    from ..ops.indexing import boolean_mask as dense_boolean_mask

    op = "boolean_mask"
    data = convert_values(data, op)
    mask = convert_values(mask, op)
    mask_flat = mask.flat_values if isinstance(mask, RaggedTensor) else mask
    if mask_flat._value.dtype != np.bool_:
        raise TypeError(f"{op}: mask must be bool, got {mask_flat.dtype.name}.")
    mask_rank = mask.ndim if isinstance(mask, RaggedTensor) else mask_flat._value.ndim
    if mask_rank == 0:
        raise ValueError(f"{op}: mask cannot be scalar.")
    if mask_rank == 1:
        keep = np.nonzero(np.asarray(mask_flat._value))[0].astype(np.int64)
        n = data.nrows_int() if isinstance(data, RaggedTensor) else data._value.shape[0]
        if mask_flat._value.shape[0] != n:
            raise ValueError(f"{op}: a mask of {mask_flat._value.shape[0]} rows for {n} rows.")
        if isinstance(data, RaggedTensor):
            return gather_rows(data, keep)
        return dense_boolean_mask(data, mask_flat)
    if mask_rank != 2:
        raise NotImplementedError(f"{op}: masks of rank 1 or 2 are supported, got {mask_rank}.")
    if not isinstance(data, RaggedTensor):
        if data._value.ndim < 2:
            raise ValueError(f"{op}: a 2-D mask needs data of rank >= 2.")
        data = RaggedTensor.from_tensor(data)
    if not isinstance(mask, RaggedTensor):
        mask = RaggedTensor.from_tensor(mask)
    if data.ragged_rank != 1 or mask.ragged_rank != 1:
        raise NotImplementedError(f"{op}: 2-D masks of RaggedTensors of ragged_rank 1 only.")
    if not np.array_equal(np.asarray(data.row_splits._value), np.asarray(mask.row_splits._value)):
        raise ValueError(f"{op}: mask's row lengths must equal data's.")
    kept = np.asarray(mask.values._value)
    values = dense_boolean_mask(data.values, mask.values)
    s = np.asarray(data.row_splits._value)
    lengths = np.bincount(row_ids_of_splits(s)[kept.astype(bool)], minlength=len(s) - 1)
    return RaggedTensor.from_row_lengths(values, lengths.astype(np.int64), validate=False)


def add_n(inputs: list) -> RaggedTensor:
    """`ek.add_n` of RaggedTensors with one row partition."""
    from ..ops.elementwise import add_n as dense_add_n

    first = next(x for x in inputs if isinstance(x, RaggedTensor))
    return first.with_flat_values(dense_add_n([_flat_of(x, first, "add_n") for x in inputs]))


def ragged_stack(values, axis=0, name=None):
    """Stacks Tensors and RaggedTensors of one rank and dtype whose dimensions may differ
    (follows `tf.ragged.stack`): the result has one more dimension, at ``axis``, in
    ``[-(rank + 1), rank]``.

    Dense values of rank 1 stacked on axis 0 become the rows of a RaggedTensor; dense values
    stacked on their last axis give `ek.stack`'s dense Tensor, as TensorFlow's; otherwise the
    dense values are converted to RaggedTensors (ragged rank 1) first. Differentiable.

    Raises:
        ValueError: ``values`` is empty, or the ranks differ.
        InvalidArgumentError: on axis >= 1, row lengths that differ where they must agree.

    >>> print(ek.ragged.stack([ek.constant([1, 2]), ek.constant([3])]))
    <RaggedTensor [[1, 2], [3]]>
    >>> print(ek.ragged.stack([ek.ragged.constant([[1, 2], [3]]), ek.ragged.constant([[4]])]))
    <RaggedTensor [[[1, 2], [3]], [[4]]]>
    """
    from ..ops.array_ops import concat as dense_concat
    from ..ops.array_ops import stack as dense_stack
    from .ragged_ops import stack

    if not isinstance(values, (list, tuple)):
        values = [values]
    if not values:
        raise ValueError("ragged.stack: rt_inputs may not be empty.")
    values = [
        v if isinstance(v, RaggedTensor) else convert_values(v, "ragged.stack") for v in values
    ]
    ranks = [v.ndim for v in values]
    if len(set(ranks)) != 1:
        raise ValueError(f"ragged.stack: all values must have the same rank, got ranks {ranks}.")
    rank = ranks[0]
    a = int(axis)
    if not -rank - 1 <= a <= rank:
        raise ValueError(f"ragged.stack: axis {axis} is out of range for values of rank {rank}.")
    a = a + rank + 1 if a < 0 else a
    dense = not any(isinstance(v, RaggedTensor) for v in values)
    if dense and rank == 1 and a == 0:
        return RaggedTensor.from_row_lengths(
            dense_concat(values, 0), [v._value.shape[0] for v in values], validate=False
        )
    if dense and a >= rank - 1:
        return dense_stack(values, axis=a)
    return stack(values, a)
