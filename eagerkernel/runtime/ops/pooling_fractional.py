"""Fractional max and average pooling (Graham, 2015, https://arxiv.org/abs/1412.6071):
``fractional_max_pool`` and ``fractional_avg_pool``, following TensorFlow 2's
`tf.nn.fractional_max_pool` and `tf.nn.fractional_avg_pool`.

The pooling regions are drawn as TensorFlow's kernel draws them (fractional_pool_common.cc):
for ``n_in`` rows pooled to ``n_out = floor(n_in / ratio)``, the row boundaries ``a`` start at
0, end at ``n_in`` and step by ``K = n_in // n_out`` or ``K + 1``; the "random" sequence
shuffles ``n_in % n_out`` steps of ``K + 1`` among steps of ``K``, the "pseudo-random" one is
``a_i = ceil(alpha * (i + u)) - 1`` for ``alpha = n_in / n_out`` and one uniform ``u`` in the
range that keeps every step at ``K`` or ``K + 1``. The draws come from eagerkernel's NumPy
generator (`ek.random`), not TensorFlow's Philox stream, so the sequences differ from
TensorFlow's for the same seed; their distribution and constraints are the same.

The draw is a stateful step (a graph function draws again on every call); the pooling given
the sequences is a primitive whose VJPs are TensorFlow's FractionalMaxPoolGrad (the cotangent
goes to each region's first maximum in row-major order) and FractionalAvgPoolGrad (spread
evenly over the region), each linear in the cotangent with its adjoint as VJP.
"""

from __future__ import annotations

import collections
import math
import numbers

import numpy as np

from .. import random as _random
from ..core.dispatch import Primitive, defvjp, stateful
from ..core.errors import InvalidArgumentError, UnimplementedError
from ..core.tensor import make
from ._core import apply, dtype_unsupported, tensor

__all__ = ["fractional_avg_pool", "fractional_max_pool"]

FractionalMaxPool = collections.namedtuple(
    "FractionalMaxPool", ["output", "row_pooling_sequence", "col_pooling_sequence"]
)
FractionalAvgPool = collections.namedtuple(
    "FractionalAvgPool", ["output", "row_pooling_sequence", "col_pooling_sequence"]
)


# -- pooling sequences --------------------------------------------------------------------------


def pooling_sequence(gen: np.random.Generator, n_in: int, n_out: int, pseudo_random: bool):
    """The ``n_out + 1`` boundaries (int64) of ``n_out`` regions covering ``n_in`` positions,
    each of ``n_in // n_out`` or one more positions, drawn with ``gen`` as TensorFlow's
    GeneratePoolingSequence draws them (module docstring)."""
    k = n_in // n_out
    if pseudo_random:
        alpha = n_in / n_out
        u_max = min((k + 2) / alpha - 1, (n_in + 1 - k) / alpha - (n_out - 1))
        u = gen.random() * u_max
        ends = [1] + [math.ceil(alpha * (i + u)) for i in range(1, n_out)] + [n_in + 1]
        steps = np.diff(np.asarray(ends, np.int64))
    else:
        steps = np.full(n_out, k, np.int64)
        steps[: n_in % n_out] += 1
        gen.shuffle(steps)
    return np.concatenate([[0], np.cumsum(steps)]).astype(np.int64)


@stateful  # fresh regions on every call of a graph function (seed 0)
def _draw_sequences(in_hw, out_hw, pseudo_random: bool, seed: int, device):
    gen = _random.generator(seed if seed else None)  # None: the global generator
    seqs = [pooling_sequence(gen, n, m, pseudo_random) for n, m in zip(in_hw, out_hw)]
    return tuple(make(device.xp.asarray(s) if device.xp is not np else s, device) for s in seqs)


# -- array kernels (xp is numpy or cupy) --------------------------------------------------------


def _regions(xp, seq, size: int, overlapping: bool):
    """Each region's first and last (inclusive) position, as host int64 arrays: regions end
    before the next one starts, or on its first position when ``overlapping``."""
    seq = np.asarray(seq if xp is np else xp.asnumpy(seq), np.int64)
    ends = seq[1:] if overlapping else seq[1:] - 1
    return seq[:-1], np.minimum(ends, size - 1)


def _along(xp, a, axis: int, index):
    return xp.take(a, xp.asarray(index), axis=axis)


