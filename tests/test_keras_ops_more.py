"""The third batch of `ek.keras.ops` names (numpy_rest, numpy_data, linalg_more, nn_more):
values against NumPy/SciPy, gradients against finite differences or closed forms, and the
errors for bad input."""

from __future__ import annotations

import numpy as np
import pytest
from eagerkernel.keras import ops

import eagerkernel as ek

RNG = np.random.default_rng(0)


def rand(*shape, dtype="float32"):
    return RNG.normal(size=shape).astype(dtype)


def close(got, want, atol=1e-5, rtol=1e-5):
    got = got.numpy() if hasattr(got, "numpy") else got
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=atol, rtol=rtol)


def grad_of(f, *xs):
    xs = [ek.constant(x) for x in xs]
    with ek.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = ops.sum(f(*xs))
    return [g.numpy() for g in tape.gradient(y, xs)]


def numeric_grad(f, x, eps=1e-3):
    x = x.astype(np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        hi = float(np.sum(f(ek.constant(x + d)).numpy()))
        lo = float(np.sum(f(ek.constant(x - d)).numpy()))
        g[i] = (hi - lo) / (2 * eps)
    return g


# -- elementwise --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["cbrt", "deg2rad", "rad2deg", "sinc", "fabs", "signbit"])
def test_float_unary_matches_numpy(name):
    x = rand(3, 4)
    close(getattr(ops, name)(x), getattr(np, name)(x), atol=1e-6)


def test_integer_input_gives_floatx():
    assert ops.cbrt(np.array([8, 27], "int32")).dtype == "float32"
    close(ops.cbrt(np.array([8, 27], "int32")), [2.0, 3.0])


@pytest.mark.parametrize("name", ["fmax", "fmin", "fmod", "logaddexp2", "nextafter"])
def test_binary_matches_numpy(name):
    a, b = rand(5), rand(5)
    a[1], b[2] = np.nan, np.nan
    if name in ("fmod", "logaddexp2", "nextafter"):
        a, b = np.nan_to_num(a), np.nan_to_num(b) + 3.0
    close(getattr(ops, name)(a, b), getattr(np, name)(a, b))


def test_integer_binaries():
    a, b = np.array([12, 18, 7, -4]), np.array([8, 12, 3, 6])
    close(ops.gcd(a, b), np.gcd(a, b))
    close(ops.lcm(a, b), np.lcm(a, b))
    close(ops.fmod(np.array([-7, 7]), np.array([3, -3])), np.fmod([-7, 7], [3, -3]))
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        close(getattr(ops, name)(a, b), getattr(np, name)(a, b))
    close(ops.left_shift(a, 2), np.left_shift(a, 2))
    close(ops.bitwise_left_shift(a, 1), np.left_shift(a, 1))
    close(ops.right_shift(a, 1), np.right_shift(a, 1))
    close(ops.bitwise_right_shift(a, 2), np.right_shift(a, 2))
    close(ops.bitwise_invert(a), np.invert(a))
    close(ops.bitwise_not(np.array([True, False])), [False, True])
    with pytest.raises(TypeError, match=r"gcd.*Received: dtype=float32"):
        ops.gcd(rand(2), rand(2))
    with pytest.raises(TypeError, match=r"bitwise_invert"):
        ops.bitwise_invert(rand(2))


def test_heaviside_ldexp_divide_no_nan():
    x = np.array([-1.5, 0.0, 2.0], "float32")
    close(ops.heaviside(x, 0.5), np.heaviside(x, 0.5))
    close(ops.ldexp(x, np.array([1, 2, 3])), np.ldexp(x, [1, 2, 3]))
    with pytest.raises(TypeError, match=r"ldexp.*integer"):
        ops.ldexp(x, x)
    close(ops.divide_no_nan(x, np.array([0.0, 2.0, 4.0], "float32")), [0.0, 0.0, 0.5])


def test_inf_and_real_tests():
    x = np.array([-np.inf, 0.0, np.inf, np.nan], "float32")
    close(ops.isneginf(x), np.isneginf(x))
    close(ops.isposinf(x), np.isposinf(x))
    close(ops.isneginf(np.array([1, 2])), [False, False])
    z = np.array([1 + 0j, 1 + 2j], "complex64")
    close(ops.isreal(z), np.isreal(z))
    assert bool(ops.allclose([1.0, 2.0], [1.0, 2.0 + 1e-7]).numpy())
    assert not bool(ops.allclose([1.0, np.nan], [1.0, np.nan]).numpy())
    assert bool(ops.allclose([1.0, np.nan], [1.0, np.nan], equal_nan=True).numpy())


# -- reductions ---------------------------------------------------------------------------------


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_median_quantile_percentile(axis, keepdims):
    x = rand(3, 4, 5)
    close(ops.median(x, axis=axis, keepdims=keepdims), np.median(x, axis, keepdims=keepdims))
    q = [0.1, 0.5, 0.9]
    want = np.quantile(x, q, axis=axis, keepdims=keepdims)
    close(ops.quantile(x, q, axis=axis, keepdims=keepdims), want)
    want = np.percentile(x, 30, axis=axis, keepdims=keepdims)
    close(ops.percentile(x, 30, axis=axis, keepdims=keepdims), want)


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_methods(method):
    x = rand(11)
    q = [0.0, 0.25, 0.33, 1.0]
    close(ops.quantile(x, q, method=method), np.quantile(x, q, method=method))


def test_quantile_errors_and_gradient():
    with pytest.raises(ValueError, match=r"quantile.*q must be in"):
        ops.quantile(rand(4), 1.5)
    with pytest.raises(ValueError, match=r"method"):
        ops.quantile(rand(4), 0.5, method="weird")
    x = np.array([3.0, 1.0, 2.0, 4.0], "float32")
    (g,) = grad_of(lambda t: ops.median(t), x)
    close(g, [0.5, 0.0, 0.5, 0.0])  # the mean of the two middle values


def test_nan_reductions():
    x = rand(3, 4)
    x[0, 1] = x[2, 3] = np.nan
    for name in ("nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin"):
        for axis in (None, 0, 1):
            close(getattr(ops, name)(x, axis=axis), getattr(np, name)(x, axis=axis), atol=1e-5)
    close(ops.nanmedian(x, axis=1), np.nanmedian(x, axis=1))
    close(ops.nanquantile(x, 0.3, axis=0), np.nanquantile(x, 0.3, axis=0))
    close(ops.nanpercentile(x, [10, 90]), np.nanpercentile(x, [10, 90]))
    close(ops.nanargmax(x, axis=1), np.nanargmax(x, axis=1))
    close(ops.nanargmin(x), np.nanargmin(x))
    close(ops.nancumsum(x, axis=1), np.nancumsum(x, axis=1))
    close(ops.nancumprod(x), np.nancumprod(x), atol=1e-5)
    with pytest.raises(ValueError, match=r"nanargmax.*all-NaN"):
        ops.nanargmax(np.full((2, 2), np.nan), axis=0)
    (g,) = grad_of(lambda t: ops.nanmean(t), x)
    close(g, np.where(np.isnan(x), 0.0, 1.0 / 10))


def test_ptp_trapezoid():
    x = rand(3, 5)
    close(ops.ptp(x, axis=1), np.ptp(x, axis=1))
    close(ops.trapezoid(x), np.trapezoid(x))
    close(ops.trapezoid(x, dx=0.5, axis=0), np.trapezoid(x, dx=0.5, axis=0))
    t = np.sort(rand(5))
    close(ops.trapezoid(x, t), np.trapezoid(x, t))
    (g,) = grad_of(lambda y: ops.trapezoid(y), rand(4))
    close(g, [0.5, 1.0, 1.0, 0.5])


# -- construction and rearrangement -------------------------------------------------------------


def test_construction():
    assert ops.empty((2, 3)).shape == (2, 3) and ops.empty((2,)).dtype == "float32"
    assert ops.empty_like(np.zeros((2, 1), "int32")).dtype == "int32"
    close(ops.geomspace(1.0, 1000.0, 4), np.geomspace(1, 1000, 4), rtol=1e-5)
    close(ops.logspace(0.0, 2.0, 3, base=2), np.logspace(0, 2, 3, base=2))
    for name in ("bartlett", "blackman", "hamming", "hanning"):
        close(getattr(ops, name)(7), getattr(np, name)(7), atol=1e-6)
    close(ops.kaiser(6, 2.5), np.kaiser(6, 2.5), atol=1e-6)
    x = rand(4)
    close(ops.vander(x), np.vander(x), rtol=1e-4)
    close(ops.vander(x, 3, increasing=True), np.vander(x, 3, increasing=True), rtol=1e-4)
    a, b = rand(2, 3), rand(3, 2)
    close(ops.kron(a, b), np.kron(a, b))
    close(ops.diagflat(rand(2, 2) * 0 + 1, k=1), np.diagflat(np.ones((2, 2)), k=1))
    y = rand(3, 4, 5)
    close(ops.diagonal(y, offset=1, axis1=1, axis2=2), np.diagonal(y, 1, 1, 2))
    with pytest.raises(ValueError, match=r"diagonal.*2-D"):
        ops.diagonal(rand(3))


def test_flips_and_rotation():
    x = rand(3, 4, 2)
    close(ops.fliplr(x), np.fliplr(x))
    close(ops.flipud(x), np.flipud(x))
    close(ops.rot90(x), np.rot90(x))
    close(ops.rot90(x, k=3, axes=(1, 2)), np.rot90(x, 3, (1, 2)))
    with pytest.raises(ValueError, match=r"fliplr"):
        ops.fliplr(rand(3))


def test_stacks_and_splits():
    a, b = rand(2, 3), rand(2, 3)
    close(ops.dstack([a, b]), np.dstack([a, b]))
    close(
        ops.column_stack([rand(3) * 0, np.ones(3, "float32")]),
        np.column_stack([np.zeros(3), np.ones(3)]),
    )
    x = rand(6, 4, 2)
    for got, want in zip(ops.array_split(np.arange(10), 3), np.array_split(np.arange(10), 3)):
        close(got, want)
    for got, want in zip(ops.array_split(x, [1, 4], axis=1), np.array_split(x, [1, 4], axis=1)):
        close(got, want)
    for name in ("hsplit", "vsplit", "dsplit"):
        for got, want in zip(getattr(ops, name)(x, 2), getattr(np, name)(x, 2)):
            close(got, want)
    with pytest.raises(ValueError, match=r"vsplit.*do not divide"):
        ops.vsplit(x, 4)
    with pytest.raises(ValueError, match=r"array_split.*positive"):
        ops.array_split(x, 0)


def test_cross_corrcoef_correlate_select():
    a, b = rand(4, 3), rand(4, 3)
    close(ops.cross(a, b), np.cross(a, b))
    close(ops.cross(np.array([1.0, 2.0]), np.array([3.0, 4.0])), -2.0)  # the z component
    with pytest.raises(ValueError, match=r"cross.*2 or 3"):
        ops.cross(rand(4), rand(4))
    x = rand(3, 6)
    close(ops.corrcoef(x), np.corrcoef(x), atol=1e-5)
    v, w = rand(7), rand(3)
    for mode in ("valid", "same", "full"):
        close(ops.correlate(v, w, mode), np.correlate(v, w, mode), atol=1e-5)
        close(ops.correlate(w, v, mode), np.correlate(w, v, mode), atol=1e-5)
    x = np.arange(6.0)
    conds, choices = [x < 2, x > 4], [x, x**2]
    close(ops.select(conds, choices, -1.0), np.select(conds, choices, -1.0))
    with pytest.raises(ValueError, match=r"select.*same length"):
        ops.select([x < 2], [x, x])


def test_differentiable_rearrangements_gradient():
    a, b = rand(3), rand(3)
    ga, _ = grad_of(lambda s, t: ops.cross(s, t), a, b)
    close(ga, np.cross(b, np.ones(3)), atol=1e-5)  # d/da sum(a x b) = b x 1
    x = rand(3, 5)
    (g,) = grad_of(lambda t: ops.corrcoef(t) ** 2, x)
    close(g, numeric_grad(lambda t: ops.corrcoef(t) ** 2, x), atol=2e-2)


# -- data-dependent -----------------------------------------------------------------------------


def test_data_dependent_ops():
    x = np.array([0.2, 6.4, 3.0, 1.6])
    bins = np.array([0.0, 1.0, 2.5, 4.0, 10.0])
    close(ops.digitize(x, bins), np.digitize(x, bins))
    close(ops.searchsorted(bins, x, side="right"), np.searchsorted(bins, x, side="right"))
    counts, edges = ops.histogram(x, bins=3, range=(0, 9))
    want_c, want_e = np.histogram(x, 3, (0, 9))
    close(counts, want_c)
    close(edges, want_e)
    close(ops.isin([1, 2, 3], [2, 5]), [False, True, False])
    close(ops.isin([1, 2, 3], [2, 5], invert=True), [True, False, True])
    close(ops.bincount([0, 1, 1, 4], minlength=6), np.bincount([0, 1, 1, 4], minlength=6))
    close(ops.bincount([0, 1, 1], weights=[0.5, 1.0, 2.0]), [0.5, 3.0])
    y = rand(3, 7)
    close(
        np.sort(np.take_along_axis(y, ops.argpartition(y, 2).numpy(), -1)[:, :3], -1),
        np.sort(y, -1)[:, :3],
    )
    rows, cols = ops.unravel_index(np.array([1, 5, 7]), (3, 4))
    close(rows, [0, 1, 1])
    close(cols, [1, 1, 3])
    with pytest.raises(ValueError, match=r"searchsorted.*side"):
        ops.searchsorted(bins, x, side="middle")
    with pytest.raises(ValueError, match=r"bincount.*non-negative"):
        ops.bincount([-1, 2])


def test_unique():
    x = np.array([3, 1, 3, 2, 1])
    u, idx, inv, counts = ops.unique(x, return_index=True, return_inverse=True, return_counts=True)
    want = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    for got, w in zip((u, idx, inv, counts), want):
        close(got, w)
    u, counts = ops.unique(x, return_counts=True, size=5, fill_value=-1)
    close(u, [1, 2, 3, -1, -1])
    close(counts, [2, 1, 2, 0, 0])


# -- linear algebra -----------------------------------------------------------------------------


def spd(n=4):
    a = rand(n, n)
    return a @ a.T + n * np.eye(n, dtype="float32")


def test_decompositions():
    a = rand(4, 4)
    m = spd()
    w, v = ops.eigh(m)
    close(w, np.linalg.eigh(m)[0], atol=1e-4)
    close(v.numpy() @ np.diag(w.numpy()) @ v.numpy().T, m, atol=1e-3)
    w, v = ops.eig(a)
    close(np.sort_complex(w.numpy()), np.sort_complex(np.linalg.eigvals(a)), atol=1e-4)
    u, s, vh = ops.svd(a)
    close((u.numpy() * s.numpy()) @ vh.numpy(), a, atol=1e-4)
    close(ops.svd(a, compute_uv=False), np.linalg.svd(a, compute_uv=False), atol=1e-4)
    b = rand(5, 3)
    q, r = ops.qr(b)
    assert q.shape == (5, 3) and r.shape == (3, 3)
    q, r = ops.qr(b, mode="complete")
    assert q.shape == (5, 5)
    close(q.numpy() @ r.numpy(), b, atol=1e-4)
    with pytest.raises(ValueError, match=r"qr.*mode"):
        ops.qr(b, mode="raw")
    with pytest.raises(ValueError, match=r"eig.*square"):
        ops.eig(b)


def test_determinants_inverses_and_solves():
    a, m = rand(4, 4), spd()
    sign, logabs = ops.slogdet(a)
    close([sign.numpy(), logabs.numpy()], np.linalg.slogdet(a), atol=1e-4)
    close(ops.logdet(m), np.linalg.slogdet(m)[1], atol=1e-4)
    close(
        ops.pinv(rand(5, 3) * 0 + np.eye(5, 3, dtype="float32")),
        np.linalg.pinv(np.eye(5, 3)),
        atol=1e-5,
    )
    close(ops.matrix_rank(np.diag([1.0, 2.0, 0.0])), 2)
    close(ops.matrix_power(a, 3), np.linalg.matrix_power(a, 3), atol=1e-3)
    close(ops.matrix_power(a, -2), np.linalg.matrix_power(a, -2), atol=1e-2, rtol=1e-3)
    close(ops.matrix_power(a, 0), np.eye(4))
    low = np.linalg.cholesky(m).astype("float32")
    b = rand(4)
    close(ops.solve_triangular(low, b, lower=True), np.linalg.solve(low, b), atol=1e-4)
    close(
        ops.solve_triangular(low.T, rand(4, 2) * 0 + 1, lower=False),
        np.linalg.solve(low.T, np.ones((4, 2))),
        atol=1e-4,
    )
    close(ops.cholesky_inverse(low), np.linalg.inv(m), atol=1e-4)
    close(ops.cholesky_inverse(low.T, upper=True), np.linalg.inv(m), atol=1e-4)
    A, B = rand(6, 3), rand(6, 2)
    close(ops.lstsq(A, B), np.linalg.lstsq(A, B, rcond=None)[0], atol=1e-4)
    close(ops.lstsq(A, B[:, 0]), np.linalg.lstsq(A, B[:, 0], rcond=None)[0], atol=1e-4)
    scipy_linalg = pytest.importorskip("scipy.linalg")
    lu, piv = ops.lu_factor(a)
    want_lu, _ = scipy_linalg.lu_factor(a)
    close(lu, want_lu, atol=1e-4)
    # Keras's TensorFlow backend: row i of `a` is row piv[i] of L @ U (not LAPACK's swaps)
    lower, upper = np.tril(lu.numpy(), -1) + np.eye(4), np.triu(lu.numpy())
    close((lower @ upper)[piv.numpy()], a, atol=1e-4)
    with pytest.raises(TypeError, match=r"matrix_power.*integer"):
        ops.matrix_power(a, 1.5)


def test_cdist_and_jvp():
    x, y = rand(3, 2), rand(4, 2)
    close(ops.cdist(x, y), np.linalg.norm(x[:, None] - y[None], axis=-1), atol=1e-5)
    primal, tangent = ops.jvp(ops.sin, (ek.constant(0.1),), (ek.constant(0.2),))
    close(primal, np.sin(0.1))
    close(tangent, 0.2 * np.cos(0.1))
    _, tan, aux = ops.jvp(
        lambda a: (a * a, "aux"),
        (ek.constant([1.0, 3.0]),),
        (ek.constant([1.0, 1.0]),),
        has_aux=True,
    )
    close(tan, [2.0, 6.0])
    assert aux == "aux"


def test_linalg_gradients():
    m = spd(3).astype("float64")
    (g,) = grad_of(lambda t: ops.logdet(t), m)
    close(g, np.linalg.inv(m).T, atol=1e-6)
    a = rand(3, 3).astype("float64")
    (g,) = grad_of(lambda t: ops.matrix_power(t, 2), a)
    close(g, numeric_grad(lambda t: ops.matrix_power(t, 2), a), atol=1e-5)


# -- complex and FFT ----------------------------------------------------------------------------


def test_complex_parts():
    z = np.array([1 + 2j, -3 - 1j], "complex64")
    close(ops.real(z), z.real)
    close(ops.imag(z), z.imag)
    close(ops.conj(z), z.conj())
    close(ops.conjugate(z), z.conj())
    close(ops.angle(z), np.angle(z), atol=1e-6)
    close(ops.angle(np.array([-1.0, 1.0])), np.angle([-1.0, 1.0]))
    close(ops.imag(np.array([1.0])), [0.0])
    close(ops.view_as_real(z), np.stack([z.real, z.imag], -1))
    close(ops.view_as_complex(np.array([[1.0, 2.0]], "float32")), [1 + 2j])
    close(ops.polar(2.0, np.pi / 2), 2j, atol=1e-6)
    with pytest.raises(ValueError, match=r"view_as_real.*complex"):
        ops.view_as_real(rand(2))
    with pytest.raises(ValueError, match=r"view_as_complex.*last axis"):
        ops.view_as_complex(rand(2, 3))


def test_special_functions():
    x = np.array([0.1, 0.5, 2.0], "float32")
    scipy_special = pytest.importorskip("scipy.special")
    close(ops.erfc(x), scipy_special.erfc(x), atol=1e-6)
    close(ops.i0(x), np.i0(x), atol=1e-5)
    close(
        ops.gammainc(np.array([2.0, 3.0]), np.array([1.0, 2.0])),
        scipy_special.gammainc([2.0, 3.0], [1.0, 2.0]),
        atol=1e-6,
    )


def test_fft_family():
    re, im = rand(2, 8), rand(2, 8)
    z = re + 1j * im
    for op, fn in ((ops.fft, np.fft.fft), (ops.fft2, np.fft.fft2), (ops.ifft2, np.fft.ifft2)):
        r, i = op((re, im))
        close(r.numpy() + 1j * i.numpy(), fn(z), atol=1e-4)
    r, i = ops.rfft(re, 10)
    close(r.numpy() + 1j * i.numpy(), np.fft.rfft(re, 10), atol=1e-4)
    close(ops.irfft((r, i), 10), np.fft.irfft(np.fft.rfft(re, 10), 10), atol=1e-5)
    with pytest.raises(ValueError, match=r"fft.*pair"):
        ops.fft(re)
    with pytest.raises(ValueError, match=r"fft.*same shape"):
        ops.fft((re, im[:, :4]))
    frames = ops.extract_sequences(np.arange(10.0), 4, 3)
    close(frames, [[0, 1, 2, 3], [3, 4, 5, 6], [6, 7, 8, 9]])


def test_stft_round_trip():
    x = rand(2, 64)
    r, i = ops.stft(x, 16, 8, 32)
    assert r.shape == (2, 9, 17)
    # Against a direct NumPy STFT: reflect-pad, frame, periodic Hann centered in fft_length.
    padded = np.pad(x, [(0, 0), (16, 16)], mode="reflect")
    win = np.pad(0.5 - 0.5 * np.cos(2 * np.pi * np.arange(16) / 16), (8, 8))
    want = np.stack([np.fft.rfft(padded[:, s : s + 32] * win) for s in range(0, 65, 8)], 1)
    close(r.numpy() + 1j * i.numpy(), want, atol=1e-4)
    close(ops.istft((r, i), 16, 8, 32, length=64), x, atol=1e-4)
    with pytest.raises(ValueError, match=r"stft.*window"):
        ops.stft(x, 16, 8, 32, window="bogus")


# -- nn -----------------------------------------------------------------------------------------


def test_activations():
    x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], "float32")
    close(ops.sparse_sigmoid(x), [0.0, 0.25, 0.5, 0.75, 1.0])
    y = rand(3, 5)
    p = ops.sparsemax(y).numpy()
    close(p.sum(-1), np.ones(3), atol=1e-5)
    assert (p >= 0).all()
    close(ops.sparsemax(np.array([[2.0, 1.0, 0.1]])), [[1.0, 0.0, 0.0]])
    close(ops.sparsemax(np.array([[1.0, 0.6, -1.0]])), [[0.7, 0.3, 0.0]], atol=1e-6)


