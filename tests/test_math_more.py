"""tf.math functions added from a sweep that called every public tf.math / tf.nn function
under TensorFlow 2.21 and eagerkernel (lbeta, polygamma, erfcinv, reciprocal_no_nan,
scalar_mul, zero_fraction, logical_xor, invert_permutation, is_non_decreasing,
is_strictly_increasing, accumulate_n, the tf.nn/tf.math aliases), and what it showed wrong:
integer floor/ceil/atan2 ran, a dtype with no kernel raised TypeError where TensorFlow raises
InvalidArgumentError, integer divide_no_nan refused, and a tensor `beta` of silu lost its
gradient. Expected numbers are TensorFlow 2.21's unless a closed form is given."""

from __future__ import annotations

import math

import numpy as np
import pytest

import eagerkernel as ek

IAE = ek.errors.InvalidArgumentError


def fd_grad(f, x, eps=1e-6):
    """Central finite differences of sum(f(x)) in float64."""
    x = np.asarray(x, np.float64)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        out[i] = (f(x + d).sum() - f(x - d).sum()) / (2 * eps)
    return out


def test_lbeta_values_gradient_and_edges():
    x = ek.constant([[1.0, 2.0], [3.0, 4.0]])
    # B(1, 2) = 1/2, B(3, 4) = 2! 3! / 6! = 1/60
    np.testing.assert_allclose(ek.math.lbeta(x).numpy(), [math.log(0.5), math.log(1 / 60)], 1e-6)
    x = ek.constant([[1.5, 2.5, 0.5]])
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.math.lbeta(x)
    np.testing.assert_allclose(
        tape.gradient(y, x).numpy(), [[-1.3523811, -0.68571424, -3.3523817]], rtol=1e-5
    )
    assert np.isneginf(ek.math.lbeta(ek.zeros((2, 0))).numpy()).all()  # as TensorFlow
    with pytest.raises(IAE, match="Invalid reduction dimension"):
        ek.math.lbeta(ek.constant(2.0))


def test_polygamma_values_nan_orders_and_gradient():
    a = ek.constant([0.0, 1.0, 2.0, 1.5, -1.0])
    x = ek.constant([1.5, 2.5, 3.5, 1.0, 1.0])
    got = ek.math.polygamma(a, x).numpy()
    np.testing.assert_allclose(got[:3], [0.03648996, 0.49035773, -0.10820405], rtol=1e-5)
    assert np.isnan(got[3:]).all()  # orders that are not whole numbers >= 0
    # polygamma(1, 1) = pi^2 / 6
    assert float(ek.math.polygamma(1.0, ek.constant(1.0))) == pytest.approx(math.pi**2 / 6)
    a, x = ek.constant([1.0, 2.0]), ek.constant([1.5, 2.5])
    with ek.GradientTape(persistent=True) as tape:
        tape.watch([a, x])
        y = ek.math.polygamma(a, x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [-0.8287967, 0.22390586], 1e-5)
    assert tape.gradient(y, a) is None  # TensorFlow has no gradient in the order
    x64 = ek.constant([1.5, 2.5], ek.float64)
    with ek.GradientTape() as tape:
        tape.watch(x64)
        y = ek.math.polygamma(ek.constant([1.0, 2.0], ek.float64), x64)
    fd = fd_grad(lambda v: ek.math.polygamma(ek.constant([1.0, 2.0], ek.float64), v).numpy(), x64)
    np.testing.assert_allclose(tape.gradient(y, x64).numpy(), fd, rtol=1e-6)
    with pytest.raises(IAE, match="Polygamma: x must be a floating-point tensor"):
        ek.math.polygamma(ek.constant([1]), ek.constant([2]))


