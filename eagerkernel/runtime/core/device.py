"""Devices: where a tensor's array lives and which array module computes on it.

A `Device` pairs a name (``"/cpu:0"``, ``"/gpu:0"``) with its array module (``numpy`` or
``cupy``): the backend is chosen by the data, never by ``if backend ==`` inside ops. Each op
takes ``xp`` from its inputs' device and passes it to its forward function.

This module holds the registry and the scope stack that `ek.device` pushes. Ops read the scope
only on their slow path (`tape.SLOW` is non-empty while a scope or a tape is active), so a
program without scopes or tapes pays nothing for them.
"""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass

import numpy as np

from . import context

__all__ = [
    "Device",
    "LogicalDevice",
    "current_device",
    "free_gpu_memory",
    "get_device",
    "get_soft_device_placement",
    "list_devices",
    "logical_cpu_count",
    "physical_gpus",
    "set_logical_cpus",
    "set_soft_device_placement",
    "set_virtual_gpus",
    "set_visible_gpus",
    "visible_gpus",
]


# This process's job and task in TensorFlow's device names (`set_task`).
_task = ["localhost", 0]


class Device:
    """One device: its canonical name, its array module and how to synchronize it.

    Attributes:
        name: canonical lower-case name, ``"/cpu:0"`` or ``"/gpu:N"``.
        full_name: TensorFlow's fully qualified name, as `Tensor.device` reports it:
            ``"/job:localhost/replica:0/task:0/device:CPU:0"``; in a process of a
            multi-worker cluster, its job and task (`set_task`), e.g.
            ``"/job:worker/replica:0/task:1/device:CPU:0"``.
        device_type: ``"CPU"`` or ``"GPU"`` (TensorFlow's spelling).
        index: the ordinal N among this process's devices of its type (TensorFlow's logical
            device index).
        ordinal: the CUDA device ordinal behind a real GPU: ``index``, unless
            `set_visible_gpus` hid GPUs before it (then logical ``/gpu:0`` may be CUDA
            device 1, as TensorFlow numbers the visible GPUs).
        xp: the array module that computes on this device (``numpy`` or ``cupy``).
        virtual: True for a NumPy-backed GPU made by ``EAGERKERNEL_VIRTUAL_GPUS``; every listing
            labels these, so a virtual GPU is never mistaken for a real one.
    """

    __slots__ = ("device_type", "full_name", "index", "name", "ordinal", "virtual", "xp")

    def __init__(
        self, device_type: str, index: int, xp, virtual: bool = False, ordinal: int | None = None
    ):
        self.device_type = device_type
        self.index = index
        self.ordinal = index if ordinal is None else ordinal
        self.name = f"/{device_type.lower()}:{index}"
        job, task = _task
        self.full_name = f"/job:{job}/replica:0/task:{task}/device:{device_type}:{index}"
        self.xp = xp
        self.virtual = virtual

    def synchronize(self) -> None:
        """Waits until queued work on this device is done (a no-op on NumPy devices)."""
        if self.xp is not np:
            self.cuda_device().synchronize()

    def cuda_device(self):
        """CuPy's ``cuda.Device`` of this (real) GPU, also a context manager that makes it
        current."""
        return self.xp.cuda.Device(self.ordinal)

    def describe(self) -> str:
        """A one-line description for listings and banners, e.g. ``/gpu:0 (virtual, NumPy)``."""
        if self.device_type == "CPU":
            return f"{self.name} (NumPy {np.__version__})"
        if self.virtual:
            return f"{self.name} (virtual GPU, NumPy-backed)"
        return f"{self.name} (CUDA, CuPy)"

    def __repr__(self) -> str:
        return f"<Device {self.describe()}>"


CPU = Device("CPU", 0, np)


@dataclass(frozen=True)
class LogicalDevice:
    """A device the runtime places ops on, as `ek.config.list_logical_devices` lists it
    (follows `tf.config.LogicalDevice`); `ek.device` scopes and strategies take it where they
    take a device name."""

    name: str
    device_type: str


def set_task(job: str, task: int) -> None:
    """Names this process's devices as task ``task`` of job ``job`` (TensorFlow's form under
    a multi-worker strategy: ``"/job:worker/replica:0/task:1/device:CPU:0"``); ``("localhost",
    0)`` is the default. Names given as input may use any job and task: they are matched by
    device type and index."""
    _task[:] = [str(job), int(task)]
    for d in (CPU, *_devices.values()):
        d.full_name = f"/job:{job}/replica:0/task:{int(task)}/device:{d.device_type}:{d.index}"


