"""Regressions from differential fuzzing of linalg, signal and special functions against
TensorFlow.

Every expected value was computed with TensorFlow 2.21 (CPU) on the same call, unless the
comment gives a closed form.
"""

import numpy as np
import pytest

import eagerkernel as ek

NAN, INF = np.nan, np.inf


def _close(actual, expected, rtol=1e-6):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=rtol, atol=0)


# -- linalg -------------------------------------------------------------------------------------


def test_adjoint_and_conjugate_transpose_of_complex_matrices():
    x = ek.constant([[1 + 2j, 3j], [4, 5 - 1j]])
    expected = [[1 - 2j, 4], [-3j, 5 + 1j]]  # TensorFlow's, the conjugate transpose
    np.testing.assert_array_equal(ek.linalg.adjoint(x).numpy(), expected)
    np.testing.assert_array_equal(ek.linalg.matrix_transpose(x, conjugate=True).numpy(), expected)
    np.testing.assert_array_equal(ek.linalg.matrix_transpose(x).numpy(), np.transpose(x.numpy()))


@pytest.mark.parametrize(
    "fn",
    [
        ek.linalg.expm,
        ek.linalg.sqrtm,
        lambda x: ek.linalg.logm(ek.cast(x, ek.complex64)),
        lambda x: ek.linalg.lu(x)[0],
        lambda x: ek.linalg.lu_matrix_inverse(*ek.linalg.lu(x)),
        lambda x: ek.linalg.lu_reconstruct(*ek.linalg.lu(x)),
    ],
)
def test_matrix_functions_of_empty_matrices(fn):
    # TensorFlow returns an empty batch of 0 x 0 matrices (the reshape to (-1, 0, 0) failed)
    assert tuple(fn(ek.zeros((2, 0, 0))).shape) == (2, 0, 0)


def test_lu_solve_with_empty_matrices():
    lu, perm = ek.linalg.lu(ek.zeros((2, 0, 0)))
    assert tuple(ek.linalg.lu_solve(lu, perm, ek.ones((2, 0, 3))).shape) == (2, 0, 3)


def test_spectral_matrix_norm_and_its_gradient():
    x = ek.constant(np.arange(6.0).reshape(2, 3) - 2, ek.float32)
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.norm(x, ord=2, axis=[0, 1])
    _close(y.numpy(), 3.9396434)
    expected = [[-0.14843293, -0.20069312, -0.2529533], [0.390408, 0.52786267, 0.6653173]]
    _close(tape.gradient(y, x).numpy(), expected, rtol=1e-5)
    # the largest singular value of an empty matrix is reduce_max([]) = -inf, as in TensorFlow
    np.testing.assert_array_equal(ek.norm(ek.zeros((2, 0, 3)), ord=2, axis=[-2, -1]), [-INF] * 2)
    assert tuple(ek.norm(ek.ones((2, 3, 4)), ord=2, axis=[2, 0], keepdims=True).shape) == (1, 3, 1)


def test_p_norm_of_complex_input_is_real():
    y = ek.norm(ek.constant([3 + 4j, 1j], ek.complex64), ord=3)
    assert y.dtype == ek.float32
    _close(y.numpy(), 5.013298)


def test_slogdet_of_non_finite_matrices():
    sign, logdet = ek.linalg.slogdet(
        ek.constant([[[NAN, 1.0], [1.0, 1.0]], [[INF, 1.0], [1.0, 1.0]], [[2.0, 0.0], [0.0, 3.0]]])
    )
    np.testing.assert_array_equal(sign.numpy(), [NAN, 1.0, 1.0])
    _close(logdet.numpy(), [NAN, INF, 1.7917595])


def test_svd_of_non_finite_matrices_is_nan():
    a = ek.constant([[1.0, INF, 0.0], [2.0, 3.0, 4.0]], ek.float64)
    s, u, v = ek.linalg.svd(a)
    assert np.isnan(s.numpy()).all() and np.isnan(u.numpy()).all() and np.isnan(v.numpy()).all()
    batch = ek.constant([[[1.0, 0.0], [0.0, 1.0]], [[NAN, 0.0], [0.0, 1.0]]], ek.float64)
    np.testing.assert_array_equal(ek.linalg.svd(batch, compute_uv=False), [[1, 1], [NAN, NAN]])
    assert np.isnan(ek.linalg.pinv(a).numpy()).all()


@pytest.mark.parametrize("fn", [lambda x: ek.linalg.eigh(x)[0], ek.linalg.eigvalsh])
def test_eigh_of_a_nan_lower_triangle_raises(fn):
    # TensorFlow: "Self-adjoint eigen decomposition was not successful"; LAPACK returned garbage
    with pytest.raises(ek.errors.InvalidArgumentError, match="eigh"):
        fn(ek.constant([[NAN, 1.0], [1.0, 1.0]]))
    # an inf is no failure: NaN eigenvalues
    assert np.isnan(ek.linalg.eigvalsh(ek.constant([[INF, 1.0], [1.0, 1.0]])).numpy()).all()


