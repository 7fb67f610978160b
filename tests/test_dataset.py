"""ek.data.Dataset: sources and transformations against tf.data's documented examples and
semantics, cardinality and element specs, determinism of shuffles, the index fast path against
the element-wise path, caching, and property tests.

Thread lifetime, worker errors, interpreter exit and caches (which outlive a pass, and a
process) are in test_dataset_threads.py.
"""

from __future__ import annotations

import collections
import itertools
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerkernel as ek
from eagerkernel.runtime.data import plan
from eagerkernel.runtime.data.shuffle import steady_state

Dataset = ek.data.Dataset


def py(value):
    """Dataset output as plain Python values (lists, tuples, dicts, numbers)."""
    if isinstance(value, tuple):
        return tuple(py(v) for v in value)
    if isinstance(value, dict):
        return {k: py(v) for k, v in value.items()}
    if isinstance(value, ek.Tensor):
        value = value.numpy()
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    return value


def values(ds) -> list:
    return [py(e) for e in ds.as_numpy_iterator()]


@pytest.fixture
def element_wise():
    """Runs the test with the index fast path switched off."""
    plan.enabled[0] = False
    yield
    plan.enabled[0] = True


@pytest.fixture(autouse=True)
def _no_global_seed():
    yield
    ek.random.set_seed(None)


# -- sources ------------------------------------------------------------------------------------


def test_from_tensor_slices_list_is_one_component():
    ds = Dataset.from_tensor_slices([1, 2, 3])
    assert values(ds) == [1, 2, 3]
    assert ds.element_spec == ek.data.TensorSpec((), ek.int32)
    ds = Dataset.from_tensor_slices([[1, 2], [3, 4]])
    assert values(ds) == [[1, 2], [3, 4]]


def test_from_tensor_slices_nested_structures():
    # TF docs: two tensors combined as one element; dictionary structure is kept.
    ds = Dataset.from_tensor_slices(([1, 2], [3, 4], [5, 6]))
    assert values(ds) == [(1, 3, 5), (2, 4, 6)]
    ds = Dataset.from_tensor_slices({"a": [1, 2], "b": [3, 4]})
    assert values(ds) == [{"a": 1, "b": 3}, {"a": 2, "b": 4}]
    ds = Dataset.from_tensor_slices(((np.arange(2), np.ones((2, 3))), {"z": [7.0, 8.0]}))
    (a, b), d = next(iter(ds))
    assert a.dtype == ek.int64 and b.shape == (3,) and d["z"].dtype == ek.float32
    Point = collections.namedtuple("Point", "x y")
    first = next(iter(Dataset.from_tensor_slices(Point([1, 2], [3, 4]))))
    assert type(first) is Point and py(first) == (1, 3)


def test_from_tensor_slices_keeps_numpy_dtypes_and_tensors():
    x = np.arange(6, dtype=np.uint8).reshape(3, 2)
    ds = Dataset.from_tensor_slices(x)
    assert ds.element_spec == ek.data.TensorSpec((2,), ek.uint8)
    assert values(Dataset.from_tensor_slices(ek.constant([1.5, 2.5]))) == [1.5, 2.5]


def test_from_tensor_slices_errors():
    with pytest.raises(ValueError, match=r"\(3,\), \(2,\)"):
        Dataset.from_tensor_slices(([1, 2, 3], [1, 2]))
    with pytest.raises(ValueError, match="scalar"):
        Dataset.from_tensor_slices(5)


def test_from_tensors():
    ds = Dataset.from_tensors([1, 2, 3])
    assert values(ds) == [[1, 2, 3]] and len(ds) == 1
    ds = Dataset.from_tensors(([1, 2, 3], "ignored" and [4.0]))
    assert values(ds) == [([1, 2, 3], [4.0])]
    assert ds.element_spec[0].shape == (3,)


def test_from_generator_is_called_for_each_pass():
    calls = []

    def gen():
        calls.append(1)
        yield from range(3)

    ds = Dataset.from_generator(gen, output_types=ek.int64)
    assert values(ds) == [0, 1, 2] and values(ds) == [0, 1, 2]
    assert len(calls) == 2
    assert int(ds.cardinality()) == ek.data.UNKNOWN_CARDINALITY
    assert ds.element_spec.shape.rank is None


def test_from_generator_documented_example():
    def gen():
        for i in itertools.count(1):
            yield (i, [1] * i)

    ds = Dataset.from_generator(
        gen,
        output_signature=(
            ek.data.TensorSpec(shape=(), dtype=ek.int32),
            ek.data.TensorSpec(shape=(None,), dtype=ek.int32),
        ),
    )
    assert values(ds.take(3)) == [(1, [1]), (2, [1, 1]), (3, [1, 1, 1])]
    first = next(iter(ds))
    assert first[1].dtype == ek.int32


