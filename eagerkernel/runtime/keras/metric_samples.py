"""How Keras 3's ``Mean`` and ``Sum`` count an unweighted batch (``reduce_to_samplewise_values``):
each sample's value is the mean of its entries (``Sum``: all entries are added), and the count
grows by the number of samples, ``values.shape[0]`` (1 for a scalar), not of entries."""

from __future__ import annotations

__all__ = ["unweighted_total_count"]


def unweighted_total_count(xp, values, reduction: str) -> tuple:
    """``(total, count)`` an unweighted ``values`` array adds to a `Reduce` metric's state.

    >>> import numpy as np
    >>> unweighted_total_count(np, np.array([[1.0, 3.0], [5.0, 7.0]]), "mean")
    (np.float64(8.0), 2)
    """
    count = values.shape[0] if values.ndim else 1
    if values.ndim > 1 and reduction != "sum":
        values = xp.mean(values, axis=tuple(range(1, values.ndim)))
    return xp.sum(values), count
