"""`ConcreteFunction`: one input signature of a graph function and its traced programs
(follows `tf.types.experimental.ConcreteFunction`)."""

from __future__ import annotations

import inspect
import itertools
import typing

from .. import nest
from ..core.composite import CompositeTensor
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, constant
from ..data.structure import TensorSpec
from .graph import AtomicFunction, FuncGraph, FunctionType
from .signature import bind_by_name, describe, is_spec, to_tensors

if typing.TYPE_CHECKING:
    from .polymorphic_function import Entry, Function
    from .program import Program

__all__ = ["ConcreteFunction"]

_concrete_uids = itertools.count(1)


class ConcreteFunction:
    """One signature of a `Function` and its traced programs (follows
    `tf.types.experimental.ConcreteFunction`)."""

    def __init__(self, function: Function, specs, entry: Entry | None):
        self._function = function
        self.structured_input_signature = specs
        self._entry = entry
        self._uid = next(_concrete_uids)

    @property
    def function_type(self) -> FunctionType:
        """The parameters (TensorSpecs, fixed Python values) and output type (follows
        ``ConcreteFunction.function_type``; prints as ``(a: TensorSpec(...)) -> ...``)."""
        return FunctionType(self._parameters(), self.structured_outputs)

    @property
    def graph(self) -> FuncGraph:
        """A read-only view of the traced program as a graph (`FuncGraph`: ``get_operations``,
        ``as_graph_def().node``), after TensorFlow's ``ConcreteFunction.graph``: the root
        program, the path the first trace took.

        Raises:
            ValueError: a concrete function made from TensorSpecs that was not called yet
                (it is traced at its first call, on real values).
        """
        program = self.program
        if program is None:
            raise ValueError(
                f"ConcreteFunction {self.name}: graph: not traced yet; a concrete function "
                "made from TensorSpecs is traced at its first call, on real values."
            )
        names = []
        for name, spec, _ in self._parameters():
            flat = [x for x in nest.flatten(spec) if is_spec(x)]
            if len(flat) == 1:
                names.append(name)
            else:
                names += [f"{name}_{k}" for k in range(len(flat))]
        return FuncGraph(self.name, program, names)

    @property
    def inference_fn(self) -> AtomicFunction:
        """The function called with the flat tensor inputs (`AtomicFunction`, after
        ``ConcreteFunction.inference_fn``), named ``__inference_<name>_<n>``."""
        return AtomicFunction(self, self._inference_name)

    @property
    def _inference_name(self) -> str:
        return f"__inference_{self.name}_{self._uid}"

    @property
    def name(self) -> str:
        return self._function.name

    @property
    def program(self) -> Program | None:
        """The root program (None before the first call of a concrete function from specs)."""
        return None if self._entry is None else self._entry.program

    @property
    def structured_outputs(self):
        entry = self._entry
        if entry is None or entry.program is None:
            return None
        return entry.program.output_specs()

    def _parameters(self) -> list:
        """``[(name, spec or fixed Python value, keyword-only)]`` of the signature."""
        args, kwargs = self.structured_input_signature
        try:
            names = list(inspect.signature(self._function.python_function).parameters)
        except (TypeError, ValueError):
            names = []
        params = [(names[k] if k < len(names) else f"arg{k}", a, False) for k, a in enumerate(args)]
        return params + [(n, a, True) for n, a in kwargs.items()]

    def __call__(self, *args, **kwargs):
        """Calls with the tensor arguments only (the Python ones are part of the concrete
        function), positionally in order or by name, as TensorFlow's concrete functions.

        Raises:
            TypeError: too many arguments, an unknown or fixed keyword argument, a missing
                one, or a tensor that does not match its spec.
        """
        params = self._parameters()
        tensor_params = [n for n, s, _ in params if any(is_spec(x) for x in nest.flatten(s))]
        given = bind_by_name(self.name, tensor_params, args, kwargs)
        call_args, call_kwargs = [], {}
        position = 0  # of the flat tensor input, in the error TensorFlow raises
        for name, spec, keyword in params:
            value = given.get(name, spec)
            if name in given:
                value = _bound(value, spec, self.name)
                flat_value = nest.flatten(to_tensors(value))
                for a, s in zip(flat_value, nest.flatten(spec)):
                    if (
                        isinstance(s, TensorSpec)
                        and isinstance(a, Tensor)
                        and s.dtype is not None
                        and a.dtype != s.dtype
                    ):
                        # TensorFlow checks the dtypes of the flat inputs when the function
                        # runs: InvalidArgumentError, its message.
                        raise InvalidArgumentError(
                            f"cannot compute {self._inference_name} as input "
                            f"#{position}(zero-based) "
                            f"was expected to be a {s.dtype.name} tensor but is a "
                            f"{a.dtype.name} tensor [Op:{self._inference_name}]"
                        )
                    if (
                        isinstance(s, TensorSpec)
                        and (not isinstance(a, Tensor) or not s.is_compatible_with(a))
                    ) or (
                        is_spec(s)
                        and not isinstance(s, TensorSpec)
                        and not (isinstance(a, CompositeTensor) and s.is_compatible_with(a))
                    ):
                        raise TypeError(
                            f"ConcreteFunction {self.name}: argument {name}={a!r} does not "
                            f"match {s!r}."
                        )
                    position += is_spec(s)
            if keyword:
                call_kwargs[name] = value
            else:
                call_args.append(value)
        result = self._function(*call_args, **call_kwargs)
        if self._entry is None:
            self._entry = self._function._entry_for(tuple(call_args), call_kwargs)
        return result

    def pretty_printed_signature(self, verbose: bool = True) -> str:
        """The signature as TensorFlow prints it: input parameters, output type."""
        args, kwargs = self.structured_input_signature
        try:
            names = list(inspect.signature(self._function.python_function).parameters)
        except (TypeError, ValueError):
            names = []
        lines = ["Input Parameters:"]
        for k, a in enumerate(args):
            n = names[k] if k < len(names) else f"arg{k}"
            lines.append(f"  {n} (POSITIONAL_OR_KEYWORD): {describe(a)}")
        for n, a in sorted(kwargs.items()):
            lines.append(f"  {n} (KEYWORD_ONLY): {describe(a)}")
        lines.append("Output Type:")
        lines.append(f"  {describe(self.structured_outputs)}")
        lines.append("Captures:")
        program = self.program
        captured = [] if program is None else program.variables
        if captured:
            lines += [f"  {v.name}: {TensorSpec(tuple(v.shape), v.dtype)!r}" for v in captured]
        else:
            lines.append("  None")
        return "\n".join(lines)

    def __repr__(self) -> str:
        program = self.program
        head = f"ConcreteFunction {self.name}\n{self.pretty_printed_signature()}"
        if program is None:
            return head + "\n(not traced yet)"
        return head + "\n" + program.listing()


def _bound(value, spec, function: str):
    """``value`` with its Python values (numbers, lists, NumPy arrays) given for a `TensorSpec`
    made tensors of the spec's dtype, as TensorFlow binds a concrete function's inputs.

    Raises:
        TypeError: a value that does not convert (TensorFlow's "Binding inputs" error).
    """
    if isinstance(spec, TensorSpec):
        if isinstance(value, (Tensor, CompositeTensor)) or spec.dtype is None:
            return value
        try:
            return constant(value, dtype=spec.dtype)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"Binding inputs to tf.function {function} failed due to `{exc}`. "
                f"Received: {value!r} for {spec!r}."
            ) from None
    if isinstance(spec, (list, tuple)) and type(value) is type(spec) and len(value) == len(spec):
        return type(value)(_bound(v, s, function) for v, s in zip(value, spec))
    if isinstance(spec, dict) and isinstance(value, dict) and value.keys() == spec.keys():
        return {k: _bound(value[k], spec[k], function) for k in value}
    return value
