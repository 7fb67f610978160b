"""2-D pooling (`ek.nn.max_pool2d`, `avg_pool2d`), NHWC as on TF's CPU.

Pools loop over the kernel positions (four for a 2x2 pool), each step one vectorized NumPy
call over all pixels: for small kernels that beats reducing over the window axes of a strided
view. ``max_pool2d`` sends its cotangent to the first maximum of each window, as
TensorFlow's ``MaxPoolGrad`` does, through a scatter op whose VJP is the matching gather (and
back), and ``avg_pool2d`` divides by the number of real (not padded) elements in each window,
as TensorFlow's SAME average pool does. A max pool whose windows tile its input (stride =
window, the usual 2x2 pool) takes its gradient as one mask times the cotangent, on the CPU in
one pass of C where the extension is built (`kernels.py`; the same results, bit for bit).
The maximum ignores NaNs and starts from the lowest finite value, as TensorFlow's MaxPool.

Padding and argument checks are `conv.py`'s; a window larger than the padded input gives an
empty output (`window_empty`).
"""

from __future__ import annotations

import numpy as np

from ..core.dispatch import Primitive, defvjp
from ..core.tensor import Tensor
from ..native import kernels
from . import cudnn
from ._core import apply, tensor
from .conv import (
    check_data_format,
    check_nhwc_input,
    col2im,
    crop,
    explicit_paddings,
    hw_pair,
    output_hw,
    pad_spatial,
    window_tap,
)
from .window_empty import empty_output, is_empty

__all__ = ["avg_pool2d", "max_pool2d", "pool_args", "pool_output"]


# -- max pooling --------------------------------------------------------------------------------


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _taps(xp, x, ksize, strides, pads, fill):
    """(padded input, out_hw, [(k, i, j)]) for a pool; ``k`` numbers positions row-major."""
    xpad = pad_spatial(xp, x, pads, fill)
    out_hw = output_hw(x.shape[1:3], ksize, strides, (1, 1), pads)
    positions = [(i * ksize[1] + j, i, j) for i in range(ksize[0]) for j in range(ksize[1])]
    return xpad, out_hw, positions


def _max_pool_fwd(xp, x, ksize, strides, pads):
    """TF's MaxPool: each window's maximum from the lowest finite value up, so NaNs lose
    (``fmax``) and a window of NaNs and -infs gives that lowest value."""
    xpad, out_hw, taps = _taps(xp, x, ksize, strides, pads, _lowest(x.dtype))
    out = window_tap(xpad, 0, 0, out_hw, strides, (1, 1)).copy()
    for _, i, j in taps[1:]:
        xp.fmax(out, window_tap(xpad, i, j, out_hw, strides, (1, 1)), out=out)
    if x.dtype.kind == "f":
        xp.fmax(out, np.finfo(x.dtype).min, out=out)
    return out


def _first_maxima(xp, x, ans, ksize, strides, pads):
    """Yields ``(i, j, hit)`` per kernel position: where it holds its window's first maximum.

    TensorFlow's MaxPoolGrad sends the cotangent to one element per window, the first
    maximum in row-major order, so ties (zeros after a ReLU) do not multiply it.
    """
    xpad, out_hw, taps = _taps(xp, x, ksize, strides, pads, _lowest(x.dtype))
    free = xp.ones(ans.shape, dtype=bool)
    for _, i, j in taps:
        hit = window_tap(xpad, i, j, out_hw, strides, (1, 1)) == ans
        hit &= free
        free ^= hit
        yield i, j, hit


