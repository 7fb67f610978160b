"""Convolution (`ek.nn.conv2d`, `conv2d_transpose`), NHWC as on TF's CPU, and the window
helpers (padding, strided views of every window) the pools of ``pool2d.py`` share.

`conv2d` is im2col and one GEMM: a strided view of the padded input gives every window without
copying, one copy lays the windows out as rows, and a single matrix product with the reshaped
filters computes all outputs. Its VJPs are ops again: the input VJP is
``Conv2DBackpropInput`` (one GEMM giving every window's columns, then col2im), the filter VJP
``Conv2DBackpropFilter`` (one GEMM on the columns conv2d saved while a tape recorded, or on a
fresh im2col). The three are
bilinear and each one's VJPs are the other two, so derivatives of any order are convolutions
too.

On the CPU, col2im runs in one pass of C where the extension is built (`kernels.py`; the
same results, bit for bit).

Padding follows TensorFlow: ``"VALID"`` adds none, ``"SAME"`` gives ``ceil(size / stride)``
outputs with ``pad_total = max((out - 1) * stride + (k - 1) * dilation + 1 - size, 0)``, the
extra row or column going to the bottom or right; an explicit list
``[[0, 0], [top, bottom], [left, right], [0, 0]]`` is accepted by `conv2d`.

Errors follow TensorFlow's CPU kernels: a wrong rank or a channel count the filters do not take
is an `~ek.errors.InvalidArgumentError` (a window larger than the padded input gives an empty
output, `window_empty`); malformed
``strides``, ``ksize`` or ``padding`` arguments, which TensorFlow checks in Python, are
ValueErrors. NCHW input and grouped convolutions are not implemented here and raise
`~ek.errors.UnimplementedError` (TensorFlow's own CPU Conv2D raised that before its oneDNN
kernels, which now run both).
"""

from __future__ import annotations

import numbers

import numpy as np

from ..core.dispatch import Primitive, defvjp
from ..core.errors import InvalidArgumentError, UnimplementedError
from ..core.tensor import Tensor
from ..native import blas, kernels, parallel
from . import cudnn
from ._core import apply, dtype_error, tensor
from .window_empty import empty_output, is_empty

__all__ = ["conv2d", "conv2d_transpose"]

# -- array kernels (xp is numpy or cupy) --------------------------------------------------------


def pad_spatial(xp, x, pads, value=0):
    """The NHWC array ``x`` padded by ``pads`` ``((top, bottom), (left, right))`` with
    ``value``; ``x`` itself when there is no padding."""
    (pt, pb), (pl, pr) = pads
    if not (pt or pb or pl or pr):
        return x
    n, h, w, c = x.shape
    out = xp.full((n, h + pt + pb, w + pl + pr, c), value, dtype=x.dtype)
    out[:, pt : pt + h, pl : pl + w] = x
    return out


def crop(x, pads, shape):
    (pt, _), (pl, _) = pads
    if x.shape == tuple(shape):
        return x
    return x[:, pt : pt + shape[1], pl : pl + shape[2]]


def output_hw(in_hw, ksize, strides, dilations, pads) -> tuple[int, int]:
    """The (height, width) of a window op's output for the input size ``in_hw``, kernel size,
    strides, dilations and explicit ``pads``."""
    return tuple(
        (n + p0 + p1 - ((k - 1) * d + 1)) // s + 1
        for n, k, s, d, (p0, p1) in zip(in_hw, ksize, strides, dilations, pads)
    )


def windows_view(xp, xpad, ksize, out_hw, strides, dilations):
    """A view (N, OH, OW, KH, KW, C) of every window of the padded input: no copy."""
    sn, sh, sw, sc = xpad.strides
    shape = (xpad.shape[0], *out_hw, *ksize, xpad.shape[3])
    st = (sn, sh * strides[0], sw * strides[1], sh * dilations[0], sw * dilations[1], sc)
    return xp.lib.stride_tricks.as_strided(xpad, shape=shape, strides=st)


