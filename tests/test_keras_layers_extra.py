"""Keras 3 layers added for daily TensorFlow use: normalization, activation, reshaping and
attention layers, against NumPy closed forms, finite differences, Keras's documented errors
and a save/load round trip."""

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients

keras = ek.keras
layers = keras.layers


def rand(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def roundtrip(layer):
    """The layer rebuilt from its config, and the config (which must survive the rebuild)."""
    config = layer.get_config()
    clone = type(layer).from_config(config)
    assert clone.get_config() == config
    return clone


# -- normalization -----------------------------------------------------------------------------
def test_layer_normalization_against_numpy_and_weights():
    x = rand(3, 4, 5)
    ln = layers.LayerNormalization(epsilon=1e-3)
    mean = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    np.testing.assert_allclose(ln(x).numpy(), (x - mean) / np.sqrt(var + 1e-3), atol=1e-5)
    assert [tuple(w.shape) for w in ln.weights] == [(5,), (5,)]
    assert ln.weights[0].name.endswith("gamma:0")
    # several axes: gamma/beta span them (Keras's documented example shapes)
    ln = layers.LayerNormalization(axis=[1, 2])
    ln(np.zeros((2, 20, 30, 40), np.float32))
    assert tuple(ln.beta.shape) == (20, 30) and tuple(ln.gamma.shape) == (20, 30)
    x = rand(2, 3, 4, seed=1)
    ln = layers.LayerNormalization(axis=(1, 2), epsilon=0.0)
    ln(x)
    gamma = rand(3, 4, seed=2)
    beta = rand(3, 4, seed=3)
    ln.set_weights([gamma, beta])
    m = x.mean((1, 2), keepdims=True)
    v = x.var((1, 2), keepdims=True)
    np.testing.assert_allclose(ln(x).numpy(), (x - m) / np.sqrt(v) * gamma + beta, atol=1e-5)


def test_layer_normalization_options_and_rms_scaling():
    x = rand(4, 6)
    plain = layers.LayerNormalization(center=False, scale=False)
    assert plain(x).shape == (4, 6) and plain.weights == []
    rms = layers.LayerNormalization(rms_scaling=True, epsilon=1e-6)
    out = rms(x).numpy()
    assert [w.name.split("/")[-1] for w in rms.weights] == ["gamma:0"]  # no beta
    # Keras 3's formula: the variance about the mean, with the mean itself kept
    expected = x / np.sqrt(x.var(-1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(out, expected, rtol=1e-5)
    clone = roundtrip(rms)
    assert clone.rms_scaling and clone.epsilon == 1e-6
    with pytest.raises(TypeError, match="axis"):
        layers.LayerNormalization(axis="last")
    with pytest.raises(ValueError, match="invalid axis 3"):
        layers.LayerNormalization(axis=3)(x)


def test_layer_normalization_gradients_finite_differences():
    ln = layers.LayerNormalization(dtype="float64", gamma_initializer="glorot_uniform")
    ln.build((2, 5))
    check_gradients(lambda x: ln(x) * ek.constant(np.arange(5.0)), rand(2, 5).astype(np.float64))
    gn = layers.GroupNormalization(groups=2, dtype="float64")
    check_gradients(lambda x: gn(x) ** 2, rand(2, 3, 4, seed=5).astype(np.float64))


def test_group_normalization_against_numpy_and_errors():
    x = rand(2, 3, 6)
    gn = layers.GroupNormalization(groups=3, epsilon=1e-3)
    g = x.reshape(2, 3, 3, 2)
    mean = g.mean(axis=(1, 3), keepdims=True)
    var = g.var(axis=(1, 3), keepdims=True)
    expected = ((g - mean) / np.sqrt(var + 1e-3)).reshape(2, 3, 6)
    np.testing.assert_allclose(gn(x).numpy(), expected, atol=1e-5)
    assert [tuple(w.shape) for w in gn.weights] == [(6,), (6,)]
    # groups=1 is layer normalization over all non-batch axes
    one = layers.GroupNormalization(groups=1, epsilon=1e-3)(x).numpy()
    all_axes = layers.LayerNormalization(axis=[1, 2], epsilon=1e-3)(x).numpy()
    np.testing.assert_allclose(one, all_axes, atol=1e-5)
    with pytest.raises(ValueError, match=r"Number of groups \(4\) must be a multiple"):
        layers.GroupNormalization(groups=4)(x)
    with pytest.raises(ValueError, match=r"cannot be more than the number of channels \(6\)"):
        layers.GroupNormalization()(x)
    assert roundtrip(layers.GroupNormalization(groups=3)).groups == 3


def test_unit_normalization():
    x = rand(3, 4)
    out = layers.UnitNormalization()(x).numpy()
    np.testing.assert_allclose(out, x / np.linalg.norm(x, axis=-1, keepdims=True), rtol=1e-5)
    x = rand(2, 3, 4)
    out = layers.UnitNormalization(axis=(1, 2))(x).numpy()
    np.testing.assert_allclose(np.sqrt((out**2).sum((1, 2))), [1.0, 1.0], rtol=1e-5)


# -- activations -------------------------------------------------------------------------------
def test_leaky_relu_prelu_elu():
    x = rand(3, 4)
    np.testing.assert_allclose(layers.LeakyReLU()(x).numpy(), np.where(x > 0, x, 0.3 * x))
    with pytest.warns(UserWarning, match="`alpha` is deprecated"):
        legacy = layers.LeakyReLU(alpha=0.1)
    assert legacy.get_config()["negative_slope"] == pytest.approx(0.1)
    with pytest.raises(ValueError, match="cannot be None or negative"):
        layers.LeakyReLU(negative_slope=-1)
    np.testing.assert_allclose(
        layers.ELU(alpha=2.0)(x).numpy(), np.where(x > 0, x, 2.0 * (np.exp(x) - 1)), rtol=1e-5
    )

    prelu = layers.PReLU()
    np.testing.assert_allclose(prelu(x).numpy(), np.maximum(x, 0))  # alpha starts at zero
    images = rand(2, 5, 5, 3)
    shared = layers.PReLU(alpha_initializer=keras.initializers.Constant(0.25), shared_axes=[1, 2])
    out = shared(images).numpy()
    assert tuple(shared.alpha.shape) == (1, 1, 3)
    np.testing.assert_allclose(out, np.where(images > 0, images, 0.25 * images))
    # d out / d alpha = min(x, 0), summed
    with ek.GradientTape() as tape:
        y = ek.reduce_sum(shared(images))
    np.testing.assert_allclose(
        tape.gradient(y, shared.alpha).numpy().ravel(),
        np.minimum(images, 0).sum((0, 1, 2)),
        rtol=1e-5,
    )
    assert roundtrip(shared).shared_axes == [1, 2]


# -- reshaping and merging ---------------------------------------------------------------------
def test_identity_permute_repeat_vector():
    x = rand(2, 3, 4)
    assert layers.Identity()(x).numpy().tolist() == x.tolist()
    np.testing.assert_array_equal(layers.Permute((2, 1))(x).numpy(), x.transpose(0, 2, 1))
    assert layers.Permute((2, 1)).compute_output_shape((None, 3, 4)) == (None, 4, 3)
    with pytest.raises(ValueError, match="must be consecutive and start from 1"):
        layers.Permute((0, 1))
    v = rand(2, 4)
    np.testing.assert_array_equal(layers.RepeatVector(3)(v).numpy(), np.repeat(v[:, None], 3, 1))
    with pytest.raises(TypeError, match="Expected an integer value for `n`"):
        layers.RepeatVector(2.5)
    with pytest.raises(ValueError, match="expected ndim=2, found ndim=3"):
        layers.RepeatVector(2)(x)


def test_dot_against_numpy():
    a, b = rand(2, 5, 3), rand(2, 4, 3, seed=1)
    out = layers.Dot(axes=2)([a, b]).numpy()
    np.testing.assert_allclose(out, np.einsum("bik,bjk->bij", a, b), rtol=1e-5)
    u, w = rand(4, 3), rand(4, 3, seed=2)
    cos = layers.Dot(axes=1, normalize=True)([u, w]).numpy()
    ref = (u * w).sum(1) / np.linalg.norm(u, axis=1) / np.linalg.norm(w, axis=1)
    np.testing.assert_allclose(cos, ref[:, None], rtol=1e-5)
    assert layers.Dot(axes=1).compute_output_shape([(None, 3), (None, 3)]) == (None, 1)
    assert layers.Dot(axes=(1, 2)).compute_output_shape([(None, 5, 2), (None, 3, 5)]) == (
        None,
        2,
        3,
    )
    with pytest.raises(ValueError, match="Incompatible input shapes"):
        layers.Dot(axes=1)([u, rand(4, 2)])
    with pytest.raises(ValueError, match="list of 2 inputs"):
        layers.Dot(axes=1)(u)


def test_masking_feeds_the_lstm_mask():
    x = rand(2, 5, 3)
    x[0, 3:] = 0.0  # the first sequence is 3 steps long
    masking = layers.Masking()
    np.testing.assert_array_equal(
        masking.compute_mask(ek.constant(x)).numpy(),
        [[True, True, True, False, False], [True] * 5],
    )
    lstm = layers.LSTM(4)
    model = keras.Sequential([keras.Input((5, 3)), masking, lstm])
    out = model(x).numpy()
    # a masked LSTM over the padded sequence ends where the unpadded one does
    np.testing.assert_allclose(out[0], lstm(x[:1, :3]).numpy()[0], rtol=1e-5, atol=1e-6)
    assert not np.allclose(out[0], lstm(x[:1]).numpy()[0])


def test_activity_regularization_adds_losses():
    layer = layers.ActivityRegularization(l1=0.1, l2=0.01)
    x = rand(3, 4)
    layer(x)
    expected = (0.1 * np.abs(x).sum() + 0.01 * (x**2).sum()) / 3  # Keras 3: / batch size
    assert float(ek.add_n(layer.losses)) == pytest.approx(expected, rel=1e-5)
    assert roundtrip(layer).get_config()["l1"] == pytest.approx(0.1)
    with pytest.raises(TypeError, match="activity_regularizer"):
        layers.ActivityRegularization(activity_regularizer="l2")
    # in a model, the penalty joins the training loss
    model = keras.Sequential([keras.Input((4,)), layers.ActivityRegularization(l2=0.5)])
    model(x)
    assert float(ek.add_n(model.losses)) == pytest.approx(0.5 * (x**2).sum() / 3, rel=1e-5)


# -- attention ---------------------------------------------------------------------------------
def test_einsum_dense_against_numpy():
    x = rand(2, 5, 3)
    layer = layers.EinsumDense("abc,cd->abd", output_shape=(None, 4), bias_axes="d")
    out = layer(x).numpy()
    assert tuple(layer.kernel.shape) == (3, 4) and tuple(layer.bias.shape) == (4,)
    layer.bias.assign(rand(4, seed=9))
    ref = np.einsum("abc,cd->abd", x, layer.kernel.numpy()) + layer.bias.numpy()
    np.testing.assert_allclose(layer(x).numpy(), ref, rtol=1e-5)
    assert out.shape == (2, 5, 4)
    # a leading ellipsis passes the axes through
    ell = layers.EinsumDense("...b,bc->...c", output_shape=6, activation="relu")
    y = ell(x).numpy()
    assert y.shape == (2, 5, 6) and ell.compute_output_shape((None, 5, 3)) == (None, 5, 6)
    np.testing.assert_allclose(y, np.maximum(x @ ell.kernel.numpy(), 0), rtol=1e-5, atol=1e-6)
    # a trailing one too
    right = layers.EinsumDense("ab...,bc->ac...", output_shape=(6,))
    y = right(x).numpy()
    assert y.shape == (2, 6, 3) and tuple(right.kernel.shape) == (5, 6)
    np.testing.assert_allclose(y, np.einsum("abz,bc->acz", x, right.kernel.numpy()), atol=1e-5)
    with pytest.raises(ValueError, match="Invalid einsum equation"):
        layers.EinsumDense("ab->b", output_shape=3)
    with pytest.raises(ValueError, match="Bias dimension 'x' was requested"):
        layers.EinsumDense("ab,bc->ac", output_shape=3, bias_axes="x")(rand(2, 3))
    assert roundtrip(layer).get_config()["equation"] == "abc,cd->abd"


def mha_reference(layer, q, v, k=None, mask=None):
    """NumPy multi-head attention with ``layer``'s weights."""
    k = v if k is None else k
    wq, bq, wk, bk, wv, bv, wo, bo = (w.numpy() for w in layer.weights)
    qp = np.einsum("btd,dnh->btnh", q, wq) + bq
    kp = np.einsum("bsd,dnh->bsnh", k, wk) + bk
    vp = np.einsum("bsd,dnh->bsnh", v, wv) + bv
    scores = np.einsum("bsnh,btnh->bnts", kp, qp / np.sqrt(wq.shape[-1]))
    if mask is not None:
        scores = np.where(mask[:, None], scores, -1e9)
    p = np_softmax(scores, -1)
    if mask is not None:
        p = p * mask[:, None]
    out = np.einsum("bnts,bsnh->btnh", p, vp)
    return np.einsum("btnh,nhd->btd", out, wo) + bo, p


def test_multi_head_attention_against_numpy():
    q, v = rand(2, 4, 6), rand(2, 3, 5, seed=1)
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=4, bias_initializer="ones")
    out, scores = mha(q, v, return_attention_scores=True)
    assert out.shape == (2, 4, 6) and scores.shape == (2, 2, 4, 3)
    names = [w.name for w in mha.weights]
    assert names[0].endswith("/query/kernel:0") and names[-1].endswith("/attention_output/bias:0")
    shapes = [tuple(w.shape) for w in mha.weights]
    assert shapes == [(6, 2, 3), (2, 3), (5, 2, 3), (2, 3), (5, 2, 4), (2, 4), (2, 4, 6), (6,)]
    ref, ref_p = mha_reference(mha, q, v)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(scores.numpy(), ref_p, rtol=1e-4, atol=1e-6)
    # key given separately, output_shape
    k = rand(2, 3, 7, seed=2)
    mha2 = layers.MultiHeadAttention(num_heads=3, key_dim=2, output_shape=8)
    out2 = mha2(q, v, key=k)
    assert out2.shape == (2, 4, 8)
    np.testing.assert_allclose(out2.numpy(), mha_reference(mha2, q, v, k)[0], rtol=1e-4, atol=1e-5)


def test_multi_head_attention_masks():
    x = rand(2, 4, 6)
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    out, p = mha(x, x, use_causal_mask=True, return_attention_scores=True)
    causal = np.tril(np.ones((4, 4), bool))[None].repeat(2, 0)
    np.testing.assert_array_equal(p.numpy()[:, :, ~causal[0]], 0.0)
    np.testing.assert_allclose(out.numpy(), mha_reference(mha, x, x, mask=causal)[0], atol=1e-5)
    # an explicit attention mask, combined with a value padding mask
    attn = np.random.default_rng(3).random((2, 4, 4)) > 0.3
    attn[:, :, 0] = True
    value_mask = np.array([[True, True, True, False], [True] * 4])
    out = mha(x, x, attention_mask=attn, value_mask=value_mask).numpy()
    combined = attn & value_mask[:, None, :]
    np.testing.assert_allclose(out, mha_reference(mha, x, x, mask=combined)[0], atol=1e-5)
    # the query's future does not change its past under the causal mask
    y = x.copy()
    y[:, 3] += 1.0
    np.testing.assert_allclose(
        mha(y, y, use_causal_mask=True).numpy()[:, :3],
        mha(x, x, use_causal_mask=True).numpy()[:, :3],
        atol=1e-6,
    )


def test_multi_head_attention_over_two_axes_equals_flattened_sequence():
    x = rand(2, 2, 3, 4)
    grid = layers.MultiHeadAttention(num_heads=2, key_dim=3, attention_axes=(-3, -2))
    out, scores = grid(x, x, return_attention_scores=True)
    assert scores.shape == (2, 2, 2, 3, 2, 3)
    assert grid.get_config()["attention_axes"] == [-3, -2]
    flat = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    flat(x.reshape(2, 6, 4), x.reshape(2, 6, 4))
    flat.set_weights(grid.get_weights())
    np.testing.assert_allclose(
        out.numpy().reshape(2, 6, 4),
        flat(x.reshape(2, 6, 4), x.reshape(2, 6, 4)).numpy(),
        rtol=1e-4,
        atol=1e-6,
    )
    with pytest.raises(ValueError, match="must be an int, list, or tuple"):
        layers.MultiHeadAttention(2, 3, attention_axes="1")
    with pytest.raises(ValueError, match="Invalid `output_shape`"):
        layers.MultiHeadAttention(2, 3, output_shape="x")


def test_multi_head_attention_dropout_training_only_and_gradients():
    x = rand(1, 3, 4)
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=2, dropout=0.5, seed=1)
    a = mha(x, x).numpy()
    np.testing.assert_array_equal(a, mha(x, x, training=False).numpy())
    assert not np.allclose(a, mha(x, x, training=True).numpy())
    m64 = layers.MultiHeadAttention(num_heads=2, key_dim=2, dtype="float64")
    xq = rand(1, 3, 4, seed=4).astype(np.float64)
    xv = rand(1, 2, 4, seed=5).astype(np.float64)
    m64(xq, xv)
    check_gradients(lambda q, v: m64(q, v) ** 2, xq, xv, rtol=1e-4, atol=1e-6)


def test_multi_head_attention_functional_save_and_load(tmp_path):
    q_in = keras.Input((4, 6))
    v_in = keras.Input((3, 6))
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=3, name="mha")
    x = mha(q_in, v_in)
    x = layers.LayerNormalization(name="ln")(x + q_in)
    out = layers.Dense(2)(layers.PReLU()(x))
    model = keras.Model([q_in, v_in], out)
    assert tuple(model.output_shape) == (None, 4, 2)
    q, v = rand(2, 4, 6), rand(2, 3, 6, seed=1)
    before = model([q, v]).numpy()
    model.save(tmp_path / "mha.keras")
    loaded = keras.models.load_model(tmp_path / "mha.keras")
    np.testing.assert_allclose(loaded([q, v]).numpy(), before, rtol=1e-6)
    assert loaded.get_layer("mha").get_config() == mha.get_config()
    loaded_mha = loaded.get_layer("mha")
    assert [w.name for w in loaded_mha.weights] == [w.name for w in mha.weights]


