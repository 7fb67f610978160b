"""``keras.Variable``: Keras 3's constructor of variables (follows `keras.Variable`).

Keras 3 builds a variable from an initializer and a shape, where ``tf.Variable`` takes a
value. Here both make the same `ek.Variable`, so a layer's weights (made by `add_weight`)
are ``keras.Variable`` instances as they are in Keras 3, and a Keras variable works wherever
an `ek.Variable` does (tapes, optimizers, checkpoints).
"""

from __future__ import annotations

from ..core.tensor import Tensor
from ..core.variable import Variable as _Variable
from ..core.variable import VariableAggregation, VariableSynchronization
from ..ops.elementwise import cast

__all__ = ["Variable"]

_AGGREGATIONS = {a.name.lower(): a for a in VariableAggregation}  # "none", "sum", ...
_SYNCHRONIZATIONS = {s.name.lower(): s for s in VariableSynchronization}  # "auto", ...


class _Meta(type):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, _Variable)

    def __subclasscheck__(cls, sub) -> bool:
        return issubclass(sub, _Variable)

    def __call__(
        cls,
        initializer,
        shape=None,
        dtype=None,
        trainable: bool = True,
        autocast: bool = True,
        aggregation: str = "none",
        synchronization: str = "auto",
        name: str | None = None,
    ):
        from . import initializers

        if aggregation not in _AGGREGATIONS:
            raise ValueError(
                f"Variable: invalid `aggregation` argument. Expected one of "
                f"{tuple(_AGGREGATIONS)}. Received: aggregation={aggregation!r}"
            )
        if synchronization not in _SYNCHRONIZATIONS:
            raise ValueError(
                "Variable: invalid `synchronization` argument. Expected one of "
                f"{tuple(_SYNCHRONIZATIONS)}. Received: synchronization={synchronization!r}"
            )
        if not autocast:
            raise NotImplementedError(
                "Variable: autocast=False is not supported on a Variable; give it to the "
                "layer's add_weight(..., autocast=False), which keeps that weight in its own "
                "dtype under a mixed precision policy."
            )
        distribution = {
            "aggregation": _AGGREGATIONS[aggregation],
            "synchronization": _SYNCHRONIZATIONS[synchronization],
        }
        if name is not None and (not isinstance(name, str) or "/" in name):
            raise ValueError(
                "Variable: argument `name` must be a string and cannot contain character `/`. "
                f"Received: name={name!r}"
            )
        if isinstance(initializer, str) or (
            callable(initializer) and not isinstance(initializer, _Variable)
        ):
            if shape is None:
                raise ValueError(
                    "Variable: when creating a Variable from an initializer, the `shape` "
                    f"argument should be specified. Received: initializer={initializer!r} "
                    f"and shape={shape}"
                )
            init = initializers.get(initializer)
            value = init(tuple(shape), dtype=dtype)  # None: the initializer's floatx
            return _Variable(value, trainable=trainable, name=name or "variable", **distribution)
        if isinstance(initializer, Tensor) and dtype is not None:  # Keras casts a Tensor value
            initializer = cast(initializer, dtype)
        return _Variable(
            initializer,
            trainable=trainable,
            name=name or "variable",
            dtype=dtype,
            shape=shape,
            **distribution,
        )


class Variable(metaclass=_Meta):
    """A Keras variable (follows `keras.Variable`; an `ek.Variable`).

    Args:
        initializer: the initial value (a tensor, array or number), or an initializer (a
            name such as ``"zeros"``, an `ek.keras.initializers` object, or a callable
            ``(shape, dtype) -> value``), which then needs ``shape``.
        shape: the variable's shape; required with an initializer, checked against a value.
        dtype: default float32 for an initializer, the value's own otherwise.
        trainable: listed in `trainable_variables` and watched by tapes (default True).
        autocast: True only (default); ``autocast=False`` raises NotImplementedError: give it
            to `Layer.add_weight` instead, which honours it.
        aggregation: ``"none"``, ``"sum"``, ``"mean"`` or ``"only_first_replica"``: how the
            replicas of an ``"on_read"`` variable combine under a distribution strategy
            (`ek.VariableAggregation`).
        synchronization: ``"auto"``, ``"none"``, ``"on_write"`` or ``"on_read"``
            (`ek.VariableSynchronization`).
        name: default ``"variable"``; no ``/``.

    ``isinstance(v, keras.Variable)`` holds for every `ek.Variable`, layer weights included.

    Raises:
        ValueError: an initializer without ``shape``, a value that does not match ``shape``,
            a name with ``/``, or an unknown ``aggregation`` or ``synchronization``.
        NotImplementedError: ``autocast=False``.

    >>> v = ek.keras.Variable("ones", shape=(2,))
    >>> v.numpy(), isinstance(v, ek.keras.Variable)
    (array([1., 1.], dtype=float32), True)
    >>> ek.keras.Variable([1.0, 2.0], name="w")
    <Variable 'w:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>
    """
