"""Candidate samplers (`ek.random.log_uniform_candidate_sampler` and its kin, also under
``ek.nn``) and ``compute_accidental_hits``, following TensorFlow's ops of those names: the
negative classes of sampled losses (`sampled_losses.py`).

Each sampler returns ``(sampled_candidates, true_expected_count, sampled_expected_count)``:
int64 ``[num_sampled]``, float32 ``[batch, num_true]`` and float32 ``[num_sampled]``. The
expected count of a class of probability ``p`` is ``p * num_sampled`` when the candidates are
drawn with replacement; with ``unique=True`` the sampler draws until it has ``num_sampled``
distinct classes, after ``num_tries`` draws, and the expected count is the probability that the
class was drawn at all in those tries, ``-expm1(num_tries * log1p(-p))`` (TensorFlow's
``RangeSampler``; the first formula when no draw was repeated).

The draws come from `ek.random`'s generators: `ek.random.set_seed` makes them reproducible, an
op-level ``seed`` gives the same candidates on every call with it.
"""

from __future__ import annotations

import collections

import numpy as np

from .. import random as _random
from ..core.device import CPU
from ..core.dispatch import stateful
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, make
from ._core import tensor

__all__ = [
    "all_candidate_sampler",
    "compute_accidental_hits",
    "fixed_unigram_candidate_sampler",
    "log_uniform_candidate_sampler",
    "uniform_candidate_sampler",
]

_FLT_MAX = float(np.finfo(np.float32).max)
_FIELDS = ("sampled_candidates", "true_expected_count", "sampled_expected_count")
# The result types, named as TensorFlow's (fields readable by name or unpacked as a tuple).
LogUniformCandidateSampler = collections.namedtuple("LogUniformCandidateSampler", _FIELDS)
UniformCandidateSampler = collections.namedtuple("UniformCandidateSampler", _FIELDS)
FixedUnigramCandidateSampler = collections.namedtuple("FixedUnigramCandidateSampler", _FIELDS)
AllCandidateSampler = collections.namedtuple("AllCandidateSampler", _FIELDS)
ComputeAccidentalHits = collections.namedtuple(
    "ComputeAccidentalHits", ("indices", "ids", "weights")
)


def _true_classes(true_classes, num_true, op: str, range_max: int | None = None) -> np.ndarray:
    t = tensor(true_classes, op, np.int64)
    if t._value.dtype.kind not in "iu":
        raise TypeError(f"{op}: true_classes must be int64 (or int32), got {t.dtype.name}.")
    v = np.asarray(t.numpy(), np.int64)
    if v.ndim != 2 or v.shape[1] != int(num_true):
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: true_classes must be a matrix [batch_size, num_true] with num_true="
            f"{int(num_true)} columns, got shape {tuple(v.shape)}.",
        )
    bad = (v < 0) | (v >= range_max) if range_max is not None else np.zeros(v.shape, bool)
    if bad.any():
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: `true_candidate` out of range [0, {range_max}), received {int(v[bad][0])}.",
        )
    return v


def _count(value, op: str, arg: str, low: int) -> int:
    if isinstance(value, Tensor):
        value = value.numpy()
    if isinstance(value, bool) or int(value) != value or int(value) < low:
        raise InvalidArgumentError(None, op, f"{op}: {arg} must be an int >= {low}, got {value!r}.")
    return int(value)


def _unique_draws(draw, n: int) -> tuple[np.ndarray, int]:
    """The first ``n`` distinct values of the stream ``draw(size)`` produces, in the order
    they first appear, and how many draws that took (``num_tries``)."""
    if n == 0:
        return np.zeros(0, np.int64), 0
    stream = np.zeros(0, np.int64)
    size = max(2 * n, 16)
    while True:
        stream = np.concatenate([stream, draw(size)])
        _, first = np.unique(stream, return_index=True)
        if len(first) >= n:
            picks = np.sort(first)[:n]
            return stream[picks], int(picks[-1]) + 1
        size *= 2


def _expected(p: np.ndarray, n: int, tries: int) -> np.ndarray:
    if tries == n:  # always so without `unique`
        return (p * n).astype(np.float32)
    return (-np.expm1(tries * np.log1p(-p))).astype(np.float32)


def _sampler(kind, op, true_classes, num_true, num_sampled, unique, range_max, seed, prob, draw):
    """The samplers' common body: ``prob(ids)`` is each class's probability, ``draw(gen,
    size)`` draws classes (int64) from the NumPy Generator ``gen``; ``kind`` is the result's
    namedtuple type."""
    tc = _true_classes(true_classes, num_true, op, range_max)
    n = _count(num_sampled, op, "num_sampled", 0)
    if unique and n > range_max:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: Sampler's range is too small: num_sampled={n} unique candidates from "
            f"range_max={range_max} classes.",
        )
    gen = _random.generator(seed)
    if unique:
        values, tries = _unique_draws(lambda size: draw(gen, size), n)
    else:
        values, tries = draw(gen, n), n
    return kind(
        make(values.astype(np.int64), CPU),
        make(_expected(prob(tc), n, tries), CPU),
        make(_expected(prob(values), n, tries), CPU),
    )


