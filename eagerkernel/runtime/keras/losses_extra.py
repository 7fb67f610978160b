"""Keras 3's newer losses: the generalized cross-entropy for noisy labels and the Circle
metric-learning loss, as functions and `Loss` classes (follow `keras.losses`); ``losses.py``
exports them with the rest."""

from __future__ import annotations

import numpy as np

from ..core.tensor import Tensor, to_tensor
from ..ops.activations import softplus
from ..ops.array_ops import reshape, squeeze
from ..ops.creation import eye, one_hot
from ..ops.elementwise import cast, equal, greater, maximum, pow, where
from ..ops.linalg import matmul
from ..ops.reduction import reduce_logsumexp, reduce_sum
from .losses import LossFunctionWrapper, compute_weighted_loss, pred_tensor

__all__ = [
    "CategoricalGeneralizedCrossEntropy",
    "Circle",
    "categorical_generalized_cross_entropy",
    "circle",
]


def categorical_generalized_cross_entropy(y_true, y_pred, q) -> Tensor:
    """The generalized cross-entropy ``(1 - p**q) / q`` of each sample, ``p`` the predicted
    probability of the true class (Zhang & Sabuncu, 2018; follows
    `keras.losses.categorical_generalized_cross_entropy`).

    Args:
        y_true: integer class indices, shape ``[batch]`` (any numeric dtype; cast to int).
        y_pred: class probabilities, shape ``[batch, num_classes]``, float.
        q: the noise parameter in (0, 1): towards 0 the loss behaves like cross-entropy,
            towards 1 like the mean absolute error. The function does not check it (Keras's
            does not either); the class does.

    Returns:
        ``[batch]`` losses, of ``y_pred``'s dtype (float32 for integer input).

    >>> y_pred = [[0.7, 0.3], [0.2, 0.8], [0.6, 0.4], [0.4, 0.6]]
    >>> f = ek.keras.losses.categorical_generalized_cross_entropy
    >>> f([0, 1, 0, 1], y_pred, q=0.5).numpy().round(6)
    array([0.32668 , 0.211146, 0.450807, 0.450807], dtype=float32)
    """
    y_pred = pred_tensor(y_pred, "categorical_generalized_cross_entropy")
    labels = cast(to_tensor(y_true, None, "categorical_generalized_cross_entropy"), "int64")
    mask = one_hot(labels, int(y_pred.shape[-1]), dtype=y_pred._value.dtype)
    p = reduce_sum(y_pred * mask, axis=-1)
    return (1.0 - pow(p, float(q))) / float(q)


def _pos_neg_masks(query_labels: Tensor, key_labels: Tensor, remove_diagonal: bool, dtype):
    """Keras's build_pos_neg_masks as float masks: ``pos[i, j] = 1`` where the labels match
    (off the diagonal with ``remove_diagonal``), ``neg = 1`` where they differ."""
    q = reshape(query_labels, (-1, 1)) if query_labels.ndim == 1 else query_labels
    k = reshape(key_labels, (1, -1))
    same = cast(equal(q, k), dtype)
    negative = 1.0 - same
    if remove_diagonal:
        n, m = int(np.prod(query_labels.shape)), int(np.prod(key_labels.shape))
        same = same * (1.0 - eye(n, m, dtype=dtype))
    return same, negative


def circle(
    y_true,
    y_pred,
    ref_labels=None,
    ref_embeddings=None,
    remove_diagonal=True,
    gamma=80,
    margin=0.4,
) -> Tensor:
    """The Circle loss of each query embedding (Sun et al., 2020; follows
    `keras.losses.circle`).

    With ``d = max(1 - y_pred @ ref_embeddings.T, 0)`` the pairwise cosine distances and
    ``pos``/``neg`` the pairs of equal/different labels::

        p_loss = logsumexp over pos of  -gamma * max(margin + d, 0) * (margin - d)
        n_loss = logsumexp over neg of   gamma * max(1 + margin - d, 0) * (1 - margin - d)
        loss = softplus(p_loss + n_loss)

    A row without positive (or negative) pairs has a logsumexp of -inf and a loss of 0.

    Args:
        y_true: integer labels, shape ``[batch]`` (cast to int).
        y_pred: L2-normalized embeddings, ``[batch, dim]``, float.
        ref_labels, ref_embeddings: the references compared with (default: ``y_true`` and
            ``y_pred`` themselves).
        remove_diagonal: leave the pairs ``(i, i)`` out of the positives (default True).
        gamma: the scale (default 80). margin: the relaxation (default 0.4).

    Returns:
        ``[batch]`` losses of ``y_pred``'s dtype. The `Circle` class averages over the
        positive ones only, as Keras's masked reduction.
    """
    y_pred = pred_tensor(y_pred, "circle")
    dtype = y_pred._value.dtype
    y_true = cast(to_tensor(y_true, None, "circle"), "int32")
    ref = y_pred if ref_embeddings is None else pred_tensor(ref_embeddings, "circle")
    ref_labels = (
        y_true if ref_labels is None else cast(to_tensor(ref_labels, None, "circle"), "int32")
    )
    gamma, margin = float(gamma), float(margin)
    d = maximum(1.0 - matmul(y_pred, ref, transpose_b=True), 0.0)
    pos, neg = _pos_neg_masks(y_true, ref_labels, bool(remove_diagonal), dtype)
    pos_weights = maximum((margin + d) * pos, 0.0)
    neg_weights = maximum((1.0 + margin - d) * neg, 0.0)
    pos_wdists = -gamma * pos_weights * (margin - d)
    neg_wdists = gamma * neg_weights * ((1.0 - margin) - d)
    ninf = np.array(-np.inf, dtype)
    p_loss = reduce_logsumexp(where(greater(pos, 0.0), pos_wdists, ninf), axis=1)
    n_loss = reduce_logsumexp(where(greater(neg, 0.0), neg_wdists, ninf), axis=1)
    return softplus(p_loss + n_loss)


