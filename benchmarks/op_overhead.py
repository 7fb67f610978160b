"""Per-op overhead of eagerkernel beside NumPy, PyTorch and TensorFlow, in one run.

Two chains of multiply/add ops on 10-element float32 tensors (2000 ops each by default, one
multiply and one add per step), where the time is almost all per-op bookkeeping, not
arithmetic:

- constants: ``y = y * a + b`` with constant ``a`` and ``b``; with a tape, the chain's start
  ``x`` is watched and the gradient is taken with respect to it;
- RNN: ``y = y * w + w`` with one Variable ``w`` feeding every op, as a recurrent cell's weight
  does; with a tape, the gradient is taken with respect to ``w``, so the backward pass sums one
  cotangent contribution per op (2000 by default) into ``w``.

Two modes:

- no tape: the chain alone (PyTorch under ``torch.no_grad()``);
- tape+backward: the chain recorded on a tape (``ek.GradientTape``, ``requires_grad``,
  ``tf.GradientTape``), summed, and differentiated; the forward and backward time together
  is divided by the number of chain ops.

Each cell is timed over several runs after warm-up (7 by default) and the table gives the best
and the median run, in µs per op, and eagerkernel's time over PyTorch's for each. The cells
take turns run by run, so a change in the machine's load touches every column alike. PyTorch
and TensorFlow are measured only when they import. Targets, on the best and on the median
run of both chains: no tape at most 0.6x PyTorch, tape+backward at most 0.8x; each is printed
as PASS or MISS, and missing one does not change the exit status.

Every framework's result is checked first against the closed form (see `expected`); a wrong
value or gradient makes the script exit with status 1.

Usage::

    python benchmarks/op_overhead.py            # 2000 ops, 7 timed runs per cell
    python benchmarks/op_overhead.py --quick    # 200 ops, 2 timed runs: a smoke run
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import timeit
from collections.abc import Callable

import numpy as np

SIZE = 10
# A close to 1: y stays finite and gradients stay well above zero. y moves from 1 towards
# B / (1 - A) = 2, so a chain that skipped or repeated ops would give another value.
A, B = 0.999, 0.002
# The RNN chain's weight: close to 1 for the same reason, one value per element so that a
# gradient landing on the wrong element is caught.
W0 = np.linspace(0.995, 0.999, SIZE)
CHAINS = {
    "constants": "y = y * a + b (a, b constants; the tape watches the start x)",
    "RNN": "y = y * w + w (w one Variable read by every op; its gradient sums a cotangent per op)",
}
MODES = ("no tape", "tape+backward")
MODE_TEXT = {
    "no tape": "the chain alone (PyTorch under torch.no_grad())",
    "tape+backward": "the chain on a tape, its sum and the gradient; time over the chain's ops",
}
COLUMNS = ("NumPy", "eagerkernel", "PyTorch", "TensorFlow")
STATS = {"best": min, "median": statistics.median}  # of each cell's timed runs
# eagerkernel's time per op over PyTorch's, per mode, on each chain and each statistic.
TARGETS = {"no tape": 0.6, "tape+backward": 0.8}


def chain(y, a, b, steps: int):
    """``steps`` rounds of ``y = y * a + b``: 2 * steps ops, written once for every framework."""
    for _ in range(steps):
        y = y * a + b
    return y


def expected(chain_name: str, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Closed-form value and gradient of ``sum(y)`` after ``steps`` steps from ``y = 1``, float64.

    constants: ``y_n = A**n + B * (1 + A + ... + A**(n-1))`` and ``d sum(y_n) / dx = A**n``.

    RNN (elementwise, so each element of ``w`` only reaches its own element of ``y``): by
    induction ``y_n = w**n + (w + w**2 + ... + w**n)``, since ``w * y_n + w`` adds one power
    to each term and a new ``w``; hence ``d sum(y_n) / dw = n * w**(n-1) + sum_{k=1..n} k *
    w**(k-1)``.
    """
    n = steps
    if chain_name == "constants":
        value = A**n + B * sum(A**k for k in range(n))
        return np.full(SIZE, value), np.full(SIZE, A**n)
    k = np.arange(1, n + 1, dtype=np.float64)[:, None]
    value = W0**n + (W0**k).sum(axis=0)
    grad = n * W0 ** (n - 1) + (k * W0 ** (k - 1)).sum(axis=0)
    return value, grad


