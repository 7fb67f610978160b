"""Python and NumPy strings as the values of `ek.string` tensors: NumPy object arrays of `bytes`.

TensorFlow keeps strings as bytes (``tf.constant("Gray wolf").numpy()`` is ``b'Gray wolf'``);
a Python ``str`` is encoded as UTF-8 on the way in.
"""

from __future__ import annotations

import numpy as np

__all__ = ["is_string_value", "to_bytes", "to_bytes_array"]


def is_string_value(value) -> bool:
    """True for ``str``/``bytes``, NumPy string arrays, and nested lists whose first leaf is one."""
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    if isinstance(value, (str, bytes, np.str_, np.bytes_)):
        return True
    return isinstance(value, np.ndarray) and value.dtype.kind in "USOT" and _first_is_string(value)


def _first_is_string(arr: np.ndarray) -> bool:
    if arr.dtype.kind != "O":
        return True
    return arr.size > 0 and isinstance(arr.flat[0], (str, bytes))


def to_bytes(v, op: str = "convert_to_tensor") -> bytes:
    """One string element as bytes (``str`` is encoded as UTF-8)."""
    if isinstance(v, bytes):
        return bytes(v)
    if isinstance(v, str):
        return v.encode("utf-8")
    raise ValueError(
        f"{op}: can't convert a Python sequence with mixed types to a Tensor: got "
        f"{type(v).__name__} {v!r:.40} among strings."
    )


def to_bytes_array(value, op: str = "convert_to_tensor") -> np.ndarray:
    """A (nested list of) str/bytes, or a NumPy string array, as an object array of bytes.

    Raises:
        ValueError: a non-string element among strings (TensorFlow's error), or nested lists
            of different lengths (not a rectangular tensor).
    """
    if isinstance(value, np.ndarray) and value.dtype.kind in "SUT":
        arr = value.astype(object)
    elif isinstance(value, np.ndarray):
        arr = value
    else:
        arr = np.empty(_nested_shape(value, op), dtype=object)
        _fill(arr, value, ())
    out = np.empty(arr.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(arr.reshape(-1)):
        flat[i] = to_bytes(v, op)
    return out


def _nested_shape(value, op) -> tuple:
    shape = []
    while isinstance(value, (list, tuple)):
        shape.append(len(value))
        if not value:
            break
        value = value[0]
    return tuple(shape)


def _fill(arr, value, index):
    if len(index) == arr.ndim:
        if isinstance(value, (list, tuple)):
            raise ValueError(
                "convert_to_tensor: nested lists of different depths or lengths cannot form a "
                "string Tensor (use ek.ragged.constant)."
            )
        arr[index] = value
        return
    if not isinstance(value, (list, tuple)) or len(value) != arr.shape[len(index)]:
        raise ValueError(
            "convert_to_tensor: nested lists of different depths or lengths cannot form a "
            "string Tensor (use ek.ragged.constant)."
        )
    for i, v in enumerate(value):
        _fill(arr, v, (*index, i))
