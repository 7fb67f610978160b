"""3-D convolution layers: Conv3D and Conv3DTranspose (follow the `tf.keras.layers` classes of
those names, channels last, NDHWC), with `ek.nn.conv3d` and `ek.nn.conv3d_transpose`."""

from __future__ import annotations

from ...ops import nn as _nn
from ._utils import (
    add_kernel_and_bias,
    cast_to_layer_dtype,
    check_channels,
    check_last_axis,
    check_rank,
    conv_output_length,
    normalize_tuple,
    shape_of,
)
from .conv import Conv2D

__all__ = ["Conv3D", "Conv3DTranspose", "deconv_length", "normalize_output_padding"]


def deconv_length(length, kernel: int, padding: str, output_padding, stride: int, dilation=1):
    """Keras's ``deconv_output_length``: the output length of a transposed convolution along
    one axis (None stays None).

    Without ``output_padding``: ``length * stride + max(kernel - stride, 0)`` for ``"valid"``,
    ``length * stride`` for ``"same"``; with it, ``(length - 1) * stride + kernel - 2 * pad +
    output_padding`` where ``pad`` is 0 (valid) or ``kernel // 2`` (same), ``kernel`` dilated.
    """
    if length is None:
        return None
    kernel = kernel + (kernel - 1) * (dilation - 1)
    if output_padding is None:
        if padding == "valid":
            return length * stride + max(kernel - stride, 0)
        return length * stride
    pad = kernel // 2 if padding == "same" else 0
    return (length - 1) * stride + kernel - 2 * pad + output_padding


def normalize_output_padding(value, rank: int, strides: tuple, layer: str):
    """None, or ``rank`` non-negative ints each smaller than its stride (Keras's checks).

    Raises:
        ValueError: Keras's messages (an ``output_padding`` not smaller than its stride).
    """
    if value is None:
        return None
    out = normalize_tuple(value, rank, "output_padding", layer, allow_zero=True)
    for i, (p, s) in enumerate(zip(out, strides)):
        if p >= s:
            raise ValueError(
                "`output_padding` must be strictly less than `strides` for all dimensions. "
                f"At dimension {i}, `output_padding` is {p} but `strides` is {s}. Received: "
                f"output_padding={out}, strides={tuple(strides)}"
            )
    return out


class Conv3D(Conv2D):
    """3-D convolution over volumes, channels last (follows `tf.keras.layers.Conv3D`).

    Computes ``activation(conv3d(inputs, kernel) + bias)`` with `ek.nn.conv3d`.

    Args:
        filters: positive int, the number of output channels.
        kernel_size: an int or a triple ``(kd, kh, kw)``.
        strides: an int or a triple (default 1).
        padding: ``"valid"`` or ``"same"`` (case-insensitive).
        data_format: ``"channels_last"`` (or None); ``"channels_first"`` raises ValueError, as
            for `Conv2D` (only NDHWC runs on CPU).
        dilation_rate: an int or a triple (default 1); not combined with strides > 1 (Keras).
        groups: 1 (grouped convolutions raise ValueError, as for `Conv2D`).
        activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
            bias_regularizer, activity_regularizer, kernel_constraint, bias_constraint: as
            for `Conv2D`.

    Input shape:
        ``(batch_size, depth, rows, cols, channels)``.

    Output shape:
        ``(batch_size, new_depth, new_rows, new_cols, filters)``; with ``"valid"``, ``new =
        ceil((n - (k - 1) * dilation) / stride)``; with ``"same"``, ``ceil(n / stride)``.

    Weights: ``kernel`` of shape ``(kd, kh, kw, channels, filters)``, then ``bias``
    ``(filters,)``.

    Raises:
        ValueError: bad arguments (Keras's messages); an input that is not rank 5, or whose
            channel count differs from the one the layer was built for.

    >>> conv = ek.keras.layers.Conv3D(4, 3, padding="same")
    >>> conv(ek.ones((2, 5, 6, 7, 1))).shape
    TensorShape([2, 5, 6, 7, 4])
    >>> [tuple(v.shape) for v in conv.weights]
    [(3, 3, 3, 1, 4), (4,)]
    >>> conv.compute_output_shape((None, 8, 8, 8, 1))
    (None, 8, 8, 8, 4)
    """

    _spatial = 3

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1, 1),
        padding="valid",
        data_format=None,
        dilation_rate=(1, 1, 1),
        groups=1,
        **kwargs,
    ):
        super().__init__(
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            groups=groups,
            **kwargs,
        )

    def build(self, input_shape) -> None:
        input_shape = check_channels(self, input_shape, 5)
        self._built_shape = input_shape
        add_kernel_and_bias(self, (*self.kernel_size, input_shape[-1], self.filters), self.filters)
        self.built = True

    def call(self, inputs):
        x = cast_to_layer_dtype(self, inputs)
        shape = shape_of(x)
        check_rank(self, shape, 5)
        check_last_axis(self, shape, self.kernel.shape[3], self._built_shape)
        y = _nn.conv3d(
            x, self.kernel, self.strides, self.padding.upper(), dilations=self.dilation_rate
        )
        if self.use_bias:
            y = _nn.bias_add(y, self.bias)
        return self.activation(y)

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, 5)
        spatial = tuple(
            conv_output_length(n, k, self.padding, s, d)
            for n, k, s, d in zip(
                input_shape[1:4], self.kernel_size, self.strides, self.dilation_rate
            )
        )
        return (input_shape[0], *spatial, self.filters)

    def get_config(self) -> dict:
        return {**super().get_config(), "groups": self.groups}


