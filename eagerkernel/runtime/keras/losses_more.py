"""More Keras losses (follow `tf.keras.losses`): KL divergence, Poisson, the hinges, log-cosh,
cosine similarity, percentage and logarithmic errors, and the focal cross-entropies, as
functions and `Loss` classes; ``losses.py`` has the common ones, the helpers and `get`."""

from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ..ops import nn
from ..ops.activations import softmax, softplus
from ..ops.elementwise import abs as _abs
from ..ops.elementwise import clip_by_value, log, maximum, pow, sigmoid, square
from ..ops.reduction import reduce_max, reduce_mean, reduce_sum
from . import backend
from .loss_reduction import shapes_broadcast
from .losses import (
    LossFunctionWrapper,
    aligned_pair,
    fuzz_epsilon,
    mean_last_axis,
    pred_tensor,
    true_tensor,
    wrapper_init,
)

__all__ = [
    "CTC",
    "BinaryFocalCrossentropy",
    "CategoricalFocalCrossentropy",
    "CategoricalHinge",
    "CosineSimilarity",
    "Dice",
    "Hinge",
    "KLDivergence",
    "LogCosh",
    "MeanAbsolutePercentageError",
    "MeanSquaredLogarithmicError",
    "Poisson",
    "SquaredHinge",
    "Tversky",
    "binary_focal_crossentropy",
    "categorical_focal_crossentropy",
    "categorical_hinge",
    "cosine_similarity",
    "ctc",
    "dice",
    "hinge",
    "kl_divergence",
    "log_cosh",
    "mean_absolute_percentage_error",
    "mean_squared_logarithmic_error",
    "poisson",
    "squared_hinge",
    "tversky",
]


def kl_divergence(y_true, y_pred) -> Tensor:
    """Kullback-Leibler divergence ``sum(y_true * log(y_true / y_pred), axis=-1)``, both
    clipped to ``[1e-7, 1]`` first (follows `tf.keras.losses.kl_divergence`).

    >>> ek.keras.losses.kl_divergence([[0.5, 0.5]], [[0.25, 0.75]]).numpy().round(6)
    array([0.143841], dtype=float32)
    """
    y_true, y_pred = aligned_pair(y_true, y_pred, "kl_divergence")
    y_true = clip_by_value(y_true, fuzz_epsilon(), 1.0)
    y_pred = clip_by_value(y_pred, fuzz_epsilon(), 1.0)
    return reduce_sum(y_true * log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred) -> Tensor:
    """Poisson loss ``mean(y_pred - y_true * log(y_pred + 1e-7), axis=-1)`` (follows
    `tf.keras.losses.poisson`)."""
    y_true, y_pred = aligned_pair(y_true, y_pred, "poisson")
    return mean_last_axis(y_pred - y_true * log(y_pred + fuzz_epsilon()))


def _hinge_labels(y_true: Tensor) -> Tensor:
    """Keras's convert_binary_labels_to_hinge: labels that are all 0 or 1 become -1 or 1."""
    v = y_true._value
    if bool(((v == 0) | (v == 1)).all()):
        return 2.0 * y_true - 1.0
    return y_true


def hinge(y_true, y_pred) -> Tensor:
    """Hinge loss ``mean(maximum(1 - y_true * y_pred, 0), axis=-1)`` (follows
    `tf.keras.losses.hinge`); labels are -1 or 1, and labels given as 0 or 1 are converted.

    >>> ek.keras.losses.hinge([[0.0, 1.0]], [[0.5, 0.2]]).numpy()
    array([1.15], dtype=float32)
    """
    y_true, y_pred = aligned_pair(y_true, y_pred, "hinge")
    return mean_last_axis(maximum(1.0 - _hinge_labels(y_true) * y_pred, 0.0))


def squared_hinge(y_true, y_pred) -> Tensor:
    """``mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)`` (follows
    `tf.keras.losses.squared_hinge`); 0/1 labels are converted to -1/1 as in `hinge`."""
    y_true, y_pred = aligned_pair(y_true, y_pred, "squared_hinge")
    return mean_last_axis(square(maximum(1.0 - _hinge_labels(y_true) * y_pred, 0.0)))


