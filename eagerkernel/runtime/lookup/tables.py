"""Hash tables (follow `tf.lookup.StaticHashTable` and `tf.lookup.StaticVocabularyTable`).

A table maps keys (strings, held as `bytes` in object arrays as all string tensors are, or
integers) to values of one dtype and shape. Lookups take a Tensor of keys of any shape, or a
RaggedTensor or SparseTensor (their values are looked up, their structure kept), and give the
values in the keys' shape (followed by the value shape); a missing key gives the default
value. A lookup is the primitive ``LookupTableFindV2``, run by the dispatcher on the host, and
has no gradient.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.dispatch import Primitive, defvjp, dispatch
from ..core.errors import DTypeMismatchError, FailedPreconditionError, InvalidArgumentError
from ..core.tensor import Tensor, convert_to_tensor, make
from ..ops.elementwise import cast, not_equal, where
from ..ops.strings import as_string, to_hash_bucket_fast
from ..ragged.ragged_tensor import RaggedTensor
from ..sparse.sparse_tensor import SparseTensor
from .initializers import KeyValueDtypes

__all__ = ["HashTableBase", "StaticHashTable", "StaticVocabularyTable", "key_tensor"]


def key_tensor(keys, key_dtype: dtypes.DType, table: str) -> Tensor:
    """``keys`` as a Tensor of ``key_dtype``: a Python or NumPy value is converted; a Tensor of
    another dtype raises `DTypeMismatchError` (an InvalidArgumentError and a TypeError) naming
    ``table`` and both dtypes."""
    if isinstance(keys, Tensor):
        if keys.dtype != key_dtype:
            raise DTypeMismatchError(
                f"{table}: Dtype of argument `keys` must be {key_dtype.name}, received: "
                f"{keys.dtype.name}"
            )
        return keys if type(keys) is Tensor else convert_to_tensor(keys)
    try:
        return convert_to_tensor(keys, dtype=key_dtype)
    except (TypeError, ValueError) as exc:
        raise DTypeMismatchError(
            f"{table}: keys must be convertible to {key_dtype.name}; {exc}"
        ) from None


def map_values(fn, keys):
    """``fn`` of the values of a RaggedTensor or SparseTensor (the structure kept), or of
    ``keys`` itself."""
    if isinstance(keys, RaggedTensor):
        return keys.with_flat_values(fn(keys.flat_values))
    if isinstance(keys, SparseTensor):
        return keys.with_values(fn(keys.values))
    return fn(keys)


def _find_fwd(xp, keys, table):
    return table.find(np.asarray(keys))


_find = Primitive("LookupTableFindV2", _find_fwd)
defvjp(_find, None)


class HashTableBase(KeyValueDtypes):
    """The storage and lookup shared by eagerkernel's tables: a dict from key to a row of a
    values array, and a default value (of the value shape). Not a TensorFlow name."""

    def __init__(self, key_dtype, value_dtype, default_value, name: str):
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)
        self._name = name
        try:
            default = convert_to_tensor(default_value, dtype=self._value_dtype)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"{type(self).__name__}: default_value must be convertible to the value dtype "
                f"{self._value_dtype.name}; {exc}"
            ) from None
        self._default = default
        self._value_shape = tuple(default._value.shape)
        self._index: dict = {}
        self._rows = np.empty((0, *self._value_shape), dtypes.numpy_dtype(self._value_dtype))

    @property
    def default_value(self) -> Tensor:
        """The value of missing keys."""
        return self._default

    @property
    def name(self) -> str:
        """The table's name."""
        return self._name

    def _put(self, keys: np.ndarray, values: np.ndarray, overwrite: bool) -> None:
        rows, new = [], []
        count = len(self._rows)
        pending: dict = {}
        for i, k in enumerate(keys.reshape(-1).tolist()):
            row = self._index.get(k, pending.get(k))
            if row is None:
                row = pending[k] = count + len(new)
                new.append(i)
            elif not overwrite and not np.array_equal(self._row(row, values, new), values[i]):
                raise FailedPreconditionError(
                    f"{type(self).__name__}: HashTable has different value for same key. Key "
                    f"{_show(k)} has {_show(self._row(row, values, new))} and trying to add "
                    f"value {_show(values[i])}"
                )
            rows.append(row)
        if new:
            self._rows = np.concatenate([self._rows, values[new]])
        self._rows[rows] = values
        self._index.update(pending)

    def _row(self, row: int, values: np.ndarray, new: list):
        count = len(self._rows)
        return self._rows[row] if row < count else values[new[row - count]]

    def find(self, keys: np.ndarray) -> np.ndarray:
        """The values of ``keys`` (a NumPy array of any shape) as an array of shape
        ``keys.shape + value_shape``; missing keys get the default value."""
        get = self._index.get
        count = len(self._rows)
        flat = keys.reshape(-1).tolist()
        idx = np.fromiter((get(k, count) for k in flat), np.int64, len(flat))
        table = np.concatenate([self._rows, self._default._value[None]])
        out = table[idx].reshape(keys.shape + self._value_shape)
        if out.ndim == 0 and out.dtype != object:
            return out[()]  # a rank-0 number is a NumPy scalar, as other ops make it
        return out

    def lookup(self, keys, name=None):
        """The values of ``keys`` (follows `tf.lookup.StaticHashTable.lookup`).

        Args:
            keys: a Tensor of any shape, a RaggedTensor or a SparseTensor, of ``key_dtype``
                (Python values are converted to it).

        Returns:
            Values of ``value_dtype``, shape ``keys.shape + value_shape`` (the same kind of
            tensor as ``keys``); missing keys get ``default_value``.

        Raises:
            InvalidArgumentError (also a TypeError): keys of another dtype.
        """
        table = f"{type(self).__name__} {self._name!r}"
        return map_values(
            lambda k: dispatch(_find, (key_tensor(k, self._key_dtype, table),), {"table": self}),
            keys,
        )

    def __getitem__(self, keys):
        """``table[keys]`` is ``table.lookup(keys)``."""
        return self.lookup(keys)

    def size(self, name=None) -> Tensor:
        """The number of entries, an int64 scalar."""
        return make(np.int64(len(self._index)), self._default._device)

    def export(self, name=None) -> tuple:
        """``(keys, values)``: every entry, keys a vector of ``key_dtype`` and values of shape
        ``[size] + value_shape``, in insertion order (TensorFlow's is its hash order)."""
        keys = list(self._index)
        k = np.empty(len(keys), dtypes.numpy_dtype(self._key_dtype))
        k[:] = keys
        v = self._rows[list(self._index.values())]
        dev = self._default._device
        return make(k, dev), make(v, dev)


