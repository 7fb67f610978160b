"""`Dataset`: a tf.data-style input pipeline whose elements are nested structures of Tensors.

Every source and transformation is a small subclass (in `sources`, `transforms`, `shuffle`,
`parallel`, `cache`) implementing three hooks:

- ``_iter(ctx)``: a fresh Python iterator over the elements (one pass, an "epoch");
- ``_cardinality()``: the number of elements, or INFINITE/UNKNOWN, by TensorFlow's rules;
- ``_spec(peek)``: the element spec, derived from the input's where possible. Without graph
  tracing, the spec of a user function's output is learnt by running the pipeline on its
  first element ("peeking"), which is what TF's tracing amounts to in eager code.

``_plan()`` additionally lets a dataset over in-memory arrays run as index arithmetic (see
`plan`). Iteration is lazy and per iterator: two iterators over one dataset are independent,
and each has its own background threads, which stop when it is exhausted, closed or dropped.
"""

from __future__ import annotations

import numpy as np

from ..core.dispatch import stateful
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, make
from . import structure
from .grouping_methods import GroupingMethods
from .more_methods import MoreMethods
from .persistence import PersistenceMethods
from .resampling import ResamplingMethods
from .tf_names import tf_class_name

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Dataset"]

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2

_UNSET = object()


class Context:
    """Per-pass settings handed down the pipeline.

    Attributes:
        peek: True while the pipeline runs only to learn the element spec; such a pass does
            not advance shuffle epochs nor fill caches.
        options: the pipeline's `Options` (`Dataset.options`), or None for the defaults.
    """

    __slots__ = ("options", "peek")

    def __init__(self, peek: bool = False, options=None):
        self.peek = peek
        self.options = options

    def deterministic(self, own) -> bool:
        """Whether a parallel stage keeps the input order: its own ``deterministic``
        argument, or if that is None the pipeline's option (default True); always True
        after `ek.config.experimental.enable_op_determinism`."""
        from ..config import op_determinism_enabled

        if op_determinism_enabled():
            return True
        if own is None and self.options is not None:
            own = self.options.deterministic
        return own is not False


def int_arg(value, op: str, arg: str) -> int:
    """An integer argument given as a Python int, NumPy integer or scalar integer Tensor."""
    if isinstance(value, Tensor):
        if value.dtype.is_integer and value.ndim == 0:
            return int(value)
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    raise TypeError(f"{op}: {arg} must be an integer. Received: {arg}={value!r}")


