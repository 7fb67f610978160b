"""Graph functions (`ek.function`) beside eager eagerkernel, NumPy by hand, PyTorch eager and
TensorFlow's `tf.function`, in one run.

Two workloads:

- **MLP step**: one training step of the 784-256-256-10 ReLU MLP, batch 64, Adam (forward,
  tape, backward, update), as in `training_step.py`. Columns: the hand-written NumPy step
  (the floor), eagerkernel eager, eagerkernel under ``ek.function``, PyTorch eager, and
  TensorFlow eager and under ``tf.function`` when TensorFlow imports. Targets:
  ``ek.function`` <= 1.15x NumPy and <= 0.6x PyTorch.
- **chain**: a 2000-op small-tensor chain ``y = y * w + w`` (10 elements, one Variable ``w``)
  and its gradient with respect to ``w``, forward and backward in one call. Columns:
  eagerkernel eager, ``ek.function`` (the tape inside the function), PyTorch eager with
  autograd, TensorFlow eager and ``tf.function``. Target: ``ek.function`` <= 0.25x PyTorch.

Every framework's chain gradient is checked against the closed form first. The frameworks take
turns in rounds (a block of calls each), so a change in the machine's load touches all alike;
times are medians in ms, and ratios are what the targets are about (the machines are shared).

Usage::

    python benchmarks/function.py           # full run
    python benchmarks/function.py --quick   # a smoke run
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np
from training_step import _data, numpy_step, torch_step  # a sibling module

SIZE = 10
W0 = np.linspace(0.995, 0.999, SIZE).astype(np.float32)


def _ek_mlp(traced: bool):
    import eagerkernel as ek

    L = ek.keras.layers
    ek.keras.utils.set_random_seed(0)
    net = ek.keras.Sequential(
        [
            L.Dense(256, activation="relu", input_shape=(784,)),
            L.Dense(256, activation="relu"),
            L.Dense(10),
        ]
    )
    opt = ek.keras.optimizers.Adam(1e-3)
    x, y = _data("MLP", 64)
    x, y = ek.constant(x), ek.constant(y.astype(np.int32))

    def step(x, y):
        with ek.GradientTape() as tape:
            logits = net(x, training=True)
            loss = ek.reduce_mean(
                ek.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
            )
        variables = net.trainable_variables
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

    if traced:
        step = ek.function(step)
    return lambda: float(step(x, y))


def _tf_mlp(traced: bool):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow as tf
    except ImportError:
        return None
    L = tf.keras.layers
    tf.random.set_seed(0)
    net = tf.keras.Sequential(
        [L.Dense(256, activation="relu"), L.Dense(256, activation="relu"), L.Dense(10)]
    )
    opt = tf.keras.optimizers.Adam(1e-3)
    x, y = _data("MLP", 64)
    x, y = tf.constant(x), tf.constant(y)

    def step(x, y):
        with tf.GradientTape() as tape:
            logits = net(x, training=True)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
            )
        variables = net.trainable_variables
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

    if traced:
        step = tf.function(step)
    return lambda: float(step(x, y))


# -- the chain -------------------------------------------------------------------------------


def expected_gradient(n_steps: int) -> np.ndarray:
    """d/dw of sum(y_n), y_{k+1} = y_k * w + w, y_0 = 1: by forward-mode recursion."""
    w = W0.astype(np.float64)
    y, dy = np.ones(SIZE), np.zeros(SIZE)
    for _ in range(n_steps):
        y, dy = y * w + w, dy * w + y + 1.0
    return dy


def _ek_chain(n_steps: int, traced: bool):
    import eagerkernel as ek

    w = ek.Variable(W0)
    x = ek.constant(np.ones(SIZE, np.float32))

    def chain(x):
        with ek.GradientTape() as tape:
            y = x
            for _ in range(n_steps):
                y = y * w + w
            s = ek.reduce_sum(y)
        return tape.gradient(s, w)

    if traced:
        chain = ek.function(chain)
    return lambda: chain(x).numpy()


def _torch_chain(n_steps: int):
    try:
        import torch
    except ImportError:
        return None
    w = torch.tensor(W0, requires_grad=True)
    x = torch.ones(SIZE)

    def chain():
        y = x
        for _ in range(n_steps):
            y = y * w + w
        y.sum().backward()
        g = w.grad.numpy().copy()
        w.grad = None
        return g

    return chain


def _tf_chain(n_steps: int, traced: bool):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow as tf
    except ImportError:
        return None
    w = tf.Variable(W0)
    x = tf.ones(SIZE)

    def chain(x):
        with tf.GradientTape() as tape:
            y = x
            for _ in range(n_steps):
                y = y * w + w
            s = tf.reduce_sum(y)
        return tape.gradient(s, w)

    if traced:
        chain = tf.function(chain)
    return lambda: chain(x).numpy()


def _time(calls: dict, rounds: int, block: int) -> dict:
    """Median time per call in ms; frameworks take turns, ``block`` calls each round (the
    first of each block dropped: another framework's threads may still spin)."""
    for call in calls.values():
        for _ in range(2):
            call()  # warm-up: traces, builds weights and slots
    times: dict = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            for i in range(block + 1):
                t0 = time.perf_counter()
                call()
                if i:
                    times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(t) * 1e3 for name, t in times.items()}


