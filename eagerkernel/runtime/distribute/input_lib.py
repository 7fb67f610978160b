"""Distributed input (follows `tf.distribute`'s input API): `InputContext`, `InputOptions`,
the datasets `Strategy.experimental_distribute_dataset` and
`Strategy.distribute_datasets_from_function` return, and `AutoShardPolicy`.

`experimental_distribute_dataset(dataset)`: ``dataset`` yields *global* batches. Each worker
iterates the whole dataset and keeps its own slice of every batch (sharding by data, as
TensorFlow's ``AutoShardPolicy.DATA``: every worker reads everything and discards what is not
its own), and the slice is split again across the worker's replicas. A dataset whose
`ek.data.Options` set ``experimental_distribute.auto_shard_policy = OFF`` is not sharded:
each worker splits whole batches across its own replicas. A batch of ``B`` examples
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

import numpy as np

from .. import nest
from ..core.dispatch import copy_to_device
from ..core.tensor import Tensor, to_tensor
from ..data.options import AutoShardPolicy
from .values import PerReplica

__all__ = [
    "AutoShardPolicy",
    "DistributedDataset",
    "DistributedDatasetsFromFunction",
    "InputContext",
    "InputOptions",
    "PerReplicaSpec",
    "ValueContext",
]


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


class ValueContext:
    """What ``value_fn`` of `Strategy.experimental_distribute_values_from_function` learns
    about the replica it makes a value for (follows
    `tf.distribute.experimental.ValueContext`).

    Attributes:
        replica_id_in_sync_group: the replica's index among all replicas (of all workers).
        num_replicas_in_sync: the number of replicas in sync.
    """

    def __init__(self, replica_id_in_sync_group: int = 0, num_replicas_in_sync: int = 1):
        self.replica_id_in_sync_group = int(replica_id_in_sync_group)
        self.num_replicas_in_sync = int(num_replicas_in_sync)

    def __repr__(self) -> str:
        return (
            f"ValueContext(replica_id_in_sync_group={self.replica_id_in_sync_group}, "
            f"num_replicas_in_sync={self.num_replicas_in_sync})"
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


def split_batch(strategy, element, fetch: bool = True, shard: bool = True):
    """This worker's replicas' parts of a global batch ``element`` (see the module
    docstring): a `PerReplica` structure, or the structure itself for one local replica.
    ``shard=False`` (`AutoShardPolicy.OFF`): the worker keeps the whole batch, split across
    its own replicas only."""
    ext = strategy.extended
    n_all = ext.num_replicas_in_sync if shard else ext.num_local_replicas
    first = ext.worker_index * ext.num_local_replicas if shard else 0
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


def _unbatched_spec(spec):
    """``spec`` (a TensorSpec) with its leading dimension unknown."""
    from ..data.structure import TensorSpec

    shape = spec.shape
    if not isinstance(spec, TensorSpec) or shape.rank is None or shape.rank == 0:
        return spec
    return TensorSpec([None, *shape.as_list()[1:]], spec.dtype, spec.name)


class PerReplicaSpec:
    """The type of a `PerReplica` value: one spec per replica (follows TensorFlow's
    ``PerReplicaSpec``, what a multi-replica `DistributedDataset.element_spec` holds).

    Attributes:
        value_specs: the replicas' specs, in replica order.
    """

    def __init__(self, *value_specs):
        self.value_specs = tuple(value_specs)

    def __eq__(self, other) -> bool:
        return isinstance(other, PerReplicaSpec) and other.value_specs == self.value_specs

    def __hash__(self) -> int:
        return hash(self.value_specs)

    def __repr__(self) -> str:
        return f"PerReplicaSpec{self.value_specs!r}"


def _shards(dataset) -> bool:
    """Whether each worker keeps only its slice of every batch: the dataset's
    ``Options.experimental_distribute.auto_shard_policy`` (AUTO or DATA: yes; OFF: no).

    Raises:
        NotImplementedError: FILE or HINT (sharding by input file, by hint).
    """
    options = getattr(dataset, "options", None)
    if options is None:
        return True
    policy = options().experimental_distribute.auto_shard_policy
    if policy in (AutoShardPolicy.FILE, AutoShardPolicy.HINT):
        raise NotImplementedError(
            f"experimental_distribute_dataset: auto_shard_policy {policy.name} is not "
            "supported; DATA (or AUTO) gives each worker its slice of every batch, OFF the "
            "whole batches."
        )
    return policy != AutoShardPolicy.OFF


def _per_replica_spec(n: int, spec):
    """``spec`` (a structure) with each leaf as a `PerReplicaSpec` of ``n`` replicas; itself
    for one replica."""
    return spec if n == 1 else nest.map_structure(lambda s: PerReplicaSpec(*[s] * n), spec)


def _value_spec(value):
    """The spec of a step's value: a `PerReplicaSpec` of the replicas' full specs for each
    `PerReplica` leaf (as TensorFlow's ``Optional.element_spec`` shows them)."""
    from ..data.structure import spec_of

    def leaf(x):
        if isinstance(x, PerReplica):
            return PerReplicaSpec(*[spec_of(v) for v in x.values])
        return spec_of(x)

    return nest.map_structure(leaf, value)


class DistributedIterator:
    """An iterator over a distributed dataset (follows `tf.distribute.DistributedIterator`):
    ``next(it)``, `get_next` (raises `OutOfRangeError` at the end, a StopIteration too),
    `get_next_as_optional` and `element_spec` (the dataset's)."""

    def __init__(self, make_next, element_spec=None):
        self._next = make_next
        self._element_spec = element_spec  # a zero-argument callable, or None

    @property
    def element_spec(self):
        """The distributed dataset's `element_spec` (`PerReplicaSpec` leaves for several
        local replicas).

        Raises:
            TypeError: the dataset has no ``element_spec`` (a plain iterable of batches).
        """
        if self._element_spec is None:
            raise TypeError("DistributedIterator.element_spec: the dataset has no element_spec.")
        return self._element_spec()

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
        """The next step's value as an `ek.experimental.Optional` (empty at the end), whose
        ``element_spec`` holds a `PerReplicaSpec` of the replicas' specs per `PerReplica`."""
        from ..data.iterator import Optional

        try:
            value = self._next()
        except StopIteration:
            try:
                spec = self.element_spec
            except TypeError:
                spec = None
            return Optional.empty(spec)
        return Optional(value, _value_spec(value))  # as is: from_value would convert it


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
        self._shard = _shards(dataset)
        try:
            iter(dataset)
        except TypeError:
            raise TypeError(
                "experimental_distribute_dataset: dataset must be an ek.data.Dataset (or an "
                f"iterable of batches); got {type(dataset).__name__}."
            ) from None

    def __iter__(self) -> DistributedIterator:
        source = iter(self._dataset)
        return DistributedIterator(
            lambda: split_batch(self._strategy, next(source), self._fetch, self._shard),
            lambda: self.element_spec,
        )

    @property
    def element_spec(self):
        """The type of what each step gives one replica (follows
        ``DistributedDataset.element_spec``): the dataset's element spec with the batch
        dimension unknown (a replica's part of a batch varies), as a `PerReplicaSpec`
        structure when this worker has several replicas.

        Raises:
            TypeError: the dataset has no ``element_spec`` (a plain iterable of batches).
        """
        spec = getattr(self._dataset, "element_spec", None)
        if spec is None:
            raise TypeError("DistributedDataset.element_spec: the dataset has no element_spec.")
        spec = nest.map_structure(_unbatched_spec, spec)
        return _per_replica_spec(self._strategy.extended.num_local_replicas, spec)

    def __repr__(self) -> str:
        return (
            f"<DistributedDataset over {self._strategy.num_replicas_in_sync} replica(s) of "
            f"{type(self._strategy).__name__}>"
        )


class DistributedDatasetsFromFunction:
    """The result of `Strategy.distribute_datasets_from_function` (see the module
    docstring): each step yields one element per local replica, as a `PerReplica` structure
    (the element itself for one local replica). When the dataset runs out part way through a
    step, the remaining replicas get empty batches (as TensorFlow pads them); an epoch ends
    when the first replica's element runs out (or a later one's, for unbatched elements)."""

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
                try:
                    element = next(source)
                except StopIteration:
                    leaves = nest.flatten(parts[0]) if parts else ()
                    if not leaves or not all(getattr(x, "ndim", 0) >= 1 for x in leaves):
                        raise
                    element = nest.map_structure(lambda x: x[:0], parts[0])
                dev = ext.devices[r]
                parts.append(
                    nest.map_structure(lambda x, d=dev: _place(x, d, self._fetch), element)
                )
            if len(parts) == 1:
                return parts[0]
            return nest.map_structure(lambda *xs: PerReplica(xs), *parts)

        return DistributedIterator(step, lambda: self.element_spec)

    @property
    def element_spec(self):
        """The type of what each step gives one replica: the per-replica dataset's element
        spec, as a `PerReplicaSpec` structure when this worker has several replicas (follows
        ``DistributedDatasetsFromFunction.element_spec``).

        Raises:
            TypeError: ``dataset_fn`` returned something without an ``element_spec``.
        """
        spec = getattr(self._dataset, "element_spec", None)
        if spec is None:
            raise TypeError(
                "DistributedDatasetsFromFunction.element_spec: the dataset has no element_spec."
            )
        return _per_replica_spec(self._strategy.extended.num_local_replicas, spec)
