"""TensorFlow's Keras guides, run unchanged but for the import.

Code from the quickstarts (tensorflow/docs site/en/tutorials/quickstart/beginner.ipynb and
advanced.ipynb), the functional API guide and the serialization and saving guide (Keras 3's
``.keras`` edition). Only two kinds of edit: downloads (``mnist.load_data()``) are replaced
by random arrays of the same shapes and dtypes, fewer of them, and files are written under
pytest's ``tmp_path``. Cells that need ``keras.utils.plot_model`` (graphviz),
``keras.applications`` (downloaded weights) or ``keras.datasets.cifar10`` are left out.
"""

import numpy as np
import pytest
from eagerkernel.keras import layers

import eagerkernel as tf
from eagerkernel import keras


def fake_mnist(n_train=256, n_test=64, seed=0):
    """What ``mnist.load_data()`` returns (uint8 images, uint8 labels), without the download."""
    rng = np.random.default_rng(seed)
    x_train = rng.integers(0, 256, (n_train, 28, 28), dtype=np.uint8)
    x_test = rng.integers(0, 256, (n_test, 28, 28), dtype=np.uint8)
    y_train = rng.integers(0, 10, n_train).astype(np.uint8)
    y_test = rng.integers(0, 10, n_test).astype(np.uint8)
    return (x_train, y_train), (x_test, y_test)


def test_quickstart_beginner():
    (x_train, y_train), (x_test, y_test) = fake_mnist()
    x_train, x_test = x_train / 255.0, x_test / 255.0

    model = tf.keras.models.Sequential(
        [
            tf.keras.layers.Flatten(input_shape=(28, 28)),
            tf.keras.layers.Dense(128, activation="relu"),
            tf.keras.layers.Dropout(0.2),
            tf.keras.layers.Dense(10),
        ]
    )
    predictions = model(x_train[:1]).numpy()
    assert predictions.shape == (1, 10)
    probs = tf.nn.softmax(predictions).numpy()
    np.testing.assert_allclose(probs.sum(), 1.0, rtol=1e-6)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    initial = loss_fn(y_train[:1], predictions).numpy()
    np.testing.assert_allclose(initial, -np.log(probs[0, y_train[0]]), rtol=1e-5)
    model.compile(optimizer="adam", loss=loss_fn, metrics=["accuracy"])
    history = model.fit(x_train, y_train, epochs=5, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    assert 0 <= accuracy <= 1 and loss > 0
    probability_model = tf.keras.Sequential([model, tf.keras.layers.Softmax()])
    out = probability_model(x_test[:5]).numpy()
    assert out.shape == (5, 10)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=1e-5)


def test_quickstart_advanced():
    from eagerkernel.keras import Model
    from eagerkernel.keras.layers import Conv2D, Dense, Flatten

    (x_train, y_train), (x_test, y_test) = fake_mnist(64, 32)
    x_train, x_test = x_train / 255.0, x_test / 255.0
    x_train = x_train[..., tf.newaxis].astype("float32")
    x_test = x_test[..., tf.newaxis].astype("float32")
    train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(10000).batch(32)
    test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(32)

    class MyModel(Model):
        def __init__(self):
            super().__init__()
            self.conv1 = Conv2D(32, 3, activation="relu")
            self.flatten = Flatten()
            self.d1 = Dense(128, activation="relu")
            self.d2 = Dense(10)

        def call(self, x):
            x = self.conv1(x)
            x = self.flatten(x)
            x = self.d1(x)
            return self.d2(x)

    model = MyModel()
    loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = tf.keras.optimizers.Adam()
    train_loss = tf.keras.metrics.Mean(name="train_loss")
    train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="train_accuracy")
    test_loss = tf.keras.metrics.Mean(name="test_loss")
    test_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="test_accuracy")
    # The guide decorates the steps with @tf.function; graph functions are another issue's.
    function = getattr(tf, "function", lambda f: f)

    @function
    def train_step(images, labels):
        with tf.GradientTape() as tape:
            predictions = model(images, training=True)
            loss = loss_object(labels, predictions)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        train_loss(loss)
        train_accuracy(labels, predictions)

    @function
    def test_step(images, labels):
        predictions = model(images, training=False)
        t_loss = loss_object(labels, predictions)
        test_loss(t_loss)
        test_accuracy(labels, predictions)

    printed = []
    for epoch in range(2):
        train_loss.reset_state()
        train_accuracy.reset_state()
        test_loss.reset_state()
        test_accuracy.reset_state()
        for images, labels in train_ds:
            train_step(images, labels)
        for test_images, test_labels in test_ds:
            test_step(test_images, test_labels)
        printed.append(
            f"Epoch {epoch + 1}, "
            f"Loss: {train_loss.result():0.2f}, "
            f"Accuracy: {train_accuracy.result() * 100:0.2f}, "
            f"Test Loss: {test_loss.result():0.2f}, "
            f"Test Accuracy: {test_accuracy.result() * 100:0.2f}"
        )
    assert printed[0].startswith("Epoch 1, Loss: ") and "Test Accuracy: " in printed[1]


