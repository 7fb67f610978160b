"""More of `tf.nn`'s convolutions and pools: depthwise and separable convolution, the 1-D and
3-D ops, and the rank-generic names (`convolution`, `conv_transpose`, `max_pool`, `avg_pool`;
`pool` is in ``pooling.py``), NHWC as on TensorFlow's CPU.

``DepthwiseConv2dNative`` is a primitive with the same structure as `conv2d` (see `conv.py`):
it, its input VJP and its filter VJP are bilinear, and each one's VJPs are the other two, so
derivatives of any order are depthwise convolutions again. Each loops over the kernel
positions, one vectorized call over all pixels per position (the strided views of `conv.py`).

The 1-D ops are the 2-D ones on a unit height (as TensorFlow's `conv1d` is); `conv3d` sums one
`conv2d` per depth tap of the kernel; `max_pool3d`/`avg_pool3d` pool height and width, then
depth (both pools are separable: a window's maximum is the maximum of its rows' maxima, and
SAME average pooling divides by a count that is a product over the axes). Their gradients are
those of the ops they are built from.
"""

from __future__ import annotations

from ..core.dispatch import Primitive, defvjp
from ..core.errors import InvalidArgumentError, UnimplementedError
from ..core.tensor import Tensor
from ._core import apply, dtype_error, tensor
from .array_ops import expand_dims, pad, reshape, squeeze
from .conv import (
    check_data_format,
    check_nhwc_input,
    col2im,
    conv2d,
    conv2d_transpose,
    explicit_paddings,
    hw_pair,
    output_hw,
    pad_spatial,
    window_tap,
)
from .pool2d import avg_pool2d, max_pool2d
from .window_empty import empty_output, is_empty

__all__ = [
    "avg_pool",
    "avg_pool1d",
    "avg_pool3d",
    "conv1d",
    "conv1d_transpose",
    "conv3d",
    "conv3d_transpose",
    "conv_transpose",
    "convolution",
    "depthwise_conv2d",
    "max_pool",
    "max_pool1d",
    "max_pool3d",
    "separable_conv2d",
]

# -- depthwise convolution: forward and its two VJP ops ----------------------------------------


def _depthwise_fwd(xp, x, w, strides, dilations, pads):
    kh, kw, c, m = w.shape
    out_hw = output_hw(x.shape[1:3], (kh, kw), strides, dilations, pads)
    xpad = pad_spatial(xp, x, pads)
    out = xp.zeros((x.shape[0], *out_hw, c, m), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            out += window_tap(xpad, i, j, out_hw, strides, dilations)[..., None] * w[i, j]
    return out.reshape(x.shape[0], *out_hw, c * m)


def _depthwise_input_fwd(xp, g, w, input_shape, strides, dilations, pads):
    kh, kw, c, m = w.shape
    n, oh, ow, _ = g.shape
    g5 = g.reshape(n, oh, ow, c, m)
    cols = xp.empty((n, oh, ow, kh, kw, c), dtype=g.dtype)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, :, i, j] = (g5 * w[i, j]).sum(axis=-1)
    return col2im(xp, cols, tuple(input_shape), strides, dilations, pads)


def _depthwise_filter_fwd(xp, x, g, filter_shape, strides, dilations, pads):
    kh, kw, c, m = filter_shape
    n, oh, ow, _ = g.shape
    g5 = g.reshape(n, oh, ow, c, m)
    xpad = pad_spatial(xp, x, pads)
    out = xp.empty(tuple(filter_shape), dtype=g.dtype)
    for i in range(kh):
        for j in range(kw):
            tap = window_tap(xpad, i, j, (oh, ow), strides, dilations)
            out[i, j] = xp.einsum("nhwc,nhwcm->cm", tap, g5)
    return out


def _dw(x, w, **p):
    return apply(_depthwise, (x, w), p)


def _dw_input(g, w, input_shape, **p):
    return apply(_depthwise_input, (g, w), {"input_shape": tuple(input_shape), **p})


def _dw_filter(x, g, filter_shape, **p):
    return apply(_depthwise_filter, (x, g), {"filter_shape": tuple(filter_shape), **p})


