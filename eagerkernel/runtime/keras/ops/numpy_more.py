"""`keras.ops` NumPy-style functions, second part: the rest of the elementwise math, more
reductions, and array construction/rearrangement (follows ``keras/src/ops/numpy.py``),
mapped onto eagerkernel's ops and `ek.experimental.numpy`."""

from __future__ import annotations

import itertools

import numpy as np

from ... import numpy_ops as tnp
from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ..keras_tensor import KerasTensor
from ._base import (
    canonical_axis,
    check_axes,
    float_like,
    floatx,
    keras_op,
    promote,
    result_type,
    to_tensor,
)
from ._tf import tf

__all__ = [
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "broadcast_to",
    "ceil",
    "cos",
    "cosh",
    "count_nonzero",
    "diag",
    "diff",
    "einsum",
    "exp2",
    "expm1",
    "eye",
    "flip",
    "floor",
    "floor_divide",
    "full",
    "full_like",
    "identity",
    "isfinite",
    "isinf",
    "isnan",
    "linspace",
    "log1p",
    "log2",
    "log10",
    "logical_xor",
    "meshgrid",
    "mod",
    "moveaxis",
    "ndim",
    "negative",
    "nonzero",
    "outer",
    "power",
    "prod",
    "ravel",
    "reciprocal",
    "roll",
    "round",
    "sign",
    "sin",
    "sinh",
    "size",
    "split",
    "std",
    "swapaxes",
    "tan",
    "tensordot",
    "tril",
    "triu",
    "var",
]


def _float_unary(name, fn):
    def op(x):
        return fn(float_like(x))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"Elementwise ``{name}`` (follows `keras.ops.{name}`); integer and bool inputs give "
        "floatx, floats keep their dtype."
    )
    return keras_op(op)


sin = _float_unary("sin", tf.sin)
cos = _float_unary("cos", tf.cos)
tan = _float_unary("tan", tf.tan)
arcsin = _float_unary("arcsin", tf.asin)
arccos = _float_unary("arccos", tf.acos)
arctan = _float_unary("arctan", tf.atan)
sinh = _float_unary("sinh", tf.sinh)
cosh = _float_unary("cosh", tf.cosh)
arcsinh = _float_unary("arcsinh", tf.asinh)
arccosh = _float_unary("arccosh", tf.acosh)
arctanh = _float_unary("arctanh", tf.atanh)
log1p = _float_unary("log1p", tf.log1p)
expm1 = _float_unary("expm1", tf.expm1)
log2 = _float_unary("log2", tnp.log2)
log10 = _float_unary("log10", tnp.log10)
exp2 = _float_unary("exp2", tnp.exp2)
floor = _float_unary("floor", tf.floor)
ceil = _float_unary("ceil", tf.ceil)
reciprocal = _float_unary("reciprocal", tf.reciprocal)


@keras_op
def negative(x):
    """``-x`` (follows `keras.ops.negative`); the dtype of ``x``."""
    return tf.negative(to_tensor(x))


@keras_op
def sign(x):
    """-1, 0 or 1 by the sign of ``x`` (follows `keras.ops.sign`); the dtype of ``x``
    (unsigned integers too, as Keras: 0 or 1)."""
    x = to_tensor(x)
    if x.dtype.is_unsigned:
        return tf.cast(tf.sign(tf.cast(x, "int64")), x.dtype)
    return tf.sign(x)


@keras_op
def round(x, decimals=0):
    """``x`` rounded half to even to ``decimals`` places (follows `keras.ops.round`); the
    dtype of ``x`` (integers with negative ``decimals`` round to tens, hundreds, ...)."""
    x = to_tensor(x)
    if decimals == 0:
        return tf.round(x) if x.dtype.is_floating else x
    factor = 10.0 ** int(decimals)
    if x.dtype.is_floating:
        f = to_tensor(factor, x.dtype)
        return tf.round(x * f) / f
    xf = tf.cast(x, floatx())
    f = to_tensor(factor, xf.dtype)
    return tf.cast(tf.round(xf * f) / f, x.dtype)


def _isfn(name, fn, integer_value):
    def op(x):
        x = to_tensor(x)
        if not (x.dtype.is_floating or x.dtype.is_complex):
            return tf.fill(list(x.shape), integer_value)
        return fn(x)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"Elementwise ``{name}`` (follows `keras.ops.{name}`); bool; integer inputs give "
        f"{integer_value}."
    )
    return keras_op(op)


