"""Fourier transforms and framing: `fft`/`ifft`, `rfft`/`irfft` (1-D, 2-D and 3-D),
`fftshift`/`ifftshift`, `frame` and `overlap_and_add` (follow `tf.signal`'s).

The transforms run on the device's array module (``numpy.fft``, ``cupy.fft``) over the
innermost 1, 2 or 3 axes. Each is a `Primitive` with its VJP written with eagerkernel ops, so
derivatives of any order work. Gradients follow TensorFlow's (tensorflow/python/ops/signal/
fft_ops.py): with the complex cotangent ``dL/d(re) + i dL/d(im)`` (see `complex_ops`), the VJP
of an ``N``-point FFT is ``N * ifft(g)``, of the IFFT ``fft(g) / N``; the RFFT's is the real
part of ``N * ifft`` of the zero-extended half spectrum, the IRFFT's the RFFT of the cotangent
times ``[1, 2, ..., 2, 1] / N`` (the halved bins stand for two).
"""

from __future__ import annotations

import math
import operator

import numpy as np

from ..core.dispatch import Primitive, defvjp
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ._core import apply, tensor
from .array_extra import roll
from .array_ops import int_list, pad
from .complex_ops import real
from .math_ops import on_device_of

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

REAL_OF = {np.dtype(np.complex64): np.dtype(np.float32), np.dtype(np.complex128): np.float64}
COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.complex128}


def invalid(op: str, message: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, op, f"{op}: {message}")


def constant_like(value, like: Tensor, dtype=None) -> Tensor:
    """A constant of ``dtype`` (default: ``like``'s) on ``like``'s device."""
    xp = like._device.xp
    return on_device_of(xp.asarray(np.asarray(value, dtype or like._value.dtype)), like)


# -- cropping and zero-padding the innermost axes (the FFTs' fft_length) -------------------------


def _fit_fwd(xp, x, shape):
    r = len(shape)
    out = xp.zeros(x.shape[: x.ndim - r] + shape, x.dtype)
    core = (Ellipsis, *tuple(slice(0, min(a, b)) for a, b in zip(x.shape[x.ndim - r :], shape)))
    out[core] = x[core]
    return out


# Cropping's adjoint is zero-padding and the other way round: fitting back to the input's shape.
_fit = Primitive("SliceOrPad", _fit_fwd)
defvjp(_fit, lambda g, ans, x, shape: fit_to(g, x._value.shape[x.ndim - len(shape) :]))


def fit_to(x: Tensor, shape: tuple) -> Tensor:
    """``x`` cropped or zero-padded at the end of its innermost ``len(shape)`` axes."""
    if tuple(x._value.shape[x.ndim - len(shape) :]) == tuple(shape):
        return x
    return apply(_fit, (x,), {"shape": tuple(shape)})


# -- complex-to-complex transforms ---------------------------------------------------------------


def _c2c_fwd(xp, x, rank, inverse):
    if 0 in x.shape[x.ndim - rank :]:  # empty transforms are empty, as in TensorFlow
        return x.copy()
    axes = tuple(range(-rank, 0))
    out = xp.fft.ifftn(x, axes=axes) if inverse else xp.fft.fftn(x, axes=axes)
    return out.astype(x.dtype, copy=False)


def _c2c(name: str, rank: int, inverse: bool) -> Primitive:
    return Primitive(name, lambda xp, x: _c2c_fwd(xp, x, rank, inverse))


_FFT = {r: _c2c("FFT" if r == 1 else f"FFT{r}D", r, False) for r in (1, 2, 3)}
_IFFT = {r: _c2c("IFFT" if r == 1 else f"IFFT{r}D", r, True) for r in (1, 2, 3)}
# Any number of inner axes (`fftnd`): ``rank`` is a param.
_FFTND = Primitive("FFTND", lambda xp, x, rank: _c2c_fwd(xp, x, rank, False))
_IFFTND = Primitive("IFFTND", lambda xp, x, rank: _c2c_fwd(xp, x, rank, True))


def _size(x: Tensor, rank: int) -> int:
    return math.prod(x._value.shape[x.ndim - rank :])


def c2c(x: Tensor, rank: int, inverse: bool) -> Tensor:
    """The DFT (``inverse``: the inverse DFT, scaled by 1/N) over the inner ``rank`` axes:
    TensorFlow's FFT, FFT2D or FFT3D op for ranks 1-3, FFTND above."""
    if rank <= 3:
        return apply((_IFFT if inverse else _FFT)[rank], (x,))
    return apply(_IFFTND if inverse else _FFTND, (x,), {"rank": rank})


