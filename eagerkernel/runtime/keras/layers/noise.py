"""Regularization layers active in training only: GaussianNoise, GaussianDropout,
AlphaDropout, SpatialDropout1D, SpatialDropout2D and SpatialDropout3D (follow the
`tf.keras.layers` classes of those names). Their random draws are seeded as `Dropout`'s are:
with ``seed``, the sequence of draws is reproducible (also with `ek.random.set_seed`) and
different at each call, also inside `ek.function`."""

from __future__ import annotations

import math
import numbers

import numpy as np

from ... import random as _random
from ...core.dispatch import stateful
from ...core.tensor import make
from ...ops import elementwise
from .. import random as keras_random
from ._utils import check_rank, normalize_data_format, shape_of
from .base import Layer
from .core import Dropout

__all__ = [
    "AlphaDropout",
    "GaussianDropout",
    "GaussianNoise",
    "SpatialDropout1D",
    "SpatialDropout2D",
    "SpatialDropout3D",
]


@stateful  # a fresh draw on every call of a graph function
def _draw(kind: str, shape: tuple, dtype, device, seed):
    """Standard normal (``kind="normal"``) or uniform [0, 1) samples of ``shape`` on
    ``device``; ``seed`` is None, an op-level seed or a zero-argument callable giving one."""
    if callable(seed):
        seed = seed()
    gen = _random.generator(seed)
    values = (gen.standard_normal(shape) if kind == "normal" else gen.random(shape)).astype(dtype)
    return make(device.xp.asarray(values) if device.xp is not np else values, device)


def _check_unit(value, name: str):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 1:
        raise ValueError(
            f"Invalid value received for argument `{name}`. Expected a float value between 0 "
            f"and 1. Received: {name}={value!r}"
        )
    return float(value)


class _Seeded(Layer):
    supports_masking = True

    def __init__(self, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.seed = seed
        self._rng = None

    def _seed_stream(self):
        """None, or a callable drawing a fresh op-level seed from the layer's generator."""
        if self.seed is None:
            return None

        def next_seed():
            if self._rng is None:
                self._rng = np.random.default_rng([_random.get_seed() or 0, int(self.seed)])
            return int(self._rng.integers(2**62))

        return next_seed

    def _seed_generator(self):
        """Keras's ``SeedGenerator(seed)`` of the layer (GaussianNoise's, GaussianDropout's),
        made on first use."""
        if getattr(self, "seed_generator", None) is None:
            self.seed_generator = keras_random.SeedGenerator(self.seed)
        return self.seed_generator

    def _draw(self, kind: str, inputs, shape=None):
        shape = shape_of(inputs) if shape is None else shape
        return _draw(kind, tuple(shape), inputs._value.dtype, inputs._device, self._seed_stream())

    def compute_output_shape(self, input_shape) -> tuple:
        return tuple(input_shape)


class GaussianNoise(_Seeded):
    """Adds zero-mean Gaussian noise of standard deviation ``stddev`` in training (follows
    `tf.keras.layers.GaussianNoise`); the identity otherwise.

    Args:
        stddev: float in [0, 1]. seed: optional int.

    Raises:
        ValueError: ``stddev`` outside [0, 1] (Keras's message).

    >>> layer = ek.keras.layers.GaussianNoise(0.1, seed=1)
    >>> layer(ek.ones((2,))).numpy()
    array([1., 1.], dtype=float32)
    """

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.stddev = _check_unit(stddev, "stddev")
        if self.stddev > 0:
            self._seed_generator()  # made now, as Keras's (from Python's `random` if unseeded)

    def call(self, inputs, training=False):
        if not training or self.stddev == 0:
            return inputs
        noise = keras_random.normal(
            shape_of(inputs), 0.0, self.stddev, inputs.dtype, self._seed_generator()
        )
        return inputs + noise

    def get_config(self) -> dict:
        return {**super().get_config(), "stddev": self.stddev, "seed": self.seed}


class GaussianDropout(_Seeded):
    """Multiplies by Gaussian noise of mean 1 and standard deviation
    ``sqrt(rate / (1 - rate))`` in training (follows `tf.keras.layers.GaussianDropout`).

    Args:
        rate: float in [0, 1]. seed: optional int.

    Raises:
        ValueError: ``rate`` outside [0, 1] (Keras's message).
    """

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.rate = _check_unit(rate, "rate")
        if self.rate > 0:
            self._seed_generator()

    def call(self, inputs, training=False):
        if not training or not 0 < self.rate < 1:
            return inputs
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        noise = keras_random.normal(
            shape_of(inputs), 1.0, stddev, inputs.dtype, self._seed_generator()
        )
        return inputs * noise

    def get_config(self) -> dict:
        return {**super().get_config(), "rate": self.rate, "seed": self.seed}


class AlphaDropout(_Seeded):
    """Dropout that keeps the mean and variance of SELU activations (follows
    `tf.keras.layers.AlphaDropout`): in training each element is dropped with probability
    ``rate`` to SELU's negative saturation value ``-alpha * scale``, then the result is
    affinely transformed, ``a * x + b``, with ``a = ((1 - rate) * (1 + rate * alpha_p**2)) **
    -0.5`` and ``b = -a * alpha_p * rate`` (``alpha_p = -alpha * scale``).

    Args:
        rate: float in [0, 1]. noise_shape: as for `Dropout`. seed: optional int.

    Raises:
        ValueError: ``rate`` outside [0, 1] (Keras's message).
    """

    _alpha = 1.6732632423543772848170429916717
    _scale = 1.0507009873554804934193349852946

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.rate = _check_unit(rate, "rate")
        self.noise_shape = None if noise_shape is None else tuple(noise_shape)
        if self.rate > 0:
            self._seed_generator()  # made now, as Keras's (from Python's `random` if unseeded)

    def call(self, inputs, training=False):
        if not training or not 0 < self.rate < 1:
            return inputs
        shape = shape_of(inputs)
        noise = shape
        if self.noise_shape is not None:
            lead = len(shape) - len(self.noise_shape)
            noise = tuple(
                shape[i + lead] if n is None else int(n) for i, n in enumerate(self.noise_shape)
            )
        alpha_p = -self._alpha * self._scale
        uniform = keras_random.uniform(noise, seed=self._seed_generator())  # Keras's draw
        kept = elementwise.cast(uniform >= self.rate, inputs.dtype)
        a = ((1 - self.rate) * (1 + self.rate * alpha_p**2)) ** -0.5
        b = -a * alpha_p * self.rate
        x = inputs * kept + (1.0 - kept) * alpha_p
        return x * a + b

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "rate": self.rate,
            "noise_shape": self.noise_shape,
            "seed": self.seed,
        }


