"""`keras.ops.image` warps: affine and perspective transforms, ``map_coordinates``, elastic
deformation and ``scale_and_translate`` (follows ``keras/src/ops/image.py`` and its
TensorFlow backend, ``keras/src/backend/tensorflow/image.py``).

The transforms run on ``ImageProjectiveTransformV3`` (`keras.layers.augmentation.transform`),
whose gradient reaches the images but not the transform, as TensorFlow's. ``map_coordinates``
and ``scale_and_translate`` are built of gathers and products of dispatched ops, so they are
differentiable in the images and in the coordinates (scale, translation) too.
``elastic_transform`` draws its displacement with `ek.random` (a fresh draw on every call of
a graph function unless ``seed`` is an int).
"""

from __future__ import annotations

import functools
import itertools
import operator

import numpy as np

from ...core.tensor import Tensor
from ...ops import linalg as linalg_ops
from ..layers import augmentation
from ._base import floatx, keras_op, result_type, to_tensor
from ._tf import tf
from .image_base import check_rank, choice, data_format_of, from_channels_last, to_channels_last
from .image_filters import blur

__all__ = [
    "affine_transform",
    "elastic_transform",
    "map_coordinates",
    "perspective_transform",
    "scale_and_translate",
]

_INTERPOLATIONS = ("nearest", "bilinear")
_FILL_MODES = ("constant", "nearest", "wrap", "reflect")
_MAP_FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")
_SCALE_METHODS = (
    "linear",
    "bilinear",
    "trilinear",
    "cubic",
    "bicubic",
    "tricubic",
    "lanczos3",
    "lanczos5",
)


def _project(images: Tensor, transforms: Tensor, interpolation, fill_mode, fill_value, op):
    """``ImageProjectiveTransformV3`` on NHWC ``images`` with ``transforms`` ``(N, 8)``
    (one row for the whole batch, or one per image); integer images are sampled in float32
    and truncated back, as TensorFlow's kernel does."""
    batch = int(images.shape[0])
    if int(transforms.shape[-1]) != 8 or int(transforms.shape[0]) not in (1, batch):
        raise ValueError(
            f"keras.ops.image.{op}: the transform must be (8,), (1, 8) or (batch, 8) with "
            f"batch={batch}. Received: transform.shape={tuple(transforms.shape)}"
        )
    if int(transforms.shape[0]) != batch:
        transforms = tf.tile(transforms, [batch, 1])
    dtype = images.dtype
    x = images if dtype.is_floating else tf.cast(images, "float32")
    out = augmentation.transform(
        x,
        tf.cast(transforms, x.dtype),
        fill_mode=fill_mode,
        interpolation=interpolation,
        fill_value=float(fill_value),
    )
    return out if out.dtype == dtype else tf.cast(out, dtype)


def _batch_nhwc(images: Tensor, data_format: str) -> Tensor:
    x = tf.expand_dims(images, 0) if images.shape.rank == 3 else images
    return to_channels_last(x, data_format)


def _unbatch(out: Tensor, images: Tensor, data_format: str) -> Tensor:
    out = from_channels_last(out, data_format)
    return tf.squeeze(out, [0]) if images.shape.rank == 3 else out