class CategoricalGeneralizedCrossEntropy(LossFunctionWrapper):
    """The generalized cross-entropy of integer labels and class probabilities (follows
    `keras.losses.CategoricalGeneralizedCrossEntropy`); see
    `categorical_generalized_cross_entropy`.

    Args:
        q: the noise parameter, in the open interval (0, 1) (default 0.5).
        reduction: as `Loss` (default ``"sum_over_batch_size"``).
        name: default ``"categorical_generalized_cross_entropy"``.
        dtype: the dtype ``y_pred`` is cast to first (default None: its own).

    Raises:
        ValueError: ``q`` not in (0, 1).

    >>> y_pred = [[0.7, 0.3], [0.2, 0.8], [0.6, 0.4], [0.4, 0.6]]
    >>> loss = ek.keras.losses.CategoricalGeneralizedCrossEntropy()
    >>> round(float(loss([0, 1, 0, 1], y_pred)), 6)
    0.35986
    """

    def __init__(
        self,
        q=0.5,
        reduction="sum_over_batch_size",
        name="categorical_generalized_cross_entropy",
        dtype=None,
    ):
        if not 0 < q < 1:
            raise ValueError(f"q must be in the interval (0, 1). Received: q={q}")
        super().__init__(categorical_generalized_cross_entropy, reduction=reduction, name=name, q=q)
        self.q = q
        self.dtype = dtype


class Circle(LossFunctionWrapper):
    """The Circle metric-learning loss of integer labels and L2-normalized embeddings
    (follows `keras.losses.Circle`); see `circle`.

    As Keras, the per-sample losses that are 0 are masked out of the reduction: the mean
    reductions average over the positive losses only (0 if there is none).

    Args:
        gamma: the scale (default 80.0). margin: the relaxation (default 0.4).
        remove_diagonal: leave self-similarities out of the positives (default True).
        reduction: as `Loss` (default ``"sum_over_batch_size"``). name: default ``"circle"``.
        dtype: the dtype ``y_pred`` is cast to first (default None: its own).

    >>> emb = [[1.0, 0.0], [0.8, 0.6], [0.0, 1.0], [-0.6, 0.8]]
    >>> round(float(ek.keras.losses.Circle(gamma=2.0)([0, 0, 1, 1], emb)), 5)
    0.93371
    """

    def __init__(
        self,
        gamma=80.0,
        margin=0.4,
        remove_diagonal=True,
        reduction="sum_over_batch_size",
        name="circle",
        dtype=None,
    ):
        super().__init__(
            circle,
            reduction=reduction,
            name=name,
            gamma=gamma,
            margin=margin,
            remove_diagonal=remove_diagonal,
        )
        self.gamma, self.margin, self.remove_diagonal = gamma, margin, remove_diagonal
        self.dtype = dtype

    def __call__(self, y_true, y_pred, sample_weight=None) -> Tensor:
        y_pred = pred_tensor(y_pred, self.name)
        if self.dtype is not None:
            y_pred = cast(y_pred, self.dtype)
        elif y_pred._value.dtype == np.float16:
            y_pred = cast(y_pred, "float32")
        losses = self.call(y_true, y_pred)
        # Keras's mask `losses > 0`: under a mean reduction the kept entries weigh total/valid.
        mask = cast(greater(losses, 0.0), losses._value.dtype)
        if self.reduction in ("sum_over_batch_size", "mean"):  # in ops: a graph function
            valid = reduce_sum(mask)  # replays it with each call's count
            size = float(np.prod(mask.shape))
            mask = mask * where(greater(valid, 0.0), size / maximum(valid, 1.0), 0.0)
        if sample_weight is not None:
            w = cast(to_tensor(sample_weight, None, self.name), losses._value.dtype)
            if w.ndim == 2 and w.shape[-1] == 1:
                w = squeeze(w, -1)
            mask = mask * w
        return compute_weighted_loss(losses, mask, self.reduction)
