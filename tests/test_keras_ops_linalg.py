"""`ek.keras.ops.linalg` (Keras 3's ``keras.ops.linalg`` names, re-exported from
``ek.keras.ops``) and ``ek.keras.ops.histogram``: closed forms (``pinv(a) @ a = I``, normal
equations, ``cholesky_inverse(L) = inv(L L^T)``), literals checked against Keras 3.15 /
TensorFlow 2.21 (the TensorFlow backend), gradients, graph functions, and the errors for bad
input."""

from __future__ import annotations

import numpy as np
import pytest
from eagerkernel.keras import ops

import eagerkernel as ek

RNG = np.random.default_rng(0)
A32 = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
KERAS_LINALG_NAMES = [
    "cholesky",
    "cholesky_inverse",
    "det",
    "eig",
    "eigh",
    "inv",
    "jvp",
    "lstsq",
    "lu_factor",
    "matrix_rank",
    "norm",
    "pinv",
    "qr",
    "solve",
    "solve_triangular",
    "svd",
]


def close(got, want, atol=1e-5, rtol=1e-5):
    got = got.numpy() if hasattr(got, "numpy") else got
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=atol, rtol=rtol)


def test_namespace_lists_exactly_keras_names_and_reexports():
    public = [n for n in dir(ops.linalg) if not n.startswith("_")]
    assert public == KERAS_LINALG_NAMES
    for name in KERAS_LINALG_NAMES:
        assert getattr(ops.linalg, name) is getattr(ops, name), name


# -- pinv, lstsq, matrix_rank -------------------------------------------------------------------


def test_pinv():
    close(ops.linalg.pinv(A32) @ A32, np.eye(2), atol=1e-5)
    close(  # checked against Keras 3 / TF 2.21
        ops.linalg.pinv(A32),
        [[-1.3333349, -0.33333445, 0.66666776], [1.0833348, 0.33333427, -0.41666764]],
        atol=1e-5,
    )
    # TensorFlow's cutoff: rcond times the largest singular value
    close(ops.linalg.pinv(np.diag([1.0, 1e-3]).astype("float32"), rcond=1e-2), np.diag([1.0, 0]))
    batch = RNG.normal(size=(2, 4, 3))
    close(ops.linalg.pinv(batch), np.linalg.pinv(batch), atol=1e-8)
    with pytest.raises(ValueError, match=r"pinv.*rank >= 2"):
        ops.linalg.pinv(np.ones(3, np.float32))


def test_lstsq_against_normal_equations():
    a = RNG.normal(size=(6, 3))
    b = RNG.normal(size=(6, 2))
    normal = np.linalg.solve(a.T @ a, a.T @ b)
    close(ops.linalg.lstsq(a, b), normal, atol=1e-10)
    close(ops.linalg.lstsq(a, b[:, 0]), normal[:, 0], atol=1e-10)
    # checked against Keras 3 / TF 2.21
    close(ops.linalg.lstsq(A32, np.array([1.0, 2.0, 4.0], np.float32)), [0.6666675, 0.0833328])
    got = ops.linalg.lstsq(A32, np.array([[1.0, 0], [2.0, 1], [4.0, 0]], np.float32))
    close(got, [[0.6666674, -0.33333445], [0.08333279, 0.33333427]])
    small = np.diag([1.0, 1e-3]).astype("float32")
    close(ops.linalg.lstsq(small, np.ones(2, np.float32), rcond=1e-2), [1.0, 0.0])
    close(ops.linalg.lstsq(small, np.ones(2, np.float32), rcond=-1), [1.0, 1000.0], rtol=1e-4)
    wide = RNG.normal(size=(2, 4))  # underdetermined: the minimum-norm solution
    close(ops.linalg.lstsq(wide, np.ones(2)), np.linalg.pinv(wide) @ np.ones(2), atol=1e-10)


def test_lstsq_gradient_and_errors():
    a = ek.constant(RNG.normal(size=(5, 2)))
    b = ek.constant(RNG.normal(size=(5,)))
    with ek.GradientTape() as tape:
        tape.watch(b)
        x = ops.linalg.lstsq(a, b)
    # x = pinv(a) @ b is linear in b: its Jacobian is pinv(a)
    close(tape.gradient(x, b), np.ones(2) @ np.linalg.pinv(a.numpy()), atol=1e-10)
    with pytest.raises(ValueError, match=r"lstsq.*leading dimensions"):
        ops.linalg.lstsq(A32, np.ones(4, np.float32))
    with pytest.raises(TypeError, match=r"lstsq.*3-dimensional.*two-dimensional"):
        ops.linalg.lstsq(np.ones((3, 3, 2), np.float32), np.ones((3, 3), np.float32))
    with pytest.raises(TypeError, match=r"lstsq.*3-dimensional.*one or two"):
        ops.linalg.lstsq(A32, np.ones((3, 1, 1), np.float32))


