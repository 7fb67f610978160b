"""`tf.strings.ngrams` and `tf.strings.unsorted_segment_join`: string ops that regroup the
tokens of their input (follow TensorFlow's StringNGrams and UnsortedSegmentJoin kernels). Like
every string op they have no gradient.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..core.dispatch import dispatch
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ..ragged.ragged_tensor import RaggedTensor
from .strings import OBJECT, string_prim, string_tensor

__all__ = ["ngrams", "unsorted_segment_join"]


def _as_bytes(value, op: str, arg: str) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, bytes):
        return value
    raise ValueError(f"{op}: {arg} must be a string, got {value!r}.")


def _sequence_ngrams(tokens: list, widths, sep, left, right, pad_width, preserve) -> list:
    """The ngrams of one sequence, as TensorFlow's StringNGrams kernel makes them: per width
    in order, the sequence padded by ``min(pad_width, width - 1)`` pads on each side
    (``pad_width`` -1: ``width - 1``), then every window of ``width`` tokens joined."""
    out: list = []
    for width in widths:
        pad = width - 1 if pad_width < 0 else min(pad_width, width - 1)
        padded = [left] * pad + tokens + [right] * pad
        out.extend(sep.join(padded[i : i + width]) for i in range(len(padded) - width + 1))
    if preserve and not out and tokens:  # one ngram of the whole (padded) sequence
        pad = max(pad_width, 0)
        out.append(sep.join([left] * pad + tokens + [right] * pad))
    return out


def _ngrams_fwd(xp, values, splits, widths, sep, left, right, pad_width, preserve):
    values = np.asarray(values)
    grams: list = []
    lengths = []
    if not values.size:  # TF's kernel: no tokens at all gives no ngrams, even padded ones
        return np.empty(0, dtype=OBJECT), np.zeros(max(len(splits) - 1, 0), dtype=np.int64)
    for start, end in itertools.pairwise(np.asarray(splits).tolist()):
        row = _sequence_ngrams(
            values[start:end].tolist(), widths, sep, left, right, pad_width, preserve
        )
        grams.extend(row)
        lengths.append(len(row))
    out = np.empty(len(grams), dtype=OBJECT)
    out[:] = grams
    return out, np.asarray(lengths, dtype=np.int64)


_ngrams = string_prim("StringNGrams", _ngrams_fwd, n_inputs=2, n_out=0)


def ngrams(
    data,
    ngram_width,
    separator=" ",
    pad_values=None,
    padding_width=None,
    preserve_short_sequences=False,
    name=None,
):
    """The ngrams of each sequence of tokens along the last axis (follows
    `tf.strings.ngrams`): every window of ``ngram_width`` consecutive tokens, joined with
    ``separator``.

    Args:
        data: a string Tensor (the last axis holds the tokens) or a RaggedTensor of tokens.
        ngram_width: a positive int, or a list of them (the ngrams of each width, in order).
        separator: what joins the tokens of an ngram (default one space).
        pad_values: None (no padding), a string for both ends, or ``(left, right)``.
        padding_width: pads added at each end (at most ``width - 1``); default
            ``width - 1`` when ``pad_values`` is given.
        preserve_short_sequences: a sequence too short for any ngram (but not empty) gives
            one ngram of all its tokens (padded by ``padding_width``).

    Returns:
        A Tensor ``[..., num_ngrams]`` for a dense ``data`` (a 1-D input gives one list), a
        RaggedTensor with ``data``'s rows for a ragged one.

    Raises:
        ValueError: a width below 1, ``padding_width`` below 1 or without ``pad_values``, a
            bad ``pad_values`` (TensorFlow's messages); a dense input whose rows give
            different numbers of ngrams cannot happen (its rows have one length).
        TypeError: non-string data.

    >>> ek.strings.ngrams(ek.constant(["a", "b", "c", "d"]), 2).numpy()
    array([b'a b', b'b c', b'c d'], dtype=object)
    >>> ek.strings.ngrams(ek.constant(["a", "b", "c"]), 2, pad_values=("<s>", "</s>")).numpy()
    array([b'<s> a', b'a b', b'b c', b'c </s>'], dtype=object)
    """
    op = "ngrams"
    widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
    for w in widths:
        if isinstance(w, bool) or not isinstance(w, (int, np.integer)) or w < 1:
            raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
    if pad_values is None:
        left = right = b""
    elif isinstance(pad_values, (list, tuple)):
        if len(pad_values) != 2:
            raise ValueError("pad_values must be a string, tuple, or None.")
        left, right = (_as_bytes(v, op, "pad_values") for v in pad_values)
    elif isinstance(pad_values, (str, bytes)):
        left = right = _as_bytes(pad_values, op, "pad_values")
    else:
        raise ValueError("pad must be a string, tuple, or None.")
    if padding_width is not None and padding_width < 1:
        raise ValueError("padding_width must be greater than 0.")
    if padding_width is not None and pad_values is None:
        raise ValueError("pad_values must be provided if padding_width is set.")
    if pad_values is None:
        pad_width = 0
    else:
        pad_width = -1 if padding_width is None else int(padding_width)
    params = {
        "widths": tuple(int(w) for w in widths),
        "sep": _as_bytes(separator, op, "separator"),
        "left": left,
        "right": right,
        "pad_width": pad_width,
        "preserve": bool(preserve_short_sequences),
    }
    if isinstance(data, RaggedTensor):
        if data.ragged_rank != 1:
            return data.with_values(
                ngrams(
                    data.values,
                    ngram_width,
                    separator,
                    pad_values,
                    padding_width,
                    preserve_short_sequences,
                )
            )
        values = string_tensor(data.values, op, "data")
        splits = np.asarray(data.row_splits.numpy(), dtype=np.int64)
        grams, lengths = dispatch(_ngrams, (values, _on_device(splits, values)), params)
        return RaggedTensor.from_row_lengths(grams, lengths, validate=False)
    x = string_tensor(data, op, "data")
    if x.ndim == 0:
        raise ValueError(f"{op}: data must have rank >= 1 (a sequence of tokens), got a scalar.")
    shape = tuple(x.shape)
    n = shape[-1]
    rows = int(np.prod(shape[:-1], dtype=np.int64))
    flat = x if x.ndim == 1 else _reshape(x, [-1])
    splits = np.arange(rows + 1, dtype=np.int64) * n
    grams, lengths = dispatch(_ngrams, (flat, _on_device(splits, flat)), params)
    per_row = int(lengths.numpy()[0]) if rows else 0
    return _reshape(grams, [*shape[:-1], per_row])


def _reshape(x, shape):
    from .array_ops import reshape

    return reshape(x, shape)


def _on_device(array: np.ndarray, like: Tensor) -> Tensor:
    """``array`` as a Tensor on ``like``'s device."""
    from ..core.tensor import make

    return make(like._device.xp.asarray(array), like._device)


def _segment_join_fwd(xp, x, ids, num_segments, separator):
    x, ids = np.asarray(x), np.asarray(ids)
    inner = x.shape[ids.ndim :]
    rows = x.reshape(-1, *inner) if ids.ndim else x.reshape(1, *inner)
    flat_ids = ids.reshape(-1)
    parts: list = [[] for _ in range(num_segments)]
    for row, seg in zip(rows, flat_ids.tolist()):
        if seg >= 0:
            parts[seg].append(row)
    out = np.empty((num_segments, *inner), dtype=OBJECT)
    for seg, members in enumerate(parts):
        if not members:
            out[seg] = b""
            continue
        stacked = np.stack(members)  # [count, *inner]
        joined = out[seg]
        if inner:
            for idx in np.ndindex(*inner):
                joined[idx] = separator.join(stacked[(slice(None), *idx)].tolist())
        else:
            out[seg] = separator.join(stacked.tolist())
    return out


_segment_join = string_prim("UnsortedSegmentJoin", _segment_join_fwd, n_inputs=2)


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """Joins, for each segment, the strings of ``inputs`` whose ``segment_ids`` name it, in
    order, with ``separator`` (follows `tf.strings.unsorted_segment_join`); a segment no id
    names is the empty string.

    Args:
        inputs: a string tensor. segment_ids: int32/int64, a prefix of ``inputs``'s shape.
        num_segments: how many segments (the output's first dimension).

    Returns:
        A string tensor ``[num_segments, *inputs.shape[segment_ids.ndim:]]``.

    Raises:
        InvalidArgumentError: ``segment_ids`` not a prefix of the shape, an id at or above
            ``num_segments`` (TensorFlow's message) or negative.

    >>> ek.strings.unsorted_segment_join(["this", "is", "a", "test"], [0, 0, 1, 1], 3,
    ...                                  separator=" ").numpy()
    array([b'this is', b'a test', b''], dtype=object)
    """
    op = "UnsortedSegmentJoin"
    x = string_tensor(inputs, "unsorted_segment_join", "inputs")
    ids = segment_ids if isinstance(segment_ids, Tensor) else None
    ids_arr = np.asarray(ids.numpy() if ids is not None else segment_ids)
    if ids_arr.size and ids_arr.dtype.kind not in "iu":
        raise TypeError(
            f"unsorted_segment_join: segment_ids must be int32 or int64, got {ids_arr.dtype}."
        )
    ids_arr = ids_arr.astype(np.int64)
    n = int(num_segments.numpy() if isinstance(num_segments, Tensor) else num_segments)
    if tuple(x.shape[: ids_arr.ndim]) != ids_arr.shape:
        raise InvalidArgumentError(
            None,
            op,
            f"unsorted_segment_join: segment_ids shape {ids_arr.shape} must be a prefix of "
            f"inputs shape {tuple(x.shape)}.",
        )
    if ids_arr.size and int(ids_arr.max()) >= n:
        raise InvalidArgumentError(
            None, op, "segment_ids are not allowed to exceed num_segments or be negative."
        )
    if ids_arr.size and int(ids_arr.min()) < 0:
        raise InvalidArgumentError(
            None, op, "segment_ids are not allowed to exceed num_segments or be negative."
        )
    sep = _as_bytes(separator, "unsorted_segment_join", "separator")
    params = {"num_segments": n, "separator": sep}
    return dispatch(_segment_join, (x, _on_device(ids_arr, x)), params)
