"""Complex matrices in `ek.linalg` against TensorFlow 2.21 (found by differential fuzzing).

``ORACLE`` holds values, output dtypes and first derivatives computed with the oracle
(tensorflow-cpu 2.21, ``tf.GradientTape``) on the inputs below, rounded to 6 decimals: the
gradient of the real loss ``sum(real(out) * w) + sum(imag(out) * (1 - w))``, ``w`` =
``arange(1, size + 1) / 4`` in each output's shape. Decompositions whose vectors have a
phase freedom (``eigh``, ``svd``) are compared through phase-invariant outputs: the
projector onto the first vector and ``abs``. A finite-difference check confirms the complex
gradient convention (cotangent ``dL/d re + i dL/d im``) where TensorFlow's formulas are exact.
"""

import warnings

import numpy as np
import pytest

import eagerkernel as ek

L = ek.linalg
A = np.array([[1 + 2j, 0.5 - 1j], [-0.3 + 0.4j, 2 - 0.5j]])
H = np.array([[3 + 0j, 1 - 1j], [1 + 1j, 2 + 0j]])
T = np.array([[2 + 1j, 0.7 - 0.2j], [0.5 - 1j, 1.5 + 0.5j]])
B = np.array([[1 - 1j, 0.5j], [2 + 0j, -1 + 1j]])
W = np.array([[1 + 0j, 2 - 1j], [0.5 + 3j, -1 + 0.5j], [0.2 - 0.7j, 1.1 + 0.4j]])
WT = W.T.copy()
# tf.linalg.lu(A) (the same pivots in TensorFlow and here)
LU = np.array([[1 + 2j, 0.5 - 1j], [(-0.3 + 0.4j) / (1 + 2j), 0j]])
LU[1, 1] = 2 - 0.5j - LU[1, 0] * (0.5 - 1j)
P = np.array([0, 1], np.int32)


def _adj(x):
    return ek.math.conj(L.matrix_transpose(x))


def _proj(u):
    u1 = u[..., :, :1]
    return ek.matmul(u1, _adj(u1))


CASES = {
    "inv": ([A], lambda a: [L.inv(a)]),
    "inv_adjoint": ([A], lambda a: [L.inv(a, adjoint=True)]),
    "det": ([A], lambda a: [L.det(a)]),
    "slogdet": ([A], lambda a: list(L.slogdet(a))),
    "logdet": ([H], lambda a: [L.logdet(a)]),
    "solve": ([A, B], lambda a, b: [L.solve(a, b)]),
    "solve_adjoint": ([A, B], lambda a, b: [L.solve(a, b, adjoint=True)]),
    "cholesky": ([H], lambda a: [L.cholesky(a)]),
    "cholesky_solve": ([H, B], lambda a, b: [L.cholesky_solve(L.cholesky(a), b)]),
    "triangular_solve_lower": ([T, B], lambda a, b: [L.triangular_solve(a, b)]),
    "triangular_solve_upper_adjoint": (
        [T, B],
        lambda a, b: [L.triangular_solve(a, b, lower=False, adjoint=True)],
    ),
    "eigh": ([H], lambda a: [L.eigh(a)[0], _proj(L.eigh(a)[1])]),
    "eigvalsh": ([H], lambda a: [L.eigvalsh(a)]),
    "svd_values": ([W], lambda a: [L.svd(a, compute_uv=False)]),
    "svd": ([W], lambda a: [L.svd(a)[0], _proj(L.svd(a)[1]), ek.abs(L.svd(a)[2])]),
    "svd_full_wide": (
        [WT],
        lambda a: [
            L.svd(a, full_matrices=True)[0],
            _proj(L.svd(a, full_matrices=True)[1]),
            ek.abs(L.svd(a, full_matrices=True)[2]),
        ],
    ),
    "qr": ([W], lambda a: list(L.qr(a))),
    "qr_full_wide": ([WT], lambda a: list(L.qr(a, full_matrices=True))),
    "lstsq": ([W, W[:, :1] * 1j], lambda a, b: [L.lstsq(a, b)]),
    "lstsq_wide": ([WT, B], lambda a, b: [L.lstsq(a, b)]),
    "lstsq_l2_c64": (
        [W.astype(np.complex64), (W[:, :1] * 1j).astype(np.complex64)],
        lambda a, b: [L.lstsq(a, b, l2_regularizer=0.5)],
    ),
    "lu": ([A], lambda a: [L.lu(a)[0]]),
    "lu_solve": ([LU, B], lambda lu, b: [L.lu_solve(lu, P, b)]),
    "lu_reconstruct": ([LU], lambda lu: [L.lu_reconstruct(lu, P)]),
}

