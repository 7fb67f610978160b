"""Parsing serialized `tf.train.Example` messages into tensors (follows `tf.io.parse_example`,
`tf.io.parse_single_example`, `tf.io.FixedLenFeature`, `tf.io.VarLenFeature`,
`tf.io.FixedLenSequenceFeature` and `tf.io.RaggedFeature` with its row partitions).

One op, ``ParseExampleV2`` (TensorFlow's name), does the work through `dispatch`: its forward
decodes each string with the protobuf classes of `example.py` and fills the outputs as
TensorFlow's parser does (dense features of a fixed shape, with defaults; variable-length
ones as the three parts of a SparseTensor or as a RaggedTensor's values and row splits;
sequence features padded), with TensorFlow's error messages. It has no gradient: its input
is strings.

>>> ex = ek.train.Example(features=ek.train.Features(feature={
...     "x": ek.train.Feature(float_list=ek.train.FloatList(value=[1.5, 2.0])),
...     "tags": ek.train.Feature(bytes_list=ek.train.BytesList(value=[b"a", b"b", b"c"]))}))
>>> parsed = ek.io.parse_single_example(ex.SerializeToString(), {
...     "x": ek.io.FixedLenFeature([2], ek.float32),
...     "tags": ek.io.VarLenFeature(ek.string),
...     "id": ek.io.FixedLenFeature([], ek.int64, default_value=-1)})
>>> parsed["x"].numpy(), int(parsed["id"])
(array([1.5, 2. ], dtype=float32), -1)
>>> parsed["tags"].values.numpy(), parsed["tags"].dense_shape.numpy()
(array([b'a', b'b', b'c'], dtype=object), array([3]))
"""

from __future__ import annotations

import collections
import math

import numpy as np

from ..core import dtypes
from ..core.dispatch import Primitive, dispatch
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, TensorShape, to_tensor
from . import sparse_feature
from .ragged_partitions import (
    PARTITION_TYPES,
    RowLengths,
    RowLimits,
    RowSplits,
    RowStarts,
    UniformRowLength,
    ValueRowIds,
    add_partitions,
    partition_key,
)

__all__ = [
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "RaggedFeature",
    "VarLenFeature",
    "parse_example",
    "parse_single_example",
]

OBJECT_DTYPE = np.dtype(object)
# The three types an Example holds: TensorFlow's DataTypeString, the oneof field, NumPy's type.
FEATURE_KINDS = {
    "int64": ("int64_list", np.dtype(np.int64)),
    "float": ("float_list", np.dtype(np.float32)),
    "string": ("bytes_list", OBJECT_DTYPE),
}
KIND_OF_FIELD = {"int64_list": "int64", "float_list": "float", "bytes_list": "string"}


