"""Behaviours the keras-io recipes rely on (examples/keras_recipes, checked against Keras 3.15):
a layer called with keyword arguments only, and metrics held as layer attributes."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

keras = ek.keras


class LogisticEndpoint(keras.layers.Layer):
    """The endpoint-layer pattern: the loss and a metric computed inside the layer."""

    def __init__(self, name=None):
        super().__init__(name=name)
        self.accuracy_fn = keras.metrics.BinaryAccuracy(name="accuracy")

    def call(self, logits, targets=None):
        if targets is not None:
            loss = keras.losses.binary_crossentropy(targets, logits, from_logits=True)
            self.add_loss(keras.ops.mean(loss))
            self.accuracy_fn.update_state(targets, keras.ops.sigmoid(logits))
        return keras.ops.sigmoid(logits)


def test_a_layer_takes_its_first_argument_by_name():
    layer = LogisticEndpoint()
    x = np.array([[0.0], [2.0]], np.float32)
    np.testing.assert_allclose(layer(logits=x).numpy(), 1 / (1 + np.exp(-x)), rtol=1e-6)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'logits'"):
        layer(targets=x)
    inputs, targets = keras.Input((3,)), keras.Input((1,))
    out = LogisticEndpoint()(logits=keras.layers.Dense(1)(inputs), targets=targets)
    assert tuple(out.shape) == (None, 1)


def test_metrics_held_as_layer_attributes_are_logged_and_reset():
    inputs, targets = keras.Input((3,)), keras.Input((1,))
    endpoint = LogisticEndpoint()
    out = endpoint(
        logits=keras.layers.Dense(1, kernel_initializer="zeros")(inputs), targets=targets
    )
    model = keras.Model([inputs, targets], out)
    model.compile(optimizer=keras.optimizers.SGD(0.0))  # the weights stay: p = 0.5 everywhere
    assert [m.name for m in model.metrics] == ["loss", "accuracy"]
    x = np.ones((8, 3), np.float32)
    y = np.array([[1.0]] * 6 + [[0.0]] * 2, np.float32)
    history = model.fit([x, y], epochs=2, batch_size=4, verbose=0)
    # BinaryAccuracy thresholds at 0.5 (p > 0.5 is 1): every prediction is 0, right for 2 of 8;
    # reset each epoch, so the second epoch's value is that of its own batches.
    assert history.history["accuracy"] == pytest.approx([0.25, 0.25])
    assert history.history["loss"] == pytest.approx([np.log(2)] * 2, rel=1e-5)


def test_a_conv_layers_convolution_op_can_be_overridden():
    # keras-io's subclassing_conv_layers: a weight-standardized convolution.
    class StandardizedConv2D(keras.layers.Conv2D):
        def convolution_op(self, inputs, kernel):
            mean = keras.ops.mean(kernel, axis=[0, 1, 2], keepdims=True)
            var = keras.ops.var(kernel, axis=[0, 1, 2], keepdims=True)
            return super().convolution_op(inputs, (kernel - mean) / keras.ops.sqrt(var + 1e-10))

    x = np.random.default_rng(0).random((1, 6, 6, 2), dtype=np.float32)
    plain = keras.layers.Conv2D(4, 3, use_bias=False)
    standardized = StandardizedConv2D(4, 3, use_bias=False)
    plain.build(x.shape)
    standardized.build(x.shape)
    k = np.random.default_rng(1).normal(size=(3, 3, 2, 4)).astype(np.float32)
    plain.kernel.assign(k)
    standardized.kernel.assign(k)
    np.testing.assert_allclose(
        plain.convolution_op(x, plain.kernel).numpy(), plain(x).numpy(), rtol=1e-6
    )
    k_std = (k - k.mean((0, 1, 2))) / np.sqrt(k.var((0, 1, 2)) + 1e-10)
    plain.kernel.assign(k_std)
    np.testing.assert_allclose(standardized(x).numpy(), plain(x).numpy(), rtol=1e-4, atol=1e-5)


def test_a_lambda_with_a_fixed_output_shape_on_two_inputs():
    # keras-io's siamese_contrastive: the batch comes from the first input.
    a, b = keras.Input((10,)), keras.Input((10,))
    distance = keras.layers.Lambda(
        lambda v: keras.ops.sum(keras.ops.square(v[0] - v[1]), 1, keepdims=True),
        output_shape=(1,),
    )([a, b])
    assert tuple(distance.shape) == (None, 1)
    model = keras.Model([a, b], distance)
    x, y = np.ones((3, 10), np.float32), np.zeros((3, 10), np.float32)
    np.testing.assert_allclose(model([x, y]).numpy(), np.full((3, 1), 10.0))


def test_a_model_with_outputs_given_as_a_one_element_list_returns_the_tensor():
    # keras-io's involution example: Model([inputs], [outputs]) trains as a one-output model.
    inputs = keras.Input((4,))
    model = keras.Model([inputs], [keras.layers.Dense(3)(inputs)])
    assert isinstance(model(np.ones((2, 4), np.float32)), ek.Tensor)
    assert tuple(model(keras.Input((4,))).shape) == (None, 3)
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(np.ones((8, 4)), np.zeros((8, 1)), verbose=0)
    assert list(history.history) == ["loss"]


@pytest.mark.parametrize("name", ["sigmoid", "relu", "linear", "softmax", "gelu", "swish"])
def test_activations_called_on_keras_tensors_build_a_model(name, tmp_path):
    # keras-io's memory_efficient_embeddings: keras.activations.sigmoid(logits) * 5.
    inputs = keras.Input((3,))
    model = keras.Model(inputs, getattr(keras.activations, name)(inputs) * 5.0)
    x = np.array([[-1.0, 0.0, 2.0]], np.float32)
    expected = 5.0 * getattr(keras.activations, name)(ek.constant(x)).numpy()
    np.testing.assert_allclose(model(x).numpy(), expected, rtol=1e-6)
    model.save(tmp_path / "m.keras")  # an Activation layer: saved by the activation's name
    np.testing.assert_allclose(
        keras.models.load_model(tmp_path / "m.keras")(x).numpy(), expected, rtol=1e-6
    )
    capped = keras.Model(inputs, keras.activations.relu(inputs, max_value=1.0))
    assert capped(x).numpy().tolist() == [[0.0, 0.0, 1.0]]


def test_lookups_in_a_sequential_on_a_string_input():
    # memory_efficient_embeddings: StringLookup(num_oov_indices=0) then Embedding, called on
    # a string Input: no stand-in token is looked up, and the indices are int64.
    layers = keras.layers
    lookup = layers.StringLookup(vocabulary=["a", "b", "c"], mask_token=None, num_oov_indices=0)
    inputs = keras.Input(shape=(), dtype="string")
    assert lookup(inputs).dtype == ek.int64
    encoder = keras.Sequential([lookup, layers.Embedding(3, 4)])
    model = keras.Model(inputs, encoder(inputs))
    assert tuple(model.output.shape) == (None, 4) and model.output.dtype == ek.float32
    out = model(np.array(["a", "c"])).numpy()
    table = encoder.layers[1].embeddings.numpy()
    np.testing.assert_array_equal(out, table[[0, 2]])
    tf_idf = layers.StringLookup(vocabulary=["a"], output_mode="tf_idf", idf_weights=[1.0])
    assert tf_idf(keras.Input((1,), dtype="string")).dtype == ek.float32


def test_load_weights_reads_a_keras_archive(tmp_path):
    # keras-io's convmixer: checkpoint to a .keras file, then model.load_weights(it).
    def make(units=3):
        return keras.Sequential(
            [keras.Input((4,)), keras.layers.Dense(units), keras.layers.BatchNormalization()]
        )

    saved = make()
    saved.layers[1].moving_mean.assign([1.0, 2.0, 3.0])
    saved.save(tmp_path / "m.keras")
    fresh = make()
    fresh.load_weights(tmp_path / "m.keras")
    for a, b in zip(saved.get_weights(), fresh.get_weights()):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match=r"of shape \(4, 5\), but received shape \(4, 3\)"):
        make(5).load_weights(tmp_path / "m.keras")


def test_a_sequential_called_on_a_keras_tensor_is_built_for_it():
    # keras-io's sequential_model guide: feature extraction from a Sequential model built by
    # calling it, as Keras 3 builds it.
    model = keras.Sequential([keras.layers.Dense(3), keras.layers.Dense(2)])
    out = model(keras.Input((4,)))
    assert tuple(out.shape) == (None, 2)
    assert [tuple(t.shape) for t in model.inputs] == [(None, 4)]
    extractor = keras.Model(model.inputs, [layer.output for layer in model.layers])
    x = np.ones((1, 4), np.float32)
    first, second = extractor(x)
    np.testing.assert_allclose(first.numpy(), model.layers[0](x).numpy(), rtol=1e-6)
    np.testing.assert_allclose(second.numpy(), model(x).numpy(), rtol=1e-6)


def test_structured_data_idioms():
    # keras-io's structured_data_classification_from_scratch and multi_label_classification.
    layers = keras.layers
    assert ek.constant(["a"]).dtype == "string" and ek.constant([1.0]).dtype != "string"
    binary = layers.IntegerLookup(
        vocabulary=[0, 1, 2], mask_token=None, num_oov_indices=0, output_mode="binary"
    )
    assert binary.output_mode == "multi_hot"  # Keras 2's name
    assert binary(np.array([1])).numpy().tolist() == [0, 1, 0]
    assert layers.TextVectorization(output_mode="tf-idf").output_mode == "tf_idf"
    mixed = layers.concatenate([np.ones((2, 1), np.float32), np.full((2, 3), 2, np.int64)])
    assert mixed.dtype == ek.float32 and mixed.numpy().tolist() == [[1.0, 2.0, 2.0, 2.0]] * 2


def test_string_lookup_on_ragged_terms():
    terms = np.empty(3, object)  # a pandas column of lists
    terms[:] = [["a", "b"], ["a"], ["c", "a"]]
    ragged = ek.ragged.constant(terms)
    assert isinstance(ragged, ek.RaggedTensor) and ragged.to_list() == [
        [b"a", b"b"],
        [b"a"],
        [b"c", b"a"],
    ]
    lookup = keras.layers.StringLookup(output_mode="multi_hot")
    lookup.adapt(ragged)
    assert lookup.get_vocabulary() == ["[UNK]", "a", "c", "b"]  # Keras 3's order
    assert lookup(ragged).numpy().tolist() == [[0, 1, 0, 1], [0, 1, 0, 0], [0, 1, 1, 0]]
    indices = keras.layers.StringLookup(vocabulary=["a", "b", "c"])(ragged)
    assert indices.to_list() == [[1, 2], [1], [3, 1]]


def test_cross_entropies_of_a_sigmoid_or_softmax_output_use_its_logits():
    # Keras 3's _keras_logits: a saturated sigmoid gives the true loss, not a clipped one
    # (keras-io's structured_data example: loss ~160 in Keras, ~8 with clipping).
    x = np.array([[100.0], [-100.0]], np.float32)
    y = np.array([[0.0], [1.0]], np.float32)
    p = keras.activations.sigmoid(x)
    np.testing.assert_allclose(keras.losses.binary_crossentropy(y, p).numpy(), [100.0, 100.0])
    np.testing.assert_allclose(keras.ops.binary_crossentropy(y, p).numpy(), [[100.0], [100.0]])
    s = keras.activations.softmax(np.array([[100.0, -100.0]], np.float32))
    np.testing.assert_allclose(keras.losses.categorical_crossentropy([[0.0, 1.0]], s), [200.0])
    np.testing.assert_allclose(keras.losses.sparse_categorical_crossentropy([1], s), [200.0])
    # A tensor equal to it but not the sigmoid's output is clipped: 1 - 1e-7 as before.
    clipped = keras.losses.binary_crossentropy(y, ek.constant(p.numpy())).numpy()
    assert clipped.min() > 15.0 and clipped.max() < 17.0  # -log(~1e-7) in float32
    # And the gradient flows through the logits: d/dx of -log(1 - sigmoid(x)) is sigmoid(x).
    v = ek.Variable([[3.0]])
    with ek.GradientTape() as tape:
        loss = keras.losses.binary_crossentropy([[0.0]], keras.activations.sigmoid(v))
    np.testing.assert_allclose(
        tape.gradient(loss, v).numpy(), [[1 / (1 + np.exp(-3.0))]], rtol=1e-6
    )


def test_compiled_metrics_answers_a_custom_train_steps_calls():
    # keras-io's knowledge_distillation: self.compiled_metrics.update_state(y, y_pred).
    inputs = keras.Input((2,))
    model = keras.Model(inputs, keras.layers.Dense(2, kernel_initializer="identity")(inputs))
    model.compile(loss="mse", metrics=["mae"], weighted_metrics=["mse"])
    y, y_pred = np.zeros((2, 2), np.float32), np.array([[1.0, 1.0], [3.0, 3.0]], np.float32)
    model.compiled_metrics.update_state(y, y_pred, sample_weight=np.array([1.0, 0.0]))
    result = {k: float(v) for k, v in model.compiled_metrics.result().items()}
    assert result == {"mae": 2.0, "mse": 1.0}  # only the weighted metric sees the weights
    model.compiled_metrics.reset_state()
    assert float(model.compiled_metrics[0].result()) == 0.0
    assert [m.name for m in model.compiled_metrics] == ["mae", "mse"]


def test_losses_and_metrics_leave_out_masked_timesteps():
    # keras-io's NMT transformer: an Embedding(mask_zero=True) upstream of a sequence output;
    # Keras 3 weights the masked timesteps 0 in the compiled loss and metrics.
    layers = keras.layers
    inputs = keras.Input((4,), dtype="int32")
    h = layers.Embedding(10, 3, mask_zero=True)(inputs)
    model = keras.Model(inputs, layers.Dense(5, activation="softmax")(h))
    model.compile(loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    x = np.array([[1, 2, 0, 0], [3, 0, 0, 0]])
    y = np.array([[1, 2, 4, 4], [0, 3, 3, 3]])
    p = model(x).numpy()
    kept = x != 0
    nll = -np.log(np.take_along_axis(p, y[..., None], -1)[..., 0])
    hits = p.argmax(-1) == y
    loss, accuracy = model.evaluate(x, y, verbose=0)
    np.testing.assert_allclose(loss, nll[kept].mean(), rtol=1e-5)
    np.testing.assert_allclose(accuracy, hits[kept].mean(), rtol=1e-6)


def test_an_output_without_a_loss_needs_no_target():
    # keras-io's miniature GPT: Model(inputs, [logits, hidden]) with loss=[scce, None].
    inputs = keras.Input((4,))
    outputs = [keras.layers.Dense(3)(inputs), keras.layers.Dense(2)(inputs)]
    model = keras.Model(inputs, outputs)
    model.compile("sgd", loss=[keras.losses.SparseCategoricalCrossentropy(from_logits=True), None])
    x, y = np.ones((8, 4), np.float32), np.zeros((8,))
    logits = model(x)[0].numpy()
    expected = -np.log(np.exp(logits[:, 0]) / np.exp(logits).sum(-1)).mean()
    np.testing.assert_allclose(model.evaluate(x, y, verbose=0), expected, rtol=1e-5)


def test_tile_takes_a_tensor_of_repeats():
    m = keras.ops.ones((1, 2, 2))
    repeats = keras.ops.concatenate([keras.ops.convert_to_tensor([3]), keras.ops.ones(2, "int32")])
    assert tuple(keras.ops.tile(m, repeats).shape) == (3, 2, 2)
