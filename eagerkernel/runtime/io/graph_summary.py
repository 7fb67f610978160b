"""Graphs of traced functions for TensorBoard: `trace_on`, `trace_export`, `trace_off`
(follow `tf.summary.trace_on` / `trace_export` / `trace_off`).

Between `trace_on(graph=True)` and `trace_export(name, step)`, every program an `ek.function`
traces (its first call per input signature, and each new branch) is collected, in every
thread, as TensorFlow's trace is process-wide. `trace_export` writes them, to the default
summary writer, as one TensorBoard graph (an event holding a TensorFlow ``GraphDef``, which
TensorBoard's Graphs dashboard draws):

- each traced program is a name scope ``<name>/<function name>`` (``_1``, ``_2``... when a
  function traced again);
- its inputs are ``Placeholder`` nodes, constants ``Const``, variable reads
  ``ReadVariableOp`` of a ``VarHandleOp`` named after the Variable, each op a node whose
  ``op`` is the primitive's name (``MatMul``, ``Relu``...) with its output ``dtype`` and
  ``_output_shapes``, a stateful call (an ``assign``, an optimizer step) a node whose ``op``
  is the called function's name, and each output an ``Identity`` node;
- the event's step is ``step`` (or the default step, as summaries take it).

TensorFlow writes the same graphs inside a ``RunMetadata`` summary (with the profiler's
timings when ``profiler=True``); eagerkernel has no TensorFlow profiler, so ``profiler=True``
raises NotImplementedError (``%%tape`` is the profiler here). Without a default writer,
`trace_export` ends the trace and writes nothing, as TensorFlow does.
"""

from __future__ import annotations

import threading
import warnings

import numpy as np

from ..core import dtypes as _dtypes

__all__ = ["graph_def", "trace_export", "trace_off", "trace_on"]

_lock = threading.Lock()
_trace: _Collector | None = None


class _Collector:
    """Told by `Function.trace_observers` of each new program while a trace is on."""

    def __init__(self, graph: bool):
        self.graph = graph
        self.programs: list = []  # (function name, Program)

    def function_traced(self, function, program) -> None:
        with _lock:
            self.programs.append((function.name, program))


def trace_on(graph: bool = True, profiler: bool = False, profiler_outdir=None) -> None:
    """Starts collecting the graphs of the functions traced from now on, in every thread.

    Args:
        graph: collect graphs (True). False collects nothing; `trace_export` then writes
            nothing.
        profiler: TensorFlow's profiler, which eagerkernel does not have: True raises.
        profiler_outdir: the profiler's directory; as in TensorFlow it is used only with
            ``profiler=True``.

    Raises:
        NotImplementedError: ``profiler=True``.
        TypeError: ``graph`` or ``profiler`` not a bool.

    A trace already on stays as it is, with a warning (TensorFlow: "Trace already enabled").
    """
    global _trace
    for arg, value in (("graph", graph), ("profiler", profiler)):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"summary.trace_on: {arg} must be a bool. Received: {arg}={value!r}")
    if profiler:
        raise NotImplementedError(
            "summary.trace_on(profiler=True): eagerkernel has no TensorFlow profiler; trace "
            "the graph with profiler=False, and time ops with the %%tape magic "
            f"(profiler_outdir={profiler_outdir!r} is not used)."
        )
    from ..function.polymorphic_function import Function

    with _lock:
        if _trace is not None:
            warnings.warn("summary.trace_on: trace already enabled", stacklevel=2)
            return
        _trace = _Collector(bool(graph))
        if graph:
            Function.trace_observers.register(_trace)


def trace_off() -> None:
    """Stops the trace without exporting it (follows `tf.summary.trace_off`)."""
    global _trace
    from ..function.polymorphic_function import Function

    with _lock:
        if _trace is not None:
            Function.trace_observers.unregister(_trace)
        _trace = None


def trace_export(name: str, step=None, profiler_outdir=None) -> bool:
    """Writes the graphs collected since `trace_on` to the default writer as one TensorBoard
    graph (see the module docstring) and stops the trace. Returns whether it wrote.

    Args:
        name: the graph's outer name scope.
        step: the event's step; default: the writer's or global step, as `scalar` takes it.
        profiler_outdir: used only with a profiler trace (as in TensorFlow), which
            eagerkernel does not have.

    Raises:
        ValueError: no `trace_on` before (TensorFlow's message), or no step while a default
            writer exists.
    """
    from . import summary

    with _lock:
        trace = _trace
    if trace is None:
        raise ValueError("Must enable trace before export through tf.summary.trace_on.")
    try:
        if not isinstance(name, str) or not name:
            raise ValueError(f"summary.trace_export: name must be a non-empty string: {name!r}")
        writer = summary.current_writer()
        if writer is None or not summary.should_record_summaries() or not trace.graph:
            return False
        step = summary.resolve_step(step, f"summary.trace_export({name!r})")
        with _lock:
            programs = list(trace.programs)
        writer._write_graph(graph_def(programs, name), step)
        return True
    finally:
        trace_off()


