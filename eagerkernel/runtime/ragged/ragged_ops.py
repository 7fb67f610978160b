"""Ops on RaggedTensors: `ek.ragged.constant`, `map_flat_values`, `range`, and what the public
ops (elementwise math, reductions, `concat`, indexing) do when handed a RaggedTensor.

Each is built from ordinary ops on the components (gather, boolean_mask, the reductions of a
padded dense tensor), so tapes record them and gradients reach the flat values.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, constant, make, to_tensor
from .ragged_gather import gather_in_rows
from .ragged_reduce import SEGMENT_REDUCTIONS, reduce_axes, reduce_ragged_axis
from .ragged_tensor import RaggedTensor, convert_values, row_ids_of_splits

__all__ = ["constant_ragged", "map_flat_values", "range_ragged"]


# -- construction -------------------------------------------------------------------------------


def constant_ragged(
    pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype=None
):
    """A RaggedTensor from nested Python lists (follows `tf.ragged.constant`).

    Args:
        pylist: nested lists whose scalars all sit at the same depth.
        dtype: the values' dtype (inferred as `ek.constant` does when None).
        ragged_rank: how many dimensions are ragged (default: the nesting depth - 1); the
            dimensions after the ragged ones must be uniform.
        inner_shape: the shape of each innermost value (default: scalars); the ragged rank
            then defaults to the nesting depth - 1 - ``len(inner_shape)``.

    Raises:
        ValueError: scalars at different depths, mixed types, non-uniform inner lists, or a
            depth that does not match ``ragged_rank`` and ``inner_shape``. TypeError: inner
            values that do not fill ``inner_shape``.

    >>> print(ek.ragged.constant([["Hi"], ["How", "are", "you"]]))
    <RaggedTensor [[b'Hi'], [b'How', b'are', b'you']]>
    """
    if row_splits_dtype not in (None, dtypes.int64):
        raise NotImplementedError("ragged.constant: row_splits are int64 only.")
    if isinstance(pylist, RaggedTensor):
        return pylist
    if isinstance(pylist, np.ndarray) and pylist.ndim:  # nested values, as TensorFlow reads
        pylist = pylist.tolist()  # an array (an object array of lists: a pandas column's)
    if not isinstance(pylist, (list, tuple)):
        return constant(pylist, dtype)
    depth = _scalar_depth(pylist)
    inner = () if inner_shape is None else tuple(int(d) for d in inner_shape)
    given = inner_shape is not None and ragged_rank is not None and depth is not None
    if given and depth != int(ragged_rank) + len(inner) + 1:  # TF's check
        raise ValueError(
            f"ragged.constant: Invalid pylist={pylist!r:.80}: incompatible with "
            f"ragged_rank={ragged_rank} and dim(inner_shape)={len(inner)}"
        )
    if depth is None:  # only empty lists: as deep as the nesting or ragged_rank needs (TF)
        depth = max(_list_depth(pylist), 0 if ragged_rank is None else int(ragged_rank) + 1)
    if ragged_rank is None:
        ragged_rank = max(depth - 1 - len(inner), 1 if depth - len(inner) > 1 else 0)
    ragged_rank = int(ragged_rank)
    if ragged_rank < 0 or (depth > 0 and ragged_rank >= depth and depth > 1):
        raise ValueError(
            f"ragged.constant: ragged_rank must be in [0, {depth - 1}], got {ragged_rank}."
        )
    if ragged_rank == 0:
        return constant(pylist, dtype, shape=inner or None)
    splits_levels = []
    level = list(pylist)
    for _ in range(ragged_rank):
        lengths = [len(x) if isinstance(x, (list, tuple)) else -1 for x in level]
        if any(n < 0 for n in lengths):
            raise ValueError("ragged.constant: all scalar values must have the same nesting depth")
        splits_levels.append(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64))
        level = [v for x in level for v in x]
    try:
        if inner_shape is not None:
            shape = (len(level), *inner)
            values = constant(level, dtype, shape) if level else _empty_values(shape, dtype)
        elif level:
            values = constant(level, dtype)
        else:
            shape = (0,) * max(depth - ragged_rank, 1)
            values = _empty_values(shape, dtype)
    except TypeError as e:
        if isinstance(e, ValueError):  # a value/shape mismatch: TypeError as TF's, and ValueError
            raise
        raise ValueError(f"ragged.constant: {e}") from None
    result = values
    for splits in reversed(splits_levels):
        result = RaggedTensor(result, make(splits, values._device), internal=True)
    return result


def _empty_values(shape, dtype):
    np_dtype = np.float32 if dtype is None else dtypes.numpy_dtype(dtype)
    return make(np.zeros(shape, dtype=np_dtype), _cpu())


def _cpu():
    from ..core.device import current_device

    return current_device()


def _scalar_depth(x, d=0):
    """The depth at which scalars sit (None if there are none); ValueError if it varies."""
    if not isinstance(x, (list, tuple)):
        return d
    found = None
    for v in x:
        dv = _scalar_depth(v, d + 1)
        if dv is None:
            continue
        if found is not None and dv != found:
            raise ValueError("all scalar values must have the same nesting depth")
        found = dv
    return found


def _list_depth(x) -> int:
    """The deepest nesting of lists in ``x`` (TF reads ``[[], [[]]]`` as 3 deep)."""
    if not isinstance(x, (list, tuple)):
        return 0
    return 1 + max((_list_depth(v) for v in x), default=0)


def map_flat_values(op, *args, **kwargs):
    """``op`` applied to the flat values of the RaggedTensor arguments, keeping their row
    partition (follows `tf.ragged.map_flat_values`).

    With no RaggedTensor argument, returns ``op(*args, **kwargs)``.

    Raises:
        ValueError: arguments with different row partitions.

    >>> print(ek.ragged.map_flat_values(lambda x: x * 2 + 1, ek.ragged.constant([[1], [2, 3]])))
    <RaggedTensor [[3], [5, 7]]>
    """
    partition = []

    def strip(v):
        if isinstance(v, RaggedTensor):
            partition.append(v)
            return v.flat_values
        if isinstance(v, (list, tuple)):
            return type(v)(strip(x) for x in v)
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items()}
        return v

    args = strip(args)
    kwargs = strip(kwargs)
    if not partition:  # as TF: nothing ragged, so op applies to the arguments as they are
        return op(*args, **kwargs)
    first = partition[0]
    for other in partition[1:]:
        check_same_splits(first, other, "map_flat_values")
    out = op(*args, **kwargs)
    return first.with_flat_values(out)


def range_ragged(starts, limits=None, deltas=1, dtype=None, name=None, row_splits_dtype=None):
    """Row ``i`` is ``range(starts[i], limits[i], deltas[i])`` (follows `tf.ragged.range`).

    >>> print(ek.ragged.range([3, 0, 2]))
    <RaggedTensor [[0, 1, 2], [], [0, 1]]>
    """
    if limits is None:
        starts, limits = 0, starts
    s, lim, d = np.broadcast_arrays(
        *(np.asarray(v.numpy() if isinstance(v, Tensor) else v) for v in (starts, limits, deltas))
    )
    s, lim, d = np.atleast_1d(s), np.atleast_1d(lim), np.atleast_1d(d)
    if np.any(d == 0):
        raise InvalidArgumentError(None, "RaggedRange", "ragged.range: deltas must be non-zero.")
    rows = [np.arange(a, b, c) for a, b, c in zip(s, lim, d)]
    np_dtype = dtypes.numpy_dtype(dtype) if dtype is not None else np.result_type(s, lim, d)
    if (
        dtype is None
        and np_dtype == np.int64
        and not any(isinstance(v, (Tensor, np.ndarray)) for v in (starts, limits, deltas))
    ):
        np_dtype = np.dtype(np.int32)  # Python ints: int32, as ek.constant
    values = np.concatenate(rows).astype(np_dtype) if rows else np.zeros(0, np_dtype)
    lengths = [len(r) for r in rows]
    return RaggedTensor.from_row_lengths(values, lengths)


# -- elementwise ----------------------------------------------------------------------------------


def check_same_splits(x: RaggedTensor, y: RaggedTensor, op: str) -> None:
    xs, ys = x.nested_row_splits, y.nested_row_splits
    same = len(xs) == len(ys) and all(
        a._value.shape == b._value.shape and np.array_equal(np.asarray(a._value), b._value)
        for a, b in zip(xs, ys)
    )
    if not same:
        k = next(
            (
                k
                for k, (a, b) in enumerate(zip(xs, ys))
                if a._value.shape != b._value.shape
                or not np.array_equal(np.asarray(a._value), b._value)
            ),
            min(len(xs), len(ys)) - 1,
        )
        where = "" if k == 0 else f" in ragged dimension {k + 1}"
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: the RaggedTensors' row partitions differ{where} (row lengths "
            f"{np.diff(np.asarray(xs[k]._value)).tolist()} and "
            f"{np.diff(np.asarray(ys[k]._value)).tolist()}); they must be equal.",
        )


def binary(op, x, y):
    """``op(x, y)`` where x or y is a RaggedTensor: on the flat values, the dense side
    broadcast as TensorFlow's ragged broadcasting does."""
    name = op.__name__
    if isinstance(x, RaggedTensor) and isinstance(y, RaggedTensor):
        check_same_splits(x, y, name)
        return x.with_flat_values(op(x.flat_values, y.flat_values))
    rt, dense, ragged_first = (x, y, True) if isinstance(x, RaggedTensor) else (y, x, False)
    if not isinstance(dense, Tensor):
        dense = to_tensor(dense, rt.flat_values._value.dtype, name)
    flat = rt.flat_values
    inner_rank = flat._value.ndim - 1
    d = dense
    k = d._value.ndim - inner_rank  # dims of `dense` that align with the outer/ragged ones
    if k > 0:
        lead = d._value.shape[:k]
        if all(n == 1 for n in lead):
            from ..ops.array_ops import reshape

            d = reshape(d, d._value.shape[k:])
        elif rt.ragged_rank == 1 and k == 2 and lead[1] == 1 and lead[0] == rt.nrows_int():
            from ..ops.array_ops import squeeze
            from ..ops.indexing import gather

            d = gather(squeeze(d, axis=1), rt.value_rowids())
        else:
            raise InvalidArgumentError(
                None,
                name,
                f"{name}: cannot broadcast a dense tensor of shape {tuple(dense._value.shape)} "
                f"against a RaggedTensor of shape {rt.shape}.",
            )
    out = op(flat, d) if ragged_first else op(d, flat)
    return rt.with_flat_values(out)


