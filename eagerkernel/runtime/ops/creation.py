"""Tensor creation: zeros, ones, fill, range, linspace, eye, one_hot and the *_like forms.

New tensors go to the current device (`ek.device` scope, else the default device); the
``*_like`` forms follow their argument's device. None of these is differentiable with respect
to its arguments (as in TensorFlow).

Errors are TensorFlow's: a negative dimension or another bad value is an
`~ek.errors.InvalidArgumentError`, and a tensor too large for the device's free memory an
`~ek.errors.ResourceExhaustedError` raised before anything is allocated.
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from ..core import dtypes
from ..core.allocation import check_allocation, is_oom, out_of_memory
from ..core.composite import CompositeTensor
from ..core.device import current_device
from ..core.dispatch import Primitive, defvjp
from ..core.errors import InvalidArgumentError, UnsupportedDTypeError
from ..core.numpy_methods import STATE as _NUMPY_STATE
from ..core.tensor import Tensor, make
from ..core.type_promotion import STRONG, weak_unary
from ._core import apply, tensor

__all__ = [
    "eye",
    "fill",
    "linspace",
    "one_hot",
    "ones",
    "ones_like",
    "range",
    "zeros",
    "zeros_like",
]


def _shape(shape, op: str) -> tuple:
    if isinstance(shape, Tensor):
        shape = shape.numpy().tolist()
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    try:  # operator.index, not int: 2.5 is refused, never truncated (TensorFlow refuses it)
        shape = tuple(map(operator.index, shape))
    except (TypeError, ValueError):
        raise TypeError(f"{op}: shape must be a sequence of ints, got {shape!r}.") from None
    if shape and min(shape) < 0:
        raise InvalidArgumentError(None, op, f"{op}: shape must be non-negative, got {shape}.")
    return shape


def _dtype(dtype, op: str) -> np.dtype:
    if dtype is None:
        raise TypeError(f"{op}: dtype must be a dtype such as ek.float32, got None.")
    return dtypes.numpy_dtype(dtype)


def _full(op: str, shape: tuple, value, np_dtype, device) -> Tensor:
    """``xp.full`` behind the allocation check; the allocator's failure becomes TF's OOM."""
    check_allocation(op, shape, np_dtype, device)
    if np_dtype.kind == "O" and isinstance(value, np.ndarray):
        value = value[()]
    if np_dtype.kind == "O" and not isinstance(value, bytes):
        if value != 0:
            raise TypeError(f"{op}: a string tensor is filled with strings, got {value!r}.")
        value = b""  # `zeros(shape, ek.string)` is empty strings, as in TensorFlow
    try:
        return make(device.xp.full(shape, value, dtype=np_dtype), device)
    except (MemoryError, ValueError) as exc:
        if is_oom(exc):
            raise out_of_memory(op, shape, np_dtype, device) from None
        raise


def _new(op: str, shape, dtype, fill_value) -> Tensor:
    np_dtype = _dtype(dtype, op)
    if type(shape) is not tuple and type(shape).__name__ == "DynamicRaggedShape":
        from ..ragged.dynamic_ragged_shape import fill_shape

        return fill_shape(shape, make(np.asarray(fill_value, np_dtype), current_device()), op)
    return _full(op, _shape(shape, op), fill_value, np_dtype, current_device())


def zeros(shape, dtype=dtypes.float32, name=None) -> Tensor:
    """A tensor of zeros, default float32 (follows `tf.zeros`).

    Args:
        shape: ints (list, tuple, int or 1-D int Tensor), each >= 0.
        dtype: any eagerkernel dtype.

    Raises:
        InvalidArgumentError: a negative dimension. TypeError: a shape of non-ints.
        ResourceExhaustedError: more bytes than the device has free (nothing is allocated).

    >>> ek.zeros((2,)).numpy()
    array([0., 0.], dtype=float32)
    """
    return _new("zeros", shape, dtype, 0)


def ones(shape, dtype=dtypes.float32, name=None) -> Tensor:
    """A tensor of ones, default float32 (follows `tf.ones`; errors as `zeros`).

    >>> ek.ones([2], ek.int32).numpy()
    array([1, 1], dtype=int32)
    """
    return _new("ones", shape, dtype, 1)


def fill(dims, value, name=None) -> Tensor:
    """A tensor of shape ``dims`` filled with ``value``, of ``value``'s dtype (follows `tf.fill`).

    Args:
        dims: the output shape, ints >= 0.
        value: a scalar; its dtype and device are the output's.

    Raises:
        InvalidArgumentError: a negative dimension or a non-scalar ``value``.
        ResourceExhaustedError: more bytes than the device has free (nothing is allocated).

    >>> ek.fill([2], 9).numpy()
    array([9, 9], dtype=int32)
    """
    v = tensor(value, "fill")
    if type(dims).__name__ == "DynamicRaggedShape":  # a RaggedTensor
        from ..ragged.dynamic_ragged_shape import fill_shape

        if v._value.ndim:
            raise InvalidArgumentError(
                None, "fill", f"fill: value must be a scalar, got shape {tuple(v._value.shape)}."
            )
        return fill_shape(dims, v, "fill")
    shape = _shape(dims, "fill")
    if v._value.ndim:
        raise InvalidArgumentError(
            None, "fill", f"fill: value must be a scalar, got shape {tuple(v._value.shape)}."
        )
    if v._value.dtype.kind in "fc":  # differentiable in value: the tape sums g down to ()
        check_allocation("fill", shape, v._value.dtype, v._device)
        return apply(_fill, (v,), {"shape": shape})
    return _full("fill", shape, v._value, v._value.dtype, v._device)


def _fill_fwd(xp, v, shape):
    try:
        return xp.full(shape, v, dtype=v.dtype)
    except (MemoryError, ValueError) as exc:
        if is_oom(exc):
            raise out_of_memory("fill", shape, v.dtype, current_device()) from None
        raise


_fill = Primitive("Fill", _fill_fwd)
defvjp(_fill, lambda g, ans, v, shape: g)


def _like(x, dtype, value) -> Tensor:
    if type(x) is not Tensor and isinstance(x, CompositeTensor):  # ragged, sparse: values
        return x._ek_unary(lambda values: _like(values, dtype, value))
    x = tensor(x, "zeros_like")
    np_dtype = x._value.dtype if dtype is None else dtypes.numpy_dtype(dtype)
    if np_dtype.kind == "O":
        return _full("zeros_like", x._value.shape, value, np_dtype, x._device)
    xp = x._device.xp
    return make(xp.full(x._value.shape, value, dtype=np_dtype), x._device)


def zeros_like(input, dtype=None, name=None) -> Tensor:
    """Zeros with ``input``'s shape, dtype (unless given) and device (follows `tf.zeros_like`)."""
    if _NUMPY_STATE.promotion is not None and name is not STRONG and dtype is None:
        return weak_unary(zeros_like, input)  # the new type promotion: weak in, weak out
    return _like(input, dtype, 0)


