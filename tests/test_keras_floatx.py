"""`keras.backend.set_floatx` (follows Keras 3's `keras.config.set_floatx`): layers, weights,
initializers, metrics, `Variable`s and `fit`'s NumPy data follow the default float type."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

keras = ek.keras


@pytest.fixture
def float64():
    keras.backend.set_floatx("float64")
    yield
    keras.backend.set_floatx("float32")


def test_a_float64_model_trains_in_float64(float64):
    assert keras.backend.floatx() == "float64"
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"),
                              keras.layers.Dense(1)])  # fmt: skip
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 3))
    y = x.sum(1, keepdims=True)
    history = model.fit(x, y, epochs=3, verbose=0)
    assert {w.dtype for w in model.weights} == {ek.float64}
    assert model.predict(x, verbose=0).dtype == np.float64
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert keras.initializers.GlorotUniform()((2, 2)).dtype == ek.float64
    assert keras.metrics.Mean().result().dtype == ek.float64
    assert keras.Variable(initializer="ones", shape=(2,)).dtype == ek.float64


def test_float32_again_and_errors():
    keras.backend.set_floatx("float32")
    assert keras.layers.Dense(2)(ek.ones((1, 3))).dtype == ek.float32
    with pytest.raises(ValueError, match="unknown `floatx` value: float8"):
        keras.backend.set_floatx("float8")
    with pytest.raises(NotImplementedError, match="no bfloat16"):
        keras.backend.set_floatx("bfloat16")
    assert keras.backend.floatx() == "float32"
