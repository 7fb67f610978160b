"""`tf.io.SparseFeature`: a SparseTensor built from an index feature (or several) and a value
feature of each Example (follows `tf.io.SparseFeature`).

`parse_example` reads the keys as `VarLenFeature` s, then pairs each Example's indices with
its values, as TensorFlow's ``sparse_merge``.
"""

from __future__ import annotations

import collections

import numpy as np

__all__ = ["SparseFeature"]


class SparseFeature(
    collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"]
    )
):
    """A sparse feature parsed from an index key (or a list of them, one per dimension) and a
    value key of equal length (follows `tf.io.SparseFeature`).

    ``parse_example`` gives an `ek.sparse.SparseTensor` of dense shape ``[batch] + size``
    whose indices are ``[example] + index``, sorted within each Example unless
    ``already_sorted``; ``parse_single_example`` the same without the batch dimension.
    Indices are not checked against ``size`` (as TensorFlow).

    >>> ex = ek.train.Example(features=ek.train.Features(feature={
    ...     "ix": ek.train.Feature(int64_list=ek.train.Int64List(value=[3, 1])),
    ...     "v": ek.train.Feature(float_list=ek.train.FloatList(value=[0.5, 2.0]))}))
    >>> sp = ek.io.parse_single_example(ex.SerializeToString(),
    ...     {"sp": ek.io.SparseFeature("ix", "v", ek.float32, 4)})["sp"]
    >>> ek.sparse.to_dense(sp).numpy()
    array([0. , 2. , 0. , 0.5], dtype=float32)
    """

    __slots__ = ()

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


def expand(features: dict, var_len) -> tuple[dict, dict]:
    """``features`` with each SparseFeature replaced by `VarLenFeature` s of its keys, and
    the SparseFeatures by name."""
    from ..core import dtypes

    sparse = {k: f for k, f in features.items() if isinstance(f, SparseFeature)}
    if not sparse:
        return features, sparse
    plain = {k: f for k, f in features.items() if k not in sparse}
    for f in sparse.values():
        for key in _index_keys(f):
            plain.setdefault(key, var_len(dtypes.int64))
        plain.setdefault(f.value_key, var_len(f.dtype))
    return plain, sparse


def merge(result: dict, requested, sparse: dict, single: bool, op: str) -> dict:
    """``result`` with each SparseFeature's SparseTensor added and the helper keys nobody
    asked for removed."""
    if not sparse:
        return result
    from ..sparse.sparse_tensor import SparseTensor

    out = {}
    for name, f in sparse.items():
        keys = _index_keys(f)
        ids = [_rows(result[k], single) for k in keys]
        vals = _rows(result[f.value_key], single)
        indices, values = [], []
        for row, row_vals in enumerate(vals):
            row_ids = [i[row] for i in ids]
            for k, i in zip(keys, row_ids):
                if len(i) != len(row_vals):
                    raise ValueError(
                        f"{op}: SparseFeature {name!r} has {len(i)} indices in {k!r} but "
                        f"{len(row_vals)} values in {f.value_key!r} (Example {row})."
                    )
            pos = [([] if single else [row]) + list(p) for p in zip(*row_ids)]
            order = (
                range(len(pos))
                if f.already_sorted
                else sorted(range(len(pos)), key=lambda j: pos[j])
            )
            indices += [pos[j] for j in order]
            values += [row_vals[j] for j in order]
        sizes = list(f.size) if isinstance(f.size, (list, tuple)) else [f.size]
        shape = ([] if single else [len(vals)]) + [int(s) for s in sizes]
        vdt = result[f.value_key].values.numpy().dtype
        out[name] = SparseTensor(
            np.asarray(indices, np.int64).reshape(-1, len(shape)),
            np.asarray(values, vdt),
            np.asarray(shape, np.int64),
        )
    for k, v in result.items():
        if k in requested and k not in sparse:
            out[k] = v
    return out


def _index_keys(f: SparseFeature) -> list:
    return list(f.index_key) if isinstance(f.index_key, (list, tuple)) else [f.index_key]


def _rows(sp, single: bool) -> list:
    """A VarLenFeature's SparseTensor as a list of per-Example value lists."""
    idx, vals = sp.indices.numpy(), list(sp.values.numpy())
    if single:
        return [vals]
    rows = [[] for _ in range(int(sp.dense_shape.numpy()[0]))]
    for (row, _), v in zip(idx, vals):
        rows[row].append(v)
    return rows
