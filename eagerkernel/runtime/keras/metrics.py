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

import contextlib
import re
import weakref

import numpy as np

from ..core import dtypes, errors
from ..core.dispatch import stateful
from ..core.tape import stop_recording
from ..core.tensor import Tensor, make, to_tensor
from ..core.variable import Variable, VariableAggregation, VariableSynchronization
from ..ops.array_ops import squeeze
from ..ops.elementwise import cast, equal, greater
from ..ops.reduction import argmax, reduce_mean
from . import losses as _losses
from .loss_masks import apply_mask
from .metric_samples import unweighted_total_count

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
        dtype: the dtype of the state and the result (default `keras.backend.floatx()`).
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
        if dtype is None:
            from .backend import floatx

            dtype = floatx()
        self._dtype = dtypes.as_dtype(dtype)
        self._variables: list[Variable] = []

    @property
    def dtype(self) -> str:
        return self._dtype.name

    def add_weight(self, name: str, shape=(), dtype=None, initializer="zeros") -> Variable:
        """Creates a state Variable named ``"<metric>/<name>"``, zero-initialized (Keras 2's
        argument order; ``initializer`` as in `add_variable`)."""
        return self.add_variable(shape, initializer, dtype=dtype, name=name)

    def add_variable(
        self, shape, initializer, dtype=None, aggregation="sum", name=None
    ) -> Variable:
        """Creates a state Variable named ``"<metric>/<name>"`` (follows Keras 3's
        ``Metric.add_variable``): not trainable; under a strategy each replica accumulates
        its own value and reading it outside the replicas combines them by ``aggregation``
        (``"sum"``, ``"mean"``).

        Args:
            shape: the variable's shape.
            initializer: ``"zeros"``, ``"ones"``, a number, or a Keras initializer (a name or
                an object called with ``(shape, dtype)``).
            dtype: default the metric's dtype.

        Raises:
            ValueError: an unknown ``aggregation``.
        """
        from . import initializers

        dt = dtypes.as_dtype(dtype) if dtype is not None else self._dtype
        aggregations = {"sum": VariableAggregation.SUM, "mean": VariableAggregation.MEAN}
        if aggregation not in aggregations:
            raise ValueError(
                f"add_variable: aggregation must be 'sum' or 'mean'. Received: {aggregation!r}"
            )
        if (
            initializer is None
            or isinstance(initializer, (int, float))
            or initializer
            in (
                "zeros",
                "ones",
            )
        ):
            fill = {None: 0, "zeros": 0, "ones": 1}.get(initializer, initializer)
            value = np.full(tuple(shape), fill, dtype=dt._np)
        else:
            value = cast(initializers.get(initializer)(tuple(shape), dtype=dt), dt)  # as Keras
        v = Variable(
            value,
            trainable=False,
            name=f"{self.name}/{name or 'variable'}",
            dtype=dt,
            # as Keras's metrics: under a strategy each replica accumulates its own state and
            # reading it outside the replicas combines them
            synchronization=VariableSynchronization.ON_READ,
            aggregation=aggregations[aggregation],
        )
        self._variables.append(v)
        return v

    @property
    def variables(self) -> list:
        """The state Variables, in creation order, then those of the metrics held in
        attributes (plain or in a list/tuple/dict), as Keras 3's tracked ``_metrics``."""
        out, seen = list(self._variables), {id(v) for v in self._variables}
        for value in vars(self).values():
            items = value.values() if isinstance(value, dict) else value
            for m in items if isinstance(value, (list, tuple, dict)) else (value,):
                if isinstance(m, Metric) and m is not self:
                    out += [v for v in m.variables if id(v) not in seen]
                    seen.update(id(v) for v in m.variables)
        return out

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
        """Updates the state with one batch and returns `result` (which `metric_of_result`
        maps back to this metric, as tf.keras's ``_metric_obj``, for ``Layer.add_metric``)."""
        self.update_state(*args, **kwargs)
        out = self.result()
        key = id(out)
        # a result that cannot be weakly referenced is not looked up later
        with contextlib.suppress(TypeError):
            _RESULTS[key] = (weakref.ref(out, lambda _, key=key: _RESULTS.pop(key, None)), self)
        return out

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}>"  # Keras 3's


# id(result) -> (weakref to a result `Metric.__call__` returned, the metric); an entry goes
# when its result is freed.
_RESULTS: dict = {}


def metric_of_result(value) -> Metric | None:
    """The `Metric` whose ``__call__`` returned ``value`` (the very object, still alive),
    else None."""
    entry = _RESULTS.get(id(value))
    if entry is not None and entry[0]() is value:
        return entry[1]
    return None


