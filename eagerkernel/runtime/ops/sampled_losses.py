"""Sampled losses for many classes (`ek.nn.sampled_softmax_loss`, `ek.nn.nce_loss`), following
TensorFlow 2's functions of those names.

Both score each example against its true classes and a shared set of sampled classes (by
default from `log_uniform_candidate_sampler`, unique), from the rows of ``weights`` and
``biases`` at those classes: ``logits = inputs @ w[class] + b[class] - log(expected_count)``
(TensorFlow's ``_compute_sampled_logits``: subtracting the log expected count corrects for the
sampling). They are composed of differentiable ops (gather, matmul, log-sum-exp
cross-entropies), so gradients reach ``weights``, ``biases`` and ``inputs``; the sampled classes
and their expected counts are constants.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ._core import tensor
from .array_ops import concat, expand_dims, reshape
from .candidate_sampling import log_uniform_candidate_sampler
from .creation import ones_like, zeros_like
from .cross_entropy import sigmoid_cross_entropy_with_logits, softmax_cross_entropy_with_logits
from .elementwise import cast, equal, log, logical_and, logical_not, where
from .indexing import gather
from .linalg import matmul
from .reduction import reduce_any, reduce_sum

__all__ = ["nce_loss", "sampled_softmax_loss"]


def _rows(params, op: str, arg: str) -> Tensor:
    """``weights``/``biases``, a tensor or a list of shards (TensorFlow's partitioned
    variables, split by the "div" strategy: shard i holds the next block of classes, so the
    shards concatenated in order are the whole table)."""
    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError(f"{op}: {arg} is an empty list.")
        parts = [tensor(p, op) for p in params]
        return parts[0] if len(parts) == 1 else concat(parts, 0)
    return tensor(params, op)


def _sampled_logits(
    weights,
    biases,
    labels,
    inputs,
    num_sampled,
    num_classes,
    num_true,
    sampled_values,
    remove_accidental_hits,
    seed,
    op,
):
    """``(logits [batch, num_true + num_sampled], labels of the same shape)``: the true
    classes' logits then the sampled ones', each minus its log expected count, and the target
    distribution ``1 / num_true`` on the true classes."""
    w = _rows(weights, op, "weights")
    b = _rows(biases, op, "biases")
    x = tensor(inputs, op)
    if x._value.dtype.kind != "f" or x._value.ndim != 2:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: inputs must be a floating [batch_size, dim] tensor, got {x.dtype.name} of "
            f"shape {tuple(x._value.shape)}.",
        )
    num_true = int(num_true)
    y = tensor(labels, op, np.int64)
    if y._value.dtype.kind not in "iu":
        raise TypeError(f"{op}: labels must be int64 (or int32), got {y.dtype.name}.")
    n_b, dim = x._value.shape
    if tuple(y._value.shape) != (n_b, num_true):
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: labels must be [batch_size, num_true] = [{n_b}, {num_true}] (inputs of "
            f"shape {(n_b, dim)}), got shape {tuple(y._value.shape)}.",
        )
    if w._value.ndim != 2 or w._value.shape[1] != dim or b._value.shape != w._value.shape[:1]:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: weights must be [num_classes, {dim}] and biases [num_classes], got "
            f"{tuple(w._value.shape)} and {tuple(b._value.shape)}.",
        )
    y = cast(y, np.int64)
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(
            y, num_true, num_sampled, True, num_classes, seed=seed
        )
    sampled, true_count, sampled_count = (tensor(v, op) for v in sampled_values)
    sampled = cast(sampled, np.int64)
    flat = reshape(y, [-1])
    true_w = gather(w, flat)
    sampled_w = gather(w, sampled)
    true_b = gather(b, flat)
    sampled_b = gather(b, sampled)
    if true_w._value.dtype != x._value.dtype:
        true_w, sampled_w = cast(true_w, x.dtype), cast(sampled_w, x.dtype)
    if true_b._value.dtype != x._value.dtype:
        true_b, sampled_b = cast(true_b, x.dtype), cast(sampled_b, x.dtype)
    # [batch, num_true]: each example's dot product with its own true classes' rows.
    true_logits = reduce_sum(expand_dims(x, 1) * reshape(true_w, [-1, num_true, dim]), -1)
    true_logits = true_logits + reshape(true_b, [-1, num_true])
    sampled_logits = matmul(x, sampled_w, transpose_b=True) + sampled_b
    if remove_accidental_hits:
        sampled_logits = sampled_logits + _hit_penalty(y, sampled, x)
    dt = x.dtype
    true_logits = true_logits - log(cast(true_count, dt))
    sampled_logits = sampled_logits - log(cast(sampled_count, dt))
    logits = concat([true_logits, sampled_logits], 1)
    targets = concat([ones_like(true_logits) / num_true, zeros_like(sampled_logits)], 1)
    return logits, targets


def _hit_penalty(labels: Tensor, sampled: Tensor, x: Tensor) -> Tensor:
    """``-FLT_MAX`` where a sampled class is one of the example's true classes, else 0,
    ``[batch, num_sampled]``: `compute_accidental_hits` as ops (so a graph function recomputes
    it for each draw), including its rule that a class sampled several times is hit at its
    last position only."""
    same = equal(expand_dims(sampled, 1), expand_dims(sampled, 0))  # [S, S]
    n = sampled._value.shape[0]
    later = np.arange(n)[None, :] > np.arange(n)[:, None]
    last = logical_not(reduce_any(logical_and(same, later), 1))
    hit = reduce_any(equal(expand_dims(labels, 2), reshape(sampled, [1, 1, -1])), 1)
    hit = logical_and(hit, expand_dims(last, 0))
    return where(
        hit, np.asarray(-np.finfo(np.float32).max, x._value.dtype), zeros_like(hit, x.dtype)
    )


def sampled_softmax_loss(
    weights,
    biases,
    labels,
    inputs,
    num_sampled,
    num_classes,
    num_true=1,
    sampled_values=None,
    remove_accidental_hits=True,
    seed=None,
    name="sampled_softmax_loss",
) -> Tensor:
    """The softmax cross-entropy over each example's true classes and ``num_sampled`` sampled
    classes, a training-time estimate of the full softmax loss over ``num_classes`` classes
    (follows `tf.nn.sampled_softmax_loss`, Jean et al., 2014).

    Args:
        weights: ``[num_classes, dim]`` class embeddings (or a list of shards, split by rows).
        biases: ``[num_classes]`` class biases (or a list of shards).
        labels: int64 ``[batch_size, num_true]`` target classes.
        inputs: float ``[batch_size, dim]`` activations.
        num_sampled: how many classes to sample per batch.
        num_classes: the number of classes.
        num_true: target classes per example; the target distribution is ``1 / num_true`` on
            each.
        sampled_values: ``(sampled_candidates, true_expected_count, sampled_expected_count)``
            from a candidate sampler; default `log_uniform_candidate_sampler` with
            ``unique=True``.
        remove_accidental_hits: push the logit of a sampled class that is one of the example's
            true classes down to ``-FLT_MAX`` (TensorFlow's default here: True).
        seed: the default sampler's op-level seed.

    Returns:
        float ``[batch_size]``, the inputs' dtype. Gradients reach weights, biases and inputs.

    Raises:
        InvalidArgumentError: shapes that do not fit (each is named). TypeError: non-integer
            labels.

    >>> w, b = ek.ones([4, 2]), ek.zeros([4])
    >>> sampled = ([1, 2], [[1.0]], [1.0, 1.0])  # expected counts 1: no correction
    >>> loss = ek.nn.sampled_softmax_loss(w, b, [[0]], ek.ones([1, 2]), 2, 4,
    ...                                   sampled_values=sampled)
    >>> round(float(loss[0]), 4)  # three equal logits: log(3)
    1.0986
    """
    op = "sampled_softmax_loss"
    logits, targets = _sampled_logits(
        weights,
        biases,
        labels,
        inputs,
        num_sampled,
        num_classes,
        num_true,
        sampled_values,
        remove_accidental_hits,
        seed,
        op,
    )
    return softmax_cross_entropy_with_logits(labels=targets, logits=logits)


def nce_loss(
    weights,
    biases,
    labels,
    inputs,
    num_sampled,
    num_classes,
    num_true=1,
    sampled_values=None,
    remove_accidental_hits=False,
    seed=None,
    name="nce_loss",
) -> Tensor:
    """Noise-contrastive estimation loss: logistic regression of the true classes (targets
    ``1 / num_true``) against the sampled ones (targets 0), summed per example (follows
    `tf.nn.nce_loss`, Gutmann and Hyvarinen, 2010).

    Arguments as `sampled_softmax_loss`, but ``remove_accidental_hits`` defaults to False, as
    in TensorFlow. ``seed`` (which TensorFlow 2's nce_loss lacks) seeds the default sampler.

    Returns:
        float ``[batch_size]``, the inputs' dtype. Gradients reach weights, biases and inputs.

    >>> w, b = ek.zeros([4, 2]), ek.zeros([4])
    >>> sampled = ([1, 2], [[1.0]], [1.0, 1.0])
    >>> loss = ek.nn.nce_loss(w, b, [[0]], ek.ones([1, 2]), 2, 4, sampled_values=sampled)
    >>> round(float(loss[0]), 4)  # three logits 0: 3 * log(2)
    2.0794
    """
    op = "nce_loss"
    logits, targets = _sampled_logits(
        weights,
        biases,
        labels,
        inputs,
        num_sampled,
        num_classes,
        num_true,
        sampled_values,
        remove_accidental_hits,
        seed,
        op,
    )
    return reduce_sum(sigmoid_cross_entropy_with_logits(labels=targets, logits=logits), 1)
