"""`RaggedTensor`: tensors with rows of different lengths (follows `tf.RaggedTensor`).

A RaggedTensor is its ``values`` (a Tensor, or another RaggedTensor for more ragged dimensions)
and its ``row_splits`` (an int64 vector: row ``i`` is ``values[row_splits[i]:row_splits[i+1]]``).
Every op on a RaggedTensor runs ordinary ops on those components, so it goes through the
dispatcher and a `GradientTape` differentiates elementwise math, reductions, indexing and
`to_tensor` with respect to the flat values, as TensorFlow's does.

>>> digits = ek.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
>>> print(digits + 3)
<RaggedTensor [[6, 4, 7, 4], [], [8, 12, 5], [9], []]>
>>> digits.shape
TensorShape([5, None])
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.composite import CompositeSpec, CompositeTensor
from ..core.context import ACTIVE, composite_created
from ..core.dispatch import Primitive, defvjp
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, TensorShape, convert_to_tensor, make, to_tensor

__all__ = ["RaggedTensor", "RaggedTensorSpec", "convert_values"]

_INT64 = np.dtype(np.int64)


def convert_values(values, op: str):
    """``values`` as a RaggedTensor or a Tensor (Tensors kept as they are, so tapes see them)."""
    if isinstance(values, RaggedTensor):
        return values
    if isinstance(values, Tensor):
        return values if type(values) is Tensor else convert_to_tensor(values)
    return convert_to_tensor(values)


def _int64_vector(x, op: str, arg: str) -> Tensor:
    t = x if isinstance(x, Tensor) else to_tensor(np.asarray(x, dtype=np.int64), None, op)
    v = t._value
    if v.dtype.kind not in "iu":
        raise TypeError(f"{op}: {arg} must be an integer vector, got dtype {t.dtype.name}.")
    if v.ndim != 1:
        raise ValueError(f"{op}: {arg} must be a vector (rank 1), got shape {tuple(v.shape)}.")
    if v.dtype != _INT64:
        t = make(np.asarray(v).astype(np.int64), t._device)
    return t


def _nvals(values) -> int:
    return values.nrows_int() if isinstance(values, RaggedTensor) else values._value.shape[0]


def _invalid(op: str, why: str) -> InvalidArgumentError:
    return InvalidArgumentError(
        None, op, f"Arguments to {op} do not form a valid RaggedTensor: {why}"
    )


class RaggedTensor(CompositeTensor):
    """A tensor whose dimensions after the first may have rows of different lengths.

    Build one with `ek.ragged.constant` or the ``from_*`` factories; the constructor is
    internal. Shape: ``[nrows, None, ...]``: one None per ragged dimension, then the uniform
    inner dimensions of the flat values.

    Attributes:
        values: the concatenated rows (a Tensor, or a RaggedTensor for ``ragged_rank > 1``).
        row_splits: int64 vector of length ``nrows + 1``.
        flat_values: the innermost values Tensor. dtype: its dtype.
    """

    __slots__ = ("_row_splits", "_uniform_row_length", "_values")

    def __init__(self, values, row_splits, internal: bool = False, uniform_row_length=None):
        if not internal:
            raise ValueError(
                "RaggedTensor constructor is private; use a factory method such as "
                "ek.RaggedTensor.from_row_splits or ek.ragged.constant."
            )
        self._values = values
        self._row_splits = row_splits
        if ACTIVE:  # a graph function being traced runs eagerly (`Recorder.on_composite`)
            composite_created(self)
        # An int when every row has this length by construction (`from_uniform_row_length`):
        # the dimension is then uniform in `shape`, as TensorFlow's.
        self._uniform_row_length = uniform_row_length

    # -- factories --------------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True) -> RaggedTensor:
        """Rows ``values[row_splits[i]:row_splits[i + 1]]`` (follows
        `tf.RaggedTensor.from_row_splits`).

        Raises:
            InvalidArgumentError: ``row_splits`` empty, not starting at 0, decreasing, or not
                ending at ``len(values)`` (with ``validate``).

        >>> print(ek.RaggedTensor.from_row_splits([3, 1, 4, 1, 5, 9, 2], [0, 4, 4, 6, 7]))
        <RaggedTensor [[3, 1, 4, 1], [], [5, 9], [2]]>
        """
        op = "from_row_splits"
        values = convert_values(values, op)
        splits = _int64_vector(row_splits, op, "row_splits")
        if validate:
            s = np.asarray(splits._value)
            if s.size == 0:
                raise _invalid(op, "row_splits must not be empty.")
            if s[0] != 0:
                raise _invalid(op, f"row_splits[0] must be 0, got {s[0]}.")
            if np.any(np.diff(s) < 0):
                raise _invalid(op, f"row_splits must be non-decreasing, got {s.tolist()}.")
            if s[-1] != _nvals(values):
                raise _invalid(
                    op,
                    f"row_splits[-1] ({s[-1]}) must equal the number of values ({_nvals(values)}).",
                )
        return cls(values, splits, internal=True)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True) -> RaggedTensor:
        """Rows of the given lengths (follows `tf.RaggedTensor.from_row_lengths`).

        >>> print(ek.RaggedTensor.from_row_lengths([3, 1, 4, 1, 5, 9, 2], [4, 0, 2, 1]))
        <RaggedTensor [[3, 1, 4, 1], [], [5, 9], [2]]>
        """
        op = "from_row_lengths"
        lengths = np.asarray(_int64_vector(row_lengths, op, "row_lengths")._value)
        if validate and np.any(lengths < 0):
            raise _invalid(op, f"row_lengths must be non-negative, got {lengths.tolist()}.")
        splits = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        values = convert_values(values, op)
        if validate and splits[-1] != _nvals(values):
            raise _invalid(
                op,
                f"the row lengths add up to {splits[-1]}, but there are {_nvals(values)} values.",
            )
        return cls(values, make(splits, _device_of(values)), internal=True)

    @classmethod
    def from_value_rowids(
        cls, values, value_rowids, nrows=None, name=None, validate=True
    ) -> RaggedTensor:
        """Value ``i`` goes to row ``value_rowids[i]`` (sorted); ``nrows`` defaults to
        ``value_rowids[-1] + 1`` (follows `tf.RaggedTensor.from_value_rowids`).

        >>> print(ek.RaggedTensor.from_value_rowids(
        ...     values=[3, 1, 4, 1, 5, 9, 2], value_rowids=[0, 0, 0, 0, 2, 2, 3]))
        <RaggedTensor [[3, 1, 4, 1], [], [5, 9], [2]]>
        """
        op = "from_value_rowids"
        ids = np.asarray(_int64_vector(value_rowids, op, "value_rowids")._value)
        values = convert_values(values, op)
        n = (int(ids[-1]) + 1 if ids.size else 0) if nrows is None else int(nrows)
        if ids.size and ids[-1] >= n:  # checked even without validate, as TF
            raise ValueError(
                f"{op}: Expected nrows >= value_rowids[-1] + 1; got nrows={n}, "
                f"value_rowids[-1]={int(ids[-1])}"
            )
        if validate:
            if np.any(np.diff(ids) < 0) or (ids.size and ids[0] < 0):
                raise _invalid(op, "value_rowids must be sorted and non-negative.")
            if ids.size != _nvals(values):
                raise _invalid(
                    op, f"{ids.size} value_rowids for {_nvals(values)} values (must be equal)."
                )
        lengths = np.bincount(ids, minlength=n) if ids.size else np.zeros(n, np.int64)
        splits = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        return cls(values, make(splits, _device_of(values)), internal=True)

    @classmethod
    def from_uniform_row_length(
        cls, values, uniform_row_length, nrows=None, validate=True, name=None
    ) -> RaggedTensor:
        """Rows of ``uniform_row_length`` values each (follows
        `tf.RaggedTensor.from_uniform_row_length`): a partitioned dimension whose size is
        known, so ``shape`` shows it.

        Raises:
            InvalidArgumentError: the number of values is not ``nrows * uniform_row_length``.

        >>> rt = ek.RaggedTensor.from_uniform_row_length(
        ...     ek.RaggedTensor.from_row_splits([10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
        ...                                     [0, 3, 5, 9, 10]), uniform_row_length=2)
        >>> print(rt)
        <RaggedTensor [[[10, 11, 12], [13, 14]],
         [[15, 16, 17, 18], [19]]]>
        >>> rt.shape, rt.ragged_rank
        (TensorShape([2, 2, None]), 2)
        """
        op = "from_uniform_row_length"
        values = convert_values(values, op)
        n, length = _nvals(values), int(uniform_row_length)
        rows = (n // length if length else 0) if nrows is None else int(nrows)
        if validate and rows * length != n:
            raise _invalid(op, f"{n} values do not make {rows} rows of {length}.")
        rt = cls.from_row_lengths(values, np.full(rows, length, np.int64), validate=validate)
        rt._uniform_row_length = length
        return rt

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True) -> RaggedTensor:
        """Row ``i`` starts at ``row_starts[i]`` (follows `tf.RaggedTensor.from_row_starts`)."""
        values = convert_values(values, "from_row_starts")
        starts = np.asarray(_int64_vector(row_starts, "from_row_starts", "row_starts")._value)
        splits = np.concatenate([starts, [_nvals(values)]])
        return cls.from_row_splits(values, splits, validate=validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True) -> RaggedTensor:
        """Row ``i`` ends at ``row_limits[i]`` (follows `tf.RaggedTensor.from_row_limits`)."""
        limits = np.asarray(_int64_vector(row_limits, "from_row_limits", "row_limits")._value)
        return cls.from_row_splits(values, np.concatenate([[0], limits]), validate=validate)

    @classmethod
    def from_nested_row_splits(
        cls, flat_values, nested_row_splits, name=None, validate=True
    ) -> RaggedTensor:
        """Several ragged dimensions, outermost splits first (follows
        `tf.RaggedTensor.from_nested_row_splits`)."""
        if isinstance(nested_row_splits, Tensor):
            raise TypeError("from_nested_row_splits: nested_row_splits must be a list of vectors.")
        result = flat_values
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(
        cls, flat_values, nested_row_lengths, name=None, validate=True
    ) -> RaggedTensor:
        """Several ragged dimensions from row lengths, outermost first (follows
        `tf.RaggedTensor.from_nested_row_lengths`)."""
        result = flat_values
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def from_tensor(
        cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None, row_splits_dtype=None
    ) -> RaggedTensor:
        """A dense tensor's rows, cut at ``lengths`` or before trailing ``padding`` (follows
        `tf.RaggedTensor.from_tensor`; ``ragged_rank`` 1, or ``lengths`` nested: a list or
        tuple of row-length vectors, one per ragged dimension).

        >>> print(ek.RaggedTensor.from_tensor([[1, 3, -1, -1], [2, -1, -1, -1]], padding=-1))
        <RaggedTensor [[1, 3], [2]]>

        Raises:
            ValueError: both ``lengths`` and ``padding``, or a tensor of rank < 2.
            NotImplementedError: ``ragged_rank`` other than 1.
        """
        op = "from_tensor"
        if (
            isinstance(lengths, (list, tuple))
            and len(lengths)
            and not isinstance(lengths[0], (int, float, np.integer))
        ):  # nested row lengths, one vector per ragged dimension (TF's rule)
            from .ragged_dims import from_tensor_nested

            return from_tensor_nested(tensor, lengths, ragged_rank)
        if ragged_rank != 1:
            raise NotImplementedError(f"{op}: only ragged_rank=1 is supported, got {ragged_rank}.")
        if row_splits_dtype not in (None, dtypes.int64):
            raise NotImplementedError(f"{op}: row_splits are int64; got {row_splits_dtype!r}.")
        if lengths is not None and padding is not None:
            raise ValueError(f"{op}: specify lengths or padding, but not both.")
        t = convert_values(tensor, op)
        if isinstance(t, RaggedTensor) or t._value.ndim < 2:
            raise ValueError(f"{op}: tensor must be a dense Tensor of rank >= 2.")
        nrows, ncols = t._value.shape[:2]
        if lengths is not None:
            lens = np.minimum(np.asarray(_int64_vector(lengths, op, "lengths")._value), ncols)
        elif padding is not None:
            pad = np.asarray(convert_to_tensor(padding, dtype=t.dtype)._value)
            v = np.asarray(t._value)
            is_pad = (v == pad).reshape(nrows, ncols, -1).all(axis=2)
            # A row ends after its last value that is not padding.
            keep = ~is_pad
            lens = np.where(keep.any(axis=1), ncols - np.argmax(keep[:, ::-1], axis=1), 0)
        else:
            lens = np.full(nrows, ncols)
        lens = np.asarray(lens, dtype=np.int64)
        mask = np.arange(ncols)[None, :] < lens[:, None]
        from ..ops.indexing import boolean_mask

        values = boolean_mask(t, make(mask, t._device))
        return cls.from_row_lengths(values, lens, validate=False)

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=None) -> RaggedTensor:
        """A 2-D SparseTensor's rows (indices in row-major order) (follows
        `tf.RaggedTensor.from_sparse`)."""
        idx = np.asarray(st_input.indices._value)
        shape = np.asarray(st_input.dense_shape._value)
        if len(shape) != 2:
            raise ValueError(f"from_sparse: the SparseTensor must be 2-D, got shape {shape}.")
        return cls.from_value_rowids(st_input.values, idx[:, 0], nrows=int(shape[0]))

    # -- components -------------------------------------------------------------------------
    @property
    def values(self):
        """The concatenated rows: a Tensor, or a RaggedTensor if ``ragged_rank > 1``."""
        return self._values

    @property
    def row_splits(self) -> Tensor:
        """int64 vector, ``nrows + 1`` long."""
        return self._row_splits

    @property
    def flat_values(self) -> Tensor:
        """The innermost values Tensor."""
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v._values
        return v

    @property
    def nested_row_splits(self) -> tuple:
        """The row_splits of every ragged dimension, outermost first."""
        out = [self._row_splits]
        v = self._values
        while isinstance(v, RaggedTensor):
            out.append(v._row_splits)
            v = v._values
        return tuple(out)

    @property
    def uniform_row_length(self):
        """The length of every row as an int64 scalar if built uniform
        (`from_uniform_row_length`), else None (follows `RaggedTensor.uniform_row_length`)."""
        n = self._uniform_row_length
        return None if n is None else make(np.asarray(n, np.int64), self._row_splits._device)

    @property
    def ragged_rank(self) -> int:
        """The number of ragged dimensions."""
        return len(self.nested_row_splits)

    @property
    def dtype(self) -> dtypes.DType:
        return self.flat_values.dtype

    @property
    def row_splits_dtype(self) -> dtypes.DType:
        return dtypes.int64

    @property
    def shape(self) -> TensorShape:
        """``[nrows, None, ..., inner dims]``: None for each ragged dimension."""
        from ..data.structure import PartialShape

        dims = [self.nrows_int()]
        level = self
        while isinstance(level, RaggedTensor):
            dims.append(level._uniform_row_length)
            level = level._values
        return PartialShape((*dims, *level._value.shape[1:]))

    def get_shape(self) -> TensorShape:
        return self.shape

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def device(self) -> str:
        return self._row_splits.device

    def nrows_int(self) -> int:
        return self._row_splits._value.shape[0] - 1

    def nrows(self, out_type=None, name=None) -> Tensor:
        """The number of rows, an int64 scalar (follows `RaggedTensor.nrows`)."""
        dt = np.int64 if out_type is None else dtypes.numpy_dtype(out_type)
        return make(np.asarray(self.nrows_int(), dtype=dt), self._row_splits._device)

    def row_lengths(self, axis=1, name=None):
        """Length of each row at ``axis``, int64: a vector for axis 1, a RaggedTensor for
        deeper axes (follows `RaggedTensor.row_lengths`; see `ragged_dims.row_lengths`)."""
        if axis == 1:
            s = np.asarray(self._row_splits._value)
            return make(np.diff(s), self._row_splits._device)
        from .ragged_dims import row_lengths

        return row_lengths(self, axis)

    def nested_value_rowids(self, name=None) -> tuple:
        """The int64 row ids of each ragged dimension, outermost first (follows
        `RaggedTensor.nested_value_rowids`)."""
        from .ragged_dims import nested_value_rowids

        return nested_value_rowids(self)

    def merge_dims(self, outer_axis, inner_axis):
        """Dims ``outer_axis..inner_axis`` merged into one (follows `RaggedTensor.merge_dims`):
        the result's shape is ``shape[:outer] + [N] + shape[inner + 1:]``; a dense Tensor if all
        ragged dims merge into the rows.

        >>> ek.ragged.constant([[[1, 2], [3]], [[4, 5, 6]]]).merge_dims(1, 2)
        <RaggedTensor [[1, 2, 3], [4, 5, 6]]>

        Raises:
            ValueError: an axis out of ``[-rank, rank)``, or ``outer_axis > inner_axis``.
        """
        from .ragged_dims import merge_dims, positive_axis

        outer = positive_axis(outer_axis, self.ndim, "outer_axis")
        inner = positive_axis(inner_axis, self.ndim, "inner_axis")
        if not outer <= inner:
            raise ValueError(
                f"Expected outer_axis ({outer}) to be less than or equal to inner_axis ({inner})."
            )
        return merge_dims(self, outer, inner)

    def row_starts(self, name=None) -> Tensor:
        return make(np.asarray(self._row_splits._value)[:-1].copy(), self._row_splits._device)

    def row_limits(self, name=None) -> Tensor:
        return make(np.asarray(self._row_splits._value)[1:].copy(), self._row_splits._device)

    def value_rowids(self, name=None) -> Tensor:
        """The row of each value, int64 (follows `RaggedTensor.value_rowids`)."""
        splits = self._row_splits
        return make(row_ids_of_splits(np.asarray(splits._value)), splits._device)

    def bounding_shape(self, axis=None, name=None, out_type=None) -> Tensor:
        """The smallest dense shape that holds this tensor, int64 (follows
        `RaggedTensor.bounding_shape`)."""
        dims = [self.nrows_int()]
        level = self
        while isinstance(level, RaggedTensor):
            lengths = np.diff(np.asarray(level._row_splits._value))
            dims.append(int(lengths.max()) if lengths.size else 0)
            level = level._values
        dims.extend(level._value.shape[1:])
        out = np.asarray(dims, dtype=np.int64 if out_type is None else out_type)
        return make(out if axis is None else out[axis], self._row_splits._device)

    def with_values(self, new_values) -> RaggedTensor:
        """The same row partition with other ``values`` (follows `RaggedTensor.with_values`)."""
        values = convert_values(new_values, "with_values")
        return RaggedTensor(values, self._row_splits, True, self._uniform_row_length)

    def with_flat_values(self, new_values) -> RaggedTensor:
        """The same nested row partitions with other flat values."""
        if isinstance(self._values, RaggedTensor):
            values = self._values.with_flat_values(new_values)
        else:
            values = convert_values(new_values, "with_flat_values")
        return RaggedTensor(values, self._row_splits, True, self._uniform_row_length)

    # -- conversion -------------------------------------------------------------------------
    def to_tensor(self, default_value=None, name=None, shape=None) -> Tensor:
        """A dense Tensor, rows padded with ``default_value`` (zero/empty string by default) and
        cut or padded to ``shape`` (a list whose None entries keep the bounding size) (follows
        `RaggedTensor.to_tensor`). Differentiable with respect to the flat values.

        >>> ek.ragged.constant([[1, 2], [3]]).to_tensor(-1).numpy()
        array([[ 1,  2],
               [ 3, -1]], dtype=int32)
        """
        flat = self.flat_values
        bound = self.bounding_shape()._value.tolist()
        if shape is not None:
            shape = list(shape.as_list() if hasattr(shape, "as_list") else shape)
            if any(s is not None and int(s) < 0 for s in shape):  # as TF's TensorShape
                raise ValueError(f"to_tensor: shape dimensions must be >= 0, got {shape!r}.")
            if len(shape) != len(bound):
                raise InvalidArgumentError(
                    None,
                    "RaggedTensorToTensor",
                    f"to_tensor: shape must have rank "
                    f"{len(bound)} (the RaggedTensor's), got {shape!r}.",
                )
            bound = [b if s is None else int(s) for b, s in zip(bound, shape)]
        if default_value is None:
            default = np.zeros((), dtype=flat._value.dtype)
            if default.dtype.kind == "O":
                default = np.asarray(b"", dtype=object)
        else:
            default = np.asarray(convert_to_tensor(default_value, dtype=flat.dtype)._value)
        index = self._value_indices()
        return _to_dense(flat, index, tuple(bound), default)

    def _value_indices(self) -> np.ndarray:
        """For each flat value, its index in the ragged dimensions: ``(nvals, ragged_rank + 1)``."""
        splits = [np.asarray(s._value) for s in self.nested_row_splits]
        rows = row_ids_of_splits(splits[0])
        index = np.stack([rows, np.arange(splits[0][-1]) - splits[0][rows]], axis=1)
        for s in splits[1:]:
            parent = row_ids_of_splits(s)
            pos = np.arange(s[-1]) - s[parent]
            index = np.concatenate([index[parent], pos[:, None]], axis=1)
        return index.astype(np.int64)

    def to_list(self) -> list:
        """Nested Python lists of the values (follows `RaggedTensor.to_list`)."""
        values = self._values
        if isinstance(values, RaggedTensor):
            inner = values.to_list()
        else:
            inner = np.asarray(values.numpy()).tolist()
        s = np.asarray(self._row_splits._value).tolist()
        return [inner[s[i] : s[i + 1]] for i in range(len(s) - 1)]

    def numpy(self) -> np.ndarray:
        """Rows as NumPy arrays: an object array of rows when lengths differ, else one array
        (follows `RaggedTensor.numpy`)."""
        values = self._values
        v = values.numpy() if isinstance(values, RaggedTensor) else np.asarray(values.numpy())
        s = np.asarray(self._row_splits._value)
        rows = [v[s[i] : s[i + 1]] for i in range(len(s) - 1)]
        if not rows:
            return np.zeros((0, 0, *v.shape[1:]), dtype=v.dtype)
        if any(len(r) != len(rows[0]) for r in rows):
            out = np.empty(len(rows), dtype=object)
            for i, r in enumerate(rows):
                out[i] = r
            return out
        return np.array(rows)

    def to_sparse(self, name=None):
        """The same values as a `SparseTensor` (follows `RaggedTensor.to_sparse`)."""
        from ..sparse.sparse_tensor import SparseTensor

        return SparseTensor(self._value_indices(), self.flat_values, self.bounding_shape())

    # -- display ----------------------------------------------------------------------------
    def __repr__(self) -> str:
        with np.printoptions(formatter={"all": _formatter}):
            text = _formatter(self.numpy())
        return f"<RaggedTensor {text}>"

    __str__ = __repr__

    # -- indexing ---------------------------------------------------------------------------
    def __getitem__(self, key):
        """Rows and row slices (follows `RaggedTensor.__getitem__`): ``rt[i]``, ``rt[i, j]``,
        ``rt[a:b]``, ``rt[:, a:b]``; differentiable with respect to the values.

        Raises:
            ValueError: an integer index into a ragged dimension after a slice.
        """
        from .ragged_ops import getitem

        return getitem(self, key)

    def __iter__(self):
        for i in range(self.nrows_int()):
            yield self[i]

    def _ek_trace_key(self) -> tuple:
        """For `ek.function`: the row partition by value; the flat values are the input."""
        splits = tuple(_splits_key(s._value) for s in self.nested_row_splits)
        return ("RaggedTensor", splits), [self.flat_values]

    # -- operators: the public ops, which dispatch back to `_ek_unary` / `_ek_binary` --------
    def _ek_unary(self, op):
        return self.with_flat_values(op(self.flat_values))

    def _ek_binary(self, op, x, y):
        from .ragged_ops import binary

        return binary(op, x, y)

    @classmethod
    def _ek_stack(cls, items: list, op: str):
        from .ragged_ops import stack_rows

        return stack_rows(items, op)

    def _ek_reduce(self, op: str, axis, keepdims):
        from .ragged_ops import reduce

        return reduce(self, op, axis, keepdims)

    def __add__(self, other):
        return _ops().add(self, other)

    def __radd__(self, other):
        return _ops().add(other, self)

    def __sub__(self, other):
        return _ops().subtract(self, other)

    def __rsub__(self, other):
        return _ops().subtract(other, self)

    def __mul__(self, other):
        return _ops().multiply(self, other)

    def __rmul__(self, other):
        return _ops().multiply(other, self)

    def __truediv__(self, other):
        return _ops().truediv(self, other)

    def __rtruediv__(self, other):
        return _ops().truediv(other, self)

    def __floordiv__(self, other):
        return _ops().floordiv(self, other)

    def __mod__(self, other):
        return _ops().mod(self, other)

    def __pow__(self, other):
        return _ops().pow(self, other)

    def __neg__(self):
        return _ops().negative(self)

    def __abs__(self):
        return _ops().abs(self)

    def __lt__(self, other):
        return _ops().less(self, other)

    def __le__(self, other):
        return _ops().less_equal(self, other)

    def __gt__(self, other):
        return _ops().greater(self, other)

    def __ge__(self, other):
        return _ops().greater_equal(self, other)

    def __eq__(self, other):
        if other is None:
            return False
        return _ops().equal(self, other)

    def __ne__(self, other):
        if other is None:
            return True
        return _ops().not_equal(self, other)

    def __and__(self, other):
        return _ops().logical_and(self, other)

    def __or__(self, other):
        return _ops().logical_or(self, other)

    def __invert__(self):
        return _ops().logical_not(self)

    __hash__ = None


def _ops():
    from ..ops import elementwise

    return elementwise


def _device_of(values):
    return values._row_splits._device if isinstance(values, RaggedTensor) else values._device


def _splits_key(splits) -> bytes:
    return np.asarray(splits.get() if hasattr(splits, "get") else splits).tobytes()


def row_ids_of_splits(splits: np.ndarray) -> np.ndarray:
    """The row of each value (int64), from row splits: ``[0, 2, 3]`` gives ``[0, 0, 1]``."""
    return np.repeat(np.arange(len(splits) - 1, dtype=np.int64), np.diff(splits))


def _formatter(x) -> str:
    """TensorFlow's ragged repr: NumPy's text with commas, nested rows included."""
    if isinstance(x, np.ndarray):
        if x.size != 0:
            return np.array2string(x, separator=", ")
        return repr(x.tolist())
    return str(x)


# -- to_tensor: one op, differentiable with respect to the values ---------------------------


def _to_dense_fwd(xp, values, index, shape, default):
    out = xp.empty(shape, dtype=values.dtype)
    out[...] = default
    keep = np.all(index < np.asarray(shape[: index.shape[1]]), axis=1)
    if keep.all():
        out[tuple(index.T)] = values
    else:
        out[tuple(index[keep].T)] = values[keep]
    return out


def _to_dense_vjp(g, ans, values, index, shape, default):
    from ..ops.indexing import gather_nd, scatter_nd

    keep = np.all(index < np.asarray(shape[: index.shape[1]]), axis=1)
    if keep.all():
        return gather_nd(g, index)
    kept = gather_nd(g, index[keep])
    return scatter_nd(np.nonzero(keep)[0][:, None], kept, values._value.shape)


_to_dense_prim = Primitive("RaggedTensorToTensor", _to_dense_fwd)
defvjp(_to_dense_prim, _to_dense_vjp)


def _to_dense(flat: Tensor, index, shape, default) -> Tensor:
    from ..core.dispatch import dispatch

    return dispatch(_to_dense_prim, (flat,), {"index": index, "shape": shape, "default": default})


# -- the element type of ragged Dataset components -------------------------------------------


class RaggedTensorSpec(CompositeSpec):
    """The type of a RaggedTensor (follows `tf.RaggedTensorSpec`; equality and compatibility
    from `CompositeSpec`, with the ragged rank as its field).

    >>> ek.RaggedTensorSpec([None, None], ek.int32)
    RaggedTensorSpec(TensorShape([None, None]), ek.int32, 1, ek.int64)
    """

    __slots__ = ("_ragged_rank",)

    def __init__(
        self,
        shape=None,
        dtype=dtypes.float32,
        ragged_rank=None,
        row_splits_dtype=None,
        flat_values_spec=None,
    ):
        from ..data.structure import as_shape

        if flat_values_spec is not None:
            raise NotImplementedError("RaggedTensorSpec: flat_values_spec is not supported.")
        if row_splits_dtype not in (None, dtypes.int64):
            raise NotImplementedError("RaggedTensorSpec: row_splits are int64 only.")
        self._shape = as_shape(shape, "RaggedTensorSpec")
        self._dtype = dtypes.as_dtype(dtype)
        rank = self._shape.rank
        if ragged_rank is None:
            ragged_rank = 1 if rank is None else rank - 1
        self._ragged_rank = int(ragged_rank)

    @classmethod
    def from_value(cls, value: RaggedTensor) -> RaggedTensorSpec:
        return cls(value.shape, value.dtype, value.ragged_rank)

    @property
    def ragged_rank(self) -> int:
        return self._ragged_rank

    @property
    def row_splits_dtype(self) -> dtypes.DType:
        """The dtype of the row partitions: int64 (eagerkernel's only one)."""
        return dtypes.int64

    @property
    def value_type(self) -> type:
        return RaggedTensor

    def _fields(self) -> tuple:
        return (self._ragged_rank,)

    def most_specific_compatible_type(self, other) -> RaggedTensorSpec:
        if not self.is_compatible_with(other) and not (
            isinstance(other, RaggedTensorSpec) and other._dtype == self._dtype
        ):
            raise TypeError(f"{self!r} and {other!r} have no common type.")
        shape = self._shape.most_specific_compatible_shape(other._shape)
        return RaggedTensorSpec(shape, self._dtype, self._ragged_rank)

    def __repr__(self) -> str:
        return f"RaggedTensorSpec({self._shape!r}, {self._dtype!r}, {self._ragged_rank}, ek.int64)"
