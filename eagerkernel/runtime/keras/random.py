"""`ek.keras.random` (follows Keras 3's ``keras.random``): random tensors whose ``seed`` is
None (the global random state: `ek.random.set_seed` makes runs repeatable), an int (the same
values on every call, as Keras documents: a stateless draw), or a `SeedGenerator` (a state
that advances on every draw, as a layer keeps one).

Every draw runs on eagerkernel's own generators (`ek.random`, `ek.random.Generator`), so a
value is not the one Keras's backends draw for the same seed; the distributions are.
"""

from __future__ import annotations

import numpy as np

from .. import random as _random
from ..core import dtypes
from ..core.tensor import Tensor, to_tensor
from ..ops import array_ops, creation, elementwise, indexing, math_ops, reduction
from ..random_generator import Generator, get_global_generator

__all__ = [
    "SeedGenerator",
    "beta",
    "binomial",
    "categorical",
    "dropout",
    "gamma",
    "normal",
    "randint",
    "shuffle",
    "truncated_normal",
    "uniform",
]


class SeedGenerator:
    """A random state that advances on every draw (follows ``keras.random.SeedGenerator``):
    pass it as ``seed=`` to the functions of this module, so that a layer's draws differ
    from call to call yet repeat from run to run.

    Args:
        seed: an int (default: drawn from the global random state).
        name: accepted for Keras's signature.

    >>> gen = ek.keras.random.SeedGenerator(1337)
    >>> a = ek.keras.random.normal((2,), seed=gen)
    >>> b = ek.keras.random.normal((2,), seed=gen)
    >>> bool(ek.reduce_all(a == b))
    False
    """

    def __init__(self, seed=None, name=None, **kwargs):
        if kwargs:
            raise TypeError(f"SeedGenerator: unexpected keyword arguments {sorted(kwargs)}.")
        if seed is None:
            seed = int(_random.uniform((), 0, 2**31 - 1, dtype=dtypes.int64))
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"SeedGenerator: seed must be an int. Received: seed={seed!r}")
        self.name = name or "seed_generator"
        self._generator = Generator.from_seed(int(seed))

    @property
    def state(self):
        """The state Variable (its generator's)."""
        return self._generator.state

    def next(self, ordered: bool = True) -> Tensor:
        """A new seed, a (2,) int64 tensor for ``ek.random.stateless_*``; the state advances.
        Seeds come in order whatever ``ordered`` says (Keras's ``ordered=False`` only allows
        them not to)."""
        return array_ops.reshape(self._generator.make_seeds(1), (2,))

    def __repr__(self) -> str:
        return f"<SeedGenerator {self.name}>"


def _generator(seed, op: str):
    """The generator of one draw, or None for the global random state."""
    if seed is None:
        return None
    if isinstance(seed, SeedGenerator):
        return seed._generator
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(
            f"{op}: seed must be None, an int or a keras.random.SeedGenerator. "
            f"Received: seed={seed!r}"
        )
    return Generator.from_seed(int(seed))  # a fresh state: the same values on every call


def _dtype(dtype, default):
    return dtypes.as_dtype(default if dtype is None else dtype)


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None) -> Tensor:
    """Normally distributed values of ``shape`` (follows ``keras.random.normal``; default
    dtype float32)."""
    g, dt = _generator(seed, "normal"), _dtype(dtype, "float32")
    if g is None:
        return _random.normal(shape, mean, stddev, dt)
    return g.normal(shape, mean, stddev, dt)


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
    g = _generator(seed, "uniform")
    if g is None:
        return _random.uniform(shape, minval, maxval, dt)
    return g.uniform(shape, minval, maxval, dt)


