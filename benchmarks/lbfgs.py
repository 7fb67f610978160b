"""The seed article's benchmark: l-BFGS on a sparse-autoencoder-style model, beside PyTorch.

The model is UFLDL's autoencoder as the article wrote it: 784 -> 196 -> 784, sigmoid on both
layers, the decoder's weights the encoder's transposed (tied), mean squared error against the
input. The optimizer is the article's line-by-line port of Torch's ``lbfgs.lua`` (fixed step
after the first, no line search): ``value_and_gradients_function`` gives the loss and the
gradient, dot products are ``reduce_sum(a * b)``, and the two-loop recursion runs over the last
``history`` (s, y) pairs, so one iteration is one function evaluation plus about ``4 * history``
vector ops on the 153,664 weights.

The eagerkernel side is written in TensorFlow 1.x eager style (``tfe.value_and_gradients_function``,
``tfe.Variable``, ``tf.device('')``, ``x += t * d``) with only the import changed; the PyTorch
side runs the same algorithm with ``torch.autograd``. Data: the first ``batch`` images of
Fashion-MNIST's training set, read from Debian's ``dataset-fashion-mnist`` with the project's
IDX reader, scaled to [0, 1]; without the package, seeded uniform noise of that shape (the
table then says so). Both start from the same weights (UFLDL's uniform initialisation).

Settings: (batch 60000, history 5), (60000, 100) and (10000, 100), the article's. In each
setting the frameworks take turns, ``--rounds`` rounds of one l-BFGS run of ``--iters``
iterations each; the first two iterations of each run are left out (the history fills up and
the allocator warms). The table gives, per framework, the median and the best iteration time
in ms, and eagerkernel's median over PyTorch's (target <= 1.0x), and checks that the two loss
trajectories agree to 1e-4 relative over the first 20 evaluations (exit status 1 if not).

Usage::

    python benchmarks/lbfgs.py            # the three settings, 3 rounds of 20 iterations
    python benchmarks/lbfgs.py --quick    # batch 1000, 6 iterations: a smoke run
    python benchmarks/lbfgs.py --function-dot  # dot = tf.function(dot) on the eagerkernel side

``reduce_sum(a * b)`` runs eagerly as a multiply and a sum (the product exists before
reduce_sum is called); inside ``tf.function`` the trace sees the pattern whole and compiles it
to one dot product (``runtime/function/compiler.py``), which ``--function-dot`` measures.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time

import numpy as np

SETTINGS = ((60000, 5), (60000, 100), (10000, 100))
VISIBLE, HIDDEN = 28 * 28, 196
TARGET = 1.0
TRAJECTORY_RTOL = 1e-4
FUNCTION_DOT = [False]  # --function-dot


def load_images(batch: int) -> tuple[np.ndarray, str]:
    """The first ``batch`` Fashion-MNIST training images as float32 ``(batch, 784)`` in [0, 1]."""
    from eagerkernel.runtime.keras.datasets import fashion_mnist

    try:
        (x, _), _ = fashion_mnist.load_data()
        source = "Fashion-MNIST"
    except FileNotFoundError:
        x = np.random.default_rng(0).integers(0, 256, (60000, 28, 28), dtype=np.uint8)
        source = "uniform noise (no dataset-fashion-mnist)"
    return (x[:batch].reshape(batch, VISIBLE) / np.float32(255)).astype(np.float32), source


def ng_init(rows: int, cols: int, seed: int = 1) -> np.ndarray:
    """UFLDL's initialisation: uniform in +-sqrt(6 / (rows + cols + 1)), flattened, float32."""
    r = math.sqrt(6) / math.sqrt(rows + cols + 1)
    rng = np.random.RandomState(seed)
    return (rng.random_sample((rows, cols)) * 2 * r - r).astype(np.float32).ravel()


class Struct:
    """Lua-like struct: attributes default to 0 (the article's ``Struct``)."""

    def __getattr__(self, key):
        return 0


