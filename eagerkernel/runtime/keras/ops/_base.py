"""What every `ek.keras.ops` function shares: symbolic calls, conversion and dtype rules.

A `keras_op` function runs eagerly on tensors, arrays and Python numbers. When a
`KerasTensor` is among its arguments (at any nesting level: ``concatenate([x, y])``), it
computes nothing and records a `KerasOpLayer` call instead, as Keras 3 records an operation
on symbolic tensors; the functional model then runs the same function on real tensors.

Dtype rules follow Keras 3's ``keras.backend.result_type`` (JAX's lattice): Python numbers
are weak (``int32 tensor + 1.5`` is float32, ``float16 tensor + 1`` is float16), an integer
and a float tensor give the float, two floats the wider one, and a Python float alone gives
`floatx` (float32), a Python int int32.
"""

from __future__ import annotations

import builtins
import functools

import numpy as np

from ...core import dtypes
from ...core.tensor import Tensor, convert_to_tensor
from ...ops.elementwise import cast
from ..keras_tensor import KerasTensor, any_symbolic
from ..layers.base import Layer, unique_name

__all__ = ["KerasOpLayer", "keras_op", "output_spec"]

#: The eager function behind each op name (what a `KerasOpLayer` runs).
_REGISTRY: dict = {}
#: Ops whose output KerasTensor is computed from their arguments' shapes (`output_spec`)
#: instead of by running them on stand-in inputs.
_OUTPUT_SPECS: dict = {}


def output_spec(name: str):
    """Registers ``fn(*args, **kwargs) -> KerasTensor`` as the symbolic output of op ``name``
    (its arguments with KerasTensors in place of tensors), as Keras 3's
    ``Operation.compute_output_spec``; for ops whose output shape stand-in inputs cannot
    give (``reshape(x, (-1, 5, 5))`` of an ``x`` of shape ``(None, 5)``)."""

    def register(fn):
        _OUTPUT_SPECS[name] = fn
        return fn

    return register


def _has_keras_tensor(args, kwargs) -> bool:
    if not kwargs and builtins.all(isinstance(a, Tensor) for a in args):
        return False  # the eager fast path
    return any_symbolic(args, (), kwargs)


def keras_op(fn):
    """Registers ``fn`` as the op of its name and makes it record a `KerasOpLayer` when a
    KerasTensor is among its arguments."""
    name = fn.__name__
    _REGISTRY[name] = fn

    @functools.wraps(fn)
    def op(*args, **kwargs):
        if _has_keras_tensor(args, kwargs):
            return symbolic_op(name, args, kwargs)
        return fn(*args, **kwargs)

    return op


def _extract(structure, found: list):
    """``structure`` with each KerasTensor replaced by a `_Slot` (its index in ``found``)."""
    if isinstance(structure, KerasTensor):
        found.append(structure)
        return _Slot(len(found) - 1)
    if isinstance(structure, list):
        return [_extract(s, found) for s in structure]
    if isinstance(structure, tuple):
        return tuple(_extract(s, found) for s in structure)
    if isinstance(structure, dict):
        return {k: _extract(v, found) for k, v in structure.items()}
    return structure


def _fill(structure, tensors):
    if isinstance(structure, _Slot):
        return tensors[structure.index]
    if isinstance(structure, list):
        return [_fill(s, tensors) for s in structure]
    if isinstance(structure, tuple):
        return tuple(_fill(s, tensors) for s in structure)
    if isinstance(structure, dict):
        return {k: _fill(v, tensors) for k, v in structure.items()}
    return structure


