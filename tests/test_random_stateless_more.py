"""`ek.random.stateless_gamma`, `stateless_poisson` and `stateless_parameterized_truncated_normal`
(TensorFlow 2.21's semantics: shapes, dtypes, errors, gradients; not its numbers).

The statistical checks use fixed seeds, so they are deterministic; their bounds (6 standard
errors, KS and chi-square p-values above 1e-4) would hold for a correct sampler and almost any
seed. The errors and dtypes were checked against TensorFlow 2.21 (tensorflow-cpu).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import eagerkernel as ek

N = 40_000
gamma = ek.random.stateless_gamma
poisson = ek.random.stateless_poisson
truncated = ek.random.stateless_parameterized_truncated_normal


def _within(estimate, expected, stderr, sigmas=6.0):
    assert abs(estimate - expected) <= sigmas * stderr, (estimate, expected, stderr)


def test_the_ops_are_ek_random_names():
    for name in (
        "stateless_gamma",
        "stateless_poisson",
        "stateless_parameterized_truncated_normal",
    ):
        assert name in ek.random.__all__
        assert callable(getattr(ek.random, name))


# -- gamma ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha, beta", [(0.3, 1.0), (1.0, 2.0), (4.5, 0.5)])
def test_gamma_matches_the_distribution(alpha, beta):
    stats = pytest.importorskip("scipy.stats")
    x = gamma([N], seed=[3, 4], alpha=alpha, beta=beta, dtype=ek.float64).numpy()
    _within(x.mean(), alpha / beta, np.sqrt(alpha) / beta / np.sqrt(N))
    # var of x^2 from the 4th moment: alpha(alpha+1)(alpha+2)(alpha+3)/beta^4 - (alpha/beta^2+m^2)^2
    m2 = alpha * (alpha + 1) / beta**2
    m4 = alpha * (alpha + 1) * (alpha + 2) * (alpha + 3) / beta**4
    _within((x * x).mean(), m2, np.sqrt((m4 - m2**2) / N))
    assert stats.kstest(x, stats.gamma(alpha, scale=1 / beta).cdf).pvalue > 1e-4


def test_gamma_shape_ends_with_the_broadcast_parameters():
    alpha = ek.constant([[1.0], [3.0], [5.0]])
    beta = ek.constant([[3.0, 4.0]])
    x = gamma([20_000, 3, 2], seed=[12, 34], alpha=alpha, beta=beta)
    assert x.shape == (20_000, 3, 2) and x.dtype == ek.float32
    mean = x.numpy().mean(0)
    np.testing.assert_allclose(mean, alpha.numpy() / beta.numpy(), rtol=0.03)
    # as TF's kernel, output i (parameter-major) reads the stream at counter + 256 * i, so the
    # samples depend on the parameters' shape: [7, 2] with alpha [2, 2] is not with alpha 2
    a = gamma([7, 2], [1, 2], [2.0, 2.0]).numpy()
    assert not np.array_equal(a, gamma([7, 2], [1, 2], 2.0).numpy())
    assert gamma([], [1, 2], 2.0).shape == ()
    assert gamma([0, 2], [1, 2], [1.0, 2.0]).shape == (0, 2)
    for shape in (ek.TensorShape([3, 2]), ek.constant([3, 2], ek.int64), (3, 2)):
        np.testing.assert_array_equal(
            gamma(shape, [1, 2], [1.0, 2.0]).numpy(), gamma([3, 2], [1, 2], [1.0, 2.0]).numpy()
        )


def test_gamma_is_deterministic_per_seed():
    a = gamma([50], seed=[1, 2], alpha=1.5).numpy()
    np.testing.assert_array_equal(a, gamma([50], seed=[1, 2], alpha=1.5).numpy())
    # the seed's dtype does not change the numbers (as TensorFlow's key derivation)
    np.testing.assert_array_equal(a, gamma([50], ek.constant([1, 2], ek.int64), 1.5).numpy())
    assert not np.array_equal(a, gamma([50], seed=[1, 3], alpha=1.5).numpy())
    assert not np.array_equal(a, gamma([50], seed=[2, 2], alpha=1.5).numpy())


@pytest.mark.parametrize("dtype", [ek.float16, ek.float32, ek.float64])
def test_gamma_dtypes(dtype):
    x = gamma([1000], [5, 6], alpha=2.0, beta=ek.constant(4.0, dtype), dtype=dtype)
    assert x.dtype == dtype
    assert np.all(x.numpy() > 0)
    _within(float(x.numpy().astype(np.float64).mean()), 0.5, np.sqrt(2.0) / 4 / np.sqrt(1000))


def test_gamma_edge_values_as_tensorflow():
    tiny = np.finfo(np.float32).tiny
    x = gamma([4], [1, 2], [-1.0, 0.0, np.nan, np.inf]).numpy()
    assert np.isnan(x[0]) and x[1] == tiny and np.isnan(x[2]) and x[3] == np.inf
    with np.errstate(divide="ignore"):
        y = gamma([3], [1, 2], 1.0, [-1.0, 0.0, np.nan]).numpy()
    assert y[0] == tiny and y[1] == np.inf and np.isnan(y[2])
    assert np.all(gamma([100], [1, 2], 1e-3).numpy() >= tiny)  # underflows become tiny


def test_gamma_alpha_gradient_is_the_implicit_reparameterization():
    """E[dx/dalpha] = d E[x] / d alpha = 1 / beta; E[x dx/dalpha] = d E[x^2] / d alpha / 2 =
    (2 alpha + 1) / (2 beta^2); dx/dbeta = -x / beta exactly. The gradient sums the sample
    dimensions, as TensorFlow's."""
    pytest.importorskip("scipy")
    from eagerkernel.runtime.random import gamma_sample_grad

    alpha = ek.Variable([0.7, 3.0], dtype=ek.float64)
    beta = ek.Variable([2.0, 0.5], dtype=ek.float64)
    with ek.GradientTape(persistent=True) as tape:
        x = gamma([N, 2], [7, 8], alpha, beta, dtype=ek.float64)
        total = ek.reduce_sum(x, axis=0)
        half_square = ek.reduce_sum(x * x, axis=0) / 2
    xs, a, b = x.numpy(), alpha.numpy(), beta.numpy()
    per_sample = gamma_sample_grad(np.broadcast_to(a, xs.shape), xs * b) / b
    d_total = tape.gradient(total, alpha).numpy()
    d_square = tape.gradient(half_square, alpha).numpy()
    assert d_total.shape == (2,)
    np.testing.assert_allclose(d_total, per_sample.sum(0), rtol=1e-10)
    for i in range(2):
        _within(d_total[i] / N, 1 / b[i], per_sample[:, i].std() / np.sqrt(N))
        second = xs[:, i] * per_sample[:, i]
        _within(d_square[i] / N, (2 * a[i] + 1) / (2 * b[i] ** 2), second.std() / np.sqrt(N))
    np.testing.assert_allclose(tape.gradient(total, beta).numpy(), -(xs / b).sum(0), rtol=1e-10)


