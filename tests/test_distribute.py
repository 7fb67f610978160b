"""`ek.distribute` in one process: the default strategy, OneDeviceStrategy and MirroredStrategy
on two NumPy-backed virtual GPUs (the same code path as real GPUs but for the reduction, which
is NumPy here and NCCL on CUDA; see tests/test_distribute_cuda.py).

Equivalence tolerance: training under a strategy sums the replicas' gradients, each scaled by
its share of the global batch, where one device takes the gradient of the whole batch's mean;
the two differ only by float32 rounding of the summation order. After a few steps of Adam or
SGD with momentum on a small MLP the weights agree to ``atol=1e-6, rtol=1e-5`` (measured
differences are below 1e-7).
"""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

ATOL, RTOL = 1e-6, 1e-5


@pytest.fixture(autouse=True)
def virtual_gpus():
    ek.config.experimental.set_virtual_gpus(2)


def data(n=64, features=5, classes=3):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, features)).astype(np.float32)
    y = rng.integers(0, classes, size=n).astype(np.int64)
    return x, y


def mlp():
    return ek.keras.Sequential(
        [ek.keras.layers.Dense(8, activation="relu"), ek.keras.layers.Dense(3)]
    )


def assert_same_weights(a, b):
    wa, wb = a.get_weights(), b.get_weights()
    assert len(wa) == len(wb) > 0
    for x, y in zip(wa, wb):
        np.testing.assert_allclose(x, y, atol=ATOL, rtol=RTOL)


# -- the default strategy and the contexts ------------------------------------------------------


def test_default_strategy_outside_every_scope():
    s = ek.distribute.get_strategy()
    assert s.num_replicas_in_sync == 1
    assert not ek.distribute.has_strategy()
    assert not ek.distribute.in_cross_replica_context()
    ctx = ek.distribute.get_replica_context()
    assert (ctx.replica_id_in_sync_group, ctx.num_replicas_in_sync) == (0, 1)
    assert s.run(lambda a, b: a + b, args=(1, 2)) == 3
    assert float(s.reduce("SUM", ek.constant(4.0), axis=None)) == 4.0
    assert s.experimental_local_results(5) == (5,)
    v = ek.Variable(1.0)
    assert type(v) is ek.Variable


def test_mirrored_scope_contexts_and_repr_labels_virtual_gpus():
    s = ek.distribute.MirroredStrategy()
    assert s.num_replicas_in_sync == 2
    # TensorFlow's full names (its MirroredStrategy prints and returns these)
    assert s.extended.worker_devices == (
        "/job:localhost/replica:0/task:0/device:GPU:0",
        "/job:localhost/replica:0/task:0/device:GPU:1",
    )
    assert "virtual" in repr(s) and "CUDA" not in repr(s)
    with s.scope():
        assert ek.distribute.get_strategy() is s
        assert ek.distribute.has_strategy()
        assert ek.distribute.in_cross_replica_context()
        assert ek.distribute.get_replica_context() is None

    def fn():
        ctx = ek.distribute.get_replica_context()
        assert not ek.distribute.in_cross_replica_context()
        assert ek.distribute.get_strategy() is s
        return ctx.replica_id_in_sync_group

    out = s.run(fn)
    assert isinstance(out, ek.distribute.PerReplica)
    assert out.values == (0, 1)


def test_mixing_strategies_and_bad_arguments_raise():
    a = ek.distribute.MirroredStrategy()
    b = ek.distribute.OneDeviceStrategy("/cpu:0")
    with a.scope(), pytest.raises(RuntimeError, match="Mixing different"), b.scope():
        pass
    with pytest.raises(ValueError, match="duplicate devices"):
        ek.distribute.MirroredStrategy(["/gpu:0", "gpu:0"])
    with pytest.raises(RuntimeError, match="not present"):
        ek.distribute.MirroredStrategy(["/gpu:7"])
    with pytest.raises(ValueError, match="reduce_op"):
        a.reduce("MAX", a.run(lambda: ek.constant(1.0)), axis=None)
    with pytest.raises(ValueError, match="NcclAllReduce needs CUDA"):
        ek.distribute.MirroredStrategy(cross_device_ops=ek.distribute.NcclAllReduce())
    with pytest.raises(NotImplementedError, match="options"):
        a.run(lambda: 1, options=object())


