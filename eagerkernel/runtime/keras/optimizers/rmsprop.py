"""`RMSprop` (follows `tf.keras.optimizers.RMSprop`)."""

from __future__ import annotations

from .base import Optimizer, _mutable

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
        rho = self.rho
        xp = variable._device.xp
        tmp = self._scratch_for(variable)
        rms = _mutable(self.get_slot(variable, "rms"))
        rms *= rho
        xp.multiply(gradient, gradient, out=tmp)
        tmp *= 1.0 - rho
        rms += tmp
        if self.centered:
            mg = _mutable(self.get_slot(variable, "mg"))
            mg *= rho
            xp.multiply(gradient, 1.0 - rho, out=tmp)
            mg += tmp
            xp.multiply(mg, mg, out=tmp)
            xp.subtract(rms, tmp, out=tmp)
            tmp += self.epsilon
        else:
            xp.add(rms, self.epsilon, out=tmp)
        xp.sqrt(tmp, out=tmp)
        xp.divide(gradient, tmp, out=tmp)
        tmp *= learning_rate  # the increment
        if "momentum" in self._slot_names:
            mom = _mutable(self.get_slot(variable, "momentum"))
            mom *= self.momentum
            mom += tmp
            tmp = mom
        var = _mutable(variable)
        var -= tmp

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "rho": self.rho,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "centered": self.centered,
        }
