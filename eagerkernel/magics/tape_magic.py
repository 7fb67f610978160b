"""``%%tape``: run a cell on a profiling GradientTape and show the ops it recorded.

The magic displays two objects: a `TapeRecord` (one row per op: index, op, input and output
specs, forward time and share of the total; then the totals by op type) and a `TapeGraph`
(the picture, image/png). `TapeTiming` is the timing alone, as an object of its own
(``record.timing``). See `TapeMagics.tape` for how a notebook checked by nbval deals with the
times, which change on every run.
"""

from __future__ import annotations

import copy
import functools
import keyword
import sys

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import publish_display_data

from ..runtime.core.records import Records
from ..runtime.core.tape import ProfilingTape
from ..runtime.core.tensor import Tensor
from .formatting import (
    format_seconds,
    html_table,
    kept_indices,
    share_cell,
    specs,
    text_table,
    timing_cell,
)
from .graph import TapeGraph

__all__ = ["TapeMagics", "TapeRecord", "TapeTiming"]

DEFAULT_MAX_ROWS = 50


def show(view, active_types) -> None:
    """Displays one of the magics' views with the MIME types in ``active_types`` (the front
    end's: `DisplayFormatter.active_types`), from its ``_repr_mimebundle_``.

    The same output as ``display(view)``, without IPython's formatter, which asks each of its
    ten formatters in turn (%%tape makes two displays per cell).
    """
    publish_display_data(view._repr_mimebundle_(include=active_types))


@functools.lru_cache(maxsize=64)
def _parse_cached(magic, line: str):
    return parse_argstring(magic, line)


def _parse(magic, line: str):
    """``parse_argstring(magic, line)``, parsed once per distinct line (a cell re-run has the
    same line, and argparse is slow next to a small cell). A copy, so callers may change it."""
    return copy.copy(_parse_cached(magic, line))


def _unreferenced(tape) -> bool:
    """Whether the namespace holds the only reference to ``tape``: CPython counts four here
    (the namespace, the caller's variable, this function's argument and getrefcount's)."""
    count = getattr(sys, "getrefcount", None)
    return count is not None and count(tape) <= 4


class _TableView:
    """Shared display plumbing: subclasses give a title, the headers, the rows of some
    records (`_rows`) and the tables under the main one (`_extra`)."""

    title: str = ""
    headers: tuple[str, ...] = ()
    max_rows: int = DEFAULT_MAX_ROWS

    def _rows(self, selected: list[tuple]) -> list[list[str]]:
        """The table rows of ``selected`` records (`Records.select`)."""
        raise NotImplementedError

    def _extra(self) -> list[tuple[str, list[str], list[list[str]]]]:
        """Further ``(caption, headers, rows)`` tables shown under the main one."""
        return []

    def _shown(self) -> list[list[str]]:
        """The rows shown: the first and last records around a ``… N more ops …`` row
        (`kept_indices`), made once per ``max_rows`` since a notebook asks for text and HTML,
        and made for those records only."""
        cached = getattr(self, "_shown_rows", None)
        if cached is not None and cached[0] == self.max_rows:
            return cached[1]
        kept = kept_indices(len(self.records), self.max_rows)
        rows = self._rows(self.records.select([i for i in kept if i >= 0]))
        if len(rows) < len(kept):  # the gap row
            gap = kept.index(-1)
            rows.insert(gap, [f"… {len(self.records) - len(rows)} more ops …"])
        self._shown_rows = (self.max_rows, rows)
        return rows

    def __repr__(self) -> str:
        parts = [self.title, text_table(self.headers, self._shown())]
        for caption, h, r in self._extra():
            parts += [caption, text_table(h, r)]
        return "\n".join(parts)

    def _repr_pretty_(self, p, cycle: bool) -> None:
        p.text(repr(self))

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        # text/plain straight from repr, without IPython's pretty printer.
        # HTML only when asked for by name (`show`): IPython's display() asks with
        # include=None, and then calls _repr_html_ itself if the front end shows HTML.
        bundle = {"text/plain": repr(self)}
        if include and "text/html" in include and not (exclude and "text/html" in exclude):
            bundle["text/html"] = self._repr_html_()
        return bundle

    def _repr_html_(self) -> str:
        parts = [html_table(self.headers, self._shown(), caption=self.title)]
        for caption, h, r in self._extra():
            parts.append(html_table(h, r, caption=caption))
        return '<div class="eagerkernel-tape">' + "".join(parts) + "</div>"


