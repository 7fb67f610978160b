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
