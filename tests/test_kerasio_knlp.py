"""Divergences found by running keras-io's examples/nlp against eagerkernel.

Expected values were computed with the oracle (tensorflow-cpu 2.21, Keras 3.15, TensorFlow
backend) running the same code with ``import tensorflow as tf`` / ``import keras``.
"""

import numpy as np
import pytest
from eagerkernel.keras import layers

import eagerkernel as tf
from eagerkernel import keras

# -- tf.strings regular expressions match UTF-8 text by code point (RE2) ------------------------


def test_regex_replace_strips_multibyte_character_whole():
    # neural_machine_translation_with_transformer: "[...¿]" must not split "¡" (C2 A1).
    out = tf.strings.regex_replace(
        tf.constant(["¡Ellos cantan bien! ¿Dónde?", "añb"]), "[!¿]", ""
    ).numpy()
    # oracle: tf.strings.regex_replace(same input, "[!¿]", "")
    assert list(out) == ["¡Ellos cantan bien Dónde?".encode(), "añb".encode()]
    for s in out:
        s.decode("utf-8")  # still valid UTF-8


def test_regex_dot_is_one_code_point_and_classes_are_ascii():
    # oracle: regex_full_match(["é", "ab"], "^.$") -> [True, False]
    np.testing.assert_array_equal(
        tf.strings.regex_full_match(["é", "ab"], "^.$").numpy(), [True, False]
    )
    # oracle: RE2's \w is ASCII-only -> b"\xc3\xa9X XX"
    assert tf.strings.regex_replace(["é1 x_"], r"\w", "X").numpy()[0] == "éX XX".encode()
    # oracle: \s does not match U+00A0 -> unchanged
    assert tf.strings.regex_replace(["a\u00a0b"], r"\s", "-").numpy()[0] == "a\u00a0b".encode()
    # oracle: groups and \0 over multibyte text -> "ñaañb"
    assert tf.strings.regex_replace(["añb"], "(a)(ñ)", r"\2\1\0").numpy()[0] == "ñaañb".encode()
    # oracle: a bytes pattern is UTF-8 too -> b"aNb"
    assert tf.strings.regex_replace(["añb"], "ñ".encode(), "N").numpy()[0] == b"aNb"


def test_regex_replace_keeps_bytes_that_are_not_utf8():
    # oracle: b"\xff\xfeXb"
    assert tf.strings.regex_replace(b"\xff\xfeab", "a", "X").numpy() == b"\xff\xfeXb"


# -- MultiHeadAttention: Keras 3's fused path for fully masked query rows ----------------------


def _mha(**kwargs):
    rng = np.random.default_rng(0)
    q = tf.constant(rng.normal(size=(1, 3, 4)).astype("float32"))
    m = layers.MultiHeadAttention(num_heads=1, key_dim=2, **kwargs)
    m(q, q)
    for w in sorted(m.weights, key=lambda w: w.path):
        w.assign(rng.normal(size=tuple(w.shape)).astype("float32"))
    return m, q, rng


_ROW_MASK = [[[1, 0, 0], [0, 0, 0], [0, 0, 0]]]  # rows 1 and 2 may attend to no key


def test_mha_fully_masked_row_weighs_all_keys_equally():
    # Keras 3 computes this through ops.dot_product_attention (no dropout, no scores
    # returned): masked scores set to a large negative, not zeroed after the softmax.
    m, q, _ = _mha()
    out = m(q, q, attention_mask=tf.constant(_ROW_MASK)).numpy()[0, :, 0]
    # oracle: same weights and inputs -> [-2.4418972, -1.6906596, -1.6906596]
    np.testing.assert_allclose(out, [-2.4418972, -1.6906596, -1.6906596], rtol=1e-5)


def test_mha_returned_scores_and_dropout_zero_the_masked_row():
    # With return_attention_scores (or dropout > 0) Keras 3 uses its masked Softmax, which
    # zeroes the masked weights: the masked rows' output is the output projection's bias.
    m, q, _ = _mha()
    out, scores = m(q, q, attention_mask=tf.constant(_ROW_MASK), return_attention_scores=True)
    # oracle: [-2.4418972, -2.3250308, -2.3250308] and scores [[1,0,0],[0,0,0],[0,0,0]]
    np.testing.assert_allclose(out.numpy()[0, :, 0], [-2.4418972, -2.3250308, -2.3250308], 1e-5)
    np.testing.assert_array_equal(scores.numpy()[0, 0], [[1, 0, 0], [0, 0, 0], [0, 0, 0]])
    d, _, _ = _mha(dropout=0.5)
    for w, w2 in zip(m.weights, d.weights):
        w2.assign(w.numpy())
    out = d(q, q, attention_mask=tf.constant(_ROW_MASK)).numpy()[0, :, 0]  # inference
    np.testing.assert_allclose(out, [-2.4418972, -2.3250308, -2.3250308], rtol=1e-5)


def test_grouped_query_attention_fully_masked_row():
    _, q, rng = _mha()
    g = layers.GroupQueryAttention(head_dim=2, num_query_heads=2, num_key_value_heads=1)
    g(q, q)
    for w in sorted(g.weights, key=lambda w: w.path):
        w.assign(rng.normal(size=tuple(w.shape)).astype("float32"))
    out = g(q, q, attention_mask=tf.constant(_ROW_MASK)).numpy()[0, :, 0]
    # oracle: the same sequence of draws -> [-3.090634, -3.3645277, -3.3645277]
    np.testing.assert_allclose(out, [-3.090634, -3.3645277, -3.3645277], rtol=1e-5)


