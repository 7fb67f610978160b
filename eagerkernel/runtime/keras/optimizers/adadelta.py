"""`Adadelta` (follows `tf.keras.optimizers.Adadelta`)."""

from __future__ import annotations

from .base import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta (follows `tf.keras.optimizers.Adadelta`).

    Keras's update, ``g`` the gradient and ``rms(x) = sqrt(x + epsilon)``::

        accumulated_grad = rho * accumulated_grad + (1 - rho) * g**2
        delta = -rms(accumulated_delta_var) * g / rms(accumulated_grad)
        accumulated_delta_var = rho * accumulated_delta_var + (1 - rho) * delta**2
        var += lr * delta

    Args:
        learning_rate: float, schedule or callable (default 0.001, as Keras).
        rho: the decay rate, in [0, 1] (default 0.95).
        epsilon: default 1e-7.
        **kwargs: name, clipnorm, clipvalue, global_clipnorm, weight_decay (see `Optimizer`).

    Slots: ``"accumulated_grad"``, ``"accumulated_delta_var"``.

    >>> v = ek.Variable([1.0])
    >>> opt = ek.keras.optimizers.Adadelta(learning_rate=1.0, epsilon=1e-6)
    >>> _ = opt.apply_gradients([(ek.constant([1.0]), v)])
    >>> float(v.numpy()[0])  # 1 - sqrt(1e-6) / sqrt(0.05 + 1e-6)
    0.99552...
    """

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name="Adadelta", **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.rho = self._hyper("rho", rho, 0.0, 1.0)
        self.epsilon = self._hyper("epsilon", epsilon)
        self._slot_names = ("accumulated_grad", "accumulated_delta_var")

    def build(self, var_list) -> None:
        super().build(var_list)
        for v in var_list:
            for name in self._slot_names:
                self.add_slot(v, name)

    def update_step(self, gradient, variable, learning_rate) -> None:
        scalars = {"lr": learning_rate, "rho": self.rho, "epsilon": self.epsilon}
        self._elementwise(_adadelta, gradient, variable, self._slot_names, **scalars)

    def get_config(self) -> dict:
        return {**super().get_config(), "rho": self.rho, "epsilon": self.epsilon}


def _adadelta(xp, tmp, g, var, acc_grad, acc_delta, *, lr, rho, epsilon) -> None:
    """Adadelta's update in place (one temporary besides ``tmp``)."""
    acc_grad *= rho
    xp.multiply(g, g, out=tmp)
    tmp *= 1.0 - rho
    acc_grad += tmp
    # Into a new array: on a rank-0 slot, xp.add would return a NumPy scalar, no valid `out=`.
    delta = xp.add(acc_delta, epsilon, out=xp.empty_like(acc_delta))
    xp.sqrt(delta, out=delta)
    xp.add(acc_grad, epsilon, out=tmp)
    xp.sqrt(tmp, out=tmp)
    xp.divide(delta, tmp, out=delta)
    delta *= g  # -delta, in Keras's sign
    acc_delta *= rho
    xp.multiply(delta, delta, out=tmp)
    tmp *= 1.0 - rho
    acc_delta += tmp
    delta *= lr
    var -= delta
