"""RMSNormalization and StackedRNNCells: values against NumPy and TensorFlow 2.21, gradients
against finite differences, Keras's state layout, errors, configs and a .keras round trip."""

import numpy as np
import pytest
from keras_layer_refs import check_layer_gradients, cos_weights, sin_input

import eagerkernel as ek
from eagerkernel.testing import check_gradients

keras = ek.keras
layers = keras.layers


def rand(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


# -- RMSNormalization --------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [-1, 1, [1, 2], (2, 3), [0, 3]])
def test_rms_normalization_against_numpy(axis):
    x = rand(2, 3, 4, 5)
    layer = layers.RMSNormalization(axis=axis, epsilon=1e-3)
    layer.build(x.shape)
    axes = sorted(a % 4 for a in ([axis] if isinstance(axis, int) else axis))
    scale = rand(*(x.shape[a] for a in axes), seed=1)
    layer.set_weights([scale])
    ms = (x.astype(np.float64) ** 2).mean(axis=tuple(axes), keepdims=True)
    bshape = [x.shape[i] if i in axes else 1 for i in range(4)]
    ref = x / np.sqrt(ms + 1e-3) * scale.reshape(bshape)
    np.testing.assert_allclose(layer(x).numpy(), ref, rtol=1e-5, atol=1e-6)
    assert tuple(layer.scale.shape) == tuple(x.shape[a] for a in axes)


def test_rms_normalization_matches_tensorflow():
    # TensorFlow 2.21 (tf.keras) with sin_input / cos_weights from keras_layer_refs.
    layer = layers.RMSNormalization()
    layer.build((2, 5))
    cos_weights(layer)
    tf_out = [
        0.134529,
        0.566005,
        0.808825,
        0.809686,
        0.599012,
        1.572013,
        1.149211,
        0.595265,
        0.088574,
        -0.213965,
    ]
    np.testing.assert_allclose(layer(sin_input((2, 5)) * 3).numpy().ravel(), tf_out, atol=2e-6)
    layer = layers.RMSNormalization(axis=(2, 3), epsilon=0.1)
    layer.build((1, 2, 2, 3))
    cos_weights(layer)
    tf_23 = [
        0.11825,
        0.497515,
        0.710953,
        0.711709,
        0.526528,
        0.24588,
        1.106881,
        0.611826,
        0.099309,
        -0.276122,
        -0.411166,
        -0.289315,
    ]
    np.testing.assert_allclose(layer(sin_input((1, 2, 2, 3))).numpy().ravel(), tf_23, atol=2e-6)


def test_rms_normalization_defaults_dtypes_and_gradients():
    layer = layers.RMSNormalization()
    assert layer.axis == -1 and layer.epsilon == 1e-6
    y = layer(ek.constant([[3.0, 4.0]]))
    np.testing.assert_allclose(y.numpy(), [[3.0, 4.0]] / np.sqrt(12.5 + 1e-6), rtol=1e-6)
    assert [w.name for w in layer.weights] == [f"{layer.name}/scale:0"]
    check_layer_gradients(
        layers.RMSNormalization(axis=[1, 2], epsilon=0.01, dtype="float64"), rand(2, 3, 2, 2)
    )
    # the input's gradient through the normalization, scale fixed at ones
    fixed = layers.RMSNormalization(dtype="float64")
    check_gradients(lambda x: fixed(x) * ek.constant(np.arange(4.0)), rand(3, 4).astype(float))
    # float16 inputs under a float16 policy are computed in float32 and returned as float16
    half = layers.RMSNormalization(dtype="float16")
    out = half(np.array([[3.0, 4.0]], np.float16))
    assert out.dtype == ek.float16
    np.testing.assert_allclose(out.numpy(), [[0.8485, 1.1314]], rtol=2e-3)


def test_rms_normalization_errors_and_config():
    with pytest.raises(ValueError, match=r"Axis 2 is out of bounds for input shape \(2, 3\)"):
        layers.RMSNormalization(axis=2)(ek.ones((2, 3)))
    with pytest.raises(ValueError, match=r"Axis -3 is out of bounds"):
        layers.RMSNormalization(axis=-3).compute_output_shape((2, 3))
    with pytest.raises(TypeError, match="axis"):
        layers.RMSNormalization(axis="last")
    with pytest.raises(ValueError, match=r"epsilon=-1"):
        layers.RMSNormalization(epsilon=-1)
    layer = layers.RMSNormalization()
    layer(ek.ones((2, 3)))
    with pytest.raises(ValueError, match="incompatible with the layer"):
        layer(ek.ones((2, 3, 4)))  # built for axis 1 (the last of a rank-2 input): now 2
    config = layers.RMSNormalization(axis=[1, 2], epsilon=1e-3).get_config()
    assert config["axis"] == [1, 2] and config["epsilon"] == 1e-3
    clone = layers.RMSNormalization.from_config(config)
    assert clone.get_config() == config


# -- StackedRNNCells ---------------------------------------------------------------------------
def np_simple(x, k, r, b, h):
    return np.tanh(x @ k + h @ r + b)


def np_lstm(x, k, r, b, h, c):
    z = x @ k + h @ r + b
    i, f, g, o = np.split(z, 4, axis=-1)
    sig = lambda v: 1 / (1 + np.exp(-v))
    c = sig(f) * c + sig(i) * np.tanh(g)
    return sig(o) * np.tanh(c), c


def test_stacked_cells_against_numpy_loop():
    cells = [layers.SimpleRNNCell(3), layers.LSTMCell(2)]
    rnn = layers.RNN(layers.StackedRNNCells(cells), return_sequences=True)
    x = rand(2, 4, 3)
    y = rnn(x).numpy()
    k1, r1, b1, k2, r2, b2 = (w.numpy().astype(np.float64) for w in rnn.weights)
    h1 = np.zeros((2, 3))
    h2 = c2 = np.zeros((2, 2))
    outs = []
    for t in range(4):
        h1 = np_simple(x[:, t], k1, r1, b1, h1)
        h2, c2 = np_lstm(h1, k2, r2, b2, h2, c2)
        outs.append(h2)
    np.testing.assert_allclose(y, np.stack(outs, 1), rtol=1e-5, atol=1e-6)


def test_stacked_cells_match_tensorflow_and_keras_state_layout():
    # TensorFlow 2.21: keras.layers.RNN(StackedRNNCells([SimpleRNNCell(3), LSTMCell(2),
    # GRUCell(2)]), return_sequences=True, return_state=True) on sin_input((2, 4, 3)) with the
    # weights of cos_weights (see keras_layer_refs).
    stacked = layers.StackedRNNCells(
        [layers.SimpleRNNCell(3), layers.LSTMCell(2), layers.GRUCell(2)]
    )
    assert stacked.state_size == [3, [2, 2], 2] and stacked.output_size == 2
    rnn = layers.RNN(stacked, return_sequences=True, return_state=True)
    rnn.build((2, 4, 3))
    assert [tuple(w.shape) for w in rnn.weights] == [
        (3, 3),
        (3, 3),
        (3,),
        (3, 8),
        (2, 8),
        (8,),
        (2, 6),
        (2, 6),
        (2, 6),
    ]
    cos_weights(rnn)
    seq, s1, s2, s3 = rnn(sin_input((2, 4, 3)))
    tf_seq = [
        0.534059,
        0.755054,
        0.649455,
        0.862887,
        0.714951,
        0.88172,
        0.75106,
        0.870659,
        0.547515,
        0.774105,
        0.6524,
        0.857554,
        0.725856,
        0.896808,
        0.768917,
        0.896222,
    ]
    np.testing.assert_allclose(seq.numpy().ravel(), tf_seq, atol=2e-6)
    assert [len(s) for s in (s1, s2, s3)] == [1, 2, 1]  # one list per cell, as Keras returns
    tf_states = [
        [0.075749, 0.382918, 0.625732, 0.970272, 0.908579, 0.718919],
        [-0.089534, -0.196943, -0.140237, -0.303627],
        [-0.660149, -1.196372, -0.646772, -1.059892],
        [0.75106, 0.870659, 0.768917, 0.896222],
    ]
    for got, want in zip([*s1, *s2, *s3], tf_states):
        np.testing.assert_allclose(got.numpy().ravel(), want, atol=2e-6)
    assert rnn.compute_output_shape((2, 4, 3)) == [(2, 4, 2), [(2, 3)], [(2, 2), (2, 2)], [(2, 2)]]


def test_stacked_cells_call_initial_state_and_list_wrapping():
    stacked = layers.StackedRNNCells([layers.GRUCell(3), layers.LSTMCell(2)])
    x = rand(2, 5)
    states = stacked.get_initial_state(batch_size=2)
    assert [[tuple(s.shape) for s in c] for c in states] == [[(2, 3)], [(2, 2), (2, 2)]]
    out, new = stacked(x, states)
    assert tuple(out.shape) == (2, 2) and [len(c) for c in new] == [1, 2]
    out_flat, _ = stacked(x, [s for c in states for s in c])  # flat states work too
    np.testing.assert_allclose(out_flat.numpy(), out.numpy())
    with pytest.raises(ValueError, match=r"expected 3 states .*Received: 2"):
        stacked(x, states[1])
    # RNN(list of cells) wraps them; initial_state may be nested as Keras returns states
    rnn = layers.RNN([layers.GRUCell(3), layers.LSTMCell(2)], return_state=True)
    seq = rand(2, 4, 5)
    out, *final = rnn(seq)
    assert [[tuple(s.shape) for s in c] for c in final] == [[(2, 3)], [(2, 2), (2, 2)]]
    np.testing.assert_allclose(final[1][0].numpy(), out.numpy())  # the last cell's h
    again, *_ = rnn(seq, initial_state=[[ek.zeros((2, 3))], [ek.zeros((2, 2))] * 2])
    np.testing.assert_allclose(again.numpy(), out.numpy())
    assert isinstance(rnn.cell, layers.StackedRNNCells)
    gru, lstm = rnn.cell.cells
    names = [w.name for w in rnn.weights]  # each cell's weights under its own name
    assert names[0] == f"{rnn.name}/{gru.name}/kernel:0"
    assert names[3] == f"{rnn.name}/{lstm.name}/kernel:0" and len(set(names)) == len(names)


def test_stacked_cells_gradients():
    ek.random.set_seed(3)
    rnn = layers.RNN(  # the wrapper made for the list computes in the RNN's float64
        [layers.SimpleRNNCell(2, dtype="float64"), layers.GRUCell(2, dtype="float64")],
        dtype="float64",
    )
    assert rnn.cell.compute_dtype == "float64"
    check_layer_gradients(rnn, rand(2, 3, 2), rtol=1e-4, atol=1e-6)


def test_stacked_cells_errors():
    with pytest.raises(ValueError, match="non-empty"):
        layers.StackedRNNCells([])
    with pytest.raises(ValueError, match="must have a `call` method and a `state_size`"):
        layers.StackedRNNCells([layers.LSTMCell(2), layers.Dense(2)])


def test_stacked_cells_and_rms_in_a_saved_model(tmp_path):
    ek.random.set_seed(4)
    model = keras.Sequential(
        [
            keras.Input((5, 3)),
            layers.RMSNormalization(),
            layers.RNN(layers.StackedRNNCells([layers.LSTMCell(4), layers.SimpleRNNCell(3)])),
            layers.Dense(1),
        ]
    )
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss="mse")
    x = rand(16, 5, 3)
    y = x.mean(axis=(1, 2))[:, None]
    history = model.fit(x, y, epochs=5, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    model.save(tmp_path / "stacked.keras")
    loaded = keras.models.load_model(tmp_path / "stacked.keras")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-5)
    cell = loaded.layers[1].cell
    assert isinstance(cell, layers.StackedRNNCells)
    assert [type(c).__name__ for c in cell.cells] == ["LSTMCell", "SimpleRNNCell"]
    assert loaded.layers[1].get_config() == model.layers[1].get_config()