def test_padded_encoder_in_a_model_matches_keras():
    # A TransformerEncoder-style layer over Embedding(mask_zero=True): the padded query rows.
    class Enc(layers.Layer):
        def __init__(self):
            super().__init__()
            self.att = layers.MultiHeadAttention(num_heads=1, key_dim=4)
            self.supports_masking = True

        def call(self, inputs, mask=None):
            return self.att(inputs, inputs)

    inp = keras.Input((None,), dtype="int32")
    model = keras.Model(inp, Enc()(layers.Embedding(10, 4, mask_zero=True)(inp)))
    rng = np.random.default_rng(0)
    for w in sorted(model.weights, key=lambda w: w.path):
        w.assign(rng.normal(size=tuple(w.shape)).astype("float32"))
    out = model(np.array([[1, 2, 0, 0], [3, 0, 0, 0]], "int32")).numpy()
    # oracle: the same model -> [2.74571, 0.82693, 0.82693, 0.82693]
    np.testing.assert_allclose(out[1, :, 0], [2.74571, 0.82693, 0.82693, 0.82693], atol=1e-4)


# -- Keras 3 gives `mask` only to a call with a single tensor argument ---------------------------


class _Record(layers.Layer):
    def __init__(self):
        super().__init__()
        self.supports_masking = True
        self.seen = []

    def call(self, inputs, other=None, mask=None):
        self.seen.append(mask is not None)
        return inputs


@pytest.mark.parametrize("kwargs", [{}, {"training": False}])
def test_mask_filled_only_for_one_tensor_argument(kwargs):
    emb = layers.Embedding(10, 4, mask_zero=True)
    x = tf.constant(np.array([[1, 2, 0, 0]], "int32"))
    layer = _Record()
    layer(emb(x), emb(x), **kwargs)  # two tensors: no mask
    layer(emb(x), other=emb(x), **kwargs)  # two tensors by keyword: no mask
    layer(emb(x), [emb(x), None], **kwargs)  # a list of tensors counts as one
    layer(emb(x), **kwargs)  # one tensor: its mask
    layer(emb(x), None, **kwargs)  # None is no tensor
    # oracle: Keras 3's Layer.__call__ on the same calls -> [False, False, False, True, True]
    assert layer.seen == [False, False, False, True, True]


def test_decoder_with_two_tensor_inputs_gets_no_mask_symbolically():
    emb = layers.Embedding(10, 4, mask_zero=True)
    inp = keras.Input((None,), dtype="int32")
    a = emb(inp)
    layer = _Record()
    layer(a, a)
    assert not any(layer.seen)  # oracle: mask None for the symbolic call too


# -- a softmax/sigmoid output given to a cross-entropy with from_logits=True -----------------


def _softmax_dense(x):
    d = layers.Dense(3, activation="softmax")
    d.build((None, 3))
    d.kernel.assign(np.eye(3, dtype="float32"))
    d.bias.assign(np.zeros(3, "float32"))
    return d, d(x)


def test_from_logits_true_on_softmax_output_uses_its_logits():
    # ner_transformers: Dense(activation="softmax") trained with a from_logits=True loss;
    # Keras 3 (TF backend `_get_logits`) takes the softmax's logits and warns.
    x = np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], "float32")
    y = np.array([1, 2])
    _, p = _softmax_dense(x)
    with pytest.warns(UserWarning, match="`sparse_categorical_crossentropy` received"):
        per = keras.losses.sparse_categorical_crossentropy(y, p, from_logits=True)
    # oracle: the same call -> [0.4643688, 0.07077423] (the CE of the logits x)
    np.testing.assert_allclose(per.numpy(), [0.4643688, 0.07077423], rtol=1e-5)
    with pytest.warns(UserWarning, match="`categorical_crossentropy` received"):
        cce = keras.losses.CategoricalCrossentropy(from_logits=True)(np.eye(3)[y], p)
    np.testing.assert_allclose(float(cce), 0.2675715, rtol=1e-5)  # oracle: 0.26757150888


def test_from_logits_true_on_sigmoid_output_and_in_evaluate():
    x = np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], "float32")
    s = layers.Dense(1, activation="sigmoid")
    s.build((None, 3))
    s.kernel.assign(np.ones((3, 1), "float32"))
    s.bias.assign(np.zeros(1, "float32"))
    with pytest.warns(UserWarning, match="produced by a Sigmoid activation"):
        bce = keras.losses.BinaryCrossentropy(from_logits=True)(np.array([[1.0], [0.0]]), s(x))
    np.testing.assert_allclose(float(bce), 1.1226349, rtol=1e-5)  # oracle: 1.1226348877
    d, _ = _softmax_dense(x)
    model = keras.Sequential([keras.Input((3,)), d])
    model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    with pytest.warns(UserWarning):
        loss = model.evaluate(x, np.array([1, 2]), verbose=0)
    np.testing.assert_allclose(loss, 0.2675715, rtol=1e-5)  # oracle: 0.26757150888