def test_sequential_with_new_layers_trains_and_round_trips(tmp_path):
    keras.utils.set_random_seed(0)  # the initial weights: not those of whatever test ran before
    model = keras.Sequential(
        [
            keras.Input((6,)),
            layers.Dense(8),
            layers.LayerNormalization(),
            layers.LeakyReLU(negative_slope=0.2),
            layers.RepeatVector(2),
            layers.GroupNormalization(groups=2),
            layers.Permute((2, 1)),
            layers.UnitNormalization(),
            layers.Identity(),
            keras.layers.Flatten(),
            layers.Dense(1),
        ]
    )
    model.compile(optimizer="adam", loss="mse")
    x, y = rand(16, 6), rand(16, 1, seed=1)
    history = model.fit(x, y, epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    model.save(tmp_path / "seq.keras")
    loaded = keras.models.load_model(tmp_path / "seq.keras")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-5)


def test_attention_layers_against_numpy():
    q, v = rand(2, 3, 4), rand(2, 5, 4, seed=1)
    layer = layers.Attention()
    out, w = layer([q, v], return_attention_scores=True)
    ref_w = np_softmax(q @ v.transpose(0, 2, 1))
    np.testing.assert_allclose(w.numpy(), ref_w, rtol=1e-5)
    np.testing.assert_allclose(out.numpy(), ref_w @ v, rtol=1e-5)
    # masks: padded keys get no weight; masked queries give zeros
    q_mask = np.array([[True, True, False], [True] * 3])
    v_mask = np.array([[True, True, True, False, False], [True] * 5])
    out = layer([q, v], mask=[q_mask, v_mask]).numpy()
    ref = np_softmax(np.where(v_mask[:, None], q @ v.transpose(0, 2, 1), -1e9)) @ v
    np.testing.assert_allclose(out, ref * q_mask[..., None], rtol=1e-5, atol=1e-6)
    # causal mask, scale and concat scores
    x = rand(1, 4, 4)
    _, w = layers.Attention(use_scale=True)(
        [x, x], use_causal_mask=True, return_attention_scores=True
    )
    np.testing.assert_array_equal(np.triu(w.numpy()[0], 1), 0.0)
    concat = layers.Attention(score_mode="concat")
    out = concat([q, v]).numpy()
    scores = np.tanh(q[:, :, None] + v[:, None]).sum(-1)
    np.testing.assert_allclose(out, np_softmax(scores) @ v, rtol=1e-5)
    additive = layers.AdditiveAttention()
    out = additive([q, v]).numpy()
    scale = additive.scale.numpy()
    scores = (scale * np.tanh(q[:, :, None] + v[:, None])).sum(-1)
    np.testing.assert_allclose(out, np_softmax(scores) @ v, rtol=1e-5)
    assert "score_mode" not in additive.get_config()
    with pytest.raises(ValueError, match="Received: score_mode=bad"):
        layers.Attention(score_mode="bad")
    with pytest.raises(ValueError, match="must be called on a list of inputs"):
        layers.Attention()(ek.constant(q))
    assert roundtrip(layers.Attention(use_scale=True, dropout=0.1)).dropout == 0.1