_depthwise = Primitive("DepthwiseConv2dNative", _depthwise_fwd)
defvjp(
    _depthwise,
    lambda g, ans, x, w, **p: _dw_input(g, w, x._value.shape, **p),
    lambda g, ans, x, w, **p: _dw_filter(x, g, w._value.shape, **p),
)
_depthwise_input = Primitive("DepthwiseConv2dNativeBackpropInput", _depthwise_input_fwd)
defvjp(
    _depthwise_input,
    lambda h, ans, g, w, input_shape, **p: _dw(h, w, **p),
    lambda h, ans, g, w, input_shape, **p: _dw_filter(h, g, w._value.shape, **p),
)
_depthwise_filter = Primitive("DepthwiseConv2dNativeBackpropFilter", _depthwise_filter_fwd)
defvjp(
    _depthwise_filter,
    lambda h, ans, x, g, filter_shape, **p: _dw_input(g, h, x._value.shape, **p),
    lambda h, ans, x, g, filter_shape, **p: _dw(x, h, **p),
)


def _rate_and_strides(strides, dilations, op):
    st = hw_pair(strides, op, "strides")
    dl = hw_pair(1 if dilations is None else dilations, op, "dilations")
    if max(dl) > 1 and max(st) > 1:
        raise ValueError(
            f"{op}: strides {list(st)} must all be 1 when dilations {list(dl)} are greater than "
            "1 (as in TensorFlow)."
        )
    return st, dl


def depthwise_conv2d(
    input, filter, strides, padding, data_format=None, dilations=None, name=None
) -> Tensor:
    """Depthwise 2-D convolution: each input channel convolved with its own
    ``channel_multiplier`` filters (follows `tf.nn.depthwise_conv2d`).

    ``output[b, i, j, k * channel_multiplier + q] = sum_{di, dj} input[b, strides[1] * i +
    dilations[0] * di, strides[2] * j + dilations[1] * dj, k] * filter[di, dj, k, q]``.

    Args:
        input: shape ``[batch, height, width, in_channels]`` (NHWC), floating.
        filter: shape ``[kh, kw, in_channels, channel_multiplier]``, same dtype.
        strides: an int or a list of 1, 2 or 4 ints (``[1, sh, sw, 1]``).
        padding: ``"SAME"``, ``"VALID"`` or ``[[0, 0], [top, bottom], [left, right], [0, 0]]``.
        data_format: None or ``"NHWC"``; NCHW raises UnimplementedError (TensorFlow's CPU
            kernel supports NHWC only).
        dilations: like ``strides`` (default 1); above 1 the strides must all be 1.

    Returns:
        Shape ``[batch, out_h, out_w, in_channels * channel_multiplier]``, differentiable in
        ``input`` and ``filter`` to any order.

    Raises:
        InvalidArgumentError: ranks other than 4, a channel mismatch (shapes named), a filter
            larger than the padded input. ValueError: malformed strides/dilations/padding, or
            strides above 1 with dilations above 1. TypeError: non-floating or mixed dtypes.

    >>> x = ek.reshape(ek.range(1.0, 5.0), (1, 2, 2, 1))
    >>> ek.nn.depthwise_conv2d(x, ek.ones((2, 2, 1, 2)), [1, 1, 1, 1], "VALID").numpy()
    array([[[[10., 10.]]]], dtype=float32)
    """
    op = "depthwise_conv2d"
    check_data_format(data_format, op)
    x = tensor(input, op)
    w = tensor(filter, op, x._value.dtype)
    check_nhwc_input(x, op)
    if w._value.dtype != x._value.dtype:
        raise dtype_error(op, (x, w), ("input", "filter"))
    xs, ws = tuple(x._value.shape), tuple(w._value.shape)
    if w.ndim != 4 or ws[2] != xs[3]:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: filter must have shape [kh, kw, in_channels, channel_multiplier] with "
            f"in_channels = {xs[3]} (input shape {xs}), got filter shape {ws}.",
        )
    st, dl = _rate_and_strides(strides, dilations, op)
    pads = explicit_paddings(padding, xs[1:3], ws[:2], st, dl, op)
    out_hw = output_hw(xs[1:3], ws[:2], st, dl, pads)
    if is_empty(out_hw):  # the filter does not fit in the padded input
        return empty_output((xs[0], *out_hw, ws[2] * ws[3]), (x, w), op)
    return _dw(x, w, strides=st, dilations=dl, pads=pads)


