"""Convolution layers: Conv2D."""

from __future__ import annotations

import numbers

from ...ops import nn as _nn
from .. import activations, initializers, regularizers
from ._utils import (
    add_kernel_and_bias,
    cast_to_layer_dtype,
    check_channels,
    check_rank,
    conv_output_length,
    normalize_data_format,
    normalize_padding,
    normalize_tuple,
    shape_of,
)
from .base import Layer

__all__ = ["Conv2D"]


class Conv2D(Layer):
    """2-D convolution over images, channels last (follows `tf.keras.layers.Conv2D`).

    Computes ``activation(conv2d(inputs, kernel) + bias)`` with `ek.nn.conv2d`.

    Args:
        filters: positive int, the number of output channels.
        kernel_size: an int or a pair ``(kh, kw)``.
        strides: an int or a pair (default 1).
        padding: ``"valid"`` (no padding) or ``"same"`` (output size ``ceil(input /
            stride)``), case-insensitive.
        data_format: ``"channels_last"`` (or None); channels_first is refused on CPU.
        dilation_rate: an int or a pair (default 1); not combined with strides > 1 (Keras).
        groups: 1 (grouped convolutions are not supported).
        activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
            bias_regularizer, kernel_constraint, bias_constraint: as for `Dense`.

    Input shape:
        ``(batch_size, rows, cols, channels)``.

    Output shape:
        ``(batch_size, new_rows, new_cols, filters)``; with ``"valid"``, ``new = ceil((n -
        (k - 1) * dilation) / stride)``.

    Weights: ``kernel`` of shape ``(kh, kw, channels, filters)``, then ``bias`` ``(filters,)``.

    Raises:
        ValueError: bad arguments (Keras's messages, ending with ``Received: ...``); an input
            that is not rank 4, or whose channel count differs from the one the layer was
            built for (both shapes named).

    >>> conv = ek.keras.layers.Conv2D(8, 3, padding="same", activation="relu", name="c")
    >>> conv(ek.ones((2, 28, 28, 1))).shape
    TensorShape([2, 28, 28, 8])
    >>> [(v.name, tuple(v.shape)) for v in conv.variables]
    [('c/kernel:0', (3, 3, 1, 8)), ('c/bias:0', (8,))]
    >>> conv.compute_output_shape((None, 28, 28, 1))
    (None, 28, 28, 8)
    """

    _spatial = 2  # spatial axes (Conv3D sets 3)

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1),
        padding="valid",
        data_format=None,
        dilation_rate=(1, 1),
        groups=1,
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        name = type(self).__name__
        if isinstance(filters, bool) or not isinstance(filters, numbers.Integral) or filters <= 0:
            raise ValueError(
                f"Invalid value for argument `filters`. Expected a strictly positive value. "
                f"Received filters={filters!r}."
            )
        if groups != 1:
            raise ValueError(
                f"{name}: grouped convolutions are not supported. Received: groups={groups!r}"
            )
        self.filters = int(filters)
        rank = self._spatial
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size", name)
        self.strides = normalize_tuple(strides, rank, "strides", name)
        self.padding = normalize_padding(padding, name)
        self.data_format = normalize_data_format(data_format, name, rank)
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate", name)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                f"{name}: `strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                f"Received: strides={self.strides} and dilation_rate={self.dilation_rate}"
            )
        self.groups = 1
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer or "glorot_uniform")
        self.bias_initializer = initializers.get(bias_initializer or "zeros")
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint

    def build(self, input_shape) -> None:
        input_shape = check_channels(self, input_shape, 4)
        self._built_shape = input_shape
        add_kernel_and_bias(self, (*self.kernel_size, input_shape[-1], self.filters), self.filters)
        self.built = True

    def call(self, inputs):
        x = cast_to_layer_dtype(self, inputs)
        shape = shape_of(x)
        check_rank(self, shape, 4)
        channels = self.kernel.shape[2]
        if shape[-1] != channels:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected axis '
                f"-1 of input shape to have value {channels} (the layer was built for input "
                f"shape {self._built_shape}, kernel shape {tuple(self.kernel.shape)}), but "
                f"received input with shape {shape}"
            )
        y = _nn.conv2d(
            x, self.kernel, self.strides, self.padding.upper(), dilations=self.dilation_rate
        )
        if self.use_bias:
            y = _nn.bias_add(y, self.bias)
        return self.activation(y)

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, 4)
        rows, cols = (
            conv_output_length(n, k, self.padding, s, d)
            for n, k, s, d in zip(
                input_shape[1:3], self.kernel_size, self.strides, self.dilation_rate
            )
        )
        return (input_shape[0], rows, cols, self.filters)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "filters": self.filters,
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
        }