_devices: dict[str, Device] = {"/cpu:0": CPU}
# [made, virtual count override or None, a GPU was handed out, why no CUDA GPU (or ""),
#  physical GPUs (count, once made), visible physical ordinals (None: all)]
_gpus = {
    "made": False,
    "virtual": None,
    "used": False,
    "why": "",
    "physical": 0,
    "visible": None,
}
# Soft device placement (TensorFlow's default): [enabled], and the absent names warned about.
_soft = [True]
_soft_warned: set[str] = set()


def set_soft_device_placement(enabled: bool) -> None:
    """Turns soft device placement on or off (follows `tf.config.set_soft_device_placement`).

    On (the default, as in TensorFlow), a `device` scope naming an absent device places its
    ops on the CPU instead, with one warning per device name. Off, such a scope raises
    RuntimeError naming the devices present.
    """
    _soft[0] = bool(enabled)


def get_soft_device_placement() -> bool:
    """Whether soft device placement is on (follows `tf.config.get_soft_device_placement`)."""
    return _soft[0]


def _cuda_devices() -> tuple[object, int, str]:
    """CuPy and the number of CUDA devices it finds, or (None, 0, the reason there are none)."""
    try:
        import cupy
    except Exception as exc:  # ImportError, or a broken CUDA installation
        return None, 0, f"CuPy is not installed or does not import ({type(exc).__name__}: {exc})"
    try:
        count = int(cupy.cuda.runtime.getDeviceCount())
    except Exception as exc:  # CUDARuntimeError: no driver, insufficient driver, ...
        return None, 0, f"CuPy found no CUDA device ({type(exc).__name__}: {exc})"
    if count == 0:
        return None, 0, "CuPy found no CUDA device"
    return cupy, count, ""


def _virtual_count() -> int:
    if _gpus["virtual"] is not None:
        return _gpus["virtual"]
    raw = os.environ.get("EAGERKERNEL_VIRTUAL_GPUS", "0").strip() or "0"
    try:
        return max(0, int(raw))
    except ValueError:
        raise ValueError(f"EAGERKERNEL_VIRTUAL_GPUS must be a whole number, got {raw!r}.") from None


def _ensure_virtual_gpus() -> None:
    """Creates the GPU devices on first use: N virtual ones if asked for, else CuPy's."""
    if _gpus["made"]:
        return
    count = _virtual_count()
    if count:
        # Virtual GPUs replace real ones, so tests see the same devices on every machine.
        xp, n, virtual = np, count, True
        _gpus["why"] = ""
    else:
        xp, n, why = _cuda_devices()
        virtual = False
        _gpus["why"] = why
    _gpus["physical"] = n
    visible = _gpus["visible"]
    ordinals = range(n) if visible is None else [k for k in visible if k < n]
    for i, k in enumerate(ordinals):  # visible GPUs are numbered from 0, as in TensorFlow
        _devices[f"/gpu:{i}"] = Device("GPU", i, xp, virtual=virtual, ordinal=k)
    _gpus["made"] = True
    if len(_devices) > 1:  # scopes opened while the CPU was alone can move tensors now
        context.activate_device_scopes()


def set_virtual_gpus(count: int) -> None:
    """Makes ``count`` NumPy-backed virtual GPUs (``/gpu:0`` ...), or none with 0.

    The call form of ``EAGERKERNEL_VIRTUAL_GPUS``; it overrides the variable. Valid until the
    first tensor or scope uses a GPU (afterwards only the same count is accepted), as TF's
    virtual device configuration is. Virtual GPUs replace any real CUDA GPUs and are labelled
    virtual everywhere.

    Raises:
        RuntimeError: if a GPU was already used and ``count`` differs from the current one.
    """
    count = int(count)
    if count < 0:
        raise ValueError(f"set_virtual_gpus: count must be >= 0, got {count}.")
    if _gpus["made"]:
        gpus = [d for d in _devices.values() if d.device_type == "GPU"]
        if len(gpus) == count and all(d.virtual for d in gpus):
            return
        if _gpus["used"]:
            raise RuntimeError(
                "set_virtual_gpus: GPUs cannot be changed after one has been used; call it "
                "before the first GPU tensor or scope (or set EAGERKERNEL_VIRTUAL_GPUS)."
            )
        for name in [n for n, d in _devices.items() if d.device_type == "GPU"]:
            del _devices[name]
    _gpus["virtual"] = count
    _gpus["made"] = False
    _ensure_virtual_gpus()


def physical_gpus() -> list[tuple[int, bool]]:
    """``(ordinal, virtual)`` of every GPU present, visible or not (the physical devices)."""
    _ensure_virtual_gpus()
    virtual = _virtual_count() > 0
    return [(k, virtual) for k in range(_gpus["physical"])]


def visible_gpus() -> list[int]:
    """The ordinals of the physical GPUs the runtime places ops on (`set_visible_gpus`)."""
    _ensure_virtual_gpus()
    visible = _gpus["visible"]
    return list(range(_gpus["physical"])) if visible is None else list(visible)