def eagerkernel_lbfgs(images: np.ndarray, history: int, iters: int, timer):
    """The article's eager code, ``import tensorflow as tf`` changed to eagerkernel. Returns the
    losses of every function evaluation, as floats; ``timer()`` is called after each
    iteration."""
    import eagerkernel as tf

    tfe = tf.contrib.eager  # as the article: TF 1.x eager's Variable (`x += t * d`)

    def dot(a, b):
        """Dot product function since TensorFlow doesn't have one."""
        return tf.reduce_sum(a * b)

    if FUNCTION_DOT[0]:  # --function-dot: the one-line change a TF 2 user would make
        dot = tf.function(dot)

    data = tf.constant(images)
    device_ctx = tf.device("")  # the article's CPU device: no constraint
    device_ctx.__enter__()
    try:
        w_flat = tfe.Variable(tf.zeros([VISIBLE * HIDDEN]), name="W_flat")

        def loss_fn(w_flat):
            w = tf.reshape(w_flat, [VISIBLE, HIDDEN])
            x = tf.matmul(data, w)
            x = tf.sigmoid(x)
            x = tf.matmul(x, w, transpose_b=True)
            x = tf.sigmoid(x)
            return tf.reduce_mean(tf.square(x - data))

        value_and_gradients_fn = tfe.value_and_gradients_function(loss_fn)

        def opfunc(x):
            value, grads = value_and_gradients_fn(x)
            return value, grads[0]

        w_flat.assign(ng_init(VISIBLE, HIDDEN))
        config = Struct()
        config.__dict__.update(maxIter=iters, nCorrection=history)
        f_hist = lbfgs(opfunc, w_flat, config, Struct(), tf, dot, timer)
    finally:
        device_ctx.__exit__(None, None, None)
    return [float(f) for f in f_hist]


def lbfgs(opfunc, x, config, state, tf, dot, timer):
    """The article's port of ``lbfgs.lua`` (fixed step, no line search), for any framework
    whose tensors support ``+ - * /``, given its ``abs``/``reduce_sum`` module ``tf`` and a
    ``dot``. Returns the loss of every evaluation."""
    maxIter = config.maxIter or 20
    maxEval = config.maxEval or maxIter * 1.25
    tolFun = config.tolFun or 1e-5
    tolX = config.tolX or 1e-9
    nCorrection = config.nCorrection or 100
    learningRate = config.learningRate or 1

    f, g = opfunc(x)
    f_hist = [f]
    currentFuncEval = 1
    if tf.reduce_sum(tf.abs(g)) <= tolFun:
        return f_hist
    nIter = 0
    g_old = d = t = None  # set by the first iteration
    while nIter < maxIter:
        nIter += 1
        state.nIter = state.nIter + 1
        if state.nIter == 1:
            d = -g
            old_dirs = []
            old_stps = []
            Hdiag = 1
        else:
            y = g - g_old
            s = d * t
            ys = dot(y, s)
            if ys > 1e-10:
                if len(old_dirs) == nCorrection:
                    del old_dirs[0]
                    del old_stps[0]
                old_dirs.append(s)
                old_stps.append(y)
                Hdiag = ys / dot(y, y)
            k = len(old_dirs)
            ro = [0] * nCorrection
            for i in range(k):
                ro[i] = 1 / dot(old_stps[i], old_dirs[i])
            al = [0] * nCorrection
            q = -g
            for i in range(k - 1, -1, -1):
                al[i] = dot(old_dirs[i], q) * ro[i]
                q = q - al[i] * old_stps[i]
            r = q * Hdiag
            for i in range(k):
                be_i = dot(old_stps[i], r) * ro[i]
                r += (al[i] - be_i) * old_dirs[i]
            d = r
        g_old = g
        f_old = f
        gtd = dot(g, d)
        if gtd > -tolX:
            break
        if state.nIter == 1:
            t = min(1, 1 / tf.reduce_sum(tf.abs(g)))
        else:
            t = learningRate
        x += t * d
        if nIter != maxIter:
            f, g = opfunc(x)
            f_hist.append(f)
            currentFuncEval += 1
        timer()
        if nIter == maxIter or currentFuncEval >= maxEval:
            break
        if tf.reduce_sum(tf.abs(g)) <= tolFun:
            break
        if tf.reduce_sum(tf.abs(d * t)) <= tolX:
            break
        if tf.abs(f - f_old) < tolX:
            break
    return f_hist