def test_from_generator_types_shapes_and_args():
    def gen(n, scale):
        assert isinstance(n, np.integer)
        for i in range(n):
            yield {"x": [i * scale, i], "y": i}

    ds = Dataset.from_generator(
        gen,
        output_types={"x": ek.float32, "y": ek.int64},
        output_shapes={"x": (2,), "y": ()},
        args=(3, 2.0),
    )
    assert values(ds) == [
        {"x": [0.0, 0.0], "y": 0},
        {"x": [2.0, 1.0], "y": 1},
        {"x": [4.0, 2.0], "y": 2},
    ]
    assert ds.element_spec["x"] == ek.data.TensorSpec((2,), ek.float32)


def test_from_generator_errors():
    with pytest.raises(TypeError, match="output_signature"):
        Dataset.from_generator(lambda: iter([1]))
    ds = Dataset.from_generator(lambda: iter([(1, 2)]), output_types=(ek.int32,))
    with pytest.raises(TypeError, match="expected structure"):
        list(ds)
    ds = Dataset.from_generator(lambda: iter([[1, 2]]), output_types=ek.int32, output_shapes=(3,))
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        list(ds)
    ds = Dataset.from_generator(lambda: iter([1.5]), output_types=ek.int32)
    with pytest.raises(TypeError, match="float64"):
        list(ds)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((5,), [0, 1, 2, 3, 4]),
        ((2, 5), [2, 3, 4]),
        ((1, 5, 2), [1, 3]),
        ((1, 5, -2), []),
        ((5, 1), []),
        ((5, 1, -2), [5, 3]),
    ],
)
def test_range_documented_examples(args, expected):
    ds = Dataset.range(*args)
    assert values(ds) == expected
    assert len(ds) == len(expected)
    assert ds.element_spec == ek.data.TensorSpec((), ek.int64)


def test_range_output_type_and_errors():
    assert next(iter(Dataset.range(2, 5, output_type=ek.int32))).dtype == ek.int32
    assert values(Dataset.range(1, 5, 2, output_type=ek.float32)) == [1.0, 3.0]
    with pytest.raises(ValueError, match="step"):
        Dataset.range(1, 5, 0)
    with pytest.raises(TypeError):
        Dataset.range()
    with pytest.raises(TypeError, match="integer"):
        Dataset.range(2.5)


def test_zip_documented_examples():
    a = Dataset.range(1, 4)
    b = Dataset.range(4, 7)
    assert values(Dataset.zip(a, b)) == [(1, 4), (2, 5), (3, 6)]
    assert values(Dataset.zip(b, a)) == [(4, 1), (5, 2), (6, 3)]
    c = Dataset.range(7, 13).batch(2)
    assert values(Dataset.zip(a, b, c)) == [(1, 4, [7, 8]), (2, 5, [9, 10]), (3, 6, [11, 12])]
    d = Dataset.range(13, 15)
    assert values(Dataset.zip(a, d)) == [(1, 13), (2, 14)]
    assert values(Dataset.zip((a, (b, d)))) == [(1, (4, 13)), (2, (5, 14))]
    assert values(Dataset.zip({"x": a, "y": d})) == [{"x": 1, "y": 13}, {"x": 2, "y": 14}]
    with pytest.raises(TypeError, match="tuple"):
        Dataset.zip([a, b])
    with pytest.raises(TypeError, match="Datasets"):
        Dataset.zip((a, 3))


# -- map and filter -----------------------------------------------------------------------------


def test_map_documented_example_and_unpacking():
    assert values(Dataset.range(1, 6).map(lambda x: x + 1)) == [2, 3, 4, 5, 6]
    ds = Dataset.from_tensor_slices(([1, 2], [3, 4], [5, 6]))
    assert values(ds.map(lambda x, y, z: x + y + z)) == [9, 12]
    ds = Dataset.from_tensor_slices({"a": [1, 2], "b": [3, 4]})
    assert values(ds.map(lambda d: d["a"] * d["b"])) == [3, 8]
    Point = collections.namedtuple("Point", "x y")
    ds = Dataset.from_tensor_slices(Point([1, 2], [3, 4]))
    assert values(ds.map(lambda p: p.x - p.y)) == [-2, -2]  # a namedtuple is one argument


