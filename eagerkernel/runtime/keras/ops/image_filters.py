"""`keras.ops.image` filters and patches: Gaussian blur, patch extraction (2D and 3D), Sobel
edges and SSIM (follows ``keras/src/ops/image.py`` and its TensorFlow backend,
``keras/src/backend/tensorflow/image.py``). Each is built of eagerkernel's dispatched ops
(convolutions, strided slices), so tapes differentiate through them and `ek.function`
replays recompute them.
"""

from __future__ import annotations

import numpy as np

from ...core.tensor import Tensor
from ...ops import image_geometry, image_metrics
from ._base import keras_op, to_tensor
from ._tf import tf
from .image_base import (
    check_rank,
    compute_dtype,
    data_format_of,
    from_channels_last,
    images_arg,
    to_channels_last,
)

__all__ = ["extract_patches", "extract_patches_3d", "gaussian_blur", "sobel_edges", "ssim"]


def _pair(value, op: str, name: str) -> tuple:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ValueError(
            f"keras.ops.image.{op}: `{name}` must be a tuple of two numbers. "
            f"Received: {name}={value!r}"
        )
    return tuple(value)


def _gaussian_1d(size: int, sigma, dtype) -> Tensor:
    x = to_tensor(np.arange(size, dtype=dtype.as_numpy_dtype) - (size - 1) / 2)
    kernel = tf.exp(-0.5 * tf.square(x / sigma))
    return kernel / tf.reduce_sum(kernel)


def blur(images: Tensor, kernel_size, sigma) -> Tensor:
    """Keras's Gaussian blur of NHWC float ``images``: ``kernel_size`` ``(k0, k1)``; the
    kernel is ``outer(g(k1, sigma[1]), g(k0, sigma[0]))`` reshaped to ``(k0, k1)``, as Keras's
    TensorFlow backend builds it (for a square kernel, ``sigma[1]`` acts along the height),
    applied to each channel with zero ("same") padding."""
    dtype = images.dtype
    k0, k1 = int(kernel_size[0]), int(kernel_size[1])
    s0, s1 = (to_tensor(s, dtype) for s in sigma)
    kernel = tf.reshape(
        tf.tensordot(_gaussian_1d(k1, s1, dtype), _gaussian_1d(k0, s0, dtype), 0),
        [k0, k1, 1, 1],
    )
    kernel = tf.tile(kernel, [1, 1, int(images.shape[-1]), 1])
    return tf.nn.depthwise_conv2d(images, kernel, [1, 1, 1, 1], "SAME")


@keras_op
def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    """A Gaussian blur of each channel (follows `keras.ops.image.gaussian_blur`), zero
    padding at the borders; differentiable in ``images`` (and in a tensor ``sigma``).

    Args:
        images: float ``(H, W, C)`` or ``(B, H, W, C)`` (or channels first).
        kernel_size: two ints ``(height, width)``.
        sigma: two standard deviations; as in Keras's TensorFlow backend the kernel is
            ``outer(g(kernel_size[1], sigma[1]), g(kernel_size[0], sigma[0]))`` reshaped to
            ``kernel_size``, so for a square kernel ``sigma[1]`` acts along the height.
        data_format: ``"channels_last"`` or ``"channels_first"`` (default: the config's).

    Returns:
        The shape and dtype of ``images``.

    Raises:
        ValueError: rank other than 3 or 4, a ``kernel_size`` or ``sigma`` that is not a
            pair, or a bad ``data_format``.
        TypeError: non-float images (Keras's TensorFlow backend cannot build the kernel).

    >>> img = ek.zeros((3, 3, 1)) + ek.reshape(ek.one_hot(4, 9), (3, 3, 1))
    >>> ek.keras.ops.image.gaussian_blur(img)[..., 0].numpy().round(4)
    array([[0.0751, 0.1238, 0.0751],
           [0.1238, 0.2042, 0.1238],
           [0.0751, 0.1238, 0.0751]], dtype=float32)
    """
    op = "gaussian_blur"
    images, data_format = images_arg(images, data_format, op)
    kernel_size, sigma = _pair(kernel_size, op, "kernel_size"), _pair(sigma, op, "sigma")
    if not images.dtype.is_floating:
        raise TypeError(
            f"keras.ops.image.{op}: images must be a float tensor. "
            f"Received: images.dtype={images.dtype.name}"
        )
    x = to_channels_last(images, data_format)
    single = x.shape.rank == 3
    x = tf.expand_dims(x, 0) if single else x
    out = blur(x, kernel_size, sigma)
    out = tf.squeeze(out, [0]) if single else out
    return from_channels_last(out, data_format)