def test_normalizations():
    x = rand(2, 3, 4)
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    gamma, beta = rand(4), rand(4)
    want = (x - mean) / np.sqrt(var + 1e-7) * gamma + beta
    close(ops.layer_normalization(x, gamma, beta), want, atol=1e-5)
    want = x / np.sqrt(var + 1e-3) * gamma
    close(
        ops.layer_normalization(x, gamma, axis=-1, epsilon=1e-3, rms_scaling=True), want, atol=1e-5
    )
    mean2 = x.mean((1, 2), keepdims=True)
    var2 = x.var((1, 2), keepdims=True)
    close(ops.layer_normalization(x, axis=[1, 2]), (x - mean2) / np.sqrt(var2 + 1e-7), atol=1e-5)
    want = x / np.sqrt((x**2).mean(-1, keepdims=True) + 1e-7) * gamma
    close(ops.rms_normalization(x, gamma), want, atol=1e-5)
    assert ops.rms_normalization(x.astype("float16")).dtype == "float16"
    with pytest.raises(TypeError, match=r"layer_normalization.*unexpected"):
        ops.layer_normalization(x, center=True)
    (g,) = grad_of(lambda t: ops.layer_normalization(t) * ek.constant(rand(2, 3, 4)), x)
    assert np.isfinite(g).all()


