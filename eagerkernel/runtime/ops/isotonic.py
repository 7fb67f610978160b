"""Isotonic regression along an axis (`ek.nn.isotonic_regression`, following TensorFlow 2's
`tf.nn.isotonic_regression`).

The solver is TensorFlow's IsotonicRegression kernel: the pool-adjacent-violators algorithm,
whose pools keep their sum and mean in the output dtype and merge only on a strict violation.
It is a primitive with two outputs, the solution and the int32 segment ids. Its VJP is
TensorFlow's: each input's cotangent is the mean of the output cotangents over its segment,
an averaging that is linear and symmetric, so it is its own VJP (any order).
"""

from __future__ import annotations

import numbers

import numpy as np

from ..core.dispatch import Primitive, defvjp
from ..core.errors import InvalidArgumentError
from ._core import apply, dtype_unsupported, tensor
from .array_ops import reshape

__all__ = ["isotonic_regression"]

# TensorFlow's output dtypes: floats keep theirs, 8- and 16-bit integers give float32, 32- and
# 64-bit integers float64. Unsigned integers have no kernel.
_OUTPUT_DTYPES = {
    "float16": "float16",
    "float32": "float32",
    "float64": "float64",
    "int8": "float32",
    "int16": "float32",
    "int32": "float64",
    "int64": "float64",
}


def _host(xp, a):
    return a if xp is np else xp.asnumpy(a)


def _pava_row(row: np.ndarray, values: np.ndarray, segments: np.ndarray) -> None:
    """Solves ``min sum (x - y)^2`` over ``y_1 >= y_2 >= ...`` for one row in place, with the
    kernel's arithmetic: NumPy scalars of the row's dtype (float64 rows run on Python
    floats, the same arithmetic)."""
    items = row.tolist() if row.dtype == np.float64 else list(row)
    as_float = row.dtype.type
    sums: list = []
    counts: list = []
    means: list = []
    for value in items:
        total, count, mean = value, 1, value
        while means and mean > means[-1]:  # a violation: merge with the previous pool
            total = sums.pop() + total
            count += counts.pop()
            means.pop()
            mean = total / as_float(count)
        sums.append(total)
        counts.append(count)
        means.append(mean)
    start = 0
    for segment, (count, mean) in enumerate(zip(counts, means)):
        stop = start + count
        values[start:stop] = mean
        segments[start:stop] = segment
        start = stop


def _isotonic_fwd(xp, x, axis, decreasing, output_dtype):
    moved = np.moveaxis(_host(xp, x), axis, -1)
    problems = (moved if decreasing else -moved).astype(output_dtype)
    flat = problems.reshape(-1, problems.shape[-1]) if problems.size else problems
    values = np.empty(flat.shape, output_dtype)
    segments = np.empty(flat.shape, np.int32)
    for i in range(flat.shape[0] if flat.size else 0):
        _pava_row(flat[i], values[i], segments[i])
    values = values.reshape(moved.shape)
    if not decreasing:
        values = -values
    values = np.moveaxis(values, -1, axis)
    segments = np.moveaxis(segments.reshape(moved.shape), -1, axis)
    return xp.asarray(values), xp.asarray(segments)


def _segment_mean_fwd(xp, g, segments, axis):
    """Each element of ``g`` replaced by the mean of ``g`` over its segment along ``axis``
    (TensorFlow's ``_MeanAggregator``)."""
    moved = xp.moveaxis(g, axis, -1)
    seg = xp.moveaxis(segments, axis, -1)
    if moved.size == 0:
        return xp.zeros_like(g)
    n = moved.shape[-1]
    rows = moved.reshape(-1, n)
    ids = (seg.reshape(-1, n).astype(np.int64) + xp.arange(rows.shape[0])[:, None] * n).reshape(-1)
    size = rows.shape[0] * n
    sums = xp.bincount(ids, weights=rows.reshape(-1).astype(np.float64), minlength=size)
    counts = xp.bincount(ids, minlength=size)
    means = (sums / xp.maximum(counts, 1))[ids].astype(g.dtype)
    return xp.moveaxis(means.reshape(moved.shape), -1, axis)


