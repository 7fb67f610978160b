"""Tracing: the `Tracer` recorder that writes down one eager run of a graph function (its ops,
stateful calls and guards), and the templates of its stateful calls.

A value in a trace is a *ref*: an int is a slot (an input, an op's output, a variable's value
read where the program reads it, an object a stateful call returned: a local of the compiled
program), or ``("c", k)``, the k-th captured constant.
"""

from __future__ import annotations

import threading
import types
import weakref
from collections.abc import Iterator

import numpy as np

from ..core import context as _context
from ..core import variable as _variable
from ..core.composite import CompositeTensor
from ..core.context import Recorder
from ..core.tensor import Tensor, make
from ..core.variable import Variable
from .effects import perform
from .guards import GuardMiss

__all__ = [
    "LEAKED",
    "STOP",
    "VARIABLE_ERROR",
    "TracedArg",
    "TracedObject",
    "TracedParam",
    "Tracer",
    "VerifyingTracer",
    "arg_refs",
    "call_expecting_stop",
    "fill_template",
    "flat_outputs",
    "tracing_keys",
]


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
STOP = "<raises StopIteration>"

#: TensorFlow's error for a Variable created by a trace other than the first (word for word).
VARIABLE_ERROR = (
    "tf.function only supports singleton tf.Variables created on the first call. Make sure "
    "the tf.Variable is only created once or created outside tf.function. See "
    "https://www.tensorflow.org/guide/function#creating_tfvariables for more information."
)
# Arguments that a stateful call would consume: read into a list first (`zip(grads, vars)`).
_ONE_SHOT = (zip, map, filter, enumerate, types.GeneratorType)


_tracing = threading.local()
# The op outputs of finished traces that are still alive (see `Function._trace`).
# By id: Tensors are not hashable.
LEAKED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

_LEAKED_ERROR = (
    "{tensor!r} is out of scope and cannot be used here: it was computed while tracing a "
    "tf.function and escaped it (a global or an attribute). Use return values, explicit "
    "Python locals or TensorFlow collections to access it. Please see "
    "https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values "
    "for more information."
)


def tracing_keys() -> list:
    """This thread's stack of ``(Function, signature key)`` being traced."""
    keys = getattr(_tracing, "keys", None)
    if keys is None:
        keys = _tracing.keys = []
    return keys


