"""What tapes record: an `Entry` per op, or a lean record; `Records`, what displays read.

An `Entry` is one recorded op with what the backward pass needs. Under %%tape alone (one
profiling tape recording, no device scope, no --sync: `state.LEAN`), an op of the tape's
thread on one or two plain Tensors, without params, makes no `Entry`: it extends the tape's
flat list ``_lean`` with five slots,

    prim, output, seconds, x, y        (y is None for a one-input op)

which allocates nothing that lives on: no object per op for the cyclic GC to traverse or to
free later, and %%tape's displays read each field as a slice (`Records.fields`). A tape's
records are its `Entry` list ``_entries`` followed by ``_lean``; `GradientTape._flush` turns
``_lean`` into Entries (before any other Entry is appended, and whenever the Entries are
needed: `entries`, `gradient`).

The op builders of `ops/_core.py` run such an op through a `lean_recorder`, which times the
forward, makes the output Tensor and appends the record in one call: the C extension's
``LeanRecorder`` (``_records.c``), or the same steps in Python where it was not built.
`tape.execute` appends the records of the ops it ran itself.
"""

from __future__ import annotations

import operator
import threading
import time

import numpy as np

from .tensor import Tensor

try:
    from ..native._records import LeanRecorder
except ImportError:  # not built (no C compiler at install time): the Python recorder runs
    LeanRecorder = None

__all__ = ["Entry", "Records", "lean_entries", "lean_recorder"]

_NO_PARAMS: dict = {}
_new = object.__new__
_perf_counter = time.perf_counter
_get_ident = threading.get_ident


def lean_recorder(records: list, thread: int):
    """A callable recording one op of a ``%%tape`` cell as a lean record on ``records``.

    ``record(prim, fwd, xp, device, x, xv, y, yv)`` runs ``fwd(xp, xv, yv)`` (``fwd(xp, xv)``
    when ``y`` is None) between two reads of ``time.perf_counter``'s clock, wraps the result
    in a Tensor on ``device``, appends ``prim, output, seconds, x, y`` to ``records`` and
    returns the output. Called from a thread other than ``thread`` it returns None and does
    nothing: that thread's ops are not the tape's. An exception from ``fwd`` propagates and
    records nothing. ``record.extend((prim, output, seconds, x, y))`` appends a record made
    elsewhere (timed: seconds a float); ``record.records`` and ``record.thread`` are the
    arguments.

    The C recorder also counts, per primitive, its records and their total time:
    ``record.stats()`` gives ``(records counted, [(prim, count, seconds), ...])`` in order of
    first appearance, and ``record.reset_stats()`` starts again (see `Records.by_op`). The
    Python one has no ``stats``.

    Args:
        records: the tape's flat list of lean records (``GradientTape._lean``).
        thread: the ident of the thread that entered the tape.

    >>> records = []
    >>> record = lean_recorder(records, threading.get_ident())
    >>> x = ek.constant(3.0)
    >>> record("Mul", lambda xp, a, b: a * b, np, x._device, x, x._value, x, x._value)
    <Tensor: shape=(), dtype=float32, numpy=9.0>
    >>> len(records), records[0], records[2] >= 0.0, records[3] is x
    (5, 'Mul', True, True)
    """
    if LeanRecorder is not None:
        return LeanRecorder(records, Tensor, thread)
    extend = records.extend

    def record(prim, fwd, xp, device, x, xv, y, yv):
        if _get_ident() != thread:
            return None
        t0 = _perf_counter()
        out = fwd(xp, xv) if y is None else fwd(xp, xv, yv)
        seconds = _perf_counter() - t0
        t = _new(Tensor)
        t._value = out
        t._device = device
        extend((prim, t, seconds, x, y))
        return t

    record.records, record.thread, record.extend = records, thread, extend
    return record


