"""tf.data divergences found by differential fuzzing against TensorFlow 2.21 (fuzz6 harness).

Every expected value below was computed with TensorFlow 2.21 (tensorflow-cpu) on the same
pipeline and hard-coded here. Main class: the ``element_spec`` of a pipeline whose function
never ran (its input is empty), which TF types by tracing the function on placeholders.
"""

import numpy as np
import pytest

import eagerkernel as ek

D = ek.data.Dataset
TS = ek.TensorSpec


def gen(n):
    """The fuzz harness's generator source: vectors of lengths 0, 1, 2, 3, 0, ... (n of them)."""
    return D.from_generator(
        lambda: (np.arange(i % 4, dtype=np.int32) for i in range(n)),
        output_signature=TS(shape=[None], dtype=ek.int32),
    )


# -- element_spec of an empty pipeline: its function runs on stand-ins of the input's spec --


@pytest.mark.parametrize(
    "make, expected",
    [
        (  # TF: {'x': (), 'k': ()} int64
            lambda: D.range(0).map(lambda x: {"x": x, "k": ek.cast(x, ek.int64) + 1}),
            {"x": TS((), ek.int64), "k": TS((), ek.int64)},
        ),
        (lambda: D.range(0).map(lambda x: ek.range(x)), TS((None,), ek.int64)),
        (lambda: D.range(0).batch(2).map(lambda x: x * 2), TS((None,), ek.int64)),
        (
            lambda: D.from_tensor_slices(np.zeros((0, 3, 4), np.float32)).map(
                lambda x: ek.reshape(x, [-1])
            ),
            TS((12,), ek.float32),
        ),
        (
            lambda: D.from_tensor_slices(np.array([], dtype=object)).map(ek.strings.length),
            TS((), ek.int32),
        ),
        (
            lambda: D.range(0).map(lambda x: ek.fill([3], x)).map(ek.reduce_sum),
            TS((), ek.int64),
        ),
        (
            lambda: D.range(-4, -5, 1, output_type=ek.float32).scan(
                ek.constant(0, ek.int64), lambda s, x: (s + ek.cast(x, ek.int64), (s, x))
            ),
            (TS((), ek.int64), TS((), ek.float32)),
        ),
        (
            lambda: D.range(4, 4).interleave(lambda x: D.from_tensors(x).repeat(2), cycle_length=3),
            TS((), ek.int64),
        ),
        (lambda: D.range(0).window(3).flat_map(lambda w: w.batch(3)), TS((None,), ek.int64)),
        (
            lambda: (
                D.range(0)
                .window(3, drop_remainder=True)
                .flat_map(lambda w: w.batch(3, drop_remainder=True))
            ),
            TS((3,), ek.int64),
        ),
        (
            lambda: D.range(0).group_by_window(
                lambda x: x % 2, lambda k, w: w.map(lambda v: v * 2).batch(2), window_size=2
            ),
            TS((None,), ek.int64),
        ),
    ],
)
def test_element_spec_of_empty_pipeline_as_tf_traces(make, expected):
    ds = make()
    assert ds.element_spec == expected
    assert list(ds) == []


def test_element_spec_of_empty_pipeline_with_ragged_input():
    ds = gen(0).ragged_batch(2).map(lambda r: r * 2)
    spec = ds.element_spec
    assert isinstance(spec, ek.RaggedTensorSpec) and spec.shape.as_list() == [None, None]
    assert spec.dtype == ek.int32 and spec.ragged_rank == 1


def test_empty_pipeline_function_error_is_raised_with_a_note():
    # TF raises TypeError at construction (its trace); eagerkernel when the spec is asked for
    ds = D.range(0).map(lambda x, y: x)
    with pytest.raises(TypeError) as info:
        _ = ds.element_spec
    assert any("stand-in" in n for n in getattr(info.value, "__notes__", ()))


# -- non-empty pipelines: dims TF's trace leaves unknown are None even if elements agree -----


def test_interleave_spec_relaxed_by_trace():
    ds = D.range(-4, 9, 1).batch(2).rebatch(1)
    ds = ds.interleave(lambda x: D.from_tensors(x).repeat(3), cycle_length=3)
    assert ds.element_spec == TS((None,), ek.int64)  # TF: (None,)
    ds = gen(6).interleave(lambda x: D.from_tensors(x).repeat(3), block_length=3)
    assert ds.element_spec == TS((None,), ek.int32)  # TF: (None,); first element has (0,)


def test_map_spec_of_value_dependent_shape():
    ds = D.from_tensor_slices(np.array([2, 5], np.int16)).batch(2)
    ds = ds.map(lambda x: ek.range(ek.size(x) % 2))
    assert ds.element_spec == TS((None,), ek.int32)  # TF: (None,)


def test_spec_when_first_element_raises_at_iteration():
    # TF's spec is static; batching the generator's ragged rows fails only when iterating
    ds = gen(3).batch(4).scan(ek.constant(0, ek.int64), lambda s, *x: (s + 1, s))
    assert ds.element_spec == TS((), ek.int64)
    with pytest.raises(ek.errors.InvalidArgumentError):
        list(ds)


# -- rebatch ------------------------------------------------------------------------------------


def test_rebatch_spec_and_cardinality_as_tf():
    assert D.range(12).batch(2, drop_remainder=True).rebatch(1).element_spec == TS((1,), ek.int64)
    assert D.range(12).batch(4, drop_remainder=True).rebatch(3).element_spec == TS(
        (None,), ek.int64
    )
    assert D.range(12).batch(4, drop_remainder=True).rebatch([2, 2]).element_spec == TS(
        (2,), ek.int64
    )
    assert D.range(12).batch(4).rebatch(2).element_spec == TS((None,), ek.int64)
    assert int(D.range(12).batch(4, drop_remainder=True).rebatch(2).cardinality()) == -2


