"""Divergences found running keras.io's generative examples (ddim, ddpm) on eagerkernel.

Expected values were computed with TensorFlow 2.21 / Keras 3.15 (the oracle) or in closed form,
as each test says.
"""

import warnings

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel import keras


@keras.saving.register_keras_serializable(package="KGen2")
def kgen2_double(x):
    return x * 2.0


def test_registered_function_in_lambda_is_written_by_its_registered_name():
    # Oracle: keras.layers.Lambda(f).get_config()["function"] for a registered f
    # (keras.io's ddim registers its sinusoidal_embedding so that clone_model works).
    layer = keras.layers.Lambda(kgen2_double)
    assert layer.get_config()["function"] == {
        "class_name": "function",
        "module": "builtins",
        "config": "KGen2>kgen2_double",
        "registered_name": "function",
    }
    assert keras.layers.Lambda.from_config(layer.get_config()).function is kgen2_double


def test_clone_model_with_a_registered_lambda_function_runs_in_safe_mode():
    inp = keras.Input((2,))
    model = keras.Model(inp, keras.layers.Lambda(kgen2_double)(inp))
    clone = keras.models.clone_model(model)  # oracle: no error, output 2.0
    np.testing.assert_allclose(np.asarray(clone(np.ones((1, 2), "float32"))), [[2.0, 2.0]])


class _StepOnly(keras.Model):
    """A subclassed model with a custom train_step that never calls itself (never built)."""

    def __init__(self, key="loss"):
        super().__init__()
        self.key = key
        self.net = keras.Sequential(
            [keras.Input((3,)), keras.layers.Dense(1, kernel_initializer="ones")]
        )

    def train_step(self, data):
        x, y = data
        return {self.key: ek.reduce_mean((self.net(x) - y) ** 2)}

    def test_step(self, data):
        x, y = data
        return {self.key: ek.reduce_mean((self.net(x) - y) ** 2)}


X = np.arange(12, dtype="float32").reshape(4, 3) / 10
Y = np.ones((4, 1), "float32")


def test_save_weights_of_a_model_never_built_raises_as_keras(tmp_path):
    model = _StepOnly()
    model.compile(optimizer="sgd", loss="mse")
    model.fit(X, Y, batch_size=2, verbose=0)
    assert not model.built  # oracle: False too, after fit with a custom train_step
    # Oracle: ValueError from saving_lib.save_weights_only (keras.io's ddim ModelCheckpoint).
    with pytest.raises(ValueError, match="saving a model that has not yet been built"):
        model.save_weights(str(tmp_path / "m.weights.h5"))


def _dense_ones():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, kernel_initializer="ones")])
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse")
    return model


def test_batch_size_with_a_dataset_is_ignored_as_keras():
    x = np.arange(24, dtype="float32").reshape(8, 3) / 10
    y = np.ones((8, 1), "float32")
    ds = ek.data.Dataset.from_tensor_slices((x, y)).batch(4)
    expected = float(np.mean((x.sum(1) - 1.0) ** 2))  # closed form; oracle: 10.255000114440918
    assert expected == pytest.approx(10.255, rel=1e-6)
    model = _dense_ones()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loss = model.fit(ds, batch_size=4, verbose=0).history["loss"]  # keras.io's ddpm
        val = model.fit(ds, validation_data=ds, validation_batch_size=3, verbose=0)
        ev = model.evaluate(ds, batch_size=2, verbose=0)
        pred = model.predict(ds, batch_size=2, verbose=0)
    np.testing.assert_allclose(loss, [expected], rtol=1e-6)
    np.testing.assert_allclose(val.history["val_loss"], [expected], rtol=1e-6)
    assert ev == pytest.approx(expected, rel=1e-6)
    assert pred.shape == (8, 1)


def test_batch_size_with_a_generator_is_ignored_as_keras():
    def gen():
        for i in range(2):
            yield X[2 * i : 2 * i + 2], Y[2 * i : 2 * i + 2]

    model = _dense_ones()
    with pytest.warns(UserWarning, match="batch_size=4 is not used"):
        hist = model.fit(gen(), batch_size=4, verbose=0)
    np.testing.assert_allclose(hist.history["loss"], [np.mean((X.sum(1) - 1) ** 2)], rtol=1e-6)


@pytest.mark.parametrize("loss", ["mse", None])
def test_epoch_logs_named_as_the_metrics_are_the_metrics_results(loss):
    # Oracle: a train_step returning {"loss": ...} on a model whose only metric is the
    # compiled loss tracker (never updated) ends the epoch with loss 0.0 (keras.io's ddpm
    # prints "loss: 0.0000e+00"): Keras 3's _get_metrics_result_or_logs.
    model = _StepOnly("loss")
    model.compile(optimizer="sgd", loss=loss)
    hist = model.fit(X, Y, batch_size=2, verbose=0, validation_data=(X, Y))
    assert hist.history == {"loss": [0.0], "val_loss": [0.0]}
    assert model.evaluate(X, Y, batch_size=2, verbose=0, return_dict=True) == {"loss": 0.0}


def test_epoch_logs_with_other_names_are_the_last_step_logs():
    # Oracle: {'my_loss': 2.605...} from evaluate: the last batch, rows 2-3, whose sums are
    # 2.1 and 3.0: ((2.1 - 1)**2 + (3 - 1)**2) / 2 = 2.605.
    model = _StepOnly("my_loss")
    model.compile(optimizer="sgd", loss="mse")
    hist = model.fit(X, Y, batch_size=2, shuffle=False, verbose=0, validation_data=(X, Y))
    ev = model.evaluate(X, Y, batch_size=2, verbose=0, return_dict=True)
    np.testing.assert_allclose(hist.history["my_loss"], [2.605], rtol=1e-6)
    np.testing.assert_allclose(hist.history["val_my_loss"], [2.605], rtol=1e-6)
    assert ev["my_loss"] == pytest.approx(2.605, rel=1e-6)
