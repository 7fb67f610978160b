"""`ek.keras.optimizers`: SGD, Adam, AdamW, Nadam, Adamax, RMSprop, Adagrad, Adadelta, Ftrl, Lion
and `get` (follows `tf.keras.optimizers`)."""

from __future__ import annotations

from . import schedules
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .base import Optimizer
from .ftrl import Ftrl
from .lion import Lion
from .loss_scale_optimizer import LossScaleOptimizer
from .nadam import Nadam
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = [
    "SGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "Ftrl",
    "Lion",
    "LossScaleOptimizer",
    "Nadam",
    "Optimizer",
    "RMSprop",
    "get",
    "schedules",
]

_BY_NAME = {
    "sgd": SGD,
    "adam": Adam,
    "rmsprop": RMSprop,
    "adagrad": Adagrad,
    "adamw": AdamW,
    "nadam": Nadam,
    "adamax": Adamax,
    "adadelta": Adadelta,
    "ftrl": Ftrl,
    "lion": Lion,
    "lossscaleoptimizer": LossScaleOptimizer,
}


def get(identifier) -> Optimizer:
    """An optimizer from a name, a config dict, a class or an instance (follows
    `tf.keras.optimizers.get`).

    Names are case-insensitive: ``"sgd"``, ``"adam"``, ``"adamw"``, ``"nadam"``, ``"adamax"``,
    ``"rmsprop"``, ``"adagrad"``, ``"adadelta"``, ``"ftrl"``, ``"lion"`` (Keras's defaults).
    An object with ``apply_gradients`` (an optimizer, including the TF 1.x ``ek.train`` ones)
    is returned as it is.

    Raises:
        ValueError: if ``identifier`` cannot be interpreted.

    >>> ek.keras.optimizers.get("adam")
    <Adam learning_rate=0.001 iterations=0>
    """
    if hasattr(identifier, "apply_gradients") and not isinstance(identifier, type):
        return identifier
    if isinstance(identifier, type) and issubclass(identifier, Optimizer):
        return identifier()
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier.lower())
        if cls is not None:
            return cls()
    if isinstance(identifier, dict) and "class_name" in identifier:
        cls = _BY_NAME.get(str(identifier["class_name"]).lower())
        if cls is not None:
            return cls.from_config(identifier.get("config", {}))
    raise ValueError(
        f"Could not interpret optimizer identifier: {identifier!r}. Use one of "
        f"{sorted(_BY_NAME)}, an optimizer instance, or a config dict."
    )
