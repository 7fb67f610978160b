"""`keras.ops` NumPy-style functions, first part: arithmetic, reductions, creation and
shape manipulation (follows ``keras/src/ops/numpy.py``).

Every function accepts tensors, NumPy arrays and Python numbers, returns an eagerkernel
Tensor (differentiable through `ek.GradientTape`), and records a layer when given a
KerasTensor (see ``_base``). Dtypes follow Keras 3's rules (``_base.result_type``).
"""

from __future__ import annotations

import builtins

import numpy as np

from ...core import dtypes
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
    "abs",
    "absolute",
    "add",
    "all",
    "any",
    "arange",
    "argmax",
    "argmin",
    "argsort",
    "clip",
    "concatenate",
    "cumsum",
    "divide",
    "dot",
    "equal",
    "exp",
    "expand_dims",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "log",
    "logical_and",
    "logical_not",
    "logical_or",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "multiply",
    "not_equal",
    "ones",
    "ones_like",
    "pad",
    "repeat",
    "reshape",
    "sort",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "subtract",
    "sum",
    "take",
    "tile",
    "transpose",
    "true_divide",
    "where",
    "zeros",
    "zeros_like",
]


# -- elementwise arithmetic ---------------------------------------------------------------------


@keras_op
def add(x1, x2):
    """``x1 + x2`` with broadcasting (follows `keras.ops.add`); the Keras result dtype
    (Python numbers are weak; bool + bool is a logical or).

    >>> ek.keras.ops.add(ek.constant([1, 2]), 1.5).numpy()
    array([2.5, 3.5], dtype=float32)
    """
    x1, x2 = promote(x1, x2)
    if x1.dtype == dtypes.bool:
        return tf.logical_or(x1, x2)
    return tf.add(x1, x2)


@keras_op
def subtract(x1, x2):
    """``x1 - x2`` with broadcasting (follows `keras.ops.subtract`); the Keras result dtype."""
    x1, x2 = promote(x1, x2)
    return tf.subtract(x1, x2)


@keras_op
def multiply(x1, x2):
    """``x1 * x2`` with broadcasting (follows `keras.ops.multiply`); the Keras result dtype
    (bool * bool is a logical and)."""
    x1, x2 = promote(x1, x2)
    if x1.dtype == dtypes.bool:
        return tf.logical_and(x1, x2)
    return tf.multiply(x1, x2)


@keras_op
def divide(x1, x2):
    """True division ``x1 / x2`` (follows `keras.ops.divide`): integer and bool operands give
    floatx, floats the Keras result dtype."""
    dtype = result_type(x1, x2, 1.0)
    return tf.truediv(to_tensor(x1, dtype), to_tensor(x2, dtype))


@keras_op
def true_divide(x1, x2):
    """Alias of `divide` (follows `keras.ops.true_divide`)."""
    return divide(x1, x2)


@keras_op
def square(x):
    """``x * x`` elementwise (follows `keras.ops.square`); bool gives int32, else the dtype
    of ``x``."""
    x = to_tensor(x)
    if x.dtype == dtypes.bool:
        x = tf.cast(x, "int32")
    return tf.square(x)


@keras_op
def sqrt(x):
    """Square root (follows `keras.ops.sqrt`); integer and bool inputs give floatx."""
    return tf.sqrt(float_like(x))


@keras_op
def exp(x):
    """``e ** x`` (follows `keras.ops.exp`); integer and bool inputs give floatx."""
    return tf.exp(float_like(x))


@keras_op
def log(x):
    """Natural logarithm (follows `keras.ops.log`); integer and bool inputs give floatx."""
    return tf.log(float_like(x))


@keras_op
def absolute(x):
    """``|x|`` (follows `keras.ops.absolute`); the dtype of ``x`` (bool unchanged; complex
    gives its real dtype)."""
    x = to_tensor(x)
    if x.dtype == dtypes.bool:
        return x
    return tf.abs(x)


@keras_op
def abs(x):
    """Alias of `absolute` (follows `keras.ops.abs`)."""
    return absolute(x)


