"""Pooling layers over 1, 2 and 3 spatial axes, channels last: MaxPooling1D/2D/3D,
AveragePooling1D/2D/3D and GlobalAveragePooling1D/2D/3D, GlobalMaxPooling1D/2D/3D (follow the
`tf.keras.layers` classes of those names). One base per kind, generic in the number of spatial
axes (``_spatial``), runs the rank's `ek.nn` pooling op or a reduction."""

from __future__ import annotations

from ...core.tensor import to_tensor
from ...ops import array_ops, elementwise, reduction
from ...ops import nn as _nn
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
    "AveragePooling1D",
    "AveragePooling2D",
    "AveragePooling3D",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalAveragePooling3D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "GlobalMaxPooling3D",
    "MaxPooling1D",
    "MaxPooling2D",
    "MaxPooling3D",
]


class BasePooling(Layer):
    """Keras's ``BasePooling``: windows of ``pool_size`` over ``_spatial`` axes, moved by
    ``strides`` (None: ``pool_size``), reduced by the rank's op (``_op``).

    Args:
        pool_size: an int or ``_spatial`` ints (default 2 on every axis).
        strides: an int or ``_spatial`` ints; None means ``pool_size``.
        padding: ``"valid"`` or ``"same"`` (case-insensitive).
        data_format: ``"channels_last"`` (or None); channels_first raises ValueError.

    Raises:
        ValueError: bad arguments (Keras's messages), or an input whose rank is not
            ``_spatial + 2``.
    """

    _spatial = 2
    _op = None

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        name = type(self).__name__
        rank = self._spatial
        self.pool_size = normalize_tuple(pool_size, rank, "pool_size", name)
        self.strides = normalize_tuple(
            self.pool_size if strides is None else strides, rank, "strides", name
        )
        self.padding = normalize_padding(padding, name)
        self.data_format = normalize_data_format(data_format, name, rank)

    def call(self, inputs):
        check_rank(self, shape_of(inputs), self._spatial + 2)
        return type(self)._op(inputs, self.pool_size, self.strides, self.padding.upper())

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, self._spatial + 2)
        spatial = tuple(
            conv_output_length(n, k, self.padding, s)
            for n, k, s in zip(input_shape[1:-1], self.pool_size, self.strides)
        )
        return (input_shape[0], *spatial, input_shape[-1])

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "pool_size": self.pool_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
        }


class BaseGlobalPooling(Layer):
    """Keras's ``BaseGlobalPooling``: a reduction (``_reduce``) over the ``_spatial`` axes.

    Args:
        data_format: ``"channels_last"`` (or None); channels_first raises ValueError.
        keepdims: keep the spatial axes with length 1 (default False).

    Raises:
        ValueError: a bad ``data_format``, or an input whose rank is not ``_spatial + 2``.
    """

    _spatial = 2
    _reduce = None

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format, type(self).__name__, self._spatial)
        self.keepdims = bool(keepdims)

    def call(self, inputs):
        check_rank(self, shape_of(inputs), self._spatial + 2)
        axes = list(range(1, self._spatial + 1))
        return type(self)._reduce(inputs, axis=axes, keepdims=self.keepdims)

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, self._spatial + 2)
        if self.keepdims:
            return (input_shape[0], *(1,) * self._spatial, input_shape[-1])
        return (input_shape[0], input_shape[-1])

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format, "keepdims": self.keepdims}


class MaxPooling1D(BasePooling):
    """Max over windows of ``pool_size`` steps (follows `tf.keras.layers.MaxPooling1D`),
    with `ek.nn.max_pool1d`.

    Args:
        pool_size: an int or a tuple of one int (default 2); kept as a tuple, as in Keras.
        strides: the same; None means ``pool_size``.
        padding: ``"valid"`` or ``"same"``.
        data_format: ``"channels_last"`` (or None); channels_first raises ValueError.

    Input ``(batch, steps, features)``; output ``(batch, pooled_steps, features)``, with
    `MaxPooling2D`'s lengths.

    Raises:
        ValueError: bad arguments, or an input that is not rank 3.

    >>> x = ek.reshape(ek.constant([1.0, 3.0, 2.0, 5.0, 4.0]), (1, 5, 1))
    >>> ek.keras.layers.MaxPooling1D(2, padding="same")(x).numpy().ravel()
    array([3., 5., 4.], dtype=float32)
    """

    _spatial = 1
    _op = staticmethod(_nn.max_pool1d)