# Computed with tensorflow-cpu 2.21 (see the module docstring).
# fmt: off
ORACLE = {'cholesky': {'dtypes': ['complex128'],
              'grads': [[[(0.072169+0j), (0.072169+0.072169j)],
                         [(0.072169-0.072169j), (0.433013+0j)]]],
              'values': [[[(1.732051+0j), 0j], [(0.57735+0.57735j), (1.154701+0j)]]]},
 'cholesky_solve': {'dtypes': ['complex128'],
                    'grads': [[[(0.125+0j), (-0.125-0j)], [(-0.125+0j), (-0.0625+0j)]],
                              [[(-0.125+0.5j), (-0+0.5j)], [(0.6875-0.0625j), (0.75-0.25j)]]],
                    'values': [[[0j, -0.25j], [(1+0j), (-0.625+0.625j)]]]},
 'det': {'dtypes': ['complex128'],
         'grads': [[[(-1.629717-0.016509j), (-0.304245-0.252358j)],
                    [(0.568396+0.676887j), (-0.400943+1.721698j)]]],
         'values': [(2.75+3j)]},
 'eigh': {'dtypes': ['complex128', 'complex128'],
          'grads': [[[(0.564815+0j), 0j], [(-0.157407+0.342593j), (0.185185+0j)]]],
          'values': [[(1+0j), (4+0j)],
                     [[(0.333333+0j), (-0.333333+0.333333j)],
                      [(-0.333333-0.333333j), (0.666667+0j)]]]},
 'eigvalsh': {'dtypes': ['complex128'],
              'grads': [[[(0.416667+0j), 0j], [(0.166667+0.166667j), (0.333333+0j)]]],
              'values': [[(1+0j), (4+0j)]]},
 'inv': {'dtypes': ['complex128'],
         'grads': [[[(0.138612-0.025803j), (0.034033-0.216732j)],
                    [(-0.154774-0.09303j), (-0.3199+0.15016j)]]],
         'values': [[[(0.241509-0.445283j), (0.098113+0.256604j)],
                     [(-0.022642-0.120755j), (0.528302+0.150943j)]]]},
 'inv_adjoint': {'dtypes': ['complex128'],
                 'grads': [[[(-0.233905-0.167348j), (-0.191798-0.221104j)],
                            [(-0.17592+0.280128j), (-0.285724+0.262229j)]]],
                 'values': [[[(0.241509+0.445283j), (-0.022642+0.120755j)],
                             [(0.098113-0.256604j), (0.528302-0.150943j)]]]},
 'logdet': {'dtypes': ['float64'],
            'grads': [[[(0.125+0j), (-0.0625+0.0625j)], [(-0.0625-0.0625j), (0.1875+0j)]]],
            'values': [1.386294]},
 'lstsq': {'dtypes': ['complex128'],
           'grads': [[[(-0.129676+0.165988j), (-0+0j)], [(-0.070551-0.178471j), -0j],
                      [(-0.069455+0.051064j), (-0+0j)]],
                     [[(0.165988+0.129676j)], [(-0.178471+0.070551j)], [(0.051064+0.069455j)]]],
           'values': [[[1j], [0j]]]},
 'lstsq_l2_c64': {'dtypes': ['complex64'],
                  'grads': [[[(-0.11503200232982635+0.15152199566364288j),
                              (-0.00584599981084466+0.005427999887615442j)],
                             [(-0.06601899862289429-0.1586659997701645j),
                              (-0.00026500000967644155+0.004118000157177448j)],
                             [(-0.06196200102567673+0.04643600061535835j),
                              (-0.0026730000972747803-0.0023990001063793898j)]],
                            [[(0.15653100609779358+0.12148900330066681j)],
                             [(-0.1750749945640564+0.06742600351572037j)],
                             [(0.050790999084711075+0.06544899940490723j)]]],
                  'values': [[[(-0+0.9446409940719604j)],
                              [(0.02113400027155876+0.020044000819325447j)]]]},
 'lstsq_wide': {'dtypes': ['complex128'],
                'grads': [[[(-0.018823-0.008468j), (0.052989+0.061245j), (0.036712-0.107877j)],
                           [(-0.112718+0.03152j), (0.121154-0.020975j), (-0.077064+0.187178j)]],
                          [[(-0.168728+0.278526j), (-0.045782+0.345985j)],
                           [(0.421193+0.171154j), (0.466818+0.02293j)]]],
                'values': [[[(0.515574+0.215683j), (-0.437158+0.112068j)],
                            [(-0.29723-0.21177j), (0.111363-0.083425j)],
                            [(0.287212-0.085303j), (-0.076694+0.209344j)]]]},
 'lu': {'dtypes': ['complex128'],
        'grads': [],
        'values': [[[(1+2j), (0.5-1j)], [(0.1+0.2j), (1.75-0.5j)]]]},
 'lu_reconstruct': {'dtypes': ['complex128'],
                    'grads': [[[(0.375+0.625j), (0.6+0.3j)], [(1.75-0.25j), (1+0j)]]],
                    'values': [[[(1+2j), (0.5-1j)], [(-0.3+0.4j), (2-0.5j)]]]},
 'lu_solve': {'dtypes': ['complex128'],
              'grads': [[[(0.039623+0.088679j), (0.00566-0.130189j)],
                         [(-0.507547-0.326415j), (-0.079245+0.222642j)]],
                        [[(-0.320755+0.377358j), (-0.124528+0.464151j)],
                         [(0.650943+0.028302j), (0.70566-0.230189j)]]],
              'values': [[[(-0.007547-0.173585j), (-0.132075-0.037736j)],
                          [(0.913208+0.203774j), (-0.618868+0.366038j)]]]},
 'qr': {'dtypes': ['complex128', 'complex128'],
        'grads': [[[(-0.502747+0.468925j), (0.58651-0.332335j)],
                   [(-0.070102+0.038596j), (0.488388-0.851567j)],
                   [(-0.884015+0.317154j), (0.799276+0.110721j)]]],
        'values': [[[(-0.304572+0j), (0.709502-0.528888j)],
                    [(-0.152286-0.913717j), (-0.112408-0.189759j)],
                    [(-0.060914+0.213201j), (0.346749+0.2191j)]],
                   [[(-3.283291+0j), (-0.895443-0.944175j)], [0j, (2.434485+0j)]]]},
 'qr_full_wide': {'dtypes': ['complex128', 'complex128'],
                  'grads': [[[(-1.814599-0.453293j), (0.381886+0.803352j), (0.559839+1.052638j)],
                             [(0.171466-0.859295j), (-1.048272-0.489913j),
                              (-1.291785-0.186613j)]]],
                  'values': [[[(-0.408248+0j), (0.288675+0.866025j)],
                              [(-0.816497+0.408248j), (-0.288675-0.288675j)]],
                             [[(-2.44949+0j), (0.816497-1.224745j), (-0.816497-0.489898j)],
                              [0j, (2.886751+0j), (-0.981495-0.173205j)]]]},
 'slogdet': {'dtypes': ['complex128', 'complex128'],
             'grads': [[[(-0.273585+0.292453j), (-0.096226+0.013208j)],
                        [(0.216981+0.009434j), (0.245283+0.358491j)]]],
             'values': [(0.675725+0.737154j), (1.403571+0j)]},
 'solve': {'dtypes': ['complex128'],
           'grads': [[[(0.064151+0.124528j), (-0.030943-0.168302j)],
                      [(0.09434-0.169811j), (-0.079245+0.222642j)]],
                     [[(-0.320755+0.377358j), (-0.124528+0.464151j)],
                      [(0.650943+0.028302j), (0.70566-0.230189j)]]],
           'values': [[[(-0.007547-0.173585j), (-0.132075-0.037736j)],
                       [(0.913208+0.203774j), (-0.618868+0.366038j)]]]},
 'solve_adjoint': {'dtypes': ['complex128'],
                   'grads': [[[(-0.241609-0.035443j), (-0.185675-0.082691j)],
                              [(-0.177045+0.162606j), (-0.182058+0.028836j)]],
                             [[(0.403774+0.286792j), (0.441509+0.154717j)],
                              [(0.443396+0.198113j), (0.577358+0.079245j)]]],
                   'values': [[[(0.641509+0.445283j), (-0.320755-0.022642j)],
                               [(0.898113-0.656604j), (-0.249057+0.728302j)]]]},
 'svd': {'dtypes': ['float64', 'complex128', 'float64'],
         'grads': [[[(0.28171+0.431273j), (0.274708-0.139692j)],
                    [(0.290596+0.251066j), (0.259108+0.164364j)],
                    [(0.387541+0.218525j), (0.224239+0.352991j)]]],
         'values': [[3.708803, 2.155176],
                    [[(0.212034+0j), (-0.253682-0.286361j), (0.14372+0.00793j)],
                     [(-0.253682+0.286361j), (0.690253+0j), (-0.182659+0.184613j)],
                     [(0.14372-0.00793j), (-0.182659-0.184613j), (0.097712+0j)]],
                    [[0.820626, 0.571465], [0.571465, 0.820626]]]},
 'svd_full_wide': {'dtypes': ['float64', 'complex128', 'float64'],
                   'grads': [[[(0.454169+0.066046j), (-0.217443-0.23618j), (-0.099931-0.121601j)],
                              [(0.528367-0.297206j), (0.324279+0.3721j), (0.845278+0.393076j)]]],
                   'values': [[3.708803, 2.155176],
                              [[(0.673428+0j), (0.322707-0.340269j)],
                               [(0.322707+0.340269j), (0.326572+0j)]],
                              [[0.460472, 0.814767, 0.352306], [0.830815, 0.465254, 0.305426],
                               [0.31259, 0.345966, 0.884644]]]},
 'svd_values': {'dtypes': ['float64'],
                'grads': [[[(0.070934+0.165127j), (0.303381-0.234254j)],
                           [(0.085692+0.280912j), (-0.036789-0.098224j)],
                           [(-0.056597-0.044451j), (0.146246+0.097279j)]]],
                'values': [[3.708803, 2.155176]]},
 'triangular_solve_lower': {'dtypes': ['complex128'],
                            'grads': [[[(0.05-0.05j), 0j], [(-0-0.2j), (-0.42+0.06j)]],
                                      [[(0.1+0.15j), (0.2+0j)], [(0.4+0.3j), (0.6+0.2j)]]],
                            'values': [[[(0.2-0.6j), (0.1+0.2j)], [(1.6-0.2j), (-0.55+0.85j)]]]},
 'triangular_solve_upper_adjoint': {'dtypes': ['complex128'],
                                    'grads': [[[(-0.042+0.174j), (-0.2-0j)],
                                               [0j, (0.036-0.228j)]],
                                              [[(0.13+0.36j), (0.2+0.28j)],
                                               [(0.5+0j), (0.6-0.2j)]]],
                                    'values': [[[(0.6-0.2j), (-0.1+0.2j)],
                                                [(0.92+0.32j), (-0.71+0.35j)]]]}}
