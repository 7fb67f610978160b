"""Keras losses: per-sample functions and `Loss` classes that reduce them
(follows `tf.keras.losses`, Keras 3's formulas).

A loss function, e.g. ``mean_squared_error(y_true, y_pred)``, returns one value per sample
(the mean over the last axis for elementwise losses). A `Loss` object calls it and reduces the
result: by default ``SUM_OVER_BATCH_SIZE``, the sum of the (weighted) per-sample losses divided
by their number. Everything is written with eagerkernel ops, so losses are differentiable and
recorded on tapes.

``from_logits=True`` uses the numerically stable ops (`ek.nn.softmax_cross_entropy_with_logits`
and friends, log-sum-exp); for probabilities the predictions are clipped to
``[1e-7, 1 - 1e-7]`` before the log, as Keras does.

Shapes: ``y_true`` and ``y_pred`` are first brought to the same rank as Keras does (a trailing
axis of 1 is squeezed or added: ``y_true`` of shape ``[N]`` against ``y_pred`` of shape
``[N, 1]`` works); shapes that still differ raise ValueError naming both, rather than
broadcasting ``[N]`` against ``[N, 1]`` into a silent ``[N, N]``.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, to_tensor
from ..ops import nn
from ..ops.array_ops import expand_dims, squeeze
from ..ops.elementwise import abs as _abs
from ..ops.elementwise import cast, clip_by_value, log, minimum, square, where
from ..ops.reduction import reduce_mean, reduce_sum
from . import backend
from .logits import prefer_logits
from .loss_masks import apply_mask, merge_masks
from .loss_reduction import KERAS_REDUCTIONS, reduce_weighted_values, shapes_broadcast

__all__ = [
    "CTC",
    "KLD",
    "MAE",
    "MAPE",
    "MSE",
    "MSLE",
    "BinaryCrossentropy",
    "BinaryFocalCrossentropy",
    "CategoricalCrossentropy",
    "CategoricalFocalCrossentropy",
    "CategoricalHinge",
    "CosineSimilarity",
    "Dice",
    "Hinge",
    "Huber",
    "KLDivergence",
    "LogCosh",
    "Loss",
    "LossFunctionWrapper",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanSquaredError",
    "MeanSquaredLogarithmicError",
    "Poisson",
    "Reduction",
    "SparseCategoricalCrossentropy",
    "SquaredHinge",
    "Tversky",
    "binary_crossentropy",
    "binary_focal_crossentropy",
    "categorical_crossentropy",
    "categorical_focal_crossentropy",
    "categorical_hinge",
    "cosine_similarity",
    "ctc",
    "deserialize",
    "dice",
    "get",
    "hinge",
    "huber",
    "kl_divergence",
    "kld",
    "kullback_leibler_divergence",
    "log_cosh",
    "logcosh",
    "mae",
    "mape",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_error",
    "mean_squared_logarithmic_error",
    "mse",
    "msle",
    "poisson",
    "serialize",
    "sparse_categorical_crossentropy",
    "squared_hinge",
    "tversky",
]

EPSILON = 1e-7  # Keras's default backend.epsilon(), the clipping bound for probabilities


def fuzz_epsilon() -> float:
    """`ek.keras.backend.epsilon`, read at each call (`set_epsilon` changes it)."""
    return backend.epsilon()


class Reduction:
    """How a `Loss` reduces per-sample losses (follows `tf.keras.losses.Reduction`).

    ``AUTO`` means ``SUM_OVER_BATCH_SIZE``. The TensorFlow 1.x members of ``ek.losses.Reduction``
    (``MEAN``, ``SUM_BY_NONZERO_WEIGHTS``) are understood by the TF 1.x functions only.
    """

    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls) -> tuple:
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key) -> str:
        """``key`` if it is one of Keras 3's reductions (kept as given, as Keras's
        ``get_config`` shows it), else the Keras one for a TF 1.x / Keras 2 spelling.

        Raises:
            ValueError: for an unknown reduction.
        """
        aliases = {
            "weighted_sum": cls.SUM,  # TF 1.x spellings
            "weighted_sum_over_batch_size": cls.SUM_OVER_BATCH_SIZE,
            cls.AUTO: cls.SUM_OVER_BATCH_SIZE,
        }
        key = aliases.get(key, key) if isinstance(key, str) else key
        if key not in KERAS_REDUCTIONS:
            raise ValueError(
                f"Invalid loss reduction: invalid value for argument `reduction`. Expected one of "
                f"{list(KERAS_REDUCTIONS)}. Received: reduction={key!r}"
            )
        return key


# -- helpers ------------------------------------------------------------------------------------


def pred_tensor(y_pred, op: str) -> Tensor:
    """``y_pred`` as a floating Tensor (integers become float32, as Keras's floatx)."""
    t = to_tensor(y_pred, np.float32, op)
    if t._value.dtype.kind not in "fc":
        t = cast(t, "float32")
    return t


def true_tensor(y_true, like: Tensor, op: str) -> Tensor:
    """``y_true`` as a Tensor of ``like``'s dtype."""
    t = to_tensor(y_true, like._value.dtype, op)
    if t._value.dtype != like._value.dtype:
        t = cast(t, like._value.dtype)
    return t


def squeeze_or_expand_to_same_rank(x1: Tensor, x2: Tensor, expand_rank_1: bool = True):
    """Keras's rank alignment: when the ranks differ by one and the longer has a trailing 1,
    squeeze it, or expand the rank-1 one when ``expand_rank_1``."""
    r1, r2 = x1.ndim, x2.ndim
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = expand_dims(x2, -1)
        else:
            x1 = squeeze(x1, -1)
    elif r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = expand_dims(x1, -1)
        else:
            x2 = squeeze(x2, -1)
    return x1, x2


def aligned_pair(y_true, y_pred, op: str) -> tuple[Tensor, Tensor]:
    y_pred = pred_tensor(y_pred, op)
    y_true = true_tensor(y_true, y_pred, op)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    ts, ps = tuple(y_true.shape), tuple(y_pred.shape)
    if not shapes_broadcast(ts, ps):  # TensorFlow's class for the op that would fail
        raise InvalidArgumentError(
            f"{op}: y_true and y_pred shapes are incompatible: y_true {ts}, y_pred {ps}."
        )
    return y_true, y_pred


def mean_last_axis(x: Tensor) -> Tensor:
    return reduce_mean(x, axis=-1) if x.ndim else x


def compute_weighted_loss(losses: Tensor, sample_weight=None, reduction="sum_over_batch_size"):
    """Weights per-sample ``losses`` and reduces them as Keras 3 does (`loss_reduction`).

    ``sample_weight`` (a scalar, or of the batch's shape, e.g. ``[N]`` or ``[N, 1]``) is
    aligned to the losses' rank, then multiplied. ``"sum_over_batch_size"`` divides the sum by
    the number of loss values (not by the sum of the weights), 0 for an empty batch.

    Raises:
        ValueError: an unknown reduction, or weights that do not broadcast to the losses.
    """
    reduction = Reduction.validate(reduction)
    w = None
    if sample_weight is not None:
        w = true_tensor(sample_weight, losses, "sample_weight")
        losses, w = squeeze_or_expand_to_same_rank(losses, w)
    return reduce_weighted_values(losses, w, reduction)


# -- per-sample loss functions ------------------------------------------------------------------


def mean_squared_error(y_true, y_pred) -> Tensor:
    """``mean(square(y_true - y_pred), axis=-1)`` (follows `tf.keras.losses.mean_squared_error`).

    Returns:
        Shape ``y_pred.shape[:-1]``.

    >>> ek.keras.losses.mean_squared_error([[0.0, 1.0]], [[1.0, 1.0]]).numpy()
    array([0.5], dtype=float32)
    """
    y_true, y_pred = aligned_pair(y_true, y_pred, "mean_squared_error")
    return mean_last_axis(square(y_pred - y_true))


def mean_absolute_error(y_true, y_pred) -> Tensor:
    """``mean(abs(y_true - y_pred), axis=-1)`` (follows `tf.keras.losses.mean_absolute_error`)."""
    y_true, y_pred = aligned_pair(y_true, y_pred, "mean_absolute_error")
    return mean_last_axis(_abs(y_pred - y_true))


def huber(y_true, y_pred, delta=1.0) -> Tensor:
    """Huber loss, ``0.5 x**2`` for ``|x| <= delta`` and ``delta * (|x| - 0.5 delta)`` beyond,
    averaged over the last axis (follows `tf.keras.losses.huber`)."""
    y_true, y_pred = aligned_pair(y_true, y_pred, "huber")
    err = _abs(y_pred - y_true)
    quadratic = minimum(err, delta)
    return mean_last_axis(0.5 * square(quadratic) + delta * (err - quadratic))


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Binary cross-entropy, averaged over the last axis
    (follows `tf.keras.losses.binary_crossentropy`).

    With probabilities: ``-(y log p + (1 - y) log(1 - p))``, ``p`` clipped to
    ``[1e-7, 1 - 1e-7]``. With logits: `ek.nn.sigmoid_cross_entropy_with_logits`.
    ``label_smoothing`` moves labels towards 0.5: ``y * (1 - ls) + 0.5 * ls``.

    >>> ek.keras.losses.binary_crossentropy([[1.0, 0.0]], [[0.9, 0.2]]).numpy()
    array([0.16425204], dtype=float32)
    """
    op = "binary_crossentropy"
    y_pred, from_logits = prefer_logits(y_pred, from_logits, "sigmoid")  # Keras 3
    y_true, y_pred = aligned_pair(y_true, y_pred, op)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        bce = nn.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    else:
        p = clip_by_value(y_pred, fuzz_epsilon(), 1.0 - fuzz_epsilon())
        bce = -(y_true * log(p) + (1.0 - y_true) * log(1.0 - p))
    return reduce_mean(bce, axis=axis) if bce.ndim else bce


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Cross-entropy between one-hot (or soft) labels and predictions along ``axis``
    (follows `tf.keras.losses.categorical_crossentropy`).

    With probabilities, ``y_pred`` is renormalized to sum to 1, clipped to
    ``[1e-7, 1 - 1e-7]``, and ``-sum(y_true * log(y_pred))`` is returned. With logits,
    `ek.nn.softmax_cross_entropy_with_logits`. ``label_smoothing``:
    ``y * (1 - ls) + ls / num_classes``.

    Raises:
        ValueError: if the shapes differ (both named).

    >>> ek.keras.losses.categorical_crossentropy([[0.0, 1.0]], [[0.5, 0.5]]).numpy()
    array([0.6931472], dtype=float32)
    """
    op = "categorical_crossentropy"
    y_pred, from_logits = prefer_logits(y_pred, from_logits, "softmax", axis)  # Keras 3
    y_pred = pred_tensor(y_pred, op)
    y_true = true_tensor(y_true, y_pred, op)
    if tuple(y_true.shape) != tuple(y_pred.shape) or y_pred.ndim == 0:
        raise ValueError(
            f"{op}: y_true and y_pred must have the same shape (rank >= 1), received y_true "
            f"{tuple(y_true.shape)} and y_pred {tuple(y_pred.shape)}."
        )
    if label_smoothing:
        n = y_pred.shape[axis]
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / n
    if from_logits:
        return nn.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred, axis=axis)
    p = y_pred / reduce_sum(y_pred, axis=axis, keepdims=True)
    p = clip_by_value(p, fuzz_epsilon(), 1.0 - fuzz_epsilon())
    return -reduce_sum(y_true * log(p), axis=axis)


