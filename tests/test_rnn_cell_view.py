"""``layer.cell`` of SimpleRNN/LSTM/GRU and Keras 3's weight paths through the cell."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

keras = ek.keras


def test_weight_paths_name_the_cell_as_keras_3():
    layers = [
        keras.Input((3, 4)),
        keras.layers.LSTM(5, name="lstm"),
        keras.layers.Dense(2, name="dense"),
    ]
    model = keras.Sequential(layers, name="sequential")
    # Keras 3.15 gives exactly these paths (unique names aside); the names stay tf.keras's.
    assert [v.path for v in model.weights] == [
        "sequential/lstm/lstm_cell/kernel",
        "sequential/lstm/lstm_cell/recurrent_kernel",
        "sequential/lstm/lstm_cell/bias",
        "sequential/dense/kernel",
        "sequential/dense/bias",
    ]
    assert model.weights[0].name == "lstm/kernel:0"


@pytest.mark.parametrize("form", ["SimpleRNN", "LSTM", "GRU"])
def test_the_cell_shares_the_layers_weights_and_runs_its_step(form):
    layer = getattr(keras.layers, form)(3, return_state=True)
    assert not layer.cell.built and layer.cell.units == 3
    x = np.random.default_rng(0).random((2, 1, 4), dtype=np.float32)
    output, *states = layer(x)
    cell = layer.cell
    assert type(cell).__name__ == f"{form}Cell" and cell.built
    assert cell.kernel is layer.kernel and len(cell.weights) == 3
    zeros = [np.zeros((2, 3), np.float32)] * len(states)
    step, _ = cell(x[:, 0], zeros if len(zeros) > 1 else zeros[0])
    np.testing.assert_allclose(step.numpy(), output.numpy(), rtol=1e-6)
    layer.kernel.assign(layer.kernel * 0.0)  # one set of Variables
    assert float(np.abs(cell.kernel.numpy()).max()) == 0.0
