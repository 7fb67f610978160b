"""More of `tf.math`: inverse trigonometric and hyperbolic functions, the error and gamma
functions, NaN/Inf tests, the "no NaN" divisions, running products, sorting and top-k, and unique
values (segment reductions, bincount and the confusion matrix: `segment_ops.py`).

Each op's forward sits beside its VJPs, which follow TensorFlow's registered gradients
(tensorflow/python/ops/math_grad.py) and are written with public ops, so gradients of any order
work. Ops that TensorFlow registers without a gradient (Rint, the truncating divisions) have
none here either; a float op without a VJP (``Polygamma``, the derivative of ``digamma``)
raises LookupError naming it when it is differentiated.

NumPy has no error or gamma functions: ``erf``, ``erfc`` and ``lgamma`` use SciPy when it is
installed (``cupyx.scipy.special`` on a GPU) and Python's `math` functions element by element
otherwise; ``digamma`` needs SciPy.
"""

from __future__ import annotations

import collections
import math

import numpy as np

from ..core import dtypes
from ..core.dispatch import Primitive, defvjp
from ..core.errors import InvalidArgumentError, UnsupportedDTypeError
from ..core.numpy_methods import STATE as _NUMPY_STATE
from ..core.tensor import Tensor
from ..core.type_promotion import keep_weak, promote_pair
from ._core import apply, binary, coerce_pair, float_check, tensor, unary
from .activations import erf_primitive
from .array_ops import axis_arg, index_tensor
from .complex_ops import conj_if_complex
from .creation import zeros_like
from .elementwise import (
    cast,
    equal,
    exp,
    log,
    not_equal,
    reciprocal,
    rsqrt,
    sqrt,
    square,
    where,
)
from .reduction import cumsum, reduce_sum, shift_exclusive

__all__ = [
    "acos",
    "acosh",
    "argsort",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "cosh",
    "cumprod",
    "digamma",
    "divide_no_nan",
    "erf",
    "erfc",
    "expm1",
    "in_top_k",
    "is_finite",
    "is_inf",
    "is_nan",
    "lgamma",
    "multiply_no_nan",
    "polyval",
    "reduce_euclidean_norm",
    "rint",
    "sinh",
    "sort",
    "top_k",
    "truncatediv",
    "truncatemod",
    "unique",
    "unique_with_counts",
    "xdivy",
    "xlog1py",
    "xlogy",
]


def _special(name: str, xp, fallback=None):
    """SciPy's (or CuPy's) ``scipy.special.<name>``, else ``fallback`` vectorized over the
    elements (Python's `math`), else ImportError naming the op."""
    try:
        if xp is np:
            import scipy.special as special
        else:
            import cupyx.scipy.special as special
        return getattr(special, name)
    except ImportError:
        if fallback is None:
            raise ImportError(
                f"{name}: needs SciPy (pip install scipy); NumPy has no {name}."
            ) from None

        def run(x):
            return np.vectorize(fallback, otypes=[x.dtype])(x)

        return run


def _same(fn):
    """A forward that keeps the input's dtype (SciPy returns float64 for float16)."""
    return lambda xp, x: fn(xp, x).astype(x.dtype, copy=False)


# -- NaN and Inf ---------------------------------------------------------------------------------

_is_nan = Primitive("IsNan", lambda xp, x: xp.isnan(x))
is_nan = unary(
    _is_nan, "Whether each element is NaN, a bool tensor (follows `tf.math.is_nan`).", "real"
)
_is_inf = Primitive("IsInf", lambda xp, x: xp.isinf(x))
is_inf = unary(
    _is_inf, "Whether each element is +-inf, a bool tensor (follows `tf.math.is_inf`).", "real"
)
_is_finite = Primitive("IsFinite", lambda xp, x: xp.isfinite(x))
is_finite = unary(
    _is_finite,
    "Whether each element is finite, a bool tensor (follows `tf.math.is_finite`).",
    "real",
)

# -- inverse trigonometric and hyperbolic functions ----------------------------------------------
# Their VJPs take the conjugate of the derivative for complex inputs (TensorFlow's gradients
# conjugate x, or the output, first), as every holomorphic op's does here.

