"""`Dataset.cache`: in memory, or in a safetensors file (no pickle: a cache file from someone
else cannot run code).

The first pass that reaches the end of the input records its elements; a pass that stops early
records nothing (as tf.data discards a partial cache). A file cache is written to a temporary
name beside ``filename`` and renamed over it at the end of the pass, so ``filename`` is either
absent or complete; later passes, and later datasets with the same filename, read it instead of
running the input.

File layout: one tensor per component, the elements stacked along a new first axis, named
``"<component>"``; a component whose elements differ in shape is stored one tensor per element,
``"<component>/<element>"``. The metadata holds the format tag, the element count and each
component's dtype.
"""

from __future__ import annotations

import json
import os
import threading
import uuid

import numpy as np

from ..device import CPU
from ..tensor import Tensor, make
from . import plan
from .dataset import _UNSET, Dataset
from .sources import input_spec
from .structure import TensorSpec, flatten, is_structure, pack, spec_of

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
                if not isinstance(s, TensorSpec):
                    raise TypeError(f"cache: cannot cache elements with components {s!r}.")
        self._memory = None  # the elements of the first complete pass (memory cache)
        self._source = None  # the same, stacked into arrays (or read from the file) for reuse
        self._ragged = False  # the file holds components whose shapes vary
        self._lock = threading.Lock()

    def _plan(self):
        """Once the cache is filled with same-shape components, later passes run on the index
        fast path like `from_tensor_slices` (``.cache().shuffle(...).batch(...)``)."""
        source = self._filled_source()
        return None if source is None or not plan.enabled[0] else plan.source_plan(source)

    def _filled_source(self):
        if self._filename:
            with self._lock:
                if self._source is None and not self._ragged and os.path.exists(self._filename):
                    columns, devices, count, spec = self._load(self._filename)
                    if any(isinstance(c, list) for c in columns):
                        self._ragged = True  # read element by element by `_read`
                    else:
                        self._source = plan.SliceSource(columns, devices, spec, count)
                return self._source
        with self._lock:
            if self._source is None and self._memory:
                columns = _stack_columns(self._memory)
                if columns is not None:
                    values, devices = columns
                    self._source = plan.SliceSource(
                        values, devices, self._memory[0], len(self._memory)
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
        if source is not None:
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
            yield from self._read(path)
            return
        record = []
        for x in self._inputs[0]._iter(ctx):
            record.append(x)
            yield x
        if not ctx.peek:
            _write(path, record)
            if record and self._spec_cache is _UNSET:
                # Reading the file back needs the element structure: keep it, so this dataset
                # never has to run its input again to learn it.
                self._spec_cache = spec_of(record[0])

    def _load(self, path: str):
        """``(columns, devices, count, spec)`` from a cache file: per component, the stacked
        array, or a list of per-element arrays for components whose shapes vary."""
        from safetensors import safe_open

        try:
            with safe_open(path, framework="numpy") as f:
                meta = f.metadata() or {}
                arrays = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118 (not a dict)
            if meta.get("format") != FORMAT:
                raise ValueError(f"its format is {meta.get('format')!r}, not {FORMAT!r}")
            count = int(meta["count"])
            components = json.loads(meta["components"])
        except Exception as e:
            raise ValueError(f"cache: {path!r} is not a readable cache file ({e}).") from None
        spec = self.element_spec
        flat_spec = flatten(spec)
        dtypes_in_file = [c["dtype"] for c in components]
        expected = [np.dtype(s.dtype.as_numpy_dtype).name for s in flat_spec]
        if count and dtypes_in_file != expected:
            raise ValueError(
                f"cache: the cache file {path!r} holds elements with component dtypes "
                f"{dtypes_in_file}, but this dataset's elements have {expected} ({spec!r}); "
                "delete the file or use another filename."
            )
        columns = []
        for i, c in enumerate(components):
            if c["stacked"]:
                columns.append(arrays[str(i)])
            else:
                columns.append([arrays[f"{i}/{k}"] for k in range(count)])
        return columns, [CPU] * len(columns), count, spec

    def _read(self, path: str):
        columns, _, count, spec = self._load(path)
        single = not is_structure(spec)
        for k in range(count):
            leaves = [make(col[k], CPU) for col in columns]
            yield leaves[0] if single else pack(spec, leaves)

    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()

    def _spec(self, peek):
        return input_spec(self._inputs[0], peek)


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
            values.append(
                np.array(f[i].numpy(), order="C")
            )  # keeps rank 0, unlike ascontiguousarray
        if all(v.shape == values[0].shape for v in values):
            arrays[str(i)] = np.stack(values)
            stacked = True
        else:
            arrays.update({f"{i}/{k}": v for k, v in enumerate(values)})
            stacked = False
        components.append({"dtype": values[0].dtype.name, "stacked": stacked})
    meta = {"format": FORMAT, "count": str(len(record)), "components": json.dumps(components)}
    tmp = f"{path}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        save_file(arrays, tmp, metadata=meta)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
