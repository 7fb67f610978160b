"""Auto-packing: a (nested) list or tuple that holds Tensors, converted to one Tensor with the
``Pack`` op, so the conversion is recorded on a tape like any op (follows TensorFlow's
``_autopacking_conversion_function``, which makes ``tf.reduce_sum([loss_a, loss_b])`` and
``x * [x, 3.0]`` differentiable in ``x``).

Every conversion (an op's argument, ``convert_to_tensor``, a binary operator's other side)
packs such a list in its first Tensor's dtype (``[int64_tensor, 3]`` is int64), unless a
different dtype is asked for: the values are then converted to it as plain values, as
TensorFlow's conversion falls back to when its auto-packing declines.
"""

from __future__ import annotations

from itertools import chain

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, to_tensor
from .array_ops import stack

__all__ = ["first_tensor", "pack", "packed"]

# Item types that are never a Tensor nor hold one, and the nests that are looked into.
_LEAVES = frozenset((float, int, bool, complex, str, bytes, type(None)))
_NESTS = frozenset((list, tuple))


def first_tensor(values):
    """The first Tensor (or Variable), depth first, in a nest of lists and tuples, else None.

    Reads the nest level by level at C speed (the set of item types, then the items of its
    lists), so that a long nested list of numbers costs a fraction of its conversion.

    >>> first_tensor([1.0, [2.0, ek.constant(3.0)]]).numpy()
    np.float32(3.0)
    >>> first_tensor([[1.0], (2.0,)]) is None
    True
    """
    level = values
    while True:
        kinds = set(map(type, level))
        if kinds <= _LEAVES:
            return None
        if any(issubclass(k, Tensor) for k in kinds):
            return _first_depth_first(values)
        if list not in kinds and tuple not in kinds:
            return None
        if kinds <= _NESTS:
            level = list(chain.from_iterable(level))
        else:
            level = list(chain.from_iterable(v for v in level if type(v) in _NESTS))


def _first_depth_first(values):
    for v in values:
        if isinstance(v, Tensor):
            return v
        if type(v) in _NESTS:
            found = _first_depth_first(v)
            if found is not None:
                return found
    return None


def packed(values, op: str, dtype=None):
    """``values`` packed (`pack`) in its first Tensor's dtype if it holds a Tensor and
    ``dtype`` (a NumPy dtype or None) is None or that dtype; else None, and the caller converts
    the values themselves: TensorFlow's auto-packing declines a requested dtype that differs
    (``convert_to_tensor([int64_tensor], dtype=ek.float32)`` is float32).

    >>> packed([ek.constant(1.0), 2.0], "demo").numpy()
    array([1., 2.], dtype=float32)
    >>> packed([1.0, 2.0], "demo") is None
    True
    """
    first = first_tensor(values)
    if first is None or (dtype is not None and first._value.dtype != dtype):
        return None
    return pack(values, op, first.dtype)


def pack(values, op: str, dtype) -> Tensor:
    """``values`` (a nest of lists and tuples holding Tensors) as one Tensor of ``dtype`` (the
    first Tensor's, for TensorFlow), stacked with the ``Pack`` op, axis 0 outermost. Python
    numbers in it are converted to ``dtype``.

    Raises:
        InvalidArgumentError: a list of Tensors only, of differing dtypes or shapes (the
            ``Pack`` op's error in TensorFlow's eager mode).
        TypeError: a list mixing Python values and a Tensor of another dtype (TensorFlow's
            message), or a Python value that ``dtype`` cannot hold.
        ValueError: an empty list inside the nest.

    >>> pack([ek.constant(1.0), 2.0], "demo", ek.float32).numpy()
    array([1., 2.], dtype=float32)
    """
    only_tensors = all(isinstance(v, Tensor) for v in values)
    parts = []
    for v in values:
        if type(v) in (list, tuple):
            v = pack(v, op, dtype)
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
