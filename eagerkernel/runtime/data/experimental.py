"""`ek.data.experimental`: the names TensorFlow kept there (AUTOTUNE, cardinality, ...)."""

from __future__ import annotations

from ..core.tensor import Tensor
from .dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from .options import (
    AutoShardPolicy,
    AutotuneAlgorithm,
    AutotuneOptions,
    DistributeOptions,
    ExternalStatePolicy,
    OptimizationOptions,
    ServiceOptions,
    ThreadingOptions,
)
from .readers import CsvDataset, make_csv_dataset
from .tfrecord import TFRecordWriter

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "AutoShardPolicy",
    "AutotuneAlgorithm",
    "AutotuneOptions",
    "Counter",
    "CsvDataset",
    "DistributeOptions",
    "ExternalStatePolicy",
    "OptimizationOptions",
    "ServiceOptions",
    "TFRecordWriter",
    "ThreadingOptions",
    "cardinality",
    "copy_to_device",
    "dense_to_ragged_batch",
    "make_csv_dataset",
    "prefetch_to_device",
]


def Counter(start=0, step=1, dtype=None) -> Dataset:
    """An endless dataset counting from ``start`` by ``step`` (follows
    `tf.data.experimental.Counter`; default dtype int64): `Dataset.counter`."""
    from ..core import dtypes

    return Dataset.counter(start, step, dtypes.int64 if dtype is None else dtype)


def cardinality(dataset: Dataset) -> Tensor:
    """``dataset.cardinality()`` (follows `tf.data.experimental.cardinality`).

    >>> int(ek.data.experimental.cardinality(ek.data.Dataset.range(3)))
    3
    """
    return dataset.cardinality()


def copy_to_device(target_device: str):
    """A transformation for `Dataset.apply` that moves every element to ``target_device``
    (follows `tf.data.experimental.copy_to_device`).

    Raises:
        RuntimeError: if the device is absent (the message lists the devices present).
    """
    from .. import nest
    from ..core.device import get_device
    from ..core.dispatch import copy_to_device as copy

    device = get_device(target_device)  # fail when the pipeline is built, not when it runs

    def transform(dataset: Dataset) -> Dataset:
        def move(*element):
            moved = nest.map_structure(lambda t: copy(t, device), element)
            return moved[0] if len(moved) == 1 else moved

        return dataset.map(move)

    return transform


def prefetch_to_device(device: str, buffer_size=None):
    """A transformation for `Dataset.apply`: elements are copied to ``device`` and prefetched
    (``buffer_size``, default AUTOTUNE) by a background thread, so the copy of the next batch
    overlaps the current step (follows `tf.data.experimental.prefetch_to_device`).

    >>> ds = ek.data.Dataset.range(3).batch(2).apply(
    ...     ek.data.experimental.prefetch_to_device("/cpu:0"))
    >>> [b.numpy().tolist() for b in ds]
    [[0, 1], [2]]
    """
    move = copy_to_device(device)

    def transform(dataset: Dataset) -> Dataset:
        return move(dataset).prefetch(AUTOTUNE if buffer_size is None else buffer_size)

    return transform


def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=None):
    """A transformation for `Dataset.apply`: `Dataset.ragged_batch` (follows
    `tf.data.experimental.dense_to_ragged_batch`).

    >>> ds = ek.data.Dataset.from_tensor_slices([1, 3]).map(ek.range)
    >>> [rt.to_list() for rt in ds.apply(ek.data.experimental.dense_to_ragged_batch(2))]
    [[[0], [0, 1, 2]]]
    """

    def transform(dataset: Dataset) -> Dataset:
        return dataset.ragged_batch(batch_size, drop_remainder, row_splits_dtype)

    return transform
