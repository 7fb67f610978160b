"""`ek.signal` (TensorFlow's `tf.signal`): FFTs against numpy.fft and closed forms, frames,
windows, STFTs, mel matrices, DCTs and MFCCs against TensorFlow 2.21's outputs, gradients
against central finite differences (float64) and TensorFlow's numbers, errors by type and
message.

Literals marked "TensorFlow 2.21" were printed by TensorFlow 2.21.0 (tensorflow-cpu in a
scratch venv) for the same calls.
"""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

RNG = np.random.default_rng(7)
IAE = ek.errors.InvalidArgumentError


def _grad(f, x):
    """The tape's gradient of the scalar ``f(t)`` at the array ``x``."""
    t = ek.constant(x)
    with ek.GradientTape() as tape:
        tape.watch(t)
        y = f(t)
    return tape.gradient(y, t).numpy()


def _fd(f, x, eps=1e-6):
    """Central differences of the scalar ``f``; for a complex ``x``, dL/d(re) + i dL/d(im)
    (the cotangent convention of TensorFlow and eagerkernel)."""

    def value(a):
        return float(f(ek.constant(a)).numpy())

    g = np.zeros(x.shape, np.complex128 if x.dtype.kind == "c" else x.dtype)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = eps
        g[idx] = (value(x + e) - value(x - e)) / (2 * eps)
        if x.dtype.kind == "c":
            g[idx] += 1j * (value(x + 1j * e) - value(x - 1j * e)) / (2 * eps)
    return g


def _check_grad(f, x, rtol=1e-6, atol=1e-7):
    want = _fd(f, x)
    # central differences lose digits in proportion to the loss's size: atol scales with it
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(_grad(f, x), want, rtol=rtol, atol=atol * scale)


def _weights(shape):
    return ek.constant(RNG.uniform(0.5, 2.0, size=shape))


def _cplx(*shape):
    return RNG.normal(size=shape) + 1j * RNG.normal(size=shape)


# -- complex-to-complex FFTs -----------------------------------------------------------------------

C2C = [
    (ek.signal.fft, ek.signal.ifft, 1, np.fft.fft, np.fft.ifft),
    (ek.signal.fft2d, ek.signal.ifft2d, 2, np.fft.fft2, np.fft.ifft2),
    (
        ek.signal.fft3d,
        ek.signal.ifft3d,
        3,
        lambda a: np.fft.fftn(a, axes=(-3, -2, -1)),
        lambda a: np.fft.ifftn(a, axes=(-3, -2, -1)),
    ),
]


@pytest.mark.parametrize("fwd, inv, rank, np_fwd, np_inv", C2C)
@pytest.mark.parametrize("dtype", [ek.complex64, ek.complex128])
def test_fft_matches_numpy_over_inner_axes(fwd, inv, rank, np_fwd, np_inv, dtype):
    x = _cplx(2, *([3, 4, 5][:rank]))
    t = ek.constant(x, dtype)
    y = fwd(t)
    assert y.dtype == dtype and y.shape == t.shape
    tol = 1e-4 if dtype == ek.complex64 else 1e-12
    np.testing.assert_allclose(y.numpy(), np_fwd(x), rtol=tol, atol=tol * 10)
    np.testing.assert_allclose(inv(t).numpy(), np_inv(x), rtol=tol, atol=tol)
    np.testing.assert_allclose(inv(y).numpy(), x, rtol=tol, atol=tol * 10)


def test_fft_of_python_values_is_complex64_and_parseval_holds():
    y = ek.signal.fft([1.0, 2.0, 3.0, 4.0])
    assert y.dtype == ek.complex64
    np.testing.assert_allclose(y.numpy(), [10, -2 + 2j, -2, -2 - 2j], atol=1e-6)
    x = _cplx(64)
    energy = np.sum(np.abs(ek.signal.fft(ek.constant(x)).numpy()) ** 2) / 64
    np.testing.assert_allclose(energy, np.sum(np.abs(x) ** 2), rtol=1e-12)
    # An impulse has a flat spectrum; a constant, one bin.
    np.testing.assert_allclose(ek.signal.fft(ek.constant([1, 0, 0, 0], ek.complex128)), [1] * 4)
    np.testing.assert_allclose(ek.signal.fft(ek.ones([4], ek.complex128)).numpy(), [4, 0, 0, 0])
    # Empty transforms are empty, as in TensorFlow 2.21.
    assert ek.signal.fft(ek.zeros([0], ek.complex64)).shape == (0,)
    assert ek.signal.ifft2d(ek.zeros([2, 0], ek.complex64)).shape == (2, 0)


@pytest.mark.parametrize("op", [ek.signal.fft, ek.signal.ifft2d, ek.signal.fft3d])
def test_fft_rejects_real_input_as_tensorflow(op):
    with pytest.raises(IAE, match=r"must be complex64 or complex128.*Received: dtype float32"):
        op(ek.zeros([4, 4, 4]))
    with pytest.raises(IAE, match=r"int32"):
        op(ek.zeros([4, 4, 4], ek.int32))


def test_fft_rank_errors():
    with pytest.raises(IAE, match=r"fft: input must have rank of at least 1 but got shape \(\)"):
        ek.signal.fft(ek.constant(1 + 0j))
    with pytest.raises(
        IAE, match=r"fft2d: input must have rank of at least 2 but got shape \(2,\)"
    ):
        ek.signal.fft2d(ek.constant([1j, 2j]))


@pytest.mark.parametrize("fwd, inv, rank, np_fwd, np_inv", C2C)
def test_fft_gradients_match_finite_differences(fwd, inv, rank, np_fwd, np_inv):
    x = _cplx(*([3, 2, 2][:rank]))
    w = _weights(x.shape)
    _check_grad(lambda t: ek.reduce_sum(w * ek.abs(fwd(t)) ** 2), x)
    _check_grad(lambda t: ek.reduce_sum(w * ek.math.imag(inv(t))), x)
    _check_grad(lambda t: ek.reduce_sum(w * ek.math.real(inv(fwd(t) * t))), x)


def test_fft_gradient_matches_tensorflow():
    x = np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j, 0.5 + 0.5j, -2 + 1j])
    w = ek.constant(np.arange(1.0, 6.0))
    g = _grad(lambda t: ek.reduce_sum(ek.abs(ek.signal.fft(t)) ** 2 * w), x)
    # TensorFlow 2.21: tape.gradient of the same loss
    tf = [
        32.59832992351369 + 70.63436060644513j,
        -6.041971952350124 + 12.825315407623066j,
        94.90412108057556 - 46.74188584113772j,
        -9.106866546749657 - 28.222650290032554j,
        -92.35361250498947 + 19.004860117102083j,
    ]
    np.testing.assert_allclose(g, tf, rtol=1e-10)


# -- real-to-complex FFTs --------------------------------------------------------------------------

R2C = [
    (ek.signal.rfft, ek.signal.irfft, 1),
    (ek.signal.rfft2d, ek.signal.irfft2d, 2),
    (ek.signal.rfft3d, ek.signal.irfft3d, 3),
]