def test_attention_in_a_functional_model():
    q_in = keras.Input((3, 4))
    v_in = keras.Input((5, 4))
    out = layers.GlobalAveragePooling1D()(layers.Attention()([q_in, v_in]))
    model = keras.Model([q_in, v_in], out)
    assert tuple(model.output_shape) == (None, 4)
    q, v = rand(2, 3, 4), rand(2, 5, 4, seed=1)
    ref = (np_softmax(q @ v.transpose(0, 2, 1)) @ v).mean(1)
    np.testing.assert_allclose(model([q, v]).numpy(), ref, rtol=1e-5)


REQUIRED = {
    "MultiHeadAttention": {"num_heads": 1, "key_dim": 2},
    "EinsumDense": {"equation": "ab,bc->ac", "output_shape": 2},
    "Dot": {"axes": 1},
    "Permute": {"dims": (1,)},
    "RepeatVector": {"n": 2},
}


@pytest.mark.parametrize(
    "name",
    [
        "LayerNormalization",
        "GroupNormalization",
        "UnitNormalization",
        "LeakyReLU",
        "PReLU",
        "ELU",
        "Identity",
        "Permute",
        "RepeatVector",
        "Dot",
        "Masking",
        "ActivityRegularization",
        "EinsumDense",
        "MultiHeadAttention",
        "Attention",
        "AdditiveAttention",
    ],
)
def test_new_layers_serialize_through_the_registry(name):
    layer = getattr(layers, name)(**REQUIRED.get(name, {}))
    again = layers.deserialize(layers.serialize(layer))
    assert type(again) is type(layer)
    assert again.get_config() == layer.get_config()


