"""Divergences found running keras-io's timeseries examples (timeseries classification with
a Transformer, multivariate forecasting with `TimeseriesGenerator`) against Keras 3.15 on
TensorFlow 2.21: operator nodes are named after the Keras 3 operation, `Functional` has
``operations``, and ``tf.keras.preprocessing.sequence.TimeseriesGenerator`` exists."""

from __future__ import annotations

import json

import numpy as np
import pytest
from eagerkernel.keras.preprocessing.sequence import TimeseriesGenerator

import eagerkernel as ek

keras = ek.keras


def test_operator_nodes_are_named_after_the_keras3_operation():
    # Names printed by Keras 3.15 (TF backend) for the same graph in a fresh session:
    # model.operations -> input_layer, add, multiply, subtract, subtract_1, true_divide, ...
    keras.backend.clear_session()
    inp = keras.Input((3,))
    outs = [inp + inp, 2 * inp, inp - 1, 1 - inp, inp / 2, inp // 2, inp % 2, inp**2, -inp]
    outs += [abs(inp), inp[:, 1:], inp > 0, inp < 0, round(inp)]
    model = keras.Model(inp, outs)
    assert [op.name for op in model.operations] == [
        "input_layer",
        "add",
        "multiply",
        "subtract",
        "subtract_1",
        "true_divide",
        "floor_divide",
        "mod",
        "power",
        "negative",
        "absolute",
        "get_item",
        "greater",
        "less",
        "round",
    ]
    x = np.array([[1.0, -2.0, 3.0]], np.float32)
    np.testing.assert_allclose(np.asarray(model(x)[4]), x / 2)


def test_transformer_block_residual_is_named_add():
    # keras-io timeseries_classification_transformer: `res = x + inputs` shows as
    # "add (Add)", then "add_1", in Keras 3's summary.
    keras.backend.clear_session()
    inp = keras.Input((4, 1))
    x = keras.layers.LayerNormalization(epsilon=1e-6)(inp)
    res = x + inp
    out = keras.layers.Conv1D(1, 1)(res) + res
    model = keras.Model(inp, out)
    names = [op.name for op in model.operations]
    assert names == ["input_layer", "layer_normalization", "add", "conv1d", "add_1"]


def test_functional_operations_follows_run_order():
    keras.backend.clear_session()
    inp = keras.Input((3,))
    a = keras.layers.Dense(3)(inp)
    out = keras.ops.concatenate([-keras.ops.mean(a * 2.0, axis=-1, keepdims=True), a], axis=-1)
    model = keras.Model(inp, out)
    # Keras 3.15: ['input_layer', 'dense', 'multiply', 'mean', 'negative', 'concatenate'].
    assert [op.name for op in model.operations] == [
        "input_layer",
        "dense",
        "multiply",
        "mean",
        "negative",
        "concatenate",
    ]


def _series():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((100, 3))
    return x, x[:, 0] * 0.5


def test_timeseries_generator_windows_match_keras():
    x, y = _series()
    gen = TimeseriesGenerator(x, y, length=5, batch_size=16)
    assert len(gen) == 6  # (99 - 5 + 16) // 16, as Keras 3.15
    xb, yb = gen[0]
    assert xb.shape == (16, 5, 3) and yb.shape == (16,)
    np.testing.assert_array_equal(xb[3], x[3:8])
    np.testing.assert_array_equal(yb, y[5:21])
    assert gen[5][0].shape == (15, 5, 3)  # the short last batch: rows 85..99

    gen2 = TimeseriesGenerator(
        x,
        y,
        length=5,
        batch_size=16,
        sampling_rate=2,
        stride=3,
        reverse=True,
        start_index=4,
        end_index=90,
    )
    # Keras 3.15 on the same data: len 2, shapes (16, 3, 3) and (12, 3, 3),
    # gen2[1][0].sum() == -7.711338420048002, gen2[1][1][:3] == [0.0238.., -0.1022.., -0.2371..].
    assert len(gen2) == 2
    assert gen2[0][0].shape == (16, 3, 3) and gen2[1][0].shape == (12, 3, 3)
    assert gen2[1][0].sum() == pytest.approx(-7.711338420048002, abs=1e-12)
    np.testing.assert_allclose(gen2[1][1][:3], [0.02383637, -0.10226124, -0.23716649], atol=1e-8)
    np.testing.assert_array_equal(gen2[0][0][0], x[4:9:2][::-1])  # first end row 4 + 5 = 9


def test_timeseries_generator_shuffle_uses_the_numpy_seed():
    x, y = _series()
    gen = TimeseriesGenerator(x, y, length=5, batch_size=4, shuffle=True)
    np.random.seed(3)
    _, y1 = gen[0]
    np.random.seed(3)
    rows = np.random.randint(5, 100, size=4)
    np.testing.assert_array_equal(y1, y[rows])


def test_timeseries_generator_errors_match_keras():
    x, y = _series()
    with pytest.raises(ValueError, match="Data length is 100 while target length is 5"):
        TimeseriesGenerator(x, y[:5], length=5)
    with pytest.raises(ValueError, match=r"`start_index\+length=101 > end_index=99`"):
        TimeseriesGenerator(x, y, length=5, start_index=96)


def test_timeseries_generator_feeds_fit_and_predict():
    x, y = _series()
    gen = TimeseriesGenerator(x, y, length=5, batch_size=16)
    model = keras.Sequential([keras.Input((5, 3)), keras.layers.Flatten(), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    history = model.fit(gen, epochs=1, shuffle=False, verbose=0, validation_data=gen)
    assert sorted(history.history) == ["loss", "val_loss"]
    assert model.predict(gen, verbose=0).shape == (95, 1)


def test_timeseries_generator_is_on_the_tf_keras_paths():
    assert ek.keras.preprocessing.sequence.TimeseriesGenerator is TimeseriesGenerator
    assert issubclass(TimeseriesGenerator, keras.utils.PyDataset)


def test_timeseries_generator_config_round_trips_as_json():
    gen = TimeseriesGenerator(np.arange(6.0), np.arange(6), length=2, batch_size=3)
    config = json.loads(gen.to_json())
    assert config["class_name"] == "TimeseriesGenerator"
    assert json.loads(config["config"]["data"]) == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert config["config"]["start_index"] == 2 and config["config"]["end_index"] == 5


def test_operators_are_operations_not_layers():
    # Keras 3.15: layers ['input_layer', 'layer_normalization'], operations add 'add';
    # get_layer('add') raises "No such layer: add"; the summary still shows the add.
    keras.backend.clear_session()  # the default names' counters
    inp = keras.Input((4, 1))
    model = keras.Model(inp, keras.layers.LayerNormalization()(inp) + inp)
    assert [la.name for la in model.layers] == ["input_layer", "layer_normalization"]
    assert [op.name for op in model.operations] == ["input_layer", "layer_normalization", "add"]
    with pytest.raises(ValueError, match="No such layer: add"):
        model.get_layer("add")
    lines = []
    model.summary(print_fn=lines.append)
    assert any(line.startswith("add ") for line in "\n".join(lines).splitlines())
