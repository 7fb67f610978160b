"""Elementwise activations and their gradients on a 10000x784 float32 array, side by side.

Rows: sigmoid, tanh, exp, softplus, relu and gelu (exact, erf-based), each forward and its
gradient. The gradient is timed as the backward pass of the one op: a persistent
`GradientTape` (eagerkernel) or a retained graph (PyTorch) records the op once, and
``gradient(y, x, output_gradients=g)`` / ``torch.autograd.grad(y, x, g)`` is timed.

Columns:

- eagerkernel: the public op (``ek.sigmoid(x)``, ...) or its backward pass;
- NumPy floor: the one NumPy call a single pass of that op needs (``np.exp(x)`` for sigmoid,
  exp and softplus, ``np.tanh``, ``np.maximum(x, 0)``, SciPy's ``erf`` for gelu, and
  ``np.multiply(g, y)`` for every gradient): what one pass over memory costs on this machine;
- numexpr (when installed): the same formula as one ``numexpr.evaluate`` call, multi-threaded
  (numexpr has no erf: no gelu cell), the alternative to the C kernels that was measured;
- PyTorch (when installed), on as many threads as this process may use;
- eagerkernel over PyTorch (target <= 1.2x each; PASS or MISS).

A last line gives the machine's copy bandwidth, measured in the same run: a STREAM-style
``np.copyto`` of the array (read 31 MB, write 31 MB). The cells take turns in each round (the
columns' order rotating from round to round), so the machine's changing load touches every
column alike. Each turn is a burst of ``--burst`` calls in a row (4 by default) whose first
call is not counted, and before each turn the script sleeps ``--settle`` ms (20 by default):
PyTorch's OpenMP workers spin for about 10 ms of CPU after each of its calls, so the calls
after a switch of framework could share the two cores with them. Measured (eagerkernel's
sigmoid, 2.2 ms alone on two threads, timed right after one ``torch.sigmoid``): 3.9 ms in the
first 5 ms, 2.9 ms in the next 5, 2.2 ms from 10 ms on; its kernel threads found the second
core taken and did the work of one. Dropping the first call alone left the second and third
of a burst in that window. Each cell is the median (and the best) of the counted calls, in
ms: every framework's steady state.

Usage::

    python benchmarks/elementwise.py            # 15 rounds
    python benchmarks/elementwise.py --quick    # a 100x784 array, 2 rounds: a smoke run
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time

import numpy as np

TARGET = 1.2
OPS = ("sigmoid", "tanh", "exp", "softplus", "relu", "gelu")


def _erf():
    try:
        from scipy.special import erf
    except ImportError:
        return None
    return erf


def numpy_floor(op: str, x, g, y):
    if op.endswith("grad"):
        return lambda: np.multiply(g, y)
    name = op
    if name in ("sigmoid", "softplus", "exp"):
        return lambda: np.exp(x)
    if name == "tanh":
        return lambda: np.tanh(x)
    if name == "relu":
        return lambda: np.maximum(x, 0)
    erf = _erf()
    return None if erf is None else (lambda: erf(x))


NUMEXPR = {
    "sigmoid": "where(x >= 0, 1 / (1 + exp(-abs(x))), exp(-abs(x)) / (1 + exp(-abs(x))))",
    "tanh": "tanh(x)",
    "exp": "exp(x)",
    "softplus": "log1p(exp(-abs(x))) + where(x > 0, x, 0)",
    "relu": "where(x > 0, x, 0)",
    "sigmoid grad": "g * y * (1 - y)",
    "tanh grad": "g * (1 - y * y)",
    "exp grad": "g * y",
    "softplus grad": "g / (1 + exp(-x))",
    "relu grad": "where(x > 0, g, 0)",
}


def numexpr_cell(op: str, x, g, y):
    try:
        import numexpr
    except ImportError:
        return None
    expr = NUMEXPR.get(op)
    if expr is None:
        return None
    numexpr.set_num_threads(len(os.sched_getaffinity(0)))
    env = {"x": x, "g": g, "y": y}
    return lambda: numexpr.evaluate(expr, local_dict=env)


def eagerkernel_cell(op: str, x, g):
    import eagerkernel as ek

    f = {
        "sigmoid": ek.sigmoid,
        "tanh": ek.tanh,
        "exp": ek.exp,
        "softplus": ek.nn.softplus,
        "relu": ek.nn.relu,
        "gelu": ek.nn.gelu,
    }[op.split()[0]]
    tx = ek.constant(x)
    if not op.endswith("grad"):
        return lambda: f(tx)
    tg = ek.constant(g)
    with ek.GradientTape(persistent=True) as tape:
        tape.watch(tx)
        ty = f(tx)
    return lambda: tape.gradient(ty, tx, output_gradients=tg)


def torch_cell(op: str, x, g):
    try:
        import torch
    except ImportError:
        return None
    f = {
        "sigmoid": torch.sigmoid,
        "tanh": torch.tanh,
        "exp": torch.exp,
        "softplus": torch.nn.functional.softplus,
        "relu": torch.relu,
        "gelu": torch.nn.functional.gelu,
    }[op.split()[0]]
    tx = torch.from_numpy(x)
    if not op.endswith("grad"):
        return lambda: f(tx)
    tx = tx.clone().requires_grad_(True)
    ty = f(tx)
    tg = torch.from_numpy(g)
    return lambda: torch.autograd.grad(ty, tx, tg, retain_graph=True)


def _forward(op: str, x):
    """The op's output in NumPy, for the gradient rows' ``y`` (the floor and numexpr use it)."""
    base = op.split()[0]
    with np.errstate(all="ignore"):
        if base == "sigmoid":
            return 1 / (1 + np.exp(-x))
        if base == "tanh":
            return np.tanh(x)
        if base == "exp":
            return np.exp(x)
        if base == "softplus":
            return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)
        if base == "relu":
            return np.maximum(x, 0)
        erf = _erf()
        return x if erf is None else 0.5 * x * (1 + erf(x / math.sqrt(2)))


COLUMNS = ("eagerkernel", "NumPy floor", "numexpr", "PyTorch")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 100x784 array, 2 rounds")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--burst", type=int, default=4, help="calls per turn (first not counted)")
    parser.add_argument(
        "--settle", type=float, default=20.0, help="ms of sleep before each turn (not timed)"
    )
    parser.add_argument(
        "--ops", default=",".join(OPS), help=f"comma-separated subset of {','.join(OPS)}"
    )
    args = parser.parse_args()
    ops = [op.strip() for op in args.ops.split(",") if op.strip()]
    unknown = sorted(set(ops) - set(OPS))
    if unknown:
        parser.error(f"--ops: unknown op(s) {', '.join(unknown)}; choose from {', '.join(OPS)}")
    rows = 100 if args.quick else 10000
    rounds = 2 if args.quick else args.rounds
    try:
        import torch

        torch.set_num_threads(len(os.sched_getaffinity(0)))
    except ImportError:
        pass
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((rows, 784)) * 3).astype(np.float32)
    g = rng.standard_normal((rows, 784)).astype(np.float32)
    names = [n for op in ops for n in (op, op + " grad")]
    cells: dict = {}
    for name in names:
        y = _forward(name, x).astype(np.float32)
        cells[name] = {
            "eagerkernel": eagerkernel_cell(name, x, g),
            "NumPy floor": numpy_floor(name, x, g, y),
            "numexpr": numexpr_cell(name, x, g, y),
            "PyTorch": torch_cell(name, x, g),
        }
    out = np.empty_like(x)
    copy = lambda: np.copyto(out, x)
    times: dict = {(n, c): [] for n in names for c in COLUMNS}
    copies: list = []
    for r in range(rounds + 1):  # the first round warms up and is dropped
        # the columns' order rotates from round to round, so that no framework always runs
        # right after the same one (PyTorch's OpenMP workers spin on after its call)
        order = COLUMNS[r % len(COLUMNS) :] + COLUMNS[: r % len(COLUMNS)]
        for name in names:
            for col in order:
                f = cells[name][col]
                if f is None:
                    continue
                time.sleep(args.settle / 1e3)  # the previous turn's spinning threads go idle
                for call in range(max(2, args.burst)):
                    t0 = time.perf_counter()
                    f()
                    if call:
                        times[name, col].append(time.perf_counter() - t0)
            time.sleep(args.settle / 1e3)
            t0 = time.perf_counter()
            copy()
            copies.append(time.perf_counter() - t0)
    per_round = len(names)

    def cell(name, col):
        t = times[name, col][1:]
        if not t:
            return None
        return statistics.median(t) * 1e3, min(t) * 1e3

    print(
        f"Elementwise ops and their gradients on a {rows}x784 float32 array: median (best) ms "
        f"of {rounds} rounds, cells taking turns"
    )
    header = f"{'op':<15}" + "".join(f"{c:>18}" for c in COLUMNS) + "   ek / PyTorch"
    print(header)
    print("-" * len(header))
    misses = 0
    for name in names:
        line = f"{name:<15}"
        for col in COLUMNS:
            c = cell(name, col)
            line += f"{'-':>18}" if c is None else f"{c[0]:>10.2f} ({c[1]:>5.2f})"
        ek_cell, torch_cell_ = cell(name, "eagerkernel"), cell(name, "PyTorch")
        if torch_cell_:
            ratio = ek_cell[0] / torch_cell_[0]
            verdict = "PASS" if ratio <= TARGET else "MISS"
            misses += verdict == "MISS"
            line += f"   {ratio:5.2f}x {verdict}"
        print(line)
    copy_t = sorted(copies[per_round:])
    median = statistics.median(copy_t)
    print(
        f"copy bandwidth (np.copyto, read + write {2 * x.nbytes / 1e6:.0f} MB): median "
        f"{median * 1e3:.2f} ms = {2 * x.nbytes / median / 1e9:.1f} GB/s, best "
        f"{copy_t[0] * 1e3:.2f} ms = {2 * x.nbytes / copy_t[0] / 1e9:.1f} GB/s"
    )
    print(f"target: eagerkernel <= {TARGET}x PyTorch per op; missed by {misses} of {len(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
