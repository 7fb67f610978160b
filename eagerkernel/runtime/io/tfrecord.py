"""TFRecord files: writing, reading and checking them (follows `tf.io.TFRecordWriter`,
`tf.io.TFRecordOptions` and TF 1.x's `tf.io.tf_record_iterator`).

A TFRecord file is a sequence of records, each framed as TensorFlow documents it::

    uint64 length                  (little-endian)
    uint32 masked_crc32c(length)   (of the 8 length bytes)
    byte   data[length]
    uint32 masked_crc32c(data)

where ``masked_crc32c(x) = ((c >> 15 | c << 17) + 0xa282ead8) mod 2**32`` with ``c`` the
CRC-32C (Castagnoli) of ``x``. With ``compression_type="ZLIB"`` or ``"GZIP"`` the whole
sequence is one zlib or gzip stream. CRC-32C comes from `google-crc32c` (Google's C library),
an optional dependency (the ``tfrecord`` extra) imported on first use; every record's two CRCs
are checked on read, and a corrupt or truncated record raises `DataLossError` naming the file
and the record's offset.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "a.tfrecord")
>>> with ek.io.TFRecordWriter(path) as writer:
...     writer.write(b"first")
...     writer.write(b"second")
>>> os.path.getsize(path)  # 2 * (8 + 4 + 4) header and footer bytes + 11 data bytes
43
>>> list(ek.io.tf_record_iterator(path))
[b'first', b'second']
"""

from __future__ import annotations

import io
import os
import struct
import typing
import zlib

from ..core.errors import DataLossError, NotFoundError

__all__ = [
    "TFRecordCompressionType",
    "TFRecordOptions",
    "TFRecordWriter",
    "crc32c",
    "frame",
    "masked_crc32c",
    "read_records",
    "tf_record_iterator",
]

_MASK_DELTA = 0xA282EAD8
_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")
_HEADER = 12  # uint64 length + its uint32 masked CRC
_FOOTER = 4  # the data's uint32 masked CRC


def crc_module():
    """The `google_crc32c` module (CRC-32C checksums of TFRecord files); ImportError naming
    the package to install when it is missing."""
    try:
        import google_crc32c
    except ImportError as exc:
        raise ImportError(
            "TFRecord files need the `google-crc32c` package (CRC-32C checksums), which is not "
            "installed: pip install google-crc32c (or the eagerkernel extra: pip install "
            "'eagerkernel[tfrecord]')."
        ) from exc
    return google_crc32c


def crc32c(data: bytes) -> int:
    """The CRC-32C (Castagnoli) checksum of ``data``, an unsigned 32-bit int.

    >>> hex(crc32c(b"123456789"))  # the standard check value
    '0xe3069283'
    """
    return crc_module().value(data)