def _tiles(x, ksize, strides, pads):
    """``x`` as (N, OH, KH, OW, KW, C) when the pool's windows tile it exactly (stride equal
    to the window, no padding, sizes divisible: the usual 2x2 pool), else None."""
    n, h, w, c = x.shape
    kh, kw = ksize
    if tuple(strides) != (kh, kw) or any(map(any, pads)) or h % kh or w % kw:
        return None
    return x.reshape(n, h // kh, kh, w // kw, kw, c)


def _first_maxima_tiled(xp, tiles, ans):
    """Bool, shaped like ``tiles``: True at each window's first maximum in row-major order.

    One comparison over the whole input marks every maximum; then each later position of a
    window drops its mark where an earlier position already holds one.
    """
    hit = tiles == ans[:, :, None, :, None, :]
    kh, kw = tiles.shape[2], tiles.shape[4]
    taken = None
    for i in range(kh):
        for j in range(kw):
            mark = hit[:, :, i, :, j]
            if taken is None:
                taken = mark.copy()
                continue
            xp.greater(mark, taken, out=mark)  # mark and not taken
            if (i, j) != (kh - 1, kw - 1):
                taken |= mark
    return hit


def _max_pool_grad_fwd(xp, x, ans, g, ksize, strides, pads):
    """Scatters ``g`` to each window's first maximum (TF's MaxPoolGrad)."""
    tiles = _tiles(x, ksize, strides, pads)
    if tiles is not None:  # every input element in one window: a mask times g, no loop
        if xp is np:
            out = kernels.max_pool_grad(x, ans, g, ksize)  # the same, in one pass of C
            if out is not None:
                return out
        out = _first_maxima_tiled(xp, tiles, ans).astype(g.dtype)
        out *= g[:, :, None, :, None, :]
        return out.reshape(x.shape)
    (pt, pb), (pl, pr) = pads
    n, h, w, c = x.shape
    out = xp.zeros((n, h + pt + pb, w + pl + pr, c), dtype=g.dtype)
    disjoint = strides[0] >= ksize[0] and strides[1] >= ksize[1]
    for i, j, hit in _first_maxima(xp, x, ans, ksize, strides, pads):
        tap = window_tap(out, i, j, g.shape[1:3], strides, (1, 1))
        if disjoint:  # each input element is in one window at most: write, no read
            xp.multiply(g, hit, out=tap)
        else:
            tap += g * hit
    return crop(out, pads, x.shape)


def _max_pool_select_fwd(xp, x, ans, h, ksize, strides, pads):
    """Gathers ``h`` at each window's first maximum (the adjoint of the scatter)."""
    hpad = pad_spatial(xp, h, pads)
    out = xp.zeros(ans.shape, dtype=h.dtype)
    for i, j, hit in _first_maxima(xp, x, ans, ksize, strides, pads):
        out += window_tap(hpad, i, j, ans.shape[1:3], strides, (1, 1)) * hit
    return out


def _pool_params(ksize, strides, pads) -> dict:
    return {"ksize": ksize, "strides": strides, "pads": pads}


# The scatter and the gather are linear in their last input and each other's VJP; the
# positions of the maxima are piecewise constant in x, so no gradient flows into x or ans.
_max_pool = Primitive("MaxPool", _max_pool_fwd)
defvjp(_max_pool, lambda g, ans, x, **p: apply(_max_pool_grad, (x, ans, g), p))
_max_pool_grad = Primitive("MaxPoolGrad", _max_pool_grad_fwd)
defvjp(
    _max_pool_grad,
    None,
    None,
    lambda h, out, x, ans, g, **p: apply(_max_pool_select, (x, ans, h), p),
)
_max_pool_select = Primitive("MaxPoolGradGrad", _max_pool_select_fwd)
defvjp(
    _max_pool_select,
    None,
    None,
    lambda g, out, x, ans, h, **p: apply(_max_pool_grad, (x, ans, g), p),
)


def pool_args(op, input, ksize, strides, padding, data_format):
    """``(x, params)`` of a 2-D pooling call: the input checked as NHWC and the window's
    ``ksize``, ``strides`` and explicit ``pads`` (raises as `max_pool2d` documents)."""
    check_data_format(data_format, op)
    x = tensor(input, op)
    check_nhwc_input(x, op)
    ks = hw_pair(ksize, op, "ksize")
    st = hw_pair(strides, op, "strides")
    pads = explicit_paddings(padding, x._value.shape[1:3], ks, st, (1, 1), op)
    return x, _pool_params(ks, st, pads)


def pool_output(prim: Primitive, op: str, x: Tensor, p: dict) -> Tensor:
    """``prim`` (a 2-D pooling primitive) on ``x``; the empty output where the window does
    not fit in the padded input (`window_empty`)."""
    out_hw = output_hw(x._value.shape[1:3], p["ksize"], p["strides"], (1, 1), p["pads"])
    if is_empty(out_hw):
        return empty_output((x._value.shape[0], *out_hw, x._value.shape[3]), (x,), op)
    return apply(prim, (x,), p)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None) -> Tensor:
    """Maximum over each window (follows `tf.nn.max_pool2d`).

    Args:
        input: shape ``[batch, height, width, channels]`` (NHWC), floating or integer.
        ksize, strides: the window size and its step, an int or a list of 1, 2 or 4 ints.
        padding: ``"SAME"``, ``"VALID"`` or ``[[0, 0], [top, bottom], [left, right], [0, 0]]``;
            padded positions never win.
        data_format: ``"NHWC"`` only.

    Returns:
        Shape ``[batch, out_h, out_w, channels]`` (empty where the window does not fit). The
        gradient goes to the first maximum of each window, as TensorFlow's.

    Raises:
        InvalidArgumentError: rank other than 4.
        UnimplementedError: NCHW. ValueError: malformed ``ksize``, ``strides`` or ``padding``.
        TypeError: a non-numeric input.

    >>> x = ek.reshape(ek.range(16.0), (1, 4, 4, 1))
    >>> ek.nn.max_pool2d(x, 2, 2, "VALID").numpy()[0, :, :, 0]
    array([[ 5.,  7.],
           [13., 15.]], dtype=float32)
    """
    x, p = pool_args("max_pool2d", input, ksize, strides, padding, data_format)
    return pool_output(_max_pool, "max_pool2d", x, p)


