"""Elementwise math: each op's forward, then its VJPs on the next lines.

Binary ops broadcast like NumPy; the tape reduces broadcast cotangents back to each input's
shape, so a VJP here is the plain calculus. Gradients follow TensorFlow's registered gradients
(e.g. ``maximum`` sends the cotangent to ``x`` where ``x >= y``; ``floor``/``round`` have
none; ``sign`` has zero).
"""

from __future__ import annotations

import operator

import numpy as np

from ..core import dtypes
from ..core.composite import CompositeTensor
from ..core.conversion import NUMPY_OPERANDS, cast_operand
from ..core.dispatch import Primitive, defjointvjp, defvjp, pass_through
from ..core.errors import InvalidArgumentError, UnsupportedDTypeError
from ..core.numpy_methods import STATE as _NUMPY_STATE
from ..core.tensor import Tensor, make
from ..core.type_promotion import STRONG, keep_weak, promote_pair, weak_unary
from ..extension_dispatch import dispatchable
from ..native import kernels
from ._core import apply, binary, dtype_error, dtype_unsupported, tensor, unary
from .complex_ops import conj_if_complex as _c

__all__ = [
    "abs",
    "add",
    "add_n",
    "cast",
    "ceil",
    "clip_by_value",
    "cos",
    "divide",
    "equal",
    "exp",
    "floor",
    "floordiv",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "log",
    "log1p",
    "logical_and",
    "logical_not",
    "logical_or",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "negative",
    "not_equal",
    "pow",
    "reciprocal",
    "round",
    "rsqrt",
    "sigmoid",
    "sign",
    "sin",
    "sqrt",
    "square",
    "squared_difference",
    "subtract",
    "tan",
    "tanh",
    "truediv",
    "where",
]

# -- arithmetic ---------------------------------------------------------------------------------

_add = Primitive("AddV2", lambda xp, x, y: x + y)
add = binary(
    _add,
    "x + y, broadcasting (follows `tf.math.add`); string tensors are concatenated. A Python "
    "operand takes the tensor's dtype, and one out of its range raises TypeError where "
    "TensorFlow wraps it around (its docstring warns of that overflow).",
    operator.add,
    strings=True,
)
defvjp(_add, pass_through, pass_through)


def _add_n_fwd(xp, *xs):
    out = xs[0] + xs[1]
    if getattr(out, "ndim", 0):  # a fresh array: add the rest in place, no temporaries
        for x in xs[2:]:
            xp.add(out, x, out=out)
    else:  # NumPy gives scalars for 0-d sums
        for x in xs[2:]:
            out = out + x
    return out


_add_n = Primitive("AddN", _add_n_fwd)
defjointvjp(_add_n, lambda g, ans, *xs: (g,) * len(xs))


def add_n(inputs, name=None) -> Tensor:
    """The elementwise sum of a list of tensors of one shape and dtype (follows
    `tf.math.add_n`), summed left to right in one pass.

    Raises:
        ValueError: an empty list.
        TypeError: dtypes differ.
        InvalidArgumentError: shapes differ.

    >>> ek.add_n([ek.constant([1.0, 2.0]), ek.constant([3.0, 4.0]), ek.constant([5.0, 6.0])])
    <Tensor: shape=(2,), dtype=float32, numpy=array([ 9., 12.], dtype=float32)>
    """
    try:
        xs = [tensor(x, "add_n") for x in inputs]
    except TypeError:  # RaggedTensors (checked here: the tape's gradient sums call add_n)
        if any(isinstance(x, CompositeTensor) for x in inputs):
            from ..ragged.ragged_ops import add_n as ragged_add_n

            return ragged_add_n(list(inputs))
        raise
    if not xs:
        raise ValueError("add_n: inputs must be a non-empty list of tensors, got [].")
    if xs[0]._value.dtype.kind in "Ob":  # TensorFlow's AddN adds numbers only
        raise dtype_unsupported("AddN", xs[0], "a number", "inputs[0]")
    if len(xs) == 1:
        return xs[0]
    first = xs[0]
    for k, x in enumerate(xs[1:], 1):
        if x._value.dtype != first._value.dtype:
            raise dtype_error("AddN", (first, x), ("inputs[0]", f"inputs[{k}]"))
        if x._value.shape != first._value.shape:
            raise InvalidArgumentError(
                f"AddN: all inputs must have the same shape, got inputs[0]: "
                f"{tuple(first._value.shape)} and inputs[{k}]: {tuple(x._value.shape)}."
            )
    return apply(_add_n, tuple(xs))


