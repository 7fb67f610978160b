"""`keras.ops` neural-network functions: activations, losses, normalization, convolution and
pooling (follows ``keras/src/ops/nn.py``). Integer and bool inputs of activations give floatx;
floats keep their dtype."""

from __future__ import annotations

import math as _math

import numpy as np

from ...core import dtypes
from ..logits import prefer_logits, remember
from ._base import canonical_axis, check_axes, float_like, floatx, keras_op, promote, to_tensor
from ._tf import tf

__all__ = [
    "average_pool",
    "batch_normalization",
    "binary_crossentropy",
    "categorical_crossentropy",
    "celu",
    "conv",
    "depthwise_conv",
    "elu",
    "gelu",
    "glu",
    "hard_shrink",
    "hard_sigmoid",
    "hard_silu",
    "hard_swish",
    "hard_tanh",
    "leaky_relu",
    "log_sigmoid",
    "log_softmax",
    "max_pool",
    "moments",
    "multi_hot",
    "normalize",
    "one_hot",
    "relu",
    "relu6",
    "selu",
    "sigmoid",
    "silu",
    "soft_shrink",
    "softmax",
    "softplus",
    "softsign",
    "sparse_categorical_crossentropy",
    "sparse_plus",
    "squareplus",
    "swish",
    "tanh",
    "tanh_shrink",
    "threshold",
]

_EPSILON = 1e-7  # keras.config.epsilon()


@keras_op
def relu(x):
    """``max(x, 0)`` (follows `keras.ops.relu`); integer inputs keep their dtype."""
    return tf.nn.relu(to_tensor(x))


@keras_op
def relu6(x):
    """``min(max(x, 0), 6)`` (follows `keras.ops.relu6`); integer inputs keep their dtype."""
    return tf.nn.relu6(to_tensor(x))


@keras_op
def sigmoid(x):
    """``1 / (1 + exp(-x))`` (follows `keras.ops.sigmoid`)."""
    x = float_like(x)
    return remember(tf.sigmoid(x), x, "sigmoid")  # its logits, for the cross-entropies


@keras_op
def tanh(x):
    """Hyperbolic tangent (follows `keras.ops.tanh`)."""
    return tf.tanh(float_like(x))


@keras_op
def softplus(x):
    """``log(1 + exp(x))`` (follows `keras.ops.softplus`)."""
    return tf.nn.softplus(float_like(x))


@keras_op
def softsign(x):
    """``x / (1 + |x|)`` (follows `keras.ops.softsign`)."""
    return tf.nn.softsign(float_like(x))


@keras_op
def silu(x):
    """``x * sigmoid(x)`` (follows `keras.ops.silu`)."""
    return tf.nn.silu(float_like(x))


@keras_op
def swish(x):
    """Alias of `silu` (follows `keras.ops.swish`)."""
    return silu(x)


@keras_op
def log_sigmoid(x):
    """``log(sigmoid(x))``, computed stably (follows `keras.ops.log_sigmoid`)."""
    return tf.nn.log_sigmoid(float_like(x))


@keras_op
def leaky_relu(x, negative_slope=0.2):
    """``x`` where positive, else ``negative_slope * x`` (follows `keras.ops.leaky_relu`;
    default slope 0.2, Keras's)."""
    return tf.nn.leaky_relu(float_like(x), alpha=negative_slope)


@keras_op
def hard_sigmoid(x):
    """``relu6(x + 3) / 6``, Keras 3's piecewise-linear sigmoid (follows
    `keras.ops.hard_sigmoid`)."""
    x = float_like(x)
    return tf.nn.relu6(x + to_tensor(3.0, x.dtype)) / to_tensor(6.0, x.dtype)


@keras_op
def hard_silu(x):
    """``x * hard_sigmoid(x)`` (follows `keras.ops.hard_silu`)."""
    x = float_like(x)
    return x * hard_sigmoid(x)


