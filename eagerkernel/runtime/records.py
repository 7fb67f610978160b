"""What tapes record: an `Entry` per op, or a lean record; `Records`, what displays read.

An `Entry` is one recorded op with what the backward pass needs. Under %%tape alone (one
profiling tape recording, no device scope, no --sync: `state.LEAN`), an op of the tape's
thread on one or two plain Tensors, without params, makes no `Entry`: it extends the tape's
flat list ``_lean`` with five slots,

    prim, output, seconds, x, y        (y is None for a one-input op)

which allocates nothing that lives on: no object per op for the cyclic GC to traverse or to
free later, and %%tape's displays read each field as a slice (`Records.fields`). `tape.execute`
and the op builders of `ops/_core.py` write these slots. A tape's records are its `Entry` list
``_entries`` followed by ``_lean``; `GradientTape._flush` turns ``_lean`` into Entries (before
any other Entry is appended, and whenever the Entries are needed: `entries`, `gradient`).
"""

from __future__ import annotations

__all__ = ["Entry", "Records", "lean_entries"]

_NO_PARAMS: dict = {}


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

    `entry` gives one record as an `Entry`, `op` its prim, inputs and outputs; `fields` gives
    whole columns, and reads a ``%%tape`` cell's lean records at C speed, where
    `GradientTape.entries` would make an object per op.

    Args:
        source: a tape, or a list of `Entry` objects.

    >>> from eagerkernel.runtime.tape import ProfilingTape
    >>> tape = ProfilingTape()
    >>> with tape:
    ...     y = ek.constant(2.0) * 3.0
    >>> records = Records(tape)
    >>> len(records), records.entry(0), records.fields("prim", "seconds")[1][0] > 0
    (1, <Entry Mul>, True)
    """

    __slots__ = ("_entries", "_lean")

    def __init__(self, source=()):
        if hasattr(source, "_lean"):  # a GradientTape
            self._entries = list(source._entries or ())
            self._lean = list(source._lean)
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

    def op(self, i: int) -> tuple:
        """Record ``i`` as ``(prim, inputs, outputs)``: what a display row shows, without the
        `Entry` that `entry` makes for a lean record."""
        k = i - len(self._entries)
        if k < 0:
            e = self._entries[i]
            return e.prim, e.inputs, e.outputs
        prim, output, _, x, y = self._lean[k * _STRIDE : (k + 1) * _STRIDE]
        return prim, (x,) if y is None else (x, y), (output,)

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
