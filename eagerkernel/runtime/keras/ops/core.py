"""`keras.ops` core functions: conversion, dtypes, shapes, control flow and scatter/slice
updates (follows ``keras/src/ops/core.py``)."""

from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.composite import CompositeTensor
from ...core.tensor import Tensor
from ..keras_tensor import KerasTensor
from ._base import keras_op, to_tensor
from ._tf import tf

__all__ = [
    "cast",
    "cond",
    "convert_to_numpy",
    "convert_to_tensor",
    "dtype",
    "fori_loop",
    "is_tensor",
    "scatter",
    "scatter_update",
    "shape",
    "slice",
    "slice_update",
    "stop_gradient",
    "unstack",
    "vectorized_map",
    "while_loop",
]


@keras_op
def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    """``x`` (a tensor, array, Python number or nested list) as a Tensor (follows
    `keras.ops.convert_to_tensor`); ``dtype`` casts it; without it Python floats give
    float32, ints int32 and arrays keep their dtype.

    >>> ek.keras.ops.convert_to_tensor([1.0, 2.0]).dtype
    ek.float32

    Raises:
        NotImplementedError: ``sparse=True`` or ``ragged=True``.
    """
    if sparse or ragged:
        raise NotImplementedError(
            "keras.ops.convert_to_tensor: sparse=True and ragged=True are not supported. "
            f"Received: sparse={sparse!r}, ragged={ragged!r}"
        )
    return to_tensor(x, dtype)


@keras_op
def convert_to_numpy(x):
    """``x`` as a NumPy array (follows `keras.ops.convert_to_numpy`)."""
    return np.asarray(to_tensor(x))


@keras_op
def cast(x, dtype):
    """``x`` cast to ``dtype`` (follows `keras.ops.cast`); a SparseTensor or RaggedTensor
    stays one, with its values cast (as the TensorFlow backend's ``cast``)."""
    if isinstance(x, CompositeTensor) and not isinstance(x, Tensor):
        return tf.cast(x, dtypes.as_dtype(dtype))
    return tf.cast(to_tensor(x), dtypes.as_dtype(dtype))


def shape(x) -> tuple:
    """The shape of ``x`` as a tuple (follows `keras.ops.shape`); on a KerasTensor its static
    shape, None for unknown sizes (no layer is recorded, as in Keras)."""
    if isinstance(x, KerasTensor):
        return tuple(x.shape)
    return tuple(to_tensor(x).shape)


def dtype(x) -> str:
    """The dtype name of ``x`` (follows `keras.ops.dtype`)."""
    if isinstance(x, (Tensor, KerasTensor)):
        return x.dtype.name
    return to_tensor(x).dtype.name


def is_tensor(x) -> bool:
    """Whether ``x`` is an eagerkernel Tensor (follows `keras.ops.is_tensor`)."""
    return isinstance(x, Tensor)


@keras_op
def stop_gradient(variable):
    """``variable`` with no gradient flowing back through it (follows
    `keras.ops.stop_gradient`)."""
    return tf.stop_gradient(to_tensor(variable))


@keras_op
def unstack(x, num=None, axis=0):
    """The slices of ``x`` along ``axis`` as a list (follows `keras.ops.unstack`).

    Raises:
        ValueError: ``num`` differs from the axis size.
    """
    x = to_tensor(x)
    if num is not None and num != x.shape[axis]:
        raise ValueError(
            f"keras.ops.unstack: num={num} differs from the size {x.shape[axis]} of axis {axis}."
        )
    return tf.unstack(x, axis=axis)


def vectorized_map(function, elements):
    """``function`` applied to each slice of ``elements`` along axis 0, stacked (follows
    `keras.ops.vectorized_map`); ``elements`` may be a nested structure."""
    return tf.vectorized_map(function, elements)


def cond(pred, true_fn, false_fn):
    """``true_fn()`` if ``pred`` else ``false_fn()`` (follows `keras.ops.cond`)."""
    return tf.cond(pred, true_fn, false_fn)


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """``while cond(*loop_vars): loop_vars = body(*loop_vars)`` (follows
    `keras.ops.while_loop`); ``loop_vars`` a tuple/list (passed as separate arguments) or a
    single value; at most ``maximum_iterations`` rounds when given.

    >>> int(ek.keras.ops.while_loop(lambda i: i < 10, lambda i: i + 3, 0))
    12
    """
    is_tuple = isinstance(loop_vars, (tuple, list))
    loop_vars = tuple(loop_vars) if is_tuple else (loop_vars,)

    def _body(*args):
        out = body(*args)
        return tuple(out) if is_tuple else (out,)

    out = tf.while_loop(cond, _body, loop_vars, maximum_iterations=maximum_iterations)
    return tuple(out) if is_tuple else out[0]


