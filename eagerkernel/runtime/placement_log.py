"""Device placement logging (`ek.debugging.set_log_device_placement`, follows
`tf.debugging.set_log_device_placement`): while on, every op the thread runs writes one line
naming it and the device it ran on, as TensorFlow logs it::

    Executing op MatMul in device /job:localhost/replica:0/task:0/device:CPU:0

The lines go to ``sys.stderr`` (where TensorFlow's log goes; a notebook shows them under the
cell). It is a `Recorder` pushed on the thread that turns it on, so it sees that thread's
ops: the notebook's, not those of Dataset worker threads.

>>> import io, contextlib
>>> buffer = io.StringIO()
>>> with contextlib.redirect_stderr(buffer):
...     ek.debugging.set_log_device_placement(True)
...     _ = ek.constant([1.0, 2.0]) * 2.0
...     ek.debugging.set_log_device_placement(False)
>>> print(buffer.getvalue().strip())
Executing op Mul in device /job:localhost/replica:0/task:0/device:CPU:0
"""

from __future__ import annotations

import sys
import threading

from .core.context import Recorder, pop_recorder, push_recorder

__all__ = ["get_log_device_placement", "set_log_device_placement"]

_state = threading.local()  # .logger: this thread's PlacementLogger while logging is on


class PlacementLogger(Recorder):
    """The recorder behind `set_log_device_placement`: one line per op on ``sys.stderr``."""

    def record(self, prim, inputs, output, params, saved, seconds) -> None:
        out = output[0] if type(output) is tuple and output else output
        device = getattr(out, "device", None) or "?"
        sys.stderr.write(f"Executing op {prim.name} in device {device}\n")


def set_log_device_placement(enabled) -> None:
    """Turns device placement logging on or off for the calling thread (see the module).

    Args:
        enabled: a bool.

    Raises:
        TypeError: ``enabled`` is not a bool.
    """
    if not isinstance(enabled, bool):
        raise TypeError(f"set_log_device_placement: enabled must be a bool, got {enabled!r:.60}.")
    logger = getattr(_state, "logger", None)
    if enabled and logger is None:
        _state.logger = PlacementLogger()
        push_recorder(_state.logger)
    elif not enabled and logger is not None:
        pop_recorder(logger)
        _state.logger = None


def get_log_device_placement() -> bool:
    """Whether device placement logging is on for the calling thread."""
    return getattr(_state, "logger", None) is not None