def test_functional_api_guide_first_model_train_and_save(tmp_path):
    inputs = keras.Input(shape=(784,))
    img_inputs = keras.Input(shape=(32, 32, 3))
    assert inputs.shape == (None, 784) and img_inputs.shape == (None, 32, 32, 3)
    assert inputs.dtype == tf.float32
    dense = layers.Dense(64, activation="relu")
    x = dense(inputs)
    x = layers.Dense(64, activation="relu")(x)
    outputs = layers.Dense(10)(x)
    model = keras.Model(inputs=inputs, outputs=outputs, name="mnist_model")
    lines = []
    model.summary(print_fn=lines.append)
    assert any("(None, 64)" in line and "50240" in line for line in lines)
    assert "Total params: 55,050" in lines

    (x_train, y_train), (x_test, y_test) = fake_mnist(512, 128)
    x_train = x_train.reshape(512, 784).astype("float32") / 255
    x_test = x_test.reshape(128, 784).astype("float32") / 255
    model.compile(
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        optimizer=keras.optimizers.RMSprop(),
        metrics=["accuracy"],
    )
    history = model.fit(x_train, y_train, batch_size=64, epochs=2, validation_split=0.2, verbose=0)
    assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    test_scores = model.evaluate(x_test, y_test, verbose=0)
    assert len(test_scores) == 2

    path = str(tmp_path / "my_model.keras")  # Keras 3 saves .keras files
    model.save(path)
    expected = model.predict(x_test, verbose=0)
    del model
    model = keras.models.load_model(path)
    np.testing.assert_array_equal(model.predict(x_test, verbose=0), expected)


def test_functional_api_guide_encoder_ensemble_and_shared_layers():
    encoder_input = keras.Input(shape=(28, 28, 1), name="img")
    x = layers.Conv2D(16, 3, activation="relu")(encoder_input)
    x = layers.Conv2D(32, 3, activation="relu")(x)
    x = layers.MaxPooling2D(3)(x)
    x = layers.Conv2D(32, 3, activation="relu")(x)
    x = layers.Conv2D(16, 3, activation="relu")(x)
    encoder_output = layers.GlobalMaxPooling2D()(x)
    encoder = keras.Model(encoder_input, encoder_output, name="encoder")
    lines = []
    encoder.summary(print_fn=lines.append)
    shapes = [(None, 26, 26, 16), (None, 24, 24, 32), (None, 8, 8, 32), (None, 6, 6, 32)]
    for shape in [*shapes, (None, 4, 4, 16), (None, 16)]:
        assert any(str(shape) in line for line in lines), shape
    assert "Total params: 18,672" in lines

    def get_model():
        inputs = keras.Input(shape=(128,))
        outputs = layers.Dense(1)(inputs)
        return keras.Model(inputs, outputs)

    model1 = get_model()
    model2 = get_model()
    model3 = get_model()
    inputs = keras.Input(shape=(128,))
    y1 = model1(inputs)
    y2 = model2(inputs)
    y3 = model3(inputs)
    outputs = layers.average([y1, y2, y3])
    ensemble_model = keras.Model(inputs=inputs, outputs=outputs)
    x = np.random.default_rng(0).random((2, 128)).astype("float32")
    mean = (model1(x).numpy() + model2(x).numpy() + model3(x).numpy()) / 3
    np.testing.assert_allclose(ensemble_model(x).numpy(), mean, rtol=1e-6)

    shared_embedding = layers.Embedding(1000, 128)
    text_input_a = keras.Input(shape=(None,), dtype="int32")
    text_input_b = keras.Input(shape=(None,), dtype="int32")
    encoded_input_a = shared_embedding(text_input_a)
    encoded_input_b = shared_embedding(text_input_b)
    assert encoded_input_a.shape == encoded_input_b.shape == (None, None, 128)