def test_one_device_strategy_places_variables_and_runs_there():
    s = ek.distribute.OneDeviceStrategy("/gpu:1")
    with s.scope():
        v = ek.Variable([1.0, 2.0])
    assert type(v) is ek.Variable and v.device == "/job:localhost/replica:0/task:0/device:GPU:1"
    out = s.run(lambda x: v * x, args=(ek.constant(3.0),))
    assert out.device == "/job:localhost/replica:0/task:0/device:GPU:1"
    np.testing.assert_array_equal(out.numpy(), [3.0, 6.0])
    assert float(s.reduce("SUM", out, axis=0)) == 9.0


# -- mirrored variables -------------------------------------------------------------------------


def test_variables_created_in_scope_are_mirrored_on_every_device():
    s = ek.distribute.MirroredStrategy()
    with s.scope():
        v = ek.Variable([1.0, 2.0], name="w")
    assert isinstance(v, ek.distribute.MirroredVariable) and isinstance(v, ek.Variable)
    full = tuple(f"/job:localhost/replica:0/task:0/device:GPU:{i}" for i in (0, 1))
    assert v.devices == full
    assert v.device == full[0]  # cross-replica: the first replica's component
    assert [t.device for t in v.values] == list(full)
    # each replica reads its own component, and its PerReplica results live there
    dev, out, ctx = s.run(lambda: (v.device, ek.identity(v), ek.distribute.get_replica_context()))
    assert list(dev.values) == list(full)
    assert [t.device for t in out.values] == list(full)
    assert [c.devices for c in ctx.values] == [(full[0],), (full[1],)]
    # short and full names are both accepted as input
    short = ek.distribute.MirroredStrategy(["/gpu:0", full[1]])
    assert short.extended.worker_devices == full
    v.assign([5.0, 6.0])  # cross-replica: every component
    for t in v.values:
        np.testing.assert_array_equal(t.numpy(), [5.0, 6.0])
    v.assign_add([1.0, 1.0])
    for t in v.values:
        np.testing.assert_array_equal(t.numpy(), [6.0, 7.0])
    # in a replica context each replica reads its own component, on its device
    devices = s.run(lambda: (v + 0.0).device)
    assert devices.values == tuple(
        f"/job:localhost/replica:0/task:0/device:GPU:{i}" for i in (0, 1)
    )
    assert "MirroredVariable" in repr(v)


def test_replica_context_assign_updates_the_local_component_only():
    s = ek.distribute.MirroredStrategy()
    with s.scope():
        v = ek.Variable(0.0)
    s.run(lambda: v.assign(float(ek.distribute.get_replica_context().replica_id_in_sync_group)))
    assert [float(t) for t in v.values] == [0.0, 1.0]


def test_variable_creator_scope_follows_tensorflow():
    seen = []

    def creator(next_creator, **kwargs):
        seen.append(kwargs["name"])
        kwargs["initial_value"] = 42.0
        return next_creator(**kwargs)

    with ek.variable_creator_scope(creator):
        v = ek.Variable(1.0, name="x")
    assert seen == ["x"] and float(v) == 42.0
    with pytest.raises(TypeError, match="callable"):
        ek.variable_creator_scope(3)


# -- run, all_reduce, reduce, gather ------------------------------------------------------------


