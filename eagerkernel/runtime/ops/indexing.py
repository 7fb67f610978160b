"""Selections: indexing (``t[...]``), gather, gather_nd, scatter_nd, slice, boolean_mask.

Each selection has a scatter-add VJP whose own VJP is the selection again, so repeated
indices accumulate and second derivatives work. Index checks cost one reduction.

An index out of range is TensorFlow's `~ek.errors.InvalidArgumentError` (its CPU kernels check
every index), naming the op, the index, the axis and the shape; it is a ValueError, not an
IndexError, as in TensorFlow. The index checks are made in the forwards, so that a graph
function (`ek.function`) checks the indices of every call, not only those it was traced with.
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from ..core.composite import CompositeTensor
from ..core.dispatch import Primitive, copy_to_device, defjointvjp, defvjp
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ..extension_dispatch import dispatchable
from ._core import apply
from ._core import tensor as _tensor
from .array_ops import axis_arg, check_range, index_tensor, int_list, invalid

__all__ = [
    "boolean_mask",
    "gather",
    "gather_nd",
    "reverse_sequence",
    "scatter_nd",
    "slice",
    "strided_slice",
    "tensor_scatter_nd_add",
    "tensor_scatter_nd_max",
    "tensor_scatter_nd_min",
    "tensor_scatter_nd_sub",
    "tensor_scatter_nd_update",
]  # and getitem, bound as []

_Slice = builtins.slice  # `slice` below is TensorFlow's op

# -- gather and scatter -------------------------------------------------------------------------
# With batch_dims b and axis a, params is viewed as (bn, N, M..., R...): the b batch axes
# flattened to bn, the gathered axis of length N, the M = a - b axes between, the rest R.


def _gather_layout(xp, shape, indices, axis, b):
    bn = math.prod(shape[:b])
    idx = indices.reshape((bn, *indices.shape[b:]))
    bidx = xp.arange(bn).reshape((bn,) + (1,) * (idx.ndim - 1))
    return bn, idx, bidx, idx.ndim - 1, axis - b


def _gather_fwd(xp, params, indices, axis, batch_dims):
    check_range("gather", indices, params.shape[axis], axis, params.shape)
    if batch_dims == 0:  # a scalar index gives a 0-d array, not a bare (bytes) element
        return xp.asarray(params.take(indices, axis=axis), dtype=params.dtype)
    s = params.shape
    bn, idx, bidx, k, m = _gather_layout(xp, s, indices, axis, batch_dims)
    p = xp.moveaxis(params.reshape((bn, *s[batch_dims:])), m + 1, 1)
    out = p[bidx, idx]  # (bn, I..., M..., R...)
    perm = (0, *range(1 + k, 1 + k + m), *range(1, 1 + k), *range(1 + k + m, out.ndim))
    return out.transpose(perm).reshape(s[:axis] + indices.shape[batch_dims:] + s[axis + 1 :])


def _gather_grad_fwd(xp, g, indices, shape, axis, batch_dims):
    out = xp.zeros(shape, dtype=g.dtype)
    bn, idx, bidx, k, m = _gather_layout(xp, shape, indices, axis, batch_dims)
    view = xp.moveaxis(out.reshape((bn, *shape[batch_dims:])), m + 1, 1)
    g = g.reshape((bn, *g.shape[batch_dims:]))  # (bn, M..., I..., R...)
    perm = (0, *range(1 + m, 1 + m + k), *range(1, 1 + m), *range(1 + m + k, g.ndim))
    xp.add.at(view, (bidx, idx), g.transpose(perm))
    return out


_gather = Primitive("GatherV2", _gather_fwd)
_gather_grad = Primitive("GatherGrad", _gather_grad_fwd)
defvjp(
    _gather,
    lambda g, ans, x, i, axis, batch_dims: apply(
        _gather_grad, (g, i), {"shape": x._value.shape, "axis": axis, "batch_dims": batch_dims}
    ),
    None,
)
defvjp(
    _gather_grad,
    lambda g, ans, x, i, shape, axis, batch_dims: apply(
        _gather, (g, i), {"axis": axis, "batch_dims": batch_dims}
    ),
    None,
)


@dispatchable
def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None) -> Tensor:
    """Gathers slices of ``params`` along ``axis`` at ``indices`` (follows `tf.gather`).

    Args:
        params: shape ``P``, rank >= 1.
        indices: int32/int64, shape ``I``; entries in ``[0, P[axis])``.
        validate_indices: ignored (indices are always checked), as in TensorFlow 2.
        axis: default ``batch_dims``; in ``[-rank, rank)``.
        batch_dims: leading axes shared by ``params`` and ``indices``, ``<= axis``.

    Returns:
        Shape ``P[:axis] + I[batch_dims:] + P[axis + 1:]``. The gradient scatter-adds, so
        repeated indices accumulate.

    Raises:
        InvalidArgumentError: an index out of range (index and axis size named), a bad
            ``axis``/``batch_dims`` or batch shapes that differ.
        TypeError: non-integer indices.

    >>> ek.gather(ek.constant([[1, 2], [3, 4], [5, 6]]), [2, 0]).numpy()
    array([[5, 6], [1, 2]], dtype=int32)
    """
    if (type(params) is not Tensor and isinstance(params, CompositeTensor)) or (
        type(indices) is not Tensor and isinstance(indices, CompositeTensor)
    ):  # a RaggedTensor
        from ..ragged.ragged_ops import gather as ragged_gather

        return ragged_gather(params, indices, axis, batch_dims)
    x = _tensor(params, "gather")
    i = index_tensor(indices, x, "gather")
    s, si = x._value.shape, i._value.shape
    b = operator.index(batch_dims)
    if b < 0:
        b += len(si)
    a = axis_arg(b if axis is None else axis, len(s), "gather")
    if not 0 <= b <= min(a, len(si)) or s[:b] != si[:b]:
        raise invalid(
            "gather",
            f"gather: batch_dims={batch_dims} must be <= axis ({a}) and <= rank(indices), and "
            f"the batch axes must agree; got params shape {tuple(s)}, indices shape {tuple(si)}.",
        )
    return apply(_gather, (x, i), {"axis": a, "batch_dims": b})


def _nd_key(xp, shape, indices, b):
    """The shape with batch axes flattened, and the index tuple gather_nd applies to it."""
    bn = math.prod(shape[:b])
    idx = indices.reshape((bn, *indices.shape[b:]))
    bidx = xp.arange(bn).reshape((bn,) + (1,) * (idx.ndim - 2))
    bidx = xp.broadcast_to(bidx, idx.shape[:-1])  # also with empty index vectors (k = 0)
    return (bn, *shape[b:]), (bidx, *(idx[..., j] for j in range(idx.shape[-1])))


def _check_nd_range(op: str, shape: tuple, indices, b: int) -> None:
    """InvalidArgumentError unless each of the ``k`` columns of ``indices`` (shape ``[...,
    k]``) lies in its axis ``b + j`` of ``shape``."""
    for j in range(indices.shape[-1]):
        check_range(op, indices[..., j], shape[b + j], b + j, shape)


def _gather_nd_fwd(xp, params, indices, batch_dims):
    _check_nd_range("gather_nd", params.shape, indices, batch_dims)
    flat, key = _nd_key(xp, params.shape, indices, batch_dims)
    b, k = batch_dims, indices.shape[-1]
    return params.reshape(flat)[key].reshape(
        params.shape[:b] + indices.shape[b:-1] + params.shape[b + k :]
    )


def _scatter_nd_fwd(xp, g, indices, shape, batch_dims):
    _check_nd_range("scatter_nd", shape, indices, batch_dims)
    out = xp.zeros(shape, dtype=g.dtype)
    flat, key = _nd_key(xp, shape, indices, batch_dims)
    xp.add.at(out.reshape(flat), key, g.reshape((flat[0], *g.shape[batch_dims:])))
    return out


_gather_nd = Primitive("GatherNd", _gather_nd_fwd)
_scatter_nd = Primitive("ScatterNd", _scatter_nd_fwd)
defvjp(
    _gather_nd,
    lambda g, ans, x, i, batch_dims: apply(
        _scatter_nd, (g, i), {"shape": x._value.shape, "batch_dims": batch_dims}
    ),
    None,
)
defvjp(
    _scatter_nd,
    lambda g, ans, x, i, shape, batch_dims: apply(_gather_nd, (g, i), {"batch_dims": batch_dims}),
    None,
)


def _check_nd(op: str, shape: tuple, i: Tensor, b: int, min_rank: int = 1) -> None:
    """The indices' shape against ``shape`` (their values are checked by the forward); the
    scatters take ``min_rank=2``, as TensorFlow's kernels refuse 1-D indices."""
    si = i._value.shape
    if len(si) < min_rank or not b < len(si) or shape[:b] != si[:b] or si[-1] > len(shape) - b:
        raise invalid(
            op,
            f"{op}: indices must have shape [batch..., ..., k] (rank >= {max(min_rank, b + 1)}) "
            f"with k <= rank - batch_dims, got indices shape {tuple(si)} for shape "
            f"{tuple(shape)} and batch_dims={b}.",
        )