def ones_like(input, dtype=None, name=None) -> Tensor:
    """Ones with ``input``'s shape, dtype (unless given) and device (follows `tf.ones_like`)."""
    if _NUMPY_STATE.promotion is not None and name is not STRONG and dtype is None:
        return weak_unary(ones_like, input)  # the new type promotion: weak in, weak out
    return _like(input, dtype, 1)


# TensorFlow's order for inferring range's dtype: the widest of the arguments' dtypes.
_RANGE_DTYPES = tuple(map(np.dtype, ("int32", "int64", "float16", "float32", "float64")))


def _range_dtype(args) -> np.dtype:
    """The dtype `range` infers from its arguments, each as `convert_to_tensor` types it (a
    Tensor's or NumPy value's own dtype; int32 for a Python int that fits, else int64; float32
    for a Python float); TypeError for one outside int32, int64, float16/32/64."""
    found = []
    for v in args:
        if isinstance(v, Tensor):
            dt = v._value.dtype
        elif isinstance(v, (np.generic, np.ndarray)):
            dt = v.dtype
        elif isinstance(v, bool) or not isinstance(v, (int, float)):
            dt = np.asarray(v).dtype
        elif isinstance(v, float):
            dt = np.dtype(np.float32)
        else:
            dt = np.dtype(np.int32 if -(2**31) <= v < 2**31 else np.int64)
        if dt not in _RANGE_DTYPES:
            raise TypeError(
                f"range: arguments must be int32, int64, float16, float32 or float64; got "
                f"{v!r} of dtype {dtypes.as_dtype(dt).name}."
            )
        found.append(dt)
    return builtins.max(found, key=_RANGE_DTYPES.index)


