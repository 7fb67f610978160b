"""`KerasTensor`: a symbolic tensor of the functional API (follows `keras.KerasTensor`).

A KerasTensor has a shape (``None`` for an unknown dimension, the batch axis first) and a
dtype, and no values. `ek.keras.Input` makes one; calling a layer on KerasTensors records a
`Node` (the layer, its arguments, its outputs) instead of computing, and returns new
KerasTensors whose ``_keras_history`` points at that node. `ek.keras.Model(inputs, outputs)`
walks these records back from the outputs to build the graph it runs.

This module depends only on the core; `layers.base` imports it to recognise symbolic calls.
"""

from __future__ import annotations

from ..core import dtypes
from ..core.shape import PartialShape

__all__ = [
    "KerasHistory",
    "KerasShape",
    "KerasTensor",
    "Node",
    "SymbolicValueError",
    "any_symbolic",
    "spec_between",
]


class SymbolicValueError(TypeError, ValueError):
    """Raised when a `KerasTensor`'s value is asked for (NumPy conversion, ``int``,
    ``float``, ``len``, iteration, an eagerkernel op): a ValueError, as Keras 3 raises from
    ``KerasTensor.__array__`` and ``__tf_tensor__``, and also a TypeError, so that code
    catching either catches it (``bool(x)`` is a TypeError in Keras 3)."""


class KerasHistory(tuple):
    """``(layer, node_index, tensor_index)``: which call of which layer made a KerasTensor."""

    __slots__ = ()

    @property
    def layer(self):
        return self[0]

    @property
    def node_index(self) -> int:
        return self[1]

    @property
    def tensor_index(self) -> int:
        return self[2]


class KerasShape(PartialShape):
    """A `KerasTensor`'s shape: shown as the plain tuple Keras 3 uses (``(None, 3)``), with
    `TensorShape`'s methods kept (``as_list()``, ``rank``) for code written for tf.keras 2,
    whose KerasTensors have TensorShapes. A slice is a KerasShape too.

    >>> KerasShape((None, 28, 1)), KerasShape((None, 28, 1))[1:], KerasShape((2, 3)).rank
    ((None, 28, 1), (28, 1), 2)
    """

    __slots__ = ()

    def __getitem__(self, key):
        if type(key) is slice:
            return KerasShape(tuple.__getitem__(self, key))
        return tuple.__getitem__(self, key)

    def __repr__(self) -> str:
        return tuple.__repr__(self)


