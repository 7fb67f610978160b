"""Keras guides of keras-team/keras-io (``guides/``, their TensorFlow-Keras edition) run against
eagerkernel: the APIs they use that earlier tests did not cover, each checked against a value
computed by hand or the error tf.keras raises.
"""

import numpy as np
import pytest
from eagerkernel.keras import layers

import eagerkernel as tf
from eagerkernel import keras


# -- training_with_built_in_methods.py: Layer.add_metric, keras.backend math ---------------------
class MeanLogger(layers.Layer):
    def call(self, inputs):
        self.add_metric(tf.reduce_mean(inputs), name="input_mean", aggregation="mean")
        return inputs


def _logging_model():
    inputs = keras.Input(shape=(1,))
    x = MeanLogger()(inputs)
    outputs = layers.Dense(1, kernel_initializer="zeros")(x)
    model = keras.Model(inputs, outputs)
    model.compile(optimizer="sgd", loss="mse")
    return model


def test_add_metric_mean_is_logged_and_reset_each_epoch():
    model = _logging_model()
    x = np.array([[1.0], [2.0], [3.0], [4.0]], np.float32)
    history = model.fit(x, x, batch_size=2, epochs=2, shuffle=False, verbose=0)
    # batch means 1.5 and 3.5, averaged over the epoch; the stand-in call that built the
    # functional graph and the first epoch do not leak into the second
    assert history.history["input_mean"] == pytest.approx([2.5, 2.5])
    assert model.metrics_names == ["loss", "input_mean"]
    logs = model.evaluate(np.array([[10.0], [20.0]]), np.zeros((2, 1)), verbose=0, return_dict=True)
    assert logs["input_mean"] == pytest.approx(15.0)


def test_add_metric_of_a_metric_object_tracks_it_under_its_own_name():
    # the guide's LogisticEndpoint: `self.add_metric(self.accuracy_fn(t, p), name="accuracy")`
    class Endpoint(layers.Layer):
        def __init__(self):
            super().__init__()
            self.accuracy_fn = keras.metrics.BinaryAccuracy()

        def call(self, targets, probs):
            self.add_loss(tf.reduce_mean(tf.square(targets - probs)))
            self.add_metric(self.accuracy_fn(targets, probs), name="accuracy")
            return probs

    inputs = keras.Input(shape=(1,), name="inputs")
    targets = keras.Input(shape=(1,), name="targets")
    probs = layers.Dense(1, activation="sigmoid", kernel_initializer="zeros")(inputs)
    model = keras.Model([inputs, targets], Endpoint()(targets, probs))
    model.compile(optimizer=keras.optimizers.SGD(0.0))  # no loss: add_loss's only
    data = {"inputs": np.ones((4, 1)), "targets": np.array([[1.0], [0.0], [0.0], [0.0]])}
    history = model.fit(data, batch_size=4, verbose=0)
    # sigmoid(0) = 0.5 everywhere, not above the 0.5 threshold, so each prediction is 0: three
    # of the four targets right; the loss is mean((t - 0.5)^2) = 0.25
    assert history.history["binary_accuracy"] == pytest.approx([0.75])
    assert history.history["loss"] == pytest.approx([0.25])
    assert "accuracy" not in history.history  # tf.keras keeps the metric's own name


