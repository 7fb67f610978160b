"""Python values to NumPy arrays with TensorFlow's rules: dtype inference (a Python float is
float32, a Python int int32 when it fits), casts of Python numbers and lists that refuse to lose
information, strings as `ek.string` bytes, and TensorFlow's errors for what cannot become a
tensor (`ConversionError`, a ragged nested list), and the conversion functions users register
for their own types (`register_tensor_conversion_function`). `tensor.to_tensor` and
`convert_to_tensor` build on these.
"""

from __future__ import annotations

import warnings

import numpy as np

from . import dtypes
from .string_values import is_string_value, to_bytes_array

__all__ = [
    "ConversionError",
    "cast_python",
    "empty_list",
    "infer_numpy",
    "is_np_strings",
    "np_value",
    "python_array",
    "register_tensor_conversion_function",
    "registered_conversion",
    "unsupported_type",
]

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
# The smallest magnitude that float32 rounds to infinity: halfway from its largest float to 2**128.
_FLOAT32_OVERFLOW = 2.0**128 - 2.0**103


def python_array(value, op: str) -> np.ndarray:
    """``np.asarray`` of a Python value, with TensorFlow's errors for what is not a tensor:
    a set or dict (`ConversionError`) and a ragged nested list (ValueError)."""
    if isinstance(value, (set, frozenset, dict)):
        raise unsupported_type(value, op)
    try:
        return np.asarray(value)
    except ValueError:
        raise ValueError(
            f"{op}: Can't convert non-rectangular Python sequence to Tensor: {value!r:.80}. "
            "For rows of different lengths use ek.ragged.constant."
        ) from None


def infer_numpy(value, op: str = "convert_to_tensor") -> np.ndarray:
    """Python values to a NumPy array with TensorFlow's dtype inference."""
    if isinstance(value, (str, bytes)) or (
        isinstance(value, (list, tuple, np.ndarray)) and is_string_value(value)
    ):
        return to_bytes_array(value)  # `ek.string`: an object array of bytes
    arr = python_array(value, op)
    kind = arr.dtype.kind
    if kind == "f" and arr.dtype != np.float32 and not isinstance(value, np.ndarray):
        # Python floats (and lists of them) are float32 in TensorFlow, which refuses one that
        # float32 cannot hold (an infinity is kept).
        first = _first_leaf(value)
        if isinstance(first, (np.floating, np.ndarray)) and first.dtype.kind == "f":
            arr = arr.astype(first.dtype)  # TensorFlow: the first NumPy float sets the dtype
        elif not isinstance(value, np.generic):
            if _beyond_float32(value, arr):
                raise ValueError(
                    f"{op}: {value!r:.60} holds a value out of range for float32, the dtype of "
                    "Python floats (TensorFlow raises ValueError too); pass dtype=ek.float64."
                )
            arr = arr.astype(np.float32)
    elif kind == "i" and not isinstance(value, (np.ndarray, np.generic)):
        if arr.size == 0 or (arr.min() >= _INT32_MIN and arr.max() <= _INT32_MAX):
            arr = arr.astype(np.int32)
    elif kind == "u" and not isinstance(value, (np.ndarray, np.generic)):
        # Unsigned arrays inside a list (``[uint8_image]``) are numbers like any other, as
        # TensorFlow reads them: int32 when they fit, else int64. NumPy's uint64 of a Python
        # int in [2**63, 2**64) fits neither.
        top = int(arr.max()) if arr.size else 0
        if top > np.iinfo(np.int64).max:
            raise _int_out_of_range(value, op)
        arr = arr.astype(np.int32 if top <= _INT32_MAX else np.int64)
    elif kind == "O":
        arr = _from_nested(value, op)
    elif kind in "USV":  # strings among numbers: all-string values were handled above
        raise ConversionError(
            f"{op}: Can't convert Python sequence with mixed types to Tensor: {value!r:.80}."
        )
    return arr


class ConversionError(TypeError, ValueError):
    """A Python value that cannot become a Tensor: one of an unsupported type (an object, a
    set, a dict), a sequence mixing types, or a Python int past int64. TensorFlow raises
    ValueError for these (`tf.constant(object())`: "Attempt to convert a value ... with an
    unsupported type"); this class is also a TypeError, which the runtime's own conversions
    catch (a binary operator then returns NotImplemented) and which eagerkernel raised
    before. ``constant(value, shape=...)`` with a size the shape cannot take raises it too
    (TensorFlow's TypeError; a ValueError in eagerkernel before).

    >>> issubclass(ConversionError, ValueError), issubclass(ConversionError, TypeError)
    (True, True)
    """


def unsupported_type(value, op: str) -> ConversionError:
    """TensorFlow's error for a value of a type that cannot become a Tensor, naming ``op``."""
    hint = ""
    if isinstance(value, (set, frozenset, dict)):
        hint = f" (a {type(value).__name__} has no order; use a list)"
    return ConversionError(
        f"{op}: Attempt to convert a value ({value!r:.80}) with an unsupported type "
        f"({type(value)}) to a Tensor{hint}."
    )


