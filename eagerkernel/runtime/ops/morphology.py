"""Grayscale morphology on NHWC images: ``dilation2d`` (the max-plus correlation of an image
with a structuring function per channel) and ``erosion2d`` (its dual), following TensorFlow
2's `tf.nn.dilation2d` and `tf.nn.erosion2d`.

Dilation2D is a primitive whose VJPs are TensorFlow's Dilation2DBackpropInput and
Dilation2DBackpropFilter: each output's cotangent goes to the one input element and the one
filter tap that gave its maximum (the first in row-major filter order, as TensorFlow's CPU
kernel). Those two are linear in the cotangent; their VJPs gather from the same positions, so
the gradients can be differentiated again (TensorFlow registers no gradient for them).
Erosion is built of ops, as TensorFlow builds it: ``-dilation2d(-value, reverse(filters))``.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..core.dispatch import Primitive, defvjp
from ..core.errors import InvalidArgumentError, UnimplementedError
from ..core.tensor import Tensor
from ._core import apply, dtype_error, dtype_unsupported, tensor
from .array_ops import reverse
from .conv import pad_spatial, windows_view
from .elementwise import negative

__all__ = ["dilation2d", "erosion2d"]


# -- arguments ----------------------------------------------------------------------------------


def _window_attr(value, op: str, arg: str) -> tuple[int, int]:
    """TensorFlow's list attribute ``[1, height, width, 1]`` as ``(height, width)``."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{op}: {arg} must be a list of 4 ints [1, h, w, 1], got {value!r}.")
    if not all(isinstance(v, numbers.Integral) for v in value):
        raise TypeError(f"{op}: {arg} must be a list of 4 ints [1, h, w, 1], got {value!r}.")
    vals = [int(v) for v in value]
    if len(vals) != 4:
        raise InvalidArgumentError(
            None, op, f"{op}: {arg} must have 4 entries [1, h, w, 1], got {vals}."
        )
    if vals[0] != 1 or vals[3] != 1:
        raise UnimplementedError(
            None,
            op,
            f"{op}: {arg} {vals} must be 1 in the batch and depth dimensions; only the "
            "spatial dimensions are supported, as in TensorFlow.",
        )
    if vals[1] < 1 or vals[2] < 1:
        raise InvalidArgumentError(None, op, f"{op}: {arg} must be > 0, got {vals}.")
    return vals[1], vals[2]


def _padding(padding, op: str) -> str:
    if isinstance(padding, bytes):
        padding = padding.decode("latin-1")
    if not isinstance(padding, str):
        raise TypeError(f"{op}: padding must be the string 'SAME' or 'VALID', got {padding!r}.")
    if padding not in ("SAME", "VALID"):
        raise InvalidArgumentError(
            None, op, f"{op}: padding must be 'SAME' or 'VALID', got {padding!r}."
        )
    return padding


def _trunc_div(a: int, b: int) -> int:
    """C++'s integer division (toward zero), which TensorFlow's output sizes use."""
    q = abs(a) // b
    return q if a >= 0 else -q


def _windowed(n: int, k: int, rate: int, stride: int, padding: str, op: str):
    """TensorFlow's GetWindowedOutputSize for a filter of ``k`` taps ``rate`` apart:
    ``(output size, (pad before, pad after))``."""
    k_eff = k + (k - 1) * (rate - 1)
    if padding == "VALID":
        out, pads = _trunc_div(n - k_eff + stride, stride), (0, 0)
    else:
        out = (n + stride - 1) // stride
        need = max(0, (out - 1) * stride + k_eff - n)
        pads = (need // 2, need - need // 2)
    if out < 0:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: computed output size would be negative: {out} [input_size: {n}, "
            f"effective_filter_size: {k_eff}, stride: {stride}].",
        )
    return out, pads


def _morphology_args(op, arg, value, filters, strides, padding, data_format, dilations):
    """``(x, w, params)`` of a dilation or erosion call, checked as TensorFlow checks them."""
    if data_format != "NHWC":
        raise ValueError(
            f"{op}: data_format values other than 'NHWC' are not supported. Received: "
            f"data_format={data_format!r}"
        )
    x = tensor(value, op)
    w = tensor(filters, op, x._value.dtype)
    kind = x._value.dtype.kind
    if kind not in "fiu" or (kind == "u" and op == "erosion2d"):
        # erosion negates its input: TensorFlow's Neg has no unsigned kernel
        raise dtype_unsupported(op, x, "a signed number" if kind == "u" else "a real number", arg)
    if w._value.dtype != x._value.dtype:
        raise dtype_error(op, (x, w), (arg, "filters"))
    st = _window_attr(strides, op, "strides")
    rates = _window_attr(dilations, op, "dilations")
    pad = _padding(padding, op)
    if x.ndim != 4:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: {arg} must be 4-dimensional [batch, height, width, depth], got shape "
            f"{tuple(x._value.shape)}.",
        )
    if w.ndim != 3:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: filters must be 3-dimensional [height, width, depth], got shape "
            f"{tuple(w._value.shape)}.",
        )
    xs, ws = x._value.shape, w._value.shape
    if xs[3] != ws[2]:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: {arg} and filters must have the same depth: {xs[3]} vs {ws[2]} ({arg} "
            f"shape {tuple(xs)}, filters shape {tuple(ws)}).",
        )
    (oh, pads_h), (ow, pads_w) = (
        _windowed(xs[i + 1], ws[i], rates[i], st[i], pad, op) for i in range(2)
    )
    params = {"strides": st, "rates": rates, "pads": (pads_h, pads_w), "out_hw": (oh, ow)}
    return x, w, params


