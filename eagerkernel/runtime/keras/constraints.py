"""Weight constraints (`ek.keras.constraints`), as Keras 3's.

A constraint is called on a weight after each optimizer update and returns its projection
(the optimizer assigns it: `Optimizer.apply_gradients`' last part). Layers take them as
``kernel_constraint=``, ``bias_constraint=`` and the like, by object or by name; `Layer.add_weight`
resolves the name. Norms are taken along ``axis`` (default 0: for a Dense kernel of shape
``(input_dim, units)``, the weights into each unit), and ``epsilon`` (1e-7, Keras's
`backend.epsilon`) keeps the division finite at a zero norm.

>>> ek.keras.constraints.MaxNorm(1.0)(ek.constant([[3.0], [4.0]])).numpy()
array([[0.6],
       [0.8]], dtype=float32)
>>> ek.keras.constraints.get("non_neg")(ek.constant([-1.0, 2.0])).numpy()
array([0., 2.], dtype=float32)
"""

from __future__ import annotations

import inspect

from ..core.tensor import to_tensor
from ..ops import elementwise as _ew
from ..ops import reduction as _reduction
from .backend import epsilon

__all__ = [
    "Constraint",
    "MaxNorm",
    "MinMaxNorm",
    "NonNeg",
    "UnitNorm",
    "deserialize",
    "get",
    "layer_config",
    "max_norm",
    "min_max_norm",
    "non_neg",
    "serialize",
    "unit_norm",
]


class Constraint:
    """Base class (follows `tf.keras.constraints.Constraint`): subclasses override
    ``__call__(w)`` to return the projected weight; the base returns ``w`` unchanged."""

    def __call__(self, w):
        return w

    def get_config(self) -> dict:
        """The constructor arguments (``{}`` for the base)."""
        return {}

    @classmethod
    def from_config(cls, config: dict):
        """``cls(**config)``."""
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


def _norms(w, axis):
    return _ew.sqrt(_reduction.reduce_sum(_ew.square(w), axis=axis, keepdims=True))


class MaxNorm(Constraint):
    """Scales each slice along ``axis`` whose L2 norm exceeds ``max_value`` down to it:
    ``w * clip(norm, 0, max_value) / (epsilon + norm)`` (follows
    `tf.keras.constraints.MaxNorm`; alias `max_norm`).

    Args:
        max_value: the largest norm allowed (default 2).
        axis: the axis or axes the norms are taken over (default 0).
    """

    def __init__(self, max_value=2, axis=0):
        self.max_value = max_value
        self.axis = axis

    def __call__(self, w):
        w = to_tensor(w, None, "MaxNorm")
        norms = _norms(w, self.axis)
        desired = _ew.clip_by_value(norms, 0.0, float(self.max_value))
        return w * (desired / (epsilon() + norms))

    def get_config(self) -> dict:
        return {"max_value": self.max_value, "axis": self.axis}


class MinMaxNorm(Constraint):
    """Moves each slice's L2 norm along ``axis`` into ``[min_value, max_value]``:
    ``w * (rate * clip(norm, min, max) + (1 - rate) * norm) / (epsilon + norm)`` (follows
    `tf.keras.constraints.MinMaxNorm`; alias `min_max_norm`).

    Args:
        min_value, max_value: the bounds of the norm (defaults 0 and 1).
        rate: 1 enforces the bounds at once; less moves the norm part of the way each update.
        axis: the axis or axes the norms are taken over (default 0).
    """

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value = min_value
        self.max_value = max_value
        self.rate = rate
        self.axis = axis

    def __call__(self, w):
        w = to_tensor(w, None, "MinMaxNorm")
        norms = _norms(w, self.axis)
        clipped = _ew.clip_by_value(norms, float(self.min_value), float(self.max_value))
        desired = self.rate * clipped + (1 - self.rate) * norms
        return w * (desired / (epsilon() + norms))

    def get_config(self) -> dict:
        return {
            "min_value": self.min_value,
            "max_value": self.max_value,
            "rate": self.rate,
            "axis": self.axis,
        }


class NonNeg(Constraint):
    """``maximum(w, 0)``: negative weights become 0 (follows `tf.keras.constraints.NonNeg`;
    alias `non_neg`)."""

    def __call__(self, w):
        w = to_tensor(w, None, "NonNeg")
        return _ew.maximum(w, 0)


class UnitNorm(Constraint):
    """``w / (epsilon + norm)``: each slice along ``axis`` gets L2 norm 1 (follows
    `tf.keras.constraints.UnitNorm`; alias `unit_norm`).

    Args:
        axis: the axis or axes the norms are taken over (default 0).
    """

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        w = to_tensor(w, None, "UnitNorm")
        return w / (epsilon() + _norms(w, self.axis))

    def get_config(self) -> dict:
        return {"axis": self.axis}


max_norm, min_max_norm, non_neg, unit_norm = MaxNorm, MinMaxNorm, NonNeg, UnitNorm

_BUILTIN = {cls.__name__: cls for cls in (Constraint, MaxNorm, MinMaxNorm, NonNeg, UnitNorm)} | {
    "constraint": Constraint,
    "max_norm": MaxNorm,
    "min_max_norm": MinMaxNorm,
}
_BUILTIN |= {"non_neg": NonNeg, "unit_norm": UnitNorm}


def serialize(constraint):
    """Keras 3's description of ``constraint`` (``{"module", "class_name", "config",
    "registered_name"}``); a name stays a name, None stays None (follows
    `tf.keras.constraints.serialize`)."""
    from . import saving

    return saving.serialize_callable(constraint, "constraint")


def deserialize(config, custom_objects=None):
    """The constraint a `serialize` description (or a name) gives (follows
    `tf.keras.constraints.deserialize`).

    Raises:
        ValueError: an unknown name or class.
    """
    from . import saving

    unknown = "Could not interpret constraint identifier: {name!r}. Known names: {known}."
    return saving.deserialize_callable(config, _BUILTIN, "constraint", custom_objects, unknown)


def get(identifier):
    """A constraint from None, a name (``"non_neg"``, ``"max_norm"``, ``"UnitNorm"``, ...;
    with default arguments), a `serialize` dict, or a callable (returned as is; a class is
    instantiated) (follows `tf.keras.constraints.get`).

    Raises:
        ValueError: an identifier that is none of these.
    """
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier() if inspect.isclass(identifier) else identifier
    raise ValueError(f"Could not interpret constraint identifier: {identifier!r}")


def layer_config(layer) -> dict:
    """``{"<weight>_constraint": serialized}`` for each constraint ``layer`` holds in a public
    attribute its constructor takes (by name, or through ``**kwargs``: ``kernel_constraint``,
    ``bias_constraint``, ...): what `Layer.get_config` adds so that a saved layer keeps its
    constraints. Unset ones are left out."""
    params = inspect.signature(type(layer).__init__).parameters
    takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
    return {
        name: serialize(value)
        for name, value in vars(layer).items()
        if name.endswith("_constraint")
        and not name.startswith("_")
        and value is not None
        and (takes_any or name in params)
    }
