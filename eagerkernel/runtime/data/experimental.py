"""`ek.data.experimental`: the names TensorFlow kept there (AUTOTUNE, cardinality, ...)."""

from __future__ import annotations

from ..tensor import Tensor
from .dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality"]


def cardinality(dataset: Dataset) -> Tensor:
    """``dataset.cardinality()`` (follows `tf.data.experimental.cardinality`).

    >>> int(ek.data.experimental.cardinality(ek.data.Dataset.range(3)))
    3
    """
    return dataset.cardinality()