def gather_nd(params, indices, batch_dims=0, name=None) -> Tensor:
    """Gathers slices of ``params`` at multi-indices ``indices[..., :]`` (follows `tf.gather_nd`).

    Args:
        params: shape ``P``.
        indices: int, shape ``P[:batch_dims] + I + [k]`` with ``k <= rank - batch_dims``.

    Returns:
        Shape ``P[:batch_dims] + I + P[batch_dims + k:]``; repeated indices accumulate in the
        gradient.

    Raises:
        InvalidArgumentError: an index out of range, a bad indices shape or scalar params.
        TypeError: non-integer indices.

    >>> ek.gather_nd(ek.constant([[1, 2], [3, 4]]), [[1, 0], [0, 1]]).numpy()
    array([3, 2], dtype=int32)
    """
    x = _tensor(params, "gather_nd")
    if not x._value.shape:  # TF's GatherNd kernel, whatever the indices
        raise invalid("gather_nd", "gather_nd: params must be at least a vector, got a scalar.")
    i = index_tensor(indices, x, "gather_nd")
    b = operator.index(batch_dims)
    _check_nd("gather_nd", x._value.shape, i, b)
    return apply(_gather_nd, (x, i), {"batch_dims": b})


def scatter_nd(indices, updates, shape, name=None) -> Tensor:
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (follows `tf.scatter_nd`).

    Args:
        indices: int, shape ``I + [k]``; repeated indices add up.
        updates: shape ``I + shape[k:]``; the gradient with respect to it is `gather_nd`.
        shape: the output shape.

    Raises:
        InvalidArgumentError: inconsistent shapes or an index out of range.

    >>> ek.scatter_nd([[1], [1]], ek.constant([1.0, 2.0]), [3]).numpy()
    array([0., 3., 0.], dtype=float32)
    """
    u = _tensor(updates, "scatter_nd")
    i = index_tensor(indices, u, "scatter_nd")
    out = int_list(shape, "scatter_nd", "shape")
    _check_nd("scatter_nd", out, i, 0, 2)
    expected = i._value.shape[:-1] + out[i._value.shape[-1] :]
    if u._value.shape != expected:
        raise invalid(
            "scatter_nd",
            f"scatter_nd: updates must have shape {expected} for indices shape "
            f"{tuple(i._value.shape)} and shape {out}, got {tuple(u._value.shape)}.",
        )
    return apply(_scatter_nd, (u, i), {"shape": out, "batch_dims": 0})


# -- tensor_scatter_nd_* ------------------------------------------------------------------------
# A copy of ``tensor`` with ``updates`` written, added, subtracted or min/max-ed in at
# ``indices``: one Primitive each, inputs (tensor, indices, updates).


def _tensor_scatter_fwd(how, op: str):
    def fwd(xp, x, indices, updates):
        _check_nd_range(op, x.shape, indices, 0)
        out = x.copy()
        flat, key = _nd_key(xp, x.shape, indices, 0)
        u = updates.reshape((1, *updates.shape))
        if how is None:
            out.reshape(flat)[key] = u  # repeated indices: one of the updates wins, as in TF
        elif how in ("minimum", "maximum") and u.dtype.kind == "f":
            # TF's min is `u < out ? u : out`: NaN updates are skipped, NaNs in tensor stay
            u = xp.where(xp.isnan(u), u.dtype.type(np.inf if how == "minimum" else -np.inf), u)
            getattr(xp, how).at(out.reshape(flat), key, u)
        else:
            getattr(xp, how).at(out.reshape(flat), key, u)
        return out

    return fwd


_ts_update = Primitive("TensorScatterUpdate", _tensor_scatter_fwd(None, "tensor_scatter_nd_update"))
_ts_add = Primitive("TensorScatterAdd", _tensor_scatter_fwd("add", "tensor_scatter_nd_add"))
_ts_sub = Primitive("TensorScatterSub", _tensor_scatter_fwd("subtract", "tensor_scatter_nd_sub"))
_ts_min = Primitive("TensorScatterMin", _tensor_scatter_fwd("minimum", "tensor_scatter_nd_min"))
_ts_max = Primitive("TensorScatterMax", _tensor_scatter_fwd("maximum", "tensor_scatter_nd_max"))


def _gather_g(g, ans, x, i, u):
    return apply(_gather_nd, (g, i), {"batch_dims": 0})


def _update_x_grad(g, ans, x, i, u):
    zeros = _gather_g(g, ans, x, i, u) * 0
    return apply(_ts_update, (g, i, zeros))


def _min_max_grads(g, ans, x, i, u):
    # TensorFlow's _TensorScatterMinOrMaxGrad: the cotangent goes to the inputs equal to the
    # output, split evenly between ties.
    from .elementwise import cast, equal

    x_ind = cast(equal(x, ans), g.dtype)
    u_ind = cast(equal(u, apply(_gather_nd, (ans, i), {"batch_dims": 0})), g.dtype)
    count = x_ind + apply(_scatter_nd, (u_ind, i), {"shape": x._value.shape, "batch_dims": 0})
    share = g / count
    return g * x_ind / count, None, apply(_gather_nd, (share, i), {"batch_dims": 0}) * u_ind


defvjp(_ts_update, _update_x_grad, None, _gather_g)
defvjp(_ts_add, lambda g, ans, x, i, u: g, None, _gather_g)
defvjp(
    _ts_sub, lambda g, ans, x, i, u: g, None, lambda g, ans, x, i, u: -_gather_g(g, ans, x, i, u)
)
defjointvjp(_ts_min, _min_max_grads)
defjointvjp(_ts_max, _min_max_grads)


def _tensor_scatter(prim: Primitive, op: str, tensor, indices, updates) -> Tensor:
    x = _tensor(tensor, op)
    i = index_tensor(indices, x, op)
    u = _tensor(updates, op, x._value.dtype)
    if u._value.dtype != x._value.dtype:
        raise invalid(
            op,
            f"{op}: updates must have the dtype of tensor ({x.dtype.name}), got {u.dtype.name}.",
        )
    shape = x._value.shape
    _check_nd(op, shape, i, 0, 2)
    expected = i._value.shape[:-1] + shape[i._value.shape[-1] :]
    if u._value.shape != expected:
        raise invalid(
            op,
            f"{op}: updates must have shape {expected} for indices shape "
            f"{tuple(i._value.shape)} and tensor shape {tuple(shape)}, got "
            f"{tuple(u._value.shape)}.",
        )
    return apply(prim, (x, i, u))


def tensor_scatter_nd_update(tensor, indices, updates, name=None) -> Tensor:
    """A copy of ``tensor`` with ``updates`` written at ``indices`` (follows
    `tf.tensor_scatter_nd_update`).

    Args:
        tensor: shape ``S``.
        indices: int, shape ``I + [k]`` with ``k <= rank(tensor)``; each row indexes an element
            (``k == rank``) or a slice ``S[k:]``.
        updates: shape ``I + S[k:]``, ``tensor``'s dtype (Python values are converted to it).
            With repeated indices one of the updates is kept.

    Returns:
        Shape ``S``, ``tensor``'s dtype. Gradients: ``tensor`` gets the cotangent with zeros at
        ``indices``; ``updates`` gets the cotangent gathered at ``indices``.

    Raises:
        InvalidArgumentError: an index out of range, a bad indices or updates shape, or updates
            of another dtype.
        TypeError: non-integer indices.

    >>> ek.tensor_scatter_nd_update(ek.constant([1, 2, 3]), [[0], [2]], [9, 7]).numpy()
    array([9, 2, 7], dtype=int32)
    """
    return _tensor_scatter(_ts_update, "tensor_scatter_nd_update", tensor, indices, updates)


def tensor_scatter_nd_add(tensor, indices, updates, name=None) -> Tensor:
    """A copy of ``tensor`` with ``updates`` added at ``indices``; repeated indices add up
    (follows `tf.tensor_scatter_nd_add`).

    Shapes, dtypes and errors as `tensor_scatter_nd_update`. Gradients: ``tensor`` gets the
    cotangent, ``updates`` the cotangent gathered at ``indices``.

    >>> ek.tensor_scatter_nd_add(ek.constant([[2, 7, 0], [9, 0, 1], [0, 3, 8]]),
    ...                          [[0, 2], [1, 1], [2, 0]], [6, 5, 4]).numpy()
    array([[2, 7, 6],
           [9, 5, 1],
           [4, 3, 8]], dtype=int32)
    """
    return _tensor_scatter(_ts_add, "tensor_scatter_nd_add", tensor, indices, updates)


def tensor_scatter_nd_sub(tensor, indices, updates, name=None) -> Tensor:
    """A copy of ``tensor`` with ``updates`` subtracted at ``indices``; repeated indices
    subtract each update (follows `tf.tensor_scatter_nd_sub`).

    Shapes, dtypes and errors as `tensor_scatter_nd_update`. Gradients: ``tensor`` gets the
    cotangent, ``updates`` minus the cotangent gathered at ``indices``.

    >>> ek.tensor_scatter_nd_sub(ek.constant([5, 5]), [[1], [1]], [1, 2]).numpy()
    array([5, 2], dtype=int32)
    """
    return _tensor_scatter(_ts_sub, "tensor_scatter_nd_sub", tensor, indices, updates)


def tensor_scatter_nd_min(tensor, indices, updates, name=None) -> Tensor:
    """A copy of ``tensor`` where each indexed element is the minimum of itself and its
    updates (follows `tf.tensor_scatter_nd_min`).

    Shapes, dtypes and errors as `tensor_scatter_nd_update`. Gradients as TensorFlow's: the
    cotangent of an output element goes to the inputs equal to it (``tensor``'s element and/or
    updates), split evenly between ties.

    >>> ek.tensor_scatter_nd_min(ek.constant([-2, 0, 1]), [[0], [1]], [-6, 3]).numpy()
    array([-6,  0,  1], dtype=int32)
    """
    return _tensor_scatter(_ts_min, "tensor_scatter_nd_min", tensor, indices, updates)


def tensor_scatter_nd_max(tensor, indices, updates, name=None) -> Tensor:
    """A copy of ``tensor`` where each indexed element is the maximum of itself and its
    updates (follows `tf.tensor_scatter_nd_max`).

    Shapes, dtypes, errors and gradients as `tensor_scatter_nd_min`, with the maximum.

    >>> ek.tensor_scatter_nd_max(ek.constant([-2, 0, 1]), [[0], [1]], [6, -3]).numpy()
    array([6, 0, 1], dtype=int32)
    """
    return _tensor_scatter(_ts_max, "tensor_scatter_nd_max", tensor, indices, updates)


# -- indexing -----------------------------------------------------------------------------------


def _getitem_grad_fwd(xp, g, shape, key):
    out = xp.zeros(shape, dtype=g.dtype)
    parts = key if type(key) is tuple else (key,)
    if any(getattr(k, "ndim", 0) and k.dtype.kind != "b" for k in parts):
        xp.add.at(out, key, g)  # integer arrays may repeat an index: accumulate
    else:
        out[key] = g  # basic indexing and masks select each element at most once
    return out


def _getitem_fwd(xp, x, key):
    try:
        out = x[key]
    except IndexError:  # named as TensorFlow's error, also in a graph function's replay
        raise _getitem_error(key, tuple(x.shape)) from None
    except ValueError:  # NumPy's "slice step cannot be zero"; TensorFlow's StridedSlice says
        parts = key if type(key) is tuple else (key,)
        i = next((i for i, k in enumerate(parts) if isinstance(k, _Slice) and k.step == 0), None)
        if i is None:
            raise
        raise InvalidArgumentError(
            None, "getitem", f"getitem: strides[{i}] must be non-zero, got {parts[i]}."
        ) from None
    # An element of a string (object) array is `bytes`; a tensor's value is an array.
    return out if type(out) is not bytes else np.asarray(out, dtype=object)


_getitem = Primitive("StridedSlice", _getitem_fwd)
_getitem_grad = Primitive("StridedSliceGrad", _getitem_grad_fwd)
defvjp(
    _getitem,
    lambda g, ans, x, key: apply(_getitem_grad, (g,), {"shape": x._value.shape, "key": key}),
)
defvjp(_getitem_grad, lambda g, ans, x, shape, key: apply(_getitem, (g,), {"key": key}))


def _boolean_mask_fwd(xp, x, mask, axis: int):
    return x[(_Slice(None),) * axis + (mask,)]


def _boolean_mask_grad_fwd(xp, g, mask, shape: tuple, axis: int):
    out = xp.zeros(shape, g.dtype)
    out[(_Slice(None),) * axis + (mask,)] = g
    return out


# The mask is an input (not a param), so a graph function replays the op with each call's mask.
_boolean_mask = Primitive("BooleanMask", _boolean_mask_fwd)
_boolean_mask_grad = Primitive("BooleanMaskGrad", _boolean_mask_grad_fwd)
defvjp(
    _boolean_mask,
    lambda g, ans, x, mask, axis: apply(
        _boolean_mask_grad, (g, mask), {"shape": tuple(x._value.shape), "axis": axis}
    ),
    None,
)
defvjp(
    _boolean_mask_grad,
    lambda g, ans, gg, mask, shape, axis: apply(_boolean_mask, (g, mask), {"axis": axis}),
    None,
)


class IndexInput:
    """Where a tensor index sits in a tuple key (`_getitem_dynamic`): the op's input ``i``
    (saved models store it as ``{"index_input": i}``)."""

    __slots__ = ("i",)

    def __init__(self, i: int):
        self.i = i

    def __repr__(self) -> str:
        return f"<index input {self.i}>"


def _fill_key(template: tuple, idx: tuple) -> tuple:
    return tuple(idx[k.i] if type(k) is IndexInput else k for k in template)


# A tuple key holding tensors (``x[1, i]``): the tensors are the op's inputs, so that a traced
# `ek.function` reads them at every call instead of keeping the trace's values.
_getitem_dynamic = Primitive(
    "StridedSliceDynamic",
    lambda xp, x, *idx, template: _getitem_fwd(xp, x, _fill_key(template, idx)),
)
_getitem_dynamic_grad = Primitive(
    "StridedSliceDynamicGrad",
    lambda xp, g, *idx, shape, template: _getitem_grad_fwd(xp, g, shape, _fill_key(template, idx)),
)
defjointvjp(
    _getitem_dynamic,
    lambda g, ans, x, *idx, template: (
        apply(_getitem_dynamic_grad, (g, *idx), {"shape": x._value.shape, "template": template}),
        *([None] * len(idx)),
    ),
)
defjointvjp(
    _getitem_dynamic_grad,
    lambda h, ans, g, *idx, shape, template: (
        apply(_getitem_dynamic, (h, *idx), {"template": template}),
        *([None] * len(idx)),
    ),
)


def _getitem_with_tensors(x: Tensor, key: tuple) -> Tensor:
    xp = x._device.xp
    template, idx = [], []
    for k in key:
        if isinstance(k, Tensor):
            _index(k, xp)  # integer or bool (TypeError otherwise)
            template.append(IndexInput(len(idx)))
            # An index is read where the indexed array lives (TF keeps indices in host memory).
            idx.append(k if k._device is x._device else copy_to_device(k, x._device))
        else:
            template.append(_index(k, xp))
    return apply(_getitem_dynamic, (x, *idx), {"template": tuple(template)})


def _index(k, xp):
    if k is None or k is Ellipsis or isinstance(k, (int, _Slice, np.integer)):
        return k
    if isinstance(k, Tensor):
        v = k._value
    elif isinstance(k, (list, tuple, np.ndarray)):
        v = np.asarray(k)
        if v.size == 0 and v.dtype.kind == "f":
            v = v.astype(np.intp)
        v = xp.asarray(v)  # index arrays live where the indexed array does
    elif hasattr(k, "__cuda_array_interface__"):
        v = k
    else:
        raise TypeError(
            f"getitem: invalid index {k!r:.60}: only ints, slices, Ellipsis, None (newaxis) "
            "and integer or boolean arrays/tensors are valid indices."
        )
    if v.dtype.kind not in "iub":
        raise TypeError(f"getitem: index arrays must be integer or bool, got {v.dtype.name}.")
    return v


def getitem(x, key) -> Tensor:
    """NumPy-style indexing, differentiable (``Tensor.__getitem__``).

    Basic indexing (ints, slices, ``...``, None) and advanced indexing (int lists, arrays or
    tensors; bool masks) as in NumPy. In the gradient, repeated indices accumulate.

    Raises:
        InvalidArgumentError: an index out of range, or more indices than axes (the index,
            axis and shape are named).
        TypeError: an index of another type (floats, strings, float tensors).

    >>> t = ek.constant([[1.0, 2.0], [3.0, 4.0]])
    >>> t[1, ::-1].numpy(), t[..., None].shape, t[[0, 0]].shape
    (array([4., 3.], dtype=float32), TensorShape([2, 2, 1]), TensorShape([2, 2]))
    """
    if type(x) is not Tensor:
        x = _tensor(x, "getitem")
    t = type(key)
    if t is tuple:
        for k in key:
            if isinstance(k, Tensor):
                return _getitem_with_tensors(x, key)
        xp = x._device.xp
        key = tuple([_index(k, xp) for k in key])
    elif t is not int and t is not _Slice:
        key = _index(key, x._device.xp)
    return apply(_getitem, (x,), {"key": key})


def _getitem_error(key, shape: tuple) -> InvalidArgumentError:
    """Names the first index that does not fit ``shape`` (NumPy's IndexError does not)."""
    parts = key if type(key) is tuple else (key,)
    used = sum(
        max(k.ndim, 1) if _is_mask(k) else (k is not None and k is not Ellipsis) for k in parts
    )
    msg = None
    if used > len(shape):
        msg = f"{used} indices for a tensor of rank {len(shape)} (shape {shape})"
    else:
        axis = 0
        for pos, k in enumerate(parts):
            if k is None:
                continue
            if k is Ellipsis:
                axis = len(shape) - sum(
                    1 for k2 in parts[pos + 1 :] if k2 is not None and k2 is not Ellipsis
                )
                continue
            n = shape[axis] if axis < len(shape) else 0
            if _is_mask(k):
                axis += max(k.ndim, 1)
                continue
            if isinstance(k, _Slice):
                axis += 1
                continue
            vals = [int(k)] if not getattr(k, "ndim", 0) else [int(k.min()), int(k.max())]
            bad = next((v for v in vals if not -n <= v < n), None)
            if bad is not None:
                msg = f"index {bad} is out of range [{-n}, {n}) for axis {axis} of shape {shape}"
                break
            axis += 1
    if msg is None:
        msg = f"index {key!r:.80} does not fit a tensor of shape {shape}"
    return InvalidArgumentError(None, "getitem", f"getitem: {msg}.")


def _is_mask(k) -> bool:
    dtype = getattr(k, "dtype", None)
    return dtype is not None and dtype.kind == "b"


def slice(input_, begin, size, name=None) -> Tensor:
    """The block of ``size`` starting at ``begin`` (follows `tf.slice`; size -1: to the end).

    Raises InvalidArgumentError for ``begin``/``size`` of the wrong length or reaching outside
    the tensor.

    >>> ek.slice(ek.constant([[1, 2, 3], [4, 5, 6]]), [0, 1], [2, -1]).numpy()
    array([[2, 3], [5, 6]], dtype=int32)
    """
    x = _tensor(input_, "slice")
    s = x._value.shape
    b, n = int_list(begin, "slice", "begin"), int_list(size, "slice", "size")
    ends = tuple(d if m == -1 else o + m for o, m, d in zip(b, n, s))
    if not len(b) == len(n) == len(s) or any(not 0 <= o <= e <= d for o, e, d in zip(b, ends, s)):
        raise invalid(
            "slice",
            f"slice: begin {list(b)} and size {list(n)} do not fit in a tensor of shape "
            f"{tuple(s)}.",
        )
    return apply(_getitem, (x,), {"key": tuple(map(_Slice, b, ends))})


@dispatchable
def boolean_mask(tensor, mask, axis=None, name="boolean_mask") -> Tensor:
    """The entries of ``tensor`` where ``mask`` is true (follows `tf.boolean_mask`).

    Args:
        tensor: shape ``S``.
        mask: bool, rank >= 1, shape ``S[axis:axis + rank(mask)]``.
        axis: where the masked axes start (default 0).

    Returns:
        Shape ``S[:axis] + [number of true entries] + S[axis + rank(mask):]``.

    Raises:
        TypeError: a non-bool mask. ValueError: a mask shape that does not match.

    >>> ek.boolean_mask(ek.constant([1, 2, 3]), [True, False, True]).numpy()
    array([1, 3], dtype=int32)
    """
    x = _tensor(tensor, "boolean_mask")
    m = index_tensor(mask, x, "boolean_mask", "mask", "b")
    s, sm = x._value.shape, m._value.shape
    a = 0 if axis is None else axis_arg(axis, max(len(s), 1), "boolean_mask")
    if not sm or s[a : a + len(sm)] != sm:
        raise ValueError(
            f"boolean_mask: mask shape {tuple(sm)} must match the tensor shape {tuple(s)} "
            f"from axis {a} on (and have rank >= 1)."
        )
    return apply(_boolean_mask, (x, m), {"axis": a})


def strided_slice(
    input_,
    begin,
    end,
    strides=None,
    begin_mask=0,
    end_mask=0,
    ellipsis_mask=0,
    new_axis_mask=0,
    shrink_axis_mask=0,
    var=None,
    name=None,
) -> Tensor:
    """A strided slice described by TensorFlow's vectors and bit masks (follows
    `tf.strided_slice`): the same as indexing with Python slices, which it builds.

    Entry ``i`` of ``begin``/``end``/``strides`` is the slice ``begin[i]:end[i]:strides[i]``
    (strides default to 1), with ``begin`` left out where bit ``i`` of ``begin_mask`` is set,
    ``end`` where ``end_mask``'s is; bit ``i`` of ``ellipsis_mask`` makes entry ``i`` an
    ellipsis, of ``new_axis_mask`` a new axis of length 1, of ``shrink_axis_mask`` the
    single index ``begin[i]`` (that axis is dropped). Differentiable in ``input_``.

    Raises:
        ValueError: ``begin``, ``end`` and ``strides`` of different lengths, a zero stride,
            more than one ellipsis.
        NotImplementedError: ``var`` (TensorFlow's assignment form; use ``Variable[...].assign``).

    >>> ek.strided_slice(ek.reshape(ek.range(12), [3, 4]), [0, 3], [3, 0], [2, -1]).numpy()
    array([[ 3,  2,  1],
           [11, 10,  9]], dtype=int32)
    """
    if var is not None:
        raise NotImplementedError(
            "strided_slice: var= (assignment to a variable's slice) is not supported; use "
            "variable[...].assign(value)."
        )
    op = "strided_slice"
    x = input_ if isinstance(input_, (Tensor, CompositeTensor)) else _tensor(input_, op)
    begin, end = int_list(begin, op, "begin"), int_list(end, op, "end")
    strides = [1] * len(begin) if strides is None else int_list(strides, op, "strides")
    if not len(begin) == len(end) == len(strides):
        raise ValueError(
            "strided_slice: begin, end and strides must have the same length, got "
            f"{len(begin)}, {len(end)} and {len(strides)}."
        )
    if bin(int(ellipsis_mask)).count("1") > 1:
        raise ValueError(f"strided_slice: at most one ellipsis, got ellipsis_mask={ellipsis_mask}.")
    index: list = []
    for i, (b, e, st) in enumerate(zip(begin, end, strides)):
        if int(ellipsis_mask) >> i & 1:
            index.append(Ellipsis)
        elif int(new_axis_mask) >> i & 1:
            index.append(None)
        elif int(shrink_axis_mask) >> i & 1:
            index.append(b)
        else:
            if st == 0:
                raise InvalidArgumentError(
                    None, "strided_slice", f"strided_slice: strides[{i}] must be non-zero, got 0."
                )
            b = None if int(begin_mask) >> i & 1 else b
            e = None if int(end_mask) >> i & 1 else e
            index.append(_Slice(b, e, st))
    return x[tuple(index)]


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None) -> Tensor:
    """Reverses the first ``seq_lengths[b]`` entries along ``seq_axis`` of each slice ``b``
    along ``batch_axis`` (follows `tf.reverse_sequence`; ``batch_axis`` defaults to 0);
    entries past a sequence's length stay where they are. Differentiable in ``input``.

    Raises:
        ValueError: no ``seq_axis``, or ``seq_axis == batch_axis``.
        InvalidArgumentError: ``seq_lengths`` not one length per batch entry, or a length
            outside ``[0, input.shape[seq_axis]]``.

    >>> ek.reverse_sequence([[1, 2, 3], [4, 5, 6]], [2, 3], seq_axis=1).numpy()
    array([[2, 1, 3],
           [6, 5, 4]], dtype=int32)
    """
    from .array_ops import transpose

    op = "reverse_sequence"
    x = _tensor(input, op)
    if seq_axis is None:
        raise ValueError(f"{op}: seq_axis must be given (the axis the sequences run along).")
    batch_axis = 0 if batch_axis is None else batch_axis
    rank = x.ndim
    s = axis_arg(seq_axis, rank, op, "seq_axis")
    b = axis_arg(batch_axis, rank, op, "batch_axis")
    if s == b:
        raise ValueError(f"{op}: seq_axis and batch_axis must differ, both are {s}.")
    lengths = np.asarray(seq_lengths.numpy() if isinstance(seq_lengths, Tensor) else seq_lengths)
    n_batch, n_seq = x._value.shape[b], x._value.shape[s]
    if lengths.shape != (n_batch,) or lengths.dtype.kind not in "iu":
        raise invalid(
            op,
            f"{op}: seq_lengths must be {n_batch} ints (one per entry of batch_axis {b}), got "
            f"{lengths.tolist()!r}.",
        )
    if lengths.size and (lengths.min() < 0 or lengths.max() > n_seq):
        raise invalid(op, f"{op}: seq_lengths must lie in [0, {n_seq}], got {lengths.tolist()}.")
    t = np.arange(n_seq)
    order = np.where(t < lengths[:, None], lengths[:, None] - 1 - t, t)  # [batch, seq]
    perm = [b, s] + [a for a in range(rank) if a not in (b, s)]
    moved = transpose(x, perm)
    out = gather(moved, order.astype(np.int64), axis=1, batch_dims=1)
    return transpose(out, list(np.argsort(perm)))
