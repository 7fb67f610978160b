"""Keras's confusion-matrix metrics: `TruePositives`, `FalsePositives`, `TrueNegatives`,
`FalseNegatives`, `Precision`, `Recall`, `AUC`, `SensitivityAtSpecificity`,
`SpecificityAtSensitivity`, `PrecisionAtRecall` and `RecallAtPrecision` (follow
`tf.keras.metrics`), counted at thresholds over batches. Registered with `metrics.get` by
class and snake-case name.

Counting follows Keras's update_confusion_matrix_variables: a prediction is positive at a
threshold when it is greater than it, compared in the metric's dtype; when the thresholds are
evenly spaced over [0, 1] (AUC's, those of the at-specificity family, or a list such as
``[0, 0.5, 1]``), each prediction falls in one bucket (``ceil(p * (T - 1)) - 1`` of ``p``
clipped to [0, 1]) and the counts are the buckets' reversed cumulative sums, as Keras's
optimized path, which differs from the comparison only where ``p * (T - 1)`` rounds."""

from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tape import stop_recording
from ..core.tensor import Tensor, make, to_tensor
from ..ops.array_ops import expand_dims
from ..ops.elementwise import cast
from . import losses as _losses
from .metrics import Metric, accumulate, register_metric

# -- confusion-matrix metrics: TP/FP/TN/FN, Precision, Recall, AUC --------------------------------

NEG_INF = -1e10  # Keras's metrics_utils.NEG_INF: what top_k filtering puts in the other entries


def _parse_thresholds(thresholds, default: float, op: str) -> list:
    """``thresholds`` (None, a float, or a list/tuple of floats) as a list, each in [0, 1]
    (Keras's parse_init_thresholds); ``default`` when None."""
    if thresholds is None:
        return [default]
    values = list(thresholds) if isinstance(thresholds, (list, tuple, np.ndarray)) else [thresholds]
    out = []
    for t in values:
        try:
            t = float(t)
        except (TypeError, ValueError):
            raise ValueError(f"{op}: thresholds must be floats, received {thresholds!r}.") from None
        if not 0.0 <= t <= 1.0:
            raise ValueError(
                f"{op}: threshold values must be in [0, 1]. Received: thresholds={thresholds!r}"
            )
        out.append(t)
    if not out:
        raise ValueError(f"{op}: thresholds is empty.")
    return out


def _confusion_inputs(metric, y_true, y_pred, sample_weight, op, *, top_k=None, class_id=None):
    """``(labels, predictions, weights)`` as float64 arrays of one shape (Keras's
    update_confusion_matrix_variables before the thresholds): ranks aligned, the top-k
    filter and ``class_id`` slice applied, weights broadcast (ones when None)."""
    y_pred = to_tensor(y_pred, None, op)
    y_true = to_tensor(y_true, None, op)
    if y_pred.dtype.name not in ("float16", "bfloat16", "float32", "float64"):
        y_pred = cast(y_pred, metric._dtype)
    y_true, y_pred = _losses.squeeze_or_expand_to_same_rank(y_true, y_pred)
    xp = y_pred._device.xp
    pred = xp.asarray(y_pred._value, dtype=np.float64)
    labels = xp.asarray(y_true._value).astype(bool).astype(np.float64)
    try:
        labels = xp.broadcast_to(labels, pred.shape)
    except ValueError:
        raise InvalidArgumentError(
            f"{op}: y_true of shape {tuple(y_true.shape)} and y_pred of shape "
            f"{tuple(y_pred.shape)} are incompatible."
        ) from None
    if sample_weight is None:
        weights = xp.ones(pred.shape)
    else:
        w = to_tensor(sample_weight, None, op)
        w = w if w.dtype.name == "float64" else cast(w, "float64")
        # Keras: a trailing axis is added, then aligned to y_true ((N,) weighs each sample's
        # row of a (N, C) y_pred; (N, C) weighs each entry)
        w = expand_dims(w, -1)
        _, w = _losses.squeeze_or_expand_to_same_rank(y_true, w, expand_rank_1=False)
        try:
            weights = xp.broadcast_to(xp.asarray(w._value, dtype=np.float64), pred.shape)
        except ValueError:
            raise InvalidArgumentError(
                f"{op}: sample_weight of shape {tuple(w.shape)} does not broadcast to y_pred "
                f"of shape {tuple(pred.shape)}."
            ) from None
    if top_k is not None:
        if pred.ndim == 0 or top_k > pred.shape[-1]:
            raise ValueError(f"{op}: top_k={top_k} exceeds the number of classes of y_pred.")
        # Keras's _filter_top_k: the entries at the indices top_k returns (of tied values,
        # the lower index first) are kept, the others become NEG_INF
        order = xp.argsort(-pred, axis=-1, kind="stable")[..., :top_k]
        kept = xp.zeros(pred.shape, dtype=bool)
        xp.put_along_axis(kept, order, True, axis=-1)
        pred = xp.where(kept, pred, NEG_INF)
    if class_id is not None:
        if pred.ndim == 0 or not 0 <= class_id < pred.shape[-1]:
            raise ValueError(
                f"{op}: class_id={class_id} is out of range for y_pred of shape "
                f"{tuple(y_pred.shape)}."
            )
        pred, labels, weights = pred[..., class_id], labels[..., class_id], weights[..., class_id]
    return pred, labels, weights


