"""`Nadam` (follows `tf.keras.optimizers.Nadam`)."""

from __future__ import annotations

import numpy as np

from .base import Optimizer

__all__ = ["Nadam"]

_DECAY = 0.96  # Keras's momentum-schedule decay (Dozat, 2015)


class Nadam(Optimizer):
    """Adam with Nesterov momentum (follows `tf.keras.optimizers.Nadam`).

    Keras's update at step ``t`` (1 for the first update), ``g`` the gradient::

        u_t = beta_1 * (1 - 0.5 * 0.96**t);   u_t1 = beta_1 * (1 - 0.5 * 0.96**(t + 1))
        P_t = u_1 * u_2 * ... * u_t            (Keras's ``u_product``)
        m = m + (g - m) * (1 - beta_1)
        v = v + (g**2 - v) * (1 - beta_2)
        m_hat = u_t1 * m / (1 - P_t * u_t1) + (1 - u_t) * g / (1 - P_t)
        v_hat = v / (1 - beta_2**t)
        var -= lr * m_hat / (sqrt(v_hat) + epsilon)

    Keras keeps ``P_t`` in an extra variable; here it is recomputed from `iterations`, so a
    checkpoint (which saves `iterations`) restores it exactly.

    Args:
        learning_rate: float, schedule or callable (default 0.001).
        beta_1, beta_2: decay rates of the moment estimates, in [0, 1] (0.9, 0.999).
        epsilon: added to the denominator (default 1e-7).
        **kwargs: name, clipnorm, clipvalue, global_clipnorm, weight_decay (see `Optimizer`).

    Slots: ``"m"``, ``"v"``.

    >>> v = ek.Variable([1.0])
    >>> opt = ek.keras.optimizers.Nadam(learning_rate=0.1)
    >>> _ = opt.apply_gradients([(ek.constant([2.0]), v)])
    >>> float(v.numpy()[0])  # 1 - 0.1 * (0.2 * 0.48528 / (1 - 0.468 * 0.48528) + 2) / 2
    0.89372...
    """

    def __init__(
        self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name="Nadam", **kwargs
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1 = self._hyper("beta_1", beta_1, 0.0, 1.0)
        self.beta_2 = self._hyper("beta_2", beta_2, 0.0, 1.0)
        self.epsilon = self._hyper("epsilon", epsilon)
        self._slot_names = ("m", "v")

    def build(self, var_list) -> None:
        super().build(var_list)
        for v in var_list:
            for name in self._slot_names:
                self.add_slot(v, name)

    def _u(self, step: int) -> float:
        return self.beta_1 * (1.0 - 0.5 * _DECAY**step)

    def _u_product(self, t: int) -> float:
        """``u_1 * ... * u_t``, a function of ``t`` only: kept for the last ``t`` and
        extended by one factor a step (recomputed after a jump, e.g. a restored checkpoint)."""
        cached_t, value = getattr(self, "_u_cache", (0, 1.0))
        if cached_t == t:
            return value
        if cached_t != t - 1:
            cached_t, value = 0, 1.0
            for k in range(1, t):
                value *= self._u(k)
        value *= self._u(t)
        self._u_cache = (t, value)
        return value

    def update_step(self, gradient, variable, learning_rate) -> None:
        t = self._update_count() + 1
        u_product = self._u_product(t)
        u_t, u_t1 = self._u(t), self._u(t + 1)
        scalars = {
            "b1": self.beta_1,
            "b2": self.beta_2,
            "epsilon": self.epsilon,
            "lr": learning_rate,
            "c_m": u_t1 / (1.0 - u_product * u_t1),
            "c_g": (1.0 - u_t) / (1.0 - u_product),
            "v_scale": float(1.0 / np.float64(1.0 - self.beta_2**t)),  # inf at beta_2 = 1
        }
        self._elementwise(_nadam, gradient, variable, self._slot_names, **scalars)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
        }


def _nadam(xp, tmp, g, var, m, v, *, b1, b2, epsilon, lr, c_m, c_g, v_scale) -> None:
    """Nadam's update in place (one temporary besides ``tmp``)."""
    m *= b1
    xp.multiply(g, 1.0 - b1, out=tmp)
    m += tmp
    v *= b2
    xp.multiply(g, g, out=tmp)
    tmp *= 1.0 - b2
    v += tmp
    num = xp.multiply(m, c_m)
    xp.multiply(g, c_g, out=tmp)
    num += tmp
    num *= lr
    xp.multiply(v, v_scale, out=tmp)
    xp.sqrt(tmp, out=tmp)
    tmp += epsilon
    xp.divide(num, tmp, out=tmp)
    var -= tmp