def sparse_categorical_crossentropy(
    y_true, y_pred, from_logits=False, ignore_class=None, axis=-1
) -> Tensor:
    """Cross-entropy between integer labels and predictions over the last axis
    (follows `tf.keras.losses.sparse_categorical_crossentropy`).

    Args:
        y_true: class indices of shape ``[N]`` (or ``[N, 1]``); float labels are cast.
        y_pred: ``[N, num_classes]`` probabilities (clipped to ``[1e-7, 1 - 1e-7]``, then
            renormalized: ``-log(p[y] / sum(p))``) or logits
            (`ek.nn.sparse_softmax_cross_entropy_with_logits`).
        ignore_class: a label whose entries get a loss of 0 (Keras's: padding in
            segmentation); None (default) ignores none.

    Raises:
        ValueError: shapes that do not match up to the last axis, or an ``axis`` other than -1.
        InvalidArgumentError: a label outside ``[0, num_classes)`` (as TensorFlow's kernel).

    >>> ek.keras.losses.sparse_categorical_crossentropy([1], [[0.5, 0.5]]).numpy()
    array([0.6931472], dtype=float32)
    """
    op = "sparse_categorical_crossentropy"
    if axis not in (-1, None):
        raise ValueError(f"{op}: only axis=-1 is supported, received axis={axis}.")
    y_pred, from_logits = prefer_logits(y_pred, from_logits, "softmax", -1, op)  # Keras 3
    y_pred = pred_tensor(y_pred, op)
    labels = to_tensor(y_true, None, op)
    if labels.ndim == y_pred.ndim and labels.ndim and labels.shape[-1] == 1:
        labels = squeeze(labels, -1)
    if labels._value.dtype.kind not in "iu":
        labels = cast(labels, "int64")
    ls, ps = tuple(labels.shape), tuple(y_pred.shape)
    if not ps or ls != ps[:-1]:
        raise ValueError(
            f"{op}: y_true and y_pred must have the same shape up to the last axis, received "
            f"y_true {ls} and y_pred {ps}."
        )
    if ignore_class is not None:  # Keras's: label 0 there, then a loss of 0
        valid = labels != int(ignore_class)
        labels = where(valid, labels, labels * 0)
        loss = sparse_categorical_crossentropy(labels, y_pred, from_logits)
        return where(valid, loss, loss * 0)
    if from_logits:
        return nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=y_pred)
    n = ps[-1]
    lv = labels._value
    if lv.size and (int(lv.min()) < 0 or int(lv.max()) >= n):
        bad = int(lv.min()) if int(lv.min()) < 0 else int(lv.max())
        raise InvalidArgumentError(
            None,
            "SparseSoftmaxCrossEntropyWithLogits",
            f"{op}: received a label value of {bad} which is outside the valid range of "
            f"[0, {n}) (y_pred of shape {ps}).",
        )
    # Keras 3's TensorFlow backend: clipped, then a softmax cross-entropy of log(p), which
    # renormalizes after the clip (unlike categorical_crossentropy, which divides first).
    p = clip_by_value(y_pred, fuzz_epsilon(), 1.0 - fuzz_epsilon())
    return nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=log(p))