def test_rebatch_partial_batch_ends_the_cycle():
    ds = D.range(7).batch(1).rebatch([2, 0, 1])
    assert [v.numpy().tolist() for v in ds] == [[0, 1], [], [2], [3, 4], [], [5], [6]]
    ds = D.range(3).batch(1).rebatch([0, 1])
    assert [v.numpy().tolist() for v in ds] == [[], [0], [], [1], [], [2], []]


def test_rebatch_empty_batch_of_unknown_inner_dims():
    ds = gen(6).filter(lambda x: ek.cast(ek.size(x), ek.int64) % 2 == 0)
    ds = ds.window(2, shift=3, stride=2, drop_remainder=True).flat_map(lambda w: w.batch(2))
    shapes = [v.shape.as_list() for v in ds.rebatch([2, 0, 1], drop_remainder=False)]
    assert shapes == [[2, 0], [0, 0]]  # TF: an empty batch's unknown dims are 0


# -- cardinality, range, bucketing, ragged and padded batching --------------------------------


def test_take_negative_count_cardinality_as_tf():
    assert int(D.range(5).take(-2).cardinality()) == -2
    assert int(D.range(5).take(-3).cardinality()) == -3
    assert int(D.range(5).repeat().take(-2).cardinality()) == -2
    assert len(list(D.range(5).take(-2))) == 5
    assert int(D.range(5).take(-1).cardinality()) == 5


def test_unbatch_of_zero_rows_has_unknown_cardinality():
    assert int(D.from_tensor_slices(np.zeros((5, 0))).unbatch().cardinality()) == -2
    assert int(D.from_tensor_slices(np.zeros((5, 3))).unbatch().cardinality()) == 15


def test_range_small_output_type_wraps():
    assert [int(v) for v in D.range(-2, 3, output_type=ek.uint8)] == [254, 255, 0, 1, 2]


def test_bucket_pad_to_boundary_spec_and_error():
    ds = gen(3).bucket_by_sequence_length(
        lambda x: ek.size(x), [2], [2, 3], pad_to_bucket_boundary=True, drop_remainder=True
    )
    assert ds.element_spec == TS((None, None), ek.int32)  # TF: (None, None)
    with pytest.raises(ek.errors.InvalidArgumentError, match="pad_to_bucket_boundary"):
        list(ds)
    ds = D.from_tensor_slices(np.zeros((4, 2, 3), np.float32)).bucket_by_sequence_length(
        lambda x: ek.size(x), [50], [2, 2], padded_shapes=[None, 3], pad_to_bucket_boundary=True
    )
    assert ds.element_spec == TS((None, None, 3), ek.float32)
    ds = gen(2).bucket_by_sequence_length(
        lambda x: ek.size(x), [3], [2, 2], pad_to_bucket_boundary=True
    )
    assert [v.numpy().tolist() for v in ds] == [[[0, 0], [0, 0]]]


def test_batching_ragged_keeps_known_dims():
    spec = gen(3).ragged_batch(1, drop_remainder=True).ragged_batch(4).element_spec
    assert spec == ek.RaggedTensorSpec([None, 1, None], ek.int32, 2)  # TF's value
    spec = gen(3).ragged_batch(2, drop_remainder=True).batch(2).element_spec
    assert spec == ek.RaggedTensorSpec([None, 2, None], ek.int32, 2)  # TF's value


def test_padded_batch_of_ragged_raises_type_error():
    with pytest.raises(TypeError, match=r"padded_batch.*RaggedTensorSpec"):
        gen(0).ragged_batch(3, drop_remainder=True).padded_batch(3)


# -- random ops in map: each iterator replays seeded draws, as TF's traced function ----------


def test_map_random_under_global_seed_repeats_each_epoch():
    ek.random.set_seed(7)
    try:
        ds = D.range(3).map(lambda x: ek.random.uniform([]))
        first = [float(v) for v in ds]
        assert first == [float(v) for v in ds]
        assert len(set(first)) == 3
        same = D.range(3).map(lambda x: ek.random.uniform([]))  # TF: the same numbers too
        assert [float(v) for v in same] == first
    finally:
        ek.random.set_seed(None)


def test_map_random_with_op_seed_draws_a_sequence_per_epoch():
    ds = D.range(3).map(lambda x: ek.random.uniform([], seed=3))
    first = [float(v) for v in ds]
    assert len(set(first)) == 3 and first == [float(v) for v in ds]


def test_map_random_without_seed_is_fresh():
    ek.random.set_seed(None)
    ds = D.range(4).map(lambda x: ek.random.uniform([]))
    assert [float(v) for v in ds] != [float(v) for v in ds]


def test_ragged_batch_makes_dims_ragged_up_to_the_last_unknown():
    ds = gen(6).padded_batch(1, padded_shapes=[None], drop_remainder=True)
    ds = ds.ragged_batch(1, drop_remainder=True)
    assert ds.element_spec == ek.RaggedTensorSpec([1, 1, None], ek.int32, 2)  # TF's value
    values = [(v.to_list(), v.ragged_rank) for v in ds]
    assert values[:3] == [([[[]]], 2), ([[[0]]], 2), ([[[0, 1]]], 2)]
    ds = D.from_tensor_slices(np.zeros((4, 3))).batch(2).ragged_batch(2)  # last unknown: 0
    assert ds.element_spec == ek.RaggedTensorSpec([None, None, 3], ek.float64, 1)
