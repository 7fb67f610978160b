"""``%grad``: play a tape backwards, show each VJP step and the gradients, find NaN origins.

The backward pass is the tape's own (`GradientTape.replay`, ``tape.gradient`` with an
``on_step`` callback), so what the replay shows is exactly what ``tape.gradient`` computes.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field

import numpy as np
from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from ..runtime.core.tape import GradientTape, stop_recording
from ..runtime.core.tensor import Tensor
from ..runtime.core.variable import Variable
from .formatting import (
    LazyRows,
    array_stats,
    format_norm,
    html_table,
    spec,
    text_table,
    timing_cell,
    truncate_rows,
    value_summary,
)
from .plots import GradHistory, GradPlots
from .tape_magic import DEFAULT_MAX_ROWS

__all__ = ["GradMagics", "GradResult", "ReplayStep"]


@dataclass
class ReplayStep:
    """One VJP step of the backward pass, in the order the pass ran it (newest op first).

    Attributes:
        index: the op's index on the tape (the ``#`` column of the ``%%tape`` record).
        op: the op name.
        entry: the tape's `Record` (forward inputs and outputs).
        incoming: ``[(spec, stats)]``, the cotangent of each output (stats from `array_stats`;
            None for an output without one).
        outgoing: ``[(spec, stats)]``, the cotangent for each input (None where no gradient
            flows: an integer input, or one not on a path to a source).
        seconds: time of the VJPs of this step.
    """

    index: int
    op: str
    entry: object
    incoming: list
    outgoing: list
    seconds: float

    @property
    def introduces_nonfinite(self) -> bool:
        """True if every incoming cotangent is finite and some outgoing one has NaN or Inf."""
        if not all(s is None or s["finite"] for _, s in self.incoming):
            return False
        return any(s is not None and not s["finite"] for _, s in self.outgoing)

    def nonfinite_kind(self) -> str:
        """``"NaN"``, ``"Inf"`` or ``"NaN and Inf"``: what the outgoing cotangents contain."""
        nan = any(s is not None and s["nan"] for _, s in self.outgoing)
        inf = any(s is not None and s["inf"] for _, s in self.outgoing)
        return " and ".join(k for k, on in (("NaN", nan), ("Inf", inf)) if on)


@dataclass
class _Report:
    target: str
    tape: str
    names: list
    labels: list = field(default_factory=list)  # a Variable's own name, else the expression
    exprs: list = field(default_factory=list)  # the SOURCE expressions as typed
    steps: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    max_rows: int = DEFAULT_MAX_ROWS


#: Gradients with at most this many elements show their values.
MAX_VALUES = 16


def values_text(g) -> str:
    """The values of a small gradient (at most `MAX_VALUES` elements, 4 significant digits),
    ``"all NaN"`` for an array of NaN only, else ``""``.

    >>> values_text(ek.constant([[0.5, -1.25], [3.0, 4.0]]))
    '[[0.5, -1.25], [3, 4]]'
    >>> values_text(ek.constant(2.0)), values_text(ek.constant([np.nan, np.nan]))
    ('2', 'all NaN')
    """
    a = np.asarray(g.numpy())
    if a.size and a.dtype.kind in "fc" and np.isnan(a).all():
        return "all NaN"
    if a.size > MAX_VALUES:
        return ""
    if a.ndim == 0:
        return f"{a.item():.4g}" if a.dtype.kind == "f" else str(a.item())
    text = np.array2string(a, separator=", ", formatter={"float_kind": _g4})
    return " ".join(text.split())  # rows of a matrix on one line


def _g4(v) -> str:
    return f"{v:.4g}"


def _cot(t) -> tuple:
    return (spec(t), None if t is None else array_stats(t))


def _cot_text(c) -> str:
    sp, stats = c
    return "—" if stats is None else f"{sp} ‖{format_norm(stats['norm'])}‖"


class GradResult(list):
    """The gradients `%grad` computed (a list, one entry per source, None if unconnected),
    displayed as the backward replay and a table of gradient values.

    It is a plain list of Tensors for code (``dw, db = %grad loss wrt w b``; ``g[0]``), and
    IPython shows it as the report (text and HTML), so a bare ``%grad`` line displays the
    report once, as its Out value.

    Attributes:
        names: the source expressions (list-valued sources are expanded to ``expr[i]``).
        steps: the `ReplayStep` list, in backward order.
        nan_origin: the first step that turned finite cotangents into NaN/Inf, or None.
        notes: warnings (a target not on the tape, a source no op used).
    """

    def __init__(self, gradients: list, report: _Report):
        super().__init__(gradients)
        self._report = report
        self.names = report.names
        self.labels = report.labels or list(report.names)
        self.steps = report.steps
        self.notes = report.notes
        self.nan_origin = next((s for s in report.steps if s.introduces_nonfinite), None)

    @property
    def gradients(self) -> list:
        """The gradients as a plain list."""
        return list(self)

    # -- the report -----------------------------------------------------------------------------
    def _title(self) -> str:
        n = len(self.steps)
        names = ", ".join(self._report.exprs or self.names)
        return (
            f"Gradients of `{self._report.target}` w.r.t. {names} on `{self._report.tape}`: "
            f"{n} backward step{'' if n == 1 else 's'}"
        )

    def _origin_text(self) -> str | None:
        s = self.nan_origin
        if s is None:
            return None
        inputs = "; ".join(f"{spec(x)} = {value_summary(x)}" for x in s.entry.inputs)
        outputs = "; ".join(f"{spec(y)} = {value_summary(y)}" for y in s.entry.outputs)
        return (
            f"{s.op} (tape op #{s.index}) produced {s.nonfinite_kind()} in the backward pass "
            f"from a finite cotangent. Its forward inputs: {inputs}; output: {outputs}."
        )

    def _replay_table(self):
        headers = ["step", "#", "op", "cotangent in", "cotangents out", "time"]
        steps = self.steps

        def row(k):  # made only for the rows shown (`truncate_rows` keeps max_rows)
            s = steps[k]
            return [
                str(k),
                str(s.index),
                s.op,
                ", ".join(_cot_text(c) for c in s.incoming),
                "; ".join(_cot_text(c) for c in s.outgoing),
                timing_cell(s.seconds),
            ]

        origin = self.nan_origin
        return headers, LazyRows(len(steps), row), [s is origin for s in steps]

    def _values_table(self):
        headers = ["source", "expression", "gradient", "norm", "min", "max", "NaN", "Inf", "values"]
        rows = []
        for label, name, g in zip(self.labels, self.names, self):
            expr = name if name != label else ""
            if g is None:
                rows.append([label, expr, "None", "—", "—", "—", "—", "—", ""])
                continue
            st = array_stats(g)
            lo, hi = st["min"], st["max"]
            all_nan = lo is not None and math.isnan(lo)
            rows.append(
                [
                    label,
                    expr,
                    spec(g),
                    format_norm(st["norm"]),
                    "—" if all_nan else format_norm(lo),
                    "—" if all_nan else format_norm(hi),
                    str(st["nan"]),
                    str(st["inf"]),
                    values_text(g),
                ]
            )
        return headers, rows

    def __str__(self) -> str:
        out = [self._title()]
        out += [f"Note: {n}" for n in self.notes]
        origin = self._origin_text()
        if origin:
            out.append(f"!! {origin}")
        headers, rows, hl = self._replay_table()
        rows, kept = truncate_rows(rows, self._report.max_rows, "steps")
        out += ["Backward replay (newest op first):"]
        marks = ["!" if k >= 0 and hl[k] else " " for k in kept]
        out.append(text_table(headers, rows, max_width=120, marks=marks))
        h, r = self._values_table()
        out += ["Gradients:", text_table(h, r)]
        return "\n".join(out)

    def _repr_pretty_(self, p, cycle: bool) -> None:
        p.text("GradResult([...])" if cycle else str(self))

    @property
    def report(self) -> _ReportView:
        """The report alone (text and HTML), as a display."""
        return _ReportView(self)

    @property
    def plots(self) -> GradPlots:
        """The gradient picture (`GradPlots`): per-layer gradient norms as one bar chart
        (nothing for scalar gradients, whose values the report shows)."""
        return GradPlots(self.labels, list(self))

    def _ipython_display_(self) -> None:
        """Shown by IPython (as the cell's value or with ``display``): the report (text and
        HTML), then the gradient pictures as a separate image/png display."""
        from IPython.display import display

        display(self.report)
        plots = self.plots
        if plots.drawn:
            display(plots)

    def _repr_html_(self) -> str:
        import html

        parts = [f"<div><b>{html.escape(self._title())}</b></div>"]
        parts += [f'<div style="color:#a60">Note: {html.escape(n)}</div>' for n in self.notes]
        origin = self._origin_text()
        if origin:
            parts.append(
                '<div style="background:#fdd;border-left:4px solid #c00;padding:4px 8px">'
                f"<b>NaN/Inf origin:</b> {html.escape(origin)}</div>"
            )
        headers, rows, hl = self._replay_table()
        rows, kept = truncate_rows(rows, self._report.max_rows, "steps")
        parts.append(
            html_table(
                headers,
                rows,
                caption="Backward replay (newest op first)",
                highlight=[k >= 0 and hl[k] for k in kept],
            )
        )
        h, r = self._values_table()
        numbers = ("norm", "min", "max", "NaN", "Inf")
        parts.append(html_table(h, r, caption="Gradients", right_aligned=numbers))
        return '<div class="eagerkernel-grad">' + "".join(parts) + "</div>"


class _ReportView:
    """The text and HTML report of a `GradResult`, as a display of its own."""

    def __init__(self, result: GradResult):
        self._result = result

    def __repr__(self) -> str:
        return str(self._result)

    def _repr_pretty_(self, p, cycle: bool) -> None:
        p.text(str(self._result))

    def _repr_html_(self) -> str:
        return self._result._repr_html_()


def _element_names(expr: str, n: int) -> list[str]:
    """Names for the items of a list-valued expression: the elements' own source text for a
    list or tuple display, else ``expr[i]``.

    >>> _element_names("[w, b]", 2), _element_names("model.weights", 2)
    (['w', 'b'], ['model.weights[0]', 'model.weights[1]'])
    """
    try:
        node = ast.parse(expr, mode="eval").body
    except SyntaxError:
        node = None
    if (
        isinstance(node, ast.List | ast.Tuple)
        and len(node.elts) == n
        and not any(isinstance(e, ast.Starred) for e in node.elts)
    ):
        return [ast.get_source_segment(expr, e) or ast.unparse(e) for e in node.elts]
    return [f"{expr}[{i}]" for i in range(n)]


def _join_brackets(tokens: list[str]) -> list[str]:
    """Re-joins expressions the argument splitter cut at spaces inside brackets.

    >>> _join_brackets(["y", "wrt", "[w,", "b]", "f(a,", "(b,", "c))"])
    ['y', 'wrt', '[w, b]', 'f(a, (b, c))']
    """
    out: list[str] = []
    depth = 0
    for tok in tokens:
        if depth > 0:
            out[-1] += " " + tok
        else:
            out.append(tok)
        depth += sum(tok.count(c) for c in "([{") - sum(tok.count(c) for c in ")]}")
    return out


@magics_class
class GradMagics(Magics):
    """The ``%grad`` line magic."""

    def _eval(self, expr: str):
        try:
            return self.shell.ev(expr)
        except Exception as e:
            raise UsageError(f"%grad: cannot evaluate {expr!r}: {type(e).__name__}: {e}") from None

    def _tensors(self, expr: str, what: str) -> list[tuple[str, Tensor]]:
        value = self._eval(expr)
        if isinstance(value, list | tuple):
            names = _element_names(expr, len(value))
            items = list(zip(names, value))
        else:
            items = [(expr, value)]
        for name, v in items:
            if not isinstance(v, Tensor):
                raise UsageError(
                    f"%grad: the {what} {name} must be a Tensor or Variable. "
                    f"Received: {type(v).__name__}."
                )
        return items

    def _history(self, name: str) -> GradHistory:
        return GradHistory(_find_logger(self.shell, name))

    @magic_arguments()
    @argument("exprs", nargs="*", metavar="EXPR", help="TARGET, optionally `wrt`, then the SOURCEs")
    @argument(
        "--history",
        nargs="?",
        const="",
        default=None,
        metavar="LOGGER",
        help="plot the per-layer gradient norms a GradientNormLogger recorded over training "
        "steps (LOGGER, or the newest one in the namespace)",
    )
    @argument("--tape", default="_tape", help="the tape to play back (default `_tape`)")
    @argument(
        "--max-rows",
        type=int,
        default=DEFAULT_MAX_ROWS,
        help=f"replay rows shown before the middle is cut (default {DEFAULT_MAX_ROWS}; 0: all)",
    )
    @line_magic
    def grad(self, line: str) -> GradResult:
        """Play a ``%%tape`` tape backwards: show each VJP step and the gradients, return them.

        ``%grad TARGET [wrt] SOURCE ... [--tape NAME]``

        TARGET and each SOURCE are Python expressions evaluated in the namespace (quote an
        expression with spaces outside brackets: ``%grad "loss * 2" wrt w``); ``wrt`` is a
        keyword, not a name. A SOURCE that is a list or tuple
        (``model.trainable_variables``) counts as its items. The tape is ``_tape`` unless
        ``--tape`` names another; it is replayed without being consumed, so ``%grad`` can run
        any number of times. A non-scalar target is summed, as in ``tape.gradient``.

        The result shows:

        * the backward replay, newest op first: each step's op, its tape index (``#``), the
          incoming cotangent and the outgoing ones (``dtype[shape] ‖L2 norm‖``, ``—`` where no
          gradient flows) and the time of its VJPs;
        * the first step whose incoming cotangents were finite but whose outgoing ones hold
          NaN or Inf, named and highlighted, with its forward input values;
        * the gradients: one row per source, named by the Variable's own name
          (``dense_1/kernel:0``) with the expression beside it; shape, norm, min, max, NaN
          and Inf counts, and the values of gradients of at most 16 elements (``all NaN``
          when nothing else is there);
        * a bar chart of the gradient norm of each layer (a Variable ``dense/kernel:0``
          belongs to layer ``dense``), not drawn when every gradient is a scalar.

        ``%grad --history [LOGGER]`` instead plots the per-layer gradient norms that a
        `ek.keras.callbacks.GradientNormLogger` recorded over training steps (pass it to
        ``fit(callbacks=[...])``, or ``logger.watch(optimizer)`` in a custom loop); without
        LOGGER, the newest one in the namespace.

        Returns a `GradResult`: a list with one gradient per source (None when a source is
        not connected to the target), displayed as the report. ``dw, db = %grad loss wrt w b``
        assigns the gradients (and shows nothing, as an assignment does).

        Example::

            %%tape
            x = ek.constant(100.0)
            y = ek.math.log(1.0 + ek.exp(x))

            %grad y wrt x      # NaN: Exp's VJP multiplies 0 by exp(100) = inf
        """
        args = parse_argstring(self.grad, line)
        if args.history is not None:
            return self._history(args.history)
        if not args.exprs:
            raise UsageError("%grad: no TARGET given. Usage: %grad TARGET [wrt] SOURCE ...")
        exprs = _join_brackets(list(args.exprs))
        target_expr, sources_exprs = exprs[0], exprs[1:]
        if sources_exprs and sources_exprs[0] == "wrt":
            sources_exprs = sources_exprs[1:]
        if not sources_exprs:
            raise UsageError("%grad: no SOURCE given. Usage: %grad TARGET [wrt] SOURCE ...")
        tape = self.shell.user_ns.get(args.tape)
        if not isinstance(tape, GradientTape):
            raise UsageError(
                f"%grad: no tape named `{args.tape}`; record one with a %%tape cell first."
            )
        if tape.released:
            raise UsageError(
                f"%grad: the tape `{args.tape}` was released by a gradient call "
                "(non-persistent tape); record it again."
            )
        targets = [t for _, t in self._tensors(target_expr, "target")]
        sources = []
        for expr in sources_exprs:
            sources += self._tensors(expr, "source")

        report = _Report(
            target_expr,
            args.tape,
            [n for n, _ in sources],
            labels=[s.name if isinstance(s, Variable) else n for n, s in sources],
            exprs=list(sources_exprs),
            max_rows=args.max_rows,
        )
        entries = tape.entries
        produced = {id(o) for e in entries for o in e.outputs}
        used = {i for e in entries for i in e.ids}
        source_ids = {id(s) for _, s in sources}
        if not any(id(t) in produced or id(t) in source_ids for t in targets):
            report.notes.append(
                f"`{target_expr}` is not the output of an op on `{args.tape}`: was it computed "
                "in the %%tape cell?"
            )
        for name, s in sources:
            if id(s) not in used:
                report.notes.append(f"`{name}` is not an input of any op on `{args.tape}`.")

        position = {id(e): i for i, e in enumerate(entries)}

        def on_step(entry, g, input_grads, seconds):
            incoming = g if isinstance(g, tuple) else (g,)
            report.steps.append(
                ReplayStep(
                    index=position.get(id(entry), -1),
                    op=entry.prim.name,
                    entry=entry,
                    incoming=[_cot(x) for x in incoming],
                    outgoing=[_cot(x) for x in input_grads],
                    seconds=seconds,
                )
            )

        # The replay is a display: keep its ops off any tape that is recording around it, and
        # let NaN/Inf through silently: the report finds where they were born.
        with stop_recording(), np.errstate(all="ignore"):
            grads = tape.replay(targets, [s for _, s in sources], on_step)
        return GradResult(grads, report)


def _find_logger(shell, name: str):
    from ..runtime.keras.callbacks import GradientNormLogger

    ns = shell.user_ns
    if name:
        logger = ns.get(name)
        if not isinstance(logger, GradientNormLogger):
            raise UsageError(
                f"%grad --history: `{name}` is not a GradientNormLogger. "
                f"Received: {type(logger).__name__}."
            )
        return logger
    found = [v for k, v in ns.items() if k[:1] != "_" and isinstance(v, GradientNormLogger)]
    if not found:
        raise UsageError(
            "%grad --history: no GradientNormLogger in the namespace; create one "
            "(`logger = ek.keras.callbacks.GradientNormLogger()`) and pass it to "
            "fit(callbacks=[logger]), or call logger.watch(optimizer) in a training loop."
        )
    return found[-1]
