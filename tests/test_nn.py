"""`ek.nn`: values against closed forms (and torch when installed), gradients against finite
differences, numerical stability and error messages."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerkernel as ek
from eagerkernel.testing import check_gradients

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # pragma: no cover - torch is optional
    torch = None

rng = np.random.default_rng(0)
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def away_from(*kinks, shape=(3, 4), low=-3.0, high=8.0):
    """Random values at least 0.1 from each kink, so finite differences do not straddle one."""
    x = rng.uniform(low, high, size=shape)
    for k in kinks:
        near = np.abs(x - k) < 0.1
        x[near] = k + 0.2
    return x


def grad_of(f, x):
    x = ek.constant(np.asarray(x, dtype=np.float64))
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x).numpy()


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _erf(x):
    return np.vectorize(math.erf)(x)


SELU_A, SELU_S = 1.6732632423543772, 1.0507009873554805

ACTIVATIONS = [
    (ek.nn.relu, lambda x: np.maximum(x, 0), (0,), 1),
    (ek.nn.relu6, lambda x: np.clip(x, 0, 6), (0, 6), 1),
    (ek.nn.leaky_relu, lambda x: np.where(x > 0, x, 0.2 * x), (0,), 1),
    (ek.nn.elu, lambda x: np.where(x > 0, x, np.expm1(x)), (0,), 2),
    (ek.nn.selu, lambda x: SELU_S * np.where(x > 0, x, SELU_A * np.expm1(x)), (0,), 2),
    (ek.nn.softplus, lambda x: np.log1p(np.exp(x)), (), 2),
    (ek.nn.softsign, lambda x: x / (1 + np.abs(x)), (0,), 2),
    (ek.nn.sigmoid, _sigmoid, (), 2),
    (ek.nn.tanh, np.tanh, (), 2),
    (ek.nn.log_sigmoid, lambda x: np.log(_sigmoid(x)), (), 2),
    (ek.nn.silu, lambda x: x * _sigmoid(x), (), 2),
    (ek.nn.swish, lambda x: x * _sigmoid(x), (), 1),
    (ek.nn.gelu, lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2))), (), 2),
    (
        lambda t: ek.nn.gelu(t, approximate=True),
        lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3))),
        (),
        2,
    ),
]


@pytest.mark.parametrize(("op", "ref", "kinks", "order"), ACTIVATIONS, ids=range(len(ACTIVATIONS)))
def test_activation_values_and_gradients(op, ref, kinks, order):
    x = away_from(*kinks)
    np.testing.assert_allclose(op(ek.constant(x)).numpy(), ref(x), rtol=1e-12, atol=1e-12)
    check_gradients(op, x, order=order)
    assert op(ek.constant(x.astype(np.float32))).dtype == ek.float32


@needs_torch
def test_activations_match_torch():
    x = rng.uniform(-4, 4, size=(5, 6))
    tx = torch.tensor(x)
    pairs = [
        (ek.nn.relu, F.relu),
        (ek.nn.relu6, F.relu6),
        (ek.nn.elu, F.elu),
        (ek.nn.selu, F.selu),
        (ek.nn.softplus, F.softplus),
        (ek.nn.softsign, F.softsign),
        (ek.nn.log_sigmoid, F.logsigmoid),
        (ek.nn.silu, F.silu),
        (ek.nn.gelu, F.gelu),
        (lambda t: ek.nn.gelu(t, approximate=True), lambda t: F.gelu(t, approximate="tanh")),
        (lambda t: ek.nn.leaky_relu(t, 0.1), lambda t: F.leaky_relu(t, 0.1)),
    ]
    for ours, theirs in pairs:
        np.testing.assert_allclose(ours(ek.constant(x)).numpy(), theirs(tx).numpy(), rtol=1e-10)


def test_relu_second_derivatives_flow_through_relu_grad():
    # y = relu(x * w): dy/dx = w * [x w > 0], so d(dy/dx)/dw = [x w > 0] (ReluGrad is linear in
    # its cotangent, constant in x), and d(dy/dx)/dx = 0.
    x = ek.constant([-1.5, 0.0, 0.5, 2.0])
    w = ek.constant([2.0, 3.0, -1.0, 0.5])
    with ek.GradientTape(persistent=True) as outer:
        outer.watch([x, w])
        with ek.GradientTape() as inner:
            inner.watch(x)
            y = ek.reduce_sum(ek.nn.relu(x * w))
        dx = inner.gradient(y, x)
        s = ek.reduce_sum(dx)
    np.testing.assert_array_equal(dx.numpy(), [0.0, 0.0, 0.0, 0.5])
    np.testing.assert_array_equal(outer.gradient(s, w).numpy(), [0.0, 0.0, 0.0, 1.0])
    assert outer.gradient(s, x) is None or not outer.gradient(s, x).numpy().any()


def test_relu_family_gradients_at_kinks_follow_tf():
    np.testing.assert_array_equal(grad_of(ek.nn.relu, [-1.0, 0.0, 2.0]), [0, 0, 1])
    np.testing.assert_array_equal(grad_of(ek.nn.relu6, [0.0, 3.0, 6.0, 7.0]), [0, 1, 0, 0])
    np.testing.assert_allclose(grad_of(ek.nn.leaky_relu, [-1.0, 0.0, 2.0]), [0.2, 0.2, 1])


def test_stability_at_large_inputs():
    big = ek.constant([1000.0, -1000.0])
    np.testing.assert_array_equal(ek.nn.softplus(big).numpy(), [1000.0, 0.0])
    np.testing.assert_array_equal(ek.nn.log_sigmoid(big).numpy(), [0.0, -1000.0])
    np.testing.assert_array_equal(grad_of(ek.nn.softplus, [1000.0, -1000.0]), [1.0, 0.0])
    assert np.all(np.isfinite(ek.nn.elu(big).numpy()))
    assert np.all(np.isfinite(grad_of(ek.nn.silu, [1000.0, -1000.0])))


def test_activation_dtypes():
    ints = ek.constant([-2, 3])
    assert ek.nn.relu(ints).numpy().tolist() == [0, 3]
    assert ek.nn.relu(ints).dtype == ek.int32
    assert ek.nn.leaky_relu(ints).dtype == ek.float32
    for op in (ek.nn.elu, ek.nn.softplus, ek.nn.softmax, ek.nn.gelu, ek.nn.silu, ek.nn.l2_loss):
        with pytest.raises(TypeError, match="floating-point"):
            op(ints)


# -- softmax ------------------------------------------------------------------------------------


def _np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax_and_log_softmax(axis):
    x = rng.normal(size=(3, 4))
    s = ek.nn.softmax(ek.constant(x), axis=axis).numpy()
    np.testing.assert_allclose(s, _np_softmax(x, axis), rtol=1e-12)
    ls = ek.nn.log_softmax(ek.constant(x), axis=axis).numpy()
    np.testing.assert_allclose(ls, np.log(_np_softmax(x, axis)), rtol=1e-12)
    check_gradients(lambda t: ek.nn.softmax(t, axis=axis), x, order=2)
    check_gradients(lambda t: ek.nn.log_softmax(t, axis=axis), x, order=2)


def test_softmax_stability_and_aliases():
    x = ek.constant([[1000.0, 1000.0, -1000.0]])
    np.testing.assert_allclose(ek.nn.softmax(x).numpy(), [[0.5, 0.5, 0.0]])
    ls = ek.nn.log_softmax(x).numpy()
    assert np.all(np.isfinite(ls)) and ls[0, 2] == -2000.0 - np.log(2).astype(np.float32)
    np.testing.assert_allclose(ek.nn.softmax(x, dim=0).numpy(), [[1.0, 1.0, 1.0]])
    with pytest.raises(ValueError, match="softmax: input must have rank >= 1"):
        ek.nn.softmax(ek.constant(1.0))
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        ek.nn.softmax(x, axis=2)


# -- cross-entropies ----------------------------------------------------------------------------


def _labels(*shape):
    p = rng.uniform(0.1, 1.0, size=shape)
    return p / p.sum(axis=-1, keepdims=True)


def test_softmax_cross_entropy_values_and_gradients():
    y, z = _labels(3, 4), rng.normal(size=(3, 4))
    got = ek.nn.softmax_cross_entropy_with_logits(labels=y, logits=z).numpy()
    want = -np.sum(y * np.log(_np_softmax(z)), axis=-1)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    g = grad_of(lambda t: ek.nn.softmax_cross_entropy_with_logits(labels=y, logits=t), z)
    np.testing.assert_allclose(g, _np_softmax(z) - y, atol=1e-12)  # TF's gradient
    f = ek.nn.softmax_cross_entropy_with_logits
    check_gradients(lambda a, b: f(labels=a, logits=b), y, z)
    unnormalized = rng.uniform(0, 2, size=(3, 4))
    check_gradients(lambda a, b: f(labels=a, logits=b), unnormalized, z, order=2)
    check_gradients(lambda a, b: f(labels=a, logits=b, axis=0), y.T, z.T)
    assert ek.nn.softmax_cross_entropy_with_logits_v2 is f


def test_softmax_cross_entropy_stability_broadcast_and_errors():
    f = ek.nn.softmax_cross_entropy_with_logits
    z = ek.constant([[1000.0, 0.0, -1000.0]])
    y = ek.constant([[0.0, 1.0, 0.0]])
    loss = f(labels=y, logits=z)
    np.testing.assert_allclose(loss.numpy(), [1000.0])
    with ek.GradientTape() as tape:
        tape.watch(z)
        loss = f(labels=y, logits=z)
    g = tape.gradient(loss, z).numpy()
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, [[1.0, -1.0, 0.0]], atol=1e-6)
    # labels broadcast against logits; gradient reduced back to the labels' shape
    row = np.array([[0.25, 0.75]])
    check_gradients(lambda a, b: f(labels=a, logits=b), row, rng.normal(size=(3, 2)))
    with pytest.raises(ValueError, match=r"labels of shape \(3,\) do not match .* \(2, 4\)"):
        f(labels=ek.ones((3,)), logits=ek.ones((2, 4)))
    with pytest.raises(TypeError, match="labels: float64, logits: float32"):
        f(labels=np.ones((2, 4)), logits=ek.ones((2, 4)))
    with pytest.raises(ValueError, match="both labels and logits"):
        f(labels=[1.0])


@needs_torch
def test_cross_entropies_match_torch():
    z = rng.normal(size=(5, 7)) * 5
    y = _labels(5, 7)
    ours = ek.nn.softmax_cross_entropy_with_logits(labels=y, logits=z).numpy()
    theirs = F.cross_entropy(torch.tensor(z), torch.tensor(y), reduction="none").numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    idx = rng.integers(0, 7, size=5)
    ours = ek.nn.sparse_softmax_cross_entropy_with_logits(labels=idx, logits=z).numpy()
    theirs = F.cross_entropy(torch.tensor(z), torch.tensor(idx), reduction="none").numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    b = rng.uniform(0, 1, size=(5, 7))
    ours = ek.nn.sigmoid_cross_entropy_with_logits(labels=b, logits=z).numpy()
    theirs = F.binary_cross_entropy_with_logits(
        torch.tensor(z), torch.tensor(b), reduction="none"
    ).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-10)


def test_sparse_softmax_cross_entropy():
    f = ek.nn.sparse_softmax_cross_entropy_with_logits
    z = rng.normal(size=(2, 3, 4))
    idx = np.array([[0, 3, 1], [2, 2, 0]])
    got = f(labels=idx, logits=z).numpy()
    logp = np.log(_np_softmax(z))
    want = -np.take_along_axis(logp, idx[..., None], -1)[..., 0]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    g = grad_of(lambda t: f(labels=idx, logits=t), z)
    np.testing.assert_allclose(g, _np_softmax(z) - np.eye(4)[idx], atol=1e-12)
    check_gradients(lambda t: f(labels=idx, logits=t), z, order=2)
    big = f(labels=[1], logits=ek.constant([[1000.0, -1000.0]]))
    assert np.isfinite(big.numpy()).all()
    np.testing.assert_allclose(big.numpy(), [2000.0])
    assert f(labels=ek.constant(2, dtype=ek.int64), logits=[1.0, 2.0, 3.0]).shape == ()


def test_sparse_softmax_cross_entropy_backprop_paths_agree():
    # The VJP uses the forward's softmax - one_hot when nothing records it (gradient() after
    # the tape closed) and the differentiable formula when something does (a gradient taken
    # inside the tape, or an outer tape asking for second derivatives): same numbers, and the
    # second derivative is the softmax Jacobian diag(p) - p p^T, not zero.
    f = ek.nn.sparse_softmax_cross_entropy_with_logits
    z = ek.constant(rng.normal(size=(3, 5)))
    idx = np.array([4, 0, 2])
    w = rng.normal(size=3)
    want = w[:, None] * (_np_softmax(z.numpy()) - np.eye(5)[idx])
    with ek.GradientTape() as tape:
        tape.watch(z)
        loss = ek.reduce_sum(f(labels=idx, logits=z) * w)
    np.testing.assert_allclose(tape.gradient(loss, z).numpy(), want, atol=1e-12)
    with ek.GradientTape(persistent=True) as tape:
        tape.watch(z)
        loss = ek.reduce_sum(f(labels=idx, logits=z) * w)
        inside = tape.gradient(loss, z)
    np.testing.assert_allclose(inside.numpy(), want, atol=1e-12)
    v = rng.normal(size=(3, 5))
    with ek.GradientTape() as outer:
        outer.watch(z)
        with ek.GradientTape() as inner:
            inner.watch(z)
            loss = ek.reduce_sum(f(labels=idx, logits=z))
        hv = ek.reduce_sum(inner.gradient(loss, z) * v)
    p = _np_softmax(z.numpy())
    hessian_v = p * v - p * (p * v).sum(-1, keepdims=True)
    np.testing.assert_allclose(outer.gradient(hv, z).numpy(), hessian_v, atol=1e-12)


def test_sparse_softmax_cross_entropy_errors():
    f = ek.nn.sparse_softmax_cross_entropy_with_logits
    logits = ek.ones((2, 3))
    with pytest.raises(ValueError, match=r"rank of labels \(received 2, shape \(2, 3\)\)"):
        f(labels=ek.zeros((2, 3), dtype=ek.int32), logits=logits)
    with pytest.raises(ValueError, match=r"labels of shape \(4,\) do not match"):
        f(labels=[0, 1, 2, 0], logits=logits)
    with pytest.raises(ValueError, match=r"label value of 3 .* \[0, 3\)"):
        f(labels=[0, 3], logits=logits)
    with pytest.raises(ValueError, match=r"label value of -1"):
        f(labels=[-1, 0], logits=logits)
    with pytest.raises(TypeError, match="labels must be int32 or int64, got float32"):
        f(labels=[0.0, 1.0], logits=logits)
    with pytest.raises(TypeError, match="logits must be a floating-point"):
        f(labels=[0, 1], logits=[[1, 2], [3, 4]])


def test_sigmoid_cross_entropy():
    f = ek.nn.sigmoid_cross_entropy_with_logits
    y, z = rng.uniform(0, 1, size=(3, 4)), rng.normal(size=(3, 4)) * 3
    want = -(y * np.log(_sigmoid(z)) + (1 - y) * np.log(1 - _sigmoid(z)))
    np.testing.assert_allclose(f(labels=y, logits=z).numpy(), want, rtol=1e-10)
    check_gradients(lambda a, b: f(labels=a, logits=b), y, z, order=2)
    big = f(labels=[0.0, 1.0, 1.0], logits=[1000.0, 1000.0, -1000.0]).numpy()
    np.testing.assert_array_equal(big, [1000.0, 0.0, 1000.0])
    g = grad_of(lambda t: f(labels=[0.0, 1.0], logits=t), [1000.0, -1000.0])
    np.testing.assert_array_equal(g, [1.0, -1.0])
    with pytest.raises(ValueError, match=r"same shape, got labels: \(2,\) and logits: \(3,\)"):
        f(labels=[0.0, 1.0], logits=[0.0, 1.0, 2.0])


# -- dropout ------------------------------------------------------------------------------------


def test_dropout_scaling_mask_and_gradient():
    x = ek.ones((200, 50), dtype=ek.float64)
    y = ek.nn.dropout(x, rate=0.25, seed=3).numpy()
    assert set(np.unique(y).tolist()) <= {0.0, 1 / 0.75}
    assert abs((y == 0).mean() - 0.25) < 0.02
    # as TF's eager kernel cache, a repeated op seed continues its stream; set_seed restarts it
    assert not np.array_equal(ek.nn.dropout(x, 0.25, seed=3).numpy(), y)
    with ek.GradientTape() as tape:
        tape.watch(x)
        out = ek.nn.dropout(x, 0.5, seed=7)
    np.testing.assert_array_equal(tape.gradient(out, x).numpy(), out.numpy())
    assert ek.nn.dropout(x, 0.0) is x
    assert ek.nn.dropout(ek.ones((4,)), 0.5).dtype == ek.float32


def test_dropout_global_seed_noise_shape_and_errors():
    ek.random.set_seed(11)
    a = ek.nn.dropout(ek.ones((10, 10)), 0.5).numpy()
    ek.random.set_seed(11)
    b = ek.nn.dropout(ek.ones((10, 10)), 0.5).numpy()
    np.testing.assert_array_equal(a, b)
    ek.random.set_seed(None)
    y = ek.nn.dropout(ek.ones((6, 8)), 0.5, noise_shape=[6, 1], seed=1).numpy()
    assert all(len(set(row.tolist())) == 1 for row in y)  # whole rows dropped or kept
    y = ek.nn.dropout(ek.ones((6, 8)), 0.5, noise_shape=[None, 1], seed=1).numpy()
    assert y.shape == (6, 8)
    kept = ek.nn.dropout(ek.ones((4,)), keep_prob=0.8, seed=0).numpy()
    assert set(np.unique(kept).tolist()) <= {0.0, np.float32(1 / 0.8)}
    with pytest.raises(ValueError, match=r"rate must be a scalar in \[0, 1\), got 1"):
        ek.nn.dropout(ek.ones((2,)), 1)
    with pytest.raises(ValueError, match=r"got -0\.1"):
        ek.nn.dropout(ek.ones((2,)), -0.1)
    with pytest.raises(ValueError, match=r"noise_shape \(3,\) does not broadcast"):
        ek.nn.dropout(ek.ones((2, 2)), 0.5, noise_shape=[3])
    with pytest.raises(ValueError, match="dropout: x must be a floating-point"):
        ek.nn.dropout(ek.constant([1, 2]), 0.5)


# -- losses, bias, moments, normalization -------------------------------------------------------


def test_l2_loss():
    x = rng.normal(size=(3, 4))
    np.testing.assert_allclose(ek.nn.l2_loss(ek.constant(x)).numpy(), np.sum(x * x) / 2)
    check_gradients(ek.nn.l2_loss, x, order=2)


@pytest.mark.parametrize(
    ("data_format", "shape", "bias_shape"),
    [
        (None, (2, 3, 4), (1, 1, 4)),
        ("NHWC", (2, 2, 2, 3), (1, 1, 1, 3)),
        ("NCHW", (2, 3, 2, 2), (1, 3, 1, 1)),
        ("NCW", (2, 3, 4), (1, 3, 1)),
        ("NC", (2, 3), (1, 3)),
    ],
)
def test_bias_add(data_format, shape, bias_shape):
    x, b = rng.normal(size=shape), rng.normal(size=max(bias_shape))
    got = ek.nn.bias_add(ek.constant(x), ek.constant(b), data_format=data_format).numpy()
    np.testing.assert_allclose(got, x + b.reshape(bias_shape))
    # order 2: the bias's cotangent is TF's BiasAddGrad op, whose own VJP broadcasts back
    check_gradients(lambda t, u: ek.nn.bias_add(t, u, data_format=data_format) ** 2, x, b, order=2)
    with ek.GradientTape() as outer:
        u = ek.constant(b)
        outer.watch(u)
        with ek.GradientTape() as inner:
            inner.watch(u)
            y = ek.reduce_sum(ek.nn.bias_add(ek.constant(x), u, data_format=data_format) ** 2)
        (gb,) = inner.gradient(y, [u])
    assert "BiasAddGrad" in [r.prim.name for r in outer.records]
    np.testing.assert_allclose(
        gb.numpy(),
        (2 * (x + b.reshape(bias_shape))).sum(
            axis=tuple(i for i, n in enumerate(bias_shape) if n == 1)
        ),
        rtol=1e-6,
    )


def test_bias_add_errors():
    with pytest.raises(ValueError, match=r"bias of shape \(3,\) must match the channel axis 1"):
        ek.nn.bias_add(ek.ones((2, 4, 5)), ek.ones((3,)), data_format="NCW")
    with pytest.raises(ValueError, match=r"bias rank 1, got value: \(2, 3\), bias: \(1, 3\)"):
        ek.nn.bias_add(ek.ones((2, 3)), ek.ones((1, 3)))
    with pytest.raises(ValueError, match="data_format"):
        ek.nn.bias_add(ek.ones((2, 3)), ek.ones((3,)), data_format="HWCN")
    with pytest.raises(TypeError, match="value: float32, bias: float64"):
        ek.nn.bias_add(ek.ones((2, 3)), np.ones(3))


def test_moments():
    x = rng.normal(size=(4, 3, 2))
    mean, var = ek.nn.moments(ek.constant(x), axes=[0, 1])
    np.testing.assert_allclose(mean.numpy(), x.mean(axis=(0, 1)))
    np.testing.assert_allclose(var.numpy(), x.var(axis=(0, 1)))
    m, v = ek.nn.moments(ek.constant(x), axes=[0], keepdims=True)
    assert m.shape == (1, 3, 2) and v.shape == (1, 3, 2)
    check_gradients(lambda t: ek.nn.moments(t, axes=[0, 2]), x[:2], order=2)
    m16, v16 = ek.nn.moments(ek.constant(x.astype(np.float16)), axes=[0])
    assert m16.dtype == ek.float16 and v16.dtype == ek.float16


def test_l2_normalize():
    x = rng.normal(size=(3, 4))
    got = ek.nn.l2_normalize(ek.constant(x), axis=1).numpy()
    np.testing.assert_allclose(got, x / np.linalg.norm(x, axis=1, keepdims=True))
    np.testing.assert_allclose(ek.nn.l2_normalize(ek.constant(x)).numpy(), x / np.linalg.norm(x))
    check_gradients(lambda t: ek.nn.l2_normalize(t, axis=1), x)
    zero = grad_of(lambda t: ek.nn.l2_normalize(t, axis=0), np.zeros(3))
    assert np.all(np.isfinite(zero))


def test_embedding_lookup():
    if not hasattr(ek, "gather"):
        pytest.skip("ek.gather is not there yet")
    params = rng.normal(size=(5, 3))
    ids = np.array([[4, 0], [0, 2]])
    got = ek.nn.embedding_lookup(ek.constant(params), ids)
    np.testing.assert_allclose(got.numpy(), params[ids])
    check_gradients(lambda p: ek.nn.embedding_lookup(p, ids), params)
    clipped = ek.nn.embedding_lookup(ek.constant(params * 10), ids, max_norm=1.0).numpy()
    np.testing.assert_allclose(np.linalg.norm(clipped, axis=-1), 1.0)


@settings(max_examples=20, deadline=None)
@given(
    n=st.integers(1, 4),
    c=st.integers(1, 5),
    scale=st.sampled_from([1.0, 30.0, 300.0]),
)
def test_cross_entropy_property(n, c, scale):
    """Sparse and dense softmax cross-entropies agree, are >= 0 and finite at any scale."""
    z = rng.normal(size=(n, c)) * scale
    idx = rng.integers(0, c, size=n)
    sparse = ek.nn.sparse_softmax_cross_entropy_with_logits(labels=idx, logits=z).numpy()
    dense = ek.nn.softmax_cross_entropy_with_logits(labels=np.eye(c)[idx], logits=z).numpy()
    np.testing.assert_allclose(sparse, dense, rtol=1e-12, atol=1e-12)
    assert np.all(np.isfinite(sparse)) and np.all(sparse >= -1e-12)


def test_activation_gradients_at_their_kinks_are_tensorflows():
    # TensorFlow 2.21's gradients at x = -1, 0, 6, 1 (its kernels pick a side at each kink:
    # SeluGrad and EluGrad take the positive slope at 0, relu and relu6 take 0).
    x = ek.constant([-1.0, 0.0, 6.0, 1.0])
    want = {
        ek.nn.relu: [0.0, 0.0, 1.0, 1.0],
        ek.nn.relu6: [0.0, 0.0, 0.0, 1.0],
        ek.nn.elu: [np.exp(-1.0), 1.0, 1.0, 1.0],
        ek.nn.selu: [SELU_S * SELU_A * np.exp(-1.0), SELU_S, SELU_S, SELU_S],
        ek.nn.leaky_relu: [0.2, 0.2, 1.0, 1.0],
        ek.abs: [-1.0, 0.0, 1.0, 1.0],
    }
    for f, grad in want.items():
        with ek.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), grad, rtol=1e-6, err_msg=f)


def test_stateless_dropout_gives_tensorflows_mask_for_a_seed():
    # TensorFlow 2.21's tf.nn.experimental.stateless_dropout for these seeds.
    drop = ek.nn.experimental.stateless_dropout
    np.testing.assert_array_equal(
        drop(ek.ones([6]), 0.5, seed=[1, 2]).numpy(), [2.0, 0.0, 2.0, 0.0, 0.0, 2.0]
    )
    out = drop(ek.ones([2, 3], ek.float64), 0.3, seed=[3, 4], noise_shape=[1, 3])
    np.testing.assert_allclose(out.numpy(), [[1 / 0.7, 1 / 0.7, 0.0]] * 2)
    assert out.dtype == ek.float64
    x = ek.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.reduce_sum(drop(x, 0.5, seed=[1, 2]))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 0.0, 2.0, 0.0, 0.0, 2.0])
    assert drop(x, 0.0, seed=[1, 2]) is x
    with pytest.raises(ValueError, match=r"rate must be a scalar in \[0, 1\), got 1.5"):
        drop(x, 1.5, seed=[1, 2])
    with pytest.raises(ValueError, match=r"x must be a floating-point tensor.*int32"):
        drop(ek.constant([1, 2]), 0.5, seed=[1, 2])
