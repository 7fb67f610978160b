"""TensorFlow's queues as they run eagerly: FIFO, padding FIFO, random shuffle and priority.

Follows ``tf.queue`` (TensorFlow's ``data_flow_ops.py`` and its queue kernels). A queue holds
elements, each a tuple of tensors with the queue's ``dtypes`` (and, when given, ``shapes``).
The queue is thread-safe: as in TensorFlow, an ``enqueue`` on a full queue and a ``dequeue``
on an empty open queue block until another thread makes room or adds elements, or the queue
is closed (the wait can be interrupted with Ctrl-C). On a closed queue, ``enqueue`` raises
`CancelledError` and a dequeue that lacks elements raises `OutOfRangeError`.

>>> q = FIFOQueue(capacity=3, dtypes=ek.int32, shapes=[[]])
>>> q.enqueue_many(ek.constant([1, 2, 3]))
>>> int(q.dequeue()), int(q.size())
(1, 2)
>>> q.close()
>>> q.dequeue_up_to(5).numpy()
array([2, 3], dtype=int32)
"""

from __future__ import annotations

import collections
import heapq
import itertools
import threading

import numpy as np

from .core import dtypes as _dtypes
from .core.errors import CancelledError, InvalidArgumentError, OutOfRangeError
from .core.tensor import Tensor, TensorShape, constant, convert_to_tensor

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue"]

_UNBOUNDED = 2**31 - 1
_counter = itertools.count()


def _as_list(x) -> list:
    return list(x) if isinstance(x, (list, tuple)) else [x]


