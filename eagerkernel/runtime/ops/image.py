"""`ek.image` basics (follows `tf.image`): dtype conversion, flips, contrast, grayscale and
`resize` with every TensorFlow 2 method (bilinear and nearest here; the separable bicubic,
area, Lanczos, Gaussian and Mitchell kernels and anti-aliasing in ``image_resize``).

Every function is built from differentiable ops (gather, reverse, arithmetic), so gradients
flow to the image as in TensorFlow. Images are ``[height, width, channels]`` or
``[batch, height, width, channels]``.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.dispatch import Primitive, stateful
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ._core import apply, tensor

__all__ = [
    "ResizeMethod",
    "adjust_contrast",
    "convert_image_dtype",
    "flip_left_right",
    "flip_up_down",
    "random_flip_left_right",
    "resize",
    "rgb_to_grayscale",
]


class ResizeMethod:
    """The names `resize` takes for ``method`` (follows `tf.image.ResizeMethod`)."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


def image_arg(image, op: str, ranks=(3, 4), name: str = "image") -> Tensor:
    image = tensor(image, op)
    if image.ndim not in ranks:
        want = " or ".join(str(r) for r in ranks)
        raise ValueError(
            f"{op}: '{name}' must have {want} dimensions (at least 3 for [height, width, "
            f"channels]), got shape {tuple(image.shape)}."
        )
    return image


def _limits(dt: np.dtype) -> tuple[float, float]:
    info = np.iinfo(dt)
    return float(info.min), float(info.max)


def _saturate_cast(x: Tensor, dt_out: np.dtype) -> Tensor:
    """``x`` clamped to ``dt_out``'s range, then cast (follows `tf.dtypes.saturate_cast`): a
    limit the input dtype cannot hold exactly is nudged toward zero, so float32 saturates to
    int32 at 2147483520 rather than overflowing at 2**31."""
    from .elementwise import cast, clip_by_value

    dt_in = x._value.dtype
    lo_out, hi_out = _limits(dt_out)
    lo_in, hi_in = (-np.inf, np.inf) if dt_in.kind == "f" else _limits(dt_in)
    lo, hi = dt_in.type(max(lo_in, lo_out)), dt_in.type(min(hi_in, hi_out))
    if float(lo) < lo_out:
        lo = np.nextafter(lo, dt_in.type(0), dtype=dt_in)
    if float(hi) > hi_out:
        hi = np.nextafter(hi, dt_in.type(0), dtype=dt_in)
    return cast(clip_by_value(x, np.asarray(lo, dt_in), np.asarray(hi, dt_in)), dt_out)


def convert_image_dtype(image, dtype, saturate=False, name=None) -> Tensor:
    """Converts an image to ``dtype``, rescaling values (follows `tf.image.convert_image_dtype`).

    Floating images hold values in ``[0, 1)``; integer images use the dtype's full range
    (``0..255`` for uint8). Integer to float divides by the input dtype's maximum; float to
    integer multiplies by the output maximum + 0.5 and truncates (with ``saturate=True`` values
    are clipped to the output range first); integer to integer shifts by the ratio of the
    ranges; float to float only casts. The same dtype returns ``image`` unchanged.

    Raises:
        AttributeError/TypeError: ``dtype`` is neither an integer nor a floating dtype.

    >>> ek.image.convert_image_dtype(ek.constant([0, 255], ek.uint8), ek.float32).numpy()
    array([0., 1.], dtype=float32)
    """
    from .elementwise import cast, floordiv

    image = tensor(image, "convert_image_dtype")
    out = dtypes.as_dtype(dtype)
    dt_out = np.dtype(dtypes.numpy_dtype(out))
    dt_in = image._value.dtype
    if dt_out.kind not in "iuf" or dt_in.kind not in "iuf":
        raise TypeError(
            f"convert_image_dtype: both dtypes must be integer or floating, got "
            f"{image.dtype.name} -> {out.name}."
        )
    if dt_in == dt_out:
        return image
    if dt_in.kind in "iu" and dt_out.kind in "iu":
        scale_in, scale_out = _limits(dt_in)[1], _limits(dt_out)[1]
        if scale_in > scale_out:
            scale = (int(scale_in) + 1) // (int(scale_out) + 1)
            scaled = floordiv(image, tensor(np.asarray(scale, dt_in), "convert_image_dtype"))
            return _saturate_cast(scaled, dt_out) if saturate else cast(scaled, out)
        scale = (int(scale_out) + 1) // (int(scale_in) + 1)
        return (_saturate_cast(image, dt_out) if saturate else cast(image, out)) * scale
    if dt_in.kind == "f" and dt_out.kind == "f":
        return cast(image, out)
    if dt_in.kind in "iu":  # integer -> float
        return cast(image, out) * (1.0 / _limits(dt_in)[1])
    scaled = image * (_limits(dt_out)[1] + 0.5)  # float -> integer
    return _saturate_cast(scaled, dt_out) if saturate else cast(scaled, out)