def range(start, limit=None, delta=1, dtype=None, name="range") -> Tensor:
    """Numbers from ``start`` up to (not including) ``limit`` by ``delta`` (follows `tf.range`).

    ``range(n)`` counts from 0. Unless ``dtype`` is given, it is the widest of the arguments'
    dtypes in TensorFlow's order int32 < int64 < float16 < float32 < float64 (a Tensor's or
    NumPy value's own; int32 for a Python int, float32 for a Python float).

    Raises:
        TypeError: an argument of another dtype (bool, uint8, a string), as in TensorFlow.
        InvalidArgumentError: ``delta`` is 0, or points away from ``limit`` (``start > limit``
            with ``delta > 0``, or ``start < limit`` with ``delta < 0``), as in TensorFlow.
        ResourceExhaustedError: more elements than the device has memory for.

    >>> ek.range(3).numpy(), ek.range(0.0, 1.0, 0.5).numpy()
    (array([0, 1, 2], dtype=int32), array([0. , 0.5], dtype=float32))
    >>> ek.range(ek.constant(3, ek.int64)).dtype, ek.range(ek.constant(2.0, ek.float64)).dtype
    (ek.int64, ek.float64)
    """
    if limit is None:
        start, limit = 0, start
    if dtype is None:
        np_dtype = _range_dtype((start, limit, delta))
    vals = [
        float(v) if isinstance(v, Tensor) and v.dtype.is_floating else v
        for v in (start, limit, delta)
    ]
    vals = [v.numpy().item() if isinstance(v, Tensor) else v for v in vals]
    if dtype is not None and dtypes.numpy_dtype(dtype).kind in "iu":
        # TensorFlow converts a Python float to the integer dtype (TypeError) and casts a
        # Tensor or NumPy float (truncating), before the range checks.
        for v in (start, limit, delta):
            if type(v) is float:
                raise TypeError(
                    f"range: cannot convert {v!r} to dtype {dtypes.as_dtype(dtype).name}."
                )
        vals = [math.trunc(v) if isinstance(v, (float, np.floating)) else v for v in vals]
    start, limit, delta = vals
    if delta == 0:
        raise InvalidArgumentError(None, "range", "range: requires delta != 0, got delta=0.")
    if (delta > 0 and start > limit) or (delta < 0 and start < limit):
        raise InvalidArgumentError(
            None,
            "range",
            f"range: requires start {'<=' if delta > 0 else '>='} limit when delta "
            f"{'>' if delta > 0 else '<'} 0, got start={start}, limit={limit}, delta={delta}.",
        )
    if dtype is not None:
        np_dtype = dtypes.numpy_dtype(dtype)
        if np_dtype.kind not in "iuf":  # TensorFlow's Range has no bool, string or complex kernel
            raise TypeError(f"range: dtype must be an integer or floating dtype, got {dtype!r}.")
    device = current_device()
    if np_dtype.kind != "f":
        check_allocation("range", (math.ceil((limit - start) / delta),), np_dtype, device)
        return make(device.xp.arange(start, limit, delta).astype(np_dtype), device)
    # TensorFlow's Range kernel for floats: the arguments in the dtype, then start + i * delta
    # in it (so ek.range(0.0, 1.0, 0.3)[3] is float32's 0.90000004, as TensorFlow gives).
    start, limit, delta = (np_dtype.type(v) for v in (start, limit, delta))
    n = int(np.ceil(np.abs((limit - start) / delta)))
    check_allocation("range", (n,), np_dtype, device)
    xp = device.xp
    return make(xp.arange(n, dtype=np_dtype) * delta + start, device)


