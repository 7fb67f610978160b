"""The row partitions of `tf.io.RaggedFeature` (``RowSplits``, ``RowLengths``, ``RowStarts``,
``RowLimits``, ``ValueRowIds``, ``UniformRowLength``) and how a parsed feature's values get
them, as TensorFlow's ``parsing_config`` builds them: partition features are parsed as int64
ragged features of their own, then applied innermost first."""

from __future__ import annotations

import collections

import numpy as np

from ..core.tensor import make
from ..ragged import RaggedTensor

__all__ = [
    "PARTITION_TYPES",
    "RowLengths",
    "RowLimits",
    "RowSplits",
    "RowStarts",
    "UniformRowLength",
    "ValueRowIds",
    "add_partitions",
    "partition_key",
]

RowSplits = collections.namedtuple("RowSplits", ["key"])
RowLengths = collections.namedtuple("RowLengths", ["key"])
RowStarts = collections.namedtuple("RowStarts", ["key"])
RowLimits = collections.namedtuple("RowLimits", ["key"])
ValueRowIds = collections.namedtuple("ValueRowIds", ["key"])
UniformRowLength = collections.namedtuple("UniformRowLength", ["length"])
PARTITION_TYPES = (RowSplits, RowLengths, RowStarts, RowLimits, ValueRowIds, UniformRowLength)


def partition_key(key: str) -> str:
    """The internal output name of partition feature ``key`` (not a user-visible name)."""
    return "\x00partition:" + key


def add_partitions(values, partitions, parsed: dict, validate: bool, batched: bool):
    """``values`` (1-D Tensor for one Example; RaggedTensor ``[batch, None]`` for a batch)
    with ``partitions`` applied innermost first; ``parsed[partition_key(k)]`` holds partition
    feature ``k`` parsed the same way (a 1-D int64 Tensor, or ``[batch, None]``)."""
    for p in reversed(partitions):
        if batched:
            values = _add_batched(values, p, parsed, validate)
        else:
            values = _add_single(values, p, parsed, validate)
    return values


def _add_single(values, p, parsed: dict, validate: bool):
    if isinstance(p, UniformRowLength):
        if isinstance(values, RaggedTensor):
            return RaggedTensor.from_uniform_row_length(values, p.length, validate=validate)
        from ..ops.array_ops import reshape

        return reshape(values, [-1, p.length, *values.shape[1:]])
    t = parsed[partition_key(p.key)]
    build = {
        RowSplits: RaggedTensor.from_row_splits,
        RowLengths: RaggedTensor.from_row_lengths,
        RowStarts: RaggedTensor.from_row_starts,
        RowLimits: RaggedTensor.from_row_limits,
        ValueRowIds: RaggedTensor.from_value_rowids,
    }[type(p)]
    return build(values, t, validate=validate)


def _np(t) -> np.ndarray:
    return np.asarray(t._value)


def _add_batched(rt: RaggedTensor, p, parsed: dict, validate: bool) -> RaggedTensor:
    """Partitions each batch item ``rt[i]`` by item ``i`` of the partition feature."""
    splits = _np(rt.row_splits)
    if isinstance(p, UniformRowLength):
        n = int(p.length)
        if isinstance(rt.values, RaggedTensor):
            inner = RaggedTensor.from_uniform_row_length(rt.values, n, validate=validate)
        else:
            from ..ops.array_ops import reshape

            inner = reshape(rt.values, [-1, n, *rt.values.shape[1:]])
        return RaggedTensor.from_row_splits(inner, splits // n, validate=validate)
    part = parsed[partition_key(p.key)]
    psplits, pvalues = _np(part.row_splits), _np(part.values).astype(np.int64)
    lengths = np.diff(psplits)
    starts = np.repeat(splits[:-1], lengths)  # each item's first value in rt.values
    if isinstance(p, ValueRowIds):
        # rows per item: 1 + its largest row id (0 for an item without ids)
        item_of = np.repeat(np.arange(len(lengths)), lengths)
        nrows = np.zeros(len(lengths), np.int64)
        np.maximum.at(nrows, item_of, pvalues + 1)
        offsets = np.repeat(np.cumsum(nrows) - nrows, lengths)
        inner = RaggedTensor.from_value_rowids(
            rt.values, pvalues + offsets, nrows=int(nrows.sum()), validate=validate
        )
        return RaggedTensor.from_row_lengths(inner, nrows, validate=validate)
    if isinstance(p, RowSplits):  # each item's splits without its leading 0: its limits
        keep = np.ones(len(pvalues), bool)
        keep[psplits[:-1][lengths > 0]] = False
        pvalues = pvalues[keep]
        lengths = np.maximum(lengths - 1, 0)
        starts = np.repeat(splits[:-1], lengths)
    if isinstance(p, RowLengths):
        inner = RaggedTensor.from_row_lengths(rt.values, pvalues, validate=validate)
    elif isinstance(p, RowStarts):
        inner = RaggedTensor.from_row_starts(rt.values, pvalues + starts, validate=validate)
    else:  # RowSplits, RowLimits
        inner = RaggedTensor.from_row_limits(rt.values, pvalues + starts, validate=validate)
    outer = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return RaggedTensor.from_row_splits(inner, make(outer, rt.row_splits._device), validate=False)
