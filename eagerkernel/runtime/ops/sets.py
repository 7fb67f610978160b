"""`ek.sets`: set operations along the last dimension (follows `tf.sets`).

A rank-``R`` (``R >= 2``) operand holds one set per index of its first ``R - 1`` dimensions
(its *group*): for a dense Tensor, every element of the last dimension is a member; for a
`SparseTensor`, the values stored at that group. Members are integers (int8, int16, int32,
int64, uint8, uint16) or strings; duplicates count once. Results are SparseTensors of shape
``group_shape + [largest result set]`` whose values are sorted within each group.

>>> a = ek.constant([[1, 2, 3], [4, 5, 6]])
>>> b = ek.constant([[3, 1, 7], [6, 6, 6]])
>>> ek.sparse.to_dense(ek.sets.intersection(a, b)).numpy()
array([[1, 3],
       [6, 0]], dtype=int32)
>>> ek.sets.size(ek.sets.union(a, b)).numpy()
array([4, 3], dtype=int32)
"""

from __future__ import annotations

import numpy as np

from ..core.dispatch import Primitive, defvjp, dispatch
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, to_tensor
from ..sparse.sparse_tensor import SparseTensor

__all__ = [
    "difference",
    "intersection",
    "set_difference",
    "set_intersection",
    "set_size",
    "set_union",
    "size",
    "union",
]

_VALID = frozenset(np.dtype(t) for t in ("int8", "int16", "int32", "int64", "uint8", "uint16"))
_OBJECT = np.dtype(object)


def _operand(x, op: str, arg: str):
    """``x`` as a SparseTensor or a dense Tensor of a valid dtype and rank >= 2."""
    if not isinstance(x, SparseTensor):
        x = x if isinstance(x, Tensor) else to_tensor(x, None, op)
    dtype = np.dtype(x.values._value.dtype if isinstance(x, SparseTensor) else x._value.dtype)
    if dtype not in _VALID and dtype != _OBJECT:
        raise TypeError(
            f"{op}: {arg} has invalid dtype {x.dtype.name} in set operation; expected an "
            "integer type (int8, int16, int32, int64, uint8, uint16) or string."
        )
    rank = x.ndim if isinstance(x, SparseTensor) else x._value.ndim
    if rank < 2:
        raise ValueError(
            f"{op}: {arg} must have rank >= 2 (the last dimension holds the sets). "
            f"Received: {arg} of shape {list(x.shape)}"
        )
    return x


def _validate(indices: np.ndarray, shape: np.ndarray, op: str, arg: str) -> None:
    """TensorFlow's ``validate_indices``: in bounds and in strictly increasing row-major order."""
    if not len(indices):
        return
    bad = np.nonzero(np.any((indices < 0) | (indices >= shape), axis=1))[0]
    if len(bad):
        i = int(bad[0])
        raise InvalidArgumentError(
            f"{op}: {arg} index {indices[i].tolist()} is out of bounds of dense_shape "
            f"{shape.tolist()}."
        )
    flat = np.ravel_multi_index(indices.T, tuple(shape.tolist())) if shape.all() else None
    if flat is not None and len(flat) > 1:
        bad = np.nonzero(np.diff(flat) <= 0)[0]
        if len(bad):
            i = int(bad[0]) + 1
            raise InvalidArgumentError(
                f"{op}: {arg} indices are not in strictly increasing row-major order at entry "
                f"{i}: {indices[i - 1].tolist()} then {indices[i].tolist()}."
            )


def _groups_dense(values: np.ndarray) -> dict:
    lead = values.shape[:-1]
    rows = values.reshape(int(np.prod(lead)), values.shape[-1])
    return {np.unravel_index(i, lead): set(rows[i].tolist()) for i in range(len(rows))}


def _groups_sparse(indices: np.ndarray, values: np.ndarray) -> dict:
    groups: dict = {}
    for idx, v in zip(map(tuple, indices[:, :-1].tolist()), values.tolist()):
        groups.setdefault(idx, set()).add(v)
    return groups


