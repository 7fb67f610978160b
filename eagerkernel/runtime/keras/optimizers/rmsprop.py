"""`RMSprop` (follows `tf.keras.optimizers.RMSprop`)."""

from __future__ import annotations

from .base import Optimizer

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop, plain or centered, with optional momentum (follows `tf.keras.optimizers.RMSprop`).

    Keras's update (TF 2.11+ and Keras 3; epsilon inside the square root), ``g`` the gradient::

        rms = rho * rms + (1 - rho) * g**2
        mg = rho * mg + (1 - rho) * g                  (centered only)
        denominator = rms - mg**2 + epsilon            (centered)  or  rms + epsilon
        increment = lr * g / sqrt(denominator)
        momentum > 0:  mom = momentum * mom + increment;  var -= mom
        otherwise:     var -= increment

    PyTorch's RMSprop adds epsilon outside the square root; the two agree when epsilon is 0.

    Args:
        learning_rate: float, schedule or callable (default 0.001).
        rho: discount of the squared-gradient average (default 0.9).
        momentum: default 0 (no momentum slot).
        epsilon: default 1e-7.
        centered: normalize by the estimated variance instead of the second moment.
        **kwargs: name, clipnorm, clipvalue, global_clipnorm, weight_decay (see `Optimizer`).

    Slots: ``"rms"``, ``"mg"`` (centered), ``"momentum"`` (momentum > 0).

    >>> v = ek.Variable([1.0])
    >>> opt = ek.keras.optimizers.RMSprop(learning_rate=0.01)
    >>> _ = opt.apply_gradients([(ek.constant([2.0]), v)])
    >>> float(v.numpy()[0])  # 1 - 0.01 * 2 / sqrt(0.1 * 4 + 1e-7)
    0.968377...
    """

    _rms_initial = 0.0

    def __init__(
        self,
        learning_rate=0.001,
        rho=0.9,
        momentum=0.0,
        epsilon=1e-7,
        centered=False,
        name="RMSprop",
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.rho = self._hyper("rho", rho, 0.0, 1.0)
        self.momentum = self._hyper("momentum", momentum, 0.0, 1.0)
        self.epsilon = self._hyper("epsilon", epsilon)
        self.centered = bool(centered)
        names = ["rms"]
        if self.centered:
            names.append("mg")
        if self.momentum or self._always_momentum_slot:
            names.append("momentum")
        self._slot_names = tuple(names)

    _always_momentum_slot = False

    def build(self, var_list) -> None:
        super().build(var_list)
        for v in var_list:
            self.add_slot(v, "rms", self._rms_initial)
            for name in self._slot_names[1:]:
                self.add_slot(v, name)

    def update_step(self, gradient, variable, learning_rate) -> None:
        scalars = {
            "lr": learning_rate,
            "rho": self.rho,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "centered": self.centered,
        }
        self._elementwise(_rmsprop, gradient, variable, self._slot_names, **scalars)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "rho": self.rho,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "centered": self.centered,
        }


def _rmsprop(xp, tmp, g, var, rms, *slots, lr, rho, momentum, epsilon, centered) -> None:
    """RMSprop's update in place; ``slots`` are ``mg`` (centered) then ``momentum``, if kept."""
    rms *= rho
    xp.multiply(g, g, out=tmp)
    tmp *= 1.0 - rho
    rms += tmp
    if centered:
        mg = slots[0]
        mg *= rho
        xp.multiply(g, 1.0 - rho, out=tmp)
        mg += tmp
        xp.multiply(mg, mg, out=tmp)
        xp.subtract(rms, tmp, out=tmp)
        tmp += epsilon
    else:
        xp.add(rms, epsilon, out=tmp)
    xp.sqrt(tmp, out=tmp)
    xp.divide(g, tmp, out=tmp)
    tmp *= lr  # the increment
    if len(slots) > centered:  # a momentum slot
        mom = slots[-1]
        mom *= momentum
        mom += tmp
        tmp = mom
    var -= tmp
