"""`TFRecordDataset`: the records of TFRecord files as string scalars (follows
`tf.data.TFRecordDataset`). The file format and its checks are `runtime/io/tfrecord.py`'s."""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.device import CPU
from ..core.tensor import make
from ..io.tfrecord import TFRecordOptions, crc_module, read_records
from .dataset import Dataset
from .readers import (
    buffer_size_arg,
    chain_iterators,
    compression_arg,
    filenames_arg,
    parallel_reads_arg,
    round_robin,
)
from .structure import TensorSpec

__all__ = ["TFRecordDataset", "TFRecordWriter"]

_OBJ = np.dtype(object)


class TFRecordDataset(Dataset):
    """The records of one or more TFRecord files, each a string scalar (follows
    `tf.data.TFRecordDataset`).

    Args:
        filenames: a path, a list of paths, a string Tensor or a Dataset of paths.
        compression_type: None or "" (plain), "ZLIB" or "GZIP".
        buffer_size: bytes of read buffer per file (default: Python's).
        num_parallel_reads: read this many files at once, taking one record from each in
            turn (the order is deterministic); None reads them one after another.
        name: accepted for TensorFlow compatibility (there is no graph to name).

    Raises:
        ValueError: a bad ``compression_type``, ``buffer_size`` or ``num_parallel_reads``.
        TypeError: ``filenames`` is not strings.
        ImportError: `google-crc32c` is not installed.
        NotFoundError: (while iterating) a missing file.
        DataLossError: (while iterating) a corrupt or truncated record; the message names the
            file and the record's offset.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.tfrecord")
    >>> with ek.io.TFRecordWriter(path, "GZIP") as writer:
    ...     for word in [b"gray", b"wolf"]:
    ...         writer.write(word)
    >>> ds = ek.data.TFRecordDataset([path], compression_type="GZIP")
    >>> [r.numpy() for r in ds], ds.element_spec
    ([b'gray', b'wolf'], TensorSpec(shape=(), dtype=ek.string, name=None))
    """

    def __init__(
        self,
        filenames,
        compression_type=None,
        buffer_size=None,
        num_parallel_reads=None,
        name=None,
    ):
        super().__init__()
        op = "TFRecordDataset"
        self._files = filenames_arg(filenames, op)
        self._options = TFRecordOptions(
            compression_arg(compression_type, op),
            input_buffer_size=buffer_size_arg(buffer_size, op),
        )
        self._cycle = parallel_reads_arg(num_parallel_reads, op)
        crc_module()  # a missing dependency fails here, not at the first element

    def _iter(self, ctx):
        op = "TFRecordDataset"
        its = [read_records(f, self._options, op) for f in self._files]
        records = round_robin(its, self._cycle) if self._cycle > 1 else chain_iterators(its)
        for record in records:
            yield make(np.asarray(record, dtype=_OBJ), CPU)

    def _spec(self, peek):
        return TensorSpec((), dtypes.string)


class TFRecordWriter:
    """Writes the elements of a Dataset of string scalars to a TFRecord file (follows
    `tf.data.experimental.TFRecordWriter`).

    Args:
        filename: the file to write (replaced).
        compression_type: None or "" (plain), "ZLIB" or "GZIP".

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "d.tfrecord")
    >>> ds = ek.data.Dataset.from_tensor_slices(["a", "bb"])
    >>> ek.data.experimental.TFRecordWriter(path).write(ds)
    >>> [r.numpy() for r in ek.data.TFRecordDataset(path)]
    [b'a', b'bb']
    """

    def __init__(self, filename, compression_type=None, name=None):
        op = "TFRecordWriter"
        self._filename = filename
        self._compression = compression_arg(compression_type, op)

    def write(self, dataset) -> None:
        """Writes every element of ``dataset``, in order.

        Raises:
            TypeError: ``dataset`` is not a Dataset of string scalars.
        """
        from ..io.tfrecord import TFRecordWriter as _Writer

        spec = dataset.element_spec if isinstance(dataset, Dataset) else None
        if not (
            isinstance(spec, TensorSpec) and spec.dtype == dtypes.string and spec.shape.rank == 0
        ):
            raise TypeError(
                "TFRecordWriter.write: `dataset` must produce scalar string tensors, whereas it "
                f"produces {spec if spec is not None else type(dataset).__name__}."
            )
        with _Writer(self._filename, self._compression) as writer:
            for record in dataset:
                writer.write(record.numpy())
