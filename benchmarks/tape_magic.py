"""Cost of the ``%%tape`` and ``%grad`` magics, in an IPython shell: on a 2000-op cell of small
tensors, and on a training step of the guide's CNN.

The cell is the chain of benchmarks/op_overhead.py, ``y = y * a + b`` repeated on 10-element
float32 tensors (2000 ops by default), so the time is almost all per-op bookkeeping. It runs in
an ``InteractiveShell`` with the eagerkernel extension loaded:

- plain: the cell as is (``run_cell``);
- ProfilingTape, no magic: the cell inside ``with ProfilingTape():`` (the runtime's cost of
  recording and timing every op, and of freeing the tape and its records at the end of the
  cell; ``%%tape`` frees the tape a re-run replaces while the new ops run instead, see
  `ProfilingTape.release_while_recording`);
- %%tape: the same cell under ``%%tape`` (every op recorded and timed), including its displays,
  formatted twice over: as a terminal does (text only) and as a notebook does (text, HTML and
  the graph PNG, drawn each run);
- %grad: ``%grad y wrt x`` on that tape (the replay of 2000 VJP steps and its report), with
  the same two display settings.

Then a training step of the guide's Fashion-MNIST CNN (benchmarks/guide_cnn.py; forward under
a GradientTape, the loss, ``tape.gradient``, one Adam update; batch 32, random images), as a
plain cell, under ``%%tape`` in notebook mode (tables and the Graphviz SVG graph, whose layout
is cached by structure after the first run), and under ``%%tape --time replay`` (every op
re-run 1 + 3 times), timed once per run.

Every row is timed over several repeats after warm-up (the rows take turns, so a change in the
machine's load touches all alike) and shows the median and the best, with the ratio of the
medians to the plain cell. Targets: on the 2000-op cell, ``%%tape`` (text displays) <= 1.5x
and ``%%tape`` (notebook) <= 3x the plain run; on the CNN step, ``%%tape`` (notebook) <= 1.3x
the plain step and ``--time replay`` under 2 s. The result of the cell and the gradient are
checked against the closed form; a wrong result makes the script exit with status 1. Missing
a target does not.

Usage::

    python benchmarks/tape_magic.py            # 2000 ops, 9 repeats
    python benchmarks/tape_magic.py --quick    # 200 ops, 2 repeats, batch 4: a smoke run
"""

from __future__ import annotations

import argparse
import contextlib
import io
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

SIZE = 10
A, B = 0.999, 0.001
TARGET = 1.5  # %%tape (text displays) / plain
TARGET_NOTEBOOK = 3.0  # %%tape (notebook) / plain, 2000-op cell
TARGET_CNN = 1.3  # %%tape (notebook) / plain, CNN training step
TARGET_REPLAY = 2.0  # seconds, %%tape --time replay on the CNN step
TEXT = ["text/plain"]
NOTEBOOK = ["text/plain", "text/html", "image/png"]
CNN_SETUP = """
import numpy as np
from guide_cnn import eagerkernel_cnn
_rng = np.random.default_rng(0)
cnn = eagerkernel_cnn(ek)
opt = ek.keras.optimizers.Adam()
loss_fn = ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
images = ek.constant(_rng.random((BATCH, 28, 28, 1), dtype=np.float32))
labels = ek.constant(_rng.integers(0, 10, BATCH))
"""
CNN_STEP = """with ek.GradientTape() as g:
    logits = cnn(images, training=True)
    loss = loss_fn(labels, logits)
grads = g.gradient(loss, cnn.trainable_variables)
opt.apply_gradients(zip(grads, cnn.trainable_variables))
"""
CELL = "y = x\nfor _ in range(STEPS):\n    y = y * a + b\n"


def shell():
    from IPython.core.interactiveshell import InteractiveShell

    import eagerkernel as ek
    from eagerkernel.runtime.core.profiling_tape import ProfilingTape

    ip = InteractiveShell.instance()
    ip.extension_manager.load_extension("eagerkernel")
    ip.user_ns.update(
        ek=ek,
        _ProfilingTape=ProfilingTape,
        x=ek.constant(np.ones(SIZE, np.float32)),
        a=ek.constant(np.full(SIZE, A, np.float32)),
        b=ek.constant(np.full(SIZE, B, np.float32)),
    )
    return ip


def runner(ip, code: str, active: list[str]):
    """A function running ``code`` as a cell with the display formatter limited to
    ``active`` MIME types; displays go to a discarded buffer."""

    def run():
        ip.display_formatter.active_types = active
        with contextlib.redirect_stdout(io.StringIO()):
            result = ip.run_cell(code, store_history=False)
        if not result.success:
            raise RuntimeError(f"cell failed: {result.error_in_exec or result.error_before_exec}")

    return run


def time_rows(rows: dict, repeats: int, warmup: int) -> dict[str, list[float]]:
    for run in rows.values():
        for _ in range(warmup):
            run()
    times: dict[str, list[float]] = {k: [] for k in rows}
    for _ in range(repeats):
        for key, run in rows.items():
            t0 = time.perf_counter()
            run()
            times[key].append(time.perf_counter() - t0)
    return times


