"""The benchmark scripts run end to end, check their frameworks and print their tables.

No timing is asserted: the numbers must be there and consistent with each other (ratios,
PASS / MISS against the targets), not fast.
"""

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
HAS_TORCH = importlib.util.find_spec("torch") is not None


def _run(name: str, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(BENCHMARKS / name), *args], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def op_overhead():
    """benchmarks/op_overhead.py as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location("op_overhead", BENCHMARKS / "op_overhead.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _number(cell: str) -> float | None:
    return None if cell == "-" else float(cell.rstrip("x"))


def _op_overhead_tables(out: str) -> dict:
    """{(mode, chain, stat): (NumPy, eagerkernel, PyTorch, TensorFlow, ratio, verdict)}."""
    rows, mode, chain = {}, None, None
    for line in out.splitlines():
        head = line.split(":")[0]
        if head in ("no tape", "tape+backward"):
            mode = head
            continue
        cells = line.split()
        if mode is None or not cells or cells[0] in ("chain",) or set(line) == {"-"}:
            continue
        if cells[0] in ("constants", "RNN"):
            chain, cells = cells[0], cells[1:]
        if cells[0] in ("best", "median"):
            numbers = [_number(c) for c in cells[1:6]]
            rows[mode, chain, cells[0]] = (*numbers, cells[6:])
    return rows


def test_op_overhead_quick_run_prints_both_chains_in_both_modes(op_overhead):
    out = _run("op_overhead.py", "--quick", "--ops", "20", "--repeats", "3")
    assert "chains of 20 ops" in out and "3 timed runs per cell" in out
    assert "Wrong results" not in out
    rows = _op_overhead_tables(out)
    assert set(rows) == {
        (mode, chain, stat)
        for mode in ("no tape", "tape+backward")
        for chain in ("constants", "RNN")
        for stat in ("best", "median")
    }, out
    for (mode, chain, stat), (numpy_, ours, torch_, _, ratio, verdict) in rows.items():
        where = f"{mode} / {chain} / {stat}:\n{out}"
        assert ours is not None and ours > 0, where
        if stat == "median":  # the best of three runs is no slower than their median
            assert rows[mode, chain, "best"][1] <= ours, where
        # NumPy has no autodiff: no tape row only.
        assert (numpy_ is not None and numpy_ > 0) == (mode == "no tape"), where
        if not HAS_TORCH:
            assert torch_ is None and ratio is None and verdict == ["n/a", "(no", "PyTorch)"]
            continue
        assert torch_ > 0, where
        assert ratio == pytest.approx(ours / torch_, abs=0.011), where
        limit = op_overhead.TARGETS[mode]
        assert verdict[:2] == ["<=", f"{limit:.1f}x"], where
        if abs(ratio - limit) > 0.006:  # else the printed ratio is too rounded to tell
            assert verdict[2] == ("PASS" if ratio <= limit else "MISS"), where
    passed = sum(row[5][-1] == "PASS" for row in rows.values())
    assert f"both chains): {passed} of 8 PASS" in out


def test_op_overhead_closed_forms_match_a_float64_forward_mode_run(op_overhead):
    for steps in (1, 2, 7, 100, 1000):
        # Dual numbers: y and dy/d(parameter) carried through the chain, in float64.
        y, dy = np.ones(op_overhead.SIZE), np.zeros(op_overhead.SIZE)
        w = op_overhead.W0
        for _ in range(steps):
            y, dy = y * w + w, dy * w + y + 1.0
        value, grad = op_overhead.expected("RNN", steps)
        np.testing.assert_allclose(value, y, rtol=1e-12)
        np.testing.assert_allclose(grad, dy, rtol=1e-12)

        y, dy = np.ones(op_overhead.SIZE), np.ones(op_overhead.SIZE)  # d/dx of the start x
        for _ in range(steps):
            y, dy = y * op_overhead.A + op_overhead.B, dy * op_overhead.A
        value, grad = op_overhead.expected("constants", steps)
        np.testing.assert_allclose(value, y, rtol=1e-12)
        np.testing.assert_allclose(grad, dy, rtol=1e-12)


def test_op_overhead_check_rejects_wrong_results(op_overhead):
    steps = 50
    value, grad = op_overhead.expected("RNN", steps)
    check = op_overhead.check
    assert check("X", "RNN", "no tape", value.astype(np.float32), steps) is None
    assert check("X", "RNN", "tape+backward", grad.astype(np.float32), steps) is None
    assert check("X", "RNN", "tape+backward", None, steps) == "X (RNN, tape+backward): got None"
    one_wrong = grad.copy()
    one_wrong[3] *= 1.001
    assert "X (RNN, tape+backward): expected" in check("X", "RNN", "tape+backward", one_wrong, 50)
    # One step more or fewer, the value of the other chain, a missing element: all wrong.
    assert check("X", "RNN", "no tape", op_overhead.expected("RNN", steps + 1)[0], steps)
    assert check("X", "constants", "no tape", op_overhead.expected("constants", 49)[0], steps)
    assert check("X", "constants", "no tape", value, steps)
    assert check("X", "RNN", "no tape", value[:-1], steps)


def test_op_overhead_exits_1_on_a_wrong_gradient(op_overhead, monkeypatch, capsys):
    def runs(steps):
        good = op_overhead.numpy_runs(steps)
        return {**good, ("RNN", "tape+backward"): lambda: op_overhead.expected("RNN", steps)[0]}

    monkeypatch.setattr(op_overhead, "eagerkernel_runs", runs)
    monkeypatch.setattr(op_overhead, "torch_runs", lambda steps: None)
    monkeypatch.setattr(op_overhead, "tensorflow_runs", lambda steps: None)
    assert op_overhead.main(["--ops", "10", "--repeats", "1"]) == 1
    out = capsys.readouterr().out
    assert "Wrong results:\n  eagerkernel (RNN, tape+backward): expected" in out
    rows = _op_overhead_tables(out)
    assert rows["tape+backward", "RNN", "best"][1] is None  # the wrong cell is not timed
    assert rows["no tape", "RNN", "best"][1] > 0


def test_input_pipeline_quick_run():
    out = _run("input_pipeline.py", "--quick", "--examples", "1000", "--repeats", "1")
    assert "one epoch of 1000 examples" in out and "Wrong results" not in out
    row = next(line for line in out.splitlines() if line.startswith("eagerkernel"))
    epoch_ms, mex_per_s = (float(c) for c in row.split()[-4:-2])  # measured, not "-"
    assert epoch_ms > 0 and mex_per_s > 0, out
    verdicts = {line.split()[1]: line.split()[-1] for line in out.splitlines() if "got" in line}
    assert set(verdicts.values()) <= {"PASS", "MISS"}, out
    assert set(verdicts) == ({"PyTorch", "NumPy"} if HAS_TORCH else {"NumPy"}), out


def test_training_step_quick_run():
    out = _run("training_step.py", "--quick")
    for model in ("MLP", "CNN"):
        row = next(line for line in out.splitlines() if line.startswith(model))
        cells = row.split()
        ours = float(cells[3])  # the eagerkernel column was measured
        assert ours > 0, out
        if HAS_TORCH:
            ratio, theirs = float(cells[6].rstrip("x")), float(cells[4])
            # times printed to 0.01 ms, the ratio from the unrounded ones, to 0.01
            low, high = (ours - 0.005) / (theirs + 0.005), (ours + 0.005) / (theirs - 0.005)
            assert low - 0.005 <= ratio <= high + 0.005, out
            assert cells[-1] in ("PASS", "MISS"), out


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
def test_lbfgs_quick_run_agrees_with_pytorch():
    out = _run("lbfgs.py", "--quick")  # exit status 0: the loss trajectories agreed
    row = next(line for line in out.splitlines() if line.split()[:2] == ["1000", "5"])
    cells = row.replace("(", " ").replace(")", " ").split()
    ours, theirs = float(cells[2]), float(cells[4])
    assert ours > 0 and theirs > 0, out
    # the times are printed rounded to whole ms, the ratio from the unrounded times
    low, high = (ours - 0.5) / (theirs + 0.5), (ours + 0.5) / max(theirs - 0.5, 1e-9)
    assert low - 0.005 <= float(cells[6].rstrip("x")) <= high + 0.005, out
    assert cells[-4] in ("PASS", "MISS") and "agree to" in row, out


def test_lbfgs_port_reaches_the_same_losses_in_both_frameworks():
    spec = importlib.util.spec_from_file_location("lbfgs_bench", BENCHMARKS / "lbfgs.py")
    lbfgs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lbfgs)
    images = np.random.default_rng(0).random((50, 784), dtype=np.float32)
    ours = lbfgs.eagerkernel_lbfgs(images, 3, 6, lambda: None)
    assert len(ours) == 6 and ours[-1] < ours[0]  # l-BFGS makes progress
    # the first step is the gradient's direction scaled by 1 / sum|g|: the loss at the
    # second evaluation follows from the gradient alone, in NumPy
    w = lbfgs.ng_init(784, 196).astype(np.float64).reshape(784, 196)
    x = images.astype(np.float64)

    def loss_and_grad(w):
        h = 1 / (1 + np.exp(-x @ w))
        out = 1 / (1 + np.exp(-h @ w.T))
        d = 2 * (out - x) / x.size * out * (1 - out)
        dh = d @ w * h * (1 - h)
        return np.mean((out - x) ** 2), d.T @ h + x.T @ dh

    f0, g0 = loss_and_grad(w)
    f1, _ = loss_and_grad(w - g0 / np.abs(g0).sum())
    np.testing.assert_allclose(ours[:2], [f0, f1], rtol=1e-5)
    if HAS_TORCH:
        theirs = lbfgs.torch_lbfgs(images, 3, 6, lambda: None)
        np.testing.assert_allclose(ours, theirs, rtol=1e-4)


def test_elementwise_quick_run():
    out = _run("elementwise.py", "--quick")
    ops = [
        line.split()[0] for line in out.splitlines() if line.split()[-1:] in (["PASS"], ["MISS"])
    ]
    if HAS_TORCH:
        assert ops == [
            o for op in ("sigmoid", "tanh", "exp", "softplus", "relu", "gelu") for o in (op, op)
        ], out
    assert "copy bandwidth" in out and "GB/s" in out, out


def test_conv_quick_run_times_every_layer_and_checks_against_torch():
    out = _run("conv.py", "--quick")
    rows = [line for line in out.splitlines() if "(4, " in line]
    assert len(rows) == 9, out
    for row in rows:
        cells = row.split(")")[-1].split()
        assert float(cells[0]) > 0, row  # the eagerkernel column was measured
        if HAS_TORCH:
            assert cells[-1].endswith("x"), row
    assert "ERROR" not in out


def test_random_ops_quick_run_checks_the_c_twin_and_times_every_draw():
    out = _run("random_ops.py", "--quick")  # exit status 0: the draws were the reference's
    rows = [line for line in out.splitlines() if line.split(" [")[0] in ("uniform", "normal")]
    rows += [line for line in out.splitlines() if line.startswith("truncated_normal [")]
    assert len(rows) == 6, out
    for row in rows:
        cells = row.split("]")[-1].split()
        assert float(cells[1]) > 0, row  # the eagerkernel column was measured
        assert cells[-2].endswith("x"), row  # eagerkernel / NumPy
