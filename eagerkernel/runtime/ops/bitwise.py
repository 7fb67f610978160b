"""`ek.bitwise`, as `tf.bitwise`: bitwise logic and shifts on integer tensors (no gradients,
as TensorFlow registers none). Shifts follow TensorFlow: a shift by a negative amount or by at
least the width of the type gives an implementation-defined result there; here it is NumPy's.
"""

from __future__ import annotations

import numpy as np

from ..core.dispatch import Primitive
from ..core.errors import UnsupportedDTypeError
from ..core.tensor import Tensor
from ._core import binary, coerce_pair, tensor, unary

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]


def _integer_check(op: str, *xs: Tensor) -> None:
    """Raises `UnsupportedDTypeError` (TensorFlow's InvalidArgumentError, also a TypeError)
    for an input that is not an integer tensor: TensorFlow has no kernel for it."""
    for x in xs:
        if x._value.dtype.kind not in "iu":
            raise UnsupportedDTypeError(
                None, op, f"{op}: inputs must be integer tensors, got {x.dtype.name}."
            )


def _integer_binary(name: str, prim_name: str, fn, doc: str):
    prim = Primitive(prim_name, lambda xp, x, y: fn(x, y))
    op_ = binary(prim)

    def op(x, y, name=None) -> Tensor:
        x, y = coerce_pair(x, y, prim_name)
        _integer_check(name_, x, y)
        return op_(x, y)

    name_ = name
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


bitwise_and = _integer_binary(
    "bitwise_and",
    "BitwiseAnd",
    np.bitwise_and,
    """``x & y`` elementwise (follows `tf.bitwise.bitwise_and`).

    >>> ek.bitwise.bitwise_and([12, 10], [10, 6]).numpy()
    array([8, 2], dtype=int32)
    """,
)
bitwise_or = _integer_binary(
    "bitwise_or", "BitwiseOr", np.bitwise_or, "``x | y`` (follows `tf.bitwise.bitwise_or`)."
)
bitwise_xor = _integer_binary(
    "bitwise_xor", "BitwiseXor", np.bitwise_xor, "``x ^ y`` (follows `tf.bitwise.bitwise_xor`)."
)
left_shift = _integer_binary(
    "left_shift",
    "LeftShift",
    np.left_shift,
    """``x << y`` (follows `tf.bitwise.left_shift`).

    >>> ek.bitwise.left_shift([1, 3], [2, 1]).numpy()
    array([4, 6], dtype=int32)
    """,
)
right_shift = _integer_binary(
    "right_shift",
    "RightShift",
    np.right_shift,
    "``x >> y``, arithmetic for signed types (follows `tf.bitwise.right_shift`).",
)

_invert = unary(Primitive("Invert", lambda xp, x: xp.invert(x)))


def invert(x, name=None) -> Tensor:
    """``~x``: every bit flipped (follows `tf.bitwise.invert`).

    Raises:
        TypeError: a non-integer tensor.

    >>> ek.bitwise.invert(ek.constant([0, 5], ek.uint8)).numpy()
    array([255, 250], dtype=uint8)
    """
    x = tensor(x, "invert")
    _integer_check("invert", x)
    return _invert(x)
