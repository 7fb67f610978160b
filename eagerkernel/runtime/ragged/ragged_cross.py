"""`ek.ragged.cross` and `ek.ragged.cross_hashed` (follow `tf.ragged.cross` and
`tf.ragged.cross_hashed`, TensorFlow's ``RaggedCross``): feature crosses of batched
categorical columns, as RaggedTensors.

Each input is a batch of feature lists: a RaggedTensor ``[batch, (n)]``, a SparseTensor
``[batch, n]`` or a dense matrix. Row ``b`` of the result holds one cross per combination of
one feature from each input, in the inputs' order with the last input varying fastest.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..core.tensor import Tensor, convert_to_tensor
from ..sparse.cross import cross_features, hashed_bucket
from ..sparse.sparse_tensor import SparseTensor
from .ragged_tensor import RaggedTensor

__all__ = ["cross", "cross_hashed"]


def _features(flat, i: int) -> list:
    """Values as bytes (strings) or Python ints (integer dtypes only, as TensorFlow's)."""
    features = cross_features(flat, "iu")
    if features is None:
        raise ValueError(f"Unexpected dtype for inputs[{i}]: {flat.dtype!r}")
    return features


def _rows(x, i: int) -> list:
    """One input's features per batch row."""
    if isinstance(x, SparseTensor):
        rows = [[] for _ in range(int(x.dense_shape.numpy()[0]))]
        for (b, _), v in zip(x.indices.numpy().tolist(), _features(x.values, i)):
            rows[b].append(v)
        return rows
    if isinstance(x, RaggedTensor):
        if x.ragged_rank != 1 or x.ndim != 2:
            raise ValueError("tf.ragged.cross only supports inputs with rank=2")
        s = np.asarray(x.row_splits._value).tolist()
        flat = _features(x.values, i)
        return [flat[a:b] for a, b in itertools.pairwise(s)]
    t = x if isinstance(x, Tensor) else convert_to_tensor(x)
    if t.ndim != 2:
        raise ValueError("tf.ragged.cross only supports inputs with rank=2")
    flat, width = _features(t, i), t.shape[1]
    return [flat[r * width : (r + 1) * width] for r in range(t.shape[0])]


def _cross(inputs, combine, dtype) -> RaggedTensor:
    if not isinstance(inputs, (tuple, list)):
        raise TypeError("Inputs must be a list")
    columns = [_rows(x, i) for i, x in enumerate(inputs)]
    batch = len(columns[0]) if columns else 0
    for i, col in enumerate(columns):
        if len(col) != batch:
            raise ValueError(
                f"tf.ragged.cross: inputs must have the same number of rows; input 0 has "
                f"{batch} and input {i} has {len(col)}."
            )
    values, lengths = [], []
    for b in range(batch):
        crosses = list(itertools.product(*(col[b] for col in columns)))
        values.extend(combine(features) for features in crosses)
        lengths.append(len(crosses))
    if dtype is object:
        flat = np.empty(len(values), object)
        flat[:] = values
    else:
        flat = np.array(values, np.int64)
    return RaggedTensor.from_row_lengths(flat, np.array(lengths, np.int64), validate=False)


def cross(inputs, name=None) -> RaggedTensor:
    """The crosses of the inputs' features joined with ``"_X_"`` (integers in decimal):
    a 2-D string RaggedTensor (follows `tf.ragged.cross`).

    Args:
        inputs: a list of rank-2 RaggedTensors, SparseTensors or Tensors of strings or
            integers, all with the same number of rows.
        name: ignored (TensorFlow's op name).

    Raises:
        TypeError: ``inputs`` not a list. ValueError: an input of rank other than 2, of
            another dtype, or with a different number of rows.

    >>> ek.ragged.cross([ek.ragged.constant([['a'], ['b', 'c']]),
    ...                  ek.ragged.constant([['d'], ['e']]),
    ...                  ek.ragged.constant([['f'], ['g']])])
    <RaggedTensor [[b'a_X_d_X_f'], [b'b_X_e_X_g', b'c_X_e_X_g']]>
    """

    def text(v) -> bytes:
        return v if isinstance(v, bytes) else str(v).encode("ascii")

    return _cross(inputs, lambda fs: b"_X_".join(text(v) for v in fs), object)


def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None) -> RaggedTensor:
    """The crosses of the inputs' features as int64 hashes: each feature's fingerprint
    (FarmHash Fingerprint64 of a string, an integer's own value) combined with TensorFlow's
    ``FingerprintCat64`` starting from ``hash_key``, then ``% num_buckets`` if it is > 0
    (follows `tf.ragged.cross_hashed`; needs the pyfarmhash package).

    Args:
        inputs: as `cross`.
        num_buckets: a non-negative int; 0 keeps the whole (non-negative) hash.
        hash_key: the starting fingerprint (default TensorFlow's ``0xDECAFCAFFE``).
        name: ignored (TensorFlow's op name).

    Raises:
        as `cross`; ValueError: ``num_buckets`` < 0.

    >>> ek.ragged.cross_hashed([ek.ragged.constant([['a'], ['b', 'c']]),
    ...                         ek.ragged.constant([['d'], ['e']]),
    ...                         ek.ragged.constant([['f'], ['g']])],
    ...                        num_buckets=100)
    <RaggedTensor [[78], [66, 74]]>
    """
    bucket = hashed_bucket(num_buckets, hash_key, "tf.ragged.cross_hashed")
    return _cross(inputs, bucket, np.int64)
