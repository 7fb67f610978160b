"""`PyDataset` (follows Keras 3's ``keras.utils.PyDataset``; ``Sequence`` is Keras 2's name):
a Python object that gives batches by index, which `Model.fit`, `evaluate` and `predict`
take as ``x``.

A subclass implements ``__getitem__(index)`` (a batch: ``x``, ``(x,)``, ``(x, y)``,
``(x, y, sample_weight)`` or a dict) and ``__len__`` (or the ``num_batches`` property; None
means endless). Each epoch calls ``on_epoch_begin()``, takes the batches in order (shuffled
batch order with ``fit(shuffle=True)``, seeded by the epoch, as Keras does), then calls
``on_epoch_end()``. With ``workers > 1`` that many threads fetch up to ``max_queue_size``
batches ahead; the batches still arrive in order.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import random
from collections import deque

__all__ = ["PyDataset", "Sequence", "iterate"]


class PyDataset:
    """Batches by index for `Model.fit` (follows ``keras.utils.PyDataset``; see the module
    docstring).

    Args:
        workers: threads fetching batches (1: the training thread itself).
        use_multiprocessing: only False (batches are fetched by threads here).
        max_queue_size: batches fetched ahead with ``workers > 1``.

    Raises:
        NotImplementedError: ``use_multiprocessing=True``.
        ValueError: ``workers`` or ``max_queue_size`` below 1.

    >>> class Squares(ek.keras.utils.PyDataset):
    ...     def __len__(self):
    ...         return 2
    ...     def __getitem__(self, i):
    ...         x = np.arange(3.0, dtype=np.float32) + 3 * i
    ...         return x[:, None], (x * x)[:, None]
    >>> [y.ravel().tolist() for _, y in Squares()]
    [[0.0, 1.0, 4.0], [9.0, 16.0, 25.0]]
    """

    def __init__(self, workers: int = 1, use_multiprocessing: bool = False, max_queue_size=10):
        if use_multiprocessing:
            raise NotImplementedError(
                "PyDataset: use_multiprocessing=True is not supported; workers=N fetches "
                "batches on N threads."
            )
        for name, value in (("workers", workers), ("max_queue_size", max_queue_size)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"PyDataset: {name} must be an int >= 1. Received: {value!r}")
        self._workers = workers
        self._use_multiprocessing = False
        self._max_queue_size = max_queue_size

    @property
    def workers(self) -> int:
        return getattr(self, "_workers", 1)  # a subclass that skipped __init__: Keras's default

    @property
    def use_multiprocessing(self) -> bool:
        return False

    @property
    def max_queue_size(self) -> int:
        return getattr(self, "_max_queue_size", 10)

    def __getitem__(self, index):
        raise NotImplementedError("PyDataset subclasses implement __getitem__(index).")

    @property
    def num_batches(self):
        """The number of batches, ``len(self)``; None for an endless dataset."""
        if hasattr(self, "__len__"):
            return len(self)
        raise NotImplementedError("PyDataset subclasses implement __len__ or num_batches.")

    def on_epoch_begin(self) -> None:
        """Called at the beginning of every epoch."""

    def on_epoch_end(self) -> None:
        """Called at the end of every epoch."""

    def __iter__(self):
        n = self.num_batches
        for index in range(n) if n is not None else itertools.count():
            yield self[index]


Sequence = PyDataset  # Keras 2's name


def iterate(dataset: PyDataset, shuffle: bool = False, epoch: int = 0):
    """One epoch of ``dataset``'s batches (see the module docstring)."""
    dataset.on_epoch_begin()
    n = dataset.num_batches
    if n is None:
        indices = itertools.count()
    else:
        indices = list(range(n))
        if shuffle:
            random.Random(epoch).shuffle(indices)
    if dataset.workers <= 1:
        for i in indices:
            yield dataset[i]
    else:
        with concurrent.futures.ThreadPoolExecutor(dataset.workers) as pool:
            ahead: deque = deque()
            for i in indices:
                ahead.append(pool.submit(dataset.__getitem__, i))
                if len(ahead) >= dataset.max_queue_size:
                    yield ahead.popleft().result()
            while ahead:
                yield ahead.popleft().result()
    dataset.on_epoch_end()
