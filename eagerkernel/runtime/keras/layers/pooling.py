"""Pooling layers: MaxPooling2D, AveragePooling2D, GlobalAveragePooling2D, GlobalMaxPooling2D."""

from __future__ import annotations

from ...ops import nn as _nn
from ...ops import reduction
from ._utils import (
    check_rank,
    conv_output_length,
    normalize_data_format,
    normalize_padding,
    normalize_tuple,
)
from .base import Layer

__all__ = [
    "AveragePooling2D",
    "GlobalAveragePooling2D",
    "GlobalMaxPooling2D",
    "MaxPooling2D",
]


class _Pooling2D(Layer):
    _op = None

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        name = type(self).__name__
        self.pool_size = normalize_tuple(pool_size, 2, "pool_size", name)
        self.strides = normalize_tuple(
            self.pool_size if strides is None else strides, 2, "strides", name
        )
        self.padding = normalize_padding(padding, name)
        self.data_format = normalize_data_format(data_format, name)

    def call(self, inputs):
        check_rank(self, tuple(inputs.shape), 4)
        return type(self)._op(inputs, self.pool_size, self.strides, self.padding.upper())

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, 4)
        rows, cols = (
            conv_output_length(n, k, self.padding, s)
            for n, k, s in zip(input_shape[1:3], self.pool_size, self.strides)
        )
        return (input_shape[0], rows, cols, input_shape[3])

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "pool_size": self.pool_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
        }


class MaxPooling2D(_Pooling2D):
    """Maximum over windows of each channel (follows `tf.keras.layers.MaxPooling2D`).

    Args:
        pool_size: an int or a pair (default ``(2, 2)``).
        strides: an int or a pair; None means ``pool_size``.
        padding: ``"valid"`` or ``"same"``.
        data_format: ``"channels_last"`` (or None).

    Input shape:
        ``(batch_size, rows, cols, channels)``.

    Output shape:
        ``(batch_size, pooled_rows, pooled_cols, channels)``: ``ceil((n - pool + 1) / stride)``
        with ``"valid"``, ``ceil(n / stride)`` with ``"same"``.

    >>> x = ek.reshape(ek.range(16.0), (1, 4, 4, 1))
    >>> ek.keras.layers.MaxPooling2D()(x).numpy()[0, :, :, 0]
    array([[ 5.,  7.],
           [13., 15.]], dtype=float32)
    """

    _op = staticmethod(_nn.max_pool2d)


class AveragePooling2D(_Pooling2D):
    """Mean over windows of each channel (follows `tf.keras.layers.AveragePooling2D`).

    With ``"same"`` padding, windows that overlap the border average only the real elements.

    Args:
        pool_size: an int or a pair (default ``(2, 2)``).
        strides: an int or a pair; None means ``pool_size``.
        padding: ``"valid"`` or ``"same"``.
        data_format: ``"channels_last"`` (or None).

    Input shape:
        ``(batch_size, rows, cols, channels)``.

    Output shape:
        ``(batch_size, pooled_rows, pooled_cols, channels)``, as for `MaxPooling2D`.

    >>> x = ek.reshape(ek.range(16.0), (1, 4, 4, 1))
    >>> ek.keras.layers.AveragePooling2D()(x).numpy()[0, :, :, 0]
    array([[ 2.5,  4.5],
           [10.5, 12.5]], dtype=float32)
    """

    _op = staticmethod(_nn.avg_pool2d)


class _GlobalPooling2D(Layer):
    _reduce = None

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format, type(self).__name__)
        self.keepdims = bool(keepdims)

    def call(self, inputs):
        check_rank(self, tuple(inputs.shape), 4)
        return type(self)._reduce(inputs, axis=[1, 2], keepdims=self.keepdims)

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, 4)
        if self.keepdims:
            return (input_shape[0], 1, 1, input_shape[3])
        return (input_shape[0], input_shape[3])

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format, "keepdims": self.keepdims}


class GlobalAveragePooling2D(_GlobalPooling2D):
    """Mean over the spatial axes (follows `tf.keras.layers.GlobalAveragePooling2D`).

    Args:
        data_format: ``"channels_last"`` (or None).
        keepdims: keep the spatial axes with length 1.

    Input shape:
        ``(batch_size, rows, cols, channels)``.

    Output shape:
        ``(batch_size, channels)``, or ``(batch_size, 1, 1, channels)`` with ``keepdims``.

    >>> ek.keras.layers.GlobalAveragePooling2D()(ek.ones((2, 5, 5, 3))).shape
    TensorShape([2, 3])
    """

    _reduce = staticmethod(reduction.reduce_mean)


class GlobalMaxPooling2D(_GlobalPooling2D):
    """Maximum over the spatial axes (follows `tf.keras.layers.GlobalMaxPooling2D`).

    Args:
        data_format: ``"channels_last"`` (or None).
        keepdims: keep the spatial axes with length 1.

    Input shape:
        ``(batch_size, rows, cols, channels)``.

    Output shape:
        ``(batch_size, channels)``, or ``(batch_size, 1, 1, channels)`` with ``keepdims``.

    >>> ek.keras.layers.GlobalMaxPooling2D(keepdims=True)(ek.ones((2, 5, 5, 3))).shape
    TensorShape([2, 1, 1, 3])
    """

    _reduce = staticmethod(reduction.reduce_max)