# -- reductions -----------------------------------------------------------------------------------

_PAD = {
    "reduce_sum": lambda dt: 0,
    "reduce_prod": lambda dt: 1,
    "reduce_max": lambda dt: _extreme(dt, low=True),
    "reduce_min": lambda dt: _extreme(dt, low=False),
    "reduce_any": lambda dt: False,
    "reduce_all": lambda dt: True,
}


def _extreme(dt: np.dtype, low: bool):
    if dt.kind == "f":
        info = np.finfo(dt)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
    else:
        raise TypeError(f"reduce: cannot reduce a {dt} RaggedTensor.")
    return info.min if low else info.max


def reduce(rt: RaggedTensor, op: str, axis, keepdims):
    """``ek.<op>(rt, axis, keepdims)`` (follows TensorFlow's ragged reductions): over all
    values (axis None), over rows (axis 0), along the ragged axis (axis 1, empty rows give
    the reduction's identity: 0, 1, the dtype's lowest/highest value; a mean gives NaN), or
    over uniform inner axes."""
    from .. import ops

    fn = getattr(ops, op)
    flat = rt.flat_values
    if axis is None:  # every value: a dense result
        out = fn(flat)
        if op == "reduce_mean" and flat._value.dtype.kind in "iu":
            # TF's ragged mean is sum / count, a true division: float64 for int32 values
            from ..ops.elementwise import truediv

            count = make(np.asarray(flat._value.size, flat._value.dtype), flat._device)
            out = truediv(ops.reduce_sum(flat), count)
        if keepdims:
            from ..ops.array_ops import reshape

            out = reshape(out, [1] * rt.ndim)
        return out
    rank = rt.ndim
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    axes = [int(a) + rank if int(a) < 0 else int(a) for a in axes]
    for a in axes:
        if not 0 <= a < rank:
            raise InvalidArgumentError(
                None, op, f"{op}: axis {a} is out of range for a RaggedTensor of rank {rank}."
            )
    if len(set(axes)) != 1:
        if op not in SEGMENT_REDUCTIONS:
            raise NotImplementedError(f"{op}: a RaggedTensor is reduced over one axis at a time.")
        return reduce_axes(rt, op, list(set(axes)), keepdims, reduce)
    a = axes[0]
    if a > rt.ragged_rank:  # a uniform inner axis: on the flat values
        return rt.with_flat_values(fn(flat, axis=a - rt.ragged_rank, keepdims=keepdims))
    # (with no values at all, padding to a dense tensor of width 0 would lose the identity)
    no_values = op in ("reduce_max", "reduce_min") and flat._value.shape[0] == 0
    if rt.ragged_rank != 1 or no_values:
        if op not in SEGMENT_REDUCTIONS:
            raise NotImplementedError(
                f"{op}: reducing a ragged axis needs ragged_rank 1, got {rt.ragged_rank}."
            )
        out = reduce_ragged_axis(rt, op, a)
        return expand_dims(out, a) if keepdims else out
    if op == "reduce_mean":
        total = reduce(rt, "reduce_sum", a, keepdims)
        counts = _counts(rt, a, keepdims, total)
        from ..ops.elementwise import truediv

        with np.errstate(invalid="ignore", divide="ignore"):
            return truediv(total, counts)
    if op in ("reduce_variance", "reduce_std", "reduce_logsumexp") and a == 1:
        return _row_statistic(rt, op, keepdims)
    if op not in _PAD:
        raise NotImplementedError(f"{op}: not supported for a RaggedTensor along axis {a}.")
    dense = rt.to_tensor(default_value=_pad_value(op, flat))
    return fn(dense, axis=a, keepdims=keepdims)


