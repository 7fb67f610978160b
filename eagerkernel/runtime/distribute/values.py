"""Distributed values (follows `tf.distribute.DistributedValues`): `PerReplica`, `Mirrored`,
the distributed variables `MirroredVariable` and `SyncOnReadVariable`, and `ReduceOp`.

A distributed variable is one Variable with a component array per replica device. The
component of the replica that is running is the Variable's own array (``_value``/``_device``),
so every op, tape and optimizer reads it as they read any Variable, with no cost on the
dispatch path; the other components wait in ``_components``. The strategy switches all its
distributed variables to a replica (`DistributedVariable._activate`) before that replica runs,
and to the cross-replica view afterwards: a mirrored variable then reads as its first
component (its replicas are equal), a sync-on-read variable as the sum of its components, as
in TensorFlow.
"""

from __future__ import annotations

import enum

import numpy as np

from ..core.dispatch import copy_to_device, stateful
from ..core.tensor import Tensor, make, to_tensor
from ..core.variable import Variable, VariableAggregation, VariableSynchronization
from . import context as dctx

__all__ = [
    "DistributedVariable",
    "Mirrored",
    "MirroredVariable",
    "PerReplica",
    "ReduceOp",
    "SyncOnReadVariable",
]


class ReduceOp(enum.Enum):
    """How values of the replicas combine (follows `tf.distribute.ReduceOp`)."""

    SUM = "SUM"
    MEAN = "MEAN"

    @classmethod
    def parse(cls, value, where: str) -> ReduceOp:
        """``value`` as a ReduceOp: a ReduceOp or ``"SUM"``/``"MEAN"`` (any case)."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str) and value.upper() in ("SUM", "MEAN"):
            return cls(value.upper())
        raise ValueError(
            f"{where}: reduce_op must be ek.distribute.ReduceOp.SUM or MEAN (or 'SUM'/'MEAN'). "
            f"Received: reduce_op={value!r}"
        )


class DistributedValues:
    """Values, one per local replica (follows `tf.distribute.DistributedValues`).

    Attributes:
        values: a tuple, one value per local replica, in replica order.
    """

    __slots__ = ("_values",)
    _kind = "DistributedValues"
    # Python code reads the values by attribute, which a graph function's trace cannot
    # follow: a function that gets one from a stateful call runs eagerly (`Tracer`).
    _opaque_to_traces = True

    def __init__(self, values):
        self._values = tuple(values)
        if not self._values:
            raise ValueError(f"{self._kind}: needs at least one value.")

    @property
    def values(self) -> tuple:
        return self._values

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        items = ",\n".join(f"  {i}: {v!r}" for i, v in enumerate(self._values))
        return f"{self._kind}:{{\n{items}\n}}"

    def __str__(self) -> str:
        # TensorFlow's DistributedValues.__str__: each value's str (``print(loss)`` in the
        # distributed input tutorial shows ``0: tf.Tensor(...)``), __repr__ their reprs
        items = ",\n".join(f"  {i}: {v!s}" for i, v in enumerate(self._values))
        return f"{self._kind}:{{\n{items}\n}}"


class PerReplica(DistributedValues):
    """A different value on each replica: what `Strategy.run` returns and what a distributed
    dataset yields (follows TensorFlow's ``PerReplica``)."""

    __slots__ = ()
    _kind = "PerReplica"


class Mirrored(DistributedValues):
    """The same value on each replica (follows TensorFlow's ``Mirrored``)."""

    __slots__ = ()
    _kind = "Mirrored"


def copy_array(array, device):
    """A copy of ``array`` on ``device`` (never the same array object)."""
    out = copy_to_device(make(array, _device_of(array)), device)._value
    if out is array:
        out = out.copy()
    return out


def _device_of(array):
    from ..core.device import CPU, device_of_array

    return CPU if isinstance(array, (np.ndarray, np.generic)) else device_of_array(array)


class DistributedVariable(Variable):
    """A Variable with a component array on each replica device of a strategy (the base of
    `MirroredVariable` and `SyncOnReadVariable`; follows TensorFlow's ``DistributedVariable``).

    Made by the strategy when a Variable is created in its `scope` (never directly). It is a
    `Variable`: every op accepts it, and a read gives the component of the replica that runs.

    Attributes:
        values: the component values, one Tensor per local replica.
        devices: the replica devices' names in TensorFlow's full form
            (``"/job:localhost/replica:0/task:0/device:GPU:1"``).
        device: the full name of the component that a read gives (the running replica's; in
            cross-replica context the first replica's), as TensorFlow's ``.device``.
    """

    __slots__ = ("_active", "_components", "_replica_devices", "_strategy")

    @classmethod
    def _mirror(cls, primary: Variable, devices: tuple, strategy):
        """A distributed variable from a plain Variable ``primary`` on ``devices[0]``: the
        other components are copies of its value."""
        v = cls.__new__(cls)
        for slot in ("_constraint", "_name", "_trainable", "_uid"):
            setattr(v, slot, getattr(primary, slot))
        v._aggregation = primary.aggregation
        if v._aggregation is VariableAggregation.MEAN and not primary.dtype.is_floating:
            raise ValueError(  # TensorFlow's check, in its words
                "creating distributed tf.Variable with aggregation=MEAN and a non-floating "
                "dtype is not supported, please use a different aggregation or dtype"
            )
        sync = primary.synchronization  # TensorFlow's mirrored variables say ON_WRITE
        v._synchronization = VariableSynchronization.ON_WRITE if cls is MirroredVariable else sync
        v._read = None
        v._value = primary._value
        v._device = primary._device
        v._replica_devices = tuple(devices)
        v._components = [None] + [copy_array(primary._value, d) for d in devices[1:]]
        v._active = 0
        v._strategy = strategy
        v._setup()
        return v

    def _setup(self) -> None:
        """Subclasses' extra state."""

    @property
    def values(self) -> tuple:
        return tuple(make(self._component(r), d) for r, d in enumerate(self._replica_devices))

    @property
    def devices(self) -> tuple:
        return tuple(d.full_name for d in self._replica_devices)

    def _component(self, r: int):
        return self._value if r == self._active else self._components[r]

    def _activate(self, r) -> None:
        """Makes replica ``r``'s component the Variable's own array (``None``: the
        cross-replica view, which is replica 0's component for a mirrored variable)."""
        r = 0 if r is None else r
        if r == self._active:
            return
        comps = self._components
        comps[self._active] = self._value
        self._value = comps[r]
        comps[r] = None
        self._device = self._replica_devices[r]
        self._active = r

    def __repr__(self) -> str:
        head = super().__repr__()
        devices = ", ".join(self.devices)
        return f"<{type(self).__name__} on [{devices}]: {head[1:-1]}>"

    __str__ = __repr__


class MirroredVariable(DistributedVariable):
    """A Variable kept equal on every replica device (follows TensorFlow's
    ``MirroredVariable``; synchronization ``ON_WRITE``).

    Updates: in cross-replica context, `assign`, `assign_add` and `assign_sub` update every
    component (the value is computed once and copied to each device). In a replica context
    (inside `Strategy.run`) they follow the variable's ``aggregation``, as TensorFlow's: with
    ``NONE`` each replica updates its own component (so a value computed the same way by
    every replica keeps them equal); with ``SUM``, ``MEAN`` or ``ONLY_FIRST_REPLICA`` every
    replica must make the same update, whose values (or deltas) are summed, averaged or taken
    from the first replica, and the result updates every component. Optimizers update every
    component from the all-reduced gradients. In cross-replica context a read gives the first
    replica's component.
    """

    __slots__ = ()

    def _sync_from_active(self) -> None:
        """Copies the active component to every other one."""
        for r, d in enumerate(self._replica_devices):
            if r != self._active:
                self._components[r] = copy_array(self._value, d)

    def _update(self, update, value, read_value: bool):
        replica = dctx.current_replica()
        if replica is None or self.aggregation is VariableAggregation.NONE:
            update(self, value, read_value=False)
            if replica is None:
                self._sync_from_active()
        else:
            value = to_tensor(value, self._value.dtype, f"MirroredVariable.{update.__name__}")
            replica._merge(lambda per: self._aggregated_update(update, replica, per), value)
        return self if read_value else None

    def _aggregated_update(self, update, replica, per: list) -> list:
        """In cross-replica context: the replicas' values ``per`` combined by the
        aggregation (over all workers), applied to every component."""
        ext = replica.strategy.extended
        if self.aggregation is VariableAggregation.ONLY_FIRST_REPLICA:
            first = ext.worker_index * ext.num_local_replicas == 0
            rows = [[p if first and r == 0 else p * 0] for r, p in enumerate(per)]
            op = ReduceOp.SUM
        else:
            rows, op = [[p] for p in per], ReduceOp[self.aggregation.name]
        value = ext.all_reduce_lists(op, rows)[0][0]
        update(self, value, read_value=False)
        self._sync_from_active()
        return [None] * len(per)

    @stateful  # replayed by graph functions, as Variable's
    def assign(self, value, use_locking=False, name=None, read_value=True):
        """Assigns every component (cross-replica context) or, in a replica context, as the
        aggregation says; see the class docstring. Raises ValueError for a shape or dtype
        mismatch."""
        return self._update(Variable.assign, value, read_value)

    @stateful  # replayed by graph functions, as Variable's
    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        """Adds ``delta`` to every component (cross-replica) or as the aggregation says."""
        return self._update(Variable.assign_add, delta, read_value)

    @stateful  # replayed by graph functions, as Variable's
    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        """Subtracts ``delta`` from every component (cross-replica) or as the aggregation
        says."""
        return self._update(Variable.assign_sub, delta, read_value)


class SyncOnReadVariable(DistributedVariable):
    """A Variable each replica updates on its own, read as the sum of the replicas'
    components outside them (follows TensorFlow's ``SyncOnReadVariable`` with
    ``VariableAggregation.SUM``): what metrics keep their state in.

    In a replica context reads and updates touch the replica's component. In cross-replica
    context the Variable reads as the sum of every replica's component, this process's and,
    under `MultiWorkerMirroredStrategy`, every worker's: when the strategy leaves the
    replicas it all-reduces across workers the local sums of the sync-on-read variables
    written in a replica since (one fused collective, in creation order),
    so, as in TensorFlow, every worker must run the same steps; the others keep their last
    sum. A value written in cross-replica context (an assignment, `reset_state`, a restore)
    is the same on every worker; it becomes the chief's first component and every other
    component becomes zero, so the sum over all replicas and workers is the value written.
    """

    __slots__ = ("_cross", "_entered", "_last_sum", "_was_written")

    def _setup(self) -> None:
        self._cross = None
        self._last_sum = None  # the host value of the sum over all workers, when last known
        # Writes in a replica view (every write gives the Variable a new array, whether
        # through `assign` or a metric's update): the component array the replica started
        # with, and whether an earlier replica's component changed since the cross view.
        self._entered = None
        self._was_written = False

    def _written_in_replicas(self) -> bool:
        """True if a replica's component changed since the variable left the cross view."""
        return self._was_written or (self._active is not None and self._value is not self._entered)

    def _activate(self, r) -> None:
        if r == self._active:
            return
        if self._active is not None and self._value is not self._entered:
            self._was_written = True
        self._leave()
        if r is None:
            comm = self._strategy.extended.communicator
            if comm is not None and comm.size > 1 and self._last_sum is not None:
                # not written in a replica since the last sum over the workers: still that
                self._set_cross(np.array(self._last_sum, copy=True))
            else:
                self._set_cross(self._local_sum())
        else:
            self._value = self._entered = self._components[r]
            self._components[r] = None
            self._device = self._replica_devices[r]
            self._active = r

    def _leave(self) -> None:
        """Puts the Variable's own array back among the components (the active replica's,
        or, after a write in cross-replica context, the value written: see the class)."""
        comps = self._components
        if self._active is None:
            if self._value is not self._cross:  # written there: keep the sum
                self._last_sum = np.array(_host(self._value), copy=True)
                chief = self._strategy.extended.worker_index == 0
                comps[0] = self._value if chief else self._zeros_on(0)
                for k in range(1, len(comps)):
                    comps[k] = self._zeros_on(k)
                if chief and self._device is not self._replica_devices[0]:
                    comps[0] = copy_array(self._value, self._replica_devices[0])
        else:
            comps[self._active] = self._value

    def _local_sum(self) -> np.ndarray:
        """The sum of this process's components, in replica order, on the host."""
        comps = self._components
        total = np.array(_host(comps[0]), copy=True)
        for c in comps[1:]:
            total = total + _host(c)
        return np.asarray(total, dtype=_host(comps[0]).dtype)

    def _set_cross(self, total: np.ndarray) -> None:
        """Enters the cross-replica view, reading as ``total`` (a host array)."""
        device = self._replica_devices[0]
        value = copy_array(total, device) if device.xp is not np else total
        if not np.shape(value):
            value = value[()] if hasattr(value, "shape") else value
        self._value = self._cross = value
        self._device = device
        self._active = None
        self._last_sum = total
        self._entered = None
        self._was_written = False

    def _zeros_on(self, r: int):
        d = self._replica_devices[r]
        value = self._value
        zeros = np.zeros(np.shape(value), dtype=_host(value).dtype)
        return zeros if d.xp is np else copy_array(zeros, d)

    def _component(self, r: int):
        if self._active is None:
            return self._components[r]
        return self._value if r == self._active else self._components[r]


def sync_on_read_across_workers(variables: list, communicator) -> None:
    """Moves the sync-on-read ``variables`` (all in a replica view) to the cross-replica view,
    reading as the sum over every worker's replicas: the local sums all-reduced in one fused
    buffer per dtype (every worker makes the same call with the same variables: those its
    replicas wrote, in creation order, never a set that depends on what the garbage
    collector freed)."""
    from .collectives import buckets

    for v in variables:
        v._leave()
    local = [v._local_sum() for v in variables]
    sums = [np.atleast_1d(a) for a in local]
    for bucket in buckets(sums, limit=2**62):
        flat = np.ascontiguousarray(np.concatenate([sums[i].ravel() for i in bucket]))
        communicator.all_reduce_sum_(flat)
        offset = 0
        for i in bucket:
            v = variables[i]
            size = sums[i].size
            v._set_cross(flat[offset : offset + size].reshape(np.shape(local[i])))
            offset += size


def _host(array):
    from .collectives import to_host

    return to_host(array)


def select_replica(r: int, structure):
    """Replica ``r``'s part of ``structure``: the ``r``-th value of each `DistributedValues`."""
    from .. import nest

    if isinstance(structure, DistributedValues):
        return structure.values[r]
    return nest.map_structure(
        lambda x: x.values[r] if isinstance(x, DistributedValues) else x,
        structure,
    )


def regroup(per_replica: list):
    """One structure from the replicas' structures: leaves that differ become `PerReplica`,
    leaves that are one object stay as they are (TensorFlow's ``regroup``)."""
    from .. import nest

    if len(per_replica) == 1:
        return per_replica[0]
    first = per_replica[0]
    if isinstance(first, (Tensor, np.ndarray)) or not isinstance(first, (list, tuple, dict)):
        if all(x is first for x in per_replica):
            return first
        return PerReplica(per_replica)
    return nest.map_structure(
        lambda *xs: xs[0] if all(x is xs[0] for x in xs) else PerReplica(xs), *per_replica
    )
