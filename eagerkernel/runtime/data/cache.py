"""`Dataset.cache`: in memory, or in a safetensors file (no pickle: a cache file from someone
else cannot run code).

The first pass that reaches the end of the input records its elements; a pass that stops early
records nothing (as tf.data discards a partial cache). A file cache is written to a temporary
name beside ``filename`` and renamed over it at the end of the pass, so ``filename`` is either
absent or complete; later passes, and later datasets (or processes) with the same filename, read
it instead of running the input, as in TensorFlow (delete the file when the input changes).

File layout: one tensor per component, the elements stacked along a new first axis, named
``"<component>"``; a component whose elements differ in shape is stored one tensor per element,
``"<component>/<element>"``. The metadata holds a format tag, the element count, each
component's dtype and the element structure (tuples, namedtuples, dicts, as JSON), so reading
a file needs nothing from the input pipeline.

Once filled with same-shape components, a cache serves later passes from stacked arrays on the
index fast path, so ``.map(preprocess).cache().shuffle(n).batch(b)`` is as fast as
``from_tensor_slices`` from the second epoch on.
"""

from __future__ import annotations

import collections
import json
import os
import threading
import uuid

import numpy as np

from ..core import dtypes
from ..core.device import CPU
from ..core.tensor import Tensor, make
from . import plan
from .dataset import Dataset
from .sources import input_spec
from .structure import (
    TensorSpec,
    UnknownShape,
    flatten,
    is_structure,
    pack,
    same_structure,
)

__all__ = ["Cache"]

FORMAT = "eagerkernel.data.cache/1"


class Cache(Dataset):
    """`Dataset.cache`."""

    def __init__(self, input: Dataset, filename):
        super().__init__(input)
        if isinstance(filename, Tensor) or not isinstance(filename, (str, os.PathLike)):
            raise TypeError(
                f"cache: filename must be a str or path. Received: {type(filename).__name__}"
            )
        self._filename = os.fspath(filename)
        spec = input._static_spec()
        if spec is not None:
            for s in flatten(spec):
                # rows of a RaggedTensor of ragged rank 1 are Tensors (of varying lengths)
                ragged_rows = type(s).__name__ == "RaggedTensorSpec" and s.ragged_rank == 0
                if not isinstance(s, TensorSpec) and not ragged_rows:
                    raise TypeError(f"cache: cannot cache elements with components {s!r}.")
        self._memory = None  # the elements of the first complete pass (memory cache)
        self._source = None  # the same as stacked arrays, or the file's arrays, for reuse
        self._ragged = False  # the file holds components whose shapes vary
        self._lock = threading.Lock()

    # -- serving a filled cache -----------------------------------------------------------------
    def _plan(self):
        source = self._filled_source()
        return None if source is None or not plan.enabled[0] else plan.source_plan(source)

    def _filled_source(self):
        """The cached elements as a `plan.SliceSource`, or None (not filled, or ragged)."""
        with self._lock:
            if self._source is not None:
                return self._source
            if self._filename:
                if not self._ragged and os.path.exists(self._filename):
                    columns, count, spec = _load(self._filename, self._expected_spec())
                    if any(isinstance(c, list) for c in columns):
                        self._ragged = True  # served element by element by `_file_iter`
                    else:
                        self._source = plan.SliceSource(columns, [CPU] * len(columns), spec, count)
            elif self._memory:
                stacked = _stack_columns(self._memory)
                if stacked is not None:
                    arrays, devices = stacked
                    self._source = plan.SliceSource(
                        arrays, devices, self._memory[0], len(self._memory)
                    )
                    self._memory = None  # the arrays hold the same values
            return self._source

    def _iter(self, ctx):
        p = self._plan()
        if p is not None:
            return p.elements(ctx)
        if self._filename:
            return self._file_iter(ctx)
        return self._memory_iter(ctx)

    def _memory_iter(self, ctx):
        source, cached = self._source, self._memory
        if source is not None:  # (the fast path is switched off)
            yield from plan.source_plan(source).elements(ctx)
            return
        if cached is not None:
            yield from cached
            return
        record = []
        for x in self._inputs[0]._iter(ctx):
            record.append(x)
            yield x
        if not ctx.peek:
            with self._lock:
                if self._memory is None and self._source is None:
                    self._memory = record

    def _file_iter(self, ctx):
        path = self._filename
        if os.path.exists(path):
            columns, count, spec = _load(path, self._expected_spec())
            single = not is_structure(spec)
            for k in range(count):
                leaves = [make(col[k], CPU) for col in columns]
                yield leaves[0] if single else pack(spec, leaves)
            return
        record = []
        for x in self._inputs[0]._iter(ctx):
            record.append(x)
            yield x
        if not ctx.peek:
            _write(path, record)

    def _expected_spec(self):
        """What the file must hold, when known without running the input; else None."""
        return self._inputs[0]._static_spec()

    # -- the rest -------------------------------------------------------------------------------
    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()

    def _spec(self, peek):
        spec = self._inputs[0]._static_spec()
        if spec is None and self._filename and os.path.exists(self._filename):
            # The file knows, without running the input (its metadata and shapes suffice).
            return _load(self._filename, None, read_arrays=False)[2]
        return spec if spec is not None else input_spec(self._inputs[0], peek)