class Conv3DTranspose(Conv3D):
    """Transposed 3-D convolution, the gradient of `Conv3D` with respect to its input (follows
    `tf.keras.layers.Conv3DTranspose`), with `ek.nn.conv3d_transpose`.

    Args:
        filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
            use_bias, the initializers, regularizers and constraints: as `Conv3D`.
        output_padding: None (default) or an int or triple added to one side of each output
            axis; each must be smaller than its stride (Keras's rule).

    Input shape:
        ``(batch_size, depth, rows, cols, channels)``.

    Output shape:
        ``(batch_size, new_depth, new_rows, new_cols, filters)``: per axis ``n * stride +
        max(kernel - stride, 0)`` with ``"valid"``, ``n * stride`` with ``"same"`` (without
        ``output_padding``; see `deconv_length`).

    Weights: ``kernel`` of shape ``(kd, kh, kw, filters, channels)``, ``bias``
    ``(filters,)``.

    Raises:
        ValueError: bad arguments (Keras's messages); an input that is not rank 5, or whose
            channel count differs from the one the layer was built for.

    >>> ek.keras.layers.Conv3DTranspose(2, 3, strides=2)(ek.ones((1, 2, 3, 4, 1))).shape
    TensorShape([1, 5, 7, 9, 2])
    >>> ek.keras.layers.Conv3DTranspose(2, 2, strides=2, padding="same")(
    ...     ek.ones((1, 2, 3, 4, 1))).shape
    TensorShape([1, 4, 6, 8, 2])
    """

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1, 1),
        padding="valid",
        data_format=None,
        output_padding=None,
        dilation_rate=(1, 1, 1),
        **kwargs,
    ):
        super().__init__(
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            **kwargs,
        )
        self.output_padding = normalize_output_padding(
            output_padding, 3, self.strides, type(self).__name__
        )

    def build(self, input_shape) -> None:
        input_shape = check_channels(self, input_shape, 5)
        self._built_shape = input_shape
        add_kernel_and_bias(self, (*self.kernel_size, self.filters, input_shape[-1]), self.filters)
        self.built = True

    def _out_spatial(self, spatial) -> tuple:
        pads = self.output_padding or (None,) * 3
        return tuple(
            deconv_length(n, k, self.padding, p, s, d)
            for n, k, p, s, d in zip(
                spatial, self.kernel_size, pads, self.strides, self.dilation_rate
            )
        )

    def call(self, inputs):
        x = cast_to_layer_dtype(self, inputs)
        shape = shape_of(x)
        check_rank(self, shape, 5)
        check_last_axis(self, shape, self.kernel.shape[4], self._built_shape)
        out_shape = (shape[0], *self._out_spatial(shape[1:4]), self.filters)
        y = _nn.conv3d_transpose(
            x,
            self.kernel,
            out_shape,
            self.strides,
            self.padding.upper(),
            dilations=self.dilation_rate,
        )
        if self.use_bias:
            y = _nn.bias_add(y, self.bias)
        return self.activation(y)

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, 5)
        return (input_shape[0], *self._out_spatial(input_shape[1:4]), self.filters)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["groups"]
        config["output_padding"] = self.output_padding
        return config
