"""Conversions beside `cast`: ``saturate_cast`` (clamped to the target's range), ``bitcast``
(the same bytes read as another dtype) and ``realdiv`` (TensorFlow's RealDiv, floats only).

>>> ek.saturate_cast(ek.constant([-1.0, 256.0, 7.9]), ek.uint8).numpy()
array([  0, 255,   7], dtype=uint8)
>>> ek.bitcast(ek.constant(1.0), ek.int32).numpy()
np.int32(1065353216)
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.dispatch import Primitive, defvjp
from ..core.tensor import Tensor
from ._core import apply, coerce_pair, tensor
from .elementwise import cast, clip_by_value, divide

__all__ = ["bitcast", "realdiv", "saturate_cast"]


def _range_of(dtype: np.dtype):
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
    elif dtype.kind == "f":
        info = np.finfo(dtype)
    else:
        return None
    return info.min, info.max


def _conversion(op: str, value, dtype, refused: str, allowed: str):
    """``(tensor, its NumPy dtype, the target NumPy dtype)``; TypeError when either dtype's
    kind is in ``refused``."""
    x = tensor(value, op)
    target = dtypes.numpy_dtype(dtype)
    source = x._value.dtype
    if source.kind in refused or target.kind in refused:
        raise TypeError(
            f"{op}: {allowed} dtypes only, got {x.dtype.name} to {dtypes.from_numpy(target).name}."
        )
    return x, source, target


def saturate_cast(value, dtype, name=None) -> Tensor:
    """Casts ``value`` to ``dtype``, first clamping it to the range ``dtype`` can hold
    (follows `tf.dtypes.saturate_cast`: no wrap-around; float to integer truncates toward
    zero after the clamp, as `cast` does). The gradient flows through the clamp and the cast
    as through `clip_by_value` and `cast`.

    Raises:
        TypeError: ``dtype`` names no eagerkernel dtype; complex or string input.
    """
    x, source, target = _conversion("saturate_cast", value, dtype, "cOSU", "real numeric")
    if source == target:
        return x
    lo_t, hi_t = _range_of(target) if target.kind != "b" else (0, 1)
    lo_s, hi_s = _range_of(source) if source.kind != "b" else (0, 1)
    if lo_t > lo_s or hi_t < hi_s:
        lo = max(lo_t, lo_s)
        hi = min(hi_t, hi_s)
        if source.kind == "f":
            # the bounds as the source float type holds them, inside the target's range
            # (compared as Python numbers: exactly, where NumPy would round the int first)
            down, up = source.type(-np.inf), source.type(np.inf)
            lo = source.type(lo)
            hi_f = source.type(hi)
            if float(lo) < lo_t:
                lo = np.nextafter(lo, up)
            if float(hi_f) > hi:
                hi_f = np.nextafter(hi_f, down)
            hi = hi_f
        x = clip_by_value(x, source.type(lo), source.type(hi))
    return cast(x, target)


_bitcast = Primitive("Bitcast", lambda xp, x, dtype, shape: x.view(dtype).reshape(shape))
defvjp(_bitcast, None)


def bitcast(input, type, name=None) -> Tensor:
    """The bytes of ``input`` read as ``type``, without copying (follows `tf.bitcast`).

    Same item size: the shape is kept. A wider input gains a last dimension of the ratio
    (float32 ``[n]`` as uint8: ``[n, 4]``); a narrower one must have that ratio as its last
    dimension, which goes. No gradient.

    Raises:
        InvalidArgumentError: the last dimension does not match the ratio of the item sizes.
        TypeError: string or boolean dtypes.
    """
    from ..core.errors import InvalidArgumentError

    x, source, target = _conversion("bitcast", input, type, "OSUb", "numeric")
    shape = tuple(x._value.shape)
    if target.itemsize < source.itemsize:
        shape = (*shape, source.itemsize // target.itemsize)
    elif target.itemsize > source.itemsize:
        ratio = target.itemsize // source.itemsize
        if not shape or shape[-1] != ratio:
            raise InvalidArgumentError(
                f"bitcast: Cannot bitcast from {x.dtype.name} to "
                f"{dtypes.from_numpy(target).name}: the last dimension of shape {shape} must "
                f"be {ratio}."
            )
        shape = shape[:-1]
    return apply(_bitcast, (x,), {"dtype": target, "shape": shape})


def realdiv(x, y, name=None) -> Tensor:
    """``x / y`` for floating ``x`` and ``y`` of one dtype (follows `tf.realdiv`, TensorFlow's
    RealDiv; the gradient is `divide`'s).

    Raises:
        TypeError: ``x`` and ``y`` of different dtypes.
        NotFoundError: integer inputs: TensorFlow has no CPU kernel for them either (use
            `truncatediv` or `floordiv`).
    """
    from ..core.errors import NotFoundError

    x, y = coerce_pair(x, y, "realdiv")
    if x._value.dtype.kind in "iub":
        raise NotFoundError(
            f"realdiv: RealDiv has no kernel for {x.dtype.name} (as in TensorFlow); use "
            "ek.truncatediv or ek.math.floordiv for integers."
        )
    return divide(x, y)