class _Slot:
    """Where the ``index``-th input of a `KerasOpLayer` goes among the op's arguments."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


def symbolic_op(name: str, args: tuple, kwargs: dict):
    """Records ``ops.<name>(*args, **kwargs)`` on KerasTensors as a `KerasOpLayer` call and
    returns its output KerasTensor(s)."""
    found: list = []
    template = _extract((list(args), dict(kwargs)), found)
    layer = KerasOpLayer(name, _template=template)
    return layer(found)


def _encode(value):
    """A JSON form of an op argument (`_decode` reverses it)."""
    if isinstance(value, _Slot):
        return {"__input__": value.index}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, (np.bool_, np.integer, np.floating)):
        return value.item()
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(v) for v in value]}
    if isinstance(value, dict) and builtins.all(isinstance(k, str) for k in value):
        return {"__dict__": {k: _encode(v) for k, v in value.items()}}
    if isinstance(value, dtypes.DType):
        return {"__dtype__": value.name}
    if isinstance(value, (np.ndarray, Tensor)):
        array = np.asarray(value)
        return {"__array__": array.tolist(), "dtype": array.dtype.name}
    if isinstance(value, slice):
        return {"__slice__": [_encode(value.start), _encode(value.stop), _encode(value.step)]}
    if value is Ellipsis:
        return {"__ellipsis__": True}
    raise TypeError(
        f"A functional model that calls a keras.ops function with an argument of type "
        f"{type(value).__name__} cannot be saved (only numbers, strings, dtypes, arrays and "
        f"lists/tuples/dicts of them are). Received: {value!r}"
    )


def _decode(value):
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__input__" in value:
        return _Slot(value["__input__"])
    if "__tuple__" in value:
        return tuple(_decode(v) for v in value["__tuple__"])
    if "__dict__" in value:
        return {k: _decode(v) for k, v in value["__dict__"].items()}
    if "__dtype__" in value:
        return dtypes.as_dtype(value["__dtype__"])
    if "__array__" in value:
        return np.asarray(value["__array__"], dtype=value["dtype"])
    if "__slice__" in value:
        return slice(*(_decode(v) for v in value["__slice__"]))
    if "__ellipsis__" in value:
        return Ellipsis
    raise ValueError(f"KerasOpLayer: cannot decode the argument {value!r}.")


class KerasOpLayer(Layer):
    """A `keras.ops` function called on KerasTensors, as a layer of a functional model
    (Keras 3 records such calls as operations of the graph).

    Args:
        op_name: the name of the op in ``ek.keras.ops`` (``"relu"``, ``"mean"``, ...).
        arguments: the JSON form of its arguments ``[args, kwargs]``, each KerasTensor
            replaced by ``{"__input__": i}``, the i-th input of the layer (`get_config` gives
            it; a model built with ops saves and loads through it).

    ``call(inputs)`` takes the list of the op's tensor arguments in the order they were found
    (depth first, positional before keyword) and runs the op on them. Floating inputs are not
    cast to the layer's dtype: the op's own dtype rules apply.

    Raises:
        ValueError: an unknown ``op_name``.
        TypeError: (from `get_config`) an argument with no JSON form, such as a function.
    """

    def __init__(self, op_name: str, arguments=None, _template=None, **kwargs):
        if op_name not in _REGISTRY:
            raise ValueError(f"KerasOpLayer: unknown keras.ops function {op_name!r}.")
        kwargs["autocast"] = False
        if kwargs.get("name") is None:
            kwargs["name"] = unique_name(op_name)
        super().__init__(**kwargs)
        self.op_name = op_name
        if _template is None:
            if arguments is None:
                raise ValueError("KerasOpLayer: `arguments` is required.")
            args, kwargs_ = arguments
            _template = ([_decode(a) for a in args], {k: _decode(v) for k, v in kwargs_.items()})
        self._template = _template

    def call(self, inputs):
        tensors = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        args, kwargs = _fill(self._template, tensors)
        return _REGISTRY[self.op_name](*args, **kwargs)

    def compute_output_spec(self, inputs):
        """The output KerasTensor(s), found by running the op on stand-in zeros as the
        functional API infers any layer's output (`functional.probe_spec`). The
        data-dependent length of `nonzero` and one-argument `where` is unknown."""
        from ..functional import probe_spec

        if self.op_name in _OUTPUT_SPECS:
            tensors = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
            args, kwargs = _fill(self._template, tensors)
            return _OUTPUT_SPECS[self.op_name](*args, **kwargs)
        spec = probe_spec(self, inputs)
        if self.op_name in ("nonzero", "where") and isinstance(spec, tuple):
            spec = tuple(KerasTensor((None,), t.dtype) for t in spec)
        return spec

    def get_config(self) -> dict:
        args, kwargs = self._template
        return {
            **super().get_config(),
            "op_name": self.op_name,
            "arguments": [[_encode(a) for a in args], {k: _encode(v) for k, v in kwargs.items()}],
        }


# -- conversion and dtypes ----------------------------------------------------------------------


def floatx() -> str:
    from ..backend import floatx as _floatx

    return _floatx()


def to_tensor(x, dtype=None) -> Tensor:
    """``x`` as a Tensor (Python floats float32, ints int32, arrays keep their dtype), cast
    to ``dtype`` when given."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(x, Tensor):
        return x if dtype is None or x.dtype == dtype else cast(x, dtype)
    if dtype is not None and not hasattr(x, "dtype") and not isinstance(x, (list, tuple)):
        return convert_to_tensor(np.asarray(x, dtype=dtype.as_numpy_dtype))
    x = convert_to_tensor(x)
    return x if dtype is None or x.dtype == dtype else cast(x, dtype)


