"""File readers: `TextLineDataset`, `CsvDataset` and `make_csv_dataset` (follow `tf.data`).

Lines come out as `ek.string` scalars (bytes, newline removed); CSV records as tuples of
scalars typed by ``record_defaults``. Files are read with Python's `gzip`/`zlib` and `csv`
modules, one pass per iteration.
"""

from __future__ import annotations

import collections
import csv
import glob
import gzip
import io
import itertools
import zlib

import numpy as np

from ..core import dtypes
from ..core.device import CPU
from ..core.errors import InvalidArgumentError, NotFoundError
from ..core.tensor import Tensor, convert_to_tensor, make
from .dataset import Dataset, int_arg
from .structure import TensorSpec

__all__ = ["CsvDataset", "TextLineDataset", "decode_csv", "make_csv_dataset"]

_OBJ = np.dtype(object)


# -- files --------------------------------------------------------------------------------------


def filenames_arg(filenames, op: str) -> list:
    """``filenames`` (a str, a list of them, a string Tensor or a Dataset of strings) as a list
    of str paths."""
    if isinstance(filenames, Dataset):
        return [_path(f) for f in filenames]
    if isinstance(filenames, Tensor):
        if filenames.dtype != dtypes.string:
            raise TypeError(f"{op}: filenames must be strings, got dtype {filenames.dtype.name}.")
        return [_path(v) for v in np.asarray(filenames.numpy()).reshape(-1)]
    if isinstance(filenames, (str, bytes)):
        return [_path(filenames)]
    try:
        names = [_path(f) for f in filenames]
    except TypeError:
        raise TypeError(
            f"{op}: filenames must be a string, a list of strings or a string Tensor. "
            f"Received: filenames={filenames!r:.80}"
        ) from None
    return names


def _path(f) -> str:
    if isinstance(f, Tensor):
        f = f.numpy()
    if isinstance(f, bytes):
        return f.decode("utf-8")
    if isinstance(f, str):
        return f
    raise TypeError(f"a filename must be a string, got {type(f).__name__} {f!r:.60}.")


def compression_arg(compression_type, op: str) -> str:
    """``compression_type`` of reader ``op`` as ``""``, ``"ZLIB"`` or ``"GZIP"`` (a string
    Tensor too); ValueError otherwise."""
    if isinstance(compression_type, Tensor):
        compression_type = compression_type.numpy().decode()
    c = "" if compression_type is None else str(compression_type)
    if c not in ("", "ZLIB", "GZIP"):
        raise ValueError(
            f"{op}: compression_type must be None, '', 'ZLIB' or 'GZIP'. "
            f"Received: compression_type={compression_type!r}"
        )
    return c


def buffer_size_arg(buffer_size, op: str) -> int:
    """``buffer_size`` of reader ``op`` in bytes (None: `io.DEFAULT_BUFFER_SIZE`);
    ValueError when it is not positive."""
    if buffer_size is None:
        return io.DEFAULT_BUFFER_SIZE
    n = int_arg(buffer_size, op, "buffer_size")
    if n <= 0:
        raise ValueError(f"{op}: buffer_size must be positive. Received: buffer_size={n}")
    return n


def open_stream(path: str, compression: str, buffer_size: int, op: str):
    """A binary stream of the file's (decompressed) bytes."""
    try:
        raw = open(path, "rb", buffering=buffer_size)  # noqa: SIM115 (closed by the caller)
    except FileNotFoundError:
        raise NotFoundError(None, op, f"{op}: {path}; No such file or directory") from None
    if compression == "GZIP":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if compression == "ZLIB":
        with raw:
            return io.BytesIO(zlib.decompress(raw.read()))
    return raw


def _lines(path, compression, buffer_size, op):
    """The file's lines as bytes, split at ``\\n``, with every ``\\r`` dropped (as
    TensorFlow's InputBuffer::ReadLine: ``b"a\\rb\\r\\n"`` reads as ``b"ab"``)."""
    with open_stream(path, compression, buffer_size, op) as f:
        for line in f:
            ended = line.endswith(b"\n")
            line = (line[:-1] if ended else line).replace(b"\r", b"")
            if ended or line:  # a last, unended line of only "\r" is no line
                yield line


