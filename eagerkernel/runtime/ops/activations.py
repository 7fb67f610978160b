"""Activation functions of `ek.nn`: relu and its variants, softplus, gelu, softmax, ...

Each op's forward is followed by its VJPs, written with eagerkernel ops so that they can be
differentiated again. Forwards use the numerically stable forms TensorFlow's kernels use:
softmax subtracts the maximum before exponentiating, and softplus and log_sigmoid are written
around ``log1p(exp(-|x|))``, so inputs of 1000 give finite values and finite gradients.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.dispatch import Primitive, defvjp
from ..core.numpy_methods import STATE as _NUMPY_STATE
from ..core.tensor import Tensor
from ..core.type_promotion import STRONG, weak_unary
from ..native import kernels
from ._core import apply, complex_error, float_check, tensor, unary
from .creation import zeros_like
from .elementwise import abs, cast, exp, sigmoid, sigmoid_fwd, sigmoid_grad_prim, tanh, where
from .reduction import reduce_sum, single_axis

__all__ = [
    "elu",
    "gelu",
    "leaky_relu",
    "log_sigmoid",
    "log_softmax",
    "relu",
    "relu6",
    "selu",
    "silu",
    "softmax",
    "softplus",
    "softsign",
    "swish",
]

# -- activations --------------------------------------------------------------------------------


def _relu_fwd(xp, x):
    if xp is np and type(x) is np.ndarray and x.size >= kernels.PARALLEL_MIN:
        out = kernels.relu(x)  # NumPy's maximum loop, bit for bit, on the kernel threads
        if out is not None:
            return out
    return xp.maximum(x, 0)


_relu = Primitive("Relu", _relu_fwd)


def _relu_grad_fwd(xp, g, x):
    # TF's ReluGrad, ``g * (x > 0)`` in one op: the gradient at exactly 0 is 0. It is linear
    # in g (its VJP is itself) and piecewise constant in x: zeros, as TF's `_ReluGradGrad`
    # returns (so a second-order gradient reaching a variable only through x is 0, not None).
    if xp is np:
        out = kernels.relu_grad(g, x)  # one pass of C where it applies
        if out is not None:
            return out
    return xp.multiply(g, x > 0, dtype=g.dtype)


_relu_grad = Primitive("ReluGrad", _relu_grad_fwd)
# On the output, as TF's `_ReluGrad` (``relu_grad(grad, op.outputs[0])``): the same values,
# but a higher-order gradient then reaches x through Relu, so a third order is 0, not None.
defvjp(_relu, lambda g, ans, x: apply(_relu_grad, (g, ans)))
defvjp(
    _relu_grad, lambda h, ans, g, x: apply(_relu_grad, (h, x)), lambda h, ans, g, x: zeros_like(x)
)
_relu_op = unary(_relu, real=True)


def relu(features, name=None) -> Tensor:
    """``max(features, 0)`` (follows `tf.nn.relu`; the gradient at 0 is 0).

    Args:
        features: a tensor of any real dtype; the output has its shape and dtype.

    >>> ek.nn.relu(ek.constant([-1.0, 0.0, 2.0])).numpy()
    array([0., 0., 2.], dtype=float32)
    """
    return _relu_op(features)


_relu6 = Primitive("Relu6", lambda xp, x: xp.minimum(xp.maximum(x, 0), 6))
# TF's Relu6Grad, ``g * (0 < x < 6)``: linear in g, piecewise constant in x (zeros).
_relu6_grad = Primitive(
    "Relu6Grad", lambda xp, g, x: g * ((x > 0) & (x < 6)).astype(g.dtype, copy=False)
)
defvjp(_relu6, lambda g, ans, x: apply(_relu6_grad, (g, ans)))  # on the output, as TF's
defvjp(
    _relu6_grad, lambda h, ans, g, x: apply(_relu6_grad, (h, x)), lambda h, ans, g, x: zeros_like(x)
)
_relu6_op = unary(_relu6, real=True)


def relu6(features, name=None) -> Tensor:
    """``min(max(features, 0), 6)`` (follows `tf.nn.relu6`; gradient 1 strictly inside (0, 6)).

    >>> ek.nn.relu6(ek.constant([-1.0, 3.0, 9.0])).numpy()
    array([0., 3., 6.], dtype=float32)
    """
    return _relu6_op(features)


_leaky_relu = Primitive("LeakyRelu", lambda xp, x, alpha: xp.where(x > 0, x, x * alpha))
# TF's LeakyReluGrad: linear in g, piecewise constant in x (zeros, as `_LeakyReluGradGrad`).
_leaky_relu_grad = Primitive(
    "LeakyReluGrad", lambda xp, g, x, alpha: xp.where(x > 0, g, g * g.dtype.type(alpha))
)
defvjp(_leaky_relu, lambda g, ans, x, alpha: apply(_leaky_relu_grad, (g, x), {"alpha": alpha}))
defvjp(
    _leaky_relu_grad,
    lambda h, ans, g, x, alpha: apply(_leaky_relu_grad, (h, x), {"alpha": alpha}),
    lambda h, ans, g, x, alpha: zeros_like(x),
)


def leaky_relu(features, alpha=0.2, name=None) -> Tensor:
    """``features`` where positive, else ``alpha * features`` (follows `tf.nn.leaky_relu`).

    Integer features are cast to float32 first, as in TensorFlow.

    >>> ek.nn.leaky_relu(ek.constant([-1.0, 2.0])).numpy()
    array([-0.2,  2. ], dtype=float32)
    """
    if _NUMPY_STATE.promotion is not None and name is not STRONG:  # the new type promotion
        return weak_unary(leaky_relu, features, alpha)
    x = tensor(features, "leaky_relu")
    if x._value.dtype.kind == "c":
        raise complex_error("leaky_relu", x, "features")
    if x._value.dtype.kind not in "fc":
        x = cast(x, np.float32)
    return apply(_leaky_relu, (x,), {"alpha": float(alpha)})


_elu = Primitive("Elu", lambda xp, x: xp.where(x > 0, x, xp.expm1(xp.minimum(x, 0))))
# TF's EluGrad tests x < 0, so a NaN x passes g through
defvjp(_elu, lambda g, ans, x: where(x < 0, g * (ans + 1), g))
_elu_op = unary(_elu, float_only="real")


def elu(features, name=None) -> Tensor:
    """``features`` where positive, else ``exp(features) - 1`` (follows `tf.nn.elu`).

    Raises:
        TypeError: for non-floating input.

    >>> ek.nn.elu(ek.constant([0.0, 1.0])).numpy()
    array([0., 1.], dtype=float32)
    """
    return _elu_op(features)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946

_selu = Primitive(
    "Selu",
    lambda xp, x: _SELU_SCALE * xp.where(x > 0, x, _SELU_ALPHA * xp.expm1(xp.minimum(x, 0))),
)
# TensorFlow's SeluGrad takes the scale where the output is not negative: at x = 0 too.
defvjp(
    _selu, lambda g, ans, x: where(x < 0, g * (ans + _SELU_SCALE * _SELU_ALPHA), g * _SELU_SCALE)
)
_selu_op = unary(_selu, float_only="real")


def selu(features, name=None) -> Tensor:
    """Scaled ELU, ``scale * elu(x, alpha)`` with the self-normalizing constants
    (follows `tf.nn.selu`).

    Raises:
        TypeError: for non-floating input.
    """
    return _selu_op(features)


def _softplus_fwd(xp, x):
    # log(1 + e^x) = log1p(e^-|x|) + max(x, 0): exp never overflows.
    if xp is np:
        out = kernels.softplus(x)  # the same formula without temporaries, bit for bit
        if out is not None:
            return out
    return xp.log1p(xp.exp(-xp.abs(x))) + xp.maximum(x, 0)


_softplus = Primitive("Softplus", _softplus_fwd)


def _softplus_grad_fwd(xp, g, x):
    # TF's SoftplusGrad(dy, x) = dy * sigmoid(x): one pass of C where it applies, the NumPy
    # formula's result bit for bit.
    if xp is np:
        out = kernels.softplus_grad(g, x)
        if out is not None:
            return out
    return g * sigmoid_fwd(xp, x)


_softplus_grad = Primitive("SoftplusGrad", _softplus_grad_fwd)
defvjp(_softplus, lambda g, ans, x: apply(_softplus_grad, (g, x)))
defvjp(
    _softplus_grad,
    lambda h, ans, g, x: apply(_softplus_grad, (h, x)),
    # d/dx of g * s(x) is g * s * (1 - s): SigmoidGrad(s, h * g)
    lambda h, ans, g, x: apply(sigmoid_grad_prim, (sigmoid(x), h * g)),
)
_softplus_op = unary(_softplus, float_only="real")


def softplus(features, name=None) -> Tensor:
    """``log(exp(features) + 1)``, overflow-free (follows `tf.math.softplus`).

    Raises:
        TypeError: for non-floating input.

    >>> ek.nn.softplus(ek.constant([-1000.0, 1000.0])).numpy()
    array([   0., 1000.], dtype=float32)
    """
    return _softplus_op(features)


_softsign = Primitive("Softsign", lambda xp, x: x / (1 + xp.abs(x)))
defvjp(_softsign, lambda g, ans, x: g / ((1 + abs(x)) * (1 + abs(x))))
_softsign_op = unary(_softsign, float_only="real")


def softsign(features, name=None) -> Tensor:
    """``features / (abs(features) + 1)`` (follows `tf.nn.softsign`).

    Raises:
        TypeError: for non-floating input.
    """
    return _softsign_op(features)


_log_sigmoid = Primitive(
    "LogSigmoid", lambda xp, x: -(xp.log1p(xp.exp(-xp.abs(x))) + xp.maximum(-x, 0))
)
defvjp(_log_sigmoid, lambda g, ans, x: g * sigmoid(-x))
_log_sigmoid_op = unary(_log_sigmoid, float_only="real")


def log_sigmoid(x, name=None) -> Tensor:
    """``log(sigmoid(x)) = -softplus(-x)``, overflow-free (follows `tf.math.log_sigmoid`).

    Raises:
        TypeError: for non-floating input.

    >>> [round(float(v), 4) for v in ek.nn.log_sigmoid(ek.constant([-1000.0, 0.0]))]
    [-1000.0, -0.6931]
    """
    return _log_sigmoid_op(x)


def _silu_vjp(g, ans, x, beta):
    s = sigmoid(x * beta)
    return g * (s + beta * ans * (1 - s))


_silu = Primitive("Swish", lambda xp, x, beta: x * sigmoid_fwd(xp, x * beta))
defvjp(_silu, _silu_vjp)


def silu(features, beta=1.0, name=None) -> Tensor:
    """``features * sigmoid(beta * features)`` (follows `tf.nn.silu`, also `tf.nn.swish`).

    ``beta`` is a Python number (one fused op), or a tensor or Variable broadcast against
    ``features`` and cast to its dtype, as TensorFlow converts it: then the result is
    differentiable in ``beta`` too (a learnable swish).

    Raises:
        UnsupportedDTypeError: non-floating ``features`` (also a TypeError).

    >>> ek.nn.silu(ek.constant([0.0, 1.0])).numpy()
    array([0.       , 0.7310586], dtype=float32)
    """
    x = tensor(features, "silu")
    float_check("silu", x, "features")
    if isinstance(beta, (int, float, np.integer, np.floating)) and not isinstance(beta, bool):
        return apply(_silu, (x,), {"beta": float(beta)})
    from .elementwise import multiply

    b = cast(tensor(beta, "silu"), x.dtype)
    return multiply(x, sigmoid(multiply(b, x)))


swish = silu


def _erf_fwd(xp, x):
    # NumPy has no erf; SciPy (and CuPy's cupyx) do. Fall back to math.erf per element.
    if xp is np:
        out = kernels.erf(x)  # float32: one vectorized pass of C, within 1 ulp of SciPy's
        if out is not None:
            return out
    try:
        if xp is np:
            from scipy.special import erf
        else:
            from cupyx.scipy.special import erf
        return erf(x).astype(x.dtype, copy=False)  # SciPy computes float16 in float64
    except ImportError:
        return np.vectorize(math.erf, otypes=[x.dtype])(x)


erf_primitive = Primitive("Erf", _erf_fwd)
defvjp(erf_primitive, lambda g, ans, x: g * (2 / math.sqrt(math.pi)) * exp(-x * x))

_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def _gelu_fwd(xp, x):
    if xp is np:
        out = kernels.gelu(x)  # float32: the formula below in one pass, within 1 ulp
        if out is not None:
            return out
    return (0.5 * x * (1 + _erf_fwd(xp, x * _SQRT_HALF))).astype(x.dtype, copy=False)


def _gelu_grad_fwd(xp, g, x):
    # TF's GeluGrad for the exact GELU: dy * (cdf(x) + x * pdf(x)). Float32: one pass of C
    # with NumPy's loops, the formula below bit for bit.
    if xp is np:
        out = kernels.gelu_grad(g, x)
        if out is not None:
            return out
    cdf = 0.5 * (1 + _erf_fwd(xp, x * _SQRT_HALF))
    return (g * (cdf + x * xp.exp(-0.5 * x * x) * _INV_SQRT_2PI)).astype(g.dtype, copy=False)


def _gelu_grad_x_vjp(h, ans, g, x):
    # d/dx of g * (cdf + x * pdf) is g * pdf * (2 - x * x)
    pdf = exp(-0.5 * x * x) * _INV_SQRT_2PI
    return h * g * pdf * (2 - x * x)


_gelu = Primitive("Gelu", _gelu_fwd)
_gelu_grad = Primitive("GeluGrad", _gelu_grad_fwd)
defvjp(_gelu, lambda g, ans, x: apply(_gelu_grad, (g, x)))
defvjp(_gelu_grad, lambda h, ans, g, x: apply(_gelu_grad, (h, x)), _gelu_grad_x_vjp)

_GELU_C = math.sqrt(2 / math.pi)
_GELU_A = 0.044715


def _gelu_tanh_vjp(g, ans, x):
    t = tanh(_GELU_C * (x + _GELU_A * x * x * x))
    inner_grad = _GELU_C * (1 + 3 * _GELU_A * x * x)
    return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * inner_grad)


_gelu_tanh = Primitive(
    "GeluTanh",
    lambda xp, x: 0.5 * x * (1 + xp.tanh(_GELU_C * (x + _GELU_A * x * x * x))),
)
defvjp(_gelu_tanh, _gelu_tanh_vjp)


def gelu(features, approximate=False, name=None) -> Tensor:
    """Gaussian error linear unit, ``x * P(X <= x)`` for standard normal X (follows `tf.nn.gelu`).

    Args:
        features: a floating tensor.
        approximate: use the tanh approximation
            ``0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))``.

    Raises:
        TypeError: for non-floating input.

    >>> ek.nn.gelu(ek.constant([0.0, 1.0])).numpy()
    array([0.       , 0.8413447], dtype=float32)
    """
    if _NUMPY_STATE.promotion is not None and name is not STRONG:  # the new type promotion
        return weak_unary(gelu, features, approximate)
    x = tensor(features, "gelu")
    float_check("gelu", x, "features", real=True)
    return apply(_gelu_tanh if approximate else _gelu, (x,))


# -- softmax ------------------------------------------------------------------------------------


def log_softmax_fwd(xp, x, axis):
    s = x - x.max(axis=axis, keepdims=True)  # the arrays' methods: NumPy's and CuPy's own
    return s - xp.log(xp.exp(s).sum(axis=axis, keepdims=True))


def _softmax_fwd(xp, x, axis):
    if x.size == 0:
        return x.copy()
    e = xp.exp(x - xp.max(x, axis=axis, keepdims=True))
    return e / xp.sum(e, axis=axis, keepdims=True)


_softmax = Primitive("Softmax", _softmax_fwd)
defvjp(
    _softmax,
    lambda g, ans, x, axis: ans * (g - reduce_sum(g * ans, axis, keepdims=True)),
)


def _log_softmax_fwd(xp, x, axis):
    return x.copy() if x.size == 0 else log_softmax_fwd(xp, x, axis)


_log_softmax = Primitive("LogSoftmax", _log_softmax_fwd)
defvjp(
    _log_softmax,
    lambda g, ans, x, axis: g - exp(ans) * reduce_sum(g, axis, keepdims=True),
)


def _softmax_like(prim, logits, axis, dim, op):
    x = tensor(logits, op)
    float_check(op, x, "logits", real=True)
    if dim is not None:  # TensorFlow 1.x's name for axis
        axis = dim
    return apply(prim, (x,), {"axis": single_axis(x, -1 if axis is None else axis, op)})


def softmax(logits, axis=None, name=None, dim=None) -> Tensor:
    """``exp(logits) / reduce_sum(exp(logits), axis)``, overflow-free (follows `tf.nn.softmax`).

    Args:
        logits: a floating tensor of rank >= 1.
        axis: the class axis, default -1 (``dim`` is TensorFlow 1.x's name for it).

    Returns:
        Same shape and dtype; sums to 1 along ``axis``.

    Raises:
        TypeError: non-floating logits. ValueError: a scalar or an axis out of range.

    >>> ek.nn.softmax(ek.constant([1000.0, 1000.0])).numpy()
    array([0.5, 0.5], dtype=float32)
    """
    return _softmax_like(_softmax, logits, axis, dim, "softmax")


def log_softmax(logits, axis=None, name=None, dim=None) -> Tensor:
    """``logits - log(reduce_sum(exp(logits), axis))``, overflow-free
    (follows `tf.nn.log_softmax`).

    Raises:
        TypeError: non-floating logits. ValueError: a scalar or an axis out of range.

    >>> ek.nn.log_softmax(ek.constant([0.0, 0.0])).numpy()
    array([-0.6931472, -0.6931472], dtype=float32)
    """
    if _NUMPY_STATE.promotion is not None and name is not STRONG:  # the new type promotion
        return weak_unary(log_softmax, logits, axis, dim=dim)
    return _softmax_like(_log_softmax, logits, axis, dim, "log_softmax")
