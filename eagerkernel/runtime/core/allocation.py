"""Allocation checks: a tensor too large for its device fails fast, as TensorFlow's OOM does.

TensorFlow raises `ResourceExhaustedError` ("OOM when allocating tensor with shape[...] and
type float on ...") when an allocator cannot serve a request. NumPy instead raises MemoryError,
or ValueError ("array is too big") for sizes past its index range, or, under Linux's memory
overcommit, succeeds and lets the kernel kill the process when the pages are touched. Ops that
create a tensor from a shape (`zeros`, `fill`, `random.normal`, ...) therefore call
`check_allocation` first: a request larger than the memory the device has free raises
`ResourceExhaustedError` naming the op, the shape, the dtype and the bytes asked for, before
anything is allocated. `out_of_memory` turns the allocator's own failure into the same error.

Requests below `CHECK_ABOVE` bytes skip the check (reading free memory costs a system call).

>>> try:
...     check_allocation("zeros", (10**6, 10**6, 10), np.dtype("float32"))
... except MemoryError as exc:
...     print(type(exc).__name__, exc.message)
ResourceExhaustedError zeros: OOM when allocating tensor with shape (1000000, 1000000, 10) and
type float32 on /cpu:0: 40000000000000 bytes (36.4 TiB) requested, only ... are available.
"""

from __future__ import annotations

import math
import os

import numpy as np

from .errors import ResourceExhaustedError

__all__ = ["CHECK_ABOVE", "available_bytes", "check_allocation", "is_oom", "out_of_memory"]

CHECK_ABOVE = 1 << 28  # bytes (256 MiB)


def _meminfo() -> int | None:
    """MemAvailable + SwapFree from /proc/meminfo (Linux), in bytes."""
    try:
        with open("/proc/meminfo") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        kib = int(fields["MemAvailable"].split()[0]) + int(fields["SwapFree"].split()[0])
    except (OSError, KeyError, ValueError):
        return None
    return kib * 1024


def available_bytes(device=None) -> int | None:
    """Memory ``device`` (default the CPU) could still hand out, in bytes; None if unknown.

    On the CPU and on virtual GPUs: available RAM plus free swap (``/proc/meminfo``, else
    ``sysconf``). On a CuPy GPU: the device's free memory plus the blocks CuPy's pool holds.
    """
    xp = np if device is None else device.xp
    if xp is np:
        avail = _meminfo()
        if avail is not None:
            return avail
        try:
            return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (AttributeError, OSError, ValueError):
            return None
    try:
        with xp.cuda.Device(device.ordinal):
            free, _ = xp.cuda.runtime.memGetInfo()
            return int(free) + int(xp.get_default_memory_pool().free_bytes())
    except Exception:  # no driver, a CuPy without these calls: do not guess
        return None


def _human(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError  # unreachable


def _device_name(device) -> str:
    return "/cpu:0" if device is None else device.name


def out_of_memory(
    op: str, shape, dtype, device=None, available=None, scratch_itemsize: int = 0
) -> ResourceExhaustedError:
    """The `ResourceExhaustedError` for a failed request of ``shape`` x ``dtype`` by ``op``."""
    dtype = np.dtype(dtype)
    size = math.prod(shape)
    nbytes = size * dtype.itemsize
    extra = f" (and {_human(size * scratch_itemsize)} of scratch space)" if scratch_itemsize else ""
    where = f"only {_human(available)} are available" if available is not None else "it failed"
    return ResourceExhaustedError(
        None,
        op,
        f"{op}: OOM when allocating tensor with shape {tuple(shape)} and type {dtype.name} on "
        f"{_device_name(device)}: {nbytes} bytes ({_human(nbytes)}) requested{extra}, {where}.",
    )


def check_allocation(op: str, shape, dtype, device=None, scratch_itemsize: int = 0) -> None:
    """Raises `ResourceExhaustedError` if a ``shape`` x ``dtype`` tensor cannot fit on ``device``.

    Args:
        op: the op's name, for the message.
        shape: a tuple of non-negative ints.
        dtype: the output's NumPy dtype.
        device: a `Device` (default: the CPU).
        scratch_itemsize: bytes per element of temporary arrays the op needs besides its
            output (e.g. 8 for random ops that draw float64 before casting).
    """
    itemsize = dtype.itemsize if isinstance(dtype, np.dtype) else np.dtype(dtype).itemsize
    nbytes = math.prod(shape) * (itemsize + scratch_itemsize)
    if nbytes < CHECK_ABOVE:
        return  # the common case: one product, no system call
    free = available_bytes(device)
    if free is not None and nbytes > free:
        raise out_of_memory(op, shape, dtype, device, free, scratch_itemsize)


def is_oom(exc: BaseException) -> bool:
    """True for an allocator's failure: MemoryError (NumPy, CuPy's OutOfMemoryError) or NumPy's
    ValueError for a size past its index range ("array is too big", "Maximum allowed size",
    "Maximum allowed dimension exceeded")."""
    if isinstance(exc, MemoryError):
        return True
    text = str(exc)
    return isinstance(exc, ValueError) and any(
        part in text for part in ("too big", "Maximum allowed size", "Maximum allowed dimension")
    )
