"""`keras.ops` NumPy-style functions, third part: stacking, comparisons with tolerance,
weighted and cumulative reductions, diagonals and cleaning (follows
``keras/src/ops/numpy.py``)."""

from __future__ import annotations

import numpy as np

from ... import numpy_ops as tnp
from ...core import dtypes
from ._base import canonical_axis, floatx, keras_op, promote, result_type, to_tensor
from ._tf import tf

__all__ = [
    "amax",
    "amin",
    "append",
    "array",
    "average",
    "copy",
    "cumprod",
    "hstack",
    "hypot",
    "inner",
    "isclose",
    "logaddexp",
    "nan_to_num",
    "take_along_axis",
    "trace",
    "tri",
    "trunc",
    "vdot",
    "vstack",
]


@keras_op
def amax(x, axis=None, keepdims=False):
    """Maximum over ``axis`` (follows `keras.ops.amax`); the dtype of ``x``."""
    from .numpy import max as _max

    return _max(x, axis=axis, keepdims=keepdims)


@keras_op
def amin(x, axis=None, keepdims=False):
    """Minimum over ``axis`` (follows `keras.ops.amin`); the dtype of ``x``."""
    from .numpy import min as _min

    return _min(x, axis=axis, keepdims=keepdims)


@keras_op
def append(x1, x2, axis=None):
    """``x2`` appended to ``x1`` along ``axis`` (None: both flattened) (follows
    `keras.ops.append`); the Keras result dtype."""
    x1, x2 = promote(x1, x2)
    if axis is None:
        return tf.concat([tf.reshape(x1, [-1]), tf.reshape(x2, [-1])], axis=0)
    return tf.concat([x1, x2], axis=canonical_axis(axis, x1.shape.rank, "append"))


@keras_op
def array(x, dtype=None):
    """``x`` as a tensor (follows `keras.ops.array`); ``dtype`` casts it."""
    return to_tensor(x, dtype)


@keras_op
def copy(x):
    """A copy of ``x`` (follows `keras.ops.copy`); tensors are immutable, so ``x`` itself
    as a tensor."""
    return tf.identity(to_tensor(x))


@keras_op
def average(x, axis=None, weights=None):
    """The mean of ``x`` over ``axis`` weighted by ``weights`` (of ``x``'s shape, or 1-D
    along a single ``axis``) (follows `keras.ops.average`); floats of the Keras result dtype.

    Raises:
        ValueError: 1-D weights without a single axis, or of the wrong length.
    """
    x = to_tensor(x)
    if weights is None:
        x = tf.cast(x, result_type(x, 1.0))
        return tf.reduce_mean(x, axis=axis)
    weights = to_tensor(weights)
    dtype = result_type(x, weights, 1.0)
    x, weights = tf.cast(x, dtype), tf.cast(weights, dtype)
    if weights.shape.rank == 1 and x.shape.rank > 1:
        if axis is None or (isinstance(axis, (list, tuple)) and len(axis) != 1):
            raise ValueError(
                "keras.ops.average: axis must be specified when shapes of x and weights "
                f"differ. Received: x.shape={tuple(x.shape)}, "
                f"weights.shape={tuple(weights.shape)}"
            )
        axis = axis[0] if isinstance(axis, (list, tuple)) else axis
        axis = canonical_axis(axis, x.shape.rank, "average")
        if weights.shape[0] != x.shape[axis]:
            raise ValueError(
                "keras.ops.average: shape of weights must be consistent with shape of x "
                f"along the axis. Received: weights.shape={tuple(weights.shape)}, axis={axis}"
            )
        shape = [1] * x.shape.rank
        shape[axis] = -1
        weights = tf.reshape(weights, shape)
    total = tf.reduce_sum(x * weights, axis=axis)
    return total / tf.reduce_sum(tf.broadcast_to(weights, list(x.shape)), axis=axis)


@keras_op
def cumprod(x, axis=None, dtype=None):
    """Cumulative product along ``axis`` (None: flattened) (follows `keras.ops.cumprod`);
    ``dtype`` or that of ``x`` (bool gives int32)."""
    from .numpy import cumulative

    return cumulative(tf.cumprod, "cumprod", x, axis, dtype)


@keras_op
def hstack(xs):
    """``xs`` joined along axis 1 (axis 0 for 1-D) (follows `keras.ops.hstack`)."""
    xs = promote(*xs)
    return tf.concat(xs, axis=0 if xs[0].shape.rank == 1 else 1)


@keras_op
def vstack(xs):
    """``xs`` joined along axis 0, 1-D ones as rows (follows `keras.ops.vstack`)."""
    xs = [tf.reshape(x, [1, -1]) if x.shape.rank == 1 else x for x in promote(*xs)]
    return tf.concat(xs, axis=0)


@keras_op
def isclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    """``|x1 - x2| <= atol + rtol * |x2|`` elementwise (follows `keras.ops.isclose`); bool;
    infinities are close only to themselves, NaNs only with ``equal_nan``."""
    x1, x2 = promote(x1, x2)
    if not x1.dtype.is_floating:
        return tf.equal(x1, x2)
    finite = tf.logical_and(tf.is_finite(x1), tf.is_finite(x2))
    zero = tf.zeros_like(x1)
    a, b = tf.where(finite, x1, zero), tf.where(finite, x2, zero)  # no inf - inf
    bound = to_tensor(atol, x1.dtype) + to_tensor(rtol, x1.dtype) * tf.abs(b)
    out = tf.logical_or(tf.logical_and(finite, tf.abs(a - b) <= bound), tf.equal(x1, x2))
    if equal_nan:
        out = tf.logical_or(out, tf.logical_and(tf.is_nan(x1), tf.is_nan(x2)))
    return out