def _from_nested(value, op: str = "convert_to_tensor"):
    """Lists that hold tensors, e.g. ``[t1, t2]`` -> their stacked values."""
    if not isinstance(value, (list, tuple)):
        raise _int_out_of_range(value, op) if type(value) is int else unsupported_type(value, op)
    try:
        return np.asarray(
            [_from_nested(v, op) if isinstance(v, (list, tuple)) else _leaf(v, op) for v in value]
        )
    except ConversionError:
        raise
    except ValueError:  # NumPy: an inhomogeneous shape
        raise ValueError(
            f"{op}: Can't convert non-rectangular Python sequence to Tensor: {value!r:.80}. "
            "For rows of different lengths use ek.ragged.constant."
        ) from None
    except TypeError:
        raise ConversionError(
            f"{op}: Can't convert Python sequence with mixed types to Tensor: {value!r:.80}."
        ) from None


def _first_leaf(value):
    """The first element of a nested list or tuple (``value`` itself when it is neither).

    TensorFlow infers a list's dtype from it: ``[np.float64(1.5), 2.0]`` is float64 while
    ``[1.5, np.float64(2.0)]`` is float32, Python floats being float32.
    """
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    return value


def _beyond_float32(value, arr: np.ndarray) -> bool:
    """Whether the Python float(s) ``value`` (``arr``, as float64) hold a finite value that
    float32 cannot hold (it would round to infinity)."""
    if type(value) is float:
        return abs(value) >= _FLOAT32_OVERFLOW and value - value == 0.0  # finite
    # One pass for the common case: a sum of squares below the bound's square cannot hold a
    # large value (an infinity or NaN makes it fail too, and takes the exact check).
    if float(np.vdot(arr, arr)) < _FLOAT32_OVERFLOW * _FLOAT32_OVERFLOW:
        return False
    big = np.abs(arr) >= _FLOAT32_OVERFLOW
    return bool(big.any()) and bool(np.isfinite(arr[big]).any())


def _int_out_of_range(value, op: str) -> ConversionError:
    """TensorFlow's error (a ValueError) for a Python int beyond int64 where the dtype is
    inferred."""
    return ConversionError(
        f"{op}: Can't convert Python sequence with out-of-range integer to Tensor: "
        f"{value!r:.60} (the inferred dtype is int64 at most)."
    )


def _leaf(v, op: str) -> np.ndarray:
    """One element of a nested list as an array: a number, a NumPy value or a tensor's
    (``__array__``); any other object raises `unsupported_type`."""
    a = np.asarray(v)
    if a.dtype.kind == "O" and a.ndim == 0 and not isinstance(v, np.ndarray):
        if type(v) is int:  # past 64 bits
            raise _int_out_of_range(v, op)
        raise unsupported_type(v, op)
    return a


def is_np_strings(value) -> bool:
    """NumPy strings (any string dtype, or an object array holding str/bytes)."""
    kind = value.dtype.kind
    return kind in "USVT" or (kind == "O" and is_string_value(np.asarray(value)))


def np_value(value, op: str):
    """A NumPy array of strings as `ek.string`'s bytes; any other array unchanged."""
    return to_bytes_array(np.asarray(value), op) if is_np_strings(value) else value


def empty_list(value) -> bool:
    while isinstance(value, (list, tuple)):
        if not value:
            return True
        value = value[0]
    return False


def cast_python(value, np_dtype, op: str) -> np.ndarray:
    """Converts a Python number or list to ``np_dtype``, refusing to lose information.

    The value goes straight to the target dtype (``0.1`` into float64 is the float64 0.1,
    not a float32 rounding of it).
    """
    target = np.dtype(np_dtype)
    if target.kind == "O" or isinstance(value, (str, bytes)) or is_string_value(value):
        if target.kind == "O" and (is_string_value(value) or empty_list(value)):
            return to_bytes_array(value, op)
        raise TypeError(
            f"{op}: cannot convert {value!r:.60} to a Tensor of dtype "
            f"{dtypes.from_numpy(target).name}."
        )
    if type(value) is int and target.kind in "fc" and not _INT64_MIN <= value <= _INT64_MAX:
        # An int past 64 bits (NumPy would make an object array): rounded to the float dtype,
        # as TensorFlow converts ``x * 2**70`` for a float ``x``.
        return np.asarray(value, dtype=target)
    arr = python_array(value, op)
    if arr.dtype.kind == "O":
        arr = _from_nested(value, op)
    elif arr.dtype.kind in "USV":
        arr = infer_numpy(value, op)  # raises the ConversionError for strings among numbers
    if arr.dtype == target:
        return arr
    if arr.dtype.kind == "f" and target.kind in "iub" and arr.size:
        raise TypeError(
            f"{op}: cannot convert {value!r:.60} to a Tensor of dtype {target.name} "
            "(it would lose the fractional part)."
        )
    if target.kind == "b" and arr.dtype.kind != "b" and arr.size:  # TF: numbers are no bools
        raise TypeError(f"{op}: cannot convert {value!r:.60} to a Tensor of dtype bool.")
    if arr.dtype.kind == "c" and target.kind != "c":
        raise TypeError(f"{op}: cannot convert complex {value!r:.60} to dtype {target.name}.")
    if arr.dtype.kind in "iu" and target.kind in "iu" and arr.size:
        info = np.iinfo(target)
        if arr.min() < info.min or arr.max() > info.max:
            raise TypeError(f"{op}: {value!r:.60} is out of range for dtype {target.name}.")
    return arr.astype(target)