def randint(shape, minval, maxval, dtype="int32", seed=None) -> Tensor:
    """Integers uniform in ``[minval, maxval)`` (follows ``keras.random.randint``)."""
    dt = _dtype(dtype, "int32")
    if not dt.is_integer:
        raise ValueError(f"randint: dtype must be an integer dtype. Received: dtype={dt.name}")
    g = _generator(seed, "randint")
    if g is None:
        return _random.uniform(shape, minval, maxval, dt)
    return g.uniform(shape, minval, maxval, dt)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None) -> Tensor:
    """Normal values redrawn beyond two standard deviations (follows
    ``keras.random.truncated_normal``)."""
    g, dt = _generator(seed, "truncated_normal"), _dtype(dtype, "float32")
    if g is None:
        return _random.truncated_normal(shape, mean, stddev, dt)
    return g.truncated_normal(shape, mean, stddev, dt)


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
    shape = tuple(x.shape) if noise_shape is None else tuple(noise_shape)
    keep = elementwise.greater_equal(uniform(shape, dtype=x.dtype, seed=seed), rate)
    return elementwise.where(keep, x / (1.0 - rate), creation.zeros_like(x))


def shuffle(x, axis=0, seed=None) -> Tensor:
    """``x`` with its slices along ``axis`` in a random order (follows
    ``keras.random.shuffle``)."""
    x = to_tensor(x, None, "shuffle")
    n = x.shape[axis]
    keys = uniform((n,), seed=seed)
    return indexing.gather(x, math_ops.argsort(keys), axis=axis)


def categorical(logits, num_samples, dtype="int32", seed=None) -> Tensor:
    """``num_samples`` class indices per row of ``logits`` ``[batch, classes]`` (follows
    ``keras.random.categorical``): the Gumbel-max trick, ``argmax(logits + Gumbel noise)``."""
    logits = to_tensor(logits, None, "categorical")
    if logits.ndim != 2:
        raise ValueError(
            f"categorical: logits must be 2-D [batch, classes]. Received: shape={logits.shape}"
        )
    batch, classes = logits.shape
    u = uniform((batch, int(num_samples), classes), minval=1e-20, maxval=1.0, seed=seed)
    gumbel = -elementwise.log(-elementwise.log(u))
    scores = array_ops.expand_dims(elementwise.cast(logits, "float32"), 1) + gumbel
    return elementwise.cast(reduction.argmax(scores, axis=-1), _dtype(dtype, "int32"))


def _op_seed(seed, op: str):
    """An op-level seed for the `ek.random` draws that take one: None for the global random
    state, else drawn from ``seed``'s generator (the same for an int seed)."""
    g = _generator(seed, op)
    return None if g is None else int(g.uniform((), 0, 2**31 - 1, dtype="int64"))


def gamma(shape, alpha, dtype=None, seed=None) -> Tensor:
    """Gamma(``alpha``, 1) samples of ``shape`` (follows ``keras.random.gamma``; default dtype
    float32).

    >>> ek.keras.random.gamma((2,), alpha=2.0, seed=1).shape
    TensorShape([2])
    """
    dt = _dtype(dtype, "float32")
    return _random.gamma(shape, alpha, dtype=dt, seed=_op_seed(seed, "gamma"))


def beta(shape, alpha, beta, dtype=None, seed=None) -> Tensor:
    """Beta(``alpha``, ``beta``) samples of ``shape``, as ``X / (X + Y)`` of two gamma draws
    (follows ``keras.random.beta``; default dtype float32)."""
    dt = _dtype(dtype, "float32")
    x = gamma(shape, alpha, dt, seed)
    y = gamma(shape, beta, dt, seed if not isinstance(seed, int) else seed + 1)
    return x / (x + y)


def binomial(shape, counts, probabilities, dtype=None, seed=None) -> Tensor:
    """Binomial(``counts``, ``probabilities``) samples of ``shape`` (follows
    ``keras.random.binomial``; default dtype float32, as Keras's)."""
    g = _generator(seed, "binomial") or get_global_generator()
    out = g.binomial(shape, counts, probabilities, dtype="int32")
    return elementwise.cast(out, _dtype(dtype, "float32"))
