"""What tapes record: one `Record` per op; `Records`, the view displays read.

A `Record` is one op as a recorder received it from `dispatch` (`Recorder.record`), with what
the backward pass needs: the primitive, the inputs (a Variable replaced by a snapshot of its
value, its own id kept in ``ids``), the output(s), the params, the values the forward saved for
the VJP, and the forward time when it was measured. Every tape, plain or profiling, keeps a
list of these, oldest first.
"""

from __future__ import annotations

import operator as _operator

__all__ = ["Record", "Records"]

try:  # `Records.by_op` and `owned_bytes` in one C pass; the Python loops below are their
    # specification
    from ..native import ENABLED as _NATIVE
    from ..native._tape import op_totals as _op_totals
    from ..native._tape import owned_bytes as _owned_bytes
    from ..native._tape import setup_arrays as _setup_arrays

    if not _NATIVE:
        _op_totals = _owned_bytes = None
    else:
        import numpy as _np

        # Sample arrays on which the C side checks the ndarray fields it reads.
        _setup_arrays(
            _np.ndarray, [_np.zeros(3, _np.float32), _np.zeros((2, 4))[:, 1:], _np.ones(())]
        )
except ImportError:  # not built
    _op_totals = _owned_bytes = None

_NO_PARAMS: dict = {}


class PyRecord:
    """One recorded op: what the backward pass needs, and what ``%%tape`` displays.

    `Record` is this class, or its C twin (``native/_tape.c``, the same fields, constructor,
    properties and repr, cheaper to make and free) where that was built.

    Attributes:
        prim: the `Primitive`.
        inputs: the input Tensors (a Variable appears as a snapshot of the value it had).
        ids: ``id`` of each input as the backward pass keys it: for a snapshot, the Variable's
            id (so its gradient reaches the Variable). Stored as None when they are the
            inputs' own ids, which the recording path then need not build.
        output: a Tensor, or a tuple of Tensors for a multi-output primitive.
        params: the op's keyword parameters.
        saved: what the forward saved for the VJP (``Primitive.saves``), or None.
        seconds: the forward's wall time when a recorder asked for it (``%%tape``), else None.
    """

    __slots__ = ("_ids", "inputs", "output", "params", "prim", "saved", "seconds")

    def __init__(self, prim, inputs, ids, output, params=_NO_PARAMS, saved=None, seconds=None):
        self.prim = prim
        self.inputs = inputs
        self._ids = ids
        self.output = output
        self.params = params
        self.saved = saved
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
        return f"<Record {self.prim.name}>"


FIELDS = ("prim", "inputs", "_ids", "output", "params", "saved", "seconds")

Record = PyRecord
try:
    from ..native import ENABLED as _NATIVE
    from ..native._tape import Record as _NativeRecord

    if _NATIVE:
        Record = _NativeRecord
except ImportError:  # not built: the Python class is the record type
    pass