class TapeRecord(_TableView):
    """The ops a tape recorded, oldest first: index, op name, input and output specs, forward
    time and share of the total; then the totals by op type (`TapeTiming`).

    Specs read ``float32[2,3]`` (dtype and shape), with ``@/gpu:0`` appended off the CPU.
    Times use the unit that fits (ns, µs, ms, s) in a column of fixed width, so that only
    the numbers change from run to run; an op recorded without a time (a `custom_gradient`
    call) shows ``—``. The record is a snapshot taken when it is made (a `Records`); it
    formats only the rows it shows. A plain `GradientTape`, whose ops were not timed, shows
    its ops alone.

    Attributes:
        name: the tape's name in the user namespace (``"_tape"``).
        records: the snapshot (`Records`); ``entries`` lists them as `Record` objects.
        max_rows: longer tapes show their first and last rows around a ``… N more ops …`` row.
        timing: the matching `TapeTiming` (``total``, ``by_op``).
        graph: the matching `TapeGraph`; ``picture=False`` when its picture is not shown.

    >>> tape = ProfilingTape()
    >>> with tape:
    ...     y = ek.constant(2.0) * ek.constant(3.0) + 1.0
    >>> print(TapeRecord(tape, "t"))  # doctest: +ELLIPSIS
    Tape `t`: 2 ops recorded, forward time ...s
      #  op     inputs                outputs    time     share
      -  -----  --------------------  ---------  -------  ------
      0  Mul    float32[], float32[]  float32[]  ...s  ...%
      1  AddV2  float32[], float32[]  float32[]  ...s  ...%
    By op type:
      op     count  time     share
      -----  -----  -------  ------
      Mul    1      ...s  ...%
      AddV2  1      ...s  ...%
      total  2      ...s  100.0%
    """

    def __init__(
        self,
        tape: ProfilingTape,
        name: str | None = "_tape",
        max_rows: int = DEFAULT_MAX_ROWS,
        names: dict | None = None,
        picture: bool = True,
    ):
        self.name = name
        self.records = Records(tape)
        self.max_rows = max_rows
        self.timing = TapeTiming(self.records, name, max_rows)
        # A profiling tape times its ops (a custom_gradient call shows "—"); a plain
        # GradientTape's ops have no times, unless a profiling tape recorded them too.
        self._timed = isinstance(tape, ProfilingTape) or self.records.timed
        self._names = names
        self._picture = picture
        self._graph: TapeGraph | None = None

    @property
    def entries(self) -> list:
        return [self.records.entry(i) for i in range(len(self.records))]

    @property
    def graph(self) -> TapeGraph:
        """The graph picture (`TapeGraph`): ops layered by topological depth, repeated
        chains collapsed, at most ``max_rows`` nodes. Displays as image/png only."""
        if self._graph is None:
            self._graph = TapeGraph(
                self.records, self.name, self.max_rows, self._names, self._picture
            )
        return self._graph

    def graph_png(self) -> bytes:
        """The graph picture as PNG bytes."""
        return self.graph.png()

    @property
    def op_names(self) -> list[str]:
        """The op names in recording order, e.g. ``["Mul", "AddV2"]``."""
        (prims,) = self.records.fields("prim")
        return [p.name for p in prims]

    @property
    def title(self) -> str:
        n = len(self.records)
        where = f"Tape `{self.name}`" if self.name else "Tape"
        title = f"{where}: {n} op{'' if n == 1 else 's'} recorded"
        if self._timed:
            title += f", forward time {format_seconds(self.timing.total)}"
        return title

    @property
    def headers(self) -> tuple[str, ...]:
        if self._timed:
            return ("#", "op", "inputs", "outputs", "time", "share")
        return ("#", "op", "inputs", "outputs")

    def _rows(self, selected):
        total, timed = self.timing.total, self._timed  # a plain GradientTape: the ops alone
        return [
            [
                str(i),
                prim.name,
                specs(inputs),
                specs(outputs),
                *((timing_cell(seconds), share_cell(seconds, total)) if timed else ()),
            ]
            for i, prim, inputs, outputs, seconds in selected
        ]

    def _extra(self):
        return self.timing._extra() if self._timed else []


