"""Traceback filtering: exceptions shown without eagerkernel's own frames (follows TensorFlow's
``tf.debugging.enable_traceback_filtering``).

An error raised deep inside the runtime (a shape mismatch in the fifth layer of a model being
fitted) carries a traceback through the runtime's internals: the dispatcher, the tape, Keras's
training loop. Those frames are rarely actionable; the user's own frames (the cell, the
model's ``call``, a callback) are. While filtering is enabled (the default, per thread, as in
TensorFlow):

- functions decorated with `filter_traceback` (here: `Model.fit`, `evaluate`, `predict`,
  `train_on_batch`, `test_on_batch`, `predict_on_batch`) re-raise an exception with the frames
  of files inside the ``eagerkernel`` package removed, keeping one frame if nothing else is
  left;
- `strip_internal_frames(exc)` does the same to any exception, for code that displays
  errors (a kernel's or an IDE's exception handler) and wants the short form.

The exception object, its class, message, ``__cause__`` and ``__context__`` are unchanged;
only ``__traceback__`` is shortened. `disable_traceback_filtering()` shows every frame again,
which is what to do when debugging eagerkernel itself.

>>> from eagerkernel.runtime import traceback_utils as tu
>>> try:
...     ek.reshape(ek.zeros((2, 3)), (4, 2))
... except ValueError as exc:
...     frames = [f.f_code.co_filename for f, _ in tu._frames(tu.strip_internal_frames(exc))]
>>> any(tu.is_internal(name) for name in frames)
False
"""

from __future__ import annotations

import functools
import os
import threading
import traceback
import types

__all__ = [
    "disable_traceback_filtering",
    "enable_traceback_filtering",
    "filter_traceback",
    "is_internal",
    "is_traceback_filtering_enabled",
    "strip_internal_frames",
]

_STATE = threading.local()
# The package directory: runtime/.. is eagerkernel/.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def is_traceback_filtering_enabled() -> bool:
    """Whether eagerkernel-internal frames are filtered out of tracebacks in this thread
    (follows `tf.debugging.is_traceback_filtering_enabled`; True unless disabled).

    >>> ek.debugging.is_traceback_filtering_enabled()
    True
    """
    return getattr(_STATE, "enabled", True)


def enable_traceback_filtering() -> None:
    """Filters eagerkernel-internal frames out of the tracebacks of errors raised through the
    runtime's entry points, in this thread (follows `tf.debugging.enable_traceback_filtering`).
    This is the default."""
    _STATE.enabled = True


def disable_traceback_filtering() -> None:
    """Shows every frame, eagerkernel's own included, in this thread (follows
    `tf.debugging.disable_traceback_filtering`): use it when debugging eagerkernel itself.

    >>> ek.debugging.disable_traceback_filtering()
    >>> ek.debugging.is_traceback_filtering_enabled()
    False
    >>> ek.debugging.enable_traceback_filtering()
    """
    _STATE.enabled = False


def is_internal(filename: str) -> bool:
    """True for a source file inside the ``eagerkernel`` package (not ``<stdin>``, a cell, ...)."""
    return not filename.startswith("<") and os.path.abspath(filename).startswith(_PACKAGE)


def _frames(exc: BaseException) -> list:
    return list(traceback.walk_tb(exc.__traceback__))


def strip_internal_frames(exc: BaseException) -> BaseException:
    """``exc`` with the eagerkernel frames removed from its traceback (if filtering is enabled).

    The last frame is kept when every frame is internal, so the traceback still says where
    the error arose. Returns ``exc`` itself (its ``__traceback__`` replaced), so
    ``raise strip_internal_frames(exc)`` works.
    """
    if not is_traceback_filtering_enabled():
        return exc
    frames = _frames(exc)
    tb = None
    for frame, line in reversed(frames):
        if not is_internal(frame.f_code.co_filename):
            tb = types.TracebackType(tb, frame, frame.f_lasti, line)
    if tb is None and frames:
        frame, line = frames[-1]
        tb = types.TracebackType(None, frame, frame.f_lasti, line)
    return exc.with_traceback(tb)


def filter_traceback(fn):
    """Decorates ``fn`` so that exceptions leave it with `strip_internal_frames` applied.

    The decorated function is ``fn`` when filtering is disabled, up to one call; the wrapper
    frame itself shows as the single eagerkernel line of a filtered traceback, as in
    TensorFlow.
    """

    @functools.wraps(fn)
    def error_handler(*args, **kwargs):
        if not is_traceback_filtering_enabled():
            return fn(*args, **kwargs)
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            raise strip_internal_frames(exc)  # noqa: B904 - the same exception, re-raised

    return error_handler
