"""`fftnd`, `ifftnd`, `rfftnd` and `irfftnd`: Fourier transforms over any axes, with
``fft_length`` and ``norm`` (follow `tf.signal.fftnd` and friends, whose semantics are
NumPy's `numpy.fft.fftn` family: ``fft_length[i]`` crops or zero-pads ``axes[i]``).

The chosen axes are moved innermost (`transpose`), transformed by the primitives of
`signal_ops` (FFTND, RFFTND, ...) and moved back, so gradients come from those primitives'
VJPs and from transpose's.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.tensor import Tensor
from ._core import tensor
from .array_ops import int_list, transpose
from .signal_ops import COMPLEX_OF, REAL_OF, c2c, c2r, constant_like, fit_to, invalid, r2c

__all__ = ["fftnd", "ifftnd", "irfftnd", "rfftnd"]

_NORMS = (None, "backward", "forward", "ortho")


def _axes_and_lengths(x: Tensor, fft_length, axes, op: str, inverse_real: bool = False):
    nd = x.ndim
    if axes is None:
        axes = tuple(range(nd))
    else:
        axes = int_list(axes.numpy() if isinstance(axes, Tensor) else axes, op, "axes")
        for a in axes:
            if not -nd <= a < nd:
                raise invalid(op, f"axes {a} is out of range for a tensor of rank {nd}.")
        axes = tuple(a % nd for a in axes)
        if len(set(axes)) != len(axes):
            raise invalid(op, f"axes must not repeat an axis. Received: {list(axes)}.")
    if not axes:
        raise invalid(op, f"at least one axis is needed. Received: a tensor of rank {nd}.")
    shape = x._value.shape
    if fft_length is None:
        lengths = [shape[a] for a in axes]
        if inverse_real:
            lengths[-1] = 2 * (lengths[-1] - 1)
        lengths = tuple(lengths)
    else:
        if isinstance(fft_length, Tensor):
            fft_length = fft_length.numpy()
        lengths = int_list(fft_length, op, "fft_length")
        if np.ndim(fft_length) != 1 or len(lengths) != len(axes):
            raise invalid(
                op,
                f"fft_length must have one length per axis ({len(axes)}). Received: "
                f"{fft_length!r:.60}.",
            )
    if min(lengths) < 1:
        raise invalid(op, f"fft_length must be positive. Received: {list(lengths)}.")
    return axes, lengths


def _norm_scale(norm, n: int, op: str, inverse: bool) -> float | None:
    """The factor applied after the unnormalized forward (or 1/N-scaled inverse) transform."""
    if norm not in _NORMS:
        raise ValueError(
            f"{op}: norm must be 'backward', 'forward' or 'ortho'. Received: norm={norm!r}."
        )
    if norm in (None, "backward"):
        return None
    if norm == "forward":
        return float(n) if inverse else 1.0 / n
    return math.sqrt(n) if inverse else 1.0 / math.sqrt(n)


def _innermost(x: Tensor, axes: tuple):
    """``x`` with ``axes`` moved innermost (in their order), and the permutation back."""
    rest = [a for a in range(x.ndim) if a not in axes]
    perm = [*rest, *axes]
    if perm == list(range(x.ndim)):
        return x, None
    return transpose(x, perm), [int(i) for i in np.argsort(perm)]


def _transform(x: Tensor, fft_length, axes, norm, op: str, kind: str) -> Tensor:
    axes, lengths = _axes_and_lengths(x, fft_length, axes, op, inverse_real=kind == "c2r")
    scale = _norm_scale(norm, math.prod(lengths), op, inverse=kind in ("ifft", "c2r"))
    y, back = _innermost(x, axes)
    if kind in ("fft", "ifft"):
        y = c2c(fit_to(y, lengths), len(lengths), kind == "ifft")
    elif kind == "r2c":
        y = r2c(y, lengths)
    else:
        y = c2r(y, lengths)
    if scale is not None:
        y = y * constant_like(scale, y)
    return y if back is None else transpose(y, back)


def fftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None) -> Tensor:
    """The discrete Fourier transform over ``axes`` (follows `tf.signal.fftnd`, itself
    `numpy.fft.fftn`).

    Args:
        input_tensor: complex64 or complex128; Python lists become complex64.
        fft_length: one positive length per axis: each axis is cropped or zero-padded to it.
            Default: the axes' lengths.
        axes: ints (negative count from the end), no repeats. Default: every axis.
        norm: None or ``"backward"`` (no scaling), ``"forward"`` (1/N), ``"ortho"``
            (1/sqrt(N)), N the product of fft_length.

    Returns:
        ``input_tensor``'s dtype, its shape with ``axes`` resized to ``fft_length``.

    Raises:
        InvalidArgumentError: a real input, axes out of range or repeated, an fft_length of
            another length than axes or not positive. ValueError: an unknown norm.

    >>> x = ek.constant([[1, 2], [3, 4]], ek.complex64)
    >>> ek.signal.fftnd(x, axes=[0]).numpy()
    array([[ 4.+0.j,  6.+0.j],
           [-2.+0.j, -2.+0.j]], dtype=complex64)
    """
    x = tensor(input_tensor, "fftnd", np.complex64)
    if x._value.dtype.kind != "c":
        raise invalid("fftnd", f"input must be complex64 or complex128. Received: {x.dtype.name}.")
    return _transform(x, fft_length, axes, norm, "fftnd", "fft")


def ifftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None) -> Tensor:
    """The inverse of `fftnd` (scaled by 1/N with the default ``norm="backward"``; by N with
    ``"forward"``, 1/sqrt(N) with ``"ortho"``; follows `tf.signal.ifftnd`).

    Arguments, shapes and errors as `fftnd`.

    >>> ek.signal.ifftnd(ek.constant([[4, 0], [0, 0]], ek.complex64)).numpy()
    array([[1.+0.j, 1.+0.j],
           [1.+0.j, 1.+0.j]], dtype=complex64)
    """
    x = tensor(input_tensor, "ifftnd", np.complex64)
    if x._value.dtype.kind != "c":
        raise invalid("ifftnd", f"input must be complex64 or complex128. Received: {x.dtype.name}.")
    return _transform(x, fft_length, axes, norm, "ifftnd", "ifft")


def rfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None) -> Tensor:
    """The DFT of a real signal over ``axes``, keeping the ``fft_length[-1] // 2 + 1`` unique
    bins of the last of them (follows `tf.signal.rfftnd`, itself `numpy.fft.rfftn`).

    Args:
        input_tensor: float32 or float64.
        fft_length, axes, norm: as for `fftnd`.

    Returns:
        complex64 (complex128 for float64); ``axes[-1]`` has ``fft_length[-1] // 2 + 1`` bins.

    Raises:
        ValueError: an input that is not float32/float64 (as TensorFlow); an unknown norm.
        InvalidArgumentError: as `fftnd`.

    >>> ek.signal.rfftnd(ek.constant([[1.0, 2.0, 3.0, 4.0]]), axes=[1]).numpy()
    array([[10.+0.j, -2.+2.j, -2.+0.j]], dtype=complex64)
    """
    x = tensor(input_tensor, "rfftnd")
    if x._value.dtype not in COMPLEX_OF:
        raise ValueError(f"RFFTND requires float32 or float64 inputs. Received: {x.dtype.name}.")
    return _transform(x, fft_length, axes, norm, "rfftnd", "r2c")


def irfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None) -> Tensor:
    """The inverse of `rfftnd`: a real signal whose ``axes`` have ``fft_length`` samples
    (follows `tf.signal.irfftnd`, itself `numpy.fft.irfftn`).

    Args:
        input_tensor: complex64 or complex128; Python lists become complex64.
        fft_length: the output's lengths on ``axes``; default the input's, the last
            ``2 * (n - 1)``.
        axes, norm: as for `fftnd`.

    Returns:
        float32 (float64 for complex128).

    Raises:
        ValueError: an input that is not complex (as TensorFlow); an unknown norm.
        InvalidArgumentError: as `fftnd`.

    >>> ek.signal.irfftnd(ek.constant([[10, -2 + 2j, -2]], ek.complex64), axes=[1]).numpy()
    array([[1., 2., 3., 4.]], dtype=float32)
    """
    x = tensor(input_tensor, "irfftnd", np.complex64)
    if x._value.dtype not in REAL_OF:
        raise ValueError(
            f"IRFFTND requires complex64 or complex128 inputs. Received: {x.dtype.name}."
        )
    return _transform(x, fft_length, axes, norm, "irfftnd", "c2r")
