"""Formatting shared by the magics' displays: units, tensor summaries, text and HTML tables.

Every display in `eagerkernel.magics` has a plain-text form (terminals, nbval) and an HTML form
(notebooks), built from the same rows by `text_table` and `html_table`, so the two never
disagree. Nothing here touches the runtime's state: values are read with ``.numpy()``.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np

__all__ = [
    "LazyRows",
    "array_stats",
    "format_bytes",
    "format_norm",
    "format_seconds",
    "format_share",
    "html_table",
    "kept_indices",
    "share_cell",
    "spec",
    "specs",
    "tensor_html",
    "text_table",
    "timing_cell",
    "truncate_rows",
    "value_summary",
]

_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))

#: Inline CSS for every table; a notebook without our stylesheet still renders them cleanly.
TABLE_STYLE = "border-collapse:collapse;font-family:monospace;font-size:12px;text-align:left"
HIGHLIGHT_STYLE = "background:#fdd;font-weight:bold"


def format_seconds(seconds: float | None, precision: int = 3) -> str:
    """A duration with the unit that keeps 1 to 3 digits before the point: ns, µs, ms or s.

    ``None`` (an op that was not timed) gives ``"—"``. Durations of 1000 s and more stay in
    seconds.

    >>> format_seconds(1.5e-8), format_seconds(0.0000123), format_seconds(0.0042)
    ('15 ns', '12.3 µs', '4.2 ms')
    >>> format_seconds(2.0), format_seconds(0.0), format_seconds(None)
    ('2 s', '0 ns', '—')
    >>> format_seconds(0.00099996)  # rounds up into the next unit, not '1e+03 µs'
    '1 ms'
    """
    if seconds is None:
        return "—"
    seconds = float(seconds)
    if not seconds >= 0.0:  # NaN or negative
        return f"{seconds} s"
    # Timing tables call this once per shown row: comparisons pick the unit, and the float
    # is parsed back only near a unit's end (950 and above, where some precision rounds up).
    if seconds >= 1.0:
        if seconds >= 1000:
            return f"{seconds:.0f} s"
        i = 0
    elif seconds >= 1e-3:
        i = 1
    elif seconds >= 1e-6:
        i = 2
    else:
        i = 3
    scale, unit = _UNITS[i]
    value = seconds / scale
    # "%.*g" takes the precision as an argument: no format spec is built per call.
    text = "%.*g" % (precision, value)  # noqa: UP031
    if value >= 950.0 and i > 0 and float(text) >= 1000:  # 999.96 µs rounds to 1000: say 1 ms
        scale, unit = _UNITS[i - 1]
        text = "%.*g" % (precision, seconds / scale)  # noqa: UP031
    return f"{text} {unit}"


def format_bytes(n: int | None) -> str:
    """A byte count with a binary unit (B, KiB, MiB, GiB), three significant digits.

    >>> format_bytes(0), format_bytes(640), format_bytes(2048), format_bytes(3 * 2**20 + 1)
    ('0 B', '640 B', '2 KiB', '3 MiB')
    >>> format_bytes(None)
    '—'
    """
    if n is None:
        return "—"
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.3g} {unit}"
        value /= 1024
    return f"{value:.3g} GiB"  # pragma: no cover (the loop returns)


def timing_cell(seconds: float | None) -> str:
    """`format_seconds` right-aligned to 7 characters, the longest it returns below 10⁴ s.

    Timing tables use it so that their layout does not depend on the numbers: the patterns
    of ``eagerkernel/resources/nbval_sanitize.cfg`` then make two runs compare equal.

    >>> timing_cell(1.23e-5), timing_cell(3e-3), timing_cell(9.9996e-4)
    ('12.3 µs', '   3 ms', '   1 ms')
    """
    # A table shows one per row: the common case, a float below 1 s away from the top of its
    # unit (where three digits round up into the next: 999.96 µs is "1 ms"), is one % step
    # on the value format_seconds computes, to the last bit. The rest takes the general path.
    if type(seconds) is float and 0.0 <= seconds < 0.9995:
        if seconds >= 1e-6:
            if seconds >= 1e-3:
                value, fmt = seconds / 1e-3, "%4.3g ms"
            else:
                value, fmt = seconds / 1e-6, "%4.3g µs"
        else:
            value, fmt = seconds / 1e-9, "%4.3g ns"
        if value < 999.5:
            return fmt % value
    return format_seconds(seconds).rjust(7)


def share_cell(part: float | None, total: float | None) -> str:
    """`format_share` right-aligned to 6 characters (``100.0%``).

    >>> share_cell(1.0, 8.0), share_cell(None, 8.0)
    (' 12.5%', '     —')
    """
    if part is None or not total:
        return "     —"
    return "%5.1f%%" % (100.0 * part / total)


def format_share(part: float | None, total: float | None) -> str:
    """``part`` as a percentage of ``total`` with one decimal (``"—"`` if either is unknown).

    >>> format_share(1, 4), format_share(None, 4), format_share(1, 0)
    ('25.0%', '—', '—')
    """
    if part is None or not total:
        return "—"
    return f"{100.0 * part / total:.1f}%"


def format_norm(value: float | None) -> str:
    """A norm or statistic with 4 significant digits (``"—"`` for None).

    >>> format_norm(3.14159265), format_norm(float("nan")), format_norm(None)
    ('3.142', 'nan', '—')
    """
    if value is None:
        return "—"
    return f"{value:.4g}"


def spec(t) -> str:
    """A tensor's dtype and shape in the compact ``float32[2,3]`` form, plus its device when
    it is not the CPU (``float32[2,3]@/gpu:0``).

    >>> spec(ek.constant([[1.0, 2.0, 3.0]])), spec(ek.constant(1))
    ('float32[1,3]', 'int32[]')
    """
    try:  # a tape's rows repeat a few specs many times: look them up by dtype, shape, device
        value = t._value
        return _SPECS[value.dtype, value.shape, t._device]
    except (AttributeError, KeyError, TypeError):
        pass
    if t is None:
        return "—"
    if isinstance(t, tuple):
        return "(" + ", ".join(spec(x) for x in t) + ")"
    shape = ",".join(str(n) for n in t.shape)
    text = f"{t.dtype.name}[{shape}]"
    device = _short_device(t) if hasattr(t, "device") else "/cpu:0"
    if device != "/cpu:0":
        text += f"@{device}"
    value = getattr(t, "_value", None)
    if hasattr(value, "dtype") and hasattr(t, "_device"):
        if len(_SPECS) >= 4096:
            _SPECS.clear()
        _SPECS[value.dtype, value.shape, t._device] = text
    return text


_SPECS: dict = {}


def specs(tensors) -> str:
    """The `spec` of each tensor in ``tensors``, comma-separated (an op's inputs or outputs).

    >>> specs((ek.constant([1.0, 2.0]), ek.constant(3)))
    'float32[2], int32[]'
    """
    # A table row asks for one or two: those look the cache up here, without a call each.
    try:
        if len(tensors) == 1:
            (t,) = tensors
            v = t._value
            return _SPECS[v.dtype, v.shape, t._device]
        if len(tensors) == 2:
            t, u = tensors
            v, w = t._value, u._value
            return _SPECS[v.dtype, v.shape, t._device] + ", " + _SPECS[w.dtype, w.shape, u._device]
    except (AttributeError, KeyError, TypeError):
        pass
    return ", ".join(map(spec, tensors))


def _as_float(a: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "c":
        return a
    return a.astype(np.float64, copy=False)


def array_stats(t) -> dict:
    """Norm, min, max and NaN/Inf counts of a tensor, computed in float64 on the host.

    Returns a dict with keys ``norm``, ``min``, ``max`` (None for an empty tensor), ``nan``
    and ``inf`` (counts) and ``finite`` (no NaN or Inf at all). Complex values report the
    min/max of their magnitudes.

    >>> s = array_stats(ek.constant([3.0, -4.0]))
    >>> s["norm"], s["min"], s["max"], s["nan"], s["inf"]
    (5.0, -4.0, 3.0, 0, 0)
    """
    a = _as_float(np.asarray(t.numpy()))
    if a.size and a.dtype.kind == "f":
        flat = a.ravel()
        if np.isfinite(flat).all():  # the usual case (%grad asks once per cotangent): 5 calls
            return {
                "norm": math.sqrt(float(flat.dot(flat))),  # what np.linalg.norm computes
                "nan": 0,
                "inf": 0,
                "min": float(flat.min()),
                "max": float(flat.max()),
                "finite": True,
            }
    finite = np.isfinite(a)
    out = {
        "norm": float(np.linalg.norm(a.ravel())) if a.size else 0.0,
        "nan": int(np.isnan(a).sum()),
        "inf": int(np.isinf(a).sum()),
        "min": None,
        "max": None,
    }
    if a.size:
        real = np.abs(a) if a.dtype.kind == "c" else a
        with np.errstate(invalid="ignore"):
            out["min"] = float(np.nanmin(real)) if not np.isnan(real).all() else math.nan
            out["max"] = float(np.nanmax(real)) if not np.isnan(real).all() else math.nan
    out["finite"] = bool(finite.all())
    return out


def value_summary(t, max_values: int = 4) -> str:
    """A short description of a tensor's values: the values themselves when there are at most
    ``max_values`` of them, else the range and NaN/Inf counts.

    >>> value_summary(ek.constant(100.0)), value_summary(ek.constant([1.0, 2.0]))
    ('100.0', '[1.0, 2.0]')
    >>> value_summary(ek.constant([1.0, 2.0, np.inf, np.nan, 5.0]))
    'min 1, max inf, 1 NaN, 1 Inf'
    """
    a = np.asarray(t.numpy())
    if a.size <= max_values:
        if a.ndim == 0:
            return repr(a.item())
        return repr(a.ravel().tolist())
    if a.dtype.kind not in "fc":
        return f"min {a.min()}, max {a.max()}"
    s = array_stats(t)
    text = f"min {format_norm(s['min'])}, max {format_norm(s['max'])}"
    if s["nan"]:
        text += f", {s['nan']} NaN"
    if s["inf"]:
        text += f", {s['inf']} Inf"
    return text


# -- tables -------------------------------------------------------------------------------------


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def text_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    max_width: int = 48,
    marks: Sequence[str] | None = None,
) -> str:
    """Rows of strings as an aligned plain-text table with a header and a rule.

    A row of one cell is a spanning row (``"… 10 more ops …"``). Cells longer than
    ``max_width`` are clipped with ``…``. ``marks`` gives each row a one-character prefix
    (``"!"`` for a highlighted row).

    >>> print(text_table(["op", "n"], [["Mul", "1"], ["AddV2", "2"]]))
      op     n
      -----  -
      Mul    1
      AddV2  2
    """
    n = len(headers)
    cells = list(rows)
    full = [r for r in cells if len(r) == n]
    widths = [max(map(len, column)) for column in zip(headers, *full)]
    spans = [r[0] for r in cells if len(r) != n]  # rows of one cell, across the table
    if max(widths, default=0) > max_width or max(map(len, spans), default=0) > max_width:
        cells = [[c if len(c) <= max_width else _clip(c, max_width) for c in r] for r in cells]
        full = [r for r in cells if len(r) == n]
        widths = [max(map(len, column)) for column in zip(headers, *full)]
    # One format string left-aligns every cell of a row, mark first: % pads in C, and parses
    # its format faster than str.format (a %%tape table formats one per row).
    fmt = "%s " + "  ".join(f"%-{w}s" for w in widths)
    marks = list(marks) if marks is not None else [" "] * len(cells)
    out = [(fmt % (" ", *headers)).rstrip(), (fmt % (" ", *["-" * w for w in widths])).rstrip()]
    for mark, r in zip(marks, cells):
        out.append((fmt % (mark, *r)).rstrip() if len(r) == n else f"{mark} {r[0]}")
    return "\n".join(out)


def html_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    caption: str | None = None,
    highlight: Sequence[bool] | None = None,
    css_class: str = "eagerkernel",
    right_aligned: Sequence[str] | None = None,
) -> str:
    """Rows of strings as an HTML table; every cell is escaped and kept on one line.

    Columns whose header is in ``right_aligned`` (numbers) are right-aligned, the others
    left-aligned. A row of one cell spans the table. ``highlight[i]`` colours row ``i`` (the
    op that made a gradient NaN or Inf).

    >>> html_table(["op"], [["<Mul>"]])  # doctest: +ELLIPSIS
    '<table class="eagerkernel" ...>op</th>...>&lt;Mul&gt;</td>...</table>'
    """
    highlight = list(highlight) if highlight is not None else [False] * len(rows)
    parts = [f'<table class="{css_class}" style="{TABLE_STYLE}">']
    if caption:
        parts.append(f'<caption style="text-align:left">{html.escape(caption)}</caption>')
    # Every cell says its alignment and never wraps: JupyterLab's stylesheet right-aligns
    # cells and lets them wrap ("6.97 / µs") unless the cell itself says otherwise.
    base = "padding:1px 8px;border-bottom:1px solid #ddd;white-space:nowrap"
    right = set(right_aligned or ())
    styles = [f'style="{base};text-align:{"right" if h in right else "left"}"' for h in headers]
    parts.append("<thead><tr>")
    parts += [f"<th {st}>{html.escape(h)}</th>" for st, h in zip(styles, headers)]
    parts.append("</tr></thead><tbody>")
    for r, hl in zip(rows, highlight):
        style = f' style="{HIGHLIGHT_STYLE}"' if hl else ""
        if len(r) != len(headers):
            parts.append(
                f'<tr{style}><td colspan="{len(headers)}" '
                f'style="{base};text-align:center;color:#777">{html.escape(r[0])}</td></tr>'
            )
            continue
        # One escape per row (its cells joined by NUL, which no cell holds), not per cell.
        texts = html.escape("\0".join([c.strip() for c in r])).split("\0")
        cells = "".join([f"<td {st}>{t}</td>" for st, t in zip(styles, texts)])
        parts.append(f"<tr{style}>" + cells)
        parts.append("</tr>")
    parts.append("</tbody></table>")
    return "".join(parts)


class LazyRows(Sequence):
    """Rows made on demand by ``make(i)``: `truncate_rows` then builds only the rows it keeps,
    so a 2000-op tape formats 50 rows, not 2000.

    >>> rows = LazyRows(1000, lambda i: [str(i)])
    >>> truncate_rows(rows, 2)[0]
    [['0'], ['… 998 more ops …'], ['999']]
    """

    def __init__(self, n: int, make):
        self._n = n
        self._make = make

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self._make(k) for k in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(i)
        return self._make(i)


def kept_indices(n: int, max_rows: int) -> list[int]:
    """The rows of an ``n``-row table that stay when it is cut to ``max_rows``: the first and
    last ones, with -1 where the ``"… N more …"`` row goes. ``max_rows <= 0`` keeps every row,
    and so does a table that would lose only one row.

    >>> kept_indices(5, 2), kept_indices(3, 2)
    ([0, -1, 4], [0, 1, 2])
    """
    if max_rows <= 0 or n <= max_rows + 1:
        return list(range(n))
    head = (max_rows + 1) // 2
    return [*range(head), -1, *range(n - (max_rows - head), n)]


def truncate_rows(rows: list, max_rows: int, what: str = "ops") -> tuple[list, list[int]]:
    """Keeps the first and last rows of a long table, with a ``"… N more ops …"`` row between.

    Returns the rows and, for each kept row, its index in ``rows`` (-1 for the gap row), as
    `kept_indices` gives them.

    >>> truncate_rows([["a"], ["b"], ["c"], ["d"], ["e"]], 2)
    ([['a'], ['… 3 more ops …'], ['e']], [0, -1, 4])
    >>> len(truncate_rows([["a"], ["b"], ["c"]], 2)[0])
    3
    """
    n = len(rows)
    kept = kept_indices(n, max_rows)
    gap = f"… {n - len(kept) + 1} more {what} …"
    return [rows[i] if i >= 0 else [gap] for i in kept], kept


# -- rich repr of tensors -----------------------------------------------------------------------


def _short_device(t) -> str:
    """``/gpu:0`` rather than TensorFlow's ``/job:localhost/.../device:GPU:0``, for display."""
    dev = getattr(t, "_device", None)
    return dev.name if dev is not None else str(t.device)


def tensor_html(t, max_rows: int = 10, max_cols: int = 10) -> str:
    """The notebook's HTML view of a Tensor or Variable: a header (name, shape, dtype,
    device) and a preview of the values (a grid for rank 1 and 2, NumPy's print otherwise).

    >>> "float32" in tensor_html(ek.constant([1.0, 2.0]))
    True
    """
    a = np.asarray(t.numpy())
    kind = type(t).__name__
    name = getattr(t, "name", None)
    head = f"{kind} '{name}'" if kind == "Variable" and name else kind
    shape = tuple(a.shape)
    header = (
        f"<b>{html.escape(head)}</b> shape={html.escape(str(shape))} "
        f"dtype={html.escape(t.dtype.name)} device={html.escape(_short_device(t))}"
    )
    if a.ndim in (1, 2) and a.size:
        grid = a.reshape(1, -1) if a.ndim == 1 else a
        r_idx = _preview_index(grid.shape[0], max_rows)
        c_idx = _preview_index(grid.shape[1], max_cols)
        rows = []
        for i in r_idx:
            if i < 0:
                rows.append("<tr>" + "<td>⋮</td>" * len(c_idx) + "</tr>")
                continue
            tds = "".join(
                "<td>…</td>" if j < 0 else f"<td>{html.escape(_fmt_value(grid[i, j]))}</td>"
                for j in c_idx
            )
            rows.append(f"<tr>{tds}</tr>")
        body = f'<table style="{TABLE_STYLE}">{"".join(rows)}</table>'
    else:
        with np.printoptions(threshold=100, edgeitems=3):
            body = f"<pre>{html.escape(np.array2string(a, separator=' '))}</pre>"
    return f'<div class="eagerkernel-tensor">{header}{body}</div>'


def _preview_index(n: int, limit: int) -> list[int]:
    if n <= limit:
        return list(range(n))
    half = limit // 2
    return [*range(half), -1, *range(n - half, n)]


def _fmt_value(v) -> str:
    if isinstance(v, np.floating | float):
        return f"{float(v):.6g}"
    return str(v.item() if isinstance(v, np.generic) else v)