@keras_op
def hard_swish(x):
    """Alias of `hard_silu` (follows `keras.ops.hard_swish`)."""
    return hard_silu(x)


@keras_op
def elu(x, alpha=1.0):
    """``x`` where positive, else ``alpha * (exp(x) - 1)`` (follows `keras.ops.elu`)."""
    x = float_like(x)
    out = tf.nn.elu(x)
    if alpha == 1.0:
        return out
    return tf.where(x > 0, out, out * to_tensor(alpha, x.dtype))


@keras_op
def selu(x):
    """Scaled ELU with Klambauer et al.'s constants (follows `keras.ops.selu`)."""
    return tf.nn.selu(float_like(x))


@keras_op
def gelu(x, approximate=True):
    """Gaussian error linear unit (follows `keras.ops.gelu`); ``approximate`` (default True,
    as Keras's) uses the tanh approximation, False the exact ``x * Phi(x)``."""
    return tf.nn.gelu(float_like(x), approximate=bool(approximate))


@keras_op
def celu(x, alpha=1.0):
    """``max(x, 0) + alpha * expm1(min(x, 0) / alpha)`` (follows `keras.ops.celu`)."""
    x = float_like(x)
    zero = tf.zeros_like(x)
    a = to_tensor(alpha, x.dtype)
    return tf.maximum(x, zero) + a * tf.expm1(tf.minimum(x, zero) / a)


@keras_op
def glu(x, axis=-1):
    """Gated linear unit: ``a * sigmoid(b)`` for the two halves ``a, b`` of ``x`` along
    ``axis`` (follows `keras.ops.glu`).

    Raises:
        ValueError: the axis size is odd.
    """
    x = float_like(x)
    axis = canonical_axis(axis, x.shape.rank, "glu")
    if x.shape[axis] % 2:
        raise ValueError(
            "keras.ops.glu: axis size must be divisible by 2. Received: "
            f"x.shape={tuple(x.shape)} with axis={axis}"
        )
    a, b = tf.split(x, 2, axis=axis)
    return a * tf.sigmoid(b)


@keras_op
def hard_tanh(x):
    """``x`` clipped to ``[-1, 1]`` (follows `keras.ops.hard_tanh`)."""
    x = float_like(x)
    return tf.clip_by_value(x, to_tensor(-1.0, x.dtype), to_tensor(1.0, x.dtype))


@keras_op
def hard_shrink(x, threshold=0.5):
    """``x`` where ``|x| > threshold``, else 0 (follows `keras.ops.hard_shrink`)."""
    x = float_like(x)
    return tf.where(tf.abs(x) > to_tensor(threshold, x.dtype), x, tf.zeros_like(x))


@keras_op
def soft_shrink(x, threshold=0.5):
    """``x`` moved ``threshold`` towards 0, and 0 within ``[-threshold, threshold]``
    (follows `keras.ops.soft_shrink`)."""
    x = float_like(x)
    t = to_tensor(threshold, x.dtype)
    inner = tf.where(x < -t, x + t, tf.zeros_like(x))
    return tf.where(x > t, x - t, inner)


@keras_op
def tanh_shrink(x):
    """``x - tanh(x)`` (follows `keras.ops.tanh_shrink`)."""
    x = float_like(x)
    return x - tf.tanh(x)


