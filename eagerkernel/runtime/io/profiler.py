"""`ek.profiler.experimental`: `start`, `stop`, `Profile`, `Trace` (follow
`tf.profiler.experimental`'s API; the profile is eagerkernel's own).

Between ``start(logdir)`` and ``stop()``, every op the *calling thread* runs is timed (as
``%%tape`` times ops) and written, at ``stop``, as a Chrome trace-event file
``<logdir>/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/<host>.trace.json.gz`` — the run directory
TensorBoard's profile plugin lists, in the trace format its trace viewer, ``chrome://tracing``
and Perfetto read. Each op is one complete event (``"ph": "X"``) named after its primitive, in
microseconds, with the Keras layer or name scope that ran it in ``args.scope``; a `Trace`
block is one more event around its ops. TensorFlow's XPlane files, device tracing and
``ProfilerOptions`` are not produced here; an ``options`` argument raises.

>>> import tempfile
>>> d = tempfile.mkdtemp()
>>> ek.profiler.experimental.start(d)
>>> _ = ek.constant(2.0) * 3.0
>>> ek.profiler.experimental.stop()
>>> import glob, gzip, json
>>> [f] = glob.glob(d + "/plugins/profile/*/*.trace.json.gz")
>>> [e["name"] for e in json.load(gzip.open(f))["traceEvents"]]
['Mul']
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import socket
import threading
import time
import types

from ..core import context as _context
from ..core.context import Recorder
from ..core.errors import AlreadyExistsError, UnavailableError

__all__ = ["Profile", "Trace", "experimental", "start", "stop"]

_lock = threading.Lock()
_active: _Profiler | None = None


class _Profiler(Recorder):
    """Times this thread's ops; its events become the trace file."""

    timed = True

    def __init__(self, logdir: str):
        self.logdir = logdir
        self.thread = threading.get_ident()
        self.events: list = []
        self.scope = ""
        self.origin = time.perf_counter()

    def record(self, prim, inputs, output, params, saved, seconds) -> None:
        end = time.perf_counter()
        seconds = seconds or 0.0
        self.events.append((prim.name, end - seconds - self.origin, seconds, self.scope))

    def on_scope(self, path: tuple) -> None:
        self.scope = "/".join(name for _, name in path)

    def trace_file(self) -> dict:
        tid = self.thread
        return {
            "displayTimeUnit": "ns",
            "traceEvents": [
                {
                    "name": name,
                    "ph": "X",
                    "ts": start * 1e6,
                    "dur": seconds * 1e6,
                    "pid": os.getpid(),
                    "tid": tid,
                    "args": scope if isinstance(scope, dict) else {"scope": scope} if scope else {},
                }
                for name, start, seconds, scope in self.events
            ],
        }


def start(logdir, options=None) -> None:
    """Starts profiling the ops of the calling thread; `stop` writes them under ``logdir``.

    Raises:
        AlreadyExistsError: a profile is already running (TensorFlow's error).
        NotImplementedError: ``options`` given (TensorFlow's ``ProfilerOptions`` select its
            tracers, which eagerkernel does not have).
    """
    global _active
    if options is not None:
        raise NotImplementedError(
            "profiler.experimental.start: options (TensorFlow's ProfilerOptions) select "
            f"TensorFlow's tracers, which eagerkernel does not have. Received: options={options!r}"
        )
    with _lock:
        if _active is not None:
            raise AlreadyExistsError(None, None, "Another profiler is running.")
        _active = _Profiler(os.fspath(logdir))
        _context.push_recorder(_active)


def stop(save: bool = True) -> None:
    """Stops the profile and, with ``save``, writes its trace file (see the module docstring).

    Raises:
        UnavailableError: no profile is running (TensorFlow's error).
        ValueError: called from another thread than `start`'s.
    """
    global _active
    with _lock:
        profiler = _active
        if profiler is None:
            raise UnavailableError(
                None, None, "Cannot export profiling results. No profiler is running."
            )
        if profiler.thread != threading.get_ident():
            raise ValueError(
                "profiler.experimental.stop: the profile records the thread that started it; "
                "stop it from that thread."
            )
        _context.pop_recorder(profiler)
        _active = None
    if save:
        run = time.strftime("%Y_%m_%d_%H_%M_%S", time.gmtime())
        directory = os.path.join(profiler.logdir, "plugins", "profile", run)
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, f"{socket.gethostname()}.trace.json.gz")
        with gzip.open(path, "wt", encoding="utf-8") as f:
            json.dump(profiler.trace_file(), f)


class Profile(contextlib.ContextDecorator):
    """``with ek.profiler.experimental.Profile(logdir):`` = `start` on entry, `stop` on exit."""

    def __init__(self, logdir, options=None):
        self.logdir, self.options = logdir, options

    def __enter__(self):
        start(self.logdir, self.options)
        return self

    def __exit__(self, *exc) -> None:
        stop()


class Trace(contextlib.ContextDecorator):
    """Marks a block (a training step) as one event named ``name`` in the running profile;
    without one it costs nothing. Keyword arguments (``step_num=...``) are kept as the
    event's ``args``, as TensorFlow shows them."""

    def __init__(self, name: str, **kwargs):
        self.name, self.kwargs = name, kwargs

    def __enter__(self):
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        profiler = _active
        if profiler is not None and profiler.thread == threading.get_ident():
            end = time.perf_counter()
            args = {k: str(v) for k, v in self.kwargs.items()}
            profiler.events.append(
                (self.name, self._start - profiler.origin, end - self._start, args)
            )


experimental = types.SimpleNamespace(start=start, stop=stop, Profile=Profile, Trace=Trace)