class Tracer(Recorder):
    """Writes down the ops, stateful calls and guards of one eager run of a function.

    An op that raises InvalidArgumentError while traced raises only where its output is read
    (an op, Python code, a stateful call, the function's return): TensorFlow runs only the ops
    that the outputs and stateful ops need, so an unused op cannot fail the call.

    A trace that grows past `MAX_OPS` ops or `MAX_BYTES` bytes of op outputs gives up
    (`abandon`): it keeps every value of the run alive, so a Python loop over many steps in
    one function (``for x in dataset:`` around a training step, which TensorFlow turns into
    a graph loop) would otherwise hold every step's activations. The run goes on eagerly.
    """

    MAX_OPS = 50_000
    MAX_BYTES = 2 << 30
    # An op whose forward raises InvalidArgumentError (an index out of range) fails only if
    # something reads its output (`dispatch.DeferredError`): an unused op is not in the program.
    defers_errors = True

    def __init__(self):
        self.abandoned = False  # past a bound: popped, emptied, the run goes on eagerly
        self._bytes = 0
        self.outputs: list = []  # the Tensors its ops made
        self.instrs: list = []
        self.refs: dict = {}  # id(array) -> ref
        self.keep: list = []  # what `refs` holds ids of, alive while tracing
        self.values: list = []  # slot -> traced value
        self.devices: list = []  # slot -> Device (None for saved values)
        self.consts: list = []  # (value, device)
        self.variables: list = []
        self._var_index: dict = {}
        self._reads: dict = {}  # slot of a variable read -> id of the Variable read
        self.created: list = []  # Variables created while tracing (outside stateful ops)
        self.created_in_calls = 0  # Variables the traced stateful ops created
        self.calls: list = []  # (fn, result) of each stateful call, in order
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
            if type(r) is int and self._reads.get(r) == id(t):
                return r
            # Otherwise a read, even where the variable shares its array with an op's output
            # (``tf.Variable(tf.random.uniform(...))`` made in this trace): a replay must see
            # the variable's value, not run the op again.
            k = self._var_index.get(id(t))
            if k is None:
                k = self._var_index[id(t)] = len(self.variables)
                self.variables.append(t)
            r = self.slot(value, t._device)
            self._reads[r] = id(t)
            self.instrs.append(("read", k, r))
            return r
        if r is None:
            if LEAKED.get(id(t)) is t:
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
            outs = self.slot(_distinct(output), output._device)
            self.outputs.append(output)
        else:
            self.outputs.extend(output)
            outs = tuple(self.slot(_distinct(o), o._device) for o in output)
        saved_slot = None if saved is None else self.slot(saved, None)
        self.instrs.append(("op", prim, ins, params, outs, saved_slot))
        made = (output,) if prim.n_out == 1 else output
        self._bytes += sum(getattr(o._value, "nbytes", 0) for o in made)
        if len(self.instrs) > self.MAX_OPS or self._bytes > self.MAX_BYTES:
            self.abandon()

    def abandon(self) -> None:
        """Stops recording this thread's ops and lets go of everything recorded."""
        self.abandoned = True
        _context.pop_recorder(self)
        for held in (self.outputs, self.instrs, self.keep, self.values, self.devices):
            held.clear()
        self.refs.clear()
        self._reads.clear()
        self.consts.clear()
        self.calls.clear()

    def on_value(self, tensor, kind, value) -> None:
        r = self.ref(tensor)
        if type(r) is tuple and r[0] == "c":
            return  # a constant's value cannot change
        if kind == "array":
            value = np.array(value, copy=True)
        self.instrs.append(("guard", r, kind, value))

    def on_variable(self, variable) -> None:
        self.created.append(variable)

    def on_composite(self, value) -> None:
        # A ragged or sparse tensor's partition is computed by Python code from values this
        # trace cannot follow: the signature runs eagerly, as for composite results.
        self.opaque = True

    def trace_call(self, fn, args, kwargs):
        """Runs the stateful op ``fn`` unobserved and records it as one step."""
        # `zip(grads, vars)` and other one-shot iterators: the call and the template each
        # read them
        args = tuple(list(a) if isinstance(a, _ONE_SHOT) else a for a in args)
        before = _variable.creation_count()
        try:
            with _context.suspended():
                out = perform(fn, args, kwargs, STOP)
        except StopIteration:  # the end of a pass over a Dataset: replays expect it too
            self.instrs.append(("call", fn, self._template((args, kwargs)), STOP))
            self.calls.append((fn, STOP))
            raise
        finally:
            self.created_in_calls += _variable.creation_count() - before
        self.calls.append((fn, out))
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
        if isinstance(x, CompositeTensor) or getattr(x, "_opaque_to_traces", False):
            # A RaggedTensor or SparseTensor from a stateful op (a Dataset's next element), a
            # strategy's PerReplica values: its tensors are read by attribute, which a trace
            # cannot follow, so the signature runs its Python code on every call.
            self.opaque = True
            return x
        if isinstance(x, Tensor):
            return TracedArg(self.slot(_distinct(x), x._device))
        if isinstance(x, dict):
            return {k: self._out_template(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            items = [self._out_template(v) for v in x]
            return type(x)(*items) if hasattr(type(x), "_fields") else type(x)(items)
        return TracedObject(self.slot(x, None))  # an object a later call may take


class VerifyingTracer(Tracer):
    """The second run of a function whose first trace created Variables. TensorFlow traces
    such a function twice, the second time refusing to create any, so that a Variable made on
    every call raises on the first call. Here the second run is eager, so it must not change
    state a second time: each stateful call gets the result that the first run's call of the
    same function got (an assignment is not made again, a Dataset iterator gives no new
    element, ``print`` prints nothing), as TensorFlow's symbolic second trace runs none of
    them. A stateful call that does not match the first run's (the code took another path)
    runs, and so does every later one; the caller puts the variables and the random state
    back afterwards (`Function._verify`).

    Args:
        calls: the first run's ``(fn, result)`` pairs (`Tracer.calls`).

    Raises (from the run, where the Variable is created):
        ValueError: TensorFlow's `VARIABLE_ERROR`.
    """

    def __init__(self, calls: list):
        super().__init__()
        self._first_calls = calls
        self._n_calls = 0

    def on_variable(self, variable) -> None:
        raise ValueError(VARIABLE_ERROR)

    def trace_call(self, fn, args, kwargs):
        k = self._n_calls
        self._n_calls += 1
        if k < len(self._first_calls) and self._first_calls[k][0] is fn:
            out = self._first_calls[k][1]
            if out is STOP:
                raise StopIteration
            return out
        self._first_calls = []  # another path: this call and every later one run
        return super().trace_call(fn, args, kwargs)


def _distinct(t: Tensor):
    """``t``'s value, made an object of its own if it is one that other values share: NumPy
    gives the one ``np.True_`` (or ``np.False_``) for every 0-d comparison, and a trace tells
    values apart by identity (`Tracer.refs`), so ``greater(a, b)`` and ``equal(c, d)`` would
    be one slot. The Tensor gets the 0-d array in its place."""
    value = t._value
    if type(value) is np.bool_:
        value = t._value = np.array(value)
    return value


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


def fill_template(template, values: Iterator, devices: Iterator):
    """``template`` with each `TracedArg` replaced by a Tensor of the next value (each
    `TracedObject` by the next value itself)."""
    if isinstance(template, TracedArg):
        device = next(devices)
        value = next(values)
        return value if type(template) is TracedObject else make(value, device)
    if isinstance(template, dict):
        return {k: fill_template(v, values, devices) for k, v in template.items()}
    if isinstance(template, (list, tuple)) and not isinstance(template, Variable):
        items = [fill_template(v, values, devices) for v in template]
        return (
            type(template)(*items) if hasattr(type(template), "_fields") else type(template)(items)
        )
    return template


def flat_outputs(template, out, values: list) -> list:
    """The arrays of the Tensors in ``out`` where ``template`` has an `TracedArg` (the objects
    where it has an `TracedObject`)."""
    if isinstance(template, TracedArg):
        values.append(out if type(template) is TracedObject else out._value)
    elif isinstance(template, dict):
        for k, v in template.items():
            flat_outputs(v, out[k], values)
    elif isinstance(template, (list, tuple)):
        for v, o in zip(template, out):
            flat_outputs(v, o, values)
    return values


def call_expecting_stop(fn, args, kwargs) -> list:
    """Replays a call that raised StopIteration while tracing."""
    try:
        perform(fn, args, kwargs, STOP)
    except StopIteration:
        return []
    raise GuardMiss(-1, "no StopIteration")