@keras_op
def maximum(x1, x2):
    """Elementwise maximum with broadcasting (follows `keras.ops.maximum`); the Keras result
    dtype."""
    x1, x2 = promote(x1, x2)
    if x1.dtype == dtypes.bool:
        return tf.logical_or(x1, x2)
    return tf.maximum(x1, x2)


@keras_op
def minimum(x1, x2):
    """Elementwise minimum with broadcasting (follows `keras.ops.minimum`); the Keras result
    dtype."""
    x1, x2 = promote(x1, x2)
    if x1.dtype == dtypes.bool:
        return tf.logical_and(x1, x2)
    return tf.minimum(x1, x2)


@keras_op
def clip(x, x_min, x_max):
    """``x`` limited to ``[x_min, x_max]`` (follows `keras.ops.clip`); the dtype of ``x``
    (bool gives int32); the bounds are cast to it."""
    x = to_tensor(x)
    if x.dtype == dtypes.bool:
        x = tf.cast(x, "int32")
    return tf.clip_by_value(x, to_tensor(x_min, x.dtype), to_tensor(x_max, x.dtype))


def _comparison(name, fn):
    def op(x1, x2):
        x1, x2 = promote(x1, x2)
        return fn(x1, x2)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"Elementwise ``{name}`` with broadcasting (follows `keras.ops.{name}`); the operands "
        "are promoted to their Keras result dtype; the result is bool."
    )
    return keras_op(op)


equal = _comparison("equal", tf.equal)
not_equal = _comparison("not_equal", tf.not_equal)
greater = _comparison("greater", tf.greater)
greater_equal = _comparison("greater_equal", tf.greater_equal)
less = _comparison("less", tf.less)
less_equal = _comparison("less_equal", tf.less_equal)


def _as_bool(x):
    x = to_tensor(x)
    return x if x.dtype == dtypes.bool else tf.not_equal(x, tf.zeros_like(x))


@keras_op
def logical_and(x1, x2):
    """Elementwise ``x1 and x2`` of the truth values (nonzero is True) (follows
    `keras.ops.logical_and`); bool."""
    return tf.logical_and(_as_bool(x1), _as_bool(x2))


@keras_op
def logical_or(x1, x2):
    """Elementwise ``x1 or x2`` of the truth values (follows `keras.ops.logical_or`); bool."""
    return tf.logical_or(_as_bool(x1), _as_bool(x2))


@keras_op
def logical_not(x):
    """Elementwise ``not x`` of the truth values (follows `keras.ops.logical_not`); bool."""
    return tf.logical_not(_as_bool(x))


# -- reductions ---------------------------------------------------------------------------------


def _reduce_axes(x, axis, op):
    return check_axes(axis, x.shape.rank, op)


@keras_op
def sum(x, axis=None, keepdims=False):
    """Sum over ``axis`` (None: all; an int or a tuple) (follows `keras.ops.sum`); bool,
    int8 and int16 give int32, uint8/uint16 uint32, other dtypes are kept.

    Raises:
        ValueError: an axis out of range or repeated.
    """
    x = to_tensor(x)
    if x.dtype.name in ("bool", "int8", "int16"):
        x = tf.cast(x, "int32")
    elif x.dtype.name in ("uint8", "uint16"):
        x = tf.cast(x, "uint32")
    return tf.reduce_sum(x, axis=_reduce_axes(x, axis, "sum"), keepdims=bool(keepdims))


@keras_op
def mean(x, axis=None, keepdims=False):
    """Mean over ``axis`` (None: all) (follows `keras.ops.mean`); integer and bool inputs
    give floatx, floats keep their dtype.

    >>> ek.keras.ops.mean(ek.constant([[1, 2], [3, 5]]), axis=-1).numpy()
    array([1.5, 4. ], dtype=float32)
    """
    x = float_like(x)
    return tf.reduce_mean(x, axis=_reduce_axes(x, axis, "mean"), keepdims=bool(keepdims))


