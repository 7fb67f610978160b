"""Regressions from differential fuzzing of the array and indexing ops against TensorFlow.

Every expected value was computed with TensorFlow 2.21 (CPU) on the same call, unless the
comment gives a closed form.
"""

import numpy as np
import pytest

import eagerkernel as ek


def _grads(f, *xs):
    xs = [ek.constant(x) for x in xs]
    with ek.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = f(*xs)
    return [None if g is None else ek.convert_to_tensor(g).numpy() for g in tape.gradient(y, xs)]


# -- values -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "old, new, expected",
    [((2, 0), [0, 4, -1], (0, 4, 0)), ((3, 0, 2), [0, -1], (0, 6)), ((0,), [0, -1], (0, 1))],
)
def test_reshape_infers_minus_one_from_the_nonzero_dims(old, new, expected):
    # TensorFlow: with a 0 in both shapes, -1 is the product of the non-zero input dims
    # divided by that of the non-zero known output dims.
    assert ek.reshape(ek.zeros(old), new).shape == expected


def test_range_casts_tensor_and_numpy_floats_to_an_integer_dtype():
    assert ek.range(ek.constant(2.68, ek.float64), dtype=ek.int64).numpy().tolist() == [0, 1]
    out = ek.range(ek.constant(-2.5), ek.constant(2.9), ek.constant(1.5), dtype=ek.int32)
    assert out.numpy().tolist() == [-2, -1, 0, 1]
    assert ek.range(np.float64(2.5), dtype=ek.int32).numpy().tolist() == [0, 1]


def test_range_refuses_a_python_float_for_an_integer_dtype():
    with pytest.raises(TypeError, match=r"range: cannot convert 2\.0 to dtype int32"):
        ek.range(2.0, dtype=ek.int32)


def test_matvec_adjoint_of_a_complex_matrix():
    a = ek.constant([[1 + 1j, 2j], [3, 4 - 1j]], ek.complex64)
    out = ek.linalg.matvec(a, ek.constant([1 + 0j, 1j], ek.complex64), adjoint_a=True)
    np.testing.assert_allclose(out.numpy(), [1 + 2j, -1 + 2j])


def test_searchsorted_with_empty_rows():
    assert ek.searchsorted(ek.zeros([0]), ek.constant([1.0, 2.0])).numpy().tolist() == [0, 0]
    out = ek.searchsorted(ek.zeros([2, 0]), ek.zeros([2, 3]), side="right")
    assert out.numpy().tolist() == [[0, 0, 0], [0, 0, 0]]
    assert ek.searchsorted(ek.zeros([2, 3]), ek.zeros([2, 0])).shape == (2, 0)


def test_tensor_scatter_min_max_skip_nan_updates_and_keep_nan_in_tensor():
    x = ek.constant([np.nan, 1.0, 2.0, np.nan])
    out = ek.tensor_scatter_nd_min(
        x, [[0], [1], [2], [3]], ek.constant([1.0, np.nan, -1.0, np.nan])
    )
    np.testing.assert_array_equal(out.numpy(), [np.nan, 1.0, -1.0, np.nan])
    x = ek.constant([np.nan, 1.0, 2.0, 0.0])
    u = ek.constant([1.0, np.nan, 3.0, np.nan, 5.0])
    out = ek.tensor_scatter_nd_max(x, [[0], [1], [2], [3], [3]], u)
    np.testing.assert_array_equal(out.numpy(), [np.nan, 1.0, 3.0, 5.0])
    out = ek.tensor_scatter_nd_max(ek.constant([0.0]), [[0], [0]], ek.constant([5.0, np.nan]))
    assert out.numpy().tolist() == [5.0]


def test_segment_mean_of_integers():
    # The kernel's C division (toward zero), in the data's dtype; uint8 sums wrap (500 -> 244).
    out = ek.math.segment_mean(ek.constant([-3, 2, 7, 2], ek.int8), [0, 0, 2, 2])
    assert out.dtype == ek.int8 and out.numpy().tolist() == [0, 0, 4]
    out = ek.math.segment_mean(ek.constant([250, 250], ek.uint8), [0, 0])
    assert out.dtype == ek.uint8 and out.numpy().tolist() == [122]


