"""Intersection-over-union metrics of segmentation and classification: IoU, BinaryIoU,
MeanIoU, OneHotIoU, OneHotMeanIoU (follow `tf.keras.metrics`). All accumulate one weighted
confusion matrix ``total_cm[true, predicted]``; registered with `metrics.get` by class and
snake-case name."""

from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tape import stop_recording
from ..core.tensor import Tensor, make, to_tensor
from . import losses as _losses
from .metrics import Metric, accumulate, register_metric

__all__ = ["BinaryIoU", "IoU", "MeanIoU", "OneHotIoU", "OneHotMeanIoU"]


def _np_float(x, op: str) -> np.ndarray:
    return np.asarray(to_tensor(x, None, op)._value, dtype=np.float64)


def _class_count(value, cls: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(
            f"{cls}: num_classes must be a positive int. Received: num_classes={value!r}"
        )
    return int(value)


def _target_ids(ids, num_classes: int, cls: str) -> list:
    try:
        out = [int(i) for i in ids]
    except (TypeError, ValueError):
        raise ValueError(
            f"{cls}: target_class_ids must be a list or tuple of ints. Received: "
            f"target_class_ids={ids!r}"
        ) from None
    if not out or min(out) < 0 or max(out) >= num_classes:
        raise ValueError(
            f"{cls}: target class ids must be in [0, {num_classes}). Received: "
            f"target_class_ids={ids!r}"
        )
    return out


class IoU(Metric):
    """The intersection over union of chosen classes (follows `tf.keras.metrics.IoU`).

    A weighted confusion matrix ``total_cm[true, predicted]`` is accumulated; per class
    ``IoU = TP / (TP + FP + FN)``, and the result is the mean of the IoUs of
    ``target_class_ids`` whose denominator is not 0 (0 when none is).

    Args:
        num_classes: the number of classes (labels are ``0 .. num_classes - 1``).
        target_class_ids: the classes averaged (a list or tuple of ints; one id gives that
            class's IoU).
        name, dtype: as `Metric` (the result's dtype, float32 by default).
        ignore_class: a label value whose samples are left out (e.g. a "void" class, -1 or
            255), before the range check.
        sparse_y_true, sparse_y_pred: whether labels/predictions are class indices (default)
            or per-class scores along ``axis`` (then their argmax is used).
        axis: the class axis of non-sparse inputs (default -1).

    ``update_state(y_true, y_pred, sample_weight=None)``: any shapes with the same number of
    entries (flattened); ``sample_weight`` (flattened) broadcasts to the flattened labels.

    Raises:
        ValueError: a bad ``num_classes`` or ``target_class_ids``; a label or prediction
            outside ``[0, num_classes)`` (as tf.keras, whose confusion matrix refuses them;
            Keras 3 drops them silently), label and prediction counts that differ, or a
            ``sample_weight`` that does not broadcast (InvalidArgumentError, a ValueError).

    >>> m = ek.keras.metrics.IoU(num_classes=2, target_class_ids=[0])
    >>> m.update_state([0, 0, 1, 1], [0, 1, 0, 1])
    >>> float(m.result())  # class 0: 1 / (2 + 2 - 1)
    0.3333...
    """

    _default_name = None  # the snake-case class name

    def __init__(
        self,
        num_classes,
        target_class_ids,
        name=None,
        dtype=None,
        ignore_class=None,
        sparse_y_true=True,
        sparse_y_pred=True,
        axis=-1,
    ):
        super().__init__(name=name or self._default_name, dtype=dtype)
        cls = type(self).__name__
        self.num_classes = _class_count(num_classes, cls)
        self.target_class_ids = _target_ids(target_class_ids, self.num_classes, cls)
        self.ignore_class = ignore_class
        self.sparse_y_true = bool(sparse_y_true)
        self.sparse_y_pred = bool(sparse_y_pred)
        self.axis = axis
        self.total_cm = self.add_weight(
            "total_confusion_matrix", shape=(num_classes, num_classes), dtype="float64"
        )

    def _predicted_classes(self, y_pred: np.ndarray) -> np.ndarray:
        return y_pred if self.sparse_y_pred else np.argmax(y_pred, axis=self.axis)

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        op = f"{type(self).__name__}.update_state"
        with stop_recording():
            yt, yp = _np_float(y_true, op), _np_float(y_pred, op)
            if not self.sparse_y_true:
                yt = np.argmax(yt, axis=self.axis)
            yp = self._predicted_classes(yp)
            if yt.size != yp.size:
                raise InvalidArgumentError(
                    f"{op}: y_true has {yt.size} labels and y_pred {yp.size} predictions."
                )
            w = np.ones(yt.shape)
            if sample_weight is not None:  # Keras 3: flattened, then broadcast to the labels
                w = _np_float(sample_weight, op)
                try:
                    w = np.broadcast_to(w.reshape(-1) if w.ndim > 1 else w, (yt.size,))
                except ValueError:
                    raise InvalidArgumentError(
                        f"{op}: sample_weight of shape {np.shape(sample_weight)} does not "
                        f"broadcast to the labels' shape {yt.shape}."
                    ) from None
            yt, yp, w = yt.reshape(-1), yp.reshape(-1), w.reshape(-1)
            if self.ignore_class is not None:
                keep = yt != self.ignore_class
                yt, yp, w = yt[keep], yp[keep], w[keep]
            yt, yp = yt.astype(np.int64), yp.astype(np.int64)
            for what, arr in (("label", yt), ("prediction", yp)):
                if arr.size and (arr.min() < 0 or arr.max() >= self.num_classes):
                    raise ValueError(
                        f"{op}: a {what} outside [0, {self.num_classes}): "
                        f"{int(arr.min() if arr.min() < 0 else arr.max())}."
                    )
            cm = np.zeros((self.num_classes, self.num_classes))
            np.add.at(cm, (yt, yp), w)
            accumulate(self.total_cm, cm)

    def result(self) -> Tensor:
        cm = np.asarray(self.total_cm._value, np.float64)
        tp = np.diag(cm)
        denominator = cm.sum(axis=0) + cm.sum(axis=1) - tp
        ids = self.target_class_ids
        tp, denominator = tp[ids], denominator[ids]
        valid = denominator > 1e-9
        iou = np.where(valid, tp / (denominator + _losses.fuzz_epsilon()), 0.0)
        value = np.sum(iou) / (np.sum(valid) + _losses.fuzz_epsilon())
        return make(np.asarray(value, dtype=self._dtype._np)[()], self.total_cm._device)

    def reset_state(self) -> None:
        self.total_cm.assign(np.zeros(self.total_cm._value.shape))

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "num_classes": self.num_classes,
            "target_class_ids": self.target_class_ids,
            "ignore_class": self.ignore_class,
            "sparse_y_true": self.sparse_y_true,
            "sparse_y_pred": self.sparse_y_pred,
            "axis": self.axis,
        }


