"""Divergences from TensorFlow found by differential fuzzing of elementwise math, comparisons,
reductions and their gradients (fuzz1). Expected numbers were computed with TensorFlow 2.21
(tensorflow-cpu) on the same inputs, unless a closed form is given."""

import warnings

import numpy as np
import pytest

import eagerkernel as ek

nan, inf = np.nan, np.inf


def grads(f, *xs):
    xs = [ek.constant(np.array(x, np.float64)) for x in xs]
    with ek.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = f(*xs)
    return [g.numpy() for g in tape.gradient(y, xs)]


def assert_same(got, want):
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


# -- floordiv / floormod ------------------------------------------------------------------------


def test_float_floordiv_is_floor_of_the_quotient():
    # TF's FloorDiv for floats is floor(x / y); NumPy's // gives 9 for 1 // 0.1, nan for inf // 3
    # and -1 for -7 // inf. Values from TensorFlow.
    x = ek.constant([1.0, inf, -inf, 5.0, -7.0, -7.5], ek.float64)
    y = ek.constant([0.1, 3.0, 2.0, 0.0, inf, 2.0], ek.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumPy RuntimeWarning leaks out
        out = ek.math.floordiv(x, y)
        ek.math.floormod(x, y)
    assert out.dtype == ek.float64
    assert_same(out.numpy(), [10.0, inf, -inf, inf, -0.0, -4.0])
    assert np.signbit(out.numpy()[4])
    assert_same(
        ek.math.floordiv(ek.constant([1.0, inf, -3.0]), ek.constant([0.1, -2.0, 0.0])).numpy(),
        np.array([10.0, -inf, -inf], np.float32),
    )
    f16 = ek.math.floordiv(ek.constant([1.0, inf], ek.float16), ek.constant([0.1, 3.0], ek.float16))
    assert f16.dtype == ek.float16
    assert_same(f16.numpy(), np.array([10.0, inf], np.float16))
    assert_same((ek.constant([1.0, inf]) // ek.constant([0.1, 2.0])).numpy(), [10.0, inf])


def test_integer_division_by_zero_of_an_empty_tensor_is_empty():
    out = ek.math.floormod(ek.zeros([4, 0], ek.int16), ek.constant(0, ek.int16))
    assert out.dtype == ek.int16 and tuple(out.shape) == (4, 0)
    out = ek.math.floordiv(ek.zeros([0], ek.int32), ek.constant([0], ek.int32))
    assert out.dtype == ek.int32 and tuple(out.shape) == (0,)
    with pytest.raises(ek.errors.InvalidArgumentError, match="floordiv"):
        ek.math.floordiv(ek.constant([1]), ek.constant([0]))


@pytest.mark.parametrize(
    "op, name", [(ek.math.floordiv, "FloorDiv"), (ek.math.floormod, "FloorMod")]
)
def test_floordiv_and_floormod_refuse_complex(op, name):
    z = ek.constant([1j], ek.complex64)
    with pytest.raises(ek.errors.InvalidArgumentError, match=f"{name}.*complex64"):
        op(z, z)


# -- ordering of complex numbers, bool and sign -------------------------------------------------


@pytest.mark.parametrize(
    "op, name",
    [
        (ek.less, "Less"),
        (ek.less_equal, "LessEqual"),
        (ek.greater, "Greater"),
        (ek.greater_equal, "GreaterEqual"),
        (ek.maximum, "Maximum"),
        (ek.minimum, "Minimum"),
    ],
)
def test_ordering_ops_refuse_complex(op, name):
    # TF has no complex kernel for them (InvalidArgumentError); NumPy orders lexicographically.
    z = ek.constant([1j, 2.0], ek.complex64)
    with pytest.raises(ek.errors.InvalidArgumentError, match=f"{name}.*complex64") as info:
        op(z, z)
    assert isinstance(info.value, TypeError)


def test_ordering_operators_refuse_complex():
    z = ek.constant([1j], ek.complex64)
    with pytest.raises(ek.errors.InvalidArgumentError, match="Less"):
        z < z  # noqa: B015


@pytest.mark.parametrize("op", [ek.math.truediv, ek.divide])
def test_true_division_of_bools_raises_type_error(op):
    b = ek.constant([True, False])
    with pytest.raises(TypeError, match=r"truediv.*bool"):
        op(b, b)


def test_sign_of_bool_raises_naming_the_op():
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"Sign.*bool") as info:
        ek.sign(ek.constant([True]))
    assert isinstance(info.value, TypeError)  # not NumPy's raw UFuncTypeError message
    assert "ufunc" not in str(info.value)


# -- gradients ----------------------------------------------------------------------------------


def test_maximum_minimum_gradient_routes_nan_to_y():
    # TF's _MaximumMinimumGrad: x takes g where x >= y (x <= y), y takes the rest, so a NaN on
    # either side sends g to y. Values from TensorFlow.
    w = ek.constant([1.0, 2.0, 3.0], ek.float64)
    for op in (ek.maximum, ek.minimum):
        gx, gy = grads(
            lambda x, y, op=op: ek.reduce_sum(op(x, y) * w), [nan, -0.0, 1.0], [-inf, nan, 1.0]
        )
        assert_same(gx, [0.0, 0.0, 3.0])
        assert_same(gy, [1.0, 2.0, 0.0])


def test_xdivy_gradient_at_zero_divisor():
    # TF: d/dx xdivy(x, y) = xdivy(x != 0, y) = 1 / y where x != 0 (inf at y = 0).
    gx, gy = grads(
        lambda x, y: ek.reduce_sum(ek.math.xdivy(x, y)), [-2.0, 0.0, 3.0], [-0.0, 0.0, 2.0]
    )
    assert_same(gx, [-inf, 0.0, 0.5])
    assert_same(gy, [inf, 0.0, -0.75])


def test_elu_gradient_at_nan_passes_g():
    # TF's EluGrad: g * (y + 1) where x < 0, else g (NaN included). Values from TensorFlow.
    w = ek.constant([2.0, 3.0, 4.0], ek.float64)
    (g,) = grads(lambda x: ek.reduce_sum(ek.nn.elu(x) * w), [nan, -1.0, 0.0])
    np.testing.assert_allclose(g, [2.0, 3.0 * np.exp(-1.0), 4.0], rtol=1e-15)


def test_reduce_prod_gradient_without_division():
    # TF's _ProdGrad: exclusive running products from both sides, so infinities and NaNs
    # give the product of the others, not inf / inf. Values from TensorFlow.
    w = ek.constant([1.0, 2.0, 3.0, 4.0], ek.float64)
    (g,) = grads(lambda x: ek.reduce_sum(ek.reduce_prod(x, axis=0) * w), [[0.5, 8.0, -16.0, inf]])
    assert_same(g, [[1.0, 2.0, 3.0, 4.0]])
    (g,) = grads(
        lambda x: ek.reduce_sum(ek.reduce_prod(x, axis=-1, keepdims=True)),
        [[2.0, nan, -0.0], [0.0, 0.0, 3.0], [inf, 2.0, 0.5]],
    )
    assert_same(g, [[nan, -0.0, nan], [0.0, 0.0, 0.0], [1.0, inf, inf]])
    (g,) = grads(lambda x: ek.reduce_prod(x), [[2.0, 3.0], [4.0, 0.5]])
    assert_same(g, [[6.0, 4.0], [3.0, 24.0]])
    x = np.arange(1, 13, dtype=float).reshape(2, 3, 2)
    (g,) = grads(lambda t: ek.reduce_prod(t, axis=[0, 2]), x)
    assert_same(g, [[[112, 56], [360, 270], [792, 660]], [[16, 14], [120, 108], [360, 330]]])


def test_cumprod_gradient_at_zero_is_tf_div_no_nan():
    # TF's _CumprodGrad divides with div_no_nan: 0 where x is 0. Values from TensorFlow.
    w = ek.constant([1.0, 2.0, 3.0], ek.float64)
    (g,) = grads(
        lambda x: ek.reduce_sum(ek.math.cumprod(x, exclusive=True, reverse=True) * w),
        [2.0, 0.0, 3.0],
    )
    assert_same(g, [0.0, 0.0, 2.0])
    (g,) = grads(lambda x: ek.reduce_sum(ek.math.cumprod(x) * w), [2.0, 0.0, 3.0])
    assert_same(g, [1.0, 0.0, 0.0])


def test_exclusive_cumprod_of_an_empty_axis():
    out = ek.math.cumprod(ek.zeros([0], ek.int16), exclusive=True)
    assert out.dtype == ek.int16 and tuple(out.shape) == (0,)
    out = ek.math.cumprod(ek.zeros([2, 0]), axis=1, exclusive=True, reverse=True)
    assert tuple(out.shape) == (2, 0)


# -- reductions ---------------------------------------------------------------------------------


def test_integer_mean_over_nothing_keeps_the_dtype():
    out = ek.reduce_mean(ek.zeros([0, 4], ek.int16))
    assert out.dtype == ek.int16 and out.numpy() == 0
    out = ek.reduce_mean(ek.zeros([2, 0, 3], ek.int32), axis=-2, keepdims=True)
    assert out.dtype == ek.int32
    assert_same(out.numpy(), np.zeros([2, 1, 3], np.int32))


def test_complex_moments_over_nothing_are_real():
    out = ek.math.reduce_variance(ek.zeros([0, 2], ek.complex64))
    assert out.dtype == ek.float32 and np.isnan(out.numpy())
    out = ek.math.reduce_std(ek.zeros([0, 2], ek.complex64), axis=0)
    assert out.dtype == ek.float32 and tuple(out.shape) == (2,)
    out = ek.math.reduce_variance(ek.constant([1 + 1j, 2 - 1j], ek.complex64))
    assert out.dtype == ek.float32 and out.numpy() == 1.25


@pytest.mark.parametrize(
    "op, axis", [(ek.reduce_sum, [0, 0]), (ek.reduce_max, [1, -1]), (ek.math.reduce_std, (0, -2))]
)
def test_duplicate_reduction_axes_raise(op, axis):
    # TF: "Invalid reduction arguments: Axes contains duplicate dimension".
    with pytest.raises(ek.errors.InvalidArgumentError, match=f"{op.__name__}: axis .* twice"):
        op(ek.ones([2, 3]), axis=axis)
    assert ek.reduce_sum(ek.ones([2, 3]), axis=[1, -2]).numpy() == 6.0


def test_arg_reductions_output_type_lists():
    # TF's attrs: ArgMax takes int16, uint16, int32, int64; ArgMin only int32, int64.
    x = ek.constant([1.0, 2.0])
    out = ek.argmax(x, output_type=ek.int16)
    assert out.dtype == ek.int16 and out.numpy() == 1
    for op, dtype in ((ek.argmax, ek.float32), (ek.argmin, ek.int16)):
        with pytest.raises(ek.errors.InvalidArgumentError, match=f"{op.__name__}: output_type"):
            op(x, output_type=dtype)
        with pytest.raises(TypeError):
            op(x, output_type=dtype)
