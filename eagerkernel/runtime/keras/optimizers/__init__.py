"""`ek.keras.optimizers`: SGD, Adam, AdamW, Nadam, Adamax, RMSprop, Adagrad, Adadelta, Ftrl, Lion,
Lamb, Adafactor, Muon, ScheduleFreeAdamW, MultiOptimizer and `get` (follows
`tf.keras.optimizers`)."""

from __future__ import annotations

from . import legacy, schedules
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .base import Optimizer
from .ftrl import Ftrl
from .lamb import Lamb
from .lion import Lion
from .loss_scale_optimizer import LossScaleOptimizer
from .multi_optimizer import MultiOptimizer, OptimizerMap
from .muon import Muon
from .nadam import Nadam
from .rmsprop import RMSprop
from .schedule_free_adamw import ScheduleFreeAdamW
from .sgd import SGD

__all__ = [
    "SGD",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "Ftrl",
    "Lamb",
    "Lion",
    "LossScaleOptimizer",
    "MultiOptimizer",
    "Muon",
    "Nadam",
    "Optimizer",
    "OptimizerMap",
    "RMSprop",
    "ScheduleFreeAdamW",
    "deserialize",
    "get",
    "legacy",
    "schedules",
    "serialize",
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
    "lamb": Lamb,
    "lion": Lion,
    "adafactor": Adafactor,
    "lossscaleoptimizer": LossScaleOptimizer,
    "muon": Muon,
    "schedulefreeadamw": ScheduleFreeAdamW,
    "multioptimizer": MultiOptimizer,
}


def get(identifier) -> Optimizer:
    """An optimizer from a name, a config dict, a class or an instance (follows
    `tf.keras.optimizers.get`).

    Names are case-insensitive: ``"sgd"``, ``"adam"``, ``"adamw"``, ``"nadam"``, ``"adamax"``,
    ``"rmsprop"``, ``"adagrad"``, ``"adadelta"``, ``"ftrl"``, ``"lion"``, ``"adafactor"``
    (Keras's defaults).
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


def serialize(optimizer) -> dict | None:
    """Keras's config dict of an optimizer, ``{"module": "keras.optimizers", "class_name",
    "config", "registered_name": None}`` (follows `tf.keras.optimizers.serialize`).

    Raises:
        NotImplementedError: an object without ``get_config``.

    >>> ek.keras.optimizers.serialize(ek.keras.optimizers.SGD())["class_name"]
    'SGD'
    """
    from ..object_config import serialize_as

    return serialize_as(optimizer, "keras.optimizers", set(_BY_NAME.values()), ())


def _optimizer_by_name(name: str):
    cls = _BY_NAME.get(name.lower())
    return None if cls is None else cls()


def deserialize(config, custom_objects=None):
    """The optimizer a `serialize` dict describes, or a new one of a name (``"adam"``,
    ``"Adam"``; follows `tf.keras.optimizers.deserialize`).

    Raises:
        ValueError: a name that is no optimizer. TypeError: a config of an unknown class.

    >>> ek.keras.optimizers.deserialize({"class_name": "SGD", "config": {"learning_rate": 0.5}})
    <SGD learning_rate=0.5 iterations=0>
    """
    from ..object_config import deserialize_from

    return deserialize_from(
        config, custom_objects, "optimizer", _optimizer_by_name, "keras.optimizers"
    )