def test_all_reduce_sum_and_mean_in_replica_context():
    s = ek.distribute.MirroredStrategy()

    def fn():
        ctx = ek.distribute.get_replica_context()
        r = float(ctx.replica_id_in_sync_group)
        value = {"a": ek.constant([r, 1.0]), "b": ek.constant(2.0 * r)}
        return ctx.all_reduce("SUM", value), ctx.all_reduce(ek.distribute.ReduceOp.MEAN, value)

    total, mean = s.run(fn)
    for r in range(2):
        np.testing.assert_array_equal(total["a"].values[r].numpy(), [1.0, 2.0])
        assert float(total["b"].values[r]) == 2.0
        np.testing.assert_array_equal(mean["a"].values[r].numpy(), [0.5, 1.0])
        assert total["a"].values[r].device == f"/job:localhost/replica:0/task:0/device:GPU:{r}"


def test_reduce_with_and_without_axis():
    s = ek.distribute.MirroredStrategy()
    parts = ek.distribute.PerReplica([ek.constant([1.0, 2.0, 3.0]), ek.constant([4.0, 5.0])])
    assert float(s.reduce("SUM", parts, axis=0)) == 15.0
    assert float(s.reduce("MEAN", parts, axis=0)) == 3.0  # over all 5 elements
    per = s.run(
        lambda: ek.constant(
            float(ek.distribute.get_replica_context().replica_id_in_sync_group) + 1.0
        )
    )
    assert float(s.reduce("SUM", per, axis=None)) == 3.0
    assert float(s.reduce("MEAN", per, axis=None)) == 1.5
    np.testing.assert_array_equal(s.gather(parts, axis=0).numpy(), [1, 2, 3, 4, 5])
    with pytest.raises(ValueError, match="not per-replica"):
        s.reduce("SUM", ek.constant(1.0), axis=None)
    assert float(s.reduce("MEAN", ek.constant(7.0), axis=None)) == 7.0


def test_an_error_in_one_replica_propagates_and_stops_the_others():
    s = ek.distribute.MirroredStrategy()

    def fn():
        ctx = ek.distribute.get_replica_context()
        if ctx.replica_id_in_sync_group == 1:
            raise KeyError("replica one failed")
        return ctx.all_reduce("SUM", ek.constant(1.0))

    with pytest.raises(KeyError, match="replica one failed"):
        s.run(fn)


def test_replicas_that_disagree_on_merges_raise():
    s = ek.distribute.MirroredStrategy()

    def fn():
        ctx = ek.distribute.get_replica_context()
        if ctx.replica_id_in_sync_group == 0:
            ctx.all_reduce("SUM", ek.constant(1.0))
        return 0

    with pytest.raises(RuntimeError, match="every replica must make the same"):
        s.run(fn)


def test_merge_call_groups_arguments():
    s = ek.distribute.MirroredStrategy()

    def merge_fn(strategy, value):
        assert strategy is s and isinstance(value, ek.distribute.PerReplica)
        return sum(value.values)

    out = s.run(
        lambda: ek.distribute.get_replica_context().merge_call(
            merge_fn, args=(ek.distribute.get_replica_context().replica_id_in_sync_group + 1,)
        )
    )
    assert out == 3


# -- input --------------------------------------------------------------------------------------


def test_experimental_distribute_dataset_splits_global_batches():
    s = ek.distribute.MirroredStrategy()
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    ds = ek.data.Dataset.from_tensor_slices((x, np.arange(5))).batch(4)
    batches = list(s.experimental_distribute_dataset(ds))
    assert len(batches) == 2
    xb, yb = batches[0]
    assert isinstance(xb, ek.distribute.PerReplica)
    np.testing.assert_array_equal(xb.values[0].numpy(), x[0:2])
    np.testing.assert_array_equal(xb.values[1].numpy(), x[2:4])
    assert [t.device for t in xb.values] == [
        f"/job:localhost/replica:0/task:0/device:GPU:{i}" for i in (0, 1)
    ]
    np.testing.assert_array_equal(yb.values[1].numpy(), [2, 3])
    # the last batch (one example) splits unevenly: 1 and 0 rows
    xl, _ = batches[1]
    assert [t.shape[0] for t in xl.values] == [1, 0]
    with pytest.raises(ValueError, match="must be batches"):
        next(iter(s.experimental_distribute_dataset(ek.data.Dataset.range(3))))
    options = ek.distribute.InputOptions(experimental_fetch_to_device=False)
    xb, _ = next(iter(s.experimental_distribute_dataset(ds, options)))
    assert xb.values[1].device == "/job:localhost/replica:0/task:0/device:CPU:0"


