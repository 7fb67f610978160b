"""Effects a replay cannot take back, performed once per call of a graph function.

A replay that misses a guard puts back what its stateful calls changed (Variables and the
random generator, `program.state_of`) and goes on with another branch, or with an eager run of
the Python function. Some effects cannot be put back: a Python function run by
``numpy_function`` (it may step an environment), ``print``, a file write, an iterator's next
element. Such calls are marked ``stateful(undoable=False)``; `perform` runs them, and within
one call of a `Function` it logs each result, in order. After a miss, the next attempt
(branch or eager run) gets those results back for the same calls instead of performing them
again, so each effect happens once per call of the function, as in TensorFlow, where a
graph runs each op once.
"""

from __future__ import annotations

import collections
import threading

__all__ = ["LOG", "EffectLog", "perform", "undoable"]


def undoable(fn) -> bool:
    """Whether a guard miss may take ``fn``'s effect back by restoring state (True unless
    ``fn`` was marked ``stateful(undoable=False)``)."""
    return getattr(fn, "__ek_undoable__", True)


class EffectLog(threading.local):
    """This thread's log: ``done``, the ``(fn, result)`` of the un-undoable calls this call of
    a function has performed (None outside a call), and ``given``, the results to hand back
    to the attempt that follows a guard miss, in order."""

    def __init__(self):
        self.done: list | None = None
        self.given: collections.deque | None = None

    def begin(self) -> tuple:
        """Starts a function call's log; returns what `end` restores (calls nest)."""
        saved = (self.done, self.given)
        self.done, self.given = [], None
        return saved

    def retry(self) -> None:
        """After a guard miss: the next attempt gets back what this one performed."""
        self.given, self.done = collections.deque(self.done or ()), []

    def end(self, saved: tuple) -> None:
        """Ends a function call's log, restoring the enclosing call's (what `begin` gave)."""
        self.done, self.given = saved


LOG = EffectLog()


def perform(fn, args: tuple, kwargs: dict, stop=None):
    """``fn(*args, **kwargs)``, or, for an un-undoable ``fn`` that an attempt of this call
    already performed, the result it got then (``stop``: the marker of a call that raised
    StopIteration, raised again)."""
    if getattr(fn, "__ek_undoable__", True):
        return fn(*args, **kwargs)
    log = LOG
    if log.given:
        if log.given[0][0] is fn:
            out = log.given.popleft()[1]
            if log.done is not None:
                log.done.append((fn, out))
            if stop is not None and out is stop:
                raise StopIteration
            return out
        log.given = None  # another path: from here on every call runs
    try:
        out = fn(*args, **kwargs)
    except StopIteration:
        if log.done is not None and stop is not None:
            log.done.append((fn, stop))
        raise
    if log.done is not None:
        log.done.append((fn, out))
    return out