def _stack_columns(record: list):
    """``(arrays, devices)``: each component of ``record`` stacked, or None if a component's
    shapes or dtypes vary, or it is not a tensor."""
    flats = [flatten(e) for e in record]
    arrays, devices = [], []
    for i in range(len(flats[0])):
        first = flats[0][i]
        if not isinstance(first, Tensor):
            return None
        values = [f[i]._value for f in flats]
        if any(v.shape != values[0].shape or v.dtype != values[0].dtype for v in values):
            return None
        arrays.append(first._device.xp.stack(values))
        devices.append(first._device)
    return arrays, devices


# -- the file -----------------------------------------------------------------------------------


def _write(path: str, record: list) -> None:
    from safetensors.numpy import save_file

    flats = [flatten(e) for e in record]
    arrays = {}
    components = []
    for i in range(len(flats[0]) if flats else 0):
        values = []
        for f in flats:
            if not isinstance(f[i], Tensor):
                raise TypeError(f"cache: cannot cache elements with components {f[i]!r}.")
            # np.array keeps rank 0, where np.ascontiguousarray would make it rank 1.
            values.append(np.array(f[i].numpy(), order="C"))
        if all(v.shape == values[0].shape for v in values):
            arrays[str(i)] = np.stack(values)
            stacked = True
        else:
            arrays.update({f"{i}/{k}": v for k, v in enumerate(values)})
            stacked = False
        components.append({"dtype": values[0].dtype.name, "stacked": stacked})
    meta = {
        "format": FORMAT,
        "count": str(len(record)),
        "components": json.dumps(components),
        "structure": json.dumps(_encode(record[0]) if record else None),
    }
    tmp = f"{path}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        save_file(arrays, tmp, metadata=meta)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def _load(path: str, expected, read_arrays: bool = True):
    """``(columns, count, spec)`` from a cache file: per component the stacked array, or a list
    of per-element arrays for components whose shapes vary; the spec is ``expected`` if given
    (after checking the file against it), else the file's own. Without ``read_arrays``, the
    columns are empty stand-ins of the right shapes (for the spec alone).

    Raises:
        ValueError: not a cache file, or one whose elements do not match ``expected``.
    """
    from safetensors import safe_open

    try:
        with safe_open(path, framework="numpy") as f:
            meta = f.metadata() or {}
            if read_arrays:
                arrays = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118 (not a dict)
            else:
                stand_in = np.zeros((), np.int8)
                arrays = {
                    k: np.broadcast_to(stand_in, f.get_slice(k).get_shape())
                    for k in f.keys()  # noqa: SIM118 (not a dict)
                }
        if meta.get("format") != FORMAT:
            raise ValueError(f"its format is {meta.get('format')!r}, not {FORMAT!r}")
        count = int(meta["count"])
        components = json.loads(meta["components"])
        structure = json.loads(meta["structure"])
    except Exception as e:
        raise ValueError(f"cache: {path!r} is not a readable cache file ({e}).") from None

    def corrupt(why: str) -> ValueError:
        return ValueError(
            f"cache: {path!r} is corrupt: {why}; delete the file (it is rebuilt from the input)."
        )

    if not isinstance(components, list) or count < 0:
        raise corrupt(f"its metadata is malformed (count {count}, components {components!r:.80})")
    columns = []
    specs = []
    for i, c in enumerate(components):
        # Every path (the stacked fast path, element by element) reads what is checked here:
        # a count or dtype that disagrees with the arrays is an error, never a truncation.
        if not (isinstance(c, dict) and isinstance(c.get("dtype"), str) and "stacked" in c):
            raise corrupt(f"component {i} has malformed metadata {c!r:.80}")
        try:
            dtype = dtypes.as_dtype(c["dtype"])
        except (TypeError, ValueError):
            raise corrupt(f"component {i} has an unknown dtype {c['dtype']!r:.40}") from None
        keys = [str(i)] if c["stacked"] else [f"{i}/{k}" for k in range(count)]
        missing = [k for k in keys if k not in arrays]
        if missing:
            raise corrupt(f"it has {count} elements but no array {missing[0]!r}")
        for k in keys if read_arrays else ():  # (the stand-ins have no dtype of their own)
            if np.dtype(arrays[k].dtype) != np.dtype(dtype.as_numpy_dtype):
                raise corrupt(
                    f"array {k!r} has dtype {np.dtype(arrays[k].dtype).name}, the metadata "
                    f"says {c['dtype']}"
                )
        if c["stacked"]:
            column = arrays[str(i)]
            if column.ndim == 0 or column.shape[0] != count:
                raise corrupt(
                    f"component {i} holds {column.shape[0] if column.ndim else 0} elements, "
                    f"the metadata says {count}"
                )
            columns.append(column)
            specs.append(TensorSpec(column.shape[1:], dtype))
        else:
            column = [arrays[f"{i}/{k}"] for k in range(count)]
            columns.append(column)
            ranks = {a.ndim for a in column}
            shape = UnknownShape() if len(ranks) != 1 else [None] * ranks.pop()
            specs.append(TensorSpec(shape, dtype))
    if structure is None:  # an empty cache
        return columns, 0, expected
    try:
        spec = pack(_decode(structure), specs)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        raise corrupt(
            f"its element structure {structure!r:.80} does not fit its components"
        ) from None
    if expected is not None:
        ok = same_structure(expected, spec) and all(
            isinstance(e, TensorSpec) and e.dtype == s.dtype
            for e, s in zip(flatten(expected), flatten(spec))
        )
        if not ok:
            raise ValueError(
                f"cache: the cache file {path!r} holds elements {spec!r}, but this dataset's "
                f"elements are {expected!r}; delete the file or use another filename."
            )
        spec = expected
    return columns, count, spec


def _encode(element):
    """The nesting of an element as JSON: ``"tensor"`` for a leaf."""
    if isinstance(element, dict):
        return {"dict": [[k, _encode(v)] for k, v in element.items()]}
    if is_structure(element):
        children = [_encode(v) for v in element]
        if type(element) is tuple:
            return {"tuple": children}
        return {"namedtuple": [type(element).__name__, list(element._fields), children]}
    return "tensor"


def _decode(encoded):
    """A template structure (None leaves) from `_encode`'s JSON; namedtuples come back as
    namedtuple classes of the same name and fields."""
    if encoded == "tensor":
        return None
    if "dict" in encoded:
        return {k: _decode(v) for k, v in encoded["dict"]}
    if "tuple" in encoded:
        return tuple(_decode(v) for v in encoded["tuple"])
    name, fields, children = encoded["namedtuple"]
    return collections.namedtuple(name, fields)(*(_decode(v) for v in children))
