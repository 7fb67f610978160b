"""Whole-model files (.keras), get_config/from_config, custom objects and weight files."""

import json
import os
import zipfile

import numpy as np
import pytest
from safetensors.numpy import load_file

import eagerkernel as ek

keras = ek.keras
layers = keras.layers


def rand(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def functional_model():
    a = keras.Input(shape=(4,), name="a")
    b = keras.Input(shape=(3,), name="b")
    h = layers.Dense(8, activation="relu", name="hidden")(a)
    h = layers.BatchNormalization(name="bn")(h)
    merged = layers.concatenate([h, b], name="merge")
    out = layers.Dense(3, name="logits")(merged)
    return keras.Model([a, b], out, name="two_inputs")


def data(n=32):
    return [rand(n, 4), rand(n, 3, seed=1)], np.arange(n) % 3


def test_functional_round_trip_predictions_and_continued_training(tmp_path):
    model = functional_model()
    model.compile(
        optimizer=keras.optimizers.Adam(0.01),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    x, y = data()
    model.fit(x, y, batch_size=8, epochs=1, verbose=0, shuffle=False)
    path = tmp_path / "m.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    assert type(loaded).__name__ == "Functional" and loaded is not model
    assert [la.name for la in loaded.layers] == [la.name for la in model.layers]
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    # The optimizer (Adam's slots and step) was restored: training continues identically.
    assert int(loaded.optimizer.iterations) == 4
    assert loaded.optimizer.get_config() == model.optimizer.get_config()
    h1 = model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    h2 = loaded.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    assert h1.history == h2.history
    for v1, v2 in zip(model.weights, loaded.weights):
        np.testing.assert_array_equal(v1.numpy(), v2.numpy())


def test_saved_before_training_trains_identically(tmp_path):
    model = functional_model()
    model.compile(optimizer="rmsprop", loss="sparse_categorical_crossentropy")
    model.save(tmp_path / "fresh.keras")
    loaded = keras.models.load_model(tmp_path / "fresh.keras")
    x, y = data()
    h1 = model.fit(x, y, epochs=2, verbose=0, shuffle=False)
    h2 = loaded.fit(x, y, epochs=2, verbose=0, shuffle=False)
    assert h1.history == h2.history


def test_file_layout_is_keras_format(tmp_path):
    model = functional_model()
    model.compile(optimizer="sgd", loss="mse")
    path = str(tmp_path / "m.keras")
    model.save(path)
    with zipfile.ZipFile(path) as zf:
        assert sorted(zf.namelist()) == [
            "config.json",
            "metadata.json",
            "model.checkpoint.safetensors",  # the optimizer (see test_keras_saving_hooks.py)
            "model.weights.safetensors",
        ]
        config = json.loads(zf.read("config.json"))
        metadata = json.loads(zf.read("metadata.json"))
        zf.extract("model.weights.safetensors", tmp_path)
    assert config["class_name"] == "Functional" and config["config"]["name"] == "two_inputs"
    assert config["config"]["input_layers"] == [["a", 0, 0], ["b", 0, 0]]
    assert config["config"]["output_layers"] == ["logits", 0, 0]  # one output, as Keras 3
    merge = next(la for la in config["config"]["layers"] if la["name"] == "merge")
    history = [arg["config"]["keras_history"] for arg in merge["inbound_nodes"][0]["args"][0]]
    assert history == [["bn", 0, 0], ["b", 0, 0]]
    assert config["compile_config"]["optimizer"]["class_name"] == "SGD"
    assert config["compile_config"]["loss"] == "mse"
    assert "keras_version" in metadata and "date_saved" in metadata
    arrays = load_file(str(tmp_path / "model.weights.safetensors"))
    assert arrays["layers/dense/vars/0"].shape == (4, 8)  # Keras 3: paths by class name
    assert arrays["layers/dense_1/vars/0"].shape == (11, 3)


def test_sequential_round_trips(tmp_path):
    x = rand(5, 3)
    for model in (
        keras.Sequential([keras.Input(shape=(3,)), layers.Dense(4), layers.Softmax()]),
        keras.Sequential([layers.Dense(4, input_shape=(3,)), layers.Dropout(0.1), layers.Dense(1)]),
        keras.Sequential([layers.Dense(2), layers.Dense(1)]),  # built by its first call
    ):
        expected = model(x).numpy()
        model.save(tmp_path / "s.keras")
        loaded = keras.models.load_model(tmp_path / "s.keras")
        assert type(loaded) is keras.Sequential
        assert [type(la) for la in loaded.layers] == [type(la) for la in model.layers]
        np.testing.assert_array_equal(loaded(x).numpy(), expected)


def test_compile_false_and_uncompiled_models(tmp_path):
    model = functional_model()
    model.compile(optimizer="adam", loss="mse")
    model.save(tmp_path / "m.keras")
    assert not keras.models.load_model(tmp_path / "m.keras", compile=False).compiled
    plain = functional_model()
    plain.save(tmp_path / "p.keras")
    assert not keras.models.load_model(tmp_path / "p.keras").compiled


class TimesFactor(layers.Layer):
    def __init__(self, factor, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, x):
        return x * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def test_custom_objects_and_unknown_class_error(tmp_path):
    inputs = keras.Input(shape=(3,))
    model = keras.Model(inputs, TimesFactor(3.0)(layers.Dense(2)(inputs)))
    path = str(tmp_path / "custom.keras")
    model.save(path)
    with pytest.raises(TypeError, match=r"custom\.keras.*Could not locate class 'TimesFactor'"):
        keras.models.load_model(path)
    loaded = keras.models.load_model(path, custom_objects={"TimesFactor": TimesFactor})
    x = rand(2, 3)
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())
    assert loaded.layers[-1].factor == 3.0


def test_register_keras_serializable(tmp_path):
    @keras.saving.register_keras_serializable(package="TestPkg")
    class Shift(layers.Layer):
        def __init__(self, offset, **kwargs):
            super().__init__(**kwargs)
            self.offset = offset

        def call(self, x):
            return x + self.offset

        def get_config(self):
            return {**super().get_config(), "offset": self.offset}

    @keras.saving.register_keras_serializable(package="TestPkg", name="cube")
    def cube(x):
        return x**3

    assert keras.saving.get_registered_name(Shift) == "TestPkg>Shift"
    inputs = keras.Input(shape=(2,))
    model = keras.Model(inputs, Shift(1.5)(layers.Dense(2, activation=cube)(inputs)))
    model.compile(optimizer="adam", loss=keras.losses.MeanSquaredError())
    model.save(tmp_path / "r.keras")
    loaded = keras.models.load_model(tmp_path / "r.keras")
    x = rand(3, 2)
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())
    assert loaded.layers[1].activation is cube
    with pytest.raises(ValueError, match="already been registered"):

        @keras.saving.register_keras_serializable(package="TestPkg", name="Shift")
        class Other(layers.Layer):
            pass