# Each setup function returns {(chain, mode): run}, where run() returns the result as a NumPy
# array (the chain's value without a tape, the gradient with one), or None if the peer is absent.
Runs = dict[tuple[str, str], Callable[[], np.ndarray]]


def numpy_runs(steps: int) -> Runs:
    x = np.ones(SIZE, np.float32)
    a = np.full(SIZE, A, np.float32)
    b = np.full(SIZE, B, np.float32)
    w = W0.astype(np.float32)
    return {  # NumPy has no autodiff: no tape rows
        ("constants", "no tape"): lambda: chain(x, a, b, steps),
        ("RNN", "no tape"): lambda: chain(x, w, w, steps),
    }


def tape_api_runs(tf, steps: int) -> Runs:
    """The cells of a framework with TensorFlow's eager API: eagerkernel (imported as ``tf``
    after changing the import, as its users do) or TensorFlow itself; the same code for both."""
    x = tf.constant(np.ones(SIZE, np.float32))
    a = tf.constant(np.full(SIZE, A, np.float32))
    b = tf.constant(np.full(SIZE, B, np.float32))
    w = tf.Variable(W0.astype(np.float32), name="w")

    def taped_constants():
        with tf.GradientTape() as tape:
            tape.watch(x)
            # The sum is inside the `with`: a tape only differentiates what it recorded.
            loss = tf.reduce_sum(chain(x, a, b, steps))
        return tape.gradient(loss, x).numpy()

    def taped_rnn():
        with tf.GradientTape() as tape:  # w is trainable: watched as it is read
            loss = tf.reduce_sum(chain(x, w, w, steps))
        return tape.gradient(loss, w).numpy()

    return {
        ("constants", "no tape"): lambda: chain(x, a, b, steps).numpy(),
        ("constants", "tape+backward"): taped_constants,
        ("RNN", "no tape"): lambda: chain(x, w, w, steps).numpy(),
        ("RNN", "tape+backward"): taped_rnn,
    }


def eagerkernel_runs(steps: int) -> Runs:
    import eagerkernel as ek

    return tape_api_runs(ek, steps)


def torch_runs(steps: int) -> Runs | None:
    try:
        import torch
    except ImportError:
        return None
    x = torch.ones(SIZE, dtype=torch.float32, requires_grad=True)
    x_const = torch.ones(SIZE, dtype=torch.float32)
    a = torch.full((SIZE,), A, dtype=torch.float32)
    b = torch.full((SIZE,), B, dtype=torch.float32)
    w = torch.tensor(W0, dtype=torch.float32, requires_grad=True)  # a leaf

    def untaped(y0, p, q):
        def run():
            with torch.no_grad():
                return chain(y0, p, q, steps).numpy()

        return run

    def taped(y0, p, q, source):
        def run():
            loss = chain(y0, p, q, steps).sum()
            (grad,) = torch.autograd.grad(loss, source)
            return grad.numpy()

        return run

    return {
        ("constants", "no tape"): untaped(x, a, b),
        ("constants", "tape+backward"): taped(x, a, b, x),
        ("RNN", "no tape"): untaped(x_const, w, w),
        ("RNN", "tape+backward"): taped(x_const, w, w, w),
    }


def tensorflow_runs(steps: int) -> Runs | None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow as tf
    except ImportError:
        return None
    return tape_api_runs(tf, steps)


def check(name: str, chain_name: str, mode: str, result, steps: int) -> str | None:
    """An error message if ``result`` is not the closed-form answer, else None."""
    value, grad = expected(chain_name, steps)
    want = value if mode == "no tape" else grad
    where = f"{name} ({chain_name}, {mode})"
    if result is None:
        return f"{where}: got None"
    got = np.asarray(result, dtype=np.float64)
    # float32 rounding grows with the chain: about 2e-5 relative after 1000 steps.
    rtol = 1e-4 * max(1.0, steps / 1000)
    if got.shape != want.shape or not np.allclose(got, want, rtol=rtol, atol=0.0):
        return f"{where}: expected {np.round(want[:3], 6)}..., got {got.ravel()[:3]}..."
    return None


