"""Keras 3's random colour layers: RandomHue, RandomSaturation, RandomColorDegeneration,
RandomColorJitter, RandomSharpness and RandomGaussianBlur (follow the ``keras.layers``
classes of those names; see `augmentation_base` for the call, ``training``, ``seed`` and
``data_format``). Each image of a batch gets its own draw (RandomGaussianBlur: one blur width
per batch, as in Keras). RGB images for the hue, saturation and degeneration layers.

The Keras 3 brightness and contrast steps of RandomColorJitter (and of AugMix and
RandAugment) are `KerasBrightness` and `KerasContrast` here: Keras 3 draws the contrast factor
from ``[1 - lower, 1 + upper]`` of a factor checked in [0, 1] (``factor=0.2`` is ``(0,
0.2)``), which `RandomContrast` (Keras 2's rule, ``[1 - f, 1 + f]``) does not.
"""

from __future__ import annotations

import numpy as np

from ...ops import array_ops, reduction
from ...ops.conv_more import depthwise_conv2d
from ...ops.elementwise import clip_by_value, where
from ...ops.image_color import hsv_to_rgb, rgb_to_hsv
from .augmentation_base import (
    ImagePreprocessingLayer,
    base_factor,
    check_value_range,
    named_factor,
    to_value_range,
)
from .augmentation_pixel import grayscale

__all__ = [
    "KerasBrightness",
    "KerasContrast",
    "RandomColorDegeneration",
    "RandomColorJitter",
    "RandomGaussianBlur",
    "RandomHue",
    "RandomSaturation",
    "RandomSharpness",
]

_EPSILON = 1e-7  # Keras's backend.epsilon()


def _clip(images, value_range):
    return clip_by_value(images, float(value_range[0]), float(value_range[1]))


class _FactorLayer(ImagePreprocessingLayer):
    """A layer with Keras's ``factor``, ``value_range`` and ``seed`` (in its config)."""

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "factor": self.factor,
            "value_range": self.value_range,
            "seed": self.seed,
        }