class KerasTensor:
    """A symbolic tensor: a shape, a dtype and the layer call that produced it.

    Args:
        shape: a tuple of ints and None (unknown size), batch axis included.
        dtype: a dtype or its name (default float32).
        name: optional; Inputs take their layer's name.

    KerasTensors have no values: converting one to an array or a Python number raises
    TypeError. Operators on KerasTensors (arithmetic ``x + y``, ``2 * x``, ``-x``, ``x // 2``,
    ``x @ w``; comparisons ``x > 0`` (``==`` is identity, as in Keras); ``& | ^ ~``; ``abs``,
    ``round``; indexing ``x[:, 1:]``) record a layer (`Operator`), as Keras does.

    >>> x = ek.keras.Input(shape=(None, 3), name="seq")
    >>> x
    <KerasTensor shape=(None, None, 3), dtype=float32, sparse=False, ragged=False, name=seq>
    >>> x.shape
    (None, None, 3)
    """

    def __init__(self, shape, dtype="float32", name: str | None = None, history=None, sparse=False):
        self.shape = KerasShape(None if d is None else int(d) for d in shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name
        self.sparse = bool(sparse)  # stands for a SparseTensor (an Input(sparse=True))
        self._keras_history = history

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return (  # Keras 3's form (ragged KerasTensors are not made here)
            f"<KerasTensor shape={tuple(self.shape)}, dtype={self.dtype.name}, "
            f"sparse={self.sparse}, ragged=False, name={self.name}>"
        )

    def _refuse(self, what: str):
        raise SymbolicValueError(
            f"A KerasTensor is symbolic: it has no value, so it cannot be {what}. You are "
            "probably calling an eagerkernel function on an ek.keras.Input (or a layer's "
            "output) while building a functional model; wrap the computation in a layer "
            f"(ek.keras.layers.Lambda or a Layer subclass) instead. Received: {self!r}"
        )

    def __array__(self, *args, **kwargs):
        self._refuse("converted to a NumPy array")

    def __bool__(self):
        self._refuse("used as a Python bool")

    def __float__(self):
        self._refuse("converted to a float")

    def __int__(self):
        self._refuse("converted to an int")

    def __len__(self):
        self._refuse("given a len() (use .shape)")

    def __iter__(self):
        self._refuse("iterated over")

    def numpy(self):
        self._refuse("read with .numpy()")

    # Operators record a layer, as Keras's TFOpLambda / operation layers do.
    def _op(self, op: str, other=None, reverse: bool = False):
        from .layers.merging import operator_layer

        return operator_layer(op, self, other, reverse)

    def __add__(self, other):
        return self._op("add", other)

    def __radd__(self, other):
        return self._op("add", other, True)

    def __sub__(self, other):
        return self._op("subtract", other)

    def __rsub__(self, other):
        return self._op("subtract", other, True)

    def __mul__(self, other):
        return self._op("multiply", other)

    def __rmul__(self, other):
        return self._op("multiply", other, True)

    def __truediv__(self, other):
        return self._op("divide", other)

    def __rtruediv__(self, other):
        return self._op("divide", other, True)

    def __floordiv__(self, other):
        return self._op("floor_divide", other)

    def __rfloordiv__(self, other):
        return self._op("floor_divide", other, True)

    def __mod__(self, other):
        return self._op("mod", other)

    def __rmod__(self, other):
        return self._op("mod", other, True)

    def __pow__(self, other):
        return self._op("power", other)

    def __rpow__(self, other):
        return self._op("power", other, True)

    def __matmul__(self, other):
        return self._op("matmul", other)

    def __rmatmul__(self, other):
        return self._op("matmul", other, True)

    def __lt__(self, other):
        return self._op("less", other)

    def __le__(self, other):
        return self._op("less_equal", other)

    def __gt__(self, other):
        return self._op("greater", other)

    def __ge__(self, other):
        return self._op("greater_equal", other)

    def __ne__(self, other):
        return self._op("not_equal", other)

    def __and__(self, other):
        return self._op("logical_and", other)

    def __rand__(self, other):
        return self._op("logical_and", other, True)

    def __or__(self, other):
        return self._op("logical_or", other)

    def __ror__(self, other):
        return self._op("logical_or", other, True)

    def __xor__(self, other):
        return self._op("logical_xor", other)

    def __rxor__(self, other):
        return self._op("logical_xor", other, True)

    def __neg__(self):
        return self._op("negative")

    def __abs__(self):
        return self._op("absolute")

    def __invert__(self):
        return self._op("logical_not")

    def __round__(self, ndigits=None):
        if ndigits:
            raise NotImplementedError(
                f"round(KerasTensor, {ndigits}): only rounding to an integer value is "
                "supported; use a Lambda layer."
            )
        return self._op("round")

    def __getitem__(self, key):
        return self._op("getitem", key)

    __hash__ = object.__hash__


class Node:
    """One call of a layer on KerasTensors: ``layer(*call_args, **call_kwargs) -> outputs``.

    ``parents`` are the KerasTensors among the arguments, in order. The node is appended to
    ``layer._inbound_nodes``; its index there is the ``node_index`` in its outputs' history.
    """

    __slots__ = ("call_args", "call_kwargs", "index", "layer", "outputs", "parents")

    def __init__(self, layer, call_args: tuple, call_kwargs: dict, outputs):
        from .. import nest

        self.layer = layer
        self.call_args = call_args
        self.call_kwargs = call_kwargs
        self.outputs = outputs
        self.parents = [
            t for t in nest.flatten((list(call_args), call_kwargs)) if isinstance(t, KerasTensor)
        ]
        nodes = layer.__dict__.setdefault("_inbound_nodes", [])
        self.index = len(nodes)
        nodes.append(self)

    @property
    def flat_outputs(self) -> list:
        from .. import nest

        return nest.flatten(self.outputs)

    @property
    def is_input(self) -> bool:
        return not self.parents


_PLAIN = frozenset({bool, int, float, str, type(None)})  # arguments that hold no tensor


def any_symbolic(inputs, args, kwargs) -> bool:
    """Whether a KerasTensor is among a layer call's arguments (lists, tuples, dicts walked)."""
    if isinstance(inputs, KerasTensor):
        return True
    if not args and not isinstance(inputs, (list, tuple, dict)):
        for value in kwargs.values():  # usually `training=`: a bool or None
            if type(value) not in _PLAIN:
                break
        else:
            return False
    todo = [inputs, *args, *kwargs.values()]
    while todo:
        x = todo.pop()
        if isinstance(x, KerasTensor):
            return True
        if isinstance(x, (list, tuple)):
            todo.extend(x)
        elif isinstance(x, dict):
            todo.extend(x.values())
    return False


def spec_between(a, b, name=None) -> KerasTensor:
    """The KerasTensor (without history) for the Tensors ``a`` and ``b`` a layer gave on two
    stand-in inputs that differ only in their unknown dimensions: a dimension on which they
    differ is unknown (None), the others are ``a``'s; the dtype is ``a``'s."""
    dims = [x if x == y else None for x, y in zip(a._value.shape, b._value.shape)]
    return KerasTensor(dims, dtypes.as_dtype(a._value.dtype), name=name)
