"""keras.ops NumPy-like, nn, math and linalg ops against Keras 3.15 on TensorFlow
(differential fuzzing, fuzz17).

Every expected number and dtype was computed with the oracle (TensorFlow 2.21 + Keras 3.15.1,
`import keras` with KERAS_BACKEND=tensorflow) on the same inputs, unless a comment gives its
closed form.
"""

import numpy as np
import pytest

import eagerkernel as ek

ops = ek.keras.ops


def check(t, dtype, values, tol=1e-6):
    assert ek.keras.backend.standardize_dtype(t.dtype) == dtype
    np.testing.assert_allclose(np.asarray(t), values, rtol=tol, atol=tol)


# -- nn -----------------------------------------------------------------------------------------

X1D = np.arange(12, dtype="float32").reshape(1, 6, 2)
K1D = np.array([[[1.0], [2.0]], [[-1.0], [0.5]]], "float32")


def test_depthwise_conv_1d_accepts_a_stride():
    # Keras repeats a 1-D stride on the height-1 axis it adds; it used to raise ValueError.
    check(ops.depthwise_conv(X1D, K1D, strides=2), "float32", [[[-2, 3.5], [-2, 13.5], [-2, 23.5]]])
    check(
        ops.depthwise_conv(X1D, K1D, strides=3, padding="same"),
        "float32",
        [[[-2, 3.5], [-2, 18.5]]],
    )
    pointwise = np.ones((1, 2, 1), "float32")
    check(ops.separable_conv(X1D, K1D, pointwise, strides=2), "float32", [[[1.5], [11.5], [21.5]]])


@pytest.mark.parametrize(
    "fn, dtype, expected", [(ops.relu, "int8", [0, 2, 7]), (ops.relu6, "int64", [0, 2, 6])]
)
def test_relu_keeps_integer_dtypes(fn, dtype, expected):
    check(fn(np.array([-3, 2, 7], dtype)), dtype, expected)


# -- math ---------------------------------------------------------------------------------------


def test_sorted_segment_max_and_min_give_zero_to_empty_segments():
    # sorted=True is tf.math.segment_max/min: empty segments are 0; unsorted: the lowest value
    data = np.array([[-1, 1], [3, -4]], "int16")
    check(ops.segment_max(data, np.array([1, 1]), sorted=True), "int16", [[0, 0], [3, 1]])
    ids = np.array([0, 0, 2])
    check(ops.segment_min(np.array([1.5, 2.0, 3.0]), ids, sorted=True), "float64", [1.5, 0, 3])
    out = ops.segment_max(np.array([1.5, 2.0, 3.0], "float32"), ids, sorted=False)
    check(out, "float32", [2.0, np.finfo(np.float32).min, 3.0])


# -- dtypes of the NumPy-like ops ---------------------------------------------------------------


@pytest.mark.parametrize(
    "fn, x, dtype, expected",
    [
        (ops.cbrt, [-8, 27], "float64", [-2.0, 3.0]),
        (ops.deg2rad, [180], "float64", [np.pi]),
        (ops.rad2deg, [1], "float64", [180 / np.pi]),
        (ops.sinc, [0, 1], "float32", [1.0, 0.0]),  # sinc keeps floatx for int64
    ],
)
def test_int64_unary_float_dtypes(fn, x, dtype, expected):
    check(fn(np.array(x, "int64")), dtype, expected, tol=1e-7)


def test_heaviside_of_int64_is_float64():
    out = ops.heaviside(np.array([-2, 0, 3], "int64"), np.array([5], "int64"))
    check(out, "float64", [0.0, 5.0, 1.0])


def test_python_numbers_are_strong_in_mod_fmod_arctan2_logaddexp():
    # Keras's TF backend converts the Python number to an int32/float32 tensor first
    check(ops.fmod(np.array([7, -7], "int8"), -3), "int32", [1, -1])
    check(ops.fmod(np.array([7.5, -7.5], "float16"), 2.0), "float32", [1.5, -1.5])
    check(ops.mod(np.array([7, -7], "int8"), -3), "int32", [-2, -1])
    check(ops.mod(np.array([7.5, -7.5], "float16"), 2.0), "float32", [1.5, 0.5])
    check(ops.arctan2(2.5, np.array([1.0, -1.0], "float16")), "float32", [1.19029, 1.951303])
    check(ops.logaddexp(np.array([1.0, -1.0], "float16"), 2.5), "float32", [2.701413, 2.52975])


