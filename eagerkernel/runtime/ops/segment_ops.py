"""Segment reductions, bincount and the confusion matrix (follow `tf.math.segment_*`,
`tf.math.unsorted_segment_*`, `tf.math.bincount` and `tf.math.confusion_matrix`).

A segment reduction combines the slices of ``data`` that share a segment id; the gradients
follow TensorFlow's (math_grad.py): a sum's cotangent is gathered back to each slice, an
extremum's is shared among the slices equal to it. Counting ops have no gradient.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.dispatch import Primitive, defvjp
from ..core.errors import InvalidArgumentError, UnsupportedDTypeError
from ..core.tensor import Tensor
from ._core import apply, float_check, tensor
from .array_ops import index_tensor, reshape
from .creation import ones_like, zeros_like
from .elementwise import cast, equal, greater, maximum, sqrt, truediv, where
from .indexing import gather
from .math_ops import divide_no_nan, truncatediv

__all__ = [
    "bincount",
    "confusion_matrix",
    "segment_max",
    "segment_mean",
    "segment_min",
    "segment_prod",
    "segment_sum",
    "unsorted_segment_max",
    "unsorted_segment_mean",
    "unsorted_segment_min",
    "unsorted_segment_prod",
    "unsorted_segment_sqrt_n",
    "unsorted_segment_sum",
]


# -- segment reductions --------------------------------------------------------------------------


def _scatter(xp, kind: str, out, ids, values) -> None:
    """``out[ids[i]] (op)= values[i]`` with repeats accumulated: NumPy's ``ufunc.at``, CuPy's
    ``cupyx.scatter_*``."""
    if xp is np:
        ufunc = {"sum": np.add, "max": np.maximum, "min": np.minimum, "prod": np.multiply}[kind]
        ufunc.at(out, ids, values)
    elif kind == "prod":  # CuPy has no scatter_mul: the product is taken on the host
        host = out.get()
        np.multiply.at(host, ids.get(), values.get())
        out[...] = xp.asarray(host)
    else:
        import cupyx

        {"sum": cupyx.scatter_add, "max": cupyx.scatter_max, "min": cupyx.scatter_min}[kind](
            out, ids, values
        )


def _segment_count(xp, ids, num_segments, op: str) -> int:
    """The number of segments, after checking the ids' values: for the sorted ops
    (``num_segments`` None) ids that start at 0 and never decrease, ``ids[-1] + 1`` segments;
    for the unsorted ops ids below ``num_segments``. Made in the forwards, so that a graph
    function checks (and sizes its output by) each call's ids."""
    if num_segments is not None:
        if ids.size and int(ids.max()) >= num_segments:
            raise InvalidArgumentError(
                None,
                op,
                f"{op}: segment_ids must be < num_segments = {num_segments}, got {int(ids.max())}.",
            )
        return num_segments
    flat = _host(ids).reshape(-1)
    if flat.size and (flat[0] < 0 or bool((np.diff(flat) < 0).any())):
        raise InvalidArgumentError(
            None, op, f"{op}: segment ids must be non-negative and sorted, got {flat.tolist()}."
        )
    return int(flat[-1]) + 1 if flat.size else 0


def _segment_fwd(kind: str):
    def fwd(xp, data, ids, num_segments, op):
        num_segments = _segment_count(xp, ids, num_segments, op)
        k = ids.ndim
        flat_ids = ids.reshape(-1)
        flat = data.reshape((flat_ids.size, *data.shape[k:]))
        keep = flat_ids >= 0  # TensorFlow drops negative ids
        if kind == "sum":
            out = xp.zeros((num_segments, *data.shape[k:]), data.dtype)
        elif kind == "prod":  # an empty segment's product is 1
            out = xp.ones((num_segments, *data.shape[k:]), data.dtype)
        else:
            info = np.finfo(data.dtype) if data.dtype.kind == "f" else np.iinfo(data.dtype)
            fill = info.min if kind == "max" else info.max  # an empty segment's value
            out = xp.full((num_segments, *data.shape[k:]), fill, data.dtype)
        _scatter(xp, kind, out, flat_ids[keep], flat[keep])
        return out

    return fwd


