"""The check of one ``(gradient, variable)`` pair that `Optimizer.apply_gradients` makes before it
changes anything: the gradient as an array of the variable's dtype, shape and device."""

from __future__ import annotations

from ...core.errors import InvalidArgumentError
from ...core.tensor import Tensor, to_tensor
from ...core.variable import Variable

__all__ = ["gradient_array"]


def gradient_array(g, v: Variable, op: str):
    """``g`` as an array (NumPy or CuPy) on ``v``'s device, checked against ``v``.

    Args:
        g: a Tensor, array, number or nested list (converted to ``v``'s dtype).
        v: the Variable ``g`` updates.
        op: the caller's name, for the messages (``"Adam.apply_gradients"``).

    Raises:
        TypeError: ``v`` is not a floating-point or complex variable (the update rules'
            arithmetic is not defined on integers; TensorFlow fails inside the update).
        ValueError: ``g`` is not numeric, or its dtype differs from ``v``'s.
        InvalidArgumentError: ``g``'s shape differs from ``v``'s (a ValueError too; TensorFlow
            raises it from the variable update).

    >>> w = ek.Variable([1.0, 2.0], name="w")
    >>> gradient_array([0.5, 0.5], w, "SGD.apply_gradients")
    array([0.5, 0.5], dtype=float32)
    >>> gradient_array([0.5], w, "SGD.apply_gradients")
    Traceback (most recent call last):
    ...
    eagerkernel.runtime.core.errors.InvalidArgumentError: SGD.apply_gradients: the gradient for w:0 has shape (1,), the variable has shape (2,).
    """  # noqa: E501
    vv = v._value
    if vv.dtype.kind not in "fc":
        raise TypeError(
            f"{op}: cannot update {v.name} of dtype {v.dtype.name}: optimizers update "
            "floating-point variables only."
        )
    if not isinstance(g, Tensor):
        try:
            g = to_tensor(g, vv.dtype, op, v._device)
        except TypeError as exc:
            raise ValueError(f"{op}: the gradient for {v.name} is not numeric: {exc}") from None
    if g._device is not v._device:
        from ...core.dispatch import copy_to_device

        g = copy_to_device(g, v._device)
    arr = g._value
    if arr.dtype != vv.dtype:
        raise ValueError(
            f"{op}: the gradient for {v.name} has dtype {g.dtype.name}, the variable has "
            f"dtype {v.dtype.name}."
        )
    if arr.shape != vv.shape:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: the gradient for {v.name} has shape {tuple(arr.shape)}, the variable "
            f"has shape {tuple(vv.shape)}.",
        )
    return arr