def test_distribute_datasets_from_function_gives_each_replica_an_element():
    s = ek.distribute.MirroredStrategy()
    contexts = []

    def dataset_fn(ctx):
        contexts.append(ctx)
        return ek.data.Dataset.range(10).batch(ctx.get_per_replica_batch_size(4))

    dist = s.distribute_datasets_from_function(dataset_fn)
    ctx = contexts[0]
    assert (ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync) == (1, 0, 2)
    first = next(iter(dist))
    np.testing.assert_array_equal(first.values[0].numpy(), [0, 1])
    np.testing.assert_array_equal(first.values[1].numpy(), [2, 3])
    it = iter(dist)
    for _ in range(2):
        it.get_next()
    last = it.get_next()  # as TensorFlow: the fifth batch, with an empty one for replica 1
    assert [v.numpy().tolist() for v in last.values] == [[8, 9], []]
    with pytest.raises(ek.errors.OutOfRangeError):
        it.get_next()


def test_input_context_batch_size_must_divide():
    ctx = ek.distribute.InputContext(2, 1, 4)
    assert ctx.get_per_replica_batch_size(64) == 16
    with pytest.raises(ValueError, match="is not divisible by `num_replicas_in_sync`"):
        ctx.get_per_replica_batch_size(10)
    with pytest.raises(ValueError, match="input_pipeline_id"):
        ek.distribute.InputContext(2, 2, 4)


# -- training: the same weights as one device on the global batch ------------------------------


def fit_model(strategy, optimizer, epochs=2, **fit_kwargs):
    x, y = data()
    with strategy.scope():
        ek.keras.utils.set_random_seed(1)
        model = mlp()
        model.compile(
            optimizer=optimizer(),
            loss=ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=["accuracy"],
        )
    history = model.fit(x, y, batch_size=16, epochs=epochs, verbose=0, **fit_kwargs)
    return model, history


@pytest.mark.parametrize(
    "optimizer",
    [
        lambda: ek.keras.optimizers.Adam(0.01),
        lambda: ek.keras.optimizers.SGD(0.1, momentum=0.9),
        # Keras 3's accumulation and loss scale factor: per replica, the same as on one device
        lambda: ek.keras.optimizers.Adam(0.01, gradient_accumulation_steps=2, loss_scale_factor=8),
    ],
    ids=["adam", "sgd-momentum", "adam-accumulate-scaled"],
)
def test_fit_under_mirrored_strategy_matches_one_device(optimizer):
    validation = data(n=20)
    one, h1 = fit_model(ek.distribute.get_strategy(), optimizer, validation_data=validation)
    mirrored, h2 = fit_model(
        ek.distribute.MirroredStrategy(), optimizer, validation_data=validation
    )
    assert_same_weights(one, mirrored)
    np.testing.assert_allclose(h1.history["loss"], h2.history["loss"], rtol=1e-5)
    np.testing.assert_allclose(h1.history["val_loss"], h2.history["val_loss"], rtol=1e-5)
    assert h1.history["accuracy"] == h2.history["accuracy"]  # the metrics see the global batch
    kernel = mirrored.trainable_variables[0]
    assert isinstance(kernel, ek.distribute.MirroredVariable)
    a, b = (t.numpy() for t in kernel.values)
    np.testing.assert_array_equal(a, b)  # the replicas stay identical
    slot = mirrored.optimizer._slot_order[0]
    assert isinstance(slot, ek.distribute.MirroredVariable)
    steps = mirrored.optimizer.gradient_accumulation_steps or 1
    assert int(mirrored.optimizer.iterations) == 8 // steps  # updates, not steps
    # evaluate and predict run on the primary replica's device
    x, y = data()
    np.testing.assert_allclose(one.predict(x), mirrored.predict(x), atol=1e-5)
    np.testing.assert_allclose(
        one.evaluate(x, y, verbose=0), mirrored.evaluate(x, y, verbose=0), rtol=1e-5
    )