class QueueBase:
    """The base class of the queues (follows `tf.queue.QueueBase`).

    Args:
        dtypes: the `DType` of each component of an element.
        shapes: the `TensorShape` of each component, or None (any shapes; then ``dequeue_many``
            and ``dequeue_up_to`` raise `InvalidArgumentError`, as TensorFlow's do).
        names: the name of each component, or None; with names, the enqueue methods take and
            the dequeue methods return dictionaries keyed by name.

    Raises:
        ValueError: ``shapes`` or ``names`` whose length differs from ``dtypes``'.
    """

    _kind = "Queue"

    def __init__(self, dtypes, shapes, names, queue_ref=None, capacity=-1, name=None):
        self._dtypes = [_dtypes.as_dtype(d) for d in _as_list(dtypes)]
        if shapes is None:
            self._shapes = [TensorShape(None) for _ in self._dtypes]
        else:
            shapes = [shapes] if isinstance(shapes, TensorShape) else list(shapes)
            if (
                shapes
                and not isinstance(shapes[0], (list, tuple, TensorShape))
                and len(self._dtypes) == 1
            ):
                shapes = [shapes]  # a single shape given as a list of dims
            self._shapes = [TensorShape(s) for s in shapes]
            if len(self._shapes) != len(self._dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes")
        if names is not None:
            names = _as_list(names)
            if len(names) != len(self._dtypes):
                raise ValueError("Queue names must have the same length as dtypes")
        self._names = names
        self._capacity = _UNBOUNDED if capacity is None or capacity < 0 else int(capacity)
        self._name = name or self._kind
        self._ref = str(next(_counter))
        self._closed = self._cancelled = False
        self._cond = threading.Condition()
        self._init_storage()

    @staticmethod
    def from_list(index, queues):
        """Not supported: TensorFlow selects a queue by a graph tensor (graph mode only)."""
        raise NotImplementedError(
            "QueueBase.from_list: selecting a queue by index needs a graph (eagerkernel is "
            "eager only); index the Python list of queues instead."
        )

    @property
    def queue_ref(self) -> str:
        """An id of this queue (TensorFlow's is a resource handle)."""
        return self._ref

    @property
    def name(self) -> str:
        """The queue's name (TF's op name)."""
        return self._name

    @property
    def dtypes(self) -> list:
        """The dtype of each component."""
        return list(self._dtypes)

    @property
    def shapes(self) -> list:
        """The `TensorShape` of each component (unknown when none were given)."""
        return list(self._shapes)

    @property
    def names(self):
        """The component names, or None when the components are a list."""
        return None if self._names is None else list(self._names)

    # -- conversion ----------------------------------------------------------------------
    def _components(self, vals, many: bool) -> list:
        if self._names is not None:
            if not isinstance(vals, dict):
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if sorted(self._names) != sorted(vals):
                raise ValueError(
                    "Keys in dictionary to enqueue do not match names of Queue.  "
                    f"Dictionary: {sorted(vals)},Queue: {sorted(self._names)}"
                )
            vals = [vals[k] for k in self._names]
        elif isinstance(vals, dict):
            raise ValueError("Queue must have names to enqueue a dictionary")
        vals = _as_list(vals)
        # TF zips the values with the dtypes, so extra values are ignored (its behaviour).
        out = []
        for v, dt, shape in zip(vals, self._dtypes, self._shapes):
            t = convert_to_tensor(v, dtype=dt)
            got = t.shape[1:] if many else t.shape
            if many and t.shape.rank == 0:
                raise ValueError(f"Shape {t.shape} must have rank at least 1")
            if not shape.is_compatible_with(got):
                raise ValueError(f"Shapes {got} and {shape} are incompatible")
            out.append(t.numpy())
        if len(out) < len(self._dtypes):
            raise ValueError(
                f"{self._kind}.enqueue: expected {len(self._dtypes)} components, got {len(out)}."
            )
        return out

    def _check_many(self, op: str) -> None:
        if not all(s.is_fully_defined() for s in self._shapes):
            raise InvalidArgumentError(
                None,
                op,
                f"{self._kind}'s DequeueMany and DequeueUpTo require the components to have "
                "specified shapes.",
            )

    def _wrap(self, comps):
        ts = [constant(c, dtype=d) for c, d in zip(comps, self._dtypes)]
        if self._names is not None:
            return dict(zip(self._names, ts))
        return ts[0] if len(ts) == 1 else ts

    def _wait(self, ready) -> None:
        """Waits (holding ``self._cond``) until ``ready()``; short waits keep Ctrl-C working."""
        while not ready():
            self._cond.wait(0.1)

    # -- the API ---------------------------------------------------------------------------
    def enqueue(self, vals, name=None) -> None:
        """Adds one element, blocking while the queue is full.

        Raises:
            CancelledError: the queue is closed (before or while waiting).
            ValueError / TypeError: values that do not match the dtypes, shapes or names.
        """
        comps = self._components(vals, many=False)
        self._put([[c] for c in comps], 1)

    def enqueue_many(self, vals, name=None) -> None:
        """Adds the slices of ``vals`` along their first dimension as elements (blocking while
        the queue is full).

        Raises:
            CancelledError: the queue is closed. ValueError: components of rank 0 or with
            different first dimensions.
        """
        comps = self._components(vals, many=True)
        n = comps[0].shape[0]
        if any(c.shape[0] != n for c in comps):
            raise ValueError("enqueue_many: all components must have the same first dimension")
        self._put([list(c) for c in comps], n)

    def _put(self, columns, n: int) -> None:
        closed = f"{self._kind} '{self._ref}' is closed."
        with self._cond:
            for i in range(n):
                if self._closed:
                    raise CancelledError(None, "QueueEnqueueV2", closed)
                # After a close without cancel_pending_enqueues, a waiting enqueue still
                # completes when room frees up (TensorFlow's QueueBase::Close).
                self._wait(lambda: self._cancelled or self._size() < self._capacity)
                if self._cancelled:
                    raise CancelledError(None, "QueueEnqueueV2", closed)
                self._push(
                    [
                        np.asarray(col[i], dtype=object if d == _dtypes.string else None)
                        for col, d in zip(columns, self._dtypes)
                    ]
                )
                self._cond.notify_all()

    def dequeue(self, name=None):
        """Removes and returns one element: a tensor, a list of tensors or (with names) a dict.

        Raises:
            OutOfRangeError: the queue is closed and empty.
        """
        return self._wrap(self._take(1, "QueueDequeueV2", up_to=False, batch=False))

    def dequeue_many(self, n, name=None):
        """Removes ``n`` elements and returns their components stacked along a new first axis.

        Raises:
            InvalidArgumentError: ``n < 0``, or a queue whose shapes are not fully defined.
            OutOfRangeError: the queue is closed and holds fewer than ``n`` elements.
        """
        return self._wrap(self._take(n, "QueueDequeueManyV2", up_to=False, batch=True))

    def dequeue_up_to(self, n, name=None):
        """As `dequeue_many`, but on a closed queue returns the 1 to ``n`` elements left.

        Raises:
            OutOfRangeError: the queue is closed and empty.
        """
        return self._wrap(self._take(n, "QueueDequeueUpToV2", up_to=True, batch=True))

    def _take(self, n, op: str, up_to: bool, batch: bool):
        n = int(n.numpy() if isinstance(n, Tensor) else n)
        if batch:
            if n < 0:
                raise InvalidArgumentError(None, op, f"DequeueManyOp requested {n} < 0 elements")
            self._check_many(op)
        with self._cond:
            self._wait(lambda: self._closed or self._available() >= n)
            size = self._size()
            if size < n and (not up_to or size == 0):
                raise OutOfRangeError(
                    None,
                    op,
                    f"{self._kind} '{self._ref}' is closed and has insufficient elements "
                    f"(requested {n}, current size {size})",
                )
            elems = [self._pop() for _ in range(min(n, size))]
            self._cond.notify_all()
        if not batch:
            return elems[0]
        return [
            self._stack([e[i] for e in elems], shape, dt)
            for i, (shape, dt) in enumerate(zip(self._shapes, self._dtypes))
        ]

    def _stack(self, items, shape, dtype):
        if not items:
            return np.zeros((0, *shape.as_list()), dtype=dtype.as_numpy_dtype)
        return np.stack(items)

    def close(self, cancel_pending_enqueues=False, name=None) -> None:
        """Closes the queue: later enqueues raise `CancelledError`; dequeues succeed while
        enough elements remain, and raise `OutOfRangeError` instead of blocking after that.
        ``cancel_pending_enqueues=True`` also makes blocked enqueues raise `CancelledError`."""
        with self._cond:
            self._closed = True
            self._cancelled = self._cancelled or bool(cancel_pending_enqueues)
            self._cond.notify_all()

    def is_closed(self, name=None) -> Tensor:
        """Whether the queue is closed, as a scalar bool tensor."""
        return constant(self._closed, dtype=_dtypes.bool)

    def size(self, name=None) -> Tensor:
        """The number of elements in the queue, as a scalar int32 tensor."""
        with self._cond:
            return constant(self._size(), dtype=_dtypes.int32)

    # -- storage (FIFO by default) ---------------------------------------------------------
    def _init_storage(self) -> None:
        self._items = collections.deque()

    def _size(self) -> int:
        return len(self._items)

    def _available(self) -> int:
        return len(self._items)

    def _push(self, elem) -> None:
        self._items.append(elem)

    def _pop(self):
        return self._items.popleft()


class FIFOQueue(QueueBase):
    """A queue that dequeues elements in first-in first-out order (follows `tf.queue.FIFOQueue`).

    Args:
        capacity: the most elements the queue holds (a negative value: unbounded).
        dtypes: a `DType` or a list of them, one per component of an element.
        shapes: (optional) a `TensorShape` per component; needed by ``dequeue_many``.
        names: (optional) a name per component (enqueue and dequeue then use dicts).
        shared_name, name: accepted for compatibility (``shared_name`` is ignored).

    >>> q = FIFOQueue(capacity=10, dtypes=ek.int32)
    >>> q.size()
    <Tensor: shape=(), dtype=int32, numpy=0>
    """

    _kind = "FIFOQueue"

    def __init__(
        self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue"
    ):
        super().__init__(dtypes, shapes, names, capacity=capacity, name=name)


class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose ``dequeue_many`` pads components of unknown dimensions with zeros
    (empty strings) to the largest element in the batch (follows `tf.queue.PaddingFIFOQueue`).

    ``shapes`` is required; ``None`` dimensions may vary between elements.

    Raises:
        ValueError: ``shapes`` of unknown rank.
    """

    _kind = "PaddingFIFOQueue"

    def __init__(
        self, capacity, dtypes, shapes, names=None, shared_name=None, name="padding_fifo_queue"
    ):
        super().__init__(dtypes, shapes, names, capacity=capacity, name=name)
        if any(s.rank is None for s in self._shapes):
            raise ValueError(f"Shapes must have a known rank. Received shapes={self._shapes}")

    def _check_many(self, op: str) -> None:
        """Padding makes partially known shapes fine."""

    def _stack(self, items, shape, dtype):
        if not items:
            dims = [0 if d is None else d for d in shape.as_list()]
            return np.zeros((0, *dims), dtype=dtype.as_numpy_dtype)
        if not shape.rank:
            return np.stack(items)
        dims = np.max([it.shape for it in items], axis=0)
        fill = b"" if dtype == _dtypes.string else 0
        out = np.full((len(items), *dims), fill, dtype=items[0].dtype)
        for i, it in enumerate(items):
            out[(i, *(slice(0, d) for d in it.shape))] = it
        return out


class RandomShuffleQueue(QueueBase):
    """A queue that dequeues elements in a random order (follows
    `tf.queue.RandomShuffleQueue`).

    Args:
        capacity: the most elements the queue holds.
        min_after_dequeue: while the queue is open, a dequeue waits until more than this many
            elements would remain (TensorFlow's mixing guarantee); a closed queue ignores it.
        dtypes, shapes, names: as `FIFOQueue`'s.
        seed: an int for a reproducible order (the order is not TensorFlow's).
    """

    _kind = "RandomShuffleQueue"

    def __init__(
        self,
        capacity,
        min_after_dequeue,
        dtypes,
        shapes=None,
        names=None,
        seed=None,
        shared_name=None,
        name="random_shuffle_queue",
    ):
        self._min_after_dequeue = int(min_after_dequeue)
        self._rng = np.random.default_rng(seed)
        super().__init__(dtypes, shapes, names, capacity=capacity, name=name)

    def _init_storage(self) -> None:
        self._items = []

    def _available(self) -> int:
        if self._closed:
            return len(self._items)
        return max(len(self._items) - self._min_after_dequeue, 0)

    def _pop(self):
        i = int(self._rng.integers(len(self._items)))
        self._items[i], self._items[-1] = self._items[-1], self._items[i]
        return self._items.pop()


class PriorityQueue(QueueBase):
    """A queue that dequeues elements in order of an int64 priority, smallest first (follows
    `tf.queue.PriorityQueue`).

    Each element is ``(priority, *components)``: ``dtypes`` and ``shapes`` (both required)
    describe the components after the priority, and the queue's own ``dtypes``/``shapes``
    start with int64 / ``[]``. Elements of equal priority come out in insertion order.

    >>> q = PriorityQueue(5, [ek.string], shapes=[[]])
    >>> q.enqueue_many(([3, 1, 2], ["c", "a", "b"]))
    >>> priority, value = q.dequeue()
    >>> int(priority), value.numpy()
    (1, b'a')
    """

    _kind = "PriorityQueue"

    def __init__(
        self, capacity, types, shapes, names=None, shared_name=None, name="priority_queue"
    ):
        types = [_dtypes.int64, *_as_list(types)]
        shapes = [TensorShape([]), *[TensorShape(s) for s in _as_list(shapes)]]
        super().__init__(types, shapes, names, capacity=capacity, name=name)
        self._seq = itertools.count()

    def _init_storage(self) -> None:
        self._items = []

    def _push(self, elem) -> None:
        heapq.heappush(self._items, (int(elem[0]), next(self._seq), elem))

    def _pop(self):
        return heapq.heappop(self._items)[2]
