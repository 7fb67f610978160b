"""`ek.sparse.cross` and `ek.sparse.cross_hashed` (follow `tf.sparse.cross` and
`tf.sparse.cross_hashed`, TensorFlow's ``SparseCrossV2`` and ``SparseCrossHashed``): feature
crosses of batched categorical columns.

Each input is a batch of feature lists: a SparseTensor ``[batch, n]`` (row ``b``'s features
are its values in row ``b``) or a dense matrix ``[batch, n]`` (every entry is a feature). Row
``b`` of the result holds one cross per combination of one feature from each input, the last
input varying fastest; the SparseTensor inputs come first in a cross, then the dense ones, as
TensorFlow orders them. A row where some input has no feature has no cross.

`cross` joins the features' text with ``separator``. `cross_hashed` combines the features'
64-bit hashes (FarmHash's Fingerprint64 of a string; an integer is its own hash) with
TensorFlow's ``FingerprintCat64``, starting from ``hash_key``, so its buckets are TensorFlow's
for the same inputs (needs the pyfarmhash package).

>>> st = ek.sparse.cross([ek.constant([["a", "b"]]), ek.constant([["x"]])])
>>> st.values.numpy()
array([b'a_X_x', b'b_X_x'], dtype=object)
>>> ek.sparse.cross_hashed([ek.constant([["a"], ["b"]]), ek.constant([[1], [2]])], 5).values.numpy()
array([0, 2])
"""

from __future__ import annotations

import itertools

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, convert_to_tensor
from .sparse_tensor import SparseTensor

__all__ = ["cross", "cross_features", "cross_hashed", "hashed_bucket"]

_M64 = (1 << 64) - 1
_MUL = 0xC6A4A7935BD1E995
DEFAULT_HASH_KEY = 0xDECAFCAFFE  # tf.sparse.cross_hashed's hash_key=None


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def fingerprint_cat64(fp1: int, fp2: int) -> int:
    """TensorFlow's ``FingerprintCat64``: two unsigned 64-bit fingerprints combined into one.

    >>> fingerprint_cat64(0xDECAFCAFFE, 1)
    14422785736469172220
    """
    result = fp1 ^ _MUL
    result ^= (_shift_mix((fp2 * _MUL) & _M64) * _MUL) & _M64
    result = (result * _MUL) & _M64
    result = (_shift_mix(result) * _MUL) & _M64
    return _shift_mix(result)