class AveragePooling1D(BasePooling):
    """Mean over windows of ``pool_size`` steps (follows `tf.keras.layers.AveragePooling1D`),
    with `ek.nn.avg_pool1d`; with "same" padding a window's mean is over its steps inside the
    input. Arguments, shapes and errors as `MaxPooling1D`.

    >>> x = ek.reshape(ek.constant([1.0, 3.0, 2.0, 5.0]), (1, 4, 1))
    >>> ek.keras.layers.AveragePooling1D(2)(x).numpy().ravel()
    array([2. , 3.5], dtype=float32)
    """

    _spatial = 1
    _op = staticmethod(_nn.avg_pool1d)


class MaxPooling2D(BasePooling):
    """Maximum over windows of each channel (follows `tf.keras.layers.MaxPooling2D`).

    Args:
        pool_size: an int or a pair (default ``(2, 2)``).
        strides: an int or a pair; None means ``pool_size``.
        padding: ``"valid"`` or ``"same"``.
        data_format: ``"channels_last"`` (or None); channels_first raises ValueError.

    Input shape:
        ``(batch_size, rows, cols, channels)``.

    Output shape:
        ``(batch_size, pooled_rows, pooled_cols, channels)``: ``ceil((n - pool + 1) / stride)``
        with ``"valid"``, ``ceil(n / stride)`` with ``"same"``.

    Raises:
        ValueError: bad arguments, or an input that is not rank 4.

    >>> x = ek.reshape(ek.range(16.0), (1, 4, 4, 1))
    >>> ek.keras.layers.MaxPooling2D()(x).numpy()[0, :, :, 0]
    array([[ 5.,  7.],
           [13., 15.]], dtype=float32)
    """

    _spatial = 2
    _op = staticmethod(_nn.max_pool2d)


class AveragePooling2D(BasePooling):
    """Mean over windows of each channel (follows `tf.keras.layers.AveragePooling2D`);
    arguments, shapes and errors as `MaxPooling2D`.

    With ``"same"`` padding, windows that overlap the border average only the real elements.

    >>> x = ek.reshape(ek.range(16.0), (1, 4, 4, 1))
    >>> ek.keras.layers.AveragePooling2D()(x).numpy()[0, :, :, 0]
    array([[ 2.5,  4.5],
           [10.5, 12.5]], dtype=float32)
    """

    _spatial = 2
    _op = staticmethod(_nn.avg_pool2d)


class MaxPooling3D(BasePooling):
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

    _spatial = 3
    _op = staticmethod(_nn.max_pool3d)


class AveragePooling3D(BasePooling):
    """Mean over 3-D windows of each channel (follows `tf.keras.layers.AveragePooling3D`),
    with `ek.nn.avg_pool3d`; with ``"same"`` padding a window's mean is over its elements
    inside the input. Arguments, shapes and errors as `MaxPooling3D`, except that
    ``pool_size`` is required (as in Keras 3).

    >>> x = ek.reshape(ek.range(8.0), (1, 2, 2, 2, 1))
    >>> ek.keras.layers.AveragePooling3D(2)(x).numpy().ravel()
    array([3.5], dtype=float32)
    """

    _spatial = 3
    _op = staticmethod(_nn.avg_pool3d)

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class GlobalAveragePooling1D(BaseGlobalPooling):
    """Mean over the steps axis (follows `tf.keras.layers.GlobalAveragePooling1D`); with a
    Keras mask (``mask=``, or the one its input carries: `keras.masking`), the mean over the
    steps the mask keeps. The output carries no mask.

    Args:
        data_format: ``"channels_last"`` (or None); channels_first raises ValueError.
        keepdims: keep the steps axis with length 1 (default False).

    Input shape: ``(batch_size, steps, features)``. Output shape: ``(batch_size, features)``,
    or ``(batch_size, 1, features)`` with ``keepdims``.

    Raises:
        ValueError: a bad ``data_format``, or an input that is not rank 3.

    >>> ek.keras.layers.GlobalAveragePooling1D()(ek.ones((2, 5, 3))).shape
    TensorShape([2, 3])
    """

    _spatial = 1
    _reduce = staticmethod(reduction.reduce_mean)
    supports_masking = True

    def call(self, inputs, mask=None):
        if mask is None:
            return super().call(inputs)
        check_rank(self, shape_of(inputs), 3)
        keep = elementwise.cast(array_ops.expand_dims(to_tensor(mask), 2), inputs.dtype)
        total = reduction.reduce_sum(inputs * keep, axis=1, keepdims=self.keepdims)
        return total / reduction.reduce_sum(keep, axis=1, keepdims=self.keepdims)

    def compute_mask(self, inputs, mask=None):
        return None