def _row_statistic(rt: RaggedTensor, op: str, keepdims):
    """Variance, standard deviation or log-sum-exp of each row (ragged_rank 1, axis 1), from
    the row means or maxima gathered back onto the values: empty rows give NaN (variance,
    std) or -inf (logsumexp), as TensorFlow's."""
    from ..autodiff import stop_gradient
    from ..ops import elementwise as el
    from ..ops.indexing import gather

    rows = rt.value_rowids()
    flat = rt.flat_values
    if op == "reduce_logsumexp":
        peak = stop_gradient(reduce(rt, "reduce_max", 1, False))
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            total = reduce(
                rt.with_flat_values(el.exp(flat - gather(peak, rows))), "reduce_sum", 1, False
            )
            out = el.log(total) + peak
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = reduce(rt, "reduce_mean", 1, False)
            centered = flat - gather(mean, rows)
            out = reduce(rt.with_flat_values(centered * centered), "reduce_mean", 1, False)
            if op == "reduce_std":
                out = el.sqrt(out)
    if keepdims:
        from ..ops.array_ops import expand_dims as dense_expand_dims

        out = dense_expand_dims(out, 1)
    return out


def _pad_value(op, flat):
    dt = flat._value.dtype
    return np.asarray(_PAD[op](dt), dtype=dt)