def categorical_hinge(y_true, y_pred) -> Tensor:
    """``maximum(neg - pos + 1, 0)`` with ``pos = sum(y_true * y_pred, -1)`` and
    ``neg = max((1 - y_true) * y_pred, -1)``, for one-hot labels (follows
    `tf.keras.losses.categorical_hinge`)."""
    y_true, y_pred = aligned_pair(y_true, y_pred, "categorical_hinge")
    pos = reduce_sum(y_true * y_pred, axis=-1)
    neg = reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return maximum(neg - pos + 1.0, 0.0)


def log_cosh(y_true, y_pred) -> Tensor:
    """``mean(log(cosh(y_pred - y_true)), axis=-1)``, computed as
    ``x + softplus(-2x) - log(2)`` so that large errors do not overflow (follows
    `tf.keras.losses.log_cosh`)."""
    y_true, y_pred = aligned_pair(y_true, y_pred, "log_cosh")
    x = y_pred - y_true
    return mean_last_axis(x + softplus(-2.0 * x) - float(np.log(2.0)))


def cosine_similarity(y_true, y_pred, axis=-1) -> Tensor:
    """The negated cosine similarity ``-sum(l2_normalize(y_true) * l2_normalize(y_pred))``
    along ``axis``, in [-1, 1]; -1 is the best value (follows
    `tf.keras.losses.cosine_similarity`)."""
    y_true, y_pred = aligned_pair(y_true, y_pred, "cosine_similarity")
    y_true = nn.l2_normalize(y_true, axis=axis)
    y_pred = nn.l2_normalize(y_pred, axis=axis)
    return -reduce_sum(y_true * y_pred, axis=axis)


def mean_absolute_percentage_error(y_true, y_pred) -> Tensor:
    """``100 * mean(abs((y_true - y_pred) / maximum(abs(y_true), 1e-7)), axis=-1)``
    (follows `tf.keras.losses.mean_absolute_percentage_error`)."""
    y_true, y_pred = aligned_pair(y_true, y_pred, "mean_absolute_percentage_error")
    diff = _abs((y_true - y_pred) / maximum(_abs(y_true), fuzz_epsilon()))
    return 100.0 * mean_last_axis(diff)


def mean_squared_logarithmic_error(y_true, y_pred) -> Tensor:
    """``mean(square(log(max(y_pred, 1e-7) + 1) - log(max(y_true, 1e-7) + 1)), axis=-1)``
    (follows `tf.keras.losses.mean_squared_logarithmic_error`)."""
    y_true, y_pred = aligned_pair(y_true, y_pred, "mean_squared_logarithmic_error")
    first = log(maximum(y_pred, fuzz_epsilon()) + 1.0)
    second = log(maximum(y_true, fuzz_epsilon()) + 1.0)
    return mean_last_axis(square(first - second))


def binary_focal_crossentropy(
    y_true,
    y_pred,
    apply_class_balancing=False,
    alpha=0.25,
    gamma=2.0,
    from_logits=False,
    label_smoothing=0.0,
    axis=-1,
) -> Tensor:
    """Binary focal cross-entropy (Lin et al., 2017), averaged over ``axis`` (follows
    `tf.keras.losses.binary_focal_crossentropy`).

    ``p_t = y * p + (1 - y) * (1 - p)``; the loss is ``(1 - p_t)**gamma * bce``, times
    ``alpha`` for positives and ``1 - alpha`` for negatives with ``apply_class_balancing``;
    ``bce`` is the binary cross-entropy with ``p`` clipped to ``[1e-7, 1 - 1e-7]``.
    ``from_logits`` applies a sigmoid first; ``label_smoothing`` as `binary_crossentropy`.
    """
    y_true, y_pred = aligned_pair(y_true, y_pred, "binary_focal_crossentropy")
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        y_pred = sigmoid(y_pred)
    p = clip_by_value(y_pred, fuzz_epsilon(), 1.0 - fuzz_epsilon())
    bce = -(y_true * log(p) + (1.0 - y_true) * log(1.0 - p))
    p_t = y_true * y_pred + (1.0 - y_true) * (1.0 - y_pred)
    focal = pow(1.0 - p_t, gamma) * bce
    if apply_class_balancing:
        focal = (y_true * alpha + (1.0 - y_true) * (1.0 - alpha)) * focal
    return reduce_mean(focal, axis=axis) if focal.ndim else focal