def attention_reference(q, k, v, mask=None, causal=False, bias=None):
    logits = np.einsum("btnh,bsnh->bnts", q, k) / np.sqrt(q.shape[-1])
    if bias is not None:
        logits = logits + bias
    keep = np.ones(logits.shape, bool)
    if mask is not None:
        keep &= mask
    if causal:
        keep &= np.tril(np.ones(logits.shape[-2:], bool))
    logits = np.where(keep, logits, -1e30)
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.einsum("bnts,bsnh->btnh", p, v)


def test_dot_product_attention():
    q, k, v = rand(2, 3, 4, 8), rand(2, 5, 4, 8), rand(2, 5, 4, 8)
    close(ops.dot_product_attention(q, k, v), attention_reference(q, k, v), atol=1e-5)
    mask = RNG.random((2, 1, 3, 5)) > 0.3
    mask[..., 0] = True
    close(
        ops.dot_product_attention(q, k, v, mask=mask), attention_reference(q, k, v, mask), atol=1e-5
    )
    k5, v5 = rand(2, 3, 4, 8), rand(2, 3, 4, 8)
    close(
        ops.dot_product_attention(q, k5, v5, is_causal=True),
        attention_reference(q, k5, v5, causal=True),
        atol=1e-5,
    )
    bias = rand(1, 4, 3, 5)
    close(
        ops.dot_product_attention(q, k, v, bias=bias),
        attention_reference(q, k, v, bias=bias),
        atol=1e-5,
    )
    kg, vg = rand(2, 5, 2, 8), rand(2, 5, 2, 8)  # grouped-query: 4 query heads on 2 kv heads
    want = attention_reference(q, np.repeat(kg, 2, 2), np.repeat(vg, 2, 2))
    close(ops.dot_product_attention(q, kg, vg), want, atol=1e-5)
    with pytest.raises(ValueError, match=r"dot_product_attention.*4-D"):
        ops.dot_product_attention(rand(3, 4), rand(3, 4), rand(3, 4))
    with pytest.raises(ValueError, match=r"flash"):
        ops.dot_product_attention(q, k, v, flash_attention=True)
    gq = grad_of(lambda t: ops.dot_product_attention(t, k, v) ** 2, q)[0]
    f = lambda t: (
        ops.dot_product_attention(
            t, ek.constant(k.astype("float64")), ek.constant(v.astype("float64"))
        )
        ** 2
    )
    close(gq, numeric_grad(f, q)[...], atol=5e-3, rtol=5e-3)