@keras_op
def affine_transform(
    images,
    transform,
    interpolation="bilinear",
    fill_mode="constant",
    fill_value=0,
    data_format=None,
):
    """Applies projective transform(s) to the image(s) (follows
    `keras.ops.image.affine_transform`, TensorFlow's ``ImageProjectiveTransformV3``).

    A transform row ``[a0, a1, a2, b0, b1, b2, c0, c1]`` maps each output point ``(x, y)`` to
    the input point ``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)``,
    ``k = c0 x + c1 y + 1`` (the inverse of the image's motion).

    Args:
        images: ``(H, W, C)`` or ``(B, H, W, C)`` (or channels first), any real dtype
            (integers are interpolated in float32 and truncated back).
        transform: ``(8,)`` or ``(B, 8)`` (or ``(1, 8)`` for the whole batch); cast to
            float32. Receives no gradient.
        interpolation: ``"bilinear"`` (default) or ``"nearest"``.
        fill_mode: outside the image, ``"constant"`` (default: ``fill_value``),
            ``"nearest"``, ``"wrap"`` or ``"reflect"``. ``"wrap"`` follows the documented
            rule ``(a b c d | a b c d)``; TensorFlow's kernel reads the first pixel instead
            of the last for a coordinate between the last pixel and the edge.
        fill_value: the value outside the image with ``"constant"``.
        data_format: ``"channels_last"`` or ``"channels_first"`` (default: the config's).

    Returns:
        The shape and dtype of ``images``; differentiable in ``images``.

    Raises:
        ValueError: an unknown ``interpolation``, ``fill_mode`` or ``data_format``, images
            of rank other than 3 or 4, a transform of rank other than 1 or 2, or rows that
            are not 8 long or do not match the batch.

    >>> img = ek.reshape(ek.range(9.0), (3, 3, 1))
    >>> shift = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0]  # read one pixel to the right
    >>> ek.keras.ops.image.affine_transform(img, shift)[..., 0].numpy()
    array([[1., 2., 0.],
           [4., 5., 0.],
           [7., 8., 0.]], dtype=float32)
    """
    op = "affine_transform"
    data_format = data_format_of(data_format, op)
    choice(interpolation, _INTERPOLATIONS, op, "interpolation")
    choice(fill_mode, _FILL_MODES, op, "fill_mode")
    images, transform = to_tensor(images), to_tensor(transform)
    check_rank(images, op)
    if transform.shape.rank not in (1, 2):
        raise ValueError(
            f"keras.ops.image.{op}: invalid transform rank: expected rank 1 (single "
            "transform) or rank 2 (batch of transforms). Received: "
            f"transform.shape={tuple(transform.shape)}"
        )
    transform = tf.expand_dims(transform, 0) if transform.shape.rank == 1 else transform
    x = _batch_nhwc(images, data_format)
    out = _project(x, transform, interpolation, fill_mode, fill_value, op)
    return _unbatch(out, images, data_format)


def homography(start_points: Tensor, end_points: Tensor) -> Tensor:
    """The ``(N, 8)`` transforms taking each ``end_points`` quad to its ``start_points``
    quad (Keras's ``compute_homography_matrix``: an 8 by 8 solve per pair)."""
    zero = tf.zeros_like(end_points[:, 0, 0])
    one = tf.ones_like(zero)
    rows, target = [], []
    for i in range(4):
        sx, sy = start_points[:, i, 0], start_points[:, i, 1]
        ex, ey = end_points[:, i, 0], end_points[:, i, 1]
        rows.append(tf.stack([ex, ey, one, zero, zero, zero, -sx * ex, -sx * ey], axis=-1))
        rows.append(tf.stack([zero, zero, zero, ex, ey, one, -sy * ex, -sy * ey], axis=-1))
        target += [sx, sy]
    matrix = tf.stack(rows, axis=1)
    solution = linalg_ops.solve(matrix, tf.expand_dims(tf.stack(target, axis=-1), -1))
    return tf.reshape(solution, [-1, 8])


def _points(points, name: str, op: str) -> Tensor:
    points = to_tensor(points, "float32")
    if points.shape.rank not in (2, 3) or tuple(points.shape[-2:]) != (4, 2):
        raise ValueError(
            f"keras.ops.image.{op}: invalid {name} shape: expected (4, 2) for a single image "
            f"or (N, 4, 2) for a batch. Received: {name}.shape={tuple(points.shape)}"
        )
    return points


