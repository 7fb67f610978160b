"""Auto-packing: a (nested) list or tuple that holds Tensors, converted to one Tensor with the
``Pack`` op, so the conversion is recorded on a tape like any op (follows TensorFlow's
``_autopacking_conversion_function``, which makes ``tf.reduce_sum([loss_a, loss_b])`` and
``x * [x, 3.0]`` differentiable in ``x``).

Ops pack such a list given as an argument (`ops._core.tensor`); every other conversion
(``convert_to_tensor``, a binary operator's other side) packs it while something records,
and otherwise reads the same values directly.
"""

from __future__ import annotations

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, to_tensor
from .array_ops import stack

__all__ = ["first_tensor", "pack"]


def first_tensor(values):
    """The first Tensor (or Variable), depth first, in a nest of lists and tuples, else None.

    >>> first_tensor([1.0, [2.0, ek.constant(3.0)]]).numpy()
    np.float32(3.0)
    >>> first_tensor([[1.0], (2.0,)]) is None
    True
    """
    for v in values:
        if isinstance(v, Tensor):
            return v
        if type(v) in (list, tuple):
            found = first_tensor(v)
            if found is not None:
                return found
    return None


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
