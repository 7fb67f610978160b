"""`ek.experimental.numpy`'s elementwise math and reductions (follows TF NumPy's
``np_math_ops``): each promotes its operands with NumPy's rules and calls eagerkernel's op,
so it is differentiable wherever that op is."""

from __future__ import annotations

import math as _pymath

import numpy as np

from .. import ops as _ops
from ..core.tensor import Tensor, constant
from ..ops import bitwise as _bitwise
from ..ops import complex_ops as _complex
from ..ops import math_ops as _math
from ..ops.elementwise import cast
from .utils import (
    as_np_dtype,
    asarray_value,
    default_float,
    float_operand,
    no_argument,
    normalize_axis,
    promote,
)
from .utils import const as _const

# -- elementwise ------------------------------------------------------------------------------


def _unary_float(name: str, fn, numpy_name: str | None = None):
    """A NumPy float function of one array: integers become the default float first."""

    def op(x) -> Tensor:
        return fn(float_operand(x, name))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"Elementwise ``numpy.{numpy_name or name}`` (follows "
        f"`tf.experimental.numpy.{name}`): integer and bool inputs become the default float "
        "(float64; float32 under ``prefer_float32``); differentiable."
    )
    return op


def _unary_same(name: str, fn, doc: str):
    def op(x) -> Tensor:
        return fn(asarray_value(x, op=name))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"{doc} (follows `tf.experimental.numpy.{name}`)."
    return op


def _binary(name: str, fn, doc: str, to_float: bool = False, bools=None):
    """A NumPy function of two broadcast arrays, on operands promoted to their result type
    (to the default float first when ``to_float`` and the result type is not inexact).

    Two bool operands (TensorFlow's math kernels take none) run ``bools(a, b)``, as TF NumPy
    does: a logical op (``add`` is OR, ``multiply`` AND), or ``"int8"`` to compute on int8
    casts as NumPy does; without ``bools`` the op's own error stands (NumPy's ``subtract``
    refuses bools too)."""

    def op(x1, x2) -> Tensor:
        a, b = promote(x1, x2, op=name)
        if to_float and a._value.dtype.kind not in "fc":
            a, b = cast(a, default_float()), cast(b, default_float())
        elif bools is not None and a._value.dtype == np.bool_:
            if bools == "int8":
                return fn(cast(a, "int8"), cast(b, "int8"))
            return bools(a, b)
        return fn(a, b)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"{doc} (follows `tf.experimental.numpy.{name}`): the operands broadcast and are "
        "promoted to NumPy's result type."
    )
    return op


def _log_base(base: float):
    scale = 1.0 / _pymath.log(base)
    return lambda x: _ops.log(x) * _const(scale, x.dtype)


def _cbrt(x: Tensor) -> Tensor:
    return _ops.sign(x) * _ops.pow(_ops.abs(x), _const(1.0 / 3.0, x.dtype))


def _exp2(x: Tensor) -> Tensor:
    return _ops.exp(x * _const(_pymath.log(2.0), x.dtype))


def _sinc(x: Tensor) -> Tensor:
    y = x * _const(np.pi, x.dtype)
    zero = _ops.equal(y, _const(0.0, x.dtype))
    safe = _ops.where(zero, _ops.ones_like(y), y)
    return _ops.where(zero, _ops.ones_like(y), _ops.sin(safe) / safe)


