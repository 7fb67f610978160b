"""Reductions and linear algebra: values against NumPy (and torch when installed), gradients
against finite differences, stability and error messages."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import eagerkernel as ek
from eagerkernel.testing import check_gradients

try:
    import torch
except ImportError:  # pragma: no cover - torch is optional
    torch = None

rng = np.random.default_rng(0)


def rand(*shape):
    return rng.uniform(-2.0, 2.0, size=shape)


def c64(x):
    return ek.constant(np.asarray(x, dtype=np.float64))


def grad_of(f, x):
    x = c64(x)
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x).numpy()


AXES = [None, 0, 1, -1, [0, 2], (-1, 0), []]

# -- reductions: values -------------------------------------------------------------------------

REDUCTIONS = [
    (ek.reduce_sum, np.sum),
    (ek.reduce_mean, np.mean),
    (ek.reduce_max, np.max),
    (ek.reduce_min, np.min),
    (ek.reduce_prod, np.prod),
    (ek.reduce_std, np.std),
    (ek.reduce_variance, np.var),
]


def _np_axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


@pytest.mark.parametrize(("op", "ref"), REDUCTIONS, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_values(op, ref, axis, keepdims):
    x = rand(2, 3, 4)
    got = op(ek.constant(x), axis=axis, keepdims=keepdims).numpy()
    want = ref(x, axis=_np_axis(axis), keepdims=keepdims)
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "axis, keepdims", [((0, 1, 2), False), ((0, 1, 2), True), (0, False), ((0, 1), True)]
)
def test_large_leading_axes_sum(dtype, axis, keepdims):
    # Large sums over leading axes (a bias gradient) take the BLAS path: same values (to
    # float rounding, against a float64 sum), shapes and keepdims as np.sum.
    x = rng.standard_normal((20, 16, 16, 24)).astype(dtype)
    got = ek.reduce_sum(ek.constant(x), axis=axis, keepdims=keepdims).numpy()
    want = x.astype(np.float64).sum(axis=axis, keepdims=keepdims)
    assert got.dtype == dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-6 if dtype == np.float64 else 2e-3)


def test_logsumexp_values_and_stability():
    x = rand(3, 4)
    want = np.log(np.sum(np.exp(x), axis=1))
    np.testing.assert_allclose(ek.reduce_logsumexp(ek.constant(x), axis=1).numpy(), want)
    big = ek.reduce_logsumexp(ek.constant([1000.0, 1000.0, -1000.0]))
    np.testing.assert_allclose(big.numpy(), 1000 + np.log(2), rtol=1e-6)
    assert ek.reduce_logsumexp(ek.constant([-np.inf, -np.inf])).numpy() == -np.inf
    kept = ek.reduce_logsumexp(ek.constant(x), axis=[0, 1], keepdims=True)
    assert kept.shape == (1, 1)
    np.testing.assert_allclose(
        grad_of(lambda t: ek.reduce_logsumexp(t * 1000), [1.0, 1.0]), [500.0, 500.0]
    )


def test_integer_reductions_keep_dtype():
    x = ek.constant([[1, 2], [3, 4]])
    assert ek.reduce_sum(x).dtype == ek.int32
    assert ek.reduce_sum(x).numpy() == 10
    assert ek.reduce_prod(x, axis=0).numpy().tolist() == [3, 8]
    assert ek.reduce_prod(x).dtype == ek.int32
    assert ek.reduce_max(x).dtype == ek.int32
    assert ek.cumsum(x, axis=1).dtype == ek.int32


def test_empty_reductions_follow_tf():
    e = ek.zeros((0, 3))
    assert ek.reduce_sum(e, axis=0).numpy().tolist() == [0, 0, 0]
    assert ek.reduce_max(e, axis=0).numpy().tolist() == [-np.inf] * 3
    assert ek.reduce_min(e).numpy() == np.inf
    assert ek.reduce_logsumexp(e, axis=0).numpy().tolist() == [-np.inf] * 3


def test_logical_reductions():
    b = ek.constant([[True, False], [True, True]])
    assert ek.reduce_all(b, axis=1).numpy().tolist() == [False, True]
    assert ek.reduce_any(b, axis=0, keepdims=True).numpy().tolist() == [[True, True]]
    assert bool(ek.reduce_all(ek.constant(np.zeros((0,), bool))))
    with pytest.raises(TypeError, match="reduce_all: input_tensor must be bool, got int32"):
        ek.reduce_all(ek.constant([1, 0]))


def test_argmax_argmin():
    x = np.array([[1.0, 5.0, 5.0], [7.0, 2.0, 0.0]])
    t = ek.constant(x)
    a = ek.argmax(t)
    assert a.dtype == ek.int64
    assert a.numpy().tolist() == [1, 0, 0]
    assert ek.argmax(t, axis=1).numpy().tolist() == [1, 0]  # first of the ties
    assert ek.argmin(t, axis=-1, output_type=ek.int32).dtype == ek.int32
    assert ek.argmin(t, axis=-1).numpy().tolist() == [0, 2]
    with pytest.raises(ValueError, match="rank >= 1"):
        ek.argmax(ek.constant(1.0))
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        ek.argmax(t, axis=2)
    with pytest.raises(TypeError, match="output_type"):
        ek.argmax(t, output_type=ek.float32)


def test_count_nonzero():
    x = ek.constant([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]])
    assert ek.count_nonzero(x).numpy() == 3
    assert ek.count_nonzero(x).dtype == ek.int64
    assert ek.count_nonzero(x, axis=1, keepdims=True).numpy().tolist() == [[2], [1]]
    assert ek.count_nonzero(ek.constant([True, False]), dtype=ek.int32).dtype == ek.int32


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cumsum(exclusive, reverse, axis):
    x = rand(3, 4)
    y = np.flip(x, axis) if reverse else x
    want = np.cumsum(y, axis=axis)
    if exclusive:
        want = want - y
    if reverse:
        want = np.flip(want, axis)
    got = ek.cumsum(ek.constant(x), axis=axis, exclusive=exclusive, reverse=reverse).numpy()
    np.testing.assert_allclose(got, want, atol=1e-12)
    check_gradients(
        lambda t: ek.cumsum(t * t, axis=axis, exclusive=exclusive, reverse=reverse), x, order=2
    )


def test_reduction_errors():
    x = ek.constant(rand(2, 3))
    with pytest.raises(ValueError, match=r"reduce_sum: axis 2 is out of range .* rank 2"):
        ek.reduce_sum(x, axis=2)
    with pytest.raises(ValueError, match="reduce_max: axis -3"):
        ek.reduce_max(x, axis=[0, -3])
    with pytest.raises(TypeError, match="reduce_std: input_tensor must be a floating-point"):
        ek.reduce_std(ek.constant([1, 2]))
    with pytest.raises(TypeError, match="reduce_logsumexp"):
        ek.reduce_logsumexp(ek.constant([1, 2]))
    with pytest.raises(ValueError, match="cumsum: input must have rank >= 1"):
        ek.cumsum(ek.constant(1.0))


# -- reductions: gradients ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "op", [ek.reduce_sum, ek.reduce_mean, ek.reduce_logsumexp], ids=lambda f: f.__name__
)
@pytest.mark.parametrize("axis", [None, 1, [0, 2]], ids=str)
def test_smooth_reduction_gradients_second_order(op, axis):
    check_gradients(lambda t: op(t * t, axis=axis), rand(2, 3, 2), order=2)
    check_gradients(lambda t: op(t, axis=axis, keepdims=True) ** 2, rand(2, 3, 2), order=2)


@pytest.mark.parametrize(
    "op",
    [ek.reduce_max, ek.reduce_min, ek.reduce_prod, ek.reduce_std, ek.reduce_variance],
    ids=lambda f: f.__name__,
)
@pytest.mark.parametrize("axis", [None, 0, [1, 2]], ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_gradients(op, axis, keepdims):
    x = rng.permutation(np.linspace(0.5, 2.0, 12)).reshape(2, 3, 2)  # distinct: no ties
    check_gradients(lambda t: op(t, axis=axis, keepdims=keepdims), x)


@pytest.mark.parametrize("op", [ek.reduce_prod, ek.reduce_variance, ek.reduce_std])
def test_reduction_gradients_second_order(op):
    x = np.array([[0.5, 1.5, -2.0], [1.2, -0.7, 0.9]])
    check_gradients(lambda t: op(t, axis=1), x, order=2)


def test_max_min_split_ties_evenly():
    np.testing.assert_allclose(grad_of(ek.reduce_max, [1.0, 3.0, 3.0]), [0, 0.5, 0.5])
    np.testing.assert_allclose(grad_of(ek.reduce_min, [2.0, 2.0, 2.0, 5.0]), [1 / 3] * 3 + [0])
    g = grad_of(lambda t: ek.reduce_max(t, axis=1), [[1.0, 1.0], [0.0, 2.0]])
    np.testing.assert_allclose(g, [[0.5, 0.5], [0.0, 1.0]])


def test_prod_gradient_with_zeros():
    np.testing.assert_allclose(grad_of(ek.reduce_prod, [2.0, 0.0, 3.0]), [0.0, 6.0, 0.0])
    np.testing.assert_allclose(grad_of(ek.reduce_prod, [0.0, 0.0, 3.0]), [0.0, 0.0, 0.0])
    x = np.array([[2.0, 0.0, 3.0], [1.0, 2.0, 4.0], [0.0, 5.0, 0.0]])
    check_gradients(lambda t: ek.reduce_prod(t, axis=1), x)
    check_gradients(lambda t: ek.reduce_prod(t, axis=0, keepdims=True), x)


def test_std_gradient_is_zero_for_constant_input():
    g = grad_of(ek.reduce_std, [1.5, 1.5, 1.5])
    np.testing.assert_array_equal(g, [0.0, 0.0, 0.0])


@settings(max_examples=40, deadline=None)
@given(
    data=st.data(),
    shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3),
    keepdims=st.booleans(),
)
def test_reduction_gradients_broadcast_property(data, shape, keepdims):
    """Random axes; the reduced result is broadcast back against a tensor of the input's shape,
    so the tape has to un-broadcast the product rule's cotangents too."""
    nd = len(shape)
    axis = data.draw(
        st.one_of(
            st.none(),
            st.integers(-nd, nd - 1),
            st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True),
        )
    )
    op = data.draw(
        st.sampled_from([ek.reduce_sum, ek.reduce_mean, ek.reduce_logsumexp, ek.reduce_max])
    )
    # Distinct positive values (no ties, even after squaring), drawn reproducibly.
    r = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    x = r.permutation(np.linspace(0.2, 1.5, int(np.prod(shape)))).reshape(shape)
    w = r.uniform(-2, 2, size=shape)
    reduced = op(ek.constant(x), axis=axis, keepdims=keepdims)
    v = r.uniform(-2, 2, size=reduced.shape)
    check_gradients(lambda t: op(t, axis=axis, keepdims=True) * w + t, x)
    check_gradients(lambda t: op(t * t, axis=axis, keepdims=keepdims) * v, x)
    ref = {ek.reduce_sum: np.sum, ek.reduce_mean: np.mean, ek.reduce_max: np.max}.get(op)
    if ref is not None:
        want = ref(x, axis=_np_axis(axis), keepdims=keepdims)
        np.testing.assert_allclose(reduced.numpy(), want, rtol=1e-12)