def test_unsorted_segment_mean_of_integers_divides_truly():
    out = ek.math.unsorted_segment_mean(ek.constant([-3, 2, 7, 2], ek.int8), [0, 0, 2, -1], 4)
    assert out.dtype == ek.float32 and out.numpy().tolist() == [-0.5, 0.0, 7.0, 0.0]
    out = ek.math.unsorted_segment_mean(ek.constant([[1, 2], [3, 4]]), [[0, 1], [1, 1]], 2)
    assert out.dtype == ek.float64 and out.numpy().tolist() == [1.0, 3.0]


def test_bincount_axis_minus_one_on_a_vector_or_scalar_counts_it_whole():
    assert ek.math.bincount(ek.constant([1, 2]), axis=-1).numpy().tolist() == [0, 1, 1]
    assert ek.math.bincount(ek.constant(1), axis=-1).numpy().tolist() == [0, 1]


def test_unique_keeps_each_nan_apart():
    x = ek.constant([np.nan, 1.0, 2.0, 1.0, 3.0, np.nan, 1.0, -0.0, 0.0])
    y, idx, count = ek.unique_with_counts(x)
    np.testing.assert_array_equal(y.numpy(), [np.nan, 1.0, 2.0, 3.0, np.nan, 0.0])
    assert idx.numpy().tolist() == [0, 1, 2, 1, 3, 4, 1, 5, 5]
    assert count.numpy().tolist() == [1, 3, 1, 1, 1, 2]


def test_pad_of_a_scalar_with_empty_paddings_of_shape_0_by_2():
    assert ek.pad(ek.constant(3), np.zeros((0, 2), np.int32), "REFLECT").numpy() == 3
    assert ek.pad(ek.constant(3.0), ek.zeros((0, 2), ek.int32), "SYMMETRIC").numpy() == 3.0


# -- gradients ----------------------------------------------------------------------------------


def test_fill_is_differentiable_in_value():
    w = ek.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    (g,) = _grads(lambda v: ek.reduce_sum(ek.fill([2, 3], v) * w), np.float32(2.0))
    assert g == 21.0  # sum(w)
    (g,) = _grads(lambda v: ek.reduce_sum(ek.fill([0, 2], v)), np.float64(2.0))
    assert g == 0.0


def test_unsorted_segment_max_gradient_with_no_segments():
    (g,) = _grads(
        lambda d: ek.math.unsorted_segment_max(d, ek.constant([-1, -2, -1]), 0),
        np.zeros((3, 0, 3), np.float32),
    )
    assert g.shape == (3, 0, 3)


def test_gradients_with_repeated_indices():
    w = ek.constant([[[1.0, 2.0], [3.0, 4.0]]])
    (g,) = _grads(
        lambda p: ek.reduce_sum(ek.gather(p, [[2, 0], [2, 2]], axis=1) * w),
        np.array([[1.0, 2.0, 3.0]], np.float32),
    )
    assert g.tolist() == [[2.0, 0.0, 8.0]]
    w = ek.constant([[1.0, 2.0], [3.0, 4.0]])
    (g,) = _grads(
        lambda p: ek.reduce_sum(ek.gather(p, [[1, 1], [0, 1]], batch_dims=1) * w),
        np.array([[1.0, 2.0], [3.0, 4.0]], np.float32),
    )
    assert g.tolist() == [[0.0, 3.0], [3.0, 4.0]]
    w = ek.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    (g,) = _grads(
        lambda u: ek.reduce_sum(ek.scatter_nd([[1], [1], [0]], u, [3, 2]) * w),
        np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], np.float32),
    )
    assert g.tolist() == [[3.0, 4.0], [3.0, 4.0], [1.0, 2.0]]


