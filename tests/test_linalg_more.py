"""`ek.linalg`'s matrix_rank, eig, eigvals, logm, tridiagonal_solve, tridiagonal_matmul,
banded_triangular_solve and eigh_tridiagonal: values and gradients against TensorFlow 2.21's
(embedded literals), closed forms, gradients against finite differences, errors by type and
message."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients

IAE = ek.errors.InvalidArgumentError
RNG = np.random.default_rng(11)
W = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]  # cotangent weights of [4, 2] outputs


def grads(fn, *args, weights=W):
    """The tape's gradients of ``reduce_sum(real(fn(*args) * weights))``."""
    xs = [ek.constant(a) for a in args]
    with ek.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = fn(*xs)
        y = y * ek.constant(np.asarray(weights, dtype=y.dtype.as_numpy_dtype))
        loss = ek.reduce_sum(ek.math.real(y) if y.dtype.is_complex else y)
    return [g.numpy() for g in tape.gradient(loss, xs)]


# -- matrix_rank ---------------------------------------------------------------------------------


def test_matrix_rank_matches_tensorflow():
    r = ek.linalg.matrix_rank([[1.0, 2.0], [2.0, 4.0]])
    assert r.dtype == ek.int32 and int(r) == 1
    m = np.array([np.eye(3), np.zeros((3, 3)), [[1, 2, 3], [4, 5, 6], [7, 8, 9]]])
    np.testing.assert_array_equal(ek.linalg.matrix_rank(m).numpy(), [3, 0, 2])
    assert int(ek.linalg.matrix_rank([[1.0, 2, 3, 4], [2, 4, 6, 8], [0, 1, 0, 1]])) == 2
    # TensorFlow's default tolerance eps * max(M, N) * max(s) depends on the dtype
    d = np.diag([1, 1e-3, 1e-8])
    assert int(ek.linalg.matrix_rank(ek.constant(d, ek.float32))) == 2
    assert int(ek.linalg.matrix_rank(d)) == 3
    assert int(ek.linalg.matrix_rank(d, tol=1e-2)) == 1
    batch = np.array([np.diag([1.0, 0.1, 0.01]), np.diag([5.0, 0.5, 0.0])])
    np.testing.assert_array_equal(ek.linalg.matrix_rank(batch, tol=0.05).numpy(), [2, 2])
    assert int(ek.linalg.matrix_rank([[1, 2], [3, 4]])) == 2  # a list of ints: float32


def test_matrix_rank_errors():
    with pytest.raises(ValueError, match=r"matrix_rank: .* at least 2 dimensions, got shape"):
        ek.linalg.matrix_rank([1.0, 2.0])
    with pytest.raises(TypeError, match=r"matrix_rank: .*float dtype, got complex128"):
        ek.linalg.matrix_rank(ek.constant([[1 + 1j, 2], [2 + 2j, 4]]))
    with pytest.raises(TypeError, match=r"matrix_rank: .*float dtype, got int32"):
        ek.linalg.matrix_rank(ek.constant([[1, 2], [3, 4]]))


# -- eig, eigvals --------------------------------------------------------------------------------

N3 = np.array([[1.0, 2, 0], [0, 3, 1], [1, 0, 2]])
N3_EIGVALS = [  # TensorFlow 2.21
    1.2393101465977163 + 0.8578736265951787j,
    1.2393101465977163 - 0.8578736265951787j,
    3.521379706804568 + 0j,
]
N3_EIGVECS = np.array(  # TensorFlow 2.21 (columns; our phases may differ)
    [
        [-0.33089641703977163 - 0.6332248041779746j, -0.5753039369663716],
        [0.2320199945698672 - 0.21770221501520007j, -0.7252798359558912],
        [-0.22175426151272454 + 0.5823499152247108j, -0.37814618822194784],
    ]
)
W1, W2 = [0.3, -1.2, 0.7], [1.1, 0.4, -0.5]


def _sorted(e):
    return np.sort_complex(np.asarray(e))


def test_eigvals_of_a_rotation_are_plus_minus_i():
    for dtype, out in ((ek.float32, ek.complex64), (ek.float64, ek.complex128)):
        e = ek.linalg.eigvals(ek.constant([[0.0, -1.0], [1.0, 0.0]], dtype))
        assert e.dtype == out
        np.testing.assert_allclose(_sorted(e.numpy()), [-1j, 1j], atol=1e-7)
    c, s = np.cos(0.3), np.sin(0.3)
    e = ek.linalg.eigvals([[c, -s], [s, c]])
    np.testing.assert_allclose(_sorted(e.numpy()), [np.exp(-0.3j), np.exp(0.3j)], rtol=1e-6)