def test_psnr():
    a, b = RNG.random((2, 4, 4, 3)).astype("float32"), RNG.random((2, 4, 4, 3)).astype("float32")
    want = 20 * np.log10(1.0) - 10 * np.log10(np.mean((a - b) ** 2))
    close(ops.psnr(a, b, 1.0), want, atol=1e-4)
    with pytest.raises(ValueError, match=r"psnr.*same shape"):
        ops.psnr(a, b[:1], 1.0)


def test_ctc_loss_and_decode():
    logits = rand(2, 6, 4)
    target = np.array([[1, 2, 0], [3, 3, 1]])
    loss = ops.ctc_loss(target, logits, np.array([2, 3]), np.array([6, 5]), mask_index=0)
    want = ek.nn.ctc_loss(target, logits, [2, 3], [6, 5], logits_time_major=False, blank_index=0)
    close(loss, want, atol=1e-5)
    (g,) = grad_of(lambda t: ops.ctc_loss(target, t, np.array([2, 3]), np.array([6, 5])), logits)
    assert np.isfinite(g).all()
    # Frame-wise best classes 1 1 0 2 2 0 -> merged, blanks dropped: [1, 2].
    seq = np.full((1, 6, 3), -5.0, "float32")
    for t, c in enumerate([1, 1, 0, 2, 2, 0]):
        seq[0, t, c] = 5.0
    decoded, scores = ops.ctc_decode(seq, np.array([6]))
    assert decoded.shape == (1, 1, 6)
    close(decoded[0, 0, :3], [1, 2, -1])
    close(scores, [[-30.0]])
    decoded, _ = ops.ctc_decode(seq, np.array([6]), merge_repeated=False)
    close(decoded[0, 0, :5], [1, 1, 2, 2, -1])
    decoded, scores = ops.ctc_decode(
        seq, np.array([6]), strategy="beam_search", top_paths=2, beam_width=4
    )
    assert decoded.shape == (2, 1, 6) and scores.shape == (1, 2)
    close(decoded[0, 0, :3], [1, 2, -1])
    with pytest.raises(ValueError, match=r"ctc_decode.*strategy"):
        ops.ctc_decode(seq, np.array([6]), strategy="best")


