"""Shape layers for sequences, images and volumes: ZeroPadding1D/2D/3D, Cropping1D/2D/3D and
UpSampling1D/2D/3D (follow the `tf.keras.layers` classes of those names, channels last). One
base per kind, generic in the number of spatial axes (``_spatial``)."""

from __future__ import annotations

import numbers

from ...ops import array_ops
from ._utils import (
    check_rank,
    normalize_data_format,
    normalize_tuple,
    shape_of,
)
from .base import Layer

__all__ = [
    "Cropping1D",
    "Cropping2D",
    "Cropping3D",
    "UpSampling1D",
    "UpSampling2D",
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


def _check_crop(layer, length, crop, shape) -> None:
    if length is not None and length - sum(crop) <= 0:
        raise ValueError(
            f"`cropping` parameter of `{type(layer).__name__}` layer must be smaller than the "
            f"input length. Received: input_shape={tuple(shape)}, cropping={layer.cropping}"
        )


def _times(n, k):
    return None if n is None else n * k


class _Spatial(Layer):
    """A shape layer over ``_spatial`` axes of a channels-last input: the rank check and the
    ``data_format`` argument (absent from the config where Keras's layer has none:
    ``_data_format_arg = False``)."""

    _spatial = 2
    _data_format_arg = True

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format, type(self).__name__, self._spatial)

    def _checked_shape(self, shape) -> tuple:
        shape = tuple(shape)
        check_rank(self, shape, self._spatial + 2)
        return shape

    def get_config(self) -> dict:
        config = super().get_config()
        if self._data_format_arg:
            config["data_format"] = self.data_format
        return config


class _BaseZeroPadding(_Spatial):
    """Zeros before and after each spatial axis: ``padding`` as an int (all sides),
    ``_spatial`` ints (symmetric) or ``_spatial`` ``(before, after)`` pairs (a 1-D layer
    keeps its one pair as ``padding``)."""

    def __init__(self, padding=1, data_format=None, **kwargs):
        super().__init__(data_format, **kwargs)
        self._pads = _pairs(padding, self._spatial, "padding", type(self).__name__)
        self.padding = self._pads[0] if self._spatial == 1 else self._pads

    def call(self, inputs):
        self._checked_shape(shape_of(inputs))
        return array_ops.pad(inputs, [[0, 0], *map(list, self._pads), [0, 0]])

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = self._checked_shape(input_shape)
        spatial = (None if n is None else n + sum(p) for n, p in zip(input_shape[1:-1], self._pads))
        return (input_shape[0], *spatial, input_shape[-1])

    def get_config(self) -> dict:
        return {**super().get_config(), "padding": self.padding}


class _BaseCropping(_Spatial):
    """Cropping from the start and end of each spatial axis: ``cropping`` as an int,
    ``_spatial`` ints (symmetric) or ``_spatial`` ``(start, end)`` pairs (a 1-D layer keeps its
    one pair as ``cropping``).

    Raises:
        ValueError: a malformed or negative ``cropping``; cropping as long as an axis or
            longer (Keras's message); an input of another rank.
    """

    def __init__(self, cropping=1, data_format=None, **kwargs):
        super().__init__(data_format, **kwargs)
        self._crops = _pairs(cropping, self._spatial, "cropping", type(self).__name__)
        self.cropping = self._crops[0] if self._spatial == 1 else self._crops

    def call(self, inputs):
        shape = shape_of(inputs)
        self.compute_output_shape(shape)
        window = tuple(slice(a, n - b) for n, (a, b) in zip(shape[1:-1], self._crops))
        return inputs[(slice(None), *window, slice(None))]

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = self._checked_shape(input_shape)
        for n, crop in zip(input_shape[1:-1], self._crops):
            _check_crop(self, n, crop, input_shape)
        spatial = (
            None if n is None else n - sum(c) for n, c in zip(input_shape[1:-1], self._crops)
        )
        return (input_shape[0], *spatial, input_shape[-1])

    def get_config(self) -> dict:
        return {**super().get_config(), "cropping": self.cropping}


class _BaseUpSampling(_Spatial):
    """Each spatial position repeated ``size`` times along its axis (nearest neighbour);
    ``size`` is an int or ``_spatial`` ints (a 1-D layer keeps an int, as Keras's)."""

    def __init__(self, size=2, data_format=None, **kwargs):
        super().__init__(data_format, **kwargs)
        self._sizes = normalize_tuple(size, self._spatial, "size", type(self).__name__)
        self.size = self._sizes[0] if self._spatial == 1 else self._sizes

    def call(self, inputs):
        b, *spatial, c = self._checked_shape(shape_of(inputs))
        ones = [d for n in spatial for d in (n, 1)]
        repeated = [d for n, k in zip(spatial, self._sizes) for d in (n, k)]
        x = array_ops.reshape(inputs, (b, *ones, c))
        x = array_ops.broadcast_to(x, (b, *repeated, c))
        return array_ops.reshape(x, (b, *(n * k for n, k in zip(spatial, self._sizes)), c))

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = self._checked_shape(input_shape)
        spatial = (_times(n, k) for n, k in zip(input_shape[1:-1], self._sizes))
        return (input_shape[0], *spatial, input_shape[-1])

    def get_config(self) -> dict:
        return {**super().get_config(), "size": self.size}


