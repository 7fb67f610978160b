"""Keras metrics: streaming statistics over batches (follows `tf.keras.metrics`).

A metric holds its state in non-trainable Variables (listed by `Metric.variables`, so
checkpoints find them), accumulates batches with `update_state`, reports with `result` and
starts over with `reset_state`. Calling it does both: ``m(y_true, y_pred)`` updates and
returns the result so far.

Metric computations are never recorded on gradient tapes, even inside a ``GradientTape``
block: they run under `stop_recording` (they have no gradient, and a tape should not hold
their intermediates).
"""

from __future__ import annotations

import re

import numpy as np

from ..core import dtypes
from ..core.dispatch import stateful
from ..core.tape import stop_recording
from ..core.tensor import Tensor, make, to_tensor
from ..core.variable import Variable, VariableAggregation, VariableSynchronization
from ..ops.array_ops import expand_dims, squeeze
from ..ops.elementwise import cast, equal, greater
from ..ops.reduction import argmax, reduce_mean
from . import losses as _losses

__all__ = [
    "Accuracy",
    "BinaryAccuracy",
    "BinaryCrossentropy",
    "CategoricalAccuracy",
    "CategoricalCrossentropy",
    "Mean",
    "MeanAbsoluteError",
    "MeanMetricWrapper",
    "MeanSquaredError",
    "Metric",
    "RootMeanSquaredError",
    "SparseCategoricalAccuracy",
    "SparseCategoricalCrossentropy",
    "SparseTopKCategoricalAccuracy",
    "Sum",
    "TopKCategoricalAccuracy",
    "accuracy",
    "binary_accuracy",
    "categorical_accuracy",
    "get",
    "resolve_accuracy",
    "sparse_categorical_accuracy",
    "sparse_top_k_categorical_accuracy",
    "top_k_categorical_accuracy",
]


def _snake(name: str) -> str:
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


class Metric:
    """Base class of metrics (follows `tf.keras.metrics.Metric`).

    Subclasses create state with `add_weight` in ``__init__`` and implement `update_state`
    and `result`.

    Args:
        name: default the snake-case class name (``SparseCategoricalAccuracy`` ->
            ``"sparse_categorical_accuracy"``).
        dtype: the dtype of the state and the result (default float32).
    """

    def __init_subclass__(cls, **kwargs):
        # A metric's state lives in its variables and Python: inside a graph function
        # (`ek.function`), every call updates and reads it again (TensorFlow's stateful ops).
        super().__init_subclass__(**kwargs)
        for name in ("update_state", "result", "reset_state"):
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "_stateful", False):
                wrapped = stateful(method)
                wrapped._stateful = True
                setattr(cls, name, wrapped)

    def __init__(self, name: str | None = None, dtype=None, **kwargs):
        if kwargs:
            raise TypeError(
                f"{type(self).__name__}: unexpected keyword arguments {sorted(kwargs)}."
            )
        self.name = name or _snake(type(self).__name__)
        self._dtype = dtypes.as_dtype(dtype if dtype is not None else "float32")
        self._variables: list[Variable] = []

    @property
    def dtype(self) -> str:
        return self._dtype.name

    def add_weight(self, name: str, shape=(), dtype=None, initializer="zeros") -> Variable:
        """Creates a state Variable named ``"<metric>/<name>"``, zero-initialized."""
        dt = dtypes.as_dtype(dtype) if dtype is not None else self._dtype
        fill = {"zeros": 0, "ones": 1}.get(initializer, initializer)
        v = Variable(
            np.full(tuple(shape), fill, dtype=dt._np),
            trainable=False,
            name=f"{self.name}/{name}",
            # as Keras's metrics: under a strategy each replica accumulates its own state and
            # reading it outside the replicas sums them
            synchronization=VariableSynchronization.ON_READ,
            aggregation=VariableAggregation.SUM,
        )
        self._variables.append(v)
        return v

    @property
    def variables(self) -> list:
        """The state Variables, in creation order."""
        return list(self._variables)

    weights = variables
    non_trainable_weights = variables

    @property
    def trainable_weights(self) -> list:
        return []

    def update_state(self, *args, **kwargs) -> None:
        raise NotImplementedError(f"{type(self).__name__} must implement update_state.")

    def result(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} must implement result.")

    def reset_state(self) -> None:
        """Sets every state Variable back to zero."""
        for v in self._variables:
            v.assign(np.zeros(v._value.shape, dtype=v._value.dtype))

    reset_states = reset_state  # TF 2.0-2.4 spelling

    def __call__(self, *args, **kwargs) -> Tensor:
        """Updates the state with one batch and returns `result`."""
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r}>"