def test_eig_matches_tensorflow_up_to_phase():
    e, v = ek.linalg.eig(N3)
    assert e.dtype == v.dtype == ek.complex128
    np.testing.assert_allclose(_sorted(e.numpy()), _sorted(N3_EIGVALS), rtol=1e-13)
    np.testing.assert_allclose(_sorted(ek.linalg.eigvals(N3).numpy()), _sorted(N3_EIGVALS))
    e, v = e.numpy(), v.numpy()
    np.testing.assert_allclose(N3 @ v, v * e, atol=1e-13)
    np.testing.assert_allclose(np.linalg.norm(v, axis=0), 1.0, rtol=1e-14)
    for col, ref_e in ((N3_EIGVECS[:, 0], N3_EIGVALS[0]), (N3_EIGVECS[:, 1], N3_EIGVALS[2])):
        ours = v[:, np.argmin(np.abs(e - ref_e))]
        assert abs(abs(np.vdot(col, ours)) - 1) < 1e-13  # the same vector up to its phase
    # complex64 input; a batch of a diagonal and a rotation-scaled matrix
    e, v = ek.linalg.eig(ek.constant([[1 + 1j, 2], [0, 3 - 1j]], ek.complex64))
    assert e.dtype == ek.complex64
    np.testing.assert_allclose(_sorted(e.numpy()), [1 + 1j, 3 - 1j], rtol=1e-6)
    np.testing.assert_allclose(np.abs(v.numpy()[:, 1]), [0.5773503, 0.8164966], rtol=1e-6)
    e = ek.linalg.eigvals(ek.constant([[[2.0, 0], [0, 3]], [[1, 1], [-1, 1]]])).numpy()
    np.testing.assert_allclose(_sorted(e[0]), [2, 3])
    np.testing.assert_allclose(_sorted(e[1]), [1 - 1j, 1 + 1j], rtol=1e-6)


def _eigvals_loss(a):
    e = ek.linalg.eigvals(a)
    return ek.math.real(e) * W1 + ek.math.imag(e) * W2


def test_eig_gradients_match_tensorflow():
    # N3's eigenvalues come in TensorFlow's order here (checked above, up to rounding)
    ref = [
        [-0.07464236442080607, 0.35012202089003974, -0.2254389828392194],
        [0.2493660761016389, 0.1747237116808325, 0.7002440417800797],
        [0.7002440417800798, 0.474805058940859, -0.30008134726002644],
    ]
    e = ek.linalg.eigvals(N3).numpy()
    np.testing.assert_allclose(e, N3_EIGVALS, rtol=1e-13)  # the order the weights assume
    x = ek.constant(N3)
    with ek.GradientTape() as tape:
        tape.watch(x)
        loss = ek.reduce_sum(_eigvals_loss(x))
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), ref, rtol=1e-12)
    s3 = ek.constant([[4.0, 1, 0], [1, 3, 1], [0, 1, 2]], ek.float64)
    with ek.GradientTape() as tape:
        tape.watch(s3)
        e, v = ek.linalg.eig(s3)
        order = np.argsort(-e.numpy().real)  # TensorFlow's order for this matrix
        w1 = ek.constant(np.array(W1)[np.argsort(order)])
        loss = ek.reduce_sum(ek.math.real(e) * w1) + ek.reduce_sum(
            ek.abs(v) ** 2 * ek.constant(np.outer(W2, W1)[:, np.argsort(order)])
        )
    ref = [
        [0.02457269702089087, 0.4406011701788937, 0.2239715268419951],
        [0.8633760841921484, -0.6788091147003065, -0.9378148011075462],
        [0.3049173620468937, -0.6293190556325231, 0.45423641767941575],
    ]
    np.testing.assert_allclose(tape.gradient(loss, s3).numpy(), ref, rtol=1e-10, atol=1e-13)


def test_eig_gradients_match_finite_differences():
    a = RNG.normal(size=(2, 3, 3))
    check_gradients(lambda x: ek.math.real(ek.linalg.eigvals(x)), a)
    check_gradients(lambda x: ek.math.imag(ek.linalg.eigvals(x)) ** 2, a)
    # losses that do not depend on the eigenvectors' phases
    check_gradients(lambda x: ek.abs(ek.linalg.eig(x)[1]), a)
    check_gradients(lambda x: ek.math.real(ek.linalg.eig(x)[0]), a)


def test_eig_errors():
    with pytest.raises(TypeError, match=r"eig: tensor must be float32, .* got int32"):
        ek.linalg.eig(ek.constant([[1, 2], [3, 4]]))
    with pytest.raises(TypeError, match=r"eigvals: tensor must be .* got float16"):
        ek.linalg.eigvals(ek.ones((2, 2), ek.float16))
    with pytest.raises(IAE, match=r"eig: input must be square matrices .* got shape \(2, 3\)"):
        ek.linalg.eig(ek.ones((2, 3)))


# -- logm ----------------------------------------------------------------------------------------


def test_logm_matches_tensorflow():
    out = ek.linalg.logm(ek.constant([[1.0, 1.0], [0.0, 1.0]], ek.complex128))
    assert out.dtype == ek.complex128
    np.testing.assert_allclose(out.numpy(), [[0, 1], [0, 0]], atol=1e-15)
    out = ek.linalg.logm(ek.constant(np.diag([np.e, np.e**2]), ek.complex64))
    assert out.dtype == ek.complex64
    np.testing.assert_allclose(out.numpy(), np.diag([1.0, 2.0]), rtol=1e-6, atol=1e-7)
    rot = ek.linalg.logm(ek.constant([[0, -1], [1, 0]], ek.complex128)).numpy()
    np.testing.assert_allclose(rot, [[0, -np.pi / 2], [np.pi / 2, 0]], atol=1e-15)
    batch = ek.constant([[[2.0, 0.0], [0.0, 3.0]], [[1.0, 2.0], [0.0, 1.0]]], ek.complex64)
    ref = [[[0.6931472, 0], [0, 1.0986123]], [[0, 2], [0, 0]]]
    np.testing.assert_allclose(ek.linalg.logm(batch).numpy(), ref, rtol=1e-6, atol=1e-7)
    # expm undoes it
    a = ek.constant(RNG.normal(size=(3, 3)) / 3 + np.eye(3), ek.complex128)
    np.testing.assert_allclose(ek.linalg.expm(ek.linalg.logm(a)).numpy(), a.numpy(), atol=1e-12)