def _show(x) -> str:
    if isinstance(x, bytes):
        return x.decode("utf-8", "replace")
    return str(x.tolist() if isinstance(x, np.ndarray) else x)


class StaticHashTable(HashTableBase):
    """An immutable table built from an initializer (follows `tf.lookup.StaticHashTable`).

    Args:
        initializer: a `KeyValueTensorInitializer` or `TextFileInitializer`.
        default_value: the value of missing keys, a scalar converted to the initializer's
            value dtype.
        name: the table's name (default ``"hash_table"``).

    Attributes:
        key_dtype, value_dtype: the initializer's dtypes.

    Raises:
        TypeError: ``default_value`` not convertible to the value dtype.
        InvalidArgumentError: a non-scalar ``default_value``; the initializer's errors.
        FailedPreconditionError: one key given two different values.

    >>> keys_tensor = ek.constant(["a", "b", "c"])
    >>> vals_tensor = ek.constant([7, 8, 9])
    >>> table = ek.lookup.StaticHashTable(
    ...     ek.lookup.KeyValueTensorInitializer(keys_tensor, vals_tensor), default_value=-1)
    >>> table.lookup(ek.constant(["a", "f"])).numpy()
    array([ 7, -1], dtype=int32)
    >>> table[ek.ragged.constant([["a"], ["b", "f"]])]
    <RaggedTensor [[7], [8, -1]]>
    >>> table.size().numpy()
    np.int64(3)
    """

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        super().__init__(
            initializer.key_dtype, initializer.value_dtype, default_value, name or "hash_table"
        )
        if self._value_shape:
            raise InvalidArgumentError(
                f"StaticHashTable: default_value must be a scalar, got shape "
                f"{list(self._value_shape)}."
            )
        self._initializer = initializer
        keys, values = initializer.arrays()
        self._put(keys, values, overwrite=False)

    @property
    def initializer(self):
        """The initializer the table was built from."""
        return self._initializer