# -- matmul, tensordot, einsum ------------------------------------------------------------------


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul_gradients_second_order(ta, tb):
    a = rand(3, 2) if ta else rand(2, 3)
    b = rand(4, 3) if tb else rand(3, 4)
    check_gradients(lambda x, y: ek.matmul(x, y, transpose_a=ta, transpose_b=tb), a, b, order=2)


def test_batched_matmul_broadcast_gradient():
    check_gradients(ek.matmul, rand(2, 2, 3), rand(3, 2))


TENSORDOT = [
    (0, (2, 3), (2,)),
    (1, (2, 3), (3, 4)),
    (2, (2, 3, 4), (3, 4, 2)),
    ([[1], [0]], (2, 3), (3, 2)),
    ([[0, 2], [1, 0]], (2, 3, 4), (4, 2, 5)),
    ([[-1], [-2]], (2, 3), (4, 3, 2)),
    ([1, 1], (2, 3), (4, 3, 2)),
]


@pytest.mark.parametrize(("axes", "sa", "sb"), TENSORDOT, ids=[str(a) for a, _, _ in TENSORDOT])
def test_tensordot(axes, sa, sb):
    a, b = rand(*sa), rand(*sb)
    got = ek.tensordot(ek.constant(a), ek.constant(b), axes).numpy()
    np_axes = axes if isinstance(axes, int) else tuple(axes)
    np.testing.assert_allclose(got, np.tensordot(a, b, np_axes), rtol=1e-12)
    check_gradients(lambda x, y: ek.tensordot(x, y, axes), a, b)


