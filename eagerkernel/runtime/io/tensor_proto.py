"""Tensors as TensorFlow's ``TensorProto`` bytes (follows `tf.io.serialize_tensor` and
`tf.io.parse_tensor`).

`serialize_tensor` writes what TensorFlow's ``SerializeTensor`` writes: the dtype, the shape,
and the values as raw little-endian bytes in ``tensor_content`` (strings in ``string_val``).
`parse_tensor` also reads the typed value fields (``float_val``, ``int64_val``, ...) other
writers use, with TensorFlow's rule that a shorter list repeats its last value (an empty one
gives zeros). The messages are `example.py`'s (the `protobuf` package).

>>> t = ek.constant([[1.0, 2.0]])
>>> raw = ek.io.serialize_tensor(t)
>>> raw.numpy()
b'\\x08\\x01\\x12\\x08\\x12\\x02\\x08\\x01\\x12\\x02\\x08\\x02"\\x08\\x00\\x00\\x80?\\x00\\x00\\x00@'
>>> ek.io.parse_tensor(raw, ek.float32).numpy()
array([[1., 2.]], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.dispatch import Primitive, dispatch
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, to_tensor

__all__ = ["parse_tensor", "serialize_tensor"]

_OBJ = np.dtype(object)
# DataType enum numbers (types.proto) by NumPy dtype; strings are object arrays here.
_ENUM = dtypes.DATATYPE_ENUM
_DTYPE_OF = {number: dt for dt, number in _ENUM.items()}
# The typed value field that holds each dtype's values when tensor_content is empty.
_VALUES_FIELD = {
    1: "float_val",
    2: "double_val",
    3: "int_val",
    4: "int_val",
    5: "int_val",
    6: "int_val",
    7: "string_val",
    8: "scomplex_val",
    9: "int64_val",
    10: "bool_val",
    17: "int_val",
    18: "dcomplex_val",
    19: "half_val",
    22: "uint32_val",
    23: "uint64_val",
}


def _tensor_proto():
    from .example import messages

    return messages()["TensorProto"]


def _type_name(number: int) -> str:
    from .example import DATA_TYPES

    name = DATA_TYPES[number] if 0 <= number < len(DATA_TYPES) else f"DataType({number})"
    return name[3:].lower() if name.startswith("DT_") else name


def _serialize_fwd(xp, x):
    arr = np.asarray(x)
    proto = _tensor_proto()(dtype=_ENUM[arr.dtype])
    proto.tensor_shape.SetInParent()  # TensorFlow writes the shape even for a scalar
    for d in arr.shape:
        proto.tensor_shape.dim.add(size=d)
    if arr.dtype == _OBJ:
        proto.string_val.extend(arr.reshape(-1).tolist())
    else:
        proto.tensor_content = np.ascontiguousarray(arr, arr.dtype.newbyteorder("<")).tobytes()
    return np.asarray(proto.SerializeToString(), dtype=_OBJ)


_serialize = Primitive("SerializeTensor", _serialize_fwd)  # bytes out: no gradient


def serialize_tensor(tensor, name=None) -> Tensor:
    """The tensor as a string scalar: its serialized ``TensorProto`` (follows
    `tf.io.serialize_tensor`; the bytes TensorFlow writes for the same tensor).

    Raises:
        TypeError: a dtype TensorProto has no number for here.
        ImportError: `protobuf` is not installed.
    """
    x = to_tensor(tensor, None, "serialize_tensor")
    if type(x) is not Tensor:  # a Variable: its value
        x = x.read_value() if hasattr(x, "read_value") else to_tensor(np.asarray(x))
    if np.asarray(x._value).dtype not in _ENUM:
        raise TypeError(f"serialize_tensor: dtype {x.dtype.name} has no TensorProto DataType.")
    _tensor_proto()  # a missing protobuf fails here, with its message
    return dispatch(_serialize, (x,))


def _parse_fwd(xp, serialized, *, out_type):
    from google.protobuf.message import DecodeError

    raw = np.asarray(serialized, dtype=_OBJ).item()
    try:
        proto = _tensor_proto().FromString(raw)
    except (DecodeError, TypeError):
        raise InvalidArgumentError(
            None, "ParseTensor", "parse_tensor: Could not parse `serialized` as TensorProto."
        ) from None
    want = _ENUM[out_type]
    if proto.dtype != want:
        raise InvalidArgumentError(
            None,
            "ParseTensor",
            f"parse_tensor: Type mismatch between parsed tensor ({_type_name(proto.dtype)}) "
            f"and dtype ({_type_name(want)})",
        )
    if proto.tensor_shape.unknown_rank or any(d.size < 0 for d in proto.tensor_shape.dim):
        raise InvalidArgumentError(
            None, "ParseTensor", "parse_tensor: the TensorProto's shape is not fully defined."
        )
    shape = tuple(d.size for d in proto.tensor_shape.dim)
    n = int(np.prod(shape, dtype=np.int64))
    if proto.tensor_content:
        if out_type == _OBJ:
            raise InvalidArgumentError(
                None, "ParseTensor", "parse_tensor: a string TensorProto has tensor_content."
            )
        flat = np.frombuffer(proto.tensor_content, out_type.newbyteorder("<"))
        if flat.size != n:
            raise InvalidArgumentError(
                None,
                "ParseTensor",
                f"parse_tensor: tensor_content holds {flat.size} values for shape "
                f"{list(shape)} ({n} values).",
            )
        return xp.asarray(flat.astype(out_type).reshape(shape))
    values = list(getattr(proto, _VALUES_FIELD[want]))
    if out_type.kind == "c":  # complex values are stored as (real, imag) pairs
        values = [complex(r, i) for r, i in zip(values[::2], values[1::2])]
    if len(values) > n:
        raise InvalidArgumentError(
            None,
            "ParseTensor",
            f"parse_tensor: {len(values)} values for shape {list(shape)} ({n} values).",
        )
    if out_type == _OBJ:
        flat = np.empty(n, dtype=_OBJ)
        flat[:] = values + [values[-1] if values else b""] * (n - len(values))
        return flat.reshape(shape)
    if out_type == np.float16:  # half_val holds the float16 bit patterns
        flat = np.asarray(values, np.uint16).view(np.float16)
    else:
        flat = np.asarray(values, out_type)
    out = np.zeros(n, out_type)
    if flat.size:
        out[: flat.size] = flat
        out[flat.size :] = flat[-1]  # TensorFlow repeats the last value
    return xp.asarray(out.reshape(shape))


_parse = Primitive("ParseTensor", _parse_fwd)  # strings in: no gradient


def parse_tensor(serialized, out_type, name=None) -> Tensor:
    """The tensor a serialized ``TensorProto`` holds (follows `tf.io.parse_tensor`).

    Args:
        serialized: a string scalar (e.g. from `serialize_tensor`).
        out_type: the dtype the proto must have.

    Raises:
        InvalidArgumentError: not a TensorProto, a dtype other than ``out_type`` ("Type
            mismatch between parsed tensor (float) and dtype (double)"), or values that do not
            fit the shape.
        ValueError: ``serialized`` is not a scalar.
        TypeError: ``serialized`` is not a string, or ``out_type`` has no DataType.
    """
    op = "parse_tensor"
    x = serialized if isinstance(serialized, Tensor) else to_tensor(serialized, _OBJ, op)
    if x.dtype != dtypes.string:
        raise TypeError(f"{op}: serialized must be a string tensor, got dtype {x.dtype.name}.")
    if x.ndim != 0:
        raise ValueError(f"{op}: serialized must be a scalar. Received: shape={list(x.shape)}")
    dt = dtypes.as_dtype(out_type)
    np_dtype = _OBJ if dt == dtypes.string else np.dtype(dtypes.numpy_dtype(dt))
    if np_dtype not in _ENUM:
        raise TypeError(f"{op}: out_type {dt.name} has no TensorProto DataType.")
    _tensor_proto()
    return dispatch(_parse, (x,), {"out_type": np_dtype})
