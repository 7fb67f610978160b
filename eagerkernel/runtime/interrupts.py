"""Keeping state updates whole when the user presses Ctrl-C (or Jupyter's interrupt).

An optimizer step writes many arrays; a KeyboardInterrupt between two writes would leave a
model half updated. `deferred_interrupt` holds SIGINT while a block runs and delivers it
right after, so an interrupted training loop stops between steps, never inside one. Only the
main thread receives signals in Python, so elsewhere it does nothing.
"""

from __future__ import annotations

import _signal  # signal's C functions: `signal.signal` adds enum conversions costing microseconds
import threading

__all__ = ["deferred_interrupt"]


class deferred_interrupt:
    """Context manager: a SIGINT that arrives inside the block is delivered when it exits.

    >>> from eagerkernel.runtime.interrupts import deferred_interrupt
    >>> with deferred_interrupt():
    ...     pass
    """

    __slots__ = ("_old", "_received")

    def __enter__(self) -> deferred_interrupt:
        self._old = None
        self._received = None
        if threading.current_thread() is not threading.main_thread():
            return self
        try:
            self._old = _signal.signal(_signal.SIGINT, self._hold)
        except ValueError:  # signals unavailable (e.g. an embedded interpreter)
            self._old = None
        return self

    def _hold(self, signum, frame) -> None:
        self._received = (signum, frame)

    def __exit__(self, *exc) -> None:
        if self._old is None:
            return
        _signal.signal(_signal.SIGINT, self._old)
        if self._received is not None and callable(self._old):
            self._old(*self._received)  # the previous handler: raises KeyboardInterrupt
