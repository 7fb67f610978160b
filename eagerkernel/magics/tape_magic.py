"""``%%tape``: run a cell on a profiling GradientTape and show the ops it recorded.

The magic displays three objects: a `TapeRecord` (one row per op: index, op, input and output
specs; deterministic, so nbval can compare it), a `TapeTiming` (forward time per op, share of
the total, and an aggregate by op type; changes on every run), and a `TapeGraph` (the picture,
image/png). See `TapeMagics.tape` for how
a notebook checked by nbval deals with the timing.
"""

from __future__ import annotations

import keyword
from collections.abc import Sequence

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display

from ..runtime.tape import ProfilingTape
from ..runtime.tensor import Tensor
from .formatting import (
    LazyRows,
    format_seconds,
    html_table,
    share_cell,
    spec,
    text_table,
    timing_cell,
    truncate_rows,
)
from .graph import TapeGraph

__all__ = ["TapeMagics", "TapeRecord", "TapeTiming"]

DEFAULT_MAX_ROWS = 50


def _specs(tensors: Sequence) -> str:
    return ", ".join(spec(t) for t in tensors)


class _NoHighlight:
    """``hl[k]`` is False for every row."""

    def __getitem__(self, k) -> bool:
        return False


class _TableView:
    """Shared display plumbing: subclasses build ``(headers, rows, highlight)`` and a title."""

    title: str = ""
    max_rows: int = DEFAULT_MAX_ROWS

    def _table(self) -> tuple[list[str], list[list[str]], list[bool]]:
        raise NotImplementedError

    def _extra(self) -> list[tuple[str, list[str], list[list[str]]]]:
        """Further ``(caption, headers, rows)`` tables shown under the main one."""
        return []

    def __repr__(self) -> str:
        headers, rows, hl = self._table()
        rows, kept = truncate_rows(rows, self.max_rows)
        marks = ["!" if k >= 0 and hl[k] else " " for k in kept]
        parts = [self.title, text_table(headers, rows, marks=marks)]
        for caption, h, r in self._extra():
            parts += [caption, text_table(h, r)]
        return "\n".join(parts)

    def _repr_pretty_(self, p, cycle: bool) -> None:
        p.text(repr(self))

    def _repr_html_(self) -> str:
        headers, rows, hl = self._table()
        rows, kept = truncate_rows(rows, self.max_rows)
        highlight = [k >= 0 and hl[k] for k in kept]
        parts = [html_table(headers, rows, caption=self.title, highlight=highlight)]
        for caption, h, r in self._extra():
            parts.append(html_table(h, r, caption=caption))
        return '<div class="eagerkernel-tape">' + "".join(parts) + "</div>"


class TapeRecord(_TableView):
    """The ops a tape recorded, oldest first: index, op name, input and output specs.

    Specs read ``float32[2,3]`` (dtype and shape), with ``@/gpu:0`` appended off the CPU.
    The record is a snapshot taken when it is made; it holds the tape's `Entry` objects.

    Attributes:
        name: the tape's name in the user namespace (``"_tape"``).
        entries: the recorded `Entry` objects.
        max_rows: longer tapes show their first and last rows around a ``… N more ops …`` row.
        timing: the matching `TapeTiming`.

    >>> tape = ProfilingTape()
    >>> with tape:
    ...     y = ek.constant(2.0) * ek.constant(3.0) + 1.0
    >>> print(TapeRecord(tape, "t"))
    Tape `t`: 2 ops recorded
      #  op     inputs                outputs
      -  -----  --------------------  ---------
      0  Mul    float32[], float32[]  float32[]
      1  AddV2  float32[], float32[]  float32[]
    """

    def __init__(
        self,
        tape: ProfilingTape,
        name: str | None = "_tape",
        max_rows: int = DEFAULT_MAX_ROWS,
        names: dict | None = None,
    ):
        self.name = name
        self.entries = tape.entries
        self.max_rows = max_rows
        self.timing = TapeTiming(self.entries, name, max_rows)
        self._names = names
        self._graph: TapeGraph | None = None

    @property
    def graph(self) -> TapeGraph:
        """The graph picture (`TapeGraph`): ops layered by topological depth, repeated
        chains collapsed, at most ``max_rows`` nodes. Displays as image/png only."""
        if self._graph is None:
            self._graph = TapeGraph(self.entries, self.name, self.max_rows, self._names)
        return self._graph

    def graph_png(self) -> bytes:
        """The graph picture as PNG bytes."""
        return self.graph.png()

    @property
    def op_names(self) -> list[str]:
        """The op names in recording order, e.g. ``["Mul", "AddV2"]``."""
        return [e.prim.name for e in self.entries]

    @property
    def title(self) -> str:
        n = len(self.entries)
        where = f"Tape `{self.name}`" if self.name else "Tape"
        return f"{where}: {n} op{'' if n == 1 else 's'} recorded"

    def _table(self):
        entries = self.entries

        def row(i):
            e = entries[i]
            return [str(i), e.prim.name, _specs(e.inputs), _specs(e.outputs)]

        rows = LazyRows(len(entries), row)
        return ["#", "op", "inputs", "outputs"], rows, _NoHighlight()