isnan = _isfn("isnan", tf.is_nan, False)
isinf = _isfn("isinf", tf.is_inf, False)
isfinite = _isfn("isfinite", tf.is_finite, True)


@keras_op
def floor_divide(x1, x2):
    """``floor(x1 / x2)`` (follows `keras.ops.floor_divide`); the Keras result dtype."""
    x1, x2 = promote(x1, x2)
    return tf.floordiv(x1, x2)


@keras_op
def mod(x1, x2):
    """``x1 - floor(x1 / x2) * x2``, the sign of ``x2`` (follows `keras.ops.mod`); the Keras
    result dtype (bool gives int32; Python numbers count as int32/float32 tensors, as in
    Keras)."""
    x1, x2 = promote(to_tensor(x1), to_tensor(x2))
    if x1.dtype == dtypes.bool:
        x1, x2 = tf.cast(x1, "int32"), tf.cast(x2, "int32")
    return tf.mod(x1, x2)


@keras_op
def power(x1, x2):
    """``x1 ** x2`` (follows `keras.ops.power`); the Keras result dtype."""
    x1, x2 = promote(x1, x2)
    return tf.pow(x1, x2)


@keras_op
def arctan2(x1, x2):
    """The angle of ``(x2, x1)`` in ``[-pi, pi]`` (follows `keras.ops.arctan2`); floats of
    the Keras result dtype (integers give floatx; Python numbers count as float32/int32
    tensors, as in Keras)."""
    x1, x2 = to_tensor(x1), to_tensor(x2)
    dtype = result_type(x1, x2, 1.0)
    return tf.atan2(to_tensor(x1, dtype), to_tensor(x2, dtype))


@keras_op
def logical_xor(x1, x2):
    """Elementwise exclusive or of the truth values (follows `keras.ops.logical_xor`)."""
    return tf.logical_xor(tf.cast(to_tensor(x1), "bool"), tf.cast(to_tensor(x2), "bool"))


# -- reductions ---------------------------------------------------------------------------------


@keras_op
def prod(x, axis=None, keepdims=False, dtype=None):
    """Product over ``axis`` (follows `keras.ops.prod`); ``dtype`` or that of ``x`` (bool,
    int8 and int16 give int32, uint8/uint16 uint32)."""
    x = to_tensor(x)
    if dtype is not None:
        x = tf.cast(x, dtype)
    elif x.dtype.name in ("bool", "int8", "int16"):
        x = tf.cast(x, "int32")
    elif x.dtype.name in ("uint8", "uint16"):
        x = tf.cast(x, "uint32")
    return tf.reduce_prod(x, axis=check_axes(axis, x.shape.rank, "prod"), keepdims=bool(keepdims))


@keras_op
def var(x, axis=None, keepdims=False):
    """Population variance over ``axis`` (follows `keras.ops.var`); integers give floatx."""
    x = float_like(x)
    axis = check_axes(axis, x.shape.rank, "var")
    return tf.reduce_variance(x, axis=axis, keepdims=bool(keepdims))


@keras_op
def std(x, axis=None, keepdims=False):
    """Population standard deviation over ``axis`` (follows `keras.ops.std`); integers give
    floatx."""
    x = float_like(x)
    axis = check_axes(axis, x.shape.rank, "std")
    return tf.reduce_std(x, axis=axis, keepdims=bool(keepdims))


@keras_op
def count_nonzero(x, axis=None):
    """Number of nonzero elements over ``axis`` (follows `keras.ops.count_nonzero`); int32."""
    x = to_tensor(x)
    axis = check_axes(axis, x.shape.rank, "count_nonzero")
    return tf.count_nonzero(x, axis=axis, dtype=dtypes.int32)


@keras_op
def diff(a, n=1, axis=-1):
    """The ``n``-th discrete difference along ``axis`` (follows `keras.ops.diff`)."""
    a = to_tensor(a)
    axis = canonical_axis(axis, a.shape.rank, "diff")
    for _ in range(int(n)):
        size = a.shape[axis]
        hi = [slice(None)] * a.shape.rank
        lo = [slice(None)] * a.shape.rank
        hi[axis], lo[axis] = slice(1, size), slice(0, size - 1)
        a = a[tuple(hi)] - a[tuple(lo)]
    return a


# -- construction -------------------------------------------------------------------------------


