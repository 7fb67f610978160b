"""The datasets of `GroupingMethods`: `Scan`, `TakeWhile`, `Unique`, `GroupByWindow`, and
`bucket_by_sequence_length` built on `GroupByWindow` and `padded_batch` as TensorFlow builds
it."""

from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from .dataset import Dataset, int_arg
from .function_spec import common_spec
from .sources import Elements
from .structure import (
    TensorSpec,
    as_shape,
    call,
    call_args,
    flatten,
    flatten_up_to,
    function_output,
    map_structure,
    normalize,
    pack,
    spec_of,
)

__all__ = ["GroupByWindow", "Scan", "TakeWhile", "Unique", "bucket_by_sequence_length"]


def _callable(fn, op: str, arg: str) -> None:
    if not callable(fn):
        raise TypeError(f"{op}: {arg} must be callable. Received: {arg}={fn!r:.60}")


def _scalar(value, op: str, what: str):
    """A scalar tensor's Python value (bool, int or bytes); ValueError naming ``what`` else."""
    if isinstance(value, (bool, int, np.bool_, np.integer)):
        return value.item() if isinstance(value, np.generic) else value
    if isinstance(value, Tensor) and value.ndim == 0:
        return value.numpy().item() if value.dtype.name != "string" else value.numpy()
    raise ValueError(f"{op}: {what} must return a scalar, but returned {value!r:.60}.")


class Scan(Dataset):
    """`Dataset.scan`."""

    def __init__(self, input: Dataset, initial_state, scan_func):
        _callable(scan_func, "scan", "scan_func")
        super().__init__(input)
        self._state = normalize(initial_state, "scan")
        self._fn = scan_func

    def _iter(self, ctx):
        return self._iter_over(self._inputs[0]._iter(ctx))

    def _iter_over(self, elements):
        state = self._state
        for x in elements:
            result = call_args(self._fn, state, *(x if type(x) is tuple else (x,)))
            if not isinstance(result, (tuple, list)) or len(result) != 2:
                raise ValueError(
                    "scan: scan_func must return a (new_state, output) pair, returned "
                    f"{result!r:.60}."
                )
            state = normalize(result[0], "scan")
            yield function_output(result[1], "scan")

    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()  # one output per input, as TF counts it

    def _trace_specs(self, elements) -> list:
        """An empty input (`traced_spec`): the outputs' specs for the two stand-ins, the second
        run given the first's new state, so that dims of a state that grows become None."""
        outputs = self._iter_over(elements)
        return [spec_of(x) for x in outputs]


class TakeWhile(Dataset):
    """`Dataset.take_while`."""

    def __init__(self, input: Dataset, predicate):
        _callable(predicate, "take_while", "predicate")
        super().__init__(input)
        self._predicate = predicate

    def _iter(self, ctx):
        for x in self._inputs[0]._iter(ctx):
            keep = call(self._predicate, x)
            if not isinstance(_scalar(keep, "take_while", "predicate"), bool):
                raise ValueError(
                    f"take_while: predicate must return a bool scalar, returned {keep!r:.60}."
                )
            if not bool(keep):
                return
            yield x

    def _spec(self, peek):
        return self._inputs[0].element_spec if peek else self._inputs[0]._static_spec()


_UNIQUE_KINDS = ("int32", "int64", "string")


class Unique(Dataset):
    """`Dataset.unique`: like TF, every component must be int32, int64 or string (TypeError
    when the dataset is made, if its spec is known without running it), there must be one
    component (InvalidArgumentError), and elements of any shape compare by shape and value."""

    def __init__(self, input: Dataset):
        super().__init__(input)
        spec = input._static_spec()
        if spec is not None:
            leaves = flatten(spec)
            for leaf in leaves:
                dtype = getattr(leaf, "dtype", None)
                if getattr(dtype, "name", None) not in _UNIQUE_KINDS:
                    raise TypeError(
                        f"unique: does not support type {dtype} -- only int32, int64 and "
                        f"string are supported. Received: element_spec={spec!r:.100}"
                    )
            if len(leaves) != 1:
                raise InvalidArgumentError(
                    "unique: supports only inputs with a single component. Received: "
                    f"element_spec={spec!r:.100}"
                )

    def _iter(self, ctx):
        seen = set()
        for element in self._inputs[0]._iter(ctx):
            leaves = flatten(element)
            x = leaves[0] if len(leaves) == 1 else None
            if not (isinstance(x, Tensor) and x.dtype.name in _UNIQUE_KINDS):
                raise TypeError(
                    "unique: elements must have one int32, int64 or string component, got "
                    f"{spec_of(element)!r:.100}."
                )
            value = np.asarray(x.numpy())
            key = (value.shape, value.tobytes() if value.dtype.kind != "O" else tuple(value.flat))
            if key not in seen:
                seen.add(key)
                yield element

    def _spec(self, peek):
        return self._inputs[0].element_spec if peek else self._inputs[0]._static_spec()


