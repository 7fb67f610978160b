"""Rearranging ops (follow TensorFlow's): `space_to_depth` / `depth_to_space` (blocks of
pixels to channels and back, NHWC or NCHW), `space_to_batch_nd` / `batch_to_space_nd` (blocks
of the spatial dimensions to the batch and back), `dynamic_partition` / `dynamic_stitch` (rows
dealt out to partitions and merged back); each differentiable as in TensorFlow.
"""

from __future__ import annotations

import operator

import numpy as np

from ..core.dispatch import Primitive, defjointvjp, defvjp
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, make
from ._core import apply
from ._core import tensor as _tensor


def _invalid(op: str, message: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, op, f"{op}: {message}")


def _int_tensor(value, op: str, arg: str) -> Tensor:
    t = _tensor(value, op)
    if t._value.dtype.kind not in "iu":
        raise TypeError(f"{op}: {arg} must be an integer tensor, got {t.dtype.name}.")
    return t


__all__ = [
    "depth_to_space",
    "dynamic_partition",
    "dynamic_stitch",
    "required_space_to_batch_paddings",
    "space_to_depth",
]


# -- space_to_depth / depth_to_space ----------------------------------------------------------


def _s2d(xp, x, block_size, data_format):
    if data_format == "NCHW":
        x = x.transpose(0, 2, 3, 1)
    b, h, w, c = x.shape
    s = block_size
    y = x.reshape(b, h // s, s, w // s, s, c).transpose(0, 1, 3, 2, 4, 5)
    y = y.reshape(b, h // s, w // s, s * s * c)
    return y.transpose(0, 3, 1, 2) if data_format == "NCHW" else y


def _d2s(xp, x, block_size, data_format):
    if data_format == "NCHW":
        x = x.transpose(0, 2, 3, 1)
    b, h, w, c = x.shape
    s = block_size
    y = x.reshape(b, h, w, s, s, c // (s * s)).transpose(0, 1, 3, 2, 4, 5)
    y = y.reshape(b, h * s, w * s, c // (s * s))
    return y.transpose(0, 3, 1, 2) if data_format == "NCHW" else y


_space_to_depth = Primitive("SpaceToDepth", _s2d)
_depth_to_space = Primitive("DepthToSpace", _d2s)
defvjp(_space_to_depth, lambda g, ans, x, **p: apply(_depth_to_space, (g,), p))
defvjp(_depth_to_space, lambda g, ans, x, **p: apply(_space_to_depth, (g,), p))


def _block_args(op: str, input, block_size, data_format) -> tuple:
    x = _tensor(input, op)
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"{op}: data_format must be 'NHWC' or 'NCHW', got {data_format!r}.")
    try:
        s = operator.index(block_size)
    except TypeError:
        raise TypeError(f"{op}: block_size must be an int, got {block_size!r:.60}.") from None
    if s < 2:
        raise _invalid(op, f"Value for attr 'block_size' of {s} must be at least minimum 2")
    if x._value.ndim != 4:
        raise _invalid(op, f"Input rank should be: 4 instead of: {x._value.ndim}")
    return x, s


def space_to_depth(input, block_size, data_format="NHWC", name=None) -> Tensor:
    """Moves each ``block_size x block_size`` spatial block into the channels (follows
    `tf.nn.space_to_depth`): NHWC ``[b, h, w, c]`` -> ``[b, h/s, w/s, c*s*s]``, channel
    ``(dy*s + dx)*c + k`` holding pixel ``(dy, dx)`` of channel ``k``. Differentiable (its
    gradient is `depth_to_space`).

    Args:
        input: a rank-4 tensor, height and width divisible by ``block_size``.
        block_size: an int >= 2.
        data_format: ``"NHWC"`` (the default) or ``"NCHW"``.

    Raises:
        InvalidArgumentError: ``block_size < 2``, rank other than 4, height or width not
            divisible. ValueError: another ``data_format``.

    >>> ek.space_to_depth(ek.reshape(ek.range(4), [1, 2, 2, 1]), 2).numpy()
    array([[[[0, 1, 2, 3]]]], dtype=int32)
    """
    op = "space_to_depth"
    x, s = _block_args(op, input, block_size, data_format)
    shp = x._value.shape
    h, w = (shp[2], shp[3]) if data_format == "NCHW" else (shp[1], shp[2])
    if h % s or w % s:
        raise _invalid(op, f"Image width {w} and height {h} should be divisible by block_size: {s}")
    return apply(_space_to_depth, (x,), {"block_size": s, "data_format": data_format})


def depth_to_space(input, block_size, data_format="NHWC", name=None) -> Tensor:
    """The inverse of `space_to_depth` (follows `tf.nn.depth_to_space`): NHWC
    ``[b, h, w, c]`` -> ``[b, h*s, w*s, c/(s*s)]``. Differentiable.

    Raises:
        InvalidArgumentError: ``block_size < 2``, rank other than 4, depth not divisible by
            ``block_size**2``. ValueError: a ``data_format`` other than NHWC/NCHW.

    >>> ek.depth_to_space(ek.reshape(ek.range(4), [1, 1, 1, 4]), 2).numpy()[0, :, :, 0]
    array([[0, 1],
           [2, 3]], dtype=int32)
    """
    op = "depth_to_space"
    x, s = _block_args(op, input, block_size, data_format)
    c = x._value.shape[1] if data_format == "NCHW" else x._value.shape[3]
    if c % (s * s):
        raise _invalid(op, f"Input depth dimension {c} should be divisible by: {s * s}")
    return apply(_depth_to_space, (x,), {"block_size": s, "data_format": data_format})


# -- dynamic_partition / dynamic_stitch -------------------------------------------------------


def _partition_fwd(xp, data, partitions, num_partitions):
    p = partitions.reshape(-1)
    flat = data.reshape((p.size, *data.shape[partitions.ndim :]))
    return tuple(flat[p == i] for i in range(num_partitions))


def _partition_grad_fwd(xp, partitions, *gs, data_shape):
    p = partitions.reshape(-1)
    out = xp.zeros((p.size, *tuple(data_shape[partitions.ndim :])), dtype=gs[0].dtype)
    for i, g in enumerate(gs):
        out[p == i] = g
    return out.reshape(data_shape)


def _partition_grad_vjp(g, ans, partitions, *gs, data_shape):
    n = len(gs)
    parts = apply(_partition, (g, partitions), {"num_partitions": n})
    return (None, *parts)


_partition = Primitive("DynamicPartition", _partition_fwd, n_out=0)
_partition_grad = Primitive("DynamicPartitionGrad", _partition_grad_fwd)
defjointvjp(
    _partition,
    lambda g, ans, data, partitions, num_partitions: (
        apply(_partition_grad, (partitions, *g), {"data_shape": tuple(data._value.shape)}),
        None,
    ),
)
defjointvjp(_partition_grad, _partition_grad_vjp)


def dynamic_partition(data, partitions, num_partitions, name=None) -> list:
    """Splits ``data`` into ``num_partitions`` tensors by ``partitions`` (follows
    `tf.dynamic_partition`): output ``i`` holds, in order, the slices ``data[js]`` with
    ``partitions[js] == i``.

    Args:
        data: any shape starting with ``partitions.shape``.
        partitions: int32 values in ``[0, num_partitions)``.
        num_partitions: an int >= 1.

    Returns:
        A list of ``num_partitions`` tensors of shape ``[count_i] + data.shape[P:]`` (``P``
        the rank of ``partitions``); differentiable to ``data``.

    Raises:
        InvalidArgumentError: a partition value out of range, a shape that is not a prefix,
        integer ``partitions`` other than int32 (as TensorFlow). TypeError: non-integer
        ``partitions``. ValueError: ``num_partitions < 1``.

    >>> [t.numpy().tolist() for t in ek.dynamic_partition(
    ...     ek.constant([10, 20, 30, 40, 50]), ek.constant([0, 0, 1, 1, 0]), 2)]
    [[10, 20, 50], [30, 40]]
    """
    op = "dynamic_partition"
    x = _tensor(data, op)
    p = _int_tensor(partitions, op, "partitions")
    # TensorFlow's kernel takes int32 only (NumPy arrays and lists are converted to it)
    if isinstance(partitions, Tensor) and p.dtype.name != "int32":
        raise _invalid(op, f"partitions must be an int32 tensor, got {p.dtype.name}.")
    try:
        n = operator.index(num_partitions)
    except TypeError:
        raise TypeError(f"{op}: num_partitions must be an int, got {num_partitions!r}.") from None
    if n < 1:
        raise ValueError(f"{op}: num_partitions must be at least 1, got {n}.")
    ps, ds = tuple(p._value.shape), tuple(x._value.shape)
    if ds[: len(ps)] != ps:
        raise _invalid(op, f"data.shape must start with partitions.shape, got {ds} and {ps}")
    pv = p.numpy().reshape(-1)
    bad = np.flatnonzero((pv < 0) | (pv >= n))
    if bad.size:
        j = int(bad[0])
        raise _invalid(op, f"partitions[{j}] = {int(pv[j])} is not in [0, {n})")
    return list(apply(_partition, (x, p), {"num_partitions": n}))


def _stitch_fwd(xp, *arrays, n):
    indices, data = arrays[:n], arrays[n:]
    for m, i in enumerate(indices):  # here, so that a graph function checks every call's
        if i.size and int(i.min()) < 0:
            raise _invalid("dynamic_stitch", f"indices[{m}] has a negative index {int(i.min())}.")
    rows = max((int(i.max()) + 1 for i in indices if i.size), default=0)
    inner = data[0].shape[indices[0].ndim :]
    out = xp.zeros((rows, *tuple(inner)), dtype=data[0].dtype)
    for i, d in zip(indices, data):
        out[i.reshape(-1)] = d.reshape((i.size, *tuple(inner)))
    return out


def _stitch_vjp(g, ans, *inputs, n):
    """The cotangent of each data slice is ``g`` at its index, or zero for a slice that a
    later one with the same index overwrote (it does not reach the output)."""
    from .indexing import gather

    indices = inputs[:n]
    xp = g._device.xp
    rows = g._value.shape[0]
    winner = np.full(rows, -1, dtype=np.int64)
    flat = [
        np.asarray(i._value.get() if hasattr(i._value, "get") else i._value).reshape(-1)
        for i in indices
    ]
    offset = 0
    for f in flat:
        winner[f] = np.arange(offset, offset + f.size)
        offset += f.size
    cots = []
    offset = 0
    for i, f in zip(indices, flat):
        kept = winner[f] == np.arange(offset, offset + f.size)
        offset += f.size
        c = gather(g, i)
        if not kept.all():
            mask = kept.reshape(i._value.shape + (1,) * (c._value.ndim - i._value.ndim))
            c = c * make(xp.asarray(mask.astype(g._value.dtype)), g._device)
        cots.append(c)
    return (*([None] * n), *cots)


_stitch = Primitive("DynamicStitch", _stitch_fwd)
defjointvjp(_stitch, _stitch_vjp)


def dynamic_stitch(indices, data, name=None) -> Tensor:
    """Interleaves the slices of ``data`` into one tensor: ``merged[indices[m][j]] =
    data[m][j]`` (follows `tf.dynamic_stitch`).

    Args:
        indices: a list of int32 tensors.
        data: a list of tensors of one dtype, ``data[m].shape = indices[m].shape + inner``.

    Returns:
        Shape ``[max(indices) + 1] + inner``. Where an index repeats, the last slice (in list
        order) wins; rows no index names are zero. The gradient of a slice is the output's
        cotangent at its index, and zero for a slice another one overwrote (TensorFlow's
        registered gradient gives it the cotangent too, which is not the derivative).

    Raises:
        InvalidArgumentError: lists of different lengths, a shape that does not fit, a
        negative index. TypeError: non-integer indices, data of different dtypes.

    >>> ek.dynamic_stitch([ek.constant([0, 2]), ek.constant([1, 3])],
    ...                   [ek.constant([1., 3.]), ek.constant([2., 4.])]).numpy()
    array([1., 2., 3., 4.], dtype=float32)
    """
    op = "dynamic_stitch"
    if not isinstance(indices, (list, tuple)) or not isinstance(data, (list, tuple)):
        raise TypeError(f"{op}: indices and data must be lists of tensors.")
    if len(indices) != len(data) or not indices:
        raise _invalid(
            op,
            f"indices and data must be non-empty lists of the same length, got "
            f"{len(indices)} and {len(data)}.",
        )
    ids = [_int_tensor(i, op, "indices") for i in indices]
    hint = next((d._value.dtype for d in data if isinstance(d, Tensor)), None)
    ds = [_tensor(d, op, hint) for d in data]
    inner = None
    for m, (i, d) in enumerate(zip(ids, ds)):
        if d.dtype != ds[0].dtype:
            raise TypeError(
                f"{op}: all data must have one dtype, got data[0]: {ds[0].dtype.name} and "
                f"data[{m}]: {d.dtype.name}."
            )
        ishape, dshape = tuple(i._value.shape), tuple(d._value.shape)
        if dshape[: len(ishape)] != ishape or (
            inner is not None and dshape[len(ishape) :] != inner
        ):
            raise _invalid(
                op,
                f"data[{m}].shape = {dshape} does not start with indices[{m}].shape = "
                f"{ishape}" + (f" followed by {inner}" if inner is not None else "") + ".",
            )
        inner = dshape[len(ishape) :]
    return apply(_stitch, (*ids, *ds), {"n": len(ids)})


# -- space_to_batch / batch_to_space ---------------------------------------------------------------


def _block_layout(op: str, x: Tensor, block_shape, pairs, pairs_name: str):
    """``block_shape`` as a list of M >= 1 positive ints and ``pairs`` (paddings or crops) as
    M ``[before, after]`` pairs of non-negative ints, checked against ``x``."""
    blocks = np.asarray(block_shape.numpy() if isinstance(block_shape, Tensor) else block_shape)
    pads = np.asarray(pairs.numpy() if isinstance(pairs, Tensor) else pairs)
    if blocks.ndim != 1 or blocks.size < 1 or blocks.dtype.kind not in "iu":
        raise _invalid(op, f"block_shape must be a 1-D list of ints, got {block_shape!r}.")
    m = blocks.size
    if pads.shape != (m, 2) or (pads.size and pads.dtype.kind not in "iu"):
        raise _invalid(op, f"{pairs_name} must have shape [{m}, 2] (ints), got {pairs!r}.")
    if (blocks < 1).any() or (pads < 0).any():
        raise _invalid(
            op, f"block_shape must be positive and {pairs_name} non-negative: {blocks}, {pads}."
        )
    if x.shape.rank is None or len(x.shape) < m + 1:
        raise _invalid(op, f"input must have rank >= {m + 1}, got shape {tuple(x.shape)}.")
    return [int(b) for b in blocks], [(int(a), int(b)) for a, b in pads]


def space_to_batch_nd(input, block_shape, paddings, name=None) -> Tensor:
    """Zero-pads the M spatial dimensions after the batch one, cuts them into blocks of
    ``block_shape`` and moves the blocks into the batch (follows `tf.space_to_batch_nd`):
    ``[batch, *spatial, *rest]`` becomes ``[batch * prod(block_shape), *(padded / block),
    *rest]``. Differentiable (pad, reshape and transpose).

    Raises:
        InvalidArgumentError: bad ``block_shape`` or ``paddings``, or padded sizes that the
            blocks do not divide.

    >>> ek.space_to_batch_nd(ek.reshape(ek.range(4), [1, 2, 2, 1]), [2, 2], [[0, 0], [0, 0]]).shape
    TensorShape([4, 1, 1, 1])
    """
    from .array_ops import pad, reshape, transpose

    op = "space_to_batch_nd"
    x = _tensor(input, op)
    blocks, pads = _block_layout(op, x, block_shape, paddings, "paddings")
    m = len(blocks)
    shape = list(x.shape)
    batch, rest = shape[0], shape[1 + m :]
    padded = [shape[1 + i] + pads[i][0] + pads[i][1] for i in range(m)]
    for i in range(m):
        if padded[i] % blocks[i]:
            raise _invalid(
                op,
                f"padded spatial dimension {i} ({padded[i]}) is not a multiple of its block "
                f"size {blocks[i]}.",
            )
    x = pad(x, [[0, 0], *[list(p) for p in pads], *[[0, 0]] * len(rest)])
    split = [batch]
    for i in range(m):
        split += [padded[i] // blocks[i], blocks[i]]
    x = reshape(x, split + rest)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    perm += list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    x = transpose(x, perm)
    return reshape(
        x, [batch * int(np.prod(blocks))] + [p // b for p, b in zip(padded, blocks)] + rest
    )


def batch_to_space_nd(input, block_shape, crops, name=None) -> Tensor:
    """The inverse of `space_to_batch_nd`: moves blocks of the batch back into the M spatial
    dimensions and crops them (follows `tf.batch_to_space_nd`): ``[batch, *spatial, *rest]``
    becomes ``[batch / prod(block_shape), *(spatial * block - crops), *rest]``.

    Raises:
        InvalidArgumentError: bad ``block_shape`` or ``crops``, a batch the blocks do not
            divide, or crops larger than the dimension.
    """
    from .array_ops import reshape, transpose

    op = "batch_to_space_nd"
    x = _tensor(input, op)
    blocks, crops_ = _block_layout(op, x, block_shape, crops, "crops")
    m = len(blocks)
    shape = list(x.shape)
    n = int(np.prod(blocks))
    if shape[0] % n:
        raise _invalid(op, f"the batch ({shape[0]}) is not a multiple of prod(block_shape) ({n}).")
    batch, spatial, rest = shape[0] // n, shape[1 : 1 + m], shape[1 + m :]
    full = [s * b for s, b in zip(spatial, blocks)]
    for i in range(m):
        if crops_[i][0] + crops_[i][1] > full[i]:
            raise _invalid(op, f"crops {crops_[i]} exceed spatial dimension {i} ({full[i]}).")
    x = reshape(x, [*blocks, batch, *spatial, *rest])
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    x = transpose(x, perm)
    x = reshape(x, [batch, *full, *rest])
    index = (slice(None), *[slice(a, f - b) for (a, b), f in zip(crops_, full)])
    return x[index]


def space_to_batch(input, block_shape, paddings, name=None) -> Tensor:
    """`space_to_batch_nd` (follows `tf.space_to_batch`, TensorFlow 2's signature)."""
    return space_to_batch_nd(input, block_shape, paddings)


def batch_to_space(input, block_shape, crops, name=None) -> Tensor:
    """`batch_to_space_nd` (follows `tf.batch_to_space`, TensorFlow 2's signature)."""
    return batch_to_space_nd(input, block_shape, crops)


__all__ += ["batch_to_space", "batch_to_space_nd", "space_to_batch", "space_to_batch_nd"]


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """The paddings and crops that make ``input_shape`` (the M spatial sizes), padded by at
    least ``base_paddings``, divisible by ``block_shape`` (follows
    `tf.required_space_to_batch_paddings`): the extra padding goes at the end of each
    dimension, and the crops take it back off after `batch_to_space`.

    Args:
        input_shape: M ints. block_shape: M positive ints.
        base_paddings: ``[M, 2]`` non-negative ints (default zeros).

    Returns:
        ``(paddings, crops)``, two int32 ``[M, 2]`` tensors.

    Raises:
        ValueError: shapes that do not agree with ``block_shape``'s length.

    >>> p, c = ek.required_space_to_batch_paddings([5, 7], [2, 3])
    >>> p.numpy().tolist(), c.numpy().tolist()
    ([[0, 1], [0, 2]], [[0, 1], [0, 2]])
    """
    op = "required_space_to_batch_paddings"

    def ints(value, what):
        arr = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
        if arr.size and arr.dtype.kind not in "iu":
            raise ValueError(f"{op}: {what} must hold ints, got {value!r}.")
        return arr.astype(np.int64)

    blocks = ints(block_shape, "block_shape")
    if blocks.ndim != 1:
        raise ValueError(f"{op}: block_shape must be 1-D, got shape {blocks.shape}.")
    m = blocks.size
    sizes = ints(input_shape, "input_shape")
    if sizes.shape != (m,):
        raise ValueError(
            f"{op}: input_shape must have shape [{m}] (block_shape's length), got {sizes.shape}."
        )
    base = np.zeros((m, 2), np.int64) if base_paddings is None else ints(base_paddings, "x")
    if base.shape != (m, 2):
        raise ValueError(f"{op}: base_paddings must have shape [{m}, 2], got {base.shape}.")
    full = sizes + base[:, 0] + base[:, 1]
    extra = (blocks - full % blocks) % blocks
    paddings = np.stack([base[:, 0], base[:, 1] + extra], axis=1).astype(np.int32)
    crops = np.stack([np.zeros(m, np.int64), extra], axis=1).astype(np.int32)
    return _tensor(paddings.reshape(m, 2), op), _tensor(crops.reshape(m, 2), op)
