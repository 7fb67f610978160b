"""`ScheduleFreeAdamW` (follows `keras.optimizers.ScheduleFreeAdamW`, Keras 3)."""

from __future__ import annotations

from .base import Optimizer, mutable_array

__all__ = ["ScheduleFreeAdamW"]


class ScheduleFreeAdamW(Optimizer):
    """Schedule-free AdamW (Defazio et al., 2024, "The Road Less Scheduled"; follows
    `keras.optimizers.ScheduleFreeAdamW`): no learning-rate schedule is needed, the variable
    is an interpolation of a fast sequence ``z`` (the ``"momentum"`` slot, which starts at
    the variable) and its running average ``x``. Keras's update at step ``t`` (1 for the
    first update), ``g`` the gradient, ``y`` the variable::

        lr_t = lr * min(t / warmup_steps, 1)              (warmup_steps > 0; else lr)
        v += (g**2 - v) * (1 - beta_2)
        z_new = z - lr_t * g / (sqrt(v / (1 - beta_2**t)) + epsilon)
        x = (y - (1 - beta_1) * z) / beta_1               (the average, from the old z)
        x = (1 - 1/t) * x + (1/t) * z_new
        y = (1 - beta_1) * z_new + beta_1 * x

    As in Keras the variable holds ``y``, also when the model is evaluated (Keras's version
    does not switch to ``x`` for evaluation).

    Args:
        learning_rate: float, schedule or callable (default 0.0025).
        beta_1: the interpolation between ``z`` and ``x``, in [0, 1) (default 0.9).
        beta_2: the decay of the second moment, in [0, 1] (default 0.999).
        epsilon: added to the root of the second moment, >= 0 (default 1e-8).
        warmup_steps: steps over which the rate rises linearly from 0, an int >= 0 (0).
        **kwargs: name, clipnorm, clipvalue, global_clipnorm, weight_decay, use_ema, ... (see
            `Optimizer`).

    Slots: ``"momentum"`` (``z``), ``"velocity"``.

    Raises:
        ValueError: a hyperparameter that is not a number or out of its range.

    >>> v = ek.Variable([1.0])
    >>> opt = ek.keras.optimizers.ScheduleFreeAdamW(learning_rate=0.1)
    >>> _ = opt.apply_gradients([(ek.constant([2.0]), v)])
    >>> v.numpy().round(5)  # at step 1 the average is z itself: y = z = 1 - lr * sign(g)
    array([0.9], dtype=float32)
    """

    def __init__(
        self,
        learning_rate=0.0025,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-8,
        warmup_steps=0,
        name="schedule_free_adamw",
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1 = self._hyper("beta_1", beta_1, 0.0, 1.0)
        if self.beta_1 == 1.0:
            raise ValueError("ScheduleFreeAdamW: beta_1 must be below 1, received beta_1=1.0.")
        self.beta_2 = self._hyper("beta_2", beta_2, 0.0, 1.0)
        self.epsilon = self._hyper("epsilon", epsilon, 0.0)
        if isinstance(warmup_steps, bool) or not isinstance(warmup_steps, int) or warmup_steps < 0:
            raise ValueError(
                "ScheduleFreeAdamW: warmup_steps must be an int >= 0. Received: "
                f"warmup_steps={warmup_steps!r}"
            )
        self.warmup_steps = warmup_steps
        self._slot_names = ("momentum", "velocity")

    def build(self, var_list) -> None:
        super().build(var_list)
        for v in var_list:
            self.add_slot(v, "momentum", initializer=v._value)
            self.add_slot(v, "velocity")

    def update_step(self, gradient, variable, learning_rate) -> None:
        xp = variable._device.xp
        y = mutable_array(variable)
        z = mutable_array(self.get_slot(variable, "momentum"))
        v = mutable_array(self.get_slot(variable, "velocity"))
        b1, b2 = self.beta_1, self.beta_2
        t = self._update_count() + 1
        lr = learning_rate
        if self.warmup_steps > 0:
            lr *= min(t / self.warmup_steps, 1.0)
        v += (gradient * gradient - v) * (1.0 - b2)
        step = lr * gradient / (xp.sqrt(v / (1.0 - b2**t)) + self.epsilon)
        z -= step.astype(z.dtype, copy=False)
        x = (y - (1.0 - b1) * z) / b1  # the average, from the new z (Keras on TensorFlow)
        weight = 1.0 / t
        x = (1.0 - weight) * x + weight * z
        y[...] = (1.0 - b1) * z + b1 * x

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
            "warmup_steps": self.warmup_steps,
        }
