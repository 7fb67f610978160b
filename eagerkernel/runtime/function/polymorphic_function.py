"""`Function`: a Python function traced once per input signature and replayed (follows
`tf.function`'s `PolymorphicFunction`); see the package docstring for how a call runs."""

from __future__ import annotations

import contextlib
import functools
import inspect
import threading
import typing
import warnings
import weakref

import numpy as np

from .. import config as _config
from .. import nest
from ..core import context as _context
from ..core.composite import CompositeTensor
from ..core.context import ACTIVE
from ..core.device import current_device
from ..core.dispatch import DeferredError
from ..core.tensor import Tensor, make, to_tensor
from ..core.variable import Variable
from ..data.structure import TensorSpec
from ..observers import Observers
from . import retracing
from .concrete_function import ConcreteFunction
from .effects import LOG as EFFECTS
from .guards import GuardMiss
from .program import Program, restore_state, state_of
from .signature import (
    describe_value,
    hashable_value,
    is_spec,
    leaf_key,
    listing_text,
    spec_of,
    structure_key,
    to_tensors,
)
from .tracing import LEAKED, VARIABLE_ERROR, Tracer, VerifyingTracer, tracing_keys

__all__ = ["MAX_BRANCHES", "Entry", "Function"]

_ctx = _context.context()
_eager = _config.FUNCTIONS_EAGERLY
MAX_BRANCHES = 32  # traces per signature before the signature runs eagerly for good


def _expand_extension_types(result):
    """``(outputs, rebuild)``: each ExtensionType in a function's result replaced by its
    Tensors (a flat list of the result's leaves), so that the program returns them, and the
    function that makes the result's structure again of those outputs (``spec=True``: of
    their specs); ``(result, None)`` when the result holds no ExtensionType (or one holding a
    ragged or sparse tensor, which keeps the signature eager)."""
    from ..extension_type import ExtensionType, OutputTemplate

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


def _read_if_variable(x):
    return x.read_value() if isinstance(x, Variable) else x


def _output_tensor(observed: bool, x):
    """A traced function's output as its caller gets it: a new Tensor (the same one if
    ``observed``; a returned Variable was read in the trace), a Python number, string or
    NumPy value as a constant tensor."""
    if isinstance(x, (Variable, CompositeTensor)) or x is None:
        return x
    if isinstance(x, Tensor):
        if observed:
            return x
        return make(x._value, x._device)
    if isinstance(x, (bool, int, float, complex, str, bytes, np.generic, np.ndarray)):
        return to_tensor(x, None, "function")
    return x


