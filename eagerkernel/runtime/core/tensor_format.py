"""Tensors as `tf.print` shows them: TensorFlow's summarised text of a tensor's values.

Follows the format of TensorFlow's ``PrintV2`` op (what ``tf.print`` writes), which differs from
NumPy's ``str``:

- Elements: float32 (and float16, bfloat16) with 6 significant digits when those read back as
  the same float32, else 9 (``%g``: ``2`` not ``2.``, ``0.333333343``, ``1e-08``); float64
  with 15, else 17; integers in decimal; booleans as ``1`` and ``0``; strings in double quotes
  with C escapes (``"a\\n"``); NaN with its sign (``-nan``). No padding to a common width.
- Dimensions: ``[`` ``]`` around each; items of the innermost dimension separated by a space,
  of outer ones by newlines (one per dimension below) and an indent of one space per level.
- Summaries: with ``summarize = n >= 0``, a dimension longer than ``2 n`` shows its first and
  last ``n`` items around ``...``; ``n < 0`` shows everything. ``n`` is at most the tensor's
  size (so an empty tensor of several dimensions shows ``...`` where its rows would be).
- Scalars: the element alone (``tf.print`` shows a scalar string given to it directly as its
  raw text; `ek.strings.format` quotes it, as this function does).

>>> import numpy as np
>>> format_array(np.arange(20), 3)
'[0 1 2 ... 17 18 19]'
>>> print(format_array(np.array([[1.0, 0.1], [1 / 3, 1e-8]], np.float32), 3))
[[1 0.1]
 [0.333333343 1e-08]]

Complex elements are shown as Python shows a complex number (TensorFlow prints ``?``).

`numpy_str` and `numpy_repr` give the values part of a Tensor's ``str`` and ``repr`` (NumPy's
text of the array, as TensorFlow's eager tensors show theirs).
"""

from __future__ import annotations

import numpy as np

__all__ = ["format_array", "format_element", "numpy_repr", "numpy_str"]

_ESCAPES = {0x0A: b"\\n", 0x0D: b"\\r", 0x09: b"\\t", 0x22: b'\\"', 0x27: b"\\'", 0x5C: b"\\\\"}


def _c_escape(data: bytes) -> str:
    """``data`` with C escapes as TensorFlow prints a string element: quotes, backslashes and
    ASCII control bytes escaped (octal ``\\ooo`` where there is no letter), bytes from 0x80
    kept (UTF-8 text stays readable; an invalid sequence shows as U+FFFD)."""
    out = bytearray()
    for b in data:
        if b in _ESCAPES:
            out += _ESCAPES[b]
        elif b < 0x20 or b == 0x7F:
            out += b"\\%03o" % b
        else:
            out.append(b)
    return out.decode("utf-8", errors="replace")


def _float_text(v: float, short: int, long: int, kind: type) -> str:
    if v != v:
        return "-nan" if np.signbit(v) else "nan"
    text = f"{v:.{short}g}"
    with np.errstate(over="ignore"):
        if kind(text) != kind(v):
            text = f"{v:.{long}g}"
    return text


def format_element(v, dtype: np.dtype) -> str:
    """One element ``v`` of an array of ``dtype`` in `tf.print`'s format (see the module)."""
    if dtype.kind == "f":
        if dtype == np.float64:
            return _float_text(float(v), 15, 17, np.float64)
        return _float_text(float(v), 6, 9, np.float32)
    if dtype.kind == "b":
        return "1" if v else "0"
    if dtype.kind in "iu":
        return str(int(v))
    if dtype.kind == "c":
        return str(complex(v))
    if isinstance(v, str):
        v = v.encode()
    if isinstance(v, bytes):
        return '"' + _c_escape(v) + '"'
    return str(v)


def format_array(a: np.ndarray, summarize: int = 3) -> str:
    """The text of array ``a`` as `tf.print` shows a tensor of those values.

    Args:
        a: a NumPy array of any shape (string tensors as object arrays of ``bytes``).
        summarize: items shown at each end of each dimension; negative for all (TensorFlow's
            ``-1``).

    Returns:
        The text, without a trailing newline.
    """
    a = np.asarray(a)
    n = a.size if summarize < 0 else min(summarize, a.size)
    parts: list[str] = []
    _dim(a, 0, n, parts)
    return "".join(parts)


def _dim(a: np.ndarray, depth: int, n: int, parts: list) -> None:
    """Appends dimension ``depth``'s text (``a`` is the sub-array there), as TensorFlow's
    ``PrintOneDimV2``: the first ``n`` items, ``...`` if more than ``2 n``, the last ``n``."""
    if a.ndim == 0:
        parts.append(format_element(a.item(), a.dtype))
        return
    count = a.shape[0]
    spacing = " " if a.ndim == 1 else "\n" * (a.ndim - 1) + " " * (depth + 1)
    parts.append("[")
    for i in range(min(n, count)):
        if i:
            parts.append(spacing)
        _dim(a[i, ...], depth + 1, n, parts)
    if count > 2 * n:
        parts.append(spacing)
        parts.append("...")
    for i in range(max(n, count - n), count):
        parts.append(spacing)
        _dim(a[i, ...], depth + 1, n, parts)
    parts.append("]")


# -- Tensor and Variable reprs -----------------------------------------------------------------


def numpy_str(a) -> str:
    """The values part of a Tensor's ``str``: NumPy's ``str`` of the array with a space between
    items, a scalar as its shortest repr (``1.0428965``)."""
    if isinstance(a, bytes):  # as is: NumPy's bytes_ scalar would drop trailing NULs
        return str(a)
    if np.ndim(a) == 0:
        return str(np.asarray(a)[()])  # NumPy's shortest repr of the scalar: 1.0428965
    return np.array2string(np.asarray(a), separator=" ")


def numpy_repr(a) -> str:
    """The ``numpy=`` part of a Tensor's or Variable's repr, as TensorFlow writes it: NumPy's
    repr of the array (``array([1., 2.], dtype=float32)``), on a line of its own when it takes
    several; a scalar as its shortest repr (``6.0``).

    >>> numpy_repr(np.float32(6.0)), numpy_repr(np.array([1, 2], np.int32))
    ('6.0', 'array([1, 2], dtype=int32)')
    >>> numpy_repr(np.eye(2, dtype=np.float32))
    '\\narray([[1., 0.],\\n       [0., 1.]], dtype=float32)'
    """
    if isinstance(a, bytes):  # as is: NumPy's bytes_ scalar would drop trailing NULs
        return repr(a)
    if np.ndim(a) == 0:
        return str(np.asarray(a)[()])
    text = repr(np.asarray(a))
    return "\n" + text if "\n" in text else text
