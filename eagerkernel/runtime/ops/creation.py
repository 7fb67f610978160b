"""Tensor creation: zeros, ones, fill, range, linspace, eye, one_hot and the *_like forms.

New tensors go to the current device (`ek.device` scope, else the default device); the
``*_like`` forms follow their argument's device. None of these is differentiable with respect
to its arguments (as in TensorFlow).
"""

from __future__ import annotations

import builtins

import numpy as np

from ..core import dtypes
from ..core.device import current_device
from ..core.tensor import Tensor, make
from ._core import tensor

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
    try:
        shape = tuple(int(s) for s in shape)
    except (TypeError, ValueError):
        raise TypeError(f"{op}: shape must be a sequence of ints, got {shape!r}.") from None
    if any(s < 0 for s in shape):
        raise ValueError(f"{op}: shape must be non-negative, got {shape}.")
    return shape


def _new(op: str, shape, dtype, fill_value) -> Tensor:
    device = current_device()
    np_dtype = dtypes.numpy_dtype(dtype)
    return make(device.xp.full(_shape(shape, op), fill_value, dtype=np_dtype), device)


def zeros(shape, dtype=dtypes.float32, name=None) -> Tensor:
    """A tensor of zeros, default float32 (follows `tf.zeros`).

    >>> ek.zeros((2,)).numpy()
    array([0., 0.], dtype=float32)
    """
    return _new("zeros", shape, dtype, 0)


def ones(shape, dtype=dtypes.float32, name=None) -> Tensor:
    """A tensor of ones, default float32 (follows `tf.ones`)."""
    return _new("ones", shape, dtype, 1)


def fill(dims, value, name=None) -> Tensor:
    """A tensor of shape ``dims`` filled with ``value``, of ``value``'s dtype (follows `tf.fill`).

    >>> ek.fill([2], 9).numpy()
    array([9, 9], dtype=int32)
    """
    v = tensor(value, "fill")
    device = v._device
    return make(device.xp.full(_shape(dims, "fill"), v._value, dtype=v._value.dtype), device)


def _like(x, dtype, value) -> Tensor:
    x = tensor(x, "zeros_like")
    np_dtype = x._value.dtype if dtype is None else dtypes.numpy_dtype(dtype)
    xp = x._device.xp
    return make(xp.full(x._value.shape, value, dtype=np_dtype), x._device)


def zeros_like(input, dtype=None, name=None) -> Tensor:
    """Zeros with ``input``'s shape, dtype (unless given) and device (follows `tf.zeros_like`)."""
    return _like(input, dtype, 0)


def ones_like(input, dtype=None, name=None) -> Tensor:
    """Ones with ``input``'s shape, dtype (unless given) and device (follows `tf.ones_like`)."""
    return _like(input, dtype, 1)


def range(start, limit=None, delta=1, dtype=None, name="range") -> Tensor:
    """Numbers from ``start`` up to (not including) ``limit`` by ``delta`` (follows `tf.range`).

    ``range(n)`` counts from 0. The dtype is inferred from the arguments (int32 for Python
    ints, float32 if any is a float) unless given.

    Raises:
        ValueError: if ``delta`` is 0.

    >>> ek.range(3).numpy(), ek.range(0.0, 1.0, 0.5).numpy()
    (array([0, 1, 2], dtype=int32), array([0. , 0.5], dtype=float32))
    """
    if limit is None:
        start, limit = 0, start
    vals = [
        float(v) if isinstance(v, Tensor) and v.dtype.is_floating else v
        for v in (start, limit, delta)
    ]
    vals = [v.numpy().item() if isinstance(v, Tensor) else v for v in vals]
    start, limit, delta = vals
    if delta == 0:
        raise ValueError("range: delta must not be 0.")
    if dtype is None:
        is_float = builtins.any(isinstance(v, (float, np.floating)) for v in vals)
        np_dtype = np.dtype(np.float32 if is_float else np.int32)
    else:
        np_dtype = dtypes.numpy_dtype(dtype)
    device = current_device()
    return make(device.xp.arange(start, limit, delta).astype(np_dtype), device)


def linspace(start, stop, num, name=None, axis=0) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive (follows `tf.linspace`).

    The dtype is float32 for Python numbers, else the arguments' floating dtype.
    """
    s = tensor(start, "linspace")
    dt = s._value.dtype if s._value.dtype.kind == "f" else np.dtype(np.float32)
    device = current_device()
    out = np.linspace(float(start), float(stop), int(num), dtype=dt)
    return make(device.xp.asarray(out), device)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None) -> Tensor:
    """The identity matrix, optionally batched (follows `tf.eye`)."""
    device = current_device()
    m = device.xp.eye(
        int(num_rows),
        None if num_columns is None else int(num_columns),
        dtype=dtypes.numpy_dtype(dtype),
    )
    if batch_shape is not None:
        m = device.xp.broadcast_to(m, (*_shape(batch_shape, "eye"), *m.shape)).copy()
    return make(m, device)


def one_hot(indices, depth, on_value=None, off_value=None, axis=-1, dtype=None, name=None):
    """One-hot encoding (follows `tf.one_hot`).

    Args:
        indices: integer tensor of any shape; out-of-range indices give all-``off_value`` rows.
        depth: number of classes.
        on_value, off_value: default 1 and 0.
        axis: where the new axis goes (default last).
        dtype: default float32.

    Returns:
        Shape ``indices.shape`` with ``depth`` inserted at ``axis``.

    Raises:
        TypeError: for non-integer indices.

    >>> ek.one_hot([0, 2], 3).numpy()
    array([[1., 0., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    idx = tensor(indices, "one_hot")
    if idx._value.dtype.kind not in "iu":
        raise TypeError(f"one_hot: indices must be integers, got {idx.dtype.name}.")
    np_dtype = dtypes.numpy_dtype(dtype) or np.dtype(np.float32)
    xp = idx._device.xp
    on = 1 if on_value is None else on_value
    off = 0 if off_value is None else off_value
    hot = idx._value[..., None] == xp.arange(int(depth))
    out = xp.where(hot, xp.asarray(on, dtype=np_dtype), xp.asarray(off, dtype=np_dtype))
    if axis != -1:
        out = xp.moveaxis(out, -1, axis)
    return make(out, idx._device)