def round_robin(iterators: list, cycle: int):
    """Elements of the iterators taken in turn, ``cycle`` open at once (tf.data's parallel
    reads: interleave with block length 1, in a fixed order)."""
    pending = collections.deque(iterators)
    active = []
    while pending or active:
        while pending and len(active) < cycle:
            active.append(pending.popleft())
        i = 0
        while i < len(active):
            try:
                yield next(active[i])
                i += 1
            except StopIteration:
                active.pop(i)
                if pending:
                    active.insert(i, pending.popleft())


def parallel_reads_arg(num_parallel_reads, op) -> int:
    """How many files reader ``op`` reads at once: 1 for None, the CPU count for AUTOTUNE;
    ValueError for other values below 1."""
    if num_parallel_reads is None:
        return 1
    from .dataset import AUTOTUNE

    n = int_arg(num_parallel_reads, op, "num_parallel_reads")
    if n == AUTOTUNE:
        import os

        return os.cpu_count() or 1
    if n <= 0:
        raise ValueError(f"{op}: num_parallel_reads must be positive or AUTOTUNE. Received: {n}")
    return n


# -- TextLineDataset ----------------------------------------------------------------------------


class TextLineDataset(Dataset):
    """The lines of one or more text files, as string scalars without the newline (follows
    `tf.data.TextLineDataset`).

    Args:
        filenames: a path, a list of paths, a string Tensor or a Dataset of paths.
        compression_type: None or "" (plain), "ZLIB" or "GZIP".
        buffer_size: bytes of read buffer per file (default: Python's).
        num_parallel_reads: read this many files at once, taking one line from each in turn
            (the order is deterministic); None reads them one after another.

    Raises:
        ValueError: a bad ``compression_type``, ``buffer_size`` or ``num_parallel_reads``.
        NotFoundError: (while iterating) a missing file.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
    >>> _ = open(path, "w").write("Gray wolf\\nLazy dog\\n")
    >>> [line.numpy() for line in ek.data.TextLineDataset(path)]
    [b'Gray wolf', b'Lazy dog']
    """

    def __init__(
        self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None
    ):
        super().__init__()
        op = "TextLineDataset"
        self._files = filenames_arg(filenames, op)
        self._compression = compression_arg(compression_type, op)
        self._buffer_size = buffer_size_arg(buffer_size, op)
        self._cycle = parallel_reads_arg(num_parallel_reads, op)

    def _iter(self, ctx):
        op = "TextLineDataset"
        its = [_lines(f, self._compression, self._buffer_size, op) for f in self._files]
        lines = round_robin(its, self._cycle) if self._cycle > 1 else chain_iterators(its)
        for line in lines:
            yield make(np.asarray(line, dtype=_OBJ), CPU)

    def _spec(self, peek):
        return TensorSpec((), dtypes.string)


def chain_iterators(iterators):
    """The elements of each iterator in turn (sequential reads of several files)."""
    for it in iterators:
        yield from it


# -- CsvDataset ---------------------------------------------------------------------------------

_CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)


def _record_default(value, i: int):
    """``(dtype, default array or None)`` for one entry of ``record_defaults``: a dtype means
    a required column, a scalar a default, an empty tensor a required column of its dtype."""
    if (
        isinstance(value, (dtypes.DType, np.dtype))
        or value is str
        or value is bytes
        or (isinstance(value, type) and issubclass(value, np.generic))
    ):
        dt, default = dtypes.as_dtype(value), None
    else:
        t = convert_to_tensor(value)
        dt = t.dtype
        v = np.asarray(t.numpy())
        if v.size > 1:
            raise ValueError(
                f"CsvDataset: record_defaults[{i}] must be a scalar default or an empty tensor "
                f"(required), got shape {v.shape}."
            )
        default = v.reshape(()) if v.size == 1 else None
    if dt not in _CSV_TYPES:
        raise TypeError(
            f"CsvDataset: record_defaults[{i}] must have dtype float32, float64, int32, int64 "
            f"or string, got {dt!r}."
        )
    return dt, default


def _parse_field(text: str, dt, i: int, record: int, op: str = "CSVDataset"):
    try:
        if dt == dtypes.string:
            return np.asarray(text.encode("utf-8", "surrogateescape"), dtype=_OBJ)
        if dt.is_integer:
            value = int(text)
            info = np.iinfo(dt.as_numpy_dtype)
            if not info.min <= value <= info.max:
                raise ValueError
            return dt.as_numpy_dtype(value)  # a NumPy scalar, as other rank-0 values
        return dt.as_numpy_dtype(float(text))
    except ValueError:
        raise InvalidArgumentError(
            None,
            op,
            f"Field {i} in record {record} is not a valid {dt.name}: {text}",
        ) from None