def fori_loop(lower, upper, body_fun, init_val):
    """``for i in range(lower, upper): val = body_fun(i, val)`` (follows
    `keras.ops.fori_loop`)."""
    return tf.while_loop(
        lambda i, val: i < upper, lambda i, val: (i + 1, body_fun(i, val)), (lower, init_val)
    )[1]


@keras_op
def scatter(indices, values, shape):
    """A zeros tensor of ``shape`` with ``values`` added at ``indices`` (``(N, k)`` index
    tuples); duplicates add up (follows `keras.ops.scatter`)."""
    values = to_tensor(values)
    return tf.scatter_nd(to_tensor(indices), values, list(shape))


@keras_op
def scatter_update(inputs, indices, updates, reduction=None):
    """``inputs`` with the entries at ``indices`` (``(N, k)`` index tuples) replaced by
    ``updates`` (follows `keras.ops.scatter_update`).

    ``reduction`` combines updates that target the same entry: None (the default; the last
    write wins), ``"add"``, ``"max"``, ``"min"`` (with the existing value too) or ``"mul"``
    (the existing value times each update), as Keras 3's TensorFlow backend does.

    Raises:
        ValueError: another ``reduction``.

    >>> scatter_update(np.zeros((4,)), [[0], [0], [1]], np.array([1.0, 1.0, 1.0]), "add").numpy()
    array([2., 1., 0., 0.])
    """
    inputs = to_tensor(inputs)
    indices = to_tensor(indices)
    updates = to_tensor(updates, inputs.dtype)
    if reduction is None:
        return tf.tensor_scatter_nd_update(inputs, indices, updates)
    combine = {
        "add": tf.tensor_scatter_nd_add,
        "max": tf.tensor_scatter_nd_max,
        "min": tf.tensor_scatter_nd_min,
    }.get(reduction)
    if combine is not None:
        return combine(inputs, indices, updates)
    if reduction != "mul":
        raise ValueError(
            "scatter_update: reduction must be None, 'add', 'max', 'min' or 'mul'. "
            f"Received: reduction={reduction!r}"
        )
    result = inputs  # one update at a time, as Keras's loop: repeated indices multiply
    for i in range(int(indices.shape[0])):
        index = indices[i : i + 1]
        result = tf.tensor_scatter_nd_update(
            result, index, tf.gather_nd(result, index) * updates[i : i + 1]
        )
    return result


@keras_op
def slice(inputs, start_indices, shape):
    """The block of ``inputs`` of ``shape`` starting at ``start_indices`` (follows
    `keras.ops.slice`)."""
    return tf.slice(to_tensor(inputs), list(start_indices), list(shape))


@keras_op
def slice_update(inputs, start_indices, updates):
    """``inputs`` with the block starting at ``start_indices`` replaced by ``updates``
    (follows `keras.ops.slice_update`); differentiable in both.

    Raises:
        ValueError: ``start_indices`` of the wrong length, or a block out of bounds.
    """
    inputs = to_tensor(inputs)
    updates = to_tensor(updates, inputs.dtype)
    start = [int(s) for s in np.asarray(start_indices).reshape(-1)]
    if len(start) != inputs.shape.rank or updates.shape.rank != inputs.shape.rank:
        raise ValueError(
            "keras.ops.slice_update: `start_indices` and `updates` must have the rank of "
            f"`inputs` ({inputs.shape.rank}). Received: start_indices={start}, "
            f"updates.shape={tuple(updates.shape)}"
        )
    for s, u, n in zip(start, updates.shape, inputs.shape):
        if s < 0 or s + u > n:
            raise ValueError(
                f"keras.ops.slice_update: the block of shape {tuple(updates.shape)} at "
                f"{start} does not fit in inputs of shape {tuple(inputs.shape)}."
            )
    grids = np.meshgrid(*[np.arange(s, s + u) for s, u in zip(start, updates.shape)], indexing="ij")
    idx = np.stack(grids, axis=-1).astype(np.int32)
    return tf.tensor_scatter_nd_update(inputs, idx, updates)
