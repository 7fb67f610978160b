"""`Dataset.sample_from_datasets`, `Dataset.choose_from_datasets`, `Dataset.list_files` and
`Dataset.rejection_resample` (follow tf.data's): elements drawn from several datasets, the
files a glob matches, and elements resampled to a class distribution."""

from __future__ import annotations

import glob as _glob
import itertools
import os

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from .dataset import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from .shuffle import seed_key
from .sources import Concatenate, input_spec
from .structure import call, function_output

__all__ = [
    "ChooseFromDatasets",
    "RejectionResample",
    "SampleFromDatasets",
    "list_files",
    "sample_from_datasets",
]


def _datasets(datasets, op: str) -> list:
    datasets = list(datasets)
    if not datasets:
        raise ValueError(f"{op}: datasets must be a non-empty list of datasets.")
    for d in datasets:
        if not isinstance(d, Dataset):
            raise TypeError(f"{op}: datasets must be Datasets. Received: {type(d).__name__}")
    for d in datasets[1:]:
        try:
            Concatenate(datasets[0], d)  # the same element structure and dtypes
        except TypeError as exc:
            raise TypeError(f"{op}: {str(exc).split(': ', 1)[1]}") from None
    return datasets


class _Mix(Dataset):
    """Elements of several datasets, in an order the subclass picks."""

    def _spec(self, peek):
        return input_spec(self._inputs[0], peek)

    _data_inputs = slice(None)

    def _cardinality(self) -> int:
        # TF's DirectedInterleave: infinite if a data input is, else unknown
        inputs = self._inputs[self._data_inputs]
        if any(d._cardinality() == INFINITE_CARDINALITY for d in inputs):
            return INFINITE_CARDINALITY
        return UNKNOWN_CARDINALITY


class ChooseFromDatasets(_Mix):
    """`Dataset.choose_from_datasets`: the next element of ``datasets[i]`` for each ``i`` of
    ``choice_dataset``."""

    def __init__(self, datasets, choice_dataset, stop_on_empty_dataset=True):
        datasets = _datasets(datasets, "choose_from_datasets")
        if not isinstance(choice_dataset, Dataset):
            raise TypeError(
                "choose_from_datasets: choice_dataset must be a Dataset. Received: "
                f"{type(choice_dataset).__name__}"
            )
        spec = choice_dataset.element_spec
        if getattr(spec, "shape", None) != () or not spec.dtype.is_integer:
            raise TypeError(
                "choose_from_datasets: choice_dataset must be a dataset of scalar integers. "
                f"Received: {spec}"
            )
        super().__init__(*datasets, choice_dataset)
        self._stop = bool(stop_on_empty_dataset)
        self._data_inputs = slice(0, len(datasets))  # not the selector

    def _iter(self, ctx):
        *sources, choices = self._inputs
        its = [iter(d._iter(ctx)) for d in sources]
        done = [False] * len(its)
        for choice in choices._iter(ctx):
            k = int(choice.numpy() if isinstance(choice, Tensor) else choice)
            if not 0 <= k < len(its):
                raise InvalidArgumentError(
                    None,
                    "DirectedInterleave",
                    f"choose_from_datasets: selector index {k} is out of range for "
                    f"{len(its)} datasets.",
                )
            if done[k]:
                continue
            try:
                yield next(its[k])
            except StopIteration:
                done[k] = True
                if self._stop or all(done):
                    return


class SampleFromDatasets(_Mix):
    """`Dataset.sample_from_datasets`: each element from a dataset drawn by ``weights``."""

    def __init__(
        self,
        datasets,
        weights=None,
        seed=None,
        stop_on_empty_dataset=False,
        rerandomize_each_iteration=None,
    ):
        datasets = _datasets(datasets, "sample_from_datasets")
        if isinstance(weights, Dataset):
            raise NotImplementedError(
                "sample_from_datasets: weights as a Dataset is not supported; pass a list."
            )
        n = len(datasets)
        w = (
            np.full(n, 1.0 / n)
            if weights is None
            else np.asarray(
                weights.numpy() if isinstance(weights, Tensor) else weights, dtype=np.float64
            )
        )
        if w.shape != (n,):
            raise ValueError(
                f"sample_from_datasets: weights must have one entry per dataset ({n}); got "
                f"shape {w.shape}."
            )
        if np.any(w < 0) or not np.isfinite(w).all() or w.sum() <= 0:
            raise ValueError(
                f"sample_from_datasets: weights must be >= 0 with a positive sum; got {w.tolist()}."
            )
        super().__init__(*datasets)
        self._weights = w
        self._stop = bool(stop_on_empty_dataset)
        self._key = seed_key(None if seed is None else int(seed))
        self._rerandomize = bool(rerandomize_each_iteration)
        self._epoch = 0

    def _iter(self, ctx):
        epoch = 0
        if self._rerandomize:
            epoch = self._epoch
            if not ctx.peek:
                self._epoch += 1
        rng = np.random.default_rng([*self._key, epoch])
        its = [iter(d._iter(ctx)) for d in self._inputs]
        w = self._weights.copy()
        while w.sum() > 0:
            k = int(rng.choice(len(its), p=w / w.sum()))
            try:
                yield next(its[k])
            except StopIteration:
                if self._stop:
                    return
                w[k] = 0.0  # the others keep their relative weights


def sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset, rerandomize) -> Dataset:
    """`SampleFromDatasets`, or as TF, when Python-list weights leave one dataset of positive
    weight, that dataset itself (so its cardinality and order are kept)."""
    mixed = SampleFromDatasets(datasets, weights, seed, stop_on_empty_dataset, rerandomize)
    if isinstance(weights, (list, tuple)) and int((mixed._weights > 0).sum()) == 1:
        return mixed._inputs[int(np.argmax(mixed._weights))]
    return mixed


