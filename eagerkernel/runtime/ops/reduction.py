"""Reductions: reduce_sum, reduce_mean, reduce_max, ... (follow `tf.math.reduce_*`).

``axis`` is None (all axes), an int or a sequence of ints, negative allowed; ``keepdims``
keeps reduced axes with length 1. The VJPs re-insert the reduced axes (`expand_reduced`) and
let broadcasting do the rest. Integer sums and products keep their dtype, as in TensorFlow
(NumPy would widen int32 to int64).
"""

from __future__ import annotations

import math
import operator

import numpy as np

from ..core import dtypes
from ..core.composite import CompositeTensor
from ..core.dispatch import Primitive, defvjp
from ..core.errors import InvalidArgumentError, UnsupportedDTypeError
from ..core.numpy_methods import STATE as _NUMPY_STATE
from ..core.tensor import Tensor, make
from ..core.type_promotion import STRONG, weak_unary
from ..extension_dispatch import dispatchable
from ..native import blas
from ._core import apply, complex_error, dtype_unsupported, float_check, tensor
from .complex_ops import conj_if_complex

__all__ = [
    "argmax",
    "argmin",
    "count_nonzero",
    "cumsum",
    "reduce_all",
    "reduce_any",
    "reduce_logsumexp",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_prod",
    "reduce_std",
    "reduce_sum",
    "reduce_variance",
]


def normalize_axis(axis, ndim: int, op: str) -> tuple | None:
    """``axis`` as a sorted tuple of non-negative ints (None stays None).

    Raises:
        InvalidArgumentError: an axis outside ``[-ndim, ndim)``.
    """
    if axis is None:
        return None
    if type(axis) is int and -ndim <= axis < ndim:  # the common case, without the loop
        return (axis % ndim,)
    if isinstance(axis, Tensor):
        axis = axis.numpy().tolist()
    axes = (axis,) if isinstance(axis, int) or not hasattr(axis, "__len__") else tuple(axis)
    out = []
    for a in axes:
        try:
            a = operator.index(a)
        except TypeError:  # int() would truncate axis=0.5 to 0 and reduce the wrong axis
            raise TypeError(f"{op}: axis must be an int or a list of ints, got {a!r}.") from None
        if not -ndim <= a < max(ndim, 1):
            raise InvalidArgumentError(
                None, op, f"{op}: axis {a} is out of range for a tensor of rank {ndim}."
            )
        if ndim:  # a scalar's axis 0 (or -1) reduces over nothing: the scalar itself
            out.append(a % ndim)
    if len(set(out)) != len(out):  # TensorFlow's reductions refuse axis=[0, 0] and [1, -1]
        raise InvalidArgumentError(
            None, op, f"{op}: axis {list(axes)} names a dimension twice (rank {ndim})."
        )
    return tuple(sorted(out))


def expand_reduced(g: Tensor, x: Tensor, axis, keepdims: bool) -> Tensor:
    """Reshapes a reduction's cotangent so it broadcasts against the input ``x``."""
    from .array_ops import reshape

    if keepdims or (axis is None and g.ndim == x.ndim):
        return g
    shape = [1 if (axis is None or i in axis) else n for i, n in enumerate(x._value.shape)]
    return reshape(g, shape)


def _reduce(prim, x, axis, keepdims, op, float_only=False, real=False):
    if type(x) is not Tensor and isinstance(x, CompositeTensor):  # a RaggedTensor
        return x._ek_reduce(op, axis, keepdims)
    x = tensor(x, op)
    if float_only and x._value.dtype.kind not in ("f" if float_only == "real" else "fc"):
        float_check(op, x, "input_tensor", real=float_only == "real")
    elif real and x._value.dtype.kind == "c":  # an order, which complex numbers lack
        raise complex_error(op, x, "input_tensor")
    kind = x._value.dtype.kind
    if kind == "O":
        raise InvalidArgumentError(
            None, op, f"{op}: input_tensor must be numeric, got a {x.dtype.name} tensor."
        )
    if kind == "b" and op not in ("reduce_all", "reduce_any"):
        # TensorFlow's Sum, Max, Prod, ... kernels take no bools (NumPy would count them).
        raise UnsupportedDTypeError(
            None, op, f"{op}: input_tensor must be numeric, got a bool tensor."
        )
    axis = normalize_axis(axis, x._value.ndim, op)
    return apply(prim, (x,), {"axis": axis, "keepdims": bool(keepdims)})


