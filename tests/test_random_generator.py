"""`ek.random.Generator`, the stateless random ops and logical CPU devices (TensorFlow's
random-numbers guide).

Reference values: the Philox-4x32-10 known-answer vectors are Random123's (kat_vectors, the
paper's reference implementation); the Generator values are the ones `tf.random.Generator`'s
API documentation prints (``from_seed(1234)`` and ``from_seed(123, alg="philox")``, and the
state ``[2770, 0, 0]`` after six numbers). Statistical checks use 5-sigma bounds on 200 000
draws, so a correct sampler fails them with probability below 1e-6.
"""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime import philox
from eagerkernel.runtime.core import device as core_device
from eagerkernel.runtime.io.checkpoint import list_variables

N = 200_000


def f32(*values):
    return np.array(values, np.float32)


# -- Philox-4x32-10 ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("counter", "key", "expected"),
    [
        ([0, 0, 0, 0], [0, 0], [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]),
        ([0xFFFFFFFF] * 4, [0xFFFFFFFF] * 2, [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]),
        (
            [0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344],
            [0xA4093822, 0x299F31D0],
            [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1],
        ),
    ],
)
def test_philox_matches_random123_known_answers(counter, key, expected):
    c = sum(w << (32 * i) for i, w in enumerate(counter))
    k = key[0] | (key[1] << 32)
    assert philox.blocks(k, c, 1)[0].tolist() == expected


def test_philox_counter_carries_across_64_bits():
    start = (1 << 64) - 2
    run = philox.blocks(7, start, 4)
    one_by_one = [philox.blocks(7, start + i, 1)[0] for i in range(4)]
    np.testing.assert_array_equal(run, np.stack(one_by_one))
    # the carry reached the high word: block 2 is counter 2**64, not 0
    assert not np.array_equal(run[2], philox.blocks(7, 0, 1)[0])


# -- Generator: TensorFlow's documented numbers and the state --------------------------------------


def test_from_seed_gives_tensorflows_documented_numbers_and_state():
    g = ek.random.Generator.from_seed(1234)
    np.testing.assert_array_equal(g.state.numpy(), [1234, 0, 0])
    x = g.normal(shape=(2, 3))
    assert x.dtype == ek.float32 and x.shape == (2, 3)
    np.testing.assert_array_equal(
        x.numpy(), [f32(0.9356609, 1.0854305, -0.93788373), f32(-0.5061547, 1.3169702, 0.7137579)]
    )
    np.testing.assert_array_equal(g.state.numpy(), [2770, 0, 0])  # 1234 + 256 * 6
    g = ek.random.Generator.from_seed(123, alg="philox")
    np.testing.assert_array_equal(
        g.normal(shape=(2, 3)).numpy(),
        [f32(0.8673864, -0.29899067, -0.9310337), f32(-1.5828488, 1.2481191, -0.6770643)],
    )
    assert g.algorithm == 1 and ek.random.Algorithm.PHILOX.value == 1


def test_create_rng_state_cuts_ints_into_words_and_left_pads_vectors():
    np.testing.assert_array_equal(ek.random.create_rng_state(1234, "philox").numpy(), [1234, 0, 0])
    np.testing.assert_array_equal(
        ek.random.create_rng_state((1 << 64) + 5, "philox").numpy(), [5, 1, 0]
    )
    np.testing.assert_array_equal(
        ek.random.create_rng_state([12, 34], "philox").numpy(), [0, 12, 34]
    )
    # 2**64 - 1 is stored as the int64 -1
    assert ek.random.create_rng_state((1 << 64) - 1, "philox").numpy()[0] == -1


