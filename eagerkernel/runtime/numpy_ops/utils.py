"""Argument conversion for `ek.experimental.numpy`: NumPy's dtype inference for Python
values (int64, float64 unless ``prefer_float32``), NumPy's promotion of mixed operands, and
the errors for NumPy arguments that have no TensorFlow counterpart."""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.numpy_behavior import prefer_float32, result_type
from ..core.numpy_methods import STATE
from ..core.tensor import Tensor, constant
from ..ops.array_ops import stack
from ..ops.elementwise import cast

__all__ = [
    "as_np_dtype",
    "asarray_value",
    "default_float",
    "float_operand",
    "no_argument",
    "promote",
    "result_type",
]


def as_np_dtype(dtype, op: str) -> np.dtype | None:
    """A NumPy dtype for ``dtype`` (a NumPy type or dtype, an `ek.DType`, a name, Python's
    ``float``/``int``/``bool`` with NumPy's meaning); None stays None.

    Raises:
        TypeError: ``dtype`` names no dtype eagerkernel has.
    """
    if dtype is None:
        return None
    if isinstance(dtype, dtypes.DType):
        return dtype._np
    try:
        out = np.dtype(dtype)
    except TypeError:
        raise TypeError(
            f"{op}: dtype must be a NumPy or eagerkernel dtype, got {dtype!r}."
        ) from None
    if out.kind in "OSUVMm" and out.kind != "O":
        raise TypeError(f"{op}: dtype {out.name} is not supported.")
    return out


def default_float() -> np.dtype:
    """float64, or float32 under ``prefer_float32`` (TensorFlow's `default_float_type`)."""
    return np.dtype(np.float32 if prefer_float32() else np.float64)


def _holds_tensor(value) -> bool:
    if isinstance(value, Tensor):
        return True
    return isinstance(value, (list, tuple)) and any(_holds_tensor(v) for v in value)


def asarray_value(value, dtype=None, op: str = "asarray") -> Tensor:
    """``value`` as a Tensor with NumPy's inference (follows `tnp.asarray`).

    Tensors (and Variables) pass through, cast (differentiably) when ``dtype`` differs; lists
    of tensors are stacked (differentiably); NumPy values keep their dtype; Python ints give
    int64 and floats float64 (float32 under ``prefer_float32``; int32 and float32 under the new
    type promotion, NumPy behavior's "all"/"safe" mode).
    """
    np_dtype = as_np_dtype(dtype, op)
    if isinstance(value, Tensor):
        if np_dtype is None or value._value.dtype == np_dtype:
            return value
        return cast(value, np_dtype)
    if isinstance(value, (list, tuple)) and _holds_tensor(value):
        parts = [asarray_value(v, op=op) for v in value]
        target = np_dtype if np_dtype is not None else result_type(*parts)
        return stack([p if p._value.dtype == target else cast(p, target) for p in parts])
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
    else:
        if np_dtype is None and STATE.promotion is not None:  # the new promotion: 32-bit
            np_dtype = result_type(value)
        try:
            arr = np.asarray(value)
        except ValueError:
            raise ValueError(
                f"{op}: cannot convert a non-rectangular sequence to an array: {value!r:.80}"
            ) from None
        if arr.dtype.kind in "SU":
            return constant(value)
        if arr.dtype.kind == "O":
            raise TypeError(f"{op}: cannot convert {type(value).__name__} {value!r:.60}.")
        if np_dtype is None and prefer_float32():
            if arr.dtype == np.float64:
                arr = arr.astype(np.float32)
            elif arr.dtype == np.complex128:
                arr = arr.astype(np.complex64)
    if np_dtype is not None and arr.dtype != np_dtype:
        if np_dtype.kind in "iu" and arr.dtype.kind in "iu" and arr.size:
            _check_range(value, arr, np_dtype, op)
        arr = arr.astype(np_dtype)
    return constant(arr)


def _check_range(value, arr: np.ndarray, np_dtype: np.dtype, op: str) -> None:
    """Integers that do not fit ``np_dtype`` raise, as NumPy 2 does, instead of wrapping."""
    info = np.iinfo(np_dtype)
    if arr.min() < info.min or arr.max() > info.max:
        raise OverflowError(
            f"{op}: Python integer {value!r:.60} out of bounds for {np_dtype.name}."
        )


def promote(*values, op: str) -> list:
    """``values`` as Tensors of one dtype, NumPy's ``result_type`` of them (follows TF NumPy's
    `_promote_dtype`): a float32 tensor and a Python float stay float32, int32 and int64
    give int64, int64 and float32 give float64."""
    target = result_type(*values)
    out = []
    for v in values:
        if isinstance(v, Tensor) or _holds_tensor(v):
            t = asarray_value(v, op=op)
            out.append(t if t._value.dtype == target else cast(t, target))
        else:
            out.append(asarray_value(v, target, op))
    return out


def float_operand(x, op: str) -> Tensor:
    """``x`` as a Tensor of an inexact dtype: integers and bools become the default float
    (float64; float32 under ``prefer_float32``), as NumPy's float functions do."""
    t = asarray_value(x, op=op)
    if t._value.dtype.kind not in "fc":
        t = cast(t, default_float())
    return t


def no_argument(op: str, **arguments) -> None:
    """Raises NotImplementedError for a NumPy argument given a value TF NumPy does not
    support (``out``, ``where`` ...), naming it: such an argument is never ignored."""
    for name, value in arguments.items():
        if value is not None:
            raise NotImplementedError(
                f"{op}: the argument `{name}` is not supported by ek.experimental.numpy "
                f"(tensors are immutable), got {name}={value!r:.60}."
            )


def normalize_axis(axis, ndim: int, op: str):
    """``axis`` (None, an int or a sequence of ints, negatives from the end) as None or a
    tuple of non-negative ints.

    Raises:
        InvalidArgumentError (a ValueError, as TensorFlow's kernels raise): an axis out of
            range. ValueError: a repeated axis.
    """
    if axis is None:
        return None
    axes = tuple(int(a) for a in axis) if isinstance(axis, (list, tuple)) else (int(axis),)
    out = []
    for a in axes:
        if not -ndim <= a < max(ndim, 1):
            raise InvalidArgumentError(
                None, op, f"{op}: axis {a} is out of bounds for an array of rank {ndim}."
            )
        out.append(a % max(ndim, 1))
    if len(set(out)) != len(out):
        raise ValueError(f"{op}: repeated axis in {axis!r}.")
    return tuple(out)


def const(value, dtype) -> Tensor:
    """A constant of ``dtype`` made straight from the Python number (no float32 detour)."""
    return constant(value, dtype=dtype)
