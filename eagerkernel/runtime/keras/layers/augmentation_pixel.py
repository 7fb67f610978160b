"""Keras 3's per-pixel image layers: AutoContrast, Solarization, Equalization,
RandomGrayscale, RandomInvert and RandomPosterization (follow the ``keras.layers`` classes of
those names; see `augmentation_base` for the call, ``training`` and ``data_format``).

Each works on float images in its ``value_range`` (default ``(0, 255)``) and returns the
layer's compute dtype (float32), integer inputs included.
"""

from __future__ import annotations

import numpy as np

from ...ops import array_ops, reduction
from ...ops.elementwise import cast, clip_by_value, floor, logical_or, round, where
from ...ops.indexing import gather
from ...ops.math_ops import cumsum, is_nan
from ...ops.reduction import count_nonzero
from ...ops.segment_ops import bincount
from .augmentation_base import (
    ImagePreprocessingLayer,
    base_factor,
    check_value_range,
    to_value_range,
    unit_pair,
)

__all__ = [
    "AutoContrast",
    "Equalization",
    "RandomGrayscale",
    "RandomInvert",
    "RandomPosterization",
    "Solarization",
]


class AutoContrast(ImagePreprocessingLayer):
    """Stretches each image's channels to span ``value_range`` (follows
    `keras.layers.AutoContrast`): per image and channel, the minimum becomes the low end and
    the maximum the high end; a constant channel (which would divide by zero) is left as it
    is. Applied at inference too. Differentiable with respect to the images.

    Args:
        value_range: ``(low, high)`` of the inputs (default ``(0, 255)``).
        data_format: ``"channels_last"`` or ``"channels_first"``.

    Raises:
        ValueError: a ``value_range`` that is not a pair (Keras's message).

    >>> x = ek.constant([[[[50.0], [100.0]], [[75.0], [150.0]]]])
    >>> ek.keras.layers.AutoContrast()(x)[0, ..., 0].numpy()
    array([[  0.  , 127.5 ],
           [ 63.75, 255.  ]], dtype=float32)
    """

    _DRAWS = False

    _ALWAYS = True

    def __init__(self, value_range=(0, 255), **kwargs):
        super().__init__(**kwargs)
        self.value_range = check_value_range(value_range)

    def _apply(self, images, params):
        x = to_value_range(images, self.value_range, (0, 255))
        low = reduction.reduce_min(x, axis=[1, 2], keepdims=True)
        high = reduction.reduce_max(x, axis=[1, 2], keepdims=True)
        span = high - low
        flat = span == 0.0  # Keras divides by zero there and keeps the input where it is NaN
        scale = 255.0 / where(flat, 1.0, span)
        out = clip_by_value(x * scale + (-low * scale), 0.0, 255.0)
        out = to_value_range(out, (0, 255), self.value_range)
        return where(logical_or(flat, is_nan(out)), images, out)

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range}


class Solarization(ImagePreprocessingLayer):
    """Inverts the pixels above a random threshold, after adding a random offset (follows
    `keras.layers.Solarization`). On the 0..255 scale, per image: ``y = clip(x + a, 0, 255)``,
    then ``255 - y`` where ``y >= t``; ``a`` is drawn from ``[lo, hi * 255]`` of
    ``addition_factor`` and ``t`` from ``[lo, hi * 255]`` of ``threshold_factor`` (Keras scales
    only the upper end). ``threshold_factor=0`` (default) inverts every pixel.

    Args:
        addition_factor, threshold_factor: a number ``f`` in [0, 1] (``(0, f)``) or a pair.
        value_range: ``(low, high)`` of the inputs. seed: optional int.

    Raises:
        ValueError: factors outside [0, 1] or not numbers, a bad ``value_range`` (Keras's
            messages).

    >>> ek.keras.layers.Solarization()(ek.constant([[[[0.0], [55.0], [255.0]]]])).numpy().ravel()
    array([255., 200.,   0.], dtype=float32)
    """

    _ERROR = (
        "The `addition_factor` and `threshold_factor` arguments should be a number (or a list "
        "of two numbers) in the range [0, 1]. "
    )

    def __init__(
        self, addition_factor=0.0, threshold_factor=0.0, value_range=(0, 255), seed=None, **kwargs
    ):
        super().__init__(seed=seed, **kwargs)
        self.addition_factor = unit_pair(addition_factor, "addition_factor", self._ERROR, False)
        self.threshold_factor = unit_pair(threshold_factor, "threshold_factor", self._ERROR, False)
        self.value_range = check_value_range(value_range)

    def _sample(self, rng, batch, height, width, channels):
        a, t = self.addition_factor, self.threshold_factor
        return {
            "additions": rng.uniform(a[0], a[1] * 255, (batch, 1, 1, 1)),
            "thresholds": rng.uniform(t[0], t[1] * 255, (batch, 1, 1, 1)),
        }

    def _apply(self, images, params):
        x = to_value_range(images, self.value_range, (0, 255))
        x = clip_by_value(x + params["additions"], 0.0, 255.0)
        x = where(x < params["thresholds"], x, 255.0 - x)
        return to_value_range(x, (0, 255), self.value_range)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "value_range": self.value_range,
            "addition_factor": self.addition_factor,
            "threshold_factor": self.threshold_factor,
            "seed": self.seed,
        }


