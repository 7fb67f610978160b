"""Neural-network ops (`ek.nn`): dropout, bias_add, moments, l2 loss and normalization, and
the namespace that gathers the rest.

The namespace is TensorFlow's ``tf.nn``: activations live in `activations.py`, the
cross-entropies in `cross_entropy.py`, convolution in `conv.py`, pooling in `pool2d.py`; they
are all re-exported here. Each op's forward is followed by its VJPs, written with eagerkernel ops so
that they can be differentiated again.
"""

from __future__ import annotations

import numbers

import numpy as np

from .. import random as _random
from ..core.dispatch import Primitive, defvjp, stateful
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, make
from ..native import parallel
from ..random_stateful import get_seed as _get_seed
from ._core import apply, dtype_error, float_check, tensor, unary
from .activations import (
    elu,
    gelu,
    leaky_relu,
    log_sigmoid,
    log_softmax,
    relu,
    relu6,
    selu,
    silu,
    softmax,
    softplus,
    softsign,
    swish,
)
from .array_ops import broadcast_to, reshape
from .cross_entropy import (
    sigmoid_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits_v2,
    sparse_softmax_cross_entropy_with_logits,
)

# `sigmoid` and `tanh` are the elementwise ops, exported again under `ek.nn`.
from .elementwise import cast, sigmoid, tanh, where
from .rearrange_ops import depth_to_space, space_to_depth  # tf.nn's names for them
from .reduction import normalize_axis, reduce_sum, sum_forward

__all__ = [
    "approx_max_k",
    "approx_min_k",
    "atrous_conv2d",
    "atrous_conv2d_transpose",
    "avg_pool",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "batch_normalization",
    "bias_add",
    "compute_accidental_hits",
    "compute_average_loss",
    "conv1d",
    "conv1d_transpose",
    "conv2d",
    "conv2d_transpose",
    "conv3d",
    "conv3d_transpose",
    "conv_transpose",
    "convolution",
    "crelu",
    "ctc_beam_search_decoder",
    "ctc_greedy_decoder",
    "ctc_loss",
    "depth_to_space",
    "depthwise_conv2d",
    "dilation2d",
    "dropout",
    "elu",
    "embedding_lookup",
    "embedding_lookup_sparse",
    "erosion2d",
    "fixed_unigram_candidate_sampler",
    "fractional_avg_pool",
    "fractional_max_pool",
    "fused_batch_norm",
    "gelu",
    "in_top_k",
    "isotonic_regression",
    "l2_loss",
    "l2_normalize",
    "leaky_relu",
    "local_response_normalization",
    "log_poisson_loss",
    "log_sigmoid",
    "log_softmax",
    "log_uniform_candidate_sampler",
    "lrn",
    "max_pool",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "max_pool_with_argmax",
    "moments",
    "nce_loss",
    "normalize_moments",
    "pool",
    "relu",
    "relu6",
    "safe_embedding_lookup_sparse",
    "sampled_softmax_loss",
    "scale_regularization_loss",
    "selu",
    "separable_conv2d",
    "sigmoid",
    "sigmoid_cross_entropy_with_logits",
    "silu",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2",
    "softplus",
    "softsign",
    "space_to_batch",
    "space_to_depth",
    "sparse_softmax_cross_entropy_with_logits",
    "sufficient_statistics",
    "swish",
    "tanh",
    "top_k",
    "uniform_candidate_sampler",
    "weighted_cross_entropy_with_logits",
    "weighted_moments",
    "zero_fraction",
]

# -- regularization and normalization -----------------------------------------------------------


