"""Keras 3's audio layers: MelSpectrogram and STFTSpectrogram (follow
`keras.layers.MelSpectrogram` and `keras.layers.STFTSpectrogram`).

MelSpectrogram is a fixed transform: `keras.ops.stft` (reflection-padded, centred frames),
magnitudes to the power ``mag_exp``, Keras's mel filter bank, then decibels. STFTSpectrogram
computes the STFT as a strided 1-D convolution with two weights, the window times the real
and imaginary DFT kernels (Keras's ``initializers.STFT``), which are trainable unless
``trainable=False``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ...core.tensor import to_tensor
from ...ops import array_ops, reduction
from ...ops.conv_more import conv1d
from ...ops.elementwise import cast, log, maximum, sqrt, square
from ...ops.linalg import tensordot
from ...ops.math_ops import atan2
from ...ops.signal_spectral import linear_to_mel_weight_matrix
from ..ops.linalg_more import stft as keras_stft
from .augmentation_base import standardize_data_format
from .base import Layer
from .input_spec import InputSpec

__all__ = ["MelSpectrogram", "STFTSpectrogram"]

_EPSILON = 1e-7  # Keras's backend.epsilon()


def _log10(x):
    return log(x) / math.log(10.0)


class MelSpectrogram(Layer):
    """Mel spectrograms of audio signals (follows `keras.layers.MelSpectrogram`).

    Args:
        fft_length: the FFT size (default 2048). sequence_stride: samples between frames
            (default 512). sequence_length: the window length (default ``fft_length``).
        window: ``"hann"`` (default), ``"hamming"``, a tensor of ``sequence_length`` or None.
        sampling_rate: default 16000. num_mel_bins: default 128. min_freq, max_freq: the mel
            bands' range in Hz (defaults 20 and ``sampling_rate / 2``).
        power_to_db: decibels (default True): ``10 log10(max(S, min_power) / max(ref_power,
            min_power))``, floored at ``top_db`` (default 80) below the maximum over the whole
            batch (as Keras computes it). mag_exp: the magnitude's exponent (default 2,
            power). min_power: default 1e-10. ref_power: default 1.0.

    Input shape: ``(samples,)`` or ``(batch, samples)``, float32 or float64.
    Output shape: ``(num_mel_bins, frames)`` or ``(batch, num_mel_bins, frames)``, frames
    ``1 + samples // sequence_stride``.

    Raises:
        ValueError: ``fft_length`` below ``sequence_length`` (Keras's message).

    >>> layer = ek.keras.layers.MelSpectrogram(
    ...     fft_length=16, sequence_stride=8, sampling_rate=800, num_mel_bins=4)
    >>> layer(ek.zeros((2, 24))).shape
    TensorShape([2, 4, 4])
    """

    def __init__(
        self,
        fft_length=2048,
        sequence_stride=512,
        sequence_length=None,
        window="hann",
        sampling_rate=16000,
        num_mel_bins=128,
        min_freq=20.0,
        max_freq=None,
        power_to_db=True,
        top_db=80.0,
        mag_exp=2.0,
        min_power=1e-10,
        ref_power=1.0,
        **kwargs,
    ):
        self.fft_length = fft_length
        self.sequence_stride = sequence_stride
        self.sequence_length = sequence_length or fft_length
        if self.fft_length < self.sequence_length:
            raise ValueError(
                "`fft_length` must be greater than or equal to   `sequence_length`. Received: "
                f"`sequence_length`={self.sequence_length}, `fft_length`={self.fft_length}."
            )
        self.window = window
        self.sampling_rate = sampling_rate
        self.num_mel_bins = num_mel_bins
        self.min_freq = min_freq
        self.max_freq = max_freq or int(sampling_rate / 2)
        self.power_to_db = power_to_db
        self.top_db = top_db
        self.mag_exp = mag_exp
        self.min_power = min_power
        self.ref_power = ref_power
        super().__init__(**kwargs)

    def call(self, inputs):
        dtype = self.compute_dtype if self.compute_dtype in ("float32", "float64") else "float32"
        x = to_tensor(inputs)
        if x.dtype.name != dtype:
            x = cast(x, dtype)
        real, imag = keras_stft(
            x, self.sequence_length, self.sequence_stride, self.fft_length, self.window, True
        )
        spec = sqrt(square(real) + square(imag)) ** float(self.mag_exp)
        matrix = linear_to_mel_weight_matrix(
            self.num_mel_bins,
            int(spec.shape[-1]),
            self.sampling_rate,
            self.min_freq,
            self.max_freq,
            dtype=dtype,
        )
        out = tensordot(spec, matrix, 1)
        if self.power_to_db:
            out = 10.0 * _log10(maximum(out, float(self.min_power)))
            out = out - 10.0 * math.log10(max(abs(self.ref_power), self.min_power))
            out = maximum(out, reduction.reduce_max(out) - float(self.top_db))
        rank = out.ndim
        out = array_ops.transpose(out, [*range(rank - 2), rank - 1, rank - 2])
        return out if out.dtype.name == self.compute_dtype else cast(out, self.compute_dtype)

    def compute_output_shape(self, input_shape):
        def frames(n):
            return None if n is None else (n + self.sequence_stride + 1) // self.sequence_stride

        if len(input_shape) == 1:
            return [self.num_mel_bins, frames(input_shape[0])]
        return [input_shape[0], self.num_mel_bins, frames(input_shape[1])]

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "fft_length": self.fft_length,
            "sequence_stride": self.sequence_stride,
            "sequence_length": self.sequence_length,
            "window": self.window,
            "sampling_rate": self.sampling_rate,
            "num_mel_bins": self.num_mel_bins,
            "min_freq": self.min_freq,
            "max_freq": self.max_freq,
            "power_to_db": self.power_to_db,
            "top_db": self.top_db,
            "mag_exp": self.mag_exp,
            "min_power": self.min_power,
            "ref_power": self.ref_power,
        }


def _named_window(name: str, length: int, periodic: bool) -> np.ndarray:
    """``scipy.signal.get_window(name, length, fftbins=periodic)``; Hann and Hamming need no
    SciPy."""
    if name in ("hann", "hamming") and length > 0:
        denominator = length if periodic else max(length - 1, 1)
        a0 = 0.5 if name == "hann" else 0.54
        window = a0 - (1 - a0) * np.cos(2 * np.pi * np.arange(length) / denominator)
        return window if length > 1 else np.ones(1)
    try:
        from scipy.signal import get_window
    except ImportError as exc:
        raise ImportError(
            f"STFTSpectrogram: window={name!r} needs SciPy (pip install scipy); 'hann' and "
            "'hamming' do not."
        ) from exc
    return get_window(name, length, periodic)


def stft_kernel(side: str, window, scaling, periodic: bool, frame_length: int, bins: int):
    """Keras's ``initializers.STFT``: ``[frame_length, 1, bins]`` DFT kernels (``side``
    ``"real"``: cosines, ``"imag"``: sines) times the window, over its L2 norm (``scaling=
    "density"``) or L1 norm (``"spectrum"``), in float32 as Keras computes them."""
    f32 = np.float32
    scale = f32(1.0)
    win = None
    if window is not None:
        win = window
        if isinstance(win, str):
            win = _named_window(win, frame_length, periodic)
        win = np.asarray(win, f32)
        if win.ndim != 1 or win.shape[-1] != frame_length:
            raise ValueError(
                "The shape of `window` must be equal to [frame_length].Received: window "
                f"shape={win.shape}"
            )
        win = win.reshape(frame_length, 1, 1)
        if scaling == "density":
            scale = np.sqrt(np.sum(np.square(win)))
        elif scaling == "spectrum":
            scale = np.sum(np.abs(win))
    freq = np.arange(bins, dtype=f32).reshape(1, 1, bins) / f32((bins - 1) * 2)
    time = np.arange(frame_length, dtype=f32).reshape(frame_length, 1, 1)
    args = (f32(-2) * time) * freq * f32(np.pi)
    kernel = np.cos(args) if side == "real" else np.sin(args)
    if win is not None:
        kernel = kernel * win / scale
    return kernel.astype(f32)


class STFTSpectrogram(Layer):
    """Spectrograms of multichannel signals by a short-time Fourier transform as a
    convolution (follows `keras.layers.STFTSpectrogram`).

    Args:
        mode: ``"log"`` (default; log magnitude), ``"magnitude"``, ``"psd"`` (power, doubled
            except at the DC and last bins), ``"real"``, ``"imag"``, ``"angle"`` or
            ``"stft"`` (real and imaginary bins side by side).
        frame_length: default 256. frame_step: default ``frame_length // 2``. fft_length:
            default the next power of two of ``frame_length``; ``fft_length // 2 + 1`` bins.
        window: ``"hann"`` (default), ``"hamming"``, another SciPy window name, an array of
            ``frame_length``, or None. periodic: a periodic (not symmetric) window.
        scaling: ``"density"`` (default), ``"spectrum"`` or None. padding: ``"valid"`` or
            ``"same"``. expand_dims: one spectrogram per channel on a last (or, channels
            first, second) axis instead of stacked bins. data_format: ``"channels_last"``
            ``(batch, time, channels)`` or ``"channels_first"``.

    Output shape: ``(batch, frames, channels * bins)`` (channels first: ``(batch, channels *
    bins, frames)``); with ``expand_dims``: ``(batch, frames, bins, channels)`` (``(batch,
    channels, frames, bins)``).

    Raises:
        ValueError: a bad ``frame_step``, ``fft_length``, ``mode``, ``scaling`` or
            ``padding``, or an input not of rank 3 (Keras's messages). TypeError: a
            non-float input.

    >>> layer = ek.keras.layers.STFTSpectrogram(mode="real", frame_length=4, window=None)
    >>> layer(ek.ones((1, 8, 1)))[0].numpy().round(4) + 0.0  # (-0.0 + 0.0 is 0.0)
    array([[4., 0., 0.],
           [4., 0., 0.],
           [4., 0., 0.]], dtype=float32)
    """

    _MODES = ("log", "magnitude", "psd", "real", "imag", "angle", "stft")

    def __init__(
        self,
        mode="log",
        frame_length=256,
        frame_step=None,
        fft_length=None,
        window="hann",
        periodic=False,
        scaling="density",
        padding="valid",
        expand_dims=False,
        data_format=None,
        **kwargs,
    ):
        if frame_step is not None and (frame_step > frame_length or frame_step < 1):
            raise ValueError(
                "`frame_step` should be a positive integer not greater than `frame_length`. "
                f"Received frame_step={frame_step}, frame_length={frame_length}"
            )
        if fft_length is not None and fft_length < frame_length:
            raise ValueError(
                "`fft_length` should be not less than `frame_length`. "
                f"Received fft_length={fft_length}, frame_length={frame_length}"
            )
        if fft_length is not None and (fft_length & -fft_length) != fft_length:
            warnings.warn(
                "`fft_length` is recommended to be a power of two. "
                f"Received fft_length={fft_length}",
                stacklevel=2,
            )
        if mode not in self._MODES:
            raise ValueError(
                f"Output mode is invalid, it must be one of {', '.join(self._MODES)}. "
                f"Received: mode={mode}"
            )
        if scaling is not None and scaling not in ("density", "spectrum"):
            raise ValueError(
                "Scaling is invalid, it must be `None`, 'density' or 'spectrum'. "
                f"Received scaling={scaling}"
            )
        if padding not in ("valid", "same"):
            raise ValueError(
                f"Padding is invalid, it should be 'valid', 'same'. Received: padding={padding}"
            )
        if isinstance(window, str):
            _named_window(window, 1, periodic)  # an unknown name raises here, as in Keras
        super().__init__(**kwargs)
        self.mode = mode
        self.frame_length = frame_length
        self.frame_step = frame_step
        self._frame_step = frame_step or frame_length // 2
        self.fft_length = fft_length
        self._fft_length = fft_length or 2 ** math.ceil(math.log2(frame_length))
        self.window = window
        self.periodic = periodic
        self.scaling = scaling
        self.padding = padding
        self.expand_dims = expand_dims
        self.data_format = standardize_data_format(data_format)
        self.input_spec = InputSpec(ndim=3)

    def build(self, input_shape):
        shape = (self.frame_length, 1, self._fft_length // 2 + 1)
        for side, skip in (("real", "imag"), ("imag", "real")):
            if self.mode != skip:

                def init(shape, dtype=None, side=side):
                    kernel = stft_kernel(
                        side, self.window, self.scaling, self.periodic, shape[0], shape[-1]
                    )
                    return kernel.astype(getattr(dtype, "as_numpy_dtype", None) or "float32")

                weight = self.add_weight(name=f"{side}_kernel", shape=shape, initializer=init)
                setattr(self, f"{side}_kernel", weight)

    def _conv(self, x, kernel):
        """``x`` ``(batch, channels, time)`` through ``kernel``: ``(batch, channels, bins,
        frames)``."""
        b, c, t = (int(d) for d in x.shape)
        frames = conv1d(
            array_ops.reshape(x, [b * c, t, 1]),
            cast(kernel, x.dtype.name),
            self._frame_step,
            self.padding.upper(),
        )
        frames = array_ops.transpose(frames, [0, 2, 1])
        return array_ops.reshape(frames, [b, c, int(frames.shape[1]), int(frames.shape[2])])

    def _layout(self, outputs):
        b, c, f, t = (int(d) for d in outputs.shape)
        if self.data_format == "channels_last":
            if self.expand_dims:
                return array_ops.transpose(outputs, [0, 3, 2, 1])
            return array_ops.transpose(array_ops.reshape(outputs, [b, c * f, t]), [0, 2, 1])
        if self.expand_dims:
            return array_ops.transpose(outputs, [0, 1, 3, 2])
        return array_ops.reshape(outputs, [b, c * f, t])

    def call(self, inputs):
        x = to_tensor(inputs)
        if x.dtype.name not in ("float16", "float32", "float64"):
            raise TypeError(
                "Invalid input type. Expected `float16`, `float32` or `float64`. Received: "
                f"input type={x.dtype.name}"
            )
        if self.data_format == "channels_last":
            x = array_ops.transpose(x, [0, 2, 1])
        real = self._conv(x, self.real_kernel) if self.mode != "imag" else None
        imag = self._conv(x, self.imag_kernel) if self.mode != "real" else None
        if self.mode == "real":
            return self._layout(real)
        if self.mode == "imag":
            return self._layout(imag)
        if self.mode == "angle":
            return self._layout(atan2(imag, real))
        if self.mode == "stft":
            return self._layout(array_ops.concat([real, imag], axis=2))
        power = square(real) + square(imag)
        if self.mode == "psd":
            inner = array_ops.pad(power[:, :, 1:-1, :], [[0, 0], [0, 0], [1, 1], [0, 0]])
            return self._layout(power + inner)
        magnitude = self._layout(sqrt(maximum(power, _EPSILON)))
        if self.mode == "magnitude":
            return magnitude
        return log(maximum(magnitude, _EPSILON))

    def compute_output_shape(self, input_shape):
        channels_last = self.data_format == "channels_last"
        batch = input_shape[0]
        time = input_shape[1] if channels_last else input_shape[2]
        channels = input_shape[-1] if channels_last else input_shape[1]
        bins = (self._fft_length // 2 + 1) * (2 if self.mode == "stft" else 1)
        if time is not None:
            if self.padding == "valid":
                time = (time - self.frame_length) // self._frame_step + 1
            else:
                time = -(-time // self._frame_step)
        if self.expand_dims:
            return (batch, time, bins, channels) if channels_last else (batch, channels, time, bins)
        features = None if channels is None else bins * channels
        return (batch, time, features) if channels_last else (batch, features, time)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "mode": self.mode,
            "frame_length": self.frame_length,
            "frame_step": self.frame_step,
            "fft_length": self.fft_length,
            "window": self.window,
            "periodic": self.periodic,
            "scaling": self.scaling,
            "padding": self.padding,
            "data_format": self.data_format,
            "expand_dims": self.expand_dims,
        }
