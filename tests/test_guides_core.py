"""The TensorFlow Core guides (site/en/guide/core/*: quickstart, logistic regression, MLP,
optimizers, matrices) run against eagerkernel with only the import changed: what differed
from TensorFlow 2.21, pinned here with values worked out by hand (closed forms)."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as tf


class _LinearRegression(tf.Module):
    """The quickstart_core model: a `tf.function` that creates its Variables from
    `tf.random.uniform` on its first call."""

    def __init__(self):
        self.built = False

    @tf.function
    def __call__(self, x):
        if not self.built:
            rand_w = tf.random.uniform(shape=[x.shape[-1], 1])
            rand_b = tf.random.uniform(shape=[])
            self.w = tf.Variable(rand_w)
            self.b = tf.Variable(rand_b)
            self.built = True
        y = tf.add(tf.matmul(x, self.w), self.b)
        return tf.squeeze(y, axis=1)


def test_function_that_creates_variables_reads_them_on_later_calls():
    # quickstart_core: after the first call the variables are assigned; the next call with
    # the same input signature must read them (TensorFlow: 3.5 = 3 * 1 + 0.5), not replay
    # the random initializers the variables were made from.
    m = _LinearRegression()
    x = tf.ones([1, 3])
    first = m(x).numpy()
    np.testing.assert_allclose(first, [m.w.numpy().sum() + m.b.numpy()], rtol=1e-6)
    m.w.assign(np.ones((3, 1), "float32"))
    m.b.assign(0.5)
    np.testing.assert_allclose(m(x).numpy(), [3.5])
    m.w.assign(2 * np.ones((3, 1), "float32"))
    np.testing.assert_allclose(m(x).numpy(), [6.5])
    np.testing.assert_allclose(m(tf.ones([2, 3])).numpy(), [6.5, 6.5])


def test_function_that_creates_variables_sees_gradient_updates():
    # The training loop of quickstart_core: a gradient step between two calls of one
    # signature changes the next output. y = x @ w + b with x = ones(1, 2): dy/dw = 1 each,
    # dy/db = 1; after w -= 0.25 * 1 and b -= 0.25 * 1 the output drops by 3 * 0.25.
    m = _LinearRegression()
    x = tf.ones([1, 2])
    with tf.GradientTape() as tape:
        y0 = m(x)
    grads = tape.gradient(y0, m.variables)
    for g, v in zip(grads, m.variables):
        v.assign_sub(0.25 * g)
    np.testing.assert_allclose(m(x).numpy(), y0.numpy() - 0.75, rtol=1e-6)


class _Export(tf.Module):
    """The core guides' ExportModule: an open ``[None, None]`` signature whose features must
    match the model's (here 4)."""

    def __init__(self):
        self.mean = tf.Variable([1.0, 2.0, 3.0, 4.0])

    @tf.function(input_signature=[tf.TensorSpec(shape=[None, None], dtype=tf.float32)])
    def __call__(self, x):
        return tf.reduce_sum(x - self.mean, axis=1)


def test_saved_export_module_called_once_keeps_the_batch_open(tmp_path):
    # No size of the feature dimension but 4 traces, so no template over both dimensions;
    # after one call at (7, 4) the saved function takes any batch of 4 features, as
    # TensorFlow's (whose symbolic trace takes any batch) does.
    m = _Export()
    m(tf.zeros([7, 4]))
    with pytest.warns(UserWarning, match=r"shape=\(None, 4\)"):
        tf.saved_model.save(m, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    x = np.arange(12, dtype="float32").reshape(3, 4)
    # row r: sum(4r + j - (j + 1) for j in 0..3) = 16r - 4
    np.testing.assert_allclose(loaded(tf.constant(x)).numpy(), [-4.0, 12.0, 28.0])
    np.testing.assert_allclose(loaded(tf.zeros([7, 4])).numpy(), [-10.0] * 7)
    with pytest.raises(tf.errors.InvalidArgumentError):
        loaded(tf.zeros([2, 5]))