# -- Loss classes -------------------------------------------------------------------------------


class Loss:
    """Base class of losses (follows `tf.keras.losses.Loss`).

    Subclasses implement ``call(y_true, y_pred)`` returning per-sample losses; calling the
    object weights and reduces them.

    Args:
        reduction: ``"sum_over_batch_size"`` (default; ``"mean"``, ``"auto"``: the same),
            ``"sum"``, ``"mean_with_sample_weight"``, ``"none"`` or None (`loss_reduction`).
        name: default the snake-case class name.
    """

    def __init__(self, reduction="sum_over_batch_size", name=None, dtype=None):
        self.reduction = Reduction.validate(reduction)
        self.name = name or _snake(type(self).__name__)
        self.dtype = dtype

    def __call__(self, y_true, y_pred, sample_weight=None) -> Tensor:
        """The reduced loss.

        Args:
            sample_weight: optional scalar or per-sample weights (shape ``[N]`` or ``[N, 1]``).

        Returns:
            A scalar Tensor (shape of the per-sample losses for ``reduction="none"``) of the
            loss's ``dtype`` (default floatx, float32): as Keras 3, a float16 or float64
            ``y_pred`` and a floating ``y_true`` (arrays or tensors) are cast to it first.
        """
        # Keras 3 merges a masked sequence's mask (on y_pred) with the loss's own.
        mask = merge_masks(getattr(y_pred, "_keras_mask", None), self.label_mask(y_true, y_pred))
        dtype = self.dtype if self.dtype is not None else backend.floatx()
        y_pred, y_true = _cast_to(y_pred, dtype), _cast_to(y_true, dtype, floating_only=True)
        if mask is not None:
            sample_weight = apply_mask(sample_weight, mask, self.reduction, self.name)
        return compute_weighted_loss(self.call(y_true, y_pred), sample_weight, self.reduction)

    def call(self, y_true, y_pred) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} must implement call.")

    def label_mask(self, y_true, y_pred):
        """The entries the loss itself leaves out (a bool mask of the losses' shape), or None."""
        return None

    def get_config(self) -> dict:
        return {"reduction": self.reduction, "name": self.name}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r} reduction={self.reduction!r}>"