def test_erfcinv_values_edges_and_gradient():
    got = ek.math.erfcinv(ek.constant([0.0, 2.0, 3.0, 0.5, 1.5])).numpy()
    assert got[0] == np.inf and got[1] == -np.inf and np.isnan(got[2])
    np.testing.assert_allclose(got[3:], [0.4769363, -0.4769363], rtol=1e-6)
    x = ek.constant([0.3, 1.2], ek.float64)
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.math.erfcinv(x)
    fd = fd_grad(lambda v: ek.math.erfcinv(ek.constant(v)).numpy(), x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), fd, rtol=1e-6)
    # erfc(erfcinv(x)) = x
    assert float(ek.math.erfc(ek.math.erfcinv(ek.constant(0.3, ek.float64)))) == pytest.approx(0.3)


def test_reciprocal_no_nan_scalar_mul_and_zero_fraction():
    np.testing.assert_array_equal(
        ek.math.reciprocal_no_nan(ek.constant([0.0, 2.0])).numpy(), [0.0, 0.5]
    )
    with pytest.raises(IAE, match="DivNoNan: x must be a floating-point tensor, got int32"):
        ek.math.reciprocal_no_nan(ek.constant([0, 2]))
    np.testing.assert_array_equal(ek.math.scalar_mul(2, ek.constant([1.0, 2.0])).numpy(), [2, 4])
    with pytest.raises(ValueError, match=r"The input scalar must be a 0-D value. Received shape"):
        ek.math.scalar_mul(ek.constant([1.0, 2.0]), ek.constant([1.0, 2.0]))
    with pytest.raises(TypeError):
        ek.math.scalar_mul(2.5, ek.constant([1, 2]))
    assert float(ek.math.zero_fraction(ek.constant([[0, 1], [0, 0]]))) == 0.75
    assert ek.nn.zero_fraction(ek.constant([0.0, 1.0])).dtype == ek.float32
    assert math.isnan(float(ek.math.zero_fraction(ek.zeros((0,)))))


def test_logical_xor_and_the_bool_only_logical_ops():
    got = ek.math.logical_xor(ek.constant([True, True, False]), ek.constant([True, False, False]))
    np.testing.assert_array_equal(got.numpy(), [False, True, False])
    for op in (ek.math.logical_xor, ek.math.logical_and, ek.math.logical_or):
        with pytest.raises(IAE, match="inputs must be bool, got int32"):
            op(ek.constant([1, 0]), ek.constant([1, 1]))
    with pytest.raises(TypeError):  # still a TypeError, as before
        ek.math.logical_not(ek.constant([1]))


def test_invert_permutation_and_its_errors():
    np.testing.assert_array_equal(
        ek.math.invert_permutation([3, 4, 0, 2, 1]).numpy(), [2, 4, 3, 0, 1]
    )
    assert ek.math.invert_permutation(ek.constant([1, 0], ek.int64)).dtype == ek.int64
    with pytest.raises(IAE, match="0 is duplicated in the input"):
        ek.math.invert_permutation([0, 0, 1])
    with pytest.raises(IAE, match="expects a 1D vector"):
        ek.math.invert_permutation([[0, 1]])
    with pytest.raises(IAE, match="5 is not between 0 and 2"):
        ek.math.invert_permutation([5, 0])
    with pytest.raises(IAE, match="must be int32 or int64, got float32"):
        ek.math.invert_permutation(ek.constant([1.0, 0.0]))


def test_is_non_decreasing_and_is_strictly_increasing():
    assert bool(ek.math.is_non_decreasing(ek.constant([[1, 2], [2, 3]])))  # row-major order
    assert not bool(ek.math.is_non_decreasing([3.0, 1.0]))
    assert bool(ek.math.is_strictly_increasing(ek.constant([], ek.float32)))
    assert not bool(ek.math.is_strictly_increasing([1, 2, 2]))
    assert bool(ek.math.is_strictly_increasing([1, 2, 3]))
    with pytest.raises(TypeError, match="Expected x to be numeric"):
        ek.math.is_non_decreasing(ek.constant(["a", "b"]))


