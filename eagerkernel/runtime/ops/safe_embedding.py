"""`ek.nn.safe_embedding_lookup_sparse` (follows TensorFlow 2's
`tf.nn.safe_embedding_lookup_sparse`): `embedding_lookup_sparse` after pruning invalid ids and
weights and filling empty rows, built as TensorFlow builds it, of `ek.sparse.reshape`,
`ek.sparse.retain`, `ek.sparse.fill_empty_rows`, `embedding_lookup_sparse` and `where`.

The sparse structure (which entries are kept) is worked out by the sparse ops, which build new
SparseTensors; a graph function (`ek.function`) calling this runs its Python code on every
call (`Recorder.on_composite`), so each call prunes its own ids.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ._core import dtype_unsupported, tensor
from .array_ops import concat, reshape
from .creation import zeros_like
from .elementwise import greater, greater_equal, where
from .normalization import embedding_lookup_sparse

__all__ = ["safe_embedding_lookup_sparse"]

_OP = "safe_embedding_lookup_sparse"


def _as_sparse(value, arg: str, optional: bool):
    """A SparseTensor, a rank-2 RaggedTensor as one, or None (when ``optional``)."""
    from ..ragged.ragged_tensor import RaggedTensor
    from ..sparse.sparse_tensor import SparseTensor

    if value is None and optional:
        return None
    if isinstance(value, RaggedTensor):
        if value.shape.rank != 2:
            raise ValueError(
                f"{_OP}: a RaggedTensor {arg} must have rank 2, got shape {value.shape}."
            )
        return value.to_sparse()
    if not isinstance(value, SparseTensor):
        wanted = (
            "a SparseTensor, a rank-2 RaggedTensor or None"
            if optional
            else "a SparseTensor or a rank-2 RaggedTensor"
        )
        raise TypeError(f"{_OP}: {arg} must be {wanted}, got {type(value).__name__}.")
    return value


def _shards(embedding_weights, dtype) -> list:
    """The embedding shards as Tensors of one dtype (``dtype``, the weights', when given)."""
    if embedding_weights is None or (
        isinstance(embedding_weights, (list, tuple)) and not len(embedding_weights)
    ):
        raise ValueError(f"{_OP}: Missing embedding_weights {embedding_weights!r}.")
    items = list(embedding_weights) if isinstance(embedding_weights, (list, tuple)) else None
    shards = [tensor(w, _OP, dtype) for w in (items or [embedding_weights])]
    for w in shards:
        if dtype is not None and w._value.dtype != dtype:
            raise ValueError(
                f"{_OP}: embedding_weights must have the dtype of sparse_weights "
                f"({np.dtype(dtype).name}), got {w.dtype.name}."
            )
        if w.ndim < 1 or w._value.dtype != shards[0]._value.dtype:
            raise ValueError(
                f"{_OP}: every shard of embedding_weights must have rank >= 1 and one dtype, "
                f"got shapes {[tuple(s._value.shape) for s in shards]} and dtypes "
                f"{[s.dtype.name for s in shards]}."
            )
    return shards


def _div_partitioned(shards: list) -> Tensor:
    """The shards as one table: TensorFlow's "div" partition gives shard ``p`` the next
    ``total // P`` ids, one more for the first ``total % P`` shards, so concatenating them is
    that table when their sizes follow the rule."""
    if len(shards) == 1:
        return shards[0]
    sizes = [int(s._value.shape[0]) for s in shards]
    total, p = sum(sizes), len(shards)
    expected = [total // p + (i < total % p) for i in range(p)]
    if sizes != expected:
        raise InvalidArgumentError(
            None,
            _OP,
            f"{_OP}: the shards of embedding_weights must follow the 'div' partition of their "
            f"{total} ids into {p} shards (sizes {expected}), got sizes {sizes}.",
        )
    trailing = {tuple(s._value.shape[1:]) for s in shards}
    if len(trailing) != 1:
        raise ValueError(
            f"{_OP}: the shards of embedding_weights must agree beyond their first "
            f"dimension, got shapes {[tuple(s._value.shape) for s in shards]}."
        )
    return concat(shards, axis=0)


def safe_embedding_lookup_sparse(
    embedding_weights,
    sparse_ids,
    sparse_weights=None,
    combiner="mean",
    default_id=None,
    max_norm=None,
    name=None,
    allow_fast_lookup=False,
) -> Tensor:
    """Combined embeddings of sparse ids, with invalid ids pruned and empty rows filled
    (follows `tf.nn.safe_embedding_lookup_sparse`, TensorFlow 2's signature).

    ``sparse_ids`` of shape ``[d_0, ..., d_n]`` is read as ``d_0 * ... * d_{n-1}`` rows of
    ``d_n`` ids. Ids below 0 are dropped with their weights; with ``combiner`` ``"mean"`` or
    ``"sqrtn"``, so are entries whose weight is not positive. Each row's remaining
    embeddings are combined as `embedding_lookup_sparse` combines them (``max_norm`` clips
    each one first); a row left empty gets the embedding of ``default_id``, or zeros when it
    is None.

    Args:
        embedding_weights: the table ``[vocab, p_1, ..., p_m]``, or a list of shards with
            the same trailing shape split by TensorFlow's "div" strategy (shard ``i`` holds
            the next ``vocab // P`` ids, one more for the first ``vocab % P`` shards).
            Floating; integers only with ``combiner="sum"``.
        sparse_ids: a `SparseTensor` of int32 or int64 ids, shape ``[d_0, ..., d_n]``
            (rank >= 1), or a rank-2 `RaggedTensor`.
        sparse_weights: None (all weights 1) or a SparseTensor / RaggedTensor whose values,
            one per id (TensorFlow pairs them with ``sparse_ids``' indices), have the
            table's dtype.
        combiner: ``"mean"`` (default), ``"sqrtn"`` or ``"sum"``.
        default_id: an int id for the rows left empty, or None (zeros).
        max_norm: if not None, each embedding is scaled down to this L2 norm before combining.
        allow_fast_lookup: accepted for compatibility; the lookup is the same.

    Returns:
        ``[d_0, ..., d_{n-1}, p_1, ..., p_m]``, the table's dtype; differentiable in the
        table and the weights' values (0 for pruned entries).

    Raises:
        ValueError: ``embedding_weights`` None or empty, shards that disagree, weights of
            another dtype or count than the ids, an unknown ``combiner``, a RaggedTensor not
            of rank 2.
        TypeError: ``sparse_ids`` or ``sparse_weights`` of another type, a ``default_id``
            that is not an int.
        InvalidArgumentError: an id or ``default_id`` outside the table (from the gather),
            shards not of the "div" sizes, a rank-0 ``sparse_ids``; `UnsupportedDTypeError`
            (also a TypeError) for ids that are not int32 or int64, or an integer table with
            ``"mean"`` or ``"sqrtn"``.

    >>> params = ek.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> ids = ek.sparse.SparseTensor([[0, 0], [0, 1], [2, 0]], [1, -1, 2], [3, 2])
    >>> ek.nn.safe_embedding_lookup_sparse(params, ids).numpy()  # row 1 is empty
    array([[3., 4.],
           [0., 0.],
           [5., 6.]], dtype=float32)
    >>> ek.nn.safe_embedding_lookup_sparse(params, ids, default_id=0).numpy()[1]
    array([1., 2.], dtype=float32)
    """
    from ..sparse.sparse_more import fill_empty_rows, retain
    from ..sparse.sparse_more import reshape as sparse_reshape
    from ..sparse.sparse_tensor import SparseTensor

    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(
            f"{_OP}: combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner!r}."
        )
    if default_id is not None and (
        isinstance(default_id, bool) or not isinstance(default_id, numbers.Integral)
    ):
        raise TypeError(f"{_OP}: default_id must be an int or None, got {default_id!r}.")
    ids = _as_sparse(sparse_ids, "sparse_ids", optional=False)
    weights = _as_sparse(sparse_weights, "sparse_weights", optional=True)
    dtype = None if weights is None else weights.values._value.dtype
    params = _div_partitioned(_shards(embedding_weights, dtype))
    if params._value.dtype.kind != "f" and not (
        combiner == "sum" and params._value.dtype.kind in "iu"
    ):
        raise dtype_unsupported(
            _OP, params, "floating (integers only with combiner='sum')", "embedding_weights"
        )
    if ids.values._value.dtype not in (np.int32, np.int64):
        raise dtype_unsupported(_OP, ids.values, "int32 or int64", "sparse_ids")
    shape = [int(d) for d in np.asarray(ids.dense_shape.numpy())]
    if not shape:
        raise InvalidArgumentError(None, _OP, f"{_OP}: sparse_ids must have rank >= 1.")
    if weights is not None and weights.values.shape != ids.values.shape:
        raise ValueError(
            f"{_OP}: sparse_weights must have one value per id ({ids.values.shape[0]}), got "
            f"{weights.values.shape[0]}."
        )
    # Higher-rank ids: rows are every index but the last, in row-major order.
    ids = sparse_reshape(ids, [int(np.prod(shape[:-1])), shape[-1]])
    if weights is not None:
        weights = SparseTensor(ids.indices, weights.values, ids.dense_shape)
    valid = greater_equal(ids.values, 0)
    ids = retain(ids, valid)
    if weights is not None:
        weights = retain(weights, valid)
        if combiner != "sum":
            positive = greater(weights.values, 0)
            ids, weights = retain(ids, positive), retain(weights, positive)
    ids, empty = fill_empty_rows(ids, 0 if default_id is None else int(default_id))
    if weights is not None:
        weights, _ = fill_empty_rows(weights, 1)
    result = embedding_lookup_sparse(params, ids, weights, combiner=combiner, max_norm=max_norm)
    if default_id is None:
        empty = reshape(empty, [-1] + [1] * (result.ndim - 1))
        result = where(empty, zeros_like(result), result)
    return reshape(result, shape[:-1] + list(result.shape[1:]))