def decode_csv(
    records,
    record_defaults,
    field_delim=",",
    use_quote_delim=True,
    name=None,
    na_value="",
    select_cols=None,
):
    """Parses CSV records into one tensor per column (follows `tf.io.decode_csv`).

    Args:
        records: a string tensor (any shape; a str or a list of str is converted), one CSV
            line per element.
        record_defaults: one entry per column kept: a scalar default (its dtype is the
            column's: ``int()`` int32, ``float()`` float32, ``str()`` string; used when the
            field is empty or equals ``na_value``), a dtype, or an empty tensor (the column is
            required). Dtypes float32, float64, int32, int64 or string.
        field_delim: one character. use_quote_delim: double quotes enclose fields (else they
            are ordinary characters). na_value: a field with this text counts as missing.
        select_cols: sorted, unique, non-negative indices of the columns to keep, one per
            entry of ``record_defaults``. name: unused (TensorFlow's op name).

    Returns:
        a list of ``len(record_defaults)`` tensors, each of ``records``' shape, the dtype of
        its default.

    Raises:
        ValueError: ``record_defaults`` empty, ``field_delim`` not one character, or
            ``select_cols`` not strictly increasing, negative or of another length than
            ``record_defaults``.
        TypeError: a default of another dtype.
        InvalidArgumentError: a record with the wrong number of fields ("Expect 3 fields but
            have 2 in record 0"; an empty record has 0 fields), a required field missing, or
            a field that does not parse.

    >>> a, b, c = ek.io.decode_csv(["1,x,2.5", "2,,"], record_defaults=[int(), "?", float()])
    >>> a.numpy(), b.numpy()
    (array([1, 2], dtype=int32), array([b'x', b'?'], dtype=object))
    >>> c.numpy()
    array([2.5, 0. ], dtype=float32)
    """
    op = "DecodeCSV"
    if not isinstance(record_defaults, (list, tuple)) or not record_defaults:
        raise ValueError(f"{op}: record_defaults must be a non-empty list.")
    defaults = []
    for i, value in enumerate(record_defaults):
        if isinstance(value, str):
            value = np.asarray(value.encode("utf-8"), dtype=_OBJ)
        defaults.append(_record_default(value, i))
    if len(field_delim) != 1:
        raise ValueError(
            f"{op}: field_delim must be one character. Received: field_delim={field_delim!r}"
        )
    cols = None
    if select_cols is not None:
        cols = [int(c) for c in select_cols]
        if any(b <= a for a, b in itertools.pairwise(cols)):
            raise ValueError(
                f"decode_csv: select_cols is not strictly increasing. Received: select_cols={cols}"
            )
        if cols and cols[0] < 0:
            raise ValueError(
                f"decode_csv: select_cols contains negative values. Received: select_cols={cols}"
            )
        if len(cols) != len(defaults):
            raise ValueError(
                f"{op}: len(select_cols) ({len(cols)}) must equal len(record_defaults) "
                f"({len(defaults)})."
            )
    lines = np.asarray(convert_to_tensor(records, dtype=dtypes.string).numpy(), dtype=_OBJ)
    out = [
        np.empty(lines.shape, dtype=_OBJ if dt == dtypes.string else dt.as_numpy_dtype)
        for dt, _ in defaults
    ]
    quoting = csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE
    for record, index in enumerate(np.ndindex(lines.shape)):
        line = lines[index]
        text = line.decode("utf-8", "surrogateescape") if isinstance(line, bytes) else str(line)
        row = next(csv.reader([text], delimiter=field_delim, quoting=quoting, strict=False), [])
        # an empty record has no field (TensorFlow: "Expect 1 fields but have 0"); '""' has one
        if cols is not None:
            if cols and cols[-1] >= len(row):
                raise InvalidArgumentError(
                    None, op, f"Expect {cols[-1] + 1} fields but have {len(row)} in record {record}"
                )
            row = [row[c] for c in cols]
        if len(row) != len(defaults):
            raise InvalidArgumentError(
                None, op, f"Expect {len(defaults)} fields but have {len(row)} in record {record}"
            )
        for i, (field, (dt, default)) in enumerate(zip(row, defaults)):
            if field == "" or field == na_value:
                if default is None:
                    raise InvalidArgumentError(
                        None, op, f"Field {i} is required but missing in record {record}!"
                    )
                value = default[()]
                out[i][index] = bytes(value) if dt == dtypes.string else value
            else:
                out[i][index] = _parse_field(field, dt, i, record, op)[()]
    return [make(column, CPU) for column in out]