def test_functional_api_guide_multiple_inputs_and_outputs():
    num_tags = 12
    num_words = 10000
    num_departments = 4
    title_input = keras.Input(shape=(None,), name="title")
    body_input = keras.Input(shape=(None,), name="body")
    tags_input = keras.Input(shape=(num_tags,), name="tags")
    title_features = layers.Embedding(num_words, 64)(title_input)
    body_features = layers.Embedding(num_words, 64)(body_input)
    title_features = layers.LSTM(128)(title_features)
    body_features = layers.LSTM(32)(body_features)
    x = layers.concatenate([title_features, body_features, tags_input])
    priority_pred = layers.Dense(1, name="priority")(x)
    department_pred = layers.Dense(num_departments, name="department")(x)
    model = keras.Model(
        inputs=[title_input, body_input, tags_input],
        outputs=[priority_pred, department_pred],
    )
    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3),
        loss=[
            keras.losses.BinaryCrossentropy(from_logits=True),
            keras.losses.CategoricalCrossentropy(from_logits=True),
        ],
        loss_weights=[1.0, 0.2],
    )
    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3),
        loss={
            "priority": keras.losses.BinaryCrossentropy(from_logits=True),
            "department": keras.losses.CategoricalCrossentropy(from_logits=True),
        },
        loss_weights={"priority": 1.0, "department": 0.2},
    )
    n = 64  # the guide uses 1280 examples and bodies of 100 words
    title_data = np.random.randint(num_words, size=(n, 10))
    body_data = np.random.randint(num_words, size=(n, 20))
    tags_data = np.random.randint(2, size=(n, num_tags)).astype("float32")
    priority_targets = np.random.random(size=(n, 1))
    dept_targets = np.random.randint(2, size=(n, num_departments))
    history = model.fit(
        {"title": title_data, "body": body_data, "tags": tags_data},
        {"priority": priority_targets, "department": dept_targets},
        epochs=2,
        batch_size=32,
        verbose=0,
    )
    assert len(history.history["loss"]) == 2
    lines = []
    model.summary(print_fn=lines.append)
    assert any("(LSTM)" in line and "(None, 128)" in line for line in lines)
    assert any(line.startswith("title (InputLayer)") and "[(None, None)]" in line for line in lines)


def test_functional_api_guide_toy_resnet_summary():
    inputs = keras.Input(shape=(32, 32, 3), name="img")
    x = layers.Conv2D(32, 3, activation="relu")(inputs)
    x = layers.Conv2D(64, 3, activation="relu")(x)
    block_1_output = layers.MaxPooling2D(3)(x)
    x = layers.Conv2D(64, 3, activation="relu", padding="same")(block_1_output)
    x = layers.Conv2D(64, 3, activation="relu", padding="same")(x)
    block_2_output = layers.add([x, block_1_output])
    x = layers.Conv2D(64, 3, activation="relu", padding="same")(block_2_output)
    x = layers.Conv2D(64, 3, activation="relu", padding="same")(x)
    block_3_output = layers.add([x, block_2_output])
    x = layers.Conv2D(64, 3, activation="relu")(block_3_output)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dense(256, activation="relu")(x)
    x = layers.Dropout(0.5)(x)
    outputs = layers.Dense(10)(x)
    model = keras.Model(inputs, outputs, name="toy_resnet")
    lines = []
    model.summary(print_fn=lines.append)
    assert "Total params: 223,242" in lines  # the guide's printed total
    pool = block_1_output._keras_history.layer.name
    add_name = block_2_output._keras_history.layer.name
    add_row = next(i for i, line in enumerate(lines) if line.startswith(f"{add_name} (Add)"))
    assert lines[add_row + 1].strip() == f"{pool}[0][0]"  # the skip connection, second input
    y_train = keras.utils.to_categorical(np.random.randint(0, 10, (4, 1)), 10)
    assert y_train.shape == (4, 10)


