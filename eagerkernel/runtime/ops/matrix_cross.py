"""`cross` (follows `tf.linalg.cross`), kept apart from `matrix_ops` for its size."""

from __future__ import annotations

from ..core.dispatch import Primitive, defvjp
from ..core.errors import FailedPreconditionError, InvalidArgumentError, UnsupportedDTypeError
from ..core.tensor import Tensor
from ._core import apply, dtype_error, tensor

__all__ = ["cross"]

_cross = Primitive("Cross", lambda xp, a, b: xp.cross(a, b))
# TensorFlow's Cross gradient: d/da = cross(b, g), d/db = cross(g, a).
defvjp(_cross, lambda g, ans, a, b: cross(b, g), lambda g, ans, a, b: cross(g, a))


def cross(a, b, name=None) -> Tensor:
    """Pairwise cross product of 3-vectors along the last axis (follows `tf.linalg.cross`).

    Args:
        a, b: the same shape ``[..., 3]`` and dtype.

    Returns:
        Shape ``[..., 3]``. Differentiable in both arguments.

    Raises:
        InvalidArgumentError: shapes that differ.
        FailedPreconditionError: a last axis that is not 3 (TensorFlow's class for it).
        TypeError: dtypes that differ.
        UnsupportedDTypeError: a bool or complex dtype (TensorFlow's InvalidArgumentError;
            also a TypeError).

    >>> ek.linalg.cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]).numpy()
    array([0., 0., 1.], dtype=float32)
    """
    a = tensor(a, "cross")
    b = tensor(b, "cross", a._value.dtype)
    if a._value.dtype != b._value.dtype:
        raise dtype_error("cross", (a, b), ("a", "b"))
    if a._value.dtype.kind in "bcOSU":  # not in TensorFlow's Cross kernel's type list
        raise UnsupportedDTypeError(
            None, "Cross", f"cross: a and b must be real numbers, got {a.dtype.name}."
        )
    sa, sb = tuple(a._value.shape), tuple(b._value.shape)
    if sa != sb:
        raise InvalidArgumentError(
            None, "Cross", f"cross: both inputs must have the same shape, got {sa} and {sb}."
        )
    if not sa or sa[-1] != 3:  # TensorFlow's error class for this case
        raise FailedPreconditionError(
            None,
            "Cross",
            f"cross: cross products are only defined for 3-element vectors, got shape {sa}.",
        )
    return apply(_cross, (a, b))
