"""Keras masks: which timesteps of a padded sequence are real, carried from layer to layer on
the tensors themselves (follows Keras 3's ``_keras_mask``).

A layer whose ``compute_mask`` gives a mask (``Embedding(mask_zero=True)``, ``Masking``, the
recurrent layers with ``return_sequences``) attaches it to its output as ``_keras_mask``; a
layer with ``supports_masking = True`` (Dense, Dropout, Activation, ...) passes the mask of its
first input on; any other layer drops it. A layer whose ``call`` takes a ``mask`` argument
(the recurrent layers, Softmax, attention, a user's layer) receives the mask of its input when
the caller gives none. This holds for layers called eagerly, in a subclassed model's ``call``,
and on KerasTensors (the functional API, where the mask is a KerasTensor of its own), so
Sequential and functional models need no bookkeeping of their own.

``supports_masking`` defaults to whether the layer's class overrides ``compute_mask``, as in
Keras 3, and a layer that does not support masking warns when it drops a mask, with Keras 3's
message. Differences from Keras 3: `TimeDistributed` passes the mask on (Keras 3 drops it,
warning), and a mask given to a call by position (``layer(x, m)``) is used as given.

A tensor without a mask has no ``_keras_mask`` (reading it raises AttributeError, as on a
TensorFlow tensor). Until the first mask is attached in the process, layers do not look for
one (`attach` sets `ATTACHED`): unmasked models pay nothing for masking.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np

from .. import nest
from .keras_tensor import KerasTensor, spec_between

__all__ = [
    "accepts_mask",
    "after_call",
    "attach",
    "attach_symbolic",
    "detach",
    "fill_masks",
    "mask_of",
    "stand_in",
    "symbolic_mask",
]

ATTACHED = [False]  # set once a mask has been attached to a tensor (read as ATTACHED[0])
_ACCEPTS: dict[type, bool] = {}
_MASK_PARAMS: dict[type, tuple] = {}


def accepts_mask(layer) -> bool:
    """Whether ``layer.call`` has a ``mask`` parameter."""
    cls = type(layer)
    found = _ACCEPTS.get(cls)
    if found is None:
        try:
            found = "mask" in inspect.signature(cls.call).parameters
        except (TypeError, ValueError):
            found = False
        _ACCEPTS[cls] = found
    return found


def mask_of(inputs):
    """The mask attached to ``inputs`` (a tensor, KerasTensor, or a list or tuple of them:
    a list of masks), or None when there is none."""
    if not ATTACHED[0]:
        return None
    if isinstance(inputs, (list, tuple)):
        masks = [getattr(x, "_keras_mask", None) for x in inputs]
        return masks if any(m is not None for m in masks) else None
    return getattr(inputs, "_keras_mask", None)


def detach(*tensors) -> None:
    """Takes the masks off ``tensors`` (Keras 3's ``set_keras_mask(x, None)``)."""
    for x in tensors:
        if getattr(x, "_keras_mask", None) is not None:
            del x._keras_mask


def attach(outputs, masks) -> None:
    """Attaches ``masks`` (a mask, or a structure matching ``outputs``) to the tensors of
    ``outputs`` that have none yet."""
    if masks is None:
        return
    flat_out = nest.flatten(outputs)
    flat_masks = nest.flatten(masks) if isinstance(masks, (list, tuple)) else [masks]
    for tensor, mask in zip(flat_out, flat_masks):
        if mask is None or getattr(tensor, "_keras_mask", None) is not None:
            continue
        try:
            tensor._keras_mask = mask
        except AttributeError:  # NumPy arrays, Python numbers: nothing to attach to
            continue
        ATTACHED[0] = True


def _mask_params(cls) -> tuple:
    """``(signature of cls.call, pairs)``: the pairs are ``(argument, mask argument)`` for each
    parameter ``X_mask`` whose ``X`` is a parameter too (MultiHeadAttention's ``query`` and
    ``query_mask``)."""
    found = _MASK_PARAMS.get(cls)
    if found is None:
        try:
            signature = inspect.signature(cls.call)
        except (TypeError, ValueError):
            signature = None
        names = list(signature.parameters) if signature is not None else []
        pairs = tuple(
            (n[: -len("_mask")], n) for n in names if n.endswith("_mask") and n[:-5] in names
        )
        found = _MASK_PARAMS[cls] = (signature, pairs)
    return found


def _is_tensor(x) -> bool:
    from ..core.tensor import Tensor

    return isinstance(x, (Tensor, KerasTensor))


def _tensor_arguments(signature, layer, inputs, args: tuple, kwargs: dict) -> int:
    """How many arguments of the call are tensors or non-empty structures of tensors (and
    Nones), as Keras 3's ``CallSpec.tensor_arguments_dict`` counts them."""
    params = signature.parameters  # `training` and the like need not be parameters
    kwargs = {k: v for k, v in kwargs.items() if k in params}
    try:
        bound = signature.bind_partial(layer, inputs, *args, **kwargs).arguments
    except TypeError:
        return 1
    count = 0
    for name, value in bound.items():
        if name == "self":
            continue
        if _is_tensor(value):
            count += 1
        elif isinstance(value, (list, tuple, dict)) and len(value):
            flat = nest.flatten(value)
            if all(x is None or _is_tensor(x) for x in flat) and any(map(_is_tensor, flat)):
                count += 1
    return count


def fill_masks(layer, inputs, args: tuple, kwargs: dict):
    """Gives ``layer``'s call the masks its tensor arguments carry, where the caller gave
    none (Keras 3): ``mask`` from ``inputs`` when it is the call's only tensor argument, and
    ``X_mask`` from the argument ``X`` for a call with such parameters (``query_mask`` of
    MultiHeadAttention); ``kwargs`` is updated in place. A mask given by position
    (``layer(x, m)``) is left as given. Returns the mask the output's mask is computed from
    (the ``mask`` given, else that of ``inputs``)."""
    signature, pairs = _mask_params(type(layer))
    given = kwargs.get("mask")
    positional = False
    if args and given is None and signature is not None and accepts_mask(layer):
        try:  # layer(x, m): the mask given by position
            bound = signature.bind_partial(layer, inputs, *args).arguments
        except TypeError:
            bound = {}
        positional = "mask" in bound
        given = bound.get("mask")
    previous = given if given is not None else mask_of(inputs)
    # Keras 3 fills `mask` only for a call with one tensor argument; with more (a decoder's
    # ``call(x, encoder_outputs, mask=None)``), only the ``X_mask`` below.
    if (
        previous is not None
        and given is None
        and not positional
        and accepts_mask(layer)
        and (not (args or kwargs) or _tensor_arguments(signature, layer, inputs, args, kwargs) < 2)
    ):
        kwargs["mask"] = previous
    if pairs:
        try:
            bound = signature.bind_partial(layer, inputs, *args, **kwargs)
        except TypeError:  # the call raises its own error for these arguments
            return previous
        for name, mask_name in pairs:
            if bound.arguments.get(mask_name) is None and name in bound.arguments:
                mask = mask_of(bound.arguments[name])
                if mask is not None:
                    kwargs[mask_name] = mask
    return previous


def stand_in(value, size: int, fill: int = 0):
    """What a shape-inference call gets for ``value``: for a KerasTensor, a Tensor of zeros
    of its dtype (ones with ``fill=1``: a mask's, every step used), each unknown dimension
    ``size``, carrying the stand-in of the KerasTensor's own mask, so that the call sees a
    mask where the model will pass one; any other value as it is."""
    if not isinstance(value, KerasTensor):
        return value
    from ..ops.creation import ones, zeros

    out = (ones if fill else zeros)([size if d is None else d for d in value.shape], value.dtype)
    mask = getattr(value, "_keras_mask", None)
    if isinstance(mask, KerasTensor):
        attach(out, stand_in(mask, size, fill=1))
    return out


def attach_symbolic(layer, inputs, kwargs: dict, outputs) -> None:
    """Attaches the mask of ``layer``'s output KerasTensors ``outputs`` for a call on the
    KerasTensors ``inputs`` (see `symbolic_mask`)."""
    from .layers.base import Layer

    given = kwargs.get("mask")
    previous = given if given is not None else mask_of(inputs)
    if previous is not None or type(layer).compute_mask is not Layer.compute_mask:
        after_call(layer, inputs, outputs, previous, symbolic=True)


def after_call(layer, inputs, outputs, previous, symbolic: bool = False) -> None:
    """After ``layer`` ran on ``inputs`` whose mask is ``previous``: attaches the mask of
    ``outputs`` when the layer supports masking, or warns that the mask is lost, as Keras 3
    does, when it does not and there was one."""
    if layer.supports_masking:
        if symbolic:
            attach(outputs, symbolic_mask(layer, inputs, previous))
        else:
            attach(outputs, layer.compute_mask(inputs, previous))
    elif previous is not None and any(m is not None for m in nest.flatten(previous)):
        warnings.warn(
            f"Layer '{layer.name}' (of type {type(layer).__name__}) was passed an input with a "
            "mask attached to it. However, this layer does not support masking and will "
            "therefore destroy the mask information. Downstream layers will not see the mask.",
            stacklevel=3,
        )


def symbolic_mask(layer, inputs, previous):
    """The mask KerasTensors (without history) of ``layer``'s output for symbolic ``inputs``
    whose mask is ``previous``, found as `probe_spec` finds shapes: ``compute_mask`` on
    stand-ins, each unknown dimension 2 and then 4. None when the layer gives no mask, or when
    its ``compute_mask`` fails on stand-ins (the real mask is computed when the model runs
    either way)."""
    from ..core.tape import stop_recording
    from ..core.tensor import Tensor

    results = []
    for size in (2, 4):
        try:
            with stop_recording(), np.errstate(all="ignore"):
                mask = layer.compute_mask(
                    nest.map_structure(lambda t, n=size: stand_in(t, n), inputs),
                    nest.map_structure(lambda m, n=size: stand_in(m, n, fill=1), previous),
                )
        except Exception:
            return None
        if mask is None or all(m is None for m in nest.flatten(mask)):
            return None
        results.append(mask)

    def spec(a, b):
        if not isinstance(a, Tensor) or not isinstance(b, Tensor):
            return None
        return spec_between(a, b, name="keras_mask")

    try:
        return nest.map_structure(spec, results[0], results[1])
    except (TypeError, ValueError):  # the two masks differ in structure
        return None