abs = _unary_same("abs", _ops.abs, "Elementwise absolute value")
absolute = _unary_same("absolute", _ops.abs, "Elementwise absolute value")
fabs = _unary_float("fabs", _ops.abs)
negative = _unary_same("negative", _ops.negative, "Elementwise ``-x``")
positive = _unary_same("positive", lambda x: x, "Elementwise ``+x`` (the input)")
sign = _unary_same("sign", _ops.sign, "Elementwise sign: -1, 0 or 1")
square = _unary_same("square", _ops.square, "Elementwise ``x * x``")
sqrt = _unary_float("sqrt", _ops.sqrt)
cbrt = _unary_float("cbrt", _cbrt)
exp = _unary_float("exp", _ops.exp)
exp2 = _unary_float("exp2", _exp2)
expm1 = _unary_float("expm1", _math.expm1)
log = _unary_float("log", _ops.log)
log2 = _unary_float("log2", _log_base(2.0))
log10 = _unary_float("log10", _log_base(10.0))
log1p = _unary_float("log1p", _ops.log1p)
sin = _unary_float("sin", _ops.sin)
cos = _unary_float("cos", _ops.cos)
tan = _unary_float("tan", _ops.tan)
arcsin = _unary_float("arcsin", _math.asin)
arccos = _unary_float("arccos", _math.acos)
arctan = _unary_float("arctan", _math.atan)
sinh = _unary_float("sinh", _math.sinh)
cosh = _unary_float("cosh", _math.cosh)
tanh = _unary_float("tanh", _ops.tanh)
arcsinh = _unary_float("arcsinh", _math.asinh)
arccosh = _unary_float("arccosh", _math.acosh)
arctanh = _unary_float("arctanh", _math.atanh)
deg2rad = _unary_float("deg2rad", lambda x: x * _const(np.pi / 180.0, x.dtype))
rad2deg = _unary_float("rad2deg", lambda x: x * _const(180.0 / np.pi, x.dtype))
sinc = _unary_float("sinc", _sinc)
reciprocal = _unary_float("reciprocal", _ops.reciprocal)


floor = _unary_float("floor", _ops.floor)
ceil = _unary_float("ceil", _ops.ceil)
fix = _unary_float("fix", lambda x: _ops.sign(x) * _ops.floor(_ops.abs(x)))
rint = _unary_float("rint", _ops.round)
signbit = _unary_same(
    "signbit",
    lambda x: (
        _ops.less(x, _const(0, x.dtype)) if x._value.dtype.kind != "b" else _ops.zeros_like(x)
    ),
    "Elementwise ``x < 0`` as bools (NumPy's signbit; -0.0 gives False)",
)
isfinite = _unary_same(
    "isfinite",
    lambda x: _math.is_finite(x) if x._value.dtype.kind in "fc" else _ops.ones_like(x, "bool"),
    "Elementwise finiteness (bool)",
)
isinf = _unary_same(
    "isinf",
    lambda x: _math.is_inf(x) if x._value.dtype.kind in "fc" else _ops.zeros_like(x, "bool"),
    "Elementwise ``x`` is +-inf (bool)",
)
isnan = _unary_same(
    "isnan",
    lambda x: _math.is_nan(x) if x._value.dtype.kind in "fc" else _ops.zeros_like(x, "bool"),
    "Elementwise ``x`` is NaN (bool)",
)
isposinf = _unary_same(
    "isposinf",
    lambda x: _ops.logical_and(isinf(x), _ops.greater(x, _const(0, x.dtype))),
    "Elementwise ``x == +inf`` (bool)",
)
isneginf = _unary_same(
    "isneginf",
    lambda x: _ops.logical_and(isinf(x), _ops.less(x, _const(0, x.dtype))),
    "Elementwise ``x == -inf`` (bool)",
)
logical_not = _unary_same(
    "logical_not", lambda x: _ops.logical_not(cast(x, "bool")), "Elementwise NOT of truth values"
)
bitwise_not = _unary_same(
    "bitwise_not",
    lambda x: _ops.logical_not(x) if x._value.dtype.kind == "b" else _bitwise.invert(x),
    "Elementwise bitwise NOT (logical NOT for bools)",
)


def _floor_divide(a: Tensor, b: Tensor) -> Tensor:
    return _ops.floordiv(a, b)


_OR, _AND = _ops.logical_or, _ops.logical_and
add = _binary("add", _ops.add, "Elementwise ``x1 + x2``", bools=_OR)
subtract = _binary("subtract", _ops.subtract, "Elementwise ``x1 - x2``")
multiply = _binary("multiply", _ops.multiply, "Elementwise ``x1 * x2``", bools=_AND)


def _bool_truediv(a: Tensor, b: Tensor) -> Tensor:
    # TF NumPy divides bools as float64 (its `result_type(float)`), integers by `truediv`'s
    # table (int8, int16 and uint8 give float32, int32 and int64 float64, even under
    # prefer_float32).
    return _ops.truediv(cast(a, np.float64), cast(b, np.float64))