def test_logm_errors_and_no_gradient_as_tensorflow():
    with pytest.raises(TypeError, match=r"logm: input must be complex64 or complex128 .*float32"):
        ek.linalg.logm([[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(IAE, match=r"logm: input must be square .*\(2, 3\)"):
        ek.linalg.logm(ek.ones((2, 3), ek.complex64))
    x = ek.constant([[1 + 0j, 1], [0, 1]])
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.linalg.logm(x)
    with pytest.raises(LookupError, match=r"MatrixLogarithm"):
        tape.gradient(y, x)


# -- tridiagonal_solve ---------------------------------------------------------------------------

DG = np.array([[2.0, 3.0, 4.0, 9.0], [1.0, 5.0, 6.0, 7.0], [9.0, 8.0, 1.0, 2.0]])
RV = np.array([1.0, 2.0, 3.0, 4.0])
RM = np.array([[1.0, -1.0], [2.0, 0.5], [3.0, 2.0], [4.0, -3.0]])
TS_REF = np.array(  # TensorFlow 2.21: tridiagonal_solve(DG, RM)
    [
        [-0.10886075949367086, 0.06835443037974692],
        [0.5544303797468354, -0.5341772151898735],
        [0.0329113924050633, 0.8746835443037975],
        [0.5620253164556962, -0.6784810126582279],
    ]
)


def test_tridiagonal_solve_formats_match_tensorflow():
    solve = ek.linalg.tridiagonal_solve
    np.testing.assert_allclose(solve(DG, RV).numpy(), TS_REF[:, 0], rtol=1e-14)
    np.testing.assert_allclose(solve(DG, RM).numpy(), TS_REF, rtol=1e-14)
    np.testing.assert_allclose(solve(DG, RM.T, transpose_rhs=True).numpy(), TS_REF, rtol=1e-14)
    np.testing.assert_allclose(solve(DG, RM, partial_pivoting=False).numpy(), TS_REF, rtol=1e-13)
    np.testing.assert_allclose(solve(DG, RM, perturb_singular=True).numpy(), TS_REF, rtol=1e-13)
    seq = [DG[0, :3], DG[1], DG[2, 1:]]
    np.testing.assert_allclose(solve(seq, RM, diagonals_format="sequence").numpy(), TS_REF)
    np.testing.assert_allclose(solve(list(DG), RM, diagonals_format="sequence").numpy(), TS_REF)
    m4 = np.array([[1.0, 2, 7, 7], [3, 4, 5, 7], [7, 6, 7, 8], [7, 7, 9, 10]])
    ref = [[1.081081081081081, -2.533783783783784], [-0.04054054054054049, 0.766891891891892]]
    ref += [[-0.21621621621621628, 1.006756756756757], [0.5945945945945946, -1.2060810810810814]]
    np.testing.assert_allclose(solve(m4, RM, diagonals_format="matrix").numpy(), ref, rtol=1e-13)
    batch = solve(np.stack([DG, 2 * DG]), np.stack([RV, RV + 1])).numpy()
    ref = [-0.17974683544303802, 0.589873417721519, -0.00379746835443035, 0.3582278481012658]
    np.testing.assert_allclose(batch, [TS_REF[:, 0], ref], rtol=1e-13)
    out32 = solve(DG.astype(np.float32), RV.astype(np.float32))
    assert out32.dtype == ek.float32
    ref32 = np.array([-0.10886081, 0.5544304, 0.032911442, 0.56202525], np.float32)  # TF's
    np.testing.assert_allclose(out32.numpy(), ref32, rtol=1e-6)


def test_tridiagonal_solve_complex_and_conjugate_rhs():
    cd = np.array([[1 + 1j, 2, 0], [4, 5 - 2j, 6], [0, 1j, 2]])
    cr = np.array([[1 + 2j, 1], [2, 1j], [3 - 1j, 0]])
    ref = [  # TensorFlow 2.21
        [0.20058604155567394 - 0.5197123068726691j, 0.1680873734683005 + 0.02797016515716568j],
        [0.13825253063399043 - 0.05940330314331382j, 0.10788492274906766 - 0.2197655833777304j],
        [0.45391582312200324 + 0.18646776771443796j, -0.03596164091635589 + 0.07325519445924349j],
    ]
    out = ek.linalg.tridiagonal_solve(cd, cr, conjugate_rhs=True)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-14)
    out = ek.linalg.tridiagonal_solve(cd, cr.T, conjugate_rhs=True, transpose_rhs=True)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-14)


def test_tridiagonal_solve_pivoting_and_singular_matrices_as_tensorflow():
    p = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [0.0, 1.0, 0.0]])  # its first pivot is 0
    b = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(ek.linalg.tridiagonal_solve(p, b).numpy(), [-2.0, 1.0, 3.0])
    # without pivoting the Thomas algorithm fails: NaN, as TensorFlow's kernel
    assert np.isnan(ek.linalg.tridiagonal_solve(p, b, partial_pivoting=False).numpy()).all()
    sing = np.array([[1.0, 1.0, 0.0], [-1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])  # det 0
    rhs = np.array([[1.0], [2.0], [3.0]])
    assert np.isnan(ek.linalg.tridiagonal_solve(sing, rhs).numpy()).all()
    assert np.isnan(ek.linalg.tridiagonal_solve(sing, rhs, partial_pivoting=False).numpy()).all()
    for dtype in (np.float64, np.float32):
        out = ek.linalg.tridiagonal_solve(
            sing.astype(dtype), rhs.astype(dtype), perturb_singular=True
        )
        np.testing.assert_array_equal(out.numpy(), np.array([[2.0], [3.0], [0.0]], dtype))
    one_zero = np.array([[1.0], [0.0], [1.0]])
    assert np.isnan(ek.linalg.tridiagonal_solve(one_zero, [[2.0]]).numpy()).all()
    out = ek.linalg.tridiagonal_solve(one_zero, [[2.0]], perturb_singular=True).numpy()
    np.testing.assert_allclose(out, [[2.9961552247705263e307]])  # TensorFlow's xLAGTS scaling
    out = ek.linalg.tridiagonal_solve([[1.0], [4.0], [1.0]], [[2.0]])
    np.testing.assert_allclose(out.numpy(), [[0.5]])


def test_tridiagonal_solve_gradients():
    g_diags, g_rhs = grads(ek.linalg.tridiagonal_solve, DG, RM)
    ref_diags = [  # TensorFlow 2.21
        [0.08665918923249483, -0.05649094696362763, 0.13269668322384237, 0.0],
        [0.03680820381349127, 0.05340810767505208, -0.6543118090049672, 0.13755487902579722],
        [0.0, -0.00808203813491428, 0.03305880467873751, -0.6586572664637077],
    ]
    ref_rhs = [
        [1.2632911392405064, 1.4734177215189872],
        [-0.03291139240506329, 0.06582278481012659],
    ]
    ref_rhs += [[0.6379746835443039, 0.7240506329113925], [0.6354430379746835, 0.7291139240506329]]
    np.testing.assert_allclose(g_diags, ref_diags, rtol=1e-13, atol=1e-16)
    np.testing.assert_allclose(g_rhs, ref_rhs, rtol=1e-13)
    cd = np.array([[1 + 1j, 2, 0], [4, 5 - 2j, 6], [0, 1j, 2]])
    cr = np.array([[1 + 2j, 1], [2, 1j], [3 - 1j, 0]])
    cw = np.array([[1 - 1j, 2], [0.5j, 1], [2, -1j]])
    g_diags, g_rhs = grads(ek.linalg.tridiagonal_solve, cd, cr, weights=cw)
    np.testing.assert_allclose(
        g_diags[1],
        [
            -0.08065387330409984 - 0.11391202252316053j,
            -0.02898474622984284 + 0.03654847722010748j,
            -0.16682379498451524 + 0.03485772164459493j,
        ],
        rtol=1e-13,
    )
    np.testing.assert_allclose(
        g_rhs[0],
        [0.19166222695791157 + 0.2577250932338839j, 0.474160895045285 - 0.03995737879595098j],
        rtol=1e-13,
    )
    d = RNG.normal(size=(2, 3, 5))
    d[:, 1] += 4
    r = RNG.normal(size=(2, 5, 2))
    for pivoting in (True, False):
        check_gradients(
            lambda a, b, p=pivoting: ek.linalg.tridiagonal_solve(a, b, partial_pivoting=p),
            d,
            r,
            order=2,
        )
    check_gradients(lambda a, b: ek.linalg.tridiagonal_solve(a, b, perturb_singular=True), d, r)
    check_gradients(lambda a, b: ek.linalg.tridiagonal_solve(a, b[..., 0]), d, r)
    check_gradients(
        lambda a, b: ek.linalg.tridiagonal_solve(a, b, "matrix", transpose_rhs=True),
        RNG.normal(size=(5, 5)) + 5 * np.eye(5),
        RNG.normal(size=(3, 5)),
    )
    check_gradients(
        lambda a, b, c, r: ek.linalg.tridiagonal_solve([a, b, c], r, diagonals_format="sequence"),
        RNG.normal(size=4),
        RNG.normal(size=5) + 4,
        RNG.normal(size=4),
        RNG.normal(size=(5, 2)),
    )


def test_tridiagonal_solve_errors_as_tensorflow():
    solve = ek.linalg.tridiagonal_solve
    with pytest.raises(ValueError, match=r"partial_pivoting must be True if perturb_singular is"):
        solve(DG, RM, partial_pivoting=False, perturb_singular=True)
    with pytest.raises(
        ValueError, match=r"tridiagonal_solve: unrecognized diagonals_format 'banded'"
    ):
        solve(DG, RV, diagonals_format="banded")
    with pytest.raises(ValueError, match=r"tridiagonal_solve: expected 3 diagonals, got 2"):
        solve(DG[:2], RV)
    with pytest.raises(ValueError, match=r"left-hand sides \(4\) and of right-hand sides \(3\)"):
        solve(DG, RV[:3])
    with pytest.raises(ValueError, match=r"rhs must have rank 1 or 2 .* got shape \(1, 1, 4, 2\)"):
        solve(DG, np.ones((1, 1, 4, 2)))
    with pytest.raises(TypeError, match=r"tridiagonal_solve: diagonals must be one of .* int32"):
        solve([[1, 2], [3, 4], [5, 6]], [1, 2])
    with pytest.raises(TypeError, match=r"tridiagonal_solve: .*float64, rhs: float32"):
        solve(DG, RV.astype(np.float32))
    with pytest.raises(ValueError, match=r"sequence of length 3 .* got list of length 2"):
        solve([DG[0], DG[1]], RV, diagonals_format="sequence")
    with pytest.raises(ValueError, match=r"the superdiagonal must have length 4 or 3, got 2"):
        solve([DG[0, :2], DG[1], DG[2]], RV, diagonals_format="sequence")
    with pytest.raises(ValueError, match=r"square matrices .* 'matrix' format, got shape \(3, 4\)"):
        solve(np.ones((3, 4)), RV, diagonals_format="matrix")
    with pytest.raises(ValueError, match=r"batch shapes \(2,\) \(diagonals\) and \(3,\) \(rhs\)"):
        solve(np.stack([DG, DG]), np.stack([RV, RV, RV]))


# -- tridiagonal_matmul --------------------------------------------------------------------------

TM_REF = [[5.0, 0.0], [27.0, 0.5], [36.0, 0.5], [34.0, -17.0]]  # TensorFlow 2.21


def test_tridiagonal_matmul_matches_tensorflow():
    matmul = ek.linalg.tridiagonal_matmul
    np.testing.assert_array_equal(matmul(DG, RM).numpy(), TM_REF)
    np.testing.assert_array_equal(matmul(list(DG), RM, diagonals_format="sequence").numpy(), TM_REF)
    m4 = np.array([[1.0, 2, 7, 7], [3, 4, 5, 7], [7, 6, 7, 8], [7, 7, 9, 10]])
    ref = [[5.0, 0.0], [26.0, 9.0], [65.0, -7.0], [67.0, -12.0]]
    np.testing.assert_array_equal(matmul(m4, RM, diagonals_format="matrix").numpy(), ref)
    # the product equals the dense one of the tridiagonal part
    dense = np.diag(DG[1]) + np.diag(DG[0, :-1], 1) + np.diag(DG[2, 1:], -1)
    np.testing.assert_allclose(matmul(DG, RM).numpy(), dense @ RM)
    cd = np.array([[1 + 1j, 2, 0], [4, 5 - 2j, 6], [0, 1j, 2]])
    cr = np.array([[1 + 2j, 1], [2, 1j], [3 - 1j, 0]])
    ref = [[6 + 10j, 3 + 1j], [14 - 5j, 2 + 6j], [22 - 6j, 2j]]
    np.testing.assert_allclose(matmul(cd, cr).numpy(), ref)
    g_diags, g_rhs = grads(matmul, cd, cr, weights=[[1 - 1j, 2], [0.5j, 1], [2, -1j]])
    np.testing.assert_allclose(g_diags, [[2, 0.5 - 1.5j, 0], [5 - 1j, -2j, 6 + 2j], [0, -0.5j, 5]])
    np.testing.assert_allclose(g_rhs, [[3.5 + 4j, 8 - 1j], [7 - 2.5j, 7 + 2j], [12 - 1j, 2 + 6j]])


def test_tridiagonal_matmul_gradients():
    g_diags, g_rhs = grads(ek.linalg.tridiagonal_matmul, DG, RM)
    np.testing.assert_array_equal(g_diags, [[3, 17, 2, 0], [-1, 8, 27, 4], [0, -1, 13, 37]])
    np.testing.assert_array_equal(g_rhs, [[25, 34], [22, 30], [53, 64], [69, 80]])
    seq = [np.array([2.0, 3, 4, 5]), np.array([1.0, 2, 3, 4]), np.array([0.0, 1, 0, 1])]
    gs = grads(lambda a, b, c: ek.linalg.tridiagonal_matmul([a, b, c], RM, "sequence"), *seq)
    np.testing.assert_array_equal(gs, [[3, 17, 2, 0], [-1, 8, 27, 4], [0, -1, 13, 37]])
    d, r = RNG.normal(size=(2, 3, 5)), RNG.normal(size=(2, 5, 2))
    check_gradients(ek.linalg.tridiagonal_matmul, d, r, order=2)
    check_gradients(
        lambda a, b: ek.linalg.tridiagonal_matmul(a, b, diagonals_format="matrix"),
        RNG.normal(size=(2, 5, 5)),
        r,
    )


def test_tridiagonal_matmul_errors():
    with pytest.raises(ValueError, match=r"tridiagonal_matmul: unrecognized diagonals_format 'x'"):
        ek.linalg.tridiagonal_matmul(DG, RM, diagonals_format="x")
    with pytest.raises(IAE, match=r"tridiagonal_matmul: rhs must have shape .* got \(4,\)"):
        ek.linalg.tridiagonal_matmul(DG, RV)
    with pytest.raises(IAE, match=r"tridiagonal_matmul: rhs must have shape .* got \(3, 2\)"):
        ek.linalg.tridiagonal_matmul(DG, RM[:3])
    with pytest.raises(ValueError, match=r"the superdiagonal must have length 4, got 3"):
        ek.linalg.tridiagonal_matmul([DG[0, :3], DG[1], DG[2]], RM, diagonals_format="sequence")


# -- banded_triangular_solve ---------------------------------------------------------------------

B3 = np.array([[2.0, 3.0, 4.0, 5.0], [1.0, -2.0, 0.5, 3.0], [7.0, 1.0, 2.0, 1.0]])
RB = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
BTS_REF = {  # TensorFlow 2.21, (lower, adjoint) -> solution
    (True, False): [
        [0.5, 1],
        [1.3333333333333333, 2],
        [0.8333333333333334, 0.75],
        [0.6333333333333334, 0.75],
    ],
    (False, False): [[2.2857142857142856, 2.5714285714285716], [-16.5, -18], [0.75, 1], [7, 8]],
    (True, True): [
        [0.7999999999999998, 1.4500000000000002],
        [0.5, 0.75],
        [0.20000000000000018, 0.2999999999999998],
        [1.4, 1.6],
    ],
    (False, True): [
        [0.14285714285714285, 0.2857142857142857],
        [2.857142857142857, 3.7142857142857144],
        [5.214285714285714, 6.428571428571429],
        [-4.178571428571429, -6.357142857142857],
    ],
}


def test_banded_triangular_solve_matches_tensorflow():
    # TensorFlow's docstring examples
    x = [[2.0, 3.0, 4.0], [1.0, 2.0, 3.0]]
    soln = ek.linalg.banded_triangular_solve(x, ek.ones([3, 1]))
    np.testing.assert_array_equal(soln.numpy(), [[0.5], [0.0], [0.25]])
    x2 = [[2.0, 3.0, 4.0], [10000.0, 2.0, 3.0]]  # the padding entry is ignored
    np.testing.assert_array_equal(ek.linalg.banded_triangular_solve(x2, ek.ones([3, 1])), soln)
    dense = ek.linalg.triangular_solve([[2.0, 0, 0], [2, 3, 0], [0, 3, 4]], ek.ones([3, 1]))
    np.testing.assert_array_equal(dense.numpy(), soln.numpy())
    x = [[2.0, 3.0, 4.0, 5.0], [-1.0, -2.0, -3.0, -4.0]]
    soln = ek.linalg.banded_triangular_solve(x, ek.ones([4, 1]), lower=False)
    np.testing.assert_allclose(soln.numpy().ravel(), [-4.0, -1.5, -0.6666667, -0.25], rtol=1e-7)
    for (lower, adjoint), ref in BTS_REF.items():
        out = ek.linalg.banded_triangular_solve(B3, RB, lower=lower, adjoint=adjoint)
        np.testing.assert_allclose(out.numpy(), ref, rtol=1e-14)
    ref = BTS_REF[(True, False)]
    out = ek.linalg.banded_triangular_solve(np.stack([B3, 2 * B3]), RB).numpy()
    np.testing.assert_allclose(out, [ref, np.array(ref) / 2], rtol=1e-14)
    out = ek.linalg.banded_triangular_solve(B3, np.stack([RB, 2 * RB])).numpy()
    np.testing.assert_allclose(out, [ref, np.array(ref) * 2], rtol=1e-14)
    # more bands than rows: the ones beyond the matrix are ignored
    out = ek.linalg.banded_triangular_solve(np.ones((5, 4)), RB)
    np.testing.assert_array_equal(out.numpy(), [[1, 2], [2, 2], [2, 2], [2, 2]])
    cb = np.array([[1 + 1j, 2 - 1j, 3], [0, 1j, 2]])
    out = ek.linalg.banded_triangular_solve(cb, [[1.0 + 0j], [1j], [2]], adjoint=True)
    np.testing.assert_allclose(out.numpy().ravel(), [1 / 3, -1 / 3 + 2j / 3, 2 / 3], atol=1e-15)


def test_banded_triangular_solve_gradients():
    ref_lower = [  # TensorFlow 2.21, bands' gradient for lower=True (either adjoint)
        [-1.85, -2.1666666666666665, -0.3916666666666667, -2.086666666666667],
        [0.0, -1.0, -0.8666666666666665, -2.366666666666667],
        [0.0, 0.0, -0.3999999999999999, -5.066666666666666],
    ]
    ref_upper = [
        [-0.39285714285714285, -49.714285714285715, 0.0, 0.0],
        [7.5, -5.857142857142858, -87.92857142857143, 0.0],
        [-1.0612244897959184, 114.0, -10.339285714285715, 80.10714285714286],
    ]
    for lower, adjoint in BTS_REF:
        g_bands, g_rhs = grads(
            lambda a, b, lo=lower, adj=adjoint: ek.linalg.banded_triangular_solve(
                a, b, lower=lo, adjoint=adj
            ),
            B3,
            RB,
        )
        np.testing.assert_allclose(g_bands, ref_lower if lower else ref_upper, rtol=1e-13)
        np.testing.assert_allclose(g_rhs, BTS_REF[(lower, not adjoint)], rtol=1e-13)
    cb = np.array([[1 + 1j, 2 - 1j, 3], [0, 1j, 2]])
    cr = np.array([[1 + 2j, 1], [2, 1j], [3 - 1j, 0]])
    cw = np.array([[1 - 1j, 2], [0.5j, 1], [2, -1j]])
    g_bands, g_rhs = grads(ek.linalg.banded_triangular_solve, cb, cr, weights=cw)
    np.testing.assert_allclose(
        g_bands[1], [0, 0.55 - 0.31666666666666665j, -0.9 + 0.03333333333333333j], atol=1e-15
    )
    np.testing.assert_allclose(g_rhs[0], [0.2833333333333333 + 0.65j, 1.1 + 1.3666666666666667j])
    bands = RNG.normal(size=(3, 5))
    bands[0] += 3
    r = RNG.normal(size=(2, 5, 2))
    for lower in (True, False):
        for adjoint in (True, False):
            b = bands if lower else bands[::-1].copy()
            check_gradients(
                lambda a, x, lo=lower, adj=adjoint: ek.linalg.banded_triangular_solve(
                    a, x, lower=lo, adjoint=adj
                ),
                b,
                r,
                order=2,
            )
    check_gradients(ek.linalg.banded_triangular_solve, np.stack([bands, bands + 1]), r[0])


def test_banded_triangular_solve_errors():
    with pytest.raises(IAE, match=r"banded_triangular_solve: Input matrix is not invertible"):
        ek.linalg.banded_triangular_solve([[1.0, 0.0], [1.0, 1.0]], [[1.0], [1.0]])
    with pytest.raises(IAE, match=r"bands' M \(4\) and rhs' M \(3\) differ"):
        ek.linalg.banded_triangular_solve(B3, RB[:3])
    with pytest.raises(IAE, match=r"must have rank >= 2: bands \(3, 4\), rhs \(4,\)"):
        ek.linalg.banded_triangular_solve(B3, RB[:, 0])
    with pytest.raises(TypeError, match=r"banded_triangular_solve: bands must be .* got int32"):
        ek.linalg.banded_triangular_solve([[1, 2]], [[1], [2]])
    with pytest.raises(TypeError, match=r"got float16"):
        ek.linalg.banded_triangular_solve(ek.ones((1, 2), ek.float16), ek.ones((2, 1), ek.float16))


# -- eigh_tridiagonal ----------------------------------------------------------------------------

ET_VALS = [0.2679491924311226, 2.0, 3.7320508075688776]  # TensorFlow 2.21 for [1, 2, 3], [1, 1]
ET_VECS = np.array(
    [
        [-0.7886751345948129, 0.5773502691896257, -0.21132486540518713],
        [0.5773502691896257, 0.5773502691896258, -0.5773502691896258],
        [-0.21132486540518708, -0.5773502691896257, -0.7886751345948129],
    ]
)


def _dense(alpha, beta):
    return np.diag(alpha) + np.diag(beta, 1) + np.diag(np.conj(beta), -1)


def test_eigh_tridiagonal_matches_tensorflow():
    a, b = np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0])
    np.testing.assert_allclose(ek.linalg.eigh_tridiagonal(a, b).numpy(), ET_VALS, rtol=1e-14)
    w32 = ek.linalg.eigh_tridiagonal(a.astype(np.float32), b.astype(np.float32))
    assert w32.dtype == ek.float32
    np.testing.assert_allclose(w32.numpy(), [0.26794922, 2.0, 3.732051], rtol=1e-7)
    w, v = ek.linalg.eigh_tridiagonal(a, b, eigvals_only=False)
    np.testing.assert_allclose(w.numpy(), ET_VALS, rtol=1e-14)
    np.testing.assert_allclose(np.abs(v.numpy()), np.abs(ET_VECS), rtol=1e-13)  # up to sign
    np.testing.assert_allclose(np.abs(np.sum(v.numpy() * ET_VECS, 0)), 1.0, rtol=1e-13)
    out = ek.linalg.eigh_tridiagonal(a, b, select="i", select_range=[1, 2])
    np.testing.assert_allclose(out.numpy(), ET_VALS[1:], rtol=1e-14)
    out = ek.linalg.eigh_tridiagonal(a, b, select="v", select_range=[0.0, 2.5])
    np.testing.assert_allclose(out.numpy(), ET_VALS[:2], rtol=1e-14)
    w, v = ek.linalg.eigh_tridiagonal(a, b, eigvals_only=False, select="v", select_range=[0.0, 2.5])
    np.testing.assert_allclose(np.abs(v.numpy()), np.abs(ET_VECS[:, :2]), rtol=1e-13)
    # closed form: [[2, 1], [1, 2]] has eigenvalues 1 and 3
    np.testing.assert_allclose(ek.linalg.eigh_tridiagonal([2.0, 2.0], [1.0]).numpy(), [1.0, 3.0])
    # a tolerance bounds the bisection's error
    out = ek.linalg.eigh_tridiagonal(a, b, tol=1e-3).numpy()
    assert np.all(np.abs(out - ET_VALS) <= 1e-3)
    w = ek.linalg.eigh_tridiagonal(np.array([5.0]), np.zeros(0))
    np.testing.assert_array_equal(w.numpy(), [5.0])


