"""The concrete strategies (follow `tf.distribute`'s): the default strategy,
`OneDeviceStrategy`, `MirroredStrategy` (with its cross-device ops `NcclAllReduce`,
`HierarchicalCopyAllReduce`, `ReductionToOneDevice`) and `CentralStorageStrategy`, built on
``strategy.py``'s `Strategy` and `StrategyExtended`.
"""

from __future__ import annotations

import contextlib

from ..core.device import CPU, current_device, get_device, list_devices
from ..core.device import device as device_scope
from ..core.dispatch import copy_to_device
from ..core.tensor import make, to_tensor
from ..core.variable import (
    Variable,
)
from . import context as dctx
from .strategy import OWNED, Strategy, StrategyExtended

__all__ = [
    "CentralStorageStrategy",
    "DefaultStrategy",
    "HierarchicalCopyAllReduce",
    "MirroredStrategy",
    "NcclAllReduce",
    "OneDeviceStrategy",
    "ReductionToOneDevice",
    "default_devices",
]


class _DefaultExtended(StrategyExtended):
    @property
    def devices(self):
        return (current_device(),)

    @devices.setter
    def devices(self, value):
        pass

    def variable_created_in_scope(self, v) -> bool:
        """True for a variable no strategy's scope created (TensorFlow's default strategy)."""
        return OWNED.get(id(v)) is not v


class DefaultStrategy(Strategy):
    """The strategy in effect outside every scope: one replica on the current device, plain
    variables (TensorFlow's default strategy)."""

    def __init__(self):
        super().__init__(_DefaultExtended(self, (CPU,), mirror=False))

    def run(self, fn, args=(), kwargs=None, options=None):
        """Calls ``fn(*args, **kwargs)`` once, here."""
        if options is not None:
            raise NotImplementedError("Strategy.run: options is not supported.")
        return fn(*args, **(kwargs or {}))

    @contextlib.contextmanager
    def scope(self):
        """The default strategy's scope: changes nothing."""
        yield self


class OneDeviceStrategy(Strategy):
    """Runs on one device: variables are created and replica functions run there (follows
    `tf.distribute.OneDeviceStrategy`).

    Args:
        device: a device name, e.g. ``"/gpu:0"`` or ``"/cpu:0"``.

    Raises:
        RuntimeError: the device is absent (the devices present are listed).

    >>> strategy = ek.distribute.OneDeviceStrategy("/cpu:0")
    >>> with strategy.scope():
    ...     v = ek.Variable(1.0)
    >>> strategy.run(lambda: v * 2).numpy()
    np.float32(2.0)
    """

    def __init__(self, device):
        super().__init__(StrategyExtended(self, (get_device(device),), mirror=False))


def default_devices(all_cpus: bool = False) -> tuple:
    """Every GPU; without one, the CPU, or with ``all_cpus`` every logical CPU (MirroredStrategy,
    as TensorFlow's ``all_local_devices``: two after `set_logical_device_configuration` split
    the CPU in two, as TensorFlow's distributed input tutorial does)."""
    devices = list_devices()
    gpus = [d for d in devices if d.device_type == "GPU"]
    if gpus:
        return tuple(gpus)
    cpus = [d for d in devices if d.device_type == "CPU"]
    return tuple(cpus) if all_cpus and len(cpus) > 1 else (CPU,)


class NcclAllReduce:
    """Cross-device reduction by NCCL (follows `tf.distribute.NcclAllReduce`); needs real
    CUDA devices. ``num_packs`` is accepted with its default only."""

    def __init__(self, num_packs: int = 1):
        if num_packs != 1:
            raise NotImplementedError("NcclAllReduce: only num_packs=1 is supported.")


class HierarchicalCopyAllReduce:
    """Cross-device reduction that gathers the values on one device along a hierarchy and
    copies the sum back (follows `tf.distribute.HierarchicalCopyAllReduce`, TensorFlow's
    DGX-1 topology algorithm). Its sum is the same as `ReductionToOneDevice`'s, which carries
    it here (the NumPy reduction on the host, for any devices); only the path differs in
    TensorFlow. ``num_packs`` is accepted with its default only.

    Raises:
        ValueError: ``num_packs < 0``. NotImplementedError: ``num_packs`` other than 1.
    """

    def __init__(self, num_packs: int = 1):
        if num_packs < 0:
            raise ValueError(
                f"HierarchicalCopy requires num_packs >= 0, but {num_packs} is specified"
            )
        if num_packs != 1:
            raise NotImplementedError("HierarchicalCopyAllReduce: only num_packs=1 is supported.")