@stateful  # a fresh draw on every call of a graph function
def log_uniform_candidate_sampler(
    true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None
):
    """Samples classes from the log-uniform (Zipfian) distribution ``P(k) = (log(k + 2) -
    log(k + 1)) / log(range_max + 1)`` over ``[0, range_max)`` (follows
    `tf.random.log_uniform_candidate_sampler`): suited to classes sorted by decreasing
    frequency, as words by rank.

    Args:
        true_classes: int64 ``[batch_size, num_true]``, the target classes.
        num_true: the number of target classes per example.
        num_sampled: how many classes to draw (>= 0).
        unique: draw without replacement (then ``num_sampled <= range_max``).
        range_max: the number of classes (>= 1).
        seed: op-level seed, combined with `ek.random.set_seed`'s.

    Returns:
        A namedtuple ``(sampled_candidates, true_expected_count, sampled_expected_count)``:
        int64 ``[num_sampled]``, float32 ``[batch_size, num_true]``, float32 ``[num_sampled]``
        (see the module's description of expected counts).

    Raises:
        InvalidArgumentError: ``true_classes`` not ``[batch_size, num_true]`` or outside
            ``[0, range_max)``, a negative ``num_sampled``, ``range_max < 1``, or ``unique``
            with ``num_sampled > range_max``.

    >>> s, t, e = ek.random.log_uniform_candidate_sampler(
    ...     [[0]], 1, num_sampled=2, unique=False, range_max=3, seed=1)
    >>> s.dtype, t.numpy().round(4)  # P(0) = log(2) / log(4) = 0.5, times 2 draws
    (ek.int64, array([[1.]], dtype=float32))
    """
    op = "log_uniform_candidate_sampler"
    r = _count(range_max, op, "range_max", 1)
    log_range = np.log(r + 1.0)

    def prob(k):
        k = np.asarray(k, np.float64)
        return (np.log(k + 2.0) - np.log(k + 1.0)) / log_range

    def draw(gen, size):
        v = np.exp(gen.random(size) * log_range).astype(np.int64) - 1
        return v % r

    return _sampler(
        LogUniformCandidateSampler,
        op,
        true_classes,
        num_true,
        num_sampled,
        unique,
        r,
        seed,
        prob,
        draw,
    )


@stateful  # a fresh draw on every call of a graph function
def uniform_candidate_sampler(
    true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None
):
    """Samples classes uniformly from ``[0, range_max)`` (follows
    `tf.random.uniform_candidate_sampler`). Arguments, results and errors as
    `log_uniform_candidate_sampler`; each class has probability ``1 / range_max``.

    >>> s, t, e = ek.random.uniform_candidate_sampler(
    ...     [[1, 2]], 2, num_sampled=4, unique=True, range_max=4, seed=0)
    >>> sorted(s.numpy().tolist()), e.numpy()  # all 4 classes, each surely drawn
    ([0, 1, 2, 3], array([1., 1., 1., 1.], dtype=float32))
    """
    op = "uniform_candidate_sampler"
    r = _count(range_max, op, "range_max", 1)

    def prob(k):
        return np.full(np.shape(k), 1.0 / r)

    def draw(gen, size):
        return gen.integers(0, r, size=size, dtype=np.int64)

    return _sampler(
        UniformCandidateSampler,
        op,
        true_classes,
        num_true,
        num_sampled,
        unique,
        r,
        seed,
        prob,
        draw,
    )


