"""How a Keras loss weights and reduces its per-sample values (Keras 3's ``reduce_values`` and
``reduce_weighted_values``).

Reductions: ``"sum"``; ``"sum_over_batch_size"`` and ``"mean"`` (the sum divided by the number
of loss values); ``"mean_with_sample_weight"`` (the sum divided by the sum of the sample
weights, or by the number of values without weights); ``"none"`` and ``None`` (no reduction).
A division by 0 gives 0 (``divide_no_nan``).
"""

from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ..ops.elementwise import cast
from ..ops.math_ops import divide_no_nan
from ..ops.reduction import reduce_sum

__all__ = ["KERAS_REDUCTIONS", "reduce_weighted_values", "shapes_broadcast"]

KERAS_REDUCTIONS = ("sum", "sum_over_batch_size", "mean", "mean_with_sample_weight", "none", None)


def shapes_broadcast(a: tuple, b: tuple) -> bool:
    """Whether ``y_true`` and ``y_pred`` shapes broadcast (NumPy's rules, as Keras's ops apply
    them: ``(N, 1)`` targets against ``(N, K)`` predictions; None is an unknown size)."""
    try:
        np.broadcast_shapes(*(tuple(1 if d is None else d for d in s) for s in (a, b)))
    except ValueError:
        return False
    return True


def reduce_weighted_values(losses: Tensor, weights: Tensor | None, reduction) -> Tensor:
    """``losses * weights`` reduced by ``reduction`` (one of `KERAS_REDUCTIONS`).

    ``weights`` must already be aligned to ``losses``'s rank. Unreduced: ``reduction`` is
    ``"none"``/``None``, or the weighted losses have shape ``()`` or ``(0,)`` (as Keras 3,
    which returns an empty batch's losses as they are).

    Raises:
        InvalidArgumentError: ``weights`` that do not broadcast to ``losses`` (TensorFlow's
            class for the multiplication; a ValueError).
    """
    if weights is not None:
        try:
            losses = losses * weights
        except ValueError:
            raise InvalidArgumentError(
                f"sample_weight of shape {tuple(weights.shape)} does not broadcast to the "
                f"losses of shape {tuple(losses.shape)}."
            ) from None
    if reduction in (None, "none") or tuple(losses.shape) in ((), (0,)):
        return losses
    total = reduce_sum(losses)
    if reduction == "sum":
        return total
    if reduction == "mean_with_sample_weight" and weights is not None:
        divisor = cast(reduce_sum(weights), total._value.dtype)
    else:
        divisor = np.asarray(losses._value.size, total._value.dtype)
    return divide_no_nan(total, divisor)