def _is_weak(x) -> bool:
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def _dtype_of(x) -> dtypes.DType:
    if isinstance(x, (Tensor, KerasTensor)):
        return x.dtype
    if hasattr(x, "dtype"):
        return dtypes.as_dtype(np.dtype(x.dtype).name)
    return to_tensor(x).dtype


def result_type(*values) -> dtypes.DType:
    """The dtype Keras 3 gives an op on ``values`` (tensors, arrays, Python numbers)."""
    strong = [_dtype_of(v) for v in values if not _is_weak(v)]
    weak = [type(v) for v in values if _is_weak(v)]
    complexes = [d for d in strong if d.is_complex]
    if complexes:
        return builtins.max(complexes, key=lambda d: d.size)
    floats = [d for d in strong if d.is_floating]
    if floats:
        if len({d.name for d in floats}) > 1 and {d.name for d in floats} == {
            "float16",
            "bfloat16",
        }:
            return dtypes.float32
        return builtins.max(floats, key=lambda d: d.size)
    if complex in weak:
        return dtypes.complex64
    if float in weak:
        return dtypes.as_dtype(floatx())
    ints = [d for d in strong if d.is_integer]
    if ints:
        return dtypes.as_dtype(np.result_type(*[d.as_numpy_dtype for d in ints]).name)
    if int in weak:
        return dtypes.int32
    return dtypes.bool if strong or weak else dtypes.as_dtype(floatx())


def promote(*values) -> list:
    """``values`` as tensors of their Keras `result_type`."""
    first = values[0] if values else None
    if isinstance(first, Tensor) and builtins.all(
        isinstance(v, Tensor) and v.dtype == first.dtype for v in values
    ):
        return list(values)  # the common case: nothing to convert
    dtype = result_type(*values)
    return [to_tensor(v, dtype) for v in values]


def float_like(x) -> Tensor:
    """``x`` as a tensor, cast to floatx when it is not floating (sqrt, exp, mean, ...)."""
    x = to_tensor(x)
    if x.dtype.is_floating or x.dtype.is_complex:
        return x
    return cast(x, floatx())


def canonical_axis(axis, ndim: int, op: str) -> int:
    """``axis`` in ``[0, ndim)``; ValueError naming ``op`` when it is out of range."""
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"keras.ops.{op}: axis must be an int. Received: axis={axis!r}")
    if not -ndim <= axis < builtins.max(ndim, 1):
        raise ValueError(
            f"keras.ops.{op}: axis {axis} is out of bounds for a tensor of rank {ndim}. "
            f"Received: axis={axis}"
        )
    return int(axis) % builtins.max(ndim, 1)


def check_axes(axis, ndim: int, op: str):
    """Validates ``axis`` (None, an int or a sequence of ints) against ``ndim``; returns it
    as None, an int or a list of non-negative ints."""
    if axis is None:
        return None
    if isinstance(axis, (Tensor, np.ndarray)) and np.asarray(axis).dtype.kind in "iu":
        # TensorFlow's backend takes a tensor of axes (``sum(x, axis=arange(1, ndim))``)
        axis = np.asarray(axis).tolist()
    if isinstance(axis, (list, tuple)):
        axes = [canonical_axis(a, ndim, op) for a in axis]
        if len(set(axes)) != len(axes):
            raise ValueError(f"keras.ops.{op}: repeated axis. Received: axis={axis!r}")
        return axes
    return canonical_axis(axis, ndim, op)