def test_gamma_alpha_gradient_by_finite_differences_of_the_cdf():
    """The implicit derivative keeps the CDF at the sample fixed: P(alpha + h, x + h dx) =
    P(alpha, x) to first order, P the regularized incomplete gamma function."""
    special = pytest.importorskip("scipy.special")
    alpha = ek.constant([0.5, 2.0, 9.0], ek.float64)
    with ek.GradientTape() as tape:
        tape.watch(alpha)
        x = gamma([3], [4, 4], alpha, dtype=ek.float64)
    dx = tape.gradient(x, alpha).numpy()
    a, xs, h = alpha.numpy(), x.numpy(), 1e-6
    np.testing.assert_allclose(
        special.gammainc(a + h, xs + h * dx), special.gammainc(a, xs), rtol=0, atol=1e-10
    )


def test_gamma_float16_gradient():
    pytest.importorskip("scipy")
    alpha = ek.constant([1.0, 3.0], ek.float16)
    with ek.GradientTape() as tape:  # TensorFlow has no float16 RandomGammaGrad kernel
        tape.watch(alpha)
        x = gamma([5, 2], [1, 2], alpha, dtype=ek.float16)
    grad = tape.gradient(x, alpha)
    assert grad.dtype == ek.float16 and grad.shape == (2,) and np.all(grad.numpy() > 0)