def _c2c_vjp(g, ans, x, rank, inverse):
    if inverse:
        # max(., 1): an empty transform has an empty gradient, not a division by zero.
        return c2c(g, rank, False) * constant_like(1 / max(_size(g, rank), 1), g)
    return c2c(g, rank, True) * constant_like(_size(g, rank), g)


for _r in (1, 2, 3):
    defvjp(_FFT[_r], lambda g, ans, x, r=_r: _c2c_vjp(g, ans, x, r, False))
    defvjp(_IFFT[_r], lambda g, ans, x, r=_r: _c2c_vjp(g, ans, x, r, True))
defvjp(_FFTND, lambda g, ans, x, rank: _c2c_vjp(g, ans, x, rank, False))
defvjp(_IFFTND, lambda g, ans, x, rank: _c2c_vjp(g, ans, x, rank, True))


def _preferred(value, x: Tensor, dtype) -> Tensor:
    """TensorFlow's real transforms convert a non-Tensor input with ``preferred_dtype``
    (float32 for `rfft`, complex64 for `irfft`): a NumPy float64 or int64 array or a pandas
    Series becomes float32."""
    if isinstance(value, Tensor) or x._value.dtype == dtype:
        return x
    if x._value.dtype.kind not in ("iufc" if np.dtype(dtype).kind == "c" else "iuf"):
        return x  # bool, strings, complex for a real transform: the caller's check names it
    from .elementwise import cast

    return cast(x, dtype)


def _complex_input(input, op: str, rank: int) -> Tensor:
    x = tensor(input, op, np.complex64)  # NumPy complex128 stays so, as in TensorFlow
    if x._value.dtype.kind != "c":
        raise invalid(
            op,
            f"input must be complex64 or complex128 (Tcomplex). Received: dtype {x.dtype.name}.",
        )
    if x.ndim < rank:
        raise invalid(
            op, f"input must have rank of at least {rank} but got shape {tuple(x._value.shape)}."
        )
    return x


def _c2c_op(rank: int, inverse: bool, tf_name: str):
    what = "inverse " if inverse else ""
    axes = {1: "innermost axis", 2: "inner 2 axes", 3: "inner 3 axes"}[rank]
    example = {
        (1, False): ">>> ek.signal.fft(ek.constant([1, 2, 3, 4], ek.complex64)).numpy()\n"
        "    array([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j], dtype=complex64)",
        (1, True): ">>> ek.signal.ifft(ek.constant([4, 0, 0, 0], ek.complex64)).numpy()\n"
        "    array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j], dtype=complex64)",
    }.get(
        (rank, inverse),
        f">>> ek.signal.{tf_name}(ek.ones([2] * {rank}, ek.complex128)).shape\n"
        f"    TensorShape({[2] * rank})",
    )

    def op(input, name=None) -> Tensor:
        return c2c(_complex_input(input, tf_name, rank), rank, inverse)

    op.__name__ = op.__qualname__ = tf_name
    inverts = f"; scaled by 1/N, so it inverts `{tf_name[1:]}`" if inverse else ""
    op.__doc__ = f"""The {what}discrete Fourier transform over the {axes} (follows
    `tf.signal.{tf_name}`){inverts}.

    Args:
        input: a complex64 or complex128 tensor of rank >= {rank}; Python lists become
            complex64.

    Returns:
        A tensor of ``input``'s shape and dtype.

    Raises:
        InvalidArgumentError: a real or integer tensor (as TensorFlow's Tcomplex check), a rank
            below {rank}.

    {example}
    """
    return op


fft = _c2c_op(1, False, "fft")
ifft = _c2c_op(1, True, "ifft")
fft2d = _c2c_op(2, False, "fft2d")
ifft2d = _c2c_op(2, True, "ifft2d")
fft3d = _c2c_op(3, False, "fft3d")
ifft3d = _c2c_op(3, True, "ifft3d")


# -- real-to-complex transforms -----------------------------------------------------------------


def _r2c_fwd(xp, x, fft_length):
    axes = tuple(range(-len(fft_length), 0))
    return xp.fft.rfftn(x, s=fft_length, axes=axes).astype(COMPLEX_OF[x.dtype], copy=False)