@keras_op
def perspective_transform(
    images, start_points, end_points, interpolation="bilinear", fill_value=0, data_format=None
):
    """Warps the image(s) so that ``start_points`` land on ``end_points`` (follows
    `keras.ops.image.perspective_transform`): the homography taking each output point back
    to the input, then `affine_transform` with ``fill_mode="constant"``.

    Args:
        images: ``(H, W, C)`` or ``(B, H, W, C)`` (or channels first).
        start_points, end_points: ``(4, 2)`` or ``(N, 4, 2)`` ``(x, y)`` corners, the same
            shape; cast to float32.
        interpolation: ``"bilinear"`` (default) or ``"nearest"``.
        fill_value: the value outside the image.
        data_format: ``"channels_last"`` or ``"channels_first"`` (default: the config's).

    Returns:
        The shape and dtype of ``images``; differentiable in ``images``.

    Raises:
        ValueError: an unknown ``interpolation`` or ``data_format``, images of rank other
            than 3 or 4, points not ``(4, 2)`` / ``(N, 4, 2)`` or of different shapes.

    >>> img = ek.reshape(ek.range(1.0, 13.0), (3, 4, 1))
    >>> corners = [[0, 0], [0, 3], [4, 0], [4, 3]]
    >>> ek.keras.ops.image.perspective_transform(img, corners, corners)[..., 0].numpy()
    array([[ 1.,  2.,  3.,  4.],
           [ 5.,  6.,  7.,  8.],
           [ 9., 10., 11., 12.]], dtype=float32)
    """
    op = "perspective_transform"
    data_format = data_format_of(data_format, op)
    start_points = _points(start_points, "start_points", op)
    end_points = _points(end_points, "end_points", op)
    choice(interpolation, _INTERPOLATIONS, op, "interpolation")
    images = to_tensor(images)
    check_rank(images, op)
    if start_points.shape != end_points.shape:
        raise ValueError(
            f"keras.ops.image.{op}: start_points and end_points must have the same shape. "
            f"Received: start_points.shape={tuple(start_points.shape)}, "
            f"end_points.shape={tuple(end_points.shape)}"
        )
    if start_points.shape.rank == 2:
        start_points, end_points = tf.expand_dims(start_points, 0), tf.expand_dims(end_points, 0)
    x = _batch_nhwc(images, data_format)
    transform = homography(start_points, end_points)
    out = _project(x, transform, interpolation, "constant", fill_value, op)
    return _unbatch(out, images, data_format)


# -- map_coordinates ----------------------------------------------------------------------------


def _nodes(coordinate: Tensor, order: int) -> list:
    """``(index, weight)`` pairs of one axis: the nearest index (TensorFlow's round, half to
    even) or the two linear neighbours."""
    if order == 0:
        return [(tf.cast(tf.round(coordinate), "int32"), None)]
    lower = tf.floor(coordinate)
    upper_weight = coordinate - lower
    index = tf.cast(lower, "int32")
    return [(index, 1.0 - upper_weight), (index + 1, upper_weight)]


def fix_index(index: Tensor, size: int, fill_mode: str):
    """``(safe index, valid)`` for one axis of length ``size`` (valid None: always)."""
    if fill_mode == "constant":
        valid = tf.logical_and(index >= 0, index < size)
        return tf.clip_by_value(index, 0, size - 1), valid
    if fill_mode == "nearest":
        return tf.clip_by_value(index, 0, size - 1), None
    if fill_mode == "wrap":
        return tf.mod(index, size), None
    if fill_mode == "reflect":  # Keras's TensorFlow backend: (d c b a | a b c d | d c b a)
        index = tf.abs(index)
        folded = tf.mod(index, 2 * size)
        return tf.where(folded < size, folded, 2 * size - folded - 1), None
    # mirror: (c d c b | a b c d | c b a b), a triangle wave of period 2 (size - 1). Keras's
    # TensorFlow backend indexes past the edge here (a gather error); this is the rule it
    # documents and its JAX backend follows.
    if size == 1:
        return tf.zeros_like(index), None
    s = size - 1
    return tf.abs(tf.mod(index + s, 2 * s) - s), None


def sample(inputs: Tensor, coordinates: list, order: int, fill_mode: str, fill_value) -> Tensor:
    """Keras's ``map_coordinates`` core: ``inputs`` read at one coordinate tensor per axis
    (an integer tensor is an exact index, read as is). The weights are computed in the
    coordinates' float dtype; the result is rounded for integer ``inputs`` and cast to
    their dtype."""
    axes = []
    weight_dtype = None
    for coordinate, size in zip(coordinates, inputs.shape):
        if coordinate.dtype.is_integer:
            axes.append([(coordinate, None, None)])
            continue
        weight_dtype = coordinate.dtype
        axis = []
        for index, weight in _nodes(coordinate, order):
            safe, valid = fix_index(index, int(size), fill_mode)
            axis.append((safe, valid, weight))
        axes.append(axis)
    weight_dtype = weight_dtype or inputs.dtype
    fill = to_tensor(np.asarray(fill_value).astype(inputs.dtype.as_numpy_dtype))
    fill = tf.cast(fill, weight_dtype)
    outputs = []
    for corner in itertools.product(*axes):
        indices, validities, weights = zip(*corner)
        gathered = tf.cast(tf.gather_nd(inputs, tf.stack(indices, axis=-1)), weight_dtype)
        validities = [v for v in validities if v is not None]
        if validities:
            gathered = tf.where(functools.reduce(tf.logical_and, validities), gathered, fill)
        weights = [w for w in weights if w is not None]
        outputs.append(functools.reduce(operator.mul, weights) * gathered if weights else gathered)
    result = functools.reduce(operator.add, outputs)
    if inputs.dtype.is_integer:
        result = tf.round(result)
    return tf.cast(result, inputs.dtype)