true_divide = _binary("true_divide", _ops.truediv, "Elementwise ``x1 / x2``", bools=_bool_truediv)
divide = _binary("divide", _ops.truediv, "Elementwise ``x1 / x2``", bools=_bool_truediv)
floor_divide = _binary("floor_divide", _floor_divide, "Elementwise ``x1 // x2``", bools="int8")
mod = _binary("mod", _ops.mod, "Elementwise ``x1 % x2`` (the sign of ``x2``)", bools="int8")
remainder = _binary(
    "remainder", _ops.mod, "Elementwise ``x1 % x2`` (the sign of ``x2``)", bools="int8"
)
power = _binary("power", _ops.pow, "Elementwise ``x1 ** x2``", bools="int8")
maximum = _binary("maximum", _ops.maximum, "Elementwise maximum", bools=_OR)
minimum = _binary("minimum", _ops.minimum, "Elementwise minimum", bools=_AND)
arctan2 = _binary("arctan2", _math.atan2, "Elementwise arc tangent of x1/x2", to_float=True)
hypot = _binary(
    "hypot",
    lambda a, b: _ops.sqrt(_ops.square(a) + _ops.square(b)),
    "Elementwise ``sqrt(x1**2 + x2**2)``",
    to_float=True,
)
logaddexp = _binary(
    "logaddexp",
    lambda a, b: _ops.maximum(a, b) + _ops.log1p(_ops.exp(-_ops.abs(a - b))),
    "Elementwise ``log(exp(x1) + exp(x2))``, computed stably",
    to_float=True,
)
logaddexp2 = _binary(
    "logaddexp2",
    lambda a, b: _ops.maximum(a, b) + _log_base(2.0)(1 + _exp2(-_ops.abs(a - b))),
    "Elementwise ``log2(2**x1 + 2**x2)``, computed stably",
    to_float=True,
)
equal = _binary("equal", _ops.equal, "Elementwise ``x1 == x2`` (bool)")
not_equal = _binary("not_equal", _ops.not_equal, "Elementwise ``x1 != x2`` (bool)")
less = _binary("less", _ops.less, "Elementwise ``x1 < x2`` (bool)")
less_equal = _binary("less_equal", _ops.less_equal, "Elementwise ``x1 <= x2`` (bool)")
greater = _binary("greater", _ops.greater, "Elementwise ``x1 > x2`` (bool)")
greater_equal = _binary("greater_equal", _ops.greater_equal, "Elementwise ``x1 >= x2`` (bool)")


def _logical(fn):
    return lambda a, b: fn(cast(a, "bool"), cast(b, "bool"))


logical_and = _binary("logical_and", _logical(_ops.logical_and), "Elementwise AND of truth values")
logical_or = _binary("logical_or", _logical(_ops.logical_or), "Elementwise OR of truth values")
logical_xor = _binary("logical_xor", _logical(_ops.not_equal), "Elementwise XOR of truth values")


def _bitwise_op(name: str, logical, integer):
    def fn(a: Tensor, b: Tensor) -> Tensor:
        if a._value.dtype.kind == "b":
            return logical(a, b)
        if a._value.dtype.kind not in "iu":
            raise TypeError(f"{name}: operands must be integers or bools, got {a.dtype.name}.")
        return integer(a, b)

    return fn


bitwise_and = _binary(
    "bitwise_and",
    _bitwise_op("bitwise_and", _ops.logical_and, _bitwise.bitwise_and),
    "Elementwise bitwise AND",
)
bitwise_or = _binary(
    "bitwise_or",
    _bitwise_op("bitwise_or", _ops.logical_or, _bitwise.bitwise_or),
    "Elementwise bitwise OR",
)
bitwise_xor = _binary(
    "bitwise_xor",
    _bitwise_op("bitwise_xor", _ops.not_equal, _bitwise.bitwise_xor),
    "Elementwise bitwise XOR",
)


def float_power(x1, x2) -> Tensor:
    """Elementwise ``x1 ** x2`` in float64 (complex128 for complex inputs), as NumPy's
    ``float_power`` (follows `tf.experimental.numpy.float_power`)."""
    a, b = promote(x1, x2, op="float_power")
    target = "complex128" if a._value.dtype.kind == "c" else "float64"
    return _ops.pow(cast(a, target), cast(b, target))


def heaviside(x1, x2) -> Tensor:
    """Elementwise step: 0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0``
    (follows `tf.experimental.numpy.heaviside`)."""
    a, b = promote(x1, x2, op="heaviside")
    a, b = _ops.broadcast_to(a, _shape_of(a, b)), _ops.broadcast_to(b, _shape_of(a, b))
    zero = _ops.zeros_like(a)
    return _ops.where(
        _ops.less(a, zero), zero, _ops.where(_ops.greater(a, zero), _ops.ones_like(a), b)
    )