class CsvDataset(Dataset):
    """The records of CSV files, each a tuple of scalars (follows
    `tf.data.experimental.CsvDataset`).

    Args:
        filenames: a path, a list of paths, a string Tensor or a Dataset of paths.
        record_defaults: one entry per selected column: a dtype (float32, float64, int32,
            int64, string: the column is required) or a scalar default value (used when the
            field is empty or equals ``na_value``).
        compression_type: None or "", "ZLIB", "GZIP". buffer_size: read buffer in bytes.
        header: skip each file's first line. field_delim: one character.
        use_quote_delim: double quotes enclose fields (else they are ordinary characters).
        na_value: a field with this text counts as missing.
        select_cols: sorted indices of the columns to read (exclusive with ``exclude_cols``).
        exclude_cols: indices of columns to skip.

    Raises:
        ValueError / TypeError: bad arguments. (While iterating) InvalidArgumentError: a
        record with the wrong number of fields, a required field missing, or a field that does
        not parse; NotFoundError: a missing file.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "a.csv")
    >>> _ = open(path, "w").write("a,b\\n1,2.5\\n,3\\n")
    >>> ds = ek.data.experimental.CsvDataset(path, [ek.constant(0), ek.float32], header=True)
    >>> [(int(a), float(b)) for a, b in ds]
    [(1, 2.5), (0, 3.0)]
    """

    def __init__(
        self,
        filenames,
        record_defaults,
        compression_type=None,
        buffer_size=None,
        header=False,
        field_delim=",",
        use_quote_delim=True,
        na_value="",
        select_cols=None,
        exclude_cols=None,
        name=None,
    ):
        super().__init__()
        op = "CsvDataset"
        self._files = filenames_arg(filenames, op)
        self._compression = compression_arg(compression_type, op)
        self._buffer_size = buffer_size_arg(buffer_size, op)
        if not isinstance(record_defaults, (list, tuple)) or not record_defaults:
            raise ValueError(f"{op}: record_defaults must be a non-empty list.")
        self._defaults = [_record_default(v, i) for i, v in enumerate(record_defaults)]
        if len(field_delim) != 1:
            raise ValueError(
                f"{op}: field_delim must be one character. Received: field_delim={field_delim!r}"
            )
        if select_cols is not None and exclude_cols is not None:
            raise InvalidArgumentError(
                None, op, f"{op}: either select_cols or exclude_cols should be empty."
            )
        if select_cols is not None:
            cols = [int(c) for c in select_cols]
            if any(b <= a for a, b in itertools.pairwise(cols)) or (cols and cols[0] < 0):
                raise InvalidArgumentError(
                    None, op, f"{op}: select_cols must be sorted, unique and non-negative."
                )
            if len(cols) != len(self._defaults):
                raise ValueError(
                    f"{op}: len(select_cols) ({len(cols)}) must equal len(record_defaults) "
                    f"({len(self._defaults)})."
                )
        self._select = None if select_cols is None else [int(c) for c in select_cols]
        self._exclude = None if exclude_cols is None else sorted(int(c) for c in exclude_cols)
        self._header = bool(header)
        self._delim = field_delim
        self._quote = bool(use_quote_delim)
        self._na = na_value
        self._ignore_errors = False  # make_csv_dataset(ignore_errors=True) sets it

    def _rows(self, path):
        """The rows of one file, as lists of str."""
        op = "CsvDataset"
        with open_stream(path, self._compression, self._buffer_size, op) as raw:
            text = io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape", newline="")
            quoting = csv.QUOTE_MINIMAL if self._quote else csv.QUOTE_NONE
            reader = csv.reader(text, delimiter=self._delim, quoting=quoting, strict=False)
            first = True
            for row in reader:
                if first and self._header:
                    first = False
                    continue
                first = False
                # a blank line is a record of one empty field (as TensorFlow's CSVDataset)
                yield row or [""]
            if first and self._header:
                raise InvalidArgumentError(None, "CSVDataset", f"Can't read header of file {path}")

    def _record(self, row, record: int):
        if self._select is not None:
            if self._select and self._select[-1] >= len(row):
                raise InvalidArgumentError(
                    None,
                    "CSVDataset",
                    f"Expect {self._select[-1] + 1} fields but have {len(row)} in record {record}",
                )
            row = [row[c] for c in self._select]
        elif self._exclude is not None:
            row = [f for c, f in enumerate(row) if c not in self._exclude]
        if len(row) != len(self._defaults):
            raise InvalidArgumentError(
                None,
                "CSVDataset",
                f"Expect {len(self._defaults)} fields but have {len(row)} in record {record}",
            )
        out = []
        for i, (field, (dt, default)) in enumerate(zip(row, self._defaults)):
            if field == "" or field == self._na:
                if default is None:
                    raise InvalidArgumentError(
                        None,
                        "CSVDataset",
                        f"Field {i} is required but missing in record {record}!",
                    )
                out.append(make(default.copy() if default.dtype == _OBJ else default[()], CPU))
            else:
                out.append(make(_parse_field(field, dt, i, record), CPU))
        return tuple(out)

    def _iter(self, ctx):
        for path in self._files:
            for record, row in enumerate(self._rows(path)):
                try:
                    yield self._record(row, record)
                except InvalidArgumentError:
                    if not self._ignore_errors:
                        raise

    def _spec(self, peek):
        return tuple(TensorSpec((), dt) for dt, _ in self._defaults)