def test_map_outputs():
    ds = Dataset.range(3)
    # A list is read as a tuple (tf.data does the same), inner lists become tensors.
    out = ds.map(lambda x: [x, x * 2])
    assert values(out) == [(0, 0), (1, 2), (2, 4)]
    assert values(ds.map(lambda x: (x, [1, 2]))) == [(0, [1, 2]), (1, [1, 2]), (2, [1, 2])]
    assert values(ds.map(lambda x: np.float64(int(x)) / 2)) == [0.0, 0.5, 1.0]
    assert values(ds.map(lambda x: {"k": x})) == [{"k": 0}, {"k": 1}, {"k": 2}]
    with pytest.raises(TypeError, match="forget to return"):
        list(ds.map(lambda x: None))
    with pytest.raises(TypeError, match="callable"):
        ds.map(3)


def test_map_function_receives_tensors_it_can_use_eagerly(capsys):
    seen = []

    def f(x):
        assert isinstance(x, ek.Tensor)
        print("got", int(x))
        seen.append(int(x))
        if x > 1:  # Python branching on a tensor
            return x * 10
        return x

    assert values(Dataset.range(3).map(f)) == [0, 1, 20]
    assert "got 2" in capsys.readouterr().out
    assert seen == [0, 1, 2]


def test_map_is_not_recorded_on_the_tape():
    w = ek.Variable(2.0)
    ds = Dataset.from_tensor_slices([1.0, 2.0]).map(lambda x: x * w)
    with ek.GradientTape() as tape:
        total = ek.constant(0.0)
        for x in ds:
            total = total + x
    assert tape.gradient(total, w) is None  # dataset functions are not differentiated, as TF


def test_parallel_map_keeps_order_unless_nondeterministic():
    ds = Dataset.range(50)
    assert values(ds.map(lambda x: x * 2, num_parallel_calls=4)) == list(range(0, 100, 2))
    assert values(ds.map(lambda x: x, num_parallel_calls=ek.data.AUTOTUNE)) == list(range(50))
    out = values(ds.map(lambda x: x, num_parallel_calls=3, deterministic=False))
    assert sorted(out) == list(range(50))
    with pytest.raises(ValueError, match="num_parallel_calls"):
        ds.map(lambda x: x, num_parallel_calls=0)


def test_filter_documented_examples():
    ds = Dataset.from_tensor_slices([1, 2, 3])
    assert values(ds.filter(lambda x: x < 3)) == [1, 2]
    assert values(ds.filter(lambda x: ek.equal(x, 1))) == [1]
    assert values(ds.filter(lambda x: int(x) != 2)) == [1, 3]  # a Python bool is accepted
    with pytest.raises(ValueError, match="bool scalar"):
        list(ds.filter(lambda x: x))
    with pytest.raises(ValueError, match="bool scalar"):
        list(ds.batch(2).filter(lambda x: x > 0))


# -- shuffle ------------------------------------------------------------------------------------


def test_shuffle_is_a_permutation_and_reshuffles_each_iteration():
    ds = Dataset.range(100).shuffle(100, seed=3)
    a, b = values(ds), values(ds)
    assert sorted(a) == sorted(b) == list(range(100))
    assert a != b
    fixed = Dataset.range(100).shuffle(100, seed=3, reshuffle_each_iteration=False)
    assert values(fixed) == values(fixed)


def test_shuffle_same_seed_same_sequence_of_orders():
    def orders(**kw):
        ds = Dataset.range(30).shuffle(10, **kw)
        return [values(ds) for _ in range(3)]

    assert orders(seed=7) == orders(seed=7)
    assert orders(seed=7) != orders(seed=8)
    ek.random.set_seed(5)
    first = orders()
    ek.random.set_seed(5)
    assert orders() == first  # unseeded shuffles follow the global seed
    ek.random.set_seed(6)
    assert orders() != first
    ek.random.set_seed(None)
    assert orders() != orders()  # no seed at all: fresh randomness


def test_shuffle_with_global_seed_gives_distinct_ops_distinct_orders():
    ek.random.set_seed(1)
    a, b = Dataset.range(20).shuffle(20), Dataset.range(20).shuffle(20)
    assert values(a) != values(b)


def test_shuffle_buffer_semantics():
    # buffer_size 1 keeps the order; element k can only come out once it has entered the
    # buffer, i.e. at position >= k - buffer_size + 1.
    assert values(Dataset.range(10).shuffle(1)) == list(range(10))
    for seed in range(20):
        out = values(Dataset.range(50).shuffle(5, seed=seed))
        assert all(k <= p + 4 for p, k in enumerate(out))
        assert out[0] < 5


def test_shuffle_is_uniform():
    ds = Dataset.range(3).shuffle(3, seed=11)
    counts = collections.Counter(tuple(values(ds)) for _ in range(1200))
    assert len(counts) == 6
    assert all(150 < c < 250 for c in counts.values()), counts  # 200 expected each