class GroupByWindow(Dataset):
    """`Dataset.group_by_window`."""

    def __init__(self, input: Dataset, key_func, reduce_func, window_size, window_size_func):
        op = "group_by_window"
        _callable(key_func, op, "key_func")
        _callable(reduce_func, op, "reduce_func")
        if (window_size is None) == (window_size_func is None):
            raise ValueError(f"{op}: give exactly one of window_size and window_size_func.")
        if window_size is not None:
            size = int_arg(window_size, op, "window_size")
            if size <= 0:
                raise ValueError(f"{op}: window_size must be positive. Received: {size}")
            window_size_func = lambda key: size
        else:
            _callable(window_size_func, op, "window_size_func")
        super().__init__(input)
        self._key, self._reduce, self._size = key_func, reduce_func, window_size_func
        self.batch_size_from_key = False  # bucket_by_sequence_length: dim 0 of the spec is None
        self.padded_by_key = None  # bucket_by_sequence_length: spec -> spec, padded dims None

    def _window_size(self, key) -> int:
        value = call_args(self._size, _key_tensor(key))
        size = int(_scalar(value, "group_by_window", "window_size_func"))
        if size <= 0:
            raise ValueError(f"group_by_window: window_size_func returned {size} (not positive).")
        return size

    def _flush(self, key, elements, ctx):
        spec = self._inputs[0].element_spec
        window = Elements(list(elements), spec)
        result = call_args(self._reduce, _key_tensor(key), window)
        if not isinstance(result, Dataset):
            raise TypeError(
                f"group_by_window: reduce_func must return a Dataset, returned {result!r:.60}."
            )
        yield from result._iter(ctx)

    def _spec(self, peek):
        """As TF traces ``reduce_func``: on an empty window of the input's spec, for keys 0 and
        1 (dims that depend on the key become None); if the result's spec needs running it,
        the spec of the first element."""
        in_spec = self._inputs[0]._static_spec()
        if in_spec is None and peek:
            in_spec = self._inputs[0].element_spec
        specs = []
        for key in (0, 1) if in_spec is not None else ():
            try:
                result = call_args(self._reduce, _key_tensor(key), Elements([], in_spec))
            except Exception:  # e.g. the key used as an index: keep the keys that traced
                break
            spec = result._static_spec() if isinstance(result, Dataset) else None
            if spec is None:
                break
            specs.append(spec)
        if not specs:
            spec = super()._spec(peek)
        else:
            spec = specs[0] if len(specs) == 1 else common_spec(specs[0], specs[1])
        if self.batch_size_from_key and spec is not None:
            spec = map_structure(_unknown_batch, spec)  # TF gathers the batch size by key
        if self.padded_by_key is not None and spec is not None:
            spec = self.padded_by_key(spec)  # TF pads to the key's bucket boundary
        return spec

    def _trace_specs(self, elements) -> list:  # an empty output (`traced_spec`)
        spec = self._inputs[0].element_spec
        return [
            call_args(self._reduce, _key_tensor(k), Elements([x], spec)).element_spec
            for k, x in enumerate(elements)
        ]

    def _iter(self, ctx):
        groups: dict = {}
        sizes: dict = {}
        for x in self._inputs[0]._iter(ctx):
            key = _scalar(call(self._key, x), "group_by_window", "key_func")
            if key not in sizes:
                sizes[key] = self._window_size(key)
            group = groups.setdefault(key, [])
            group.append(x)
            if len(group) == sizes[key]:
                del groups[key]
                yield from self._flush(key, group, ctx)
        for key in sorted(groups):  # the incomplete windows, by key, as TensorFlow's
            yield from self._flush(key, groups[key], ctx)


