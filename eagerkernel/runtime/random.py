"""Random tensors (`ek.random`), reproducible with `set_seed` (follows `tf.random`).

One process-wide NumPy `Generator` backs every unseeded call; `set_seed(s)` replaces it with a
fresh one seeded by ``s``, so the same seed gives the same sequence of numbers. A call with an
op-level ``seed`` draws from a generator seeded by ``(global seed, seed)``, and so gives the
same numbers every time it is called with the same seeds, as in TensorFlow.
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .device import current_device
from .tensor import Tensor, make, to_tensor

__all__ = ["normal", "set_seed", "shuffle", "uniform"]

_global_seed: int | None = None
_generator = np.random.default_rng()


def set_seed(seed: int | None) -> None:
    """Sets the global seed; subsequent random ops repeat the same sequence (follows
    `tf.random.set_seed`). ``None`` returns to fresh, unseeded randomness."""
    global _global_seed, _generator
    _global_seed = None if seed is None else int(seed)
    _generator = np.random.default_rng(_global_seed)


def get_seed() -> int | None:
    """The global seed, or None."""
    return _global_seed


def generator(seed: int | None = None) -> np.random.Generator:
    """The NumPy Generator an op with op-level ``seed`` draws from (used by layers, Dataset)."""
    if seed is None:
        return _generator
    return np.random.default_rng([0 if _global_seed is None else _global_seed, int(seed)])


def _place(arr: np.ndarray) -> Tensor:
    device = current_device()
    if device.xp is not np:
        arr = device.xp.asarray(arr)
    return make(arr, device)


def _shape(shape) -> tuple:
    if isinstance(shape, Tensor):
        shape = shape.numpy().tolist()
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)


def _float_dtype(dtype, op: str) -> np.dtype:
    dt = dtypes.numpy_dtype(dtype)
    if dt.kind != "f":
        raise TypeError(f"{op}: dtype must be floating, got {dt.name}.")
    return dt


def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None) -> Tensor:
    """Samples from N(mean, stddev²) (follows `tf.random.normal`).

    Args:
        shape: output shape. mean, stddev: Python numbers or broadcastable tensors.
        dtype: a floating dtype, default float32. seed: op-level seed.

    Raises:
        TypeError: non-floating dtype.

    >>> ek.random.set_seed(0); a = ek.random.normal([2])
    >>> ek.random.set_seed(0); b = ek.random.normal([2])
    >>> bool(ek.reduce_all(a == b))
    True
    """
    dt = _float_dtype(dtype, "random.normal")
    z = generator(seed).standard_normal(_shape(shape))
    return _place((np.asarray(mean) + np.asarray(stddev) * z).astype(dt))


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None) -> Tensor:
    """Samples uniformly from ``[minval, maxval)`` (follows `tf.random.uniform`).

    ``maxval`` defaults to 1 for floating dtypes; integer dtypes need it.

    Raises:
        ValueError: integer dtype without ``maxval``.
    """
    dt = dtypes.numpy_dtype(dtype)
    gen = generator(seed)
    if dt.kind in "iu":
        if maxval is None:
            raise ValueError("random.uniform: maxval must be given for integer dtypes.")
        arr = gen.integers(int(minval), int(maxval), size=_shape(shape)).astype(dt)
    else:
        hi = 1.0 if maxval is None else maxval
        arr = gen.uniform(0.0, 1.0, size=_shape(shape))
        arr = (np.asarray(minval) + (np.asarray(hi) - np.asarray(minval)) * arr).astype(dt)
    return _place(arr)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal samples redrawn until within two standard deviations (follows TF's)."""
    dt = _float_dtype(dtype, "random.truncated_normal")
    gen = generator(seed)
    z = gen.standard_normal(_shape(shape))
    bad = np.abs(z) > 2
    while bad.any():
        z[bad] = gen.standard_normal(int(bad.sum()))
        bad = np.abs(z) > 2
    return _place((np.asarray(mean) + np.asarray(stddev) * z).astype(dt))


def shuffle(value, seed=None, name=None) -> Tensor:
    """A random permutation of ``value`` along axis 0 (follows `tf.random.shuffle`)."""
    x = to_tensor(value, None, "random.shuffle")
    perm = generator(seed).permutation(x.shape[0] if x.ndim else 1)
    xp = x._device.xp
    return make(x._value[xp.asarray(perm)] if x.ndim else x._value, x._device)
