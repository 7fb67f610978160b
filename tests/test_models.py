"""Model and Sequential: building, tracking, compile/fit/evaluate/predict, callbacks, summary,
weight files, and the all-or-nothing training step."""

import numpy as np
import pytest

import eagerkernel as ek

layers = ek.keras.layers


def blobs(n=200, seed=0):
    """Two separable Gaussian blobs in 4-D, labels 0/1 (int32)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n).astype(np.int32)
    x = rng.normal(size=(n, 4)).astype(np.float32) + 3.0 * y[:, None]
    return x, y


class MLP(ek.keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = [layers.Dense(8, activation="relu"), layers.Dense(8, activation="relu")]
        self.head = layers.Dense(2)

    def call(self, inputs, training=None):
        x = inputs
        for layer in self.hidden:
            x = layer(x)
        return self.head(x)


def test_subclassed_model_tracks_layers_in_lists_and_creation_order():
    model = MLP()
    assert model.variables == []  # nothing is built before the first call
    model(np.zeros((1, 4), np.float32))
    names = [v.name for v in model.trainable_variables]
    assert len(names) == 6
    assert names[0].endswith("/kernel:0") and names[1].endswith("/bias:0")
    assert [v.shape for v in model.variables][:2] == [(4, 8), (8,)]
    assert model.non_trainable_variables == []


def test_trainable_false_moves_weights_to_non_trainable():
    model = MLP()
    model(np.zeros((1, 4), np.float32))
    model.hidden[0].trainable = False
    assert len(model.trainable_variables) == 4
    assert len(model.non_trainable_variables) == 2


def test_training_flag_propagates_to_sublayers():
    seen = []

    class Probe(layers.Layer):
        def call(self, inputs, training=None):
            seen.append(training)
            return inputs

    class Outer(ek.keras.Model):
        def __init__(self):
            super().__init__()
            self.probe = Probe()

        def call(self, inputs, training=None):
            return self.probe(inputs)

    m = Outer()
    m(ek.ones((1, 2)), training=True)
    m(ek.ones((1, 2)), training=False)
    m(ek.ones((1, 2)))
    assert seen == [True, False, None]


def test_fit_learns_and_returns_history():
    ek.keras.utils.set_random_seed(0)
    x, y = blobs()
    model = ek.keras.Sequential(
        [layers.Dense(16, activation="relu", input_shape=(4,)), layers.Dense(2)]
    )
    model.compile(
        optimizer=ek.keras.optimizers.Adam(0.01),
        loss=ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    history = model.fit(x, y, batch_size=32, epochs=5, verbose=0, validation_data=(x, y))
    assert sorted(history.history) == ["accuracy", "loss", "val_accuracy", "val_loss"]
    assert len(history.history["loss"]) == 5
    assert history.history["loss"][-1] < history.history["loss"][0]
    loss, acc = model.evaluate(x, y, verbose=0)
    assert acc > 0.95
    assert np.isclose(loss, history.history["val_loss"][-1], rtol=1e-5)
    probs = model.predict(x[:10])
    assert probs.shape == (10, 2) and isinstance(probs, np.ndarray)


def test_fit_on_a_dataset():
    ek.keras.utils.set_random_seed(1)
    x, y = blobs()
    ds = ek.data.Dataset.from_tensor_slices((x, y)).shuffle(200, seed=0).batch(32)
    model = ek.keras.Sequential([layers.Dense(2, input_shape=(4,))])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["acc"])
    model.compile(
        optimizer=ek.keras.optimizers.SGD(0.1),
        loss=ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    history = model.fit(ds, epochs=6, verbose=0)
    assert history.history["accuracy"][-1] > 0.9


def test_early_stopping_and_lambda_callback():
    x, y = blobs()
    model = ek.keras.Sequential([layers.Dense(2, input_shape=(4,))])
    model.compile(optimizer=ek.keras.optimizers.SGD(0.0), loss="mse")
    epochs = []
    cb = ek.keras.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: epochs.append(e))
    stop = ek.keras.callbacks.EarlyStopping(monitor="loss", patience=1)
    yf = np.stack([1.0 - y, y], axis=1).astype(np.float32)
    model.fit(x, yf, epochs=10, verbose=0, shuffle=False, callbacks=[stop, cb])
    # lr 0: the epoch loss (the mean over all examples) never improves; patience 1 stops at 1
    assert epochs == [0, 1]


def test_model_checkpoint_and_weight_files(tmp_path):
    x, y = blobs(64)
    model = ek.keras.Sequential([layers.Dense(3, input_shape=(4,)), layers.Dense(2)])
    model.compile(optimizer="sgd", loss=ek.keras.losses.SparseCategoricalCrossentropy(True))
    path = tmp_path / "w-{epoch:02d}.safetensors"
    model.fit(
        x,
        y,
        epochs=2,
        verbose=0,
        callbacks=[ek.keras.callbacks.ModelCheckpoint(str(path), monitor="loss")],
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "w-01.safetensors",
        "w-02.safetensors",
    ]
    saved = model.get_weights()
    for v in model.variables:
        v.assign(np.zeros(v.shape, np.float32))
    model.load_weights(tmp_path / "w-02.safetensors")
    for a, b in zip(saved, model.get_weights()):
        np.testing.assert_array_equal(a, b)
    other = ek.keras.Sequential([layers.Dense(5, input_shape=(4,))])
    with pytest.raises(ValueError, match=r"w-02\.safetensors"):
        other.load_weights(tmp_path / "w-02.safetensors")


def test_summary_prints_keras_table(capsys):
    model = ek.keras.Sequential(
        [layers.Dense(4, activation="relu", input_shape=(3,)), layers.Dense(1)], name="tiny"
    )
    model.summary()
    out = capsys.readouterr().out
    assert 'Model: "tiny"' in out
    assert "(Dense)" in out and "(None, 4)" in out and "(None, 1)" in out
    assert "Total params: 21" in out
    assert "Trainable params: 21" in out
    assert "Non-trainable params: 0" in out


def test_summary_before_build_prints_unbuilt_layers(capsys):
    # Keras 3 prints a model not built yet: "?" shapes, "0 (unbuilt)" parameters
    MLP().summary()
    out = capsys.readouterr().out
    assert out.count("0 (unbuilt)") == 3 and "(Dense)" in out
    assert "Total params: 0" in out and "Trainable params: 0" in out


def test_sequential_build_with_a_shape_builds_every_layer(capsys):
    # Keras's Sequential.build(input_shape): the layers get their weights before any data
    # (TensorFlow 2.21: the kernel exists and summary counts it).
    model = ek.keras.Sequential([layers.Dense(4, activation="relu"), layers.Dense(1)])
    model.build((None, 3))
    assert [la.built for la in model.layers] == [True, True]
    assert model.layers[0].kernel.shape == (3, 4) and model.count_params() == 21
    assert model.output_shape == (None, 1)
    model.summary()
    assert "Total params: 21" in capsys.readouterr().out
    x = np.ones((2, 3), np.float32)
    expected = np.maximum(x @ model.layers[0].kernel.numpy(), 0) @ model.layers[1].kernel.numpy()
    np.testing.assert_allclose(model(x).numpy(), expected, rtol=1e-6)
    model.build((None, 3))  # the same shape again: nothing changes
    with pytest.raises(ValueError, match=r"configured to use input shape \(None, 3\)"):
        model.build((None, 5))
    with pytest.raises(ValueError, match="cannot be built because it has no layers"):
        ek.keras.Sequential().build((None, 3))
    fixed = ek.keras.Sequential([layers.Dense(2)])
    fixed.build(ek.TensorShape([8, 5]))  # a TensorShape, a fixed batch
    assert fixed.input_shape == (8, 5) and fixed.output_shape == (8, 2)


def test_sequential_build_that_fails_leaves_the_model_as_it_was():
    class EagerOnly(layers.Layer):
        def call(self, x):
            raise NotImplementedError("no symbolic run")

    class Broken(layers.Layer):
        def call(self, x):
            raise ValueError("boom")

    lazy = ek.keras.Sequential([layers.Dense(2), EagerOnly()])
    lazy.build((None, 3))  # as Keras's: a layer that cannot run symbolically is no error
    assert lazy.inputs is None and len(lazy.layers) == 2
    broken = ek.keras.Sequential([layers.Dense(2), Broken()])
    with pytest.raises(ValueError, match="boom"):
        broken.build((None, 3))
    assert broken.inputs is None and [type(la) for la in broken.layers] == [layers.Dense, Broken]


def test_fit_requires_compile():
    with pytest.raises(RuntimeError, match="compile the model first"):  # TF's Keras 2
        MLP().fit(*blobs(8), verbose=0)
    with pytest.raises(ValueError, match="compile the model first"):  # Keras 3
        MLP().evaluate(*blobs(8), verbose=0)


def test_failed_step_changes_nothing():
    x, y = blobs(32)
    model = ek.keras.Sequential(
        [layers.Dense(4, input_shape=(4,)), layers.BatchNormalization(), layers.Dense(2)]
    )
    model.compile(optimizer="adam", loss=ek.keras.losses.SparseCategoricalCrossentropy(True))
    model.fit(x, y, epochs=1, batch_size=32, verbose=0)  # build slots, iterations = 1
    before = [np.array(v.numpy()) for v in model.variables]
    opt_before = [np.array(v.numpy()) for v in model.optimizer.variables]

    class Boom(Exception):
        pass

    original = model.compute_loss

    def exploding_loss(*args, **kwargs):
        original(*args, **kwargs)
        raise Boom("after the forward pass")

    model.compute_loss = exploding_loss
    with pytest.raises(Boom):
        model.fit(x, y, epochs=1, batch_size=32, verbose=0)
    after = [np.array(v.numpy()) for v in model.variables]
    for a, b in zip(before, after):
        np.testing.assert_array_equal(a, b)  # moving statistics included
    for a, b in zip(opt_before, [np.array(v.numpy()) for v in model.optimizer.variables]):
        np.testing.assert_array_equal(a, b)


def test_bad_data_errors():
    model = ek.keras.Sequential([layers.Dense(2, input_shape=(4,))])
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="x has 10 examples, y has 9"):
        model.fit(np.zeros((10, 4), np.float32), np.zeros((9, 2), np.float32), verbose=0)
    with pytest.raises(ValueError, match="batch_size must be positive"):
        model.fit(
            np.zeros((10, 4), np.float32), np.zeros((10, 2), np.float32), batch_size=0, verbose=0
        )


def test_ctrl_c_during_an_optimizer_step_lands_after_it():
    """SIGINT while the optimizer writes its variables is delivered once all are written."""
    import signal

    a = ek.Variable([1.0])
    b = ek.Variable([1.0])
    opt = ek.keras.optimizers.SGD(0.5)
    original = opt.update_step
    calls = []

    def interrupted_update(gradient, variable, learning_rate):
        original(gradient, variable, learning_rate)
        calls.append(variable)
        if len(calls) == 1:
            signal.raise_signal(signal.SIGINT)  # Ctrl-C after the first of two variables

    opt.update_step = interrupted_update
    with pytest.raises(KeyboardInterrupt):
        opt.apply_gradients([(ek.constant([1.0]), a), (ek.constant([1.0]), b)])
    assert len(calls) == 2  # the step finished before the interrupt was delivered
    np.testing.assert_array_equal([a.numpy()[0], b.numpy()[0]], [0.5, 0.5])
    assert int(opt.iterations.numpy()) == 1
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