def test_depth_space_round_trip():
    x = rand(2, 4, 4, 8)
    y = ops.space_to_depth(x, 2)
    assert y.shape == (2, 2, 2, 32)
    close(ops.depth_to_space(y, 2), x)
    xc = np.transpose(x, (0, 3, 1, 2))
    yc = ops.space_to_depth(xc, 2, data_format="channels_first")
    close(np.transpose(yc.numpy(), (0, 2, 3, 1)), y)
    with pytest.raises(ValueError, match=r"depth_to_space.*data_format"):
        ops.depth_to_space(y, 2, data_format="nhwc")


def conv_transpose_reference(x, k, stride):
    n, h, w, _ = x.shape
    kh, kw, cout, _ = k.shape
    out = np.zeros((n, (h - 1) * stride + kh, (w - 1) * stride + kw, cout))
    for i in range(h):
        for j in range(w):
            out[:, i * stride : i * stride + kh, j * stride : j * stride + kw] += np.einsum(
                "nc,hwoc->nhwo", x[:, i, j], k
            )
    return out


def test_conv_transpose_and_separable():
    x, k = rand(1, 3, 3, 2), rand(3, 3, 4, 2)
    out = ops.conv_transpose(x, k, strides=2, padding="valid", data_format="channels_last")
    assert out.shape == (1, 7, 7, 4)
    close(out, conv_transpose_reference(x, k, 2), atol=1e-4)
    assert ops.conv_transpose(x, k, 2, "same", data_format="channels_last").shape == (1, 6, 6, 4)
    out = ops.conv_transpose(x, k, 2, "valid", output_padding=1, data_format="channels_last")
    assert out.shape == (1, 8, 8, 4)
    dk, pk = rand(3, 3, 2, 2), rand(1, 1, 4, 5)
    xs = rand(1, 6, 6, 2)
    want = ops.conv(
        ops.depthwise_conv(xs, dk, data_format="channels_last"), pk, data_format="channels_last"
    )
    close(ops.separable_conv(xs, dk, pk, data_format="channels_last"), want, atol=1e-5)


