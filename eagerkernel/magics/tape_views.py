"""The views ``%%tape`` displays: `TapeRecord` (one row per op: index, op, scope, source
line, input and output specs, bytes, forward time and share of the total; then the totals by
op type or by layer) and `TapeTiming` (the timing alone, ``record.timing``). See
`TapeMagics.tape` for how a notebook checked by nbval deals with the times, which change on
every run.
"""

from __future__ import annotations

from ..runtime.core.profiling_tape import ProfilingTape
from ..runtime.core.records import Records
from .formatting import (
    format_bytes,
    format_seconds,
    html_table,
    kept_indices,
    share_cell,
    specs,
    text_table,
    timing_cell,
)
from .graph import TapeGraph, allocated_bytes, scope_label, section_of, source_text

__all__ = [
    "DEFAULT_MAX_ROWS",
    "DEFAULT_TEXT_ROWS",
    "TapeRecord",
    "TapeTiming",
    "bytes_cell",
    "held_bytes",
]

DEFAULT_MAX_ROWS = 50
#: ``%%tape``'s op rows in the text form (a terminal) unless ``--max-rows`` says otherwise: a
#: screenful with the totals under it. A notebook shows the HTML form's `DEFAULT_MAX_ROWS`.
DEFAULT_TEXT_ROWS = 20


class _TableView:
    """Shared display plumbing: subclasses give a title, the headers, the rows of some
    records (`_rows`) and the tables under the main one (`_extra`)."""

    title: str = ""
    headers: tuple[str, ...] = ()
    max_rows: int = DEFAULT_MAX_ROWS
    text_rows: int | None = None  # the text form's rows: None, as max_rows

    def _rows(self, selected: list[tuple]) -> list[list[str]]:
        """The table rows of ``selected`` records (`Records.select`)."""
        raise NotImplementedError

    def _extra(self) -> list[tuple[str, list[str], list[list[str]]]]:
        """Further ``(caption, headers, rows)`` tables shown under the main one."""
        return []

    def _shown(self, limit: int | None = None) -> list[list[str]]:
        """The rows shown: the first and last records around a ``… N more ops …`` row
        (`kept_indices`), at most ``limit`` of them (default ``max_rows``), made once per
        limit since a notebook asks for text and HTML, and made for those records only."""
        limit = self.max_rows if limit is None else limit
        cache = self.__dict__.setdefault("_shown_rows", {})
        rows = cache.get(limit)
        if rows is not None:
            return rows
        kept = kept_indices(len(self.records), limit)
        if -1 in kept:  # the first and last records around a gap row
            gap = kept.index(-1)
            head, tail = kept[:gap], kept[gap + 1 :]
            hidden = len(self.records) - len(head) - len(tail)
            rows = [
                *self._rows(self.records.select(head)),
                [f"… {hidden} more ops …"],
                *self._rows(self.records.select(tail)),
            ]
        else:
            rows = self._rows(self.records.select(kept))
        cache[limit] = rows
        return rows

    def __repr__(self) -> str:
        parts = [self.title, text_table(self.headers, self._shown(self.text_rows))]
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


def _sections(
    records: Records, scopes: list | None, replay: list | None, total: float | None
) -> tuple[float, float, float, list]:
    """Forward and backward op time (recorded, or the replayed minimum), the wall time of
    optimizer updates, and the names of the optimizers: what a training step's tape spends
    where. An optimizer that updates its variables in place runs no recorded op, so its time
    is the span of its scope."""
    fwd = bwd = 0.0
    if scopes is None:
        fwd = total  # every op ran outside a backward pass
    else:
        if replay is None:
            (seconds,) = records.fields("seconds")
        else:
            seconds = [None if t is None else t[0] for t in replay]
        for t, path in zip(seconds, scopes):
            if t is None:
                continue
            if section_of(path) == "backward":
                bwd += t
            else:
                fwd += t
    opt = 0.0
    optimizers: list = []
    marks = records.scope_marks
    for k, (_, path, t0) in enumerate(marks):
        if section_of(path) == "optimizer" and k + 1 < len(marks):
            outer = [name for kind, name in path if kind == "optimizer"]
            if outer and outer[0] not in optimizers:
                optimizers.append(outer[0])
            opt += marks[k + 1][2] - t0
    return fwd, bwd, opt, optimizers


def _where(path: tuple) -> str:
    """The scope column: the innermost layer's path, ``backward`` or ``optimizer NAME``."""
    section = section_of(path)
    if section == "backward":
        return "backward"
    if section == "optimizer":
        return "optimizer " + next(name for kind, name in path if kind == "optimizer")
    return scope_label(path)