class ReductionToOneDevice:
    """Cross-device reduction by summing on the host (follows
    `tf.distribute.ReductionToOneDevice`); the NumPy reduction, for any devices."""

    def __init__(self, reduce_to_device=None, accumulation_fn=None):
        if reduce_to_device is not None or accumulation_fn is not None:
            raise NotImplementedError(
                "ReductionToOneDevice: reduce_to_device and accumulation_fn are not supported."
            )


class MirroredStrategy(Strategy):
    """Synchronous data parallelism on the devices of one machine (follows
    `tf.distribute.MirroredStrategy`).

    One replica per device; variables created in `scope` are mirrored on every device;
    `run` calls the step on each replica with its part of the batch; optimizers sum the
    replicas' gradients (NCCL between real CUDA GPUs, a NumPy reduction on the CPU and on
    virtual GPUs) and apply the same update on every replica.

    Args:
        devices: device names or `LogicalDevice` objects; default (None or an empty list)
            every GPU (real, or virtual with ``EAGERKERNEL_VIRTUAL_GPUS``), else every
            logical CPU (one unless `ek.config.set_logical_device_configuration` split it).
        cross_device_ops: None (NCCL where every device is a CUDA GPU, else the NumPy
            reduction), `NcclAllReduce()`, `HierarchicalCopyAllReduce()` or
            `ReductionToOneDevice()` (both the NumPy reduction).

    Raises:
        ValueError: duplicate devices; NcclAllReduce on devices that are not CUDA GPUs.
        RuntimeError: a device that is absent.

    >>> strategy = ek.distribute.MirroredStrategy(["/cpu:0"])
    >>> strategy.num_replicas_in_sync
    1
    """

    def __init__(self, devices=None, cross_device_ops=None):
        # An empty list means the default devices, as in TensorFlow (its GPU guide passes
        # `list_logical_devices("GPU")`, empty on a machine without GPUs).
        devs = tuple(get_device(d) for d in devices or ()) or default_devices(all_cpus=True)
        names = [d.name for d in devs]
        if len(set(names)) != len(names):
            raise ValueError(f"MirroredStrategy: duplicate devices in {names}.")
        super().__init__(StrategyExtended(self, devs))
        self._set_cross_device_ops(cross_device_ops)

    def _set_cross_device_ops(self, ops) -> None:
        from .collectives import NcclReducer, NumpyReducer, nccl_available

        devs = self.extended.devices
        if ops is None:
            return
        if isinstance(ops, NcclAllReduce):
            if not all(d.device_type == "GPU" and not d.virtual for d in devs):
                raise ValueError(
                    f"{type(self).__name__}: NcclAllReduce needs CUDA GPUs; the devices are "
                    f"{[d.describe() for d in devs]}."
                )
            if not nccl_available():
                raise ValueError(f"{type(self).__name__}: CuPy has no NCCL support here.")
            self.extended._reducer = NcclReducer(devs) if len(devs) > 1 else NumpyReducer()
        elif isinstance(ops, (ReductionToOneDevice, HierarchicalCopyAllReduce)):
            self.extended._reducer = NumpyReducer()
        else:
            raise NotImplementedError(
                f"{type(self).__name__}: cross_device_ops={ops!r} is not supported (None, "
                "NcclAllReduce(), HierarchicalCopyAllReduce() or ReductionToOneDevice())."
            )