def separable_conv2d(
    input,
    depthwise_filter,
    pointwise_filter,
    strides,
    padding,
    data_format=None,
    dilations=None,
    name=None,
) -> Tensor:
    """A depthwise convolution followed by a 1x1 convolution mixing the channels (follows
    `tf.nn.separable_conv2d`).

    Args:
        input: shape ``[batch, height, width, in_channels]`` (NHWC), floating.
        depthwise_filter: ``[kh, kw, in_channels, channel_multiplier]``.
        pointwise_filter: ``[1, 1, in_channels * channel_multiplier, out_channels]``.
        strides, padding, data_format, dilations: of the depthwise step, as in
            `depthwise_conv2d`.

    Returns:
        Shape ``[batch, out_h, out_w, out_channels]``, differentiable in all three inputs.

    Raises:
        ValueError: a pointwise filter that is not 1x1 or does not take the depthwise
            output's channels (shapes named); and the errors of `depthwise_conv2d`.

    >>> x = ek.ones((1, 3, 3, 2))
    >>> y = ek.nn.separable_conv2d(x, ek.ones((3, 3, 2, 1)), ek.ones((1, 1, 2, 4)), 1, "VALID")
    >>> y.shape, float(y[0, 0, 0, 0])
    (TensorShape([1, 1, 1, 4]), 18.0)
    """
    op = "separable_conv2d"
    dw = tensor(depthwise_filter, op)
    pw = tensor(pointwise_filter, op)
    ds, ps = tuple(dw._value.shape), tuple(pw._value.shape)
    if len(ps) != 4 or ps[:2] != (1, 1) or len(ds) != 4 or ps[2] != ds[2] * ds[3]:
        raise ValueError(
            f"{op}: pointwise_filter must have shape [1, 1, in_channels * channel_multiplier, "
            f"out_channels] = [1, 1, {ds[2] * ds[3] if len(ds) == 4 else '?'}, out_channels] "
            f"for depthwise_filter of shape {ds}, got {ps}."
        )
    depth = depthwise_conv2d(input, dw, strides, padding, data_format, dilations)
    return conv2d(depth, pw, 1, "VALID")


# -- 1-D ops: the 2-D ones on a unit height -----------------------------------------------------


def _check_1d_format(data_format, op):
    if data_format in (None, "NWC", "channels_last"):
        return
    msg = f"{op}: data_format={data_format!r} is not supported; only NWC runs on CPU."
    if data_format in ("NCW", "channels_first"):
        raise UnimplementedError(None, op, msg)
    raise ValueError(msg)


def _w(value, op: str, arg: str) -> int:
    """An int, or a list of 1 or 3 ints (3: NWC, with 1 for N and C), as one int."""
    if isinstance(value, Tensor):
        value = value.numpy().tolist()
    if isinstance(value, (list, tuple)):
        if len(value) == 3:
            if int(value[0]) != 1 or int(value[2]) != 1:
                raise ValueError(f"{op}: {arg} {list(value)} must be 1 in the N and C dimensions.")
            value = value[1]
        elif len(value) == 1:
            value = value[0]
        else:
            raise ValueError(f"{op}: {arg} must be an int or 1 or 3 ints, got {value!r}.")
    try:
        v = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{op}: {arg} must be an int or a list of ints, got {value!r}.") from None
    if v < 1:
        raise InvalidArgumentError(None, op, f"{op}: {arg} must be positive, got {value!r}.")
    return v


def _rank_check(x: Tensor, rank: int, op: str, layout: str) -> None:
    if x.ndim != rank:
        raise InvalidArgumentError(
            None, op, f"{op}: input must have rank {rank} ({layout}), got shape {x.shape}."
        )
    if x._value.dtype.kind != "f" and (op != "max_pool1d" or x._value.dtype.kind not in "iu"):
        raise TypeError(f"{op}: input must be a floating-point tensor, got {x.dtype.name}.")


