"""`ek.sets`, `ek.edit_distance` and `ek.strings.to_hash_bucket{,_strong}`: TensorFlow's
documented values, dense and sparse operands, the normalize/inf cases, the hashes against
TensorFlow's kernel test values and the SipHash paper's vectors, and the errors."""

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.ops.strings_hash import hash64, siphash24

ST = ek.sparse.SparseTensor


def parts(st):
    return st.indices.numpy().tolist(), st.values.numpy().tolist(), st.dense_shape.numpy().tolist()


# TensorFlow's tf.sets documentation operands: a = [[{1, 2}, {3}], [{4}, {5, 6}]],
# b = [[{1, 2, 3}, {3}], [{4, 5}, {6, 7}]].
def doc_a():
    idx = [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]]
    return ST(idx, [1, 2, 3, 4, 5, 6], [2, 2, 2])


def doc_b():
    idx = [[0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0], [1, 1, 1]]
    return ST(idx, [1, 2, 3, 3, 4, 5, 6, 7], [2, 2, 3])


def test_intersection_doc_example():
    assert parts(ek.sets.intersection(doc_a(), doc_b())) == (
        [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 0]],
        [1, 2, 3, 4, 6],
        [2, 2, 2],
    )


def test_union_doc_example():
    assert parts(ek.sets.set_union(doc_a(), doc_b())) == (
        [
            [0, 0, 0],
            [0, 0, 1],
            [0, 0, 2],
            [0, 1, 0],
            [1, 0, 0],
            [1, 0, 1],
            [1, 1, 0],
            [1, 1, 1],
            [1, 1, 2],
        ],
        [1, 2, 3, 3, 4, 5, 5, 6, 7],
        [2, 2, 3],
    )


def test_difference_both_directions():
    a = ST([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]], [1, 2, 3, 4, 5, 6],
           [2, 2, 2])  # fmt: skip
    b_idx = [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0], [1, 1, 1],
             [1, 1, 2], [1, 1, 3]]  # fmt: skip
    b = ST(b_idx, [1, 3, 2, 4, 5, 5, 6, 7, 8], [2, 2, 4])
    assert parts(ek.sets.difference(a, b)) == ([[0, 0, 0], [0, 1, 0]], [2, 3], [2, 2, 1])
    assert parts(ek.sets.set_difference(a, b, aminusb=False)) == (
        [[0, 0, 0], [0, 1, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]],
        [3, 2, 5, 7, 8],
        [2, 2, 2],
    )


def test_dense_dense_duplicates_count_once_and_values_sorted():
    a = ek.constant([[3, 1, 3], [2, 2, 2]], dtype=ek.int64)
    b = ek.constant([[1, 3, 9], [5, 5, 5]], dtype=ek.int64)
    res = ek.sets.intersection(a, b)
    assert parts(res) == ([[0, 0], [0, 1]], [1, 3], [2, 2])
    assert res.dtype == ek.int64
    assert parts(ek.sets.union(a, b)) == (
        [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]],
        [1, 3, 9, 2, 5],
        [2, 3],
    )


def test_dense_sparse_in_either_order():
    dense = ek.constant([[1, 2], [3, 4]])
    sparse = ST([[0, 0], [1, 0], [1, 1]], [2, 4, 7], [2, 2])
    assert parts(ek.sets.intersection(dense, sparse)) == ([[0, 0], [1, 0]], [2, 4], [2, 1])
    assert parts(ek.sets.intersection(sparse, dense)) == ([[0, 0], [1, 0]], [2, 4], [2, 1])
    assert parts(ek.sets.difference(sparse, dense)) == ([[1, 0]], [7], [2, 1])
    assert parts(ek.sets.difference(dense, sparse)) == ([[0, 0], [1, 0]], [1, 3], [2, 1])


def test_strings_sparse_and_dense():
    a = ek.constant([["b", "a", "c"], ["x", "y", "x"]])
    b = ST([[0, 0], [0, 1], [1, 0]], ["c", "a", "z"], [2, 2])
    res = ek.sets.intersection(a, b)
    assert res.dtype == ek.string
    assert parts(res) == ([[0, 0], [0, 1]], [b"a", b"c"], [2, 2])
    assert ek.sets.size(ek.sets.union(a, b)).numpy().tolist() == [3, 3]