def test_fit_with_uneven_last_batch_and_shuffle_matches_one_device():
    x, y = data(n=50)

    def run(strategy):
        with strategy.scope():
            ek.keras.utils.set_random_seed(3)
            model = mlp()
            model.compile(
                optimizer="adam",
                loss=ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            )
        model.fit(x, y, batch_size=16, epochs=2, shuffle=True, verbose=0)
        return model

    assert_same_weights(run(ek.distribute.get_strategy()), run(ek.distribute.MirroredStrategy()))


def train_custom_loop(strategy, global_batch=16):
    """Two epochs of a custom loop (strategy.run, apply_gradients in the replicas) on the
    MLP; returns the model, the optimizer and the step losses summed over replicas."""
    x, y = data()
    ek.keras.utils.set_random_seed(5)
    with strategy.scope():
        model = mlp()
        opt = ek.keras.optimizers.Adam(0.01)
    loss_obj = ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")
    dist = strategy.experimental_distribute_dataset(
        ek.data.Dataset.from_tensor_slices((x, y)).batch(global_batch)
    )

    def step(inputs):
        xb, yb = inputs
        with ek.GradientTape() as tape:
            loss = ek.reduce_sum(loss_obj(yb, model(xb, training=True))) / global_batch
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    losses = []
    for _ in range(2):
        for batch in dist:
            losses.append(
                float(strategy.reduce("SUM", strategy.run(step, args=(batch,)), axis=None))
            )
    return model, opt, losses


def test_custom_training_loop_matches_one_device():
    train = train_custom_loop
    m1, o1, l1 = train(ek.distribute.get_strategy())
    m2, o2, l2 = train(ek.distribute.MirroredStrategy())
    assert_same_weights(m1, m2)
    np.testing.assert_allclose(l1, l2, rtol=1e-5)
    assert int(o2.iterations) == int(o1.iterations) == 8


def test_apply_gradients_in_cross_replica_context_updates_every_replica():
    s = ek.distribute.MirroredStrategy()
    with s.scope():
        v = ek.Variable([1.0, 2.0])
        opt = ek.keras.optimizers.SGD(0.5)
    opt.apply_gradients([(ek.constant([1.0, 1.0]), v)])
    for t in v.values:
        np.testing.assert_array_equal(t.numpy(), [0.5, 1.5])
    assert int(opt.iterations) == 1


def test_batch_norm_moving_statistics_are_averaged_over_replicas():
    x = np.random.default_rng(1).normal(size=(8, 3)).astype(np.float32)
    x[4:] += 10.0  # replica 1's half has another mean
    s = ek.distribute.MirroredStrategy()
    with s.scope():
        ek.keras.utils.set_random_seed(0)
        model = ek.keras.Sequential(
            [ek.keras.layers.BatchNormalization(momentum=0.0), ek.keras.layers.Dense(1)]
        )
        model.compile(optimizer="sgd", loss="mse")
    model.fit(x, np.zeros((8, 1), np.float32), batch_size=8, epochs=1, shuffle=False, verbose=0)
    bn = model.layers[0]
    expected = (x[:4].mean(axis=0) + x[4:].mean(axis=0)) / 2  # TF's VariableAggregation.MEAN
    for t in bn.moving_mean.values:
        np.testing.assert_allclose(t.numpy(), expected, rtol=1e-5)


# -- checkpoints --------------------------------------------------------------------------------


