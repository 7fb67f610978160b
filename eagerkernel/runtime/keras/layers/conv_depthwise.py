"""Depthwise and depthwise-separable convolution layers over 1 or 2 spatial axes:
DepthwiseConv1D/2D and SeparableConv1D/2D (follow the `tf.keras.layers` classes of those
names). Both ranks run `ek.nn.depthwise_conv2d`/`ek.nn.separable_conv2d`; the 1-D layers on a
view of the input with a height of 1."""

from __future__ import annotations

import numbers

from ...ops import array_ops
from ...ops import nn as _nn
from .. import initializers, regularizers
from ._utils import add_named_weight, check_channels, set_weight_args
from .conv_base import BaseConv, check_output_size

__all__ = ["DepthwiseConv1D", "DepthwiseConv2D", "SeparableConv1D", "SeparableConv2D"]


def _depth_multiplier(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(
            f"{name}: depth_multiplier must be a positive int. Received: depth_multiplier={value!r}"
        )
    return int(value)


class _BaseDepthwise(BaseConv):
    """What the depthwise and separable layers of every rank share: the depthwise kernel
    ``(*kernel_size, channels, depth_multiplier)``, the bias, the call through the 2-D op
    (``_op``) and the config's ``depth_multiplier``/``depthwise_*`` entries (no ``kernel_*``,
    no ``groups``).

    The other arguments (strides, padding, data_format, dilation_rate, activation, use_bias,
    bias_*, activity_regularizer) are `BaseConv`'s.

    Raises:
        TypeError: ``kernel_initializer``, ``kernel_regularizer``, ``kernel_constraint`` or
            ``groups``, which these layers do not take (their kernels are ``depthwise_*``).
        ValueError: a ``depth_multiplier`` that is not a positive int; `BaseConv`'s errors.
    """

    _depthwise_name = "depthwise_kernel"  # the depthwise kernel's attribute and weight name

    def __init__(
        self,
        filters,
        kernel_size,
        strides,
        padding,
        data_format,
        dilation_rate,
        depth_multiplier,
        depthwise_initializer="glorot_uniform",
        depthwise_regularizer=None,
        depthwise_constraint=None,
        **kwargs,
    ):
        name = type(self).__name__
        for key in ("kernel_initializer", "kernel_regularizer", "kernel_constraint", "groups"):
            if key in kwargs:
                raise TypeError(
                    f"{name}: unexpected keyword argument {key!r}; the depthwise kernel takes "
                    f"depthwise_initializer, depthwise_regularizer and depthwise_constraint."
                )
        super().__init__(
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            **kwargs,
        )
        self.depth_multiplier = _depth_multiplier(depth_multiplier, name)
        set_weight_args(
            self, "depthwise", depthwise_initializer, depthwise_regularizer, depthwise_constraint
        )

    def _add_depthwise(self, input_shape) -> tuple:
        input_shape = check_channels(self, input_shape, self._spatial + 2)
        separable = isinstance(self, _BaseSeparableConv)  # Keras names its filters, else C * m
        filters = self.filters if separable else self.depth_multiplier * (input_shape[-1] or 0)
        check_output_size(self, input_shape, filters)
        self._built_shape = input_shape
        shape = (*self.kernel_size, input_shape[-1], self.depth_multiplier)
        name = self._depthwise_name
        setattr(self, name, add_named_weight(self, name, shape, "depthwise"))
        return input_shape

    def _add_bias(self) -> None:
        self.bias = add_named_weight(self, "bias", (self.filters,)) if self.use_bias else None

    def _kernels(self) -> tuple:
        return (self.depthwise_kernel,)

    def _convolve(self, x):
        kernels, strides, dilations = self._kernels(), self.strides, self.dilation_rate
        if self._spatial == 1:  # a height of 1: (batch, 1, steps, channels)
            x = array_ops.expand_dims(x, 1)
            kernels = tuple(array_ops.expand_dims(k, 0) for k in kernels)
            strides, dilations = (1, *strides), (1, *dilations)
        y = type(self)._op(x, *kernels, strides, self.padding.upper(), dilations=dilations)
        return array_ops.squeeze(y, [1]) if self._spatial == 1 else y

    def call(self, inputs):
        y = self._convolve(self._checked_input(inputs, self.depthwise_kernel))
        if self.use_bias:
            y = _nn.bias_add(y, self.bias)
        return self.activation(y)

    def get_config(self) -> dict:
        config = super().get_config()
        for key in ("groups", "kernel_initializer", "kernel_regularizer", "kernel_constraint"):
            config.pop(key, None)
        config.update(
            depth_multiplier=self.depth_multiplier,
            depthwise_initializer=initializers.serialize(self.depthwise_initializer),
            depthwise_regularizer=regularizers.serialize(self.depthwise_regularizer),
        )
        return config


class _BaseDepthwiseConv(_BaseDepthwise):
    """Keras's ``BaseDepthwiseConv``: ``channels * depth_multiplier`` output channels. Its
    kernel is Keras 3's ``kernel`` (weight ``<layer>/kernel``); ``depthwise_kernel``, tf.keras
    2's name, reads the same variable."""

    _op = staticmethod(_nn.depthwise_conv2d)
    _depthwise_name = "kernel"

    @property
    def depthwise_kernel(self):
        """The kernel ``(*kernel_size, channels, depth_multiplier)`` (``self.kernel``)."""
        return self.kernel

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
        args = (strides, padding, data_format, dilation_rate, depth_multiplier)
        super().__init__(1, kernel_size, *args, **kwargs)

    def build(self, input_shape) -> None:
        input_shape = self._add_depthwise(input_shape)
        self.filters = input_shape[-1] * self.depth_multiplier
        self._add_bias()
        self.built = True

    def _out_channels(self, channels):
        return None if channels is None else channels * self.depth_multiplier

    def get_config(self) -> dict:
        config = super().get_config()
        config.pop("filters", None)
        return config


class _BaseSeparableConv(_BaseDepthwise):
    """Keras's ``BaseSeparableConv``: the depthwise kernel, then a pointwise kernel
    ``(1, ..., 1, channels * depth_multiplier, filters)``."""

    _op = staticmethod(_nn.separable_conv2d)

    def __init__(
        self,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        depth_multiplier=1,
        *,
        pointwise_initializer="glorot_uniform",
        pointwise_regularizer=None,
        pointwise_constraint=None,
        **kwargs,
    ):
        args = (strides, padding, data_format, dilation_rate, depth_multiplier)
        super().__init__(filters, kernel_size, *args, **kwargs)
        set_weight_args(
            self, "pointwise", pointwise_initializer, pointwise_regularizer, pointwise_constraint
        )

    def build(self, input_shape) -> None:
        input_shape = self._add_depthwise(input_shape)
        shape = (*(1,) * self._spatial, input_shape[-1] * self.depth_multiplier, self.filters)
        self.pointwise_kernel = add_named_weight(self, "pointwise_kernel", shape, "pointwise")
        self._add_bias()
        self.built = True

    def _kernels(self) -> tuple:
        return (self.depthwise_kernel, self.pointwise_kernel)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            pointwise_initializer=initializers.serialize(self.pointwise_initializer),
            pointwise_regularizer=regularizers.serialize(self.pointwise_regularizer),
        )
        return config