@pytest.mark.parametrize("rfft, irfft, rank", R2C)
@pytest.mark.parametrize("dtype", [ek.float32, ek.float64])
def test_rfft_matches_numpy_with_fft_length(rfft, irfft, rank, dtype):
    shape = [5, 4, 6][:rank]
    x = RNG.normal(size=[2, *shape])
    axes = tuple(range(-rank, 0))
    t = ek.constant(x, dtype)
    y = rfft(t)
    complex_dtype = ek.complex64 if dtype == ek.float32 else ek.complex128
    assert y.dtype == complex_dtype
    tol = 1e-4 if dtype == ek.float32 else 1e-12
    np.testing.assert_allclose(y.numpy(), np.fft.rfftn(x, axes=axes), rtol=tol, atol=tol * 10)
    for lengths in ([3, 7, 4][:rank], [8, 2, 9][:rank]):  # cropped and padded axes
        y = rfft(t, lengths)
        want = np.fft.rfftn(x, s=lengths, axes=axes)
        assert y.shape == want.shape
        np.testing.assert_allclose(y.numpy(), want, rtol=tol, atol=tol * 10)
        back = irfft(y, lengths)
        assert back.dtype == dtype and back.shape == (2, *lengths)
        np.testing.assert_allclose(
            back.numpy(), np.fft.irfftn(want, s=lengths, axes=axes), atol=tol
        )
    # irfft's default length is 2 * (n - 1) on the innermost axis
    spectrum = rfft(ek.constant(RNG.normal(size=[*shape[:-1], 8]), dtype))
    assert irfft(spectrum).shape[-1] == 8


def test_rfft_crop_pad_and_irfft_lengths_match_tensorflow():
    # TensorFlow 2.21: rfft([1, 2, 3, 4], [3]) and [6]; irfft([1, 2, 3]) and with [5], [2]
    x = ek.constant([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(ek.signal.rfft(x, [3]).numpy(), [6, -1.5 + 0.8660254j], rtol=1e-6)
    np.testing.assert_allclose(
        ek.signal.rfft(x, [6]).numpy(),
        [10, -3.5 - 4.330127j, 2.5 + 0.8660253j, -2],
        rtol=1e-6,
    )
    s = ek.constant([1.0, 2.0, 3.0], ek.complex64)
    np.testing.assert_allclose(ek.signal.irfft(s).numpy(), [2, -0.5, 0, -0.5], atol=1e-6)
    np.testing.assert_allclose(
        ek.signal.irfft(s, [5]).numpy(),
        [2.2, -0.52360684, -0.0763932, -0.0763932, -0.52360684],
        atol=1e-6,
    )
    np.testing.assert_allclose(ek.signal.irfft(s, [2]).numpy(), [1.5, -0.5], atol=1e-6)
    # The imaginary parts of the DC and Nyquist bins are ignored, as in TensorFlow.
    np.testing.assert_allclose(
        ek.signal.irfft(ek.constant([1 + 1j, 2, 3 + 2j], ek.complex64)).numpy(),
        [2, -0.5, 0, -0.5],
        atol=1e-6,
    )


def test_rfft_errors():
    with pytest.raises(ValueError, match=r"RFFT requires float32 or float64.*complex128"):
        ek.signal.rfft(ek.constant([1j]))
    with pytest.raises(ValueError, match=r"RFFT requires float32 or float64.*int32"):
        ek.signal.rfft(ek.constant([1, 2]))
    with pytest.raises(ValueError, match=r"RFFT2D requires.*float16"):
        ek.signal.rfft2d(ek.zeros([2, 2], ek.float16))
    with pytest.raises(ValueError, match=r"IRFFT requires complex64 or complex128.*float32"):
        ek.signal.irfft(ek.constant([1.0, 2.0]))
    with pytest.raises(IAE, match=r"rfft: fft_length must be positive. Received: \[-1\]"):
        ek.signal.rfft(ek.constant([1.0, 2.0]), [-1])
    with pytest.raises(IAE, match=r"rfft: fft_length must be positive. Received: \[0\]"):
        ek.signal.rfft(ek.constant([1.0, 2.0]), [0])
    with pytest.raises(IAE, match=r"rfft: fft_length must have shape \[1\]"):
        ek.signal.rfft(ek.constant([1.0, 2.0]), [4, 4])
    with pytest.raises(IAE, match=r"irfft2d: fft_length must have shape \[2\]"):
        ek.signal.irfft2d(ek.zeros([2, 2], ek.complex64), 4)
    with pytest.raises(IAE, match=r"irfft: the default fft_length"):
        ek.signal.irfft(ek.constant([1j]))
    with pytest.raises(TypeError, match=r"rfft: fft_length must be"):
        ek.signal.rfft(ek.constant([1.0, 2.0]), [2.5])
    with pytest.raises(IAE, match=r"rfft3d: input must have rank of at least 3"):
        ek.signal.rfft3d(ek.zeros([2, 2]))


@pytest.mark.parametrize("rfft, irfft, rank", R2C)
@pytest.mark.parametrize("lengths", [None, [5, 3, 4], [3, 6, 3], [10, 8, 8]])
def test_rfft_and_irfft_gradients_match_finite_differences(rfft, irfft, rank, lengths):
    shape = [4, 3, 4][:rank]
    fl = None if lengths is None else lengths[:rank]
    x = RNG.normal(size=[2, *shape])
    w = _weights(rfft(ek.constant(x), fl).shape)
    _check_grad(lambda t: ek.reduce_sum(w * ek.abs(rfft(t, fl))), x)
    _check_grad(lambda t: ek.reduce_sum(w * ek.math.imag(rfft(t, fl)) ** 2), x)
    z = _cplx(2, *shape)
    out = irfft(ek.constant(z), fl)
    v = _weights(out.shape)
    _check_grad(lambda t: ek.reduce_sum(v * irfft(t, fl)), z)
    _check_grad(lambda t: ek.reduce_sum(v * irfft(t, fl) ** 2), z)


def test_rfft_gradients_match_tensorflow():
    x = np.array([0.5, -1.0, 2.0, 0.25, 1.5, -0.75])
    g = _grad(lambda t: ek.reduce_sum(ek.abs(ek.signal.rfft(t))), x)
    # TensorFlow 2.21
    tf = [0.8151471686095639, -1.1752428807072217, 3.521467842720123]
    tf = [*tf, 0.8068883583812085, 1.663384988670313, 0.36835452232601307]
    np.testing.assert_allclose(g, tf, rtol=1e-10)
    w = ek.constant([1.0, 2.0, 3.0, 4.0], ek.float64)

    def mixed(t):
        s = ek.signal.rfft(t)
        return ek.reduce_sum(ek.math.real(s) * w) + ek.reduce_sum(ek.math.imag(s) ** 2)

    np.testing.assert_allclose(_grad(mixed, x), [10, -4.25, 4, -2, 1, -2.75], atol=1e-12)
    x2 = np.arange(12.0).reshape(3, 4) ** 1.5 / 7 - 1
    g2 = _grad(lambda t: ek.reduce_sum(ek.abs(ek.signal.rfft2d(t))), x2)
    tf2 = [
        [0.9926057015410847, -1.0087273045505305, -0.4959389954530148, -1.9060564760802055],
        [-1.3649390605828688, 1.123683324198344, 0.35275498161054575, 2.9616398159072785],
        [-1.6110016103021931, 3.6341813902820324, 2.126518983186446, 7.195279250243082],
    ]
    np.testing.assert_allclose(g2, tf2, rtol=1e-10)


def test_irfft_gradient_matches_tensorflow():
    z = np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j, 0.5 + 0.5j, -2 + 1j])
    w = ek.constant(np.arange(1.0, 9.0))
    g = _grad(lambda t: ek.reduce_sum(ek.signal.irfft(t) * w), z)
    # TensorFlow 2.21
    tf = [4.5, -1 + 2.414213562373095j, -1 + 1j, -1 + 0.4142135623730949j, -0.5]
    np.testing.assert_allclose(g, tf, atol=1e-12)