def _counts(rt, axis, keepdims, total):
    lengths = np.diff(np.asarray(rt.row_splits._value))
    if axis == 1:
        counts = lengths
    else:  # axis 0: how many rows reach each column
        width = int(lengths.max()) if lengths.size else 0
        counts = (lengths[:, None] > np.arange(width)[None, :]).sum(axis=0)
    shape = [1] * total._value.ndim  # one count per row (or column), over the inner axes
    shape[1 if keepdims and axis == 0 else 0] = counts.shape[0]
    counts = np.broadcast_to(counts.reshape(shape), total._value.shape)
    return make(np.ascontiguousarray(counts, dtype=total._value.dtype), total._device)


# -- concat -------------------------------------------------------------------------------------


def concat(values, axis):
    """`ek.concat` with RaggedTensors among ``values`` (follows TensorFlow's ragged concat):
    axis 0 appends rows, axis 1 joins each row with the others' same row."""
    op = "concat"
    rts = []
    for v in values:
        if isinstance(v, RaggedTensor):
            rts.append(v)
        else:
            t = convert_values(v, op)
            if t._value.ndim < 2:
                raise InvalidArgumentError(
                    None, op, f"{op}: dense values need rank >= 2 to join RaggedTensors."
                )
            rts.append(RaggedTensor.from_tensor(t))
    rank = rts[0].ndim
    if not -rank <= int(axis) < rank:
        raise ValueError(f"{op}: axis={axis} out of bounds: expected {-rank}<=axis<{rank}.")
    a = int(axis) + rank if int(axis) < 0 else int(axis)
    if any(r.ragged_rank != 1 for r in rts):
        raise NotImplementedError(f"{op}: RaggedTensors of ragged_rank 1 only.")
    from ..ops.array_ops import concat as dense_concat
    from ..ops.indexing import gather

    flats = dense_concat([r.flat_values for r in rts], axis=0)
    if a == 0:
        splits = [np.asarray(rts[0].row_splits._value)]
        offset = splits[0][-1]
        for r in rts[1:]:
            s = np.asarray(r.row_splits._value)
            splits.append(s[1:] + offset)
            offset += s[-1]
        return RaggedTensor(flats, make(np.concatenate(splits), flats._device), internal=True)
    if a != 1:
        raise NotImplementedError(f"{op}: axis {axis} on RaggedTensors (0 and 1 are supported).")
    n = rts[0].nrows_int()
    if any(r.nrows_int() != n for r in rts):
        raise InvalidArgumentError(
            None, op, f"{op}: RaggedTensors joined on axis 1 must have the same number of rows."
        )
    starts, offset = [], 0
    for r in rts:
        starts.append(np.asarray(r.row_splits._value) + offset)
        offset += int(np.asarray(r.row_splits._value)[-1])
    order, lengths = [], []
    for i in range(n):
        row = [np.arange(s[i], s[i + 1]) for s in starts]
        order.extend(np.concatenate(row).tolist())
        lengths.append(sum(len(x) for x in row))
    values = gather(flats, np.asarray(order, dtype=np.int64))
    return RaggedTensor.from_row_lengths(values, lengths, validate=False)