# Sums over the leading axes of a large float array (a bias's gradient over batch and pixels)
# run as a matrix-vector product: NumPy adds the rows one by one with a short inner loop, BLAS
# does the same sum in a few vectorized passes (benchmarks/training_step.py's CNN shows it).
_GEMV_MIN_SIZE = 1 << 16


def sum_forward(xp, x, axis, keepdims):
    """The forward of ``Sum`` (`reduce_sum`) on the array ``x`` of module ``xp``: integers
    accumulate in their own dtype, as TensorFlow does."""
    if x.dtype.kind in "iu":  # NumPy would accumulate int32 in int64
        return xp.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)
    if (
        xp is np
        and axis
        and x.size >= _GEMV_MIN_SIZE
        and axis == tuple(range(len(axis)))
        and len(axis) < x.ndim
        and x.dtype in (np.float32, np.float64)
        and x.flags.c_contiguous
    ):
        rows = math.prod(x.shape[: len(axis)])
        out = blas.matmul(np.ones(rows, x.dtype), x.reshape(rows, -1))
        return out.reshape(
            (1,) * len(axis) + x.shape[len(axis) :] if keepdims else x.shape[len(axis) :]
        )
    return x.sum(axis=axis, keepdims=keepdims)  # the method: NumPy's and CuPy's own


def _prod_fwd(xp, x, axis, keepdims):
    if x.dtype.kind in "iu":
        return xp.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype)
    return xp.prod(x, axis=axis, keepdims=keepdims)


