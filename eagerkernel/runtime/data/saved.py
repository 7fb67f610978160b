"""The on-disk form of a saved Dataset (`Dataset.save`, `Dataset.load`, `Dataset.snapshot`):
TFRecord shard files of serialized tensors, and a JSON metadata file written last.

Layout of a directory ``path``::

    path/dataset_spec.json                  the metadata, replaced atomically (os.replace)
    path/run-<hex>/shard_00000000.tfrecord  one TFRecord file per shard index in use

Each element is one record: the `serialize_tensor` bytes of a string vector whose entries are
the `serialize_tensor` bytes (TensorFlow's ``TensorProto``) of the element's tensors, depth first
as `structure.flatten` orders them; a RaggedTensor contributes its flat values then its row
splits (outermost first), a SparseTensor its indices, values and dense shape. The metadata holds
a format tag, the element spec as JSON, the compression, and per shard its file and element
count (so the loaded dataset knows its cardinality).

A save writes its shards into a fresh ``run-<hex>`` directory, syncs them, then replaces the
metadata: an interrupted save leaves either no metadata (``load`` raises NotFoundError) or the
previous complete save's, never a partial dataset. The replaced save's run directory is removed
afterwards; a failed save removes its own.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import json
import os
import shutil
import types
import uuid

import numpy as np

from ..core import dtypes
from ..core.composite import CompositeTensor
from ..core.errors import DataLossError, NotFoundError
from ..core.tensor import Tensor
from ..io.tensor_proto import parse_tensor, serialize_tensor
from ..io.tfrecord import TFRecordWriter, read_records
from ..ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec
from ..sparse.sparse_tensor import SparseTensor, SparseTensorSpec
from .dataset import Dataset
from .sources import input_spec
from .structure import DatasetSpec, TensorSpec, call, flatten, is_structure, pack, spec_of

__all__ = ["Load", "Snapshot", "Writer", "compression_arg", "fingerprint", "path_arg"]

FORMAT = "eagerkernel.data.save/1"
METADATA = "dataset_spec.json"
_OBJ = np.dtype(object)


# -- arguments ----------------------------------------------------------------------------------


def path_arg(path, op: str) -> str:
    """A directory argument as a str: a str, bytes, os.PathLike or string scalar Tensor."""
    if isinstance(path, Tensor) and path.dtype == dtypes.string and path.ndim == 0:
        path = path.numpy()
    if isinstance(path, bytes):
        path = path.decode()
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise TypeError(f"{op}: path must be a non-empty str or path. Received: path={path!r}")
    return os.fspath(path)


def compression_arg(value, op: str, auto: bool = False) -> str:
    """``"GZIP"`` or ``""`` (none) from None, "", "NONE", "GZIP" (and "AUTO", read as none, for
    `snapshot`)."""
    if value is None:
        return ""
    if isinstance(value, str) and value.upper() in ("", "NONE", "GZIP") + (("AUTO",) * auto):
        return "GZIP" if value.upper() == "GZIP" else ""
    allowed = "'GZIP', 'NONE', None" + (" or 'AUTO'" if auto else "")
    raise ValueError(f"{op}: compression must be {allowed}. Received: compression={value!r}")


def check_callable(fn, op: str, arg: str) -> None:
    if fn is not None and not callable(fn):
        raise TypeError(f"{op}: {arg} must be callable. Received: {arg}={fn!r:.60}")


# -- the element spec as JSON -------------------------------------------------------------------


def _shape_json(shape):
    return None if shape.rank is None else list(shape)


def encode_spec(spec, op: str):
    """The element spec as JSON data; TypeError for components that cannot be saved."""
    if isinstance(spec, dict):
        for k in spec:
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise TypeError(f"{op}: element dict keys must be str or int. Received: {k!r}")
        return {"dict": [[k, encode_spec(v, op)] for k, v in spec.items()]}
    if is_structure(spec):
        children = [encode_spec(v, op) for v in spec]
        if type(spec) is tuple:
            return {"tuple": children}
        return {"namedtuple": [type(spec).__name__, list(spec._fields), children]}
    if isinstance(spec, TensorSpec):
        return {"tensor": [_shape_json(spec.shape), spec.dtype.name, spec.name]}
    if isinstance(spec, RaggedTensorSpec):
        return {"ragged": [_shape_json(spec.shape), spec.dtype.name, spec.ragged_rank]}
    if isinstance(spec, SparseTensorSpec):
        return {"sparse": [_shape_json(spec.shape), spec.dtype.name]}
    what = "Datasets (as from `window`)" if isinstance(spec, DatasetSpec) else repr(spec)
    raise TypeError(
        f"{op}: elements with components {what} cannot be saved; components must be Tensors, "
        "RaggedTensors or SparseTensors."
    )


def decode_spec(data):
    """The element spec from `encode_spec`'s JSON data."""
    if "dict" in data:
        return {k: decode_spec(v) for k, v in data["dict"]}
    if "tuple" in data:
        return tuple(decode_spec(v) for v in data["tuple"])
    if "namedtuple" in data:
        name, fields, children = data["namedtuple"]
        return collections.namedtuple(name, fields)(*(decode_spec(v) for v in children))
    if "tensor" in data:
        shape, dtype, name = data["tensor"]
        return TensorSpec(shape, dtype, name)
    if "ragged" in data:
        shape, dtype, ragged_rank = data["ragged"]
        return RaggedTensorSpec(shape, dtype, ragged_rank)
    shape, dtype = data["sparse"]
    return SparseTensorSpec(shape, dtype)


