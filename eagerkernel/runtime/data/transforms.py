"""Element-wise transformations run in the consuming thread: map, filter, batch, padded_batch,
unbatch, repeat, take, skip, enumerate, window, interleave/flat_map, shard."""

from __future__ import annotations

import numpy as np

from .. import random
from ..core import dtypes
from ..core.composite import CompositeTensor
from ..core.device import CPU
from ..core.errors import DataLossError, InvalidArgumentError
from ..core.tensor import Tensor, make
from . import plan
from .dataset import (
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Context,
    Dataset,
    int_arg,
)
from .sources import Elements, input_spec
from .structure import (
    DatasetSpec,
    PartialShape,
    TensorSpec,
    UnknownShape,
    as_shape,
    call,
    flatten,
    flatten_up_to,
    function_output,
    map_structure,
    pack,
    packer,
    spec_of,
)


def _check_callable(fn, op: str, arg: str) -> None:
    if not callable(fn):
        raise TypeError(f"{op}: {arg} must be callable. Received: {arg}={fn!r:.60}")


def bool_arg(value, op: str, arg: str) -> bool:
    """The bool argument ``arg`` of ``op`` (a Python, NumPy or scalar Tensor bool); TypeError,
    as TensorFlow's conversion to a bool tensor, for anything else ("yes" is not True)."""
    v = value.numpy() if isinstance(value, Tensor) else value
    if isinstance(v, (bool, np.bool_)):  # a scalar Tensor's numpy() is a np.bool_
        return bool(v)
    raise TypeError(f"{op}: {arg} must be a bool. Received: {arg}={value!r:.60}")


def positive_arg(value, op: str, arg: str) -> int:
    """The int argument ``arg`` of ``op``; InvalidArgumentError (TensorFlow's: "Batch size must
    be greater than zero"; also a ValueError) naming both when it is not positive."""
    n = int_arg(value, op, arg)
    if n <= 0:
        raise InvalidArgumentError(None, op, f"{op}: {arg} must be positive. Received: {arg}={n}")
    return n


class Map(Dataset):
    """`Dataset.map` without parallelism: ``map_func`` runs in the consuming thread."""

    def __init__(self, input: Dataset, map_func):
        _check_callable(map_func, "map", "map_func")
        super().__init__(input)
        self._fn = map_func
        self._global_seed = random.get_seed()  # TF seeds the function's ops when it traces

    def apply_fn(self, element):
        return function_output(call(self._fn, element), "map")

    def _iter(self, ctx):
        fn = self.apply_fn
        draws = random.FunctionDraws(self._global_seed)  # each pass repeats seeded draws
        for x in self._inputs[0]._iter(ctx):
            yield draws.call(fn, x)

    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()

    def _spec(self, peek):
        from .function_spec import mapped_spec

        return mapped_spec(self._inputs[0], self.apply_fn, type(self).__name__) if peek else None


class Filter(Dataset):
    """`Dataset.filter`."""

    def __init__(self, input: Dataset, predicate):
        _check_callable(predicate, "filter", "predicate")
        super().__init__(input)
        self._predicate = predicate

    def keeps(self, element) -> bool:
        """Whether ``predicate`` keeps ``element``."""
        return _truth(call(self._predicate, element))

    def _iter(self, ctx):
        predicate = self._predicate
        for x in self._inputs[0]._iter(ctx):
            if _truth(call(predicate, x)):
                yield x

    def _spec(self, peek):
        return input_spec(self._inputs[0], peek)


def _truth(value) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, Tensor) and value.dtype.is_bool and value.ndim == 0:
        return bool(value)
    what = (
        f"a Tensor of shape {tuple(value.shape)} and dtype {value.dtype.name}"
        if isinstance(value, Tensor)
        else f"{type(value).__name__} {value!r:.40}"
    )
    raise ValueError(f"filter: predicate must return a bool scalar tensor, but returned {what}.")


# -- batching -----------------------------------------------------------------------------------