# -- shape layers ------------------------------------------------------------------------------
def test_padding_and_cropping_against_numpy():
    x = rand(2, 4, 3)
    np.testing.assert_array_equal(
        layers.ZeroPadding1D((1, 2))(x).numpy(), np.pad(x, ((0, 0), (1, 2), (0, 0)))
    )
    np.testing.assert_array_equal(layers.Cropping1D((1, 2))(x).numpy(), x[:, 1:2])
    assert layers.Cropping1D(1).compute_output_shape((None, 4, 3)) == (None, 2, 3)
    with pytest.raises(ValueError, match="must be smaller than the input length"):
        layers.Cropping1D((2, 2))(x)
    img = rand(2, 5, 6, 3)
    np.testing.assert_array_equal(
        layers.ZeroPadding2D(((1, 0), (2, 3)))(img).numpy(),
        np.pad(img, ((0, 0), (1, 0), (2, 3), (0, 0))),
    )
    np.testing.assert_array_equal(
        layers.ZeroPadding2D(1)(img).numpy(), np.pad(img, ((0, 0), (1, 1), (1, 1), (0, 0)))
    )
    np.testing.assert_array_equal(layers.Cropping2D((1, 2))(img).numpy(), img[:, 1:4, 2:4])
    np.testing.assert_array_equal(
        layers.Cropping2D(((0, 1), (3, 0)))(img).numpy(), img[:, 0:4, 3:6]
    )
    with pytest.raises(ValueError, match="`padding` should be an int"):
        layers.ZeroPadding2D((1, 2, 3))
    config = layers.ZeroPadding2D(((1, 0), (2, 3))).get_config()
    assert layers.ZeroPadding2D.from_config(config).padding == ((1, 0), (2, 3))