class ZeroPadding1D(_BaseZeroPadding):
    """Pads a ``(batch, steps, features)`` input with zeros along the steps (follows
    `tf.keras.layers.ZeroPadding1D`).

    Args:
        padding: int (both sides) or a pair ``(left, right)``; default 1.

    >>> ek.keras.layers.ZeroPadding1D((1, 2))(ek.ones((1, 2, 3))).shape
    TensorShape([1, 5, 3])
    """

    _spatial = 1


class ZeroPadding2D(_BaseZeroPadding):
    """Pads a ``(batch, rows, cols, channels)`` input with zeros (follows
    `tf.keras.layers.ZeroPadding2D`).

    Args:
        padding: int, ``(rows, cols)`` (symmetric) or ``((top, bottom), (left, right))``;
            default ``(1, 1)``.
        data_format: channels_last only.

    >>> ek.keras.layers.ZeroPadding2D(((1, 0), (0, 2)))(ek.ones((1, 2, 2, 1))).shape
    TensorShape([1, 3, 4, 1])
    """

    _spatial = 2


class ZeroPadding3D(_BaseZeroPadding):
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

    _spatial = 3


class Cropping1D(_BaseCropping):
    """Crops a ``(batch, steps, features)`` input along the steps (follows
    `tf.keras.layers.Cropping1D`).

    Args:
        cropping: int (both ends) or ``(start, end)``; default ``(1, 1)``.

    Raises:
        ValueError: cropping as long as the input or longer (Keras's message).

    >>> ek.keras.layers.Cropping1D((1, 0))(ek.reshape(ek.range(3.0), (1, 3, 1))).numpy().ravel()
    array([1., 2.], dtype=float32)
    """

    _spatial = 1
    _data_format_arg = False

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(cropping, None, **kwargs)


class Cropping2D(_BaseCropping):
    """Crops rows and columns of a ``(batch, rows, cols, channels)`` input (follows
    `tf.keras.layers.Cropping2D`).

    Args:
        cropping: int, ``(rows, cols)`` (symmetric) or ``((top, bottom), (left, right))``;
            default ``((0, 0), (0, 0))``.
        data_format: channels_last only.

    >>> ek.keras.layers.Cropping2D(((1, 0), (1, 1)))(ek.ones((1, 3, 4, 2))).shape
    TensorShape([1, 2, 2, 2])
    """

    _spatial = 2

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


class Cropping3D(_BaseCropping):
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

    _spatial = 3


class UpSampling1D(_BaseUpSampling):
    """Repeats each step ``size`` times: ``(batch, steps * size, features)`` (follows
    `tf.keras.layers.UpSampling1D`).

    >>> x = ek.reshape(ek.range(2.0), (1, 2, 1))
    >>> ek.keras.layers.UpSampling1D(2)(x).numpy().ravel()
    array([0., 0., 1., 1.], dtype=float32)
    """

    _spatial = 1
    _data_format_arg = False

    def __init__(self, size=2, **kwargs):
        super().__init__(size, None, **kwargs)


class UpSampling2D(_BaseUpSampling):
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

    _spatial = 2

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(size, data_format, **kwargs)
        from .augmentation import check_resize_interpolation

        interpolation = str(interpolation).lower()
        check_resize_interpolation(interpolation)
        self.interpolation = interpolation

    def call(self, inputs):
        if self.interpolation != "nearest":
            from ...ops.image import resize

            _, h, w, _ = self._checked_shape(shape_of(inputs))
            size = (h * self.size[0], w * self.size[1])
            out = resize(inputs, size, method=self.interpolation)
            # Keras keeps a float input's dtype (float16 under mixed_float16); resize gives f32
            dtype = getattr(inputs, "dtype", None)
            if getattr(dtype, "is_floating", False) and out.dtype != dtype:
                from ...ops.elementwise import cast

                out = cast(out, dtype)
            return out
        return super().call(inputs)

    def get_config(self) -> dict:
        return {**super().get_config(), "interpolation": self.interpolation}


class UpSampling3D(_BaseUpSampling):
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

    _spatial = 3
