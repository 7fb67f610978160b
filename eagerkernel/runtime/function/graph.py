"""Read-only views of a traced graph function: its graph (`FuncGraph`, after TensorFlow's
``ConcreteFunction.graph``), its `FunctionType` and its `AtomicFunction`
(``ConcreteFunction.inference_fn``).

A `Program` (`program`) is the straight-line list of the ops a trace recorded; the
graph view names them as a TensorFlow graph does: one ``Placeholder`` node per tensor input
(named after its parameter), one ``Const`` node per captured constant, a ``Placeholder`` and a
``ReadVariableOp`` per captured variable, a node per op (named after its op type, ``AddV2``,
``AddV2_1``, ...; each input written ``"node"`` for a node's first output and ``"node:k"``
for its k-th), a node per stateful call (named after the Python callable), and one
``Identity`` node per tensor output. Guards (where the trace read a tensor's value into
Python) are not nodes: they choose which program runs, as the Python code chose its branch.
"""

from __future__ import annotations

import re

import numpy as np

from .. import nest
from ..core.dtypes import as_dtype, string
from ..core.variable import Variable
from .signature import describe
from .tracing import arg_refs

__all__ = ["AtomicFunction", "FuncGraph", "FunctionType", "GraphDef", "NodeDef", "Operation"]


class GraphTensor:
    """One output of a graph node (``name`` is ``"node:k"``), with its dtype and shape."""

    __slots__ = ("dtype", "name", "op", "shape", "value_index")

    def __init__(self, op: Operation, value_index: int, dtype, shape):
        self.op = op
        self.value_index = value_index
        self.name = f"{op.name}:{value_index}"
        self.dtype = dtype
        self.shape = shape

    def __repr__(self) -> str:
        dtype = getattr(self.dtype, "name", "?")
        shape = "<unknown>" if self.shape is None else str(tuple(self.shape))
        return f'<GraphTensor "{self.name}" shape={shape} dtype={dtype}>'


class NodeDef:
    """A node of a `GraphDef`: ``name``, ``op`` (its type), ``input`` (the names of the
    tensors it reads) and ``attr`` (``{"dtype": DType}`` where the node has one dtype)."""

    __slots__ = ("attr", "input", "name", "op")

    def __init__(self, name: str, op: str, inputs: list, attr: dict):
        self.name = name
        self.op = op
        self.input = list(inputs)
        self.attr = dict(attr)

    def __str__(self) -> str:
        lines = ["node {", f'  name: "{self.name}"', f'  op: "{self.op}"']
        lines += [f'  input: "{i}"' for i in self.input]
        for key, value in self.attr.items():
            shown = _dt_name(value) if hasattr(value, "name") else repr(value)
            lines.append(f'  attr {{ key: "{key}" value: {shown} }}')
        return "\n".join([*lines, "}"])

    __repr__ = __str__


class GraphDef:
    """A graph's nodes, in the order they run (follows ``tf.compat.v1.GraphDef``'s ``node``
    field; `str` prints them in protocol-buffer text style)."""

    __slots__ = ("node",)

    def __init__(self, nodes: list):
        self.node = list(nodes)

    def __str__(self) -> str:
        return "\n".join(str(n) for n in self.node)

    __repr__ = __str__


class Operation:
    """A node of a `FuncGraph` (follows ``tf.Operation``'s read-only attributes): ``name``,
    ``type``, ``inputs`` and ``outputs`` (`GraphTensor` tuples) and ``node_def``."""

    __slots__ = ("inputs", "name", "node_def", "outputs", "type")

    def __init__(self, name: str, type_: str, inputs: tuple, attr: dict):
        self.name = name
        self.type = type_
        self.inputs = tuple(inputs)
        self.outputs: tuple = ()
        names = [t.name[:-2] if t.name.endswith(":0") else t.name for t in self.inputs]
        self.node_def = NodeDef(name, type_, names, attr)

    def __repr__(self) -> str:
        return f'<Operation name="{self.name}" type={self.type}>'


def _camel(name: str) -> str:
    """A Python callable's name as an op type (``assign_add`` -> ``AssignAdd``)."""
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[_.<>]+", name) if p) or "Call"