def categorical_focal_crossentropy(
    y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1
) -> Tensor:
    """Categorical focal cross-entropy, summed over ``axis`` (follows
    `tf.keras.losses.categorical_focal_crossentropy`).

    ``p`` (``y_pred`` renormalized along ``axis``, or its softmax with ``from_logits``,
    clipped to ``[1e-7, 1 - 1e-7]``): ``sum(alpha * (1 - p)**gamma * -y_true * log(p))``.
    ``label_smoothing`` as `categorical_crossentropy`.

    Raises:
        ValueError: if the shapes differ.
    """
    op = "categorical_focal_crossentropy"
    y_pred = pred_tensor(y_pred, op)
    y_true = true_tensor(y_true, y_pred, op)
    if tuple(y_true.shape) != tuple(y_pred.shape) or y_pred.ndim == 0:
        raise ValueError(
            f"{op}: y_true and y_pred must have the same shape (rank >= 1), received y_true "
            f"{tuple(y_true.shape)} and y_pred {tuple(y_pred.shape)}."
        )
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / y_pred.shape[-1]
    if from_logits:
        y_pred = softmax(y_pred, axis=axis)
    p = y_pred / reduce_sum(y_pred, axis=axis, keepdims=True)
    p = clip_by_value(p, fuzz_epsilon(), 1.0 - fuzz_epsilon())
    focal = alpha * pow(1.0 - p, gamma) * (-y_true * log(p))
    return reduce_sum(focal, axis=axis)


def _overlap_axis(axis, op: str):
    """``axis`` as Keras's ``dice``/``tversky`` take it: None (all axes), an int or a
    sequence of ints (a list after a JSON round trip)."""
    if axis is None or (isinstance(axis, int) and not isinstance(axis, bool)):
        return axis
    try:
        return [int(a) for a in axis]
    except (TypeError, ValueError):
        raise ValueError(
            f"{op}: axis must be None, an int or a tuple of ints. Received: axis={axis!r}"
        ) from None


def _overlap_pair(y_true, y_pred, op: str) -> tuple[Tensor, Tensor]:
    y_pred = pred_tensor(y_pred, op)
    y_true = true_tensor(y_true, y_pred, op)
    if not shapes_broadcast(tuple(y_true.shape), tuple(y_pred.shape)):
        raise InvalidArgumentError(
            f"{op}: y_true and y_pred shapes are incompatible: y_true {tuple(y_true.shape)}, "
            f"y_pred {tuple(y_pred.shape)}."
        )
    return y_true, y_pred


def dice(y_true, y_pred, axis=None) -> Tensor:
    """Dice loss ``1 - 2 * sum(y_true * y_pred) / (sum(y_true) + sum(y_pred) + epsilon)``,
    the sums over ``axis`` (follows `tf.keras.losses.dice`, Keras 3's formula; ``epsilon``
    is `ek.keras.backend.epsilon`).

    Args:
        y_true: targets, cast to ``y_pred``'s dtype. y_pred: predictions of the same shape.
        axis: None (default: sum over every axis, a scalar loss), an int or a tuple of ints
            (e.g. ``(1, 2, 3)`` for one loss per image).

    Returns:
        A Tensor of the shape left after summing over ``axis``.

    Raises:
        ValueError: shapes that differ, or a malformed ``axis``.

    >>> y_true = [[[[1.0], [1.0]], [[0.0], [0.0]]], [[[1.0], [1.0]], [[0.0], [0.0]]]]
    >>> y_pred = [[[[0.0], [1.0]], [[0.0], [1.0]]], [[[0.4], [0.0]], [[0.0], [0.9]]]]
    >>> ek.keras.losses.dice(y_true, y_pred, axis=(1, 2, 3)).numpy()
    array([0.5       , 0.75757575], dtype=float32)
    >>> round(float(ek.keras.losses.dice(y_true, y_pred)), 6)
    0.616438
    """
    axis = _overlap_axis(axis, "dice")
    y_true, y_pred = _overlap_pair(y_true, y_pred, "dice")
    intersection = reduce_sum(y_true * y_pred, axis=axis)
    total = reduce_sum(y_true, axis=axis) + reduce_sum(y_pred, axis=axis)
    return 1.0 - 2.0 * intersection / (total + backend.epsilon())


