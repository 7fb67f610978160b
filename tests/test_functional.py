"""The Keras functional API: Input, KerasTensor, Model(inputs, outputs), summary."""

import numpy as np
import pytest

import eagerkernel as ek

keras = ek.keras
layers = keras.layers


def rand(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


# -- Input and KerasTensor ------------------------------------------------------------------------
def test_input_shape_dtype_name_and_batch():
    x = keras.Input(shape=(None, 3), name="seq")
    assert x.shape == (None, None, 3) and x.dtype == ek.float32 and x.name == "seq"
    assert repr(x) == (
        "<KerasTensor shape=(None, None, 3), dtype=float32, sparse=False, ragged=False, name=seq>"
    )
    assert keras.Input(shape=(4,), batch_size=8, dtype="int32").shape == (8, 4)
    assert keras.Input(batch_shape=(2, 5)).shape == (2, 5)
    assert keras.Input(7).shape == (None, 7)
    assert layers.Input(shape=(2,)).shape == (None, 2)
    with pytest.raises(ValueError, match="exactly one of `shape`"):
        keras.Input(shape=(2,), batch_shape=(1, 2))
    with pytest.raises(ValueError, match="exactly one of `shape`"):
        keras.Input()
    with pytest.raises(NotImplementedError, match="ragged"):
        keras.Input(shape=(2,), ragged=True)
    assert keras.Input(shape=(2,), sparse=True).sparse


def test_keras_tensor_has_no_value():
    x = keras.Input(shape=(3,))
    with pytest.raises(TypeError, match="KerasTensor is symbolic"):
        np.asarray(x)
    with pytest.raises(TypeError, match="KerasTensor is symbolic"):
        bool(x)
    with pytest.raises(TypeError, match="Lambda"):
        ek.constant(x)


def test_layer_call_on_input_records_a_node_and_infers_shapes():
    x = keras.Input(shape=(None, None, 3))
    conv = layers.Conv2D(4, 3, padding="same")
    y = conv(x)
    assert y.shape == (None, None, None, 4)
    assert y._keras_history.layer is conv and y._keras_history.node_index == 0
    assert conv.built and conv.kernel.shape == (3, 3, 3, 4)
    ids = keras.Input(shape=(None,), dtype="int32")
    assert layers.Embedding(10, 5)(ids).dtype == ek.float32  # autocast rule
    assert layers.Reshape((-1,))(ids).dtype == ek.int32  # weightless: dtype passes through


class SwapAxes(layers.Layer):
    """No compute_output_shape: its shape is found by the stand-in calls."""

    def call(self, x):
        return ek.transpose(x, [0, 2, 1])


def test_shape_inference_without_compute_output_shape_keeps_unknown_sizes():
    x = keras.Input(shape=(None, 3))
    y = SwapAxes()(x)
    assert y.shape == (None, 3, None)
    model = keras.Model(x, y)
    np.testing.assert_array_equal(model(rand(2, 5, 3)).numpy(), rand(2, 5, 3).transpose(0, 2, 1))


def test_shape_inference_changes_no_state():
    x = keras.Input(shape=(3,))
    bn = layers.BatchNormalization()
    with ek.GradientTape() as tape:
        y = bn(layers.Dense(3)(x), training=True)
    assert y.shape == (None, 3)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), np.zeros(3))
    np.testing.assert_array_equal(bn.moving_variance.numpy(), np.ones(3))
    assert not tape.watched_variables()


# -- models ----------------------------------------------------------------------------------
def test_functional_model_computes_what_its_layers_compute():
    inputs = keras.Input(shape=(4,))
    d1, d2 = layers.Dense(8, activation="relu"), layers.Dense(2)
    model = keras.Model(inputs=inputs, outputs=d2(d1(inputs)), name="mlp")
    x = rand(5, 4)
    np.testing.assert_array_equal(model(x).numpy(), d2(d1(x)).numpy())
    assert [type(la).__name__ for la in model.layers] == ["InputLayer", "Dense", "Dense"]
    assert model.inputs == [inputs] and len(model.outputs) == 1
    assert model.get_layer(index=1) is d1 and model.get_layer(d2.name) is d2
    assert len(model.trainable_variables) == 4 and model.count_params() == 4 * 8 + 8 + 8 * 2 + 2
    assert type(model).__name__ == "Functional" and isinstance(model, keras.Model)


