"""`FixedLengthRecordDataset`: the fixed-size records of binary files (follows
`tf.data.FixedLengthRecordDataset`)."""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.device import CPU
from ..core.errors import DataLossError, InvalidArgumentError
from ..core.tensor import make
from .dataset import Dataset
from .readers import (
    buffer_size_arg,
    chain_iterators,
    compression_arg,
    filenames_arg,
    open_stream,
    parallel_reads_arg,
    round_robin,
)
from .structure import TensorSpec

__all__ = ["FixedLengthRecordDataset"]

_OP = "FixedLengthRecordDataset"


class FixedLengthRecordDataset(Dataset):
    """The records of one or more binary files, each ``record_bytes`` long, as string
    scalars, after skipping ``header_bytes`` and before the last ``footer_bytes`` of each file
    (follows `tf.data.FixedLengthRecordDataset`).

    Args:
        filenames: a path, a list of paths, a string Tensor or a Dataset of paths.
        record_bytes: bytes per record (> 0). header_bytes, footer_bytes: bytes to skip at
            the start and the end of each file (default 0).
        buffer_size: bytes of read buffer per file (default: Python's).
        compression_type: None or "" (plain), "ZLIB" or "GZIP".
        num_parallel_reads: read this many files at once, one record from each in turn.

    Raises:
        ValueError: a bad ``compression_type``, ``buffer_size`` or ``num_parallel_reads``.
        InvalidArgumentError: (while iterating, as TensorFlow) ``record_bytes`` <= 0, a
            negative ``header_bytes``/``footer_bytes``, or a plain file whose body is not a
            whole number of records ("... has body length 8 bytes, which is not an exact
            multiple of the record length (3 bytes)"); nothing of that file is read.
        DataLossError: the same for a compressed file, after its whole records.
        NotFoundError: (while iterating) a missing file.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "a.bin")
    >>> _ = open(path, "wb").write(b"HDabcdefFT")
    >>> ds = ek.data.FixedLengthRecordDataset(path, 3, header_bytes=2, footer_bytes=2)
    >>> [r.numpy() for r in ds]
    [b'abc', b'def']
    """

    def __init__(
        self,
        filenames,
        record_bytes,
        header_bytes=None,
        footer_bytes=None,
        buffer_size=None,
        compression_type=None,
        num_parallel_reads=None,
        name=None,
    ):
        super().__init__()
        self._files = filenames_arg(filenames, _OP)
        self._sizes = {
            "record_bytes": int(record_bytes),
            "header_bytes": 0 if header_bytes is None else int(header_bytes),
            "footer_bytes": 0 if footer_bytes is None else int(footer_bytes),
        }
        self._compression = compression_arg(compression_type, _OP)
        self._buffer_size = buffer_size_arg(buffer_size, _OP)
        self._cycle = parallel_reads_arg(num_parallel_reads, _OP)

    def _records(self, path: str):
        size, head, foot = self._sizes.values()
        for arg, value in self._sizes.items():
            if value < (1 if arg == "record_bytes" else 0):
                bound = "> 0" if arg == "record_bytes" else ">= 0"
                raise InvalidArgumentError(
                    None, _OP, f"{_OP}: `{arg}` must be {bound}. Received: {arg}={value}"
                )
        with open_stream(path, self._compression, self._buffer_size, _OP) as f:
            data = f.read()
        body = len(data) - head - foot
        whole = body >= 0 and body % size == 0
        if not whole and not self._compression:
            raise InvalidArgumentError(None, _OP, _body_message(path, head, foot, body, size))
        for start in range(head, head + max(body, 0) // size * size, size):
            yield data[start : start + size]
        if not whole:
            raise DataLossError(None, _OP, _body_message(path, head, foot, body, size))

    def _iter(self, ctx):
        its = [self._records(f) for f in self._files]
        records = round_robin(its, self._cycle) if self._cycle > 1 else chain_iterators(its)
        for record in records:
            yield make(np.asarray(record, dtype=object), CPU)

    def _spec(self, peek):
        return TensorSpec((), dtypes.string)


def _body_message(path, head, foot, body, size) -> str:
    return (
        f"{_OP}: Excluding the header ({head} bytes) and footer ({foot} bytes), input file "
        f'"{path}" has body length {body} bytes, which is not an exact multiple of the record '
        f"length ({size} bytes)."
    )