# -- make_csv_dataset ---------------------------------------------------------------------------


def _infer_type(text: str, na_value: str, prev):
    """TensorFlow's CSV type inference: the narrowest of int32, int64, float32, float64,
    string that every value seen so far fits."""
    if text in ("", na_value):
        return prev
    order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64, dtypes.string]

    def fits(dt) -> bool:
        try:
            if dt.is_integer:
                v = int(text)
                info = np.iinfo(dt.as_numpy_dtype)
                return info.min <= v <= info.max
            if dt.is_floating:
                with np.errstate(over="ignore"):
                    return bool(np.abs(dt.as_numpy_dtype(float(text))) < np.inf)
        except ValueError:
            return False
        return True

    for i, dt in enumerate(order):
        if fits(dt) and (prev is None or prev in order[: i + 1]):
            return dt
    return dtypes.string


def make_csv_dataset(
    file_pattern,
    batch_size,
    column_names=None,
    column_defaults=None,
    label_name=None,
    select_columns=None,
    field_delim=",",
    use_quote_delim=True,
    na_value="",
    header=True,
    num_epochs=None,
    shuffle=True,
    shuffle_buffer_size=10000,
    shuffle_seed=None,
    prefetch_buffer_size=None,
    num_parallel_reads=None,
    sloppy=False,
    num_rows_for_inference=100,
    compression_type=None,
    ignore_errors=False,
    encoding="utf-8",
):
    """Batches of ``(features, label)`` read from CSV files: ``features`` an OrderedDict of
    column name to a batch of values (follows `tf.data.experimental.make_csv_dataset`).

    Column names come from the header (or ``column_names``), column types from
    ``column_defaults`` or by inference over the first ``num_rows_for_inference`` rows
    (int32, int64, float32, float64, string; missing values default to 0 or ""). Files are
    shuffled and records shuffled with ``shuffle_buffer_size`` when ``shuffle``; the data
    repeats ``num_epochs`` times (None: forever, and the last partial batch is dropped).
    ``sloppy`` allows a nondeterministic order; this reader is always deterministic.

    Raises:
        ValueError: no file matches, no column names, ``label_name`` or ``select_columns``
            not among the columns, or ``column_defaults`` of the wrong length.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "a.csv")
    >>> _ = open(path, "w").write("x,y,label\\n1,a,0\\n2,b,1\\n")
    >>> ds = ek.data.experimental.make_csv_dataset(path, batch_size=2, label_name="label",
    ...                                            num_epochs=1, shuffle=False)
    >>> features, label = next(iter(ds))
    >>> list(features), features["x"].numpy(), label.numpy()
    (['x', 'y'], array([1, 2], dtype=int32), array([0, 1], dtype=int32))
    """
    op = "make_csv_dataset"
    files = _match(file_pattern, op)
    compression = compression_arg(compression_type, op)
    batch = int_arg(batch_size, op, "batch_size")
    if batch <= 0:
        raise ValueError(f"{op}: batch_size must be positive. Received: batch_size={batch}")
    if num_epochs is not None and int_arg(num_epochs, op, "num_epochs") < 0:
        raise ValueError(f"{op}: num_epochs must be None or >= 0. Received: {num_epochs}")
    first_rows = _first_rows(
        files[0], compression, field_delim, use_quote_delim, encoding, num_rows_for_inference + 1
    )
    if column_names is None:
        if not header:
            raise ValueError(f"{op}: cannot infer column names without a header line.")
        if not first_rows:
            raise ValueError(f"{op}: {files[0]} is empty, so it has no header line.")
        column_names = first_rows[0]
    column_names = list(column_names)
    if len(set(column_names)) != len(column_names):
        raise ValueError(f"{op}: column names must be unique. Received: {column_names}")
    data_rows = first_rows[1:] if header else first_rows
    if select_columns is not None:
        cols = [_column_index(c, column_names, op) for c in select_columns]
        cols = sorted(set(cols))
    else:
        cols = list(range(len(column_names)))
    if label_name is not None and label_name not in [column_names[c] for c in cols]:
        raise ValueError(
            f"{op}: label_name {label_name!r} is not among the columns "
            f"{[column_names[c] for c in cols]}."
        )
    if column_defaults is not None:
        defaults = list(column_defaults)
        if len(defaults) != len(cols):
            raise ValueError(
                f"{op}: column_defaults must have one entry per selected column "
                f"({len(cols)}), got {len(defaults)}."
            )
    else:
        defaults = []
        for c in cols:
            dt = None
            for row in data_rows[:num_rows_for_inference]:
                if c < len(row):
                    dt = _infer_type(row[c], na_value, dt)
            dt = dt or dtypes.string
            defaults.append(_constant("" if dt == dtypes.string else 0, dt))
    names = [column_names[c] for c in cols]

    def reader(path):
        ds = CsvDataset(
            path,
            defaults,
            compression_type=compression_type,
            header=header,
            field_delim=field_delim,
            use_quote_delim=use_quote_delim,
            na_value=na_value,
            select_cols=cols if select_columns is not None else None,
        )
        ds._ignore_errors = bool(ignore_errors)
        return ds

    readers = [reader(f) for f in files]
    if shuffle:
        order = np.random.default_rng(shuffle_seed).permutation(len(readers))
        readers = [readers[i] for i in order]
    cycle = parallel_reads_arg(num_parallel_reads, op)
    ds = _Interleaved(readers, cycle)
    if shuffle:
        ds = ds.shuffle(int_arg(shuffle_buffer_size, op, "shuffle_buffer_size"), seed=shuffle_seed)
    if num_epochs != 1:
        ds = ds.repeat(num_epochs)
    ds = ds.batch(batch, drop_remainder=num_epochs is None)

    def to_features(*columns):
        features = collections.OrderedDict(zip(names, columns))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label

    ds = ds.map(to_features)
    from .dataset import AUTOTUNE

    return ds.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)


