"""The instruction list of a trace and its analyses: what each instruction reads and defines,
constant folding and dead-op removal (used by `Program.from_trace` and the compiler).

Instructions are tuples: ``("op", prim, input refs, params, output slot(s), saved slot)``,
``("read", variable index, slot)``, ``("guard", ref, kind, traced value)`` and
``("call", fn, argument template, output template)`` (see `tracing`).
"""

from __future__ import annotations

import typing

from ..core.device import CPU
from ..core.variable import Variable
from .tracing import TracedArg, TracedParam, Tracer, arg_refs

if typing.TYPE_CHECKING:
    from .program import Program

__all__ = ["device_of", "fold_constants", "live_instructions", "uses"]


def fold_constants(tracer: Tracer, instrs: list, outputs: list):
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


def _const(tracer: Tracer, slot: int):
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


def uses(ins) -> list:
    """The refs instruction ``ins`` reads (a compiled ``"dot"`` too; ``"skip"`` reads none)."""
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


def live_instructions(instrs: list, outputs: list) -> list:
    """Drops the ops whose values nothing needs (stateful calls, guards and checks such as
    CheckNumerics always run)."""
    needed = {r for r in outputs if type(r) is int}
    keep = []
    for ins in reversed(instrs):
        if (
            ins[0] in ("op", "read")
            and not any(d in needed for d in _defs(ins))
            and not (ins[0] == "op" and ins[1].checks)
        ):
            continue
        keep.append(ins)
        needed.update(r for r in uses(ins) if type(r) is int)
    keep.reverse()
    return keep


def device_of(program: Program, refs):
    """The device of the first of ``refs`` that has one (a slot's or a constant's), else the
    CPU: where an op on those inputs runs."""
    for r in refs:
        d = program.devices[r] if type(r) is int else program.consts[r[1]][1]
        if d is not None:
            return d
    return CPU