def _threshold_counts(pred, labels, weights, thresholds, dtype, *, multi_label=False) -> dict:
    """Weighted TP/FP/TN/FN per threshold: shape (T,), or (T, labels) with ``multi_label``
    (the last axis is the label). A prediction counts as positive when it is ``>`` the
    threshold (compared in the metric's dtype, as Keras)."""
    xp = np if isinstance(pred, np.ndarray) else _xp_of(pred)
    if multi_label:
        last = pred.shape[-1] if pred.ndim else 1
        pred, labels, weights = (a.reshape(-1, last) for a in (pred, labels, weights))
        thr = xp.asarray(thresholds, dtype=dtype).reshape(-1, 1, 1)
        above = pred.astype(dtype)[None] > thr  # (T, N, L)
    else:
        pred, labels, weights = (a.reshape(-1) for a in (pred, labels, weights))
        thr = xp.asarray(thresholds, dtype=dtype).reshape(-1, 1)
        above = pred.astype(dtype)[None] > thr  # (T, N)
    pos, neg = labels * weights, (1.0 - labels) * weights
    return {
        "true_positives": xp.sum(above * pos, axis=1),
        "false_positives": xp.sum(above * neg, axis=1),
        "false_negatives": xp.sum(~above * pos, axis=1),
        "true_negatives": xp.sum(~above * neg, axis=1),
    }


def evenly_spaced(thresholds) -> bool:
    """Whether ``thresholds`` are ``i / (T - 1)`` for ``i = 0 .. T - 1``, T >= 3, to within
    `backend.epsilon` (Keras's is_evenly_distributed_thresholds).

    >>> evenly_spaced([0.0, 0.5, 1.0]), evenly_spaced([0.5]), evenly_spaced([0.0, 0.4, 1.0])
    (True, False, False)
    """
    n = len(thresholds)
    if n < 3:
        return False
    even = np.arange(n, dtype=np.float32) / (n - 1)
    return bool(np.allclose(np.asarray(thresholds, np.float64), even, atol=_losses.fuzz_epsilon()))


