"""Masks in losses (Keras 3's ``apply_mask``): the entries a mask leaves out weigh 0, and a
mean reduction averages over the kept ones. A loss applies the Keras mask its ``y_pred``
carries (an ``Embedding(mask_zero=True)`` upstream of a sequence output), and
``SparseCategoricalCrossentropy(ignore_class=...)`` the mask of its labels."""

from __future__ import annotations

import numpy as np

from ..core.tensor import to_tensor
from ..ops.elementwise import cast
from ..ops.reduction import reduce_sum

__all__ = ["apply_mask"]


def apply_mask(sample_weight, mask, reduction, name: str = "loss"):
    """``sample_weight`` with the entries ``mask`` leaves out weighted 0 (Keras 3's
    ``apply_mask``): a mean reduction then averages over the kept entries only (they weigh
    ``total / kept``); None weights become the mask's."""
    from .losses import squeeze_or_expand_to_same_rank

    mask = cast(to_tensor(mask, None, name), "float32")
    if reduction in ("sum_over_batch_size", "mean"):
        total = float(np.prod(mask.shape))
        mask = mask * (total / (reduce_sum(mask) + 1e-7))
    if sample_weight is None:
        return mask
    weights = cast(to_tensor(sample_weight, None, name), "float32")
    mask, weights = squeeze_or_expand_to_same_rank(mask, weights, expand_rank_1=False)
    return mask * weights