#: Columns right-aligned in HTML (numbers).
NUMERIC = frozenset({"#", "bytes", "time", "share", "min", "median", "count", "ops"})


class TapeRecord(_TableView):
    """The ops a tape recorded, oldest first: index, op, the layer or scope and the source line
    that ran it, input and output specs, bytes allocated, time and share of the total; then
    the totals by op type (or by layer), sortable (`TapeTiming`).

    Specs read ``float32[2,3]`` (dtype and shape), with ``@/gpu:0`` appended off the CPU.
    Times use the unit that fits (ns, µs, ms, s) in a column of fixed width, so that only
    the numbers change from run to run; an op recorded without a time (a `custom_gradient`
    call) shows ``—``. With ``replay`` (``%%tape --time replay``) the time columns are the
    minimum and median of the replayed runs (`replay_times`) instead of the single recorded
    run. ``retimed`` lists the ops whose single time was measured again without the warning
    they showed (`retime`); the title names them. Backward ops (``tape.gradient`` inside the
    cell) show ``backward`` as their scope;
    the title splits the time into forward, backward and optimizer updates. A record of a
    cell that raised (``error``) says it is partial. A plain `GradientTape`, whose ops were
    not timed, shows its ops alone.

    Attributes:
        name: the tape's name in the user namespace (``"_tape"``).
        records: the snapshot (`Records`); ``entries`` lists them as `Record` objects.
        max_rows: longer tapes show their first and last rows around a ``… N more ops …`` row.
        text_rows: the same for the text form alone (None: ``max_rows``); ``%%tape`` shows
            `DEFAULT_TEXT_ROWS` there unless given ``--max-rows``.
        retimed: indices of the ops re-timed without their warning (``--time once``).
        timing: the matching `TapeTiming` (``total``, ``by_op``).
        graph: the matching `TapeGraph`; ``picture=False`` when its picture is not shown.

    >>> tape = ProfilingTape()
    >>> with tape:
    ...     y = ek.constant(2.0) * ek.constant(3.0) + 1.0
    >>> record = TapeRecord(tape, "t")
    >>> record.op_names, record.headers[2:4], record.headers[-3:]
    (['Mul', 'AddV2'], ('scope', 'line'), ('bytes', 'time', 'share'))
    >>> print(repr(record).splitlines()[0])  # doctest: +ELLIPSIS
    Tape `t`: 2 ops recorded, forward time ...
    >>> repr(record).splitlines()[-1].split()[:4]  # two float32 scalars allocated
    ['total', '2', '8', 'B']
    """

    def __init__(
        self,
        tape: ProfilingTape,
        name: str | None = "_tape",
        max_rows: int = DEFAULT_MAX_ROWS,
        names: dict | None = None,
        picture: bool = True,
        *,
        replay: list | None = None,
        sort: str | None = None,
        by: str = "op",
        error: BaseException | None = None,
        cell_file: str | None = None,
        expand: bool = False,
        repeat: int = 0,
        warmup: int = 0,
        saved: bool = False,
        retimed: list | None = None,
        text_rows: int | None = None,
    ):
        self.name = name
        self.text_rows = text_rows
        self.records = Records(tape)
        self.retimed = list(retimed or ())
        self.max_rows = max_rows
        self.replay = replay
        self.error = error
        self.cell_file = cell_file
        self._scopes = _scopes_or_none(self.records)
        self._sources = self.records.sources()
        self.timing = TapeTiming(
            self.records, name, max_rows, replay=replay, sort=sort, by=by, scopes=self._scopes
        )
        # A profiling tape times its ops (a custom_gradient call shows "—"); a plain
        # GradientTape's ops have no times, unless a profiling tape recorded them too.
        self._timed = isinstance(tape, ProfilingTape) or self.records.timed
        self._names = names
        self._picture = picture
        self._expand = expand
        self._saved = saved
        self._repeat, self._warmup = repeat, warmup
        self._graph: TapeGraph | None = None

    @property
    def entries(self) -> list:
        return [self.records.entry(i) for i in range(len(self.records))]

    @property
    def partial(self) -> bool:
        """Whether the cell raised before it ended: the tape holds the ops up to the error."""
        return self.error is not None

    @property
    def graph(self) -> TapeGraph:
        """The graph picture (`TapeGraph`): one node per op, layers as clusters, at most
        2 × ``max_rows`` nodes (ops and the tensors they read), drawn by Graphviz as SVG."""
        if self._graph is None:
            self._graph = TapeGraph(
                self.records,
                self.name,
                self.max_rows,
                self._names,
                self._picture,
                expand=self._expand,
                cell_file=self.cell_file,
                saved=self._saved,
            )
        return self._graph

    def graph_svg(self) -> str:
        """The graph picture as SVG text."""
        return self.graph.svg()

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
        if self.partial:
            title += f" (partial: the cell raised {type(self.error).__name__})"
        if self._timed:
            fwd, bwd, opt, optimizers = _sections(
                self.records, self._scopes, self.replay, self.timing.total or 0.0
            )
            if self.replay is not None:
                title += (
                    f", replayed (min of {self._repeat} runs after {self._warmup} warm-up): "
                    f"forward {format_seconds(fwd)}"
                )
            else:
                # No op timed at all (custom_gradient calls): "—", not "0 ns".
                shown = fwd if self.timing.total is not None else None
                title += f", forward time {format_seconds(shown)}"
            if bwd:
                title += f", backward {format_seconds(bwd)}"
            if opt:
                title += (
                    f", optimizer {'/'.join(optimizers)} {format_seconds(opt)} "
                    "(in-place update, wall time)"
                )
            if self.replay is None:
                title += " (one run per op: --time replay re-times them)" if n > 1 else ""
                k = len(self.retimed)
                if k:
                    title += (
                        f"; {k} op{' was' if k == 1 else 's were'} re-timed without the "
                        f"warning {'it' if k == 1 else 'they'} showed (#"
                        + ", #".join(map(str, self.retimed[:5]))
                        + (", …" if k > 5 else "")
                        + ")"
                    )
        return title

    @property
    def headers(self) -> tuple[str, ...]:
        base = ("#", "op", "scope", "line", "inputs", "outputs", "bytes")
        if not self._timed:
            return ("#", "op", "scope", "line", "inputs", "outputs")
        if self.replay is not None:
            return (*base, "min", "median", "share")
        return (*base, "time", "share")

    def _rows(self, selected):
        total, timed = self.timing.total, self._timed  # a plain GradientTape: the ops alone
        scopes, sources, replay = self._scopes, self._sources, self.replay
        rows = []
        where_of: dict = {}  # the source text of each call site (ops of a loop share one)
        calls = None if scopes is None or self._expand else _function_calls(self.records)
        selected = list(selected)
        k = 0
        while k < len(selected):
            i, prim, inputs, outputs, seconds = selected[k]
            call = None if calls is None else calls.get(i)
            if call is not None:  # an ek.function call: one row (--expand: its ops)
                end, prefix = call
                group = [selected[k]]
                while k + 1 < len(selected) and selected[k + 1][0] < end:
                    k += 1
                    group.append(selected[k])
                k += 1
                rows.append(self._call_row(prefix, group))
                continue
            k += 1
            row = [
                str(i),
                prim.name,
                _where(scopes[i]) if scopes is not None else "",
                where_of.get(id(sources[i]))
                or where_of.setdefault(id(sources[i]), source_text(sources[i], self.cell_file)),
                specs(inputs),
                specs(outputs),
            ]
            if timed:
                row.append(bytes_cell(allocated_bytes(outputs, inputs)))
                if replay is not None:
                    lo, med = replay[i] if replay[i] is not None else (None, None)
                    row += [timing_cell(lo), timing_cell(med), share_cell(lo, total)]
                else:
                    row += [timing_cell(seconds), share_cell(seconds, total)]
            rows.append(row)
        return rows

    def _call_row(self, prefix: tuple, group: list) -> list[str]:
        """The row of one `ek.function` call: its ops' indices, ``function NAME``, the
        tensors it read from outside and its last outputs, bytes and times summed."""
        total, timed, replay = self.timing.total, self._timed, self.replay
        first, last = group[0][0], group[-1][0]
        produced = {id(o) for _, _, _, outs, _ in group for o in _tuple(outs)}
        reads: dict = {}
        for _, _, inputs, _, _ in group:
            for x in inputs:
                if id(x) not in produced:
                    reads.setdefault(id(x), x)
        outer = list(reads.values())
        row = [
            f"{first}–{last}" if last != first else str(first),
            f"function {prefix[-1][1]} ({len(group)} ops)",
            _where(prefix[:-1]),
            source_text(self._sources[first], self.cell_file),
            specs(outer[:4]) + (", …" if len(outer) > 4 else ""),
            specs(_tuple(group[-1][3])),
        ]
        if timed:
            row.append(bytes_cell(sum(allocated_bytes(_tuple(o), i) for _, _, i, o, _ in group)))
            if replay is not None:
                lo = _sum([replay[i][0] if replay[i] else None for i, *_ in group])
                med = _sum([replay[i][1] if replay[i] else None for i, *_ in group])
                row += [timing_cell(lo), timing_cell(med), share_cell(lo, total)]
            else:
                seconds = _sum([t for *_, t in group])
                row += [timing_cell(seconds), share_cell(seconds, total)]
        return row

    def _extra(self):
        return self.timing._extra() if self._timed else []

    def _repr_html_(self) -> str:
        parts = [html_table(self.headers, self._shown(), self.title, right_aligned=NUMERIC)]
        for caption, h, r in self._extra():
            parts.append(html_table(h, r, caption=caption, right_aligned=NUMERIC))
        return '<div class="eagerkernel-tape">' + "".join(parts) + "</div>"


