"""ConvLSTM1D/2D/3D against a NumPy loop of Keras's gate equations with the layer's own weights,
their gradients against finite differences, configs, masks, states and training."""

import numpy as np
import pytest
from keras_layer_refs import check_layer_gradients, np_conv, rand, roundtrip

import eagerkernel as ek

layers = ek.keras.layers


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def np_conv_lstm(layer, x, mask=None, go_backwards=False, state=None, zero_output_for_mask=False):
    """Keras's ConvLSTM recurrence in NumPy (float64): returns every step's output (in
    processing order) and the final ``[h, c]``."""
    kernel, rec, *bias = [w.numpy().astype(np.float64) for w in layer.weights]
    nd = x.ndim - 3
    f = kernel.shape[-1] // 4
    steps = x.shape[1]
    proj = [
        np_conv(x[:, t], kernel, layer.strides, layer.padding, layer.dilation_rate)
        + (bias[0] if bias else 0.0)
        for t in range(steps)
    ]
    if state is None:
        h = np.zeros((*proj[0].shape[:-1], f))
        c = np.zeros_like(h)
    else:
        h, c = (np.asarray(s, np.float64) for s in state)
    outs, prev = [], None
    order = range(steps - 1, -1, -1) if go_backwards else range(steps)
    for t in order:
        z = proj[t] + np_conv(h, rec, (1,) * nd, "same")
        zi, zf, zc, zo = np.split(z, 4, axis=-1)
        c_new = sigmoid(zf) * c + sigmoid(zi) * np.tanh(zc)
        h_new = sigmoid(zo) * np.tanh(c_new)
        out = h_new
        if mask is not None:
            m = mask[:, t].reshape((-1,) + (1,) * (nd + 1)).astype(np.float64)
            if prev is None or zero_output_for_mask:
                prev = np.zeros_like(out)
            out = m * out + (1 - m) * prev
            h_new = m * h_new + (1 - m) * h
            c_new = m * c_new + (1 - m) * c
        h, c, prev = h_new, c_new, out
        outs.append(out)
    return np.stack(outs, axis=1), [h, c]