def _second_order(loss):
    """``t -> sum(grad(loss)(t) ** 2)``: a loss whose gradient differentiates ``loss`` twice."""

    def first(t):
        with ek.GradientTape() as inner:
            inner.watch(t)
            y = loss(t)
        g = inner.gradient(y, t)
        return ek.reduce_sum(ek.math.real(g) ** 2 + ek.math.imag(g) ** 2)

    return first


def _power(s):
    # |s|^2 from its parts (ek.abs's complex VJP is not yet right to second order)
    return ek.math.real(s) ** 2 + ek.math.imag(s) ** 2


def test_second_order_gradients_of_the_transforms():
    w = _weights([4])
    _check_grad(
        _second_order(lambda t: ek.reduce_sum(w * _power(ek.signal.rfft(t)) ** 2)),
        RNG.normal(size=6),
        rtol=1e-5,
        atol=1e-6,
    )
    v = _weights([5])
    _check_grad(
        _second_order(lambda t: ek.reduce_sum(v * _power(ek.signal.fft(t)) ** 2)),
        _cplx(5),
        rtol=1e-5,
        atol=1e-6,
    )
    _check_grad(
        _second_order(lambda t: ek.reduce_sum(v * ek.signal.irfft(t, [5]) ** 3)),
        _cplx(3),
        rtol=1e-5,
        atol=1e-6,
    )


# -- shifts --------------------------------------------------------------------------------------


def test_fftshift_and_ifftshift_match_numpy_and_tensorflow():
    x = ek.constant([0.0, 1.0, 2.0, 3.0, 4.0, -5.0, -4.0, -3.0, -2.0, -1.0])
    np.testing.assert_array_equal(ek.signal.fftshift(x).numpy(), np.arange(-5.0, 5.0))
    m = ek.reshape(ek.range(6), [2, 3])
    # TensorFlow 2.21
    np.testing.assert_array_equal(ek.signal.fftshift(m).numpy(), [[5, 3, 4], [2, 0, 1]])
    np.testing.assert_array_equal(ek.signal.fftshift(m, axes=1).numpy(), [[2, 0, 1], [5, 3, 4]])
    np.testing.assert_array_equal(ek.signal.ifftshift(m, axes=[0, 1]), [[4, 5, 3], [1, 2, 0]])
    a = RNG.normal(size=(3, 5, 4))
    for axes in (None, 1, (0, 2), [-1]):
        np.testing.assert_array_equal(ek.signal.fftshift(a, axes).numpy(), np.fft.fftshift(a, axes))
        back = ek.signal.ifftshift(ek.signal.fftshift(a, axes), axes)
        np.testing.assert_array_equal(back.numpy(), a)
    with pytest.raises(IAE, match=r"fftshift: axes 5 is out of range for a tensor of rank 2"):
        ek.signal.fftshift(m, axes=5)
    w = _weights([3, 5])
    _check_grad(lambda t: ek.reduce_sum(w * ek.signal.fftshift(t) ** 2), RNG.normal(size=(3, 5)))


# -- frame and overlap_and_add ---------------------------------------------------------------------


def test_frame_values_match_tensorflow():
    x = ek.range(10.0)
    # TensorFlow 2.21
    np.testing.assert_array_equal(
        ek.signal.frame(x, 4, 3).numpy(), [[0, 1, 2, 3], [3, 4, 5, 6], [6, 7, 8, 9]]
    )
    np.testing.assert_array_equal(
        ek.signal.frame(x, 4, 3, pad_end=True, pad_value=-1).numpy(),
        [[0, 1, 2, 3], [3, 4, 5, 6], [6, 7, 8, 9], [9, -1, -1, -1]],
    )
    assert ek.signal.frame(x, 12, 3).shape == (0, 12)  # no frame fits, as TensorFlow
    assert ek.signal.frame(x, 12, 3, pad_end=True).shape == (4, 12)
    assert ek.signal.frame(x, 0, 1).shape == (11, 0)
    y = ek.signal.frame(ek.reshape(ek.range(12.0), [6, 2]), 3, 2, axis=0)
    np.testing.assert_array_equal(y.numpy(), [[[0, 1], [2, 3], [4, 5]], [[4, 5], [6, 7], [8, 9]]])
    ints = ek.signal.frame(ek.range(5), ek.constant(2), 1)
    assert ints.dtype == ek.int32 and ints.shape == (4, 2)
    # the middle axis of a batch: [2, 9, 3] -> [2, frames, 4, 3]
    b = RNG.normal(size=(2, 9, 3))
    got = ek.signal.frame(b, 4, 2, axis=1).numpy()
    assert got.shape == (2, 3, 4, 3)
    np.testing.assert_array_equal(got[:, 1], b[:, 2:6])


def test_frame_errors():
    x = ek.range(10.0)
    with pytest.raises(IAE, match=r"frame: frame_step must be positive. Received: frame_step=0"):
        ek.signal.frame(x, 4, 0)
    with pytest.raises(IAE, match=r"frame_step=-1"):
        ek.signal.frame(x, 4, -1)
    with pytest.raises(IAE, match=r"frame: frame_length must be non-negative. Received: -1"):
        ek.signal.frame(x, -1, 1)
    with pytest.raises(TypeError, match=r"frame: frame_length must be an integer"):
        ek.signal.frame(x, 2.5, 1)
    with pytest.raises(ValueError, match=r"frame: frame_length must be a scalar. Received: shape"):
        ek.signal.frame(x, [2], 1)
    with pytest.raises(ValueError, match=r"frame: signal must have rank at least 1"):
        ek.signal.frame(ek.constant(1.0), 1, 1)
    with pytest.raises(IAE, match=r"frame: axis 2 is out of range for a signal of rank 1"):
        ek.signal.frame(x, 3, 2, axis=2)
    with pytest.raises(ValueError, match=r"frame: pad_value must be a scalar"):
        ek.signal.frame(x, 3, 2, pad_end=True, pad_value=[0.0, 1.0])