def test_accumulate_n_sums_and_checks_shape_and_dtype():
    xs = [ek.constant([1.0, 2.0]), ek.constant([3.0, 4.0])]
    np.testing.assert_array_equal(ek.math.accumulate_n(xs).numpy(), [4.0, 6.0])
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2,\) are not compatible"):
        ek.math.accumulate_n(xs, shape=[3])
    with pytest.raises(TypeError, match="tensor_dtype is float64"):
        ek.math.accumulate_n(xs, tensor_dtype=ek.float64)
    with pytest.raises(ValueError, match="non-empty list"):
        ek.math.accumulate_n([])


def test_aliases_between_tf_math_and_tf_nn():
    assert ek.math.softmax is ek.nn.softmax and ek.math.log_softmax is ek.nn.log_softmax
    assert ek.math.softsign is ek.nn.softsign
    assert ek.nn.top_k is ek.math.top_k and ek.nn.in_top_k is ek.math.in_top_k
    assert ek.nn.space_to_batch is ek.space_to_batch
    np.testing.assert_array_equal(ek.nn.top_k(ek.constant([1.0, 3.0, 2.0]), 2).values, [3, 2])


@pytest.mark.parametrize(
    "call, op",
    [
        (lambda: ek.floor(ek.constant([1, 2])), "Floor"),
        (lambda: ek.math.ceil(ek.constant([1, 2])), "Ceil"),
        (lambda: ek.math.atan2(ek.constant([1]), ek.constant([1])), "Atan2"),
        (lambda: ek.exp(ek.constant([1])), "Exp"),
        (lambda: ek.math.erf(ek.constant([1j])), "Erf"),
    ],
)
def test_a_dtype_without_a_kernel_raises_invalid_argument_error_that_is_a_type_error(call, op):
    with pytest.raises(IAE, match=f"^{op}: ") as info:
        call()
    assert isinstance(info.value, TypeError)  # what eagerkernel raised before
    assert info.value.error_code == ek.errors.INVALID_ARGUMENT


def test_floor_ceil_atan2_still_work_on_floats():
    np.testing.assert_array_equal(ek.floor(ek.constant([1.5, -1.5])).numpy(), [1.0, -2.0])
    np.testing.assert_array_equal(ek.math.ceil(ek.constant([1.5, -1.5])).numpy(), [2.0, -1.0])
    got = ek.math.atan2(ek.constant([1.0, -1.0]), ek.constant([-1.0, -1.0])).numpy()
    np.testing.assert_allclose(got, [3 * math.pi / 4, -3 * math.pi / 4], rtol=1e-6)


def test_divide_no_nan_casts_integers_as_truediv():
    got = ek.math.divide_no_nan(ek.constant([1, 2]), ek.constant([0, 2]))
    assert got.dtype == ek.float64
    np.testing.assert_array_equal(got.numpy(), [0.0, 1.0])
    small = ek.math.divide_no_nan(ek.constant([3], ek.int8), ek.constant([0], ek.int8))
    assert small.dtype == ek.float32 and float(small[0]) == 0.0


def test_silu_with_a_tensor_beta_is_differentiable_in_beta():
    x = ek.constant([0.5, -1.0])
    beta = ek.Variable(1.5)
    with ek.GradientTape() as tape:
        y = ek.reduce_sum(ek.nn.silu(x, beta=beta))
    grad = float(tape.gradient(y, beta))
    assert grad == pytest.approx(0.2036202, rel=1e-5)  # TensorFlow

    def f(b):
        xs = np.array([0.5, -1.0])
        return xs / (1 + np.exp(-b * xs))

    assert grad == pytest.approx(float(fd_grad(f, 1.5)), rel=1e-4)
    np.testing.assert_allclose(  # a number and a tensor beta agree
        ek.nn.silu(x, beta=ek.constant(1.5)).numpy(), ek.nn.silu(x, beta=1.5).numpy(), 1e-6
    )
    per_feature = ek.nn.swish(ek.constant([[1.0, 2.0]]), beta=ek.constant([1.0, 0.0]))
    np.testing.assert_allclose(per_feature.numpy(), [[1 / (1 + math.exp(-1)), 1.0]], 1e-6)
