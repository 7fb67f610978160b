"""`TensorArray`: a list of same-dtype tensors that stacks into one (follows `tf.TensorArray`
in eager mode, where it is a Python list of Tensors: TensorFlow's `_EagerTensorArray`)."""

from __future__ import annotations

from .core import dtypes
from .core.errors import InvalidArgumentError, OutOfRangeError
from .core.tensor import Tensor, TensorShape, convert_to_tensor, to_tensor

__all__ = ["TensorArray"]


class TensorArray:
    """A growable array of tensors of one dtype (follows `tf.TensorArray` in eager mode).

    ``write`` returns the array (TensorFlow code writes ``ta = ta.write(i, x)``); ``stack``,
    ``gather`` and ``concat`` join the elements with differentiable ops, so gradients flow
    through. An element never written (or cleared by a read) reads as zeros of the element
    shape, which must then be fully known.

    Args:
        dtype: the elements' dtype.
        size: the initial size (an int or int32 scalar Tensor; required, as in TensorFlow's
            eager mode).
        dynamic_size: whether writes past the end grow the array (default False).
        clear_after_read: True (the default) forgets an element once read: a second read
            raises InvalidArgumentError, `stack` sees zeros there.
        element_shape: the elements' shape (None dimensions allowed), checked on write.
        infer_shape: merge each written element's shape into ``element_shape`` (default True).
        tensor_array_name, colocate_with_first_write_call, name: accepted and unused, as
            in TensorFlow's eager mode (they name and place graph resources).
        handle, flow: graph-mode arguments; anything but None raises NotImplementedError.

    Raises:
        ValueError: no ``size``; a write whose shape is not compatible with the element
            shape; `unstack` of more rows than a fixed size.
        OutOfRangeError: a read or write at a negative index, or past the end (for writes,
            unless ``dynamic_size``).
        InvalidArgumentError: a write of another dtype; a second read of a cleared element;
            a bad `split` or `concat` (scalar elements).

    >>> ta = ek.TensorArray(ek.float32, size=0, dynamic_size=True)
    >>> for i in range(3):
    ...     ta = ta.write(i, ek.constant([i, i * 10.0]))
    >>> ta.stack().numpy()
    array([[ 0.,  0.],
           [ 1., 10.],
           [ 2., 20.]], dtype=float32)
    """

    def __init__(
        self,
        dtype,
        size=None,
        dynamic_size=None,
        clear_after_read=None,
        tensor_array_name=None,
        handle=None,
        flow=None,
        infer_shape=True,
        element_shape=None,
        colocate_with_first_write_call=True,
        name=None,
    ):
        for arg, value in (("handle", handle), ("flow", flow)):
            if value is not None:
                raise NotImplementedError(f"TensorArray: {arg}= is not supported.")
        if size is None:
            raise ValueError(
                "TensorArray: Size must be declared for TensorArrays when eager execution "
                "is enabled. Received: size=None"
            )
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._cleared: set = set()
        self._elements: list = [None] * max(int(size), 0)
        self._infer_shape = bool(infer_shape)
        self._element_shape = TensorShape(element_shape)

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic

    @property
    def element_shape(self) -> TensorShape:
        """The known element shape (`TensorShape(None)` when unknown)."""
        return self._element_shape

    @property
    def flow(self) -> Tensor:
        """For compatibility: a graph's flow value has no meaning in eager mode (int32 0)."""
        return to_tensor(0, dtypes.int32._np, "TensorArray.flow")

    @property
    def handle(self):
        """For compatibility: None, as in TensorFlow's eager mode."""
        return None

    def identity(self) -> TensorArray:
        """The array itself (a graph-mode no-op)."""
        return self

    def size(self, name=None) -> Tensor:
        """The number of elements, an int32 scalar."""
        return to_tensor(len(self._elements), dtypes.int32._np, "TensorArray.size")

    def _zero_fill(self, i: int) -> Tensor:
        t = self._elements[i]
        if t is None:
            if not self._element_shape.is_fully_defined():
                raise ValueError(
                    f"TensorArray: element {i} was never written (or was cleared by a read) "
                    f"and the element shape {self._element_shape} is not fully known, so it "
                    "cannot be filled with zeros."
                )
            from .ops.creation import zeros

            t = self._elements[i] = zeros(self._element_shape.as_list(), self._dtype)
        return t

    def read(self, index, name=None) -> Tensor:
        """Element ``index`` (zeros if never written); with ``clear_after_read`` it is then
        forgotten."""
        i = _index(index)
        if i < 0:
            raise OutOfRangeError(
                None,
                "read",
                f"TensorArray.read: Reading from negative indices (index {i}) is not allowed.",
            )
        if i >= len(self._elements):
            raise OutOfRangeError(
                None,
                "read",
                f"TensorArray.read: Tried to read from index {i} but array size is: "
                f"{len(self._elements)}",
            )
        if self._elements[i] is None and i in self._cleared:
            raise InvalidArgumentError(
                None,
                "read",
                f"TensorArray.read: Could not read index {i} twice because it was cleared "
                "after a previous read (perhaps try setting clear_after_read = false?)",
            )
        t = self._zero_fill(i)
        if self._clear_after_read:
            self._elements[i] = None
            self._cleared.add(i)
        return t

    def _write(self, index, value) -> None:
        i = _index(index)
        if i < 0:
            raise OutOfRangeError(
                None,
                "write",
                f"TensorArray.write: Writing to negative indices (index {i}) is not allowed.",
            )
        n = len(self._elements)
        if i >= n:
            if not self._dynamic:
                raise OutOfRangeError(
                    None,
                    "write",
                    f"TensorArray.write: Tried to write to index {i} but array is not "
                    f"resizeable and size is: {n}",
                )
            self._elements.extend([None] * (i + 1 - n))
        t = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype_hint=self._dtype)
        if t.dtype != self._dtype:
            raise InvalidArgumentError(
                None,
                "write",
                f"TensorArray.write: TensorArray dtype is {self._dtype.name} but Op is trying "
                f"to write dtype {t.dtype.name}.",
            )
        if not self._element_shape.is_compatible_with(t.shape):
            raise ValueError(
                f"TensorArray.write: Incompatible shape for value ({t.shape}), expected "
                f"({self._element_shape})."
            )
        if self._infer_shape:
            self._element_shape = self._element_shape.merge_with(t.shape)
        self._elements[i] = t

    def write(self, index, value, name=None) -> TensorArray:
        """Sets element ``index`` to ``value``; returns the array."""
        self._write(index, value)
        return self

    def stack(self, name=None) -> Tensor:
        """The elements stacked along a new first axis (zeros for unwritten elements)."""
        from .ops.array_ops import stack
        from .ops.creation import zeros

        if not self._elements:
            shape = self._element_shape
            tail = shape.as_list() if shape.is_fully_defined() else []
            return zeros([0, *tail], self._dtype)
        return stack([self._zero_fill(i) for i in range(len(self._elements))], axis=0)

    def gather(self, indices, name=None) -> Tensor:
        """The elements at ``indices``, stacked (zeros for unwritten elements)."""
        from .ops.array_ops import stack

        n = len(self._elements)
        picked = []
        for i in _ints(indices):
            if not -n <= i < n:
                raise IndexError(
                    f"TensorArray.gather: index {i} is out of range for a TensorArray of size {n}."
                )
            picked.append(self._zero_fill(i % n))
        if not picked:  # TensorFlow stacks an empty Python list: float32, shape (0,)
            from .ops.creation import zeros

            return zeros([0], dtypes.float32)
        return stack(picked, axis=0)

    def concat(self, name=None) -> Tensor:
        """The elements concatenated along their first axis."""
        from .ops.array_ops import concat

        elements = [self._zero_fill(i) for i in range(len(self._elements))]
        if len(elements) == 1:  # TensorFlow's concat of one tensor is its identity
            from .ops.array_ops import identity

            return identity(elements[0])
        for i, t in enumerate(elements):
            if t._value.ndim == 0:
                raise InvalidArgumentError(
                    None,
                    "concat",
                    f"TensorArray.concat: Concat saw a scalar shape at index {i} but requires "
                    "at least vectors.",
                )
        return concat(elements, axis=0)

    def unstack(self, value, name=None) -> TensorArray:
        """Replaces the elements by the slices of ``value`` along its first axis."""
        from .ops.array_ops import unstack

        t = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype_hint=self._dtype)
        if t._value.ndim == 0:
            raise ValueError(
                f"TensorArray.unstack: value must be at least a vector, got shape {t.shape}."
            )
        rows = unstack(t, axis=0)
        if len(rows) > len(self._elements) and not self._dynamic:
            raise ValueError(
                f"TensorArray.unstack: Cannot unstack {len(rows)} tensors into a TensorArray "
                f"of static size {len(self._elements)}."
            )
        self._elements = list(rows)
        self._cleared = set()
        return self

    def scatter(self, indices, value, name=None) -> TensorArray:
        """Writes ``value[k]`` as element ``indices[k]``."""
        from .ops.array_ops import unstack

        t = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype_hint=self._dtype)
        for i, row in zip(_ints(indices), unstack(t, axis=0) if t._value.ndim else []):
            self._write(i, row)
        return self

    def split(self, value, lengths, name=None) -> TensorArray:
        """Replaces the elements by pieces of ``value`` along its first axis, of
        ``lengths`` rows each."""
        from .ops.array_ops import split

        t = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype_hint=self._dtype)
        if t.dtype != self._dtype:
            raise InvalidArgumentError(
                None,
                "split",
                f"TensorArray.split: TensorArray dtype is {self._dtype.name} but value has "
                f"dtype {t.dtype.name}.",
            )
        lens = convert_to_tensor(lengths)
        if lens._value.ndim != 1:
            raise InvalidArgumentError(
                None,
                "split",
                f"TensorArray.split: Expected lengths to be a vector, received shape: "
                f"{list(lens._value.shape)}",
            )
        if t._value.ndim == 0:
            raise InvalidArgumentError(
                None,
                "split",
                "TensorArray.split: Expected value to be at least a vector, but received shape: []",
            )
        total = int(lens._value.sum())
        if total != t._value.shape[0]:
            raise InvalidArgumentError(
                None,
                "split",
                "TensorArray.split: Expected sum of lengths to be equal to values.shape[0], but "
                f"sum of lengths is {total} and value's shape is: {list(t._value.shape)}",
            )
        if not self._dynamic and lens._value.shape[0] != len(self._elements):
            raise InvalidArgumentError(
                None,
                "split",
                "TensorArray.split: TensorArray's size is not equal to the size of lengths "
                f"({len(self._elements)} vs. {lens._value.shape[0]}), and the TensorArray is "
                "not marked as dynamically resizeable.",
            )
        self._elements = list(split(t, [int(n) for n in lens._value], axis=0))
        self._cleared = set()
        return self

    def grad(self, source, flow=None, name=None):
        raise NotImplementedError(
            "TensorArray.grad is not supported when executing eagerly; gradients flow through "
            "the array's reads, stack, gather and concat."
        )

    def close(self, name=None) -> None:
        """Clears the elements."""
        self._elements = []

    def __repr__(self) -> str:
        return f"<TensorArray dtype={self._dtype.name} size={len(self._elements)}>"


def _index(index) -> int:
    if isinstance(index, Tensor):
        index = index.numpy()
    try:
        return int(index.__index__())
    except (AttributeError, TypeError):
        raise TypeError(
            f"TensorArray: index must be an integer, got {type(index).__name__} {index!r:.40}."
        ) from None


def _ints(indices) -> list:
    if isinstance(indices, Tensor):
        return [int(i) for i in indices.numpy().reshape(-1)]
    return [_index(i) for i in indices]