def test_checkpoint_of_mirrored_variables_restores_every_replica(tmp_path):
    s = ek.distribute.MirroredStrategy()
    with s.scope():
        v = ek.Variable([1.0, 2.0])
    ckpt = ek.train.Checkpoint(v=v)
    path = ckpt.save(str(tmp_path / "ckpt"))
    v.assign([9.0, 9.0])
    ckpt.restore(path).assert_consumed()
    for t in v.values:
        np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
    # the values load into a model without a strategy too (any number of replicas)
    plain = ek.Variable([0.0, 0.0])
    ek.train.Checkpoint(v=plain).restore(path)
    np.testing.assert_array_equal(plain.numpy(), [1.0, 2.0])


def test_collective_buckets_fuse_by_dtype_and_size():
    from eagerkernel.runtime.distribute.collectives import buckets

    arrays = [
        np.zeros(10, np.float32),
        np.zeros(10, np.float32),
        np.zeros(3, np.int64),
        np.zeros(100, np.float32),
    ]
    assert buckets(arrays, limit=100) == [[0, 1], [2], [3]]
    assert buckets(arrays, limit=10_000) == [[0, 1, 3], [2]]


def test_a_graph_function_step_runs_on_every_replica():
    x = np.random.default_rng(0).normal(size=(16, 4)).astype(np.float32)
    y = np.random.default_rng(1).normal(size=(16, 1)).astype(np.float32)

    def train(strategy, compiled):
        ek.keras.utils.set_random_seed(0)
        with strategy.scope():
            model = ek.keras.Sequential([ek.keras.layers.Dense(1, input_shape=(4,))])
            opt = ek.keras.optimizers.SGD(0.1)

        def step(xb, yb):
            with ek.GradientTape() as tape:
                loss = ek.reduce_sum((model(xb) - yb) ** 2) / 16.0
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        fn = ek.function(step) if compiled else step
        ds = ek.data.Dataset.from_tensor_slices((x, y)).batch(16)
        for _ in range(3):
            for xb, yb in strategy.experimental_distribute_dataset(ds):
                strategy.run(fn, args=(xb, yb))
        return model

    assert_same_weights(
        train(ek.distribute.get_strategy(), False), train(ek.distribute.MirroredStrategy(), True)
    )


def test_compute_average_loss_and_scale_regularization_loss_follow_tensorflow():
    per_example = ek.constant([1.0, 2.0, 3.0, 6.0])
    assert float(ek.nn.compute_average_loss(per_example)) == 3.0  # one replica
    assert float(ek.nn.compute_average_loss(per_example, global_batch_size=8)) == 1.5
    weights = ek.constant([1.0, 0.0, 1.0, 0.0])
    assert float(ek.nn.compute_average_loss(per_example, sample_weight=weights)) == 1.0
    s = ek.distribute.MirroredStrategy()
    # each replica divides by its batch times the replicas in sync: 2 * 2 = 4
    out = s.run(
        lambda x: ek.nn.compute_average_loss(x),
        args=(ek.distribute.PerReplica([ek.constant([1.0, 3.0]), ek.constant([4.0, 8.0])]),),
    )
    assert [float(v) for v in out.values] == [1.0, 3.0]
    assert float(s.reduce("SUM", out, axis=None)) == 4.0  # the global batch's mean
    regs = s.run(lambda: ek.nn.scale_regularization_loss(ek.constant([1.0, 1.0])))
    assert [float(v) for v in regs.values] == [1.0, 1.0]
    with s.scope(), pytest.raises(RuntimeError, match="cross replica context"):
        ek.nn.compute_average_loss(per_example)
    with pytest.raises(ValueError, match="global_batch_size must be positive"):
        ek.nn.compute_average_loss(per_example, global_batch_size=0)


