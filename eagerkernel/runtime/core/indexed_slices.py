"""`IndexedSlices`: some rows of a tensor, as values and the row indices they belong to
(follows `tf.IndexedSlices`).

``values[i]`` is row ``indices[i]`` of a dense tensor of shape ``dense_shape``; a row index
may repeat, and the dense tensor is then the sum of the repeated rows (TensorFlow's
``unsorted_segment_sum``). It is what `Variable.scatter_update` and the other sparse updates
take as ``sparse_delta``, and what an optimizer accepts as the gradient of an embedding table.
`ek.convert_to_tensor` and every op densify it; the densification is recorded on tapes, so
gradients reach ``values``.

>>> s = ek.IndexedSlices(ek.constant([[1.0, 2.0], [3.0, 4.0]]), ek.constant([2, 0]), [3, 2])
>>> ek.convert_to_tensor(s).numpy()
array([[3., 4.],
       [0., 0.],
       [1., 2.]], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .errors import InvalidArgumentError
from .tensor import Tensor, TensorShape, convert_to_tensor

__all__ = ["IndexedSlices"]


def _as_tensor(x, op: str, arg: str) -> Tensor:
    t = x if isinstance(x, Tensor) else convert_to_tensor(x)
    if type(t) is not Tensor:  # a Variable: its current value (the read is recorded)
        t = t.read_value()
    return t


def _int_tensor(x, op: str, arg: str, rank: int | None) -> Tensor:
    if not isinstance(x, Tensor) and np.size(x) == 0:  # `[]` is an empty index list
        x = np.zeros(np.shape(x), np.int32)
    t = _as_tensor(x, op, arg)
    if t._value.dtype.kind not in "iu":
        raise TypeError(f"{op}: {arg} must be an integer tensor, got dtype {t.dtype.name}.")
    if rank is not None and t._value.ndim != rank:
        raise ValueError(f"{op}: {arg} must have rank {rank}, got shape {tuple(t._value.shape)}.")
    return t


class IndexedSlices:
    """Rows ``indices`` of a dense tensor, holding ``values`` (follows `tf.IndexedSlices`).

    Args:
        values: a Tensor (or convertible value) of shape ``[N, d1, ..., dk]``; ``values[i]``
            is the slice at row ``indices[i]``.
        indices: int32 or int64, shape ``[N]``; rows may repeat (they add up when densified).
            `Variable.batch_scatter_update` takes ``[B..., N]`` indices with values
            ``[B..., N, d1, ..., dk]``.
        dense_shape: optional int vector ``[D0, d1, ..., dk]``, the dense tensor's shape;
            needed to densify (`ek.convert_to_tensor`), not by `Variable.scatter_*`.

    Raises:
        TypeError: non-integer ``indices`` or ``dense_shape``.
        ValueError: ``indices`` a scalar, or ``values``'s shape not ``indices``'s shape plus
            the slice shape.

    ``-s`` negates the values; ``.dtype`` and ``.device`` are the values'; ``.shape`` is
    ``dense_shape`` as a `TensorShape` (unknown without it).
    """

    __slots__ = ("_dense_shape", "_indices", "_values")

    def __init__(self, values, indices, dense_shape=None):
        op = "IndexedSlices"
        self._dense_shape = None
        self._values = _as_tensor(values, op, "values")
        self._indices = _int_tensor(indices, op, "indices", None)
        ishape = tuple(self._indices._value.shape)
        vshape = tuple(self._values._value.shape)
        if not ishape or vshape[: len(ishape)] != ishape:
            raise ValueError(
                f"{op}: values must have one slice per index (shape {ishape} + the slice "
                f"shape), got values shape {vshape}."
            )
        if dense_shape is not None:
            self._dense_shape = _int_tensor(dense_shape, op, "dense_shape", 1)

    @property
    def values(self) -> Tensor:
        """The slices, shape ``[N, d1, ..., dk]``."""
        return self._values

    @property
    def indices(self) -> Tensor:
        """The row of each slice, int32 or int64 ``[N]``."""
        return self._indices

    @property
    def dense_shape(self) -> Tensor | None:
        """The dense tensor's shape as an int vector, or None."""
        return self._dense_shape

    @property
    def dtype(self) -> dtypes.DType:
        return self._values.dtype

    @property
    def device(self) -> str:
        return self._values.device

    @property
    def shape(self) -> TensorShape:
        if self._dense_shape is None:
            return TensorShape(None)
        return TensorShape(int(d) for d in np.asarray(self._dense_shape.numpy()))

    def __neg__(self) -> IndexedSlices:
        from ..ops.elementwise import negative

        return IndexedSlices(negative(self._values), self._indices, self._dense_shape)

    def __repr__(self) -> str:
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape!s}"
        return f"IndexedSlices(indices={self._indices!s}, values={self._values!s}{shape})"

    __str__ = __repr__

    def __tf_tensor__(self, dtype=None, name=None) -> Tensor:
        """The dense Tensor: the slices summed into the rows they index (TensorFlow's
        ``unsorted_segment_sum``), recorded on tapes. TensorFlow's conversion protocol:
        `ek.convert_to_tensor` and every op given an IndexedSlices call it.

        Raises:
            ValueError: no ``dense_shape``, or a ``dtype`` other than the values' (TensorFlow
                does not cast in a conversion).
            InvalidArgumentError: values that do not fit ``dense_shape``, or an index out of
                range.
        """
        from ..ops.segment_ops import unsorted_segment_sum

        op = "convert_to_tensor"
        if dtype is not None and dtypes.as_dtype(dtype) != self._values.dtype:
            raise ValueError(
                f"{op}: Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for "
                f"IndexedSlices with dtype {self._values.dtype.name}"
            )

        if self._dense_shape is None:
            raise ValueError(
                f"{op}: Tensor conversion requested for IndexedSlices without dense_shape: "
                f"{self!r:.200}"
            )
        shape = tuple(int(d) for d in np.asarray(self._dense_shape.numpy()))
        vshape = tuple(self._values._value.shape)
        k = self._indices._value.ndim
        if not shape or shape[1:] != vshape[k:]:
            raise InvalidArgumentError(
                None,
                op,
                f"{op}: IndexedSlices values of shape {vshape} do not fit dense_shape {shape}.",
            )
        idx = np.asarray(self._indices.numpy()).reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= shape[0]):
            bad = int(np.nonzero((idx < 0) | (idx >= shape[0]))[0][0])
            raise InvalidArgumentError(
                None,
                op,
                f"{op}: IndexedSlices indices[{bad}] = {int(idx[bad])} is not in [0, {shape[0]}).",
            )
        return unsorted_segment_sum(self._values, self._indices, shape[0])
