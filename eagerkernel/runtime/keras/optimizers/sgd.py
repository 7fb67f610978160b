"""`SGD`: gradient descent with optional (Nesterov) momentum (follows `tf.keras.optimizers.SGD`)."""

from __future__ import annotations

from .base import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """Gradient descent with momentum (follows `tf.keras.optimizers.SGD`).

    Keras's update, with ``g`` the gradient and ``lr`` the learning rate::

        momentum == 0:   var -= lr * g
        otherwise:       velocity = momentum * velocity - lr * g
                         var += velocity                          (nesterov=False)
                         var += momentum * velocity - lr * g      (nesterov=True)

    Args:
        learning_rate: float, schedule or callable (default 0.01).
        momentum: in [0, 1] (default 0: no slot is created).
        nesterov: Nesterov momentum.
        **kwargs: name, clipnorm, clipvalue, global_clipnorm, weight_decay (see `Optimizer`).

    Slots: ``"momentum"`` (the velocity) when momentum > 0.

    Raises:
        ValueError: momentum outside [0, 1].

    >>> v = ek.Variable([1.0])
    >>> opt = ek.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)
    >>> for _ in range(2):
    ...     _ = opt.apply_gradients([(ek.constant([1.0]), v)])
    >>> v.numpy()  # 1 - 0.1, then - (0.9 * 0.1 + 0.1)
    array([0.71], dtype=float32)
    """

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.momentum = self._hyper("momentum", momentum, 0.0, 1.0)
        self.nesterov = bool(nesterov)
        self._slot_names = ("momentum",) if self.momentum else ()

    def build(self, var_list) -> None:
        super().build(var_list)
        if self.momentum:
            for v in var_list:
                self.add_slot(v, "momentum")

    def update_step(self, gradient, variable, learning_rate) -> None:
        scalars = {"lr": learning_rate, "momentum": self.momentum, "nesterov": self.nesterov}
        self._elementwise(_sgd, gradient, variable, self._slot_names, **scalars)

    def get_config(self) -> dict:
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.nesterov}


def _sgd(xp, tmp, g, var, velocity=None, *, lr, momentum, nesterov) -> None:
    """SGD's update in place (``velocity`` is the momentum slot, absent without momentum)."""
    xp.multiply(g, lr, out=tmp)  # lr * g
    if velocity is None:
        var -= tmp
        return
    velocity *= momentum
    velocity -= tmp
    if nesterov:
        var -= tmp
        xp.multiply(velocity, momentum, out=tmp)
        var += tmp
    else:
        var += velocity