def _gather_drop_negatives(x: Tensor, ids: Tensor) -> Tensor:
    """``x[ids]``, zero where an id is negative (TensorFlow's _GatherDropNegatives)."""
    from .elementwise import maximum

    if x._value.size == 0:  # empty slices (maybe no segment at all): nothing to gather
        from .creation import zeros

        return zeros(tuple(ids.shape) + tuple(x.shape[1:]), x.dtype)
    gathered = gather(x, maximum(ids, 0))
    keep = ids >= 0
    keep = reshape(keep, tuple(keep.shape) + (1,) * (gathered.ndim - keep.ndim))
    return where(keep, gathered, zeros_like(gathered))


def _segment_extremum_vjp(g, ans, data, ids, num_segments, op):
    # TensorFlow's _UnsortedSegmentMinOrMaxGrad: the gradient is shared among the elements
    # equal to their segment's extremum.
    picked = _gather_drop_negatives(ans, ids)
    selected = equal(data, picked)
    weights = cast(selected, g.dtype)
    count = apply(_useg_sum, (weights, ids), {"num_segments": num_segments, "op": op})
    share = _gather_drop_negatives(divide_no_nan(g, count), ids)
    return where(selected, share, zeros_like(share))


_useg_sum = Primitive("UnsortedSegmentSum", _segment_fwd("sum"))
_useg_max = Primitive("UnsortedSegmentMax", _segment_fwd("max"))
_useg_min = Primitive("UnsortedSegmentMin", _segment_fwd("min"))
defvjp(_useg_sum, lambda g, ans, data, ids, **_: _gather_drop_negatives(g, ids), None)
defvjp(_useg_max, _segment_extremum_vjp, None)
defvjp(_useg_min, _segment_extremum_vjp, None)


def _segment_prod_vjp(g, ans, data, ids, num_segments, op):
    # TensorFlow's _UnsortedSegmentProdGrad: in a segment without zeros each element's
    # partial derivative is the product divided by it; in a segment with one zero only the
    # zero's is nonzero (the product of the others); a segment with two or more zeros has
    # gradient 0 everywhere.
    is_zero = equal(data, zeros_like(data))
    params = {"num_segments": num_segments, "op": op}
    num_zeros = apply(_useg_sum, (cast(is_zero, "int32"), ids), params)
    g = where(greater(num_zeros, 1), zeros_like(g), g)
    non_zero = where(is_zero, ones_like(data), data)
    non_zero_prod = apply(_useg_prod, (non_zero, ids), params)
    partial = where(
        is_zero,
        _gather_drop_negatives(non_zero_prod, ids),
        _gather_drop_negatives(ans, ids) / non_zero,
    )
    return _gather_drop_negatives(g, ids) * partial


_useg_prod = Primitive("UnsortedSegmentProd", _segment_fwd("prod"))
defvjp(_useg_prod, _segment_prod_vjp, None)


def _segment_args(data, segment_ids, num_segments, op: str):
    x = tensor(data, op)
    ids = index_tensor(segment_ids, x, op, "segment_ids")
    k = ids.ndim
    if tuple(x._value.shape[:k]) != tuple(ids._value.shape):
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: segment_ids.shape {tuple(ids._value.shape)} must be a prefix of "
            f"data.shape {tuple(x._value.shape)}.",
        )
    if num_segments is None:  # the sorted ops: the forward counts the segments
        if k != 1:
            shape = tuple(ids._value.shape)
            raise InvalidArgumentError(
                None, op, f"{op}: segment_ids must be a vector, got shape {shape}."
            )
    else:
        num_segments = int(num_segments)
        if num_segments < 0:
            raise InvalidArgumentError(
                None, op, f"{op}: num_segments must be >= 0, got {num_segments}."
            )
    return x, ids, num_segments


def _host(array) -> np.ndarray:
    return np.asarray(array.get() if hasattr(array, "get") else array)


def _counts_fwd(xp, ids, num_segments, ndim: int, dtype: str, op: str):
    num_segments = _segment_count(xp, ids, num_segments, op)
    flat = _host(ids).reshape(-1)
    counts = np.bincount(flat[flat >= 0], minlength=num_segments)[:num_segments]
    return xp.asarray(counts.reshape((num_segments,) + (1,) * (ndim - 1)).astype(dtype))