class Records:
    """A snapshot of what a tape recorded, for its displays: one `Record` per op, oldest first.

    Args:
        source: a tape (its records), or a list of `Record` objects.

    >>> from eagerkernel.runtime.core.profiling_tape import ProfilingTape
    >>> tape = ProfilingTape()
    >>> with tape:
    ...     y = ek.constant(2.0) * 3.0
    >>> records = Records(tape)
    >>> len(records), records.entry(0), records.fields("prim", "seconds")[1][0] > 0
    (1, <Record Mul>, True)
    """

    __slots__ = ("_lines", "_marks", "_records")

    def __init__(self, source=()):
        records = getattr(source, "records", None)
        if records is not None and not isinstance(source, (list, tuple)):  # a tape
            self._records = list(records)
            # A profiling tape also knows where each op was called from and its scopes.
            lines = getattr(source, "_lines", None)
            self._lines = list(lines) if lines is not None else None
            self._marks = list(getattr(source, "_scope_marks", ()))
        else:
            self._records = list(source)
            self._lines = None
            self._marks = []

    def __len__(self) -> int:
        return len(self._records)

    def sources(self) -> list:
        """Per record, ``(code, line number)`` of the user frame that ran it (the innermost one
        outside eagerkernel), or None where not known (a plain tape records no callers)."""
        lines = self._lines
        n = len(self._records)
        if lines is None or len(lines) != n:
            return [None] * n
        return lines

    def scopes(self) -> list:
        """Per record, the scope path it ran in: ``((kind, name), ...)``, outermost first
        (kind ``"layer"``, ``"name_scope"``, ``"backward"``, ``"optimizer"`` or
        ``"function"``); ``()`` outside any scope and on a plain tape.

        >>> from eagerkernel.runtime.core.profiling_tape import ProfilingTape
        >>> dense = ek.keras.layers.Dense(2, name="d")
        >>> with ProfilingTape() as tape:
        ...     y = ek.reduce_sum(dense(ek.ones((1, 3))))
        >>> [(r.prim.name, [n for _, n in s]) for r, s in zip(tape.records, Records(tape).scopes())]
        [('MatMul', ['d']), ('BiasAdd', ['d']), ('Sum', [])]
        """
        from .profiling_tape import scopes_of

        return scopes_of(len(self._records), self._marks)

    @property
    def scope_marks(self) -> list:
        """``(first record, path, perf_counter time)`` each time the scope path changed while
        recording (an optimizer's in-place update shows as a mark with no record before the
        next one; the times give its duration)."""
        return list(self._marks)

    def entry(self, i: int) -> Record:
        """Record ``i``."""
        return self._records[i]

    @property
    def timed(self) -> bool:
        """Whether any record has a forward time: a profiling tape's do, a plain tape's do not.

        >>> from eagerkernel.runtime.core.profiling_tape import ProfilingTape
        >>> x = ek.constant(2.0)
        >>> with ProfilingTape() as profiled:
        ...     y = x * x
        >>> with ek.GradientTape() as plain:
        ...     plain.watch(x)
        ...     y = x * x
        >>> Records(profiled).timed, Records(plain).timed
        (True, False)
        """
        return any(r.seconds is not None for r in self._records)

    def select(self, indices) -> list[tuple]:
        """``(index, prim, inputs, outputs, seconds)`` of the records at ``indices``: what a
        display row shows.

        >>> from eagerkernel.runtime.core.profiling_tape import ProfilingTape
        >>> x = ek.constant(2.0)
        >>> with ProfilingTape() as tape:
        ...     y = ek.exp(x * x)
        >>> [(i, prim.name, len(ins), outs[0] is y) for i, prim, ins, outs, _ in
        ...  Records(tape).select([1])]
        [(1, 'Exp', 1, True)]
        """
        records = self._records
        out = []
        for i in indices:
            r = records[i]
            out.append((i, r.prim, r.inputs, r.outputs, r.seconds))
        return out

    def by_op(self) -> list[tuple]:
        """``[(prim, count, seconds), ...]`` for every distinct primitive, in order of first
        appearance, with the total forward time of its timed records: None when none of them
        was timed (a `custom_gradient` call's record, a plain tape's).

        One pass over the records, in C when ``native/_tape.c`` was built.

        >>> from eagerkernel.runtime.core.profiling_tape import ProfilingTape
        >>> x = ek.constant(1.0)
        >>> with ProfilingTape() as tape:
        ...     y = x * x + x * x
        >>> [(prim.name, count) for prim, count, seconds in Records(tape).by_op()]
        [('Mul', 2), ('AddV2', 1)]
        """
        if _op_totals is not None:
            return _op_totals(self._records, Record)
        totals: dict = {}  # prim -> [count, seconds of the timed ones, timed]
        for r in self._records:
            slot = totals.get(r.prim)
            if slot is None:
                slot = totals[r.prim] = [0, 0.0, False]
            slot[0] += 1
            if r.seconds is not None:
                slot[1] += r.seconds
                slot[2] = True
        return [(prim, n, sec if timed else None) for prim, (n, sec, timed) in totals.items()]

    def owned_bytes(self) -> tuple[int, list[int]] | None:
        """``(bytes, views)``: the total ``nbytes`` of the records' output arrays that own
        their memory (``base`` is None), and the indices of the records whose output array is
        a view; None when a record has several outputs. One pass, in C when
        ``native/_tape.c`` was built.

        >>> from eagerkernel.runtime.core.profiling_tape import ProfilingTape
        >>> x = ek.constant([[1.0, 2.0], [3.0, 4.0]])
        >>> with ProfilingTape() as tape:
        ...     y = x * x  # a new float32[2,2] array: 16 bytes
        ...     z = ek.transpose(y)  # a view of y's array
        >>> Records(tape).owned_bytes()
        (16, [1])
        """
        if _owned_bytes is not None:
            try:
                return _owned_bytes(self._records, Record, "_value")
            except TypeError:  # a list of other record objects: the Python pass below
                pass
        (outputs,) = self.fields("output")
        if any(type(o) is tuple for o in outputs):
            return None
        total = 0
        views = []
        for i, o in enumerate(outputs):
            value = o._value
            if value.base is None:
                total += int(value.nbytes)
            else:
                views.append(i)
        return total, views

    def fields(self, *names: str) -> list[list]:
        """One list per name in ``names`` (``"prim"``, ``"inputs"``, ``"output"``,
        ``"params"``, ``"seconds"``, ``"ids"``, ``"saved"``), with one item per record.
        ``ids`` items are None where the ids are those of the inputs (`Record.ids` gives them
        for every record).

        Raises:
            ValueError: an unknown field name.
        """
        columns = []
        for name in names:
            attr = "_ids" if name == "ids" else name
            if attr not in FIELDS:
                raise ValueError(f"Records.fields: no field {name!r}.")
            columns.append(list(map(_operator.attrgetter(attr), self._records)))  # in C
        return columns
