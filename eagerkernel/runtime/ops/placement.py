"""Copies between devices, differentiable: the gradient goes back to the source's device."""

from __future__ import annotations

import numpy as np

from ..core.tape import Primitive, defvjp
from ..core.tensor import Tensor
from ._core import apply, tensor

__all__ = ["copy_to_device"]


def _copy_fwd(xp, x, device):
    # `xp` is the source device's module; the target's decides the array type. Every copy is a
    # real copy (also NumPy to a virtual GPU), so the two tensors never share memory, as on
    # real devices: an optimizer updating a GPU variable in place cannot touch the CPU source.
    target = device.xp
    if target is np:
        return xp.asnumpy(x) if xp is not np else np.array(x, copy=True)
    with target.cuda.Device(device.index):
        # On the target device: host arrays are uploaded, arrays on another GPU are copied
        # peer to peer (`cupy.array` copies to the current device).
        return target.array(x, copy=True)


_copy = Primitive("CopyToDevice", _copy_fwd, moves=True)
defvjp(_copy, lambda g, ans, x, device: copy_to_device(g, x._device))


def copy_to_device(x, device) -> Tensor:
    """``x`` on ``device`` (a `Device`); ``x`` itself if it is already there.

    The result lives on ``device`` even inside another device's scope, and the copy is
    recorded on tapes, so gradients flow back to the source device.
    """
    x = tensor(x, "copy_to_device")
    if x._device is device:
        return x
    out = apply(_copy, (x,), {"device": device})
    out._device = device
    return out
