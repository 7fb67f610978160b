"""Special functions of `tf.math` beyond the error and gamma functions of `math_ops.py`: the
inverse error function and ``ndtri``, the modified Bessel functions of order 0 and 1, the
regularized incomplete gamma and beta functions, ``nextafter`` and the running log-sum-exp.

Forwards use SciPy (``cupyx.scipy.special`` on a GPU), which TensorFlow's kernels agree with to
float rounding; each keeps its input's dtype. VJPs follow TensorFlow's registered gradients
(tensorflow/python/ops/math_grad.py) and are written with public ops, so gradients of any
order work. ``betainc`` has a gradient in ``x`` only and ``NextAfter`` none, as in TensorFlow;
``igamma`` and ``igammac`` have theirs in ``x``, and differentiating them in ``a`` raises
LookupError naming the op (TensorFlow's ``IgammaGradA`` kernel is not reproduced).

>>> ek.math.erfinv(ek.constant([0.0, 0.5])).numpy()
array([0.        , 0.47693628], dtype=float32)
>>> ek.math.cumulative_logsumexp(ek.constant([0.0, 0.0, 0.0])).numpy()
array([0.       , 0.6931472, 1.0986123], dtype=float32)
"""

from __future__ import annotations

import math

import numpy as np

from ..core.dispatch import Primitive, defvjp
from ..core.tensor import Tensor
from ._core import apply, binary, coerce_pair, float_check, tensor, unary
from .creation import zeros_like
from .elementwise import equal, exp, greater, less, log, sign, square, where
from .math_ops import lgamma, xlog1py, xlogy
from .reduction import shift_exclusive, single_axis

__all__ = [
    "bessel_i0",
    "bessel_i0e",
    "bessel_i1",
    "bessel_i1e",
    "betainc",
    "cumulative_logsumexp",
    "erfcinv",
    "erfinv",
    "igamma",
    "igammac",
    "ndtri",
    "nextafter",
    "polygamma",
    "zeta",
]


def scipy_function(name: str, xp):
    """``scipy.special.<name>`` (``cupyx.scipy.special`` for CuPy arrays)."""
    try:
        if xp is np:
            import scipy.special as special
        else:
            import cupyx.scipy.special as special
    except ImportError as exc:
        raise ImportError(f"{name}: needs SciPy (pip install scipy).") from exc
    return getattr(special, name)


def keep_dtype(name: str):
    """A forward calling ``scipy.special.<name>`` that keeps the inputs' (one) dtype."""

    def fwd(xp, *xs):
        with np.errstate(all="ignore"):
            return scipy_function(name, xp)(*xs).astype(xs[-1].dtype, copy=False)

    return fwd


# -- inverse error function, ndtri -----------------------------------------------------------------

_erfinv = Primitive("Erfinv", keep_dtype("erfinv"))
erfinv = unary(_erfinv, "The inverse of erf, on (-1, 1) (follows `tf.math.erfinv`).", True)
defvjp(_erfinv, lambda g, ans, x: g * (math.sqrt(math.pi) / 2) * exp(square(ans)))

_ndtri = Primitive("Ndtri", keep_dtype("ndtri"))
ndtri = unary(
    _ndtri, "The inverse of the standard normal CDF, on (0, 1) (follows `tf.math.ndtri`).", True
)
defvjp(_ndtri, lambda g, ans, x: g * math.sqrt(2 * math.pi) * exp(square(ans) / 2))

# -- modified Bessel functions of the first kind -------------------------------------------------

_i0 = Primitive("BesselI0", keep_dtype("i0"))
_i0e = Primitive("BesselI0e", keep_dtype("i0e"))
_i1 = Primitive("BesselI1", keep_dtype("i1"))
_i1e = Primitive("BesselI1e", keep_dtype("i1e"))
bessel_i0 = unary(_i0, "I0(x), the modified Bessel function (follows `tf.math.bessel_i0`).", True)
bessel_i0e = unary(_i0e, "exp(-|x|) I0(x) (follows `tf.math.bessel_i0e`).", True)
bessel_i1 = unary(_i1, "I1(x), the modified Bessel function (follows `tf.math.bessel_i1`).", True)
bessel_i1e = unary(_i1e, "exp(-|x|) I1(x) (follows `tf.math.bessel_i1e`).", True)


