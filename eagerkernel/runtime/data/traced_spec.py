"""The element spec of a dataset whose user function never ran because its input is empty.

TensorFlow traces ``map_func`` (and the functions of ``interleave``, ``flat_map``, ``scan``,
``group_by_window``) once, at construction, on placeholders of the input's element spec, so
such a dataset has an element spec even when it has no element. Eager code has no
placeholders; as Keras's shape inference of a layer on symbolic inputs does
(`keras.functional.probe_spec`), the function runs twice on stand-in values of the input's
spec instead: every unknown dimension 2 and every value 0 (``b""``, False) the first time,
3 and 1 (``b"a"``, True) the second. A dimension of the output that differs between the two
runs is None: it depends on an unknown input dimension (``x * 2`` of a batch) or on the
values (``tf.range(x)``), as TF's trace leaves it unknown; the others keep their size.

This only runs when ``element_spec`` is asked for and the input has no first element to run
the function on (`Dataset._spec`).
"""

from __future__ import annotations

import numpy as np

from ..core.shape import UnknownShape
from ..core.tensor import convert_to_tensor
from .structure import DatasetSpec, TensorSpec, map_structure

__all__ = [
    "EMPTY_MESSAGE",
    "relaxed_by_trace",
    "relaxed_spec",
    "stand_in",
    "trace_or_raise",
    "traced_output_spec",
    "traced_spec",
]

EMPTY_MESSAGE = (
    "{op}.element_spec: the dataset is empty, so the structure of its function's output is "
    "unknown (eagerkernel learns it by running the function on the first element)."
)

_RUNS = ((2, 0), (3, 1))  # (size of each unknown dimension, fill value) of the two runs


class _NoStandIn(Exception):
    """A spec of the input that no stand-in value can be made for."""


def traced_spec(dataset, error: Exception | None = None):
    """The spec of ``dataset``'s elements from its ``_trace_specs(elements) -> [spec, spec]``
    method, which runs the dataset's function on each of two stand-in elements of its first
    input (module docstring). ``error``: what running the pipeline to its first element
    raised (a runtime error TF raises only when iterating), raised again if the stand-ins
    give no spec either.

    Raises:
        ValueError: the dataset has no function to trace (the message names its class).
        as `traced_output_spec`.
    """
    op = type(dataset).__name__
    trace = getattr(dataset, "_trace_specs", None)
    if trace is None or not dataset._inputs:
        if error is not None:
            raise error
        raise ValueError(EMPTY_MESSAGE.format(op=op))
    return trace_or_raise(dataset._inputs[0], trace, op, error)


def trace_or_raise(input, trace, op: str, error: Exception | None):
    """`traced_output_spec`, or if it fails and ``error`` (the peek's) is given, ``error``."""
    if error is None:
        return traced_output_spec(input, trace, op)
    try:
        return traced_output_spec(input, trace, op)
    except Exception:
        raise error from None


def traced_output_spec(input, trace, op: str):
    """The spec ``trace(elements) -> [spec, spec]`` gives for two stand-in elements of
    ``input``'s spec, relaxed where the two differ.

    Raises:
        ValueError: the input's spec has a component no stand-in can be made for.
        the function's own error on a stand-in, with a note saying so (TF raises it at
        construction, when it traces the function).
    """
    in_spec = input.element_spec
    try:
        elements = [stand_in(in_spec, size, fill) for size, fill in _RUNS]
    except _NoStandIn:
        raise ValueError(EMPTY_MESSAGE.format(op=op)) from None
    try:
        with np.errstate(all="ignore"):  # log(0) of a stand-in is no error
            specs = trace(elements)
    except Exception as e:
        e.add_note(
            f"(raised while computing {op}.element_spec: the dataset is empty, so its function "
            f"ran on stand-in values of the input's spec {in_spec!r:.200})"
        )
        raise
    return relaxed_spec(specs[0], specs[1])


def relaxed_by_trace(spec, input, trace, op: str):
    """``spec``, learnt from real elements, with None where the function's outputs on the two
    stand-ins of ``input``'s spec differ from it or from each other: a dimension TF's trace
    leaves unknown is None even if the first elements agree on it (``interleave(lambda x:
    from_tensors(x))`` over batches). ``spec`` as it is if a stand-in call fails (the
    function may need real values, as an index into a Python list) or ``input`` has no
    spec."""
    try:
        traced = traced_output_spec(input, trace, op)
    except Exception:
        return spec
    return relaxed_spec(spec, traced)


def stand_in(spec, size: int, fill: int):
    """A value of ``spec`` (a nested structure of specs): each unknown dimension ``size``,
    every entry ``fill`` (an empty or one-letter string, False or True for those dtypes);
    a `DatasetSpec` gives a dataset of ``size`` such elements."""
    from .sources import Elements

    def leaf(s):
        if isinstance(s, DatasetSpec):
            inner = s.element_spec
            return Elements([stand_in(inner, size, fill) for _ in range(size)], inner)
        shape = getattr(s, "shape", None)
        if shape is None or not hasattr(s, "dtype"):
            raise _NoStandIn
        if isinstance(shape, UnknownShape):
            dims = [] if fill == 0 else [size]  # rank 0, then 1: the output's rank unknown
        else:
            dims = [size if d is None else d for d in shape.as_list()]
        if isinstance(s, TensorSpec):
            return _filled(dims, s.dtype, fill)
        kind = type(s).__name__
        if kind == "RaggedTensorSpec" and not isinstance(shape, UnknownShape):
            return _ragged(dims, s.dtype, s.ragged_rank, fill)
        if kind == "SparseTensorSpec":
            from ..sparse.sparse_tensor import SparseTensor

            return SparseTensor(
                np.zeros((0, len(dims)), np.int64), _filled([0], s.dtype, fill), dims
            )
        raise _NoStandIn

    return map_structure(leaf, spec)


def _filled(dims: list, dtype, fill: int):
    if dtype.name == "string":
        return convert_to_tensor(np.full(dims, b"a" if fill else b"", dtype=object))
    return convert_to_tensor(np.full(dims, fill, dtype=dtype.as_numpy_dtype))


def _ragged(dims: list, dtype, ragged_rank: int, fill: int):
    """A RaggedTensor of uniform rows with the shape ``dims``, ``ragged_rank`` ragged dims."""
    from ..ragged.ragged_tensor import RaggedTensor

    rows = int(np.prod(dims[: ragged_rank + 1]))
    value = _filled([rows, *dims[ragged_rank + 1 :]], dtype, fill)
    for k in range(ragged_rank, 0, -1):
        n = int(np.prod(dims[:k]))
        value = RaggedTensor.from_row_lengths(value, np.full(n, dims[k], np.int64))
    return value


def relaxed_spec(a, b):
    """``a`` with each dimension where ``b`` differs set to None, through DatasetSpecs and
    composite specs; ``a`` where the two differ in structure or dtype (TF would refuse a
    function whose output structure is not fixed)."""

    def common(x, y):
        if isinstance(x, DatasetSpec) and isinstance(y, DatasetSpec):
            return DatasetSpec(relaxed_spec(x.element_spec, y.element_spec))
        if type(x) is not type(y) or getattr(x, "dtype", None) != getattr(y, "dtype", None):
            return x
        if not hasattr(x, "most_specific_compatible_type"):
            return x
        try:  # TensorSpec, RaggedTensorSpec, SparseTensorSpec
            return x.most_specific_compatible_type(y)
        except (TypeError, ValueError):
            return x

    try:
        return map_structure(common, a, b)
    except (TypeError, ValueError):
        return a
