"""`Adam` (follows `tf.keras.optimizers.Adam`)."""

from __future__ import annotations

import math

import numpy as np

from ...native import kernels
from .base import Optimizer, mutable_array

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam, with Keras's bias correction folded into the step size
    (follows `tf.keras.optimizers.Adam`).

    At step ``t`` (1 for the first update), with ``g`` the gradient::

        lr_t = lr * sqrt(1 - beta_2**t) / (1 - beta_1**t)
        m = beta_1 * m + (1 - beta_1) * g
        v = beta_2 * v + (1 - beta_2) * g**2
        vhat = max(vhat, v)                        (amsgrad only; then v := vhat below)
        var -= lr_t * m / (sqrt(v) + epsilon)

    ``epsilon`` is the paper's "epsilon hat" (added after the bias correction), which is why
    Keras's default 1e-7 differs from PyTorch's 1e-8 placed before it.

    On the CPU the update (amsgrad off) is one pass of C over the variable and its slots
    (`runtime.native.kernels.adam`), the same arithmetic as the NumPy kernel, bit for bit.

    Args:
        learning_rate: float, schedule or callable (default 0.001).
        beta_1, beta_2: decay rates of the moment estimates, in [0, 1).
        epsilon: added to the denominator (default 1e-7).
        amsgrad: use the AMSGrad variant (keeps the maximum of ``v``).
        **kwargs: name, clipnorm, clipvalue, global_clipnorm, weight_decay (see `Optimizer`).

    Slots: ``"m"``, ``"v"`` and, with amsgrad, ``"vhat"``.

    >>> v = ek.Variable([1.0, -1.0])
    >>> opt = ek.keras.optimizers.Adam(learning_rate=0.1)
    >>> _ = opt.apply_gradients([(ek.constant([2.0, -3.0]), v)])
    >>> v.numpy().round(5)  # the first step moves each weight by about lr * sign(g)
    array([ 0.9, -0.9], dtype=float32)
    >>> opt.get_slot(v, "m").name
    'Variable/m:0'
    """

    def __init__(
        self,
        learning_rate=0.001,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-7,
        amsgrad=False,
        name="Adam",
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1 = self._hyper("beta_1", beta_1, 0.0, 1.0)
        self.beta_2 = self._hyper("beta_2", beta_2, 0.0, 1.0)
        self.epsilon = self._hyper("epsilon", epsilon)
        self.amsgrad = bool(amsgrad)
        self._slot_names = ("m", "v", "vhat") if self.amsgrad else ("m", "v")

    def build(self, var_list) -> None:
        super().build(var_list)
        for v in var_list:
            for name in self._slot_names:
                self.add_slot(v, name)

    def update_step(self, gradient, variable, learning_rate) -> None:
        b1, b2 = self.beta_1, self.beta_2
        t = self._update_count() + 1
        # A NumPy division: beta_1 = 1 gives NaN as in Keras, not ZeroDivisionError.
        lr_t = float(learning_rate * math.sqrt(1.0 - b2**t) / np.float64(1.0 - b1**t))
        scalars = {"b1": b1, "b2": b2, "epsilon": self.epsilon, "lr_t": lr_t}
        if not self.amsgrad:  # one pass in C on CPU arrays (no scratch array, no split)
            slots = [mutable_array(self.get_slot(variable, name)) for name in self._slot_names]
            if kernels.adam(gradient, mutable_array(variable), *slots, **scalars):
                return
        self._elementwise(_adam, gradient, variable, self._slot_names, **scalars)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
            "amsgrad": self.amsgrad,
        }


def _adam(xp, tmp, g, var, m, v, vhat=None, *, b1, b2, epsilon, lr_t) -> None:
    """Adam's update in place, computing in ``tmp`` (12 passes over memory, no temporaries).
    `kernels.adam` is the same arithmetic in one pass, in C."""
    m *= b1
    xp.multiply(g, 1.0 - b1, out=tmp)
    m += tmp
    v *= b2
    xp.multiply(g, g, out=tmp)
    tmp *= 1.0 - b2
    v += tmp
    if vhat is not None:  # amsgrad
        xp.maximum(vhat, v, out=vhat)
        v = vhat
    xp.sqrt(v, out=tmp)
    tmp += epsilon
    xp.divide(m, tmp, out=tmp)
    tmp *= lr_t
    var -= tmp