def flip_left_right(image) -> Tensor:
    """Reverses the width axis of ``[H, W, C]`` or ``[B, H, W, C]`` images (follows
    `tf.image.flip_left_right`).

    Raises:
        ValueError: rank other than 3 or 4.

    >>> ek.image.flip_left_right([[[1.0], [2.0], [3.0]]]).numpy().ravel()
    array([3., 2., 1.], dtype=float32)
    """
    from .array_ops import reverse

    image = image_arg(image, "flip_left_right")
    return reverse(image, [image.ndim - 2])


def flip_up_down(image) -> Tensor:
    """Reverses the height axis of ``[H, W, C]`` or ``[B, H, W, C]`` images (follows
    `tf.image.flip_up_down`).

    Raises:
        ValueError: rank other than 3 or 4.
    """
    from .array_ops import reverse

    image = image_arg(image, "flip_up_down")
    return reverse(image, [image.ndim - 3])


@stateful  # a fresh draw on every call of a graph function
def random_flip_left_right(image, seed=None) -> Tensor:
    """Flips each image left to right with probability 1/2 (follows
    `tf.image.random_flip_left_right`); a batch ``[B, H, W, C]`` draws once per image.

    Raises:
        ValueError: rank other than 3 or 4.
    """
    from .. import random
    from .array_ops import reshape
    from .elementwise import where

    image = image_arg(image, "random_flip_left_right")
    batch = image.ndim == 4
    n = image.shape[0] if batch else 1
    flip = random.uniform([n], 0.0, 1.0, seed=seed) < 0.5
    flipped = flip_left_right(image)
    mask = reshape(flip, [n, 1, 1, 1] if batch else [1, 1, 1])
    return where(mask, flipped, image)


def float_image(image: Tensor) -> Tensor:
    """``image`` as float32 in [0, 1] unless it is already float16/float32 (TF's rule)."""
    if image.dtype in (dtypes.float16, dtypes.float32):
        return image
    return convert_image_dtype(image, dtypes.float32)


def _adjust_contrast_fwd(xp, images, factor):
    mean = images.mean(axis=(-3, -2), keepdims=True, dtype=images.dtype)
    return ((images - mean) * factor + mean).astype(images.dtype, copy=False)


# TensorFlow registers no gradient for AdjustContrastv2 (the autodiff guide shows the
# LookupError), so this primitive has no VJP: differentiating through it raises LookupError.
_adjust_contrast = Primitive("AdjustContrastv2", _adjust_contrast_fwd)


def adjust_contrast(images, contrast_factor) -> Tensor:
    """Adjusts the contrast of each channel (follows `tf.image.adjust_contrast`): every value
    ``x`` becomes ``(x - mean) * contrast_factor + mean``, with ``mean`` the channel's mean over
    the image's height and width. Integer images are converted to float32 and back (saturating).
    As in TensorFlow, the op has no gradient: a tape asked to differentiate through it raises
    LookupError.

    Args:
        images: at least 3-D, ``[..., height, width, channels]``.
        contrast_factor: a float multiplier (a Python number or a scalar tensor).

    Raises:
        ValueError: rank below 3, or a ``contrast_factor`` that is not a scalar.

    >>> ek.image.adjust_contrast([[[1.0], [3.0]]], 2.0).numpy().ravel()
    array([0., 4.], dtype=float32)
    """
    images = tensor(images, "adjust_contrast")
    if images.ndim < 3:
        raise ValueError(
            f"adjust_contrast: 'images' must be at least 3-D [..., height, width, channels], "
            f"got shape {tuple(images.shape)}."
        )
    flt = float_image(images)
    factor = tensor(contrast_factor, "adjust_contrast", flt._value.dtype)
    if factor.ndim != 0:
        raise ValueError(
            f"adjust_contrast: 'contrast_factor' must be a scalar, got shape {tuple(factor.shape)}."
        )
    if factor._value.dtype != flt._value.dtype:
        from .elementwise import cast

        factor = cast(factor, flt.dtype)
    adjusted = apply(_adjust_contrast, (flt, factor))
    return convert_image_dtype(adjusted, images.dtype, saturate=True)


