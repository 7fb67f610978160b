"""``%%tape``: run a cell on a profiling GradientTape and show the ops it recorded.

The magic displays two objects: a `TapeRecord` (``tape_views.py``: one row per op, then the
totals by op type) and a `TapeGraph` (``graph.py``: the picture, inline SVG). See
`TapeMagics.tape` for how a notebook checked by nbval deals with the times, which change on
every run.
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

from ..runtime.core.profiling_tape import ProfilingTape
from ..runtime.core.records import Records
from ..runtime.core.tensor import Tensor
from .cell_runner import run_body
from .replay import DEFAULT_REPEAT, DEFAULT_WARMUP, note_warnings, replay_times, retime
from .tape_views import DEFAULT_MAX_ROWS, DEFAULT_TEXT_ROWS, TapeRecord, TapeTiming

__all__ = ["TapeMagics", "TapeRecord", "TapeTiming"]


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
        default=None,
        help="op rows shown before a long tape is cut in the middle (default "
        f"{DEFAULT_MAX_ROWS} in a notebook's table, {DEFAULT_TEXT_ROWS} in the text form a "
        "terminal shows; 0 shows all)",
    )
    @argument(
        "--time",
        choices=("once", "replay"),
        default="once",
        help="once (default): each op's single recorded run; replay: re-run each op on its "
        "recorded inputs and show the min and median",
    )
    @argument(
        "--repeat",
        type=int,
        default=DEFAULT_REPEAT,
        help=f"timed runs per op with --time replay (default {DEFAULT_REPEAT})",
    )
    @argument(
        "--warmup",
        type=int,
        default=DEFAULT_WARMUP,
        help=f"untimed runs per op before them (default {DEFAULT_WARMUP})",
    )
    @argument(
        "--sort",
        choices=("time", "count", "name"),
        default=None,
        help="order of the totals table (default: order of first appearance)",
    )
    @argument(
        "--by",
        choices=("op", "layer"),
        default="op",
        help="totals by op type (default) or by the layer or scope that ran the ops",
    )
    @argument(
        "--expand",
        action="store_true",
        help="draw the ops of every layer in the graph (large layers are collapsed otherwise)",
    )
    @argument(
        "--saved",
        action="store_true",
        help="draw the edges from forward values to the backward ops that read them",
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
          and share of the total; then the totals by op type. A long tape shows its first and
          last ops around a ``… N more ops …`` row: 50 in a notebook's table, 20 in the text
          form a terminal shows (``--max-rows N`` sets both). The times change on every run,
          the rest does not: a notebook checked by nbval either tags the cell
          ``nbval-ignore-output`` or sanitizes the times with the patterns of
          ``eagerkernel/resources/nbval_sanitize.cfg`` (``--nbval-sanitize-with``), which the
          fixed-width time columns keep aligned.
        * the graph picture, drawn by Graphviz as inline SVG (HTML, plus a one-line text form):
          one node per op, top to bottom, with every data edge; the ops of a Keras layer form a
          cluster labelled with its name (``--expand`` draws the ops of large layers, which
          are otherwise one node); backward passes and optimizer updates have clusters of
          their own colour; hovering a node shows its op, specs, device, time and source
          line; small constants show their value; at most 2 × ``--max-rows`` nodes. The
          edges from forward values to the backward ops that read them (the activations a
          VJP saved) are drawn with ``--saved``; otherwise each backward op's tooltip names
          them and the caption counts them. Without
          Graphviz's ``dot`` a one-line note says how to install it. A front end that shows
          no HTML (a terminal) gets the text form alone, and nothing is laid out.

        Each op row names the layer or scope that ran it (``sequential/dense``,
        ``backward`` for the ops of ``tape.gradient``) and the source line (``line 3`` of
        the cell, ``file.py:12`` elsewhere), and the bytes its output allocated. The times
        are one run per op by default (``--time once``: the first call of a kernel shows its
        warm-up); ``--time replay`` re-runs every op on its recorded inputs ``--warmup``
        times, then ``--repeat`` times timed, and shows the minimum and median, with NumPy
        warnings silenced so that their cost is not billed to the op (`replay_times`). With
        ``--time once``, an op that showed a warning while it ran (NumPy's ``overflow
        encountered in exp``) is timed once more on its inputs with warnings silenced, and
        that time is its own; the title names the ops re-timed (`note_warnings`). The
        totals sort with ``--sort time|count|name`` and group by layer with ``--by layer``.

        A cell that raises shows its traceback (with the cell's own line numbers), then the
        ops it ran before the error, marked partial.

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
        text_rows = DEFAULT_TEXT_ROWS if args.max_rows is None else args.max_rows
        if args.max_rows is None:
            args.max_rows = DEFAULT_MAX_ROWS
        if args.max_rows < 0:
            raise UsageError(
                f"%%tape: --max-rows must be at least 0 (0 shows all). Received: {args.max_rows}."
            )
        if args.repeat < 1 or args.warmup < 0:
            raise UsageError(
                "%%tape: --repeat must be at least 1 and --warmup at least 0. "
                f"Received: --repeat {args.repeat} --warmup {args.warmup}."
            )
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

        # Running the body replaces (and then clears) the displayhook's ExecutionResult of
        # the cell that holds this magic; keep it, so that a failure inside can be reported
        # as the failure of the outer cell without showing the traceback twice.
        outer = self.shell.displayhook.exec_result
        # The magic's line is line 1 of the notebook cell: a first line holding it as a
        # comment makes the body's line numbers (tracebacks, the tables' `line` column) the
        # cell's own (IPython drops a blank first line, not a comment).
        body = f"# %%tape {line}".rstrip() + "\n" + cell
        # IPython counts the running cell before it runs (the shell's count is already the
        # next prompt's); the body runs under the outer cell's number, so that tracebacks
        # name this cell ("Cell In[11]") and not the next one.
        number = self.shell.execution_count
        if outer is not None and outer.execution_count is not None:
            number = outer.execution_count
        noted = note_warnings(tape)
        try:
            with tape, noted:
                result = run_body(self.shell, body, number)
        finally:
            self.shell.displayhook.exec_result = outer

        error = result.error_before_exec or result.error_in_exec
        active = self.shell.display_formatter.active_types
        cell_file = _cell_file(tape)
        if error is None or len(tape.records):  # a cell that raised before any op: no table
            # A text-only front end shows no picture: the graph's text form then needs no
            # layout, nor the names that label the picture's source tensors.
            picture = "text/html" in active
            names = _names(ns) if picture else {}
            replay = None
            retimed: list = []
            if args.time == "replay":
                replay = replay_times(Records(tape), args.repeat, args.warmup, sync=args.sync)
            elif noted.indices:  # ops that showed a warning: their time without it
                retimed = retime(Records(tape), noted.indices, sync=args.sync)
            record = TapeRecord(
                tape,
                name,
                args.max_rows,
                names,
                picture,
                replay=replay,
                sort=args.sort,
                by=args.by,
                error=error,
                cell_file=cell_file,
                expand=args.expand,
                saved=args.saved,
                repeat=args.repeat,
                warmup=args.warmup,
                retimed=retimed,
                text_rows=text_rows,
            )
            show(record, active)
            show(record.graph, active)
        if error is not None:
            if outer is None:  # called outside a cell (run_cell_magic from code): raise
                raise error
            outer.error_in_exec = error


def _cell_file(tape) -> str:
    """The file name IPython gave the cell's code (what tracebacks and the ops' source lines
    name): that of the newest op run by the cell's own top-level code; ``""`` (no file) if
    every op ran inside functions, which are then named by their function."""
    for source in reversed(tape._lines):
        if source is not None and source[0].co_name == "<module>":
            return source[0].co_filename
    return ""


def _names(ns: dict) -> dict:
    """``{id: name}`` for the graph's leaves: the namespace's public Tensors by their variable
    name, and Variables by their own name (``dense/kernel:0``), also those of the Keras layers
    and models in the namespace."""
    from ..runtime.core.variable import Variable
    from ..runtime.keras.layers.base import Layer

    names = {}
    for key, value in ns.items():
        if key[:1] == "_":
            continue
        if isinstance(value, Variable):
            names[id(value)] = value.name
        elif isinstance(value, Tensor):
            names[id(value)] = key
        elif isinstance(value, Layer):
            for v in value.variables:
                names.setdefault(id(v), v.name)
    return names
