"""`TensorShape` (follows `tf.TensorShape`): a tuple of dimensions with TensorFlow's methods;
`PartialShape` has unknown (None) dimensions, `UnknownShape` an unknown rank. Tensors give
their shape as a `TensorShape` (``core/tensor.py``, which re-exports these names).
`Dimension` is TF 1.x's dimension object, which ``TensorShape.dims`` still returns.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "Dimension",
    "PartialShape",
    "ShapeMethods",
    "TensorShape",
    "UnknownShape",
    "as_dimension",
    "dimension_at_index",
    "dimension_value",
]


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

    def __bool__(self) -> bool:
        """True: the rank is known (TensorFlow's ``TensorShape.__bool__``; a scalar's shape is
        truthy, unlike an empty tuple). `UnknownShape` is falsy."""
        return True

    def __getnewargs__(self):
        return (tuple(self),)

    def __eq__(self, other):
        """Equal to a shape, tuple or list of the same dimensions, as TensorFlow converts a
        list it is compared with (``t.shape == [2, 3]``); shapes of unknown rank equal each
        other only.

        >>> TensorShape([2, 3]) == [2, 3], TensorShape(None) == TensorShape([])
        (True, False)
        """
        if type(other) is list:
            try:
                other = TensorShape(other)
            except TypeError:
                return NotImplemented
        unknown = isinstance(self, UnknownShape)
        if unknown or isinstance(other, UnknownShape):
            return unknown and isinstance(other, UnknownShape)
        return tuple.__eq__(self, other)

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = tuple.__hash__

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
        """The dimensions as `Dimension` objects (``Dimension(None)`` where unknown), or None
        for an unknown rank, as TensorFlow 2 still gives them; ``as_list()`` gives ints.

        >>> TensorShape([16, None]).dims
        [Dimension(16), Dimension(None)]
        """
        return [Dimension(d) for d in self]

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

    def __add__(self, other) -> TensorShape:
        """``shape + other`` (a shape, list, tuple or int) is `concatenate`, a TensorShape, as
        in TensorFlow (``x.shape[:-1] + [k]``); so is ``[k] + shape``.

        >>> TensorShape([2, 3]) + [4], [4] + TensorShape([2, 3]), TensorShape([2]) + (None,)
        (TensorShape([2, 3, 4]), TensorShape([4, 2, 3]), TensorShape([2, None]))
        """
        return self.concatenate(other)

    def __radd__(self, other) -> TensorShape:
        other = TensorShape(other) if not isinstance(other, TensorShape) else other
        return other.concatenate(self)

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

    def __bool__(self) -> bool:
        return False

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


def _known(a, b) -> bool:
    return a._value is not None and b._value is not None


class Dimension:
    """One dimension of a shape: an int ≥ 0, or unknown (``None``) (follows TF 1.x's
    ``tf.compat.v1.Dimension``, which ``TensorShape.dims`` returns).

    Arithmetic (``+ - * // %``) with another Dimension or an int gives a Dimension, unknown if
    either side is; ``/`` raises TypeError (use ``//``). Comparisons (``== != < <= > >=``)
    give a bool, or None when either side is unknown. Dimensions are not hashable, as in
    TensorFlow.

    Args:
        value: an int ≥ 0, None, a Dimension, or anything with ``__index__``.

    Raises:
        ValueError: a negative value.
        TypeError: a value that is not an integer, None or a Dimension.

    >>> d = Dimension(None)
    >>> d, str(d), d.is_compatible_with(16), Dimension(3) + 4, Dimension(4) == d
    (Dimension(None), '?', True, Dimension(7), None)
    >>> Dimension(4).merge_with(None), Dimension(6) // 4, int(Dimension(5)), Dimension(5).value
    (Dimension(4), Dimension(1), 5, 5)
    """

    __slots__ = ("_value",)

    def __init__(self, value):
        if isinstance(value, Dimension):
            value = value._value
        elif value is not None and not isinstance(value, int):
            index = getattr(value, "__index__", None)
            if index is None:
                raise TypeError(
                    "Dimension value must be integer or None or have an __index__ method, "
                    f"got value {value!r} with type {type(value)!r}"
                )
            value = int(index())
        if value is not None and value < 0:
            raise ValueError(f"Dimension {value} must be >= 0")
        self._value = None if value is None else int(value)

    @property
    def value(self):
        """The dimension's int, or None if unknown."""
        return self._value

    def __repr__(self) -> str:
        return f"Dimension({self._value!r})"

    def __str__(self) -> str:
        return "?" if self._value is None else str(self._value)

    def __reduce__(self):
        return Dimension, (self._value,)

    def __int__(self) -> int:
        return self._value

    __index__ = __int__

    def __bool__(self) -> bool:
        return bool(self._value)

    def is_compatible_with(self, other) -> bool:
        """Whether ``other`` could be this dimension: either is unknown, or they are equal."""
        other = as_dimension(other)
        return not _known(self, other) or self._value == other._value

    def assert_is_compatible_with(self, other) -> None:
        """Raises ValueError ("Dimensions 3 and 4 are not compatible") unless compatible."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {as_dimension(other)} are not compatible")

    def merge_with(self, other) -> Dimension:
        """The known one of the two (either, when both are known and equal).

        Raises:
            ValueError: both are known and differ.
        """
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(other._value if self._value is None else self._value)

    def _arith(self, other, fn, reverse: bool = False):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if not _known(self, other):
            return Dimension(None)
        a, b = (other._value, self._value) if reverse else (self._value, other._value)
        return Dimension(fn(a, b))

    def __add__(self, other):
        return self._arith(other, int.__add__)

    def __radd__(self, other):
        return self._arith(other, int.__add__, True)

    def __sub__(self, other):
        return self._arith(other, int.__sub__)

    def __rsub__(self, other):
        return self._arith(other, int.__sub__, True)

    def __mul__(self, other):
        return self._arith(other, int.__mul__)

    def __rmul__(self, other):
        return self._arith(other, int.__mul__, True)

    def __floordiv__(self, other):
        return self._arith(other, int.__floordiv__)

    def __rfloordiv__(self, other):
        return self._arith(other, int.__floordiv__, True)

    def __mod__(self, other):
        return self._arith(other, int.__mod__)

    def __rmod__(self, other):
        return self._arith(other, int.__mod__, True)

    def __truediv__(self, other):
        raise TypeError(
            f"unsupported operand type(s) for /: 'Dimension' and '{type(other).__name__}', "
            "please use // instead"
        )

    def __rtruediv__(self, other):
        raise TypeError(
            f"unsupported operand type(s) for /: '{type(other).__name__}' and 'Dimension', "
            "please use // instead"
        )

    def _compare(self, other, fn):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        return fn(self._value, other._value) if _known(self, other) else None

    def __eq__(self, other):
        return self._compare(other, int.__eq__)

    def __ne__(self, other):
        return self._compare(other, int.__ne__)

    def __lt__(self, other):
        return self._compare(other, int.__lt__)

    def __le__(self, other):
        return self._compare(other, int.__le__)

    def __gt__(self, other):
        return self._compare(other, int.__gt__)

    def __ge__(self, other):
        return self._compare(other, int.__ge__)

    __hash__ = None  # as TensorFlow's: == may answer None


def as_dimension(value) -> Dimension:
    """``value`` as a `Dimension`: itself if it is one (follows TensorFlow's
    ``tensor_shape.as_dimension``)."""
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dimension):
    """The int (or None) of a dimension: a `Dimension`'s value, anything else as it is
    (follows `tf.compat.dimension_value`).

    >>> ek.compat.dimension_value(ek.TensorShape([3, None]).dims[0]), ek.compat.dimension_value(4)
    (3, 4)
    """
    return dimension.value if isinstance(dimension, Dimension) else dimension


def dimension_at_index(shape, index) -> Dimension:
    """Dimension ``index`` of ``shape`` (a TensorShape, or a list or tuple of dimensions) as a
    `Dimension`; ``Dimension(None)`` for a shape of unknown rank (follows
    `tf.compat.dimension_at_index`).

    >>> ek.compat.dimension_at_index(ek.TensorShape([3, None]), 1)
    Dimension(None)
    """
    shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    if shape.rank is None:
        return Dimension(None)
    return shape.dims[index]


class ShapeMethods:
    """`Tensor`'s TensorFlow 1.x-era shape methods (Tensor inherits them; ``shape`` itself is
    in Tensor's class body)."""

    __slots__ = ()

    def get_shape(self) -> TensorShape:
        """The shape, as `shape` (TensorFlow 1.x spelling)."""
        return self.shape

    def set_shape(self, shape) -> None:
        """Checks ``shape`` against the tensor's (follows `tf.Tensor.set_shape` in eager mode,
        where the shape is known: a compatible ``shape``, ``None`` dimensions included, is a
        no-op; tf.data code calls it on `numpy_function` outputs).

        Raises:
            ValueError: ``shape`` is not compatible with the tensor's shape.

        >>> ek.constant([[1.0, 2.0]]).set_shape([None, 2])
        >>> ek.constant([1.0, 2.0]).set_shape([3])
        Traceback (most recent call last):
        ...
        ValueError: Tensor's shape (2,) is not compatible with supplied shape (3,).
        """
        if not self.shape.is_compatible_with(shape):
            raise ValueError(
                f"Tensor's shape {self.shape} is not compatible with supplied shape "
                f"{TensorShape(shape)}."
            )
