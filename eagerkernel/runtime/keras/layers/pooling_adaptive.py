"""Adaptive pooling layers: AdaptiveAveragePooling1D/2D/3D and AdaptiveMaxPooling1D/2D/3D
(follow the `keras.layers` classes of those names, Keras 3).

The output has a fixed spatial size ``output_size`` whatever the input's. Along an axis of
length ``n`` pooled to ``m`` values, output ``i`` reduces the input region
``[floor(i * n / m), ceil((i + 1) * n / m))`` (PyTorch's adaptive regions, which Keras's
"two-pool gather" reproduces). Regions are products of per-axis intervals, so a mean or a max
over them is taken one axis at a time: a mean is a matmul with a constant ``(n, m)`` averaging
matrix, a max is a gather of each region's indices (padded to the longest region by repeating
its last index, which leaves the max unchanged) and a `reduce_max`. Both are ek ops, so the
layers differentiate and trace under `ek.function` like any other.
"""

from __future__ import annotations

import numbers

import numpy as np

from ...core.tensor import to_tensor
from ...ops import array_ops, indexing, linalg, reduction
from .base import Layer

__all__ = [
    "AdaptiveAveragePooling1D",
    "AdaptiveAveragePooling2D",
    "AdaptiveAveragePooling3D",
    "AdaptiveMaxPooling1D",
    "AdaptiveMaxPooling2D",
    "AdaptiveMaxPooling3D",
]


