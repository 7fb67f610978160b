"""Keras's implicit masks between the layers of a Sequential or functional model.

A layer with ``compute_mask`` (``Embedding(mask_zero=True)``, the recurrent layers) produces a
mask for its output; a layer with ``supports_masking = True`` (Dense, Dropout, Activation, ...)
passes the mask it received on unchanged; any other layer drops it. The next layer whose
``call`` takes a ``mask`` argument (the recurrent layers, Softmax) receives it, as in Keras.
Unlike Keras, tensors carry no mask: a layer called directly (in a subclassed model's
``call``) gets one only as an explicit ``mask=`` argument, e.g.
``self.lstm(x, mask=self.embedding.compute_mask(ids))``.
"""

from __future__ import annotations

import inspect

__all__ = ["call_kwargs", "output_mask"]

_ACCEPTS: dict[type, bool] = {}


def _accepts_mask(layer) -> bool:
    cls = type(layer)
    found = _ACCEPTS.get(cls)
    if found is None:
        try:
            found = "mask" in inspect.signature(cls.call).parameters
        except (TypeError, ValueError):
            found = False
        _ACCEPTS[cls] = found
    return found


def call_kwargs(layer, mask, kwargs: dict) -> dict:
    """``kwargs`` plus ``mask=mask`` when there is a mask, the layer's call takes one and the
    caller did not give one."""
    if mask is None or "mask" in kwargs or not _accepts_mask(layer):
        return kwargs
    return {**kwargs, "mask": mask}


def output_mask(layer, inputs, mask):
    """The mask of ``layer``'s output (see the module docstring)."""
    compute = getattr(layer, "compute_mask", None)
    if compute is not None:
        return compute(inputs, mask)
    return mask if getattr(layer, "supports_masking", False) else None
