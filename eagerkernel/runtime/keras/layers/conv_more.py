"""More layers of the functional API guide: Conv2DTranspose, Conv1D, UpSampling2D,
GlobalAveragePooling1D and GlobalMaxPooling1D (follow the `tf.keras.layers` classes of those
names, channels last)."""

from __future__ import annotations

from ...ops import array_ops, reduction
from ...ops import nn as _nn
from ._utils import (
    add_kernel_and_bias,
    cast_to_layer_dtype,
    check_channels,
    check_rank,
    conv_output_length,
    normalize_data_format,
    normalize_tuple,
    shape_of,
)
from .base import Layer
from .conv import Conv2D

__all__ = [
    "Conv1D",
    "Conv2DTranspose",
    "GlobalAveragePooling1D",
    "GlobalMaxPooling1D",
    "UpSampling2D",
]


def deconv_output_length(length, kernel: int, padding: str, stride: int, dilation: int = 1):
    """Keras's ``deconv_output_length`` without ``output_padding`` (None stays None)."""
    if length is None:
        return None
    kernel = kernel + (kernel - 1) * (dilation - 1)
    if padding == "valid":
        return length * stride + max(kernel - stride, 0)
    return length * stride


class Conv2DTranspose(Conv2D):
    """Transposed 2-D convolution, the gradient of `Conv2D` with respect to its input (follows
    `tf.keras.layers.Conv2DTranspose`), with `ek.nn.conv2d_transpose`.

    Args:
        filters, kernel_size, strides, padding, dilation_rate, activation, use_bias, the
            initializers, regularizers and constraints: as `Conv2D`.
        output_padding: None only (anything else raises NotImplementedError).

    Input shape:
        ``(batch_size, rows, cols, channels)``.

    Output shape:
        ``(batch_size, new_rows, new_cols, filters)``: ``rows * stride + max(kernel - stride,
        0)`` with ``"valid"`` padding, ``rows * stride`` with ``"same"``.

    Weights: ``kernel`` of shape ``(kh, kw, filters, channels)``, ``bias`` ``(filters,)``.

    >>> ek.keras.layers.Conv2DTranspose(16, 3)(ek.ones((2, 4, 4, 1))).shape
    TensorShape([2, 6, 6, 16])
    """

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", **kwargs):
        output_padding = kwargs.pop("output_padding", None)
        if output_padding is not None:
            raise NotImplementedError(
                f"Conv2DTranspose: output_padding is not supported. Received: "
                f"output_padding={output_padding!r}"
            )
        super().__init__(filters, kernel_size, strides=strides, padding=padding, **kwargs)

    def build(self, input_shape) -> None:
        input_shape = check_channels(self, input_shape, 4)
        self._built_shape = input_shape
        add_kernel_and_bias(self, (*self.kernel_size, self.filters, input_shape[-1]), self.filters)
        self.built = True

    def _out_hw(self, hw) -> tuple:
        return tuple(
            deconv_output_length(n, k, self.padding, s, d)
            for n, k, s, d in zip(hw, self.kernel_size, self.strides, self.dilation_rate)
        )

    def call(self, inputs):
        x = cast_to_layer_dtype(self, inputs)
        shape = shape_of(x)
        check_rank(self, shape, 4)
        out_shape = (shape[0], *self._out_hw(shape[1:3]), self.filters)
        y = _nn.conv2d_transpose(
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
        check_rank(self, input_shape, 4)
        return (input_shape[0], *self._out_hw(input_shape[1:3]), self.filters)

    def get_config(self) -> dict:
        return {**super().get_config(), "output_padding": None}


class Conv1D(Conv2D):
    """1-D convolution over sequences, channels last (follows `tf.keras.layers.Conv1D`): a
    `conv2d` over a height of 1.

    Args:
        filters: the output channels.
        kernel_size, strides, dilation_rate: an int or a tuple of one int.
        padding: ``"valid"``, ``"same"`` or ``"causal"`` (zeros on the left only, so that
            output ``t`` sees inputs up to ``t``).
        The others: as `Conv2D`.

    Input shape:
        ``(batch_size, steps, channels)``.

    Output shape:
        ``(batch_size, new_steps, filters)``.

    Weights: ``kernel`` of shape ``(kernel_size, channels, filters)``, ``bias`` ``(filters,)``.

    >>> ek.keras.layers.Conv1D(32, 3)(ek.ones((16, 10, 5))).shape
    TensorShape([16, 8, 32])
    """

    def __init__(
        self,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        **kwargs,
    ):
        name = type(self).__name__
        k = normalize_tuple(kernel_size, 1, "kernel_size", name)[0]
        s = normalize_tuple(strides, 1, "strides", name)[0]
        d = normalize_tuple(dilation_rate, 1, "dilation_rate", name)[0]
        causal = str(padding).lower() == "causal"
        super().__init__(
            filters,
            (1, k),
            strides=(1, s),
            padding="valid" if causal else padding,
            data_format=data_format,
            dilation_rate=(1, d),
            **kwargs,
        )
        self._causal = causal

    def build(self, input_shape) -> None:
        input_shape = check_channels(self, input_shape, 3)
        self._built_shape = input_shape
        add_kernel_and_bias(
            self, (self.kernel_size[1], input_shape[-1], self.filters), self.filters
        )
        self.built = True

    def call(self, inputs):
        x = cast_to_layer_dtype(self, inputs)
        shape = shape_of(x)
        check_rank(self, shape, 3)
        if self._causal:
            left = (self.kernel_size[1] - 1) * self.dilation_rate[1]
            x = array_ops.pad(x, [[0, 0], [left, 0], [0, 0]])
        y = _nn.conv2d(
            array_ops.expand_dims(x, 1),
            array_ops.expand_dims(self.kernel, 0),
            self.strides,
            self.padding.upper(),
            dilations=self.dilation_rate,
        )
        y = array_ops.squeeze(y, [1])
        if self.use_bias:
            y = _nn.bias_add(y, self.bias)
        return self.activation(y)

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, 3)
        steps = input_shape[1]
        if self._causal:
            steps = None if steps is None else -(-steps // self.strides[1])
        else:
            steps = conv_output_length(
                steps, self.kernel_size[1], self.padding, self.strides[1], self.dilation_rate[1]
            )
        return (input_shape[0], steps, self.filters)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            kernel_size=(self.kernel_size[1],),
            strides=(self.strides[1],),
            dilation_rate=(self.dilation_rate[1],),
            padding="causal" if self._causal else self.padding,
        )
        return config