def window_tap(xpad, i, j, out_hw, strides, dilations):
    """The (N, OH, OW, C) slice of the padded input that kernel position (i, j) reads."""
    (oh, ow), (sh, sw), (dh, dw) = out_hw, strides, dilations
    rows = slice(i * dh, i * dh + (oh - 1) * sh + 1, sh)
    return xpad[:, rows, slice(j * dw, j * dw + (ow - 1) * sw + 1, sw)]


def _im2col(xp, x, ksize, out_hw, strides, dilations, pads, buffer=None):
    """Rows of windows: (N * OH * OW, KH * KW * C) (the one copy of the input), written into
    ``buffer`` (a flat array of at least that size) when given."""
    xpad = pad_spatial(xp, x, pads)
    n, c = x.shape[0], x.shape[3]
    kh, kw = ksize

    def empty(shape):
        if buffer is None:
            return xp.empty(shape, dtype=x.dtype)
        return buffer[: int(np.prod(shape))].reshape(shape)

    if c == 1:
        # One channel (grayscale input): copy each kernel position's plane, contiguous runs
        # on both sides, and hand BLAS the transposed view.
        cols = empty((kh, kw, n, *out_hw))
        for i in range(kh):
            for j in range(kw):
                cols[i, j] = window_tap(xpad, i, j, out_hw, strides, dilations)[..., 0]
        return cols.reshape(kh * kw, -1).T
    win = windows_view(xp, xpad, ksize, out_hw, strides, dilations)
    cols = empty(win.shape)  # copyto: faster than win.reshape's copy; by images over the cores
    parallel.run_rows(lambda a, b: xp.copyto(cols[a:b], win[a:b]), n, cols.size * (xp is np))
    return cols.reshape(-1, kh * kw * c)


#: Above this many bytes of im2col columns, a convolution (and its filter gradient) runs on
#: slices of the batch, each through one reused buffer of at most this size: a single huge
#: buffer (7x7 windows of 128 channels over a 28x28 batch of 64 take 1.2 GiB) costs more in
#: fresh pages than the GEMM, and is not kept for the filter gradient either.
COLS_MAX_BYTES = 64 << 20


