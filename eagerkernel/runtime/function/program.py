"""`Program`: one traced path through a graph function, compiled to straight-line Python
(`compiler`), with its guards' branches; replayed over arrays (`Program.run`) or op by op
through the dispatcher while a tape records (`Program.run_observed`).
"""

from __future__ import annotations

import numpy as np

from .. import nest
from .. import random as _random
from ..core.composite import CompositeTensor
from ..core.dispatch import dispatch
from ..core.dtypes import as_dtype
from ..core.tensor import Tensor, make
from ..core.variable import Variable
from ..data.structure import TensorSpec
from .compiler import compile_program
from .effects import perform
from .guards import GuardMiss, make_guard
from .instructions import fold_constants, live_instructions
from .signature import composite_spec
from .tracing import (
    STOP,
    TracedParam,
    Tracer,
    arg_refs,
    call_expecting_stop,
    fill_template,
    flat_outputs,
)

__all__ = ["Program", "restore_state", "state_of"]


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
        self.source, self._run = compile_program(self)

    def output_specs(self):
        """The outputs' structure with a `TensorSpec` for each tensor (a spec for a composite
        tensor, the value itself for a Python value): a concrete function's
        ``structured_outputs``."""
        flat = []
        for r, leaf in zip(self.outputs, self.py_leaves):
            if r is None:
                flat.append(composite_spec(leaf) if isinstance(leaf, CompositeTensor) else leaf)
            elif type(r) is int:
                flat.append(TensorSpec(self._shapes[r], self._dtypes[r]))
            else:
                value = self.consts[r[1]][0]
                flat.append(TensorSpec(tuple(np.shape(value)), as_dtype(value.dtype)))
        out = nest.pack_sequence_as(self.structure, flat)
        return out if self.rebuild is None else self.rebuild(out, spec=True)

    @classmethod
    def from_trace(cls, tracer: Tracer, n_inputs: int, outputs: list) -> Program:
        """The program of a trace: constants folded, dead ops dropped, compiled."""
        instrs, outputs = fold_constants(tracer, instrs=tracer.instrs, outputs=outputs)
        shapes = [tuple(getattr(v, "shape", ())) for v in tracer.values]
        dtypes = [
            as_dtype(v.dtype)
            if getattr(getattr(v, "dtype", None), "kind", "") in tuple("biufcO")
            else None
            for v in tracer.values
        ]
        return cls(
            live_instructions(instrs, outputs),
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
        saved = state_of(self)
        try:
            return self._run(arrays)
        except GuardMiss:
            restore_state(saved)
            raise

    def run_observed(self, tensors: list) -> list:
        """Runs the program op by op through the dispatcher, so this thread's recorders
        (tapes, the profiler) see every op; returns Tensors (Variables where the program
        returns a read). Raises `GuardMiss`, after putting state back as `run` does."""
        if not self.unsafe:
            return _run_observed(self, tensors)
        saved = state_of(self)
        try:
            return _run_observed(self, tensors)
        except GuardMiss:
            restore_state(saved)
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
            make_guard(guard_index, ins[2], ins[3])(get(ins[1])._value)
            guard_index += 1
        else:
            _, fn, arg_t, out_t = ins
            values = [get(r) for r in arg_refs(arg_t, [])]
            args, kwargs = fill_template(
                arg_t,
                iter([t._value if isinstance(t, Tensor) else t for t in values]),
                iter([t._device if isinstance(t, Tensor) else None for t in values]),
            )
            if out_t is STOP:
                call_expecting_stop(fn, args, kwargs)
                continue
            result = perform(fn, args, kwargs)
            slots = arg_refs(out_t, [])
            for s, value in zip(slots, flat_outputs(out_t, result, [])):
                env[s] = value if program.devices[s] is None else make(value, program.devices[s])
    out = [None if r is None else get(r) for r in program.outputs]
    return [make(t._value, t._device) if isinstance(t, Variable) else t for t in out]


def state_of(program: Program) -> tuple:
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
        _random.generator().bit_generator.state,
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


def restore_state(saved: tuple) -> None:
    values, rng = saved
    for v, value in values:
        v._value = value
    _random.generator().bit_generator.state = rng