_sub = Primitive("Sub", lambda xp, x, y: x - y)
subtract = binary(
    _sub,
    "x - y, broadcasting (follows `tf.math.subtract`); a Python operand out of the tensor's "
    "range raises TypeError, as for `add`.",
    operator.sub,
)
defvjp(_sub, pass_through, lambda g, ans, x, y: negative(g))


def _abs_vjp(g, ans, x):
    if x._value.dtype.kind != "c":
        return g * sign(x)
    # TensorFlow's ComplexAbsGrad: complex(g, 0) * x / complex(|x|, 0), 0 where |x| is 0
    from .complex_ops import complex as make_complex
    from .math_ops import divide_no_nan

    zero = g * 0
    return divide_no_nan(make_complex(g, zero) * x, make_complex(ans, zero))


# kernels.multiply: a * b, big float products on the kernel threads (NumPy's loop, same bits)
# The Mul primitive (`multiply`): graph functions fuse ``reduce_sum(a * b)`` by its identity.
mul_primitive = Primitive("Mul", lambda xp, x, y: kernels.multiply(x, y))
multiply = binary(
    mul_primitive, "x * y, broadcasting (follows `tf.math.multiply`).", kernels.multiply
)
# The hottest VJP: the real case tests the dtype inline instead of calling `_c`.
defvjp(
    mul_primitive,
    lambda g, ans, x, y: multiply(g, y if y._value.dtype.kind != "c" else _c(y)),
    lambda g, ans, x, y: multiply(g, x if x._value.dtype.kind != "c" else _c(x)),
)

_div = Primitive("RealDiv", lambda xp, x, y: x / y)
_real_div = binary(_div)

defvjp(
    _div,
    lambda g, ans, x, y: g / _c(y),
    lambda g, ans, x, y: -g * _c(x) / (_c(y) * _c(y)),
)


def truediv(x, y, name=None) -> Tensor:
    """x / y (follows `tf.math.truediv`).

    Floating inputs keep their dtype. Integer inputs are cast first, by TensorFlow's table:
    int8/int16/uint8 give float32, int32/int64 give float64. Under the new type promotion
    (NumPy behavior's "all"/"safe" mode) the inputs first promote along its lattice (two weak
    int32 give a weak float64).

    Raises:
        TypeError: if x and y have different dtypes ("safe" mode: do not promote safely).

    >>> ek.truediv(ek.constant(3), ek.constant(2))
    <Tensor: shape=(), dtype=float64, numpy=1.5>
    """
    if type(x) is Tensor and type(y) is Tensor and x._value.dtype.kind in "fc":
        return _real_div(x, y)
    if isinstance(x, CompositeTensor):  # RaggedTensor, SparseTensor
        return x._ek_binary(truediv, x, y)
    if isinstance(y, CompositeTensor):
        return y._ek_binary(truediv, x, y)
    if _NUMPY_STATE.promotion is not None:  # the new type promotion: the lattice's dtype
        x, y, weak = promote_pair("truediv", x, y)
        target = dtypes.TRUEDIV_RESULT.get(x._value.dtype)
        if target is not None:
            x, y = cast(x, target), cast(y, target)
        return keep_weak(_real_div(x, y), weak)
    from ._core import coerce_pair

    x, y = coerce_pair(x, y, "truediv")
    dt = x._value.dtype
    if dt != y._value.dtype:
        raise dtype_error("truediv", (x, y))
    if dt.kind == "b":  # TensorFlow's truediv checks its dtype before any kernel
        raise TypeError(f"truediv: x and y must be numbers, got two {x.dtype.name} tensors.")
    target = dtypes.TRUEDIV_RESULT.get(dt)
    if target is not None:
        x, y = cast(x, target), cast(y, target)
    return _real_div(x, y)


