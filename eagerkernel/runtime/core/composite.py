"""`CompositeTensor`: the base of values made of several Tensors (`ek.RaggedTensor`,
`ek.sparse.SparseTensor`), following TensorFlow's `tf.__internal__.CompositeTensor`.

The public ops built by `core/dispatch.py`'s `unary` and `binary` hand a composite argument to
the composite's own `_ek_unary` / `_ek_binary`, which run the op on its component Tensors (so
every op still goes through `dispatch`, and tapes see it). The check is on the slow path only:
an op on plain Tensors never tests for composites.
"""

from __future__ import annotations

__all__ = ["CompositeSpec", "CompositeTensor"]


class CompositeTensor:
    """A value made of Tensors; ops dispatch to it instead of converting it to one Tensor."""

    __slots__ = ()

    def _ek_unary(self, op):
        """``op(self)`` for a one-input elementwise op (``op`` is the public function)."""
        raise TypeError(
            f"{op.__name__}: not supported for a {type(self).__name__}. Received: {self!r:.80}"
        )

    def _ek_binary(self, op, x, y):
        """``op(x, y)`` where ``self`` is ``x`` or ``y``."""
        raise TypeError(
            f"{op.__name__}: not supported for a {type(self).__name__}. Received: {self!r:.80}"
        )

    def _ek_trace_key(self) -> tuple:
        """``(static, tensors)`` for `ek.function`'s signatures: a hashable key of what the
        ops on this value read in Python (a row partition, sparse indices), and the Tensors
        that become the traced program's inputs (the values)."""
        raise TypeError(f"function: a {type(self).__name__} cannot be a traced argument.")

    def _ek_row(self, i: int):
        """Row ``i`` (a Dataset element of `from_tensor_slices` / `unbatch`)."""
        return self[i]

    def _ek_nrows(self) -> int:
        """The number of rows (the size of the first dimension) that `_ek_row` indexes."""
        return int(self.shape[0])

    @classmethod
    def _ek_stack(cls, items: list, op: str):
        """One value with ``items`` as its rows (what `Dataset.batch` makes of them)."""
        raise TypeError(f"{op}: cannot batch {cls.__name__} components.")

    def _ek_reduce(self, op: str, axis, keepdims):
        """``ek.<op>(self, axis, keepdims)`` for a reduction named ``op`` ("reduce_sum", ...)."""
        raise TypeError(f"{op}: not supported for a {type(self).__name__}.")


class CompositeSpec:
    """The type of a `CompositeTensor` (`ek.RaggedTensorSpec`, `ek.sparse.SparseTensorSpec`):
    a shape, a dtype and the subclass's own fields (`_fields`: a ragged rank). Two specs are
    equal when all three are; compatible when dtypes and fields are equal and the shapes are
    compatible (follows `tf.TypeSpec.is_compatible_with`). Subclasses set ``_shape`` and
    ``_dtype`` and give `value_type` and `from_value`."""

    __slots__ = ("_dtype", "_shape")

    @property
    def shape(self):
        """The `TensorShape` (dimensions may be None)."""
        return self._shape

    @property
    def dtype(self):
        """The values' `DType`."""
        return self._dtype

    def _fields(self) -> tuple:
        """The subclass's fields that must match exactly (default: none)."""
        return ()

    def _same_kind(self, other) -> bool:
        return (
            isinstance(other, type(self))
            and other._dtype == self._dtype
            and other._fields() == self._fields()
        )

    def is_compatible_with(self, other) -> bool:
        """Whether ``other`` (a spec or a value) has this dtype and fields and a compatible
        shape."""
        if isinstance(other, self.value_type):
            other = type(self).from_value(other)
        return self._same_kind(other) and self._shape.is_compatible_with(other._shape)

    def __eq__(self, other) -> bool:
        return self._same_kind(other) and tuple(other._shape) == tuple(self._shape)

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(self._shape), self._dtype, self._fields()))