@keras_op
def full(shape, fill_value, dtype=None):
    """A tensor of ``shape`` filled with ``fill_value`` (follows `keras.ops.full`); ``dtype``
    default floatx."""
    value = to_tensor(fill_value, dtypes.as_dtype(dtype or floatx()))
    return tf.broadcast_to(value, list(shape) if not isinstance(shape, int) else [shape])


@keras_op
def full_like(x, fill_value, dtype=None):
    """``fill_value`` with the shape of ``x`` (follows `keras.ops.full_like`); ``dtype``
    default that of ``x``."""
    x = to_tensor(x)
    value = to_tensor(fill_value, dtypes.as_dtype(dtype) if dtype else x.dtype)
    return tf.broadcast_to(value, list(x.shape))


@keras_op
def eye(N, M=None, k=0, dtype=None):
    """An ``N x M`` matrix with ones on diagonal ``k`` (follows `keras.ops.eye`); ``dtype``
    default floatx."""
    return to_tensor(np.eye(int(N), None if M is None else int(M), int(k)), dtype or floatx())


@keras_op
def identity(n, dtype=None):
    """The ``n x n`` identity (follows `keras.ops.identity`); ``dtype`` default floatx."""
    return eye(n, dtype=dtype)


@keras_op
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (follows `keras.ops.linspace`);
    ``dtype`` default floatx; ``retstep`` also returns the step.

    Raises:
        ValueError: ``num`` negative.
    """
    if num < 0:
        raise ValueError(f"keras.ops.linspace: `num` must be >= 0. Received: num={num}")
    dtype = dtypes.as_dtype(dtype) if dtype is not None else result_type(start, stop, 1.0)
    # As Keras: an integer dtype truncates start and stop, spaces in float64, then floors
    compute = dtype if dtype.is_floating else dtypes.float64
    start = tf.cast(tf.cast(to_tensor(start), dtype), compute)
    stop = tf.cast(tf.cast(to_tensor(stop), dtype), compute)
    div = (num - 1) if endpoint else num
    step = (stop - start) / to_tensor(max(div, 1), compute)
    shape = [num] + [1] * start.shape.rank
    out = start + tf.reshape(tf.range(num, dtype=compute), shape) * step
    if endpoint and num > 1:
        out = tf.concat([out[:-1], tf.expand_dims(stop, 0)], axis=0)
    if axis != 0:
        out = moveaxis(out, 0, axis)
    out = tf.cast(out if dtype.is_floating else tf.floor(out), dtype)
    if div <= 0:  # Keras's step of a single point (or none) is a float32 NaN
        step = to_tensor(np.nan, "float32")
    return (out, step) if retstep else out


@keras_op
def diag(x, k=0):
    """The ``k``-th diagonal of a matrix, or a matrix with 1-D ``x`` on it (follows
    `keras.ops.diag`)."""
    return tnp.diag(to_tensor(x), k=int(k))


def _at_least_2d(x, op: str):
    if x.shape.rank < 2:
        raise InvalidArgumentError(
            f"keras.ops.{op}: x must be at least 2-D. Received: x.shape={tuple(x.shape)}"
        )
    return x


@keras_op
def tril(x, k=0):
    """``x`` with the elements above diagonal ``k`` zeroed (follows `keras.ops.tril`);
    InvalidArgumentError below rank 2, as TensorFlow's MatrixBandPart."""
    x = _at_least_2d(to_tensor(x), "tril")
    n, m = x.shape[-2], x.shape[-1]
    return tf.where(to_tensor(np.tri(n, m, int(k), dtype=bool)), x, tf.zeros_like(x))


@keras_op
def triu(x, k=0):
    """``x`` with the elements below diagonal ``k`` zeroed (follows `keras.ops.triu`);
    InvalidArgumentError below rank 2, as TensorFlow's MatrixBandPart."""
    x = _at_least_2d(to_tensor(x), "triu")
    n, m = x.shape[-2], x.shape[-1]
    return tf.where(to_tensor(~np.tri(n, m, int(k) - 1, dtype=bool)), x, tf.zeros_like(x))


@keras_op
def broadcast_to(x, shape):
    """``x`` broadcast to ``shape`` (follows `keras.ops.broadcast_to`)."""
    return tf.broadcast_to(to_tensor(x), list(shape))