def _cast_to(x, dtype, floating_only=False):
    if isinstance(x, (list, tuple)) and any(isinstance(v, (Tensor, np.ndarray)) for v in x):
        out = [_cast_to(v, dtype, floating_only) for v in x]  # Keras 3 maps over structures
        return out if isinstance(x, list) else tuple(out)
    if floating_only and not isinstance(x, (Tensor, np.ndarray)):
        return x  # Python labels: each loss converts them
    t, want = to_tensor(x, None, "Loss"), dtypes.as_dtype(dtype)
    keep = t.dtype == want or (floating_only and not t.dtype.is_floating)
    return t if keep else cast(t, want)


def _snake(name: str) -> str:
    import re

    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


class LossFunctionWrapper(Loss):
    """A `Loss` around a per-sample function ``fn(y_true, y_pred, **kwargs)``."""

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, dtype=None, **kwargs):
        name = name or getattr(fn, "__name__", None)
        super().__init__(reduction=reduction, name=name, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred) -> Tensor:
        if isinstance(y_pred, Tensor) and np.ndim(y_true) != y_pred.ndim:  # as Keras 3
            y_true = to_tensor(y_true, None, self.name)
            y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict:
        return {**super().get_config(), **self._fn_kwargs}


class MeanSquaredError(LossFunctionWrapper):
    """Mean of squared errors (follows `tf.keras.losses.MeanSquaredError`).

    >>> ek.keras.losses.MeanSquaredError()([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]])
    <Tensor: shape=(), dtype=float32, numpy=0.5>
    """

    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, reduction=reduction, name=name, dtype=dtype)

    def get_config(self) -> dict:
        return {"reduction": self.reduction, "name": self.name}