def test_gamma_errors():
    with pytest.raises(
        ek.errors.UnsupportedDTypeError, match=r"stateless_random_gamma: .* attr 'dtype'"
    ):
        gamma([3], [1, 2], 1, dtype=ek.int32)
    with pytest.raises(ek.errors.InvalidArgumentError, match="'dtype' of complex64"):
        gamma([3], [1, 2], 1.0, dtype=ek.complex64)
    with pytest.raises(ValueError, match="alpha: Tensor conversion requested dtype float32"):
        gamma([3], [1, 2], ek.constant(1.0, ek.float64))
    with pytest.raises(ValueError, match="beta: Tensor conversion requested dtype float32"):
        gamma([3], [1, 2], 1.0, ek.constant(2.0, ek.float64))
    with pytest.raises(TypeError, match="stateless_random_gamma: cannot convert alpha='a'"):
        gamma([3], [1, 2], "a")
    with pytest.raises(
        ek.errors.InvalidArgumentError,
        match=re.escape("Incompatible shapes of alpha and beta: [2] vs. [3]"),
    ):
        gamma([3], [1, 2], [1.0, 2.0], [1.0, 2.0, 3.0])
    bad_shapes = [([10], [0.5, 1.5]), ([2, 10], [0.5, 1.5]), ([4, 3], [[1.0], [2.0], [3.0], [4.0]])]
    bad_shapes += [([2], [[1.0, 2.0]]), ([4, 1], [1.0, 2.0]), ([], [1.0, 2.0])]
    for shape, alpha in bad_shapes:
        with pytest.raises(ek.errors.InvalidArgumentError, match="must end with broadcasted shape"):
            gamma(shape, [1, 2], alpha)
    _check_shape_and_seed_errors(
        lambda shape, seed: gamma(shape, seed, 1.0), "stateless_random_gamma"
    )


def _check_shape_and_seed_errors(op, name):
    """TensorFlow's errors for a bad ``shape`` or ``seed``, shared by the three ops."""
    with pytest.raises(
        ek.errors.InvalidArgumentError, match=re.escape(f"{name}: seed must have shape [2]")
    ):
        op([3], [1, 2, 3])
    with pytest.raises(ek.errors.InvalidArgumentError, match="seed must have shape"):
        op([3], [[1], [2]])
    with pytest.raises(ek.errors.InvalidArgumentError, match="seed must have shape"):
        op([3], 1)
    with pytest.raises(ek.errors.InvalidArgumentError, match=f"{name}: seed must be int32"):
        op([3], [1.0, 2.0])
    with pytest.raises(ek.errors.InvalidArgumentError, match="seed must be int32 or int64"):
        op([3], ek.constant([1, 2], ek.uint32))
    with pytest.raises(ek.errors.InvalidArgumentError, match=f"{name}: shape must be a vector"):
        op(3, [1, 2])
    with pytest.raises(ek.errors.InvalidArgumentError, match="shape must be a vector"):
        op([[3]], [1, 2])
    with pytest.raises(ek.errors.InvalidArgumentError, match=f"{name}: shape must be int32"):
        op([3.0], [1, 2])
    with pytest.raises(ek.errors.InvalidArgumentError, match=f"{name}: shape must be non-negative"):
        op([-1], [1, 2])


# -- poisson -------------------------------------------------------------------------------------


@pytest.mark.parametrize("lam", [0.4, 3.0, 25.0])
def test_poisson_matches_the_pmf(lam):
    stats = pytest.importorskip("scipy.stats")
    k = poisson([N], seed=[5, 6], lam=lam).numpy()
    _within(k.mean(), lam, np.sqrt(lam / N))
    _within(k.var(), lam, np.sqrt((lam + 2 * lam**2) / N))  # var of (k - lam)^2: lam + 2 lam^2
    # chi-square over the values with expected counts >= 20, the tails pooled
    values = np.arange(int(lam + 12 * np.sqrt(lam) + 12))
    expected = N * stats.poisson.pmf(values, lam)
    keep = expected >= 20
    observed = np.bincount(k, minlength=values.size)[: values.size]
    obs = np.append(observed[keep], N - observed[keep].sum())
    exp = np.append(expected[keep], N - expected[keep].sum())
    assert stats.chisquare(obs, exp).pvalue > 1e-4