def _extreme(x, axis, keepdims, initial, op):
    x = to_tensor(x)
    axes = _reduce_axes(x, axis, op)
    if x.dtype == dtypes.bool:
        fn = tf.reduce_any if op == "max" else tf.reduce_all
        out = fn(x, axis=axes, keepdims=bool(keepdims))
    else:
        fn = tf.reduce_max if op == "max" else tf.reduce_min
        out = fn(x, axis=axes, keepdims=bool(keepdims))
    if initial is not None:
        pick = maximum if op == "max" else minimum
        out = tf.cast(pick(out, to_tensor(initial, x.dtype)), x.dtype)
    return out


@keras_op
def max(x, axis=None, keepdims=False, initial=None):
    """Maximum over ``axis`` (None: all) (follows `keras.ops.max`); ``initial``, if given,
    is included in every maximum; the dtype of ``x``."""
    return _extreme(x, axis, keepdims, initial, "max")


@keras_op
def min(x, axis=None, keepdims=False, initial=None):
    """Minimum over ``axis`` (None: all) (follows `keras.ops.min`); ``initial``, if given,
    is included in every minimum; the dtype of ``x``."""
    return _extreme(x, axis, keepdims, initial, "min")


@keras_op
def any(x, axis=None, keepdims=False):
    """Whether any element over ``axis`` is nonzero (follows `keras.ops.any`); bool."""
    x = _as_bool(x)
    return tf.reduce_any(x, axis=_reduce_axes(x, axis, "any"), keepdims=bool(keepdims))


@keras_op
def all(x, axis=None, keepdims=False):
    """Whether all elements over ``axis`` are nonzero (follows `keras.ops.all`); bool."""
    x = _as_bool(x)
    return tf.reduce_all(x, axis=_reduce_axes(x, axis, "all"), keepdims=bool(keepdims))


def _arg_extreme(x, axis, keepdims, op):
    x = to_tensor(x)
    if x.dtype == dtypes.bool:
        x = tf.cast(x, "int32")
    fn = tf.argmax if op == "argmax" else tf.argmin
    if axis is None:
        out = fn(tf.reshape(x, [-1]), axis=0, output_type=dtypes.int32)
        if keepdims:
            out = tf.reshape(out, [1] * x.shape.rank)
        return out
    axis = canonical_axis(axis, x.shape.rank, op)
    out = fn(x, axis=axis, output_type=dtypes.int32)
    return tf.expand_dims(out, axis) if keepdims else out


@keras_op
def argmax(x, axis=None, keepdims=False):
    """Index of the maximum along ``axis`` (None: of the flattened tensor) (follows
    `keras.ops.argmax`); int32; ties give the first index."""
    return _arg_extreme(x, axis, keepdims, "argmax")


@keras_op
def argmin(x, axis=None, keepdims=False):
    """Index of the minimum along ``axis`` (None: of the flattened tensor) (follows
    `keras.ops.argmin`); int32; ties give the first index."""
    return _arg_extreme(x, axis, keepdims, "argmin")


@keras_op
def cumsum(x, axis=None, dtype=None):
    """Cumulative sum along ``axis`` (None: of the flattened tensor) (follows
    `keras.ops.cumsum`); ``dtype`` or that of ``x`` (bool gives int32)."""
    return cumulative(tf.cumsum, "cumsum", x, axis, dtype)


def cumulative(fn, name: str, x, axis, dtype):
    """``fn`` (tf.cumsum, tf.cumprod) along ``axis`` (None: of the flattened tensor), in
    ``dtype`` or that of ``x`` (bool gives int32), as Keras's cumulative ops."""
    x = to_tensor(x)
    if dtype is not None:
        x = tf.cast(x, dtype)
    elif x.dtype == dtypes.bool:
        x = tf.cast(x, "int32")
    if axis is None:
        return fn(tf.reshape(x, [-1]), axis=0)
    return fn(x, axis=canonical_axis(axis, x.shape.rank, name))


@keras_op
def sort(x, axis=-1):
    """``x`` sorted ascending along ``axis`` (follows `keras.ops.sort`); the dtype of ``x``."""
    x = to_tensor(x)
    axis = canonical_axis(axis, x.shape.rank, "sort")
    if x.dtype == dtypes.bool:
        return tf.cast(tf.sort(tf.cast(x, "int32"), axis=axis), dtypes.bool)
    return tf.sort(x, axis=axis)


