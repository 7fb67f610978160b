"""`ek.config`: the devices present and the default device (follows `tf.config`)."""

from __future__ import annotations

import types
from dataclasses import dataclass

from . import config_optimizer
from .core import context
from .core import device as _device
from .core.device import (
    LogicalDevice,
    free_gpu_memory,
    get_soft_device_placement,
    list_devices,
    set_default_device,
    set_soft_device_placement,
    set_virtual_gpus,
)

__all__ = [
    "LogicalDevice",
    "LogicalDeviceConfiguration",
    "PhysicalDevice",
    "experimental",
    "experimental_functions_run_eagerly",
    "experimental_run_functions_eagerly",
    "functions_run_eagerly",
    "get_default_device",
    "get_logical_device_configuration",
    "get_soft_device_placement",
    "get_visible_devices",
    "list_logical_devices",
    "list_physical_devices",
    "num_gpus",
    "optimizer",
    "run_functions_eagerly",
    "set_default_device",
    "set_logical_device_configuration",
    "set_soft_device_placement",
    "set_visible_devices",
    "threading",
]


@dataclass(frozen=True)
class PhysicalDevice:
    """A device as `list_physical_devices` reports it (follows `tf.config.PhysicalDevice`).

    ``virtual`` is True for NumPy-backed test GPUs (``EAGERKERNEL_VIRTUAL_GPUS``); the repr
    says so for them, and is TensorFlow's (name and device type) for real devices.

    >>> PhysicalDevice("/physical_device:GPU:0", "GPU", virtual=True)
    PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU', virtual=True)
    """

    name: str
    device_type: str
    virtual: bool = False

    def __repr__(self) -> str:
        extra = ", virtual=True" if self.virtual else ""
        return f"PhysicalDevice(name={self.name!r}, device_type={self.device_type!r}{extra})"


def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """Devices present, optionally only ``"CPU"`` or ``"GPU"`` ones.

    >>> ek.config.list_physical_devices("CPU")
    [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
    """
    devices = [PhysicalDevice("/physical_device:CPU:0", "CPU")]
    devices += [
        PhysicalDevice(f"/physical_device:GPU:{k}", "GPU", virtual)
        for k, virtual in _device.physical_gpus()
    ]
    return [d for d in devices if device_type is None or d.device_type == device_type.upper()]


def _ordinal(device: PhysicalDevice) -> int:
    return int(device.name.rsplit(":", 1)[1])