def rgb_to_grayscale(images, name=None) -> Tensor:
    """Converts RGB images ``[..., 3]`` to grayscale ``[..., 1]`` (follows
    `tf.image.rgb_to_grayscale`) with the weights 0.2989, 0.5870, 0.1140, in float32 and back
    to the input's dtype.

    Raises:
        InvalidArgumentError: a last dimension other than 3 (a ValueError).

    >>> ek.image.rgb_to_grayscale([[[1.0, 1.0, 1.0]]]).numpy().ravel()
    array([0.9999], dtype=float32)
    """
    from .array_ops import expand_dims
    from .linalg import tensordot

    images = tensor(images, "rgb_to_grayscale")
    if images.ndim < 1 or images.shape[-1] != 3:
        raise InvalidArgumentError(
            None,
            "rgb_to_grayscale",
            f"rgb_to_grayscale: 'images' must have 3 channels in its last dimension, got "
            f"shape {tuple(images.shape)}.",
        )
    flt = convert_image_dtype(images, dtypes.float32)
    weights = tensor(np.asarray([0.2989, 0.5870, 0.1140], np.float32), "rgb_to_grayscale")
    gray = expand_dims(tensordot(flt, weights, [[flt.ndim - 1], [0]]), -1)
    return convert_image_dtype(gray, images.dtype)


def _bilinear_axis(images: Tensor, axis: int, out_size: int) -> Tensor:
    """Bilinear resampling of one axis with half-pixel centres (TensorFlow's ResizeBilinear
    with ``half_pixel_centers=True``): output ``i`` samples input ``(i + 0.5) * in/out - 0.5``."""
    from .array_ops import reshape
    from .indexing import gather

    in_size = images.shape[axis]
    # float32 coordinates, as the kernel's HalfPixelScaler computes them
    scale = np.float32(in_size) / np.float32(out_size)
    src = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale - np.float32(0.5)
    src_f = np.floor(src)
    lower = np.maximum(src_f, 0).astype(np.int64)
    upper = np.minimum(np.ceil(src), in_size - 1).astype(np.int64)
    lerp = (src - src_f).astype(images._value.dtype)
    shape = [1] * images.ndim
    shape[axis] = out_size
    w = reshape(tensor(lerp, "resize"), shape)
    top = gather(images, lower, axis=axis)
    bottom = gather(images, upper, axis=axis)
    return top + (bottom - top) * w