def divide(x, y, name=None) -> Tensor:
    """x / y (follows `tf.math.divide`, which is Python's ``/`` once ``x`` is a tensor): the
    same as `truediv`, but under NumPy behavior a NumPy operand promotes with the tensor as
    the ``/`` operator promotes it (`truediv` casts it to the tensor's dtype, as TensorFlow's
    ``tf.math.truediv`` does).

    >>> ek.divide(ek.constant([3.0, 1.0]), 2.0).numpy()
    array([1.5, 0.5], dtype=float32)
    """
    if not isinstance(x, (Tensor, CompositeTensor)):
        hint = y._value.dtype if isinstance(y, Tensor) else None
        if hint is not None and type(x) in NUMPY_OPERANDS:  # converted with y's dtype
            x = cast_operand(x, hint)
        x = tensor(x, "divide", hint)
    return x / y


def _check_integer_divisor(xp, x, y, op: str) -> None:
    # NumPy gives 0 (and a warning) for an integer division by zero; TensorFlow raises, but
    # only when an output element divides by it (an empty x divides by nothing).
    if y.dtype.kind in "iu" and x.size and not xp.all(y):
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: Integer division by zero (the divisor y of shape "
            f"{tuple(y.shape)} and dtype {y.dtype.name} holds a 0).",
        )


def _floordiv_fwd(xp, x, y):
    _check_integer_divisor(xp, x, y, "floordiv")
    if x.dtype.kind == "c":
        raise dtype_unsupported("FloorDiv", x, "a real number")
    if x.dtype.kind == "f":  # TF's floor(x / y): 1.0 // 0.1 is 10, inf // 2 is inf (NumPy: 9, nan)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return xp.floor(x / y)
    return x // y


def _mod_fwd(xp, x, y):
    _check_integer_divisor(xp, x, y, "floormod")
    if x.dtype.kind == "c":
        raise dtype_unsupported("FloorMod", x, "a real number")
    if x.dtype.kind != "f":  # integers: the divisor was checked above
        return x % y
    with np.errstate(divide="ignore", invalid="ignore"):  # NaN for x % 0 and inf % y, as TF
        return x % y


_floordiv = Primitive("FloorDiv", _floordiv_fwd)
floordiv = binary(_floordiv, "Floor of x / y (follows `tf.math.floordiv`); no gradient.")
defvjp(_floordiv, None, None)

_mod = Primitive("FloorMod", _mod_fwd)
mod = binary(_mod, "x - floor(x / y) * y, the sign of y (follows `tf.math.floormod`).")
defvjp(_mod, lambda g, ans, x, y: g, lambda g, ans, x, y: -g * floor(x / y))


def _pow_fwd(xp, x, y):
    if x.dtype.kind in "iu" and bool((y < 0).any()):
        raise _negative_power(x, y)
    return x**y


def _negative_power(x, y) -> InvalidArgumentError:
    return InvalidArgumentError(
        None,
        "Pow",
        f"pow: integers to negative integer powers are not allowed (x: {x.dtype.name} of shape "
        f"{tuple(x.shape)}, y of shape {tuple(y.shape)}).",
    )


_pow = Primitive("Pow", _pow_fwd)
_pow_op = binary(_pow)


def pow(x, y, name=None) -> Tensor:
    """x ** y, broadcasting (follows `tf.math.pow`).

    Raises:
        InvalidArgumentError: integers to negative integer powers (as TensorFlow), or shapes
            that do not broadcast. TypeError: different dtypes.

    >>> ek.pow(ek.constant([2, 3]), 2).numpy()
    array([4, 9], dtype=int32)
    """
    try:
        return _pow_op(x, y)
    except ValueError:
        # The dispatcher reports any ValueError of a binary forward as a shape mismatch;
        # tell the negative integer power apart, as TensorFlow's kernel does.
        from ._core import coerce_pair

        a, b = coerce_pair(x, y, "Pow")
        # Only an integer exponent: int64 ** float32 is the dtype mismatch (a TypeError that
        # NumPy behavior's operators promote on).
        ints = a._value.dtype.kind in "iu" and b._value.dtype.kind in "iu"
        if ints and bool((b._value < 0).any()):
            raise _negative_power(a._value, b._value) from None
        raise


