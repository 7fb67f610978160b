"""`tf.compat.v1.get_variable`'s arguments are used or refused, never dropped."""

import numpy as np
import pytest

import eagerkernel as tf

tf1 = tf.compat.v1


def test_validate_shape_false_gives_a_variable_of_unknown_shape():
    v = tf1.get_variable("free", initializer=tf.constant([1.0, 2.0]), validate_shape=False)
    assert v.shape.rank is None  # TF 2.21: shape=<unknown>
    v.assign([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])


def test_synchronization_and_aggregation_reach_the_variable():
    v = tf1.get_variable(
        "acc",
        shape=[2],
        initializer=tf1.zeros_initializer(),
        synchronization=tf.VariableSynchronization.ON_READ,
        aggregation=tf.VariableAggregation.SUM,
    )
    assert v.synchronization == tf.VariableSynchronization.ON_READ
    assert v.aggregation == tf.VariableAggregation.SUM


def _two_parts(shape, dtype):  # a partitioner: how many parts per axis
    return [2] + [1] * (len(shape) - 1)


def test_a_partitioner_is_refused_not_ignored():
    with pytest.raises(NotImplementedError, match=r"get_variable: partitioned variables.*w,"):
        tf1.get_variable("w", shape=[4, 2], partitioner=_two_parts)
    scope = tf1.variable_scope("p", partitioner=_two_parts)
    with scope, pytest.raises(NotImplementedError, match=r"partitioned variables.*p/w,"):
        tf1.get_variable("w", shape=[4, 2])


def test_caching_device_and_use_resource_change_nothing_in_eager_mode():
    v = tf1.get_variable("c", shape=[], caching_device="/cpu:0", use_resource=True)
    assert v.shape == () and v.dtype == tf.float32 and v.name == "c:0"
