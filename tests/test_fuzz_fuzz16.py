"""Differential checks against TensorFlow 2.21 / Keras 3.15 (fuzz16): mixed precision
policies and autocasting, and `tf.distribute` semantics on two logical CPU devices.

Expected values were computed with the oracle (tensorflow-cpu 2.21, Keras 3.15) unless a
comment gives a closed form.
"""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

keras = ek.keras
mp = keras.mixed_precision


@pytest.fixture(autouse=True)
def _float32_policy():
    yield
    mp.set_global_policy(None)  # back to the floatx default, as before the test


@pytest.fixture(scope="module")
def mirrored():
    cpus = ek.config.list_physical_devices("CPU")
    ek.config.set_logical_device_configuration(
        cpus[0], [ek.config.LogicalDeviceConfiguration()] * 2
    )
    return ek.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


def _replica_id():
    return ek.cast(ek.distribute.get_replica_context().replica_id_in_sync_group, ek.float32)


# -- mixed precision ----------------------------------------------------------------------------
def test_dtype_policy_none_takes_the_global_policy():
    # Keras 3: DTypePolicy(name=None) uses the global policy's name.
    assert mp.DTypePolicy().name == "float32"
    mp.set_global_policy("mixed_float16")
    policy = mp.DTypePolicy(None)
    assert (policy.name, policy.compute_dtype, policy.variable_dtype) == (
        "mixed_float16",
        "float16",
        "float32",
    )


def test_layer_dtype_policy_setter():
    # Keras 3: `layer.dtype_policy = "mixed_float16"` -> float32, float16, output float16.
    layer = keras.layers.Dense(2)
    layer.dtype_policy = "mixed_float16"
    y = layer(np.ones((1, 3), "float32"))
    assert (layer.dtype, layer.compute_dtype, layer.dtype_policy.name) == (
        "float32",
        "float16",
        "mixed_float16",
    )
    assert y.dtype == ek.float16 and layer.kernel.dtype == ek.float32


def test_autocast_casts_every_floating_argument():
    # Keras 3 converts every argument: ['float16', 'float16', 'int32'], a Python float stays.
    mp.set_global_policy("mixed_float16")

    class Probe(keras.layers.Layer):
        def call(self, x, y=None, z=None):
            return [x.dtype.name, y.dtype.name, z.dtype.name if hasattr(z, "dtype") else z]

    out = Probe()(np.ones(2, "float32"), y=np.ones(2, "float64"), z=ek.constant([1, 2]))
    assert out == ["float16", "float16", "int32"]
    out = Probe()(np.ones(2, "float32"), ek.constant([1.0], ek.float64), z=2.5)
    assert out == ["float16", "float16", 2.5]


def test_autocast_second_argument_keeps_its_mask():
    mp.set_global_policy("mixed_float16")
    value = ek.constant([[1.0, 2.0]], ek.float32)
    value._keras_mask = ek.constant([[True, False]])

    class Probe(keras.layers.Layer):
        def call(self, x, v):
            return v.dtype, v._keras_mask

    dtype, mask = Probe()(np.ones((1, 2), "float32"), value)
    assert dtype == ek.float16
    np.testing.assert_array_equal(mask.numpy(), [[True, False]])


def test_float_weights_of_other_dtypes_read_as_the_compute_dtype():
    # Keras 3 under mixed_float16: int32 weight stays int32, a float64 weight reads float16.
    mp.set_global_policy("mixed_float16")

    class Layer(keras.layers.Layer):
        def build(self, shape):
            self.c = self.add_weight(shape=(), initializer="zeros", dtype="int32")
            self.v = self.add_weight(shape=(), initializer="zeros", dtype="float64")

        def call(self, x):
            return [self.c.dtype.name, self.v.dtype.name, (self.c + 1).dtype.name]

    layer = Layer()
    assert layer(np.ones((2, 4), "float32")) == ["int32", "float16", "int32"]
    assert layer.v.dtype == ek.float64


def test_autocast_false_layer_builds_from_array_inputs():
    # Keras 3 converts arrays to tensors even with autocast=False (no cast): x stays float32.
    mp.set_global_policy("mixed_float16")

    class Layer(keras.layers.Layer):
        def __init__(self):
            super().__init__(autocast=False)

        def build(self, shape):
            self.w = self.add_weight(shape=(shape[-1], 2), initializer="ones")

        def call(self, x):
            return x.dtype

    assert Layer()(np.ones((2, 4), "float32")) == ek.float32


