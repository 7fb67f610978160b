"""`Hashing` (with salt), `HashedCrossing`, `ek.sparse.cross` and `cross_hashed`, and the
lookup layers' Keras 3 behaviour. Every expected value was checked against TensorFlow 2.21
(and its Keras 3) on the same call."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel import errors

L = ek.keras.layers
farmhash = pytest.importorskip("farmhash")


def _sparse_example():
    return ek.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], ["x", "y", "z"], [2, 2])


def test_sparse_cross_orders_sparse_inputs_first_and_the_last_input_fastest():
    dense = ek.constant([["a", "b"], ["c", "d"]])
    st = ek.sparse.cross([dense, _sparse_example()])
    assert ek.sparse.to_dense(st).numpy().tolist() == [
        [b"x_X_a", b"x_X_b", b"y_X_a", b"y_X_b"],
        [b"z_X_c", b"z_X_d", b"", b""],
    ]
    assert st.indices.numpy().tolist() == [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1]]
    numbers = ek.sparse.cross([ek.constant([[1, 2]]), ek.constant([["q"]])], separator="#")
    assert numbers.values.numpy().tolist() == [b"1#q", b"2#q"]
    floats = ek.sparse.cross([ek.constant([[1.0]]), ek.constant([["a"]])])  # cast to int64
    assert floats.values.numpy().tolist() == [b"1_X_a"]
    empty_row = ek.sparse.SparseTensor(
        np.zeros((0, 2), np.int64), ek.constant([], ek.string), [2, 2]
    )
    assert ek.sparse.cross([empty_row, ek.constant([["a"], ["b"]])]).values.shape == (0,)
    assert tuple(ek.sparse.cross([]).dense_shape.numpy()) == (0, 0)


def test_cross_hashed_gives_tensorflows_buckets():
    dense = ek.constant([["a", "b"], ["c", "d"]])
    got = ek.sparse.to_dense(ek.sparse.cross_hashed([dense, _sparse_example()], num_buckets=100))
    assert got.numpy().tolist() == [[37, 47, 61, 90], [2, 98, 0, 0]]
    pair = [ek.constant([["a"], ["b"]]), ek.constant([[1], [2]])]
    assert ek.sparse.cross_hashed(pair, 5).values.numpy().tolist() == [0, 2]
    assert ek.sparse.cross_hashed(pair).values.numpy().tolist() == [
        2928842892298887678,
        85918459618309357,
    ]
    assert ek.sparse.cross_hashed(pair, 1000, hash_key=7).values.numpy().tolist() == [477, 793]
    ints = [ek.constant([[1], [2]]), ek.constant([[3], [4]])]
    assert ek.sparse.cross_hashed(ints, 1000).values.numpy().tolist() == [651, 547]


def test_cross_errors():
    with pytest.raises(errors.InvalidArgumentError, match="Expected batch size 1 got 2"):
        ek.sparse.cross([ek.constant([["a"]]), ek.constant([["b"], ["c"]])])
    with pytest.raises(errors.InvalidArgumentError, match=r"should be a matrix.*\[1\]"):
        ek.sparse.cross([ek.constant(["a"])])
    with pytest.raises(ValueError, match="num_buckets must be >= 0"):
        ek.sparse.cross_hashed([ek.constant([["a"]])], -1)
    with pytest.raises(TypeError, match="inputs must be a list"):
        ek.sparse.cross(ek.constant([["a"]]))


def test_hashed_crossing():
    layer = L.HashedCrossing(num_bins=5)
    a, n = ek.constant(["a", "b"]), ek.constant([1, 2])
    got = layer((a, n))
    assert got.dtype == ek.int64 and got.numpy().tolist() == [0, 2]
    assert layer((ek.constant([["a"], ["b"]]), ek.constant([[1], [2]]))).numpy().tolist() == [
        [0],
        [2],
    ]
    assert int(layer((ek.constant("a"), ek.constant(1)))) == 0
    assert layer((a, n, ek.constant(["x", "y"]))).numpy().tolist() == [2, 4]
    one_hot = L.HashedCrossing(num_bins=5, output_mode="one_hot")((a, n))
    assert one_hot.dtype == ek.float32
    np.testing.assert_array_equal(one_hot.numpy(), np.eye(5, dtype=np.float32)[[0, 2]])
    assert layer.get_config()["num_bins"] == 5 and layer.get_config()["output_mode"] == "int"
    with pytest.raises(ValueError, match="at least two inputs"):
        layer((a,))
    with pytest.raises(ValueError, match=r"shape `\(\)`, `\(batch_size\)` or `\(batch_size, 1\)`"):
        layer((ek.constant([["a", "b"]]), ek.constant([[1, 2]])))
    with pytest.raises(ValueError, match="equal shape"):
        layer((a, ek.constant([1])))
    with pytest.raises(ValueError, match="integer or string dtype"):
        layer((ek.constant([1.0]), ek.constant([1])))
    with pytest.raises(ValueError, match=r"Allowed values are: \('int', 'one_hot'\)"):
        L.HashedCrossing(num_bins=5, output_mode="multi_hot")


def test_hashing_with_salt_is_keyed_siphash():
    words = ek.constant(["a", "b", "c"])
    assert L.Hashing(num_bins=3, salt=133)(words).numpy().tolist() == [0, 2, 2]
    assert L.Hashing(num_bins=3, salt=[133, 137])(words).numpy().tolist() == [2, 1, 0]
    assert L.Hashing(num_bins=3, salt=133, mask_value="b")(words).numpy().tolist() == [2, 0, 2]
    assert L.Hashing(num_bins=3, salt=133)(ek.constant([1, 2, 3])).numpy().tolist() == [2, 0, 1]
    assert L.Hashing(num_bins=3, salt=133).get_config()["salt"] == [133, 133]
    with pytest.raises(ValueError, match="`salt` argument for `Hashing` can only be"):
        L.Hashing(num_bins=3, salt="x")


def test_lookup_vectors_are_int64_as_keras_3_gives_them():
    lookup = L.StringLookup(vocabulary=["a", "b"], output_mode="one_hot")
    got = lookup(ek.constant(["a", "c"]))
    assert got.dtype == ek.int64 and got.numpy().tolist() == [[0, 1, 0], [1, 0, 0]]
    text = L.TextVectorization(output_mode="multi_hot")
    text.adapt(["the cat sat", "the dog"])
    got = text(["the bird sat"])
    assert got.dtype == ek.int64 and got.numpy().tolist() == [[1, 1, 1, 0, 0]]
    tf_idf = L.TextVectorization(output_mode="tf_idf")
    tf_idf.adapt(["the cat sat", "the dog the"])
    got = tf_idf(["the the bird sat"])
    assert got.dtype == ek.float32
    np.testing.assert_allclose(got.numpy(), [[0.6475668, 1.0216513, 0.6931472, 0.0, 0.0]], 1e-6)
    with pytest.raises(ValueError, match="If pad_to_max_tokens is True, must set `max_tokens`"):
        L.TextVectorization(vocabulary=["x"], pad_to_max_tokens=True)


def test_adapted_vocabulary_breaks_ties_by_decreasing_token():
    text = L.TextVectorization(ngrams=2)
    text.adapt(["the cat sat", "the dog"])
    assert text.get_vocabulary() == [
        "", "[UNK]", "the", "the dog", "the cat", "sat", "dog", "cat sat", "cat",
    ]  # fmt: skip
    ints = L.IntegerLookup()
    ints.adapt(ek.constant([3, 9, 3, 9, 1]))
    assert ints.get_vocabulary() == [-1, 9, 3, 1]


def test_discretization_adapt_errors_with_given_boundaries():
    with pytest.raises(ValueError, match="initialized with `bin_boundaries`"):
        L.Discretization(bin_boundaries=[0.0]).adapt(np.arange(4.0))
    disc = L.Discretization(num_bins=2)
    disc.adapt(ek.constant([[0.0], [1.0], [2.0], [3.0]]))
    assert disc.bin_boundaries == [1.0]
