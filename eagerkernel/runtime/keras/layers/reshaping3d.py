"""3-D pooling and shape layers over volumes, channels last (NDHWC): MaxPooling3D,
AveragePooling3D, GlobalAveragePooling3D, GlobalMaxPooling3D, UpSampling3D, ZeroPadding3D,
Cropping3D and SpatialDropout3D (follow the `tf.keras.layers` classes of those names)."""

from __future__ import annotations

from ...ops import array_ops, reduction
from ...ops import nn as _nn
from ._utils import (
    check_rank,
    conv_output_length,
    normalize_data_format,
    normalize_padding,
    normalize_tuple,
    shape_of,
)
from .base import Layer
from .noise import SpatialDropout2D
from .reshaping import _check_crop, _pairs

__all__ = [
    "AveragePooling3D",
    "Cropping3D",
    "GlobalAveragePooling3D",
    "GlobalMaxPooling3D",
    "MaxPooling3D",
    "SpatialDropout3D",
    "UpSampling3D",
    "ZeroPadding3D",
]


class _Pooling3D(Layer):
    _op = None

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        name = type(self).__name__
        self.pool_size = normalize_tuple(pool_size, 3, "pool_size", name)
        self.strides = normalize_tuple(
            self.pool_size if strides is None else strides, 3, "strides", name
        )
        self.padding = normalize_padding(padding, name)
        self.data_format = normalize_data_format(data_format, name, 3)

    def call(self, inputs):
        check_rank(self, shape_of(inputs), 5)
        return type(self)._op(inputs, self.pool_size, self.strides, self.padding.upper())

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, 5)
        spatial = tuple(
            conv_output_length(n, k, self.padding, s)
            for n, k, s in zip(input_shape[1:4], self.pool_size, self.strides)
        )
        return (input_shape[0], *spatial, input_shape[4])

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "pool_size": self.pool_size,
            "padding": self.padding,
            "strides": self.strides,
            "data_format": self.data_format,
        }


class MaxPooling3D(_Pooling3D):
    """Maximum over 3-D windows of each channel (follows `tf.keras.layers.MaxPooling3D`),
    with `ek.nn.max_pool3d`.

    Args:
        pool_size: an int or a triple (default ``(2, 2, 2)``).
        strides: an int or a triple; None means ``pool_size``.
        padding: ``"valid"`` or ``"same"``.
        data_format: ``"channels_last"`` (or None); channels_first raises ValueError.

    Input shape:
        ``(batch_size, depth, rows, cols, channels)``.

    Output shape:
        ``(batch_size, pooled_depth, pooled_rows, pooled_cols, channels)``: per axis
        ``ceil((n - pool + 1) / stride)`` with ``"valid"``, ``ceil(n / stride)`` with
        ``"same"``.

    Raises:
        ValueError: bad arguments, or an input that is not rank 5.

    >>> x = ek.reshape(ek.range(8.0), (1, 2, 2, 2, 1))
    >>> ek.keras.layers.MaxPooling3D()(x).numpy().ravel()
    array([7.], dtype=float32)
    """

    _op = staticmethod(_nn.max_pool3d)

    def __init__(
        self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None, **kwargs
    ):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling3D(_Pooling3D):
    """Mean over 3-D windows of each channel (follows `tf.keras.layers.AveragePooling3D`),
    with `ek.nn.avg_pool3d`; with ``"same"`` padding a window's mean is over its elements
    inside the input.

    Args:
        pool_size: an int or a triple (required, as in Keras 3).
        strides: an int or a triple; None means ``pool_size``.
        padding: ``"valid"`` or ``"same"``.
        data_format: ``"channels_last"`` (or None); channels_first raises ValueError.

    Input shape:
        ``(batch_size, depth, rows, cols, channels)``.

    Output shape:
        ``(batch_size, pooled_depth, pooled_rows, pooled_cols, channels)``, as for
        `MaxPooling3D`.

    Raises:
        ValueError: bad arguments, or an input that is not rank 5.

    >>> x = ek.reshape(ek.range(8.0), (1, 2, 2, 2, 1))
    >>> ek.keras.layers.AveragePooling3D(2)(x).numpy().ravel()
    array([3.5], dtype=float32)
    """

    _op = staticmethod(_nn.avg_pool3d)

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class _GlobalPooling3D(Layer):
    _reduce = None

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format, type(self).__name__, 3)
        self.keepdims = bool(keepdims)

    def call(self, inputs):
        check_rank(self, shape_of(inputs), 5)
        return type(self)._reduce(inputs, axis=[1, 2, 3], keepdims=self.keepdims)

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, 5)
        if self.keepdims:
            return (input_shape[0], 1, 1, 1, input_shape[4])
        return (input_shape[0], input_shape[4])

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format, "keepdims": self.keepdims}


