"""Adafactor (follows `tf.keras.optimizers.Adafactor`)."""

from __future__ import annotations

import math

import numpy as np

from ...core.tensor import Tensor
from .base import Optimizer, mutable_array


class Adafactor(Optimizer):
    """Adafactor, Adam with factored second moments (Shazeer & Stern, 2018; follows
    `tf.keras.optimizers.Adafactor`): for a weight of rank 2 or more, the squared gradients'
    running means over the last axis (``r``) and over the second-last (``c``) stand in for
    the full second moment, so the optimizer's memory grows with the rows plus the columns
    instead of their product.

    Keras's update at step ``t`` (counting from 1), ``g`` the gradient::

        rho = min(lr, 1 / sqrt(t))                   # lr too, when relative_step
        alpha = max(epsilon_2, rms(var)) * rho
        beta_2 = 1 - t ** beta_2_decay
        g2 = g * g + epsilon_1
        rank >= 2:  r = beta_2 * r + (1 - beta_2) * mean(g2, axis=-1)
                    c = beta_2 * c + (1 - beta_2) * mean(g2, axis=-2)
                    v = (r / mean(r, axis=-1))[..., None] * c[..., None, :]
        else:       v = beta_2 * v + (1 - beta_2) * g2
        u = g / sqrt(v)
        var -= alpha * u / max(1, rms(u) / clip_threshold)

    Args:
        learning_rate: float, schedule or callable (default 0.001).
        beta_2_decay: the exponent of the second moment's decay (default -0.8).
        epsilon_1: added to the squared gradients (default 1e-30).
        epsilon_2: the least scale of a step, relative to the weight's RMS (default 1e-3).
        clip_threshold: the largest RMS of an update before scaling (default 1.0).
        relative_step: a constant learning rate is capped at ``1 / sqrt(t)`` (default True).
        **kwargs: name, clipnorm, clipvalue, global_clipnorm, weight_decay (see `Optimizer`).

    Slots: ``"v"``; also ``"r"`` (shape ``var.shape[:-1]``) and ``"c"`` (``var.shape[:-2] +
    var.shape[-1:]``) for a weight of rank 2 or more.

    >>> w = ek.Variable([[1.0, 2.0], [3.0, 4.0]])
    >>> opt = ek.keras.optimizers.Adafactor(learning_rate=0.1)
    >>> _ = opt.apply_gradients([(ek.constant([[0.5, -1.0], [2.0, 1.0]]), w)])
    >>> opt.get_slot(w, "r").shape, opt.get_slot(w, "c").shape
    (TensorShape([2]), TensorShape([2]))
    """

    def __init__(
        self,
        learning_rate=0.001,
        beta_2_decay=-0.8,
        epsilon_1=1e-30,
        epsilon_2=1e-3,
        clip_threshold=1.0,
        relative_step=True,
        name="Adafactor",
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_2_decay = self._hyper("beta_2_decay", beta_2_decay, lo=-math.inf)
        self.epsilon_1 = self._hyper("epsilon_1", epsilon_1)
        self.epsilon_2 = self._hyper("epsilon_2", epsilon_2)
        self.clip_threshold = self._hyper("clip_threshold", clip_threshold)
        self.relative_step = bool(relative_step)

    def build(self, var_list) -> None:
        super().build(var_list)
        for v in var_list:
            shape = tuple(v._value.shape)
            if len(shape) >= 2:  # factored: the last two axes
                self.add_slot(v, "r", shape=shape[:-1])
                self.add_slot(v, "c", shape=shape[:-2] + shape[-1:])
            self.add_slot(v, "v")

    def update_step(self, gradient, variable, learning_rate) -> None:
        xp = variable._device.xp
        var = mutable_array(variable)
        v = mutable_array(self.get_slot(variable, "v"))
        t = float(self._update_count()) + 1.0
        lr = learning_rate
        if self.relative_step and isinstance(self._learning_rate, Tensor):  # a constant rate
            lr = min(lr, 1.0 / math.sqrt(t))
        rho = min(lr, 1.0 / math.sqrt(t))
        # np.maximum, not max(): a NaN propagates, as Keras's ops.maximum does.
        alpha = float(np.maximum(self.epsilon_2, float(xp.sqrt(xp.mean(var * var))))) * rho
        beta_2 = 1.0 - t**self.beta_2_decay
        g2 = gradient * gradient + self.epsilon_1
        if var.ndim >= 2:
            r = mutable_array(self.get_slot(variable, "r"))
            c = mutable_array(self.get_slot(variable, "c"))
            r *= beta_2
            r += (1.0 - beta_2) * xp.mean(g2, axis=-1)
            c *= beta_2
            c += (1.0 - beta_2) * xp.mean(g2, axis=-2)
            v[...] = (r / xp.mean(r, axis=-1, keepdims=True))[..., None] * c[..., None, :]
        else:
            v *= beta_2
            v += (1.0 - beta_2) * g2
        u = gradient / xp.sqrt(v)
        scale = float(np.maximum(1.0, float(xp.sqrt(xp.mean(u * u))) / self.clip_threshold))
        var -= (alpha / scale) * u

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "beta_2_decay": self.beta_2_decay,
            "epsilon_1": self.epsilon_1,
            "epsilon_2": self.epsilon_2,
            "clip_threshold": self.clip_threshold,
            "relative_step": self.relative_step,
        }
