"""`ek.linalg`'s matrix ops and decompositions: values against NumPy closed forms on batched
inputs, every gradient against finite differences (TensorFlow's gradient formulas), second
order through nested tapes, errors by type and message, and TensorFlow itself when installed."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients

RNG = np.random.default_rng(7)
A = RNG.normal(size=(2, 3, 3)) + 3 * np.eye(3)  # well conditioned, batched
B = RNG.normal(size=(2, 3, 2))
SPD = A @ np.swapaxes(A, -1, -2) + np.eye(3)
IAE = ek.errors.InvalidArgumentError


def spd(x):
    """A symmetric positive definite function of any square ``x`` (for cholesky/eigh checks)."""
    return ek.matmul(x, x, transpose_b=True) + 3 * ek.eye(x.shape[-1], dtype=x.dtype)


def sym(x):
    return x + ek.linalg.adjoint(x)


# -- values -------------------------------------------------------------------------------------


def test_inverse_and_determinants_match_numpy():
    np.testing.assert_allclose(ek.linalg.inv(A).numpy(), np.linalg.inv(A), rtol=1e-12)
    np.testing.assert_allclose(
        ek.linalg.inv(A, adjoint=True).numpy(), np.linalg.inv(np.swapaxes(A, -1, -2)), rtol=1e-12
    )
    np.testing.assert_allclose(ek.linalg.det(A).numpy(), np.linalg.det(A), rtol=1e-12)
    sign, logdet = ek.linalg.slogdet(-A)
    ref_sign, ref_log = np.linalg.slogdet(-A)
    np.testing.assert_array_equal(sign.numpy(), ref_sign)
    np.testing.assert_allclose(logdet.numpy(), ref_log, rtol=1e-12)
    np.testing.assert_allclose(ek.linalg.logdet(SPD).numpy(), np.linalg.slogdet(SPD)[1], rtol=1e-12)
    # float32 and float16 (computed in float32) keep their dtype
    x32 = ek.linalg.inv(ek.constant(A, ek.float32))
    assert x32.dtype == ek.float32
    np.testing.assert_allclose(x32.numpy(), np.linalg.inv(A), rtol=1e-5, atol=1e-6)
    d16 = ek.linalg.det(ek.constant(A, ek.float16))
    assert d16.dtype == ek.float16
    np.testing.assert_allclose(
        d16.numpy(), np.linalg.det(A.astype(np.float16).astype(np.float32)), rtol=1e-2
    )
    # a singular matrix: det 0, slogdet (0, -inf), as TensorFlow
    sign, logdet = ek.linalg.slogdet([[1.0, 2.0], [2.0, 4.0]])
    assert float(ek.linalg.det([[1.0, 2.0], [2.0, 4.0]])) == 0.0
    assert float(sign) == 0.0 and float(logdet) == -np.inf


def test_cholesky_and_solves_match_numpy():
    chol = ek.linalg.cholesky(SPD)
    np.testing.assert_allclose(chol.numpy(), np.linalg.cholesky(SPD), rtol=1e-12)
    # only the lower triangle is read
    garbage_upper = SPD + np.triu(RNG.normal(size=(3, 3)), 1)
    np.testing.assert_allclose(ek.linalg.cholesky(garbage_upper).numpy(), chol.numpy())
    np.testing.assert_allclose(
        ek.linalg.cholesky_solve(chol, B).numpy(), np.linalg.solve(SPD, B), rtol=1e-10
    )
    low, up = np.tril(A), np.triu(A)
    np.testing.assert_allclose(
        ek.linalg.triangular_solve(A, B).numpy(), np.linalg.solve(low, B), rtol=1e-12
    )
    np.testing.assert_allclose(
        ek.linalg.triangular_solve(A, B, lower=False, adjoint=True).numpy(),
        np.linalg.solve(np.swapaxes(up, -1, -2), B),
        rtol=1e-12,
    )
    # batch dimensions broadcast, as in TensorFlow
    out = ek.linalg.triangular_solve(A[0], B)
    assert out.shape == (2, 3, 2)
    np.testing.assert_allclose(out.numpy(), np.linalg.solve(np.tril(A[0]), B), rtol=1e-12)
    half = ek.linalg.cholesky(ek.constant(SPD[0], ek.float16))
    assert half.dtype == ek.float16
    np.testing.assert_allclose(half.numpy(), np.linalg.cholesky(SPD[0]), rtol=1e-2, atol=1e-2)


def test_diagonal_and_band_ops_match_numpy():
    x = RNG.normal(size=(2, 3, 4))
    np.testing.assert_array_equal(ek.linalg.diag_part(x).numpy(), np.diagonal(x, 0, -2, -1))
    for k in (-2, -1, 1, 3):
        np.testing.assert_array_equal(
            ek.linalg.diag_part(x, k=k).numpy(), np.diagonal(x, k, -2, -1)
        )
    d = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    np.testing.assert_array_equal(ek.linalg.diag(d).numpy(), [np.diag(r) for r in d])
    np.testing.assert_array_equal(ek.linalg.diag(d, k=-1).numpy(), [np.diag(r, -1) for r in d])
    # TensorFlow's documented examples: num_rows/num_cols and padding_value
    np.testing.assert_array_equal(
        ek.linalg.diag([1, 2], k=-1, num_rows=3, num_cols=4).numpy(),
        [[0, 0, 0, 0], [1, 0, 0, 0], [0, 2, 0, 0]],
    )
    np.testing.assert_array_equal(
        ek.linalg.diag([1, 2], k=-1, num_rows=3, padding_value=9).numpy(),
        [[9, 9], [1, 9], [9, 2]],
    )
    np.testing.assert_array_equal(
        ek.linalg.diag([1, 2], num_rows=3).numpy(), [[1, 0], [0, 2], [0, 0]]
    )
    np.testing.assert_array_equal(ek.linalg.diag([1, 2], num_cols=3).numpy().shape, (2, 3))
    set_ = ek.linalg.set_diag(x, np.zeros((2, 3)), k=1).numpy()
    want = x.copy()
    want[:, [0, 1, 2], [1, 2, 3]] = 0
    np.testing.assert_array_equal(set_, want)
    sq = RNG.normal(size=(2, 4, 4))
    for lo, hi in ((-1, 0), (0, -1), (0, 0), (1, 2), (-1, -1)):
        rows, cols = np.indices((4, 4))
        keep = ((lo < 0) | (rows - cols <= lo)) & ((hi < 0) | (cols - rows <= hi))
        np.testing.assert_array_equal(
            ek.linalg.band_part(sq, lo, hi).numpy(), np.where(keep, sq, 0.0)
        )
    np.testing.assert_array_equal(ek.linalg.band_part(sq, -1, 0).numpy(), np.tril(sq))
    assert ek.linalg.band_part(ek.constant(sq), ek.constant(1), 0).shape == (2, 4, 4)


def test_cross_matvec_adjoint_eye():
    a, b = RNG.normal(size=(2, 5, 3)), RNG.normal(size=(2, 5, 3))
    np.testing.assert_allclose(ek.linalg.cross(a, b).numpy(), np.cross(a, b), rtol=1e-12)
    v = RNG.normal(size=(2, 3))
    np.testing.assert_allclose(
        ek.linalg.matvec(A, v).numpy(), np.einsum("bij,bj->bi", A, v), rtol=1e-12
    )
    np.testing.assert_allclose(
        ek.linalg.matvec(A, v, adjoint_a=True).numpy(), np.einsum("bji,bj->bi", A, v)
    )
    np.testing.assert_array_equal(ek.linalg.adjoint(B).numpy(), np.swapaxes(B, -1, -2))
    assert ek.linalg.eye is ek.eye
    assert ek.linalg.eye(2, batch_shape=[3]).shape == (3, 2, 2)


@pytest.mark.parametrize("shape", [(2, 5, 3), (2, 3, 5), (4, 4)])
def test_svd_reconstructs_and_matches_numpy(shape):
    x = RNG.normal(size=shape)
    s, u, v = ek.linalg.svd(x)
    p = min(shape[-2:])
    assert s.shape == (*shape[:-2], p)
    assert u.shape == (*shape[:-1], p) and v.shape == (*shape[:-2], shape[-1], p)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(x, compute_uv=False), rtol=1e-12)
    np.testing.assert_allclose(
        np.einsum("...s,...us,...vs->...uv", s.numpy(), u.numpy(), v.numpy()), x, atol=1e-12
    )
    eye_p = np.broadcast_to(np.eye(p), (*shape[:-2], p, p))
    np.testing.assert_allclose(np.swapaxes(u.numpy(), -1, -2) @ u.numpy(), eye_p, atol=1e-12)
    np.testing.assert_allclose(np.swapaxes(v.numpy(), -1, -2) @ v.numpy(), eye_p, atol=1e-12)
    _s_full, u_full, v_full = ek.linalg.svd(x, full_matrices=True)
    assert u_full.shape[-2:] == (shape[-2],) * 2 and v_full.shape[-2:] == (shape[-1],) * 2
    only_s = ek.linalg.svd(ek.constant(x, ek.float32), compute_uv=False)
    assert only_s.dtype == ek.float32
    np.testing.assert_allclose(only_s.numpy(), s.numpy(), rtol=1e-5)


@pytest.mark.parametrize("shape", [(2, 5, 3), (2, 3, 5), (4, 4)])
def test_qr_reconstructs(shape):
    x = RNG.normal(size=shape)
    q, r = ek.linalg.qr(x)
    p = min(shape[-2:])
    assert q.shape == (*shape[:-1], p) and r.shape == (*shape[:-2], p, shape[-1])
    np.testing.assert_allclose((q @ r).numpy(), x, atol=1e-12)
    np.testing.assert_array_equal(np.tril(r.numpy(), -1), 0.0)
    eye_p = np.broadcast_to(np.eye(p), (*shape[:-2], p, p))
    np.testing.assert_allclose(np.swapaxes(q.numpy(), -1, -2) @ q.numpy(), eye_p, atol=1e-12)
    q_full, r_full = ek.linalg.qr(x, full_matrices=True)
    assert q_full.shape[-2:] == (shape[-2],) * 2 and r_full.shape[-2:] == shape[-2:]
    np.testing.assert_allclose((q_full @ r_full).numpy(), x, atol=1e-12)


def test_eigh_reads_the_lower_triangle_and_matches_numpy():
    x = RNG.normal(size=(2, 4, 4))
    s = x + np.swapaxes(x, -1, -2)
    e, v = ek.linalg.eigh(s)
    np.testing.assert_allclose(e.numpy(), np.linalg.eigvalsh(s), rtol=1e-12, atol=1e-12)
    rebuilt = np.einsum("...ij,...j,...kj->...ik", v.numpy(), e.numpy(), v.numpy())
    np.testing.assert_allclose(rebuilt, s, atol=1e-12)
    garbage_upper = np.tril(s) + np.triu(RNG.normal(size=(4, 4)), 1)
    np.testing.assert_allclose(ek.linalg.eigvalsh(garbage_upper).numpy(), e.numpy(), atol=1e-12)


def test_pinv_and_lstsq_match_numpy():
    tall, wide = RNG.normal(size=(2, 5, 3)), RNG.normal(size=(2, 3, 5))
    np.testing.assert_allclose(ek.linalg.pinv(tall).numpy(), np.linalg.pinv(tall), atol=1e-12)
    rank1 = np.outer([1.0, 2.0, 3.0], [1.0, -1.0])
    np.testing.assert_allclose(ek.linalg.pinv(rank1).numpy(), np.linalg.pinv(rank1), atol=1e-12)
    rhs = RNG.normal(size=(2, 5, 2))
    ref = np.linalg.pinv(tall) @ rhs
    np.testing.assert_allclose(ek.linalg.lstsq(tall, rhs).numpy(), ref, atol=1e-10)
    np.testing.assert_allclose(ek.linalg.lstsq(tall, rhs, fast=False).numpy(), ref, atol=1e-10)
    lam = 0.5
    ridge = np.linalg.solve(
        np.swapaxes(tall, -1, -2) @ tall + lam * np.eye(3), np.swapaxes(tall, -1, -2) @ rhs
    )
    np.testing.assert_allclose(
        ek.linalg.lstsq(tall, rhs, l2_regularizer=lam).numpy(), ridge, atol=1e-10
    )
    rhs_w = RNG.normal(size=(2, 3, 2))  # under-determined: the minimum-norm solution
    np.testing.assert_allclose(
        ek.linalg.lstsq(wide, rhs_w).numpy(), np.linalg.pinv(wide) @ rhs_w, atol=1e-10
    )
    # rank deficient: only fast=False gives the minimum-norm answer
    deficient = np.outer([1.0, 2.0, 3.0], [1.0, 1.0])
    np.testing.assert_allclose(
        ek.linalg.lstsq(deficient, [[1.0], [2.0], [3.0]], fast=False).numpy(), [[0.5], [0.5]]
    )


# -- gradients against finite differences -------------------------------------------------------


def test_inverse_and_determinant_gradients():
    check_gradients(ek.linalg.inv, A, order=2)
    check_gradients(lambda a: ek.linalg.inv(a, adjoint=True), A)
    check_gradients(ek.linalg.det, A, order=2)
    check_gradients(lambda a: ek.linalg.slogdet(a)[1], -A, order=2)
    check_gradients(lambda x: ek.linalg.logdet(spd(x)), A)


def test_second_order_through_nested_tapes_is_the_closed_form():
    # det([[a, b], [c, d]]) = ad - bc: d(det)/da = d, whose gradient is [[0, 0], [0, 1]].
    m = ek.Variable([[1.0, 2.0], [3.0, 5.0]], dtype=ek.float64)
    with ek.GradientTape() as outer:
        with ek.GradientTape() as inner:
            y = ek.linalg.det(m)
        g = inner.gradient(y, m)
        np.testing.assert_allclose(g.numpy(), [[5.0, -3.0], [-2.0, 1.0]])
        g00 = g[0, 0]
    np.testing.assert_allclose(outer.gradient(g00, m).numpy(), [[0.0, 0.0], [0.0, 1.0]], atol=1e-12)
    # inv([[x]]) = 1/x: second derivative 2 / x^3
    x = ek.Variable([[2.0]], dtype=ek.float64)
    with ek.GradientTape() as outer:
        with ek.GradientTape() as inner:
            y = ek.linalg.inv(x)
        g = inner.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), [[-0.25]])
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), [[0.25]])


def test_cholesky_and_triangular_solve_gradients():
    check_gradients(lambda x: ek.linalg.cholesky(spd(x)), A, order=2)
    check_gradients(lambda a, b: ek.linalg.triangular_solve(a, b), A, B, order=2)
    check_gradients(
        lambda a, b: ek.linalg.triangular_solve(a, b, lower=False, adjoint=True), A, B[0]
    )
    check_gradients(lambda a, b: ek.linalg.triangular_solve(a, b, adjoint=True), A[0], B)
    check_gradients(lambda x, b: ek.linalg.cholesky_solve(ek.linalg.cholesky(spd(x)), b), A, B)


def test_structure_op_gradients():
    x = RNG.normal(size=(2, 3, 4))
    check_gradients(lambda d: ek.linalg.diag(d, k=-1, num_cols=4), RNG.normal(size=(2, 3)))
    check_gradients(lambda x: ek.linalg.diag_part(x, k=1), x)
    check_gradients(lambda x, d: ek.linalg.set_diag(x, d, k=-1), x, RNG.normal(size=(2, 2)))
    check_gradients(lambda x: ek.linalg.band_part(x, 1, 0), x)
    v = RNG.normal(size=(2, 3))
    check_gradients(ek.linalg.cross, v, RNG.normal(size=(2, 3)), order=2)
    check_gradients(ek.linalg.matvec, A, v)


def _svd_invariants(x, **kw):
    # Losses that do not depend on the sign of each singular vector pair (as TF's tests).
    s, u, v = ek.linalg.svd(x, **kw)
    p = s.shape[-1]
    us = u[..., :p] * s[..., None, :]
    return s, ek.matmul(us, v[..., :p], transpose_b=True), ek.matmul(u, u, transpose_b=True)


@pytest.mark.parametrize("shape", [(2, 5, 3), (2, 3, 5), (3, 3)])
def test_svd_gradients(shape):
    x = RNG.normal(size=shape)
    check_gradients(lambda x: ek.linalg.svd(x, compute_uv=False), x, order=2)
    check_gradients(_svd_invariants, x)
    check_gradients(lambda x: (lambda v: ek.matmul(v, v, transpose_b=True))(ek.linalg.svd(x)[2]), x)


def test_svd_full_matrices_gradient_for_nearly_square_inputs():
    check_gradients(lambda x: _svd_invariants(x, full_matrices=True)[:2], RNG.normal(size=(4, 3)))


@pytest.mark.parametrize("shape", [(2, 5, 3), (2, 3, 5), (3, 3)])
def test_qr_gradients(shape):
    check_gradients(ek.linalg.qr, RNG.normal(size=shape))


def test_qr_second_order():
    check_gradients(ek.linalg.qr, RNG.normal(size=(4, 3)), order=2)


def test_eigh_gradients():
    x = RNG.normal(size=(2, 4, 4))

    def invariants(x):
        e, v = ek.linalg.eigh(sym(x))
        return e, ek.matmul(v * e[..., None, :] ** 2, v, transpose_b=True), v * v

    check_gradients(invariants, x)
    check_gradients(lambda x: ek.linalg.eigvalsh(sym(x)), x, order=2)
    # the forward reads the lower triangle: the cotangent is lower triangular (TF's)
    xv = ek.Variable(x[0])
    with ek.GradientTape() as tape:
        y = ek.reduce_sum(ek.linalg.eigvalsh(xv) ** 2)
    g = tape.gradient(y, xv).numpy()
    np.testing.assert_array_equal(np.triu(g, 1), 0.0)


def test_pinv_and_lstsq_gradients():
    check_gradients(ek.linalg.pinv, RNG.normal(size=(2, 4, 3)))
    rhs = RNG.normal(size=(2, 4, 2))
    check_gradients(lambda a, b: ek.linalg.lstsq(a, b), RNG.normal(size=(2, 4, 3)), rhs)
    check_gradients(
        lambda a, b: ek.linalg.lstsq(a, b, l2_regularizer=0.3), RNG.normal(size=(2, 4, 3)), rhs
    )
    check_gradients(
        lambda a, b: ek.linalg.lstsq(a, b), RNG.normal(size=(2, 3, 4)), RNG.normal(size=(2, 3, 2))
    )


# -- errors -------------------------------------------------------------------------------------


def test_singular_and_not_positive_definite_inputs_raise_tensorflows_errors():
    with pytest.raises(IAE, match=r"inv: Input is not invertible\."):
        ek.linalg.inv([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(IAE, match=r"cholesky: Cholesky decomposition was not successful"):
        ek.linalg.cholesky([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(IAE, match=r"Cholesky decomposition was not successful"):
        ek.linalg.logdet([[-1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(IAE, match=r"triangular_solve: Input matrix is not invertible"):
        ek.linalg.triangular_solve([[1.0, 0.0], [1.0, 0.0]], [[1.0], [1.0]])
    with pytest.raises(IAE, match=r"lstsq: Input matrix was rank deficient"):
        ek.linalg.lstsq(np.outer([1.0, 2.0, 3.0], [1.0, 1.0]), np.ones((3, 1)))


def test_shapes_that_do_not_fit_name_the_shapes():
    for f in (ek.linalg.inv, ek.linalg.det, ek.linalg.slogdet, ek.linalg.cholesky):
        with pytest.raises(IAE, match=r"must be a square matrix .*got shape \(2, 3\)"):
            f(np.ones((2, 3)))
    with pytest.raises(IAE, match=r"eigh: tensor must be a square matrix"):
        ek.linalg.eigh(np.ones((2, 3)))
    with pytest.raises(IAE, match=r"svd: tensor must be a matrix of rank >= 2.*got shape \(3,\)"):
        ek.linalg.svd(np.ones(3))
    with pytest.raises(IAE, match=r"matrix shape \(3, 3\) and rhs shape \(2, 1\)"):
        ek.linalg.triangular_solve(np.eye(3), np.ones((2, 1)))
    with pytest.raises(IAE, match=r"matrix shape \(2, 3, 3\) and rhs shape \(4, 3, 1\)"):
        ek.linalg.triangular_solve(np.ones((2, 3, 3)), np.ones((4, 3, 1)))
    with pytest.raises(IAE, match=r"set_diag: diagonal must have shape \(2, 3\).*got shape"):
        ek.linalg.set_diag(np.zeros((2, 3, 3)), np.ones((2, 2)))
    with pytest.raises(IAE, match=r"diag_part: k=3 is out of range"):
        ek.linalg.diag_part(np.zeros((3, 3)), k=3)
    with pytest.raises(IAE, match=r"diag: diagonal k=0 of a 3x3 matrix does not have 2"):
        ek.linalg.diag([1.0, 2.0], num_rows=3, num_cols=3)
    with pytest.raises(IAE, match=r"band_part: num_lower must be negative or <= the number"):
        ek.linalg.band_part(np.zeros((2, 2)), 3, 0)
    with pytest.raises(IAE, match=r"cross: both inputs must have the same shape, got \(2, 3\)"):
        ek.linalg.cross(np.ones((2, 3)), np.ones(3))
    with pytest.raises(
        ek.errors.FailedPreconditionError, match=r"cross: .*only defined for 3-element vectors"
    ):
        ek.linalg.cross([1.0, 2.0], [3.0, 4.0])
    with pytest.raises(IAE, match=r"lstsq: rhs must have shape"):
        ek.linalg.lstsq(np.ones((3, 2)), np.ones((2, 1)))


def test_bad_dtypes_and_arguments():
    with pytest.raises(TypeError, match=r"inv: input must be a float16, float32 or float64.*int32"):
        ek.linalg.inv([[1, 0], [0, 1]])
    # complex matrices are taken, as in TensorFlow (tests/test_fuzz_cplxlinalg.py)
    assert ek.linalg.det(np.eye(2, dtype=np.complex64)).numpy() == 1
    with pytest.raises(TypeError, match=r"triangular_solve: .*float32.*float64"):
        ek.linalg.triangular_solve(ek.eye(2), ek.ones((2, 1), dtype=ek.float64))
    with pytest.raises(IAE, match=r"diag_part: k\[0\] must not exceed k\[1\]"):
        ek.linalg.diag_part(np.zeros((3, 3)), k=(1, -1))  # a band (-1, 1) is supported
    with pytest.raises(ValueError, match=r"diag: align must be one of"):
        ek.linalg.diag([1.0], align="CENTER")
    with pytest.raises(TypeError, match=r"band_part: num_lower must be an int, got 0.5"):
        ek.linalg.band_part(np.zeros((2, 2)), 0.5, 0)
    with pytest.raises(ValueError, match=r"matvec: only one of transpose_a and adjoint_a"):
        ek.linalg.matvec(np.eye(2), np.ones(2), transpose_a=True, adjoint_a=True)
    with pytest.raises(ValueError, match=r"lstsq: l2_regularizer=0.1 has no effect with fast"):
        ek.linalg.lstsq(np.eye(2), np.ones((2, 1)), l2_regularizer=0.1, fast=False)
    with pytest.raises(IAE, match=r"lstsq: l2_regularizer must be a non-negative scalar"):
        ek.linalg.lstsq(np.eye(2), np.ones((2, 1)), l2_regularizer=-1.0)


def test_unsupported_gradients_raise_as_tensorflow():
    x = ek.Variable(RNG.normal(size=(4, 2)))
    with ek.GradientTape() as tape:
        _q, r = ek.linalg.qr(x, full_matrices=True)
        y = ek.reduce_sum(r)
    with pytest.raises(NotImplementedError, match=r"qr: the gradient is not implemented when "):
        tape.gradient(y, x)
    with ek.GradientTape() as tape:
        s, _u, _v = ek.linalg.svd(x, full_matrices=True)
        y = ek.reduce_sum(s)
    with pytest.raises(NotImplementedError, match=r"svd: the gradient .* abs\(m - n\) > 1"):
        tape.gradient(y, x)


# -- lu, normalize, einsum's ellipsis ----------------------------------------------------------


def test_lu_reconstructs_with_partial_pivoting():
    lu, perm = ek.linalg.lu(A)
    assert lu.shape == (2, 3, 3) and perm.shape == (2, 3) and perm.dtype == ek.int32
    lower = np.tril(lu.numpy(), -1) + np.eye(3)
    upper = np.triu(lu.numpy())
    np.testing.assert_allclose(
        np.take_along_axis(A, perm.numpy()[..., None], -2), lower @ upper, atol=1e-12
    )
    assert np.all(np.abs(np.tril(lu.numpy(), -1)) <= 1.0)  # partial pivoting
    assert ek.linalg.lu(A, output_idx_type=ek.int64)[1].dtype == ek.int64
    with pytest.raises(IAE, match=r"lu: Input is not invertible\."):
        ek.linalg.lu([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(TypeError, match=r"lu: output_idx_type must be int32 or int64"):
        ek.linalg.lu(A, output_idx_type=ek.float32)
    x = ek.constant(A)
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.reduce_sum(ek.linalg.lu(x)[0])
    with pytest.raises(LookupError, match=r"No gradient defined for op 'Lu'"):
        tape.gradient(y, x)


def test_lu_solve_reconstruct_and_inverse():
    lu, perm = ek.linalg.lu(A)
    np.testing.assert_allclose(ek.linalg.lu_reconstruct(lu, perm).numpy(), A, atol=1e-12)
    np.testing.assert_allclose(
        ek.linalg.lu_solve(lu, perm, B).numpy(), np.linalg.solve(A, B), rtol=1e-10
    )
    np.testing.assert_allclose(
        ek.linalg.lu_matrix_inverse(lu, perm).numpy(), np.linalg.inv(A), rtol=1e-10
    )
    p = perm.numpy()
    check_gradients(lambda f: ek.linalg.lu_reconstruct(f, p), lu.numpy())
    check_gradients(lambda f, b: ek.linalg.lu_solve(f, p, b), lu.numpy(), B)
    with pytest.raises(IAE, match=r"lu_solve: perm must be an integer tensor of shape \(2, 3\)"):
        ek.linalg.lu_solve(lu, perm[0], B)


def test_normalize():
    x = RNG.normal(size=(2, 4, 3))
    out, n = ek.linalg.normalize(x, axis=-1)
    np.testing.assert_allclose(n.numpy(), np.linalg.norm(x, axis=-1, keepdims=True))
    np.testing.assert_allclose(out.numpy(), x / n.numpy())
    out, n = ek.linalg.normalize(x, ord=1, axis=[-2, -1])
    assert n.shape == (2, 1, 1)
    np.testing.assert_allclose(n.numpy()[:, 0, 0], np.abs(x).sum(-2).max(-1))
    check_gradients(lambda x: ek.linalg.normalize(x, axis=0), x)


def test_tensor_diag_and_tensor_diag_part():
    d = RNG.normal(size=(2, 3))
    t = ek.linalg.tensor_diag(d)
    assert t.shape == (2, 3, 2, 3)
    want = np.zeros((2, 3, 2, 3))
    for i, j in np.ndindex(2, 3):
        want[i, j, i, j] = d[i, j]
    np.testing.assert_array_equal(t.numpy(), want)
    np.testing.assert_array_equal(ek.linalg.tensor_diag_part(want).numpy(), d)
    check_gradients(ek.linalg.tensor_diag, d)
    check_gradients(ek.linalg.tensor_diag_part, RNG.normal(size=(2, 3, 2, 3)))
    with pytest.raises(IAE, match=r"tensor_diag_part: input must have an even rank .*\(2, 3\)"):
        ek.linalg.tensor_diag_part(np.zeros((2, 3)))
    with pytest.raises(IAE, match=r"tensor_diag: diagonal must have rank >= 1"):
        ek.linalg.tensor_diag(1.0)


def test_einsum_ellipsis():
    a, b = RNG.normal(size=(2, 4, 3, 5)), RNG.normal(size=(4, 5, 2))
    for equation, operands in (
        ("...ij,...jk->...ik", (a, b)),
        ("...ij->...ji", (a,)),
        ("...ij,...jk", (a, b)),  # implicit output: the ellipsis axes first
        ("ij...->...", (a,)),
        ("...ij->ij", (a[0, 0],)),  # an empty ellipsis
        ("...s,...us,...vs->...uv", (b[..., 0], RNG.normal(size=(4, 6, 5)), a[0])),
    ):
        np.testing.assert_allclose(
            ek.einsum(equation, *operands).numpy(), np.einsum(equation, *operands), rtol=1e-12
        )
    check_gradients(lambda x, y: ek.einsum("...ij,...jk->...ik", x, y), a[0], b)
    # length-1 axes under the ellipsis broadcast, as in TensorFlow
    c = RNG.normal(size=(1, 3, 5))
    np.testing.assert_allclose(
        ek.einsum("...ij,...jk->...ik", c, b).numpy(), np.einsum("...ij,...jk->...ik", c, b)
    )
    check_gradients(lambda x, y: ek.einsum("...ij,...jk->...ik", x, y), c, b, order=2)
    with pytest.raises(IAE, match=r"einsum: an axis under ... has sizes 2 and 4 in '...ij,"):
        ek.einsum("...ij,...jk->...ik", a[:, 0], b)
    with pytest.raises(ValueError, match=r"einsum: the output of 'b...j->b' has no '...' for"):
        ek.einsum("b...j->b", a)
    with pytest.raises(ValueError, match=r"einsum: each subscript may hold one ellipsis"):
        ek.einsum("i.j->ij", a[0, 0])


# -- TensorFlow as an oracle, when installed ----------------------------------------------------


def _tf_gradient(tf, f, *xs, cotangents):
    xs = [tf.constant(x) for x in xs]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        ys = tf.nest.flatten(f(*xs))
        loss = tf.add_n([tf.reduce_sum(y * c) for y, c in zip(ys, cotangents)])
    return [g.numpy() for g in tape.gradient(loss, xs)]


def _ek_gradient(f, *xs, cotangents):
    xs = [ek.constant(x) for x in xs]
    with ek.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        ys = ek.nest.flatten(f(*xs))
        loss = ek.add_n([ek.reduce_sum(y * c) for y, c in zip(ys, cotangents)])
    return [g.numpy() for g in tape.gradient(loss, xs)]


def test_values_and_gradients_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x, wide = RNG.normal(size=(2, 4, 3)), RNG.normal(size=(2, 3, 4))
    value_cases = [
        lambda m: m.linalg.inv(A),
        lambda m: m.linalg.det(A),
        lambda m: m.linalg.cholesky(SPD),
        lambda m: m.linalg.logdet(SPD),
        lambda m: m.linalg.triangular_solve(A, B, lower=False, adjoint=True),
        lambda m: m.linalg.cholesky_solve(m.linalg.cholesky(SPD), B),
        lambda m: m.linalg.band_part(x, 1, 0),
        lambda m: m.linalg.diag_part(x, k=1),
        lambda m: m.linalg.diag([1, 2], k=-1, num_cols=4),
        lambda m: m.linalg.svd(x, compute_uv=False),
        lambda m: m.linalg.qr(x)[0],  # the same Householder signs
        lambda m: m.linalg.qr(wide)[1],
        lambda m: m.linalg.eigvalsh(SPD),
        lambda m: m.linalg.pinv(x),
        lambda m: m.linalg.lstsq(x, x[..., :2], l2_regularizer=0.3),
        lambda m: m.linalg.lu(A)[0],
        lambda m: m.linalg.lu(A)[1],
        lambda m: m.linalg.normalize(x, axis=-1)[0],
    ]
    for case in value_cases:
        np.testing.assert_allclose(case(ek).numpy(), case(tf).numpy(), rtol=1e-8, atol=1e-10)
    for ours, theirs in zip(ek.linalg.slogdet(-A), tf.linalg.slogdet(-A)):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10)
    g33, g43, g34 = (
        RNG.normal(size=(2, 3, 3)),
        RNG.normal(size=(2, 4, 3)),
        RNG.normal(size=(2, 3, 4)),
    )
    grad_cases = [
        (lambda m: m.linalg.inv, (A,), [g33]),
        (lambda m: lambda a: m.linalg.inv(a, adjoint=True), (A,), [g33]),
        (lambda m: m.linalg.cholesky, (SPD,), [g33]),
        (lambda m: m.linalg.triangular_solve, (A[0], B), [B]),
        (lambda m: m.linalg.qr, (x,), [g43, g33]),
        (lambda m: m.linalg.qr, (wide,), [g33, g34]),
        (lambda m: lambda a: m.linalg.eigh(a)[0], (SPD,), [g33[..., 0]]),
        (lambda m: m.linalg.pinv, (x,), [g34]),
    ]
    for make_f, xs, cts in grad_cases:
        ours = _ek_gradient(make_f(ek), *xs, cotangents=cts)
        theirs = _tf_gradient(tf, make_f(tf), *xs, cotangents=cts)
        for o, t in zip(ours, theirs):
            np.testing.assert_allclose(o, t, rtol=1e-6, atol=1e-8)


# -- guide/core/matrix_core.ipynb (the calls it makes, with `import eagerkernel as tf`) --------


def test_matrix_core_guide_svd_calls():
    tf = ek
    a = tf.random.uniform(shape=[40, 30])
    s, u, v = tf.linalg.svd(a)
    a_svd = u @ tf.linalg.diag(s) @ tf.transpose(v)
    np.testing.assert_allclose(a_svd.numpy(), a.numpy(), atol=1e-5)
    np.testing.assert_allclose(tf.einsum("s,us,vs -> uv", s, u, v).numpy(), a.numpy(), atol=1e-5)

    def rank_r_approx(s, u, v, r):
        s_r, u_r, v_r = s[..., :r], u[..., :, :r], v[..., :, :r]
        a_r = tf.einsum("...s,...us,...vs->...uv", s_r, u_r, v_r)
        return a_r, tf.size(u_r) + tf.size(s_r) + tf.size(v_r)

    a_10, size = rank_r_approx(s, u, v, 10)
    assert int(size) == 40 * 10 + 10 + 30 * 10
    # Eckart-Young: the squared error is the sum of the squared singular values left out
    squared_norm = tf.norm(a - a_10) ** 2
    np.testing.assert_allclose(float(squared_norm), float(tf.reduce_sum(s[10:] ** 2)), rtol=1e-4)
    assert f"{squared_norm:.3f}"
    # the image part, on a synthetic image: batched SVD over the RGB channels
    image = (np.random.default_rng(0).uniform(size=(12, 16, 3)) * 255).astype(np.uint8)
    batched = tf.transpose(tf.convert_to_tensor(image) / 255, [2, 0, 1])
    s, u, v = tf.linalg.svd(batched)
    assert s.shape == (3, 12) and u.shape == (3, 12, 12) and v.shape == (3, 16, 12)
    approx, _ = rank_r_approx(s, u, v, 12)
    np.testing.assert_allclose(tf.transpose(approx, [1, 2, 0]).numpy(), image / 255, atol=1e-5)
    props = tf.map_fn(lambda x: tf.cumsum(x) / tf.reduce_sum(x), s)
    r = tf.argmin(tf.abs(tf.reduce_mean(props, axis=0) - 0.75)) + 1
    assert 1 <= int(r) <= 12 and float(props[0, -1]) == pytest.approx(1.0)
