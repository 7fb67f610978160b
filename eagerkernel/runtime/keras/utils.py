"""`ek.keras.utils`: `to_categorical`, `set_random_seed` and the serialization helpers Keras
also exports here (follow `tf.keras.utils`)."""

from __future__ import annotations

import random as _py_random

import numpy as np

from ..core.tensor import Tensor
from .saving import (
    CustomObjectScope,
    custom_object_scope,
    deserialize_keras_object,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    serialize_keras_object,
)

__all__ = [
    "CustomObjectScope",
    "custom_object_scope",
    "deserialize_keras_object",
    "get_custom_objects",
    "get_registered_name",
    "get_registered_object",
    "register_keras_serializable",
    "serialize_keras_object",
    "set_random_seed",
    "to_categorical",
]


def to_categorical(x, num_classes=None) -> np.ndarray:
    """One-hot rows for integer class labels (follows `tf.keras.utils.to_categorical`).

    Args:
        x: integer labels of any shape (a trailing axis of size 1 is dropped, as Keras does).
        num_classes: default ``max(x) + 1``.

    Returns:
        A float32 NumPy array of shape ``x.shape + (num_classes,)``.

    Raises:
        ValueError: labels that are negative, not integers, or not below ``num_classes``.

    >>> ek.keras.utils.to_categorical([0, 2, 1], num_classes=3)
    array([[1., 0., 0.],
           [0., 0., 1.],
           [0., 1., 0.]], dtype=float32)
    """
    arr = np.asarray(x.numpy() if isinstance(x, Tensor) else x)
    if arr.size and arr.dtype.kind == "f" and not np.all(arr == np.round(arr)):
        raise ValueError(f"to_categorical: labels must be integers. Received: {arr!r:.200}")
    if arr.size and arr.dtype.kind not in "iuf":
        raise ValueError(f"to_categorical: labels must be integers. Received dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if arr.ndim > 1 and arr.shape[-1] == 1:
        arr = arr[..., 0]
    if num_classes is None:
        num_classes = int(arr.max()) + 1 if arr.size else 0
    num_classes = int(num_classes)
    if arr.size and (arr.min() < 0 or arr.max() >= num_classes):
        raise ValueError(
            f"to_categorical: labels must lie in [0, {num_classes}). Received: min "
            f"{int(arr.min())}, max {int(arr.max())}, num_classes={num_classes}"
        )
    out = np.zeros((*arr.shape, num_classes), np.float32)
    np.put_along_axis(out, arr[..., None], 1.0, axis=-1)
    return out


def set_random_seed(seed: int) -> None:
    """Seeds Python's `random`, NumPy's global generator and eagerkernel's (`ek.random.set_seed`)
    at once (follows `tf.keras.utils.set_random_seed`).

    Raises:
        ValueError: a seed that is not an int.
    """
    from .. import random as ek_random

    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"set_random_seed: expected an int seed. Received: seed={seed!r}")
    _py_random.seed(int(seed))
    np.random.seed(int(seed))
    ek_random.set_seed(int(seed))
