"""Keras's autocasting under a mixed precision policy (`keras.mixed_precision`): a layer's
float32 weights read as float16 for one call (`weights_read_as`, `autocast_weights`), and a
call's outputs cast back to the variable dtype where the policy asks (`cast_floats`)."""

from __future__ import annotations

import typing

import numpy as np

from ... import nest
from ...core.tensor import Tensor, to_tensor
from ...core.variable import Variable
from ...ops.elementwise import cast

if typing.TYPE_CHECKING:
    from .base import Layer

__all__ = ["autocast_weights", "cast_floats", "convert_call_args", "weights_read_as"]


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

    # Keras 3's KerasVariable.value: every floating variable (a float64 one too) is read as
    # the autocast scope's dtype, integer ones as they are.
    target = layer._autocast_to._np
    keep = layer.__dict__.get("_no_autocast", ())
    held = {
        key: value
        for key, value in layer.__dict__.items()
        if isinstance(value, Variable)
        and value._value.dtype.kind == "f"
        and value._value.dtype != target
        and id(value) not in keep
    }
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


def convert_call_args(layer: Layer, inputs, args: tuple, kwargs: dict):
    """Keras 3's ``Layer.__call__`` step 1 (``DTypePolicy.convert_input`` on every argument):
    ``(inputs, args, kwargs)`` with the floating tensors and arrays among the arguments after
    the first cast to the layer's input dtype as the first one is (a mask they carry kept);
    with ``autocast=False`` the first argument's arrays become tensors, uncast."""
    if layer._cast_to is None:
        return nest.map_structure(_array_to_tensor, inputs), args, kwargs
    inputs = layer._cast_inputs(inputs)
    if args or kwargs:
        target = layer._cast_to._np

        def one(x):
            if isinstance(x, np.ndarray) and x.dtype.kind == "f":
                x = to_tensor(x, None, layer.name)
            if not isinstance(x, Tensor) or x._value.dtype.kind != "f" or x._value.dtype == target:
                return x
            mask = getattr(x, "_keras_mask", None)
            x = cast(x, target)
            if mask is not None:
                x._keras_mask = mask
            return x

        args = tuple(nest.map_structure(one, a) for a in args)
        kwargs = {k: nest.map_structure(one, v) for k, v in kwargs.items()}
    return inputs, args, kwargs


def _array_to_tensor(x):
    if isinstance(x, (np.ndarray, np.generic)):
        return to_tensor(x, None, "Layer.__call__")
    return x
