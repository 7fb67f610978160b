"""1-D convolution variants over ``(batch, steps, channels)``: Conv1DTranspose, SeparableConv1D
and DepthwiseConv1D (follow the `tf.keras.layers` classes of those names, channels last). Each
runs the 2-D op of its 2-D sibling (`ek.nn.conv1d_transpose`, `ek.nn.separable_conv2d`,
`ek.nn.depthwise_conv2d`) on a view of the input with a height of 1."""

from __future__ import annotations

from ...ops import array_ops
from ...ops import nn as _nn
from ._utils import (
    add_kernel_and_bias,
    cast_to_layer_dtype,
    check_channels,
    check_last_axis,
    check_rank,
    conv_output_length,
    normalize_data_format,
    normalize_tuple,
    shape_of,
)
from .conv import Conv2D
from .conv3d import deconv_length, normalize_output_padding
from .conv_depthwise import DepthwiseConv2D, SeparableConv2D

__all__ = ["Conv1DTranspose", "DepthwiseConv1D", "SeparableConv1D"]


def _one(value, name: str, layer: str) -> int:
    return normalize_tuple(value, 1, name, layer)[0]


def _as_2d(kwargs: dict, layer: str, data_format=None) -> dict:
    """``kernel_size``, ``strides`` and ``dilation_rate`` of a 1-D layer as the ``(1, n)``
    pairs of the 2-D layer it extends (``data_format`` checked with the 1-D message)."""
    normalize_data_format(data_format, layer, 1)
    for key in ("kernel_size", "strides", "dilation_rate"):
        if key in kwargs:
            kwargs[key] = (1, _one(kwargs[key], key, layer))
    return kwargs


def _config_1d(layer, config: dict) -> dict:
    config.update(
        kernel_size=(layer.kernel_size[1],),
        strides=(layer.strides[1],),
        dilation_rate=(layer.dilation_rate[1],),
    )
    return config


def _steps(layer, steps):
    return conv_output_length(
        steps, layer.kernel_size[1], layer.padding, layer.strides[1], layer.dilation_rate[1]
    )


class Conv1DTranspose(Conv2D):
    """Transposed 1-D convolution, the gradient of `Conv1D` with respect to its input (follows
    `tf.keras.layers.Conv1DTranspose`), with `ek.nn.conv1d_transpose`.

    Args:
        filters: positive int, the output channels.
        kernel_size, strides, dilation_rate: an int or a tuple of one int.
        padding: ``"valid"`` or ``"same"``.
        output_padding: None (default) or an int smaller than the stride, added to the end of
            the output.
        data_format: ``"channels_last"`` (or None); channels_first raises ValueError.
        activation, use_bias, the initializers, regularizers and constraints: as `Conv1D`.

    Input shape: ``(batch_size, steps, channels)``. Output shape: ``(batch_size, new_steps,
    filters)``, ``steps * stride + max(kernel - stride, 0)`` with ``"valid"``, ``steps *
    stride`` with ``"same"`` (without ``output_padding``).

    Weights: ``kernel`` of shape ``(kernel_size, filters, channels)``, ``bias``
    ``(filters,)``.

    Raises:
        ValueError: bad arguments (Keras's messages); an input that is not rank 3 or has
            another channel count than the layer was built for.

    >>> ek.keras.layers.Conv1DTranspose(4, 3, strides=2)(ek.ones((2, 5, 3))).shape
    TensorShape([2, 11, 4])
    """

    def __init__(
        self,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        output_padding=None,
        data_format=None,
        dilation_rate=1,
        **kwargs,
    ):
        name = type(self).__name__
        args = _as_2d(
            {"kernel_size": kernel_size, "strides": strides, "dilation_rate": dilation_rate},
            name,
            data_format,
        )
        super().__init__(filters, padding=padding, data_format=data_format, **args, **kwargs)
        pad = normalize_output_padding(output_padding, 1, (self.strides[1],), name)
        self.output_padding = pad

    def build(self, input_shape) -> None:
        input_shape = check_channels(self, input_shape, 3)
        self._built_shape = input_shape
        add_kernel_and_bias(
            self, (self.kernel_size[1], self.filters, input_shape[-1]), self.filters
        )
        self.built = True

    def _out_steps(self, steps):
        pad = None if self.output_padding is None else self.output_padding[0]
        return deconv_length(
            steps, self.kernel_size[1], self.padding, pad, self.strides[1], self.dilation_rate[1]
        )

    def call(self, inputs):
        x = cast_to_layer_dtype(self, inputs)
        shape = shape_of(x)
        check_rank(self, shape, 3)
        check_last_axis(self, shape, self.kernel.shape[2], self._built_shape)
        y = _nn.conv1d_transpose(
            x,
            self.kernel,
            (shape[0], self._out_steps(shape[1]), self.filters),
            self.strides[1],
            self.padding.upper(),
            dilations=self.dilation_rate[1],
        )
        if self.use_bias:
            y = _nn.bias_add(y, self.bias)
        return self.activation(y)

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, 3)
        return (input_shape[0], self._out_steps(input_shape[1]), self.filters)

    def get_config(self) -> dict:
        config = _config_1d(self, super().get_config())
        config["output_padding"] = self.output_padding
        return config


