"""Windows, short-time Fourier transforms, mel filterbanks, DCTs and MFCCs (follow
`tf.signal`'s: tensorflow/python/ops/signal/window_ops.py, spectral_ops.py, mel_ops.py,
dct_ops.py, mfcc_ops.py).

Everything here is built of the differentiable ops of `signal_ops` and the array/math ops, so
gradients flow through `stft` (frame, window product, RFFT), `inverse_stft`, `dct` and
`mfccs_from_log_mel_spectrograms`. Windows and the mel matrix are constants computed in float64
with NumPy and cast to the requested dtype.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.dispatch import copy_to_device
from ..core.tensor import Tensor, to_tensor
from ._core import tensor
from .array_ops import pad, reshape, tile
from .elementwise import equal, where
from .linalg import matmul
from .reduction import reduce_sum
from .signal_ops import (
    constant_like,
    fit_to,
    frame,
    invalid,
    irfft,
    overlap_and_add,
    positive_step,
    rfft,
    scalar_int,
)

__all__ = [
    "dct",
    "hamming_window",
    "hann_window",
    "idct",
    "inverse_mdct",
    "inverse_stft",
    "inverse_stft_window_fn",
    "kaiser_bessel_derived_window",
    "kaiser_window",
    "linear_to_mel_weight_matrix",
    "mdct",
    "mfccs_from_log_mel_spectrograms",
    "stft",
    "vorbis_window",
]


# -- windows -------------------------------------------------------------------------------------


def _window_args(window_length, dtype, op: str) -> tuple[int, dtypes.DType]:
    dt = dtypes.as_dtype(dtype)
    if not dt.is_floating:
        raise ValueError(f"{op}: dtype must be a floating point type. Found {dt.name}.")
    n = scalar_int(window_length, op, "window_length")
    if n < 0:
        raise invalid(op, f"window_length must be non-negative. Received: {n}.")
    return n, dt


def _window(values: np.ndarray, dt: dtypes.DType) -> Tensor:
    return to_tensor(np.asarray(values).astype(dt.as_numpy_dtype))


def _raised_cosine(window_length, periodic, dtype, a: float, b: float, op: str) -> Tensor:
    n, dt = _window_args(window_length, dtype, op)
    if isinstance(periodic, Tensor):
        periodic = periodic.numpy()
    if np.ndim(periodic) != 0:
        raise ValueError(f"{op}: periodic must be a scalar bool. Received: {periodic!r:.60}.")
    if n == 1:
        return _window(np.ones(1), dt)
    # As TensorFlow: ``periodic`` only changes even lengths (an odd-length window is symmetric).
    denominator = n - 1 + (1 if periodic and n % 2 == 0 else 0)
    return _window(a - b * np.cos(2 * np.pi * np.arange(n) / denominator), dt)


def hann_window(window_length, periodic=True, dtype=dtypes.float32, name=None) -> Tensor:
    """The Hann window ``0.5 - 0.5 cos(2 pi n / d)`` (follows `tf.signal.hann_window`).

    ``d`` is ``window_length`` for a periodic window of even length (for spectral analysis)
    and ``window_length - 1`` otherwise (a symmetric window; TensorFlow's ``periodic`` only
    affects even lengths).

    Args:
        window_length: a non-negative int.
        periodic: see above.
        dtype: a floating dtype.

    Returns:
        ``[window_length]`` of ``dtype``; ``[1.]`` for length 1.

    Raises:
        ValueError: a non-floating dtype; non-scalar arguments.
        InvalidArgumentError: a negative length. TypeError: a non-integer length.

    >>> ek.signal.hann_window(4).numpy()
    array([0. , 0.5, 1. , 0.5], dtype=float32)
    """
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5, "hann_window")


def hamming_window(window_length, periodic=True, dtype=dtypes.float32, name=None) -> Tensor:
    """The Hamming window ``0.54 - 0.46 cos(2 pi n / d)``, ``d`` as for `hann_window`
    (follows `tf.signal.hamming_window`).

    Raises:
        ValueError: a non-floating dtype; non-scalar arguments.
        InvalidArgumentError: a negative length. TypeError: a non-integer length.

    >>> ek.signal.hamming_window(3).numpy()
    array([0.08, 1.  , 0.08], dtype=float32)
    """
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46, "hamming_window")


def kaiser_window(window_length, beta=12.0, dtype=dtypes.float32, name=None) -> Tensor:
    """The Kaiser window ``I0(beta sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta)`` (follows
    `tf.signal.kaiser_window`, NumPy's `numpy.kaiser`).

    Raises:
        ValueError: a non-floating dtype. InvalidArgumentError: a negative length.

    >>> ek.signal.kaiser_window(3, beta=0.0).numpy()
    array([1., 1., 1.], dtype=float32)
    """
    n, dt = _window_args(window_length, dtype, "kaiser_window")
    return _window(np.kaiser(n, float(beta)) if n > 1 else np.ones(n), dt)


def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=dtypes.float32, name=None):
    """The Kaiser-Bessel-derived window: ``sqrt`` of the normalized running sum of a Kaiser
    window of ``window_length // 2 + 1``, mirrored (follows
    `tf.signal.kaiser_bessel_derived_window`; as TensorFlow's, an odd length gives
    ``window_length - 1`` samples).

    Raises:
        ValueError: a non-floating dtype. InvalidArgumentError: a negative length.

    >>> ek.signal.kaiser_bessel_derived_window(2).numpy()
    array([1., 1.], dtype=float32)
    """
    n, dt = _window_args(window_length, dtype, "kaiser_bessel_derived_window")
    half = n // 2
    k = np.kaiser(half + 1, float(beta)) if half else np.ones(1)
    c = np.cumsum(k)
    w = np.sqrt(c[:-1] / c[-1])
    return _window(np.concatenate([w, w[::-1]]), dt)


def vorbis_window(window_length, dtype=dtypes.float32, name=None) -> Tensor:
    """The Vorbis power-complementary window ``sin(pi/2 sin^2(pi (n + 1/2) / N))`` (follows
    `tf.signal.vorbis_window`).

    Raises:
        ValueError: a non-floating dtype. InvalidArgumentError: a negative length.

    >>> ek.signal.vorbis_window(2).numpy()
    array([0.70710677, 0.70710677], dtype=float32)
    """
    n, dt = _window_args(window_length, dtype, "vorbis_window")
    return _window(np.sin(np.pi / 2 * np.sin(np.pi * (np.arange(n) + 0.5) / max(n, 1)) ** 2), dt)


# -- short-time Fourier transforms --------------------------------------------------------------


def _on_device_of(window, like: Tensor) -> Tensor:
    """The window on the signal's device (windows are made on the current device, as
    TensorFlow's constants; the copy is recorded, so a trainable window gets gradients)."""
    return copy_to_device(tensor(window, "window_fn"), like._device)


