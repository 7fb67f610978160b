"""`keras.ops` math functions (follows ``keras/src/ops/math.py``)."""

from __future__ import annotations

from ._base import check_axes, float_like, keras_op, to_tensor
from ._tf import tf

__all__ = [
    "erf",
    "erfinv",
    "in_top_k",
    "logsumexp",
    "rsqrt",
    "segment_max",
    "segment_min",
    "segment_prod",
    "segment_sum",
    "top_k",
]


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


def _segment(name, fn):
    def op(data, segment_ids, num_segments=None, sorted=False):
        data, ids = to_tensor(data), to_tensor(segment_ids)
        if ids.shape.rank != 1:
            raise ValueError(
                f"keras.ops.{name}: `segment_ids` must be 1-D. Received: "
                f"segment_ids.shape={tuple(ids.shape)}"
            )
        if num_segments is None:
            num_segments = int(tf.reduce_max(ids)) + 1 if ids.shape[0] else 0
        out = fn(data, ids, int(num_segments))
        if sorted and name in ("segment_max", "segment_min"):
            # tf.math.segment_max/min (Keras's sorted path) give 0 to empty segments
            ones = tf.ones([int(ids.shape[0])], "int32")
            count = tf.unsorted_segment_sum(ones, ids, int(num_segments))
            empty = tf.reshape(count == 0, [-1] + [1] * (out.shape.rank - 1))
            out = tf.where(empty, tf.zeros_like(out), out)
        return out

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"The {name.split('_')[1]} of the rows of ``data`` per segment id (follows "
        f"`keras.ops.{name}`); ``num_segments`` default ``max(segment_ids) + 1``; empty "
        "segments get the reduction's identity (0 for max/min with ``sorted=True``, as "
        "``tf.math.segment_max``)."
    )
    return keras_op(op)


segment_sum = _segment("segment_sum", tf.unsorted_segment_sum)
segment_max = _segment("segment_max", tf.unsorted_segment_max)
segment_min = _segment("segment_min", tf.unsorted_segment_min)
segment_prod = _segment("segment_prod", tf.unsorted_segment_prod)