def tversky(y_true, y_pred, alpha=0.5, beta=0.5, axis=None) -> Tensor:
    """Tversky loss ``1 - tp / (tp + alpha * fp + beta * fn + epsilon)`` (follows
    `tf.keras.losses.tversky`, Keras 3's formula, whose terms are ``tp = sum(y_true *
    y_pred)``, ``fp = sum((1 - y_pred) * y_true)`` and ``fn = sum(y_pred * (1 - y_true))``
    over ``axis``); ``alpha = beta = 0.5`` gives the `dice` loss.

    Args:
        y_true, y_pred, axis: as `dice`.
        alpha: the weight of the ``fp`` term (default 0.5). beta: of ``fn`` (default 0.5).

    Raises:
        ValueError: shapes that differ, or a malformed ``axis``.

    >>> y_true = [[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0]]
    >>> y_pred = [[0.9, 0.2, 0.6, 0.1], [0.3, 0.8, 0.4, 0.7]]
    >>> round(float(ek.keras.losses.tversky(y_true, y_pred, alpha=0.3, beta=0.7)), 5)
    0.2093
    """
    axis = _overlap_axis(axis, "tversky")
    y_true, y_pred = _overlap_pair(y_true, y_pred, "tversky")
    tp = reduce_sum(y_true * y_pred, axis=axis)
    fp = reduce_sum((1.0 - y_pred) * y_true, axis=axis)
    fn = reduce_sum(y_pred * (1.0 - y_true), axis=axis)
    return 1.0 - tp / (tp + fp * float(alpha) + fn * float(beta) + backend.epsilon())


class Dice(LossFunctionWrapper):
    """Dice loss (follows `tf.keras.losses.Dice`); see `dice`.

    Args:
        reduction: as `Loss` (default ``"sum_over_batch_size"``). name: default ``"dice"``.
        axis: the axes the sums run over (default None: all, one scalar per call).
        dtype: the dtype ``y_pred`` is cast to first (default None: its own).

    >>> y_true = [[[[1.0], [1.0]], [[0.0], [0.0]]], [[[1.0], [1.0]], [[0.0], [0.0]]]]
    >>> y_pred = [[[[0.0], [1.0]], [[0.0], [1.0]]], [[[0.4], [0.0]], [[0.0], [0.9]]]]
    >>> ek.keras.losses.Dice(axis=(1, 2, 3), reduction=None)(y_true, y_pred).numpy()
    array([0.5       , 0.75757575], dtype=float32)
    """

    def __init__(self, reduction="sum_over_batch_size", name="dice", axis=None, dtype=None):
        axis = _overlap_axis(axis, "Dice")
        super().__init__(dice, reduction=reduction, name=name, axis=axis)
        self.axis = axis
        self.dtype = dtype

    def get_config(self) -> dict:
        return {"name": self.name, "reduction": self.reduction, "axis": self.axis}


