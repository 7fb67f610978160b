"""`TensorArray`: a list of same-dtype tensors that stacks into one (follows `tf.TensorArray`
in eager mode, where it is a Python list of Tensors)."""

from __future__ import annotations

from .core import dtypes
from .core.errors import InvalidArgumentError
from .core.tensor import Tensor, to_tensor

__all__ = ["TensorArray"]


class TensorArray:
    """A growable array of tensors of one dtype (follows `tf.TensorArray`).

    ``write`` returns the array (TensorFlow code writes ``ta = ta.write(i, x)``); ``stack``
    and ``gather`` join the elements with differentiable ops, so gradients flow through.

    Args:
        dtype: the elements' dtype.
        size: the initial size (default 0).
        dynamic_size: whether writes past the end grow the array (default False).
        clear_after_read: accepted for TensorFlow's signature (reads never clear here).
        element_shape: the elements' shape, checked on write; lets `stack` fill unwritten
            elements with zeros.
        infer_shape: take the first element's shape as ``element_shape`` (default True).
        tensor_array_name, colocate_with_first_write_call, name: accepted and unused, as
            in TensorFlow's eager mode (they name and place graph resources).
        handle, flow: graph-mode arguments; anything but None raises NotImplementedError.

    Raises:
        InvalidArgumentError: a write of another dtype or shape, out of range, or a read of
            an element never written.

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
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic = bool(dynamic_size)
        self._elements: list = [None] * (0 if size is None else int(size))
        self._infer_shape = bool(infer_shape)
        self._element_shape = None if element_shape is None else tuple(element_shape)

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic

    @property
    def element_shape(self):
        from .core.tensor import TensorShape

        return TensorShape(self._element_shape) if self._element_shape is not None else None

    def size(self, name=None) -> Tensor:
        """The number of elements, an int32 scalar."""
        return to_tensor(len(self._elements), dtypes.int32._np, "TensorArray.size")

    def _index(self, index, op: str, writing: bool) -> int:
        i = int(index)
        n = len(self._elements)
        if i < 0 or (i >= n and not (writing and self._dynamic)):
            raise InvalidArgumentError(
                None,
                op,
                f"TensorArray.{op}: index {i} out of range for a TensorArray of size {n}"
                + ("" if self._dynamic else " (dynamic_size=False)")
                + ".",
            )
        return i

    def write(self, index, value, name=None) -> TensorArray:
        """Sets element ``index`` to ``value``; returns the array."""
        t = to_tensor(value, self._dtype._np, "TensorArray.write")
        if t.dtype != self._dtype:
            raise InvalidArgumentError(
                None,
                "write",
                f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype "
                f"{t.dtype.name}.",
            )
        shape = tuple(t._value.shape)
        if self._element_shape is not None and not _compatible(self._element_shape, shape):
            raise InvalidArgumentError(
                None,
                "write",
                f"TensorArray.write: element of shape {shape} does not match the element "
                f"shape {self._element_shape}.",
            )
        if self._element_shape is None and self._infer_shape:
            self._element_shape = shape
        i = self._index(index, "write", writing=True)
        if i >= len(self._elements):
            self._elements.extend([None] * (i + 1 - len(self._elements)))
        self._elements[i] = t
        return self

    def read(self, index, name=None) -> Tensor:
        """Element ``index``."""
        i = self._index(index, "read", writing=False)
        t = self._elements[i]
        if t is None:
            raise InvalidArgumentError(
                None,
                "read",
                f"Could not read from TensorArray index {i} because it has not yet been "
                "written to.",
            )
        return t

    def _all(self, op: str) -> list:
        out = []
        for i, t in enumerate(self._elements):
            if t is None:
                if self._element_shape is None or None in self._element_shape:
                    raise InvalidArgumentError(
                        None, op, f"TensorArray.{op}: element {i} was never written."
                    )
                from .ops.creation import zeros

                t = zeros(self._element_shape, self._dtype)
            out.append(t)
        return out

    def stack(self, name=None) -> Tensor:
        """The elements stacked along a new first axis (zeros for unwritten elements when the
        element shape is known)."""
        from .ops.array_ops import stack

        elements = self._all("stack")
        if not elements:
            from .ops.creation import zeros

            return zeros((0, *(self._element_shape or ())), self._dtype)
        return stack(elements, axis=0)

    def gather(self, indices, name=None) -> Tensor:
        """The elements at ``indices``, stacked."""
        from .ops.array_ops import stack

        return stack([self.read(i) for i in _ints(indices)], axis=0)

    def concat(self, name=None) -> Tensor:
        """The elements concatenated along their first axis."""
        from .ops.array_ops import concat

        return concat(self._all("concat"), axis=0)

    def unstack(self, value, name=None) -> TensorArray:
        """Writes the slices of ``value`` along its first axis as elements 0, 1, ..."""
        t = to_tensor(value, self._dtype._np, "TensorArray.unstack")
        for i in range(t._value.shape[0]):
            self.write(i, t[i])
        return self

    def scatter(self, indices, value, name=None) -> TensorArray:
        """Writes ``value[k]`` as element ``indices[k]``."""
        t = to_tensor(value, self._dtype._np, "TensorArray.scatter")
        for k, i in enumerate(_ints(indices)):
            self.write(i, t[k])
        return self

    def close(self, name=None) -> None:
        """Clears the elements."""
        self._elements = []

    def __repr__(self) -> str:
        return f"<TensorArray dtype={self._dtype.name} size={len(self._elements)}>"


def _compatible(expected: tuple, shape: tuple) -> bool:
    return len(expected) == len(shape) and all(e is None or e == s for e, s in zip(expected, shape))


def _ints(indices) -> list:
    if isinstance(indices, Tensor):
        return [int(i) for i in indices.numpy().reshape(-1)]
    return [int(i) for i in indices]
