"""`ek.ragged.stack_dynamic_partitions` (follows `tf.ragged.stack_dynamic_partitions`)."""

from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import convert_to_tensor
from .ragged_ops import gather_rows, ragged_stack
from .ragged_tensor import RaggedTensor, convert_values

__all__ = ["stack_dynamic_partitions"]


def stack_dynamic_partitions(data, partitions, num_partitions, name=None) -> RaggedTensor:
    """Row ``i`` of the result stacks the slices ``data[j1...jN]`` whose
    ``partitions[j1...jN] == i``, in row-major order (follows
    `tf.ragged.stack_dynamic_partitions`; for an int ``num_partitions``,
    ``ek.ragged.stack(ek.dynamic_partition(data, partitions, num_partitions))``).

    Args:
        data: a Tensor or RaggedTensor.
        partitions: int32/int64 Tensor or RaggedTensor whose shape is a prefix of ``data``'s,
            values in ``[0, num_partitions)``.
        num_partitions: an integer scalar, the number of rows of the result.
        name: ignored (TensorFlow's op name).

    Returns:
        A RaggedTensor of ``data``'s dtype, shape
        ``[num_partitions, (D)] + data.shape[partitions.rank:]``.

    Raises:
        ValueError: ``partitions``'s shape is not a prefix of ``data``'s.
        InvalidArgumentError: a partition out of range, or data and partitions with different
            ragged row partitions.

    >>> ek.ragged.stack_dynamic_partitions(['a', 'b', 'c', 'd', 'e'], [3, 0, 2, 2, 3], 5)
    <RaggedTensor [[b'b'], [], [b'c', b'd'], [b'a', b'e'], []]>
    """
    op = "stack_dynamic_partitions"
    data = convert_values(data, op)
    partitions = convert_values(partitions, op)
    if not partitions.dtype.is_integer:
        raise TypeError(f"{op}: partitions must be int32 or int64, got {partitions.dtype.name}.")
    n = int(convert_to_tensor(num_partitions).numpy())
    rank = partitions.ndim
    if not data.shape[:rank].is_compatible_with(partitions.shape):
        raise ValueError(
            f"{op}: partitions shape {partitions.shape} must be a prefix of data shape "
            f"{data.shape}."
        )
    # Flatten the leading ``rank`` dims of both, checking the ragged partitions agree.
    while rank > 1:
        if not isinstance(data, RaggedTensor):
            data = RaggedTensor.from_tensor(data)
        if not isinstance(partitions, RaggedTensor):
            partitions = RaggedTensor.from_tensor(partitions)
        if not np.array_equal(
            np.asarray(data.row_splits._value), np.asarray(partitions.row_splits._value)
        ):
            raise InvalidArgumentError(
                None, op, "data and partitions have incompatible ragged shapes"
            )
        data, partitions, rank = data.values, partitions.values, rank - 1
    p = np.asarray(partitions._value).astype(np.int64).reshape(-1)
    if p.size and (p.min() < 0 or p.max() >= n):
        bad = "non-negative" if p.min() < 0 else f"less than num_partitions ({n})"
        raise InvalidArgumentError(None, op, f"partitions must be {bad}; got {p.tolist()}.")
    if rank == 0:  # the whole of data in one row
        from ..ops.array_ops import expand_dims

        values = ragged_stack([data]) if isinstance(data, RaggedTensor) else expand_dims(data, 0)
        return RaggedTensor.from_value_rowids(values, p[:1], nrows=n, validate=False)
    order = np.argsort(p, kind="stable")
    if isinstance(data, RaggedTensor):
        values = gather_rows(data, order)
    else:
        from ..ops.indexing import gather

        values = gather(data, order.astype(np.int64))
    return RaggedTensor.from_row_lengths(values, np.bincount(p, minlength=n), validate=False)
