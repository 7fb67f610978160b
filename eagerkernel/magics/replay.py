"""``%%tape --time replay``: re-time each recorded op on its recorded inputs.

A single timed run per op (``--time once``, the default) bills an op for everything that
happened while it ran: the first call of a kernel (caches, BLAS threads waking up), a NumPy
warning being formatted and emitted. Replaying re-runs each op's forward through `dispatch`
(the one path every op takes) on the very inputs and params it was recorded with, ``warmup``
times untimed and then ``repeat`` times timed, with floating-point warnings silenced so that
emitting them is not part of an op's time; it reports the minimum (the op's cost, the
statistic ``timeit`` recommends) and the median (what a typical run costs) of each op.

Recorded ops are pure functions of their inputs (random values are drawn outside the ops
and recorded as inputs), so replaying changes no state. Ops are replayed with every tape of
the thread paused, on the device of their inputs, synchronized around each run when the tape
was recorded with ``--sync``.
"""

from __future__ import annotations

import statistics
import time
import warnings

import numpy as np

from ..runtime.core.dispatch import dispatch
from ..runtime.core.records import Records
from ..runtime.core.tape import stop_recording

__all__ = ["DEFAULT_REPEAT", "DEFAULT_WARMUP", "note_warnings", "replay_times", "retime"]

DEFAULT_REPEAT = 3
DEFAULT_WARMUP = 1


def _synchronize(inputs) -> None:
    device = getattr(inputs[0], "_device", None) if inputs else None
    sync = getattr(device, "synchronize", None)
    if sync is not None:
        sync()


def replay_times(
    records: Records,
    repeat: int = DEFAULT_REPEAT,
    warmup: int = DEFAULT_WARMUP,
    sync: bool = False,
) -> list[tuple[float, float] | None]:
    """``(min, median)`` seconds of each record's forward over ``repeat`` timed runs after
    ``warmup`` untimed ones; None for an op that cannot be re-run (one recorded without
    inputs, or a `custom_gradient` call, whose forward is the user's Python code).

    >>> from eagerkernel.runtime.core.profiling_tape import ProfilingTape
    >>> with ProfilingTape() as tape:
    ...     y = ek.constant([1.0, 2.0]) * 3.0
    >>> [(lo <= med) for lo, med in replay_times(Records(tape), repeat=3)]
    [True]

    Raises:
        ValueError: ``repeat < 1`` or ``warmup < 0``.
    """
    if repeat < 1:
        raise ValueError(f"replay_times: repeat must be at least 1. Received: repeat={repeat}.")
    if warmup < 0:
        raise ValueError(f"replay_times: warmup must be at least 0. Received: warmup={warmup}.")
    prims, inputs, params, seconds = records.fields("prim", "inputs", "params", "seconds")
    out: list[tuple[float, float] | None] = []
    clock = time.perf_counter
    with stop_recording(), np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for prim, ins, kw, once in zip(prims, inputs, params, seconds):
            if not ins or once is None:
                out.append(None)
                continue
            for _ in range(warmup):
                dispatch(prim, ins, kw)
            runs = []
            for _ in range(repeat):
                if sync:
                    _synchronize(ins)
                t0 = clock()
                dispatch(prim, ins, kw)
                if sync:
                    _synchronize(ins)
                runs.append(clock() - t0)
            out.append((min(runs), statistics.median(runs)))
    return out


class note_warnings:
    """Context manager: notes which ops of ``tape`` (a `ProfilingTape` recording inside it)
    were running when a warning was shown, so that `retime` can time them again without it.

    A warning shown while an op runs (a NumPy overflow in ``exp``) is formatted and written
    inside the op's timed window, and with ``--time once`` that can be most of the op's time.
    Inside this context ``warnings.showwarning`` (the hook the `warnings` module documents
    for replacing how warnings are shown) is a wrapper that notes the index of the op being
    recorded (the tape's next record), then shows the warning as before: nothing is added to
    an op that shows no warning. A warning shown between ops marks the op after it, which is
    then re-timed needlessly (its time stays a fair one).

    Attributes:
        indices: the record indices noted, in order, without repeats.
    """

    def __init__(self, tape):
        self._tape = tape
        self.indices: list[int] = []
        self._previous = self._hook = None

    def __enter__(self) -> note_warnings:
        previous = self._previous = warnings.showwarning
        tape, indices = self._tape, self.indices

        def showwarning(message, category, filename, lineno, file=None, line=None):
            k = len(tape)  # the op running now is recorded next
            if not indices or indices[-1] != k:
                indices.append(k)
            previous(message, category, filename, lineno, file, line)

        warnings.showwarning = self._hook = showwarning
        return self

    def __exit__(self, *exc) -> None:
        if warnings.showwarning is self._hook:  # a cell that set its own hook keeps it
            warnings.showwarning = self._previous


def retime(records: Records, indices, sync: bool = False) -> list[int]:
    """Times the records at ``indices`` once more on their recorded inputs, with warnings
    silenced (as `replay_times` runs them: one untimed run, which warms what showing the
    warning made cold, then one timed run), and stores that time as their ``seconds``: the
    op's time without the warning it showed (`note_warnings`). Indices past the end, and
    records that cannot be re-run, are skipped. Returns the indices re-timed.

    >>> from eagerkernel.runtime.core.profiling_tape import ProfilingTape
    >>> with ProfilingTape() as tape:
    ...     y = ek.exp(ek.constant([1.0, 2.0]))
    >>> retime(Records(tape), [0, 5])
    [0]
    """
    n = len(records)
    chosen = sorted({i for i in indices if 0 <= i < n})
    subset = Records([records.entry(i) for i in chosen])
    done = []
    for i, times in zip(chosen, replay_times(subset, repeat=1, warmup=1, sync=sync)):
        if times is not None:
            records.entry(i).seconds = times[0]
            done.append(i)
    return done