# How many ids fall in each segment (the divisor of segment_mean and _sqrt_n), shaped to
# broadcast against a segment reduction's output; an op, so graph functions replay it.
_segment_counts = Primitive("SegmentCounts", _counts_fwd)


def _counts(ids: Tensor, num_segments, like: Tensor, op: str) -> Tensor:
    params = {"num_segments": num_segments, "ndim": like.ndim, "dtype": like.dtype.name, "op": op}
    return apply(_segment_counts, (ids,), params)


def unsorted_segment_sum(data, segment_ids, num_segments, name=None) -> Tensor:
    """Sums of the slices of ``data`` with each segment id (follows
    `tf.math.unsorted_segment_sum`): output shape ``[num_segments] + data.shape[k:]`` for
    ``segment_ids`` of rank ``k`` (a prefix of ``data``'s shape); negative ids are dropped;
    an empty segment is 0.

    Raises:
        InvalidArgumentError: ids of the wrong shape or >= ``num_segments``.

    >>> ek.math.unsorted_segment_sum([1.0, 2.0, 3.0, 4.0], [0, 2, 0, -1], 3).numpy()
    array([4., 0., 2.], dtype=float32)
    """
    x, ids, n = _segment_args(data, segment_ids, num_segments, "unsorted_segment_sum")
    return apply(_useg_sum, (x, ids), {"num_segments": n, "op": "unsorted_segment_sum"})


def unsorted_segment_max(data, segment_ids, num_segments, name=None) -> Tensor:
    """Maxima per segment (follows `tf.math.unsorted_segment_max`); an empty segment holds
    the dtype's lowest value. The gradient is shared among the elements that equal the
    maximum. See `unsorted_segment_sum`."""
    x, ids, n = _segment_args(data, segment_ids, num_segments, "unsorted_segment_max")
    return apply(_useg_max, (x, ids), {"num_segments": n, "op": "unsorted_segment_max"})


def unsorted_segment_min(data, segment_ids, num_segments, name=None) -> Tensor:
    """Minima per segment (follows `tf.math.unsorted_segment_min`); an empty segment holds
    the dtype's largest value. See `unsorted_segment_max`."""
    x, ids, n = _segment_args(data, segment_ids, num_segments, "unsorted_segment_min")
    return apply(_useg_min, (x, ids), {"num_segments": n, "op": "unsorted_segment_min"})


def unsorted_segment_mean(data, segment_ids, num_segments, name=None) -> Tensor:
    """Means per segment (follows `tf.math.unsorted_segment_mean`); an empty segment is 0.

    >>> ek.math.unsorted_segment_mean([1.0, 2.0, 3.0], [1, 1, 0], 2).numpy()
    array([3. , 1.5], dtype=float32)
    """
    x, ids, n = _segment_args(data, segment_ids, num_segments, "unsorted_segment_mean")
    if x._value.dtype.kind not in "iu":  # integers: TensorFlow's true division, below
        float_check("unsorted_segment_mean", x, "data")
    total = apply(_useg_sum, (x, ids), {"num_segments": n, "op": "unsorted_segment_mean"})
    count = _counts(ids, n, total, "unsorted_segment_mean")
    if x._value.dtype.kind in "iu":  # int32 -> float64, int8 -> float32, as TensorFlow
        return truediv(total, maximum(count, 1))
    return divide_no_nan(total, count)


def _prod_check(x: Tensor, op: str) -> None:
    if x._value.dtype.kind == "b":
        raise UnsupportedDTypeError(
            None, op, f"{op}: data must be a numeric tensor, got {x.dtype.name}."
        )