class Entry:
    """One recorded op: what the backward pass needs, and what %%tape displays.

    ``inputs`` are Tensors (a Variable is recorded as a snapshot of the value it had, with the
    Variable's id in ``ids`` so that its gradient reaches the Variable). ``output`` is a Tensor,
    or a tuple of Tensors for multi-output ops. ``seconds`` is the forward time, measured only
    by profiling tapes (None otherwise).
    """

    # ``_ids`` is None when no input is a Variable: the ids are then those of ``inputs``
    # (which the entry keeps alive), and the recording path does not build the tuple.
    __slots__ = ("_ids", "inputs", "output", "params", "prim", "seconds")

    def __init__(self, prim, inputs, ids, output, params, seconds=None):
        self.prim = prim
        self.inputs = inputs
        self._ids = ids
        self.output = output
        self.params = params
        self.seconds = seconds

    @property
    def ids(self) -> tuple:
        """``id`` of each input as the backward pass keys it (the Variable's for a snapshot)."""
        ids = self._ids
        return tuple(map(id, self.inputs)) if ids is None else ids

    @property
    def outputs(self) -> tuple:
        return self.output if type(self.output) is tuple else (self.output,)

    def __repr__(self) -> str:
        return f"<Entry {self.prim.name}>"


_STRIDE = 5
_SLOT = {"prim": 0, "output": 1, "seconds": 2}


def lean_entries(lean: list) -> list[Entry]:
    """The `Entry` objects of a flat list of lean records."""
    return [
        Entry(prim, (x,) if y is None else (x, y), None, output, _NO_PARAMS, seconds)
        for prim, output, seconds, x, y in zip(*(lean[k::_STRIDE] for k in range(_STRIDE)))
    ]


