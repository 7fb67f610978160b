"""`TensorShape` (follows `tf.TensorShape`): a tuple of dimensions with TensorFlow's methods;
`PartialShape` has unknown (None) dimensions, `UnknownShape` an unknown rank. Tensors give
their shape as a `TensorShape` (``core/tensor.py``, which re-exports these names).
"""

from __future__ import annotations

import numpy as np

__all__ = ["PartialShape", "TensorShape", "UnknownShape"]


class TensorShape(tuple):
    """A tensor's shape (follows `tf.TensorShape`): a tuple of ints with TensorFlow's
    `as_list()` and `rank`. ``TensorShape(dims)`` with a None (or -1) among ``dims`` gives a
    partially known shape, and ``TensorShape(None)`` one of unknown rank, as TensorFlow's do
    (both are TensorShapes).

    >>> s = TensorShape((2, 3))
    >>> s, s.as_list(), s.rank, s == (2, 3)
    (TensorShape([2, 3]), [2, 3], 2, True)
    >>> TensorShape([None, 3]).is_fully_defined(), TensorShape(None).rank
    (False, None)
    >>> TensorShape([None, 3]).is_compatible_with([5, 3])
    True
    """

    __slots__ = ()

    def __new__(cls, dims=()):
        if cls is not TensorShape:
            return tuple.__new__(cls, dims)
        if dims is None:
            return tuple.__new__(UnknownShape, ())
        if isinstance(dims, UnknownShape):
            return dims
        if isinstance(dims, (int, np.integer)):  # TensorFlow: one dimension
            dims = (dims,)
        out = []
        for d in dims:
            d = getattr(d, "value", d)  # a compat.v1 Dimension
            if d is None or (isinstance(d, (int, np.integer)) and int(d) == -1):
                out.append(None)
            elif isinstance(d, (int, np.integer)) and int(d) >= 0:
                out.append(int(d))
            else:
                raise TypeError(f"TensorShape: invalid dimension {d!r} in {dims!r}.")
        return tuple.__new__(PartialShape if None in out else TensorShape, out)

    def __getnewargs__(self):
        return (tuple(self),)

    def __getitem__(self, key):
        """A dimension (int, or None where unknown), or for a slice the `TensorShape` of those
        dimensions (``shape[:-1]`` is a TensorShape, as in TensorFlow).

        >>> TensorShape([2, None, 3])[1:], TensorShape([2, 3])[-1]
        (TensorShape([None, 3]), 3)
        """
        if type(key) is slice:
            if isinstance(self, UnknownShape):
                return self
            return TensorShape(tuple.__getitem__(self, key))
        return tuple.__getitem__(self, key)

    def as_list(self) -> list:
        return list(self)

    @property
    def dims(self) -> list:
        """The dimensions, ints (None where unknown), or None for an unknown rank."""
        return list(self)

    @property
    def rank(self) -> int:
        return len(self)

    ndims = rank

    def num_elements(self) -> int:
        return int(np.prod(self, dtype=np.int64))

    def is_fully_defined(self) -> bool:
        return True

    def is_compatible_with(self, other) -> bool:
        """True if ``other`` (a shape or sequence) could be this shape: an unknown rank on
        either side, or the same rank and equal dimensions where both are known."""
        other = TensorShape(other) if not isinstance(other, TensorShape) else other
        if isinstance(other, UnknownShape) or isinstance(self, UnknownShape):
            return True
        return len(other) == len(self) and all(
            a is None or b is None or a == b for a, b in zip(self, other)
        )

    def assert_is_compatible_with(self, other) -> None:
        """Raises ValueError (TensorFlow's message) unless `is_compatible_with`."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {TensorShape(other)} are incompatible")

    def most_specific_compatible_shape(self, other) -> TensorShape:
        """The shape both could be: unknown where they differ (used by `concatenate`)."""
        other = TensorShape(other) if not isinstance(other, TensorShape) else other
        if isinstance(other, UnknownShape) or isinstance(self, UnknownShape):
            return UnknownShape()
        if len(other) != len(self):
            return UnknownShape()
        return TensorShape([a if a == b else None for a, b in zip(self, other)])

    def merge_with(self, other) -> TensorShape:
        """The shape with the known dimensions of both (follows `TensorShape.merge_with`).

        Raises:
            ValueError: the shapes are not compatible.
        """
        other = TensorShape(other) if not isinstance(other, TensorShape) else other
        if isinstance(self, UnknownShape):
            return other
        if isinstance(other, UnknownShape):
            return self
        self.assert_is_compatible_with(other)
        return TensorShape([a if a is not None else b for a, b in zip(self, other)])

    def concatenate(self, other) -> TensorShape:
        """This shape's dimensions followed by ``other``'s (unknown rank if either is)."""
        other = TensorShape(other) if not isinstance(other, TensorShape) else other
        if isinstance(self, UnknownShape) or isinstance(other, UnknownShape):
            return UnknownShape()
        return TensorShape([*self, *other])

    def __repr__(self) -> str:
        return f"TensorShape({list(self)})"

    def __str__(self) -> str:
        return str(tuple(self))


class PartialShape(TensorShape):
    """A `TensorShape` whose dimensions may be None (unknown), as in an element spec.

    >>> s = PartialShape((None, 28))
    >>> s, s.as_list(), s.is_fully_defined()
    (TensorShape([None, 28]), [None, 28], False)
    """

    __slots__ = ()

    def is_fully_defined(self) -> bool:
        return None not in self

    def num_elements(self):
        return int(np.prod(self, dtype=np.int64)) if self.is_fully_defined() else None


class UnknownShape(PartialShape):
    """A shape of unknown rank (TensorFlow's ``TensorShape(None)``): falsy, no dims."""

    __slots__ = ()

    @property
    def rank(self):
        return None

    ndims = rank

    @property
    def dims(self):
        return None

    def as_list(self) -> list:
        raise ValueError("as_list() is not defined on an unknown TensorShape.")

    def is_fully_defined(self) -> bool:
        return False

    def num_elements(self):
        return None

    def __repr__(self) -> str:
        return "TensorShape(None)"

    def __str__(self) -> str:
        return "<unknown>"
