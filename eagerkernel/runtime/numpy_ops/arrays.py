"""`ek.experimental.numpy`'s shape manipulation, indexing helpers, sorting and linear algebra
(follows TF NumPy's ``np_array_ops`` and ``np_math_ops``): NumPy's signatures on eagerkernel's
differentiable ops."""

from __future__ import annotations

import builtins
import itertools

import numpy as np

from .. import ops as _ops
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, constant
from ..ops import math_ops as _math
from ..ops.elementwise import cast
from .utils import asarray_value, no_argument, normalize_axis, promote
from .utils import const as _const

# -- shapes ---------------------------------------------------------------------------------


def shape(a) -> tuple:
    """The shape as a tuple of ints (follows `tf.experimental.numpy.shape`)."""
    return tuple(asarray_value(a, op="shape").shape)


def ndim(a) -> int:
    """The rank (follows `tf.experimental.numpy.ndim`)."""
    return asarray_value(a, op="ndim").ndim


def size(x, axis=None) -> int:
    """The number of elements, or the length of ``axis`` (follows
    `tf.experimental.numpy.size`)."""
    t = asarray_value(x, op="size")
    return int(np.prod(t.shape, dtype=np.int64)) if axis is None else t.shape[axis]


def isscalar(num) -> bool:
    """Whether ``num`` is a rank-0 value (follows `tf.experimental.numpy.isscalar`)."""
    if isinstance(num, Tensor):
        return num.ndim == 0
    return bool(np.isscalar(num))


def _order(op: str, order) -> str:
    if order not in ("C", "F"):
        raise ValueError(f"{op}: order must be 'C' or 'F', got {order!r}.")
    return order


def reshape(a, newshape, order="C") -> Tensor:
    """``a`` with shape ``newshape`` (one -1 allowed), reading elements in C (row-major) or F
    (column-major) ``order`` (follows `tf.experimental.numpy.reshape`); differentiable.

    Raises:
        InvalidArgumentError: the element counts differ. ValueError: another ``order``.
    """
    x = asarray_value(a, op="reshape")
    if isinstance(newshape, (int, np.integer)):
        newshape = [int(newshape)]
    if isinstance(newshape, Tensor):
        newshape = newshape.numpy().tolist()
    newshape = [int(d) for d in newshape]
    if _order("reshape", order) == "F":
        x = _ops.transpose(x)
        return _ops.transpose(_ops.reshape(x, newshape[::-1]))
    return _ops.reshape(x, newshape)


def ravel(a, order="C") -> Tensor:
    """``a`` flattened to 1-D in ``order`` (follows `tf.experimental.numpy.ravel`)."""
    return reshape(a, [-1], order)


def transpose(a, axes=None) -> Tensor:
    """``a`` with its axes permuted (reversed by default; follows
    `tf.experimental.numpy.transpose`); differentiable."""
    x = asarray_value(a, op="transpose")
    if axes is not None:
        axes = list(normalize_axis(axes, x.ndim, "transpose"))
    return _ops.transpose(x, axes)


def swapaxes(a, axis1, axis2) -> Tensor:
    """``a`` with two axes exchanged (follows `tf.experimental.numpy.swapaxes`)."""
    x = asarray_value(a, op="swapaxes")
    (a1,), (a2,) = (
        normalize_axis(axis1, x.ndim, "swapaxes"),
        normalize_axis(axis2, x.ndim, "swapaxes"),
    )
    perm = list(range(x.ndim))
    perm[a1], perm[a2] = perm[a2], perm[a1]
    return _ops.transpose(x, perm)