@keras_op
def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    """``inputs`` interpolated at ``coordinates`` (follows
    `keras.ops.image.map_coordinates`, Keras's TensorFlow backend: each tap outside the
    input takes ``fill_value`` with ``"constant"``, weighted like the others).

    Args:
        inputs: any rank ``N``, any real dtype.
        coordinates: ``(N, ...)`` (or a list of ``N`` equal-shaped tensors), one coordinate
            per axis of ``inputs``; integer coordinates are cast to floatx.
        order: 0 (nearest, ties to even) or 1 (linear).
        fill_mode: ``"constant"`` (default), ``"nearest"`` ``(a a | a b c d | d d)``,
            ``"wrap"`` ``(a b c d | a b c d)``, ``"mirror"`` ``(c d c b | a b c d | c b a b)``
            or ``"reflect"`` (Keras's TensorFlow backend's: an index ``i`` outside maps to
            ``|i|`` folded back from the far edge).
        fill_value: the value outside ``inputs`` with ``"constant"``.

    Returns:
        ``coordinates.shape[1:]``, ``inputs``' dtype (integers rounded); differentiable in
        ``inputs`` and (``order=1``) in ``coordinates``.

    Raises:
        ValueError: ``coordinates`` of rank below 2, a first axis other than ``inputs``'
            rank, or an unknown ``fill_mode``.
        NotImplementedError: ``order`` other than 0 or 1.

    >>> img = ek.reshape(ek.range(12.0), (3, 4))
    >>> ek.keras.ops.image.map_coordinates(img, [[0.5, 2.0], [1.0, 2.5]], order=1).numpy()
    array([ 3. , 10.5], dtype=float32)
    """
    op = "map_coordinates"
    inputs = to_tensor(inputs)
    if isinstance(coordinates, (list, tuple)):
        coordinates = tf.stack([to_tensor(c) for c in coordinates])
    coordinates = to_tensor(coordinates)
    if coordinates.shape.rank < 2:
        raise ValueError(
            f"keras.ops.image.{op}: invalid coordinates rank: expected at least rank 2. "
            f"Received: coordinates.shape={tuple(coordinates.shape)}"
        )
    if int(coordinates.shape[0]) != inputs.shape.rank:
        raise ValueError(
            f"keras.ops.image.{op}: the first axis of `coordinates` must be the rank of "
            f"`inputs`. Received: inputs.shape={tuple(inputs.shape)}, "
            f"coordinates.shape={tuple(coordinates.shape)}"
        )
    choice(fill_mode, _MAP_FILL_MODES, op, "fill_mode")
    if order not in (0, 1):
        raise NotImplementedError(
            f"keras.ops.image.{op}: `order` must be 0 or 1. Received: order={order!r}"
        )
    if not coordinates.dtype.is_floating:
        coordinates = tf.cast(coordinates, floatx())
    return sample(inputs, tf.unstack(coordinates, axis=0), int(order), fill_mode, fill_value)


# -- elastic_transform --------------------------------------------------------------------------


def _noise(shape, dtype, seed, op: str) -> Tensor:
    """Standard normal values: an int ``seed`` gives the same ones on every call (Keras's
    stateless draw from ``[seed, 0]``), None and a ``SeedGenerator`` fresh ones."""
    from ...random import normal
    from ...random_generator import stateless_normal
    from ..random import SeedGenerator

    if seed is None:
        return normal(shape, dtype=dtype)  # stateful: a fresh draw on every graph call
    if isinstance(seed, SeedGenerator):
        return stateless_normal(shape, seed.next(), dtype=dtype)
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return stateless_normal(shape, [int(seed), 0], dtype=dtype)
    raise ValueError(
        f"keras.ops.image.{op}: argument `seed` must be either an integer or an instance of "
        f"`SeedGenerator`. Received: seed={seed!r} (of type {type(seed).__name__})"
    )