class StaticVocabularyTable(KeyValueDtypes):
    """An immutable table of ids that sends unknown keys to hash buckets (follows
    `tf.lookup.StaticVocabularyTable`).

    A key of the initializer gets its value; any other key gets
    ``vocab_size + Fingerprint64(key) % num_oov_buckets``, where ``vocab_size`` is the number
    of entries and integer keys are hashed as their decimal strings: FarmHash's Fingerprint64,
    the buckets of TensorFlow (via `ek.strings.to_hash_bucket_fast`, which needs pyfarmhash).

    Args:
        initializer: a `KeyValueTensorInitializer` or `TextFileInitializer` with int64
            values, or None (every key goes to a bucket).
        num_oov_buckets: the number of buckets, > 0.
        lookup_key_dtype: the dtype of the keys `lookup` takes (default the initializer's;
            int32 for an int64 table casts the keys).
        name: the table's name (default ``"hash_table"``).

    Raises:
        ValueError: ``num_oov_buckets`` <= 0.
        TypeError: values other than int64, keys neither strings nor integers.

    >>> init = ek.lookup.KeyValueTensorInitializer(
    ...     keys=ek.constant(["emerson", "lake", "palmer"]),
    ...     values=ek.constant([0, 1, 2], dtype=ek.int64))
    >>> table = ek.lookup.StaticVocabularyTable(init, num_oov_buckets=5)
    >>> table[ek.constant(["emerson", "lake", "palmer", "king", "crimson"])].numpy()
    array([0, 1, 2, 6, 7])
    >>> table.size().numpy()
    np.int64(8)
    """

    def __init__(
        self,
        initializer,
        num_oov_buckets,
        lookup_key_dtype=None,
        name=None,
        experimental_is_anonymous=False,
    ):
        if int(num_oov_buckets) <= 0:
            raise ValueError(
                "StaticVocabularyTable: `num_oov_buckets` must be > 0; use StaticHashTable. "
                f"Received: num_oov_buckets={num_oov_buckets}"
            )
        self._num_oov_buckets = int(num_oov_buckets)
        self._name = name or "hash_table"
        self._table = None
        if initializer is not None:
            if initializer.value_dtype != dtypes.int64:
                raise TypeError(
                    "StaticVocabularyTable: Invalid `value_dtype`, expected int64 but got "
                    f"{initializer.value_dtype.name}."
                )
            self._table = StaticHashTable(initializer, -1, name=self._name)
            key_dtype = initializer.key_dtype
        else:
            key_dtype = dtypes.string
        lookup_dtype = key_dtype if lookup_key_dtype is None else dtypes.as_dtype(lookup_key_dtype)
        for dtype, arg in ((key_dtype, "key_dtype"), (lookup_dtype, "lookup_key_dtype")):
            if not (dtype == dtypes.string or dtype.is_integer):
                raise TypeError(
                    f"StaticVocabularyTable: Invalid `{arg}`, expected string or an integer "
                    f"dtype but got {dtype.name}."
                )
        if (lookup_dtype == dtypes.string) != (key_dtype == dtypes.string):
            raise TypeError(
                f"StaticVocabularyTable: Invalid `lookup_key_dtype` {lookup_dtype.name} for "
                f"keys of dtype {key_dtype.name}."
            )
        self._key_dtype = lookup_dtype  # the dtype of the keys `lookup` takes
        self._value_dtype = dtypes.int64
        self._table_key_dtype = key_dtype

    @property
    def name(self) -> str:
        """The table's name."""
        return self._name

    def size(self, name=None) -> Tensor:
        """The number of ids, entries plus OOV buckets: an int64 scalar."""
        n = 0 if self._table is None else int(self._table.size()._value)
        return make(np.int64(n + self._num_oov_buckets), self._device())

    def _device(self):
        if self._table is not None:
            return self._table.default_value._device
        return convert_to_tensor(0)._device

    def _ids(self, keys: Tensor) -> Tensor:
        keys = key_tensor(keys, self._key_dtype, f"StaticVocabularyTable {self._name!r}")
        if keys.dtype != self._table_key_dtype:
            keys = cast(keys, self._table_key_dtype)
        text = keys if keys.dtype == dtypes.string else as_string(keys)
        buckets = to_hash_bucket_fast(text, self._num_oov_buckets)
        if self._table is None:
            return buckets
        ids = self._table.lookup(keys)
        size = make(np.int64(int(self._table.size()._value)), ids._device)
        return where(not_equal(ids, make(np.int64(-1), ids._device)), ids, buckets + size)

    def lookup(self, keys, name=None):
        """The ids of ``keys`` (follows `tf.lookup.StaticVocabularyTable.lookup`).

        Args:
            keys: a Tensor of any shape, a RaggedTensor or a SparseTensor of ``key_dtype``.

        Returns:
            int64 ids of the keys' shape (the same kind of tensor): the initializer's value,
            or ``vocab_size + bucket`` for other keys.

        Raises:
            InvalidArgumentError (also a TypeError): keys of another dtype.
        """
        return map_values(self._ids, keys)

    def __getitem__(self, keys):
        """``table[keys]`` is ``table.lookup(keys)``."""
        return self.lookup(keys)
