"""`ek.keras.random` (follows Keras 3's ``keras.random`` with its TensorFlow backend):
random tensors whose ``seed`` is an int (the same values on every call: a stateless draw
from ``[seed, 0]``), a `SeedGenerator` (a state that advances on every draw, as a layer keeps
one), or None (a global `SeedGenerator`, seeded from Python's `random` module, which
``keras.utils.set_random_seed`` seeds and resets).

The draws are Keras's: the TensorFlow backend's ``tf.random.stateless_*`` ops on the seed
``[s0, s1] mod (2**31 - 2)``, so a seeded program prints Keras's numbers.
"""

from __future__ import annotations

import math
import random as _py_random

import numpy as np

from .. import philox
from ..core import dtypes
from ..core.device import current_device
from ..core.dispatch import stateful
from ..core.tensor import Tensor, make, to_tensor
from ..ops import array_ops, elementwise, indexing, math_ops
from ..random_generator import (
    stateless_binomial,
    stateless_categorical,
    stateless_normal,
    stateless_truncated_normal,
    stateless_uniform,
)
from ..random_stateless_distributions import stateless_gamma

__all__ = [
    "SeedGenerator",
    "beta",
    "binomial",
    "categorical",
    "draw_seed",
    "dropout",
    "gamma",
    "global_seed_generator",
    "make_default_seed",
    "normal",
    "randint",
    "reset_global_seed_generator",
    "shuffle",
    "truncated_normal",
    "uniform",
]


def make_default_seed() -> int:
    """A seed from Python's `random` module, as Keras draws one for an unseeded initializer
    or `SeedGenerator`."""
    return _py_random.randint(1, int(1e9))


class SeedGenerator:
    """A random state that advances on every draw (follows ``keras.random.SeedGenerator``):
    pass it as ``seed=`` to the functions of this module, so that a layer's draws differ
    from call to call yet repeat from run to run. Its state is the int64 pair
    ``[seed, counter]``; each draw uses it and increments the counter.

    Args:
        seed: an int (default: `make_default_seed`).
        name: accepted for Keras's signature.

    >>> gen = ek.keras.random.SeedGenerator(1337)
    >>> a = ek.keras.random.normal((2,), seed=gen)
    >>> b = ek.keras.random.normal((2,), seed=gen)
    >>> bool(ek.reduce_all(a == b))
    False
    """

    def __init__(self, seed=None, name=None, **kwargs):
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments: {kwargs}")
        self._initial_seed = seed
        if seed is None:
            seed = make_default_seed()
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"SeedGenerator: seed must be an int. Received: seed={seed!r}")
        self.name = name or "seed_generator"
        self._state = np.array([int(seed), 0], np.int64)

    @property
    def state(self) -> Tensor:
        """The state ``[seed, counter]`` (int64)."""
        return _host(self._state.copy())

    @stateful  # a graph function's replay advances the state again
    def next(self, ordered: bool = True) -> Tensor:
        """The current state as a seed (int64, shape [2]); the state then advances: the
        counter by 1, or with ``ordered=False`` (the global generator's) by Keras's
        ``(state + 1) * 5387 % 933199``."""
        value = self._state.copy()
        if ordered:
            self._state = self._state + np.array([0, 1], np.int64)
        else:
            self._state = (self._state + 1) * 5387 % 933199
        return _host(value)

    def get_config(self) -> dict:
        return {"seed": self._initial_seed, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self) -> str:
        return f"<SeedGenerator {self.name}>"


def _host(arr: np.ndarray) -> Tensor:
    xp = current_device().xp
    return make(arr if xp is np else xp.asarray(arr), current_device())


_global: list = [None]


def global_seed_generator() -> SeedGenerator:
    """The `SeedGenerator` of unseeded draws, made on first use."""
    if _global[0] is None:
        _global[0] = SeedGenerator()
    return _global[0]


