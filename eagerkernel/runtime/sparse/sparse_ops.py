"""`ek.sparse`: ops on SparseTensors (follows `tf.sparse`).

`to_dense` and `sparse_dense_matmul` are primitives with their VJPs side by side; the others
are built from gather / scatter ops, so gradients reach the values (and the dense operand)
wherever TensorFlow has them.
"""

from __future__ import annotations

import numpy as np

from ..core.dispatch import Primitive, defvjp, dispatch
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, convert_to_tensor, to_tensor
from .sparse_tensor import SparseTensor, SparseTensorSpec

__all__ = [
    "SparseTensor",
    "SparseTensorSpec",
    "add",
    "concat",
    "from_dense",
    "map_values",
    "reduce_max",
    "reduce_sum",
    "reorder",
    "slice",
    "sparse_dense_matmul",
    "to_dense",
    "transpose",
]


def _sparse(x, op: str, arg: str = "sp_input") -> SparseTensor:
    if not isinstance(x, SparseTensor):
        raise TypeError(f"{op}: {arg} must be a SparseTensor. Received: {type(x).__name__}")
    return x


def _np(t: Tensor) -> np.ndarray:
    return np.asarray(t._value)


# -- from_dense / to_dense ------------------------------------------------------------------------


def from_dense(tensor, name=None) -> SparseTensor:
    """The non-zero (non-empty, for strings) entries of a dense tensor, in row-major order
    (follows `tf.sparse.from_dense`). Differentiable with respect to ``tensor``.

    >>> ek.sparse.from_dense([[1, 0, 0, 8]]).indices.numpy()
    array([[0, 0],
           [0, 3]])
    """
    from ..ops.indexing import gather_nd

    t = tensor if isinstance(tensor, Tensor) else convert_to_tensor(tensor)
    v = _np(t)
    mask = v != (b"" if v.dtype.kind == "O" else 0)
    indices = np.argwhere(mask).astype(np.int64).reshape(-1, v.ndim)
    values = gather_nd(t, indices) if v.ndim else t
    return SparseTensor(indices, values, np.asarray(v.shape, dtype=np.int64))


def _check_indices(idx: np.ndarray, shape: np.ndarray, op: str, ordered: bool) -> None:
    bad = np.nonzero(np.any((idx < 0) | (idx >= shape), axis=1))[0]
    if bad.size:
        i = int(bad[0])
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: indices[{i}] = [{','.join(map(str, idx[i]))}] is out of bounds: need 0 <= "
            f"index < [{','.join(map(str, shape))}]",
        )
    if ordered and len(idx) > 1:
        flat = np.ravel_multi_index(idx.T, shape) if idx.shape[1] else np.zeros(len(idx))
        step = np.diff(flat)
        if np.any(step <= 0):
            i = int(np.nonzero(step <= 0)[0][0]) + 1
            what = "repeated" if step[i - 1] == 0 else "out of order"
            raise InvalidArgumentError(
                None,
                op,
                f"{op}: indices[{i}] = [{','.join(map(str, idx[i]))}] is {what}. Many sparse "
                "ops require sorted indices. Use `ek.sparse.reorder` to create a correctly "
                "ordered copy.",
            )


def _to_dense_fwd(xp, values, indices, shape, default):
    out = xp.empty(shape, dtype=values.dtype)
    out[...] = default
    if indices.shape[0]:
        out[tuple(indices.T)] = values
    return out


_to_dense = Primitive("SparseToDense", _to_dense_fwd)


def _to_dense_vjp(g, ans, values, indices, shape, default):
    from ..ops.indexing import gather_nd

    return gather_nd(g, indices)


defvjp(_to_dense, _to_dense_vjp)


