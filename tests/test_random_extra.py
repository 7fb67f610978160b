"""`ek.random.categorical`, `gamma` and `poisson`: distributions and seeding.

Statistical checks compare sample means and variances with the closed forms using 6-sigma
bounds (sigma the standard error of the estimate), so a correct sampler fails them with
probability below 1e-8 for any seed.
"""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

N = 200_000


def _within(estimate, expected, stderr, sigmas=6.0):
    assert abs(estimate - expected) <= sigmas * stderr, (estimate, expected, stderr)


# -- categorical ---------------------------------------------------------------------------------


def test_categorical_frequencies_match_softmax():
    logits = np.array([[0.0, 1.0, 2.0, -1.0], [3.0, 3.0, 0.0, 0.0]], np.float32)
    out = ek.random.categorical(logits, N, seed=3)
    assert out.dtype == ek.int64 and out.shape == (2, N)
    p = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    for row in range(2):
        freq = np.bincount(out.numpy()[row], minlength=4) / N
        for k in range(4):
            _within(freq[k], p[row, k], np.sqrt(p[row, k] * (1 - p[row, k]) / N))


def test_categorical_minus_inf_is_never_drawn_and_dtype():
    out = ek.random.categorical([[-np.inf, 0.0, -np.inf]], 1000, dtype=ek.int32, seed=1)
    assert out.dtype == ek.int32
    np.testing.assert_array_equal(out.numpy(), np.ones((1, 1000), np.int32))


def test_categorical_seeding():
    logits = np.zeros((3, 10), np.float32)
    ek.random.set_seed(None)
    a = ek.random.categorical(logits, 50, seed=7).numpy()
    b = ek.random.categorical(logits, 50, seed=7).numpy()
    # an op seed: one stream that calls continue (TF's kernel cache), from its start again
    # after set_seed
    assert not np.array_equal(a, b)
    ek.random.set_seed(None)
    np.testing.assert_array_equal(ek.random.categorical(logits, 50, seed=7).numpy(), a)
    ek.random.set_seed(5)
    c = ek.random.categorical(logits, 50).numpy()
    d = ek.random.categorical(logits, 50).numpy()
    ek.random.set_seed(5)
    np.testing.assert_array_equal(ek.random.categorical(logits, 50).numpy(), c)
    np.testing.assert_array_equal(ek.random.categorical(logits, 50).numpy(), d)
    assert not np.array_equal(c, d)
    ek.random.set_seed(None)


def test_categorical_errors():
    with pytest.raises(ek.errors.InvalidArgumentError, match="2-D"):
        ek.random.categorical([0.0, 1.0], 3)
    with pytest.raises(ek.errors.InvalidArgumentError, match="num_samples"):
        ek.random.categorical([[0.0, 1.0]], -1)
    with pytest.raises(TypeError, match="dtype"):
        ek.random.categorical([[0.0, 1.0]], 2, dtype=ek.float32)
    assert ek.random.categorical([[0.0, 1.0]], 0).shape == (1, 0)


# -- gamma ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("alpha", "beta"), [(0.5, 1.0), (2.0, 3.0), (7.5, 0.5)])
def test_gamma_mean_and_variance(alpha, beta):
    x = ek.random.gamma([N], alpha, beta=beta, dtype=ek.float64, seed=11).numpy()
    assert x.shape == (N,) and x.min() >= 0
    mean, var = alpha / beta, alpha / beta**2
    _within(x.mean(), mean, np.sqrt(var / N))
    # Var of the sample variance: (mu4 - var^2) / N, mu4 = 3 a (a + 2) / b^4 for a Gamma.
    mu4 = 3 * alpha * (alpha + 2) / beta**4
    _within(x.var(), var, np.sqrt((mu4 - var**2) / N))


def test_gamma_shape_broadcast_and_default_beta():
    out = ek.random.gamma([N, 1], [1.0, 4.0], beta=[[2.0, 1.0]], seed=2)
    assert out.shape == (N, 1, 1, 2) and out.dtype == ek.float32
    x = out.numpy().reshape(N, 2).astype(np.float64)
    _within(x[:, 0].mean(), 0.5, np.sqrt(0.25 / N))
    _within(x[:, 1].mean(), 4.0, np.sqrt(4.0 / N))
    y = ek.random.gamma([N], 3.0, seed=2).numpy().astype(np.float64)  # beta = 1
    _within(y.mean(), 3.0, np.sqrt(3.0 / N))


def test_gamma_seeding_and_errors():
    # TF 2.21 (no global seed): an op seed's stream continues, so a second call differs;
    # these are TF's numbers for the two calls
    a = ek.random.gamma([3], 2.0, seed=4).numpy()
    np.testing.assert_array_equal(a, np.float32([3.1552007, 0.28295287, 2.9685938]))
    a = ek.random.gamma([3], 2.0, seed=4).numpy()
    np.testing.assert_array_equal(a, np.float32([1.541884, 4.15867, 0.1717258]))
    ek.random.set_seed(9)
    b = ek.random.gamma([20], 2.0).numpy()
    ek.random.set_seed(9)
    np.testing.assert_array_equal(b, ek.random.gamma([20], 2.0).numpy())
    ek.random.set_seed(None)
    with pytest.raises(TypeError, match=r"random\.gamma: dtype"):
        ek.random.gamma([2], 1.0, dtype=ek.int32)
    with pytest.raises(ek.errors.InvalidArgumentError, match="broadcast"):
        ek.random.gamma([2], [1.0, 2.0], beta=[1.0, 2.0, 3.0])
    with pytest.raises(ek.errors.InvalidArgumentError, match="non-negative"):
        ek.random.gamma([-1], 1.0)