def test_logaddexp_of_equal_infinities():
    inf = np.array([np.inf, -np.inf], "float32")
    check(ops.logaddexp(inf, inf), "float32", [np.inf, -np.inf])


def test_fmod_has_a_gradient():
    # Keras computes sign(x1) * floormod(|x1|, |x2|): d/dx1 = 1, also where x2 == 0
    x = ek.constant([7.5, -7.5, 3.0])
    with ek.GradientTape() as tape:
        tape.watch(x)
        z = ek.reduce_sum(ops.fmod(x, ek.constant([2.0, 2.0, 0.0])))
    check(tape.gradient(z, x), "float32", [1.0, 1.0, 1.0])


def test_int8_matmul_of_matrices_is_int32():
    a, b = np.array([[2], [3]], "int8"), np.array([[[-5, 2, 5]]], "int8")
    check(ops.matmul(a, b), "int32", [[[-10, 4, 10], [-15, 6, 15]]])
    big = np.array([[100, 100]], "int8")
    check(ops.matmul(big, big.T), "int32", [[20000]])  # no int8 wrap-around
    check(ops.matmul(np.array([2, 3], "int8"), np.array([[1], [2]], "int8")), "int8", [8])


def test_nansum_widens_small_integers():
    check(ops.nansum(np.array([100, 100], "int8")), "int32", 200)
    check(ops.nansum(np.array([200, 100], "uint8")), "uint32", 300)
    check(ops.nansum(np.array([[True, True], [False, True]]), axis=1), "int32", [2, 1])


def test_sign_of_unsigned():
    check(ops.sign(np.array([0, 5], "uint8")), "uint8", [0, 1])


# -- order statistics and creation --------------------------------------------------------------


def test_quantile_keeps_infinities_when_no_interpolation():
    check(ops.quantile(np.array([1.0, np.inf]), 0.9, method="lower"), "float64", 1.0)
    check(ops.quantile(np.array([np.inf, 1.0]), 0.9, method="higher"), "float64", np.inf)
    x = np.array([-np.inf, 0.0], "float32")
    check(ops.quantile(x, 0.1, method="higher"), "float32", 0.0)
    x = np.array([-np.inf, 0.0, 1.0], "float32")
    check(ops.quantile(x, 0.5, method="midpoint"), "float32", 0.0)


def test_quantile_q_goes_through_float32_as_in_keras():
    x = np.array([-4.839786616751082, np.inf, 1.1156643137067954, -4.1348257945735325])
    check(ops.quantile(x, 0.5987652886924195), "float64", 0.04611816625971954, tol=1e-12)
    # percentile divides q by 100 in float32: 0.9f * 15 < 13.5 rounds to 13
    q = np.array([10.0, 50.0, 90.0])
    out = ops.percentile(np.arange(16, dtype="int64"), q, method="nearest")
    check(out, "float32", [2.0, 8.0, 13.0])


def test_linspace_with_an_integer_dtype():
    # Keras truncates start/stop to the dtype, spaces them in float64 and floors
    out, step = ops.linspace(-2.5, 3.9, 6, endpoint=False, dtype="int32", retstep=True)
    check(out, "int32", [-2, -2, -1, 0, 1, 2])
    check(step, "float64", 5 / 6)
    check(ops.linspace(-1.638, 2, 4, dtype="int32"), "int32", [-1, 0, 1, 2])
    out, step = ops.linspace(0, 1, 1, dtype="int32", retstep=True)
    check(out, "int32", [0])
    assert step.dtype == ek.float32 and np.isnan(step.numpy())
    out, step = ops.linspace(0, 1, 3, dtype="float64", retstep=True)
    check(out, "float64", [0.0, 0.5, 1.0])
    check(step, "float64", 0.5)


# -- errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["tril", "triu"])
def test_tril_triu_below_rank_2_raise_invalid_argument(name):
    # TensorFlow (Keras's backend): InvalidArgumentError from MatrixBandPart / StridedSlice
    with pytest.raises(ek.errors.InvalidArgumentError, match=rf"{name}.*x.shape=\(2,\)"):
        getattr(ops, name)(np.array([1.0, 2.0]))


def test_sparsemax_of_a_scalar_raises_invalid_argument():
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"sparsemax.*x must"):
        ops.sparsemax(np.float32(3.0))
