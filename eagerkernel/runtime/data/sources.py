"""Dataset sources: tensor slices, single tensors, Python generators, ranges, zip, concatenate."""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.composite import CompositeTensor
from ..core.device import CPU
from ..core.errors import InvalidArgumentError
from ..core.string_values import is_string_value, to_bytes_array
from ..core.tensor import Tensor, convert_to_tensor, make
from . import plan
from .dataset import (
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Dataset,
    int_arg,
)
from .structure import (
    DatasetSpec,
    TensorSpec,
    as_shape,
    call_args,
    flatten,
    map_structure,
    pack,
    packer,
    same_structure,
    spec_of,
    to_component,
)


def _components(value, op: str):
    """Converts a user value to a structure of Tensors, as `ek.convert_to_tensor` does: NumPy
    arrays are used without a copy (a 47 MB training set costs nothing to wrap), so changing
    them in place afterwards changes the dataset."""

    def leaf(v):
        if isinstance(v, Dataset):
            raise TypeError(f"{op}: components must be tensors, got a Dataset.")
        return to_component(v, op)

    if isinstance(value, (tuple, dict)):
        return map_structure(leaf, value)
    return leaf(value)


def input_spec(dataset: Dataset, peek: bool):
    """``dataset``'s element spec, or None if it is not known without running it."""
    return dataset.element_spec if peek else dataset._static_spec()


class TensorSlices(Dataset):
    """`Dataset.from_tensor_slices`."""

    def __init__(self, tensors):
        super().__init__()
        element = _components(tensors, "from_tensor_slices")
        flat = flatten(element)
        for i, t in enumerate(flat):
            if not isinstance(t, CompositeTensor) and t.ndim == 0:
                raise ValueError(
                    "from_tensor_slices: every component needs a first dimension to slice, "
                    f"but component {i} is a scalar (shape ())."
                )
        rows = [t._ek_nrows() if isinstance(t, CompositeTensor) else t.shape[0] for t in flat]
        n = rows[0]
        if any(r != n for r in rows):
            shapes = ", ".join(
                type(t).__name__ if isinstance(t, CompositeTensor) else str(tuple(t.shape))
                for t in flat
            )
            raise ValueError(
                "from_tensor_slices: all components must have the same size in their first "
                f"dimension. Received components of shapes {shapes}."
            )
        self._element_structure = element
        if any(isinstance(t, CompositeTensor) for t in flat):  # ragged: sliced row by row
            self._source = None
            self._rows = (flat, n)
            return
        self._source = plan.SliceSource(
            [t._value for t in flat], [t._device for t in flat], element, n
        )

    def _iter(self, ctx):
        if self._source is None:
            return self._iter_rows()
        return plan.source_plan(self._source).elements(ctx)

    def _iter_rows(self):
        flat, n = self._rows
        pk = packer(self._element_structure)
        for i in range(n):
            yield pk([t._ek_row(i) if isinstance(t, CompositeTensor) else t[i] for t in flat])

    def _plan(self):
        if self._source is None:
            return None
        return plan.source_plan(self._source) if plan.enabled[0] else None

    def _cardinality(self) -> int:
        return self._rows[1] if self._source is None else self._source.n

    def _spec(self, peek):
        if self._source is None:  # ragged or sparse components: the specs of their rows
            return map_structure(_row_spec, self._element_structure)
        return map_structure(lambda t: TensorSpec(t.shape[1:], t.dtype), self._element_structure)


def _row_spec(t):
    """The spec of a row of ``t``: a RaggedTensor's rows have a RaggedTensorSpec of one ragged
    rank less (rank 0: the rows are Tensors, batched again into a RaggedTensor, as TF does)."""
    from ..ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec
    from ..sparse.sparse_tensor import SparseTensor, SparseTensorSpec

    if isinstance(t, RaggedTensor):
        return RaggedTensorSpec(list(t.shape)[1:], t.dtype, t.ragged_rank - 1)
    if isinstance(t, SparseTensor):
        return SparseTensorSpec(list(t.shape)[1:], t.dtype)
    if isinstance(t, CompositeTensor):  # a batchable ExtensionType: the spec of its rows
        return t._ek_row(0)._type_spec if t._ek_nrows() else t._type_spec
    return TensorSpec(t.shape[1:], t.dtype)


class Tensors(Dataset):
    """`Dataset.from_tensors`: one element."""

    def __init__(self, tensors):
        super().__init__()
        self._element = _components(tensors, "from_tensors")

    def _iter(self, ctx):
        yield self._element

    def _cardinality(self) -> int:
        return 1

    def _spec(self, peek):
        return spec_of(self._element)  # SparseTensorSpec etc. for composite components


