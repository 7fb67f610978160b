"""ek.nn.safe_embedding_lookup_sparse (TensorFlow 2's signature): pruning of invalid ids and
non-positive weights, empty rows (default_id or zeros), combiners, max_norm, higher-rank and
ragged ids, "div" shards, gradients (TensorFlow's values and finite differences), errors, and
graph functions. Expected literals were checked against TensorFlow 2.21."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients

safe = ek.nn.safe_embedding_lookup_sparse
SparseTensor = ek.sparse.SparseTensor

INDICES = [[0, 0], [0, 1], [1, 0], [3, 0], [3, 1]]
IDS = [1, 3, -1, 2, 4]  # row 1 has only an invalid id, row 2 none
WEIGHTS = [2.0, 0.5, 1.0, -1.0, 3.0]  # id 2 has a negative weight


def params():
    return ek.constant(np.arange(10.0).reshape(5, 2) + 1, ek.float32)  # row i: [2i+1, 2i+2]


def ids(values=IDS, dtype=ek.int64):
    return SparseTensor(INDICES, ek.constant(values, dtype), [4, 2])


def weights(values=WEIGHTS):
    return SparseTensor(INDICES, values, [4, 2])


def test_invalid_ids_are_pruned_and_empty_rows_are_zeros():
    # checked against TF 2.21
    np.testing.assert_array_equal(safe(params(), ids()).numpy(), [[5, 6], [0, 0], [0, 0], [7, 8]])
    np.testing.assert_allclose(
        safe(params(), ids(), weights()).numpy(), [[3.8, 4.8], [0, 0], [0, 0], [9, 10]], rtol=1e-6
    )
    out = safe(params(), ids(), weights(), combiner="sqrtn").numpy()
    np.testing.assert_allclose(
        out, [[4.608177, 5.820855], [0, 0], [0, 0], [9, 10]], rtol=1e-6
    )  # (2 * [3, 4] + 0.5 * [7, 8]) / sqrt(4.25)


def test_the_sum_combiner_keeps_non_positive_weights():
    # checked against TF 2.21: only "mean" and "sqrtn" prune weights <= 0
    out = safe(params(), ids(), weights(), combiner="sum").numpy()
    np.testing.assert_allclose(out, [[9.5, 12], [0, 0], [0, 0], [22, 24]], rtol=1e-6)
    zero = weights([0.0, 0.0, 1.0, 0.0, 0.0])
    np.testing.assert_array_equal(
        safe(params(), ids(), zero, combiner="sum").numpy(), np.zeros((4, 2))
    )
    out = safe(params(), ids(), zero, combiner="mean", default_id=4).numpy()
    np.testing.assert_array_equal(out, [[9, 10]] * 4)  # every row emptied: the default


def test_default_id_fills_empty_rows_and_max_norm_clips_each_embedding():
    # checked against TF 2.21
    np.testing.assert_allclose(
        safe(params(), ids(), weights(), default_id=4).numpy(),
        [[3.8, 4.8], [9, 10], [9, 10], [9, 10]],
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        safe(params(), ids(), weights(), default_id=0).numpy(),
        [[3.8, 4.8], [1, 2], [1, 2], [9, 10]],
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        safe(params(), ids(), weights(), max_norm=2.0, default_id=4).numpy(),
        [
            [1.2234018, 1.5810306],
            [1.3379295, 1.4865884],
            [1.3379295, 1.4865884],
            [1.3379294, 1.4865884],
        ],
        rtol=1e-6,
    )


def test_higher_rank_ids_combine_along_the_last_dimension():
    # checked against TF 2.21: [2, 3, 3] ids give [2, 3] rows of embeddings
    st = SparseTensor(
        [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 2]],
        ek.constant([1, 3, -1, 2, 4], ek.int64),
        [2, 3, 3],
    )
    out = safe(params(), st)
    assert out.shape == (2, 3, 2)
    np.testing.assert_array_equal(
        out.numpy(), [[[5, 6], [0, 0], [0, 0]], [[5, 6], [9, 10], [0, 0]]]
    )
    out = safe(params(), st, default_id=0)
    np.testing.assert_array_equal(
        out.numpy(), [[[5, 6], [1, 2], [1, 2]], [[5, 6], [9, 10], [1, 2]]]
    )
    one_row = SparseTensor([[0], [2]], ek.constant([1, 2], ek.int64), [3])  # rank 1: one row
    np.testing.assert_array_equal(safe(params(), one_row).numpy(), [4, 5])


def test_unordered_ids_ragged_ids_empty_inputs_and_dtypes():
    # checked against TF 2.21
    unordered = SparseTensor([[3, 0], [0, 1], [0, 0]], ek.constant([2, 3, 1], ek.int64), [4, 2])
    np.testing.assert_array_equal(
        safe(params(), unordered).numpy(), [[5, 6], [0, 0], [0, 0], [5, 6]]
    )
    ragged = ek.ragged.constant([[1, 3], [-1], [], [2, 4]], dtype=ek.int64)
    ragged_weights = ek.ragged.constant([[2.0, 0.5], [1.0], [], [-1.0, 3.0]])
    np.testing.assert_array_equal(safe(params(), ragged).numpy(), [[5, 6], [0, 0], [0, 0], [7, 8]])
    np.testing.assert_allclose(
        safe(params(), ragged, ragged_weights).numpy(),
        [[3.8, 4.8], [0, 0], [0, 0], [9, 10]],
        rtol=1e-6,
    )
    empty = SparseTensor(np.zeros((0, 2), np.int64), ek.constant([], ek.int64), [3, 2])
    np.testing.assert_array_equal(safe(params(), empty).numpy(), np.zeros((3, 2)))
    no_rows = SparseTensor(np.zeros((0, 2), np.int64), ek.constant([], ek.int64), [0, 3])
    assert safe(params(), no_rows).shape == (0, 2)
    small = SparseTensor([[0, 0], [1, 0]], ek.constant([1, 0], ek.int32), [2, 2])
    np.testing.assert_array_equal(safe(params(), small).numpy(), [[3, 4], [1, 2]])
    as_int = safe(ek.constant([[1, 2], [3, 4]]), small, combiner="sum")
    assert as_int.dtype == ek.int32
    np.testing.assert_array_equal(as_int.numpy(), [[3, 4], [1, 2]])
    as_half = safe(ek.constant([[1, 2], [3, 4]], ek.float16), small)
    assert as_half.dtype == ek.float16
    as_double = safe(np.array([[1.0, 2.0], [3.0, 4.0]]), small)
    assert as_double.dtype == ek.float64
    # TensorFlow pairs the weights' values with the ids' indices
    other = SparseTensor([[0, 1], [1, 1]], [2.0, 3.0], [3, 2])
    np.testing.assert_array_equal(safe(params()[:2], small, other).numpy(), [[3, 4], [1, 2]])


def test_more_dimensional_and_one_dimensional_tables():
    # TensorFlow 2.21 fails to broadcast its empty-row mask here; the result is zeros there
    table = ek.constant(np.arange(20.0).reshape(5, 2, 2), ek.float32)
    out = safe(table, ids())
    assert out.shape == (4, 2, 2)
    np.testing.assert_array_equal(out.numpy()[0], (table.numpy()[1] + table.numpy()[3]) / 2)
    np.testing.assert_array_equal(out.numpy()[1:3], np.zeros((2, 2, 2)))
    vector = ek.constant([1.0, 2.0, 3.0])
    small = SparseTensor([[0, 0], [1, 0]], ek.constant([1, 0], ek.int64), [2, 2])
    np.testing.assert_array_equal(safe(vector, small, default_id=2).numpy(), [2, 1])  # TF 2.21


def test_div_sharded_tables():
    # checked against TF 2.21: [3, 2] and [2, 2, 1] shards of 5 ids
    table = params()
    want = [[5, 6], [0, 0], [0, 0], [7, 8]]
    np.testing.assert_array_equal(safe([table[:3], table[3:]], ids()).numpy(), want)
    np.testing.assert_array_equal(safe([table[:2], table[2:4], table[4:]], ids()).numpy(), want)
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"'div' partition .* \[3, 2\]"):
        safe([table[:2], table[2:]], ids())  # TensorFlow: an index out of its shard
    with pytest.raises(ValueError, match="must agree beyond their first dimension"):
        safe([table[:3], ek.zeros([2, 3])], ids())


def test_gradients_match_tensorflow():
    # checked against TF 2.21: pruned entries get no gradient
    table = ek.Variable(params())
    values = ek.constant(WEIGHTS)
    with ek.GradientTape(persistent=True) as tape:
        tape.watch(values)
        out = safe(table, ids(), SparseTensor(INDICES, values, [4, 2]), default_id=4)
        loss = ek.reduce_sum(out * [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    np.testing.assert_allclose(
        ek.convert_to_tensor(tape.gradient(loss, table)).numpy(),
        [[0, 0], [0.8, 1.6], [0, 0], [0.2, 0.4], [15, 18]],
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        tape.gradient(loss, values).numpy(), [-0.96, 3.84, 0, 0, 0], rtol=1e-5, atol=1e-5
    )


@pytest.mark.parametrize("combiner", ["mean", "sqrtn", "sum"])
def test_gradients_match_finite_differences(combiner):
    rng = np.random.default_rng(0)
    table = rng.normal(size=(5, 3))
    values = np.array([2.0, 0.5, 1.0, -1.0, 3.0])  # away from the pruning boundary 0

    def lookup(p, w):
        return safe(p, ids(), SparseTensor(INDICES, w, [4, 2]), combiner, 4, max_norm=1.5)

    check_gradients(lookup, table, values, rtol=1e-6, atol=1e-8)


def test_errors_name_the_op_and_the_argument():
    name = "safe_embedding_lookup_sparse"
    with pytest.raises(ValueError, match=rf"{name}: Missing embedding_weights None"):
        safe(None, ids())
    with pytest.raises(ValueError, match=rf"{name}: Missing embedding_weights \[\]"):
        safe([], ids())
    with pytest.raises(ValueError, match=rf"{name}: combiner must be one of 'mean', 'sqrtn' or"):
        safe(params(), ids(), combiner="max")
    with pytest.raises(TypeError, match=rf"{name}: sparse_ids must be a SparseTensor or a rank-2"):
        safe(params(), ek.constant([[1, 2]]))
    with pytest.raises(TypeError, match=rf"{name}: sparse_weights must be a SparseTensor, a rank"):
        safe(params(), ids(), [1.0])
    with pytest.raises(ValueError, match=rf"{name}: a RaggedTensor sparse_ids must have rank 2"):
        safe(params(), ek.ragged.constant([[[1], [0]], [[1]]], dtype=ek.int64))
    with pytest.raises(TypeError, match=rf"{name}: default_id must be an int or None, got 1.0"):
        safe(params(), ids(), default_id=1.0)
    with pytest.raises(ValueError, match=rf"{name}: embedding_weights must have the dtype of"):
        safe(params(), ids(), SparseTensor(INDICES, ek.constant(WEIGHTS, ek.float64), [4, 2]))
    with pytest.raises(ValueError, match=rf"{name}: sparse_weights must have one value per id"):
        safe(params(), ids(), SparseTensor([[0, 0]], [1.0], [4, 2]))
    with pytest.raises(ek.errors.UnsupportedDTypeError, match=rf"{name}: sparse_ids must be int32"):
        safe(params(), SparseTensor([[0, 0]], [1.0], [2, 2]))
    with pytest.raises(ek.errors.UnsupportedDTypeError, match=rf"{name}: embedding_weights must"):
        safe(ek.constant([[1, 2], [3, 4]]), ids())
    with pytest.raises(ek.errors.InvalidArgumentError, match=rf"{name}: sparse_ids must have rank"):
        safe(params(), SparseTensor(np.zeros((0, 0), np.int64), ek.constant([], ek.int64), []))
    for bad in (dict(sparse_ids=ids([7, 3, -1, 2, 4])), dict(sparse_ids=ids(), default_id=9)):
        with pytest.raises(ek.errors.InvalidArgumentError, match="out of range"):
            safe(params(), **bad)


def test_graph_functions_prune_each_calls_ids():
    def lookup(table, st):
        return safe(table, st, default_id=4)

    traced = ek.function(lookup)
    calls = [
        ids(),
        ids([-1, 2, 0, -3, 1]),
        SparseTensor([[2, 1]], ek.constant([3], ek.int64), [4, 2]),
    ]
    for st in (*calls, calls[0]):
        np.testing.assert_array_equal(traced(params(), st).numpy(), lookup(params(), st).numpy())
    assert not np.array_equal(
        traced(params(), calls[0]).numpy(), traced(params(), calls[1]).numpy()
    )
