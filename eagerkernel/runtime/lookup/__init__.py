"""`ek.lookup`: lookup tables (follows `tf.lookup`).

Tables map string or integer keys to values; lookups take Tensors of any shape, RaggedTensors
and SparseTensors, and run on the host (see `tables`).

>>> init = ek.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2], value_dtype=ek.int64)
>>> ek.lookup.StaticHashTable(init, default_value=0)[ek.constant([["b"], ["z"]])].numpy()
array([[2],
       [0]])
"""

from __future__ import annotations

from . import experimental
from .initializers import KeyValueTensorInitializer, TextFileIndex, TextFileInitializer
from .tables import StaticHashTable, StaticVocabularyTable

__all__ = [
    "KeyValueTensorInitializer",
    "StaticHashTable",
    "StaticVocabularyTable",
    "TextFileIndex",
    "TextFileInitializer",
    "experimental",
]