def _table(title: str, times: dict, ratios: list) -> None:
    print(f"\n{title}")
    for name, ms in times.items():
        print(f"  {name:<24} {ms:10.3f} ms")
    for label, num, den, target in ratios:
        if num in times and den in times:
            r = times[num] / times[den]
            status = "PASS" if r <= target else "MISS"
            print(f"  {label:<40} {r:6.2f}x  (target <= {target}x: {status})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run")
    args = parser.parse_args()
    rounds, block = (2, 3) if args.quick else (7, 10)
    n_steps = 100 if args.quick else 1000  # two ops per step: 2000 ops

    candidates = {
        "NumPy (by hand)": lambda: numpy_step("MLP", 64),
        "eagerkernel eager": lambda: _ek_mlp(False),
        "eagerkernel ek.function": lambda: _ek_mlp(True),
        "PyTorch eager": lambda: torch_step("MLP", 64),
        "TensorFlow eager": lambda: _tf_mlp(False),
        "TensorFlow tf.function": lambda: _tf_mlp(True),
    }
    calls = {k: c for k, make in candidates.items() if (c := make()) is not None}
    _table(
        "MLP 784-256-256-10 training step, batch 64, Adam (median ms per step)",
        _time(calls, rounds, block),
        [
            ("ek.function / NumPy", "eagerkernel ek.function", "NumPy (by hand)", 1.15),
            ("ek.function / PyTorch eager", "eagerkernel ek.function", "PyTorch eager", 0.6),
        ],
    )

    candidates = {
        "eagerkernel eager": lambda: _ek_chain(n_steps, False),
        "eagerkernel ek.function": lambda: _ek_chain(n_steps, True),
        "PyTorch eager": lambda: _torch_chain(n_steps),
        "TensorFlow eager": lambda: _tf_chain(n_steps, False),
        "TensorFlow tf.function": lambda: _tf_chain(n_steps, True),
    }
    calls = {k: c for k, make in candidates.items() if (c := make()) is not None}
    expected = expected_gradient(n_steps)
    for name, call in calls.items():
        got = call()
        if not np.allclose(got, expected, rtol=1e-3):
            print(f"{name}: wrong gradient {got} (expected {expected})", file=sys.stderr)
            return 1
    _table(
        f"{2 * n_steps}-op chain y = y * w + w, forward and backward (median ms per call)",
        _time(calls, rounds, max(1, block // 2)),
        [("ek.function / PyTorch eager", "eagerkernel ek.function", "PyTorch eager", 0.25)],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
