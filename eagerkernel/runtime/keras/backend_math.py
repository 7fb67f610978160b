"""The math functions of `ek.keras.backend` (follow Keras 2's ``tf.keras.backend``: ``mean``,
``sum``, ``std``, ``var``, ``max``, ``min``, ``square``, ``sqrt``, ``abs``, ``exp``, ``log``,
``clip``, ``cast``, ``int_shape``, ``get_value``, ``set_value``, ``random_normal``,
``random_uniform``).

Each is the TensorFlow op of the same meaning, with Keras 2's differences kept: ``mean``,
``std`` and ``var`` average booleans as floatx numbers, ``sqrt`` clips negative inputs to 0,
``clip`` accepts None bounds and a ``max_value`` below ``min_value``.
"""

from __future__ import annotations

import numpy as np

from ..core.tensor import Tensor, to_tensor
from ..core.variable import Variable
from ..ops import elementwise as _ew
from ..ops import reduction as _red

__all__ = [
    "abs",
    "cast",
    "clip",
    "exp",
    "get_value",
    "int_shape",
    "log",
    "max",
    "mean",
    "min",
    "random_normal",
    "random_uniform",
    "set_value",
    "sqrt",
    "square",
    "std",
    "sum",
    "var",
]


def _floatx() -> str:
    from .backend import floatx

    return floatx()


def _tensor(x, op: str) -> Tensor:
    return x if isinstance(x, Tensor) else to_tensor(x, None, f"keras.backend.{op}")


def _floats(x, op: str) -> Tensor:
    x = _tensor(x, op)
    return _ew.cast(x, _floatx()) if x.dtype == "bool" else x


def mean(x, axis=None, keepdims: bool = False) -> Tensor:
    """Mean over ``axis`` (an int, a list, or None for all); booleans count as 0/1 floats
    (follows `tf.keras.backend.mean`).

    >>> ek.keras.backend.mean(ek.constant([[1.0, 2.0], [3.0, 6.0]]), axis=0).numpy()
    array([2., 4.], dtype=float32)
    >>> float(ek.keras.backend.mean(ek.constant([True, False, False, False])))
    0.25
    """
    return _red.reduce_mean(_floats(x, "mean"), axis, keepdims)


def sum(x, axis=None, keepdims: bool = False) -> Tensor:
    """Sum over ``axis`` (follows `tf.keras.backend.sum`).

    >>> ek.keras.backend.sum(ek.constant([[1, 2], [3, 4]]), axis=1).numpy()
    array([3, 7], dtype=int32)
    """
    return _red.reduce_sum(_tensor(x, "sum"), axis, keepdims)


def std(x, axis=None, keepdims: bool = False) -> Tensor:
    """Population standard deviation (divides by n) over ``axis``; booleans count as 0/1
    floats (follows `tf.keras.backend.std`).

    >>> float(ek.keras.backend.std(ek.constant([1.0, 3.0])))
    1.0
    """
    return _red.reduce_std(_floats(x, "std"), axis, keepdims)


def var(x, axis=None, keepdims: bool = False) -> Tensor:
    """Population variance (divides by n) over ``axis`` (follows `tf.keras.backend.var`).

    >>> float(ek.keras.backend.var(ek.constant([1.0, 3.0])))
    1.0
    """
    return _red.reduce_variance(_floats(x, "var"), axis, keepdims)


def max(x, axis=None, keepdims: bool = False) -> Tensor:
    """Maximum over ``axis`` (follows `tf.keras.backend.max`).

    >>> ek.keras.backend.max(ek.constant([[1.0, 5.0], [3.0, 4.0]]), axis=0).numpy()
    array([3., 5.], dtype=float32)
    """
    return _red.reduce_max(_tensor(x, "max"), axis, keepdims)


def min(x, axis=None, keepdims: bool = False) -> Tensor:
    """Minimum over ``axis`` (follows `tf.keras.backend.min`).

    >>> ek.keras.backend.min(ek.constant([[1.0, 5.0], [3.0, 4.0]]), axis=1).numpy()
    array([1., 3.], dtype=float32)
    """
    return _red.reduce_min(_tensor(x, "min"), axis, keepdims)


def square(x) -> Tensor:
    """``x * x`` elementwise (follows `tf.keras.backend.square`)."""
    return _ew.square(_tensor(x, "square"))


