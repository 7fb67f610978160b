"""Divergences found running keras-io vision examples (deit, cait, ...) against eagerkernel.

Expected numbers come from the oracle (tensorflow-cpu 2.21 + Keras 3.15) running the same
code, or from closed forms stated next to them.
"""

import warnings

import numpy as np

import eagerkernel as tf
from eagerkernel import keras
from eagerkernel.runtime.keras.metrics_auto_accuracy import ShapeResolvedAccuracy


class _NoLossModel(keras.Model):
    """deit.py's DeiT: compile(optimizer, metrics) without a loss; train_step updates
    compiled_metrics itself."""

    def __init__(self):
        super().__init__()
        self.d = keras.layers.Dense(5)

    def call(self, x):
        return self.d(x)


def _update(y_true):
    m = _NoLossModel()
    m.compile(optimizer="sgd", metrics=["accuracy"])
    preds = tf.constant(np.eye(5, dtype="float32")[[0, 1, 4, 4]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # Keras 3's deprecation shim warns
        m.compiled_metrics.update_state(y_true, preds)
    return {mm.name: mm.result() for mm in m.metrics}


def test_accuracy_without_loss_is_categorical_for_one_hot_labels():
    # oracle: compile_metrics.result() == {'accuracy': 0.5} (argmax 0,1 right; 2,3 wrong);
    # elementwise Accuracy would give 16/20 = 0.8
    res = _update(tf.one_hot([0, 1, 2, 3], 5))
    assert float(res["accuracy"]) == 0.5


def test_accuracy_without_loss_is_sparse_for_integer_labels():
    # oracle: {'accuracy': 0.5}; elementwise Accuracy broadcast [4,1] vs [4,5] gave 0.25
    res = _update(tf.constant([[0], [1], [2], [3]]))
    assert float(res["accuracy"]) == 0.5


def test_accuracy_with_mse_loss_follows_batch_shapes():
    # oracle: evaluate(...) == {'accuracy': 0.75, 'loss': 0.6666667} (categorical accuracy:
    # argmax of rows [1,0,0],[0,1,0],[0,1,0],[-1,-2,0] is 0,1,1,2 against labels 0,1,0,2)
    m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3, use_bias=False)])
    m.set_weights([np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], "float32")])
    m.compile("sgd", loss="mse", metrics=["accuracy"])
    x = np.array([[1, 0], [0, 1], [0, 1], [-1, -2]], "float32")
    y = np.eye(3, dtype="float32")[[0, 1, 0, 2]]
    logs = m.evaluate(x, y, verbose=0, return_dict=True)
    assert logs["accuracy"] == 0.75
    np.testing.assert_allclose(logs["loss"], 2.0 / 3.0, rtol=1e-6)


def test_shape_resolved_accuracy_binary_and_reset():
    # y_pred last axis 1 -> binary accuracy at 0.5: [0.9>0.5]==1, [0.2>0.5]==1 -> 0.5
    m = ShapeResolvedAccuracy()
    m.update_state([[1.0], [1.0]], [[0.9], [0.2]])
    assert float(m.result()) == 0.5
    m.reset_state()
    assert float(m.result()) == 0.0
    m.update_state([[0.0]], [[0.3]])
    assert float(m.result()) == 1.0


class _PositionalTraining(keras.layers.Layer):
    """cait.py's ClassAttn: passes `training` positionally to an inner Dropout."""

    def __init__(self):
        super().__init__()
        self.drop = keras.layers.Dropout(0.5)

    def call(self, x, training=None):
        return self.drop(x, training)


def test_positional_training_none_in_functional_build_and_eager():
    # oracle: keras.Input((8,)) -> layer works, output shape (None, 8); eager call with
    # training=None leaves the input unchanged (Dropout at inference); used to raise
    # "Dropout.call() got multiple values for argument 'training'"
    layer = _PositionalTraining()
    out = layer(keras.Input((8,)))
    assert tuple(out.shape) == (None, 8)
    x = np.ones((2, 8), "float32")
    np.testing.assert_array_equal(np.asarray(layer(x)), x)
    np.testing.assert_array_equal(np.asarray(keras.layers.Dropout(0.5)(x, None)), x)


def test_positional_training_false_keeps_inputs():
    # Keras 3 rejects a positional bool (ValueError "Only input tensors may be passed as
    # positional arguments"); eagerkernel accepts it as tf.keras 2 did: False -> identity.
    x = np.ones((2, 8), "float32")
    np.testing.assert_array_equal(np.asarray(keras.layers.Dropout(0.5)(x, False)), x)


def test_positional_training_true_drops():
    # training=True positionally: rate 0.5 keeps entries scaled by 1 / (1 - 0.5) = 2
    keras.utils.set_random_seed(0)
    y = np.asarray(keras.layers.Dropout(0.5)(np.ones((4, 64), "float32"), True))
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert 0 < np.count_nonzero(y) < y.size
