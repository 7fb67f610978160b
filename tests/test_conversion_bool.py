"""Python numbers are not bools: converting them to a bool Tensor raises TypeError, as in
TensorFlow 2.21 ("Cannot convert 3 to EagerTensor of dtype bool"); NumPy values are cast, and
bools convert to numbers."""

import numpy as np
import pytest

import eagerkernel as ek


@pytest.mark.parametrize("value", [3, 1, 0, [0, 1], 1.0])
def test_python_numbers_do_not_convert_to_bool(value):
    with pytest.raises(TypeError, match=r"cannot convert .* to a Tensor of dtype bool"):
        ek.constant(value, dtype=ek.bool)
    with pytest.raises(TypeError, match="dtype bool"):
        ek.convert_to_tensor(value, dtype=ek.bool)


def test_numpy_values_and_bools_convert():
    np.testing.assert_array_equal(ek.constant(np.array([0, 1]), dtype=ek.bool), [False, True])
    np.testing.assert_array_equal(ek.constant(np.array([0.0, 2.0]), dtype=ek.bool), [False, True])
    assert bool(ek.constant(np.int64(1), dtype=ek.bool))
    assert bool(ek.constant(True, dtype=ek.bool))
    np.testing.assert_array_equal(ek.constant([True, False], dtype=ek.int32), [1, 0])
    assert float(ek.constant(True, dtype=ek.float32)) == 1.0
    assert ek.constant([], dtype=ek.bool).shape == (0,)


def test_padding_a_bool_tensor_with_a_number_raises():
    with pytest.raises(TypeError, match="dtype bool"):
        ek.pad(ek.constant([True]), [[1, 1]], constant_values=5)
    padded = ek.pad(ek.constant([True]), [[1, 0]], constant_values=True)
    np.testing.assert_array_equal(padded, [True, True])
