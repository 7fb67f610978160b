"""Shape layers for sequences, images and volumes: ZeroPadding1D/2D/3D, Cropping1D/2D/3D,
UpSampling1D/3D, MaxPooling1D and AveragePooling1D (follow the `tf.keras.layers` classes of
those names, channels last)."""

from __future__ import annotations

import numbers

from ...ops import array_ops
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
    "Cropping1D",
    "Cropping2D",
    "Cropping3D",
    "MaxPooling1D",
    "UpSampling1D",
    "UpSampling3D",
    "ZeroPadding1D",
    "ZeroPadding2D",
    "ZeroPadding3D",
]


def _pairs(value, n: int, name: str, layer: str) -> tuple:
    """``n`` ``(before, after)`` pairs from an int (all equal), ``n`` ints (symmetric) or ``n``
    pairs (Keras's forms for ``padding``/``cropping``)."""
    if isinstance(value, numbers.Integral):
        pairs = ((int(value), int(value)),) * n
    else:
        items = tuple(value)
        if n == 1 and len(items) == 2 and all(isinstance(v, numbers.Integral) for v in items):
            pairs = ((int(items[0]), int(items[1])),)
        elif len(items) == n and all(isinstance(v, numbers.Integral) for v in items):
            pairs = tuple((int(v), int(v)) for v in items)
        elif len(items) == n and all(len(tuple(v)) == 2 for v in items):
            pairs = tuple((int(a), int(b)) for a, b in items)
        else:
            raise ValueError(
                f"{layer}: `{name}` should be an int, a tuple of {max(n, 2)} ints or a tuple of "
                f"{n} tuples of 2 ints. Received: {name}={value!r}"
            )
    if any(v < 0 for p in pairs for v in p):
        raise ValueError(f"{layer}: `{name}` must be non-negative. Received: {name}={value!r}")
    return pairs


class ZeroPadding1D(Layer):
    """Pads a ``(batch, steps, features)`` input with zeros along the steps (follows
    `tf.keras.layers.ZeroPadding1D`).

    Args:
        padding: int (both sides) or a pair ``(left, right)``; default 1.

    >>> ek.keras.layers.ZeroPadding1D((1, 2))(ek.ones((1, 2, 3))).shape
    TensorShape([1, 5, 3])
    """

    def __init__(self, padding=1, data_format=None, **kwargs):
        super().__init__(**kwargs)
        (self.padding,) = _pairs(padding, 1, "padding", "ZeroPadding1D")
        self.data_format = normalize_data_format(data_format, "ZeroPadding1D")

    def call(self, inputs):
        check_rank(self, shape_of(inputs), 3)
        return array_ops.pad(inputs, [[0, 0], list(self.padding), [0, 0]])

    def compute_output_shape(self, input_shape) -> tuple:
        b, n, c = input_shape
        return (b, None if n is None else n + sum(self.padding), c)

    def get_config(self) -> dict:
        return {**super().get_config(), "padding": self.padding, "data_format": self.data_format}


class ZeroPadding2D(Layer):
    """Pads a ``(batch, rows, cols, channels)`` input with zeros (follows
    `tf.keras.layers.ZeroPadding2D`).

    Args:
        padding: int, ``(rows, cols)`` (symmetric) or ``((top, bottom), (left, right))``;
            default ``(1, 1)``.
        data_format: channels_last only.

    >>> ek.keras.layers.ZeroPadding2D(((1, 0), (0, 2)))(ek.ones((1, 2, 2, 1))).shape
    TensorShape([1, 3, 4, 1])
    """

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs(padding, 2, "padding", "ZeroPadding2D")
        self.data_format = normalize_data_format(data_format, "ZeroPadding2D")

    def call(self, inputs):
        check_rank(self, shape_of(inputs), 4)
        return array_ops.pad(inputs, [[0, 0], *map(list, self.padding), [0, 0]])

    def compute_output_shape(self, input_shape) -> tuple:
        b, h, w, c = input_shape
        (t, bo), (le, r) = self.padding
        return (b, None if h is None else h + t + bo, None if w is None else w + le + r, c)

    def get_config(self) -> dict:
        return {**super().get_config(), "padding": self.padding, "data_format": self.data_format}


def _check_crop(layer, length, crop, shape) -> None:
    if length is not None and length - sum(crop) <= 0:
        raise ValueError(
            f"`cropping` parameter of `{type(layer).__name__}` layer must be smaller than the "
            f"input length. Received: input_shape={tuple(shape)}, cropping={layer.cropping}"
        )