def test_tensordot_second_order_and_errors():
    check_gradients(lambda x, y: ek.tensordot(x, y, 1), rand(2, 3), rand(3, 2), order=2)
    with pytest.raises(ValueError, match=r"tensordot: contracted dimensions differ"):
        ek.tensordot(ek.ones((2, 3)), ek.ones((2, 3)), 1)
    with pytest.raises(ValueError, match="axes=3 must be in"):
        ek.tensordot(ek.ones((2, 3)), ek.ones((3, 2)), 3)
    with pytest.raises(ValueError, match="differ in length"):
        ek.tensordot(ek.ones((2, 3)), ek.ones((3, 2)), [[0, 1], [0]])
    with pytest.raises(TypeError, match="tensordot"):
        ek.tensordot(ek.ones((2, 3)), ek.ones((3, 2), dtype=ek.float64), 1)


EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ("ij->ji", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("ii->", [(3, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->i", [(2, 3)]),
    ("ij,ij->", [(2, 3), (2, 3)]),
    ("i,j->ij", [(2,), (3,)]),
    ("ij,jk", [(2, 3), (3, 2)]),
    ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)]),
    ("iij,k->jk", [(2, 2, 3), (2,)]),
    ("bi,bi->b", [(3, 2), (3, 2)]),
    ("ijk->kji", [(2, 3, 2)]),
    ("ij, jk -> ik", [(2, 3), (3, 2)]),
]


