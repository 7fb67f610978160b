"""`Muon` (follows `keras.optimizers.Muon`, Keras 3): momentum orthogonalized by Newton-Schulz
for 2-D weights, AdamW for the others."""

from __future__ import annotations

import math
import re

from .base import Optimizer, mutable_array, scale_in_place

__all__ = ["Muon"]


class Muon(Optimizer):
    """Muon (Jordan et al., 2024; with the update scale of Liu et al., 2025, "Muon is Scalable
    for LLM Training"), following `keras.optimizers.Muon`.

    A 2-D variable (a Dense kernel) gets Muon's step, ``g`` its gradient, ``t`` the step (1
    for the first update)::

        m = momentum * m + g
        u = g + momentum * m  (nesterov)  or  m
        o = newton_schulz(u)             # ns_steps quintic iterations toward U V^T of u
        var -= lr * o * sqrt(max(rows, cols)) * rms_rate     (rms_rate None: no factor)

    where ``newton_schulz`` works on ``u`` (transposed when it has more rows than columns)
    scaled to unit Frobenius norm (``+ 1e-7``) and repeats ``a x + (b A + c A A) x`` with
    ``A = x x^T``. Any other variable (not 2-D, an embedding when ``exclude_embeddings``, or
    a path matching one of the regular expressions ``exclude_layers``) gets AdamW's step with
    the learning rate times ``adam_lr_ratio``::

        m += (g - m) * (1 - adam_beta_1);  v += (g**2 - v) * (1 - adam_beta_2)
        var -= lr * sqrt(1 - adam_beta_2**t) / (1 - adam_beta_1**t) * m / (sqrt(v) + epsilon)

    Before either step the variable decays, ``var -= var * wd * lr``, with ``wd`` =
    ``adam_weight_decay`` for the AdamW variables and ``weight_decay`` for the others (unless
    `exclude_from_weight_decay` exempts it).

    Args:
        learning_rate: float, schedule or callable (default 0.001).
        adam_beta_1, adam_beta_2: AdamW's moment decays, in [0, 1] (0.9, 0.999).
        adam_weight_decay: the AdamW variables' weight decay (0.004; None: none).
        epsilon: AdamW's epsilon (1e-7).
        weight_decay: the Muon variables' weight decay (0.004).
        exclude_layers: regular expressions searched in the variables' paths
            (``"dense/kernel"``): a match takes AdamW's step (the output layer, typically).
        exclude_embeddings: variables with "embedding" in their path take AdamW's step (True).
        muon_a, muon_b, muon_c: the Newton-Schulz coefficients (3.4445, -4.7750, 2.0315).
        adam_lr_ratio: the AdamW steps' learning rate over ``learning_rate`` (1).
        momentum: Muon's momentum, in [0, 1] (0.95).
        ns_steps: Newton-Schulz iterations, an int >= 0 (5).
        nesterov: Nesterov momentum (True).
        rms_rate: the update scale of Liu et al. (0.2; None: no scaling).
        **kwargs: name, clipnorm, clipvalue, global_clipnorm, use_ema, ... (see `Optimizer`).

    Slots: ``"momentum"`` for every variable, ``"velocity"`` for the AdamW ones.

    Raises:
        ValueError: a hyperparameter that is not a number or out of its range.

    >>> w = ek.Variable([[1.0, 0.0], [0.0, 1.0]], name="dense/kernel")
    >>> opt = ek.keras.optimizers.Muon(learning_rate=0.1, weight_decay=0.0, rms_rate=None)
    >>> _ = opt.apply_gradients([(ek.constant([[1.0, 0.0], [0.0, 0.0]]), w)])
    >>> w.numpy().round(4)  # the step: 0.1 times Newton-Schulz's 0.696 for singular value 1
    array([[0.9304, 0.    ],
           [0.    , 1.    ]], dtype=float32)
    """

    def __init__(
        self,
        learning_rate=0.001,
        adam_beta_1=0.9,
        adam_beta_2=0.999,
        adam_weight_decay=0.004,
        epsilon=1e-7,
        weight_decay=0.004,
        exclude_layers=None,
        exclude_embeddings=True,
        muon_a=3.4445,
        muon_b=-4.7750,
        muon_c=2.0315,
        adam_lr_ratio=1,
        momentum=0.95,
        ns_steps=5,
        nesterov=True,
        rms_rate=0.2,
        name="muon",
        **kwargs,
    ):
        super().__init__(
            learning_rate=learning_rate, weight_decay=weight_decay, name=name, **kwargs
        )
        self.adam_beta_1 = self._hyper("adam_beta_1", adam_beta_1, 0.0, 1.0)
        self.adam_beta_2 = self._hyper("adam_beta_2", adam_beta_2, 0.0, 1.0)
        self.adam_weight_decay = self._hyper("adam_weight_decay", adam_weight_decay)
        self.epsilon = self._hyper("epsilon", epsilon, 0.0)
        self.muon_a = self._hyper("muon_a", muon_a, -math.inf)
        self.muon_b = self._hyper("muon_b", muon_b, -math.inf)
        self.muon_c = self._hyper("muon_c", muon_c, -math.inf)
        self.adam_lr_ratio = self._hyper("adam_lr_ratio", adam_lr_ratio)
        self.momentum = self._hyper("momentum", momentum, 0.0, 1.0)
        if isinstance(ns_steps, bool) or not isinstance(ns_steps, int) or ns_steps < 0:
            raise ValueError(f"Muon: ns_steps must be an int >= 0. Received: ns_steps={ns_steps!r}")
        self.ns_steps = ns_steps
        self.nesterov = bool(nesterov)
        self.rms_rate = self._hyper("rms_rate", rms_rate)
        self.exclude_layers = list(exclude_layers or [])
        self.exclude_embeddings = bool(exclude_embeddings)
        self._adamw: set = set()  # _uid of the variables that take AdamW's step
        self._slot_names = ("momentum", "velocity")

    def _should_use_adamw(self, variable) -> bool:
        """AdamW's step for ``variable``: not 2-D, an embedding, or an excluded path."""
        if len(variable.shape) != 2:
            return True
        if self.exclude_embeddings and "embedding" in variable.path.lower():
            return True
        return any(re.search(keyword, variable.path) for keyword in self.exclude_layers)

    def build(self, var_list) -> None:
        super().build(var_list)
        for v in var_list:
            self.add_slot(v, "momentum")
            if self._should_use_adamw(v):
                self.add_slot(v, "velocity")
                self._adamw.add(v._uid)

    def _update_one(self, g, v, lr: float, wd) -> None:
        wd = self.adam_weight_decay if v._uid in self._adamw else self.weight_decay
        if wd and self.uses_weight_decay(v):
            scale_in_place(v, 1.0 - wd * lr)
        self.update_step(g, v, lr)

    def update_step(self, gradient, variable, learning_rate) -> None:
        var = mutable_array(variable)
        m = mutable_array(self.get_slot(variable, "momentum"))
        if variable._uid in self._adamw:
            v = mutable_array(self.get_slot(variable, "velocity"))
            xp = variable._device.xp
            lr = learning_rate * self.adam_lr_ratio
            t = self._update_count() + 1
            b1, b2 = self.adam_beta_1, self.adam_beta_2
            alpha = lr * math.sqrt(1.0 - b2**t) / (1.0 - b1**t)
            m += (gradient - m) * (1.0 - b1)
            v += (gradient * gradient - v) * (1.0 - b2)
            var -= (m * alpha / (xp.sqrt(v) + self.epsilon)).astype(var.dtype, copy=False)
            return
        m += gradient + m * (self.momentum - 1.0)
        u = gradient + self.momentum * m if self.nesterov else m
        update = learning_rate * self.newton_schulz(u, variable._device.xp)
        if self.rms_rate is not None:
            update = update * (math.sqrt(max(var.shape[0], var.shape[1])) * self.rms_rate)
        var -= update.astype(var.dtype, copy=False)

    def newton_schulz(self, x, xp):
        """Keras's ``zeropower_via_newtonschulz5`` on the array ``x`` (2-D): ``ns_steps``
        quintic iterations from ``x`` at unit Frobenius norm toward the orthogonal factor of
        its polar decomposition (approximately; Muon does not need it exact)."""
        a, b, c = self.muon_a, self.muon_b, self.muon_c
        tall = x.shape[-2] > x.shape[-1]
        if tall:
            x = x.T
        x = x / (xp.sqrt(xp.sum(x * x)) + 1e-7)
        for _ in range(self.ns_steps):
            gram = x @ x.T
            x = a * x + (b * gram + c * (gram @ gram)) @ x
        return x.T if tall else x

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "adam_beta_1": self.adam_beta_1,
            "adam_beta_2": self.adam_beta_2,
            "epsilon": self.epsilon,
            "exclude_layers": self.exclude_layers,
            "muon_a": self.muon_a,
            "muon_b": self.muon_b,
            "muon_c": self.muon_c,
            "adam_lr_ratio": self.adam_lr_ratio,
            "momentum": self.momentum,
            "ns_steps": self.ns_steps,
            "nesterov": self.nesterov,
            "exclude_embeddings": self.exclude_embeddings,
            "adam_weight_decay": self.adam_weight_decay,
            "rms_rate": self.rms_rate,
        }