# -- indexing -----------------------------------------------------------------------------------


def ragged_row(rt: RaggedTensor, i: int):
    n = rt.nrows_int()
    if not -n <= i < n:
        raise InvalidArgumentError(
            None, "getitem", f"RaggedTensor index {i} is out of range for {n} rows."
        )
    i %= n
    s = np.asarray(rt.row_splits._value)
    return _slice_values(rt.values, int(s[i]), int(s[i + 1]))


def _slice_values(values, start: int, stop: int):
    if isinstance(values, RaggedTensor):
        return _row_range(values, start, stop)
    from ..ops.indexing import getitem as dense_getitem

    return dense_getitem(values, slice(start, stop))


def _row_range(rt: RaggedTensor, start: int, stop: int) -> RaggedTensor:
    s = np.asarray(rt.row_splits._value)
    sub = s[start : stop + 1]
    values = _slice_values(rt.values, int(sub[0]), int(sub[-1]))
    return RaggedTensor(values, make(sub - sub[0], rt.row_splits._device), internal=True)


def getitem(rt: RaggedTensor, key):
    """`RaggedTensor.__getitem__`."""
    if not isinstance(key, tuple):
        key = (key,)
    if not key:
        return rt
    first, rest = key[0], key[1:]
    if first is Ellipsis:
        raise NotImplementedError("RaggedTensor indexing with ... is not supported.")
    if isinstance(first, (int, np.integer)) or (
        isinstance(first, Tensor) and first._value.ndim == 0
    ):
        row = ragged_row(rt, int(first))
        return row[rest] if rest else row
    if not isinstance(first, slice):
        raise TypeError(f"RaggedTensor indices must be ints or slices, got {type(first).__name__}.")
    start, stop, step = first.indices(rt.nrows_int())
    if step != 1:
        raise NotImplementedError("RaggedTensor row slices with a step are not supported.")
    rows = _row_range(rt, start, max(stop, start))
    if not rest:
        return rows
    inner, rest2 = rest[0], rest[1:]
    if not isinstance(inner, slice):
        raise ValueError("Cannot index into an inner ragged dimension.")
    sliced = _slice_rows(rows, inner)
    if rest2:
        if isinstance(sliced.values, RaggedTensor):
            return sliced.with_values(getitem(sliced.values, (slice(None), *rest2)))
        from ..ops.indexing import getitem as dense_getitem

        return sliced.with_values(dense_getitem(sliced.values, (slice(None), *rest2)))
    return sliced