def test_empty_result_has_zero_width():
    res = ek.sets.intersection(ek.constant([[1, 2]]), ek.constant([[3, 4]]))
    assert parts(res) == ([], [], [1, 0])
    assert res.dtype == ek.int32


def test_size_counts_distinct_values_per_group():
    a = ST([[0, 0, 0], [0, 0, 1], [1, 1, 0], [1, 1, 2]], [4, 4, 1, 2], [2, 2, 3])
    out = ek.sets.set_size(a)
    assert out.dtype == ek.int32
    np.testing.assert_array_equal(out.numpy(), [[1, 0], [0, 2]])
    assert ek.sets.size(doc_b()).numpy().tolist() == [[3, 1], [2, 2]]


def test_set_errors():
    with pytest.raises(TypeError, match=r"set_intersection: a has invalid dtype float32"):
        ek.sets.intersection(ek.constant([[1.0]]), ek.constant([[1.0]]))
    with pytest.raises(TypeError, match=r"set_union: a and b must have the same dtype"):
        ek.sets.union(ek.constant([[1]]), ek.constant([[1]], dtype=ek.int64))
    with pytest.raises(ValueError, match=r"set_difference: a must have rank >= 2"):
        ek.sets.difference(ek.constant([1, 2]), ek.constant([[1]]))
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"group shapes \[2\] and \[3\]"):
        ek.sets.intersection(ek.constant([[1], [2]]), ek.constant([[1], [2], [3]]))
    with pytest.raises(TypeError, match=r"set_size: a must be a SparseTensor"):
        ek.sets.size(ek.constant([[1, 2]]))


def test_validate_indices():
    unordered = ST([[1, 0], [0, 0]], [1, 2], [2, 1])
    with pytest.raises(ek.errors.InvalidArgumentError, match="row-major order"):
        ek.sets.size(unordered)
    assert ek.sets.size(unordered, validate_indices=False).numpy().tolist() == [1, 1]
    out_of_bounds = ST([[0, 5]], [1], [1, 2])
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"\[0, 5\] is out of bounds"):
        ek.sets.intersection(out_of_bounds, out_of_bounds)


# -- edit_distance ------------------------------------------------------------------------------


def doc_hyp_truth():
    hyp = ST([[0, 0, 0], [1, 0, 0]], ["a", "b"], (2, 1, 1))
    truth = ST([[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0]], ["a", "b", "c", "a"], (2, 2, 2))
    return hyp, truth


def test_edit_distance_doc_example_normalized():
    out = ek.edit_distance(*doc_hyp_truth())
    assert out.dtype == ek.float32 and out.shape == (2, 2)
    np.testing.assert_array_equal(out.numpy(), [[np.inf, 1.0], [0.5, 1.0]])


def test_edit_distance_unnormalized():
    out = ek.edit_distance(*doc_hyp_truth(), normalize=False)
    np.testing.assert_array_equal(out.numpy(), [[1.0, 1.0], [1.0, 1.0]])


def test_edit_distance_ints_levenshtein_and_order_of_indices():
    # kitten -> sitting: 3; the hypothesis indices are given out of order.
    k = [ord(c) for c in "kitten"]
    s = [ord(c) for c in "sitting"]
    order = [5, 0, 3, 1, 4, 2]
    hyp = ST([[0, i] for i in order], [k[i] for i in order], [1, 6])
    truth = ST([[0, i] for i in range(7)], s, [1, 7])
    assert ek.edit_distance(hyp, truth, normalize=False).numpy().tolist() == [3.0]
    np.testing.assert_allclose(ek.edit_distance(hyp, truth).numpy(), [3 / 7])


def test_edit_distance_both_empty_is_zero():
    empty = ST(np.zeros((0, 2), np.int64), np.zeros(0, np.int32), [3, 0])
    out = ek.edit_distance(empty, empty)
    np.testing.assert_array_equal(out.numpy(), [0.0, 0.0, 0.0])


