"""Higher-order ops: `map_fn` (follows `tf.map_fn`).

``fn`` runs eagerly once per element, op by op through the dispatcher, so tapes record every
op and gradients flow to ``elems`` and to the variables ``fn`` reads, as they do in TensorFlow.
"""

from __future__ import annotations

import numpy as np

from .. import nest
from ..core import dtypes
from ..core.composite import CompositeTensor
from ..core.tensor import Tensor, convert_to_tensor, make

__all__ = ["map_fn"]


def _is_spec(x) -> bool:
    from ..data.structure import TensorSpec
    from ..extension_type import ExtensionTypeSpec
    from ..ragged.ragged_tensor import RaggedTensorSpec
    from ..sparse.sparse_tensor import SparseTensorSpec

    return isinstance(
        x, (TensorSpec, RaggedTensorSpec, SparseTensorSpec, ExtensionTypeSpec, dtypes.DType)
    )


def _flatten_signature(signature) -> list:
    """The leaves of a ``fn_output_signature``: DTypes and specs (strings name dtypes)."""
    if _is_spec(signature) or isinstance(signature, str):
        return [signature]
    if isinstance(signature, (list, tuple, dict)):
        return nest.flatten(signature)
    return [signature]


def _element_spec(x):
    """The default output signature for rows of ``x``: their dtype and kind, any shape (TF's
    most general compatible type of the rows' spec)."""
    from ..data.structure import TensorSpec
    from ..ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec
    from ..sparse.sparse_tensor import SparseTensor, SparseTensorSpec

    if isinstance(x, RaggedTensor):
        return RaggedTensorSpec(list(x.shape)[1:], x.dtype, x.ragged_rank - 1)
    if isinstance(x, SparseTensor):
        return SparseTensorSpec(list(x.shape)[1:], x.dtype)
    if isinstance(x, CompositeTensor):  # an ExtensionType: its rows' spec
        return x._ek_row(0)._type_spec if x._ek_nrows() else x._type_spec
    return TensorSpec(None, x.dtype)


def leading_rows(x) -> int:
    from ..ragged.ragged_tensor import RaggedTensor

    if isinstance(x, RaggedTensor):
        return x.nrows_int()
    if isinstance(x, CompositeTensor):  # a SparseTensor, a batchable ExtensionType
        return x._ek_nrows()
    return int(x._value.shape[0])


def row_at(x, i: int):
    if isinstance(x, CompositeTensor):
        return x._ek_row(i)
    from .indexing import getitem

    return getitem(x, i)


