"""`pad_sequences` (follows `tf.keras.utils.pad_sequences`, also
`tf.keras.preprocessing.sequence.pad_sequences`) and `TimeseriesGenerator`
(`tf.keras.preprocessing.sequence.TimeseriesGenerator`)."""

from __future__ import annotations

import numpy as np

from .timeseries_generator import TimeseriesGenerator

__all__ = ["TimeseriesGenerator", "pad_sequences"]


def pad_sequences(
    sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre", value=0.0
) -> np.ndarray:
    """Pads (or truncates) sequences to one length: a NumPy array ``(len(sequences), maxlen,
    *item shape)``.

    Args:
        sequences: a list of sequences (lists or arrays; items may be arrays of one shape).
        maxlen: the length (default: the longest sequence's).
        dtype: the output's dtype (``"int32"``; a string dtype needs a string ``value``).
        padding: ``"pre"`` or ``"post"``: where the padding goes.
        truncating: ``"pre"`` or ``"post"``: which end of a longer sequence is cut.
        value: the padding value.

    Raises:
        ValueError: ``sequences`` not a list of iterables, an unknown ``padding`` or
            ``truncating``, items of different shapes, or a non-string ``value`` for a
            string dtype.

    >>> pad_sequences([[1], [2, 3], [4, 5, 6]])
    array([[0, 0, 1],
           [0, 2, 3],
           [4, 5, 6]], dtype=int32)
    >>> pad_sequences([[1], [2, 3], [4, 5, 6]], maxlen=2, padding="post", value=-1)
    array([[ 1, -1],
           [ 2,  3],
           [ 5,  6]], dtype=int32)
    """
    if not hasattr(sequences, "__len__"):
        raise ValueError("pad_sequences: `sequences` must be iterable.")
    lengths, sample_shape, flag = [], (), True
    for x in sequences:
        try:
            lengths.append(len(x))
            if flag and len(x):
                sample_shape = np.asarray(x).shape[1:]
                flag = False
        except TypeError as exc:
            raise ValueError(
                f"pad_sequences: `sequences` must be a list of iterables. Found non-iterable: {x!r}"
            ) from exc
    if maxlen is None:
        maxlen = max(lengths, default=0)
    is_str = np.issubdtype(dtype, np.str_) or np.issubdtype(dtype, np.object_)
    if isinstance(value, str) and dtype is not object and not is_str:
        raise ValueError(
            f"pad_sequences: `dtype` {dtype} is not compatible with `value`'s type: "
            f"{type(value)}\nYou should set `dtype=object` for variable length strings."
        )
    if padding not in ("pre", "post"):
        raise ValueError(f'pad_sequences: Padding type "{padding}" not understood')
    if truncating not in ("pre", "post"):
        raise ValueError(f'pad_sequences: Truncating type "{truncating}" not understood')
    x = np.full((len(sequences), maxlen, *sample_shape), value, dtype=dtype)
    for idx, s in enumerate(sequences):
        if not len(s):
            continue
        trunc = s[-maxlen:] if truncating == "pre" else s[:maxlen]
        if maxlen == 0:
            continue
        trunc = np.asarray(trunc, dtype=dtype)
        if trunc.shape[1:] != sample_shape:
            raise ValueError(
                f"pad_sequences: shape of sample {trunc.shape[1:]} of sequence at position "
                f"{idx} is different from expected shape {sample_shape}"
            )
        if padding == "post":
            x[idx, : len(trunc)] = trunc
        else:
            x[idx, -len(trunc) :] = trunc
    return x
