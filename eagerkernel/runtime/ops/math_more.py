"""Smaller functions of `tf.math` written with other ops (so each is differentiable where its
parts are, and a tape records the ops TensorFlow's own implementation runs): ``lbeta``,
``reciprocal_no_nan``, ``scalar_mul``, ``zero_fraction``, ``logical_xor``,
``invert_permutation``, ``is_non_decreasing``, ``is_strictly_increasing`` and
``accumulate_n``. Each follows the TensorFlow 2 function of its name, errors included.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError, UnsupportedDTypeError
from ..core.tensor import Tensor, make, to_tensor
from ._core import float_check, tensor
from .array_ops import reshape, size
from .creation import ones_like
from .elementwise import (
    add_n,
    cast,
    equal,
    less,
    less_equal,
    logical_and,
    logical_not,
    logical_or,
    multiply,
)
from .math_ops import divide_no_nan, lgamma
from .reduction import reduce_all, reduce_mean, reduce_sum

__all__ = [
    "accumulate_n",
    "invert_permutation",
    "is_non_decreasing",
    "is_strictly_increasing",
    "lbeta",
    "logical_xor",
    "reciprocal_no_nan",
    "scalar_mul",
    "zero_fraction",
]


def lbeta(x, name=None) -> Tensor:
    """``log(|Beta(x)|)`` over the last axis, ``sum(lgamma(x), -1) - lgamma(sum(x, -1))``
    (follows `tf.math.lbeta`): a ``[..., n]`` tensor gives ``[...]``. As TensorFlow, an empty
    last axis gives ``-inf`` and a scalar raises.

    Raises:
        InvalidArgumentError: a scalar ``x`` (no last axis to reduce).
        UnsupportedDTypeError: integer input.

    >>> ek.math.lbeta(ek.constant([[1.0, 2.0], [3.0, 4.0]])).numpy()  # log(1/2), log(1/60)
    array([-0.6931472, -4.0943446], dtype=float32)
    """
    x = tensor(x, "lbeta")
    if x.ndim == 0:
        raise InvalidArgumentError(
            None, "Sum", "lbeta: Invalid reduction dimension (-1 for input with 0 dimension(s))."
        )
    return reduce_sum(lgamma(x), axis=-1) - lgamma(reduce_sum(x, axis=-1))


def reciprocal_no_nan(x, name=None) -> Tensor:
    """``1 / x``, and 0 where ``x == 0`` (follows `tf.math.reciprocal_no_nan`); floating or
    complex ``x`` only.

    Raises:
        UnsupportedDTypeError: integer input (TensorFlow's DivNoNan has no integer kernel).

    >>> ek.math.reciprocal_no_nan(ek.constant([2.0, 0.5, 0.0])).numpy()
    array([0.5, 2. , 0. ], dtype=float32)
    """
    x = tensor(x, "reciprocal_no_nan")
    if x._value.dtype.kind not in "fc":
        float_check("DivNoNan", x)
    return divide_no_nan(ones_like(x), x)


def scalar_mul(scalar, x, name=None) -> Tensor:
    """``scalar * x`` for a 0-d ``scalar`` (follows `tf.math.scalar_mul`); the scalar takes
    ``x``'s dtype, as a Python number does in ``x * 2``.

    Raises:
        ValueError: ``scalar`` is not 0-d (TensorFlow's message).
        TypeError: a scalar that ``x``'s dtype cannot hold (2.5 for an int32 ``x``).

    >>> ek.math.scalar_mul(2.0, ek.constant([1.0, 2.0])).numpy()
    array([2., 4.], dtype=float32)
    """
    x = tensor(x, "scalar_mul")
    shape = np.shape(scalar._value if isinstance(scalar, Tensor) else scalar)
    if shape != ():
        raise ValueError(f"The input scalar must be a 0-D value. Received shape {shape}.")
    if not isinstance(scalar, Tensor):
        scalar = to_tensor(scalar, x._value.dtype, "scalar_mul")
    return multiply(scalar, x)


def zero_fraction(value, name=None) -> Tensor:
    """The fraction of ``value``'s entries that are zero, a float32 scalar (follows
    `tf.math.zero_fraction`, also `tf.nn.zero_fraction`); NaN for an empty tensor.

    >>> float(ek.math.zero_fraction(ek.constant([[0, 1], [0, 0]])))
    0.75
    """
    value = tensor(value, "zero_fraction")
    zero = make(np.zeros((), value._value.dtype), value._device)
    return reduce_mean(cast(equal(value, zero), dtypes.float32))


def logical_xor(x, y, name=None) -> Tensor:
    """Elementwise exclusive OR of two bool tensors, written as TensorFlow writes it:
    ``(x or y) and not (x and y)`` (follows `tf.math.logical_xor`).

    Raises:
        UnsupportedDTypeError: an input that is not bool.

    >>> ek.math.logical_xor(ek.constant([True, True, False]), ek.constant([True, False, False]))
    <Tensor: shape=(3,), dtype=bool, numpy=array([False,  True, False])>
    """
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)))


def invert_permutation(x, name=None) -> Tensor:
    """The inverse of a permutation of ``0 .. n-1``: ``y[x[i]] = i`` (follows
    `tf.math.invert_permutation`); int32 or int64, the input's dtype.

    Raises:
        InvalidArgumentError: ``x`` is not 1-D, or not a permutation (a value repeated or out
            of range), or not of an integer dtype (TensorFlow's messages).

    >>> ek.math.invert_permutation([3, 4, 0, 2, 1]).numpy()
    array([2, 4, 3, 0, 1], dtype=int32)
    """
    x = tensor(x, "invert_permutation")
    a = np.asarray(x.numpy())
    op = "InvertPermutation"
    if a.dtype not in (np.int32, np.int64):
        raise UnsupportedDTypeError(
            None, op, f"invert_permutation: x must be int32 or int64, got {x.dtype.name}."
        )
    if a.ndim != 1:
        raise InvalidArgumentError(
            None, op, f"invert_permutation expects a 1D vector, got shape {a.shape}."
        )
    n = a.size
    out = np.full(n, -1, dtype=a.dtype)
    for i, v in enumerate(a.tolist()):
        if not 0 <= v < n:
            raise InvalidArgumentError(None, op, f"{v} is not between 0 and {n}.")
        if out[v] != -1:
            raise InvalidArgumentError(None, op, f"{v} is duplicated in the input.")
        out[v] = i
    return make(out, x._device)


def _monotone(x, op: str, compare) -> Tensor:
    x = tensor(x, op)
    if x._value.dtype.kind not in "iufb":
        raise TypeError(f"Expected x to be numeric, instead found: {x}")
    flat = reshape(x, [-1])
    if int(size(flat)) < 2:
        return make(np.asarray(True), x._device)
    return reduce_all(compare(flat[:-1], flat[1:]))


def is_non_decreasing(x, name=None) -> Tensor:
    """Whether ``x``'s elements, read in row-major order, never decrease (follows
    `tf.math.is_non_decreasing`); a bool scalar, True for fewer than two elements.

    Raises:
        TypeError: ``x`` is not numeric.

    >>> bool(ek.math.is_non_decreasing([1, 2, 2])), bool(ek.math.is_non_decreasing([2, 1]))
    (True, False)
    """
    return _monotone(x, "is_non_decreasing", less_equal)


def is_strictly_increasing(x, name=None) -> Tensor:
    """Whether ``x``'s elements, read in row-major order, strictly increase (follows
    `tf.math.is_strictly_increasing`); a bool scalar, True for fewer than two elements.

    Raises:
        TypeError: ``x`` is not numeric.

    >>> [bool(ek.math.is_strictly_increasing(x)) for x in ([1, 2, 3], [1, 2, 2])]
    [True, False]
    """
    return _monotone(x, "is_strictly_increasing", less)


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None) -> Tensor:
    """The elementwise sum of a list of tensors (follows `tf.math.accumulate_n`, which
    TensorFlow deprecates in favour of `add_n`): `add_n`, after checking the optional
    ``shape`` and ``tensor_dtype`` against the inputs.

    Raises:
        ValueError: an empty list, or inputs whose shape is not ``shape``.
        TypeError: inputs whose dtype is not ``tensor_dtype``, or dtypes that differ.

    >>> ek.math.accumulate_n([ek.constant([1.0, 2.0]), ek.constant([3.0, 4.0])]).numpy()
    array([4., 6.], dtype=float32)
    """
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError(
            f"accumulate_n: inputs must be a non-empty list of tensors, got {inputs!r}."
        )
    xs = [tensor(x, "accumulate_n") for x in inputs]
    if shape is not None:
        want = tuple(int(d) for d in shape)
        for x in xs:
            if tuple(x.shape) != want:
                raise ValueError(f"Shapes {want} and {tuple(x.shape)} are not compatible")
    if tensor_dtype is not None:
        want_dtype = dtypes.as_dtype(tensor_dtype)
        for x in xs:
            if x.dtype != want_dtype:
                raise TypeError(
                    f"accumulate_n: tensor_dtype is {want_dtype.name}, an input is {x.dtype.name}."
                )
    return add_n(xs)
