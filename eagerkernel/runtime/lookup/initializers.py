"""Table initializers (follow `tf.lookup.KeyValueTensorInitializer`,
`tf.lookup.TextFileInitializer` and `tf.lookup.TextFileIndex`).

An initializer holds the key/value pairs a static table is built from: two vectors of one
length, the keys of ``key_dtype`` (strings as `bytes`, integers) and the values of
``value_dtype``. `arrays` gives them as NumPy arrays; the table reads them once, when it is
built (TensorFlow's eager tables initialize at construction too).
"""

from __future__ import annotations

import os

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError, NotFoundError
from ..core.tensor import Tensor, convert_to_tensor

__all__ = ["KeyValueDtypes", "KeyValueTensorInitializer", "TextFileIndex", "TextFileInitializer"]


class KeyValueDtypes:
    """``key_dtype`` and ``value_dtype``, read from ``_key_dtype`` and ``_value_dtype`` (a
    table initializer's and a table's, as in `tf.lookup`)."""

    @property
    def key_dtype(self) -> dtypes.DType:
        """The dtype of the keys."""
        return self._key_dtype

    @property
    def value_dtype(self) -> dtypes.DType:
        """The dtype of the values."""
        return self._value_dtype


class TextFileIndex:
    """The special column indices of `TextFileInitializer` (follows `tf.lookup.TextFileIndex`):
    ``WHOLE_LINE`` (-2) takes the whole line, ``LINE_NUMBER`` (-1) the 0-based line number.

    >>> ek.lookup.TextFileIndex.WHOLE_LINE, ek.lookup.TextFileIndex.LINE_NUMBER
    (-2, -1)
    """

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class KeyValueTensorInitializer:
    """Table contents given as two tensors of keys and values (follows
    `tf.lookup.KeyValueTensorInitializer`).

    Args:
        keys: a vector (Tensor, array or list) of strings or integers.
        values: a vector of as many values.
        key_dtype, value_dtype: the dtypes to convert ``keys`` and ``values`` to (None: their
            own; Python ints give int32, Python strings ``ek.string``).
        name: ignored (TensorFlow's op name).

    Raises:
        TypeError: ``keys`` or ``values`` cannot be converted to the given dtype.
        InvalidArgumentError: keys that are not a vector, or a different number of values.

    >>> init = ek.lookup.KeyValueTensorInitializer(["a", "b"], [7, 8])
    >>> init.key_dtype, init.value_dtype
    (ek.string, ek.int32)
    """

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        op = "KeyValueTensorInitializer"
        k = convert_to_tensor(keys, dtype=key_dtype)
        v = convert_to_tensor(values, dtype=value_dtype)
        if k._value.ndim != 1:
            raise InvalidArgumentError(
                f"{op}: Keys must be a vector, but received shape {list(k._value.shape)}."
            )
        if v._value.shape != k._value.shape:
            raise InvalidArgumentError(
                f"{op}: Expected shape {list(k._value.shape)} for values, got "
                f"{list(v._value.shape)}."
            )
        self._keys, self._values = k, v
        self._name = name or "key_value_init"

    @property
    def key_dtype(self) -> dtypes.DType:
        """The dtype of the keys."""
        return self._keys.dtype

    @property
    def value_dtype(self) -> dtypes.DType:
        """The dtype of the values."""
        return self._values.dtype

    def arrays(self) -> tuple:
        """``(keys, values)``: two NumPy vectors of one length (eagerkernel's, not TF's)."""
        return self._keys.numpy(), self._values.numpy()


def _check_index(index: int, arg: str) -> int:
    index = int(index)
    if index < TextFileIndex.WHOLE_LINE:
        raise ValueError(
            f"TextFileInitializer: `{arg}` must be >= {TextFileIndex.WHOLE_LINE}. "
            f"Received: {arg}={index}"
        )
    return index


def _parse(token: bytes, dtype: dtypes.DType, filename: str, line_number: int):
    if dtype == dtypes.string:
        return token
    kind = "int64" if dtype.is_integer else "float"
    try:
        return int(token) if dtype.is_integer else float(token)
    except ValueError:
        raise InvalidArgumentError(
            f"TextFileInitializer: Field {token.decode('utf-8', 'replace')} in line "
            f"{line_number} of {filename} is not a valid {kind}."
        ) from None