def _columns(inputs, op: str) -> list:
    """Each input's features per row, as Python lists (bytes or ints), sparse inputs first."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(
            f"{op}: inputs must be a list of Tensors or SparseTensors, got {inputs!r:.60}."
        )
    sparse, dense = [], []
    for k, x in enumerate(inputs):
        if isinstance(x, SparseTensor):
            if x.indices.shape[1] != 2:
                raise InvalidArgumentError(
                    None,
                    op,
                    f"{op}: sparse input {k} must be a matrix, got rank {x.indices.shape[1]}.",
                )
            batch = int(x.dense_shape.numpy()[0])
            rows = [[] for _ in range(batch)]
            values = _features(x.values, op, k)
            for (b, _), v in zip(x.indices.numpy().tolist(), values):
                rows[b].append(v)
            sparse.append(rows)
        else:
            t = x if isinstance(x, Tensor) else convert_to_tensor(x)
            if t.ndim != 2:
                raise InvalidArgumentError(
                    None,
                    op,
                    f"{op}: Dense inputs should be a matrix but received shape "
                    f"{list(t.shape)} at position {k}",
                )
            flat = _features(t, op, k)
            width = t.shape[1]
            dense.append([flat[i * width : (i + 1) * width] for i in range(t.shape[0])])
    columns = sparse + dense
    if columns:
        batch = len(columns[0])
        for k, col in enumerate(columns):
            if len(col) != batch:
                raise InvalidArgumentError(
                    None, op, f"{op}: Expected batch size {batch} got {len(col)} at input {k}."
                )
    return columns


def _features(t: Tensor, op: str, k: int) -> list:
    features = cross_features(t, "iufb")
    if features is None:
        raise TypeError(f"{op}: input {k} must be strings or numbers, got {t.dtype.name}.")
    return features


def cross_features(t: Tensor, kinds: str) -> list | None:
    """A tensor's entries as the crosses read them: bytes for strings, Python ints (cast to
    int64) for NumPy dtype kinds in ``kinds``; None for any other dtype (the caller raises its
    op's error)."""
    a = np.asarray(t._value).reshape(-1)
    if a.dtype == object:
        return [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in a.tolist()]
    if a.dtype.kind not in kinds:
        return None
    return a.astype(np.int64).tolist()


def _crosses(columns: list):
    """(row, crosses of that row) for every row, each cross a tuple of features."""
    batch = len(columns[0]) if columns else 0
    for b in range(batch):
        yield b, list(itertools.product(*(col[b] for col in columns)))


def _sparse_result(columns: list, make_value, dtype) -> SparseTensor:
    indices, values, width = [], [], 0
    for b, crosses in _crosses(columns):
        for j, features in enumerate(crosses):
            indices.append((b, j))
            values.append(make_value(features))
        width = max(width, len(crosses))
    batch = len(columns[0]) if columns else 0
    index_array = np.array(indices, np.int64).reshape(-1, 2)
    if dtype == dtypes.string:
        value_array = np.empty(len(values), object)
        value_array[:] = values
    else:
        value_array = np.array(values, np.int64)
    return SparseTensor(index_array, value_array, [batch, width])


def cross(inputs, name=None, separator=None) -> SparseTensor:
    """The crosses of the inputs' features, joined as text (follows `tf.sparse.cross`): a
    string SparseTensor ``[batch, crosses]``; numbers are written in decimal (as int64).

    Args:
        inputs: SparseTensors and/or dense matrices, one batch row each.
        separator: between the features of a cross (default ``"_X_"``).

    Raises:
        InvalidArgumentError: a dense input that is not a matrix, or inputs of different
            batch sizes.
        TypeError: ``inputs`` is not a list.
    """
    op = "sparse.cross"
    sep = "_X_" if separator is None else separator
    sep = sep.encode("utf-8") if isinstance(sep, str) else bytes(sep)
    columns = _columns(inputs, op)

    def text(v) -> bytes:
        return v if isinstance(v, bytes) else str(v).encode("ascii")

    return _sparse_result(columns, lambda fs: sep.join(text(v) for v in fs), dtypes.string)


def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None) -> SparseTensor:
    """The crosses of the inputs' features as int64 hash buckets (follows
    `tf.sparse.cross_hashed`): a SparseTensor ``[batch, crosses]`` of values in
    ``[0, num_buckets)``, or of the whole non-negative hash when ``num_buckets`` is 0.

    Args:
        inputs: SparseTensors and/or dense matrices, one batch row each.
        num_buckets: the buckets (default 0: no bucketing).
        hash_key: the starting fingerprint (default TensorFlow's ``0xDECAFCAFFE``).

    Raises:
        InvalidArgumentError: as `cross`. ValueError: ``num_buckets`` < 0.
        ImportError: the pyfarmhash package is missing.
    """
    op = "sparse.cross_hashed"
    bucket = hashed_bucket(num_buckets, hash_key, op)
    return _sparse_result(_columns(inputs, op), bucket, dtypes.int64)


def hashed_bucket(num_buckets, hash_key, op: str):
    """The function of one cross (a sequence of features: bytes or ints) to its int64 bucket,
    as TensorFlow's hashed crosses compute it: each feature's fingerprint (FarmHash
    Fingerprint64 of a string, an integer's own value) combined with ``FingerprintCat64``
    from ``hash_key`` (None: TensorFlow's ``0xDECAFCAFFE``), then ``% num_buckets`` when it is
    positive (0: the whole non-negative hash).

    Raises:
        ValueError: ``num_buckets`` < 0.
        ImportError: the pyfarmhash package is missing.
    """
    import farmhash

    n = int(num_buckets)
    if n < 0:
        raise ValueError(f"{op}: num_buckets must be >= 0, got {num_buckets}.")
    key = DEFAULT_HASH_KEY if hash_key is None else int(hash_key) & _M64
    modulus = n if n > 0 else (1 << 63) - 1

    def bucket(features) -> int:
        h = key
        for v in features:
            f = farmhash.fingerprint64(v) if isinstance(v, bytes) else v & _M64
            h = fingerprint_cat64(h, f)
        return h % modulus

    return bucket