class _Depthwise1D:
    """The rank-3 input check of the 1-D depthwise layers."""

    def _checked_input(self, inputs):
        x = cast_to_layer_dtype(self, inputs)
        shape = shape_of(x)
        check_rank(self, shape, 3)
        check_last_axis(self, shape, self.depthwise_kernel.shape[1], self._built_shape)
        return x

    def _add_depthwise_1d(self, input_shape) -> tuple:
        input_shape = check_channels(self, input_shape, 3)
        self._built_shape = input_shape
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel",
            shape=(self.kernel_size[1], input_shape[-1], self.depth_multiplier),
            initializer=self.depthwise_initializer,
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
        )
        return input_shape

    def _add_bias(self) -> None:
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                shape=(self.filters,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )

    def _finish(self, y):
        y = array_ops.squeeze(y, [1])
        if self.use_bias:
            y = _nn.bias_add(y, self.bias)
        return self.activation(y)


class DepthwiseConv1D(_Depthwise1D, DepthwiseConv2D):
    """Depthwise 1-D convolution: each input channel convolved with its own
    ``depth_multiplier`` filters (follows `tf.keras.layers.DepthwiseConv1D`).

    Args:
        kernel_size, strides, dilation_rate: an int or a tuple of one int.
        padding: ``"valid"`` or ``"same"``. depth_multiplier: output channels per input
            channel (default 1). data_format: ``"channels_last"`` (or None).
        activation, use_bias, depthwise_initializer, bias_initializer,
            depthwise_regularizer, bias_regularizer, activity_regularizer,
            depthwise_constraint, bias_constraint: as `DepthwiseConv2D`.

    Input shape: ``(batch_size, steps, channels)``. Output shape: ``(batch_size, new_steps,
    channels * depth_multiplier)``.

    Weights: ``depthwise_kernel`` ``(kernel_size, channels, depth_multiplier)``, then
    ``bias`` ``(channels * depth_multiplier,)``.

    Raises:
        ValueError: bad arguments; an input that is not rank 3 or has another channel count
            than the layer was built for.

    >>> layer = ek.keras.layers.DepthwiseConv1D(3, depth_multiplier=2)
    >>> layer(ek.ones((1, 8, 3))).shape
    TensorShape([1, 6, 6])
    >>> [tuple(v.shape) for v in layer.weights]
    [(3, 3, 2), (6,)]
    """

    def __init__(
        self,
        kernel_size,
        strides=1,
        padding="valid",
        depth_multiplier=1,
        data_format=None,
        dilation_rate=1,
        **kwargs,
    ):
        args = _as_2d(
            {"kernel_size": kernel_size, "strides": strides, "dilation_rate": dilation_rate},
            type(self).__name__,
            data_format,
        )
        super().__init__(
            padding=padding,
            depth_multiplier=depth_multiplier,
            data_format=data_format,
            **args,
            **kwargs,
        )

    def build(self, input_shape) -> None:
        input_shape = self._add_depthwise_1d(input_shape)
        self.filters = input_shape[-1] * self.depth_multiplier
        self._add_bias()
        self.built = True

    def call(self, inputs):
        x = self._checked_input(inputs)
        y = _nn.depthwise_conv2d(
            array_ops.expand_dims(x, 1),
            array_ops.expand_dims(self.depthwise_kernel, 0),
            self.strides,
            self.padding.upper(),
            dilations=self.dilation_rate,
        )
        return self._finish(y)

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, 3)
        c = input_shape[2]
        return (
            input_shape[0],
            _steps(self, input_shape[1]),
            None if c is None else c * self.depth_multiplier,
        )

    def get_config(self) -> dict:
        return _config_1d(self, super().get_config())