def adaptive_regions(n: int, m: int) -> list:
    """The ``m`` half-open regions ``(start, end)`` adaptive pooling reduces along an axis of
    length ``n``: ``start = floor(i * n / m)``, ``end = ceil((i + 1) * n / m)``.

    >>> adaptive_regions(5, 3)
    [(0, 2), (1, 4), (3, 5)]
    >>> adaptive_regions(3, 5)
    [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)]
    """
    return [((i * n) // m, -((-(i + 1) * n) // m)) for i in range(m)]


def _average_axis(x, axis: int, m: int):
    """Means of ``x`` over the adaptive regions along ``axis`` (a matmul on the last axis)."""
    n = x.shape[axis]
    weights = np.zeros((n, m), dtype=x.dtype.as_numpy_dtype)
    for i, (start, end) in enumerate(adaptive_regions(n, m)):
        weights[start:end, i] = 1.0 / (end - start)
    rank = len(x.shape)
    perm = [*(a for a in range(rank) if a != axis), axis]
    back = list(np.argsort(perm))
    moved = array_ops.transpose(x, perm)
    return array_ops.transpose(linalg.matmul(moved, to_tensor(weights)), back)


def _max_axis(x, axis: int, m: int):
    """Maxima of ``x`` over the adaptive regions along ``axis`` (a gather and a reduce_max)."""
    regions = adaptive_regions(x.shape[axis], m)
    width = max(end - start for start, end in regions)
    # Short regions repeat their last index: duplicates leave the max (and its gradient,
    # which the gather scatter-adds back onto the one element) unchanged.
    index = np.array(
        [[min(start + k, end - 1) for k in range(width)] for start, end in regions], np.int32
    )
    gathered = indexing.gather(x, to_tensor(index), axis=axis)  # (..., m, width, ...)
    return reduction.reduce_max(gathered, axis=axis + 1)


class BaseAdaptivePooling(Layer):
    """Keras's ``BaseAdaptivePooling``: pools ``_spatial`` axes to ``output_size``.

    Args:
        output_size: an int (the same on every axis) or a tuple/list of ``_spatial`` ints.
        data_format: ``"channels_last"`` (default, Keras's ``image_data_format()``) or
            ``"channels_first"``.

    Raises:
        TypeError: an ``output_size`` that is neither an int nor a tuple/list (for 2D and 3D
            also a tuple of the wrong length, as Keras).
        ValueError: a 1D tuple of length other than 1, a non-positive size, a bad
            ``data_format``, or an input whose rank is not ``_spatial + 2`` or whose spatial
            size is unknown.
    """

    _spatial = 2
    _reduce_axis = None

    def __init__(self, output_size, data_format=None, **kwargs):
        super().__init__(**kwargs)
        name = type(self).__name__
        rank = self._spatial
        if isinstance(output_size, numbers.Integral) and not isinstance(output_size, bool):
            sizes = (int(output_size),) * rank
        elif isinstance(output_size, (tuple, list)) and len(output_size) == rank:
            sizes = tuple(output_size)
        elif isinstance(output_size, (tuple, list)) and rank == 1:
            raise ValueError(
                f"For 1D input, `output_size` tuple must have length 1. Received: {output_size}"
            )
        else:
            shape = {1: "tuple of 1 integer", 2: "(height, width) tuple"}.get(
                rank, "(depth, height, width) tuple"
            )
            raise TypeError(
                f"`output_size` must be an integer or {shape}. Received: {output_size} of "
                f"type {type(output_size)}"
            )
        if any(isinstance(s, bool) or not isinstance(s, numbers.Integral) or s <= 0 for s in sizes):
            raise ValueError(
                f"{name}: `output_size` must be positive integers. Received: "
                f"output_size={output_size!r}"
            )
        self.output_size = tuple(int(s) for s in sizes)
        if data_format is None:
            from ..backend import image_data_format

            data_format = image_data_format()
        if data_format not in {"channels_first", "channels_last"}:
            raise ValueError(
                f"Invalid data_format: {data_format}. Expected 'channels_first' or 'channels_last'."
            )
        self.data_format = data_format

    def call(self, inputs):
        x = to_tensor(inputs)
        shape = tuple(x.shape)
        if len(shape) != self._spatial + 2:
            raise ValueError(
                f"{type(self).__name__}: expected an input of rank {self._spatial + 2}. "
                f"Received: input shape={shape}"
            )
        first = 2 if self.data_format == "channels_first" else 1
        for k, m in enumerate(self.output_size):
            if shape[first + k] is None:
                raise ValueError(
                    "Input spatial dimensions must be statically known for adaptive pooling"
                )
            x = type(self)._reduce_axis(x, first + k, m)
        return x

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        if self.data_format == "channels_last":
            return (input_shape[0], *self.output_size, input_shape[-1])
        return (input_shape[0], input_shape[1], *self.output_size)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "output_size": self.output_size,
            "data_format": self.data_format,
        }


class AdaptiveAveragePooling1D(BaseAdaptivePooling):
    """Means over adaptive regions of 1 spatial axis (follows
    `keras.layers.AdaptiveAveragePooling1D`). See `BaseAdaptivePooling` for the arguments and
    errors.

    Input shape: ``(batch, length, channels)`` (channels_last) or ``(batch, channels, length)``.
    Output shape: ``length`` replaced by ``output_size``; the layer's compute dtype
    (float32 unless ``dtype=``).

    >>> layer = ek.keras.layers.AdaptiveAveragePooling1D(2)
    >>> layer(ek.reshape(ek.range(5.0), [1, 5, 1]))[0, :, 0].numpy()
    array([1., 3.], dtype=float32)
    """

    _spatial = 1
    _reduce_axis = staticmethod(_average_axis)


class AdaptiveAveragePooling2D(BaseAdaptivePooling):
    """Means over adaptive regions of 2 spatial axes (follows
    `keras.layers.AdaptiveAveragePooling2D`). See `BaseAdaptivePooling` for the arguments and
    errors.

    Input shape: ``(batch, height, width, channels)`` (channels_last) or
    ``(batch, channels, height, width)``. Output shape: the spatial axes replaced by
    ``output_size``; the layer's compute dtype
    (float32 unless ``dtype=``).

    >>> ek.keras.layers.AdaptiveAveragePooling2D((2, 3))(ek.ones([1, 5, 7, 3])).shape
    TensorShape([1, 2, 3, 3])
    """

    _spatial = 2
    _reduce_axis = staticmethod(_average_axis)


class AdaptiveAveragePooling3D(BaseAdaptivePooling):
    """Means over adaptive regions of 3 spatial axes (follows
    `keras.layers.AdaptiveAveragePooling3D`). See `BaseAdaptivePooling` for the arguments and
    errors.

    Input shape: ``(batch, depth, height, width, channels)`` (channels_last) or
    ``(batch, channels, depth, height, width)``. Output shape: the spatial axes replaced by
    ``output_size``; the layer's compute dtype
    (float32 unless ``dtype=``).
    """

    _spatial = 3
    _reduce_axis = staticmethod(_average_axis)


class AdaptiveMaxPooling1D(BaseAdaptivePooling):
    """Maxima over adaptive regions of 1 spatial axis (follows
    `keras.layers.AdaptiveMaxPooling1D`). See `BaseAdaptivePooling` for the arguments and
    errors.

    Input shape: ``(batch, length, channels)`` (channels_last) or ``(batch, channels, length)``.
    Output shape: ``length`` replaced by ``output_size``; the layer's compute dtype
    (float32 unless ``dtype=``).

    >>> layer = ek.keras.layers.AdaptiveMaxPooling1D(2)
    >>> layer(ek.reshape(ek.range(5.0), [1, 5, 1]))[0, :, 0].numpy()
    array([2., 4.], dtype=float32)
    """

    _spatial = 1
    _reduce_axis = staticmethod(_max_axis)


class AdaptiveMaxPooling2D(BaseAdaptivePooling):
    """Maxima over adaptive regions of 2 spatial axes (follows
    `keras.layers.AdaptiveMaxPooling2D`). See `BaseAdaptivePooling` for the arguments and
    errors.

    Input shape: ``(batch, height, width, channels)`` (channels_last) or
    ``(batch, channels, height, width)``. Output shape: the spatial axes replaced by
    ``output_size``; the layer's compute dtype
    (float32 unless ``dtype=``).
    """

    _spatial = 2
    _reduce_axis = staticmethod(_max_axis)


class AdaptiveMaxPooling3D(BaseAdaptivePooling):
    """Maxima over adaptive regions of 3 spatial axes (follows
    `keras.layers.AdaptiveMaxPooling3D`). See `BaseAdaptivePooling` for the arguments and
    errors.

    Input shape: ``(batch, depth, height, width, channels)`` (channels_last) or
    ``(batch, channels, depth, height, width)``. Output shape: the spatial axes replaced by
    ``output_size``; the layer's compute dtype
    (float32 unless ``dtype=``).
    """

    _spatial = 3
    _reduce_axis = staticmethod(_max_axis)