def test_get_layer_errors():
    inputs = keras.Input(shape=(2,))
    model = keras.Model(inputs, layers.Dense(1, name="only")(inputs))
    with pytest.raises(ValueError, match=r"No such layer: nope. Existing layers are"):
        model.get_layer("nope")
    with pytest.raises(ValueError, match="only has 2 layers"):
        model.get_layer(index=5)
    with pytest.raises(ValueError, match="only a layer name or a layer index"):
        model.get_layer()


def test_multiple_inputs_and_outputs_as_lists_and_dicts():
    a = keras.Input(shape=(3,), name="a")
    b = keras.Input(shape=(2,), name="b")
    merged = layers.concatenate([a, b])
    out1 = layers.Dense(1, name="one")(merged)
    out2 = layers.Dense(4, name="two")(merged)
    model = keras.Model([a, b], [out1, out2])
    xa, xb = rand(6, 3), rand(6, 2, seed=1)
    y1, y2 = model([xa, xb])
    assert y1.shape == (6, 1) and y2.shape == (6, 4)
    z1, z2 = model({"a": xa, "b": xb})  # by the Inputs' names
    np.testing.assert_array_equal(y1.numpy(), z1.numpy())
    np.testing.assert_array_equal(y2.numpy(), z2.numpy())
    both = np.concatenate([xa, xb], axis=1)
    np.testing.assert_allclose(y1.numpy(), both @ model.get_layer("one").kernel.numpy(), rtol=1e-5)
    named = keras.Model({"x": a, "y": b}, {"first": out1, "second": out2})
    out = named({"x": xa, "y": xb})
    assert set(out) == {"first", "second"}
    np.testing.assert_array_equal(out["second"].numpy(), y2.numpy())
    with pytest.raises(ValueError, match=r"missing data for input\(s\) \['b'\]"):
        model({"a": xa})
    with pytest.raises(ValueError, match="expects 2 input"):
        model([xa])


def test_inputs_are_converted_and_checked():
    inputs = keras.Input(shape=(3,))
    model = keras.Model(inputs, layers.Dense(2)(inputs))
    assert model(np.ones((2, 3), np.float64)).dtype == ek.float32
    with pytest.raises(ValueError, match=r"expected shape=\(None, 3\), found shape=\(2, 4\)"):
        model(np.ones((2, 4), np.float32))


def test_shared_layer_counts_once_and_has_two_nodes():
    shared = layers.Embedding(50, 4)
    a = keras.Input(shape=(None,), dtype="int32")
    b = keras.Input(shape=(None,), dtype="int32")
    ea, eb = shared(a), shared(b)
    assert eb._keras_history.node_index == 1
    model = keras.Model([a, b], layers.Add()([ea, eb]))
    assert sum(la is shared for la in model.layers) == 1
    assert model.count_params() == 50 * 4
    ia, ib = np.array([[1, 2]]), np.array([[3, 4]])
    table = shared.embeddings.numpy()
    np.testing.assert_allclose(model([ia, ib]).numpy(), table[ia] + table[ib], rtol=1e-6)


def test_models_nest_as_layers_and_compute_output_spec():
    def get_model():
        inputs = keras.Input(shape=(8,))
        return keras.Model(inputs, layers.Dense(1)(inputs))

    m1, m2, m3 = get_model(), get_model(), get_model()
    inputs = keras.Input(shape=(8,))
    y1 = m1(inputs)
    assert y1.shape == (None, 1)
    ensemble = keras.Model(inputs, layers.average([y1, m2(inputs), m3(inputs)]))
    x = rand(4, 8)
    expected = (m1(x).numpy() + m2(x).numpy() + m3(x).numpy()) / 3
    np.testing.assert_allclose(ensemble(x).numpy(), expected, rtol=1e-6)
    assert len(ensemble.trainable_variables) == 6

    encoder_in = keras.Input(shape=(None, 3))
    encoder = keras.Model(encoder_in, layers.Dense(5)(encoder_in))
    outer_in = keras.Input(shape=(7, 3))
    assert encoder(outer_in).shape == (None, 7, 5)  # shapes propagate through the inner graph