def _stack(outputs: list, spec, name: str):
    """The outputs of one leaf as one value with a row per element, as ``spec`` says."""
    from ..data.structure import TensorSpec
    from ..extension_type import ExtensionTypeSpec
    from ..ragged.ragged_ops import stack_rows
    from ..ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec
    from ..sparse.sparse_tensor import SparseTensor, SparseTensorSpec

    if isinstance(spec, ExtensionTypeSpec):
        for out in outputs:
            if not isinstance(out, spec.value_type):
                raise TypeError(
                    f"{name}: fn_output_signature is {spec!r}, but fn returned {out!r:.80}."
                )
        if not outputs:
            raise ValueError(f"{name}: cannot stack zero {spec.value_type.__name__} values.")
        return spec.value_type._ek_stack(outputs, name)
    dtype = spec if isinstance(spec, dtypes.DType) else spec.dtype
    if isinstance(spec, SparseTensorSpec):
        for out in outputs:
            if not isinstance(out, SparseTensor):
                raise TypeError(
                    f"{name}: fn_output_signature is {spec!r}, but fn returned {out!r:.80}."
                )
        _check_dtypes(outputs, dtype, name)
        if not outputs:
            raise ValueError(f"{name}: cannot stack zero SparseTensors (elems has no rows).")
        return SparseTensor._ek_stack(outputs, name)
    if isinstance(spec, RaggedTensorSpec):
        rows = []
        for out in outputs:
            if not isinstance(out, (Tensor, RaggedTensor)):
                out = convert_to_tensor(out, dtype=dtype)
            if isinstance(out, Tensor) and spec.ragged_rank > 0:
                out = RaggedTensor.from_tensor(out)
            rows.append(out)
        _check_dtypes(rows, dtype, name)
        if not rows:
            inner = tuple(d or 0 for d in list(spec.shape)[spec.ragged_rank + 1 :])
            flat = make(np.zeros((0, *inner), dtypes.numpy_dtype(dtype)), _device())
            result = flat
            for _ in range(spec.ragged_rank + 1):
                result = RaggedTensor.from_row_splits(result, [0], validate=False)
            return result
        for r in rows:
            if isinstance(r, Tensor) and r._value.ndim == 0:
                raise ValueError(
                    f"{name}: fn_output_signature {spec!r} needs outputs of rank >= 1; fn "
                    f"returned a scalar {r!r:.80}."
                )
        return stack_rows(rows, name)
    if not isinstance(spec, (TensorSpec, dtypes.DType)):
        raise TypeError(
            f"{name}: fn_output_signature must hold DTypes, TensorSpecs, RaggedTensorSpecs or "
            f"SparseTensorSpecs, got {spec!r}."
        )
    tensors = []
    for out in outputs:
        if isinstance(out, CompositeTensor):
            raise TypeError(
                f"{name}: fn returned a {type(out).__name__}, but fn_output_signature is "
                f"{spec!r}; give a RaggedTensorSpec or SparseTensorSpec."
            )
        tensors.append(out if isinstance(out, Tensor) else convert_to_tensor(out, dtype=dtype))
    _check_dtypes(tensors, dtype, name)
    if not tensors:  # no elements: the given signature's shape, else (0,) as TensorFlow's
        known = isinstance(spec, TensorSpec) and spec.shape.rank is not None
        shape = tuple(d or 0 for d in spec.shape) if known else ()
        return make(np.zeros((0, *shape), dtypes.numpy_dtype(dtype)), _device())
    shapes = {tuple(t._value.shape) for t in tensors}
    if len(shapes) != 1:
        raise ValueError(
            f"{name}: fn returned tensors of different shapes {sorted(shapes)}; they are "
            "stacked into one Tensor. Give fn_output_signature=ek.RaggedTensorSpec(...) for "
            "rows of different lengths."
        )
    if isinstance(spec, TensorSpec) and not spec.shape.is_compatible_with(tensors[0].shape):
        raise ValueError(
            f"{name}: fn returned shape {tuple(tensors[0]._value.shape)}, not compatible with "
            f"fn_output_signature {spec!r}."
        )
    from .array_ops import stack

    return stack(tensors, axis=0)


def _check_dtypes(values, dtype, name: str) -> None:
    for v in values:
        if v.dtype != dtype:
            raise TypeError(
                f"{name}: fn returned a value of dtype {v.dtype.name}, but fn_output_signature "
                f"says {dtype.name}. Received: {v!r:.80}"
            )


def _device():
    from ..core.device import current_device

    return current_device()