def test_model_from_config_as_in_the_functional_guide():
    class CustomDense(layers.Layer):
        def __init__(self, units=32):
            super().__init__()
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight(
                shape=(input_shape[-1], self.units), initializer="random_normal"
            )
            self.b = self.add_weight(shape=(self.units,), initializer="random_normal")

        def call(self, inputs):
            return ek.matmul(inputs, self.w) + self.b

        def get_config(self):
            return {"units": self.units}

    inputs = keras.Input((4,))
    model = keras.Model(inputs, CustomDense(10)(inputs))
    config = model.get_config()
    new_model = keras.Model.from_config(config, custom_objects={"CustomDense": CustomDense})
    assert new_model.output_shape == (None, 10) and new_model is not model
    assert new_model.layers[1].w.shape == (4, 10)


BUILT_IN_LAYERS = [
    layers.Dense(3, activation="relu", use_bias=False),
    layers.Conv2D(2, 3, strides=2, padding="same"),
    layers.MaxPooling2D(3),
    layers.AveragePooling2D(),
    layers.GlobalAveragePooling2D(),
    layers.GlobalMaxPooling2D(keepdims=True),
    layers.BatchNormalization(momentum=0.9),
    layers.Embedding(5, 2),
    layers.Dropout(0.2, seed=3),
    layers.Flatten(),
    layers.Reshape((2, 2)),
    layers.Activation("sigmoid"),
    layers.ReLU(6.0),
    layers.Softmax(axis=1),
    layers.Rescaling(0.5, 1.0),
    layers.Normalization(axis=(1, 2)),
    layers.Normalization(mean=1.0, variance=2.0),
    layers.Concatenate(axis=1),
    layers.Add(),
    layers.Subtract(),
    layers.Multiply(),
    layers.Average(),
    layers.Maximum(),
    layers.Minimum(),
    layers.SimpleRNN(3, return_sequences=True),
    layers.LSTM(3, return_state=True, go_backwards=True),
    layers.GRU(3, reset_after=False),
    layers.Conv2DTranspose(4, 3, strides=2, padding="same"),
    layers.Conv1D(4, 5, padding="causal", dilation_rate=2),
    layers.UpSampling2D((2, 3)),
    layers.GlobalAveragePooling1D(keepdims=True),
    layers.GlobalMaxPooling1D(),
    layers.Bidirectional(layers.GRU(2, return_sequences=True), merge_mode="ave"),
    layers.InputLayer(input_shape=(3,)),
]


