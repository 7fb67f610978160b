"""Parsing serialized `tf.train.SequenceExample` messages (follows
`tf.io.parse_single_sequence_example` and `tf.io.parse_sequence_example`).

A SequenceExample has ``context`` features (parsed as an Example's, by `parsing.py`) and
``feature_lists``: per key, one Feature per frame. ``FixedLenSequenceFeature(shape)`` gives
``[frames] + shape``, ``VarLenFeature`` a SparseTensor indexed ``(frame, position)``,
``RaggedFeature`` a RaggedTensor ``[frames, None]``; batched, each gains a leading batch
dimension, dense sequences padded with 0 or b"" and their lengths returned. One op,
``ParseSequenceExampleV2`` (TensorFlow's name), runs through `dispatch`; no gradient.

>>> seq = ek.train.SequenceExample(feature_lists=ek.train.FeatureLists(feature_list={
...     "tokens": ek.train.FeatureList(feature=[
...         ek.train.Feature(int64_list=ek.train.Int64List(value=[1, 2])),
...         ek.train.Feature(int64_list=ek.train.Int64List(value=[3, 4]))])}))
>>> context, sequences = ek.io.parse_single_sequence_example(
...     seq.SerializeToString(),
...     sequence_features={"tokens": ek.io.FixedLenSequenceFeature([2], ek.int64)})
>>> sequences["tokens"].numpy()
array([[1, 2],
       [3, 4]])
"""

from __future__ import annotations

import math

import numpy as np

from ..core.dispatch import Primitive, dispatch
from ..core.errors import InvalidArgumentError
from .parsing import (
    FEATURE_KINDS,
    KIND_OF_FIELD,
    OBJECT_DTYPE,
    FixedLenFeature,
    FixedLenSequenceFeature,
    RaggedFeature,
    VarLenFeature,
    assemble,
    check_inputs,
    config_of,
    decode_all,
    example_names,
    feature_kind,
    feature_shape,
    features_arrays,
)

__all__ = ["parse_sequence_example", "parse_single_sequence_example"]


def _sequence_config(sequence_features, op: str) -> tuple:
    """``(key, type, kind, shape, allow_missing, source)`` per sequence feature; ``type`` is
    "dense", "sparse" or "ragged"."""
    config = []
    for key in sorted(sequence_features):
        spec = sequence_features[key]
        if isinstance(spec, FixedLenSequenceFeature):
            if spec.default_value is not None:
                raise ValueError(f"{op}: Value feature_list.dense_defaults[{key}] must be None")
            shape = feature_shape(spec.shape, key)
            config.append(
                (key, "dense", feature_kind(spec.dtype, key), shape, bool(spec.allow_missing), key)
            )
        elif isinstance(spec, VarLenFeature):
            config.append((key, "sparse", feature_kind(spec.dtype, key), None, True, key))
        elif isinstance(spec, RaggedFeature):
            if spec.partitions:
                raise NotImplementedError(
                    f"{op}: feature {key!r}: RaggedFeature partitions are not supported."
                )
            source = key if spec.value_key is None else spec.value_key
            config.append((key, "ragged", feature_kind(spec.dtype, key), None, True, source))
        elif isinstance(spec, FixedLenFeature):
            raise ValueError(f"{op}: Unsupported FixedLenFeature {spec} for key '{key}'")
        else:
            raise TypeError(
                f"{op}: sequence feature {key!r}: unsupported feature config "
                f"{type(spec).__name__} (FixedLenSequenceFeature, VarLenFeature and "
                "RaggedFeature are supported)."
            )
    return tuple(config)


def _frame_values(feature, kind, key, name, t):
    field = feature.WhichOneof("kind")
    if field is None:
        return np.empty(0, FEATURE_KINDS[kind][1])
    if KIND_OF_FIELD[field] != kind:
        raise InvalidArgumentError(
            None,
            "ParseSequenceExampleV2",
            f"Name: {name}, Feature list: {key}, Index: {t}.  Data types don't match. "
            f"Expected type: {kind}",
        )
    values = getattr(feature, field).value
    if kind == "string":
        out = np.empty(len(values), dtype=OBJECT_DTYPE)
        out[:] = list(values)
        return out
    return np.asarray(values, dtype=FEATURE_KINDS[kind][1])