def dropout(x, rate=None, noise_shape=None, seed=None, name=None, keep_prob=None) -> Tensor:
    """Zeroes each element with probability ``rate`` and scales the rest by ``1 / (1 - rate)``
    (follows `tf.nn.dropout`): ``where(uniform(noise_shape, dtype=x.dtype, seed) >= rate,
    x * (1 / (1 - rate)), 0)``, the uniform numbers `ek.random.uniform`'s (TensorFlow's, on
    the CPU). A Python ``rate`` of 0 returns ``x`` (drawing an op seed as a draw would).

    Args:
        x: a floating tensor.
        rate: drop probability, a number in [0, 1) or a scalar tensor (``x / (1 - rate)``
            then). ``keep_prob`` (TensorFlow 1.x) may be given instead: ``rate = 1 - keep_prob``.
        noise_shape: the shape of the random keep/drop mask, broadcast against ``x`` (e.g.
            ``[batch, 1, 1, channels]`` drops whole channels); None entries take ``x``'s size.
        seed: op-level seed; with `ek.random.set_seed` it makes the mask reproducible.

    Returns:
        Same shape and dtype as ``x``. The gradient is the same mask times the same scale.

    Raises:
        ValueError: a number ``rate`` outside [0, 1), a non-scalar ``rate``, non-floating
            ``x``. InvalidArgumentError: a ``noise_shape`` that does not broadcast.

    >>> y = ek.nn.dropout(ek.ones((1000,)), rate=0.5, seed=1)
    >>> sorted(set(y.numpy().tolist()))
    [0.0, 2.0]
    """
    if keep_prob is not None:
        if rate is not None:
            raise ValueError("dropout: give rate or keep_prob, not both.")
        rate = 1 - float(keep_prob)
    if rate is None:
        raise ValueError("dropout: rate must be given.")
    t, rate, scaled = _dropout_input(x, rate, "dropout")
    if scaled is None:  # TF's fast path still takes the op seed a draw would take
        if not callable(seed):
            _get_seed(seed)
        return t
    keep = _dropout_keep(_mask_shape(t, noise_shape), rate, t._value.dtype, t._device, seed)
    return where(keep, scaled, 0.0)


def _dropout_input(x, rate, op: str) -> tuple:
    """``(x, rate, x scaled)`` as TF's ``_dropout`` checks and computes them: ``rate`` a
    number in ``x``'s dtype, ``x scaled`` None for a Python rate of 0."""
    if isinstance(rate, numbers.Real) and not 0 <= rate < 1:
        raise ValueError(f"{op}: rate must be a scalar in [0, 1), got {rate!r}.")
    t = tensor(x, op)
    dt = t._value.dtype
    if dt.kind != "f":
        raise ValueError(
            f"{op}: x must be a floating-point tensor (it is scaled by 1 / (1 - rate)). "
            f"Received: x_dtype={t.dtype.name}"
        )
    if isinstance(rate, numbers.Real):
        if rate == 0:
            return t, 0.0, None
        return t, float(dt.type(rate)), t * make(np.asarray(1 / (1 - rate), dt), t._device)
    if not isinstance(rate, Tensor) or rate.shape.rank != 0:
        raise ValueError(f"{op}: rate must be a scalar or scalar tensor, got {rate!r:.80}.")
    if rate.dtype != t.dtype:
        raise ValueError(
            f"{op}: x.dtype must be compatible with rate.dtype. Received: "
            f"x.dtype={t.dtype.name} and rate.dtype={rate.dtype.name}"
        )
    return t, float(rate.numpy()), t / (make(np.asarray(1, dt), t._device) - rate)


def _mask_shape(t: Tensor, noise_shape) -> tuple:
    """Dropout's mask shape: ``noise_shape`` with None entries taking ``t``'s sizes (``t``'s
    shape when None); InvalidArgumentError if it does not broadcast to ``t``'s shape."""
    shape = tuple(t._value.shape)
    if noise_shape is None:
        return shape
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
    if not ok:  # TensorFlow finds out when it multiplies: InvalidArgumentError
        raise InvalidArgumentError(
            None,
            "dropout",
            f"dropout: noise_shape {tuple(noise_shape)} does not broadcast to x's shape {shape}.",
        )
    return mask_shape


