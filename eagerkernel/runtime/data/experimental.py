"""`ek.data.experimental`: the names TensorFlow kept there (AUTOTUNE, cardinality, ...), and
the functional forms of TF 2.0-2.5 (``ds.apply(ek.data.experimental.unique())``), each a
delegation to the `Dataset` method that replaced it."""

from __future__ import annotations

from ..core.tensor import Tensor
from .dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from .iterator import Optional
from .list_source import from_list, get_structure
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
from .table_init import DatasetInitializer, index_table_from_dataset, table_from_dataset
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
    "DatasetInitializer",
    "DistributeOptions",
    "ExternalStatePolicy",
    "OptimizationOptions",
    "Optional",
    "ServiceOptions",
    "TFRecordWriter",
    "ThreadingOptions",
    "assert_cardinality",
    "bucket_by_sequence_length",
    "cardinality",
    "choose_from_datasets",
    "copy_to_device",
    "dense_to_ragged_batch",
    "enumerate_dataset",
    "from_list",
    "get_single_element",
    "get_structure",
    "group_by_window",
    "ignore_errors",
    "index_table_from_dataset",
    "load",
    "make_csv_dataset",
    "map_and_batch",
    "parallel_interleave",
    "prefetch_to_device",
    "rejection_resample",
    "sample_from_datasets",
    "save",
    "scan",
    "shuffle_and_repeat",
    "snapshot",
    "table_from_dataset",
    "take_while",
    "unique",
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


# -- the functional forms of Dataset methods (TF 2.0-2.5 code calls them via `Dataset.apply`) --
def unique():
    """A transformation for `Dataset.apply`: `Dataset.unique`, each distinct element once, in
    order of first appearance (follows `tf.data.experimental.unique`).

    Raises:
        TypeError: (while iterating) elements that are not int32, int64 or string scalars.

    >>> ds = ek.data.Dataset.from_tensor_slices([1, 2, 2, 3, 1])
    >>> [int(v) for v in ds.apply(ek.data.experimental.unique())]
    [1, 2, 3]
    """
    return lambda dataset: dataset.unique()


def scan(initial_state, scan_func):
    """A transformation for `Dataset.apply`: `Dataset.scan`, the running fold
    ``state, output = scan_func(state, element)`` from ``initial_state`` (follows
    `tf.data.experimental.scan`).

    Raises:
        TypeError: ``scan_func`` not callable (when applied). ValueError: (while iterating)
            it did not return a ``(new_state, output)`` pair.

    >>> ds = ek.data.Dataset.range(4).apply(
    ...     ek.data.experimental.scan(ek.constant(0, ek.int64), lambda s, x: (s + x, s + x)))
    >>> [int(v) for v in ds]
    [0, 1, 3, 6]
    """
    return lambda dataset: dataset.scan(initial_state, scan_func)


def take_while(predicate):
    """A transformation for `Dataset.apply`: `Dataset.take_while`, the elements before the
    first for which ``predicate`` is False (follows `tf.data.experimental.take_while`).

    >>> ds = ek.data.Dataset.range(10).apply(ek.data.experimental.take_while(lambda x: x < 3))
    >>> [int(v) for v in ds]
    [0, 1, 2]
    """
    return lambda dataset: dataset.take_while(predicate)


def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    """A transformation for `Dataset.apply`: `Dataset.group_by_window`, windows of
    ``window_size`` (or ``window_size_func(key)``) elements of equal ``key_func(element)``,
    each reduced by ``reduce_func(key, window_dataset)`` (follows
    `tf.data.experimental.group_by_window`).

    Raises:
        ValueError: both or neither of ``window_size`` and ``window_size_func`` (when
            applied); a window size that is not positive.

    >>> ds = ek.data.Dataset.range(6).apply(ek.data.experimental.group_by_window(
    ...     lambda x: x % 2, lambda key, w: w.batch(2), window_size=2))
    >>> [v.numpy().tolist() for v in ds]
    [[0, 2], [1, 3], [4], [5]]
    """

    def transform(dataset):
        return dataset.group_by_window(key_func, reduce_func, window_size, window_size_func)

    return transform