def test_adaptive_pools():
    x = rand(1, 5, 7, 2)
    got = ops.adaptive_average_pool(x, (2, 3), data_format="channels_last").numpy()
    want = np.zeros((1, 2, 3, 2))
    for i in range(2):
        for j in range(3):
            r = slice(i * 5 // 2, -(-(i + 1) * 5 // 2))
            c = slice(j * 7 // 3, -(-(j + 1) * 7 // 3))
            want[0, i, j] = x[0, r, c].mean((0, 1))
    close(got, want, atol=1e-6)
    got = ops.adaptive_max_pool(np.transpose(x, (0, 3, 1, 2)), 1, data_format="channels_first")
    close(got, x.max((1, 2))[:, :, None, None])


def test_unfold_fold():
    x = rand(2, 3, 5, 6)
    cols = ops.unfold(x, kernel_size=(2, 3), stride=(1, 2), padding=1)
    # A reference by hand: each column is one kernel-sized patch, channel-major.
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)])
    patches = [
        xp[:, :, i : i + 2, j : j + 3].reshape(2, -1) for i in range(0, 6) for j in range(0, 6, 2)
    ]
    close(cols, np.stack(patches, -1))
    # fold is the adjoint of unfold: <unfold(x), y> == <x, fold(y)>.
    y = rand(*cols.shape)
    back = ops.fold(y, (5, 6), (2, 3), stride=(1, 2), padding=1)
    close(np.sum(cols.numpy() * y), np.sum(x * back.numpy()), rtol=1e-4)
    with pytest.raises(ValueError, match=r"unfold.*4-D"):
        ops.unfold(rand(3, 4), 2)