def test_add_metric_errors():
    class Bad(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__()
            self.kwargs = kwargs

        def call(self, x):
            self.add_metric(tf.reduce_sum(x), **self.kwargs)
            return x

    x = tf.ones((2, 2))
    with pytest.raises(ValueError, match=r"aggregation='mean'.*Received: aggregation='sum'"):
        Bad(name="s", aggregation="sum")(x)
    with pytest.raises(ValueError, match="give the metric a name"):
        Bad(aggregation="mean")(x)
    with pytest.raises(ValueError, match="aggregation=None the value must be the result"):
        Bad(name="s")(x)
    with pytest.raises(TypeError, match="symbolic"):
        MeanLogger().add_metric(keras.Input(shape=(2,)), name="m", aggregation="mean")


def test_layer_metrics_lists_nested_layers_metrics_once():
    outer = keras.Sequential([MeanLogger(), MeanLogger()])
    outer(np.array([[2.0], [4.0]], np.float32))
    assert [m.name for m in outer.metrics] == ["input_mean", "input_mean"]
    assert [float(m.result()) for m in outer.metrics] == [3.0, 3.0]


def test_backend_math_follows_keras2():
    K = keras.backend
    x = tf.constant([[1.0, 3.0], [5.0, 7.0]])
    assert float(K.std(x)) == pytest.approx(np.std([1, 3, 5, 7]))
    np.testing.assert_allclose(K.var(x, axis=1).numpy(), [1.0, 1.0])
    np.testing.assert_allclose(K.mean(x, axis=0, keepdims=True).numpy(), [[3.0, 5.0]])
    assert float(K.mean(tf.constant([True, True, False, True]))) == 0.75
    assert K.mean(tf.constant([True, False])).dtype == tf.float32
    np.testing.assert_allclose(K.sqrt(tf.constant([9.0, -4.0])).numpy(), [3.0, 0.0])
    np.testing.assert_allclose(K.clip(tf.constant([-1.0, 2.0, 5.0]), 0.0, 3.0).numpy(), [0, 2, 3])
    # max_value below min_value is raised to it (Keras 2's clip)
    np.testing.assert_allclose(K.clip(tf.constant([-1.0, 2.0]), 1.0, 0.0).numpy(), [1.0, 1.0])
    np.testing.assert_allclose(K.clip(tf.constant([-1.0, 9.0]), None, 2.0).numpy(), [-1.0, 2.0])
    assert float(K.sum(x)) == 16.0 and float(K.max(x)) == 7.0 and float(K.min(x)) == 1.0
    np.testing.assert_allclose(K.square(x).numpy(), np.square(x.numpy()))
    np.testing.assert_allclose(K.exp(K.log(x)).numpy(), x.numpy(), rtol=1e-6)
    assert K.cast(x, "int32").dtype == tf.int32
    assert K.int_shape(keras.Input(shape=(None, 4))) == (None, None, 4)
    v = tf.Variable([1.0, 2.0])
    K.set_value(v, [3.0, 4.0])
    np.testing.assert_array_equal(K.get_value(v), [3.0, 4.0])
    with pytest.raises(TypeError, match="set_value: expected a Variable"):
        K.set_value(x, [1.0])


# -- making_new_layers_and_models_via_subclassing.py: keras.backend.random_normal ----------------
def test_backend_random_normal_and_uniform():
    K = keras.backend
    z = tf.zeros((3, 5))
    # the guide's Sampling layer: a shape of scalar Tensors from tf.shape
    eps = K.random_normal(shape=(tf.shape(z)[0], tf.shape(z)[1]))
    assert eps.shape == (3, 5) and eps.dtype == tf.float32
    a = K.random_normal((4000,), mean=2.0, stddev=0.5, seed=7).numpy()
    np.testing.assert_array_equal(a, K.random_normal((4000,), mean=2.0, stddev=0.5, seed=7))
    assert abs(a.mean() - 2.0) < 0.05 and abs(a.std() - 0.5) < 0.05
    u = K.random_uniform((4000,), -1.0, 1.0, dtype="float64", seed=3).numpy()
    assert u.dtype == np.float64 and u.min() >= -1.0 and u.max() < 1.0
    assert abs(u.mean()) < 0.05


# -- transfer_learning.py: keras.applications.Xception -------------------------------------------
def _count(weights):
    return int(sum(np.prod(w.shape) for w in weights))


def test_xception_matches_keras_architecture_and_the_guides_counts():
    base = keras.applications.Xception(weights=None, input_shape=(71, 71, 3), include_top=False)
    assert base.count_params() == 20_861_480  # Keras's Xception without its top
    assert base.output_shape == (None, 3, 3, 2048)
    assert base.layers[1].name == "block1_conv1" and base.layers[-1].name == "block14_sepconv2_act"
    # the guide's model: frozen base, pooling, dropout, one logit
    base.trainable = False
    inputs = keras.Input(shape=(71, 71, 3))
    x = keras.layers.Rescaling(scale=1 / 127.5, offset=-1)(inputs)
    x = base(x, training=False)
    x = keras.layers.GlobalAveragePooling2D()(x)
    outputs = keras.layers.Dense(1)(keras.layers.Dropout(0.2)(x))
    model = keras.Model(inputs, outputs)
    # the counts the guide's summaries print
    assert _count(model.trainable_weights) == 2_049
    assert _count(model.non_trainable_weights) == 20_861_480
    base.trainable = True
    assert _count(model.trainable_weights) == 20_809_001
    assert _count(model.non_trainable_weights) == 54_528  # BatchNormalization moving stats


def test_xception_top_preprocessing_and_errors():
    top = keras.applications.Xception(weights=None, input_shape=(71, 71, 3), classes=7)
    assert top.count_params() == 20_861_480 + 2048 * 7 + 7
    assert top.output_shape == (None, 7) and top.layers[-2].name == "avg_pool"
    pooled = keras.applications.Xception(weights=None, include_top=False, pooling="max")
    assert pooled.output_shape == (None, 2048)
    x = np.array([[[[0.0, 127.5, 255.0]]]], np.float32)
    np.testing.assert_allclose(keras.applications.xception.preprocess_input(x), [[[[-1, 0, 1]]]])
    with pytest.raises(ValueError, match="at least 71x71"):
        keras.applications.Xception(weights=None, input_shape=(64, 64, 3), include_top=False)
    with pytest.raises(FileNotFoundError, match="downloads nothing"):
        keras.applications.Xception(input_shape=(71, 71, 3))


# -- intro_to_keras_for_researchers.py: a hypernetwork's generated Dense weights -----------------
def test_dense_marked_built_uses_assigned_tensors_and_passes_their_gradient():
    layer = layers.Dense(2)
    layer.built = True  # the guide: its weights come from another network
    source = tf.Variable([[1.0, 2.0, 3.0, 4.0, 0.5, -0.5]])
    x = tf.constant([[1.0, 10.0]])
    with tf.GradientTape() as tape:
        layer.kernel = tf.reshape(source[:, :4], (2, 2))
        layer.bias = tf.reshape(source[:, 4:], (2,))
        y = layer(x)
        loss = tf.reduce_sum(y)
    # [1, 10] @ [[1, 2], [3, 4]] + [0.5, -0.5] = [31.5, 41.5]
    np.testing.assert_allclose(y.numpy(), [[31.5, 41.5]])
    # d sum(x @ K + b) / dK[i, j] = x[i]; / db = 1
    np.testing.assert_allclose(tape.gradient(loss, source).numpy(), [[1, 1, 10, 10, 1, 1]])
    assert layer.weights == []  # nothing was created
    with pytest.raises(ValueError, match=r"built for its weights\), but received input"):
        layer(tf.ones((1, 3)))


# -- customizing_saving_and_serialization.py: float64 NumPy targets meet float32 predictions -----
def test_fit_casts_floating_numpy_arrays_to_floatx():
    seen = []

    def small_square_sum_loss(y_true, y_pred):  # the guide's loss: no implicit promotion
        seen.append((y_true.dtype, y_pred.dtype))
        return tf.reduce_sum(tf.math.squared_difference(y_pred, y_true) / 10.0, axis=1)

    model = keras.Sequential([keras.Input(shape=(8,)), layers.Dense(4, kernel_initializer="ones")])
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss=small_square_sum_loss)
    x = np.full((4, 8), 0.5)  # float64, as np.random.random gives
    y = np.zeros((4, 4))
    history = model.fit(x, y, batch_size=4, verbose=0)
    assert seen[-1] == (tf.float32, tf.float32)
    # every output is 8 * 0.5 = 4: per sample 4 * 4^2 / 10 = 6.4
    assert history.history["loss"] == pytest.approx([6.4])
    assert model.predict(x, verbose=0).dtype == np.float32
    # A float64 Tensor target reaches the loss as float32 too: Keras 3's loss wrapper casts
    # y_true to its dtype (TF 2.21 + Keras 3.15 evaluate this to 6.4, seeing float32 twice)
    assert model.evaluate(x[:3], tf.constant(y[:3]), verbose=0) == pytest.approx(6.4)
    assert seen[-1] == (tf.float32, tf.float32)