def map_fn(
    fn,
    elems,
    dtype=None,
    parallel_iterations=None,
    back_prop=True,
    swap_memory=False,
    infer_shape=True,
    name=None,
    fn_output_signature=None,
):
    """Applies ``fn`` to each element of ``elems`` unstacked on axis 0 and stacks the results
    (follows `tf.map_fn`).

    Args:
        fn: called with one element: a row of ``elems`` (a Tensor of rank - 1, a row of a
            RaggedTensor or SparseTensor), or for a tuple/dict ``elems`` that structure of rows.
        elems: a Tensor, RaggedTensor or SparseTensor of rank >= 1, or a (nested) tuple, list
            or dict of them with the same number of rows; NumPy arrays and Python numbers in
            it are converted.
        fn_output_signature: what ``fn`` returns: a DType or `TensorSpec` (the results are
            stacked into a Tensor; they must share shape and dtype), a `RaggedTensorSpec`
            (rows of any length make a RaggedTensor), a `SparseTensorSpec`, or a nested
            structure of these. Default: the signature of ``elems``' rows (so ``fn`` keeps
            the dtype and structure, and a ragged ``elems`` gives a ragged result).
        dtype: the deprecated name of ``fn_output_signature``.
        parallel_iterations: how many elements may run at once; eagerly they run one after
            another, which every value allows (must be a positive int when given).
        back_prop: False stops gradients at the result (TF's deprecated form of
            `ek.stop_gradient`).
        swap_memory: TensorFlow's GPU-to-host swapping of a graph loop's memory; eager
            execution frees each element's tensors as it goes, so there is nothing to swap.
        infer_shape: True checks that the results have one shape (always checked when they
            are stacked into a Tensor, as they must be).
        name: unused, as TF's eager mode.

    Returns:
        The stacked results, nested as ``fn_output_signature`` (first dimension: the number
        of elements).

    Raises:
        ValueError: ``elems`` is empty or holds a scalar, components with different numbers of
            rows, or results of different shapes for a Tensor signature.
        TypeError: a result whose dtype or kind differs from ``fn_output_signature``.

    >>> ek.map_fn(lambda t: ek.range(t, t + 3), ek.constant([3, 5, 2])).numpy()
    array([[3, 4, 5],
           [5, 6, 7],
           [2, 3, 4]], dtype=int32)
    >>> print(ek.map_fn(ek.math.square, ek.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2]])))
    <RaggedTensor [[9, 1, 16, 1], [], [25, 81, 4]]>
    >>> print(ek.map_fn(ek.range, ek.constant([3, 0, 2]),
    ...                 fn_output_signature=ek.RaggedTensorSpec(shape=[None], dtype=ek.int32)))
    <RaggedTensor [[0, 1, 2], [], [0, 1]]>
    """
    op = "map_fn"
    if not callable(fn):
        raise TypeError(f"{op}: fn must be callable, got {fn!r}.")
    if parallel_iterations is not None and (
        not isinstance(parallel_iterations, (int, np.integer)) or parallel_iterations < 1
    ):
        raise ValueError(
            f"{op}: parallel_iterations must be a positive int, got {parallel_iterations!r}."
        )
    if fn_output_signature is None:
        fn_output_signature = dtype
    elif dtype is not None:
        raise ValueError(f"{op}: give fn_output_signature or dtype (deprecated), not both.")

    def convert(x):
        if isinstance(x, (Tensor, CompositeTensor)):
            return x
        return convert_to_tensor(x)

    flat = [convert(x) for x in nest.flatten(elems)]
    if not flat:
        raise ValueError(f"{op}: elems must hold at least one tensor, got {elems!r}.")
    for x in flat:
        if isinstance(x, Tensor) and x._value.ndim == 0:
            raise ValueError(
                f"{op}: the elements in elems must be 1+ dimensional Tensors, not scalars. "
                f"Received: {x!r:.80}"
            )
    n = leading_rows(flat[0])
    for x in flat[1:]:
        if leading_rows(x) != n:
            raise ValueError(
                f"{op}: all components of elems must have the same first dimension, got "
                f"{[leading_rows(x) for x in flat]}."
            )
    if fn_output_signature is None and n == 0:  # TensorFlow: shape (0,), elems' dtypes
        signature = nest.pack_sequence_as(
            elems, [x.dtype if isinstance(x, Tensor) else _element_spec(x) for x in flat]
        )
    elif fn_output_signature is None:
        signature = nest.pack_sequence_as(elems, [_element_spec(x) for x in flat])
    else:
        signature = fn_output_signature
    flat_signature = [
        dtypes.as_dtype(s) if not _is_spec(s) else s for s in _flatten_signature(signature)
    ]
    results: list = [[] for _ in flat_signature]
    for i in range(n):
        out = fn(nest.pack_sequence_as(elems, [row_at(x, i) for x in flat]))
        leaves = [out] if len(flat_signature) == 1 and not _is_nested(out) else nest.flatten(out)
        if len(leaves) != len(flat_signature):
            raise ValueError(
                f"{op}: fn returned {len(leaves)} value(s), but fn_output_signature has "
                f"{len(flat_signature)}: {signature!r}."
            )
        for acc, v in zip(results, leaves):
            acc.append(v)
    stacked = [_stack(acc, s, op) for acc, s in zip(results, flat_signature)]
    if not back_prop:
        stacked = [_stop_gradient(v) for v in stacked]
    if _is_spec(signature) or isinstance(signature, str):
        return stacked[0]
    return nest.pack_sequence_as(signature, stacked)


def _stop_gradient(v):
    from ..autodiff import stop_gradient

    if isinstance(v, Tensor):
        return stop_gradient(v)
    return v._ek_unary(stop_gradient)  # RaggedTensor, SparseTensor: their values


def _is_nested(x) -> bool:
    return isinstance(x, (list, tuple, dict))
