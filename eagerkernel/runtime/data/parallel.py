"""Background threads of a pipeline: `prefetch`, parallel `map`, parallel `interleave`.

Lifetime: threads belong to one iterator (one pass). They are daemon threads that hold no
reference to the consuming generator, only to a small shared object (a bounded buffer, a task
queue) that the consumer stops in its ``finally``: when the pass ends, raises, is closed, or the
iterator is dropped (CPython closes an unreachable generator, which runs the ``finally``). A
stopped producer closes its own input iterator, in its own thread, so the stop propagates up
the pipeline. At interpreter exit every live pipeline is stopped, and daemon threads never
block the exit.

Errors: a worker's exception is handed over as the exception object and re-raised by the
consumer, so it keeps its type, message and traceback (which includes the user's function).
"""

from __future__ import annotations

import atexit
import os
import queue
import threading
import time
import weakref
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, wait

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from .dataset import AUTOTUNE, Dataset, int_arg
from .structure import flatten
from .transforms import Interleave, Map

__all__ = ["ParallelInterleave", "ParallelMap", "Prefetch"]

# prefetch(AUTOTUNE) buffers as many elements as fit in this many bytes, between 2 and 64 (its
# size is set once the first element is seen). Larger buffers mean fewer thread wake-ups: the
# consumer is woken once per half buffer.
AUTOTUNE_BYTES = 32 << 20
AUTOTUNE_MAX = 64

_LIVE: weakref.WeakSet = weakref.WeakSet()
_END = object()
_monotonic = time.monotonic


@atexit.register
def _stop_all() -> None:
    for obj in list(_LIVE):
        obj.stop()


def cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def parallelism(value, op: str, arg: str) -> int:
    """``num_parallel_calls`` as a thread count: AUTOTUNE means one per CPU core."""
    n = int_arg(value, op, arg)
    if n == AUTOTUNE:
        return cpu_count()
    if n <= 0:
        raise InvalidArgumentError(
            f"{op}: {arg} must be positive or AUTOTUNE (-1). Received: {arg}={n}"
        )
    return n


def cycle_length(value) -> int:
    if value is None:
        return cpu_count()
    return parallelism(value, "interleave", "cycle_length")


def _close(it) -> None:
    close = getattr(it, "close", None)
    if close is not None:
        close()


# -- prefetch -----------------------------------------------------------------------------------