def test_matrix_rank():
    rank = ops.linalg.matrix_rank(np.array([[1.0, 2.0], [2.0, 4.0]], np.float32))
    assert rank.dtype == ek.int32
    assert int(rank) == 1
    batch = np.stack([np.eye(3), np.diag([1.0, 1e-9, 0])]).astype("float32")
    close(ops.linalg.matrix_rank(batch), [3, 1])  # checked against Keras 3 / TF 2.21
    close(ops.linalg.matrix_rank(np.diag([3.0, 2.0, 0.5]).astype("float32"), tol=1.0), 2)
    with pytest.raises(ValueError, match=r"matrix_rank.*rank >= 2"):
        ops.linalg.matrix_rank(np.ones(3, np.float32))


# -- Cholesky, LU, solves -----------------------------------------------------------------------


def spd(n=4):
    a = RNG.normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


def test_cholesky_and_cholesky_inverse():
    m = spd()
    low = ops.linalg.cholesky(m)
    close(low.numpy() @ low.numpy().T, m, atol=1e-10)
    close(ops.linalg.cholesky(m, upper=True), low.numpy().T)
    close(ops.linalg.cholesky_inverse(low), np.linalg.inv(m), atol=1e-10)
    close(ops.linalg.cholesky_inverse(low.numpy().T, upper=True), np.linalg.inv(m), atol=1e-10)
    factor = np.array([[2.0, 0], [1.0, 3.0]], np.float32)
    want = [[0.27777779, -0.05555556], [-0.05555556, 0.11111112]]  # checked against Keras 3
    close(ops.linalg.cholesky_inverse(factor), want)
    close(ops.linalg.cholesky_inverse(factor.T, upper=True), want)
    with pytest.raises(ValueError, match=r"cholesky: Cholesky decomposition failed"):
        ops.linalg.cholesky(np.array([[1.0, 2.0], [2.0, 1.0]], np.float32))
    with pytest.raises(ValueError, match=r"cholesky_inverse.*rank >= 2"):
        ops.linalg.cholesky_inverse(np.ones(3, np.float32))
    with pytest.raises(ValueError, match=r"cholesky_inverse.*square"):
        ops.linalg.cholesky_inverse(np.ones((2, 3), np.float32))


def test_lu_factor_gives_tensorflow_backend_pivots():
    x = np.array([[1.0, 2.0, 0], [3.0, 4.0, 1], [0, 5.0, 6.0]], np.float32)
    lu, pivots = ops.linalg.lu_factor(x)
    close(  # checked against Keras 3 / TF 2.21
        lu, [[3.0, 4.0, 1.0], [0.0, 5.0, 6.0], [0.33333334, 0.13333333, -1.1333333]]
    )
    assert pivots.dtype == ek.int32
    close(pivots, [2, 0, 1])
    lower = np.tril(lu.numpy(), -1) + np.eye(3)
    upper = np.triu(lu.numpy())
    close((lower @ upper)[pivots.numpy()], x, atol=1e-6)  # row i of x is row pivots[i]
    batch = np.stack([x, x[::-1]])
    _, batch_pivots = ops.linalg.lu_factor(batch)
    close(batch_pivots[0], [2, 0, 1])
    with pytest.raises(ValueError, match=r"lu_factor.*square"):
        ops.linalg.lu_factor(np.ones((2, 3), np.float32))


def test_solves_det_and_inv():
    a = spd(3)
    b = RNG.normal(size=(3,))
    close(ops.linalg.solve(a, b), np.linalg.solve(a, b), atol=1e-10)  # a vector right side
    close(ops.linalg.solve(a, np.stack([b, b], 1)), np.linalg.solve(a, np.stack([b, b], 1)))
    low = np.linalg.cholesky(a)
    close(ops.linalg.solve_triangular(low, b, lower=True), np.linalg.solve(low, b), atol=1e-10)
    close(ops.linalg.det(np.array([[1, 2], [3, 4]])), -2.0)
    with pytest.raises(ValueError, match=r"solve.*incompatible"):
        ops.linalg.solve(np.eye(2, dtype="float32"), np.ones(3, np.float32))
    with pytest.raises(ValueError, match=r"inv.*square"):
        ops.linalg.inv(A32)
    with pytest.raises(ValueError, match=r"det.*rank >= 2"):
        ops.linalg.det(np.ones(3, np.float32))


