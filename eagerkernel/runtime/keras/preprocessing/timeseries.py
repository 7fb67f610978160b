"""`timeseries_dataset_from_array` (follows `tf.keras.utils.timeseries_dataset_from_array`)."""

from __future__ import annotations

import numpy as np

__all__ = ["timeseries_dataset_from_array"]


def _positive(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(
            f"timeseries_dataset_from_array: `{name}` must be a positive integer. Received: "
            f"{name}={value!r}"
        )
    return int(value)


def timeseries_dataset_from_array(
    data,
    targets,
    sequence_length,
    sequence_stride=1,
    sampling_rate=1,
    batch_size=128,
    shuffle=False,
    seed=None,
    start_index=None,
    end_index=None,
):
    """An `ek.data.Dataset` of sliding windows over ``data`` (axis 0 is time).

    Window ``k`` starts at ``i = start_index + k * sequence_stride`` and holds ``data[i],
    data[i + sampling_rate], ..., data[i + (sequence_length - 1) * sampling_rate]``; its target
    is ``targets[i]``. Windows run over ``data[start_index:end_index]`` (default: all);
    ``shuffle`` shuffles the windows (with ``seed``); ``batch_size=None`` yields single
    windows. ``targets=None`` gives windows only.

    Raises:
        ValueError: non-positive lengths, strides, rates or batch size; indices out of range;
            ``targets`` of another length than ``data`` (Keras's messages).

    >>> ds = timeseries_dataset_from_array(np.arange(10), None, sequence_length=3,
    ...                                    sequence_stride=3, batch_size=None)
    >>> [w.numpy().tolist() for w in ds]
    [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    """
    from ...data import Dataset

    op = "timeseries_dataset_from_array"
    sequence_length = _positive("sequence_length", sequence_length)
    sequence_stride = _positive("sequence_stride", sequence_stride)
    sampling_rate = _positive("sampling_rate", sampling_rate)
    if batch_size is not None:
        batch_size = _positive("batch_size", batch_size)
    data = np.asarray(getattr(data, "numpy", lambda: data)())
    if targets is not None:
        targets = np.asarray(getattr(targets, "numpy", lambda: targets)())
        if len(targets) != len(data):
            raise ValueError(
                f"{op}: expected data and targets to have the same number of time steps "
                f"(axis 0) but got data.shape={data.shape}, targets.shape={targets.shape}"
            )
    start = 0 if start_index is None else int(start_index)
    end = len(data) if end_index is None else int(end_index)
    if not 0 <= start < len(data):
        raise ValueError(
            f"{op}: `start_index` must be 0 or greater and smaller than the length of the "
            f"data. Received: start_index={start_index!r}, for data of length {len(data)}"
        )
    if not start < end <= len(data):
        raise ValueError(
            f"{op}: `end_index` must be higher than `start_index` and at most the length of "
            f"the data. Received: start_index={start}, end_index={end_index!r}, for data of "
            f"length {len(data)}"
        )
    n = end - start - (sequence_length - 1) * sampling_rate
    if targets is not None:
        n = min(n, len(targets) - start)
    starts = np.arange(0, max(n, 0), sequence_stride)
    if shuffle:
        np.random.RandomState(seed if seed is not None else np.random.randint(1_000_000)).shuffle(
            starts
        )
    offsets = np.arange(sequence_length) * sampling_rate
    windows = data[start + starts[:, None] + offsets]  # (windows, sequence_length, ...)
    ds = Dataset.from_tensor_slices(windows)
    if targets is not None:
        ds = Dataset.zip((ds, Dataset.from_tensor_slices(targets[start + starts])))
    if batch_size is not None:
        ds = ds.batch(batch_size)
    return ds
