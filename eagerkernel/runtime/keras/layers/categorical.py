"""What Keras's categorical preprocessing layers share (Keras's ``numerical_utils``): their
inputs as host arrays, their batches for ``adapt``, integer indices encoded as one-hot,
multi-hot, count or tf-idf vectors, and host results as CPU Tensors."""

from __future__ import annotations

import numpy as np

from ...core.device import CPU
from ...core.tensor import Tensor, make

__all__ = ["encode_categorical", "host_array", "host_tensor", "is_text", "iter_batches"]


def host_tensor(array) -> Tensor:
    """A host result as a Tensor on the CPU (strings and lookups live there)."""
    return make(np.asarray(array), CPU)


def host_array(x) -> np.ndarray:
    """``x`` (a Tensor, an array, Python values) as a NumPy array; text as an object array."""
    if isinstance(x, Tensor):
        return x.numpy()
    return np.asarray(x, dtype=object if is_text(x) else None)


def is_text(x) -> bool:
    """Whether ``x``'s first element is a ``str`` or ``bytes``."""
    flat = np.asarray(x, dtype=object).reshape(-1)
    return flat.size > 0 and isinstance(flat[0], (str, bytes))


def iter_batches(data, steps=None):
    """The batches of ``data`` (an array, a Tensor, a list or a Dataset) as NumPy arrays; a
    RaggedTensor batch as it is (its rows differ in length)."""
    from ...ragged.ragged_tensor import RaggedTensor
    from ..data_adapter import is_dataset

    def host(x):
        return x if isinstance(x, RaggedTensor) else host_array(x)

    if is_dataset(data):
        for i, element in enumerate(data):
            if steps is not None and i >= steps:
                break
            yield host(element[0] if isinstance(element, tuple) else element)
    else:
        yield host(data)


def encoded_shape(shape, depth: int, mode: str) -> tuple:
    """The shape `encode_categorical` gives for inputs of ``shape`` (``"int"``: ``shape``),
    as Keras 3's ``compute_output_shape`` of the encoding layers.

    >>> encoded_shape((3, 1), 5, "one_hot"), encoded_shape((3, 4), 5, "count")
    ((3, 5), (3, 5))
    """
    shape = tuple(shape)
    if mode == "int":
        return shape
    if mode == "one_hot" and (len(shape) <= 1 or shape[-1] != 1):
        return (*shape, depth)
    return (*shape[:-1], depth)


def encode_categorical(
    indices: np.ndarray, depth: int, mode: str, idf=None, dtype=np.float32
) -> np.ndarray:
    """One vector of ``depth`` per sample (the last axis of ``indices``; a rank-0 or rank-1
    input is one sample per element for one_hot, one sample for the others, as Keras), of
    ``dtype`` (``"tf_idf"``: always float32, the counts times ``idf``).

    >>> encode_categorical(np.array([[0, 2, 2]]), 3, "count", dtype=np.int64)
    array([[1, 0, 2]])
    """
    idx = np.asarray(indices, np.int64)
    if mode == "tf_idf":
        dtype = np.float32
    if mode == "one_hot":  # (..., 1) -> (..., depth); other shapes: each element one-hot
        flat = idx[..., 0] if idx.ndim > 1 and idx.shape[-1] == 1 else idx
        # ids outside [0, depth) (a dropped mask token is -1) give a zero row, as tf.one_hot
        return (flat[..., None] == np.arange(depth)).astype(dtype)
    rows = idx.reshape(1, -1) if idx.ndim <= 1 else idx.reshape(-1, idx.shape[-1])
    out = np.zeros((rows.shape[0], depth), dtype)
    for r, row in enumerate(rows):
        counts = np.bincount(row[(row >= 0) & (row < depth)], minlength=depth)[:depth]
        out[r] = counts if mode in ("count", "tf_idf") else (counts > 0)
    if mode == "tf_idf":
        out = out * np.asarray(idf, np.float32)
    shape = idx.shape[:-1] if idx.ndim > 1 else ()
    return out.reshape(*shape, depth)