def _scale_values(values, source, target):
    """Equalization's own linear map (``x * scale + offset``, Keras's operation order)."""
    scale = (target[1] - target[0]) / (source[1] - source[0])
    return values * float(scale) + float(target[0] - source[0] * scale)


class Equalization(ImagePreprocessingLayer):
    """Histogram equalization of each channel (follows `keras.layers.Equalization`): the
    values of a channel, over the whole batch as Keras counts them, fall into ``bins`` bins of
    0..255 and are mapped through their rounded cumulative histogram; a channel whose values
    all fall into one bin is unchanged. Identity with ``training=False``.

    Args:
        value_range: ``(low, high)`` of the inputs (default ``(0, 255)``).
        bins: the number of histogram bins (default 256).
        data_format: ``"channels_last"`` or ``"channels_first"``.

    Raises:
        ValueError: a ``value_range`` that is not a pair.

    >>> x = ek.constant([[[[10.0], [10.0]], [[20.0], [200.0]]]])
    >>> ek.keras.layers.Equalization()(x)[0, ..., 0].numpy()
    array([[  0.,   0.],
           [128., 255.]], dtype=float32)
    """

    _DRAWS = False

    def __init__(self, value_range=(0, 255), bins=256, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.bins = bins
        self.value_range = check_value_range(value_range)

    def _equalize(self, channel):
        bins = int(self.bins)
        scaled = channel * float(bins - 1) / 255.0
        hist_index = clip_by_value(cast(scaled, "int32"), 0, bins - 1)
        hist = bincount(array_ops.reshape(hist_index, [-1]), minlength=bins)
        cdf = cast(cumsum(hist), channel.dtype)
        total = cdf[-1]
        cdf_min = reduction.reduce_min(where(cdf > 0, cdf, total))  # the first nonzero count
        denominator = total - cdf_min
        denominator = where(denominator == 0, 1.0, denominator)
        table = clip_by_value(round((cdf - cdf_min) * 255.0 / denominator), 0.0, 255.0)
        index = cast(clip_by_value(channel / 255.0 * float(bins - 1), 0.0, bins - 1.0), "int32")
        equalized = gather(table, index)
        return where(count_nonzero(hist) <= 1, channel, equalized)

    def _apply(self, images, params):
        x = _scale_values(images, self.value_range, (0, 255))
        channels = [self._equalize(x[..., i]) for i in range(int(x.shape[-1]))]
        return _scale_values(array_ops.stack(channels, axis=-1), (0, 255), self.value_range)

    def get_config(self) -> dict:
        return {**super().get_config(), "bins": self.bins, "value_range": self.value_range}


def grayscale(images):
    """`keras.ops.image.rgb_to_grayscale` on NHWC images (its weights, dtype rule and
    ValueError for a channel count other than 1 or 3)."""
    from ..ops.image_base import rgb_to_grayscale

    return rgb_to_grayscale(images, data_format="channels_last")


class RandomGrayscale(ImagePreprocessingLayer):
    """Converts each image to grayscale with probability ``factor`` (follows
    `keras.layers.RandomGrayscale`), keeping its channels (all equal, weights 0.2989, 0.5870,
    0.1140).

    Args:
        factor: the probability, in [0, 1] (default 0.5). data_format, seed: as usual.

    Raises:
        ValueError: ``factor`` outside [0, 1] (Keras's message); images with neither 1 nor 3
            channels.

    >>> x = ek.constant([[[[10.0, 20.0, 30.0]]]])
    >>> ek.keras.layers.RandomGrayscale(factor=1.0)(x).numpy().round(3)
    array([[[[18.15, 18.15, 18.15]]]], dtype=float32)
    """

    def __init__(self, factor=0.5, data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        if factor < 0 or factor > 1:
            raise ValueError(f"`factor` should be between 0 and 1. Received: factor={factor}")
        self.factor = factor

    def _sample(self, rng, batch, height, width, channels):
        return {"apply": rng.uniform(0.0, 1.0, (batch, 1, 1, 1)) < self.factor}

    def _apply(self, images, params):
        return where(params["apply"], grayscale(images), images)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "seed": self.seed}


class RandomInvert(ImagePreprocessingLayer):
    """Inverts images at random (follows `keras.layers.RandomInvert`): per image a
    probability ``p`` is drawn from ``factor`` and the image becomes ``value_range[1] - x``
    with probability ``p`` (Keras subtracts from the high end only). A number ``f`` means
    ``(0, f)``, so the default 1.0 inverts half the images; ``(1.0, 1.0)`` inverts all.

    Args:
        factor: a number in [0, 1] or a pair. value_range: ``(low, high)``. seed,
            data_format: as usual.

    Raises:
        ValueError: a ``factor`` outside [0, 1] (Keras's message).

    >>> layer = ek.keras.layers.RandomInvert(factor=(1.0, 1.0))
    >>> layer(ek.constant([[[[0.0, 100.0, 255.0]]]])).numpy()
    array([[[[255., 155.,   0.]]]], dtype=float32)
    """

    def __init__(self, factor=1.0, value_range=(0, 255), seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = base_factor(factor, (0, 1))
        self.value_range = value_range

    def _sample(self, rng, batch, height, width, channels):
        probability = rng.uniform(self.factor[0], self.factor[1], (batch, 1, 1, 1))
        return {"apply": rng.uniform(0.0, 1.0, (batch, 1, 1, 1)) < probability}

    def _apply(self, images, params):
        return where(params["apply"], float(self.value_range[1]) - images, images)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "factor": self.factor,
            "value_range": self.value_range,
            "seed": self.seed,
        }


class RandomPosterization(ImagePreprocessingLayer):
    """Keeps only the top bits of each 8-bit value (follows
    `keras.layers.RandomPosterization`): on the 0..255 scale, truncated to an integer, the low
    ``8 - b`` bits are cleared, ``b`` drawn per image from ``[lo, hi)`` of ``factor`` (Keras's
    ``randint``; a number ``f`` means ``(1, f)``, ``(b, b)`` always keeps ``b`` bits).

    Args:
        factor: a number in [1, 8] or a pair. value_range: ``(low, high)``. data_format,
            seed: as usual.

    Raises:
        ValueError: a ``factor`` outside [1, 8] or a bad ``value_range`` (Keras's messages).

    >>> layer = ek.keras.layers.RandomPosterization(factor=(2, 2))
    >>> layer(ek.constant([[[[63.0, 64.0, 250.0]]]])).numpy()
    array([[[[  0.,  64., 192.]]]], dtype=float32)
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = base_factor(factor, (1, 8))
        self.value_range = check_value_range(value_range)

    def _sample(self, rng, batch, height, width, channels):
        low, high = int(self.factor[0]), int(self.factor[1])
        if low == high:
            bits = np.full(batch, low)
        else:  # Keras's draw: a uint8 randint (drawn as int64)
            bits = rng.integers(low, high, batch, dtype="uint8").astype(np.int64)
        return {"step": (2.0 ** (8 - bits)).reshape(-1, 1, 1, 1)}

    def _apply(self, images, params):
        x = to_value_range(images, self.value_range, (0, 255))
        x = cast(cast(x, "uint8"), images.dtype)
        x = floor(x / params["step"]) * params["step"]
        return to_value_range(x, (0, 255), self.value_range)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "factor": self.factor,
            "value_range": self.value_range,
            "seed": self.seed,
        }
