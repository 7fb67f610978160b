"""Dropout in SimpleRNN, LSTM, GRU and their cells (Keras 3's ``DropoutRNNCell``): the
masks are drawn once per sequence, the layer computes exactly the recurrence with the inputs
and previous outputs multiplied by them, only when training."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

layers = ek.keras.layers


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


class _Recorded:
    """Captures the masks the layer draws (`keras.random.dropout` on a ones tensor)."""

    def __init__(self, monkeypatch):
        from eagerkernel.runtime.keras.layers import rnn_dropout

        self.masks = []
        real = rnn_dropout.keras_random.dropout

        def spy(x, rate, noise_shape=None, seed=None):
            out = real(x, rate, noise_shape, seed)
            self.masks.append(out.numpy())
            return out

        monkeypatch.setattr(rnn_dropout.keras_random, "dropout", spy)


def _x(seed=0):
    return np.random.default_rng(seed).standard_normal((3, 4, 5)).astype(np.float32)


def test_inference_ignores_dropout_and_training_changes_the_output():
    x = _x()
    for cls in (layers.SimpleRNN, layers.LSTM, layers.GRU):
        layer = cls(6, dropout=0.5, recurrent_dropout=0.5, seed=1)
        plain = cls(6)
        plain.build(x.shape)
        layer.build(x.shape)
        plain.set_weights(layer.get_weights())
        np.testing.assert_allclose(layer(x).numpy(), plain(x).numpy(), rtol=1e-6)
        assert not np.allclose(layer(x, training=True).numpy(), plain(x).numpy())


def test_lstm_with_input_dropout_shares_one_mask_across_gates_and_steps(monkeypatch):
    rec = _Recorded(monkeypatch)
    x = _x()
    layer = layers.LSTM(6, dropout=0.4, return_sequences=True, seed=3)
    out = layer(x, training=True).numpy()
    assert len(rec.masks) == 1  # recurrent_dropout 0: one shared input mask (implementation 2)
    m = rec.masks[0]
    assert m.shape == (3, 5) and set(np.unique(m)) <= {0.0, np.float32(1 / 0.6)}
    k, rk, b = (w.numpy() for w in (layer.kernel, layer.recurrent_kernel, layer.bias))
    h = c = np.zeros((3, 6), np.float32)
    for t in range(4):
        z = (x[:, t] * m) @ k + h @ rk + b
        i, f, g, o = np.split(z, 4, axis=1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        np.testing.assert_allclose(out[:, t], h, rtol=1e-5, atol=1e-6)


def test_gru_with_recurrent_dropout_masks_each_gate(monkeypatch):
    rec = _Recorded(monkeypatch)
    x = _x(1)
    for reset_after in (True, False):
        rec.masks.clear()
        layer = layers.GRU(6, dropout=0.3, recurrent_dropout=0.5, reset_after=reset_after, seed=2)
        out = layer(x, training=True).numpy()
        assert [m.shape for m in rec.masks] == [(3, 5)] * 3 + [(3, 6)] * 3  # per gate
        m, r = rec.masks[:3], rec.masks[3:]
        k, rk = layer.kernel.numpy(), layer.recurrent_kernel.numpy()
        b = layer.bias.numpy()
        u = 6
        h = np.zeros((3, u), np.float32)
        for t in range(4):
            xz, xr, xh = ((x[:, t] * m[g]) @ k[:, g * u : (g + 1) * u] for g in range(3))
            if reset_after:
                xz, xr, xh = xz + b[0, :u], xr + b[0, u : 2 * u], xh + b[0, 2 * u :]
                rz, rr, rh = (
                    (h * r[g]) @ rk[:, g * u : (g + 1) * u] + b[1, g * u : (g + 1) * u]
                    for g in range(3)
                )
                z, rg = sigmoid(xz + rz), sigmoid(xr + rr)
                hh = np.tanh(xh + rg * rh)
            else:
                xz, xr, xh = xz + b[:u], xr + b[u : 2 * u], xh + b[2 * u :]
                z = sigmoid(xz + (h * r[0]) @ rk[:, :u])
                rg = sigmoid(xr + (h * r[1]) @ rk[:, u : 2 * u])
                hh = np.tanh(xh + (rg * (h * r[2])) @ rk[:, 2 * u :])
            h = z * h + (1 - z) * hh  # the undropped previous output
        np.testing.assert_allclose(out, h, rtol=1e-5, atol=1e-6)


def test_simple_rnn_and_cells_in_rnn(monkeypatch):
    rec = _Recorded(monkeypatch)
    x = _x(2)
    layer = layers.RNN(layers.SimpleRNNCell(6, dropout=0.25, recurrent_dropout=0.25, seed=4))
    out = layer(x, training=True).numpy()
    assert [m.shape for m in rec.masks] == [(3, 5), (3, 6)]  # once for the whole sequence
    m, r = rec.masks
    cell = layer.cell
    k, rk, b = cell.kernel.numpy(), cell.recurrent_kernel.numpy(), cell.bias.numpy()
    h = np.zeros((3, 6), np.float32)
    for t in range(4):
        h = np.tanh((x[:, t] * m) @ k + b + (h * r) @ rk)
    np.testing.assert_allclose(out, h, rtol=1e-5, atol=1e-6)


def test_masks_are_fresh_per_call_and_inside_a_graph_function():
    x = ek.constant(_x(3))
    layer = layers.LSTM(6, dropout=0.5, recurrent_dropout=0.5)
    step = ek.function(lambda v: layer(v, training=True))
    a, b = step(x).numpy(), step(x).numpy()
    assert not np.allclose(a, b)
    seeded = [layers.GRU(6, dropout=0.5, seed=7) for _ in range(2)]
    seeded[0].build(x.shape)
    seeded[1].build(x.shape)
    seeded[1].set_weights(seeded[0].get_weights())
    np.testing.assert_array_equal(
        seeded[0](x, training=True).numpy(), seeded[1](x, training=True).numpy()
    )


def test_gradients_flow_through_the_masked_recurrence():
    x = ek.constant(_x(4))
    layer = layers.LSTM(4, dropout=0.5, recurrent_dropout=0.5, seed=5)
    ek.random.set_seed(11)
    try:
        with ek.GradientTape() as tape:
            loss = ek.reduce_sum(layer(x, training=True) ** 2)
        grads = tape.gradient(loss, layer.trainable_variables)
    finally:
        ek.random.set_seed(None)
    assert all(g is not None and np.isfinite(g.numpy()).all() for g in grads)
    assert float(ek.reduce_sum(ek.abs(grads[0]))) > 0


def test_config_round_trip_and_errors():
    layer = layers.GRU(3, dropout=0.2, recurrent_dropout=0.1, seed=9)
    config = layer.get_config()
    assert (config["dropout"], config["recurrent_dropout"], config["seed"]) == (0.2, 0.1, 9)
    clone = layers.GRU.from_config(config)
    assert (clone.dropout, clone.recurrent_dropout, clone.seed) == (0.2, 0.1, 9)
    assert layers.LSTM(3, dropout=1.5).dropout == 1.0  # clipped, as Keras
    with pytest.raises(ValueError, match="seed must be an integer"):
        layers.SimpleRNN(3, seed="x")