def unsorted_segment_prod(data, segment_ids, num_segments, name=None) -> Tensor:
    """Products of the slices of ``data`` with each segment id (follows
    `tf.math.unsorted_segment_prod`).

    Args:
        data: any numeric dtype (not bool), shape ``segment_ids.shape + inner``.
        segment_ids: int32 or int64 ids of rank ``k``, a prefix of ``data``'s shape;
            negative ids are dropped.
        num_segments: the number of segments (an int >= 0).

    Returns:
        ``data``'s dtype, shape ``[num_segments] + data.shape[k:]``; an empty segment is 1.
        Differentiable as TensorFlow's _UnsortedSegmentProdGrad: a segment with one zero
        passes gradient only to its zero (the product of the others), a segment with two or
        more zeros passes none.

    Raises:
        InvalidArgumentError: ids of the wrong shape, ids >= ``num_segments`` or a negative
            ``num_segments``.
        TypeError: bool data.

    >>> ek.math.unsorted_segment_prod([1.0, 2.0, 3.0, 4.0], [0, 2, 0, -1], 3).numpy()
    array([3., 1., 2.], dtype=float32)
    """
    x, ids, n = _segment_args(data, segment_ids, num_segments, "unsorted_segment_prod")
    _prod_check(x, "unsorted_segment_prod")
    return apply(_useg_prod, (x, ids), {"num_segments": n, "op": "unsorted_segment_prod"})


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None) -> Tensor:
    """Sums per segment divided by the square root of the segment's size (follows
    `tf.math.unsorted_segment_sqrt_n`): ``sum / sqrt(max(N, 1))``, so an empty segment is 0.

    Args:
        data: float16, float32 or float64 (TensorFlow has no integer or complex kernel),
            shape ``segment_ids.shape + inner``.
        segment_ids: ids of rank ``k``, a prefix of ``data``'s shape; negative ids are
            dropped (and not counted).
        num_segments: the number of segments (an int >= 0).

    Returns:
        ``data``'s dtype, shape ``[num_segments] + data.shape[k:]``. Differentiable (the
        cotangent divided by ``sqrt(N)``, gathered back to each slice).

    Raises:
        InvalidArgumentError: ids of the wrong shape, ids >= ``num_segments`` or a negative
            ``num_segments``.
        TypeError: integer, bool or complex data.

    >>> ek.math.unsorted_segment_sqrt_n([1.0, 2.0, 3.0, 4.0], [1, 1, 1, 1], 3).numpy()
    array([0., 5., 0.], dtype=float32)
    """
    op = "unsorted_segment_sqrt_n"
    x, ids, n = _segment_args(data, segment_ids, num_segments, op)
    float_check(op, x, "data", real=True)
    total = apply(_useg_sum, (x, ids), {"num_segments": n, "op": op})
    counts = _counts(ids, n, total, op)
    return total / sqrt(maximum(counts, 1))


def segment_sum(data, segment_ids, name=None) -> Tensor:
    """Sums per segment, for sorted non-negative ids (follows `tf.math.segment_sum`): output
    ``[segment_ids[-1] + 1] + data.shape[1:]``; an id that does not occur gives 0.

    Raises:
        InvalidArgumentError: ids that are not a sorted vector of non-negative ints matching
        ``data``'s first dimension.

    >>> ek.math.segment_sum([[1, 2], [3, 4], [5, 6]], [0, 0, 1]).numpy()
    array([[4, 6],
           [5, 6]], dtype=int32)
    """
    x, ids, n = _segment_args(data, segment_ids, None, "segment_sum")
    return apply(_useg_sum, (x, ids), {"num_segments": n, "op": "segment_sum"})


def segment_mean(data, segment_ids, name=None) -> Tensor:
    """Means per segment, for sorted ids (follows `tf.math.segment_mean`); see `segment_sum`."""
    x, ids, n = _segment_args(data, segment_ids, None, "segment_mean")
    if x._value.dtype.kind not in "iu":  # integers: the kernel's C division, below
        float_check("segment_mean", x, "data")
    total = apply(_useg_sum, (x, ids), {"num_segments": n, "op": "segment_mean"})
    count = _counts(ids, n, total, "segment_mean")
    if x._value.dtype.kind in "iu":
        return truncatediv(total, maximum(count, 1))
    return divide_no_nan(total, count)


def _sorted_extremum(prim, data, segment_ids, op):
    x, ids, n = _segment_args(data, segment_ids, None, op)
    out = apply(prim, (x, ids), {"num_segments": n, "op": op})
    present = _counts(ids, n, out, op) > 0  # an id that does not occur gives 0, as TensorFlow
    return where(present, out, zeros_like(out))


def segment_max(data, segment_ids, name=None) -> Tensor:
    """Maxima per segment, for sorted ids (follows `tf.math.segment_max`); an id that does not
    occur gives 0. The gradient is shared among the elements equal to the maximum."""
    return _sorted_extremum(_useg_max, data, segment_ids, "segment_max")


