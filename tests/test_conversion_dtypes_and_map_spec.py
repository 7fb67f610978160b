"""Dtypes TensorFlow infers where eagerkernel used to differ, and `Dataset.map`'s element spec.

Every expected value was printed by TensorFlow 2.21 running the same call:

- ``tf.range`` takes the widest of its arguments' dtypes (int32 < int64 < float16 < float32 <
  float64): ``range(int64 tensor)`` counted in int32 before.
- A list holding Tensors converts in its first Tensor's dtype (auto-packing) whether or not a
  tape records: ``convert_to_tensor([int64, int64])`` was int32 outside a tape.
- ``Dataset.map``'s element spec has None where TF's trace does: the batch axis and shapes
  made from the values (they were the first element's sizes).
"""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as tf


@pytest.mark.parametrize(
    ("args", "dtype", "values"),
    [
        ((np.int64(3),), tf.int64, [0, 1, 2]),
        ((3.0,), tf.float32, [0.0, 1.0, 2.0]),
        ((tf.constant(2.0, tf.float64),), tf.float64, [0.0, 1.0]),
        ((1, tf.constant(5, tf.int64)), tf.int64, [1, 2, 3, 4]),
        ((np.float64(2),), tf.float64, [0.0, 1.0]),
        ((0, 1.0, 0.25), tf.float32, [0.0, 0.25, 0.5, 0.75]),
        ((tf.constant(1, tf.int64), 3, 1), tf.int64, [1, 2]),
    ],
)
def test_range_infers_the_widest_argument_dtype(args, dtype, values):
    r = tf.range(*args)
    assert r.dtype == dtype
    np.testing.assert_array_equal(r.numpy(), values)


@pytest.mark.parametrize("arg", [True, tf.constant(3, tf.uint8)])
def test_range_refuses_dtypes_outside_tensorflows_list(arg):
    with pytest.raises(
        TypeError, match=r"range: arguments must be int32, int64.*dtype (bool|uint8)"
    ):
        tf.range(arg)


def test_range_with_an_explicit_dtype_keeps_it():
    r = tf.range(tf.constant(3, tf.int64), dtype=tf.float32)
    assert r.dtype == tf.float32
    np.testing.assert_array_equal(r.numpy(), [0.0, 1.0, 2.0])


a64, b64 = tf.constant(1, tf.int64), tf.constant(2, tf.int64)


@pytest.mark.parametrize(
    ("make", "dtype", "values"),
    [
        (lambda: tf.convert_to_tensor([a64, b64]), tf.int64, [1, 2]),
        (lambda: tf.convert_to_tensor([[a64], [b64]]), tf.int64, [[1], [2]]),
        (lambda: tf.convert_to_tensor([a64, 3]), tf.int64, [1, 3]),
        (lambda: tf.convert_to_tensor([3, a64]), tf.int64, [3, 1]),
        (lambda: tf.convert_to_tensor([tf.constant(1.0, tf.float16), 2.0]), tf.float16, [1, 2]),
        (lambda: tf.convert_to_tensor([tf.constant(1.0, tf.float64), 2.0]), tf.float64, [1, 2]),
        # A requested dtype that differs: the values are converted to it (no packing).
        (lambda: tf.convert_to_tensor([a64], dtype=tf.float32), tf.float32, [1.0]),
        (lambda: tf.add(tf.constant([1.0]), [tf.constant(2.0, tf.float64)]), tf.float32, [3.0]),
        (lambda: tf.add(a64, [1, 2]), tf.int64, [2, 3]),
        (lambda: tf.reduce_sum([a64, b64]), tf.int64, 3),
    ],
)
def test_a_list_holding_tensors_converts_in_their_dtype(make, dtype, values):
    out = make()
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.numpy(), values)


def test_a_list_of_tensors_of_different_dtypes_is_refused_as_tensorflows_pack():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"dtype ek\.int64 to ek\.int32"):
        tf.convert_to_tensor([tf.constant(1), a64])
    with pytest.raises(TypeError, match=r"cannot convert 2\.5"):
        tf.convert_to_tensor([a64, 2.5])


def test_a_packed_list_still_carries_gradients():
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x * [x, 3.0])  # x**2 + 3x
    assert tape.gradient(y, x).numpy() == pytest.approx(2 * 2.0 + 3.0)


def test_map_spec_has_none_for_shapes_made_from_values():
    ds = tf.data.Dataset.range(1, 5).map(lambda x: tf.range(x))
    assert ds.element_spec == tf.TensorSpec([None], tf.int64)
    batches = [b.numpy().tolist() for b in ds.padded_batch(2)]
    assert batches == [[[0, 0], [0, 1]], [[0, 1, 2, 0], [0, 1, 2, 3]]]
    words = tf.data.Dataset.from_tensor_slices(["a b", "c"]).map(tf.strings.split)
    assert words.element_spec == tf.TensorSpec([None], tf.string)


def test_map_spec_keeps_the_batch_axis_unknown():
    x = np.zeros((10, 4), np.float32)
    ds = tf.data.Dataset.from_tensor_slices(x).batch(3).map(lambda x: (x, tf.reduce_sum(x, 1)))
    assert ds.element_spec == (tf.TensorSpec([None, 4]), tf.TensorSpec([None]))
    ds = tf.data.Dataset.range(6).batch(4).map(lambda x: tf.reshape(x, [-1, 1]))
    assert ds.element_spec == tf.TensorSpec([None, 1], tf.int64)
    # CIFAR-sized images in batches of 32: only the batch axis is unknown, not the 32 pixels.
    images = np.zeros((64, 32, 32, 3), np.uint8)
    labels = np.zeros(64, np.int64)
    ds = tf.data.Dataset.from_tensor_slices((images, labels)).batch(32)
    ds = ds.map(lambda x, y: (tf.cast(x, tf.float32) / 255.0, y), num_parallel_calls=2)
    assert ds.element_spec == (
        tf.TensorSpec([None, 32, 32, 3], tf.float32),
        tf.TensorSpec([None], tf.int64),
    )


def test_map_spec_keeps_fixed_shapes_known():
    ds = tf.data.Dataset.range(6).map(lambda x: tf.fill([3], x))
    assert ds.element_spec == tf.TensorSpec([3], tf.int64)
    ds = tf.data.Dataset.range(6).filter(lambda x: x > 2).map(lambda x: (x, [x, x]))
    assert ds.element_spec == (tf.TensorSpec([], tf.int64), tf.TensorSpec([2], tf.int64))
    one = tf.data.Dataset.from_tensors(np.zeros((2, 5), np.float32)).map(lambda x: x[:, :3])
    assert one.element_spec == tf.TensorSpec([2, 3])


def test_map_spec_of_an_empty_dataset_is_traced_as_tensorflows():
    # TF traces the function on a placeholder of the input's spec: int64 scalars here.
    ds = tf.data.Dataset.range(0).map(lambda x: x * 2)
    assert ds.element_spec == tf.TensorSpec((), tf.int64)


def test_a_shape_of_known_rank_is_truthy_as_tensorflows():
    # TensorFlow's TensorShape.__bool__: whether the rank is known (a scalar's shape too).
    assert bool(tf.TensorShape([])) and bool(tf.constant(1.0).shape)
    assert bool(tf.zeros([0]).shape) and bool(tf.TensorShape([None, 3]))
    assert not bool(tf.TensorShape(None))
    # Code that relied on an empty tuple's falsiness still sees scalars as scalars.
    loss = tf.constant(2.0)
    with pytest.raises(ValueError, match="must have a batch axis"):
        tf.nn.compute_average_loss(loss)