def reset_global_seed_generator() -> None:
    """Forgets the global `SeedGenerator` (``keras.utils.set_random_seed`` does)."""
    _global[0] = None


def draw_seed(seed, op: str = "random") -> Tensor:
    """The int64 seed pair of one draw (Keras's ``draw_seed``): ``[seed, 0]`` for an int, the
    generator's next for a `SeedGenerator`, the global generator's for None."""
    if isinstance(seed, SeedGenerator):
        return seed.next()
    if seed is None:
        return global_seed_generator().next(ordered=False)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(
            f"{op}: seed must be None, an int or a keras.random.SeedGenerator. "
            f"Received: seed={seed!r}"
        )
    return _host(np.array([int(seed), 0], np.int64))


@stateful  # a graph function's replay draws the next seed
def _seed(seed, op: str) -> Tensor:
    """`draw_seed` cast as the TensorFlow backend does: ``floormod(s, 2**31 - 2)`` as int32."""
    s = draw_seed(seed, op).numpy()
    return _host((s % (2**31 - 2)).astype(np.int32))


def initializer_values(kind: str, shape, dtype, seed, a, b) -> np.ndarray:
    """The values of `normal` (``a`` the mean, ``b`` the stddev), `truncated_normal` or
    `uniform` (``[a, b)``) for an initializer, as a NumPy array computed directly (the same
    numbers, without running ops that a tape or profile would show)."""
    s = draw_seed(seed, "initializer").numpy() % (2**31 - 2)
    key, counter = philox.key_counter_from_seed(int(s[0]), int(s[1]))
    dt = np.dtype(dtypes.as_dtype(dtype).as_numpy_dtype)
    draw = dt if dt.itemsize >= 4 else np.dtype(np.float32)
    shape = tuple(int(d) for d in shape)
    z = philox.fill(kind, draw, key, counter, math.prod(shape)).astype(dt).reshape(shape)
    lo, hi = dt.type(a), dt.type(b)
    if kind == "uniform":
        return (z * (hi - lo) + lo).astype(dt)
    return (z * hi + lo).astype(dt)


def _dtype(dtype, default):
    return dtypes.as_dtype(default if dtype is None else dtype)


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None) -> Tensor:
    """Normally distributed values of ``shape`` (follows ``keras.random.normal``; default
    dtype float32)."""
    dt = _dtype(dtype, "float32")
    return stateless_normal(shape, _seed(seed, "normal"), mean, stddev, dt)


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None) -> Tensor:
    """Values uniform in ``[minval, maxval)`` (follows ``keras.random.uniform``; float dtypes,
    default float32).

    Raises:
        ValueError: an integer ``dtype`` (use `randint`).
    """
    dt = _dtype(dtype, "float32")
    if not dt.is_floating:
        raise ValueError(
            f"uniform: dtype must be a floating-point dtype; use keras.random.randint for "
            f"integers. Received: dtype={dt.name}"
        )
    seed = _seed(seed, "uniform")
    lo, hi = (elementwise.cast(v, dt) for v in (minval, maxval))
    return stateless_uniform(shape, seed, lo, hi, dt)


def randint(shape, minval, maxval, dtype="int32", seed=None) -> Tensor:
    """Integers uniform in ``[minval, maxval)`` (follows ``keras.random.randint``)."""
    dt = _dtype(dtype, "int32")
    if not dt.is_integer:
        raise ValueError(f"randint: dtype must be an integer dtype. Received: dtype={dt.name}")
    wide = dt if dt.name in ("int32", "int64") else dtypes.int64
    out = stateless_uniform(shape, _seed(seed, "randint"), minval, maxval, wide)
    return elementwise.cast(out, dt)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None) -> Tensor:
    """Normal values redrawn beyond two standard deviations (follows
    ``keras.random.truncated_normal``)."""
    dt = _dtype(dtype, "float32")
    return stateless_truncated_normal(shape, _seed(seed, "truncated_normal"), mean, stddev, dt)