defvjp(
    _pow,
    lambda g, ans, x, y: g * _c(y * x ** (y - 1)),
    # TF masks log(x) to 0 where x <= 0 so that x = 0 gives a finite dy (a complex x: log x).
    lambda g, ans, x, y: g * _c(ans * _pow_log(x)),
)


def _pow_log(x):
    if x._value.dtype.kind == "c":
        return log(where(equal(x, x * 0), x * 0 + 1, x))
    return where(x > 0, log(where(x > 0, x, 1)), 0)


def _sqdiff_fwd(xp, x, y):
    d = x - y
    return d * (d.conj() if d.dtype.kind == "c" else d)  # |x - y| ** 2 for complex, as TF


_sqdiff = Primitive("SquaredDifference", _sqdiff_fwd)
squared_difference = binary(_sqdiff, "(x - y) ** 2 (follows `tf.math.squared_difference`).")
defvjp(_sqdiff, lambda g, ans, x, y: 2 * g * (x - y), lambda g, ans, x, y: -2 * g * (x - y))


def _ordered(op: str, fn):
    """``fn(xp, x, y)`` refusing complex input: TF's kernels that order numbers take none (NumPy
    would order complex numbers lexicographically)."""

    def fwd(xp, x, y):
        if x.dtype.kind == "c":
            raise dtype_unsupported(op, x, "a real number")
        return fn(xp, x, y)

    return fwd


_max = Primitive("Maximum", _ordered("Maximum", lambda xp, x, y: xp.maximum(x, y)))
maximum = binary(_max, "Elementwise max (follows `tf.math.maximum`; ties send the gradient to x).")
defvjp(
    _max,
    # TF's `_MaximumMinimumGrad`: y takes what x does not, so a NaN operand routes g to y
    lambda g, ans, x, y: g * cast(x >= y, g.dtype),
    lambda g, ans, x, y: g * cast(logical_not(x >= y), g.dtype),
)

_min = Primitive("Minimum", _ordered("Minimum", lambda xp, x, y: xp.minimum(x, y)))
minimum = binary(_min, "Elementwise min (follows `tf.math.minimum`; ties send the gradient to x).")
defvjp(
    _min,
    lambda g, ans, x, y: g * cast(x <= y, g.dtype),
    lambda g, ans, x, y: g * cast(logical_not(x <= y), g.dtype),
)

# -- unary --------------------------------------------------------------------------------------

_neg = Primitive("Neg", lambda xp, x: -x)
negative = unary(_neg, "-x (follows `tf.math.negative`; signed numbers only).", signed=True)
defvjp(_neg, lambda g, ans, x: -g)

_abs = Primitive("Abs", lambda xp, x: xp.abs(x))
abs = unary(
    _abs, "|x| (follows `tf.math.abs`; the gradient at 0 is 0; signed numbers only).", signed=True
)
defvjp(_abs, lambda g, ans, x: _abs_vjp(g, ans, x))


def _sign_vjp(g, ans, x):
    if x._value.dtype.kind != "c":
        return g * 0
    # TensorFlow's sign of a complex z is divide_no_nan(z, complex(|z|, 0)), z / |z|; this is
    # that composite's gradient: DivNoNan's for z, and for |z| its denominator's, through the
    # cast (the real part) and Abs.
    from .complex_ops import complex as make_complex
    from .complex_ops import real
    from .math_ops import divide_no_nan

    r = abs(x)
    rc = make_complex(r, r * 0)
    through_r = real(g * divide_no_nan(divide_no_nan(-_c(x), rc), rc))
    return divide_no_nan(g, rc) + _abs_vjp(through_r, r, x)


def _sign_fwd(xp, x):
    if x.dtype.kind == "b":  # NumPy has no bool sign loop; TF no bool kernel
        raise dtype_unsupported("Sign", x, "a signed number")
    return xp.sign(x)