class Elements(Dataset):
    """A dataset over a list of already-built elements (the windows of `window`)."""

    def __init__(self, elements: list, spec):
        super().__init__()
        self._elements = elements
        self._spec_cache = spec

    def _iter(self, ctx):
        return iter(self._elements)

    def _cardinality(self) -> int:
        return len(self._elements)


class Counter(Dataset):
    """`Dataset.counter`: ``start, start + step, ...`` without end."""

    def __init__(self, start, step, dtype):
        super().__init__()
        self._start = int_arg(start, "counter", "start")
        self._step = int_arg(step, "counter", "step")
        self._dtype = dtypes.as_dtype(dtype)

    def _iter(self, ctx):
        cast = self._dtype.as_numpy_dtype
        value = self._start
        while True:
            yield make(cast(value), CPU)
            value += self._step

    def _cardinality(self) -> int:
        return INFINITE_CARDINALITY

    def _spec(self, peek):
        return TensorSpec((), self._dtype)


class Range(Dataset):
    """`Dataset.range`."""

    # Above this length, `range` is not turned into an index array for the fast path.
    PLAN_LIMIT = 1 << 20

    def __init__(self, args, output_type):
        super().__init__()
        if not 1 <= len(args) <= 3:
            raise TypeError(
                f"range: expected 1 to 3 arguments (stop, or start, stop[, step]). "
                f"Received: {len(args)} arguments"
            )
        names = {1: ("stop",), 2: ("start", "stop"), 3: ("start", "stop", "step")}[len(args)]
        values = [int_arg(a, "range", n) for a, n in zip(args, names)]
        if len(values) == 3 and values[2] == 0:
            raise InvalidArgumentError("range: step must not be zero. Received: step=0")
        self._range = range(*values)
        self._dtype = dtypes.as_dtype(dtypes.int64 if output_type is None else output_type)
        self._source = None

    def _iter(self, ctx):
        cast = self._dtype.as_numpy_dtype
        for i in self._range:  # from int64, wrapping as TF's cast does (-1 as uint8: 255)
            yield make(np.int64(i).astype(cast), CPU)

    def _plan(self):
        r = self._range
        if len(r) > self.PLAN_LIMIT or not plan.enabled[0]:
            return None
        if self._source is None:
            values = np.arange(r.start, r.stop, r.step).astype(self._dtype.as_numpy_dtype)
            self._source = plan.SliceSource([values], [CPU], None, len(r))
        return plan.source_plan(self._source)

    def _cardinality(self) -> int:
        return len(self._range)

    def _spec(self, peek):
        return TensorSpec((), self._dtype)


# -- from_generator -----------------------------------------------------------------------------