# -- array kernels (xp is numpy or cupy) --------------------------------------------------------


def _lowest(dtype):
    """Eigen's ``NumTraits<T>::lowest()``: where TensorFlow's kernel starts each maximum."""
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return np.array(info.min, dtype)


def _dilate(xp, x, w, strides, rates, pads, out_hw):
    """``(output, tap, found)``, TensorFlow's CPU kernel: each output is the largest
    ``x + w`` over the window's taps inside the input, NaN skipped, at least the dtype's
    lowest value; ``tap`` is the first tap (row-major) holding it and ``found`` is False where
    no tap beat the lowest value (all NaN or -inf, or no tap in the input)."""
    n, h, wd, c = x.shape
    kh, kw = w.shape[:2]
    (oh, ow), (sh, sw), (rh, rw) = out_hw, strides, rates
    lowest = _lowest(x.dtype)
    shape = (n, oh, ow, c)
    if kh * kw == 0 or 0 in shape:
        return xp.full(shape, lowest), xp.zeros(shape, np.int64), xp.zeros(shape, bool)
    xpad = pad_spatial(xp, x, pads)  # the padded taps are masked out below
    windows = windows_view(xp, xpad, (kh, kw), out_hw, strides, rates)  # (N, OH, OW, KH, KW, C)
    values = (windows + w).reshape(n, oh, ow, kh * kw, c)
    rows = np.arange(oh)[:, None] * sh - pads[0][0] + np.arange(kh)[None, :] * rh  # (OH, KH)
    cols = np.arange(ow)[:, None] * sw - pads[1][0] + np.arange(kw)[None, :] * rw  # (OW, KW)
    inside = ((rows >= 0) & (rows < h))[:, None, :, None] & ((cols >= 0) & (cols < wd))[
        None, :, None, :
    ]
    keep = xp.asarray(inside.reshape(1, oh, ow, kh * kw, 1))
    if x.dtype.kind == "f":
        keep = keep & ~xp.isnan(values)
    candidates = xp.where(keep, values, lowest)
    tap = xp.argmax(candidates, axis=3)  # the first maximum
    best = xp.take_along_axis(candidates, tap[:, :, :, None, :], axis=3)[:, :, :, 0]
    found = best > lowest
    return xp.where(found, best, lowest), tap, found


