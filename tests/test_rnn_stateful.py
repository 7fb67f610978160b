"""``stateful=True`` recurrent layers (follows Keras 3's `RNN`): consecutive calls continue
one sequence; `reset_state` starts over; the carried states are not weights."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

layers = ek.keras.layers


def _x():
    return np.random.default_rng(0).normal(size=(2, 6, 3)).astype(np.float32)


@pytest.mark.parametrize("cls", [layers.SimpleRNN, layers.LSTM, layers.GRU])
def test_two_halves_continue_one_sequence(cls):
    x = _x()
    stateful = cls(4, stateful=True, return_sequences=True)
    whole = cls(4, return_sequences=True)
    stateful.build(x[:, :3].shape)
    whole.build(x.shape)
    whole.set_weights(stateful.get_weights())
    assert len(stateful.weights) == len(whole.weights)  # the states are not weights
    halves = np.concatenate([stateful(x[:, :3]).numpy(), stateful(x[:, 3:]).numpy()], axis=1)
    reference = whole(x).numpy()
    np.testing.assert_allclose(halves, reference, atol=1e-6)
    stateful.reset_state()
    np.testing.assert_allclose(stateful(x[:, :3]).numpy(), reference[:, :3], atol=1e-6)
    stateful.reset_states()
    assert stateful.get_config()["stateful"] is True


def test_states_carry_across_graph_function_calls_and_cells():
    x = _x()
    layer = layers.RNN(layers.LSTMCell(4), stateful=True)
    layer.build(x[:, :3].shape)
    step = ek.function(lambda v: layer(v))
    step(x[:, :3])
    second = step(x[:, 3:]).numpy()
    whole = layers.RNN(layers.LSTMCell(4))
    whole.build(x.shape)
    whole.set_weights(layer.get_weights())
    np.testing.assert_allclose(second, whole(x).numpy(), atol=1e-6)


def test_a_stateful_model_trains_and_errors():
    x = _x()
    model = ek.keras.Sequential(
        [ek.keras.Input(batch_shape=(2, 3, 3)), layers.GRU(4, stateful=True), layers.Dense(1)]
    )
    model.compile("adam", "mse")
    history = model.fit(x[:, :3], np.ones((2, 1)), epochs=3, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    with pytest.raises(ValueError, match="the batch size must be static"):
        layers.LSTM(2, stateful=True)(ek.keras.Input((3, 4)))
    layer = layers.LSTM(2, stateful=True)
    layer(x)
    with pytest.raises(ValueError, match=r"Expected batch size: 2\. Received: 3"):
        layer(np.ones((3, 3, 3), np.float32))
