"""`ek.math`'s special functions (erfinv, ndtri, the Bessel functions I0/I1, igamma/igammac,
betainc, nextafter, cumulative_logsumexp) and the dtype conversions saturate_cast, bitcast and
realdiv: values as TensorFlow 2.21 printed them for the same calls, gradients against finite
differences (float64), and errors by type and message."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients

pytest.importorskip("scipy")


@pytest.mark.parametrize(
    "fn, args, want",
    [
        (ek.math.erfinv, ([-0.5, 0.0, 0.9],), [-0.47693628, 0.0, 1.1630871]),
        (ek.math.ndtri, ([0.1, 0.5, 0.975],), [-1.2815516, 0.0, 1.9599644]),
        (ek.math.bessel_i0, ([0.5, 3.0],), [1.0634834, 4.8807926]),
        (ek.math.bessel_i0e, ([0.5, 3.0],), [0.64503527, 0.24300036]),
        (ek.math.bessel_i1, ([0.5, 3.0],), [0.2578943, 3.9533703]),
        (ek.math.bessel_i1e, ([0.5, -3.0],), [0.1564208, -0.19682671]),
        (ek.math.igamma, ([1.0, 2.0], [0.5, 3.0]), [0.39346933, 0.8008517]),
        (ek.math.igammac, ([1.0, 2.0], [0.5, 3.0]), [0.60653067, 0.19914827]),
        (ek.math.betainc, ([1.0], [2.0], [0.3]), [0.51000005]),
    ],
)
def test_values_are_tensorflows(fn, args, want):
    got = fn(*(ek.constant(a) for a in args))
    assert got.dtype == ek.float32
    np.testing.assert_allclose(got.numpy(), want, rtol=2e-6, atol=1e-7)


def test_cumulative_logsumexp_is_tensorflows_and_does_not_overflow():
    x = ek.constant([1.0, 2.0, 3.0])
    np.testing.assert_allclose(
        ek.math.cumulative_logsumexp(x, exclusive=True, reverse=True).numpy(),
        [3.3132617, 3.0, -np.inf],
        rtol=1e-6,
    )
    big = ek.constant([1000.0, 1000.0, -1000.0])
    np.testing.assert_allclose(
        ek.math.cumulative_logsumexp(big).numpy(), [1000.0, 1000.6931, 1000.6931], rtol=1e-6
    )
    m = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    got = ek.math.cumulative_logsumexp(ek.constant(m), axis=1).numpy()
    np.testing.assert_allclose(got, np.logaddexp.accumulate(m, axis=1), rtol=1e-6)
    # TF 2.21's gradient of sum(cumulative_logsumexp(v) * [1, -2, 3]) at v = [1, 2, 3]
    v = ek.constant([1.0, 2.0, 3.0])
    with ek.GradientTape() as tape:
        tape.watch(v)
        y = ek.reduce_sum(ek.math.cumulative_logsumexp(v) * ek.constant([1.0, -2.0, 3.0]))
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [0.73220885, -0.72793174, 1.9957225])
    with pytest.raises(TypeError):
        ek.math.cumulative_logsumexp(ek.constant([1, 2]))


@pytest.mark.parametrize(
    "fn, x",
    [
        (ek.math.erfinv, np.array([-0.6, 0.1, 0.8])),
        (ek.math.ndtri, np.array([0.05, 0.4, 0.9])),
        (ek.math.bessel_i0, np.array([-1.5, 0.3, 2.0])),
        (ek.math.bessel_i0e, np.array([-1.5, 0.3, 2.0])),
        (ek.math.bessel_i1, np.array([-1.5, 0.3, 2.0])),
        (ek.math.bessel_i1e, np.array([-1.5, 0.3, 2.0])),
        # (the exclusive sum's first element is -inf: finite differences need it left out)
        (lambda v: ek.math.cumulative_logsumexp(v, exclusive=True)[1:], np.array([0.5, -1.0, 2.0])),
        (lambda v: ek.math.cumulative_logsumexp(v, reverse=True), np.array([0.5, -1.0, 2.0])),
    ],
)
def test_gradients_match_finite_differences(fn, x):
    check_gradients(lambda v: fn(v), x, rtol=1e-5, atol=1e-7)
    check_gradients(lambda v: fn(v), x, order=2, rtol=1e-4, atol=1e-6)


def test_incomplete_functions_differentiate_in_x_only():
    a, x = np.array([1.5, 3.0]), np.array([0.7, 2.5])
    check_gradients(lambda av, xv: ek.math.igamma(av, xv), a, x, wrt=[1])
    check_gradients(lambda av, xv: ek.math.igammac(av, xv), a, x, wrt=[1])
    b, u = np.array([2.0, 0.5]), np.array([0.3, 0.6])
    check_gradients(lambda av, bv, uv: ek.math.betainc(av, bv, uv), a, b, u, wrt=[2])
    av, bv, uv = (ek.constant(v) for v in (a, b, u))
    with ek.GradientTape(persistent=True) as tape:
        tape.watch([av, bv, uv])
        y = ek.math.betainc(av, bv, uv)
        z = ek.math.igamma(av, uv)
    assert tape.gradient(y, [av, bv]) == [None, None]  # TF registers none for a and b
    with pytest.raises(LookupError, match="Igamma: no gradient with respect to a"):
        tape.gradient(z, av)


def test_bessel_i1_derivative_at_zero_is_one_half():
    # I1'(0) = I0(0) - lim I1(x)/x = 1 - 1/2 (TensorFlow imputes 1 here; I1e: 1/2 in both)
    x = ek.constant(0.0)
    for fn in (ek.math.bessel_i1, ek.math.bessel_i1e):
        with ek.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        assert float(tape.gradient(y, x)) == 0.5


def test_nextafter_and_its_errors():
    got = ek.math.nextafter(ek.constant([1.0, 1.0]), ek.constant([2.0, 0.0])).numpy()
    np.testing.assert_array_equal(got, np.nextafter(np.float32([1, 1]), np.float32([2, 0])))
    with pytest.raises(TypeError):
        ek.math.nextafter(ek.constant([1, 2]), ek.constant([2, 3]))
    with pytest.raises(TypeError):
        ek.math.igamma(ek.constant([1.0]), ek.constant([1.0], ek.float64))
    with pytest.raises(ek.errors.InvalidArgumentError, match="one shape"):
        ek.math.betainc(ek.constant([1.0, 2.0]), ek.constant([2.0]), ek.constant([0.3]))


def test_saturate_cast_clamps_as_tensorflow():
    f = ek.saturate_cast
    got = f(ek.constant([-1.0, 256.0, 300.0, 7.9]), ek.uint8).numpy()
    np.testing.assert_array_equal(got, [0, 255, 255, 7])
    # the largest float32 below 2**31, not an overflowed cast
    np.testing.assert_array_equal(
        f(ek.constant([3e9, -3e9]), ek.int32).numpy(), [2147483520, -2147483648]
    )
    np.testing.assert_array_equal(
        f(ek.constant([70000, -5], ek.int32), ek.int16).numpy(), [32767, -5]
    )
    assert f(ek.constant([1e300], ek.float64), ek.float32).numpy()[0] == np.finfo(np.float32).max
    assert ek.dtypes.saturate_cast is f
    x = ek.constant([0.5, 300.0])
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.reduce_sum(f(x, ek.float16) * 2.0)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 2.0])  # inside the range
    with pytest.raises(TypeError, match="real numeric dtypes"):
        f(ek.constant(["a"]), ek.int32)


def test_bitcast_reads_the_bytes_as_tensorflow():
    got = ek.bitcast(ek.constant([1.0, -2.0]), ek.uint8).numpy()
    assert got.tolist() == [[0, 0, 128, 63], [0, 0, 0, 192]]
    back = ek.bitcast(ek.constant([[0, 0, 128, 63]], ek.uint8), ek.float32).numpy()
    np.testing.assert_array_equal(back, [1.0])
    assert ek.bitcast(ek.constant(1.0), ek.int32).numpy() == 1065353216
    with pytest.raises(ek.errors.InvalidArgumentError, match="last dimension of shape"):
        ek.bitcast(ek.constant([1, 2, 3], ek.uint8), ek.float32)
    with pytest.raises(TypeError, match="numeric dtypes only"):
        ek.bitcast(ek.constant([True]), ek.uint8)


def test_realdiv_divides_floats_and_refuses_integers_as_tensorflow():
    np.testing.assert_allclose(ek.realdiv(ek.constant([7.0]), ek.constant([2.0])).numpy(), [3.5])
    with pytest.raises(ek.errors.NotFoundError, match="RealDiv has no kernel for int32"):
        ek.realdiv(ek.constant([7, -7]), ek.constant([2, 2]))
