"""Iterators over a Dataset: `Iterator` (Tensors) and `NumpyIterator` (NumPy values), and the
`Optional` that `Iterator.get_next_as_optional` returns."""

from __future__ import annotations

from ..core.dispatch import stateful
from ..core.errors import InvalidArgumentError, OutOfRangeError
from ..core.tensor import constant
from .dataset import Context, Dataset
from .structure import to_numpy

__all__ = ["Iterator", "NumpyIterator", "Optional"]

_ABSENT = object()


class Iterator:
    """One pass over a Dataset (follows `tf.data.Iterator` and TF 1.x's
    ``tfe.Iterator(dataset)``); ``iter(dataset)`` returns one.

    ``next(it)`` and ``it.next()`` return the next element and raise StopIteration at the
    end (so ``for`` loops end); ``it.get_next()`` raises `~ek.errors.OutOfRangeError` ("End of
    sequence") there, as TensorFlow's does (it is also a StopIteration). Dropping the iterator
    (or finishing the pass) stops the pass's background threads.

    >>> it = ek.Iterator(ek.data.Dataset.range(2))
    >>> it.next(), next(it)
    (<Tensor: shape=(), dtype=int64, numpy=0>, <Tensor: shape=(), dtype=int64, numpy=1>)
    >>> it.get_next()
    Traceback (most recent call last):
    ...
    eagerkernel.runtime.core.errors.OutOfRangeError: End of sequence
    """

    __slots__ = ("__weakref__", "_dataset", "_it")

    def __init__(self, dataset: Dataset):
        if not isinstance(dataset, Dataset):
            raise TypeError(f"Iterator: expected a Dataset. Received: {type(dataset).__name__}")
        self._dataset = dataset
        self._it = iter(dataset._iter(Context()))

    def __iter__(self) -> Iterator:
        return self

    @stateful  # inside ek.function, every call takes the next element
    def __next__(self):
        return next(self._it)

    @stateful
    def next(self):
        """The next element (TF 1.x spelling of ``next(it)``)."""
        return next(self._it)

    @stateful
    def get_next(self, name=None):
        """The next element (follows `tf.data.Iterator.get_next`).

        Raises:
            OutOfRangeError: the dataset is exhausted ("End of sequence").
        """
        try:
            return next(self._it)
        except StopIteration:
            raise OutOfRangeError(None, "IteratorGetNext", "End of sequence") from None

    def get_next_as_optional(self) -> Optional:
        """The next element as an `Optional`, empty at the end (follows TensorFlow's)."""
        spec = self._dataset._spec(False)  # None rather than running the pipeline to learn it
        try:
            return Optional(next(self._it), spec)
        except StopIteration:
            return Optional(_ABSENT, spec)

    @property
    def element_spec(self):
        return self._dataset.element_spec

    def __repr__(self) -> str:
        return f"<Iterator over {self._dataset!r}>"


class NumpyIterator:
    """`Dataset.as_numpy_iterator`'s iterator: elements as read-only NumPy values."""

    __slots__ = ("_it",)

    def __init__(self, dataset: Dataset):
        self._it = Iterator(dataset)

    def __iter__(self) -> NumpyIterator:
        return self

    def __next__(self):
        return to_numpy(next(self._it))

    next = __next__

    def __repr__(self) -> str:
        return "<NumpyIterator>"


class Optional:
    """A value that may be absent (follows `tf.experimental.Optional`).

    Built by `Iterator.get_next_as_optional`, `Optional.from_value` or `Optional.empty`.
    ``has_value()`` is a bool scalar Tensor; ``get_value()`` on an empty optional raises
    `~ek.errors.InvalidArgumentError`, as TensorFlow's does.

    >>> it = iter(ek.data.Dataset.range(1))
    >>> opt = it.get_next_as_optional()
    >>> bool(opt.has_value()), int(opt.get_value())
    (True, 0)
    >>> bool(it.get_next_as_optional().has_value())
    False
    """

    __slots__ = ("_spec", "_value")

    def __init__(self, value=_ABSENT, element_spec=None):
        self._value = value
        self._spec = element_spec

    @staticmethod
    def from_value(value) -> Optional:
        """An optional holding ``value`` (any structure of tensors)."""
        return Optional(value)

    @staticmethod
    def empty(element_spec) -> Optional:
        """An optional with no value, for elements of ``element_spec``."""
        return Optional(_ABSENT, element_spec)

    def has_value(self, name=None):
        """A scalar bool Tensor: True if there is a value."""
        return constant(self._value is not _ABSENT)

    def get_value(self, name=None):
        """The value.

        Raises:
            InvalidArgumentError: the optional is empty.
        """
        if self._value is _ABSENT:
            raise InvalidArgumentError(
                None, "OptionalGetValue", "The optional does not have a value."
            )
        return self._value

    @property
    def element_spec(self):
        """The structure of `TensorSpec` of the value (None if unknown)."""
        return self._spec

    def __repr__(self) -> str:
        return f"<Optional has_value={self._value is not _ABSENT}>"