def test_poisson_shapes_and_determinism():
    k = poisson([10, 2], seed=[12, 34], lam=[5, 15])
    assert k.shape == (10, 2) and k.dtype == ek.int32
    np.testing.assert_array_equal(
        k.numpy(), poisson([10, 2], seed=[12, 34], lam=[5.0, 15.0]).numpy()
    )
    assert not np.array_equal(k.numpy(), poisson([10, 2], seed=[12, 35], lam=[5, 15]).numpy())
    assert poisson([30, 3, 1], [12, 34], [[1.0], [3.0], [5.0]]).shape == (30, 3, 1)
    assert poisson([], [1, 2], 2.0).shape == ()
    assert poisson([0, 2], [1, 2], [1.0, 2.0]).shape == (0, 2)
    assert poisson([0], [1, 2], -1.0).shape == (0,)
    np.testing.assert_array_equal(
        poisson([4], [1, 2], [3.0] * 4).numpy(), poisson([4], [1, 2], 3.0).numpy()
    )


@pytest.mark.parametrize("dtype", [ek.int32, ek.int64, ek.float16, ek.float32, ek.float64])
def test_poisson_output_dtypes_give_the_same_counts(dtype):
    k = poisson([200], [1, 2], 4.0, dtype=dtype)
    assert k.dtype == dtype
    np.testing.assert_array_equal(k.numpy().astype(np.int64), poisson([200], [1, 2], 4.0).numpy())


@pytest.mark.parametrize("lam_dtype", [ek.float16, ek.float32, ek.float64, ek.int32, ek.int64])
def test_poisson_rate_dtypes(lam_dtype):
    k = poisson([3], [1, 2], ek.constant([5, 6, 7], lam_dtype))
    assert k.dtype == ek.int32
    np.testing.assert_array_equal(k.numpy(), poisson([3], [1, 2], [5.0, 6.0, 7.0]).numpy())


def test_poisson_edge_rates():
    np.testing.assert_array_equal(poisson([3], [1, 2], [-1.0, 0.0, -5.0]).numpy(), [0, 0, 0])
    big = poisson([3], [1, 2], [1e30, np.inf, 1e12], dtype=ek.float64).numpy()
    assert big[0] == pytest.approx(float(np.float32(1e30)), rel=1e-9) and big[1] == np.inf
    assert abs(big[2] - 1e12) < 6 * 1e6
    assert poisson([2], [1, 2], 1e12, dtype=ek.int64).dtype == ek.int64


def test_poisson_has_no_gradient():
    lam = ek.constant([3.0, 5.0])
    with ek.GradientTape() as tape:
        tape.watch(lam)
        k = poisson([4, 2], [1, 2], lam, dtype=ek.float32)
    assert tape.gradient(k, lam) is None  # as TensorFlow's


def test_poisson_errors():
    for dtype in (ek.uint8, ek.int16, ek.bool, ek.complex64):
        with pytest.raises(
            ek.errors.UnsupportedDTypeError,
            match="stateless_random_poisson: Value for attr 'dtype'",
        ):
            poisson([3], [1, 2], 1.0, dtype=dtype)
    for lam in (True, ek.constant([1, 2], ek.uint8), "a"):
        with pytest.raises(ek.errors.InvalidArgumentError, match="Value for attr 'Rtype'"):
            poisson([2], [1, 2], lam)
    with pytest.raises(
        ek.errors.InvalidArgumentError, match="stateless_random_poisson: lam must not be NaN"
    ):
        poisson([3], [1, 2], np.nan)
    with pytest.raises(ek.errors.InvalidArgumentError, match="exceeds the range of dtype int32"):
        poisson([3], [1, 2], 1e12)
    bad_shapes = [
        ([10], [5.0, 15.0]),
        ([10, 2], [[5.0]]),
        ([3], [5.0]),
        ([30, 3, 2], [[1.0], [3.0], [5.0]]),
    ]
    for shape, lam in bad_shapes:
        with pytest.raises(ek.errors.InvalidArgumentError, match="must end with broadcasted shape"):
            poisson(shape, [1, 2], lam)
    _check_shape_and_seed_errors(
        lambda shape, seed: poisson(shape, seed, 1.0), "stateless_random_poisson"
    )