class Cropping1D(Layer):
    """Crops a ``(batch, steps, features)`` input along the steps (follows
    `tf.keras.layers.Cropping1D`).

    Args:
        cropping: int (both ends) or ``(start, end)``; default ``(1, 1)``.

    Raises:
        ValueError: cropping as long as the input or longer (Keras's message).

    >>> ek.keras.layers.Cropping1D((1, 0))(ek.reshape(ek.range(3.0), (1, 3, 1))).numpy().ravel()
    array([1., 2.], dtype=float32)
    """

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(**kwargs)
        (self.cropping,) = _pairs(cropping, 1, "cropping", "Cropping1D")

    def call(self, inputs):
        shape = shape_of(inputs)
        check_rank(self, shape, 3)
        _check_crop(self, shape[1], self.cropping, shape)
        return inputs[:, self.cropping[0] : shape[1] - self.cropping[1], :]

    def compute_output_shape(self, input_shape) -> tuple:
        b, n, c = input_shape
        _check_crop(self, n, self.cropping, input_shape)
        return (b, None if n is None else n - sum(self.cropping), c)

    def get_config(self) -> dict:
        return {**super().get_config(), "cropping": self.cropping}


class Cropping2D(Layer):
    """Crops rows and columns of a ``(batch, rows, cols, channels)`` input (follows
    `tf.keras.layers.Cropping2D`).

    Args:
        cropping: int, ``(rows, cols)`` (symmetric) or ``((top, bottom), (left, right))``;
            default ``((0, 0), (0, 0))``.
        data_format: channels_last only.

    >>> ek.keras.layers.Cropping2D(((1, 0), (1, 1)))(ek.ones((1, 3, 4, 2))).shape
    TensorShape([1, 2, 2, 2])
    """

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, 2, "cropping", "Cropping2D")
        self.data_format = normalize_data_format(data_format, "Cropping2D")

    def call(self, inputs):
        shape = shape_of(inputs)
        check_rank(self, shape, 4)
        self.compute_output_shape(shape)
        (t, b), (le, r) = self.cropping
        return inputs[:, t : shape[1] - b, le : shape[2] - r, :]

    def compute_output_shape(self, input_shape) -> tuple:
        n, h, w, c = input_shape
        _check_crop(self, h, self.cropping[0], input_shape)
        _check_crop(self, w, self.cropping[1], input_shape)
        return (
            n,
            None if h is None else h - sum(self.cropping[0]),
            None if w is None else w - sum(self.cropping[1]),
            c,
        )

    def get_config(self) -> dict:
        return {**super().get_config(), "cropping": self.cropping, "data_format": self.data_format}


class UpSampling1D(Layer):
    """Repeats each step ``size`` times: ``(batch, steps * size, features)`` (follows
    `tf.keras.layers.UpSampling1D`).

    >>> x = ek.reshape(ek.range(2.0), (1, 2, 1))
    >>> ek.keras.layers.UpSampling1D(2)(x).numpy().ravel()
    array([0., 0., 1., 1.], dtype=float32)
    """

    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        (self.size,) = normalize_tuple(size, 1, "size", "UpSampling1D")

    def call(self, inputs):
        shape = shape_of(inputs)
        check_rank(self, shape, 3)
        b, n, c = shape
        x = array_ops.broadcast_to(array_ops.reshape(inputs, (b, n, 1, c)), (b, n, self.size, c))
        return array_ops.reshape(x, (b, n * self.size, c))

    def compute_output_shape(self, input_shape) -> tuple:
        b, n, c = input_shape
        return (b, None if n is None else n * self.size, c)

    def get_config(self) -> dict:
        return {**super().get_config(), "size": self.size}


class _Pooling1D(Layer):
    _op = None

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        name = type(self).__name__
        (self.pool_size,) = normalize_tuple(pool_size, 1, "pool_size", name)
        (self.strides,) = normalize_tuple(
            self.pool_size if strides is None else strides, 1, "strides", name
        )
        self.padding = normalize_padding(padding, name)
        self.data_format = normalize_data_format(data_format, name)

    def call(self, inputs):
        check_rank(self, shape_of(inputs), 3)
        x = array_ops.expand_dims(inputs, 2)  # (batch, steps, 1, features): a 2-D pool
        x = type(self)._op(x, (self.pool_size, 1), (self.strides, 1), self.padding.upper())
        return array_ops.squeeze(x, [2])

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, 3)
        n = conv_output_length(input_shape[1], self.pool_size, self.padding, self.strides)
        return (input_shape[0], n, input_shape[2])

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "pool_size": self.pool_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
        }


class MaxPooling1D(_Pooling1D):
    """Max over windows of ``pool_size`` steps (follows `tf.keras.layers.MaxPooling1D`).

    Args:
        pool_size: default 2. strides: default ``pool_size``. padding: "valid" or "same".
        data_format: channels_last only.

    Input ``(batch, steps, features)``; output ``(batch, pooled_steps, features)``.

    >>> x = ek.reshape(ek.constant([1.0, 3.0, 2.0, 5.0, 4.0]), (1, 5, 1))
    >>> ek.keras.layers.MaxPooling1D(2, padding="same")(x).numpy().ravel()
    array([3., 5., 4.], dtype=float32)
    """

    _op = staticmethod(_nn.max_pool2d)


class AveragePooling1D(_Pooling1D):
    """Mean over windows of ``pool_size`` steps (follows `tf.keras.layers.AveragePooling1D`);
    with "same" padding a window's mean is over its steps inside the input.

    >>> x = ek.reshape(ek.constant([1.0, 3.0, 2.0, 5.0]), (1, 4, 1))
    >>> ek.keras.layers.AveragePooling1D(2)(x).numpy().ravel()
    array([2. , 3.5], dtype=float32)
    """

    _op = staticmethod(_nn.avg_pool2d)


