"""More of `ek.sparse` (follows `tf.sparse`): structure (``reshape``, ``retain``,
``fill_empty_rows``, ``split``, ``expand_dims``, ``reset_shape``, ``eye``), elementwise
``maximum`` / ``minimum`` / ``softmax``, the sparse segment reductions (``segment_sum``,
``segment_mean``, ``segment_sqrt_n``), ``bincount``, ``to_indicator`` and ``mask`` (of an
`ek.IndexedSlices`).

Indices are worked out with NumPy; values move through gather / scatter / segment ops, so
gradients reach a SparseTensor's values (and ``data`` or ``weights``) wherever TensorFlow
has them.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.indexed_slices import IndexedSlices
from ..core.tensor import Tensor, convert_to_tensor, to_tensor
from .sparse_tensor import SparseTensor

__all__ = [
    "bincount",
    "expand_dims",
    "eye",
    "fill_empty_rows",
    "mask",
    "maximum",
    "minimum",
    "reset_shape",
    "reshape",
    "retain",
    "segment_mean",
    "segment_sqrt_n",
    "segment_sum",
    "softmax",
    "split",
    "to_indicator",
]


def _sparse(x, op: str, arg: str = "sp_input") -> SparseTensor:
    if not isinstance(x, SparseTensor):
        raise TypeError(f"{op}: {arg} must be a SparseTensor. Received: {type(x).__name__}")
    return x


def _np(x) -> np.ndarray:
    return np.asarray(x.numpy() if isinstance(x, Tensor) else x)


def _parts(st: SparseTensor) -> tuple[np.ndarray, np.ndarray]:
    return _np(st.indices), _np(st.dense_shape)


def _invalid(op: str, message: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, op, f"{op}: {message}")


def _int_vector(x, op: str, arg: str) -> np.ndarray:
    v = _np(x)
    if v.size == 0:
        v = v.astype(np.int64)
    if v.dtype.kind not in "iu":
        raise TypeError(f"{op}: {arg} must be integers, got dtype {v.dtype}.")
    return v.astype(np.int64).reshape(-1)


def _keys(idx: np.ndarray, shape) -> np.ndarray:
    """Row-major positions of the index rows (all 0 for a rank-0 shape)."""
    if idx.shape[1] == 0:
        return np.zeros(len(idx), np.int64)
    return np.ravel_multi_index(idx.T, tuple(int(s) for s in shape)).astype(np.int64)


def _unkeys(keys: np.ndarray, shape) -> np.ndarray:
    shape = tuple(int(s) for s in shape)
    if not shape:
        return np.zeros((len(keys), 0), np.int64)
    return np.stack(np.unravel_index(keys, shape), axis=1).astype(np.int64)


def _gather(values: Tensor, positions: np.ndarray) -> Tensor:
    from ..ops.indexing import gather

    return gather(values, positions.astype(np.int64))


# -- structure ----------------------------------------------------------------------------------


def reshape(sp_input, shape, name=None) -> SparseTensor:
    """The same entries in a tensor of another shape, row-major order kept (follows
    `tf.sparse.reshape`). One dimension of ``shape`` may be -1 (inferred).

    Raises:
        InvalidArgumentError: ``shape`` has another number of elements, or more than one -1.

    >>> st = ek.sparse.SparseTensor([[0, 1], [1, 2]], [1.0, 2.0], [2, 3])
    >>> ek.sparse.reshape(st, [3, -1]).indices.numpy()
    array([[0, 1],
           [2, 1]])
    """
    op = "sparse.reshape"
    st = _sparse(sp_input, op)
    idx, old = _parts(st)
    new = _int_vector(shape, op, "shape")
    size = int(np.prod(old))
    unknown = np.nonzero(new == -1)[0]
    if len(unknown) > 1 or np.any(new < -1):
        raise _invalid(op, f"only one output dimension may be -1, got shape {new.tolist()}.")
    known = int(np.prod(new[new != -1]))
    if len(unknown):
        if known == 0 or size % known:
            raise _invalid(
                op,
                f"Input to reshape is a SparseTensor with {size} dense values, but the "
                f"requested shape {new.tolist()} cannot hold them.",
            )
        new[unknown[0]] = size // known
    elif known != size:
        raise _invalid(
            op,
            f"Input to reshape is a SparseTensor with {size} dense values, but the requested "
            f"shape requires {known}. Input shape: {old.tolist()}, requested: {new.tolist()}.",
        )
    return SparseTensor(_unkeys(_keys(idx, old), new), st.values, new)


def retain(sp_input, to_retain) -> SparseTensor:
    """The entries where the boolean vector ``to_retain`` (one per entry) is True (follows
    `tf.sparse.retain`).

    Raises:
        InvalidArgumentError: ``to_retain`` of another length. TypeError: not bool.
    """
    op = "sparse.retain"
    st = _sparse(sp_input, op)
    idx, shape = _parts(st)
    keep = _np(to_retain)
    if keep.dtype != np.bool_:
        raise TypeError(f"{op}: to_retain must be bool, got dtype {keep.dtype}.")
    if keep.shape != (len(idx),):
        raise _invalid(
            op, f"to_retain must have shape [{len(idx)}] (one per entry), got {list(keep.shape)}."
        )
    pos = np.nonzero(keep)[0]
    return SparseTensor(idx[pos], _gather(st.values, pos), shape)


def fill_empty_rows(sp_input, default_value, name=None) -> tuple[SparseTensor, Tensor]:
    """Adds ``default_value`` at ``[row, 0, ..., 0]`` of every row without an entry (follows
    `tf.sparse.fill_empty_rows`).

    Returns:
        ``(output, empty_row_indicator)``: the SparseTensor, its entries ordered by row (the
        input's order kept within a row), and a bool vector ``[dense_shape[0]]``, True for the
        rows that were empty.

    >>> st = ek.sparse.SparseTensor([[1, 0], [3, 2]], [5, 7], [4, 3])
    >>> out, empty = ek.sparse.fill_empty_rows(st, -1)
    >>> out.indices.numpy().tolist(), out.values.numpy().tolist(), empty.numpy().tolist()
    ([[0, 0], [1, 0], [2, 0], [3, 2]], [-1, 5, -1, 7], [True, False, True, False])
    """
    from ..ops.array_ops import concat
    from ..ops.creation import fill

    op = "sparse.fill_empty_rows"
    st = _sparse(sp_input, op)
    idx, shape = _parts(st)
    if not len(shape):
        raise _invalid(op, "sp_input must have rank >= 1.")
    default = to_tensor(default_value, st.values._value.dtype, op)
    if default._value.dtype != st.values._value.dtype or default._value.ndim:
        raise TypeError(
            f"{op}: default_value must be a scalar of the values' dtype {st.dtype.name}, got "
            f"{default.dtype.name} of shape {tuple(default._value.shape)}."
        )
    rows = idx[:, 0] if len(idx) else np.zeros(0, np.int64)
    if np.any((rows < 0) | (rows >= shape[0])):
        raise _invalid(op, f"an index's row is out of range [0, {int(shape[0])}).")
    empty = np.ones(int(shape[0]), bool)
    empty[rows] = False
    new_rows = np.nonzero(empty)[0]
    added = np.zeros((len(new_rows), len(shape)), np.int64)
    added[:, 0] = new_rows
    all_idx = np.concatenate([idx.reshape(-1, len(shape)), added])
    values = concat([st.values, fill([len(new_rows)], default)], axis=0)
    order = np.argsort(all_idx[:, 0], kind="stable")
    out = SparseTensor(all_idx[order], _gather(values, order), shape)
    return out, convert_to_tensor(empty)


def split(sp_input=None, num_split=None, axis=None, name=None) -> list:
    """``num_split`` SparseTensors cut along ``axis`` (follows `tf.sparse.split`): the first
    ``size % num_split`` pieces are one longer than the others; indices are re-based.

    Raises:
        ValueError: a missing argument. InvalidArgumentError: ``axis`` out of range, or
            ``num_split`` not in ``[1, size]``.

    >>> st = ek.sparse.SparseTensor([[0, 0], [0, 4], [1, 2]], [1, 2, 3], [2, 5])
    >>> [p.indices.numpy().tolist() for p in ek.sparse.split(st, 2, axis=1)]
    [[[0, 0], [1, 2]], [[0, 1]]]
    """
    op = "sparse.split"
    if sp_input is None or num_split is None or axis is None:
        raise ValueError(f"{op}: sp_input, num_split and axis are required.")
    st = _sparse(sp_input, op)
    idx, shape = _parts(st)
    rank = len(shape)
    a = int(_np(axis))
    if not -rank <= a < rank:
        raise _invalid(op, f"axis {a} is out of range for rank {rank}.")
    a %= rank
    n, size = int(_np(num_split)), int(shape[a])
    if not 1 <= n <= max(size, 1):
        raise _invalid(op, f"num_split must be in [1, {size}] (the size of axis {a}), got {n}.")
    base, extra = divmod(size, n)
    pieces, start = [], 0
    for i in range(n):
        length = base + (1 if i < extra else 0)
        pos = np.nonzero((idx[:, a] >= start) & (idx[:, a] < start + length))[0]
        piece_idx = idx[pos].copy()
        piece_idx[:, a] -= start
        piece_shape = shape.copy()
        piece_shape[a] = length
        pieces.append(SparseTensor(piece_idx, _gather(st.values, pos), piece_shape))
        start += length
    return pieces


def expand_dims(sp_input, axis=None, name=None) -> SparseTensor:
    """A dimension of size 1 inserted at ``axis`` (in ``[-rank - 1, rank]``; None, the
    default, is -1: a new last dimension) (follows `tf.sparse.expand_dims`).

    >>> st = ek.sparse.SparseTensor([[0, 1]], [5], [2, 3])
    >>> ek.sparse.expand_dims(st, -1).dense_shape.numpy()
    array([2, 3, 1])
    """
    op = "sparse.expand_dims"
    st = _sparse(sp_input, op)
    axis = -1 if axis is None else axis  # TensorFlow's default
    idx, shape = _parts(st)
    rank = len(shape)
    a = int(_np(axis))
    if not -rank - 1 <= a <= rank:
        raise _invalid(op, f"axis {a} is out of range [{-rank - 1}, {rank}].")
    if a < 0:
        a += rank + 1
    new_idx = np.insert(idx.reshape(-1, rank), a, 0, axis=1)
    return SparseTensor(new_idx, st.values, np.insert(shape, a, 1))


def reset_shape(sp_input, new_shape=None) -> SparseTensor:
    """The same entries with another dense shape (follows `tf.sparse.reset_shape`): without
    ``new_shape`` the tight bounding box of the indices (``max + 1`` per dimension); with it,
    a shape of the same rank at least as large in every dimension.

    Raises:
        InvalidArgumentError (a ValueError): ``new_shape`` of another rank, or smaller than
            the current shape in a dimension.

    >>> st = ek.sparse.SparseTensor([[0, 1], [2, 0]], [1, 2], [5, 6])
    >>> ek.sparse.reset_shape(st).dense_shape.numpy()
    array([3, 2])
    """
    op = "sparse.reset_shape"
    st = _sparse(sp_input, op)
    idx, shape = _parts(st)
    if new_shape is None:
        tight = idx.max(axis=0) + 1 if len(idx) else np.zeros(len(shape), np.int64)
        return SparseTensor(idx, st.values, tight)
    new = _int_vector(new_shape, op, "new_shape")
    if len(new) != len(shape):
        raise _invalid(op, f"new_shape {new.tolist()} must have rank {len(shape)}.")
    if np.any(new < shape):
        raise _invalid(
            op,
            f"new_shape {new.tolist()} must be >= the current shape {shape.tolist()} in every "
            "dimension.",
        )
    return SparseTensor(idx, st.values, new)


def eye(num_rows, num_columns=None, dtype=dtypes.float32, name=None) -> SparseTensor:
    """A two-dimensional identity SparseTensor (follows `tf.sparse.eye`).

    >>> ek.sparse.to_dense(ek.sparse.eye(2, 3)).numpy()
    array([[1., 0., 0.],
           [0., 1., 0.]], dtype=float32)
    """
    rows = int(_np(num_rows))
    cols = rows if num_columns is None else int(_np(num_columns))
    n = min(rows, cols)
    diag = np.repeat(np.arange(n, dtype=np.int64)[:, None], 2, axis=1)
    ones = np.ones(n, dtypes.numpy_dtype(dtypes.as_dtype(dtype)))
    return SparseTensor(diag, convert_to_tensor(ones), [rows, cols])


# -- elementwise ---------------------------------------------------------------------------------


def _union(a: SparseTensor, b: SparseTensor, op: str):
    """The union of both operands' entries (row-major), and each operand's values on it
    (0 where it stores nothing)."""
    from ..ops.indexing import scatter_nd

    a, b = _sparse(a, op, "sp_a"), _sparse(b, op, "sp_b")
    if a.dtype != b.dtype:
        raise TypeError(f"{op}: dtypes differ: {a.dtype.name} and {b.dtype.name}.")
    (ia, sa), (ib, sb) = _parts(a), _parts(b)
    if not np.array_equal(sa, sb):
        raise _invalid(op, f"operands' shapes do not match: {sa.tolist()} vs. {sb.tolist()}.")
    ka, kb = _keys(ia.reshape(-1, len(sa)), sa), _keys(ib.reshape(-1, len(sb)), sb)
    union = np.union1d(ka, kb)
    slot_a = np.searchsorted(union, ka).reshape(-1, 1)
    slot_b = np.searchsorted(union, kb).reshape(-1, 1)
    full_a = scatter_nd(slot_a, a.values, [len(union)])
    full_b = scatter_nd(slot_b, b.values, [len(union)])
    return _unkeys(union, sa), full_a, full_b, sa


def maximum(sp_a, sp_b, name=None) -> SparseTensor:
    """The elementwise maximum of two SparseTensors of one shape, on the union of their
    entries, an entry missing on one side counting as 0 (follows `tf.sparse.maximum`).

    Raises:
        InvalidArgumentError: different shapes. TypeError: different dtypes.

    >>> a = ek.sparse.SparseTensor([[0], [2]], [-1.0, 4.0], [4])
    >>> b = ek.sparse.SparseTensor([[2], [3]], [5.0, -2.0], [4])
    >>> ek.sparse.maximum(a, b).values.numpy()
    array([0., 5., 0.], dtype=float32)
    """
    from ..ops.elementwise import maximum as dense_maximum

    idx, va, vb, shape = _union(sp_a, sp_b, "sparse.maximum")
    return SparseTensor(idx, dense_maximum(va, vb), shape)


def minimum(sp_a, sp_b, name=None) -> SparseTensor:
    """The elementwise minimum of two SparseTensors (follows `tf.sparse.minimum`); see
    `maximum`."""
    from ..ops.elementwise import minimum as dense_minimum

    idx, va, vb, shape = _union(sp_a, sp_b, "sparse.minimum")
    return SparseTensor(idx, dense_minimum(va, vb), shape)


def softmax(sp_input, name=None) -> SparseTensor:
    """Softmax over the last dimension, among the stored entries only (implicit zeros take
    no part) (follows `tf.sparse.softmax`): the result has the input's indices. Rank >= 2,
    float values; differentiable with respect to the values.

    >>> st = ek.sparse.SparseTensor([[0, 0], [0, 2], [1, 1]], [1.0, 1.0, 7.0], [2, 3])
    >>> ek.sparse.softmax(st).values.numpy()
    array([0.5, 0.5, 1. ], dtype=float32)
    """
    from ..autodiff import stop_gradient
    from ..ops.elementwise import exp
    from ..ops.segment_ops import unsorted_segment_max, unsorted_segment_sum

    op = "sparse.softmax"
    st = _sparse(sp_input, op)
    idx, shape = _parts(st)
    if len(shape) < 2:
        raise _invalid(op, f"sp_input must have rank >= 2, got {len(shape)}.")
    if not st.dtype.is_floating:
        raise TypeError(f"{op}: values must be floating point, got {st.dtype.name}.")
    if not len(idx):
        return st
    _, slot = np.unique(_keys(idx[:, :-1], shape[:-1]), return_inverse=True)
    slot = slot.reshape(-1).astype(np.int64)
    groups = int(slot.max()) + 1
    peak = stop_gradient(unsorted_segment_max(st.values, slot, groups))
    e = exp(st.values - _gather(peak, slot))
    total = unsorted_segment_sum(e, slot, groups)
    return SparseTensor(idx, e / _gather(total, slot), shape)


# -- segment reductions of rows ------------------------------------------------------------------


def _segment(data, indices, segment_ids, num_segments, op: str):
    """``(rows of data at indices, segment ids, number of segments)``, checked."""
    from ..ops.segment_ops import unsorted_segment_sum

    d = data if isinstance(data, Tensor) else convert_to_tensor(data)
    idx = _int_vector(indices, op, "indices")
    seg = _int_vector(segment_ids, op, "segment_ids")
    if len(idx) != len(seg):
        raise _invalid(
            op,
            f"indices and segment_ids must have the same length, got {len(idx)} and {len(seg)}.",
        )
    if not d._value.ndim:
        raise _invalid(op, "data must have rank >= 1.")
    n_rows = d._value.shape[0]
    bad = np.nonzero((idx < 0) | (idx >= n_rows))[0]
    if bad.size:
        i = int(bad[0])
        raise _invalid(op, f"indices[{i}] = {int(idx[i])} is out of range [0, {n_rows}).")
    if np.any(seg < 0):
        raise _invalid(op, f"segment ids must be >= 0, got {int(seg.min())}.")
    if np.any(np.diff(seg) < 0):
        i = int(np.nonzero(np.diff(seg) < 0)[0][0]) + 1
        raise _invalid(op, f"segment ids are not increasing: segment_ids[{i}] = {int(seg[i])}.")
    if num_segments is None:
        n = int(seg[-1]) + 1 if len(seg) else 0
    else:
        n = int(_np(num_segments))
        if len(seg) and seg[-1] >= n:
            raise _invalid(op, f"segment id {int(seg[-1])} is out of range [0, {n}).")
    total = unsorted_segment_sum(_gather(d, idx), seg, n)
    counts = np.bincount(seg, minlength=n).astype(np.float64)
    return total, counts


def _count_divisor(counts: np.ndarray, total: Tensor, root: bool) -> Tensor:
    c = np.maximum(counts, 1.0)
    c = np.sqrt(c) if root else c
    shape = (len(c),) + (1,) * (total._value.ndim - 1)
    return convert_to_tensor(c.reshape(shape).astype(total._value.dtype))


def segment_sum(
    data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False
) -> Tensor:
    """``output[s] = sum(data[indices[i]] for i with segment_ids[i] == s)`` (follows
    `tf.sparse.segment_sum`).

    Args:
        data: a Tensor, shape ``[N, ...]``.
        indices: int ``[K]``, rows of ``data``.
        segment_ids: int ``[K]``, sorted (non-decreasing), >= 0.
        num_segments: the number of output rows (default ``segment_ids[-1] + 1``); empty
            segments are 0.
        sparse_gradient: TensorFlow returns the gradient of ``data`` as IndexedSlices when
            True; here it is the same values as a dense Tensor either way.

    Returns:
        A Tensor ``[num_segments, ...]`` of ``data``'s dtype, differentiable w.r.t. ``data``.

    Raises:
        InvalidArgumentError: lengths that differ, an index out of range, segment ids not
            sorted, negative, or >= ``num_segments``.

    >>> data = ek.constant([[1, 2], [3, 4], [5, 6]])
    >>> ek.sparse.segment_sum(data, [0, 2, 1], [0, 0, 2]).numpy()
    array([[6, 8],
           [0, 0],
           [3, 4]], dtype=int32)
    """
    total, _ = _segment(data, indices, segment_ids, num_segments, "sparse.segment_sum")
    return total


def segment_mean(
    data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False
) -> Tensor:
    """The mean of each segment's rows (follows `tf.sparse.segment_mean`); float ``data``;
    an empty segment is 0. See `segment_sum`.

    >>> ek.sparse.segment_mean(ek.constant([1.0, 2.0, 6.0]), [0, 2, 1], [0, 0, 1]).numpy()
    array([3.5, 2. ], dtype=float32)
    """
    op = "sparse.segment_mean"
    total, counts = _segment(data, indices, segment_ids, num_segments, op)
    if not total.dtype.is_floating:
        raise TypeError(f"{op}: data must be floating point, got {total.dtype.name}.")
    return total / _count_divisor(counts, total, root=False)


def segment_sqrt_n(
    data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False
) -> Tensor:
    """Each segment's sum divided by the square root of its number of rows (follows
    `tf.sparse.segment_sqrt_n`); float ``data``; an empty segment is 0. See `segment_sum`.

    >>> ek.sparse.segment_sqrt_n(ek.constant([3.0, 1.0]), [0, 1], [0, 0]).numpy()
    array([2.828427], dtype=float32)
    """
    op = "sparse.segment_sqrt_n"
    total, counts = _segment(data, indices, segment_ids, num_segments, op)
    if not total.dtype.is_floating:
        raise TypeError(f"{op}: data must be floating point, got {total.dtype.name}.")
    return total / _count_divisor(counts, total, root=True)


# -- counting ------------------------------------------------------------------------------------


def _bincount_input(arr, weights, axis, op: str):
    """``(values, rows or None, number of rows, weights Tensor or None, values' dtype)``."""
    from ..ragged.ragged_tensor import RaggedTensor

    per_row = axis is not None and int(axis) == -1
    if axis is not None and int(axis) not in (0, -1):
        raise _invalid(op, f"axis must be 0, -1 or None, got {axis}.")
    w = weights
    if isinstance(arr, SparseTensor):
        idx, shape = _parts(arr)
        values, dt, rank = _np(arr.values), arr.values._value.dtype, len(shape)
        rows = idx[:, 0] if per_row and rank == 2 else None
        nrows = int(shape[0]) if rows is not None else 0
        if isinstance(w, SparseTensor):
            w = w.values
    elif isinstance(arr, RaggedTensor):
        values, dt = _np(arr.flat_values), arr.flat_values._value.dtype
        rank = arr.shape.rank
        rows = _np(arr.value_rowids()) if per_row and rank == 2 else None
        nrows = int(_np(arr.nrows())) if rows is not None else 0
        if isinstance(w, RaggedTensor):
            w = w.flat_values
    else:
        t = arr if isinstance(arr, Tensor) else convert_to_tensor(arr)
        full, dt, rank = _np(t), t._value.dtype, t._value.ndim
        if rank > 2:
            raise _invalid(op, f"arr must have rank <= 2, got shape {list(full.shape)}.")
        rows = None
        if per_row and rank == 2:
            rows = np.repeat(np.arange(full.shape[0]), full.shape[1])
        nrows = full.shape[0] if rows is not None else 0
        values = full.reshape(-1)
    if dt.kind not in "iu":
        raise TypeError(f"{op}: arr must be integers, got dtype {dt}.")
    if w is not None:
        w = w if isinstance(w, Tensor) else convert_to_tensor(w)
        w = w if w._value.ndim == 1 else _flat(w)
        if w._value.shape[0] != values.size:
            raise _invalid(
                op,
                f"weights must have one value per element of arr ({values.size}), got "
                f"{w._value.shape[0]}.",
            )
    return values.astype(np.int64).reshape(-1), rows, nrows, w, dt


def _flat(t: Tensor) -> Tensor:
    from ..ops.array_ops import reshape as dense_reshape

    return dense_reshape(t, [-1])


def bincount(
    arr,
    weights=None,
    minlength=None,
    maxlength=None,
    axis=0,
    binary_output=False,
    name=None,
) -> SparseTensor:
    """Counts of each value of the integer ``arr`` as a SparseTensor (follows
    `tf.sparse.bincount`).

    Args:
        arr: a dense Tensor (rank <= 2), a SparseTensor or a RaggedTensor of non-negative
            ints.
        weights: optional, one per element of ``arr`` (for a SparseTensor or RaggedTensor,
            one with the same structure): each occurrence adds its weight instead of 1.
        minlength: the last dimension is at least this long.
        maxlength: values ``>= maxlength`` are dropped and the last dimension is
            ``maxlength``.
        axis: 0 or None counts over all of ``arr`` (output ``[N]``); -1 counts each row of
            a rank-2 ``arr`` (output ``[rows, N]``).
        binary_output: 1 where a value occurs, whatever the count.

    Returns:
        A SparseTensor of ``weights``'s dtype (without weights: ``arr``'s), entries in
        row-major order; ``N`` is ``maxlength`` if given, else ``max(max(arr) + 1,
        minlength)``. Differentiable with respect to ``weights``.

    Raises:
        InvalidArgumentError: a negative value, an unsupported axis, weights of another
            length. ValueError: both ``weights`` and ``binary_output``.

    >>> data = np.array([[10, 20, 30, 20], [11, 101, 11, 10001]], dtype=np.int64)
    >>> out = ek.sparse.bincount(data, axis=-1)
    >>> out.values.numpy(), out.dense_shape.numpy()
    (array([1, 2, 1, 2, 1, 1]), array([    2, 10002]))
    """
    from ..ops.segment_ops import unsorted_segment_sum

    op = "sparse.bincount"
    if binary_output and weights is not None:
        raise ValueError(f"{op}: arguments binary_output and weights are mutually exclusive.")
    values, rows, nrows, w, dt = _bincount_input(arr, weights, axis, op)
    if values.size and values.min() < 0:
        raise _invalid(op, f"Input arr must be non-negative! Got {int(values.min())}.")
    kept = np.ones(values.size, bool)
    if maxlength is not None and int(_np(maxlength)) >= 0:
        kept = values < int(_np(maxlength))
    # TF's DenseCountSparseOutput starts its running maximum at 0, so an input with no
    # (kept) values still has one bin unless maxlength fixes the size.
    max_seen = int(values[kept].max()) if kept.any() else 0
    if maxlength is not None and int(_np(maxlength)) >= 0:
        n = int(_np(maxlength))
    else:
        n = max(max_seen + 1, 0 if minlength is None else int(_np(minlength)))
    pos = np.nonzero(kept)[0]
    cols = values[pos]
    keys = cols if rows is None else rows[pos] * max(n, 1) + cols
    unique, slot = np.unique(keys, return_inverse=True)
    slot = slot.reshape(-1).astype(np.int64)
    if rows is None:
        idx, shape = unique.reshape(-1, 1), [n]
    else:
        idx, shape = np.stack([unique // max(n, 1), unique % max(n, 1)], axis=1), [nrows, n]
    if w is not None:
        out = unsorted_segment_sum(_gather(w, pos), slot, len(unique))
    else:
        counts = np.bincount(slot, minlength=len(unique)) if len(slot) else np.zeros(0)
        out = np.ones(len(unique), dt) if binary_output else counts.astype(dt)
    return SparseTensor(idx.astype(np.int64), out, shape)


def to_indicator(sp_input, vocab_size, name=None) -> Tensor:
    """A dense bool tensor ``[..., vocab_size]``, True at ``[i..., v]`` where an entry
    ``[i..., j]`` of the integer ``sp_input`` holds ``v`` (follows
    `tf.sparse.to_indicator`).

    Raises:
        InvalidArgumentError: a value outside ``[0, vocab_size)``. TypeError: non-integer
            values.

    >>> st = ek.sparse.SparseTensor([[0, 0], [0, 1], [2, 0]], [0, 3, 2], [3, 2])
    >>> ek.sparse.to_indicator(st, 4).numpy().astype(int)
    array([[1, 0, 0, 1],
           [0, 0, 0, 0],
           [0, 0, 1, 0]])
    """
    op = "sparse.to_indicator"
    st = _sparse(sp_input, op)
    idx, shape = _parts(st)
    values = _np(st.values)
    if values.dtype.kind not in "iu":
        raise TypeError(f"{op}: values must be int32 or int64, got {st.dtype.name}.")
    if not len(shape):
        raise _invalid(op, "sp_input must have rank >= 1.")
    vocab = int(_np(vocab_size))
    bad = np.nonzero((values < 0) | (values >= vocab))[0]
    if bad.size:
        i = int(bad[0])
        raise _invalid(op, f"values[{i}] = {int(values[i])} is not in [0, {vocab}).")
    out = np.zeros((*(int(s) for s in shape[:-1]), vocab), bool)
    out[(*idx[:, :-1].T, values.astype(np.int64))] = True
    return convert_to_tensor(out)


def mask(a, mask_indices, name=None) -> IndexedSlices:
    """The slices of the `ek.IndexedSlices` ``a`` whose index is not in ``mask_indices``
    (follows `tf.sparse.mask`).

    >>> a = ek.IndexedSlices(ek.constant([1.0, 2.0, 3.0, 4.0]), [12, 26, 37, 45], [50])
    >>> ek.sparse.mask(a, [12, 45]).indices.numpy()
    array([26, 37], dtype=int32)
    """
    if not isinstance(a, IndexedSlices):
        raise TypeError(f"sparse.mask: a must be an IndexedSlices. Received: {type(a).__name__}")
    idx = _np(a.indices)
    drop = _int_vector(mask_indices, "sparse.mask", "mask_indices")
    pos = np.nonzero(~np.isin(idx, drop))[0]
    return IndexedSlices(_gather(a.values, pos), _gather(a.indices, pos), a.dense_shape)
