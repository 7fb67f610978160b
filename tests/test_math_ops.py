"""tf.math additions (runtime/ops/math_ops.py): values against NumPy/SciPy closed forms,
gradients against finite differences (first and second order), TensorFlow's documented edge
cases (ties, empty segments, negative ids, zeros in the "no NaN" ops) and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients

IAE = ek.errors.InvalidArgumentError
RNG = np.random.default_rng(7)


# -- elementwise ---------------------------------------------------------------------------------

UNARY = [
    # (op, numpy reference, a sample inside the domain)
    (ek.math.asin, np.arcsin, RNG.uniform(-0.9, 0.9, (3, 4))),
    (ek.math.acos, np.arccos, RNG.uniform(-0.9, 0.9, (3, 4))),
    (ek.math.atan, np.arctan, RNG.normal(size=(3, 4))),
    (ek.math.sinh, np.sinh, RNG.normal(size=(3, 4))),
    (ek.math.cosh, np.cosh, RNG.normal(size=(3, 4))),
    (ek.math.asinh, np.arcsinh, RNG.normal(size=(3, 4))),
    (ek.math.acosh, np.arccosh, RNG.uniform(1.2, 3.0, (3, 4))),
    (ek.math.atanh, np.arctanh, RNG.uniform(-0.9, 0.9, (3, 4))),
    (ek.math.expm1, np.expm1, RNG.normal(size=(3, 4))),
    (ek.math.erf, np.vectorize(math.erf), RNG.normal(size=(3, 4))),
    (ek.math.erfc, np.vectorize(math.erfc), RNG.normal(size=(3, 4))),
    (ek.math.lgamma, np.vectorize(math.lgamma), RNG.uniform(0.3, 4.0, (3, 4))),
]


@pytest.mark.parametrize("op, ref, x", UNARY, ids=[u[0].__name__ for u in UNARY])
def test_unary_values_and_gradients(op, ref, x):
    np.testing.assert_allclose(op(x).numpy(), ref(x), rtol=1e-12)
    np.testing.assert_allclose(op(x.astype(np.float32)).numpy(), ref(x), rtol=2e-6, atol=1e-7)
    assert op(x.astype(np.float32)).dtype == ek.float32
    check_gradients(op, x)
    check_gradients(op, x, order=2, rtol=1e-4, atol=1e-5)
    with pytest.raises(TypeError, match="floating-point"):
        op(ek.constant([1, 2]))


def test_digamma_is_lgammas_derivative_and_its_own_derivative_is_trigamma():
    scipy_special = pytest.importorskip("scipy.special")
    x = RNG.uniform(0.5, 4.0, (5,))
    np.testing.assert_allclose(ek.math.digamma(x).numpy(), scipy_special.digamma(x), rtol=1e-12)
    check_gradients(ek.math.lgamma, x, order=2, rtol=1e-4)
    with ek.GradientTape() as tape:
        t = ek.constant(x)
        tape.watch(t)
        y = ek.math.digamma(t)
    np.testing.assert_allclose(
        tape.gradient(y, t).numpy(), scipy_special.polygamma(1, x), rtol=1e-12
    )


def test_nan_and_inf_tests():
    x = ek.constant([1.0, np.nan, np.inf, -np.inf])
    assert ek.math.is_nan(x).numpy().tolist() == [False, True, False, False]
    assert ek.math.is_inf(x).numpy().tolist() == [False, False, True, True]
    assert ek.math.is_finite(x).numpy().tolist() == [True, False, False, False]
    assert ek.math.is_nan(x).dtype == ek.bool
    with pytest.raises(TypeError, match="IsNan"):
        ek.math.is_nan(ek.constant([1, 2]))


def test_rint_rounds_half_to_even_and_has_no_gradient():
    np.testing.assert_array_equal(
        ek.math.rint([0.5, 1.5, -2.5, 2.4]).numpy(), np.float32([0.0, 2.0, -2.0, 2.0])
    )
    x = ek.constant([0.7])
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.math.rint(x) * x
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [1.0])  # rint(x) is a constant


def test_atan2_values_quadrants_and_gradients():
    y = RNG.normal(size=(4,))
    x = RNG.normal(size=(4,))
    np.testing.assert_allclose(ek.math.atan2(y, x).numpy(), np.arctan2(y, x), rtol=1e-12)
    assert ek.atan2(1.0, -1.0).numpy() == pytest.approx(3 * math.pi / 4)
    check_gradients(ek.math.atan2, y, x)
    check_gradients(ek.math.atan2, y, x, order=2, rtol=1e-4, atol=1e-5)


def test_no_nan_divisions_follow_tensorflow_at_zero():
    x = np.array([0.0, 2.0, 3.0, 0.0])
    y = np.array([0.0, 0.0, 4.0, 5.0])
    np.testing.assert_array_equal(ek.math.xlogy(x, y).numpy(), [0.0, -np.inf, 3 * np.log(4), 0])
    np.testing.assert_array_equal(ek.math.xdivy(x, y).numpy(), [0.0, np.inf, 0.75, 0.0])
    np.testing.assert_array_equal(ek.math.divide_no_nan(x, y).numpy(), [0.0, 0.0, 0.75, 0.0])
    np.testing.assert_array_equal(
        ek.math.multiply_no_nan([np.nan, np.inf, 2.0], [0.0, 0.0, 3.0]).numpy(), [0.0, 0.0, 6.0]
    )
    # gradients away from the special points, against finite differences
    a, b = RNG.uniform(0.5, 2.0, (3,)), RNG.uniform(0.5, 2.0, (3,))
    for op in (ek.math.xlogy, ek.math.xdivy, ek.math.divide_no_nan, ek.math.multiply_no_nan):
        check_gradients(op, a, b)
    # at y == 0 the "no NaN" gradients are 0, not NaN (TensorFlow's DivNoNan gradient)
    t, u = ek.constant([1.0]), ek.constant([0.0])
    with ek.GradientTape() as tape:
        tape.watch([t, u])
        z = ek.math.divide_no_nan(t, u)
    assert [g.numpy().tolist() for g in tape.gradient(z, [t, u])] == [[0.0], [0.0]]
    with pytest.raises(TypeError, match="xlogy"):
        ek.math.xlogy(ek.constant([1]), ek.constant([2]))


def test_truncating_division_rounds_toward_zero():
    x, y = ek.constant([7, -7, 7, -7]), ek.constant([2, 2, -2, -2])
    np.testing.assert_array_equal(ek.truncatediv(x, y).numpy(), [3, -3, -3, 3])
    np.testing.assert_array_equal(ek.truncatemod(x, y).numpy(), [1, -1, 1, -1])
    np.testing.assert_array_equal(ek.math.floormod(x, y).numpy(), [1, 1, -1, -1])
    np.testing.assert_allclose(ek.truncatediv([-7.5], [2.0]).numpy(), [-3.0])
    with pytest.raises(IAE, match="Integer division by zero"):
        ek.truncatediv(x, ek.constant([1, 0, 1, 1]))


def test_cumprod_matches_numpy_and_tensorflow_options():
    x = RNG.uniform(0.5, 2.0, (3, 4))
    np.testing.assert_allclose(ek.math.cumprod(x, axis=1).numpy(), np.cumprod(x, axis=1))
    np.testing.assert_allclose(
        ek.math.cumprod([2.0, 3.0, 4.0], exclusive=True, reverse=True).numpy(), [12.0, 4.0, 1.0]
    )
    for exclusive in (False, True):
        for reverse in (False, True):
            check_gradients(
                lambda t, e=exclusive, r=reverse: ek.math.cumprod(t, 1, e, r), x, rtol=1e-5
            )
    with pytest.raises(IAE, match="rank >= 1"):
        ek.math.cumprod(ek.constant(2.0))


def test_polyval_and_euclidean_norm():
    x = RNG.normal(size=(3,))
    np.testing.assert_allclose(
        ek.math.polyval([1.0, -2.0, 0.5], ek.constant(x)).numpy(), np.polyval([1, -2, 0.5], x)
    )
    check_gradients(lambda c0, t: ek.math.polyval([c0, 2.0, 1.0], t), np.array(1.5), x)
    np.testing.assert_allclose(
        ek.math.reduce_euclidean_norm(ek.constant([[3.0, 4.0], [5.0, 12.0]]), axis=1).numpy(),
        [5.0, 13.0],
    )
    assert ek.math.reduce_euclidean_norm(ek.constant([3, 4])).numpy() == 5  # int stays int
    with pytest.raises(ValueError, match="coeffs must be a list"):
        ek.math.polyval(ek.constant([1.0]), 2.0)


# -- sorting and top-k ---------------------------------------------------------------------------


def test_sort_and_argsort_along_any_axis_both_directions():
    x = RNG.normal(size=(3, 4, 5))
    for axis in (0, 1, -1):
        np.testing.assert_array_equal(ek.sort(x, axis=axis).numpy(), np.sort(x, axis=axis))
        np.testing.assert_array_equal(
            ek.sort(x, axis=axis, direction="DESCENDING").numpy(),
            -np.sort(-x, axis=axis),
        )
        np.testing.assert_array_equal(
            ek.argsort(x, axis=axis).numpy(), np.argsort(x, axis=axis, kind="stable")
        )
    ties = ek.constant([2, 1, 2, 1])
    assert ek.argsort(ties).numpy().tolist() == [1, 3, 0, 2]
    assert ek.argsort(ties, direction="DESCENDING").numpy().tolist() == [0, 2, 1, 3]
    assert ek.argsort(ties).dtype == ek.int32
    check_gradients(lambda t: ek.sort(t, axis=1) * np.arange(3.0)[:, None], x[:, :, 0])
    check_gradients(lambda t: ek.sort(t, direction="DESCENDING") ** 2, x[0], order=2)
    with pytest.raises(ValueError, match="direction must be"):
        ek.sort(x, direction="UP")
    with pytest.raises(IAE, match="rank >= 1"):
        ek.sort(ek.constant(1.0))


def test_top_k_ties_take_the_lower_index_and_the_gradient_goes_to_the_picked():
    values, indices = ek.math.top_k([[1.0, 4.0, 2.0, 4.0], [0.0, -1.0, 5.0, 3.0]], k=3)
    np.testing.assert_array_equal(values.numpy(), [[4.0, 4.0, 2.0], [5.0, 3.0, 0.0]])
    np.testing.assert_array_equal(indices.numpy(), [[1, 3, 2], [2, 3, 0]])
    assert ek.math.top_k([1.0, 2.0], k=1, index_type=ek.int64).indices.dtype == ek.int64
    x = RNG.normal(size=(2, 6))
    check_gradients(lambda t: ek.math.top_k(t, k=3).values * np.array([3.0, 2.0, 1.0]), x)
    with pytest.raises(IAE, match=r"k must be in \[0, 4\]"):
        ek.math.top_k([1.0, 2.0, 3.0, 4.0], k=5)


def test_in_top_k_counts_ties_at_the_boundary_as_in():
    preds = ek.constant([[0.1, 0.3, 0.3], [0.1, 0.5, 0.4], [np.nan, 0.2, 0.1]])
    np.testing.assert_array_equal(
        ek.math.in_top_k([2, 0, 0], preds, k=1).numpy(), [True, False, False]
    )
    np.testing.assert_array_equal(
        ek.math.in_top_k([0, 2, 1], preds, k=2).numpy(), [False, True, True]
    )
    # TensorFlow's kernel answers False for a target outside [0, classes).
    np.testing.assert_array_equal(
        ek.math.in_top_k([3, 0, -1], preds, k=3).numpy(), [False, True, False]
    )


def test_unique_keeps_first_appearance_order():
    y, idx = ek.unique(ek.constant([4.0, 1.0, 4.0, 2.0, 1.0]))
    np.testing.assert_array_equal(y.numpy(), [4.0, 1.0, 2.0])
    np.testing.assert_array_equal(idx.numpy(), [0, 1, 0, 2, 1])
    y, idx, count = ek.unique_with_counts([3, 3, 3, 1], out_idx=ek.int64)
    assert (y.numpy().tolist(), idx.numpy().tolist(), count.numpy().tolist()) == (
        [3, 1],
        [0, 0, 0, 1],
        [3, 1],
    )
    assert idx.dtype == ek.int64
    with pytest.raises(IAE, match="must be a vector"):
        ek.unique(ek.constant([[1, 2]]))


# -- segments ------------------------------------------------------------------------------------


def test_unsorted_segment_reductions_against_a_loop():
    data = RNG.normal(size=(6, 3))
    ids = np.array([2, 0, 2, -1, 0, 2])
    n = 4
    for op, fn, empty in (
        (ek.math.unsorted_segment_sum, np.sum, 0.0),
        (ek.math.unsorted_segment_max, np.max, np.finfo(np.float64).min),
        (ek.math.unsorted_segment_min, np.min, np.finfo(np.float64).max),
        (ek.math.unsorted_segment_mean, np.mean, 0.0),
    ):
        expected = np.array(
            [
                fn(data[ids == s], axis=0) if (ids == s).any() else np.full(3, empty)
                for s in range(n)
            ]
        )
        np.testing.assert_allclose(op(data, ids, n).numpy(), expected, err_msg=op.__name__)
        # weights that skip the empty segments (an empty max is the lowest float)
        weights = np.array([[1.0], [0.0], [2.0], [0.0]]) * np.arange(1.0, 4.0)
        check_gradients(lambda d, op=op, w=weights: op(d, ids, n) * w, data)


def test_segment_max_shares_the_gradient_among_ties():
    data = ek.constant([1.0, 5.0, 5.0, 2.0])
    with ek.GradientTape() as tape:
        tape.watch(data)
        out = ek.math.segment_max(data, [0, 0, 0, 1])
    np.testing.assert_array_equal(out.numpy(), [5.0, 2.0])
    np.testing.assert_array_equal(tape.gradient(out, data).numpy(), [0.0, 0.5, 0.5, 1.0])


def test_sorted_segment_ops_and_their_errors():
    data = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(
        ek.math.segment_sum(data, [0, 0, 2, 2]).numpy(),
        [data[:2].sum(0), np.zeros(3), data[2:].sum(0)],
    )
    np.testing.assert_array_equal(
        ek.math.segment_max(data, [0, 0, 2, 2]).numpy(), [data[1], np.zeros(3), data[3]]
    )
    np.testing.assert_array_equal(
        ek.math.segment_mean(data, [0, 1, 1, 1]).numpy(), [data[0], data[1:].mean(0)]
    )
    check_gradients(lambda d: ek.math.segment_mean(d, [0, 1, 1, 1]) ** 2, data)
    with pytest.raises(IAE, match="non-negative and sorted"):
        ek.math.segment_sum(data, [1, 0, 2, 2])
    with pytest.raises(IAE, match=r"must be a prefix of data\.shape"):
        ek.math.segment_sum(data, [0, 1])
    with pytest.raises(IAE, match="must be < num_segments = 2"):
        ek.math.unsorted_segment_sum(data, [0, 1, 2, 0], 2)


# -- counting ------------------------------------------------------------------------------------


def test_bincount_options():
    np.testing.assert_array_equal(ek.math.bincount([1, 1, 3]).numpy(), [0, 2, 0, 1])
    np.testing.assert_array_equal(
        ek.math.bincount([1, 1, 3], minlength=6, maxlength=3).numpy(), [0, 2, 0]
    )
    w = ek.math.bincount([1, 1, 3], weights=[0.5, 0.25, 2.0])
    np.testing.assert_array_equal(w.numpy(), [0.0, 0.75, 0.0, 2.0])
    assert w.dtype == ek.float32
    np.testing.assert_array_equal(
        ek.math.bincount([[1, 1], [0, 2]], axis=-1, binary_output=True).numpy(),
        [[0, 1, 0], [1, 0, 1]],
    )
    assert ek.math.bincount([2], dtype=ek.int64).dtype == ek.int64
    with pytest.raises(IAE, match="non-negative"):
        ek.math.bincount([-1, 2])
    # floats are cast to int32, as TensorFlow does (tests/test_tf_sweep_fixes.py)
    np.testing.assert_array_equal(ek.math.bincount([1.0]).numpy(), [0, 1])


def test_confusion_matrix_rows_are_labels():
    m = ek.math.confusion_matrix([0, 1, 1, 2], [0, 2, 1, 2], num_classes=4, weights=[1, 2, 3, 4])
    expected = np.zeros((4, 4), np.int32)
    for lab, pred, w in zip([0, 1, 1, 2], [0, 2, 1, 2], [1, 2, 3, 4]):
        expected[lab, pred] += w
    np.testing.assert_array_equal(m.numpy(), expected)
    with pytest.raises(IAE, match="must be < num_classes = 2"):
        ek.math.confusion_matrix([0, 2], [0, 1], num_classes=2)
    with pytest.raises(IAE, match="one shape"):
        ek.math.confusion_matrix([0, 1], [0])


def test_xlog1py_values_and_gradients_match_tensorflow():
    """`tf.math.xlog1py`: 0 where x == 0 (even at y == -1), with TensorFlow's gradients; the
    expected numbers are TensorFlow 2.21's for the same program."""
    x = ek.constant([0.0, 2.0, 0.5], ek.float64)
    y = ek.constant([-1.0, 0.5, 3.0], ek.float64)
    with ek.GradientTape() as tape:
        tape.watch([x, y])
        z = ek.math.xlog1py(x, y)
        loss = ek.reduce_sum(z * [1.0, 2.0, 3.0])
    gx, gy = tape.gradient(loss, [x, y])
    np.testing.assert_allclose(z.numpy(), [0.0, 0.81093022, 0.69314718], 1e-8)
    np.testing.assert_allclose(gx.numpy(), [0.0, 0.81093022, 4.15888308], 1e-8)
    np.testing.assert_allclose(gy.numpy(), [0.0, 2.66666667, 0.375], 1e-8)
    # Away from x == 0, finite differences of the closed form.
    eps = 1e-6
    a, b = 0.7, 0.4
    assert float(
        ek.math.xlog1py(ek.constant(a, ek.float64), ek.constant(b, ek.float64))
    ) == pytest.approx(a * np.log1p(b))
    fd = (a * np.log1p(b + eps) - a * np.log1p(b - eps)) / (2 * eps)
    yv = ek.constant(b, ek.float64)
    with ek.GradientTape() as tape:
        tape.watch(yv)
        value = ek.math.xlog1py(ek.constant(a, ek.float64), yv)
    assert float(tape.gradient(value, yv)) == pytest.approx(fd, rel=1e-6)
    with pytest.raises(TypeError, match="xlog1py"):
        ek.math.xlog1py([1, 2], [1, 2])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "shape, axis, keepdims",
    [
        ((64,), None, False),
        ((7, 9, 5), [0, 2], True),
        ((7, 9, 5), 1, False),
        ((3, 1000), None, True),
    ],
)
def test_reduce_mean_gives_numpy_means_bits(dtype, shape, axis, keepdims):
    # reduce_mean sums and divides itself on NumPy floats (np.mean's steps without its Python
    # wrapper): every bit and the result's type must stay np.mean's.
    x = (np.random.default_rng(3).standard_normal(shape) * 1e3).astype(dtype)
    got = ek.reduce_mean(x, axis=axis, keepdims=keepdims).numpy()
    want = np.mean(x, axis=None if axis is None else tuple(np.atleast_1d(axis)), keepdims=keepdims)
    assert got.dtype == want.dtype
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want)