_APPLY = {
    "intersection": lambda a, b: a & b,
    "union": lambda a, b: a | b,
    "a-b": lambda a, b: a - b,
    "b-a": lambda a, b: b - a,
}


def _result(groups: dict, group_shape: tuple, dtype: np.dtype):
    """The SparseTensor parts of ``{group index: set}``: groups in row-major order, values
    sorted within each."""
    indices, values, width = [], [], 0
    for g in sorted(groups):
        members = sorted(groups[g])
        width = max(width, len(members))
        indices.extend((*g, j) for j in range(len(members)))
        values.extend(members)
    rank = len(group_shape) + 1
    idx = np.array(indices, np.int64).reshape(-1, rank)
    vals = np.empty(len(values), dtype)
    vals[:] = values
    return idx, vals, np.array([*group_shape, width], np.int64)


def _set_op_fwd(xp, *arrays, operation, a_sparse, b_sparse, validate, op):
    parts = list(arrays)
    shapes, groups = [], []
    for sparse, arg in ((a_sparse, "a"), (b_sparse, "b")):
        if sparse:
            indices, values, shape = (np.asarray(p) for p in parts[:3])
            del parts[:3]
            if validate:
                _validate(indices, shape, op, arg)
            shapes.append(tuple(shape[:-1].tolist()))
            groups.append(_groups_sparse(indices, values))
            dtype = values.dtype
        else:
            values = np.asarray(parts.pop(0))
            shapes.append(values.shape[:-1])
            groups.append(_groups_dense(values))
            dtype = values.dtype
    if shapes[0] != shapes[1]:
        raise InvalidArgumentError(
            f"{op}: a and b must have the same shape but for the last dimension. "
            f"Received: group shapes {list(shapes[0])} and {list(shapes[1])}"
        )
    empty: set = set()
    apply = _APPLY[operation]
    out = {}
    for g in groups[0].keys() | groups[1].keys():
        s = apply(groups[0].get(g, empty), groups[1].get(g, empty))
        if s:
            out[g] = s
    return _result(out, shapes[0], dtype)


_set_op = Primitive("SetOperation", _set_op_fwd, n_out=3)
defvjp(_set_op, *([None] * 6))  # set operations have no gradient (TensorFlow: NotDifferentiable)


def _set_operation(a, b, operation: str, validate_indices: bool, op: str) -> SparseTensor:
    a, b = _operand(a, op, "a"), _operand(b, op, "b")
    if a.dtype != b.dtype:
        raise TypeError(
            f"{op}: a and b must have the same dtype. Received: {a.dtype.name} and {b.dtype.name}"
        )
    inputs: list = []
    for x in (a, b):
        if isinstance(x, SparseTensor):
            inputs.extend((x.indices, x.values, x.dense_shape))
        else:
            inputs.append(x)
    params = {
        "operation": operation,
        "a_sparse": isinstance(a, SparseTensor),
        "b_sparse": isinstance(b, SparseTensor),
        "validate": bool(validate_indices),
        "op": op,
    }
    return SparseTensor(*dispatch(_set_op, tuple(inputs), params))


def set_intersection(a, b, validate_indices=True) -> SparseTensor:
    """The intersection of the sets in the last dimension of ``a`` and ``b`` (follows
    `tf.sets.intersection`, also `tf.sets.set_intersection`).

    Args:
        a, b: dense Tensors or SparseTensors of rank ``R >= 2`` and one dtype (int8, int16,
            int32, int64, uint8, uint16 or string); their first ``R - 1`` dimensions must be
            equal. Sparse indices must be in row-major order.
        validate_indices: check that sparse indices are in bounds and in row-major order.

    Returns:
        A SparseTensor of ``a``'s dtype and shape ``a.shape[:-1] + [n]``, ``n`` the largest
        result set; the values of each group sorted ascending.

    Raises:
        TypeError: an invalid dtype, or ``a`` and ``b`` of different dtypes.
        ValueError: rank < 2.
        InvalidArgumentError: different leading shapes; unordered or out-of-bounds indices.

    >>> a = ek.sparse.SparseTensor([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 0],
    ...                             [1, 1, 1]], [1, 2, 3, 4, 5, 6], [2, 2, 2])
    >>> b = ek.sparse.SparseTensor([[0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 1, 0], [1, 0, 0],
    ...                             [1, 0, 1], [1, 1, 0], [1, 1, 1]],
    ...                            [1, 2, 3, 3, 4, 5, 6, 7], [2, 2, 3])
    >>> res = ek.sets.intersection(a, b)
    >>> res.indices.numpy().tolist(), res.values.numpy().tolist(), res.dense_shape.numpy()
    ([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 0]], [1, 2, 3, 4, 6], array([2, 2, 2]))
    """
    return _set_operation(a, b, "intersection", validate_indices, "set_intersection")