def list_files(file_pattern, shuffle=None, seed=None, name=None) -> Dataset:
    """A dataset of the file names that match ``file_pattern`` (a glob, or a list of them),
    as string scalars; shuffled unless ``shuffle=False`` (follows `tf.data.Dataset.list_files`).

    Raises:
        InvalidArgumentError: no file matches.
    """
    from .dataset import Dataset as _Dataset

    if isinstance(file_pattern, Tensor):
        file_pattern = file_pattern.numpy()
    patterns = (
        file_pattern if isinstance(file_pattern, (list, tuple, np.ndarray)) else [file_pattern]
    )
    patterns = [p.decode() if isinstance(p, bytes) else os.fspath(p) for p in patterns]
    files = sorted(f for p in patterns for f in _glob.glob(p))  # duplicates kept, as TF
    if not files:
        raise InvalidArgumentError(
            None, "MatchingFiles", f"list_files: No files matched pattern: {', '.join(patterns)}"
        )
    ds = _Dataset.from_tensor_slices(np.array([f.encode() for f in files], dtype=object))
    if shuffle is None or shuffle:
        ds = ds.shuffle(len(files), seed=seed)
    return ds


# -- rejection_resample -------------------------------------------------------------------------

_BATCH, _SMOOTHING = 32, 10  # TensorFlow's estimate of the input's class distribution


def _distribution(value, op: str, arg: str) -> np.ndarray:
    v = value.numpy() if isinstance(value, Tensor) else value
    try:
        d = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        d = None
    if d is None or d.ndim != 1 or not d.size or not np.isfinite(d).all():
        raise ValueError(
            f"{op}: {arg} must be a vector of class probabilities. Received: {arg}={value!r:.80}"
        )
    if np.any(d < 0) or d.sum() <= 0:
        raise ValueError(
            f"{op}: {arg} must be non-negative with a positive sum. Received: {arg}={d.tolist()}"
        )
    return d / d.sum()


def _acceptance(dist: np.ndarray, target: np.ndarray):
    """``(accept, m)``: per class the probability that rejection keeps an element, and the
    probability of taking an output from the unfiltered input (TensorFlow's mixing)."""
    ratio = target / (dist + np.finfo(np.float32).tiny)
    lo, hi = ratio.min(), ratio.max()
    accept = (ratio - lo) / (hi - lo) if hi > lo else np.zeros_like(ratio)
    return accept, lo


class RejectionResample(Dataset):
    """`Dataset.rejection_resample`: ``(class, element)`` pairs whose classes follow
    ``target_dist``."""

    def __init__(self, input: Dataset, class_func, target_dist, initial_dist=None, seed=None):
        op = "rejection_resample"
        if not callable(class_func):
            raise TypeError(f"{op}: class_func must be callable. Received: {class_func!r:.60}")
        target = _distribution(target_dist, op, "target_dist")
        initial = None if initial_dist is None else _distribution(initial_dist, op, "initial_dist")
        if initial is not None and initial.shape != target.shape:
            raise ValueError(
                f"{op}: initial_dist must have one entry per class of target_dist "
                f"({target.size}). Received: initial_dist={initial.tolist()}"
            )
        super().__init__(input)
        self._class_func = class_func
        self._target, self._initial = target, initial
        self._key = seed_key(None if seed is None else int(seed))

    def _classified(self, ctx):
        """``(k, class tensor, element)`` for each input element, one pass."""
        op = "rejection_resample"
        n = self._target.size
        for x in self._inputs[0]._iter(ctx):
            c = function_output(call(self._class_func, x), op)
            if not (isinstance(c, Tensor) and c.ndim == 0 and c.dtype.is_integer):
                raise TypeError(f"{op}: class_func must return an integer scalar. Received: {c!r}")
            k = int(c)
            if not 0 <= k < n:
                raise InvalidArgumentError(
                    None, "RejectionResample", f"{op}: class {k} is not in [0, {n})."
                )
            yield k, c, x

    def _estimated(self, items):
        """``(item, dist)``: each item with the class distribution estimated up to its batch."""
        if self._initial is not None:
            for item in items:
                yield item, self._initial
            return
        counts = np.full(self._target.size, _SMOOTHING, np.int64)
        while True:
            batch = list(itertools.islice(items, _BATCH))
            if not batch:
                return
            np.add.at(counts, [item[0] for item in batch], 1)
            dist = counts / counts.sum()
            for item in batch:
                yield item, dist

    def _filtered(self, ctx, rng):
        for (k, c, x), dist in self._estimated(self._classified(ctx)):
            if rng.random() < _acceptance(dist, self._target)[0][k]:
                yield c, x

    def _iter(self, ctx):
        target = self._target
        filter_rng = np.random.default_rng([*self._key, 0])
        mix_rng = np.random.default_rng([*self._key, 1])
        original = ((c, x) for _, c, x in self._classified(ctx))
        if self._initial is not None:
            m = _acceptance(self._initial, target)[1]
            if m == 1:  # TensorFlow's static shortcuts
                yield from original
                return
            if m == 0:
                yield from self._filtered(ctx, filter_rng)
                return
            probs = itertools.repeat(m)
        else:
            probs = (
                _acceptance(dist, target)[1] for _, dist in self._estimated(self._classified(ctx))
            )
        filtered = self._filtered(ctx, filter_rng)
        try:
            for p in probs:
                item = next(original if mix_rng.random() < p else filtered, None)
                if item is None:  # stop_on_empty_dataset, as TensorFlow's
                    return
                yield item
        finally:
            for stream in (original, filtered, probs):
                close = getattr(stream, "close", None)
                if close is not None:
                    close()
