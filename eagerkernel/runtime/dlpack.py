"""`ek.experimental.dlpack`: zero-copy exchange with NumPy, CuPy, PyTorch and JAX.

Follows `tf.experimental.dlpack`: `to_dlpack` gives a DLPack capsule and `from_dlpack` takes
a capsule or any object with ``__dlpack__`` (a torch/CuPy/JAX/NumPy array). Tensors also
implement ``__dlpack__``/``__dlpack_device__``, so ``torch.from_dlpack(t)`` works directly.

Host memory (DLPack device type 1) becomes a tensor on ``/cpu:0``; CUDA memory (type 2,
device N) a tensor on the real ``/gpu:N`` through CuPy. Virtual GPUs hold host memory, so
they export as CPU arrays, and CUDA data cannot be imported onto them.
"""

from __future__ import annotations

import ctypes

import numpy as np

from .core.device import CPU, get_device
from .core.tensor import Tensor, make

__all__ = ["from_dlpack", "to_dlpack"]

_KDL_CPU = 1
_KDL_CUDA = 2
_KDL_CUDA_HOST = 3


def to_dlpack(tensor) -> object:
    """A DLPack capsule sharing ``tensor``'s memory (follows `tf.experimental.dlpack`)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack: expected a Tensor, got {type(tensor).__name__}.")
    return tensor.__dlpack__()


class _Capsule:
    """Wraps a bare DLPack capsule so that `from_dlpack` functions can consume it."""

    def __init__(self, capsule):
        self._capsule = capsule
        self._device = _capsule_device(capsule)

    def __dlpack__(self, stream=None, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return self._device


def _capsule_device(capsule) -> tuple[int, int]:
    """Reads ``DLManagedTensor.dl_tensor.device`` from an unversioned ``"dltensor"`` capsule."""
    api = ctypes.pythonapi
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    api.PyCapsule_IsValid.restype = ctypes.c_int
    api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
    if not api.PyCapsule_IsValid(capsule, b"dltensor"):
        raise ValueError(
            "from_dlpack: the capsule is not an unconsumed 'dltensor' DLPack capsule "
            "(a capsule can be imported only once)."
        )
    ptr = api.PyCapsule_GetPointer(capsule, b"dltensor")
    # struct DLTensor { void* data; DLDevice {int32 device_type; int32 device_id}; ... }
    fields = (ctypes.c_int32 * 2).from_address(ptr + ctypes.sizeof(ctypes.c_void_p))
    return int(fields[0]), int(fields[1])


def from_dlpack(obj) -> Tensor:
    """A Tensor sharing the memory of ``obj``, a DLPack capsule or an object with __dlpack__.

    Raises:
        RuntimeError: CUDA data but no real GPU with that index (the message says why).
        TypeError: ``obj`` is neither.
    """
    if isinstance(obj, Tensor):
        return obj
    if type(obj).__name__ == "PyCapsule":
        obj = _Capsule(obj)
    if not hasattr(obj, "__dlpack__"):
        raise TypeError(
            f"from_dlpack: expected a DLPack capsule or an object with __dlpack__, got "
            f"{type(obj).__name__}."
        )
    kind, index = obj.__dlpack_device__()
    if kind in (_KDL_CPU, _KDL_CUDA_HOST):
        return make(np.from_dlpack(obj), CPU)
    if kind == _KDL_CUDA:
        device = get_device(f"/gpu:{int(index)}")
        if device.virtual:
            raise RuntimeError(
                f"from_dlpack: the data is on CUDA device {index}, but /gpu:{index} is a "
                "virtual (NumPy-backed) GPU; real GPUs need CuPy and a CUDA device."
            )
        with device.cuda_device():
            return make(device.xp.from_dlpack(obj), device)
    raise ValueError(f"from_dlpack: unsupported DLPack device type {kind} (device {index}).")