@pytest.mark.parametrize("layer", BUILT_IN_LAYERS, ids=lambda la: type(la).__name__)
def test_every_built_in_layer_round_trips_its_config(layer):
    config = layer.get_config()
    json.dumps(config)  # plain JSON
    again = type(layer).from_config(config)
    assert again.get_config() == config
    restored = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(layer))
    assert type(restored) is type(layer) and restored.get_config() == config


def test_lambda_saves_its_code_and_loads_it_only_outside_safe_mode(tmp_path):
    # TensorFlow's basics guide: a Lambda, a function initializer, fit, then model.save.
    x = np.linspace(-2, 2, 64).astype(np.float32)
    y = x**2 + 2 * x - 5
    scale = 2.0

    def shifted(t, shift=0.5):  # nested: its closure (scale) and default travel as JSON
        return t * scale + shift

    model = keras.Sequential(
        [
            layers.Lambda(lambda t: ek.stack([t, t**2], axis=1)),
            layers.Lambda(shifted, output_shape=(2,)),
            layers.Dense(units=1, kernel_initializer=ek.random.normal),
        ]
    )
    model.compile(loss=keras.losses.MSE, optimizer=keras.optimizers.SGD(learning_rate=0.01))
    model.fit(x, y, epochs=2, batch_size=32, verbose=0)
    path = tmp_path / "m.keras"
    model.save(path)
    with zipfile.ZipFile(path) as zf:
        config = json.loads(zf.read("config.json"))
    first, second, dense = (layer["config"] for layer in config["config"]["layers"][-3:])
    assert first["function"]["class_name"] == "__lambda__"
    assert second["function"]["config"]["closure"] == [2.0]
    assert second["function"]["config"]["defaults"] == [0.5]
    assert dense["kernel_initializer"] == {
        "class_name": "function",
        "module": ek.random.normal.__module__,
        "config": "normal",
    }
    # Safe mode (the default) refuses the code, with Keras's message.
    refused = r"deserialization of a `Lambda` layer .*`safe_mode=False`"
    with pytest.raises(ValueError, match=refused):
        keras.models.load_model(path)
    loaded = keras.models.load_model(path, safe_mode=False)
    np.testing.assert_array_equal(loaded.predict(x), model.predict(x))
    assert loaded.layers[2].kernel_initializer is ek.random.normal
    assert loaded.layers[1].compute_output_shape((None,)) == (None, 2)
    # The scope ended with the call: the next load is safe again.
    with pytest.raises(ValueError, match="safe_mode=False"):
        keras.models.load_model(path)