def torch_lbfgs(images: np.ndarray, history: int, iters: int, timer):
    """The same algorithm on PyTorch: autograd for the gradient, ``torch.dot`` for dots."""
    import torch

    data = torch.from_numpy(images)

    def loss_fn(w_flat):
        w = w_flat.reshape(VISIBLE, HIDDEN)
        x = torch.sigmoid(data @ w)
        x = torch.sigmoid(x @ w.t())
        return ((x - data) ** 2).mean()

    def opfunc(x):
        w = x.detach().requires_grad_(True)
        value = loss_fn(w)
        (grad,) = torch.autograd.grad(value, w)
        return value.detach(), grad

    class TorchOps:
        abs = staticmethod(torch.abs)
        reduce_sum = staticmethod(torch.sum)

    config = Struct()
    config.__dict__.update(maxIter=iters, nCorrection=history)
    w_flat = torch.from_numpy(ng_init(VISIBLE, HIDDEN))
    f_hist = lbfgs(opfunc, w_flat, config, Struct(), TorchOps, torch.dot, timer)
    return [float(f) for f in f_hist]


FRAMEWORKS = {"eagerkernel": eagerkernel_lbfgs, "PyTorch": torch_lbfgs}


def _run(name: str, images, history: int, iters: int):
    """One l-BFGS run: the times of its iterations (the first two, which fill the history
    and warm the allocator, and the last, which evaluates nothing, left out) and its losses."""
    times: list = []
    last = [time.perf_counter()]

    def timer():
        now = time.perf_counter()
        times.append(now - last[0])
        last[0] = now

    losses = FRAMEWORKS[name](images, history, iters, timer)
    return times[2:-1], losses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="batch 1000, 6 iterations, 1 round")
    parser.add_argument("--iters", type=int, default=20, help="l-BFGS iterations per run")
    parser.add_argument("--rounds", type=int, default=3, help="runs per framework, in turns")
    parser.add_argument(
        "--settings", default=None, help="batch:history,... (default: the article's three)"
    )
    parser.add_argument(
        "--function-dot",
        action="store_true",
        help="wrap the eagerkernel side's dot in tf.function (its trace compiles "
        "reduce_sum(a * b) to one pass without the product array)",
    )
    args = parser.parse_args()
    FUNCTION_DOT[0] = args.function_dot
    settings = SETTINGS
    if args.settings:
        settings = tuple(tuple(int(v) for v in s.split(":")) for s in args.settings.split(","))
    if args.quick:
        settings, args.iters, args.rounds = ((1000, 5),), 6, 1
    try:
        import torch

        torch.set_num_threads(len(os.sched_getaffinity(0)))
    except ImportError:
        print("PyTorch is not installed: nothing to compare with.")
        return 0

    header = (
        f"{'batch':>6} {'history':>7} {'eagerkernel':>19} {'PyTorch':>19}   ek / PyTorch"
        f"{'':<22} losses (first 20)"
    )
    failures = 0
    for k, (batch, history) in enumerate(settings):
        images, source = load_images(batch)
        if k == 0:
            print(
                f"l-BFGS on the {VISIBLE}-{HIDDEN}-{VISIBLE} sigmoid autoencoder ({source}), "
                f"per iteration: median (best) ms over {args.rounds} turns of {args.iters} "
                "iterations"
            )
            print(header)
            print("-" * len(header), flush=True)
        times: dict = {name: [] for name in FRAMEWORKS}
        losses: dict = {}
        for _ in range(args.rounds):
            for name in FRAMEWORKS:
                t, f = _run(name, images, history, args.iters)
                times[name] += t
                losses[name] = f
        a, b = losses["eagerkernel"], losses["PyTorch"]
        n = min(20, len(a), len(b))
        worst = max(abs(u - v) / max(abs(v), 1e-30) for u, v in zip(a[:n], b[:n]))
        agree = worst <= TRAJECTORY_RTOL and len(a) == len(b)
        failures += not agree
        cells = ""
        for name in FRAMEWORKS:
            t = times[name]
            cells += f"{statistics.median(t) * 1e3:>10.0f} ({min(t) * 1e3:>5.0f})"
        ratio = statistics.median(times["eagerkernel"]) / statistics.median(times["PyTorch"])
        best = min(times["eagerkernel"]) / min(times["PyTorch"])
        verdict = "PASS" if ratio <= TARGET else "MISS"
        agreement = f"agree to {worst:.1e}" if agree else f"DIFFER by {worst:.1e} (n={n})"
        print(
            f"{batch:>6} {history:>7} {cells}   {ratio:.2f}x (best {best:.2f}x) {verdict:<7}"
            f"{agreement}",
            flush=True,
        )
    print(f"target: eagerkernel <= {TARGET}x PyTorch per iteration (median)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