class FixedLenFeature(
    collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])
):
    """A feature of a fixed shape (follows `tf.io.FixedLenFeature`).

    Args:
        shape: the shape of the value in one Example (``[]`` for a scalar); all dimensions
            known. The Example's list must hold exactly ``prod(shape)`` values (row-major).
        dtype: ``ek.int64``, ``ek.float32`` or ``ek.string``.
        default_value: the value when an Example lacks the feature (broadcast to ``shape``
            only if it has that many elements); None makes the feature required.
    """

    __slots__ = ()

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(
    collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"]
    )
):
    """A sequence of values each of a fixed shape, of varying length (follows
    `tf.io.FixedLenSequenceFeature`): parsed to ``[count] + shape`` (``[batch, max_count] +
    shape`` in `parse_example`, shorter rows padded with ``default_value``, else 0 or b"").

    Args:
        shape: the shape of one entry; the Example's list holds a multiple of its size.
        dtype: ``ek.int64``, ``ek.float32`` or ``ek.string``.
        allow_missing: must be True (a missing feature is then an empty sequence).
        default_value: the padding value (a scalar).
    """

    __slots__ = ()

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature with any number of values, parsed to an `ek.sparse.SparseTensor` (follows
    `tf.io.VarLenFeature`): of dense shape ``[count]`` for one Example, ``[batch, max_count]``
    for a batch.

    Args:
        dtype: ``ek.int64``, ``ek.float32`` or ``ek.string``.
    """

    __slots__ = ()


class RaggedFeature(
    collections.namedtuple(
        "RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"]
    )
):
    """A feature with any number of values, parsed to an `ek.RaggedTensor` (follows
    `tf.io.RaggedFeature`): ``[batch, None]`` from `parse_example`; from
    `parse_single_example`, the Example's values as a 1-D Tensor.

    Args:
        dtype: ``ek.int64``, ``ek.float32`` or ``ek.string``.
        value_key: the Example feature to read (default: the key in the ``features`` dict).
        partitions: row partitions, outermost first, each ``RaggedFeature.RowSplits(key)``,
            ``RowLengths(key)``, ``RowStarts(key)``, ``RowLimits(key)``, ``ValueRowIds(key)``
            (``key`` an int64 feature of the Example) or ``UniformRowLength(length)``; each
            adds a ragged (or uniform) dimension inside the batch one.
        row_splits_dtype: None or ``ek.int64``: eagerkernel's RaggedTensor keeps int64 row
            splits (TensorFlow's default here is int32; asking for it raises
            NotImplementedError, as the other ragged factories do).
        validate: check that the partitions are consistent with the values.

    Raises:
        TypeError: a partition of another type.
    """

    __slots__ = ()
    RowSplits = RowSplits
    RowLengths = RowLengths
    RowStarts = RowStarts
    RowLimits = RowLimits
    ValueRowIds = ValueRowIds
    UniformRowLength = UniformRowLength

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=None, validate=False):
        for p in partitions:
            if not isinstance(p, PARTITION_TYPES):
                raise TypeError(
                    "Argument `partitions` cannot be cast to any of the partition types in "
                    f"{[t.__name__ for t in PARTITION_TYPES]}; got: {p!r} with type {type(p)}"
                )
        if row_splits_dtype is not None and dtypes.as_dtype(row_splits_dtype) != dtypes.int64:
            raise NotImplementedError(
                "RaggedFeature: row splits are int64 in eagerkernel's RaggedTensor. Received: "
                f"row_splits_dtype={row_splits_dtype!r}"
            )
        return super().__new__(cls, dtype, value_key, tuple(partitions), row_splits_dtype, validate)


def feature_kind(dtype, key) -> str:
    """The Example value kind (``"int64"``, ``"float"``, ``"string"``) of feature ``key``'s
    dtype; InvalidArgumentError for any other dtype."""
    dt = dtypes.as_dtype(dtype)
    if dt == dtypes.int64:
        return "int64"
    if dt == dtypes.float32:
        return "float"
    if dt == dtypes.string:
        return "string"
    raise InvalidArgumentError(
        None,
        "ParseExampleV2",
        f"parse_example: feature {key!r}: Invalid config dtype: {dt.name} (an Example holds "
        "int64, float32 or string values).",
    )


def feature_shape(shape, key, allow_unknown=False) -> tuple:
    """Feature ``key``'s shape as a tuple of ints; ValueError when a dimension is unknown."""
    dims = TensorShape(shape).as_list() if shape is not None else None
    if dims is None or any(d is None for d in dims):
        raise ValueError(
            f"parse_example: all dimensions of the shape of feature {key!r} need to be known. "
            f"Received: shape={shape!r}"
        )
    return tuple(int(d) for d in dims)


def _default(value, kind, shape, key):
    """``value`` as a flat tuple of ``prod(shape)`` Python values (hashable: it travels in
    the op's params)."""
    np_dtype = FEATURE_KINDS[kind][1]
    if isinstance(value, Tensor):
        value = value.numpy()
    if kind == "string":
        arr = np.asarray(value, dtype=OBJECT_DTYPE)
        arr = np.vectorize(
            lambda v: v.encode() if isinstance(v, str) else v, otypes=[OBJECT_DTYPE]
        )(arr)
        bad = [v for v in arr.reshape(-1) if not isinstance(v, bytes)]
        if bad:
            raise TypeError(
                f"parse_example: the default_value of string feature {key!r} must be strings. "
                f"Received: {bad[0]!r}"
            )
    else:
        try:
            arr = np.asarray(value).astype(
                np_dtype, casting="same_kind" if kind == "float" else "safe"
            )
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"parse_example: the default_value of feature {key!r} does not convert to "
                f"{'float32' if kind == 'float' else kind}: {exc}"
            ) from None
    n = math.prod(shape)
    if arr.size != n:  # TensorFlow: InvalidArgumentError from the reshape of the default
        raise InvalidArgumentError(
            None,
            "ParseExample",
            f"parse_example: the default_value of feature {key!r} has {arr.size} elements but "
            f"the feature's shape {list(shape)} has {n}.",
        )
    return tuple(arr.reshape(-1).tolist())


