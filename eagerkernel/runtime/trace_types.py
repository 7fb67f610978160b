"""The abstract types of graph functions (``ek.types.experimental``, after
``tf.types.experimental``): `TraceType` for objects that choose how they enter a function's
input signature, and the function types `GenericFunction`, `PolymorphicFunction` and
`ConcreteFunction`, which `ek.function`'s classes are registered as.

An object whose class defines ``__tf_tracing_type__(self, context)`` is part of a call's
signature through the `TraceType` it returns (compared with ``==`` and hashed), not by its
identity: calls with objects of equal trace types share one trace, as in TensorFlow.
"""

from __future__ import annotations

import abc

__all__ = [
    "ConcreteFunction",
    "GenericFunction",
    "PolymorphicFunction",
    "TraceType",
    "TracingContext",
]


class TracingContext(abc.ABC):  # noqa: B024 (TensorFlow's class: an interface with no methods)
    """What ``__tf_tracing_type__(context)`` receives (follows
    ``tf.types.experimental.TracingContext``). ek.function passes ``None``: it keeps no
    state across the arguments of one call."""


class TraceType(abc.ABC):
    """How a Python object enters a function's input signature (follows
    ``tf.types.experimental.TraceType``). Subclasses define the methods below; ek.function
    uses ``__eq__`` and ``__hash__`` (equal trace types: the same trace); the subtype methods
    are TensorFlow's interface for relaxing signatures, which ek.function does not do (its
    programs are specialized on their signature)."""

    @abc.abstractmethod
    def is_subtype_of(self, other: TraceType) -> bool:
        """Whether this type is a subtype of ``other``."""

    @abc.abstractmethod
    def most_specific_common_supertype(self, others) -> TraceType | None:
        """The most specific supertype of this type and ``others``, or None."""

    @abc.abstractmethod
    def placeholder_value(self, placeholder_context=None):
        """A value of this type to trace with."""

    @abc.abstractmethod
    def __eq__(self, other) -> bool: ...

    @abc.abstractmethod
    def __hash__(self) -> int: ...


class GenericFunction(abc.ABC):  # noqa: B024
    """A callable that traces per input signature (follows
    ``tf.types.experimental.GenericFunction``); `ek.function` returns one."""


class PolymorphicFunction(GenericFunction):
    """`GenericFunction`'s current TensorFlow name (``tf.types.experimental``)."""


class ConcreteFunction(abc.ABC):  # noqa: B024
    """One traced signature of a function (follows ``tf.types.experimental.ConcreteFunction``);
    ``get_concrete_function`` returns one."""