def test_same_seed_same_stream_and_every_draw_advances_the_state():
    a, b = ek.random.Generator.from_seed(7), ek.random.Generator.from_seed(7)
    first = [a.normal([3]).numpy() for _ in range(3)]
    second = [b.normal([3]).numpy() for _ in range(3)]
    for x, y in zip(first, second):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(first[0], first[1])
    np.testing.assert_array_equal(a.state.numpy(), [7 + 3 * 256 * 3, 0, 0])
    a.reset_from_seed(7)
    np.testing.assert_array_equal(a.normal([3]).numpy(), first[0])
    # skip(n) moves the state as a draw of n numbers does and returns the state before
    before = a.skip(5).numpy()
    np.testing.assert_array_equal(before, [7 + 768, 0, 0])
    np.testing.assert_array_equal(a.state.numpy(), [7 + 768 + 5 * 256, 0, 0])


def test_the_state_counter_carries_into_its_high_word():
    g = ek.random.Generator.from_state([-1, 0, 5], alg="philox")  # counter 2**64 - 1
    x = g.uniform_full_int([2], dtype=ek.int64).numpy().view(np.uint64)
    np.testing.assert_array_equal(g.state.numpy(), [511, 1, 5])  # 2**64 - 1 + 512
    words = philox.blocks(5, (1 << 64) - 1, 1)[0].astype(np.uint64)
    assert int(x[0]) == int(words[0]) | (int(words[1]) << 32)


def test_from_key_counter_and_copy_from():
    g = ek.random.Generator.from_key_counter(key=9, counter=[4, 0], alg="philox")
    np.testing.assert_array_equal(g.state.numpy(), [4, 0, 9])
    assert int(g.key.numpy()) == 9
    h = ek.random.Generator(copy_from=g)
    np.testing.assert_array_equal(h.normal([4]).numpy(), g.normal([4]).numpy())
    g.reset_from_key_counter(1, [2, 3])
    np.testing.assert_array_equal(g.state.numpy(), [2, 3, 1])


def test_from_non_deterministic_state_differs_between_generators():
    a = ek.random.Generator.from_non_deterministic_state()
    b = ek.random.Generator.from_non_deterministic_state()
    assert not np.array_equal(a.state.numpy(), b.state.numpy())
    assert a.normal([2]).shape == (2,)


def test_global_generator_is_kept_and_replaced():
    g = ek.random.get_global_generator()
    assert ek.random.get_global_generator() is g
    mine = ek.random.Generator.from_seed(3)
    ek.random.set_global_generator(mine)
    try:
        assert ek.random.get_global_generator() is mine
        assert ek.random.experimental.get_global_generator() is mine
    finally:
        ek.random.set_global_generator(g)
    with pytest.raises(TypeError, match=r"must be an ek\.random\.Generator, got int"):
        ek.random.set_global_generator(3)


# -- split -----------------------------------------------------------------------------------------