def test_metrics_updated_in_replicas_read_as_the_sum_over_replicas():
    # The pattern of TensorFlow's custom-training tutorial: metrics updated inside the step,
    # read (and reset) outside it.
    s = ek.distribute.MirroredStrategy()
    with s.scope():
        accuracy = ek.keras.metrics.SparseCategoricalAccuracy()
        mean = ek.keras.metrics.Mean()
    assert isinstance(mean.variables[0], ek.distribute.SyncOnReadVariable)
    labels = np.array([0, 1, 1, 0])
    logits = np.array([[2.0, 0.0], [0.0, 1.0], [3.0, 0.0], [1.0, 0.0]], np.float32)
    ds = ek.data.Dataset.from_tensor_slices((logits, labels, np.arange(4.0))).batch(4)

    def step(inputs):
        lg, lb, v = inputs
        accuracy.update_state(lb, lg)
        mean.update_state(v)

    for batch in s.experimental_distribute_dataset(ds):
        s.run(step, args=(batch,))
    assert float(accuracy.result()) == 0.75  # both replicas' examples, not replica 0's
    assert float(mean.result()) == 1.5
    accuracy.reset_state()
    assert float(accuracy.result()) == 0.0
    for batch in s.experimental_distribute_dataset(ds):
        s.run(step, args=(batch,))
    assert float(accuracy.result()) == 0.75
    with pytest.raises(NotImplementedError, match="aggregation=SUM only"), s.scope():
        ek.Variable(
            0.0,
            synchronization=ek.VariableSynchronization.ON_READ,
            aggregation=ek.VariableAggregation.MEAN,
        )
    # without a strategy the arguments are accepted: one replica reads as itself
    v = ek.Variable(
        1.0,
        synchronization=ek.VariableSynchronization.ON_READ,
        aggregation=ek.VariableAggregation.SUM,
    )
    assert type(v) is ek.Variable and float(v) == 1.0
    with pytest.raises(ValueError, match="synchronization must be"):  # TF 2.21: ValueError
        ek.Variable(1.0, synchronization="ON_READ")


# -- CentralStorageStrategy ---------------------------------------------------------------------


def central_storage():
    return ek.distribute.experimental.CentralStorageStrategy()


def test_central_storage_keeps_one_copy_on_the_parameter_device():
    s = central_storage()
    assert s.num_replicas_in_sync == 2  # one replica per (virtual) GPU
    assert s.extended.parameter_devices == ("/job:localhost/replica:0/task:0/device:CPU:0",)
    with s.scope():
        v = ek.Variable([1.0, 2.0])
    assert type(v) is ek.Variable  # not mirrored
    assert v.device.endswith("CPU:0")

    def fn():
        ctx = ek.distribute.get_replica_context()
        y = v * float(ctx.replica_id_in_sync_group + 1)  # runs on the replica's GPU
        return y.device, y

    devices, values = s.run(fn)
    assert [d.rsplit(":", 2)[-2:] for d in devices.values] == [["GPU", "0"], ["GPU", "1"]]
    np.testing.assert_array_equal(values.values[1].numpy(), [2.0, 4.0])
    # one compute device: it holds the variables too (TensorFlow's default)
    one = ek.distribute.experimental.CentralStorageStrategy(["/gpu:1"])
    assert one.num_replicas_in_sync == 1
    assert one.extended.parameter_devices == ("/job:localhost/replica:0/task:0/device:GPU:1",)
    with pytest.raises(ValueError, match="compute_devices must not be empty"):
        ek.distribute.experimental.CentralStorageStrategy([])
    with pytest.raises(ValueError, match="duplicate compute devices"):
        ek.distribute.experimental.CentralStorageStrategy(["/gpu:0", "gpu:0"])


def test_central_storage_custom_loop_sums_the_replicas_gradients_and_updates_once():
    m1, o1, l1 = train_custom_loop(ek.distribute.get_strategy())
    m2, o2, l2 = train_custom_loop(central_storage())
    np.testing.assert_allclose(l1, l2, rtol=1e-5)
    assert_same_weights(m1, m2)
    assert int(o2.iterations) == int(o1.iterations) == 8  # one update per step, not per replica
    for v in m2.trainable_variables + o2.variables:
        assert type(v) is ek.Variable and v.device.endswith("CPU:0")