class GlobalAveragePooling3D(_GlobalPooling3D):
    """Mean over the three spatial axes (follows `tf.keras.layers.GlobalAveragePooling3D`).

    Args:
        data_format: ``"channels_last"`` (or None). keepdims: keep the spatial axes with
            length 1.

    Input shape: ``(batch_size, depth, rows, cols, channels)``. Output shape:
    ``(batch_size, channels)``, or ``(batch_size, 1, 1, 1, channels)`` with ``keepdims``.

    >>> ek.keras.layers.GlobalAveragePooling3D()(ek.ones((2, 3, 4, 5, 6))).shape
    TensorShape([2, 6])
    """

    _reduce = staticmethod(reduction.reduce_mean)


class GlobalMaxPooling3D(_GlobalPooling3D):
    """Maximum over the three spatial axes (follows `tf.keras.layers.GlobalMaxPooling3D`).

    Args:
        data_format: ``"channels_last"`` (or None). keepdims: keep the spatial axes with
            length 1.

    Input shape: ``(batch_size, depth, rows, cols, channels)``. Output shape:
    ``(batch_size, channels)``, or ``(batch_size, 1, 1, 1, channels)`` with ``keepdims``.

    >>> ek.keras.layers.GlobalMaxPooling3D(keepdims=True)(ek.ones((2, 3, 4, 5, 6))).shape
    TensorShape([2, 1, 1, 1, 6])
    """

    _reduce = staticmethod(reduction.reduce_max)


def _times(n, k):
    return None if n is None else n * k


class UpSampling3D(Layer):
    """Repeats each depth slice, row and column ``size`` times (follows
    `tf.keras.layers.UpSampling3D`, nearest neighbour).

    Args:
        size: an int or a triple of factors (default ``(2, 2, 2)``).
        data_format: ``"channels_last"`` (or None); channels_first raises ValueError.

    Input shape: ``(batch_size, depth, rows, cols, channels)``. Output shape:
    ``(batch_size, depth * size[0], rows * size[1], cols * size[2], channels)``.

    Raises:
        ValueError: bad ``size``, or an input that is not rank 5.

    >>> x = ek.reshape(ek.range(2.0), (1, 2, 1, 1, 1))
    >>> ek.keras.layers.UpSampling3D((2, 1, 3))(x).numpy()[0, :, 0, :, 0]
    array([[0., 0., 0.],
           [0., 0., 0.],
           [1., 1., 1.],
           [1., 1., 1.]], dtype=float32)
    """

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.size = normalize_tuple(size, 3, "size", "UpSampling3D")
        self.data_format = normalize_data_format(data_format, "UpSampling3D", 3)

    def call(self, inputs):
        shape = shape_of(inputs)
        check_rank(self, shape, 5)
        b, d, h, w, c = shape
        sd, sh, sw = self.size
        x = array_ops.reshape(inputs, (b, d, 1, h, 1, w, 1, c))
        x = array_ops.broadcast_to(x, (b, d, sd, h, sh, w, sw, c))
        return array_ops.reshape(x, (b, d * sd, h * sh, w * sw, c))

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, 5)
        b, d, h, w, c = input_shape
        return (b, *(_times(n, k) for n, k in zip((d, h, w), self.size)), c)

    def get_config(self) -> dict:
        return {**super().get_config(), "size": self.size, "data_format": self.data_format}