class DepthwiseConv1D(_BaseDepthwiseConv):
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

    Weights: ``kernel`` ``(kernel_size, channels, depth_multiplier)``, then
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

    _spatial = 1


class DepthwiseConv2D(_BaseDepthwiseConv):
    """Depthwise 2-D convolution: each input channel convolved with its own
    ``depth_multiplier`` filters, channels last (follows `tf.keras.layers.DepthwiseConv2D`).

    Args:
        kernel_size: an int or a pair. strides, padding, data_format, dilation_rate,
            activation, use_bias, bias_*: as `Conv2D`.
        depth_multiplier: output channels per input channel (default 1).
        depthwise_initializer, depthwise_regularizer, depthwise_constraint: for the kernel.

    Input shape: ``(batch_size, rows, cols, channels)``. Output shape: ``(batch_size,
    new_rows, new_cols, channels * depth_multiplier)``.

    Weights: ``kernel`` ``(kh, kw, channels, depth_multiplier)``, then ``bias``
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

    _spatial = 2


class SeparableConv1D(_BaseSeparableConv):
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

    _spatial = 1


class SeparableConv2D(_BaseSeparableConv):
    """Depthwise-separable 2-D convolution: a depthwise convolution, then a 1x1 convolution
    to ``filters`` channels (follows `tf.keras.layers.SeparableConv2D`).

    Args:
        filters: the output channels. kernel_size, strides, padding, data_format,
            dilation_rate, activation, use_bias, bias_*: as `Conv2D`.
        depth_multiplier: depthwise output channels per input channel (default 1).
        depthwise_* and pointwise_*: initializer, regularizer and constraint of each kernel.

    Input shape: ``(batch_size, rows, cols, channels)``. Output shape: ``(batch_size,
    new_rows, new_cols, filters)``.

    Weights: ``depthwise_kernel`` ``(kh, kw, channels, depth_multiplier)``,
    ``pointwise_kernel`` ``(1, 1, channels * depth_multiplier, filters)``, then ``bias``
    ``(filters,)``.

    Raises:
        ValueError: bad arguments; an input that is not rank 4 or has another channel count
            than the layer was built for.

    >>> layer = ek.keras.layers.SeparableConv2D(4, 3)
    >>> layer(ek.ones((1, 8, 8, 3))).shape
    TensorShape([1, 6, 6, 4])
    >>> [tuple(v.shape) for v in layer.weights]
    [(3, 3, 3, 1), (1, 1, 3, 4), (4,)]
    """

    _spatial = 2