def _add(v: Variable, amount: float) -> None:
    v._value = (v._value + amount).astype(v._value.dtype)


def _float_tensor(x, dtype, op: str) -> Tensor:
    t = to_tensor(x, dtype._np, op)
    if t.dtype != dtype:
        t = cast(t, dtype)
    return t


def _weights_like(values: Tensor, sample_weight, op: str):
    """``sample_weight`` aligned to ``values``'s rank and broadcast to its shape (an array)."""
    w = _float_tensor(sample_weight, values.dtype, op)
    values, w = _losses.squeeze_or_expand_to_same_rank(values, w, expand_rank_1=False)
    xp = values._device.xp
    try:
        return values, xp.broadcast_to(w._value, values._value.shape)
    except ValueError:
        raise ValueError(
            f"{op}: sample_weight of shape {tuple(w.shape)} does not broadcast to the values "
            f"of shape {tuple(values.shape)}."
        ) from None


class Reduce(Metric):
    """Sums values (``Sum``) or averages them, weighted (``Mean``)."""

    def __init__(self, reduction: str, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.reduction = reduction
        self.total = self.add_weight("total")
        if reduction != "sum":
            self.count = self.add_weight("count")

    def update_state(self, values, sample_weight=None) -> None:
        """Adds ``values`` (any shape), optionally weighted by ``sample_weight`` (broadcast
        to ``values``; the count grows by the sum of the weights).

        Raises:
            ValueError: weights that do not broadcast to ``values``.
        """
        op = f"{type(self).__name__}.update_state"
        with stop_recording():
            values = _float_tensor(values, self._dtype, op)
            v = values._value
            xp = values._device.xp
            if sample_weight is None:
                total, count = xp.sum(v), v.size
            else:
                values, w = _weights_like(values, sample_weight, op)
                total, count = xp.sum(values._value * w), xp.sum(w)
            _add(self.total, float(total))
            if self.reduction != "sum":
                _add(self.count, float(count))

    def result(self) -> Tensor:
        if self.reduction == "sum":
            return make(self.total._value, self.total._device)
        total, count = float(self.total._value), float(self.count._value)
        value = total / count if count else 0.0  # divide_no_nan
        return make(np.asarray(value, dtype=self._dtype._np)[()], self.total._device)


class Mean(Reduce):
    """The weighted mean of all values seen (follows `tf.keras.metrics.Mean`).

    >>> m = ek.keras.metrics.Mean()
    >>> m.update_state([1.0, 3.0])
    >>> m.update_state(5.0)
    >>> float(m.result())
    3.0
    """

    def __init__(self, name="mean", dtype=None):
        super().__init__("weighted_mean", name=name, dtype=dtype)


class Sum(Reduce):
    """The (weighted) sum of all values seen (follows `tf.keras.metrics.Sum`)."""

    def __init__(self, name="sum", dtype=None):
        super().__init__("sum", name=name, dtype=dtype)


class MeanMetricWrapper(Mean):
    """The running mean of ``fn(y_true, y_pred, **kwargs)`` over all samples
    (follows `tf.keras.metrics.MeanMetricWrapper`).

    ``update_state(y_true, y_pred, sample_weight=None)`` weights each sample's value.
    """

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name or getattr(fn, "__name__", "mean_metric_wrapper"), dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        with stop_recording():
            values = self._fn(y_true, y_pred, **self._fn_kwargs)
            super().update_state(values, sample_weight)

    def get_config(self) -> dict:
        return {**super().get_config(), **self._fn_kwargs}


# -- accuracy functions (per sample, float32) --------------------------------------------------


def _as_tensor(x, op: str) -> Tensor:
    return to_tensor(x, None, op)


def _matches(a: Tensor, b: Tensor) -> Tensor:
    if a._value.dtype != b._value.dtype:
        b = cast(b, a._value.dtype)
    return cast(equal(a, b), "float32")


def accuracy(y_true, y_pred) -> Tensor:
    """1.0 where ``y_true == y_pred`` elementwise, else 0.0 (follows
    `tf.keras.metrics.accuracy`; ``y_pred`` is cast to ``y_true``'s dtype)."""
    y_true, y_pred = _as_tensor(y_true, "accuracy"), _as_tensor(y_pred, "accuracy")
    y_true, y_pred = _losses.squeeze_or_expand_to_same_rank(y_true, y_pred)
    return _matches(y_true, y_pred)


def binary_accuracy(y_true, y_pred, threshold=0.5) -> Tensor:
    """Per-sample fraction of ``(y_pred > threshold) == y_true`` over the last axis (per
    element for rank-1 inputs; follows `tf.keras.metrics.binary_accuracy`)."""
    y_pred = _losses._pred(y_pred, "binary_accuracy")
    y_true = _as_tensor(y_true, "binary_accuracy")
    y_true, y_pred = _losses.squeeze_or_expand_to_same_rank(y_true, y_pred)
    hits = _matches(y_true, cast(greater(y_pred, threshold), y_true._value.dtype))
    # Keras averages over the last axis; for rank-1 inputs that would turn a batch into a
    # single value and weigh batches equally whatever their size, so rank 1 stays per sample.
    return reduce_mean(hits, axis=-1) if hits.ndim > 1 else hits


def categorical_accuracy(y_true, y_pred) -> Tensor:
    """``argmax(y_true) == argmax(y_pred)`` per sample (follows
    `tf.keras.metrics.categorical_accuracy`)."""
    y_true = _as_tensor(y_true, "categorical_accuracy")
    y_pred = _as_tensor(y_pred, "categorical_accuracy")
    return _matches(argmax(y_true, axis=-1), argmax(y_pred, axis=-1))


def _sparse_labels(y_true: Tensor, y_pred: Tensor) -> Tensor:
    if y_true.ndim == y_pred.ndim and y_true.ndim and y_true.shape[-1] == 1:
        y_true = squeeze(y_true, -1)
    return y_true


def sparse_categorical_accuracy(y_true, y_pred) -> Tensor:
    """``y_true == argmax(y_pred)`` per sample; labels of shape ``[N]`` or ``[N, 1]``
    (follows `tf.keras.metrics.sparse_categorical_accuracy`).

    >>> ek.keras.metrics.sparse_categorical_accuracy([1, 0], [[0.1, 0.9], [0.2, 0.8]]).numpy()
    array([1., 0.], dtype=float32)
    """
    y_pred = _as_tensor(y_pred, "sparse_categorical_accuracy")
    y_true = _sparse_labels(_as_tensor(y_true, "sparse_categorical_accuracy"), y_pred)
    return _matches(y_true, argmax(y_pred, axis=-1))


def _in_top_k(scores: Tensor, labels: Tensor, k: int, op: str) -> Tensor:
    s, lab = scores._value, labels._value
    if lab.dtype.kind not in "iu":
        lab = lab.astype(np.int64)
    xp = scores._device.xp
    n = s.shape[-1]
    if lab.size and (int(lab.min()) < 0 or int(lab.max()) >= n):
        raise ValueError(f"{op}: labels must lie in [0, {n}).")
    target = xp.take_along_axis(s, lab[..., None], axis=-1)
    # TF's in_top_k: the target is in the top k if fewer than k scores beat it.
    better = xp.sum(s > target, axis=-1)
    return make((better < k).astype(np.float32), scores._device)


def top_k_categorical_accuracy(y_true, y_pred, k=5) -> Tensor:
    """1.0 where the true class (argmax of one-hot ``y_true``) is among the ``k`` highest
    scores (follows `tf.keras.metrics.top_k_categorical_accuracy`)."""
    op = "top_k_categorical_accuracy"
    y_pred = _as_tensor(y_pred, op)
    return _in_top_k(y_pred, argmax(_as_tensor(y_true, op), axis=-1), k, op)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5) -> Tensor:
    """1.0 where the integer label is among the ``k`` highest scores (follows
    `tf.keras.metrics.sparse_top_k_categorical_accuracy`)."""
    op = "sparse_top_k_categorical_accuracy"
    y_pred = _as_tensor(y_pred, op)
    return _in_top_k(y_pred, _sparse_labels(_as_tensor(y_true, op), y_pred), k, op)


