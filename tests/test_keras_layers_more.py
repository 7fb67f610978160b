"""Softmax, Rescaling, Normalization, merging layers, SimpleRNN/LSTM/GRU, keras.utils and the
function forms of the losses, against closed forms, NumPy loops and PyTorch."""

import numpy as np
import pytest

import eagerkernel as ek

keras = ek.keras
layers = keras.layers


def rand(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# -- Softmax, Rescaling ------------------------------------------------------------------------
def test_softmax_axis_mask_and_tuple_axis():
    x = rand(2, 3, 4)
    np.testing.assert_allclose(layers.Softmax()(x).numpy(), np_softmax(x), rtol=1e-6)
    np.testing.assert_allclose(layers.Softmax(axis=1)(x).numpy(), np_softmax(x, 1), rtol=1e-6)
    flat = np_softmax(x.reshape(2, 12)).reshape(2, 3, 4)
    np.testing.assert_allclose(layers.Softmax(axis=(1, 2))(x).numpy(), flat, rtol=1e-5)
    mask = np.array([[True, True, False, False]])
    out = layers.Softmax()(x[0], mask=mask).numpy()
    np.testing.assert_allclose(out[:, :2], np_softmax(x[0][:, :2]), rtol=1e-6)
    np.testing.assert_array_equal(out[:, 2:], 0.0)


def test_rescaling():
    x = np.array([[0, 128, 255]], np.uint8)
    out = layers.Rescaling(1.0 / 127.5, offset=-1)(x)
    assert out.dtype == ek.float32
    np.testing.assert_allclose(out.numpy(), x / 127.5 - 1, rtol=1e-6, atol=1e-6)


# -- Normalization ---------------------------------------------------------------------------------
def test_normalization_keras_documented_examples():
    adapt_data = np.array([[0.0, 7.0, 4.0], [2.0, 9.0, 6.0], [0.0, 7.0, 4.0], [2.0, 9.0, 6.0]])
    layer = layers.Normalization(axis=-1)
    layer.adapt(adapt_data)
    np.testing.assert_allclose(
        layer(np.array([[0.0, 7.0, 4.0]], np.float32)).numpy(), [[-1, -1, -1]]
    )
    # Keras's `mean` and `variance` broadcast against the inputs; the weights hold the kept axes
    np.testing.assert_array_equal(layer.mean.numpy(), [[1, 8, 5]])
    np.testing.assert_array_equal(layer.variance.numpy(), [[1, 1, 1]])
    np.testing.assert_array_equal(layer.adapt_mean.numpy(), [1, 8, 5])
    # Keras 3.15 leaves `count` at 0 after adapt (kept only for old saved models)
    assert layer.is_adapted and int(layer.count.numpy()) == 0
    assert layers.Normalization().mean is None  # before it is built
    scalar = layers.Normalization(axis=None)
    scalar.adapt(np.array([[1.0, 2.0], [3.0, 5.0]], np.float32))
    assert scalar.mean.shape == (1, 1) and float(scalar.mean[0, 0]) == 2.75  # TensorFlow 2.21
    fixed = layers.Normalization(mean=3.0, variance=2.0)
    np.testing.assert_allclose(
        fixed(np.array([[0.0, 7.0, 4.0]], np.float32)).numpy(),
        [[-2.1213205, 2.828427, 0.70710677]],
        rtol=1e-6,
    )
    np.testing.assert_array_equal(fixed.mean.numpy(), [[3.0, 3.0, 3.0]])
    inverse = layers.Normalization(axis=-1, invert=True)
    inverse.adapt(adapt_data)
    np.testing.assert_allclose(
        inverse(np.array([[-1.0, -1.0, -1.0]], np.float32)).numpy(), [[0, 7, 4]]
    )


def test_normalization_axis_semantics_against_numpy():
    data = rand(10, 4, 3) * 3 + 1
    for axis, keep in ((-1, (2,)), (1, (1,)), ((1, 2), (1, 2)), (None, ())):
        layer = layers.Normalization(axis=axis)
        layer.adapt(data)
        reduce = tuple(d for d in range(3) if d not in keep)
        mean = data.mean(axis=reduce, keepdims=True)
        std = data.std(axis=reduce, keepdims=True)
        np.testing.assert_allclose(layer(data).numpy(), (data - mean) / std, rtol=1e-4, atol=1e-5)


def test_normalization_adapt_on_a_dataset_and_errors():
    data = rand(20, 3)
    layer = layers.Normalization()
    layer.adapt(ek.data.Dataset.from_tensor_slices(data).batch(6))
    np.testing.assert_allclose(layer.mean.numpy(), data.mean(0, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(layer.variance.numpy(), data.var(0, keepdims=True), rtol=1e-5)
    with pytest.raises(ValueError, match="both `mean` and `variance`"):
        layers.Normalization(mean=1.0)
    with pytest.raises(ValueError, match="cannot be used when mean and variance"):
        layers.Normalization(mean=1.0, variance=1.0).adapt(data)
    with pytest.raises(ValueError, match="does not match the kept axes"):
        layer.adapt(rand(5, 4))
    with pytest.raises(ValueError, match="must have a known shape"):
        layers.Normalization(axis=1)(keras.Input(shape=(None, 3)))


def test_normalization_in_a_functional_model():
    data = rand(50, 3) * 4 + 2
    norm = layers.Normalization()
    norm.adapt(data)
    inputs = keras.Input(shape=(3,))
    model = keras.Model(inputs, norm(inputs))
    out = model(data).numpy()
    np.testing.assert_allclose(out.mean(0), 0, atol=1e-5)
    np.testing.assert_allclose(out.std(0), 1, rtol=1e-4)
    assert model.trainable_variables == []


# -- merging ---------------------------------------------------------------------------------------
def test_merging_layers_numerics():
    a, b, c = rand(2, 3), rand(2, 3, seed=1), rand(2, 3, seed=2)
    cases = [
        (layers.Add(), a + b + c),
        (layers.Multiply(), a * b * c),
        (layers.Average(), (a + b + c) / 3),
        (layers.Maximum(), np.maximum(np.maximum(a, b), c)),
        (layers.Minimum(), np.minimum(np.minimum(a, b), c)),
    ]
    for layer, expected in cases:
        np.testing.assert_allclose(layer([a, b, c]).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(layers.Subtract()([a, b]).numpy(), a - b)
    np.testing.assert_allclose(layers.add([a, b]).numpy(), a + b)
    np.testing.assert_array_equal(
        layers.Concatenate(axis=0)([a, b]).numpy(), np.concatenate([a, b], axis=0)
    )
    np.testing.assert_array_equal(layers.concatenate([a, c]).numpy(), np.concatenate([a, c], 1))
    x = keras.Input(shape=(None, 3))
    y = keras.Input(shape=(5, 2))
    assert layers.Concatenate()([x, y]).shape == (None, 5, 5)
    assert layers.Add()([keras.Input(shape=(1, 3)), keras.Input(shape=(4, 1))]).shape == (
        None,
        4,
        3,
    )


def test_merging_layers_errors():
    a = rand(2, 3)
    # Keras 3 merges a list of one tensor (Keras 2 asked for two); an empty list raises.
    np.testing.assert_array_equal(layers.Add()([a]).numpy(), a)
    np.testing.assert_array_equal(layers.Concatenate()([a]).numpy(), a)
    with pytest.raises(ValueError, match="at least 1 input"):
        layers.Add()([])
    with pytest.raises(ValueError, match="at least 1 input"):
        layers.Concatenate()([])
    with pytest.raises(ValueError, match="exactly 2 inputs"):
        layers.Subtract()([a, a, a])
    with pytest.raises(ValueError, match="matching shapes except for the concatenation axis"):
        layers.Concatenate()([rand(2, 3), rand(3, 3)])
    with pytest.raises(ValueError, match="incompatible shapes"):
        layers.Add()([keras.Input(shape=(3,)), keras.Input(shape=(4,))])


# -- recurrent layers ----------------------------------------------------------------------------
def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def np_lstm(x, kernel, recurrent, bias, backwards=False):
    batch, steps, _ = x.shape
    units = recurrent.shape[0]
    h = np.zeros((batch, units))
    c = np.zeros((batch, units))
    outs = []
    for t in reversed(range(steps)) if backwards else range(steps):
        z = x[:, t] @ kernel + h @ recurrent + bias
        i, f, g, o = (z[:, k * units : (k + 1) * units] for k in range(4))
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        outs.append(h)
    return np.stack(outs, 1), h, c


def np_gru(x, kernel, recurrent, bias, reset_after=True):
    batch, steps, _ = x.shape
    u = recurrent.shape[0]
    h = np.zeros((batch, u))
    outs = []
    for t in range(steps):
        if reset_after:
            xz = x[:, t] @ kernel + bias[0]
            hz = h @ recurrent + bias[1]
            z = sigmoid(xz[:, :u] + hz[:, :u])
            r = sigmoid(xz[:, u : 2 * u] + hz[:, u : 2 * u])
            hh = np.tanh(xz[:, 2 * u :] + r * hz[:, 2 * u :])
        else:
            xz = x[:, t] @ kernel + bias
            z = sigmoid(xz[:, :u] + h @ recurrent[:, :u])
            r = sigmoid(xz[:, u : 2 * u] + h @ recurrent[:, u : 2 * u])
            hh = np.tanh(xz[:, 2 * u :] + (r * h) @ recurrent[:, 2 * u :])
        h = z * h + (1 - z) * hh
        outs.append(h)
    return np.stack(outs, 1), h


def test_simple_rnn_against_a_numpy_loop():
    x = rand(2, 5, 3)
    layer = layers.SimpleRNN(4, return_sequences=True, return_state=True)
    seq, state = layer(x)
    k, r, b = layer.kernel.numpy(), layer.recurrent_kernel.numpy(), layer.bias.numpy()
    h = np.zeros((2, 4))
    outs = []
    for t in range(5):
        h = np.tanh(x[:, t] @ k + h @ r + b)
        outs.append(h)
    np.testing.assert_allclose(seq.numpy(), np.stack(outs, 1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state.numpy(), h, rtol=1e-5, atol=1e-6)
    assert [v.name for v in layer.weights] == [
        f"{layer.name}/kernel:0",
        f"{layer.name}/recurrent_kernel:0",
        f"{layer.name}/bias:0",
    ]


def test_lstm_against_a_numpy_loop_with_keras_defaults():
    x = rand(3, 6, 5)
    layer = layers.LSTM(4, return_sequences=True, return_state=True)
    seq, h, c = layer(x)
    bias = layer.bias.numpy()
    np.testing.assert_array_equal(
        bias, np.r_[np.zeros(4), np.ones(4), np.zeros(8)]
    )  # unit_forget_bias
    layer.bias.assign(rand(16, seed=3))
    seq, h, c = layer(x)
    args = (layer.kernel.numpy(), layer.recurrent_kernel.numpy(), layer.bias.numpy())
    e_seq, e_h, e_c = np_lstm(x, *args)
    np.testing.assert_allclose(seq.numpy(), e_seq, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.numpy(), e_h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.numpy(), e_c, rtol=1e-5, atol=1e-6)
    back = layers.LSTM(4, return_sequences=True, go_backwards=True)
    back(x)
    back.set_weights(layer.get_weights())
    np.testing.assert_allclose(
        back(x).numpy(), np_lstm(x, *args, backwards=True)[0], rtol=1e-5, atol=1e-6
    )
    assert layers.LSTM(4)(x).shape == (3, 4)


def test_gru_against_a_numpy_loop_both_reset_forms():
    x = rand(2, 4, 3)
    for reset_after in (True, False):
        layer = layers.GRU(5, return_sequences=True, reset_after=reset_after)
        layer(x)
        assert layer.bias.shape == ((2, 15) if reset_after else (15,))
        layer.bias.assign(rand(*layer.bias.shape, seed=4))
        expected, _ = np_gru(
            x, layer.kernel.numpy(), layer.recurrent_kernel.numpy(), layer.bias.numpy(), reset_after
        )
        np.testing.assert_allclose(layer(x).numpy(), expected, rtol=1e-5, atol=1e-6)


def test_rnn_initial_state_shapes_and_unsupported_arguments():
    x = rand(2, 3, 4)
    h0, c0 = rand(2, 5, seed=1), rand(2, 5, seed=2)
    layer = layers.LSTM(5)
    out = layer(x, initial_state=[h0, c0]).numpy()
    args = (layer.kernel.numpy(), layer.recurrent_kernel.numpy(), layer.bias.numpy())
    # Initial state by hand: one step from (h0, c0) equals the loop started there.
    h, c = h0, c0
    for t in range(3):
        z = x[:, t] @ args[0] + h @ args[1] + args[2]
        i, f, g, o = np.split(z, 4, axis=1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
    np.testing.assert_allclose(out, h, rtol=1e-5, atol=1e-6)
    inp = keras.Input(shape=(None, 4))
    outs = layers.LSTM(5, return_sequences=True, return_state=True)(inp)
    assert [tuple(t.shape) for t in outs] == [(None, None, 5), (None, 5), (None, 5)]
    with pytest.raises(ValueError, match=r"dropout must be a float in \[0, 1\]"):
        layers.LSTM(3, dropout="a lot")
    with pytest.raises(ValueError, match="expected ndim=3"):
        layers.SimpleRNN(3)(rand(2, 3))


def test_lstm_gradients_match_torch():
    torch = pytest.importorskip("torch")
    x = rand(3, 6, 5)
    layer = layers.LSTM(4, return_sequences=True)
    layer(x)
    layer.bias.assign(rand(16, seed=5))
    t = torch.nn.LSTM(5, 4, batch_first=True)
    with torch.no_grad():
        t.weight_ih_l0.copy_(torch.tensor(layer.kernel.numpy().T))
        t.weight_hh_l0.copy_(torch.tensor(layer.recurrent_kernel.numpy().T))
        t.bias_ih_l0.copy_(torch.tensor(layer.bias.numpy()))
        t.bias_hh_l0.zero_()
    tx = torch.tensor(x)
    t_out, _ = t(tx)
    (t_out**2).sum().backward()
    with ek.GradientTape() as tape:
        out = layer(x)
        loss = ek.reduce_sum(out * out)
    gk, gr, gb = tape.gradient(loss, [layer.kernel, layer.recurrent_kernel, layer.bias])
    np.testing.assert_allclose(out.numpy(), t_out.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gk.numpy(), t.weight_ih_l0.grad.numpy().T, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gr.numpy(), t.weight_hh_l0.grad.numpy().T, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gb.numpy(), t.bias_ih_l0.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_gru_matches_torch():
    torch = pytest.importorskip("torch")
    x = rand(2, 5, 3)
    layer = layers.GRU(4, return_sequences=True)
    layer(x)
    bias = rand(2, 12, seed=6)
    layer.bias.assign(bias)

    def to_torch(w):  # Keras's gate order [z, r, h] -> PyTorch's [r, z, n]
        return np.concatenate([w[..., 4:8], w[..., 0:4], w[..., 8:12]], axis=-1)

    t = torch.nn.GRU(3, 4, batch_first=True)
    with torch.no_grad():
        t.weight_ih_l0.copy_(torch.tensor(to_torch(layer.kernel.numpy()).T))
        t.weight_hh_l0.copy_(torch.tensor(to_torch(layer.recurrent_kernel.numpy()).T))
        t.bias_ih_l0.copy_(torch.tensor(to_torch(bias[0])))
        t.bias_hh_l0.copy_(torch.tensor(to_torch(bias[1])))
        expected, _ = t(torch.tensor(x))
    np.testing.assert_allclose(layer(x).numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)


def test_an_lstm_model_trains():
    ek.keras.utils.set_random_seed(1)
    inputs = keras.Input(shape=(None, 2))
    model = keras.Model(inputs, layers.Dense(1)(layers.LSTM(8)(inputs)))
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse")
    x = rand(32, 5, 2)
    y = x.sum(axis=(1, 2))[:, None] / 5
    history = model.fit(x, y, epochs=15, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]


# -- utils and loss functions -------------------------------------------------------------------
def test_to_categorical():
    out = keras.utils.to_categorical(np.array([[1], [0], [2]]))
    np.testing.assert_array_equal(out, np.eye(3)[[1, 0, 2]])
    assert out.dtype == np.float64  # Keras 3.15: NumPy labels give a float64 NumPy array
    assert keras.utils.to_categorical([[0, 1], [1, 1]], 4).shape == (2, 2, 4)
    with pytest.raises(ValueError, match="must lie in"):
        keras.utils.to_categorical([3], num_classes=3)
    with pytest.raises(ValueError, match="must be integers"):
        keras.utils.to_categorical([0.5])


def test_set_random_seed_makes_initializers_repeat():
    keras.utils.set_random_seed(7)
    a = layers.Dense(3)(np.ones((1, 2), np.float32)).numpy()
    keras.utils.set_random_seed(7)
    b = layers.Dense(3)(np.ones((1, 2), np.float32)).numpy()
    np.testing.assert_array_equal(a, b)


def test_loss_function_forms_are_per_sample_closed_forms():
    y_true = np.array([[0.0, 1.0], [1.0, 1.0]], np.float32)
    y_pred = np.array([[0.2, 0.7], [0.9, 0.4]], np.float32)
    losses = keras.losses
    np.testing.assert_allclose(
        losses.mean_squared_error(y_true, y_pred).numpy(),
        ((y_true - y_pred) ** 2).mean(-1),
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        losses.mean_absolute_error(y_true, y_pred).numpy(),
        np.abs(y_true - y_pred).mean(-1),
        rtol=1e-6,
    )
    bce = -(y_true * np.log(y_pred) + (1 - y_true) * np.log(1 - y_pred)).mean(-1)
    np.testing.assert_allclose(losses.binary_crossentropy(y_true, y_pred).numpy(), bce, rtol=1e-5)
    probs = y_pred / y_pred.sum(-1, keepdims=True)
    cce = -(y_true * np.log(probs)).sum(-1)
    np.testing.assert_allclose(
        losses.categorical_crossentropy(y_true, y_pred).numpy(), cce, rtol=1e-5
    )
    logits = rand(2, 3)
    scce = -np.log(np_softmax(logits))[[0, 1], [2, 0]]
    np.testing.assert_allclose(
        losses.sparse_categorical_crossentropy([2, 0], logits, from_logits=True).numpy(),
        scce,
        rtol=1e-5,
    )
    assert losses.mse is losses.mean_squared_error and losses.MSE is losses.mean_squared_error


# -- Conv2DTranspose, Conv1D, UpSampling2D, 1-D global pooling -----------------------------------
@pytest.mark.parametrize("padding,stride", [("VALID", 1), ("VALID", 2), ("SAME", 2), ("SAME", 3)])
def test_conv2d_transpose_is_the_adjoint_of_conv2d(padding, stride):
    w = rand(3, 3, 2, 4)  # conv2d: 2 channels -> 4
    z = rand(2, 7, 8, 2, seed=1)  # conv2d's input, conv2d_transpose's output
    y = ek.nn.conv2d(z, w, strides=stride, padding=padding)
    x = rand(*y.shape, seed=2)
    back = ek.nn.conv2d_transpose(x, w, z.shape, strides=stride, padding=padding)
    assert back.shape == z.shape
    # <conv2d(z), x> == <z, conv2d_transpose(x)>
    np.testing.assert_allclose(np.sum(y.numpy() * x), np.sum(z * back.numpy()), rtol=1e-4)
    with pytest.raises(ek.errors.InvalidArgumentError, match="output_shape"):
        ek.nn.conv2d_transpose(x, w, (2, 30, 30, 2), strides=stride, padding=padding)


def test_conv2d_transpose_layer_matches_torch():
    torch = pytest.importorskip("torch")
    x = rand(2, 4, 5, 3)
    for padding, stride in (("valid", 1), ("valid", 2), ("same", 1)):
        layer = layers.Conv2DTranspose(6, 3, strides=stride, padding=padding)
        out = layer(x).numpy()
        kernel = layer.kernel.numpy()  # (kh, kw, filters, channels)
        tconv = torch.nn.ConvTranspose2d(
            3, 6, 3, stride=stride, padding=1 if padding == "same" else 0
        )
        with torch.no_grad():
            # PyTorch's weight is (in, out, kh, kw); both scatter each input pixel times it.
            tconv.weight.copy_(torch.tensor(kernel.transpose(3, 2, 0, 1).copy()))
            tconv.bias.zero_()
            expected = tconv(torch.tensor(x.transpose(0, 3, 1, 2))).numpy().transpose(0, 2, 3, 1)
        if padding == "same":
            assert out.shape[1:3] == x.shape[1:3]
        else:
            assert out.shape[1:3] == ((x.shape[1] - 1) * stride + 3, (x.shape[2] - 1) * stride + 3)
        np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_conv1d_against_a_numpy_loop_including_causal():
    x = rand(2, 9, 3)
    for padding in ("valid", "same", "causal"):
        layer = layers.Conv1D(4, 3, padding=padding, dilation_rate=2 if padding == "causal" else 1)
        out = layer(x).numpy()
        k, b = layer.kernel.numpy(), layer.bias.numpy()
        d = layer.dilation_rate[0]
        span = (3 - 1) * d
        if padding == "valid":
            xp = x
        elif padding == "same":
            xp = np.pad(x, ((0, 0), (span // 2, span - span // 2), (0, 0)))
        else:
            xp = np.pad(x, ((0, 0), (span, 0), (0, 0)))
        steps = xp.shape[1] - span
        expected = np.stack(
            [sum(xp[:, t + i * d] @ k[i] for i in range(3)) + b for t in range(steps)], axis=1
        )
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
        assert layer.compute_output_shape((None, 9, 3)) == (None, steps, 4)
    assert layers.Conv1D(4, 3).get_config()["kernel_size"] == (3,)


def test_upsampling_and_1d_global_pooling():
    x = rand(2, 3, 4, 5)
    np.testing.assert_array_equal(
        layers.UpSampling2D((2, 3))(x).numpy(), x.repeat(2, axis=1).repeat(3, axis=2)
    )
    with pytest.raises(ValueError, match=r"Received: interpolation=cubic"):
        layers.UpSampling2D(interpolation="cubic")
    seq = rand(2, 6, 3)
    np.testing.assert_allclose(layers.GlobalAveragePooling1D()(seq).numpy(), seq.mean(1), rtol=1e-6)
    np.testing.assert_array_equal(
        layers.GlobalMaxPooling1D(keepdims=True)(seq).numpy(), seq.max(1, keepdims=True)
    )
    with ek.GradientTape() as tape:
        xt = ek.constant(x)
        tape.watch(xt)
        y = ek.reduce_sum(layers.UpSampling2D(2)(xt))
    np.testing.assert_array_equal(tape.gradient(y, xt).numpy(), np.full(x.shape, 4.0))


def test_masks_from_embedding_reach_the_lstm_as_in_keras():
    ids = np.array([[3, 5, 2, 0, 0], [0, 0, 4, 1, 6]])  # post- and pre-padded
    embedding = layers.Embedding(8, 4, mask_zero=True)
    lstm = layers.LSTM(3)
    dense = layers.Dense(2)
    model = keras.Sequential([embedding, lstm, dense])
    out = model(ids).numpy()
    # Masked steps keep the state: each row equals the LSTM run on its tokens alone.
    for row, tokens in enumerate(([3, 5, 2], [4, 1, 6])):
        alone = dense(lstm(embedding(np.array([tokens])))).numpy()
        np.testing.assert_allclose(out[row], alone[0], rtol=1e-5, atol=1e-6)
    inputs = keras.Input(shape=(None,), dtype="int32")
    seq = layers.LSTM(3, return_sequences=True)
    functional = keras.Model(inputs, seq(embedding(inputs)))
    steps = functional(ids).numpy()
    np.testing.assert_array_equal(steps[0, 3], steps[0, 2])  # masked: the previous output
    np.testing.assert_array_equal(steps[1, 0], np.zeros(3))  # nothing seen yet
    # Called directly, the layers pass the mask on the tensors too (Keras 3's _keras_mask).
    np.testing.assert_allclose(dense(lstm(embedding(ids))).numpy(), out, rtol=1e-6)
    # An op's output carries no mask: then the padded steps count.
    assert not np.allclose(dense(lstm(ek.identity(embedding(ids)))).numpy(), out)
    with pytest.raises(ValueError, match="mask must have shape"):
        lstm(rand(2, 5, 4), mask=np.ones((2, 4), bool))


def test_bidirectional_against_two_lstms():
    torch = pytest.importorskip("torch")
    x = rand(2, 6, 3)
    bi = layers.Bidirectional(layers.LSTM(4, return_sequences=True))
    out = bi(x).numpy()
    assert out.shape == (2, 6, 8)
    assert bi.forward_layer.name.startswith("forward_") and bi.backward_layer.go_backwards
    assert len(bi.trainable_weights) == 6
    t = torch.nn.LSTM(3, 4, batch_first=True, bidirectional=True)
    with torch.no_grad():
        for sub, suffix in ((bi.forward_layer, ""), (bi.backward_layer, "_reverse")):
            getattr(t, f"weight_ih_l0{suffix}").copy_(torch.tensor(sub.kernel.numpy().T))
            getattr(t, f"weight_hh_l0{suffix}").copy_(torch.tensor(sub.recurrent_kernel.numpy().T))
            getattr(t, f"bias_ih_l0{suffix}").copy_(torch.tensor(sub.bias.numpy()))
            getattr(t, f"bias_hh_l0{suffix}").zero_()
        expected, _ = t(torch.tensor(x))
    np.testing.assert_allclose(out, expected.numpy(), rtol=1e-5, atol=1e-6)
    summed = layers.Bidirectional(layers.GRU(4), merge_mode="sum")
    assert summed(x).shape == (2, 4)
    inputs = keras.Input(shape=(None, 3))
    assert layers.Bidirectional(layers.SimpleRNN(5))(inputs).shape == (None, 10)
    with pytest.raises(ValueError, match="recurrent layer"):
        layers.Bidirectional(layers.Dense(3))
    config = bi.get_config()
    again = layers.Bidirectional.from_config(config)
    again(x)
    assert again.get_config() == {**config, "name": again.name}


def test_rescaling_and_einsum_dense_reject_bad_arguments_by_name():
    with pytest.raises(TypeError, match=r"Rescaling: scale must be a number.*scale=None"):
        ek.keras.layers.Rescaling(None)
    with pytest.raises(TypeError, match=r"Rescaling: offset must be a number.*offset='x'"):
        ek.keras.layers.Rescaling(1.0, offset="x")
    with pytest.raises(TypeError, match=r"EinsumDense: equation must be a string.*equation=3"):
        ek.keras.layers.EinsumDense(3, 4)


def test_flatten_channels_first_and_bad_arguments():
    x = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    out = ek.keras.layers.Flatten(data_format="channels_first")(x)
    np.testing.assert_array_equal(out.numpy(), x.transpose(0, 2, 3, 1).reshape(1, -1))
    layer = ek.keras.layers.Flatten(data_format="channels_first")
    assert ek.keras.layers.Flatten.from_config(layer.get_config()).data_format == "channels_first"
    with pytest.raises(ValueError, match=r"Flatten: data_format must be.*'bogus'"):
        ek.keras.layers.Flatten(data_format="bogus")
    with pytest.raises(ValueError, match=r"MultiHeadAttention: num_heads must be a positive"):
        ek.keras.layers.MultiHeadAttention(num_heads=0, key_dim=2)


def test_upsampling2d_bilinear_is_kerass():
    # Keras 3 (TensorFlow 2.21) on a 2x2 ramp: half-pixel centres, edges clamped
    x = ek.reshape(ek.constant([0.0, 1.0, 2.0, 3.0]), (1, 2, 2, 1))
    got = ek.keras.layers.UpSampling2D(2, interpolation="bilinear")(x).numpy()[0, :, :, 0]
    np.testing.assert_allclose(
        got,
        [
            [0.0, 0.25, 0.75, 1.0],
            [0.5, 0.75, 1.25, 1.5],
            [1.5, 1.75, 2.25, 2.5],
            [2.0, 2.25, 2.75, 3.0],
        ],
    )
    layer = ek.keras.layers.UpSampling2D((2, 3), interpolation="bilinear")
    assert layer(ek.zeros([2, 3, 4, 5])).shape == (2, 6, 12, 5)
    assert layer.get_config()["interpolation"] == "bilinear"
    with pytest.raises(ValueError, match=r"Invalid value for argument `interpolation`"):
        ek.keras.layers.UpSampling2D(interpolation="gaussian")
