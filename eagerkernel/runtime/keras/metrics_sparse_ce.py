"""The ``SparseCategoricalCrossentropy`` metric, whose ``ignore_class`` entries weigh 0 when
sample weights are passed (Keras 3: its loss function puts a Keras mask on the values, which
``Mean`` applies to the weights only)."""

from __future__ import annotations

from ..core.tape import stop_recording
from . import losses as _losses
from .loss_masks import apply_mask
from .metrics import MeanMetricWrapper, register_metric

__all__ = ["SparseCategoricalCrossentropy"]


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """The running mean of `ek.keras.losses.sparse_categorical_crossentropy` (follows
    `tf.keras.metrics.SparseCategoricalCrossentropy`).

    Args:
        from_logits: ``y_pred`` holds logits (default False: probabilities).
        ignore_class: a label whose entries get a loss of 0. Unweighted, they still count
            in the mean (Keras 3: ``sum(valid losses) / entries``); with ``sample_weight``
            they weigh 0 (``sum(w * loss) / sum(w over valid entries)``). None: no class.
        axis: the class axis; only -1.

    >>> m = ek.keras.metrics.SparseCategoricalCrossentropy(from_logits=True, ignore_class=1)
    >>> m.update_state([0, 1], [[0.0, 0.0], [0.0, 0.0]], sample_weight=[1.0, 3.0])
    >>> round(float(m.result()), 4)
    0.6931
    """

    def __init__(
        self,
        name="sparse_categorical_crossentropy",
        dtype=None,
        from_logits=False,
        ignore_class=None,
        axis=-1,
    ):
        kw = {"from_logits": from_logits, "ignore_class": ignore_class, "axis": axis}
        super().__init__(_losses.sparse_categorical_crossentropy, name=name, dtype=dtype, **kw)

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        """Adds the batch's losses; with ``sample_weight`` and ``ignore_class``, the
        entries labelled ``ignore_class`` weigh 0 (see the class)."""
        ignore_class = self._fn_kwargs.get("ignore_class")
        if sample_weight is not None and ignore_class is not None:
            with stop_recording():
                loss = _losses.SparseCategoricalCrossentropy(ignore_class=ignore_class)
                mask = loss.label_mask(y_true, y_pred)
                sample_weight = apply_mask(sample_weight, mask, "sum", self.name)
        super().update_state(y_true, y_pred, sample_weight)


register_metric(SparseCategoricalCrossentropy)