# fmt: on


def _loss(outs):
    total = 0.0
    for o in outs:
        w = np.arange(1, np.prod(o.shape) + 1).reshape(o.shape) / 4.0
        w = w.astype(o.dtype.real_dtype.as_numpy_dtype)
        total = total + ek.reduce_sum(ek.math.real(o) * w)
        total = total + ek.reduce_sum(ek.math.imag(o) * (1 - w))
    return total


@pytest.mark.parametrize("name", sorted(CASES))
def test_complex_linalg_matches_tensorflow(name):
    inputs, fn = CASES[name]
    xs = [ek.constant(x) for x in inputs]
    with ek.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        outs = fn(*xs)
        loss = _loss(outs)
    want = ORACLE[name]
    assert [o.dtype.name for o in outs] == want["dtypes"]
    tol = 2e-5 if "c64" in name else 2e-6
    for got, expected in zip(outs, want["values"]):
        np.testing.assert_allclose(got.numpy(), np.array(expected), atol=tol, rtol=tol)
    if name == "lu":  # Lu has no gradient (TensorFlow's neither)
        return
    grads = tape.gradient(loss, xs)
    for got, expected, x in zip(grads, want["grads"], xs):
        assert got.dtype == x.dtype
        np.testing.assert_allclose(got.numpy(), np.array(expected), atol=tol, rtol=tol)