def _bucket_counts(pred, labels, weights, n, dtype, *, epsilon_ends, multi_label=False) -> dict:
    """`_threshold_counts` at ``n`` evenly spaced thresholds, in O(N + T): Keras's
    _update_confusion_matrix_variables_optimized. ``p`` (in ``dtype``, clipped to [0, 1]) is
    positive at the first ``ceil(p * (n - 1))`` thresholds; with ``epsilon_ends`` (AUC's
    thresholds, which start just below 0 and end just above 1) at least at the first."""
    xp = np if isinstance(pred, np.ndarray) else _xp_of(pred)
    last = (pred.shape[-1] if pred.ndim else 1) if multi_label else 1
    pred, labels, weights = (a.reshape(-1, last) for a in (pred, labels, weights))
    p = xp.clip(pred.astype(dtype), 0, 1)
    bucket = xp.ceil(p * np.dtype(dtype).type(n - 1)).astype(np.int64) - 1
    if epsilon_ends:
        bucket = xp.maximum(bucket, 0)
    pos, neg = labels * weights, (1.0 - labels) * weights
    kept = bucket >= 0  # p == 0 is positive at no threshold
    index = (bucket * last + xp.arange(last))[kept]

    def above(values):  # per threshold and label: the weight of the predictions above it
        sums = xp.bincount(index, values[kept], minlength=n * last).reshape(n, last)
        return xp.cumsum(sums[::-1], axis=0)[::-1]

    tp, fp = above(pos), above(neg)
    fn, tn = pos.sum(axis=0) - tp, neg.sum(axis=0) - fp
    if not multi_label:
        tp, fp, fn, tn = (a[:, 0] for a in (tp, fp, fn, tn))
    return {
        "true_positives": tp,
        "false_positives": fp,
        "false_negatives": fn,
        "true_negatives": tn,
    }


def _xp_of(array):
    import cupy  # only reached for CuPy arrays

    return cupy


def _divide_no_nan(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b == 0, 0.0, a / np.where(b == 0, 1.0, b))