def to_dense(sp_input, default_value=None, validate_indices=True, name=None) -> Tensor:
    """The dense tensor, ``default_value`` (0 or empty string) where nothing is stored (follows
    `tf.sparse.to_dense`). Differentiable with respect to the values.

    Raises:
        InvalidArgumentError: an index out of bounds, or (with ``validate_indices``) indices
            out of row-major order or repeated.
    """
    st = _sparse(sp_input, "to_dense")
    idx, shape = _np(st.indices), _np(st.dense_shape)
    _check_indices(idx, shape, "SparseToDense", bool(validate_indices))
    vdt = st.values._value.dtype
    if default_value is None:
        default = np.asarray(b"", dtype=object) if vdt.kind == "O" else np.zeros((), vdt)
    else:
        default = np.asarray(convert_to_tensor(default_value, dtype=st.dtype)._value)
    params = {"indices": idx, "shape": tuple(int(s) for s in shape), "default": default}
    return dispatch(_to_dense, (st.values,), params)


def reorder(sp_input, name=None) -> SparseTensor:
    """The same tensor with its entries in row-major order (follows `tf.sparse.reorder`)."""
    from ..ops.indexing import gather

    st = _sparse(sp_input, "reorder")
    idx, shape = _np(st.indices), _np(st.dense_shape)
    if not len(idx):
        return st
    order = np.lexsort(idx.T[::-1]).astype(np.int64)
    return SparseTensor(idx[order], gather(st.values, order), shape)


# -- elementwise ---------------------------------------------------------------------------------


def cwise(op, x, y):
    """``op(x, y)`` with a SparseTensor and a dense tensor or scalar: a SparseTensor whose
    values are ``op`` of the stored values and the dense entries at their indices (follows
    TensorFlow's sparse-dense ``*`` and ``/``)."""
    from ..ops import elementwise

    if op not in (elementwise.multiply, elementwise.truediv, elementwise.divide):
        raise TypeError(
            f"{op.__name__}: not supported between a SparseTensor and another value; use "
            "ek.sparse.add, ek.sparse.map_values or ek.sparse.to_dense."
        )
    if isinstance(x, SparseTensor) and isinstance(y, SparseTensor):
        raise TypeError(f"{op.__name__}: both operands are SparseTensors; densify one.")
    if not isinstance(x, SparseTensor):
        raise TypeError(f"{op.__name__}: a dense tensor divided by a SparseTensor is undefined.")
    st, dense = x, y
    d = dense if isinstance(dense, Tensor) else to_tensor(dense, st.values._value.dtype, "cwise")
    if d._value.ndim == 0:
        return st.with_values(op(st.values, d))
    from ..ops.array_ops import broadcast_to
    from ..ops.indexing import gather_nd

    shape = [int(s) for s in _np(st.dense_shape)]
    picked = gather_nd(broadcast_to(d, shape), _np(st.indices))
    return st.with_values(op(st.values, picked))


def map_values(op, *args, **kwargs):
    """``op`` applied to the values of the SparseTensor arguments, which must share their
    indices and shape (follows `tf.sparse.map_values`).

    Raises:
        ValueError: no SparseTensor argument, or SparseTensors with different indices.
    """
    found = []

    def strip(v):
        if isinstance(v, SparseTensor):
            found.append(v)
            return v.values
        if isinstance(v, (list, tuple)):
            return type(v)(strip(x) for x in v)
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items()}
        return v

    args, kwargs = strip(args), strip(kwargs)
    if not found:
        raise ValueError("map_values: no SparseTensor in the arguments.")
    first = found[0]
    for other in found[1:]:
        if not (
            np.array_equal(_np(first.indices), _np(other.indices))
            and np.array_equal(_np(first.dense_shape), _np(other.dense_shape))
        ):
            raise ValueError("map_values: the SparseTensors must have the same indices and shape.")
    return first.with_values(op(*args, **kwargs))