# -- core ---------------------------------------------------------------------------------------


def test_map_scan_switch():
    xs = rand(4, 3)
    close(ops.map(lambda r: r * 2, xs), xs * 2)
    out = ops.map(lambda d: {"s": d["a"] + d["b"]}, {"a": xs, "b": xs})
    close(out["s"], 2 * xs)
    carry, ys = ops.scan(lambda c, x: (c + x, c * x), ek.constant(np.float32(0)), xs[:, 0])
    close(carry, xs[:, 0].sum(), atol=1e-6)
    close(ys, np.concatenate([[0], np.cumsum(xs[:, 0])[:-1]]) * xs[:, 0], atol=1e-6)
    carry, ys = ops.scan(lambda c, _: (c + 1, c), 0, length=3, reverse=True)
    close(ys, [2, 1, 0])
    close(ops.associative_scan(lambda a, b: a + b, xs, axis=1), np.cumsum(xs, 1), atol=1e-6)
    close(
        ops.associative_scan(lambda a, b: a + b, xs, reverse=True),
        np.cumsum(xs[::-1], 0)[::-1],
        atol=1e-6,
    )
    branches = [lambda a: a + 1, lambda a: a * 10]
    close(ops.switch(1, branches, ek.constant(2.0)), 20.0)
    close(ops.switch(7, branches, ek.constant(2.0)), 20.0)  # clamped
    with pytest.raises(ValueError, match=r"scan.*length"):
        ops.scan(lambda c, x: (c, x), 0)


