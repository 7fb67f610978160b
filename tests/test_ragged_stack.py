"""`ek.ragged.stack` (follows `tf.ragged.stack`); the expected values and error classes were
checked against TensorFlow 2.21 on the same calls."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel import errors


def _list(x):
    return x.to_list() if isinstance(x, ek.RaggedTensor) else x.numpy().tolist()


@pytest.mark.parametrize(
    ("values", "axis", "expected", "ragged"),
    [
        ([[1, 2], [3]], 0, [[1, 2], [3]], True),
        ([[1, 2], [3, 4]], 1, [[1, 3], [2, 4]], False),
        ([[[1, 2], [3, 4]], [[5, 6]]], 0, [[[1, 2], [3, 4]], [[5, 6]]], True),
        ([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], 1, [[[1, 2], [5, 6]], [[3, 4], [7, 8]]], False),
        ([1, 2], 0, [1, 2], False),
    ],
)
def test_dense_values(values, axis, expected, ragged):
    got = ek.ragged.stack([ek.constant(v) for v in values], axis=axis)
    assert isinstance(got, ek.RaggedTensor) is ragged
    assert _list(got) == expected


def test_ragged_values_on_each_axis():
    a, b = ek.ragged.constant([[1, 2], [3]]), ek.ragged.constant([[4], [5, 6]])
    assert ek.ragged.stack([a, b]).to_list() == [[[1, 2], [3]], [[4], [5, 6]]]
    assert ek.ragged.stack([a, b], axis=1).to_list() == [[[1, 2], [4]], [[3], [5, 6]]]
    c = ek.ragged.constant([[7, 8], [9]])  # a's row lengths: stacks inside the rows
    assert ek.ragged.stack([a, c], axis=2).to_list() == [[[1, 7], [2, 8]], [[3, 9]]]
    assert ek.ragged.stack([a, c], axis=-1).to_list() == [[[1, 7], [2, 8]], [[3, 9]]]
    mixed = ek.ragged.stack([ek.constant([[1, 2]]), ek.ragged.constant([[4, 5]])], axis=2)
    assert mixed.to_list() == [[[1, 4], [2, 5]]]


def test_gradient_flows_to_every_value():
    a, b = ek.constant([1.0, 2.0]), ek.constant([3.0])
    with ek.GradientTape() as tape:
        tape.watch([a, b])
        rt = ek.ragged.stack([a, b])
        y = ek.reduce_sum(rt.flat_values * ek.constant([1.0, 2.0, 3.0]))
    ga, gb = tape.gradient(y, [a, b])
    np.testing.assert_array_equal(ga.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(gb.numpy(), [3.0])


def test_errors():
    with pytest.raises(ValueError, match="rt_inputs may not be empty"):
        ek.ragged.stack([])
    with pytest.raises(ValueError, match="same rank"):
        ek.ragged.stack([ek.constant([1]), ek.constant([[1]])])
    with pytest.raises(errors.InvalidArgumentError, match="same shape"):
        ek.ragged.stack([ek.constant([1, 2]), ek.constant([3])], axis=1)
    with pytest.raises(errors.InvalidArgumentError, match="identical ragged splits"):
        ek.ragged.stack([ek.constant([[1, 2]]), ek.ragged.constant([[4]])], axis=2)
    with pytest.raises(errors.InvalidArgumentError, match="same number of rows"):
        ek.ragged.stack([ek.constant([[1, 2]]), ek.ragged.constant([[4], [5]])], axis=1)
    with pytest.raises(ValueError, match="axis 3 is out of range"):
        ek.ragged.stack([ek.constant([1])], axis=3)