class MeanAbsoluteError(LossFunctionWrapper):
    """Mean of absolute errors (follows `tf.keras.losses.MeanAbsoluteError`)."""

    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_error", dtype=None):
        super().__init__(mean_absolute_error, reduction=reduction, name=name, dtype=dtype)

    def get_config(self) -> dict:
        return {"reduction": self.reduction, "name": self.name}


class Huber(LossFunctionWrapper):
    """Huber loss with threshold ``delta`` (follows `tf.keras.losses.Huber`)."""

    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name="huber_loss", dtype=None):
        super().__init__(huber, reduction=reduction, name=name, dtype=dtype, delta=float(delta))


class BinaryCrossentropy(LossFunctionWrapper):
    """Binary cross-entropy (follows `tf.keras.losses.BinaryCrossentropy`).

    Args:
        from_logits: ``y_pred`` are logits (stable sigmoid form) rather than probabilities.
        label_smoothing: in [0, 1]; labels become ``y * (1 - ls) + 0.5 * ls``.

    >>> bce = ek.keras.losses.BinaryCrossentropy(from_logits=True)
    >>> float(bce([1.0, 0.0], [100.0, -100.0]))
    0.0
    """

    def __init__(
        self,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction="sum_over_batch_size",
        name="binary_crossentropy",
        dtype=None,
    ):
        super().__init__(
            binary_crossentropy,
            reduction=reduction,
            name=name,
            dtype=dtype,
            from_logits=bool(from_logits),
            label_smoothing=float(label_smoothing),
            axis=axis,
        )
        self.from_logits = bool(from_logits)


class CategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy with one-hot labels (follows `tf.keras.losses.CategoricalCrossentropy`).

    Args:
        from_logits: ``y_pred`` are logits (log-sum-exp form) rather than probabilities.
        label_smoothing: in [0, 1]; labels become ``y * (1 - ls) + ls / num_classes``.
    """

    def __init__(
        self,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction="sum_over_batch_size",
        name="categorical_crossentropy",
        dtype=None,
    ):
        super().__init__(
            categorical_crossentropy,
            reduction=reduction,
            name=name,
            dtype=dtype,
            from_logits=bool(from_logits),
            label_smoothing=float(label_smoothing),
            axis=axis,
        )
        self.from_logits = bool(from_logits)


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy with integer labels (follows
    `tf.keras.losses.SparseCategoricalCrossentropy`).

    Args:
        from_logits: ``y_pred`` are logits rather than probabilities.

    >>> loss = ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    >>> float(loss([0, 1], [[0.0, 0.0], [0.0, 0.0]]))
    0.693147...
    """

    def __init__(
        self,
        from_logits=False,
        ignore_class=None,
        reduction="sum_over_batch_size",
        name="sparse_categorical_crossentropy",
        dtype=None,
    ):
        super().__init__(
            sparse_categorical_crossentropy,
            reduction=reduction,
            name=name,
            dtype=dtype,
            from_logits=bool(from_logits),
            ignore_class=None if ignore_class is None else int(ignore_class),
        )
        self.from_logits = bool(from_logits)
        self.ignore_class = None if ignore_class is None else int(ignore_class)

    def label_mask(self, y_true, y_pred):
        """With ``ignore_class``, the other entries: a mean reduction averages over them only
        (the ignored ones weigh 0 and the rest ``total / valid``, as Keras's masked losses)."""
        if self.ignore_class is None:
            return None
        labels = to_tensor(y_true, None, self.name)
        if labels.ndim and labels.ndim == np.ndim(y_pred):
            labels = squeeze(labels, -1) if labels.shape[-1] == 1 else labels
        return labels != self.ignore_class