def test_overlap_and_add_matches_tensorflow_and_inverts_frame():
    frames = ek.reshape(ek.range(12.0), [3, 4])
    # TensorFlow 2.21
    np.testing.assert_array_equal(
        ek.signal.overlap_and_add(frames, 2).numpy(), [0, 1, 6, 8, 14, 16, 10, 11]
    )
    np.testing.assert_array_equal(
        ek.signal.overlap_and_add(frames, 5).numpy(),
        [0, 1, 2, 3, 0, 4, 5, 6, 7, 0, 8, 9, 10, 11],
    )
    x = RNG.normal(size=(2, 3, 12))
    np.testing.assert_array_equal(ek.signal.overlap_and_add(ek.signal.frame(x, 4, 4), 4).numpy(), x)
    # With a step of 1, each sample is counted once per frame covering it.
    ones = ek.signal.overlap_and_add(ek.signal.frame(ek.ones([6]), 3, 1), 1).numpy()
    np.testing.assert_array_equal(ones, [1, 2, 3, 3, 2, 1])
    with pytest.raises(ValueError, match=r"overlap_and_add: signal must have rank at least 2"):
        ek.signal.overlap_and_add(ek.range(12.0), 2)
    with pytest.raises(IAE, match=r"overlap_and_add: frame_step must be positive"):
        ek.signal.overlap_and_add(frames, 0)


@pytest.mark.parametrize("length, step, pad_end", [(4, 3, False), (4, 3, True), (3, 5, False)])
def test_frame_and_overlap_and_add_gradients(length, step, pad_end):
    x = RNG.normal(size=(2, 11))
    w = _weights(ek.signal.frame(ek.constant(x), length, step, pad_end=pad_end).shape)
    _check_grad(lambda t: ek.reduce_sum(w * ek.signal.frame(t, length, step, pad_end) ** 2), x)
    y = RNG.normal(size=(2, 4, length))
    v = _weights(ek.signal.overlap_and_add(ek.constant(y), step).shape)
    _check_grad(lambda t: ek.reduce_sum(v * ek.signal.overlap_and_add(t, step) ** 2), y)


# -- windows -----------------------------------------------------------------------------------


def test_hann_and_hamming_windows_closed_form():
    for n in (2, 7, 16):
        k = np.arange(n)
        for periodic in (True, False):
            d = n if (periodic and n % 2 == 0) else n - 1
            hann = ek.signal.hann_window(n, periodic=periodic, dtype=ek.float64)
            np.testing.assert_allclose(hann.numpy(), 0.5 - 0.5 * np.cos(2 * np.pi * k / d))
            ham = ek.signal.hamming_window(n, periodic=periodic, dtype=ek.float64)
            np.testing.assert_allclose(ham.numpy(), 0.54 - 0.46 * np.cos(2 * np.pi * k / d))
    # TensorFlow 2.21: periodic only changes even lengths
    np.testing.assert_allclose(ek.signal.hann_window(4, False, ek.float64), [0, 0.75, 0.75, 0])
    np.testing.assert_allclose(ek.signal.hann_window(5, True).numpy(), [0, 0.5, 1, 0.5, 0])
    np.testing.assert_allclose(ek.signal.hamming_window(4).numpy(), [0.08, 0.54, 1, 0.54])
    assert ek.signal.hann_window(5).dtype == ek.float32
    np.testing.assert_array_equal(ek.signal.hann_window(1).numpy(), [1.0])
    assert ek.signal.hann_window(0).shape == (0,)


def test_other_windows_match_tensorflow():
    # TensorFlow 2.21
    np.testing.assert_allclose(
        ek.signal.kaiser_window(6, beta=3.0, dtype=ek.float64).numpy(),
        [
            0.20488475640125361,
            0.6247462075770619,
            0.9522218569243643,
            0.9522218569243643,
            0.6247462075770619,
            0.20488475640125361,
        ],
        rtol=1e-12,
    )
    np.testing.assert_allclose(ek.signal.kaiser_window(7).numpy(), np.kaiser(7, 12.0), rtol=1e-6)
    np.testing.assert_allclose(
        ek.signal.kaiser_bessel_derived_window(6, dtype=ek.float64).numpy(),
        [
            0.007131024402786981,
            0.7071067811865476,
            0.9999745739222408,
            0.9999745739222408,
            0.7071067811865476,
            0.007131024402786981,
        ],
        rtol=1e-12,
    )
    np.testing.assert_allclose(
        ek.signal.kaiser_bessel_derived_window(5, dtype=ek.float64).numpy(),
        [0.007264149766884068, 0.999973615716017, 0.999973615716017, 0.007264149766884068],
        rtol=1e-12,
    )
    np.testing.assert_allclose(
        ek.signal.vorbis_window(5, dtype=ek.float64).numpy(),
        [0.14943586013690233, 0.8563190506541873, 1.0, 0.8563190506541873, 0.14943586013690247],
        rtol=1e-12,
    )
    # Vorbis is power-complementary: w[n]^2 + w[n + N/2]^2 = 1
    v = ek.signal.vorbis_window(8, dtype=ek.float64).numpy()
    np.testing.assert_allclose(v[:4] ** 2 + v[4:] ** 2, 1.0)


def test_window_errors():
    with pytest.raises(ValueError, match=r"hann_window: dtype must be a floating point type"):
        ek.signal.hann_window(3, dtype=ek.int32)
    with pytest.raises(ValueError, match=r"kaiser_window: dtype must be a floating point type"):
        ek.signal.kaiser_window(3, dtype=ek.int32)
    with pytest.raises(IAE, match=r"hamming_window: window_length must be non-negative"):
        ek.signal.hamming_window(-1)
    with pytest.raises(TypeError, match=r"vorbis_window: window_length must be an integer"):
        ek.signal.vorbis_window(2.5)


# -- stft and inverse_stft -----------------------------------------------------------------------


def test_stft_of_a_pure_tone_peaks_at_its_bin():
    rate, freq = 8000.0, 1000.0
    x = np.sin(2 * np.pi * freq * np.arange(1024) / rate)
    s = ek.signal.stft(ek.constant(x, ek.float32), frame_length=256, frame_step=128)
    assert s.dtype == ek.complex64 and s.shape == (7, 129)
    mag = ek.abs(s).numpy()
    np.testing.assert_array_equal(mag.argmax(axis=-1), [32] * 7)  # 1000 Hz / (8000 / 256)
    # a Hann-windowed tone's peak is A * sum(w) / 2 = 256 / 4
    np.testing.assert_allclose(mag[:, 32], 64.0, rtol=1e-3)
    # The same as framing, windowing and rfft by hand, float64 in, complex128 out.
    xd = ek.constant(x[:300])
    s2 = ek.signal.stft(xd, 100, 50, pad_end=True)
    assert s2.dtype == ek.complex128 and s2.shape == (6, 65)  # fft_length 128
    padded = np.concatenate([x[:300], np.zeros(50)])
    frames = np.stack([padded[i * 50 : i * 50 + 100] for i in range(6)])
    hann = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(100) / 100)
    np.testing.assert_allclose(s2.numpy(), np.fft.rfft(frames * hann, 128), atol=1e-10)
    s3 = ek.signal.stft(xd, 100, 50, fft_length=100, window_fn=None)
    np.testing.assert_allclose(s3.numpy(), np.fft.rfft(frames[:5]), atol=1e-10)