def _shape_on(axis: int, n: int) -> tuple:
    return (1, n, 1, 1) if axis == 1 else (1, 1, n, 1)


def _window_sums(xp, a, axis: int, starts, ends):
    """``a`` summed over each region along ``axis`` (1: rows, 2: columns)."""
    lengths = ends - starts + 1
    out = _along(xp, a, axis, starts).copy()
    for j in range(1, int(lengths.max(initial=1))):
        part = _along(xp, a, axis, np.minimum(starts + j, ends))
        mask = xp.asarray((j < lengths).reshape(_shape_on(axis, len(starts))))
        out += xp.where(mask, part, 0)  # repeated last positions count once
    return out


def _window_spread(xp, g, axis: int, starts, ends, size: int):
    """The adjoint of `_window_sums`: each region's value added to each of its positions."""
    shape = list(g.shape)
    shape[axis] = size
    out = xp.zeros(shape, g.dtype)
    lengths = ends - starts + 1
    for j in range(int(lengths.max(initial=0))):
        keep = np.nonzero(j < lengths)[0]
        target = (slice(None),) * axis + (xp.asarray(starts[keep] + j),)
        out[target] += _along(xp, g, axis, keep)  # starts increase: no index repeats
    return out


def _max_and_argmax(xp, x, rows, cols, overlapping):
    """Each region's maximum and the (row, col) of its first maximum in row-major order:
    the column maxima of each row first, then the rows (a later element wins only when
    strictly larger, as TensorFlow's FractionalMaxPoolGrad)."""
    h, w = x.shape[1:3]
    (rs, re), (cs, ce) = _regions(xp, rows, h, overlapping), _regions(xp, cols, w, overlapping)
    best = _along(xp, x, 2, cs)
    best_col = xp.broadcast_to(xp.asarray(cs).reshape(1, 1, -1, 1), best.shape)
    for j in range(1, int((ce - cs + 1).max(initial=1))):
        index = np.minimum(cs + j, ce)
        value = _along(xp, x, 2, index)
        better = value > best
        best = xp.where(better, value, best)
        best_col = xp.where(better, xp.asarray(index).reshape(1, 1, -1, 1), best_col)
    out = _along(xp, best, 1, rs)
    out_row = xp.broadcast_to(xp.asarray(rs).reshape(1, -1, 1, 1), out.shape)
    out_col = _along(xp, best_col, 1, rs)
    for j in range(1, int((re - rs + 1).max(initial=1))):
        index = np.minimum(rs + j, re)
        value = _along(xp, best, 1, index)
        better = value > out
        out = xp.where(better, value, out)
        out_row = xp.where(better, xp.asarray(index).reshape(1, -1, 1, 1), out_row)
        out_col = xp.where(better, _along(xp, best_col, 1, index), out_col)
    return out, out_row, out_col


def _flat_argmax(xp, x, rows, cols, overlapping):
    _, r, c = _max_and_argmax(xp, x, rows, cols, overlapping)
    n, h, w, d = x.shape
    return ((xp.arange(n).reshape(-1, 1, 1, 1) * h + r) * w + c) * d + xp.arange(d)


def _max_pool_fwd(xp, x, rows, cols, overlapping):
    out = _max_and_argmax(xp, x, rows, cols, overlapping)[0]
    if x.dtype.kind == "f":  # TensorFlow's kernel starts each maximum at the lowest float
        out = xp.maximum(out, np.array(np.finfo(x.dtype).min, x.dtype))
    return out


def _max_pool_grad_fwd(xp, x, rows, cols, g, overlapping):
    out = xp.zeros(x.size, g.dtype)
    if g.size:
        xp.add.at(out, _flat_argmax(xp, x, rows, cols, overlapping).reshape(-1), g.reshape(-1))
    return out.reshape(x.shape)


def _max_pool_select_fwd(xp, x, rows, cols, h, overlapping):
    index = _flat_argmax(xp, x, rows, cols, overlapping)
    return h.reshape(-1)[index] if h.size else xp.zeros(index.shape, h.dtype)


def _region_counts(xp, shape, rows, cols, overlapping):
    (rs, re), (cs, ce) = (_regions(xp, s, n, overlapping) for s, n in zip((rows, cols), shape))
    return rs, re, cs, ce, ((re - rs + 1)[:, None] * (ce - cs + 1)[None, :])[None, :, :, None]


