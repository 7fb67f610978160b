"""`DynamicRaggedShape` and `RowPartition`: the shape of a ragged (or dense) tensor (follow
`tf.experimental.DynamicRaggedShape` and `tf.experimental.RowPartition`).

A shape is a list of row partitions (one per ragged or partitioned axis, outermost first)
and the ``inner_shape`` of the flat values. `ek.shape` of a RaggedTensor returns one;
`ek.reshape`, `ek.zeros`, `ek.ones` and `ek.fill` accept one and build a RaggedTensor.

>>> rt_shape = ek.shape(ek.ragged.constant([[1], [2, 3, 4], [], [5, 6]]))
>>> print(rt_shape)
<DynamicRaggedShape lengths=[4, (1, 3, 0, 2)] num_row_partitions=1>
>>> int(rt_shape[0])
4
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, make

__all__ = ["DynamicRaggedShape", "RowPartition"]


def _ints(x, op: str, arg: str) -> np.ndarray:
    v = np.asarray(x.numpy() if isinstance(x, Tensor) else x)
    if v.dtype.kind not in "iu" and not (v.size == 0 and v.dtype.kind == "f"):
        raise TypeError(f"{op}: {arg} must be integers, got {v.dtype} values: {v.tolist()!r}.")
    return v.astype(np.int64)


def _index_dtype(dtype) -> np.dtype:
    dt = np.dtype(np.int64) if dtype is None else dtypes.numpy_dtype(dtype)
    if dt not in (np.int32, np.int64):
        raise ValueError(f"DynamicRaggedShape: dtype must be int32 or int64, got {dtype!r}.")
    return np.dtype(dt)


def _vector(values, dtype: np.dtype) -> Tensor:
    from ..core.device import current_device

    return make(np.asarray(values, dtype=dtype), current_device())


class RowPartition:
    """How a flat sequence of ``nvals`` values is split into ``nrows`` rows (follows
    `tf.experimental.RowPartition`): the row splits, int64 unless ``dtype`` says int32.

    >>> p = ek.experimental.RowPartition.from_row_lengths([5, 3, 2])
    >>> p.row_splits().numpy()
    array([ 0,  5,  8, 10])
    >>> int(p.nvals())
    10
    """

    __slots__ = ("_splits", "_uniform")

    def __init__(self, row_splits: np.ndarray, uniform_row_length=None, internal=False):
        if not internal:
            raise ValueError(
                "RowPartition constructor is private; use a factory method such as "
                "ek.experimental.RowPartition.from_row_lengths."
            )
        self._splits = row_splits
        self._uniform = uniform_row_length

    @classmethod
    def from_row_splits(cls, row_splits, validate=True, dtype=None, dtype_hint=None):
        """Rows ``[row_splits[i], row_splits[i + 1])``.

        Raises:
            InvalidArgumentError: empty, not starting at 0 or decreasing (with ``validate``).
        """
        s = _ints(row_splits, "RowPartition.from_row_splits", "row_splits")
        if validate and (s.ndim != 1 or s.size == 0 or s[0] != 0 or np.any(np.diff(s) < 0)):
            raise InvalidArgumentError(
                None,
                "RowPartition",
                "RowPartition.from_row_splits: row_splits must be a non-empty, non-decreasing "
                f"vector starting at 0, got {s.tolist()}.",
            )
        return cls(s.astype(_index_dtype(dtype or dtype_hint)), internal=True)

    @classmethod
    def from_row_lengths(cls, row_lengths, validate=True, dtype=None, dtype_hint=None):
        """Rows of the given lengths.

        Raises:
            InvalidArgumentError: a negative length (with ``validate``).
        """
        n = _ints(row_lengths, "RowPartition.from_row_lengths", "row_lengths")
        if validate and (n.ndim != 1 or np.any(n < 0)):
            raise InvalidArgumentError(
                None,
                "RowPartition",
                "RowPartition.from_row_lengths: row_lengths must be a vector of non-negative "
                f"ints, got {n.tolist()}.",
            )
        splits = np.concatenate([[0], np.cumsum(n)]).astype(_index_dtype(dtype or dtype_hint))
        return cls(splits, internal=True)

    @classmethod
    def from_uniform_row_length(
        cls, uniform_row_length, nvals, nrows=None, validate=True, dtype=None, dtype_hint=None
    ):
        """``nrows`` rows of ``uniform_row_length`` values each (``nvals`` values in all)."""
        length, nvals = int(uniform_row_length), int(nvals)
        rows = (nvals // length if length else 0) if nrows is None else int(nrows)
        if validate and rows * length != nvals:
            raise InvalidArgumentError(
                None,
                "RowPartition",
                f"RowPartition.from_uniform_row_length: {nvals} values do not make {rows} rows "
                f"of {length}.",
            )
        splits = (np.arange(rows + 1) * length).astype(_index_dtype(dtype or dtype_hint))
        return cls(splits, uniform_row_length=length, internal=True)

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.as_dtype(self._splits.dtype)

    def row_splits(self) -> Tensor:
        return _vector(self._splits, self._splits.dtype)

    def row_lengths(self) -> Tensor:
        return _vector(np.diff(self._splits), self._splits.dtype)

    def nrows(self) -> Tensor:
        return _vector(len(self._splits) - 1, self._splits.dtype)

    def nvals(self) -> Tensor:
        return _vector(self._splits[-1], self._splits.dtype)

    def uniform_row_length(self):
        """The rows' common length (a scalar Tensor) if built uniform, else None."""
        return None if self._uniform is None else _vector(self._uniform, self._splits.dtype)

    def is_uniform(self) -> bool:
        return self._uniform is not None

    def with_dtype(self, dtype) -> RowPartition:
        return RowPartition(self._splits.astype(_index_dtype(dtype)), self._uniform, True)

    def _lengths(self):
        """The static lengths of the partitioned axis: an int if uniform, else a tuple."""
        if self._uniform is not None:
            return int(self._uniform)
        return tuple(int(n) for n in np.diff(self._splits))

    def __repr__(self) -> str:
        return f"tf.RowPartition(row_splits={self._splits.tolist()})"


