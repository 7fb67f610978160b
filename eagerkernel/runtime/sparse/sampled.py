"""`ek.sparse.sampled_addmm` (follows `tf.sparse.sampled_addmm`): a matrix product evaluated
only where a sparsity pattern has entries, composed of differentiable ops as TensorFlow's is."""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.tensor import convert_to_tensor
from ..ops.array_ops import concat
from ..ops.indexing import gather_nd
from ..ops.linalg import matrix_transpose
from ..ops.reduction import reduce_sum

__all__ = ["sampled_addmm"]


def sampled_addmm(
    indices, values, dense_shape, mat1, mat2, beta=1.0, alpha=1.0, output_type=dtypes.float32
):
    """``alpha * (mat1 @ mat2) * spy(indices) + beta * values``, as the components of a
    SparseTensor (follows `tf.sparse.sampled_addmm`).

    Args:
        indices: int tensor ``[..., nnz, 2]``: the (row, column) of each sampled entry, per
            batch (the leading dimensions are ``mat1``'s batch dimensions).
        values: ``[..., nnz]``, added (times ``beta``) to the sampled products.
        dense_shape: ``[2]``: the product's ``[rows, cols]``.
        mat1: ``[..., M, K]``; mat2: ``[..., K, N]`` (same batch dimensions).
        beta, alpha: the scale factors (default 1.0).
        output_type: the dtype of ``values``, ``mat1`` and ``mat2`` (default float32;
            bfloat16, float16, float32 or float64).

    Returns:
        ``(indices, values, dense_shape)``: ``values`` of ``output_type``, shape
        ``[..., nnz]``; ``dense_shape`` int32.

    Raises:
        ValueError: ``dense_shape`` other than ``[M, N]``.

    >>> out = sampled_addmm([[0, 0], [1, 1]], [0.5, 0.3], [2, 2],
    ...                     ek.reshape(ek.range(1.0, 7.0), [2, 3]),
    ...                     ek.reshape(ek.range(7.0, 13.0), [3, 2]), alpha=0.75, beta=0.25)
    >>> out[1].numpy()
    array([ 43.625, 115.575], dtype=float32)
    """
    indices = convert_to_tensor(indices)
    values = convert_to_tensor(values, dtype=output_type)
    dense_shape = convert_to_tensor(dense_shape, dtype=dtypes.int32)
    mat1 = convert_to_tensor(mat1, dtype=output_type)
    mat2 = convert_to_tensor(mat2, dtype=output_type)
    for arg, t in (("mat1", mat1), ("mat2", mat2), ("indices", indices)):
        if t.shape.rank is not None and t.shape.rank < 2:
            raise ValueError(
                f"sampled_addmm: {arg} must have rank > 1. Received: {arg} of shape {t.shape}."
            )
    output_shape = np.array([mat1.shape[-2], mat2.shape[-1]], np.int32)
    if dense_shape.shape != output_shape.shape or not np.array_equal(
        dense_shape.numpy(), output_shape
    ):
        raise ValueError(
            f"Dense shape: {dense_shape.numpy()} does not match output shape: {output_shape}"
        )
    batch_dims = mat1.shape.rank - 2
    row_indices = indices[..., :-1]
    col_indices = concat([indices[..., :-2], indices[..., -1:]], axis=-1)
    rows = gather_nd(mat1, row_indices, batch_dims=batch_dims)
    cols = gather_nd(matrix_transpose(mat2), col_indices, batch_dims=batch_dims)
    dot = reduce_sum(rows * cols, axis=-1)
    return indices, dot * alpha + values * beta, dense_shape