def _avg_pool_fwd(xp, x, rows, cols, overlapping):
    rs, re, cs, ce, counts = _region_counts(xp, x.shape[1:3], rows, cols, overlapping)
    sums = _window_sums(xp, _window_sums(xp, x, 2, cs, ce), 1, rs, re)
    if x.dtype.kind == "f":
        return sums / xp.asarray(counts.astype(x.dtype))
    quotient = xp.abs(sums) // xp.asarray(counts)  # C++'s integer division, toward zero
    return (xp.sign(sums) * quotient).astype(x.dtype)


def _avg_pool_grad_fwd(xp, g, rows, cols, overlapping, input_shape):
    """TensorFlow's FractionalAvgPoolGrad: each cotangent divided evenly over its region,
    accumulated in float64."""
    rs, re, cs, ce, counts = _region_counts(xp, input_shape[1:3], rows, cols, overlapping)
    share = g.astype(np.float64) / xp.asarray(counts)
    spread = _window_spread(xp, share, 1, rs, re, input_shape[1])
    return _window_spread(xp, spread, 2, cs, ce, input_shape[2]).astype(g.dtype)


def _float_only(vjp):
    """No gradient for integer inputs (TensorFlow gives None)."""
    return lambda g, ans, x, *rest, **p: vjp(g, ans, x, *rest, **p) if x.dtype.is_floating else None


_max_pool = Primitive("FractionalMaxPool", _max_pool_fwd)
_max_pool_grad = Primitive("FractionalMaxPoolGrad", _max_pool_grad_fwd)
_max_pool_select = Primitive("FractionalMaxPoolGradGrad", _max_pool_select_fwd)
_avg_pool = Primitive("FractionalAvgPool", _avg_pool_fwd)
_avg_pool_grad = Primitive("FractionalAvgPoolGrad", _avg_pool_grad_fwd)
# The positions of the maxima are piecewise constant in x: the scatter and the gather are
# linear in their last input, each the other's VJP. Average pooling is linear in x.
defvjp(
    _max_pool,
    _float_only(lambda g, ans, x, r, c, **p: apply(_max_pool_grad, (x, r, c, g), p)),
    None,
    None,
)
defvjp(
    _max_pool_grad,
    None,
    None,
    None,
    lambda h, ans, x, r, c, g, **p: apply(_max_pool_select, (x, r, c, h), p),
)
defvjp(
    _max_pool_select,
    None,
    None,
    None,
    lambda g, ans, x, r, c, h, **p: apply(_max_pool_grad, (x, r, c, g), p),
)
defvjp(
    _avg_pool,
    _float_only(
        lambda g, ans, x, r, c, **p: apply(
            _avg_pool_grad, (g, r, c), {**p, "input_shape": tuple(x._value.shape)}
        )
    ),
    None,
    None,
)
defvjp(
    _avg_pool_grad,
    lambda h, ans, g, r, c, overlapping, input_shape: apply(
        _avg_pool, (h, r, c), {"overlapping": overlapping}
    ),
    None,
    None,
)


# -- arguments ----------------------------------------------------------------------------------


def _max_pool_ratio(pooling_ratio, op: str) -> list:
    """`tf.nn.fractional_max_pool`'s Python checks and expansion to 4 entries."""
    if isinstance(pooling_ratio, (list, tuple)):
        ratio = list(pooling_ratio)
        if not ratio or ratio[0] != 1.0 or ratio[-1] != 1.0:
            raise ValueError(
                f"{op}: pooling_ratio should have first and last elements with value 1.0. "
                f"Received: pooling_ratio={pooling_ratio}"
            )
        if any(r < 1.0 for r in ratio):
            raise ValueError(
                f"{op}: pooling_ratio elements should be >= 1.0. Received: "
                f"pooling_ratio={pooling_ratio}"
            )
    elif isinstance(pooling_ratio, numbers.Real) and not isinstance(pooling_ratio, bool):
        if pooling_ratio < 1.0:
            raise ValueError(
                f"{op}: pooling_ratio should be >= 1.0. Received: pooling_ratio={pooling_ratio}"
            )
        ratio = [pooling_ratio]
    else:
        raise ValueError(
            f"{op}: pooling_ratio should be an int or a list of ints. Received: "
            f"pooling_ratio={pooling_ratio!r}"
        )
    if len(ratio) == 1:
        return [1.0, ratio[0], ratio[0], 1.0]
    if len(ratio) == 2:
        return [1.0, *ratio, 1.0]
    if len(ratio) == 4:
        return ratio
    raise ValueError(
        f"{op}: pooling_ratio should be of length 1, 2 or 4. Received: "
        f"pooling_ratio={pooling_ratio} of length {len(ratio)}"
    )