def _enclosing_power_of_two(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def _frame_args(frame_length, frame_step, fft_length, op: str) -> tuple[int, int, int]:
    length = scalar_int(frame_length, op, "frame_length")
    if length < 1:
        raise invalid(op, f"frame_length must be positive. Received: {length}.")
    step = positive_step(frame_step, op)
    if fft_length is None:
        return length, step, _enclosing_power_of_two(length)
    n = scalar_int(fft_length, op, "fft_length")
    if n < 1:
        raise invalid(op, f"fft_length must be positive. Received: {n}.")
    return length, step, n


def stft(
    signals,
    frame_length,
    frame_step,
    fft_length=None,
    window_fn=hann_window,
    pad_end=False,
    name=None,
) -> Tensor:
    """The short-time Fourier transform: `frame`, times the window, `rfft` of each frame
    (follows `tf.signal.stft`).

    Args:
        signals: ``[..., samples]`` float32 or float64.
        frame_length: the window length in samples, a positive int.
        frame_step: the hop in samples, a positive int.
        fft_length: the FFT size (frames are cropped or zero-padded to it); default the
            smallest power of two >= frame_length.
        window_fn: ``window_fn(frame_length, dtype=...)`` returning ``[frame_length]``;
            None for no window (rectangular).
        pad_end: pad the signal's end with zeros so every frame that starts inside it is kept.

    Returns:
        ``[..., frames, fft_length // 2 + 1]`` complex64 (complex128 for float64).

    Raises:
        ValueError: signals that are not float32/float64 or are scalars; non-scalar lengths.
        InvalidArgumentError: frame_length, frame_step or fft_length not positive.

    >>> x = ek.sin(2 * 3.14159265 * 1000.0 * ek.range(256.0) / 8000.0)
    >>> s = ek.abs(ek.signal.stft(x, frame_length=64, frame_step=32))
    >>> s.shape, int(ek.argmax(s[0]))  # 1 kHz at 8 kHz, 64-point FFT: bin 1000 / 125 = 8
    (TensorShape([7, 33]), 8)
    """
    op = "stft"
    x = tensor(signals, op)
    if x._value.dtype not in (np.float32, np.float64):
        raise ValueError(f"{op}: signals must be float32 or float64. Received: {x.dtype.name}.")
    if x.ndim < 1:
        raise ValueError(f"{op}: signals must have rank at least 1. Received: a scalar.")
    length, step, n = _frame_args(frame_length, frame_step, fft_length, op)
    frames = frame(x, length, step, pad_end=pad_end)
    if window_fn is not None:
        frames = frames * _on_device_of(window_fn(length, dtype=x.dtype), frames)
    return rfft(frames, [n])


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window for `inverse_stft` that undoes ``forward_window_fn``'s weighting: the forward
    window divided by the sum of its squares over the frames overlapping each sample (follows
    `tf.signal.inverse_stft_window_fn`).

    Returns:
        A callable ``(frame_length, dtype) -> [frame_length] Tensor``.

    Raises:
        InvalidArgumentError: ``frame_step <= 0`` (when the returned callable runs, as in
        TensorFlow).

    >>> w = ek.signal.inverse_stft_window_fn(2)(4, dtype=ek.float32)
    >>> w.numpy()  # Hann [0, .5, 1, .5] over its squares summed per phase of 2: [1, .25 + .25]
    array([0., 1., 1., 1.], dtype=float32)
    """

    def inverse_window(frame_length, dtype):
        op = "inverse_stft_window_fn"
        step = positive_step(frame_step, op)
        length = scalar_int(frame_length, op, "frame_length")
        forward = tensor(forward_window_fn(length, dtype=dtype), op)
        overlaps = -(-length // step)
        denom = pad(forward * forward, [[0, overlaps * step - length]])
        denom = reduce_sum(reshape(denom, [overlaps, step]), 0)
        denom = tile(denom, [overlaps])[:length]
        # 0 where no frame covers a sample (denom 0), without dividing by 0 (finite gradients)
        uncovered = equal(denom, constant_like(0, denom))
        safe = where(uncovered, constant_like(1, denom) + denom * 0, denom)
        return where(uncovered, forward * 0, forward / safe)

    return inverse_window


def inverse_stft(
    stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window, name=None
) -> Tensor:
    """The inverse of `stft`: `irfft` of each frame, cropped or zero-padded to frame_length,
    times ``window_fn``'s window, then `overlap_and_add` (follows `tf.signal.inverse_stft`).
    For perfect reconstruction pass ``window_fn=inverse_stft_window_fn(frame_step,
    forward_window_fn=...)``.

    Args:
        stfts: ``[..., frames, fft_length // 2 + 1]`` complex64 or complex128.
        frame_length, frame_step, fft_length: as given to `stft`.
        window_fn: as for `stft`; None for no window.

    Returns:
        ``[..., (frames - 1) * frame_step + frame_length]`` float32 (float64 for complex128).

    Raises:
        ValueError: stfts that are not complex or of rank below 2.
        InvalidArgumentError: frame_length, frame_step or fft_length not positive.

    >>> x = ek.random.normal([64], seed=1)
    >>> s = ek.signal.stft(x, 16, 4)
    >>> y = ek.signal.inverse_stft(s, 16, 4, window_fn=ek.signal.inverse_stft_window_fn(4))
    >>> bool(ek.reduce_max(ek.abs(y[12:-12] - x[12:52])) < 1e-5)
    True
    """
    op = "inverse_stft"
    s = tensor(stfts, op, np.complex64)
    if s._value.dtype.kind != "c":
        raise ValueError(f"{op}: stfts must be complex64 or complex128. Received: {s.dtype.name}.")
    if s.ndim < 2:
        raise ValueError(
            f"{op}: stfts must have rank at least 2 ([..., frames, bins]). Received: shape "
            f"{tuple(s._value.shape)}."
        )
    length, step, n = _frame_args(frame_length, frame_step, fft_length, op)
    frames = fit_to(irfft(s, [n]), (length,))
    if window_fn is not None:
        frames = frames * _on_device_of(window_fn(length, dtype=frames.dtype), frames)
    return overlap_and_add(frames, step)


# -- mel filterbanks -----------------------------------------------------------------------------

_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(hertz):
    return _MEL_HIGH_FREQUENCY_Q * np.log1p(
        np.asarray(hertz, np.float64) / _MEL_BREAK_FREQUENCY_HERTZ
    )


def _python_number(value, op: str, arg: str):
    if isinstance(value, Tensor):
        value = value.numpy()
    if np.ndim(value) != 0:
        raise ValueError(f"{op}: {arg} must be a scalar. Received: {value!r:.60}.")
    return value.item() if isinstance(value, (np.ndarray, np.generic)) else value


def linear_to_mel_weight_matrix(
    num_mel_bins=20,
    num_spectrogram_bins=129,
    sample_rate=8000,
    lower_edge_hertz=125.0,
    upper_edge_hertz=3800.0,
    dtype=dtypes.float32,
    name=None,
) -> Tensor:
    """A ``[num_spectrogram_bins, num_mel_bins]`` matrix of triangular filters, evenly spaced
    in mel (``1127 ln(1 + f / 700)``), from linear spectrogram bins to mel bands; the DC bin
    gets no weight, as in HTK (follows `tf.signal.linear_to_mel_weight_matrix`).

    Multiply a magnitude spectrogram ``[..., num_spectrogram_bins]`` by it (`ek.tensordot`
    or `ek.matmul`).

    Args:
        num_mel_bins: number of mel bands, positive.
        num_spectrogram_bins: the spectrogram's bins, ``fft_length // 2 + 1``.
        sample_rate: samples per second of the signal; the bins span 0 to sample_rate / 2.
        lower_edge_hertz, upper_edge_hertz: the frequency range the bands cover.
        dtype: a floating dtype.

    Raises:
        ValueError: ``num_mel_bins <= 0``, ``sample_rate <= 0``, ``lower_edge_hertz < 0``,
            ``lower_edge_hertz >= upper_edge_hertz``, ``upper_edge_hertz > sample_rate / 2``,
            a non-floating dtype (TensorFlow's messages).

    >>> m = ek.signal.linear_to_mel_weight_matrix(4, 9, 8000, 125.0, 3800.0)
    >>> m.shape, m.dtype
    (TensorShape([9, 4]), ek.float32)
    """
    op = "linear_to_mel_weight_matrix"
    num_mel_bins = scalar_int(num_mel_bins, op, "num_mel_bins")
    num_spectrogram_bins = scalar_int(num_spectrogram_bins, op, "num_spectrogram_bins")
    sample_rate = _python_number(sample_rate, op, "sample_rate")
    lower = _python_number(lower_edge_hertz, op, "lower_edge_hertz")
    upper = _python_number(upper_edge_hertz, op, "upper_edge_hertz")
    dt = dtypes.as_dtype(dtype)
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lower < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower}")
    if lower >= upper:
        raise ValueError(f"lower_edge_hertz {lower:.1f} >= upper_edge_hertz {upper:.1f}")
    if sample_rate <= 0.0:
        raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
    if upper > sample_rate / 2:
        raise ValueError(
            "upper_edge_hertz must not be larger than the Nyquist frequency (sample_rate / 2). "
            f"Got {upper} for sample_rate: {sample_rate}"
        )
    if not dt.is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {dt.name}")
    if num_spectrogram_bins < 0:
        raise invalid(op, f"num_spectrogram_bins must be non-negative. Got: {num_spectrogram_bins}")
    bins_mel = _hertz_to_mel(np.linspace(0.0, sample_rate / 2.0, num_spectrogram_bins)[1:])
    edges = np.linspace(_hertz_to_mel(lower), _hertz_to_mel(upper), num_mel_bins + 2)
    low, center, high = edges[:-2], edges[1:-1], edges[2:]
    rising = (bins_mel[:, None] - low) / (center - low)
    falling = (high - bins_mel[:, None]) / (high - center)
    weights = np.maximum(0.0, np.minimum(rising, falling))
    weights = np.concatenate([np.zeros((min(num_spectrogram_bins, 1), num_mel_bins)), weights])
    return _window(weights, dt)


# -- discrete cosine transforms ------------------------------------------------------------------


def _dct_matrix(n: int, dct_type: int, ortho: bool) -> np.ndarray:
    """``M`` with ``dct(x) = x @ M`` for length-``n`` rows (scipy.fftpack.dct's definitions)."""
    j = np.arange(n)[:, None]  # input index
    k = np.arange(n)[None, :]  # output index
    if dct_type == 1:
        m = np.cos(np.pi * j * k / (n - 1)) * np.where((j == 0) | (j == n - 1), 1.0, 2.0)
    elif dct_type == 2:
        m = 2 * np.cos(np.pi * k * (2 * j + 1) / (2 * n))
        if ortho:
            m = m * np.where(k == 0, np.sqrt(1 / (4 * n)), np.sqrt(1 / (2 * n)))
    elif dct_type == 3:
        m = np.cos(np.pi * j * (2 * k + 1) / (2 * n)) * np.where(j == 0, 1.0, 2.0)
        if ortho:
            m = m * np.where(j == 0, 1 / np.sqrt(n), 1 / np.sqrt(2 * n))
    else:
        m = 2 * np.cos(np.pi * (2 * j + 1) * (2 * k + 1) / (4 * n))
        if ortho:
            m = m / np.sqrt(2 * n)
    return m


def _dct(input, dct_type, n, axis, norm, op: str, matrix_type) -> Tensor:
    x = tensor(input, op)
    if x._value.dtype.kind != "f":
        raise TypeError(f"{op}: input must be a floating tensor. Received: {x.dtype.name}.")
    if not isinstance(axis, (int, np.integer)) or axis != -1:
        raise NotImplementedError(f"{op}: axis must be -1. Got: {axis}")
    if x.ndim < 1:
        raise ValueError(f"{op}: input must have rank at least 1. Received: a scalar.")
    if n is not None:
        n = scalar_int(n, op, "n")
        if n < 1:
            raise ValueError(f"{op}: n should be a positive integer or None. Received: n={n}.")
    if dct_type not in (1, 2, 3, 4):
        raise ValueError(
            f"{op}: Types I, II, III and IV (I)DCT are supported. Received: type={dct_type!r}."
        )
    if norm not in (None, "ortho"):
        raise ValueError(f"{op}: Unknown normalization. Expected None or 'ortho', got: {norm!r}")
    if dct_type == 1 and norm == "ortho":
        raise ValueError(f"{op}: Normalization is not supported for the Type-I DCT.")
    if n is not None:
        x = fit_to(x, (n,))
    size = x._value.shape[-1]
    if dct_type == 1 and size < 2:
        raise ValueError(f"{op}: Type-I DCT requires the dimension to be greater than one.")
    return _times_matrix(x, _dct_matrix(size, matrix_type, norm == "ortho"))


def _times_matrix(x: Tensor, m: np.ndarray) -> Tensor:
    """``x @ m`` over the last axis of ``x`` (any rank), ``m`` a NumPy constant."""
    lead = list(x._value.shape[:-1])
    product = matmul(reshape(x, [-1, m.shape[0]]), constant_like(m, x))
    return reshape(product, [*lead, m.shape[1]])


def dct(input, type=2, n=None, axis=-1, norm=None, name=None) -> Tensor:
    """The discrete cosine transform of types I-IV over the last axis (follows
    `tf.signal.dct`, itself scipy.fftpack.dct's definitions).

    Type II is ``y[k] = 2 sum_n x[n] cos(pi k (2n + 1) / (2N))``; ``norm="ortho"`` scales it
    to an orthonormal transform (not allowed for type I).

    Args:
        input: ``[..., samples]`` floating.
        type: 1, 2, 3 or 4.
        n: crop or zero-pad the last axis to ``n`` before the transform; default its length.
        axis: -1 only (as TensorFlow).
        norm: None or ``"ortho"``.

    Returns:
        ``[..., n]``, ``input``'s dtype.

    Raises:
        ValueError: an unknown type or norm, ``n < 1``, type I with ortho or a length below 2.
        NotImplementedError: ``axis != -1``. TypeError: a non-floating input.

    >>> ek.signal.dct(ek.constant([1.0, 2.0, 3.0]), norm="ortho").numpy().round(4)
    array([ 3.4641, -1.4142,  0.    ], dtype=float32)
    """
    return _dct(input, type, n, axis, norm, "dct", type)


def idct(input, type=2, n=None, axis=-1, norm=None, name=None) -> Tensor:
    """The inverse DCT: the DCT of type 1, 3, 2, 4 for ``type`` 1, 2, 3, 4 (follows
    `tf.signal.idct`). With ``norm="ortho"`` it inverts `dct`; without, ``idct(dct(x))``
    is ``x`` times ``2N`` (``2(N - 1)`` for type I).

    Arguments, shapes and errors as `dct`.

    >>> x = ek.constant([1.0, 2.0, 3.0])
    >>> ek.signal.idct(ek.signal.dct(x, norm="ortho"), norm="ortho").numpy().round(4)
    array([1., 2., 3.], dtype=float32)
    """
    inverse = {1: 1, 2: 3, 3: 2, 4: 4}.get(type, type) if isinstance(type, int) else type
    return _dct(input, type, n, axis, norm, "idct", inverse)


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None) -> Tensor:
    """Mel-frequency cepstral coefficients: the type-II DCT of log-mel spectrograms scaled by
    ``1 / sqrt(2 * num_mel_bins)``, HTK's scaling (follows
    `tf.signal.mfccs_from_log_mel_spectrograms`).

    Args:
        log_mel_spectrograms: ``[..., num_mel_bins]`` floating.

    Returns:
        ``[..., num_mel_bins]`` of the input's dtype; keep the first 13 or so.

    Raises:
        ValueError: an empty last axis or a scalar. TypeError: a non-floating input.

    >>> ek.signal.mfccs_from_log_mel_spectrograms(ek.ones([1, 4])).numpy().round(4)
    array([[2.8284, 0.    , 0.    , 0.    ]], dtype=float32)
    """
    op = "mfccs_from_log_mel_spectrograms"
    x = tensor(log_mel_spectrograms, op)
    if x.ndim < 1 or x._value.shape[-1] == 0:
        raise ValueError(
            f"num_mel_bins must be positive. Got: a tensor of shape {tuple(x._value.shape)}"
        )
    out = _dct(x, 2, None, -1, None, op, 2)
    return out * constant_like(1 / np.sqrt(2.0 * x._value.shape[-1]), out)


# -- modified discrete cosine transforms -----------------------------------------------------------


def _mdct_fold(frame_length: int) -> np.ndarray:
    """``[frame_length, frame_length / 2]``: frame ``[a, b, c, d]`` (quarters) to
    ``[-rev(c) - d, a - rev(b)]``, the time-domain aliasing before the DCT-IV."""
    q = frame_length // 4
    r = np.zeros((4 * q, 2 * q))
    i = np.arange(q)
    r[3 * q - 1 - i, i] = -1.0
    r[3 * q + i, i] = -1.0
    r[i, q + i] = 1.0
    r[2 * q - 1 - i, q + i] = -1.0
    return r


def _mdct_unfold(half: int) -> np.ndarray:
    """``[half, 2 * half]``: ``[s0, s1]`` (halves) to ``[s1, -rev(s1), -rev(s0), -s0]``."""
    q = half // 2
    u = np.zeros((2 * q, 4 * q))
    i = np.arange(q)
    u[q + i, i] = 1.0
    u[2 * q - 1 - i, q + i] = -1.0
    u[q - 1 - i, 2 * q + i] = -1.0
    u[i, 3 * q + i] = -1.0
    return u


def _norm_arg(norm, op: str):
    if norm not in (None, "ortho"):
        raise ValueError(f"{op}: Unknown normalization. Expected None or 'ortho', got: {norm!r}")
    return norm == "ortho"


def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None, name=None):
    """The modified discrete cosine transform of frames of ``frame_length`` every
    ``frame_length / 2`` samples (follows `tf.signal.mdct`): each windowed frame is folded
    to half its length and transformed by a DCT-IV.

    Args:
        signals: ``[..., samples]`` float32 or float64.
        frame_length: a positive multiple of 4.
        window_fn: as for `stft`; None means a rectangular window of ``1 / sqrt(2)``. For
            perfect reconstruction by `inverse_mdct` use `vorbis_window`,
            `kaiser_bessel_derived_window` or None.
        pad_end: pad the signal's end with zeros, as `frame`.
        norm: None or ``"ortho"`` (the DCT-IV's).

    Returns:
        ``[..., frames, frame_length / 2]`` of the signal's dtype.

    Raises:
        ValueError: a frame_length that is not a multiple of 4, an unknown norm, signals that
            are not float32/float64 or are scalars.

    >>> ek.signal.mdct(ek.zeros([16]), 8).shape
    TensorShape([3, 4])
    """
    op = "mdct"
    x = tensor(signals, op)
    if x._value.dtype not in (np.float32, np.float64):
        raise ValueError(f"{op}: signals must be float32 or float64. Received: {x.dtype.name}.")
    if x.ndim < 1:
        raise ValueError(f"{op}: signals must have rank at least 1. Received: a scalar.")
    length = scalar_int(frame_length, op, "frame_length")
    if length % 4 or length <= 0:
        raise ValueError(f"{op}: The frame length must be a multiple of 4. Received: {length}.")
    ortho = _norm_arg(norm, op)
    frames = frame(x, length, length // 2, pad_end=pad_end)
    if window_fn is not None:
        frames = frames * _on_device_of(window_fn(length, dtype=x.dtype), frames)
    else:
        frames = frames * constant_like(1 / np.sqrt(2), frames)
    return _times_matrix(frames, _mdct_fold(length) @ _dct_matrix(length // 2, 4, ortho))


def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None) -> Tensor:
    """The inverse of `mdct`: DCT-IV of each frame (scaled by ``1 / (2 N)`` without
    ``norm``), unfolded to twice its length, windowed and overlap-added with a hop of ``N``
    (follows `tf.signal.inverse_mdct`).

    Args:
        mdcts: ``[..., frames, N]`` float32 or float64, ``N`` even.
        window_fn: the window given to `mdct`; None for ``1 / sqrt(2)``.
        norm: None or ``"ortho"``, as given to `mdct`.

    Returns:
        ``[..., (frames + 1) * N]`` samples.

    Raises:
        ValueError: an unknown norm, a rank below 2, an odd last axis, a non-float input.

    >>> x = ek.random.normal([32], seed=3)
    >>> y = ek.signal.inverse_mdct(ek.signal.mdct(x, 8))
    >>> bool(ek.reduce_max(ek.abs(y[4:-4] - x[4:-4])) < 1e-5)
    True
    """
    op = "inverse_mdct"
    m = tensor(mdcts, op)
    if m._value.dtype not in (np.float32, np.float64):
        raise ValueError(f"{op}: mdcts must be float32 or float64. Received: {m.dtype.name}.")
    if m.ndim < 2:
        raise ValueError(
            f"{op}: mdcts must have rank at least 2 ([..., frames, N]). Received: shape "
            f"{tuple(m._value.shape)}."
        )
    half = m._value.shape[-1]
    if half % 2:
        raise ValueError(f"{op}: the last dimension of mdcts must be even. Received: {half}.")
    ortho = _norm_arg(norm, op)
    basis = _dct_matrix(half, 4, ortho) * (1.0 if ortho else 0.5 / max(half, 1))
    frames = _times_matrix(m, basis @ _mdct_unfold(half))
    if window_fn is not None:
        frames = frames * _on_device_of(window_fn(2 * half, dtype=frames.dtype), frames)
    else:
        frames = frames * constant_like(1 / np.sqrt(2), frames)
    return overlap_and_add(frames, half)