@pytest.mark.parametrize("cls", ["LSTM", "GRU"])
def test_recurrent_layers_under_float16_policy(cls):
    # Keras 3: output float16 of shape (2, 3), weights float16 (orthogonal recurrent kernel).
    mp.set_global_policy("float16")
    layer = getattr(keras.layers, cls)(3)
    y = layer(np.ones((2, 3, 4), "float32"))
    assert y.dtype == ek.float16 and tuple(y.shape) == (2, 3)
    assert all(w.dtype == ek.float16 for w in layer.weights)


def test_orthogonal_float16_is_orthogonal():
    w = keras.initializers.Orthogonal(seed=1)((3, 3), dtype="float16")
    assert w.dtype == ek.float16
    a = w.numpy().astype(np.float32)
    np.testing.assert_allclose(a @ a.T, np.eye(3), atol=2e-3)  # closed form: Q Q^T = I


@pytest.mark.parametrize(
    ("policy", "expected"),
    # Keras 3: the output is in layer.dtype (the variable dtype): float32 under mixed_float16
    [("float16", ek.float16), ("float64", ek.float64), ("mixed_float16", ek.float32)],
)
def test_category_encoding_output_in_the_layer_dtype(policy, expected):
    mp.set_global_policy(policy)
    layer = keras.layers.CategoryEncoding(num_tokens=4, output_mode="one_hot")
    y = layer(np.array([1, 2]))
    assert y.dtype == expected
    np.testing.assert_array_equal(y.numpy(), [[0, 1, 0, 0], [0, 0, 1, 0]])
    counts = keras.layers.CategoryEncoding(num_tokens=4, output_mode="count")(
        np.array([[1, 2, 2]]), count_weights=np.array([[0.5, 1.0, 1.0]])
    )
    assert counts.dtype == expected
    np.testing.assert_array_equal(counts.numpy(), [[0.0, 0.5, 2.0, 0.0]])


# -- tf.distribute ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("aggregation", "expected"),
    # TF: 1.0 + deltas 1.0 (replica 0) and 2.0 (replica 1), aggregated
    [
        ("NONE", [2.0, 3.0]),
        ("SUM", [4.0, 4.0]),
        ("MEAN", [2.5, 2.5]),
        ("ONLY_FIRST_REPLICA", [2.0, 2.0]),
    ],
)
def test_mirrored_variable_update_in_replica_context_follows_aggregation(
    mirrored, aggregation, expected
):
    with mirrored.scope():
        v = ek.Variable(1.0, aggregation=getattr(ek.VariableAggregation, aggregation))
    assert v.synchronization == ek.VariableSynchronization.ON_WRITE
    assert v.aggregation == getattr(ek.VariableAggregation, aggregation)

    def step():
        v.assign_add(_replica_id() + 1.0)
        return v.read_value()

    out = mirrored.run(step)
    assert [float(x) for x in mirrored.experimental_local_results(v)] == expected
    assert [float(x) for x in mirrored.experimental_local_results(out)] == expected


def test_mirrored_variable_sum_assign_and_int_mean_error(mirrored):
    with mirrored.scope():
        v = ek.Variable(1.0, aggregation=ek.VariableAggregation.SUM)
        w = ek.Variable(1.0, aggregation=ek.VariableAggregation.SUM)
    mirrored.run(lambda: v.assign(_replica_id() + 7.0))
    assert [float(x) for x in mirrored.experimental_local_results(v)] == [15.0, 15.0]  # TF
    mirrored.run(lambda: w.assign_sub(_replica_id() + 1.0))
    assert [float(x) for x in mirrored.experimental_local_results(w)] == [-2.0, -2.0]  # TF
    with mirrored.scope(), pytest.raises(ValueError, match="aggregation=MEAN and a non-floating"):
        ek.Variable(1, aggregation=ek.VariableAggregation.MEAN)


def test_experimental_local_results_of_nested_values(mirrored):
    # TF: one structure per replica.
    out = mirrored.experimental_local_results((mirrored.run(_replica_id), ek.constant(5.0)))
    assert len(out) == 2 and all(isinstance(r, tuple) for r in out)
    assert [[float(x) for x in r] for r in out] == [[0.0, 5.0], [1.0, 5.0]]
    nested = mirrored.run(
        lambda: ek.distribute.get_replica_context().all_reduce(
            "MEAN", [_replica_id(), {"b": _replica_id() * 3}]
        )
    )
    local = mirrored.experimental_local_results(nested)
    assert [(float(r[0]), float(r[1]["b"])) for r in local] == [(0.5, 1.5), (0.5, 1.5)]


