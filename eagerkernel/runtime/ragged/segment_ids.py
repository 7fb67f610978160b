"""Converting between a row partition's two encodings (follow `tf.ragged.row_splits_to_segment_ids`
and `tf.ragged.segment_ids_to_row_splits`): row splits ``[0, 3, 3, 5]`` (where each row starts,
and the end) and segment ids ``[0, 0, 0, 2, 2]`` (each value's row). Both are built of ops, so
tapes and graph functions see them.

>>> ek.ragged.row_splits_to_segment_ids([0, 3, 3, 5]).numpy()
array([0, 0, 0, 2, 2])
>>> ek.ragged.segment_ids_to_row_splits([0, 0, 0, 2, 2]).numpy()
array([0, 3, 3, 5])
"""

from __future__ import annotations

from ..core import dtypes
from ..core.tensor import Tensor, convert_to_tensor

__all__ = ["row_splits_to_segment_ids", "segment_ids_to_row_splits"]


def _vector(value, arg: str, op: str, dtype) -> Tensor:
    t = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=dtype)
    if t.ndim != 1:
        raise ValueError(f"{op}: {arg} must have rank 1, got shape {tuple(t.shape)}.")
    if not t.dtype.is_integer:
        raise TypeError(f"{op}: {arg} must be integers, got {t.dtype.name}.")
    return t


def row_splits_to_segment_ids(splits, name=None, out_type=None) -> Tensor:
    """Each value's row: row ``i`` repeated ``splits[i + 1] - splits[i]`` times.

    Args:
        splits: a rank-1 int32 or int64 vector (a Python list becomes int64), starting at 0.
        out_type: the result's dtype (default ``splits``' dtype).

    Raises:
        ValueError: ``splits`` not of rank 1. TypeError: non-integer ``splits``.
    """
    from ..ops.array_extra import repeat  # the ops import ragged: imported at the call
    from ..ops.creation import range as range_op
    from ..ops.elementwise import cast

    op = "row_splits_to_segment_ids"
    s = _vector(splits, "splits", op, dtypes.int64)
    out = dtypes.as_dtype(out_type) if out_type is not None else s.dtype
    n = int(s.shape[0]) - 1
    return repeat(range_op(max(n, 0), dtype=out), cast(s[1:] - s[:-1], dtypes.int64), axis=0)


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None) -> Tensor:
    """The row splits of sorted ``segment_ids``: ``[0, cumsum(count of each id)]``.

    Args:
        segment_ids: a rank-1 int32 or int64 vector, sorted (a Python list becomes int64).
        num_segments: the number of rows (default: the largest id + 1); ids past it are
            dropped, as TensorFlow's bincount drops them.
        out_type: the result's dtype (default ``segment_ids``' dtype).

    Raises:
        ValueError: ``segment_ids`` not of rank 1. TypeError: non-integer ids.
    """
    from ..ops.array_ops import concat  # the ops import ragged: imported at the call
    from ..ops.creation import zeros
    from ..ops.reduction import cumsum
    from ..ops.segment_ops import bincount

    op = "segment_ids_to_row_splits"
    ids = _vector(segment_ids, "segment_ids", op, dtypes.int64)
    out = dtypes.as_dtype(out_type) if out_type is not None else ids.dtype
    n = None if num_segments is None else int(num_segments)
    lengths = bincount(ids, minlength=n, maxlength=n, dtype=out)
    return concat([zeros([1], dtype=out), cumsum(lengths)], 0)