@keras_op
def elastic_transform(
    images,
    alpha=20.0,
    sigma=5.0,
    interpolation="bilinear",
    fill_mode="reflect",
    fill_value=0.0,
    seed=None,
    data_format=None,
):
    """Elastic deformation (follows `keras.ops.image.elastic_transform`): a standard normal
    field times ``sigma``, blurred by a Gaussian of ``sigma`` (kernel ``6 int(sigma) | 1``),
    times ``alpha``, moves every pixel; the image is resampled there with `map_coordinates`.
    As in Keras, the row and column displacements come from the same draw.

    Args:
        images: float ``(H, W, C)`` or ``(B, H, W, C)`` (or channels first).
        alpha: the displacement's scale. sigma: its smoothness.
        interpolation: ``"bilinear"`` (default) or ``"nearest"``.
        fill_mode: ``"reflect"`` (default), ``"constant"``, ``"nearest"`` or ``"wrap"``, as
            in `map_coordinates`.
        fill_value: the value outside the image with ``"constant"``.
        seed: None (a fresh field on every call, in graph functions too), an int (the same
            field on every call; TensorFlow's numbers for that seed) or a
            ``keras.random.SeedGenerator``.
        data_format: ``"channels_last"`` or ``"channels_first"`` (default: the config's).

    Returns:
        The shape and dtype of ``images``; differentiable in ``images``.

    Raises:
        ValueError: an unknown ``interpolation``, ``fill_mode`` or ``data_format``, rank
            other than 3 or 4, or a bad ``seed``.
        TypeError: non-float images.

    >>> img = ek.ones((8, 8, 1))
    >>> out = ek.keras.ops.image.elastic_transform(img, seed=1)
    >>> out.shape, float(ek.reduce_max(ek.abs(out - 1.0)))
    (TensorShape([8, 8, 1]), 0.0)
    """
    op = "elastic_transform"
    data_format = data_format_of(data_format, op)
    choice(interpolation, _INTERPOLATIONS, op, "interpolation")
    choice(fill_mode, _FILL_MODES, op, "fill_mode")
    images = to_tensor(images)
    check_rank(images, op)
    if not images.dtype.is_floating:
        raise TypeError(
            f"keras.ops.image.{op}: images must be a float tensor. "
            f"Received: images.dtype={images.dtype.name}"
        )
    dtype = images.dtype
    alpha, sigma_t = to_tensor(alpha, dtype), to_tensor(sigma, dtype)
    size = 6 * int(float(sigma)) | 1
    x = _batch_nhwc(images, data_format)
    batch, height, width, channels = (int(d) for d in x.shape)
    noise = _noise((batch, height, width), dtype, seed, op) * sigma_t
    noise = tf.squeeze(blur(tf.expand_dims(noise, -1), (size, size), (sigma_t, sigma_t)), [3])
    cols, rows = np.meshgrid(np.arange(width), np.arange(height), indexing="xy")
    shift = alpha * noise
    y = to_tensor(rows.astype(dtype.as_numpy_dtype)) + shift  # (B, H, W)
    xs = to_tensor(cols.astype(dtype.as_numpy_dtype)) + shift
    full = [batch, height, width, channels]
    b_idx = np.broadcast_to(np.arange(batch)[:, None, None, None], full).astype(np.int32)
    c_idx = np.broadcast_to(np.arange(channels), full).astype(np.int32)
    coords = [
        to_tensor(b_idx),
        tf.broadcast_to(tf.expand_dims(y, -1), full),
        tf.broadcast_to(tf.expand_dims(xs, -1), full),
        to_tensor(c_idx),
    ]
    out = sample(x, coords, _INTERPOLATIONS.index(interpolation), fill_mode, fill_value)
    return _unbatch(out, images, data_format)


# -- scale_and_translate ------------------------------------------------------------------------


def _triangle(x):
    return tf.maximum(tf.zeros_like(x), 1.0 - tf.abs(x))


def _keys_cubic(x):
    out = ((1.5 * x - 2.5) * x) * x + 1.0
    out = tf.where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, out)
    return tf.where(x >= 2.0, tf.zeros_like(x), out)


def _lanczos(radius: float, x):
    y = radius * tf.sin(np.pi * x) * tf.sin(np.pi * x / radius)
    safe = tf.where(tf.not_equal(x, 0.0), np.pi**2 * x * x, tf.ones_like(x))
    out = tf.where(x > 1e-3, y / safe, tf.ones_like(x))
    return tf.where(x > radius, tf.zeros_like(x), out)