_CONFIG_CACHE: dict = {}  # frozen ``features`` -> config: Dataset.map parses with one dict


def _freeze(value):
    """A hashable stand-in for a feature config's field (lists as tuples, arrays by bytes)."""
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, *map(_freeze, value))
    if isinstance(value, Tensor):
        value = value.numpy()
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    hash(value)  # TypeError for anything else unhashable: no caching then
    return (type(value).__name__, value)


def config_of(features, op: str) -> tuple:
    """`_build_config`, remembered for the last few ``features`` dicts seen."""
    try:
        key = tuple((k, type(v).__name__, _freeze(tuple(v))) for k, v in features.items())
    except (TypeError, AttributeError):
        return _build_config(features, op)
    config = _CONFIG_CACHE.get(key)
    if config is None:
        config = _build_config(features, op)
        if len(_CONFIG_CACHE) >= 64:
            _CONFIG_CACHE.clear()
        _CONFIG_CACHE[key] = config
    return config


def _build_config(features, op: str) -> tuple:
    """``features`` as a tuple of ``(key, type, kind, shape, default, source)`` for the op's
    params; ``type`` is "dense", "sequence", "sparse" or "ragged", ``source`` the Example's
    feature to read."""
    if not features:
        raise ValueError(f"{op}: Argument `features` cannot be None or empty.")
    if not isinstance(features, dict):
        raise TypeError(f"{op}: features must be a dict of feature names to feature configs.")
    config, partition_config, partition_names = [], [], set()
    for key in sorted(features):
        spec = features[key]
        if not isinstance(key, str):
            raise TypeError(f"{op}: feature names must be strings. Received: {key!r}")
        if isinstance(spec, FixedLenFeature):
            kind = feature_kind(spec.dtype, key)
            shape = feature_shape(spec.shape, key)
            default = None
            if spec.default_value is not None:
                default = _default(spec.default_value, kind, shape, key)
            config.append((key, "dense", kind, shape, default, key))
        elif isinstance(spec, FixedLenSequenceFeature):
            if not spec.allow_missing:
                raise ValueError(
                    f"{op}: feature {key!r}: FixedLenSequenceFeature requires "
                    "allow_missing to be True."
                )
            kind = feature_kind(spec.dtype, key)
            shape = feature_shape(spec.shape, key)
            pad = spec.default_value
            if pad is None:
                pad = b"" if kind == "string" else 0
            config.append((key, "sequence", kind, shape, _default(pad, kind, (), key)[0], key))
        elif isinstance(spec, VarLenFeature):
            config.append((key, "sparse", feature_kind(spec.dtype, key), None, None, key))
        elif isinstance(spec, RaggedFeature):
            source = key if spec.value_key is None else spec.value_key
            if not isinstance(source, str):
                raise TypeError(f"{op}: feature {key!r}: value_key must be a string.")
            # the partitions and validate ride in the (unused) shape and default slots
            extra = (spec.partitions, bool(spec.validate)) if spec.partitions else None
            config.append((key, "ragged", feature_kind(spec.dtype, key), extra, None, source))
            for p in spec.partitions:  # each partition feature parsed as int64 values
                name = None if isinstance(p, UniformRowLength) else partition_key(p.key)
                if name is not None and name not in partition_names:
                    partition_names.add(name)
                    partition_config.append((name, "ragged", "int64", None, None, p.key))
        else:
            raise TypeError(
                f"{op}: feature {key!r}: unsupported feature config {type(spec).__name__} "
                "(FixedLenFeature, FixedLenSequenceFeature, VarLenFeature and RaggedFeature are "
                "supported)."
            )
    return tuple(config + partition_config)


