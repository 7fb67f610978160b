"""Output KerasTensors of `ek.keras.ops` functions on symbolic inputs, computed from shapes as
Keras 3's ``compute_output_spec`` computes them (`_base.output_spec` registers each)."""

from __future__ import annotations

import math

import numpy as np

from ..keras_tensor import KerasTensor
from ._base import output_spec

__all__ = ["reshape_output_shape"]


def reshape_output_shape(input_shape, newshape) -> tuple:
    """The shape `keras.ops.reshape` gives a symbolic input of ``input_shape`` (follows Keras
    3's ``compute_reshape_output_shape``): ``newshape`` with its -1 resolved when every
    dimension is known, else None there (entries that are not ints are None too).

    Raises:
        ValueError: all dimensions known and the sizes differ, or not divisible by the
            known part of ``newshape``.

    >>> reshape_output_shape((None, 5), (-1, 5, 5)), reshape_output_shape((4, 6), (-1, 3))
    ((None, 5, 5), (8, 3))
    """
    if isinstance(newshape, (int, np.integer)):
        newshape = (int(newshape),)
    newshape = tuple(int(d) if isinstance(d, (int, np.integer)) else None for d in newshape)
    input_shape = tuple(input_shape)
    if None in input_shape or None in newshape:
        return tuple(None if d == -1 else d for d in newshape)
    size = math.prod(input_shape)
    if -1 not in newshape:
        if size != math.prod(newshape):
            raise ValueError(
                "The total size of the tensor must be unchanged. Received: "
                f"input_shape={input_shape}, newshape={newshape}"
            )
        return newshape
    known = math.prod(d for d in newshape if d != -1)
    if known == 0 or size % known:
        raise ValueError(
            "The total size of the tensor must be unchanged, however, the input size cannot "
            "by divided by the specified dimensions in newshape. Received: "
            f"input_shape={input_shape}, newshape={newshape}"
        )
    return tuple(size // known if d == -1 else d for d in newshape)


@output_spec("reshape")
def _reshape_spec(x, newshape):
    return KerasTensor(reshape_output_shape(x.shape, newshape), x.dtype)
