"""`Lamb` (follows `keras.optimizers.Lamb`)."""

from __future__ import annotations

from .base import Optimizer, mutable_array

__all__ = ["Lamb"]


class Lamb(Optimizer):
    """LAMB, Adam with a layer-wise trust ratio (You et al., 2019; follows
    `keras.optimizers.Lamb`).

    Keras's update at step ``t`` (1 for the first update), ``g`` the gradient::

        m = m + (g - m) * (1 - beta_1)
        v = v + (g**2 - v) * (1 - beta_2)
        update = (m / (1 - beta_1**t)) / (sqrt(v / (1 - beta_2**t)) + epsilon)
        ratio = ||var|| / ||update||  if both norms > 0, else 1     (norms over the variable)
        var -= ratio * lr * update

    Args:
        learning_rate: float, schedule or callable (default 0.001).
        beta_1: the decay of the first moment, in [0, 1] (default 0.9).
        beta_2: the decay of the second moment, in [0, 1] (default 0.999).
        epsilon: added to the root of the second moment, >= 0 (default 1e-7).
        **kwargs: name, clipnorm, clipvalue, global_clipnorm, weight_decay, use_ema, ... (see
            `Optimizer`).

    Slots: ``"m"``, ``"v"``.

    Raises:
        ValueError: a hyperparameter that is not a number or out of its range.

    >>> v = ek.Variable([3.0, 4.0])
    >>> opt = ek.keras.optimizers.Lamb(learning_rate=0.1)
    >>> _ = opt.apply_gradients([(ek.constant([1.0, 1.0]), v)])
    >>> v.numpy().round(4)  # the step has the variable's norm (5) times lr: 0.5 per sqrt(2)
    array([2.6464, 3.6464], dtype=float32)
    """

    def __init__(
        self,
        learning_rate=0.001,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-7,
        name="lamb",
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1 = self._hyper("beta_1", beta_1, 0.0, 1.0)
        self.beta_2 = self._hyper("beta_2", beta_2, 0.0, 1.0)
        self.epsilon = self._hyper("epsilon", epsilon, 0.0)
        self._slot_names = ("m", "v")

    def build(self, var_list) -> None:
        super().build(var_list)
        for v in var_list:
            self.add_slot(v, "m")
            self.add_slot(v, "v")

    def update_step(self, gradient, variable, learning_rate) -> None:
        # The trust ratio needs the norms of the whole variable and update, so this is not an
        # `_elementwise` kernel: it runs on the variable's arrays in one piece.
        xp = variable._device.xp
        var = mutable_array(variable)
        m = mutable_array(self.get_slot(variable, "m"))
        v = mutable_array(self.get_slot(variable, "v"))
        b1, b2 = self.beta_1, self.beta_2
        t = self._update_count() + 1
        m += (gradient - m) * (1.0 - b1)
        v += (gradient * gradient - v) * (1.0 - b2)
        update = (m / (1.0 - b1**t)) / (xp.sqrt(v / (1.0 - b2**t)) + self.epsilon)
        w_norm = float(xp.sqrt(xp.sum(var * var)))
        g_norm = float(xp.sqrt(xp.sum(update * update)))
        ratio = w_norm / g_norm if w_norm > 0.0 and g_norm > 0.0 else 1.0
        var -= (ratio * learning_rate * update).astype(var.dtype, copy=False)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
        }