def wrapper_init(fn, default_name: str):
    """The ``__init__(reduction, name)`` of a `LossFunctionWrapper` subclass around ``fn``
    (a loss without arguments of its own)."""

    def __init__(self, reduction="sum_over_batch_size", name=default_name, dtype=None):
        LossFunctionWrapper.__init__(self, fn, reduction=reduction, name=name, dtype=dtype)

    return __init__


# The other losses (functions and classes), which the lookup below names.
from .losses_extra import *  # noqa: E402, F403  (generalized cross-entropy, Circle)
from .losses_extra import __all__ as _extra_all  # noqa: E402
from .losses_more import (  # noqa: E402
    CTC,
    BinaryFocalCrossentropy,
    CategoricalFocalCrossentropy,
    CategoricalHinge,
    CosineSimilarity,
    Dice,
    Hinge,
    KLDivergence,
    LogCosh,
    MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError,
    Poisson,
    SquaredHinge,
    Tversky,
    binary_focal_crossentropy,
    categorical_focal_crossentropy,
    categorical_hinge,
    cosine_similarity,
    ctc,
    dice,
    hinge,
    kl_divergence,
    log_cosh,
    mean_absolute_percentage_error,
    mean_squared_logarithmic_error,
    poisson,
    squared_hinge,
    tversky,
)

__all__ += _extra_all

# Keras's short names of the loss functions.
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh


# -- lookup -------------------------------------------------------------------------------------

_FUNCTIONS = {
    "mean_squared_error": mean_squared_error,
    "mse": mean_squared_error,
    "mean_absolute_error": mean_absolute_error,
    "mae": mean_absolute_error,
    "huber": huber,
    "huber_loss": huber,
    "binary_crossentropy": binary_crossentropy,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "kl_divergence": kl_divergence,
    "kld": kl_divergence,
    "poisson": poisson,
    "hinge": hinge,
    "squared_hinge": squared_hinge,
    "categorical_hinge": categorical_hinge,
    "log_cosh": log_cosh,
    "logcosh": log_cosh,
    "cosine_similarity": cosine_similarity,
    "mean_absolute_percentage_error": mean_absolute_percentage_error,
    "mape": mean_absolute_percentage_error,
    "mean_squared_logarithmic_error": mean_squared_logarithmic_error,
    "msle": mean_squared_logarithmic_error,
    "binary_focal_crossentropy": binary_focal_crossentropy,
    "categorical_focal_crossentropy": categorical_focal_crossentropy,
    "kullback_leibler_divergence": kl_divergence,
    "dice": dice,
    "tversky": tversky,
    "ctc": ctc,
    **{name: globals()[name] for name in _extra_all if name.islower()},
}
# Every loss class this module exports, by name (not the bases; the functions below are not
# defined yet, so `.get`).
_CLASSES = {
    name: cls
    for name in __all__
    if isinstance(cls := globals().get(name), type)
    and issubclass(cls, Loss)
    and cls not in (Loss, LossFunctionWrapper)
}