def _finite_difference(f, x, eps=1e-6):
    """``dL/d re + i dL/d im`` of the real function ``f`` at the complex array ``x``."""
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        for unit in (1, 1j):
            d = np.zeros_like(x)
            d[idx] = eps * unit
            g[idx] += unit * (f(x + d) - f(x - d)) / (2 * eps)
    return g


@pytest.mark.parametrize(
    ("op", "reads"),
    [
        (L.inv, np.ones),
        (lambda a: L.inv(a, adjoint=True), np.ones),
        (lambda a: L.solve(a, B, adjoint=True), np.ones),
        (lambda a: L.svd(a, compute_uv=False), np.ones),
        (lambda a: ek.abs(L.svd(a)[1]), np.ones),  # phase-invariant
        (lambda a: ek.abs(L.qr(a)[1]), np.ones),  # phase-invariant
        (lambda a: L.triangular_solve(a, B, lower=False), lambda s: np.triu(np.ones(s))),
    ],
)
def test_complex_gradient_convention_finite_differences(op, reads):
    def loss(x):
        o = op(ek.constant(x))
        return ek.reduce_sum(ek.math.real(o) * 0.7 - ek.math.imag(o) * 1.3)

    x = ek.constant(A)
    with ek.GradientTape() as tape:
        tape.watch(x)
        out = loss(x)
    got = tape.gradient(out, x).numpy()
    want = _finite_difference(lambda v: float(loss(v)), A) * reads(A.shape)
    np.testing.assert_allclose(got, want, atol=1e-6)


