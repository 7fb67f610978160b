"""`Strategy.reduce` and `ReplicaContext.all_gather` on host arrays (follows TensorFlow's
cross-device reduction and ``ReplicaContext.all_gather``)."""

from __future__ import annotations

import numpy as np

from .. import nest
from ..core.dispatch import copy_to_device
from ..core.tensor import to_tensor
from .values import ReduceOp

__all__ = ["all_gather", "reduce_host_arrays"]


def reduce_host_arrays(op: ReduceOp, arrays: list, axis, communicator, where: str):
    """This process's replica values ``arrays`` summed (or averaged) over every replica of
    every worker, and with ``axis`` also along that axis of each (MEAN then divides by the
    total length along it). The MEAN of integers is float64, as TensorFlow's true division
    gives it.

    Raises:
        ValueError: ``axis`` is not an axis of the values.
    """
    count = 0
    if axis is not None:
        rank = np.ndim(arrays[0])
        if not -rank <= axis < rank:
            raise ValueError(
                f"{where}: invalid reduction axis {axis} for values of rank {rank} "
                f"(shape {np.shape(arrays[0])}). Received: axis={axis}"
            )
        count = sum(np.shape(a)[axis] for a in arrays)
        arrays = [np.sum(a, axis=axis) for a in arrays]
    total = np.array(arrays[0], copy=True)
    for a in arrays[1:]:
        total = total + a
    replicas = len(arrays)
    if communicator is not None and communicator.size > 1:
        buf = np.ascontiguousarray(np.atleast_1d(total))
        communicator.all_reduce_sum_(buf)
        total = buf.reshape(np.shape(total))
        if axis is not None:
            c = np.array([count], np.int64)
            communicator.all_reduce_sum_(c)
            count = int(c[0])
        replicas *= communicator.size
    dtype = np.asarray(arrays[0]).dtype
    if op is ReduceOp.MEAN:
        n = count if axis is not None else replicas
        if dtype.kind in "iub":
            return np.asarray(total, np.float64) / n
        total = total / np.asarray(n, dtype=total.dtype)
    return np.asarray(total, dtype=dtype)


def all_gather(replica, value, axis: int):
    """`ReplicaContext.all_gather`: each Tensor of ``value`` concatenated along ``axis`` over
    all replicas in replica order; every replica gets the result on its device.

    Raises:
        ValueError: a value of rank 0, or ``axis`` outside its rank.
    """
    where = "ReplicaContext.all_gather"
    flat = [to_tensor(x, None, where) for x in nest.flatten(value)]
    for t in flat:
        rank = t.shape.rank
        if rank == 0 or not -rank <= axis < rank:
            raise ValueError(
                f"{where}: axis {axis} is not an axis of a value of shape {tuple(t.shape)}; "
                f"values must have rank >= 1. Received: axis={axis}"
            )
    strategy = replica.strategy

    def gathered(per_replica: list) -> list:
        out = [
            strategy._gather_tensors(tuple(row[i] for row in per_replica), axis)
            for i in range(len(flat))
        ]
        devices = strategy.extended.devices
        return [[_on(t, devices[r]) for t in out] for r in range(len(per_replica))]

    return nest.pack_sequence_as(value, replica._merge(gathered, flat))


def _on(t, device):
    return t if t._device is device else copy_to_device(t, device)
