"""Masks in losses (Keras 3's ``apply_mask``): the entries a mask leaves out weigh 0, and a
mean reduction averages over the kept ones. A loss applies the Keras mask its ``y_pred``
carries (an ``Embedding(mask_zero=True)`` upstream of a sequence output), and
``SparseCategoricalCrossentropy(ignore_class=...)`` the mask of its labels."""

from __future__ import annotations

import numpy as np

from ..core.tensor import to_tensor
from ..ops.elementwise import cast
from ..ops.math_ops import divide_no_nan
from ..ops.reduction import reduce_sum

__all__ = ["apply_mask", "merge_masks"]


def apply_mask(sample_weight, mask, reduction, name: str = "loss"):
    """``sample_weight`` with the entries ``mask`` leaves out weighted 0 (Keras 3's
    ``apply_mask``): a mean reduction then averages over the kept entries only (they weigh
    ``total / kept``); None weights become the mask's."""
    from .losses import squeeze_or_expand_to_same_rank

    mask = cast(to_tensor(mask, None, name), "float32")
    if reduction in ("sum_over_batch_size", "mean"):
        total = float(np.prod(mask.shape))
        mask = mask * divide_no_nan(total, reduce_sum(mask))
    if sample_weight is None:
        return mask
    weights = cast(to_tensor(sample_weight, None, name), "float32")
    mask, weights = squeeze_or_expand_to_same_rank(mask, weights)
    return mask * weights


def merge_masks(a, b):
    """The entries both masks keep (float32 0/1; Keras's ``in_mask & out_mask``), or the one
    that is not None."""
    if a is None or b is None:
        return b if a is None else a
    return cast(to_tensor(a, None, "mask"), "float32") * cast(to_tensor(b, None, "mask"), "float32")