class BinaryIoU(IoU):
    """IoU of a binary task whose predictions are scores (follows
    `tf.keras.metrics.BinaryIoU`): a prediction ``>= threshold`` is class 1, else class 0;
    then as `IoU` with 2 classes.

    Args:
        target_class_ids: ``(0,)``, ``(1,)`` or ``(0, 1)`` (default): the classes averaged.
        threshold: default 0.5.
        name, dtype: as `Metric`.

    >>> m = ek.keras.metrics.BinaryIoU(target_class_ids=[0, 1], threshold=0.3)
    >>> m.update_state([0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7])
    >>> float(m.result())
    0.3333...
    """

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None):
        super().__init__(2, target_class_ids, name=name, dtype=dtype)
        self.threshold = float(threshold)

    def _predicted_classes(self, y_pred: np.ndarray) -> np.ndarray:
        return (y_pred >= self.threshold).astype(np.int64)

    def get_config(self) -> dict:
        return {
            "name": self.name,
            "dtype": self._dtype.name,
            "target_class_ids": self.target_class_ids,
            "threshold": self.threshold,
        }


class MeanIoU(IoU):
    """The mean intersection over union of semantic segmentation classes (follows
    `tf.keras.metrics.MeanIoU`): `IoU` over all ``num_classes`` classes (those whose
    denominator is 0 do not count).

    Args: as `IoU` without ``target_class_ids``.

    >>> m = ek.keras.metrics.MeanIoU(num_classes=2)
    >>> m.update_state([0, 0, 1, 1], [0, 1, 0, 1])
    >>> float(m.result())  # each class: 1 / (2 + 2 - 1)
    0.3333...
    """

    _default_name = None  # "mean_io_u": Keras snake-cases the class name (MeanIoU)

    def __init__(
        self,
        num_classes,
        name=None,
        dtype=None,
        ignore_class=None,
        sparse_y_true=True,
        sparse_y_pred=True,
        axis=-1,
    ):
        n = _class_count(num_classes, type(self).__name__)
        super().__init__(
            n,
            list(range(n)),
            name=name,
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=sparse_y_true,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )

    def get_config(self) -> dict:
        config = super().get_config()
        del config["target_class_ids"]
        return config