def over_x(f_of_x: Tensor, x: Tensor, at_zero: float) -> Tensor:
    """f(x) / x, and ``at_zero`` (its limit) where x is 0: the ``J1(x) / x`` and ``I1(x) / x``
    terms of the Bessel functions' derivatives, 1/2 at 0 (TensorFlow imputes 1 for
    ``bessel_i1``, which is not the derivative; 1/2 for ``bessel_i1e``)."""
    zero = equal(x, 0)
    return where(zero, zeros_like(x) + at_zero, f_of_x / where(zero, x + 1, x))


defvjp(_i0, lambda g, ans, x: g * bessel_i1(x))
defvjp(_i0e, lambda g, ans, x: g * (bessel_i1e(x) - sign(x) * ans))
defvjp(_i1, lambda g, ans, x: g * (bessel_i0(x) - over_x(ans, x, 0.5)))
defvjp(_i1e, lambda g, ans, x: g * (bessel_i0e(x) - ans * sign(x) - over_x(ans, x, 0.5)))

# -- regularized incomplete gamma and beta functions ---------------------------------------------


def _igamma_fwd(name: str):
    """SciPy's gammainc/gammaincc with TensorFlow's (Eigen's) edge values: NaN for a <= 0 < x,
    0 for igamma at x = 0 (whatever a is) and for both at a = x = inf."""
    scipy_fwd = keep_dtype(name)

    def fwd(xp, a, x):
        out = scipy_fwd(xp, a, x)
        nan, zero = out.dtype.type(np.nan), out.dtype.type(0)
        out = xp.where((a <= 0) & (x > 0), nan, out)
        out = xp.where((a == xp.inf) & (x == xp.inf), zero, out)
        return xp.where(x == 0, zero, out) if name == "gammainc" else out

    return fwd


_igamma = Primitive("Igamma", _igamma_fwd("gammainc"))
_igammac = Primitive("Igammac", _igamma_fwd("gammaincc"))
_igamma_op = binary(_igamma)
_igammac_op = binary(_igammac)


def _gamma_density(a: Tensor, x: Tensor) -> Tensor:
    """d/dx P(a, x) = exp(-x) x^(a - 1) / Gamma(a), in log space."""
    return exp(-x + (a - 1) * log(x) - lgamma(a))


def _no_gradient(op: str, arg: str):
    def vjp(*_):
        raise LookupError(
            f"{op}: no gradient with respect to {arg} here (TensorFlow's IgammaGradA is not "
            "reproduced); differentiate with respect to x only."
        )

    return vjp


defvjp(
    _igamma,
    _no_gradient("Igamma", "a"),
    lambda g, ans, a, x: g * _gamma_density(a, x),
)
defvjp(
    _igammac,
    _no_gradient("Igammac", "a"),
    lambda g, ans, a, x: -g * _gamma_density(a, x),
)


# -- the Hurwitz zeta function -------------------------------------------------------------------


def _zeta_fwd(xp, x, q):
    """SciPy's zeta with TensorFlow's (Eigen's) edge values: for x > 1 at a q that is a whole
    number <= 0, inf for an even whole (or infinite) x and NaN otherwise; 0 where x and q > 1
    and SciPy gives NaN (the sum underflows: x = inf, 1e30); NaN for a NaN x."""
    out = keep_dtype("zeta")(xp, x, q)
    with np.errstate(all="ignore"):
        even = (x == xp.floor(x)) & ((xp.fmod(x, 2) == 0) | xp.isinf(x))
        pole = (x > 1) & (q <= 0) & (q == xp.floor(q))
        out = xp.where(pole, xp.where(even, out.dtype.type(np.inf), out.dtype.type(np.nan)), out)
        out = xp.where(xp.isnan(out) & (x > 1) & (q > 1), out.dtype.type(0), out)
        return xp.where(xp.isnan(x), out.dtype.type(np.nan), out)


