"""The accuracy that ``compile(metrics=["accuracy"])`` gives when the loss does not name one.

Keras 3's ``CompileMetrics`` builds its metrics on the first batch and picks the accuracy for
the string ``"accuracy"`` from the shapes of ``y_true`` and ``y_pred``
(``keras/src/trainers/compile_utils.py``: ``get_metric``). `compile` here resolves it from
the loss; without a loss (a custom ``train_step`` calling ``compiled_metrics.update_state``)
or with a loss that names no accuracy (``"mse"``), `ShapeResolvedAccuracy` picks it from the
first batch instead.
"""

from __future__ import annotations

from .metrics import (
    MeanMetricWrapper,
    binary_accuracy,
    categorical_accuracy,
    resolve_accuracy,
    sparse_categorical_accuracy,
)

__all__ = ["ShapeResolvedAccuracy"]

_FN_OF = {
    "BinaryAccuracy": binary_accuracy,
    "CategoricalAccuracy": categorical_accuracy,
    "SparseCategoricalAccuracy": sparse_categorical_accuracy,
}


class ShapeResolvedAccuracy(MeanMetricWrapper):
    """``"accuracy"`` resolved on the first `update_state` from the batch's shapes, as Keras 3:
    binary accuracy (threshold 0.5) if ``y_pred``'s last axis is 1, sparse categorical
    accuracy if ``y_true`` has a lower rank than ``y_pred`` or a last axis of 1 against
    several classes, else categorical accuracy. The choice is kept after `reset_state`.

    Args:
        name: the metric's name (default ``"accuracy"``).
        dtype: the result's dtype (default float32).

    Update: ``update_state(y_true, y_pred, sample_weight=None)``, as the chosen metric;
    ``result()`` is a float32 scalar Tensor (0.0 before any update).

    >>> m = ShapeResolvedAccuracy()
    >>> m.update_state([[0.0, 1.0], [1.0, 0.0]], [[0.2, 0.8], [0.3, 0.7]])
    >>> float(m.result())
    0.5
    """

    def __init__(self, name: str = "accuracy", dtype=None):
        super().__init__(self._first_batch, name=name, dtype=dtype)

    def _first_batch(self, y_true, y_pred):
        chosen = type(resolve_accuracy(None, y_true, y_pred)).__name__
        self._fn = _FN_OF[chosen]
        return self._fn(y_true, y_pred)