def test_enable_unsafe_deserialization_and_named_functions(tmp_path, monkeypatch):
    from eagerkernel.runtime.keras import saving

    monkeypatch.setattr(saving, "_UNSAFE", [False])
    inputs = keras.Input(shape=(3,))
    named = keras.Model(inputs, layers.Lambda(ek.nn.relu)(inputs))  # an importable function
    named.save(tmp_path / "named.keras")
    again = keras.models.load_model(tmp_path / "named.keras")  # no code: safe mode loads it
    assert again.layers[-1].function is ek.nn.relu
    lam = keras.Model(inputs, layers.Lambda(lambda t: t - 1.0)(inputs))
    lam.save(tmp_path / "lam.keras")
    keras.config.enable_unsafe_deserialization()
    out = keras.models.load_model(tmp_path / "lam.keras").predict(np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(out, np.zeros((2, 3), np.float32))


def test_lambda_that_cannot_be_serialized_leaves_the_old_file(tmp_path):
    inputs = keras.Input(shape=(2,))
    good = keras.Model(inputs, layers.Dense(1)(inputs))
    path = tmp_path / "m.keras"
    good.save(path)
    before = path.read_bytes()
    offset = ek.constant([1.0, 2.0])  # a tensor in the closure: JSON cannot hold it
    bad = keras.Model(inputs, layers.Lambda(lambda t: t + offset)(inputs))
    with pytest.raises(NotImplementedError, match=r"Lambda layer .*closure holds"):
        bad.save(path)
    assert path.read_bytes() == before


def test_lambda_mask():
    layer = layers.Lambda(lambda t: t * 2, mask=lambda t, m: ek.not_equal(t, 0.0))
    x = ek.constant([[0.0, 1.0]])
    np.testing.assert_array_equal(layer.compute_mask(x).numpy(), [[False, True]])
    assert layers.Lambda(lambda t: t).compute_mask(x) is None


@pytest.mark.parametrize(
    "obj",
    [
        keras.optimizers.Adam(0.01, clipnorm=1.0),
        keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
        keras.optimizers.RMSprop(rho=0.8),
        keras.optimizers.Adagrad(),
        keras.losses.MeanSquaredError(),
        keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        keras.losses.BinaryCrossentropy(label_smoothing=0.1),
        keras.losses.CategoricalCrossentropy(),
        keras.losses.Huber(delta=2.0),
        keras.losses.MeanAbsoluteError(),
        keras.metrics.Mean(name="m"),
        keras.metrics.SparseCategoricalAccuracy(),
        keras.metrics.MeanSquaredError(),
        keras.metrics.CategoricalAccuracy(),
        keras.metrics.BinaryAccuracy(threshold=0.7),
        keras.metrics.RootMeanSquaredError(),
        keras.metrics.Sum(),
    ],
    ids=lambda o: type(o).__name__,
)
def test_optimizers_losses_and_metrics_round_trip(obj):
    config = obj.get_config()
    assert type(obj).from_config(config).get_config() == config
    restored = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(obj))
    assert type(restored) is type(obj) and restored.get_config() == config


def test_save_errors(tmp_path):
    model = functional_model()
    with pytest.raises(ValueError, match=r"Invalid filepath extension.*filepath=.*model.h5"):
        model.save(tmp_path / "model.h5")
    with pytest.raises(ValueError, match="Invalid filepath extension"):
        model.save(str(tmp_path / "path_to_my_model"))
    model.save(tmp_path / "m.keras")
    with pytest.raises(FileExistsError, match="overwrite=False"):
        model.save(tmp_path / "m.keras", overwrite=False)
    with pytest.raises(FileNotFoundError, match="File not found"):
        keras.models.load_model(tmp_path / "missing.keras")
    (tmp_path / "junk.keras").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match=r"junk.keras is not a .keras file"):
        keras.models.load_model(tmp_path / "junk.keras")