class FuncGraph:
    """The graph of one traced program of a concrete function (after TensorFlow's
    ``FuncGraph``): read only, built from the program's ops.

    Attributes:
        name: the concrete function's name.
        inputs: the `GraphTensor` of each tensor input, then of each captured variable.
        outputs: the `GraphTensor` of each tensor output.
    """

    def __init__(self, name: str, program, input_names: list):
        self.name = name
        self._operations: list = []
        self._names: dict = {}
        tensors: dict = {}  # program ref -> GraphTensor
        self.inputs: list = []
        for k in range(program.n_inputs):
            base = input_names[k] if k < len(input_names) else f"arg{k}"
            tensors[k] = self._add(base, "Placeholder", (), program, [k])[0]
            self.inputs.append(tensors[k])

        def get(r):
            t = tensors.get(r)
            if t is None:  # ("c", k): a captured constant, a Const node at its first use
                value = program.consts[r[1]][0]
                dtype = _dtype_of(value)
                typed = [(dtype, tuple(np.shape(value)))]
                t = tensors[r] = self._add("Const", "Const", (), program, [], typed)[0]
            return t

        handles: dict = {}  # id(Variable) -> its handle's GraphTensor

        def handle_of(var):
            handle = handles.get(id(var))
            if handle is None:
                base = re.sub(r"[^A-Za-z0-9_.\-/]", "_", str(var.name).split(":")[0])
                handle = handles[id(var)] = self._add(
                    base or "Variable", "Placeholder", (), program, [], [(None, None)]
                )[0]
                self.inputs.append(handle)
            return handle

        for ins in program.ops:
            kind = ins[0]
            if kind == "op":
                _, prim, refs, _params, outs, _saved = ins
                outs = [outs] if type(outs) is int else list(outs)
                made = self._add(prim.name, prim.name, [get(r) for r in refs], program, outs)
                tensors.update(zip(outs, made))
            elif kind == "read":
                _, k, slot = ins
                handle = handle_of(program.variables[k])
                read = self._add("ReadVariableOp", "ReadVariableOp", [handle], program, [slot])
                tensors[slot] = read[0]
            elif kind == "call":
                _, fn, arg_t, out_t = ins
                type_ = _camel(getattr(fn, "__name__", type(fn).__name__))
                outs = [] if isinstance(out_t, str) else arg_refs(out_t, [])
                inputs = [handle_of(v) for v in _variables_in(arg_t)]
                inputs += [get(r) for r in arg_refs(arg_t, [])]
                made = self._add(type_, type_, inputs, program, outs)
                tensors.update(zip(outs, made))
        self.outputs = []
        for r in program.outputs:
            if r is None:
                continue
            self.outputs.append(self._add("Identity", "Identity", [get(r)], program, [r])[0])

    def _add(self, base: str, type_: str, inputs, program, slots, typed=None) -> list:
        """A new node named ``base`` (``base_1``, ... when taken); its output tensors."""
        n = self._names.get(base, 0)
        self._names[base] = n + 1
        name = base if n == 0 else f"{base}_{n}"
        if typed is None:
            typed = [(_slot_dtype(program, s), _slot_shape(program, s)) for s in slots]
        dtypes = {d for d, _ in typed if d is not None}
        attr = {"dtype": dtypes.pop()} if len(dtypes) == 1 else {}
        op = Operation(name, type_, tuple(inputs), attr)
        op.outputs = tuple(GraphTensor(op, i, d, s) for i, (d, s) in enumerate(typed))
        self._operations.append(op)
        return list(op.outputs)

    def get_operations(self) -> list:
        """The graph's `Operation`s, in the order they run (follows
        ``tf.Graph.get_operations``)."""
        return list(self._operations)

    def get_operation_by_name(self, name: str) -> Operation:
        """The `Operation` named ``name``; KeyError if there is none."""
        for op in self._operations:
            if op.name == name:
                return op
        raise KeyError(f"FuncGraph {self.name}: no operation named {name!r}.")

    def as_graph_def(self, from_version=None, add_shapes: bool = False) -> GraphDef:
        """The nodes as a `GraphDef` (follows ``tf.Graph.as_graph_def``; ``from_version``
        and ``add_shapes`` are not supported beyond their defaults)."""
        if from_version is not None:
            raise NotImplementedError("as_graph_def: from_version is not supported.")
        if add_shapes:
            raise NotImplementedError("as_graph_def: add_shapes=True is not supported.")
        return GraphDef([op.node_def for op in self._operations])

    def __repr__(self) -> str:
        return f"<FuncGraph {self.name}: {len(self._operations)} operations>"


