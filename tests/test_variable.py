"""Variables: creation, assignment, errors that name both shapes, reprs."""

import numpy as np
import pytest

import eagerkernel as ek


def test_repr_and_name():
    v = ek.Variable(5.0, name="weight")
    assert repr(v) == "<Variable 'weight:0' shape=() dtype=float32, numpy=5.0>"
    assert v.name == "weight:0"
    assert ek.Variable(1.0).name == "Variable:0"


def test_assign_family_keeps_shape_and_dtype():
    v = ek.Variable([1.0, 2.0])
    v.assign([3.0, 4.0])
    np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])
    v.assign_add([1.0, 1.0])
    v.assign_sub(ek.constant([0.5, 0.5]))
    np.testing.assert_array_equal(v.numpy(), [3.5, 4.5])
    assert v.dtype == ek.float32 and v.shape == (2,)
    assert float(v.read_value()[0]) == 3.5


def test_assign_shape_mismatch_names_both_and_leaves_value():
    v = ek.Variable(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"shape \(2, 3\), the value has shape \(3, 2\)"):
        v.assign(np.ones((3, 2), np.float32))
    np.testing.assert_array_equal(v.numpy(), np.zeros((2, 3)))


def test_assign_dtype_mismatch():
    v = ek.Variable([1, 2])
    with pytest.raises((ValueError, TypeError), match="int32"):
        v.assign([1.5, 2.5])
    w = ek.Variable([1.0])
    with pytest.raises(ValueError, match=r"dtype float32, the value has dtype float64"):
        w.assign(ek.constant([1.0], ek.float64))  # a Tensor keeps its dtype (TensorFlow too)


def test_assign_converts_numpy_data_to_the_variable_dtype():
    # TensorFlow 2.21 converts NumPy arrays as it converts them to a Tensor of the variable's
    # dtype (the imbalanced-data tutorial's ``bias.assign(np.log([pos / neg]))``).
    w = ek.Variable([0.0, 0.0])
    w.assign(np.log([0.5, 2.0]))
    np.testing.assert_array_equal(w.numpy(), np.log([0.5, 2.0]).astype(np.float32))
    w.assign_add(np.array([1, 2]))
    want = np.log([0.5, 2.0]).astype(np.float32) + np.array([1.0, 2.0], np.float32)
    np.testing.assert_array_equal(w.numpy(), want)
    n = ek.Variable([0, 0])
    n.assign(np.array([1.5, -2.5]))  # TensorFlow truncates, as NumPy's astype
    assert n.numpy().tolist() == [1, -2] and n.dtype == ek.int32
    with pytest.raises(ValueError, match="shape"):
        w.assign(np.ones(3))


def test_numpy_result_does_not_change_after_assign():
    v = ek.Variable([1.0])
    a = v.numpy()
    v.assign([2.0])
    assert a[0] == 1.0


def test_assign_copies_caller_array():
    a = np.zeros(2, np.float32)
    v = ek.Variable(a)
    a[0] = 1.0
    v.assign(a)
    a[1] = 5.0
    np.testing.assert_array_equal(v.numpy(), [1.0, 0.0])


def test_initial_value_callable_and_dtype():
    v = ek.Variable(lambda: ek.zeros((2,)), dtype=ek.float32)
    assert v.shape == (2,)
    assert ek.Variable(1, dtype=ek.float64).dtype == ek.float64


def test_operators_like_tensor():
    v = ek.Variable(3.0)
    assert float(v * 2) == 6.0
    assert float(2 - v) == -1.0
    assert isinstance(v + 1, ek.Tensor) and not isinstance(v + 1, ek.Variable)
    assert f"{v:.1f}" == "3.0"


def test_missing_initial_value():
    with pytest.raises(ValueError, match="initial_value"):
        ek.Variable()


def test_variables_are_not_picklable():
    import pickle

    with pytest.raises(TypeError, match="Checkpoint"):
        pickle.dumps(ek.Variable(1.0))


def test_tensorflow_arguments_are_checked_never_ignored():
    import pytest as _pytest

    v = ek.Variable([1.0, 2.0], shape=(2,), validate_shape=True, caching_device=None)
    assert v.shape == (2,)
    assert ek.Variable([[1.0, 2.0]], shape=[None, 2]).shape.as_list() == [None, 2]  # as TF
    with _pytest.raises(ValueError, match=r"shape \(2,\) is not compatible .* \(3,\)"):
        ek.Variable([1.0, 2.0], shape=(3,))
    free = ek.Variable([1.0], validate_shape=False)  # TF: the shape is unknown
    assert free.shape.rank is None and free.assign([1.0, 2.0]).numpy().shape == (2,)
    with _pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        ek.Variable([1.0], colour="red")


def test_synchronization_and_aggregation_are_kept():
    v = ek.Variable(1.0)
    assert v.synchronization is ek.VariableSynchronization.AUTO
    assert v.aggregation is ek.VariableAggregation.NONE
    w = ek.Variable(
        1.0,
        synchronization=ek.VariableSynchronization.ON_READ,
        aggregation=ek.VariableAggregation.MEAN,
    )
    assert w.synchronization is ek.VariableSynchronization.ON_READ
    assert w.aggregation is ek.VariableAggregation.MEAN
    w.set_shape([])  # compatible: nothing to do
    with pytest.raises(ValueError, match="not compatible"):
        w.set_shape([2])
