"""Keras 3's augmentation policies: RandAugment and AugMix (follow the ``keras.layers``
classes of those names; see `augmentation_base` for the call, ``training``, ``seed`` and
``data_format``).

Both pick operations at random from Keras's list (shear, translation, rotation, brightness,
colour degeneration, contrast, sharpness, posterization, solarization, auto-contrast,
equalization) with strengths drawn from ``factor``, one pick per batch as in Keras. The pick
is a random draw like the others, so a graph function (`ek.function`) must pick again on
every call: each step computes every candidate operation and keeps the picked one with
`where` (as Keras's RandAugment does), which costs one run of each operation per step.
"""

from __future__ import annotations

import random as _py_random

import numpy as np

from ...ops import creation
from ...ops.elementwise import clip_by_value, where
from .. import random as keras_random
from .augmentation import RandomRotation, RandomTranslation
from .augmentation_base import ImagePreprocessingLayer, KerasDraws, base_factor
from .augmentation_color import (
    KerasBrightness,
    KerasContrast,
    RandomColorDegeneration,
    RandomSharpness,
)
from .augmentation_geometry import AffineStep, RandomShear
from .augmentation_pixel import AutoContrast, Equalization, RandomPosterization, Solarization

__all__ = ["AugMix", "RandAugment"]


def _operations(factor, value_range, interpolation, seed) -> dict:
    """Keras's sublayers of RandAugment and AugMix, by their attribute names."""
    return {
        "random_shear": RandomShear(factor, factor, interpolation=interpolation, seed=seed),
        "random_translation": AffineStep(
            RandomTranslation(factor, factor, interpolation=interpolation, seed=seed)
        ),
        "random_rotation": AffineStep(
            RandomRotation(factor, interpolation=interpolation, seed=seed)
        ),
        "random_brightness": KerasBrightness(factor, value_range, seed=seed),
        "random_color_degeneration": RandomColorDegeneration(factor, value_range, seed=seed),
        "random_contrast": KerasContrast(factor, value_range, seed=seed),
        "random_sharpness": RandomSharpness(factor, value_range, seed=seed),
        "random_posterization": RandomPosterization(
            max(1, int(8 * factor[1])), value_range, seed=seed
        ),
        "solarization": Solarization(factor, factor, value_range, seed=seed),
        "auto_contrast": AutoContrast(value_range),
        "equalization": Equalization(value_range),
    }


def _pick(images, operations: list, choice, params: list):
    """``images`` through the operation ``choice`` (a scalar int Tensor; past the end: none),
    every candidate computed."""
    out = images
    for k, (operation, p) in enumerate(zip(operations, params)):
        out = where(choice == k, operation._apply(images, p), out)
    return out


class RandAugment(ImagePreprocessingLayer):
    """RandAugment (follows `keras.layers.RandAugment`): ``num_ops`` operations in a row,
    each picked uniformly per call from Keras's eleven, with strengths drawn from ``factor``
    (a number ``f`` means ``(0, f)``). Note that some operations change the images even at
    strength 0, as in Keras: sharpness 0 is a blur, posterization keeps 1 bit, solarization
    with a zero threshold inverts, and auto-contrast and equalization do not depend on it.

    Args:
        value_range: ``(low, high)`` (default ``(0, 255)``). num_ops: default 2. factor: a
            number in [0, 1] or a pair (default 0.5). interpolation: ``"bilinear"`` or
            ``"nearest"`` for the geometric operations. seed, data_format: as usual.

    Raises:
        ValueError: a factor outside [0, 1], or a ``value_range`` the operations refuse.
        NotImplementedError: bounding boxes.
    """

    _BOXES_UNCHANGED = False
    _AUGMENT_LAYERS = (
        "random_shear",
        "random_translation",
        "random_rotation",
        "random_brightness",
        "random_color_degeneration",
        "random_contrast",
        "random_sharpness",
        "random_posterization",
        "solarization",
        "auto_contrast",
        "equalization",
    )

    def __init__(
        self,
        value_range=(0, 255),
        num_ops=2,
        factor=0.5,
        interpolation="bilinear",
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.value_range = value_range
        self.num_ops = num_ops
        self.factor = base_factor(factor, (0, 1))
        self.interpolation = interpolation
        operations = _operations(self.factor, value_range, interpolation, seed)
        self._operations = [operations[name] for name in self._AUGMENT_LAYERS]

    def _sample(self, rng, batch, height, width, channels):
        shape = (batch, height, width, channels)
        return {
            "choices": rng.integers(0, len(self._operations), self.num_ops).astype(np.int32),
            "params": [op._sample(rng, *shape) for op in self._operations],
        }

    def _apply(self, images, params):
        for i in range(self.num_ops):
            images = _pick(images, self._operations, params["choices"][i], params["params"])
        return images

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "value_range": self.value_range,
            "num_ops": self.num_ops,
            "factor": self.factor,
            "interpolation": self.interpolation,
            "seed": self.seed,
        }


