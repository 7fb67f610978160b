"""3-D pooling layers over volumes, channels last (NDHWC): MaxPooling3D, AveragePooling3D,
GlobalAveragePooling3D and GlobalMaxPooling3D (follow the `tf.keras.layers` classes of those
names), with `ek.nn.max_pool3d`/`avg_pool3d` and reductions."""

from __future__ import annotations

from ...ops import nn as _nn
from ...ops import reduction
from ._utils import (
    check_rank,
    conv_output_length,
    normalize_data_format,
    normalize_padding,
    normalize_tuple,
    shape_of,
)
from .base import Layer

__all__ = [
    "AveragePooling3D",
    "GlobalAveragePooling3D",
    "GlobalMaxPooling3D",
    "MaxPooling3D",
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
