"""`Lion` (follows `tf.keras.optimizers.Lion`)."""

from __future__ import annotations

from .base import Optimizer

__all__ = ["Lion"]


class Lion(Optimizer):
    """Lion, the sign-momentum optimizer of Chen et al., 2023 (follows
    `tf.keras.optimizers.Lion`).

    Keras's update, ``g`` the gradient::

        var -= lr * sign(beta_1 * m + (1 - beta_1) * g)
        m = beta_2 * m + (1 - beta_2) * g

    Args:
        learning_rate: float, schedule or callable (default 0.001).
        beta_1: the interpolation of the update direction, in (0, 1] (default 0.9).
        beta_2: the decay of the momentum, in [0, 1] (default 0.99).
        **kwargs: name, clipnorm, clipvalue, global_clipnorm, weight_decay (see `Optimizer`).

    Slots: ``"m"``.

    Raises:
        ValueError: ``beta_1`` outside (0, 1] (at 0 Lion degenerates to SignSGD).

    >>> v = ek.Variable([1.0, 1.0])
    >>> opt = ek.keras.optimizers.Lion(learning_rate=0.1)
    >>> _ = opt.apply_gradients([(ek.constant([0.01, -5.0]), v)])
    >>> v.numpy()  # every weight moves by exactly lr
    array([0.9, 1.1], dtype=float32)
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, name="Lion", **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1 = self._hyper("beta_1", beta_1, 0.0, 1.0)
        if self.beta_1 <= 0.0:
            raise ValueError(
                "Lion: argument `beta_1` must be in the (0, 1] range; at 0 the optimizer "
                f"degenerates to SignSGD. Received beta_1={beta_1}."
            )
        self.beta_2 = self._hyper("beta_2", beta_2, 0.0, 1.0)
        self._slot_names = ("m",)

    def build(self, var_list) -> None:
        super().build(var_list)
        for v in var_list:
            self.add_slot(v, "m")

    def update_step(self, gradient, variable, learning_rate) -> None:
        scalars = {"lr": learning_rate, "b1": self.beta_1, "b2": self.beta_2}
        self._elementwise(_lion, gradient, variable, self._slot_names, **scalars)

    def get_config(self) -> dict:
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2}


def _lion(xp, tmp, g, var, m, *, lr, b1, b2) -> None:
    """Lion's update in place."""
    xp.multiply(m, b1, out=tmp)
    tmp += g * (1.0 - b1)
    xp.sign(tmp, out=tmp)
    tmp *= lr
    var -= tmp
    m *= b2
    xp.multiply(g, 1.0 - b2, out=tmp)
    m += tmp
