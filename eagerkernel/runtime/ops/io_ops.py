"""`ek.io` basics (follows `tf.io`): raw bytes of string tensors as numbers, whole files as
string scalars."""

from __future__ import annotations

import base64
import os
import re

import numpy as np

from ..core import dtypes
from ..core.dispatch import Primitive, dispatch
from ..core.errors import InvalidArgumentError, NotFoundError
from ..core.tensor import Tensor, to_tensor
from .strings import OBJECT, map_strings, string_prim, string_tensor

__all__ = ["decode_base64", "decode_raw", "encode_base64", "read_file", "write_file"]


def _decode_raw_fwd(xp, x, dtype, fixed_length):
    flat = list(np.asarray(x).reshape(-1))
    if fixed_length is not None:
        flat = [v[:fixed_length].ljust(fixed_length, b"\0") for v in flat]
    sizes = {len(v) for v in flat}
    if len(sizes) > 1:
        raise InvalidArgumentError(
            None,
            "DecodeRaw",
            f"decode_raw: DecodeRaw requires input strings to all be the same size, got "
            f"lengths {sorted(sizes)}.",
        )
    size = sizes.pop() if sizes else 0
    if size % dtype.itemsize:
        raise InvalidArgumentError(
            None,
            "DecodeRaw",
            f"decode_raw: input to DecodeRaw has length {size} that is not a multiple of "
            f"{dtype.itemsize}, the size of {dtype.name}.",
        )
    n = size // dtype.itemsize
    out = np.frombuffer(b"".join(flat), dtype=dtype).astype(dtype.newbyteorder("="))
    return xp.asarray(out.reshape(*np.shape(x), n))


_decode_raw = Primitive("DecodeRaw", _decode_raw_fwd)  # string input: nothing to differentiate


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """Reinterprets the bytes of each string as numbers (follows `tf.io.decode_raw`).

    Args:
        input_bytes: a string tensor; every element must have the same length (or use
            ``fixed_length``).
        out_type: the number dtype, e.g. ``ek.uint8``, ``ek.int32``, ``ek.float32``.
        little_endian: byte order of multi-byte numbers.
        fixed_length: pad (with zero bytes) or truncate each string to this many bytes first.

    Returns:
        ``input_bytes.shape + [length // out_type.size]``, of ``out_type``.

    Raises:
        TypeError: a non-string input or a non-numeric ``out_type``.
        InvalidArgumentError: strings of different lengths, or a length that is not a multiple
            of the dtype's size.

    >>> ek.io.decode_raw(ek.constant("Duck"), ek.uint8).numpy()
    array([ 68, 117,  99, 107], dtype=uint8)
    """
    x = string_tensor(input_bytes, "decode_raw", "input_bytes")
    dt = dtypes.numpy_dtype(dtypes.as_dtype(out_type))
    if dt is None or np.dtype(dt).kind not in "iufb":
        raise TypeError(f"decode_raw: out_type must be a numeric dtype, got {out_type!r}.")
    dt = np.dtype(dt).newbyteorder("<" if little_endian else ">")
    if fixed_length is not None:
        fixed_length = int(fixed_length)
        if fixed_length < 0:
            raise ValueError(f"decode_raw: fixed_length must be >= 0, got {fixed_length}.")
    return dispatch(_decode_raw, (x,), {"dtype": dt, "fixed_length": fixed_length})


def read_file(filename, name=None) -> Tensor:
    """The bytes of a file as a string scalar (follows `tf.io.read_file`).

    Raises:
        NotFoundError: no such file.
    """
    path = _path(filename, "read_file")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise NotFoundError(None, None, f"read_file: {path}; No such file or directory") from None
    return to_tensor(data, None, "read_file")


def write_file(filename, contents, name=None) -> None:
    """Writes a string scalar's bytes to a file, replacing it (follows `tf.io.write_file`);
    the file appears whole (written to a temporary name, then renamed)."""
    path = _path(filename, "write_file")
    value = string_tensor(contents, "write_file", "contents")
    if value.ndim != 0:
        raise ValueError(f"write_file: contents must be a scalar, got shape {value.shape}.")
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(value._value.item())
    os.replace(tmp, path)


def _path(filename, op: str) -> str:
    if isinstance(filename, Tensor):
        filename = filename.numpy()
    if isinstance(filename, bytes):
        filename = filename.decode("utf-8")
    if not isinstance(filename, (str, os.PathLike)):
        raise TypeError(f"{op}: filename must be a string, got {type(filename).__name__}.")
    return os.fspath(filename)


# -- base64 (web-safe alphabet, as TensorFlow's) ------------------------------------------------


def _encode_base64_fwd(xp, x, pad):
    def encode(v: bytes) -> bytes:
        out = base64.urlsafe_b64encode(v)
        return out if pad else out.rstrip(b"=")

    return map_strings(encode, x, OBJECT)


def _decode_base64_fwd(xp, x):
    def decode(v: bytes) -> bytes:
        body = v.rstrip(b"=")
        if len(body) % 4 == 1:
            raise InvalidArgumentError(
                None,
                "DecodeBase64",
                f"decode_base64: Base64 string length cannot be 1 modulo 4. Received: {v!r:.60}",
            )
        if not _BASE64_WEB.fullmatch(body):
            raise InvalidArgumentError(
                None,
                "DecodeBase64",
                f"decode_base64: Invalid character found in base64. Received: {v!r:.60}",
            )
        return base64.urlsafe_b64decode(body + b"=" * (-len(body) % 4))

    return map_strings(decode, x, OBJECT)


_BASE64_WEB = re.compile(rb"[A-Za-z0-9_-]*")
_encode_base64 = string_prim("EncodeBase64", _encode_base64_fwd)
_decode_base64 = string_prim("DecodeBase64", _decode_base64_fwd)


def encode_base64(input, pad: bool = False, name=None) -> Tensor:
    """Each string in base64 with the web-safe alphabet (``-`` and ``_`` for ``+`` and ``/``),
    without ``=`` padding unless ``pad`` (follows `tf.io.encode_base64`). A string tensor of
    the input's shape; no gradient.

    Raises:
        TypeError: ``input`` is not a string tensor.

    >>> ek.io.encode_base64(["hello world", b"\\xff\\xfe"]).numpy()
    array([b'aGVsbG8gd29ybGQ', b'__4'], dtype=object)
    """
    return dispatch(_encode_base64, (string_tensor(input, "encode_base64"),), {"pad": bool(pad)})


def decode_base64(input, name=None) -> Tensor:
    """Each web-safe base64 string decoded, padded or not (follows `tf.io.decode_base64`).

    Raises:
        TypeError: ``input`` is not a string tensor.
        InvalidArgumentError: a character outside the web-safe alphabet, or a length that is
            1 modulo 4 (TensorFlow's messages).

    >>> ek.io.decode_base64("aGVsbG8gd29ybGQ").numpy()
    b'hello world'
    """
    return dispatch(_decode_base64, (string_tensor(input, "decode_base64"),), {})
