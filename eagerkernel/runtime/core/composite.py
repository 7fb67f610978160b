"""`CompositeTensor`: the base of values made of several Tensors (`ek.RaggedTensor`,
`ek.sparse.SparseTensor`), following TensorFlow's `tf.__internal__.CompositeTensor`.

The public ops built by `core/dispatch.py`'s `unary` and `binary` hand a composite argument to
the composite's own `_ek_unary` / `_ek_binary`, which run the op on its component Tensors (so
every op still goes through `dispatch`, and tapes see it). The check is on the slow path only:
an op on plain Tensors never tests for composites.
"""

from __future__ import annotations

__all__ = ["CompositeTensor"]


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

    @classmethod
    def _ek_stack(cls, items: list, op: str):
        """One value with ``items`` as its rows (what `Dataset.batch` makes of them)."""
        raise TypeError(f"{op}: cannot batch {cls.__name__} components.")

    def _ek_reduce(self, op: str, axis, keepdims):
        """``ek.<op>(self, axis, keepdims)`` for a reduction named ``op`` ("reduce_sum", ...)."""
        raise TypeError(f"{op}: not supported for a {type(self).__name__}.")
