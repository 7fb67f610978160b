"""`keras.ops` neural-network and core functions missing from the first parts: attention,
normalization, CTC, rearrangement, transposed and separable convolution, adaptive pooling,
and the functional control flow of ``keras/src/ops/core.py`` (``map``, ``scan``,
``associative_scan``, ``switch``, ``custom_gradient``). Each composes eagerkernel's ops, so
gradients flow (the CTC decoder and ``view`` excepted)."""

from __future__ import annotations

import math as _math

import numpy as np

from ... import nest
from ...autodiff import custom_gradient as _custom_gradient
from ...core.errors import InvalidArgumentError
from ...ops import ctc as ctc_ops
from ..layers.conv_base import deconv_length
from ._base import floatx, keras_op, promote, result_type, to_tensor
from ._tf import tf
from .nn import (
    checked_data_format,
    conv,
    depthwise_conv,
    from_channels_last,
    softmax,
    to_channels_last,
)

# fmt: off
__all__ = [
    "adaptive_average_pool", "adaptive_max_pool", "associative_scan", "conv_transpose",
    "ctc_decode", "ctc_loss", "custom_gradient", "depth_to_space", "dot_product_attention",
    "fold", "get_item", "layer_normalization", "map", "psnr", "rms_normalization",
    "saturate_cast", "scan", "separable_conv", "space_to_depth", "sparse_sigmoid", "sparsemax",
    "switch", "unfold", "vectorize", "view",
]
# fmt: on


def _ntuple(v, n):
    return [int(v)] * n if isinstance(v, (int, np.integer)) else [int(a) for a in v]


def _compute_float(x):
    """``x`` in at least float32, and its dtype to return in (Keras normalizes half
    precision in float32)."""
    x = to_tensor(x)
    original = x.dtype if x.dtype.is_floating else to_tensor(0.0).dtype
    compute = result_type(x, to_tensor(np.float32(0)))
    return tf.cast(x, compute), original


# -- activations --------------------------------------------------------------------------------


@keras_op
def sparse_sigmoid(x):
    """0 below -1, 1 above 1, ``(x + 1) / 2`` between (follows `keras.ops.sparse_sigmoid`)."""
    x = to_tensor(x)
    x = x if x.dtype.is_floating else tf.cast(x, floatx())
    return tf.clip_by_value((x + 1.0) * 0.5, 0.0, 1.0)


@keras_op
def sparsemax(x, axis=-1):
    """The Euclidean projection of ``x`` onto the simplex along ``axis`` (follows
    `keras.ops.sparsemax`): sparse probabilities."""
    x = to_tensor(x)
    x = x if x.dtype.is_floating else tf.cast(x, floatx())
    rank = x.shape.rank
    if rank == 0:  # TensorFlow fails slicing a scalar: InvalidArgumentError too
        raise InvalidArgumentError("keras.ops.sparsemax: x must have at least 1 dimension.")
    axis = axis % rank
    z = -tf.sort(-x, axis=axis)  # descending
    cumsum = tf.cumsum(z, axis=axis)
    shape = [1] * rank
    shape[axis] = -1
    k = tf.reshape(tf.range(1, int(x.shape[axis]) + 1, dtype=x.dtype), shape)
    support = tf.cast(1.0 + k * z > cumsum, x.dtype)
    k_z = tf.reduce_sum(support, axis=axis, keepdims=True)
    tau = (tf.reduce_sum(support * z, axis=axis, keepdims=True) - 1.0) / k_z
    return tf.maximum(x - tau, tf.zeros_like(x))


# -- normalization, attention and metrics -------------------------------------------------------


@keras_op
def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, **kwargs):
    """``(x - mean) / sqrt(var + epsilon) * gamma + beta`` over ``axis`` (follows
    `keras.ops.layer_normalization`); ``rms_scaling=True`` skips centering, ``epsilon``
    defaults to ``keras.backend.epsilon()``. Computed in float32 or wider, returned in the
    dtype of ``x``."""
    from ..backend import epsilon as _epsilon

    rms_scaling = kwargs.pop("rms_scaling", False)
    if kwargs:
        raise TypeError(f"keras.ops.layer_normalization: unexpected arguments {sorted(kwargs)}")
    eps = _epsilon() if epsilon is None else epsilon
    x, original = _compute_float(x)
    rank = x.shape.rank
    axes = sorted(a % rank for a in ([axis] if isinstance(axis, int) else axis))
    shape = [int(x.shape[a]) if a in axes else 1 for a in range(rank)]

    def bcast(v):
        v = to_tensor(v, x.dtype)
        return v if v.shape.rank == rank else tf.reshape(v, shape)

    mean = tf.reduce_mean(x, axis=axes, keepdims=True)
    var = tf.reduce_mean(tf.square(x - mean), axis=axes, keepdims=True)
    inv = tf.rsqrt(var + eps)
    if gamma is not None:
        inv = inv * bcast(gamma)
    out = x * inv if rms_scaling else (x - mean) * inv
    if beta is not None and not rms_scaling:
        out = out + bcast(beta)
    return tf.cast(out, original)