def test_gradients_of_ties_in_scatter_max_and_segment_ops():
    gt, gu = _grads(
        lambda t, u: ek.reduce_sum(
            ek.tensor_scatter_nd_max(t, [[0], [0], [1]], u) * ek.constant([1.0, 2.0, 3.0])
        ),
        np.array([1.0, 5.0, 0.0], np.float32),
        np.array([1.0, 1.0, 5.0], np.float32),
    )
    np.testing.assert_allclose(gt, [1 / 3, 1.0, 3.0])
    np.testing.assert_allclose(gu, [1 / 3, 1 / 3, 1.0])
    (g,) = _grads(
        lambda d: ek.reduce_sum(
            ek.math.unsorted_segment_max(d, [0, 1, 0, 0], 2) * ek.constant([2.0, 3.0])
        ),
        np.array([4.0, 1.0, 4.0, -1.0], np.float32),
    )
    assert g.tolist() == [1.0, 3.0, 1.0, 0.0]
    (g,) = _grads(
        lambda d: ek.reduce_sum(ek.math.segment_prod(d, [0, 0, 0, 1, 1]) * ek.constant([2.0, 3.0])),
        np.array([0.0, 2.0, 3.0, 0.0, 0.0], np.float32),
    )
    assert g.tolist() == [12.0, 0.0, 0.0, 0.0, 0.0]


# -- errors -------------------------------------------------------------------------------------


def test_bincount_refuses_weights_with_binary_output():
    with pytest.raises(ValueError, match=r"bincount.*binary_output.*weights"):
        ek.math.bincount(ek.constant([1, 2]), weights=ek.constant([1.0, 2.0]), binary_output=True)


def test_unstack_axis_out_of_range_with_num_is_invalid_argument():
    with pytest.raises(ek.errors.InvalidArgumentError, match="unstack: axis -2 is out of range"):
        ek.unstack(ek.constant([1.0]), num=2, axis=-2)


def test_one_hot_refuses_an_int_on_value_for_bool():
    with pytest.raises(TypeError, match=r"one_hot: cannot convert 1 to a Tensor of dtype bool"):
        ek.one_hot([0, 1], 2, on_value=1, off_value=0, dtype=ek.bool)


def test_diag_band_with_too_few_columns():
    with pytest.raises(ek.errors.InvalidArgumentError, match="diag: num_rows=3 and num_cols=1"):
        ek.linalg.diag(ek.zeros([2, 3, 3]), k=(-2, 0), num_cols=1)


@pytest.mark.parametrize(
    "call, op",
    [
        (lambda: ek.scatter_nd(ek.constant([1]), ek.constant(5.0), [3]), "scatter_nd"),
        (
            lambda: ek.tensor_scatter_nd_update(ek.zeros([3, 2]), [1, 0], ek.constant(5.0)),
            "tensor_scatter_nd_update",
        ),
        (
            lambda: ek.tensor_scatter_nd_add(ek.zeros([3, 2, 2]), [1, 0], ek.constant([5.0, 6.0])),
            "tensor_scatter_nd_add",
        ),
    ],
)
def test_scatters_refuse_one_dimensional_indices(call, op):
    with pytest.raises(ek.errors.InvalidArgumentError, match=rf"{op}: indices must have shape .*"):
        call()


def test_pad_of_a_scalar_refuses_a_flat_empty_paddings():
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"pad: paddings .* shape \(0, 2\)"):
        ek.pad(ek.constant(3.0), [], "REFLECT")


def test_diag_part_bounds_follow_tensorflow_on_empty_matrices():
    # TensorFlow: each of k0, k1 must lie in (-rows, cols) or be 0, also for 0x0 matrices.
    assert ek.linalg.diag_part(ek.zeros([0, 3]), k=(0, 2)).shape == (3, 0)
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"diag_part: k=\(-2, 0\)"):
        ek.linalg.diag_part(ek.zeros([3, 0, 0]), k=(-2, 0))
    with pytest.raises(ek.errors.InvalidArgumentError, match="diag_part: k=1"):
        ek.linalg.diag_part(ek.zeros([0, 0]), k=1)
