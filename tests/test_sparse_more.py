"""The rest of tf.sparse: reshape, retain, fill_empty_rows, split, expand_dims, reset_shape,
eye, maximum/minimum, softmax, the sparse segment reductions, bincount, to_indicator, mask.
Expected values are computed with NumPy on the dense equivalents, or closed forms."""

import numpy as np
import pytest

import eagerkernel as ek

sp = ek.sparse
RNG = np.random.default_rng(1)


def _random_sparse(shape, density=0.4, dtype=np.float32):
    dense = RNG.standard_normal(shape).astype(dtype)
    dense[RNG.random(shape) > density] = 0
    return dense, sp.from_dense(dense)


def _dense(st):
    return sp.to_dense(st).numpy()


def test_namespace_has_the_new_functions():
    for name in [
        "reshape",
        "retain",
        "fill_empty_rows",
        "segment_sum",
        "segment_mean",
        "segment_sqrt_n",
        "softmax",
        "maximum",
        "minimum",
        "split",
        "expand_dims",
        "reset_shape",
        "bincount",
        "reduce_max",
        "to_indicator",
        "mask",
        "eye",
    ]:
        assert callable(getattr(ek.sparse, name)), name
        assert name in ek.sparse.__all__


# -- structure ----------------------------------------------------------------------------------


@pytest.mark.parametrize("new_shape", [[6, 4], [-1, 2], [24], [2, 3, -1]])
def test_reshape_matches_dense_reshape(new_shape):
    dense, st = _random_sparse((4, 6))
    out = sp.reshape(st, new_shape)
    np.testing.assert_array_equal(_dense(out), dense.reshape(new_shape))
    assert out.values is st.values  # the same values: gradients pass


def test_reshape_errors():
    _, st = _random_sparse((4, 6))
    with pytest.raises(ek.errors.InvalidArgumentError, match="24 dense values"):
        sp.reshape(st, [5, 5])
    with pytest.raises(ek.errors.InvalidArgumentError, match="only one output dimension"):
        sp.reshape(st, [-1, -1])
    with pytest.raises(ek.errors.InvalidArgumentError, match="cannot hold"):
        sp.reshape(st, [-1, 5])


def test_retain():
    st = sp.SparseTensor([[0, 0], [1, 2], [2, 1]], [1.0, 2.0, 3.0], [3, 3])
    out = sp.retain(st, [True, False, True])
    np.testing.assert_array_equal(out.indices.numpy(), [[0, 0], [2, 1]])
    np.testing.assert_array_equal(out.values.numpy(), [1.0, 3.0])
    np.testing.assert_array_equal(out.dense_shape.numpy(), [3, 3])
    with pytest.raises(ek.errors.InvalidArgumentError, match="one per entry"):
        sp.retain(st, [True, False])
    with pytest.raises(TypeError, match="bool"):
        sp.retain(st, [1, 0, 1])


def test_fill_empty_rows():
    st = sp.SparseTensor([[1, 0], [1, 3], [4, 2]], [10.0, 20.0, 30.0], [5, 4])
    out, empty = sp.fill_empty_rows(st, -1.0)
    np.testing.assert_array_equal(empty.numpy(), [True, False, True, True, False])
    np.testing.assert_array_equal(
        out.indices.numpy(), [[0, 0], [1, 0], [1, 3], [2, 0], [3, 0], [4, 2]]
    )
    np.testing.assert_array_equal(out.values.numpy(), [-1, 10, 20, -1, -1, 30])
    assert empty.dtype == ek.bool
    full = sp.SparseTensor([[0, 0], [1, 1]], [1, 2], [2, 2])
    same, none_empty = sp.fill_empty_rows(full, 0)
    np.testing.assert_array_equal(same.indices.numpy(), [[0, 0], [1, 1]])
    assert not none_empty.numpy().any()
    with pytest.raises(TypeError, match=r"fill_empty_rows: cannot convert 0\.5"):
        sp.fill_empty_rows(full, 0.5)
    with pytest.raises(TypeError, match="default_value must be a scalar of the values' dtype"):
        sp.fill_empty_rows(full, ek.constant(1, ek.int64))


def test_fill_empty_rows_gradient_reaches_values():
    values = ek.Variable([1.0, 2.0])
    with ek.GradientTape() as tape:
        st = sp.SparseTensor([[0, 0], [2, 1]], values * 1.0, [3, 2])
        out, _ = sp.fill_empty_rows(st, 5.0)
        loss = ek.reduce_sum(out.values * ek.constant([1.0, 10.0, 100.0]))
    np.testing.assert_array_equal(tape.gradient(loss, values).numpy(), [1.0, 100.0])