class _Buffer:
    """A bounded FIFO from one producer thread to the consumer; `stop` releases both sides.

    Waking a thread costs far more than producing a batch from memory (a futex wake, then a
    GIL handoff), so a consumer that ran dry is woken once half the buffer is ready, or as soon
    as an element arrives if it has waited over a millisecond (a slow producer), rather than
    for every element. It also wakes by itself, with a growing timeout up to 20 ms, so an
    element that arrived below those thresholds is never stranded behind a slow one.
    Capacity is enforced with free-slot tokens in a C-level `queue.SimpleQueue`.
    """

    __slots__ = (
        "__weakref__",
        "_capacity",
        "_items",
        "_signal",
        "_tokens",
        "_wake_at",
        "stopped",
        "waiting",
    )

    def __init__(self, capacity: int):
        self._capacity = capacity
        self._items = deque()
        self._tokens = queue.SimpleQueue()
        for _ in range(capacity):
            self._tokens.put(True)
        self._signal = queue.SimpleQueue()
        self._wake_at = max(1, capacity // 2)
        self.waiting = None  # monotonic time the consumer started waiting, or None
        self.stopped = False

    def grow(self, extra: int) -> None:
        """Adds room for ``extra`` more elements (prefetch(AUTOTUNE) sizing itself)."""
        for _ in range(extra):
            self._tokens.put(True)
        self._capacity += extra
        self._wake_at = max(1, self._capacity // 2)

    def put(self, item, last: bool = False) -> bool:
        """Appends ``item``, waiting for room; False if the buffer was stopped meanwhile."""
        if not last and (not self._tokens.get() or self.stopped):
            return False
        self._items.append(item)
        since = self.waiting
        if since is not None and (
            last or len(self._items) >= self._wake_at or _monotonic() - since > 1e-3
        ):
            self.waiting = None
            self._signal.put(None)
        return True

    def get(self):
        items = self._items
        timeout = 1e-3
        started = None
        while True:
            if items:
                self.waiting = None
                item = items.popleft()
                self._tokens.put(True)
                return item
            if started is None:
                started = _monotonic()
            self.waiting = started
            if items:  # the producer appended before seeing `waiting`
                continue
            try:
                self._signal.get(timeout=timeout)
            except queue.Empty:
                timeout = min(2 * timeout, 0.02)

    def stop(self) -> None:
        self.stopped = True
        self._tokens.put(False)  # wakes a producer waiting for room
        self._items.clear()  # drop what was produced now, not when the buffer is collected


def _produce(it, buf: _Buffer, autotune: bool) -> None:
    """Prefetch thread: moves ``it``'s elements into ``buf`` until the end or a stop."""
    try:
        try:
            for x in it:
                if not buf.put((x, None)):
                    return
                if autotune:
                    autotune = False
                    size = sum(t._value.nbytes for t in flatten(x) if isinstance(t, Tensor)) or 1
                    buf.grow(min(AUTOTUNE_MAX, max(2, AUTOTUNE_BYTES // size)) - 2)
        except BaseException as e:  # re-raised by the consumer
            buf.put((None, e), last=True)
            return
        buf.put((_END, None), last=True)
    finally:
        _close(it)


class Prefetch(Dataset):
    """`Dataset.prefetch`."""

    def __init__(self, input: Dataset, buffer_size):
        super().__init__(input)
        n = int_arg(buffer_size, "prefetch", "buffer_size")
        if n < 0 and n != AUTOTUNE:
            raise InvalidArgumentError(
                "prefetch: buffer_size must be non-negative or AUTOTUNE (-1). Received: "
                f"buffer_size={n}"
            )
        self._size = n

    def _iter(self, ctx):
        input = self._inputs[0]
        if self._size == 0 or (self._size == AUTOTUNE and input._cheap()):
            # AUTOTUNE's choice for in-memory slices and gathers: see `plan.CHEAP_BATCH_BYTES`.
            return input._iter(ctx)
        return self._prefetch(ctx)

    def _prefetch(self, ctx):
        autotune = self._size == AUTOTUNE
        buf = _Buffer(2 if autotune else self._size)
        _LIVE.add(buf)
        threading.Thread(
            target=_produce,
            args=(self._inputs[0]._iter(ctx), buf, autotune),
            name="ek.data prefetch",
            daemon=True,
        ).start()
        try:
            while True:
                x, error = buf.get()
                if error is not None:
                    raise error
                if x is _END:
                    return
                yield x
        finally:
            buf.stop()

    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()

    def _spec(self, peek):
        from .sources import input_spec

        return input_spec(self._inputs[0], peek)


# -- parallel map -------------------------------------------------------------------------------


class _Pool:
    """``n`` daemon worker threads sharing a task queue (one pool per iterator)."""

    __slots__ = ("__weakref__", "_n", "_tasks")

    def __init__(self, n: int, name: str):
        self._tasks = queue.SimpleQueue()
        self._n = n
        for i in range(n):
            threading.Thread(
                target=_work, args=(self._tasks,), name=f"{name} {i}", daemon=True
            ).start()

    def submit(self, fn, arg) -> Future:
        f = Future()
        self._tasks.put((f, fn, arg))
        return f

    def stop(self) -> None:
        for _ in range(self._n):
            self._tasks.put(None)


def _work(tasks: queue.SimpleQueue) -> None:
    while True:
        task = tasks.get()
        if task is None:
            return
        f, fn, arg = task
        task = None
        if f.set_running_or_notify_cancel():
            try:
                result = fn(arg)
            except BaseException as e:  # re-raised by the consumer
                f.set_exception(e)
            else:
                f.set_result(result)
            result = None
        f = fn = arg = None


class ParallelMap(Map):
    """`Dataset.map` with ``num_parallel_calls``: up to 2n calls in flight on n threads."""

    def __init__(self, input: Dataset, map_func, n: int, deterministic):
        super().__init__(input, map_func)
        self._n = n
        self._deterministic = deterministic  # None: the pipeline's `Options.deterministic`

    def _iter(self, ctx):
        deterministic = ctx.deterministic(self._deterministic)
        pool = _Pool(self._n, "ek.data map")
        _LIVE.add(pool)
        it = iter(self._inputs[0]._iter(ctx))
        fn = self.apply_fn
        window = 2 * self._n
        in_flight = deque()
        exhausted = False
        try:
            while True:
                while not exhausted and len(in_flight) < window:
                    try:
                        x = next(it)
                    except StopIteration:
                        exhausted = True
                        break
                    in_flight.append(pool.submit(fn, x))
                if not in_flight:
                    return
                if deterministic:
                    fut = in_flight.popleft()
                else:
                    fut = next((f for f in in_flight if f.done()), None)
                    if fut is None:
                        wait(in_flight, return_when=FIRST_COMPLETED)
                        fut = next(f for f in in_flight if f.done())
                    in_flight.remove(fut)
                yield fut.result()
        finally:
            for f in in_flight:
                f.cancel()
            pool.stop()


# -- parallel interleave ------------------------------------------------------------------------


class _Stream:
    """One inner dataset, produced by its own thread."""

    __slots__ = ("done", "error", "items")

    def __init__(self):
        self.items = deque()
        self.done = False
        self.error = None


class _Interleaver:
    """State shared by the consumer and the producer threads of one interleave pass."""

    __slots__ = ("__weakref__", "capacity", "cond", "semaphore", "stopped")

    def __init__(self, n: int, capacity: int):
        self.cond = threading.Condition(threading.Lock())
        self.semaphore = threading.Semaphore(n)
        self.capacity = capacity
        self.stopped = False

    def start(self, open_fn, element, ctx) -> _Stream:
        s = _Stream()
        threading.Thread(
            target=_produce_stream,
            args=(self, s, open_fn, element, ctx),
            name="ek.data interleave",
            daemon=True,
        ).start()
        return s

    def next(self, slots: list, index: int, deterministic: bool):
        """``(k, item)``: the next item of slot ``index`` (or, if not deterministic, of any slot
        with one ready); ``item`` is `_END` when slot k's dataset is exhausted."""
        with self.cond:
            while True:
                s = slots[index]
                if s.items:
                    self.cond.notify_all()
                    return index, s.items.popleft()
                if s.done:
                    if s.error is not None:
                        raise s.error
                    return index, _END
                if not deterministic:
                    for k, o in enumerate(slots):
                        if o is not None and o.items:
                            self.cond.notify_all()
                            return k, o.items.popleft()
                self.cond.wait()

    def stop(self) -> None:
        with self.cond:
            self.stopped = True
            self.cond.notify_all()


def _produce_stream(shared: _Interleaver, s: _Stream, open_fn, element, ctx) -> None:
    it = None
    try:
        with shared.semaphore:
            it = iter(open_fn(element)._iter(ctx))
        while True:
            with shared.semaphore:
                try:
                    x = next(it)
                except StopIteration:
                    break
            with shared.cond:
                while len(s.items) >= shared.capacity and not shared.stopped:
                    shared.cond.wait()
                if shared.stopped:
                    return
                s.items.append(x)
                shared.cond.notify_all()
    except BaseException as e:  # re-raised by the consumer
        s.error = e
    finally:
        with shared.cond:
            s.done = True
            shared.cond.notify_all()
        if it is not None:
            _close(it)


class ParallelInterleave(Interleave):
    """`Dataset.interleave` with ``num_parallel_calls``.

    The consumer follows the sequential cycle/block order exactly; the datasets it will open
    next (up to ``cycle_length`` input elements ahead) and the open ones are produced by
    background threads, at most ``num_parallel_calls`` working at a time.
    """

    def __init__(self, input, map_func, cycle_length, block_length, n, deterministic):
        super().__init__(input, map_func, cycle_length, block_length)
        self._n = n
        self._deterministic = deterministic  # None: the pipeline's `Options.deterministic`

    def _iter(self, ctx):
        deterministic = ctx.deterministic(self._deterministic)
        cycle, block_length = self._cycle, self._block
        shared = _Interleaver(self._n, max(block_length, 8))
        _LIVE.add(shared)
        inputs = iter(self._inputs[0]._iter(ctx))
        ahead = deque()
        slots = [None] * cycle
        n_open = index = block = 0
        end_of_input = False
        try:
            while True:
                while not end_of_input and len(ahead) < cycle:
                    try:
                        element = next(inputs)
                    except StopIteration:
                        end_of_input = True
                        break
                    ahead.append(shared.start(self.open, element, ctx))
                if not (ahead or n_open):
                    return
                if slots[index] is None:
                    if ahead:
                        slots[index] = ahead.popleft()
                        n_open += 1
                    else:
                        index, block = (index + 1) % cycle, 0
                    continue
                k, x = shared.next(slots, index, deterministic)
                if x is _END:
                    slots[k] = None
                    n_open -= 1
                    if k == index:
                        index, block = (index + 1) % cycle, 0
                    continue
                yield x
                if k == index:
                    block += 1
                    if block == block_length:
                        index, block = (index + 1) % cycle, 0
        finally:
            shared.stop()
