"""Neural-network ops (`ek.nn`): activations, softmax, cross-entropies, dropout, moments.

Each op's forward is followed by its VJPs, written with eagerkernel ops so that they can be
differentiated again. Forwards use the numerically stable forms TensorFlow's kernels use:
softmax and the cross-entropies subtract the maximum before exponentiating, and softplus and
the sigmoid cross-entropy are written around ``log1p(exp(-|x|))``, so logits of 1000 give
finite values and finite gradients.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .. import random as _random
from ..core.dispatch import Primitive, defvjp
from ..core.tensor import Tensor, make
from ..native import kernels
from ._core import apply, dtype_error, float_check, tensor, unary

# `sigmoid` and `tanh` are the elementwise ops, exported again under `ek.nn`.
from .elementwise import _sigmoid_fwd, abs, cast, exp, sigmoid, tanh, where
from .reduction import _single_axis, expand_reduced, normalize_axis, reduce_sum

__all__ = [
    "avg_pool2d",
    "bias_add",
    "conv2d",
    "dropout",
    "elu",
    "embedding_lookup",
    "gelu",
    "l2_loss",
    "l2_normalize",
    "leaky_relu",
    "log_sigmoid",
    "log_softmax",
    "max_pool2d",
    "moments",
    "relu",
    "relu6",
    "selu",
    "sigmoid",
    "sigmoid_cross_entropy_with_logits",
    "silu",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2",
    "softplus",
    "softsign",
    "sparse_softmax_cross_entropy_with_logits",
    "swish",
    "tanh",
]

# -- activations --------------------------------------------------------------------------------

_relu = Primitive("Relu", lambda xp, x: xp.maximum(x, 0))


def _relu_grad_fwd(xp, g, x):
    # TF's ReluGrad, ``g * (x > 0)`` in one op: the gradient at exactly 0 is 0. It is linear
    # in g (its VJP is itself) and piecewise constant in x (no gradient).
    if xp is np:
        out = kernels.relu_grad(g, x)  # one pass of C where it applies
        if out is not None:
            return out
    return xp.multiply(g, x > 0, dtype=g.dtype)


_relu_grad = Primitive("ReluGrad", _relu_grad_fwd)
defvjp(_relu, lambda g, ans, x: apply(_relu_grad, (g, x)))
defvjp(_relu_grad, lambda h, ans, g, x: apply(_relu_grad, (h, x)), None)
_relu_op = unary(_relu)


def relu(features, name=None) -> Tensor:
    """``max(features, 0)`` (follows `tf.nn.relu`; the gradient at 0 is 0).

    Args:
        features: a tensor of any real dtype; the output has its shape and dtype.

    >>> ek.nn.relu(ek.constant([-1.0, 0.0, 2.0])).numpy()
    array([0., 0., 2.], dtype=float32)
    """
    return _relu_op(features)


_relu6 = Primitive("Relu6", lambda xp, x: xp.minimum(xp.maximum(x, 0), 6))
defvjp(_relu6, lambda g, ans, x: g * cast((x > 0) & (x < 6), g.dtype))
_relu6_op = unary(_relu6)


def relu6(features, name=None) -> Tensor:
    """``min(max(features, 0), 6)`` (follows `tf.nn.relu6`; gradient 1 strictly inside (0, 6)).

    >>> ek.nn.relu6(ek.constant([-1.0, 3.0, 9.0])).numpy()
    array([0., 3., 6.], dtype=float32)
    """
    return _relu6_op(features)


_leaky_relu = Primitive("LeakyRelu", lambda xp, x, alpha: xp.where(x > 0, x, x * alpha))
defvjp(_leaky_relu, lambda g, ans, x, alpha: where(x > 0, g, g * alpha))


def leaky_relu(features, alpha=0.2, name=None) -> Tensor:
    """``features`` where positive, else ``alpha * features`` (follows `tf.nn.leaky_relu`).

    Integer features are cast to float32 first, as in TensorFlow.

    >>> ek.nn.leaky_relu(ek.constant([-1.0, 2.0])).numpy()
    array([-0.2,  2. ], dtype=float32)
    """
    x = tensor(features, "leaky_relu")
    if x._value.dtype.kind not in "fc":
        x = cast(x, np.float32)
    return apply(_leaky_relu, (x,), {"alpha": float(alpha)})


_elu = Primitive("Elu", lambda xp, x: xp.where(x > 0, x, xp.expm1(xp.minimum(x, 0))))
defvjp(_elu, lambda g, ans, x: where(x > 0, g, g * (ans + 1)))
_elu_op = unary(_elu, float_only=True)


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
defvjp(
    _selu, lambda g, ans, x: where(x > 0, g * _SELU_SCALE, g * (ans + _SELU_SCALE * _SELU_ALPHA))
)
_selu_op = unary(_selu, float_only=True)


def selu(features, name=None) -> Tensor:
    """Scaled ELU, ``scale * elu(x, alpha)`` with the self-normalizing constants
    (follows `tf.nn.selu`).

    Raises:
        TypeError: for non-floating input.
    """
    return _selu_op(features)


def _softplus_fwd(xp, x):
    # log(1 + e^x) = log1p(e^-|x|) + max(x, 0): exp never overflows.
    return xp.log1p(xp.exp(-xp.abs(x))) + xp.maximum(x, 0)


_softplus = Primitive("Softplus", _softplus_fwd)
defvjp(_softplus, lambda g, ans, x: g * sigmoid(x))
_softplus_op = unary(_softplus, float_only=True)


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
_softsign_op = unary(_softsign, float_only=True)


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
_log_sigmoid_op = unary(_log_sigmoid, float_only=True)


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


_silu = Primitive("Swish", lambda xp, x, beta: x * _sigmoid_fwd(xp, x * beta))
defvjp(_silu, _silu_vjp)


def silu(features, beta=1.0, name=None) -> Tensor:
    """``features * sigmoid(beta * features)`` (follows `tf.nn.silu`, also `tf.nn.swish`).

    Raises:
        TypeError: for non-floating input.

    >>> ek.nn.silu(ek.constant([0.0, 1.0])).numpy()
    array([0.       , 0.7310586], dtype=float32)
    """
    x = tensor(features, "silu")
    float_check("silu", x, "features")
    return apply(_silu, (x,), {"beta": float(beta)})


swish = silu


def _erf_fwd(xp, x):
    # NumPy has no erf; SciPy (and CuPy's cupyx) do. Fall back to math.erf per element.
    try:
        if xp is np:
            from scipy.special import erf
        else:
            from cupyx.scipy.special import erf
        return erf(x)
    except ImportError:
        return np.vectorize(math.erf, otypes=[x.dtype])(x)


_erf = Primitive("Erf", _erf_fwd)
defvjp(_erf, lambda g, ans, x: g * (2 / math.sqrt(math.pi)) * exp(-x * x))

_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def _gelu_fwd(xp, x):
    return (0.5 * x * (1 + _erf_fwd(xp, x * _SQRT_HALF))).astype(x.dtype, copy=False)


def _gelu_vjp(g, ans, x):
    cdf = 0.5 * (1 + apply(_erf, (x * _SQRT_HALF,)))
    return g * (cdf + x * exp(-0.5 * x * x) * _INV_SQRT_2PI)


_gelu = Primitive("Gelu", _gelu_fwd)
defvjp(_gelu, _gelu_vjp)

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
    x = tensor(features, "gelu")
    float_check("gelu", x, "features")
    return apply(_gelu_tanh if approximate else _gelu, (x,))


# -- softmax ------------------------------------------------------------------------------------


def _log_softmax_np(xp, x, axis):
    s = x - xp.max(x, axis=axis, keepdims=True)
    return s - xp.log(xp.sum(xp.exp(s), axis=axis, keepdims=True))


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
    return x.copy() if x.size == 0 else _log_softmax_np(xp, x, axis)


_log_softmax = Primitive("LogSoftmax", _log_softmax_fwd)
defvjp(
    _log_softmax,
    lambda g, ans, x, axis: g - exp(ans) * reduce_sum(g, axis, keepdims=True),
)


def _softmax_like(prim, logits, axis, dim, op):
    x = tensor(logits, op)
    float_check(op, x, "logits")
    if dim is not None:  # TensorFlow 1.x's name for axis
        axis = dim
    return apply(prim, (x,), {"axis": _single_axis(x, -1 if axis is None else axis, op)})


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
    return _softmax_like(_log_softmax, logits, axis, dim, "log_softmax")


# -- cross-entropies ----------------------------------------------------------------------------


def _softmax_xent_fwd(xp, labels, logits, axis):
    return -xp.sum(labels * _log_softmax_np(xp, logits, axis), axis=axis)


def _softmax_xent_logits_vjp(g, ans, labels, logits, axis):
    # loss = lse * sum(labels) - sum(labels * logits); TF's kernel returns softmax - labels,
    # which is the same when each label row sums to 1 (and right when it does not).
    ge = expand_reduced(g, logits, (axis,), False)
    return ge * (softmax(logits, axis) * reduce_sum(labels, axis, keepdims=True) - labels)


_softmax_xent = Primitive("SoftmaxCrossEntropyWithLogits", _softmax_xent_fwd)
defvjp(
    _softmax_xent,
    lambda g, ans, labels, logits, axis: (
        -expand_reduced(g, logits, (axis,), False) * log_softmax(logits, axis)
    ),
    _softmax_xent_logits_vjp,
)


def _labels_logits(labels, logits, op: str) -> tuple[Tensor, Tensor]:
    if labels is None or logits is None:
        raise ValueError(f"{op}: both labels and logits must be given (as keyword arguments).")
    z = tensor(logits, op)
    float_check(op, z, "logits")
    y = tensor(labels, op, z._value.dtype)
    if y._value.dtype != z._value.dtype:
        raise dtype_error(op, (y, z), ("labels", "logits"))
    return y, z


def softmax_cross_entropy_with_logits(labels=None, logits=None, axis=-1, name=None) -> Tensor:
    """Cross-entropy between ``labels`` and ``softmax(logits)`` along ``axis``
    (follows `tf.nn.softmax_cross_entropy_with_logits`, TensorFlow 2's signature).

    Computed from log-sum-exp, so large logits stay finite. Gradients flow to both inputs.

    Args:
        labels: a probability distribution along ``axis``; logits' shape (or one that
            broadcasts to it) and dtype.
        logits: unscaled log-probabilities, floating, rank >= 1.
        axis: the class axis.

    Returns:
        ``logits``'s shape without ``axis``.

    Raises:
        ValueError: labels that do not broadcast to logits' shape (both are named), a scalar
            or an axis out of range.
        TypeError: non-floating logits or different dtypes.

    >>> ek.nn.softmax_cross_entropy_with_logits(
    ...     labels=[[0.0, 1.0]], logits=[[1000.0, 0.0]]).numpy()
    array([1000.], dtype=float32)
    """
    op = "softmax_cross_entropy_with_logits"
    y, z = _labels_logits(labels, logits, op)
    a = _single_axis(z, axis, op)
    zs, ys = tuple(z._value.shape), tuple(y._value.shape)
    if ys != zs:
        try:
            ok = np.broadcast_shapes(ys, zs) == zs
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(
                f"{op}: labels of shape {ys} do not match (or broadcast to) logits of shape {zs}."
            )
        from .array_ops import broadcast_to

        y = broadcast_to(y, zs)
    return apply(_softmax_xent, (y, z), {"axis": a})


softmax_cross_entropy_with_logits_v2 = softmax_cross_entropy_with_logits


def _sparse_xent_fwd(xp, labels, logits):
    logp = _log_softmax_np(xp, logits, -1)
    return -xp.take_along_axis(logp, labels[..., None], axis=-1)[..., 0]


def _sparse_xent_vjp(g, ans, labels, logits):
    xp, dev = logits._device.xp, logits._device
    n = logits._value.shape[-1]
    hot = make((labels._value[..., None] == xp.arange(n)).astype(logits._value.dtype), dev)
    return expand_reduced(g, logits, (logits.ndim - 1,), False) * (softmax(logits, -1) - hot)


_sparse_xent = Primitive("SparseSoftmaxCrossEntropyWithLogits", _sparse_xent_fwd)
defvjp(_sparse_xent, None, _sparse_xent_vjp)


def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None) -> Tensor:
    """Cross-entropy between integer class ``labels`` and ``softmax(logits)``
    (follows `tf.nn.sparse_softmax_cross_entropy_with_logits`).

    Args:
        labels: int32/int64 of shape ``[d0, ..., dn-1]``, each in ``[0, num_classes)``.
        logits: floating, shape ``[d0, ..., dn-1, num_classes]``.

    Returns:
        Shape ``[d0, ..., dn-1]``, logits' dtype. The gradient w.r.t. logits is
        ``softmax(logits) - one_hot(labels)``; labels have none.

    Raises:
        ValueError: rank or shape mismatch (both shapes are named), or a label outside
            ``[0, num_classes)`` (the label and the number of classes are named).
        TypeError: non-integer labels or non-floating logits.

    >>> ek.nn.sparse_softmax_cross_entropy_with_logits(
    ...     labels=[1], logits=[[1000.0, 0.0]]).numpy()
    array([1000.], dtype=float32)
    """
    op = "sparse_softmax_cross_entropy_with_logits"
    if labels is None or logits is None:
        raise ValueError(f"{op}: both labels and logits must be given (as keyword arguments).")
    z = tensor(logits, op)
    float_check(op, z, "logits")
    y = tensor(labels, op)
    if y._value.dtype.kind not in "iu":
        raise TypeError(f"{op}: labels must be int32 or int64, got {y.dtype.name}.")
    zs, ys = tuple(z._value.shape), tuple(y._value.shape)
    if len(zs) == 0 or len(ys) != len(zs) - 1:
        raise ValueError(
            f"{op}: rank mismatch: the rank of labels (received {len(ys)}, shape {ys}) should "
            f"equal the rank of logits minus 1 (received {len(zs)}, shape {zs})."
        )
    if ys != zs[:-1]:
        raise ValueError(
            f"{op}: labels of shape {ys} do not match the leading axes of logits of shape {zs}."
        )
    n = zs[-1]
    lv = y._value
    if lv.size:
        lo, hi = int(lv.min()), int(lv.max())
        if lo < 0 or hi >= n:
            raise ValueError(
                f"{op}: received a label value of {lo if lo < 0 else hi} which is outside the "
                f"valid range of [0, {n}) ({n} classes, logits of shape {zs})."
            )
    return apply(_sparse_xent, (y, z))


def _sigmoid_xent_fwd(xp, labels, logits):
    # TF's form: max(x, 0) - x * z + log(1 + exp(-|x|)), finite for any x.
    x = logits
    return xp.maximum(x, 0) - x * labels + xp.log1p(xp.exp(-xp.abs(x)))


_sigmoid_xent = Primitive("SigmoidCrossEntropyWithLogits", _sigmoid_xent_fwd)
defvjp(
    _sigmoid_xent,
    lambda g, ans, labels, logits: -g * logits,
    lambda g, ans, labels, logits: g * (sigmoid(logits) - labels),
)


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None) -> Tensor:
    """Elementwise logistic loss of ``logits`` against ``labels`` in [0, 1]
    (follows `tf.nn.sigmoid_cross_entropy_with_logits`).

    Uses ``max(x, 0) - x * z + log(1 + exp(-|x|))``, which never overflows.

    Args:
        labels, logits: same shape and floating dtype.

    Returns:
        The elementwise loss, logits' shape.

    Raises:
        ValueError: different shapes (both named). TypeError: dtypes.

    >>> ek.nn.sigmoid_cross_entropy_with_logits(labels=[1.0, 0.0], logits=[1000.0, 1000.0]).numpy()
    array([   0., 1000.], dtype=float32)
    """
    op = "sigmoid_cross_entropy_with_logits"
    y, z = _labels_logits(labels, logits, op)
    if y._value.shape != z._value.shape:
        raise ValueError(
            f"{op}: logits and labels must have the same shape, got labels: "
            f"{tuple(y._value.shape)} and logits: {tuple(z._value.shape)}."
        )
    return apply(_sigmoid_xent, (y, z))


# -- regularization and normalization -----------------------------------------------------------


def dropout(x, rate=None, noise_shape=None, seed=None, name=None, keep_prob=None) -> Tensor:
    """Zeroes each element with probability ``rate`` and scales the rest by ``1 / (1 - rate)``
    (follows `tf.nn.dropout`).

    Args:
        x: a floating tensor.
        rate: drop probability, a number in [0, 1). ``keep_prob`` (TensorFlow 1.x) may be
            given instead, meaning ``rate = 1 - keep_prob``.
        noise_shape: the shape of the random keep/drop mask, broadcast against ``x`` (e.g.
            ``[batch, 1, 1, channels]`` drops whole channels); None entries take ``x``'s size.
        seed: op-level seed; with `ek.random.set_seed` it makes the mask reproducible.

    Returns:
        Same shape and dtype as ``x``. The gradient is the same mask times the same scale.

    Raises:
        ValueError: ``rate`` outside [0, 1), or a ``noise_shape`` that does not broadcast.
        TypeError: non-floating ``x``.

    >>> y = ek.nn.dropout(ek.ones((1000,)), rate=0.5, seed=1)
    >>> sorted(set(y.numpy().tolist()))
    [0.0, 2.0]
    """
    t = tensor(x, "dropout")
    if t._value.dtype.kind != "f":
        raise TypeError(
            f"dropout: x must be a floating-point tensor (it is scaled by 1 / (1 - rate)), "
            f"got {t.dtype.name}."
        )
    if keep_prob is not None:
        if rate is not None:
            raise ValueError("dropout: give rate or keep_prob, not both.")
        rate = 1 - float(keep_prob)
    if rate is None:
        raise ValueError("dropout: rate must be given.")
    rate = float(rate.numpy()) if isinstance(rate, Tensor) else rate
    if not isinstance(rate, numbers.Real) or not 0 <= rate < 1:
        raise ValueError(f"dropout: rate must be a scalar in [0, 1), got {rate!r}.")
    shape = tuple(t._value.shape)
    if noise_shape is None:
        mask_shape = shape
    else:
        if isinstance(noise_shape, Tensor):
            noise_shape = noise_shape.numpy().tolist()
        noise = list(noise_shape)
        lead = len(shape) - len(noise)
        mask_shape = tuple(
            shape[i + lead] if n is None and i + lead >= 0 else int(n) for i, n in enumerate(noise)
        )
        try:
            ok = np.broadcast_shapes(mask_shape, shape) == shape
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(
                f"dropout: noise_shape {tuple(noise_shape)} does not broadcast to x's shape "
                f"{shape}."
            )
    if rate == 0:
        return t
    keep = _random.generator(seed).random(mask_shape) >= rate
    mask = (keep * (1.0 / (1.0 - rate))).astype(t._value.dtype)
    dev = t._device
    return t * make(dev.xp.asarray(mask) if dev.xp is not np else mask, dev)


_l2_loss = Primitive("L2Loss", lambda xp, x: xp.sum(x * x) / 2)
defvjp(_l2_loss, lambda g, ans, x: g * x)
_l2_loss_op = unary(_l2_loss, float_only=True)


def l2_loss(t, name=None) -> Tensor:
    """``sum(t ** 2) / 2``, a scalar (follows `tf.nn.l2_loss`).

    Raises:
        TypeError: for non-floating input.

    >>> ek.nn.l2_loss(ek.constant([3.0, 4.0])).numpy()
    np.float32(12.5)
    """
    return _l2_loss_op(t)


def _bias_add_fwd(xp, x, b, channel_axis):
    if channel_axis == x.ndim - 1:
        return x + b
    return x + b.reshape((-1,) + (1,) * (x.ndim - 1 - channel_axis))


def _bias_grad(g, ans, x, b, channel_axis):
    if channel_axis == x.ndim - 1:
        return g  # the tape sums the broadcast axes away
    return reduce_sum(g, tuple(i for i in range(x.ndim) if i != channel_axis))


_bias_add = Primitive("BiasAdd", _bias_add_fwd)
defvjp(_bias_add, lambda g, ans, x, b, channel_axis: g, _bias_grad)


def bias_add(value, bias, data_format=None, name=None) -> Tensor:
    """Adds a 1-D ``bias`` along the channel axis of ``value`` (follows `tf.nn.bias_add`).

    Args:
        value: rank >= 2.
        bias: shape ``[channels]``, same dtype.
        data_format: None or channels last (``"NHWC"``, ``"NWC"``, ``"NDHWC"``, ...: the last
            axis) or channels first (``"NCHW"``, ``"NCW"``, ...: axis 1).

    Raises:
        ValueError: bias not 1-D, its length not the channel count (shapes named), a bad
            ``data_format``.
        TypeError: different dtypes.

    >>> ek.nn.bias_add(ek.zeros((2, 3)), ek.constant([1.0, 2.0, 3.0])).numpy()[1]
    array([1., 2., 3.], dtype=float32)
    """
    x = tensor(value, "bias_add")
    b = tensor(bias, "bias_add", x._value.dtype)
    if x._value.dtype != b._value.dtype:
        raise dtype_error("bias_add", (x, b), ("value", "bias"))
    xs, bs = tuple(x._value.shape), tuple(b._value.shape)
    if len(bs) != 1 or len(xs) < 2:
        raise ValueError(
            f"bias_add: value must have rank >= 2 and bias rank 1, got value: {xs}, bias: {bs}."
        )
    if data_format is None or (data_format.startswith("N") and data_format.endswith("C")):
        c = len(xs) - 1
    elif data_format.startswith("NC"):
        c = 1
    else:
        raise ValueError(
            f"bias_add: data_format must be of the form N...C or NC..., got {data_format!r}."
        )
    if xs[c] != bs[0]:
        raise ValueError(
            f"bias_add: bias of shape {bs} must match the channel axis {c} of value of shape "
            f"{xs} ({data_format or 'channels last'})."
        )
    return apply(_bias_add, (x, b), {"channel_axis": c})


def moments(x, axes, shift=None, keepdims=False, name=None) -> tuple[Tensor, Tensor]:
    """Mean and (population) variance over ``axes`` (follows `tf.nn.moments`).

    Args:
        x: a floating tensor. float16 is computed in float32 and cast back, as in TF.
        axes: the axes to reduce (a list of ints; an int is accepted).
        shift: ignored (TensorFlow ignores it too).
        keepdims: keep reduced axes with length 1.

    Returns:
        ``(mean, variance)``, differentiable to any order.

    Raises:
        TypeError: for non-floating input.

    >>> m, v = ek.nn.moments(ek.constant([[1.0, 2.0], [3.0, 6.0]]), axes=[0])
    >>> m.numpy(), v.numpy()
    (array([2., 4.], dtype=float32), array([1., 4.], dtype=float32))
    """
    from .reduction import reduce_mean, reduce_variance

    t = tensor(x, "moments")
    float_check("moments", t, "x")
    low = t._value.dtype == np.float16
    if low:
        t = cast(t, np.float32)
    axes = normalize_axis(axes, t.ndim, "moments")
    mean = reduce_mean(t, axes, keepdims)
    variance = reduce_variance(t, axes, keepdims)
    if low:
        return cast(mean, np.float16), cast(variance, np.float16)
    return mean, variance


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None) -> Tensor:
    """``x / sqrt(max(sum(x ** 2, axis), epsilon))`` (follows `tf.math.l2_normalize`).

    Args:
        x: a floating tensor.
        axis: the axis or axes normalized over; None means all (``dim`` is TF 1.x's name).
        epsilon: lower bound on the squared norm, so a zero vector stays finite.

    Raises:
        TypeError: for non-floating input.

    >>> ek.nn.l2_normalize(ek.constant([3.0, 4.0])).numpy()
    array([0.6, 0.8], dtype=float32)
    """
    from .elementwise import maximum, rsqrt

    t = tensor(x, "l2_normalize")
    float_check("l2_normalize", t, "x")
    if dim is not None:
        axis = dim
    square_sum = reduce_sum(t * t, normalize_axis(axis, t.ndim, "l2_normalize"), keepdims=True)
    return t * rsqrt(maximum(square_sum, epsilon))


def embedding_lookup(params, ids, max_norm=None, name=None) -> Tensor:
    """Rows of ``params`` at ``ids`` (follows `tf.nn.embedding_lookup` for one tensor).

    Args:
        params: shape ``[vocab, ...]``.
        ids: integer tensor of any shape, entries in ``[0, vocab)``.
        max_norm: if given, each looked-up row with a larger L2 norm is scaled down to it.

    Returns:
        Shape ``ids.shape + params.shape[1:]``; the gradient scatter-adds into ``params``.

    >>> ek.nn.embedding_lookup(ek.constant([[0.0], [1.0], [2.0]]), [2, 0]).numpy()
    array([[2.],
           [0.]], dtype=float32)
    """
    from .indexing import gather

    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise ValueError(
                "embedding_lookup: sharded params (a list of several tensors) are not supported."
            )
        (params,) = params
    rows = gather(params, ids)
    if max_norm is None:
        return rows
    from .linalg import clip_by_norm

    axes = list(range(rows.ndim - (tensor(params, "embedding_lookup").ndim - 1), rows.ndim))
    return clip_by_norm(rows, max_norm, axes=axes) if axes else rows


from .conv import avg_pool2d, conv2d, max_pool2d  # noqa: E402