class DynamicRaggedShape:
    """The shape of a RaggedTensor or Tensor (follows `tf.experimental.DynamicRaggedShape`).

    Args:
        row_partitions: `RowPartition`s, outermost first; each one's ``nvals`` is the next
            one's ``nrows`` (the last one's: ``inner_shape[0]``).
        inner_shape: the shape of the flat values (ints, or a 1-D int Tensor).
        dtype: int32 or int64 (default: the partitions' dtype, else int64).
        validate: check that the partitions and ``inner_shape`` fit together (they are
            always checked: a mismatch raises).
        static_inner_shape: not supported (raises NotImplementedError when given).

    Raises:
        ValueError: an empty ``inner_shape`` with row partitions, or partitions that do not
            fit (a partition's number of values differs from the next one's rows).

    >>> ek.experimental.DynamicRaggedShape(
    ...     row_partitions=[ek.experimental.RowPartition.from_row_lengths([5, 3, 2])],
    ...     inner_shape=[10, 8])
    <DynamicRaggedShape lengths=[3, (5, 3, 2), 8] num_row_partitions=1>
    """

    __slots__ = ("_dtype", "_inner", "_partitions")

    def __init__(
        self, row_partitions, inner_shape, dtype=None, validate=False, static_inner_shape=None
    ):
        if static_inner_shape is not None:
            raise NotImplementedError(
                "DynamicRaggedShape: static_inner_shape is not supported (the inner shape "
                "is always known eagerly)."
            )
        parts = list(row_partitions)
        for p in parts:
            if not isinstance(p, RowPartition):
                raise TypeError(
                    f"DynamicRaggedShape: row_partitions must be RowPartitions, got {p!r}."
                )
        if dtype is None:
            dtype = parts[0].dtype if parts else dtypes.int64
        dt = _index_dtype(dtype)
        inner = _ints(inner_shape, "DynamicRaggedShape", "inner_shape").reshape(-1)
        if parts and inner.size == 0:
            raise ValueError("DynamicRaggedShape: row_partitions need a non-empty inner_shape.")
        for k, p in enumerate(parts):
            nvals = int(p._splits[-1])
            nxt = len(parts[k + 1]._splits) - 1 if k + 1 < len(parts) else int(inner[0])
            if nvals != nxt:
                raise ValueError(
                    f"DynamicRaggedShape: row_partitions[{k}] has {nvals} values, but the next "
                    f"{'partition' if k + 1 < len(parts) else 'inner_shape[0]'} has {nxt}."
                )
        self._partitions = tuple(p.with_dtype(dt) for p in parts)
        self._inner = inner.astype(dt)
        self._dtype = dtypes.as_dtype(dt)

    # -- factories -------------------------------------------------------------------------
    @classmethod
    def from_lengths(cls, lengths, num_row_partitions=None, dtype=dtypes.int64):
        """The shape with the given lengths: an int per uniform axis, a tuple of row lengths
        per ragged one (the minimal number of row partitions unless given).

        Raises:
            ValueError: a ragged axis first, or row lengths that do not add up to the number
                of rows of the next axis.

        >>> ek.experimental.DynamicRaggedShape.from_lengths([4, (2, 1, 0, 8), 12])
        <DynamicRaggedShape lengths=[4, (2, 1, 0, 8), 12] num_row_partitions=1>
        """
        lengths = list(lengths)
        if not lengths:
            return cls([], [], dtype)
        if not isinstance(lengths[0], (int, np.integer)):
            raise ValueError(
                f"DynamicRaggedShape.from_lengths: the first length must be an int, got "
                f"{lengths[0]!r}."
            )
        ragged = [k for k, n in enumerate(lengths) if not isinstance(n, (int, np.integer))]
        n_parts = ragged[-1] if ragged else 0
        if num_row_partitions is not None:
            if num_row_partitions < n_parts or num_row_partitions >= max(len(lengths), 1):
                raise ValueError(
                    f"DynamicRaggedShape.from_lengths: num_row_partitions={num_row_partitions} "
                    f"cannot describe lengths {lengths!r}."
                )
            n_parts = int(num_row_partitions)
        parts, nrows = [], int(lengths[0])
        for axis in range(1, n_parts + 1):
            n = lengths[axis]
            if isinstance(n, (int, np.integer)):
                p = RowPartition.from_uniform_row_length(int(n), nrows * int(n), nrows=nrows)
            else:
                n = [int(v) for v in n]
                if len(n) != nrows:
                    raise ValueError(
                        f"DynamicRaggedShape.from_lengths: axis {axis} has {len(n)} row "
                        f"lengths for {nrows} rows."
                    )
                p = RowPartition.from_row_lengths(n)
            parts.append(p)
            nrows = int(p._splits[-1])
        inner = [nrows, *(int(n) for n in lengths[n_parts + 1 :])]
        return cls(parts, inner, dtype)

    @classmethod
    def from_tensor(cls, t, dtype=None) -> DynamicRaggedShape:
        """The shape of a Tensor or RaggedTensor."""
        from .ragged_tensor import RaggedTensor

        if isinstance(t, RaggedTensor):
            parts, level = [], t
            while isinstance(level, RaggedTensor):
                splits = np.asarray(level.row_splits._value)
                uniform = level._uniform_row_length
                parts.append(RowPartition(splits.astype(np.int64), uniform, internal=True))
                level = level.values
            return cls(parts, list(level._value.shape), dtype)
        if not isinstance(t, Tensor):
            from ..core.tensor import convert_to_tensor

            t = convert_to_tensor(t)
        return cls([], list(t._value.shape), dtype)

    # -- properties ------------------------------------------------------------------------
    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def row_partitions(self) -> tuple:
        return self._partitions

    @property
    def num_row_partitions(self) -> int:
        return len(self._partitions)

    @property
    def inner_shape(self) -> Tensor:
        return _vector(self._inner, self._inner.dtype)

    @property
    def rank(self) -> int:
        return len(self._partitions) + len(self._inner)

    def static_lengths(self, ragged_lengths=True) -> list:
        """Each axis' length: an int if uniform, the tuple of row lengths of a ragged axis
        (None instead with ``ragged_lengths=False``)."""
        if not self._partitions:
            return [int(n) for n in self._inner]
        out = [len(self._partitions[0]._splits) - 1]
        for p in self._partitions:
            n = p._lengths()
            out.append(n if isinstance(n, int) or ragged_lengths else None)
        return out + [int(n) for n in self._inner[1:]]

    def is_uniform(self, axis) -> bool:
        """Whether every row has the same length along ``axis``."""
        a = self._axis(axis)
        if a == 0 or a > len(self._partitions):
            return True
        return self._partitions[a - 1].is_uniform()

    def _axis(self, axis) -> int:
        a = int(axis)
        if a < 0:
            a += self.rank
        if not 0 <= a < self.rank:
            raise IndexError(f"DynamicRaggedShape: index {axis} out of range for rank {self.rank}.")
        return a

    def __len__(self) -> int:
        return self.rank

    def __getitem__(self, index):
        """An axis' length (a scalar Tensor; ValueError for a ragged axis), or for a slice
        starting at 0 the shape of the leading axes.

        Raises:
            ValueError: a ragged axis ("Index 1 is not uniform").
        """
        if isinstance(index, slice):
            start, stop, step = index.indices(self.rank)
            if step != 1 or start != 0:
                raise ValueError(
                    "DynamicRaggedShape: only slices [:k] (from the first axis) are supported, "
                    f"got {index!r}."
                )
            if stop <= len(self._partitions):
                lengths = self.static_lengths()[:stop]
                if any(not isinstance(n, int) for n in lengths[1:]):
                    return DynamicRaggedShape.from_lengths(lengths, dtype=self._dtype)
                return DynamicRaggedShape([], lengths, self._dtype)
            keep = stop - len(self._partitions)
            return DynamicRaggedShape(self._partitions, self._inner[:keep], self._dtype)
        a = self._axis(index)
        if not self.is_uniform(a):
            raise ValueError(f"Index {index} is not uniform")
        return _vector(self.static_lengths()[a], self._inner.dtype)

    def with_dtype(self, dtype) -> DynamicRaggedShape:
        return DynamicRaggedShape(self._partitions, self._inner, dtype)

    def _values(self, flat: Tensor):
        """``flat`` (shape ``inner_shape``) with this shape's row partitions."""
        from .ragged_tensor import RaggedTensor

        result = flat
        for p in reversed(self._partitions):
            splits = make(p._splits.astype(np.int64), flat._device)
            result = RaggedTensor(result, splits, internal=True)
        return result

    def _num_elements(self) -> int:
        return int(np.prod(self._inner))

    def __eq__(self, other) -> bool:
        if not isinstance(other, DynamicRaggedShape):
            return NotImplemented
        return self.static_lengths() == other.static_lengths()

    __hash__ = None

    def __repr__(self) -> str:
        return (
            f"<DynamicRaggedShape lengths={self.static_lengths()} "
            f"num_row_partitions={self.num_row_partitions}>"
        )


def fill_shape(shape: DynamicRaggedShape, value, op: str):
    """A RaggedTensor of ``shape`` filled with the scalar Tensor ``value``."""
    from ..ops.creation import fill

    return shape._values(fill([int(n) for n in shape._inner], value))


def reshape_to(tensor, shape: DynamicRaggedShape):
    """``tensor``'s values in row-major order, with ``shape`` (`ek.reshape` to a ragged shape).

    Raises:
        InvalidArgumentError: the numbers of values differ.
    """
    from ..ops.array_ops import reshape
    from .ragged_tensor import RaggedTensor

    flat = tensor.flat_values if isinstance(tensor, RaggedTensor) else tensor
    if isinstance(tensor, RaggedTensor) and tensor.flat_values._value.ndim > 1:
        flat = reshape(flat, [-1])
    n = int(np.prod(flat._value.shape))
    if n != shape._num_elements():
        raise InvalidArgumentError(
            None,
            "reshape",
            f"reshape: cannot reshape a tensor with {n} values into {shape!r} "
            f"({shape._num_elements()} values).",
        )
    return shape._values(reshape(flat, [int(d) for d in shape._inner]))