class _ConfusionMatrixMetric(Metric):
    """Accumulates some of TP/FP/TN/FN at ``thresholds`` (Keras's _ConfusionMatrixConditionCount
    and the state of Precision and Recall)."""

    _counts: tuple = ()
    _default_threshold = 0.5

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        op = type(self).__name__
        for arg, value in (("top_k", top_k), ("class_id", class_id)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise ValueError(f"{op}: {arg} must be an int, received {arg}={value!r}.")
        if top_k is not None and top_k < 1:
            raise ValueError(f"{op}: top_k must be >= 1, received top_k={top_k}.")
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        default = self._default_threshold if top_k is None else NEG_INF
        self.thresholds = (
            [default] if thresholds is None else _parse_thresholds(thresholds, default, op)
        )
        self._evenly = evenly_spaced(self.thresholds)
        for count in self._counts:
            setattr(self, count, self.add_weight(count, shape=(len(self.thresholds),)))

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        """Adds a batch: ``y_true`` is read as booleans (nonzero is positive), ``y_pred`` as
        scores, positive where ``> threshold``; ``sample_weight`` broadcasts to ``y_pred``.

        Raises:
            ValueError: shapes that do not broadcast; ``class_id``/``top_k`` out of range.
        """
        op = f"{type(self).__name__}.update_state"
        with stop_recording():
            pred, labels, weights = _confusion_inputs(
                self, y_true, y_pred, sample_weight, op, top_k=self.top_k, class_id=self.class_id
            )
            if self._evenly:
                counts = _bucket_counts(
                    pred, labels, weights, len(self.thresholds), self._dtype._np, epsilon_ends=False
                )
            else:
                counts = _threshold_counts(pred, labels, weights, self.thresholds, self._dtype._np)
            for count in self._counts:
                accumulate(getattr(self, count), counts[count])

    def _value(self, array) -> Tensor:
        array = np.asarray(array, dtype=self._dtype._np)
        if not isinstance(self.init_thresholds, (list, tuple)):
            array = array[0]
        return make(array, self._variables[0]._device)

    def get_config(self) -> dict:
        config = {**super().get_config(), "thresholds": self.init_thresholds}
        if not isinstance(self, _ConditionCount):  # Precision, Recall: always, as Keras
            config.update(top_k=self.top_k, class_id=self.class_id)
        return config


class _ConditionCount(_ConfusionMatrixMetric):
    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(thresholds=thresholds, name=name, dtype=dtype)

    def result(self) -> Tensor:
        return self._value(getattr(self, self._counts[0])._value)


class TruePositives(_ConditionCount):
    """The weighted number of true positives (follows `tf.keras.metrics.TruePositives`).

    Args:
        thresholds: a float in [0, 1] (default 0.5): the result is a scalar; or a list of
            them: the result is a vector, one count per threshold. A prediction is positive
            when it is greater than the threshold.
        name, dtype: as `Metric`.

    >>> m = ek.keras.metrics.TruePositives()
    >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    >>> float(m.result())
    2.0
    """

    _counts = ("true_positives",)


class FalsePositives(_ConditionCount):
    """The weighted number of false positives (follows `tf.keras.metrics.FalsePositives`);
    arguments as `TruePositives`.

    >>> m = ek.keras.metrics.FalsePositives()
    >>> m.update_state([0, 1, 0, 0], [0, 0, 1, 1])
    >>> float(m.result())
    2.0
    """

    _counts = ("false_positives",)


class TrueNegatives(_ConditionCount):
    """The weighted number of true negatives (follows `tf.keras.metrics.TrueNegatives`);
    arguments as `TruePositives`."""

    _counts = ("true_negatives",)


class FalseNegatives(_ConditionCount):
    """The weighted number of false negatives (follows `tf.keras.metrics.FalseNegatives`);
    arguments as `TruePositives`."""

    _counts = ("false_negatives",)


class Precision(_ConfusionMatrixMetric):
    """``TP / (TP + FP)`` over all batches, 0 when nothing was predicted positive (follows
    `tf.keras.metrics.Precision`).

    Args:
        thresholds: a float in [0, 1] or a list of them (one result each); default 0.5, or
            no threshold (every kept prediction positive) with ``top_k``. A prediction is
            positive when it is greater than the threshold.
        top_k: count only the ``top_k`` highest predictions of each sample (last axis).
        class_id: the class (index on the last axis) to compute the metric for.
        name, dtype: as `Metric`.

    State: ``true_positives``, ``false_positives`` (one entry per threshold).

    >>> m = ek.keras.metrics.Precision()
    >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    >>> float(m.result())  # 2 true positives of 3 predicted positives
    0.6666...
    """

    _counts = ("true_positives", "false_positives")

    def result(self) -> Tensor:
        tp, fp = self.true_positives._value, self.false_positives._value
        return self._value(_divide_no_nan(tp, tp + fp))


class Recall(_ConfusionMatrixMetric):
    """``TP / (TP + FN)`` over all batches, 0 when there was no positive label (follows
    `tf.keras.metrics.Recall`); arguments as `Precision`.

    State: ``true_positives``, ``false_negatives`` (one entry per threshold).

    >>> m = ek.keras.metrics.Recall()
    >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    >>> float(m.result())  # 2 of the 3 positives found
    0.6666...
    """

    _counts = ("true_positives", "false_negatives")

    def result(self) -> Tensor:
        tp, fn = self.true_positives._value, self.false_negatives._value
        return self._value(_divide_no_nan(tp, tp + fn))


_CURVES = ("ROC", "PR")
_SUMMATIONS = ("interpolation", "minoring", "majoring")


class AUC(Metric):
    """The area under the ROC or precision-recall curve, approximated by a Riemann sum over
    thresholds (follows `tf.keras.metrics.AUC`).

    The confusion counts are accumulated at ``num_thresholds`` thresholds: ``-1e-7``, then
    ``i / (num_thresholds - 1)`` for ``i = 1 .. num_thresholds - 2``, then ``1 + 1e-7`` (or
    the given ``thresholds`` between those two). With ``x`` the false-positive rate (ROC) or
    the recall (PR) and ``y`` the recall (ROC) or the precision (PR) at each threshold, the
    area is ``sum((x[i] - x[i+1]) * h_i)``, ``h_i`` the mean ("interpolation"), minimum
    ("minoring") or maximum ("majoring") of ``y[i]`` and ``y[i+1]``. PR with interpolation
    uses Davis and Goadrich's interpolation of precision between thresholds, as Keras.

    Args:
        num_thresholds: an int > 1 (default 200).
        curve: ``"ROC"`` (default) or ``"PR"``.
        summation_method: ``"interpolation"`` (default), ``"minoring"`` or ``"majoring"``.
        name, dtype: as `Metric`.
        thresholds: a list of floats in [0, 1]; overrides ``num_thresholds``.
        multi_label: treat the last axis as separate labels: one curve each, the result their
            mean (weighted by ``label_weights``). Otherwise every entry is one sample.
        num_labels: the number of labels with ``multi_label`` (default: from the first batch).
        label_weights: per-label weights: of the labels' AUCs with ``multi_label``, else of
            the entries of each label in the counts.
        from_logits: ``y_pred`` are logits (a sigmoid is applied first).

    Raises:
        ValueError: an unknown curve or summation method, ``num_thresholds <= 1``, thresholds
            outside [0, 1], or a batch whose label count differs from ``num_labels``.

    >>> m = ek.keras.metrics.AUC(num_thresholds=3)
    >>> m.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9])
    >>> float(m.result())  # thresholds [-1e-7, 0.5, 1 + 1e-7], as Keras's docstring
    0.75
    """

    def __init__(
        self,
        num_thresholds=200,
        curve="ROC",
        summation_method="interpolation",
        name=None,
        dtype=None,
        thresholds=None,
        multi_label=False,
        num_labels=None,
        label_weights=None,
        from_logits=False,
    ):
        super().__init__(name=name or "auc", dtype=dtype)
        curve = getattr(curve, "value", curve)
        summation_method = getattr(summation_method, "value", summation_method)
        if str(curve).upper() not in _CURVES:
            raise ValueError(f'AUC: invalid curve: "{curve}". Valid options are: {_CURVES}')
        if str(summation_method).lower() not in _SUMMATIONS:
            raise ValueError(
                f'AUC: invalid summation method: "{summation_method}". Valid options are: '
                f"{_SUMMATIONS}"
            )
        self.curve = str(curve).upper()
        self.summation_method = str(summation_method).lower()
        if thresholds is not None:
            inner = _parse_thresholds(thresholds, 0.5, "AUC")
            self._user_thresholds = sorted(inner)
            self.num_thresholds = len(inner) + 2
            self._evenly = evenly_spaced([0.0, *self._user_thresholds, 1.0])
        else:
            if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, int):
                raise ValueError(
                    "AUC: argument `num_thresholds` must be an integer > 1. Received: "
                    f"num_thresholds={num_thresholds!r}"
                )
            if num_thresholds <= 1:
                raise ValueError(
                    "AUC: argument `num_thresholds` must be an integer > 1. Received: "
                    f"num_thresholds={num_thresholds}"
                )
            self._user_thresholds = None
            self.num_thresholds = num_thresholds
            n = num_thresholds
            inner = [(i + 1) * 1.0 / (n - 1) for i in range(n - 2)]
            self._evenly = True
        eps = _losses.fuzz_epsilon()
        self.thresholds = [0.0 - eps, *inner, 1.0 + eps]
        self.multi_label = bool(multi_label)
        self.num_labels = num_labels
        self.from_logits = bool(from_logits)
        if label_weights is not None:
            label_weights = np.asarray(label_weights, dtype=np.float64)
            if (label_weights < 0).any():
                raise ValueError(
                    f"AUC: all values of label_weights must be non-negative. Received: "
                    f"label_weights={label_weights.tolist()}"
                )
        self.label_weights = label_weights
        self._built = False
        if not self.multi_label or num_labels is not None:
            self._build(num_labels)

    def _build(self, num_labels) -> None:
        shape = (
            (self.num_thresholds,) if not self.multi_label else (self.num_thresholds, num_labels)
        )
        self.num_labels = num_labels
        for count in ("true_positives", "false_positives", "true_negatives", "false_negatives"):
            setattr(self, count, self.add_weight(count, shape=shape))
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        """Adds a batch: ``y_true`` read as booleans, ``y_pred`` scores in [0, 1] (or logits
        with ``from_logits``); ``sample_weight`` broadcasts to ``y_pred``.

        Raises:
            ValueError: shapes that do not broadcast, or a label count (``multi_label``)
                that differs from the metric's.
        """
        op = "AUC.update_state"
        with stop_recording():
            pred, labels, weights = _confusion_inputs(self, y_true, y_pred, sample_weight, op)
            if self.from_logits:
                pred = 1.0 / (1.0 + np.exp(-pred))
            if self.multi_label:
                last = pred.shape[-1] if pred.ndim else 1
                if not self._built:
                    self._build(last)
                elif last != self.num_labels:
                    raise ValueError(
                        f"{op}: y_pred has {last} labels on its last axis, the metric was "
                        f"built for {self.num_labels}."
                    )
            elif self.label_weights is not None:
                weights = weights * self.label_weights  # per entry of the last axis
            if self._evenly:
                counts = _bucket_counts(
                    pred,
                    labels,
                    weights,
                    self.num_thresholds,
                    self._dtype._np,
                    epsilon_ends=True,
                    multi_label=self.multi_label,
                )
            else:
                counts = _threshold_counts(
                    pred,
                    labels,
                    weights,
                    self.thresholds,
                    self._dtype._np,
                    multi_label=self.multi_label,
                )
            for count, value in counts.items():
                accumulate(getattr(self, count), value)

    def result(self) -> Tensor:
        if not self._built:
            return to_tensor(np.asarray(0.0, dtype=self._dtype._np)[()], None, "AUC.result")
        tp, fp = (
            np.asarray(v._value, np.float64) for v in (self.true_positives, self.false_positives)
        )
        tn, fn = (
            np.asarray(v._value, np.float64) for v in (self.true_negatives, self.false_negatives)
        )
        if self.curve == "PR" and self.summation_method == "interpolation":
            per_label = self._interpolate_pr_auc(tp, fp, fn)
        else:
            recall = _divide_no_nan(tp, tp + fn)
            if self.curve == "ROC":
                x, y = _divide_no_nan(fp, fp + tn), recall
            else:
                x, y = recall, _divide_no_nan(tp, tp + fp)
            if self.summation_method == "interpolation":
                heights = (y[:-1] + y[1:]) / 2.0
            elif self.summation_method == "minoring":
                heights = np.minimum(y[:-1], y[1:])
            else:
                heights = np.maximum(y[:-1], y[1:])
            per_label = np.sum((x[:-1] - x[1:]) * heights, axis=0)
        if self.multi_label:
            if self.label_weights is None:
                value = np.mean(per_label)
            else:
                value = _divide_no_nan(
                    np.sum(per_label * self.label_weights), np.sum(self.label_weights)
                )
        else:
            value = per_label
        return make(np.asarray(value, dtype=self._dtype._np)[()], self.true_positives._device)

    @staticmethod
    def _interpolate_pr_auc(tp, fp, fn):
        """Davis and Goadrich's interpolated PR-AUC (Keras's interpolate_pr_auc)."""
        dtp = tp[:-1] - tp[1:]
        p = tp + fp
        dp = p[:-1] - p[1:]
        prec_slope = _divide_no_nan(dtp, np.maximum(dp, 0))
        intercept = tp[1:] - prec_slope * p[1:]
        both = (p[:-1] > 0) & (p[1:] > 0)
        ratio = np.where(both, _divide_no_nan(p[:-1], np.maximum(p[1:], 0)), 1.0)
        with np.errstate(divide="ignore"):
            log_ratio = np.log(np.where(ratio > 0, ratio, 1.0))
        increment = _divide_no_nan(
            prec_slope * (dtp + intercept * log_ratio), np.maximum(tp[1:] + fn[1:], 0)
        )
        return np.sum(increment, axis=0)

    def reset_state(self) -> None:
        if self._built:
            super().reset_state()

    def get_config(self) -> dict:
        config = {
            **super().get_config(),
            "num_thresholds": self.num_thresholds,
            "curve": self.curve,
            "summation_method": self.summation_method,
            "multi_label": self.multi_label,
            "num_labels": self.num_labels,
            "label_weights": None if self.label_weights is None else self.label_weights.tolist(),
            "from_logits": self.from_logits,
        }
        if self._user_thresholds is not None:
            config["thresholds"] = list(self._user_thresholds)
        return config


