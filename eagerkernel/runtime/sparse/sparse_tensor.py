"""`SparseTensor`: a tensor stored as the indices and values of its non-default entries
(follows `tf.sparse.SparseTensor`).

``indices`` is int64 ``(N, rank)``, ``values`` has shape ``(N,)`` and ``dense_shape`` is int64
``(rank,)``. The values are kept as the Tensor given, so a tape that watches them (or the
Variable they were read from) differentiates `to_dense`, `sparse.add`, `sparse.reduce_sum`
and `sparse_dense_matmul` with respect to them.

>>> st = ek.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
>>> ek.sparse.to_dense(st).numpy()
array([[1, 0, 0, 0],
       [0, 0, 2, 0],
       [0, 0, 0, 0]], dtype=int32)
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.composite import CompositeSpec, CompositeTensor
from ..core.context import ACTIVE, composite_created
from ..core.tensor import Tensor, TensorShape, convert_to_tensor, make

__all__ = ["SparseTensor", "SparseTensorSpec"]


def _int64(x, op: str, arg: str, rank: int) -> Tensor:
    if isinstance(x, Tensor):
        v = np.asarray(x.numpy())
    else:
        v = np.asarray(x)
    if v.size == 0 and rank == 2 and v.ndim != 2:
        v = np.zeros((0, 0), np.int64)
    if v.dtype.kind not in "iu" and v.size:
        raise TypeError(f"{op}: {arg} must be integers, got dtype {v.dtype}.")
    v = v.astype(np.int64)
    if v.ndim != rank:
        raise ValueError(f"{op}: {arg} must have rank {rank}, got shape {v.shape}.")
    return make(v, _cpu())


def _cpu():
    from ..core.device import current_device

    return current_device()


class SparseTensor(CompositeTensor):
    """A sparse tensor: ``indices`` (int64, ``(N, rank)``), ``values`` (``(N,)``) and
    ``dense_shape`` (int64, ``(rank,)``) (follows `tf.sparse.SparseTensor`).

    Raises:
        ValueError: ``indices``, ``values`` and ``dense_shape`` of inconsistent shapes.
        TypeError: non-integer ``indices`` or ``dense_shape``.
    """

    __slots__ = ("_dense_shape", "_indices", "_values")

    def __init__(self, indices, values, dense_shape):
        op = "SparseTensor"
        if ACTIVE:  # a graph function being traced runs eagerly (`Recorder.on_composite`)
            composite_created(self)
        self._indices = _int64(indices, op, "indices", 2)
        v = values if isinstance(values, Tensor) else convert_to_tensor(values)
        if type(v) is not Tensor:  # a Variable: read it (the read is recorded)
            v = convert_to_tensor(v)
        self._values = v
        self._dense_shape = _int64(dense_shape, op, "dense_shape", 1)
        n, rank = self._indices._value.shape
        if v._value.ndim != 1 or v._value.shape[0] != n:
            raise ValueError(
                f"{op}: values must be a vector with one entry per row of indices ({n}), "
                f"got shape {tuple(v._value.shape)}."
            )
        if n and rank != self._dense_shape._value.shape[0]:
            raise ValueError(
                f"{op}: indices have {rank} columns but dense_shape has rank "
                f"{self._dense_shape._value.shape[0]}."
            )

    @classmethod
    def from_value(cls, value) -> SparseTensor:
        if isinstance(value, SparseTensor):
            return value
        raise TypeError(f"SparseTensor.from_value: expected a SparseTensor, got {value!r:.60}.")

    @property
    def indices(self) -> Tensor:
        """int64 ``(N, rank)``: the coordinates of the stored values."""
        return self._indices

    @property
    def values(self) -> Tensor:
        """The stored values, ``(N,)``."""
        return self._values

    @property
    def dense_shape(self) -> Tensor:
        """int64 ``(rank,)``: the shape of the dense tensor."""
        return self._dense_shape

    @property
    def shape(self) -> TensorShape:
        return TensorShape(int(d) for d in np.asarray(self._dense_shape._value))

    def get_shape(self) -> TensorShape:
        return self.shape

    @property
    def dtype(self) -> dtypes.DType:
        return self._values.dtype

    @property
    def ndim(self) -> int:
        return int(self._dense_shape._value.shape[0])

    def with_values(self, new_values) -> SparseTensor:
        """The same indices and shape with other values (follows `SparseTensor.with_values`)."""
        return SparseTensor(self._indices, new_values, self._dense_shape)

    def __str__(self) -> str:
        return (
            f"SparseTensor(indices={self._indices!s}, values={self._values!s}, "
            f"dense_shape={self._dense_shape!s})"
        )

    __repr__ = __str__

    def _ek_trace_key(self) -> tuple:
        """For `ek.function`: indices and dense shape by value; the values are the input."""

        def key(a):
            return np.asarray(a.get() if hasattr(a, "get") else a).tobytes()

        static = ("SparseTensor", key(self._indices._value), key(self._dense_shape._value))
        return static, [self._values]

    # -- Dataset rows -----------------------------------------------------------------------
    def _ek_row(self, i: int) -> SparseTensor:
        """Row ``i``: the entries whose first index is ``i``, one dimension less."""
        from ..ops.indexing import gather

        idx = np.asarray(self._indices._value)
        keep = np.nonzero(idx[:, 0] == i)[0].astype(np.int64)
        shape = np.asarray(self._dense_shape._value)[1:]
        return SparseTensor(idx[keep, 1:], gather(self._values, keep), shape)

    @classmethod
    def _ek_stack(cls, items: list, op: str) -> SparseTensor:
        """SparseTensors of one rank as the rows of one more (shape: the largest of each
        dimension), as `Dataset.batch` does."""
        from ..ops.array_ops import concat

        ranks = {int(s._dense_shape._value.shape[0]) for s in items}
        if len(ranks) != 1:
            raise ValueError(f"{op}: cannot batch SparseTensors of different ranks {ranks}.")
        idx = [
            np.concatenate(
                [np.full((len(s._indices._value), 1), k, np.int64), np.asarray(s._indices._value)],
                axis=1,
            )
            for k, s in enumerate(items)
        ]
        shape = np.max(np.stack([np.asarray(s._dense_shape._value) for s in items]), axis=0)
        values = concat([s._values for s in items], axis=0)
        return SparseTensor(np.concatenate(idx), values, np.concatenate([[len(items)], shape]))

    # -- ops: values-only elementwise ops and products with dense tensors --------------------
    def _ek_unary(self, op):
        return self.with_values(op(self._values))

    def _ek_binary(self, op, x, y):
        from .sparse_ops import cwise

        return cwise(op, x, y)

    def __mul__(self, other):
        from ..ops.elementwise import multiply

        return multiply(self, other)

    def __rmul__(self, other):
        from ..ops.elementwise import multiply

        return multiply(other, self)

    def __truediv__(self, other):
        from ..ops.elementwise import truediv

        return truediv(self, other)

    def __neg__(self):
        from ..ops.elementwise import negative

        return negative(self)

    def __abs__(self):
        from ..ops.elementwise import abs as abs_

        return abs_(self)

    __hash__ = None


class SparseTensorSpec(CompositeSpec):
    """The type of a SparseTensor (follows `tf.SparseTensorSpec`; equality and compatibility
    from `CompositeSpec`).

    >>> ek.sparse.SparseTensorSpec([None, 4], ek.int32)
    SparseTensorSpec(TensorShape([None, 4]), ek.int32)
    """

    __slots__ = ()

    def __init__(self, shape=None, dtype=dtypes.float32):
        from ..data.structure import as_shape

        self._shape = as_shape(shape, "SparseTensorSpec")
        self._dtype = dtypes.as_dtype(dtype)

    @classmethod
    def from_value(cls, value: SparseTensor) -> SparseTensorSpec:
        return cls(value.shape, value.dtype)

    @property
    def value_type(self) -> type:
        return SparseTensor

    def most_specific_compatible_type(self, other) -> SparseTensorSpec:
        if not isinstance(other, SparseTensorSpec) or other._dtype != self._dtype:
            raise TypeError(f"{self!r} and {other!r} have no common type.")
        return SparseTensorSpec(
            self._shape.most_specific_compatible_shape(other._shape), self._dtype
        )

    def __repr__(self) -> str:
        return f"SparseTensorSpec({self._shape!r}, {self._dtype!r})"
