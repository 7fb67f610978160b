"""keras-io keras_recipes examples on eagerkernel: list dtype inference, a StringLookup
inside a custom layer of a functional model, ``compiled_loss(..., regularization_losses=)``
and the key order of parsed Examples. Expected values were computed with TensorFlow 2.21 +
Keras 3.15 (the oracle venv) on the same inputs, or are closed forms."""

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel import keras

layers = keras.layers


# -- sample_size_estimate: tf.convert_to_tensor([np.mean(...) for ...]) -------------------------
@pytest.mark.parametrize(
    "value, dtype",
    [
        # oracle: tf.constant(value).dtype.name
        ([np.float64(1.5), 2.0], "float64"),
        ([[np.float64(1.0)], [2.0]], "float64"),
        ((np.float64(1.5), 2.5), "float64"),
        ([np.float64(1.0), np.float32(2.0)], "float64"),
        ([np.float64(1.0), np.int64(2)], "float64"),
        ([np.float16(1.0), np.float64(2.0)], "float16"),
        ([np.array([1.5])], "float64"),
        ([np.zeros(2), [1.0, 2.0]], "float64"),
        ([1.5, np.float64(2.0)], "float32"),
        ([[1.0, 2.0], np.zeros(2)], "float32"),
        ([np.float32(1.0), np.float64(2.0)], "float32"),
        ([np.int64(2), np.float64(1.0)], "float32"),
        ([1.0], "float32"),
    ],
)
def test_a_list_takes_the_dtype_of_its_first_numpy_float(value, dtype):
    assert ek.constant(value).dtype.name == dtype
    assert ek.convert_to_tensor(value).dtype.name == dtype


def test_a_list_led_by_a_float64_holds_values_past_float32():
    # oracle: tf.constant([np.float64(1.0), 1e300]) is float64 [1, 1e300] (no overflow error)
    t = ek.constant([np.float64(1.0), 1e300])
    assert t.dtype == ek.float64 and t.numpy().tolist() == [1.0, 1e300]
    mean_acc = ek.convert_to_tensor([np.mean(i) for i in ([0.8202, 0.7466], [0.861, 0.8774])])
    assert mean_acc.dtype == ek.float64
    np.testing.assert_array_equal(mean_acc.numpy(), [np.mean([0.8202, 0.7466]), 0.8692])
    with pytest.raises(ValueError, match="out of range for float32"):
        ek.constant([1.0, 1e300])  # Python floats stay float32, as TensorFlow


# -- memory_efficient_embeddings: QREmbedding's StringLookup(num_oov_indices=0) -----------------
class QREmbedding(layers.Layer):
    def __init__(self, vocabulary, embedding_dim, num_buckets, name=None):
        super().__init__(name=name)
        self.num_buckets = num_buckets
        self.index_lookup = layers.StringLookup(
            vocabulary=vocabulary, mask_token=None, num_oov_indices=0
        )
        self.q_embeddings = layers.Embedding(num_buckets, embedding_dim)
        self.r_embeddings = layers.Embedding(num_buckets, embedding_dim)

    def call(self, inputs):
        index = self.index_lookup(inputs)
        q = self.q_embeddings(ek.math.floordiv(index, self.num_buckets))
        r = self.r_embeddings(ek.math.floormod(index, self.num_buckets))
        return q * r


def test_string_lookup_without_oov_inside_a_custom_layer_on_a_symbolic_input():
    vocab = ["u1", "u2", "u3", "u4", "u5"]
    inputs = keras.Input(shape=(), dtype="string")
    qr = QREmbedding(vocab, 3, num_buckets=3)
    model = keras.Model(inputs, qr(inputs))  # used to raise: '' is not in the vocabulary
    assert tuple(model.output.shape) == (None, 3) and model.output.dtype == ek.float32
    q = qr.q_embeddings.embeddings.numpy()
    r = qr.r_embeddings.embeddings.numpy()
    out = model(np.array(["u5", "u2"])).numpy()
    # closed form: u5 is index 4 -> q[4 // 3] * r[4 % 3]; u2 is index 1 -> q[0] * r[1]
    np.testing.assert_allclose(out, [q[1] * r[1], q[0] * r[1]])
    with pytest.raises(ValueError, match="not in the vocabulary"):
        model(np.array(["nobody"]))  # a real call still rejects an unknown token


