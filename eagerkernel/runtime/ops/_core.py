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
from ..core.errors import InvalidArgumentError
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

    A (nested) list or tuple holding a Tensor is packed with the ``Pack`` op, as TensorFlow's
    auto-packing conversion does, so ``reduce_sum([loss_a, loss_b])`` stays differentiable.
    """
    if type(x) is Tensor:
        return x
    if type(x) in (list, tuple):
        first = _first_tensor(x)
        if first is not None:
            return _autopack(x, op, first.dtype)
    return to_tensor(x, dtype_hint, op)


def _first_tensor(values):
    """The first Tensor (depth first) in a nest of lists and tuples, else None."""
    for v in values:
        if isinstance(v, Tensor):
            return v
        if type(v) in (list, tuple):
            found = _first_tensor(v)
            if found is not None:
                return found
    return None


def _autopack(values, op: str, dtype) -> Tensor:
    """Packs a nest of lists holding Tensors into one Tensor of ``dtype`` (the first Tensor's),
    recorded on the tape (follows TensorFlow's ``_autopacking_helper``).

    Raises:
        InvalidArgumentError: a list of Tensors only, of differing dtypes or shapes (the
            ``Pack`` op's error in TensorFlow's eager mode).
        TypeError: a list mixing Python values and a Tensor of another dtype (TensorFlow's
            message), or a Python value that ``dtype`` cannot hold.
    """
    from .array_ops import stack  # array_ops builds on this module

    only_tensors = all(isinstance(v, Tensor) for v in values)
    parts = []
    for v in values:
        if type(v) in (list, tuple):
            v = _autopack(v, op, dtype)
        elif not isinstance(v, Tensor):
            v = to_tensor(v, dtype.as_numpy_dtype, op)
        if v.dtype != dtype:
            message = (
                f"{op}: Cannot convert a list containing a tensor of dtype {v.dtype!r} to "
                f"{dtype!r} (Tensor is: {v!r})"
            )
            if only_tensors:
                raise InvalidArgumentError(None, op, message)
            raise TypeError(message)
        parts.append(v)
    if not parts:
        raise ValueError(f"{op}: an empty list inside a list of Tensors cannot be packed.")
    return stack(parts, name=op)
