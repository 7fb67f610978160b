"""Distributed values (follows `tf.distribute.DistributedValues`): `PerReplica`, `Mirrored`,
`MirroredVariable`, and the `ReduceOp` enum.

A `MirroredVariable` is one Variable with a component array per replica device. The component
of the replica that is running is the Variable's own array (``_value``/``_device``), so every op,
tape and optimizer reads it as they read any Variable, with no cost on the dispatch path; the
other components wait in ``_components``. The strategy switches all its mirrored variables to a
replica (`MirroredVariable._activate`) before that replica runs, and back to the first replica
(the primary) afterwards: in cross-replica context a mirrored variable reads as its primary
component, as in TensorFlow.
"""

from __future__ import annotations

import enum

import numpy as np

from ..core.dispatch import copy_to_device, stateful
from ..core.tensor import Tensor, make
from ..core.variable import Variable
from . import context as dctx

__all__ = ["Mirrored", "MirroredVariable", "PerReplica", "ReduceOp"]


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


class MirroredVariable(Variable):
    """A Variable kept on every replica device of a strategy, updated in sync (follows
    TensorFlow's ``MirroredVariable``).

    Made by the strategy when a Variable is created in its `scope` (never directly). It is a
    `Variable`: every op accepts it, and reads give the component of the replica that runs
    (the primary, replica 0, in cross-replica context).

    Updates: in cross-replica context, `assign`, `assign_add` and `assign_sub` update every
    component (the value is computed once and copied to each device); in a replica context
    (inside `Strategy.run`), they update the replica's own component, so a value computed the
    same way by every replica keeps them equal. Optimizers update every component from the
    all-reduced gradients.

    Attributes:
        values: the component values, one Tensor per local replica.
        devices: the replica devices' names.
    """

    __slots__ = ("_active", "_components", "_replica_devices", "_strategy")

    @classmethod
    def _mirror(cls, primary: Variable, devices: tuple, strategy) -> MirroredVariable:
        """A MirroredVariable from a plain Variable ``primary`` on ``devices[0]``: the other
        components are copies of its value."""
        v = cls.__new__(cls)
        for slot in ("_constraint", "_name", "_trainable", "_uid"):
            setattr(v, slot, getattr(primary, slot))
        v._read = None
        v._value = primary._value
        v._device = primary._device
        v._replica_devices = tuple(devices)
        v._components = [None] + [copy_array(primary._value, d) for d in devices[1:]]
        v._active = 0
        v._strategy = strategy
        return v

    @property
    def values(self) -> tuple:
        return tuple(make(self._component(r), d) for r, d in enumerate(self._replica_devices))

    @property
    def devices(self) -> tuple:
        return tuple(d.name for d in self._replica_devices)

    def _component(self, r: int):
        return self._value if r == self._active else self._components[r]

    def _activate(self, r: int) -> None:
        """Makes replica ``r``'s component the Variable's own array."""
        if r == self._active:
            return
        comps = self._components
        comps[self._active] = self._value
        self._value = comps[r]
        comps[r] = None
        self._device = self._replica_devices[r]
        self._active = r

    def _sync_from_active(self) -> None:
        """Copies the active component to every other one."""
        for r, d in enumerate(self._replica_devices):
            if r != self._active:
                self._components[r] = copy_array(self._value, d)

    @stateful  # replayed by graph functions, as Variable's
    def assign(self, value, use_locking=False, name=None, read_value=True):
        """Assigns every component (cross-replica context) or this replica's (replica context);
        see the class docstring. Raises ValueError for a shape or dtype mismatch."""
        super().assign(value, read_value=False)
        if dctx.current_replica() is None:
            self._sync_from_active()
        return self if read_value else None

    @stateful  # replayed by graph functions, as Variable's
    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        """Adds ``delta`` to every component (cross-replica) or to this replica's."""
        super().assign_add(delta, read_value=False)
        if dctx.current_replica() is None:
            self._sync_from_active()
        return self if read_value else None

    @stateful  # replayed by graph functions, as Variable's
    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        """Subtracts ``delta`` from every component (cross-replica) or from this replica's."""
        super().assign_sub(delta, read_value=False)
        if dctx.current_replica() is None:
            self._sync_from_active()
        return self if read_value else None

    def __repr__(self) -> str:
        head = super().__repr__()
        devices = ", ".join(self.devices)
        return f"<MirroredVariable on [{devices}]: {head[1:-1]}>"

    __str__ = __repr__


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