class GlobalMaxPooling1D(BaseGlobalPooling):
    """Maximum over the steps axis (follows `tf.keras.layers.GlobalMaxPooling1D`); arguments,
    shapes and errors as `GlobalAveragePooling1D`.

    >>> ek.keras.layers.GlobalMaxPooling1D(keepdims=True)(ek.ones((2, 5, 3))).shape
    TensorShape([2, 1, 3])
    """

    _spatial = 1
    _reduce = staticmethod(reduction.reduce_max)


class GlobalAveragePooling2D(BaseGlobalPooling):
    """Mean over the spatial axes (follows `tf.keras.layers.GlobalAveragePooling2D`).

    Args:
        data_format: ``"channels_last"`` (or None); channels_first raises ValueError.
        keepdims: keep the spatial axes with length 1 (default False).

    Input shape:
        ``(batch_size, rows, cols, channels)``.

    Output shape:
        ``(batch_size, channels)``, or ``(batch_size, 1, 1, channels)`` with ``keepdims``.

    Raises:
        ValueError: a bad ``data_format``, or an input that is not rank 4.

    >>> ek.keras.layers.GlobalAveragePooling2D()(ek.ones((2, 5, 5, 3))).shape
    TensorShape([2, 3])
    """

    _spatial = 2
    _reduce = staticmethod(reduction.reduce_mean)


class GlobalMaxPooling2D(BaseGlobalPooling):
    """Maximum over the spatial axes (follows `tf.keras.layers.GlobalMaxPooling2D`);
    arguments, shapes and errors as `GlobalAveragePooling2D`.

    >>> ek.keras.layers.GlobalMaxPooling2D(keepdims=True)(ek.ones((2, 5, 5, 3))).shape
    TensorShape([2, 1, 1, 3])
    """

    _spatial = 2
    _reduce = staticmethod(reduction.reduce_max)


class GlobalAveragePooling3D(BaseGlobalPooling):
    """Mean over the three spatial axes (follows `tf.keras.layers.GlobalAveragePooling3D`).

    Args:
        data_format: ``"channels_last"`` (or None); channels_first raises ValueError.
        keepdims: keep the spatial axes with length 1 (default False).

    Input shape: ``(batch_size, depth, rows, cols, channels)``. Output shape:
    ``(batch_size, channels)``, or ``(batch_size, 1, 1, 1, channels)`` with ``keepdims``.

    Raises:
        ValueError: a bad ``data_format``, or an input that is not rank 5.

    >>> ek.keras.layers.GlobalAveragePooling3D()(ek.ones((2, 3, 4, 5, 6))).shape
    TensorShape([2, 6])
    """

    _spatial = 3
    _reduce = staticmethod(reduction.reduce_mean)


class GlobalMaxPooling3D(BaseGlobalPooling):
    """Maximum over the three spatial axes (follows `tf.keras.layers.GlobalMaxPooling3D`);
    arguments, shapes and errors as `GlobalAveragePooling3D`.

    >>> ek.keras.layers.GlobalMaxPooling3D(keepdims=True)(ek.ones((2, 3, 4, 5, 6))).shape
    TensorShape([2, 1, 1, 1, 6])
    """

    _spatial = 3
    _reduce = staticmethod(reduction.reduce_max)