# -- poisson -------------------------------------------------------------------------------------


@pytest.mark.parametrize("lam", [0.3, 4.0, 50.0])
def test_poisson_mean_and_variance(lam):
    x = ek.random.poisson([N], lam, dtype=ek.float64, seed=5).numpy()
    assert np.array_equal(x, np.round(x)) and x.min() >= 0
    _within(x.mean(), lam, np.sqrt(lam / N))
    mu4 = lam * (1 + 3 * lam)  # fourth central moment of a Poisson
    _within(x.var(), lam, np.sqrt((mu4 - lam**2) / N))


def test_poisson_shapes_dtypes_seeding():
    out = ek.random.poisson([3, 4], [[0.0, 1.0], [2.0, 3.0]], dtype=ek.int64, seed=1)
    assert out.shape == (3, 4, 2, 2) and out.dtype == ek.int64
    np.testing.assert_array_equal(out.numpy()[..., 0, 0], np.zeros((3, 4)))  # lam = 0
    assert ek.random.poisson([2], 1.0).dtype == ek.float32
    # TF 2.21's numbers: the op seed's stream continues from one call to the next
    np.testing.assert_array_equal(ek.random.poisson([3], 3.0, seed=8).numpy(), [4, 3, 1])
    np.testing.assert_array_equal(ek.random.poisson([3], 3.0, seed=8).numpy(), [4, 2, 2])
    ek.random.set_seed(3)
    a = ek.random.poisson([30], 3.0).numpy()
    ek.random.set_seed(3)
    np.testing.assert_array_equal(a, ek.random.poisson([30], 3.0).numpy())
    ek.random.set_seed(None)


def test_poisson_errors():
    with pytest.raises(TypeError, match=r"random\.poisson: dtype"):
        ek.random.poisson([2], 1.0, dtype=ek.bool)
    np.testing.assert_array_equal(ek.random.poisson([2], -1.0).numpy(), [0, 0])  # as TF's
    with pytest.raises(ek.errors.InvalidArgumentError, match="lam must not be NaN"):
        ek.random.poisson([2], np.nan)
    with pytest.raises(ek.errors.InvalidArgumentError, match="exceeds the range of dtype int32"):
        ek.random.poisson([2], 1e12, dtype=ek.int32)  # TF's kernel would never return


@pytest.mark.parametrize(("alpha", "beta"), [(0.5, 1.0), (2.0, 3.0), (7.5, 0.5)])
def test_gamma_gradients_match_the_moments(alpha, beta):
    """Pathwise gradients (implicit reparameterization, as TF): the mean of d x / d alpha is
    d E[x] / d alpha = 1 / beta, the mean of x * dx/dalpha is d E[x^2] / d alpha / 2 =
    (2 alpha + 1) / (2 beta^2); and d x / d beta = -x / beta exactly."""
    pytest.importorskip("scipy")
    from eagerkernel.runtime.random import gamma_sample_grad

    a = ek.Variable(alpha, dtype=ek.float64)
    b = ek.Variable(beta, dtype=ek.float64)
    with ek.GradientTape(persistent=True) as tape:
        x = ek.random.gamma([N], a, beta=b, dtype=ek.float64, seed=3)
        mean = ek.reduce_mean(x)
        half_square = ek.reduce_mean(x * x) / 2
    xs = x.numpy()
    per_sample = gamma_sample_grad(np.full(N, alpha), xs * beta) / beta  # for the tolerance
    _within(float(tape.gradient(mean, a)), 1 / beta, per_sample.std() / np.sqrt(N))
    second = xs * per_sample
    _within(
        float(tape.gradient(half_square, a)),
        (2 * alpha + 1) / (2 * beta**2),
        second.std() / np.sqrt(N),
    )
    np.testing.assert_allclose(float(tape.gradient(mean, b)), -xs.mean() / beta, rtol=1e-12)


def test_gamma_gradient_and_fresh_draws_in_a_graph_function():
    pytest.importorskip("scipy")
    a = ek.Variable(2.0)

    @ek.function
    def step():
        with ek.GradientTape() as tape:
            total = ek.reduce_mean(ek.random.gamma([N], a, beta=2.0))
        return total, tape.gradient(total, a)

    (m1, g1), (m2, g2) = step(), step()
    assert float(m1) != float(m2)  # a new draw per call
    for m, g in ((m1, g1), (m2, g2)):
        _within(float(m), 1.0, np.sqrt(0.5 / N))  # mean alpha / beta, variance alpha / beta^2
        _within(float(g), 0.5, 0.01)  # d E[x] / d alpha = 1 / beta


def test_categorical_and_poisson_draw_anew_in_a_graph_function():
    @ek.function
    def draw():
        return ek.random.categorical([[0.0] * 50], 20), ek.random.poisson([20], 5.0)

    (c1, p1), (c2, p2) = draw(), draw()
    assert not np.array_equal(c1.numpy(), c2.numpy())
    assert not np.array_equal(p1.numpy(), p2.numpy())