def test_operators_on_keras_tensors():
    x = keras.Input(shape=(2,))
    y = keras.Input(shape=(2,))
    model = keras.Model([x, y], [x + y, 2.0 * x - y, -x, x / 2.0])
    a, b = rand(3, 2), rand(3, 2, seed=1)
    s, d, n, h = (t.numpy() for t in model([a, b]))
    np.testing.assert_allclose(s, a + b, rtol=1e-6)
    np.testing.assert_allclose(d, 2 * a - b, rtol=1e-6)
    np.testing.assert_array_equal(n, -a)
    np.testing.assert_allclose(h, a / 2, rtol=1e-6)


def test_graph_errors():
    a = keras.Input(shape=(2,), name="a_in")
    b = keras.Input(shape=(2,), name="b_in")
    out = layers.Add()([a, b])
    with pytest.raises(
        ValueError, match=r'Graph disconnected: cannot obtain value for tensor .* at layer "b_in"'
    ):
        keras.Model(a, out)
    with pytest.raises(ValueError, match="must be KerasTensors"):
        keras.Model(a, ek.ones((1, 2)))
    x = keras.Input(shape=(2,))
    y = layers.Dense(2, name="same")(x)
    z = layers.Dense(2, name="same")(y)
    with pytest.raises(ValueError, match='The name "same" is used 2 times'):
        keras.Model(x, z)


def test_training_flag_reaches_layers():
    inputs = keras.Input(shape=(100,))
    model = keras.Model(inputs, layers.Dropout(0.5, seed=1)(inputs))
    x = np.ones((1, 100), np.float32)
    np.testing.assert_array_equal(model(x).numpy(), x)
    assert set(model(x, training=True).numpy().ravel().tolist()) == {0.0, 2.0}


def test_fit_single_output_matches_closed_form_gradient_step():
    inputs = keras.Input(shape=(3,))
    dense = layers.Dense(1, kernel_initializer="zeros")
    model = keras.Model(inputs, dense(inputs))
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    x, y = rand(8, 3), rand(8, 1, seed=1)
    model.fit(x, y, batch_size=8, epochs=1, verbose=0, shuffle=False)
    # One step from w = 0, b = 0: grad_w = -2/n x^T y, grad_b = -2 mean(y).
    np.testing.assert_allclose(dense.kernel.numpy(), 0.1 * 2 / 8 * x.T @ y, rtol=1e-5)
    np.testing.assert_allclose(dense.bias.numpy(), [0.1 * 2 * y.mean()], rtol=1e-5)