def test_stft_errors():
    with pytest.raises(
        ValueError, match=r"stft: signals must be float32 or float64. Received: int32"
    ):
        ek.signal.stft(ek.range(10), 4, 2)
    with pytest.raises(IAE, match=r"stft: frame_step must be positive"):
        ek.signal.stft(ek.range(10.0), 4, 0)
    with pytest.raises(IAE, match=r"stft: frame_length must be positive"):
        ek.signal.stft(ek.range(10.0), 0, 1)
    with pytest.raises(IAE, match=r"stft: fft_length must be positive"):
        ek.signal.stft(ek.range(10.0), 4, 1, fft_length=-2)
    with pytest.raises(ValueError, match=r"inverse_stft: stfts must be complex64 or complex128"):
        ek.signal.inverse_stft(ek.zeros([2, 3]), 4, 2)
    with pytest.raises(ValueError, match=r"inverse_stft: stfts must have rank at least 2"):
        ek.signal.inverse_stft(ek.zeros([3], ek.complex64), 4, 2)


def test_inverse_stft_reconstructs_the_signal():
    x = RNG.normal(size=(2, 400))
    for length, step, fft_length in ((64, 16, None), (50, 25, 64), (40, 10, 40)):
        s = ek.signal.stft(ek.constant(x), length, step, fft_length=fft_length)
        window = ek.signal.inverse_stft_window_fn(step)
        y = ek.signal.inverse_stft(s, length, step, fft_length=fft_length, window_fn=window)
        assert y.dtype == ek.float64
        n = y.shape[-1]
        np.testing.assert_allclose(y.numpy()[:, length:-length], x[:, length : n - length])


def test_inverse_stft_window_fn_matches_tensorflow():
    # TensorFlow 2.21
    w = ek.signal.inverse_stft_window_fn(3)(8, dtype=ek.float64).numpy()
    tf = [0.0, 0.14042339787513936, 0.5109583235891316, 0.872260419102717]
    tf = [*tf, 0.9588709389996283, 0.872260419102717, 0.5109583235891318, 0.14042339787513947]
    np.testing.assert_allclose(w, tf, rtol=1e-12)
    np.testing.assert_allclose(ek.signal.inverse_stft_window_fn(2)(4, ek.float32), [0, 1, 1, 1])


def test_stft_gradient_matches_finite_differences_and_tensorflow():
    sig = np.sin(np.arange(40) * 0.3) + 0.1 * np.arange(40) / 40
    g = _grad(lambda t: ek.reduce_sum(ek.abs(ek.signal.stft(t, 16, 8, fft_length=16))), sig)
    # TensorFlow 2.21
    tf = [
        0.0, -0.18060201448039198, 0.2900169940109172, -0.1549030995512244, 1.391484112163339,
        0.9132353289079775, 2.7886256163138627, 1.67059900697951, 2.7180121876606638,
        0.9988453915047196, 1.1654983202011449, -0.03225305260867101, -0.603038964005291,
        -0.9321542489076835, -2.215693731796643, -1.7213905733478596, -2.995097827873552,
        -1.638386308637598, -2.0704285699189264, -0.7800628901368539, -0.3675982200779488,
        0.1743085677822665, 1.4737312319810827, 1.206902954548024, 2.8346722655103203,
        1.6319355621825256, 2.6087014929133105, 1.0240378566738517, 1.274787794476865,
        0.5551563260038053, -0.29897476537516166, 0.10401734925658015, -2.1110834903162763,
        -0.7999315430588062, -2.922360934752619, -0.8654386273787804, -1.9115957102775571,
        -0.055313897308427756, -0.46627719402750667, 0.1675963879864112,
    ]  # fmt: skip
    np.testing.assert_allclose(g, tf, rtol=1e-9, atol=1e-12)
    x = RNG.normal(size=(2, 30))
    w = _weights(ek.signal.stft(ek.constant(x), 12, 5, pad_end=True).shape)
    _check_grad(lambda t: ek.reduce_sum(w * ek.abs(ek.signal.stft(t, 12, 5, pad_end=True))), x)
    s = ek.signal.stft(ek.constant(x), 12, 5, fft_length=16).numpy()
    v = _weights(ek.signal.inverse_stft(ek.constant(s), 12, 5, fft_length=16).shape)
    _check_grad(lambda t: ek.reduce_sum(v * ek.signal.inverse_stft(t, 12, 5, fft_length=16)), s)


def test_stft_runs_in_a_traced_function():
    @ek.function
    def spectrogram(x):
        return ek.abs(ek.signal.stft(x, 32, 16))

    x = ek.constant(RNG.normal(size=(2, 256)), ek.float32)
    want = ek.abs(ek.signal.stft(x, 32, 16)).numpy()
    np.testing.assert_allclose(spectrogram(x).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(spectrogram(x * 2.0).numpy(), 2 * want, rtol=1e-5)


def test_signal_ops_in_a_saved_model(tmp_path):
    class Features(ek.Module):
        @ek.function(input_signature=[ek.TensorSpec([None, 64], ek.float32)])
        def __call__(self, x):
            s = ek.signal.stft(x, 16, 8, fft_length=20)
            y = ek.signal.inverse_stft(s, 16, 8, fft_length=20)
            return ek.abs(s), y, ek.signal.dct(ek.signal.frame(x, 5, 3))

    x = ek.constant(RNG.normal(size=(2, 64)), ek.float32)
    module = Features()
    want = module(x)
    ek.saved_model.save(module, str(tmp_path / "features"))
    got = ek.saved_model.load(str(tmp_path / "features"))(x)
    for a, b in zip(want, got):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6, atol=1e-6)


# -- mel filterbanks, DCTs and MFCCs ---------------------------------------------------------------


def test_linear_to_mel_weight_matrix_matches_tensorflow():
    m = ek.signal.linear_to_mel_weight_matrix(4, 9, 8000, 125.0, 3800.0, dtype=ek.float64)
    # TensorFlow 2.21
    tf = [
        [0.0, 0.0, 0.0, 0.0],
        [0.8956538466036579, 0.1043461533963421, 0.0, 0.0],
        [0.0, 0.869078232349569, 0.13092176765043093, 0.0],
        [0.0, 0.10917013810384599, 0.890829861896154, 0.0],
        [0.0, 0.0, 0.5055729250224565, 0.4944270749775434],
        [0.0, 0.0, 0.004823984707504491, 0.9951760152924956],
        [0.0, 0.0, 0.0, 0.5769243394024123],
        [0.0, 0.0, 0.0, 0.2033449273051596],
        [0.0, 0.0, 0.0, 0.0],
    ]
    assert m.dtype == ek.float64
    np.testing.assert_allclose(m.numpy(), tf, rtol=1e-10, atol=1e-12)
    m2 = ek.signal.linear_to_mel_weight_matrix(3, 6, 16000, 300.0, 8000.0)
    tf2 = [
        [0.0, 0.0, 0.0],
        [0.45994487404823303, 0.5400550961494446, 0.0],
        [0.0, 0.48354458808898926, 0.5164554119110107],
        [0.0, 0.0, 0.8479082584381104],
        [0.0, 0.0, 0.37577059864997864],
        [0.0, 0.0, 0.0],
    ]
    assert m2.dtype == ek.float32
    np.testing.assert_allclose(m2.numpy(), tf2, rtol=1e-5, atol=1e-6)
    assert ek.signal.linear_to_mel_weight_matrix().shape == (129, 20)


