"""Lookup tables filled from a Dataset: `DatasetInitializer`, `table_from_dataset` and
`index_table_from_dataset` (follow `tf.data.experimental`'s)."""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.tensor import Tensor
from ..lookup import StaticHashTable, StaticVocabularyTable
from ..lookup.initializers import KeyValueDtypes
from .dataset import Dataset
from .error_checks import AssertCardinality
from .structure import TensorSpec

__all__ = ["DatasetInitializer", "index_table_from_dataset", "table_from_dataset"]

_BASE = (
    "Datasets used to initialize lookup tables must produce elements in the form (key, value), "
    "where the keys and values are scalar tensors. "
)


def _check_element_spec(spec) -> None:
    if not isinstance(spec, tuple) or len(spec) != 2:
        n = len(spec) if isinstance(spec, tuple) else 1
        raise ValueError(
            f"{_BASE}However, the given dataset produces {n} components instead of two "
            f"(key, value) components. Full dataset element spec: {spec}."
        )
    for what, s in zip(("keys", "values"), spec):
        if not isinstance(s, TensorSpec):
            raise ValueError(
                f"{_BASE}However, the given dataset produces non-Tensor {what} of type {type(s)}."
            )
        if s.shape.rank not in (None, 0):
            raise ValueError(
                f"{_BASE}However, the given dataset produces non-scalar {what[:-1]} Tensors "
                f"of rank {s.shape.rank}."
            )


class DatasetInitializer(KeyValueDtypes):
    """A table initializer reading ``(key, value)`` scalar pairs from a Dataset (follows
    `tf.data.experimental.DatasetInitializer`); a static table reads the dataset once, when it
    is built.

    Args:
        dataset: a Dataset whose elements are ``(key, value)`` pairs of scalar tensors.

    Attributes:
        dataset: the dataset; key_dtype, value_dtype: its components' dtypes.

    Raises:
        ValueError: elements that are not pairs of scalar tensors.

    >>> keys = ek.data.Dataset.range(100)
    >>> values = ek.data.Dataset.range(100).map(lambda x: ek.strings.as_string(x * 2))
    >>> init = ek.data.experimental.DatasetInitializer(ek.data.Dataset.zip((keys, values)))
    >>> table = ek.lookup.StaticHashTable(init, "")
    >>> table.lookup(ek.constant([0, 1, 2], dtype=ek.int64)).numpy()
    array([b'0', b'2', b'4'], dtype=object)
    """

    def __init__(self, dataset: Dataset):
        self.dataset = dataset
        spec = dataset.element_spec
        _check_element_spec(spec)
        self._key_dtype, self._value_dtype = spec[0].dtype, spec[1].dtype

    def arrays(self) -> tuple:
        """``(keys, values)``: two NumPy vectors read from one pass over the dataset."""
        keys, values = [], []
        for k, v in self.dataset:
            keys.append(k.numpy())
            values.append(v.numpy())
        return (
            np.array(keys, dtype=self._key_dtype.as_numpy_dtype),
            np.array(values, dtype=self._value_dtype.as_numpy_dtype),
        )


def table_from_dataset(
    dataset=None,
    num_oov_buckets=0,
    vocab_size=None,
    default_value=None,
    hasher_spec=None,
    key_dtype=dtypes.string,
    name=None,
):
    """A lookup table from a dataset of ``(key, value)`` scalar pairs (follows
    `tf.data.experimental.table_from_dataset`).

    Missing keys get ``default_value`` (default -1, for integer or float values), or with
    ``num_oov_buckets`` > 0 an id ``vocabulary size + Fingerprint64(key) % num_oov_buckets``
    (values must then be int64; integer keys are hashed as decimal strings, as TF's
    ``FastHashSpec``).

    Args:
        dataset: a Dataset of ``(key, value)`` pairs of scalars.
        num_oov_buckets: the number of out-of-vocabulary buckets, >= 0.
        vocab_size: if given, only the first ``vocab_size`` pairs are read (> 0; the dataset
            must have at least that many).
        default_value: the value of missing keys.
        hasher_spec: only TF's default (``FastHashSpec``, given as None) is supported.
        key_dtype: the keys' dtype, integer or string.
        name: ignored (TensorFlow's op name).

    Returns:
        A `StaticHashTable`, or with OOV buckets a `StaticVocabularyTable`.

    Raises:
        ValueError: elements that are not pairs of scalars, no ``default_value`` for
            non-numeric values, negative ``num_oov_buckets``, ``vocab_size`` < 1.
        TypeError: a ``key_dtype`` neither integer nor string.

    >>> keys = ek.data.Dataset.range(100)
    >>> values = ek.data.Dataset.range(100).map(lambda x: ek.strings.as_string(x * 2))
    >>> ds = ek.data.Dataset.zip((keys, values))
    >>> table = ek.data.experimental.table_from_dataset(
    ...     ds, default_value='n/a', key_dtype=ek.int64)
    >>> table.lookup(ek.constant([0, 1, 2], dtype=ek.int64)).numpy()
    array([b'0', b'2', b'4'], dtype=object)
    """
    spec = dataset.element_spec
    _check_element_spec(spec)
    if default_value is None:
        default_value = -1
        if not (spec[1].dtype.is_integer or spec[1].dtype.is_floating):
            raise ValueError(
                "`default_value` must be specified when creating a table from a dataset that "
                f"produces values of type {spec[1].dtype}."
            )
    if num_oov_buckets < 0:
        raise ValueError(
            f"`num_oov_buckets` must be greater than or equal to 0, got {num_oov_buckets}."
        )
    if not isinstance(vocab_size, Tensor) and vocab_size is not None and vocab_size < 1:
        raise ValueError(f"`vocab_size` must be greater than 0, got {vocab_size}.")
    key_dtype = dtypes.as_dtype(key_dtype)
    if not key_dtype.is_integer and key_dtype != dtypes.string:
        raise TypeError(
            f"`key_dtype` must be either an integer or string type, but got {key_dtype}"
        )
    if hasher_spec is not None:  # eagerkernel has no HasherSpec objects
        raise NotImplementedError(
            "table_from_dataset: only the default hasher_spec (FastHashSpec) is supported."
        )
    if vocab_size is not None:
        n = int(vocab_size)
        dataset = AssertCardinality(dataset.take(n), n)
    initializer = DatasetInitializer(dataset)
    if num_oov_buckets:
        return StaticVocabularyTable(initializer, num_oov_buckets, lookup_key_dtype=key_dtype)
    return StaticHashTable(initializer, default_value)


def index_table_from_dataset(
    dataset=None,
    num_oov_buckets=0,
    vocab_size=None,
    default_value=-1,
    hasher_spec=None,
    key_dtype=dtypes.string,
    name=None,
):
    """A table mapping each key of a dataset of scalars to its int64 position (follows
    `tf.data.experimental.index_table_from_dataset`): `table_from_dataset` on
    ``(key, index)`` pairs, with the same arguments and errors.

    >>> ds = ek.data.Dataset.range(100).map(lambda x: ek.strings.as_string(x * 2))
    >>> table = ek.data.experimental.index_table_from_dataset(ds)
    >>> table.lookup(ek.constant(['0', '2', '4', 'x'])).numpy()
    array([ 0,  1,  2, -1])
    """
    pairs = dataset.enumerate().map(lambda v, k: (k, v))
    return table_from_dataset(
        pairs, num_oov_buckets, vocab_size, default_value, hasher_spec, key_dtype, name
    )