@pytest.mark.parametrize(("size", "num_split"), [(7, 3), (6, 2), (5, 5), (4, 1)])
def test_split_matches_array_split(size, num_split):
    dense, st = _random_sparse((3, size))
    pieces = sp.split(sp_input=st, num_split=num_split, axis=1)
    expected = np.array_split(dense, num_split, axis=1)  # first pieces one longer, as TF
    assert len(pieces) == num_split
    for piece, want in zip(pieces, expected):
        np.testing.assert_array_equal(_dense(piece), want)


def test_split_along_axis_zero_and_errors():
    dense, st = _random_sparse((5, 2))
    for piece, want in zip(sp.split(st, 2, axis=-2), np.array_split(dense, 2, axis=0)):
        np.testing.assert_array_equal(_dense(piece), want)
    with pytest.raises(ek.errors.InvalidArgumentError, match="num_split"):
        sp.split(st, 3, axis=1)
    with pytest.raises(ek.errors.InvalidArgumentError, match="axis 2"):
        sp.split(st, 1, axis=2)
    with pytest.raises(ValueError, match="required"):
        sp.split(st, 2)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_expand_dims(axis):
    dense, st = _random_sparse((3, 4))
    np.testing.assert_array_equal(_dense(sp.expand_dims(st, axis)), np.expand_dims(dense, axis))


def test_expand_dims_errors():
    _, st = _random_sparse((3, 4))
    with pytest.raises(ek.errors.InvalidArgumentError, match="out of range"):
        sp.expand_dims(st, 3)
    assert sp.expand_dims(st).shape.as_list() == [3, 4, 1]  # TensorFlow's default axis -1


def test_reset_shape():
    st = sp.SparseTensor([[0, 1], [2, 0]], [1, 2], [5, 6])
    np.testing.assert_array_equal(sp.reset_shape(st).dense_shape.numpy(), [3, 2])
    np.testing.assert_array_equal(sp.reset_shape(st, [7, 6]).dense_shape.numpy(), [7, 6])
    with pytest.raises(ValueError, match=">= the current shape"):
        sp.reset_shape(st, [4, 6])
    with pytest.raises(ValueError, match="must have rank 2"):
        sp.reset_shape(st, [7, 6, 1])
    empty = sp.SparseTensor(np.zeros((0, 2), np.int64), ek.constant([], ek.float32), [3, 3])
    np.testing.assert_array_equal(sp.reset_shape(empty).dense_shape.numpy(), [0, 0])


def test_eye():
    np.testing.assert_array_equal(_dense(sp.eye(3)), np.eye(3, dtype=np.float32))
    out = sp.eye(2, 4, dtype=ek.int32)
    assert out.dtype == ek.int32
    np.testing.assert_array_equal(_dense(out), np.eye(2, 4, dtype=np.int32))


# -- elementwise ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("fn", "ref"), [(sp.maximum, np.maximum), (sp.minimum, np.minimum)])
def test_maximum_minimum_on_the_union(fn, ref):
    da, a = _random_sparse((4, 5))
    db, b = _random_sparse((4, 5))
    out = fn(a, b)
    np.testing.assert_array_equal(_dense(out), ref(da, db))
    union = np.argwhere((da != 0) | (db != 0))
    np.testing.assert_array_equal(out.indices.numpy(), union)


def test_maximum_errors_and_gradient():
    a = sp.SparseTensor([[0]], [1.0], [3])
    with pytest.raises(ek.errors.InvalidArgumentError, match="shapes do not match"):
        sp.maximum(a, sp.SparseTensor([[0]], [1.0], [4]))
    with pytest.raises(TypeError, match="dtypes differ"):
        sp.maximum(a, sp.SparseTensor([[0]], [1], [3]))
    va = ek.Variable([3.0, -1.0])
    with ek.GradientTape() as tape:
        x = sp.SparseTensor([[0], [1]], va * 1.0, [3])
        y = sp.SparseTensor([[0], [2]], [5.0, 2.0], [3])
        loss = ek.reduce_sum(sp.maximum(x, y).values)
    # entry 0: max(3, 5) -> from y; entry 1: max(-1, 0) -> the implicit zero.
    np.testing.assert_array_equal(tape.gradient(loss, va).numpy(), [0.0, 0.0])
    with ek.GradientTape() as tape:
        loss = ek.reduce_sum(sp.minimum(sp.SparseTensor([[0], [1]], va * 1.0, [3]), y).values)
    np.testing.assert_array_equal(tape.gradient(loss, va).numpy(), [1.0, 1.0])