def _shape_of(*ts) -> tuple:
    return np.broadcast_shapes(*(tuple(t.shape) for t in ts))


def divmod(x1, x2) -> tuple:
    """``(floor_divide(x1, x2), mod(x1, x2))`` (follows `tf.experimental.numpy.divmod`)."""
    return floor_divide(x1, x2), mod(x1, x2)


def gcd(x1, x2) -> Tensor:
    """Elementwise greatest common divisor of integers (follows
    `tf.experimental.numpy.gcd`); not differentiable (integers)."""
    a, b = promote(x1, x2, op="gcd")
    if a._value.dtype.kind not in "iu":
        raise TypeError(f"gcd: operands must be integers, got {a.dtype.name}.")
    a, b = _ops.abs(a), _ops.abs(b)
    a, b = _ops.broadcast_to(a, _shape_of(a, b)), _ops.broadcast_to(b, _shape_of(a, b))
    zero = _ops.zeros_like(b)
    while bool(_ops.reduce_any(_ops.not_equal(b, zero))):  # Euclid, elementwise
        safe = _ops.where(_ops.equal(b, zero), _ops.ones_like(b), b)
        a, b = (
            _ops.where(_ops.equal(b, zero), a, b),
            _ops.where(_ops.equal(b, zero), zero, _ops.mod(a, safe)),
        )
    return a


def lcm(x1, x2) -> Tensor:
    """Elementwise least common multiple of integers (follows `tf.experimental.numpy.lcm`)."""
    a, b = promote(x1, x2, op="lcm")
    g = gcd(a, b)
    zero = _ops.zeros_like(g)
    safe = _ops.where(_ops.equal(g, zero), _ops.ones_like(g), g)
    return _ops.where(_ops.equal(g, zero), zero, _ops.abs(_ops.floordiv(a, safe) * b))


def clip(a, a_min, a_max) -> Tensor:
    """``a`` limited to ``[a_min, a_max]`` (either may be None, not both; follows
    `tf.experimental.numpy.clip`); the gradient flows where ``a`` is inside the range.

    Raises:
        ValueError: both bounds are None.
    """
    if a_min is None and a_max is None:
        raise ValueError("clip: at least one of a_min and a_max must be given, got None twice.")
    if a_min is None:
        x, hi = promote(a, a_max, op="clip")
        return _ops.minimum(x, hi)
    if a_max is None:
        x, lo = promote(a, a_min, op="clip")
        return _ops.maximum(x, lo)
    x, lo, hi = promote(a, a_min, a_max, op="clip")
    return _ops.minimum(_ops.maximum(x, lo), hi)


def around(a, decimals=0) -> Tensor:
    """``a`` rounded half to even at ``decimals`` places (follows
    `tf.experimental.numpy.around`); integers with ``decimals >= 0`` are returned as they are."""
    x = asarray_value(a, op="around")
    if x._value.dtype.kind in "iub":
        if decimals >= 0:
            return x
        factor = _const(10 ** (-decimals), x.dtype)
        return cast(_ops.round(cast(x, "float64") / cast(factor, "float64")), x.dtype) * factor
    if decimals == 0:
        return _ops.round(x)
    factor = _const(10.0**decimals, x.dtype)
    return _ops.round(x * factor) / factor


round = around


def _complex_part(name: str, fn):
    def op(val) -> Tensor:
        return fn(asarray_value(val, op=name))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"NumPy's ``{name}``: complex inputs through `ek.math.{fn.__name__}`, real ones as "
        f"NumPy gives them (follows `tf.experimental.numpy.{name}`)."
    )
    return op


real = _complex_part("real", _complex.real)
imag = _complex_part("imag", _complex.imag)
conj = _complex_part("conj", _complex.conj)
conjugate = _complex_part("conjugate", _complex.conj)


