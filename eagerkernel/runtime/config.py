"""`ek.config`: the devices present and the default device (follows `tf.config`)."""

from __future__ import annotations

import types
from dataclasses import dataclass

from .core import context
from .core.device import (
    free_gpu_memory,
    get_soft_device_placement,
    list_devices,
    set_default_device,
    set_soft_device_placement,
    set_virtual_gpus,
)

__all__ = [
    "PhysicalDevice",
    "experimental",
    "functions_run_eagerly",
    "get_default_device",
    "get_soft_device_placement",
    "list_physical_devices",
    "num_gpus",
    "run_functions_eagerly",
    "set_default_device",
    "set_soft_device_placement",
    "threading",
]


@dataclass(frozen=True)
class PhysicalDevice:
    """A device as `list_physical_devices` reports it (follows `tf.config.PhysicalDevice`).

    ``virtual`` is True for NumPy-backed test GPUs (``EAGERKERNEL_VIRTUAL_GPUS``).
    """

    name: str
    device_type: str
    virtual: bool = False


def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """Devices present, optionally only ``"CPU"`` or ``"GPU"`` ones.

    >>> ek.config.list_physical_devices("CPU")
    [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU', virtual=False)]
    """
    out = []
    for d in list_devices():
        if device_type is None or d.device_type == device_type.upper():
            out.append(
                PhysicalDevice(
                    f"/physical_device:{d.device_type}:{d.index}", d.device_type, d.virtual
                )
            )
    return out


# [True] while `run_functions_eagerly(True)`: `ek.function` then runs its Python code.
_functions_eagerly = [False]


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Makes every `ek.function` run its Python code eagerly, without tracing, for debugging
    (follows `tf.config.run_functions_eagerly`)."""
    _functions_eagerly[0] = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    """Whether `run_functions_eagerly(True)` is in effect (follows TF)."""
    return _functions_eagerly[0]


def get_default_device() -> str:
    """The name of the device new tensors go to outside any scope."""
    return context.default_device().name


def num_gpus() -> int:
    """Number of GPUs present, virtual ones included (follows `tfe.num_gpus`)."""
    return sum(1 for d in list_devices() if d.device_type == "GPU")


set_default_device = set_default_device

# `ek.config.experimental` (as `tf.config.experimental`): the calls that change the devices
# themselves. `set_virtual_gpus(n)` must come before the first GPU use.
experimental = types.SimpleNamespace(
    free_gpu_memory=free_gpu_memory,
    list_physical_devices=list_physical_devices,
    set_virtual_gpus=set_virtual_gpus,
)


def get_intra_op_parallelism_threads() -> int:
    """How many threads one op may use; 0 means the system picks (follows
    `tf.config.threading.get_intra_op_parallelism_threads`)."""
    from .native import kernels

    return kernels.get_num_threads()


def set_intra_op_parallelism_threads(num_threads: int) -> None:
    """Sets how many threads one op may use (follows
    `tf.config.threading.set_intra_op_parallelism_threads`); 0 lets the system pick: as many
    as the process may run on. Takes effect at once, also after ops have run (TensorFlow
    raises RuntimeError then; here nothing needs it).

    It governs eagerkernel's own multi-threaded kernels: the elementwise activations and their
    gradients on arrays of at least ``kernels.PARALLEL_MIN`` elements
    (`runtime/native/kernels.py`). Matrix products run in NumPy's BLAS, whose threads this
    does not change (``OMP_NUM_THREADS`` or threadpoolctl set those).

    Raises:
        TypeError: ``num_threads`` is not an int.
        ValueError: ``num_threads`` is negative or above 64.
    """
    from .native import kernels

    try:
        kernels.set_num_threads(num_threads)
    except (TypeError, ValueError) as e:
        raise type(e)(
            str(e).replace("set_num_threads: n", "set_intra_op_parallelism_threads: num_threads")
        ) from None


# `ek.config.threading` (as `tf.config.threading`): the op thread pool's size.
threading = types.SimpleNamespace(
    get_intra_op_parallelism_threads=get_intra_op_parallelism_threads,
    set_intra_op_parallelism_threads=set_intra_op_parallelism_threads,
)