def test_custom_gradient_and_casts():
    @ops.custom_gradient
    def clip_grad(x):
        def grad(upstream):
            return upstream * 0.5

        return x * 3.0, grad

    (g,) = grad_of(clip_grad, np.array([1.0, 2.0], "float32"))
    close(g, [0.5, 0.5])
    close(ops.saturate_cast(np.array([-10.0, 300.0]), "uint8"), [0, 255])
    x = rand(3, 4)
    close(ops.get_item(x, (slice(1, None), 2)), x[1:, 2])
    close(ops.view(np.array([1.0], "float32"), "int32"), np.array([1.0], "float32").view("int32"))
    f = ops.vectorize(lambda a, b: a * b + 1)
    close(f(np.arange(3.0), np.ones((2, 1))), np.arange(3.0) * np.ones((2, 1)) + 1)
    with pytest.raises(NotImplementedError, match=r"signature"):
        ops.vectorize(lambda a: a, signature="(n)->()")


def test_symbolic_calls_record_layers():
    x = ek.keras.Input(shape=(5,))
    y = ops.nanmean(ops.cbrt(x), axis=-1)
    assert tuple(y.shape) == (None,)
    model = ek.keras.Model(x, y)
    data = rand(2, 5)
    close(model(data), np.cbrt(data).mean(-1), atol=1e-5)