def stateless_dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None) -> Tensor:
    """Dropout whose mask is determined by ``seed`` (follows
    `tf.nn.experimental.stateless_dropout`): ``x / (1 - rate)`` where
    ``tf.random.stateless_uniform(noise_shape, seed, dtype=x.dtype, alg=rng_alg) >= rate``,
    else 0; the same numbers as TensorFlow's for the same seed.

    Args:
        x: a floating tensor. rate: drop probability in [0, 1). seed: shape [2] integers.
        rng_alg: the stateless algorithm (None: ``"auto_select"``). noise_shape: as `dropout`.

    Raises:
        ValueError: a number ``rate`` outside [0, 1), non-floating ``x``.
        InvalidArgumentError: a bad seed, or a ``noise_shape`` that does not broadcast.

    >>> ek.nn.experimental.stateless_dropout(ek.ones([6]), 0.5, seed=[1, 2]).numpy()
    array([2., 0., 2., 0., 0., 2.], dtype=float32)
    """
    from ..random import stateless_uniform

    t, rate, scaled = _dropout_input(x, rate, "stateless_dropout")
    if scaled is None:
        return t
    uniform = stateless_uniform(
        _mask_shape(t, noise_shape),
        seed,
        dtype=t.dtype,
        alg="auto_select" if rng_alg is None else rng_alg,
    )
    return where(uniform >= make(np.asarray(rate, t._value.dtype), uniform._device), scaled, 0.0)


@stateful  # a fresh mask on every call of a graph function
def _dropout_keep(shape: tuple, rate: float, dtype, device, seed) -> Tensor:
    """Dropout's keep mask, TF's ``random_uniform(shape, dtype, seed=seed) >= rate`` (bool).

    ``seed`` is an op-level seed, None, or a zero-argument callable giving one (a Keras
    layer's seed stream: called here, so that a graph function draws a new one per call)."""
    if callable(seed):
        seed = seed()
    keep = _random.uniform(shape, dtype=dtype, seed=seed).numpy() >= np.asarray(rate, dtype)
    return make(device.xp.asarray(keep) if device.xp is not np else keep, device)


_l2_loss = Primitive("L2Loss", lambda xp, x: xp.sum(x * x) / 2)
defvjp(_l2_loss, lambda g, ans, x: g * x)
_l2_loss_op = unary(_l2_loss, float_only="real")


def l2_loss(t, name=None) -> Tensor:
    """``sum(t ** 2) / 2``, a scalar (follows `tf.nn.l2_loss`).

    Raises:
        TypeError: for non-floating input.

    >>> ek.nn.l2_loss(ek.constant([3.0, 4.0])).numpy()
    np.float32(12.5)
    """
    return _l2_loss_op(t)


def _bias_add_fwd(xp, x, b, channel_axis):
    if channel_axis != x.ndim - 1:
        b = b.reshape((-1,) + (1,) * (x.ndim - 1 - channel_axis))
    if xp is not np or x.ndim < 2 or x.size < parallel.ROWS_SPLIT_MIN:
        return x + b
    out = np.empty(x.shape, np.result_type(x, b))  # a large batch: its rows over the cores
    parallel.run_rows(lambda lo, hi: np.add(x[lo:hi], b, out=out[lo:hi]), len(x), x.size)
    return out


def _bias_add_grad_fwd(xp, g, channel_axis):
    axes = tuple(i for i in range(g.ndim) if i != channel_axis)
    return sum_forward(xp, g, axes, False)


# TF's BiasAddGrad: the bias's cotangent, ``g`` summed over every axis but the channel axis.
_bias_add_grad = Primitive("BiasAddGrad", _bias_add_grad_fwd)
defvjp(
    _bias_add_grad,
    # Each element of g received the bias's element of its channel: broadcast h back.
    lambda h, ans, g, channel_axis: broadcast_to(
        h
        if channel_axis == g._value.ndim - 1
        else reshape(h, [-1] + [1] * (g._value.ndim - 1 - channel_axis)),
        list(g._value.shape),
    ),
)

_bias_add = Primitive("BiasAdd", _bias_add_fwd)
defvjp(
    _bias_add,
    lambda g, ans, x, b, channel_axis: g,
    lambda g, ans, x, b, channel_axis: apply(_bias_add_grad, (g,), {"channel_axis": channel_axis}),
)