def set_visible_gpus(ordinals) -> None:
    """Makes only the physical GPUs ``ordinals`` visible (what `ek.config.set_visible_devices`
    does for GPUs): they become ``/gpu:0``, ``/gpu:1``, ... in ordinal order, the others get
    no device. The same set again is a no-op.

    Raises:
        ValueError: an ordinal that is not a physical GPU's.
        RuntimeError: the set changes after a GPU was used or the logical devices were
            listed (TensorFlow's "Visible devices cannot be modified after being
            initialized").
    """
    _ensure_virtual_gpus()
    wanted = sorted({int(k) for k in ordinals})
    for k in wanted:
        if not 0 <= k < _gpus["physical"]:
            raise ValueError(f"set_visible_gpus: no physical GPU {k}.")
    if wanted == visible_gpus():
        return
    if _gpus["used"]:
        raise RuntimeError("Visible devices cannot be modified after being initialized")
    for name in [n for n, d in _devices.items() if d.device_type == "GPU"]:
        del _devices[name]
    _gpus["visible"] = None if wanted == list(range(_gpus["physical"])) else wanted
    _gpus["made"] = False
    _ensure_virtual_gpus()


# Logical CPU devices (`set_logical_cpus`): [count, a logical CPU other than /cpu:0 was used]
logical_cpus = {"count": 1, "used": False}


def logical_cpu_count() -> int:
    """How many logical CPU devices there are (``/cpu:0`` ... ``/cpu:N-1``)."""
    return logical_cpus["count"]


def set_logical_cpus(count: int) -> None:
    """Splits the CPU into ``count`` logical devices ``/cpu:0`` ... ``/cpu:count-1``, each
    NumPy-backed with its own identity (what `ek.config.set_logical_device_configuration`
    does for the CPU, as TensorFlow's virtual CPU devices, e.g. for a `MirroredStrategy` over
    ``["cpu:0", "cpu:1"]``). The same count again is a no-op.

    Raises:
        ValueError: ``count`` < 1.
        RuntimeError: the count changes after a logical CPU other than ``/cpu:0`` was used
            or listed (TensorFlow's "Virtual devices cannot be modified after being
            initialized").
    """
    count = int(count)
    if count < 1:
        raise ValueError(f"set_logical_cpus: count must be >= 1, got {count}.")
    if count == logical_cpus["count"]:
        return
    if logical_cpus["used"]:
        raise RuntimeError("Virtual devices cannot be modified after being initialized")
    for name in [n for n, d in _devices.items() if d.device_type == "CPU" and d.index > 0]:
        del _devices[name]
    cpus = {f"/cpu:{i}": Device("CPU", i, np) for i in range(1, count)}
    gpus = {n: d for n, d in _devices.items() if d.device_type == "GPU"}
    _devices.clear()
    _devices.update({"/cpu:0": CPU, **cpus, **gpus})
    logical_cpus["count"] = count


def gpu_unavailable_reason() -> str:
    """Why no real CUDA GPU is present (CuPy missing, no CUDA device), or "" if one is."""
    _ensure_virtual_gpus()
    if any(d.device_type == "GPU" and not d.virtual for d in _devices.values()):
        return ""
    if _gpus["why"]:
        return _gpus["why"]
    return _cuda_devices()[2]


def list_devices() -> list[Device]:
    """All devices present, CPU first."""
    _ensure_virtual_gpus()
    return list(_devices.values())


_NAME = re.compile(
    r"^/?(?:job:[^/]+/)?(?:replica:\d+/)?(?:task:\d+/)?(?:device:)?(cpu|gpu)(?::(\d+))?$",
    re.IGNORECASE,
)


