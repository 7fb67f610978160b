"""In-place updates for optimizers: copy-on-write writes, and large updates split over cores.

Updates are in place, copy-on-write. A Variable's assignments replace its array, so a tape that
recorded an earlier read keeps seeing the value it read and ``v.numpy()`` never changes under
the caller. An optimizer keeps that promise while writing in place whenever it can: it writes
into a variable's (or slot's) array only if nothing else references that array (`_owned`);
otherwise it first replaces the array by a copy and writes into the copy (`mutable_array`). A
plain training step (the tape released by `gradient`) therefore updates the weights in place,
with no new arrays, while a persistent tape's snapshot or an array the user kept stays
untouched.

Large CPU updates are split (`run_parallel`): each elementwise kernel runs on contiguous slices
of its flat arrays, one part per core (at most 8), through the runtime's thread pool
(`native.parallel`); NumPy releases the GIL inside the kernels.
"""

from __future__ import annotations

import contextlib
import sys

import numpy as np

from ...core.variable import Variable
from ...native.parallel import run_parts

__all__ = ["CHUNK", "mutable_array", "on_device", "run_parallel", "scale_in_place"]


# -- copy-on-write --------------------------------------------------------------------------------


def _refcount(array) -> int:
    # Same call shape as `_owned` below: the array arrives as the only argument.
    return sys.getrefcount(array)


class _Probe:
    __slots__ = ("_value",)


def _unshared_count() -> int:
    # The reference count an array has when one object slot holds it and it is passed as an
    # argument, measured here rather than assumed: it depends on the interpreter version.
    probe = _Probe()
    probe._value = np.empty(1)
    return _refcount(probe._value)


_UNSHARED = _unshared_count()


def _owned(array) -> bool:
    """True if ``array`` may be written in place: the Variable holding it is its only owner.

    Call it as ``_owned(v._value)`` (the same call shape as the calibration above). Any other
    reference (a tape's snapshot of an earlier read, a Tensor from ``read_value()``, an array
    the user got from ``numpy()``, a NumPy view, whose ``base`` references the array) raises
    the count above ``_UNSHARED``. The array must also own its memory (``base is None``: a view
    would write into another array) and be writeable (NumPy scalars and read-only arrays are
    not).
    """
    return (
        sys.getrefcount(array) <= _UNSHARED
        and array.base is None
        and getattr(array.flags, "writeable", True)  # CuPy's flags have no `writeable`
    )


def mutable_array(variable: Variable):
    """``variable``'s array (NumPy or CuPy), ready to be written in place: an update rule
    (`Optimizer.update_step`) writes a variable or slot only through it.

    The array is the variable's own when nothing else references it; otherwise (a tape's
    saved read, an array the user got from ``numpy()``, a view) the variable first gets a
    copy, so that nobody sees a value change under them (see the module docstring).
    """
    if _owned(variable._value):
        return variable._value
    with on_device(variable._device):
        arr = variable._device.xp.array(variable._value, copy=True)
    variable._value = arr
    return arr


def on_device(device):
    """Context making ``device`` CuPy's current device (new arrays and kernels go there); it
    does nothing for a NumPy device."""
    if device.xp is np:
        return contextlib.nullcontext()
    return device.cuda_device()


def scale_in_place(variable: Variable, factor: float) -> None:
    """``variable *= factor`` in place (copy-on-write, as `mutable_array`)."""
    # A function of its own, so that no local of the caller keeps the array referenced (that
    # would make the next `_owned` check fail and cost a copy).
    arr = mutable_array(variable)
    arr *= factor


# -- split over the cores -------------------------------------------------------------------------

CHUNK = 1 << 15  # elements per kernel call: a chunk of every array stays in the L2 cache


def _run_parts(tasks: list, part: int, parts: int) -> None:
    """Runs part ``part`` of ``parts`` of every task (a contiguous slice of its flat arrays)."""
    for kernel, tmp, g, arrays, scalars in tasks:
        n = tmp.size
        flat = [tmp.reshape(-1), g.reshape(-1), *(a.reshape(-1) for a in arrays)]
        for lo in range(n * part // parts, n * (part + 1) // parts, CHUNK):
            hi = min(lo + CHUNK, n * (part + 1) // parts)
            kernel(np, *(a[lo:hi] for a in flat), **scalars)


def run_parallel(tasks: list) -> None:
    """Runs elementwise update kernels, each split over the cores (`parallel.run_parts`);
    re-raises a part's error after every part stopped.

    Args:
        tasks: ``[(kernel, tmp, gradient, arrays, scalars)]``: ``kernel(np, tmp, g, *arrays,
            **scalars)`` writes ``arrays`` in place; ``tmp``, ``gradient`` and ``arrays`` are
            C-contiguous NumPy arrays of one shape, cut into the same slices for every call.
    """
    run_parts(lambda part, parts: _run_parts(tasks, part, parts))