def _values(feature, kind, kind_of, key, name, index):
    """The values of one Feature message as a NumPy array of the config's kind, or None if
    it holds no list (an empty Feature counts as missing, as in TensorFlow)."""
    field = feature.WhichOneof("kind")
    if field is None:
        return None
    found = KIND_OF_FIELD[field]
    if found != kind:
        # TensorFlow's two wordings: dense features, then sparse ones.
        what = (
            f"Data type: {found} but expected type: {kind}"
            if kind_of == "dense"
            else f"Expected type: {kind}, Actual type: {found}"
        )
        raise InvalidArgumentError(
            None,
            "ParseExampleV2",
            f"Name: {name}, Key: {key}, Index: {index}.  Data types don't match. {what}",
        )
    values = getattr(feature, field).value
    if kind == "string":
        out = np.empty(len(values), dtype=OBJECT_DTYPE)
        out[:] = list(values)
        return out
    return np.asarray(values, dtype=FEATURE_KINDS[kind][1])


def example_names(names, n: int) -> list:
    """Each Example's name for error messages (TensorFlow's "<unknown>" without names)."""
    names = np.asarray(names, dtype=OBJECT_DTYPE).reshape(-1)
    if not names.size:
        return ["<unknown>"] * n
    return [v.decode("utf-8", "replace") for v in names]


def decode_all(message_class, serialized, what: str) -> list:
    """Each string of ``serialized`` parsed as ``message_class``.

    Raises:
        InvalidArgumentError: a string is not such a message (TensorFlow's message).
    """
    from google.protobuf.message import DecodeError

    out = []
    for raw in np.asarray(serialized, dtype=OBJECT_DTYPE).reshape(-1):
        try:
            out.append(message_class.FromString(raw))
        except (DecodeError, TypeError):
            raise InvalidArgumentError(
                None,
                "ParseExampleV2",
                f"Could not parse {what} input, value: "
                f"'{raw[:200].decode('utf-8', 'backslashreplace')}'",
            ) from None
    return out


def _parse_fwd(xp, serialized, names, *, config, single=False):
    from .example import messages

    fmaps = [e.features.feature for e in decode_all(messages()["Example"], serialized, "example")]
    out = features_arrays(fmaps, example_names(names, len(fmaps)), config, single)
    return tuple(xp.asarray(a) if a.dtype != OBJECT_DTYPE else a for a in out)