def test_shuffle_errors():
    with pytest.raises(ValueError, match="buffer_size must be greater than zero"):
        Dataset.range(3).shuffle(0)


def test_shuffle_under_repeat_reshuffles_each_repetition():
    out = values(Dataset.range(20).shuffle(20, seed=1).repeat(2))
    assert sorted(out[:20]) == sorted(out[20:]) == list(range(20))
    assert out[:20] != out[20:]


# -- fast path == element-wise path -------------------------------------------------------------


def _pipelines(x, buffer_size, batch_size, seed):
    ds = Dataset.from_tensor_slices((x, x * 10))
    return [
        ds.shuffle(buffer_size, seed=seed).batch(batch_size),
        ds.shuffle(buffer_size, seed=seed),
        ds.repeat(2).shuffle(buffer_size, seed=seed).take(len(x) + 3).batch(batch_size),
        ds.skip(2).shuffle(buffer_size, seed=seed).repeat(2).batch(batch_size, True),
        ds.take(7).batch(batch_size),
        Dataset.range(len(x)).shuffle(buffer_size, seed=seed).batch(batch_size),
    ]


def _run(pipelines):
    return [[py(e) for e in p] for p in pipelines]


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(0, 60),
    buffer_size=st.integers(1, 70),
    batch_size=st.integers(1, 9),
    seed=st.integers(0, 2**31),
)
def test_fast_path_gives_the_element_wise_order(n, buffer_size, batch_size, seed):
    x = np.arange(n, dtype=np.int64)
    fast = _run(_pipelines(x, buffer_size, batch_size, seed))
    plan.enabled[0] = False
    try:
        slow = _run(_pipelines(x, buffer_size, batch_size, seed))
    finally:
        plan.enabled[0] = True
    assert fast == slow


def test_fast_path_is_used_and_matches_a_map_in_between():
    x = np.arange(1000).reshape(500, 2)
    y = np.arange(500)
    fast = Dataset.from_tensor_slices((x, y)).shuffle(100, seed=4).batch(32)
    assert fast._inputs[0]._plan() is not None
    slow = Dataset.from_tensor_slices((x, y)).map(lambda a, b: (a, b)).shuffle(100, seed=4)
    slow = slow.batch(32)
    assert slow._inputs[0]._plan() is None
    for (a1, b1), (a2, b2) in zip(fast, slow, strict=True):
        np.testing.assert_array_equal(a1.numpy(), a2.numpy())
        np.testing.assert_array_equal(b1.numpy(), b2.numpy())


@settings(max_examples=50, deadline=None)
@given(
    buf=st.lists(st.integers(0, 100), min_size=1, max_size=20),
    data=st.data(),
)
def test_steady_state_matches_the_sequential_loop(buf, data):
    b = np.array(buf, dtype=np.int64)
    m = data.draw(st.integers(1, 40))
    x = np.arange(1000, 1000 + m, dtype=np.int64)
    j = np.array(data.draw(st.lists(st.integers(0, len(b) - 1), min_size=m, max_size=m)))
    expected_buf = b.tolist()
    expected = []
    for k in range(m):
        expected.append(expected_buf[j[k]])
        expected_buf[j[k]] = int(x[k])
    out = steady_state(b, x, j)
    assert out.tolist() == expected and b.tolist() == expected_buf


# -- batching -----------------------------------------------------------------------------------


def test_batch_documented_examples():
    assert values(Dataset.range(8).batch(3)) == [[0, 1, 2], [3, 4, 5], [6, 7]]
    assert values(Dataset.range(8).batch(3, drop_remainder=True)) == [[0, 1, 2], [3, 4, 5]]
    assert Dataset.range(8).batch(3).element_spec.shape.as_list() == [None]
    assert Dataset.range(8).batch(3, True).element_spec.shape.as_list() == [3]
    ds = Dataset.from_tensor_slices({"a": np.ones((5, 2)), "b": [1, 2, 3, 4, 5]}).batch(2)
    assert [b["a"].shape for b in ds] == [(2, 2), (2, 2), (1, 2)]
    assert values(Dataset.range(5).batch(2, num_parallel_calls=2, deterministic=True))[0] == [0, 1]


