"""keras-io examples (kmix2 helper): NLP, structured-data and distillation recipes.

Expected values were computed with TensorFlow 2.21 / Keras 3.15 (`/tmp/tfvenv`), running the
same calls through `tensorflow.keras.preprocessing.text` (script /tmp/probe/kmix2/tok_oracle.py).
"""

import numpy as np
import pytest

import eagerkernel as tf
from eagerkernel import keras

TEXTS = ["The cat sat on the mat.", "The dog ate my homework!", "cat and dog"]


def test_tokenizer_is_exported_where_tf_keras_has_it():
    # imdb_lstm_sentiment: `from tensorflow.keras.preprocessing.text import Tokenizer`.
    from eagerkernel.keras.preprocessing.text import Tokenizer, tokenizer_from_json

    assert tf.keras.preprocessing.text.Tokenizer is Tokenizer
    assert keras.preprocessing.text.tokenizer_from_json is tokenizer_from_json


def test_tokenizer_index_counts_and_sequences_match_keras():
    from eagerkernel.keras.preprocessing.text import Tokenizer

    t = Tokenizer(num_words=5, oov_token="<OOV>")
    t.fit_on_texts(TEXTS)
    # oracle: oov first, then by decreasing count, ties in first-seen order
    assert t.word_index == {
        "<OOV>": 1, "the": 2, "cat": 3, "dog": 4, "sat": 5, "on": 6, "mat": 7, "ate": 8,
        "my": 9, "homework": 10, "and": 11,
    }  # fmt: skip
    assert dict(t.word_counts)["the"] == 3 and t.document_count == 3
    assert dict(sorted(t.index_docs.items()))[2] == 2
    assert t.texts_to_sequences(["the cat ate a zebra", "Dog!"]) == [[2, 3, 1, 1, 1], [4]]
    assert t.sequences_to_texts([[1, 2, 3, 4, 7, 99]]) == ["<OOV> the cat dog <OOV> <OOV>"]
    plain = Tokenizer()
    plain.fit_on_texts(TEXTS)
    assert plain.texts_to_sequences(["the zebra cat"]) == [[1, 2]]  # unknown words dropped
    assert plain.sequences_to_matrix([[1, 1, 2]], mode="count").shape == (1, 11)


@pytest.mark.parametrize(
    "mode,row",
    [
        ("binary", [0.0, 1.0, 1.0, 1.0, 0.0]),
        ("count", [0.0, 1.0, 2.0, 1.0, 0.0]),
        ("freq", [0.0, 0.25, 0.5, 0.25, 0.0]),
        ("tfidf", [0.0, 1.386294, 1.1736, 0.693147, 0.0]),  # oracle, rounded to 6 places
    ],
)
def test_tokenizer_texts_to_matrix_modes(mode, row):
    from eagerkernel.keras.preprocessing.text import Tokenizer

    t = Tokenizer(num_words=5, oov_token="<OOV>")
    t.fit_on_texts(TEXTS)
    m = t.texts_to_matrix(["the cat the zebra"], mode=mode)
    assert m.dtype == np.float64
    np.testing.assert_allclose(m, [row], atol=1e-6)


def test_tokenizer_json_round_trip_char_level_and_helpers():
    from eagerkernel.keras.preprocessing.text import (
        Tokenizer,
        hashing_trick,
        text_to_word_sequence,
        tokenizer_from_json,
    )

    t = Tokenizer(num_words=5, oov_token="<OOV>")
    t.fit_on_texts(TEXTS)
    t2 = tokenizer_from_json(t.to_json())
    assert t2.word_index == t.word_index and t2.index_word == t.index_word
    assert t2.texts_to_sequences(["the cat ate a zebra"]) == [[2, 3, 1, 1, 1]]
    assert text_to_word_sequence("Hello, World!  again\tnow") == ["hello", "world", "again", "now"]
    assert hashing_trick("a b a", 7, hash_function="md5") == [2, 2, 2]  # oracle
    tc = Tokenizer(char_level=True)
    tc.fit_on_texts(["abca"])
    assert tc.word_index == {"a": 1, "b": 2, "c": 3}
    assert tc.texts_to_sequences(["cab"]) == [[3, 1, 2]]