@keras_op
def hypot(x1, x2):
    """``sqrt(x1**2 + x2**2)`` without overflow (follows `keras.ops.hypot`); integer inputs
    give floatx (int64 float64)."""
    dtype = result_type(x1, x2)
    if dtype.is_integer or dtype == dtypes.bool:
        dtype = dtypes.float64 if dtype == dtypes.int64 else dtypes.as_dtype(floatx())
    a, b = tf.abs(to_tensor(x1, dtype)), tf.abs(to_tensor(x2, dtype))
    big, small = tf.maximum(a, b), tf.minimum(a, b)
    ratio = tf.divide_no_nan(small, big)
    out = big * tf.sqrt(to_tensor(1.0, dtype) + tf.square(ratio))
    inf = tf.logical_or(tf.is_inf(a), tf.is_inf(b))
    return tf.where(inf, tf.fill(list(out.shape), to_tensor(np.inf, dtype)), out)


@keras_op
def logaddexp(x1, x2):
    """``log(exp(x1) + exp(x2))`` computed stably (follows `keras.ops.logaddexp`); floats
    of the Keras result dtype (integers give floatx; Python numbers count as float32/int32
    tensors, as in Keras); ``x1 + x2`` where ``x1 - x2`` is NaN (both infinite)."""
    x1, x2 = to_tensor(x1), to_tensor(x2)
    dtype = result_type(x1, x2, 1.0)
    a, b = to_tensor(x1, dtype), to_tensor(x2, dtype)
    big = tf.maximum(a, b)
    delta = a - b
    return tf.where(tf.is_nan(delta), a + b, big + tf.log1p(tf.exp(-tf.abs(delta))))


def _dot_flat(x1, x2):
    result = result_type(x1, x2)
    compute = result_type(to_tensor(x1, result), 1.0)
    a, b = to_tensor(x1, compute), to_tensor(x2, compute)
    return a, b, result


@keras_op
def vdot(x1, x2):
    """The dot product of the flattened inputs (follows `keras.ops.vdot`); the Keras result
    dtype."""
    a, b, result = _dot_flat(x1, x2)
    return tf.cast(tf.reduce_sum(tf.reshape(a, [-1]) * tf.reshape(b, [-1])), result)


@keras_op
def inner(x1, x2):
    """Sum-product over the last axes (scalars multiply) (follows `keras.ops.inner`); the
    Keras result dtype."""
    a, b, result = _dot_flat(x1, x2)
    if a.shape.rank == 0 or b.shape.rank == 0:
        return tf.cast(a * b, result)
    return tf.cast(tf.tensordot(a, b, axes=[[a.shape.rank - 1], [b.shape.rank - 1]]), result)


@keras_op
def take_along_axis(x, indices, axis=None):
    """Elements of ``x`` picked by ``indices`` along ``axis`` (None: flattened, 1-D indices),
    NumPy's ``take_along_axis`` with broadcasting of the other axes (follows
    `keras.ops.take_along_axis`)."""
    x, indices = to_tensor(x), to_tensor(indices)
    if axis is None:
        if indices.shape.rank != 1:
            raise ValueError(
                "keras.ops.take_along_axis: `indices` must be 1D if axis=None. Received: "
                f"indices.shape={tuple(indices.shape)}"
            )
        x, axis = tf.reshape(x, [-1]), 0
    axis = canonical_axis(axis, x.shape.rank, "take_along_axis")
    return tnp.take_along_axis(x, indices, axis)


@keras_op
def trace(x, offset=0, axis1=0, axis2=1):
    """Sum of the ``offset`` diagonal over ``axis1``/``axis2`` (follows `keras.ops.trace`);
    bool, int8 and int16 give int32, uint8/uint16 uint32."""
    x = to_tensor(x)
    if x.dtype.name in ("bool", "int8", "int16"):
        x = tf.cast(x, "int32")
    elif x.dtype.name in ("uint8", "uint16"):
        x = tf.cast(x, "uint32")
    from .numpy_more import moveaxis

    x = moveaxis(x, (axis1, axis2), (-2, -1))
    mask = to_tensor(np.eye(x.shape[-2], x.shape[-1], k=int(offset), dtype=bool))
    return tf.reduce_sum(tf.where(mask, x, tf.zeros_like(x)), axis=[-2, -1])


@keras_op
def tri(N, M=None, k=0, dtype=None):
    """An ``N x M`` matrix of ones at and below diagonal ``k`` (follows `keras.ops.tri`);
    ``dtype`` default floatx."""
    return to_tensor(np.tri(int(N), None if M is None else int(M), int(k)), dtype or floatx())


@keras_op
def trunc(x):
    """``x`` rounded toward zero (follows `keras.ops.trunc`); the dtype of ``x``."""
    x = to_tensor(x)
    if not x.dtype.is_floating:
        return x
    return tf.where(x < to_tensor(0.0, x.dtype), tf.ceil(x), tf.floor(x))


@keras_op
def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """``x`` with NaN replaced by ``nan`` and infinities by ``posinf``/``neginf`` (default
    the dtype's largest/smallest finite value) (follows `keras.ops.nan_to_num`)."""
    x = to_tensor(x)
    if not x.dtype.is_floating:
        return x
    info = np.finfo(x.dtype.as_numpy_dtype)

    def fill(v):
        return tf.fill(list(x.shape), to_tensor(v, x.dtype))

    x = tf.where(tf.is_nan(x), fill(nan), x)
    pos = tf.logical_and(tf.is_inf(x), x > to_tensor(0.0, x.dtype))
    x = tf.where(pos, fill(info.max if posinf is None else posinf), x)
    neg = tf.logical_and(tf.is_inf(x), x < to_tensor(0.0, x.dtype))
    return tf.where(neg, fill(info.min if neginf is None else neginf), x)
