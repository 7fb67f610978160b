"""Conversion edge cases where eagerkernel differed from TensorFlow 2.21 (found by running the
same calls on ``tensorflow-cpu`` 2.21.0; the expected dtypes, values and error classes below are
TensorFlow's): `one_hot`'s dtype from ``on_value``/``off_value``, Python numbers that the
inferred dtype cannot hold, and ``constant(value, shape=...)`` with the wrong number of
elements."""

from __future__ import annotations

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
