"""Data types, following TensorFlow's `tf.dtypes` names and conversion rules.

A `DType` wraps a NumPy dtype. Tensors store plain NumPy (or CuPy) arrays, so a DType is only
built when a user asks for `.dtype`; the hot path compares NumPy dtypes directly.

The rules that differ from NumPy's are TensorFlow's:

* a Python ``float`` becomes ``float32`` and a Python ``int`` becomes ``int32``
  (NumPy would pick ``float64`` and ``int64``);
* NumPy arrays keep their dtype when converted alone; beside a tensor in a binary op they are
  cast to the tensor's dtype, as TensorFlow converts them (under NumPy behavior the operators
  promote them with the tensor instead, as TensorFlow's do);
* true division of ``int32``/``int64`` gives ``float64``, of ``int8``/``int16``/``uint8``
  gives ``float32`` (TensorFlow's ``truediv`` table);
* no implicit promotion between two tensors of different dtypes: ``add(int32, float32)``
  raises TypeError.

>>> float32
ek.float32
>>> as_dtype("int64").is_integer
True
>>> float32 == np.float32
True
"""

from __future__ import annotations

import builtins

import numpy as np

__all__ = [
    "DATATYPE_ENUM",
    "DType",
    "as_dtype",
    "bool",
    "complex64",
    "complex128",
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "string",
    "uint8",
]


class DType:
    """A tensor element type (follows `tf.dtypes.DType`).

    Compares equal to another DType with the same NumPy dtype, to that NumPy dtype, to the
    NumPy scalar type (``np.float32``) and to its name (``"float32"``).

    Attributes:
        name: TensorFlow's name, e.g. ``"float32"``.
        as_numpy_dtype: the NumPy scalar type, e.g. ``np.float32``.
    """

    __slots__ = ("_np", "name")

    def __init__(self, np_dtype: np.dtype):
        self._np = np.dtype(np_dtype)
        self.name = "bool" if self._np == np.bool_ else self._np.name
        if self._np.kind == "O":
            self.name = "string"  # TensorFlow's strings: NumPy object arrays holding bytes

    @property
    def as_numpy_dtype(self) -> type:
        return self._np.type

    @property
    def is_floating(self) -> builtins.bool:
        return self._np.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self._np.kind in "iu"

    @property
    def is_complex(self) -> bool:
        return self._np.kind == "c"

    @property
    def is_bool(self) -> bool:
        return self._np.kind == "b"

    @property
    def real_dtype(self) -> DType:
        """The dtype of the real part: float32 for complex64, float64 for complex128, the
        dtype itself otherwise (follows `tf.dtypes.DType.real_dtype`).

        >>> complex64.real_dtype, int32.real_dtype
        (ek.float32, ek.int32)
        """
        if self._np.kind != "c":
            return self
        return from_numpy(np.float32 if self._np == np.complex64 else np.float64)

    @property
    def base_dtype(self) -> DType:
        """The dtype itself (TensorFlow's reference dtypes, which this points past, are gone
        in eager code)."""
        return self

    @property
    def is_unsigned(self) -> bool:
        return self._np.kind == "u"

    @property
    def as_datatype_enum(self) -> int:
        """TensorFlow's ``DataType`` enum number (``types.proto``: float32 is 1, int32 3,
        string 7, int64 9, bool 10); `as_dtype` maps it back.

        >>> int32.as_datatype_enum, as_dtype(int32.as_datatype_enum)
        (3, ek.int32)
        """
        return DATATYPE_ENUM[self._np]

    @property
    def size(self) -> int:
        """Bytes per element."""
        return self._np.itemsize

    @property
    def min(self):
        return np.finfo(self._np).min if self.is_floating else np.iinfo(self._np).min

    @property
    def max(self):
        return np.finfo(self._np).max if self.is_floating else np.iinfo(self._np).max

    def __eq__(self, other) -> bool:
        if isinstance(other, DType):
            return self._np == other._np
        if isinstance(other, str) and other == self.name:  # "string": NumPy's would be bytes
            return True
        try:
            return self._np == np.dtype(other)
        except TypeError:
            return False

    def __ne__(self, other) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self._np)

    def __repr__(self) -> str:
        return f"ek.{self.name}"

    def __str__(self) -> str:
        """TensorFlow's ``str`` of a dtype.

        >>> str(float32), repr(float32)
        ("<dtype: 'float32'>", 'ek.float32')
        """
        return f"<dtype: '{self.name}'>"

    def __reduce__(self):
        return as_dtype, (self.name,)


_BY_NUMPY: dict[np.dtype, DType] = {}


def _register(np_dtype) -> DType:
    dt = DType(np_dtype)
    _BY_NUMPY[dt._np] = dt
    return dt


float16 = half = _register(np.float16)
float32 = _register(np.float32)
float64 = double = _register(np.float64)
int8 = _register(np.int8)
int16 = _register(np.int16)
int32 = _register(np.int32)
int64 = _register(np.int64)
uint8 = _register(np.uint8)
uint16 = _register(np.uint16)
uint32 = _register(np.uint32)
uint64 = _register(np.uint64)
bool = _register(np.bool_)
complex64 = _register(np.complex64)
complex128 = _register(np.complex128)
# `tf.string`: a tensor of byte strings, stored (as TensorFlow's `numpy()` gives it) as a NumPy
# object array holding `bytes`. Not differentiable: tapes never track it.
string = _register(np.object_)