_KERNELS = {
    "linear": _triangle,
    "cubic": _keys_cubic,
    "lanczos3": functools.partial(_lanczos, 3.0),
    "lanczos5": functools.partial(_lanczos, 5.0),
}


def _weights(in_size: int, out_size: int, scale, translation, kernel, antialias) -> Tensor:
    """Keras's ``_compute_weight_mat``: ``(in_size, out_size)`` resampling weights, each
    column normalized, zero where the sample falls outside the input."""
    dtype = scale.dtype
    inv_scale = 1.0 / scale
    kernel_scale = tf.maximum(inv_scale, 1.0) if antialias else 1.0
    out_pos = to_tensor(np.arange(out_size, dtype=dtype.as_numpy_dtype))
    in_pos = to_tensor(np.arange(in_size, dtype=dtype.as_numpy_dtype))
    sample_f = (out_pos + 0.5) * inv_scale - translation * inv_scale - 0.5
    x = tf.abs(tf.expand_dims(sample_f, 0) - tf.expand_dims(in_pos, 1)) / kernel_scale
    weights = kernel(x)
    total = tf.reduce_sum(weights, axis=0, keepdims=True)
    nonzero = tf.where(tf.not_equal(total, 0.0), total, tf.ones_like(total))
    weights = tf.where(
        tf.abs(total) > 1000.0 * float(np.finfo(np.float32).eps),
        weights / nonzero,
        tf.zeros_like(weights),
    )
    inside = tf.logical_and(sample_f >= -0.5, sample_f <= in_size - 0.5)
    return tf.where(tf.expand_dims(inside, 0), weights, tf.zeros_like(weights))


@keras_op
def scale_and_translate(
    images, output_shape, scale, translation, spatial_dims, method, antialias=True
):
    """Resamples ``images`` to ``output_shape``, each axis ``d`` of ``spatial_dims`` mapping
    an input position ``p`` to ``p * scale[i] + translation[i]`` (follows
    `keras.ops.image.scale_and_translate`, JAX's ``jax.image.scale_and_translate``):
    half-pixel centres, an output sample outside the input is zero.

    Args:
        images: any rank, any real dtype (integers computed in float32, rounded and clipped
            to the input's range).
        output_shape: the output shape, one int per axis of ``images``.
        scale, translation: ``(K,)``, one per spatial axis.
        spatial_dims: the ``K`` axes to resample.
        method: ``"linear"``/``"bilinear"``/``"trilinear"``, ``"cubic"``/``"bicubic"``/
            ``"tricubic"`` (Keys), ``"lanczos3"`` or ``"lanczos5"``.
        antialias: widen the kernel when downsampling (default True).

    Returns:
        ``output_shape``, ``images``' dtype; differentiable in ``images``, ``scale`` and
        ``translation``.

    Raises:
        ValueError: an unknown ``method``.

    >>> img = ek.reshape(ek.range(9.0), (3, 3))
    >>> out = ek.keras.ops.image.scale_and_translate(
    ...     img, (5, 5), [2.0, 2.0], [-0.5, -0.5], (0, 1), "linear")
    >>> out[0].numpy()
    array([0. , 0.5, 1. , 1.5, 2. ], dtype=float32)
    """
    op = "scale_and_translate"
    choice(method, _SCALE_METHODS, op, "method")
    kind = {"bilinear": "linear", "trilinear": "linear", "bicubic": "cubic", "tricubic": "cubic"}
    kernel = _KERNELS[kind.get(method, method)]
    images = to_tensor(images)
    scale, translation = to_tensor(scale), to_tensor(translation)
    dtype = result_type(scale, translation)
    scale, translation = tf.cast(scale, dtype), tf.cast(translation, dtype)
    if not spatial_dims:
        return images
    integer = not images.dtype.is_floating
    out = tf.cast(images, "float32") if integer else images
    rank = images.shape.rank
    for i, d in enumerate(spatial_dims):
        d = d % rank
        w = _weights(
            int(images.shape[d]), int(output_shape[d]), scale[i], translation[i], kernel, antialias
        )
        out = tf.tensordot(out, tf.cast(w, out.dtype), [[d], [0]])
        out = tf.transpose(out, [*range(d), rank - 1, *range(d, rank - 1)])
    if integer:
        lo = tf.cast(tf.reduce_min(images), "float32")
        hi = tf.cast(tf.reduce_max(images), "float32")
        out = tf.cast(tf.clip_by_value(tf.round(out), lo, hi), images.dtype)
    return out