def _function_calls(records: Records) -> dict:
    """``{first record: (end, scope path up to the function)}`` of each outermost
    `ek.function` call the tape recorded (a ``"function"`` scope, entered per call)."""
    calls: dict = {}
    marks = records.scope_marks
    n = len(records)
    for k, (start, path, _) in enumerate(marks):
        if not path or path[-1][0] != "function" or start >= n:
            continue
        if any(kind == "function" for kind, _ in path[:-1]):
            continue  # inside another function's call: part of its row
        end = n
        for start2, path2, _ in marks[k + 1 :]:
            if path2[: len(path)] != path:
                end = start2
                break
        if end > start:
            calls[start] = (end, path)
    return calls


def _tuple(x) -> tuple:
    return x if type(x) is tuple else (x,)


def _sum(values: list):
    return None if any(v is None for v in values) else sum(values)


def _scopes_or_none(records: Records) -> list | None:
    """Each record's scope path, or None when every op ran outside any scope (the common
    small cell: no per-op list to build)."""
    if not any(path for _, path, *_ in records.scope_marks):
        return None
    return records.scopes()


def held_bytes(records: Records) -> int:
    """Bytes of the arrays the records' outputs own: what the tape holds, and so the peak of
    what its ops allocated (it keeps every output alive). An output that is a view counts
    through `allocated_bytes` (its base, unless an input's)."""
    owned = records.owned_bytes()  # one pass over the outputs (in C where built)
    if owned is not None:
        total, views = owned
        for k in views:  # a view counts through `allocated_bytes` (its base, unless an input's)
            r = records.entry(k)
            total += allocated_bytes((r.output,), r.inputs)
        return total
    # A multi-output op: every record through `allocated_bytes`.
    outputs, inputs = records.fields("output", "inputs")
    return sum(
        allocated_bytes(o if type(o) is tuple else (o,), ins) for o, ins in zip(outputs, inputs)
    )