def stack_elements(elements: list, op: str, ragged=None):
    """Stacks elements of one structure into a batch element: one NumPy stack per component.
    ``ragged``: per component, whether its spec is a RaggedTensorSpec (its Tensor rows, of any
    lengths, then make a RaggedTensor)."""
    first = elements[0]
    if not isinstance(first, (tuple, dict)):
        return _stack_component(elements, 0, op, ragged)
    flats = [flatten(e) for e in elements]
    n = len(flats[0])
    for k, f in enumerate(flats):
        if len(f) != n:
            raise ValueError(
                f"{op}: cannot batch elements of different structures: element 0 is "
                f"{first!r:.100} and element {k} is {elements[k]!r:.100}."
            )
    return pack(first, [_stack_component([f[i] for f in flats], i, op, ragged) for i in range(n)])


def _stack_component(tensors: list, i: int, op: str, ragged=None) -> Tensor:
    t0 = tensors[0]
    if isinstance(t0, Dataset):
        raise TypeError(f"{op}: cannot batch elements whose components are Datasets.")
    if ragged is not None and ragged[i] and isinstance(t0, Tensor):
        from ..ragged.ragged_ops import stack_rows  # rows of a RaggedTensorSpec component

        return stack_rows(tensors, op)
    if isinstance(t0, CompositeTensor):  # RaggedTensors, SparseTensors: one more dimension
        if any(type(t) is not type(t0) for t in tensors):
            raise TypeError(f"{op}: component {i} mixes {type(t0).__name__}s and other values.")
        return type(t0)._ek_stack(tensors, op)
    dev = t0._device
    values = [t._value for t in tensors]
    dt0 = values[0].dtype
    for k, v in enumerate(values):
        if v.dtype != dt0:
            raise TypeError(
                f"{op}: cannot batch tensors of different dtypes in component {i}: the first "
                f"element has dtype {dt0.name} and element {k} has dtype {v.dtype.name}."
            )
    try:
        out = dev.xp.stack(values)
    except ValueError:
        s0 = values[0].shape
        k = next(k for k, v in enumerate(values) if v.shape != s0)
        raise InvalidArgumentError(
            f"{op}: cannot batch tensors with different shapes in component {i}. First "
            f"element had shape {tuple(s0)} and element {k} had shape {tuple(values[k].shape)}."
        ) from None
    return make(out, dev)


def batched_cardinality(n: int, size: int, drop: bool) -> int:
    """The cardinality of ``n`` elements in batches of ``size`` (``drop``: the partial last
    batch dropped); a negative ``n`` (infinite or unknown) stays as it is."""
    if n < 0:
        return n
    return n // size if drop else -(-n // size)


def _batched_spec(spec, batch_dim):
    def leaf(s):
        spec_type = type(s).__name__
        if spec_type == "SparseTensorSpec":
            return type(s)((batch_dim, *s.shape), s.dtype)
        if spec_type == "RaggedTensorSpec":  # TF's RaggedTensorSpec._batch: known dims stay
            return type(s)((batch_dim, *s.shape), s.dtype, s.ragged_rank + 1)
        if not isinstance(s, TensorSpec):
            return s
        if isinstance(s.shape, UnknownShape):
            return s
        return TensorSpec((batch_dim, *s.shape), s.dtype)

    return map_structure(leaf, spec)


def _ragged_components(dataset: Dataset):
    """Per component of ``dataset``'s elements, whether its static spec is a RaggedTensorSpec
    (None when the spec is only known by running the pipeline)."""
    spec = dataset._static_spec()
    if spec is None:
        return None
    flags = [type(s).__name__ == "RaggedTensorSpec" for s in flatten(spec)]
    return flags if any(flags) else None


