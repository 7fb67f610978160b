"""More of `tf.nn`, written with the convolution, pooling and top-k ops: ``atrous_conv2d``
and ``atrous_conv2d_transpose`` (dilated convolutions by their TF 1 names),
``max_pool_with_argmax`` (the maxima and where they are, for unpooling) and ``approx_max_k`` /
``approx_min_k`` (exact here: TensorFlow's approximation is a TPU speed-up, and its contract
is met by the exact answer). Each follows the TensorFlow 2 function of its name.
"""

from __future__ import annotations

import collections
import numbers

import numpy as np

from ..core import dtypes
from ..core.dispatch import Primitive
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ._core import apply, tensor
from .array_ops import transpose
from .conv import conv2d, conv2d_transpose, windows_view
from .elementwise import negative
from .math_ops import top_k
from .pool2d import max_pool2d, pool_args

__all__ = [
    "approx_max_k",
    "approx_min_k",
    "atrous_conv2d",
    "atrous_conv2d_transpose",
    "max_pool_with_argmax",
]


def _rate(rate, op: str) -> int:
    if isinstance(rate, bool) or not isinstance(rate, numbers.Integral):
        raise ValueError(f"{op}: rate must be a positive int, got {rate!r}.")
    if rate < 1:
        raise ValueError(f"rate {rate} cannot be less than one")
    return int(rate)


def atrous_conv2d(value, filters, rate, padding, name=None) -> Tensor:
    """A 2-D convolution whose kernel taps are ``rate`` pixels apart (follows
    `tf.nn.atrous_conv2d`): `conv2d` with stride 1 and ``dilations=rate``.

    Args:
        value: ``[batch, height, width, in_channels]``, floating.
        filters: ``[kh, kw, in_channels, out_channels]``.
        rate: a positive int.
        padding: ``"SAME"`` or ``"VALID"``.

    Raises:
        ValueError: ``rate`` below 1 (TensorFlow's message) or not an int; bad ``padding``.
        InvalidArgumentError: shapes as `conv2d`.

    >>> x = ek.reshape(ek.range(25.0), (1, 5, 5, 1))
    >>> ek.nn.atrous_conv2d(x, ek.ones((2, 2, 1, 1)), rate=2, padding="VALID").shape
    TensorShape([1, 3, 3, 1])
    """
    r = _rate(rate, "atrous_conv2d")
    return conv2d(value, filters, 1, padding, dilations=r)


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None) -> Tensor:
    """The transpose of `atrous_conv2d` with respect to its input (follows
    `tf.nn.atrous_conv2d_transpose`): `conv2d_transpose` with stride 1 and
    ``dilations=rate``; ``filters`` is ``[kh, kw, out_channels, in_channels]``.

    Raises:
        ValueError: ``rate`` below 1, or ``output_shape`` that the convolution of it would not
            give ``value``'s shape.

    >>> y = ek.nn.atrous_conv2d_transpose(
    ...     ek.ones((1, 3, 3, 1)), ek.ones((2, 2, 1, 1)), [1, 5, 5, 1], rate=2, padding="VALID")
    >>> y.shape
    TensorShape([1, 5, 5, 1])
    """
    r = _rate(rate, "atrous_conv2d_transpose")
    return conv2d_transpose(value, filters, output_shape, 1, padding, dilations=r)


MaxPoolWithArgmax = collections.namedtuple("MaxPoolWithArgmax", ["output", "argmax"])


def max_pool_with_argmax(
    input,
    ksize,
    strides,
    padding,
    data_format="NHWC",
    output_dtype=dtypes.int64,
    include_batch_in_index=False,
    name=None,
) -> MaxPoolWithArgmax:
    """`max_pool2d` and the position of each maximum (follows `tf.nn.max_pool_with_argmax`).

    The position of the maximum at ``(b, y, x, c)`` of the input is the flat index
    ``(y * width + x) * channels + c``, or ``((b * height + y) * width + x) * channels + c``
    with ``include_batch_in_index``; of equal values in a window, the first in row-major
    order; padded positions (``"SAME"``) never win. ``output`` is differentiable (the
    gradient goes to those positions); ``argmax`` is not.

    Args:
        input: ``[batch, height, width, channels]``, floating or integer.
        ksize, strides: an int or a list of 1, 2 or 4 ints.
        padding: ``"SAME"`` or ``"VALID"``.
        data_format: ``"NHWC"`` only.
        output_dtype: int64 (default) or int32.

    Returns:
        ``(output, argmax)``, both ``[batch, out_height, out_width, channels]``.

    Raises:
        TypeError: an ``output_dtype`` other than int32 or int64.
        InvalidArgumentError, ValueError, UnimplementedError: as `max_pool2d`.

    >>> x = ek.constant([[[[1.0], [5.0]], [[7.0], [2.0]]]])  # 2 x 2, one channel
    >>> out, argmax = ek.nn.max_pool_with_argmax(x, 2, 2, "VALID")
    >>> float(out[0, 0, 0, 0]), int(argmax[0, 0, 0, 0])
    (7.0, 2)
    """
    index_dtype = dtypes.as_dtype(output_dtype)
    if index_dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(
            f"max_pool_with_argmax: output_dtype must be int32 or int64, got {index_dtype.name}."
        )
    x, params = pool_args("max_pool_with_argmax", input, ksize, strides, padding, data_format)
    output = max_pool2d(x, ksize, strides, padding, data_format)
    argmax_params = {
        "ksize": tuple(params["ksize"]),
        "strides": tuple(params["strides"]),
        "pads": tuple(tuple(p) for p in params["pads"]),
        "out_hw": tuple(output._value.shape[1:3]),
        "include_batch_in_index": bool(include_batch_in_index),
        "index_dtype": index_dtype.name,
    }
    return MaxPoolWithArgmax(output, apply(_pool_argmax, (x,), argmax_params))