# -- jvp ----------------------------------------------------------------------------------------


def test_jvp():
    out, tangent = ops.linalg.jvp(ops.sin, (ek.constant(0.1),), (ek.constant(0.2),))
    close(out, 0.09983342)
    close(tangent, 0.19900084)  # checked against Keras 3 / TF 2.21
    out, tangent = ops.linalg.jvp(
        lambda x, y: {"a": x * y, "b": x + y},
        (ek.constant([1.0, 2.0]), ek.constant([3.0, 4.0])),
        (ek.constant([1.0, 0.0]), ek.constant([0.0, 1.0])),
    )
    close(out["a"], [3.0, 8.0])
    close(tangent["a"], [3.0, 2.0])
    close(tangent["b"], [1.0, 1.0])
    out, tangent, aux = ops.linalg.jvp(
        lambda x: (x * x, x + 1), (ek.constant(3.0),), (ek.constant(1.0),), has_aux=True
    )
    assert (float(out), float(tangent), float(aux)) == (9.0, 6.0, 4.0)
    nested = ({"u": ek.constant(2.0), "v": ek.constant(5.0)},)
    out, tangent = ops.linalg.jvp(
        lambda d: d["u"] * d["v"], nested, ({"u": ek.constant(1.0), "v": ek.constant(0.0)},)
    )
    assert (float(out), float(tangent)) == (10.0, 5.0)
    _, tangent = ops.linalg.jvp(lambda x: x * x, (ek.constant(3.0),), (1,))  # cast to float32
    assert tangent.dtype == ek.float32 and float(tangent) == 6.0
    with pytest.raises(ValueError, match=r"jvp.*same structure"):
        ops.linalg.jvp(ops.sin, (ek.constant(1.0),), (ek.constant(1.0), ek.constant(2.0)))


# -- histogram ----------------------------------------------------------------------------------


def test_histogram_matches_keras_tensorflow_backend():
    counts, edges = ops.histogram(ek.constant([0.0, 0.5, 1.0, 2.0]), bins=2)
    assert counts.dtype == ek.float32  # checked against Keras 3 / TF 2.21
    close(counts, [2.0, 2.0])
    close(edges, [0.0, 1.0, 2.0])
    counts, edges = ops.histogram(ek.constant([0, 1, 2, 3, 4, 9]), bins=4)
    assert counts.dtype == ek.int32 and edges.dtype == ek.int32
    close(counts, [2, 2, 1, 1])
    close(edges, [0, 2, 4, 6, 9])  # linspace(0, 9, 5) truncated to int32
    counts, edges = ops.histogram(ek.constant([0.0, 0.5, 1.0, 2.0, -1.0]), bins=4, range=(0.0, 1.0))
    close(counts, [1.0, 0.0, 1.0, 1.0])
    close(edges, [0.0, 0.25, 0.5, 0.75, 1.0])
    counts, edges = ops.histogram(np.array([0.1, 0.2, 0.7]), bins=3)
    assert counts.dtype == ek.float64
    close(counts, [2.0, 0.0, 1.0])
    close(ops.histogram(np.ones(3, np.float32), bins=2)[0], [0.0, 3.0])


def test_histogram_in_graph_function_and_errors():
    traced = ek.function(lambda x: ops.histogram(x, bins=3))
    for values in ([0.0, 1.0, 2.0, 3.0], [5.0, 1.0, 1.0, 1.0]):
        for got, want in zip(traced(ek.constant(values)), ops.histogram(ek.constant(values), 3)):
            close(got, want)
    with pytest.raises(TypeError, match=r"histogram.*bins.*int"):
        ops.histogram(np.ones(2), bins=2.0)
    with pytest.raises(ValueError, match=r"histogram.*non-negative"):
        ops.histogram(np.ones(2), bins=-1)
    with pytest.raises(ValueError, match=r"histogram.*tuple of two"):
        ops.histogram(np.ones(2), bins=2, range=[0, 1])
    with pytest.raises(ValueError, match=r"histogram.*greater than the first"):
        ops.histogram(np.ones(2), bins=2, range=(1, 0))
    with pytest.raises(ValueError, match=r"histogram.*1-dimensional"):
        ops.histogram(np.ones((2, 2)), bins=2)
