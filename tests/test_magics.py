"""The %%tape, %grad and %device magics and the rich displays, in an in-process IPython shell."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.testing.globalipapp import start_ipython
from IPython.utils.capture import capture_output

import eagerkernel as ek
from eagerkernel.magics import GradResult, TapeRecord, format_seconds
from eagerkernel.magics.formatting import (
    format_share,
    share_cell,
    text_table,
    timing_cell,
    truncate_rows,
    value_summary,
)


@pytest.fixture
def ip():
    """The test IPython shell with the extension loaded and HTML output active."""
    start_ipython()  # once per process; later calls return None
    shell = InteractiveShell.instance()
    shell.extension_manager.load_extension("eagerkernel")
    formatter = shell.display_formatter
    active = list(formatter.active_types)
    formatter.active_types = ["text/plain", "text/html"]
    shell.user_ns.update(ek=ek, np=np)
    yield shell
    formatter.active_types = active
    for name in ("_tape", "fwd", "y", "x", "w", "b", "g", "dw", "dx"):
        shell.user_ns.pop(name, None)
    ek.config.set_default_device(None)


def run(ip, code: str):
    """Runs ``code`` as a cell; returns (ExecutionResult, captured output)."""
    with capture_output() as cap:
        result = ip.run_cell(code)
    return result, cap


LINEAR = """%%tape
w = ek.Variable(2.0)
x = ek.constant(3.0)
b = ek.constant(1.0)
y = w * x + b
y"""


# -- formatting ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.0, "0 ns"),
        (3.2e-9, "3.2 ns"),
        (999e-9, "999 ns"),
        (1.5e-6, "1.5 µs"),
        (12.34e-6, "12.3 µs"),
        (0.00099996, "1 ms"),
        (4.25e-3, "4.25 ms"),
        (0.5, "500 ms"),
        (1.0, "1 s"),
        (12.5, "12.5 s"),
        (1234.0, "1234 s"),
        (None, "—"),
    ],
)
def test_format_seconds_picks_the_unit(seconds, text):
    assert format_seconds(seconds) == text


@settings(max_examples=3000, deadline=None)
@given(
    st.one_of(
        st.floats(min_value=0.0, max_value=2.0, allow_nan=False),
        st.floats(min_value=0.0, max_value=1e-5),
        st.sampled_from([0.0, 9.995e-4, 9.9949e-4, 9.995e-7, 9.9949e-7, 9.995e-10, 0.9995, 5e-324]),
        st.floats(allow_nan=True, allow_infinity=True),
        st.none(),
    )
)
def test_timing_cell_is_format_seconds_right_aligned(seconds):
    """The one-step formats of the timing column give `format_seconds` exactly, including
    the values that round up into the next unit."""
    assert timing_cell(seconds) == format_seconds(seconds).rjust(7)
    if seconds is not None:
        assert timing_cell(np.float64(seconds)) == format_seconds(seconds).rjust(7)


@given(
    st.one_of(st.none(), st.floats(min_value=0.0, max_value=1e3)),
    st.one_of(st.none(), st.just(0.0), st.floats(min_value=1e-12, max_value=1e3)),
)
def test_share_cell_is_format_share_right_aligned(part, total):
    assert share_cell(part, total) == format_share(part, total).rjust(6)


def test_truncate_rows_keeps_head_and_tail():
    rows = [[str(i)] for i in range(10)]
    out, kept = truncate_rows(rows, 4)
    assert [r[0] for r in out] == ["0", "1", "… 6 more ops …", "8", "9"]
    assert kept == [0, 1, -1, 8, 9]
    assert truncate_rows(rows, 0)[0] == rows


def test_text_table_marks_and_spans():
    text = text_table(["a", "bb"], [["1", "2"], ["gap"]], marks=["!", " "])
    assert text.splitlines()[2] == "! 1  2"
    assert text.splitlines()[3] == "  gap"


def test_value_summary_of_large_tensors():
    t = ek.constant(np.array([1.0, np.inf, np.nan, -2.0, 3.0], np.float32))
    assert value_summary(t) == "min -2, max inf, 1 NaN, 1 Inf"


# -- %%tape -------------------------------------------------------------------------------------


def test_tape_records_every_op_and_keeps_the_tape(ip):
    result, cap = run(ip, LINEAR)
    assert result.success
    tape = ip.user_ns["_tape"]
    assert isinstance(tape, ek.GradientTape)
    assert [e.prim.name for e in tape.entries] == ["Mul", "AddV2"]
    assert all(e.seconds is not None and e.seconds >= 0 for e in tape.entries)
    # The last expression is displayed as usual.
    assert "numpy=7.0" in cap.stdout


def test_tape_displays_record_with_times_as_text_and_html(ip):
    _, cap = run(ip, LINEAR)
    record, graph = cap.outputs[-2:]
    assert {"text/plain", "text/html"} <= set(record.data)
    for mime in ("text/plain", "text/html"):
        assert "Mul" in record.data[mime]
        assert "AddV2" in record.data[mime]
        assert "By op type" in record.data[mime]
        assert "100.0%" in record.data[mime]
    text = record.data["text/plain"]
    assert "float32[]" in text
    assert "2 ops recorded, forward time" in text
    assert text.splitlines()[1].split() == [
        "#",
        "op",
        "scope",
        "line",
        "inputs",
        "outputs",
        "bytes",
        "time",
        "share",
    ]
    assert any(unit in text for unit in (" ns", " µs", " ms", " s"))
    assert "<table" in record.data["text/html"]
    assert "<graph of tape `_tape`" in graph.data["text/plain"]


def sanitizer():
    import re

    from nbval.plugin import get_sanitize_patterns

    cfg = ek.__path__[0] + "/resources/nbval_sanitize.cfg"
    with open(cfg, encoding="utf-8") as f:
        patterns = get_sanitize_patterns(f.read())

    def sanitize(text):
        for regex, replace in patterns:
            text = re.sub(regex, replace, text)
        return text

    return sanitize


def test_tape_record_is_the_same_on_every_run_but_for_the_times(ip):
    sanitize = sanitizer()
    _, first = run(ip, LINEAR)
    _, second = run(ip, LINEAR)
    for mime in ("text/plain", "text/html"):
        a, b = first.outputs[-2].data[mime], second.outputs[-2].data[mime]
        assert sanitize(a) == sanitize(b)
        assert "TIME" in sanitize(a) and "SHARE" in sanitize(a)


def test_tape_timing_layout_does_not_depend_on_the_numbers(ip, monkeypatch):
    from eagerkernel.runtime.core import dispatch

    sanitize = sanitizer()
    _, cap = run(ip, LINEAR)
    shown = cap.outputs[-2]
    clock = iter([0.0, 1.5e-9, 0.0, 123.4])  # any other numbers at all
    monkeypatch.setattr(dispatch, "_perf_counter", lambda: next(clock))
    monkeypatch.setattr(dispatch, "_observe", dispatch._observed)  # the Python path reads it
    _, _ = run(ip, LINEAR)
    monkeypatch.undo()
    fresh = TapeRecord(ip.user_ns["_tape"], "_tape")
    for view, text, html in (
        (fresh, shown.data["text/plain"], shown.data["text/html"]),
        (fresh.timing, None, None),
    ):
        assert "TIME" in sanitize(repr(view))
        if text is not None:
            assert repr(view) != text
            assert sanitize(repr(view)) == sanitize(text)
            assert sanitize(view._repr_html_()) == sanitize(html)
    assert "1.5 ns" in repr(fresh) and "123 s" in repr(fresh.timing)


def test_named_tape_watch_and_sync(ip):
    ip.user_ns["x"] = ek.constant([1.0, 2.0])
    result, _ = run(ip, "%%tape fwd --watch x --sync\ny = ek.exp(x)")
    assert result.success
    tape = ip.user_ns["fwd"]
    assert "_tape" not in ip.user_ns
    assert tape.sync is True
    assert [e.prim.name for e in tape.entries] == ["Exp"]


def test_tape_long_tapes_are_cut_in_the_middle(ip):
    code = "%%tape --max-rows 10\nx = ek.constant(1.0)\nfor _ in range(30):\n    x = x * 1.0\n"
    _, cap = run(ip, code)
    record = cap.outputs[-2]
    text = record.data["text/plain"]
    assert "… 20 more ops …" in text
    assert "… 20 more ops …" in record.data["text/html"]
    lines = text.splitlines()
    rows = lines[3 : lines.index("By op type:")]
    assert [r.split()[0] for r in rows] == ["0", "1", "2", "3", "4", "…", *map(str, range(25, 30))]
    assert "30 ops recorded" in lines[0]


def test_tape_cell_error_fails_the_cell_and_keeps_the_partial_tape(ip):
    result, cap = run(ip, "%%tape\nx = ek.constant(2.0) * 3.0\n1 / 0\nx = x + 1.0")
    assert isinstance(result.error_in_exec, ZeroDivisionError)
    assert [e.prim.name for e in ip.user_ns["_tape"].entries] == ["Mul"]
    assert "Mul" in cap.outputs[-2].data["text/plain"]
    # Recording stopped with the cell.
    assert not ek.runtime.core.context.current_recorders()


def test_tape_persistent_appends_to_the_existing_tape(ip):
    run(ip, "%%tape\nx = ek.constant(2.0) * 3.0")
    first = ip.user_ns["_tape"]
    run(ip, "%%tape --persistent\ny = x + 1.0")
    assert ip.user_ns["_tape"] is first
    assert [e.prim.name for e in first.entries] == ["Mul", "AddV2"]
    run(ip, "%%tape\ny = x + 1.0")
    assert [e.prim.name for e in ip.user_ns["_tape"].entries] == ["AddV2"]


def test_tape_rejects_bad_arguments(ip):
    ip.user_ns.pop("y", None)
    result, cap = run(ip, "%%tape --watch nothing_here\ny = 1")
    assert isinstance(result.error_in_exec, UsageError)
    assert str(result.error_in_exec) == "%%tape --watch: name 'nothing_here' is not defined."
    assert "Traceback" not in cap.stderr
    result, _ = run(ip, "%%tape 1abc\ny = 1")
    assert isinstance(result.error_in_exec, UsageError)
    assert str(result.error_in_exec) == (
        "%%tape: NAME must be a Python identifier. Received: '1abc'."
    )
    assert "y" not in ip.user_ns  # the cell did not run


# -- %grad --------------------------------------------------------------------------------------


def test_grad_of_linear_function_matches_closed_form(ip):
    run(ip, LINEAR)
    result, _ = run(ip, "%grad y wrt w x b")
    assert result.success
    grads = result.result
    assert isinstance(grads, GradResult) and isinstance(grads, list)
    # d(wx + b)/dw = x = 3, d/dx = w = 2, d/db = 1
    assert [float(g) for g in grads] == [3.0, 2.0, 1.0]
    assert grads.names == ["w", "x", "b"]
    assert [s.op for s in grads.steps] == ["AddV2", "Mul"]
    assert [s.index for s in grads.steps] == [1, 0]
    assert grads.nan_origin is None


def test_grad_assignment_and_repeat(ip):
    run(ip, LINEAR)
    run(ip, "dw, dx = %grad y w x")
    assert float(ip.user_ns["dw"]) == 3.0 and float(ip.user_ns["dx"]) == 2.0
    result, _ = run(ip, "%grad y x")  # the tape is replayed, not consumed
    assert float(result.result[0]) == 2.0


def test_grad_report_text_and_html(ip):
    run(ip, LINEAR)
    result, _ = run(ip, "%grad y wrt w x")
    data, _ = ip.display_formatter.format(result.result.report)
    text, html = data["text/plain"], data["text/html"]
    for form in (text, html):
        assert "AddV2" in form and "Mul" in form
        assert "Gradients of `y` w.r.t. w, x" in form
    assert "float32[] ‖3‖" in text  # the cotangent flowing to w
    assert "<table" in html


def test_grad_nonscalar_target_and_list_sources(ip):
    code = "%%tape\nw = ek.Variable([[1.0, 2.0], [3.0, 4.0]])\nx = ek.constant([[1.0], [-1.0]])"
    code += "\ny = ek.matmul(w, x)"
    run(ip, code)
    result, _ = run(ip, "%grad y wrt [w, x]")
    dw, dx = result.result
    np.testing.assert_allclose(dw.numpy(), [[1.0, -1.0], [1.0, -1.0]])
    np.testing.assert_allclose(dx.numpy(), [[4.0], [6.0]])
    assert result.result.names == ["w", "x"]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_grad_names_the_op_that_made_nan(ip):
    run(ip, "%%tape\nx = ek.constant(100.0)\ny = ek.math.log(1.0 + ek.exp(x))")
    assert [e.prim.name for e in ip.user_ns["_tape"].entries] == ["Exp", "AddV2", "Log"]
    result, _ = run(ip, "%grad y wrt x")
    grads = result.result
    assert np.isnan(grads[0].numpy())
    # Backward: Log's VJP gives 1/(1+e^100) = 0 (finite), then Exp's VJP computes 0 * inf.
    origin = grads.nan_origin
    assert origin is not None and origin.op == "Exp" and origin.index == 0
    data, _ = ip.display_formatter.format(grads.report)
    text, html = data["text/plain"], data["text/html"]
    assert "Exp (tape op #0) produced NaN" in text
    assert "float32[] = 100.0" in text  # the forward input
    assert "! 2     0  Exp" in text  # the highlighted replay row
    assert "NaN/Inf origin" in html and "background:#fdd" in html
    assert "Exp (tape op #0) produced NaN" in html


def test_grad_unconnected_and_unused_sources(ip):
    run(ip, LINEAR)
    ip.user_ns["z"] = ek.constant(5.0)
    result, _ = run(ip, "%grad x wrt z")
    assert result.result == [None]
    assert any("`z` is not an input" in n for n in result.result.notes)
    data, _ = ip.display_formatter.format(result.result.report)
    assert "None" in data["text/plain"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("%grad y wrt w --tape nope", "no tape named `nope`"),
        ("%grad y", "no SOURCE"),
        ("%grad y wrt undefined_name", "cannot evaluate 'undefined_name'"),
        ("%grad y wrt 3", "must be a Tensor"),
    ],
)
def test_grad_usage_errors(ip, line, message):
    run(ip, LINEAR)
    result, cap = run(ip, line)
    assert isinstance(result.error_in_exec, UsageError)
    assert message in str(result.error_in_exec)
    assert "Traceback" not in cap.stderr


# -- %device ------------------------------------------------------------------------------------


def test_device_lists_devices_and_default(ip):
    result, _ = run(ip, "%device")
    listing = result.result
    data, _ = ip.display_formatter.format(listing)
    assert "* /cpu:0" in data["text/plain"]
    assert "/cpu:0" in data["text/html"]


def test_device_absent_is_a_one_line_error(ip):
    result, cap = run(ip, "%device /gpu:7")
    assert isinstance(result.error_in_exec, UsageError)
    assert "Traceback" not in cap.stderr
    assert len(cap.stderr.strip().splitlines()) == 1
    assert "/gpu:7" in cap.stderr
    assert ek.config.get_default_device() == "/cpu:0"
    result, cap = run(ip, "%device tpu:0")
    assert isinstance(result.error_in_exec, UsageError)


def test_device_sets_the_default_for_following_cells(ip):
    ek.config.experimental.set_virtual_gpus(2)  # the count tests/test_devices.py uses too
    result, _ = run(ip, "%device gpu:0")
    assert result.success
    text = repr(result.result)
    assert "* /gpu:0" in text and "virtual" in text
    run(ip, "x = ek.constant([1.0, 2.0])")
    assert ip.user_ns["x"].device == "/job:localhost/replica:0/task:0/device:GPU:0"
    run(ip, "%%tape\ny = x * 2.0")
    assert "float32[2]@/gpu:0" in repr(TapeRecord(ip.user_ns["_tape"]))


# -- rich reprs and the extension ----------------------------------------------------------------


def test_tensor_and_variable_html(ip):
    data, _ = ip.display_formatter.format(ek.constant([[1.0, 2.5], [3.0, 4.0]]))
    assert data["text/plain"].startswith("<Tensor: shape=(2, 2), dtype=float32")
    html = data["text/html"]
    assert "shape=(2, 2)" in html and "float32" in html and "/cpu:0" in html and "2.5" in html
    data, _ = ip.display_formatter.format(ek.Variable(np.zeros((30, 30), np.float32), name="w"))
    assert "Variable &#x27;w" in data["text/html"] and "…" in data["text/html"]
    data, _ = ip.display_formatter.format(ek.constant(np.ones((2, 2, 2), np.float32)))
    assert "<pre>" in data["text/html"]


def test_gradient_tape_shows_its_ops(ip):
    x = ek.constant(2.0)
    with ek.GradientTape() as tape:
        tape.watch(x)
        ek.exp(x)
    data, _ = ip.display_formatter.format(tape)
    text = data["text/plain"]
    assert text.splitlines()[0] == "Tape: 1 op recorded"  # a plain tape times nothing:
    assert text.splitlines()[1].split() == ["#", "op", "scope", "line", "inputs", "outputs"]
    assert "Exp" in text and "Exp" in data["text/html"]
    assert "By op type" not in text and "share" not in data["text/html"]


def test_profiling_tape_redisplays_with_its_times(ip):
    run(ip, LINEAR)
    data, _ = ip.display_formatter.format(ip.user_ns["_tape"])
    text = data["text/plain"]
    assert text.startswith("Tape: 2 ops recorded, forward time ")
    assert text.splitlines()[1].split() == [
        "#",
        "op",
        "scope",
        "line",
        "inputs",
        "outputs",
        "bytes",
        "time",
        "share",
    ]
    assert "By op type" in text and "By op type" in data["text/html"]


def test_load_and_unload_extension(ip):
    mm = ip.magics_manager
    ip.run_line_magic("unload_ext", "eagerkernel")
    assert "grad" not in mm.magics["line"] and "tape" not in mm.magics["cell"]
    data, _ = ip.display_formatter.format(ek.constant(1.0))
    assert "text/html" not in data
    data, _ = ip.display_formatter.format(ek.GradientTape())
    assert data["text/plain"].startswith("<eagerkernel.runtime.core.tape.GradientTape")
    ip.run_line_magic("load_ext", "eagerkernel")
    assert "grad" in mm.magics["line"] and "device" in mm.magics["line"]
    assert "tape" in mm.magics["cell"]


def test_magic_help_is_the_docstring(ip):
    doc = ip.magics_manager.magics["cell"]["tape"].__doc__
    assert "--max-rows" in doc and "nbval" in doc
    assert "wrt" in ip.magics_manager.magics["line"]["grad"].__doc__


def test_tape_displays_give_text_from_repr_and_html_only_where_active(ip):
    # The tables and the graph hand IPython their text/plain themselves (no pretty printer);
    # HTML and the PNG still come from their _repr_*_ methods, for the types that are active.
    from eagerkernel.magics import TapeRecord
    from eagerkernel.runtime.core.profiling_tape import ProfilingTape

    with ProfilingTape() as tape:
        ek.constant([1.0, 2.0]) * 3.0 + 1.0
    record = TapeRecord(tape, "t")
    for view in (record, record.timing):
        data, _ = ip.display_formatter.format(view)
        assert set(data) == {"text/plain", "text/html"}
        assert data["text/plain"] == repr(view) and "<table" in data["text/html"]
    ip.display_formatter.active_types = ["text/plain"]
    data, _ = ip.display_formatter.format(record.graph)
    assert set(data) == {"text/plain"} and data["text/plain"] == repr(record.graph)
    ip.display_formatter.active_types = ["text/plain", "text/html"]
    data, _ = ip.display_formatter.format(record.graph)
    assert "<svg" in data["text/html"] and "image/png" not in data


def test_profiling_tape_of_untimed_ops_shows_dashes(ip):
    ip.run_cell("@ek.custom_gradient\ndef ident(t):\n    return t * 1.0, lambda g: g\n")
    _, cap = run(ip, "%%tape\ny = ident(ek.constant(2.0))")
    text = cap.outputs[-2].data["text/plain"]
    assert text.splitlines()[1].split() == [
        "#",
        "op",
        "scope",
        "line",
        "inputs",
        "outputs",
        "bytes",
        "time",
        "share",
    ]
    assert text.splitlines()[3].split()[-2:] == ["—", "—"]
    assert text.splitlines()[0] == "Tape `_tape`: 1 op recorded, forward time —"
    assert text.splitlines()[-1].split() == ["total", "1", "4", "B", "—", "—"]
    ip.user_ns.pop("ident")


def test_tape_time_once_does_not_bill_an_op_for_the_warning_it_shows(ip, monkeypatch):
    import time
    import warnings

    # Two Exps of one size; the second overflows, and showing its warning takes 50 ms (a
    # slow front end). Its time must be close to the first's, not the display's.
    def slow_display(*args, **kwargs):
        time.sleep(0.05)

    ip.user_ns["ok"] = ek.constant(np.full(100_000, 1.0, np.float32))
    ip.user_ns["big"] = ek.constant(np.full(100_000, 1000.0, np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        monkeypatch.setattr(warnings, "showwarning", slow_display)
        result, cap = run(ip, "%%tape\na = ek.exp(ok)\nb = ek.exp(big)\nc = ek.exp(ok)")
        assert warnings.showwarning is slow_display  # the magic put the hook back
    assert result.success
    assert np.isinf(ip.user_ns["b"].numpy()).all()  # the overflow happened
    fine, overflowed, again = (r.seconds for r in ip.user_ns["_tape"].records)
    assert overflowed < 10 * max(fine, again)  # a ratio between ops: not billed 50 ms
    title = cap.outputs[0].data["text/plain"].splitlines()[0]
    assert "1 op was re-timed without the warning it showed (#1)" in title
    for name in ("ok", "big", "a", "b", "c"):
        ip.user_ns.pop(name, None)


def test_tape_time_once_bills_the_warning_without_the_hook(ip, monkeypatch):
    # The check above can fail: without re-timing, the display's 50 ms is the op's time.
    import time
    import warnings

    from eagerkernel.magics import tape_magic

    def slow_display(*args, **kwargs):
        time.sleep(0.05)

    monkeypatch.setattr(tape_magic, "retime", lambda records, indices, sync=False: [])
    ip.user_ns["big"] = ek.constant(np.full(1000, 1000.0, np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        monkeypatch.setattr(warnings, "showwarning", slow_display)
        result, _ = run(ip, "%%tape\nb = ek.exp(big)")
    assert result.success
    (record,) = ip.user_ns["_tape"].records
    assert record.seconds >= 0.05
    for name in ("big", "b"):
        ip.user_ns.pop(name, None)


def test_tape_keeps_a_warnings_hook_the_cell_sets(ip, monkeypatch):
    import warnings

    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)  # restored after
    ip.user_ns["shown"] = shown = []
    result, _ = run(
        ip,
        "%%tape\nimport warnings\n"
        "warnings.showwarning = lambda *a, **k: shown.append(str(a[0]))\n"
        "y = ek.exp(ek.constant([1.0]))",
    )
    assert result.success
    warnings.warn_explicit("after the cell", UserWarning, "f.py", 1, registry={})
    assert shown == ["after the cell"]
    ip.user_ns.pop("shown", None)


@pytest.mark.parametrize(
    "line, message",
    [
        ("--max-rows -3", "--max-rows must be at least 0 (0 shows all). Received: -3."),
        ("--time replay --repeat 0", "--repeat must be at least 1"),
        ("1bad", "NAME must be a Python identifier. Received: '1bad'."),
    ],
)
def test_tape_rejects_bad_arguments_before_running_the_cell(ip, line, message):
    ip.user_ns.pop("ran", None)
    result, cap = run(ip, f"%%tape {line}\nran = True")
    assert isinstance(result.error_in_exec, UsageError)
    assert message in cap.stderr
    assert "ran" not in ip.user_ns  # the cell did not run


# -- the body of %%tape runs as the cell's own code (magics/cell_runner.py) ----------------------


def test_tape_body_runs_ipython_syntax_and_displays_its_last_expression(ip):
    ip.user_ns["x"] = ek.constant(3.0)
    result, cap = run(ip, "%%tape\ny = x * 2.0\n%time z = y + 1.0\nz")
    assert result.success
    assert "Wall time" in cap.stdout  # the %time line ran as a magic
    assert "numpy=7.0>" in cap.stdout  # the last expression was displayed
    assert [r.prim.name for r in ip.user_ns["_tape"].records] == ["Mul", "AddV2"]


def test_tape_body_fires_the_cell_events_once(ip):
    seen = []

    def pre(info):
        seen.append(("pre", info.raw_cell.splitlines()[0]))

    def post(res):
        seen.append(("post", res.info.raw_cell.splitlines()[0]))

    ip.events.register("pre_run_cell", pre)
    ip.events.register("post_run_cell", post)
    try:
        run(ip, "%%tape\ny = ek.constant(1.0) + 1.0")
    finally:
        ip.events.unregister("pre_run_cell", pre)
        ip.events.unregister("post_run_cell", post)
    assert seen == [("pre", "%%tape"), ("post", "%%tape")]


def test_tape_body_rerun_reuses_its_compiled_code_and_sees_an_edit(ip):
    from eagerkernel.magics import cell_runner

    cell = "%%tape\ny = ek.constant(2.0) * 3.0\ny"
    run(ip, cell)
    (plan,) = (v for k, v in cell_runner._PLANS.items() if k[1].endswith("* 3.0\ny\n"))
    result, cap = run(ip, cell)
    assert result.success and "numpy=6.0>" in cap.stdout
    (again,) = (v for k, v in cell_runner._PLANS.items() if k[1].endswith("* 3.0\ny\n"))
    assert again[2] is plan[2]  # the same code objects
    result, cap = run(ip, cell.replace("3.0", "4.0"))
    assert result.success and "numpy=8.0>" in cap.stdout


def test_tape_body_syntax_error_and_exception_are_reported_as_for_a_cell(ip):
    result, cap = run(ip, "%%tape\ny = (")
    assert isinstance(result.error_in_exec, SyntaxError)
    assert "SyntaxError" in cap.stdout + cap.stderr
    result, cap = run(ip, "%%tape\ny = ek.constant(1.0) * 2.0\nraise KeyError('boom')")
    assert isinstance(result.error_in_exec, KeyError)
    out = cap.stdout + cap.stderr
    assert "KeyError" in out and "boom" in out and "line 3" in out


def test_tape_body_applies_ast_transformers_registered_between_runs(ip):
    import ast

    class Doubler(ast.NodeTransformer):
        def visit_Constant(self, node):
            if node.value == 3.0:
                return ast.copy_location(ast.Constant(6.0), node)
            return node

    cell = "%%tape\ny = ek.constant(2.0) * 3.0\ny"
    assert "numpy=6.0>" in run(ip, cell)[1].stdout
    transformer = Doubler()
    ip.ast_transformers.append(transformer)
    try:
        assert "numpy=12.0>" in run(ip, cell)[1].stdout
    finally:
        ip.ast_transformers.remove(transformer)
    assert "numpy=6.0>" in run(ip, cell)[1].stdout