def test_softmax_over_stored_entries_of_each_row():
    idx = np.array([[0, 0], [0, 2], [0, 3], [2, 1], [3, 0], [3, 3]])
    vals = np.array([1.0, 2.0, 3.0, -4.0, 100.0, 101.0], np.float32)
    out = sp.softmax(sp.SparseTensor(idx, vals, [4, 4]))
    expected = np.empty_like(vals)
    for row in np.unique(idx[:, 0]):
        sel = idx[:, 0] == row
        e = np.exp(vals[sel] - vals[sel].max())
        expected[sel] = e / e.sum()
    np.testing.assert_allclose(out.values.numpy(), expected, rtol=1e-6)
    np.testing.assert_array_equal(out.indices.numpy(), idx)


def test_softmax_rank3_and_gradient():
    idx = np.array([[0, 0, 0], [0, 0, 1], [1, 1, 0]])
    v = ek.Variable([0.0, np.log(3.0)], dtype=ek.float32)
    with ek.GradientTape() as tape:
        vals = ek.concat([v * 1.0, ek.constant([2.0])], axis=0)
        out = sp.softmax(sp.SparseTensor(idx, vals, [2, 2, 2]))
        p = out.values[0]
    np.testing.assert_allclose(out.values.numpy(), [0.25, 0.75, 1.0], rtol=1e-6)
    # d p0 / d v = p0 * (onehot0 - p) for the first group
    np.testing.assert_allclose(tape.gradient(p, v).numpy(), [0.25 * 0.75, -0.25 * 0.75], 1e-6)
    with pytest.raises(ek.errors.InvalidArgumentError, match="rank >= 2"):
        sp.softmax(sp.SparseTensor([[0]], [1.0], [3]))
    with pytest.raises(TypeError, match="floating"):
        sp.softmax(sp.SparseTensor([[0, 0]], [1], [3, 3]))


# -- segment reductions --------------------------------------------------------------------------


def _segment_reference(data, indices, segment_ids, n):
    total = np.zeros((n, *data.shape[1:]), data.dtype)
    np.add.at(total, segment_ids, data[indices])
    counts = np.bincount(segment_ids, minlength=n).astype(data.dtype)
    return total, counts


def test_segment_reductions():
    data = RNG.standard_normal((6, 3)).astype(np.float32)
    indices = np.array([5, 0, 0, 3, 2, 1])
    segment_ids = np.array([0, 0, 1, 1, 1, 3])
    total, counts = _segment_reference(data, indices, segment_ids, 4)
    c = np.maximum(counts, 1)[:, None]
    np.testing.assert_allclose(sp.segment_sum(data, indices, segment_ids).numpy(), total, 1e-6)
    np.testing.assert_allclose(
        sp.segment_mean(data, indices, segment_ids).numpy(), total / c, rtol=1e-6
    )
    np.testing.assert_allclose(
        sp.segment_sqrt_n(data, indices, segment_ids).numpy(), total / np.sqrt(c), rtol=1e-6
    )
    out = sp.segment_sum(data, indices, segment_ids, num_segments=6)
    assert out.shape == (6, 3)
    np.testing.assert_array_equal(out.numpy()[4:], 0)
    ints = sp.segment_sum(ek.constant([1, 2, 3]), [2, 2, 0], [0, 1, 1])
    np.testing.assert_array_equal(ints.numpy(), [3, 4])


def test_segment_gradient_and_errors():
    data = ek.Variable([[1.0], [2.0], [3.0]])
    with ek.GradientTape() as tape:
        loss = ek.reduce_sum(sp.segment_mean(data, [0, 0, 2], [0, 1, 1]) * [[10.0], [100.0]])
    # row 0: once in segment 0 (mean of 1 -> 10) and once in segment 1 (mean of 2 -> 50)
    np.testing.assert_allclose(tape.gradient(loss, data).numpy(), [[60.0], [0.0], [50.0]])
    with pytest.raises(ek.errors.InvalidArgumentError, match="not increasing"):
        sp.segment_sum(data, [0, 1], [1, 0])
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"indices\[1\] = 3 is out of range"):
        sp.segment_sum(data, [0, 3], [0, 0])
    with pytest.raises(ek.errors.InvalidArgumentError, match="same length"):
        sp.segment_sum(data, [0, 1], [0])
    with pytest.raises(ek.errors.InvalidArgumentError, match="out of range"):
        sp.segment_sum(data, [0, 1], [0, 2], num_segments=2)
    with pytest.raises(TypeError, match="floating"):
        sp.segment_mean(ek.constant([1, 2]), [0, 1], [0, 0])


# -- counting ------------------------------------------------------------------------------------


