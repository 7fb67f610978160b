"""TensorFlow's class names for eagerkernel's datasets, as `Dataset.__repr__` shows them."""

from __future__ import annotations

__all__ = ["tf_class_name"]

# TensorFlow 2.21's class names where they are not ``_<name>Dataset`` of ours (its reprs).
_TF_CLASS_NAMES = {
    "Cache": "CacheDataset",
    "TensorSlices": "_TensorSliceDataset",
    "Tensors": "_TensorDataset",
    "Enumerate": "_ZipDataset",
    "Generator": "_FlatMapDataset",
    "WithOptions": "_OptionsDataset",
    "Counter": "_ScanDataset",
    "SampleFromDatasets": "_DirectedInterleaveDataset",
    "ChooseFromDatasets": "_DirectedInterleaveDataset",
    "RaggedBatch": "_BatchDataset",
    "RandomSource": "_RandomDataset",
    "TextLineDataset": "TextLineDatasetV2",
    "CsvDataset": "CsvDatasetV2",
    "TFRecordDataset": "TFRecordDatasetV2",
    "FixedLengthRecordDataset": "FixedLengthRecordDatasetV2",
}


def tf_class_name(cls: type) -> str:
    """The name TensorFlow's ``repr`` gives the dataset that ``cls`` implements: ``Batch`` ->
    ``_BatchDataset``, ``Cache`` -> ``CacheDataset``, ``TextLineDataset`` ->
    ``TextLineDatasetV2``. A class defined outside eagerkernel keeps its own name."""
    name = cls.__name__
    if not cls.__module__.startswith("eagerkernel."):
        return name
    return _TF_CLASS_NAMES.get(name, name if name.endswith("Dataset") else f"_{name}Dataset")
