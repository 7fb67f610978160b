"""Keras's regression and probabilistic metrics (running means of the loss functions), the
F-scores and `R2Score` (follow `tf.keras.metrics`; the IoU metrics are in metrics_iou.py).
Registered with `metrics.get` by class and snake-case name."""

from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tape import stop_recording
from ..core.tensor import Tensor, make, to_tensor
from . import losses as _losses
from .metrics import MeanMetricWrapper, Metric, accumulate, register_metric

# -- regression and probabilistic metrics (running means of the loss functions) ------------------

# Keras 3's metric functions of these names are the loss functions themselves.
kl_divergence = _losses.kl_divergence
log_cosh = _losses.log_cosh
mean_absolute_error = _losses.mean_absolute_error
mean_absolute_percentage_error = _losses.mean_absolute_percentage_error
mean_squared_error = _losses.mean_squared_error
mean_squared_logarithmic_error = _losses.mean_squared_logarithmic_error


def cosine_similarity(y_true, y_pred, axis=-1) -> Tensor:
    """``sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)``, in [-1, 1] (follows
    Keras's metric function; the loss of the same name is its negation)."""
    return -_losses.cosine_similarity(y_true, y_pred, axis=axis)


def _wrapper_init(fn, default_name: str):
    """The ``__init__(name, dtype)`` of a `MeanMetricWrapper` subclass around ``fn``."""

    def __init__(self, name=default_name, dtype=None):
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype)

    return __init__


class CosineSimilarity(MeanMetricWrapper):
    """The running mean of the cosine similarity of ``y_true`` and ``y_pred`` along ``axis``
    (follows `tf.keras.metrics.CosineSimilarity`; 1 is the best value).

    >>> m = ek.keras.metrics.CosineSimilarity()
    >>> m.update_state([[0.0, 1.0], [1.0, 1.0]], [[1.0, 0.0], [1.0, 1.0]])
    >>> float(m.result())  # mean of 0 and 1
    0.5
    """

    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(cosine_similarity, name=name, dtype=dtype, axis=axis)


class LogCoshError(MeanMetricWrapper):
    """The running mean of `ek.keras.losses.log_cosh` (follows
    `tf.keras.metrics.LogCoshError`)."""

    __init__ = _wrapper_init(_losses.log_cosh, "logcosh")


class Hinge(MeanMetricWrapper):
    """The running mean of `ek.keras.losses.hinge` (follows `tf.keras.metrics.Hinge`)."""

    __init__ = _wrapper_init(_losses.hinge, "hinge")


class SquaredHinge(MeanMetricWrapper):
    """The running mean of `ek.keras.losses.squared_hinge` (follows
    `tf.keras.metrics.SquaredHinge`)."""

    __init__ = _wrapper_init(_losses.squared_hinge, "squared_hinge")


class CategoricalHinge(MeanMetricWrapper):
    """The running mean of `ek.keras.losses.categorical_hinge` (follows
    `tf.keras.metrics.CategoricalHinge`)."""

    __init__ = _wrapper_init(_losses.categorical_hinge, "categorical_hinge")


class KLDivergence(MeanMetricWrapper):
    """The running mean of `ek.keras.losses.kl_divergence` (follows
    `tf.keras.metrics.KLDivergence`)."""

    __init__ = _wrapper_init(_losses.kl_divergence, "kl_divergence")


class Poisson(MeanMetricWrapper):
    """The running mean of `ek.keras.losses.poisson` (follows `tf.keras.metrics.Poisson`)."""

    __init__ = _wrapper_init(_losses.poisson, "poisson")


class MeanAbsolutePercentageError(MeanMetricWrapper):
    """The running mean of `ek.keras.losses.mean_absolute_percentage_error` (follows
    `tf.keras.metrics.MeanAbsolutePercentageError`)."""

    __init__ = _wrapper_init(
        _losses.mean_absolute_percentage_error, "mean_absolute_percentage_error"
    )


class MeanSquaredLogarithmicError(MeanMetricWrapper):
    """The running mean of `ek.keras.losses.mean_squared_logarithmic_error` (follows
    `tf.keras.metrics.MeanSquaredLogarithmicError`)."""

    __init__ = _wrapper_init(
        _losses.mean_squared_logarithmic_error, "mean_squared_logarithmic_error"
    )


