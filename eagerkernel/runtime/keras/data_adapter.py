"""The batches `Model.fit`, `evaluate` and `predict` iterate (follows Keras's data adapters
and ``EpochIterator``).

Inputs are in-memory arrays (NumPy arrays or Tensors; nested tuples, lists or dicts for
several inputs), batched here; an `ek.data.Dataset` whose elements are batches ``x``,
``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``; or a Python iterator or generator of such
batches (read once). Each batch reaches the model as ``(x, y, sample_weight)`` of Tensors.
In-memory NumPy arrays (and lists) of a floating dtype are cast to floatx (float32), as Keras's
array adapter does (Keras 2's ``_process_tensorlike``), so ``y = np.random.random(...)``
meets float32 predictions; Tensors keep their dtype.

`EpochIterator` draws one epoch's batches. Without ``steps`` an epoch is one pass over the
data (an infinite Dataset then raises ValueError). With ``steps`` it draws that many batches
and keeps its place across epochs, starting the data again once it is exhausted; if the data
ends before ``steps`` batches it warns "Your input ran out of data", as Keras does.
"""

from __future__ import annotations

import math
import sys
import types
import warnings

import numpy as np

from .. import nest
from .. import random as ek_random
from ..core.tensor import Tensor, to_tensor
from . import run_limits
from .py_dataset import PyDataset
from .py_dataset import iterate as iterate_py_dataset

__all__ = [
    "EpochIterator",
    "check_steps",
    "class_weight_to_sample_weight",
    "get_adapter",
    "grouped",
    "is_dataset",
    "pack",
    "train_validation_split",
    "unpack",
    "yields_batches",
]


def is_dataset(x) -> bool:
    """True for an `ek.data.Dataset` (anything with ``element_spec`` that iterates). The
    class is asked, not the object: an empty mapped Dataset's ``element_spec`` raises."""
    kind = type(x)
    return hasattr(kind, "element_spec") and hasattr(kind, "__iter__") and not isinstance(x, Tensor)


def _is_iterator(x) -> bool:
    return hasattr(x, "__next__") and not isinstance(x, (Tensor, np.ndarray))


def is_torch_dataloader(x) -> bool:
    """True for a ``torch.utils.data.DataLoader`` (told by its class, without importing
    torch): Keras 3 takes one as ``x`` whatever its backend."""
    return any(
        c.__name__ == "DataLoader" and c.__module__.startswith("torch.utils.data")
        for c in type(x).__mro__
    )


def yields_batches(x) -> bool:
    """True for inputs whose elements are batches: a Dataset, a `PyDataset`, a torch
    DataLoader or a Python iterator."""
    return is_dataset(x) or _is_iterator(x) or isinstance(x, PyDataset) or is_torch_dataloader(x)


def unpack(element):
    """``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)`` -> ``(x, y, sample_weight)``
    (follows `keras.utils.unpack_x_y_sample_weight`: a list counts as a tuple, a namedtuple
    is one ``x``).

    Raises:
        ValueError: a tuple of another length.

    >>> unpack(1), unpack([1, 2]), unpack((1, 2, 3))
    ((1, None, None), (1, 2, None), (1, 2, 3))
    """
    if type(element) is list:
        element = tuple(element)
    if isinstance(element, tuple) and not hasattr(element, "_fields"):
        if len(element) == 1:
            return element[0], None, None
        if len(element) == 2:
            return element[0], element[1], None
        if len(element) == 3:
            return element
        raise ValueError(
            "Data elements must be x, (x,), (x, y) or (x, y, sample_weight). Received: a tuple "
            f"of {len(element)}."
        )
    return element, None, None