# -- metric classes -----------------------------------------------------------------------------


class Accuracy(MeanMetricWrapper):
    """How often ``y_pred`` equals ``y_true`` (follows `tf.keras.metrics.Accuracy`).

    >>> m = ek.keras.metrics.Accuracy()
    >>> float(m([1, 2, 3, 4], [0, 2, 3, 4]))
    0.75
    """

    def __init__(self, name="accuracy", dtype=None):
        super().__init__(accuracy, name=name, dtype=dtype)


class BinaryAccuracy(MeanMetricWrapper):
    """How often ``y_pred > threshold`` matches binary labels (follows
    `tf.keras.metrics.BinaryAccuracy`)."""

    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        super().__init__(binary_accuracy, name=name, dtype=dtype, threshold=float(threshold))


class CategoricalAccuracy(MeanMetricWrapper):
    """How often ``argmax(y_pred)`` matches ``argmax`` of one-hot labels (follows
    `tf.keras.metrics.CategoricalAccuracy`)."""

    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(categorical_accuracy, name=name, dtype=dtype)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often ``argmax(y_pred)`` matches integer labels (follows
    `tf.keras.metrics.SparseCategoricalAccuracy`).

    >>> m = ek.keras.metrics.SparseCategoricalAccuracy()
    >>> m.update_state([[1], [2]], [[0.1, 0.9, 0.0], [0.1, 0.8, 0.1]])
    >>> float(m.result())
    0.5
    """

    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(sparse_categorical_accuracy, name=name, dtype=dtype)


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the true class is among the top ``k`` predictions (one-hot labels)."""

    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(top_k_categorical_accuracy, name=name, dtype=dtype, k=int(k))


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the integer label is among the top ``k`` predictions."""

    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None):
        super().__init__(sparse_top_k_categorical_accuracy, name=name, dtype=dtype, k=int(k))


class MeanSquaredError(MeanMetricWrapper):
    """The running mean of `ek.keras.losses.mean_squared_error` (follows
    `tf.keras.metrics.MeanSquaredError`)."""

    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(_losses.mean_squared_error, name=name, dtype=dtype)


class MeanAbsoluteError(MeanMetricWrapper):
    """The running mean of `ek.keras.losses.mean_absolute_error`."""

    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(_losses.mean_absolute_error, name=name, dtype=dtype)


class RootMeanSquaredError(Mean):
    """``sqrt`` of the running mean of squared errors (follows
    `tf.keras.metrics.RootMeanSquaredError`)."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        with stop_recording():
            y_true, y_pred = _losses._aligned(y_true, y_pred, "RootMeanSquaredError")
            super().update_state((y_pred - y_true) * (y_pred - y_true), sample_weight)

    def result(self) -> Tensor:
        mean = super().result()
        return make(np.sqrt(mean._value), mean._device)