def _shape_proto(shape):
    from tensorboardX.proto.tensor_shape_pb2 import TensorShapeProto

    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(d)) for d in shape])


def _dtype_enum(dtype) -> int:
    """TensorFlow's DataType number of ``dtype`` (0, DT_INVALID, for anything else)."""
    try:
        return _dtypes.as_dtype(dtype).as_datatype_enum
    except TypeError:
        return 0


def graph_def(programs: list, name: str):
    """A TensorFlow ``GraphDef`` (tensorboardX's protocol buffer) of ``[(function name,
    Program)]``, each under the name scope ``name/function name`` (see the module docstring).
    """
    from tensorboardX.proto.attr_value_pb2 import AttrValue
    from tensorboardX.proto.graph_pb2 import GraphDef
    from tensorboardX.proto.node_def_pb2 import NodeDef
    from tensorboardX.proto.versions_pb2 import VersionDef

    nodes: list = []
    used: set = set()

    def node(scope: str, base: str, op: str, inputs=(), dtypes=(), shapes=None, device=None):
        label, n = f"{scope}/{base}", 1
        while label in used:
            label, n = f"{scope}/{base}_{n}", n + 1
        used.add(label)
        attr = {}
        if dtypes:
            attr["T"] = AttrValue(type=_dtype_enum(dtypes[0]))
        if shapes is not None:
            attr["_output_shapes"] = AttrValue(
                list=AttrValue.ListValue(shape=[_shape_proto(s) for s in shapes])
            )
        nodes.append(NodeDef(name=label, op=op, input=list(inputs), attr=attr, device=device))
        return label

    scopes: set = set()
    for fname, program in programs:
        scope, n = f"{name}/{fname}", 1
        while scope in scopes:
            scope, n = f"{name}/{fname}_{n}", n + 1
        scopes.add(scope)
        _program_nodes(program, scope, node)
    return GraphDef(node=nodes, versions=VersionDef(producer=22))


def _program_nodes(program, scope: str, node) -> None:
    shapes, dtypes = program._shapes, program._dtypes
    producer: dict = {}  # slot -> "node" or "node:k"

    def typed(slot):
        return [dtypes[slot]] if dtypes[slot] is not None else [], [shapes[slot]]

    for k in range(program.n_inputs):
        dt, sh = typed(k)
        producer[k] = node(scope, f"args_{k}", "Placeholder", dtypes=dt, shapes=sh)
    consts: dict = {}

    def source(r):
        if type(r) is int:
            if r not in producer:  # a value made outside the ops shown (none expected)
                dt, sh = typed(r)
                producer[r] = node(scope, "Value", "Placeholder", dtypes=dt, shapes=sh)
            return producer[r]
        if r not in consts:
            value = np.asarray(program.consts[r[1]][0])
            dtype = getattr(value.dtype, "name", None)
            consts[r] = node(scope, "Const", "Const", dtypes=[dtype], shapes=[value.shape])
        return consts[r]

    handles: dict = {}
    for ins in program.ops:
        kind = ins[0]
        if kind == "op":
            _, prim, refs, _params, outs, _saved = ins
            outs = (outs,) if type(outs) is int else tuple(outs)
            label = node(
                scope,
                prim.name,
                prim.name,
                inputs=[source(r) for r in refs],
                dtypes=[dtypes[o] for o in outs if dtypes[o] is not None],
                shapes=[shapes[o] for o in outs],
            )
            for i, o in enumerate(outs):
                producer[o] = label if i == 0 else f"{label}:{i}"
        elif kind == "read":
            variable = program.variables[ins[1]]
            if ins[1] not in handles:
                vname = variable.name.split(":")[0].replace("/", "_") or "Variable"
                handles[ins[1]] = node(scope, vname, "VarHandleOp")
            dt, sh = typed(ins[2])
            producer[ins[2]] = node(
                scope, "ReadVariableOp", "ReadVariableOp", [handles[ins[1]]], dt, sh
            )
        elif kind == "call":
            from ..function.tracing import arg_refs

            fn = ins[1]
            op = getattr(fn, "__name__", type(fn).__name__)
            label = node(scope, op, op, inputs=[source(r) for r in arg_refs(ins[2], [])])
            outs = [r for r in arg_refs(ins[3], []) if type(r) is int] if len(ins) > 3 else []
            for i, o in enumerate(outs):
                producer[o] = label if i == 0 else f"{label}:{i}"
    for i, r in enumerate(program.outputs):
        if r is None:
            continue
        dt, sh = typed(r) if type(r) is int else ([], None)
        node(scope, "Identity" if i == 0 else f"Identity_{i}", "Identity", [source(r)], dt, sh)