class _CentralStorageExtended(StrategyExtended):
    """`CentralStorageStrategy`'s machinery: replicas on the compute devices, one copy of each
    variable on the parameter device. A replica's ops read a variable through a
    differentiable copy to its device (as any op in a device scope does), so its gradients
    arrive on the parameter device; `apply_reduced` sums them there and updates once."""

    def __init__(self, strategy, devices, parameter_device):
        super().__init__(strategy, devices, mirror=False)
        self.parameter_device = parameter_device

    @property
    def parameter_devices(self) -> tuple:
        return (self.parameter_device.full_name,)

    def gradient_listener(self):
        return None  # nothing to all-reduce early: the sum is taken on one device

    def create_variable(self, next_creator, **kwargs):
        run, replica, existing = self._replica_zero_variable()
        if existing is not None:
            return existing
        with device_scope(self.parameter_device):
            v = next_creator(**kwargs)
        if self.replicated and type(v) is Variable and not dctx.MIRRORED:
            dctx.MIRRORED.append(True)  # optimizers ask `distribute.context` to merge updates
        if run is not None and replica is not None:
            run["created"].append(v)
        return v

    def update_replicas(self, optimizer, per_replica_pairs: list):
        """Applies replica 0's pairs (the summed gradients) once, each gradient moved to its
        variable's device: there is one copy of each variable."""
        name = f"{type(optimizer).__name__}.apply_gradients"
        pairs = []
        for g, v in per_replica_pairs[0]:
            if g is not None:
                g = to_tensor(g, v._value.dtype, name)
                if g._device is not v._device:
                    g = copy_to_device(g, v._device)
            pairs.append((g, v))
        return optimizer._apply(pairs, ())

    def apply_reduced(self, optimizer, per_replica_pairs: list):
        """Sums each variable's gradients over the replicas on the variable's device (the
        parameter device) and applies the sums once."""
        variables = [v for _, v in per_replica_pairs[0]]
        name = f"{type(optimizer).__name__}.apply_gradients"
        for pairs in per_replica_pairs[1:]:
            others = [v for _, v in pairs]
            if len(others) != len(variables) or any(a is not b for a, b in zip(others, variables)):
                raise ValueError(f"{name}: the replicas passed different variables.")
        summed = []
        for i, v in enumerate(variables):
            grads = [pairs[i][0] for pairs in per_replica_pairs]
            if all(g is None for g in grads):
                summed.append((None, v))
                continue
            if any(g is None for g in grads):
                raise ValueError(f"{name}: a gradient is None on some replicas only.")
            total = None
            for g in grads:
                g = to_tensor(g, v._value.dtype, name)
                if g._device is not v._device:
                    g = copy_to_device(g, v._device)
                total = g._value if total is None else total + g._value
            summed.append((make(total, v._device), v))
        self.collective_stats["steps"] += 1
        return optimizer._apply(summed, ())


class CentralStorageStrategy(Strategy):
    """Synchronous training with the variables in one place (follows
    `tf.distribute.experimental.CentralStorageStrategy`): one replica per compute device, each
    variable created in `scope` kept once on the parameter device; replicas read it through a
    differentiable copy, and an optimizer sums the replicas' gradients on the parameter device
    and updates the variable once.

    Args:
        compute_devices: device names for the replicas; default every GPU (real, or virtual
            with ``EAGERKERNEL_VIRTUAL_GPUS``), else the CPU.
        parameter_device: where the variables live; default the only compute device if there
            is one, else the CPU (TensorFlow's defaults).

    Raises:
        ValueError: duplicate or no compute devices. RuntimeError: a device that is absent.

    >>> strategy = ek.distribute.experimental.CentralStorageStrategy(["/cpu:0"])
    >>> with strategy.scope():
    ...     v = ek.Variable(1.0)
    >>> strategy.num_replicas_in_sync, v.device
    (1, '/job:localhost/replica:0/task:0/device:CPU:0')
    """

    def __init__(self, compute_devices=None, parameter_device=None):
        devs = (
            default_devices()
            if compute_devices is None
            else tuple(get_device(d) for d in compute_devices)
        )
        if not devs:
            raise ValueError("CentralStorageStrategy: compute_devices must not be empty.")
        names = [d.name for d in devs]
        if len(set(names)) != len(names):
            raise ValueError(f"CentralStorageStrategy: duplicate compute devices in {names}.")
        if parameter_device is None:
            param = devs[0] if len(devs) == 1 else CPU
        else:
            param = get_device(parameter_device)
        super().__init__(_CentralStorageExtended(self, devs, param))