# -- F-scores, R2, IoU -----------------------------------------------------------------------------


def _np_float(x, op: str):
    t = to_tensor(x, None, op)
    return np.asarray(t._value, dtype=np.float64)


class FBetaScore(Metric):
    """The F-beta score of a multi-class or multi-label classifier (follows
    `tf.keras.metrics.FBetaScore`).

    Per class: ``(1 + beta**2) * P * R / (beta**2 * P + R)``, with precision ``P`` and recall
    ``R`` from the weighted TP/FP/FN counted over all batches (Keras adds 1e-7 to each
    denominator).

    Args:
        average: None (one score per class), ``"micro"`` (counts summed over classes first),
            ``"macro"`` (mean of the classes' scores) or ``"weighted"`` (mean weighted by each
            class's number of true labels).
        beta: > 0 (default 1).
        threshold: a float in (0, 1]: a prediction ``> threshold`` is positive; None (default):
            the highest prediction of each sample is the positive one (not if it is 0).
        name, dtype: as `Metric`.

    ``update_state(y_true, y_pred, sample_weight=None)`` takes ``(batch, num_classes)``
    arrays, and per-sample weights.

    Raises:
        ValueError: a bad ``average``, ``beta`` or ``threshold``; inputs that are not rank 2
            or whose class count changes.
    """

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        op = type(self).__name__
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError(
                f"{op}: invalid `average` argument value. Expected one of: "
                f"{{None, 'micro', 'macro', 'weighted'}}. Received: average={average!r}"
            )
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta <= 0.0:
            raise ValueError(
                f"{op}: invalid `beta` argument value. It should be a Python float > 0. "
                f"Received: beta={beta!r}"
            )
        if threshold is not None and (
            isinstance(threshold, bool)
            or not isinstance(threshold, (int, float))
            or not 0.0 < threshold <= 1.0
        ):
            raise ValueError(
                f"{op}: invalid `threshold` argument value. It should be a Python float in "
                f"(0, 1]. Received: threshold={threshold!r}"
            )
        self.average = average
        self.beta = float(beta)
        self.threshold = threshold
        self.num_classes = None

    def _build(self, num_classes: int) -> None:
        self.num_classes = num_classes
        for count in ("true_positives", "false_positives", "false_negatives"):
            setattr(self, count, self.add_weight(count, shape=(num_classes,)))
        self.intermediate_weights = self.add_weight("intermediate_weights", shape=(num_classes,))

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        op = f"{type(self).__name__}.update_state"
        with stop_recording():
            yt, yp = _np_float(y_true, op), _np_float(y_pred, op)
            if yt.ndim != 2 or yp.shape != yt.shape:  # TensorFlow: a rank is a ValueError
                raise (ValueError if (yt.ndim, yp.ndim) != (2, 2) else InvalidArgumentError)(
                    f"{op}: y_true and y_pred must both be of shape (batch, num_classes); "
                    f"received {yt.shape} and {yp.shape}."
                )
            if self.num_classes is None:
                self._build(yp.shape[-1])
            elif yp.shape[-1] != self.num_classes:
                raise ValueError(
                    f"{op}: y_pred has {yp.shape[-1]} classes, the metric was built for "
                    f"{self.num_classes}."
                )
            if self.threshold is None:
                top = yp.max(axis=-1, keepdims=True)
                pred = ((yp >= top) & (np.abs(yp) > 1e-9)).astype(np.float64)
            else:
                pred = (yp > self.threshold).astype(np.float64)
            w = np.ones((yt.shape[0], 1))
            if sample_weight is not None:
                w = _np_float(sample_weight, op).reshape(-1, 1)
                if w.shape[0] not in (1, yt.shape[0]):
                    raise InvalidArgumentError(
                        f"{op}: sample_weight has {w.shape[0]} entries for a batch of "
                        f"{yt.shape[0]}."
                    )
            accumulate(self.true_positives, np.sum(w * pred * yt, axis=0))
            accumulate(self.false_positives, np.sum(w * pred * (1 - yt), axis=0))
            accumulate(self.false_negatives, np.sum(w * (1 - pred) * yt, axis=0))
            accumulate(self.intermediate_weights, np.sum(w * yt, axis=0))

    def result(self) -> Tensor:
        if self.num_classes is None:
            return to_tensor(np.asarray(0.0, dtype=self._dtype._np)[()], None, self.name)
        eps = _losses.fuzz_epsilon()
        tp, fp, fn = (
            np.asarray(v._value, np.float64)
            for v in (self.true_positives, self.false_positives, self.false_negatives)
        )
        if self.average == "micro":
            tp, fp, fn = tp.sum(), fp.sum(), fn.sum()
        precision = tp / (tp + fp + eps)
        recall = tp / (tp + fn + eps)
        b2 = self.beta**2
        score = (1 + b2) * (precision * recall) / (b2 * precision + recall + eps)
        if self.average == "weighted":
            weights = np.asarray(self.intermediate_weights._value, np.float64)
            score = np.sum(score * weights / (weights.sum() + eps))
        elif self.average is not None:
            score = np.mean(score)
        return make(np.asarray(score, dtype=self._dtype._np)[()], self._variables[0]._device)

    def reset_state(self) -> None:
        if self.num_classes is not None:
            super().reset_state()

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "average": self.average,
            "beta": self.beta,
            "threshold": self.threshold,
        }


