"""Keras's autocasting under a mixed precision policy (`keras.mixed_precision`): a layer's
float32 weights read as float16 for one call (`weights_read_as`, `autocast_weights`), and a
call's outputs cast back to the variable dtype where the policy asks (`cast_floats`)."""

from __future__ import annotations

import typing

from ... import nest
from ...core.tensor import Tensor
from ...core.variable import Variable
from ...ops.elementwise import cast

if typing.TYPE_CHECKING:
    from .base import Layer

__all__ = ["autocast_weights", "cast_floats", "weights_read_as"]


class autocast_weights:
    """Reads ``layer``'s weights as its compute dtype inside the block, as its own calls do
    (Keras's autocast scope), for code that computes with a layer's weights without calling
    it (an RNN running a cell's step function). Nothing happens outside a mixed policy."""

    def __init__(self, layer: Layer):
        self._layer = layer
        self._held = None

    def __enter__(self):
        layer = self._layer
        if layer._autocast_to is not None:
            self._held, read_as = weights_read_as(layer)
            layer.__dict__.update(read_as)
        return layer

    def __exit__(self, *exc) -> None:
        if self._held:
            self._layer.__dict__.update(self._held)
        self._held = None


def weights_read_as(layer: Layer) -> tuple[dict, dict]:
    """Keras's autocasting for one call of ``layer`` under a mixed policy: ``(held,
    read_as)``, the floating Variable attributes in the variable dtype and their values cast
    to the compute dtype (a recorded Cast, so the gradient reaches each Variable in its own
    dtype). The call swaps ``read_as`` into the layer's ``__dict__`` and ``held`` back after."""

    dtype = layer._variable_dtype._np
    keep = layer.__dict__.get("_no_autocast", ())
    held = {
        key: value
        for key, value in layer.__dict__.items()
        if isinstance(value, Variable) and value._value.dtype == dtype and id(value) not in keep
    }
    target = layer._autocast_to._np
    return held, {key: cast(value, target) for key, value in held.items()}


def cast_floats(outputs, source, target):
    """``outputs`` with each Tensor of dtype ``source`` cast to ``target``."""

    def one(x):
        if isinstance(x, Tensor) and x._value.dtype == source._np:
            return cast(x, target._np)
        return x

    if isinstance(outputs, Tensor):
        return one(outputs)
    return nest.map_structure(one, outputs)
