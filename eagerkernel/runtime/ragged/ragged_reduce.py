"""Reducing one ragged axis of a RaggedTensor of any ragged rank (follows TensorFlow's ragged
reductions): every element is addressed by its coordinates at each ragged level; dropping
the reduced coordinate and grouping equal coordinates gives the result's row partition, and
an unsorted segment reduction of the flat values gives its values (so the result is
differentiable with respect to the flat values)."""

from __future__ import annotations

import numpy as np

from ..core.tensor import make
from .ragged_tensor import RaggedTensor

__all__ = ["SEGMENT_REDUCTIONS", "reduce_axes", "reduce_ragged_axis"]

SEGMENT_REDUCTIONS = ("reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_mean")


def _row_ids(splits: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(len(splits) - 1), np.diff(splits))


def _level_coordinates(rt: RaggedTensor) -> list:
    """``coords[m]``: one row of ``m + 1`` coordinates per element of ragged level ``m``
    (level 0: the rows; the last level: the rows of the flat values)."""
    splits = [np.asarray(s._value, dtype=np.int64) for s in rt.nested_row_splits]
    coords = [np.arange(len(splits[0]) - 1, dtype=np.int64)[:, None]]
    for s in splits:
        parent = _row_ids(s)
        position = np.arange(len(parent), dtype=np.int64) - s[parent]
        coords.append(np.concatenate([coords[-1][parent], position[:, None]], axis=1))
    return coords


def _group(keys: np.ndarray):
    """Lexicographically sorted unique rows of ``keys`` and each row's group."""
    if not len(keys):
        return keys, np.zeros(0, np.int64)
    unique, inverse = np.unique(keys, axis=0, return_inverse=True)
    return unique, inverse.reshape(-1).astype(np.int64)


def reduce_ragged_axis(rt: RaggedTensor, op: str, axis: int):
    """``op`` (one of `SEGMENT_REDUCTIONS`) over ragged axis ``axis`` (0 to ragged_rank) of
    ``rt``: a RaggedTensor of ragged rank one less, or a Tensor. Empty groups give the
    reduction's identity (0, 1, the dtype's lowest/highest value; NaN for a mean)."""
    from ..ops import segment_ops
    from ..ops.elementwise import truediv

    coords = _level_coordinates(rt)
    depth = len(coords) - 1  # = ragged_rank
    keep = [c for c in range(depth + 1) if c != axis]
    levels = []  # the result's levels: unique coordinate keys, outermost first
    for m in range(depth + 1):
        if m == axis:
            continue
        cols = [c for c in keep if c <= m]
        levels.append(_group(coords[m][:, cols]))
    flat = rt.flat_values
    if axis == depth:  # the innermost ragged axis: each element of the level above is a group
        seg = _row_ids(np.asarray(rt.nested_row_splits[-1]._value, dtype=np.int64))
    else:
        seg = levels[-1][1]
    num = len(levels[-1][0])
    seg_t = make(seg, flat._device)
    if op == "reduce_mean":
        total = segment_ops.unsorted_segment_sum(flat, seg_t, num)
        ones = make(np.ones(flat._value.shape, dtype=total._value.dtype), flat._device)
        count = segment_ops.unsorted_segment_sum(ones, seg_t, num)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = truediv(total, count)
    else:
        values = getattr(segment_ops, "unsorted_segment_" + op[len("reduce_") :])(flat, seg_t, num)
    # the row partitions between consecutive result levels, innermost first
    result = values
    for m in range(len(levels) - 1, 0, -1):
        parent_keys, child_keys = levels[m - 1][0], levels[m][0]
        index = {tuple(k): i for i, k in enumerate(parent_keys.tolist())}
        parents = np.asarray([index[tuple(k[:-1])] for k in child_keys.tolist()], np.int64)
        counts = np.bincount(parents, minlength=len(parent_keys))
        splits = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        result = RaggedTensor(result, make(splits, values._device), internal=True)
    return result


def reduce_axes(rt: RaggedTensor, op: str, axes: list, keepdims: bool, reduce):
    """``op`` over several axes (``axes`` non-negative, distinct): one at a time from the
    last, as TensorFlow does; a mean is the sum over the count. ``reduce(rt, op, axis,
    keepdims)`` reduces one axis of a RaggedTensor."""
    from .. import ops
    from ..ops.elementwise import truediv

    if op == "reduce_mean":
        flat = rt.flat_values
        ones = rt.with_flat_values(
            make(np.ones(flat._value.shape, flat._value.dtype), flat._device)
        )
        total = reduce_axes(rt, "reduce_sum", axes, keepdims, reduce)
        count = reduce_axes(ones, "reduce_sum", axes, keepdims, reduce)
        with np.errstate(invalid="ignore", divide="ignore"):
            return truediv(total, count)
    out = rt
    for a in sorted(axes, reverse=True):
        if isinstance(out, RaggedTensor):
            out = reduce(out, op, a, keepdims)
        else:
            out = getattr(ops, op)(out, axis=a, keepdims=keepdims)
    return out