def masked_crc32c(data: bytes) -> int:
    """TensorFlow's masked CRC-32C of ``data``: the CRC rotated right by 15 bits plus
    ``0xa282ead8`` (mod 2**32), which TFRecord framing stores."""
    crc = crc_module().value(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def frame(data: bytes) -> bytes:
    """One record's bytes as a TFRecord file stores them: length, masked CRC of the length,
    ``data``, masked CRC of ``data``."""
    length = _LENGTH.pack(len(data))
    return b"".join(
        (length, _CRC.pack(masked_crc32c(length)), data, _CRC.pack(masked_crc32c(data)))
    )


class TFRecordCompressionType:
    """The compression types of a TFRecord file (follows TF 1.x's
    `tf.io.TFRecordCompressionType`)."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


_COMPRESSION_NAMES = {
    None: "",
    "": "",
    "ZLIB": "ZLIB",
    "GZIP": "GZIP",
    TFRecordCompressionType.NONE: "",
    TFRecordCompressionType.ZLIB: "ZLIB",
    TFRecordCompressionType.GZIP: "GZIP",
}


def _compression_name(value, op: str) -> str:
    if isinstance(value, TFRecordOptions):
        return value.compression_type
    if hasattr(value, "numpy"):  # a string Tensor
        value = value.numpy()
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    try:
        return _COMPRESSION_NAMES[value]
    except (KeyError, TypeError):
        raise ValueError(
            f"{op}: compression_type must be None, '', 'ZLIB', 'GZIP' or a "
            f"TFRecordCompressionType. Received: compression_type={value!r}"
        ) from None


class TFRecordOptions:
    """How a TFRecord file is compressed (follows `tf.io.TFRecordOptions`).

    Args:
        compression_type: None or "" (plain), "ZLIB", "GZIP", or a `TFRecordCompressionType`.
        flush_mode: not supported (zlib's default flushing is used); must be None.
        input_buffer_size: bytes read from the file at a time (default: Python's buffer).
        output_buffer_size: bytes buffered before writing to the file (default: Python's).
        window_bits: zlib's window size, 8..15 (default 15). Set for "" raises ValueError.
        compression_level: zlib's level, 0..9 or -1 for zlib's default (default -1).
        compression_method: zlib's method; only 8 (deflate) exists.
        mem_level: zlib's memory level, 1..9 (default 8).
        compression_strategy: zlib's strategy, 0..4 (default 0, ``Z_DEFAULT_STRATEGY``).

    Raises:
        ValueError: a bad ``compression_type`` or zlib parameter.
        NotImplementedError: ``flush_mode`` given.
    """

    compression_type_map: typing.ClassVar[dict] = {
        TFRecordCompressionType.NONE: "",
        TFRecordCompressionType.ZLIB: "ZLIB",
        TFRecordCompressionType.GZIP: "GZIP",
    }

    def __init__(
        self,
        compression_type=None,
        flush_mode=None,
        input_buffer_size=None,
        output_buffer_size=None,
        window_bits=None,
        compression_level=None,
        compression_method=None,
        mem_level=None,
        compression_strategy=None,
    ):
        op = "TFRecordOptions"
        self.compression_type = _compression_name(compression_type, op)
        if flush_mode is not None:
            raise NotImplementedError(
                f"{op}: flush_mode is not supported (zlib's default flushing is used). "
                f"Received: flush_mode={flush_mode!r}"
            )
        self.flush_mode = None
        self.input_buffer_size = _positive(input_buffer_size, op, "input_buffer_size")
        self.output_buffer_size = _positive(output_buffer_size, op, "output_buffer_size")
        zlib_args = {
            "window_bits": (window_bits, 8, 15),
            "compression_level": (compression_level, -1, 9),
            "compression_method": (compression_method, zlib.DEFLATED, zlib.DEFLATED),
            "mem_level": (mem_level, 1, 9),
            "compression_strategy": (compression_strategy, 0, 4),
        }
        for arg, (value, lo, hi) in zlib_args.items():
            if value is None:
                continue
            if not self.compression_type:
                raise ValueError(
                    f"{op}: {arg} applies to ZLIB or GZIP compression only; compression_type "
                    f"is ''. Received: {arg}={value!r}"
                )
            if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
                raise ValueError(
                    f"{op}: {arg} must be an integer in [{lo}, {hi}]. Received: {arg}={value!r}"
                )
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options) -> str:
        """The compression type of ``options`` (TFRecordOptions, a string, a
        `TFRecordCompressionType` or None) as "", "ZLIB" or "GZIP"."""
        return _compression_name(options, "TFRecordOptions")

    def _wbits(self) -> int:
        bits = 15 if self.window_bits is None else self.window_bits
        return bits + 16 if self.compression_type == "GZIP" else bits

    def _compressor(self):
        return zlib.compressobj(
            -1 if self.compression_level is None else self.compression_level,
            zlib.DEFLATED,
            self._wbits(),
            8 if self.mem_level is None else self.mem_level,
            0 if self.compression_strategy is None else self.compression_strategy,
        )

    def __repr__(self) -> str:
        return f"TFRecordOptions(compression_type={self.compression_type!r})"


def _positive(value, op, arg):
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{op}: {arg} must be a positive integer. Received: {arg}={value!r}")
    return value


def _options(options, op: str) -> TFRecordOptions:
    if isinstance(options, TFRecordOptions):
        return options
    return TFRecordOptions(_compression_name(options, op))


def _path(path, op: str) -> str:
    if hasattr(path, "numpy"):  # a string Tensor
        path = path.numpy()
    if isinstance(path, bytes):
        path = path.decode("utf-8")
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str):
        raise TypeError(f"{op}: path must be a string. Received: path={path!r:.80}")
    return path


def _record_bytes(record, op: str) -> bytes:
    if isinstance(record, (bytes, bytearray, memoryview)):
        return bytes(record)
    if isinstance(record, str):
        return record.encode("utf-8")
    if hasattr(record, "numpy") and getattr(record, "ndim", None) == 0:
        value = record.numpy()
        if isinstance(value, bytes):
            return value
    raise TypeError(
        f"{op}: a record must be bytes (e.g. example.SerializeToString()). "
        f"Received: {type(record).__name__} {record!r:.60}"
    )


class TFRecordWriter:
    """Writes records to a TFRecord file (follows `tf.io.TFRecordWriter`).

    Opening truncates ``path`` (as TensorFlow's writer does); records reach the file when
    the buffer fills, on `flush` and on `close`. A context manager: leaving the ``with``
    block closes the writer.

    Args:
        path: the file to write.
        options: a `TFRecordOptions`, or a compression type ("", "ZLIB", "GZIP" or None).

    Raises:
        ValueError: a bad ``options``.
        NotFoundError: the file cannot be created (no such directory).
        ImportError: `google-crc32c` is not installed.
    """

    def __init__(self, path, options=None):
        op = "TFRecordWriter"
        self._path = _path(path, op)
        self._options = _options(options, op)
        crc_module()
        buffering = self._options.output_buffer_size or -1
        try:
            self._file = open(self._path, "wb", buffering=buffering)  # noqa: SIM115
        except FileNotFoundError:
            raise NotFoundError(
                None, op, f"{op}: {self._path}; No such file or directory"
            ) from None
        self._compressor = self._options._compressor() if self._options.compression_type else None

    def write(self, record) -> None:
        """Appends one record (bytes; a str is written as UTF-8).

        Raises:
            TypeError: ``record`` is not bytes or str.
            ValueError: the writer is closed.
        """
        data = frame(_record_bytes(record, "TFRecordWriter.write"))
        if self._file is None:
            raise ValueError(f"TFRecordWriter.write: the writer of {self._path} is closed.")
        if self._compressor is not None:
            data = self._compressor.compress(data)
        self._file.write(data)

    def flush(self) -> None:
        """Writes what is buffered (and, compressed, what zlib holds) to the file."""
        if self._file is None:
            raise ValueError(f"TFRecordWriter.flush: the writer of {self._path} is closed.")
        if self._compressor is not None:
            self._file.write(self._compressor.flush(zlib.Z_SYNC_FLUSH))
        self._file.flush()

    def close(self) -> None:
        """Finishes the file (the end of the compressed stream) and closes it; a second call
        does nothing."""
        if self._file is None:
            return
        try:
            if self._compressor is not None:
                self._file.write(self._compressor.flush(zlib.Z_FINISH))
        finally:
            self._file.close()
            self._file = None

    def __enter__(self) -> TFRecordWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        f = getattr(self, "_file", None)
        if f is not None:
            self.close()


# -- reading ------------------------------------------------------------------------------------


class _Inflater(io.RawIOBase):
    """A readable stream of the decompressed bytes of a zlib or gzip file, one member after
    another (gzip files may hold several)."""

    def __init__(self, raw, wbits: int, path: str, chunk: int):
        self._raw, self._wbits, self._path, self._chunk = raw, wbits, path, chunk
        self._inflate = zlib.decompressobj(wbits)
        self._pending = self._carry = b""
        self._done = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self._pending and not self._done:
            data = self._inflate.unconsumed_tail or self._carry or self._raw.read(self._chunk)
            self._carry = b""
            if not data:  # end of file: whatever a cut-short stream still gives
                self._pending = self._inflate.flush()
                self._done = True
                break
            try:
                self._pending = self._inflate.decompress(data, self._chunk)
            except zlib.error as exc:
                raise DataLossError(
                    None, None, f"{self._path}: the compressed data is corrupt ({exc})."
                ) from None
            if self._inflate.eof:  # one member ended; another may follow (gzip allows it)
                self._carry = self._inflate.unused_data
                self._inflate = zlib.decompressobj(self._wbits)
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()


def _open(path: str, options: TFRecordOptions, op: str):
    buffering = options.input_buffer_size or io.DEFAULT_BUFFER_SIZE
    try:
        # buffering=1 would ask for line buffering, which binary files do not have.
        raw = open(path, "rb", buffering=buffering if buffering > 1 else 0)  # noqa: SIM115 (closed by the caller)
    except FileNotFoundError:
        raise NotFoundError(None, op, f"{op}: {path}; No such file or directory") from None
    if not options.compression_type:
        return raw
    return io.BufferedReader(_Inflater(raw, options._wbits(), path, buffering), buffering)


def _read_exact(f, n: int) -> bytes:
    parts, need = [], n
    while need:
        part = f.read(need)
        if not part:
            break
        parts.append(part)
        need -= len(part)
    return b"".join(parts)


def read_records(path, options=None, op: str = "TFRecordDataset"):
    """The records of one TFRecord file, as bytes, checking both CRCs of each.

    Raises:
        NotFoundError: no such file.
        DataLossError: a record is truncated or its length or data fails its CRC (the
            message names the file and the record's offset in the uncompressed stream).
    """
    path = _path(path, op)
    options = _options(options, op)
    masked = masked_crc32c
    with _open(path, options, op) as f:
        offset = 0
        while True:
            header = _read_exact(f, _HEADER)
            if not header:
                return
            if len(header) < _HEADER:
                raise DataLossError(
                    None,
                    op,
                    f"{op}: {path}: truncated record at {offset}: the header has "
                    f"{len(header)} of {_HEADER} bytes.",
                )
            length_bytes = header[:8]
            if _CRC.unpack_from(header, 8)[0] != masked(length_bytes):
                raise DataLossError(
                    None,
                    op,
                    f"{op}: {path}: corrupted record at {offset}: the length's CRC-32C does "
                    "not match.",
                )
            (length,) = _LENGTH.unpack(length_bytes)
            body = _read_exact(f, length + _FOOTER)
            if len(body) < length + _FOOTER:
                raise DataLossError(
                    None,
                    op,
                    f"{op}: {path}: truncated record at {offset}: expected {length} data "
                    f"bytes and a 4-byte CRC, found {len(body)} bytes.",
                )
            data = body[:length]
            if _CRC.unpack_from(body, length)[0] != masked(data):
                raise DataLossError(
                    None,
                    op,
                    f"{op}: {path}: corrupted record at {offset}: the data's CRC-32C does "
                    "not match.",
                )
            yield data
            offset += _HEADER + length + _FOOTER


def tf_record_iterator(path, options=None):
    """The records of a TFRecord file as bytes, in order (follows TF 1.x's
    `tf.compat.v1.io.tf_record_iterator`; in TF 2 use `ek.data.TFRecordDataset`).

    Args:
        path: the file.
        options: a `TFRecordOptions` or a compression type ("", "ZLIB", "GZIP", None).

    Raises:
        NotFoundError: (on the first ``next``) no such file.
        DataLossError: a corrupt or truncated record.
    """
    return read_records(path, options, "tf_record_iterator")