def test_fit_under_central_storage_matches_one_device():
    validation = data(n=20)
    optimizer = lambda: ek.keras.optimizers.Adam(0.01)
    one, h1 = fit_model(ek.distribute.get_strategy(), optimizer, validation_data=validation)
    central, h2 = fit_model(central_storage(), optimizer, validation_data=validation)
    assert_same_weights(one, central)
    np.testing.assert_allclose(h1.history["loss"], h2.history["loss"], rtol=1e-5)
    assert h1.history["accuracy"] == h2.history["accuracy"]
    assert int(central.optimizer.iterations) == 8


def test_central_storage_moving_statistics_are_averaged_on_the_parameter_device():
    x = np.random.default_rng(1).normal(size=(8, 3)).astype(np.float32)
    x[4:] += 10.0  # replica 1's half has another mean
    s = central_storage()
    with s.scope():
        model = ek.keras.Sequential(
            [ek.keras.layers.BatchNormalization(momentum=0.0), ek.keras.layers.Dense(1)]
        )
        model.compile(optimizer="sgd", loss="mse")
    model.fit(x, np.zeros((8, 1), np.float32), batch_size=8, epochs=1, shuffle=False, verbose=0)
    bn = model.layers[0]
    expected = (x[:4].mean(axis=0) + x[4:].mean(axis=0)) / 2
    np.testing.assert_allclose(bn.moving_mean.numpy(), expected, rtol=1e-5)
    assert bn.moving_mean.device.endswith("CPU:0")


def test_graph_functions_rerun_replicas_and_reductions_on_every_call():
    # strategy.run's replicas run in threads a trace cannot see, and reduce/gather compute on
    # the host: a tf.function around them must not replay the values of its first call.
    s = ek.distribute.MirroredStrategy()
    v = ek.Variable(1.0)

    @ek.function
    def step(x):
        per = s.run(lambda x: x * v, args=(x,))
        return s.reduce("SUM", per, axis=None), s.reduce("MEAN", per, axis=0), s.gather(per, 0)

    for x in ([2.0, 4.0], [3.0, 5.0]):
        total, mean, gathered = step(ek.constant(x))
        np.testing.assert_allclose(total.numpy(), 2 * np.array(x))  # two replicas
        assert float(mean) == pytest.approx(np.mean(x))
        np.testing.assert_allclose(gathered.numpy(), x + x)
    one = ek.distribute.MirroredStrategy(["/cpu:0"])

    @ek.function
    def single(x):
        return one.reduce("SUM", one.run(lambda x: x * v, args=(x,)), axis=None)

    assert [float(single(ek.constant(c))) for c in (2.0, 3.0)] == [2.0, 3.0]


def test_custom_training_loop_in_a_graph_function_matches_eager():
    # The distributed custom-training tutorial's step: run, then reduce the per-replica loss.
    x, y = data(n=32)
    s = ek.distribute.MirroredStrategy()
    results, start = [], None
    for wrap in (lambda f: f, ek.function):
        with s.scope():
            model = mlp()
            model.build((None, 5))
            opt = ek.keras.optimizers.SGD(0.1)
        start = start or [w.numpy() for w in model.weights]
        model.set_weights(start)  # both loops start from the same weights
        loss_fn = ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")

        def replica_step(inputs, model=model, opt=opt, loss_fn=loss_fn):
            xb, yb = inputs
            with ek.GradientTape() as tape:
                loss = ek.nn.compute_average_loss(loss_fn(yb, model(xb)), global_batch_size=16)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        @wrap
        def train_step(inputs, replica_step=replica_step):
            return s.reduce("SUM", s.run(replica_step, args=(inputs,)), axis=None)

        dataset = ek.data.Dataset.from_tensor_slices((x, y)).batch(16)
        losses = [
            float(train_step(b))
            for _ in range(2)
            for b in s.experimental_distribute_dataset(dataset)
        ]
        results.append((losses, [w.numpy() for w in model.weights]))
    (eager_losses, eager_weights), (graph_losses, graph_weights) = results
    assert len(set(graph_losses)) == len(graph_losses)  # not the first call's value replayed
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-5)
    for a, b in zip(eager_weights, graph_weights):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