def _check_filters(x: Tensor, w: Tensor, rank: int, op: str, layout: str) -> None:
    """Filters of ``rank`` whose in_channels (axis -2) are the input's, of its dtype."""
    if w.ndim != rank or w.shape[-2] != x.shape[-1]:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: filters must have shape [{layout}, in_channels, out_channels] with "
            f"in_channels = {x.shape[-1]} (input shape {x.shape}), got {w.shape}.",
        )
    if w._value.dtype != x._value.dtype:
        raise dtype_error(op, (x, w), ("input", "filters"))


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None) -> Tensor:
    """1-D convolution over ``[batch, width, channels]`` (follows `tf.nn.conv1d`): `conv2d`
    over a unit height.

    Args:
        input: shape ``[batch, in_width, in_channels]``, floating.
        filters: ``[filter_width, in_channels, out_channels]``, same dtype.
        stride: an int or a list of 1 or 3 ints. dilations: the same (default 1).
        padding: ``"SAME"`` or ``"VALID"``.
        data_format: ``"NWC"`` only (NCW raises UnimplementedError, as on TF's CPU).

    Returns:
        Shape ``[batch, out_width, out_channels]``, differentiable to any order.

    Raises:
        InvalidArgumentError: ranks other than 3 or a channel mismatch (shapes named); and
            `conv2d`'s errors. TypeError: non-floating input or mixed dtypes.

    >>> ek.nn.conv1d(ek.ones((1, 5, 1)), ek.ones((3, 1, 1)), 1, "SAME").numpy()[0, :, 0]
    array([2., 3., 3., 3., 2.], dtype=float32)
    """
    op = "conv1d"
    _check_1d_format(data_format, op)
    x = tensor(input, op)
    w = tensor(filters, op, x._value.dtype)
    _rank_check(x, 3, op, "batch, width, channels")
    _check_filters(x, w, 3, op, "width")
    st = _w(stride, op, "stride")
    dl = _w(1 if dilations is None else dilations, op, "dilations")
    y = conv2d(expand_dims(x, 1), expand_dims(w, 0), [1, st], padding, dilations=[1, dl])
    return squeeze(y, [1])


def conv1d_transpose(
    input,
    filters,
    output_shape,
    strides,
    padding="SAME",
    data_format="NWC",
    dilations=None,
    name=None,
) -> Tensor:
    """The transpose of `conv1d` with respect to its input (follows `tf.nn.conv1d_transpose`).

    Args:
        input: ``[batch, width, in_channels]``; filters: ``[filter_width, out_channels,
        in_channels]``; output_shape: ``[batch, out_width, out_channels]``; strides,
        padding, dilations: of that `conv1d`.

    Raises:
        InvalidArgumentError: shapes that do not match (see `conv2d_transpose`).

    >>> ek.nn.conv1d_transpose(ek.ones((1, 2, 1)), ek.ones((2, 1, 1)), [1, 4, 1], 2).shape
    TensorShape([1, 4, 1])
    """
    op = "conv1d_transpose"
    _check_1d_format(data_format, op)
    x = tensor(input, op)
    w = tensor(filters, op, x._value.dtype)
    _rank_check(x, 3, op, "batch, width, channels")
    if w.ndim != 3:
        raise InvalidArgumentError(
            None, op, f"{op}: filters must have rank 3, got shape {w.shape}."
        )
    out = [
        int(d) for d in (output_shape.numpy() if hasattr(output_shape, "numpy") else output_shape)
    ]
    if len(out) != 3:
        raise InvalidArgumentError(None, op, f"{op}: output_shape must have 3 entries, got {out}.")
    st = _w(strides, op, "strides")
    dl = _w(1 if dilations is None else dilations, op, "dilations")
    y = conv2d_transpose(
        expand_dims(x, 1),
        expand_dims(w, 0),
        [out[0], 1, out[1], out[2]],
        [1, st],
        padding,
        dilations=[1, dl],
    )
    return squeeze(y, [1])