@keras_op
def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2`` (follows `keras.ops.squareplus`)."""
    x = float_like(x)
    return (x + tf.sqrt(tf.square(x) + to_tensor(b, x.dtype))) / to_tensor(2.0, x.dtype)


@keras_op
def sparse_plus(x):
    """0 for ``x <= -1``, ``(x + 1)**2 / 4`` for ``-1 < x < 1``, ``x`` above (follows
    `keras.ops.sparse_plus`)."""
    x = float_like(x)
    one = to_tensor(1.0, x.dtype)
    middle = tf.where(x < one, tf.square(x + one) / to_tensor(4.0, x.dtype), x)
    return tf.where(x <= -one, tf.zeros_like(x), middle)


@keras_op
def threshold(x, threshold, default_value):
    """``x`` where ``x > threshold``, else ``default_value`` (follows
    `keras.ops.threshold`)."""
    x = float_like(x)
    return tf.where(
        x > to_tensor(threshold, x.dtype),
        x,
        tf.fill(list(x.shape), to_tensor(default_value, x.dtype)),
    )


def _softmax_axes(x, axis, op):
    axes = check_axes(axis, x.shape.rank, op)
    if axes is None:
        return list(range(x.shape.rank))
    return axes if isinstance(axes, list) else [axes]


@keras_op
def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x))`` along ``axis`` (an int or a tuple; None: all) (follows
    `keras.ops.softmax`).

    >>> ek.keras.ops.softmax(ek.constant([0.0, 0.0])).numpy()
    array([0.5, 0.5], dtype=float32)
    """
    x = float_like(x)
    axes = _softmax_axes(x, axis, "softmax")
    if len(axes) == 1:
        return remember(tf.nn.softmax(x, axis=axes[0]), x, "softmax", axes[0])
    shifted = x - tf.stop_gradient(tf.reduce_max(x, axis=axes, keepdims=True))
    e = tf.exp(shifted)
    return e / tf.reduce_sum(e, axis=axes, keepdims=True)


@keras_op
def log_softmax(x, axis=-1):
    """``x - logsumexp(x)`` along ``axis`` (an int or a tuple; None: all) (follows
    `keras.ops.log_softmax`)."""
    x = float_like(x)
    axes = _softmax_axes(x, axis, "log_softmax")
    if len(axes) == 1:
        return tf.nn.log_softmax(x, axis=axes[0])
    return x - tf.reduce_logsumexp(x, axis=axes, keepdims=True)


@keras_op
def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    """Indices ``x`` as one-hot vectors of length ``num_classes`` along ``axis`` (follows
    `keras.ops.one_hot`); indices out of range give all-zero vectors; ``dtype`` default
    floatx.

    Raises:
        NotImplementedError: ``sparse=True``.
    """
    if sparse:
        raise NotImplementedError("keras.ops.one_hot: sparse=True is not supported.")
    x = to_tensor(x)
    if not x.dtype.is_integer:
        x = tf.cast(x, "int32")
    axis = canonical_axis(axis, x.shape.rank + 1, "one_hot")
    return tf.one_hot(x, int(num_classes), axis=axis, dtype=dtypes.as_dtype(dtype or floatx()))


def _check_same_shape(target, output, op):
    if target.shape.rank != output.shape.rank:
        raise ValueError(
            f"keras.ops.{op}: arguments `target` and `output` must have the same rank (ndim). "
            f"Received: target.shape={tuple(target.shape)}, output.shape={tuple(output.shape)}"
        )
    if tuple(target.shape) != tuple(output.shape):
        raise ValueError(
            f"keras.ops.{op}: arguments `target` and `output` must have the same shape. "
            f"Received: target.shape={tuple(target.shape)}, output.shape={tuple(output.shape)}"
        )


