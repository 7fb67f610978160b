"""`ek.nn.pool` (follows `tf.nn.pool`): max or average pooling over N-D windows, dilated
windows included, on the rank-generic `max_pool` and `avg_pool` of ``conv_more.py``."""

from __future__ import annotations

import numpy as np

from ..core.tensor import Tensor
from ._core import tensor
from .conv_more import avg_pool, max_pool
from .window_empty import empty_output, is_empty

__all__ = ["pool"]


def pool(
    input,
    window_shape,
    pooling_type,
    strides=None,
    padding="VALID",
    data_format=None,
    dilations=None,
    name=None,
) -> Tensor:
    """Max or average pooling over N-D windows (follows `tf.nn.pool`).

    Args:
        input: ``[batch, spatial..., channels]`` with 1, 2 or 3 spatial axes.
        window_shape: one int per spatial axis.
        pooling_type: ``"MAX"`` or ``"AVG"``.
        strides: one int per spatial axis (default 1).
        padding: ``"VALID"`` (default) or ``"SAME"``.
        dilations: one int per spatial axis (default 1): the window's taps are this far
            apart. Above 1, as TensorFlow's, only with strides 1 and ``"VALID"`` padding.

    Raises:
        ValueError: an unknown pooling_type, window_shape, strides or dilations of the wrong
            length, an input rank other than 3, 4 or 5, dilations with strides > 1 or
            ``"SAME"`` padding. A dilated window larger than the input gives an empty output,
            as TensorFlow's.

    >>> ek.nn.pool(ek.ones((1, 4, 4, 1)), [2, 2], "AVG", strides=[2, 2]).shape
    TensorShape([1, 2, 2, 1])
    """
    op = "pool"
    x = tensor(input, op)
    kind = str(pooling_type).upper()
    if kind not in ("MAX", "AVG"):
        raise ValueError(f"{op}: pooling_type must be 'MAX' or 'AVG', got {pooling_type!r}.")
    spatial = x.ndim - 2
    window = [int(v) for v in np.atleast_1d(np.asarray(window_shape))]
    stride = [1] * spatial if strides is None else [int(v) for v in np.atleast_1d(strides)]
    if len(window) != spatial or len(stride) != spatial:
        raise ValueError(
            f"{op}: window_shape {window} and strides {stride} must have one entry per "
            f"spatial axis of input of shape {x.shape} ({spatial})."
        )
    rate = [1] * spatial if dilations is None else [int(v) for v in np.atleast_1d(dilations)]
    if len(rate) == 1:
        rate *= spatial
    if len(rate) != spatial or min(rate) < 1:
        raise ValueError(f"{op}: dilations must be {spatial} positive ints, got {dilations!r}.")
    if max(rate) > 1:
        return _dilated_pool(x, window, stride, rate, kind, padding, data_format)
    fn = max_pool if kind == "MAX" else avg_pool
    return fn(x, window, stride, padding, data_format)


def _dilated_pool(x, window, stride, rate, kind, padding, data_format) -> Tensor:
    """`pool` with dilations: the max or mean of the window's taps, each tap a strided slice
    of the input (a composite of `ek.strided_slice` and `ek.reduce_max`/`reduce_mean`, so it
    differentiates as they do)."""
    from .array_ops import stack
    from .reduction import reduce_max, reduce_mean

    op = "pool"
    if max(stride) > 1:
        raise ValueError(
            f"{op}: `strides > 1` not supported in conjunction with `dilation_rate > 1`. "
            f"Received: strides={stride} and dilation_rate={rate}"
        )
    if str(padding).upper() != "VALID":
        raise ValueError(
            f"{op}: pooling with 'SAME' padding is not implemented for `dilation_rate` > 1. "
            f"Received: padding={padding} and dilation_rate={rate}"
        )
    if data_format not in (None, "NWC", "NHWC", "NDHWC"):
        raise ValueError(f"{op}: dilated pooling takes channels-last data, got {data_format!r}.")
    sizes = x.shape[1:-1]
    out = [n - (w - 1) * r for n, w, r in zip(sizes, window, rate)]
    if is_empty(out):  # the dilated window does not fit: an empty output, as TF's
        return empty_output((x.shape[0], *out, x.shape[-1]), (x,), op)
    taps = []
    for offsets in np.ndindex(*window):
        window_slices = (slice(k * r, k * r + m) for k, r, m in zip(offsets, rate, out))
        taps.append(x[(slice(None), *window_slices, slice(None))])
    reduce = reduce_max if kind == "MAX" else reduce_mean
    return reduce(stack(taps, axis=0), axis=0)