_sign = Primitive("Sign", _sign_fwd)
sign = unary(
    _sign,
    "-1, 0 or 1 (follows `tf.math.sign`; zero gradient); z / |z| for a complex z (0 at 0), "
    "with that quotient's gradient; signed numbers only.",
    signed=True,
)
defvjp(_sign, _sign_vjp)


def _exp_fwd(xp, x):
    if xp is np and type(x) is np.ndarray and x.size >= kernels.PARALLEL_MIN:
        out = kernels.exp(x)  # NumPy's exp loop, bit for bit, on the kernel threads
        if out is not None:
            return out
    return xp.exp(x)


_exp = Primitive("Exp", _exp_fwd)
exp = unary(_exp, "e ** x (follows `tf.math.exp`).", float_only=True)
defvjp(_exp, lambda g, ans, x: g * _c(ans))

_log = Primitive("Log", lambda xp, x: xp.log(x))
log = unary(_log, "Natural logarithm (follows `tf.math.log`).", float_only=True)
defvjp(_log, lambda g, ans, x: g / _c(x))

_log1p = Primitive("Log1p", lambda xp, x: xp.log1p(x))
log1p = unary(_log1p, "log(1 + x), accurate near 0 (follows `tf.math.log1p`).", float_only=True)
defvjp(_log1p, lambda g, ans, x: g / _c(1 + x))

_sqrt = Primitive("Sqrt", lambda xp, x: xp.sqrt(x))
sqrt = unary(_sqrt, "Square root (follows `tf.math.sqrt`).", float_only=True)
defvjp(_sqrt, lambda g, ans, x: g * 0.5 / _c(ans))

_rsqrt = Primitive("Rsqrt", lambda xp, x: 1 / xp.sqrt(x))
rsqrt = unary(_rsqrt, "1 / sqrt(x) (follows `tf.math.rsqrt`).", float_only=True)
defvjp(_rsqrt, lambda g, ans, x: -0.5 * g * _c(ans * ans * ans))

_reciprocal = Primitive("Reciprocal", lambda xp, x: 1 / x)
reciprocal = unary(_reciprocal, "1 / x (follows `tf.math.reciprocal`).", float_only=True)
defvjp(_reciprocal, lambda g, ans, x: -g * _c(ans) * _c(ans))

_square = Primitive("Square", lambda xp, x: x * x)
square = unary(_square, "x * x (follows `tf.math.square`).")
defvjp(_square, lambda g, ans, x: g * 2 * _c(x))

_sin = Primitive("Sin", lambda xp, x: xp.sin(x))
sin = unary(_sin, "Sine (follows `tf.math.sin`).", float_only=True)
defvjp(_sin, lambda g, ans, x: g * _c(cos(x)))

_cos = Primitive("Cos", lambda xp, x: xp.cos(x))
cos = unary(_cos, "Cosine (follows `tf.math.cos`).", float_only=True)
defvjp(_cos, lambda g, ans, x: -g * _c(sin(x)))

_tan = Primitive("Tan", lambda xp, x: xp.tan(x))
tan = unary(_tan, "Tangent (follows `tf.math.tan`).", float_only=True)
defvjp(_tan, lambda g, ans, x: g * _c(1 + ans * ans))


def _tanh_fwd(xp, x):
    if xp is np and type(x) is np.ndarray and x.size >= kernels.PARALLEL_MIN:
        out = kernels.tanh(x)  # NumPy's tanh loop, bit for bit, on the kernel threads
        if out is not None:
            return out
    return xp.tanh(x)


_tanh = Primitive("Tanh", _tanh_fwd)
tanh = unary(_tanh, "Hyperbolic tangent (follows `tf.math.tanh`).", float_only=True)


def _tanh_grad_fwd(xp, y, g):
    # TF's TanhGrad(y, dy): one pass of C where it applies, NumPy's formula bit for bit.
    if xp is np:
        out = kernels.tanh_grad(y, g)
        if out is not None:
            return out
    return g * (1 - y * y)


_tanh_grad = Primitive("TanhGrad", _tanh_grad_fwd)
defvjp(_tanh, lambda g, ans, x: apply(_tanh_grad, (_c(ans), g)))
defvjp(
    _tanh_grad,
    lambda h, ans, y, g: -2 * h * g * y,
    lambda h, ans, y, g: apply(_tanh_grad, (y, h)),
)