# -- signal -------------------------------------------------------------------------------------


def test_ifft_gradient_of_an_empty_transform():
    x = ek.constant(np.zeros((2, 0), np.complex64))
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.signal.ifft2d(ek.reshape(x, (2, 0, 1)))
    g = tape.gradient(y, x)
    assert g is None or tuple(g.shape) == (2, 0)


@pytest.mark.parametrize(
    "shape, step, axis, expected",
    [
        ((4, 1, 5), 1, -1, (4, 1, 5, 0)),
        ((0,), 1, -1, (0, 0)),
        ((6, 6), 2, -1, (6, 3, 0)),
        ((6, 6), 4, 0, (2, 0, 6)),
    ],
)
def test_frame_of_length_zero_with_pad_end(shape, step, axis, expected):
    # TensorFlow: -(-N // frame_step) frames, even when empty frames would fit past the end
    out = ek.signal.frame(ek.zeros(shape), 0, step, pad_end=True, axis=axis)
    assert tuple(out.shape) == expected


# -- special functions --------------------------------------------------------------------------


def test_betainc_broadcasts_scalars():
    out = ek.math.betainc(ek.constant([1.0, 2.0]), 2.0, ek.constant(0.3))
    _close(out.numpy(), [0.50999993, 0.21599996])
    with pytest.raises(ek.errors.InvalidArgumentError, match="betainc"):
        ek.math.betainc(ek.ones((2, 1)), ek.ones((1, 2)), ek.ones((2, 2)))


def test_betainc_edge_values_and_gradient():
    out = ek.math.betainc(
        ek.constant([NAN, NAN, 0.0, 1.0, 2.0]),
        ek.constant([1.0, 1.0, 1.0, INF, -1.0]),
        ek.constant([0.0, 1.0, 0.3, 0.3, 0.5]),
    )
    np.testing.assert_array_equal(out.numpy(), [0.0, 1.0, NAN, NAN, NAN])
    a = ek.constant([21.0, 2.0], ek.float64)
    b = ek.constant([1.0, 3.0], ek.float64)
    x = ek.constant([1.2, 0.4], ek.float64)
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.math.betainc(a, b, x)
    # TensorFlow's xlog1py(b - 1, -x): a finite gradient at x > 1 when b = 1
    _close(tape.gradient(y, x).numpy(), [805.089598414, 1.728], rtol=1e-9)


def test_igamma_edge_values():
    a = ek.constant([0.0, NAN, -1.0, INF, 2.0])
    x = ek.constant([1.0, 0.0, 0.0, INF, 1.0])
    np.testing.assert_allclose(ek.math.igamma(a, x).numpy(), [NAN, 0, 0, 0, 0.26424113])
    out = ek.math.igammac(ek.constant([0.0, INF, 2.0]), ek.constant([1.0, INF, 1.0]))
    np.testing.assert_allclose(out.numpy(), [NAN, 0, 0.7357589])


def test_zeta_and_polygamma_edge_values():
    out = ek.math.zeta(
        ek.constant([3.7, 2.0, 3.0, INF, NAN, 2.0]), ek.constant([-1.0, -1.0, 0.0, 2.0, 0.0, 1.5])
    )
    np.testing.assert_allclose(out.numpy(), [NAN, INF, NAN, 0, NAN, 0.93480223], rtol=1e-6)
    out = ek.math.polygamma(ek.constant([2.0, 0.0, 1.0, 2.0]), ek.constant([0.0, 0.0, 0.5, -2.0]))
    np.testing.assert_allclose(out.numpy(), [NAN, NAN, 4.934802, NAN], rtol=1e-6)


def test_lgamma_and_digamma_edge_values():
    v = ek.constant([-INF, 0.0, -0.0, -1.0, 2.5])
    _close(ek.math.lgamma(v).numpy(), [INF, INF, INF, INF, 0.28468287])
    _close(ek.math.digamma(v).numpy(), [NAN, NAN, NAN, NAN, 0.7031568], rtol=1e-5)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("bessel_y0", [-INF, -INF, -0.44451872]),
        ("bessel_y1", [-INF, -INF, -1.4714724]),
        ("bessel_k0", [INF, INF, 0.9244191]),
        ("bessel_k1", [INF, INF, 1.656441]),
        ("bessel_k0e", [INF, INF, 1.5241094]),
        ("bessel_k1e", [INF, INF, 2.7310095]),
    ],
)
def test_second_kind_bessel_functions_below_zero(name, expected):
    out = getattr(ek.math.special, name)(ek.constant([-1.0, -2.5, 0.5]))
    _close(out.numpy(), expected, rtol=1e-6)


def test_expint_is_nan_below_zero_and_at_inf():
    out = ek.math.special.expint(ek.constant([-1.0, INF, 1.0]))
    _close(out.numpy(), [NAN, NAN, 1.8951179], rtol=1e-6)
