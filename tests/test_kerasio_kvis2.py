"""Divergences found running keras-io vision examples (captcha_ocr) against TensorFlow 2.21 +
Keras 3.15; expected numbers computed with that oracle unless a closed form is named."""

import numpy as np
import pytest
from eagerkernel.keras import layers, ops

import eagerkernel as ek
from eagerkernel import keras


def test_ops_cast_keeps_sparse_tensor():
    # keras.ops.cast on a SparseTensor (captcha_ocr's ctc_batch_cost) casts its values
    st = ek.SparseTensor([[0, 0], [1, 2]], ek.constant([1, 2], "int64"), [2, 3])
    out = ops.cast(st, "int32")
    assert isinstance(out, ek.SparseTensor)
    assert out.dtype == ek.int32
    assert out.values.numpy().tolist() == [1, 2]
    assert out.indices.numpy().tolist() == [[0, 0], [1, 2]]
    assert tuple(out.shape) == (2, 3)


class _TwoInputs(layers.Layer):
    def call(self, y_true, y_pred):
        raise RuntimeError("call must not run on symbolic inputs")

    def compute_output_shape(self, y_true_shape, y_pred_shape):
        return (*y_pred_shape[:-1], 7)


def test_compute_output_shape_with_several_tensor_arguments():
    # Keras 3 passes y_true_shape / y_pred_shape by name; oracle gives (None, 5, 7) float32
    out = _TwoInputs()(keras.Input((None,)), keras.Input((5, 3)))
    assert tuple(out.shape) == (None, 5, 7)
    assert out.dtype == ek.float32


class _OneShapeArg(layers.Layer):
    def call(self, x, scale):
        raise RuntimeError("call must not run on symbolic inputs")

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], 2)


def test_compute_output_shape_single_parameter_gets_first_tensor_shape():
    out = _OneShapeArg()(keras.Input((4, 3)), keras.Input((9,)))
    assert tuple(out.shape) == (None, 4, 2)


class _PerExampleLoss(layers.Layer):
    def call(self, x):
        self.add_loss(ops.ones((ops.shape(x)[0], 1)) * 2.0)
        return x


def test_add_loss_per_example_is_summed():
    # Keras 3 sums a non-scalar add_loss: 4 examples * 2.0 + mse 0 = 8.0 (oracle: 8.0)
    inp = keras.Input((2,))
    out = layers.Dense(1, kernel_initializer="zeros")(_PerExampleLoss()(inp))
    model = keras.Model(inp, out)
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.ones((4, 2), "float32"), np.zeros((4, 1), "float32")
    assert model.evaluate(x, y, batch_size=4, verbose=0) == pytest.approx(8.0)


def _ctc_inputs():
    logits = ek.constant(np.random.default_rng(0).normal(size=(6, 2, 4)).astype("float32"))
    labels = ek.SparseTensor(
        [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]], ek.constant([1, 1, 0, 2, 1], "int32"), [2, 3]
    )
    return logits, labels


def test_compat_v1_ctc_loss_signature_and_values():
    # blank = last class; oracle: tf.compat.v1.nn.ctc_loss(labels=, inputs=, sequence_length=)
    logits, labels = _ctc_inputs()
    with ek.GradientTape() as tape:
        tape.watch(logits)
        loss = ek.compat.v1.nn.ctc_loss(
            labels=labels, inputs=logits, sequence_length=ek.constant([6, 5])
        )
    np.testing.assert_allclose(loss.numpy(), [4.72092, 5.23149], atol=1e-4)
    grad = tape.gradient(loss, logits).numpy()
    np.testing.assert_allclose(grad[0, 0], [0.22598, -0.42986, 0.37809, -0.1742], atol=1e-4)
    np.testing.assert_allclose(grad[5, 1], 0.0)  # past example 1's 5 frames
    batch_major = ek.compat.v1.nn.ctc_loss(
        labels, ek.transpose(logits, [1, 0, 2]), [6, 5], time_major=False
    )
    np.testing.assert_allclose(batch_major.numpy(), [4.72092, 5.23149], atol=1e-4)


def test_compat_v1_ctc_loss_ignore_longer_outputs_than_inputs():
    logits, labels = _ctc_inputs()
    loss = ek.compat.v1.nn.ctc_loss(labels, logits, [6, 2], ignore_longer_outputs_than_inputs=True)
    np.testing.assert_allclose(loss.numpy(), [4.72092, 0.0], atol=1e-4)  # oracle
    assert ek.compat.v1.nn.relu is ek.nn.relu
    with pytest.raises(NotImplementedError):
        ek.compat.v1.nn.ctc_loss(labels, logits, [6, 5], ctc_merge_repeated=False)