@keras_op
def rms_normalization(x, scale=None, axis=-1, epsilon=None):
    """``x / sqrt(mean(x**2) + epsilon) * scale`` over ``axis`` (follows
    `keras.ops.rms_normalization`); ``epsilon`` defaults to ``keras.backend.epsilon()``."""
    from ..backend import epsilon as _epsilon

    eps = _epsilon() if epsilon is None else epsilon
    x, original = _compute_float(x)
    rank = max(x.shape.rank, 1)
    if x.shape.rank == 0:
        x = tf.reshape(x, [1])
    axes = sorted(a % rank for a in ([axis] if isinstance(axis, int) else axis))
    out = x * tf.rsqrt(tf.reduce_mean(tf.square(x), axis=axes, keepdims=True) + eps)
    if scale is not None:
        out = out * to_tensor(scale, x.dtype)
    return tf.cast(out, original)


@keras_op
def dot_product_attention(
    query,
    key,
    value,
    bias=None,
    mask=None,
    scale=None,
    is_causal=False,
    flash_attention=None,
    attn_logits_soft_cap=None,
):
    """``softmax(q k^T * scale + bias) v`` per head (follows `keras.ops.dot_product_attention`).

    Shapes: ``query`` ``(B, T, N, H)``, ``key``/``value`` ``(B, S, K, H)`` with ``N`` a
    multiple of ``K`` (grouped-query attention repeats key/value heads); ``bias``/``mask``
    broadcast to ``(B, N, T, S)``; ``scale`` defaults to ``1 / sqrt(H)``. Softmax runs in
    float32. ``flash_attention=True`` raises ValueError (no fused kernel here).
    """
    if flash_attention:
        raise ValueError(
            "keras.ops.dot_product_attention: flash attention is not supported. "
            f"Received: flash_attention={flash_attention}"
        )
    q, k, v = promote(query, key, value)
    if q.shape.rank != 4 or k.shape.rank != 4 or v.shape.rank != 4:
        raise ValueError(
            "keras.ops.dot_product_attention: only 4-D inputs are supported. Received: "
            f"query.shape={q.shape}, key.shape={k.shape}, value.shape={v.shape}"
        )
    heads, kv_heads = int(q.shape[2]), int(k.shape[2])
    if heads % kv_heads:
        raise ValueError(
            "keras.ops.dot_product_attention: query heads must be a multiple of key heads. "
            f"Received: query.shape={q.shape}, key.shape={k.shape}"
        )
    if heads != kv_heads:
        k = tf.repeat(k, heads // kv_heads, axis=2)
        v = tf.repeat(v, heads // kv_heads, axis=2)
    original = q.dtype
    scale = 1.0 / _math.sqrt(int(k.shape[-1])) if scale is None else scale
    logits = tf.cast(tf.einsum("BTNH,BSNH->BNTS", q, k), "float32") * float(scale)
    if attn_logits_soft_cap is not None:
        cap = float(attn_logits_soft_cap)
        logits = cap * tf.tanh(logits / cap)
    if bias is not None:
        logits = logits + to_tensor(bias, logits.dtype)
    keep = None
    if mask is not None:
        keep = tf.cast(to_tensor(mask), "bool")
    if is_causal:
        t, s = int(logits.shape[2]), int(logits.shape[3])
        causal = to_tensor(np.tril(np.ones((t, s), dtype=bool)))
        keep = causal if keep is None else tf.logical_and(keep, causal)
    if keep is not None:
        keep = tf.logical_and(keep, tf.fill(list(logits.shape), True))
        big = to_tensor(-0.7 * np.finfo(np.float32).max, logits.dtype)
        logits = tf.where(keep, logits, tf.zeros_like(logits) + big)
    probs = tf.cast(softmax(logits, axis=-1), original)
    return tf.einsum("BNTS,BSNH->BTNH", probs, v)


@keras_op
def psnr(x1, x2, max_val):
    """The peak signal-to-noise ratio ``20 log10(max_val) - 10 log10(mse)`` in dB (follows
    `keras.ops.psnr`); ValueError when the shapes differ."""
    x1, x2 = promote(x1, x2)
    if x1.shape != x2.shape:
        raise ValueError(
            f"keras.ops.psnr: x1 and x2 must have the same shape. Received: {x1.shape}, {x2.shape}"
        )
    x1 = x1 if x1.dtype.is_floating else tf.cast(x1, floatx())
    x2 = tf.cast(x2, x1.dtype)
    mse = tf.reduce_mean(tf.square(x1 - x2))
    log10 = _math.log(10.0)
    max_val = to_tensor(max_val, x1.dtype)
    return 20.0 * tf.log(max_val) / log10 - 10.0 * tf.log(mse) / log10


# -- CTC ----------------------------------------------------------------------------------------


@keras_op
def ctc_loss(target, output, target_length, output_length, mask_index=0):
    """The CTC loss per batch item (follows `keras.ops.ctc_loss`): ``target`` ``(batch,
    max_length)`` int labels, ``output`` ``(batch, max_time, num_classes)`` logits,
    ``mask_index`` the blank class."""
    output = to_tensor(output)
    output = tf.cast(output, result_type(output, to_tensor(np.float32(0))))
    return ctc_ops.ctc_loss(
        tf.cast(to_tensor(target), "int32"),
        output,
        tf.cast(to_tensor(target_length), "int32"),
        tf.cast(to_tensor(output_length), "int32"),
        logits_time_major=False,
        blank_index=mask_index,
    )


@keras_op
def ctc_decode(
    inputs,
    sequence_lengths,
    strategy="greedy",
    beam_width=100,
    top_paths=1,
    merge_repeated=True,
    mask_index=0,
):
    """Decodes ``inputs`` ``(batch, max_time, num_classes)`` logits (follows
    `keras.ops.ctc_decode`): ``(decoded, scores)``, ``decoded`` int32 ``(top_paths, batch,
    max_time)`` padded with -1 and ``scores`` ``(batch, top_paths)``. Greedy scores are minus
    the sum of each frame's greatest logit; ``"beam_search"`` scores are log-probabilities.
    No gradient."""
    logits = np.asarray(to_tensor(inputs).numpy(), dtype=np.float32)
    lengths = np.asarray(to_tensor(sequence_lengths).numpy()).astype(np.int64).reshape(-1)
    batch, max_time, classes = logits.shape
    blank = mask_index % classes if mask_index is not None else classes - 1
    if strategy == "greedy":  # tf.nn.ctc_greedy_decoder, time-major, padded with -1
        (paths,), neg_sum = ctc_ops.ctc_greedy_decoder(
            np.ascontiguousarray(logits.transpose(1, 0, 2)), lengths, merge_repeated, blank
        )
        decoded = np.full((1, batch, max_time), -1, np.int32)
        where = np.asarray(paths.indices.numpy(), np.int64).reshape(-1, 2)
        decoded[0, where[:, 0], where[:, 1]] = paths.values.numpy()
        return to_tensor(decoded), to_tensor(neg_sum.numpy().astype(np.float32))
    if strategy != "beam_search":
        raise ValueError(
            "keras.ops.ctc_decode: strategy must be 'greedy' or 'beam_search'. "
            f"Received: strategy={strategy!r}"
        )
    order = [c for c in range(classes) if c != blank] + [blank]  # the blank last, as Keras 2
    probs = softmax(to_tensor(logits[..., order]), axis=-1)
    from ..backend import ctc_decode as _keras2_decode

    paths, log_prob = _keras2_decode(
        probs, lengths, greedy=False, beam_width=beam_width, top_paths=top_paths
    )
    decoded = np.full((top_paths, batch, max_time), -1, np.int32)
    for p, path in enumerate(paths):
        path = np.asarray(path.numpy())
        mapped = np.where(path >= blank, path + 1, path)
        mapped = np.where(path < 0, -1, mapped)
        decoded[p, :, : path.shape[1]] = mapped
    return to_tensor(decoded), tf.cast(log_prob, "float32")


# -- rearrangement and convolution --------------------------------------------------------------


@keras_op
def depth_to_space(x, block_size, data_format="channels_last"):
    """Moves channel blocks into ``block_size`` x ``block_size`` spatial blocks (follows
    `keras.ops.depth_to_space`); 4-D ``x``."""
    data_format = checked_data_format(data_format, "depth_to_space")
    x = to_channels_last(to_tensor(x), data_format)
    return from_channels_last(tf.depth_to_space(x, int(block_size)), data_format)


@keras_op
def space_to_depth(x, block_size, data_format="channels_last"):
    """Moves ``block_size`` x ``block_size`` spatial blocks into channels (follows
    `keras.ops.space_to_depth`); 4-D ``x``."""
    data_format = checked_data_format(data_format, "space_to_depth")
    x = to_channels_last(to_tensor(x), data_format)
    return from_channels_last(tf.space_to_depth(x, int(block_size)), data_format)


@keras_op
def conv_transpose(
    inputs,
    kernel,
    strides=1,
    padding="valid",
    output_padding=None,
    data_format=None,
    dilation_rate=1,
):
    """The N-D transposed convolution (follows `keras.ops.conv_transpose`): ``kernel``
    ``(*window, out_channels, in_channels)``; the output length per spatial axis is Keras's
    ``compute_conv_transpose_output_shape``."""
    data_format = checked_data_format(data_format, "conv_transpose")
    padding = str(padding).lower()
    if padding not in ("valid", "same"):
        raise ValueError(
            f"keras.ops.conv_transpose: padding must be 'valid' or 'same'. Received: {padding!r}"
        )
    x, kernel = promote(inputs, kernel)
    x = to_channels_last(x, data_format)
    n = x.shape.rank - 2
    strides, dilations = _ntuple(strides, n), _ntuple(dilation_rate, n)
    out_pad = [None] * n if output_padding is None else _ntuple(output_padding, n)
    spatial = [
        deconv_length(
            int(x.shape[i + 1]), int(kernel.shape[i]), padding, out_pad[i], strides[i], dilations[i]
        )
        for i in range(n)
    ]
    shape = [int(x.shape[0]), *spatial, int(kernel.shape[-2])]
    out = tf.nn.conv_transpose(
        x, kernel, shape, strides, padding=padding.upper(), dilations=dilations
    )
    return from_channels_last(out, data_format)


@keras_op
def separable_conv(
    inputs,
    depthwise_kernel,
    pointwise_kernel,
    strides=1,
    padding="valid",
    data_format=None,
    dilation_rate=1,
):
    """A depthwise convolution then a 1x1 convolution (follows `keras.ops.separable_conv`)."""
    depthwise = depthwise_conv(
        inputs, depthwise_kernel, strides, padding, data_format, dilation_rate
    )
    return conv(depthwise, pointwise_kernel, 1, "valid", data_format, 1)


def _adaptive_pool(inputs, output_size, data_format, reduce, op):
    data_format = checked_data_format(data_format, op)
    x = to_tensor(inputs)
    x = x if x.dtype.is_floating else tf.cast(x, floatx())
    x = to_channels_last(x, data_format)
    n = x.shape.rank - 2
    sizes = _ntuple(output_size, n)
    for d, out in enumerate(sizes):  # one spatial axis at a time: PyTorch's bins
        axis = d + 1
        length = int(x.shape[axis])
        cells = []
        for i in range(out):
            start, stop = (i * length) // out, -(-((i + 1) * length) // out)
            part = tf.gather(x, list(range(start, stop)), axis=axis)
            cells.append(reduce(part, axis=axis, keepdims=True))
        x = tf.concat(cells, axis=axis)
    return from_channels_last(x, data_format)


@keras_op
def adaptive_average_pool(inputs, output_size, data_format=None):
    """Average pooling to a fixed ``output_size`` with PyTorch's bins (follows
    `keras.ops.adaptive_average_pool`)."""
    return _adaptive_pool(inputs, output_size, data_format, tf.reduce_mean, "adaptive_average_pool")


@keras_op
def adaptive_max_pool(inputs, output_size, data_format=None):
    """Max pooling to a fixed ``output_size`` with PyTorch's bins (follows
    `keras.ops.adaptive_max_pool`)."""
    return _adaptive_pool(inputs, output_size, data_format, tf.reduce_max, "adaptive_max_pool")


def _unfold_geometry(x, kernel_size, dilation, padding, stride):
    k, d, p, s = (_ntuple(v, 2) for v in (kernel_size, dilation, padding, stride))
    h, w = int(x.shape[2]) + 2 * p[0], int(x.shape[3]) + 2 * p[1]
    oh = (h - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w - d[1] * (k[1] - 1) - 1) // s[1] + 1
    return k, d, p, s, oh, ow


@keras_op
def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding ``kernel_size`` blocks of an NCHW batch as columns (follows
    `keras.ops.unfold`, PyTorch's ``Unfold``): ``(N, C * kh * kw, L)``."""
    x = to_tensor(x)
    if x.shape.rank != 4:
        raise ValueError(f"keras.ops.unfold: x must be 4-D NCHW. Received: shape={x.shape}")
    k, d, p, s, oh, ow = _unfold_geometry(x, kernel_size, dilation, padding, stride)
    x = tf.pad(x, [[0, 0], [0, 0], [p[0], p[0]], [p[1], p[1]]])
    blocks = []
    for i in range(k[0]):
        for j in range(k[1]):
            r, c = i * d[0], j * d[1]
            blocks.append(
                x[:, :, r : r + s[0] * (oh - 1) + 1 : s[0], c : c + s[1] * (ow - 1) + 1 : s[1]]
            )
    out = tf.stack(blocks, axis=2)  # (N, C, kh * kw, oh, ow)
    n, ch = int(x.shape[0]), int(x.shape[1])
    return tf.reshape(out, [n, ch * k[0] * k[1], oh * ow])


@keras_op
def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The adjoint of `unfold`: sums ``(N, C * kh * kw, L)`` columns back into an NCHW batch
    of ``output_size`` (follows `keras.ops.fold`)."""
    x = to_tensor(x)
    oh_, ow_ = _ntuple(output_size, 2)
    k, d, p, s = (_ntuple(v, 2) for v in (kernel_size, dilation, padding, stride))
    n, ckk, _ = (int(v) for v in x.shape)
    ch = ckk // (k[0] * k[1])
    h, w = oh_ + 2 * p[0], ow_ + 2 * p[1]
    oh = (h - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w - d[1] * (k[1] - 1) - 1) // s[1] + 1
    if oh * ow != int(x.shape[2]):
        raise ValueError(
            f"keras.ops.fold: {x.shape[2]} blocks do not fit output_size={output_size}, "
            f"kernel_size={kernel_size}. Expected {oh * ow}."
        )
    cols = tf.reshape(x, [n, ch, k[0] * k[1], oh, ow])
    # Each block position scatters by a strided placement: index arithmetic, not a loop of adds.
    rows = np.arange(oh)[:, None] * s[0]
    colsi = np.arange(ow)[None, :] * s[1]
    flat_index = []
    for i in range(k[0]):
        for j in range(k[1]):
            flat_index.append((rows + i * d[0]) * w + (colsi + j * d[1]))
    index = np.stack(flat_index).reshape(-1, 1)  # (kh * kw * oh * ow, 1)
    values = tf.transpose(tf.reshape(cols, [n * ch, -1]), [1, 0])
    out = tf.scatter_nd(to_tensor(index.astype(np.int32)), values, [h * w, n * ch])
    out = tf.reshape(tf.transpose(out, [1, 0]), [n, ch, h, w])
    return out[:, :, p[0] : p[0] + oh_, p[1] : p[1] + ow_]


# -- core ---------------------------------------------------------------------------------------


def _leading(xs):
    leaves = nest.flatten(xs)
    if not leaves:
        raise ValueError(f"keras.ops: no arrays to iterate over. Received: xs={xs!r}")
    return int(to_tensor(leaves[0]).shape[0])


def _index(xs, i):
    return nest.map_structure(lambda t: to_tensor(t)[i], xs)


def _stack(items):
    return nest.map_structure(lambda *ts: tf.stack(list(ts)), *items)


def map(f, xs):
    """``f`` applied to each slice of ``xs`` along its leading axis, results stacked (follows
    `keras.ops.map`); ``xs`` may be nested."""
    return _stack([f(_index(xs, i)) for i in range(_leading(xs))])


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """``carry, y = f(carry, x)`` over the leading axis of ``xs`` (follows `keras.ops.scan`,
    JAX's ``lax.scan``): ``(final_carry, stacked_ys)``; ``length`` steps when ``xs`` is
    None. ``unroll`` is accepted and has no effect (eager execution)."""
    n = _leading(xs) if xs is not None else length
    if n is None:
        raise ValueError("keras.ops.scan: give xs or length. Received: xs=None, length=None")
    if xs is not None and length is not None and int(length) != n:
        raise ValueError(f"keras.ops.scan: length={length} but xs has {n} rows.")
    carry, ys = init, [None] * n
    steps = range(n - 1, -1, -1) if reverse else range(n)
    for i in steps:
        carry, ys[i] = f(carry, None if xs is None else _index(xs, i))
    if n == 0 or ys[0] is None:
        return carry, None
    return carry, _stack(ys)


def associative_scan(f, elems, reverse=False, axis=0):
    """Inclusive scan of the associative ``f`` along ``axis`` (follows
    `keras.ops.associative_scan`); ``elems`` may be nested. Evaluated left to right, which
    gives the same result for an associative ``f``."""
    leaves = [to_tensor(t) for t in nest.flatten(elems)]
    rank = leaves[0].shape.rank
    axis = axis % rank
    moved = [tf.transpose(t, [axis, *[a for a in range(rank) if a != axis]]) for t in leaves]
    n = int(moved[0].shape[0])
    order = range(n - 1, -1, -1) if reverse else range(n)
    out, acc = [None] * n, None
    for i in order:
        item = nest.pack_sequence_as(elems, [t[i] for t in moved])
        acc = item if acc is None else f(acc, item)
        out[i] = acc
    stacked = nest.flatten(_stack(out))
    inverse = np.argsort([axis, *[a for a in range(rank) if a != axis]]).tolist()
    return nest.pack_sequence_as(elems, [tf.transpose(t, inverse) for t in stacked])


def switch(index, branches, *operands):
    """``branches[index](*operands)``, ``index`` clamped into range (follows
    `keras.ops.switch`).

    >>> ek.keras.ops.switch(1, [lambda x: x + 1, lambda x: x * 10], 2.0)
    20.0
    """
    i = int(np.asarray(to_tensor(index).numpy()))
    return branches[min(max(i, 0), len(branches) - 1)](*operands)


def custom_gradient(f):
    """Decorates ``f`` returning ``(y, grad_fn)`` so that ``grad_fn(upstream)`` gives the
    gradients of its inputs (follows `keras.ops.custom_gradient`, TensorFlow's form)."""
    return _custom_gradient(f)


@keras_op
def saturate_cast(x, dtype):
    """``x`` cast to ``dtype``, clipped to its range first (follows `keras.ops.saturate_cast`)."""
    return tf.saturate_cast(to_tensor(x), dtype)


@keras_op
def get_item(x, key):
    """``x[key]`` (follows `keras.ops.get_item`)."""
    return to_tensor(x)[key]


@keras_op
def view(x, dtype=None):
    """The bytes of ``x`` reinterpreted as ``dtype``, NumPy's ``view`` (follows
    `keras.ops.view`); the last axis scales by the size ratio. No gradient."""
    x = to_tensor(x)
    if dtype is None:
        return x
    return to_tensor(np.ascontiguousarray(x.numpy()).view(np.dtype(str(dtype))))


def vectorize(pyfunc, *, excluded=None, signature=None):
    """``pyfunc`` applied elementwise over broadcast tensor arguments (follows
    `keras.ops.vectorize`, NumPy's ``vectorize``): a Python loop, for small inputs.
    ``signature`` (generalized ufuncs) is not supported (NotImplementedError)."""
    if signature is not None:
        raise NotImplementedError(
            f"keras.ops.vectorize: signature is not supported. Received: {signature!r}"
        )
    excluded = set(excluded or ())

    def wrapped(*args, **kwargs):
        idx = [i for i in range(len(args)) if i not in excluded]
        tensors = [to_tensor(args[i]) for i in idx]
        shape = np.broadcast_shapes(*[tuple(t.shape) for t in tensors])
        flat = [tf.reshape(tf.broadcast_to(t, list(shape)), [-1]) for t in tensors]
        outs = []
        for j in range(int(np.prod(shape, dtype=np.int64))):
            call = list(args)
            for i, t in zip(idx, flat):
                call[i] = t[j]
            outs.append(to_tensor(pyfunc(*call, **kwargs)))
        return tf.reshape(tf.stack(outs), list(shape))

    return wrapped