def _constant(value, dt):
    from ..core.tensor import constant

    return constant(value, dt)


class _Interleaved(Dataset):
    """CSV readers of several files, one record from each in turn (``cycle`` at once)."""

    def __init__(self, readers, cycle: int):
        super().__init__()
        self._readers = readers
        self._cycle = cycle

    def _iter(self, ctx):
        its = [r._iter(ctx) for r in self._readers]
        return round_robin(its, self._cycle) if self._cycle > 1 else chain_iterators(its)

    def _spec(self, peek):
        return self._readers[0]._spec(peek)


def _match(file_pattern, op: str) -> list:
    patterns = [file_pattern] if isinstance(file_pattern, (str, bytes)) else list(file_pattern)
    files = []
    for p in patterns:
        p = _path(p)
        matched = sorted(glob.glob(p))
        if not matched:
            raise ValueError(f"{op}: no files match file_pattern {p!r}.")
        files.extend(matched)
    return files


def _first_rows(path, compression, delim, quote, encoding, n):
    rows = []
    with open_stream(path, compression, io.DEFAULT_BUFFER_SIZE, "make_csv_dataset") as raw:
        text = io.TextIOWrapper(raw, encoding=encoding, newline="")
        quoting = csv.QUOTE_MINIMAL if quote else csv.QUOTE_NONE
        for row in csv.reader(text, delimiter=delim, quoting=quoting):
            if row:
                rows.append(row)
            if len(rows) >= n:
                break
    return rows


def _column_index(c, names, op) -> int:
    if isinstance(c, (int, np.integer)):
        if not 0 <= int(c) < len(names):
            raise ValueError(f"{op}: select_columns index {c} is out of range.")
        return int(c)
    if c not in names:
        raise ValueError(f"{op}: select_columns name {c!r} is not a column ({names}).")
    return names.index(c)
