"""What every op module needs to build its public ops: the dispatcher, the builders of one- and
two-input ops, argument conversion and the errors that name an op (see `core/dispatch.py`)."""

from __future__ import annotations

from ..core.dispatch import (
    binary,
    coerce_pair,
    complex_error,
    dispatch,
    dtype_error,
    dtype_unsupported,
    float_check,
    shape_error,
    unary,
)
from ..core.tensor import Tensor, to_tensor

__all__ = [
    "apply",
    "binary",
    "coerce_pair",
    "complex_error",
    "dispatch",
    "dtype_error",
    "dtype_unsupported",
    "float_check",
    "shape_error",
    "tensor",
    "unary",
]

apply = dispatch  # the ops' name for it


def tensor(x, op: str, dtype_hint=None) -> Tensor:
    """Converts an op argument to a Tensor (Variables pass through, so tapes can see them).

    A (nested) list or tuple holding a Tensor is packed with the ``Pack`` op (`to_tensor`), as
    TensorFlow's auto-packing conversion does, so ``reduce_sum([loss_a, loss_b])`` stays
    differentiable.
    """
    if type(x) is Tensor:
        return x
    return to_tensor(x, dtype_hint, op)
