"""`AdamW` (follows `tf.keras.optimizers.AdamW`)."""

from __future__ import annotations

from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """Adam with decoupled weight decay (follows `tf.keras.optimizers.AdamW`).

    Before each Adam step (see `Adam`) every variable decays by its own value times the
    learning rate, independently of the gradient (Loshchilov and Hutter, 2019)::

        var -= var * weight_decay * lr
        (then Adam's update, with the same lr)

    Args:
        learning_rate: float, schedule or callable (default 0.001).
        weight_decay: the decay rate (default 0.004, Keras 3's default).
        beta_1, beta_2, epsilon, amsgrad: as `Adam` (defaults 0.9, 0.999, 1e-7, False).
        **kwargs: name, clipnorm, clipvalue, global_clipnorm (see `Optimizer`).

    Slots: ``"m"``, ``"v"`` and, with amsgrad, ``"vhat"`` (as `Adam`).

    Raises:
        ValueError: ``weight_decay`` None (Keras requires a float) or negative.

    >>> v = ek.Variable([1.0])
    >>> opt = ek.keras.optimizers.AdamW(learning_rate=0.1, weight_decay=0.5)
    >>> _ = opt.apply_gradients([(ek.constant([0.0]), v)])
    >>> v.numpy()  # a zero gradient: only the decay, 1 - 1 * 0.5 * 0.1
    array([0.95], dtype=float32)
    """

    def __init__(
        self,
        learning_rate=0.001,
        weight_decay=0.004,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-7,
        amsgrad=False,
        name="AdamW",
        **kwargs,
    ):
        if weight_decay is None:
            raise ValueError(
                "AdamW: argument `weight_decay` must be a float, received weight_decay=None."
            )
        super().__init__(
            learning_rate=learning_rate,
            beta_1=beta_1,
            beta_2=beta_2,
            epsilon=epsilon,
            amsgrad=amsgrad,
            name=name,
            weight_decay=weight_decay,
            **kwargs,
        )