class F1Score(FBetaScore):
    """The F1 score, `FBetaScore` with ``beta=1`` (follows `tf.keras.metrics.F1Score`).

    >>> m = ek.keras.metrics.F1Score(threshold=0.5)
    >>> m.update_state([[1, 1, 0], [0, 1, 1]], [[0.9, 0.2, 0.1], [0.8, 0.9, 0.7]])
    >>> m.result().numpy().round(4)  # per class: P=1/2 R=1, P=1 R=1/2, P=1 R=1
    array([0.6667, 0.6667, 1.    ], dtype=float32)
    """

    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["beta"]
        return config


class R2Score(Metric):
    """The coefficient of determination, ``1 - SS_res / SS_tot`` per output (follows
    `tf.keras.metrics.R2Score`).

    Args:
        class_aggregation: ``"uniform_average"`` (default: the mean over outputs),
            ``"variance_weighted_average"`` (weighted by each output's total sum of squares)
            or None (one score per output).
        num_regressors: > 0 gives the adjusted R2, ``1 - (1 - R2) (n - 1) / (n - p - 1)``,
            ``n`` the number of entries of ``y_true`` seen (samples times outputs, as Keras 3).
        name, dtype: as `Metric`.

    ``update_state(y_true, y_pred, sample_weight=None)``: shape ``(batch, outputs)`` (or
    ``(batch,)``, one output); weights per sample.

    Raises:
        ValueError: a bad ``class_aggregation`` or negative ``num_regressors``; mismatched
            shapes.

    >>> m = ek.keras.metrics.R2Score()
    >>> m.update_state([[1.0], [2.0], [3.0]], [[1.0], [2.0], [2.0]])
    >>> float(m.result())  # 1 - 1 / 2
    0.5
    """

    def __init__(
        self, class_aggregation="uniform_average", num_regressors=0, name="r2_score", dtype=None
    ):
        super().__init__(name=name, dtype=dtype)
        if class_aggregation not in (None, "uniform_average", "variance_weighted_average"):
            raise ValueError(
                "R2Score: invalid value for argument `class_aggregation`. Expected one of "
                "{None, 'uniform_average', 'variance_weighted_average'}. Received: "
                f"class_aggregation={class_aggregation!r}"
            )
        if isinstance(num_regressors, bool) or not isinstance(num_regressors, int):
            raise ValueError(
                f"R2Score: num_regressors must be an int. Received: num_regressors="
                f"{num_regressors!r}"
            )
        if num_regressors < 0:
            raise ValueError(
                "R2Score: invalid value for argument `num_regressors`. Expected a value >= 0. "
                f"Received: num_regressors={num_regressors}"
            )
        self.class_aggregation = class_aggregation
        self.num_regressors = num_regressors
        self.num_samples = self.add_weight("num_samples", dtype="int32")
        self._outputs = None

    def _build(self, outputs: int) -> None:
        self._outputs = outputs
        names = {"squared_sum": "squared_sum", "sum": "sum", "total_mse": "residual"}
        for attr, name in {**names, "count": "count"}.items():  # Keras's variable names
            setattr(self, attr, self.add_weight(name, shape=(outputs,)))

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        op = "R2Score.update_state"
        with stop_recording():
            yt, yp = _np_float(y_true, op), _np_float(y_pred, op)
            if yt.ndim == 1:
                yt = yt[:, None]
            if yp.ndim == 1:
                yp = yp[:, None]
            if yt.ndim != 2 or yt.shape != yp.shape:  # TensorFlow: a rank is a ValueError
                raise (ValueError if (yt.ndim, yp.ndim) != (2, 2) else InvalidArgumentError)(
                    f"{op}: y_true and y_pred must be of the same shape (batch, outputs); "
                    f"received {np.shape(yt)} and {np.shape(yp)}."
                )
            if self._outputs is None:
                self._build(yt.shape[1])
            elif yt.shape[1] != self._outputs:
                raise ValueError(
                    f"{op}: received {yt.shape[1]} outputs, the metric was built for "
                    f"{self._outputs}."
                )
            w = np.ones((yt.shape[0], 1))
            if sample_weight is not None:
                w = _np_float(sample_weight, op)
                try:
                    w = np.broadcast_to(w[:, None] if w.ndim == 1 else w, yt.shape)
                except ValueError:
                    raise InvalidArgumentError(
                        f"{op}: sample_weight of shape {w.shape} does not broadcast to y_true "
                        f"of shape {yt.shape}."
                    ) from None
            accumulate(self.sum, np.sum(yt * w, axis=0))
            accumulate(self.squared_sum, np.sum(yt * yt * w, axis=0))
            accumulate(self.total_mse, np.sum((yt - yp) ** 2 * w, axis=0))
            accumulate(self.count, np.sum(np.broadcast_to(w, yt.shape), axis=0))
            accumulate(self.num_samples, yt.size)  # Keras 3's n of the adjusted R2: every entry

    def result(self) -> Tensor:
        if self._outputs is None:
            return to_tensor(np.asarray(0.0, dtype=self._dtype._np)[()], None, "R2Score")
        total_sum, sq, mse, count = (
            np.asarray(v._value, np.float64)
            for v in (self.sum, self.squared_sum, self.total_mse, self.count)
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = total_sum / count
            total = sq - total_sum * mean
            raw = 1.0 - mse / total
        raw = np.where(np.isinf(raw), 0.0, raw)
        if self.class_aggregation == "uniform_average":
            r2 = np.mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            r2 = np.sum(total * raw) / np.sum(total)
        else:
            r2 = raw
        n, p = int(self.num_samples._value), self.num_regressors
        if p:
            import warnings

            if p >= n - 1:
                warnings.warn(
                    f"R2Score: more independent predictors ({p}) than data points - 1 "
                    f"({n - 1}); the adjusted R2 is not computed.",
                    stacklevel=2,
                )
            else:
                r2 = 1.0 - (1.0 - r2) * (n - 1) / (n - p - 1)
        return make(np.asarray(r2, dtype=self._dtype._np)[()], self.num_samples._device)

    def reset_state(self) -> None:
        for v in self._variables:
            v.assign(np.zeros(v._value.shape, dtype=v._value.dtype))

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "class_aggregation": self.class_aggregation,
            "num_regressors": self.num_regressors,
        }


for _cls in (
    CosineSimilarity,
    LogCoshError,
    Hinge,
    SquaredHinge,
    CategoricalHinge,
    KLDivergence,
    Poisson,
    MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError,
    FBetaScore,
    F1Score,
    R2Score,
):
    register_metric(_cls)
register_metric(LogCoshError, "logcosh", "log_cosh")
register_metric(KLDivergence, "kld")
register_metric(MeanAbsolutePercentageError, "mape")
register_metric(MeanSquaredLogarithmicError, "msle")
register_metric(FBetaScore, "fbeta_score")
__all__ = [
    "CategoricalHinge",
    "CosineSimilarity",
    "F1Score",
    "FBetaScore",
    "Hinge",
    "KLDivergence",
    "LogCoshError",
    "MeanAbsolutePercentageError",
    "MeanSquaredLogarithmicError",
    "Poisson",
    "R2Score",
    "SquaredHinge",
    "cosine_similarity",
    "kl_divergence",
    "log_cosh",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_error",
    "mean_squared_logarithmic_error",
]
