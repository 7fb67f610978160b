"""`TimeseriesGenerator` (follows ``tf.keras.preprocessing.sequence.TimeseriesGenerator``,
Keras 3's ``keras.src.legacy.preprocessing.sequence``): windows of a series, batch by index,
as a `PyDataset` that `Model.fit`, `evaluate` and `predict` take."""

from __future__ import annotations

import json

import numpy as np

from ..py_dataset import PyDataset

__all__ = ["TimeseriesGenerator"]


class TimeseriesGenerator(PyDataset):
    """Batches of windows over a series and the target just after each window.

    Sample ``j`` of batch ``index`` ends before row ``r = start_index + length +
    batch_size * stride * index + stride * j``: it is ``data[r - length : r : sampling_rate]``
    (shape ``(ceil(length / sampling_rate), *data.shape[1:])``) and its target is
    ``targets[r]``. Rows run up to ``end_index`` (inclusive), so the last batch may be short.

    Args:
        data: an indexable series (a list or array), time on axis 0.
        targets: one target per row of ``data`` (same length).
        length: the window length, in rows.
        sampling_rate: the step between the rows taken within a window.
        stride: the step between the end rows of consecutive windows.
        start_index: rows before it are not used.
        end_index: rows after it are not used (default: the last row).
        shuffle: draw ``batch_size`` end rows at random (``np.random.randint``, so the global
            NumPy seed applies) instead of in order.
        reverse: each window in reverse time order.
        batch_size: windows per batch (128).
        **kwargs: `PyDataset`'s ``workers``, ``use_multiprocessing``, ``max_queue_size``.

    Returns (``gen[index]``): ``(samples, targets)``, NumPy arrays of shapes
    ``(batch, window, *data.shape[1:])`` and ``(batch, *targets.shape[1:])``.

    Raises:
        ValueError: ``data`` and ``targets`` of different lengths, or
            ``start_index + length > end_index``.

    >>> gen = TimeseriesGenerator(np.arange(10), np.arange(10), length=3, batch_size=2)
    >>> len(gen)
    4
    >>> x, y = gen[0]
    >>> x.tolist(), y.tolist()
    ([[0, 1, 2], [1, 2, 3]], [3, 4])
    """

    def __init__(
        self,
        data,
        targets,
        length,
        sampling_rate=1,
        stride=1,
        start_index=0,
        end_index=None,
        shuffle=False,
        reverse=False,
        batch_size=128,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if len(data) != len(targets):
            raise ValueError(
                "Data and targets have to be of same length. Data length is "
                f"{len(data)} while target length is {len(targets)}"
            )
        self.data = data
        self.targets = targets
        self.length = length
        self.sampling_rate = sampling_rate
        self.stride = stride
        self.start_index = start_index + length
        self.end_index = len(data) - 1 if end_index is None else end_index
        self.shuffle = shuffle
        self.reverse = reverse
        self.batch_size = batch_size
        if self.start_index > self.end_index:
            raise ValueError(
                f"`start_index+length={self.start_index} > end_index={self.end_index}` is "
                "disallowed, as no part of the sequence would be left to be used as current "
                "step."
            )

    def __len__(self) -> int:
        span = self.batch_size * self.stride
        return (self.end_index - self.start_index + span) // span

    def __getitem__(self, index):
        if self.shuffle:
            rows = np.random.randint(self.start_index, self.end_index + 1, size=self.batch_size)
        else:
            i = self.start_index + self.batch_size * self.stride * index
            stop = min(i + self.batch_size * self.stride, self.end_index + 1)
            rows = np.arange(i, stop, self.stride)
        samples = np.array([self.data[r - self.length : r : self.sampling_rate] for r in rows])
        targets = np.array([self.targets[r] for r in rows])
        if self.reverse:
            return samples[:, ::-1, ...], targets
        return samples, targets

    def get_config(self) -> dict:
        """The arguments, with ``data`` and ``targets`` as JSON strings and ``start_index``
        already offset by ``length`` (as Keras stores them).

        Raises:
            TypeError: ``data`` or ``targets`` not JSON serializable.
        """

        def dump(value, what):
            if type(value).__module__ == np.__name__:
                value = value.tolist()
            try:
                return json.dumps(value)
            except TypeError as e:
                raise TypeError(f"{what} not JSON Serializable: {value}") from e

        return {
            "data": dump(self.data, "Data"),
            "targets": dump(self.targets, "Targets"),
            "length": self.length,
            "sampling_rate": self.sampling_rate,
            "stride": self.stride,
            "start_index": self.start_index,
            "end_index": self.end_index,
            "shuffle": self.shuffle,
            "reverse": self.reverse,
            "batch_size": self.batch_size,
        }

    def to_json(self, **kwargs) -> str:
        """``{"class_name": "TimeseriesGenerator", "config": get_config()}`` as JSON;
        ``kwargs`` go to `json.dumps`."""
        return json.dumps(
            {"class_name": type(self).__name__, "config": self.get_config()}, **kwargs
        )