def segment_min(data, segment_ids, name=None) -> Tensor:
    """Minima per segment, for sorted ids (follows `tf.math.segment_min`); see `segment_max`."""
    return _sorted_extremum(_useg_min, data, segment_ids, "segment_min")


def segment_prod(data, segment_ids, name=None) -> Tensor:
    """Products per segment, for sorted non-negative ids (follows `tf.math.segment_prod`):
    output ``[segment_ids[-1] + 1] + data.shape[1:]`` in ``data``'s dtype (any numeric dtype
    but bool); an id that does not occur gives 1. Differentiable as TensorFlow's
    _SegmentProdGrad (see `unsorted_segment_prod` for segments that contain zeros).

    Raises:
        InvalidArgumentError: ids that are not a sorted vector of non-negative ints matching
            ``data``'s first dimension.
        TypeError: bool data.

    >>> ek.math.segment_prod([[1, 2], [3, 4], [5, 6]], [0, 0, 2]).numpy()
    array([[3, 8],
           [1, 1],
           [5, 6]], dtype=int32)
    """
    x, ids, n = _segment_args(data, segment_ids, None, "segment_prod")
    _prod_check(x, "segment_prod")
    return apply(_useg_prod, (x, ids), {"num_segments": n, "op": "segment_prod"})


# -- counting ------------------------------------------------------------------------------------


def bincount(
    arr,
    weights=None,
    minlength=None,
    maxlength=None,
    dtype=dtypes.int32,
    name=None,
    axis=None,
    binary_output=False,
) -> Tensor:
    """How often each value ``0..max(arr)`` occurs in ``arr`` (follows `tf.math.bincount`).

    Args:
        arr: non-negative ints, any shape (``axis=None``: all of them) or rank <= 2 with
            ``axis=-1`` (one count per row of a matrix); floats and bools are cast to int32
            first, as TensorFlow does (1.5 counts as 1).
        weights: same shape as ``arr``: sums of the weights instead of counts (their dtype).
        minlength, maxlength: at least / at most this many bins (values >= maxlength are
            dropped).
        dtype: the counts' dtype without weights (int32 default).
        binary_output: 1 where a value occurs, instead of the count.

    Raises:
        InvalidArgumentError: negative values, or weights of another shape.
        ValueError: ``axis`` other than None, 0 or -1; both ``weights`` and ``binary_output``.

    >>> ek.math.bincount([1, 1, 3], minlength=5).numpy()
    array([0, 2, 0, 1, 0], dtype=int32)
    """
    a = tensor(arr, "bincount")
    if weights is not None and binary_output:
        raise ValueError(
            "bincount: Arguments `binary_output` and `weights` are mutually exclusive. "
            "Please specify only one."
        )
    if a._value.dtype.kind in "fb":  # TensorFlow casts them to int32 (1.5 counts as 1)
        a = cast(a, dtypes.int32)
    if a._value.dtype.kind not in "iu":
        raise TypeError(f"bincount: arr must be numbers, got {a.dtype.name}.")
    inputs = (a,)
    out_dtype = dtypes.as_dtype(dtype).name
    if weights is not None:
        wt = tensor(weights, "bincount")
        if wt._value.shape != a._value.shape:
            raise InvalidArgumentError(
                None,
                "Bincount",
                f"bincount: weights must have arr's shape {tuple(a._value.shape)}, got "
                f"{tuple(wt._value.shape)}.",
            )
        inputs, out_dtype = (a, wt), wt.dtype.name
    if axis not in (None, 0, -1):
        raise ValueError(f"bincount: axis must be None, 0 or -1. Received: axis={axis!r}")
    if axis == -1 and a.ndim > 2:  # rank 0 or 1 is counted whole, as TensorFlow's kernel does
        raise InvalidArgumentError(
            None, "Bincount", f"bincount: axis=-1 needs arr of rank <= 2, got shape {a.shape}."
        )
    params = {
        "minlength": None if minlength is None else int(minlength),
        "maxlength": None if maxlength is None else int(maxlength),
        "dtype": out_dtype,
        "per_row": axis == -1 and a.ndim == 2,
        "binary_output": bool(binary_output),
    }
    return apply(_bincount, inputs, params)


