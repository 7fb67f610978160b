"""The cross-entropies of `ek.nn`: softmax, sparse softmax and sigmoid, from logits.

Computed from log-sum-exp (softmax) and ``max(x, 0) - x * z + log1p(exp(-|x|))`` (sigmoid),
as TensorFlow's kernels are, so logits of 1000 give finite losses and gradients. Each forward
is followed by its VJPs, themselves differentiable.

Errors follow TensorFlow's: shapes that TensorFlow checks in Python (ranks, the sigmoid
cross-entropy's shapes) raise ValueError; what its kernels check (labels that do not broadcast
to the logits, a class label outside ``[0, num_classes)``) raises
`~ek.errors.InvalidArgumentError`.
"""

from __future__ import annotations

import numpy as np

from ..core.context import ACTIVE
from ..core.dispatch import Primitive, defvjp
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, make
from ._core import apply, dtype_error, float_check, tensor
from .activations import log_softmax, log_softmax_fwd, softmax
from .creation import one_hot
from .elementwise import exp, sigmoid
from .reduction import expand_reduced, reduce_sum, single_axis

__all__ = [
    "sigmoid_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2",
    "sparse_softmax_cross_entropy_with_logits",
]

# -- cross-entropies ----------------------------------------------------------------------------


def _softmax_xent_fwd(xp, labels, logits, axis):
    return -xp.sum(labels * log_softmax_fwd(xp, logits, axis), axis=axis)


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
        InvalidArgumentError: labels that do not broadcast to logits' shape (both are named),
            scalar logits or an axis out of range.
        TypeError: non-floating logits or different dtypes.

    >>> ek.nn.softmax_cross_entropy_with_logits(
    ...     labels=[[0.0, 1.0]], logits=[[1000.0, 0.0]]).numpy()
    array([1000.], dtype=float32)
    """
    op = "softmax_cross_entropy_with_logits"
    y, z = _labels_logits(labels, logits, op)
    a = single_axis(z, axis, op)
    zs, ys = tuple(z._value.shape), tuple(y._value.shape)
    if ys != zs:
        try:
            ok = np.broadcast_shapes(ys, zs) == zs
        except ValueError:
            ok = False
        if not ok:
            raise InvalidArgumentError(
                None,
                "SoftmaxCrossEntropyWithLogits",
                f"{op}: labels of shape {ys} do not match (or broadcast to) logits of shape {zs}.",
            )
        from .array_ops import broadcast_to

        y = broadcast_to(y, zs)
    return apply(_softmax_xent, (y, z), {"axis": a})


softmax_cross_entropy_with_logits_v2 = softmax_cross_entropy_with_logits


def _check_labels(labels, shape: tuple) -> None:
    """InvalidArgumentError unless every label is in ``[0, shape[-1])``."""
    n = shape[-1]
    if labels.size:
        lo, hi = int(labels.min()), int(labels.max())
        if lo < 0 or hi >= n:
            raise InvalidArgumentError(
                None,
                "SparseSoftmaxCrossEntropyWithLogits",
                "sparse_softmax_cross_entropy_with_logits: received a label value of "
                f"{lo if lo < 0 else hi} which is outside the valid range of [0, {n}) ({n} "
                f"classes, logits of shape {tuple(shape)}).",
            )


def _sparse_xent_fwd(xp, labels, logits):
    """``(loss, backprop)``: the loss, and while anything records ops, the gradient of the
    loss with respect to the logits, ``softmax(logits) - one_hot(labels)``, which TensorFlow's
    fused kernel also returns beside the loss (None otherwise: no VJP will ask for it).
    Checks the labels first, so that a graph function checks each call's."""
    _check_labels(labels, logits.shape)
    logp = log_softmax_fwd(xp, logits, -1)
    if not logp.size:
        return -xp.take_along_axis(logp, labels[..., None], axis=-1)[..., 0], None
    # Each row's entry at its label, picked as rows of a matrix (one indexing, no index arrays
    # broadcast over every axis as take_along_axis makes).
    picked = xp.arange(labels.size), labels.reshape(-1)
    loss = -logp.reshape(-1, logp.shape[-1])[picked].reshape(labels.shape)
    if not ACTIVE:
        return loss, None
    backprop = xp.exp(logp)
    backprop.reshape(-1, backprop.shape[-1])[picked] -= 1
    return loss, backprop


def _sparse_xent_vjp(g, ans, labels, logits, saved=None):
    ge = expand_reduced(g, logits, (logits.ndim - 1,), False)
    if saved is not None and not ACTIVE:
        # Nothing records this VJP, so no higher derivative is asked of it: the forward's
        # backprop serves as a constant (one op instead of four).
        return ge * make(saved, logits._device)
    # The same arithmetic as the forward's backprop, as ops (bit for bit: a traced step and
    # an eager one agree), differentiable for higher orders.
    n = logits._value.shape[-1]
    probs = exp(log_softmax(logits, -1))
    return ge * (probs - one_hot(labels, n, dtype=logits._value.dtype))


_sparse_xent = Primitive("SparseSoftmaxCrossEntropyWithLogits", _sparse_xent_fwd, saves=True)
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
        ValueError: rank or shape mismatch (both shapes are named; TensorFlow checks these
            in Python).
        InvalidArgumentError: a label outside ``[0, num_classes)`` (the label and the number
            of classes are named), as TensorFlow's CPU kernel.
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