_asin = Primitive("Asin", lambda xp, x: xp.arcsin(x))
asin = unary(_asin, "Inverse sine, in [-pi/2, pi/2] (follows `tf.math.asin`).", True)
defvjp(_asin, lambda g, ans, x: g * rsqrt(1 - square(conj_if_complex(x))))

_acos = Primitive("Acos", lambda xp, x: xp.arccos(x))
acos = unary(_acos, "Inverse cosine, in [0, pi] (follows `tf.math.acos`).", True)
defvjp(_acos, lambda g, ans, x: -g * rsqrt(1 - square(conj_if_complex(x))))

_atan = Primitive("Atan", lambda xp, x: xp.arctan(x))
atan = unary(_atan, "Inverse tangent (follows `tf.math.atan`).", True)
defvjp(_atan, lambda g, ans, x: g * reciprocal(1 + square(conj_if_complex(x))))

_sinh = Primitive("Sinh", lambda xp, x: xp.sinh(x))
sinh = unary(_sinh, "Hyperbolic sine (follows `tf.math.sinh`).", True)
_cosh = Primitive("Cosh", lambda xp, x: xp.cosh(x))
cosh = unary(_cosh, "Hyperbolic cosine (follows `tf.math.cosh`).", True)
defvjp(_sinh, lambda g, ans, x: g * cosh(conj_if_complex(x)))
defvjp(_cosh, lambda g, ans, x: g * sinh(conj_if_complex(x)))

_asinh = Primitive("Asinh", lambda xp, x: xp.arcsinh(x))
asinh = unary(_asinh, "Inverse hyperbolic sine (follows `tf.math.asinh`).", True)
defvjp(_asinh, lambda g, ans, x: g / cosh(conj_if_complex(ans)))

_acosh = Primitive("Acosh", lambda xp, x: xp.arccosh(x))
acosh = unary(_acosh, "Inverse hyperbolic cosine, x >= 1 (follows `tf.math.acosh`).", True)
defvjp(_acosh, lambda g, ans, x: g / sinh(conj_if_complex(ans)))

_atanh = Primitive("Atanh", lambda xp, x: xp.arctanh(x))
atanh = unary(_atanh, "Inverse hyperbolic tangent, |x| < 1 (follows `tf.math.atanh`).", True)
defvjp(_atanh, lambda g, ans, x: g * reciprocal(1 - square(conj_if_complex(x))))

_expm1 = Primitive("Expm1", lambda xp, x: xp.expm1(x))
expm1 = unary(_expm1, "exp(x) - 1, accurate near 0 (follows `tf.math.expm1`).", True)
defvjp(_expm1, lambda g, ans, x: g * exp(conj_if_complex(x)))

_rint = Primitive("Rint", lambda xp, x: xp.rint(x))
rint = unary(
    _rint, "The nearest integer, halves to even (follows `tf.math.rint`; no gradient).", "real"
)
defvjp(_rint, None)

# -- error and gamma functions -------------------------------------------------------------------

erf = unary(erf_primitive, "The error function (follows `tf.math.erf`).", "real")

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_erfc = Primitive("Erfc", _same(lambda xp, x: _special("erfc", xp, math.erfc)(x)))
erfc = unary(_erfc, "1 - erf(x), accurate for large x (follows `tf.math.erfc`).", "real")
defvjp(_erfc, lambda g, ans, x: -g * _TWO_OVER_SQRT_PI * exp(-square(x)))

# TensorFlow's (Eigen's) values where SciPy's differ: lgamma(-inf) = inf, digamma(+-0) = NaN.
_lgamma = Primitive(
    "Lgamma",
    _same(lambda xp, x: xp.where(x == -xp.inf, xp.inf, _special("gammaln", xp, math.lgamma)(x))),
)
lgamma = unary(_lgamma, "log |Gamma(x)| (follows `tf.math.lgamma`).", "real")