class AugMix(ImagePreprocessingLayer):
    """AugMix (follows `keras.layers.AugMix`): ``num_chains`` chains of up to
    ``chain_depth`` random operations (each step picks one of Keras's operations or none,
    uniformly), mixed with Dirichlet(``alpha``) weights, then blended with the original image
    by a Beta(``alpha``, ``alpha``) weight and clipped to ``value_range``. ``all_ops=False``
    leaves out brightness, colour degeneration, contrast and sharpness.

    Args:
        value_range: ``(low, high)`` (default ``(0, 255)``). num_chains, chain_depth: default
            3 each. factor: the operations' strength, a number in [0, 1] or a pair (default
            0.3). alpha: default 1.0. all_ops: default True. interpolation: ``"bilinear"``
            or ``"nearest"``. seed, data_format: as usual.

    Raises:
        ValueError: a factor outside [0, 1], or a ``value_range`` the operations refuse.
    """

    _ALL = (
        "random_shear",
        "random_translation",
        "random_rotation",
        "random_posterization",
        "solarization",
        "auto_contrast",
        "equalization",
        "random_brightness",
        "random_color_degeneration",
        "random_contrast",
        "random_sharpness",
    )

    def __init__(
        self,
        value_range=(0, 255),
        num_chains=3,
        chain_depth=3,
        factor=0.3,
        alpha=1.0,
        all_ops=True,
        interpolation="bilinear",
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.value_range = value_range
        self.num_chains = num_chains
        self.chain_depth = chain_depth
        self.factor = base_factor(factor, (0, 1))
        self.alpha = alpha
        self.all_ops = all_ops
        self.interpolation = interpolation
        operations = _operations(self.factor, value_range, interpolation, seed)
        names = self._ALL if all_ops else self._ALL[:7]
        self._operations = [operations[name] for name in names]

    def _sample(self, rng, batch, height, width, channels):
        shape = (batch, height, width, channels)
        gamma = rng.standard_gamma(self.alpha, self.num_chains)
        weight = rng.beta(self.alpha, self.alpha)
        n = len(self._operations)
        # As Keras: each step's operation picked by Python's `random` (n meaning none, Keras's
        # `None`), only the picked one's parameters drawn from the layer's generator; the
        # others' (computed, then discarded by `_pick`) from a spare one.
        spare = KerasDraws(keras_random.SeedGenerator(0))
        choices = np.full((self.num_chains, self.chain_depth), n, np.int32)
        params = []
        for c in range(self.num_chains):
            params.append([])
            for d in range(self.chain_depth):
                choices[c, d] = pick = _py_random.choice(range(n + 1))
                draws = [rng if k == pick else spare for k in range(n)]
                params[c].append([op._sample(r, *shape) for op, r in zip(self._operations, draws)])
        return {
            "chain_weights": gamma / gamma.sum(),
            "weight": weight,
            "choices": choices,
            "params": params,
        }

    def _apply(self, images, params):
        mixed = creation.zeros_like(images)
        for c in range(self.num_chains):
            chain = images
            for d in range(self.chain_depth):
                choice = params["choices"][c, d]
                chain = _pick(chain, self._operations, choice, params["params"][c][d])
            mixed = mixed + chain * params["chain_weights"][c]
        weight = params["weight"]
        out = weight * images + (1.0 - weight) * mixed
        return clip_by_value(out, float(self.value_range[0]), float(self.value_range[1]))

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "value_range": self.value_range,
            "num_chains": self.num_chains,
            "chain_depth": self.chain_depth,
            "factor": self.factor,
            "alpha": self.alpha,
            "all_ops": self.all_ops,
            "interpolation": self.interpolation,
            "seed": self.seed,
        }