def sigmoid_fwd(xp, x):
    if x.dtype.kind == "c":  # the definition (the stable form below compares reals)
        return (1 / (1 + xp.exp(-x))).astype(x.dtype, copy=False)
    # Stable for large |x|: exp only ever sees non-positive arguments.
    if xp is np:
        out = kernels.sigmoid(x)  # the same formula in one pass of C and NumPy's exp loop
        if out is not None:
            return out
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


_sigmoid = Primitive("Sigmoid", sigmoid_fwd)
sigmoid = unary(
    _sigmoid, "1 / (1 + exp(-x)), overflow-free (follows `tf.math.sigmoid`).", float_only=True
)


def _sigmoid_grad_fwd(xp, y, g):
    # TF's SigmoidGrad(y, dy): one pass of C where it applies, NumPy's formula bit for bit.
    if xp is np:
        out = kernels.sigmoid_grad(y, g)
        if out is not None:
            return out
    return g * y * (1 - y)


sigmoid_grad_prim = Primitive("SigmoidGrad", _sigmoid_grad_fwd)
defvjp(_sigmoid, lambda g, ans, x: apply(sigmoid_grad_prim, (_c(ans), g)))
defvjp(
    sigmoid_grad_prim,
    lambda h, ans, y, g: (
        h * g * (1 - 2 * y) if y._value.dtype.kind != "c" else h * _c(g * (1 - 2 * y))
    ),
    lambda h, ans, y, g: apply(sigmoid_grad_prim, (_c(y), h)),
)

_floor = Primitive("Floor", lambda xp, x: xp.floor(x))
floor = unary(
    _floor,
    "Largest integer <= x, elementwise, of a real floating x (follows `tf.math.floor`; no "
    "gradient; integer or complex input raises UnsupportedDTypeError, as TensorFlow's "
    "InvalidArgumentError).",
    "real",
)
defvjp(_floor, None)

_ceil = Primitive("Ceil", lambda xp, x: xp.ceil(x))
ceil = unary(
    _ceil,
    "Smallest integer >= x, elementwise, of a real floating x (follows `tf.math.ceil`; no "
    "gradient; integer or complex input raises UnsupportedDTypeError).",
    "real",
)
defvjp(_ceil, None)

_round = Primitive("Round", lambda xp, x: xp.round(x))
round = unary(_round, "Round half to even (follows `tf.math.round`; no gradient).", real=True)
defvjp(_round, None)

# -- casts, comparisons, selection --------------------------------------------------------------


def _cast_fwd(xp, x, dtype):  # a complex value keeps its real part (TF's; NumPy would warn)
    return (x.real if x.dtype.kind == "c" and np.dtype(dtype).kind in "fiu" else x).astype(dtype)


_cast = Primitive("Cast", _cast_fwd)
defvjp(
    _cast,
    lambda g, ans, x, dtype: cast(g, x._value.dtype) if x._value.dtype.kind in "fc" else None,
)


def cast(x, dtype, name=None) -> Tensor:
    """Casts to ``dtype`` (follows `tf.cast`; float to int truncates toward zero).

    The gradient flows back through casts between floating types and is None into integers.

    Raises:
        TypeError: ``dtype`` is None or names no eagerkernel dtype, or ``x`` cannot be
            converted to a tensor.

    >>> ek.cast(ek.constant([1.7, -1.7]), "int32").numpy()
    array([ 1, -1], dtype=int32)
    """
    if not isinstance(x, Tensor) and isinstance(x, CompositeTensor):  # ragged, sparse
        return x._ek_unary(lambda values: cast(values, dtype))
    x = tensor(x, "cast")
    if dtype is None:
        raise TypeError(
            f"cast: dtype must be a dtype such as ek.float32, got None (x: {x.dtype.name})."
        )
    np_dtype = dtypes.numpy_dtype(dtype)
    if x._value.dtype == np_dtype:
        return x if type(x) is Tensor else apply(identity_prim, (x,))
    if x._value.dtype.kind == "O" or np_dtype.kind == "O":  # strings: ek.strings converts
        from ..core.errors import UnimplementedError

        raise UnimplementedError(
            f"cast: Cast {x.dtype.name} to {dtypes.from_numpy(np_dtype).name} is not supported "
            "(use ek.strings.to_number / ek.strings.as_string)."
        )
    return apply(_cast, (x,), {"dtype": np_dtype})