def add(a, b, threshold=0, name=None):
    """``a + b`` (follows `tf.sparse.add`): two SparseTensors give a SparseTensor (entries
    whose sum has magnitude below ``threshold`` dropped, entries in one operand only kept);
    a SparseTensor and a dense tensor give a dense tensor. Differentiable with respect to
    both operands' values.

    Raises:
        InvalidArgumentError: different dense shapes. TypeError: different dtypes or no
            SparseTensor operand.
    """
    from ..ops.array_ops import concat as dense_concat
    from ..ops.elementwise import add as dense_add
    from ..ops.indexing import gather, scatter_nd

    if not isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        raise TypeError("sparse.add: at least one operand must be a SparseTensor.")
    if not isinstance(a, SparseTensor) or not isinstance(b, SparseTensor):
        st, dense = (a, b) if isinstance(a, SparseTensor) else (b, a)
        return dense_add(to_dense(st), dense) if st is a else dense_add(dense, to_dense(st))
    if a.dtype != b.dtype:
        raise TypeError(f"sparse.add: dtypes differ: {a.dtype.name} and {b.dtype.name}.")
    sa, sb = _np(a.dense_shape), _np(b.dense_shape)
    if not np.array_equal(sa, sb):
        raise InvalidArgumentError(
            None,
            "SparseAdd",
            f"sparse.add: operands' shapes do not match: {sa.tolist()} vs. {sb.tolist()}",
        )
    idx = np.concatenate([_np(a.indices), _np(b.indices)]).reshape(-1, len(sa))
    if not len(idx):
        return a
    keys = np.ravel_multi_index(idx.T, sa)
    unique, slot = np.unique(keys, return_inverse=True)
    values = dense_concat([a.values, b.values], axis=0)
    summed = scatter_nd(slot.reshape(-1, 1).astype(np.int64), values, [len(unique)])
    out_idx = np.stack(np.unravel_index(unique, sa), axis=1).astype(np.int64)
    thresh = float(threshold.numpy() if isinstance(threshold, Tensor) else threshold)
    if thresh > 0:
        # TF's SparseAdd kernel only thresholds sums of coinciding entries; an entry present
        # in one operand only is copied through whatever its magnitude.
        single = np.bincount(slot, minlength=len(unique)) == 1
        keep = np.nonzero(single | (np.abs(_np(summed)) >= thresh))[0].astype(np.int64)
        return SparseTensor(out_idx[keep], gather(summed, keep), sa)
    return SparseTensor(out_idx, summed, sa)


# -- reductions ---------------------------------------------------------------------------------


def _axes(axis, rank: int, op: str):
    if axis is None:
        return tuple(range(rank))
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    out = []
    for a in axes:
        a = int(a)
        if not -rank <= a < rank:
            raise InvalidArgumentError(None, op, f"{op}: axis {a} is out of range for rank {rank}.")
        out.append(a % rank)
    return tuple(sorted(set(out)))


def _grouped(st: SparseTensor, axes, keepdims):
    """For each stored value, its slot among the distinct reduced coordinates; the output
    indices and shape."""
    idx, shape = _np(st.indices), _np(st.dense_shape)
    kept = [i for i in range(len(shape)) if i not in axes]
    out_shape = np.asarray(
        [1 if i in axes else shape[i] for i in range(len(shape))]
        if keepdims
        else [shape[i] for i in kept],
        dtype=np.int64,
    )
    key_idx = idx[:, kept] if kept else np.zeros((len(idx), 0), np.int64)
    if keepdims:
        key_idx = idx.copy()
        key_idx[:, list(axes)] = 0
    if key_idx.shape[1]:
        keys = np.ravel_multi_index(key_idx.T, out_shape)
    else:
        keys = np.zeros(len(idx), np.int64)
    unique, slot = np.unique(keys, return_inverse=True)
    if key_idx.shape[1]:
        out_idx = np.stack(np.unravel_index(unique, out_shape), axis=1).astype(np.int64)
    else:
        out_idx = np.zeros((len(unique), 0), np.int64)
    return slot.astype(np.int64), out_idx, out_shape