class UpSampling2D(Layer):
    """Repeats each row and column ``size`` times, or interpolates bilinearly (follows
    `tf.keras.layers.UpSampling2D`).

    Args:
        size: an int or ``(rows, cols)`` factors (default 2).
        interpolation: ``"nearest"`` (repeats), or ``"bilinear"``, ``"bicubic"``,
            ``"lanczos3"``, ``"lanczos5"``, ``"area"`` (`ek.image.resize` with that method,
            as Keras resizes); case-insensitive. Others raise Keras's ValueError.

    Input shape:
        ``(batch_size, rows, cols, channels)``.

    Output shape:
        ``(batch_size, rows * size[0], cols * size[1], channels)``.

    >>> x = ek.reshape(ek.range(4.0), (1, 2, 2, 1))
    >>> ek.keras.layers.UpSampling2D(2)(x).numpy()[0, :, :, 0]
    array([[0., 0., 1., 1.],
           [0., 0., 1., 1.],
           [2., 2., 3., 3.],
           [2., 2., 3., 3.]], dtype=float32)
    """

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        name = type(self).__name__
        self.size = normalize_tuple(size, 2, "size", name)
        self.data_format = normalize_data_format(data_format, name)
        from .augmentation import check_resize_interpolation

        interpolation = str(interpolation).lower()
        check_resize_interpolation(interpolation)
        self.interpolation = interpolation

    def call(self, inputs):
        shape = shape_of(inputs)
        check_rank(self, shape, 4)
        b, h, w, c = shape
        sh, sw = self.size
        if self.interpolation != "nearest":
            from ...ops.image import resize

            return resize(inputs, (h * sh, w * sw), method=self.interpolation)
        x = array_ops.reshape(inputs, (b, h, 1, w, 1, c))
        x = array_ops.broadcast_to(x, (b, h, sh, w, sw, c))
        return array_ops.reshape(x, (b, h * sh, w * sw, c))

    def compute_output_shape(self, input_shape) -> tuple:
        b, h, w, c = tuple(input_shape)
        sh, sw = self.size
        return (b, None if h is None else h * sh, None if w is None else w * sw, c)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "size": self.size,
            "data_format": self.data_format,
            "interpolation": self.interpolation,
        }


class _GlobalPooling1D(Layer):
    _reduce = None

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format, type(self).__name__)
        self.keepdims = bool(keepdims)

    def call(self, inputs):
        check_rank(self, tuple(inputs.shape), 3)
        return type(self)._reduce(inputs, axis=1, keepdims=self.keepdims)

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, 3)
        if self.keepdims:
            return (input_shape[0], 1, input_shape[2])
        return (input_shape[0], input_shape[2])

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format, "keepdims": self.keepdims}


class GlobalAveragePooling1D(_GlobalPooling1D):
    """Mean over the steps axis (follows `tf.keras.layers.GlobalAveragePooling1D`; masks are
    not supported).

    Input shape: ``(batch_size, steps, features)``. Output shape: ``(batch_size, features)``,
    or ``(batch_size, 1, features)`` with ``keepdims``.

    >>> ek.keras.layers.GlobalAveragePooling1D()(ek.ones((2, 5, 3))).shape
    TensorShape([2, 3])
    """

    _reduce = staticmethod(reduction.reduce_mean)


class GlobalMaxPooling1D(_GlobalPooling1D):
    """Maximum over the steps axis (follows `tf.keras.layers.GlobalMaxPooling1D`).

    Input shape: ``(batch_size, steps, features)``. Output shape: ``(batch_size, features)``,
    or ``(batch_size, 1, features)`` with ``keepdims``.
    """

    _reduce = staticmethod(reduction.reduce_max)