class SeparableConv1D(_Depthwise1D, SeparableConv2D):
    """Depthwise-separable 1-D convolution: a depthwise convolution, then a pointwise (size 1)
    convolution to ``filters`` channels (follows `tf.keras.layers.SeparableConv1D`).

    Args:
        filters: the output channels. kernel_size, strides, dilation_rate: an int or a tuple
            of one int. padding: ``"valid"`` or ``"same"``. data_format:
            ``"channels_last"`` (or None). depth_multiplier: depthwise output channels per
            input channel (default 1).
        activation, use_bias, depthwise_* and pointwise_* initializer/regularizer/constraint,
            bias_*: as `SeparableConv2D`.

    Input shape: ``(batch_size, steps, channels)``. Output shape: ``(batch_size, new_steps,
    filters)``.

    Weights: ``depthwise_kernel`` ``(kernel_size, channels, depth_multiplier)``,
    ``pointwise_kernel`` ``(1, channels * depth_multiplier, filters)``, then ``bias``
    ``(filters,)``.

    Raises:
        ValueError: bad arguments; an input that is not rank 3 or has another channel count
            than the layer was built for.

    >>> layer = ek.keras.layers.SeparableConv1D(4, 3, padding="same")
    >>> layer(ek.ones((2, 7, 3))).shape
    TensorShape([2, 7, 4])
    >>> [tuple(v.shape) for v in layer.weights]
    [(3, 3, 1), (1, 3, 4), (4,)]
    """

    def __init__(
        self,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        depth_multiplier=1,
        **kwargs,
    ):
        args = _as_2d(
            {"kernel_size": kernel_size, "strides": strides, "dilation_rate": dilation_rate},
            type(self).__name__,
            data_format,
        )
        super().__init__(
            filters,
            padding=padding,
            data_format=data_format,
            depth_multiplier=depth_multiplier,
            **args,
            **kwargs,
        )

    def build(self, input_shape) -> None:
        input_shape = self._add_depthwise_1d(input_shape)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel",
            shape=(1, input_shape[-1] * self.depth_multiplier, self.filters),
            initializer=self.pointwise_initializer,
            regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint,
        )
        self._add_bias()
        self.built = True

    def call(self, inputs):
        x = self._checked_input(inputs)
        y = _nn.separable_conv2d(
            array_ops.expand_dims(x, 1),
            array_ops.expand_dims(self.depthwise_kernel, 0),
            array_ops.expand_dims(self.pointwise_kernel, 0),
            self.strides,
            self.padding.upper(),
            dilations=self.dilation_rate,
        )
        return self._finish(y)

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, 3)
        return (input_shape[0], _steps(self, input_shape[1]), self.filters)

    def get_config(self) -> dict:
        return _config_1d(self, super().get_config())