class Batch(Dataset):
    """`Dataset.batch`; over in-memory arrays, batches are gathered by `plan.batches`."""

    def __init__(self, input: Dataset, batch_size, drop_remainder):
        super().__init__(input)
        self._size = positive_arg(batch_size, "batch", "batch_size")
        self._drop = bool_arg(drop_remainder, "batch", "drop_remainder")

    def _iter(self, ctx):
        p = self._inputs[0]._plan()
        if p is not None:
            return plan.batches(p, self._size, self._drop, ctx)
        return self._iter_elements(ctx)

    def _iter_elements(self, ctx):
        size = self._size
        buf = []
        ragged = _ragged_components(self._inputs[0])
        for x in self._inputs[0]._iter(ctx):
            buf.append(x)
            if len(buf) == size:
                yield stack_elements(buf, "batch", ragged)
                buf = []
        if buf and not self._drop:
            yield stack_elements(buf, "batch", ragged)

    def _cheap(self) -> bool:
        p = self._inputs[0]._plan()
        if p is None:
            return False
        row_bytes = sum(a.nbytes // max(1, len(a)) for a in p.source.arrays)
        return row_bytes * self._size <= plan.CHEAP_BATCH_BYTES

    def _cardinality(self) -> int:
        return batched_cardinality(self._inputs[0]._cardinality(), self._size, self._drop)

    def _spec(self, peek):
        spec = input_spec(self._inputs[0], peek)
        return None if spec is None else _batched_spec(spec, self._size if self._drop else None)


class PaddedBatch(Dataset):
    """`Dataset.padded_batch`."""

    def __init__(self, input, batch_size, padded_shapes, padding_values, drop_remainder):
        super().__init__(input)
        self._size = positive_arg(batch_size, "padded_batch", "batch_size")
        for s in flatten(input._static_spec()):  # known without running: TF's check
            if s is not None and not isinstance(s, TensorSpec):
                raise TypeError(
                    "`padded_batch` is only supported for datasets that produce tensor "
                    "elements but type spec of elements in the input dataset is not a "
                    f"subclass of TensorSpec: `{s!r}`."
                )
        self._shapes = padded_shapes
        self._values = padding_values
        self._drop = bool(drop_remainder)

    def _iter(self, ctx):
        buf = []
        for x in self._inputs[0]._iter(ctx):
            buf.append(x)
            if len(buf) == self._size:
                yield self._pad(buf)
                buf = []
        if buf and not self._drop:
            yield self._pad(buf)

    def _pad(self, elements):
        op = "padded_batch"
        first = elements[0]
        flats = [flatten(e) for e in elements]
        shapes = flatten_up_to(first, self._shapes, op, "padded_shapes")
        values = flatten_up_to(first, self._values, op, "padding_values")
        out = []
        for i, (target, pad_value) in enumerate(zip(shapes, values)):
            out.append(_pad_component([f[i] for f in flats], i, target, pad_value))
        return pack(first, out) if isinstance(first, (tuple, dict)) else out[0]

    def _cardinality(self) -> int:
        return batched_cardinality(self._inputs[0]._cardinality(), self._size, self._drop)

    def _spec(self, peek):
        spec = input_spec(self._inputs[0], peek)
        if spec is None:
            return None
        batch_dim = self._size if self._drop else None
        shapes = flatten_up_to(spec, self._shapes, "padded_batch", "padded_shapes")

        def leaf(s, target):
            if target is None:
                if isinstance(s.shape, UnknownShape):
                    return TensorSpec(None, s.dtype)
                shape = s.shape.as_list()  # TF pads to the input's spec: known dims stay
            else:
                shape = [None if d is None else d for d in as_shape(target)]
            return TensorSpec((batch_dim, *shape), s.dtype)

        return pack(spec, [leaf(s, t) for s, t in zip(flatten(spec), shapes)])


def _pad_component(tensors, i, target, pad_value) -> Tensor:
    op = "padded_batch"
    values = [t._value for t in tensors]
    dev = tensors[0]._device
    dtype = values[0].dtype
    rank = values[0].ndim
    for k, v in enumerate(values):
        if v.ndim != rank:
            raise ValueError(
                f"{op}: elements of component {i} have different ranks: element 0 has shape "
                f"{tuple(values[0].shape)} and element {k} has shape {tuple(v.shape)}."
            )
        if v.dtype != dtype:
            raise TypeError(f"{op}: elements of component {i} have different dtypes.")
    largest = tuple(np.max([v.shape for v in values], axis=0).tolist()) if rank else ()
    if target is None:
        shape = largest
    else:
        wanted = as_shape(target, op, "padded_shapes")
        if isinstance(wanted, UnknownShape):
            wanted = PartialShape([None] * rank)
        if len(wanted) != rank:
            raise ValueError(
                f"{op}: the padded shape {tuple(wanted)} of component {i} does not have the "
                f"rank of its elements (shape {tuple(values[0].shape)})."
            )
        shape = tuple(m if w is None else w for w, m in zip(wanted, largest))
        for w, m in zip(shape, largest):
            if m > w:  # TensorFlow's kernel reports this as DataLoss
                raise DataLossError(
                    None,
                    "PaddedBatchDataset",
                    f"{op}: attempted to pad to a smaller size than the input element: "
                    f"component {i} has an element of shape {largest} and the padded shape "
                    f"is {tuple(wanted)}.",
                )
    fill = _padding_value(pad_value, dtype, i)
    out = dev.xp.full((len(values), *shape), fill, dtype=dtype)
    for k, v in enumerate(values):
        out[(k, *(slice(0, d) for d in v.shape), Ellipsis)] = v  # `...`: strings stay bytes
    return make(out, dev)


def _padding_value(value, dtype, i):
    op = "padded_batch"
    if value is None:
        return np.zeros((), dtype) if dtype.kind != "O" else np.asarray(b"", dtype=object)
    if isinstance(value, Tensor):
        if value._value.dtype != dtype:
            raise TypeError(
                f"{op}: padding value for component {i} has dtype {value.dtype.name}, but the "
                f"component has dtype {np.dtype(dtype).name}."
            )
        value = value.numpy()
    arr = np.asarray(value)
    if arr.ndim != 0:
        raise ValueError(f"{op}: padding values must be scalars. Received: {value!r:.60}")
    if arr.dtype.kind == "f" and np.dtype(dtype).kind in "iub":
        raise TypeError(
            f"{op}: padding value {value!r} for component {i} does not fit its dtype "
            f"{np.dtype(dtype).name}."
        )
    return arr.astype(dtype)


class Unbatch(Dataset):
    """`Dataset.unbatch`."""

    def _iter(self, ctx):
        for x in self._inputs[0]._iter(ctx):
            flat = flatten(x)
            pk = packer(x)
            n = None
            for t in flat:
                composite = isinstance(t, CompositeTensor)
                if isinstance(t, Dataset) or (not composite and t.ndim == 0):
                    raise ValueError(
                        "unbatch: cannot unbatch an element with scalar (or Dataset) "
                        f"components; got {x!r:.100}."
                    )
                rows = t._ek_nrows() if composite else t.shape[0]
                if n is None:
                    n = rows
                elif rows != n:
                    shapes = ", ".join(
                        type(t).__name__ if isinstance(t, CompositeTensor) else str(tuple(t.shape))
                        for t in flat
                    )
                    raise InvalidArgumentError(
                        None,
                        "UnbatchDataset",
                        "unbatch: all components must have the same first dimension; got "
                        f"shapes {shapes}.",
                    )
            if any(isinstance(t, CompositeTensor) for t in flat):  # ragged rows
                for i in range(n):
                    yield pk(
                        [t._ek_row(i) if isinstance(t, CompositeTensor) else t[i] for t in flat]
                    )
                continue
            pairs = [(t._value, t._device) for t in flat]
            for i in range(n):
                yield pk([make(v[i, ...] if v.dtype.kind == "O" else v[i], d) for v, d in pairs])

    def _cardinality(self) -> int:
        n = self._inputs[0]._cardinality()
        if n < 0:
            return n
        spec = self._inputs[0]._static_spec()
        if spec is None:
            return UNKNOWN_CARDINALITY
        dims = {
            s.shape[0] if isinstance(s, TensorSpec) and s.shape.rank else None
            for s in flatten(spec)
        }
        if len(dims) != 1 or None in dims or 0 in dims:  # TF: 0 rows a batch is unknown
            return UNKNOWN_CARDINALITY
        return n * dims.pop()

    def _spec(self, peek):
        spec = input_spec(self._inputs[0], peek)
        if spec is None:
            return None

        def leaf(s):
            if isinstance(s.shape, UnknownShape):
                return s
            if not s.shape.rank:
                raise ValueError("unbatch: cannot unbatch an input with scalar components.")
            if type(s).__name__ == "RaggedTensorSpec":  # rows: one ragged rank less
                return type(s)(list(s.shape)[1:], s.dtype, max(s.ragged_rank - 1, 0))
            if type(s).__name__ == "SparseTensorSpec":
                return type(s)(list(s.shape)[1:], s.dtype)
            return TensorSpec(s.shape[1:], s.dtype)

        return map_structure(leaf, spec)


# -- counting -----------------------------------------------------------------------------------


class _SameSpec(Dataset):
    def _spec(self, peek):
        return input_spec(self._inputs[0], peek)


class Repeat(_SameSpec):
    """`Dataset.repeat`: each repetition is a new pass over the input."""

    def __init__(self, input: Dataset, count):
        super().__init__(input)
        self._count = -1 if count is None else int_arg(count, "repeat", "count")

    def _plan(self):
        p = self._inputs[0]._plan()
        return None if p is None else plan.repeat_plan(p, self._count)

    def _iter(self, ctx):
        p = self._plan()
        if p is not None:
            return p.elements(ctx)
        return self._iter_elements(ctx)

    def _iter_elements(self, ctx):
        n = 0
        while self._count < 0 or n < self._count:
            n += 1
            empty = True
            for x in self._inputs[0]._iter(ctx):
                empty = False
                yield x
            if empty:
                return

    def _cardinality(self) -> int:
        n = self._inputs[0]._cardinality()
        if self._count < 0:
            return 0 if n == 0 else INFINITE_CARDINALITY
        if self._count == 0:
            return 0
        if n < 0:
            return n
        return self._count * n


class Take(_SameSpec):
    """`Dataset.take`."""

    def __init__(self, input: Dataset, count):
        super().__init__(input)
        self._count = int_arg(count, "take", "count")

    def _plan(self):
        p = self._inputs[0]._plan()
        if p is None or self._count < 0:
            return p
        return plan.take_plan(p, self._count)

    def _iter(self, ctx):
        p = self._plan()
        if p is not None:
            return p.elements(ctx)
        return self._iter_elements(ctx)

    def _iter_elements(self, ctx):
        count = self._count
        if count == 0:
            return
        for k, x in enumerate(self._inputs[0]._iter(ctx), 1):
            yield x
            if k == count:
                return

    def _cardinality(self) -> int:
        n = self._inputs[0]._cardinality()
        if n == UNKNOWN_CARDINALITY:
            return n
        # TF's formula, whose count below -1 (which takes everything, as -1 does) leaks into
        # the result: take(-2) is of unknown cardinality, take(-3) of -3.
        if n == INFINITE_CARDINALITY:
            return self._count
        return n if self._count == -1 else min(n, self._count)


class Skip(_SameSpec):
    """`Dataset.skip`; a negative count skips everything."""

    def __init__(self, input: Dataset, count):
        super().__init__(input)
        self._count = int_arg(count, "skip", "count")

    def _plan(self):
        p = self._inputs[0]._plan()
        if p is None:
            return None
        return plan.skip_plan(p, self._count if self._count >= 0 else np.iinfo(np.int64).max)

    def _iter(self, ctx):
        p = self._plan()
        if p is not None:
            return p.elements(ctx)
        return self._iter_elements(ctx)

    def _iter_elements(self, ctx):
        for k, x in enumerate(self._inputs[0]._iter(ctx)):
            if 0 <= self._count <= k:
                yield x

    def _cardinality(self) -> int:
        n = self._inputs[0]._cardinality()
        if n < 0:
            return n
        return 0 if self._count < 0 else max(0, n - self._count)


class Enumerate(Dataset):
    """`Dataset.enumerate`: ``(int64 counter, element)`` pairs."""

    def __init__(self, input: Dataset, start):
        super().__init__(input)
        self._start = int_arg(start, "enumerate", "start")

    def _iter(self, ctx):
        k = self._start
        for x in self._inputs[0]._iter(ctx):
            yield make(np.int64(k), CPU), x
            k += 1

    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()

    def _spec(self, peek):
        spec = input_spec(self._inputs[0], peek)
        return None if spec is None else (TensorSpec((), dtypes.int64), spec)


class Shard(_SameSpec):
    """`Dataset.shard`."""

    def __init__(self, input: Dataset, num_shards, index):
        super().__init__(input)
        self._n = positive_arg(num_shards, "shard", "num_shards")
        self._index = int_arg(index, "shard", "index")
        if not 0 <= self._index < self._n:
            raise InvalidArgumentError(
                f"shard: index must be in [0, num_shards={self._n}). Received: index={self._index}"
            )

    def _iter(self, ctx):
        for k, x in enumerate(self._inputs[0]._iter(ctx)):
            if k % self._n == self._index:
                yield x

    def _cardinality(self) -> int:
        n = self._inputs[0]._cardinality()
        if n < 0:
            return n
        return n // self._n + (1 if self._index < n % self._n else 0)


# -- windows and interleaving -------------------------------------------------------------------


class Window(Dataset):
    """`Dataset.window`, with tf.data's buffer algorithm."""

    def __init__(self, input: Dataset, size, shift, stride, drop_remainder):
        super().__init__(input)
        self._size = positive_arg(size, "window", "size")
        self._shift = self._size if shift is None else positive_arg(shift, "window", "shift")
        self._stride = positive_arg(stride, "window", "stride")
        self._drop = bool(drop_remainder)

    def _iter(self, ctx):
        size, shift, stride = self._size, self._shift, self._stride
        target = (size - 1) * stride + 1
        it = iter(self._inputs[0]._iter(ctx))
        exhausted = False
        buf = []
        while True:
            while not exhausted and len(buf) < target:
                try:
                    buf.append(next(it))
                except StopIteration:
                    exhausted = True
            if not buf or (self._drop and len(buf) < target):
                return
            yield self._make_window(buf[::stride][:size])
            if shift >= len(buf):
                for _ in range(shift - len(buf)):
                    if exhausted:
                        break
                    try:
                        next(it)
                    except StopIteration:
                        exhausted = True
                buf = []
            else:
                buf = buf[shift:]

    def _make_window(self, elements):
        first = elements[0]
        spec = self._inputs[0]._static_spec()
        if spec is None:
            spec = spec_of(first)
        flat_specs = flatten(spec)
        columns = list(zip(*(flatten(e) for e in elements)))
        datasets = [Elements(list(c), s) for c, s in zip(columns, flat_specs)]
        return pack(first, datasets) if isinstance(first, (tuple, dict)) else datasets[0]

    def _cardinality(self) -> int:
        n = self._inputs[0]._cardinality()
        if n < 0:
            return n
        if self._drop:
            rest = n - ((self._size - 1) * self._stride + 1)
            return 0 if rest < 0 else rest // self._shift + 1
        return -(-n // self._shift)

    def _spec(self, peek):
        spec = input_spec(self._inputs[0], peek)
        return None if spec is None else map_structure(DatasetSpec, spec)


class Interleave(Dataset):
    """`Dataset.interleave` (sequential) and `Dataset.flat_map`."""

    def __init__(self, input: Dataset, map_func, cycle_length, block_length, name="interleave"):
        _check_callable(map_func, name, "map_func")
        super().__init__(input)
        self._fn = map_func
        self._cycle = cycle_length
        self._block = block_length
        self._name = name

    def open(self, element) -> Dataset:
        """``map_func(element)``, checked to be a Dataset."""
        ds = call(self._fn, element)
        if not isinstance(ds, Dataset):
            raise TypeError(
                f"{self._name}: map_func must return a Dataset. Received: {type(ds).__name__}"
            )
        return ds

    def _iter(self, ctx):
        inputs = iter(self._inputs[0]._iter(ctx))
        slots = [None] * self._cycle
        n_open = 0
        index = 0
        block = 0
        end_of_input = False
        while not end_of_input or n_open:
            current = slots[index]
            if current is not None:
                try:
                    x = next(current)
                except StopIteration:
                    slots[index] = None
                    n_open -= 1
                    index, block = (index + 1) % self._cycle, 0
                    continue
                yield x
                block += 1
                if block == self._block:
                    index, block = (index + 1) % self._cycle, 0
            elif not end_of_input:
                try:
                    element = next(inputs)
                except StopIteration:
                    end_of_input = True
                    continue
                slots[index] = iter(self.open(element)._iter(ctx))
                n_open += 1
            else:
                index, block = (index + 1) % self._cycle, 0

    def _spec(self, peek):
        if not peek:
            return None
        from .traced_spec import relaxed_by_trace, traced_spec

        it = self._inputs[0]._iter(Context(peek=True))
        try:
            spec = self.open(next(it)).element_spec
        except StopIteration:
            return traced_spec(self)
        except Exception as e:  # an error TF raises when iterating: stand-ins of the input
            return traced_spec(self, e)
        finally:
            getattr(it, "close", lambda: None)()
        return relaxed_by_trace(spec, self._inputs[0], self._trace_specs, type(self).__name__)

    def _trace_specs(self, elements) -> list:  # an empty input: see `traced_spec`
        return [self.open(x).element_spec for x in elements]