def _slice_rows(rt: RaggedTensor, key: slice) -> RaggedTensor:
    """``rt[:, key]``: the same slice of every row."""
    s = np.asarray(rt.row_splits._value)
    take, lengths = [], []
    for i in range(len(s) - 1):
        idx = np.arange(s[i], s[i + 1])[key]
        take.append(idx)
        lengths.append(len(idx))
    order = np.concatenate(take).astype(np.int64) if take else np.zeros(0, np.int64)
    values = rt.values
    if isinstance(values, RaggedTensor):
        new_values = gather_rows(values, order)
    else:
        from ..ops.indexing import gather

        new_values = gather(values, order)
    return RaggedTensor.from_row_lengths(new_values, lengths, validate=False)


def gather_rows(rt: RaggedTensor, order: np.ndarray) -> RaggedTensor:
    """The rows ``order`` of ``rt``, in that order."""
    s = np.asarray(rt.row_splits._value)
    pieces = [np.arange(s[i], s[i + 1]) for i in order]
    inner = np.concatenate(pieces).astype(np.int64) if pieces else np.zeros(0, np.int64)
    lengths = [len(p) for p in pieces]
    values = rt.values
    if isinstance(values, RaggedTensor):
        new_values = gather_rows(values, inner)
    else:
        from ..ops.indexing import gather

        new_values = gather(values, inner)
    return RaggedTensor.from_row_lengths(new_values, lengths, validate=False)


def rowids(splits) -> np.ndarray:
    return row_ids_of_splits(np.asarray(splits))


# -- batching rows (Dataset.ragged_batch, batching ragged components) ---------------------------


def concat_rows(items: list, op: str = "concat") -> RaggedTensor:
    """The rows of RaggedTensors of one ragged_rank, one after another."""
    from ..ops.array_ops import concat as dense_concat

    values = [r.values for r in items]
    if isinstance(values[0], RaggedTensor):
        if not all(isinstance(v, RaggedTensor) for v in values):
            raise ValueError(f"{op}: RaggedTensors of different ragged ranks.")
        joined = concat_rows(values, op)
    else:
        joined = dense_concat(values, axis=0)
    splits, offset = [np.zeros(1, np.int64)], 0
    for r in items:
        s = np.asarray(r.row_splits._value)
        splits.append(s[1:] + offset)
        offset += int(s[-1])
    return RaggedTensor(joined, make(np.concatenate(splits), _device_of(joined)), internal=True)


def stack_rows(items: list, op: str = "ragged_batch") -> RaggedTensor:
    """One row per item: Tensors of rank >= 1 (their first dimension becomes ragged; the
    others must agree) or RaggedTensors (the result has one more ragged dimension)."""
    from ..ops.array_ops import concat as dense_concat

    if isinstance(items[0], RaggedTensor):
        if not all(isinstance(x, RaggedTensor) for x in items):
            raise TypeError(f"{op}: cannot batch RaggedTensors with Tensors.")
        values = concat_rows(items, op)
        lengths = [x.nrows_int() for x in items]
    else:
        inner = items[0]._value.shape[1:]
        for k, x in enumerate(items):
            if x._value.ndim == 0 or x._value.shape[1:] != inner:
                raise ValueError(
                    f"{op}: cannot batch tensors of shapes {tuple(items[0]._value.shape)} and "
                    f"{tuple(x._value.shape)} (element {k}) into a RaggedTensor: only the "
                    "first dimension may differ."
                )
        values = dense_concat(list(items), axis=0)
        lengths = [x._value.shape[0] for x in items]
    return RaggedTensor.from_row_lengths(values, lengths, validate=False)


def _device_of(values):
    return values._row_splits._device if isinstance(values, RaggedTensor) else values._device


