"""Depthwise and depthwise-separable convolution layers: DepthwiseConv2D, SeparableConv2D
(`ek.nn.depthwise_conv2d` and `ek.nn.separable_conv2d`)."""

from __future__ import annotations

import numbers

from ...ops import nn as _nn
from .. import initializers, regularizers
from ._utils import cast_to_layer_dtype, check_channels, check_rank, shape_of
from .conv import Conv2D

__all__ = ["DepthwiseConv2D", "SeparableConv2D"]


def _depth_multiplier(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(
            f"{name}: depth_multiplier must be a positive int. Received: depth_multiplier={value!r}"
        )
    return int(value)


class _Depthwise(Conv2D):
    """What both layers share: the depthwise kernel and the channel check on call."""

    def _init_depthwise(self, depth_multiplier, initializer, regularizer, constraint):
        name = type(self).__name__
        self.depth_multiplier = _depth_multiplier(depth_multiplier, name)
        self.depthwise_initializer = initializers.get(initializer or "glorot_uniform")
        self.depthwise_regularizer = regularizers.get(regularizer)
        self.depthwise_constraint = constraint

    def _add_depthwise(self, input_shape):
        input_shape = check_channels(self, input_shape, 4)
        self._built_shape = input_shape
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel",
            shape=(*self.kernel_size, input_shape[-1], self.depth_multiplier),
            initializer=self.depthwise_initializer,
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
        )
        return input_shape

    def _checked_input(self, inputs):
        x = cast_to_layer_dtype(self, inputs)
        shape = shape_of(x)
        check_rank(self, shape, 4)
        channels = self.depthwise_kernel.shape[2]
        if shape[-1] != channels:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected axis '
                f"-1 of input shape to have value {channels} (the layer was built for input "
                f"shape {self._built_shape}), but received input with shape {shape}"
            )
        return x

    def _depthwise_config(self, config: dict) -> dict:
        for key in ("kernel_initializer", "kernel_regularizer", "kernel_constraint"):
            config.pop(key, None)
        config.update(
            depth_multiplier=self.depth_multiplier,
            depthwise_initializer=initializers.serialize(self.depthwise_initializer),
            depthwise_regularizer=regularizers.serialize(self.depthwise_regularizer),
        )
        return config


