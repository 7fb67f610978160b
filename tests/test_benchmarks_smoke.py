"""The benchmark script runs end to end and its frameworks agree (no timing is asserted)."""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "op_overhead.py"


def test_op_overhead_quick_run_prints_the_table():
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--ops", "20", "--repeats", "1"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "chain of 20 ops" in out
    assert "eagerkernel / PyTorch" in out
    for mode in ("no tape", "tape+backward"):
        rows = [line for line in out.splitlines() if line.startswith(mode)]
        assert rows, out
        # Columns are 13 wide after a 15-wide mode; eagerkernel's (the second) is always measured.
        assert rows[0][28:41].strip() not in ("", "-"), out


def _run(name: str, *args: str) -> str:
    script = SCRIPT.parent / name
    proc = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_input_pipeline_quick_run():
    out = _run("input_pipeline.py", "--quick", "--examples", "1000", "--repeats", "1")
    row = next(line for line in out.splitlines() if line.startswith("eagerkernel"))
    assert any(ch.isdigit() for ch in row), out


def test_training_step_quick_run():
    out = _run("training_step.py", "--quick")
    for model in ("MLP", "CNN"):
        row = next(line for line in out.splitlines() if line.startswith(model))
        cells = row.split()
        assert cells[3] != "-", out  # the eagerkernel column was measured
