"""The compiler of a `Program` (see `program`): its instructions as the source and function
of straight-line Python over raw arrays, with dot-product fusion and buffer reuse.

The compiler reads a program's ``ops``, ``outputs``, ``n_inputs``, ``variables``, ``consts``,
``devices`` and its slots' shapes and dtypes; it does not depend on the `Program` class.
"""

from __future__ import annotations

import functools
import math
import operator
import sys
import typing

import numpy as np

from ..core.dispatch import object_scalar
from ..core.dtypes import string
from ..native import kernels as _kernels
from ..ops.elementwise import mul_primitive
from ..ops.reduction import sum_forward, sum_primitive
from .effects import perform
from .guards import GuardMiss, make_guard
from .instructions import device_of, uses
from .tracing import STOP, TracedParam, arg_refs, call_expecting_stop, fill_template, flat_outputs

if typing.TYPE_CHECKING:
    from .program import Program

__all__ = ["compile_program"]


# Dot products: ``reduce_sum(a * b)`` over every axis, where the product feeds nothing else,
# compiles to one pass that multiplies and adds without the product array
# (`kernels.mul_sum`), in NumPy's pairwise order: the value is the eager one bit for bit.
# Eagerly the product has been computed before reduce_sum is called, so a trace is where the
# pattern can be seen whole. Arrays the kernel declines (strided, no C extension) take the
# multiply and the sum.
_DOT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _dot(a, b, axis):
    """``reduce_sum(a * b, axis)`` for two arrays of one shape, ``axis`` every axis or None."""
    out = _kernels.mul_sum(a, b)
    return sum_forward(np, a * b, axis, False) if out is None else out


def _dot_fusions(program: Program) -> dict:
    """``{position of a Mul: position of the Sum}`` for each fusable ``reduce_sum(a * b)``."""
    ops = program.ops
    users: dict = {}
    for i, ins in enumerate(ops):
        for r in uses(ins):
            if type(r) is int:
                users.setdefault(r, []).append(i)
    outputs = {r for r in program.outputs if type(r) is int}
    fused = {}
    for i, ins in enumerate(ops):
        if ins[0] != "op" or ins[1] is not mul_primitive or type(ins[4]) is not int:
            continue
        refs, product = ins[2], ins[4]
        at = users.get(product, ())
        if product in outputs or len(at) != 1 or device_of(program, refs).xp is not np:
            continue
        j = at[0]
        if ops[j][0] != "op":  # read by a guard or a stateful call
            continue
        _, prim, _refs, params, _outs, _saved = ops[j]
        shape = program._shapes[product]
        if (
            prim is not sum_primitive
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


def compile_program(program: Program):
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
        for r in uses(ins):
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
            xp = device_of(program, refs).xp
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
            namespace[f"G{i}"] = make_guard(
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
                [program.devices[r] if type(r) is int else device_of(program, [r]) for r in refs],
            )
            call = f"H{i}({', '.join(name(r) for r in refs)})"
            if outs:
                lhs = ", ".join(f"s{s}" if s in last or s in outputs else "_" for s in outs)
                lines.append(f"{lhs}, = {call}")
            else:
                lines.append(call)
        dead = sorted(
            r for r in uses(ins) if type(r) is int and last.get(r) == i and r not in outputs
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


def _host_call(fn, arg_t, out_t, devices):
    if out_t is STOP:

        def call(*values):
            args, kwargs = fill_template(arg_t, iter(values), iter(devices))
            return call_expecting_stop(fn, args, kwargs)

        return call

    def call(*values):
        args, kwargs = fill_template(arg_t, iter(values), iter(devices))
        return flat_outputs(out_t, perform(fn, args, kwargs), [])

    return call