def _pool1d(pool2d, op, input, ksize, strides, padding, data_format):
    _check_1d_format(data_format, op)
    x = tensor(input, op)
    _rank_check(x, 3, op, "batch, width, channels")
    ks, st = _w(ksize, op, "ksize"), _w(strides, op, "strides")
    if not isinstance(padding, str) and padding is not None and len(padding) == 3:
        padding = [padding[0], [0, 0], *padding[1:]]  # explicit [[0, 0], [l, r], [0, 0]]
    return squeeze(pool2d(expand_dims(x, 1), [1, ks], [1, st], padding), [1])


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None) -> Tensor:
    """Maximum over windows of ``[batch, width, channels]`` (follows `tf.nn.max_pool1d`).

    Args:
        ksize, strides: an int or a list of 1 or 3 ints. padding: ``"SAME"``, ``"VALID"`` or
            explicit ``[[0, 0], [left, right], [0, 0]]``.

    Raises:
        InvalidArgumentError: rank other than 3; and the errors of `max_pool2d`.

    >>> ek.nn.max_pool1d(ek.constant([[[1.0], [3.0], [2.0], [0.0]]]), 2, 2, "VALID").numpy()
    array([[[3.],
            [2.]]], dtype=float32)
    """
    return _pool1d(max_pool2d, "max_pool1d", input, ksize, strides, padding, data_format)


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None) -> Tensor:
    """Mean over windows of ``[batch, width, channels]`` (follows `tf.nn.avg_pool1d`); SAME
    windows divide by their count of real elements, as in TensorFlow.

    Raises:
        InvalidArgumentError: rank other than 3; and the errors of `avg_pool2d`.

    >>> ek.nn.avg_pool1d(ek.constant([[[1.0], [3.0], [2.0]]]), 2, 2, "SAME").numpy()[0, :, 0]
    array([2., 2.], dtype=float32)
    """
    return _pool1d(avg_pool2d, "avg_pool1d", input, ksize, strides, padding, data_format)


# -- 3-D ops ------------------------------------------------------------------------------------


def _dhw(value, op: str, arg: str) -> tuple[int, int, int]:
    """An int, or a list of 1, 3 or 5 ints (5: NDHWC, with 1 for N and C), as (d, h, w)."""
    if isinstance(value, Tensor):
        value = value.numpy().tolist()
    vals = [value] * 3 if not isinstance(value, (list, tuple)) else list(value)
    if len(vals) == 1:
        vals = vals * 3
    elif len(vals) == 5:
        if int(vals[0]) != 1 or int(vals[4]) != 1:
            raise ValueError(f"{op}: {arg} {vals} must be 1 in the N and C dimensions (NDHWC).")
        vals = vals[1:4]
    if len(vals) != 3:
        raise ValueError(f"{op}: {arg} must be an int or 1, 3 or 5 ints, got {value!r}.")
    try:
        vals = [int(v) for v in vals]
    except (TypeError, ValueError):
        raise ValueError(f"{op}: {arg} must be ints, got {value!r}.") from None
    if min(vals) < 1:
        raise InvalidArgumentError(None, op, f"{op}: {arg} must be positive, got {value!r}.")
    return tuple(vals)


def _check_3d_format(data_format, op):
    if data_format in (None, "NDHWC", "channels_last"):
        return
    msg = f"{op}: data_format={data_format!r} is not supported; only NDHWC runs on CPU."
    if data_format in ("NCDHW", "channels_first"):
        raise UnimplementedError(None, op, msg)
    raise ValueError(msg)