class _SensitivitySpecificityBase(Metric):
    """The best of one rate where another reaches ``value``, over ``num_thresholds`` evenly
    spaced thresholds in [0, 1] (Keras's SensitivitySpecificityBase): accumulates TP, FP, TN
    and FN per threshold; `result` is the largest ``dependent`` rate among the thresholds whose
    ``constrained`` rate is ``>= value``, 0 if none is."""

    _arg = ""  # the name of `value` in the constructor (`specificity`, `recall`, ...)

    def __init__(self, value, num_thresholds=200, class_id=None, name=None, dtype=None):
        op = type(self).__name__
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(
                f"{op}: argument `{self._arg}` must be a number in [0, 1]. "
                f"Received: {self._arg}={value!r}"
            ) from None
        if not 0.0 <= number <= 1.0:
            raise ValueError(
                f"Argument `{self._arg}` must be in the range [0, 1]. Received: {self._arg}={value}"
            )
        if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, int):
            raise ValueError(
                f"{op}: argument `num_thresholds` must be an integer > 0. "
                f"Received: num_thresholds={num_thresholds!r}"
            )
        if num_thresholds <= 0:
            raise ValueError(
                "Argument `num_thresholds` must be an integer > 0. "
                f"Received: num_thresholds={num_thresholds}"
            )
        if class_id is not None and (isinstance(class_id, bool) or not isinstance(class_id, int)):
            raise ValueError(f"{op}: class_id must be an int, received class_id={class_id!r}.")
        super().__init__(name=name, dtype=dtype)
        self.value = value
        setattr(self, self._arg, value)
        self.num_thresholds = num_thresholds
        self.class_id = class_id
        if num_thresholds == 1:
            self.thresholds = [0.5]
        else:
            n = num_thresholds
            self.thresholds = [0.0, *[(i + 1) * 1.0 / (n - 1) for i in range(n - 2)], 1.0]
        for count in ("true_positives", "false_positives", "true_negatives", "false_negatives"):
            setattr(self, count, self.add_weight(count, shape=(len(self.thresholds),)))

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        """Adds a batch: ``y_true`` read as booleans (nonzero is positive), ``y_pred`` as
        scores in [0, 1]; ``sample_weight`` broadcasts to ``y_pred``.

        Raises:
            ValueError: shapes that do not broadcast; ``class_id`` out of range.
        """
        op = f"{type(self).__name__}.update_state"
        with stop_recording():
            pred, labels, weights = _confusion_inputs(
                self, y_true, y_pred, sample_weight, op, class_id=self.class_id
            )
            if len(self.thresholds) == 1:
                counts = _threshold_counts(pred, labels, weights, self.thresholds, self._dtype._np)
            else:
                counts = _bucket_counts(
                    pred, labels, weights, len(self.thresholds), self._dtype._np, epsilon_ends=False
                )
            for count, value in counts.items():
                accumulate(getattr(self, count), value)

    def _rates(self) -> dict:
        tp, fp, tn, fn = (
            np.asarray(getattr(self, c)._value, np.float64)
            for c in ("true_positives", "false_positives", "true_negatives", "false_negatives")
        )
        return {
            "sensitivity": _divide_no_nan(tp, tp + fn),  # = recall
            "specificity": _divide_no_nan(tn, tn + fp),
            "precision": _divide_no_nan(tp, tp + fp),
        }

    def _best(self, constrained: str, dependent: str) -> Tensor:
        rates = self._rates()
        feasible = rates[constrained] >= float(self.value)
        best = float(np.max(np.where(feasible, rates[dependent], 0.0), initial=0.0))
        return make(np.asarray(best, dtype=self._dtype._np), self.true_positives._device)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "class_id": self.class_id,
            "num_thresholds": self.num_thresholds,
            self._arg: self.value,
        }