def test_upsampling_and_1d_pooling_against_numpy():
    x = rand(2, 5, 3)
    np.testing.assert_array_equal(layers.UpSampling1D(3)(x).numpy(), np.repeat(x, 3, axis=1))
    out = layers.MaxPooling1D(2)(x).numpy()
    np.testing.assert_array_equal(out, np.maximum(x[:, 0:4:2], x[:, 1:4:2]))
    out = layers.AveragePooling1D(3, strides=1)(x).numpy()
    ref = np.stack([x[:, i : i + 3].mean(1) for i in range(3)], 1)
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    same = layers.MaxPooling1D(2, padding="same")
    assert same(x).shape == (2, 3, 3) and same.compute_output_shape((None, 5, 3)) == (None, 3, 3)
    np.testing.assert_array_equal(same(x).numpy()[:, 2], x[:, 4])
    assert layers.MaxPool1D is layers.MaxPooling1D
    model = keras.Sequential(
        [
            keras.Input((8, 2)),
            layers.ZeroPadding1D(1),
            layers.MaxPooling1D(2),
            layers.UpSampling1D(2),
            layers.Cropping1D((1, 1)),
            layers.AveragePooling1D(2),
        ]
    )
    assert model(rand(3, 8, 2)).shape == (3, 4, 2)
    check_gradients(
        lambda t: layers.AveragePooling1D(2, dtype="float64")(t) ** 2,
        rand(1, 4, 2).astype(np.float64),
    )