def _sequence_arrays(lists, names, config, single) -> list:
    """The op's outputs for the sequence features: per dense feature the padded values and
    the lengths; per sparse one indices, values, dense shape; per ragged one the values,
    the frames' row splits and the examples' row splits."""
    out = []
    for _, kind_of, kind, shape, allow_missing, key in config:
        np_dtype = FEATURE_KINDS[kind][1]
        frames = []  # per example: a list of per-frame value arrays
        for fl, name in zip(lists, names):
            if key not in fl:
                if not allow_missing:
                    raise InvalidArgumentError(
                        None,
                        "ParseSequenceExampleV2",
                        f"Name: {name}, Feature list '{key}' is required but could not be "
                        "found.  Did you mean to include it in "
                        "feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?",
                    )
                frames.append([])
                continue
            rows = [_frame_values(f, kind, key, name, t) for t, f in enumerate(fl[key].feature)]
            if kind_of == "dense":
                n = math.prod(shape)
                for t, v in enumerate(rows):
                    if v.size != n:
                        raise InvalidArgumentError(
                            None,
                            "ParseSequenceExampleV2",
                            f"Name: {name}, Key: {key}, Index: {t}.  Number of values != "
                            f"expected.  values size: {v.size} but output shape: "
                            f"[{','.join(map(str, shape))}]",
                        )
            frames.append(rows)
        lengths = np.array([len(rows) for rows in frames], np.int64)
        longest = int(lengths.max(initial=0))
        if kind_of == "dense":
            arr = np.zeros((len(frames), longest, *shape), dtype=np_dtype)
            if kind == "string":
                arr[...] = b""
            for b, rows in enumerate(frames):
                for t, v in enumerate(rows):
                    arr[b, t] = v.reshape(shape)
            out += [arr[0] if single else arr, lengths]
        elif kind_of == "sparse":
            width = max((v.size for rows in frames for v in rows), default=0)
            idx, vals = [], []
            for b, rows in enumerate(frames):
                for t, v in enumerate(rows):
                    for j in range(v.size):
                        idx.append((b, t, j))
                    vals.append(v)
            indices = np.array(idx, np.int64).reshape(-1, 3)
            values = np.concatenate(vals).astype(np_dtype) if vals else np.empty(0, np_dtype)
            dense_shape = np.array([len(frames), longest, width], np.int64)
            if single:
                indices, dense_shape = np.ascontiguousarray(indices[:, 1:]), dense_shape[1:]
            out += [indices, values, dense_shape]
        else:
            flat = [v for rows in frames for v in rows]
            values = np.concatenate(flat).astype(np_dtype) if flat else np.empty(0, np_dtype)
            inner = np.cumsum([0, *(v.size for v in flat)], dtype=np.int64)
            outer = np.cumsum([0, *lengths], dtype=np.int64)
            out += [values, inner, outer]
    return out


def _parse_sequence_fwd(xp, serialized, names, *, context, sequence, single):
    from .example import messages

    seqs = decode_all(messages()["SequenceExample"], serialized, "sequence example")
    nm = example_names(names, len(seqs))
    out = features_arrays([s.context.feature for s in seqs], nm, context, single)
    out += _sequence_arrays([s.feature_lists.feature_list for s in seqs], nm, sequence, single)
    return tuple(xp.asarray(a) if a.dtype != OBJECT_DTYPE else a for a in out)


# Strings in, no gradient: there is nothing to differentiate.
_parse_sequence = Primitive("ParseSequenceExampleV2", _parse_sequence_fwd, n_out=0)


