"""A Model subclass built with the functional API (``CustomModel(inputs, outputs)``, Keras's
"customizing what happens in fit()" guide), and the batches `fit` hands to ``train_step``
(Keras's ``pack_x_y_sample_weight``)."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as tf
from eagerkernel import keras

RNG = np.random.default_rng(0)
X = RNG.random((64, 8)).astype(np.float32)
Y = RNG.random((64, 1)).astype(np.float32)


class CustomModel(keras.Model):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.seen = []

    def train_step(self, data):
        self.seen.append(data)
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = tf.reduce_mean(keras.losses.mean_squared_error(y, y_pred))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.loss_tracker.update_state(loss)
        return {"loss": self.loss_tracker.result()}

    @property
    def metrics(self):
        return [self.loss_tracker]


def _graph():
    inputs = keras.Input(shape=(8,))
    outputs = keras.layers.Dense(1)(keras.layers.Dense(4, activation="relu")(inputs))
    return inputs, outputs


def test_subclass_called_with_inputs_and_outputs_is_a_functional_model_of_that_class():
    inputs, outputs = _graph()
    model = CustomModel(inputs, outputs)
    assert isinstance(model, CustomModel) and isinstance(model, keras.Model)
    assert type(model).__name__ == "CustomModel"
    assert [type(la).__name__ for la in model.layers] == ["InputLayer", "Dense", "Dense"]
    assert model(X[:3]).shape == (3, 1)
    assert model.inputs == [inputs] and model.outputs == [outputs]
    again = CustomModel(inputs=inputs, outputs=outputs)  # keywords, and a second instance
    assert type(again) is type(model) and again.layers[1] is model.layers[1]


def test_fit_runs_the_overridden_train_step_on_x_y_pairs():
    inputs, outputs = _graph()
    model = CustomModel(inputs, outputs)
    model.compile(optimizer=keras.optimizers.SGD(0.1))
    history = model.fit(X, Y, batch_size=16, epochs=3, verbose=0)
    losses = history.history["loss"]
    assert len(model.seen) == 12 and all(len(d) == 2 for d in model.seen)
    assert losses[-1] < losses[0]


def test_train_step_gets_batches_as_keras_packs_them():
    seen = []

    class Recorder(keras.Model):
        def train_step(self, data):
            seen.append(data)
            return {}

    inputs, outputs = _graph()
    model = Recorder(inputs, outputs)
    model.compile(optimizer="sgd", loss="mse")
    model.fit(X[:4], batch_size=4, verbose=0)  # x alone: the array itself
    model.fit(X[:4], Y[:4], sample_weight=np.ones(4), batch_size=4, verbose=0)
    ds = tf.data.Dataset.from_tensor_slices({"a": X[:4]}).batch(4)
    model.fit(ds, verbose=0)  # a dataset's element as it is
    assert isinstance(seen[0], tf.Tensor) and seen[0].shape == (4, 8)
    assert isinstance(seen[1], tuple) and len(seen[1]) == 3
    assert isinstance(seen[2], dict) and list(seen[2]) == ["a"]


def test_plain_training_is_unchanged_and_subclass_saves_and_loads(tmp_path):
    inputs, outputs = _graph()
    model = CustomModel(inputs, outputs)
    model.compile(optimizer="sgd")
    model.fit(X, Y, epochs=1, verbose=0)
    model.save(tmp_path / "m.keras")
    loaded = keras.models.load_model(
        tmp_path / "m.keras", custom_objects={"CustomModel": CustomModel}
    )
    assert isinstance(loaded, CustomModel)
    np.testing.assert_allclose(loaded(X[:5]).numpy(), model(X[:5]).numpy(), rtol=1e-6)


def test_bad_constructor_arguments_still_raise():
    class Plain(keras.Model):
        def call(self, x):
            return x

    inputs, _ = _graph()
    with pytest.raises(TypeError, match="takes inputs and outputs only both together"):
        Plain(inputs)