# -- noise and dropout -------------------------------------------------------------------------
def test_noise_layers_are_identity_in_inference():
    x = rand(4, 5, 6)
    for layer in (
        layers.GaussianNoise(0.5),
        layers.GaussianDropout(0.3),
        layers.AlphaDropout(0.2),
        layers.SpatialDropout1D(0.5),
    ):
        np.testing.assert_array_equal(layer(x).numpy(), x)
        np.testing.assert_array_equal(layer(x, training=False).numpy(), x)
        assert not np.allclose(layer(x, training=True).numpy(), x)
    model = keras.Sequential([keras.Input((5, 6)), layers.GaussianNoise(1.0)])
    np.testing.assert_array_equal(model.predict(x, verbose=0), x)


def test_gaussian_noise_and_dropout_statistics_and_seeds():
    x = np.ones((200, 500), np.float32)
    noisy = layers.GaussianNoise(0.5, seed=3)(x, training=True).numpy() - 1.0
    assert abs(noisy.mean()) < 0.01 and abs(noisy.std() - 0.5) < 0.01
    drop = layers.GaussianDropout(0.2, seed=3)(x, training=True).numpy()
    assert abs(drop.mean() - 1.0) < 0.01 and abs(drop.std() - np.sqrt(0.25)) < 0.01
    # a seed makes the sequence of draws reproducible, each call different
    ek.random.set_seed(7)
    a = layers.GaussianNoise(0.1, seed=1)
    first, second = a(x[:2], training=True).numpy(), a(x[:2], training=True).numpy()
    ek.random.set_seed(7)
    b = layers.GaussianNoise(0.1, seed=1)
    np.testing.assert_array_equal(b(x[:2], training=True).numpy(), first)
    assert not np.array_equal(first, second)
    with pytest.raises(ValueError, match="Expected a float value between 0 and 1"):
        layers.GaussianNoise(1.5)
    with pytest.raises(ValueError, match=r"Received: rate=-0\.1"):
        layers.GaussianDropout(-0.1)