def set_union(a, b, validate_indices=True) -> SparseTensor:
    """The union of the sets in the last dimension of ``a`` and ``b`` (follows
    `tf.sets.union`, also `tf.sets.set_union`). Arguments, result and errors as in
    `set_intersection`.

    >>> res = ek.sets.union(ek.constant([["a", "b"], ["c", "c"]]), ek.constant([["b"], ["a"]]))
    >>> ek.sparse.to_dense(res).numpy()
    array([[b'a', b'b'],
           [b'a', b'c']], dtype=object)
    """
    return _set_operation(a, b, "union", validate_indices, "set_union")


def set_difference(a, b, aminusb=True, validate_indices=True) -> SparseTensor:
    """The set difference ``a - b`` (``aminusb=True``) or ``b - a`` of the sets in the last
    dimension (follows `tf.sets.difference`, also `tf.sets.set_difference`). Arguments,
    result and errors as in `set_intersection`.

    >>> a = ek.constant([[1, 2, 3], [4, 5, 6]])
    >>> b = ek.constant([[2, 9], [4, 5]])
    >>> ek.sparse.to_dense(ek.sets.difference(a, b)).numpy()
    array([[1, 3],
           [6, 0]], dtype=int32)
    >>> ek.sparse.to_dense(ek.sets.difference(a, b, aminusb=False)).numpy()
    array([[9],
           [0]], dtype=int32)
    """
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices, "set_difference")


def _size_fwd(xp, indices, values, dense_shape, validate):
    indices, values, shape = np.asarray(indices), np.asarray(values), np.asarray(dense_shape)
    if validate:
        _validate(indices, shape, "set_size", "a")
    out = np.zeros(tuple(shape[:-1].tolist()), np.int32)
    for g, members in _groups_sparse(indices, values).items():
        out[g] = len(members)
    return out


_size = Primitive("SetSize", _size_fwd)
defvjp(_size, None, None, None)


def set_size(a, validate_indices=True) -> Tensor:
    """The number of distinct values in each set of the last dimension of ``a`` (follows
    `tf.sets.size`, also `tf.sets.set_size`).

    Args:
        a: a SparseTensor of rank ``R >= 2`` (int8, int16, int32, int64, uint8, uint16 or
            string values), indices in row-major order.
        validate_indices: check that the indices are in bounds and in row-major order.

    Returns:
        int32 of shape ``a.dense_shape[:-1]``; 0 for empty sets.

    Raises:
        TypeError: ``a`` is not a SparseTensor (as TensorFlow), or of an invalid dtype.
        ValueError: rank < 2. InvalidArgumentError: unordered or out-of-bounds indices.

    >>> a = ek.sparse.SparseTensor([[0, 0], [0, 1], [0, 2], [2, 0]], [5, 5, 7, 1], [3, 4])
    >>> ek.sets.size(a).numpy()
    array([2, 0, 1], dtype=int32)
    """
    if not isinstance(a, SparseTensor):
        raise TypeError(
            f"set_size: a must be a SparseTensor. Received: a of type {type(a).__name__}"
        )
    a = _operand(a, "set_size", "a")
    return dispatch(_size, (a.indices, a.values, a.dense_shape), {"validate": validate_indices})


intersection = set_intersection
union = set_union
difference = set_difference
size = set_size