class TextFileInitializer(KeyValueDtypes):
    """Table contents read from a text file, one entry per line (follows
    `tf.lookup.TextFileInitializer`).

    Each line is split at ``delimiter``; the key is column ``key_index`` and the value column
    ``value_index`` (0-based), or ``TextFileIndex.WHOLE_LINE`` (-2, the whole line) or
    ``TextFileIndex.LINE_NUMBER`` (-1, the 0-based line number, int64). Columns are parsed
    as the dtype (strings stay bytes). A final newline does not make an empty last line.

    Args:
        filename: the file's path (a str or a scalar string tensor).
        key_dtype, value_dtype: the key and value dtypes.
        key_index, value_index: the columns (see above).
        vocab_size: read only the first ``vocab_size`` lines (None: all).
        delimiter: the column separator (default a tab).
        value_index_offset: added to line numbers used as values (default 0).

    Raises:
        ValueError: an index below -2, ``LINE_NUMBER`` with a dtype other than int64,
            ``WHOLE_LINE`` keys that are neither strings nor integers, ``vocab_size`` <= 0.
        NotFoundError: (when a table reads it) the file does not exist.
        InvalidArgumentError: (when a table reads it) a line with too few columns, a field
            that does not parse, fewer lines than ``vocab_size``.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "vocab.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("emerson 10\\nlake 20\\npalmer 30\\n")
    >>> init = ek.lookup.TextFileInitializer(path, ek.string, 0, ek.int64, 1, delimiter=" ")
    >>> table = ek.lookup.StaticHashTable(init, default_value=-1)
    >>> table.lookup(ek.constant(["palmer", "lake", "tarkus"])).numpy()
    array([30, 20, -1])
    """

    def __init__(
        self,
        filename,
        key_dtype,
        key_index,
        value_dtype,
        value_index,
        vocab_size=None,
        delimiter="\t",
        name=None,
        value_index_offset=0,
    ):
        if isinstance(filename, Tensor):
            filename = filename.numpy()
        if isinstance(filename, bytes):
            filename = filename.decode("utf-8")
        self._filename = os.fspath(filename)
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)
        self._key_index = _check_index(key_index, "key_index")
        self._value_index = _check_index(value_index, "value_index")
        line = TextFileIndex.LINE_NUMBER
        for index, dtype, arg in (
            (self._key_index, self._key_dtype, "key"),
            (self._value_index, self._value_dtype, "value"),
        ):
            if index == line and dtype != dtypes.int64:
                raise ValueError(
                    f"TextFileInitializer: Signature mismatch. {arg.capitalize()}s must be "
                    f"dtype int64 with {arg}_index=LINE_NUMBER, got {dtype.name}."
                )
        whole = self._key_index == TextFileIndex.WHOLE_LINE
        if whole and not (self._key_dtype.is_integer or self._key_dtype == dtypes.string):
            raise ValueError(
                "TextFileInitializer: Signature mismatch. Keys must be integer or string "
                f"with key_index=WHOLE_LINE, got {self._key_dtype.name}."
            )
        if vocab_size is not None and int(vocab_size) <= 0:
            raise ValueError(
                f"TextFileInitializer: `vocab_size` must be greater than 0. Received: "
                f"vocab_size={vocab_size}"
            )
        self._vocab_size = None if vocab_size is None else int(vocab_size)
        self._delimiter = delimiter.encode("utf-8") if isinstance(delimiter, str) else delimiter
        self._offset = int(value_index_offset)
        self._name = name or "text_file_init"

    def _lines(self) -> list:
        try:
            with open(self._filename, "rb") as f:
                data = f.read()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise NotFoundError(
                None, None, f"{self._filename}; No such file or directory"
            ) from None
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        lines = [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]
        if self._vocab_size is not None:
            if len(lines) < self._vocab_size:
                raise InvalidArgumentError(
                    f"TextFileInitializer: Invalid vocab_size in {self._filename}: expected "
                    f"{self._vocab_size} but got {len(lines)}"
                )
            lines = lines[: self._vocab_size]
        return lines

    def _field(self, index: int, dtype, line: bytes, tokens: list, number: int):
        if index == TextFileIndex.LINE_NUMBER:
            return number
        if index == TextFileIndex.WHOLE_LINE:
            return _parse(line, dtype, self._filename, number)
        return _parse(tokens[index], dtype, self._filename, number)

    def arrays(self) -> tuple:
        """``(keys, values)`` read from the file: two NumPy vectors (eagerkernel's, not TF's).

        Raises:
            NotFoundError, InvalidArgumentError: see the class.
        """
        keys, values = [], []
        needed = max(self._key_index, self._value_index)
        for number, line in enumerate(self._lines()):
            tokens = line.split(self._delimiter) if needed >= 0 else []
            if needed >= len(tokens) and needed >= 0:
                raise InvalidArgumentError(
                    f"TextFileInitializer: Invalid number of columns in {self._filename} line "
                    f"{number} ({line.decode('utf-8', 'replace')}) : expected {needed + 1} got "
                    f"{len(tokens)}"
                )
            keys.append(self._field(self._key_index, self._key_dtype, line, tokens, number))
            value = self._field(self._value_index, self._value_dtype, line, tokens, number)
            if self._value_index == TextFileIndex.LINE_NUMBER:
                value += self._offset
            values.append(value)
        return _vector(keys, self._key_dtype), _vector(values, self._value_dtype)


def _vector(items: list, dtype: dtypes.DType) -> np.ndarray:
    np_dtype = dtypes.numpy_dtype(dtype)
    out = np.empty(len(items), dtype=np_dtype)
    out[:] = items
    return out
