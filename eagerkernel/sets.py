"""`ek.sets`: set operations along the last dimension under TensorFlow's `tf.sets` names."""

from __future__ import annotations

from .runtime.ops.sets import (
    difference,
    intersection,
    set_difference,
    set_intersection,
    set_size,
    set_union,
    size,
    union,
)

__all__ = [
    "difference",
    "intersection",
    "set_difference",
    "set_intersection",
    "set_size",
    "set_union",
    "size",
    "union",
]
