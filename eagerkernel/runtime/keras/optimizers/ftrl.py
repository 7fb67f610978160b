"""`Ftrl` (follows `tf.keras.optimizers.Ftrl`)."""

from __future__ import annotations

import numpy as np

from .base import Optimizer

__all__ = ["Ftrl"]


class Ftrl(Optimizer):
    """Follow The Regularized Leader (McMahan et al., 2013; follows `tf.keras.optimizers.Ftrl`).

    Keras's update, ``g`` the gradient, ``p = -learning_rate_power``::

        l2 = l2_regularization_strength + beta / (2 * lr)
        g_shrunk = g + 2 * l2_shrinkage_regularization_strength * var
        new_accumulator = accumulator + g**2
        linear += g_shrunk - (new_accumulator**p - accumulator**p) / lr * var
        quadratic = new_accumulator**p / lr + 2 * l2
        var = (clip(linear, -l1, l1) - linear) / quadratic
        accumulator = new_accumulator

    Args:
        learning_rate: float, schedule or callable (default 0.001).
        learning_rate_power: <= 0 (default -0.5; 0 is a fixed learning rate).
        initial_accumulator_value: >= 0 (default 0.1).
        l1_regularization_strength, l2_regularization_strength: >= 0 (default 0).
        l2_shrinkage_regularization_strength: >= 0 (default 0): an L2 penalty on the
            gradient (magnitude shrinkage) rather than on the weights' stabilisation term.
        beta: >= 0 (default 0).
        **kwargs: name, clipnorm, clipvalue, global_clipnorm, weight_decay (see `Optimizer`).

    Slots: ``"accumulator"``, ``"linear"``.

    Raises:
        ValueError: a negative strength or accumulator value, or learning_rate_power > 0.

    >>> v = ek.Variable([0.0])
    >>> opt = ek.keras.optimizers.Ftrl(learning_rate=0.1, initial_accumulator_value=0.0)
    >>> _ = opt.apply_gradients([(ek.constant([2.0]), v)])
    >>> float(v.numpy()[0])  # linear = 2, quadratic = sqrt(4) / 0.1: var = -2 / 20
    -0.1000...
    """

    def __init__(
        self,
        learning_rate=0.001,
        learning_rate_power=-0.5,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        l2_shrinkage_regularization_strength=0.0,
        beta=0.0,
        name="Ftrl",
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.learning_rate_power = self._hyper(
            "learning_rate_power", learning_rate_power, lo=-float("inf"), hi=0.0
        )
        self.initial_accumulator_value = self._hyper(
            "initial_accumulator_value", initial_accumulator_value
        )
        self.l1_regularization_strength = self._hyper(
            "l1_regularization_strength", l1_regularization_strength
        )
        self.l2_regularization_strength = self._hyper(
            "l2_regularization_strength", l2_regularization_strength
        )
        self.l2_shrinkage_regularization_strength = self._hyper(
            "l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength
        )
        self.beta = self._hyper("beta", beta)
        self._slot_names = ("accumulator", "linear")

    def build(self, var_list) -> None:
        super().build(var_list)
        for v in var_list:
            self.add_slot(v, "accumulator", self.initial_accumulator_value)
            self.add_slot(v, "linear")

    def update_step(self, gradient, variable, learning_rate) -> None:
        scalars = {
            "lr": learning_rate,
            "p": -self.learning_rate_power,
            "l1": self.l1_regularization_strength,
            # NumPy division: a learning rate of 0 (a decayed schedule) gives inf/NaN as in
            # Keras, not ZeroDivisionError.
            "l2": float(
                self.l2_regularization_strength + self.beta / np.float64(2.0 * learning_rate)
            ),
            "shrink": self.l2_shrinkage_regularization_strength,
        }
        self._elementwise(_ftrl, gradient, variable, self._slot_names, **scalars)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "learning_rate_power": self.learning_rate_power,
            "initial_accumulator_value": self.initial_accumulator_value,
            "l1_regularization_strength": self.l1_regularization_strength,
            "l2_regularization_strength": self.l2_regularization_strength,
            "l2_shrinkage_regularization_strength": self.l2_shrinkage_regularization_strength,
            "beta": self.beta,
        }


def _ftrl(xp, tmp, g, var, acc, linear, *, lr, p, l1, l2, shrink) -> None:
    """Ftrl's update in place (two temporaries besides ``tmp``)."""
    old_power = xp.power(acc, p)
    xp.multiply(g, g, out=tmp)
    acc += tmp  # the new accumulator
    new_power = xp.power(acc, p)
    linear += g
    if shrink:
        xp.multiply(var, 2.0 * shrink, out=tmp)
        linear += tmp
    xp.subtract(new_power, old_power, out=tmp)
    tmp /= lr
    tmp *= var
    linear -= tmp
    new_power /= lr
    new_power += 2.0 * l2  # the quadratic term
    xp.clip(linear, -l1, l1, out=tmp)
    tmp -= linear
    xp.divide(tmp, new_power, out=var)