def test_linear_to_mel_weight_matrix_errors_are_tensorflows():
    mel = ek.signal.linear_to_mel_weight_matrix
    with pytest.raises(ValueError, match=r"lower_edge_hertz 3800.0 >= upper_edge_hertz 125.0"):
        mel(4, 9, 8000, 3800.0, 125.0)
    with pytest.raises(ValueError, match=r"num_mel_bins must be positive. Got: 0"):
        mel(0, 9)
    with pytest.raises(ValueError, match=r"lower_edge_hertz must be non-negative. Got: -1.0"):
        mel(4, 9, 8000, -1.0, 3000.0)
    with pytest.raises(ValueError, match=r"Nyquist frequency \(sample_rate / 2\). Got 5000.0"):
        mel(4, 9, 8000, 125.0, 5000.0)
    with pytest.raises(ValueError, match=r"sample_rate must be positive. Got: 0"):
        mel(4, 9, 0)
    with pytest.raises(ValueError, match=r"dtype must be a floating point type. Got: int32"):
        mel(3, 5, 8000, 125.0, 3800.0, dtype=ek.int32)


DCT_X = [[1.0, -2.0, 3.5, 0.5, 4.0], [0.25, 1.5, -1.0, 2.0, -3.0]]
# TensorFlow 2.21: tf.signal.dct(DCT_X, type=t, norm=norm) (float64)
DCT_TF = {
    (1, None): [
        [9.0, -6.535533905932738, -2.0, 0.5355339059327378, 15.0],
        [2.25, 2.5428932188134525, -0.75, 3.9571067811865475, -11.75],
    ],
    (2, None): [
        [14.0, -8.645265359233287, 2.017220926874316, 1.228571067720929, 12.517220926874316],
        [-0.5, 5.594082103626024, -4.612712429686844, 4.771660656196229, -9.362712429686841],
    ],
    (2, "ortho"): [
        [
            3.1304951684997055,
            -2.7338729511730984,
            0.6379012672678801,
            0.3885082841383107,
            3.9582928104446786,
        ],
        [
            -0.11180339887498948,
            1.769004086544431,
            -1.4586677469179712,
            1.5089315894993724,
            -2.9607496354979506,
        ],
    ],
    (3, None): [
        [5.9188141027360714, -10.937452441089258, 2.0, -4.333057390159164, 12.351695728512354],
        [1.9821746030557739, 3.681265646696384, -3.75, 7.763006263302774, -8.426446513054932],
    ],
    (3, "ortho"): [
        [
            2.002679190660303,
            -3.327740321877947,
            0.7634413615167954,
            -1.2392472290296634,
            4.0369349762303015,
        ],
        [
            0.6595651039504199,
            1.1968648689401078,
            -1.1531076651923624,
            2.4876245855897374,
            -2.631929898912955,
        ],
    ],
    (4, None): [
        [
            5.066564272804031,
            -8.413084618601532,
            5.65685424949238,
            2.836864101698765,
            14.089078597917215,
        ],
        [
            2.6300053892063784,
            1.1022098556447015,
            -1.7677669529663689,
            1.8214936710023961,
            -12.188123969395917,
        ],
    ],
    (4, "ortho"): [
        [
            1.602188301369544,
            -2.6604509542509835,
            1.7888543819998317,
            0.8970951973735641,
            4.455357850255004,
        ],
        [
            0.8316807288409774,
            0.3485493603322654,
            -0.5590169943749475,
            0.576006874394897,
            -3.8542232147783464,
        ],
    ],
}
IDCT_OF = {1: 1, 2: 3, 3: 2, 4: 4}


@pytest.mark.parametrize("dct_type, norm", list(DCT_TF))
def test_dct_and_idct_match_tensorflow(dct_type, norm):
    x = ek.constant(DCT_X, ek.float64)
    got = ek.signal.dct(x, type=dct_type, norm=norm)
    np.testing.assert_allclose(got.numpy(), DCT_TF[dct_type, norm], rtol=1e-12, atol=1e-12)
    inverse = ek.signal.idct(x, type=IDCT_OF[dct_type], norm=norm)
    np.testing.assert_allclose(inverse.numpy(), DCT_TF[dct_type, norm], rtol=1e-12, atol=1e-12)
    if norm == "ortho":
        back = ek.signal.idct(got, type=dct_type, norm="ortho")
        np.testing.assert_allclose(back.numpy(), DCT_X, atol=1e-12)
    f32 = ek.signal.dct(ek.constant(DCT_X), type=dct_type, norm=norm)
    assert f32.dtype == ek.float32
    np.testing.assert_allclose(f32.numpy(), DCT_TF[dct_type, norm], rtol=1e-5, atol=1e-5)
    w = _weights([2, 5])
    _check_grad(
        lambda t: ek.reduce_sum(w * ek.signal.dct(t, type=dct_type, norm=norm) ** 2),
        np.asarray(DCT_X),
    )
    _check_grad(
        lambda t: ek.reduce_sum(w * ek.signal.idct(t, type=dct_type, norm=norm) ** 3),
        np.asarray(DCT_X),
    )


def test_dct_length_n_matches_tensorflow():
    x = ek.constant(DCT_X, ek.float64)
    # TensorFlow 2.21
    np.testing.assert_allclose(
        ek.signal.dct(x, n=3).numpy(),
        [[5.0, -4.330127018922194, 8.5], [1.5, 2.165063509461097, -3.75]],
    )
    tf7 = [
        [
            14.0,
            -1.611353844626031,
            -9.440493027901422,
            4.274125833588116,
            2.5130410659824274,
            3.985647644494382,
            15.453534093883853,
        ],
        [
            -0.5,
            4.568493359965234,
            2.105965650690021,
            -4.810447124845954,
            3.389005768872624,
            0.41948406288542817,
            -12.966959881817397,
        ],
    ]
    np.testing.assert_allclose(ek.signal.dct(x, n=7).numpy(), tf7, rtol=1e-12, atol=1e-12)
    _check_grad(lambda t: ek.reduce_sum(ek.signal.dct(t, n=3) ** 2), np.asarray(DCT_X))


def test_dct_errors_are_tensorflows():
    x = ek.constant(DCT_X)
    with pytest.raises(ValueError, match=r"Types I, II, III and IV"):
        ek.signal.dct(x, type=5)
    with pytest.raises(ValueError, match=r"Normalization is not supported for the Type-I DCT"):
        ek.signal.dct(x, type=1, norm="ortho")
    with pytest.raises(
        ValueError, match=r"Type-I DCT requires the dimension to be greater than one"
    ):
        ek.signal.dct(ek.constant([[1.0]]), type=1)
    with pytest.raises(NotImplementedError, match=r"axis must be -1. Got: 0"):
        ek.signal.dct(x, axis=0)
    with pytest.raises(ValueError, match=r"n should be a positive integer or None"):
        ek.signal.idct(x, n=0)
    with pytest.raises(ValueError, match=r"Unknown normalization. Expected None or 'ortho'"):
        ek.signal.dct(x, norm="forward")
    with pytest.raises(TypeError, match=r"dct: input must be a floating tensor. Received: int32"):
        ek.signal.dct(ek.constant([1, 2]))