def moveaxis(a, source, destination) -> Tensor:
    """``a`` with axes ``source`` moved to ``destination`` (follows
    `tf.experimental.numpy.moveaxis`)."""
    x = asarray_value(a, op="moveaxis")
    src = normalize_axis(source, x.ndim, "moveaxis")
    dst = normalize_axis(destination, x.ndim, "moveaxis")
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination must have the same number of axes.")
    order = [i for i in range(x.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _ops.transpose(x, order)


def squeeze(a, axis=None) -> Tensor:
    """``a`` without its length-1 axes (or just ``axis``; follows
    `tf.experimental.numpy.squeeze`).

    Raises:
        InvalidArgumentError: ``axis`` names an axis whose length is not 1.
    """
    x = asarray_value(a, op="squeeze")
    axes = normalize_axis(axis, x.ndim, "squeeze")
    return _ops.squeeze(x, None if axes is None else list(axes))


def expand_dims(a, axis) -> Tensor:
    """``a`` with a length-1 axis inserted at ``axis`` (an int or a tuple, as NumPy's;
    follows `tf.experimental.numpy.expand_dims`)."""
    x = asarray_value(a, op="expand_dims")
    axes = normalize_axis(
        axis, x.ndim + (len(axis) if isinstance(axis, (list, tuple)) else 1), "expand_dims"
    )
    for ax in sorted(axes):
        x = _ops.expand_dims(x, ax)
    return x


def atleast_1d(*arys):
    """Each input with at least one axis (follows `tf.experimental.numpy.atleast_1d`)."""
    return _atleast(arys, 1)


def atleast_2d(*arys):
    """Each input with at least two axes, a 1-D one as a row (follows
    `tf.experimental.numpy.atleast_2d`)."""
    return _atleast(arys, 2)


def atleast_3d(*arys):
    """Each input with at least three axes: ``(1, n, 1)`` for 1-D, ``(m, n, 1)`` for 2-D
    (follows `tf.experimental.numpy.atleast_3d`)."""
    return _atleast(arys, 3)


def _atleast(arys, n: int):
    out = []
    for a in arys:
        x = asarray_value(a, op=f"atleast_{n}d")
        s = tuple(x.shape)
        if x.ndim < n:
            if n == 3 and x.ndim == 2:
                s = (*s, 1)
            elif n == 3 and x.ndim == 1:
                s = (1, *s, 1)
            else:
                s = (1,) * (n - x.ndim) + s
            x = _ops.reshape(x, s)
        out.append(x)
    return out[0] if len(out) == 1 else out


def broadcast_to(array, shape) -> Tensor:
    """``array`` broadcast to ``shape`` (follows `tf.experimental.numpy.broadcast_to`)."""
    return _ops.broadcast_to(asarray_value(array, op="broadcast_to"), shape)


def broadcast_arrays(*args, subok=False) -> list:
    """The inputs broadcast to their common shape (follows
    `tf.experimental.numpy.broadcast_arrays`)."""
    ts = [asarray_value(a, op="broadcast_arrays") for a in args]
    s = np.broadcast_shapes(*(tuple(t.shape) for t in ts))
    return [_ops.broadcast_to(t, s) for t in ts]


# -- joining and splitting --------------------------------------------------------------------


def concatenate(arys, axis=0) -> Tensor:
    """The arrays joined along ``axis`` (flattened first when ``axis`` is None), promoted to
    one dtype (follows `tf.experimental.numpy.concatenate`); differentiable.

    Raises:
        ValueError: no arrays.
    """
    if not len(arys):
        raise ValueError("concatenate: need at least one array to concatenate.")
    ts = promote(*arys, op="concatenate")
    if axis is None:
        ts, axis = [_ops.reshape(t, [-1]) for t in ts], 0
    return _ops.concat(ts, axis=normalize_axis(axis, ts[0].ndim, "concatenate")[0])


def append(arr, values, axis=None) -> Tensor:
    """``values`` appended to ``arr`` along ``axis`` (flattened without one; follows
    `tf.experimental.numpy.append`)."""
    return concatenate([arr, values], axis=axis)


def stack(arrays, axis=0) -> Tensor:
    """The arrays joined along a new ``axis`` (follows `tf.experimental.numpy.stack`)."""
    if not len(arrays):
        raise ValueError("stack: need at least one array to stack.")
    ts = promote(*arrays, op="stack")
    return _ops.stack(ts, axis=normalize_axis(axis, ts[0].ndim + 1, "stack")[0])


def hstack(tup) -> Tensor:
    """Arrays joined column-wise (axis 1; axis 0 for 1-D; follows
    `tf.experimental.numpy.hstack`)."""
    ts = atleast_1d(*tup)
    ts = ts if isinstance(ts, list) else [ts]
    return concatenate(ts, axis=0 if ts[0].ndim == 1 else 1)


def vstack(tup) -> Tensor:
    """Arrays joined row-wise (1-D ones as rows; follows `tf.experimental.numpy.vstack`)."""
    ts = atleast_2d(*tup)
    return concatenate(ts if isinstance(ts, list) else [ts], axis=0)


def dstack(tup) -> Tensor:
    """Arrays joined along a third axis (follows `tf.experimental.numpy.dstack`)."""
    ts = atleast_3d(*tup)
    return concatenate(ts if isinstance(ts, list) else [ts], axis=2)


def split(ary, indices_or_sections, axis=0) -> list:
    """``ary`` split along ``axis`` into N equal parts (an int) or at the given indices
    (follows `tf.experimental.numpy.split`).

    Raises:
        InvalidArgumentError (a ValueError): N does not divide the axis length.
    """
    x = asarray_value(ary, op="split")
    (ax,) = normalize_axis(axis, x.ndim, "split")
    n = x.shape[ax]
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0 or n % k:
            raise InvalidArgumentError(
                None,
                "split",
                f"split: array split does not result in an equal division ({n} by {k}).",
            )
        return list(_ops.split(x, k, axis=ax))
    bounds = [0, *(builtins.min(builtins.max(int(i), 0), n) for i in indices_or_sections), n]
    sizes = [builtins.max(b - a, 0) for a, b in itertools.pairwise(bounds)]
    return list(_ops.split(x, sizes, axis=ax)) if sum(sizes) == n else _slices(x, ax, bounds)


def _slices(x, ax, bounds):
    out = []
    for a, b in itertools.pairwise(bounds):
        key = (slice(None),) * ax + (slice(a, builtins.max(a, b)),)
        out.append(x[key])
    return out


def hsplit(ary, indices_or_sections) -> list:
    """`split` along axis 1 (axis 0 for 1-D; follows `tf.experimental.numpy.hsplit`)."""
    x = asarray_value(ary, op="hsplit")
    return split(x, indices_or_sections, axis=0 if x.ndim == 1 else 1)


def vsplit(ary, indices_or_sections) -> list:
    """`split` along axis 0 (follows `tf.experimental.numpy.vsplit`)."""
    return split(ary, indices_or_sections, axis=0)


def dsplit(ary, indices_or_sections) -> list:
    """`split` along axis 2 (follows `tf.experimental.numpy.dsplit`)."""
    return split(ary, indices_or_sections, axis=2)


# -- rearranging ------------------------------------------------------------------------------


def tile(a, reps) -> Tensor:
    """``a`` repeated ``reps`` times along each axis (follows `tf.experimental.numpy.tile`)."""
    x = asarray_value(a, op="tile")
    reps = [int(reps)] if isinstance(reps, (int, np.integer)) else [int(r) for r in reps]
    if len(reps) > x.ndim:
        x = _ops.reshape(x, (1,) * (len(reps) - x.ndim) + tuple(x.shape))
    reps = [1] * (x.ndim - len(reps)) + reps
    return _ops.tile(x, reps)


def repeat(a, repeats, axis=None) -> Tensor:
    """Each element repeated ``repeats`` times along ``axis`` (flattened without one;
    follows `tf.experimental.numpy.repeat`)."""
    x = asarray_value(a, op="repeat")
    if axis is None:
        x, axis = _ops.reshape(x, [-1]), 0
    return _ops.repeat(x, repeats, axis=normalize_axis(axis, x.ndim, "repeat")[0])


def flip(m, axis=None) -> Tensor:
    """``m`` reversed along ``axis`` (all axes by default; follows
    `tf.experimental.numpy.flip`)."""
    x = asarray_value(m, op="flip")
    axes = normalize_axis(axis, x.ndim, "flip")
    return _ops.reverse(x, list(range(x.ndim)) if axes is None else list(axes))


def fliplr(m) -> Tensor:
    """``m`` reversed along axis 1 (follows `tf.experimental.numpy.fliplr`)."""
    return flip(m, 1)


def flipud(m) -> Tensor:
    """``m`` reversed along axis 0 (follows `tf.experimental.numpy.flipud`)."""
    return flip(m, 0)


def roll(a, shift, axis=None) -> Tensor:
    """``a`` rolled by ``shift`` along ``axis`` (flattened without one; follows
    `tf.experimental.numpy.roll`)."""
    x = asarray_value(a, op="roll")
    if axis is None:
        return _ops.reshape(_ops.roll(_ops.reshape(x, [-1]), shift, 0), tuple(x.shape))
    return _ops.roll(x, shift, axis)


def rot90(m, k=1, axes=(0, 1)) -> Tensor:
    """``m`` rotated by 90 degrees ``k`` times in the plane ``axes`` (follows
    `tf.experimental.numpy.rot90`)."""
    x = asarray_value(m, op="rot90")
    a0, a1 = normalize_axis(axes, x.ndim, "rot90")
    k %= 4
    if k == 0:
        return x
    if k == 2:
        return flip(flip(x, a0), a1)
    perm = list(range(x.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return _ops.transpose(flip(x, a1), perm)
    return flip(_ops.transpose(x, perm), a1)


def pad(array, pad_width, mode="constant", **kwargs) -> Tensor:
    """``array`` padded by ``pad_width`` (NumPy's forms: an int, a pair, or one pair per axis)
    in ``mode`` "constant" (``constant_values``), "reflect" or "symmetric" (follows
    `tf.experimental.numpy.pad`).

    Raises:
        NotImplementedError: another mode or keyword.
    """
    x = asarray_value(array, op="pad")
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (x.ndim, 2)).tolist()
    mode = mode.lower()
    if mode not in ("constant", "reflect", "symmetric"):
        raise NotImplementedError(
            f"pad: mode {mode!r} is not supported (constant, reflect, symmetric)."
        )
    value = kwargs.pop("constant_values", 0)
    if kwargs:
        raise NotImplementedError(f"pad: arguments {sorted(kwargs)} are not supported.")
    if mode == "constant":
        return _ops.pad(x, widths, "CONSTANT", constant_values=value)
    return _ops.pad(x, widths, mode.upper())


# -- indexing ---------------------------------------------------------------------------------


def take(a, indices, axis=None, out=None, mode="clip") -> Tensor:
    """The elements at ``indices`` along ``axis`` (of the flattened array without one);
    ``mode`` "clip" (TF NumPy's default) limits indices to the range, "wrap" wraps them,
    "raise" checks them (follows `tf.experimental.numpy.take`); differentiable in ``a``.

    Raises:
        IndexError: an index out of range with ``mode="raise"``. ValueError: another mode.
    """
    no_argument("take", out=out)
    x = asarray_value(a, op="take")
    i = asarray_value(indices, op="take")
    if axis is None:
        x, axis = _ops.reshape(x, [-1]), 0
    (ax,) = normalize_axis(axis, x.ndim, "take")
    n = x.shape[ax]
    if i._value.dtype.kind not in "iu":
        raise TypeError(f"take: indices must be integers, got {i.dtype.name}.")
    i = cast(i, "int64")
    if mode == "raise":  # the check reads the values; the other modes stay ops
        iv = i.numpy()
        if iv.size and (iv.min() < -n or iv.max() >= n):
            raise IndexError(f"take: index out of range for axis {ax} of length {n}.")
        mode = "wrap"
    if mode == "clip":
        i = _ops.clip_by_value(i, _const(0, "int64"), _const(builtins.max(n - 1, 0), "int64"))
    elif mode == "wrap":
        i = _ops.mod(i, _const(builtins.max(n, 1), "int64"))
    else:
        raise ValueError(f"take: mode must be 'clip', 'wrap' or 'raise', got {mode!r}.")
    return _ops.gather(x, i, axis=ax)


def take_along_axis(arr, indices, axis) -> Tensor:
    """The elements of ``arr`` at ``indices`` along ``axis``, matching the other axes (follows
    `tf.experimental.numpy.take_along_axis`); differentiable in ``arr``."""
    x = asarray_value(arr, op="take_along_axis")
    i = asarray_value(indices, op="take_along_axis")
    if axis is None:
        x, axis = _ops.reshape(x, [-1]), 0
    (ax,) = normalize_axis(axis, x.ndim, "take_along_axis")
    if i.ndim != x.ndim:
        raise ValueError(
            f"take_along_axis: indices must have the rank of arr ({x.ndim}), got {i.ndim}."
        )
    shape = np.broadcast_shapes(
        tuple(1 if d == ax else s for d, s in enumerate(x.shape)),
        tuple(1 if d == ax else s for d, s in enumerate(i.shape)),
    )
    if i._value.dtype.kind not in "iu":
        raise TypeError(f"take_along_axis: indices must be integers, got {i.dtype.name}.")
    n = x.shape[ax]
    i = _ops.mod(cast(i, "int64"), _const(builtins.max(n, 1), "int64"))
    x = _ops.broadcast_to(x, tuple(s if d == ax else shape[d] for d, s in enumerate(x.shape)))
    i = _ops.broadcast_to(i, tuple(s if d == ax else shape[d] for d, s in enumerate(i.shape)))
    # rows of the axis, flattened: element (r, j) is at r * n + i[r, j] of x flattened
    xt, it = moveaxis(x, ax, -1), moveaxis(i, ax, -1)
    lead, k = tuple(it.shape[:-1]), it.shape[-1]
    rows = int(np.prod(lead, dtype=np.int64))
    offsets = constant((np.arange(rows, dtype=np.int64) * n).reshape(-1, 1))
    flat = _ops.reshape(it, (rows, k)) + offsets
    out = _ops.gather(_ops.reshape(xt, [-1]), _ops.reshape(flat, [-1]))
    return moveaxis(_ops.reshape(out, (*lead, k)), -1, ax)


def where(condition, x=None, y=None) -> Tensor:
    """Elements of ``x`` where ``condition``, else of ``y``, broadcast and promoted; with
    ``condition`` alone, `nonzero` (follows `tf.experimental.numpy.where`).

    Raises:
        ValueError: only one of ``x`` and ``y`` given.
    """
    c = cast(asarray_value(condition, op="where"), "bool")
    if x is None and y is None:
        return nonzero(c)
    if x is None or y is None:
        raise ValueError("where: either both or neither of x and y should be given.")
    a, b = promote(x, y, op="where")
    s = np.broadcast_shapes(tuple(c.shape), tuple(a.shape), tuple(b.shape))
    return _ops.where(_ops.broadcast_to(c, s), _ops.broadcast_to(a, s), _ops.broadcast_to(b, s))


def nonzero(a) -> tuple:
    """The indices of the non-zero elements, one int64 array per axis (follows
    `tf.experimental.numpy.nonzero`)."""
    x = atleast_1d(asarray_value(a, op="nonzero"))  # as TF NumPy: a scalar is a 1-vector
    coords = _ops.where(cast(x, "bool"))  # (n, rank) int64
    return tuple(coords[:, d] for d in range(x.ndim))


def select(condlist, choicelist, default=0) -> Tensor:
    """The element of the first choice whose condition holds, else ``default`` (follows
    `tf.experimental.numpy.select`); differentiable in the choices."""
    if len(condlist) != len(choicelist):
        raise ValueError("select: list of cases must be same length as list of conditions.")
    choices = promote(*choicelist, default, op="select")
    out = choices[-1]
    for cond, choice in zip(reversed(list(condlist)), reversed(choices[:-1])):
        out = where(cond, choice, out)
    return out


def compress(condition, a, axis=None) -> Tensor:
    """The slices of ``a`` along ``axis`` where the 1-D ``condition`` holds (follows
    `tf.experimental.numpy.compress`)."""
    c = cast(asarray_value(condition, op="compress"), "bool").numpy()
    x = asarray_value(a, op="compress")
    if axis is None:
        x, axis = _ops.reshape(x, [-1]), 0
    (ax,) = normalize_axis(axis, x.ndim, "compress")
    if c.shape[0] > x.shape[ax]:
        raise IndexError("compress: condition is longer than the axis.")
    return _ops.gather(x, constant(np.nonzero(c)[0]), axis=ax)


def diff(a, n=1, axis=-1) -> Tensor:
    """The ``n``-th difference along ``axis`` (follows `tf.experimental.numpy.diff`)."""
    x = asarray_value(a, op="diff")
    if n < 0:
        raise ValueError(f"diff: order must be non-negative, got {n}.")
    (ax,) = normalize_axis(axis, x.ndim, "diff")
    for _ in range(n):
        hi = (slice(None),) * ax + (slice(1, None),)
        lo = (slice(None),) * ax + (slice(None, -1),)
        x = x[hi] - x[lo] if x._value.dtype.kind != "b" else _ops.not_equal(x[hi], x[lo])
    return x


def sort(a, axis=-1, kind="quicksort", order=None) -> Tensor:
    """``a`` sorted along ``axis`` (flattened when None; follows
    `tf.experimental.numpy.sort`); differentiable.

    Raises:
        NotImplementedError: ``order`` (structured arrays).
    """
    no_argument("sort", order=order)
    x = asarray_value(a, op="sort")
    if axis is None:
        x, axis = _ops.reshape(x, [-1]), -1
    return _ops.sort(x, axis=normalize_axis(axis, x.ndim, "sort")[0])


def argsort(a, axis=-1, kind="quicksort", order=None) -> Tensor:
    """The indices that sort ``a`` along ``axis`` (int64; stable for ``kind="stable"``;
    follows `tf.experimental.numpy.argsort`)."""
    no_argument("argsort", order=order)
    x = asarray_value(a, op="argsort")
    if axis is None:
        x, axis = _ops.reshape(x, [-1]), -1
    ax = normalize_axis(axis, x.ndim, "argsort")[0]
    return cast(_ops.argsort(x, axis=ax, stable=kind in ("stable", "mergesort")), "int64")


# -- linear algebra -------------------------------------------------------------------------


def matmul(x1, x2) -> Tensor:
    """NumPy's matrix product: 1-D operands are promoted to a matrix and back, batch axes
    broadcast (follows `tf.experimental.numpy.matmul`); differentiable.

    Raises:
        ValueError: a scalar operand. InvalidArgumentError: inner dimensions differ.
    """
    a, b = promote(x1, x2, op="matmul")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: Input operand does not have enough dimensions (a scalar).")
    va, vb = a.ndim == 1, b.ndim == 1
    if va:
        a = _ops.expand_dims(a, 0)
    if vb:
        b = _ops.expand_dims(b, -1)
    out = _ops.matmul(a, b)
    if va:
        out = _ops.squeeze(out, [-2])
    if vb:
        out = _ops.squeeze(out, [-1])
    return out


def dot(a, b) -> Tensor:
    """NumPy's ``dot``: a product for scalars, the inner product of vectors, the matrix
    product of matrices, a sum over ``a``'s last and ``b``'s second-to-last axis otherwise
    (follows `tf.experimental.numpy.dot`); differentiable."""
    x, y = promote(a, b, op="dot")
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    if y.ndim == 1:
        return _ops.tensordot(x, y, [[x.ndim - 1], [0]])
    return _ops.tensordot(x, y, [[x.ndim - 1], [y.ndim - 2]])


def inner(a, b) -> Tensor:
    """The sum product over the last axes (follows `tf.experimental.numpy.inner`)."""
    x, y = promote(a, b, op="inner")
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    return _ops.tensordot(x, y, [[x.ndim - 1], [y.ndim - 1]])


def outer(a, b) -> Tensor:
    """The outer product of ``a`` and ``b`` flattened (follows `tf.experimental.numpy.outer`)."""
    x, y = promote(a, b, op="outer")
    return _ops.reshape(x, [-1, 1]) * _ops.reshape(y, [1, -1])


def vdot(a, b) -> Tensor:
    """The dot product of ``a`` and ``b`` flattened (follows `tf.experimental.numpy.vdot`)."""
    x, y = promote(a, b, op="vdot")
    return _ops.reduce_sum(_ops.reshape(x, [-1]) * _ops.reshape(y, [-1]))


def tensordot(a, b, axes=2) -> Tensor:
    """Sum products over ``axes`` (follows `tf.experimental.numpy.tensordot`)."""
    x, y = promote(a, b, op="tensordot")
    return _ops.tensordot(x, y, axes)


def einsum(subscripts, *operands, **kwargs) -> Tensor:
    """Einstein summation (follows `tf.experimental.numpy.einsum`); differentiable.

    Raises:
        NotImplementedError: ``out`` or another keyword but ``optimize``/``casting``/``dtype``.
    """
    no_argument("einsum", out=kwargs.pop("out", None))
    kwargs.pop("optimize", None)
    kwargs.pop("casting", None)
    dtype = kwargs.pop("dtype", None)
    if kwargs:
        raise NotImplementedError(f"einsum: arguments {sorted(kwargs)} are not supported.")
    ts = promote(*operands, op="einsum")
    if dtype is not None:
        ts = [asarray_value(t, dtype, "einsum") for t in ts]
    return _ops.einsum(subscripts, *ts)


def kron(a, b) -> Tensor:
    """The Kronecker product (follows `tf.experimental.numpy.kron`); differentiable."""
    x, y = promote(a, b, op="kron")
    n = builtins.max(x.ndim, y.ndim)
    x = _ops.reshape(x, (1,) * (n - x.ndim) + tuple(x.shape))
    y = _ops.reshape(y, (1,) * (n - y.ndim) + tuple(y.shape))
    xs = [d for s in x.shape for d in (s, 1)]
    ys = [d for s in y.shape for d in (1, s)]
    out = _ops.reshape(x, xs) * _ops.reshape(y, ys)
    return _ops.reshape(out, [p * q for p, q in zip(x.shape, y.shape)])


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None) -> Tensor:
    """The cross product of 3-vectors along the given axes (follows
    `tf.experimental.numpy.cross`); differentiable.

    2-vectors are 3-vectors with a zero z; when both are, the result is the z component
    (the scalar ``a0*b1 - a1*b0``), as NumPy's and TF NumPy's.

    Raises:
        InvalidArgumentError (a ValueError): a vector axis of length other than 2 or 3.
    """
    x, y = promote(a, b, op="cross")
    if axis is not None:
        axisa = axisb = axisc = axis
    x, y = moveaxis(x, axisa, -1), moveaxis(y, axisb, -1)
    dims = (x.shape[-1], y.shape[-1])
    if any(d not in (2, 3) for d in dims):
        raise InvalidArgumentError(
            None,
            "cross",
            f"cross: incompatible dimensions for cross product (dimension must be 2 or 3), "
            f"got shapes {tuple(x.shape)} and {tuple(y.shape)}.",
        )
    if dims == (2, 2):
        return x[..., 0] * y[..., 1] - x[..., 1] * y[..., 0]
    x, y = (
        _ops.pad(t, [[0, 0]] * (t.ndim - 1) + [[0, 1]]) if t.shape[-1] == 2 else t for t in (x, y)
    )
    s = np.broadcast_shapes(tuple(x.shape), tuple(y.shape))
    x, y = _ops.broadcast_to(x, s), _ops.broadcast_to(y, s)
    x0, x1, x2 = (x[..., i] for i in range(3))
    y0, y1, y2 = (y[..., i] for i in range(3))
    out = _ops.stack([x1 * y2 - x2 * y1, x2 * y0 - x0 * y2, x0 * y1 - x1 * y0], axis=-1)
    return moveaxis(out, -1, axisc)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None) -> Tensor:
    """The sum of diagonal ``offset`` (follows `tf.experimental.numpy.trace`)."""
    from .creation import diagonal
    from .math import sum as _sum

    x = asarray_value(a, op="trace")
    # TF NumPy takes `tf.linalg.trace` (no int64 promotion) for the main diagonal of the last
    # two axes, and the int64-promoting `sum` of `diagonal` otherwise.
    last_two = axis1 in (-2, x.ndim - 2) and axis2 in (-1, x.ndim - 1)
    if dtype is None and offset == 0 and last_two and x._value.dtype != np.bool_:
        dtype = x._value.dtype
    return _sum(diagonal(x, offset, axis1, axis2), axis=-1, dtype=dtype)


def polyval(p, x) -> Tensor:
    """The polynomial with coefficients ``p`` (highest power first) at ``x`` (follows
    `tf.experimental.numpy.polyval`); differentiable."""
    c, v = promote(p, x, op="polyval")
    return _math.polyval([c[i] for i in range(c.shape[0])], v)