class Dataset(GroupingMethods, MoreMethods, PersistenceMethods, ResamplingMethods):
    """A sequence of elements, each a nested structure (tuples, namedtuples, dicts) of Tensors,
    built from sources and transformed lazily (follows `tf.data.Dataset`).

    Make one with a source (`from_tensor_slices`, `from_tensors`, `from_generator`, `range`,
    `zip`) and chain transformations; iterate with ``for``, `iter` / `ek.Iterator`, or
    `as_numpy_iterator`. Each iteration is a fresh pass; functions given to `map`, `filter`,
    `interleave` run eagerly on Tensors (they may print, branch, call ``int()``).

    >>> ds = ek.data.Dataset.from_tensor_slices([1, 2, 3]).map(lambda x: x * 2)
    >>> [int(x) for x in ds]
    [2, 4, 6]
    >>> len(ds), ds.element_spec
    (3, TensorSpec(shape=(), dtype=ek.int32, name=None))
    """

    def __init__(self, *inputs: Dataset):
        self._inputs = inputs
        self._spec_cache = _UNSET

    # -- hooks ----------------------------------------------------------------------------------
    def _iter(self, ctx: Context):
        raise NotImplementedError

    def _cardinality(self) -> int:
        return UNKNOWN_CARDINALITY

    def _spec(self, peek: bool):
        """The element spec; if it needs running the pipeline and ``peek`` is False, None."""
        if not peek:
            return None
        it = self._iter(Context(peek=True))
        try:
            first = next(it, _UNSET)
        except Exception as e:  # an error TF raises when iterating, not for the spec
            first = e
        finally:
            close = getattr(it, "close", None)
            if close is not None:
                close()
        if first is _UNSET or isinstance(first, Exception):  # stand-ins of the input's spec
            from .traced_spec import traced_spec

            return traced_spec(self, None if first is _UNSET else first)
        return structure.spec_of(first)

    def _plan(self):
        """An `plan.IndexPlan` when the elements are indices into in-memory arrays, else None."""
        return None

    def _cheap(self) -> bool:
        """True when each element is a small in-memory slice or gather, cheaper to make on the
        spot than to hand over from another thread (`prefetch(AUTOTUNE)` then makes none)."""
        return self._plan() is not None

    def _static_spec(self):
        if self._spec_cache is _UNSET:
            spec = self._spec(False)
            if spec is None:
                return None
            self._spec_cache = spec
        return self._spec_cache

    # -- Python protocol ------------------------------------------------------------------------
    @stateful(undoable=False)  # inside ek.function, every call starts a fresh pass
    def __iter__(self):
        from .iterator import Iterator

        return Iterator(self)

    def __bool__(self) -> bool:
        return True  # needed because __len__ is defined (and raises for infinite datasets)

    def __len__(self) -> int:
        """The number of elements (follows `tf.data.Dataset.__len__`).

        Raises:
            TypeError: if the dataset is infinite or its length is unknown.
        """
        n = self._cardinality()
        if n == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return n

    def __repr__(self) -> str:
        spec = self._static_spec()
        shown = "<computed from the first element>" if spec is None else repr(spec)
        return f"<{tf_class_name(type(self))} element_spec={shown}>"

    # -- properties -----------------------------------------------------------------------------
    @property
    def element_spec(self):
        """The type of each element: a structure of `TensorSpec` (and `DatasetSpec`) matching the
        elements, with None for dimensions that vary (follows `tf.data.Dataset.element_spec`).

        The output of a user function is typed by running the pipeline up to its first element
        once, since eager code has no trace; on stand-in values if it is empty (`traced_spec`).
        """
        if self._spec_cache is _UNSET:
            self._spec_cache = self._spec(True)
        return self._spec_cache

    def cardinality(self) -> Tensor:
        """The number of elements as an int64 scalar tensor, or `INFINITE_CARDINALITY` (-1) or
        `UNKNOWN_CARDINALITY` (-2) (follows `tf.data.Dataset.cardinality`).

        >>> ds = ek.data.Dataset.range(42)
        >>> int(ds.cardinality()), int(ds.repeat().cardinality())
        (42, -1)
        >>> int(ds.filter(lambda x: x > 3).cardinality())
        -2
        """
        return make(np.int64(self._cardinality()), _cpu())

    def as_numpy_iterator(self):
        """Iterates the elements as NumPy values: read-only arrays, NumPy scalars for rank-0
        tensors, in the same nested structure (follows `tf.data.Dataset.as_numpy_iterator`).

        Raises:
            TypeError: (while iterating) if elements contain Datasets.

        >>> list(ek.data.Dataset.range(3).as_numpy_iterator())
        [np.int64(0), np.int64(1), np.int64(2)]
        """
        from .iterator import NumpyIterator

        return NumpyIterator(self)

    def make_one_shot_iterator(self):
        """An `Iterator` over this dataset (TensorFlow 1.x spelling of ``iter(dataset)``)."""
        from .iterator import Iterator

        return Iterator(self)

    # -- sources --------------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None) -> Dataset:
        """A dataset whose elements are the slices of ``tensors`` along their first dimension
        (follows `tf.data.Dataset.from_tensor_slices`).

        Args:
            tensors: a tensor, array or Python list (a list is ONE component, converted to a
                tensor), or a nested tuple/namedtuple/dict of them. NumPy arrays are used
                without a copy, as by `ek.convert_to_tensor`: do not change them in place.

        Raises:
            ValueError: a component is a scalar, or components differ in their first dimension
                (the message names the shapes).

        >>> ds = ek.data.Dataset.from_tensor_slices(([1, 2], [[3, 4], [5, 6]]))
        >>> [(int(a), b.numpy().tolist()) for a, b in ds]
        [(1, [3, 4]), (2, [5, 6])]
        >>> ds = ek.data.Dataset.from_tensor_slices({"a": [1, 2], "b": [3.0, 4.0]})
        >>> ds.element_spec["b"]
        TensorSpec(shape=(), dtype=ek.float32, name=None)
        """
        return _sources.TensorSlices(tensors)

    @staticmethod
    def from_tensors(tensors, name=None) -> Dataset:
        """A dataset of one element, ``tensors`` (follows `tf.data.Dataset.from_tensors`).

        >>> ds = ek.data.Dataset.from_tensors([1, 2, 3])
        >>> [x.numpy().tolist() for x in ds]
        [[1, 2, 3]]
        """
        return _sources.Tensors(tensors)

    @staticmethod
    def from_generator(
        generator,
        output_types=None,
        output_shapes=None,
        args=None,
        output_signature=None,
        name=None,
    ) -> Dataset:
        """A dataset of the values a Python generator yields (follows
        `tf.data.Dataset.from_generator`).

        ``generator`` is called (with ``args`` as NumPy values) at the start of every pass, so
        each iteration sees fresh values. Each yielded value is converted to the declared
        dtypes and checked against the declared shapes.

        Args:
            generator: a callable returning an iterable.
            output_types: a structure of dtypes (TF 1.x style); ``output_shapes`` optionally
                gives the matching structure of shapes (default: unknown).
            args: a tuple of values passed to ``generator``.
            output_signature: a structure of `TensorSpec` (instead of types and shapes).

        Raises:
            TypeError: neither or both of ``output_types``/``output_signature`` given; while
                iterating, a value of the wrong structure or dtype. ValueError: (while
                iterating) a value of the wrong shape.

        >>> def gen():
        ...     yield from ([1], [2, 3])
        >>> ds = ek.data.Dataset.from_generator(
        ...     gen, output_signature=ek.data.TensorSpec([None], ek.int32))
        >>> [x.numpy().tolist() for x in ds]
        [[1], [2, 3]]
        """
        return _sources.Generator(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def range(*args, output_type=None, name=None) -> Dataset:
        """Scalars ``start, start + step, ...`` below ``stop`` (above it for a negative step),
        as Python's ``range(stop)``/``range(start, stop[, step])`` (follows
        `tf.data.Dataset.range`). Default dtype int64.

        Raises:
            ValueError: ``step`` is 0. TypeError: wrong number or type of arguments.

        >>> [[int(x) for x in ek.data.Dataset.range(*a)]
        ...  for a in [(5,), (2, 5), (1, 5, 2), (5, 1, -2), (1, 5, -2)]]
        [[0, 1, 2, 3, 4], [2, 3, 4], [1, 3], [5, 3], []]
        """
        return _sources.Range(args, output_type)

    @staticmethod
    def counter(start=0, step=1, dtype="int64", name=None) -> Dataset:
        """Scalars ``start, start + step, start + 2 * step, ...`` without end (follows
        `tf.data.Dataset.counter`, also `tf.data.experimental.Counter`); its cardinality is
        infinite.

        >>> it = iter(ek.data.Dataset.counter(start=2, step=3))
        >>> [int(next(it)) for _ in range(3)]
        [2, 5, 8]
        """
        return _sources.Counter(start, step, dtype)

    @staticmethod
    def zip(*datasets, name=None) -> Dataset:
        """Zips datasets into tuples (or any nesting of tuples/dicts of datasets), stopping at
        the shortest (follows `tf.data.Dataset.zip`).

        Raises:
            TypeError: a leaf of ``datasets`` is not a Dataset.

        >>> a, b = ek.data.Dataset.range(1, 4), ek.data.Dataset.range(4, 6)
        >>> [(int(x), int(y)) for x, y in ek.data.Dataset.zip(a, b)]
        [(1, 4), (2, 5)]
        """
        if len(datasets) == 1:
            datasets = datasets[0]
        return _sources.Zip(datasets)

    @staticmethod
    def sample_from_datasets(
        datasets,
        weights=None,
        seed=None,
        stop_on_empty_dataset=False,
        rerandomize_each_iteration=None,
    ) -> Dataset:
        """Interleaves ``datasets``, each element taken from one drawn at random with
        probabilities ``weights`` (default equal) (follows
        `tf.data.Dataset.sample_from_datasets`). An exhausted dataset stops the result with
        ``stop_on_empty_dataset=True``, else it drops out and the others keep their relative
        weights. The draws repeat every pass unless ``rerandomize_each_iteration=True``.

        Raises:
            TypeError: elements of different structures or dtypes. ValueError: weights of the
            wrong length, negative, or summing to 0. NotImplementedError: weights as a Dataset.

        >>> a, b = ek.data.Dataset.range(0, 3), ek.data.Dataset.range(10, 13)
        >>> sorted(int(x) for x in ek.data.Dataset.sample_from_datasets([a, b], seed=1))
        [0, 1, 2, 10, 11, 12]
        """
        from .sampling import sample_from_datasets

        return sample_from_datasets(
            datasets, weights, seed, stop_on_empty_dataset, rerandomize_each_iteration
        )

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True) -> Dataset:
        """The next element of ``datasets[i]`` for each ``i`` of ``choice_dataset``, scalar
        integers (follows `tf.data.Dataset.choose_from_datasets`).

        Raises:
            TypeError: ``choice_dataset`` not of scalar integers, or datasets whose elements
                differ. InvalidArgumentError: (while iterating) an index out of range.

        >>> ds = [ek.data.Dataset.from_tensors(s).repeat() for s in ("a", "b")]
        >>> choice = ek.data.Dataset.range(2).repeat(2)
        >>> [x.numpy() for x in ek.data.Dataset.choose_from_datasets(ds, choice)]
        [b'a', b'b', b'a', b'b']
        """
        from .sampling import ChooseFromDatasets

        return ChooseFromDatasets(datasets, choice_dataset, stop_on_empty_dataset)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None) -> Dataset:
        """The file names matching a glob pattern (or a list of them), as string scalars,
        shuffled unless ``shuffle=False`` (follows `tf.data.Dataset.list_files`).

        Raises:
            InvalidArgumentError: no file matches ("No files matched pattern").
        """
        from .sampling import list_files

        return list_files(file_pattern, shuffle, seed)

    # -- transformations ------------------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None) -> Dataset:
        """Applies ``map_func`` to each element (follows `tf.data.Dataset.map`).

        ``map_func`` receives the element's components as positional arguments when the element
        is a tuple, else the element itself (a dict arrives as one dict), all as Tensors. It
        returns a structure of tensors/arrays/numbers (a list is read as a tuple).

        Args:
            num_parallel_calls: None runs ``map_func`` in the consuming thread; N or `AUTOTUNE`
                runs up to N calls at once on a thread pool.
            deterministic: with parallel calls, False lets finished elements overtake slower
                ones; None or True keep the input order.

        Raises:
            ValueError: ``num_parallel_calls`` not positive nor AUTOTUNE. While iterating, any
            exception ``map_func`` raises, with its traceback.

        >>> ds = ek.data.Dataset.from_tensor_slices(([1, 2], [10, 20]))
        >>> list(ds.map(lambda x, y: x + y, num_parallel_calls=2).as_numpy_iterator())
        [np.int32(11), np.int32(22)]
        """
        if num_parallel_calls is None:
            return _transforms.Map(self, map_func)
        n = _parallel.parallelism(num_parallel_calls, "map", "num_parallel_calls")
        return _parallel.ParallelMap(self, map_func, n, deterministic)

    def filter(self, predicate, name=None) -> Dataset:
        """Keeps the elements for which ``predicate`` (called like `map`'s function) returns
        True; it must return a bool scalar tensor or a Python bool (follows
        `tf.data.Dataset.filter`).

        Raises:
            ValueError: (while iterating) ``predicate`` returned something else.

        >>> list(ek.data.Dataset.range(6).filter(lambda x: x % 2 == 0).as_numpy_iterator())
        [np.int64(0), np.int64(2), np.int64(4)]
        """
        return _transforms.Filter(self, predicate)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Shuffles with a buffer (follows `tf.data.Dataset.shuffle`).

        Fills a buffer with the first ``buffer_size`` elements, then repeatedly emits a
        uniformly chosen buffered element and puts the next input element in its place; at
        the end of the input, the buffer is emptied in random order. A buffer at least as large
        as the dataset gives a uniform permutation.

        Args:
            buffer_size: a positive int.
            seed: op seed. With the same seed (and the same `ek.random.set_seed`), a fresh
                dataset gives the same order; with ``ek.random.set_seed`` alone, unseeded
                shuffles are reproducible too.
            reshuffle_each_iteration: True gives a different order each pass (a reproducible
                sequence of orders); False the same order every pass.

        Raises:
            ValueError: ``buffer_size`` is not positive.

        >>> ds = ek.data.Dataset.range(5).shuffle(5, seed=1)
        >>> sorted(ds.as_numpy_iterator()) == list(range(5))
        True
        """
        return _shuffle.Shuffle(self, buffer_size, seed, reshuffle_each_iteration)

    def batch(
        self,
        batch_size,
        drop_remainder=False,
        num_parallel_calls=None,
        deterministic=None,
        name=None,
    ) -> Dataset:
        """Stacks consecutive elements into batches of ``batch_size`` along a new first axis
        (follows `tf.data.Dataset.batch`). The last batch is smaller unless
        ``drop_remainder``. ``num_parallel_calls``/``deterministic`` are accepted; stacking is
        already one NumPy call per component.

        Raises:
            ValueError: ``batch_size`` not positive; (while iterating) elements whose shapes
            differ. TypeError: (while iterating) elements whose dtypes differ.

        >>> [b.numpy().tolist() for b in ek.data.Dataset.range(8).batch(3)]
        [[0, 1, 2], [3, 4, 5], [6, 7]]
        >>> [b.numpy().tolist() for b in ek.data.Dataset.range(8).batch(3, drop_remainder=True)]
        [[0, 1, 2], [3, 4, 5]]
        """
        return _transforms.Batch(self, batch_size, drop_remainder)

    def ragged_batch(
        self, batch_size, drop_remainder=False, row_splits_dtype=None, name=None
    ) -> Dataset:
        """Batches elements whose shapes differ: each component of rank >= 1 becomes a
        RaggedTensor with one row per element, scalars a vector (follows
        `tf.data.Dataset.ragged_batch`).

        Raises:
            ValueError: ``batch_size`` not positive; (while iterating) components whose
            dimensions after the first differ. NotImplementedError: a ``row_splits_dtype``
            other than int64.

        >>> ds = ek.data.Dataset.from_tensor_slices([1, 5, 3]).map(ek.range)
        >>> [rt.to_list() for rt in ds.ragged_batch(2)]
        [[[0], [0, 1, 2, 3, 4]], [[0, 1, 2]]]
        """
        from ..core import dtypes
        from .ragged_batch import RaggedBatch

        if row_splits_dtype not in (None, dtypes.int64):
            raise NotImplementedError(
                "ragged_batch: row splits are int64. Received: "
                f"row_splits_dtype={row_splits_dtype!r}"
            )
        return RaggedBatch(self, batch_size, drop_remainder)

    def padded_batch(
        self,
        batch_size,
        padded_shapes=None,
        padding_values=None,
        drop_remainder=False,
        name=None,
    ) -> Dataset:
        """Batches elements of differing shapes, padding each component to a common shape
        (follows `tf.data.Dataset.padded_batch`).

        Args:
            padded_shapes: per component, the shape to pad to; None dimensions (or None for
                the whole component, the default) pad to the largest in the batch. An int
                means a vector of that length.
            padding_values: per component, or one scalar for all; default 0.

        Raises:
            ValueError: ``batch_size`` not positive; (while iterating) an element larger than
            its padded shape, or of another rank.

        >>> A = ek.data.Dataset.range(1, 5, output_type=ek.int32).map(lambda x: ek.fill([x], x))
        >>> for b in A.padded_batch(2).as_numpy_iterator():
        ...     print(b.tolist())
        [[1, 0], [2, 2]]
        [[3, 3, 3, 0], [4, 4, 4, 4]]
        >>> for b in A.padded_batch(2, padded_shapes=5, padding_values=-1).as_numpy_iterator():
        ...     print(b.tolist())
        [[1, -1, -1, -1, -1], [2, 2, -1, -1, -1]]
        [[3, 3, 3, -1, -1], [4, 4, 4, 4, -1]]
        """
        return _transforms.PaddedBatch(
            self, batch_size, padded_shapes, padding_values, drop_remainder
        )

    def unbatch(self, name=None) -> Dataset:
        """Splits each element along its first dimension into elements (follows
        `tf.data.Dataset.unbatch`).

        Raises:
            ValueError: (while iterating) a scalar component, or components whose first
            dimensions differ.

        >>> ds = ek.data.Dataset.from_tensors([[1, 2], [3, 4]]).unbatch()
        >>> [x.numpy().tolist() for x in ds]
        [[1, 2], [3, 4]]
        """
        return _transforms.Unbatch(self)

    def repeat(self, count=None, name=None) -> Dataset:
        """Repeats the dataset ``count`` times; None or -1 forever (follows
        `tf.data.Dataset.repeat`). Each repetition is a new pass (shuffles reshuffle).

        >>> list(ek.data.Dataset.range(2).repeat(2).as_numpy_iterator())
        [np.int64(0), np.int64(1), np.int64(0), np.int64(1)]
        """
        return _transforms.Repeat(self, count)

    def take(self, count, name=None) -> Dataset:
        """The first ``count`` elements; -1 (any negative) takes all (follows
        `tf.data.Dataset.take`).

        >>> [len(list(ek.data.Dataset.range(5).take(n))) for n in (2, 9, -1)]
        [2, 5, 5]
        """
        return _transforms.Take(self, count)

    def skip(self, count, name=None) -> Dataset:
        """All but the first ``count`` elements; -1 (any negative) skips all (follows
        `tf.data.Dataset.skip`).

        >>> [len(list(ek.data.Dataset.range(5).skip(n))) for n in (2, 9, -1)]
        [3, 0, 0]
        """
        return _transforms.Skip(self, count)

    def enumerate(self, start=0, name=None) -> Dataset:
        """Pairs each element with an int64 counter from ``start`` (follows
        `tf.data.Dataset.enumerate`).

        >>> [(int(i), int(x)) for i, x in ek.data.Dataset.range(7, 9).enumerate(5)]
        [(5, 7), (6, 8)]
        """
        return _transforms.Enumerate(self, start)

    def concatenate(self, dataset, name=None) -> Dataset:
        """This dataset's elements, then ``dataset``'s (follows `tf.data.Dataset.concatenate`).

        Raises:
            TypeError: the element structures or dtypes differ.

        >>> a, b = ek.data.Dataset.range(1, 4), ek.data.Dataset.range(4, 8)
        >>> list(a.concatenate(b).as_numpy_iterator())[-2:]
        [np.int64(6), np.int64(7)]
        """
        return _sources.Concatenate(self, dataset)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None) -> Dataset:
        """Windows of ``size`` elements, each a Dataset (a structure of Datasets for structured
        elements), starting every ``shift`` elements (default ``size``) and taking every
        ``stride``-th element (follows `tf.data.Dataset.window`). Final windows are shorter
        unless ``drop_remainder``.

        Raises:
            ValueError: ``size``, ``shift`` or ``stride`` not positive.

        >>> ds = ek.data.Dataset.range(7).window(3, 2, 1, drop_remainder=True)
        >>> [list(w.as_numpy_iterator()) for w in ds]  # doctest: +NORMALIZE_WHITESPACE
        [[np.int64(0), np.int64(1), np.int64(2)], [np.int64(2), np.int64(3), np.int64(4)],
         [np.int64(4), np.int64(5), np.int64(6)]]
        >>> [w.batch(3).get_single_element().numpy().tolist() for w in ek.data.Dataset.range(
        ...      7).window(3, 1, 2, drop_remainder=True)]
        [[0, 2, 4], [1, 3, 5], [2, 4, 6]]
        """
        return _transforms.Window(self, size, shift, stride, drop_remainder)

    def interleave(
        self,
        map_func,
        cycle_length=None,
        block_length=None,
        num_parallel_calls=None,
        deterministic=None,
        name=None,
    ) -> Dataset:
        """Maps each element to a Dataset and interleaves them: ``cycle_length`` of them are
        open at once, and ``block_length`` consecutive elements are taken from each in turn;
        an exhausted one is replaced by the next input element's (follows
        `tf.data.Dataset.interleave`).

        Args:
            cycle_length: default (None or AUTOTUNE): the number of CPU cores.
            block_length: default 1.
            num_parallel_calls: N or AUTOTUNE iterates the open datasets in background
                threads (N at a time); the order is the same unless ``deterministic=False``.

        Raises:
            ValueError: a non-positive argument. TypeError: (while iterating) ``map_func``
            did not return a Dataset.

        >>> ds = ek.data.Dataset.range(1, 6).interleave(
        ...     lambda x: ek.data.Dataset.from_tensors(x).repeat(6), cycle_length=2,
        ...     block_length=4)
        >>> [int(x) for x in ds]  # doctest: +NORMALIZE_WHITESPACE
        [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 4, 4, 5, 5, 5, 5,
         5, 5]
        """
        cycle = _parallel.cycle_length(cycle_length)
        block = 1 if block_length is None else int_arg(block_length, "interleave", "block_length")
        if block <= 0:
            raise ValueError(
                f"interleave: block_length must be positive. Received: block_length={block}"
            )
        if num_parallel_calls is None:
            return _transforms.Interleave(self, map_func, cycle, block)
        n = _parallel.parallelism(num_parallel_calls, "interleave", "num_parallel_calls")
        return _parallel.ParallelInterleave(self, map_func, cycle, block, n, deterministic)

    def flat_map(self, map_func, name=None) -> Dataset:
        """Maps each element to a Dataset and chains them (follows `tf.data.Dataset.flat_map`).

        >>> ds = ek.data.Dataset.range(3).flat_map(lambda x: ek.data.Dataset.range(x))
        >>> [int(x) for x in ds]
        [0, 0, 1]
        """
        return _transforms.Interleave(self, map_func, 1, 1, name="flat_map")

    def with_options(self, options, name=None) -> Dataset:
        """This dataset with ``options`` (an `Options`) for its whole pipeline (follows
        `tf.data.Dataset.with_options`); see `eagerkernel.runtime.data.options`.

        Raises:
            TypeError: ``options`` is not an `Options`."""
        return _options.WithOptions(self, options)

    def options(self):
        """The `Options` of this pipeline: those of every `with_options` in it, merged in
        order (follows `tf.data.Dataset.options`)."""
        return _options.pipeline_options(self)

    def prefetch(self, buffer_size, name=None) -> Dataset:
        """Produces elements ahead of the consumer on a background thread, holding at most
        ``buffer_size`` (follows `tf.data.Dataset.prefetch`). Abandoning the iterator stops
        the thread; an exception raised upstream surfaces in the consuming loop.

        ``buffer_size=AUTOTUNE`` sizes the buffer from the first element (up to 64 elements
        or 32 MB), and makes no thread at all where elements are small slices or gathers of
        in-memory arrays (``from_tensor_slices(...).shuffle(...).batch(...)``): under the GIL,
        handing those over from another thread costs more than making them. 0 disables.

        Raises:
            ValueError: ``buffer_size`` negative and not AUTOTUNE.

        >>> list(ek.data.Dataset.range(3).prefetch(ek.data.AUTOTUNE).as_numpy_iterator())
        [np.int64(0), np.int64(1), np.int64(2)]
        """
        return _parallel.Prefetch(self, buffer_size)

    def cache(self, filename="", name=None) -> Dataset:
        """Caches the elements of the first complete pass: in memory (``filename=""``) or in a
        safetensors file at ``filename``, reused by later passes and by later datasets with the
        same filename (follows `tf.data.Dataset.cache`).

        A pass that stops early caches nothing; the file is written to a temporary name and
        renamed at the end of the pass, so it is never partial.

        Raises:
            ValueError: (while iterating) the file holds elements of another structure or
            dtype, or is not a cache file. TypeError: caching Dataset-valued components.

        >>> calls = []
        >>> ds = ek.data.Dataset.range(3).map(lambda x: calls.append(1) or x).cache()
        >>> _ = list(ds); _ = list(ds); len(calls)
        3
        """
        return _cache.Cache(self, filename)

    def shard(self, num_shards, index, name=None) -> Dataset:
        """Every ``num_shards``-th element, starting at ``index`` (follows
        `tf.data.Dataset.shard`).

        Raises:
            ValueError: ``num_shards`` not positive or ``index`` not in ``[0, num_shards)``.

        >>> list(ek.data.Dataset.range(10).shard(3, 1).as_numpy_iterator())
        [np.int64(1), np.int64(4), np.int64(7)]
        """
        return _transforms.Shard(self, num_shards, index)

    def apply(self, transformation_func) -> Dataset:
        """``transformation_func(self)``, which must return a Dataset (follows
        `tf.data.Dataset.apply`).

        Raises:
            TypeError: the function returned something else.

        >>> len(ek.data.Dataset.range(9).apply(lambda ds: ds.take(2)))
        2
        """
        out = transformation_func(self)
        if not isinstance(out, Dataset):
            raise TypeError(
                f"apply: transformation_func must return a Dataset. Received: {type(out).__name__}"
            )
        return out

    def reduce(self, initial_state, reduce_func, name=None):
        """Folds the elements: ``state = reduce_func(state, element)`` from ``initial_state``
        (follows `tf.data.Dataset.reduce`). Returns the final state as Tensors.

        >>> int(ek.data.Dataset.range(5).reduce(np.int64(0), lambda s, x: s + x))
        10
        """
        from .structure import call_args, function_output, normalize

        state = normalize(initial_state, "reduce")
        for element in self:
            state = function_output(call_args(reduce_func, state, element), "reduce")
        return state

    def get_single_element(self, name=None):
        """The only element (follows `tf.data.Dataset.get_single_element`).

        Raises:
            InvalidArgumentError: the dataset is empty or has more than one element (as
                TensorFlow's).

        >>> int(ek.data.Dataset.range(5).skip(4).get_single_element())
        4
        """
        op = "DatasetToSingleElement"
        it = iter(self)
        try:
            element = next(it)
        except StopIteration:
            raise InvalidArgumentError(
                None, op, "get_single_element: the dataset is empty."
            ) from None
        try:
            next(it)
        except StopIteration:
            return element
        raise InvalidArgumentError(
            None, op, "get_single_element: the dataset has more than one element."
        )


def _cpu():
    from ..core.device import CPU

    return CPU


# The subclasses import Dataset from this module, so they are bound after it exists.
from . import cache as _cache  # noqa: E402
from . import options as _options  # noqa: E402
from . import parallel as _parallel  # noqa: E402
from . import shuffle as _shuffle  # noqa: E402
from . import sources as _sources  # noqa: E402
from . import transforms as _transforms  # noqa: E402