# Conversion functions registered for user types: (priority, order of registration, types,
# function), lowest priority first, as TensorFlow's tensor_conversion_registry keeps them.
CONVERSIONS: list = []
# NumPy values an operator may meet beside a tensor (`cast_operand`).
NUMPY_OPERANDS = frozenset({np.ndarray, *np.sctypeDict.values()})


def cast_operand(value, dtype):
    """``value`` (a NumPy array or scalar) as TensorFlow converts the operand beside a tensor
    of ``dtype``: a numeric one is cast to it, as ``make_tensor_proto`` casts an ndarray to a
    requested dtype (truncating, wrapping, dropping an imaginary part, silently), so
    ``tf.constant([1.5]) + np.array([2.0])`` is float32 and ``tf.constant([7]) //
    np.array([2.5])`` is ``7 // 2``. Non-numeric values are unchanged. (Under NumPy behavior
    the operators promote such an operand instead: `numpy_methods.operator_operands`.)

    >>> cast_operand(np.array([2.5, -1.0]), np.dtype(np.uint8))
    array([  2, 255], dtype=uint8)
    """
    if value.dtype == dtype or value.dtype.kind not in "biufc":
        return value
    if np.dtype(dtype).kind not in "biufc":
        return value
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        return np.asarray(value).astype(dtype)


_UNCONVERTIBLE = (int, float, complex, np.generic, np.ndarray)


def register_tensor_conversion_function(base_type, conversion_func, priority=100) -> None:
    """Makes ``conversion_func`` convert instances of ``base_type`` (a type or a tuple of
    types) wherever a tensor is expected: op arguments, operators, `convert_to_tensor`
    (follows `tf.register_tensor_conversion_function`).

    ``conversion_func(value, dtype=None, name=None, as_ref=False)`` returns a Tensor, or
    NotImplemented to let the next function (by ``priority``, lowest first; then
    registration order) try. ``dtype`` is the dtype wanted (an operator's other operand's),
    or None; a function that cannot give it may raise TypeError or ValueError, and is then
    asked again with ``dtype=None``.

    Raises:
        TypeError: ``base_type`` is not a type or a tuple of types, is a Python number or a
            NumPy type (TensorFlow's message), or ``conversion_func`` is not callable.

    >>> class Meters:
    ...     def __init__(self, value):
    ...         self.value = value
    >>> ek.register_tensor_conversion_function(
    ...     Meters, lambda v, dtype=None, name=None, as_ref=False: ek.constant(v.value, dtype))
    >>> ek.constant(1.0) + Meters(2.0)
    <Tensor: shape=(), dtype=float32, numpy=3.0>
    """
    types = base_type if isinstance(base_type, tuple) else (base_type,)
    if not types or not all(isinstance(t, type) for t in types):
        raise TypeError(
            f"register_tensor_conversion_function: base_type must be a type or a tuple of "
            f"types, got {base_type!r}."
        )
    if any(issubclass(t, _UNCONVERTIBLE) for t in types):
        raise TypeError(
            "Cannot register conversions for Python numeric types and NumPy scalars and arrays."
        )
    if not callable(conversion_func):
        raise TypeError("conversion_func must be callable.")
    CONVERSIONS.append((priority, len(CONVERSIONS), types, conversion_func))
    CONVERSIONS.sort(key=lambda entry: (entry[0], entry[1]))


def registered_conversion(value, dtype_hint, op: str, tensor_type):
    """The Tensor a registered conversion function makes of ``value``, or None when no
    function is registered for its type (or all return NotImplemented)."""
    from .dtypes import as_dtype

    wanted = None if dtype_hint is None else as_dtype(dtype_hint)
    for _, _, types, func in CONVERSIONS:
        if not isinstance(value, types):
            continue
        try:
            result = func(value, dtype=wanted, name=None, as_ref=False)
        except (TypeError, ValueError):
            if wanted is None:
                raise
            result = func(value, dtype=None, name=None, as_ref=False)
        if result is NotImplemented:
            continue
        if not isinstance(result, tensor_type):
            raise RuntimeError(
                f"{op}: the conversion function {func!r} registered for {type(value)} returned "
                f"{type(result).__name__}, not a Tensor."
            )
        return result
    return None