def test_batch_errors():
    message = "batch: batch_size must be positive. Received: batch_size=0"
    with pytest.raises(ValueError, match=re.escape(message)):
        Dataset.range(3).batch(0)
    ragged = Dataset.range(1, 4).map(lambda x: ek.fill([x], x))
    with pytest.raises(ValueError, match=r"different shapes in component 0.*\(1,\).*\(2,\)"):
        list(ragged.batch(2))
    mixed = Dataset.range(2).map(lambda x: ek.cast(x, ek.int32) if int(x) else x)
    with pytest.raises(TypeError, match="dtypes"):
        list(mixed.batch(2))


def test_padded_batch_documented_examples():
    A = Dataset.range(1, 5, output_type=ek.int32).map(lambda x: ek.fill([x], x))
    assert values(A.padded_batch(2)) == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]
    assert values(A.padded_batch(2, padded_shapes=5)) == [
        [[1, 0, 0, 0, 0], [2, 2, 0, 0, 0]],
        [[3, 3, 3, 0, 0], [4, 4, 4, 4, 0]],
    ]
    assert values(A.padded_batch(2, padded_shapes=5, padding_values=-1)) == [
        [[1, -1, -1, -1, -1], [2, 2, -1, -1, -1]],
        [[3, 3, 3, -1, -1], [4, 4, 4, 4, -1]],
    ]
    elements = [([1, 2, 3], [10]), ([4, 5], [11, 12])]
    ds = Dataset.from_generator(lambda: iter(elements), (ek.int32, ek.int32))
    ds = ds.padded_batch(2, padded_shapes=([4], [None]), padding_values=(-1, 100))
    assert values(ds) == [([[1, 2, 3, -1], [4, 5, -1, -1]], [[10, 100], [11, 12]])]
    E = Dataset.zip((A, A)).padded_batch(2, padding_values=-1)
    assert values(E) == [
        ([[1, -1], [2, 2]], [[1, -1], [2, 2]]),
        ([[3, 3, 3, -1], [4, 4, 4, 4]], [[3, 3, 3, -1], [4, 4, 4, 4]]),
    ]
    assert A.padded_batch(2, padded_shapes=5).element_spec.shape.as_list() == [None, 5]


def test_padded_batch_errors():
    A = Dataset.range(1, 5).map(lambda x: ek.fill([x], x))
    with pytest.raises(ek.errors.DataLossError, match="smaller size"):
        list(A.padded_batch(4, padded_shapes=[2]))
    with pytest.raises(ValueError, match="rank"):
        list(A.padded_batch(2, padded_shapes=[2, 2]))
    with pytest.raises(ValueError, match="batch_size"):
        A.padded_batch(-1)


def test_unbatch_documented_example():
    elements = [[1, 2, 3], [1, 2], [1, 2, 3, 4]]
    ds = Dataset.from_generator(lambda: elements, ek.int64).unbatch()
    assert values(ds) == [1, 2, 3, 1, 2, 1, 2, 3, 4]
    ds = Dataset.from_tensor_slices((np.arange(6).reshape(3, 2), np.arange(3)))
    assert values(ds.batch(2).unbatch()) == values(ds)
    with pytest.raises(ValueError, match="scalar"):
        list(Dataset.range(3).unbatch())


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 40), batch_size=st.integers(1, 10), drop=st.booleans())
def test_batch_unbatch_round_trip(n, batch_size, drop):
    x = np.arange(n * 2).reshape(n, 2)
    ds = Dataset.from_tensor_slices((x, np.arange(n)))
    out = values(ds.batch(batch_size, drop).unbatch())
    kept = n - n % batch_size if drop else n
    assert out == values(ds)[:kept]
    assert len(ds.batch(batch_size, drop)) == len(list(ds.batch(batch_size, drop)))


# -- counting -----------------------------------------------------------------------------------


def test_repeat_take_skip_documented_examples():
    ds = Dataset.from_tensor_slices([1, 2, 3])
    assert values(ds.repeat(3)) == [1, 2, 3] * 3
    assert values(ds.repeat().take(7)) == [1, 2, 3, 1, 2, 3, 1]
    assert values(Dataset.range(10).take(3)) == [0, 1, 2]
    assert values(Dataset.range(10).take(-1)) == list(range(10))
    assert values(Dataset.range(10).take(0)) == []
    assert values(Dataset.range(10).skip(7)) == [7, 8, 9]
    assert values(Dataset.range(10).skip(-1)) == []
    assert values(Dataset.range(0).repeat()) == []  # repeating nothing ends
    assert values(Dataset.range(5).filter(lambda x: x > 9).repeat()) == []