@keras_op
def argsort(x, axis=-1):
    """Indices that sort ``x`` ascending along ``axis`` (None: flattened), stable (follows
    `keras.ops.argsort`); int32."""
    x = to_tensor(x)
    if x.dtype == dtypes.bool:
        x = tf.cast(x, "int32")
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    return tf.argsort(x, axis=canonical_axis(axis, x.shape.rank, "argsort"), stable=True)


# -- products -----------------------------------------------------------------------------------


@keras_op
def matmul(x1, x2):
    """Matrix product with NumPy's rules (1-D operands are vectors, leading axes broadcast)
    (follows `keras.ops.matmul`); the Keras result dtype.

    Raises:
        InvalidArgumentError: the inner dimensions differ.
    """
    x1, x2 = to_tensor(x1), to_tensor(x2)
    # Keras's TF backend multiplies two int8 matrices (not vectors) into int32
    int8_mm = x1.dtype == x2.dtype == dtypes.int8 and builtins.min(x1.shape.rank, x2.shape.rank) > 1
    x1, x2 = promote(x1, x2) if not int8_mm else (tf.cast(x1, "int32"), tf.cast(x2, "int32"))
    if x1.shape.rank == 0 or x2.shape.rank == 0:
        raise ValueError(
            "keras.ops.matmul: the operands must have at least one dimension (use multiply "
            f"for scalars). Received: x1.shape={tuple(x1.shape)}, x2.shape={tuple(x2.shape)}"
        )
    a = tf.expand_dims(x1, 0) if x1.shape.rank == 1 else x1
    b = tf.expand_dims(x2, -1) if x2.shape.rank == 1 else x2
    out = tf.matmul(a, b)
    if x1.shape.rank == 1:
        out = tf.squeeze(out, axis=-2)
    if x2.shape.rank == 1:
        out = tf.squeeze(out, axis=-1)
    return out


@keras_op
def dot(x1, x2):
    """NumPy's ``dot`` (follows `keras.ops.dot`): scalars multiply, 2-D is matmul, N-D
    contracts the last axis of ``x1`` with the second-to-last of ``x2``; the Keras result
    dtype."""
    x1, x2 = promote(x1, x2)
    if x1.shape.rank == 0 or x2.shape.rank == 0:
        return tf.multiply(x1, x2)
    if x2.shape.rank <= 2:
        return matmul(x1, x2)
    return tf.tensordot(x1, x2, axes=[[x1.shape.rank - 1], [x2.shape.rank - 2]])


# -- creation -----------------------------------------------------------------------------------


@keras_op
def zeros(shape, dtype=None):
    """A tensor of zeros of ``shape`` (follows `keras.ops.zeros`); ``dtype`` default floatx."""
    return tf.zeros(shape, dtype=dtypes.as_dtype(dtype or floatx()))


@keras_op
def ones(shape, dtype=None):
    """A tensor of ones of ``shape`` (follows `keras.ops.ones`); ``dtype`` default floatx."""
    return tf.ones(shape, dtype=dtypes.as_dtype(dtype or floatx()))


@keras_op
def zeros_like(x, dtype=None):
    """Zeros with the shape of ``x`` (follows `keras.ops.zeros_like`); ``dtype`` default that
    of ``x``."""
    x = to_tensor(x)
    return tf.zeros_like(x, dtype=dtypes.as_dtype(dtype) if dtype else x.dtype)


@keras_op
def ones_like(x, dtype=None):
    """Ones with the shape of ``x`` (follows `keras.ops.ones_like`); ``dtype`` default that
    of ``x``."""
    x = to_tensor(x)
    return tf.ones_like(x, dtype=dtypes.as_dtype(dtype) if dtype else x.dtype)