class Generator(Dataset):
    """`Dataset.from_generator`: calls ``generator(*args)`` at the start of every pass."""

    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        super().__init__()
        op = "from_generator"
        if not callable(generator):
            raise TypeError(f"{op}: generator must be callable. Received: {generator!r:.60}")
        if output_signature is not None:
            if output_types is not None or output_shapes is not None:
                raise TypeError(
                    f"{op}: give either output_signature or output_types (and "
                    "output_shapes), not both."
                )
            from ..extension_type import ExtensionTypeSpec

            for s in flatten(output_signature):
                if not isinstance(s, (TensorSpec, ExtensionTypeSpec)) and (
                    type(s).__name__ not in ("RaggedTensorSpec", "SparseTensorSpec")
                ):
                    raise TypeError(
                        f"{op}: output_signature must be a structure of TensorSpec (or "
                        "RaggedTensorSpec, SparseTensorSpec, or an ExtensionType's Spec). "
                        f"Received a leaf {s!r}"
                    )
            spec = output_signature
        elif output_types is None:
            raise TypeError(f"{op}: output_signature (or output_types) must be given.")
        else:
            types = map_structure(dtypes.as_dtype, output_types)
            if output_shapes is None:
                spec = map_structure(lambda t: TensorSpec(None, t), types)
            elif not isinstance(types, (tuple, dict)):
                spec = TensorSpec(as_shape(output_shapes, op, "output_shapes"), types)
            else:
                shapes = _shape_structure(output_shapes, types, op)
                spec = map_structure(lambda t, s: TensorSpec(s, t), types, shapes)
        self._generator = generator
        self._args = () if args is None else tuple(args)
        self._spec_cache = spec
        self._flat_spec = flatten(spec)
        self._pack = packer(spec)

    def _spec(self, peek):
        return self._spec_cache  # declared, so known without running the generator

    def _iter(self, ctx):
        # as TensorFlow: each arg becomes a tensor, passed as its NumPy value ("hi" -> b"hi",
        # 3 -> np.int32(3))
        args = [convert_to_tensor(a).numpy() for a in self._args]
        it = iter(call_args(self._generator, *args))
        while True:
            try:
                value = call_args(next, it)  # the generator's body runs with tapes paused too
            except StopIteration:
                return
            yield self._convert(value)

    def _convert(self, value):
        spec = self._spec_cache
        try:
            flat = _flatten_up_to(spec, value)
        except (TypeError, ValueError):
            raise TypeError(
                "from_generator: `generator` yielded an element that did not match the "
                f"expected structure. The expected structure was {spec!r}, but the yielded "
                f"element was {value!r:.200}."
            ) from None
        out = []
        for v, s in zip(flat, self._flat_spec):
            if type(s).__name__ == "RaggedTensorSpec":
                out.append(_as_ragged(v, s))
                continue
            if not isinstance(s, TensorSpec):  # SparseTensor or ExtensionType: as it is
                if not s.is_compatible_with(v):
                    raise TypeError(
                        "from_generator: `generator` yielded an element that does not match "
                        f"the output_signature {s!r}: {v!r:.120}."
                    )
                out.append(v)
                continue
            arr = _as_array(v, s.dtype)
            if not s.shape.is_compatible_with(arr.shape):
                raise InvalidArgumentError(
                    None,
                    "from_generator",
                    f"from_generator: `generator` yielded an element of shape {arr.shape} "
                    f"where an element of shape {tuple(s.shape)} was expected.",
                )
            out.append(make(arr[()] if arr.ndim == 0 and arr.dtype.kind != "O" else arr, CPU))
        return self._pack(out)


def _as_ragged(value, spec):
    """A yielded value (a RaggedTensor or nested lists) as a RaggedTensor matching ``spec``."""
    from ..ragged.ragged_ops import constant_ragged
    from ..ragged.ragged_tensor import RaggedTensor

    rt = value
    if not isinstance(rt, RaggedTensor):
        try:
            rt = constant_ragged(value, spec.dtype, ragged_rank=spec.ragged_rank)
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"from_generator: `generator` yielded {value!r:.80}, which does not match "
                f"{spec!r}: {e}"
            ) from None
    if not spec.is_compatible_with(rt):
        raise TypeError(
            f"from_generator: `generator` yielded {rt!r:.80}, which does not match {spec!r}."
        )
    return rt


def _shape_structure(shapes, types, op):
    """``output_shapes`` nested like ``types``, with shape leaves."""
    if isinstance(types, dict):
        if not isinstance(shapes, dict) or set(shapes) != set(types):
            raise TypeError(f"{op}: output_shapes must match output_types' structure.")
        return type(types)((k, _shape_structure(shapes[k], types[k], op)) for k in types)
    if isinstance(types, tuple):
        if not isinstance(shapes, (tuple, list)) or len(shapes) != len(types):
            raise TypeError(f"{op}: output_shapes must match output_types' structure.")
        return tuple(_shape_structure(s, t, op) for s, t in zip(shapes, types))
    return as_shape(shapes, op, "output_shapes")