def test_edit_distance_errors():
    hyp, truth = doc_hyp_truth()
    with pytest.raises(TypeError, match="edit_distance: hypothesis must be a SparseTensor"):
        ek.edit_distance(ek.constant([["a"]]), truth)
    with pytest.raises(TypeError, match=r"same dtype\. Received: string and int32"):
        ek.edit_distance(hyp, ST([[0, 0, 0]], [1], [1, 1, 1]))
    with pytest.raises(
        ek.errors.InvalidArgumentError, match=r"same rank\. Received: ranks 3 and 2"
    ):
        ek.edit_distance(hyp, ST([[0, 0]], ["a"], [1, 1]))


# -- hash buckets -------------------------------------------------------------------------------


def test_siphash_reference_vectors():
    # The SipHash paper's Appendix A: key 00..0f, messages 00, 00 01, ..., 00..0e (15 bytes).
    k0, k1 = 0x0706050403020100, 0x0F0E0D0C0B0A0908
    assert siphash24(k0, k1, bytes(range(15))) == 0xA129CA6149BE45E5
    # First entries of the reference implementation's vectors.h (64-bit output, LE bytes).
    assert siphash24(k0, k1, b"") == int.from_bytes(bytes.fromhex("310e0edd47db6f72"), "little")
    assert siphash24(k0, k1, b"\x00") == int.from_bytes(bytes.fromhex("fd67dc93c539f874"), "little")


def test_hash64_matches_tensorflow_kernel_test():
    # TensorFlow's string_to_hash_bucket_op_test.py: Hash64('a'), ('b'), ('c').
    assert [hash64(s) for s in (b"a", b"b", b"c")] == [
        2996632905371535868,
        5795986006276551370,
        14899841994519054197,
    ]
    out = ek.strings.to_hash_bucket(ek.constant(["a", "b", "c"]), 10)
    assert out.dtype == ek.int64
    assert out.numpy().tolist() == [8, 0, 7]
    assert ek.strings.to_hash_bucket(ek.constant(["a", "b", "c"]), 1).numpy().tolist() == [0] * 3


def test_strong_matches_tensorflow_kernel_test_and_docs():
    x = ek.constant(["a", "b", "c"])
    assert ek.strings.to_hash_bucket_strong(x, 10, [98765, 132]).numpy().tolist() == [4, 2, 8]
    assert ek.strings.to_hash_bucket_strong(x, 1, [123, 345]).numpy().tolist() == [0, 0, 0]
    out = ek.strings.to_hash_bucket_strong(ek.constant(["Hello", "TF"]), 3, [1, 2])
    assert out.numpy().tolist() == [2, 0]


def test_buckets_in_range_deterministic_shape_and_ragged():
    words = ek.constant([[f"word{i}" * (i % 5 + 1) for i in range(20)]] * 2)
    for fn in (
        lambda x: ek.strings.to_hash_bucket(x, 7),
        lambda x: ek.strings.to_hash_bucket_strong(x, 7, [2**63 + 5, 11]),
    ):
        out = fn(words).numpy()
        assert out.shape == (2, 20) and out.dtype == np.int64
        assert out.min() >= 0 and out.max() < 7
        np.testing.assert_array_equal(out, fn(words).numpy())
        np.testing.assert_array_equal(out[0], out[1])
    rt = ek.ragged.constant([["a", "b"], ["c"]])
    assert ek.strings.to_hash_bucket(rt, 10).to_list() == [[8, 0], [7]]


def test_hash_bucket_errors():
    x = ek.constant(["a"])
    with pytest.raises(ValueError, match="to_hash_bucket: num_buckets must be >= 1"):
        ek.strings.to_hash_bucket(x, 0)
    with pytest.raises(ValueError, match="to_hash_bucket_strong: num_buckets must be >= 1"):
        ek.strings.to_hash_bucket_strong(x, -1, [1, 2])
    with pytest.raises(ek.errors.InvalidArgumentError, match="Key must have 2 elements"):
        ek.strings.to_hash_bucket_strong(x, 10, [98765])
    with pytest.raises(TypeError, match="to_hash_bucket: input must be a string tensor"):
        ek.strings.to_hash_bucket(ek.constant([1]), 10)