def test_take_does_not_pull_more_than_it_needs():
    pulled = []

    def gen():
        for i in range(10):
            pulled.append(i)
            yield i

    ds = Dataset.from_generator(gen, output_types=ek.int64)
    assert values(ds.take(3)) == [0, 1, 2] and pulled == [0, 1, 2]


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 30), k=st.integers(-1, 35))
def test_take_skip_partition(n, k):
    for ds in (Dataset.range(n), Dataset.range(n).map(lambda x: x)):
        head, tail = values(ds.take(k)), values(ds.skip(k))
        if k < 0:
            assert head == list(range(n)) and tail == []
        else:
            assert head + tail == list(range(n))
        assert len(ds.take(k)) == len(head) and len(ds.skip(k)) == len(tail)


def test_enumerate_documented_examples():
    ds = Dataset.from_tensor_slices([1, 2, 3]).enumerate(start=5)
    assert values(ds) == [(5, 1), (6, 2), (7, 3)]
    assert next(iter(ds))[0].dtype == ek.int64
    ds = Dataset.from_tensor_slices([(7, 8), (9, 10)]).enumerate()
    assert values(ds) == [(0, [7, 8]), (1, [9, 10])]


def test_concatenate_documented_examples():
    a, b = Dataset.range(1, 4), Dataset.range(4, 8)
    ds = a.concatenate(b)
    assert values(ds) == [1, 2, 3, 4, 5, 6, 7] and len(ds) == 7
    with pytest.raises(TypeError, match="incompatible"):
        a.concatenate(Dataset.zip((a, b)))
    with pytest.raises(TypeError, match="incompatible"):
        a.concatenate(Dataset.from_tensor_slices([1.0]))
    varying = Dataset.from_tensors([1, 2]).concatenate(Dataset.from_tensors([3]))
    assert varying.element_spec.shape.as_list() == [None]


def test_shard_reduce_apply_get_single_element():
    assert (
        values(Dataset.range(10).shard(3, 2)) == [2, 5, 8]
        and len(Dataset.range(10).shard(3, 2)) == 3
    )
    with pytest.raises(ValueError, match="index"):
        Dataset.range(3).shard(2, 2)
    assert int(Dataset.range(5).reduce(np.int64(0), lambda x, _: x + 1)) == 5
    s, c = Dataset.range(4).reduce((np.int64(0), 0), lambda st, x: (st[0] + x, st[1] + 1))
    assert (int(s), int(c)) == (6, 4)
    assert values(Dataset.range(10).apply(lambda ds: ds.skip(8))) == [8, 9]
    with pytest.raises(TypeError, match="Dataset"):
        Dataset.range(3).apply(lambda ds: 3)
    assert int(Dataset.range(5, 6).get_single_element()) == 5
    with pytest.raises(ValueError, match="more than one"):
        Dataset.range(2).get_single_element()


# -- window and interleave ----------------------------------------------------------------------