def run_times(cells: dict, repeats: int, warmup: int) -> dict[object, list[float]]:
    """Wall time of each run of each cell over ``repeats`` rounds, in seconds.

    The rounds go through the cells in turn, so that a change in the machine's load touches
    every column alike. Each call is timed by timeit (perf_counter, GC off).
    """
    for run in cells.values():
        for _ in range(warmup):
            run()
    times: dict[object, list[float]] = {key: [] for key in cells}
    for _ in range(repeats):
        for key, run in cells.items():
            times[key].append(timeit.timeit(run, number=1))
    return times


def fmt_us(seconds_per_op: float | None) -> str:
    return "-" if seconds_per_op is None else f"{seconds_per_op * 1e6:.2f}"


def verdict(ratio: float | None, limit: float) -> str:
    if ratio is None:
        return "n/a (no PyTorch)"
    return f"<= {limit:.1f}x {'PASS' if ratio <= limit else 'MISS'}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 ops, 2 timed runs (smoke run)")
    parser.add_argument("--ops", type=int, help="ops in each chain (even; default 2000)")
    parser.add_argument("--repeats", type=int, help="timed runs per cell (default 7)")
    args = parser.parse_args(argv)
    ops = args.ops or (200 if args.quick else 2000)
    repeats = args.repeats or (2 if args.quick else 7)
    warmup = 1 if args.quick else 2
    steps = max(1, ops // 2)
    ops = 2 * steps

    setups = {
        "NumPy": numpy_runs,
        "eagerkernel": eagerkernel_runs,
        "PyTorch": torch_runs,
        "TensorFlow": tensorflow_runs,
    }
    versions = {"Python": platform.python_version(), "NumPy": np.__version__}
    cells: dict[tuple[str, str, str], Callable[[], np.ndarray]] = {}
    errors: list[str] = []
    for name, setup in setups.items():
        runs = setup(steps)
        if runs is None:
            versions[name] = "not installed"
            continue
        module = {"PyTorch": "torch", "TensorFlow": "tensorflow"}.get(name, name.lower())
        versions[name] = getattr(sys.modules.get(module), "__version__", "?")
        for (chain_name, mode), run in runs.items():
            error = check(name, chain_name, mode, run(), steps)
            if error:
                errors.append(error)
            else:
                cells[name, chain_name, mode] = run
    times = run_times(cells, repeats, warmup)
    per_op = {(*key, stat): fn(t) / ops for key, t in times.items() for stat, fn in STATS.items()}

    print(
        f"Per-op overhead: chains of {ops} ops on float32[{SIZE}], {repeats} timed runs per"
        f" cell after {warmup} warm-up, the cells taking turns; µs per op"
    )
    print("  " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    for chain_name, text in CHAINS.items():
        print(f"  {chain_name + ':':<11}{text}")
    ratio_head = "eagerkernel/PyTorch"
    header = (
        f"{'chain':<11}{'run':<8}"
        + "".join(f"{c:>13}" for c in COLUMNS)
        + f"{ratio_head:>21}  target"
    )
    results = []
    for mode in MODES:
        limit = TARGETS[mode]
        print(f"\n{mode}: {MODE_TEXT[mode]}")
        print(header)
        print("-" * (len(header) + 6))
        for chain_name in CHAINS:
            for stat in STATS:
                row = [per_op.get((c, chain_name, mode, stat)) for c in COLUMNS]
                ours, theirs = row[1], row[2]
                ratio = ours / theirs if ours is not None and theirs is not None else None
                results.append(ratio is not None and ratio <= limit)
                label = chain_name if stat == "best" else ""
                print(
                    f"{label:<11}{stat:<8}"
                    + "".join(f"{fmt_us(t):>13}" for t in row)
                    + f"{'-' if ratio is None else f'{ratio:.2f}x':>21}  {verdict(ratio, limit)}"
                )
    limits = ", ".join(f"{mode} <= {limit:.1f}x" for mode, limit in TARGETS.items())
    print(
        f"\nTargets ({limits}; best and median, both chains): {sum(results)} of {len(results)} PASS"
    )

    if errors:
        print("\nWrong results:", *errors, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