def test_alpha_dropout_keeps_selu_statistics():
    x = np.random.default_rng(0).normal(size=(400, 500)).astype(np.float32)
    out = layers.AlphaDropout(0.3, seed=2)(x, training=True).numpy()
    assert abs(out.mean()) < 0.02 and abs(out.std() - 1.0) < 0.02
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = ((1 - 0.3) * (1 + 0.3 * alpha_p**2)) ** -0.5
    b = -a * alpha_p * 0.3
    dropped = np.isclose(out, a * alpha_p + b)
    assert abs(dropped.mean() - 0.3) < 0.01
    np.testing.assert_allclose(out[~dropped], a * x[~dropped] + b, rtol=1e-5, atol=1e-6)
    assert roundtrip(layers.AlphaDropout(0.3, seed=2)).rate == 0.3


def test_spatial_dropout_drops_whole_channels():
    x = np.ones((8, 10, 16), np.float32)
    out = layers.SpatialDropout1D(0.5, seed=0)(x, training=True).numpy()
    assert set(np.unique(out)) <= {0.0, 2.0}
    assert (out == out[:, :1]).all()  # the same along the steps: whole channels
    assert 0 < (out[:, 0] == 0).mean() < 1
    img = np.ones((4, 3, 3, 8), np.float32)
    out = layers.SpatialDropout2D(0.5, seed=0)(img, training=True).numpy()
    assert (out == out[:, :1, :1]).all() and 0 < (out == 0).mean() < 1
    with pytest.raises(ValueError, match="expected ndim=3"):
        layers.SpatialDropout1D(0.5)(img, training=True)
    assert "noise_shape" not in layers.SpatialDropout2D(0.5).get_config()
    assert roundtrip(layers.SpatialDropout2D(0.5, seed=1)).seed == 1