def angle(z, deg=False) -> Tensor:
    """The angle (argument) of each element, in radians (degrees with ``deg``): for real
    values 0 where ``z >= 0`` and pi where negative (follows `tf.experimental.numpy.angle`)."""
    x = asarray_value(z, op="angle")
    if x._value.dtype.kind != "c":
        x = float_operand(z, "angle")
    out = _complex.angle(x)
    return out * _const(180.0 / np.pi, out.dtype) if deg else out


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) -> Tensor:
    """Elementwise ``|a - b| <= atol + rtol * |b|`` (bool), as NumPy's (follows
    `tf.experimental.numpy.isclose`); infinities are close to themselves only."""
    x, y = promote(a, b, op="isclose")
    if x._value.dtype.kind not in "fc":
        x, y = cast(x, default_float()), cast(y, default_float())
    dt = x.dtype
    finite = _ops.logical_and(_math.is_finite(x), _math.is_finite(y))
    xs, ys = _ops.where(finite, x, _ops.zeros_like(x)), _ops.where(finite, y, _ops.zeros_like(y))
    close = _ops.less_equal(_ops.abs(xs - ys), _const(atol, dt) + _const(rtol, dt) * _ops.abs(ys))
    both_inf = _ops.logical_and(_ops.equal(x, y), _math.is_inf(x))
    out = _ops.logical_or(_ops.logical_and(close, finite), both_inf)
    if equal_nan:
        out = _ops.logical_or(out, _ops.logical_and(_math.is_nan(x), _math.is_nan(y)))
    return out


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) -> Tensor:
    """Whether every element is `isclose` (a bool scalar; follows
    `tf.experimental.numpy.allclose`)."""
    return _ops.reduce_all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def array_equal(a1, a2) -> Tensor:
    """Whether the arrays have one shape and equal elements (a bool scalar; follows
    `tf.experimental.numpy.array_equal`)."""
    x, y = promote(a1, a2, op="array_equal")
    if tuple(x.shape) != tuple(y.shape):
        return constant(False)
    return _ops.reduce_all(_ops.equal(x, y))


# -- reductions ------------------------------------------------------------------------------

_INT = np.dtype(np.int64)


def _reduce(
    name,
    fn,
    a,
    axis,
    dtype,
    keepdims,
    promote_int=None,
    out=None,
    where=None,
    initial=None,
    bool_fn=None,
):
    """Shared reduction: ``promote_int`` is "int" (bools and small ints become int64, as
    NumPy's sum and prod), "float" (integers become the default float: mean, std, var) or
    None (max, min keep the dtype). ``bool_fn`` (as TF NumPy's ``tf_bool_fn``) reduces bool
    results: sum/prod with ``dtype=bool``, and bool inputs of max/min (``promote_int`` None)."""
    no_argument(name, out=out, where=where, initial=initial)
    x = asarray_value(a, op=name)
    np_dtype = as_np_dtype(dtype, name)
    to_bool = (
        x._value.dtype == np.bool_ and not promote_int if np_dtype is None else np_dtype == np.bool_
    )
    if bool_fn is not None and to_bool:
        axes = normalize_axis(axis, x.ndim, name)
        x = cast(x, np.bool_)
        return bool_fn(x, axis=None if axes is None else list(axes), keepdims=bool(keepdims))
    if np_dtype is not None:
        x = cast(x, np_dtype)
    elif promote_int == "int" and x._value.dtype.kind in "biu" and x._value.dtype.itemsize < 8:
        x = cast(x, np.uint64 if x._value.dtype.kind == "u" else _INT)
    elif promote_int == "int" and x._value.dtype.kind == "b":
        x = cast(x, _INT)
    elif promote_int == "float" and x._value.dtype.kind not in "fc":
        x = cast(x, default_float())
    axes = normalize_axis(axis, x.ndim, name)
    return fn(x, axis=None if axes is None else list(axes), keepdims=bool(keepdims))


def sum(a, axis=None, dtype=None, out=None, keepdims=None, initial=None, where=None) -> Tensor:
    """Sum over ``axis`` (all axes by default); bools and integers narrower than 64 bits sum
    as int64, as NumPy's (follows `tf.experimental.numpy.sum`); differentiable.

    Raises:
        NotImplementedError: ``out``, ``initial`` or ``where`` given. ValueError: a bad axis.
    """
    return _reduce(
        "sum",
        _ops.reduce_sum,
        a,
        axis,
        dtype,
        keepdims,
        "int",
        out,
        where,
        initial,
        _ops.reduce_any,
    )


