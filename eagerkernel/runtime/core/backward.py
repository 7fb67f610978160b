"""The backward pass: one reverse sweep over a tape's records.

The recording order is a topological order, so the sweep walks the records once, newest
first: it takes each output's cotangent, runs the VJPs of the inputs that lie on a path from
a source, un-broadcasts each result to its input's shape and accumulates it. Un-broadcasting,
skipping of untracked inputs and accumulation live here, once; a VJP is a line of math.

Cotangent contributions to one tensor are collected and summed once, by one ``AddN``, when
the tensor's own VJP needs them (or when the sweep ends, for a source): a Variable read by
2000 ops costs one op for its sum, not 1999 additions. The VJPs run as ordinary ops, so an
outer tape records them, and derivatives of any order come for free.
"""

from __future__ import annotations

import functools
import time
from types import SimpleNamespace

from ..native.allocator import adapt as _adapt_memory
from .dispatch import pass_through
from .records import Record
from .tensor import Tensor

__all__ = ["backward"]

_perf_counter = time.perf_counter


def backward(
    records: list[Record],
    seeded,
    sources,
    on_step=None,
    aliases=None,
    downstream=None,
    on_ready=None,
) -> dict[int, Tensor]:
    """Reverse-mode sweep over ``records``.

    Args:
        records: the tape, oldest first.
        seeded: ``[(target, cotangent seed)]``.
        sources: Tensors/Variables whose cotangents the caller wants (None entries are
            skipped); they are kept, not popped.
        on_step: optional ``on_step(record, g, input_grads, seconds)`` callback per VJP step
            (the ``%grad`` display).
        aliases: ``{id(snapshot): id(Variable)}``: a cotangent reaching a snapshot of a source
            Variable's value is added to the Variable's.
        downstream: optionally, a set holding the id of every tensor that lies downstream of
            a source (the tape's tracked set, when every tensor it watches is a source); the
            forward sweep that finds them is then skipped. It is read, never changed.
        on_ready: optionally ``({id(source): key}, ready)``: ``ready(key, cotangent)`` is
            called for each of those sources as soon as its cotangent is final, i.e. right
            after the sweep has passed the oldest record that reads it (or a snapshot of it),
            with the Tensor the result will hold (see `context.GradientListener`). Without
            it the sweep runs as one segment: nothing is checked per record.

    Returns:
        ``{id(source): cotangent}`` for every source reached.

    Raises:
        LookupError: a record on the path has no registered VJP.
    """
    source_ids = {id(s) for s in sources if s is not None}
    wanted = source_ids
    reads = None
    if aliases:
        reads = {sid: vid for sid, vid in aliases.items() if vid in source_ids}
        if reads:
            source_ids = source_ids | reads.keys()
    # Forward sweep: which tensors lie downstream of a source. VJPs run only towards these.
    if downstream is not None and downstream.issuperset(source_ids):
        reach = downstream
    else:
        reach = set(source_ids)
        for r in records:
            ids = r._ids
            if not reach.isdisjoint(map(id, r.inputs) if ids is None else ids):
                out = r.output
                if type(out) is tuple:
                    reach.update(map(id, out))
                else:
                    reach.add(id(out))

    grads: dict = {}  # id -> Tensor, or a list of Tensors still to be summed
    for t, s in seeded:
        _accumulate(grads, id(t), s)

    if on_ready is None:
        plan: tuple | list = ((len(records) - 1, -1, ()),)
    else:
        plan = _ready_plan(records, on_ready[0], reads)
    for top, stop, finished in plan:
        for idx in range(top, stop, -1):
            r = records[idx]
            out = r.output
            if type(out) is tuple:
                g = _multi_cotangent(grads, out, source_ids)
                if g is None:
                    continue
            else:
                oid = id(out)
                if oid not in reach:
                    continue
                g = grads.get(oid) if oid in source_ids else grads.pop(oid, None)
                if g is None:
                    continue
                if type(g) is list:
                    g = _sum(g)
                    if oid in source_ids:
                        grads[oid] = g
            inputs = r.inputs
            ids = r._ids
            if ids is None:
                ids = tuple(map(id, inputs))
            prim = r.prim
            params = r.params
            if prim.saves:
                params = {**params, "saved": r.saved}
            if on_step is not None:
                t0 = _perf_counter()
                step: list | None = []
            else:
                step = None
            if prim.joint_vjp is not None:
                in_grads = prim.joint_vjp(g, out, *inputs, **params)
                for k, gk in enumerate(in_grads):
                    if gk is None or ids[k] not in reach:
                        continue
                    x = inputs[k]
                    if gk._value.shape != x._value.shape:
                        gk = _sum_to_shape(gk, x._value.shape)
                    _accumulate(grads, ids[k], gk)
                if step is not None:
                    step = list(in_grads)
            elif prim.vjps is None:
                raise LookupError(
                    f"No gradient defined for op {prim.name!r}: it has no registered VJP "
                    "(register one with defvjp, or wrap the computation in ek.custom_gradient)."
                )
            else:
                for k, vjp in enumerate(prim.vjps):
                    xid = ids[k]
                    if vjp is not None and xid in reach:
                        if vjp is pass_through:
                            gk = g
                        elif params:
                            gk = vjp(g, out, *inputs, **params)
                        else:
                            gk = vjp(g, out, *inputs)
                        if gk is not None:
                            x = inputs[k]
                            if gk._value.shape != x._value.shape:
                                gk = _sum_to_shape(gk, x._value.shape)
                            prev = grads.get(xid)  # `_accumulate`, inline: a call less per VJP
                            if prev is None:
                                grads[xid] = gk
                            elif type(prev) is list:
                                prev.append(gk)
                            else:
                                grads[xid] = [prev, gk]
                    else:
                        gk = None
                    if step is not None:
                        step.append(gk)
            if on_step is not None:
                on_step(r, g, step, _perf_counter() - t0)
        for key in finished:  # these sources' cotangents are final: hand them over
            _finish(grads, key, reads, on_ready)
    if reads:
        for sid, vid in reads.items():
            g = grads.get(sid)
            if g is not None:
                _accumulate(grads, vid, _sum(g) if type(g) is list else g)
    result = {}
    for i in wanted:
        g = grads.get(i)
        if g is not None:
            result[i] = _sum(g) if type(g) is list else g
    _adapt_memory()  # once a second at most: the kept memory follows the step's peak
    return result