@keras_op
def arange(start, stop=None, step=None, dtype=None):
    """``[start, stop)`` by ``step`` (``arange(n)`` is ``[0, n)``) (follows
    `keras.ops.arange`); ``dtype`` default the Keras result dtype of the arguments (Python
    ints give int32, a float floatx).

    >>> ek.keras.ops.arange(1, 7, 2).numpy()
    array([1, 3, 5], dtype=int32)
    """
    if dtype is None:
        dtype = result_type(*[v for v in (start, stop, step) if v is not None])
    dtype = dtypes.as_dtype(dtype)
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    return tf.range(start, stop, step, dtype=dtype)


# -- joining and reshaping ----------------------------------------------------------------------


@keras_op
def concatenate(xs, axis=0):
    """``xs`` joined along ``axis`` (follows `keras.ops.concatenate`); the Keras result dtype
    of all of them.

    Raises:
        ValueError: a bad axis; InvalidArgumentError: shapes differ off the axis.
    """
    xs = promote(*xs)
    if not xs:
        raise ValueError("keras.ops.concatenate: `xs` must not be empty.")
    axis = canonical_axis(axis, xs[0].shape.rank, "concatenate")
    return tf.concat(xs, axis=axis)


@keras_op
def stack(x, axis=0):
    """The tensors of ``x`` stacked along a new ``axis`` (follows `keras.ops.stack`); the
    Keras result dtype of all of them."""
    xs = promote(*x)
    if not xs:
        raise ValueError("keras.ops.stack: `x` must not be empty.")
    return tf.stack(xs, axis=canonical_axis(axis, xs[0].shape.rank + 1, "stack"))


@keras_op
def reshape(x, newshape):
    """``x`` with shape ``newshape`` (one entry may be -1) (follows `keras.ops.reshape`);
    the dtype of ``x``."""
    x = to_tensor(x)
    if isinstance(newshape, (int, np.integer)):
        newshape = [int(newshape)]
    return tf.reshape(x, [-1 if d is None else d for d in newshape])


@keras_op
def expand_dims(x, axis):
    """``x`` with a size-1 axis inserted at ``axis`` (an int or a tuple of them) (follows
    `keras.ops.expand_dims`); the dtype of ``x``."""
    x = to_tensor(x)
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    rank = x.shape.rank + len(axes)
    axes = sorted(canonical_axis(a, rank, "expand_dims") for a in axes)
    for a in axes:
        x = tf.expand_dims(x, a)
    return x


@keras_op
def squeeze(x, axis=None):
    """``x`` without its size-1 axes (or only ``axis``, an int or a tuple) (follows
    `keras.ops.squeeze`); the dtype of ``x``.

    Raises:
        ValueError: an ``axis`` whose size is not 1.
    """
    x = to_tensor(x)
    if axis is None:
        return tf.squeeze(x)
    axes = check_axes(axis, x.shape.rank, "squeeze")
    axes = axes if isinstance(axes, list) else [axes]
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(
                f"keras.ops.squeeze: cannot squeeze axis {a} of size {x.shape[a]} (shape "
                f"{tuple(x.shape)}); only axes of size 1 can be. Received: axis={axis!r}"
            )
    return tf.squeeze(x, axis=axes) if axes else x


@keras_op
def transpose(x, axes=None):
    """``x`` with its axes permuted by ``axes`` (None: reversed) (follows
    `keras.ops.transpose`); the dtype of ``x``."""
    x = to_tensor(x)
    if axes is not None:
        axes = [canonical_axis(a, x.shape.rank, "transpose") for a in axes]
        if sorted(axes) != list(range(x.shape.rank)):
            raise ValueError(
                f"keras.ops.transpose: `axes` must be a permutation of the {x.shape.rank} "
                f"axes. Received: axes={axes!r}"
            )
    return tf.transpose(x, perm=axes)


@keras_op
def where(condition, x1=None, x2=None):
    """Elements of ``x1`` where ``condition`` is true, else of ``x2``, broadcast (follows
    `keras.ops.where`); the Keras result dtype of ``x1`` and ``x2``. With neither given, the
    indices of the nonzero elements, a tuple of int32 vectors (one per axis), as NumPy's.

    Raises:
        ValueError: only one of ``x1``, ``x2`` given.
    """
    condition = _as_bool(condition)
    if x1 is None and x2 is None:
        idx = np.nonzero(condition.numpy())
        return tuple(to_tensor(i.astype(np.int32)) for i in idx)
    if x1 is None or x2 is None:
        raise ValueError(
            "keras.ops.where: `x1` and `x2` must be given together (or neither). Received: "
            f"x1={x1!r}, x2={x2!r}"
        )
    x1, x2 = promote(x1, x2)
    return tf.where(condition, x1, x2)


