"""`Adagrad` (follows `tf.keras.optimizers.Adagrad`)."""

from __future__ import annotations

from .base import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad (follows `tf.keras.optimizers.Adagrad`).

    Keras's update (TF 2.11+ and Keras 3; epsilon inside the square root)::

        accumulator += g**2                       (starts at initial_accumulator_value)
        var -= lr * g / sqrt(accumulator + epsilon)

    PyTorch's Adagrad adds epsilon outside the square root; they agree when epsilon is 0.

    Args:
        learning_rate: float, schedule or callable (default 0.001).
        initial_accumulator_value: the accumulator's starting value (default 0.1).
        epsilon: default 1e-7.
        **kwargs: name, clipnorm, clipvalue, global_clipnorm, weight_decay (see `Optimizer`).

    Slots: ``"accumulator"``.

    >>> v = ek.Variable([1.0])
    >>> opt = ek.keras.optimizers.Adagrad(learning_rate=0.1)
    >>> _ = opt.apply_gradients([(ek.constant([0.3]), v)])
    >>> float(v.numpy()[0])  # 1 - 0.1 * 0.3 / sqrt(0.1 + 0.09 + 1e-7)
    0.93117...
    """

    def __init__(
        self,
        learning_rate=0.001,
        initial_accumulator_value=0.1,
        epsilon=1e-7,
        name="Adagrad",
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.initial_accumulator_value = self._hyper(
            "initial_accumulator_value", initial_accumulator_value
        )
        self.epsilon = self._hyper("epsilon", epsilon)
        self._slot_names = ("accumulator",)

    def build(self, var_list) -> None:
        super().build(var_list)
        for v in var_list:
            self.add_slot(v, "accumulator", self.initial_accumulator_value)

    def update_step(self, gradient, variable, learning_rate) -> None:
        scalars = {"lr": learning_rate, "epsilon": self.epsilon}
        self._elementwise(_adagrad, gradient, variable, ("accumulator",), **scalars)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "initial_accumulator_value": self.initial_accumulator_value,
            "epsilon": self.epsilon,
        }


def _adagrad(xp, tmp, g, var, acc, *, lr, epsilon) -> None:
    """Adagrad's update in place."""
    xp.multiply(g, g, out=tmp)
    acc += tmp
    xp.add(acc, epsilon, out=tmp)
    xp.sqrt(tmp, out=tmp)
    xp.divide(g, tmp, out=tmp)
    tmp *= lr
    var -= tmp