def get(identifier):
    """The loss ``identifier`` names (follows `tf.keras.losses.get`): a function name
    (``"mse"``, ``"categorical_crossentropy"``, ...) gives the per-sample function, a class
    name (``"CategoricalCrossentropy"``) or a class an instance, a config dict the object it
    describes; a `Loss` or any other callable is returned as is, None stays None.

    Raises:
        ValueError: if ``identifier`` cannot be interpreted.

    >>> ek.keras.losses.get("mse").__name__
    'mean_squared_error'
    >>> ek.keras.losses.get("MeanSquaredError")
    <MeanSquaredError name='mean_squared_error' reduction='sum_over_batch_size'>
    """
    if identifier is None:
        return None
    if isinstance(identifier, str) and _function_named(identifier) is not None:
        return _function_named(identifier)
    if callable(identifier) and not isinstance(identifier, (Loss, type)):
        return identifier  # a function (or callable object) is a loss as it is
    return to_loss(identifier)


def _function_named(name: str):
    fn = _FUNCTIONS.get(name)
    if fn is None and name not in _CLASSES:  # "Poisson" is the class, "poisson" not
        fn = _FUNCTIONS.get(name.lower())
    return fn


def to_loss(identifier) -> Loss:
    """A `Loss` for ``identifier`` (what ``Model.compile(loss=...)`` needs): as `get`, but a
    function or its name comes in a `LossFunctionWrapper` (reduced; ``fn``: the function).

    Raises:
        ValueError: if ``identifier`` cannot be interpreted.

    >>> ek.keras.losses.to_loss("mse")
    <LossFunctionWrapper name='mean_squared_error' reduction='sum_over_batch_size'>
    """
    if isinstance(identifier, Loss):
        return identifier
    if isinstance(identifier, type) and issubclass(identifier, Loss):
        return identifier()
    if isinstance(identifier, str):
        fn = _function_named(identifier)
        if fn is not None:
            return LossFunctionWrapper(fn, name=fn.__name__)
        if identifier in _CLASSES:
            return _CLASSES[identifier]()
        from .saving import get_registered_object

        found = get_registered_object(identifier)
        if found is not None:
            return to_loss(found)
    if isinstance(identifier, dict) and identifier.get("class_name") in _CLASSES:
        return _CLASSES[identifier["class_name"]].from_config(identifier.get("config", {}))
    if callable(identifier) and not isinstance(identifier, type):
        return LossFunctionWrapper(identifier)
    raise ValueError(
        f"Could not interpret loss identifier: {identifier!r}. Use a name such as "
        f"{sorted(_FUNCTIONS)}, a Loss, or a function fn(y_true, y_pred)."
    )


def serialize(loss) -> dict | None:
    """Keras's config dict of a loss: ``{"module": "keras.losses", "class_name", "config",
    "registered_name": None}`` for a built-in `Loss`, ``{"module": "builtins", "class_name":
    "function", "config": "<name>", "registered_name": "function"}`` for a loss function
    (follows `tf.keras.losses.serialize`).

    Raises:
        NotImplementedError: an object without ``get_config`` or a name.

    >>> ek.keras.losses.serialize(ek.keras.losses.Dice())
    {'module': 'keras.losses', 'class_name': 'Dice', 'config': {'name': 'dice', \
'reduction': 'sum_over_batch_size', 'axis': None}, 'registered_name': None}
    """
    from .object_config import serialize_as

    return serialize_as(loss, "keras.losses", set(_CLASSES.values()), set(_FUNCTIONS.values()))


def _loss_by_name(name: str):
    if name in _CLASSES:
        return _CLASSES[name]()
    return _FUNCTIONS.get(name)


def deserialize(name, custom_objects=None):
    """The loss a `serialize` dict describes, or the one a name gives: a function name
    (``"mse"``, ``"mean_squared_error"``) gives the function, a class name
    (``"MeanSquaredError"``) a new instance (follows `tf.keras.losses.deserialize`).

    Args:
        name: a config dict or a name string.
        custom_objects: optional ``{name: object}`` searched first.

    Raises:
        ValueError: a name that is no loss. TypeError: a config of an unknown class.

    >>> ek.keras.losses.deserialize("mse") is ek.keras.losses.mean_squared_error
    True
    >>> ek.keras.losses.deserialize(ek.keras.losses.serialize(ek.keras.losses.Huber(2.0)))
    <Huber name='huber_loss' reduction='sum_over_batch_size'>
    """
    from .object_config import deserialize_from

    return deserialize_from(name, custom_objects, "loss", _loss_by_name, "keras.losses")