def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The sum over ``axis`` (all axes when None) (follows `tf.sparse.reduce_sum`): a dense
    Tensor, or with ``output_is_sparse`` a SparseTensor of the sums of the stored groups.
    Differentiable with respect to the values.

    >>> st = ek.sparse.SparseTensor([[0, 2], [3, 4]], [31, 2], [4, 10])
    >>> ek.sparse.reduce_sum(st, axis=1).numpy()
    array([31,  0,  0,  2], dtype=int32)
    """
    from ..ops.indexing import scatter_nd
    from ..ops.reduction import reduce_sum as dense_sum

    st = _sparse(sp_input, "sparse.reduce_sum")
    axes = _axes(axis, st.ndim, "sparse.reduce_sum")
    keep = bool(keepdims)
    if output_is_sparse:
        slot, out_idx, out_shape = _grouped(st, axes, keep)
        summed = scatter_nd(slot.reshape(-1, 1), st.values, [len(out_idx)])
        return SparseTensor(out_idx, summed, out_shape)
    return dense_sum(to_dense(st, validate_indices=False), axis=list(axes), keepdims=keep)


def reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The maximum of the stored values over ``axis`` (all axes when None); implicit zeros
    take no part (follows `tf.sparse.reduce_max`). A group with no stored value gives 0 in the
    dense output, and no entry in the SparseTensor of ``output_is_sparse`` (int64 indices in
    row-major order). No gradient, as in TensorFlow.

    >>> float(ek.sparse.reduce_max(ek.sparse.from_dense([-5.0, 0.0, -3.0])))
    -3.0
    >>> y = ek.sparse.SparseTensor([[0, 0], [1, 0], [1, 1]], [-7, 4, 3], [3, 2])
    >>> ek.sparse.reduce_max(y, 1).numpy()
    array([-7,  4,  0], dtype=int32)
    """
    from ..ops.elementwise import where
    from ..ops.indexing import gather_nd
    from ..ops.reduction import reduce_max as dense_max

    st = _sparse(sp_input, "sparse.reduce_max")
    axes = _axes(axis, st.ndim, "sparse.reduce_max")
    keep = bool(keepdims)
    dt = st.values._value.dtype
    low = -np.inf if dt.kind in "fc" else np.iinfo(dt).min
    dense = to_dense(st, default_value=np.asarray(low, dtype=dt), validate_indices=False)
    out = dense_max(dense, axis=list(axes), keepdims=keep)
    present = np.zeros([int(d) for d in _np(st.dense_shape)], dtype=bool)
    present[tuple(_np(st.indices).T)] = True
    has = present.any(axis=axes, keepdims=keep)  # the groups holding a stored value
    if output_is_sparse:
        out_idx = np.argwhere(has).astype(np.int64)
        return SparseTensor(out_idx, gather_nd(out, out_idx), np.asarray(has.shape, np.int64))
    return out if has.all() else where(to_tensor(has), out, to_tensor(np.zeros((), dt)))


# -- products ------------------------------------------------------------------------------------


def _spmm_fwd(xp, values, b, indices, shape, adjoint_a, adjoint_b):
    rows, cols = (indices[:, 1], indices[:, 0]) if adjoint_a else (indices[:, 0], indices[:, 1])
    m = shape[1] if adjoint_a else shape[0]
    bb = b.T.conj() if adjoint_b else b
    vals = values.conj() if adjoint_a else values
    out = xp.zeros((m, bb.shape[1]), dtype=np.result_type(values, b))
    if len(rows):
        np.add.at(out, rows, vals[:, None] * bb[cols])
    return out


_spmm = Primitive("SparseTensorDenseMatMul", _spmm_fwd)