@keras_op
def meshgrid(*x, indexing="xy"):
    """Coordinate grids from 1-D tensors (follows `keras.ops.meshgrid`); ``indexing``
    ``"xy"`` or ``"ij"``."""
    return tf.meshgrid(*[to_tensor(v) for v in x], indexing=indexing)


@keras_op
def einsum(subscripts, *operands):
    """Einstein summation (follows `keras.ops.einsum`); the Keras result dtype."""
    return tf.einsum(subscripts, *promote(*operands))


@keras_op
def tensordot(x1, x2, axes=2):
    """Contraction over ``axes`` (follows `keras.ops.tensordot`); the Keras result dtype."""
    x1, x2 = promote(x1, x2)
    return tf.tensordot(x1, x2, axes=axes)


@keras_op
def outer(x1, x2):
    """The outer product of the flattened inputs (follows `keras.ops.outer`)."""
    x1, x2 = promote(x1, x2)
    return tf.reshape(x1, [-1, 1]) * tf.reshape(x2, [1, -1])


# -- rearranging --------------------------------------------------------------------------------


@keras_op
def flip(x, axis=None):
    """``x`` reversed along ``axis`` (None: all) (follows `keras.ops.flip`)."""
    x = to_tensor(x)
    axes = check_axes(axis, x.shape.rank, "flip")
    axes = list(range(x.shape.rank)) if axes is None else axes
    return tf.reverse(x, axes if isinstance(axes, list) else [axes])


@keras_op
def roll(x, shift, axis=None):
    """``x`` shifted cyclically by ``shift`` along ``axis`` (None: flattened) (follows
    `keras.ops.roll`)."""
    x = to_tensor(x)
    if axis is None:
        return tf.reshape(tf.roll(tf.reshape(x, [-1]), shift, axis=0), list(x.shape))
    return tf.roll(x, shift, axis=axis)


@keras_op
def moveaxis(x, source, destination):
    """``x`` with axes ``source`` moved to ``destination`` (follows `keras.ops.moveaxis`)."""
    x = to_tensor(x)
    rank = x.shape.rank
    src = [canonical_axis(a, rank, "moveaxis") for a in np.atleast_1d(source).tolist()]
    dst = [canonical_axis(a, rank, "moveaxis") for a in np.atleast_1d(destination).tolist()]
    order = [a for a in range(rank) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return tf.transpose(x, order)


@keras_op
def swapaxes(x, axis1, axis2):
    """``x`` with ``axis1`` and ``axis2`` exchanged (follows `keras.ops.swapaxes`)."""
    x = to_tensor(x)
    perm = list(range(x.shape.rank))
    a, b = (
        canonical_axis(axis1, len(perm), "swapaxes"),
        canonical_axis(axis2, len(perm), "swapaxes"),
    )
    perm[a], perm[b] = perm[b], perm[a]
    return tf.transpose(x, perm)


@keras_op
def ravel(x):
    """``x`` flattened (follows `keras.ops.ravel`)."""
    return tf.reshape(to_tensor(x), [-1])


@keras_op
def split(x, indices_or_sections, axis=0):
    """``x`` split along ``axis`` into equal sections or at indices (follows
    `keras.ops.split`); a list.

    Raises:
        ValueError: sections that do not divide the axis.
    """
    x = to_tensor(x)
    axis = canonical_axis(axis, x.shape.rank, "split")
    size = x.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        if size % int(indices_or_sections):
            raise ValueError(
                f"keras.ops.split: axis {axis} of size {size} does not split into "
                f"{indices_or_sections} equal sections."
            )
        return tf.split(x, int(indices_or_sections), axis=axis)
    bounds = [0, *[int(i) for i in indices_or_sections], size]
    return tf.split(x, [b - a for a, b in itertools.pairwise(bounds)], axis=axis)


@keras_op
def nonzero(x):
    """The indices of the nonzero elements, one int32 vector per axis (follows
    `keras.ops.nonzero`)."""
    return tuple(to_tensor(i.astype(np.int32)) for i in np.nonzero(np.asarray(to_tensor(x))))


@keras_op
def size(x):
    """The number of elements of ``x`` (follows `keras.ops.size`); int32."""
    return to_tensor(int(np.prod(to_tensor(x).shape)), "int32")


def ndim(x) -> int:
    """The rank of ``x`` as an int (follows `keras.ops.ndim`); on a KerasTensor its static
    rank (no layer is recorded)."""
    if isinstance(x, KerasTensor):
        return x.ndim
    return to_tensor(x).shape.rank