def test_split_keys_are_the_parents_int64_draws_and_streams_are_independent():
    g = ek.random.Generator.from_seed(1)
    keys = ek.random.Generator.from_seed(1).uniform_full_int([3], dtype=ek.int64).numpy()
    children = g.split(3)
    np.testing.assert_array_equal(g.state.numpy(), [1 + 3 * 256, 0, 0])
    for child, key in zip(children, keys):
        np.testing.assert_array_equal(child.state.numpy(), [0, 0, key])
    draws = np.stack([c.normal([N // 4]).numpy() for c in children] + [g.normal([N // 4]).numpy()])
    corr = np.corrcoef(draws)
    off = corr[~np.eye(4, dtype=bool)]
    assert np.abs(off).max() < 5 / np.sqrt(N // 4)
    with pytest.raises(ValueError, match="count must be >= 1, got 0"):
        g.split(0)


def test_make_seeds_feed_stateless_ops():
    g = ek.random.Generator.from_seed(5)
    seeds = g.make_seeds(2)
    assert seeds.shape == (2, 2) and seeds.dtype == ek.int64
    np.testing.assert_array_equal(seeds.numpy()[1], [0, 0])
    a = ek.random.stateless_normal([3], seed=seeds[:, 0])
    b = ek.random.stateless_normal([3], seed=seeds[:, 1])
    assert not np.array_equal(a.numpy(), b.numpy())


# -- distributions ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [ek.float32, ek.float64])
def test_normal_moments(dtype):
    x = ek.random.Generator.from_seed(11).normal([N], mean=2.0, stddev=3.0, dtype=dtype).numpy()
    assert x.dtype == dtype.as_numpy_dtype
    assert abs(x.mean() - 2.0) < 5 * 3.0 / np.sqrt(N)
    assert abs(x.std() - 3.0) < 5 * 3.0 / np.sqrt(2 * N)


@pytest.mark.parametrize("dtype", [ek.float32, ek.float64])
def test_truncated_normal_bounds_and_std(dtype):
    g = ek.random.Generator.from_seed(12)
    x = g.truncated_normal([N], mean=1.0, stddev=2.0, dtype=dtype).numpy()
    assert np.all(np.abs(x - 1.0) < 4.0 + 1e-5)
    # a normal truncated to two standard deviations has std 0.8796 of the untruncated one
    assert abs(x.std() / 2.0 - 0.87962566) < 0.005
    assert abs(x.mean() - 1.0) < 5 * 2.0 / np.sqrt(N)


def test_uniform_float_bounds_and_mean():
    g = ek.random.Generator.from_seed(13)
    x = g.uniform([N], minval=-2.0, maxval=6.0).numpy()
    assert x.min() >= -2.0 and x.max() < 6.0
    assert abs(x.mean() - 2.0) < 5 * 8 / np.sqrt(12 * N)
    y = g.uniform([N], dtype=ek.float64).numpy()
    assert y.dtype == np.float64 and y.min() >= 0 and y.max() < 1


@pytest.mark.parametrize("dtype", [ek.int32, ek.int64])
def test_uniform_int_bounds_and_full_int(dtype):
    g = ek.random.Generator.from_seed(14)
    x = g.uniform([N], minval=-3, maxval=4, dtype=dtype).numpy()
    assert x.dtype == dtype.as_numpy_dtype
    assert set(np.unique(x).tolist()) == set(range(-3, 4))
    counts = np.bincount(x + 3) / N
    assert np.abs(counts - 1 / 7).max() < 5 * np.sqrt(1 / 7 * 6 / 7 / N)
    full = g.uniform([N], minval=None, maxval=None, dtype=dtype).numpy()
    info = np.iinfo(dtype.as_numpy_dtype)
    assert full.min() < info.min // 2 and full.max() > info.max // 2


def test_binomial_mean_and_broadcast():
    g = ek.random.Generator.from_seed(15)
    x = g.binomial([N // 2, 2], counts=[10.0, 20.0], probs=[0.8]).numpy()
    assert x.dtype == np.int32
    np.testing.assert_allclose(x.mean(axis=0), [8.0, 16.0], atol=5 * np.sqrt(20 * 0.16 / N * 2))
    assert x.min() >= 0 and x[:, 0].max() <= 10
    again = ek.random.Generator.from_seed(15).binomial([N // 2, 2], [10.0, 20.0], [0.8])
    np.testing.assert_array_equal(again.numpy(), x)


# -- errors ---------------------------------------------------------------------------------------


def test_generator_errors():
    g = ek.random.Generator.from_seed(0)
    with pytest.raises(ValueError, match=r"minval and maxval must be both `None` or both non"):
        g.uniform([2], dtype=ek.int32)
    with pytest.raises(ek.errors.InvalidArgumentError, match="Need minval < maxval: got 5 >= 5"):
        g.uniform([2], minval=5, maxval=5, dtype=ek.int32)
    with pytest.raises(TypeError, match=r"Generator\.normal: dtype must be floating"):
        g.normal([2], dtype=ek.int32)
    with pytest.raises(ek.errors.InvalidArgumentError, match="shape must be non-negative"):
        g.normal([-1])
    with pytest.raises(TypeError, match="integer dtype must be int32, int64, uint32 or uint64"):
        g.uniform([2], minval=0, maxval=3, dtype=ek.int8)
    with pytest.raises(NotImplementedError, match='alg="threefry" is not implemented'):
        ek.random.Generator.from_seed(1, alg="threefry")
    with pytest.raises(ValueError, match="unsupported value 'mt19937'"):
        ek.random.Generator.from_seed(1, alg="mt19937")
    with pytest.raises(ValueError, match=r"must have shape \[3\], got shape \[2\]"):
        ek.random.Generator.from_state([1, 2], alg="philox")
    with pytest.raises(ValueError, match="state and alg must both be given"):
        ek.random.Generator(state=[1, 2, 3])
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"must broadcast to a shape"):
        g.binomial([2], counts=[3.0, 1.0, 2.0], probs=0.5)
    # a failed draw leaves the state alone
    np.testing.assert_array_equal(g.state.numpy(), [0, 0, 0])


# -- checkpoints, functions, saved models ----------------------------------------------------------


def test_checkpoint_round_trip_restores_the_stream(tmp_path):
    g = ek.random.Generator.from_seed(1)
    cp = ek.train.Checkpoint(generator=g)
    g.normal([])
    path = cp.write(str(tmp_path / "ckpt"))
    after = [g.normal([]).numpy() for _ in range(2)]
    cp.restore(path)
    np.testing.assert_array_equal([g.normal([]).numpy() for _ in range(2)], after)
    names = dict(list_variables(path))
    assert names["generator/_state_var/.ATTRIBUTES/VARIABLE_VALUE"] == [3]


def test_function_draws_fresh_numbers_each_call_as_eager_does():
    g = ek.random.Generator.from_seed(1)

    @ek.function
    def f():
        return g.normal([2])

    traced = [f().numpy() for _ in range(3)]
    eager = ek.random.Generator.from_seed(1)
    for x in traced:
        np.testing.assert_array_equal(x, eager.normal([2]).numpy())
    np.testing.assert_array_equal(g.state.numpy(), eager.state.numpy())


def test_stateless_ops_in_a_function_follow_the_seed_argument():
    @ek.function
    def f(seed):
        return ek.random.stateless_uniform([3], seed=seed)

    for seed in ([1, 2], [3, 4], [1, 2]):
        s = ek.constant(seed)
        np.testing.assert_array_equal(
            f(s).numpy(), ek.random.stateless_uniform([3], seed=seed).numpy()
        )


def test_saved_model_continues_the_generators_stream(tmp_path):
    class M(ek.Module):
        def __init__(self):
            super().__init__()
            self.g = ek.random.Generator.from_seed(0)

        @ek.function
        def __call__(self):
            return self.g.normal([])

    m = M()
    m()
    ek.saved_model.save(m, str(tmp_path / "m"))
    expected = [m().numpy() for _ in range(2)]
    loaded = ek.saved_model.load(str(tmp_path / "m"))
    np.testing.assert_array_equal([loaded().numpy() for _ in range(2)], expected)


# -- stateless ops ---------------------------------------------------------------------------------


def test_stateless_ops_are_functions_of_the_seed():
    a = ek.random.stateless_normal([2, 3], seed=[1, 2])
    np.testing.assert_array_equal(a.numpy(), ek.random.stateless_normal([2, 3], seed=[1, 2]))
    assert not np.array_equal(a.numpy(), ek.random.stateless_normal([2, 3], seed=[2, 1]).numpy())
    x = ek.random.stateless_truncated_normal([N], seed=[3, 4]).numpy()
    assert np.abs(x).max() < 2 and abs(x.std() - 0.87962566) < 0.005
    u = ek.random.stateless_uniform([N], seed=[5, 6], minval=1.0, maxval=3.0).numpy()
    assert u.min() >= 1 and u.max() < 3 and abs(u.mean() - 2) < 5 * 2 / np.sqrt(12 * N)
    i = ek.random.stateless_uniform([1000], seed=[5, 6], minval=0, maxval=3, dtype=ek.int64)
    assert set(np.unique(i.numpy()).tolist()) == {0, 1, 2}
    b = ek.random.stateless_binomial([4], seed=[1, 1], counts=5.0, probs=0.5)
    np.testing.assert_array_equal(b.numpy(), ek.random.stateless_binomial([4], [1, 1], 5.0, 0.5))


def test_stateless_normal_gradient_wrt_mean_and_stddev():
    mean, std = ek.Variable(1.0), ek.Variable(2.0)
    with ek.GradientTape() as tape:
        x = ek.random.stateless_normal([5], seed=[1, 2], mean=mean, stddev=std)
        loss = ek.reduce_sum(x)
    dm, ds = tape.gradient(loss, [mean, std])
    z = ek.random.stateless_normal([5], seed=[1, 2]).numpy()
    assert float(dm) == 5.0
    np.testing.assert_allclose(float(ds), z.sum(), rtol=1e-6)


def test_stateless_split_and_fold_in_follow_tensorflows_definitions():
    seeds = ek.random.experimental.stateless_split([1, 2], num=3)
    assert seeds.shape == (3, 2) and seeds.dtype == ek.int32
    np.testing.assert_array_equal(
        seeds.numpy(),
        ek.random.stateless_uniform([3, 2], [1, 2], minval=None, maxval=None, dtype=ek.int32),
    )
    folded = ek.random.experimental.stateless_fold_in([1, 2], 7)
    first = ek.random.stateless_uniform([], [1, 2], minval=None, maxval=None, dtype=ek.int32)
    np.testing.assert_array_equal(folded.numpy(), [int(first.numpy()), 7])


def test_stateless_categorical_frequencies():
    logits = np.log(np.array([[0.2, 0.3, 0.5], [0.9, 0.05, 0.05]], np.float32))
    x = ek.random.stateless_categorical(logits, N // 4, seed=[7, 8]).numpy()
    assert x.shape == (2, N // 4) and x.dtype == np.int64
    for row, p in zip(x, np.exp(logits)):
        freq = np.bincount(row, minlength=3) / row.size
        assert np.abs(freq - p).max() < 5 * np.sqrt(0.25 / row.size)
    again = ek.random.stateless_categorical(logits, N // 4, seed=[7, 8])
    np.testing.assert_array_equal(again.numpy(), x)


def test_stateless_errors():
    with pytest.raises(
        ek.errors.InvalidArgumentError, match=r"seed must have shape \[2\], not \[3\]"
    ):
        ek.random.stateless_normal([2], seed=[1, 2, 3])
    with pytest.raises(TypeError, match="seed must be int32 or int64, got float32"):
        ek.random.stateless_normal([2], seed=[1.0, 2.0])
    with pytest.raises(ValueError, match="minval and maxval must be both"):
        ek.random.stateless_uniform([2], seed=[1, 2], maxval=3, minval=None, dtype=ek.int32)
    with pytest.raises(TypeError, match="dtype must be int32 or int64"):
        ek.random.stateless_categorical([[0.0, 1.0]], 2, seed=[1, 2], dtype=ek.float32)
    with pytest.raises(ek.errors.InvalidArgumentError, match="logits must be 2-D"):
        ek.random.stateless_categorical([0.0, 1.0], 2, seed=[1, 2])


# -- logical CPU devices and strategies ------------------------------------------------------------


@pytest.fixture
def three_cpus():
    cpu = ek.config.list_physical_devices("CPU")[0]
    core_device.logical_cpus["used"] = False
    ek.config.set_logical_device_configuration(
        cpu, [ek.config.LogicalDeviceConfiguration() for _ in range(3)]
    )
    yield cpu
    core_device.logical_cpus["used"] = False
    core_device.set_logical_cpus(1)


def test_logical_cpus_are_listed_and_placeable(three_cpus):
    assert ek.config.experimental.VirtualDeviceConfiguration is ek.config.LogicalDeviceConfiguration
    assert len(ek.config.get_logical_device_configuration(three_cpus)) == 3
    assert len(ek.config.list_physical_devices("CPU")) == 1
    names = [d.name for d in ek.config.list_logical_devices("CPU")]
    assert names == ["/device:CPU:0", "/device:CPU:1", "/device:CPU:2"]
    with ek.device("cpu:2"):
        x = ek.constant([1.0, 2.0]) * 2.0
    assert x.device.endswith("device:CPU:2")
    np.testing.assert_array_equal(x.numpy(), [2.0, 4.0])
    # the same configuration again is fine; another one, now that they are in use, is not
    ek.config.experimental.set_virtual_device_configuration(
        three_cpus, [ek.config.LogicalDeviceConfiguration() for _ in range(3)]
    )
    with pytest.raises(RuntimeError, match="Virtual devices cannot be modified after being"):
        ek.config.set_logical_device_configuration(
            three_cpus, [ek.config.LogicalDeviceConfiguration()]
        )


def test_logical_cpu_configuration_errors(three_cpus):
    with pytest.raises(ValueError, match="Setting memory limit on CPU virtual devices"):
        ek.config.set_logical_device_configuration(
            three_cpus, [ek.config.LogicalDeviceConfiguration(memory_limit=100)]
        )
    with pytest.raises(ValueError, match="Unrecognized device"):
        ek.config.set_logical_device_configuration("cpu:0", [])


def _replica_value(counter: int, replica: int) -> np.float32:
    """The first normal of a from_seed(1) draw at ``counter`` on ``replica``: the key (0)
    hashed with the replica id by one Philox block, as TensorFlow's Generator does."""
    words = philox.blocks(0, replica, 1)[0]
    key = int(words[0]) | (int(words[1]) << 32)
    return philox.fill("normal", np.float32, key, counter, 1)[0]


def test_generator_in_a_strategy_scope_gives_each_replica_its_stream(three_cpus):
    strat = ek.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1"])
    with strat.scope():
        g = ek.random.Generator.from_seed(1)
        first = strat.run(lambda: g.normal([]))
        second = strat.run(lambda: g.normal([]))
    for call, counter in ((first, 1), (second, 257)):
        values = [float(v.numpy()) for v in call.values]
        assert values == [_replica_value(counter, r) for r in range(2)]
    np.testing.assert_array_equal(g.state.numpy(), [513, 0, 0])


def test_generator_made_outside_a_strategy_is_shared_by_its_replicas(three_cpus):
    g = ek.random.Generator.from_seed(1)
    strat = ek.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1"])
    with strat.scope():
        out = strat.run(lambda: g.normal([]))
    stream = ek.random.Generator.from_seed(1)
    expected = sorted(float(stream.normal([]).numpy()) for _ in range(2))
    assert sorted(float(v.numpy()) for v in out.values) == expected


def test_generator_checkpoint_restores_into_more_replicas(three_cpus, tmp_path):
    strat2 = ek.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1"])
    with strat2.scope():
        g = ek.random.Generator.from_seed(1)
        cp = ek.train.Checkpoint(my_generator=g)
        strat2.run(lambda: g.normal([]))
        path = cp.write(str(tmp_path / "ckpt"))
        after = strat2.run(lambda: g.normal([]))
    strat3 = ek.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1", "cpu:2"])
    with strat3.scope():
        g3 = ek.random.Generator.from_seed(1)
        ek.train.Checkpoint(my_generator=g3).restore(path)
        restored = strat3.run(lambda: g3.normal([]))
    got = [float(v.numpy()) for v in restored.values]
    assert got[:2] == [float(v.numpy()) for v in after.values]
    assert got[2] not in got[:2]


def test_a_module_checkpoints_its_generator_but_does_not_list_its_state(tmp_path):
    class M(ek.Module):
        def __init__(self):
            super().__init__()
            self.g = ek.random.Generator.from_seed(4)
            self.w = ek.Variable(1.0)

    m = M()
    assert [v.name for v in m.variables] == ["Variable:0"]
    assert not isinstance(m.g, ek.Module)
    path = ek.train.Checkpoint(model=m).write(str(tmp_path / "ckpt"))
    assert dict(list_variables(path))["model/g/_state_var/.ATTRIBUTES/VARIABLE_VALUE"] == [3]
    expected = m.g.normal([2]).numpy()
    ek.train.Checkpoint(model=m).restore(path)
    np.testing.assert_array_equal(m.g.normal([2]).numpy(), expected)