def _spmm_vjp_values(g, ans, values, b, indices, shape, adjoint_a, adjoint_b):
    from ..ops.array_ops import transpose
    from ..ops.indexing import gather
    from ..ops.reduction import reduce_sum as dense_sum

    rows, cols = (indices[:, 1], indices[:, 0]) if adjoint_a else (indices[:, 0], indices[:, 1])
    bb = transpose(b) if adjoint_b else b
    return dense_sum(gather(g, rows) * gather(bb, cols), axis=1)


def _spmm_vjp_b(g, ans, values, b, indices, shape, adjoint_a, adjoint_b):
    from ..ops.array_ops import expand_dims, transpose
    from ..ops.indexing import gather, scatter_nd

    rows, cols = (indices[:, 1], indices[:, 0]) if adjoint_a else (indices[:, 0], indices[:, 1])
    k = shape[0] if adjoint_a else shape[1]
    db = scatter_nd(
        cols.reshape(-1, 1), expand_dims(values, 1) * gather(g, rows), [k, g._value.shape[1]]
    )
    return transpose(db) if adjoint_b else db


defvjp(_spmm, _spmm_vjp_values, _spmm_vjp_b)


def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None) -> Tensor:
    """The matrix product of a 2-D SparseTensor and a dense matrix, a dense Tensor (follows
    `tf.sparse.sparse_dense_matmul`; a dense ``sp_a`` with a sparse ``b`` works too).
    ``adjoint_a`` / ``adjoint_b`` use the (conjugate) transposes. Differentiable with respect
    to the sparse values and the dense operand.

    Raises:
        InvalidArgumentError: inner dimensions that differ. TypeError: dtypes that differ.

    >>> st = ek.sparse.SparseTensor([[0, 1], [1, 0], [1, 1]], [13, 15, 17], [2, 2])
    >>> ek.sparse.sparse_dense_matmul(st, ek.constant([[4], [6]])).numpy()
    array([[ 78],
           [162]], dtype=int32)
    """
    from ..ops.array_ops import transpose

    if not isinstance(sp_a, SparseTensor) and isinstance(b, SparseTensor):
        # A B = (B^T A^T)^T with the sparse operand first.
        a_dense = sp_a if isinstance(sp_a, Tensor) else convert_to_tensor(sp_a)
        out = sparse_dense_matmul(b, a_dense, adjoint_a=not adjoint_b, adjoint_b=not adjoint_a)
        return transpose(out)
    st = _sparse(sp_a, "sparse_dense_matmul", "sp_a")
    d = b if isinstance(b, Tensor) else to_tensor(b, st.values._value.dtype, "sparse_dense_matmul")
    if type(d) is not Tensor:
        d = convert_to_tensor(d)
    if d.dtype != st.dtype:
        raise TypeError(
            f"sparse_dense_matmul: sp_a has dtype {st.dtype.name} but b has {d.dtype.name}."
        )
    shape = tuple(int(s) for s in _np(st.dense_shape))
    if len(shape) != 2 or d._value.ndim != 2:
        raise InvalidArgumentError(
            None,
            "SparseTensorDenseMatMul",
            f"sparse_dense_matmul: both operands must be matrices, got shapes {list(shape)} "
            f"and {list(d._value.shape)}.",
        )
    inner_a = shape[0] if adjoint_a else shape[1]
    inner_b = d._value.shape[1] if adjoint_b else d._value.shape[0]
    if inner_a != inner_b:
        raise InvalidArgumentError(
            None,
            "SparseTensorDenseMatMul",
            "Cannot multiply A and B because inner dimension does not match: "
            f"{inner_a} vs. {inner_b}.  Did you forget a transpose?  Dimensions of A: "
            f"{list(shape)}.  Dimensions of B: {list(d._value.shape)}",
        )
    idx = _np(st.indices)
    _check_indices(idx, np.asarray(shape), "SparseTensorDenseMatMul", False)
    params = {
        "indices": idx,
        "shape": shape,
        "adjoint_a": bool(adjoint_a),
        "adjoint_b": bool(adjoint_b),
    }
    return dispatch(_spmm, (st.values, d), params)


