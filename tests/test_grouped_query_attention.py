"""keras.layers.GroupQueryAttention against a NumPy transcription of Keras 3's computation
(and against Keras 3 itself when TensorFlow's Keras is installed)."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

RNG = np.random.default_rng(7)
Q = RNG.standard_normal((2, 5, 8)).astype(np.float32)
V = RNG.standard_normal((2, 4, 8)).astype(np.float32)
K = RNG.standard_normal((2, 4, 6)).astype(np.float32)


def _dense(x, kernel, bias, equation):
    out = np.einsum(equation, x, kernel)
    return out if bias is None else out + bias


def reference(layer, q, v, k=None, mask=None, causal=False):
    """Keras 3's GroupedQueryAttention.call written out in NumPy, on ``layer``'s weights."""
    w = [x.numpy() for x in layer.weights]
    take = (lambda: (w.pop(0), w.pop(0))) if layer.use_bias else (lambda: (w.pop(0), None))
    k = v if k is None else k
    wq, wk = take(), take()
    wg = take() if layer.use_gate else None
    wv, wo = take(), take()
    query = _dense(q, *wq, "bqm,muh->bquh")
    key = np.repeat(_dense(k, *wk, "bkm,mvh->bkvh"), layer.num_repeats, axis=2)
    value = np.repeat(_dense(v, *wv, "bkm,mvh->bkvh"), layer.num_repeats, axis=2)
    scores = np.einsum("bquh,bkuh->buqk", query / np.sqrt(layer.head_dim), key)
    t, s = q.shape[1], v.shape[1]
    allowed = np.ones((1, t, s), bool) if mask is None else mask.astype(bool)
    if causal:
        allowed = allowed & np.tril(np.ones((t, s), bool))[None]
    if layer.sliding_window is not None:
        band = np.abs(np.arange(t)[:, None] - np.arange(s)[None]) < layer.sliding_window
        allowed = allowed & band[None]
    scores = np.where(allowed[:, None], scores, scores - 1e9)  # Keras's Softmax with a mask
    probs = np.exp(scores - scores.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    out = np.einsum("buqk,bkuh->bquh", probs, value)
    if wg is not None:
        out = out / (1.0 + np.exp(-_dense(q, *wg, "bqm,muh->bquh")))
    return _dense(out, *wo, "bquh,uhm->bqm"), probs


CASES = [
    ("plain", {}, {}),
    ("multi-query (one key/value head)", {"num_key_value_heads": 1}, {}),
    ("gated", {"use_gate": True}, {}),
    ("no bias", {"use_bias": False}, {}),
    ("causal", {}, {"causal": True}),
    ("causal sliding window", {"sliding_window": 2}, {"causal": True}),
    ("attention mask", {}, {"mask": RNG.random((2, 5, 4)) > 0.3}),
    ("separate key", {}, {"k": K}),
]


@pytest.mark.parametrize("kwargs, call", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_matches_keras_computation(kwargs, call):
    kwargs = {"head_dim": 3, "num_query_heads": 4, "num_key_value_heads": 2, **kwargs}
    layer = ek.keras.layers.GroupQueryAttention(**kwargs)
    q = Q[:, :4] if call.get("causal") else Q
    args = {
        "key": None if call.get("k") is None else ek.constant(call["k"]),
        "attention_mask": call.get("mask"),
        "use_causal_mask": call.get("causal", False),
    }
    out, scores = layer(ek.constant(q), ek.constant(V), return_attention_scores=True, **args)
    want_out, want_scores = reference(
        layer, q, V, call.get("k"), call.get("mask"), args["use_causal_mask"]
    )
    np.testing.assert_allclose(scores.numpy(), want_scores, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-4, atol=1e-5)
    assert out.shape == q.shape and scores.shape == (2, layer.num_query_heads, q.shape[1], 4)


def test_weights_in_keras_order_and_gradients_by_finite_differences():
    layer = ek.keras.layers.GroupQueryAttention(2, 4, 2, use_gate=True, name="gqa")
    q = ek.constant(Q[:1, :3].astype(np.float64))
    v = ek.constant(V[:1, :2].astype(np.float64))
    layer(ek.cast(q, "float32"), ek.cast(v, "float32"))
    assert [w.name for w in layer.weights] == [
        f"gqa/{p}/{k}:0"
        for p in ("query", "key", "gate", "value", "attention_output")
        for k in ("kernel", "bias")
    ]
    assert layer.weights[0].shape == (8, 4, 2) and layer.weights[2].shape == (8, 2, 2)
    assert layer.weights[8].shape == (4, 2, 8)

    def f(x):
        return ek.reduce_sum(layer(x, ek.cast(v, "float32")) ** 2)

    x = ek.cast(q, "float32")
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    grad = tape.gradient(y, x).numpy()
    eps, base = 1e-2, x.numpy()
    for idx in [(0, 0, 0), (0, 1, 3), (0, 2, 7)]:
        up, down = base.copy(), base.copy()
        up[idx] += eps
        down[idx] -= eps
        fd = (float(f(ek.constant(up))) - float(f(ek.constant(down)))) / (2 * eps)
        assert grad[idx] == pytest.approx(fd, rel=2e-2, abs=2e-3)


def test_keras_masks_of_the_inputs_are_used():
    tokens = np.array([[3, 1, 0, 0], [2, 2, 2, 0]])
    embed = ek.keras.layers.Embedding(5, 8, mask_zero=True)
    layer = ek.keras.layers.GroupQueryAttention(4, 2, 1)
    x = embed(tokens)
    _, scores = layer(x, x, return_attention_scores=True)
    # Padded key positions get no attention from any real query position.
    np.testing.assert_allclose(scores.numpy()[0, :, :2, 2:], 0.0, atol=1e-7)
    np.testing.assert_allclose(scores.numpy()[1, :, :3, 3], 0.0, atol=1e-7)


def test_dropout_in_training_only_and_the_config_round_trip(tmp_path):
    inputs = ek.keras.Input((5, 8))
    outputs = ek.keras.layers.GroupQueryAttention(3, 4, 2, dropout=0.5, seed=1)(inputs, inputs)
    model = ek.keras.Model(inputs, outputs)
    x = ek.constant(Q)
    np.testing.assert_array_equal(model(x).numpy(), model(x).numpy())
    assert not np.allclose(model(x, training=True).numpy(), model(x).numpy())
    path = tmp_path / "gqa.keras"
    model.save(path)
    loaded = ek.keras.models.load_model(path)
    np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy(), rtol=1e-6)
    config = loaded.layers[-1].get_config()
    assert (config["head_dim"], config["num_query_heads"], config["num_key_value_heads"]) == (
        3,
        4,
        2,
    )
    assert config["dropout"] == 0.5


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            {"num_key_value_heads": 3},
            "`num_query_heads` must be divisible by `num_key_value_heads`",
        ),
        (
            {"sliding_window": 0},
            r"`sliding_window` must be `None` or a positive integer\. Received: sliding_window=0",
        ),
        ({"sliding_window": 1.5}, "sliding_window=1.5"),
    ],
)
def test_bad_arguments_raise_keras_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ek.keras.layers.GroupQueryAttention(
            **{"head_dim": 2, "num_query_heads": 4, "num_key_value_heads": 2, **kwargs}
        )


def test_query_and_value_of_different_widths_raise():
    layer = ek.keras.layers.GroupQueryAttention(2, 2, 1)
    with pytest.raises(
        ValueError,
        match=r"The last dimension of `query_shape` and `value_shape` must be equal, but are 8, 6",
    ):
        layer(ek.constant(Q), ek.constant(K))


def test_same_numbers_as_keras_3():
    keras = pytest.importorskip("keras")
    pytest.importorskip("tensorflow")
    theirs = keras.layers.GroupQueryAttention(
        head_dim=3, num_query_heads=4, num_key_value_heads=2, use_gate=True
    )
    want, want_scores = theirs(Q, V, return_attention_scores=True, use_causal_mask=True)
    ours = ek.keras.layers.GroupQueryAttention(
        head_dim=3, num_query_heads=4, num_key_value_heads=2, use_gate=True
    )
    ours(Q, V)
    ours.set_weights(theirs.get_weights())
    got, scores = ours(Q, V, return_attention_scores=True, use_causal_mask=True)
    np.testing.assert_allclose(scores.numpy(), np.asarray(want_scores), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got.numpy(), np.asarray(want), rtol=1e-5, atol=1e-6)