class Tversky(LossFunctionWrapper):
    """Tversky loss (follows `tf.keras.losses.Tversky`); see `tversky`.

    Args:
        alpha: weight of the false-positive term, default 0.5. beta: of the false-negative
            term, default 0.5. reduction, name (default ``"tversky"``), axis, dtype: as `Dice`.

    >>> loss = ek.keras.losses.Tversky(alpha=0.2, beta=0.8)
    >>> round(float(loss([[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]])), 6)
    0.0
    """

    def __init__(
        self,
        alpha=0.5,
        beta=0.5,
        reduction="sum_over_batch_size",
        name="tversky",
        axis=None,
        dtype=None,
    ):
        axis = _overlap_axis(axis, "Tversky")
        alpha, beta = float(alpha), float(beta)
        super().__init__(tversky, reduction=reduction, name=name, alpha=alpha, beta=beta, axis=axis)
        self.alpha, self.beta, self.axis = alpha, beta, axis
        self.dtype = dtype

    def get_config(self) -> dict:
        return {
            "name": self.name,
            "reduction": self.reduction,
            "alpha": self.alpha,
            "beta": self.beta,
            "axis": self.axis,
        }


def ctc(y_true, y_pred) -> Tensor:
    """The CTC loss of each batch item (follows `tf.keras.losses.ctc`).

    Args:
        y_true: ``(batch, max_length)`` integer labels; 0 is the blank (and the padding): a
            row's label length is its number of non-zero entries.
        y_pred: ``(batch, time, num_classes)`` logits (not softmax-ed); every row uses all
            ``time`` steps.

    Returns:
        float32 ``(batch,)``: the negative log-likelihood of each row's labels.

    Raises:
        ValueError: ``y_true`` not of rank 2 or ``y_pred`` not of rank 3 (Keras's messages).
    """
    from ..core import dtypes
    from ..core.tensor import to_tensor
    from ..ops.creation import fill
    from ..ops.ctc import ctc_loss
    from ..ops.elementwise import cast, not_equal

    labels, logits = to_tensor(y_true, None, "ctc"), pred_tensor(y_pred, "ctc")
    if labels.ndim != 2:
        raise ValueError(
            "Targets `y_true` are expected to be a tensor of shape `(batch_size, max_length)` "
            f"in integer format. Received: y_true.shape={tuple(labels.shape)}"
        )
    if logits.ndim != 3:
        raise ValueError(
            "Logits `y_pred` are expected to be a tensor of shape `(batch_size, max_length, "
            f"num_classes)`. Received: y_pred.shape={tuple(logits.shape)}"
        )
    if logits.dtype not in (dtypes.float32, dtypes.float64):  # float16: computed in float32
        logits = cast(logits, dtypes.float32)
    labels = cast(labels, dtypes.int32)
    label_length = reduce_sum(cast(not_equal(labels, 0), dtypes.int32), axis=-1)
    logit_length = fill([int(logits.shape[0])], int(logits.shape[1]))
    return ctc_loss(labels, logits, label_length, logit_length, False, blank_index=0)


class CTC(LossFunctionWrapper):
    """CTC loss (follows `tf.keras.losses.CTC`); see `ctc`.

    Args:
        reduction: as `Loss` (default ``"sum_over_batch_size"``). name: default ``"ctc"``.
        dtype: the dtype ``y_pred`` is cast to first (default None: its own).
    """

    def __init__(self, reduction="sum_over_batch_size", name="ctc", dtype=None):
        super().__init__(ctc, reduction=reduction, name=name)
        self.dtype = dtype

    def get_config(self) -> dict:
        return {"name": self.name, "reduction": self.reduction}


class KLDivergence(LossFunctionWrapper):
    """Kullback-Leibler divergence (follows `tf.keras.losses.KLDivergence`); see
    `kl_divergence`."""

    __init__ = wrapper_init(kl_divergence, "kl_divergence")


class Poisson(LossFunctionWrapper):
    """Poisson loss (follows `tf.keras.losses.Poisson`); see `poisson`."""

    __init__ = wrapper_init(poisson, "poisson")


class Hinge(LossFunctionWrapper):
    """Hinge loss (follows `tf.keras.losses.Hinge`); see `hinge`."""

    __init__ = wrapper_init(hinge, "hinge")