class OneHotIoU(IoU):
    """`IoU` for one-hot labels (follows `tf.keras.metrics.OneHotIoU`): labels and (unless
    ``sparse_y_pred``) predictions are per-class vectors along ``axis``, reduced by argmax.

    Args: as `IoU`, without ``sparse_y_true`` (always False); ``sparse_y_pred`` defaults to
    False.

    >>> m = ek.keras.metrics.OneHotIoU(num_classes=3, target_class_ids=[0, 2])
    >>> y_true = [[0, 0, 1], [1, 0, 0], [0, 1, 0], [1, 0, 0]]
    >>> y_pred = [[0.2, 0.3, 0.5], [0.1, 0.2, 0.7], [0.5, 0.3, 0.1], [0.1, 0.4, 0.5]]
    >>> m.update_state(y_true, y_pred, sample_weight=[0.1, 0.2, 0.3, 0.4])
    >>> round(float(m.result()), 4)  # (0 / 0.9 + 0.1 / 0.7) / 2
    0.0714
    """

    def __init__(
        self,
        num_classes,
        target_class_ids,
        name=None,
        dtype=None,
        ignore_class=None,
        sparse_y_pred=False,
        axis=-1,
    ):
        super().__init__(
            num_classes,
            target_class_ids,
            name=name,
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=False,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )

    def get_config(self) -> dict:
        config = super().get_config()
        del config["sparse_y_true"]
        return config


class OneHotMeanIoU(MeanIoU):
    """`MeanIoU` for one-hot labels (follows `tf.keras.metrics.OneHotMeanIoU`): labels and
    (unless ``sparse_y_pred``) predictions are per-class vectors along ``axis``, reduced by
    argmax.

    Args: as `MeanIoU`, without ``sparse_y_true`` (always False); ``sparse_y_pred`` defaults
    to False.

    >>> m = ek.keras.metrics.OneHotMeanIoU(num_classes=3)
    >>> m.update_state([[0, 0, 1], [1, 0, 0]], [[0.2, 0.3, 0.5], [0.1, 0.2, 0.7]])
    >>> round(float(m.result()), 4)  # class 0: 0 / 1, class 2: 1 / 2; class 1 absent
    0.25
    """

    _default_name = None

    def __init__(
        self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_pred=False, axis=-1
    ):
        super().__init__(
            num_classes,
            name=name,
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=False,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )

    def get_config(self) -> dict:
        config = super().get_config()
        del config["sparse_y_true"]
        return config


for _cls in (IoU, BinaryIoU, MeanIoU, OneHotIoU, OneHotMeanIoU):
    register_metric(_cls)