def bucket_by_sequence_length(
    element_length_func,
    bucket_boundaries,
    bucket_batch_sizes,
    padded_shapes=None,
    padding_values=None,
    pad_to_bucket_boundary=False,
    no_padding=False,
    drop_remainder=False,
):
    """A transformation for `Dataset.apply`: `Dataset.bucket_by_sequence_length`, elements of
    similar length padded-batched together (``bucket_batch_sizes``: one more than
    ``bucket_boundaries``) (follows `tf.data.experimental.bucket_by_sequence_length`).

    Raises:
        ValueError: ``bucket_batch_sizes`` not one longer than ``bucket_boundaries``.
        NotImplementedError: ``pad_to_bucket_boundary`` without ``padded_shapes``.

    >>> ds = ek.data.Dataset.range(1, 6).map(lambda x: ek.fill([x], x))
    >>> ds = ds.apply(ek.data.experimental.bucket_by_sequence_length(
    ...     lambda x: ek.shape(x)[0], [3], [2, 2]))
    >>> [b.shape.as_list() for b in ds]
    [[2, 2], [2, 4], [1, 5]]
    """

    def transform(dataset):
        return dataset.bucket_by_sequence_length(
            element_length_func,
            bucket_boundaries,
            bucket_batch_sizes,
            padded_shapes,
            padding_values,
            pad_to_bucket_boundary,
            no_padding,
            drop_remainder,
        )

    return transform


def enumerate_dataset(start=0):
    """A transformation for `Dataset.apply`: `Dataset.enumerate`, ``(index, element)`` pairs
    with int64 indices from ``start`` (default 0) (follows
    `tf.data.experimental.enumerate_dataset`).

    >>> ds = ek.data.Dataset.from_tensor_slices([7, 8]).apply(
    ...     ek.data.experimental.enumerate_dataset(start=5))
    >>> [(int(i), int(x)) for i, x in ds]
    [(5, 7), (6, 8)]
    """
    return lambda dataset: dataset.enumerate(start)


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """A transformation for `Dataset.apply`: ``dataset.shuffle(buffer_size, seed)`` then
    ``.repeat(count)`` (``count`` None or -1: forever), each pass shuffled anew (follows
    `tf.data.experimental.shuffle_and_repeat`, which TF documents as that pair).

    Raises:
        ValueError: an invalid ``buffer_size`` (as `Dataset.shuffle`).

    >>> ds = ek.data.Dataset.range(3).apply(ek.data.experimental.shuffle_and_repeat(3, 2, 0))
    >>> sorted(int(x) for x in ds)
    [0, 0, 1, 1, 2, 2]
    """
    return lambda dataset: dataset.shuffle(buffer_size, seed).repeat(count)


def map_and_batch(
    map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None
):
    """A transformation for `Dataset.apply`: ``dataset.map(map_func, num_parallel_calls)`` then
    ``.batch(batch_size, drop_remainder)`` (follows `tf.data.experimental.map_and_batch`).

    Args:
        num_parallel_batches, num_parallel_calls: at most one. As in TF, the map runs
            ``batch_size * num_parallel_batches`` calls at once, or ``num_parallel_calls``
            (AUTOTUNE: one per CPU core), or ``batch_size`` when neither is given; the
            elements and their order are the same whatever the parallelism.

    Raises:
        ValueError: both ``num_parallel_batches`` and ``num_parallel_calls`` given (TF's
            message); a non-positive count.

    >>> ds = ek.data.Dataset.range(5).apply(
    ...     ek.data.experimental.map_and_batch(lambda x: x * 10, 2, drop_remainder=True))
    >>> [b.numpy().tolist() for b in ds]
    [[0, 10], [20, 30]]
    """
    from .dataset import int_arg

    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError(
            "The `num_parallel_batches` and `num_parallel_calls` arguments are mutually exclusive."
        )
    if num_parallel_calls is None:
        calls = int_arg(batch_size, "map_and_batch", "batch_size")
        if num_parallel_batches is not None:
            batches = int_arg(num_parallel_batches, "map_and_batch", "num_parallel_batches")
            if batches <= 0:
                raise ValueError(
                    "map_and_batch: num_parallel_batches must be positive. Received: "
                    f"num_parallel_batches={batches}"
                )
            calls *= batches
        num_parallel_calls = max(calls, 1)  # batch_size itself is checked by `batch`

    def transform(dataset):
        mapped = dataset.map(map_func, num_parallel_calls=num_parallel_calls)
        return mapped.batch(batch_size, drop_remainder)

    return transform