def bytes_cell(n: int | None) -> str:
    """`format_bytes` right-aligned to 9 characters (``1.23 KiB``).

    >>> bytes_cell(40), bytes_cell(3 * 2**20), bytes_cell(None)
    ('     40 B', '    3 MiB', '        —')
    """
    text = _BYTES_CELLS.get(n)  # a table's rows repeat a few sizes
    if text is None:
        text = format_bytes(n).rjust(9) if n is not None else "—".rjust(9)
        if len(_BYTES_CELLS) < 1024:
            _BYTES_CELLS[n] = text
    return text


_BYTES_CELLS: dict = {}


class TapeTiming(_TableView):
    """Time of each op on a tape, its share of the total, and totals by op type (or by layer):
    the time columns of a `TapeRecord` (``record.timing``) as a view of their own.

    Times come from `Record.seconds` (measured by profiling tapes only; ``—`` for ops recorded
    without a time, such as `custom_gradient` calls), or from ``replay`` (``(min, median)``
    per op, `replay_times`). Totals are listed in order of first appearance, so that the
    layout does not change between runs, unless ``sort`` is ``"time"`` (longest first),
    ``"count"`` (most first) or ``"name"``; ``by="layer"`` totals by the layer or scope that
    ran the ops instead of by op type. The totals table also gives the bytes the ops' outputs
    allocated, and its last row the tape's total, which is the memory the tape holds (it keeps
    every output alive) and so its peak.

    Args:
        entries: the tape's `Record` objects, or its `Records`.

    Attributes:
        total: total seconds of the timed ops (None when no op was timed).
        by_op: ``{op name: (count, seconds)}`` in order of first appearance; seconds is None
            for an op type none of whose ops was timed.

    Raises:
        ValueError: an unknown ``sort`` or ``by``.
    """

    def __init__(
        self,
        entries,
        name: str | None = "_tape",
        max_rows: int = DEFAULT_MAX_ROWS,
        *,
        replay: list | None = None,
        sort: str | None = None,
        by: str = "op",
        scopes: list | None = None,
    ):
        if sort not in (None, "time", "count", "name"):
            raise ValueError(
                f"TapeTiming: sort must be 'time', 'count' or 'name'. Received: sort={sort!r}."
            )
        if by not in ("op", "layer"):
            raise ValueError(f"TapeTiming: by must be 'op' or 'layer'. Received: by={by!r}.")
        self.name = name
        self.records = entries if isinstance(entries, Records) else Records(entries)
        self.max_rows = max_rows
        self.replay = replay
        self.sort = sort
        self.by = by
        self._scopes = scopes
        by_op: dict[str, list] = {}
        if replay is None:
            for prim, count, seconds in self.records.by_op():  # primitives of a name add up
                slot = by_op.setdefault(prim.name, [0, None])
                slot[0] += count
                if seconds is not None:
                    slot[1] = seconds if slot[1] is None else slot[1] + seconds
        else:
            (prims,) = self.records.fields("prim")
            for prim, times in zip(prims, replay):
                slot = by_op.setdefault(prim.name, [0, None])
                slot[0] += 1
                if times is not None:
                    slot[1] = times[0] if slot[1] is None else slot[1] + times[0]
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
        what = "Replayed time (min)" if self.replay is not None else "Time"
        return f"{what}{where}: {n} op{'' if n == 1 else 's'}, total {format_seconds(self.total)}"

    headers = ("#", "op", "time", "share")

    def _op_time(self, i: int, seconds):
        if self.replay is None:
            return seconds
        return self.replay[i][0] if self.replay[i] is not None else None

    def _rows(self, selected):
        total = self.total
        return [
            [
                str(i),
                prim.name,
                timing_cell(self._op_time(i, s)),
                share_cell(self._op_time(i, s), total),
            ]
            for i, prim, _, _, s in selected
        ]

    def groups(self) -> dict[str, list]:
        """``{key: [count, seconds or None, bytes]}``: the totals by op type or by layer (the
        scope's label; ops outside any layer are ``(none)``), in order of first
        appearance."""
        out: dict[str, list] = {}
        if self.by == "op":  # the bytes column gives the tape's total only
            return {name: [count, sec, 0] for name, (count, sec) in self.by_op.items()}
        prims, inputs, outputs = self.records.fields("prim", "inputs", "output")
        scopes = self._scopes
        keys = [
            (_where(scopes[i]) if scopes is not None else "") or "(none)" for i in range(len(prims))
        ]
        (seconds,) = self.records.fields("seconds")
        for i, key in enumerate(keys):
            slot = out.get(key)
            if slot is None:
                slot = out[key] = [0, None, 0]
            slot[0] += 1
            t = self._op_time(i, seconds[i])
            if t is not None:
                slot[1] = t if slot[1] is None else slot[1] + t
        for key, ins, output in zip(keys, inputs, outputs):
            out[key][2] += allocated_bytes(output if type(output) is tuple else (output,), ins)
        return out

    def _extra(self):
        # Made once: a notebook asks for the text and the HTML form.
        cached = getattr(self, "_extra_tables", None)
        if cached is None:
            cached = self._extra_tables = self._make_extra()
        return cached

    def _make_extra(self):
        groups = self.groups()
        items = list(groups.items())
        if self.sort == "time":
            items.sort(key=lambda kv: -(kv[1][1] or 0.0))
        elif self.sort == "count":
            items.sort(key=lambda kv: -kv[1][0])
        elif self.sort == "name":
            items.sort(key=lambda kv: kv[0])
        total = self.total
        per_op = self.by == "op"
        rows = [
            [
                key,
                str(count),
                " " * 9 if per_op else bytes_cell(nbytes),
                timing_cell(sec),
                share_cell(sec, total),
            ]
            for key, (count, sec, nbytes) in items
        ]
        held = held_bytes(self.records) if per_op else sum(s[2] for s in groups.values())
        rows.append(
            [
                "total",
                str(len(self.records)),
                bytes_cell(held),
                timing_cell(total),
                share_cell(total, total),
            ]
        )
        caption = "By op type:" if self.by == "op" else "By layer:"
        if self.sort:
            caption = caption[:-1] + f", sorted by {self.sort}:"
        first = "op" if self.by == "op" else "layer"
        return [(caption, [first, "count", "bytes", "time", "share"], rows)]