def test_tokenizer_errors_match_keras():
    from eagerkernel.keras.preprocessing.text import Tokenizer

    with pytest.raises(TypeError, match="Unrecognized keyword arguments"):
        Tokenizer(foo=1)
    with pytest.raises(ValueError, match="Specify a dimension"):
        Tokenizer().texts_to_matrix(["cat"])
    t = Tokenizer()
    t.fit_on_texts(TEXTS)
    with pytest.raises(ValueError, match="Unknown vectorization mode"):
        t.texts_to_matrix(["cat"], mode="nope")


class _NoArgBuild(keras.layers.Layer):
    """classification_with_grn_and_vsn's VariableSelection: ``def build(self)``."""

    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(2, kernel_initializer="ones")
        self.calls = 0

    def build(self):
        self.calls += 1
        self.built = True

    def call(self, inputs):
        return self.dense(inputs) * 2.0


def test_build_without_shape_argument_is_called_without_one():
    # Keras 3 passes shapes only to the parameters `build` declares; oracle output
    # [[6.0, 6.0]] (3 ones through an all-ones Dense(2), doubled), 1 build call, 2 weights.
    layer = _NoArgBuild()
    out = layer(np.ones((1, 3), "float32"))
    np.testing.assert_allclose(out.numpy(), [[6.0, 6.0]])
    assert layer.calls == 1 and layer.built and len(layer.weights) == 2
    inp = keras.Input((3,))
    sym = _NoArgBuild()
    model = keras.Model(inp, sym(inp))
    assert sym.calls == 1 and tuple(model.output.shape) == (None, 2)
    pred = model.predict(np.ones((2, 3), "float32"), verbose=0)
    np.testing.assert_allclose(pred, [[6.0, 6.0], [6.0, 6.0]])


def test_build_with_only_keyword_arguments_gets_none():
    class KwBuild(keras.layers.Layer):
        def build(self, **kwargs):
            self.got = kwargs

        def call(self, x):
            return x + 1.0

    layer = KwBuild()
    np.testing.assert_allclose(layer(np.zeros((1, 2), "float32")).numpy(), [[1.0, 1.0]])
    assert layer.got == {}  # oracle: Keras calls build() with no shape


def test_mha_called_with_query_value_key_builds_on_symbolic_call():
    # masked_language_modeling: `MultiHeadAttention(...)(query, key, value)` in a functional
    # model. Keras 3 builds it at once: oracle model3 has 10 weights, 304 parameters.
    inp = keras.Input((5, 8))
    mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    out = keras.layers.LayerNormalization()(inp + mha(inp, inp, inp))
    model = keras.Model(inp, out)
    assert mha.built and len(mha.weights) == 8
    assert len(model.weights) == 10 and model.count_params() == 304
    # Keras 3 records the shapes under "shapes_dict" (so does eagerkernel: kfix3)
    assert model.layers[1].get_build_config()["shapes_dict"]["key_shape"] == (None, 5, 8)


def test_weight_paths_of_layers_built_symbolically_keep_keras_paths():
    # oracle (path_rep.py): the paths do not change when the model is first called.
    inp = keras.Input((5, 8))
    att = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4, name="mha")(inp, inp, inp)
    ffn = keras.Sequential(
        [keras.layers.Dense(8, name="d0"), keras.layers.Dense(8, name="d1")], name="ffn"
    )
    out = keras.layers.LayerNormalization(name="ln")(ffn(att) + inp)
    model = keras.Model(inp, out, name="outer")
    before = sorted(w.path for w in model.weights)
    model(np.ones((1, 5, 8), "float32"))
    after = sorted(w.path for w in model.weights)
    assert before == after
    assert [p for p in after if p.startswith("ffn/")] == [
        "ffn/d0/bias", "ffn/d0/kernel", "ffn/d1/bias", "ffn/d1/kernel",
    ]  # fmt: skip
    assert "mha/query/kernel" in after and len(after) == 14