def _count(x: Tensor, ans: Tensor) -> int:
    """How many input elements went into each output element."""
    return max(x._value.size // max(ans._value.size, 1), 1)


# -- sum, mean ----------------------------------------------------------------------------------

sum_primitive = Primitive("Sum", sum_forward)
defvjp(
    sum_primitive,
    lambda g, ans, x, axis, keepdims: _spread(g, x, axis, keepdims),
)


def _spread(g: Tensor, x: Tensor, axis, keepdims: bool) -> Tensor:
    """The cotangent ``g`` of a reduction of ``x`` over ``axis`` broadcast to ``x``'s shape as
    a view: every element of a sum's input receives the cotangent of its output element,
    without an array of ones to multiply by or a copy (NumPy's 0-stride view, recorded as
    BroadcastTo for higher orders). The reduced axes are put back first (`expand_reduced`),
    except for a reduction over every axis, whose scalar cotangent broadcasts as it is."""
    from .array_ops import broadcast_to_primitive

    if axis is not None:
        g = expand_reduced(g, x, axis, keepdims)
    if g._value.shape == x._value.shape:
        return g
    return apply(broadcast_to_primitive, (g,), {"shape": list(x._value.shape)})


@dispatchable
def reduce_sum(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """Sum over ``axis`` (follows `tf.math.reduce_sum`; ints keep their dtype).

    >>> ek.reduce_sum(ek.constant([[1.0, 2.0], [3.0, 4.0]]), axis=0).numpy()
    array([4., 6.], dtype=float32)
    """
    if _NUMPY_STATE.promotion is not None and name is not STRONG:  # the new type promotion
        return weak_unary(reduce_sum, input_tensor, axis, keepdims)
    return _reduce(sum_primitive, input_tensor, axis, keepdims, "reduce_sum")


def _mean_fwd(xp, x, axis, keepdims):
    if x.size == 0:  # a mean over nothing: NaN, 0 for integers (TF), without NumPy's warning
        out = xp.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)
        return out if x.dtype.kind in "iub" else out + xp.asarray(xp.nan, out.dtype)
    if xp is np and x.dtype in _SUM_THEN_DIVIDE:
        # `np.mean`'s own arithmetic for these dtypes (a sum, then a division by the count in
        # place), without its Python wrapper's checks: the same bits, a few microseconds less.
        out = np.add.reduce(x, axis=axis, keepdims=keepdims)
        count = x.size // max(out.size, 1)
        if type(out) is np.ndarray:
            return np.true_divide(out, count, out=out)
        return out.dtype.type(out / count)
    out = xp.mean(x, axis=axis, keepdims=keepdims)
    return out.astype(x.dtype, copy=False) if x.dtype.kind in "iu" else out


_SUM_THEN_DIVIDE = (np.dtype(np.float32), np.dtype(np.float64))


_mean = Primitive("Mean", _mean_fwd)


def _mean_vjp(g, ans, x, axis, keepdims):
    # TF's MeanGrad: the sum's cotangent divided by the number of inputs of each output,
    # a 0-d tensor of g's dtype (the division a tensor by a tensor, TF's RealDiv).
    count = x._value.size // max(ans._value.size, 1) if x._value.size else 1
    device = g._device
    divided = g / make(device.xp.asarray(count, g._value.dtype), device)
    return _spread(divided, x, axis, keepdims)


defvjp(_mean, _mean_vjp)


@dispatchable
def reduce_mean(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """Mean over ``axis`` (follows `tf.math.reduce_mean`; integer means truncate, as in TF).

    >>> ek.reduce_mean(ek.constant([1.0, 2.0])).numpy()
    np.float32(1.5)
    """
    if _NUMPY_STATE.promotion is not None and name is not STRONG:  # the new type promotion
        return weak_unary(reduce_mean, input_tensor, axis, keepdims)
    return _reduce(_mean, input_tensor, axis, keepdims, "reduce_mean")


# -- max, min, prod -----------------------------------------------------------------------------


# NumPy is used below for dtype limits only; forwards compute with ``xp``.


def _extremum_fwd(fn, empty):
    def fwd(xp, x, axis, keepdims):
        if x.size == 0:
            # TF gives the identity of the reduction (-inf for max of floats); NumPy raises.
            shape = xp.sum(x, axis=axis, keepdims=keepdims).shape
            return xp.full(shape, empty(x.dtype), dtype=x.dtype)
        return fn(xp)(x, axis=axis, keepdims=keepdims)

    return fwd


def _lowest(dt):
    return -np.inf if dt.kind == "f" else (False if dt.kind == "b" else np.iinfo(dt).min)


def _highest(dt):
    return np.inf if dt.kind == "f" else (True if dt.kind == "b" else np.iinfo(dt).max)


def _extremum_vjp(g, ans, x, axis, keepdims):
    # TF's rule: the cotangent is split evenly among the elements equal to the extremum.
    from .elementwise import cast, equal

    hit = cast(equal(x, expand_reduced(ans, x, axis, keepdims)), g.dtype)
    count = reduce_sum(hit, axis, keepdims=True)
    return expand_reduced(g, x, axis, keepdims) * hit / count


_max = Primitive("Max", _extremum_fwd(lambda xp: xp.max, _lowest))
defvjp(_max, _extremum_vjp)
_min = Primitive("Min", _extremum_fwd(lambda xp: xp.min, _highest))
defvjp(_min, _extremum_vjp)


@dispatchable
def reduce_max(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """Maximum over ``axis`` (follows `tf.math.reduce_max`).

    The gradient is split evenly among tied maxima, as in TensorFlow. An empty reduction
    gives the lowest value of the dtype (-inf for floats).

    >>> ek.reduce_max(ek.constant([[1.0, 5.0], [3.0, 4.0]]), axis=1).numpy()
    array([5., 4.], dtype=float32)
    """
    if _NUMPY_STATE.promotion is not None and name is not STRONG:  # the new type promotion
        return weak_unary(reduce_max, input_tensor, axis, keepdims)
    return _reduce(_max, input_tensor, axis, keepdims, "reduce_max", real=True)


@dispatchable
def reduce_min(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """Minimum over ``axis`` (follows `tf.math.reduce_min`; ties share the gradient evenly).

    >>> ek.reduce_min(ek.constant([3, 1, 2])).numpy()
    np.int32(1)
    """
    if _NUMPY_STATE.promotion is not None and name is not STRONG:  # the new type promotion
        return weak_unary(reduce_min, input_tensor, axis, keepdims)
    return _reduce(_min, input_tensor, axis, keepdims, "reduce_min", real=True)


def _prod_vjp(g, ans, x, axis, keepdims):
    # d prod / d x_i is the product of the others: TF's `_ProdGrad` takes it as the exclusive
    # running products from the left and from the right, with no division, so it is exact at
    # zeros, infinities and NaNs (prod / x_i is not). The reduced axes go first, flattened.
    from .array_ops import reshape, transpose
    from .math_ops import cumprod

    shape = x._value.shape
    reduced = list(range(len(shape))) if axis is None else list(axis)
    kept = [i for i in range(len(shape)) if i not in reduced]
    perm = reduced + kept
    flat = reshape(
        transpose(x, perm),
        [math.prod(shape[i] for i in reduced), math.prod(shape[i] for i in kept)],
    )
    others = cumprod(flat, 0, exclusive=True) * cumprod(flat, 0, exclusive=True, reverse=True)
    others = transpose(
        reshape(others, [shape[i] for i in perm]), [int(i) for i in np.argsort(perm)]
    )
    return expand_reduced(g, x, axis, keepdims) * conj_if_complex(others)


_prod = Primitive("Prod", _prod_fwd)
defvjp(_prod, _prod_vjp)


def reduce_prod(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """Product over ``axis`` (follows `tf.math.reduce_prod`; ints keep their dtype).

    The gradient is exact where inputs are zero (no division by zero).

    >>> ek.reduce_prod(ek.constant([[1.0, 2.0], [3.0, 4.0]]), axis=0).numpy()
    array([3., 8.], dtype=float32)
    """
    if _NUMPY_STATE.promotion is not None and name is not STRONG:  # the new type promotion
        return weak_unary(reduce_prod, input_tensor, axis, keepdims)
    return _reduce(_prod, input_tensor, axis, keepdims, "reduce_prod")


# -- moments, log-sum-exp -----------------------------------------------------------------------


def _moment_fwd(reduce):
    """``reduce`` (xp.var or xp.std) over ``axis``; NaN over nothing, without NumPy's warning."""

    def fwd(xp, x, axis, keepdims):
        if x.size == 0:  # real for complex x, as the moments of a non-empty x are
            out = xp.sum(x, axis=axis, keepdims=keepdims)
            return xp.full(out.shape, xp.nan, dtype=out.real.dtype)
        return reduce(xp)(x, axis=axis, keepdims=keepdims)

    return fwd


_variance = Primitive("Variance", _moment_fwd(lambda xp: xp.var))
defvjp(
    _variance,
    lambda g, ans, x, axis, keepdims: (
        expand_reduced(g, x, axis, keepdims)
        * (x - reduce_mean(x, axis, keepdims=True))
        * (2.0 / _count(x, ans))
    ),
)


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """Population variance over ``axis`` (follows `tf.math.reduce_variance`).

    Raises:
        TypeError: for non-floating input.

    >>> ek.reduce_variance(ek.constant([1.0, 2.0, 3.0, 4.0])).numpy()
    np.float32(1.25)
    """
    return _reduce(_variance, input_tensor, axis, keepdims, "reduce_variance", True)


def _std_vjp(g, ans, x, axis, keepdims):
    from .elementwise import where

    a = expand_reduced(ans, x, axis, keepdims)
    # Where the deviation is 0 every element equals the mean: give 0, not 0/0.
    safe = where(a > 0, a, 1)
    centered = x - reduce_mean(x, axis, keepdims=True)
    return expand_reduced(g, x, axis, keepdims) * centered / (safe * _count(x, ans))


_std = Primitive("Std", _moment_fwd(lambda xp: xp.std))
defvjp(_std, _std_vjp)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """Population standard deviation over ``axis`` (follows `tf.math.reduce_std`).

    The gradient is 0 (not NaN) where the deviation is 0.

    Raises:
        TypeError: for non-floating input.

    >>> ek.reduce_std(ek.constant([1.0, 3.0])).numpy()
    np.float32(1.0)
    """
    return _reduce(_std, input_tensor, axis, keepdims, "reduce_std", True)


def _logsumexp_fwd(xp, x, axis, keepdims):
    if x.size == 0:
        shape = xp.sum(x, axis=axis, keepdims=keepdims).shape
        return xp.full(shape, -xp.inf, dtype=x.dtype)
    m = xp.max(x, axis=axis, keepdims=True)
    finite = xp.isfinite(m)
    if finite.all():
        s = xp.sum(xp.exp(x - m), axis=axis, keepdims=keepdims)
        return (xp.log(s) + m.reshape(s.shape)).astype(x.dtype, copy=False)
    m = xp.where(finite, m, 0)  # all -inf (or inf) rows: no shift, as TF does
    s = xp.sum(xp.exp(x - m), axis=axis, keepdims=keepdims)
    with np.errstate(divide="ignore"):  # log(0) = -inf is the answer, not a mistake
        return (xp.log(s) + m.reshape(s.shape)).astype(x.dtype, copy=False)


_logsumexp = Primitive("ReduceLogSumExp", _logsumexp_fwd)
defvjp(
    _logsumexp,
    lambda g, ans, x, axis, keepdims: (
        expand_reduced(g, x, axis, keepdims) * _exp(x - expand_reduced(ans, x, axis, keepdims))
    ),
)


def _exp(x):
    from .elementwise import exp

    return exp(x)


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """``log(sum(exp(x)))`` over ``axis``, without overflow (follows `tf.math.reduce_logsumexp`).

    The maximum is subtracted before exponentiating, so large inputs stay finite.

    Raises:
        TypeError: for non-floating input.

    >>> ek.reduce_logsumexp(ek.constant([1000.0, 1000.0])).numpy()
    np.float32(1000.6932)
    """
    return _reduce(_logsumexp, input_tensor, axis, keepdims, "reduce_logsumexp", "real")


# -- logical reductions -------------------------------------------------------------------------

_all = Primitive("All", lambda xp, x, axis, keepdims: xp.all(x, axis=axis, keepdims=keepdims))
defvjp(_all, None)
_any = Primitive("Any", lambda xp, x, axis, keepdims: xp.any(x, axis=axis, keepdims=keepdims))
defvjp(_any, None)


def _logical_reduce(prim, x, axis, keepdims, op):
    if type(x) is not Tensor and isinstance(x, CompositeTensor):  # a RaggedTensor
        return x._ek_reduce(op, axis, keepdims)
    x = tensor(x, op)
    if x._value.dtype.kind != "b":
        raise UnsupportedDTypeError(f"{op}: input_tensor must be bool, got {x.dtype.name}.")
    return _reduce(prim, x, axis, keepdims, op)


def reduce_all(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """Logical AND over ``axis`` (follows `tf.math.reduce_all`; True for an empty reduction).

    Raises:
        TypeError: for non-bool input.

    >>> ek.reduce_all(ek.constant([True, False])).numpy()
    np.False_
    """
    return _logical_reduce(_all, input_tensor, axis, keepdims, "reduce_all")


def reduce_any(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """Logical OR over ``axis`` (follows `tf.math.reduce_any`; False for an empty reduction).

    Raises:
        TypeError: for non-bool input.

    >>> ek.reduce_any(ek.constant([[True, False], [False, False]]), axis=1).numpy()
    array([ True, False])
    """
    return _logical_reduce(_any, input_tensor, axis, keepdims, "reduce_any")


def count_nonzero(input, axis=None, keepdims=None, dtype=dtypes.int64, name=None) -> Tensor:
    """Number of non-zero elements over ``axis`` (follows `tf.math.count_nonzero`).

    Args:
        input: a tensor of any dtype (bool counts True, a string counts when not empty).
        dtype: the output dtype, default int64.

    >>> ek.count_nonzero(ek.constant([[0, 1], [2, 3]]), axis=1).numpy()
    array([1, 2])
    """
    x = tensor(input, "count_nonzero")
    params = {
        "axis": normalize_axis(axis, x.ndim, "count_nonzero"),
        "keepdims": bool(keepdims),
        "dtype": dtypes.numpy_dtype(dtype),
    }
    return apply(_count_nonzero, (x,), params)


def _count_nonzero_fwd(xp, x, axis, keepdims, dtype):
    nonzero = x != (b"" if x.dtype.kind == "O" else 0)  # strings: the non-empty ones, as TF
    return xp.sum(nonzero, axis=axis, keepdims=keepdims, dtype=dtype)


_count_nonzero = Primitive("CountNonzero", _count_nonzero_fwd)
defvjp(_count_nonzero, None)


# -- arg reductions, scans ----------------------------------------------------------------------


def single_axis(x: Tensor, axis, op: str) -> int:
    nd = x.ndim
    if nd == 0:
        raise InvalidArgumentError(
            None, op, f"{op}: input must have rank >= 1, got a scalar (shape ())."
        )
    if isinstance(axis, Tensor):
        axis = axis.numpy()
    if hasattr(axis, "__len__"):
        if len(axis) != 1:
            raise InvalidArgumentError(None, op, f"{op}: axis must be a single int, got {axis!r}.")
        (axis,) = axis
    axis = int(axis)
    if not -nd <= axis < nd:
        raise InvalidArgumentError(
            None, op, f"{op}: axis {axis} is out of range for a tensor of rank {nd}."
        )
    return axis % nd


def _arg(fn, nan_as):
    # TensorFlow's kernels compare with > / <, so a NaN never wins (an all-NaN slice gives
    # index 0); NumPy's argmax/argmin return the first NaN. NaN is read as -inf (argmax) or
    # +inf (argmin), which gives TensorFlow's indices.
    def fwd(xp, x, axis, output_type):
        if x.dtype.kind == "f":
            nan = xp.isnan(x)
            if nan.any():
                x = xp.where(nan, xp.asarray(nan_as, dtype=x.dtype), x)
        return fn(xp)(x, axis=axis).astype(output_type, copy=False)

    return fwd


_argmax = Primitive("ArgMax", _arg(lambda xp: xp.argmax, -float("inf")))
defvjp(_argmax, None)
_argmin = Primitive("ArgMin", _arg(lambda xp: xp.argmin, float("inf")))
defvjp(_argmin, None)


def _arg_reduce(prim, x, axis, output_type, op):
    x = tensor(x, op)
    if x._value.dtype.kind == "c":  # an order, which complex numbers lack
        raise complex_error(op, x, "input")
    if x._value.dtype.kind == "O":  # nor does TensorFlow order strings
        raise dtype_unsupported(op, x, "a number", "input")
    out = dtypes.numpy_dtype(output_type)
    allowed = ("int16", "uint16", "int32", "int64") if op == "argmax" else ("int32", "int64")
    if out.name not in allowed:  # TF's attr lists; its InvalidArgumentError, also a TypeError
        raise UnsupportedDTypeError(
            None, op, f"{op}: output_type must be one of {', '.join(allowed)}, got {out.name}."
        )
    axis = single_axis(x, 0 if axis is None else axis, op)
    if x._value.shape[axis] == 0:
        raise InvalidArgumentError(
            None, op, f"{op}: axis {axis} of shape {tuple(x.shape)} is empty."
        )
    return apply(prim, (x,), {"axis": axis, "output_type": out})


def argmax(input, axis=None, output_type=dtypes.int64, name=None) -> Tensor:
    """Index of the largest value along ``axis`` (follows `tf.math.argmax`).

    Args:
        input: a tensor of rank >= 1.
        axis: one int; None means 0, as in TensorFlow.
        output_type: int64 (default) or int32.

    Returns:
        The input's shape without ``axis``; the first index on ties.

    Raises:
        InvalidArgumentError: a scalar input, an axis out of range or of length 0.

    >>> ek.argmax(ek.constant([[1.0, 5.0], [4.0, 3.0]]), axis=1).numpy()
    array([1, 0])
    """
    return _arg_reduce(_argmax, input, axis, output_type, "argmax")


def argmin(input, axis=None, output_type=dtypes.int64, name=None) -> Tensor:
    """Index of the smallest value along ``axis`` (follows `tf.math.argmin`; None means 0).

    >>> ek.argmin(ek.constant([[1.0, 5.0], [3.0, 4.0]])).numpy()
    array([0, 1])
    """
    return _arg_reduce(_argmin, input, axis, output_type, "argmin")


def shift_exclusive(xp, out, axis: int, first):
    """A running reduction ``out`` made exclusive: shifted by one along ``axis``, ``first`` (the
    reduction's identity) in front: [a, a+b, a+b+c] -> [0, a, a+b]."""
    shifted = xp.full_like(out, first)
    head = [slice(None)] * out.ndim
    tail = [slice(None)] * out.ndim
    head[axis] = slice(1, None)
    tail[axis] = slice(None, -1)
    shifted[tuple(head)] = out[tuple(tail)]
    return shifted


def _cumsum_fwd(xp, x, axis, exclusive, reverse):
    if reverse:
        x = xp.flip(x, axis)
    out = xp.cumsum(x, axis=axis, dtype=x.dtype)
    if exclusive:
        out = shift_exclusive(xp, out, axis, 0)
    return xp.flip(out, axis) if reverse else out


_cumsum = Primitive("Cumsum", _cumsum_fwd)
# The transpose of a running sum is a running sum in the other direction.
defvjp(
    _cumsum,
    lambda g, ans, x, axis, exclusive, reverse: cumsum(g, axis, exclusive, not reverse),
)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None) -> Tensor:
    """Running sum along ``axis`` (follows `tf.math.cumsum`).

    Args:
        x: a tensor of rank >= 1; the output has its shape and dtype.
        axis: one int, negative allowed.
        exclusive: each element excludes itself (the first is 0).
        reverse: sum from the end.

    Raises:
        InvalidArgumentError: a scalar input or an axis out of range.

    >>> ek.cumsum(ek.constant([1, 2, 3]), exclusive=True, reverse=True).numpy()
    array([5, 3, 0], dtype=int32)
    """
    x = tensor(x, "cumsum")
    if x._value.dtype.kind in "Ob":
        raise dtype_unsupported("Cumsum", x, "a number")
    params = {
        "axis": single_axis(x, axis, "cumsum"),
        "exclusive": bool(exclusive),
        "reverse": bool(reverse),
    }
    return apply(_cumsum, (x,), params)
