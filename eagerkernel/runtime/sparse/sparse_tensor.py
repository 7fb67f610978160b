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
from ..core.composite import CompositeTensor
from ..core.tensor import Tensor, TensorShape, convert_to_tensor, make

__all__ = ["SparseTensor"]


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