def test_bincount_axis0_and_minlength():
    arr = np.array([[3, 1, 1], [0, 3, 7]], np.int32)
    out = sp.bincount(arr)
    np.testing.assert_array_equal(_dense(out), np.bincount(arr.ravel()))
    assert out.dtype == ek.int32
    np.testing.assert_array_equal(out.indices.numpy()[:, 0], np.unique(arr))
    longer = sp.bincount(arr, minlength=10)
    np.testing.assert_array_equal(longer.dense_shape.numpy(), [10])
    capped = sp.bincount(arr, maxlength=4)
    np.testing.assert_array_equal(_dense(capped), np.bincount(arr.ravel()[arr.ravel() < 4]))
    # TF 2.21 gives one bin for an empty input (its running maximum starts at 0)
    assert sp.bincount(np.zeros(0, np.int32)).dense_shape.numpy().tolist() == [1]


def test_bincount_per_row_weights_binary():
    arr = np.array([[10, 20, 30, 20], [11, 101, 11, 10001]], np.int64)
    out = sp.bincount(arr, axis=-1)  # tf.sparse.bincount's documented example
    np.testing.assert_array_equal(
        out.indices.numpy(), [[0, 10], [0, 20], [0, 30], [1, 11], [1, 101], [1, 10001]]
    )
    np.testing.assert_array_equal(out.values.numpy(), [1, 2, 1, 2, 1, 1])
    np.testing.assert_array_equal(out.dense_shape.numpy(), [2, 10002])
    binary = sp.bincount(arr, axis=-1, binary_output=True)
    np.testing.assert_array_equal(binary.values.numpy(), np.ones(6))
    w = np.array([[0.5, 1.0, 2.0, 4.0], [1.0, 2.0, 3.0, 4.0]], np.float32)
    weighted = sp.bincount(arr, weights=w, axis=-1)
    assert weighted.dtype == ek.float32
    np.testing.assert_array_equal(weighted.values.numpy(), [0.5, 5.0, 2.0, 4.0, 2.0, 4.0])
    with pytest.raises(ValueError, match="mutually exclusive"):
        sp.bincount(arr, weights=w, binary_output=True)
    with pytest.raises(ek.errors.InvalidArgumentError, match="non-negative"):
        sp.bincount([1, -1])
    with pytest.raises(ek.errors.InvalidArgumentError, match="axis"):
        sp.bincount(arr, axis=1)
    with pytest.raises(TypeError, match="integers"):
        sp.bincount([1.0, 2.0])


def test_bincount_sparse_and_ragged_inputs():
    st = sp.SparseTensor([[0, 1], [0, 3], [2, 0]], [4, 4, 1], [3, 5])
    out = sp.bincount(st, axis=-1)
    np.testing.assert_array_equal(out.indices.numpy(), [[0, 4], [2, 1]])
    np.testing.assert_array_equal(out.values.numpy(), [2, 1])
    np.testing.assert_array_equal(out.dense_shape.numpy(), [3, 5])
    rt = ek.ragged.constant([[1, 1, 2], [], [0]])
    out = sp.bincount(rt, axis=-1)
    np.testing.assert_array_equal(out.indices.numpy(), [[0, 1], [0, 2], [2, 0]])
    np.testing.assert_array_equal(out.values.numpy(), [2, 1, 1])
    np.testing.assert_array_equal(out.dense_shape.numpy(), [3, 3])


def test_bincount_gradient_reaches_weights():
    w = ek.Variable([1.0, 2.0, 3.0])
    with ek.GradientTape() as tape:
        out = sp.bincount([2, 0, 2], weights=w * 1.0)
        loss = ek.reduce_sum(out.values * ek.constant([10.0, 100.0]))
    np.testing.assert_array_equal(tape.gradient(loss, w).numpy(), [100.0, 10.0, 100.0])


def test_to_indicator():
    st = sp.SparseTensor([[0, 0], [0, 1], [0, 2], [2, 0]], [0, 3, 3, 2], [3, 3])
    out = sp.to_indicator(st, 4)
    expected = np.zeros((3, 4), bool)
    expected[0, [0, 3]] = True
    expected[2, 2] = True
    assert out.dtype == ek.bool
    np.testing.assert_array_equal(out.numpy(), expected)
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"values\[1\] = 3 is not in"):
        sp.to_indicator(st, 3)
    with pytest.raises(TypeError, match="int32 or int64"):
        sp.to_indicator(sp.SparseTensor([[0]], [1.0], [2]), 3)


def test_mask():
    a = ek.IndexedSlices(ek.constant([[1.0], [2.0], [3.0], [4.0]]), [12, 26, 37, 45], [50, 1])
    out = sp.mask(a, [12, 45])
    assert isinstance(out, ek.IndexedSlices)
    np.testing.assert_array_equal(out.indices.numpy(), [26, 37])
    np.testing.assert_array_equal(out.values.numpy(), [[2.0], [3.0]])
    np.testing.assert_array_equal(out.dense_shape.numpy(), [50, 1])
    with pytest.raises(TypeError, match="IndexedSlices"):
        sp.mask(ek.constant([1.0]), [0])
