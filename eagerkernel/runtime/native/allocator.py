"""Keeping freed memory for reuse: glibc's malloc settings for large arrays, following the
workload's peak.

NumPy allocates array data with ``malloc``. glibc serves blocks above ``M_MMAP_THRESHOLD``
(128 KiB at start, raised dynamically up to 32 MiB) with fresh ``mmap`` pages that it unmaps on
``free``, and it returns free memory at the top of the heap to the kernel beyond
``M_TRIM_THRESHOLD``. A training step allocates and frees the same large temporaries every step
(im2col columns, activations, cotangents), so every step faults their pages in again: one minor
page fault per 4 KiB page of every such temporary, every step. GPU frameworks keep such memory
in a caching allocator; on the CPU eagerkernel asks glibc to keep it instead.

What changes, process-wide, when the runtime is imported (`keep_freed_memory`):

- ``M_MMAP_THRESHOLD`` is set to `MMAP_THRESHOLD`: blocks up to that size come from the heap,
  so their memory can be reused; larger ones still get their own ``mmap``, freed at once.
- ``M_TRIM_THRESHOLD`` starts at `TRIM_THRESHOLD` and then follows the workload: after each
  backward pass (at most once every `ADAPT_INTERVAL` seconds) `adapt` reads the process's
  peak resident size (``VmHWM``) and raises the threshold to it, so that a workload whose
  step peaks at 2 GB keeps its 2 GB between steps instead of handing back everything above a
  fixed limit and faulting it in again the next step. The threshold never goes above
  `TRIM_CEILING` of the machine's physical memory nor glibc's limit for the setting
  (``INT_MAX`` bytes), and never comes back down.

The price: the resident size stays near the peak instead of shrinking after each step, also
for memory the rest of a bigger program frees. Set ``EAGERKERNEL_KEEP_FREED_MEMORY=0`` before
importing eagerkernel to keep glibc's defaults (nothing is changed, nothing adapts); on other
C libraries (macOS, musl) nothing changes. ``malloc_trim(0)`` (``ctypes``) gives the kept
memory back at any time.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import platform
import time

__all__ = [
    "ADAPT_INTERVAL",
    "MMAP_THRESHOLD",
    "TRIM_CEILING",
    "TRIM_THRESHOLD",
    "adapt",
    "keep_freed_memory",
    "trim_threshold",
]

MMAP_THRESHOLD = 256 << 20  # bytes: larger blocks still get their own mmap, freed at once
TRIM_THRESHOLD = 1 << 30  # bytes of free heap kept before glibc gives memory back, at first
TRIM_CEILING = 0.25  # the threshold's ceiling, as a fraction of physical memory
ADAPT_INTERVAL = 1.0  # seconds: `adapt` reads /proc at most this often
_INT_MAX = (1 << 31) - 1  # mallopt takes an int
_M_TRIM_THRESHOLD = -1  # glibc's <malloc.h> parameter numbers
_M_MMAP_THRESHOLD = -3

# [mallopt or None (not applied), current trim threshold, time of the last adapt, ceiling]
_state: list = [None, 0, 0.0, 0]


def keep_freed_memory(environ=os.environ) -> bool:
    """Applies the settings above unless ``EAGERKERNEL_KEEP_FREED_MEMORY`` is ``0``.

    Returns:
        True if glibc accepted both settings (and `adapt` will follow the peak); False when
        disabled, not on glibc, or refused.
    """
    if environ.get("EAGERKERNEL_KEEP_FREED_MEMORY", "1").strip() in ("0", "false", "no"):
        return False
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    ok = mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
    ok = mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1 and ok
    if ok:
        _state[:] = [mallopt, TRIM_THRESHOLD, 0.0, _ceiling()]
    return ok


def trim_threshold() -> int:
    """The trim threshold in force (bytes), or 0 when the runtime left glibc's defaults."""
    return _state[1] if _state[0] is not None else 0


def adapt(now: float | None = None) -> int:
    """Raises the trim threshold to the process's peak resident size, if it grew.

    Called after each backward pass; it does its work (one read of ``/proc/self/status``)
    at most once every `ADAPT_INTERVAL` seconds, and nothing when `keep_freed_memory` did not
    apply its settings.

    Args:
        now: the current ``time.monotonic()`` (for tests); read when None.

    Returns:
        The trim threshold in force afterwards (bytes), 0 when not applied.
    """
    mallopt, threshold, last, ceiling = _state
    if mallopt is None:
        return 0
    if now is None:
        now = time.monotonic()
    if now - last < ADAPT_INTERVAL:
        return threshold
    _state[2] = now
    peak = _peak_rss()
    target = min(peak, ceiling)
    if target > threshold and mallopt(_M_TRIM_THRESHOLD, target) == 1:
        _state[1] = target
    return _state[1]


def _peak_rss() -> int:
    """The process's peak resident size in bytes (``VmHWM``), 0 if unknown."""
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _ceiling() -> int:
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        physical = 0
    return min(_INT_MAX, max(TRIM_THRESHOLD, int(physical * TRIM_CEILING)))
