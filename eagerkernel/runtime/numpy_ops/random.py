"""`ek.experimental.numpy.random` (follows `tf.experimental.numpy.random`): NumPy's random
functions drawing from eagerkernel's generator, so ``seed`` (``ek.random.set_seed``) makes
them repeat, and ``ek.function`` draws afresh on every call. Floats are float64 (also under
``prefer_float32``: TF NumPy draws in ``result_type(float)``), integers int64."""

from __future__ import annotations

import numpy as np

from .. import random as _random
from ..core.tensor import Tensor
from .utils import as_np_dtype

_FLOAT = np.dtype(np.float64)  # TF NumPy's result_type(float)

__all__ = ["poisson", "rand", "randint", "randn", "random", "seed", "standard_normal", "uniform"]


def _size(size, op: str) -> tuple:
    if size is None:
        return ()
    if isinstance(size, (int, np.integer)):
        return (int(size),)
    try:
        return tuple(int(d) for d in size)
    except TypeError:
        raise TypeError(
            f"random.{op}: size must be None, an int or a tuple of ints, got {size!r}."
        ) from None


def seed(s) -> None:
    """Seeds the generator the functions here draw from (``ek.random.set_seed``; follows
    `tf.experimental.numpy.random.seed`)."""
    _random.set_seed(None if s is None else int(s))


def standard_normal(size=None) -> Tensor:
    """Samples of N(0, 1) of shape ``size`` (follows
    `tf.experimental.numpy.random.standard_normal`)."""
    return _random.normal(_size(size, "standard_normal"), dtype=_FLOAT)


def randn(*args) -> Tensor:
    """Samples of N(0, 1) of shape ``args`` (follows `tf.experimental.numpy.random.randn`).

    >>> tnp = ek.experimental.numpy
    >>> tnp.random.seed(1); a = tnp.random.randn(2, 3)
    >>> tnp.random.seed(1); bool(tnp.all(a == tnp.random.randn(2, 3))), a.shape, a.dtype
    (True, TensorShape([2, 3]), ek.float64)
    """
    return standard_normal(args)


def uniform(low=0.0, high=1.0, size=None) -> Tensor:
    """Samples uniform on ``[low, high)`` (follows `tf.experimental.numpy.random.uniform`)."""
    if size is None:  # the shape of the bounds, as TF NumPy's
        size = np.broadcast_shapes(np.shape(low), np.shape(high))
    return _random.uniform(_size(size, "uniform"), low, high, dtype=_FLOAT)


def random(size=None) -> Tensor:
    """Samples uniform on ``[0, 1)`` (follows `tf.experimental.numpy.random.random`)."""
    return uniform(size=() if size is None else size)


def rand(*size) -> Tensor:
    """Samples uniform on ``[0, 1)`` of shape ``size`` (follows
    `tf.experimental.numpy.random.rand`)."""
    return uniform(size=size)  # rand() with no arguments: shape ()


def randint(low, high=None, size=None, dtype=np.int64) -> Tensor:
    """Integers uniform on ``[low, high)`` (``[0, low)`` without ``high``; follows
    `tf.experimental.numpy.random.randint`).

    Raises:
        ValueError: ``low >= high``. TypeError: a non-integer ``dtype``.
    """
    np_dtype = as_np_dtype(dtype, "random.randint")
    if np_dtype.kind not in "iu":
        raise TypeError(f"random.randint: dtype must be an integer type, got {np_dtype.name}.")
    if high is None:
        low, high = 0, low
    if int(low) >= int(high):
        raise ValueError(f"random.randint: low >= high ({low} >= {high}).")
    return _random.uniform(_size(size, "randint"), int(low), int(high), dtype=np_dtype)


def poisson(lam=1.0, size=None) -> Tensor:
    """Samples of Poisson(``lam``) as int64 (follows `tf.experimental.numpy.random.poisson`)."""
    from ..ops.elementwise import cast

    return cast(_random.poisson(_size(size, "poisson"), lam, dtype="float64"), "int64")