def check(ip, steps: int) -> list[str]:
    value = A**steps + B * sum(A**k for k in range(steps))
    errors = []
    y = ip.user_ns["y"].numpy()
    if not np.allclose(y, value, rtol=1e-3):
        errors.append(f"cell value: expected {value:.6g}, got {y[:3]}")
    ip.display_formatter.active_types = TEXT
    with contextlib.redirect_stdout(io.StringIO()):
        ip.run_cell("%%tape\n" + CELL.replace("STEPS", str(steps)), store_history=False)
        g = ip.run_cell("%grad y wrt x", store_history=False).result
    if g is None or not np.allclose(g[0].numpy(), A**steps, rtol=1e-3):
        errors.append(f"%grad: expected {A**steps:.6g}, got {g}")
    return errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 ops, 2 repeats (smoke run)")
    parser.add_argument("--ops", type=int, help="ops in the cell (even; default 2000)")
    parser.add_argument("--repeats", type=int, help="timed runs per row (default 9)")
    args = parser.parse_args(argv)
    ops = args.ops or (200 if args.quick else 2000)
    repeats = args.repeats or (2 if args.quick else 9)
    warmup = 1 if args.quick else 2
    steps = max(1, ops // 2)
    ops = 2 * steps

    import matplotlib

    ip = shell()
    cell = CELL.replace("STEPS", str(steps))
    indented = "".join("    " + line + "\n" for line in cell.splitlines())
    rows = {
        "plain cell": runner(ip, cell, TEXT),
        "ProfilingTape, no magic": runner(ip, "with _ProfilingTape():\n" + indented, TEXT),
        "%%tape (text displays)": runner(ip, "%%tape\n" + cell, TEXT),
        "%%tape (notebook: +HTML, SVG)": runner(ip, "%%tape\n" + cell, NOTEBOOK),
    }
    grad_rows = {
        "%grad (text displays)": runner(ip, "%grad y wrt x", TEXT),
        "%grad (notebook: +HTML, PNG)": runner(ip, "%grad y wrt x", NOTEBOOK),
    }
    times = time_rows(rows, repeats, warmup)
    runner(ip, "%%tape\n" + cell, TEXT)()  # a tape for %grad
    times.update(time_rows(grad_rows, repeats, warmup))
    errors = check(ip, steps)

    # The guide CNN's training step.
    batch = 4 if args.quick else 32
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    ip.run_cell(CNN_SETUP.replace("BATCH", str(batch)), store_history=False)
    cnn_rows = {
        "CNN step: plain cell": runner(ip, CNN_STEP, TEXT),
        "CNN step: %%tape (notebook)": runner(ip, "%%tape\n" + CNN_STEP, NOTEBOOK),
    }
    cnn_times = time_rows(cnn_rows, max(2, repeats // 2), 1)
    replay = runner(ip, "%%tape --time replay\n" + CNN_STEP, NOTEBOOK)
    t0 = time.perf_counter()
    replay()
    replay_seconds = time.perf_counter() - t0
    cnn_ops = len(ip.user_ns["_tape"].records)

    print(
        f"%%tape and %grad on a cell of {ops} ops (y = y * a + b) on float32[{SIZE}], "
        f"in an IPython InteractiveShell; {repeats} runs after {warmup} warm-up"
    )
    print(
        f"  Python {platform.python_version()}, NumPy {np.__version__}, "
        f"matplotlib {matplotlib.__version__}"
    )
    print()
    base = statistics.median(times["plain cell"])
    header = f"{'run':<32}{'median ms':>11}{'best ms':>10}{'µs/op':>8}{'/ plain':>9}"
    print(header)
    print("-" * len(header))
    for key, ts in times.items():
        med = statistics.median(ts)
        print(
            f"{key:<32}{med * 1e3:>11.2f}{min(ts) * 1e3:>10.2f}{med / ops * 1e6:>8.2f}"
            f"{med / base:>8.2f}x"
        )
    print()
    print()
    print(
        f"A training step of the guide CNN (batch {batch}, {cnn_ops} ops recorded: forward, "
        "loss, tape.gradient, Adam)"
    )
    cnn_base = statistics.median(cnn_times["CNN step: plain cell"])
    for key, ts in cnn_times.items():
        med = statistics.median(ts)
        print(
            f"{key:<32}{med * 1e3:>11.2f}{min(ts) * 1e3:>10.2f}{med / cnn_ops * 1e6:>9.0f}"
            f"{med / cnn_base:>8.2f}x"
        )
    print(f"CNN step: %%tape --time replay: {replay_seconds:.2f} s (default repeat and warm-up)")
    print()
    checks = [
        (
            "%%tape (text displays) / plain",
            statistics.median(times["%%tape (text displays)"]) / base,
            TARGET,
        ),
        (
            "%%tape (notebook) / plain",
            statistics.median(times["%%tape (notebook: +HTML, SVG)"]) / base,
            TARGET_NOTEBOOK,
        ),
        (
            "CNN step %%tape (notebook) / plain",
            statistics.median(cnn_times["CNN step: %%tape (notebook)"]) / cnn_base,
            TARGET_CNN,
        ),
    ]
    for what, ratio, target in checks:
        verdict = "PASS" if ratio <= target else "MISS"
        print(f"Target: {what} <= {target:.1f}x  got {ratio:.2f}x  {verdict}")
    verdict = "PASS" if replay_seconds <= TARGET_REPLAY else "MISS"
    print(
        f"Target: CNN step --time replay <= {TARGET_REPLAY:.0f} s  "
        f"got {replay_seconds:.2f} s  {verdict}"
    )
    if errors:
        print("\nWrong results:", *errors, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