class DepthwiseConv2D(_Depthwise):
    """Depthwise 2-D convolution: each input channel convolved with its own
    ``depth_multiplier`` filters, channels last (follows `tf.keras.layers.DepthwiseConv2D`).

    Args:
        kernel_size: an int or a pair. strides, padding, data_format, dilation_rate,
            activation, use_bias, bias_*: as `Conv2D`.
        depth_multiplier: output channels per input channel (default 1).
        depthwise_initializer, depthwise_regularizer, depthwise_constraint: for the kernel.

    Input shape: ``(batch_size, rows, cols, channels)``. Output shape: ``(batch_size,
    new_rows, new_cols, channels * depth_multiplier)``.

    Weights: ``depthwise_kernel`` ``(kh, kw, channels, depth_multiplier)``, then ``bias``
    ``(channels * depth_multiplier,)``.

    Raises:
        ValueError: bad arguments; an input that is not rank 4 or has another channel count
            than the layer was built for.

    >>> layer = ek.keras.layers.DepthwiseConv2D(3, depth_multiplier=2, padding="same")
    >>> layer(ek.ones((1, 8, 8, 3))).shape
    TensorShape([1, 8, 8, 6])
    >>> [tuple(v.shape) for v in layer.weights]
    [(3, 3, 3, 2), (6,)]
    """

    def __init__(
        self,
        kernel_size,
        strides=(1, 1),
        padding="valid",
        depth_multiplier=1,
        data_format=None,
        dilation_rate=(1, 1),
        activation=None,
        use_bias=True,
        depthwise_initializer="glorot_uniform",
        bias_initializer="zeros",
        depthwise_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        depthwise_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(
            1,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            use_bias=use_bias,
            bias_initializer=bias_initializer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            bias_constraint=bias_constraint,
            **kwargs,
        )
        self._init_depthwise(
            depth_multiplier, depthwise_initializer, depthwise_regularizer, depthwise_constraint
        )

    def build(self, input_shape) -> None:
        input_shape = self._add_depthwise(input_shape)
        self.filters = input_shape[-1] * self.depth_multiplier
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                shape=(self.filters,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self.built = True

    def call(self, inputs):
        x = self._checked_input(inputs)
        y = _nn.depthwise_conv2d(
            x,
            self.depthwise_kernel,
            self.strides,
            self.padding.upper(),
            dilations=self.dilation_rate,
        )
        if self.use_bias:
            y = _nn.bias_add(y, self.bias)
        return self.activation(y)

    def compute_output_shape(self, input_shape) -> tuple:
        shape = super().compute_output_shape(input_shape)
        channels = tuple(input_shape)[-1]
        return (*shape[:3], None if channels is None else channels * self.depth_multiplier)

    def get_config(self) -> dict:
        config = self._depthwise_config(super().get_config())
        config.pop("filters", None)
        return config


class SeparableConv2D(_Depthwise):
    """Depthwise-separable 2-D convolution: a depthwise convolution, then a 1x1 convolution
    to ``filters`` channels (follows `tf.keras.layers.SeparableConv2D`).

    Args:
        filters: the output channels. kernel_size, strides, padding, data_format,
            dilation_rate, activation, use_bias, bias_*: as `Conv2D`.
        depth_multiplier: depthwise output channels per input channel (default 1).
        depthwise_* and pointwise_*: initializer, regularizer and constraint of each kernel.

    Weights: ``depthwise_kernel`` ``(kh, kw, channels, depth_multiplier)``,
    ``pointwise_kernel`` ``(1, 1, channels * depth_multiplier, filters)``, then ``bias``
    ``(filters,)``.

    >>> layer = ek.keras.layers.SeparableConv2D(4, 3)
    >>> layer(ek.ones((1, 8, 8, 3))).shape
    TensorShape([1, 6, 6, 4])
    >>> [tuple(v.shape) for v in layer.weights]
    [(3, 3, 3, 1), (1, 1, 3, 4), (4,)]
    """

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1),
        padding="valid",
        data_format=None,
        dilation_rate=(1, 1),
        depth_multiplier=1,
        activation=None,
        use_bias=True,
        depthwise_initializer="glorot_uniform",
        pointwise_initializer="glorot_uniform",
        bias_initializer="zeros",
        depthwise_regularizer=None,
        pointwise_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        depthwise_constraint=None,
        pointwise_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            use_bias=use_bias,
            bias_initializer=bias_initializer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            bias_constraint=bias_constraint,
            **kwargs,
        )
        self._init_depthwise(
            depth_multiplier, depthwise_initializer, depthwise_regularizer, depthwise_constraint
        )
        self.pointwise_initializer = initializers.get(pointwise_initializer or "glorot_uniform")
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.pointwise_constraint = pointwise_constraint

    def build(self, input_shape) -> None:
        input_shape = self._add_depthwise(input_shape)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel",
            shape=(1, 1, input_shape[-1] * self.depth_multiplier, self.filters),
            initializer=self.pointwise_initializer,
            regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                shape=(self.filters,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self.built = True

    def call(self, inputs):
        x = self._checked_input(inputs)
        y = _nn.separable_conv2d(
            x,
            self.depthwise_kernel,
            self.pointwise_kernel,
            self.strides,
            self.padding.upper(),
            dilations=self.dilation_rate,
        )
        if self.use_bias:
            y = _nn.bias_add(y, self.bias)
        return self.activation(y)

    def get_config(self) -> dict:
        config = self._depthwise_config(super().get_config())
        config.update(
            pointwise_initializer=initializers.serialize(self.pointwise_initializer),
            pointwise_regularizer=regularizers.serialize(self.pointwise_regularizer),
        )
        return config