class BinaryCrossentropy(MeanMetricWrapper):
    """The running mean of `ek.keras.losses.binary_crossentropy`."""

    def __init__(
        self, name="binary_crossentropy", dtype=None, from_logits=False, label_smoothing=0
    ):
        super().__init__(
            _losses.binary_crossentropy,
            name=name,
            dtype=dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
        )


class CategoricalCrossentropy(MeanMetricWrapper):
    """The running mean of `ek.keras.losses.categorical_crossentropy`."""

    def __init__(
        self, name="categorical_crossentropy", dtype=None, from_logits=False, label_smoothing=0
    ):
        super().__init__(
            _losses.categorical_crossentropy,
            name=name,
            dtype=dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
        )


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """The running mean of `ek.keras.losses.sparse_categorical_crossentropy`."""

    def __init__(self, name="sparse_categorical_crossentropy", dtype=None, from_logits=False):
        super().__init__(
            _losses.sparse_categorical_crossentropy,
            name=name,
            dtype=dtype,
            from_logits=from_logits,
        )


# -- lookup -------------------------------------------------------------------------------------

_BY_NAME = {
    "accuracy": Accuracy,
    "acc": Accuracy,
    "binary_accuracy": BinaryAccuracy,
    "categorical_accuracy": CategoricalAccuracy,
    "sparse_categorical_accuracy": SparseCategoricalAccuracy,
    "top_k_categorical_accuracy": TopKCategoricalAccuracy,
    "sparse_top_k_categorical_accuracy": SparseTopKCategoricalAccuracy,
    "mean_squared_error": MeanSquaredError,
    "mse": MeanSquaredError,
    "mean_absolute_error": MeanAbsoluteError,
    "mae": MeanAbsoluteError,
    "root_mean_squared_error": RootMeanSquaredError,
    "rmse": RootMeanSquaredError,
    "binary_crossentropy": BinaryCrossentropy,
    "categorical_crossentropy": CategoricalCrossentropy,
    "sparse_categorical_crossentropy": SparseCategoricalCrossentropy,
    "mean": Mean,
    "sum": Sum,
}
_CLASSES = {c.__name__: c for c in set(_BY_NAME.values())}