def _key_tensor(key) -> Tensor:
    from ..core.tensor import constant

    return constant(np.int64(key))


def bucket_by_sequence_length(
    dataset: Dataset,
    element_length_func,
    bucket_boundaries,
    bucket_batch_sizes,
    padded_shapes=None,
    padding_values=None,
    pad_to_bucket_boundary=False,
    no_padding=False,
    drop_remainder=False,
) -> Dataset:
    """`Dataset.bucket_by_sequence_length`, as TensorFlow builds it from `group_by_window`."""
    op = "bucket_by_sequence_length"
    _callable(element_length_func, op, "element_length_func")
    boundaries = [int(b) for b in bucket_boundaries]
    sizes = [int(b) for b in bucket_batch_sizes]
    if len(sizes) != len(boundaries) + 1:
        raise ValueError(
            f"{op}: len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1, got "
            f"{len(sizes)} and {len(boundaries)}."
        )
    if boundaries != sorted(boundaries):
        raise ValueError(f"{op}: bucket_boundaries must be sorted, got {boundaries}.")

    def bucket_of(*element):
        length = int(_scalar(element_length_func(*element), op, "element_length_func"))
        return int(np.searchsorted(boundaries, length, side="right"))

    def batches(bucket, window):
        size = sizes[int(bucket)]
        if no_padding:
            return window.batch(size, drop_remainder=drop_remainder)
        shapes = padded_shapes
        if pad_to_bucket_boundary:
            if int(bucket) >= len(boundaries):  # TF's assert_less: InvalidArgumentError
                raise InvalidArgumentError(
                    None,
                    op,
                    f"{op}: when pad_to_bucket_boundary=True, elements must have length < "
                    f"max(bucket_boundaries) = {boundaries[-1]}.",
                )
            if shapes is None:
                shapes = _static_shapes(dataset, op)
            shapes = _fill_unknown(shapes, boundaries[int(bucket)] - 1)
        return window.padded_batch(size, shapes, padding_values, drop_remainder=drop_remainder)

    grouped = dataset.group_by_window(bucket_of, batches, window_size_func=lambda b: sizes[int(b)])
    grouped.batch_size_from_key = True
    if pad_to_bucket_boundary and not no_padding:

        def padded_by_key(spec):
            shapes = padded_shapes
            if shapes is None:
                shapes = _static_shapes(dataset, op)
            return _unknown_where_filled(spec, shapes, op)

        grouped.padded_by_key = padded_by_key
    return grouped


def _unknown_where_filled(spec, shapes, op: str):
    """``spec`` of padded batches with None at each dim that ``shapes`` leaves to the bucket
    boundary: TF computes that boundary from the bucket id, so the dim is not static."""
    out = []
    for s, shape in zip(flatten(spec), flatten_up_to(spec, shapes, op, "padded_shapes")):
        dims = None if shape is None else as_shape(shape).as_list()
        if type(s) is TensorSpec and dims is not None and s.shape.rank == len(dims) + 1:
            inner = [None if d is None else k for d, k in zip(dims, s.shape.as_list()[1:])]
            s = TensorSpec([s.shape[0], *inner], s.dtype, s.name)
        out.append(s)
    return pack(spec, out)


def _unknown_batch(spec):
    if type(spec) is not TensorSpec or spec.shape.rank in (None, 0):
        return spec
    return TensorSpec([None, *spec.shape.as_list()[1:]], spec.dtype, spec.name)


def _static_shapes(dataset: Dataset, op: str):
    """The input's element shapes as TF knows them without running it (None where elements
    vary), which TF pads to the bucket boundary when no padded_shapes are given."""
    spec = dataset._spec(False)  # not `element_spec`: a peeked spec has every dim known
    if spec is None:
        raise NotImplementedError(
            f"{op}: pad_to_bucket_boundary=True without padded_shapes needs the input's "
            "element shapes without running it (e.g. from_generator with output_shapes); give "
            "padded_shapes with None for the dimensions to pad to the bucket's boundary minus one."
        )
    return map_structure(lambda s: list(s.shape), spec)


def _fill_unknown(shapes, fill: int):
    if isinstance(shapes, tuple):
        return tuple(_fill_unknown(s, fill) for s in shapes)
    if isinstance(shapes, dict):
        return {k: _fill_unknown(v, fill) for k, v in shapes.items()}
    return [fill if d is None else d for d in shapes]