class SensitivityAtSpecificity(_SensitivitySpecificityBase):
    """The best sensitivity (``TP / (TP + FN)``) among the thresholds whose specificity
    (``TN / (TN + FP)``) is at least ``specificity`` (follows
    `tf.keras.metrics.SensitivityAtSpecificity`).

    Args:
        specificity: a number in [0, 1].
        num_thresholds: how many thresholds, evenly spaced over [0, 1] (default 200; 1 means
            the single threshold 0.5). A prediction is positive when it is greater.
        class_id: the class (index on the last axis of ``y_pred``) to compute it for.
        name, dtype: as `Metric`.

    Raises:
        ValueError: ``specificity`` outside [0, 1]; ``num_thresholds`` not an int > 0.

    >>> m = ek.keras.metrics.SensitivityAtSpecificity(0.5)
    >>> m.update_state([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8])
    >>> float(m.result())  # Keras's documented value
    0.5
    """

    _arg = "specificity"

    def __init__(self, specificity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(specificity, num_thresholds, class_id, name, dtype)

    def result(self) -> Tensor:
        return self._best("specificity", "sensitivity")


class SpecificityAtSensitivity(_SensitivitySpecificityBase):
    """The best specificity among the thresholds whose sensitivity is at least
    ``sensitivity`` (follows `tf.keras.metrics.SpecificityAtSensitivity`); arguments as
    `SensitivityAtSpecificity`.

    >>> m = ek.keras.metrics.SpecificityAtSensitivity(0.5)
    >>> m.update_state([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8])
    >>> round(float(m.result()), 6)  # Keras's documented value
    0.666667
    """

    _arg = "sensitivity"

    def __init__(self, sensitivity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)

    def result(self) -> Tensor:
        return self._best("sensitivity", "specificity")


class PrecisionAtRecall(_SensitivitySpecificityBase):
    """The best precision among the thresholds whose recall is at least ``recall`` (follows
    `tf.keras.metrics.PrecisionAtRecall`); arguments as `SensitivityAtSpecificity`.

    >>> m = ek.keras.metrics.PrecisionAtRecall(0.5)
    >>> m.update_state([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8])
    >>> float(m.result())  # Keras's documented value
    0.5
    """

    _arg = "recall"

    def __init__(self, recall, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(recall, num_thresholds, class_id, name, dtype)

    def result(self) -> Tensor:
        return self._best("sensitivity", "precision")


class RecallAtPrecision(_SensitivitySpecificityBase):
    """The best recall among the thresholds whose precision is at least ``precision``, 0 if
    no threshold reaches it (follows `tf.keras.metrics.RecallAtPrecision`); arguments as
    `SensitivityAtSpecificity`.

    >>> m = ek.keras.metrics.RecallAtPrecision(0.8)
    >>> m.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9])
    >>> float(m.result())  # Keras's documented value
    0.5
    """

    _arg = "precision"

    def __init__(self, precision, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(precision, num_thresholds, class_id, name, dtype)

    def result(self) -> Tensor:
        return self._best("precision", "sensitivity")


for _cls in (
    TruePositives,
    FalsePositives,
    TrueNegatives,
    FalseNegatives,
    Precision,
    Recall,
    AUC,
    SensitivityAtSpecificity,
    SpecificityAtSensitivity,
    PrecisionAtRecall,
    RecallAtPrecision,
):
    register_metric(_cls)
register_metric(AUC, "auc")
__all__ = [
    "AUC",
    "FalseNegatives",
    "FalsePositives",
    "Precision",
    "PrecisionAtRecall",
    "Recall",
    "RecallAtPrecision",
    "SensitivityAtSpecificity",
    "SpecificityAtSensitivity",
    "TrueNegatives",
    "TruePositives",
]