def sqrt(x) -> Tensor:
    """Square root, negative inputs clipped to 0 first (follows `tf.keras.backend.sqrt`).

    >>> ek.keras.backend.sqrt(ek.constant([4.0, -1.0])).numpy()
    array([2., 0.], dtype=float32)
    """
    x = _tensor(x, "sqrt")
    return _ew.sqrt(_ew.maximum(x, np.zeros((), x._value.dtype)))


def abs(x) -> Tensor:
    """``|x|`` elementwise (follows `tf.keras.backend.abs`)."""
    return _ew.abs(_tensor(x, "abs"))


def exp(x) -> Tensor:
    """``e ** x`` elementwise (follows `tf.keras.backend.exp`)."""
    return _ew.exp(_tensor(x, "exp"))


def log(x) -> Tensor:
    """Natural logarithm elementwise (follows `tf.keras.backend.log`)."""
    return _ew.log(_tensor(x, "log"))


def clip(x, min_value, max_value) -> Tensor:
    """``x`` limited to ``[min_value, max_value]`` (follows `tf.keras.backend.clip`): a None
    bound is no bound, and a ``max_value`` below ``min_value`` is raised to ``min_value``.

    >>> ek.keras.backend.clip(ek.constant([-2.0, 0.5, 9.0]), 0.0, None).numpy()
    array([0. , 0.5, 9. ], dtype=float32)
    >>> ek.keras.backend.clip(ek.constant([1, 5, 9]), 2, None).numpy()  # ints: dtype's bounds
    array([2, 5, 9], dtype=int32)
    """
    x = _tensor(x, "clip")
    bounds = (min_value, max_value)
    if all(isinstance(b, (int, float)) for b in bounds) and max_value < min_value:
        max_value = min_value
    dt = x._value.dtype
    info = np.iinfo(dt) if dt.kind in "iu" else None  # an integer tensor: no infinities
    lo = (info.min if info else -np.inf) if min_value is None else min_value
    hi = (info.max if info else np.inf) if max_value is None else max_value
    return _ew.clip_by_value(x, lo, hi)


def cast(x, dtype) -> Tensor:
    """``x`` converted to ``dtype`` (follows `tf.keras.backend.cast`)."""
    return _ew.cast(_tensor(x, "cast"), dtype)


def int_shape(x):
    """The shape as a tuple of ints, None for an unknown dimension (follows
    `tf.keras.backend.int_shape`).

    >>> ek.keras.backend.int_shape(ek.keras.Input(shape=(3,)))
    (None, 3)
    >>> ek.keras.backend.int_shape(np.zeros((2, 5)))
    (2, 5)
    """
    shape = getattr(x, "shape", None)
    if shape is None:
        raise TypeError(
            f"keras.backend.int_shape: expected a tensor or an array. Received: {type(x).__name__}"
        )
    return tuple(None if d is None else int(d) for d in shape)


def get_value(x) -> np.ndarray:
    """The value of a Variable or Tensor as a NumPy array (follows
    `tf.keras.backend.get_value`)."""
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def set_value(x: Variable, value) -> None:
    """Assigns ``value`` (an array of the variable's shape) to the Variable ``x`` (follows
    `tf.keras.backend.set_value`).

    Raises:
        TypeError: ``x`` is not a Variable.
    """
    if not isinstance(x, Variable):
        raise TypeError(
            f"keras.backend.set_value: expected a Variable. Received: {type(x).__name__}"
        )
    x.assign(np.asarray(value, dtype=x._value.dtype))


def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None) -> Tensor:
    """Normal samples of ``shape`` (ints or scalar Tensors such as ``tf.shape(x)[0]``), float32
    by default (follows `tf.keras.backend.random_normal`; ``seed``: an int for a repeatable
    draw, or None).

    >>> ek.keras.backend.random_normal((2, 3), seed=1).shape
    TensorShape([2, 3])
    """
    from . import random as keras_random

    return keras_random.normal(shape, mean, stddev, dtype or _floatx(), seed)


def random_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None) -> Tensor:
    """Samples uniform in ``[minval, maxval)`` of ``shape``, float32 by default (follows
    `tf.keras.backend.random_uniform`).

    >>> x = ek.keras.backend.random_uniform((100,), 2.0, 3.0, seed=0).numpy()
    >>> bool(((x >= 2) & (x < 3)).all())
    True
    """
    from . import random as keras_random

    return keras_random.uniform(shape, minval, maxval, dtype or _floatx(), seed)