def test_eigh_tridiagonal_complex_hermitian():
    a, b = np.array([1.0, 2.0, 3.0], complex), np.array([1j, 1 + 1j])
    ref = [0.13919414688829668, 1.7458983116349476, 4.1149075414767555]  # TensorFlow 2.21
    w = ek.linalg.eigh_tridiagonal(a, b)
    assert w.dtype == ek.float64
    np.testing.assert_allclose(w.numpy(), ref, rtol=1e-14)
    w, v = ek.linalg.eigh_tridiagonal(a, b, eigvals_only=False)
    assert v.dtype == ek.complex128
    t, v = _dense(a, b), v.numpy()
    np.testing.assert_allclose(t @ v, v * w.numpy(), atol=1e-14)
    np.testing.assert_allclose(v.conj().T @ v, np.eye(3), atol=1e-14)


def test_eigh_tridiagonal_gradients_match_finite_differences():
    a, b = RNG.normal(size=5), RNG.normal(size=4)
    check_gradients(ek.linalg.eigh_tridiagonal, a, b)
    check_gradients(lambda x, y: ek.linalg.eigh_tridiagonal(x, y, "i", select_range=(1, 3)), a, b)
    check_gradients(
        lambda x, y: ek.linalg.eigh_tridiagonal(x, y, select="v", select_range=(-0.5, 2.0)), a, b
    )
    check_gradients(lambda x, y: ek.abs(ek.linalg.eigh_tridiagonal(x, y, False)[1]), a, b)
    # closed form: d lambda_k / d alpha_i = v_ik^2 (weights [1, 2, 3] on [1, 2, 3], [1, 1])
    g_a, g_b = grads(
        ek.linalg.eigh_tridiagonal, np.array([1.0, 2, 3]), np.ones(2), weights=[1.0, 2, 3]
    )
    np.testing.assert_allclose(g_a, (ET_VECS**2) @ [1.0, 2.0, 3.0], rtol=1e-13)
    np.testing.assert_allclose(g_b, 2 * (ET_VECS[:-1] * ET_VECS[1:]) @ [1.0, 2.0, 3.0], rtol=1e-12)