def prod(a, axis=None, dtype=None, out=None, keepdims=None, initial=None) -> Tensor:
    """Product over ``axis`` (follows `tf.experimental.numpy.prod`); int64 for small ints."""
    return _reduce(
        "prod",
        _ops.reduce_prod,
        a,
        axis,
        dtype,
        keepdims,
        "int",
        out,
        None,
        initial,
        _ops.reduce_all,
    )


def mean(a, axis=None, dtype=None, out=None, keepdims=None, where=None) -> Tensor:
    """Arithmetic mean over ``axis`` (follows `tf.experimental.numpy.mean`); integers give
    the default float."""
    return _reduce("mean", _ops.reduce_mean, a, axis, dtype, keepdims, "float", out, where)


def amax(a, axis=None, out=None, keepdims=None, initial=None, where=None) -> Tensor:
    """Maximum over ``axis`` (follows `tf.experimental.numpy.amax`)."""
    return _reduce(
        "amax", _ops.reduce_max, a, axis, None, keepdims, None, out, where, initial, _ops.reduce_any
    )


def amin(a, axis=None, out=None, keepdims=None, initial=None, where=None) -> Tensor:
    """Minimum over ``axis`` (follows `tf.experimental.numpy.amin`)."""
    return _reduce(
        "amin", _ops.reduce_min, a, axis, None, keepdims, None, out, where, initial, _ops.reduce_all
    )


max = amax
min = amin


def _ddof(fn, ddof):
    def reduce(x, axis, keepdims):
        v = fn(x, axis=axis, keepdims=keepdims)
        if not ddof:
            return v
        n = int(np.prod([x.shape[i] for i in (axis if axis is not None else range(x.ndim))]))
        # ddof >= n: NumPy divides by max(n - ddof, 0), giving inf (nan for a zero sum).
        return v * _const(n / (n - ddof) if n > ddof else np.inf, v.dtype)

    return reduce


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=None) -> Tensor:
    """Variance over ``axis`` with ``ddof`` delta degrees of freedom (follows
    `tf.experimental.numpy.var`)."""
    return _reduce("var", _ddof(_ops.reduce_variance, ddof), a, axis, dtype, keepdims, "float", out)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=None) -> Tensor:
    """Standard deviation over ``axis`` with ``ddof`` (follows `tf.experimental.numpy.std`)."""

    def fn(x, axis, keepdims):
        return _ops.sqrt(_ddof(_ops.reduce_variance, ddof)(x, axis, keepdims))

    return _reduce("std", fn, a, axis, dtype, keepdims, "float", out)


def ptp(a, axis=None, keepdims=None) -> Tensor:
    """Maximum minus minimum over ``axis`` (follows `tf.experimental.numpy.ptp`)."""
    return amax(a, axis=axis, keepdims=keepdims) - amin(a, axis=axis, keepdims=keepdims)


def all(a, axis=None, keepdims=None) -> Tensor:
    """Whether every element along ``axis`` is true (follows `tf.experimental.numpy.all`)."""
    x = cast(asarray_value(a, op="all"), "bool")
    axes = normalize_axis(axis, x.ndim, "all")
    return _ops.reduce_all(x, axis=None if axes is None else list(axes), keepdims=bool(keepdims))


def any(a, axis=None, keepdims=None) -> Tensor:
    """Whether any element along ``axis`` is true (follows `tf.experimental.numpy.any`)."""
    x = cast(asarray_value(a, op="any"), "bool")
    axes = normalize_axis(axis, x.ndim, "any")
    return _ops.reduce_any(x, axis=None if axes is None else list(axes), keepdims=bool(keepdims))


def _nan_to(a, value, name):
    x = asarray_value(a, op=name)
    if x._value.dtype.kind not in "fc":
        return x
    return _ops.where(_math.is_nan(x), _ops.fill(x.shape, _const(value, x.dtype)), x)


def nansum(a, axis=None, dtype=None, keepdims=None) -> Tensor:
    """`sum` counting NaNs as 0 (follows `tf.experimental.numpy.nansum`)."""
    return sum(_nan_to(a, 0, "nansum"), axis=axis, dtype=dtype, keepdims=keepdims)


def nanprod(a, axis=None, dtype=None, keepdims=None) -> Tensor:
    """`prod` counting NaNs as 1 (follows `tf.experimental.numpy.nanprod`)."""
    return prod(_nan_to(a, 1, "nanprod"), axis=axis, dtype=dtype, keepdims=keepdims)