class Entry:
    """The traces of one signature: a root program and, through its branches, the others."""

    __slots__ = ("eager", "keep", "n_traces", "program", "specs")

    def __init__(self):
        self.program = None
        self.n_traces = 0
        self.eager = False  # too many branches: the signature runs its Python code
        self.specs = None
        self.keep: list = []


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
        self._nested_keys: set = set()  # signatures first seen inside another function's trace
        self._lock = threading.Lock()
        self._bound: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        # Ragged/sparse specs of `get_concrete_function` calls (`saved_model.save` refuses
        # them: their programs are made per row partition, at calls with values).
        self._composite_spec_requests: list = []
        functools.update_wrapper(self, python_function)
        if self.input_signature is not None:
            for spec in nest.flatten(self.input_signature):
                if not is_spec(spec):
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
            # Called while another function is traced: the Python code runs inline, into that
            # trace. TensorFlow traces a nested function as one of its own: a signature this
            # function has not seen counts as a trace (`experimental_get_tracing_count`).
            key = self._signature(args, kwargs)[3]
            if (self, key) in tracing_keys():
                raise RecursionError(
                    f"function {self._name} calls itself, while being traced, with the "
                    "same input signature: its trace would never end (TensorFlow does not "
                    "support recursive tf.functions; recurse on Python values, or write a "
                    "loop)."
                )
            with self._lock:
                if key not in self._cache and key not in self._nested_keys:
                    self._nested_keys.add(key)
                    self._n_traces += 1
            return self.python_function(*args, **kwargs)
        args, kwargs, flat, key, arrays, tensors = self._signature(args, kwargs)
        entry = self._cache.get(key)
        if entry is None:
            entry = self._cache[key] = Entry()
            entry.specs = nest.pack_sequence_as((args, kwargs), [spec_of(x) for x in flat])
            # What the key names by identity stays alive as long as the entry, so that no
            # other object can come to have its id.
            entry.keep = [x for x in flat if isinstance(x, Variable) or not isinstance(x, Tensor)]
        retracing.called(self.python_function)  # a trace below tells `retracing.traced`
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

    def _run(self, entry: Entry, args, kwargs, tensors, arrays, observed: bool, key=None):
        """Runs the entry's program (or the branch its guards lead to), tracing what is new;
        ``observed``: op by op through the dispatcher, for this thread's recorders."""
        if entry.eager:
            return self.python_function(*args, **kwargs)
        if entry.program is None:
            return self._trace(entry, None, None, args, kwargs, tensors, key)
        program = entry.program
        if observed and program.custom_gradients:
            # A tape must see the hand-written gradients, which only the Python code records.
            return self.python_function(*args, **kwargs)
        saved = EFFECTS.begin()  # what un-undoable calls did, for the attempt after a miss
        try:
            while True:
                try:
                    values = program.run_observed(tensors) if observed else program.run(arrays)
                    break
                except GuardMiss as miss:
                    EFFECTS.retry()
                    branch = (miss.index, hashable_value(miss.value))
                    nxt = program.branches.get(branch)
                    if nxt is None:
                        return self._trace(entry, program, branch, args, kwargs, tensors, key)
                    program = nxt
        finally:
            EFFECTS.end(saved)
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

    def _trace(self, entry: Entry, parent, branch, args, kwargs, tensors, key=None):
        """Runs the Python function eagerly while tracing it; the trace becomes the entry's
        program, or the branch ``branch`` of ``parent``."""
        retracing.traced(self.python_function)  # TensorFlow's warning for frequent traces
        tracer = Tracer()
        for t in tensors:
            tracer.slot(t._value, t._device)
        tracing = tracing_keys()
        tracing.append((self, key))
        _context.push_recorder(tracer)
        try:
            result = self.python_function(*args, **kwargs)
            # A returned Variable is read (a recorded ReadVariableOp), as TensorFlow's
            # function outputs are tensors: the caller gets its value at the call's end.
            if any(isinstance(x, Variable) for x in nest.flatten(result)):
                result = nest.map_structure(_read_if_variable, result)
        finally:
            if not tracer.abandoned:
                _context.pop_recorder(tracer)
            tracing.pop()
        if tracer.abandoned:
            with self._lock:
                self._n_traces += 1
            entry.eager = True
            warnings.warn(
                f"function {self._name}: its trace grew past {Tracer.MAX_OPS} ops or "
                f"{Tracer.MAX_BYTES >> 30} GiB of values (a Python loop of many steps inside "
                "it, such as `for x in dataset:`?); it runs eagerly for this input signature. "
                "Put the loop outside the function and trace one step.",
                stacklevel=3,
            )
            return result
        # The trace's own tensors stay behind it (a global, an attribute): a later trace that
        # captures one raises, as TensorFlow's out-of-scope graph tensors do. The caller gets
        # new Tensors for the returned values (the same ones when a tape records the call:
        # its gradients start from them), and Python numbers and strings returned become
        # tensors, as TensorFlow converts a function's outputs.
        for t in nest.flatten(result):  # an output whose op failed: the call fails
            if isinstance(t, Tensor) and type(t._value) is DeferredError:
                raise t._value.error.with_traceback(None)
        observed = bool(ACTIVE and _ctx.recorders)
        result, rebuild = _expand_extension_types(result)
        returned = {id(t) for t in nest.flatten(result) if isinstance(t, Tensor)}
        result = nest.map_structure(functools.partial(_output_tensor, observed), result)
        LEAKED.update((id(t), t) for t in tracer.outputs if not (observed and id(t) in returned))
        tracer.outputs.clear()
        if tracer.opaque or any(isinstance(x, CompositeTensor) for x in nest.flatten(result)):
            # See `Tracer._out_template`; a RaggedTensor or SparseTensor result is built by
            # Python code around its values' ops, which the program cannot rebuild: the
            # signature runs the Python function on every call (its result is the eager one).
            entry.eager = True
        created = bool(tracer.created) or tracer.created_in_calls > 0
        if created and self._n_traces > 0:
            raise ValueError(VARIABLE_ERROR)
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
        if parent is None and tracer.created:
            # Variables made by the user's code (not by an optimizer's first step): TensorFlow
            # traces once more and refuses to make them again.
            self._verify(program, tracer.calls, args, kwargs, tensors, key)
        program.custom_gradients = tracer.custom_gradients
        program.structure = nest.pack_sequence_as(result, [None] * len(flat))
        program.py_leaves = leaves
        program.rebuild = rebuild
        with self._lock:
            if parent is not None or key not in self._nested_keys:  # else counted nested
                self._n_traces += 1
            entry.n_traces += 1
            if parent is None:
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

    def _verify(self, program: Program, calls: list, args, kwargs, tensors, key) -> None:
        """Runs the Python function once more after a first trace that created Variables, as
        TensorFlow traces such a function twice: a Variable created again raises TensorFlow's
        ValueError, so that one made on every call fails on the first call. Its Python side
        effects happen twice, as in TensorFlow; its stateful calls do not
        (`VerifyingTracer`), and the variables and random state it may still have changed
        are put back. The caller's own recorders (a tape) do not see this run."""
        saved = state_of(program)
        tracer = VerifyingTracer(calls)
        for t in tensors:
            tracer.slot(t._value, t._device)
        tracing = tracing_keys()
        tracing.append((self, key))
        try:
            with _context.suspended():
                _context.push_recorder(tracer)
                try:
                    self.python_function(*args, **kwargs)
                finally:
                    if not tracer.abandoned:
                        _context.pop_recorder(tracer)
        finally:
            tracing.pop()
            restore_state(saved)
            LEAKED.update((id(t), t) for t in tracer.outputs)
            with self._lock:
                self._n_traces += 1  # TensorFlow counts both traces

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
        if kwargs or len(args) < len(signature):
            # Keyword arguments go to their places; a parameter the call omits takes its
            # Python default, converted to its spec like any argument (TensorFlow's binding).
            params = list(inspect.signature(self.python_function).parameters.values())
            try:
                bound = inspect.signature(self.python_function).bind(*args, **kwargs)
            except TypeError as exc:
                raise TypeError(
                    f"Binding inputs to tf.function `{self._name}` failed due to `{exc}`."
                ) from None
            for p in params[: len(signature)]:
                if p.name not in bound.arguments and p.default is not p.empty:
                    bound.arguments[p.name] = p.default
            args = tuple(bound.arguments[p.name] for p in params if p.name in bound.arguments)
        if len(args) != len(signature):
            raise TypeError(
                f"Binding inputs to tf.function `{self._name}` failed: the input_signature has "
                f"{len(signature)} argument(s), the call gave {len(args)}."
            )
        out = []
        for k, (arg, spec) in enumerate(zip(args, signature)):
            flat_spec = nest.flatten(spec)
            flat_arg = [arg] if isinstance(spec, TensorSpec) else nest.flatten(arg)
            if not isinstance(spec, TensorSpec):
                try:  # {"b": x} for a spec {"a": ...} has one component too: compare keys
                    nest.assert_same_structure(spec, arg, check_types=False)
                except (TypeError, ValueError) as exc:
                    raise TypeError(
                        f"Binding inputs to tf.function `{self._name}` failed: argument {k} does "
                        f"not match the structure of its spec {spec!r}: {exc}"
                    ) from None
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
                            f"not cast {describe_value(a)} to {s!r}`."
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
        if any(is_spec(x) for x in flat):
            composite = [x for x in flat if is_spec(x) and not isinstance(x, TensorSpec)]
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
        args = to_tensors(args)
        if kwargs:
            kwargs = to_tensors(kwargs)
        flat = nest.flatten((args, kwargs))
        arrays: list = []
        tensors: list = []
        seen: dict = {}
        key = (
            current_device(),
            structure_key((args, kwargs)),
            *(leaf_key(x, arrays, seen, tensors) for x in flat),
        )
        return args, kwargs, flat, key, arrays, tensors

    def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str:
        """Every traced signature, as TensorFlow prints them: the call, its arguments'
        dtypes and shapes, and what it returns."""
        blocks = []
        for c in self.concrete_functions:
            params = c._parameters()
            lines = [f"{self._name}({', '.join(n for n, _, _ in params)})", "  Args:"]
            lines += [f"    {n}: {listing_text(a)}" for n, a, _ in params]
            lines += ["  Returns:", f"    {listing_text(c.structured_outputs)}"]
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks)

    @property
    def concrete_functions(self) -> list:
        return [ConcreteFunction(self, e.specs, e) for e in self._cache.values() if e.program]