def get_visible_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The physical devices ops may run on, optionally only ``"CPU"`` or ``"GPU"`` ones
    (follows `tf.config.get_visible_devices`): all of them, unless `set_visible_devices` hid
    some.

    >>> ek.config.get_visible_devices("CPU")
    [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
    """
    visible = set(_device.visible_gpus())
    return [
        d
        for d in list_physical_devices(device_type)
        if d.device_type == "CPU" or _ordinal(d) in visible
    ]


def set_visible_devices(devices, device_type: str | None = None) -> None:
    """Makes only ``devices`` visible to the runtime (follows `tf.config.set_visible_devices`).

    Hidden GPUs get no logical device: `list_logical_devices` and ``ek.device`` scopes no
    longer see them, and the visible ones are numbered from ``/gpu:0`` in their physical
    order (hiding ``GPU:0`` of two makes physical ``GPU:1`` the logical ``/gpu:0``), as
    TensorFlow does. `list_physical_devices` still lists every device.

    Args:
        devices: a `PhysicalDevice` or a list of them, from `list_physical_devices`.
        device_type: ``"CPU"`` or ``"GPU"``: only devices of that type change, the others
            keep their visibility (``set_visible_devices([], "GPU")`` hides every GPU).
            None (the default): ``devices`` is the whole visible set.

    Raises:
        ValueError: a device that is not a physical device of this process, or not of
            ``device_type`` ("Unrecognized device: ..."); a visible set without the CPU
            (the runtime computes on it).
        RuntimeError: the GPUs' visibility changes after a GPU was used: "Visible devices
            cannot be modified after being initialized".
    """
    if isinstance(devices, PhysicalDevice):
        devices = [devices]
    devices = list(devices)
    kind = None if device_type is None else str(device_type).upper()
    physical = list_physical_devices()
    for d in devices:
        if d not in physical or (kind is not None and d.device_type != kind):
            raise ValueError(f"Unrecognized device: {d!r}")
    visible = devices
    if kind is not None:
        visible = [d for d in get_visible_devices() if d.device_type != kind] + devices
    if not any(d.device_type == "CPU" for d in visible):
        raise ValueError(
            "set_visible_devices: the CPU must stay visible (eagerkernel computes on it); "
            f"received devices={devices!r}, device_type={device_type!r}."
        )
    _device.set_visible_gpus(_ordinal(d) for d in visible if d.device_type == "GPU")


def _physical_gpu(device, where: str) -> PhysicalDevice:
    if not isinstance(device, PhysicalDevice) or device not in list_physical_devices():
        raise ValueError(f"{where}: Unrecognized device: {device!r}")
    if device.device_type != "GPU":
        raise ValueError(f"{where}: Cannot set memory growth on non-GPU devices")
    return device


_memory_growth: dict = {}


def set_memory_growth(device, enable: bool) -> None:
    """Whether ``device`` (a GPU) allocates memory as it needs it (follows
    `tf.config.experimental.set_memory_growth`). CuPy's memory pool always grows on demand
    and never reserves the whole GPU up front, so both settings behave as TensorFlow's
    memory growth; the value is kept for `get_memory_growth`.

    Raises:
        ValueError: not a physical device of this process, or not a GPU ("Cannot set memory
            growth on non-GPU devices", as TensorFlow).
    """
    _memory_growth[_physical_gpu(device, "set_memory_growth")] = bool(enable)


def get_memory_growth(device) -> bool:
    """The memory growth setting of a GPU (follows `tf.config.experimental.get_memory_growth`;
    see `set_memory_growth`). Raises ValueError as `set_memory_growth` does."""
    return _memory_growth.get(_physical_gpu(device, "get_memory_growth"), False)


@dataclass(frozen=True)
class LogicalDeviceConfiguration:
    """One logical device to make from a physical one (follows
    `tf.config.LogicalDeviceConfiguration`; the older name is
    ``ek.config.experimental.VirtualDeviceConfiguration``). CPU logical devices take no
    options, as in TensorFlow."""

    memory_limit: int | None = None
    experimental_priority: int | None = None
    experimental_device_ordinal: int | None = None


def list_logical_devices(device_type: str | None = None) -> list[LogicalDevice]:
    """The devices ops can be placed on, optionally only ``"CPU"`` or ``"GPU"`` ones
    (follows `tf.config.list_logical_devices`). Listing them fixes the logical device
    configuration, as initializing TensorFlow's runtime does.

    >>> ek.config.list_logical_devices("CPU")[0]
    LogicalDevice(name='/device:CPU:0', device_type='CPU')
    """
    devices = list_devices()
    if _device.logical_cpu_count() > 1:
        _device.logical_cpus["used"] = True
    return [
        LogicalDevice(f"/device:{d.device_type}:{d.index}", d.device_type)
        for d in devices
        if device_type is None or d.device_type == device_type.upper()
    ]


def _physical_cpu(device, where: str) -> None:
    if not isinstance(device, PhysicalDevice):
        raise ValueError(f"{where}: Unrecognized device: {device!r}")
    if device.device_type == "GPU":
        raise NotImplementedError(
            f"{where}: logical GPU devices are not supported; use "
            "ek.config.experimental.set_virtual_gpus(n) (or EAGERKERNEL_VIRTUAL_GPUS=n) for "
            "NumPy-backed virtual GPUs."
        )
    if device.device_type != "CPU" or device.name != "/physical_device:CPU:0":
        raise ValueError(f"{where}: Unrecognized device: {device!r}")


def set_logical_device_configuration(device, logical_devices) -> None:
    """Splits the physical CPU into ``len(logical_devices)`` logical CPUs ``/cpu:0`` ...,
    each NumPy-backed with its own identity (follows
    `tf.config.set_logical_device_configuration`; older name
    ``ek.config.experimental.set_virtual_device_configuration``). ``None`` or ``[]`` returns
    to one CPU.

    Args:
        device: the `PhysicalDevice` of the CPU (``list_physical_devices("CPU")[0]``).
        logical_devices: a list of `LogicalDeviceConfiguration`, without options for a CPU.

    Raises:
        ValueError: an unknown device; a memory limit, priority or ordinal on a CPU logical
            device (TensorFlow's messages).
        NotImplementedError: a GPU (use ``set_virtual_gpus``).
        RuntimeError: a new configuration after logical devices were listed or used:
            "Virtual devices cannot be modified after being initialized".
    """
    where = "set_logical_device_configuration"
    _physical_cpu(device, where)
    configs = list(logical_devices or [])
    for c in configs:
        if not isinstance(c, LogicalDeviceConfiguration):
            raise TypeError(
                f"{where}: logical_devices must be LogicalDeviceConfiguration objects, got "
                f"{type(c).__name__}."
            )
        if c.memory_limit is not None:
            raise ValueError(
                "Setting memory limit on CPU virtual devices is currently not supported"
            )
        if c.experimental_priority is not None:
            raise ValueError(
                "Setting experimental_priority on CPU virtual devices is currently not supported"
            )
        if c.experimental_device_ordinal is not None:
            raise ValueError(
                "Setting experimental_device_ordinal on CPU virtual devices is currently not "
                "supported"
            )
    _device.set_logical_cpus(max(1, len(configs)))
    _logical_configs[device] = configs or None


_logical_configs: dict = {}


def get_logical_device_configuration(device):
    """The list of `LogicalDeviceConfiguration` set for ``device``, or None (follows
    `tf.config.get_logical_device_configuration`)."""
    _physical_cpu(device, "get_logical_device_configuration")
    return _logical_configs.get(device)


# [True] while `run_functions_eagerly(True)`: `ek.function` then runs its Python code (a list,
# so that the function module reads the flag through one cell on every call).
FUNCTIONS_EAGERLY = [False]


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Makes every `ek.function` run its Python code eagerly, without tracing, for debugging
    (follows `tf.config.run_functions_eagerly`)."""
    FUNCTIONS_EAGERLY[0] = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    """Whether `run_functions_eagerly(True)` is in effect (follows TF)."""
    return FUNCTIONS_EAGERLY[0]


#: TensorFlow 2.0-2.2's names of the two above, still in `tf.config`.
experimental_run_functions_eagerly = run_functions_eagerly
experimental_functions_run_eagerly = functions_run_eagerly


def get_default_device() -> str:
    """The name of the device new tensors go to outside any scope."""
    return context.default_device().name


def num_gpus() -> int:
    """Number of GPUs present, virtual ones included (follows `tfe.num_gpus`)."""
    return sum(1 for d in list_devices() if d.device_type == "GPU")


set_default_device = set_default_device

_OP_DETERMINISM = [False]


def enable_op_determinism() -> None:
    """Makes runs repeatable (follows `tf.config.experimental.enable_op_determinism`): the
    Dataset's parallel stages keep their input order even when given ``deterministic=False``
    (TensorFlow's rule). The CPU ops are deterministic anyway (NumPy's kernels, one order of
    summation); on a real GPU, CuPy's atomic scatter and segment sums are not made so. Seeds
    are `ek.keras.utils.set_random_seed`'s job, as in TensorFlow."""
    _OP_DETERMINISM[0] = True


def op_determinism_enabled() -> bool:
    """Whether `enable_op_determinism` was called."""
    return _OP_DETERMINISM[0]


# `ek.config.experimental` (as `tf.config.experimental`): the calls that change the devices
# themselves. `set_virtual_gpus(n)` must come before the first GPU use.
experimental = types.SimpleNamespace(
    enable_op_determinism=enable_op_determinism,
    free_gpu_memory=free_gpu_memory,
    list_physical_devices=list_physical_devices,
    set_virtual_gpus=set_virtual_gpus,
    set_visible_devices=set_visible_devices,
    get_visible_devices=get_visible_devices,
    set_memory_growth=set_memory_growth,
    get_memory_growth=get_memory_growth,
    # TensorFlow's older names for the logical device calls
    VirtualDeviceConfiguration=LogicalDeviceConfiguration,
    set_virtual_device_configuration=set_logical_device_configuration,
    get_virtual_device_configuration=get_logical_device_configuration,
    list_logical_devices=list_logical_devices,
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

# `ek.config.optimizer` (as `tf.config.optimizer`): the graph-optimizer switches.
optimizer = types.SimpleNamespace(
    get_experimental_options=config_optimizer.get_experimental_options,
    set_experimental_options=config_optimizer.set_experimental_options,
    get_jit=config_optimizer.get_jit,
    set_jit=config_optimizer.set_jit,
)