@keras_op
def take(x, indices, axis=None):
    """Elements of ``x`` at ``indices`` along ``axis`` (None: of the flattened tensor);
    negative indices count from the end (follows `keras.ops.take`); the dtype of ``x``."""
    x = to_tensor(x)
    indices = to_tensor(indices)
    if indices.dtype.is_floating:
        indices = tf.cast(indices, "int32")
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    axis = canonical_axis(axis, x.shape.rank, "take")
    size = to_tensor(x.shape[axis], indices.dtype)
    indices = tf.where(tf.less(indices, tf.zeros_like(indices)), indices + size, indices)
    return tf.gather(x, indices, axis=axis)


@keras_op
def tile(x, repeats):
    """``x`` repeated ``repeats`` times per axis, NumPy's rules (a shorter ``repeats`` applies
    to the last axes, a longer one prepends axes) (follows `keras.ops.tile`)."""
    x = to_tensor(x)
    if not isinstance(repeats, (list, tuple)):  # an int, or a tensor or array of counts
        repeats = np.asarray(repeats.numpy() if hasattr(repeats, "numpy") else repeats)
        repeats = repeats.reshape(-1).tolist()
    reps = [int(r) for r in repeats]
    if len(reps) < x.shape.rank:
        reps = [1] * (x.shape.rank - len(reps)) + reps
    elif len(reps) > x.shape.rank:
        x = tf.reshape(x, [1] * (len(reps) - x.shape.rank) + list(x.shape))
    return tf.tile(x, reps)


@keras_op
def repeat(x, repeats, axis=None):
    """Each element of ``x`` repeated ``repeats`` times (an int or one count per element)
    along ``axis`` (None: of the flattened tensor) (follows `keras.ops.repeat`)."""
    x = to_tensor(x)
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    return tf.repeat(x, repeats, axis=canonical_axis(axis, x.shape.rank, "repeat"))


_PAD_MODES = {"constant": "CONSTANT", "reflect": "REFLECT", "symmetric": "SYMMETRIC"}


@keras_op
def pad(x, pad_width, mode="constant", constant_values=None):
    """``x`` padded by ``pad_width`` (``((before, after), ...)`` per axis, or one pair or
    one int for all) (follows `keras.ops.pad`); ``mode`` ``"constant"`` (with
    ``constant_values``, default 0), ``"reflect"`` or ``"symmetric"``.

    Raises:
        ValueError: another mode, or ``constant_values`` with a mode other than constant.
    """
    x = to_tensor(x)
    if mode not in _PAD_MODES:
        raise ValueError(
            "keras.ops.pad: `mode` must be one of 'constant', 'reflect', 'symmetric' (the "
            f"modes this backend supports). Received: mode={mode!r}"
        )
    if constant_values is not None and mode != "constant":
        raise ValueError(
            "keras.ops.pad: `constant_values` can only be given with mode='constant'. "
            f"Received: mode={mode!r}"
        )
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (x.shape.rank, 2))
    value = 0 if constant_values is None else constant_values
    return tf.pad(
        x, widths.tolist(), mode=_PAD_MODES[mode], constant_values=to_tensor(value, x.dtype)
    )


_ = builtins  # the builtins `sum`, `max`, ... are shadowed by the ops above

# `ops.numpy` holds all of Keras's numpy-style functions, as `keras.ops.numpy` does.
from . import (  # noqa: E402
    numpy_extra,
    numpy_more,
    symbolic_shapes,  # noqa: F401  (registers symbolic output specs)
)
from .numpy_extra import *  # noqa: E402, F403
from .numpy_more import *  # noqa: E402, F403

__all__ = [*__all__, *numpy_more.__all__, *numpy_extra.__all__]