def parallel_interleave(
    map_func,
    cycle_length,
    block_length=1,
    sloppy=False,
    buffer_output_elements=None,
    prefetch_input_elements=None,
):
    """A transformation for `Dataset.apply`: `Dataset.interleave` with ``cycle_length``
    datasets read in parallel (follows `tf.data.experimental.parallel_interleave`).

    Args:
        sloppy: True lets elements come in the order they are ready (``deterministic=False``);
            False (default) keeps `Dataset.interleave`'s order.
        buffer_output_elements, prefetch_input_elements: how many elements TF buffers per
            open dataset and how many input elements it opens ahead; they tune only speed, so
            they are checked (positive, non-negative) and otherwise unused.

    Raises:
        ValueError: a non-positive ``cycle_length`` or ``block_length`` or
            ``buffer_output_elements``, a negative ``prefetch_input_elements``.
        TypeError: (while iterating) ``map_func`` did not return a Dataset.

    >>> ds = ek.data.Dataset.range(1, 3).apply(ek.data.experimental.parallel_interleave(
    ...     lambda x: ek.data.Dataset.from_tensors(x).repeat(3), cycle_length=2))
    >>> [int(x) for x in ds]
    [1, 2, 1, 2, 1, 2]
    """
    from .dataset import int_arg

    for arg, value, low in (
        ("buffer_output_elements", buffer_output_elements, 1),
        ("prefetch_input_elements", prefetch_input_elements, 0),
    ):
        if value is not None and int_arg(value, "parallel_interleave", arg) < low:
            what = "positive" if low else "non-negative"
            raise ValueError(
                f"parallel_interleave: {arg} must be {what}. Received: {arg}={int(value)}"
            )

    def transform(dataset):
        return dataset.interleave(
            map_func,
            cycle_length,
            block_length,
            num_parallel_calls=cycle_length,
            deterministic=not sloppy,
        )

    return transform


def ignore_errors(log_warning=False):
    """A transformation for `Dataset.apply` that drops the elements whose `map` or `filter`
    function raised (follows `tf.data.experimental.ignore_errors`).

    It covers the `map` and `filter` stages directly before it (parallel maps then run in
    the consuming thread). An exception from an earlier stage (a source, a batch) still
    propagates: a Python iterator that raised cannot go on.

    Args:
        log_warning: True logs each ignored error as a warning on the ``"eagerkernel"``
            logger (default False: silently).

    >>> ds = ek.data.Dataset.from_tensor_slices(["1.5", "x", "2"]).map(ek.strings.to_number)
    >>> list(ds.apply(ek.data.experimental.ignore_errors()).as_numpy_iterator())
    [np.float32(1.5), np.float32(2.0)]
    """
    from .error_checks import IgnoreErrors

    return lambda dataset: IgnoreErrors(dataset, log_warning)


def assert_cardinality(expected_cardinality):
    """A transformation for `Dataset.apply`: the dataset, whose `cardinality` is then
    ``expected_cardinality`` (`INFINITE_CARDINALITY` allowed), checked while iterating (follows
    `tf.data.experimental.assert_cardinality`).

    Raises:
        TypeError: ``expected_cardinality`` not an integer (when applied).
        FailedPreconditionError: (while iterating) the dataset ends before or runs past that
            many elements, with TF's message.

    >>> ds = ek.data.Dataset.range(5).filter(lambda x: x < 3)
    >>> ds = ds.apply(ek.data.experimental.assert_cardinality(3))
    >>> int(ds.cardinality()), [int(x) for x in ds]
    (3, [0, 1, 2])
    >>> try:
    ...     list(ek.data.Dataset.range(2).apply(ek.data.experimental.assert_cardinality(3)))
    ... except ek.errors.FailedPreconditionError as e:
    ...     print(e.message)
    Input dataset was expected to contain 3 elements but contained only 2 elements.
    """
    from .error_checks import AssertCardinality

    return lambda dataset: AssertCardinality(dataset, expected_cardinality)