# -- parameterized truncated normal ---------------------------------------------------------------

# (mean, stddev, minval, maxval): each of TensorFlow's three samplers, one-sided bounds (a
# lower bound of -inf and bounds below the mean, where the kernel flips the interval).
TRUNCATIONS = [
    (0.0, 1.0, -2.0, 2.0),  # normal proposals
    (1.0, 2.0, 0.0, 3.0),  # the mean inside, bounds under 1.3 sd: exponential proposals
    (0.0, 1.0, 0.5, 0.6),  # a narrow interval: uniform proposals
    (0.0, 1.0, 4.0, np.inf),  # a far tail: exponential proposals
    (2.0, 0.5, -np.inf, 1.0),  # upper bound only, below the mean: flipped
    (3.0, 1.0, -1.0, 0.0),  # both bounds below the mean: flipped
]


@pytest.mark.parametrize("mean, std, lo, hi", TRUNCATIONS)
def test_truncated_normal_matches_the_distribution(mean, std, lo, hi):
    stats = pytest.importorskip("scipy.stats")
    params = [ek.constant(v, ek.float64) for v in (mean, std, lo, hi)]
    x = truncated([N], [9, 10], *params).numpy()
    assert x.dtype == np.float64 and x.min() >= lo and x.max() <= hi
    dist = stats.truncnorm((lo - mean) / std, (hi - mean) / std, loc=mean, scale=std)
    _within(x.mean(), dist.mean(), dist.std() / np.sqrt(N))
    assert stats.kstest(x, dist.cdf).pvalue > 1e-4


def test_truncated_normal_broadcasts_and_is_deterministic():
    stddevs = ek.constant([[1.0, 2.0, 3.0], [0.5, 1.5, 2.5]])
    kwargs = dict(
        means=0.0, stddevs=stddevs, minvals=[-1.0, -2.0, -1000.0], maxvals=[[10000.0], [1.0]]
    )
    y = truncated([2000, 2, 3], [7, 17], **kwargs)
    assert y.shape == (2000, 2, 3) and y.dtype == ek.float32
    x = y.numpy()
    assert np.all(x >= np.array([-1.0, -2.0, -1000.0])) and np.all(x[:, 1] <= 1.0)
    np.testing.assert_array_equal(x, truncated([2000, 2, 3], [7, 17], **kwargs).numpy())
    assert not np.array_equal(x, truncated([2000, 2, 3], [7, 18], **kwargs).numpy())
    a = truncated([5], [1, 2]).numpy()  # defaults: N(0, 1) within [-2, 2]
    assert a.dtype == np.float32 and np.all(np.abs(a) <= 2)
    np.testing.assert_array_equal(a, truncated([5], ek.constant([1, 2], ek.int64)).numpy())
    assert truncated([], [1, 2]).shape == ()
    assert truncated([0, 2], [1, 2], [0.0, 1.0]).shape == (0, 2)


@pytest.mark.parametrize("dtype", [ek.float16, ek.float32, ek.float64])
def test_truncated_normal_dtype_is_the_parameters(dtype):
    params = [ek.constant(v, dtype) for v in (0.5, 1.0, 0.0, 1.0)]
    x = truncated([500], [1, 2], *params)
    assert x.dtype == dtype and np.all((x.numpy() >= 0) & (x.numpy() <= 1))


def _ndtr(x):
    from scipy import special

    return special.ndtr(x)