def pack(x, y=None, sample_weight=None):
    """A batch as Keras hands it to ``train_step``: ``x`` alone (``(x,)`` if ``x`` is a
    tuple or list), ``(x, y)``, or ``(x, y, sample_weight)`` (follows
    `keras.utils.pack_x_y_sample_weight`).

    >>> pack(1), pack((1, 2)), pack(1, 2), pack(1, 2, 3)
    (1, ((1, 2),), (1, 2), (1, 2, 3))
    """
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def _as_array(a, name: str):
    if a is None:
        return None
    if _is_sparse(a):  # a SparseTensor: sliced into batches of rows (see `_slice`)
        return a
    if isinstance(a, Tensor):
        arr = a.numpy()
    else:  # Keras's adapter: floating NumPy data (float64 from np.random ...) becomes floatx
        from .backend import floatx

        pandas = sys.modules.get("pandas")
        if pandas is not None and isinstance(a, pandas.Series):
            arr = np.expand_dims(a.to_numpy(), -1)  # Keras 3's PandasSeriesSliceable: (n, 1)
        else:
            arr = np.asarray(a)
        if arr.dtype.kind == "f" and arr.dtype != floatx():
            arr = arr.astype(floatx())
    if arr.ndim == 0:
        raise ValueError(
            f"`{name}` must be arrays with a batch axis (one row per example). Received: a "
            f"scalar {name}={a!r}."
        )
    return arr


def _num_examples(arrays) -> int | None:
    leaves = [a for a in nest.flatten(arrays) if a is not None]
    return int(leaves[0].shape[0]) if leaves else None


def _slice(arrays, idx):
    def rows(a):
        if a is None:
            return None
        if _is_sparse(a):
            return _sparse_rows(a, idx)
        return to_tensor(a[idx])

    return nest.map_structure(rows, arrays)


def _is_sparse(a) -> bool:
    from ..sparse.sparse_tensor import SparseTensor

    return isinstance(a, SparseTensor)


def _sparse_rows(st, idx):
    """The rows ``idx`` (a slice or an index array) of a SparseTensor, in that order."""
    from ..ops.indexing import gather
    from ..sparse.sparse_tensor import SparseTensor

    shape = np.asarray(st.dense_shape._value)
    rows = np.arange(int(shape[0]))[idx]
    where = np.full(int(shape[0]), -1, np.int64)
    where[rows] = np.arange(len(rows))
    indices = np.asarray(st.indices._value)
    new_row = where[indices[:, 0]]
    keep = np.nonzero(new_row >= 0)[0]
    if keep.size:  # row-major order: by the new row, then the other indices
        keep = keep[np.lexsort((*indices[keep, 1:].T[::-1], new_row[keep]))]
    new_indices = np.concatenate([new_row[keep, None], indices[keep, 1:]], axis=1)
    values = gather(st.values, keep.astype(np.int64))
    return SparseTensor(new_indices, values, np.concatenate([[len(rows)], shape[1:]]))


def _describe(value) -> str:
    shape = getattr(value, "shape", None)
    return f"{type(value).__name__} of shape {tuple(shape)}" if shape is not None else repr(value)


def _clean_class_weight(class_weight) -> dict:
    if not hasattr(class_weight, "items"):
        raise ValueError(
            "`class_weight` must be a dict mapping class indices to weights. Received: "
            f"class_weight={class_weight!r} of type {type(class_weight).__name__}."
        )
    weights = {}
    for key, value in class_weight.items():
        try:
            weights[int(key)] = float(value)
        except (TypeError, ValueError):
            raise ValueError(
                "`class_weight` must map integer class indices to float weights. Received: "
                f"the entry {key!r}: {value!r}."
            ) from None
    return weights


def class_weight_to_sample_weight(y, class_weight) -> np.ndarray:
    """Per-example weights ``class_weight[class of y[i]]`` (1.0 for classes not in the dict).

    The class of a row is ``y`` itself for integer labels (rounded), the argmax of a one-hot
    ``y`` (last axis > 1), or the single value of a last axis of 1 (follows Keras).

    Raises:
        ValueError: ``class_weight`` is not a dict of integer class indices, or ``y`` is nested
            or missing.
    """
    weights = _clean_class_weight(class_weight)
    if y is None or isinstance(y, (list, tuple, dict)):
        raise ValueError(
            "`class_weight` needs one array of targets `y` (a model with a single output). "
            f"Received: y of type {type(y).__name__}."
        )
    labels = y.numpy() if isinstance(y, Tensor) else np.asarray(y)
    if labels.ndim > 1:
        labels = labels.argmax(axis=-1) if labels.shape[-1] != 1 else labels[..., 0]
    labels = np.round(labels).astype(np.int64)
    out = np.ones(labels.shape, np.float32)
    for cls, w in weights.items():
        out[labels == cls] = w
    return out