def _pool3d(pool2d, op, input, ksize, strides, padding, data_format):
    _check_3d_format(data_format, op)
    x = tensor(input, op)
    _rank_check(x, 5, op, "batch, depth, height, width, channels")
    (kd, kh, kw), (sd, sh, sw) = _dhw(ksize, op, "ksize"), _dhw(strides, op, "strides")
    n, d, h, w, c = x.shape
    # Height and width first, then depth: both pools are separable (see the module's notes).
    y = pool2d(reshape(x, [n * d, h, w, c]), [kh, kw], [sh, sw], padding)
    oh, ow = y.shape[1], y.shape[2]
    y = pool2d(reshape(y, [n, d, oh * ow, c]), [kd, 1], [sd, 1], padding)
    return reshape(y, [n, y.shape[1], oh, ow, c])


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None) -> Tensor:
    """Maximum over 3-D windows of ``[batch, depth, height, width, channels]`` (follows
    `tf.nn.max_pool3d`).

    Args:
        ksize, strides: an int or a list of 1, 3 or 5 ints. padding: ``"SAME"`` or
        ``"VALID"``. data_format: ``"NDHWC"`` only (NCDHW raises UnimplementedError).

    Raises:
        InvalidArgumentError: rank other than 5, a window larger than the input.

    >>> x = ek.reshape(ek.range(8.0), (1, 2, 2, 2, 1))
    >>> ek.nn.max_pool3d(x, 2, 2, "VALID").numpy().ravel()
    array([7.], dtype=float32)
    """
    return _pool3d(max_pool2d, "max_pool3d", input, ksize, strides, padding, data_format)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None) -> Tensor:
    """Mean over 3-D windows of ``[batch, depth, height, width, channels]`` (follows
    `tf.nn.avg_pool3d`); SAME windows divide by their count of real elements.

    Raises:
        InvalidArgumentError: rank other than 5, a window larger than the input.

    >>> x = ek.reshape(ek.range(8.0), (1, 2, 2, 2, 1))
    >>> ek.nn.avg_pool3d(x, 2, 2, "VALID").numpy().ravel()
    array([3.5], dtype=float32)
    """
    return _pool3d(avg_pool2d, "avg_pool3d", input, ksize, strides, padding, data_format)


def conv3d(
    input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None
) -> Tensor:
    """3-D convolution over ``[batch, depth, height, width, channels]`` (follows
    `tf.nn.conv3d`): the sum over the kernel's depth taps of `conv2d` on the input's depth
    slices.

    Args:
        input: NDHWC, floating. filters: ``[kd, kh, kw, in_channels, out_channels]``.
        strides: a list of 5 ints ``[1, sd, sh, sw, 1]`` (or 1 or 3). dilations: the same.
        padding: ``"SAME"`` or ``"VALID"``. data_format: ``"NDHWC"`` only.

    Returns:
        Shape ``[batch, out_d, out_h, out_w, out_channels]``, differentiable.

    Raises:
        InvalidArgumentError: ranks other than 5, a channel mismatch. ValueError: malformed
            arguments. TypeError: non-floating input or mixed dtypes. A filter larger than the
            padded input gives an empty output, as TensorFlow's.

    >>> ek.nn.conv3d(ek.ones((1, 3, 3, 3, 1)), ek.ones((2, 2, 2, 1, 1)), [1] * 5, "VALID").shape
    TensorShape([1, 2, 2, 2, 1])
    """
    op = "conv3d"
    _check_3d_format(data_format, op)
    x = tensor(input, op)
    w = tensor(filters, op, x._value.dtype)
    _rank_check(x, 5, op, "batch, depth, height, width, channels")
    _check_filters(x, w, 5, op, "kd, kh, kw")
    sd, sh, sw = _dhw(strides, op, "strides")
    dd, dh, dw = _dhw(1 if dilations is None else dilations, op, "dilations")
    n, d, h, wd, c = x.shape
    kd = w.shape[0]
    p0, p1 = explicit_paddings(padding, (d,), (kd,), (sd,), (dd,), op)[0]
    od = (d + p0 + p1 - (kd - 1) * dd - 1) // sd + 1
    if od < 1:  # the filter does not fit in the padded input's depth: an empty output
        ks, st, dl = tuple(w.shape[1:3]), (sh, sw), (dh, dw)
        out_hw = output_hw((h, wd), ks, st, dl, explicit_paddings(padding, (h, wd), ks, st, dl, op))
        return empty_output((n, od, *out_hw, w.shape[4]), (x, w), op)
    if p0 or p1:
        x = pad(x, [[0, 0], [p0, p1], [0, 0], [0, 0], [0, 0]])
    total = None
    for a in range(kd):
        start = a * dd
        part = x[:, start : start + (od - 1) * sd + 1 : sd]
        y = conv2d(reshape(part, [n * od, h, wd, c]), w[a], [sh, sw], padding, dilations=[dh, dw])
        total = y if total is None else total + y
    return reshape(total, [n, od, total.shape[1], total.shape[2], w.shape[4]])


