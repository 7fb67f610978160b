"""Keras 3's correlation metrics: Pearson's and Lin's concordance correlation coefficients, as
functions and running means (follow `keras.metrics`); registered with `metrics.get`."""

from __future__ import annotations

from ..core.tensor import Tensor
from ..ops.reduction import reduce_mean, reduce_std, reduce_variance
from . import backend
from .losses import pred_tensor, squeeze_or_expand_to_same_rank, true_tensor
from .metrics import MeanMetricWrapper, register_metric

__all__ = [
    "ConcordanceCorrelation",
    "PearsonCorrelation",
    "concordance_correlation",
    "pearson_correlation",
]


def _pair(y_true, y_pred, op: str) -> tuple[Tensor, Tensor]:
    y_pred = pred_tensor(y_pred, op)
    return squeeze_or_expand_to_same_rank(true_tensor(y_true, y_pred, op), y_pred)


def pearson_correlation(y_true, y_pred, axis=-1) -> Tensor:
    """Pearson's correlation coefficient of ``y_true`` and ``y_pred`` along ``axis``: the
    mean of the product of the standardized values (population std), in [-1, 1] (follows
    `keras.metrics.pearson_correlation`; no epsilon, so a constant slice gives NaN as Keras).

    Args:
        y_true, y_pred: values of the same (or rank-alignable) shape; ``y_true`` is cast to
            ``y_pred``'s float dtype.
        axis: the axis or axes the coefficient is taken over (default -1).

    Returns:
        The coefficients, of the input shape without ``axis``.

    >>> y_true = [[0.0, 1.0, 0.5], [1.0, 1.0, 0.2]]
    >>> y_pred = [[0.1, 0.9, 0.5], [1.0, 0.9, 0.2]]
    >>> ek.keras.metrics.pearson_correlation(y_true, y_pred).numpy().round(6)
    array([1.      , 0.993399], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred, "pearson_correlation")
    y_true_norm = y_true - reduce_mean(y_true, axis=axis, keepdims=True)
    y_pred_norm = y_pred - reduce_mean(y_pred, axis=axis, keepdims=True)
    y_true_norm = y_true_norm / reduce_std(y_true_norm, axis=axis, keepdims=True)
    y_pred_norm = y_pred_norm / reduce_std(y_pred_norm, axis=axis, keepdims=True)
    return reduce_mean(y_true_norm * y_pred_norm, axis=axis)


def concordance_correlation(y_true, y_pred, axis=-1) -> Tensor:
    """Lin's concordance correlation coefficient along ``axis`` (follows
    `keras.metrics.concordance_correlation`, including its formula)::

        mean(2 * (y_true - mean(y_pred)) * (y_pred - mean(y_pred))
             / (var(y_true) + var(y_pred) + (mean(y_true) - mean(y_pred))**2 + epsilon))

    Keras centres both factors of the covariance term on ``mean(y_pred)``; kept so the values
    match. Args, returns: as `pearson_correlation`.

    >>> y_true = [[0.0, 1.0, 0.5], [1.0, 1.0, 0.2]]
    >>> y_pred = [[0.1, 0.9, 0.5], [1.0, 0.9, 0.2]]
    >>> ek.keras.metrics.concordance_correlation(y_true, y_pred).numpy().round(6)
    array([0.97561 , 0.987654], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred, "concordance_correlation")
    y_true_mean = reduce_mean(y_true, axis=axis, keepdims=True)
    y_pred_mean = reduce_mean(y_pred, axis=axis, keepdims=True)
    y_true_var = reduce_variance(y_true - y_true_mean, axis=axis, keepdims=True)
    y_pred_var = reduce_variance(y_pred - y_pred_mean, axis=axis, keepdims=True)
    covar = (y_true - y_pred_mean) * (y_pred - y_pred_mean)
    norm = y_true_var + y_pred_var + (y_true_mean - y_pred_mean) ** 2
    return reduce_mean(2.0 * covar / (norm + backend.epsilon()), axis=axis)


class PearsonCorrelation(MeanMetricWrapper):
    """The running (sample-weighted) mean of `pearson_correlation` (follows
    `keras.metrics.PearsonCorrelation`; 1 is the best value).

    Args:
        name: default ``"pearson_correlation"``. dtype: of the result (default float32).
        axis: the axis or axes of each coefficient (default -1).

    >>> m = ek.keras.metrics.PearsonCorrelation()
    >>> m.update_state([[0.0, 1.0, 0.5], [1.0, 1.0, 0.2]], [[0.1, 0.9, 0.5], [1.0, 0.9, 0.2]])
    >>> round(float(m.result()), 6)
    0.9967
    """

    def __init__(self, name="pearson_correlation", dtype=None, axis=-1):
        super().__init__(pearson_correlation, name=name, dtype=dtype, axis=axis)
        self.axis = axis


class ConcordanceCorrelation(MeanMetricWrapper):
    """The running (sample-weighted) mean of `concordance_correlation` (follows
    `keras.metrics.ConcordanceCorrelation`; 1 is the best value). Args: as
    `PearsonCorrelation` (name default ``"concordance_correlation"``).

    >>> m = ek.keras.metrics.ConcordanceCorrelation()
    >>> m.update_state([[0.0, 1.0, 0.5], [1.0, 1.0, 0.2]], [[0.1, 0.9, 0.5], [1.0, 0.9, 0.2]])
    >>> round(float(m.result()), 6)
    0.981632
    """

    def __init__(self, name="concordance_correlation", dtype=None, axis=-1):
        super().__init__(concordance_correlation, name=name, dtype=dtype, axis=axis)
        self.axis = axis


register_metric(PearsonCorrelation)
register_metric(ConcordanceCorrelation)