# -- customizing_saving_and_serialization.py: build and compile configs, no-argument models -----
@keras.saving.register_keras_serializable(package="guides_more")
class BuildWithInit(layers.Layer):
    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape, layer_init):  # an extra argument: rebuilt from the config
        super().build(input_shape)
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer=layer_init)
        self.layer_init = layer_init

    def call(self, inputs):
        return tf.matmul(inputs, self.w)

    def get_config(self):
        return dict(units=self.units, **super().get_config())

    def get_build_config(self):
        return {**super().get_build_config(), "layer_init": self.layer_init}

    def build_from_config(self, config):
        self.build(config["input_shape"], config["layer_init"])


def test_get_build_config_round_trip(tmp_path):
    layer = BuildWithInit(units=2)
    assert layers.Dense(2).get_build_config() is None  # not built
    layer.build(input_shape=(4,), layer_init="ones")  # built by hand, as the guide does
    assert layer.get_build_config() == {"input_shape": (4,), "layer_init": "ones"}
    model = keras.Sequential([layer, layers.Dense(1)])
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    expected = model(x).numpy()
    model.save(tmp_path / "m.keras")
    restored = keras.models.load_model(tmp_path / "m.keras")
    assert restored.layers[0].layer_init == "ones" and restored.built
    np.testing.assert_allclose(restored(x).numpy(), expected, rtol=1e-6)


