"""The pictures and rich displays of the magics: tape graphs, gradient plots, Model/Dataset/
checkpoint-status views, per-cell timing, and a smoke run of benchmarks/tape_magic.py."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.testing.globalipapp import start_ipython
from IPython.utils.capture import capture_output

import eagerkernel as ek
from eagerkernel.magics import TapeGraph, TapeRecord
from eagerkernel.magics.graph import layout
from eagerkernel.runtime.core import tape as tape_mod
from eagerkernel.runtime.core.tape import ProfilingTape

ROOT = Path(__file__).resolve().parents[1]
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def ip():
    """The test IPython shell with the extension loaded and text, HTML and PNG output active."""
    start_ipython()
    shell = InteractiveShell.instance()
    shell.extension_manager.load_extension("eagerkernel")
    formatter = shell.display_formatter
    active = list(formatter.active_types)
    formatter.active_types = ["text/plain", "text/html", "image/png"]
    shell.user_ns.update(ek=ek, np=np)
    yield shell
    shell.run_line_magic("eager_timing", "off")
    formatter.active_types = active
    for name in ("_tape", "y", "x", "w", "a", "b", "model", "ds", "status", "ckpt"):
        shell.user_ns.pop(name, None)


def run(ip, code: str):
    with capture_output() as cap:
        result = ip.run_cell(code)
    assert result.error_in_exec is None and result.error_before_exec is None, result
    return result, cap


def chain_tape(steps: int) -> ProfilingTape:
    tape = ProfilingTape()
    y = ek.constant(np.ones(10, np.float32))
    a = ek.constant(np.full(10, 0.999, np.float32))
    b = ek.constant(np.full(10, 0.001, np.float32))
    with tape:
        for _ in range(steps):
            y = y * a + b
    return tape


# -- %%tape graph -------------------------------------------------------------------------------


def test_tape_cell_shows_graph_as_second_png_display(ip):
    _, cap = run(ip, "%%tape\nw = ek.Variable(2.0)\nx = ek.constant(3.0)\ny = w * x + 1.0")
    record, graph = cap.outputs[-2:]
    assert "image/png" in graph.data and "text/html" not in graph.data
    assert graph.data["image/png"][:8] == PNG
    assert "image/png" not in record.data
    assert "<img" not in record.data["text/html"]
    # deterministic text form for nbval
    assert graph.data["text/plain"] == "<graph of tape `_tape`: 2 ops, 5 nodes drawn>"


def test_record_graph_png_and_layout_labels():
    tape = ProfilingTape()
    w = ek.Variable(2.0)
    x = ek.constant(3.0)
    with tape:
        y = ek.exp(w * x) + x
    record = TapeRecord(tape, "t", names={id(x): "x", id(w): "w"})
    png = record.graph_png()
    assert png[:8] == PNG
    lay = record.graph.layout
    labels = [n.label for n in lay.nodes]
    assert labels[:2] == ["var w: float32[]", "x: float32[]"]
    assert [n.label for n in lay.nodes if n.kind == "op"] == ["Mul", "Exp", "AddV2"]
    depth = {n.label: n.depth for n in lay.nodes}
    assert depth["Mul"] == 1 and depth["Exp"] == 2 and depth["AddV2"] == 3
    assert y is not None and lay.hidden_ops == 0


def test_long_chain_collapses_fast():
    tape = chain_tape(1000)  # 2000 ops
    t0 = time.perf_counter()
    lay = TapeGraph(tape.entries, "t").layout
    assert time.perf_counter() - t0 < 1.0
    chains = [n for n in lay.nodes if n.kind == "chain"]
    assert [c.label for c in chains] == ["Mul→AddV2 ×1000"]
    assert len(lay.nodes) <= 5 and lay.n_ops == 2000 and lay.hidden_ops == 0


def test_max_rows_caps_drawn_nodes():
    tape = ProfilingTape()
    xs = [ek.constant(float(i)) for i in range(30)]
    with tape:
        for x in xs:  # 30 independent Exp ops: nothing to collapse
            ek.exp(x)
    lay = layout(tape.entries, max_rows=10)
    assert len(lay.nodes) <= 10
    assert lay.hidden_ops == 30 - sum(len(n.ops) for n in lay.nodes)
    assert lay.hidden_ops > 0 and f"{lay.hidden_ops} more ops not drawn" in lay.caption
    assert len(layout(tape.entries, max_rows=0).nodes) == 60


def test_max_rows_option_reaches_the_graph(ip, monkeypatch):
    from eagerkernel.magics import graph as graph_mod

    seen = []
    real = graph_mod.layout
    monkeypatch.setattr(graph_mod, "layout", lambda *a: seen.append(real(*a)) or seen[-1])
    code = "%%tape --max-rows 6\nfor i in range(20):\n    ek.exp(ek.constant(float(i)))"
    _, cap = run(ip, code)
    assert cap.outputs[-1].data["image/png"][:8] == PNG
    assert len(seen[-1].nodes) <= 6 and seen[-1].hidden_ops > 0
    assert "ops not drawn" in cap.outputs[-1].data["text/plain"]


def test_displaying_the_tape_shows_the_record(ip):
    run(ip, "%%tape\nx = ek.constant(3.0)\ny = x * x")
    result, _ = run(ip, "_tape")  # the cell's value: the tape itself
    assert isinstance(result.result, ProfilingTape)
    data, _ = ip.display_formatter.format(result.result)
    assert "Mul" in data["text/plain"] and "<table" in data["text/html"]


# -- %grad plots --------------------------------------------------------------------------------


def test_grad_shows_plots_after_the_report(ip):
    code = "%%tape\nw = ek.Variable(np.ones((3, 4), np.float32))"
    code += "\nb = ek.Variable(np.ones(4, np.float32))"
    code += "\ny = ek.reduce_sum(ek.exp(w) + b)"
    run(ip, code)
    result, cap = run(ip, "%grad y wrt w b")
    report, plots = cap.outputs[-2:]
    assert "<table" in report.data["text/html"] and "image/png" not in report.data
    assert plots.data["image/png"][:8] == PNG and "text/html" not in plots.data
    assert plots.data["text/plain"] == "<plots of 2 gradients>"
    assert len(result.result) == 2


def test_grad_plots_omit_beyond_eight(ip):
    code = (
        "%%tape\nvs = [ek.Variable(float(i)) for i in range(10)]\ny = ek.reduce_sum(ek.stack(vs))"
    )
    run(ip, code)
    result, _ = run(ip, "%grad y wrt vs")
    plots = result.result.plots
    assert len(plots.items) == 8 and plots.omitted == 2
    assert "2 more not drawn" in repr(plots) and plots.png()[:8] == PNG
    ip.user_ns.pop("vs")


# -- Model, Dataset, checkpoint status ------------------------------------------------------------


def test_model_repr(ip):
    layers = ek.keras.layers
    ip.user_ns["model"] = ek.keras.Sequential([layers.Dense(3, input_shape=(4,)), layers.Dense(2)])
    data, _ = ip.display_formatter.format(ip.user_ns["model"])
    for form in (data["text/plain"], data["text/html"]):
        assert "Dense" in form and "23" in form  # 15 + 8 params
    assert "Total params: 23" in data["text/plain"] and "<table" in data["text/html"]
    data, _ = ip.display_formatter.format(ek.keras.Sequential([layers.Dense(2)]))
    assert "not built" in data["text/plain"] and "not built" in data["text/html"]


def test_dataset_repr_never_runs_the_pipeline(ip):
    ds = ek.data.Dataset.from_tensor_slices(np.zeros((5, 3), np.float32)).batch(2)
    data, _ = ip.display_formatter.format(ds)
    assert "cardinality: 3 elements" in data["text/plain"]
    assert "TensorSpec" in data["text/plain"] and "<table" in data["text/html"]
    calls = []
    mapped = ek.data.Dataset.range(4).map(lambda x: calls.append(1) or x * 2)
    data, _ = ip.display_formatter.format(mapped)
    assert calls == []
    assert "not known until the first element" in data["text/plain"]
    assert "4 elements" in data["text/plain"]
    inf, _ = ip.display_formatter.format(ek.data.Dataset.range(3).repeat())
    assert "infinite" in inf["text/plain"]


def test_checkpoint_status_repr(ip, tmp_path):
    w = ek.Variable([1.0, 2.0])
    path = ek.train.Checkpoint(w=w).save(str(tmp_path / "ck"))
    status = ek.train.Checkpoint(w=ek.Variable([0.0, 0.0]), v=ek.Variable(1.0)).restore(path)
    data, _ = ip.display_formatter.format(status)
    text = data["text/plain"]
    assert "Checkpoint restore status" in text
    assert "existing variables without a value: 1" in text
    assert "unmatched saved values: 0" in text
    assert "<table" in data["text/html"]


# -- %eager_timing ---------------------------------------------------------------------------------


def test_eager_timing_displays_only_when_on(ip):
    cell = (
        "x = ek.constant([1.0, 2.0])\n"
        "with ek.GradientTape() as t:\n    t.watch(x)\n    y = ek.reduce_sum(x * x)\n"
        "g = t.gradient(y, x)"
    )
    _, cap = run(ip, cell)
    assert cap.outputs == []
    run(ip, "%eager_timing on")
    assert tape_mod.backward.__name__ == "backward"  # the cell that turned it on is not timed
    _, cap = run(ip, cell)
    assert len(cap.outputs) == 1 and cap.stdout == ""
    data = cap.outputs[0].data
    assert "Cell timing:" in data["text/plain"] and "<table" in data["text/html"]
    assert "ops on /cpu:0" in data["text/plain"] and "backward passes (1)" in data["text/plain"]
    _, cap = run(ip, "%%tape\nz = ek.constant(1.0) + 1.0")  # nested run_cell: one summary
    assert sum("Cell timing:" in o.data["text/plain"] for o in cap.outputs) == 1
    run(ip, "%eager_timing off")
    assert tape_mod.backward.__name__ == "backward"
    assert not ek.runtime.core.context.current_recorders()
    _, cap = run(ip, cell)
    assert cap.outputs == []
    for name in ("g", "t", "z"):
        ip.user_ns.pop(name, None)


# -- benchmark smoke ---------------------------------------------------------------------------


def test_tape_magic_benchmark_smoke():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "tape_magic.py"), "--quick"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    row = re.compile(r"^(\S.*?)\s{2,}([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)x$")
    rows = {m[1]: [float(v) for v in m.groups()[1:]] for m in map(row.match, out.splitlines()) if m}
    assert list(rows) == [
        "plain cell",
        "ProfilingTape, no magic",
        "%%tape (text displays)",
        "%%tape (notebook: +HTML, PNG)",
        "%grad (text displays)",
        "%grad (notebook: +HTML, PNG)",
    ], out
    plain_median = rows["plain cell"][0]
    for median, best, _, ratio in rows.values():
        assert 0 < best <= median, out  # every row measured; the best is no slower
        # The ratio of the unrounded medians against the printed ones (0.01 ms resolution).
        assert ratio == pytest.approx(median / plain_median, rel=0.05, abs=0.011), out
    assert rows["plain cell"][3] == 1.0
    target = next(line for line in out.splitlines() if line.startswith("Target:"))
    got = float(re.search(r"got ([\d.]+)x", target)[1])
    assert got == rows["%%tape (text displays)"][3], out
    if abs(got - 1.5) > 0.006:  # else the printed ratio is too rounded to tell
        assert target.endswith("PASS" if got <= 1.5 else "MISS"), out


@pytest.mark.parametrize(
    "values",
    [
        np.array([3.0, -4.0], np.float32),
        np.random.default_rng(5).standard_normal((7, 9)).astype(np.float32),
        np.array([1.0, np.nan, -np.inf, 2.0]),
        np.array([np.nan, np.nan]),
        np.zeros((0, 3)),
        np.array([1 + 1j, -3j]),
    ],
)
def test_array_stats_against_numpy(values):
    # %grad's statistics of a cotangent: finite arrays take a shortcut, the rest the NaN-aware
    # path; both must give NumPy's own numbers.
    from eagerkernel.magics.formatting import array_stats

    s = array_stats(ek.constant(values))
    a = values.astype(np.complex128 if values.dtype.kind == "c" else np.float64)
    norm = float(np.linalg.norm(a.ravel())) if a.size else 0.0
    assert s["norm"] == pytest.approx(norm, nan_ok=True)
    assert (s["nan"], s["inf"]) == (int(np.isnan(a).sum()), int(np.isinf(a).sum()))
    assert s["finite"] == bool(np.isfinite(a).all())
    real = np.abs(a) if a.dtype.kind == "c" else a
    if not a.size:
        assert s["min"] is None and s["max"] is None
    elif np.isnan(real).all():
        assert np.isnan(s["min"]) and np.isnan(s["max"])
    else:
        assert (s["min"], s["max"]) == (np.nanmin(real), np.nanmax(real))