def accumulate(v: Variable, amount) -> None:
    """Adds ``amount`` to a metric's state Variable in place, in its dtype (not recorded)."""
    v._value = (v._value + amount).astype(v._value.dtype)


def _float_tensor(x, dtype, op: str) -> Tensor:
    t = to_tensor(x, dtype._np, op)
    if t.dtype != dtype:
        t = cast(t, dtype)
    return t


def _weights_like(values: Tensor, sample_weight, op: str, reduce: str = "mean"):
    """``sample_weight`` aligned to ``values``'s rank and broadcast to its shape (an array).
    Weights of lower rank than the values weigh samples: the values are first reduced
    (``reduce``: mean, or sum for `Sum`) over their trailing axes, as Keras's
    ``reduce_to_samplewise_values`` does; returns those values too."""
    w = _float_tensor(sample_weight, values.dtype, op)
    values, w = _losses.squeeze_or_expand_to_same_rank(values, w, expand_rank_1=False)
    xp = values._device.xp
    if values.ndim > w.ndim:
        axes = tuple(range(w.ndim, values.ndim))
        reduced = (
            xp.mean(values._value, axis=axes)
            if reduce == "mean"
            else xp.sum(values._value, axis=axes)
        )
        values = make(xp.asarray(reduced, dtype=values._value.dtype), values._device)
    try:
        return values, xp.broadcast_to(w._value, values._value.shape)
    except ValueError:  # TensorFlow's class for its BroadcastTo (a ValueError)
        raise errors.InvalidArgumentError(
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
        """Adds ``values`` (any shape) weighted by ``sample_weight`` (broadcast to ``values``;
        the count grows by the sum of the weights, else by the samples: `metric_samples`).

        Raises:
            ValueError: weights that do not broadcast to ``values``.
        """
        op = f"{type(self).__name__}.update_state"
        with stop_recording():
            values = _float_tensor(values, self._dtype, op)
            v = values._value
            xp = values._device.xp
            if sample_weight is None:
                total, count = unweighted_total_count(xp, v, self.reduction)
            else:
                reduce = "sum" if self.reduction == "sum" else "mean"
                values, w = _weights_like(values, sample_weight, op, reduce)
                total, count = xp.sum(values._value * w), xp.sum(w)
            accumulate(self.total, float(total))
            if self.reduction != "sum":
                accumulate(self.count, float(count))

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

    ``update_state(y_true, y_pred, sample_weight=None)`` weights each sample's value; the
    entries a Keras mask on ``y_pred`` leaves out weigh 0 (Keras 3).
    """

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name or getattr(fn, "__name__", "mean_metric_wrapper"), dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        mask = getattr(y_pred, "_keras_mask", None)
        with stop_recording():
            if mask is not None:
                sample_weight = apply_mask(sample_weight, mask, "sum", self.name)
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
    y_pred = _losses.pred_tensor(y_pred, "binary_accuracy")
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


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5, from_sorted_ids=False) -> Tensor:
    """1.0 where the integer label is among the ``k`` highest scores, or with ``from_sorted_ids``
    among the first ``k`` of ``y_pred``'s score-sorted ids (follows `keras.metrics`' function)."""
    op = "sparse_top_k_categorical_accuracy"
    y_pred = _as_tensor(y_pred, op)
    if from_sorted_ids:  # the result has y_true's shape, as in Keras
        lab, ids = _as_tensor(y_true, op)._value, y_pred._value.reshape(-1, y_pred.shape[-1])
        hit = (ids[:, :k] == lab.reshape(-1, 1).astype(ids.dtype)).any(axis=-1)
        return make(hit.astype(np.float32).reshape(lab.shape), y_pred._device)
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

    def __init__(
        self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None, from_sorted_ids=False
    ):
        kwargs = {"k": int(k), "from_sorted_ids": bool(from_sorted_ids)}
        super().__init__(sparse_top_k_categorical_accuracy, name=name, dtype=dtype, **kwargs)


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
    """``sqrt`` of the running mean of squared errors (`tf.keras.metrics.RootMeanSquaredError`)."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        with stop_recording():
            y_true, y_pred = _losses.aligned_pair(y_true, y_pred, "RootMeanSquaredError")
            super().update_state((y_pred - y_true) * (y_pred - y_true), sample_weight)

    def result(self) -> Tensor:
        mean = super().result()
        return make(np.sqrt(mean._value), mean._device)