def _ints(value, n: int, op: str, name: str) -> list[int]:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return [int(value)] * n
    if isinstance(value, (tuple, list)) and len(value) == n:
        return [int(v) for v in value]
    raise ValueError(f"keras.ops.image.{op}: invalid `{name}` argument. Received: {value!r}")


def _padding(padding, op: str) -> str:
    mode = str(padding).upper()
    if mode not in ("VALID", "SAME"):
        raise ValueError(
            f"keras.ops.image.{op}: `padding` must be 'valid' or 'same'. "
            f"Received: padding={padding!r}"
        )
    return mode


def _patches_2d(images, size, strides, dilation_rate, padding, data_format, op):
    sizes = _ints(size, 2, op, "size")
    strides = _ints(strides if strides else sizes, 2, op, "strides")
    rates = _ints(dilation_rate, 2, op, "dilation_rate")
    images = to_tensor(images)
    data_format = data_format_of(data_format, op)
    if images.shape.rank not in (3, 4):
        raise ValueError(
            f"keras.ops.image.{op}: 2D patches need images of rank 3 (single image) or 4 "
            f"(batch of images). Received: images.shape={tuple(images.shape)}"
        )
    x = to_channels_last(images, data_format)
    single = x.shape.rank == 3
    x = tf.expand_dims(x, 0) if single else x
    out = image_geometry.extract_patches(
        x, [1, *sizes, 1], [1, *strides, 1], [1, *rates, 1], _padding(padding, op)
    )
    out = tf.squeeze(out, [0]) if single else out
    return from_channels_last(out, data_format)


def _check_size(size, op: str) -> None:
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        return
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            f"keras.ops.image.{op}: invalid `size` argument. Expected an int or a tuple. "
            f"Received: size={size!r} of type {type(size).__name__}"
        )
    if len(size) not in (2, 3):
        raise ValueError(
            f"keras.ops.image.{op}: invalid `size` argument. Expected a tuple of length 2 or "
            f"3. Received: size={size!r} with length {len(size)}"
        )


@keras_op
def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid", data_format=None):
    """Patches of ``size`` gathered into the channels axis (follows
    `keras.ops.image.extract_patches`, a convolution with an identity kernel).

    Args:
        images: 2D patches: ``(H, W, C)`` or ``(B, H, W, C)`` (or channels first); 3D
            patches (``size`` of length 3): volumes, as `extract_patches_3d`.
        size: an int or ``(patch_height, patch_width)`` (or 3 for volumes).
        strides: an int or a tuple; default ``size`` (non-overlapping patches).
        dilation_rate: an int or a tuple, the distance between a patch's samples.
        padding: ``"valid"`` or ``"same"`` (zeros, TensorFlow's split).
        data_format: ``"channels_last"`` or ``"channels_first"`` (default: the config's).

    Returns:
        ``images``' dtype, ``(out_h, out_w, ph * pw * C)`` (batched: a leading ``B``), each
        patch flattened in (row, column, channel) order; channels first puts that axis first.

    Raises:
        TypeError: a ``size`` that is neither an int nor a tuple.
        ValueError: a tuple ``size`` of another length, a malformed ``strides`` or
            ``dilation_rate``, an unknown ``padding``, or images of the wrong rank.

    >>> x = ek.reshape(ek.range(16.0), (4, 4, 1))
    >>> ek.keras.ops.image.extract_patches(x, 2)[0].numpy()
    array([[0., 1., 4., 5.],
           [2., 3., 6., 7.]], dtype=float32)
    """
    op = "extract_patches"
    _check_size(size, op)
    if isinstance(size, (tuple, list)) and len(size) == 3:
        return _patches_3d(images, size, strides, dilation_rate, padding, data_format, op)
    return _patches_2d(images, size, strides, dilation_rate, padding, data_format, op)