@pytest.mark.parametrize(("eq", "shapes"), EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum(eq, shapes):
    xs = [rand(*s) for s in shapes]
    got = ek.einsum(eq, *[ek.constant(x) for x in xs]).numpy()
    np.testing.assert_allclose(got, np.einsum(eq, *xs), rtol=1e-12, atol=1e-12)
    if torch is not None:
        want = torch.einsum(eq, *[torch.tensor(x) for x in xs]).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    check_gradients(lambda *ts: ek.einsum(eq, *ts), *xs)


@pytest.mark.parametrize("eq", ["ij,jk->ik", "ii->i", "ij,ij->"])
def test_einsum_second_order(eq):
    shapes = dict(EINSUM)[eq]
    check_gradients(lambda *ts: ek.einsum(eq, *ts), *[rand(*s) for s in shapes], order=2)


def test_einsum_large_uses_blas_path_and_matches():
    a, b = rand(40, 50), rand(50, 30)
    np.testing.assert_allclose(
        ek.einsum("ij,jk->ik", ek.constant(a), ek.constant(b)).numpy(), a @ b, rtol=1e-10
    )
    ga = grad_of(lambda t: ek.einsum("ij,jk->ik", t, ek.constant(b)), a)
    np.testing.assert_allclose(ga, np.ones((40, 30)) @ b.T, rtol=1e-10)


def test_einsum_errors():
    a = ek.ones((2, 3))
    with pytest.raises(ValueError, match="index 'j' has sizes 3 and 2"):
        ek.einsum("ij,jk->ik", a, a)
    with pytest.raises(ValueError, match="2 operand"):
        ek.einsum("ij,jk->ik", a)
    with pytest.raises(ValueError, match="ellipsis"):
        ek.einsum("...i...->i", a)
    with pytest.raises(ValueError, match="subscripts 'ijk' name 3 axes"):
        ek.einsum("ijk->i", a)
    with pytest.raises(ValueError, match="appear in no input"):
        ek.einsum("ij->k", a)
    with pytest.raises(TypeError, match="same dtype"):
        ek.einsum("ij,ij->", a, ek.ones((2, 3), dtype=ek.float64))


# -- norms --------------------------------------------------------------------------------------

NORMS = [
    ("euclidean", None, lambda x: np.sqrt(np.sum(x * x))),
    (2, 0, lambda x: np.linalg.norm(x, axis=0)),
    ("euclidean", -1, lambda x: np.linalg.norm(x, axis=-1)),
    (1, 1, lambda x: np.linalg.norm(x, 1, axis=1)),
    (np.inf, 0, lambda x: np.linalg.norm(x, np.inf, axis=0)),
    (3, 1, lambda x: np.linalg.norm(x, 3, axis=1)),
    (0.5, None, lambda x: np.sum(np.abs(x) ** 0.5) ** 2),
    ("fro", (0, 1), lambda x: np.linalg.norm(x, "fro")),
    ("euclidean", [1, 0], lambda x: np.linalg.norm(x, "fro")),
    (1, (0, 1), lambda x: np.linalg.norm(x, 1)),
    (np.inf, (0, 1), lambda x: np.linalg.norm(x, np.inf)),
    (1, (1, 0), lambda x: np.linalg.norm(x.T, 1)),
    (1, None, lambda x: np.sum(np.abs(x))),
]


@pytest.mark.parametrize(("ord_", "axis", "ref"), NORMS, ids=[f"{o}-{a}" for o, a, _ in NORMS])
def test_norm(ord_, axis, ref):
    x = np.array([[0.5, -1.5, 2.0], [1.2, -0.7, 0.3]])
    got = ek.norm(ek.constant(x), ord=ord_, axis=axis)
    np.testing.assert_allclose(got.numpy(), ref(x), rtol=1e-12)
    kept = ek.norm(ek.constant(x), ord=ord_, axis=axis, keepdims=True)
    assert kept.ndim == 2
    check_gradients(lambda t: ek.norm(t, ord=ord_, axis=axis), x)
    if torch is not None and axis is not None and not isinstance(axis, (tuple, list)):
        want = torch.linalg.vector_norm(
            torch.tensor(x), ord=float(ord_) if ord_ != "euclidean" else 2.0, dim=axis
        ).numpy()
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_norm_second_order_and_zero_gradient():
    check_gradients(lambda t: ek.norm(t), rand(2, 3), order=2)
    check_gradients(lambda t: ek.norm(t, axis=1), rand(2, 3), order=2)
    g = grad_of(ek.norm, np.zeros(3))
    assert np.all(np.isfinite(g)) and np.all(g == 0)
    g = grad_of(lambda t: ek.norm(t, axis=1), [[0.0, 0.0], [3.0, 4.0]])
    np.testing.assert_allclose(g, [[0.0, 0.0], [0.6, 0.8]])
    g = grad_of(lambda t: ek.norm(t, ord=3), np.zeros(3))
    assert np.all(g == 0)


def test_norm_errors():
    x = ek.ones((2, 3))
    with pytest.raises(ValueError, match="not a supported vector norm"):
        ek.norm(x, ord="fro", axis=0)
    with pytest.raises(ValueError, match="not a supported vector norm"):
        ek.norm(x, ord=-1)
    with pytest.raises(ValueError, match="not a supported matrix norm"):
        ek.norm(x, ord=3, axis=[0, 1])
    with pytest.raises(ValueError, match="two different axes"):
        ek.norm(x, axis=[1, -1])
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        ek.norm(x, axis=2)
    with pytest.raises(TypeError, match="norm: tensor must be a floating-point"):
        ek.norm(ek.constant([3, 4]))


def test_clip_by_norm():
    t = ek.constant([[3.0, 4.0], [0.3, 0.4]])
    np.testing.assert_allclose(
        ek.clip_by_norm(t, 1.0).numpy(), t.numpy() / np.sqrt(25.25), rtol=1e-6
    )
    np.testing.assert_allclose(
        ek.clip_by_norm(t, 1.0, axes=[1]).numpy(), [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6
    )
    np.testing.assert_allclose(ek.clip_by_norm(t, 100.0).numpy(), t.numpy())
    check_gradients(lambda x: ek.clip_by_norm(x, 1.0, axes=[1]), rand(3, 2))
    check_gradients(lambda x: ek.clip_by_norm(x, 100.0), rand(3, 2))
    g = grad_of(lambda x: ek.clip_by_norm(x, 1.0), np.zeros(3))
    assert np.all(np.isfinite(g))


def test_global_norm_and_clip_by_global_norm():
    a, b = ek.constant([3.0, 0.0]), ek.constant([[4.0]])
    assert float(ek.global_norm([a, None, b])) == 5.0
    clipped, n = ek.clip_by_global_norm([a, None, b], 2.5)
    assert float(n) == 5.0 and clipped[1] is None
    np.testing.assert_allclose(clipped[0].numpy(), [1.5, 0.0])
    np.testing.assert_allclose(clipped[2].numpy(), [[2.0]])
    same, _ = ek.clip_by_global_norm([a, b], 10.0)
    np.testing.assert_allclose(same[0].numpy(), a.numpy())
    zero, n0 = ek.clip_by_global_norm([ek.zeros((2,))], 1.0)
    assert float(n0) == 0.0 and np.all(zero[0].numpy() == 0)
    nan, _ = ek.clip_by_global_norm([ek.constant([np.inf, 1.0])], 1.0)
    assert np.all(np.isnan(nan[0].numpy()))
    used, n2 = ek.clip_by_global_norm([a], 1.0, use_norm=ek.constant(6.0))
    assert float(n2) == 6.0
    np.testing.assert_allclose(used[0].numpy(), [0.5, 0.0])
    check_gradients(lambda x, y: ek.clip_by_global_norm([x, y], 1.0)[0], rand(2), rand(3))
    check_gradients(lambda x, y: ek.global_norm([x, y]), rand(2), rand(3))
    with pytest.raises(TypeError, match="t_list must be a list or tuple"):
        ek.clip_by_global_norm(a, 1.0)


def test_trace_and_matrix_transpose():
    x = rand(2, 3, 3)
    np.testing.assert_allclose(ek.trace(ek.constant(x)).numpy(), np.trace(x, axis1=1, axis2=2))
    assert ek.trace(ek.constant([[1, 2], [3, 4]])).dtype == ek.int32
    check_gradients(ek.trace, rand(2, 3, 4), order=2)
    np.testing.assert_array_equal(
        ek.matrix_transpose(ek.constant(x)).numpy(), np.swapaxes(x, -1, -2)
    )
    check_gradients(lambda t: ek.matrix_transpose(t) * t, rand(2, 3, 3), order=2)
    with pytest.raises(ValueError, match="trace: input must have rank >= 2"):
        ek.trace(ek.ones((3,)))


def test_math_namespace_has_the_new_ops():
    for name in ["reduce_max", "reduce_logsumexp", "argmax", "cumsum", "einsum", "norm"]:
        assert getattr(ek.math, name) is getattr(ek, name)


def test_means_and_moments_over_nothing_follow_tensorflow_without_warnings():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy's "Mean of empty slice" must not leak
        assert ek.reduce_mean(ek.constant([], ek.int64)).numpy() == 0  # TF: 0 for integers
        np.testing.assert_array_equal(
            ek.reduce_mean(ek.zeros([0, 3], ek.int32), axis=0).numpy(), [0, 0, 0]
        )
        assert np.isnan(ek.reduce_mean(ek.constant([], ek.float32)).numpy())
        assert np.isnan(ek.reduce_mean(ek.zeros([0, 3]), axis=0).numpy()).all()
        assert np.isnan(ek.math.reduce_variance(ek.constant([], ek.float32)).numpy())
        assert np.isnan(ek.math.reduce_std(ek.zeros([0, 2]), axis=0).numpy()).all()
        assert ek.reduce_mean(ek.zeros([3, 0]), axis=0).shape == (0,)
    # integer means truncate toward zero and do not overflow the dtype (TF)
    assert ek.reduce_mean(ek.constant([-3, 0])).numpy() == -1
    assert ek.reduce_mean(ek.constant([100, 100], ek.int8)).numpy() == 100


def test_an_empty_list_converts_to_any_dtype():
    for dtype in (ek.int64, ek.uint8, ek.bool, ek.float16, ek.string):
        t = ek.constant([], dtype)
        assert t.dtype == dtype and t.shape == (0,)
    assert ek.constant([[], []], ek.int32).shape == (2, 0)
    with pytest.raises(TypeError, match="lose the fractional part"):
        ek.constant([1.5], ek.int32)