class BinaryCrossentropy(MeanMetricWrapper):
    """The running mean of `ek.keras.losses.binary_crossentropy`."""

    def __init__(
        self, name="binary_crossentropy", dtype=None, from_logits=False, label_smoothing=0
    ):
        kw = {"from_logits": from_logits, "label_smoothing": label_smoothing}
        super().__init__(_losses.binary_crossentropy, name=name, dtype=dtype, **kw)


class CategoricalCrossentropy(MeanMetricWrapper):
    """The running mean of `ek.keras.losses.categorical_crossentropy`."""

    def __init__(
        self,
        name="categorical_crossentropy",
        dtype=None,
        from_logits=False,
        label_smoothing=0,
        axis=-1,
    ):
        kw = {"from_logits": from_logits, "label_smoothing": label_smoothing, "axis": axis}
        super().__init__(_losses.categorical_crossentropy, name=name, dtype=dtype, **kw)


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
    <Accuracy name=acc>
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
    <SparseCategoricalAccuracy name=accuracy>
    >>> ek.keras.metrics.resolve_accuracy(y_true=(32,), y_pred=(32, 10))
    <SparseCategoricalAccuracy name=accuracy>
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


def register_metric(cls, *names: str) -> None:
    """Makes ``cls`` known to `get` by its class name, its snake-case name and ``names``."""
    _BY_NAME[_snake(cls.__name__)] = cls
    _CLASSES[cls.__name__] = cls
    for name in names:
        _BY_NAME[name] = cls


# The other metric families, which register themselves with `get`.
from .metrics_confusion import *  # noqa: E402, F403
from .metrics_confusion import __all__ as _confusion_all  # noqa: E402
from .metrics_corr import *  # noqa: E402, F403
from .metrics_corr import __all__ as _corr_all  # noqa: E402
from .metrics_iou import *  # noqa: E402, F403
from .metrics_iou import __all__ as _iou_all  # noqa: E402
from .metrics_more import *  # noqa: E402, F403
from .metrics_more import __all__ as _more_all  # noqa: E402
from .metrics_sparse_ce import *  # noqa: E402, F403
from .metrics_sparse_ce import __all__ as _sparse_ce_all  # noqa: E402

__all__ += [*_confusion_all, *_more_all, *_iou_all, *_corr_all, *_sparse_ce_all]

# The loss functions Keras 3 exports from ``keras.metrics`` too (the same objects).
from .losses import (  # noqa: E402
    KLD,
    MAE,
    MAPE,
    MSE,
    MSLE,
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    categorical_hinge,
    hinge,
    huber,
    kld,
    kullback_leibler_divergence,
    logcosh,
    mae,
    mape,
    mse,
    msle,
    poisson,
    sparse_categorical_crossentropy,
    squared_hinge,
)

__all__ += [
    "KLD",
    "MAE",
    "MAPE",
    "MSE",
    "MSLE",
    "binary_crossentropy",
    "binary_focal_crossentropy",
    "categorical_crossentropy",
    "categorical_focal_crossentropy",
    "categorical_hinge",
    "deserialize",
    "hinge",
    "huber",
    "kld",
    "kullback_leibler_divergence",
    "logcosh",
    "mae",
    "mape",
    "mse",
    "msle",
    "poisson",
    "serialize",
    "sparse_categorical_crossentropy",
    "squared_hinge",
]


def serialize(metric) -> dict | None:
    """Keras's config dict of a metric, ``{"module": "keras.metrics", "class_name",
    "config", "registered_name": None}`` for a built-in one (follows
    `tf.keras.metrics.serialize`); a function gets Keras's ``"class_name": "function"``
    form.

    Raises:
        NotImplementedError: an object without ``get_config`` or a name.

    >>> ek.keras.metrics.serialize(ek.keras.metrics.MeanSquaredError())["class_name"]
    'MeanSquaredError'
    """
    from .object_config import serialize_as

    functions = {v for v in globals().values() if callable(v) and not isinstance(v, type)}
    return serialize_as(metric, "keras.metrics", set(_CLASSES.values()), functions)


def _metric_by_name(name: str):
    try:
        return get(name)
    except ValueError:
        return None


def deserialize(config, custom_objects=None):
    """The metric a `serialize` dict describes, or the one a name gives (``"mse"`` gives a
    `MeanSquaredError` metric, as `get` does; follows `tf.keras.metrics.deserialize`).

    Raises:
        ValueError: a name that is no metric. TypeError: a config of an unknown class.

    >>> ek.keras.metrics.deserialize("mse")
    <MeanSquaredError name=mse>
    """
    from .object_config import deserialize_from

    return deserialize_from(config, custom_objects, "metric", _metric_by_name, "keras.metrics")