def test_mfccs_match_tensorflow_and_have_gradients():
    x = ek.constant(DCT_X, ek.float64)
    # TensorFlow 2.21
    tf = [
        [
            4.427188724235731,
            -2.7338729511730984,
            0.6379012672678801,
            0.3885082841383107,
            3.9582928104446786,
        ],
        [
            -0.15811388300841897,
            1.769004086544431,
            -1.4586677469179712,
            1.5089315894993724,
            -2.9607496354979506,
        ],
    ]
    got = ek.signal.mfccs_from_log_mel_spectrograms(x)
    np.testing.assert_allclose(got.numpy(), tf, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match=r"num_mel_bins must be positive"):
        ek.signal.mfccs_from_log_mel_spectrograms(ek.zeros([2, 0]))
    # The speech pipeline of TensorFlow's guides, end to end, differentiable in the signal.
    mel = ek.signal.linear_to_mel_weight_matrix(8, 33, 8000, 100.0, 3800.0, dtype=ek.float64)

    def pipeline(t):
        spec = ek.abs(ek.signal.stft(t, 64, 32))
        log_mel = ek.math.log(ek.tensordot(spec, mel, 1) + 1e-3)
        return ek.reduce_sum(ek.signal.mfccs_from_log_mel_spectrograms(log_mel)[..., :4])

    _check_grad(pipeline, RNG.normal(size=128), rtol=1e-5, atol=1e-6)


def test_simple_audio_tutorial_spectrogram():
    # TensorFlow's "Simple audio recognition" tutorial: get_spectrogram, then a batch of them.
    def get_spectrogram(waveform):
        spectrogram = ek.signal.stft(waveform, frame_length=255, frame_step=128)
        spectrogram = ek.abs(spectrogram)
        return spectrogram[..., ek.newaxis]

    waveform = ek.constant(RNG.uniform(-1, 1, size=16000), ek.float32)
    spectrogram = get_spectrogram(waveform)
    assert spectrogram.shape == (124, 129, 1) and spectrogram.dtype == ek.float32
    frames = np.stack([waveform.numpy()[i * 128 : i * 128 + 255] for i in range(124)])
    hann = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(255) / 254)  # odd length: symmetric
    want = np.abs(np.fft.rfft(frames * hann, 256))
    np.testing.assert_allclose(spectrogram.numpy()[..., 0], want, rtol=1e-4, atol=1e-4)
    batch = ek.stack([waveform, -waveform])
    assert get_spectrogram(batch).shape == (2, 124, 129, 1)
    # A trainable signal (a Variable) gets gradients through the whole spectrogram.
    v = ek.Variable(waveform)
    with ek.GradientTape() as tape:
        loss = ek.reduce_mean(get_spectrogram(v))
    assert tape.gradient(loss, v).shape == (16000,)


def test_ops_run_on_the_signals_device():
    ek.config.experimental.set_virtual_gpus(2)
    x = RNG.normal(size=(2, 64))
    cases = {
        "stft": lambda t: ek.math.real(ek.signal.stft(t, 16, 8, pad_end=True)),
        "inverse_stft": lambda t: ek.signal.inverse_stft(
            ek.signal.stft(t, 16, 8), 16, 8, window_fn=ek.signal.inverse_stft_window_fn(8)
        ),
        "rfft2d": lambda t: ek.math.imag(ek.signal.rfft2d(t, [3, 40])),
        "irfft": lambda t: ek.signal.irfft(ek.signal.fft(ek.complex(t, t * 0.5)), [9]),
        "frame": lambda t: ek.signal.frame(t, 5, 3, pad_end=True),
        "dct": lambda t: ek.signal.mfccs_from_log_mel_spectrograms(ek.signal.dct(t, type=4)),
        "fftshift": lambda t: ek.signal.fftshift(t),
    }
    for name, f in cases.items():
        want = _grad(lambda t, f=f: ek.reduce_sum(f(t) ** 2), x)
        with ek.device("/gpu:1"):
            t = ek.constant(x)
        with ek.GradientTape() as tape:
            tape.watch(t)
            y = f(t)
            loss = ek.reduce_sum(y**2)
        g = tape.gradient(loss, t)
        assert y.device.endswith("GPU:1") and g.device.endswith("GPU:1"), name
        np.testing.assert_allclose(g.numpy(), want, rtol=1e-10, err_msg=name)


MDCT_X = np.sin(np.arange(16) * 0.7) + np.arange(16) / 16


def test_mdct_and_inverse_mdct_match_tensorflow():
    x = ek.constant(MDCT_X)
    m = ek.signal.mdct(x, 8)
    # TensorFlow 2.21: tf.signal.mdct(x, 8), the same with pad_end/ortho/no window, and
    # inverse_mdct of m (vorbis; then KBD with ortho)
    tf = [
        [-1.8167188652421444, 3.4393667132694565, -0.11891760631547055, 0.25312542243638925],
        [-1.3182771752626241, -3.461951958019139, -0.3672235947610516, -0.3315427283407659],
        [-7.302615959718677, 2.824029218027312, -0.3199950920719792, 0.20113770719783688],
    ]
    np.testing.assert_allclose(m.numpy(), tf, rtol=1e-12, atol=1e-12)
    padded = ek.signal.mdct(x[:14], 8, pad_end=True, norm="ortho", window_fn=None)
    tf_padded = [
        [-0.08560678018537748, 0.8536756686105028, -0.10212807426050993, -0.175535048747135],
        [-1.196244617645556, -1.3045799817450443, 0.5410700160417933, 0.4924633333898821],
        [-1.7924970599247054, 0.7673756128072567, 0.00415906109036659, -0.07126844876692585],
        [0.5561156390866321, -1.101224677929556, 0.6269656846552408, 0.11216010744430259],
    ]
    np.testing.assert_allclose(padded.numpy(), tf_padded, rtol=1e-12, atol=1e-12)
    tf_inverse = [
        -0.06266695495369287, -0.3043845743875388, 0.5778239610112738, 1.0469583605044883,
        0.584988150155905, -0.03828322768961989, -0.4965757724135877, -0.5449526126243324,
        -0.1312666378723213, 0.5793139004843499, 1.2819865987187888, 1.6756682338770001,
        1.6023181207139674, 1.0954847750889694, 0.5770765657241042, 0.09590868298132083,
    ]  # fmt: skip
    np.testing.assert_allclose(ek.signal.inverse_mdct(m).numpy(), tf_inverse, rtol=1e-12)
    kbd = ek.signal.inverse_mdct(
        m, window_fn=ek.signal.kaiser_bessel_derived_window, norm="ortho"
    ).numpy()
    tf_kbd = [
        -0.0180123533921126, -0.7171046698780068, 1.7023527498112383, 2.9664907217304073,
        1.56945888377394, -0.2287370838922272, -1.3900015009403308, -1.6279664304814045,
        -0.11629195039278399, 1.9444816059630858, 3.4715623515620315, 4.752603061924696,
        4.540067702471067, 3.2274561892262317, 1.3595442574269265, 0.0275670182556052,
    ]  # fmt: skip
    np.testing.assert_allclose(kbd, tf_kbd, rtol=1e-12)


