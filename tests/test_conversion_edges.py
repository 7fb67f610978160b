"""Conversion edge cases where eagerkernel differed from TensorFlow 2.21 (found by running the
same calls on ``tensorflow-cpu`` 2.21.0; the expected dtypes, values and error classes below are
TensorFlow's): `one_hot`'s dtype from ``on_value``/``off_value``, Python numbers that the
inferred dtype cannot hold, and ``constant(value, shape=...)`` with the wrong number of
elements."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import eagerkernel as ek


@pytest.mark.parametrize(
    "kwargs, dtype, values",
    [
        ({"on_value": 5, "off_value": -1}, "int32", [[5, -1, -1], [-1, -1, 5]]),
        ({"on_value": True, "off_value": False}, "bool", [[1, 0, 0], [0, 0, 1]]),
        ({"off_value": 2}, "int32", [[1, 2, 2], [2, 2, 1]]),
        ({"on_value": 5, "dtype": ek.float32}, "float32", [[5, 0, 0], [0, 0, 5]]),
        ({"on_value": ek.constant(2, ek.int64)}, "int64", [[2, 0, 0], [0, 0, 2]]),
        ({"dtype": ek.int64}, "int64", [[1, 0, 0], [0, 0, 1]]),
        ({}, "float32", [[1, 0, 0], [0, 0, 1]]),
    ],
)
def test_one_hot_takes_the_dtype_of_its_values(kwargs, dtype, values):
    out = ek.one_hot([0, 2], 3, **kwargs)
    assert out.dtype.name == dtype
    np.testing.assert_array_equal(out.numpy(), np.array(values, dtype=dtype))


def test_one_hot_values_of_different_dtypes_raise_type_error():
    with pytest.raises(TypeError, match="int32 of on_value does not match dtype float32 of off"):
        ek.one_hot([0], 2, on_value=1, off_value=0.0)
    with pytest.raises(TypeError, match="int64 of on_value does not match dtype parameter int32"):
        ek.one_hot([0], 2, on_value=ek.constant(1, ek.int64), dtype=ek.int32)
    with pytest.raises(ValueError, match="on_value must be a scalar, got shape \\(2,\\)"):
        ek.one_hot([0], 2, on_value=[1.0, 2.0])


@pytest.mark.parametrize(
    "value", [1e40, -1e40, [1.0, 1e39], [[1.0], [3.5e38]], 2.0**128 - 2.0**103]
)
def test_a_python_float_beyond_float32_raises_value_error(value):
    # TensorFlow: "Can't convert Python sequence with a value out of range ..." (ValueError).
    with pytest.raises(ValueError, match="out of range for float32, the dtype of Python floats"):
        ek.constant(value)
    with pytest.raises(ValueError, match="out of range for float32"):
        ek.convert_to_tensor(value)


def test_python_floats_that_float32_holds_or_an_explicit_dtype_convert():
    assert ek.constant(float("inf")).numpy() == np.inf  # an infinity is kept
    np.testing.assert_array_equal(ek.constant([-np.inf, 1.0]).numpy(), [-np.inf, 1.0])
    assert ek.constant(1e40, ek.float64).numpy() == 1e40
    assert ek.constant(np.float64(1e40)).dtype == ek.float64  # a NumPy value keeps its dtype
    assert ek.constant(3.4e38).dtype == ek.float32
    # Just below the halfway point to 2**128, float32 rounds to its largest float.
    below = float(np.nextafter(2.0**128 - 2.0**103, 0))
    assert ek.constant(below).numpy() == np.finfo(np.float32).max


@pytest.mark.parametrize("value", [2**63, 2**64 - 1, [2**63], 2**70, [1, 2**70], [[1], [2**70]]])
def test_a_python_int_beyond_int64_raises_value_error(value):
    # TensorFlow: "Can't convert Python sequence with out-of-range integer to Tensor."
    with pytest.raises(ValueError, match="out-of-range integer"):
        ek.constant(value)


def test_python_ints_within_int64():
    assert ek.constant(-(2**63)).dtype == ek.int64
    assert ek.constant(2**31).dtype == ek.int64
    assert ek.constant(2**31 - 1).dtype == ek.int32
    assert ek.constant(2**70, ek.float32).numpy() == np.float32(2.0**70)  # explicit dtype


def test_constant_with_a_shape_of_another_size_raises_type_error():
    # TensorFlow raises TypeError; the class is also the ValueError eagerkernel raised before.
    with pytest.raises(TypeError, match=r"\(3 elements\) cannot take shape \(2, 2\) \(4 elements"):
        ek.constant([1, 2, 3], shape=[2, 2])
    with pytest.raises(ValueError):
        ek.constant([1, 2, 3], shape=[2, 2])
    assert ek.constant([1, 2, 3, 4], shape=[2, 2]).shape == (2, 2)
    assert ek.constant(7, shape=[2, 2]).numpy().tolist() == [[7, 7], [7, 7]]


def test_a_shape_equals_a_list_of_its_dimensions():
    # TensorFlow converts a list compared with a TensorShape: `x.shape == [2, 3]` is True.
    shape = ek.ones([2, 3]).shape
    assert shape == [2, 3] and operator.eq([2, 3], shape) and shape == (2, 3)  # both sides
    assert (shape != [2, 3]) is False and shape != [3, 2] and shape != [2, None]
    assert ek.TensorShape([2, None]) == [2, None]
    assert ek.TensorShape(None) == ek.TensorShape(None)
    assert ek.TensorShape(None) != ek.TensorShape([])  # unknown rank is not rank 0
    assert {shape: 1}[(2, 3)] == 1  # still hashable as its tuple
    assert (shape == "2, 3") is False


def test_nest_matches_structures_as_tf_nest_does():
    nest = ek.nest
    assert nest.is_nested([1]) and nest.is_nested({}) and not nest.is_nested("ab")
    assert not nest.is_nested(ek.constant([1])) and not nest.is_nested(ek.ragged.constant([[1]]))
    nest.assert_same_structure([1, (2,)], ["a", ("b",)])
    with pytest.raises(TypeError, match=r"a tuple \(\(2,\)\) where the other has a list"):
        nest.assert_same_structure([1, (2,)], [3, [4]])
    with pytest.raises(ValueError, match="1 elements"):
        nest.assert_same_structure([1, (2,)], [3, (4, 5)])
    with pytest.raises(ValueError, match=r"dicts with keys \['a'\] and \['b'\]"):
        nest.assert_same_structure({"a": 1}, {"b": 1})
    nest.assert_same_structure([1, (2,)], [3, [4]], check_types=False)
    with pytest.raises(TypeError, match="a list"):
        nest.map_structure(lambda a, b: a + b, [1, 2], (3, 4))
    assert nest.map_structure(lambda a, b: a + b, [1, 2], (3, 4), check_types=False) == [4, 6]
    with pytest.raises(ValueError, match="at least one structure"):
        nest.map_structure(lambda: 0)


def test_nest_expands_composite_tensors_into_their_components():
    ragged = ek.ragged.constant([[[1, 2], [3]], [[4]]])
    parts = ek.nest.flatten(ragged, expand_composites=True)
    assert [p.numpy().tolist() for p in parts] == [[1, 2, 3, 4], [0, 2, 3], [0, 2, 3, 4]]
    sparse = ek.sparse.SparseTensor([[0, 1]], [5], [2, 3])
    flat = ek.nest.flatten({"a": sparse, "b": 1}, expand_composites=True)
    assert len(flat) == 4 and flat[-1] == 1 and flat[1].numpy().tolist() == [5]
    back = ek.nest.pack_sequence_as({"a": sparse, "b": 1}, flat, expand_composites=True)
    assert back["b"] == 1
    assert ek.sparse.to_dense(back["a"]).numpy().tolist() == [[0, 5, 0], [0, 0, 0]]
    doubled = ek.nest.map_structure(
        lambda t: t * 2 if t.dtype == ek.int32 else t, ragged, expand_composites=True
    )
    assert doubled.to_list() == [[[2, 4], [6]], [[8]]]
    with pytest.raises(ValueError, match="4 expanded leaves but 3 values"):
        ek.nest.pack_sequence_as({"a": sparse, "b": 1}, flat[:3], expand_composites=True)


def test_dtype_real_dtype_and_base_dtype():
    assert ek.complex64.real_dtype == ek.float32 and ek.complex128.real_dtype == ek.float64
    assert ek.int32.real_dtype == ek.int32 and ek.float16.base_dtype == ek.float16


def test_count_nonzero_counts_non_empty_strings():
    assert int(ek.math.count_nonzero(ek.constant(["", "a", "bc"]))) == 2  # TensorFlow: 2


def test_a_tape_never_entered_raises_runtime_error():
    # TensorFlow: RuntimeError from gradient() on a tape that never recorded.
    with pytest.raises(RuntimeError, match="the tape never recorded"):
        ek.GradientTape().gradient(ek.constant(1.0), ek.constant(1.0))
    with pytest.raises(RuntimeError, match="jacobian: the tape never recorded"):
        ek.GradientTape(persistent=True).jacobian(ek.constant(1.0), ek.constant(1.0))


@pytest.mark.parametrize(
    "make", [lambda: ek.data.Dataset.range(3).batch(0), lambda: ek.data.Dataset.range(3).window(0)]
)
def test_a_non_positive_dataset_size_is_an_invalid_argument(make):
    # TensorFlow: InvalidArgumentError ("Batch size must be greater than zero").
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"must be positive\. Received"):
        make()


def test_str_of_a_tensor_and_a_dtype_as_tensorflow_prints_them():
    # print(tf.constant([[1, 2], [3, 4]])) in TensorFlow 2.21: the rows on lines of their own.
    assert str(ek.constant([[1, 2], [3, 4]])) == (
        "Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)"
    )
    assert str(ek.constant([1.5, 2.0])) == "Tensor([1.5 2. ], shape=(2,), dtype=float32)"
    assert str(ek.float32) == "<dtype: 'float32'>" and repr(ek.float32) == "ek.float32"


def test_a_list_of_unsigned_arrays_converts_as_tensorflow_reads_it():
    # keras-io's ViT example: ops.convert_to_tensor([uint8_image], dtype="float32").
    image = np.array([[1, 200]], np.uint8)
    assert ek.constant([image]).dtype == ek.int32  # numbers from a list: int32 (TF's)
    assert ek.constant([np.array([2**40], np.uint64)]).dtype == ek.int64
    converted = ek.keras.ops.convert_to_tensor([image], dtype="float32")
    assert converted.dtype == ek.float32 and converted.numpy().tolist() == [[[1.0, 200.0]]]
    with pytest.raises(ValueError, match="out-of-range integer"):
        ek.constant([2**64 - 1])
