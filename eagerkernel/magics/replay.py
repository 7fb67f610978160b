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

__all__ = ["DEFAULT_REPEAT", "DEFAULT_WARMUP", "replay_times"]

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

    >>> from eagerkernel.runtime.core.tape import ProfilingTape
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