def conv3d_transpose(
    input,
    filters,
    output_shape,
    strides,
    padding="SAME",
    data_format="NDHWC",
    dilations=None,
    name=None,
) -> Tensor:
    """The transpose of `conv3d` with respect to its input (follows `tf.nn.conv3d_transpose`):
    per depth tap of the kernel, a `conv2d_transpose`, added back at the depths that tap
    read.

    Args:
        input: ``[batch, depth, height, width, in_channels]`` (NDHWC), floating.
        filters: ``[kd, kh, kw, out_channels, in_channels]``.
        output_shape: ``[batch, out_d, out_h, out_w, out_channels]``.
        strides, padding, dilations: of that `conv3d` (1, 3 or 5 ints).

    Returns:
        Shape ``output_shape``, differentiable in ``input`` and ``filters``.

    Raises:
        InvalidArgumentError: shapes that do not match (all named).

    >>> ek.nn.conv3d_transpose(ek.ones((1, 2, 2, 2, 1)), ek.ones((2, 2, 2, 1, 1)),
    ...                        [1, 4, 4, 4, 1], 2).shape
    TensorShape([1, 4, 4, 4, 1])
    """
    from .array_ops import stack
    from .creation import zeros_like

    op = "conv3d_transpose"
    _check_3d_format(data_format, op)
    y = tensor(input, op)
    w = tensor(filters, op, y._value.dtype)
    _rank_check(y, 5, op, "batch, depth, height, width, channels")
    out = [
        int(d) for d in (output_shape.numpy() if hasattr(output_shape, "numpy") else output_shape)
    ]
    sd, sh, sw = _dhw(strides, op, "strides")
    dd, dh, dw = _dhw(1 if dilations is None else dilations, op, "dilations")
    ok = len(out) == 5 and w.ndim == 5 and w.shape[4] == y.shape[4] and w.shape[3] == out[4]
    if ok:
        kd = w.shape[0]
        p0, p1 = explicit_paddings(padding, (out[1],), (kd,), (sd,), (dd,), op)[0]
        od = (out[1] + p0 + p1 - (kd - 1) * dd - 1) // sd + 1
        ok = out[0] == y.shape[0] and od == y.shape[1]
    if not ok:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: input shape {y.shape}, filters shape {w.shape} ([kd, kh, kw, out_channels, "
            f"in_channels]) and output_shape {out} do not match (strides {[sd, sh, sw]}, "
            f"padding {padding!r}).",
        )
    n, _, oh, ow, cin = y.shape
    depth = out[1] + p0 + p1
    rows = reshape(y, [n * od, oh, ow, cin])
    total = None
    for a in range(kd):
        z = conv2d_transpose(
            rows, w[a], [n * od, out[2], out[3], out[4]], [sh, sw], padding, dilations=[dh, dw]
        )
        z = reshape(z, [n, od, out[2], out[3], out[4]])
        if sd > 1:  # spread the od slices sd apart: zeros between them
            z = stack([z] + [zeros_like(z)] * (sd - 1), axis=2)
            z = reshape(z, [n, od * sd, out[2], out[3], out[4]])[:, : (od - 1) * sd + 1]
        start = a * dd
        after = depth - start - z.shape[1]
        z = pad(z, [[0, 0], [start, after], [0, 0], [0, 0], [0, 0]])
        total = z if total is None else total + z
    return total[:, p0 : p0 + out[1]] if (p0 or p1) else total


# -- rank-generic names -------------------------------------------------------------------------


def _by_rank(op: str, x: Tensor, ops: dict):
    fn = ops.get(x.ndim)
    if fn is None:
        raise ValueError(
            f"{op}: input must have rank 3, 4 or 5 (1-D, 2-D or 3-D data with batch and "
            f"channel axes), got shape {x.shape}."
        )
    return fn


def convolution(
    input, filters, strides=None, padding="VALID", data_format=None, dilations=None, name=None
) -> Tensor:
    """N-D convolution, dispatching on the input's rank to `conv1d`, `conv2d` or `conv3d`
    (follows `tf.nn.convolution`).

    Args:
        input: ``[batch, spatial..., channels]`` with 1, 2 or 3 spatial axes.
        filters: ``[spatial..., in_channels, out_channels]``.
        strides, dilations: an int or one int per spatial axis (default 1).
        padding: ``"VALID"`` (default) or ``"SAME"``. data_format: channels last only.

    Raises:
        ValueError: an input rank other than 3, 4 or 5; and the errors of the op it runs.

    >>> ek.nn.convolution(ek.ones((1, 4, 4, 1)), ek.ones((2, 2, 1, 3))).shape
    TensorShape([1, 3, 3, 3])
    """
    x = tensor(input, "convolution")
    strides = 1 if strides is None else strides
    dilations = 1 if dilations is None else dilations
    if x.ndim == 4:
        return conv2d(x, filters, strides, padding, data_format or "NHWC", dilations)
    fn = _by_rank("convolution", x, {3: conv1d, 5: conv3d})
    fmt = data_format or ("NWC" if x.ndim == 3 else "NDHWC")
    return fn(x, filters, strides, padding, fmt, dilations)


def conv_transpose(
    input,
    filters,
    output_shape,
    strides,
    padding="SAME",
    data_format=None,
    dilations=None,
    name=None,
) -> Tensor:
    """The transpose of `convolution`, dispatching on rank to `conv1d_transpose`,
    `conv2d_transpose` or `conv3d_transpose` (follows `tf.nn.conv_transpose`).

    Raises:
        ValueError: an input rank other than 3, 4 or 5, and the errors of the op it runs.

    >>> ek.nn.conv_transpose(ek.ones((1, 2, 2, 1)), ek.ones((2, 2, 1, 1)), [1, 4, 4, 1], 2).shape
    TensorShape([1, 4, 4, 1])
    """
    x = tensor(input, "conv_transpose")
    fn = _by_rank(
        "conv_transpose", x, {3: conv1d_transpose, 4: conv2d_transpose, 5: conv3d_transpose}
    )
    fmt = data_format or {3: "NWC", 4: "NHWC", 5: "NDHWC"}[x.ndim]
    return fn(x, filters, output_shape, strides, padding, fmt, dilations)


def max_pool(input, ksize, strides, padding, data_format=None, name=None) -> Tensor:
    """Max pooling dispatching on rank to `max_pool1d`, `max_pool2d` or `max_pool3d` (follows
    `tf.nn.max_pool`).

    Raises:
        ValueError: an input rank other than 3, 4 or 5; and the errors of the op it runs.

    >>> ek.nn.max_pool(ek.ones((1, 4, 4, 2)), 2, 2, "VALID").shape
    TensorShape([1, 2, 2, 2])
    """
    x = tensor(input, "max_pool")
    fn = _by_rank("max_pool", x, {3: max_pool1d, 4: max_pool2d, 5: max_pool3d})
    fmt = data_format or {3: "NWC", 4: "NHWC", 5: "NDHWC"}[x.ndim]
    return fn(x, ksize, strides, padding, fmt)


def avg_pool(input, ksize, strides, padding, data_format=None, name=None) -> Tensor:
    """Average pooling dispatching on rank to `avg_pool1d`, `avg_pool2d` or `avg_pool3d`
    (follows `tf.nn.avg_pool`).

    Raises:
        ValueError: an input rank other than 3, 4 or 5; and the errors of the op it runs.

    >>> ek.nn.avg_pool(ek.ones((1, 6, 2)), 3, 3, "VALID").shape
    TensorShape([1, 2, 2])
    """
    x = tensor(input, "avg_pool")
    fn = _by_rank("avg_pool", x, {3: avg_pool1d, 4: avg_pool2d, 5: avg_pool3d})
    fmt = data_format or {3: "NWC", 4: "NHWC", 5: "NDHWC"}[x.ndim]
    return fn(x, ksize, strides, padding, fmt)
