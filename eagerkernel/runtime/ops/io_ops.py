"""`ek.io` basics (follows `tf.io`): raw bytes of string tensors as numbers, whole files as
string scalars, file name patterns, compressed and base64 strings, JPEG sniffing, and
`ek.fingerprint`."""

from __future__ import annotations

import base64
import glob
import os
import re
import zlib

import numpy as np

from ..core import dtypes
from ..core.dispatch import Primitive, dispatch, stateful
from ..core.errors import DataLossError, InvalidArgumentError, NotFoundError
from ..core.tensor import Tensor, to_tensor
from .strings import OBJECT, map_strings, string_prim, string_tensor

__all__ = [
    "decode_base64",
    "decode_compressed",
    "decode_json_example",
    "decode_raw",
    "encode_base64",
    "fingerprint",
    "is_jpeg",
    "matching_files",
    "read_file",
    "write_file",
]


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
    size = sizes.pop() if sizes else (fixed_length or 0)
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


# TensorFlow's DecodeRaw / DecodePaddedRaw ``out_type`` lists (bfloat16 aside: not a dtype here).
_DECODE_PADDED_RAW_TYPES = ("float16", "float32", "float64", "int32", "uint16", "uint8", "int16")
_DECODE_PADDED_RAW_TYPES += ("int8", "int64")
_DECODE_RAW_TYPES = (*_DECODE_PADDED_RAW_TYPES, "complex64", "complex128", "bool")
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
        TypeError: a non-string input.
        InvalidArgumentError: an ``out_type`` TensorFlow's DecodeRaw lacks (uint32, uint64,
            string; with ``fixed_length`` also bool and complex), a ``fixed_length`` that is
            not positive or not a multiple of the dtype's size, strings of different lengths,
            or a length that is not a multiple of the dtype's size.

    >>> ek.io.decode_raw(ek.constant("Duck"), ek.uint8).numpy()
    array([ 68, 117,  99, 107], dtype=uint8)
    """
    x = string_tensor(input_bytes, "decode_raw", "input_bytes")
    dt = dtypes.numpy_dtype(dtypes.as_dtype(out_type))
    allowed = _DECODE_RAW_TYPES if fixed_length is None else _DECODE_PADDED_RAW_TYPES
    if dt is None or np.dtype(dt).name not in allowed:
        raise InvalidArgumentError(
            None,
            "DecodeRaw",
            f"decode_raw: out_type must be one of {', '.join(allowed)}"
            f"{'' if fixed_length is None else ' with fixed_length'}. Received: "
            f"out_type={out_type!r}",
        )
    dt = np.dtype(dt).newbyteorder("<" if little_endian else ">")
    if fixed_length is not None:
        fixed_length = int(fixed_length)
        if fixed_length <= 0 or fixed_length % dt.itemsize:
            raise InvalidArgumentError(
                None,
                "DecodeRaw",
                f"decode_raw: fixed_length must be greater than zero and a multiple of the size "
                f"of out_type ({dt.itemsize}). Received: fixed_length={fixed_length}",
            )
    return dispatch(_decode_raw, (x,), {"dtype": dt, "fixed_length": fixed_length})


@stateful  # a graph function reads the file again on every call
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


@stateful(undoable=False)  # a graph function writes the file again on every call
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
        # As TensorFlow's Base64Decode: ``=`` padding only ends a string whose length is a
        # multiple of 4 ("tg==" decodes, "tg=" and "tg===" do not).
        pad = 0
        if len(v) % 4 == 0:
            pad = 2 if v.endswith(b"==") else 1 if v.endswith(b"=") else 0
        body = v[: len(v) - pad]
        if len(v) % 4 == 1 and _BASE64_WEB.fullmatch(v[:-1]):
            raise InvalidArgumentError(
                None,
                "DecodeBase64",
                f"decode_base64: Base64 string length cannot be 1 modulo 4. Received: {v!r:.60}",
            )
        if len(v) % 4 == 1 or not _BASE64_WEB.fullmatch(body):
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


# -- file names, compression, JSON Examples, JPEG sniffing -----------------------------------


@stateful  # a graph function lists the files again on every call
def matching_files(pattern, name=None) -> Tensor:
    """The files matching a glob pattern (``*``, ``?``, ``[...]``), or each of a vector of
    patterns, as a string vector: all the matches sorted together, a file matched by two
    patterns listed twice (follows `tf.io.matching_files`); empty if nothing matches.

    Raises:
        TypeError: ``pattern`` is not a string tensor.
        InvalidArgumentError: ``pattern`` has rank > 1.

    >>> ek.io.matching_files("/nonexistent/*.txt").shape
    TensorShape([0])
    """
    patterns = string_tensor(pattern, "matching_files", "pattern")
    if patterns.ndim > 1:
        raise InvalidArgumentError(
            None,
            "MatchingFiles",
            f"matching_files: Input patterns tensor must be scalar or vector, but had shape: "
            f"{list(patterns.shape)}",
        )
    found: list = []
    for p in np.asarray(patterns._value).reshape(-1).tolist():
        found += glob.glob(p.decode("utf-8"))
    found.sort()
    out = np.empty(len(found), OBJECT)
    out[:] = [f.encode("utf-8") for f in found]
    return to_tensor(out, None, "matching_files")


def _inflate(v: bytes, wbits: int) -> bytes:
    """What TensorFlow's zlib input stream yields: the bytes inflated so far when the data
    stops early, bytes after a ZLIB stream ignored, GZIP members read one after another."""
    out = []
    while True:
        d = zlib.decompressobj(wbits)
        out.append(d.decompress(v))
        out.append(d.flush())
        if wbits != 31 or not d.eof or not d.unused_data:
            return b"".join(out)
        v = d.unused_data


def _decompress(kind: str):
    def one(v: bytes) -> bytes:
        try:
            if kind in ("ZLIB", "GZIP"):
                return _inflate(v, 31 if kind == "GZIP" else 15)
            import zstandard

            return zstandard.ZstdDecompressor().decompress(v)
        except (zlib.error, OSError, EOFError, ValueError) as e:
            raise DataLossError(
                None, "DecodeCompressed", f"decode_compressed: {kind} data is corrupt: {e}"
            ) from None

    return one


def _decode_compressed_fwd(xp, x, compression_type):
    if compression_type == "":
        return x
    return map_strings(_decompress(compression_type), x, OBJECT)


_decode_compressed = string_prim("DecodeCompressed", _decode_compressed_fwd)


def decode_compressed(bytes, compression_type="", name=None) -> Tensor:
    """Each string decompressed: ``"ZLIB"``, ``"GZIP"``, ``"ZSTD"`` (the zstandard package)
    or ``""`` (unchanged) (follows `tf.io.decode_compressed`). A string tensor of the input's
    shape; no gradient.

    Raises:
        TypeError: ``bytes`` is not a string tensor.
        InvalidArgumentError: another ``compression_type``.
        DataLossError: a string that is not valid data of that kind (ZLIB or GZIP data that
            stops early yields the bytes inflated so far, as TensorFlow).

    >>> import zlib
    >>> ek.io.decode_compressed(zlib.compress(b"hello"), "ZLIB").numpy()
    b'hello'
    """
    kind = compression_type.upper() if isinstance(compression_type, str) else compression_type
    if kind not in ("", "NONE", "ZLIB", "GZIP", "ZSTD"):
        raise InvalidArgumentError(
            None,
            "DecodeCompressed",
            "decode_compressed: Only ZLIB, ZSTD, GZIP or NONE are supported compressions, got "
            f"compression_type={compression_type!r}.",
        )
    x = string_tensor(bytes, "decode_compressed", "bytes")
    return dispatch(_decode_compressed, (x,), {"compression_type": "" if kind == "NONE" else kind})


def _decode_json_example_fwd(xp, x):
    from google.protobuf import json_format

    from ..io.example import messages

    example = messages()["Example"]

    def one(v: bytes) -> bytes:
        try:
            return json_format.Parse(v.decode("utf-8"), example()).SerializeToString()
        except (json_format.ParseError, UnicodeDecodeError) as e:
            raise InvalidArgumentError(
                None,
                "DecodeJSONExample",
                f"decode_json_example: Error while parsing JSON: {e} (in {v!r:.60})",
            ) from None

    return map_strings(one, x, OBJECT)


_decode_json_example = string_prim("DecodeJSONExample", _decode_json_example_fwd)


def decode_json_example(json_examples, name=None) -> Tensor:
    """Each JSON-encoded ``tf.train.Example`` (protobuf's JSON mapping: ``int64List``,
    ``bytesList`` as base64, ...) as the serialized binary proto, ready for
    `ek.io.parse_example` (follows `tf.io.decode_json_example`). A string tensor of the input's
    shape; no gradient.

    Raises:
        TypeError: not a string tensor.
        InvalidArgumentError: a string that is not a JSON Example.

    >>> js = '{"features": {"feature": {"a": {"int64List": {"value": [1, 2]}}}}}'
    >>> serialized = ek.io.decode_json_example(js)
    >>> spec = {"a": ek.io.FixedLenFeature([2], ek.int64)}
    >>> ek.io.parse_single_example(serialized, spec)["a"].numpy()
    array([1, 2])
    """
    x = string_tensor(json_examples, "decode_json_example", "json_examples")
    return dispatch(_decode_json_example, (x,), {})


def _is_jpeg_fwd(xp, x):
    return map_strings(lambda v: v[:3] == b"\xff\xd8\xff", x, np.bool_)


_is_jpeg = string_prim("IsJpeg", _is_jpeg_fwd)


def is_jpeg(contents, name=None) -> Tensor:
    """Whether each string starts with JPEG's signature ``FF D8 FF`` (follows
    `tf.io.is_jpeg`). A bool tensor of the input's shape.

    Raises:
        TypeError: ``contents`` is not a string tensor.

    >>> ek.io.is_jpeg([b"\\xff\\xd8\\xff\\xe0", b"\\x89PNG"]).numpy()
    array([ True, False])
    """
    return dispatch(_is_jpeg, (string_tensor(contents, "is_jpeg", "contents"),), {})


# -- fingerprint ------------------------------------------------------------------------------


def _fingerprint64(data: bytes) -> bytes:
    """FarmHash's Fingerprint64 of ``data``, as 8 little-endian bytes (TensorFlow's layout)."""
    import farmhash

    return farmhash.fingerprint64(data).to_bytes(8, "little")


def _fingerprint_fwd(xp, x):
    a = np.asarray(x)
    n = a.shape[0]
    rows = a.reshape(n, -1) if n else a.reshape(0, 0)
    out = np.empty((n, 8), np.uint8)
    for i in range(n):
        if a.dtype == OBJECT:
            # Each string's fingerprint; a row of several strings: that of their fingerprints.
            parts = [_fingerprint64(v) for v in rows[i].tolist()]
            data = parts[0] if len(parts) == 1 else _fingerprint64(b"".join(parts))
        else:
            data = _fingerprint64(
                np.ascontiguousarray(rows[i]).astype(a.dtype.newbyteorder("<")).tobytes()
            )
        out[i] = np.frombuffer(data, np.uint8)
    return xp.asarray(out)


_fingerprint = string_prim("Fingerprint", _fingerprint_fwd)


def fingerprint(data, method="farmhash64", name=None) -> Tensor:
    """A fingerprint of each row ``data[i]`` (follows `tf.fingerprint`): uint8 ``[rows, 8]``,
    FarmHash's Fingerprint64 in little-endian bytes, equal to TensorFlow's for the same data.
    A row of numbers is fingerprinted as its bytes; a string as its bytes; a row of several
    strings as the concatenation of their fingerprints. Needs the pyfarmhash package.

    Raises:
        InvalidArgumentError: ``data`` is a scalar, or ``method`` is not ``"farmhash64"``.

    >>> ek.fingerprint(ek.constant(["a", "b"])).numpy()[0]
    array([227, 117, 223, 182, 101,  66,  69, 179], dtype=uint8)
    """
    if method != "farmhash64":
        raise InvalidArgumentError(
            None, "Fingerprint", f"fingerprint: Unsupported fingerprint method: {method}"
        )
    x = data if isinstance(data, Tensor) else to_tensor(data, None, "fingerprint")
    if x.ndim < 1:
        raise InvalidArgumentError(
            None,
            "Fingerprint",
            f"fingerprint: `data` should have at least one dimension: {list(x.shape)}",
        )
    return dispatch(_fingerprint, (x,), {})