def test_window_documented_examples():
    def windows(ds):
        return [values(w) for w in ds]

    assert windows(Dataset.range(7).window(3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert windows(Dataset.range(7).window(3, drop_remainder=True)) == [[0, 1, 2], [3, 4, 5]]
    assert windows(Dataset.range(7).window(3, 2, drop_remainder=True)) == [
        [0, 1, 2],
        [2, 3, 4],
        [4, 5, 6],
    ]
    assert windows(Dataset.range(7).window(3, 1, 2, drop_remainder=True)) == [
        [0, 2, 4],
        [1, 3, 5],
        [2, 4, 6],
    ]
    ds = Dataset.from_tensor_slices(([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])).window(2)
    assert [tuple(values(c) for c in w) for w in ds] == [
        ([1, 2], [6, 7]),
        ([3, 4], [8, 9]),
        ([5], [10]),
    ]
    ds = Dataset.from_tensor_slices({"a": [1, 2, 3]}).window(2)
    assert [{k: values(v) for k, v in w.items()} for w in ds] == [{"a": [1, 2]}, {"a": [3]}]
    assert isinstance(ds.element_spec["a"], ek.data.DatasetSpec)
    batched = Dataset.range(7).window(3, 1, drop_remainder=True).flat_map(lambda w: w.batch(3))
    assert values(batched)[:2] == [[0, 1, 2], [1, 2, 3]]
    with pytest.raises(TypeError, match="Datasets"):
        list(Dataset.range(3).window(2).as_numpy_iterator())
    with pytest.raises(ValueError, match="shift"):
        Dataset.range(3).window(2, 0)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(0, 25),
    size=st.integers(1, 6),
    shift=st.integers(1, 6),
    stride=st.integers(1, 3),
    drop=st.booleans(),
)
def test_window_counts_and_contents(n, size, shift, stride, drop):
    ds = Dataset.range(n).window(size, shift, stride, drop)
    got = [values(w) for w in ds]
    expected = []
    for start in range(0, n, shift):
        w = list(range(start, min(n, start + (size - 1) * stride + 1), stride))
        if drop and len(w) < size:
            break
        expected.append(w)
    assert got == expected
    assert len(ds) == len(expected)


def test_interleave_documented_example_and_parallel_order():
    def f(x):
        return Dataset.from_tensors(x).repeat(6)

    expected = [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 4, 4, 5, 5]
    expected += [5, 5, 5, 5]
    ds = Dataset.range(1, 6)
    assert values(ds.interleave(f, cycle_length=2, block_length=4)) == expected
    parallel = ds.interleave(f, cycle_length=2, block_length=4, num_parallel_calls=2)
    assert values(parallel) == expected
    loose = ds.interleave(f, 2, 4, num_parallel_calls=2, deterministic=False)
    assert sorted(values(loose)) == sorted(expected)


def test_interleave_replaces_exhausted_datasets_like_tf():
    # Inner datasets of different lengths, including empty ones, with parallel workers.
    def f(x):
        return Dataset.range(10 * x, 10 * x + x % 3)

    ds = Dataset.range(8)
    seq = values(ds.interleave(f, cycle_length=3, block_length=2))
    assert seq == values(ds.interleave(f, cycle_length=3, block_length=2, num_parallel_calls=3))
    assert seq == [10, 20, 21, 40, 50, 51, 70]
    assert values(ds.flat_map(f)) == [10, 20, 21, 40, 50, 51, 70]
    with pytest.raises(TypeError, match="must return a Dataset"):
        list(ds.interleave(lambda x: x, cycle_length=1))
    with pytest.raises(ValueError, match="block_length"):
        ds.interleave(f, block_length=0)
    assert ds.interleave(f).element_spec == ek.data.TensorSpec((), ek.int64)


# -- cardinality, specs, iterators --------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda: Dataset.range(42), 42),
        (lambda: Dataset.range(42).repeat(), ek.data.INFINITE_CARDINALITY),
        (lambda: Dataset.range(42).filter(lambda x: True), ek.data.UNKNOWN_CARDINALITY),
        (lambda: Dataset.range(42).repeat().take(5), 5),
        (lambda: Dataset.range(42).filter(lambda x: True).take(5), ek.data.UNKNOWN_CARDINALITY),
        (lambda: Dataset.range(42).filter(lambda x: True).repeat(), ek.data.INFINITE_CARDINALITY),
        (lambda: Dataset.range(42).repeat().skip(5), ek.data.INFINITE_CARDINALITY),
        (lambda: Dataset.range(42).skip(50), 0),
        (lambda: Dataset.range(42).batch(10), 5),
        (lambda: Dataset.range(42).batch(10, drop_remainder=True), 4),
        (lambda: Dataset.range(42).repeat(0), 0),
        (lambda: Dataset.range(0).repeat(), 0),
        (lambda: Dataset.range(3).repeat(4), 12),
        (lambda: Dataset.range(42).shuffle(5).map(lambda x: x).prefetch(1), 42),
        (lambda: Dataset.zip(Dataset.range(3), Dataset.range(5).repeat()), 3),
        (lambda: Dataset.range(3).concatenate(Dataset.range(2).repeat()), -1),
        (lambda: Dataset.range(3).concatenate(Dataset.range(2).filter(lambda x: True)), -2),
        (lambda: Dataset.range(10).batch(4).unbatch(), ek.data.UNKNOWN_CARDINALITY),
        (lambda: Dataset.range(12).batch(4, True).unbatch(), 12),
        (lambda: Dataset.range(7).window(3, 2, drop_remainder=True), 3),
        (lambda: Dataset.range(3).interleave(lambda x: Dataset.range(x)), -2),
        (lambda: Dataset.range(3).enumerate().cache(), 3),
    ],
)
def test_cardinality(make, expected):
    c = make().cardinality()
    assert c.dtype == ek.int64 and c.shape == () and int(c) == expected
    assert int(ek.data.experimental.cardinality(make())) == expected


def test_len_errors_as_tensorflow():
    assert len(Dataset.range(5)) == 5
    with pytest.raises(TypeError, match=r"^The dataset is infinite\.$"):
        len(Dataset.range(5).repeat())
    with pytest.raises(TypeError, match=r"^The dataset length is unknown\.$"):
        len(Dataset.range(5).filter(lambda x: True))
    assert bool(Dataset.range(5).repeat())


