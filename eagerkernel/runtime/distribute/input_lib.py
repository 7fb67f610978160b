"""Distributed input (follows `tf.distribute`'s input API): `InputContext`, `InputOptions`,
the datasets `Strategy.experimental_distribute_dataset` and
`Strategy.distribute_datasets_from_function` return, and `AutoShardPolicy`.

`experimental_distribute_dataset(dataset)`: ``dataset`` yields *global* batches. Each worker
iterates the whole dataset and keeps its own slice of every batch (sharding by data, as
TensorFlow's ``AutoShardPolicy.DATA``: every worker reads everything and discards what is not
its own), and the slice is split again across the worker's replicas. A batch of ``B`` examples
is cut into ``num_replicas_in_sync`` consecutive parts whose sizes differ by at most one
(``numpy.array_split``); replica ``r`` of worker ``w`` gets part ``w * local_replicas + r``,
placed on the replica's device. Each step yields a `PerReplica` structure (the plain structure
when there is one local replica).

`distribute_datasets_from_function(dataset_fn)`: ``dataset_fn`` receives this worker's
`InputContext` and returns a dataset of *per-replica* batches (shard and batch it yourself,
e.g. ``ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id)``); each step takes one element
per local replica, in replica order.
"""

from __future__ import annotations

import enum

import numpy as np

from .. import nest
from ..core.dispatch import copy_to_device
from ..core.tensor import Tensor, to_tensor
from .values import PerReplica

__all__ = [
    "AutoShardPolicy",
    "DistributedDataset",
    "DistributedDatasetsFromFunction",
    "InputContext",
    "InputOptions",
]


class AutoShardPolicy(enum.IntEnum):
    """How a multi-worker strategy shards a dataset (follows
    `tf.data.experimental.AutoShardPolicy`). `experimental_distribute_dataset` shards by
    ``DATA``; ``OFF`` and ``AUTO`` are accepted names, ``FILE`` and ``HINT`` are not
    implemented."""

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class InputContext:
    """What ``dataset_fn`` of `distribute_datasets_from_function` learns about its input
    pipeline (follows `tf.distribute.InputContext`).

    Attributes:
        num_input_pipelines: the number of input pipelines (workers).
        input_pipeline_id: this pipeline's index, in ``[0, num_input_pipelines)``.
        num_replicas_in_sync: the number of replicas taking input in sync.

    >>> ctx = ek.distribute.InputContext(num_input_pipelines=2, input_pipeline_id=1,
    ...                                  num_replicas_in_sync=4)
    >>> ctx.get_per_replica_batch_size(64)
    16
    """

    def __init__(
        self,
        num_input_pipelines: int = 1,
        input_pipeline_id: int = 0,
        num_replicas_in_sync: int = 1,
    ):
        if not 0 <= input_pipeline_id < num_input_pipelines:
            raise ValueError(
                f"InputContext: input_pipeline_id must be in [0, {num_input_pipelines}). "
                f"Received: input_pipeline_id={input_pipeline_id}"
            )
        self.num_input_pipelines = int(num_input_pipelines)
        self.input_pipeline_id = int(input_pipeline_id)
        self.num_replicas_in_sync = int(num_replicas_in_sync)

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        """``global_batch_size // num_replicas_in_sync``.

        Raises:
            ValueError: if it does not divide evenly (TensorFlow's message).
        """
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError(
                f"The `global_batch_size` {global_batch_size!r} is not divisible by "
                f"`num_replicas_in_sync` {self.num_replicas_in_sync!r}"
            )
        return global_batch_size // self.num_replicas_in_sync

    def __repr__(self) -> str:
        return (
            f"InputContext(num_input_pipelines={self.num_input_pipelines}, input_pipeline_id="
            f"{self.input_pipeline_id}, num_replicas_in_sync={self.num_replicas_in_sync})"
        )


class InputOptions:
    """Options of the distributed datasets (follows `tf.distribute.InputOptions`).

    Args:
        experimental_fetch_to_device: place each replica's batch on its device (default
            True); False leaves it on the CPU.
        experimental_replication_mode, experimental_place_dataset_on_device,
        experimental_per_replica_buffer_size: accepted with TensorFlow's defaults only.
    """

    def __init__(
        self,
        experimental_fetch_to_device=None,
        experimental_replication_mode=None,
        experimental_place_dataset_on_device=False,
        experimental_per_replica_buffer_size=1,
    ):
        for name, value, default in (
            ("experimental_replication_mode", experimental_replication_mode, None),
            ("experimental_place_dataset_on_device", experimental_place_dataset_on_device, False),
            ("experimental_per_replica_buffer_size", experimental_per_replica_buffer_size, 1),
        ):
            if value != default:
                raise NotImplementedError(
                    f"InputOptions: {name}={value!r} is not supported (only {default!r})."
                )
        self.experimental_fetch_to_device = (
            True if experimental_fetch_to_device is None else bool(experimental_fetch_to_device)
        )


def _check_options(options, where: str) -> bool:
    if options is None:
        return True
    if not isinstance(options, InputOptions):
        raise TypeError(f"{where}: options must be ek.distribute.InputOptions, got {options!r}.")
    return options.experimental_fetch_to_device