def _avg_pool_ratio(pooling_ratio, op: str) -> list:
    """`tf.nn.fractional_avg_pool`'s checks (its op's attribute): a list of 4 ratios."""
    if not isinstance(pooling_ratio, (list, tuple)):
        raise TypeError(
            f"{op}: pooling_ratio must be a list of 4 floats [1.0, row_ratio, col_ratio, 1.0], "
            f"got {pooling_ratio!r}."
        )
    ratio = list(pooling_ratio)
    if len(ratio) != 4:
        raise InvalidArgumentError(
            None, op, f"{op}: pooling_ratio must have 4 entries, got {len(ratio)}: {ratio}."
        )
    return ratio


def _fractional_pool(op, value, ratio, pseudo_random, overlapping, seed):
    """``(x, row_seq, col_seq)`` after the kernels' checks, with the sequences drawn."""
    for arg, flag in (("pseudo_random", pseudo_random), ("overlapping", overlapping)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{op}: {arg} must be a bool, got {flag!r}.")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise TypeError(f"{op}: seed must be an int, got {seed!r}.")
    try:
        ratio = [float(r) for r in ratio]
    except (TypeError, ValueError):
        raise TypeError(f"{op}: pooling_ratio must hold numbers, got {ratio!r}.") from None
    if any(r < 1.0 for r in ratio):
        raise InvalidArgumentError(
            None, op, f"{op}: pooling_ratio cannot be smaller than 1, got: {ratio}."
        )
    if ratio[0] != 1.0 or ratio[3] != 1.0:
        raise UnimplementedError(
            None,
            op,
            f"{op}: pooling on the batch and channel dimensions is not supported (pooling_ratio "
            f"{ratio} must be 1.0 there), as in TensorFlow.",
        )
    x = tensor(value, op)
    if x._value.dtype.name not in ("float32", "float64", "int32", "int64"):
        raise dtype_unsupported(op, x, "float32, float64, int32 or int64", "value")
    if x.ndim != 4:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: value must be 4-dimensional [batch, height, width, channels], got shape "
            f"{tuple(x._value.shape)}.",
        )
    shape = x._value.shape
    out = [int(np.floor(np.float32(n) / np.float32(r))) for n, r in zip(shape, ratio)]
    for i, (n, m, r) in enumerate(zip(shape, out, ratio)):
        if m <= 0:
            raise InvalidArgumentError(
                None,
                op,
                f"{op}: pooling ratio is higher than input dimension size for dimension {i}. "
                f"Input dim size: {n} pooling ratio: {r:g}",
            )
    rows, cols = _draw_sequences(
        tuple(shape[1:3]), tuple(out[1:3]), bool(pseudo_random), int(seed or 0), x._device
    )
    return x, rows, cols


