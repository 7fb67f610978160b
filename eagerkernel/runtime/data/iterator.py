"""Iterators over a Dataset: `Iterator` (Tensors) and `NumpyIterator` (NumPy values)."""

from __future__ import annotations

from .dataset import Context, Dataset
from .structure import to_numpy

__all__ = ["Iterator", "NumpyIterator"]


class Iterator:
    """One pass over a Dataset (follows `tf.data.Iterator` and TF 1.x's
    ``tfe.Iterator(dataset)``); ``iter(dataset)`` returns one.

    ``next(it)``, ``it.next()`` and ``it.get_next()`` return the next element and raise
    StopIteration at the end. Dropping the iterator (or finishing the pass) stops the
    pass's background threads.

    >>> it = ek.Iterator(ek.data.Dataset.range(2))
    >>> it.next(), next(it)
    (<Tensor: shape=(), dtype=int64, numpy=0>, <Tensor: shape=(), dtype=int64, numpy=1>)
    """

    __slots__ = ("__weakref__", "_dataset", "_it")

    def __init__(self, dataset: Dataset):
        if not isinstance(dataset, Dataset):
            raise TypeError(f"Iterator: expected a Dataset. Received: {type(dataset).__name__}")
        self._dataset = dataset
        self._it = iter(dataset._iter(Context()))

    def __iter__(self) -> Iterator:
        return self

    def __next__(self):
        return next(self._it)

    def next(self):
        """The next element (TF 1.x spelling of ``next(it)``)."""
        return next(self._it)

    def get_next(self):
        """The next element; raises StopIteration at the end."""
        return next(self._it)

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