def nanmean(a, axis=None, dtype=None, keepdims=None) -> Tensor:
    """`mean` of the elements that are not NaN (follows `tf.experimental.numpy.nanmean`)."""
    x = float_operand(a, "nanmean")
    valid = cast(_ops.logical_not(_math.is_nan(x)), x.dtype)
    total = sum(_nan_to(x, 0, "nanmean"), axis=axis, dtype=dtype, keepdims=keepdims)
    return total / sum(valid, axis=axis, dtype=total.dtype, keepdims=keepdims)


def average(a, axis=None, weights=None, returned=False) -> Tensor:
    """The weighted mean over ``axis`` (follows `tf.experimental.numpy.average`);
    ``returned=True`` also gives the sum of the weights.

    Raises:
        ZeroDivisionError: the weights sum to zero. ValueError: weights of another shape.
    """
    if weights is None:
        avg = mean(a, axis=axis)
        x = asarray_value(a, op="average")
        n = (
            x.size
            if axis is None
            else int(np.prod([x.shape[i] for i in normalize_axis(axis, x.ndim, "average")]))
        )
        return (avg, _const(n, avg.dtype) * _ops.ones_like(avg)) if returned else avg
    x, w = promote(a, weights, op="average")
    if x._value.dtype.kind not in "fc":
        x, w = cast(x, default_float()), cast(w, default_float())
    if tuple(w.shape) != tuple(x.shape):
        if axis is None or w.ndim != 1:
            raise ValueError(
                f"average: weights of shape {tuple(w.shape)} differ from a's {tuple(x.shape)}; "
                "1-D weights need an axis."
            )
        ax = normalize_axis(axis, x.ndim, "average")[0]
        w = _ops.reshape(w, [-1 if i == ax else 1 for i in range(x.ndim)])
        w = _ops.broadcast_to(w, x.shape)
    total_w = sum(w, axis=axis)
    if bool(_ops.reduce_any(_ops.equal(total_w, _const(0, total_w.dtype)))):
        raise ZeroDivisionError("average: weights sum to zero, can't be normalized.")
    avg = sum(x * w, axis=axis) / total_w
    return (avg, total_w) if returned else avg


def count_nonzero(a, axis=None) -> Tensor:
    """How many elements are not zero, along ``axis`` (int64; follows
    `tf.experimental.numpy.count_nonzero`)."""
    x = asarray_value(a, op="count_nonzero")
    axes = normalize_axis(axis, x.ndim, "count_nonzero")
    return _ops.count_nonzero(x, axis=None if axes is None else list(axes), dtype="int64")


def _arg_extremum(name, fn, a, axis):
    x = asarray_value(a, op=name)
    if axis is None:
        x, axis = _ops.reshape(x, [-1]), 0
    axis = normalize_axis(axis, x.ndim, name)[0]
    return fn(x, axis=axis, output_type="int64")


def argmax(a, axis=None) -> Tensor:
    """Index of the maximum (over the flattened array without ``axis``; int64; follows
    `tf.experimental.numpy.argmax`)."""
    return _arg_extremum("argmax", _ops.argmax, a, axis)


def argmin(a, axis=None) -> Tensor:
    """Index of the minimum (follows `tf.experimental.numpy.argmin`)."""
    return _arg_extremum("argmin", _ops.argmin, a, axis)


def _cumulative(name, fn, a, axis, dtype):
    x = asarray_value(a, op=name)
    np_dtype = as_np_dtype(dtype, name)
    if np_dtype is not None:
        x = cast(x, np_dtype)
    elif x._value.dtype.kind in "biu" and x._value.dtype.itemsize < 8:
        x = cast(x, _INT)
    if axis is None:
        x, axis = _ops.reshape(x, [-1]), 0
    return fn(x, axis=normalize_axis(axis, x.ndim, name)[0])


def cumsum(a, axis=None, dtype=None) -> Tensor:
    """Running sum along ``axis`` (over the flattened array without one; follows
    `tf.experimental.numpy.cumsum`); differentiable."""
    return _cumulative("cumsum", _ops.cumsum, a, axis, dtype)


def cumprod(a, axis=None, dtype=None) -> Tensor:
    """Running product along ``axis`` (follows `tf.experimental.numpy.cumprod`)."""
    return _cumulative("cumprod", _math.cumprod, a, axis, dtype)