def test_truncated_normal_gradients_are_tensorflows():
    """TensorFlow's formulas: d/dmeans 1, d/dstddevs the standardized sample, d/dminvals and
    d/dmaxvals the implicit derivatives through the truncated CDF; each summed over the sample
    dimensions and un-broadcast to its parameter."""
    pytest.importorskip("scipy")
    m = ek.constant([0.0, 1.0, 0.5], ek.float64)
    s = ek.constant([1.0, 2.0, 0.3], ek.float64)
    lo = ek.constant([-1.0, 0.0, -np.inf], ek.float64)
    hi = ek.constant(3.0, ek.float64)
    with ek.GradientTape() as tape:
        tape.watch([m, s, lo, hi])
        y = truncated([50, 3], [1, 2], m, s, lo, hi)
    dm, ds, dlo, dhi = tape.gradient(y, [m, s, lo, hi])
    x, mv, sv, lv, hv = (t.numpy() for t in (y, m, s, lo, hi))
    z, a, b = (x - mv) / sv, (lv - mv) / sv, (hv - mv) / sv
    cdf = np.clip((_ndtr(z) - _ndtr(a)) / (_ndtr(b) - _ndtr(a)), np.finfo(float).tiny, 1 - 2**-52)
    np.testing.assert_allclose(dm.numpy(), [50.0, 50.0, 50.0])
    np.testing.assert_allclose(ds.numpy(), z.sum(0), rtol=1e-10)
    with np.errstate(over="ignore", invalid="ignore"):
        want_lo = np.exp(0.5 * (z**2 - a**2) + np.log1p(-cdf)).sum(0)
    np.testing.assert_allclose(dlo.numpy(), np.nan_to_num(want_lo), rtol=1e-8, atol=1e-12)
    assert dlo.numpy()[2] == 0.0  # an infinite bound moves nothing
    want_hi = np.exp(0.5 * (z**2 - b**2) + np.log(cdf)).sum()
    assert dhi.shape == () and float(dhi) == pytest.approx(want_hi, rel=1e-8)


def test_truncated_normal_bound_gradients_match_the_mean_in_expectation():
    """E[dx/dmaxval] = d E[x] / d maxval and E[dx/dminval] = d E[x] / d minval (the means and
    stddevs held fixed), E[x] the closed-form truncated mean."""
    stats = pytest.importorskip("scipy.stats")
    mean, std, lo_v, hi_v = 0.5, 1.5, -1.0, 2.0
    lo = ek.constant(lo_v, ek.float64)
    hi = ek.constant(hi_v, ek.float64)
    with ek.GradientTape(persistent=True) as tape:
        tape.watch([lo, hi])
        y = truncated(
            [N], [3, 3], ek.constant(mean, ek.float64), ek.constant(std, ek.float64), lo, hi
        )

    def truncated_mean(a, b):
        return stats.truncnorm((a - mean) / std, (b - mean) / std, loc=mean, scale=std).mean()

    h = 1e-5
    for source, want in (
        (hi, (truncated_mean(lo_v, hi_v + h) - truncated_mean(lo_v, hi_v - h)) / (2 * h)),
        (lo, (truncated_mean(lo_v + h, hi_v) - truncated_mean(lo_v - h, hi_v)) / (2 * h)),
    ):
        per_sample = tape.gradient(y, source)
        # the per-sample derivatives lie in [0, 1]: their standard error is at most 0.5 / sqrt(N)
        _within(float(per_sample) / N, want, 0.5 / np.sqrt(N))


def test_variables_as_parameters_are_watched():
    pytest.importorskip("scipy")
    alpha, mean, low = ek.Variable([1.0, 2.0]), ek.Variable([0.0, 1.0]), ek.Variable(-1.0)
    with ek.GradientTape() as tape:
        x = gamma([5, 2], [1, 2], alpha) + truncated([5, 2], [1, 2], mean, 1.0, low, 3.0)
    d_alpha, d_mean, d_low = tape.gradient(x, [alpha, mean, low])
    assert d_alpha.shape == (2,) and np.all(d_alpha.numpy() > 0)
    np.testing.assert_array_equal(d_mean.numpy(), [5.0, 5.0])
    assert d_low.shape == () and float(d_low) > 0