@stateful  # a fresh draw on every call of a graph function
def fixed_unigram_candidate_sampler(
    true_classes,
    num_true,
    num_sampled,
    unique,
    range_max,
    vocab_file="",
    distortion=1.0,
    num_reserved_ids=0,
    num_shards=1,
    shard=0,
    unigrams=(),
    seed=None,
    name=None,
):
    """Samples classes with probability proportional to ``unigrams[k] ** distortion``
    (follows `tf.random.fixed_unigram_candidate_sampler`, with the ``unigrams`` list).

    The first ``num_reserved_ids`` classes have probability 0; ``unigrams`` gives the counts
    (or probabilities) of the classes after them, so ``range_max == num_reserved_ids +
    len(unigrams)``. Other arguments, results and errors as `log_uniform_candidate_sampler`.

    Raises:
        NotImplementedError: ``vocab_file`` (reading counts from a file) or ``num_shards > 1``.
        InvalidArgumentError: no ``unigrams``, a length that does not match ``range_max``, a
            negative count, or ``unique`` with fewer classes of non-zero weight than
            ``num_sampled``.

    >>> s, t, e = ek.random.fixed_unigram_candidate_sampler(
    ...     [[2]], 1, num_sampled=3, unique=False, range_max=3, unigrams=[0, 0, 5], seed=0)
    >>> s.numpy(), t.numpy()
    (array([2, 2, 2]), array([[3.]], dtype=float32))
    """
    op = "fixed_unigram_candidate_sampler"
    if vocab_file:
        raise NotImplementedError(
            f"{op}: vocab_file (counts read from a file) is not supported; pass the counts "
            "as unigrams=[...]."
        )
    if int(num_shards) != 1 or int(shard) != 0:
        raise NotImplementedError(
            f"{op}: num_shards={num_shards}, shard={shard}: sharded sampling is not supported."
        )
    r = _count(range_max, op, "range_max", 1)
    reserved = _count(num_reserved_ids, op, "num_reserved_ids", 0)
    counts = np.asarray(unigrams.numpy() if isinstance(unigrams, Tensor) else unigrams, float)
    if counts.ndim != 1 or not len(counts) or reserved + len(counts) != r:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: range_max ({r}) must equal num_reserved_ids ({reserved}) plus the number of "
            f"unigrams ({counts.size}), and unigrams must be a non-empty list.",
        )
    if (counts < 0).any() or not np.isfinite(counts).all():
        raise InvalidArgumentError(None, op, f"{op}: unigrams must be finite and >= 0.")
    weights = np.concatenate([np.zeros(reserved), counts ** float(distortion)])
    if weights.sum() <= 0:
        raise InvalidArgumentError(None, op, f"{op}: every class has weight 0.")
    p_all = weights / weights.sum()
    if unique and np.count_nonzero(p_all) < int(num_sampled):
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: only {np.count_nonzero(p_all)} classes have a non-zero weight, fewer than "
            f"num_sampled={int(num_sampled)} unique candidates.",
        )
    cdf = np.cumsum(p_all)

    def prob(k):
        k = np.asarray(k, np.int64)
        return np.where((k >= 0) & (k < r), p_all[np.clip(k, 0, r - 1)], 0.0)

    def draw(gen, size):
        idx = np.searchsorted(cdf, gen.random(size) * cdf[-1], side="right")
        return np.minimum(idx, r - 1).astype(np.int64)

    return _sampler(
        FixedUnigramCandidateSampler,
        op,
        true_classes,
        num_true,
        num_sampled,
        unique,
        r,
        seed,
        prob,
        draw,
    )


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """The classes ``0 .. num_sampled - 1``, each with expected count 1, for testing (follows
    `tf.random.all_candidate_sampler`). ``unique`` and ``seed`` change nothing: every class
    is returned once.

    >>> s, t, e = ek.random.all_candidate_sampler([[1]], 1, num_sampled=3, unique=True)
    >>> s.numpy(), t.numpy(), e.numpy()
    (array([0, 1, 2]), array([[1.]], dtype=float32), array([1., 1., 1.], dtype=float32))
    """
    op = "all_candidate_sampler"
    n = _count(num_sampled, op, "num_sampled", 0)
    tc = _true_classes(true_classes, num_true, op, n)
    dev = CPU  # TensorFlow's candidate samplers are CPU kernels
    return AllCandidateSampler(
        make(np.arange(n, dtype=np.int64), dev),
        make(np.ones(tc.shape, np.float32), dev),
        make(np.ones(n, np.float32), dev),
    )


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """Where a sampled candidate equals one of an example's true classes (follows
    `tf.nn.compute_accidental_hits`): sampled losses push those logits down to ``-FLT_MAX``.

    Args:
        true_classes: int64 ``[batch_size, num_true]``.
        sampled_candidates: int64 ``[num_sampled]``.
        num_true: the number of true classes per example.

    Returns:
        ``(indices, ids, weights)`` (a namedtuple): int32 rows of ``true_classes``, int64
        positions in ``sampled_candidates``, and float32 ``-FLT_MAX`` for each hit, ordered
        by row, then by true class. As TensorFlow's kernel, a sampled class that occurs
        several times is reported at its last position only, and a true class repeated in a
        row is reported once per repeat.

    >>> i, j, w = ek.nn.compute_accidental_hits([[1, 2], [3, 4]], [4, 0, 1], num_true=2)
    >>> i.numpy(), j.numpy()
    (array([0, 1], dtype=int32), array([2, 0]))
    """
    op = "compute_accidental_hits"
    tc = _true_classes(true_classes, num_true, op)
    st = tensor(sampled_candidates, op, np.int64)
    if st._value.dtype.kind not in "iu" or st._value.ndim != 1:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: sampled_candidates must be an int64 vector, got {st.dtype.name} of shape "
            f"{tuple(st._value.shape)}.",
        )
    s = np.asarray(st.numpy(), np.int64)
    # A sampled class that occurs twice counts at its last position (TensorFlow's kernel maps
    # each class to one position); a true class repeated in a row hits once per repeat.
    last = {int(c): j for j, c in enumerate(s.tolist())}
    hits = [(i, last[c]) for i, row in enumerate(tc.tolist()) for c in row if c in last]
    hits = np.asarray(hits, np.int64).reshape(-1, 2)
    dev = CPU  # TensorFlow's candidate samplers are CPU kernels
    return ComputeAccidentalHits(
        make(hits[:, 0].astype(np.int32), dev),
        make(hits[:, 1], dev),
        make(np.full(len(hits), -_FLT_MAX, np.float32), dev),
    )
