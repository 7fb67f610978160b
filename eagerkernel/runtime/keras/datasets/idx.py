"""The IDX file format of MNIST and Fashion-MNIST, read whole into a NumPy array.

An IDX file is a 4-byte magic number ``00 00 TT NN`` (``TT`` the element type, ``NN`` the
number of dimensions), ``NN`` big-endian uint32 dimension sizes, then the elements in C order,
big-endian. The data sets ship the files gzipped; both forms are read, told apart by the gzip
magic bytes ``1f 8b`` rather than by the file name.
"""

from __future__ import annotations

import gzip
import math
import os
import zlib

import numpy as np

__all__ = ["IDX_TYPES", "read_idx"]

# Type code -> element dtype as stored (big-endian; single bytes have no order).
IDX_TYPES: dict[int, np.dtype] = {
    0x08: np.dtype("u1"),
    0x09: np.dtype("i1"),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}
_GZIP_MAGIC = b"\x1f\x8b"


def read_idx(path: str | os.PathLike) -> np.ndarray:
    """Reads an IDX file (gzipped or not) into a NumPy array.

    The whole file is read at once; a gzipped file (recognised by its first two bytes,
    ``1f 8b``, whatever its name) is decompressed in memory.

    Args:
      path: the file, e.g. ``train-images-idx3-ubyte.gz`` or ``train-images-idx3-ubyte``.

    Returns:
      A new, writable array in native byte order with the file's shape and element type:
      type code 0x08 -> uint8, 0x09 -> int8, 0x0B -> int16, 0x0C -> int32, 0x0D -> float32,
      0x0E -> float64. MNIST's image files give uint8 ``(N, 28, 28)``, its label files uint8
      ``(N,)``.

    Raises:
      FileNotFoundError: (or another OSError) if the file cannot be opened.
      ValueError: if the file is not valid IDX: a damaged gzip stream, a magic number that
        does not start with two zero bytes, an unknown type code, a header cut short, or a
        payload whose size is not exactly the product of the dimensions times the element
        size (a truncated or oversized file). The message names the file and what is wrong.

    Example:
      >>> import tempfile, pathlib
      >>> p = pathlib.Path(tempfile.mkdtemp()) / "tiny-idx2-ubyte"
      >>> _ = p.write_bytes(bytes([0, 0, 0x08, 2, 0, 0, 0, 2, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6]))
      >>> read_idx(p)
      array([[1, 2, 3],
             [4, 5, 6]], dtype=uint8)
    """
    path = os.fspath(path)
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == _GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            # EOFError: the stream ends early (a truncated download); BadGzipFile (an
            # OSError) and zlib.error: corrupt bytes or a wrong CRC.
            raise ValueError(f"{path}: damaged gzip data ({exc})") from None
    return _parse(raw, path)


def _parse(raw: bytes, path: str) -> np.ndarray:
    """The array encoded by the IDX bytes ``raw`` (``path`` is for the messages only)."""
    if len(raw) < 4:
        raise ValueError(f"{path}: not an IDX file: {len(raw)} bytes, shorter than the header")
    zero, type_code, ndim = raw[:2], raw[2], raw[3]
    if zero != b"\x00\x00":
        raise ValueError(
            f"{path}: not an IDX file: magic number 0x{raw[:4].hex()} should start with"
            " two zero bytes"
        )
    if type_code not in IDX_TYPES:
        known = ", ".join(f"0x{code:02X}" for code in IDX_TYPES)
        raise ValueError(f"{path}: unknown IDX type code 0x{type_code:02X} (known: {known})")
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise ValueError(
            f"{path}: IDX header cut short: {ndim} dimensions need {header} header bytes,"
            f" found {len(raw)}"
        )
    shape = tuple(int.from_bytes(raw[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim))
    dtype = IDX_TYPES[type_code]
    expected = math.prod(shape) * dtype.itemsize
    found = len(raw) - header
    if found != expected:
        what = "truncated" if found < expected else "extra bytes at the end"
        raise ValueError(
            f"{path}: shape {shape} of {dtype.newbyteorder('=').name} expected {expected}"
            f" bytes of data, found {found} ({what})"
        )
    flat = np.frombuffer(raw, dtype=dtype, count=math.prod(shape), offset=header)
    # One copy: native byte order, writable, and not holding on to the file's bytes.
    return flat.astype(dtype.newbyteorder("="), copy=True).reshape(shape)