def test_truncated_normal_errors():
    name = "stateless_parameterized_truncated_normal"
    with pytest.raises(
        ek.errors.UnsupportedDTypeError, match=f"{name}: Value for attr 'dtype' of int32"
    ):
        truncated([3], [1, 2], 0, 1.0)
    with pytest.raises(ek.errors.InvalidArgumentError, match="'dtype' of string"):
        truncated([3], [1, 2], "a")
    with pytest.raises(
        ek.errors.DTypeMismatchError,
        match=re.escape("input #3(zero-based) (stddevs) was expected to be a float32"),
    ):
        truncated([3], [1, 2], 0.0, ek.constant(1.0, ek.float64))
    with pytest.raises(
        ek.errors.InvalidArgumentError, match=re.escape("input #5(zero-based) (maxvals)")
    ):
        truncated([3], [1, 2], 0.0, 1.0, -2.0, ek.constant(2.0, ek.float64))
    with pytest.raises(ek.errors.InvalidArgumentError, match="expected to be a float64 tensor"):
        truncated([3], [1, 2], np.float64(0.0))  # a NumPy float64 is float64, as in TF
    with pytest.raises(
        ek.errors.InvalidArgumentError,
        match=re.escape("compatible batch dimensions: [2] vs. [3] vs. [] vs. []"),
    ):
        truncated([10, 3], [1, 2], [0.0, 1.0], [1.0, 2.0, 3.0])
    for shape, means in (
        ([10], [0.0, 1.0]),
        ([10, 3], [0.0, 1.0]),
        ([2], [[0.0, 1.0]]),
        ([4, 1], [0.0, 1.0]),
    ):
        with pytest.raises(ek.errors.InvalidArgumentError, match="must end with broadcasted shape"):
            truncated(shape, [1, 2], means)
    for params in (
        (0.0, 0.0),
        (0.0, -1.0),
        (0.0, 1.0, 2.0, -2.0),
        (0.0, 1.0, 1.0, 1.0),
        (0.0, 1.0, -np.inf, np.inf),
        (0.0, np.nan),
    ):
        with pytest.raises(ek.errors.InvalidArgumentError, match=f"{name}: Invalid parameters"):
            truncated([3], [1, 2], *params)
    assert truncated([0], [1, 2], 0.0, -1.0).shape == (0,)  # nothing drawn, nothing checked
    with pytest.raises(ek.errors.InternalError, match=f"{name}: the rejection sampler failed"):
        truncated([3], [1, 2], np.float32(np.nan))
    _check_shape_and_seed_errors(lambda shape, seed: truncated(shape, seed), name)


# -- graph functions -----------------------------------------------------------------------------

CASES = [
    (
        "gamma",
        lambda seed, p: gamma([4, 2], seed, p, beta=2.0 * p),
        ([1, 2], [1.0, 2.0]),
        ([3, 4], [0.5, 7.0]),
    ),
    (
        "poisson",
        lambda seed, p: poisson([4, 2], seed, p, dtype=ek.int64),
        ([1, 2], [1.0, 2.0]),
        ([3, 4], [30.0, 0.5]),
    ),
    (
        "truncated normal",
        lambda seed, p: truncated([4, 2], seed, p, 1.0, p - 1.0, p + 0.5),
        ([1, 2], [1.0, 2.0]),
        ([3, 4], [-3.0, 5.0]),
    ),
]


@pytest.mark.parametrize("fn, first, second", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_traced_function_draws_from_each_calls_seed_and_parameters(fn, first, second):
    traced = ek.function(fn)
    calls = [
        (ek.constant(first[0]), ek.constant(first[1])),
        (ek.constant(second[0]), ek.constant(first[1])),  # a new seed
        (ek.constant(first[0]), ek.constant(second[1])),  # new parameters
        (ek.constant(first[0]), ek.constant(first[1])),
    ]
    results = []
    for seed, p in calls:
        got = traced(seed, p).numpy()
        np.testing.assert_array_equal(got, fn(seed, p).numpy())
        results.append(got)
    assert not np.array_equal(results[0], results[1])
    assert not np.array_equal(results[0], results[2])
    np.testing.assert_array_equal(results[0], results[3])
    assert traced.experimental_get_tracing_count() == 1


def test_a_traced_gradient_is_recomputed_on_every_call():
    pytest.importorskip("scipy")

    def step(seed, alpha, mean):
        with ek.GradientTape() as tape:
            tape.watch([alpha, mean])
            loss = ek.reduce_sum(gamma([3, 2], seed, alpha)) + ek.reduce_sum(
                truncated([3, 2], seed, mean, 1.0, mean - 1.0, mean + 2.0) ** 2
            )
        return tape.gradient(loss, [alpha, mean])

    traced = ek.function(step)
    for seed, alpha, mean in (([1, 2], [1.0, 2.0], [0.0, 1.0]), ([5, 6], [4.0, 0.5], [2.0, -1.0])):
        args = (ek.constant(seed), ek.constant(alpha), ek.constant(mean))
        for got, want in zip(traced(*args), step(*args)):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    assert traced.experimental_get_tracing_count() == 1