def tile(rt: RaggedTensor, multiples) -> RaggedTensor:
    """`ek.tile` of a RaggedTensor of ragged_rank 1 and rank 2: the rows repeated
    ``multiples[0]`` times, each row's values ``multiples[1]`` times (follows TensorFlow's
    ragged tile)."""
    from ..ops.indexing import gather

    if rt.ragged_rank != 1 or rt.ndim != 2:
        raise NotImplementedError("tile: RaggedTensors of rank 2 (ragged_rank 1) only.")
    if len(multiples) != 2 or min(multiples) < 0:
        raise InvalidArgumentError(
            None, "tile", f"tile: multiples must be 2 non-negative ints, got {list(multiples)}."
        )
    s = np.asarray(rt.row_splits._value)
    rows = [np.tile(np.arange(s[i], s[i + 1]), multiples[1]) for i in range(len(s) - 1)]
    rows = rows * multiples[0]
    order = np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, np.int64)
    return RaggedTensor.from_row_lengths(
        gather(rt.values, order), [len(r) for r in rows], validate=False
    )


# -- array ops on RaggedTensors: reverse, stack, gather -----------------------------------------


def _axis(axis, rank: int, op: str) -> int:
    a = int(axis)
    if not -rank <= a < rank:
        raise InvalidArgumentError(
            None, op, f"{op}: axis {axis} is out of range for a RaggedTensor of rank {rank}."
        )
    return a + rank if a < 0 else a


def reverse(rt: RaggedTensor, axis) -> RaggedTensor:
    """`ek.reverse` of a RaggedTensor (follows TensorFlow's ragged reverse): axis 0 reverses
    the order of the rows, a ragged axis each row's values, a uniform inner axis the flat
    values along it. Differentiable with respect to the flat values."""
    from ..ops.array_ops import reverse as dense_reverse

    op = "reverse"
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(np.asarray(axis).reshape(-1))
    axes = [_axis(a, rt.ndim, op) for a in axes]
    if len(set(axes)) != len(axes):
        raise InvalidArgumentError(None, op, f"{op}: axis {axes} names an axis twice.")
    result = rt
    for a in axes:
        result = _reverse_axis(result, a, dense_reverse)
    return result


def _reverse_axis(rt, a: int, dense_reverse):
    if not isinstance(rt, RaggedTensor):
        return dense_reverse(rt, [a])
    if a == 0:
        return gather_rows(rt, np.arange(rt.nrows_int() - 1, -1, -1, dtype=np.int64))
    if a == 1:  # each row's items, in reverse
        s = np.asarray(rt.row_splits._value)
        order = np.concatenate(
            [np.arange(s[i + 1] - 1, s[i] - 1, -1) for i in range(len(s) - 1)] or [[]]
        ).astype(np.int64)
        values = rt.values
        if isinstance(values, RaggedTensor):
            new_values = gather_rows(values, order)
        else:
            from ..ops.indexing import gather

            new_values = gather(values, order)
        return RaggedTensor(new_values, rt.row_splits, internal=True)
    return rt.with_values(_reverse_axis(rt.values, a - 1, dense_reverse))


def _as_ragged(x, op: str, ragged_rank: int = 1) -> RaggedTensor:
    if isinstance(x, RaggedTensor):
        return x
    t = convert_values(x, op)
    if t._value.ndim < 2:
        raise InvalidArgumentError(
            None, op, f"{op}: dense values need rank >= 2 to join RaggedTensors, got {t!r:.80}."
        )
    return RaggedTensor.from_tensor(t)