class TapeTiming(_TableView):
    """Forward time of each op on a tape, its share of the total, and totals by op type.

    Times come from `Entry.seconds` (measured by profiling tapes only; ``—`` for ops recorded
    without a time, such as `custom_gradient` calls). Op types are listed in order of first
    appearance so that the layout does not change between runs, only the numbers.

    Attributes:
        total: total forward seconds of the timed ops.
        by_op: ``{op name: (count, seconds)}`` in order of first appearance.
    """

    def __init__(self, entries: list, name: str | None = "_tape", max_rows: int = DEFAULT_MAX_ROWS):
        self.name = name
        self.entries = entries
        self.max_rows = max_rows
        self.total = sum(e.seconds for e in entries if e.seconds is not None)
        by_op: dict[str, list] = {}
        for e in entries:
            slot = by_op.setdefault(e.prim.name, [0, 0.0])
            slot[0] += 1
            slot[1] += e.seconds or 0.0
        self.by_op = {k: (c, s) for k, (c, s) in by_op.items()}

    @property
    def title(self) -> str:
        n = len(self.entries)
        where = f" on `{self.name}`" if self.name else ""
        return (
            f"Forward time{where}: {n} op{'' if n == 1 else 's'}, "
            f"total {format_seconds(self.total)}"
        )

    def _table(self):
        entries, total = self.entries, self.total

        def row(i):
            e = entries[i]
            return [str(i), e.prim.name, timing_cell(e.seconds), share_cell(e.seconds, total)]

        return ["#", "op", "time", "share"], LazyRows(len(entries), row), _NoHighlight()

    def _extra(self):
        rows = [
            [op, str(count), timing_cell(sec), share_cell(sec, self.total)]
            for op, (count, sec) in self.by_op.items()
        ]
        rows.append(["total", str(len(self.entries)), timing_cell(self.total), "100.0%"])
        return [("By op type:", ["op", "count", "time", "share"], rows)]


@magics_class
class TapeMagics(Magics):
    """The ``%%tape`` cell magic."""

    @magic_arguments()
    @argument("name", nargs="?", default="_tape", help="where to keep the tape (default `_tape`)")
    @argument(
        "--persistent",
        action="store_true",
        help="append this cell's ops to the existing tape NAME instead of starting a new one",
    )
    @argument("--watch", nargs="+", default=[], metavar="VAR", help="variables to watch")
    @argument(
        "--sync", action="store_true", help="synchronize the device around each op (GPU timing)"
    )
    @argument(
        "--max-rows",
        type=int,
        default=DEFAULT_MAX_ROWS,
        help=f"rows shown before a long tape is cut in the middle (default {DEFAULT_MAX_ROWS}; "
        "0 shows all)",
    )
    @cell_magic
    def tape(self, line: str, cell: str) -> None:
        """Run the cell while recording every op on a GradientTape, then show what it recorded.

        The cell runs as any cell does (IPython syntax, its last expression is displayed, an
        exception shows its traceback and fails the cell). Every op it runs is recorded, with
        its forward time, on a persistent `ProfilingTape` kept in the namespace as
        ``_tape`` (or NAME) even when the cell fails, so ``%grad`` can differentiate any result
        of the cell with respect to any float tensor the cell used. The cell can also use the
        tape itself (``_tape.gradient(y, x)``). Each ``%%tape`` cell starts a new tape, unless
        ``--persistent`` appends its ops to the existing tape NAME (a computation spread over
        several cells). ``--watch x y`` watches those variables, as ``tape.watch`` does.

        Three displays follow the cell's own output:

        * the op record: index, op, inputs and outputs as ``dtype[shape]`` (``@device`` when
          not on the CPU). It is the same on every run.
        * the timing: forward time per op (ns, µs, ms or s), share of the total, and totals
          by op type. The numbers change on every run. A notebook checked by nbval either
          tags the cell ``nbval-ignore-output`` or sanitizes the numbers with the patterns of
          ``eagerkernel/resources/nbval_sanitize.cfg`` (``--nbval-sanitize-with``).
        * the graph picture (image/png, plus a one-line text form): ops and the tensors they
          read, layered by topological depth; repeated chains collapse into one node
          (``Mul→AddV2 ×1000``) and at most ``--max-rows`` nodes are drawn.

        With ``--sync`` the device is synchronized before and after each op, so that GPU
        times measure the kernels and not their launch.

        Cells with top-level ``await`` are not supported inside ``%%tape``.

        Examples::

            %%tape
            w = ek.Variable(2.0); x = ek.constant(3.0)
            y = w * x + 1.0

            %%tape fwd --watch x --max-rows 20
            y = ek.exp(x)
        """
        args = parse_argstring(self.tape, line)
        name = args.name
        if not name.isidentifier() or keyword.iskeyword(name):
            raise UsageError(f"%%tape: NAME must be a Python identifier. Received: {name!r}.")
        ns = self.shell.user_ns
        previous = ns.get(name)
        if args.persistent and isinstance(previous, ProfilingTape):
            tape = previous
        else:
            tape = ProfilingTape()
        tape.sync = args.sync
        for var in args.watch:
            if var not in ns:
                raise UsageError(f"%%tape --watch: name {var!r} is not defined.")
            try:
                tape.watch(ns[var])
            except ValueError as e:
                raise UsageError(f"%%tape --watch {var}: {e}") from None
        ns[name] = tape

        # A nested run_cell replaces (and then clears) the displayhook's ExecutionResult of
        # the cell that holds this magic; keep it, so that a failure inside can be reported
        # as the failure of the outer cell without showing the traceback twice.
        outer = self.shell.displayhook.exec_result
        try:
            with tape:
                result = self.shell.run_cell(cell)
        finally:
            self.shell.displayhook.exec_result = outer

        names = {id(v): k for k, v in ns.items() if isinstance(v, Tensor) and k[:1] != "_"}
        record = TapeRecord(tape, name, args.max_rows, names)
        display(record)
        display(record.timing)
        display(record.graph)
        error = result.error_before_exec or result.error_in_exec
        if error is not None:
            if outer is None:  # called outside a cell (run_cell_magic from code): raise
                raise error
            outer.error_in_exec = error
