"""`ek.data`: tf.data-style input pipelines (follows `tf.data`).

>>> ds = ek.data.Dataset.from_tensor_slices((np.arange(6), np.arange(6) * 10))
>>> ds = ds.shuffle(6, seed=0).batch(4).prefetch(ek.data.AUTOTUNE)
>>> [x.shape for x, y in ds]
[TensorShape([4]), TensorShape([2])]
"""

from __future__ import annotations

from . import experimental
from .dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from .fixed_length import FixedLengthRecordDataset
from .iterator import Iterator, NumpyIterator
from .options import Options, ThreadingOptions
from .readers import TextLineDataset
from .structure import DatasetSpec, TensorSpec
from .tfrecord import TFRecordDataset

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Dataset",
    "DatasetSpec",
    "FixedLengthRecordDataset",
    "Iterator",
    "NumpyIterator",
    "Options",
    "TFRecordDataset",
    "TensorSpec",
    "TextLineDataset",
    "ThreadingOptions",
    "experimental",
]
