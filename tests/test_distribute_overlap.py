"""The gradient all-reduce overlapped with the backward pass, in one process.

First the interface it rests on: a `GradientListener` on the thread's context receives each
source's gradient as soon as the backward sweep has finished it (newest layer first, before
the older layers' VJPs run), the very Tensors `tape.gradient` returns, with the gradients the
sweep computes unchanged. Then `MirroredStrategy` on 2 NumPy-backed virtual GPUs (and the CPU
as a third replica): the
weights trained with the overlap are bitwise those trained without it (the element-wise sums
of the replicas, in replica order, do not depend on how the fused buffers are cut), in a
custom loop, in Keras ``fit``, and when the step changes the gradients before applying them
(then the sequential all-reduce runs). The same across 2 MPI processes is in
tests/test_distribute_mpi.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.core import context as core_context
from eagerkernel.runtime.core.context import GradientListener, Recorder


@pytest.fixture(autouse=True)
def virtual_gpus():
    ek.config.experimental.set_virtual_gpus(2)  # as the other tests: set once per process


class _OpCounter(Recorder):
    """Counts the ops this thread runs (the backward pass's VJPs included)."""

    def __init__(self):
        self.ops = 0

    def record(self, prim, inputs, output, params, saved, seconds):
        self.ops += 1


class _Listener(GradientListener):
    def __init__(self, counter, want=None):
        self.counter, self.want = counter, want
        self.ready, self.ended, self.begun = [], [], 0

    def begin(self, sources):
        self.begun += 1
        outer = self

        class Session:
            def __init__(self):
                self.wanted = [
                    i
                    for i, s in enumerate(sources)
                    if s is not None and (outer.want is None or i in outer.want)
                ]

            def ready(self, index, gradient):
                outer.ready.append((index, gradient, outer.counter.ops))

            def end(self, gradients):
                outer.ended.append((gradients, outer.counter.ops))

        return Session()


def _listening(fn, want=None):
    counter = _OpCounter()
    listener = _Listener(counter, want)
    core_context.push_recorder(counter)
    before = core_context.push_gradient_listener(listener)
    try:
        out = fn()
    finally:
        core_context.pop_gradient_listener(before)
        core_context.pop_recorder(counter)
    return out, listener


def _three_layers():
    rng = np.random.default_rng(1)
    ws = [ek.Variable(rng.normal(size=s).astype(np.float32)) for s in [(4, 5), (5, 6), (6, 2)]]
    x = ek.constant(rng.normal(size=(3, 4)).astype(np.float32))

    def grads():
        with ek.GradientTape() as tape:
            h = x
            for w in ws:
                h = ek.nn.relu(h @ w)
            loss = ek.reduce_sum(h * h)
        return tape.gradient(loss, ws)

    return ws, grads


def test_the_listener_gets_each_gradient_when_final_newest_layer_first():
    _, grads = _three_layers()
    plain = grads()
    got, listener = _listening(grads)
    assert listener.begun == 1
    assert [i for i, _, _ in listener.ready] == [2, 1, 0]  # the last layer's first
    for (_, g, _), same in zip(listener.ready, [got[2], got[1], got[0]]):
        assert g is same  # the Tensor the call returns
    for a, b in zip(plain, got):
        np.testing.assert_array_equal(a.numpy(), b.numpy())  # the sweep is unchanged
    ops_at_end = listener.ended[0][1]
    # the last layer's gradient was handed over while the older layers' VJPs were still to run
    assert listener.ready[0][2] < listener.ready[1][2] < listener.ready[2][2] <= ops_at_end
    assert listener.ready[0][2] < ops_at_end - 4
    assert [g is r for g, r in zip(listener.ended[0][0], got)] == [True] * 3


def test_a_variable_read_by_several_ops_is_ready_after_its_oldest_read():
    rng = np.random.default_rng(2)
    w = ek.Variable(rng.normal(size=(3, 3)).astype(np.float32))
    v = ek.Variable(rng.normal(size=(3, 3)).astype(np.float32))
    unused = ek.Variable(1.0)
    x = ek.constant(rng.normal(size=(2, 3)).astype(np.float32))

    def grads():
        with ek.GradientTape() as tape:
            snap = ek.identity(w)  # w read, then used again through its value
            h = ek.tanh(x @ w)
            h = ek.tanh(h @ v) + h @ w + ek.reduce_sum(snap)
            loss = ek.reduce_sum(h * h)
        return tape.gradient(loss, [w, v, unused, w])

    plain = grads()
    got, listener = _listening(grads)
    order = [i for i, _, _ in listener.ready]
    assert order == [1, 0]  # v, read once near the end, before w (read first); unused never
    assert got[2] is None and got[3] is got[0]
    for a, b in zip(plain, got):
        if a is not None:
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert listener.ready[1][1] is got[0]


def test_a_source_that_is_the_target_and_a_listener_that_wants_some_sources():
    w = ek.Variable([1.0, 2.0])
    b = ek.Variable([3.0, 4.0])

    def grads():
        with ek.GradientTape(persistent=True) as tape:
            y = w * b
        return tape.gradient(y, [y, w, b])

    got, listener = _listening(grads, want={0, 2})
    assert [i for i, _, _ in listener.ready] == [0, 2]  # the seed at once, then b
    np.testing.assert_array_equal(got[0].numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(got[2].numpy(), [1.0, 2.0])


def test_jacobians_and_threads_without_a_listener_do_not_call_it():
    w = ek.Variable([1.0, 2.0])

    def jac():
        with ek.GradientTape() as tape:
            y = w * w
        return tape.jacobian(y, w)

    j, listener = _listening(jac)
    np.testing.assert_array_equal(j.numpy(), [[2.0, 0.0], [0.0, 4.0]])
    assert listener.begun == 0
    assert core_context.gradient_listener() is None


# -- MirroredStrategy on virtual GPUs -----------------------------------------------------------


def _train(overlap, replicas, mode, steps=3, bucket_bytes=600, clip=False):
    devices = ["/gpu:0", "/gpu:1", "/cpu:0"][:replicas]  # 3 replicas: the CPU as the third
    s = ek.distribute.MirroredStrategy(devices)
    s.extended.overlap_gradients = overlap
    s.extended.bucket_bytes = bucket_bytes
    rng = np.random.default_rng(0)
    x = rng.normal(size=(12, 5)).astype(np.float32)
    y = rng.integers(0, 3, 12)
    L = ek.keras.layers
    with s.scope():
        ek.keras.utils.set_random_seed(1)
        model = ek.keras.Sequential(
            [
                L.Dense(20, activation="relu", input_shape=(5,)),
                L.Dense(12, activation="relu"),
                L.Dense(3),
            ]
        )
        optimizer = ek.keras.optimizers.SGD(0.1, momentum=0.9)
    if mode == "fit":
        with s.scope():
            model.compile(
                optimizer=optimizer,
                loss=ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            )
        model.fit(x, y, batch_size=12, epochs=steps, verbose=0, shuffle=False)
    else:
        loss_fn = ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")
        batches = ek.data.Dataset.from_tensor_slices((x, y)).batch(12).repeat()
        it = iter(s.experimental_distribute_dataset(batches))

        def step(inputs):
            xb, yb = inputs
            with ek.GradientTape() as tape:
                loss = ek.reduce_sum(loss_fn(yb, model(xb, training=True))) / 12
            grads = tape.gradient(loss, model.trainable_variables)
            if clip:  # new Tensors: the sequential all-reduce runs on them
                grads = [ek.clip_by_value(g, -0.05, 0.05) for g in grads]
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        for _ in range(steps):
            s.run(step, args=(next(it),))
    return model.get_weights(), dict(s.extended.collective_stats)


@pytest.mark.parametrize("replicas", [2, 3])
@pytest.mark.parametrize("mode", ["loop", "fit"])
def test_overlapped_training_equals_sequential_training_bitwise(mode, replicas):
    on, on_stats = _train(True, replicas, mode)
    off, off_stats = _train(False, replicas, mode)
    assert len(on) == len(off) == 6
    for a, b in zip(on, off):
        np.testing.assert_array_equal(a, b)
    params = (5 * 20 + 20 + 20 * 12 + 12 + 12 * 3 + 3) * 4
    assert on_stats["bytes"] == off_stats["bytes"] == 3 * params
    assert on_stats["steps"] == off_stats["steps"] == 3
    # the last two layers' gradients (1128 bytes >= 600) were all-reduced during the backward
    # pass; without the overlap nothing was
    assert on_stats["overlapped_bytes"] >= 3 * (12 * 3 + 3 + 20 * 12 + 12) * 4
    assert off_stats["overlapped_bytes"] == 0


def test_gradients_changed_before_apply_take_the_sequential_all_reduce():
    on, on_stats = _train(True, 2, "loop", clip=True)
    off, off_stats = _train(False, 2, "loop", clip=True)
    for a, b in zip(on, off):
        np.testing.assert_array_equal(a, b)
    assert on_stats["overlapped_bytes"] == 0  # the handed-over sums were not used
    assert on_stats["bytes"] == off_stats["bytes"]


def test_replica_threads_install_the_strategy_listener_and_restore_the_previous():
    s = ek.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])
    seen = s.run(lambda: core_context.gradient_listener())  # every replica's: one object
    assert seen is s.extended.gradient_listener() and seen is not None
    assert core_context.gradient_listener() is None
    one = ek.distribute.MirroredStrategy(["/gpu:0"])  # one replica: nothing to all-reduce
    assert one.run(lambda: core_context.gradient_listener()) is None