def randomize(layer, seed=1, scale=0.4):
    rng = np.random.default_rng(seed)
    layer.set_weights(
        [rng.normal(scale=scale, size=tuple(w.shape)).astype(np.float32) for w in layer.weights]
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"padding": "same"},
        {"padding": "valid"},
        {"padding": "same", "strides": 2},
        {"padding": "valid", "dilation_rate": 2},
        {"padding": "same", "go_backwards": True},
        {"padding": "valid", "use_bias": False},
    ],
)
def test_conv_lstm2d_matches_numpy_loop(kwargs):
    x = rand(2, 3, 6, 5, 2)
    layer = layers.ConvLSTM2D(3, (3, 2), return_sequences=True, return_state=True, **kwargs)
    layer(x)
    randomize(layer)
    seq, h, c = layer(x)
    ref_seq, (ref_h, ref_c) = np_conv_lstm(layer, x, go_backwards=layer.go_backwards)
    np.testing.assert_allclose(seq.numpy(), ref_seq, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(h.numpy(), ref_h, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(c.numpy(), ref_c, rtol=1e-4, atol=1e-5)
    assert tuple(seq.shape) == layer.compute_output_shape(x.shape)[0]
    last = layers.ConvLSTM2D.from_config(
        {**layer.get_config(), "return_sequences": False, "return_state": False}
    )
    last(x)
    last.set_weights(layer.get_weights())
    np.testing.assert_allclose(last(x).numpy(), ref_seq[:, -1], rtol=1e-4, atol=1e-5)


def test_conv_lstm_weights_defaults_and_names():
    layer = layers.ConvLSTM2D(4, 3)
    y = layer(np.ones((2, 3, 7, 7, 1), np.float32))
    assert tuple(y.shape) == (2, 5, 5, 4)
    assert [tuple(w.shape) for w in layer.weights] == [(3, 3, 1, 16), (3, 3, 4, 16), (16,)]
    assert [w.name.split("/")[-1] for w in layer.weights] == [
        "kernel:0",
        "recurrent_kernel:0",
        "bias:0",
    ]
    # unit_forget_bias: [0]*f, [1]*f, [0]*2f
    np.testing.assert_array_equal(layer.bias.numpy(), [0] * 4 + [1] * 4 + [0] * 8)
    nofb = layers.ConvLSTM2D(2, 1, unit_forget_bias=False)
    nofb(np.ones((1, 2, 3, 3, 1), np.float32))
    np.testing.assert_array_equal(nofb.bias.numpy(), np.zeros(8))
    # the orthogonal recurrent kernel: columns of the flattened (kh*kw*f, 4f) matrix
    flat = layer.recurrent_kernel.numpy().reshape(-1, 16)
    np.testing.assert_allclose(flat.T @ flat, np.eye(16), atol=1e-5)
    assert layer.recurrent_activation is ek.keras.activations.sigmoid


@pytest.mark.parametrize(
    "cls,shape,kernel",
    [(layers.ConvLSTM1D, (2, 3, 7, 2), 3), (layers.ConvLSTM3D, (1, 2, 4, 3, 4, 1), 2)],
)
def test_conv_lstm_1d_3d_match_numpy_loop(cls, shape, kernel):
    x = rand(*shape, seed=3)
    layer = cls(2, kernel, padding="same", return_sequences=True)
    layer(x)
    randomize(layer, seed=4)
    ref, _ = np_conv_lstm(layer, x)
    np.testing.assert_allclose(layer(x).numpy(), ref, rtol=1e-4, atol=1e-5)
    assert layer.kernel.shape == (*(kernel,) * (len(shape) - 3), shape[-1], 8)


def test_mask_initial_state_and_zero_output_for_mask():
    x = rand(3, 4, 5, 5, 2, seed=5)
    mask = np.array([[1, 1, 1, 1], [1, 1, 0, 0], [0, 1, 0, 1]], bool)
    layer = layers.ConvLSTM2D(2, 3, padding="same", return_sequences=True, return_state=True)
    layer(x)
    randomize(layer, seed=6)
    state = [rand(3, 5, 5, 2, seed=7) * 0.5, rand(3, 5, 5, 2, seed=8) * 0.5]
    seq, h, c = layer(x, mask=ek.constant(mask), initial_state=state)
    ref, (rh, rc) = np_conv_lstm(layer, x, mask=mask, state=state)
    np.testing.assert_allclose(seq.numpy(), ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(h.numpy(), rh, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(c.numpy(), rc, rtol=1e-4, atol=1e-5)
    zero = layers.ConvLSTM2D.from_config({**layer.get_config(), "zero_output_for_mask": True})
    zero(x)
    zero.set_weights(layer.get_weights())
    ref0, _ = np_conv_lstm(zero, x, mask=mask, zero_output_for_mask=True)
    np.testing.assert_allclose(zero(x, mask=mask)[0].numpy(), ref0, rtol=1e-4, atol=1e-5)
    assert np.all(ref0[2, 0] == 0)
    with pytest.raises(ValueError, match="initial_state"):
        layer(x, initial_state=[state[0]])
    with pytest.raises(ValueError, match="mask"):
        layer(x, mask=np.ones((3, 3), bool))


def test_mask_from_masking_layer_in_a_model():
    x = rand(2, 3, 4, 4, 1, seed=9)
    x[1, 2] = 0.0
    model = ek.keras.Sequential(
        [layers.Masking(0.0, input_shape=(3, 4, 4, 1)), layers.ConvLSTM2D(2, 3, padding="same")]
    )
    out = model(x).numpy()
    conv = model.layers[-1]
    ref, _ = np_conv_lstm(conv, x, mask=np.array([[1, 1, 1], [1, 1, 0]], bool))
    np.testing.assert_allclose(out, ref[:, -1], rtol=1e-4, atol=1e-5)


def test_gradients_match_finite_differences_float64():
    layer = layers.ConvLSTM2D(2, 2, padding="same", return_sequences=True, dtype="float64")
    x = np.random.default_rng(0).normal(size=(1, 2, 3, 3, 1))
    layer(x)
    randomize(layer, seed=2, scale=0.5)
    check_layer_gradients(layer, x, rtol=1e-5, atol=1e-7)


def test_config_roundtrip_and_saving(tmp_path):
    layer = layers.ConvLSTM2D(
        3,
        (2, 3),
        strides=(1, 2),
        padding="same",
        activation="relu",
        recurrent_activation="hard_sigmoid",
        return_sequences=True,
        go_backwards=True,
        dropout=0.1,
        recurrent_dropout=0.2,
        seed=3,
        name="clstm",
    )
    clone = roundtrip(layer)
    config = clone.get_config()
    assert config["kernel_size"] == (2, 3) and config["strides"] == (1, 2)
    assert config["go_backwards"] and config["dropout"] == 0.1 and config["seed"] == 3
    assert config["recurrent_activation"] == "hard_sigmoid"
    restored = ek.keras.layers.deserialize(ek.keras.layers.serialize(layer))
    assert type(restored) is layers.ConvLSTM2D and restored.filters == 3
    inp = ek.keras.Input((3, 6, 6, 1))
    out = layers.Flatten()(layers.ConvLSTM2D(2, 3, padding="same")(inp))
    model = ek.keras.Model(inp, layers.Dense(1)(out))
    x = rand(2, 3, 6, 6, 1)
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = ek.keras.models.load_model(path)
    np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy(), rtol=1e-6)


def test_dropout_in_training_only_and_seeded():
    x = rand(2, 3, 5, 5, 2, seed=11)
    layer = layers.ConvLSTM2D(2, 3, padding="same", dropout=0.5, recurrent_dropout=0.5, seed=1)
    a = layer(x).numpy()
    np.testing.assert_array_equal(layer(x, training=False).numpy(), a)
    b = layer(x, training=True).numpy()
    c = layer(x, training=True).numpy()
    assert not np.allclose(a, b) and not np.allclose(b, c)  # fresh masks each call
    again = layers.ConvLSTM2D.from_config(layer.get_config())
    again(x)
    again(x)  # every call draws masks (Keras's RNN.call): b was the third call's
    again.set_weights(layer.get_weights())
    np.testing.assert_allclose(again(x, training=True).numpy(), b, rtol=1e-6)


def test_stateful_carries_states_between_calls():
    x = rand(2, 4, 4, 4, 1, seed=12)
    full = layers.ConvLSTM2D(2, 3, padding="same", return_sequences=True)
    full(x)
    part = layers.ConvLSTM2D(2, 3, padding="same", return_sequences=True, stateful=True)
    part(x[:, :2])
    part.set_weights(full.get_weights())
    part.reset_states()
    first = part(x[:, :2]).numpy()
    second = part(x[:, 2:]).numpy()
    np.testing.assert_allclose(
        np.concatenate([first, second], axis=1), full(x).numpy(), rtol=1e-5, atol=1e-6
    )
    part.reset_states()
    np.testing.assert_allclose(part(x[:, :2]).numpy(), first, rtol=1e-6)
    with pytest.raises(ValueError, match="stateful"):
        part(x[:1, :2])


def test_bad_inputs_and_arguments():
    with pytest.raises(ValueError, match=r'"conv_lstm_2d".*expected ndim=5.*\(2, 8, 8, 1\)'):
        layers.ConvLSTM2D(2, 3, name="conv_lstm_2d")(np.ones((2, 8, 8, 1), np.float32))
    with pytest.raises(ValueError, match="ndim=4"):
        layers.ConvLSTM1D(2, 3)(np.ones((2, 8, 8, 1, 1), np.float32))
    with pytest.raises(ValueError, match="filters"):
        layers.ConvLSTM2D(0, 3)
    with pytest.raises(ValueError, match="dilation_rate"):
        layers.ConvLSTM2D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="channels_first"):
        layers.ConvLSTM2D(2, 3, data_format="channels_first")
    with pytest.raises(ValueError, match="padding"):
        layers.ConvLSTM2D(2, 3, padding="causal")
    # Keras 3 clips the rates to [0, 1]; a rate that is not a number is refused.
    assert layers.ConvLSTM2D(2, 3, dropout=1.5, recurrent_dropout=-1).get_config()["dropout"] == 1.0
    assert layers.ConvLSTM2D(2, 3, recurrent_dropout=-1).recurrent_dropout == 0.0
    with pytest.raises(
        ValueError, match=r"dropout must be a float in \[0, 1\]. Received: dropout='a'"
    ):
        layers.ConvLSTM2D(2, 3, dropout="a")


def test_fit_reduces_loss():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 3, 5, 5, 1)).astype(np.float32)
    y = x.mean(axis=(1, 2, 3, 4))[:, None].astype(np.float32)
    ek.random.set_seed(0)
    model = ek.keras.Sequential(
        [
            ek.keras.Input((3, 5, 5, 1)),
            layers.ConvLSTM2D(3, 3, padding="same"),
            layers.GlobalAveragePooling2D(),
            layers.Dense(1),
        ]
    )
    model.compile(optimizer=ek.keras.optimizers.Adam(0.02), loss="mse")
    history = model.fit(x, y, epochs=8, batch_size=8, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < 0.7 * losses[0]


def test_bidirectional_conv_lstm2d_runs_both_directions_and_merges():
    ek.random.set_seed(3)
    x = ek.constant(np.random.default_rng(3).random((2, 4, 5, 5, 1)).astype(np.float32))
    forward = ek.keras.layers.ConvLSTM2D(3, 3, padding="same", return_sequences=True)
    bi = ek.keras.layers.Bidirectional(forward, merge_mode="concat")
    y = bi(x)
    assert y.shape == (2, 4, 5, 5, 6)
    # Each half is its own layer run on the input (the backward one reversed back in time).
    f = bi.forward_layer(x).numpy()
    b = bi.backward_layer(x).numpy()[:, ::-1]
    np.testing.assert_allclose(y.numpy(), np.concatenate([f, b], axis=-1), rtol=1e-6)
    assert bi.backward_layer.go_backwards and not bi.forward_layer.go_backwards
    states = ek.keras.layers.Bidirectional(
        ek.keras.layers.ConvLSTM2D(2, 3, padding="same", return_state=True), merge_mode="sum"
    )(x)
    assert len(states) == 5 and states[0].shape == (2, 5, 5, 2)


def test_bidirectional_refuses_a_layer_without_the_sequence_interface():
    with pytest.raises(ValueError, match="go_backwards"):
        ek.keras.layers.Bidirectional(ek.keras.layers.Dense(3))


def test_a_graph_function_uses_each_calls_mask():
    # A per-pixel mask (Masking's, (batch, timesteps, width)) was reduced to steps on the host:
    # a traced function kept the steps of its first call.
    layer = layers.ConvLSTM1D(2, 3, padding="same", return_sequences=True)
    x = np.random.default_rng(0).standard_normal((2, 4, 5, 1)).astype(np.float32)
    layer(x)  # built outside: the function creates no variables
    run = ek.function(lambda x, m: layer(x, mask=m))
    for steps in ([[1, 1, 0, 0], [1, 1, 1, 1]], [[1, 0, 0, 0], [1, 1, 1, 0]]):
        mask = ek.constant(np.repeat(np.array(steps, bool)[:, :, None], 5, axis=2))
        np.testing.assert_allclose(
            run(ek.constant(x), mask).numpy(), layer(x, mask=mask).numpy(), rtol=1e-5, atol=1e-6
        )
    assert run.experimental_get_tracing_count() == 1