def bias_add_op(value, bias, channel_axis: int) -> Tensor:
    """The BiasAdd op itself on operands the caller has already checked: `bias_add` without
    its conversion and checks (a Dense layer's, after its own).

    Args:
        value: a Tensor of rank >= 2.
        bias: a 1-D Tensor or Variable of ``value``'s dtype, of length ``value``'s size on
            ``channel_axis``.
        channel_axis: a non-negative int (``value.ndim - 1`` for channels last).

    Returns:
        ``value``'s shape and dtype, recorded as TensorFlow's ``BiasAdd``.

    Raises:
        Nothing of its own: operands that do not fit give NumPy's error (the public
        `bias_add` names the shapes instead).
    """
    return apply(_bias_add, (value, bias), {"channel_axis": channel_axis})


def bias_add(value, bias, data_format=None, name=None) -> Tensor:
    """Adds a 1-D ``bias`` along the channel axis of ``value`` (follows `tf.nn.bias_add`).

    Args:
        value: rank >= 2.
        bias: shape ``[channels]``, same dtype.
        data_format: None or channels last (``"NHWC"``, ``"NWC"``, ``"NDHWC"``, ...: the last
            axis) or channels first (``"NCHW"``, ``"NCW"``, ...: axis 1).

    Raises:
        InvalidArgumentError: bias not 1-D, value of rank < 2, or the bias length not the
            channel count (shapes named).
        ValueError: a bad ``data_format``. TypeError: different dtypes.

    >>> ek.nn.bias_add(ek.zeros((2, 3)), ek.constant([1.0, 2.0, 3.0])).numpy()[1]
    array([1., 2., 3.], dtype=float32)
    """
    x = tensor(value, "bias_add")
    b = tensor(bias, "bias_add", x._value.dtype)
    if x._value.dtype != b._value.dtype:
        raise dtype_error("bias_add", (x, b), ("value", "bias"))
    xs, bs = tuple(x._value.shape), tuple(b._value.shape)
    if len(bs) != 1 or len(xs) < 2:
        raise InvalidArgumentError(
            None,
            "BiasAdd",
            f"bias_add: value must have rank >= 2 and bias rank 1, got value: {xs}, bias: {bs}.",
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
        raise InvalidArgumentError(
            None,
            "BiasAdd",
            f"bias_add: bias of shape {bs} must match the channel axis {c} of value of shape "
            f"{xs} ({data_format or 'channels last'}).",
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
    axes = normalize_axis(axis, t.ndim, "l2_normalize")
    if t._value.dtype.kind == "c":  # TensorFlow's: the real and imaginary parts scaled alike
        from .complex_ops import complex as make_complex
        from .complex_ops import imag, real

        re, im = real(t), imag(t)
        square_sum = reduce_sum(re * re + im * im, axes, keepdims=True)
        inverse = rsqrt(maximum(square_sum, epsilon))
        return make_complex(re * inverse, im * inverse)
    square_sum = reduce_sum(t * t, axes, keepdims=True)
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

    # With 1-D params the axes are empty and each looked-up scalar is clipped by its absolute
    # value, as TensorFlow's clip_by_norm(axes=[]) does.
    axes = list(range(rows.ndim - (tensor(params, "embedding_lookup").ndim - 1), rows.ndim))
    return clip_by_norm(rows, max_norm, axes=axes)


# -- losses under a distribution strategy (tf.distribute's custom-training helpers) ------------


def _replicas_in_sync(where: str) -> int:
    from ..distribute import context as distribute_context

    if distribute_context.in_cross_replica_context():
        raise RuntimeError(
            f"You are calling `{where}` in cross replica context, while it was expected to be "
            "called in replica context."
        )
    return distribute_context.get_strategy().num_replicas_in_sync


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """The sum of the per-example losses (times ``sample_weight``) divided by the global batch
    size (follows `tf.nn.compute_average_loss`): summed over the replicas of a strategy, the
    mean loss of the global batch.

    Args:
        per_example_loss: a Tensor of shape ``[batch, ...]``.
        sample_weight: optional weights, broadcast against ``per_example_loss``.
        global_batch_size: default: this replica's batch size (axis 0) times
            ``num_replicas_in_sync``.

    Raises:
        RuntimeError: called in cross-replica context (inside a strategy's scope, outside
            ``run``). ValueError: a non-positive ``global_batch_size``.

    >>> ek.nn.compute_average_loss(ek.constant([1.0, 2.0, 3.0]), global_batch_size=6).numpy()
    np.float32(1.0)
    """
    from .elementwise import divide, multiply

    loss = tensor(per_example_loss, "compute_average_loss")
    if sample_weight is not None:
        loss = multiply(loss, cast(tensor(sample_weight, "compute_average_loss"), loss.dtype))
    if global_batch_size is None:
        if loss.shape.rank == 0:
            raise ValueError("compute_average_loss: per_example_loss must have a batch axis.")
        global_batch_size = loss.shape[0] * _replicas_in_sync("compute_average_loss")
    global_batch_size = int(global_batch_size)
    if global_batch_size <= 0:
        raise ValueError(
            f"compute_average_loss: global_batch_size must be positive. Received: "
            f"global_batch_size={global_batch_size}"
        )
    total = reduce_sum(loss)
    return divide(total, np.asarray(global_batch_size, dtype=total._value.dtype))


def scale_regularization_loss(regularization_loss):
    """The sum of ``regularization_loss`` divided by the number of replicas in sync (follows
    `tf.nn.scale_regularization_loss`), so that summed over replicas it counts once.

    Raises:
        RuntimeError: called in cross-replica context.

    >>> ek.nn.scale_regularization_loss(ek.constant([0.5, 1.5])).numpy()
    np.float32(2.0)
    """
    from .elementwise import divide

    total = reduce_sum(tensor(regularization_loss, "scale_regularization_loss"))
    n = _replicas_in_sync("scale_regularization_loss")
    return divide(total, np.asarray(n, dtype=total._value.dtype))


from .candidate_sampling import (  # noqa: E402
    compute_accidental_hits,
    fixed_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from .conv import conv2d, conv2d_transpose  # noqa: E402
from .conv_more import (  # noqa: E402
    avg_pool,
    avg_pool1d,
    avg_pool3d,
    conv1d,
    conv1d_transpose,
    conv3d,
    conv3d_transpose,
    conv_transpose,
    convolution,
    depthwise_conv2d,
    max_pool,
    max_pool1d,
    max_pool3d,
    separable_conv2d,
)
from .ctc import ctc_beam_search_decoder, ctc_greedy_decoder, ctc_loss  # noqa: E402
from .isotonic import isotonic_regression  # noqa: E402
from .math_more import zero_fraction  # noqa: E402  (tf.nn's names for these tf.math ops)
from .math_ops import in_top_k, top_k  # noqa: E402
from .morphology import dilation2d, erosion2d  # noqa: E402
from .nn_more import (  # noqa: E402
    approx_max_k,
    approx_min_k,
    atrous_conv2d,
    atrous_conv2d_transpose,
    max_pool_with_argmax,
)
from .normalization import (  # noqa: E402
    batch_normalization,
    crelu,
    embedding_lookup_sparse,
    fused_batch_norm,
    local_response_normalization,
    log_poisson_loss,
    lrn,
    normalize_moments,
    sufficient_statistics,
    weighted_cross_entropy_with_logits,
    weighted_moments,
)
from .pool2d import avg_pool2d, max_pool2d  # noqa: E402
from .pooling import pool  # noqa: E402
from .pooling_fractional import fractional_avg_pool, fractional_max_pool  # noqa: E402
from .rearrange_ops import space_to_batch  # noqa: E402
from .safe_embedding import safe_embedding_lookup_sparse  # noqa: E402
from .sampled_losses import nce_loss, sampled_softmax_loss  # noqa: E402