# -- trainer_pattern: self.compiled_loss(y, y_pred, regularization_losses=self.losses) ----------
class MyTrainer(keras.Model):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def train_step(self, data):
        x, y = data
        with ek.GradientTape() as tape:
            y_pred = self.model(x, training=True)
            loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.compiled_metrics.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}

    def call(self, x):
        return self.model(x)


def test_compiled_loss_takes_regularization_losses():
    inner = keras.Sequential(
        [keras.Input((2,)), layers.Dense(1, kernel_regularizer=keras.regularizers.L2(0.5))]
    )
    inner.layers[0].kernel.assign([[1.0], [2.0]])
    trainer = MyTrainer(inner)
    trainer.compile(keras.optimizers.SGD(0.0), loss="mse", metrics=["mae"])
    x, y = np.array([[1.0, 1.0]], "float32"), np.array([[1.0]], "float32")
    y_pred = trainer(x)  # 3.0
    loss = trainer.compiled_loss(y, y_pred, regularization_losses=trainer.losses)
    # closed form: mse (3 - 1)**2 = 4, plus 0.5 * (1 + 4) = 2.5
    assert float(loss) == pytest.approx(6.5)
    assert float(trainer.compiled_loss(y, y_pred)) == pytest.approx(4.0)
    assert trainer.compiled_loss.name == "mean_squared_error"  # the loss's own attributes
    logs = trainer.fit(x, y, epochs=1, verbose=0).history
    assert logs["mae"] == [pytest.approx(2.0)]


def test_multi_output_compiled_loss_takes_regularization_losses():
    inputs = keras.Input((1,))
    model = keras.Model(
        inputs, [layers.Dense(1, name="a")(inputs), layers.Dense(1, name="b")(inputs)]
    )
    model.compile(loss=["mse", "mae"])
    y, pred = [np.zeros((1, 1)), np.zeros((1, 1))], [ek.constant([[2.0]]), ek.constant([[-3.0]])]
    total = model.compiled_loss(y, pred, regularization_losses=[ek.constant(0.25)])
    assert float(total) == pytest.approx(4.0 + 3.0 + 0.25)  # closed form


# -- creating_tfrecords: the order of parse_single_example's dict ------------------------------
def test_parsed_example_keys_are_sparse_then_dense_then_ragged():
    feature = ek.train.Feature(int64_list=ek.train.Int64List(value=[1, 2]))
    features = ek.train.Features(feature={k: feature for k in "abcdyz"})
    record = ek.train.Example(features=features).SerializeToString()
    spec = {
        "z": ek.io.FixedLenFeature([2], ek.int64),
        "b": ek.io.VarLenFeature(ek.int64),
        "a": ek.io.FixedLenFeature([2], ek.int64),
        "r": ek.io.RaggedFeature(ek.int64, "y"),
        "c": ek.io.VarLenFeature(ek.int64),
        "d": ek.io.RaggedFeature(ek.int64, "d"),
        "e": ek.io.FixedLenSequenceFeature([], ek.int64, allow_missing=True, default_value=0),
    }
    # oracle: list(tf.io.parse_single_example(record, spec)) and parse_example([record], spec)
    expected = ["b", "c", "a", "e", "z", "d", "r"]
    assert list(ek.io.parse_single_example(record, spec)) == expected
    assert list(ek.io.parse_example([record], spec)) == expected


# -- sklearn_metric_callbacks: what tf.summary.scalar returns ----------------------------------
def test_summary_ops_return_a_bool_tensor(tmp_path):
    # oracle: <tf.Tensor: shape=(), dtype=bool, numpy=False> without a default writer, and
    # numpy=True for scalar/histogram/text/image inside `writer.as_default()`
    unwritten = ek.summary.scalar("a", 1.0, step=0)
    assert isinstance(unwritten, ek.Tensor) and unwritten.dtype == ek.bool
    assert unwritten.shape == () and not unwritten
    writer = ek.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        results = [
            ek.summary.scalar("a", 1.0, step=0),
            ek.summary.histogram("h", [1.0, 2.0], step=0),
            ek.summary.text("t", "x", step=0),
            ek.summary.image("i", ek.zeros((1, 2, 2, 1)), step=0),
        ]
    assert [(r.dtype, bool(r.numpy())) for r in results] == [(ek.bool, True)] * 4
