"""The convolution layers' shared machinery, generic in the number of spatial axes (Keras's
``BaseConv`` and ``BaseConvTranspose``): argument checks, weights, the call through the rank's
`ek.nn` op, output shapes and configs. The public classes (`conv.py`, `conv_depthwise.py`) set
the rank (``_spatial``) and the op."""

from __future__ import annotations

import numbers

from ...ops import array_ops
from ...ops import nn as _nn
from .. import activations, initializers, regularizers
from ._utils import (
    add_kernel_and_bias,
    cast_to_layer_dtype,
    check_channels,
    check_last_axis,
    check_rank,
    conv_output_length,
    normalize_data_format,
    normalize_padding,
    normalize_tuple,
    set_weight_args,
    shape_of,
)
from .base import Layer

__all__ = ["deconv_length", "normalize_output_padding"]


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


class BaseConv(Layer):
    """A convolution over ``_spatial`` axes, channels last: ``activation(op(inputs, kernel) +
    bias)`` with the rank's op (``_op``: `ek.nn.conv1d`, `conv2d` or `conv3d`).

    Arguments, weights, shapes and errors are those of `Conv2D` (see its docstring), with
    ``_spatial`` entries per tuple; ``padding="causal"`` is accepted where ``_causal_ok`` (Keras
    allows it for `Conv1D` only).
    """

    _spatial = 2  # spatial axes
    _op = None  # the rank's ek.nn op
    _causal_ok = False

    def __init__(
        self,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
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
        if isinstance(groups, bool) or not isinstance(groups, numbers.Integral) or groups <= 0:
            raise ValueError(
                f"The number of groups must be a positive integer. Received: groups={groups!r}."
            )
        if filters % groups:
            raise ValueError(
                "The number of filters must be evenly divisible by the number of groups. "
                f"Received: groups={groups}, filters={filters}."
            )
        self.filters = int(filters)
        rank = self._spatial
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size", name)
        self.strides = normalize_tuple(strides, rank, "strides", name)
        self.padding = normalize_padding(padding, name, allow_causal=self._causal_ok)
        self.data_format = normalize_data_format(data_format, name, rank)
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate", name)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                f"{name}: `strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                f"Received: strides={self.strides} and dilation_rate={self.dilation_rate}"
            )
        self.groups = int(groups)
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        set_weight_args(self, "kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        set_weight_args(self, "bias", bias_initializer, bias_regularizer, bias_constraint, "zeros")
        self.activity_regularizer = regularizers.get(activity_regularizer)

    # -- weights -------------------------------------------------------------------------------

    def _kernel_shape(self, channels: int) -> tuple:
        return (*self.kernel_size, channels // self.groups, self.filters)

    def build(self, input_shape) -> None:
        input_shape = check_channels(self, input_shape, self._spatial + 2)
        if input_shape[-1] % self.groups:
            raise ValueError(
                "The number of input channels must be evenly divisible by the number of groups. "
                f"Received groups={self.groups}, but the input has {input_shape[-1]} channels "
                f"(full input shape is {input_shape})."
            )
        if not isinstance(self, BaseConvTranspose):
            check_output_size(self, input_shape, self.filters)
        self._built_shape = input_shape
        add_kernel_and_bias(self, self._kernel_shape(input_shape[-1]), self.filters)
        self.built = True

    # -- call ----------------------------------------------------------------------------------

    def _checked_input(self, inputs, kernel):
        """``inputs`` cast to the layer's dtype, after Keras's rank and channel checks."""
        x = cast_to_layer_dtype(self, inputs)
        shape = shape_of(x)
        check_rank(self, shape, self._spatial + 2)
        check_last_axis(self, shape, self._built_shape[-1], self._built_shape, kernel.shape)
        return x

    def convolution_op(self, inputs, kernel):
        """The convolution of ``inputs`` (NHWC-like, channels last) with ``kernel`` under this
        layer's strides, padding and dilation, without bias or activation (follows Keras 3's
        ``BaseConv.convolution_op``): `call` runs it on ``self.kernel``, so a subclass that
        overrides it (a weight-standardized convolution) changes what the layer computes."""
        padding = self.padding
        if padding == "causal":  # zeros on the left only: output t sees inputs up to t
            left = (self.kernel_size[0] - 1) * self.dilation_rate[0]
            inputs = array_ops.pad(inputs, [[0, 0], [left, 0], [0, 0]])
            padding = "valid"
        if self.groups > 1:
            return self._grouped_op(inputs, kernel, padding.upper())
        return type(self)._op(
            inputs, kernel, self.strides, padding.upper(), dilations=self.dilation_rate
        )

    def _grouped_op(self, inputs, kernel, padding: str):
        """Keras's ``groups``: input channels and filters split into ``groups`` slices, slice
        ``g`` of the input convolved with slice ``g`` of the kernel (``(*kernel_size, C /
        groups, filters)``), the results concatenated along channels. One channel per group in
        2-D is `ek.nn.depthwise_conv2d` with the kernel reshaped to ``(kh, kw, C, filters /
        C)`` (filter ``g * m + q`` is group ``g``'s ``q``-th, the depthwise order)."""
        if self._spatial == 2 and kernel.shape[-2] == 1:
            depthwise = array_ops.reshape(
                kernel, (*self.kernel_size, self.groups, self.filters // self.groups)
            )
            return _nn.depthwise_conv2d(
                inputs, depthwise, (1, *self.strides, 1), padding, dilations=self.dilation_rate
            )
        xs = array_ops.split(inputs, self.groups, axis=-1)
        ks = array_ops.split(kernel, self.groups, axis=-1)
        op = type(self)._op
        outs = [
            op(x, k, self.strides, padding, dilations=self.dilation_rate) for x, k in zip(xs, ks)
        ]
        return array_ops.concat(outs, axis=-1)

    def _convolve(self, x):
        return self.convolution_op(x, self.kernel)

    def call(self, inputs):
        y = self._convolve(self._checked_input(inputs, self.kernel))
        if self.use_bias:
            y = _nn.bias_add(y, self.bias)
        return y if self.activation is None else self.activation(y)  # Keras 3 allows None

    # -- shapes and config ---------------------------------------------------------------------

    def _out_spatial(self, spatial) -> tuple:
        padding = "same" if self.padding == "causal" else self.padding
        return tuple(
            conv_output_length(n, k, padding, s, d)
            for n, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate)
        )

    def _out_channels(self, channels):
        return self.filters

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, self._spatial + 2)
        spatial = self._out_spatial(input_shape[1:-1])
        return (input_shape[0], *spatial, self._out_channels(input_shape[-1]))

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "filters": self.filters,
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "groups": self.groups,
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
        }


def check_output_size(layer: BaseConv, input_shape, filters) -> None:
    """Keras's build-time check of a convolution layer (``compute_conv_output_shape``): with
    "valid" padding, a kernel that does not fit in a known spatial size raises ValueError
    (the `ek.nn` ops return an empty output instead, as TensorFlow's)."""
    if layer.padding != "valid":
        return
    sizes = zip(input_shape[1:-1], layer.kernel_size, layer.strides, layer.dilation_rate)
    if any(n is not None and (n - d * (k - 1) - 1) // s + 1 <= 0 for n, k, s, d in sizes):
        kernel_shape = (*layer.kernel_size, input_shape[-1], filters)
        dilation = str(list(layer.dilation_rate)).replace(",", "")  # NumPy's array text
        raise ValueError(
            "Computed output size would be zero or negative. Received "
            f"`inputs shape={tuple(input_shape)}`, `kernel shape={kernel_shape}`, "
            f"`dilation_rate={dilation}`, `strides={tuple(layer.strides)}`, "
            f"`padding={layer.padding}`."
        )


class BaseConvTranspose(BaseConv):
    """A transposed convolution over ``_spatial`` axes, the gradient of `BaseConv` with respect
    to its input, with the rank's ``conv*_transpose`` op; ``output_padding`` (None, or ints
    each smaller than its stride) is added to the end of each output axis.

    The kernel is ``(*kernel_size, filters, channels)``; the config has ``output_padding`` and
    no ``groups`` (Keras's ``BaseConvTranspose``).
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
            output_padding, self._spatial, self.strides, type(self).__name__
        )

    def _kernel_shape(self, channels: int) -> tuple:
        return (*self.kernel_size, self.filters, channels)

    def _out_spatial(self, spatial) -> tuple:
        pads = self.output_padding or (None,) * self._spatial
        return tuple(
            deconv_length(n, k, self.padding, p, s, d)
            for n, k, p, s, d in zip(
                spatial, self.kernel_size, pads, self.strides, self.dilation_rate
            )
        )

    def _convolve(self, x):
        shape = shape_of(x)
        out_shape = (shape[0], *self._out_spatial(shape[1:-1]), self.filters)
        return type(self)._op(
            x,
            self.kernel,
            out_shape,
            self.strides,
            self.padding.upper(),
            dilations=self.dilation_rate,
        )

    def get_config(self) -> dict:
        config = super().get_config()
        del config["groups"]
        config["output_padding"] = self.output_padding
        return config
