"""A mutable hash table (follows `tf.lookup.experimental.MutableHashTable`)."""

from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, convert_to_tensor
from .tables import HashTableBase, key_tensor

__all__ = ["MutableHashTable"]


class MutableHashTable(HashTableBase):
    """A table whose entries are inserted and removed after it is built (follows
    `tf.lookup.experimental.MutableHashTable`).

    Values may be vectors or arrays: their shape is ``default_value``'s, and `lookup` gives
    ``keys.shape + value_shape``.

    Args:
        key_dtype: the keys' dtype (``ek.string`` or an integer dtype).
        value_dtype: the values' dtype.
        default_value: the value of missing keys (a scalar or an array of the value shape).
        name: the table's name (default ``"MutableHashTable"``).

    Raises:
        TypeError: ``default_value`` not convertible to ``value_dtype``.

    >>> table = ek.lookup.experimental.MutableHashTable(
    ...     key_dtype=ek.string, value_dtype=ek.int64, default_value=-1)
    >>> table.insert(ek.constant(["a", "b", "c"]), ek.constant([7, 8, 9], dtype=ek.int64))
    >>> table.lookup(ek.constant(["a", "f"])).numpy()
    array([ 7, -1])
    >>> table.remove(ek.constant(["c"]))
    >>> table.lookup(ek.constant(["a", "b", "c", "d"])).numpy()
    array([ 7,  8, -1, -1])
    >>> table.size().numpy()
    np.int64(2)
    """

    def __init__(
        self,
        key_dtype,
        value_dtype,
        default_value,
        name="MutableHashTable",
        checkpoint=True,
        experimental_is_anonymous=False,
    ):
        super().__init__(key_dtype, value_dtype, default_value, name or "MutableHashTable")

    def _keys(self, keys) -> np.ndarray:
        return key_tensor(keys, self._key_dtype, f"MutableHashTable {self._name!r}").numpy()

    def insert(self, keys, values, name=None) -> None:
        """Sets the values of ``keys`` (new keys are added, present ones overwritten).

        Args:
            keys: a Tensor of ``key_dtype``, any shape.
            values: ``keys.shape + value_shape`` values, converted to ``value_dtype``.

        Raises:
            InvalidArgumentError (also a TypeError): keys of another dtype.
            TypeError: values not convertible to ``value_dtype``.
            InvalidArgumentError: values of another shape.
        """
        k = self._keys(keys)
        if isinstance(values, Tensor) and values.dtype != self._value_dtype:
            raise TypeError(
                f"MutableHashTable {self._name!r}: Dtype of argument `values` must be "
                f"{self._value_dtype.name}, received: {values.dtype.name}"
            )
        v = convert_to_tensor(values, dtype=self._value_dtype).numpy()
        expected = (*k.shape, *self._value_shape)
        if v.shape != expected:
            raise InvalidArgumentError(
                f"MutableHashTable {self._name!r}: Expected shape {list(expected)} for value, "
                f"got {list(v.shape)}"
            )
        self._put(k, v.reshape(-1, *self._value_shape), overwrite=True)

    def remove(self, keys, name=None) -> None:
        """Removes ``keys`` (a Tensor of ``key_dtype``, any shape); absent keys are ignored.

        Raises:
            InvalidArgumentError (also a TypeError): keys of another dtype.
        """
        index = self._index
        gone = [index.pop(k) for k in self._keys(keys).reshape(-1).tolist() if k in index]
        if gone and len(gone) * 2 > len(self._rows):  # compact, so removed rows do not pile up
            rows = np.fromiter(index.values(), np.int64, len(index))
            self._rows = self._rows[rows]
            self._index = dict(zip(index, range(len(index))))

    def import_(self, keys, values, name=None) -> None:
        """Replaces the contents by ``keys`` and ``values`` (as `insert` takes them)."""
        self._index = {}
        self._rows = self._rows[:0]
        self.insert(keys, values)


# TensorFlow's method is ``import`` (a Python keyword): reachable as getattr(table, "import").
setattr(MutableHashTable, "import", MutableHashTable.import_)