def _run(serialized, context_features, sequence_features, names, op, single):
    from ..ragged import RaggedTensor
    from ..sparse.sparse_tensor import SparseTensor

    if not context_features and not sequence_features:
        raise ValueError(
            f"{op}: Both context_features and sequence_features are None, but at least one "
            "should have values."
        )
    context = config_of(context_features, op) if context_features else ()
    for key, kind_of, *_ in context:
        if kind_of == "sequence":
            raise ValueError(
                f"{op}: Unsupported FixedLenSequenceFeature in context_features for key '{key}'"
            )
    sequence = _sequence_config(sequence_features or {}, op)
    x, names = check_inputs(serialized, names, op, single)
    if not single and x.ndim != 1:
        raise ValueError(f"{op}: serialized must be a vector. Received: shape={list(x.shape)}")
    params = {"context": context, "sequence": sequence, "single": single}
    outputs = list(dispatch(_parse_sequence, (x, names), params))
    context_out = assemble(context, outputs, single)
    sequences, lengths = {}, {}
    for key, kind_of, *_ in sequence:
        if kind_of == "dense":
            sequences[key], lengths[key] = outputs.pop(0), outputs.pop(0)
        elif kind_of == "sparse":
            indices, values, dense_shape = outputs.pop(0), outputs.pop(0), outputs.pop(0)
            sequences[key] = SparseTensor(indices, values, dense_shape)
        else:
            values, inner, outer = outputs.pop(0), outputs.pop(0), outputs.pop(0)
            frames = RaggedTensor.from_row_splits(values, inner, validate=False)
            sequences[key] = frames if single else RaggedTensor.from_row_splits(frames, outer)
    return context_out, sequences, lengths


def parse_single_sequence_example(
    serialized, context_features=None, sequence_features=None, example_name=None, name=None
) -> tuple:
    """Parses one serialized `tf.train.SequenceExample` (follows
    `tf.io.parse_single_sequence_example`).

    Args:
        serialized: a string scalar.
        context_features: a dict of `FixedLenFeature`, `VarLenFeature` or `RaggedFeature`,
            read from the ``context`` as `parse_single_example` reads an Example.
        sequence_features: a dict of `FixedLenSequenceFeature` (no ``default_value``; with
            ``allow_missing`` a missing list is empty), `VarLenFeature` or `RaggedFeature`,
            read from ``feature_lists``.
        example_name: optional string scalar naming the message in error messages.
        name: accepted for TensorFlow compatibility.

    Returns:
        ``(context, sequences)``: dicts by key. A sequence feature gives ``[frames] + shape``
        (dense), a SparseTensor with indices ``(frame, position)`` and dense shape
        ``[frames, longest]``, or a RaggedTensor ``[frames, None]``.

    Raises:
        ValueError: both dicts empty, a FixedLenFeature among the sequence features, a
            ``default_value`` on a FixedLenSequenceFeature, a non-scalar ``serialized``.
        InvalidArgumentError: a required list missing ("Feature list 'K' is required but
            could not be found. ..."), a frame with another type or number of values, or a
            string that is not a SequenceExample (and the context errors of parse_example).
    """
    context, sequences, _ = _run(
        serialized,
        context_features,
        sequence_features,
        example_name,
        "parse_single_sequence_example",
        True,
    )
    return context, sequences


def parse_sequence_example(
    serialized, context_features=None, sequence_features=None, example_names=None, name=None
) -> tuple:
    """Parses a batch of serialized `tf.train.SequenceExample` messages (follows
    `tf.io.parse_sequence_example`).

    Args:
        serialized: a string vector ``[batch]``.
        context_features, sequence_features: as `parse_single_sequence_example`.
        example_names: optional string vector naming each message in error messages.
        name: accepted for TensorFlow compatibility.

    Returns:
        ``(context, sequences, lengths)``: context features as `parse_example` gives them;
        dense sequences ``[batch, longest] + shape`` padded with 0 or b"" (``lengths`` gives
        each one's number of frames, int64 ``[batch]``); sparse ones with indices
        ``(example, frame, position)``; ragged ones ``[batch, None, None]``.

    Raises:
        ValueError: ``serialized`` is not a vector (and as `parse_single_sequence_example`).
        InvalidArgumentError: as `parse_single_sequence_example`.
    """
    return _run(
        serialized,
        context_features,
        sequence_features,
        example_names,
        "parse_sequence_example",
        False,
    )
