"""Keeping freed memory for reuse: glibc's malloc settings for large arrays.

NumPy allocates array data with ``malloc``. glibc serves blocks above ``M_MMAP_THRESHOLD``
(128 KiB at start, raised dynamically up to 32 MiB) with fresh ``mmap`` pages that it unmaps on
``free``, and it returns free memory at the top of the heap to the kernel beyond
``M_TRIM_THRESHOLD``. A training step allocates and frees the same large temporaries every step
(im2col columns, activations, cotangents), so every step faults their pages in again: one minor
page fault per 4 KiB page of every such temporary, every step. GPU frameworks keep such memory
in a caching allocator; on the CPU eagerkernel asks glibc to keep it instead. When the runtime
is imported, `keep_freed_memory` sets ``M_MMAP_THRESHOLD`` to `MMAP_THRESHOLD` and
``M_TRIM_THRESHOLD`` to `TRIM_THRESHOLD`, and the steps after the first reuse the memory the
first one freed.

The price: the process's resident size stays near its peak instead of shrinking after each
step (blocks larger than `MMAP_THRESHOLD` are still returned at once). The setting is
process-wide. Set ``EAGERKERNEL_KEEP_FREED_MEMORY=0`` before importing eagerkernel to keep
glibc's defaults; on other C libraries (macOS, musl) nothing changes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import platform

__all__ = ["MMAP_THRESHOLD", "TRIM_THRESHOLD", "keep_freed_memory"]

MMAP_THRESHOLD = 256 << 20  # bytes: larger blocks still get their own mmap, freed at once
TRIM_THRESHOLD = 1 << 30  # bytes of free heap kept before glibc gives memory back
_M_TRIM_THRESHOLD = -1  # glibc's <malloc.h> parameter numbers
_M_MMAP_THRESHOLD = -3


def keep_freed_memory(environ=os.environ) -> bool:
    """Applies the settings above unless ``EAGERKERNEL_KEEP_FREED_MEMORY`` is ``0``.

    Returns:
        True if glibc accepted both settings; False when disabled, not on glibc, or refused.
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
    return mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1 and ok