def _dense(spec) -> bool:
    """Components stored as one tensor (a ragged spec of ragged rank 0 has Tensor values)."""
    return isinstance(spec, TensorSpec) or (
        isinstance(spec, RaggedTensorSpec) and spec.ragged_rank == 0
    )


def compatible(a, b) -> bool:
    """Same nesting, and leaves of one kind with equal dtypes and compatible shapes."""
    if is_structure(a) or is_structure(b):
        if isinstance(a, dict) != isinstance(b, dict) or not (is_structure(a) and is_structure(b)):
            return False
        if isinstance(a, dict):
            return set(a) == set(b) and all(compatible(a[k], b[k]) for k in a)
        return len(a) == len(b) and all(compatible(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a.is_compatible_with(b)


# -- elements as records ------------------------------------------------------------------------


def _bytes(t: Tensor) -> bytes:
    return serialize_tensor(t).numpy()


def encode_element(element, leaves: list, op: str) -> bytes:
    """One element as a record: serialized tensors in a serialized string vector."""
    flat = flatten(element)
    if len(flat) != len(leaves):
        raise TypeError(
            f"{op}: an element has {len(flat)} components where the element spec has "
            f"{len(leaves)}: {element!r:.100}"
        )
    parts = []
    for value, spec in zip(flat, leaves):
        if _dense(spec) and isinstance(value, Tensor):
            parts.append(_bytes(value))
        elif isinstance(spec, RaggedTensorSpec) and isinstance(value, RaggedTensor):
            parts.append(_bytes(value.flat_values))
            parts.extend(_bytes(s) for s in value.nested_row_splits)
        elif isinstance(spec, SparseTensorSpec) and isinstance(value, SparseTensor):
            parts.extend(_bytes(t) for t in (value.indices, value.values, value.dense_shape))
        else:
            raise TypeError(f"{op}: a component {value!r:.60} does not match its spec {spec!r}.")
        if spec.dtype != value.dtype:
            raise TypeError(
                f"{op}: a component of dtype {value.dtype.name} where the element spec says "
                f"{spec!r}."
            )
    return serialize_tensor(np.array(parts, dtype=_OBJ)).numpy()


def decode_element(record: bytes, spec, leaves: list, where: str):
    """The element a record holds, as ``spec`` nests it."""
    parts = parse_tensor(record, dtypes.string).numpy().reshape(-1).tolist()
    it = iter(parts)
    values = []
    try:
        for s in leaves:
            if _dense(s):
                values.append(parse_tensor(next(it), s.dtype))
            elif isinstance(s, RaggedTensorSpec):
                flat = parse_tensor(next(it), s.dtype)
                splits = [parse_tensor(next(it), dtypes.int64) for _ in range(s.ragged_rank)]
                values.append(RaggedTensor.from_nested_row_splits(flat, splits, validate=False))
            else:
                indices, vals, shape = (next(it), next(it), next(it))
                values.append(
                    SparseTensor(
                        parse_tensor(indices, dtypes.int64),
                        parse_tensor(vals, s.dtype),
                        parse_tensor(shape, dtypes.int64),
                    )
                )
    except StopIteration:
        values = None
    if values is None or next(it, None) is not None:
        raise DataLossError(
            None, "LoadDataset", f"load: a record of {where} does not fit the element spec."
        )
    return pack(spec, values) if is_structure(spec) else values[0]


def _relaxed(spec, value):
    """``spec``, with the dimensions where ``value`` differs made None."""
    if (
        isinstance(spec, TensorSpec)
        and isinstance(value, Tensor)
        and not spec.shape.is_compatible_with(value.shape)
    ):
        shape = spec.shape.most_specific_compatible_shape(value.shape)
        return TensorSpec(shape, spec.dtype, spec.name)
    return spec


def shard_index(value, op: str) -> int:
    """``shard_func``'s output as a shard index: a non-negative integer scalar."""
    if isinstance(value, Tensor) and value.ndim == 0 and value.dtype.is_integer:
        value = int(value)
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise TypeError(
            f"{op}: shard_func must return an integer scalar (an int64 shard index). "
            f"Received: {value!r:.60}"
        )
    if value < 0:
        raise ValueError(f"{op}: shard_func returned a negative shard index. Received: {value}")
    return int(value)


# -- writing ------------------------------------------------------------------------------------


def _sync(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_json(path: str, data) -> None:
    tmp = f"{path}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


class Writer:
    """Writes elements into a fresh run directory under ``path``; `finish` publishes them by
    replacing the metadata, `abort` removes them.

    Args:
        spec: the element spec, or None to take it from the first element.
        compression: "" or "GZIP".
        shard_func: None (every element to shard 0) or element -> shard index.
        replace: whether `finish` replaces a finished save at ``path`` (`save`), or leaves it
            and discards this one (`snapshot`: another pass finished first).
    """

    def __init__(self, path: str, spec, compression: str, shard_func, op: str, replace=True):
        self._op = op
        self._replace = replace
        self._path = path
        self._spec = spec
        self._leaves = None if spec is None else self._leaves_of(spec)
        self._compression = compression
        self._shard_func = shard_func
        if os.path.exists(path) and not os.path.isdir(path):
            raise FileExistsError(
                f"{op}: path {path!r} exists and is not a directory (a saved dataset is a "
                "directory of shard files)."
            )
        os.makedirs(path, exist_ok=True)
        self._run = f"run-{uuid.uuid4().hex}"
        os.mkdir(os.path.join(path, self._run))
        self._writers: dict = {}
        self._counts: dict = {}

    def _leaves_of(self, spec) -> list:
        encode_spec(spec, self._op)  # a component that cannot be saved fails before any write
        return flatten(spec)

    def write(self, element) -> None:
        if self._leaves is None:
            self._spec = spec_of(element)
            self._leaves = self._leaves_of(self._spec)
        k = 0
        if self._shard_func is not None:
            k = shard_index(call(self._shard_func, element), self._op)
        writer = self._writers.get(k)
        if writer is None:
            file = os.path.join(self._path, self._run, f"shard_{k:08d}.tfrecord")
            writer = self._writers[k] = TFRecordWriter(file, self._compression)
            self._counts[k] = 0
        writer.write(encode_element(element, self._leaves, self._op))
        self._counts[k] += 1
        relaxed = [_relaxed(s, v) for s, v in zip(self._leaves, flatten(element))]
        if any(a is not b for a, b in zip(relaxed, self._leaves)):
            self._leaves = relaxed  # the spec claimed a shape that an element does not have
            self._spec = pack(self._spec, relaxed) if is_structure(self._spec) else relaxed[0]

    def finish(self) -> None:
        if self._spec is None:
            raise ValueError(
                f"{self._op}: the dataset is empty and its element spec is unknown, so there "
                "is nothing to save."
            )
        meta_path = os.path.join(self._path, METADATA)
        if not self._replace and os.path.exists(meta_path):
            self.abort()
            return
        shards = []
        for k in sorted(self._writers):
            self._writers[k].close()
            file = f"{self._run}/shard_{k:08d}.tfrecord"
            _sync(os.path.join(self._path, file))
            shards.append({"index": k, "file": file, "count": self._counts[k]})
        previous = None
        try:
            with open(meta_path, encoding="utf-8") as f:
                previous = json.load(f).get("run")
        except (OSError, ValueError, AttributeError):
            pass
        _write_json(
            meta_path,
            {
                "format": FORMAT,
                "run": self._run,
                "element_spec": encode_spec(self._spec, self._op),
                "compression": self._compression,
                "cardinality": sum(self._counts.values()),
                "shards": shards,
            },
        )
        if isinstance(previous, str) and previous.startswith("run-") and previous != self._run:
            shutil.rmtree(os.path.join(self._path, previous), ignore_errors=True)

    def abort(self) -> None:
        for writer in self._writers.values():
            with contextlib.suppress(Exception):  # the files are removed next
                writer.close()
        shutil.rmtree(os.path.join(self._path, self._run), ignore_errors=True)


def save(dataset: Dataset, path, compression=None, shard_func=None, checkpoint_args=None):
    """`Dataset.save`."""
    op = "save"
    if checkpoint_args is not None:
        raise NotImplementedError(
            f"{op}: checkpoint_args (saving in steps with a checkpoint) is not supported. "
            f"Received: checkpoint_args={checkpoint_args!r:.60}"
        )
    path = path_arg(path, op)
    compression = compression_arg(compression, op)
    check_callable(shard_func, op, "shard_func")
    writer = Writer(path, dataset.element_spec, compression, shard_func, op)
    try:
        for element in dataset:
            writer.write(element)
        writer.finish()
    except BaseException:
        writer.abort()
        raise


# -- reading ------------------------------------------------------------------------------------


def read_metadata(path: str, op: str) -> dict:
    """The metadata of a finished save at ``path``.

    Raises:
        NotFoundError: no finished save there. DataLossError: unreadable metadata.
    """
    meta_path = os.path.join(path, METADATA)
    try:
        with open(meta_path, encoding="utf-8") as f:
            meta = json.load(f)
    except FileNotFoundError:
        why = "does not exist" if not os.path.exists(path) else f"has no {METADATA}"
        raise NotFoundError(
            None,
            "LoadDataset",
            f"{op}: no saved dataset at {path!r}: the path {why} (a save to it did not "
            "finish, or it was never saved).",
        ) from None
    except (OSError, ValueError) as e:
        raise DataLossError(None, "LoadDataset", f"{op}: cannot read {meta_path!r}: {e}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise DataLossError(
            None, "LoadDataset", f"{op}: {meta_path!r} is not the metadata of a saved dataset."
        )
    return meta


class _Shard(Dataset):
    """The elements of one shard file."""

    def __init__(self, file: str, count: int, compression: str, spec):
        super().__init__()
        self._file, self._count, self._compression = file, count, compression
        self._spec_value, self._leaves = spec, flatten(spec)

    def _iter(self, ctx):
        spec, leaves, file = self._spec_value, self._leaves, self._file
        for record in read_records(file, self._compression, "load"):
            yield decode_element(record, spec, leaves, file)

    def _cardinality(self) -> int:
        return self._count

    def _spec(self, peek):
        return self._spec_value


class _Shards(Dataset):
    """The shards of a save as a Dataset of Datasets, in shard order (``reader_func``'s input)."""

    def __init__(self, shards: list, spec):
        super().__init__()
        self._shards, self._element_spec = shards, spec

    def _iter(self, ctx):
        yield from self._shards

    def _cardinality(self) -> int:
        return len(self._shards)

    def _spec(self, peek):
        return DatasetSpec(self._element_spec)


class Load(Dataset):
    """`Dataset.load`: the elements of a finished save, through ``reader_func``."""

    def __init__(self, path, element_spec=None, compression=None, reader_func=None, op="load"):
        super().__init__()
        path = path_arg(path, op)
        check_callable(reader_func, op, "reader_func")
        meta = read_metadata(path, op)
        try:
            saved_spec = decode_spec(meta["element_spec"])
            saved_compression = meta["compression"]
            shard_meta = [(os.path.join(path, s["file"]), int(s["count"])) for s in meta["shards"]]
            total = int(meta["cardinality"])
        except (KeyError, TypeError, ValueError) as e:
            raise DataLossError(
                None, "LoadDataset", f"{op}: the metadata at {path!r} is malformed ({e!r:.80})."
            ) from None
        if element_spec is not None and not compatible(element_spec, saved_spec):
            raise ValueError(
                f"{op}: element_spec does not match the saved elements {saved_spec!r}. "
                f"Received: element_spec={element_spec!r}"
            )
        if compression is not None and compression_arg(compression, op) != saved_compression:
            raise ValueError(
                f"{op}: the dataset at {path!r} was saved with compression "
                f"{saved_compression or 'NONE'!r}. Received: compression={compression!r}"
            )
        spec = saved_spec if element_spec is None else element_spec
        self._spec_value = spec
        shards = _Shards([_Shard(f, n, saved_compression, spec) for f, n in shard_meta], spec)
        self._default = reader_func is None
        if self._default:
            self._out = shards.flat_map(lambda shard: shard)
            self._count = total
        else:
            self._out = call(reader_func, shards)
            if not isinstance(self._out, Dataset):
                raise TypeError(
                    f"{op}: reader_func must return a Dataset. Received: {type(self._out).__name__}"
                )

    def _iter(self, ctx):
        return self._out._iter(ctx)

    def _cardinality(self) -> int:
        return self._count if self._default else self._out._cardinality()

    def _spec(self, peek):
        return self._spec_value


# -- snapshot -----------------------------------------------------------------------------------

# Attributes of datasets that are run-time state or per-construction randomness, not what the
# pipeline computes: left out of the fingerprint so that equal pipelines hash equally.
_STATE = frozenset(
    {"_spec_cache", "_epoch", "_memory", "_source", "_lock", "_key", "_ragged", "_tasks"}
)


def fingerprint(dataset: Dataset) -> str:
    """A hex digest of what a pipeline computes, as far as Python can see it: each dataset's
    class and settings, the bytes of in-memory tensors and arrays, and each function's code,
    constants, defaults and closure values other than lists, dicts and sets (not the globals it
    reads), down to the sources; and
    the element spec when it is known without running the pipeline."""
    h = hashlib.sha256()
    _feed(h, dataset, 0, set())
    h.update(repr(dataset._static_spec()).encode())
    return h.hexdigest()[:24]


def _feed(h, obj, depth: int, active: set) -> None:
    put = h.update
    if depth > 20:
        put(b"<deep>")
    elif obj is None or isinstance(obj, (bool, int, float, complex, str, bytes, np.generic)):
        put(f"{type(obj).__name__}:{obj!r};".encode())
    elif isinstance(obj, Dataset):
        # The depth limit is for nested values; a pipeline is hashed down to its sources
        # however long it is (a dataset met again inside itself stops the recursion).
        if id(obj) in active:
            put(b"<cycle>")
            return
        active.add(id(obj))
        put(f"<{type(obj).__qualname__}".encode())
        for name in sorted(vars(obj)):
            if name not in _STATE:
                put(name.encode())
                _feed(h, vars(obj)[name], 0, active)
        put(b">")
        active.discard(id(obj))
    elif isinstance(obj, (Tensor, np.ndarray)):
        try:
            arr = np.asarray(obj.numpy() if isinstance(obj, Tensor) else obj)
        except Exception:
            put(type(obj).__qualname__.encode())
            return
        put(f"array:{arr.dtype}:{arr.shape};".encode())
        put(repr(arr.tolist()).encode() if arr.dtype == _OBJ else np.ascontiguousarray(arr).data)
    elif isinstance(obj, (list, tuple)):
        put(f"{type(obj).__name__}(".encode())
        for x in obj:
            _feed(h, x, depth + 1, active)
        put(b")")
    elif isinstance(obj, dict):
        put(b"{")
        for k in sorted(obj, key=repr):
            _feed(h, k, depth + 1, active)
            _feed(h, obj[k], depth + 1, active)
        put(b"}")
    elif isinstance(obj, types.CodeType):
        put(f"code:{obj.co_name}:{obj.co_names}:{obj.co_varnames}".encode())
        put(obj.co_code)
        _feed(h, obj.co_consts, depth + 1, active)
    elif isinstance(obj, (types.FunctionType, types.MethodType)):
        fn = obj.__func__ if isinstance(obj, types.MethodType) else obj
        put(f"fn:{fn.__module__}.{fn.__qualname__}".encode())
        _feed(h, fn.__code__, depth + 1, active)
        _feed(h, fn.__defaults__, depth + 1, active)
        for cell in fn.__closure__ or ():
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                value = None
            if isinstance(value, (list, dict, set)):
                # often what the function appends to (a side effect), not what it computes
                put(type(value).__name__.encode())
            else:
                _feed(h, value, depth + 1, active)
    elif isinstance(obj, CompositeTensor) or hasattr(obj, "is_compatible_with"):
        put(f"{type(obj).__qualname__}:{obj!r}".encode())
    else:
        wrapped = getattr(obj, "python_function", None) or getattr(obj, "__wrapped__", None)
        if wrapped is not None and wrapped is not obj:
            _feed(h, wrapped, depth + 1, active)
        else:
            put(type(obj).__qualname__.encode())


class Snapshot(Dataset):
    """`Dataset.snapshot`: the first complete pass writes ``path/<fingerprint>``; passes after
    it (from this or any pipeline with the same fingerprint) read it."""

    def __init__(self, input: Dataset, path, compression="AUTO", reader_func=None,
                 shard_func=None):  # fmt: skip
        op = "snapshot"
        super().__init__(input)
        self._path = path_arg(path, op)
        self._compression = compression_arg(compression, op, auto=True)
        check_callable(reader_func, op, "reader_func")
        check_callable(shard_func, op, "shard_func")
        self._reader_func, self._shard_func = reader_func, shard_func
        self._dir = None

    def directory(self) -> str:
        """``path/<fingerprint>``, where this pipeline's snapshot is (or will be)."""
        if self._dir is None:
            self._dir = os.path.join(self._path, fingerprint(self._inputs[0]))
        return self._dir

    def _iter(self, ctx):
        where = self.directory()
        if os.path.exists(os.path.join(where, METADATA)):
            return Load(where, None, None, self._reader_func, "snapshot")._iter(ctx)
        if ctx.peek:
            return self._inputs[0]._iter(ctx)
        return self._write_through(where, ctx)

    def _write_through(self, where: str, ctx):
        source = self._inputs[0]
        writer = Writer(
            where, source._static_spec(), self._compression, self._shard_func, "snapshot", False
        )
        try:
            for element in source._iter(ctx):
                writer.write(element)
                yield element
            writer.finish()
        except BaseException:  # an error, or a pass stopped early (GeneratorExit)
            writer.abort()
            raise

    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()

    def _spec(self, peek):
        return input_spec(self._inputs[0], peek)