def test_fit_multi_output_with_loss_dict_and_weights():
    a = keras.Input(shape=(3,), name="a")
    b = keras.Input(shape=(2,), name="b")
    h = layers.concatenate([a, b])
    priority = layers.Dense(1, name="priority")(h)
    department = layers.Dense(4, name="department")(h)
    model = keras.Model([a, b], [priority, department])
    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3),
        loss={
            "priority": keras.losses.BinaryCrossentropy(from_logits=True),
            "department": keras.losses.CategoricalCrossentropy(from_logits=True),
        },
        loss_weights={"priority": 1.0, "department": 0.2},
    )
    xa, xb = rand(16, 3), rand(16, 2, seed=1)
    yp = np.random.default_rng(2).random((16, 1)).astype(np.float32)
    yd = keras.utils.to_categorical(np.arange(16) % 4, 4)
    p, d = (t.numpy() for t in model([xa, xb]))
    bce = np.mean(np.maximum(p, 0) - p * yp + np.log1p(np.exp(-np.abs(p))))
    logp = d - np.log(np.exp(d).sum(-1, keepdims=True))
    cce = np.mean(-(yd * logp).sum(-1))
    loss = model.evaluate({"a": xa, "b": xb}, {"priority": yp, "department": yd}, verbose=0)
    np.testing.assert_allclose(loss, [bce + 0.2 * cce, bce, cce], rtol=1e-5)  # Keras 3
    loss_list = model.evaluate([xa, xb], [yp, yd], verbose=0, batch_size=16)
    np.testing.assert_allclose(loss_list, loss, rtol=1e-6)
    history = model.fit({"a": xa, "b": xb}, {"priority": yp, "department": yd}, epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    ds = ek.data.Dataset.from_tensor_slices(((xa, xb), (yp, yd))).batch(8)
    model.fit(ds, epochs=1, verbose=0)
    with pytest.raises(ValueError, match=r"keys \['prio'\] that are not output names"):
        model.compile(loss={"prio": "mse"})
    with pytest.raises(ValueError, match="has 1 entries but the model has 2 outputs"):
        model.compile(loss=["mse"])
    model.compile(
        optimizer="sgd",
        loss=["binary_crossentropy", "categorical_crossentropy"],
        metrics={"department": ["accuracy"], "priority": [keras.metrics.MeanAbsoluteError()]},
    )
    logs = model.evaluate([xa, xb], [yp, yd], verbose=0, return_dict=True, batch_size=16)
    assert list(logs) == sorted(  # Keras 3 sorts the logs' keys
        [
            "loss",
            "priority_loss",
            "department_loss",
            "priority_mean_absolute_error",
            "department_accuracy",
        ]
    )
    p, d = (t.numpy() for t in model([xa, xb]))
    np.testing.assert_allclose(
        logs["priority_mean_absolute_error"], np.abs(p - yp).mean(), rtol=1e-5
    )
    expected_acc = np.mean(d.argmax(-1) == yd.argmax(-1))  # categorical accuracy, from the loss
    np.testing.assert_allclose(logs["department_accuracy"], expected_acc)
    model.compile(optimizer="sgd", loss=["mse", "mse"], metrics=["mae"])  # every output
    assert model.metrics_names == [
        "loss",
        "priority_loss",
        "department_loss",
        "priority_mae",
        "department_mae",
    ]


# -- Sequential ----------------------------------------------------------------------------------
def test_sequential_with_input_first():
    model = keras.Sequential(
        [keras.Input(shape=(None, None, 3)), layers.Conv2D(2, 3), layers.GlobalMaxPooling2D()]
    )
    assert model.built and [type(la).__name__ for la in model.layers] == [
        "Conv2D",
        "GlobalMaxPooling2D",
    ]
    assert model.inputs[0].shape == (None, None, None, 3) and model.outputs[0].shape == (None, 2)
    assert model(rand(2, 6, 5, 3)).shape == (2, 2)
    with pytest.raises(ValueError, match="must come first"):
        model.add(keras.Input(shape=(2,)))


def test_sequential_summary_keeps_unknown_sizes():
    model = keras.Sequential([layers.Conv2D(4, 3, padding="same", input_shape=(None, None, 3))])
    lines = []
    model.summary(print_fn=lines.append)
    assert "(None, None, None, 4)" in "\n".join(lines)


# -- summary ---------------------------------------------------------------------------------------
def test_summary_of_a_multi_input_model_has_connected_to():
    title = keras.Input(shape=(None,), name="title")
    tags = keras.Input(shape=(3,), name="tags")
    emb = layers.Embedding(10, 4, name="emb")(title)
    pooled = layers.Lambda(lambda t: ek.reduce_mean(t, axis=1), name="pool")
    x = layers.concatenate([pooled(emb), tags], name="cat")
    model = keras.Model([title, tags], layers.Dense(1, name="out")(x), name="tickets")
    lines = []
    model.summary(print_fn=lines.append)
    text = "\n".join(lines)
    assert lines[0] == 'Model: "tickets"'
    assert "Connected to" in lines[2]
    assert len(lines[1]) == 98
    row = next(line for line in lines if line.startswith("title (InputLayer)"))
    assert "[(None, None)]" in row
    emb_row = next(line for line in lines if line.startswith("emb (Embedding)"))
    assert (
        "(None, None, 4)" in emb_row
        and emb_row.rstrip().endswith("title[0][0]")
        and " 40 " in emb_row
    )
    cat_index = next(i for i, line in enumerate(lines) if line.startswith("cat (Concatenate)"))
    assert lines[cat_index].rstrip().endswith("pool[0][0]")
    assert lines[cat_index + 1].strip() == "tags[0][0]"
    assert "Total params: 48" in text  # embedding 10 * 4, dense (4 + 3) * 1 + 1


def test_summary_of_a_chain_has_no_connected_to_column():
    inputs = keras.Input(shape=(784,))
    model = keras.Model(inputs, layers.Dense(10)(layers.Dense(64)(inputs)))
    lines = []
    model.summary(print_fn=lines.append)
    assert "Connected to" not in lines[2]
    assert any("[(None, 784)]" in line for line in lines)
    assert any(
        line.startswith("dense") and "(None, 64)" in line and "50240" in line for line in lines
    )


def test_layer_input_and_output_give_a_feature_extraction_model():
    inputs = keras.Input(shape=(4,))
    h = layers.Dense(3, activation="relu")(inputs)
    model = keras.Model(inputs, layers.Dense(2)(h))
    features_list = [layer.output for layer in model.layers]
    assert model.layers[1].input is inputs and model.layers[1].output is h
    feat_extraction_model = keras.Model(inputs=model.input, outputs=features_list)
    x = rand(5, 4)
    feats = feat_extraction_model(x)
    np.testing.assert_array_equal(feats[0].numpy(), x)
    np.testing.assert_array_equal(feats[1].numpy(), model.layers[1](x).numpy())
    np.testing.assert_array_equal(feats[2].numpy(), model(x).numpy())
    shared = layers.Dense(2)
    a, b = keras.Input(shape=(2,)), keras.Input(shape=(2,))
    out_a, out_b = shared(a), shared(b)
    assert shared.get_output_at(0) is out_a
    assert shared.output is out_a and shared.input is a  # Keras 3: the first call's
    assert shared.get_output_at(1) is out_b and shared.get_input_at(0) is a
    with pytest.raises(AttributeError, match="never been called on symbolic inputs"):
        layers.Dense(1).output  # noqa: B018


def test_model_input_and_output_shapes_as_keras_3():
    layers = ek.keras.layers
    generator = ek.keras.Sequential()  # the DCGAN tutorial's checks while adding layers
    generator.add(layers.Dense(7 * 7 * 8, use_bias=False, input_shape=(100,)))
    generator.add(layers.Reshape((7, 7, 8)))
    assert generator.output_shape == (None, 7, 7, 8)
    generator.add(layers.Conv2DTranspose(4, 5, strides=2, padding="same"))
    assert generator.output_shape == (None, 14, 14, 4)
    assert generator.input_shape == (None, 100)
    a, b = ek.keras.Input((3,)), ek.keras.Input((4,))
    two = ek.keras.Model([a, b], [layers.Dense(2)(a), layers.Dense(5)(b)])
    assert two.input_shape == [(None, 3), (None, 4)]
    assert two.output_shape == [(None, 2), (None, 5)]
    with pytest.raises(AttributeError, match=r"Sequential model '.*' has no defined output shape"):
        _ = ek.keras.Sequential([layers.Dense(2)]).output_shape

    class Subclassed(ek.keras.Model):
        def call(self, x):
            return x

    with pytest.raises(AttributeError, match=r"Subclassed model '.*' has no defined input shape"):
        _ = Subclassed().input_shape


def test_calling_a_functional_models_call_with_training_reaches_its_layers():
    # A custom train_step's ``self.call(x, training=True)`` (no __call__ around it): dropout
    # is on; a layer the graph called with training=False stays in inference mode.
    inputs = ek.keras.Input((1000,))
    frozen = ek.keras.layers.Dropout(0.5)
    out = ek.keras.layers.Dropout(0.5)(inputs) + frozen(inputs, training=False)
    model = ek.keras.Model(inputs, out)
    x = np.ones((1, 1000), np.float32)
    y = model.call(x, training=True).numpy()
    # 1 + 2 where the first dropout kept a unit (x2 scale), 1 where it dropped it.
    assert set(np.unique(y)) == {1.0, 3.0} and 350 < (y == 1.0).sum() < 650
    np.testing.assert_array_equal(model.call(x).numpy(), 2 * x)
