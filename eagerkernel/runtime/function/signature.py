"""Signatures of graph-function calls: the cache key of a call's arguments, the specs of its
tensors, and the short texts of specs and values that listings and error messages show.
"""

from __future__ import annotations

import numpy as np

from ..core.composite import CompositeTensor
from ..core.tensor import Tensor, to_tensor
from ..core.variable import Variable
from ..data.structure import TensorSpec

__all__ = [
    "bind_by_name",
    "composite_spec",
    "describe",
    "describe_value",
    "hashable_value",
    "is_spec",
    "leaf_key",
    "listing_text",
    "spec_of",
    "structure_key",
    "to_tensors",
]


def leaf_key(x, arrays: list, seen: dict, tensors: list):
    """The signature entry of one flattened argument; appends tensor inputs to ``arrays``."""
    if isinstance(x, Tensor):
        if isinstance(x, Variable):
            return ("V", id(x))
        value = x._value
        alias = seen.get(id(value))
        if alias is not None:
            return ("A", alias)
        seen[id(value)] = len(arrays)
        arrays.append(value)
        tensors.append(x)
        return (value.dtype, value.shape, x._device)
    if x is None or isinstance(x, (bool, int, float, str, bytes)):
        return (type(x), x)
    if isinstance(x, CompositeTensor):
        # A RaggedTensor or SparseTensor: its row partition (or indices) by value, its values
        # as tensor inputs (the program is specialized on the partition, as on shapes).
        static, parts = x._ek_trace_key()
        return (static, *(leaf_key(t, arrays, seen, tensors) for t in parts))
    tracing_type = getattr(x, "__tf_tracing_type__", None)
    if callable(tracing_type):  # a `TraceType` the object chooses (TensorFlow's protocol)
        return ("tt", tracing_type(None))
    try:
        hash(x)
    except TypeError:  # by identity (an unhashable object; the entry keeps it alive)
        return ("id", id(x))
    return ("obj", x)


def structure_key(structure):
    """The containers of a call's arguments (types, lengths, dict keys) without their leaves:
    calls whose arguments nest differently (``{"a": x}``, ``(x,)``, ``[x]``) get traces of their
    own, as TensorFlow's trace types (Dict, Tuple, List) tell them apart."""
    if isinstance(structure, (list, tuple)):
        return (type(structure), tuple(structure_key(s) for s in structure))
    if isinstance(structure, dict):
        items = sorted(structure.items(), key=lambda kv: repr(kv[0]))  # keys of mixed types
        return (type(structure), tuple((k, structure_key(v)) for k, v in items))
    return None


def to_tensors(structure):
    """NumPy arrays in the arguments become Tensors, as TensorFlow converts them."""
    if isinstance(structure, np.ndarray):
        return to_tensor(structure, None, "function")
    if isinstance(structure, (list, tuple)) and not isinstance(structure, Tensor):
        items = [to_tensors(s) for s in structure]
        if hasattr(type(structure), "_fields"):
            return type(structure)(*items)
        return type(structure)(items)
    if isinstance(structure, dict):
        return {k: to_tensors(v) for k, v in structure.items()}
    return structure


def spec_of(x):
    """The spec of one argument: a `TensorSpec` for a tensor, the composite spec of a
    RaggedTensor, SparseTensor or ExtensionType, the value itself otherwise."""
    if isinstance(x, Tensor):
        return TensorSpec(tuple(x._value.shape), x.dtype)
    if isinstance(x, CompositeTensor):
        return composite_spec(x)
    return x


def composite_spec(x):
    """The `RaggedTensorSpec` / `SparseTensorSpec` / ExtensionType ``Spec`` of a composite
    argument."""
    from ..extension_type import ExtensionType
    from ..ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec
    from ..sparse.sparse_tensor import SparseTensorSpec

    if isinstance(x, ExtensionType):
        return x._type_spec
    if isinstance(x, RaggedTensor):
        return RaggedTensorSpec.from_value(x)
    return SparseTensorSpec.from_value(x)


def _spec_types() -> tuple:
    """The spec classes an ``input_signature`` may hold."""
    from ..extension_type import ExtensionTypeSpec
    from ..ragged.ragged_tensor import RaggedTensorSpec
    from ..sparse.sparse_tensor import SparseTensorSpec

    return (TensorSpec, RaggedTensorSpec, SparseTensorSpec, ExtensionTypeSpec)


def is_spec(x) -> bool:
    """Whether ``x`` is a spec an ``input_signature`` may hold."""
    return isinstance(x, _spec_types())


def hashable_value(value):
    """``value`` as a dict key: an array by its shape, dtype and bytes; else itself."""
    if isinstance(value, np.ndarray):
        return (value.shape, value.dtype.str, value.tobytes())
    return value


def listing_text(x) -> str:
    """A value as TensorFlow's concrete-signature listing shows it."""
    if isinstance(x, TensorSpec):
        shape = "None" if x.shape.rank is None else str(tuple(x.shape.as_list()))
        return f"{x.dtype.name} Tensor, shape={shape}"
    if isinstance(x, (list, tuple)):
        return f"{type(x).__name__}(" + ", ".join(listing_text(v) for v in x) + ")"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {listing_text(v)}" for k, v in x.items()) + "}"
    return repr(x)


def describe_value(x) -> str:
    """A value as binding errors show it: a tensor by its spec, anything else by its repr
    (80 characters at most)."""
    if isinstance(x, Tensor):
        return repr(TensorSpec(tuple(x._value.shape), x.dtype))
    if isinstance(x, CompositeTensor):
        return repr(composite_spec(x))
    return f"{x!r:.80}"


def describe(x) -> str:
    """A short text of a structure of specs, tensors and Python values (error messages)."""
    if is_spec(x):
        return repr(x)
    if isinstance(x, (list, tuple)):
        inner = ", ".join(describe(v) for v in x)
        return f"{type(x).__name__.capitalize()}[{inner}]"
    if isinstance(x, dict):
        return "Dict[" + ", ".join(f"{k!r}: {describe(v)}" for k, v in x.items()) + "]"
    if isinstance(x, Variable):
        return f"Variable {x.name}"
    return f"Literal[{x!r}]"


def bind_by_name(function: str, names: list, args: tuple, kwargs: dict) -> dict:
    """``{name: value}`` of a call's arguments bound to ``names``, positionally then by
    keyword, as a concrete function (or a loaded signature) takes its tensors.

    Raises:
        TypeError: too many positional arguments, an unknown or repeated keyword, or a
            missing argument (each naming ``function`` and the argument).
    """
    if len(args) > len(names):
        raise TypeError(
            f"{function}(): takes {len(names)} tensor argument(s) ({', '.join(names)}), got "
            f"{len(args)}."
        )
    given = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(
                f"{function}() got an unexpected keyword argument '{k}'; its arguments are "
                f"{list(names)}."
            )
        if k in given:
            raise TypeError(f"{function}() got multiple values for argument '{k}'.")
        given[k] = v
    missing = [n for n in names if n not in given]
    if missing:
        raise TypeError(f"{function}() missing required argument(s): {', '.join(missing)}.")
    return given
