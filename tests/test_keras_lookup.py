"""Keras's lookup and text preprocessing layers (keras/layers/lookup.py), against Keras 3's
documented behaviour: index layout (mask, OOV, vocabulary), adapt's frequency order, output
modes, invert, TextVectorization's standardize/split/ngrams/padding, and their use in a model."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

L = ek.keras.layers


def test_string_lookup_index_layout_oov_and_mask():
    layer = L.StringLookup(vocabulary=["a", "b", "c"])
    np.testing.assert_array_equal(
        layer(ek.constant([["a", "c"], ["d", "b"]])).numpy(), [[1, 3], [0, 2]]
    )
    assert layer.get_vocabulary() == ["[UNK]", "a", "b", "c"] and layer.vocabulary_size() == 4
    masked = L.StringLookup(vocabulary=["a", "b"], mask_token="", num_oov_indices=2)
    assert masked.get_vocabulary() == ["", "[UNK]", "[UNK]", "a", "b"]
    out = masked(ek.constant(["", "a", "b"])).numpy()
    np.testing.assert_array_equal(out, [0, 3, 4])
    inverse = L.StringLookup(vocabulary=["a", "b", "c"], invert=True)
    assert inverse(ek.constant([[1, 3], [0, 9]])).numpy().tolist() == [
        [b"a", b"c"],
        [b"[UNK]", b"[UNK]"],
    ]


def test_string_lookup_adapt_orders_by_frequency_then_first_appearance():
    layer = L.StringLookup(max_tokens=4)
    layer.adapt(np.array(["c", "b", "a", "b", "c", "d", "c", "a", "e"]))
    # c x3, b x2, a x2 (b first), then d, e cut by max_tokens=4 (with [UNK])
    assert layer.get_vocabulary() == ["[UNK]", "c", "b", "a"]
    ds = ek.data.Dataset.from_tensor_slices(["x", "y", "y"]).batch(2)
    layer2 = L.StringLookup()
    layer2.adapt(ds)
    assert layer2.get_vocabulary() == ["[UNK]", "y", "x"]


def test_string_lookup_vector_output_modes():
    vocab = ["a", "b", "c"]
    x = ek.constant([["a", "b", "b"], ["c", "z", "z"]])
    np.testing.assert_array_equal(
        L.StringLookup(vocabulary=vocab, output_mode="multi_hot")(x).numpy(),
        [[0, 1, 1, 0], [2 > 1, 0, 0, 1]],
    )
    np.testing.assert_array_equal(
        L.StringLookup(vocabulary=vocab, output_mode="count")(x).numpy(),
        [[0, 1, 2, 0], [2, 0, 0, 1]],
    )
    one_hot = L.StringLookup(vocabulary=vocab, output_mode="one_hot")(ek.constant(["b", "q"]))
    np.testing.assert_array_equal(one_hot.numpy(), [[0, 0, 1, 0], [1, 0, 0, 0]])
    tfidf = L.StringLookup(vocabulary=vocab, output_mode="tf_idf", idf_weights=[1.0, 2.0, 4.0])
    np.testing.assert_allclose(tfidf(x).numpy(), [[0, 1, 4, 0], [2 * 7 / 3, 0, 0, 4]], rtol=1e-6)
    padded = L.StringLookup(
        vocabulary=vocab, output_mode="multi_hot", max_tokens=6, pad_to_max_tokens=True
    )
    assert padded(x).shape == (2, 6)


def test_lookup_errors_name_the_argument():
    with pytest.raises(ValueError, match="output_mode must be one of"):
        L.StringLookup(output_mode="binary_hot")  # "binary" is multi_hot (Keras 2)
    with pytest.raises(ValueError, match="holds 'a' more than once"):
        L.StringLookup(vocabulary=["a", "a"])
    with pytest.raises(ValueError, match="reserved token"):  # the OOV token: only inverting
        L.StringLookup(vocabulary=["[UNK]", "b"], num_oov_indices=2, invert=True)
    with pytest.raises(ValueError, match="invert=True needs output_mode='int'"):
        L.StringLookup(invert=True, output_mode="count")
    with pytest.raises(ValueError, match="not in the vocabulary and num_oov_indices=0"):
        L.StringLookup(vocabulary=["a"], num_oov_indices=0)(ek.constant(["b"]))
    with pytest.raises(NotImplementedError, match="sparse=True"):
        L.StringLookup(sparse=True)


def test_integer_lookup_and_its_oov_buckets():
    layer = L.IntegerLookup(vocabulary=[12, 36, 1138, 42])
    np.testing.assert_array_equal(
        layer(ek.constant([[12, 1138, 42], [42, 1000, 36]])).numpy(), [[1, 3, 4], [4, 0, 2]]
    )
    assert layer.get_vocabulary() == [-1, 12, 36, 1138, 42]
    two = L.IntegerLookup(vocabulary=[5], num_oov_indices=2)
    np.testing.assert_array_equal(two(ek.constant([7, 8, 5])).numpy(), [1, 0, 2])  # 7%2, 8%2
    inverse = L.IntegerLookup(vocabulary=[12, 36], invert=True)
    np.testing.assert_array_equal(inverse(ek.constant([2, 0])).numpy(), [36, -1])


def test_text_vectorization_standardize_split_and_padding():
    layer = L.TextVectorization(output_sequence_length=4)
    layer.adapt(["The cat sat.", "the dog sat", "A cat!"])
    # Keras 3's order: by count, ties by decreasing token (TensorFlow 2.21 gives this list).
    assert layer.get_vocabulary() == ["", "[UNK]", "the", "sat", "cat", "dog", "a"]
    np.testing.assert_array_equal(
        layer(ek.constant(["the bird sat", "a cat sat on the mat"])).numpy(),
        [[2, 1, 3, 0], [6, 4, 3, 1]],
    )
    grams = L.TextVectorization(ngrams=2, standardize="lower", split="whitespace")
    grams.adapt(["x y", "x y"])
    assert grams.get_vocabulary() == ["", "[UNK]", "y", "x y", "x"]
    chars = L.TextVectorization(split="character", standardize=None)
    chars.adapt(["abca"])
    assert chars.get_vocabulary()[:3] == ["", "[UNK]", "a"]
    unpadded = L.TextVectorization(vocabulary=["a", "b"])
    assert unpadded(ek.constant(["a b a", "b"])).numpy().tolist() == [[2, 3, 2], [3, 0, 0]]
    ragged = L.TextVectorization(vocabulary=["a", "b"], ragged=True)(ek.constant(["a b a", "b"]))
    assert ragged.to_list() == [[2, 3, 2], [3]]
    hot = L.TextVectorization(vocabulary=["a", "b"], output_mode="multi_hot")
    np.testing.assert_array_equal(hot(ek.constant(["a a", "c"])).numpy(), [[0, 1, 0], [1, 0, 0]])
    with pytest.raises(ValueError, match="output_sequence_length needs output_mode='int'"):
        L.TextVectorization(output_mode="count", output_sequence_length=3)


def test_text_classification_model_with_text_vectorization_trains_and_saves(tmp_path):
    texts = np.array(["good movie", "great film", "bad movie", "awful film"] * 4)
    labels = np.array([1, 1, 0, 0] * 4, np.float32)
    vectorize = L.TextVectorization(max_tokens=20, output_sequence_length=3)
    vectorize.adapt(texts)
    ek.random.set_seed(0)
    model = ek.keras.Sequential(
        [
            vectorize,
            L.Embedding(20, 8),
            L.GlobalAveragePooling1D(),
            L.Dense(1, activation="sigmoid"),
        ]
    )
    model.compile(optimizer=ek.keras.optimizers.Adam(0.05), loss="binary_crossentropy")
    history = model.fit(ek.constant(texts), labels, epochs=30, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < 0.2 * history.history["loss"][0]
    path = str(tmp_path / "text.keras")
    model.save(path)
    loaded = ek.keras.models.load_model(path)
    assert loaded.layers[0].get_vocabulary() == vectorize.get_vocabulary()
    np.testing.assert_allclose(
        loaded.predict(ek.constant(texts[:4]), verbose=0),
        model.predict(ek.constant(texts[:4]), verbose=0),
        rtol=1e-6,
    )


def test_category_encoding_discretization_and_hashing():
    enc = L.CategoryEncoding(num_tokens=4, output_mode="count")
    np.testing.assert_array_equal(
        enc(ek.constant([[0, 1, 1], [3, 3, 0]])).numpy(), [[1, 2, 0, 0], [1, 0, 0, 2]]
    )
    np.testing.assert_array_equal(
        enc(ek.constant([[0, 1]]), count_weights=ek.constant([[0.5, 2.0]])).numpy(),
        [[0.5, 2.0, 0.0, 0.0]],
    )
    # TF 2.21's Keras drops ids past num_tokens (bincount's maxlength); negative ones raise
    np.testing.assert_array_equal(enc(ek.constant([[0, 4]])).numpy(), [[1, 0, 0, 0]])
    with pytest.raises(ValueError, match="must be non-negative"):
        enc(ek.constant([[-1]]))
    disc = L.Discretization(num_bins=4)
    disc.adapt(np.arange(100.0))
    # Keras 3's approximate quantiles (epsilon 0.01), checked against TensorFlow 2.21's Keras:
    # close to the exact ones, not equal to them.
    np.testing.assert_allclose(disc.bin_boundaries, [23.999983, 48.999981, 73.999985], rtol=1e-6)
    np.testing.assert_allclose(disc.bin_boundaries, [24.75, 49.5, 74.25], atol=1.0)
    np.testing.assert_array_equal(disc(ek.constant([0.0, 30.0, 99.0])).numpy(), [0, 1, 3])
    pytest.importorskip("farmhash")
    hashed = L.Hashing(num_bins=3, mask_value="")(ek.constant(["A", "", "C"])).numpy()
    assert hashed[1] == 0 and all(1 <= h < 3 for h in hashed[[0, 2]])
    np.testing.assert_array_equal(
        L.Hashing(num_bins=1024)(ek.constant(["Who"])).numpy(),
        ek.strings.to_hash_bucket_fast(ek.constant(["Who"]), 1024).numpy(),
    )
