"""`keras.ops` math functions (follows ``keras/src/ops/math.py``)."""

from __future__ import annotations

from ._base import check_axes, float_like, keras_op, to_tensor
from ._tf import tf

__all__ = ["erf", "erfinv", "in_top_k", "logsumexp", "rsqrt", "top_k"]


@keras_op
def top_k(x, k, sorted=True, is_stable=True):
    """``(values, indices)`` of the ``k`` largest entries along the last axis (follows
    `keras.ops.top_k`); indices int32, values in the dtype of ``x``. Equal values always come
    lower index first, which satisfies both ``is_stable`` settings.

    >>> values, indices = ek.keras.ops.top_k(ek.constant([1.0, 5.0, 3.0]), 2)
    >>> indices.numpy()
    array([1, 2], dtype=int32)
    """
    out = tf.top_k(to_tensor(x), k=int(k), sorted=bool(sorted))
    return out.values, out.indices


@keras_op
def in_top_k(targets, predictions, k):
    """Whether each target class is among the ``k`` largest ``predictions`` (``(batch,
    classes)``; more leading axes are allowed) (follows `keras.ops.in_top_k`); bool."""
    targets, predictions = to_tensor(targets), float_like(predictions)
    if predictions.shape.rank > 2:
        shape = list(targets.shape)
        flat = tf.reshape(predictions, [-1, predictions.shape[-1]])
        out = tf.in_top_k(tf.reshape(targets, [-1]), flat, int(k))
        return tf.reshape(out, shape)
    return tf.in_top_k(targets, predictions, int(k))


@keras_op
def logsumexp(x, axis=None, keepdims=False):
    """``log(sum(exp(x)))`` over ``axis``, computed stably (follows `keras.ops.logsumexp`);
    integer inputs give floatx."""
    x = float_like(x)
    axis = check_axes(axis, x.shape.rank, "logsumexp")
    return tf.reduce_logsumexp(x, axis=axis, keepdims=bool(keepdims))


@keras_op
def erf(x):
    """The error function (follows `keras.ops.erf`); integer inputs give floatx."""
    return tf.erf(float_like(x))


@keras_op
def erfinv(x):
    """The inverse error function (follows `keras.ops.erfinv`)."""
    return tf.erfinv(float_like(x))


@keras_op
def rsqrt(x):
    """``1 / sqrt(x)`` (follows `keras.ops.rsqrt`)."""
    return tf.rsqrt(float_like(x))
