"""Differential-fuzz findings on tf.data transformations, pinned to TensorFlow.

Every expected value, spec and error class below was computed with TensorFlow 2.21
(tensorflow-cpu) on the same pipeline.
"""

import numpy as np
import pytest

import eagerkernel as ek

Dataset = ek.data.Dataset


def _spec(ds):
    def leaf(s):
        return (type(s).__name__, s.shape.as_list(), s.dtype.name)

    return ek.nest.map_structure(leaf, ds.element_spec)


# -- scan ----------------------------------------------------------------------------------------


def test_scan_keeps_the_input_cardinality():
    # TF: 3 and INFINITE (-1); one output per input element
    scan = lambda ds: ds.scan(ek.constant(0, ek.int64), lambda s, x: (s + x, s))
    assert int(scan(Dataset.range(3)).cardinality()) == 3
    assert int(scan(Dataset.range(3).repeat()).cardinality()) == ek.data.INFINITE_CARDINALITY


# -- padded_batch --------------------------------------------------------------------------------


def test_padded_batch_default_shapes_keep_known_dims_in_the_spec():
    # TF pads to the input's spec: ((None,), (None, 2)), not (None, None) for the vectors
    ds = Dataset.from_tensor_slices(([4, 5, 6], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    spec = _spec(ds.padded_batch(2))
    assert spec == (("TensorSpec", [None], "int32"), ("TensorSpec", [None, 2], "float32"))


# -- unique --------------------------------------------------------------------------------------


def test_unique_compares_whole_vectors_and_single_component_dicts():
    # TF: [[1, 2], [3, 4]] and [{'a': 1}, {'a': 2}]
    ds = Dataset.from_tensor_slices([[1, 2], [1, 2], [3, 4]]).unique()
    assert [x.tolist() for x in ds.as_numpy_iterator()] == [[1, 2], [3, 4]]
    ds = Dataset.from_tensor_slices({"a": [1, 2, 1]}).unique()
    assert [int(d["a"]) for d in ds.as_numpy_iterator()] == [1, 2]
    ds = Dataset.from_tensor_slices(["a", "b", "a"]).unique()
    assert list(ds.as_numpy_iterator()) == [b"a", b"b"]


def test_unique_rejects_other_dtypes_and_several_components_when_made():
    # TF: TypeError for float32 (at construction), InvalidArgumentError for a 2-tuple
    with pytest.raises(TypeError, match=r"unique.*float32"):
        Dataset.from_tensor_slices(np.array([1.0, 2.0], np.float32)).unique()
    with pytest.raises(TypeError, match=r"unique.*uint8"):
        Dataset.from_tensor_slices(np.array([1, 2], np.uint8)).unique()
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"unique.*single component"):
        Dataset.from_tensor_slices(([1, 2], [1, 3])).unique()


# -- group_by_window / bucket_by_sequence_length ---------------------------------------------------


def test_group_by_window_spec_is_traced_from_the_input_spec():
    # TF: (None, None, 1) -- the window's batch has an unknown size, the input's None stays None
    ds = Dataset.from_tensor_slices([[7], [-3], [-4]]).padded_batch(3)
    ds = ds.group_by_window(
        key_func=lambda x: ek.cast(ek.size(x), ek.int64) % 3,
        reduce_func=lambda k, w: w.batch(1),
        window_size=1,
    )
    assert _spec(ds) == ("TensorSpec", [None, None, 1], "int32")
    # TF: (2,) -- a static drop_remainder batch stays known
    ds = Dataset.range(6).group_by_window(
        key_func=lambda x: x % 2,
        reduce_func=lambda k, w: w.batch(2, drop_remainder=True),
        window_size=2,
    )
    assert _spec(ds) == ("TensorSpec", [2], "int64")
    assert [x.tolist() for x in ds.as_numpy_iterator()] == [[0, 2], [1, 3]]


def test_bucket_by_sequence_length_batch_dim_is_unknown_in_the_spec():
    # TF: (None, None) even with drop_remainder=True (the batch size is looked up by bucket)
    ds = Dataset.range(1, 6).map(lambda x: ek.range(x))
    ds = ds.bucket_by_sequence_length(lambda x: ek.size(x), [3], [2, 2], drop_remainder=True)
    assert _spec(ds) == ("TensorSpec", [None, None], "int64")


# -- ragged_batch --------------------------------------------------------------------------------


def test_ragged_batch_keeps_fully_defined_components_dense():
    # TF: TensorSpec (None, 2), values [[[1, 2], [3, 4]], [[5, 6]]] as dense tensors
    ds = Dataset.from_tensor_slices([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]).ragged_batch(2)
    assert _spec(ds) == ("TensorSpec", [None, 2], "float32")
    assert [x.tolist() for x in ds.as_numpy_iterator()] == [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0]]]
    # TF: ((2,), (2, 2)) for a tuple of a scalar and a fixed-size vector
    ds = Dataset.from_tensor_slices(([1, 2, 3], [[1, 2], [3, 4], [5, 6]]))
    assert _spec(ds.ragged_batch(2, drop_remainder=True)) == (
        ("TensorSpec", [2], "int32"),
        ("TensorSpec", [2, 2], "int32"),
    )
    # TF: a component with a None dim is still ragged: RaggedTensorSpec([None, None], int64, 1)
    ds = Dataset.range(1, 4).map(lambda x: ek.range(x)).ragged_batch(2)
    assert type(ds.element_spec).__name__ == "RaggedTensorSpec"
    assert ds.element_spec.shape.as_list() == [None, None]


# -- sample_from_datasets / choose_from_datasets ---------------------------------------------------


def test_sample_from_datasets_with_one_positive_list_weight_is_that_dataset():
    # TF: weights=[1.0, 0.0] -> range(5) itself: cardinality 5, values 0..4 in order
    ds = Dataset.sample_from_datasets([Dataset.range(5), Dataset.range(10, 13)], [1.0, 0.0], seed=1)
    assert int(ds.cardinality()) == 5
    assert [int(x) for x in ds] == [0, 1, 2, 3, 4]
    ds = Dataset.sample_from_datasets([Dataset.range(5), Dataset.range(3)], [0.0, 1.0], seed=1)
    assert int(ds.cardinality()) == 3


def test_directed_interleave_cardinality_is_infinite_when_an_input_is():
    # TF: -1 when a data input is infinite (whatever the selector), else -2 (unknown)
    sel = Dataset.from_tensor_slices(ek.constant([0, 1, 0], ek.int64))
    inf = Dataset.range(3).repeat()
    assert int(Dataset.choose_from_datasets([Dataset.range(3), inf], sel).cardinality()) == -1
    fin = Dataset.choose_from_datasets([Dataset.range(3), Dataset.range(2)], sel.repeat())
    assert int(fin.cardinality()) == -2
    assert int(Dataset.sample_from_datasets([Dataset.range(5), inf], seed=1).cardinality()) == -1
    assert (
        int(Dataset.sample_from_datasets([Dataset.range(5), Dataset.range(3)]).cardinality()) == -2
    )