def get(identifier) -> Metric:
    """A `Metric` object for ``identifier``.

    Accepts a name (``"accuracy"``/``"acc"``, ``"sparse_categorical_accuracy"``, ``"mse"``,
    ``"mae"``, ``"binary_crossentropy"``, ...; the metric is named with the string given, as
    Keras names history entries), a class name, a `Metric` class or instance, or a function
    ``fn(y_true, y_pred)`` (wrapped in `MeanMetricWrapper`, named after the function).

    ``"accuracy"`` gives plain `Accuracy` (elementwise equality); ``Model.compile`` should
    resolve it with `resolve_accuracy` first, as Keras does.

    Raises:
        ValueError: if ``identifier`` cannot be interpreted.

    >>> ek.keras.metrics.get("acc")
    <Accuracy name='acc'>
    """
    if isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, type) and issubclass(identifier, Metric):
        return identifier()
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier.lower()) or _CLASSES.get(identifier)
        if cls is not None:
            return cls(name=identifier)
    if isinstance(identifier, dict) and identifier.get("class_name") in _CLASSES:
        return _CLASSES[identifier["class_name"]].from_config(identifier.get("config", {}))
    if callable(identifier) and not isinstance(identifier, type):
        return MeanMetricWrapper(identifier)
    raise ValueError(
        f"Could not interpret metric identifier: {identifier!r}. Use a name such as "
        f"{sorted(_BY_NAME)}, a Metric, or a function fn(y_true, y_pred)."
    )


_LOSS_KIND = {
    "sparse_categorical_crossentropy": "sparse",
    "categorical_crossentropy": "categorical",
    "binary_crossentropy": "binary",
}


def resolve_accuracy(loss=None, y_true=None, y_pred=None, name: str = "accuracy") -> Metric:
    """The accuracy metric Keras picks for ``metrics=["accuracy"]`` (or ``"acc"``).

    With the shapes of a batch (Keras 2's rule, preferred): `BinaryAccuracy` if ``y_pred``'s
    last axis is 1, `SparseCategoricalAccuracy` if ``y_true`` has a lower rank than
    ``y_pred`` or a last axis of 1 against several classes, else `CategoricalAccuracy`.
    Without shapes, from the loss (a name, a `Loss` or a function):
    sparse_categorical_crossentropy, categorical_crossentropy or binary_crossentropy give the
    matching metric; any other loss gives plain `Accuracy`.

    Args:
        loss: the compiled loss identifier.
        y_true, y_pred: Tensors/arrays, or their shapes (tuples; lists are data).
        name: the metric's name (the string the user wrote).

    >>> ek.keras.metrics.resolve_accuracy("sparse_categorical_crossentropy")
    <SparseCategoricalAccuracy name='accuracy'>
    >>> ek.keras.metrics.resolve_accuracy(y_true=(32,), y_pred=(32, 10))
    <SparseCategoricalAccuracy name='accuracy'>
    """
    if y_true is not None and y_pred is not None:
        ts, ps = _shape(y_true), _shape(y_pred)
        if ps and ps[-1] == 1:
            return BinaryAccuracy(name=name)
        if len(ts) < len(ps) or (ts and ts[-1] == 1 and ps and ps[-1] > 1):
            return SparseCategoricalAccuracy(name=name)
        return CategoricalAccuracy(name=name)
    kind = None
    if isinstance(loss, str):
        key = loss.lower()
        kind = _LOSS_KIND.get(key) or _LOSS_KIND.get(_snake(loss))
    elif loss is not None:
        fn = getattr(loss, "fn", loss)
        kind = _LOSS_KIND.get(getattr(fn, "__name__", ""))
    cls = {
        "sparse": SparseCategoricalAccuracy,
        "categorical": CategoricalAccuracy,
        "binary": BinaryAccuracy,
    }.get(kind, Accuracy)
    return cls(name=name)