class TapeTiming(_TableView):
    """Forward time of each op on a tape, its share of the total, and totals by op type: the
    time columns of a `TapeRecord` (``record.timing``) as a view of their own.

    Times come from `Record.seconds` (measured by profiling tapes only; ``—`` for ops recorded
    without a time, such as `custom_gradient` calls). Op types are listed in order of first
    appearance so that the layout does not change between runs, only the numbers.

    Args:
        entries: the tape's `Record` objects, or its `Records`.

    Attributes:
        total: total forward seconds of the timed ops (None when no op was timed).
        by_op: ``{op name: (count, seconds)}`` in order of first appearance; seconds is None
            for an op type none of whose ops was timed.
    """

    def __init__(self, entries, name: str | None = "_tape", max_rows: int = DEFAULT_MAX_ROWS):
        self.name = name
        self.records = entries if isinstance(entries, Records) else Records(entries)
        self.max_rows = max_rows
        by_op: dict[str, list] = {}
        for prim, count, seconds in self.records.by_op():  # primitives of a name add up
            slot = by_op.setdefault(prim.name, [0, None])
            slot[0] += count
            if seconds is not None:
                slot[1] = seconds if slot[1] is None else slot[1] + seconds
        self.by_op = {name: (count, seconds) for name, (count, seconds) in by_op.items()}
        timed = [seconds for _, seconds in self.by_op.values() if seconds is not None]
        self.total = sum(timed) if timed else None

    @property
    def entries(self) -> list:
        return [self.records.entry(i) for i in range(len(self.records))]

    @property
    def title(self) -> str:
        n = len(self.records)
        where = f" on `{self.name}`" if self.name else ""
        return (
            f"Forward time{where}: {n} op{'' if n == 1 else 's'}, "
            f"total {format_seconds(self.total)}"
        )

    headers = ("#", "op", "time", "share")

    def _rows(self, selected):
        total = self.total
        return [
            [str(i), prim.name, timing_cell(seconds), share_cell(seconds, total)]
            for i, prim, _, _, seconds in selected
        ]

    def _extra(self):
        rows = [
            [op, str(count), timing_cell(sec), share_cell(sec, self.total)]
            for op, (count, sec) in self.by_op.items()
        ]
        total = self.total
        rows.append(["total", str(len(self.records)), timing_cell(total), share_cell(total, total)])
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
        several cells). ``--watch x y`` watches those variables, as ``tape.watch`` does. When
        nothing else refers to the tape a new one replaces, its records are let go of while
        the cell runs, one per op recorded, so that the new ops reuse their memory
        (`ProfilingTape.release_while_recording`); a tape still referenced stays whole.

        Two displays follow the cell's own output:

        * the op record: one row per op with its index, op, inputs and outputs as
          ``dtype[shape]`` (``@device`` when not on the CPU), forward time (ns, µs, ms or s)
          and share of the total; then the totals by op type. The times change on every run,
          the rest does not: a notebook checked by nbval either tags the cell
          ``nbval-ignore-output`` or sanitizes the times with the patterns of
          ``eagerkernel/resources/nbval_sanitize.cfg`` (``--nbval-sanitize-with``), which the
          fixed-width time columns keep aligned.
        * the graph picture (image/png, plus a one-line text form): ops and the tensors they
          read, layered by topological depth; repeated chains collapse into one node
          (``Mul→AddV2 ×1000``) and at most ``--max-rows`` nodes are drawn. A front end that
          shows no image/png (a terminal) gets the text form alone, which then gives the number
          of ops only, so that the graph is not laid out for nothing.

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
        args = _parse(self.tape, line)
        name = args.name
        if not name.isidentifier() or keyword.iskeyword(name):
            raise UsageError(f"%%tape: NAME must be a Python identifier. Received: {name!r}.")
        ns = self.shell.user_ns
        previous = ns.get(name)
        if args.persistent and isinstance(previous, ProfilingTape):
            tape = previous
        else:
            tape = ProfilingTape()
        tape.set_sync(args.sync)
        for var in args.watch:
            if var not in ns:
                raise UsageError(f"%%tape --watch: name {var!r} is not defined.")
            try:
                tape.watch(ns[var])
            except ValueError as e:
                raise UsageError(f"%%tape --watch {var}: {e}") from None
        if tape is not previous and type(previous) is ProfilingTape and _unreferenced(previous):
            tape.release_while_recording(previous)  # its memory goes to this cell's ops
        del previous
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

        # A text-only front end shows no picture: the graph's text form then needs no layout,
        # nor the names that label the picture's source tensors.
        picture = "image/png" in self.shell.display_formatter.active_types
        names = {}
        if picture:
            names = {id(v): k for k, v in ns.items() if isinstance(v, Tensor) and k[:1] != "_"}
        record = TapeRecord(tape, name, args.max_rows, names, picture)
        active = self.shell.display_formatter.active_types
        show(record, active)
        show(record.graph, active)
        error = result.error_before_exec or result.error_in_exec
        if error is not None:
            if outer is None:  # called outside a cell (run_cell_magic from code): raise
                raise error
            outer.error_in_exec = error