@pytest.mark.parametrize("name", ["my_checkpoint", "model.weights.h5", "w.safetensors"])
def test_save_weights_with_tensorflow_names(tmp_path, name):
    model = functional_model()
    x, _ = data(4)
    path = str(tmp_path / name)
    model.save_weights(path)
    other = functional_model()
    assert not np.array_equal(other.predict(x, verbose=0), model.predict(x, verbose=0))
    other.load_weights(path)
    np.testing.assert_array_equal(other.predict(x, verbose=0), model.predict(x, verbose=0))
    assert os.listdir(tmp_path) and all(f.endswith(".safetensors") for f in os.listdir(tmp_path))


@keras.saving.register_keras_serializable(package="TestSubclass")
class Stack(keras.Model):
    def __init__(self, hidden_units, **kwargs):
        super().__init__(**kwargs)
        self.hidden_units = hidden_units
        self.dense_layers = [layers.Dense(u) for u in hidden_units]

    def call(self, inputs):
        x = inputs
        for layer in self.dense_layers:
            x = layer(x)
        return x

    def get_config(self):
        return {"hidden_units": self.hidden_units}


def test_subclassed_model_round_trip_and_continued_training(tmp_path):
    model = Stack([8, 3])
    model.compile(
        optimizer=keras.optimizers.SGD(0.05, momentum=0.9),
        loss="mse",
        metrics=[keras.metrics.MeanAbsoluteError(name="mae")],
    )
    x, y = rand(16, 5), rand(16, 3, seed=1)
    model.fit(x, y, epochs=1, batch_size=4, verbose=0, shuffle=False)
    model.save(tmp_path / "sub.keras")
    loaded = keras.models.load_model(tmp_path / "sub.keras")
    assert type(loaded) is Stack and loaded.hidden_units == [8, 3]
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())
    assert loaded.metrics_names == ["loss", "mae"]
    h1 = model.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False)
    h2 = loaded.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False)
    assert h1.history == h2.history


def test_weights_that_do_not_fit_raise_and_name_the_file(tmp_path):
    inputs = keras.Input(shape=(3,))
    model = keras.Model(inputs, layers.Dense(2, name="d")(inputs))
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as zf:
        entries = {name: zf.read(name) for name in zf.namelist()}
    config = json.loads(entries.pop("config.json"))
    config["config"]["layers"][1]["config"]["units"] = 5  # a different model, same names
    with zipfile.ZipFile(tmp_path / "other.keras", "w") as zf:
        zf.writestr("config.json", json.dumps(config))
        for name, data in entries.items():
            zf.writestr(name, data)
    with pytest.raises(ValueError, match=r"other\.keras.*shape"):
        keras.models.load_model(tmp_path / "other.keras")


def test_constraints_round_trip_and_a_lambda_one_loads_only_unsafely(tmp_path):
    inputs = keras.Input(shape=(3,))
    dense = layers.Dense(
        2, kernel_constraint="non_neg", bias_constraint=keras.constraints.MaxNorm(0.5)
    )
    keras.Model(inputs, dense(inputs)).save(tmp_path / "m.keras")
    layer = keras.models.load_model(tmp_path / "m.keras").layers[-1]
    assert isinstance(layer.kernel_constraint, keras.constraints.NonNeg)
    assert isinstance(layer.kernel.constraint, keras.constraints.NonNeg)  # on the Variable
    assert layer.bias_constraint.get_config() == {"max_value": 0.5, "axis": 0}
    keras.Model(inputs, layers.Dense(2, kernel_constraint=lambda w: w)(inputs)).save(
        tmp_path / "lambda.keras"
    )
    with pytest.raises(ValueError, match="arbitrary code execution"):
        keras.models.load_model(tmp_path / "lambda.keras")
    loaded = keras.models.load_model(tmp_path / "lambda.keras", safe_mode=False)
    w = ek.constant([[-1.0, 2.0]])
    assert loaded.layers[-1].kernel_constraint(w) is w