class SpatialDropout1D(Dropout):
    """Drops whole feature channels of a ``(batch, steps, channels)`` input in training
    (follows `tf.keras.layers.SpatialDropout1D`): `Dropout` with noise shape
    ``(batch, 1, channels)``.

    Args:
        rate: float in [0, 1). seed: optional int.

    Raises:
        ValueError: ``rate`` outside [0, 1), or an input not of rank 3.
    """

    _rank = 3

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(rate, seed=seed, **kwargs)

    def call(self, inputs, training=None):
        shape = shape_of(inputs)
        check_rank(self, shape, self._rank)
        if not training or self.rate == 0:
            return inputs
        noise_shape = (shape[0], *([1] * (self._rank - 2)), shape[-1])
        return keras_random.dropout(inputs, self.rate, noise_shape, self.seed_generator)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["noise_shape"]
        return config


class SpatialDropout2D(SpatialDropout1D):
    """Drops whole channels of a ``(batch, rows, cols, channels)`` input in training (follows
    `tf.keras.layers.SpatialDropout2D`): `Dropout` with noise shape ``(batch, 1, 1,
    channels)``.

    Args:
        rate: float in [0, 1). data_format: channels_last only. seed: optional int.
    """

    _rank = 4

    def __init__(self, rate, data_format=None, seed=None, **kwargs):
        super().__init__(rate, seed=seed, **kwargs)
        self.data_format = normalize_data_format(data_format, "SpatialDropout2D")

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format}


class SpatialDropout3D(SpatialDropout2D):
    """Drops whole channels of a ``(batch, depth, rows, cols, channels)`` input in training
    (follows `tf.keras.layers.SpatialDropout3D`): `Dropout` with noise shape ``(batch, 1, 1,
    1, channels)``; the identity at inference.

    Args:
        rate: float in [0, 1). data_format: ``"channels_last"`` (or None). seed: optional int.

    Raises:
        ValueError: ``rate`` outside [0, 1), channels_first, or an input not of rank 5.

    >>> layer = ek.keras.layers.SpatialDropout3D(0.5, seed=1)
    >>> y = layer(ek.ones((2, 3, 3, 3, 4)), training=True).numpy()
    >>> bool(((y == 0) | (y == 2)).all() and (y.std(axis=(1, 2, 3)) == 0).all())
    True
    """

    _rank = 5

    def __init__(self, rate, data_format=None, seed=None, **kwargs):
        super().__init__(rate, seed=seed, **kwargs)
        self.data_format = normalize_data_format(data_format, "SpatialDropout3D", 3)
