"""``layer.trainable = False`` freezes every layer inside it, as Keras does (the transfer
learning guide), and a frozen model lists its weights in Keras 3.15's order (measured with the
counter made by add_weight: Keras 3 leaves a plain tf.Variable out)."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel import keras


def test_freezing_a_model_freezes_nested_models_and_layers():
    inner = keras.Sequential(
        [keras.Input(shape=(3,)), keras.layers.Dense(3), keras.layers.Dense(3)]
    )
    model = keras.Sequential([keras.Input(shape=(3,)), inner, keras.layers.Dense(3)])
    model.trainable = False
    assert inner.trainable is False and inner.layers[0].trainable is False
    assert model.trainable_weights == [] and len(model.non_trainable_weights) == 6
    model.trainable = True  # unfreezes everything, individually frozen layers too
    assert all(la.trainable for la in [inner, *inner.layers, *model.layers])
    assert len(model.trainable_weights) == 6


def test_frozen_model_keeps_weights_and_batchnorm_statistics_in_fit():
    model = keras.Sequential(
        [keras.Input(shape=(4,)), keras.layers.BatchNormalization(), keras.layers.Dense(1)]
    )
    base = keras.Sequential([keras.Input(shape=(4,)), model])
    model.trainable = False
    base.compile(optimizer="sgd", loss="mse")
    before = [w.numpy().copy() for w in base.weights]
    x = np.random.default_rng(0).normal(3.0, 2.0, size=(32, 4)).astype(np.float32)
    with pytest.warns(UserWarning, match="does not have any trainable weights"):
        base.fit(x, np.zeros((32, 1), np.float32), epochs=2, verbose=0)
    for w, b in zip(base.weights, before):
        np.testing.assert_array_equal(w.numpy(), b)  # moving statistics included


class _M(keras.Model):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.bn = keras.layers.BatchNormalization(name="bn")
        self.d = keras.layers.Dense(2, name="d")
        self.counter = ek.Variable(0.0, trainable=False, name="counter")

    def build(self, input_shape):
        self.scale = self.add_weight(name="scale", shape=(), trainable=True)
        self.stat = self.add_weight(name="stat", shape=(), trainable=False)

    def call(self, x):
        return self.d(self.bn(x)) * self.scale


def test_weight_order_of_frozen_models_is_keras_3():
    m = _M(name="m")
    m(ek.ones((1, 3)))
    bn = ["m/bn/gamma:0", "m/bn/beta:0", "m/bn/moving_mean:0", "m/bn/moving_variance:0"]
    m.trainable = False
    assert [v.name for v in m.non_trainable_weights] == [
        "m/scale:0",
        "counter:0",
        "m/stat:0",
        *bn,
        "m/d/kernel:0",
        "m/d/bias:0",
    ]
    m.trainable = True
    m.bn.trainable = False
    assert [v.name for v in m.trainable_weights] == ["m/scale:0", "m/d/kernel:0", "m/d/bias:0"]
    assert [v.name for v in m.non_trainable_weights] == ["counter:0", "m/stat:0", *bn]