#: TensorFlow's DataType enum number (tensorflow/core/framework/types.proto) of each dtype above,
#: by NumPy dtype (`string`: NumPy's object dtype). TensorProto, GraphDef and `as_dtype` read it.
DATATYPE_ENUM: dict[np.dtype, int] = {
    np.dtype(np.float32): 1,
    np.dtype(np.float64): 2,
    np.dtype(np.int32): 3,
    np.dtype(np.uint8): 4,
    np.dtype(np.int16): 5,
    np.dtype(np.int8): 6,
    np.dtype(np.object_): 7,
    np.dtype(np.complex64): 8,
    np.dtype(np.int64): 9,
    np.dtype(np.bool_): 10,
    np.dtype(np.uint16): 17,
    np.dtype(np.complex128): 18,
    np.dtype(np.float16): 19,
    np.dtype(np.uint32): 22,
    np.dtype(np.uint64): 23,
}
_BY_ENUM = {number: _BY_NUMPY[np_dtype] for np_dtype, number in DATATYPE_ENUM.items()}


def from_numpy(np_dtype: np.dtype) -> DType:
    """The DType for a NumPy dtype (fast path used by `Tensor.dtype`)."""
    dt = _BY_NUMPY.get(np_dtype)
    if dt is None:
        dt = _BY_NUMPY.get(np.dtype(np_dtype))
        if dt is None:
            raise TypeError(f"eagerkernel has no dtype for NumPy dtype {np_dtype!r}.")
    return dt


def as_dtype(type_value) -> DType:
    """Converts a DType, NumPy dtype, NumPy type or name to a `DType` (follows `tf.as_dtype`).

    Args:
        type_value: e.g. ``ek.float32``, ``np.float32``, ``np.dtype("f4")``, ``"float32"``
            or TensorFlow's ``DataType`` enum number (``1`` is float32, see
            `DType.as_datatype_enum`). A Python ``float`` means float32 and ``int`` means
            int32, as in TensorFlow; so does the name ``"float"`` (``"double"`` is float64,
            ``"half"`` float16). Names are TensorFlow's: NumPy's (``"f4"``, ``"int"``) raise.

    Raises:
        TypeError: if the value names no supported dtype (an enum number of a dtype
            eagerkernel lacks, such as 14, bfloat16, included).

    >>> as_dtype(float)
    ek.float32
    >>> as_dtype(1), as_dtype(9)
    (ek.float32, ek.int64)
    >>> as_dtype("uint8").size
    1
    """
    if isinstance(type_value, DType):
        return type_value
    if type_value is float:
        return float32
    if type_value is int:
        return int32
    if type_value is builtins.bool:
        return bool
    if type_value in (str, bytes):
        return string
    if isinstance(type_value, str):
        return _by_name(type_value)
    if isinstance(type_value, (int, np.integer)) and not isinstance(type_value, builtins.bool):
        dt = _BY_ENUM.get(int(type_value))
        if dt is None:
            raise TypeError(
                f"as_dtype: {type_value!r} is not the DataType enum number of a dtype "
                f"eagerkernel supports ({sorted(_BY_ENUM)})."
            )
        return dt
    try:
        np_dtype = np.dtype(type_value)
    except TypeError:
        raise TypeError(f"as_dtype: cannot convert {type_value!r} to a dtype.") from None
    dt = _BY_NUMPY.get(np_dtype)
    if dt is None and np_dtype.kind in "USOT":  # NumPy's string dtypes are all `string`
        dt = string
    if dt is None:
        raise TypeError(f"as_dtype: dtype {np_dtype} is not supported by eagerkernel.")
    return dt


# TensorFlow's dtype names (`tf.dtypes.as_dtype` of a string): each DType's name, plus "half",
# "float" (float32, not NumPy's float64) and "double". NumPy spellings ("f4", "int") are not
# names to TensorFlow; these are TensorFlow dtypes eagerkernel does not have (NumPy lacks them).
_ALIASES = {"half": "float16", "float": "float32", "double": "float64"}
_UNSUPPORTED = frozenset(
    {"bfloat16", "qint8", "quint8", "qint16", "quint16", "qint32", "resource", "variant"}
    | {"int4", "uint4", "float8_e5m2", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2fnuz"}
)


_BY_NAME = {d.name: d for d in _BY_NUMPY.values()}
_BY_NAME.update({alias: _BY_NAME[name] for alias, name in _ALIASES.items()})


def _by_name(name: str) -> DType:
    dt = _BY_NAME.get(name)
    if dt is not None:
        return dt
    if name in _UNSUPPORTED:
        raise TypeError(f"as_dtype: TensorFlow's dtype {name!r} is not supported by eagerkernel.")
    raise TypeError(
        f"Cannot convert the argument `type_value`: {name!r} to a TensorFlow DType (names: "
        f"{', '.join(sorted(d.name for d in _BY_NUMPY.values()))}, half, float, double)."
    )


def numpy_dtype(dtype) -> np.dtype:
    """The NumPy dtype for anything `as_dtype` accepts, or None for None."""
    if dtype is None:
        return None
    if isinstance(dtype, DType):
        return dtype._np
    return as_dtype(dtype)._np


def is_float(np_dtype: np.dtype) -> builtins.bool:
    """True for floating and complex NumPy dtypes: the ones that carry gradients."""
    return np_dtype.kind in "fc"


# TensorFlow's truediv: which float type an integer division gives.
TRUEDIV_RESULT = {
    np.dtype(np.int8): np.dtype(np.float32),
    np.dtype(np.int16): np.dtype(np.float32),
    np.dtype(np.uint8): np.dtype(np.float32),
    np.dtype(np.uint16): np.dtype(np.float32),
    np.dtype(np.int32): np.dtype(np.float64),
    np.dtype(np.int64): np.dtype(np.float64),
    np.dtype(np.uint32): np.dtype(np.float64),
    np.dtype(np.uint64): np.dtype(np.float64),
}
