"""Iterators over a Dataset: `Iterator` (Tensors) and `NumpyIterator` (NumPy values), and the
`Optional` that `Iterator.get_next_as_optional` returns."""

from __future__ import annotations

import numpy as np

from ..core.dispatch import stateful
from ..core.errors import InvalidArgumentError, OutOfRangeError
from ..core.tensor import constant
from .dataset import Context, Dataset
from .structure import normalize, spec_of, to_numpy

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

    __slots__ = ("__weakref__", "_dataset", "_it", "_position", "_starts", "_state")

    def __init__(self, dataset: Dataset):
        if not isinstance(dataset, Dataset):
            raise TypeError(f"Iterator: expected a Dataset. Received: {type(dataset).__name__}")
        self._dataset = dataset
        self._starts = [(s._key, s._epoch) for s in _shuffles(dataset)]
        self._position = 0
        self._state = None
        self._it = iter(dataset._iter(Context(options=dataset.options())))

    def __iter__(self) -> Iterator:
        return self

    def _take(self):
        x = next(self._it)
        self._position += 1  # for checkpoints (see `_checkpoint_variables`)
        return x

    @stateful(undoable=False)  # inside ek.function, every call takes the next element
    def __next__(self):
        return self._take()

    @stateful(undoable=False)
    def next(self):
        """The next element (TF 1.x spelling of ``next(it)``)."""
        return self._take()

    @stateful(undoable=False)
    def get_next(self, name=None):
        """The next element (follows `tf.data.Iterator.get_next`).

        Raises:
            OutOfRangeError: the dataset is exhausted ("End of sequence").
        """
        try:
            return self._take()
        except StopIteration:
            raise OutOfRangeError(None, "IteratorGetNext", "End of sequence") from None

    def get_next_as_optional(self) -> Optional:
        """The next element as an `Optional`, empty at the end (follows TensorFlow's)."""
        try:
            value = self._take()
        except StopIteration:
            value = _ABSENT
        # the dataset's spec (None dims where elements vary), learnt only if asked for
        return Optional(value, self._dataset)

    @property
    def element_spec(self):
        return self._dataset.element_spec

    def __repr__(self) -> str:
        return f"<Iterator over {self._dataset!r}>"

    # -- checkpoints ----------------------------------------------------------------------------
    # An iterator is checkpointable (``ek.train.Checkpoint(iterator=it)``), as tf.data's are. Its
    # state is the number of elements it gave and, for every `shuffle` in the pipeline, the seed
    # key and the epoch its pass started at. Restoring sets those and replays the pass up to the
    # same element, so the next element is the one that came next when it was saved, shuffle
    # order included (even for unseeded shuffles). The pipeline must be deterministic (no
    # ``deterministic=False`` map, no changing generator) for the replay to match.
    def _checkpoint_variables(self) -> dict:
        """``{name: Variable}`` holding the current state (the same Variables each time)."""
        from ..core.device import CPU
        from ..core.device import device as device_scope
        from ..core.variable import Variable

        shuffles = np.zeros((len(self._starts), 2 + 4 * _KEY_PARTS), np.int64)
        for row, (key, epoch) in zip(shuffles, self._starts):
            row[:] = _encode_start(key, epoch)
        position = np.int64(self._position)
        if self._state is None:
            with device_scope(CPU):
                self._state = {
                    "position": Variable(position, trainable=False, name="iterator/position"),
                    "shuffles": Variable(shuffles, trainable=False, name="iterator/shuffles"),
                }
        else:
            self._state["position"]._value = position
            self._state["shuffles"]._value = shuffles
        return self._state

    def _restored(self) -> None:
        """Rebuilds the pass from the restored state (after a checkpoint assigned it)."""
        shuffles = _shuffles(self._dataset)
        rows = np.asarray(self._state["shuffles"].numpy())
        position = int(self._state["position"].numpy())
        starts = [_decode_start(row) for row in rows]
        for s, (key, epoch) in zip(shuffles, starts):
            with s._lock:
                s._key, s._epoch = key, epoch
        self._starts = starts
        self._it = iter(self._dataset._iter(Context(options=self._dataset.options())))
        self._position = 0
        for _ in range(position):
            try:
                self._take()
            except StopIteration:
                break


_KEY_PARTS = 3  # a shuffle's seed key has at most 2 parts (up to 128 bits each)


def _shuffles(dataset) -> list:
    """The `shuffle` datasets of a pipeline, depth first (a stable order)."""
    from .shuffle import Shuffle

    out, todo, seen = [], [dataset], set()
    while todo:
        d = todo.pop()
        if id(d) in seen:
            continue
        seen.add(id(d))
        if isinstance(d, Shuffle):
            out.append(d)
        todo.extend(reversed(getattr(d, "_inputs", ())))
    return out


def _encode_start(key: tuple, epoch: int) -> np.ndarray:
    """``[epoch, parts, 4 words per part...]``: a seed key (ints up to 256 bits) as int64s."""
    row = np.zeros(2 + 4 * _KEY_PARTS, np.uint64)
    row[0], row[1] = epoch, len(key)
    for i, part in enumerate(key[:_KEY_PARTS]):
        for w in range(4):
            row[2 + 4 * i + w] = (int(part) >> (64 * w)) & (2**64 - 1)
    return row.view(np.int64)


def _decode_start(row) -> tuple:
    words = np.asarray(row, np.int64).view(np.uint64)
    parts = int(words[1])
    key = tuple(sum(int(words[2 + 4 * i + w]) << (64 * w) for w in range(4)) for i in range(parts))
    return key, int(words[0])


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
    ``has_value()`` is a bool scalar Tensor; ``get_value()`` returns the value as a structure
    of Tensors (``from_value(42)`` holds an int32 scalar) and on an empty optional raises
    `~ek.errors.InvalidArgumentError`, as TensorFlow's does. ``element_spec`` is the structure
    of `TensorSpec` of the value.

    >>> it = iter(ek.data.Dataset.range(1))
    >>> opt = it.get_next_as_optional()
    >>> bool(opt.has_value()), int(opt.get_value())
    (True, 0)
    >>> bool(it.get_next_as_optional().has_value())
    False
    >>> optional = ek.experimental.Optional.from_value(42)
    >>> print(optional.get_value())
    Tensor(42, shape=(), dtype=int32)
    >>> optional.element_spec
    TensorSpec(shape=(), dtype=ek.int32, name=None)
    """

    __slots__ = ("_spec", "_value")

    def __init__(self, value=_ABSENT, element_spec=None):
        self._value = value
        self._spec = element_spec  # a spec structure, a Dataset (its spec), or None

    @staticmethod
    def from_value(value) -> Optional:
        """An optional holding ``value``, a structure of tensors and Python or NumPy values
        (each converted to a Tensor; lists are tensors, tuples and dicts structures)."""
        value = normalize(value, "Optional.from_value")
        return Optional(value, spec_of(value))

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
        """The structure of `TensorSpec` of the value (for an iterator's, its dataset's)."""
        if isinstance(self._spec, Dataset):
            self._spec = self._spec.element_spec
        elif self._spec is None and self._value is not _ABSENT:
            self._spec = spec_of(self._value)
        return self._spec

    def __repr__(self) -> str:
        return f"<Optional has_value={self._value is not _ABSENT}>"