def test_a_lambda_regularizer_is_saved_as_code_loaded_only_unsafely(tmp_path):
    inputs = keras.Input(shape=(3,))
    dense = layers.Dense(2, kernel_regularizer=lambda w: 0.01 * ek.reduce_sum(w * w))
    model = keras.Model(inputs, dense(inputs))
    model.save(tmp_path / "m.keras")
    with pytest.raises(ValueError, match="arbitrary code execution"):
        keras.models.load_model(tmp_path / "m.keras")
    loaded = keras.models.load_model(tmp_path / "m.keras", safe_mode=False)
    w = model.layers[-1].kernel.numpy()
    assert float(loaded.losses[0]) == pytest.approx(0.01 * float((w * w).sum()), rel=1e-6)


def test_recurrent_model_with_masks_round_trips(tmp_path):
    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(20, 4, mask_zero=True)(inputs)
    x = layers.Bidirectional(layers.LSTM(3))(x)
    model = keras.Model(inputs, layers.Dense(1)(x))
    model.compile(optimizer="adam", loss="mse")
    ids = np.array([[1, 4, 0, 0], [3, 3, 3, 9]])
    model.fit(ids, np.ones((2, 1)), verbose=0)
    model.save(tmp_path / "rnn.keras")
    loaded = keras.models.load_model(tmp_path / "rnn.keras")
    np.testing.assert_array_equal(loaded.predict(ids, verbose=0), model.predict(ids, verbose=0))
    h1 = model.fit(ids, np.ones((2, 1)), epochs=2, verbose=0)
    h2 = loaded.fit(ids, np.ones((2, 1)), epochs=2, verbose=0)
    assert h1.history == h2.history


@pytest.mark.parametrize(
    "obj",
    [
        keras.regularizers.L1(0.005),
        keras.regularizers.L1L2(l1=1e-5, l2=1e-4),
        keras.initializers.GlorotUniform(seed=3),
        keras.constraints.NonNeg(),
    ],
)
def test_built_in_regularizers_initializers_and_constraints_deserialize(obj):
    config = keras.saving.serialize_keras_object(obj)
    back = keras.saving.deserialize_keras_object(json.loads(json.dumps(config)))
    assert type(back) is type(obj) and back.get_config() == obj.get_config()


def test_keras_objects_a_custom_get_config_returns_are_serialized(tmp_path):
    # The keras-io serialization guide: get_config returns a sub-layer and a regularizer as
    # they are; serialize gives JSON, and from_config deserializes the sub-layer itself.
    @keras.saving.register_keras_serializable(package="SerTest")
    class Outer(keras.layers.Layer):
        def __init__(self, sub=None, reg=None, **kwargs):
            super().__init__(**kwargs)
            self.sub, self.reg = sub, reg

        def get_config(self):
            return {**super().get_config(), "sub": self.sub, "reg": self.reg}

        @classmethod
        def from_config(cls, config):
            config["sub"] = keras.layers.deserialize(config["sub"])
            return cls(**config)

    config = keras.layers.serialize(
        Outer(sub=keras.layers.Dense(2), reg=keras.regularizers.L2(0.1))
    )
    text = json.dumps(config)  # no object left in it
    assert config["config"]["sub"]["class_name"] == "Dense"
    assert config["config"]["reg"]["class_name"] == "L2"
    back = keras.layers.deserialize(json.loads(text))
    assert isinstance(back.sub, keras.layers.Dense) and back.sub.units == 2


def test_get_custom_objects_is_the_live_registry():
    class Thing(keras.layers.Layer):
        pass

    registry = keras.saving.get_custom_objects()
    registry["ThingForTest"] = Thing
    try:
        assert keras.saving.get_registered_object("ThingForTest") is Thing
    finally:
        del registry["ThingForTest"]
    assert keras.saving.get_registered_object("ThingForTest") is None