def test_eigh_tridiagonal_complex_gradient_matches_finite_differences():
    # The gradient of a complex input is dL/dRe + i dL/dIm (TensorFlow's convention).
    a, b = np.array([1.0, 2.0, 3.0], complex), np.array([1j, 1 + 1j])
    weights = np.array([1.0, -2.0, 0.5])

    def loss(a, b):
        return float(np.sum(ek.linalg.eigh_tridiagonal(a, b).numpy() * weights))

    g_a, g_b = grads(ek.linalg.eigh_tridiagonal, a, b, weights=weights)
    eps = 1e-6
    for x, g in ((a, g_a), (b, g_b)):
        for i in range(x.size):
            for unit in (1, 1j):
                up, down = x.copy(), x.copy()
                up[i] += eps * unit
                down[i] -= eps * unit
                fd = (
                    loss(*(up, b) if x is a else (a, up))
                    - loss(*(down, b) if x is a else (a, down))
                ) / (2 * eps)
                ours = g[i].real if unit == 1 else g[i].imag
                assert abs(ours - fd) < 1e-6, (i, unit, ours, fd)


def test_eigh_tridiagonal_errors():
    a = np.array([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"'alpha' and 'beta' must have the same type"):
        ek.linalg.eigh_tridiagonal(a, np.array([1.0, 1.0], np.float32))
    with pytest.raises(ValueError, match=r"select must be one of 'a', 'i', 'v', got 'x'"):
        ek.linalg.eigh_tridiagonal(a, [1.0, 1.0], select="x")
    with pytest.raises(ValueError, match=r"alpha must have shape \[n\] and beta shape \[n - 1\]"):
        ek.linalg.eigh_tridiagonal(np.ones((2, 3)), np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"got \(3,\) and \(3,\)"):
        ek.linalg.eigh_tridiagonal(a, np.ones(3))
    with pytest.raises(TypeError, match=r"eigh_tridiagonal: alpha must be one of .* int32"):
        ek.linalg.eigh_tridiagonal([1, 2, 3], [1, 1])
    with pytest.raises(ValueError, match=r"select='i' needs select_range"):
        ek.linalg.eigh_tridiagonal(a, [1.0, 1.0], select="i")
    with pytest.raises(ValueError, match=r"empty interval"):
        ek.linalg.eigh_tridiagonal(a, [1.0, 1.0], select="v", select_range=(2.0, 1.0))
    with pytest.raises(ValueError, match=r"indices 0 <= low <= high < 3"):
        ek.linalg.eigh_tridiagonal(a, [1.0, 1.0], select="i", select_range=(1, 3))
    b = ek.constant([1j, 1 + 1j])
    with ek.GradientTape() as tape:
        tape.watch(b)
        _, v = ek.linalg.eigh_tridiagonal(ek.constant([1.0 + 0j, 2, 3]), b, eigvals_only=False)
        loss = ek.reduce_sum(ek.abs(v))
    with pytest.raises(NotImplementedError, match=r"eigh_tridiagonal: the gradient of the eigenv"):
        tape.gradient(loss, b)