def _input_positions(xp, tap, found, filter_hw, input_hw, strides, rates, pads):
    """The (row, col) of the input element each output's maximum came from; where none was
    found, the window's first position inside the input (TensorFlow's kernel's default)."""
    oh, ow = tap.shape[1:3]
    kw = filter_hw[1]
    top = xp.asarray(np.arange(oh) * strides[0] - pads[0][0]).reshape(1, -1, 1, 1)
    left = xp.asarray(np.arange(ow) * strides[1] - pads[1][0]).reshape(1, 1, -1, 1)
    rows = xp.where(found, top + (tap // kw) * rates[0], xp.maximum(top, 0))
    cols = xp.where(found, left + (tap % kw) * rates[1], xp.maximum(left, 0))
    return xp.minimum(rows, input_hw[0] - 1), xp.minimum(cols, input_hw[1] - 1)


def _flat_input_index(xp, x, w, strides, rates, pads, out_hw):
    _, tap, found = _dilate(xp, x, w, strides, rates, pads, out_hw)
    n, h, wd, c = x.shape
    rows, cols = _input_positions(xp, tap, found, w.shape[:2], (h, wd), strides, rates, pads)
    batch = xp.arange(n).reshape(-1, 1, 1, 1)
    return ((batch * h + rows) * wd + cols) * c + xp.arange(c)


def _flat_filter_index(xp, x, w, strides, rates, pads, out_hw):
    _, tap, found = _dilate(xp, x, w, strides, rates, pads, out_hw)
    return xp.where(found, tap, 0) * w.shape[2] + xp.arange(w.shape[2])


def _dilation_fwd(xp, x, w, strides, rates, pads, out_hw):
    return _dilate(xp, x, w, strides, rates, pads, out_hw)[0]


def _scatter(xp, index, g, shape):
    out = xp.zeros(int(np.prod(shape)), g.dtype)
    if g.size and out.size:
        xp.add.at(out, index.reshape(-1), g.reshape(-1))
    return out.reshape(shape)


def _backprop_input_fwd(xp, x, w, g, strides, rates, pads, out_hw):
    """TensorFlow's Dilation2DBackpropInput: ``g`` added at each maximum's input element."""
    index = _flat_input_index(xp, x, w, strides, rates, pads, out_hw)
    return _scatter(xp, index, g, x.shape)


def _backprop_filter_fwd(xp, x, w, g, strides, rates, pads, out_hw):
    """TensorFlow's Dilation2DBackpropFilter: ``g`` added at each maximum's filter tap."""
    index = _flat_filter_index(xp, x, w, strides, rates, pads, out_hw)
    return _scatter(xp, index, g, w.shape)


def _gather_input_fwd(xp, x, w, h, strides, rates, pads, out_hw):
    """The adjoint of the input scatter: ``h`` read at each maximum's input element."""
    index = _flat_input_index(xp, x, w, strides, rates, pads, out_hw)
    return h.reshape(-1)[index] if h.size else xp.zeros(index.shape, h.dtype)


def _gather_filter_fwd(xp, x, w, h, strides, rates, pads, out_hw):
    """The adjoint of the filter scatter: ``h`` read at each maximum's filter tap."""
    index = _flat_filter_index(xp, x, w, strides, rates, pads, out_hw)
    return h.reshape(-1)[index] if h.size else xp.zeros(index.shape, h.dtype)


# The positions of the maxima are piecewise constant in x and w: the scatters and gathers
# are linear in their last input only, and each is the other's VJP.
_dilation = Primitive("Dilation2D", _dilation_fwd)
_backprop_input = Primitive("Dilation2DBackpropInput", _backprop_input_fwd)
_backprop_filter = Primitive("Dilation2DBackpropFilter", _backprop_filter_fwd)
_gather_input = Primitive("Dilation2DGatherInput", _gather_input_fwd)
_gather_filter = Primitive("Dilation2DGatherFilter", _gather_filter_fwd)
defvjp(
    _dilation,
    lambda g, ans, x, w, **p: apply(_backprop_input, (x, w, g), p),
    lambda g, ans, x, w, **p: apply(_backprop_filter, (x, w, g), p),
)
defvjp(_backprop_input, None, None, lambda h, ans, x, w, g, **p: apply(_gather_input, (x, w, h), p))
defvjp(_gather_input, None, None, lambda g, ans, x, w, h, **p: apply(_backprop_input, (x, w, g), p))
defvjp(
    _backprop_filter, None, None, lambda h, ans, x, w, g, **p: apply(_gather_filter, (x, w, h), p)
)
defvjp(
    _gather_filter, None, None, lambda g, ans, x, w, h, **p: apply(_backprop_filter, (x, w, g), p)
)


# -- public ops ---------------------------------------------------------------------------------


def dilation2d(input, filters, strides, padding, data_format, dilations, name=None) -> Tensor:
    """Grayscale dilation of NHWC images by a structuring function per channel (follows
    `tf.nn.dilation2d`, TensorFlow 2's signature: every argument but ``name`` is required)::

        output[b, y, x, c] = max over (dy, dx) of
            input[b, y * stride_h + dy * rate_h - pad_top,
                     x * stride_w + dx * rate_w - pad_left, c] + filters[dy, dx, c]

    the maximum taken over the taps inside the input (``"SAME"`` pads as with -infinity).
    Max pooling is the case of an all-zero filter of the window's size. As TensorFlow's
    kernel, NaN values are skipped and a window with no value above the dtype's lowest
    finite value (all NaN or -inf) gives that lowest value; integers wrap on overflow.

    Args:
        input: ``[batch, in_height, in_width, depth]``; float16, float32, float64 or a
            (signed or unsigned) integer type.
        filters: ``[filter_height, filter_width, depth]``, ``input``'s dtype.
        strides: ``[1, stride_height, stride_width, 1]``, a list of 4 positive ints.
        padding: ``"SAME"`` (output ``ceil(in / stride)``) or ``"VALID"`` (output
            ``(in - effective_filter + stride) // stride``, which may be 0), upper case as in
            TensorFlow. The effective filter size is ``(k - 1) * rate + 1``.
        data_format: ``"NHWC"``, the only format supported (as in TensorFlow).
        dilations: ``[1, rate_height, rate_width, 1]``: the spacing of the filter taps.

    Returns:
        ``[batch, out_height, out_width, depth]``, ``input``'s dtype. Differentiable in
        ``input`` and ``filters`` (floating dtypes) as TensorFlow's Dilation2D: each output's
        cotangent goes to the input element and the filter tap of its maximum (the first one
        in row-major filter order on ties); the gradients are differentiable again.

    Raises:
        ValueError: ``data_format`` other than ``"NHWC"``.
        TypeError: ``strides`` or ``dilations`` not a list of ints, ``padding`` not a string.
        InvalidArgumentError: ``strides`` or ``dilations`` without 4 entries or below 1 (a
            rate below 1 is refused here; TensorFlow computes an unspecified result), an
            unknown padding, ``input`` not 4-D, ``filters`` not 3-D, different depths, or a
            negative output size; `UnsupportedDTypeError` (also a TypeError) for bool,
            complex or string input; `DTypeMismatchError` for filters of another dtype.
        UnimplementedError: a stride or rate other than 1 in the batch or depth dimension.

    >>> x = ek.reshape(ek.range(16.0), [1, 4, 4, 1])
    >>> y = ek.nn.dilation2d(x, ek.zeros([2, 2, 1]), strides=[1, 1, 1, 1], padding="VALID",
    ...                      data_format="NHWC", dilations=[1, 1, 1, 1])
    >>> y.numpy()[0, :, :, 0]
    array([[ 5.,  6.,  7.],
           [ 9., 10., 11.],
           [13., 14., 15.]], dtype=float32)
    """
    x, w, params = _morphology_args(
        "dilation2d", "input", input, filters, strides, padding, data_format, dilations
    )
    return apply(_dilation, (x, w), params)


def erosion2d(value, filters, strides, padding, data_format, dilations, name=None) -> Tensor:
    """Grayscale erosion of NHWC images by a structuring function per channel (follows
    `tf.nn.erosion2d`, TensorFlow 2's signature)::

        output[b, y, x, c] = min over (dy, dx) of
            value[b, y * stride_h - dy * rate_h, x * stride_w - dx * rate_w, c]
            - filters[dy, dx, c]

    computed as TensorFlow computes it, by duality:
    ``-dilation2d(-value, reverse(filters, [0, 1]))``. So an output whose minimum is 0 is
    ``-0.0``, NaNs are skipped and a window with nothing below the dtype's largest value
    gives that value, as in TensorFlow.

    Args:
        value: ``[batch, in_height, in_width, depth]``; float16, float32, float64 or a signed
            integer type.
        filters: ``[filter_height, filter_width, depth]``, ``value``'s dtype.
        strides, padding, data_format, dilations: as `dilation2d`.

    Returns:
        ``[batch, out_height, out_width, depth]``, ``value``'s dtype; differentiable in
        ``value`` and ``filters`` through its ops.

    Raises:
        As `dilation2d`; `UnsupportedDTypeError` also for unsigned integers (TensorFlow's
        negation has no unsigned kernel).

    >>> x = ek.reshape(ek.range(16.0), [1, 4, 4, 1])
    >>> y = ek.nn.erosion2d(x, ek.zeros([2, 2, 1]), strides=[1, 1, 1, 1], padding="VALID",
    ...                     data_format="NHWC", dilations=[1, 1, 1, 1])
    >>> y.numpy()[0, :, :, 0]
    array([[-0.,  1.,  2.],
           [ 4.,  5.,  6.],
           [ 8.,  9., 10.]], dtype=float32)
    """
    x, w, params = _morphology_args(
        "erosion2d", "value", value, filters, strides, padding, data_format, dilations
    )
    return negative(apply(_dilation, (negative(x), reverse(w, [0, 1])), params))