def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    """A transformation for `Dataset.apply`: `Dataset.rejection_resample`, ``(class,
    element)`` pairs whose classes ``class_func(element)`` follow ``target_dist`` (follows
    `tf.data.experimental.rejection_resample`).

    Raises:
        ValueError: a distribution that is not a vector of non-negative numbers with a
            positive sum (when applied).

    >>> ds = ek.data.Dataset.range(8).map(lambda x: x % 2)
    >>> pairs = ds.apply(ek.data.experimental.rejection_resample(lambda c: c, [0.0, 1.0],
    ...                                                          [0.5, 0.5], seed=0))
    >>> [int(c) for c, _ in pairs]
    [1, 1, 1, 1]
    """
    return lambda dataset: dataset.rejection_resample(class_func, target_dist, initial_dist, seed)


def snapshot(path, compression="AUTO", reader_func=None, shard_func=None):
    """A transformation for `Dataset.apply`: `Dataset.snapshot`, the dataset kept on disk
    under ``path`` after its first complete pass (follows `tf.data.experimental.snapshot`).

    Raises:
        ValueError: a ``compression`` other than "AUTO", "GZIP", "NONE" or None (when
            applied).
    """
    return lambda dataset: dataset.snapshot(path, compression, reader_func, shard_func)


# -- functions TF kept here before they became static methods of `Dataset` ------------------
def save(dataset, path, compression=None, shard_func=None, checkpoint_args=None) -> None:
    """``dataset.save(path, ...)``: every element written to the directory ``path`` (follows
    `tf.data.experimental.save`; see `Dataset.save` for the arguments and errors).

    Raises:
        TypeError: ``dataset`` is not a Dataset.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "ds")
    >>> ek.data.experimental.save(ek.data.Dataset.range(3), path)
    >>> list(ek.data.experimental.load(path).as_numpy_iterator())
    [np.int64(0), np.int64(1), np.int64(2)]
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(
            f"save: dataset must be a Dataset. Received: dataset={type(dataset).__name__}"
        )
    dataset.save(path, compression, shard_func, checkpoint_args)


def load(path, element_spec=None, compression=None, reader_func=None) -> Dataset:
    """``Dataset.load(path, ...)``: the elements a save wrote to ``path`` (follows
    `tf.data.experimental.load`; see `Dataset.load` for the arguments and errors)."""
    return Dataset.load(path, element_spec, compression, reader_func)


def get_single_element(dataset):
    """The only element of ``dataset`` (follows `tf.data.experimental.get_single_element`).

    Raises:
        TypeError: ``dataset`` is not a Dataset. InvalidArgumentError: it is empty or has more
            than one element.

    >>> int(ek.data.experimental.get_single_element(ek.data.Dataset.from_tensors(7)))
    7
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(
            "`dataset` must be a `tf.data.Dataset` object. Received: "
            f"dataset={type(dataset).__name__}"
        )
    return dataset.get_single_element()


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    """`Dataset.sample_from_datasets`: each element from one of ``datasets`` drawn at random
    with probabilities ``weights`` (default equal) (follows
    `tf.data.experimental.sample_from_datasets`).

    Raises:
        TypeError: elements of different structures or dtypes. ValueError: weights of the
            wrong length, negative, or summing to 0.

    >>> a, b = ek.data.Dataset.range(0, 2), ek.data.Dataset.range(10, 12)
    >>> sorted(int(x) for x in ek.data.experimental.sample_from_datasets([a, b], seed=1))
    [0, 1, 10, 11]
    """
    return Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=False):
    """`Dataset.choose_from_datasets`: the next element of ``datasets[i]`` for each scalar
    integer ``i`` of ``choice_dataset``; by default (unlike the method) an exhausted dataset is
    skipped rather than ending the result (follows
    `tf.data.experimental.choose_from_datasets`).

    Raises:
        TypeError: ``choice_dataset`` not of scalar integers, or datasets whose elements
            differ. InvalidArgumentError: (while iterating) an index out of range.

    >>> ds = [ek.data.Dataset.range(2), ek.data.Dataset.range(10, 13)]
    >>> choice = ek.data.Dataset.from_tensor_slices(ek.constant([0, 1, 0, 0, 1], ek.int64))
    >>> [int(x) for x in ek.data.experimental.choose_from_datasets(ds, choice)]
    [0, 10, 1, 11]
    """
    return Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)
