"""`ek.compat`, as `tf.compat`: the text/bytes helpers, and the ``v1``/``v2`` API names.

``ek.compat.v2`` is `eagerkernel` itself (TensorFlow 2's API). ``ek.compat.v1`` holds
TensorFlow 1.x's names that make sense in eager execution (``train.AdamOptimizer``,
``layers``, ``losses``, ``logging``, ...) and every TensorFlow 2 name; graph-mode names
(``Session``, ``placeholder``, ``disable_eager_execution``) raise NotImplementedError saying
so. Both import as modules: ``import eagerkernel.compat.v1 as tf1``.

>>> ek.compat.as_bytes("héllo"), ek.compat.as_text(b"abc")
(b'h\\xc3\\xa9llo', 'abc')
>>> ek.compat.v2 is ek
True
"""

from __future__ import annotations

import numbers as _numbers
import os as _os
import sys as _sys

import numpy as _np

from ..runtime.core.shape import dimension_at_index, dimension_value
from . import v1

__all__ = [
    "as_bytes",
    "as_str",
    "as_str_any",
    "as_text",
    "bytes_or_text_types",
    "complex_types",
    "dimension_at_index",
    "dimension_value",
    "forward_compatible",
    "integral_types",
    "path_to_str",
    "real_types",
    "v1",
    "v2",
]

v2 = _sys.modules[__name__.rsplit(".", 1)[0]]
_sys.modules.setdefault(f"{__name__}.v2", v2)  # `import eagerkernel.compat.v2 as tf`

bytes_or_text_types = (bytes, str)
integral_types = (_numbers.Integral, _np.integer)
real_types = (_numbers.Real, _np.integer, _np.floating)
complex_types = (_numbers.Complex, _np.number)


def as_bytes(bytes_or_text, encoding="utf-8") -> bytes:
    """``bytes_or_text`` as bytes, encoding text (follows `tf.compat.as_bytes`).

    Raises:
        TypeError: neither bytes nor text.
    """
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text, encoding="utf-8") -> str:
    """``bytes_or_text`` as text, decoding bytes (follows `tf.compat.as_text`).

    Raises:
        TypeError: neither bytes nor text.
    """
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text


def as_str_any(value, encoding="utf-8") -> str:
    """``as_str`` for bytes, ``str(value)`` for anything else (follows `tf.compat.as_str_any`)."""
    return as_str(value, encoding) if isinstance(value, bytes) else str(value)


def path_to_str(path):
    """A path-like object as a string; anything else unchanged (follows
    `tf.compat.path_to_str`)."""
    return _os.fspath(path) if isinstance(path, _os.PathLike) else path


def forward_compatible(year, month, day) -> bool:
    """Whether TensorFlow's forward-compatibility window has passed the date: always True
    here (there is no graph producer to keep compatible with)."""
    return True