# -- TimeDistributed ---------------------------------------------------------------------------
def test_time_distributed_applies_one_layer_per_step():
    x = rand(3, 4, 5)
    dense = layers.Dense(2, bias_initializer="ones")
    td = layers.TimeDistributed(dense)
    out = td(x).numpy()
    assert out.shape == (3, 4, 2) and len(td.weights) == 2  # one set of weights for all steps
    w, b = dense.get_weights()
    np.testing.assert_allclose(out, x @ w + b, rtol=1e-5)
    assert td.compute_output_shape((None, 4, 5)) == (None, 4, 2)
    images = rand(2, 3, 6, 6, 1)
    conv = layers.TimeDistributed(layers.Conv2D(4, 3))
    per_step = np.stack([conv.layer(images[:, t]).numpy() for t in range(3)], 1)
    np.testing.assert_allclose(conv(images).numpy(), per_step, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"with a `keras\.layers\.Layer` instance"):
        layers.TimeDistributed(lambda t: t)
    with pytest.raises(ValueError, match="at least 3 dimensions"):
        layers.TimeDistributed(layers.Dense(2))(rand(3, 4))
    td64 = layers.TimeDistributed(layers.Dense(3, dtype="float64"), dtype="float64")
    check_gradients(lambda t: td64(t) ** 2, rand(2, 3, 4).astype(np.float64))


def test_time_distributed_in_models_and_saving(tmp_path):
    inputs = keras.Input((4, 5))
    x = layers.TimeDistributed(layers.Dense(3, activation="relu"), name="td")(inputs)
    x = layers.TimeDistributed(layers.Dropout(0.5))(x)
    outputs = layers.GlobalAveragePooling1D()(x)
    model = keras.Model(inputs, outputs)
    assert tuple(model.output_shape) == (None, 3)
    x = rand(2, 4, 5)
    before = model(x).numpy()
    model.save(tmp_path / "td.keras")
    loaded = keras.models.load_model(tmp_path / "td.keras")
    np.testing.assert_allclose(loaded(x).numpy(), before, rtol=1e-6)
    assert isinstance(loaded.get_layer("td").layer, layers.Dense)
    seq = keras.Sequential([keras.Input((4, 5)), layers.TimeDistributed(layers.Dense(2))])
    seq.compile(optimizer="sgd", loss="mse")
    seq.fit(x, rand(2, 4, 2, seed=1), epochs=1, verbose=0)
    assert seq(x).shape == (2, 4, 2)