# -- structure ----------------------------------------------------------------------------------


def concat(axis, sp_inputs, expand_nonconcat_dims=False, name=None) -> SparseTensor:
    """Joins SparseTensors along ``axis`` (follows `tf.sparse.concat`; the result is in
    row-major order). With ``expand_nonconcat_dims`` the other dimensions grow to the
    largest.

    Raises:
        InvalidArgumentError: different ranks, or other dimensions that differ.
    """
    from ..ops.array_ops import concat as dense_concat
    from ..ops.indexing import gather

    sts = [_sparse(s, "sparse.concat", "sp_inputs") for s in sp_inputs]
    if not sts:
        raise ValueError("sparse.concat: sp_inputs must not be empty.")
    shapes = [_np(s.dense_shape) for s in sts]
    rank = len(shapes[0])
    a = int(axis) % rank
    target = np.max(np.stack(shapes), axis=0)
    for i, s in enumerate(shapes):
        if len(s) != rank or (
            not expand_nonconcat_dims and any(s[j] != shapes[0][j] for j in range(rank) if j != a)
        ):
            raise InvalidArgumentError(
                None,
                "SparseConcat",
                f"sparse.concat: sp_inputs[{i}] has shape {s.tolist()}, which does not match "
                f"sp_inputs[0]'s {shapes[0].tolist()} off axis {a}.",
            )
    pieces, offset = [], 0
    for st, s in zip(sts, shapes):
        idx = _np(st.indices).copy()
        idx[:, a] += offset
        pieces.append(idx)
        offset += int(s[a])
    idx = np.concatenate(pieces).reshape(-1, rank)
    out_shape = target.copy()
    out_shape[a] = offset
    values = dense_concat([s.values for s in sts], axis=0)
    order = np.lexsort(idx.T[::-1]).astype(np.int64) if len(idx) else np.zeros(0, np.int64)
    return SparseTensor(idx[order], gather(values, order), out_shape)


def slice(sp_input, start, size, name=None) -> SparseTensor:
    """The entries inside the box ``[start, start + size)``, re-indexed from ``start``
    (follows `tf.sparse.slice`; the box is clipped to the dense shape)."""
    from ..ops.indexing import gather

    st = _sparse(sp_input, "sparse.slice")
    idx, shape = _np(st.indices), _np(st.dense_shape)
    start = np.asarray(start.numpy() if isinstance(start, Tensor) else start, dtype=np.int64)
    size = np.asarray(size.numpy() if isinstance(size, Tensor) else size, dtype=np.int64)
    if start.shape != shape.shape or size.shape != shape.shape:
        raise InvalidArgumentError(
            None, "SparseSlice", "sparse.slice: start and size must have the tensor's rank."
        )
    stop = np.minimum(start + size, shape)
    out_shape = np.maximum(stop - start, 0)
    inside = np.all((idx >= start) & (idx < stop), axis=1) if len(idx) else np.zeros(0, bool)
    keep = np.nonzero(inside)[0].astype(np.int64)
    return SparseTensor(idx[keep] - start, gather(st.values, keep), out_shape)


def transpose(sp_input, perm=None, name=None) -> SparseTensor:
    """The transposed SparseTensor (reversed axes by default), in row-major order (follows
    `tf.sparse.transpose`)."""
    st = _sparse(sp_input, "sparse.transpose")
    idx, shape = _np(st.indices), _np(st.dense_shape)
    p = np.arange(len(shape))[::-1] if perm is None else np.asarray(perm, dtype=np.int64)
    if sorted(p.tolist()) != list(range(len(shape))):
        raise InvalidArgumentError(
            None, "SparseTranspose", f"sparse.transpose: perm {p.tolist()} is not a permutation."
        )
    return reorder(SparseTensor(idx[:, p], st.values, shape[p]))