@pytest.mark.parametrize("norm", [None, "ortho"])
@pytest.mark.parametrize("window", ["vorbis", "kbd", None])
def test_mdct_reconstructs_and_has_gradients(norm, window):
    window_fn = {
        "vorbis": ek.signal.vorbis_window,
        "kbd": ek.signal.kaiser_bessel_derived_window,
        None: None,
    }[window]
    x = RNG.normal(size=(2, 48))
    m = ek.signal.mdct(ek.constant(x), 12, window_fn=window_fn, norm=norm)
    assert m.shape == (2, 7, 6)
    y = ek.signal.inverse_mdct(m, window_fn=window_fn, norm=norm).numpy()
    # Princen-Bradley: every sample covered by two frames comes back (not the first/last hop)
    np.testing.assert_allclose(y[:, 6:-6], x[:, 6:-6], atol=1e-10)
    x2 = x[:, :24]
    w2 = _weights(ek.signal.mdct(ek.constant(x2), 12).shape)
    _check_grad(
        lambda t: ek.reduce_sum(w2 * ek.signal.mdct(t, 12, window_fn=window_fn, norm=norm) ** 2),
        x2,
    )
    v = _weights([2, 24])
    _check_grad(
        lambda t: ek.reduce_sum(v * ek.signal.inverse_mdct(t, window_fn=window_fn, norm=norm)),
        RNG.normal(size=(2, 3, 6)),
    )


def test_mdct_errors():
    x = ek.constant(MDCT_X)
    with pytest.raises(ValueError, match=r"mdct: The frame length must be a multiple of 4"):
        ek.signal.mdct(x, 6)
    with pytest.raises(ValueError, match=r"mdct: Unknown normalization"):
        ek.signal.mdct(x, 8, norm="x")
    with pytest.raises(ValueError, match=r"inverse_mdct: Unknown normalization"):
        ek.signal.inverse_mdct(ek.zeros([3, 4]), norm="x")
    with pytest.raises(ValueError, match=r"inverse_mdct: the last dimension of mdcts must be even"):
        ek.signal.inverse_mdct(ek.zeros([3, 5]))
    with pytest.raises(ValueError, match=r"mdct: signals must be float32 or float64"):
        ek.signal.mdct(ek.range(16), 8)


def test_tensorflow_1_names():
    import eagerkernel.compat.v1 as tf1

    # TensorFlow 2.21: tf.compat.v1.fft is tf.signal.fft; tf.compat.v1.spectral holds the FFTs
    # and DCTs
    assert tf1.fft is ek.signal.fft and tf1.ifft3d is ek.signal.ifft3d
    assert tf1.spectral.rfft is ek.signal.rfft and tf1.spectral.idct is ek.signal.idct
    assert tf1.spectral is tf1.spectral
    assert tf1.signal is ek.signal
    assert {"fft", "spectral"} <= set(dir(tf1))


# -- fftnd and friends (TensorFlow 2.21 has no CPU kernel for them: NumPy's fftn semantics,
# which their documentation follows) -------------------------------------------------------

ND_CASES = [
    (None, None, None),
    ([0, 2], None, "ortho"),
    ([2, 0], [3, 6], "forward"),
    ([-1], [7], None),
    ([1, 2], [2, 5], "backward"),
    ([0, 1, 2], [3, 3, 3], None),
]


@pytest.mark.parametrize("axes, lengths, norm", ND_CASES)
def test_fftnd_family_matches_numpy(axes, lengths, norm):
    x = _cplx(2, 3, 4)
    pairs = [
        (ek.signal.fftnd, np.fft.fftn, x),
        (ek.signal.ifftnd, np.fft.ifftn, x),
        (ek.signal.rfftnd, np.fft.rfftn, x.real),
        (ek.signal.irfftnd, np.fft.irfftn, x),
    ]
    for ours, numpys, a in pairs:
        got = ours(ek.constant(a), lengths, axes, norm)
        want = numpys(a, lengths, axes, norm)
        assert got.shape == want.shape, ours.__name__
        np.testing.assert_allclose(got.numpy(), want, atol=1e-12, err_msg=ours.__name__)
    assert ek.signal.rfftnd(ek.constant(x.real, ek.float32)).dtype == ek.complex64
    assert ek.signal.irfftnd(ek.constant(x, ek.complex64)).dtype == ek.float32
    # TensorFlow's names for the ops of any rank agree with the 1-3-D ones
    np.testing.assert_allclose(
        ek.signal.fftnd(x, axes=[1, 2]).numpy(), ek.signal.fft2d(x).numpy(), atol=1e-12
    )


@pytest.mark.parametrize("axes, lengths, norm", ND_CASES[1:4])
def test_fftnd_family_gradients(axes, lengths, norm):
    x = _cplx(2, 3, 4)
    for op, a in (
        (ek.signal.fftnd, x),
        (ek.signal.ifftnd, x),
        (ek.signal.rfftnd, x.real),
        (ek.signal.irfftnd, x),
    ):
        w = _weights(op(ek.constant(a), lengths, axes, norm).shape)
        _check_grad(lambda t, op=op, w=w: ek.reduce_sum(w * _power(op(t, lengths, axes, norm))), a)
    # four inner axes: the FFTND primitive
    y = _cplx(2, 2, 2, 3)
    v = _weights([2, 2, 2, 3])
    _check_grad(lambda t: ek.reduce_sum(v * _power(ek.signal.fftnd(t))), y)
    _check_grad(lambda t: ek.reduce_sum(v * ek.signal.irfftnd(t, [2, 2, 2, 3])), y)


def test_fftnd_errors():
    x = ek.zeros([2, 3], ek.complex64)
    with pytest.raises(IAE, match=r"fftnd: input must be complex64 or complex128"):
        ek.signal.fftnd(ek.zeros([2, 3]))
    with pytest.raises(ValueError, match=r"RFFTND requires float32 or float64"):
        ek.signal.rfftnd(x)
    with pytest.raises(ValueError, match=r"IRFFTND requires complex64 or complex128"):
        ek.signal.irfftnd(ek.zeros([2, 3]))
    with pytest.raises(IAE, match=r"fftnd: axes 2 is out of range for a tensor of rank 2"):
        ek.signal.fftnd(x, axes=[2])
    with pytest.raises(IAE, match=r"ifftnd: axes must not repeat an axis"):
        ek.signal.ifftnd(x, axes=[1, -1])
    with pytest.raises(IAE, match=r"fftnd: fft_length must have one length per axis \(2\)"):
        ek.signal.fftnd(x, fft_length=[4])
    with pytest.raises(IAE, match=r"rfftnd: fft_length must be positive"):
        ek.signal.rfftnd(ek.zeros([2, 3]), fft_length=[0], axes=[0])
    with pytest.raises(ValueError, match=r"irfftnd: norm must be 'backward', 'forward' or"):
        ek.signal.irfftnd(x, norm="none")