identity_prim = Primitive("Identity", lambda xp, x: x)
defvjp(identity_prim, pass_through)


def _comparison(name: str, fn, doc: str, strings: bool = False):
    prim = Primitive(name, fn)
    defvjp(prim, None, None)
    return binary(prim, doc, strings=strings, bools=strings)


def _ordering(name: str, fn, doc: str):
    return _comparison(name, _ordered(name, fn), doc)


equal = _comparison("Equal", lambda xp, x, y: x == y, "x == y elementwise, bool.", True)
not_equal = _comparison("NotEqual", lambda xp, x, y: x != y, "x != y elementwise, bool.", True)
less = _ordering("Less", lambda xp, x, y: x < y, "x < y elementwise, bool.")
less_equal = _ordering("LessEqual", lambda xp, x, y: x <= y, "x <= y elementwise, bool.")
greater = _ordering("Greater", lambda xp, x, y: x > y, "x > y elementwise, bool.")
greater_equal = _ordering("GreaterEqual", lambda xp, x, y: x >= y, "x >= y elementwise, bool.")


def _shape_tolerant(comparison, mismatch: bool):
    """``comparison``'s operator as ``==`` / ``!=`` run it: inputs whose shapes do not
    broadcast give a scalar bool ``mismatch`` instead of raising (TensorFlow's operators call
    ``Equal`` with ``incompatible_shape_error=False``; `equal` itself still raises)."""
    op = comparison.operator

    def run(x, y):
        try:
            return op(x, y)
        except InvalidArgumentError:
            shapes = [np.shape(getattr(v, "_value", v)) for v in (x, y)]
            try:
                np.broadcast_shapes(*shapes)
            except ValueError:
                return make(np.bool_(mismatch), x._device)
            raise

    return run


#: ``Tensor.__eq__`` / ``__ne__``: `equal` / `not_equal`, scalar False / True for shapes that
#: do not broadcast (``tf.constant([1, 2, 3]) == [1, 2]`` is False in TensorFlow).
equal_operator = _shape_tolerant(equal, False)
not_equal_operator = _shape_tolerant(not_equal, True)


def _logical(name: str, fn, doc: str):
    prim = Primitive(name, fn)
    defvjp(prim, None, None)
    op = binary(prim, doc, bools=True)

    def checked(x, y, name=None):
        x, y = tensor(x, prim.name), tensor(y, prim.name)
        if x._value.dtype != np.bool_ or y._value.dtype != np.bool_:
            raise UnsupportedDTypeError(
                None,
                prim.name,
                f"{prim.name}: inputs must be bool, got {x.dtype.name} and {y.dtype.name}.",
            )
        return op(x, y)

    checked.__doc__ = doc
    return checked


logical_and = _logical("LogicalAnd", lambda xp, x, y: x & y, "Elementwise AND of bools.")
logical_or = _logical("LogicalOr", lambda xp, x, y: x | y, "Elementwise OR of bools.")

_not = Primitive("LogicalNot", lambda xp, x: ~x)
defvjp(_not, None)
_logical_not = unary(_not, bools=True)


def logical_not(x, name=None) -> Tensor:
    """Elementwise NOT of a bool tensor. Raises `UnsupportedDTypeError` (TensorFlow's
    InvalidArgumentError, also a TypeError) for other dtypes."""
    x = tensor(x, "LogicalNot")
    if x._value.dtype != np.bool_:
        raise UnsupportedDTypeError(
            None, "LogicalNot", f"LogicalNot: input must be bool, got {x.dtype.name}."
        )
    return _logical_not(x)


_where = Primitive("SelectV2", lambda xp, c, x, y: xp.where(c, x, y))
defvjp(
    _where,
    None,
    lambda g, ans, c, x, y: where(c, g, 0),
    lambda g, ans, c, x, y: where(c, 0, g),
)