class SquaredHinge(LossFunctionWrapper):
    """Squared hinge loss (follows `tf.keras.losses.SquaredHinge`); see `squared_hinge`."""

    __init__ = wrapper_init(squared_hinge, "squared_hinge")


class CategoricalHinge(LossFunctionWrapper):
    """Categorical hinge loss (follows `tf.keras.losses.CategoricalHinge`); see
    `categorical_hinge`."""

    __init__ = wrapper_init(categorical_hinge, "categorical_hinge")


class LogCosh(LossFunctionWrapper):
    """Logarithm of the hyperbolic cosine of the error (follows `tf.keras.losses.LogCosh`);
    see `log_cosh`."""

    __init__ = wrapper_init(log_cosh, "log_cosh")


class MeanAbsolutePercentageError(LossFunctionWrapper):
    """Mean absolute percentage error (follows
    `tf.keras.losses.MeanAbsolutePercentageError`); see `mean_absolute_percentage_error`."""

    __init__ = wrapper_init(mean_absolute_percentage_error, "mean_absolute_percentage_error")


class MeanSquaredLogarithmicError(LossFunctionWrapper):
    """Mean squared logarithmic error (follows
    `tf.keras.losses.MeanSquaredLogarithmicError`); see `mean_squared_logarithmic_error`."""

    __init__ = wrapper_init(mean_squared_logarithmic_error, "mean_squared_logarithmic_error")


class CosineSimilarity(LossFunctionWrapper):
    """Negated cosine similarity along ``axis`` (follows `tf.keras.losses.CosineSimilarity`);
    see `cosine_similarity`.

    Args:
        axis: the axis of the vectors (default -1).
    """

    def __init__(
        self, axis=-1, reduction="sum_over_batch_size", name="cosine_similarity", dtype=None
    ):
        super().__init__(cosine_similarity, reduction=reduction, name=name, dtype=dtype, axis=axis)
        self.axis = axis


class BinaryFocalCrossentropy(LossFunctionWrapper):
    """Binary focal cross-entropy (follows `tf.keras.losses.BinaryFocalCrossentropy`); see
    `binary_focal_crossentropy`.

    Args:
        apply_class_balancing: weight positives by ``alpha``, negatives by ``1 - alpha``.
        alpha: default 0.25. gamma: the focusing parameter, default 2.
        from_logits, label_smoothing, axis: as `BinaryCrossentropy`.
    """

    def __init__(
        self,
        apply_class_balancing=False,
        alpha=0.25,
        gamma=2.0,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction="sum_over_batch_size",
        name="binary_focal_crossentropy",
        dtype=None,
    ):
        super().__init__(
            binary_focal_crossentropy,
            reduction=reduction,
            name=name,
            dtype=dtype,
            apply_class_balancing=bool(apply_class_balancing),
            alpha=float(alpha),
            gamma=float(gamma),
            from_logits=bool(from_logits),
            label_smoothing=float(label_smoothing),
            axis=axis,
        )
        self.from_logits = bool(from_logits)


class CategoricalFocalCrossentropy(LossFunctionWrapper):
    """Categorical focal cross-entropy (follows
    `tf.keras.losses.CategoricalFocalCrossentropy`); see `categorical_focal_crossentropy`.

    Args:
        alpha: default 0.25. gamma: the focusing parameter, default 2.
        from_logits, label_smoothing, axis: as `CategoricalCrossentropy`.
    """

    def __init__(
        self,
        alpha=0.25,
        gamma=2.0,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction="sum_over_batch_size",
        name="categorical_focal_crossentropy",
        dtype=None,
    ):
        super().__init__(
            categorical_focal_crossentropy,
            reduction=reduction,
            name=name,
            dtype=dtype,
            alpha=float(alpha),
            gamma=float(gamma),
            from_logits=bool(from_logits),
            label_smoothing=float(label_smoothing),
            axis=axis,
        )
        self.from_logits = bool(from_logits)