def get_device(spec, soft: bool = False) -> Device:
    """The Device for a TensorFlow-style name.

    Accepts ``"/cpu:0"``, ``"cpu:0"``, ``"CPU"``, ``"/gpu:0"``, ``"gpu:0"``, ``"GPU:0"``,
    ``"/device:GPU:0"`` and ``"/job:localhost/replica:0/task:0/device:CPU:0"``, a Device, or
    a `LogicalDevice` of ``ek.config.list_logical_devices`` (TensorFlow's strategies take
    those, e.g. ``MirroredStrategy(tf.config.list_logical_devices("GPU"))``).
    With ``soft=True`` and soft device placement on, an absent device gives the CPU (and one
    warning per name) instead of the error.

    Raises:
        ValueError: if the name is not a device name.
        RuntimeError: if the device is absent; the message lists the devices present.
    """
    if isinstance(spec, Device):
        return spec
    if isinstance(spec, LogicalDevice):
        spec = spec.name
    match = _NAME.match(str(spec).strip())
    if match is None:
        raise ValueError(
            f"device: cannot parse device name {spec!r}; expected e.g. '/cpu:0' or '/gpu:0'."
        )
    name = f"/{match.group(1).lower()}:{int(match.group(2) or 0)}"
    _ensure_virtual_gpus()
    dev = _devices.get(name)
    if dev is None:
        real = gpu_unavailable_reason() if name.startswith("/gpu") else ""
        if soft and _soft[0]:
            if name not in _soft_warned:
                _soft_warned.add(name)
                gpus = [d for d in _devices.values() if d.device_type == "GPU"]
                kind = " virtual" if gpus and all(d.virtual for d in gpus) else ""
                why = f"{len(gpus)}{kind} GPUs present" if gpus or not real else real
                warnings.warn(
                    f"device {spec!r} is not present ({why}); running on"
                    " /cpu:0 instead (soft device placement; "
                    "ek.config.set_soft_device_placement(False) makes this an error).",
                    RuntimeWarning,
                    stacklevel=3,
                )
            return CPU
        present = ", ".join(d.describe() for d in _devices.values())
        why = ""
        if name.startswith("/gpu"):
            why = (f" No such GPU: {real}." if real else " No such GPU index.") + (
                " eagerkernel's GPU backend needs CuPy and a CUDA device; set"
                " EAGERKERNEL_VIRTUAL_GPUS=N (or ek.config.experimental.set_virtual_gpus(N))"
                " for NumPy-backed virtual GPUs."
            )
        raise RuntimeError(f"device {spec!r} is not present. Devices: {present}.{why}")
    if dev.device_type == "GPU":
        _gpus["used"] = True
    elif dev.index:
        logical_cpus["used"] = True
    return dev


def device_of_array(array) -> Device:
    """The GPU device that owns a CuPy array (used when converting foreign GPU arrays)."""
    index = int(getattr(getattr(array, "device", None), "id", 0))
    return get_device(f"/gpu:{index}")


def current_device() -> Device:
    """The device new tensors are created on: the innermost `ek.device` scope, else the default."""
    scope = context.scope_device()
    return scope if scope is not None else context.default_device()


context.set_default_device(CPU)


class device:
    """Context manager placing ops and new tensors on a device (follows `tf.device`).

    Accepts TensorFlow's names (``"/gpu:0"``, ``"gpu:0"``, ``"/device:GPU:0"``, ``"GPU:0"``,
    ``"/cpu:0"``, ``"/job:localhost/replica:0/task:0/device:GPU:0"``). Inside the scope, ops
    run on that device and inputs from elsewhere are copied there; the copies are
    differentiable. An absent device means the CPU, with one warning per name (TensorFlow's
    soft device placement, on by default). While the scope's device is the only one (a
    CPU-only process), there is nothing to move and ops inside it cost what they cost outside.
    An empty name (``""``) specifies no device field, so, as in TensorFlow, it adds no
    constraint: the enclosing scope (or none) stays in force, and ops inside it run exactly
    as outside.

    Raises:
        ValueError: if the name is not a device name.
        RuntimeError: if the device is absent and soft device placement is off
            (`ek.config.set_soft_device_placement(False)`); the message lists the devices
            present.

    >>> with ek.device("/cpu:0"):
    ...     ek.constant(1.0).device
    '/job:localhost/replica:0/task:0/device:CPU:0'
    """

    def __init__(self, device_name):
        unconstrained = isinstance(device_name, str) and not device_name.strip()
        self._device = None if unconstrained else get_device(device_name, soft=True)

    def __enter__(self):
        if self._device is not None:
            # The only device there is: nothing to move, so the ops inside keep the fast path.
            alone = len(_devices) == 1 and _devices.get(self._device.name) is self._device
            context.push_device(self._device, places=not alone)
        return self

    def __exit__(self, *exc):
        if self._device is not None:
            context.pop_device(self._device)


def free_gpu_memory() -> None:
    """Returns CuPy's cached GPU blocks (device and pinned pools) to the driver.

    Arrays are freed into CuPy's pool as soon as their tensors die; this empties the pool too.
    A no-op when CuPy has not been imported (CPU and virtual GPUs hold no GPU memory).
    """
    import sys

    cupy = sys.modules.get("cupy")
    if cupy is None:
        return
    for d in _devices.values():
        if d.xp is cupy:
            d.synchronize()
    cupy.get_default_memory_pool().free_all_blocks()
    cupy.get_default_pinned_memory_pool().free_all_blocks()


def set_default_device(name) -> None:
    """Sets where new tensors go outside any `device` scope (``None`` means the CPU)."""
    context.set_default_device(CPU if name is None else get_device(name))