def test_replica_context_all_gather(mirrored):
    def gather():
        ctx = ek.distribute.get_replica_context()
        pair = ek.reshape(_replica_id(), [1, 1]) * ek.ones([1, 2])
        return ctx.all_gather([pair, {"k": ek.reshape(_replica_id(), [1])}], axis=0)

    for part in mirrored.experimental_local_results(mirrored.run(gather)):
        np.testing.assert_array_equal(part[0].numpy(), [[0.0, 0.0], [1.0, 1.0]])
        np.testing.assert_array_equal(part[1]["k"].numpy(), [0.0, 1.0])

    def gather_axis1():
        ctx = ek.distribute.get_replica_context()
        return ctx.all_gather(ek.reshape(_replica_id(), [1, 1]) * ek.ones([2, 1]), axis=1)

    for part in mirrored.experimental_local_results(mirrored.run(gather_axis1)):
        np.testing.assert_array_equal(part.numpy(), [[0.0, 1.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match=r"all_gather: axis 0"):  # TF: ValueError
        mirrored.run(lambda: ek.distribute.get_replica_context().all_gather(_replica_id(), 0))


def test_reduce_integer_mean_is_float64(mirrored):
    # TF: MEAN of int32 replica values 3 and 4 -> float64 3.5; along axis 0 of
    # [0, 0, 0] and [1, 1, 1] -> float64 0.5; SUM stays int32 (7).
    per = mirrored.run(lambda: ek.cast(_replica_id(), ek.int32) + 3)
    mean = mirrored.reduce("MEAN", per, axis=None)
    assert mean.dtype == ek.float64 and float(mean) == 3.5
    total = mirrored.reduce("SUM", per, axis=None)
    assert total.dtype == ek.int32 and int(total) == 7
    rows = mirrored.run(lambda: ek.cast(_replica_id(), ek.int32) * ek.ones([3], ek.int32))
    along = mirrored.reduce("MEAN", rows, axis=0)
    assert along.dtype == ek.float64 and float(along) == 0.5


def test_reduce_non_per_replica_value_along_an_axis(mirrored):
    # TF: each replica reduces its copy: SUM over axis 0 of [1, 2] on 2 replicas is 6,
    # MEAN is 1.5; SUM over axis -1 of [[1, 2]] is [6]; axis=None SUM still raises.
    value = ek.constant([1.0, 2.0])
    assert float(mirrored.reduce("SUM", value, axis=0)) == 6.0
    assert float(mirrored.reduce("MEAN", value, axis=0)) == 1.5
    np.testing.assert_array_equal(
        mirrored.reduce("SUM", ek.constant([[1.0, 2.0]]), axis=-1).numpy(), [6.0]
    )
    with pytest.raises(ValueError, match="not per-replica"):
        mirrored.reduce("SUM", value, axis=None)


@pytest.mark.parametrize("axis", [3, -3])
def test_reduce_bad_axis_raises_value_error(mirrored, axis):
    per = mirrored.run(lambda: _replica_id() * ek.ones([2]))
    with pytest.raises(ValueError, match=r"reduce: invalid reduction axis"):
        mirrored.reduce("SUM", per, axis=axis)


def test_mixing_strategies_raises_runtime_error(mirrored):
    # TF: RuntimeError "Mixing different tf.distribute.Strategy objects".
    other = ek.distribute.OneDeviceStrategy("/cpu:0")
    with mirrored.scope(), pytest.raises(RuntimeError, match="Mixing different"), other.scope():
        pass


def test_datasets_from_function_pads_the_last_step_with_empty_batches(mirrored):
    # TF: range(5).batch(2) over 2 replicas -> [[0, 1], [2, 3]], then [[4], []].
    steps = mirrored.distribute_datasets_from_function(
        lambda ctx: ek.data.Dataset.range(5).batch(2)
    )
    out = [[x.numpy().tolist() for x in mirrored.experimental_local_results(b)] for b in steps]
    assert out == [[[0, 1], [2, 3]], [[4], []]]
    # TF: a tuple element's empty part keeps its other dimensions, (0, 2).
    pairs = ek.data.Dataset.from_tensor_slices((np.arange(5.0), np.ones((5, 2)))).batch(2)
    last = list(mirrored.distribute_datasets_from_function(lambda ctx: pairs))[-1]
    shapes = [tuple(t.shape) for t in mirrored.experimental_local_results(last[1])]
    assert shapes == [(1, 2), (0, 2)]
    # TF: unbatched elements are not padded: range(3) gives one step, [0, 1].
    steps = mirrored.distribute_datasets_from_function(lambda ctx: ek.data.Dataset.range(3))
    out = [[int(x) for x in mirrored.experimental_local_results(b)] for b in steps]
    assert out == [[0, 1]]