def test_functional_api_guide_custom_dense_get_config():
    class CustomDense(layers.Layer):
        def __init__(self, units=32):
            super(CustomDense, self).__init__()  # noqa: UP008 (the guide's code)
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight(
                shape=(input_shape[-1], self.units),
                initializer="random_normal",
                trainable=True,
            )
            self.b = self.add_weight(
                shape=(self.units,), initializer="random_normal", trainable=True
            )

        def call(self, inputs):
            return tf.matmul(inputs, self.w) + self.b

        def get_config(self):
            return {"units": self.units}

    inputs = keras.Input((4,))
    outputs = CustomDense(10)(inputs)
    model = keras.Model(inputs, outputs)
    config = model.get_config()
    new_model = keras.Model.from_config(config, custom_objects={"CustomDense": CustomDense})
    assert new_model(np.ones((2, 4), np.float32)).shape == (2, 10)


def test_serialization_guide_keras3(tmp_path):
    def get_model():
        inputs = keras.Input(shape=(32,))
        outputs = keras.layers.Dense(1)(inputs)
        model = keras.Model(inputs, outputs)
        model.compile(optimizer=keras.optimizers.Adam(), loss="mean_squared_error")
        return model

    model = get_model()
    test_input = np.random.random((128, 32))
    test_target = np.random.random((128, 1))
    model.fit(test_input, test_target, verbose=0)
    model.save(tmp_path / "my_model.keras")
    reconstructed_model = keras.models.load_model(tmp_path / "my_model.keras")
    np.testing.assert_allclose(
        model.predict(test_input, verbose=0), reconstructed_model.predict(test_input, verbose=0)
    )

    @keras.saving.register_keras_serializable(package="GuidePkg", name="custom_fn")
    def custom_fn(x):
        return x**2

    @keras.saving.register_keras_serializable(package="GuideLayers")
    class CustomLayer(keras.layers.Layer):
        def __init__(self, factor):
            super().__init__()
            self.factor = factor

        def call(self, x):
            return x * self.factor

        def get_config(self):
            return {"factor": self.factor}

    inputs = keras.Input(shape=(4,))
    mid = CustomLayer(0.5)(inputs)
    outputs = keras.layers.Dense(2, activation=custom_fn)(mid)
    model = keras.Model(inputs, outputs)
    model.compile(optimizer="rmsprop", loss="mean_squared_error")
    model.save(tmp_path / "custom_model.keras")
    reconstructed = keras.models.load_model(tmp_path / "custom_model.keras")
    x = np.random.random((3, 4))
    np.testing.assert_allclose(reconstructed(x).numpy(), model(x).numpy())
    assert keras.saving.get_registered_object("GuidePkg>custom_fn") is custom_fn

    layer = keras.layers.Dense(3, activation="relu")
    layer_config = layer.get_config()
    new_layer = keras.layers.Dense.from_config(layer_config)
    assert new_layer.units == 3
    model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(1)])
    config = model.get_config()
    new_model = keras.Sequential.from_config(config)
    assert new_model.count_params() == 33
    inputs = keras.Input((32,))
    outputs = keras.layers.Dense(1)(inputs)
    model = keras.Model(inputs, outputs)
    config = model.get_config()
    new_model = keras.Model.from_config(config)
    json_config = model.to_json()
    new_model = keras.models.model_from_json(json_config)
    assert new_model.output_shape == (None, 1)
    new_model = keras.models.clone_model(model)
    assert not np.array_equal(new_model.get_weights()[0], model.get_weights()[0])

    def custom_activation(x):
        return tf.nn.tanh(x) ** 2

    inputs = keras.Input((32,))
    x = keras.layers.Dense(32)(inputs)
    outputs = keras.layers.Activation(custom_activation)(x)
    model = keras.Model(inputs, outputs)
    config = model.get_config()
    with keras.utils.custom_object_scope({"custom_activation": custom_activation}):
        new_model = keras.Model.from_config(config)
    assert new_model.layers[-1].activation is custom_activation

    model = get_model()
    model.save_weights(tmp_path / "my_model.weights.h5")
    other = get_model()
    other.load_weights(tmp_path / "my_model.weights.h5")
    np.testing.assert_array_equal(other.get_weights()[0], model.get_weights()[0])


@pytest.mark.parametrize("save_format", ["SavedModel directory", "h5"])
def test_the_old_formats_raise_clear_errors(tmp_path, save_format):
    inputs = keras.Input((3,))
    model = keras.Model(inputs, layers.Dense(1)(inputs))
    name = "my_model" if save_format != "h5" else "my_h5_model.h5"
    with pytest.raises(ValueError, match="Invalid filepath extension"):
        model.save(tmp_path / name)