def _ready_plan(records: list, wanted: dict, reads) -> list:
    """The sweep in segments ``(top, stop, finished)``: records ``top`` down to ``stop + 1``,
    after which the sources in ``finished`` have their final cotangent (no older record reads
    them or a snapshot of them). Sources no record reads come first (a seed, or nothing)."""
    owner = {k: k for k in wanted}
    if reads:
        for sid, vid in reads.items():
            if vid in wanted:
                owner[sid] = vid
    oldest: dict = {}  # source id -> the oldest record reading it
    for idx, r in enumerate(records):
        ids = r._ids
        for k in map(id, r.inputs) if ids is None else ids:
            w = owner.get(k)
            if w is not None and w not in oldest:
                oldest[w] = idx
    at: dict = {}
    for w, idx in oldest.items():
        at.setdefault(idx, []).append(w)
    top = len(records) - 1
    plan = [(top, top, [w for w in wanted if w not in oldest])]
    for idx in sorted(at, reverse=True):
        plan.append((top, idx - 1, at[idx]))
        top = idx - 1
    plan.append((top, -1, ()))
    return plan


def _finish(grads: dict, key: int, reads, on_ready) -> None:
    """Sums ``key``'s cotangent now, as the end of `backward` would (its own contributions,
    then those of its snapshots in ``reads`` order), keeps the sum and hands it over."""
    if reads:
        for sid, vid in reads.items():
            if vid == key:
                g = grads.pop(sid, None)
                if g is not None:
                    _accumulate(grads, key, _sum(g) if type(g) is list else g)
    g = grads.get(key)
    if g is None:
        return
    if type(g) is list:
        g = grads[key] = _sum(g)
    wanted, ready = on_ready
    ready(wanted[key], g)


def _accumulate(grads: dict, key: int, g: Tensor) -> None:
    prev = grads.get(key)
    if prev is None:
        grads[key] = g
    elif type(prev) is list:
        prev.append(g)
    else:
        grads[key] = [prev, g]


@functools.cache
def _ops() -> SimpleNamespace:
    """The ops the sweep itself runs, imported at first use (the ops import the core)."""
    from ..ops.array_ops import broadcast_to, reshape
    from ..ops.creation import zeros_like
    from ..ops.elementwise import add_n
    from ..ops.reduction import reduce_sum

    return SimpleNamespace(
        add_n=add_n,
        broadcast_to=broadcast_to,
        reduce_sum=reduce_sum,
        reshape=reshape,
        zeros_like=zeros_like,
    )


def _sum(gs: list) -> Tensor:
    """The sum of one tensor's cotangent contributions, in the order they arrived."""
    return _ops().add_n(gs)


def _multi_cotangent(grads, outputs, source_ids):
    zeros_like = _ops().zeros_like
    gs = [grads.get(id(o)) if id(o) in source_ids else grads.pop(id(o), None) for o in outputs]
    if all(g is None for g in gs):
        return None
    gs = [_sum(g) if type(g) is list else g for g in gs]
    return tuple(
        (zeros_like(o) if o._value.dtype.kind in "fc" else None) if g is None else g
        for o, g in zip(outputs, gs)
    )


def _sum_to_shape(g: Tensor, shape: tuple) -> Tensor:
    """Reduces a broadcast cotangent back to the input's shape (the one place this happens)."""
    ops = _ops()
    gshape = g._value.shape
    lead = len(gshape) - len(shape)
    if lead < 0:  # a VJP may return a broadcastable cotangent of lower rank (e.g. a scalar)
        return ops.broadcast_to(g, shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, n in enumerate(shape) if n == 1 and gshape[i + lead] != 1
    )
    if axes:
        g = ops.reduce_sum(g, axis=axes)
    if tuple(g._value.shape) != tuple(shape):
        g = ops.reshape(g, shape)
    return g