# -- 3-D (volumes, NDHWC) -----------------------------------------------------------------------


def _times(n, k):
    return None if n is None else n * k


class UpSampling3D(Layer):
    """Repeats each depth slice, row and column ``size`` times (follows
    `tf.keras.layers.UpSampling3D`, nearest neighbour).

    Args:
        size: an int or a triple of factors (default ``(2, 2, 2)``).
        data_format: ``"channels_last"`` (or None); channels_first raises ValueError.

    Input shape: ``(batch_size, depth, rows, cols, channels)``. Output shape:
    ``(batch_size, depth * size[0], rows * size[1], cols * size[2], channels)``.

    Raises:
        ValueError: bad ``size``, or an input that is not rank 5.

    >>> x = ek.reshape(ek.range(2.0), (1, 2, 1, 1, 1))
    >>> ek.keras.layers.UpSampling3D((2, 1, 3))(x).numpy()[0, :, 0, :, 0]
    array([[0., 0., 0.],
           [0., 0., 0.],
           [1., 1., 1.],
           [1., 1., 1.]], dtype=float32)
    """

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.size = normalize_tuple(size, 3, "size", "UpSampling3D")
        self.data_format = normalize_data_format(data_format, "UpSampling3D", 3)

    def call(self, inputs):
        shape = shape_of(inputs)
        check_rank(self, shape, 5)
        b, d, h, w, c = shape
        sd, sh, sw = self.size
        x = array_ops.reshape(inputs, (b, d, 1, h, 1, w, 1, c))
        x = array_ops.broadcast_to(x, (b, d, sd, h, sh, w, sw, c))
        return array_ops.reshape(x, (b, d * sd, h * sh, w * sw, c))

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, 5)
        b, d, h, w, c = input_shape
        return (b, *(_times(n, k) for n, k in zip((d, h, w), self.size)), c)

    def get_config(self) -> dict:
        return {**super().get_config(), "size": self.size, "data_format": self.data_format}


class ZeroPadding3D(Layer):
    """Pads a ``(batch, depth, rows, cols, channels)`` input with zeros (follows
    `tf.keras.layers.ZeroPadding3D`).

    Args:
        padding: an int (all sides), a triple ``(d, h, w)`` (symmetric) or three pairs
            ``((front, back), (top, bottom), (left, right))``; default 1 on every side.
        data_format: ``"channels_last"`` (or None); channels_first raises ValueError.

    Raises:
        ValueError: a malformed or negative ``padding``, or an input that is not rank 5.

    >>> ek.keras.layers.ZeroPadding3D(((1, 0), (0, 2), (1, 1)))(ek.ones((1, 2, 2, 2, 1))).shape
    TensorShape([1, 3, 4, 4, 1])
    """

    def __init__(self, padding=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs(padding, 3, "padding", "ZeroPadding3D")
        self.data_format = normalize_data_format(data_format, "ZeroPadding3D", 3)

    def call(self, inputs):
        check_rank(self, shape_of(inputs), 5)
        return array_ops.pad(inputs, [[0, 0], *map(list, self.padding), [0, 0]])

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, 5)
        spatial = (
            None if n is None else n + sum(p) for n, p in zip(input_shape[1:4], self.padding)
        )
        return (input_shape[0], *spatial, input_shape[4])

    def get_config(self) -> dict:
        return {**super().get_config(), "padding": self.padding, "data_format": self.data_format}


class Cropping3D(Layer):
    """Crops the depth, rows and columns of a ``(batch, depth, rows, cols, channels)`` input
    (follows `tf.keras.layers.Cropping3D`).

    Args:
        cropping: an int, a triple (symmetric) or three ``(start, end)`` pairs; default 1 on
            every side.
        data_format: ``"channels_last"`` (or None); channels_first raises ValueError.

    Raises:
        ValueError: a malformed or negative ``cropping``; cropping as long as an axis or
            longer (Keras's message); an input that is not rank 5.

    >>> ek.keras.layers.Cropping3D(((1, 0), (1, 1), (0, 2)))(ek.ones((1, 3, 4, 5, 2))).shape
    TensorShape([1, 2, 2, 3, 2])
    """

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, 3, "cropping", "Cropping3D")
        self.data_format = normalize_data_format(data_format, "Cropping3D", 3)

    def call(self, inputs):
        shape = shape_of(inputs)
        self.compute_output_shape(shape)
        (f, bk), (t, b), (le, r) = self.cropping
        return inputs[:, f : shape[1] - bk, t : shape[2] - b, le : shape[3] - r, :]

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, 5)
        for n, crop in zip(input_shape[1:4], self.cropping):
            _check_crop(self, n, crop, input_shape)
        spatial = (
            None if n is None else n - sum(c) for n, c in zip(input_shape[1:4], self.cropping)
        )
        return (input_shape[0], *spatial, input_shape[4])

    def get_config(self) -> dict:
        return {**super().get_config(), "cropping": self.cropping, "data_format": self.data_format}
