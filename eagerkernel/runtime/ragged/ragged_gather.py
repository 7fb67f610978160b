"""Gathering inside the rows of a RaggedTensor (follows TensorFlow's ragged gather with
``axis=1``): with ``batch_dims=1`` row ``i`` takes the elements ``indices[i]`` of row ``i``;
with ``batch_dims=0`` every row takes the elements ``indices``."""

from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, make
from .ragged_tensor import RaggedTensor

__all__ = ["gather_in_rows"]


def gather_in_rows(params: RaggedTensor, indices, batch_dims: int, gather):
    """``ek.gather(params, indices, axis=1, batch_dims)`` for ``batch_dims`` 0 or 1, as row
    offsets into ``params.values`` (so differentiable with respect to its values).
    ``gather(values, flat_indices)`` gathers rows of the values (dense or ragged).

    Raises:
        InvalidArgumentError: an index outside its row, or ``indices`` whose rows do not
            match ``params``'s (``batch_dims=1``).
    """
    op = "gather"
    splits = np.asarray(params.row_splits._value, dtype=np.int64)
    n = len(splits) - 1
    ragged_idx = isinstance(indices, RaggedTensor)
    if ragged_idx:
        if batch_dims != 1 or indices.ragged_rank != 1:
            raise NotImplementedError(f"{op}: ragged indices in rows need batch_dims=1.")
        idx = np.asarray(indices.flat_values._value)
        rows = np.asarray(indices.value_rowids()._value, dtype=np.int64)
        if indices.nrows_int() != n:
            raise InvalidArgumentError(
                None, op, f"{op}: {indices.nrows_int()} rows of indices for {n} rows of params."
            )
    else:
        idx = np.asarray(indices._value if isinstance(indices, Tensor) else indices)
        if batch_dims == 0:
            idx = np.broadcast_to(idx, (n, *idx.shape))
        elif idx.ndim == 0 or idx.shape[0] != n:
            raise InvalidArgumentError(
                None, op, f"{op}: indices of shape {idx.shape} for {n} rows (batch_dims=1)."
            )
        rows = np.broadcast_to(np.arange(n).reshape((n,) + (1,) * (idx.ndim - 1)), idx.shape)
    if idx.size and idx.dtype.kind not in "iu":
        raise TypeError(f"{op}: indices must be an integer tensor, got {idx.dtype}.")
    idx = idx.astype(np.int64)
    lengths = np.diff(splits)[rows]
    if idx.size and ((idx < 0) | (idx >= lengths)).any():
        raise InvalidArgumentError(
            None, op, f"{op}: indices {idx.tolist()} out of range of their rows {lengths.tolist()}."
        )
    flat = make(np.ascontiguousarray(splits[rows] + idx), params.row_splits._device)
    out = gather(params.values, flat)
    return indices.with_flat_values(out) if ragged_idx else out
