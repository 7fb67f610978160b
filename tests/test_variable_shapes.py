"""`Variable(shape=...)` with None dims: the declared shape is the variable's shape, and
`assign` may change the value's shape within it (follows tf.Variable; the values below are
what TensorFlow 2.21 prints for the same calls)."""

import numpy as np
import pytest

import eagerkernel as ek


def test_unknown_rank_variable_takes_values_of_any_shape():
    v = ek.Variable([1.0, 2.0], shape=ek.TensorShape(None))
    assert str(v.shape) == "<unknown>" and v.shape.rank is None
    assert "shape=<unknown>" in repr(v)
    v.assign([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(ek.shape(v).numpy(), [3])
    assert (v * 2.0).shape == (3,)


def test_none_dims_allow_compatible_assigns_only():
    v = ek.Variable([[1.0, 2.0]], shape=[None, 2])
    assert v.shape.as_list() == [None, 2]
    assert v.read_value().shape == (1, 2) and ek.convert_to_tensor(v).shape == (1, 2)
    v.assign([[1.0, 2.0], [3.0, 4.0]])
    assert v.numpy().shape == (2, 2)
    with pytest.raises(ValueError, match=r"Variable.assign: .*\(None, 2\).*\(1, 3\)"):
        v.assign([[1.0, 2.0, 3.0]])
    np.testing.assert_array_equal(v.numpy(), [[1.0, 2.0], [3.0, 4.0]])  # unchanged
    with pytest.raises(ValueError, match=r"assign_add: .*\(2, 2\).*\(3, 2\)"):
        v.assign_add(np.ones((3, 2), np.float32))  # only assign changes the shape (TF too)
    v.assign_add([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(v.numpy(), [[2.0, 4.0], [6.0, 8.0]])


def test_gradient_through_a_reshaped_variable():
    v = ek.Variable([1.0], shape=[None])
    v.assign([1.0, 2.0, 3.0])
    with ek.GradientTape() as tape:
        y = ek.reduce_sum(v * v)
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [2.0, 4.0, 6.0])


def test_declared_shape_must_be_compatible_with_the_initial_value():
    with pytest.raises(ValueError, match=r"initial value's shape \(2,\) is not compatible.*\(3,\)"):
        ek.Variable([1.0, 2.0], shape=[3])
    assert ek.Variable([1.0, 2.0], shape=[2]).shape == (2,)
    assert ek.Variable(1.0, shape=[]).shape == ()