def _patches_3d(volumes, size, strides, dilation_rate, padding, data_format, op):
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        size = (int(size),) * 3
    if not isinstance(size, (tuple, list)) or len(size) != 3:
        raise TypeError(
            f"keras.ops.image.{op}: invalid `size` argument. Expected an int or a tuple of "
            f"length 3. Received: size={size!r}"
        )
    sizes = [int(s) for s in size]
    strides = _ints(sizes if strides is None else strides, 3, op, "strides")
    rates = _ints(dilation_rate, 3, op, "dilation_rate")
    mode = _padding(padding, op)
    volumes = to_tensor(volumes)
    data_format = data_format_of(data_format, op)
    rank = volumes.shape.rank
    if rank not in (4, 5):
        raise ValueError(
            f"keras.ops.image.{op}: volumes must be of rank 4 (single volume) or 5 (batch of "
            f"volumes). Received: volumes.shape={tuple(volumes.shape)}"
        )
    x = volumes if rank == 5 else tf.expand_dims(volumes, 0)
    if data_format == "channels_first":
        x = tf.transpose(x, [0, 2, 3, 4, 1])
    spatial, outs, pads = x.shape[1:4], [], []
    for n, k, s, r in zip(spatial, sizes, strides, rates):
        eff = k + (k - 1) * (r - 1)
        out = max((n - eff) // s + 1, 0) if mode == "VALID" else -(-n // s)
        total = 0 if mode == "VALID" else max((out - 1) * s + eff - n, 0)
        outs.append(out)
        pads.append([total // 2, total - total // 2])
    x = tf.pad(x, [[0, 0], *pads, [0, 0]]) if mode == "SAME" else x
    taps = []
    for i in range(sizes[0]):
        for j in range(sizes[1]):
            for k in range(sizes[2]):
                starts = (i * rates[0], j * rates[1], k * rates[2])
                index = tuple(
                    slice(a, a + (o - 1) * s + 1, s) for a, o, s in zip(starts, outs, strides)
                )
                taps.append(x[(slice(None), *index)])
    channels = int(x.shape[-1])
    batch = int(x.shape[0])
    out = tf.reshape(tf.stack(taps, axis=4), [batch, *outs, len(taps) * channels])
    if data_format == "channels_first":
        out = tf.transpose(out, [0, 4, 1, 2, 3])
    return out if rank == 5 else tf.squeeze(out, [0])


@keras_op
def extract_patches_3d(
    volumes, size, strides=None, dilation_rate=1, padding="valid", data_format=None
):
    """Patches of ``size = (depth, height, width)`` gathered into the channels axis
    (follows `keras.ops.image.extract_patches_3d`).

    Args:
        volumes: ``(D, H, W, C)`` or ``(B, D, H, W, C)`` (or channels first), any dtype.
        size: an int or three ints.
        strides: an int or three ints; default ``size``.
        dilation_rate: an int or three ints.
        padding: ``"valid"`` or ``"same"`` (zeros, TensorFlow's split).
        data_format: ``"channels_last"`` or ``"channels_first"`` (default: the config's).

    Returns:
        ``(out_d, out_h, out_w, pd * ph * pw * C)`` (batched: a leading ``B``), each patch
        flattened in (depth, row, column, channel) order.

    Raises:
        TypeError: a ``size`` that is neither an int nor three ints.
        ValueError: ``strides`` or ``dilation_rate`` not an int or three ints, an unknown
            ``padding``, or volumes of a rank other than 4 or 5.

    >>> v = ek.reshape(ek.range(8.0), (2, 2, 2, 1))
    >>> ek.keras.ops.image.extract_patches_3d(v, 2).numpy().ravel()
    array([0., 1., 2., 3., 4., 5., 6., 7.], dtype=float32)
    """
    return _patches_3d(
        volumes, size, strides, dilation_rate, padding, data_format, "extract_patches_3d"
    )


@keras_op
def sobel_edges(images, data_format=None):
    """Sobel responses ``[dy, dx]`` of each channel, reflect padding at the borders
    (follows `keras.ops.image.sobel_edges`, TensorFlow's `tf.image.sobel_edges`).

    Args:
        images: ``(B, H, W, C)`` (channels first: ``(B, C, H, W)``); integers are cast to
            float32.
        data_format: ``"channels_last"`` or ``"channels_first"`` (default: the config's).

    Returns:
        ``(B, H, W, C, 2)`` (channels first: ``(B, C, H, W, 2)``).

    Raises:
        ValueError: rank other than 4, or a bad ``data_format``.

    >>> x = ek.reshape(ek.range(9.0), (1, 3, 3, 1))
    >>> ek.keras.ops.image.sobel_edges(x)[0, 1, 1, 0].numpy()
    array([24.,  8.], dtype=float32)
    """
    op = "sobel_edges"
    images = to_tensor(images)
    data_format = data_format_of(data_format, op)
    if images.shape.rank != 4:
        raise ValueError(
            f"keras.ops.image.{op}: invalid images rank: expected rank 4 (batch of images). "
            f"Received: images.shape={tuple(images.shape)}"
        )
    if data_format == "channels_first":
        images = tf.transpose(images, [0, 2, 3, 1])
    edges = image_metrics.sobel_edges(images)
    return tf.transpose(edges, [0, 3, 1, 2, 4]) if data_format == "channels_first" else edges


@keras_op
def ssim(
    image1,
    image2,
    max_val=1.0,
    filter_size=11,
    filter_sigma=1.5,
    k1=0.01,
    k2=0.03,
    data_format=None,
):
    """The structural similarity of two images (follows `keras.ops.image.ssim`, Keras's own
    formula: Gaussian-windowed means, variances and covariance over VALID positions,
    averaged over positions and then channels); differentiable.

    Args:
        image1, image2: ``(H, W, C)`` or ``(B, H, W, C)`` (or channels first), the same
            shape, at least ``filter_size`` high and wide.
        max_val: the dynamic range (1.0 for images in ``[0, 1]``, 255.0 for bytes).
        filter_size, filter_sigma: the Gaussian window (11, 1.5).
        k1, k2: the stability constants (0.01, 0.03).
        data_format: ``"channels_last"`` or ``"channels_first"`` (default: the config's).

    Returns:
        A scalar (one image) or ``(B,)``, cast to ``image1``'s dtype as Keras does (an
        integer dtype truncates the value to 0 or 1).

    Raises:
        ValueError: rank other than 3 or 4, different shapes, images smaller than the
            window, or a bad ``data_format``.

    >>> x = ek.random.uniform((16, 16, 3), seed=1)
    >>> float(ek.keras.ops.image.ssim(x, x))
    1.0
    """
    op = "ssim"
    data_format = data_format_of(data_format, op)
    image1, image2 = to_tensor(image1), to_tensor(image2)
    check_rank(image1, op, "image1")
    check_rank(image2, op, "image2")
    if image1.shape != image2.shape:
        raise ValueError(
            f"keras.ops.image.{op}: image1 and image2 must have the same shape. Received: "
            f"image1.shape={tuple(image1.shape)}, image2.shape={tuple(image2.shape)}"
        )
    original = image1.dtype
    dtype = compute_dtype(image1)
    x, y = tf.cast(image1, dtype), tf.cast(image2, dtype)
    if x.shape.rank == 3:
        x, y = tf.expand_dims(x, 0), tf.expand_dims(y, 0)
    x, y = to_channels_last(x, data_format), to_channels_last(y, data_format)
    height, width = (int(d) for d in x.shape[1:3])
    size = int(filter_size)
    if min(height, width) < size:
        raise ValueError(
            f"keras.ops.image.{op}: images must be at least filter_size={size} high and "
            f"wide. Received: image1.shape={tuple(image1.shape)}"
        )
    out = image_metrics.ssim(  # tf.image.ssim's formula, which Keras's repeats
        x, y, max_val, filter_size=size, filter_sigma=filter_sigma, k1=k1, k2=k2
    )
    if image1.shape.rank == 3:
        out = tf.squeeze(out, [0])
    return tf.cast(out, original)