_digamma = Primitive(
    "Digamma", _same(lambda xp, x: xp.where(x == 0, xp.nan, _special("digamma", xp)(x)))
)
digamma = unary(
    _digamma, "The derivative of lgamma (follows `tf.math.digamma`; needs SciPy).", "real"
)
defvjp(_lgamma, lambda g, ans, x: g * digamma(x))

# The trigamma function, digamma's derivative; it has no VJP of its own here.
_trigamma = Primitive("Polygamma", _same(lambda xp, x: _special("polygamma", xp)(1, x)))
defvjp(_digamma, lambda g, ans, x: g * apply(_trigamma, (x,)))

# -- binary --------------------------------------------------------------------------------------

_atan2 = Primitive("Atan2", lambda xp, y, x: xp.arctan2(y, x))
_atan2_op = binary(_atan2)


def atan2(y, x, name=None) -> Tensor:
    """The angle of the point (x, y), ``atan2(y, x)``, in [-pi, pi] (follows
    `tf.math.atan2`).

    Raises:
        UnsupportedDTypeError: integer or complex inputs (TensorFlow's kernel is real floating
            only: an InvalidArgumentError, also a TypeError).
        TypeError: dtypes that differ.

    >>> ek.math.atan2(ek.constant([1.0, -1.0]), ek.constant([0.0, 0.0])).numpy().round(4)
    array([ 1.5708, -1.5708], dtype=float32)
    """
    return _float_binary("Atan2", _atan2_op, y, x, real=True)


defvjp(
    _atan2,
    lambda g, ans, y, x: g * x / (square(x) + square(y)),
    lambda g, ans, y, x: -g * y / (square(x) + square(y)),
)