def fractional_max_pool(
    value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0, name=None
) -> FractionalMaxPool:
    """Max pooling over randomly sized regions, for a non-integer reduction ratio (follows
    `tf.nn.fractional_max_pool`, TensorFlow 2's signature).

    Args:
        value: ``[batch, height, width, channels]``; float32, float64, int32 or int64.
        pooling_ratio: the reduction of the rows and columns, each >= 1.0: a number (both),
            a list ``[1.0, ratio, ratio, 1.0]``, or ``[1.0]`` / ``[1.0, 1.0]`` (TensorFlow's
            forms); the output has ``floor(size / ratio)`` rows and columns.
        pseudo_random: draw the regions pseudo-randomly (one uniform offset) instead of by
            shuffling their sizes (Graham, 2015).
        overlapping: each region also takes the first row / column of the next one (values
            on a boundary are pooled by both cells).
        seed: 0 (default) or None draws new regions on every call (from the global
            generator, so `ek.random.set_seed` makes them reproducible); a nonzero seed gives
            the same regions on every call for the same shape and global seed.

    Returns:
        A namedtuple ``(output, row_pooling_sequence, col_pooling_sequence)``: ``output``
        ``[batch, out_rows, out_cols, channels]`` of ``value``'s dtype, and the int64
        region boundaries ``[out_rows + 1]`` and ``[out_cols + 1]``: they start at 0, end at
        the input size and step by ``K = size // out_size`` or ``K + 1``. Region ``i`` covers
        ``seq[i]`` to ``seq[i + 1] - 1`` (to ``seq[i + 1]`` within the input when
        ``overlapping``). TensorFlow draws with its own generator, so its sequences differ
        for the same seed; their constraints and distribution are the same. ``output`` is
        differentiable in ``value`` (floating): each output's gradient goes to its region's
        first maximum in row-major order, as TensorFlow's FractionalMaxPoolGrad; the
        gradient is differentiable again.

    Raises:
        ValueError: ``pooling_ratio`` not a number or a list of 1, 2 or 4 numbers, not 1.0
            at both ends (a list), or below 1.0 (TensorFlow's Python checks).
        TypeError: ``pseudo_random`` or ``overlapping`` not a bool, ``seed`` not an int.
        InvalidArgumentError: ``value`` not 4-D, a ratio above a dimension's size (an empty
            output); `UnsupportedDTypeError` (also a TypeError) for other dtypes.

    >>> x = ek.reshape(ek.range(36.0), [1, 6, 6, 1])
    >>> out, rows, cols = ek.nn.fractional_max_pool(x, [1.0, 1.5, 1.5, 1.0], seed=1)
    >>> out.shape, rows.shape, int(rows[0]), int(rows[-1])
    (TensorShape([1, 4, 4, 1]), TensorShape([5]), 0, 6)
    >>> again = ek.nn.fractional_max_pool(x, 1.5, seed=1)  # a nonzero seed: the same regions
    >>> bool(ek.reduce_all(ek.equal(out, again.output)))
    True
    """
    op = "fractional_max_pool"
    ratio = _max_pool_ratio(pooling_ratio, op)
    x, rows, cols = _fractional_pool(op, value, ratio, pseudo_random, overlapping, seed)
    output = apply(_max_pool, (x, rows, cols), {"overlapping": bool(overlapping)})
    return FractionalMaxPool(output, rows, cols)


def fractional_avg_pool(
    value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0, name=None
) -> FractionalAvgPool:
    """Average pooling over randomly sized regions, for a non-integer reduction ratio
    (follows `tf.nn.fractional_avg_pool`, TensorFlow 2's signature). Regions are drawn as
    in `fractional_max_pool`; integer inputs are averaged with C++'s integer division
    (toward zero), as TensorFlow's kernel.

    Args:
        value: ``[batch, height, width, channels]``; float32, float64, int32 or int64.
        pooling_ratio: a list of 4 numbers ``[1.0, row_ratio, col_ratio, 1.0]``, each
            >= 1.0 (TensorFlow's op attribute: no shorter forms).
        pseudo_random, overlapping, seed: as `fractional_max_pool`.

    Returns:
        A namedtuple ``(output, row_pooling_sequence, col_pooling_sequence)`` as
        `fractional_max_pool`'s. ``output`` is differentiable in ``value`` (floating): each
        output's gradient is spread evenly over its region, as TensorFlow's
        FractionalAvgPoolGrad; the gradient is differentiable again.

    Raises:
        TypeError: ``pooling_ratio`` not a list, ``pseudo_random`` or ``overlapping`` not a
            bool, ``seed`` not an int.
        InvalidArgumentError: ``pooling_ratio`` without 4 entries or with one below 1.0,
            ``value`` not 4-D, a ratio above a dimension's size; `UnsupportedDTypeError`
            (also a TypeError) for other dtypes.
        UnimplementedError: a ratio other than 1.0 on the batch or channel dimension.

    >>> x = ek.reshape(ek.range(16.0), [1, 4, 4, 1])
    >>> out, rows, cols = ek.nn.fractional_avg_pool(x, [1.0, 2.0, 2.0, 1.0])
    >>> out.numpy()[0, :, :, 0]  # a ratio that divides the size: regular 2 x 2 pooling
    array([[ 2.5,  4.5],
           [10.5, 12.5]], dtype=float32)
    >>> rows.numpy()
    array([0, 2, 4])
    """
    op = "fractional_avg_pool"
    ratio = _avg_pool_ratio(pooling_ratio, op)
    x, rows, cols = _fractional_pool(op, value, ratio, pseudo_random, overlapping, seed)
    output = apply(_avg_pool, (x, rows, cols), {"overlapping": bool(overlapping)})
    return FractionalAvgPool(output, rows, cols)
