"""Convolution layers over 1, 2 and 3 spatial axes, channels last: Conv1D, Conv2D, Conv3D and
their transposes (follow the `tf.keras.layers` classes of those names). Each sets its rank and
its `ek.nn` op on `BaseConv`/`BaseConvTranspose` (conv_base.py)."""

from __future__ import annotations

from ...ops import nn as _nn
from .conv_base import BaseConv, BaseConvTranspose

__all__ = ["Conv1D", "Conv1DTranspose", "Conv2D", "Conv2DTranspose", "Conv3D", "Conv3DTranspose"]


class Conv1D(BaseConv):
    """1-D convolution over sequences, channels last (follows `tf.keras.layers.Conv1D`), with
    `ek.nn.conv1d`.

    Args:
        filters: the output channels.
        kernel_size, strides, dilation_rate: an int or a tuple of one int.
        padding: ``"valid"``, ``"same"`` or ``"causal"`` (zeros on the left only, so that
            output ``t`` sees inputs up to ``t``), case-insensitive.
        data_format: ``"channels_last"`` (or None); ``"channels_first"`` raises ValueError
            (only NWC runs on CPU).
        The others: as `Conv2D`.

    Input shape:
        ``(batch_size, steps, channels)``.

    Output shape:
        ``(batch_size, new_steps, filters)``; ``ceil(steps / stride)`` with ``"same"`` or
        ``"causal"``.

    Weights: ``kernel`` of shape ``(kernel_size, channels, filters)``, ``bias`` ``(filters,)``.

    Raises:
        ValueError: bad arguments (Keras's messages); an input that is not rank 3, or whose
            channel count differs from the one the layer was built for.

    >>> ek.keras.layers.Conv1D(32, 3)(ek.ones((16, 10, 5))).shape
    TensorShape([16, 8, 32])
    """

    _spatial = 1
    _op = staticmethod(_nn.conv1d)
    _causal_ok = True


class Conv2D(BaseConv):
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
        groups: a positive int (default 1) dividing ``filters`` and the input channels: the
            channels are split into ``groups`` slices, each convolved with its own
            ``filters // groups`` filters, the results concatenated (Keras's grouped
            convolution; ValueError otherwise, with Keras's messages). The kernel is then
            ``(kh, kw, channels // groups, filters)``.
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

    _spatial = 2
    _op = staticmethod(_nn.conv2d)


class Conv3D(BaseConv):
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
        groups: a positive int dividing ``filters`` and the input channels, as for `Conv2D`.
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
    _op = staticmethod(_nn.conv3d)


class Conv1DTranspose(BaseConvTranspose):
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

    _spatial = 1
    _op = staticmethod(_nn.conv1d_transpose)


class Conv2DTranspose(BaseConvTranspose):
    """Transposed 2-D convolution, the gradient of `Conv2D` with respect to its input (follows
    `tf.keras.layers.Conv2DTranspose`), with `ek.nn.conv2d_transpose`.

    Args:
        filters, kernel_size, strides, padding, dilation_rate, activation, use_bias, the
            initializers, regularizers and constraints: as `Conv2D`.
        output_padding: None (default) or an int or pair added to the end of each output
            axis; each must be smaller than its stride (Keras's rule).

    Input shape:
        ``(batch_size, rows, cols, channels)``.

    Output shape:
        ``(batch_size, new_rows, new_cols, filters)``: ``rows * stride + max(kernel - stride,
        0)`` with ``"valid"`` padding, ``rows * stride`` with ``"same"`` (without
        ``output_padding``; see `deconv_length`).

    Weights: ``kernel`` of shape ``(kh, kw, filters, channels)``, ``bias`` ``(filters,)``.

    Raises:
        ValueError: bad arguments (Keras's messages); an input that is not rank 4 or has
            another channel count than the layer was built for.

    >>> ek.keras.layers.Conv2DTranspose(16, 3)(ek.ones((2, 4, 4, 1))).shape
    TensorShape([2, 6, 6, 16])
    """

    _spatial = 2
    _op = staticmethod(_nn.conv2d_transpose)


class Conv3DTranspose(BaseConvTranspose):
    """Transposed 3-D convolution, the gradient of `Conv3D` with respect to its input (follows
    `tf.keras.layers.Conv3DTranspose`), with `ek.nn.conv3d_transpose`.

    Args:
        filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
            use_bias, the initializers, regularizers and constraints: as `Conv3D`.
        output_padding: None (default) or an int or triple added to one side of each output
            axis; each must be smaller than its stride (Keras's rule). As in Keras, it comes
            after ``data_format`` among the positional arguments.

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

    _spatial = 3
    _op = staticmethod(_nn.conv3d_transpose)

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
            output_padding=output_padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            **kwargs,
        )
