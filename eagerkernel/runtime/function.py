"""Graph functions: `function` traces a Python function once per input signature and replays
the recorded program on later calls (follows `tf.function`).

How a call runs:

1. The arguments give a *signature*: the dtype, shape and device of every tensor, the
   identity of every Variable, the value of every other Python argument (and the device scope).
2. The first call with a signature *traces*: it runs the Python function on the real inputs,
   eagerly, while a `_Tracer` (a `Recorder`) writes down every primitive the dispatcher runs
   (the VJPs of a `GradientTape` inside too: they are primitives), every stateful op
   (`dispatch.stateful`: variable assignments, optimizer updates, random draws, metric
   updates, `print`), and every *guard*: each place where a traced tensor's value became a
   Python value (``bool()``, ``int()``, ``float()``, ``.numpy()``, ``__index__``, so Python
   ``if``/``while`` on tensors). The call's result is the eager result.
3. The trace becomes a `Program`: constants folded (an op whose inputs are all constants is
   its traced value), dead ops dropped, and the rest compiled into straight-line Python over
   raw arrays (one local per value, deleted after its last use, so memory is freed as early as
   eagerly and optimizers can still update variables in place). No Tensor, dtype check or
   dispatch per op. One pattern is fused there: ``reduce_sum(a * b)`` over every axis, whose
   product nothing else reads, becomes one pass without the product array, added in NumPy's
   pairwise order (`kernels.mul_sum`), so the value is still the eager one, bit for bit.
4. Later calls replay the program. A guard recomputes its value; if it differs from the
   trace's, the replay is abandoned (a program that changed state before that guard puts it
   back: variables and the random generator) and the call runs eagerly once more while being
   traced: a new *branch*, replayed from then on for calls whose guards take it. So a call's
   result is always the eager result; there is no AutoGraph and no ``tf.cond`` to write.

Calls made while a tape (or ``%%tape``'s profiler) records on this thread replay the program
op by op through the dispatcher (`Program.run_observed`), so the recorder sees every op:
gradients of any order through a function are exactly the eager ones. Inside another
function's trace, a function's Python code runs, so that the outer trace records its ops.

Deliberate differences from TensorFlow, documented on `function`: programs are specialized
on concrete shapes (a ``None`` dimension of an ``input_signature`` accepts any size, and each
new size is traced once); there is no XLA (``jit_compile=True`` is accepted and compiles to
the same program, with a warning).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import itertools
import math
import operator
import sys
import threading
import types
import typing
import warnings
import weakref
from collections.abc import Iterator

import numpy as np

from . import config as _config
from . import nest
from . import random as _random
from . import trace_types as _trace_types
from .core import context as _context
from .core import variable as _variable
from .core.composite import CompositeTensor
from .core.context import ACTIVE, Recorder
from .core.device import current_device
from .core.dispatch import dispatch, object_scalar, stateful
from .core.dtypes import as_dtype, string
from .core.errors import InvalidArgumentError
from .core.tensor import Tensor, make, to_tensor
from .core.variable import Variable
from .data.structure import TensorSpec
from .function_graph import AtomicFunction, FuncGraph, FunctionType
from .native import kernels as _kernels
from .observers import Observers

__all__ = ["ConcreteFunction", "Function", "Program", "function", "init_scope", "print_"]

_ctx = _context.context()
_concrete_uids = itertools.count(1)
_eager = _config._functions_eagerly
MAX_BRANCHES = 32  # traces per signature before the signature runs eagerly for good

_VARIABLE_ERROR = (
    "tf.function only supports singleton tf.Variables created on the first call. Make sure "
    "the tf.Variable is only created once or created outside tf.function. See "
    "https://www.tensorflow.org/guide/function#creating_tfvariables for more information."
)


# -- tracing ---------------------------------------------------------------------------------
#
# A value in a trace is a *ref*: an int is a slot (an input, an op's output, a variable's value
# read where the program reads it, an object a stateful call returned: a local of the compiled
# program), or ("c", k), the k-th captured constant.


class TracedParam:
    """A param of a traced op that is a value of the trace (conv2d's saved im2col columns)."""

    __slots__ = ("ref",)

    def __init__(self, ref):
        self.ref = ref


class TracedArg:
    """A tensor argument of a traced stateful call, in its template."""

    __slots__ = ("ref",)

    def __init__(self, ref):
        self.ref = ref


class TracedObject(TracedArg):
    """A Python object a traced stateful call returned (a Dataset iterator) and a later call
    takes: a slot of the program, passed as it is."""

    __slots__ = ()


# The output template of a call that ended an iteration (raised StopIteration).
_STOP = "<raises StopIteration>"
# Arguments that a stateful call would consume: read into a list first (`zip(grads, vars)`).
_ONE_SHOT = (zip, map, filter, enumerate, types.GeneratorType)


def _peek_created() -> int:
    """How many Variables were created so far in this process (the next creation's uid)."""
    return next(copy.copy(_variable._creation_order))


_tracing = threading.local()
# The op outputs of finished traces that are still alive (see `Function._trace`).
# By id: Tensors are not hashable.
_LEAKED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

_LEAKED_ERROR = (
    "{tensor!r} is out of scope and cannot be used here: it was computed while tracing a "
    "tf.function and escaped it (a global or an attribute). Use return values, explicit "
    "Python locals or TensorFlow collections to access it. Please see "
    "https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values "
    "for more information."
)


def _tracing_keys() -> list:
    """This thread's stack of ``(Function, signature key)`` being traced."""
    keys = getattr(_tracing, "keys", None)
    if keys is None:
        keys = _tracing.keys = []
    return keys


def _expand_extension_types(result):
    """``(outputs, rebuild)``: each ExtensionType in a function's result replaced by its
    Tensors (a flat list of the result's leaves), so that the program returns them, and the
    function that makes the result's structure again of those outputs (``spec=True``: of
    their specs); ``(result, None)`` when the result holds no ExtensionType (or one holding a
    ragged or sparse tensor, which keeps the signature eager)."""
    from .extension_type import ExtensionType, OutputTemplate

    leaves = nest.flatten(result)
    if not any(isinstance(x, ExtensionType) for x in leaves):
        return result, None
    templates = [OutputTemplate.of(x) if isinstance(x, ExtensionType) else None for x in leaves]
    if any(t is None and isinstance(x, ExtensionType) for x, t in zip(leaves, templates)):
        return result, None
    structure = nest.pack_sequence_as(result, [None] * len(leaves))
    flat: list = []
    for x, t in zip(leaves, templates):
        flat.extend(t.tensors(x) if t is not None else [x])

    def rebuild(outputs, spec=False):
        it = iter(outputs)
        made = []
        for t in templates:
            if t is None:
                made.append(next(it))
            else:
                made.append(t.build([next(it) for _ in range(t.n)], spec=spec))
        return nest.pack_sequence_as(structure, made)

    return flat, rebuild


def _output_tensor(observed: bool, x):
    """A traced function's output as its caller gets it: a new Tensor (the same one if
    ``observed``; a Variable stays itself), a Python number, string or NumPy value as a
    constant tensor."""
    if isinstance(x, (Variable, CompositeTensor)) or x is None:
        return x
    if isinstance(x, Tensor):
        if observed:
            return x
        return make(x._value, x._device)
    if isinstance(x, (bool, int, float, complex, str, bytes, np.generic, np.ndarray)):
        return to_tensor(x, None, "function")
    return x


class _Tracer(Recorder):
    """Writes down the ops, stateful calls and guards of one eager run of a function."""

    def __init__(self):
        self.outputs: list = []  # the Tensors its ops made
        self.instrs: list = []
        self.refs: dict = {}  # id(array) -> ref
        self.keep: list = []  # what `refs` holds ids of, alive while tracing
        self.values: list = []  # slot -> traced value
        self.devices: list = []  # slot -> Device (None for saved values)
        self.consts: list = []  # (value, device)
        self.variables: list = []
        self._var_index: dict = {}
        self.created: list = []  # Variables created while tracing (outside stateful ops)
        self.created_in_calls = 0  # Variables the traced stateful ops created
        self.custom_gradients = False  # a `custom_gradient` function ran inside
        self.opaque = False  # a stateful op returned a composite tensor: not replayable

    # refs
    def slot(self, value, device) -> int:
        k = len(self.values)
        self.values.append(value)
        self.devices.append(device)
        self.refs[id(value)] = k
        self.keep.append(value)
        return k

    def ref(self, t):
        value = t._value
        r = self.refs.get(id(value))
        if isinstance(t, Variable):
            # A read: a slot holding the value the variable has now (the tape's snapshot of
            # the read, used again by its VJP, maps to the same slot through the array).
            if type(r) is int:
                return r
            k = self._var_index.get(id(t))
            if k is None:
                k = self._var_index[id(t)] = len(self.variables)
                self.variables.append(t)
            r = self.slot(value, t._device)
            self.instrs.append(("read", k, r))
            return r
        if r is None:
            if _LEAKED.get(id(t)) is t:
                raise TypeError(_LEAKED_ERROR.format(tensor=t))
            r = ("c", len(self.consts))
            self.consts.append((value, t._device))
            self.refs[id(value)] = r
            self.keep.append(value)
        return r

    # the Recorder interface
    def record(self, prim, inputs, output, params, saved, seconds) -> None:
        if prim.fwd is None:
            # Recorded after the fact (`custom_gradient`): its ops were traced as they ran;
            # only a tape needs the record, for its hand-written gradient.
            self.custom_gradients = True
            return
        ins = tuple(self.ref(x) for x in inputs)
        if params:
            refs = self.refs
            params = {
                k: TracedParam(refs[id(v)]) if _is_value(v) and id(v) in refs else v
                for k, v in params.items()
            }
        if prim.n_out == 1:
            outs = self.slot(output._value, output._device)
            self.outputs.append(output)
        else:
            self.outputs.extend(output)
            outs = tuple(self.slot(o._value, o._device) for o in output)
        saved_slot = None if saved is None else self.slot(saved, None)
        self.instrs.append(("op", prim, ins, params, outs, saved_slot))

    def on_value(self, tensor, kind, value) -> None:
        r = self.ref(tensor)
        if type(r) is tuple and r[0] == "c":
            return  # a constant's value cannot change
        if kind == "array":
            value = np.array(value, copy=True)
        self.instrs.append(("guard", r, kind, value))

    def on_variable(self, variable) -> None:
        self.created.append(variable)

    def trace_call(self, fn, args, kwargs):
        """Runs the stateful op ``fn`` unobserved and records it as one step."""
        # `zip(grads, vars)` and other one-shot iterators: the call and the template each
        # read them
        args = tuple(list(a) if isinstance(a, _ONE_SHOT) else a for a in args)
        before = _peek_created()
        try:
            with _context.suspended():
                out = fn(*args, **kwargs)
        except StopIteration:  # the end of a pass over a Dataset: replays expect it too
            self.instrs.append(("call", fn, self._template((args, kwargs)), _STOP))
            raise
        finally:
            self.created_in_calls += _peek_created() - before
        arg_template = self._template((args, kwargs))
        out_template = self._out_template(out)
        self.instrs.append(("call", fn, arg_template, out_template))
        return out

    def _template(self, x):
        if isinstance(x, Variable):
            return x
        if isinstance(x, Tensor):
            return TracedArg(self.ref(x))
        if isinstance(x, dict):
            return {k: self._template(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            items = [self._template(v) for v in x]
            return type(x)(*items) if hasattr(type(x), "_fields") else type(x)(items)
        r = self.refs.get(id(x)) if not _literal(x) else None
        return TracedObject(r) if type(r) is int else x

    def _out_template(self, x):
        if isinstance(x, Variable) or _literal(x):
            return x
        if isinstance(x, CompositeTensor):
            # A RaggedTensor or SparseTensor from a stateful op (a Dataset's next element):
            # its component tensors are read by attribute, which a trace cannot follow, so
            # the signature runs its Python code on every call.
            self.opaque = True
            return x
        if isinstance(x, Tensor):
            return TracedArg(self.slot(x._value, x._device))
        if isinstance(x, dict):
            return {k: self._out_template(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            items = [self._out_template(v) for v in x]
            return type(x)(*items) if hasattr(type(x), "_fields") else type(x)(items)
        return TracedObject(self.slot(x, None))  # an object a later call may take


def _literal(x) -> bool:
    return x is None or isinstance(x, (bool, int, float, complex, str, bytes, type))


def _is_value(v) -> bool:
    return isinstance(v, (np.ndarray, np.generic)) or hasattr(v, "__cuda_array_interface__")


def arg_refs(template, out: list) -> list:
    """The refs of a call template's tensor arguments, in order."""
    if isinstance(template, TracedArg):
        out.append(template.ref)
    elif isinstance(template, dict):
        for v in template.values():
            arg_refs(v, out)
    elif isinstance(template, (list, tuple)):
        for v in template:
            arg_refs(v, out)
    return out


def _fill(template, values: Iterator, devices: Iterator):
    """``template`` with each `TracedArg` replaced by a Tensor of the next value (each
    `TracedObject` by the next value itself)."""
    if isinstance(template, TracedArg):
        device = next(devices)
        value = next(values)
        return value if type(template) is TracedObject else make(value, device)
    if isinstance(template, dict):
        return {k: _fill(v, values, devices) for k, v in template.items()}
    if isinstance(template, (list, tuple)) and not isinstance(template, Variable):
        items = [_fill(v, values, devices) for v in template]
        return (
            type(template)(*items) if hasattr(type(template), "_fields") else type(template)(items)
        )
    return template


def _flat_outputs(template, out, values: list) -> list:
    """The arrays of the Tensors in ``out`` where ``template`` has an `TracedArg` (the objects
    where it has an `TracedObject`)."""
    if isinstance(template, TracedArg):
        values.append(out if type(template) is TracedObject else out._value)
    elif isinstance(template, dict):
        for k, v in template.items():
            _flat_outputs(v, out[k], values)
    elif isinstance(template, (list, tuple)):
        for v, o in zip(template, out):
            _flat_outputs(v, o, values)
    return values


def _call_expecting_stop(fn, args, kwargs) -> list:
    """Replays a call that raised StopIteration while tracing."""
    try:
        fn(*args, **kwargs)
    except StopIteration:
        return []
    raise GuardMiss(-1, "no StopIteration")


# -- guards ------------------------------------------------------------------------------------


def _python_value(kind: str, value):
    """What ``kind(tensor)`` gave while tracing, computed from the replay's array."""
    if kind == "array":
        return value
    if hasattr(value, "get"):  # a CuPy array
        value = value.get()
    item = np.asarray(value).reshape(()).item()
    return {"bool": bool, "int": int, "index": int, "float": float, "complex": complex}[kind](item)


def _same(kind: str, a, b) -> bool:
    if kind != "array":
        return a == b or (a != a and b != b)  # NaN guards match NaN
    a = np.asarray(a.get() if hasattr(a, "get") else a)
    return (
        a.shape == b.shape
        and a.dtype == b.dtype
        and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    )


class GuardMiss(Exception):
    """A guard's value differs from the traced one: this program does not apply."""

    def __init__(self, index: int, value):
        super().__init__(index, value)
        self.index = index
        self.value = value


def _guard(index: int, kind: str, expected):
    def check(value):
        got = _python_value(kind, value)
        if not _same(kind, got, expected):
            raise GuardMiss(index, got)

    return check


# -- programs -----------------------------------------------------------------------------------


class Program:
    """One traced path through a function, compiled to straight-line Python over arrays.

    Attributes:
        ops: the live instructions, as ``(kind, ...)`` tuples (``"op"``, ``"call"``,
            ``"guard"``), in order.
        guards: ``[(position among the guards, kind, traced value)]``.
        source: the generated Python source; `listing` shows the ops one per line.
    """

    def __init__(self, ops, outputs, n_inputs, variables, consts, devices, shapes, dtypes):
        self.ops = ops
        self.outputs = outputs  # refs of the flat outputs (None: a Python value)
        self.n_inputs = n_inputs
        self.variables = variables  # the Variables its reads refer to, by index
        self.consts = consts  # (value, device) by index
        self.devices = devices  # slot -> Device
        self._shapes = shapes  # slot -> shape
        self._dtypes = dtypes  # slot -> DType
        self.guards = [(i, op[2], op[3]) for i, op in enumerate(self.ops) if op[0] == "guard"]
        first_effect = next((i for i, op in enumerate(self.ops) if op[0] == "call"), None)
        self.unsafe = first_effect is not None and any(
            op[0] == "guard" for op in self.ops[first_effect:]
        )
        self.branches: dict = {}  # (guard position, value) -> Program
        self.custom_gradients = False  # traced through a `custom_gradient` function
        self.structure = None  # the outputs' nesting, and their Python values (set by the
        self.py_leaves: list = []  # Function that traced it)
        self.rebuild = None  # ExtensionType outputs: makes them of the flat outputs
        self.source, self._run = _compile(self)

    def output_specs(self):
        """The outputs' structure with a `TensorSpec` for each tensor (a spec for a composite
        tensor, the value itself for a Python value): a concrete function's
        ``structured_outputs``."""
        flat = []
        for r, leaf in zip(self.outputs, self.py_leaves):
            if r is None:
                flat.append(_composite_spec(leaf) if isinstance(leaf, CompositeTensor) else leaf)
            elif type(r) is int:
                flat.append(TensorSpec(self._shapes[r], self._dtypes[r]))
            else:
                value = self.consts[r[1]][0]
                flat.append(TensorSpec(tuple(np.shape(value)), as_dtype(value.dtype)))
        out = nest.pack_sequence_as(self.structure, flat)
        return out if self.rebuild is None else self.rebuild(out, spec=True)

    @classmethod
    def from_trace(cls, tracer: _Tracer, n_inputs: int, outputs: list) -> Program:
        """The program of a trace: constants folded, dead ops dropped, compiled."""
        instrs, outputs = _fold(tracer, instrs=tracer.instrs, outputs=outputs)
        shapes = [tuple(getattr(v, "shape", ())) for v in tracer.values]
        dtypes = [
            as_dtype(v.dtype)
            if getattr(getattr(v, "dtype", None), "kind", "") in tuple("biufcO")
            else None
            for v in tracer.values
        ]
        return cls(
            _live(instrs, outputs),
            outputs,
            n_inputs,
            tracer.variables,
            tracer.consts,
            tracer.devices,
            shapes,
            dtypes,
        )

    def run(self, arrays: tuple) -> list:
        """The flat output values for the flat input arrays; raises `GuardMiss`."""
        if not self.unsafe:
            return self._run(arrays)
        saved = _state_of(self)
        try:
            return self._run(arrays)
        except GuardMiss:
            _restore(saved)
            raise

    def run_observed(self, tensors: list) -> list:
        """Runs the program op by op through the dispatcher, so this thread's recorders
        (tapes, the profiler) see every op; returns Tensors (Variables where the program
        returns a read). Raises `GuardMiss`, after putting state back as `run` does."""
        if not self.unsafe:
            return _run_observed(self, tensors)
        saved = _state_of(self)
        try:
            return _run_observed(self, tensors)
        except GuardMiss:
            _restore(saved)
            raise

    @property
    def n_ops(self) -> int:
        return sum(1 for op in self.ops if op[0] == "op")

    def listing(self) -> str:
        """The program, one line per op, stateful call and guard."""

        def show(r):
            if type(r) is int:
                return f"s{r}"
            return f"const{r[1]}"

        lines = []
        for ins in self.ops:
            if ins[0] == "op":
                _, prim, refs, _params, outs, _saved = ins
                outs = (outs,) if type(outs) is int else outs
                typed = ", ".join(
                    f"s{o}: {getattr(self._dtypes[o], 'name', '?')}{list(self._shapes[o])}"
                    for o in outs
                )
                lines.append(f"  {typed} = {prim.name}({', '.join(show(r) for r in refs)})")
            elif ins[0] == "read":
                lines.append(f"  s{ins[2]} = read {self.variables[ins[1]].name}")
            elif ins[0] == "guard":
                lines.append(f"  guard {ins[2]}({show(ins[1])}) == {ins[3]!r}")
            else:
                fn = ins[1]
                name = getattr(fn, "__qualname__", repr(fn))
                lines.append(f"  call {name}({', '.join(show(r) for r in arg_refs(ins[2], []))})")
        return f"{self.n_ops} ops:\n" + "\n".join(lines)


def _run_observed(program: Program, tensors: list) -> list:
    """Runs ``program`` op by op through the dispatcher (a tape records every op)."""
    env: dict = dict(enumerate(tensors))

    def get(r):
        if type(r) is int:
            return env[r]
        value, device = program.consts[r[1]]
        return make(value, device)

    guard_index = 0
    for ins in program.ops:
        kind = ins[0]
        if kind == "op":
            _, prim, refs, params, outs, _saved = ins
            p = {}
            for k, v in (params or {}).items():
                if isinstance(v, TracedParam):
                    t = env.get(v.ref) if type(v.ref) is int else get(v.ref)
                    if t is None:
                        continue  # a saved forward value: the VJP op recomputes it
                    p[k] = t._value if isinstance(t, Tensor) else t
                else:
                    p[k] = v
            out = dispatch(prim, tuple(get(r) for r in refs), p)
            if type(outs) is int:
                env[outs] = out
            else:
                for s, o in zip(outs, out):
                    env[s] = o
        elif kind == "read":
            env[ins[2]] = program.variables[ins[1]]
        elif kind == "guard":
            _guard(guard_index, ins[2], ins[3])(get(ins[1])._value)
            guard_index += 1
        else:
            _, fn, arg_t, out_t = ins
            values = [get(r) for r in arg_refs(arg_t, [])]
            args, kwargs = _fill(
                arg_t,
                iter([t._value if isinstance(t, Tensor) else t for t in values]),
                iter([t._device if isinstance(t, Tensor) else None for t in values]),
            )
            if out_t is _STOP:
                _call_expecting_stop(fn, args, kwargs)
                continue
            result = fn(*args, **kwargs)
            slots = arg_refs(out_t, [])
            for s, value in zip(slots, _flat_outputs(out_t, result, [])):
                env[s] = value if program.devices[s] is None else make(value, program.devices[s])
    out = [None if r is None else get(r) for r in program.outputs]
    return [make(t._value, t._device) if isinstance(t, Variable) else t for t in out]


def _fold(tracer: _Tracer, instrs: list, outputs: list):
    """Replaces every op whose inputs are all constants by its traced value."""
    folded: dict = {}  # slot -> const ref

    def sub(r):
        return folded.get(r, r) if type(r) is int else r

    out = []
    for ins in instrs:
        kind = ins[0]
        if kind == "op":
            _, prim, refs, params, outs, saved = ins
            refs = tuple(sub(r) for r in refs)
            if params:
                params = {
                    k: (TracedParam(sub(v.ref)) if isinstance(v, TracedParam) else v)
                    for k, v in params.items()
                }
            dynamic = any(type(r) is int for r in refs) or any(
                isinstance(v, TracedParam) and type(v.ref) is int for v in (params or {}).values()
            )
            if not dynamic:
                for s in (outs,) if type(outs) is int else outs:
                    folded[s] = _const(tracer, s)
                if saved is not None:
                    folded[saved] = _const(tracer, saved)
                continue
            out.append(("op", prim, refs, params, outs, saved))
        elif kind == "guard":
            r = sub(ins[1])
            if type(r) is tuple and r[0] == "c":
                continue
            out.append(("guard", r, ins[2], ins[3]))
        elif kind == "read":
            out.append(ins)
        else:
            _, fn, arg_t, out_t = ins
            out.append(("call", fn, _map_args(arg_t, sub), out_t))
    return out, [sub(r) if r is not None else None for r in outputs]


def _const(tracer: _Tracer, slot: int):
    r = ("c", len(tracer.consts))
    tracer.consts.append((tracer.values[slot], tracer.devices[slot]))
    return r


def _map_args(template, sub):
    if isinstance(template, TracedArg):
        return type(template)(sub(template.ref))
    if isinstance(template, dict):
        return {k: _map_args(v, sub) for k, v in template.items()}
    if isinstance(template, (list, tuple)) and not isinstance(template, Variable):
        items = [_map_args(v, sub) for v in template]
        return (
            type(template)(*items) if hasattr(type(template), "_fields") else type(template)(items)
        )
    return template


def _uses(ins) -> list:
    kind = ins[0]
    if kind == "dot":
        return list(ins[1])
    if kind == "skip":
        return []
    if kind == "op":
        used = list(ins[2])
        if ins[3]:
            used += [v.ref for v in ins[3].values() if isinstance(v, TracedParam)]
        return used
    if kind == "guard":
        return [ins[1]]
    if kind == "read":
        return []
    return arg_refs(ins[2], [])


def _defs(ins) -> list:
    if ins[0] == "op":
        outs = ins[4]
        defs = [outs] if type(outs) is int else list(outs)
        if ins[5] is not None:
            defs.append(ins[5])
        return defs
    if ins[0] == "call":
        return arg_refs(ins[3], [])
    if ins[0] == "read":
        return [ins[2]]
    return []


def _live(instrs: list, outputs: list) -> list:
    """Drops the ops whose values nothing needs (stateful calls and guards always run)."""
    needed = {r for r in outputs if type(r) is int}
    keep = []
    for ins in reversed(instrs):
        if ins[0] in ("op", "read") and not any(d in needed for d in _defs(ins)):
            continue
        keep.append(ins)
        needed.update(r for r in _uses(ins) if type(r) is int)
    keep.reverse()
    return keep


# Dot products: ``reduce_sum(a * b)`` over every axis, where the product feeds nothing else,
# compiles to one pass that multiplies and adds without the product array
# (`kernels.mul_sum`), in NumPy's pairwise order: the value is the eager one bit for bit.
# Eagerly the product has been computed before reduce_sum is called, so a trace is where the
# pattern can be seen whole. Arrays the kernel declines (strided, no C extension) take the
# multiply and the sum.
_DOT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _dot(a, b, axis):
    """``reduce_sum(a * b, axis)`` for two arrays of one shape, ``axis`` every axis or None."""
    from .native import kernels
    from .ops.reduction import _sum_fwd

    out = kernels.mul_sum(a, b)
    return _sum_fwd(np, a * b, axis, False) if out is None else out


def _dot_fusions(program: Program) -> dict:
    """``{position of a Mul: position of the Sum}`` for each fusable ``reduce_sum(a * b)``."""
    from .ops.elementwise import _mul
    from .ops.reduction import _sum

    ops = program.ops
    users: dict = {}
    for i, ins in enumerate(ops):
        for r in _uses(ins):
            if type(r) is int:
                users.setdefault(r, []).append(i)
    outputs = {r for r in program.outputs if type(r) is int}
    fused = {}
    for i, ins in enumerate(ops):
        if ins[0] != "op" or ins[1] is not _mul or type(ins[4]) is not int:
            continue
        refs, product = ins[2], ins[4]
        at = users.get(product, ())
        if product in outputs or len(at) != 1 or _device_of(program, refs).xp is not np:
            continue
        j = at[0]
        if ops[j][0] != "op":  # read by a guard or a stateful call
            continue
        _, prim, _refs, params, _outs, _saved = ops[j]
        shape = program._shapes[product]
        if (
            prim is not _sum
            or params["keepdims"]
            or params["axis"] not in (None, tuple(range(len(shape))))
            or program._dtypes[product] is None
            or np.dtype(program._dtypes[product].as_numpy_dtype) not in _DOT_DTYPES
            or any(_shape_of(program, r) != shape for r in refs)
            # a stateful call in between could update an operand in place: multiply first
            or any(op[0] == "call" for op in ops[i + 1 : j])
        ):
            continue
        fused[i] = j
    return fused


def _object_result(array_op):
    """``array_op`` for string arrays: a 0-d result as a 0-d object array, as eagerly."""

    def run(a, b):
        out = array_op(a, b)
        return object_scalar(out) if type(out) is bytes else out

    return run


def _shape_of(program: Program, r) -> tuple:
    if type(r) is int:
        return program._shapes[r]
    return tuple(getattr(program.consts[r[1]][0], "shape", ()))


def _compile(program: Program):
    """The program as the source and function of straight-line Python."""
    namespace: dict = {"GuardMiss": GuardMiss, "DOT": _dot}
    lines = []
    ops = list(program.ops)
    for i, j in _dot_fusions(program).items():  # the Sum reads the Mul's operands
        ops[j] = ("dot", ops[i][2], ops[j][4], ops[j][3]["axis"])
        ops[i] = ("skip",)
    # Last use of each slot, to `del` it there (frees memory, keeps in-place updates possible).
    last: dict = {}
    for i, ins in enumerate(ops):
        for r in _uses(ins):
            if type(r) is int:
                last[r] = i
    outputs = {r for r in program.outputs if type(r) is int}
    op_slots: set = set()  # slots an op computed (their arrays belong to the program)

    def name(r) -> str:
        if type(r) is int:
            return f"s{r}"
        k = r[1]  # ("c", k)
        namespace[f"C{k}"] = program.consts[k][0]
        return f"C{k}"

    for i, ins in enumerate(ops):
        kind = ins[0]
        if kind == "skip":
            continue
        if kind == "dot":
            _, refs, out, axis = ins
            lhs = f"s{out}" if out in last or out in outputs else "_"
            lines.append(f"{lhs} = DOT({', '.join(name(r) for r in refs)}, {axis!r})")
            op_slots.add(out)
        elif kind == "op":
            _, prim, refs, params, outs, saved = ins
            args = [name(r) for r in refs]
            static = {k: v for k, v in (params or {}).items() if not isinstance(v, TracedParam)}
            dynamic = {k: v.ref for k, v in (params or {}).items() if isinstance(v, TracedParam)}
            xp = _device_of(program, refs).xp
            reuse = _reusable(program, ins, i, last, outputs, op_slots, xp)
            if reuse is not None:
                fn = _write_into_dead(_UFUNCS[prim.array_op], reuse)
            elif prim.array_op is not None and not params and len(refs) == 2:
                fn = prim.array_op
                if type(outs) is int and program._dtypes[outs] is string:
                    fn = _object_result(fn)  # strings: NumPy gives 0-d results as bytes
            elif static:
                fn = functools.partial(prim.fwd, xp, **static)
            else:
                fn = functools.partial(prim.fwd, xp)
            namespace[f"F{i}"] = fn
            call = f"F{i}({', '.join(args + [f'{k}={name(r)}' for k, r in dynamic.items()])})"
            targets = [outs] if type(outs) is int else list(outs)
            lhs = ", ".join(f"s{s}" if s in last or s in outputs else "_" for s in targets)
            if type(outs) is not int:
                lhs += "," if len(targets) == 1 else ""
            if prim.saves:
                keep_saved = saved is not None and saved in last
                lhs = f"({lhs}), {f's{saved}' if keep_saved else '_'}"
            lines.append(f"{lhs} = {call}")
            op_slots.update(targets)
        elif kind == "read":
            namespace[f"V{ins[1]}"] = program.variables[ins[1]]
            lines.append(f"s{ins[2]} = V{ins[1]}._value")
        elif kind == "guard":
            namespace[f"G{i}"] = _guard(
                len([1 for o in ops[:i] if o[0] == "guard"]), ins[2], ins[3]
            )
            lines.append(f"G{i}({name(ins[1])})")
        else:
            _, fn, arg_t, out_t = ins
            refs = arg_refs(arg_t, [])
            outs = arg_refs(out_t, [])
            namespace[f"H{i}"] = _host_call(
                fn,
                arg_t,
                out_t,
                [program.devices[r] if type(r) is int else _device_of(program, [r]) for r in refs],
            )
            call = f"H{i}({', '.join(name(r) for r in refs)})"
            if outs:
                lhs = ", ".join(f"s{s}" if s in last or s in outputs else "_" for s in outs)
                lines.append(f"{lhs}, = {call}")
            else:
                lines.append(call)
        dead = sorted(
            r for r in _uses(ins) if type(r) is int and last.get(r) == i and r not in outputs
        )
        if dead:
            lines.append("del " + ", ".join(f"s{r}" for r in sorted(set(dead))))
    inputs = ", ".join(f"s{k}" for k in range(program.n_inputs))
    body = ["def program(inputs):", f"    {inputs}{',' if program.n_inputs else ''} = inputs"]
    if not program.n_inputs:
        body = ["def program(inputs):"]
    body += ["    " + line for line in lines]
    body.append(
        "    return [" + ", ".join("None" if r is None else name(r) for r in program.outputs) + "]"
    )
    source = "\n".join(body) + "\n"
    code = compile(source, "<ek.function program>", "exec")
    exec(code, namespace)  # our own generated source, never read from a file
    return source, namespace["program"]


# Buffer reuse: a binary elementwise op whose input dies at it writes its result into that
# input's array (`ufunc(a, b, out=a)`), when the trace says the shapes and dtypes match and, at
# run time, nothing else references the array (no view of it, no caller holding it).
_UFUNCS = {
    operator.add: np.add,
    operator.sub: np.subtract,
    operator.mul: np.multiply,
    _kernels.multiply: np.multiply,  # Mul's array function (big products on kernel threads)
    operator.truediv: np.true_divide,
}


# Below this many elements a fresh array costs less than the checks (small-op chains keep the
# C operator call).
_REUSE_MIN_SIZE = 1 << 14


def _reusable(program: Program, ins, i: int, last: dict, outputs: set, op_slots: set, xp):
    """The position (0 or 1) of an input of op ``ins`` whose array the op may write into."""
    _, prim, refs, params, outs, _saved = ins
    if prim.array_op not in _UFUNCS or params or xp is not np or type(outs) is not int:
        return None
    if refs[0] == refs[1]:
        return None
    out_shape, out_dtype = program._shapes[outs], program._dtypes[outs]
    for pos, r in enumerate(refs):
        if (
            type(r) is int
            and r in op_slots
            and last.get(r) == i
            and r not in outputs
            and program._shapes[r] == out_shape
            and program._dtypes[r] == out_dtype
            and math.prod(out_shape) >= _REUSE_MIN_SIZE
        ):
            return pos
    return None


def _write_into_dead(ufunc, pos: int):
    def run(a, b):
        buf = b if pos else a
        if (
            type(buf) is np.ndarray
            and sys.getrefcount(buf) <= _UNSHARED
            and buf.base is None
            and buf.flags.writeable
        ):
            return ufunc(a, b, out=buf)
        return ufunc(a, b)

    return run


def _unshared_count() -> int:
    """The reference count `_write_into_dead` sees for an array only the program holds:
    measured through the same call shape, since it depends on the interpreter."""
    seen = []

    def probe(a, b):
        buf = a
        seen.append(sys.getrefcount(buf))
        return a

    namespace = {"P": probe, "np": np}
    exec(
        compile("def program():\n    s0 = np.empty(2)\n    s1 = P(s0, 1.0)\n", "<probe>", "exec"),
        namespace,
    )
    namespace["program"]()
    return seen[0]


_UNSHARED = _unshared_count()


def _device_of(program: Program, refs):
    from .core.device import CPU

    for r in refs:
        d = program.devices[r] if type(r) is int else program.consts[r[1]][1]
        if d is not None:
            return d
    return CPU


def _host_call(fn, arg_t, out_t, devices):
    if out_t is _STOP:

        def call(*values):
            args, kwargs = _fill(arg_t, iter(values), iter(devices))
            return _call_expecting_stop(fn, args, kwargs)

        return call

    def call(*values):
        args, kwargs = _fill(arg_t, iter(values), iter(devices))
        out = fn(*args, **kwargs)
        return _flat_outputs(out_t, out, [])

    return call


def _state_of(program: Program) -> tuple:
    """Everything a program's stateful calls may change, to put back if a guard misses.

    Holding the arrays is enough: assignments replace them and optimizers copy arrays that
    are referenced elsewhere (copy-on-write) instead of writing into them.
    """
    variables = {id(v): v for v in program.variables}
    for ins in program.ops:
        if ins[0] == "call":
            for obj in nest.flatten(ins[2]):
                for v in _variables_of(obj):
                    variables[id(v)] = v
    return (
        [(v, v._value) for v in variables.values()],
        _random._generator.bit_generator.state,
    )


def _variables_of(obj) -> list:
    if isinstance(obj, Variable):
        return [obj]
    owner = getattr(obj, "__self__", None)  # a bound method: its object's state
    for x in (obj, owner):
        vs = getattr(x, "variables", None) if x is not None else None
        if vs is not None and not isinstance(x, type):
            try:
                vs = vs() if callable(vs) and not isinstance(vs, list) else vs
                return [v for v in vs if isinstance(v, Variable)]
            except TypeError:
                return []
    return []


def _restore(saved: tuple) -> None:
    values, rng = saved
    for v, value in values:
        v._value = value
    _random._generator.bit_generator.state = rng


# -- signatures -------------------------------------------------------------------------------


def _leaf_key(x, arrays: list, seen: dict, tensors: list):
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
        return (static, *(_leaf_key(t, arrays, seen, tensors) for t in parts))
    tracing_type = getattr(x, "__tf_tracing_type__", None)
    if callable(tracing_type):  # a `TraceType` the object chooses (TensorFlow's protocol)
        return ("tt", tracing_type(None))
    try:
        hash(x)
    except TypeError:  # by identity (an unhashable object; the entry keeps it alive)
        return ("id", id(x))
    return ("obj", x)


def _to_tensors(structure):
    """NumPy arrays in the arguments become Tensors, as TensorFlow converts them."""
    if isinstance(structure, np.ndarray):
        return to_tensor(structure, None, "function")
    if isinstance(structure, (list, tuple)) and not isinstance(structure, Tensor):
        items = [_to_tensors(s) for s in structure]
        if hasattr(type(structure), "_fields"):
            return type(structure)(*items)
        return type(structure)(items)
    if isinstance(structure, dict):
        return {k: _to_tensors(v) for k, v in structure.items()}
    return structure


def _spec_of(x):
    if isinstance(x, Tensor):
        return TensorSpec(tuple(x._value.shape), x.dtype)
    if isinstance(x, CompositeTensor):
        return _composite_spec(x)
    return x


def _composite_spec(x):
    """The `RaggedTensorSpec` / `SparseTensorSpec` / ExtensionType ``Spec`` of a composite
    argument."""
    from .extension_type import ExtensionType
    from .ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec
    from .sparse.sparse_tensor import SparseTensorSpec

    if isinstance(x, ExtensionType):
        return x._type_spec
    if isinstance(x, RaggedTensor):
        return RaggedTensorSpec.from_value(x)
    return SparseTensorSpec.from_value(x)


def _spec_types() -> tuple:
    """The spec classes an ``input_signature`` may hold."""
    from .extension_type import ExtensionTypeSpec
    from .ragged.ragged_tensor import RaggedTensorSpec
    from .sparse.sparse_tensor import SparseTensorSpec

    return (TensorSpec, RaggedTensorSpec, SparseTensorSpec, ExtensionTypeSpec)


def _is_spec(x) -> bool:
    return isinstance(x, _spec_types())


class _Entry:
    """The traces of one signature: a root program and, through its branches, the others."""

    __slots__ = ("eager", "keep", "n_traces", "program", "specs", "verify")

    def __init__(self):
        self.program = None
        self.n_traces = 0
        self.eager = False  # too many branches: the signature runs its Python code
        self.specs = None
        self.keep: list = []
        # The first trace created variables: the next call traces again, to check that it
        # creates none (TensorFlow's rule: variables are created on the first call only).
        self.verify = False


class Function:
    """A Python function that traces once per input signature and replays its program
    (follows `tf.function`; made by `function`).

    Attributes:
        python_function: the wrapped Python function.
        input_signature: the `TensorSpec` list given, or None.
        trace_observers: (class attribute) an `Observers` list told
            ``function_traced(function, program)`` after each new trace, with the `Program`
            it made (`ek.summary.trace_on` collects the graphs this way).
    """

    trace_observers: typing.ClassVar[Observers] = Observers()

    def __init__(
        self,
        python_function,
        name: str | None = None,
        input_signature=None,
        reduce_retracing: bool = False,
        jit_compile=None,
    ):
        self.python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self.input_signature = None if input_signature is None else list(input_signature)
        self.reduce_retracing = bool(reduce_retracing)
        self.jit_compile = jit_compile
        self._cache: dict = {}
        self._py_signature = False  # inspect.Signature, None if it has none; False: not yet
        self._n_traces = 0
        self._lock = threading.Lock()
        self._bound: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        # Ragged/sparse specs of `get_concrete_function` calls (`saved_model.save` refuses
        # them: their programs are made per row partition, at calls with values).
        self._composite_spec_requests: list = []
        functools.update_wrapper(self, python_function)
        if self.input_signature is not None:
            for spec in nest.flatten(self.input_signature):
                if not _is_spec(spec):
                    raise TypeError(
                        f"function {self._name}: input_signature must hold TensorSpecs, "
                        f"RaggedTensorSpecs, SparseTensorSpecs or ExtensionType Specs, got "
                        f"{spec!r}."
                    )

    @property
    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"<ek.function {self._name}: {self._n_traces} trace(s)>"

    # methods of classes: one Function (one cache) per instance, as TensorFlow does
    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        try:
            bound = self._bound.get(instance)
        except TypeError:  # not weakly referenceable
            bound = None
        if bound is None:
            bound = Function(
                self.python_function.__get__(instance, owner),
                self._name,
                self.input_signature,
                self.reduce_retracing,
                self.jit_compile,
            )
            with contextlib.suppress(TypeError):  # not weakly referenceable: not cached
                self._bound[instance] = bound
        return bound

    def experimental_get_tracing_count(self) -> int:
        """How many times the Python function was traced (follows TF's method of the name):
        once per new signature, and once per new guard outcome (a new branch)."""
        return self._n_traces

    # -- calling -----------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if _eager[0]:
            return self.python_function(*args, **kwargs)
        # Under a tape or the profiler, the program runs op by op through the dispatcher, so
        # they see every op (gradients of any order, as eagerly); inside another function's
        # trace, the Python code runs, so that trace records it.
        observed = bool(ACTIVE and _ctx.recorders)
        if observed and any(hasattr(r, "trace_call") for r in _ctx.recorders):
            tracing = _tracing_keys()
            if any(f is self for f, _ in tracing):
                key = self._signature(args, kwargs)[3]
                if (self, key) in tracing:
                    raise RecursionError(
                        f"function {self._name} calls itself, while being traced, with the "
                        "same input signature: its trace would never end (TensorFlow does not "
                        "support recursive tf.functions; recurse on Python values, or write a "
                        "loop)."
                    )
            return self.python_function(*args, **kwargs)
        args, kwargs, flat, key, arrays, tensors = self._signature(args, kwargs)
        entry = self._cache.get(key)
        if entry is None:
            entry = self._cache[key] = _Entry()
            entry.specs = nest.pack_sequence_as((args, kwargs), [_spec_of(x) for x in flat])
            # What the key names by identity stays alive as long as the entry, so that no
            # other object can come to have its id.
            entry.keep = [x for x in flat if isinstance(x, Variable) or not isinstance(x, Tensor)]
        if not observed:
            return self._run(entry, args, kwargs, tensors, arrays, False, key)
        # One "function" scope around the call: `%%tape` shows it as one row.
        ctx = _context.context()
        before = ctx.scopes
        try:  # left even when a Ctrl-C lands at its edge (see `push_scope`)
            _context.push_scope(self._name, "function")
            return self._run(entry, args, kwargs, tensors, arrays, True, key)
        finally:
            ctx.scopes = before
            _context.pop_scope(before)

    def _run(self, entry: _Entry, args, kwargs, tensors, arrays, observed: bool, key=None):
        """Runs the entry's program (or the branch its guards lead to), tracing what is new;
        ``observed``: op by op through the dispatcher, for this thread's recorders."""
        if entry.eager:
            return self.python_function(*args, **kwargs)
        if entry.program is None or entry.verify:
            return self._trace(entry, None, None, args, kwargs, tensors, key)
        program = entry.program
        if observed and program.custom_gradients:
            # A tape must see the hand-written gradients, which only the Python code records.
            return self.python_function(*args, **kwargs)
        while True:
            try:
                values = program.run_observed(tensors) if observed else program.run(arrays)
                break
            except GuardMiss as miss:
                branch = (miss.index, hashable_value(miss.value))
                nxt = program.branches.get(branch)
                if nxt is None:
                    return self._trace(entry, program, branch, args, kwargs, tensors, key)
                program = nxt
        return self._outputs(program, values)

    def _outputs(self, program: Program, values: list):
        flat = []
        for r, value, leaf in zip(program.outputs, values, program.py_leaves):
            if r is None:
                flat.append(leaf)
            elif isinstance(value, Tensor):  # an observed run's output
                flat.append(value)
            elif type(r) is int:
                flat.append(make(value, program.devices[r]))
            else:
                flat.append(make(value, program.consts[r[1]][1]))
        out = nest.pack_sequence_as(program.structure, flat)
        return out if program.rebuild is None else program.rebuild(out)

    def _trace(self, entry: _Entry, parent, branch, args, kwargs, tensors, key=None):
        """Runs the Python function eagerly while tracing it; the trace becomes the entry's
        program, or the branch ``branch`` of ``parent``."""
        tracer = _Tracer()
        for t in tensors:
            tracer.slot(t._value, t._device)
        tracing = _tracing_keys()
        tracing.append((self, key))
        _context.push_recorder(tracer)
        try:
            result = self.python_function(*args, **kwargs)
        finally:
            _context.pop_recorder(tracer)
            tracing.pop()
        # The trace's own tensors stay behind it (a global, an attribute): a later trace that
        # captures one raises, as TensorFlow's out-of-scope graph tensors do. The caller gets
        # new Tensors for the returned values (the same ones when a tape records the call:
        # its gradients start from them), and Python numbers and strings returned become
        # tensors, as TensorFlow converts a function's outputs.
        observed = bool(ACTIVE and _ctx.recorders)
        result, rebuild = _expand_extension_types(result)
        returned = {id(t) for t in nest.flatten(result) if isinstance(t, Tensor)}
        result = nest.map_structure(functools.partial(_output_tensor, observed), result)
        _LEAKED.update((id(t), t) for t in tracer.outputs if not (observed and id(t) in returned))
        tracer.outputs.clear()
        if tracer.opaque or any(isinstance(x, CompositeTensor) for x in nest.flatten(result)):
            # See `_Tracer._out_template`; a RaggedTensor or SparseTensor result is built by
            # Python code around its values' ops, which the program cannot rebuild: the
            # signature runs the Python function on every call (its result is the eager one).
            entry.eager = True
        created = bool(tracer.created) or tracer.created_in_calls > 0
        if created and self._n_traces > 0:
            raise ValueError(_VARIABLE_ERROR)
        flat = nest.flatten(result)
        refs = []
        leaves = []
        for x in flat:
            if isinstance(x, Tensor) and not isinstance(x, Variable):
                refs.append(tracer.ref(x))
                leaves.append(None)
            else:
                refs.append(None)
                leaves.append(x)
        program = Program.from_trace(tracer, len(tensors), refs)
        program.custom_gradients = tracer.custom_gradients
        program.structure = nest.pack_sequence_as(result, [None] * len(flat))
        program.py_leaves = leaves
        program.rebuild = rebuild
        with self._lock:
            self._n_traces += 1
            entry.n_traces += 1
            if parent is None:
                # Variables made by user code (not by an optimizer's first step): check that
                # the next call does not make them again.
                entry.verify = bool(tracer.created) and not entry.verify
                entry.program = program
            else:
                parent.branches[branch] = program
            if entry.n_traces >= MAX_BRANCHES and not entry.eager:
                entry.eager = True
                warnings.warn(
                    f"function {self._name}: {entry.n_traces} traces for one input signature "
                    "(Python values of tensors change on every call); it now runs eagerly for "
                    "this signature.",
                    stacklevel=3,
                )
        if Function.trace_observers:  # outside the lock: observers may call the function
            Function.trace_observers.notify("function_traced", self, program)
        return result if rebuild is None else rebuild(result)

    def _canonical(self, args: tuple, kwargs: dict) -> tuple:
        """The arguments bound to the Python signature, defaults filled in: ``f(x, True)``
        and ``f(x, training=True)`` are one signature. Raises TypeError as Python does."""
        sig = self._py_signature
        if sig is False:
            try:
                sig = inspect.signature(self.python_function)
            except (TypeError, ValueError):
                sig = None
            self._py_signature = sig
        if sig is None or (not kwargs and len(args) == self._n_plain(sig)):
            return args, kwargs
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        return bound.args, bound.kwargs

    @staticmethod
    def _n_plain(sig) -> int:
        """How many positional parameters ``sig`` has, -1 if it has *args or keyword-only."""
        n = 0
        for p in sig.parameters.values():
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                n += 1
            else:
                return -1
        return n

    def _bind(self, args: tuple, kwargs: dict) -> tuple:
        """The arguments as the input signature's tensors (TF converts and checks them)."""
        signature = self.input_signature
        if kwargs:
            params = list(inspect.signature(self.python_function).parameters)
            bound = inspect.signature(self.python_function).bind(*args, **kwargs)
            args = tuple(bound.arguments[p] for p in params if p in bound.arguments)
        if len(args) != len(signature):
            raise TypeError(
                f"Binding inputs to tf.function `{self._name}` failed: the input_signature has "
                f"{len(signature)} argument(s), the call gave {len(args)}."
            )
        out = []
        for k, (arg, spec) in enumerate(zip(args, signature)):
            flat_spec = nest.flatten(spec)
            flat_arg = [arg] if isinstance(spec, TensorSpec) else nest.flatten(arg)
            if len(flat_arg) != len(flat_spec):
                raise TypeError(
                    f"Binding inputs to tf.function `{self._name}` failed: argument {k} has "
                    f"{len(flat_arg)} component(s), its spec {spec!r} has {len(flat_spec)}."
                )
            converted = []
            for a, s in zip(flat_arg, flat_spec):
                if not isinstance(s, TensorSpec):  # a RaggedTensorSpec or SparseTensorSpec
                    if not (isinstance(a, CompositeTensor) and s.is_compatible_with(a)):
                        raise TypeError(
                            f"Binding inputs to tf.function `{self._name}` failed due to `Can "
                            f"not cast {_describe_value(a)} to {s!r}`."
                        )
                    converted.append(a)
                    continue
                if not isinstance(a, Tensor):
                    try:
                        a = to_tensor(a, s.dtype._np, self._name)
                    except (TypeError, ValueError) as exc:
                        raise TypeError(
                            f"Binding inputs to tf.function `{self._name}` failed due to "
                            f"`{exc}`: argument {k} cannot be converted to {s!r}."
                        ) from None
                if not s.is_compatible_with(a):
                    raise TypeError(
                        f"Binding inputs to tf.function `{self._name}` failed due to `Can not "
                        f"cast {TensorSpec(tuple(a._value.shape), a.dtype)!r} to {s!r}`."
                    )
                converted.append(a)
            out.append(nest.pack_sequence_as(spec, converted))
        return tuple(out)

    # -- concrete functions ----------------------------------------------------------------------
    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The concrete function of one signature (follows TF's method of the name).

        With tensors (or Python values), the function is traced by calling it on them (so
        its effects happen, unlike TensorFlow, which traces symbolically); with `TensorSpec`s
        (or none, given an ``input_signature``), the trace happens at the concrete function's
        first call.
        """
        if not args and not kwargs and self.input_signature is not None:
            args = tuple(self.input_signature)
        elif self.input_signature is None:
            args, kwargs = self._canonical(args, kwargs)
        flat = nest.flatten((args, kwargs))
        if any(_is_spec(x) for x in flat):
            composite = [x for x in flat if _is_spec(x) and not isinstance(x, TensorSpec)]
            if composite:
                self._composite_spec_requests.append(composite[0])
            return ConcreteFunction(self, (args, kwargs), None)
        before = dict(self._cache)
        self(*args, **kwargs)
        entries = [e for k, e in self._cache.items() if k not in before or before[k] is not e]
        entry = entries[0] if entries else self._entry_for(args, kwargs)
        return ConcreteFunction(self, entry.specs, entry)

    def _entry_for(self, args, kwargs):
        return self._cache[self._signature(args, kwargs)[3]]

    def _signature(self, args: tuple, kwargs: dict) -> tuple:
        """``(args, kwargs, flat leaves, cache key, input arrays, input tensors)`` of a call:
        arguments bound (to the input signature, else the Python signature) and converted
        (NumPy arrays to tensors), the key made of the device, the tensors' dtypes, shapes
        and devices, the Variables' identities and the other values."""
        if self.input_signature is not None:
            args = self._bind(args, kwargs)
            kwargs = {}
        else:
            args, kwargs = self._canonical(args, kwargs)
        args = _to_tensors(args)
        if kwargs:
            kwargs = _to_tensors(kwargs)
        flat = nest.flatten((args, kwargs))
        arrays: list = []
        tensors: list = []
        seen: dict = {}
        key = (current_device(), *(_leaf_key(x, arrays, seen, tensors) for x in flat))
        return args, kwargs, flat, key, arrays, tensors

    def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str:
        """Every traced signature, as TensorFlow prints them: the call, its arguments'
        dtypes and shapes, and what it returns."""
        blocks = []
        for c in self.concrete_functions:
            params = c._parameters()
            lines = [f"{self._name}({', '.join(n for n, _, _ in params)})", "  Args:"]
            lines += [f"    {n}: {_short(a)}" for n, a, _ in params]
            lines += ["  Returns:", f"    {_short(c.structured_outputs)}"]
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks)

    @property
    def concrete_functions(self) -> list:
        return [ConcreteFunction(self, e.specs, e) for e in self._cache.values() if e.program]


def hashable_value(value):
    """``value`` as a dict key: an array by its shape, dtype and bytes; else itself."""
    if isinstance(value, np.ndarray):
        return (value.shape, value.dtype.str, value.tobytes())
    return value


class ConcreteFunction:
    """One signature of a `Function` and its traced programs (follows
    `tf.types.experimental.ConcreteFunction`)."""

    def __init__(self, function: Function, specs, entry: _Entry | None):
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
            flat = [x for x in nest.flatten(spec) if _is_spec(x)]
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
        tensor_params = [n for n, s, _ in params if any(_is_spec(x) for x in nest.flatten(s))]
        if len(args) > len(tensor_params):
            raise TypeError(
                f"{self.name}(): takes {len(tensor_params)} tensor argument(s) "
                f"({', '.join(tensor_params)}), got {len(args)}."
            )
        given = dict(zip(tensor_params, args))
        for k, v in kwargs.items():
            if k not in tensor_params:
                raise TypeError(f"{self.name}() got an unexpected keyword argument '{k}'.")
            if k in given:
                raise TypeError(f"{self.name}() got multiple values for argument '{k}'.")
            given[k] = v
        missing = [n for n in tensor_params if n not in given]
        if missing:
            raise TypeError(f"{self.name}() missing required argument(s): {', '.join(missing)}.")
        call_args, call_kwargs = [], {}
        position = 0  # of the flat tensor input, in the error TensorFlow raises
        for name, spec, keyword in params:
            value = given.get(name, spec)
            if name in given:
                flat_value = nest.flatten(_to_tensors(value))
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
                        _is_spec(s)
                        and not isinstance(s, TensorSpec)
                        and not (isinstance(a, CompositeTensor) and s.is_compatible_with(a))
                    ):
                        raise TypeError(
                            f"ConcreteFunction {self.name}: argument {name}={a!r} does not "
                            f"match {s!r}."
                        )
                    position += _is_spec(s)
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


def _short(x) -> str:
    """A value as TensorFlow's concrete-signature listing shows it."""
    if isinstance(x, TensorSpec):
        shape = "None" if x.shape.rank is None else str(tuple(x.shape.as_list()))
        return f"{x.dtype.name} Tensor, shape={shape}"
    if isinstance(x, (list, tuple)):
        return f"{type(x).__name__}(" + ", ".join(_short(v) for v in x) + ")"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {_short(v)}" for k, v in x.items()) + "}"
    return repr(x)


class init_scope:
    """Context: the code inside runs once, while a graph function is traced, and is not part
    of its program (follows `tf.init_scope`, which lifts it out of the graph). Outside a
    trace it does nothing.

    >>> v = ek.Variable(0)
    >>> @ek.function
    ... def once():
    ...     with ek.init_scope():
    ...         v.assign_add(1)  # at trace time only
    ...     return v.read_value()
    >>> [int(once()) for _ in range(3)]
    [1, 1, 1]
    """

    def __enter__(self) -> init_scope:
        self._tracers = [r for r in _ctx.recorders if hasattr(r, "trace_call")]
        for tracer in self._tracers:
            _context.pop_recorder(tracer)
        return self

    def __exit__(self, *exc) -> None:
        for tracer in self._tracers:
            _context.push_recorder(tracer)


def _describe_value(x) -> str:
    if isinstance(x, Tensor):
        return repr(TensorSpec(tuple(x._value.shape), x.dtype))
    if isinstance(x, CompositeTensor):
        return repr(_composite_spec(x))
    return f"{x!r:.80}"


def describe(x) -> str:
    """A short text of a structure of specs, tensors and Python values (error messages)."""
    if _is_spec(x):
        return repr(x)
    if isinstance(x, (list, tuple)):
        inner = ", ".join(describe(v) for v in x)
        return f"{type(x).__name__.capitalize()}[{inner}]"
    if isinstance(x, dict):
        return "Dict[" + ", ".join(f"{k!r}: {describe(v)}" for k, v in x.items()) + "]"
    if isinstance(x, Variable):
        return f"Variable {x.name}"
    return f"Literal[{x!r}]"


def function(
    func=None,
    input_signature=None,
    autograph: bool = True,
    jit_compile=None,
    reduce_retracing: bool = False,
    experimental_relax_shapes=None,
    experimental_compile=None,
    name: str | None = None,
    **kwargs,
):
    """Compiles ``func`` into a graph function: traced once per input signature, replayed
    afterwards (follows `tf.function`; decorator with or without arguments).

    Args:
        func: the Python function (or method: each instance gets its own traces).
        input_signature: a list of `TensorSpec` (nested as the arguments are), one per
            positional argument: calls are converted to and checked against it (TypeError
            "Binding inputs to tf.function ... failed" otherwise); ``None`` dimensions accept
            any size. `RaggedTensorSpec` and `SparseTensorSpec` accept RaggedTensors and
            SparseTensors of their dtype, rank and ragged rank.
        autograph: accepted (True or False): Python control flow on tensor values works
            without AutoGraph, through guards (see below).
        jit_compile: None/False, or True: there is no XLA here; True compiles to the same
            program as always, with a warning.
        reduce_retracing (``experimental_relax_shapes``): accepted; programs are specialized
            on concrete shapes, so every new shape is traced once either way.

    A stateful op that returns a RaggedTensor or SparseTensor (``next`` on a Dataset of ragged
    elements) makes its signature run the Python code on every call: a trace cannot follow
    the component tensors read from it.

    A RaggedTensor (SparseTensor) argument is part of the signature by its row partition
    (indices and dense shape), its values are the program's inputs: calls with the same
    partition replay the program, a new partition is traced once, as a new shape is. A
    function that returns a RaggedTensor or SparseTensor runs its Python code on every call
    (the result is built around its values' ops, which a program cannot rebuild).

    What is traced and replayed: every primitive op (the VJPs of a tape inside too), every
    stateful op (``Variable.assign*``, ``optimizer.apply_gradients``, random draws, dropout
    masks, metric updates, `print`) and every guard: each place where a tensor's value
    becomes a Python value (``if x > 0``, ``int(n)``, ``.numpy()``). A replay checks each
    guard; when one differs, the call runs the Python function eagerly once more and records
    that branch, so results always equal the eager ones. Python side effects (``print``,
    appending to a list) happen while tracing only, as in TensorFlow; `ek.print` happens on
    every call. Creating a Variable is allowed on the first trace only (ValueError, with
    TensorFlow's message, on a later one). A call made while a tape (or ``%%tape``) records
    replays the program op by op through the dispatcher, inside a ``"function"`` scope (one
    row in ``%%tape``), so gradients through it are the eager ones, to any order; inside
    another function's trace, the Python code runs.

    Outputs: a Python number, string or NumPy value returned becomes a constant tensor, as
    TensorFlow converts a function's outputs. An object whose class defines
    ``__tf_tracing_type__`` enters the signature through the `ek.types.experimental.TraceType`
    it returns (equal trace types share a trace), as in TensorFlow. A tensor computed while
    tracing that escapes the function other than by being returned (a global, an attribute)
    raises TypeError ("out of scope") when a later trace captures it; a function that calls
    itself with its own input signature while being traced raises RecursionError (recursion
    on Python values traces a new signature per level and works).

    Differences from TensorFlow that follow from tracing on real values: an op that fails
    while tracing raises, even if nothing uses its output (TensorFlow prunes unused ops from
    the graph, so ``tf.gather(x, [1])`` out of range and unused raises nothing there); a
    function that creates a Variable on every call raises its ValueError at the second call
    (TensorFlow traces twice on the first call and raises then); printing a tensor while
    tracing shows its value, not a symbolic tensor.

    Raises:
        TypeError: an ``input_signature`` that is not TensorSpecs, or an unknown argument.

    >>> @ek.function
    ... def f(x):
    ...     return x * x + 1.0 if x > 0 else -x
    >>> f(ek.constant(3.0)).numpy(), f(ek.constant(-2.0)).numpy(), f(ek.constant(5.0)).numpy()
    (np.float32(10.0), np.float32(2.0), np.float32(26.0))
    >>> f.experimental_get_tracing_count()  # one signature, two branches
    2
    """
    for key in kwargs:
        if key not in (
            "experimental_implements",
            "experimental_autograph_options",
            "experimental_attributes",
            "experimental_follow_type_hints",
        ):
            raise TypeError(f"function: unexpected keyword argument {key!r}.")
        if kwargs[key] not in (None, False):
            raise NotImplementedError(f"function: {key}={kwargs[key]!r} is not supported.")
    if experimental_compile is not None and jit_compile is None:
        jit_compile = experimental_compile
    if experimental_relax_shapes is not None:
        reduce_retracing = bool(experimental_relax_shapes)
    if jit_compile:
        warnings.warn(
            "function: jit_compile=True: there is no XLA in eagerkernel; the function is "
            "compiled to its replay program as always.",
            stacklevel=2,
        )

    def wrap(fn):
        if isinstance(fn, Function):
            return fn
        return Function(fn, name, input_signature, reduce_retracing, jit_compile)

    return wrap if func is None else wrap(func)


@stateful
def print_(
    *inputs, output_stream=None, summarize: int = 3, sep: str = " ", end: str = "\n", name=None
) -> None:
    """Prints tensors and Python values on every call, also inside `function` (follows
    `tf.print`: to standard error by default, tensors as NumPy prints them with at most
    ``summarize`` items at each end of each dimension, -1 for all).

    >>> import sys
    >>> ek.print("x:", ek.constant([1, 2, 3]), output_stream=sys.stdout)
    x: [1 2 3]
    """
    import sys

    stream = sys.stderr if output_stream is None else output_stream
    if not hasattr(stream, "write"):
        raise TypeError(f"print: output_stream must be a file-like object, got {stream!r}.")
    parts = []
    for x in inputs:
        if isinstance(x, Tensor):
            a = np.asarray(x._value.get() if hasattr(x._value, "get") else x._value)
            if a.ndim == 0:
                parts.append(str(a.item()))
            else:
                n = a.size if summarize is None or summarize < 0 else int(summarize)
                parts.append(
                    np.array2string(a, separator=" ", threshold=max(2 * n, 1), edgeitems=max(n, 1))
                )
        else:
            parts.append(str(x))
    stream.write(sep.join(parts) + end)


# `isinstance(f, ek.types.experimental.PolymorphicFunction)` and the like, as in TensorFlow.
_trace_types.PolymorphicFunction.register(Function)
_trace_types.ConcreteFunction.register(ConcreteFunction)