def _bincount_fwd(xp, arr, *weights, minlength, maxlength, dtype, per_row, binary_output):
    """The counts on the host (NumPy's bincount), back on ``arr``'s device; the bins'
    number depends on the values, so the checks of them are made here."""
    values = np.asarray(arr.get() if hasattr(arr, "get") else arr)
    w = (
        np.asarray(weights[0].get() if hasattr(weights[0], "get") else weights[0])
        if weights
        else None
    )
    if values.size and int(values.min()) < 0:
        raise InvalidArgumentError(None, "Bincount", "bincount: arr must be non-negative.")
    size = int(values.max()) + 1 if values.size else 0
    if minlength is not None:
        size = max(size, minlength)
    if maxlength is not None:
        size = min(size, maxlength)

    def count(v, wv):
        keep = v < size
        if binary_output:
            return (np.bincount(v[keep], minlength=size) > 0).astype(dtype)
        return np.bincount(v[keep], None if wv is None else wv[keep], minlength=size).astype(dtype)

    if per_row:
        rows = [count(v, None if w is None else w[i]) for i, v in enumerate(values)]
        out = np.stack(rows) if rows else np.zeros((0, size), dtype)  # no rows: TF's (0, size)
    else:
        out = count(values.reshape(-1), None if w is None else w.reshape(-1))
    return xp.asarray(out)


# No gradient, as TensorFlow's DenseBincount (also for the weights).
_bincount = Primitive("DenseBincount", _bincount_fwd)


def confusion_matrix(
    labels, predictions, num_classes=None, weights=None, dtype=dtypes.int32, name=None
) -> Tensor:
    """The ``[num_classes, num_classes]`` matrix counting each (label, prediction) pair
    (follows `tf.math.confusion_matrix`): rows are labels, columns predictions.

    Raises:
        InvalidArgumentError: negative values, values >= ``num_classes``, or labels and
        predictions of different shapes.

    >>> ek.math.confusion_matrix([1, 2, 4], [2, 2, 4]).numpy()
    array([[0, 0, 0, 0, 0],
           [0, 0, 1, 0, 0],
           [0, 0, 1, 0, 0],
           [0, 0, 0, 0, 0],
           [0, 0, 0, 0, 1]], dtype=int32)
    """
    lt, pt = tensor(labels, "confusion_matrix"), tensor(predictions, "confusion_matrix")
    if lt._value.shape != pt._value.shape:
        raise InvalidArgumentError(
            None,
            "ConfusionMatrix",
            f"confusion_matrix: labels and predictions must have one shape, got "
            f"{tuple(lt._value.shape)} and {tuple(pt._value.shape)}.",
        )
    inputs = (lt, pt)
    if weights is not None:
        inputs += (tensor(weights, "confusion_matrix"),)
    params = {
        "num_classes": None if num_classes is None else int(num_classes),
        "dtype": dtypes.as_dtype(dtype).name,
    }
    return apply(_confusion_matrix, inputs, params)


def _confusion_matrix_fwd(xp, labels, predictions, *weights, num_classes, dtype):
    """The counts on the host; the number of classes and the checks depend on the values."""
    lab, pred = _host(labels).reshape(-1), _host(predictions).reshape(-1)
    if lab.size and (lab.min() < 0 or pred.min() < 0):
        raise InvalidArgumentError(
            None, "ConfusionMatrix", "confusion_matrix: labels and predictions must be >= 0."
        )
    n = int(max(lab.max(), pred.max()) + 1) if num_classes is None and lab.size else 0
    if num_classes is not None:
        n = num_classes
        if lab.size and (lab.max() >= n or pred.max() >= n):
            raise InvalidArgumentError(
                None,
                "ConfusionMatrix",
                f"confusion_matrix: labels and predictions must be < num_classes = {n}.",
            )
    w = np.ones(lab.shape, dtype)
    if weights:
        w = np.broadcast_to(_host(weights[0]), labels.shape).reshape(-1).astype(dtype)
    out = np.zeros((n, n), dtype)
    np.add.at(out, (lab.astype(np.int64), pred.astype(np.int64)), w)
    return xp.asarray(out)


# No gradient (TensorFlow's is built of a scatter of integer counts).
_confusion_matrix = Primitive("ConfusionMatrix", _confusion_matrix_fwd)