def test_eigh_eigvalsh_read_the_lower_triangle_only():
    garbage = np.tril(H) + np.triu(np.full((2, 2), 5 - 7j), 1)
    np.testing.assert_allclose(L.eigvalsh(garbage).numpy(), [1, 4], atol=1e-12)
    np.testing.assert_allclose(
        L.cholesky(garbage).numpy(), ORACLE["cholesky"]["values"][0], atol=1e-6
    )


def test_batched_matches_per_matrix():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(3, 4, 3)) + 1j * rng.normal(size=(3, 4, 3))
    x = ek.constant(a.astype(np.complex64))
    with ek.GradientTape() as tape:
        tape.watch(x)
        loss = ek.reduce_sum(L.svd(x, compute_uv=False)) + ek.reduce_sum(ek.abs(L.qr(x)[1]))
    batched = tape.gradient(loss, x).numpy()
    for i in range(3):
        xi = ek.constant(a[i].astype(np.complex64))
        with ek.GradientTape() as tape:
            tape.watch(xi)
            li = ek.reduce_sum(L.svd(xi, compute_uv=False)) + ek.reduce_sum(ek.abs(L.qr(xi)[1]))
        np.testing.assert_allclose(batched[i], tape.gradient(li, xi).numpy(), atol=1e-5)