def _c2r_fwd(xp, x, fft_length):
    axes = tuple(range(-len(fft_length), 0))
    return xp.fft.irfftn(x, s=fft_length, axes=axes).astype(REAL_OF[x.dtype], copy=False)


# One primitive per TensorFlow op name; the rank is len(fft_length).
_RFFT = {r: Primitive("RFFT" if r == 1 else f"RFFT{r}D", _r2c_fwd) for r in (1, 2, 3)}
_IRFFT = {r: Primitive("IRFFT" if r == 1 else f"IRFFT{r}D", _c2r_fwd) for r in (1, 2, 3)}
_RFFTND = Primitive("RFFTND", _r2c_fwd)
_IRFFTND = Primitive("IRFFTND", _c2r_fwd)


def r2c(x: Tensor, fft_length: tuple) -> Tensor:
    """The RFFT over the inner ``len(fft_length)`` axes (TensorFlow's RFFT* op of that rank)."""
    prim = _RFFT.get(len(fft_length), _RFFTND)
    return apply(prim, (x,), {"fft_length": tuple(fft_length)})


def c2r(x: Tensor, fft_length: tuple) -> Tensor:
    """The IRFFT over the inner ``len(fft_length)`` axes (TensorFlow's IRFFT* op)."""
    prim = _IRFFT.get(len(fft_length), _IRFFTND)
    return apply(prim, (x,), {"fft_length": tuple(fft_length)})


def _rfft_vjp(g, ans, x, fft_length):
    # The adjoint of "fit x to fft_length, full FFT, keep the first L // 2 + 1 bins".
    rank = len(fft_length)
    full = c2c(fit_to(g, fft_length), rank, True)
    dx = real(full) * constant_like(math.prod(fft_length), g, REAL_OF[g._value.dtype])
    return fit_to(dx, x._value.shape[x.ndim - rank :])