_segment_mean = Primitive("IsotonicRegressionGrad", _segment_mean_fwd)
defvjp(
    _segment_mean,
    lambda h, ans, g, segments, axis: apply(_segment_mean, (h, segments), {"axis": axis}),
    None,
)
_isotonic = Primitive("IsotonicRegression", _isotonic_fwd, n_out=0)
defvjp(
    _isotonic,
    lambda g, ans, x, **p: (
        apply(_segment_mean, (g[0], ans[1]), {"axis": p["axis"]})
        if x._value.dtype.kind == "f"
        else None
    ),
)


def isotonic_regression(inputs, decreasing=True, axis=-1):
    """Solves the isotonic regression problems along ``axis`` (follows
    `tf.nn.isotonic_regression`): for each vector ``x`` along the axis,

        ``argmin over y_1 >= y_2 >= ... >= y_n of sum_i (x_i - y_i) ** 2``

    (``y_1 <= y_2 <= ...`` with ``decreasing=False``, solved as ``-f(-x)``), by the
    pool-adjacent-violators algorithm. The solution is constant on consecutive segments; the
    second result numbers them.

    Args:
        inputs: a tensor of any rank (a scalar is one problem of size 1): float16, float32,
            float64, int8, int16, int32 or int64.
        decreasing: whether the solution decreases (default) or increases along the axis
            (taken for its truth value, as TensorFlow does).
        axis: the axis the problems lie along (default -1).

    Returns:
        ``(output, segments)``, both ``inputs``' shape. ``output`` is float16, float32 or
        float64 for float inputs (their own dtype), float32 for int8 and int16, float64 for
        int32 and int64. ``segments`` is int32: 0, 1, ... along each problem, one id per
        segment; equal neighbouring values stay separate segments unless merged by a
        violation, as in TensorFlow. ``output`` is differentiable for float inputs: each
        input's gradient is the mean of the output gradients over its segment.

    Raises:
        InvalidArgumentError: ``axis`` outside ``[-rank, rank)`` (TensorFlow's check); an
            `UnsupportedDTypeError` (also a TypeError) for unsigned, bool, complex or string
            inputs.
        TypeError: ``axis`` not an int.

    >>> y, segments = ek.nn.isotonic_regression([[3.0, 1.0, 2.0], [1.0, 3.0, 4.0]])
    >>> y.numpy()
    array([[3.       , 1.5      , 1.5      ],
           [2.6666667, 2.6666667, 2.6666667]], dtype=float32)
    >>> segments.numpy()
    array([[0, 1, 1],
           [0, 0, 0]], dtype=int32)
    """
    op = "isotonic_regression"
    x = tensor(inputs, op)
    output_dtype = _OUTPUT_DTYPES.get(x.dtype.name)
    if output_dtype is None:
        raise dtype_unsupported(
            op, x, "float16, float32, float64, int8, int16, int32 or int64", "inputs"
        )
    if isinstance(axis, bool) or not isinstance(axis, numbers.Real) or axis != int(axis):
        raise TypeError(f"{op}: axis must be an int, got {axis!r}.")
    rank, a = x.ndim, int(axis)
    if a != -1 and a != rank - 1 and not -rank <= a < rank:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: axis must be in the range [{-rank}, {rank}) where {rank} is the number of "
            f"dimensions in the input. Received: axis={a}",
        )
    if rank == 0:  # one problem of size 1
        output, segments = isotonic_regression(reshape(x, [1]), decreasing)
        return reshape(output, []), reshape(segments, [])
    params = {"axis": a % rank, "decreasing": bool(decreasing), "output_dtype": output_dtype}
    output, segments = apply(_isotonic, (x,), params)
    return output, segments