def train_validation_split(x, y, sample_weight, validation_split):
    """Splits arrays into training and validation parts: the last ``validation_split`` of the
    examples (before any shuffling) become validation data, as Keras does (the first
    ``floor(n * (1 - validation_split))`` examples train).

    Returns:
        ``((x, y, sample_weight), (x_val, y_val, sample_weight_val))``.

    Raises:
        ValueError: the data is a Dataset or an iterator, ``validation_split`` is not in
            [0, 1), or a part would be empty.
    """
    if isinstance(validation_split, bool) or not 0.0 <= validation_split < 1.0:
        raise ValueError(
            "validation_split must be a float in [0, 1). Received: "
            f"validation_split={validation_split!r}"
        )
    if yields_batches(x):
        raise ValueError(
            "`validation_split` is only supported for arrays and Tensors; pass "
            f"`validation_data` with a Dataset. Received: x of type {type(x).__name__} and "
            f"validation_split={validation_split!r}."
        )
    arrays = nest.map_structure(lambda a: _as_array(a, "x"), (x, y, sample_weight))
    n = _num_examples(arrays)
    split_at = math.floor(n * (1.0 - validation_split))
    if split_at in (0, n):
        raise ValueError(
            f"The training data has {n} examples, too few to split with "
            f"validation_split={validation_split!r}: one part would be empty."
        )
    train = _slice(arrays, slice(0, split_at))
    val = _slice(arrays, slice(split_at, n))
    return train, val