@keras_op
def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary cross-entropy (no reduction) (follows
    `keras.ops.binary_crossentropy`); probabilities are clipped to ``[1e-7, 1 - 1e-7]``;
    ``from_logits=True`` takes logits (computed stably). Floatx or the float dtype given.

    Raises:
        ValueError: ``target`` and ``output`` shapes differ.
    """
    output, from_logits = prefer_logits(output, from_logits, "sigmoid")  # Keras 3
    target, output = promote(float_like(target), float_like(output))
    _check_same_shape(target, output, "binary_crossentropy")
    if from_logits:
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    eps = to_tensor(_EPSILON, output.dtype)
    one = to_tensor(1.0, output.dtype)
    output = tf.clip_by_value(output, eps, one - eps)
    return -(target * tf.log(output) + (one - target) * tf.log(one - output))


@keras_op
def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy between one-hot (or soft) ``target`` and ``output`` along ``axis``,
    reduced over it (follows `keras.ops.categorical_crossentropy`); probabilities are
    renormalized and clipped to ``[1e-7, 1 - 1e-7]``.

    Raises:
        ValueError: shapes differ, or a bad ``axis``.
    """
    output, from_logits = prefer_logits(output, from_logits, "softmax", axis)  # Keras 3
    target, output = promote(float_like(target), float_like(output))
    _check_same_shape(target, output, "categorical_crossentropy")
    axis = canonical_axis(axis, output.shape.rank, "categorical_crossentropy")
    if from_logits:
        return -tf.reduce_sum(target * tf.nn.log_softmax(output, axis=axis), axis=axis)
    output = output / tf.reduce_sum(output, axis=axis, keepdims=True)
    eps = to_tensor(_EPSILON, output.dtype)
    output = tf.clip_by_value(output, eps, to_tensor(1.0, output.dtype) - eps)
    return -tf.reduce_sum(target * tf.log(output), axis=axis)