@dispatchable
def where(condition, x=None, y=None, name=None) -> Tensor:
    """Picks ``x`` where ``condition`` is true, else ``y``, broadcasting (follows `tf.where`).

    With only ``condition``, returns the int64 coordinates of its true elements, shape
    ``(num_true, rank)``; then ``condition`` may also be numeric (its nonzero elements are
    true), as TensorFlow allows. Python numbers take the other branch's dtype.

    Raises:
        TypeError: ``condition`` not bool (numeric too, with only ``condition``), or ``x``
            and ``y`` of different dtypes.
        ValueError: only one of ``x`` and ``y`` given.
        InvalidArgumentError: shapes that do not broadcast (all three named).

    >>> ek.where(ek.constant([True, False]), 1.0, 2.0).numpy()
    array([1., 2.], dtype=float32)
    """
    if (
        isinstance(condition, CompositeTensor)
        or isinstance(x, CompositeTensor)
        or isinstance(y, CompositeTensor)
    ):
        from ..ragged.ragged_ops import where as ragged_where  # RaggedTensors

        return ragged_where(condition, x, y)
    c = tensor(condition, "where")
    if x is None and y is None and c._value.dtype.kind in "biufc":
        return apply(_where_indices, (c,))
    if c._value.dtype != np.bool_:
        raise TypeError(f"where: condition must be bool, got {c.dtype.name}.")
    if x is None and y is None:
        return apply(_where_indices, (c,))
    if x is None or y is None:
        raise ValueError("where: x and y must both be given, or neither.")
    from ._core import coerce_pair

    x, y = coerce_pair(x, y, "where")
    if x._value.dtype != y._value.dtype:
        raise dtype_error("where", (x, y))
    try:
        return apply(_where, (c, x, y))
    except ValueError:
        shapes = [tuple(t._value.shape) for t in (c, x, y)]
        raise InvalidArgumentError(
            None,
            "SelectV2",
            "where: condition, x and y must broadcast to one shape, got condition: "
            f"{shapes[0]}, x: {shapes[1]}, y: {shapes[2]}.",
        ) from None


def clip_by_value(t, clip_value_min, clip_value_max, name=None) -> Tensor:
    """Clips to ``[clip_value_min, clip_value_max]`` (follows `tf.clip_by_value`):
    ``maximum(minimum(t, clip_value_max), clip_value_min)``, as TensorFlow computes it, so a
    ``clip_value_min`` above ``clip_value_max`` gives ``clip_value_min`` (TensorFlow's result;
    it raises nothing).

    The gradient passes where the value was inside the range, is zero outside.

    Raises:
        InvalidArgumentError: bounds whose shapes would broadcast ``t`` to a larger shape.

    >>> ek.clip_by_value(ek.constant([-2.0, 0.5, 3.0]), 0.0, 1.0).numpy()
    array([0. , 0.5, 1. ], dtype=float32)
    """
    if _NUMPY_STATE.promotion is not None and name is not STRONG:  # the new type promotion
        return weak_unary(clip_by_value, t, clip_value_min, clip_value_max)
    if type(t) is not Tensor and isinstance(t, CompositeTensor):  # ragged, sparse: values
        return t._ek_unary(lambda v: clip_by_value(v, clip_value_min, clip_value_max))
    t = tensor(t, "clip_by_value")
    lo = tensor(clip_value_min, "clip_by_value", t._value.dtype)
    hi = tensor(clip_value_max, "clip_by_value", t._value.dtype)
    out = maximum(minimum(t, hi), lo)
    if out._value.shape != t._value.shape:
        raise InvalidArgumentError(
            None,
            "clip_by_value",
            f"clip_by_value: the bounds (shapes {tuple(lo._value.shape)} and "
            f"{tuple(hi._value.shape)}) would broadcast t of shape {tuple(t._value.shape)} to "
            f"the larger shape {tuple(out._value.shape)}.",
        )
    return out


# `where(condition)`: the coordinates of the True elements, [n, rank] int64 (TF's ``Where``).
_where_indices = Primitive("Where", lambda xp, c: xp.argwhere(c).astype(np.int64))
defvjp(_where_indices, None)