def _variables_in(template) -> list:
    """The Variables a stateful call's argument template holds, in order."""
    if isinstance(template, Variable):
        return [template]
    if isinstance(template, dict):
        return [v for x in template.values() for v in _variables_in(x)]
    if isinstance(template, (list, tuple)):
        return [v for x in template for v in _variables_in(x)]
    return []


_DT_NAMES = {"float32": "DT_FLOAT", "float64": "DT_DOUBLE", "float16": "DT_HALF"}


def _dt_name(dtype) -> str:
    """A DType as a GraphDef's ``type`` enum names it (``DT_FLOAT`` for float32)."""
    return _DT_NAMES.get(dtype.name, f"DT_{dtype.name.upper()}")


def _slot_dtype(program, slot):
    if type(slot) is int:
        return program._dtypes[slot] if slot < len(program._dtypes) else None
    return _dtype_of(program.consts[slot[1]][0])


def _slot_shape(program, slot):
    if type(slot) is int:
        return tuple(program._shapes[slot]) if slot < len(program._shapes) else None
    return tuple(np.shape(program.consts[slot[1]][0]))


def _dtype_of(value):
    kind = getattr(getattr(value, "dtype", None), "kind", "")
    if kind == "O":
        return string
    return as_dtype(value.dtype) if kind in tuple("biufc") else None


class FunctionType:
    """A concrete function's parameters and output type (follows
    ``tf.types.experimental.FunctionType``: `str` is ``(name: type, ...) -> output``).

    Attributes:
        parameters: ``{name: TensorSpec or fixed Python value}``, in order.
        output: the structure of the outputs, with TensorSpecs for tensors.
    """

    def __init__(self, parameters: list, output):
        self.parameters = {name: spec for name, spec, _ in parameters}
        self._keyword = {name for name, _, keyword in parameters if keyword}
        self.output = output

    def __str__(self) -> str:
        args = []
        for name, spec in self.parameters.items():
            args.append(f"{name}: {describe(spec)}")
        if self._keyword:
            first = next(i for i, n in enumerate(self.parameters) if n in self._keyword)
            args.insert(first, "*")
        return f"({', '.join(args)}) -> {describe(self.output)}"

    def __repr__(self) -> str:
        return f"FunctionType{self}"


class AtomicFunction:
    """The inference function of a concrete function (``ConcreteFunction.inference_fn``,
    after TensorFlow's ``AtomicFunction``): called with the flat tensor inputs, positionally
    in the order of the concrete function's tensor parameters; returns its outputs.

    Attributes:
        name: ``__inference_<function>_<n>``, as TensorFlow names it.
    """

    def __init__(self, concrete, name: str):
        self._concrete = concrete
        self.name = name

    @property
    def function_type(self) -> FunctionType:
        return self._concrete.function_type

    @property
    def graph(self) -> FuncGraph:
        return self._concrete.graph

    def call_flat(self, *args) -> list:
        """The outputs, flattened, for the flat tensor inputs."""
        return nest.flatten(self(*args))

    def __call__(self, *args):
        structure = self._concrete.structured_input_signature
        n = sum(1 for x in nest.flatten(structure) if hasattr(x, "is_compatible_with"))
        if len(args) != n:
            raise TypeError(f"{self.name}: takes {n} tensor input(s), got {len(args)}.")
        it = iter(args)
        filled = nest.map_structure(
            lambda x: next(it) if hasattr(x, "is_compatible_with") else x, structure
        )
        call_args, call_kwargs = filled
        return self._concrete._function(*call_args, **call_kwargs)

    def __repr__(self) -> str:
        return f"<AtomicFunction {self.name}>"