@keras_op
def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy between integer class ``target`` and ``output`` along ``axis``
    (follows `keras.ops.sparse_categorical_crossentropy`); ``target`` has ``output``'s
    shape without ``axis`` (a trailing size-1 axis is dropped). Probabilities are clipped to
    ``[1e-7, 1 - 1e-7]`` and then renormalized (``-log(p[y] / sum(p))``), as Keras 3's
    TensorFlow backend does.

    Raises:
        ValueError: ``target``'s shape does not match.
    """
    sparse = "sparse_categorical_crossentropy"
    output, from_logits = prefer_logits(output, from_logits, "softmax", axis, sparse)  # Keras 3
    output = float_like(output)
    target = to_tensor(target)
    axis = canonical_axis(axis, output.shape.rank, "sparse_categorical_crossentropy")
    if target.shape.rank == output.shape.rank and target.shape[-1] == 1:
        target = tf.squeeze(target, axis=-1)
    expected = tuple(d for i, d in enumerate(output.shape) if i != axis)
    if tuple(target.shape) != expected:
        raise ValueError(
            "keras.ops.sparse_categorical_crossentropy: arguments `target` and `output` must "
            "have the same shape up until the last dimension. Received: "
            f"target.shape={tuple(target.shape)}, output.shape={tuple(output.shape)}"
        )
    onehot = tf.one_hot(tf.cast(target, "int32"), output.shape[axis], axis=axis, dtype=output.dtype)
    if not from_logits:  # Keras 3's TensorFlow backend: clip, then log-softmax of log(output)
        eps = to_tensor(_EPSILON, output.dtype)
        output = tf.log(tf.clip_by_value(output, eps, to_tensor(1.0, output.dtype) - eps))
    return categorical_crossentropy(onehot, output, from_logits=True, axis=axis)


@keras_op
def moments(x, axes, keepdims=False, synchronized=False):
    """``(mean, variance)`` of ``x`` over ``axes`` (follows `keras.ops.moments`); float16 and
    bfloat16 are computed in float32 and cast back.

    Raises:
        NotImplementedError: ``synchronized=True`` (cross-replica statistics).
    """
    if synchronized:
        raise NotImplementedError(
            "keras.ops.moments: synchronized=True (cross-replica moments) is not supported."
        )
    x = float_like(x)
    axes = check_axes(axes, x.shape.rank, "moments")
    axes = [axes] if isinstance(axes, int) else axes
    low = x.dtype.name in ("float16", "bfloat16")
    xc = tf.cast(x, "float32") if low else x
    mean = tf.reduce_mean(xc, axis=axes, keepdims=True)
    variance = tf.reduce_mean(tf.square(xc - tf.stop_gradient(mean)), axis=axes, keepdims=True)
    if not keepdims:
        mean = tf.squeeze(mean, axis=axes)
        variance = tf.squeeze(variance, axis=axes)
    if low:
        mean, variance = tf.cast(mean, x.dtype), tf.cast(variance, x.dtype)
    return mean, variance


@keras_op
def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=1e-3):
    """``(x - mean) / sqrt(variance + epsilon) * scale + offset``, with the 1-D statistics
    along ``axis`` of ``x`` (follows `keras.ops.batch_normalization`)."""
    x = float_like(x)
    axis = canonical_axis(axis, x.shape.rank, "batch_normalization")
    shape = [1] * x.shape.rank
    shape[axis] = x.shape[axis]

    def bcast(v):
        return None if v is None else tf.reshape(to_tensor(v, x.dtype), shape)

    inv = tf.rsqrt(bcast(variance) + to_tensor(epsilon, x.dtype))
    if scale is not None:
        inv = inv * bcast(scale)
    out = (x - bcast(mean)) * inv
    return out if offset is None else out + bcast(offset)


@keras_op
def normalize(x, axis=-1, order=2, epsilon=None):
    """``x`` divided by its ``order``-norm (1 or 2) along ``axis``, floored at ``epsilon``
    (default 1e-7) (follows `keras.ops.normalize`).

    Raises:
        ValueError: ``order`` other than 1 or 2.
    """
    if order not in (1, 2):
        raise ValueError(f"keras.ops.normalize: `order` must be 1 or 2. Received: order={order!r}")
    x = float_like(x)
    axis = check_axes(axis, x.shape.rank, "normalize")
    eps = to_tensor(_EPSILON if epsilon is None else epsilon, x.dtype)
    if order == 2:
        sq = tf.reduce_sum(tf.square(x), axis=axis, keepdims=True)
        return x * tf.rsqrt(tf.maximum(sq, tf.square(eps)))
    n = tf.reduce_sum(tf.abs(x), axis=axis, keepdims=True)
    return x / tf.maximum(n, eps)


# -- convolution and pooling --------------------------------------------------------------------


def checked_data_format(data_format, op):
    """``data_format``, or Keras's default image data format for None; ValueError naming the
    op for anything but "channels_last"/"channels_first"."""
    from ..backend import image_data_format

    data_format = data_format or image_data_format()
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(
            f"keras.ops.{op}: `data_format` must be 'channels_last' or 'channels_first'. "
            f"Received: data_format={data_format!r}"
        )
    return data_format


def to_channels_last(x, data_format):
    """``x`` with its channels last (moved from axis 1 when ``channels_first``)."""
    if data_format == "channels_first":
        return tf.transpose(x, [0, *range(2, x.shape.rank), 1])
    return x


def from_channels_last(x, data_format):
    """The inverse of `to_channels_last`."""
    if data_format == "channels_first":
        return tf.transpose(x, [0, x.shape.rank - 1, *range(1, x.shape.rank - 1)])
    return x


def _padding(padding, op):
    if str(padding).lower() not in ("valid", "same"):
        raise ValueError(
            f"keras.ops.{op}: `padding` must be 'valid' or 'same'. Received: padding={padding!r}"
        )
    return str(padding).upper()


def _tuple(v, n):
    return [int(v)] * n if isinstance(v, (int, np.integer)) else [int(a) for a in v]


@keras_op
def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """N-D convolution (1-3 spatial axes) of ``inputs`` ``(batch, *spatial, in)`` with
    ``kernel`` ``(*window, in, out)`` (follows `keras.ops.conv`); ``padding`` ``"valid"`` or
    ``"same"``; ``data_format`` default ``image_data_format()``."""
    data_format = checked_data_format(data_format, "conv")
    inputs, kernel = promote(float_like(inputs), float_like(kernel))
    n = inputs.shape.rank - 2
    x = to_channels_last(inputs, data_format)
    out = tf.nn.convolution(
        x,
        kernel,
        strides=_tuple(strides, n),
        padding=_padding(padding, "conv"),
        dilations=_tuple(dilation_rate, n),
    )
    return from_channels_last(out, data_format)


@keras_op
def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """Depthwise convolution over 1 or 2 spatial axes: each input channel convolved with its
    own ``kernel`` ``(*window, in, multiplier)`` slice, giving ``in * multiplier`` channels
    (follows `keras.ops.depthwise_conv`).

    Raises:
        ValueError: 3 spatial axes (not supported), or a bad padding/data_format.
    """
    data_format = checked_data_format(data_format, "depthwise_conv")
    inputs, kernel = promote(float_like(inputs), float_like(kernel))
    n = inputs.shape.rank - 2
    if n not in (1, 2):
        raise ValueError(
            "keras.ops.depthwise_conv: only 1 or 2 spatial dimensions are supported. "
            f"Received: inputs.shape={tuple(inputs.shape)}"
        )
    x = to_channels_last(inputs, data_format)
    stride, dilation = _tuple(strides, n), _tuple(dilation_rate, n)
    if n == 1:  # as a 2-D convolution over a height of 1 (any row stride: Keras repeats it)
        x, kernel = tf.expand_dims(x, 1), tf.expand_dims(kernel, 0)
        stride, dilation = [stride[0], *stride], [1, *dilation]
    if stride[0] != stride[1]:
        raise ValueError(
            "keras.ops.depthwise_conv: equal strides along both spatial axes are required. "
            f"Received: strides={strides!r}"
        )
    out = tf.nn.depthwise_conv2d(
        x,
        kernel,
        strides=[1, *stride, 1],
        padding=_padding(padding, "depthwise_conv"),
        dilations=dilation,
    )
    if n == 1:
        out = tf.squeeze(out, axis=1)
    return from_channels_last(out, data_format)


@keras_op
def multi_hot(inputs, num_classes, axis=-1, dtype=None, sparse=False):
    """Multi-hot encoding: the classes present in each row of integer ``inputs`` set to 1
    (follows `keras.ops.multi_hot`); ``dtype`` default floatx.

    Raises:
        NotImplementedError: ``sparse=True``.
    """
    if sparse:
        raise NotImplementedError("keras.ops.multi_hot: sparse=True is not supported.")
    inputs = to_tensor(inputs)
    reduction_axis = 1 if inputs.shape.rank > 1 else 0
    dtype = dtypes.as_dtype(dtype or floatx())
    hot = one_hot(inputs, num_classes, axis=axis, dtype=dtype)
    if dtype == dtypes.bool:
        return tf.reduce_any(hot, axis=reduction_axis)
    return tf.reduce_max(hot, axis=reduction_axis)


def _pool(inputs, pool_size, strides, padding, data_format, kind):
    data_format = checked_data_format(data_format, kind)
    inputs = float_like(inputs)
    n = inputs.shape.rank - 2
    window = _tuple(pool_size, n)
    strides = window if strides is None else _tuple(strides, n)
    x = to_channels_last(inputs, data_format)
    fn = tf.nn.max_pool if kind == "max_pool" else tf.nn.avg_pool
    out = fn(x, ksize=window, strides=strides, padding=_padding(padding, kind))
    return from_channels_last(out, data_format)


@keras_op
def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Max pooling over 1-3 spatial axes (follows `keras.ops.max_pool`); ``strides`` default
    ``pool_size``."""
    return _pool(inputs, pool_size, strides, padding, data_format, "max_pool")


@keras_op
def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Average pooling over 1-3 spatial axes (follows `keras.ops.average_pool`); with
    ``"same"`` padding the border windows average only the real elements, as TensorFlow's."""
    return _pool(inputs, pool_size, strides, padding, data_format, "average_pool")


_ = _math
