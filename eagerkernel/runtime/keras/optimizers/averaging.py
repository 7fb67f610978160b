"""Keras 3's optional optimizer arguments: the exponential moving average of the weights
(``use_ema``, ``ema_momentum``, ``ema_overwrite_frequency``) here, gradient accumulation and the
loss scale factor (`accumulation`), checked together by `keras_arguments`.

The moving average follows Keras's `BaseOptimizer`: after each update (before `iterations`
counts it) every variable's ``average`` slot becomes ``m * average + (1 - m) * variable``,
with ``m = ema_momentum``, or 0 at the first step (so the average starts at the weights; an
``average`` slot is created holding its variable's value, so a variable first updated at a
later step starts there too, as in Keras, which builds every slot at the first step);
with ``ema_overwrite_frequency = n`` the variables take their averages every n-th step; and
`Optimizer.finalize_variable_values` (which `Model.fit` calls when training ends) gives the
variables their averages. With gradient accumulation it runs after every step, the
accumulating ones too, and counts updates (`Optimizer._update_count`), as Keras does.
"""

from __future__ import annotations

import typing

from .accumulation import check_accumulation_steps, check_loss_scale_factor
from .inplace import mutable_array

__all__ = [
    "KerasOptions",
    "averaged_variables",
    "keras_arguments",
    "overwrite_with_averages",
    "update_averages",
]

# Keras 3's optimizer arguments that eagerkernel does not implement, with the values that leave
# them off: a config Keras wrote (`serialize`, a `.keras` file) holds them all.
_KERAS_OFF = {"is_legacy_optimizer": False}
# Arguments with no effect without XLA.
_KERAS_INERT = ("jit_compile",)


class KerasOptions(typing.NamedTuple):
    """Keras 3's optional optimizer arguments, checked (see `keras_arguments`)."""

    use_ema: bool
    ema_momentum: float
    ema_overwrite_frequency: int | None
    loss_scale_factor: float | None
    gradient_accumulation_steps: int | None


def keras_arguments(cls: str, kwargs: dict) -> KerasOptions:
    """Removes Keras 3's optional arguments from ``kwargs`` and returns them checked as Keras
    checks them; the unsupported ones (`_KERAS_OFF`) must have the values that leave their
    feature off.

    Raises:
        ValueError: ``ema_momentum`` outside [0, 1] or ``ema_overwrite_frequency`` not a
            positive int, with ``use_ema``; ``gradient_accumulation_steps`` or
            ``loss_scale_factor`` out of range (see `accumulation`).
        NotImplementedError: an unsupported feature turned on, named.
    """
    for key, off in _KERAS_OFF.items():
        if key in kwargs:
            value = kwargs.pop(key)
            if value != off and not (off is False and value is None):
                raise NotImplementedError(
                    f"{cls}: {key}={value!r} is not supported by eagerkernel's optimizers "
                    f"(only {off!r}, Keras's default)."
                )
    for key in _KERAS_INERT:
        kwargs.pop(key, None)
    use_ema = bool(kwargs.pop("use_ema", False))
    momentum = kwargs.pop("ema_momentum", 0.99)
    frequency = kwargs.pop("ema_overwrite_frequency", None)
    if use_ema:
        if not 0 <= float(momentum) <= 1:
            raise ValueError(
                f"{cls}: `ema_momentum` must be in the range [0, 1]. Received: "
                f"ema_momentum={momentum}"
            )
        if frequency is not None and (
            not isinstance(frequency, int) or isinstance(frequency, bool) or frequency < 1
        ):
            raise ValueError(
                f"{cls}: `ema_overwrite_frequency` must be an integer >= 1 or None. Received: "
                f"ema_overwrite_frequency={frequency}"
            )
    return KerasOptions(
        use_ema,
        float(momentum),
        frequency,
        check_loss_scale_factor(cls, kwargs.pop("loss_scale_factor", None)),
        check_accumulation_steps(cls, kwargs.pop("gradient_accumulation_steps", None)),
    )


def averaged_variables(optimizer, variables: list) -> list:
    """``variables`` and, with ``use_ema``, every other variable that has an ``average`` slot:
    as in Keras, each step moves the average of every weight the optimizer has built, those
    without a gradient in this step too (their average moves towards their unchanged value)."""
    if not optimizer.use_ema:
        return variables
    seen = {v._uid for v in variables}
    others = [var for var, slots in optimizer._slots.values() if "average" in slots]
    return variables + [v for v in others if v._uid not in seen]


def update_averages(optimizer, variables: list) -> None:
    """Moves each variable's ``average`` slot towards its new value (the step being applied:
    the update count has not counted it yet); every ``ema_overwrite_frequency``-th update the
    variables take their averages."""
    step = optimizer._update_count()
    m = 0.0 if step == 0 else optimizer.ema_momentum
    for v in variables:
        average = mutable_array(optimizer.get_slot(v, "average"))
        average *= m
        average += (1.0 - m) * v._value
    n = optimizer.ema_overwrite_frequency
    if n and (step + 1) % n == 0:
        overwrite_with_averages(optimizer, variables)


def overwrite_with_averages(optimizer, variables: list) -> None:
    """Gives each variable the value of its ``average`` slot."""
    for v in variables:
        v.assign(optimizer.get_slot(v, "average"))