class RandomHue(_FactorLayer):
    """Rotates the hue of each image by a random amount (follows `keras.layers.RandomHue`):
    a factor ``f`` drawn from ``factor`` (a number ``f`` means ``(0, f)``), a random sign, and
    the hue (in [0, 1)) shifted by ``sign * f / 2``; ``factor=0`` leaves the images as they
    are (up to the HSV round trip's rounding). The result is clipped to ``value_range``.

    Args:
        factor: a number in [0, 1] or a pair. value_range: ``(low, high)`` (default
            ``(0, 255)``). data_format, seed: as usual.

    Raises:
        ValueError: a factor outside [0, 1] (Keras's message).
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = base_factor(factor, (0, 1))
        self.value_range = value_range

    def _sample(self, rng, batch, height, width, channels):
        sign = np.where(rng.uniform(0.0, 1.0, batch) > 0.5, -1.0, 1.0)
        factor = rng.uniform(self.factor[0], self.factor[1], batch)
        return {"delta": (sign * factor * 0.5).reshape(-1, 1, 1)}

    def _apply(self, images, params):
        hsv = rgb_to_hsv(to_value_range(images, self.value_range, (0, 1)))
        hue = hsv[..., 0] + params["delta"]
        hue = where(hue > 1.0, hue - 1.0, hue)
        hue = where(hue < 0.0, hue + 1.0, hue)
        rgb = hsv_to_rgb(array_ops.stack([hue, hsv[..., 1], hsv[..., 2]], axis=-1))
        return to_value_range(clip_by_value(rgb, 0.0, 1.0), (0, 1), self.value_range)


class RandomSaturation(_FactorLayer):
    """Scales the saturation of each image by a random amount (follows
    `keras.layers.RandomSaturation`): with ``f`` drawn from ``factor``, the HSV saturation is
    multiplied by ``f / (1 - f + 1e-7)`` and clipped to ``value_range``, as Keras does. So
    ``(0.5, 0.5)`` leaves the images unchanged and ``(0, 0)`` makes them gray; a number ``f``
    means ``(-f, f)``.

    Args:
        factor: a number in [-1, 1] or a pair. value_range: ``(low, high)``. data_format,
            seed: as usual.

    Raises:
        ValueError: a factor outside [-1, 1] or a bad ``value_range`` (Keras's messages).

    >>> layer = ek.keras.layers.RandomSaturation((0.0, 0.0))
    >>> layer(ek.constant([[[[200.0, 100.0, 50.0]]]])).numpy()
    array([[[[200., 200., 200.]]]], dtype=float32)
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = base_factor(factor)
        self.value_range = check_value_range(value_range)

    def _sample(self, rng, batch, height, width, channels):
        factor = rng.uniform(self.factor[0], self.factor[1], batch)
        return {"factor": (factor / (1.0 - factor + _EPSILON)).reshape(-1, 1, 1)}

    def _apply(self, images, params):
        hsv = rgb_to_hsv(images)
        saturation = _clip(hsv[..., 1] * params["factor"], self.value_range)
        return hsv_to_rgb(array_ops.stack([hsv[..., 0], saturation, hsv[..., 2]], axis=-1))


class RandomColorDegeneration(_FactorLayer):
    """Blends each image toward its grayscale version by a random amount (follows
    `keras.layers.RandomColorDegeneration`): ``x + f * (gray(x) - x)``, ``f`` drawn from
    ``factor`` (a number ``f`` means ``(-f, f)``), clipped to ``value_range``; ``(1, 1)``
    gives the grayscale images.

    Args:
        factor: a number in [-1, 1] or a pair. value_range, data_format, seed: as usual.

    Raises:
        ValueError: a factor outside [-1, 1], a bad ``value_range``; `compute_output_shape`:
            images without 3 channels (Keras's messages).
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = base_factor(factor)
        self.value_range = check_value_range(value_range)

    def _sample(self, rng, batch, height, width, channels):
        return {"factor": rng.uniform(self.factor[0], self.factor[1], (batch, 1, 1, 1))}

    def _apply(self, images, params):
        blended = images + params["factor"] * (grayscale(images) - images)
        return _clip(blended, self.value_range)

    def compute_output_shape(self, input_shape):
        if len(input_shape) not in (3, 4):
            raise ValueError(
                "Invalid images rank: expected rank 3 (single image) or rank 4 (batch of "
                f"images). Received: input_shape={input_shape}"
            )
        channels = input_shape[-1 if self.data_format == "channels_last" else -3]
        if channels is not None and channels != 3:
            raise ValueError(
                f"Input images must have 3 channels, but received images with {channels} channels."
            )
        return input_shape


class KerasBrightness(_FactorLayer):
    """Keras 3's ``RandomBrightness`` step: adds ``f * (high - low)`` of ``value_range``,
    ``f`` drawn per image from ``factor`` (a number ``f``: ``(-f, f)``), then clips. Used by
    RandomColorJitter, AugMix and RandAugment."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.factor = base_factor(factor)
        self.value_range = check_value_range(value_range)

    def _sample(self, rng, batch, height, width, channels):
        span = self.value_range[1] - self.value_range[0]
        return {"delta": rng.uniform(self.factor[0], self.factor[1], (batch, 1, 1, 1)) * span}

    def _apply(self, images, params):
        return _clip(images + params["delta"], self.value_range)


class KerasContrast(_FactorLayer):
    """Keras 3's ``RandomContrast`` step: ``(x - mean) * c + mean`` per image and channel,
    ``c`` drawn from ``[1 - lower, 1 + upper]`` of ``factor`` (checked in [0, 1]; a number
    ``f`` is ``(0, f)``), then clipped to ``value_range``."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.factor = base_factor(factor, (0, 1))
        self.value_range = value_range

    def _sample(self, rng, batch, height, width, channels):
        low, high = 1.0 - self.factor[0], 1.0 + self.factor[1]
        return {"factor": rng.uniform(low, high, (batch, 1, 1, 1))}

    def _apply(self, images, params):
        mean = reduction.reduce_mean(images, axis=1, keepdims=True)
        mean = reduction.reduce_mean(mean, axis=2, keepdims=True)
        return _clip((images - mean) * params["factor"] + mean, self.value_range)


class RandomColorJitter(ImagePreprocessingLayer):
    """Random brightness, contrast, saturation and hue changes, in that order (follows
    `keras.layers.RandomColorJitter`): each factor left None skips its step; the steps are
    Keras 3's `KerasBrightness`, `KerasContrast`, `RandomSaturation` and `RandomHue` with
    ``value_range``.

    Args:
        value_range: ``(low, high)`` (default ``(0, 255)``). brightness_factor,
            contrast_factor, saturation_factor, hue_factor: the steps' ``factor`` arguments.
        seed, data_format: as usual.

    Raises:
        ValueError: a factor its step refuses (Keras's messages).
    """

    def __init__(
        self,
        value_range=(0, 255),
        brightness_factor=None,
        contrast_factor=None,
        saturation_factor=None,
        hue_factor=None,
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.value_range = value_range
        self.brightness_factor = brightness_factor
        self.contrast_factor = contrast_factor
        self.saturation_factor = saturation_factor
        self.hue_factor = hue_factor
        steps = []
        for factor, cls in (
            (brightness_factor, KerasBrightness),
            (contrast_factor, KerasContrast),
            (saturation_factor, RandomSaturation),
            (hue_factor, RandomHue),
        ):
            if factor is not None:
                steps.append(cls(factor=factor, value_range=value_range, seed=seed))
        self._steps = steps

    def _sample(self, rng, batch, height, width, channels):
        return [step._sample(rng, batch, height, width, channels) for step in self._steps]

    def _apply(self, images, params):
        for step, step_params in zip(self._steps, params):
            images = step._apply(images, step_params)
        return images

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "value_range": self.value_range,
            "brightness_factor": self.brightness_factor,
            "contrast_factor": self.contrast_factor,
            "saturation_factor": self.saturation_factor,
            "hue_factor": self.hue_factor,
            "seed": self.seed,
        }


_SHARPEN_KERNEL = np.full((3, 3), 1.0 / 13.0)
_SHARPEN_KERNEL[1, 1] = 5.0 / 13.0


def _depthwise(images, kernel):
    """``images`` (NHWC) convolved with ``kernel`` ``[kh, kw]`` channel by channel, zero
    padded to the same size."""
    channels = int(images.shape[-1])
    kh, kw = int(kernel.shape[0]), int(kernel.shape[1])
    filters = array_ops.tile(array_ops.reshape(kernel, [kh, kw, 1, 1]), [1, 1, channels, 1])
    return depthwise_conv2d(images, filters, [1, 1, 1, 1], "SAME")


class RandomSharpness(_FactorLayer):
    """Blends each image with a smoothed copy by a random amount (follows
    `keras.layers.RandomSharpness`): with ``f`` drawn from ``factor`` (a number ``f``: ``(0,
    f)``), ``x + (1 - 2 f) * (smooth(x) - x)`` clipped to ``value_range``; ``smooth`` is the
    3x3 kernel ``[[1, 1, 1], [1, 5, 1], [1, 1, 1]] / 13`` with zero padding. So ``f = 0`` is
    the smoothed image, ``0.5`` the image, ``1`` a sharpened one.

    Args:
        factor: a number in [0, 1] or a pair. value_range, data_format, seed: as usual.

    Raises:
        ValueError: a factor outside [0, 1], a bad ``value_range`` (Keras's messages).
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = base_factor(factor, (0, 1))
        self.value_range = check_value_range(value_range)

    def _sample(self, rng, batch, height, width, channels):
        return {"factor": rng.uniform(self.factor[0], self.factor[1], (batch, 1, 1, 1)) * 2}

    def _apply(self, images, params):
        kernel = _SHARPEN_KERNEL.astype(images.dtype.as_numpy_dtype)
        smoothed = _depthwise(images, kernel)
        return _clip(images + (1.0 - params["factor"]) * (smoothed - images), self.value_range)


def _gaussian_1d(size: int, sigma: float) -> np.ndarray:
    x = np.arange(size) - (size - 1) / 2
    kernel = np.exp(-0.5 * (x / sigma) ** 2)
    return kernel / kernel.sum()


def _odd_sizes(kernel_size) -> tuple:
    """RandomGaussianBlur's ``_set_kernel_size``: an odd number or a pair of odd numbers."""
    error = f"kernel_size must be an odd number. Received: kernel_size={kernel_size}"
    if isinstance(kernel_size, (tuple, list)):
        if len(kernel_size) != 2:
            raise ValueError(
                "The `kernel_size` argument should be a number (or a list of two numbers) "
                f"Received: kernel_size={kernel_size}"
            )
        if kernel_size[0] % 2 == 0 or kernel_size[1] % 2 == 0:
            raise ValueError(error)
        return tuple(kernel_size)
    if isinstance(kernel_size, (int, float)) and not isinstance(kernel_size, bool):
        if kernel_size % 2 == 0:
            raise ValueError(error)
        return (kernel_size, kernel_size)
    raise ValueError(error)


class RandomGaussianBlur(_FactorLayer):
    """Blurs images with a Gaussian kernel at random (follows
    `keras.layers.RandomGaussianBlur`): each image is blurred with a probability drawn from
    ``factor`` (a number ``f``: ``(0, f)``; ``(1, 1)`` blurs all), with one width per call
    drawn from ``sigma`` for each axis, a ``kernel_size`` square kernel and zero padding; the
    result is clipped to ``value_range``.

    Args:
        factor: a number in [0, 1] or a pair (default 1.0). kernel_size: an odd int or a pair
            of odd ints ``(width, height)`` (default 3). sigma: a number in [0, 1] or a pair
            (default 1.0). value_range, data_format, seed: as usual.

    Raises:
        ValueError: an even kernel size, a factor or sigma outside [0, 1] (Keras's messages).
    """

    def __init__(
        self,
        factor=1.0,
        kernel_size=3,
        sigma=1.0,
        value_range=(0, 255),
        data_format=None,
        seed=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = base_factor(factor, (0, 1))
        self.kernel_size = _odd_sizes(kernel_size)
        self.sigma = named_factor(sigma, "sigma")
        self.value_range = value_range

    def _sample(self, rng, batch, height, width, channels):
        probability = rng.uniform(self.factor[0], self.factor[1], batch)
        apply = rng.uniform(0.0, 1.0, batch) < probability
        sigma = rng.uniform(self.sigma[0], self.sigma[1], 2) + 1e-6
        kx = _gaussian_1d(int(self.kernel_size[0]), sigma[0])
        ky = _gaussian_1d(int(self.kernel_size[1]), sigma[1])
        return {"apply": apply.reshape(-1, 1, 1, 1), "kernel": np.outer(ky, kx)}

    def _apply(self, images, params):
        blurred = _depthwise(images, params["kernel"])
        return _clip(where(params["apply"], blurred, images), self.value_range)

    def get_config(self) -> dict:
        return {**super().get_config(), "kernel_size": self.kernel_size, "sigma": self.sigma}