@keras.saving.register_keras_serializable(package="guides_more")
def mean_pred(y_true, y_pred):
    return tf.reduce_mean(y_pred)


@keras.saving.register_keras_serializable(package="guides_more")
class CustomCompileModel(keras.Model):
    def __init__(self):  # no name/trainable/**kwargs: from_config leaves them out
        super().__init__()
        self.dense = layers.Dense(2, kernel_initializer="ones")

    def call(self, inputs):
        return self.dense(inputs)

    def compile(self, optimizer, loss_fn, metrics):
        super().compile(optimizer=optimizer, loss=loss_fn, metrics=metrics)
        self.loss_fn, self.loss_metrics = loss_fn, metrics

    def get_compile_config(self):
        return {"optimizer": "sgd", "loss_fn": self.loss_fn, "metrics": self.loss_metrics}

    def compile_from_config(self, config):
        config = {k: keras.utils.deserialize_keras_object(v) for k, v in config.items()}
        self.compile(**config)


def test_compile_config_hooks_and_no_argument_subclassed_model(tmp_path):
    model = CustomCompileModel()
    model.compile("sgd", loss_fn="mse", metrics=[mean_pred])
    x, y = np.ones((4, 3), np.float32), np.zeros((4, 2), np.float32)
    model.fit(x, y, verbose=0)
    model.save(tmp_path / "c.keras")
    restored = keras.models.load_model(tmp_path / "c.keras")
    assert type(restored) is CustomCompileModel
    assert restored.loss_fn == "mse" and restored.loss_metrics == [mean_pred]
    np.testing.assert_allclose(restored.predict(x, verbose=0), model.predict(x, verbose=0))
    logs = restored.evaluate(x, y, verbose=0, return_dict=True)
    # mean_pred is the mean prediction, the loss the mean square of it (targets 0)
    assert logs["loss"] == pytest.approx(np.mean(model.predict(x, verbose=0) ** 2), rel=1e-5)
    assert logs["mean_pred"] == pytest.approx(float(np.mean(model.predict(x, verbose=0))))
    # the default hooks: compile arguments serialized, then compiled again
    plain = keras.Sequential([keras.Input(shape=(3,)), layers.Dense(1)])
    assert plain.get_compile_config() is None
    plain.compile(optimizer="adam", loss="mse", metrics=["mae"])
    config = plain.get_compile_config()
    assert config["loss"] == "mse" and config["metrics"] == ["mae"]
    assert config["optimizer"]["class_name"] == "Adam"
    other = keras.Sequential([keras.Input(shape=(3,)), layers.Dense(1)])
    other.compile_from_config(config)
    assert type(other.optimizer).__name__ == "Adam" and other.metrics_names == ["loss", "mae"]