def _nearest_axis(images: Tensor, axis: int, out_size: int) -> Tensor:
    """Nearest-neighbour resampling of one axis with half-pixel centres (TensorFlow's
    ResizeNearestNeighbor with ``half_pixel_centers=True``): input ``floor((i + 0.5) * in/out)``.
    """
    from .indexing import gather

    in_size = images.shape[axis]
    scale = np.float32(in_size) / np.float32(out_size)  # float32, as the kernel's
    src = np.floor((np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale)
    src = src.astype(np.int64)
    return gather(images, np.clip(src, 0, in_size - 1), axis=axis)


def resize(
    images,
    size,
    method=ResizeMethod.BILINEAR,
    preserve_aspect_ratio=False,
    antialias=False,
    name=None,
) -> Tensor:
    """Resizes ``[H, W, C]`` or ``[B, H, W, C]`` images to ``size = [new_height, new_width]``
    (follows `tf.image.resize`, i.e. TensorFlow 2's ``resize_images_v2``, with its kernels'
    numbers: pixel centres at half-integers, taps outside the image dropped and the remaining
    weights renormalised).

    Args:
        method: a `ResizeMethod` name (case-insensitive):

            - ``"bilinear"`` (default): ResizeBilinear with half-pixel centres.
            - ``"nearest"``: ResizeNearestNeighbor with half-pixel centres.
            - ``"bicubic"``: ResizeBicubic with half-pixel centres and Keys' cubic (a = -0.5).
            - ``"area"``: ResizeArea, each output pixel the mean of the input area it covers.
            - ``"lanczos3"``, ``"lanczos5"``: Lanczos kernels of radius 3 and 5.
            - ``"gaussian"``: a Gaussian of radius 3 pixels (sigma 0.5).
            - ``"mitchellcubic"``: Mitchell-Netravali's cubic (B = C = 1/3).

            The last four are TensorFlow's ScaleAndTranslate with that kernel.
        preserve_aspect_ratio: scale both sides by the same factor so the result fits in
            ``size`` (each side rounded).
        antialias: when downsampling an axis, widen the kernel by ``in / out`` so every input
            pixel contributes (a low-pass filter). ``"bilinear"`` then uses a triangle kernel
            and ``"bicubic"`` Keys' cubic kernel through ScaleAndTranslate (as TensorFlow);
            the Lanczos, Gaussian and Mitchell kernels honour it; ``"nearest"`` and ``"area"``
            ignore it, as in TensorFlow. It has no effect when upsampling.

    Returns:
        float32 for every method but nearest (any input dtype; integers are not rescaled),
        the input's dtype for nearest. Gradients flow to float images for every method (each
        is linear in the image; TensorFlow itself registers none for ``"area"``).

    Raises:
        ValueError: rank other than 3 or 4, a ``size`` that is not two integers, or an
            unknown method (TensorFlow's message ``Resize method is not implemented``).
        InvalidArgumentError: an image of height or width 0, or an output size (after
            ``preserve_aspect_ratio``) that is not positive, as TensorFlow's kernels.

    >>> image = ek.eye(5, dtype=ek.int32)[ek.newaxis, ..., ek.newaxis]
    >>> ek.image.resize(image, [3, 5])[0, ..., 0].numpy().round(4)
    array([[0.6667, 0.3333, 0.    , 0.    , 0.    ],
           [0.    , 0.    , 1.    , 0.    , 0.    ],
           [0.    , 0.    , 0.    , 0.3333, 0.6667]], dtype=float32)
    >>> ramp = ek.reshape(ek.range(4.0), [1, 4, 1])
    >>> ek.image.resize(ramp, [1, 2], method="area")[0, :, 0].numpy()
    array([0.5, 2.5], dtype=float32)
    >>> ek.image.resize(ramp, [1, 8], method="bicubic")[0, :, 0].numpy().round(4)
    array([-0.0882,  0.1679,  0.7099,  1.25  ,  1.75  ,  2.2901,  2.8321,
            3.0882], dtype=float32)
    """
    from .array_ops import squeeze
    from .elementwise import cast
    from .image_resize import apply_separable, axis_weights

    images = image_arg(images, "resize", name="images")
    try:
        sz = np.asarray(size.numpy() if isinstance(size, Tensor) else size)
        if sz.shape != (2,) or sz.dtype.kind not in "iu":
            raise ValueError
        new_h, new_w = int(sz[0]), int(sz[1])
    except (TypeError, ValueError):
        raise ValueError(
            f"resize: 'size' must be a 1-D int32 Tensor of 2 elements: new_height, new_width; "
            f"got {size!r}."
        ) from None
    method = str(method).lower()
    known = {v for k, v in vars(ResizeMethod).items() if k.isupper()}
    if method not in known:
        raise ValueError(f"Resize method is not implemented: {method}")
    batch = images.ndim == 4
    x = images if batch else images[None]
    height, width = x.shape[1], x.shape[2]
    if height == 0 or width == 0:  # TensorFlow's resize kernels refuse these (the batch may be 0)
        raise InvalidArgumentError(
            None, "resize", f"resize: input image must be of non-zero size, got {x.shape}."
        )
    if preserve_aspect_ratio and new_h > 0 and new_w > 0:
        factor = min(np.float32(new_h) / np.float32(height), np.float32(new_w) / np.float32(width))
        new_h = int(np.round(np.float32(factor) * np.float32(height)))
        new_w = int(np.round(np.float32(factor) * np.float32(width)))
    if new_h <= 0 or new_w <= 0:
        raise InvalidArgumentError(
            None, "resize", f"resize: 'size' must be positive, got {[new_h, new_w]}."
        )
    if method == ResizeMethod.NEAREST_NEIGHBOR:
        out = _nearest_axis(_nearest_axis(x, 1, new_h), 2, new_w)
        return out if batch else squeeze(out, [0])
    if x.dtype != dtypes.float32:
        x = cast(x, dtypes.float32)
    downsampling = new_h < height or new_w < width
    if method == ResizeMethod.BILINEAR and not (antialias and downsampling):
        # Upsampling, the triangle kernel is bilinear interpolation: TensorFlow's two paths
        # agree, and this one keeps ResizeBilinear's exact arithmetic.
        # Along the width first: the kernel interpolates each row, then between rows.
        out = _bilinear_axis(_bilinear_axis(x, 2, new_w), 1, new_h)
    else:
        if method == ResizeMethod.BILINEAR:
            kind = "triangle"
        elif method == ResizeMethod.BICUBIC:
            kind = "keyscubic" if antialias else "bicubic"
        else:
            kind = method
        out = apply_separable(
            x,
            axis_weights(kind, height, new_h, antialias),
            axis_weights(kind, width, new_w, antialias),
        )
    return out if batch else squeeze(out, [0])
