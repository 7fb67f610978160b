"""NumPy behavior (`tf.experimental.numpy.experimental_enable_numpy_behavior`): its switches and
NumPy's type promotion, as TensorFlow's legacy NumPy mode defines them.

Off by default. `enable` turns on, for the whole process:

- NumPy-style methods on tensors (``t.reshape``, ``t.T``, ``t.astype`` ...; `Tensor` declares
  them in its class body and they raise AttributeError while the behavior is off);
- NumPy type promotion in the tensor operators: ``int32 + int64`` gives int64 and
  ``int32 + 1.5`` float64 where TensorFlow alone raises TypeError. Operands of one dtype take
  the usual op path unchanged; the promotion runs only where the plain op raised TypeError.

``prefer_float32`` makes Python floats float32 (complex: complex64) in `result_type`, and so
in ``tnp.asarray(1.0)`` and ``tnp.add(1.0, 2.0)``; it is read even while the behavior is off,
as TensorFlow reads it.

``enable(promotion="all"|"safe")`` switches to TensorFlow 2.15's new type promotion instead
(`type_promotion`): the operators and the binary math ops promote along its lattice, Python
values are weak, and `result_type` follows the lattice too.
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .tensor import Tensor

__all__ = ["enable", "enabled", "prefer_float32", "promote_operands", "result_type"]


from .numpy_methods import STATE


def enable(prefer_float32: bool = False, promotion: str | None = None) -> None:
    """Turns NumPy behavior on (it stays on for the process), sets ``prefer_float32`` and the
    promotion: None for NumPy's (TensorFlow's "legacy" mode), ``"all"`` or ``"safe"``."""
    if promotion not in (None, "all", "safe"):
        raise ValueError(f"enable: promotion must be None, 'all' or 'safe', got {promotion!r}.")
    STATE.enabled = True
    STATE.prefer_float32 = bool(prefer_float32)
    STATE.promotion = promotion


def enabled() -> bool:
    """Whether `enable` has been called."""
    return STATE.enabled


def prefer_float32() -> bool:
    """Whether Python floats become float32 (else float64, NumPy's default)."""
    return STATE.prefer_float32


def _promotion_operand(x):
    """What ``np.result_type`` gets for one operand: a dtype for tensors and arrays, the
    value itself for Python numbers (NumPy treats those as weak: ``float32 + 1.0`` stays
    float32), float32/complex64 for Python floats under ``prefer_float32``."""
    if isinstance(x, Tensor):
        return x._value.dtype
    if isinstance(x, dtypes.DType):
        return x._np
    if isinstance(x, (np.ndarray, np.generic)):
        return x.dtype
    if isinstance(x, (bool, int, float, complex)):
        if STATE.prefer_float32 and type(x) is float:
            return np.dtype(np.float32)
        if STATE.prefer_float32 and type(x) is complex:
            return np.dtype(np.complex64)
        return x
    if isinstance(x, (list, tuple)):
        from .conversion import infer_numpy

        dt = np.asarray(x).dtype if not _holds_tensor(x) else infer_numpy(x).dtype
        if STATE.prefer_float32 and dt == np.float64:
            return np.dtype(np.float32)
        return dt
    return np.dtype(dtypes.numpy_dtype(x) if not isinstance(x, (type, str)) else x)


def _holds_tensor(x) -> bool:
    if isinstance(x, Tensor):
        return True
    return isinstance(x, (list, tuple)) and any(_holds_tensor(v) for v in x)


def result_type(*arrays_and_dtypes) -> np.dtype:
    """NumPy's ``result_type`` of tensors, arrays, dtypes and Python numbers (follows
    `tf.experimental.numpy.result_type`): Python numbers are weak (they never widen a
    tensor's dtype of their own kind) and follow ``prefer_float32``. Under the new type
    promotion ("all"/"safe" mode), the dtype its lattice gives (`type_promotion.result_type`).

    Raises:
        TypeError: no common dtype (a string and a number); "safe" mode's refusals.
    """
    if STATE.promotion is not None:
        from .type_promotion import result_type as lattice_result_type

        return lattice_result_type(*arrays_and_dtypes)[0]
    items = [_promotion_operand(x) for x in arrays_and_dtypes]
    if not items:
        return np.dtype(np.float32 if STATE.prefer_float32 else np.float64)
    try:
        return np.result_type(*items)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"result_type: no common dtype for {items!r:.120}: {exc}") from None


def promote_operands(x, y):
    """``(x, y)`` as Tensors of their NumPy ``result_type``, or None when that changes
    nothing (the TypeError the op raised is then its own: strings, unsupported values)."""
    from ..ops.elementwise import cast

    try:
        target = result_type(x, y)
    except TypeError:
        return None
    if target.kind in "OSUV":
        return None
    out = []
    changed = False
    for v in (x, y):
        if isinstance(v, Tensor):
            if v._value.dtype != target:
                v = cast(v, target)
                changed = True
        else:
            from .tensor import convert_to_tensor

            try:
                arr = np.asarray(v)
            except (TypeError, ValueError):
                return None
            if arr.dtype.kind in "OSUV":
                return None
            if target.kind in "iu" and arr.dtype.kind in "iu" and arr.size:
                info = np.iinfo(target)
                if arr.min() < info.min or arr.max() > info.max:
                    return None  # out of range: the op's own error, not a wrapped value
            v = convert_to_tensor(arr.astype(target))
            changed = True
        out.append(v)
    return tuple(out) if changed else None