def _irfft_vjp(g, ans, x, fft_length):
    rank = len(fft_length)
    n = fft_length[-1]
    mask = np.full(n // 2 + 1, 2.0)
    mask[0] = 1.0
    if n % 2 == 0:
        mask[-1] = 1.0
    spectrum = r2c(g, fft_length)
    dx = spectrum * constant_like(mask / math.prod(fft_length), spectrum)
    return fit_to(dx, x._value.shape[x.ndim - rank :])


for _prim in (*_RFFT.values(), _RFFTND):
    defvjp(_prim, _rfft_vjp)
for _prim in (*_IRFFT.values(), _IRFFTND):
    defvjp(_prim, _irfft_vjp)


def _fft_length(fft_length, op: str, rank: int) -> tuple:
    if isinstance(fft_length, Tensor):
        fft_length = fft_length.numpy()
    shape = np.shape(fft_length)
    if shape != (rank,):
        raise invalid(op, f"fft_length must have shape [{rank}]. Received: {fft_length!r:.60}.")
    lengths = int_list(fft_length, op, "fft_length")
    if min(lengths) < 1:
        raise invalid(op, f"fft_length must be positive. Received: {list(lengths)}.")
    return lengths


def _r2c_op(rank: int, tf_name: str):
    doc_example = {
        1: ">>> ek.signal.rfft(ek.constant([1.0, 2.0, 3.0, 4.0])).numpy()\n"
        "    array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex64)",
    }.get(
        rank,
        f">>> ek.signal.{tf_name}(ek.ones([4] * {rank})).shape\n"
        f"    TensorShape({[4] * (rank - 1) + [3]})",
    )

    def op(input_tensor, fft_length=None, name=None) -> Tensor:
        x = _transform_input(input_tensor, tf_name, rank, COMPLEX_OF, "float32 or float64")
        if fft_length is None:
            lengths = tuple(x._value.shape[x.ndim - rank :])
            if min(lengths) < 1:
                raise invalid(tf_name, f"the transformed axes {lengths} must not be empty.")
        else:
            lengths = _fft_length(fft_length, tf_name, rank)
        return r2c(x, lengths)

    op.__name__ = op.__qualname__ = tf_name
    op.__doc__ = f"""The discrete Fourier transform of a real signal over its inner {rank}
    axis/axes, keeping the ``fft_length[-1] // 2 + 1`` unique bins of the innermost one
    (follows `tf.signal.{tf_name}`).

    Args:
        input_tensor: a float32 or float64 tensor of rank >= {rank}.
        fft_length: {rank} positive ints, the transform's size on each inner axis: the input is
            cropped or zero-padded to it. Default: the inner axes' lengths.

    Returns:
        complex64 (for float32) or complex128 (float64), of shape ``[..., *fft_length[:-1],
        fft_length[-1] // 2 + 1]``.

    Raises:
        ValueError: an input that is not float32 or float64 (as TensorFlow).
        InvalidArgumentError: a rank below {rank}, ``fft_length`` not of shape [{rank}] or not
            positive.

    {doc_example}
    """
    return op


def _transform_input(value, tf_name: str, rank: int, dtypes: dict, what: str, hint=None):
    """``value`` as a tensor for a real/complex transform of ``rank`` inner axes: its dtype
    one of ``dtypes`` (ValueError naming ``what``, as TensorFlow) and its rank at least
    ``rank`` (InvalidArgumentError)."""
    x = _preferred(value, tensor(value, tf_name, hint), next(iter(dtypes)))
    if x._value.dtype not in dtypes:
        raise ValueError(
            f"{tf_name.upper()} requires {what} inputs. Received: dtype {x.dtype.name}."
        )
    if x.ndim < rank:
        raise invalid(
            tf_name,
            f"input must have rank of at least {rank} but got shape {tuple(x._value.shape)}.",
        )
    return x


def _c2r_op(rank: int, tf_name: str):
    doc_example = {
        1: ">>> ek.signal.irfft(ek.constant([10, -2 + 2j, -2], ek.complex64)).numpy()\n"
        "    array([1., 2., 3., 4.], dtype=float32)",
    }.get(
        rank,
        f">>> ek.signal.{tf_name}(ek.ones([4] * {rank - 1} + [3], ek.complex64)).shape\n"
        f"    TensorShape({[4] * rank})",
    )

    def op(input_tensor, fft_length=None, name=None) -> Tensor:
        x = _transform_input(
            input_tensor, tf_name, rank, REAL_OF, "complex64 or complex128", np.complex64
        )
        if fft_length is None:
            s = tuple(x._value.shape[x.ndim - rank :])
            lengths = (*s[:-1], 2 * (s[-1] - 1))
            if min(lengths) < 1:
                raise invalid(
                    tf_name,
                    f"the default fft_length {list(lengths)} of an input of shape "
                    f"{tuple(x._value.shape)} is empty: give fft_length.",
                )
        else:
            lengths = _fft_length(fft_length, tf_name, rank)
        return c2r(x, lengths)

    op.__name__ = op.__qualname__ = tf_name
    op.__doc__ = f"""The inverse of `{tf_name[1:]}`: a real signal from the unique bins of a
    Hermitian spectrum over the inner {rank} axis/axes (follows `tf.signal.{tf_name}`).

    Args:
        input_tensor: complex64 or complex128 of rank >= {rank}; Python lists become complex64.
        fft_length: {rank} positive ints, the output's inner shape. The input's inner axes
            are cropped or zero-padded to ``[*fft_length[:-1], fft_length[-1] // 2 + 1]``.
            Default: the inner axes' lengths, the innermost ``2 * (n - 1)``.

    Returns:
        float32 (for complex64) or float64 (complex128), of shape ``[..., *fft_length]``.
        The imaginary parts of the zero-frequency (and, for an even length, the Nyquist) bins
        are ignored, as by TensorFlow.

    Raises:
        ValueError: an input that is not complex64 or complex128 (as TensorFlow).
        InvalidArgumentError: a rank below {rank}, ``fft_length`` not of shape [{rank}] or not
            positive.

    {doc_example}
    """
    return op


rfft = _r2c_op(1, "rfft")
irfft = _c2r_op(1, "irfft")
rfft2d = _r2c_op(2, "rfft2d")
irfft2d = _c2r_op(2, "irfft2d")
rfft3d = _r2c_op(3, "rfft3d")
irfft3d = _c2r_op(3, "irfft3d")


# -- shifts --------------------------------------------------------------------------------------


def _shift(x, axes, op: str, inverse: bool) -> Tensor:
    x = tensor(x, op)
    nd = x.ndim
    if axes is None:
        axes = tuple(range(nd))
    else:
        axes = int_list(axes, op, "axes")
    for a in axes:
        if not -nd <= a < nd:
            raise invalid(op, f"axes {a} is out of range for a tensor of rank {nd}.")
    if not axes:
        return x
    shape = x._value.shape
    shifts = [(-(shape[a] // 2) if inverse else shape[a] // 2) for a in axes]
    return roll(x, shifts, list(axes))


def fftshift(x, axes=None, name=None) -> Tensor:
    """Moves the zero-frequency bin to the middle: rolls each axis in ``axes`` by half its
    length (follows `tf.signal.fftshift`, NumPy's `numpy.fft.fftshift`).

    Args:
        x: any shape and dtype.
        axes: an int or ints; None (the default) shifts every axis.

    Raises:
        InvalidArgumentError: an axis out of range. TypeError: non-integer axes.

    >>> ek.signal.fftshift(ek.constant([0, 1, 2, 3, 4, -5, -4, -3, -2, -1])).numpy()
    array([-5, -4, -3, -2, -1,  0,  1,  2,  3,  4], dtype=int32)
    """
    return _shift(x, axes, "fftshift", False)


def ifftshift(x, axes=None, name=None) -> Tensor:
    """The inverse of `fftshift` (they differ for odd lengths; follows `tf.signal.ifftshift`).

    Args:
        x: any shape and dtype.
        axes: an int or ints; None (the default) shifts every axis.

    Raises:
        InvalidArgumentError: an axis out of range. TypeError: non-integer axes.

    >>> ek.signal.ifftshift(ek.constant([-2, -1, 0, 1, 2])).numpy()
    array([ 0,  1,  2, -2, -1], dtype=int32)
    """
    return _shift(x, axes, "ifftshift", True)


# -- framing ---------------------------------------------------------------------------------


def _frame_fwd(xp, x, frame_length, frame_step, axis):
    frames = max(0, 1 + (x.shape[axis] - frame_length) // frame_step)
    idx = xp.arange(frames)[:, None] * frame_step + xp.arange(frame_length)[None, :]
    return xp.take(x, idx, axis=axis)


def _overlap_add_fwd(xp, y, frame_step, axis, length):
    """Sums frames ``y[..., f, j, ...]`` (at ``axis``, ``axis + 1``) into position
    ``f * frame_step + j`` of an axis of ``length``: one slice-add per frame_step-wide segment."""
    y = xp.moveaxis(y, (axis, axis + 1), (-2, -1))
    lead, (frames, frame_length) = y.shape[:-2], y.shape[-2:]
    segments = -(-frame_length // frame_step)
    padded = xp.zeros((*lead, frames, segments * frame_step), y.dtype)
    padded[..., :frame_length] = y
    padded = padded.reshape((*lead, frames, segments, frame_step))
    total = max(length, (frames + segments - 1) * frame_step)
    out = xp.zeros((*lead, total), y.dtype)
    for s in range(segments):
        piece = padded[..., s, :].reshape((*lead, frames * frame_step))
        out[..., s * frame_step : (s + frames) * frame_step] += piece
    return xp.ascontiguousarray(xp.moveaxis(out[..., :length], -1, axis))


_frame = Primitive("Frame", _frame_fwd)
_overlap_add = Primitive("OverlapAndAdd", _overlap_add_fwd)
# Each is the other's adjoint.
defvjp(
    _frame,
    lambda g, ans, x, frame_length, frame_step, axis: apply(
        _overlap_add, (g,), {"frame_step": frame_step, "axis": axis, "length": x._value.shape[axis]}
    ),
)
defvjp(
    _overlap_add,
    lambda g, ans, y, frame_step, axis, length: apply(
        _frame,
        (g,),
        {"frame_length": y._value.shape[axis + 1], "frame_step": frame_step, "axis": axis},
    ),
)


def scalar_int(value, op: str, arg: str) -> int:
    """A Python int from an int, NumPy integer or integer scalar Tensor.

    Raises:
        ValueError: a value that is not a scalar (as TensorFlow's rank check).
        TypeError: a value that is not an integer.
    """
    if isinstance(value, Tensor):
        if value._value.dtype.kind not in "iu":
            raise TypeError(
                f"{op}: {arg} must be an integer. Received: a {value.dtype.name} tensor."
            )
        value = value.numpy()
    if np.ndim(value) != 0:
        raise ValueError(f"{op}: {arg} must be a scalar. Received: shape {np.shape(value)}.")
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{op}: {arg} must be an integer. Received: {value!r}.")
    try:
        return operator.index(value.item() if isinstance(value, np.ndarray) else value)
    except TypeError:
        raise TypeError(f"{op}: {arg} must be an integer. Received: {value!r:.60}.") from None


def positive_step(value, op: str) -> int:
    step = scalar_int(value, op, "frame_step")
    if step <= 0:
        raise invalid(op, f"frame_step must be positive. Received: frame_step={step}.")
    return step


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Frames of ``frame_length`` samples every ``frame_step`` samples along ``axis``, which
    becomes the two axes ``[frames, frame_length]`` (follows `tf.signal.frame`).

    Without ``pad_end`` only frames that fit are kept: ``1 + (N - frame_length) //
    frame_step`` of them, none when ``frame_length > N`` (as TensorFlow). With it the signal is
    padded with ``pad_value`` so that ``-(-N // frame_step)`` frames start inside it.

    Args:
        signal: a tensor of rank >= 1, any dtype.
        frame_length: a non-negative int (or integer scalar tensor).
        frame_step: a positive int.
        pad_end: pad the end of the signal (see above).
        pad_value: a scalar of the signal's dtype (no gradient).
        axis: the axis to frame, negative counting from the end.

    Returns:
        A tensor of shape ``[..., frames, frame_length, ...]`` and ``signal``'s dtype.

    Raises:
        ValueError: a scalar signal; frame_length, frame_step, pad_value or axis not scalar.
        InvalidArgumentError: ``frame_length < 0``, ``frame_step <= 0`` (TensorFlow fails on
            0 by dividing by zero and returns no frames for negative steps), ``axis`` out of
            range. TypeError: non-integer frame_length, frame_step or axis.

    >>> ek.signal.frame(ek.range(7), frame_length=3, frame_step=2).numpy()
    array([[0, 1, 2],
           [2, 3, 4],
           [4, 5, 6]], dtype=int32)
    """
    op = "frame"
    x = tensor(signal, op)
    if x.ndim < 1:
        raise ValueError(f"{op}: signal must have rank at least 1. Received: a scalar.")
    length = scalar_int(frame_length, op, "frame_length")
    step = positive_step(frame_step, op)
    ax = scalar_int(axis, op, "axis")
    if not -x.ndim <= ax < x.ndim:
        raise invalid(op, f"axis {ax} is out of range for a signal of rank {x.ndim}.")
    ax %= x.ndim
    if length < 0:
        raise invalid(op, f"frame_length must be non-negative. Received: {length}.")
    if pad_end:
        if np.ndim(pad_value.numpy() if isinstance(pad_value, Tensor) else pad_value) != 0:
            raise ValueError(f"{op}: pad_value must be a scalar. Received: {pad_value!r:.60}.")
        n = x._value.shape[ax]
        frames = -(-n // step)
        extra = max(0, length + step * (frames - 1) - n)
        if extra:
            paddings = [[0, 0]] * x.ndim
            paddings[ax] = [0, extra]
            x = pad(x, paddings, constant_values=pad_value)
        if length == 0:  # empty frames fit past the end too; keep TensorFlow's -(-N // step)
            out = apply(_frame, (x,), {"frame_length": 0, "frame_step": step, "axis": ax})
            return out[(slice(None),) * ax + (slice(0, frames),)]
    return apply(_frame, (x,), {"frame_length": length, "frame_step": step, "axis": ax})


def overlap_and_add(signal, frame_step, name=None) -> Tensor:
    """Sums overlapping frames back into a signal: frame ``f``'s sample ``j`` lands at
    ``f * frame_step + j`` (follows `tf.signal.overlap_and_add`; the adjoint of `frame`).

    Args:
        signal: ``[..., frames, frame_length]``, any numeric dtype.
        frame_step: a positive int; may exceed frame_length (gaps are zeros).

    Returns:
        ``[..., (frames - 1) * frame_step + frame_length]``, ``signal``'s dtype.

    Raises:
        ValueError: a signal of rank below 2; a frame_step that is not a scalar.
        InvalidArgumentError: ``frame_step <= 0``. TypeError: a non-integer frame_step.

    >>> ek.signal.overlap_and_add(ek.constant([[1, 1, 1], [2, 2, 2]]), frame_step=2).numpy()
    array([1, 1, 3, 2, 2], dtype=int32)
    """
    op = "overlap_and_add"
    y = tensor(signal, op)
    if y.ndim < 2:
        raise ValueError(
            f"{op}: signal must have rank at least 2 ([..., frames, frame_length]). Received: "
            f"shape {tuple(y._value.shape)}."
        )
    step = positive_step(frame_step, op)
    frames, frame_length = y._value.shape[-2:]
    length = max(0, (frames - 1) * step + frame_length)
    return apply(_overlap_add, (y,), {"frame_step": step, "axis": y.ndim - 2, "length": length})