def test_functional_api_guide_autoencoders():
    encoder_input = keras.Input(shape=(28, 28, 1), name="original_img")
    x = layers.Conv2D(16, 3, activation="relu")(encoder_input)
    x = layers.Conv2D(32, 3, activation="relu")(x)
    x = layers.MaxPooling2D(3)(x)
    x = layers.Conv2D(32, 3, activation="relu")(x)
    x = layers.Conv2D(16, 3, activation="relu")(x)
    encoder_output = layers.GlobalMaxPooling2D()(x)
    encoder = keras.Model(encoder_input, encoder_output, name="encoder")

    decoder_input = keras.Input(shape=(16,), name="encoded_img")
    x = layers.Reshape((4, 4, 1))(decoder_input)
    x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
    x = layers.Conv2DTranspose(32, 3, activation="relu")(x)
    x = layers.UpSampling2D(3)(x)
    x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
    decoder_output = layers.Conv2DTranspose(1, 3, activation="relu")(x)
    decoder = keras.Model(decoder_input, decoder_output, name="decoder")
    lines = []
    decoder.summary(print_fn=lines.append)
    assert "Total params: 9,569" in lines  # the guide's printed totals
    for shape in [(None, 6, 6, 16), (None, 8, 8, 32), (None, 24, 24, 32), (None, 26, 26, 16)]:
        assert any(str(shape) in line for line in lines), shape

    autoencoder_input = keras.Input(shape=(28, 28, 1), name="img")
    encoded_img = encoder(autoencoder_input)
    decoded_img = decoder(encoded_img)
    autoencoder = keras.Model(autoencoder_input, decoded_img, name="autoencoder")
    lines = []
    autoencoder.summary(print_fn=lines.append)
    assert "Total params: 28,241" in lines
    assert any(
        line.startswith("decoder (Functional)") and "(None, 28, 28, 1)" in line for line in lines
    )
    x = np.random.default_rng(0).random((2, 28, 28, 1)).astype("float32")
    np.testing.assert_allclose(autoencoder(x).numpy(), decoder(encoder(x)).numpy(), rtol=1e-6)


def test_functional_api_guide_mix_and_match():
    units = 32
    timesteps = 10
    input_dim = 5

    inputs = keras.Input((None, units))
    x = layers.GlobalAveragePooling1D()(inputs)
    outputs = layers.Dense(1)(x)
    model = keras.Model(inputs, outputs)

    class CustomRNN(layers.Layer):
        def __init__(self):
            super(CustomRNN, self).__init__()  # noqa: UP008 (the guide's code)
            self.units = units
            self.projection_1 = layers.Dense(units=units, activation="tanh")
            self.projection_2 = layers.Dense(units=units, activation="tanh")
            self.classifier = model

        def call(self, inputs):
            outputs = []
            state = tf.zeros(shape=(inputs.shape[0], self.units))
            for t in range(inputs.shape[1]):
                x = inputs[:, t, :]
                h = self.projection_1(x)
                y = h + self.projection_2(state)
                state = y
                outputs.append(y)
            features = tf.stack(outputs, axis=1)
            return self.classifier(features)

    rnn_model = CustomRNN()
    assert rnn_model(tf.zeros((1, timesteps, input_dim))).shape == (1, 1)

    batch_size = 16

    class CustomRNN2(layers.Layer):
        def __init__(self):
            super().__init__()
            self.units = units
            self.projection_1 = layers.Dense(units=units, activation="tanh")
            self.projection_2 = layers.Dense(units=units, activation="tanh")
            self.classifier = layers.Dense(1)

        def call(self, inputs):
            outputs = []
            state = tf.zeros(shape=(inputs.shape[0], self.units))
            for t in range(inputs.shape[1]):
                x = inputs[:, t, :]
                h = self.projection_1(x)
                y = h + self.projection_2(state)
                state = y
                outputs.append(y)
            features = tf.stack(outputs, axis=1)
            return self.classifier(features)

    # A static batch size (batch_shape), because the layer makes its state with it.
    inputs = keras.Input(batch_shape=(batch_size, timesteps, input_dim))
    x = layers.Conv1D(32, 3)(inputs)
    outputs = CustomRNN2()(x)
    model = keras.Model(inputs, outputs)
    assert model.output_shape == (16, 8, 1)
    rnn_model = CustomRNN2()
    assert rnn_model(tf.zeros((1, 10, 5))).shape == (1, 10, 1)