def dropout(inputs, rate, noise_shape=None, seed=None) -> Tensor:
    """``inputs`` with each element zeroed with probability ``rate`` and the rest scaled by
    ``1 / (1 - rate)`` (follows ``keras.random.dropout``; ``noise_shape`` broadcasts the mask).

    Raises:
        ValueError: ``rate`` outside ``[0, 1)``.
    """
    x = to_tensor(inputs, None, "dropout")
    rate = float(rate)
    if not 0.0 <= rate < 1.0:
        raise ValueError(f"dropout: rate must be in [0, 1). Received: rate={rate}")
    if rate == 0.0:
        return x
    from ..ops.nn import stateless_dropout

    shape = None
    if noise_shape is not None:
        shape = [x.shape[i] if d is None else d for i, d in enumerate(noise_shape)]
    return stateless_dropout(x, rate, _seed(seed, "dropout"), noise_shape=shape)


def shuffle(x, axis=0, seed=None) -> Tensor:
    """``x`` with its slices along ``axis`` in a random order (follows
    ``keras.random.shuffle``: the argsort of uniform keys)."""
    x = to_tensor(x, None, "shuffle")
    keys = stateless_uniform([x.shape[axis]], _seed(seed, "shuffle"))
    return indexing.gather(x, math_ops.argsort(keys), axis=axis)


def categorical(logits, num_samples, dtype="int32", seed=None) -> Tensor:
    """``num_samples`` class indices per row of ``logits`` ``[batch, classes]`` (follows
    ``keras.random.categorical``)."""
    logits = to_tensor(logits, None, "categorical")
    if logits.ndim != 2:
        raise ValueError(
            f"categorical: logits must be 2-D [batch, classes]. Received: shape={logits.shape}"
        )
    out = stateless_categorical(logits, int(num_samples), _seed(seed, "categorical"))
    return elementwise.cast(out, _dtype(dtype, "int32"))


def gamma(shape, alpha, dtype=None, seed=None) -> Tensor:
    """Gamma(``alpha``, 1) samples of ``shape`` (follows ``keras.random.gamma``; default dtype
    float32).

    >>> ek.keras.random.gamma((2,), alpha=2.0, seed=1).shape
    TensorShape([2])
    """
    dt = _dtype(dtype, "float32")
    wide = dtypes.float32 if dt.name == "bfloat16" else dt
    out = stateless_gamma(shape, _seed(seed, "gamma"), alpha=alpha, dtype=wide)
    return elementwise.cast(out, dt)


def beta(shape, alpha, beta, dtype=None, seed=None) -> Tensor:
    """Beta(``alpha``, ``beta``) samples of ``shape``, as ``X / (X + Y)`` of two gamma draws
    from the seeds ``s`` and ``s + 12`` (follows ``keras.random.beta``; default dtype
    float32)."""
    dt = _dtype(dtype, "float32")
    wide = dtypes.float32 if dt.name == "bfloat16" else dt
    s1 = _seed(seed, "beta")
    s2 = s1 + 12
    a = array_ops.broadcast_to(elementwise.cast(alpha, wide), shape)
    b = array_ops.broadcast_to(elementwise.cast(beta, wide), shape)
    x = elementwise.cast(stateless_gamma(shape, s1, alpha=a, dtype=wide), dt)
    y = elementwise.cast(stateless_gamma(shape, s2, alpha=b, dtype=wide), dt)
    return x / (x + y)


def binomial(shape, counts, probabilities, dtype=None, seed=None) -> Tensor:
    """Binomial(``counts``, ``probabilities``) samples of ``shape`` (follows
    ``keras.random.binomial``; default dtype float32, as Keras's)."""
    dt = _dtype(dtype, "float32")
    wide = dtypes.float32 if dt.name == "bfloat16" else dt
    seed = _seed(seed, "binomial")
    out = stateless_binomial(shape, seed, counts, probabilities, output_dtype=wide)
    return elementwise.cast(out, dt)
