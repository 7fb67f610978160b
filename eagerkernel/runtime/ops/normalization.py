"""More of `tf.nn`: batch normalization (`batch_normalization`, `fused_batch_norm`), local
response normalization, the moment helpers (`sufficient_statistics`, `normalize_moments`,
`weighted_moments`), `crelu`, two losses (`weighted_cross_entropy_with_logits`,
`log_poisson_loss`) and `embedding_lookup_sparse`.

All are compositions of eagerkernel ops, as TensorFlow's Python implementations of them are,
so their gradients (of any order) are those of the ops they are built from.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ._core import dtype_error, float_check, tensor
from .activations import relu
from .array_ops import concat, pad, reshape, squeeze
from .elementwise import (
    abs,
    cast,
    exp,
    log,
    log1p,
    logical_and,
    pow,
    reciprocal,
    rsqrt,
    sqrt,
    square,
    squared_difference,
    where,
)
from .reduction import normalize_axis, reduce_mean, reduce_sum

__all__ = [
    "batch_normalization",
    "crelu",
    "embedding_lookup_sparse",
    "fused_batch_norm",
    "local_response_normalization",
    "log_poisson_loss",
    "lrn",
    "normalize_moments",
    "sufficient_statistics",
    "weighted_cross_entropy_with_logits",
    "weighted_moments",
]


def _like(value, x: Tensor, op: str, arg: str) -> Tensor:
    """``value`` as a tensor of ``x``'s dtype (Python numbers are converted; tensors must
    match)."""
    t = tensor(value, op, x._value.dtype)
    if t._value.dtype != x._value.dtype:
        raise dtype_error(op, (x, t), ("x", arg))
    return t


# -- batch normalization ------------------------------------------------------------------------


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None) -> Tensor:
    """``scale * (x - mean) / sqrt(variance + variance_epsilon) + offset`` (follows
    `tf.nn.batch_normalization`).

    Args:
        x: a floating tensor of any rank.
        mean, variance: tensors broadcastable to ``x`` (e.g. from `moments` with
            ``keepdims=True``, or 1-D over the last axis).
        offset: ``beta``, broadcastable, or None (0). scale: ``gamma``, or None (1).
        variance_epsilon: a small float, so that a zero variance does not divide by zero.

    Returns:
        ``x``'s shape and dtype; differentiable in every tensor argument.

    Raises:
        TypeError: non-floating ``x``, or arguments of another dtype.
        InvalidArgumentError: arguments that do not broadcast against ``x``.

    >>> x = ek.constant([[1.0, 2.0], [3.0, 6.0]])
    >>> ek.nn.batch_normalization(x, [2.0, 4.0], [1.0, 4.0], None, None, 0.0).numpy()
    array([[-1., -1.],
           [ 1.,  1.]], dtype=float32)
    """
    op = "batch_normalization"
    x = tensor(x, op)
    float_check(op, x, "x")
    inv = rsqrt(_like(variance, x, op, "variance") + variance_epsilon)
    if scale is not None:
        inv = inv * _like(scale, x, op, "scale")
    shift = -_like(mean, x, op, "mean") * inv
    if offset is not None:
        shift = shift + _like(offset, x, op, "offset")
    return x * inv + shift


def fused_batch_norm(
    x,
    scale,
    offset,
    mean=None,
    variance=None,
    epsilon=0.001,
    data_format="NHWC",
    is_training=True,
    name=None,
    exponential_avg_factor=1.0,
) -> tuple[Tensor, Tensor, Tensor]:
    """Batch normalization of a 4-D (or 5-D) tensor over all axes but the channels (follows
    `tf.compat.v1.nn.fused_batch_norm`).

    Training (``is_training=True``) normalizes with the batch's mean and (population)
    variance and returns them as ``(y, batch_mean, batch_variance)``, the variance with
    Bessel's correction (``* n / (n - 1)``, ``n`` the elements per channel) as TensorFlow's
    kernel does. With ``exponential_avg_factor`` ``f != 1`` the returned statistics are the
    running averages ``(1 - f) * mean + f * batch_mean`` (and the same for the variance), so
    ``mean`` and ``variance`` must be given. Inference normalizes with the given ``mean`` and
    ``variance`` and returns them.

    Args:
        x: shape ``[N, H, W, C]`` (``"NHWC"``), ``[N, C, H, W]`` (``"NCHW"``) or the 5-D
            ``"NDHWC"``/``"NCDHW"``; float16 or float32 (float64 is accepted too).
        scale, offset: 1-D of length ``C``.
        mean, variance: 1-D of length ``C``; required for inference and with an
            ``exponential_avg_factor`` other than 1.
        epsilon: added to the variance; values below 1.001e-5 are raised to it, as in TF.

    Returns:
        ``(y, mean, variance)``; all differentiable (training: through the batch statistics).

    Raises:
        ValueError: a rank other than 4 or 5, an unknown data_format, missing mean/variance
            where they are needed. InvalidArgumentError: 1-D arguments not of length ``C``.

    >>> y, m, v = ek.nn.fused_batch_norm(ek.reshape(ek.range(4.0), (4, 1, 1, 1)),
    ...                                  [1.0], [0.0], epsilon=0.0)
    >>> m.numpy(), v.numpy()
    (array([1.5], dtype=float32), array([1.6666666], dtype=float32))
    """
    op = "fused_batch_norm"
    x = tensor(x, op)
    float_check(op, x, "x")
    if x.ndim not in (4, 5):
        raise ValueError(f"{op}: x must have rank 4 or 5, got shape {x.shape}.")
    formats = {4: ("NHWC", "NCHW"), 5: ("NDHWC", "NCDHW")}[x.ndim]
    if data_format not in formats:
        raise ValueError(
            f"{op}: data_format must be one of {formats} for rank-{x.ndim} x, got {data_format!r}."
        )
    c_axis = 1 if data_format.startswith("NC") else x.ndim - 1
    channels = x.shape[c_axis]
    bshape = [1] * x.ndim
    bshape[c_axis] = channels
    factor = float(exponential_avg_factor)
    if (not is_training or factor != 1.0) and (mean is None or variance is None):
        why = "inference" if not is_training else "an exponential_avg_factor other than 1"
        raise ValueError(f"{op}: mean and variance must be given for {why}.")
    params = {}
    for arg, value in (
        ("scale", scale),
        ("offset", offset),
        ("mean", mean),
        ("variance", variance),
    ):
        if value is None:
            continue
        t = tensor(value, op, np.float32)
        if t.ndim != 1 or t.shape[0] != channels:
            raise InvalidArgumentError(
                None,
                op,
                f"{op}: {arg} must be 1-D of length {channels} (the channels of x of shape "
                f"{x.shape}, {data_format}), got shape {t.shape}.",
            )
        params[arg] = cast(t, x.dtype)
    epsilon = max(float(epsilon), 1.001e-5)  # TensorFlow's floor for the fused kernels
    axes = [i for i in range(x.ndim) if i != c_axis]

    def b(t):
        return reshape(t, bshape)

    if is_training:
        batch_mean = reduce_mean(x, axes)
        batch_var = reduce_mean(squared_difference(x, b(batch_mean)), axes)
        y = batch_normalization(
            x, b(batch_mean), b(batch_var), b(params["offset"]), b(params["scale"]), epsilon
        )
        n = x._value.size // max(channels, 1)
        corrected = batch_var * (n / max(n - 1, 1))
        if factor != 1.0:
            batch_mean = (1.0 - factor) * params["mean"] + factor * batch_mean
            corrected = (1.0 - factor) * params["variance"] + factor * corrected
        return y, batch_mean, corrected
    y = batch_normalization(
        x,
        b(params["mean"]),
        b(params["variance"]),
        b(params["offset"]),
        b(params["scale"]),
        epsilon,
    )
    return y, params["mean"], params["variance"]


def local_response_normalization(
    input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, name=None
) -> Tensor:
    """Local response normalization across channels (follows
    `tf.nn.local_response_normalization`, also `tf.nn.lrn`)::

        sqr_sum[a, b, c, d] = sum(input[a, b, c, d - depth_radius : d + depth_radius + 1] ** 2)
        output = input / (bias + alpha * sqr_sum) ** beta

    Args:
        input: a 4-D floating tensor (the last axis is the channels).
        depth_radius: half-width of the window (default 5). bias, alpha, beta: as above.

    Returns:
        ``input``'s shape and dtype; differentiable.

    Raises:
        InvalidArgumentError: input not 4-D. ValueError: a negative depth_radius.
        TypeError: non-floating input.

    >>> ek.nn.lrn(ek.ones((1, 1, 1, 3)), depth_radius=1, bias=0.0, beta=1.0).numpy().ravel()
    array([0.5       , 0.33333334, 0.5       ], dtype=float32)
    """
    op = "local_response_normalization"
    x = tensor(input, op)
    float_check(op, x, "input")
    if x.ndim != 4:
        raise InvalidArgumentError(None, op, f"{op}: input must be 4-D, got shape {x.shape}.")
    r = int(depth_radius)
    if r < 0:
        raise ValueError(f"{op}: depth_radius must be non-negative, got {depth_radius!r}.")
    c = x.shape[3]
    padded = pad(square(x), [[0, 0], [0, 0], [0, 0], [r, r]])
    sqr_sum = padded[..., 0:c]
    for k in range(1, 2 * r + 1):
        sqr_sum = sqr_sum + padded[..., k : k + c]
    return x * pow(bias + alpha * sqr_sum, -float(beta))


lrn = local_response_normalization


# -- moments ------------------------------------------------------------------------------------


def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    """The sufficient statistics of the mean and variance of ``x`` over ``axes`` (follows
    `tf.nn.sufficient_statistics`).

    Returns:
        ``(count, mean_ss, variance_ss, shift)``: the number of elements reduced (a scalar of
        ``x``'s dtype), ``sum(x - shift)`` and ``sum((x - shift) ** 2)`` over ``axes``, and
        ``shift`` (None if not given). Feed them to `normalize_moments`.

    >>> c, m, v, s = ek.nn.sufficient_statistics(ek.constant([1.0, 2.0, 3.0]), [0])
    >>> float(c), float(m), float(v), s
    (3.0, 6.0, 14.0, None)
    """
    op = "sufficient_statistics"
    t = tensor(x, op)
    float_check(op, t, "x")
    axes = normalize_axis(axes, t.ndim, op)
    count = 1
    for a in axes:
        count *= t.shape[a]
    counts = tensor(np.asarray(count, dtype=t._value.dtype), op)
    if shift is not None:
        shift = _like(shift, t, op, "shift")
        m_ss = reduce_sum(t - shift, axes, keepdims)
        v_ss = reduce_sum(squared_difference(t, shift), axes, keepdims)
    else:
        m_ss = reduce_sum(t, axes, keepdims)
        v_ss = reduce_sum(square(t), axes, keepdims)
    return counts, m_ss, v_ss, shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """Mean and variance from `sufficient_statistics` (follows `tf.nn.normalize_moments`):
    ``mean = mean_ss / counts + shift``, ``variance = variance_ss / counts - (mean_ss /
    counts) ** 2``.

    >>> m, v = ek.nn.normalize_moments(3.0, ek.constant(6.0), ek.constant(14.0), None)
    >>> float(m), round(float(v), 6)
    (2.0, 0.666667)
    """
    op = "normalize_moments"
    m_ss = tensor(mean_ss, op)
    divisor = reciprocal(tensor(counts, op, m_ss._value.dtype))
    shifted_mean = m_ss * divisor
    mean = shifted_mean if shift is None else shifted_mean + _like(shift, m_ss, op, "shift")
    variance = _like(variance_ss, m_ss, op, "variance_ss") * divisor - square(shifted_mean)
    return mean, variance


def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """Frequency-weighted mean and variance of ``x`` over ``axes`` (follows
    `tf.nn.weighted_moments`): ``mean = sum(w * x) / sum(w)``, ``variance = sum(w * (x -
    mean) ** 2) / sum(w)``, the weights broadcast against ``x``. float16 is computed in
    float32 and cast back.

    >>> m, v = ek.nn.weighted_moments(ek.constant([1.0, 3.0]), [0], ek.constant([3.0, 1.0]))
    >>> float(m), float(v)
    (1.5, 0.75)
    """
    op = "weighted_moments"
    t = tensor(x, op)
    float_check(op, t, "x")
    low = t._value.dtype == np.float16
    if low:
        t = cast(t, np.float32)
    w = cast(tensor(frequency_weights, op, t._value.dtype), t.dtype)
    axes = normalize_axis(axes, t.ndim, op)
    weighted_sum = reduce_sum(w * t, axes, keepdims=True)
    sum_of_weights = reduce_sum(w + t * 0, axes, keepdims=True)
    divisor = reciprocal(sum_of_weights)
    mean = weighted_sum * divisor
    variance = reduce_sum(w * squared_difference(t, mean), axes, keepdims=True) * divisor
    if not keepdims:
        mean, variance = squeeze(mean, axes), squeeze(variance, axes)
    if low:
        return cast(mean, np.float16), cast(variance, np.float16)
    return mean, variance


# -- activations and losses ---------------------------------------------------------------------


def crelu(features, axis=-1, name=None) -> Tensor:
    """Concatenated ReLU: ``concat([relu(x), relu(-x)], axis)`` (follows `tf.nn.crelu`), so the
    ``axis`` dimension doubles.

    >>> ek.nn.crelu(ek.constant([1.0, -2.0])).numpy()
    array([1., 0., 0., 2.], dtype=float32)
    """
    x = tensor(features, "crelu")
    return concat([relu(x), relu(-x)], axis)


def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None) -> Tensor:
    """Sigmoid cross-entropy with the positive term weighted by ``pos_weight`` (follows
    `tf.nn.weighted_cross_entropy_with_logits`)::

        labels * -log(sigmoid(logits)) * pos_weight + (1 - labels) * -log(1 - sigmoid(logits))

    computed stably as ``(1 - labels) * logits + (1 + (pos_weight - 1) * labels) *
    (log1p(exp(-|logits|)) + max(-logits, 0))``.

    Args:
        labels, logits: same shape, floating. pos_weight: a number or a tensor broadcast
            against them (> 1 raises recall, < 1 precision).

    Returns:
        The elementwise loss, ``logits``' shape; differentiable in all arguments.

    Raises:
        ValueError: labels and logits of different shapes (both named).

    >>> l = ek.nn.weighted_cross_entropy_with_logits([1.0, 0.0], [0.0, 0.0], 2.0)
    >>> l.numpy().round(4)
    array([1.3863, 0.6931], dtype=float32)
    """
    op = "weighted_cross_entropy_with_logits"
    z = tensor(logits, op)
    float_check(op, z, "logits")
    y = _like(labels, z, op, "labels")
    if y.shape != z.shape:
        raise ValueError(
            f"{op}: logits and labels must have the same shape, got logits {z.shape} and "
            f"labels {y.shape}."
        )
    q = _like(pos_weight, z, op, "pos_weight")
    log_weight = 1 + (q - 1) * y
    return (1 - y) * z + log_weight * (log1p(exp(-abs(z))) + relu(-z))


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None) -> Tensor:
    """Negative log-likelihood of ``targets`` under a Poisson with log-rate ``log_input``,
    without the constant ``log(targets!)`` (follows `tf.nn.log_poisson_loss`):
    ``exp(log_input) - log_input * targets``; with ``compute_full_loss`` Stirling's
    approximation ``targets * log(targets) - targets + 0.5 * log(2 * pi * targets)`` is added
    where ``targets > 1``.

    Raises:
        ValueError: targets and log_input of different shapes.

    >>> ek.nn.log_poisson_loss(ek.constant([2.0]), ek.constant([0.0])).numpy()
    array([1.], dtype=float32)
    """
    op = "log_poisson_loss"
    li = tensor(log_input, op)
    float_check(op, li, "log_input")
    t = _like(targets, li, op, "targets")
    if t.shape != li.shape:
        raise ValueError(
            f"{op}: log_input and targets must have the same shape, got log_input {li.shape} "
            f"and targets {t.shape}."
        )
    result = exp(li) - li * t
    if compute_full_loss:
        # Zero where 0 <= targets <= 1 (as TF); there log() sees 1, so no NaN reaches the
        # gradient (negative targets give NaN, as in TF).
        small = logical_and(t >= 0, t <= 1)
        safe = where(small, tensor(np.ones(t.shape, t._value.dtype), op), t)
        stirling = safe * log(safe) - safe + 0.5 * log(2 * math.pi * safe)
        result = result + where(small, t * 0, stirling)
    return result


# -- embeddings ---------------------------------------------------------------------------------


def embedding_lookup_sparse(
    params, sp_ids, sp_weights, combiner=None, max_norm=None, name=None, allow_fast_lookup=False
) -> Tensor:
    """Embeddings of the ids of each row of a 2-D sparse tensor, combined per row (follows
    `tf.nn.embedding_lookup_sparse`).

    Args:
        params: ``[vocab, dim...]`` (or a list of one such tensor).
        sp_ids: a 2-D `ek.sparse.SparseTensor` of integer ids ``[N, M]``.
        sp_weights: a SparseTensor of float weights with ``sp_ids``' indices, or None (1).
        combiner: ``"mean"`` (default: weighted sum / total weight), ``"sqrtn"`` (weighted
            sum / sqrt(sum of squared weights)) or ``"sum"``.
        max_norm: if given, each embedding is clipped to this L2 norm before combining.
        allow_fast_lookup: accepted for compatibility; the lookup is the same.

    Returns:
        ``[N, dim...]``; rows without ids are zeros. Differentiable in ``params`` and the
        weights.

    Raises:
        TypeError: sp_ids or sp_weights not SparseTensors. ValueError: an unknown combiner,
            sp_ids not 2-D, weights with another number of values.

    >>> params = ek.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    >>> ids = ek.sparse.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0]], [0, 1, 3, 2], [3, 2])
    >>> ek.nn.embedding_lookup_sparse(params, ids, None, combiner="sum").numpy()
    array([[4., 6.],
           [7., 8.],
           [5., 6.]], dtype=float32)
    """
    from ..sparse.sparse_tensor import SparseTensor
    from .nn import embedding_lookup
    from .segment_ops import unsorted_segment_sum

    op = "embedding_lookup_sparse"
    combiner = "mean" if combiner is None else combiner
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(
            f"{op}: combiner must be one of 'mean', 'sqrtn' and 'sum', got {combiner!r}."
        )
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"{op}: sp_ids must be a SparseTensor, got {type(sp_ids).__name__}.")
    if sp_weights is not None and not isinstance(sp_weights, SparseTensor):
        raise TypeError(
            f"{op}: sp_weights must be a SparseTensor or None, got {type(sp_weights).__name__}."
        )
    dense_shape = [int(d) for d in sp_ids.dense_shape.numpy()]
    if len(dense_shape) != 2:
        raise ValueError(f"{op}: sp_ids must be 2-D, got dense_shape {dense_shape}.")
    rows = sp_ids.indices[:, 0]
    embeddings = embedding_lookup(params, sp_ids.values, max_norm=max_norm)
    extra = [1] * (embeddings.ndim - 1)
    if sp_weights is None:
        weights = tensor(np.ones(sp_ids.values.shape, embeddings._value.dtype), op)
    else:
        weights = cast(sp_weights.values, embeddings.dtype)
        if weights.shape != sp_ids.values.shape:
            raise ValueError(
                f"{op}: sp_weights must have the values of sp_ids ({sp_ids.values.shape[0]}), "
                f"got {weights.shape[0]}."
            )
        embeddings = embeddings * reshape(weights, [-1, *extra])
    n = dense_shape[0]
    total = unsorted_segment_sum(embeddings, rows, n)
    if combiner == "sum":
        return total
    if combiner == "mean":
        norm = unsorted_segment_sum(weights, rows, n)
    else:
        norm = sqrt(unsorted_segment_sum(square(weights), rows, n))
    # Rows without ids: 0 / 1 rather than 0 / 0.
    norm = where(norm > 0, norm, tensor(np.ones(norm.shape, norm._value.dtype), op))
    return total / reshape(norm, [-1, *extra])