class Records:
    """A snapshot of what a tape recorded, for its displays: one record per op, oldest first.

    `entry` gives one record as an `Entry`; `select` what display rows show of some records;
    `fields` whole columns, read from a ``%%tape`` cell's lean records at C speed, where
    `GradientTape.entries` would make an object per op; `by_op` the totals per primitive.

    Args:
        source: a tape, or a list of `Entry` objects.

    >>> from eagerkernel.runtime.core.tape import ProfilingTape
    >>> tape = ProfilingTape()
    >>> with tape:
    ...     y = ek.constant(2.0) * 3.0
    >>> records = Records(tape)
    >>> len(records), records.entry(0), records.fields("prim", "seconds")[1][0] > 0
    (1, <Entry Mul>, True)
    """

    __slots__ = ("_entries", "_lean", "_lean_stats")

    def __init__(self, source=()):
        self._lean_stats = None
        if hasattr(source, "_lean"):  # a GradientTape
            self._entries = list(source._entries or ())
            self._lean = list(source._lean)
            stats = getattr(source._recorder, "stats", None)
            if stats is not None and source._recorder.records is source._lean:
                counted, rows = stats()
                if counted * _STRIDE == len(self._lean):  # they cover every lean record
                    self._lean_stats = rows
        else:
            self._entries = list(source)
            self._lean = []

    def __len__(self) -> int:
        return len(self._entries) + len(self._lean) // _STRIDE

    def entry(self, i: int) -> Entry:
        """Record ``i`` as an `Entry` (a new one for a lean record)."""
        k = i - len(self._entries)
        if k < 0:
            return self._entries[i]
        prim, output, seconds, x, y = self._lean[k * _STRIDE : (k + 1) * _STRIDE]
        return Entry(prim, (x,) if y is None else (x, y), None, output, _NO_PARAMS, seconds)

    @property
    def timed(self) -> bool:
        """Whether any record has a forward time: a profiling tape's do (lean records always
        do), a plain tape's do not (unless a profiling tape recorded the same ops).

        >>> from eagerkernel.runtime.core.tape import ProfilingTape
        >>> x = ek.constant(2.0)
        >>> with ProfilingTape() as profiled:
        ...     y = x * x
        >>> with ek.GradientTape() as plain:
        ...     plain.watch(x)
        ...     y = x * x
        >>> Records(profiled).timed, Records(plain).timed
        (True, False)
        """
        return bool(self._lean) or any(e.seconds is not None for e in self._entries)

    def select(self, indices) -> list[tuple]:
        """``(index, prim, inputs, outputs, seconds)`` of the records at ``indices``: what a
        display row shows, without the `Entry` that `entry` makes for a lean record.

        >>> from eagerkernel.runtime.core.tape import ProfilingTape
        >>> x = ek.constant(2.0)
        >>> with ProfilingTape() as tape:
        ...     y = ek.exp(x * x)
        >>> [(i, prim.name, len(ins), outs[0] is y) for i, prim, ins, outs, _ in
        ...  Records(tape).select([1])]
        [(1, 'Exp', 1, True)]
        """
        entries, lean = self._entries, self._lean
        n = len(entries)
        out = []
        for i in indices:
            if i < n:
                e = entries[i]
                out.append((i, e.prim, e.inputs, e.outputs, e.seconds))
            else:
                k = _STRIDE * (i - n)
                prim, output, seconds, x, y = lean[k : k + _STRIDE]
                out.append((i, prim, (x,) if y is None else (x, y), (output,), seconds))
        return out

    def by_op(self) -> list[tuple]:
        """``[(prim, count, seconds), ...]`` for every distinct primitive, in order of first
        appearance, with the total forward time of its timed records: None when none of them
        was timed (a `custom_gradient` call's record, a plain tape's).

        The lean records' part comes from the C recorder's running counts when it has them,
        in a few steps per distinct op; otherwise from one pass over the records.

        >>> from eagerkernel.runtime.core.tape import ProfilingTape
        >>> x = ek.constant(1.0)
        >>> with ProfilingTape() as tape:
        ...     y = x * x + x * x
        >>> [(prim.name, count) for prim, count, seconds in Records(tape).by_op()]
        [('Mul', 2), ('AddV2', 1)]
        """
        totals: dict = {}  # prim -> [count, seconds of the timed ones, timed]
        for e in self._entries:
            slot = totals.get(e.prim)
            if slot is None:
                slot = totals[e.prim] = [0, 0.0, False]
            slot[0] += 1
            if e.seconds is not None:
                slot[1] += e.seconds
                slot[2] = True
        lean = self._lean_stats
        if lean is None and self._lean:
            lean = _lean_totals(self._lean[0::_STRIDE], self._lean[2::_STRIDE])
        for prim, count, seconds in lean or ():  # lean records are always timed
            slot = totals.get(prim)
            if slot is None:
                slot = totals[prim] = [0, 0.0, False]
            slot[0] += count
            slot[1] += seconds
            slot[2] = True
        return [(prim, n, sec if timed else None) for prim, (n, sec, timed) in totals.items()]

    def fields(self, *names: str) -> list[list]:
        """One list per name in ``names`` (``"prim"``, ``"inputs"``, ``"output"``,
        ``"params"``, ``"seconds"``, ``"ids"``), with one item per record. ``ids`` items are
        None where the ids are those of the inputs (`Entry.ids` gives them for every record).
        """
        entries, lean = self._entries, self._lean
        n_lean = len(lean) // _STRIDE
        columns = []
        for name in names:
            if name in _SLOT:
                tail = lean[_SLOT[name] :: _STRIDE]
            elif name == "inputs":
                xs, ys = lean[3::_STRIDE], lean[4::_STRIDE]
                tail = [(x,) if y is None else (x, y) for x, y in zip(xs, ys)]
            elif name == "params":
                tail = [_NO_PARAMS] * n_lean
            elif name == "ids":
                tail = [None] * n_lean
            else:
                raise ValueError(f"Records.fields: no field {name!r}.")
            if entries:
                attr = "_ids" if name == "ids" else name
                tail = [getattr(e, attr) for e in entries] + tail
            columns.append(tail)
        return columns


def _lean_totals(prims: list, seconds: list) -> list[tuple]:
    """``[(prim, count, seconds)]`` over lean records (always timed), in order of first
    appearance, in a few C-speed passes: the records' primitives become small codes, which
    ``numpy.bincount`` counts and weighs."""
    slots = {prim: k for k, prim in enumerate(dict.fromkeys(prims))}
    if len(slots) == 1:
        return [(prims[0], len(prims), sum(seconds))]
    codes = operator.itemgetter(*prims)(slots)  # one C loop looks every record up
    codes = np.fromiter(codes, np.intp, len(prims))
    counts = np.bincount(codes, minlength=len(slots)).tolist()
    totals = np.bincount(codes, weights=seconds, minlength=len(slots)).tolist()
    return [(prim, counts[k], totals[k]) for prim, k in slots.items()]
