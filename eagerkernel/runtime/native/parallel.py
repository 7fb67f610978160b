"""Splitting work that releases the GIL over the cores: the runtime's one thread pool.

The C kernels (`kernels`) and NumPy's copies and ufunc loops release the GIL, so a large
kernel run on contiguous slices of its arrays, one per core, runs that much sooner (an
optimizer's update, conv2d's im2col and col2im). `run_parts` is the one way the runtime does
it: part 0 runs on the calling thread, the others on a pool of worker threads created on
first use (`cores() - 1` of them, named ``eagerkernel-worker``). Each part must write only
its own slice of the output; NumPy's error state (`np.errstate`), which is per thread, is
the caller's in every part. A call from inside a part (a worker, or part 0 itself) runs all
its parts on that thread, so nested splits never wait on a pool they occupy.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import os
import threading

import numpy as np

__all__ = ["ROWS_SPLIT_MIN", "cores", "run_parts", "run_rows"]

_MAX_PARTS = 8
#: Elements (of the largest array a kernel writes) from which `run_rows` splits: below, a
#: thread hand-off costs more than the second core saves.
ROWS_SPLIT_MIN = 1 << 20
_pool: list = []  # [ThreadPoolExecutor], created on first use
_cores: list = []  # [cores()], read on first use
_inside = threading.local()  # .active: this thread is running a part


def cores() -> int:
    """The number of parts a split uses: the CPUs this process may run on when it first
    asks, at most 8."""
    if not _cores:
        try:
            found = len(os.sched_getaffinity(0))
        except AttributeError:  # not Linux
            found = os.cpu_count() or 1
        _cores.append(max(1, min(found, _MAX_PARTS)))
    return _cores[0]


def _workers():
    if not _pool:
        _pool.append(
            concurrent.futures.ThreadPoolExecutor(
                max_workers=max(cores() - 1, 1), thread_name_prefix="eagerkernel-worker"
            )
        )
    return _pool[0]


def _forget_pool() -> None:  # a forked child has the pool object but none of its threads
    _pool.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def _part(fn, k: int, parts: int, errstate: dict):
    if getattr(_inside, "active", False):
        return fn(k, parts)
    _inside.active = True
    try:
        with np.errstate(**errstate):
            return fn(k, parts)
    finally:
        _inside.active = False


def run_parts(fn, parts: int | None = None) -> list:
    """Calls ``fn(k, parts)`` for ``k`` in ``range(parts)``, in parallel.

    Args:
        fn: called once per part; part ``k`` of ``parts`` must touch only its own slice of any
            output (e.g. rows ``n * k // parts`` to ``n * (k + 1) // parts``).
        parts: how many parts; default `cores()`. One part, or a call from inside a part,
            runs everything on the calling thread.

    Returns:
        The parts' results, in order of ``k``, once every part has finished.

    Raises:
        Whatever a part raised (the first in order of ``k``), after every part has stopped: no
        thread still writes into the outputs when the caller sees the error.
    """
    parts = cores() if parts is None else max(int(parts), 1)
    errstate = np.geterr()
    if parts == 1 or getattr(_inside, "active", False):
        return [fn(k, parts) for k in range(parts)]
    pool = _workers()
    futures = [pool.submit(_part, fn, k, parts, errstate) for k in range(1, parts)]
    try:
        first = _part(fn, 0, parts, errstate)
    finally:
        concurrent.futures.wait(futures)
    results = [first]
    for f in futures:
        results.append(f.result())  # re-raises the part's error
    return results


def run_rows(fn, n: int, size: int, split_min: int | None = None) -> list:
    """Calls ``fn(lo, hi)`` on contiguous ranges of ``n`` rows (images of a batch, elements of
    a flat array) that together cover them once, in parallel when the work is large
    (``size``, the elements written, at least ``split_min``, default `ROWS_SPLIT_MIN`, and
    two rows or more), else once with ``(0, n)``.

    The ranges are dealt out one at a time, about four per part, so a part whose thread runs
    slower (sharing its core with another program, or with BLAS threads still spinning after
    a matrix product) takes fewer of them instead of holding the others up.

    Returns:
        The calls' results, in order of the ranges. Raises as `run_parts`.
    """
    parts = min(cores(), n) if size >= (ROWS_SPLIT_MIN if split_min is None else split_min) else 1
    if parts <= 1:
        return [fn(0, n)]
    step = max(1, n // (4 * parts))
    ranges = [(lo, min(lo + step, n)) for lo in range(0, n, step)]
    results: list = [None] * len(ranges)
    claim = itertools.count()  # next() on it is atomic: each range goes to one part

    def part(k, parts):
        for i in claim:
            if i >= len(ranges):
                return
            results[i] = fn(*ranges[i])

    run_parts(part, parts)
    return results