# -- customizing_saving_and_serialization.py: (N,) targets against (N, K) predictions ----------
def test_compiled_loss_gives_rank_1_targets_a_last_axis_as_keras_2():
    model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(10)])
    model.compile(optimizer="sgd", loss="mean_squared_error")
    x = np.random.default_rng(0).random((8, 10)).astype("float32")
    y = np.random.default_rng(1).random((8,)).astype("float32")
    history = model.fit(x, y, epochs=1, batch_size=8, verbose=0, shuffle=False).history
    pred = model.predict(x, verbose=0)  # after the step; recompute the loss of that step
    assert np.isfinite(history["loss"][0])
    loss = keras.losses.MeanSquaredError()
    expected = np.mean((y[:, None] - pred) ** 2)
    np.testing.assert_allclose(float(loss(y[:, None], pred)), expected, rtol=1e-5)
    with pytest.raises(ValueError, match=r"y_true \(8,\), y_pred \(8, 10\)"):
        loss(y, pred)  # a loss called directly follows Keras 3: no broadcasting across ranks


# -- serialization_and_saving.py (TF 2): a layer whose __init__ skips super().__init__() -------
class NoSuperInit(keras.layers.Layer):
    def __init__(self, a):
        self.var = tf.Variable(a, name="var_a")

    def get_config(self):
        return {"a": self.var.numpy()}


def test_layer_without_super_init_serializes_and_checkpoints(tmp_path):
    layer = NoSuperInit(5)
    layer.var.assign(2)
    config = keras.layers.serialize(layer)
    assert config["class_name"] == "NoSuperInit" and config["config"] == {"a": 2}
    again = keras.layers.deserialize(config, custom_objects={"NoSuperInit": NoSuperInit})
    assert int(again.var.numpy()) == 2
    path = tf.train.Checkpoint(layer=layer).save(str(tmp_path / "custom_layer"))
    dtypes = tf.train.load_checkpoint(path).get_variable_to_dtype_map()
    assert dtypes["layer/var/.ATTRIBUTES/VARIABLE_VALUE"] == tf.int32


# -- serialization_and_saving.py: a functional model as a Sequential's first layer -------------
def test_sequential_takes_its_input_from_a_functional_first_layer(tmp_path):
    inputs = keras.Input(shape=(784,), name="digits")
    x = keras.layers.Dense(64, activation="relu", name="dense_1")(inputs)
    pretrained = keras.Model(inputs=inputs, outputs=x, name="pretrained")
    model = keras.Sequential([pretrained, keras.layers.Dense(5, name="predictions")])
    assert model.built and model.output.shape == (None, 5)
    assert model.count_params() == 784 * 64 + 64 + 64 * 5 + 5
    model.summary(print_fn=lambda *a, **k: None)
    data = np.random.default_rng(0).random((2, 784)).astype("float32")
    model.save(tmp_path / "m.keras")
    loaded = keras.models.load_model(tmp_path / "m.keras")
    np.testing.assert_array_equal(loaded.predict(data, verbose=0), model.predict(data, verbose=0))
