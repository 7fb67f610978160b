"""`ek.math.segment_prod`, `unsorted_segment_prod` and `unsorted_segment_sqrt_n`: values and
gradients against TensorFlow 2.21's (embedded literals), gradients against finite differences
(including segments with one and with two zeros), dtypes, and TensorFlow's errors."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients

IAE = ek.errors.InvalidArgumentError
D = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]
# a segment with one zero (0), with two zeros (1), without zeros (2, 3), for the gradients
X = [2.0, 0.0, 3.0, 0.0, 0.0, 4.0, 5.0, 1.5, -2.0]
IDS = [0, 0, 1, 1, 1, 2, 2, 3, 3]
UIDS = [1, 1, 0, 0, 0, -1, 2, 2, 4]


# -- values (TensorFlow 2.21's outputs) ----------------------------------------------------------


def test_segment_prod_matches_tensorflow():
    out = ek.math.segment_prod(D, [0, 0, 2, 2])
    assert out.dtype == ek.float32
    np.testing.assert_array_equal(out.numpy(), [[3.0, 8.0], [1.0, 1.0], [35.0, 48.0]])
    ints = ek.math.segment_prod(ek.constant([1, 2, 3, 4, 5]), [0, 0, 1, 1, 3])
    assert ints.dtype == ek.int32
    np.testing.assert_array_equal(ints.numpy(), [2, 12, 1, 5])
    c = ek.math.segment_prod(ek.constant([1 + 1j, 2 - 1j, 3j]), [0, 0, 1])
    assert c.dtype == ek.complex128
    np.testing.assert_allclose(c.numpy(), [3 + 1j, 3j])


def test_unsorted_segment_prod_matches_tensorflow():
    out = ek.math.unsorted_segment_prod(D, [2, 0, 2, -1], 4)  # -1 dropped; 1 and 3 empty
    np.testing.assert_array_equal(out.numpy(), [[3.0, 4.0], [1.0, 1.0], [5.0, 12.0], [1.0, 1.0]])
    data = np.arange(1.0, 13.0, dtype=np.float32).reshape(2, 3, 2)  # rank-2 ids
    out = ek.math.unsorted_segment_prod(data, [[0, 1, 0], [1, 1, 2]], 3)
    np.testing.assert_array_equal(out.numpy(), [[5.0, 12.0], [189.0, 320.0], [11.0, 12.0]])
    h = ek.math.unsorted_segment_prod(ek.constant([1.5, 2.0], ek.float16), [0, 0], 2)
    assert h.dtype == ek.float16
    np.testing.assert_array_equal(h.numpy(), np.array([3.0, 1.0], np.float16))


def test_unsorted_segment_sqrt_n_matches_tensorflow():
    out = ek.math.unsorted_segment_sqrt_n(D, [2, 0, 2, -1], 4)
    np.testing.assert_allclose(
        out.numpy(), [[3.0, 4.0], [0.0, 0.0], [4.242641, 5.656854], [0.0, 0.0]], rtol=1e-6
    )
    d64 = ek.constant([1.0, 2.0, 3.0, 4.0], ek.float64)
    out = ek.math.unsorted_segment_sqrt_n(d64, [1, 1, 1, 0], 3)
    assert out.dtype == ek.float64
    np.testing.assert_allclose(out.numpy(), [4.0, 6.0 / np.sqrt(3.0), 0.0], rtol=1e-15)


# -- gradients ---------------------------------------------------------------------------------


def _grad(fn, x, weights):
    x = ek.constant(x)
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
        loss = ek.reduce_sum(y * ek.constant(weights))
    return y, tape.gradient(loss, x)


def test_prod_gradients_match_tensorflow_with_zeros():
    y, g = _grad(lambda x: ek.math.segment_prod(x, IDS), X, [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(y.numpy(), [0.0, 0.0, 20.0, -3.0])
    np.testing.assert_array_equal(g.numpy(), [0.0, 2.0, 0.0, 0.0, 0.0, 15.0, 12.0, -8.0, 6.0])
    weights = [1.0, 2.0, 3.0, 4.0, 5.0]
    y, g = _grad(lambda x: ek.math.unsorted_segment_prod(x, UIDS, 5), X, weights)
    np.testing.assert_array_equal(y.numpy(), [0.0, 0.0, 7.5, 1.0, -2.0])
    np.testing.assert_array_equal(g.numpy(), [0.0, 4.0, 0.0, 0.0, 0.0, 0.0, 4.5, 15.0, 5.0])
    _, g = _grad(lambda x: ek.math.unsorted_segment_sqrt_n(x, UIDS, 5), X, weights)
    r2, r3 = 2 / np.sqrt(2), 1 / np.sqrt(3)
    np.testing.assert_allclose(
        g.numpy(), [r2, r2, r3, r3, r3, 0.0, 3 / np.sqrt(2), 3 / np.sqrt(2), 5.0], rtol=1e-6
    )


def test_prod_gradients_match_finite_differences():
    x = np.array(X)
    check_gradients(lambda t: ek.math.segment_prod(t, IDS), x)
    check_gradients(lambda t: ek.math.unsorted_segment_prod(t, UIDS, 5), x)
    data = np.random.default_rng(3).normal(size=(5, 2, 3))
    data[1, 0, 0] = data[3, 1, 2] = data[4, 1, 2] = 0.0  # one zero and two zeros per segment
    check_gradients(lambda t: ek.math.unsorted_segment_prod(t, [0, 1, 0, 1, 1], 3), data)
    check_gradients(lambda t: ek.math.unsorted_segment_prod(t, [[0, 2], [2, 1]], 3), data[:2])


def test_prod_second_order_without_double_zeros():
    # TensorFlow's formula zeroes a two-zero segment's cotangent outright, so its second
    # derivative there is 0 (not the finite difference); elsewhere it is exact.
    x = np.array([2.0, 0.0, 3.0, 0.5, -1.0, 4.0, 5.0])
    check_gradients(lambda t: ek.math.segment_prod(t, [0, 0, 1, 1, 1, 2, 2]), x, order=2)
    check_gradients(
        lambda t: ek.math.unsorted_segment_prod(t, [1, 1, 0, -1, 0, 0, 3], 4), x, order=2
    )


def test_sqrt_n_gradient_matches_finite_differences():
    data = np.random.default_rng(4).normal(size=(6, 2))
    check_gradients(lambda t: ek.math.unsorted_segment_sqrt_n(t, [0, 2, 2, -1, 2, 0], 4), data)
    check_gradients(
        lambda t: ek.math.unsorted_segment_sqrt_n(t, [[0, 1], [1, 1], [0, 3]], 4),
        data.reshape(3, 2, 2),
    )


# -- errors ------------------------------------------------------------------------------------


def test_errors_follow_tensorflow():
    with pytest.raises(IAE, match=r"segment_prod: segment ids must be non-negative and sorted"):
        ek.math.segment_prod(D, [0, 1, 0, 1])
    with pytest.raises(IAE, match=r"segment_prod: segment ids must be non-negative and sorted"):
        ek.math.segment_prod(D, [-1, 0, 0, 1])
    with pytest.raises(IAE, match=r"segment_prod: segment_ids.shape \(3,\) must be a prefix"):
        ek.math.segment_prod(D, [0, 0, 1])
    with pytest.raises(IAE, match=r"unsorted_segment_prod: segment_ids must be < num_segments"):
        ek.math.unsorted_segment_prod(D, [0, 1, 5, 0], 3)
    with pytest.raises(IAE, match=r"unsorted_segment_sqrt_n: num_segments must be >= 0, got -1"):
        ek.math.unsorted_segment_sqrt_n(D, [0, 1, 1, 0], -1)
    with pytest.raises(TypeError, match=r"unsorted_segment_prod: data must be a numeric .* bool"):
        ek.math.unsorted_segment_prod([True, False], [0, 0], 1)
    with pytest.raises(TypeError, match=r"unsorted_segment_sqrt_n: data must be .*int32"):
        ek.math.unsorted_segment_sqrt_n([1, 2, 3], [0, 0, 1], 2)
    with pytest.raises(TypeError, match=r"unsorted_segment_sqrt_n: data must be a real .*complex"):
        ek.math.unsorted_segment_sqrt_n(ek.constant([1j, 2, 3]), [0, 0, 1], 2)


def test_mean_and_sqrt_n_with_rank_2_ids_and_inner_dimensions():
    # The counts broadcast against the inner dimensions whatever the ids' rank.
    data = np.arange(12.0).reshape(2, 3, 2)
    ids = [[0, 1, 0], [1, 1, 2]]
    sums = np.stack([data[0, 0] + data[0, 2], data[0, 1] + data[1, 0] + data[1, 1], data[1, 2]])
    n = np.array([[2.0], [3.0], [1.0]])
    np.testing.assert_allclose(ek.math.unsorted_segment_mean(data, ids, 3).numpy(), sums / n)
    np.testing.assert_allclose(
        ek.math.unsorted_segment_sqrt_n(data, ids, 3).numpy(), sums / np.sqrt(n)
    )