class ZeroPadding3D(Layer):
    """Pads a ``(batch, depth, rows, cols, channels)`` input with zeros (follows
    `tf.keras.layers.ZeroPadding3D`).

    Args:
        padding: an int (all sides), a triple ``(d, h, w)`` (symmetric) or three pairs
            ``((front, back), (top, bottom), (left, right))``; default 1 on every side.
        data_format: ``"channels_last"`` (or None); channels_first raises ValueError.

    Raises:
        ValueError: a malformed or negative ``padding``, or an input that is not rank 5.

    >>> ek.keras.layers.ZeroPadding3D(((1, 0), (0, 2), (1, 1)))(ek.ones((1, 2, 2, 2, 1))).shape
    TensorShape([1, 3, 4, 4, 1])
    """

    def __init__(self, padding=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs(padding, 3, "padding", "ZeroPadding3D")
        self.data_format = normalize_data_format(data_format, "ZeroPadding3D", 3)

    def call(self, inputs):
        check_rank(self, shape_of(inputs), 5)
        return array_ops.pad(inputs, [[0, 0], *map(list, self.padding), [0, 0]])

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, 5)
        spatial = (
            None if n is None else n + sum(p) for n, p in zip(input_shape[1:4], self.padding)
        )
        return (input_shape[0], *spatial, input_shape[4])

    def get_config(self) -> dict:
        return {**super().get_config(), "padding": self.padding, "data_format": self.data_format}


class Cropping3D(Layer):
    """Crops the depth, rows and columns of a ``(batch, depth, rows, cols, channels)`` input
    (follows `tf.keras.layers.Cropping3D`).

    Args:
        cropping: an int, a triple (symmetric) or three ``(start, end)`` pairs; default 1 on
            every side.
        data_format: ``"channels_last"`` (or None); channels_first raises ValueError.

    Raises:
        ValueError: a malformed or negative ``cropping``; cropping as long as an axis or
            longer (Keras's message); an input that is not rank 5.

    >>> ek.keras.layers.Cropping3D(((1, 0), (1, 1), (0, 2)))(ek.ones((1, 3, 4, 5, 2))).shape
    TensorShape([1, 2, 2, 3, 2])
    """

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, 3, "cropping", "Cropping3D")
        self.data_format = normalize_data_format(data_format, "Cropping3D", 3)

    def call(self, inputs):
        shape = shape_of(inputs)
        self.compute_output_shape(shape)
        (f, bk), (t, b), (le, r) = self.cropping
        return inputs[:, f : shape[1] - bk, t : shape[2] - b, le : shape[3] - r, :]

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, 5)
        for n, crop in zip(input_shape[1:4], self.cropping):
            _check_crop(self, n, crop, input_shape)
        spatial = (
            None if n is None else n - sum(c) for n, c in zip(input_shape[1:4], self.cropping)
        )
        return (input_shape[0], *spatial, input_shape[4])

    def get_config(self) -> dict:
        return {**super().get_config(), "cropping": self.cropping, "data_format": self.data_format}


class SpatialDropout3D(SpatialDropout2D):
    """Drops whole channels of a ``(batch, depth, rows, cols, channels)`` input in training
    (follows `tf.keras.layers.SpatialDropout3D`): `Dropout` with noise shape ``(batch, 1, 1,
    1, channels)``; the identity at inference.

    Args:
        rate: float in [0, 1). data_format: ``"channels_last"`` (or None). seed: optional int.

    Raises:
        ValueError: ``rate`` outside [0, 1), channels_first, or an input not of rank 5.

    >>> layer = ek.keras.layers.SpatialDropout3D(0.5, seed=1)
    >>> y = layer(ek.ones((2, 3, 3, 3, 4)), training=True).numpy()
    >>> bool(((y == 0) | (y == 2)).all() and (y.std(axis=(1, 2, 3)) == 0).all())
    True
    """

    _rank = 5

    def __init__(self, rate, data_format=None, seed=None, **kwargs):
        super().__init__(rate, seed=seed, **kwargs)
        self.data_format = normalize_data_format(data_format, "SpatialDropout3D", 3)
