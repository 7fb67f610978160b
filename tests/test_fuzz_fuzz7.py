"""Keras layer divergences found by the fuzz7 differential fuzzer (Keras 3.15 on TensorFlow
as the oracle). Expected values were computed with that oracle and hard-coded here."""

import numpy as np

from eagerkernel import keras

L = keras.layers


def test_string_lookup_encoded_modes_drop_the_mask_token():
    # Oracle: Keras 3.15 StringLookup; the mask token has no slot outside output_mode="int".
    s = L.StringLookup(
        vocabulary=["dog", "a", "cat", "c"], mask_token="[MASK]", output_mode="one_hot"
    )
    out = s(np.array([["[MASK]"], ["zz"], ["a"]]))
    np.testing.assert_array_equal(
        np.asarray(out), [[0, 0, 0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 1, 0, 0]]
    )
    assert s.vocabulary_size() == 5
    assert s.get_vocabulary() == ["[UNK]", "dog", "a", "cat", "c"]
    assert s.compute_output_shape((3, 1)) == (3, 5)


def test_integer_lookup_multi_hot_with_mask_token():
    # Oracle: Keras 3.15 IntegerLookup.
    i = L.IntegerLookup(vocabulary=[2], mask_token=0, output_mode="multi_hot")
    np.testing.assert_array_equal(np.asarray(i(np.array([[0, 2, 5], [2, 2, 0]]))), [[1, 1], [0, 1]])
    assert i.vocabulary_size() == 2
    assert i.get_vocabulary() == [-1, 2]


def test_integer_lookup_int_mode_keeps_the_mask_index():
    # Oracle: Keras 3.15 IntegerLookup (output_mode="int" is unchanged by the fix above).
    i = L.IntegerLookup(vocabulary=[2, 7], mask_token=0, output_mode="int")
    np.testing.assert_array_equal(np.asarray(i(np.array([[0, 2, 5]]))), [[0, 2, 1]])
    assert i.vocabulary_size() == 4
    assert i.get_vocabulary() == [0, -1, 2, 7]


def test_category_encoding_one_hot_of_a_wide_input_encodes_each_element():
    # Oracle: Keras 3.15 CategoryEncoding gives (1, 2, 4) for a (1, 2) input.
    c = L.CategoryEncoding(num_tokens=4, output_mode="one_hot")
    out = c(np.array([[0, 3]]))
    np.testing.assert_array_equal(np.asarray(out), [[[1, 0, 0, 0], [0, 0, 0, 1]]])
    assert c.compute_output_shape((1,)) == (1, 4)
    assert c.compute_output_shape((2, 3)) == (2, 3, 4)


def test_discretization_and_hashing_compute_output_shape():
    # Oracle: Keras 3.15.
    assert L.Discretization(bin_boundaries=[0.0, 1.0], output_mode="count").compute_output_shape(
        (2, 4)
    ) == (2, 3)
    assert L.Discretization(bin_boundaries=[0.0], output_mode="one_hot").compute_output_shape(
        (3,)
    ) == (3, 2)
    assert L.Discretization(num_bins=4).compute_output_shape((2, 3)) == (2, 3)
    assert L.Hashing(num_bins=5, output_mode="one_hot").compute_output_shape((2, 1)) == (2, 5)
    assert L.Hashing(num_bins=3).compute_output_shape((2, 3)) == (2, 3)
    assert L.Hashing(num_bins=8, output_mode="multi_hot").compute_output_shape((2, 3)) == (2, 8)


def test_normalization_adapt_leaves_count_at_zero():
    # Oracle: Keras 3.15 Normalization.get_weights() after adapt: [mean, variance, 0].
    n = L.Normalization()
    n.adapt(np.array([[1.0], [2.0], [4.0]], "float32"))
    mean, var, count = n.get_weights()
    np.testing.assert_allclose(mean, [2.3333333], rtol=1e-6)
    np.testing.assert_allclose(var, [1.5555556], rtol=1e-6)
    assert int(count) == 0


def test_einsum_dense_compute_output_shape_keeps_none_entries():
    # Oracle: Keras 3.15 gives (2, None, 6): the None of `output_shape` stays None.
    layer = L.EinsumDense("abc,cd->abd", output_shape=(None, 6), bias_axes="d")
    assert layer.compute_output_shape((2, 3, 4)) == (2, None, 6)
    assert tuple(layer(np.zeros((2, 3, 4), "float32")).shape) == (2, 3, 6)
    assert tuple(layer.kernel.shape) == (4, 6)