@pytest.mark.parametrize(
    ("op", "dtypes"),
    [
        (lambda a: L.svd(a), ("float32", "complex64", "complex64")),
        (lambda a: L.eigh(a), ("complex64", "complex64")),
        (lambda a: (L.logdet(a),), ("float32",)),
        (lambda a: L.slogdet(a), ("complex64", "complex64")),
        (lambda a: (L.eigvalsh(a),), ("complex64",)),
    ],
)
def test_output_dtypes_complex64(op, dtypes):
    # tensorflow-cpu 2.21: svd's s is real, eigh's eigenvalues keep the input dtype.
    assert tuple(o.dtype.name for o in op(ek.constant(H.astype(np.complex64)))) == dtypes


def test_slogdet_nan_matrix_gives_a_complex_nan_sign():
    # tensorflow-cpu 2.21: sign nan+nanj, log_abs_determinant nan+0j.
    bad = A.astype(np.complex64)
    bad[1, 1] = np.nan
    sign, logdet = L.slogdet(bad)
    assert np.isnan(sign.numpy().real) and np.isnan(sign.numpy().imag)
    assert np.isnan(logdet.numpy().real) and logdet.numpy().imag == 0


def test_pinv_and_matrix_rank_still_refuse_complex():
    # TensorFlow: TypeError "Input `a` must have `float`-like `dtype` (saw complex64)."
    for op in (L.pinv, L.matrix_rank):
        with pytest.raises(TypeError, match="complex64"):
            op(ek.constant(A.astype(np.complex64)))


def test_lstsq_complex128_with_l2_regularizer_is_refused_as_in_tensorflow():
    with pytest.raises(NotImplementedError, match=r"lstsq.*l2_regularizer"):
        L.lstsq(A, B, l2_regularizer=0.1)


def test_lstsq_complex_fast_false_is_the_minimum_norm_solution():
    want = np.linalg.lstsq(WT, B, rcond=None)[0]
    np.testing.assert_allclose(L.lstsq(WT, B, fast=False).numpy(), want, atol=1e-10)


@pytest.mark.parametrize(
    "args",
    [
        (np.ones((2, 3), np.complex64), np.ones((2, 3), np.complex64)),
        (np.array([True, False, True]), np.array([True, False, True])),
    ],
)
def test_cross_refuses_complex_and_bool(args):
    # TensorFlow: InvalidArgumentError "Value for attr 'T' of complex64 is not in the list..."
    with pytest.raises(
        ek.errors.InvalidArgumentError, match=r"cross: a and b .*got (complex64|bool)"
    ):
        L.cross(*args)


@pytest.mark.parametrize("bad", [np.array([1 + 1j], np.complex64), np.array([1, 2], np.int32)])
def test_global_norm_refuses_non_floating(bad):
    # TensorFlow: InvalidArgumentError from L2Loss ("Value for attr 'T' of complex64 ...").
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"global_norm: .*floating"):
        L.global_norm([ek.constant([1.0]), ek.constant(bad)])


def test_cast_complex_to_real_keeps_the_real_part_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ek.cast(ek.constant([1.5 + 2j]), ek.float32).numpy().tolist() == [1.5]
        assert ek.cast(ek.constant([1.5 + 2j]), ek.int32).numpy().tolist() == [1]