def _batch_chunks(n: int, per_example: int) -> int:
    """Examples per slice so that a slice's columns fit `COLS_MAX_BYTES` (at least one)."""
    return max(1, COLS_MAX_BYTES // max(per_example, 1)) if per_example * n > COLS_MAX_BYTES else n


def col2im(xp, cols, input_shape, strides, dilations, pads):
    """Adjoint of the window view: sums ``cols`` (N, OH, OW, KH, KW, C), im2col's layout,
    back into the input, kernel position by kernel position in row-major order."""
    n, oh, ow, kh, kw, c = cols.shape
    (pt, pb), (pl, pr) = pads
    hp, wp = input_shape[1] + pt + pb, input_shape[2] + pl + pr
    if xp is np and strides != (kh, kw):
        out = kernels.col2im(cols, (n, hp, wp, c), strides, dilations)  # one pass of C
        if out is not None:
            return crop(out, pads, input_shape)
    out = xp.zeros((n, hp, wp, c), dtype=cols.dtype)
    if strides == (kh, kw) and dilations == (1, 1):  # tiles: nothing overlaps, one transpose
        tiles = cols.transpose(0, 1, 3, 2, 4, 5).reshape(n, oh * kh, ow * kw, c)
        out[:, : oh * kh, : ow * kw] = tiles
    else:
        for i in range(kh):
            for j in range(kw):
                window_tap(out, i, j, (oh, ow), strides, dilations)[...] += cols[:, :, :, i, j]
    return crop(out, pads, input_shape)


def _gemm(xp, a, b):
    return blas.matmul(a, b) if xp is np else xp.matmul(a, b)  # small: one BLAS thread


def _few_outputs(strides, filter_shape, ratio: int = 1) -> bool:
    """Whether a stride-1 convolution has fewer (``ratio`` times fewer) output than input
    channels: the kernels below then move KH * KW * cout numbers per pixel, not KH * KW * cin.
    The forward asks for 4x (on 2 cores, halving the channels was no faster than im2col)."""
    cin, cout = filter_shape[2], filter_shape[3]
    return strides == (1, 1) and (cout < cin if ratio == 1 else cout * ratio <= cin)


def _full_pads(ksize, dilations, pads):
    """The padding of the "full" convolution, the adjoint of a stride-1 one with ``pads``:
    ``dilation * (k - 1)`` minus each side's; None if one is negative (a wide padding)."""
    full = tuple((d * (k - 1) - a, d * (k - 1) - b) for k, d, (a, b) in zip(ksize, dilations, pads))
    return full if min(full[0] + full[1]) >= 0 else None


def _contract_then_shift(xp, x, w, dilations, pads, out_hw):
    """A stride-1 convolution as one GEMM over the channels, ``z = x @ w`` (every kernel
    position's part of every pixel: N, H, W, KH, KW, cout), then the sum of the KH * KW
    shifted planes; by slices of the batch when ``z`` would pass `COLS_MAX_BYTES`."""
    n, h, wd, cin = x.shape
    kh, kw, _, cout = w.shape
    step = _batch_chunks(n, h * wd * kh * kw * cout * x.dtype.itemsize)
    if step < n:
        slices = range(0, n, step)
        return xp.concatenate(
            [_contract_then_shift(xp, x[i : i + step], w, dilations, pads, out_hw) for i in slices]
        )
    wmat = w.transpose(2, 0, 1, 3).reshape(cin, kh * kw * cout)
    z = _gemm(xp, x.reshape(-1, cin), wmat).reshape(n, h, wd, kh * kw * cout)
    zpad = pad_spatial(xp, z, pads).reshape(n, h + sum(pads[0]), wd + sum(pads[1]), kh, kw, -1)
    out = None
    for i in range(kh):
        for j in range(kw):
            tap = window_tap(zpad[:, :, :, i, j], i, j, out_hw, (1, 1), dilations)
            out = tap.copy() if out is None else xp.add(out, tap, out=out)
    return out


def _conv_fwd(xp, x, w, strides, dilations, pads):
    """Conv2D's forward: ``(output, saved)``, where ``saved`` holds the im2col columns (None
    from cuDNN), which the filter gradient then takes instead of a second im2col (torch's
    "saved tensors"). They travel on the tape's record and die with it."""
    if xp is not np and cudnn.available(xp):
        out = cudnn.conv2d(xp, x, w, strides, dilations, pads)
        if out is not None:
            return out, None
    kh, kw, _, cout = w.shape
    out_hw = output_hw(x.shape[1:3], (kh, kw), strides, dilations, pads)
    n = x.shape[0]
    if (kh, kw) == (1, 1) and strides == (1, 1) and not any(pads[0] + pads[1]):
        cols = x.reshape(-1, x.shape[3])  # a 1x1 convolution: the pixels are the columns
        return _gemm(xp, cols, w.reshape(-1, cout)).reshape(n, *out_hw, cout), cols
    if _few_outputs(strides, w.shape, ratio=4):
        return _contract_then_shift(xp, x, w, dilations, pads, out_hw), None
    per_example = out_hw[0] * out_hw[1] * kh * kw * x.shape[3] * x.dtype.itemsize
    step = _batch_chunks(n, per_example)
    if step < n:  # slices through one buffer; the filter gradient makes its own columns
        wmat = w.reshape(-1, cout)
        out = xp.empty((n, *out_hw, cout), dtype=np.result_type(x.dtype, w.dtype))
        buffer = xp.empty(step * per_example // x.dtype.itemsize, dtype=x.dtype)
        for lo in range(0, n, step):
            cols = _im2col(
                xp, x[lo : lo + step], (kh, kw), out_hw, strides, dilations, pads, buffer
            )
            out[lo : lo + step] = _gemm(xp, cols, wmat).reshape(-1, *out_hw, cout)
        return out, None
    cols = _im2col(xp, x, (kh, kw), out_hw, strides, dilations, pads)
    out = _gemm(xp, cols, w.reshape(-1, cout)).reshape(n, *out_hw, cout)
    return out, cols


def _backprop_input_fwd(xp, g, w, input_shape, strides, dilations, pads):
    if xp is not np and cudnn.available(xp):
        out = cudnn.conv2d_backprop_input(xp, g, w, input_shape, strides, dilations, pads)
        if out is not None:
            return out
    n, oh, ow, cout = g.shape
    kh, kw, cin, _ = w.shape
    if (kh, kw) == (1, 1) and strides == (1, 1) and not any(pads[0] + pads[1]):
        return _gemm(xp, g.reshape(-1, cout), w.reshape(cin, cout).T).reshape(input_shape)
    full = _full_pads((kh, kw), dilations, pads) if _few_outputs(strides, w.shape) else None
    if full is not None:
        # Fewer output than input channels: the "full" convolution of g with the flipped,
        # transposed kernel, KH * KW * cout numbers of columns per pixel, not KH * KW * cin.
        flipped = xp.ascontiguousarray(w[::-1, ::-1].transpose(0, 1, 3, 2))
        return _conv_fwd(xp, g, flipped, (1, 1), dilations, full)[0]
    # One GEMM gives every window's columns, in im2col's layout, then col2im sums them.
    cols = _gemm(xp, g.reshape(-1, cout), w.reshape(kh * kw * cin, cout).T)
    return col2im(xp, cols.reshape(n, oh, ow, kh, kw, cin), input_shape, strides, dilations, pads)


def _backprop_filter_fwd(xp, x, g, filter_shape, strides, dilations, pads, cols=None):
    if xp is not np and cudnn.available(xp):
        out = cudnn.conv2d_backprop_filter(xp, x, g, filter_shape, strides, dilations, pads)
        if out is not None:
            return out
    kh, kw, cin, cout = filter_shape
    out_hw = tuple(g.shape[1:3])
    few = cols is None and _few_outputs(strides, filter_shape)
    full = _full_pads((kh, kw), dilations, pads) if few else None
    if full is not None and x.shape[0]:  # an empty batch takes the GEMM below (zeros)
        # g's columns for the "full" convolution against x's pixels, by slices of the batch
        n, hw = x.shape[0], x.shape[1:3]
        step = _batch_chunks(n, hw[0] * hw[1] * kh * kw * cout * g.dtype.itemsize)
        total = None
        for lo in range(0, n, step):
            gcols = _im2col(xp, g[lo : lo + step], (kh, kw), hw, (1, 1), dilations, full)
            part = _gemm(xp, x[lo : lo + step].reshape(-1, cin).T, gcols)
            total = part if total is None else total + part
        flipped = total.reshape(cin, kh, kw, cout)
        return xp.ascontiguousarray(flipped[:, ::-1, ::-1].transpose(1, 2, 0, 3))
    if cols is None:
        n = x.shape[0]
        per_example = out_hw[0] * out_hw[1] * kh * kw * x.shape[3] * x.dtype.itemsize
        step = _batch_chunks(n, per_example)
        if step < n:  # the sum over the batch, slice by slice through one buffer
            buffer = xp.empty(step * per_example // x.dtype.itemsize, dtype=x.dtype)
            total = None
            for lo in range(0, n, step):
                part = _im2col(
                    xp, x[lo : lo + step], (kh, kw), out_hw, strides, dilations, pads, buffer
                )
                dw = _gemm(xp, part.T, g[lo : lo + step].reshape(-1, cout))
                total = dw if total is None else total + dw
            return total.reshape(filter_shape)
        cols = _im2col(xp, x, (kh, kw), out_hw, strides, dilations, pads)
    return _gemm(xp, cols.T, g.reshape(-1, cout)).reshape(filter_shape)


# -- conv2d and its two VJP ops -----------------------------------------------------------------


def _conv(x, w, strides, dilations, pads):
    return apply(_conv2d, (x, w), {"strides": strides, "dilations": dilations, "pads": pads})


def _backprop_input(g, w, input_shape, strides, dilations, pads):
    params = {"strides": strides, "dilations": dilations, "pads": pads}
    return apply(_conv2d_input, (g, w), {"input_shape": tuple(input_shape), **params})


def _backprop_filter(x, g, filter_shape, strides, dilations, pads, cols=None):
    params = {"strides": strides, "dilations": dilations, "pads": pads}
    if cols is not None:  # the forward's im2col columns of x
        params["cols"] = cols
    return apply(_conv2d_filter, (x, g), {"filter_shape": tuple(filter_shape), **params})


_conv2d = Primitive("Conv2D", _conv_fwd, saves=True)
defvjp(
    _conv2d,
    lambda g, ans, x, w, saved, **p: _backprop_input(g, w, x._value.shape, **p),
    lambda g, ans, x, w, saved, **p: _backprop_filter(x, g, w._value.shape, cols=saved, **p),
)
# Bilinear in (g, w): <h, B(g, w)> = <conv(h, w), g> = <w, backprop_filter(h, g)>.
_conv2d_input = Primitive("Conv2DBackpropInput", _backprop_input_fwd)
defvjp(
    _conv2d_input,
    lambda h, ans, g, w, input_shape, **p: _conv(h, w, **p),
    lambda h, ans, g, w, input_shape, **p: _backprop_filter(h, g, w._value.shape, **p),
)
# Bilinear in (x, g): <h, F(x, g)> = <conv(x, h), g> = <x, backprop_input(g, h)>.
_conv2d_filter = Primitive("Conv2DBackpropFilter", _backprop_filter_fwd)
defvjp(
    _conv2d_filter,
    lambda h, ans, x, g, filter_shape, cols=None, **p: _backprop_input(g, h, x._value.shape, **p),
    lambda h, ans, x, g, filter_shape, cols=None, **p: _conv(x, h, **p),
)


# -- argument checking --------------------------------------------------------------------------


def hw_pair(value, op: str, arg: str) -> tuple[int, int]:
    """An int, or a list of 1, 2 or 4 ints (4: NHWC, with 1 for N and C), as (h, w)."""
    if isinstance(value, Tensor):
        value = value.numpy().tolist()
    if isinstance(value, numbers.Integral):
        vals = [int(value)] * 2
    else:
        try:
            vals = [int(v) for v in value]
        except (TypeError, ValueError):
            msg = f"{op}: {arg} must be an int or a list of ints, got {value!r}."
            raise ValueError(msg) from None
        if len(vals) == 1:
            vals = vals * 2
        elif len(vals) == 4:
            if vals[0] != 1 or vals[3] != 1:
                raise ValueError(
                    f"{op}: {arg} {vals} must be 1 in the batch and channel dimensions (NHWC)."
                )
            vals = vals[1:3]
        elif len(vals) != 2:
            raise ValueError(f"{op}: {arg} must have 1, 2 or 4 entries, got {value!r}.")
    if any(v < 1 for v in vals):
        raise InvalidArgumentError(None, op, f"{op}: {arg} must be positive, got {value!r}.")
    return vals[0], vals[1]


def explicit_paddings(padding, in_hw, ksize, strides, dilations, op: str):
    """TensorFlow's padding rule as ((top, bottom), (left, right))."""
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return ((0, 0), (0, 0))
        if mode == "SAME":
            pads = []
            for n, k, s, d in zip(in_hw, ksize, strides, dilations):
                total = max((-(-n // s) - 1) * s + (k - 1) * d + 1 - n, 0)
                pads.append((total // 2, total - total // 2))
            return tuple(pads)
    elif op in ("conv2d", "depthwise_conv2d", "max_pool2d") and padding is not None:
        try:
            pairs = [(int(a), int(b)) for a, b in padding]
        except (TypeError, ValueError):
            pairs = []
        if len(pairs) == 4 and pairs[0] == pairs[3] == (0, 0) and min(map(min, pairs)) >= 0:
            return (pairs[1], pairs[2])
        raise ValueError(
            f"{op}: explicit padding must be [[0, 0], [top, bottom], [left, right], [0, 0]] "
            f"with non-negative ints, got {padding!r}."
        )
    msg = f"{op}: padding must be 'SAME' or 'VALID', got {padding!r}."
    if isinstance(padding, str):  # an unknown name fails TensorFlow's attribute check
        raise InvalidArgumentError(None, op, msg)
    raise ValueError(msg)


def check_data_format(data_format, op: str) -> None:
    """Accepts NHWC (``"channels_last"``, None); NCHW raises UnimplementedError, as
    TensorFlow's CPU kernels do, anything else ValueError."""
    if data_format in ("NHWC", "channels_last", None):
        return
    msg = (
        f"{op}: data_format={data_format!r} is not supported; only NHWC runs on CPU, as in "
        "TensorFlow. Transpose NCHW input with ek.transpose(x, [0, 2, 3, 1])."
    )
    if data_format not in ("NCHW", "channels_first"):
        raise ValueError(msg)
    raise UnimplementedError(None, op, msg)


def check_nhwc_input(x: Tensor, op: str) -> None:
    """InvalidArgumentError unless ``x`` has rank 4; TypeError unless floating (max_pool2d: int)."""
    if x.ndim != 4:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: input must have rank 4 (batch, height, width, channels), got shape "
            f"{tuple(x._value.shape)}.",
        )
    if x._value.dtype.kind != "f" and ("max_pool" not in op or x._value.dtype.kind not in "iu"):
        raise TypeError(f"{op}: input must be a floating-point tensor, got {x.dtype.name}.")


def conv2d(
    input, filters, strides, padding, data_format="NHWC", dilations=None, name=None
) -> Tensor:
    """2-D convolution (cross-correlation, as every framework) (follows `tf.nn.conv2d`).

    Args:
        input: shape ``[batch, height, width, in_channels]`` (NHWC), floating.
        filters: shape ``[kh, kw, in_channels, out_channels]``, same dtype.
        strides: an int or a list of 1, 2 or 4 ints (``[1, sh, sw, 1]``).
        padding: ``"SAME"``, ``"VALID"`` or ``[[0, 0], [top, bottom], [left, right], [0, 0]]``.
        data_format: ``"NHWC"`` only; NCHW is not supported on CPU (as in TensorFlow).
        dilations: like ``strides`` (default 1): the spacing between kernel taps.

    Returns:
        Shape ``[batch, out_h, out_w, out_channels]``: ``out = ceil(in / stride)`` with SAME,
        ``ceil((in - (k - 1) * dilation) / stride)`` with VALID (0 where the filter does not
        fit: an empty output, as TF's). Differentiable in ``input`` and ``filters`` to any order.

    Raises:
        InvalidArgumentError: ranks other than 4, an input channel count the filters' does not
            divide (both shapes named).
        UnimplementedError: NCHW, or a grouped convolution (input channels a multiple of the
            filters' in_channels): not implemented here.
        ValueError: malformed strides, dilations or padding.
        TypeError: non-floating or different dtypes.

    >>> x = ek.ones((1, 5, 5, 1))
    >>> ek.nn.conv2d(x, ek.ones((3, 3, 1, 2)), strides=1, padding="SAME").numpy()[0, :2, :2, 0]
    array([[4., 6.],
           [6., 9.]], dtype=float32)
    >>> ek.nn.conv2d(x, ek.ones((3, 3, 1, 2)), strides=2, padding="VALID").shape
    TensorShape([1, 2, 2, 2])
    """
    op = "conv2d"
    check_data_format(data_format, op)
    x = tensor(input, op)
    w = tensor(filters, op, x._value.dtype)
    check_nhwc_input(x, op)
    if w.ndim != 4:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: filters must have rank 4 (kh, kw, in_channels, out_channels), got shape "
            f"{tuple(w._value.shape)} (input shape {tuple(x._value.shape)}).",
        )
    if w._value.dtype != x._value.dtype:
        raise dtype_error(op, (x, w), ("input", "filters"))
    xs, ws = tuple(x._value.shape), tuple(w._value.shape)
    if xs[3] != ws[2]:
        msg = (
            f"{op}: input has {xs[3]} channels but filters expect {ws[2]} (input shape {xs}, "
            f"filters shape {ws})."
        )
        if ws[2] and xs[3] % ws[2] == 0 and ws[3] % (xs[3] // ws[2]) == 0:
            grouped = " Grouped convolutions are not implemented."
            raise UnimplementedError(None, op, msg + grouped)
        raise InvalidArgumentError(None, op, msg)
    st = hw_pair(strides, op, "strides")
    dl = hw_pair(1 if dilations is None else dilations, op, "dilations")
    pads = explicit_paddings(padding, xs[1:3], ws[:2], st, dl, op)
    out_hw = output_hw(xs[1:3], ws[:2], st, dl, pads)
    if is_empty(out_hw):  # the filter does not fit in the padded input
        return empty_output((xs[0], *out_hw, ws[3]), (x, w), op)
    return _conv(x, w, st, dl, pads)


def conv2d_transpose(
    input,
    filters,
    output_shape,
    strides,
    padding="SAME",
    data_format="NHWC",
    dilations=None,
    name=None,
) -> Tensor:
    """The transpose (gradient) of `conv2d` with respect to its input, sometimes called
    deconvolution (follows `tf.nn.conv2d_transpose`).

    Args:
        input: shape ``[batch, height, width, in_channels]`` (NHWC), floating.
        filters: shape ``[kh, kw, out_channels, in_channels]`` (a `conv2d` filter from the
            output's channels to the input's), same dtype.
        output_shape: ``[batch, out_h, out_w, out_channels]``: the shape of the result, the
            input of the `conv2d` this op transposes.
        strides, padding, data_format, dilations: as in `conv2d` for that convolution.

    Returns:
        Shape ``output_shape``. Differentiable in ``input`` and ``filters``.

    Raises:
        InvalidArgumentError: a rank other than 4; channels that do not match the filters;
            an ``output_shape`` whose `conv2d` with these strides and padding would not have
            the input's height and width (all shapes named).

    >>> ek.nn.conv2d_transpose(ek.ones((1, 2, 2, 1)), ek.ones((3, 3, 1, 1)), [1, 4, 4, 1],
    ...                        strides=2, padding="SAME").numpy()[0, :, :, 0]
    array([[1., 1., 2., 1.],
           [1., 1., 2., 1.],
           [2., 2., 4., 2.],
           [1., 1., 2., 1.]], dtype=float32)
    """
    op = "conv2d_transpose"
    check_data_format(data_format, op)
    x = tensor(input, op)
    w = tensor(filters, op, x._value.dtype)
    check_nhwc_input(x, op)
    out = tuple(
        int(d) for d in (output_shape.numpy() if hasattr(output_shape, "numpy") else output_shape)
    )
    xs, ws = tuple(x._value.shape), tuple(w._value.shape)
    if w.ndim != 4 or len(out) != 4 or ws[3] != xs[3] or ws[2] != out[3] or out[0] != xs[0]:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: input shape {xs}, filters shape {ws} ([kh, kw, out_channels, "
            f"in_channels]) and output_shape {out} do not match.",
        )
    st = hw_pair(strides, op, "strides")
    dl = hw_pair(1 if dilations is None else dilations, op, "dilations")
    pads = explicit_paddings(padding, out[1:3], ws[:2], st, dl, op)
    if output_hw(out[1:3], ws[:2], st, dl, pads) != xs[1:3]:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: a conv2d of output_shape {out} with strides {st} and padding {padding!r} "
            f"gives height and width {output_hw(out[1:3], ws[:2], st, dl, pads)}, not the "
            f"input's {xs[1:3]}.",
        )
    return _backprop_input(x, w, out, st, dl, pads)