class _ArrayAdapter:
    """Batches of in-memory arrays, shuffled per pass from the global random generator."""

    infinite = False

    def __init__(self, x, y, sample_weight, batch_size, steps, shuffle, class_weight):
        if class_weight is not None:
            if sample_weight is not None:
                raise ValueError(
                    "`class_weight` and `sample_weight` cannot be given together. Received: "
                    f"class_weight={class_weight!r} and sample_weight={_describe(sample_weight)}."
                )
            sample_weight = class_weight_to_sample_weight(y, class_weight)
        self.arrays = (
            nest.map_structure(lambda a: _as_array(a, "x"), x),
            nest.map_structure(lambda a: _as_array(a, "y"), y),
            nest.map_structure(lambda a: _as_array(a, "sample_weight"), sample_weight),
        )
        self.n = _num_examples(self.arrays[0])
        for name, part in zip(("x", "y", "sample_weight"), self.arrays):
            for a in nest.flatten(part):
                if a is not None and a.shape[0] != self.n:
                    raise ValueError(
                        f"Data cardinality is ambiguous: x has {self.n} examples, {name} has "
                        f"{a.shape[0]}."
                    )
        if batch_size is None:
            # Keras: with `steps` and no batch_size, the batches split the data in `steps`.
            batch_size = max(1, math.ceil(self.n / steps)) if steps else 32
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
            raise ValueError(
                f"batch_size must be a positive integer. Received: batch_size={batch_size!r}"
            )
        if batch_size <= 0:
            raise ValueError(f"batch_size must be positive. Received: batch_size={batch_size}")
        self.batch_size = int(batch_size)
        self.shuffle = shuffle
        self.num_batches = -(-self.n // self.batch_size)

    def __iter__(self):
        order = ek_random.generator().permutation(self.n) if self.shuffle else np.arange(self.n)
        for start in range(0, self.n, self.batch_size):
            yield pack(*_slice(self.arrays, order[start : start + self.batch_size]))


class _DatasetAdapter:
    """The elements of a Dataset (each a batch), class weights added per batch."""

    def __init__(self, dataset, class_weight):
        self.dataset = dataset
        self.class_weight = class_weight
        try:
            cardinality = int(dataset.cardinality())
        except (AttributeError, TypeError):
            cardinality = -2
        self.infinite = cardinality == -1
        self.num_batches = cardinality if cardinality >= 0 else None

    def __iter__(self):
        for element in self.dataset:
            yield _with_class_weight(element, self.class_weight)


class _IteratorAdapter:
    """A Python iterator or generator of batches: one pass, length unknown."""

    infinite = False
    num_batches = None

    def __init__(self, iterator, class_weight):
        self.iterator = iterator
        self.class_weight = class_weight

    def __iter__(self):
        for element in self.iterator:
            yield _with_class_weight(element, self.class_weight)


class _PyDatasetAdapter:
    """A `PyDataset`'s batches, an epoch per pass (Keras's rules for what an item may be:
    an array is ``(x,)``, a list a tuple, a dict one ``x``)."""

    def __init__(self, dataset, class_weight, shuffle: bool):
        self.dataset = dataset
        self.class_weight = class_weight
        self.shuffle = shuffle
        self.num_batches = dataset.num_batches
        self.infinite = self.num_batches is None
        self._epoch = 0

    def __iter__(self):
        epoch, self._epoch = self._epoch, self._epoch + 1
        for batch in iterate_py_dataset(self.dataset, self.shuffle, epoch):
            if isinstance(batch, list):
                batch = tuple(batch)
            if not isinstance(batch, (tuple, dict)):
                batch = (batch,)
            if isinstance(batch, tuple) and len(batch) not in (1, 2, 3):
                raise ValueError(
                    "PyDataset.__getitem__() must return a tuple or a dict: (inputs,), "
                    f"(inputs, targets) or (inputs, targets, sample_weights). Received: a "
                    f"tuple of {len(batch)}."
                )
            yield _with_class_weight(_as_tensors(batch), self.class_weight)


class _TorchLoaderAdapter:
    """A torch DataLoader's batches, a pass per epoch (its own sampler decides the order);
    torch tensors become Tensors (through NumPy, on the CPU)."""

    infinite = False

    def __init__(self, loader, class_weight):
        self.loader = loader
        self.class_weight = class_weight
        try:
            self.num_batches = len(loader)
        except TypeError:  # over an IterableDataset: its length is not known
            self.num_batches = None

    def __iter__(self):
        for batch in self.loader:
            batch = nest.map_structure(_from_torch, batch)
            if isinstance(batch, list):
                batch = tuple(batch)
            yield _with_class_weight(_as_tensors(batch), self.class_weight)


def _from_torch(value):
    numpy = getattr(value, "numpy", None)
    if numpy is not None and hasattr(value, "detach"):
        return value.detach().cpu().numpy()
    return value


def _as_tensors(batch):
    return nest.map_structure(
        lambda a: a if a is None or isinstance(a, Tensor) else to_tensor(np.asarray(a)), batch
    )


def _with_class_weight(data, class_weight):
    """The batch as the data gave it, or with ``class_weight`` as its sample weights."""
    if class_weight is None:
        return data
    x, y, sample_weight = unpack(data)
    if sample_weight is not None:
        raise ValueError(
            "`class_weight` and `sample_weight` cannot be given together: the data yields "
            f"(x, y, sample_weight) batches. Received: class_weight={class_weight!r}."
        )
    return pack(x, y, to_tensor(class_weight_to_sample_weight(y, class_weight)))


def get_adapter(x, y, sample_weight, batch_size, steps, shuffle, class_weight, method):
    """The batch source for ``method`` ("fit", "evaluate", "predict") and its data.

    Raises:
        ValueError: no ``x``; ``y`` or ``sample_weight`` given with a Dataset or iterator
            (its elements carry them); inconsistent array lengths; a bad ``batch_size``,
            ``shuffle`` or ``class_weight``.

    A ``batch_size`` given with a Dataset, an iterator, a PyDataset or a DataLoader is not
    used (a UserWarning says so), as Keras 3 ignores it.
    """
    if not isinstance(shuffle, (bool, np.bool_)):
        raise ValueError(f"shuffle must be True or False. Received: shuffle={shuffle!r}")
    if x is None:
        raise ValueError(f"{method}: no input data; pass `x` (arrays, Tensors or a Dataset).")
    if class_weight is not None:
        class_weight = _clean_class_weight(class_weight)  # bad values fail before training
        if isinstance(x, types.GeneratorType) or is_torch_dataloader(x):  # as Keras 3
            kind = "torch DataLoader" if is_torch_dataloader(x) else "Python generator"
            raise ValueError(
                f"{method}: argument `class_weight` is not supported for {kind} inputs (weigh "
                f"the batches it yields instead). Received: class_weight={class_weight}"
            )
    if isinstance(x, PyDataset) or is_torch_dataloader(x):
        for name, value in (("y", y), ("sample_weight", sample_weight)):
            if value is not None:
                kind = "DataLoader" if is_torch_dataloader(x) else "PyDataset"
                raise ValueError(
                    f"{method}: `{name}` must not be given when x is a {kind} (its items are "
                    f"batches). Received: {name}={_describe(value)}."
                )
        if batch_size is not None:  # Keras 3 takes it and ignores it: say so
            warnings.warn(
                f"{method}: batch_size={batch_size!r} is not used: x gives batches "
                f"({type(x).__name__}).",
                stacklevel=4,
            )
        if is_torch_dataloader(x):
            return _TorchLoaderAdapter(x, class_weight)
        return _PyDatasetAdapter(x, class_weight, shuffle and method == "fit")
    if is_dataset(x) or _is_iterator(x):
        kind = "a Dataset" if is_dataset(x) else "an iterator"
        for name, value in (("y", y), ("sample_weight", sample_weight)):
            if value is not None:
                raise ValueError(
                    f"{method}: `{name}` must not be given when x is {kind} (its elements are "
                    "batches (x, y) or (x, y, sample_weight)). Received: "
                    f"{name}={_describe(value)}."
                )
        if batch_size is not None:  # Keras 3 ignores it (keras.io's ddpm passes one): say so
            warnings.warn(
                f"{method}: batch_size={batch_size!r} is not used: x gives batches ({kind}).",
                stacklevel=4,
            )
        if is_dataset(x):
            return _DatasetAdapter(x, class_weight)
        return _IteratorAdapter(x, class_weight)
    return _ArrayAdapter(x, y, sample_weight, batch_size, steps, shuffle, class_weight)


def check_steps(steps, name: str):
    """``steps`` as a positive int, or None.

    Raises:
        ValueError: anything else, naming ``name``.
    """
    if steps is None:
        return None
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps <= 0:
        raise ValueError(
            f"`{name}` must be a positive integer (a number of batches) or None. Received: "
            f"{name}={steps!r}"
        )
    return int(steps)


class EpochIterator:
    """Draws the batches of successive epochs from an adapter (see the module docstring).

    Args:
        adapter: a batch source from `get_adapter`.
        steps: batches per epoch, or None for one pass over the data.
        steps_name: the argument that gave ``steps`` (named in errors and warnings).
        activity: "training", "evaluation" or "prediction" (named in the warning).
        per_execution: the model's ``steps_per_execution``. As Keras 3 runs ``ceil(steps /
            per_execution)`` executions of up to ``per_execution`` batches each, an epoch of
            ``steps`` draws ``steps`` rounded up to a multiple of it (steps=1 with
            steps_per_execution=2 draws 2 batches, as TF 2.21 does).

    Raises:
        ValueError: ``steps`` is not a positive integer, or is None for an infinite Dataset;
            the data is known to be empty.
    """

    def __init__(self, adapter, steps, steps_name: str, activity: str, per_execution: int = 1):
        self.adapter = adapter
        self.steps = check_steps(steps, steps_name)
        self.per_execution = per_execution
        cap = run_limits.max_steps_per_epoch()  # keras.config.set_max_steps_per_epoch
        if cap and (self.steps is None or cap < self.steps):
            warnings.warn(f"Limiting steps_per_epoch to {cap}", stacklevel=3)
            self.steps = cap
        self.steps_name = steps_name
        self.activity = activity
        if self.steps is None and adapter.infinite:
            raise ValueError(
                "The data is an infinite Dataset (repeated without a count): pass "
                f"`{steps_name}`, the number of batches to draw, so that the "
                f"{activity} can end. Received: {steps_name}=None."
            )
        if adapter.num_batches == 0 and activity == "prediction":
            raise ValueError(f"The data for {activity} is empty (no batch).")
        self.ran_out = False
        self._it = None
        self._seen_any = False

    @property
    def num_batches(self):
        """Batches per epoch: ``steps``, else the data's length (None if unknown)."""
        return self.steps if self.steps is not None else self.adapter.num_batches

    def reset(self) -> None:
        """Forgets the place kept across epochs: the next epoch starts the data again."""
        self.close()
        self.ran_out = False

    def close(self) -> None:
        it, self._it = self._it, None
        if hasattr(it, "close"):
            it.close()

    def _next(self):
        try:
            return next(self._it)
        except StopIteration:
            self._it = None
            return None

    def epoch(self):
        """The next epoch's batches, an iterator of ``(step, (x, y, sample_weight))``, or None
        if the data has no batch left (a consumed iterator, or the end of the data reached
        while keeping the place with ``steps``).

        Empty data gives None too (`fit` and `evaluate` then warn that the input ran out of
        data and give no results, as Keras 3 does).

        Raises:
            ValueError: the data for `predict` never gave a batch (it is empty).
        """
        fresh = self._it is None or self.steps is None
        if fresh:
            self.close()
            self._it = iter(self.adapter)
        first = self._next()
        if first is None and not fresh:  # the kept place was the end of the data: start again
            self._it = iter(self.adapter)
            first = self._next()
        if first is None:
            if not self._seen_any and self.activity == "prediction":
                raise ValueError(f"The data for {self.activity} is empty (no batch).")
            return None
        self._seen_any = True
        return self._batches(first)

    def _batches(self, first):
        yield 0, first
        step = 1
        draw = None if self.steps is None else -(-self.steps // self.per_execution)
        while draw is None or step < draw * self.per_execution:
            data = self._next()
            if data is None:
                if self.steps is not None:
                    self.warn_ran_out()
                return
            yield step, data
            step += 1

    def warn_ran_out(self) -> None:
        """Warns as Keras does when the data ends before ``steps`` batches."""
        self.ran_out = True
        if not self._seen_any:  # empty data: Keras's text
            steps = f"`{self.steps_name}`" + (" * epochs" if self.activity == "training" else "")
            advice = (
                f"Make sure that your dataset or generator can generate at least {steps} batches."
            )
        elif self.steps is None:  # a Python iterator read to its end by an earlier epoch
            advice = (
                f"A Python iterator or generator is read once: pass `{self.steps_name}` and "
                f"make it yield at least `{self.steps_name}` * epochs batches, or pass a Dataset."
            )
        else:
            needed = f"`{self.steps_name}`" + (" * epochs" if self.activity == "training" else "")
            advice = (
                f"Make sure that your dataset or generator can generate at least {needed} "
                f"batches ({self.steps_name}={self.steps}). You may need to use the `.repeat()` "
                "function when building your dataset."
            )
        warnings.warn(
            f"Your input ran out of data; interrupting {self.activity}. {advice}",
            UserWarning,
            stacklevel=2,
        )


def grouped(batches, size: int):
    """``(step, data)`` pairs in runs of ``size``: ``(first_step, last_step, [data, ...])``
    (the callback cadence of ``steps_per_execution``). ``last_step`` is always
    ``first_step + size - 1``, also for a shorter last run, as Keras 3 reports it."""
    group: list = []
    begin = 0
    for step, data in batches:
        if not group:
            begin = step
        group.append(data)
        if len(group) == size:
            yield begin, step, group
            group = []
    if group:
        yield begin, begin + size - 1, group
