"""Keras 3's gradient accumulation (``gradient_accumulation_steps``) and loss scale factor
(``loss_scale_factor``), as Keras's `BaseOptimizer` applies them.

Gradient accumulation: with ``gradient_accumulation_steps = n``, each trained variable gets a
``gradient_accumulator`` slot. A step whose ``iterations`` count (the optimizer's own, before
it is incremented) is not ``n - 1`` modulo ``n`` only adds its gradients to the accumulators;
the variables wait. Every n-th step applies the mean of the n steps' gradients, clipped and
with weight decay as a plain step would be, and zeroes the accumulators. The update rules see
``iterations // n`` as their step count (Adam's bias correction, the moving average of the
weights), while learning-rate schedules are called with the count of every step, as Keras's
documentation says. `Optimizer.iterations` is then ``iterations // n``, a Tensor; what
`apply_gradients` returns and what a checkpoint saves is the count of every step.

Loss scale factor: ``scale_loss(loss)`` multiplies a loss by the factor before the gradients
are taken (``Model.fit`` does so), and every step divides its gradients by it.
"""

from __future__ import annotations

import math

import numpy as np

from .inplace import mutable_array, on_device

__all__ = [
    "SLOT",
    "accumulate",
    "check_accumulation_steps",
    "check_loss_scale_factor",
    "scaled_loss",
]

SLOT = "gradient_accumulator"


def check_accumulation_steps(cls: str, value) -> int | None:
    """``gradient_accumulation_steps`` checked: None or 0 (Keras's "off") gives None.

    Raises:
        TypeError: not a number.
        ValueError: not an integer, or 1 or less (Keras's message).
    """
    if value is None or (isinstance(value, (int, np.integer)) and value == 0):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(
            f"{cls}: `gradient_accumulation_steps` must be an integer >= 2. Received: "
            f"gradient_accumulation_steps={value!r} of type {type(value).__name__}"
        )
    if not isinstance(value, (int, np.integer)) or value < 2:
        raise ValueError(
            f"{cls}: `gradient_accumulation_steps` must be an integer >= 2. Received: "
            f"gradient_accumulation_steps={value!r}"
        )
    return int(value)


def check_loss_scale_factor(cls: str, value) -> float | None:
    """``loss_scale_factor`` checked: None, or a finite positive float.

    Raises:
        ValueError: not a number, not finite, or not positive.
    """
    if value is None:
        return None
    try:
        factor = float(value)
    except (TypeError, ValueError):
        factor = math.nan
    if not (math.isfinite(factor) and factor > 0):
        raise ValueError(
            f"{cls}: `loss_scale_factor` must be a finite positive number or None. Received: "
            f"loss_scale_factor={value!r}"
        )
    return factor


def scaled_loss(optimizer, loss):
    """``loss`` times ``optimizer``'s ``loss_scale_factor`` if it has one set, else ``loss``
    (what Keras's training step takes the gradients of)."""
    if getattr(optimizer, "loss_scale_factor", None) is None:
        return loss
    return optimizer.scale_loss(loss)


def accumulate(optimizer, pairs: list) -> list | None:
    """Adds ``pairs``' gradients to their variables' accumulators. At an update step (every
    ``gradient_accumulation_steps``-th) returns ``[(mean gradient, variable)]``, the mean of
    the accumulated steps and this one, and zeroes the accumulators; otherwise None.

    Args:
        optimizer: an `Optimizer` whose ``gradient_accumulation_steps`` is set and whose
            variables in ``pairs`` are built (they have their accumulator slots).
        pairs: ``[(gradient array, variable)]``, validated (dtype, shape and device checked).
    """
    n = optimizer.gradient_accumulation_steps
    update = (int(optimizer._iterations._value) + 1) % n == 0
    out = []
    for g, v in pairs:
        with on_device(v._device):
            if update:
                out.append((_mean_and_clear(optimizer.get_slot(v, SLOT), g, n), v))
            else:
                _add(optimizer.get_slot(v, SLOT), g)
    return out if update else None


def _add(slot, g) -> None:
    # A function of its own, so that no local of the caller keeps the array referenced (that
    # would make `mutable_array` copy it).
    acc = mutable_array(slot)
    acc += g


def _mean_and_clear(slot, g, n: int):
    acc = mutable_array(slot)
    mean = g + acc
    mean /= n
    acc[...] = 0
    return mean