_zeta = Primitive("Zeta", _zeta_fwd)
_zeta_op = binary(_zeta)
# TensorFlow's ZetaGrad: none in x; -x * zeta(x + 1, q) in q.
defvjp(_zeta, None, lambda g, ans, x, q: g * -x * zeta(x + 1, q))


def _float_pair(op: str, prim_op, a, x):
    a, x = coerce_pair(a, x, op)
    if a._value.dtype.kind != "f":
        float_check(op, a)
    return prim_op(a, x)


def igamma(a, x, name=None) -> Tensor:
    """The regularized lower incomplete gamma function P(a, x) (follows `tf.math.igamma`;
    a gradient in ``x`` only).

    Raises:
        TypeError: integer inputs, or ``a`` and ``x`` of different dtypes.

    >>> ek.math.igamma(ek.constant(1.0), ek.constant(2.0)).numpy()
    np.float32(0.86466473)
    """
    return _float_pair("igamma", _igamma_op, a, x)


def igammac(a, x, name=None) -> Tensor:
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x) (follows
    `tf.math.igammac`; a gradient in ``x`` only). Raises what `igamma` raises."""
    return _float_pair("igammac", _igammac_op, a, x)


def _betainc_fwd(xp, a, b, x):
    # TensorFlow's (Eigen's) edge values: 0 at x = 0 and 1 at x = 1 (even for a NaN a or b),
    # NaN for a <= 0 or b <= 0, and for an infinite a or b inside (0, 1).
    with np.errstate(all="ignore"):
        out = scipy_function("betainc", xp)(a, b, x).astype(x.dtype, copy=False)
        nan = out.dtype.type(np.nan)
        out = xp.where(x == 0, out.dtype.type(0), xp.where(x == 1, out.dtype.type(1), out))
        inside = (x > 0) & (x < 1)
        out = xp.where(inside & (xp.isinf(a) | xp.isinf(b)), nan, out)
        return xp.where((a <= 0) | (b <= 0), nan, out)


_betainc = Primitive("Betainc", _betainc_fwd)


def _betainc_dx(g, ans, a, b, x):
    log_beta = lgamma(a) + lgamma(b) - lgamma(a + b)
    # TensorFlow's xlogy/xlog1py: a factor x^0 (a = 1) or (1 - x)^0 (b = 1) is 1 anywhere.
    return g * exp(xlogy(a - 1, x) + xlog1py(b - 1, -x) - log_beta)


defvjp(_betainc, None, None, _betainc_dx)  # TensorFlow's: none for a and b


def betainc(a, b, x, name=None) -> Tensor:
    """The regularized incomplete beta function I_x(a, b) (follows `tf.math.betainc`; a
    gradient in ``x`` only, None for ``a`` and ``b``, as TensorFlow's). ``a``, ``b`` and ``x``
    share a float dtype and one shape; scalars among them broadcast to it.

    Raises:
        TypeError: integer inputs or mixed dtypes.
        InvalidArgumentError: non-scalar shapes that differ.

    >>> ek.math.betainc(ek.constant(1.0), ek.constant(2.0), ek.constant(0.3)).numpy()
    np.float32(0.51)
    """
    a, b, x = (tensor(v, "betainc") for v in (a, b, x))
    a, x = coerce_pair(a, x, "betainc")
    b, x = coerce_pair(b, x, "betainc")
    for v in (a, b, x):
        if v._value.dtype.kind != "f":
            float_check("betainc", v)
    shapes = {tuple(v.shape) for v in (a, b, x)} - {()}  # scalars broadcast, as in TensorFlow
    if len(shapes) > 1:
        from ..core.errors import InvalidArgumentError

        raise InvalidArgumentError(
            f"betainc: a, b and x must have one shape (or be scalars); got {tuple(a.shape)}, "
            f"{tuple(b.shape)} and {tuple(x.shape)}."
        )
    if shapes:
        from .array_ops import broadcast_to

        full = shapes.pop()
        a, b, x = (v if tuple(v.shape) == full else broadcast_to(v, full) for v in (a, b, x))
    return apply(_betainc, (a, b, x))


# -- nextafter -------------------------------------------------------------------------------------

_nextafter = Primitive("NextAfter", lambda xp, x1, x2: xp.nextafter(x1, x2))
_nextafter_op = binary(_nextafter)
defvjp(_nextafter, None, None)


def nextafter(x1, x2, name=None) -> Tensor:
    """The next representable value after ``x1`` towards ``x2``, elementwise (follows
    `tf.math.nextafter`; float32 or float64, no gradient).

    >>> float(ek.math.nextafter(ek.constant(1.0), ek.constant(2.0))) - 1.0
    1.1920928955078125e-07
    """
    return _float_pair("nextafter", _nextafter_op, x1, x2)


# -- running log-sum-exp ---------------------------------------------------------------------------


def _cumulative_logsumexp_fwd(xp, x, axis, exclusive, reverse):
    if reverse:
        x = xp.flip(x, axis)
    if xp is np:
        with np.errstate(invalid="ignore"):  # -inf and -inf: -inf, as TensorFlow gives it
            out = np.logaddexp.accumulate(x, axis=axis)
    else:  # CuPy has no ufunc accumulate: shifted by the maximum, in float64
        w = x.astype(np.float64)
        m = xp.max(w, axis=axis, keepdims=True)
        m = xp.where(xp.isfinite(m), m, 0.0)
        out = (m + xp.log(xp.cumsum(xp.exp(w - m), axis=axis))).astype(x.dtype)
    if exclusive:  # [a, ...] -> [-inf, a, ...]
        out = shift_exclusive(xp, out, axis, -np.inf)
    return xp.flip(out, axis) if reverse else out


_cumulative_logsumexp = Primitive("CumulativeLogsumexp", _cumulative_logsumexp_fwd)


def _cumulative_logsumexp_vjp(g, ans, x, axis, exclusive, reverse):
    # TensorFlow's: the positive and negative parts of g carried in log space, so that no
    # exp(-ans) overflows.
    # A -inf output (an exclusive sum's first, or all -inf inputs) is taken as 0: its inputs
    # are -inf too, so their terms vanish, where -inf - -inf would give NaN (and the gradient's
    # own gradient meets such outputs from the -inf entries of log_pos and log_neg).
    minus_inf = zeros_like(x) - math.inf  # not x * 0: x may be -inf itself (second order)
    finite_ans = where(equal(ans, minus_inf), zeros_like(ans), ans)
    log_pos = where(greater(g, 0), log(where(greater(g, 0), g, 1)), minus_inf)
    log_neg = where(less(g, 0), log(where(less(g, 0), -g, 1)), minus_inf)
    back = {"axis": axis, "exclusive": exclusive, "reverse": not reverse}
    pos = exp(apply(_cumulative_logsumexp, (log_pos - finite_ans,), back) + x)
    neg = exp(apply(_cumulative_logsumexp, (log_neg - finite_ans,), back) + x)
    return pos - neg


defvjp(_cumulative_logsumexp, _cumulative_logsumexp_vjp)


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None) -> Tensor:
    """Running ``log(sum(exp(x)))`` along ``axis``, without overflow (follows
    `tf.math.cumulative_logsumexp`; ``exclusive`` starts from -inf, ``reverse`` runs from
    the end, as `cumsum`).

    Raises:
        TypeError: integer input.
        InvalidArgumentError: a scalar input or an axis out of range.
    """
    x = tensor(x, "cumulative_logsumexp")
    if x._value.dtype.kind != "f":
        float_check("cumulative_logsumexp", x)
    params = {
        "axis": single_axis(x, axis, "cumulative_logsumexp"),
        "exclusive": bool(exclusive),
        "reverse": bool(reverse),
    }
    return apply(_cumulative_logsumexp, (x,), params)


def zeta(x, q, name=None) -> Tensor:
    """The Hurwitz zeta function, ``sum((q + k) ** -x for k >= 0)`` (follows `tf.math.zeta`;
    SciPy's ``scipy.special.zeta``). Its gradient is in ``q`` only, ``-x * zeta(x + 1, q)``,
    as TensorFlow's; NaN where ``x <= 1``.

    Raises:
        TypeError: integer inputs, or ``x`` and ``q`` of different dtypes.

    >>> round(float(ek.math.zeta(ek.constant(2.0, ek.float64), ek.constant(1.0, ek.float64))), 6)
    1.644934
    """
    return _float_pair("zeta", _zeta_op, x, q)


def erfcinv(x, name=None) -> Tensor:
    """The inverse of erfc, on (0, 2): ``-ndtri(x / 2) / sqrt(2)`` (follows
    `tf.math.erfcinv`, which computes it so); ``inf`` at 0, ``-inf`` at 2, NaN outside.
    Differentiable through ``ndtri``.

    Raises:
        UnsupportedDTypeError: integer or complex input.

    >>> ek.math.erfcinv(ek.constant([0.5, 1.0, 1.5])).numpy().round(5)  # -0 at 1, as TensorFlow
    array([ 0.47694, -0.     , -0.47694], dtype=float32)
    """
    x = tensor(x, "erfcinv")
    float_check("Erfcinv", x, real=True)
    return -ndtri(x * 0.5) * (1.0 / math.sqrt(2.0))


def _polygamma_fwd(xp, a, x):
    with np.errstate(all="ignore"):
        order = xp.asarray(a)
        whole = (order == xp.floor(order)) & (order >= 0)
        out = scipy_function("polygamma", xp)(xp.where(whole, order, 0).astype(np.int64), x)
        # TensorFlow's (-1)^(a+1) a! zeta(a+1, x) is NaN at a whole x <= 0 for even a (see
        # `_zeta_fwd`), and its digamma is NaN at 0.
        pole = (x <= 0) & (x == xp.floor(x)) & (xp.fmod(order, 2) == 0)
        out = xp.where(pole, np.nan, out)
        return xp.where(whole, out, np.nan).astype(x.dtype, copy=False)


_polygamma = Primitive("Polygamma", _polygamma_fwd)
_polygamma_op = binary(_polygamma)
defvjp(
    _polygamma,
    None,  # TensorFlow has no gradient in the order either
    lambda g, ans, a, x: g * _polygamma_op(a + 1.0, x),
)


def polygamma(a, x, name=None) -> Tensor:
    """The ``a``-th derivative of the digamma function at ``x``,
    ``(-1)^(a+1) a! zeta(a+1, x)`` (follows `tf.math.polygamma`); ``a`` is a float tensor
    of whole numbers >= 0 (NaN where it is not), broadcast against ``x``. The gradient in
    ``x`` is ``polygamma(a + 1, x)``; there is none in ``a``, as in TensorFlow. Needs SciPy.

    Raises:
        UnsupportedDTypeError: integer or complex ``x``.
        TypeError: ``a`` and ``x`` of different dtypes (Python numbers take ``x``'s).

    >>> ek.math.polygamma(ek.constant([0.0, 1.0]), ek.constant([1.0, 1.0])).numpy()
    array([-0.5772157,  1.644934 ], dtype=float32)
    """
    a, x = coerce_pair(a, x, "polygamma")
    float_check("Polygamma", x, "x", real=True)
    return _polygamma_op(a, x)