def linspace(start, stop, num, name=None, axis=0) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive (follows `tf.linspace`).

    The dtype is ``start``'s floating dtype (float32 for a Python float); integer arguments give
    float64, as in TensorFlow. ``start`` and ``stop`` may be tensors that broadcast: the
    ``num`` values of each pair lie along ``axis`` of the result. Differentiable in both.

    Raises:
        InvalidArgumentError: a negative ``num`` (0 gives an empty tensor), ``start`` and
            ``stop`` that do not broadcast, ``axis`` out of range.

    >>> ek.linspace(0.0, 1.0, 3).numpy()
    array([0. , 0.5, 1. ], dtype=float32)
    >>> ek.linspace(-2, 2, 5).dtype
    ek.float64
    """
    from .elementwise import cast

    s = tensor(start, "linspace")
    dt = s._value.dtype if s._value.dtype.kind == "f" else np.dtype(np.float64)
    e = tensor(stop, "linspace", dt)
    n = int(num)
    if n < 0:
        raise InvalidArgumentError(None, "linspace", f"linspace: requires num >= 0, got num={n}.")
    try:
        batch = np.broadcast_shapes(tuple(s._value.shape), tuple(e._value.shape))
    except ValueError:
        raise InvalidArgumentError(
            None,
            "linspace",
            f"linspace: start and stop must broadcast, got shapes {tuple(s._value.shape)} and "
            f"{tuple(e._value.shape)}.",
        ) from None
    rank = len(batch) + 1
    if not -rank <= int(axis) < rank:
        raise InvalidArgumentError(
            None, "linspace", f"linspace: axis {axis} is out of range for a result of rank {rank}."
        )
    shape = list(batch)
    shape.insert(int(axis) % rank, n)
    check_allocation("linspace", tuple(shape), dt, current_device())
    s, e = (t if t._value.dtype == dt else cast(t, dt) for t in (s, e))
    return apply(_linspace, (s, e), {"num": n, "axis": int(axis) % rank})


def _linspace_fwd(xp, start, stop, num, axis):
    # TensorFlow's LinSpace kernel, in the dtype: start + i * step with step = (stop - start)
    # / (num - 1), and the last value stop itself.
    start, stop = xp.broadcast_arrays(start, stop)
    shape = list(start.shape)
    shape.insert(axis, num)
    if num == 0:
        return xp.zeros(shape, start.dtype)
    start, stop = xp.expand_dims(start, axis), xp.expand_dims(stop, axis)
    if num == 1:
        return start.copy()
    at = [1] * len(shape)
    at[axis] = num
    i = xp.arange(num, dtype=start.dtype).reshape(at)
    out = start + ((stop - start) / start.dtype.type(num - 1)) * i
    last = [slice(None)] * len(shape)
    last[axis] = slice(num - 1, num)
    out[tuple(last)] = stop
    return out


def _linspace_vjp(weight_of_stop: bool):
    """The VJP for start (``weight_of_stop`` False) or stop: the cotangent weighted by each
    value's share of that end, ``1 - t`` or ``t`` for ``t = i / (num - 1)``, summed over the
    new axis (the backward pass reduces a broadcast start or stop)."""

    def vjp(g, ans, start, stop, num, axis):
        from .math_ops import on_device_of
        from .reduction import reduce_sum

        t = np.linspace(0.0, 1.0, num) if num > 1 else np.zeros(num)
        shape = [1] * ans.ndim
        shape[axis] = num
        t = t.reshape(shape).astype(g._value.dtype)
        weight = on_device_of(g._device.xp.asarray(t if weight_of_stop else 1 - t), g)
        return reduce_sum(g * weight, axis)

    return vjp


_linspace = Primitive("LinSpace", _linspace_fwd)
defvjp(_linspace, _linspace_vjp(False), _linspace_vjp(True))


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None) -> Tensor:
    """The identity matrix, optionally batched (follows `tf.eye`).

    Returns:
        Shape ``batch_shape + [num_rows, num_columns]`` (``num_columns`` defaults to
        ``num_rows``), ones on the diagonal.

    Raises:
        InvalidArgumentError: a negative size. ResourceExhaustedError: too large to allocate.

    >>> ek.eye(2, dtype=ek.int32).numpy()
    array([[1, 0],
           [0, 1]], dtype=int32)
    """
    device = current_device()
    rows = int(num_rows)
    cols = rows if num_columns is None else int(num_columns)
    shape = (*(() if batch_shape is None else _shape(batch_shape, "eye")), rows, cols)
    if rows < 0 or cols < 0:
        raise InvalidArgumentError(
            None, "eye", f"eye: num_rows and num_columns must be >= 0, got {rows} and {cols}."
        )
    np_dtype = _dtype(dtype, "eye")
    check_allocation("eye", shape, np_dtype, device)
    m = device.xp.eye(rows, cols, dtype=np_dtype)
    if batch_shape is not None:
        m = device.xp.broadcast_to(m, shape).copy()
    return make(m, device)


def one_hot(indices, depth, on_value=None, off_value=None, axis=-1, dtype=None, name=None):
    """One-hot encoding (follows `tf.one_hot`).

    Args:
        indices: integer tensor of any shape; out-of-range indices give all-``off_value`` rows.
        depth: number of classes.
        on_value, off_value: default 1 and 0.
        axis: where the new axis goes (default last).
        dtype: default: the dtype of ``on_value`` or ``off_value`` when given (``5`` is
            int32, ``True`` bool), else float32.

    Returns:
        Shape ``indices.shape`` with ``depth`` inserted at ``axis``.

    Raises:
        TypeError: for non-integer indices; ``on_value`` and ``off_value`` of different
            dtypes, or either not of ``dtype`` (each converted with ``dtype`` as a hint, as
            TensorFlow converts them).
        InvalidArgumentError: a negative ``depth`` or an ``axis`` out of range.
        ResourceExhaustedError: an output too large for the device's memory.

    >>> ek.one_hot([0, 2], 3).numpy()
    array([[1., 0., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    if type(indices) is not Tensor and isinstance(indices, CompositeTensor):  # a RaggedTensor
        if axis not in (-1, None):
            raise NotImplementedError(f"one_hot: a RaggedTensor takes axis=-1, got {axis}.")
        return indices._ek_unary(lambda v: one_hot(v, depth, on_value, off_value, -1, dtype))
    idx = tensor(indices, "one_hot")
    if idx._value.dtype.kind not in "iu":
        raise UnsupportedDTypeError(f"one_hot: indices must be integers, got {idx.dtype.name}.")
    np_dtype, on, off = _one_hot_values(on_value, off_value, dtype)
    try:  # operator.index, not int: depth=2.5 is refused, never truncated (as TensorFlow)
        n = operator.index(depth)
    except TypeError:
        raise TypeError(f"one_hot: depth must be an int, got depth={depth!r:.60}.") from None
    if n < 0:
        raise InvalidArgumentError(
            None, "one_hot", f"one_hot: depth must be non-negative, got depth={n}."
        )
    nd = idx._value.ndim
    if not -1 <= axis <= nd:
        raise InvalidArgumentError(
            None,
            "one_hot",
            f"one_hot: axis must be -1 or in [0, {nd}] for indices of shape "
            f"{tuple(idx._value.shape)}, got axis={axis}.",
        )
    check_allocation("one_hot", (*idx._value.shape, n), np_dtype, idx._device)
    return apply(
        _one_hot, (idx,), {"depth": n, "on": on, "off": off, "axis": axis, "dtype": np_dtype}
    )


def _one_hot_values(on_value, off_value, dtype) -> tuple:
    """``(dtype, on, off)`` of `one_hot`, by TensorFlow's rules: each given value converted
    with ``dtype`` as a hint, its dtype that of the output when ``dtype`` is None; the two
    values, and ``dtype``, must agree."""
    wanted = dtypes.numpy_dtype(dtype)
    given = {}
    for what, value in (("on_value", on_value), ("off_value", off_value)):
        if value is not None:
            # conversion refuses a Python number for bool, as TensorFlow's (TypeError)
            given[what] = tensor(value, "one_hot", wanted)._value
            if given[what].ndim:
                raise ValueError(
                    f"one_hot: {what} must be a scalar, got shape {tuple(given[what].shape)}."
                )
    found = [(what, v.dtype) for what, v in given.items()]
    for what, dt in found:
        if wanted is not None and dt != wanted:
            raise TypeError(
                f"one_hot: dtype {dtypes.from_numpy(dt).name} of {what} does not match dtype "
                f"parameter {dtypes.from_numpy(wanted).name}."
            )
    if len(found) == 2 and found[0][1] != found[1][1]:
        raise TypeError(
            f"one_hot: dtype {dtypes.from_numpy(found[0][1]).name} of on_value does not match "
            f"dtype {dtypes.from_numpy(found[1][1]).name} of off_value."
        )
    np_dtype = wanted if wanted is not None else found[0][1] if found else np.dtype(np.float32)
    on = given["on_value"].item() if "on_value" in given else 1
    off = given["off_value"].item() if "off_value" in given else 0
    return np_dtype, on, off


def _one_hot_fwd(xp, idx, depth, on, off, axis, dtype):
    hot = idx[..., None] == xp.arange(depth)
    out = xp.where(hot, xp.asarray(on, dtype=dtype), xp.asarray(off, dtype=dtype))
    return out if axis == -1 else xp.moveaxis(out, -1, axis)


_one_hot = Primitive("OneHot", _one_hot_fwd)
defvjp(_one_hot, None)  # integer indices: no gradient
