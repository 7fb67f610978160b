"""The profiling tape behind the ``%%tape`` magic: a `GradientTape` that records every op with
its forward time, where it was called from and the scope (layer, name scope, backward pass,
optimizer update) it ran in."""

from __future__ import annotations

import os
import sys
import time

from . import context as _context
from .records import Record
from .tape import GradientTape
from .tensor import Tensor

__all__ = ["ProfilingTape", "scopes_of"]

_perf_counter = time.perf_counter
# The runtime's package directory: frames in files under it are not an op's caller.
_INTERNAL = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep


class ProfilingTape(GradientTape):
    """A persistent tape that records every op with its forward time (the ``%%tape`` magic's).

    Unlike a plain tape it records all ops, integer ones included, and treats every float
    tensor used as tracked, so gradients can be asked with respect to any of them afterwards.
    Each `Record` has ``seconds``, the forward's wall time in seconds: read from the CPU's
    time-stamp counter where Linux keeps time with it (``native/_dispatch.c``'s forward
    clock, calibrated against CLOCK_MONOTONIC), else from ``time.perf_counter``. It does not
    keep the values a forward saves for its VJP (``Record.saved`` is None): a
    recording that is never differentiated must not hold them; a VJP recomputes what it needs.

    Args:
        sync: synchronize the device before and after each op, so that GPU times measure the
            kernels rather than their launch.
        watch_accessed_variables: as for `GradientTape`.
    """

    _profile = True
    timed = True

    def __init__(self, sync: bool = False, watch_accessed_variables: bool = True):
        # Per record, where it was called from (`_source`), and the scope path changes
        # (`on_scope`): (index of the first record under it, path, perf_counter time; the
        # time tells how long a scope without ops took: an in-place optimizer update). Made
        # before the base
        # class binds the C recorder, which appends to `_lines`.
        self._lines: list = []
        self._scope_marks: list = []
        super().__init__(persistent=True, watch_accessed_variables=watch_accessed_variables)
        self.sync = bool(sync)

    def _native_extra(self) -> dict:
        return {"lines": self._lines, "internal": _INTERNAL}

    @staticmethod
    def _source():
        """``(code, line number)`` of the innermost frame outside the eagerkernel package (the
        user's line that ran the op), or None."""
        f = sys._getframe(1)
        while f is not None:
            code = f.f_code
            if not code.co_filename.startswith(_INTERNAL):
                return (code, f.f_lineno)
            f = f.f_back
        return None

    def on_scope(self, path: tuple) -> None:
        """Notes that the records from now on ran inside ``path`` (see `Recorder.on_scope`)."""
        if self._records is not None:
            self._scope_marks.append((len(self._records), path, _perf_counter()))

    def _push(self) -> None:
        self.on_scope(_context.context().scopes)
        super()._push()

    def _clear(self) -> None:
        # `reset` and `release_while_recording`: the callers and scopes of the records too.
        self._lines = []
        self._scope_marks = []
        super()._clear()

    def __len__(self) -> int:
        """The number of ops recorded so far."""
        return len(self._records or ())

    @property
    def sources(self) -> list:
        """Per record, ``(code, line number)`` of the frame that ran the op (the innermost one
        outside the eagerkernel package: a notebook cell's line, a user module's), or None."""
        return list(self._lines)

    @property
    def scopes(self) -> list:
        """Per record, the scope path it ran in (`Context.scopes`: ``((kind, name), ...)``,
        outermost first; kind ``"layer"``, ``"name_scope"``, ``"backward"`` or
        ``"optimizer"``)."""
        return scopes_of(len(self._records or ()), self._scope_marks)

    def record(self, prim, inputs: tuple, output, params: dict, saved, seconds) -> None:
        """Keeps a `Record` of every op (see `Recorder.record`); first lets go of one record of
        the tape it replaces (`release_while_recording`), if any."""
        release = self._to_release
        if release:
            del release[-1]
        for x in inputs:
            if type(x) is not Tensor:
                self._record_read(prim, inputs, output, params, None, seconds)
                break
        else:
            self._records.append(Record(prim, inputs, None, output, params, None, seconds))
        self._lines.append(self._source())

    def release_while_recording(self, old: ProfilingTape) -> None:
        """Takes ``old``'s records, to let go of them while this tape records: one before each
        op it records, the rest when it stops recording. ``old`` is left empty; call this only
        for a tape nothing will read again (the ``%%tape`` magic does, for the tape a re-run
        cell replaces when nothing else refers to it): each old output's memory then goes
        straight to a new one, as a plain cell reuses its temporaries'."""
        records = old._records
        old._clear()
        if self._to_release is not None:
            del self._to_release[:]
        self._to_release = records
        self._bind_native()

    def set_sync(self, sync: bool) -> None:
        """Synchronizes the device around each timed op from now on (``--sync``)."""
        self.sync = bool(sync)
        _context.refresh(self)


def scopes_of(n: int, marks: list) -> list:
    """The scope path of each of ``n`` records, from ``marks`` (``(first record, path)`` in
    recording order, as `ProfilingTape.on_scope` notes them); ``()`` before the first mark.

    >>> scopes_of(4, [(0, ()), (1, (("layer", "d"),)), (3, ())])
    [(), (('layer', 'd'),), (('layer', 'd'),), ()]
    """
    out: list = []
    path: tuple = ()
    for mark in marks:  # the records from one mark to the next share a path
        first = min(mark[0], n)
        out += [path] * (first - len(out))
        path = mark[1]
    out += [path] * (n - len(out))
    return out
