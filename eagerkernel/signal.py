"""`ek.signal`: signal processing under TensorFlow's `tf.signal` names."""

from __future__ import annotations

from .runtime.ops.signal_ops import (
    fft,
    fft2d,
    fft3d,
    fftshift,
    frame,
    ifft,
    ifft2d,
    ifft3d,
    ifftshift,
    irfft,
    irfft2d,
    irfft3d,
    overlap_and_add,
    rfft,
    rfft2d,
    rfft3d,
)

__all__ = [
    "fft",
    "fft2d",
    "fft3d",
    "fftshift",
    "frame",
    "ifft",
    "ifft2d",
    "ifft3d",
    "ifftshift",
    "irfft",
    "irfft2d",
    "irfft3d",
    "overlap_and_add",
    "rfft",
    "rfft2d",
    "rfft3d",
]