def stack(values, axis=0) -> RaggedTensor:
    """`ek.stack` with RaggedTensors among ``values`` (follows TensorFlow's ragged stack): axis
    0 makes each value one row of the result, axis 1 makes row ``i`` of the result the list
    of the values' rows ``i``, a deeper axis stacks inside rows that must have the same
    lengths. Dense values (rank >= 2) are converted; differentiable."""
    op = "stack"
    rts = [_as_ragged(v, op) for v in values]
    if not rts:
        raise ValueError(f"{op}: values must be a non-empty list.")
    rank = rts[0].ndim
    if any(r.ndim != rank for r in rts):
        raise ValueError(f"{op}: all values must have the same rank, got {[r.ndim for r in rts]}.")
    a = int(axis) + rank + 1 if int(axis) < 0 else int(axis)
    if not 0 <= a <= rank:
        raise ValueError(f"{op}: axis {axis} is out of range for values of rank {rank}.")
    dtypes_ = {r.dtype for r in rts}
    if len(dtypes_) != 1:
        raise TypeError(
            f"{op}: all values must have the same dtype, got {sorted(map(str, dtypes_))}."
        )
    if a == 0:
        return stack_rows(rts, op)
    if a > 1:  # inside every row: the values stacked on axis - 1, under the shared row splits
        splits = [np.asarray(r.row_splits._value) for r in rts]
        if any(not np.array_equal(splits[0], s) for s in splits[1:]):
            raise InvalidArgumentError(
                None, op, f"{op}: inputs must have identical ragged splits to stack on axis {a}."
            )
        values = [r.values for r in rts]
        if isinstance(values[0], RaggedTensor):
            inner = stack(values, a - 1)
        else:
            from ..ops.array_ops import stack as dense_stack

            inner = dense_stack(values, axis=a - 1)
        return RaggedTensor.from_row_splits(inner, rts[0].row_splits, validate=False)
    n = rts[0].nrows_int()
    if any(r.nrows_int() != n for r in rts):
        raise InvalidArgumentError(
            None, op, f"{op}: RaggedTensors stacked on axis 1 must have the same number of rows."
        )
    joined = concat_rows(rts, op)  # rows of rts[0], then of rts[1], ...
    k = len(rts)
    order = (np.arange(k)[None, :] * n + np.arange(n)[:, None]).reshape(-1).astype(np.int64)
    inner = gather_rows(joined, order)
    return RaggedTensor.from_row_lengths(inner, np.full(n, k, np.int64), validate=False)


def gather(params, indices, axis=None, batch_dims=0):
    """`ek.gather` with a RaggedTensor ``params`` or ``indices`` (follows TensorFlow's ragged
    gather, axis 0): ragged indices keep their row partition; the rows of a ragged
    ``params`` are gathered. Differentiable with respect to the (flat) values of params."""
    from ..ops.indexing import gather as dense_gather

    op = "gather"
    rank = params.ndim if isinstance(params, RaggedTensor) else None
    in_rows = rank is not None and (axis if axis is not None else batch_dims) in (1, 1 - rank)
    if in_rows and batch_dims in (0, 1, -rank + 1):
        return gather_in_rows(params, indices, 1 if batch_dims else 0, gather)
    if axis not in (None, 0) or batch_dims != 0:
        raise NotImplementedError(
            f"{op}: with RaggedTensors, only axis=0 and batch_dims=0 are supported, got "
            f"axis={axis}, batch_dims={batch_dims}."
        )
    if isinstance(indices, RaggedTensor):
        if indices.flat_values._value.dtype.kind not in "iu":
            raise TypeError(f"{op}: indices must be an integer tensor, got {indices.dtype.name}.")
        return indices.with_flat_values(gather(params, indices.flat_values))
    if not isinstance(params, RaggedTensor):
        return dense_gather(params, indices)
    idx = np.asarray(indices.numpy() if isinstance(indices, Tensor) else indices)
    if idx.dtype.kind not in "iu" and idx.size:
        raise TypeError(f"{op}: indices must be an integer tensor, got {idx.dtype}.")
    n = params.nrows_int()
    if idx.size and (idx.min() < 0 or idx.max() >= n):  # TF's RaggedGather: no negatives
        raise InvalidArgumentError(
            None, op, f"{op}: indices {idx.tolist()} out of range [0, {n}) (the rows)."
        )
    flat = idx.astype(np.int64).reshape(-1)
    result = gather_rows(params, flat)
    if idx.ndim == 0:
        return ragged_row(params, int(flat[0]))
    for i in range(idx.ndim - 1, 0, -1):  # dense indices of rank > 1: uniform outer rows
        rows = np.full(int(np.prod(idx.shape[:i], dtype=np.int64)), idx.shape[i], np.int64)
        result = RaggedTensor.from_row_lengths(result, rows, validate=False)
    return result


# More ops of TensorFlow's ragged dispatch list (importable from here, as the ops' modules do).
from .ragged_more import (  # noqa: E402, F401
    add_n,
    boolean_mask,
    expand_dims,
    ragged_stack,
    unstack,
    where,
)