def _flatten_up_to(spec, value) -> list:
    """The values of ``value`` at ``spec``'s leaves; sequences may be lists or tuples."""
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            raise TypeError("structure")
        out = []
        for k in sorted(spec):
            out.extend(_flatten_up_to(spec[k], value[k]))
        return out
    if isinstance(spec, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(spec):
            raise TypeError("structure")
        out = []
        for s, v in zip(spec, value):
            out.extend(_flatten_up_to(s, v))
        return out
    return [value]


def _as_array(value, dtype: dtypes.DType) -> np.ndarray:
    """A yielded value as an array of ``dtype``; refuses to drop fractions or complex parts."""
    target = dtype.as_numpy_dtype
    if dtype == dtypes.string:  # str/bytes (or nested lists of them) -> bytes, as TF
        v = value.numpy() if isinstance(value, Tensor) else value
        if isinstance(v, (np.ndarray, np.generic)) and v.dtype.kind == "O" and v.ndim == 0:
            v = v[()]
        if not is_string_value(v) and not (isinstance(v, list) and not v):
            raise TypeError(
                f"from_generator: `generator` yielded {value!r:.80} where an element of type "
                "string was expected."
            )
        return to_bytes_array(
            v if not isinstance(v, np.generic) else np.asarray(v), "from_generator"
        )
    try:
        arr = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
    except (TypeError, ValueError) as e:
        raise TypeError(
            f"from_generator: `generator` yielded {value!r:.80}, which cannot be converted to "
            f"{dtype.name}: {e}"
        ) from None
    if arr.dtype == target or not arr.size:  # an empty list converts to any dtype, as TF
        return arr.astype(target, copy=False)
    lossy = (arr.dtype.kind == "f" and np.dtype(target).kind in "iub") or (
        arr.dtype.kind == "c" and np.dtype(target).kind != "c"
    )
    if lossy or arr.dtype.kind in "OUSV":
        raise TypeError(
            f"from_generator: `generator` yielded an element of type {arr.dtype} where an "
            f"element of type {np.dtype(target).name} was expected."
        )
    return arr.astype(target)


# -- combining datasets -------------------------------------------------------------------------


class Zip(Dataset):
    """`Dataset.zip`: tuples (or any nesting) of elements, stopping at the shortest input."""

    def __init__(self, datasets):
        flat = flatten(datasets)
        for d in flat:
            if not isinstance(d, Dataset):
                hint = (
                    " Python `list` is not supported, use a `tuple` instead."
                    if isinstance(d, list)
                    else ""
                )
                raise TypeError(
                    "zip: the argument must be a (nested) structure of Datasets. Received: "
                    f"{type(d).__name__}.{hint}"
                )
        super().__init__(*flat)
        self._structure = datasets
        self._pack = packer(datasets)

    def _iter(self, ctx):
        its = [d._iter(ctx) for d in self._inputs]
        pack_ = self._pack
        while True:
            items = []
            for it in its:
                try:
                    items.append(next(it))
                except StopIteration:
                    return
            yield pack_(items)

    def _cardinality(self) -> int:
        result = INFINITE_CARDINALITY
        for d in self._inputs:
            n = d._cardinality()
            if n == UNKNOWN_CARDINALITY:
                return UNKNOWN_CARDINALITY
            if n != INFINITE_CARDINALITY and (result == INFINITE_CARDINALITY or n < result):
                result = n
        return result

    def _spec(self, peek):
        specs = [input_spec(d, peek) for d in self._inputs]
        if any(s is None for s in specs):
            return None
        return pack(self._structure, specs)


class Concatenate(Dataset):
    """`Dataset.concatenate`: one dataset's elements, then the other's."""

    def __init__(self, first: Dataset, second: Dataset):
        if not isinstance(second, Dataset):
            raise TypeError(
                f"concatenate: dataset must be a Dataset. Received: {type(second).__name__}"
            )
        super().__init__(first, second)
        a, b = spec_or_none(first), spec_or_none(second)
        if a is not None and b is not None:
            ok = same_structure(a, b) and all(
                type(x) is type(y) and (not isinstance(x, TensorSpec) or x.dtype == y.dtype)
                for x, y in zip(flatten(a), flatten(b))
            )
            if not ok:
                raise TypeError(
                    f"concatenate: incompatible dataset elements: {a!r} and {b!r} (the "
                    "structures and dtypes must match)."
                )

    def _iter(self, ctx):
        yield from self._inputs[0]._iter(ctx)
        yield from self._inputs[1]._iter(ctx)

    def _cardinality(self) -> int:
        n1, n2 = (d._cardinality() for d in self._inputs)
        if INFINITE_CARDINALITY in (n1, n2):
            return INFINITE_CARDINALITY
        if UNKNOWN_CARDINALITY in (n1, n2):
            return UNKNOWN_CARDINALITY
        return n1 + n2

    def _spec(self, peek):
        a, b = (input_spec(d, peek) for d in self._inputs)
        if a is None or b is None:
            return None

        def common(x, y):
            if isinstance(x, TensorSpec):
                return x.most_specific_compatible_type(y)
            return x if x == y else DatasetSpec(x.element_spec)

        return map_structure(common, a, b)


def spec_or_none(dataset: Dataset):
    """The element spec, learnt by peeking if need be; None if the dataset is empty."""
    try:
        return dataset.element_spec
    except ValueError:
        return None


__all__ = [
    "Concatenate",
    "Elements",
    "Generator",
    "Range",
    "TensorSlices",
    "Tensors",
    "Zip",
    "spec_or_none",
]
