"""`Adamax` (follows `tf.keras.optimizers.Adamax`)."""

from __future__ import annotations

import numpy as np

from .base import Optimizer

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax, Adam with the infinity norm (follows `tf.keras.optimizers.Adamax`).

    Keras's update at step ``t`` (1 for the first update), ``g`` the gradient::

        m = m + (g - m) * (1 - beta_1)
        u = max(beta_2 * u, |g|)
        var -= lr * m / ((1 - beta_1**t) * (u + epsilon))

    Args:
        learning_rate: float, schedule or callable (default 0.001).
        beta_1: decay of the first moment, in [0, 1] (default 0.9).
        beta_2: decay of the infinity norm, in [0, 1] (default 0.999).
        epsilon: added to the norm (default 1e-7).
        **kwargs: name, clipnorm, clipvalue, global_clipnorm, weight_decay (see `Optimizer`).

    Slots: ``"m"`` (first moment), ``"u"`` (the exponentially weighted infinity norm).

    >>> v = ek.Variable([1.0])
    >>> opt = ek.keras.optimizers.Adamax(learning_rate=0.1)
    >>> _ = opt.apply_gradients([(ek.constant([-3.0]), v)])
    >>> float(v.numpy()[0])  # 1 + 0.1 * 0.3 / (0.1 * 3): one lr against the gradient
    1.1000...
    """

    def __init__(
        self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name="Adamax", **kwargs
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1 = self._hyper("beta_1", beta_1, 0.0, 1.0)
        self.beta_2 = self._hyper("beta_2", beta_2, 0.0, 1.0)
        self.epsilon = self._hyper("epsilon", epsilon)
        self._slot_names = ("m", "u")

    def build(self, var_list) -> None:
        super().build(var_list)
        for v in var_list:
            for name in self._slot_names:
                self.add_slot(v, name)

    def update_step(self, gradient, variable, learning_rate) -> None:
        t = self._update_count() + 1
        scalars = {
            "b1": self.beta_1,
            "b2": self.beta_2,
            "epsilon": self.epsilon,
            "lr_t": float(learning_rate / np.float64(1.0 - self.beta_1**t)),  # inf at beta_1 = 1
        }
        self._elementwise(_adamax, gradient, variable, self._slot_names, **scalars)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
        }


def _adamax(xp, tmp, g, var, m, u, *, b1, b2, epsilon, lr_t) -> None:
    """Adamax's update in place."""
    m *= b1
    xp.multiply(g, 1.0 - b1, out=tmp)
    m += tmp
    u *= b2
    xp.abs(g, out=tmp)
    xp.maximum(u, tmp, out=u)
    xp.add(u, epsilon, out=tmp)
    xp.divide(m, tmp, out=tmp)
    tmp *= lr_t
    var -= tmp