# -- average pooling ----------------------------------------------------------------------------


def _avg_counts(xp, in_hw, out_hw, ksize, strides, pads, dtype):
    """Real (unpadded) elements per window: a scalar for VALID, (OH, OW, 1) with padding."""
    if pads == ((0, 0), (0, 0)):
        return ksize[0] * ksize[1]
    per_axis = []
    for n, o, k, s, (p0, _) in zip(in_hw, out_hw, ksize, strides, pads):
        start = np.arange(o) * s - p0
        per_axis.append(np.minimum(start + k, n) - np.maximum(start, 0))
    counts = (per_axis[0][:, None] * per_axis[1][None, :])[:, :, None]
    return xp.asarray(counts.astype(dtype))


def _avg_pool_fwd(xp, x, ksize, strides, pads):
    if xp is not np and cudnn.available(xp):
        out = cudnn.avg_pool(xp, x, ksize, strides, pads)
        if out is not None:
            return out
    xpad, out_hw, taps = _taps(xp, x, ksize, strides, pads, 0)
    out = window_tap(xpad, 0, 0, out_hw, strides, (1, 1)).copy()
    for _, i, j in taps[1:]:
        out += window_tap(xpad, i, j, out_hw, strides, (1, 1))
    out /= _avg_counts(xp, x.shape[1:3], out_hw, ksize, strides, pads, x.dtype)
    return out


def _avg_pool_grad_fwd(xp, g, input_shape, ksize, strides, pads):
    if xp is not np and cudnn.available(xp):
        out = cudnn.avg_pool_grad(xp, g, input_shape, ksize, strides, pads)
        if out is not None:
            return out
    n, oh, ow, c = g.shape
    share = g / _avg_counts(xp, input_shape[1:3], (oh, ow), ksize, strides, pads, g.dtype)
    cols = xp.broadcast_to(share[:, :, :, None, None], (n, oh, ow, *ksize, c))
    return col2im(xp, cols, input_shape, strides, (1, 1), pads)


# AvgPool is linear; its VJP is its transpose, whose VJP is AvgPool again.
_avg_pool = Primitive("AvgPool", _avg_pool_fwd)
defvjp(
    _avg_pool,
    lambda g, ans, x, **p: apply(_avg_pool_grad, (g,), {"input_shape": tuple(x._value.shape), **p}),
)
_avg_pool_grad = Primitive("AvgPoolGrad", _avg_pool_grad_fwd)
defvjp(_avg_pool_grad, lambda h, ans, g, input_shape, **p: apply(_avg_pool, (h,), p))


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None) -> Tensor:
    """Mean over each window (follows `tf.nn.avg_pool2d`).

    With SAME padding, a window that overlaps the padding is divided by the number of real
    elements it covers, not by its size, as in TensorFlow.

    Args:
        input: shape ``[batch, height, width, channels]`` (NHWC), floating.
        ksize: window size, an int or a list of 1, 2 or 4 ints.
        strides: an int or a list of 1, 2 or 4 ints.
        padding: ``"SAME"`` or ``"VALID"``.
        data_format: ``"NHWC"`` only.

    Returns:
        Shape ``[batch, out_h, out_w, channels]`` (empty where the window does not fit),
        differentiable to any order.

    Raises:
        InvalidArgumentError: rank other than 4.
        UnimplementedError: NCHW. ValueError: malformed ``ksize``, ``strides`` or ``padding``.
        TypeError: non-floating input.

    >>> x = ek.reshape(ek.range(9.0), (1, 3, 3, 1))
    >>> ek.nn.avg_pool2d(x, 2, 2, "SAME").numpy()[0, :, :, 0]
    array([[2. , 3.5],
           [6.5, 8. ]], dtype=float32)
    """
    x, p = pool_args("avg_pool2d", input, ksize, strides, padding, data_format)
    return pool_output(_avg_pool, "avg_pool2d", x, p)
