"""TensorFlow's warning for a function that traces again and again.

TensorFlow logs "5 out of the last 5 calls to <function f> triggered tf.function retracing"
when 5 of the last 10 (or fewer) calls of one Python function traced it, at most twice per
function; eagerkernel logs the same sentence to the ``eagerkernel`` logger (`ek.get_logger`).
The count is kept per Python function, not per `ek.function` object, so that wrapping the
same function again in a loop is caught too. `Function.__call__` reports each call with
`called`, and `Function._trace` reports that the call traced with `traced`.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import weakref

THRESHOLD = 5  # traces among the last MAX_CALL_HISTORY calls that warn (TensorFlow's values)
MAX_CALL_HISTORY = 10
MAX_WARNINGS = 2  # per Python function

_monitors: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_internal = threading.local()  # depth of `not_counted` blocks on this thread


@contextlib.contextmanager
def not_counted():
    """Calls and traces inside are the runtime's own (the saved-model writer tracing a
    function again at other sizes of its open dimensions): they neither count nor warn, as
    `tf.saved_model.save`'s tracing does not in TensorFlow."""
    _internal.depth = getattr(_internal, "depth", 0) + 1
    try:
        yield
    finally:
        _internal.depth -= 1


class _Monitor:
    """Calls per trace of one Python function, as TensorFlow's frequent-tracing detector:
    ``calls_per_trace[i]`` counts the calls from the i-th kept trace to the next."""

    __slots__ = ("__weakref__", "calls", "calls_per_trace", "warned")

    def __init__(self):
        self.calls = 0
        self.calls_per_trace: list[int] = [0]
        self.warned = 0


def _monitor(python_function) -> _Monitor | None:
    target = getattr(python_function, "__func__", python_function)  # a method: its function
    try:
        monitor = _monitors.get(target)
        if monitor is None:
            monitor = _monitors[target] = _Monitor()
    except TypeError:  # not weakly referenceable (a callable object without __weakref__)
        return None
    return monitor


def called(python_function) -> None:
    """Counts one call of ``python_function``, as one that did not trace (yet)."""
    if getattr(_internal, "depth", 0):
        return
    monitor = _monitor(python_function)
    if monitor is not None:
        monitor.calls += 1
        monitor.calls_per_trace[-1] += 1


def traced(python_function) -> None:
    """The current call of ``python_function`` traced it: may log TensorFlow's warning."""
    monitor = None if getattr(_internal, "depth", 0) else _monitor(python_function)
    if monitor is None:
        return
    if monitor.calls_per_trace[-1] > 0:  # the call `called` counted becomes a tracing one
        monitor.calls_per_trace[-1] -= 1
    else:  # a trace outside a call (get_concrete_function)
        monitor.calls += 1
    monitor.calls_per_trace.append(1)
    while monitor.calls - monitor.calls_per_trace[0] > MAX_CALL_HISTORY:
        monitor.calls -= monitor.calls_per_trace.pop(0)
    n = len(monitor.calls_per_trace) - (monitor.calls_per_trace[0] == 0)
    if n >= THRESHOLD and monitor.warned < MAX_WARNINGS:
        monitor.warned += 1
        logging.getLogger("eagerkernel").warning(
            "%d out of the last %d calls to %r triggered tf.function retracing. Tracing is "
            "expensive and the excessive number of tracings could be due to (1) creating "
            "@tf.function repeatedly in a loop, (2) passing tensors with different shapes, (3) "
            "passing Python objects instead of tensors. For (1), define your @tf.function "
            "outside of the loop. For (2), every new shape is traced once (pad or bucket the "
            "shapes, or pass an input_signature with None dimensions). For (3), see "
            "https://www.tensorflow.org/guide/function#controlling_retracing.",
            n,
            monitor.calls,
            getattr(python_function, "__func__", python_function),
        )