def _shape(x) -> tuple:
    if isinstance(x, tuple) and all(isinstance(d, int | type(None)) for d in x):  # a shape
        return tuple(x)
    return tuple(np.shape(x._value if isinstance(x, Tensor) else x))


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
        raise ValueError(
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
            raise ValueError(
                f"{op}: sample_weight of shape {tuple(w.shape)} does not broadcast to y_pred "
                f"of shape {tuple(pred.shape)}."
            ) from None
    if top_k is not None:
        if pred.ndim == 0 or top_k > pred.shape[-1]:
            raise ValueError(f"{op}: top_k={top_k} exceeds the number of classes of y_pred.")
        kth = xp.sort(pred, axis=-1)[..., -top_k][..., None]
        # Keras keeps the indices of lax.top_k; ties at the k-th value are rare, kept all
        pred = xp.where(pred >= kth, pred, NEG_INF)
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


def _xp_of(array):
    import cupy  # only reached for CuPy arrays

    return cupy


def _accumulate(v: Variable, amount) -> None:
    v._value = (v._value + amount).astype(v._value.dtype)


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
            counts = _threshold_counts(pred, labels, weights, self.thresholds, self._dtype._np)
            for count in self._counts:
                _accumulate(getattr(self, count), counts[count])

    def _value(self, array) -> Tensor:
        array = np.asarray(array, dtype=self._dtype._np)
        if not isinstance(self.init_thresholds, (list, tuple)):
            array = array[0]
        return make(array, self._variables[0]._device)

    def get_config(self) -> dict:
        config = {**super().get_config(), "thresholds": self.init_thresholds}
        if self.top_k is not None or self.class_id is not None:
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
        eps = _losses._epsilon()
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
            counts = _threshold_counts(
                pred,
                labels,
                weights,
                self.thresholds,
                self._dtype._np,
                multi_label=self.multi_label,
            )
            for count, value in counts.items():
                _accumulate(getattr(self, count), value)

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


for _cls in (
    TruePositives,
    FalsePositives,
    TrueNegatives,
    FalseNegatives,
    Precision,
    Recall,
    AUC,
):
    _BY_NAME[_snake(_cls.__name__)] = _cls
    _CLASSES[_cls.__name__] = _cls
_BY_NAME["auc"] = AUC
__all__ += [
    "AUC",
    "FalseNegatives",
    "FalsePositives",
    "Precision",
    "Recall",
    "TrueNegatives",
    "TruePositives",
]


# -- regression and probabilistic metrics (running means of the loss functions) ------------------


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
            if yt.ndim != 2 or yp.shape != yt.shape:
                raise ValueError(
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
                    raise ValueError(
                        f"{op}: sample_weight has {w.shape[0]} entries for a batch of "
                        f"{yt.shape[0]}."
                    )
            _accumulate(self.true_positives, np.sum(w * pred * yt, axis=0))
            _accumulate(self.false_positives, np.sum(w * pred * (1 - yt), axis=0))
            _accumulate(self.false_negatives, np.sum(w * (1 - pred) * yt, axis=0))
            _accumulate(self.intermediate_weights, np.sum(w * yt, axis=0))

    def result(self) -> Tensor:
        if self.num_classes is None:
            return to_tensor(np.asarray(0.0, dtype=self._dtype._np)[()], None, self.name)
        eps = _losses._epsilon()
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
        num_regressors: > 0 gives the adjusted R2, ``1 - (1 - R2) (n - 1) / (n - p - 1)``.
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
        for name in ("squared_sum", "sum", "total_mse", "count"):
            setattr(self, name, self.add_weight(name, shape=(outputs,)))

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        op = "R2Score.update_state"
        with stop_recording():
            yt, yp = _np_float(y_true, op), _np_float(y_pred, op)
            if yt.ndim == 1:
                yt = yt[:, None]
            if yp.ndim == 1:
                yp = yp[:, None]
            if yt.ndim != 2 or yt.shape != yp.shape:
                raise ValueError(
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
                w = np.broadcast_to(w[:, None] if w.ndim == 1 else w, yt.shape)
            _accumulate(self.sum, np.sum(yt * w, axis=0))
            _accumulate(self.squared_sum, np.sum(yt * yt * w, axis=0))
            _accumulate(self.total_mse, np.sum((yt - yp) ** 2 * w, axis=0))
            _accumulate(self.count, np.sum(np.broadcast_to(w, yt.shape), axis=0))
            _accumulate(self.num_samples, yt.shape[0])

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


class MeanIoU(Metric):
    """The mean intersection over union of semantic segmentation classes (follows
    `tf.keras.metrics.MeanIoU`).

    A weighted confusion matrix ``total_cm[true, predicted]`` is accumulated; per class
    ``IoU = TP / (TP + FP + FN)``, and the result is the mean over the classes that occur
    (a denominator of 0 does not count).

    Args:
        num_classes: the number of classes (labels are ``0 .. num_classes - 1``).
        name, dtype: as `Metric`.
        ignore_class: a label value whose samples are left out (e.g. a "void" class).
        sparse_y_true, sparse_y_pred: whether labels/predictions are class indices (default)
            or per-class scores along ``axis`` (then their argmax is used).
        axis: the class axis of non-sparse inputs (default -1).

    Raises:
        ValueError: a label or prediction outside ``[0, num_classes)``.

    >>> m = ek.keras.metrics.MeanIoU(num_classes=2)
    >>> m.update_state([0, 0, 1, 1], [0, 1, 0, 1])
    >>> float(m.result())  # each class: 1 / (2 + 2 - 1)
    0.3333...
    """

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
        super().__init__(name=name or "mean_iou", dtype=dtype)
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
            raise ValueError(
                f"MeanIoU: num_classes must be a positive int. Received: num_classes="
                f"{num_classes!r}"
            )
        self.num_classes = num_classes
        self.ignore_class = ignore_class
        self.sparse_y_true = bool(sparse_y_true)
        self.sparse_y_pred = bool(sparse_y_pred)
        self.axis = axis
        self.total_cm = self.add_weight(
            "total_confusion_matrix", shape=(num_classes, num_classes), dtype="float64"
        )

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        op = "MeanIoU.update_state"
        with stop_recording():
            yt, yp = _np_float(y_true, op), _np_float(y_pred, op)
            if not self.sparse_y_true:
                yt = np.argmax(yt, axis=self.axis)
            if not self.sparse_y_pred:
                yp = np.argmax(yp, axis=self.axis)
            if yt.size != yp.size:
                raise ValueError(
                    f"{op}: y_true has {yt.size} labels and y_pred {yp.size} predictions."
                )
            w = np.ones(yt.shape)
            if sample_weight is not None:
                try:
                    w = np.broadcast_to(_np_float(sample_weight, op), yt.shape)
                except ValueError:
                    raise ValueError(
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
            _accumulate(self.total_cm, cm)

    def result(self) -> Tensor:
        cm = np.asarray(self.total_cm._value, np.float64)
        tp = np.diag(cm)
        denominator = cm.sum(axis=0) + cm.sum(axis=1) - tp
        valid = np.sum(denominator > 1e-9)
        iou = tp / (denominator + _losses._epsilon())
        value = np.sum(iou) / (valid + _losses._epsilon())
        return make(np.asarray(value, dtype=self._dtype._np)[()], self.total_cm._device)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "num_classes": self.num_classes,
            "ignore_class": self.ignore_class,
            "sparse_y_true": self.sparse_y_true,
            "sparse_y_pred": self.sparse_y_pred,
            "axis": self.axis,
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
    _BY_NAME[_snake(_cls.__name__)] = _cls
    _CLASSES[_cls.__name__] = _cls
_CLASSES["MeanIoU"] = MeanIoU
_BY_NAME.update(
    logcosh=LogCoshError,
    log_cosh=LogCoshError,
    kld=KLDivergence,
    mape=MeanAbsolutePercentageError,
    msle=MeanSquaredLogarithmicError,
    fbeta_score=FBetaScore,
)
__all__ += [
    "CategoricalHinge",
    "CosineSimilarity",
    "F1Score",
    "FBetaScore",
    "Hinge",
    "KLDivergence",
    "LogCoshError",
    "MeanAbsolutePercentageError",
    "MeanIoU",
    "MeanSquaredLogarithmicError",
    "Poisson",
    "R2Score",
    "SquaredHinge",
    "cosine_similarity",
]