def test_element_spec_and_repr():
    ds = Dataset.from_tensor_slices((np.zeros((4, 28, 28), np.uint8), np.zeros(4, np.int64)))
    spec = ds.batch(2).element_spec
    assert spec[0] == ek.data.TensorSpec((None, 28, 28), ek.uint8)
    assert repr(spec[1]) == "TensorSpec(shape=(None,), dtype=ek.int64, name=None)"
    assert ds.enumerate().element_spec[0] == ek.data.TensorSpec((), ek.int64)
    assert ds.map(lambda a, b: a).element_spec == ek.data.TensorSpec((28, 28), ek.uint8)
    assert "TensorSpec" in repr(ds)
    assert "first element" in repr(ds.map(lambda a, b: a))  # repr does not run user code
    # an empty input: the function runs on stand-ins of the input's spec, as TF traces it
    assert Dataset.range(0).map(lambda x: x).element_spec == ek.data.TensorSpec((), ek.int64)
    assert ek.data.AUTOTUNE == ek.data.experimental.AUTOTUNE == -1


def test_tensor_spec():
    spec = ek.data.TensorSpec([None, 2], ek.int32)
    assert spec.shape.as_list() == [None, 2] and not spec.shape.is_fully_defined()
    assert spec.is_compatible_with(ek.constant([[1, 2]]))
    assert not spec.is_compatible_with(ek.constant([[1.0, 2.0]]))
    assert not spec.is_compatible_with(ek.data.TensorSpec([3], ek.int32))
    assert spec == ek.data.TensorSpec((None, 2), "int32")
    assert ek.data.TensorSpec.from_tensor(ek.constant([1.0])).shape == (1,)
    unknown = ek.data.TensorSpec(None, ek.float32)
    assert unknown.shape.rank is None and repr(unknown.shape) == "TensorShape(None)"


def test_iterators():
    ds = Dataset.range(3)
    it = ek.Iterator(ds)
    assert int(it.next()) == 0 and int(next(it)) == 1 and int(it.get_next()) == 2
    with pytest.raises(StopIteration):
        it.next()
    assert it.element_spec == ds.element_spec
    assert [int(x) for x in ds.make_one_shot_iterator()] == [0, 1, 2]
    a, b = iter(ds), iter(ds)  # independent passes
    assert int(next(a)) == 0 and int(next(a)) == 1 and int(next(b)) == 0
    with pytest.raises(TypeError, match="Dataset"):
        ek.Iterator([1, 2])


def test_as_numpy_iterator_gives_read_only_numpy_values():
    ds = Dataset.from_tensor_slices((np.arange(4).reshape(2, 2), [1.0, 2.0]))
    a, b = next(ds.as_numpy_iterator())
    assert isinstance(a, np.ndarray) and not a.flags.writeable
    assert isinstance(b, np.float32)


@settings(max_examples=30, deadline=None)
@given(lengths=st.lists(st.integers(0, 12), min_size=1, max_size=4))
def test_zip_length_is_the_shortest(lengths):
    datasets = tuple(Dataset.range(n) for n in lengths)
    zipped = Dataset.zip(datasets)
    assert len(list(zipped)) == min(lengths) == len(zipped)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(0, 40), buffer_size=st.integers(1, 50), seed=st.integers(0, 1000))
def test_shuffle_is_a_permutation(n, buffer_size, seed):
    ds = Dataset.from_tensor_slices(np.arange(n)).shuffle(buffer_size, seed=seed)
    assert sorted(values(ds)) == list(range(n))
    gen = Dataset.from_generator(lambda: iter(range(n)), output_types=ek.int64)
    assert sorted(values(gen.shuffle(buffer_size, seed=seed))) == list(range(n))


def test_element_wise_path_still_works(element_wise):
    x = np.arange(20)
    out = values(Dataset.from_tensor_slices(x).shuffle(5, seed=1).batch(6))
    assert sorted(v for batch in out for v in batch) == list(range(20))


def test_from_tensors_specs_composite_components_as_tensorflow():
    # TF's data guide: a dataset of one SparseTensor has a SparseTensorSpec element
    st = ek.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
    ds = ek.data.Dataset.from_tensors(st)
    assert repr(ds.element_spec) == "SparseTensorSpec(TensorShape([3, 4]), ek.int32)"
    assert ds.element_spec.value_type is ek.SparseTensor
    (element,) = list(ds)
    assert isinstance(element, ek.SparseTensor)
    np.testing.assert_array_equal(ek.sparse.to_dense(element).numpy()[1], [0, 0, 2, 0])
    spec = ek.data.Dataset.from_tensors((ek.constant([1, 2]), ek.ragged.constant([[1], [2, 3]])))
    assert isinstance(spec.element_spec[1], ek.RaggedTensorSpec)
    assert spec.element_spec[0] == ek.TensorSpec((2,), ek.int32)