def _pool_argmax_fwd(xp, a, ksize, strides, pads, out_hw, include_batch_in_index, index_dtype):
    (kh, kw), (sh, sw), ((pt, pb), (pl, pr)) = ksize, strides, pads
    n, h, w, c = a.shape
    low = -np.inf if a.dtype.kind == "f" else np.iinfo(a.dtype).min  # integers pool too, as in TF
    padded = xp.pad(a, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=low)
    windows = windows_view(xp, padded, (kh, kw), out_hw, (sh, sw), (1, 1))  # (N, OH, OW, KH, KW, C)
    windows = windows.reshape(n, *out_hw, kh * kw, c)
    if a.dtype.kind == "f":  # NaNs never win, as in max_pool2d
        windows = xp.where(xp.isnan(windows), low, windows)
    local = xp.argmax(windows, axis=3)  # first maximum
    rows = xp.arange(out_hw[0]).reshape(1, -1, 1, 1) * sh + local // kw - pt
    cols = xp.arange(out_hw[1]).reshape(1, 1, -1, 1) * sw + local % kw - pl
    flat = (rows * w + cols) * c + xp.arange(c).reshape(1, 1, 1, -1)
    if include_batch_in_index:
        flat = flat + xp.arange(n).reshape(-1, 1, 1, 1) * (h * w * c)
    return flat.astype(index_dtype)


# Where each window's maximum is: an op (integer output, no gradient), so graph functions
# replay it.
_pool_argmax = Primitive("MaxPoolArgmax", _pool_argmax_fwd)


def _approx_k(op: str, operand, k, reduction_dimension, recall_target, override, largest):
    x = tensor(operand, op)
    if x.ndim == 0:
        raise InvalidArgumentError(None, op, f"{op}: operand must have rank >= 1, got a scalar.")
    axis = int(reduction_dimension)
    if not -x.ndim <= axis < x.ndim:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: reduction_dimension {axis} is out of range for an operand of rank {x.ndim}.",
        )
    axis %= x.ndim
    if not isinstance(recall_target, numbers.Real) or not 0.0 < recall_target <= 1.0:
        raise ValueError(f"{op}: recall_target must be in (0, 1], got {recall_target!r}.")
    if not isinstance(override, numbers.Integral) or (override != -1 and override < 1):
        raise ValueError(
            f"{op}: reduction_input_size_override must be -1 or a positive int, got {override!r}."
        )
    perm = [d for d in range(x.ndim) if d != axis] + [axis]
    back = list(np.argsort(perm))
    moved = x if axis == x.ndim - 1 else transpose(x, perm)
    values, indices = top_k(moved if largest else negative(moved), k)
    if not largest:
        values = negative(values)
    if axis != x.ndim - 1:
        values, indices = transpose(values, back), transpose(indices, back)
    return values, indices


def approx_max_k(
    operand,
    k,
    reduction_dimension=-1,
    recall_target=0.95,
    reduction_input_size_override=-1,
    aggregate_to_topk=True,
    name=None,
):
    """The ``k`` largest values along ``reduction_dimension`` and their indices, largest
    first (follows `tf.math.approx_max_k`, also `tf.nn.approx_max_k`). TensorFlow computes
    an approximation on TPUs whose recall is at least ``recall_target``; here the result is
    exact, which meets that contract for every ``recall_target``, and with
    ``aggregate_to_topk=False`` it holds exactly ``k`` results (TensorFlow promises at least
    ``k``). Differentiable in ``operand`` (the gradient goes to the positions picked).

    Returns:
        ``(values, indices)``: ``operand``'s shape with ``k`` along the reduction dimension;
        int32 indices.

    Raises:
        InvalidArgumentError: a scalar operand, a dimension out of range, ``k`` larger than
            it.
        ValueError: ``recall_target`` outside (0, 1], or a bad
            ``reduction_input_size_override``.

    >>> values, indices = ek.math.approx_max_k(ek.constant([[1.0, 9.0, 3.0, 7.0]]), 2)
    >>> values.numpy(), indices.numpy()
    (array([[9., 7.]], dtype=float32), array([[1, 3]], dtype=int32))
    """
    return _approx_k(
        "approx_max_k",
        operand,
        k,
        reduction_dimension,
        recall_target,
        reduction_input_size_override,
        True,
    )


def approx_min_k(
    operand,
    k,
    reduction_dimension=-1,
    recall_target=0.95,
    reduction_input_size_override=-1,
    aggregate_to_topk=True,
    name=None,
):
    """The ``k`` smallest values along ``reduction_dimension`` and their indices, smallest
    first (follows `tf.math.approx_min_k`, also `tf.nn.approx_min_k`); exact, as
    `approx_max_k`, whose arguments and errors it shares.

    >>> values, indices = ek.math.approx_min_k(ek.constant([[4.0, 1.0, 3.0]]), 2)
    >>> values.numpy(), indices.numpy()
    (array([[1., 3.]], dtype=float32), array([[1, 2]], dtype=int32))
    """
    return _approx_k(
        "approx_min_k",
        operand,
        k,
        reduction_dimension,
        recall_target,
        reduction_input_size_override,
        False,
    )