def _xlogy_fwd(xp, x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.where(x == 0, xp.zeros((), x.dtype), x * xp.log(y)).astype(x.dtype, copy=False)


def _xlog1py_fwd(xp, x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.where(x == 0, xp.zeros((), x.dtype), x * xp.log1p(y)).astype(x.dtype, copy=False)


def _xdivy_fwd(xp, x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.where(x == 0, xp.zeros((), x.dtype), x / y).astype(x.dtype, copy=False)


def _div_no_nan_fwd(xp, x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.where(y == 0, xp.zeros((), x.dtype), x / y).astype(x.dtype, copy=False)


def _mul_no_nan_fwd(xp, x, y):
    with np.errstate(invalid="ignore"):
        return xp.where(y == 0, xp.zeros((), x.dtype), x * y).astype(x.dtype, copy=False)


_xlogy = Primitive("Xlogy", _xlogy_fwd)
_xdivy = Primitive("Xdivy", _xdivy_fwd)
_xlog1py = Primitive("Xlog1py", _xlog1py_fwd)
_div_no_nan = Primitive("DivNoNan", _div_no_nan_fwd)
_mul_no_nan = Primitive("MulNoNan", _mul_no_nan_fwd)
_xlogy_op = binary(_xlogy)
_xdivy_op = binary(_xdivy)
_xlog1py_op = binary(_xlog1py)
_div_no_nan_op = binary(_div_no_nan)
_mul_no_nan_op = binary(_mul_no_nan)


def _nonzero(x: Tensor) -> Tensor:
    return cast(not_equal(x, 0), x.dtype)


defvjp(
    _xlogy,
    lambda g, ans, x, y: g * where(equal(x, 0), zeros_like(x), log(y)),
    lambda g, ans, x, y: g * xdivy(x, y),
)
defvjp(
    _xdivy,
    lambda g, ans, x, y: g * xdivy(_nonzero(x), y),  # TF's: 1 / y where x != 0 (inf at y = 0)
    lambda g, ans, x, y: g * xdivy(-x, square(y)),
)
defvjp(
    _xlog1py,
    lambda g, ans, x, y: g * xlog1py(_nonzero(x), y),
    lambda g, ans, x, y: g * xdivy(x, 1 + y),
)
# TensorFlow's DivNoNan gradient conjugates both inputs (a complex division's derivatives are
# the conjugates), as Div's does.
defvjp(
    _div_no_nan,
    lambda g, ans, x, y: divide_no_nan(g, conj_if_complex(y)),
    lambda g, ans, x, y: (
        g
        * divide_no_nan(divide_no_nan(-conj_if_complex(x), conj_if_complex(y)), conj_if_complex(y))
    ),
)
defvjp(
    _mul_no_nan,
    lambda g, ans, x, y: multiply_no_nan(g, y),
    lambda g, ans, x, y: multiply_no_nan(x, g),
)


def _float_binary(op, prim_op, x, y, real: bool = False):
    """``prim_op(x, y)`` for floating inputs (real ones only with ``real``); raises
    `UnsupportedDTypeError` for the others, as TensorFlow's kernels do. Under the new type
    promotion the inputs promote along its lattice first, and a weak result stays weak."""
    weak = False
    if _NUMPY_STATE.promotion is not None:
        x, y, weak = promote_pair(op, x, y)
    x, y = coerce_pair(x, y, op)
    if x._value.dtype.kind not in ("f" if real else "fc"):
        float_check(op, x, real=real)
    out = prim_op(x, y)
    return keep_weak(out, True) if weak else out


def xlogy(x, y, name=None) -> Tensor:
    """``x * log(y)``, and 0 where ``x == 0`` even if ``y`` is 0 (follows `tf.math.xlogy`).

    Raises:
        TypeError: integer inputs or dtypes that differ.

    >>> ek.math.xlogy([0.0, 2.0], [0.0, np.e]).numpy()
    array([0., 2.], dtype=float32)
    """
    return _float_binary("xlogy", _xlogy_op, x, y)


def xlog1py(x, y, name=None) -> Tensor:
    """``x * log1p(y)``, and 0 where ``x == 0`` even if ``y`` is -1 (follows
    `tf.math.xlog1py`); gradients as TensorFlow's: ``xlog1py(x != 0, y)`` for x and
    ``xdivy(x, 1 + y)`` for y.

    Raises:
        TypeError: integer inputs or dtypes that differ.

    >>> ek.math.xlog1py([0.0, 2.0], [-1.0, np.e - 1]).numpy()
    array([0., 2.], dtype=float32)
    """
    return _float_binary("xlog1py", _xlog1py_op, x, y)


def xdivy(x, y, name=None) -> Tensor:
    """``x / y``, and 0 where ``x == 0`` even if ``y`` is 0 (follows `tf.math.xdivy`).

    >>> ek.math.xdivy([0.0, 3.0], [0.0, 2.0]).numpy()
    array([0. , 1.5], dtype=float32)
    """
    return _float_binary("xdivy", _xdivy_op, x, y)


def divide_no_nan(x, y, name=None) -> Tensor:
    """``x / y``, and 0 where ``y == 0`` (follows `tf.math.divide_no_nan`). Integer inputs
    are cast first, as `truediv` casts them (int32 and int64 give float64, smaller integers
    float32), as TensorFlow does.

    Raises:
        TypeError: dtypes that differ, or a dtype with no division (bool, string).

    >>> ek.math.divide_no_nan([3.0, 1.0], [0.0, 2.0]).numpy()
    array([0. , 0.5], dtype=float32)
    >>> ek.math.divide_no_nan(ek.constant([1, 2]), ek.constant([0, 2]))
    <Tensor: shape=(2,), dtype=float64, numpy=array([0., 1.])>
    """
    weak = False
    if _NUMPY_STATE.promotion is not None:  # the new type promotion: the lattice's dtype
        x, y, weak = promote_pair("divide_no_nan", x, y)
    x, y = coerce_pair(x, y, "divide_no_nan")
    target = dtypes.TRUEDIV_RESULT.get(x._value.dtype)
    if target is not None and y._value.dtype == x._value.dtype:
        x, y = cast(x, target), cast(y, target)
    elif x._value.dtype.kind not in "fc":
        float_check("divide_no_nan", x)
    out = _div_no_nan_op(x, y)
    return keep_weak(out, True) if weak else out


def multiply_no_nan(x, y, name=None) -> Tensor:
    """``x * y``, and 0 where ``y == 0`` even if ``x`` is NaN or infinite (follows
    `tf.math.multiply_no_nan`).

    >>> ek.math.multiply_no_nan([np.inf, 2.0], [0.0, 3.0]).numpy()
    array([0., 6.], dtype=float32)
    """
    return _float_binary("multiply_no_nan", _mul_no_nan_op, x, y)


def _truncate_check(xp, y, op):
    if y.dtype.kind in "iu" and bool((y == 0).any()):
        raise InvalidArgumentError(None, op, f"{op}: Integer division by zero.")


def _truncatediv_fwd(xp, x, y):
    _truncate_check(xp, y, "TruncateDiv")
    if x.dtype.kind in "iu":  # C's division: the quotient rounded toward zero
        q = xp.abs(x) // xp.abs(y)
        return xp.where((x < 0) != (y < 0), -q, q).astype(x.dtype, copy=False)
    return xp.trunc(x / y)


def _truncatemod_fwd(xp, x, y):
    _truncate_check(xp, y, "TruncateMod")
    return xp.fmod(x, y)


_truncatediv = Primitive("TruncateDiv", _truncatediv_fwd)
truncatediv = binary(
    _truncatediv, "x / y rounded toward zero, as C divides (follows `tf.math.truncatediv`)."
)
_truncatemod = Primitive("TruncateMod", _truncatemod_fwd)
truncatemod = binary(
    _truncatemod, "The remainder of truncatediv, the sign of x (follows `tf.math.truncatemod`)."
)


# -- running product -----------------------------------------------------------------------------


def _cumprod_fwd(xp, x, axis, exclusive, reverse):
    if reverse:
        x = xp.flip(x, axis)
    out = xp.cumprod(x, axis=axis, dtype=x.dtype)
    if exclusive:
        out = shift_exclusive(xp, out, axis, 1)
    return xp.flip(out, axis) if reverse else out


_cumprod = Primitive("Cumprod", _cumprod_fwd)
# TensorFlow's gradient: the running sum of g * out in the other direction, over x (exact where
# x has no zeros, as TensorFlow's is; 0 where x is 0, TF's div_no_nan).
defvjp(
    _cumprod,
    lambda g, ans, x, axis, exclusive, reverse: divide_no_nan(
        cumsum(g * ans, axis, exclusive, not reverse), x
    ),
)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None) -> Tensor:
    """Running product along ``axis`` (follows `tf.math.cumprod`).

    Args:
        x: a tensor of rank >= 1; the output has its shape and dtype.
        axis: one int, negative allowed.
        exclusive: each element excludes itself (the first is 1).
        reverse: multiply from the end.

    Raises:
        InvalidArgumentError: a scalar input or an axis out of range.
        UnsupportedDTypeError: a bool or string input (TensorFlow's kernel takes numbers).

    >>> ek.math.cumprod([1.0, 2.0, 3.0], exclusive=True).numpy()
    array([1., 1., 2.], dtype=float32)
    """
    x = tensor(x, "cumprod")
    if x._value.dtype.kind in "Ob":  # TensorFlow's Cumprod takes numbers only
        raise UnsupportedDTypeError(
            None, "Cumprod", f"cumprod: x must be numeric, got a {x.dtype.name} tensor."
        )
    if x.ndim == 0:
        raise InvalidArgumentError(
            None, "Cumprod", "cumprod: input must have rank >= 1, got a scalar."
        )
    params = {
        "axis": axis_arg(axis, x.ndim, "cumprod"),
        "exclusive": bool(exclusive),
        "reverse": bool(reverse),
    }
    return apply(_cumprod, (x,), params)


# -- sorting and top-k ---------------------------------------------------------------------------


def _grid(xp, idx, axis: int) -> tuple:
    """Index arrays that pick ``idx`` along ``axis`` and every position along the others."""
    parts = []
    for d, n in enumerate(idx.shape):
        if d == axis:
            parts.append(idx)
        else:
            shape = [1] * idx.ndim
            shape[d] = n
            parts.append(xp.arange(n).reshape(shape))
    return tuple(parts)


def _take_along_fwd(xp, x, idx, axis):
    return x[_grid(xp, idx, axis)]


def _scatter_along_fwd(xp, g, idx, axis, shape):
    out = xp.zeros(shape, g.dtype)
    out[_grid(xp, idx, axis)] = g  # the indices along `axis` are distinct (a sort, top-k)
    return out


_take_along = Primitive("GatherAlongAxis", _take_along_fwd)
_scatter_along = Primitive("ScatterAlongAxis", _scatter_along_fwd)
defvjp(
    _take_along,
    lambda g, ans, x, idx, axis: apply(
        _scatter_along, (g, idx), {"axis": axis, "shape": tuple(x._value.shape)}
    ),
    None,
)
defvjp(
    _scatter_along,
    lambda h, ans, g, idx, axis, shape: apply(_take_along, (h, idx), {"axis": axis}),
    None,
)


def _sort_indices(xp, x, axis: int, descending: bool):
    """Stable sort order along ``axis``; descending keeps equal elements in index order too
    (TensorFlow's top_k: "the lower-index element appears first")."""
    if not descending:
        return xp.argsort(x, axis=axis, kind="stable")
    flipped = xp.flip(x, axis)
    order = xp.flip(xp.argsort(flipped, axis=axis, kind="stable"), axis)
    return x.shape[axis] - 1 - order


def _sort_order_fwd(xp, x, axis: int, descending: bool, k, index_dtype: str):
    idx = _sort_indices(xp, x, axis, descending)
    return (idx if k is None else idx[..., :k]).astype(index_dtype)


# The sort order along an axis (the first k of it for top_k): argsort's result, and what sort
# and top_k gather by. Computed by dispatch like every op, so graph functions replay it; no
# gradient (integer indices).
_sort_order = Primitive("ArgSort", _sort_order_fwd)


def _direction(direction, op: str) -> bool:
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(
            f"{op}: direction must be 'ASCENDING' or 'DESCENDING'. Received: {direction!r}"
        )
    return direction == "DESCENDING"


def _sortable(values, axis, op):
    x = tensor(values, op)
    if x.ndim == 0:
        raise InvalidArgumentError(None, op, f"{op}: values must have rank >= 1, got a scalar.")
    if x._value.dtype.kind not in "biuf":
        raise TypeError(f"{op}: values must be numeric, got {x.dtype.name}.")
    return x, axis_arg(axis, x.ndim, op)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None) -> Tensor:
    """The int32 indices that sort ``values`` along ``axis`` (follows `tf.argsort`; the sort
    is always stable: equal elements keep their order, in either direction).

    Raises:
        ValueError: an unknown ``direction``. InvalidArgumentError: a scalar or an axis out
        of range. TypeError: non-numeric values.

    >>> ek.argsort([3.0, 1.0, 2.0, 1.0]).numpy()
    array([1, 3, 2, 0], dtype=int32)
    """
    desc = _direction(direction, "argsort")
    x, ax = _sortable(values, axis, "argsort")
    params = {"axis": ax, "descending": desc, "k": None, "index_dtype": "int32"}
    return apply(_sort_order, (x,), params)


def on_device_of(array, like: Tensor) -> Tensor:
    """A Tensor of ``array`` on the device of the tensor ``like``."""
    from ..core.tensor import make

    return make(array, like._device)


def sort(values, axis=-1, direction="ASCENDING", name=None) -> Tensor:
    """``values`` sorted along ``axis`` (follows `tf.sort`); the gradient goes back to each
    element's position.

    Raises:
        ValueError: an unknown ``direction``. InvalidArgumentError: a scalar or an axis out
        of range. TypeError: non-numeric values.

    >>> ek.sort([3.0, 1.0, 2.0], direction="DESCENDING").numpy()
    array([3., 2., 1.], dtype=float32)
    """
    desc = _direction(direction, "sort")
    x, ax = _sortable(values, axis, "sort")
    params = {"axis": ax, "descending": desc, "k": None, "index_dtype": "int64"}
    return apply(_take_along, (x, apply(_sort_order, (x,), params)), {"axis": ax})


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def top_k(input, k=1, sorted=True, index_type=dtypes.int32, name=None) -> TopKV2:
    """The ``k`` largest entries along the last axis and their indices (follows
    `tf.math.top_k`): ``(values, indices)``, shapes ``[..., k]``; equal values keep index
    order. The gradient goes to the positions picked.

    Args:
        input: rank >= 1, numeric. k: 0 <= k <= the last dimension. sorted: True gives
            descending values; False gives them in the same order (TF does not promise one).
        index_type: int32 (default), int16 or int64.

    Raises:
        InvalidArgumentError: a scalar input, k out of range or another index_type.
        TypeError: a non-numeric input.

    >>> v, i = ek.math.top_k([1.0, 4.0, 2.0, 4.0], k=2)
    >>> v.numpy(), i.numpy()
    (array([4., 4.], dtype=float32), array([1, 3], dtype=int32))
    """
    x, _ = _sortable(input, -1, "top_k")
    n = x._value.shape[-1]
    k = int(k)
    if not 0 <= k <= n:
        raise InvalidArgumentError(
            None, "TopKV2", f"top_k: k must be in [0, {n}] (the last dimension), got k={k}."
        )
    it = dtypes.as_dtype(index_type)
    if it not in (dtypes.int16, dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(
            None,
            "TopKV2",
            f"Value for attr 'index_type' of {it.name} is not in the list of allowed values: "
            "int16, int32, int64",
        )
    params = {"axis": x.ndim - 1, "descending": True, "k": k, "index_dtype": it.name}
    indices = apply(_sort_order, (x,), params)
    values = apply(_take_along, (x, indices), {"axis": x.ndim - 1})
    return TopKV2(values, indices)


def in_top_k(targets, predictions, k, name=None) -> Tensor:
    """Whether ``predictions[i, targets[i]]`` is among the ``k`` largest of row ``i`` (follows
    `tf.math.in_top_k`): ties at the boundary count as in, and a non-finite prediction or a
    target outside ``[0, classes)`` is never in (TensorFlow's kernel answers False there).
    Returns a bool tensor of shape ``[batch]``.

    Raises:
        InvalidArgumentError: predictions not of rank 2 or targets not of shape ``[batch]``.

    >>> ek.math.in_top_k([2, 0], [[0.1, 0.3, 0.3], [0.1, 0.5, 0.4]], k=2).numpy()
    array([ True, False])
    """
    p = tensor(predictions, "in_top_k")
    t = index_tensor(targets, p, "in_top_k", "targets")
    if p.ndim != 2 or t.ndim != 1 or t._value.shape[0] != p._value.shape[0]:
        raise InvalidArgumentError(
            None,
            "InTopKV2",
            f"in_top_k: predictions must have shape [batch, classes] and targets [batch], got "
            f"{tuple(p._value.shape)} and {tuple(t._value.shape)}.",
        )
    return apply(_in_top_k, (p, t), {"k": int(k)})


def _in_top_k_fwd(xp, predictions, targets, k: int):
    classes = predictions.shape[1]
    valid = (targets >= 0) & (targets < classes)
    if classes == 0:
        return valid
    target = predictions[xp.arange(predictions.shape[0]), xp.where(valid, targets, 0)]
    above = (predictions > target[:, None]).sum(axis=1)
    return (above < k) & xp.isfinite(target) & valid


_in_top_k = Primitive("InTopKV2", _in_top_k_fwd)  # bool output: no gradient


# -- unique --------------------------------------------------------------------------------------

UniqueOutput = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCountsOutput = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _unique_fwd(xp, x, index_dtype: str):
    """``(y, idx, count)``: the distinct values in order of first appearance (TensorFlow's
    order), each element's index in them, and their counts."""
    values = np.asarray(x.get() if hasattr(x, "get") else x)
    _, first, inverse, counts = np.unique(  # each NaN is distinct (NaN != NaN), as in TF
        values, return_index=True, return_inverse=True, return_counts=True, equal_nan=False
    )
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    idx, counts = rank[inverse].astype(index_dtype), counts[order].astype(index_dtype)
    return xp.asarray(values[first[order]]), xp.asarray(idx), xp.asarray(counts)


# No gradient, as TensorFlow's (its tape raises LookupError for a float input's Unique).
_unique_op = Primitive(
    "Unique", lambda xp, x, index_dtype: _unique_fwd(xp, x, index_dtype)[:2], n_out=0
)
_unique_with_counts = Primitive("UniqueWithCounts", _unique_fwd, n_out=0)


def _unique(x, out_idx, op, prim):
    x = tensor(x, op)
    if x.ndim != 1:
        raise InvalidArgumentError(
            None, op, f"{op}: x must be a vector, got shape {tuple(x._value.shape)}."
        )
    it = dtypes.as_dtype(out_idx)
    if it not in (dtypes.int32, dtypes.int64):
        # TensorFlow: "Value for attr 'out_idx' of float is not in the list of allowed values"
        raise InvalidArgumentError(
            None, op, f"{op}: out_idx must be int32 or int64, got {it.name}."
        )
    return apply(prim, (x,), {"index_dtype": it.name})


def unique(x, out_idx=dtypes.int32, name=None) -> UniqueOutput:
    """The distinct values of a vector in order of first appearance, and for each element the
    index of its value in them (follows `tf.unique`): ``(y, idx)``; no gradient.

    >>> y, idx = ek.unique([1, 1, 2, 4, 4, 4, 7, 8, 8])
    >>> y.numpy(), idx.numpy()
    (array([1, 2, 4, 7, 8], dtype=int32), array([0, 0, 1, 2, 2, 2, 3, 4, 4], dtype=int32))
    """
    return UniqueOutput(*_unique(x, out_idx, "unique", _unique_op))


def unique_with_counts(x, out_idx=dtypes.int32, name=None) -> UniqueWithCountsOutput:
    """`unique` with how often each value occurs (follows `tf.unique_with_counts`):
    ``(y, idx, count)``.

    >>> ek.unique_with_counts([5, 5, 3]).count.numpy()
    array([2, 1], dtype=int32)
    """
    return UniqueWithCountsOutput(*_unique(x, out_idx, "unique_with_counts", _unique_with_counts))


# -- reductions built from ops -------------------------------------------------------------------


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """``sqrt(sum(x ** 2))`` over ``axis`` (follows `tf.math.reduce_euclidean_norm`); integer
    inputs give the integer part, as TensorFlow's do.

    >>> ek.math.reduce_euclidean_norm([[3.0, 4.0], [5.0, 12.0]], axis=1).numpy()
    array([ 5., 13.], dtype=float32)
    """
    x = tensor(input_tensor, "reduce_euclidean_norm")
    if x._value.dtype.kind == "c":  # sqrt(sum(|x| ** 2)), of x's complex dtype, as TensorFlow's
        return sqrt(reduce_sum(x * conj_if_complex(x), axis, keepdims))
    if x._value.dtype.kind in "iu":
        f = cast(x, dtypes.float64)
        return cast(sqrt(reduce_sum(square(f), axis, keepdims)), x.dtype)
    return sqrt(reduce_sum(square(x), axis, keepdims))


def polyval(coeffs, x, name=None) -> Tensor:
    """``coeffs[0] * x ** (n - 1) + ... + coeffs[n - 1]`` by Horner's rule (follows
    `tf.math.polyval`); differentiable in every coefficient and in ``x``.

    Args:
        coeffs: a list of tensors (or numbers) broadcastable with ``x``.

    Raises:
        ValueError: ``coeffs`` not a list or tuple.

    >>> ek.math.polyval([2.0, 0.0, 1.0], ek.constant(3.0)).numpy()
    np.float32(19.0)
    """
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError(f"polyval: coeffs must be a list of tensors, got {type(coeffs).__name__}.")
    x = tensor(x, "polyval")
    if not coeffs:
        return zeros_like(x)
    p = tensor(coeffs[0], "polyval", x._value.dtype)
    for c in coeffs[1:]:
        p = p * x + c
    return p