def _place(value, device, fetch: bool):
    t = to_tensor(value, None, "distributed dataset") if not isinstance(value, Tensor) else value
    return copy_to_device(t, device) if fetch and t._device is not device else t


def split_batch(strategy, element, fetch: bool = True):
    """This worker's replicas' parts of a global batch ``element`` (see the module
    docstring): a `PerReplica` structure, or the structure itself for one local replica."""
    ext = strategy.extended
    n_all = ext.num_replicas_in_sync
    first = ext.worker_index * ext.num_local_replicas
    leaves = nest.flatten(element)
    sizes = set()
    for leaf in leaves:
        if leaf is None:
            continue
        shape = np.shape(leaf._value if isinstance(leaf, Tensor) else leaf)
        if not shape:
            raise ValueError(
                "experimental_distribute_dataset: the dataset's elements must be batches (a "
                f"leading batch dimension to split across replicas); got a scalar of shape {shape}."
            )
        sizes.add(shape[0])
    if len(sizes) != 1:
        raise ValueError(
            f"experimental_distribute_dataset: the parts of an element have different batch "
            f"sizes {sorted(sizes)}."
        )
    batch = sizes.pop()
    bounds = np.cumsum([0] + [len(p) for p in np.array_split(np.arange(batch), n_all)])
    parts = []
    for r in range(ext.num_local_replicas):
        lo, hi = int(bounds[first + r]), int(bounds[first + r + 1])
        dev = ext.devices[r]

        def cut(leaf, lo=lo, hi=hi, dev=dev):
            if leaf is None:
                return None
            t = leaf if isinstance(leaf, Tensor) else to_tensor(leaf, None, "distributed dataset")
            return _place(t[lo:hi], dev, fetch)

        parts.append(nest.map_structure(cut, element))
    if len(parts) == 1:
        return parts[0]
    return nest.map_structure(lambda *xs: None if xs[0] is None else PerReplica(xs), *parts)


class DistributedIterator:
    """An iterator over a distributed dataset (follows `tf.distribute.DistributedIterator`):
    ``next(it)``, `get_next` (raises `OutOfRangeError` at the end, a StopIteration too) and
    `get_next_as_optional`."""

    def __init__(self, make_next):
        self._next = make_next

    def __iter__(self):
        return self

    def __next__(self):
        return self._next()

    def get_next(self):
        from ..core import errors

        try:
            return self._next()
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None

    next = get_next

    def get_next_as_optional(self):
        from ..data.iterator import Optional

        try:
            return Optional.from_value(self._next())
        except StopIteration:
            return Optional.empty(None)


class DistributedDataset:
    """The result of `Strategy.experimental_distribute_dataset` (see the module docstring).

    Iterating it (``for x in dist_ds``, ``iter(dist_ds)``) yields one `PerReplica` structure
    per global batch; the iteration of the underlying dataset restarts each time.

    Raises:
        ValueError: (while iterating) an element without a batch dimension, or parts with
            different batch sizes.
    """

    def __init__(self, strategy, dataset, options=None):
        self._strategy = strategy
        self._dataset = dataset
        self._fetch = _check_options(options, "experimental_distribute_dataset")
        try:
            iter(dataset)
        except TypeError:
            raise TypeError(
                "experimental_distribute_dataset: dataset must be an ek.data.Dataset (or an "
                f"iterable of batches); got {type(dataset).__name__}."
            ) from None

    def __iter__(self) -> DistributedIterator:
        source = iter(self._dataset)
        return DistributedIterator(lambda: split_batch(self._strategy, next(source), self._fetch))

    def __repr__(self) -> str:
        return (
            f"<DistributedDataset over {self._strategy.num_replicas_in_sync} replica(s) of "
            f"{type(self._strategy).__name__}>"
        )


class DistributedDatasetsFromFunction:
    """The result of `Strategy.distribute_datasets_from_function` (see the module
    docstring): each step yields one element per local replica, as a `PerReplica` structure
    (the element itself for one local replica). An epoch ends when a replica's element runs
    out; the elements taken for that step are dropped."""

    def __init__(self, strategy, dataset_fn, options=None):
        if not callable(dataset_fn):
            raise TypeError(
                "distribute_datasets_from_function: dataset_fn must be callable, got "
                f"{type(dataset_fn).__name__}."
            )
        self._strategy = strategy
        self._fetch = _check_options(options, "distribute_datasets_from_function")
        ext = strategy.extended
        self.input_context = InputContext(
            num_input_pipelines=ext.num_workers,
            input_pipeline_id=ext.worker_index,
            num_replicas_in_sync=ext.num_replicas_in_sync,
        )
        self._dataset = dataset_fn(self.input_context)

    def __iter__(self) -> DistributedIterator:
        source = iter(self._dataset)
        ext = self._strategy.extended

        def step():
            parts = []
            for r in range(ext.num_local_replicas):
                element = next(source)
                dev = ext.devices[r]
                parts.append(
                    nest.map_structure(lambda x, d=dev: _place(x, d, self._fetch), element)
                )
            if len(parts) == 1:
                return parts[0]
            return nest.map_structure(lambda *xs: PerReplica(xs), *parts)

        return DistributedIterator(step)