def features_arrays(fmaps, names, config, single) -> list:
    """The op's output arrays for one `Features` map per example (see `_build_config`)."""
    found = [[] for _ in config]  # per feature: per example, its values (or None)
    for i, (fmap, name) in enumerate(zip(fmaps, names)):
        for f, (_, kind_of, kind, shape, default, key) in enumerate(config):
            values = _values(fmap[key], kind, kind_of, key, name, i) if key in fmap else None
            if kind_of == "dense":
                n = math.prod(shape)
                if values is None:
                    if default is None:
                        raise InvalidArgumentError(
                            None,
                            "ParseExampleV2",
                            f"Name: {name}, Feature: {key} (data type: {kind}) is required but "
                            "could not be found.",
                        )
                    values = np.asarray(default, dtype=FEATURE_KINDS[kind][1])
                elif values.size != n:
                    what = "bytes" if kind == "string" else kind
                    raise InvalidArgumentError(
                        None,
                        "ParseExampleV2",
                        f"Name: {name}, Key: {key}, Index: {i}.  Number of {what} values != "
                        f"expected.  Values size: {values.size} but output shape: "
                        f"[{','.join(map(str, shape))}]",
                    )
            elif kind_of == "sequence" and values is not None:
                stride = max(math.prod(shape), 1)
                if values.size % stride:
                    what = "bytes" if kind == "string" else kind
                    raise InvalidArgumentError(
                        None,
                        "ParseExampleV2",
                        f"Name: {name}, Key: {key}, Index: {i}.  Number of {what} values is "
                        f"not a multiple of stride length. Saw {values.size} values but "
                        f"output shape is: [?,{','.join(map(str, shape))}]",
                    )
            found[f].append(values)
    out = []
    for (_, kind_of, kind, shape, default, _), rows in zip(config, found):
        np_dtype = FEATURE_KINDS[kind][1]
        if kind_of == "dense":
            arr = np.empty((len(rows), *shape), dtype=np_dtype)
            for i, values in enumerate(rows):
                # `arr[i, ...]`, not `arr[i]`: for a scalar string feature `arr[i] = x` would
                # store the 0-d object array itself in the element, not its bytes
                arr[i, ...] = values.reshape(shape)
            out.append(arr)
        elif kind_of == "sequence":
            stride = max(math.prod(shape), 1)
            counts = [0 if v is None else v.size // stride for v in rows]
            longest = max(counts, default=0)
            arr = np.empty((len(rows), longest, *shape), dtype=np_dtype)
            arr[...] = default
            for i, values in enumerate(rows):
                if counts[i]:
                    arr[i, : counts[i]] = values.reshape(counts[i], *shape)
            out.append(arr)
        elif kind_of == "ragged":
            counts = [0 if v is None else v.size for v in rows]
            parts = [v for v in rows if v is not None and v.size]
            values = np.concatenate(parts) if parts else np.empty(0, np_dtype)
            out.extend([values.astype(np_dtype), np.cumsum([0, *counts], dtype=np.int64)])
        else:
            counts = [0 if v is None else v.size for v in rows]
            total = sum(counts)
            indices = np.empty((total, 2), dtype=np.int64)
            values = np.empty(total, dtype=np_dtype)
            at = 0
            for i, (v, c) in enumerate(zip(rows, counts)):
                if c:
                    indices[at : at + c, 0] = i
                    indices[at : at + c, 1] = np.arange(c)
                    values[at : at + c] = v
                    at += c
            out.extend([indices, values, np.array([len(rows), max(counts, default=0)], np.int64)])
    if single:  # one scalar Example: drop the batch dimension (and the sparse batch column)
        out = [_unbatch(a, kind_of) for a, kind_of in zip(out, _output_kinds(config))]
    return out


def _output_kinds(config) -> list:
    """What each output array of the op is, in order: "dense", "splits", "values", "indices"
    or "shape"."""
    kinds = []
    for _, kind_of, *_ in config:
        if kind_of == "ragged":
            kinds += ["values", "splits"]
        elif kind_of == "sparse":
            kinds += ["indices", "values", "shape"]
        else:
            kinds.append("dense")
    return kinds


def _unbatch(a, kind):
    if kind == "dense":
        return a[0, ...]  # an array also for a scalar feature (a[0] is a bytes object)
    if kind == "indices":
        return np.ascontiguousarray(a[:, 1:])
    if kind == "shape":
        return a[1:]
    return a


# Strings in, no gradient: there is nothing to differentiate.
_parse_example = Primitive("ParseExampleV2", _parse_fwd, n_out=0)


def _strings(x, op: str, arg: str) -> Tensor:
    t = x if isinstance(x, Tensor) else to_tensor(x, OBJECT_DTYPE, op)
    if t.dtype != dtypes.string:
        raise TypeError(f"{op}: {arg} must be a string tensor, got dtype {t.dtype.name}.")
    return t


def check_inputs(serialized, example_names, op: str, single: bool):
    """``(serialized, names)`` as string Tensors of rank 0 or 1 (``names`` empty if None).

    Raises:
        ValueError: a rank above 1 (above 0 if ``single``), or one name per Example missing.
    """
    x = _strings(serialized, op, "serialized")
    if single and x.ndim != 0:
        raise ValueError(
            f"{op}: Input serialized must be a scalar. Received: shape={list(x.shape)}"
        )
    if x.ndim > 1:
        raise ValueError(
            f"{op}: serialized must be a scalar or a vector. Received: shape={list(x.shape)}"
        )
    names = to_tensor(np.empty(0, dtype=OBJECT_DTYPE), OBJECT_DTYPE, op)
    if example_names is not None:
        names = _strings(example_names, op, "example_names")
        if names.ndim > 1 or names._value.size != x._value.size:
            raise ValueError(
                f"{op}: example_names must have one name per serialized Example. Received: "
                f"shape={list(names.shape)} for serialized of shape {list(x.shape)}"
            )
    return x, names


def assemble(config, outputs: list, single: bool) -> dict:
    """The result dict from the op's output Tensors (consumed from ``outputs``, in order)."""
    from ..ragged import RaggedTensor
    from ..sparse.sparse_tensor import SparseTensor

    result = {}
    for key, kind_of, _kind_name, _shape, _default, _source in config:
        if kind_of == "ragged":
            values, splits = outputs.pop(0), outputs.pop(0)
            if single:  # one Example: its values, as TensorFlow gives without partitions
                result[key] = values
            else:
                result[key] = RaggedTensor.from_row_splits(values, splits, validate=False)
        elif kind_of == "sparse":
            indices, values, dense_shape = outputs.pop(0), outputs.pop(0), outputs.pop(0)
            result[key] = SparseTensor(indices, values, dense_shape)
        else:
            result[key] = outputs.pop(0)
    for key, kind_of, _kind_name, extra, _default, _source in config:
        if kind_of == "ragged" and extra is not None:
            partitions, validate = extra
            result[key] = add_partitions(result[key], partitions, result, validate, not single)
    for key in [k for k in result if k.startswith(partition_key(""))]:
        del result[key]
    # TensorFlow's order: the sparse keys, then the dense (and sequence) keys, then the
    # ragged keys, each group sorted
    rank = {"sparse": 0, "dense": 1, "sequence": 1, "ragged": 2}
    group = {key: rank[kind_of] for key, kind_of, *_ in config}
    return dict(sorted(result.items(), key=lambda item: (group[item[0]], item[0])))


def _parse(serialized, features, example_names, op: str, single: bool) -> dict:
    requested = features
    sparse = {}
    if isinstance(features, dict):
        features, sparse = sparse_feature.expand(features, VarLenFeature)
    config = config_of(features, op)
    x, names = check_inputs(serialized, example_names, op, single)
    params = {"config": config, "single": x.ndim == 0}
    outputs = list(dispatch(_parse_example, (x, names), params))
    result = assemble(config, outputs, x.ndim == 0)
    return sparse_feature.merge(result, requested, sparse, x.ndim == 0, op)


def parse_example(serialized, features, example_names=None, name=None) -> dict:
    """Parses a batch of serialized `tf.train.Example` messages (follows
    `tf.io.parse_example`).

    Args:
        serialized: a string vector ``[batch]`` of serialized Examples (a scalar gives the
            outputs of one Example, without the batch dimension).
        features: a dict of feature names to `FixedLenFeature`, `FixedLenSequenceFeature`,
            `VarLenFeature` or `RaggedFeature`.
        example_names: optional string vector naming each Example in error messages.
        name: accepted for TensorFlow compatibility (there is no graph to name).

    Returns:
        A dict by feature name: ``FixedLenFeature(shape, dtype)`` gives a dense Tensor
        ``[batch] + shape``; ``FixedLenSequenceFeature`` ``[batch, max_count] + shape``
        (padded); ``VarLenFeature`` an `ek.sparse.SparseTensor` with int64 indices
        ``[n, 2]`` (example, position) and dense shape ``[batch, max_count]``;
        ``RaggedFeature`` an `ek.RaggedTensor` ``[batch, None]``. Values are int64, float32
        or string as configured.

    Raises:
        InvalidArgumentError: a required feature is missing ("Feature: NAME (data type: T)
            is required but could not be found."), holds another type or a wrong number of
            values, a string is not a serialized Example, or a default value has the wrong
            size.
        ValueError: empty ``features``, a shape with unknown dimensions, or ``serialized``
            of rank > 1.
        TypeError: a feature config of another type, or a non-string ``serialized``.

    >>> records = [ek.train.Example(features=ek.train.Features(feature={
    ...     "n": ek.train.Feature(int64_list=ek.train.Int64List(value=list(range(k))))}))
    ...     .SerializeToString() for k in (1, 3)]
    >>> sparse = ek.io.parse_example(records, {"n": ek.io.VarLenFeature(ek.int64)})["n"]
    >>> ek.sparse.to_dense(sparse).numpy()
    array([[0, 0, 0],
           [0, 1, 2]])
    """
    return _parse(serialized, features, example_names, "parse_example", single=False)


def parse_single_example(serialized, features, example_names=None, name=None) -> dict:
    """Parses one serialized `tf.train.Example` (follows `tf.io.parse_single_example`): as
    `parse_example` without the batch dimension (``FixedLenFeature`` gives ``shape``,
    ``VarLenFeature`` a SparseTensor of indices ``[n, 1]`` and dense shape ``[count]``).

    Args:
        serialized: a string scalar: one serialized Example.
        features: a dict of feature names to feature configs (see `parse_example`).
        example_names: optional string scalar naming the Example in error messages.
        name: accepted for TensorFlow compatibility.

    Raises:
        ValueError: ``serialized`` is not a scalar (and as `parse_example`).
        InvalidArgumentError: as `parse_example`.
    """
    return _parse(serialized, features, example_names, "parse_single_example", single=True)
