"""`ek.image` colour ops (follows `tf.image`): brightness, gamma, saturation, hue, HSV
conversions, grayscale to RGB, the YIQ and YUV conversions, per-image standardization and
their random / stateless random variants.

Brightness, gamma, standardization and `rgb_to_hsv` are built from differentiable ops;
`hsv_to_rgb` is not differentiable, as TensorFlow's HSVToRGB;
`adjust_saturation` and `adjust_hue` are single primitives without a gradient, as TensorFlow's
AdjustSaturation / AdjustHue (a tape asked to differentiate through them raises LookupError).
Integer images are converted to float32 in ``[0, 1]`` and back (`convert_image_dtype`), as
TensorFlow does.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.dispatch import Primitive, defvjp, stateful
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ._core import apply, tensor
from .image import adjust_contrast, convert_image_dtype, float_image

__all__ = [
    "adjust_brightness",
    "adjust_gamma",
    "adjust_hue",
    "adjust_saturation",
    "grayscale_to_rgb",
    "hsv_to_rgb",
    "per_image_standardization",
    "random_brightness",
    "random_contrast",
    "random_hue",
    "random_saturation",
    "rgb_to_hsv",
    "rgb_to_yiq",
    "rgb_to_yuv",
    "stateless_random_brightness",
    "stateless_random_contrast",
    "stateless_random_hue",
    "stateless_random_saturation",
    "yiq_to_rgb",
    "yuv_to_rgb",
]


def _at_least_3d(image, op: str) -> Tensor:
    image = tensor(image, op)
    if image.ndim < 3:
        raise ValueError(
            f"{op}: 'image' must be at least 3-D [..., height, width, channels], got shape "
            f"{tuple(image.shape)}."
        )
    return image


def _rgb(image, op: str, name: str = "image") -> Tensor:
    image = tensor(image, op)
    if image.ndim < 1 or image.shape[-1] != 3:  # a kernel's check in TensorFlow
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: '{name}' must have 3 channels in its last dimension, got shape "
            f"{tuple(image.shape)}.",
        )
    return image


def _scalar(value, op: str, name: str, like: Tensor) -> Tensor:
    from .elementwise import cast

    value = tensor(value, op, like._value.dtype)
    if value.ndim != 0:
        raise ValueError(f"{op}: '{name}' must be a scalar, got shape {tuple(value.shape)}.")
    if value.dtype != like.dtype:
        value = cast(value, like.dtype)
    return value


def adjust_brightness(image, delta) -> Tensor:
    """Adds ``delta`` to every value (follows `tf.image.adjust_brightness`). Integer images are
    converted to float32 in ``[0, 1]``, shifted, and converted back saturating; float images
    are not clipped.

    Raises:
        ValueError: ``delta`` is not a scalar.

    >>> ek.image.adjust_brightness([[[0.25, 0.5]]], 0.25).numpy()
    array([[[0.5 , 0.75]]], dtype=float32)
    """
    image = tensor(image, "adjust_brightness")
    flt = float_image(image)
    adjusted = flt + _scalar(delta, "adjust_brightness", "delta", flt)
    return convert_image_dtype(adjusted, image.dtype, saturate=True)


def adjust_gamma(image, gamma=1, gain=1) -> Tensor:
    """Gamma correction ``gain * image ** gamma`` (follows `tf.image.adjust_gamma`); integer
    images are converted to float32 in ``[0, 1]`` and back (saturating).

    Raises:
        ValueError: a negative ``gamma``.

    >>> ek.image.adjust_gamma([[[0.25, 1.0]]], gamma=0.5, gain=2.0).numpy()
    array([[[1., 2.]]], dtype=float32)
    """
    op = "adjust_gamma"
    image = tensor(image, op)
    flt = float_image(image)
    gamma_t = _scalar(gamma, op, "gamma", flt)
    if float(gamma_t.numpy()) < 0:
        raise ValueError("Gamma should be a non-negative real number.")
    adjusted = _scalar(gain, op, "gain", flt) * flt**gamma_t
    return convert_image_dtype(adjusted, image.dtype, saturate=True)


def _float_rgb(images, op: str) -> Tensor:
    images = _rgb(images, op, "images")
    if not images.dtype.is_floating:
        raise TypeError(
            f"{op}: 'images' must be float16, bfloat16, float32 or float64, got "
            f"{images.dtype.name}."
        )
    return images


def rgb_to_hsv(images, name=None) -> Tensor:
    """Converts RGB values in ``[0, 1]`` to HSV, hue in ``[0, 1)`` (follows
    `tf.image.rgb_to_hsv`); differentiable as TensorFlow's RGBToHSV.

    Args:
        images: floating, ``[..., 3]``.

    Raises:
        ValueError: a last dimension other than 3.
        TypeError: a non-floating dtype.

    >>> ek.image.rgb_to_hsv([[[1.0, 0.5, 0.0]]]).numpy().round(4)
    array([[[0.0833, 1.    , 1.    ]]], dtype=float32)
    """
    from .array_ops import stack, unstack
    from .elementwise import equal, greater, less, where
    from .reduction import reduce_max, reduce_min

    op = "rgb_to_hsv"
    images = _float_rgb(images, op)
    zero = tensor(np.zeros((), images._value.dtype), op)
    one = tensor(np.ones((), images._value.dtype), op)
    r, g, b = unstack(images, axis=-1)
    value = reduce_max(images, axis=-1)
    spread = value - reduce_min(images, axis=-1)
    positive = greater(spread, zero)
    saturation = where(greater(value, zero), spread / where(greater(value, zero), value, one), zero)
    norm = (1.0 / where(positive, spread, one)) * (1.0 / 6.0)  # RGBToHSV's rounding
    hue = where(
        equal(r, value),
        (g - b) * norm,
        where(equal(g, value), (b - r) * norm + 2.0 / 6.0, (r - g) * norm + 4.0 / 6.0),
    )
    hue = where(positive, hue, zero)
    hue = where(less(hue, zero), hue + 1.0, hue)
    return stack([hue, saturation, value], axis=-1)


def hsv_to_rgb(images, name=None) -> Tensor:
    """Converts HSV values (hue in ``[0, 1]``) to RGB (follows `tf.image.hsv_to_rgb`). As
    TensorFlow's HSVToRGB, it is not differentiable: a tape gives None for its input.

    Args:
        images: floating, ``[..., 3]``.

    Raises:
        ValueError: a last dimension other than 3.
        TypeError: a non-floating dtype.

    >>> ek.image.hsv_to_rgb([[[0.0, 1.0, 0.5]]]).numpy()
    array([[[0.5, 0. , 0. ]]], dtype=float32)
    """
    images = _float_rgb(images, "hsv_to_rgb")
    return apply(_hsv_to_rgb, (images,))


def _hsv_to_rgb_fwd(xp, hue, saturation, value, dtype):
    dh = hue * 6
    channels = (
        xp.clip(xp.abs(dh - 3) - 1, 0, 1),
        xp.clip(2 - xp.abs(dh - 2), 0, 1),
        xp.clip(2 - xp.abs(dh - 4), 0, 1),
    )
    return xp.stack([((1 - saturation) + saturation * c) * value for c in channels], -1).astype(
        dtype, copy=False
    )


def _adjust_saturation_fwd(xp, images, scale):
    # AdjustSaturation's own float32 HSV helpers (adjust_saturation_op.cc), not HSVToRGB's:
    # the rounding differs, and a uint8 image then differs by one in some pixels.
    f32 = np.float32
    x = images.astype(f32, copy=False)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    value = x.max(axis=-1)
    spread = value - x.min(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        saturation = xp.where(value > 0, spread / value, f32(0))
        norm = f32(1) / (f32(6) * spread)
        # The kernel adds the double 2.0 / 6.0 (4.0 / 6.0), then rounds to float.
        hue = xp.where(
            r == value,
            norm * (g - b),
            xp.where(
                g == value,
                (norm * (b - r)).astype(np.float64) + 2.0 / 6.0,
                (norm * (r - g)).astype(np.float64) + 4.0 / 6.0,
            ).astype(f32),
        )
    hue = xp.where(spread <= 0, f32(0), hue)
    hue = xp.where(hue < 0, hue + f32(1), hue)
    saturation = xp.clip(saturation * xp.asarray(scale, dtype=f32), f32(0), f32(1))
    chroma = saturation * value
    low = value - chroma
    dh = hue * f32(6)
    sector = dh.astype(np.int32)
    frac = xp.where(dh <= 0, dh + f32(2), dh)
    frac = xp.where(frac >= 2, frac - f32(2), frac)
    frac = xp.where(frac >= 2, frac - f32(2), frac)
    mid = chroma * (f32(1) - xp.abs(frac - f32(1)))
    zero = xp.zeros_like(chroma)
    # (r, g, b) before adding ``low``, per sector of the colour circle.
    table = [(chroma, mid, zero), (mid, chroma, zero), (zero, chroma, mid),
             (zero, mid, chroma), (mid, zero, chroma), (chroma, zero, mid)]  # fmt: skip
    out = [xp.select([sector == k for k in range(6)], [t[c] for t in table], 0) + low
           for c in range(3)]  # fmt: skip
    return xp.stack(out, -1).astype(images.dtype, copy=False)


def _adjust_hue_fwd(xp, images, delta):
    # AdjustHue's kernel (adjust_hue_op.cc): hue in [0, 6) from the sorted channels, shifted
    # by 6 * delta, then the middle channel re-interpolated between the min and the max.
    f32 = np.float32
    x = images.astype(f32, copy=False)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    # Sector of the colour circle, decided as the kernel's comparisons decide ties.
    sector = xp.where(
        r < g,
        xp.where(b < r, 1, xp.where(b > g, 3, 2)),
        xp.where(b < g, 0, xp.where(b > r, 4, 5)),
    )
    top = x.max(axis=-1)
    bottom = x.min(axis=-1)
    middle = xp.select([sector == k for k in range(6)], [g, r, b, g, r, b])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (middle - bottom) / (top - bottom)
    rising = sector % 2 == 0
    hue = xp.where(rising, ratio, f32(1) - ratio) + sector.astype(f32)
    hue = xp.where(top == bottom, f32(0), hue)
    hue = hue + xp.asarray(delta, dtype=f32) * f32(6)
    hue = xp.where(hue < 0, hue + f32(6), hue)
    hue = xp.where(hue >= 6, hue - f32(6), hue)
    sector = hue.astype(np.int32)
    ratio = hue - sector.astype(f32)
    ratio = xp.where(sector % 2 == 0, ratio, f32(1) - ratio)
    middle = bottom + ratio * (top - bottom)
    table = [(top, middle, bottom), (middle, top, bottom), (bottom, top, middle),
             (bottom, middle, top), (middle, bottom, top), (top, bottom, middle)]  # fmt: skip
    out = [xp.select([sector == k for k in range(5)], [t[c] for t in table[:5]], table[5][c])
           for c in range(3)]  # fmt: skip
    return xp.stack(out, -1).astype(images.dtype, copy=False)


def _hsv_to_rgb_op_fwd(xp, images):
    return _hsv_to_rgb_fwd(xp, images[..., 0], images[..., 1], images[..., 2], images.dtype)


# TensorFlow marks HSVToRGB not differentiable (the tape gives None) ...
_hsv_to_rgb = Primitive("HSVToRGB", _hsv_to_rgb_op_fwd)
defvjp(_hsv_to_rgb, None)

# ... and registers no gradient for AdjustSaturation / AdjustHue (the tape raises LookupError).
_adjust_saturation = Primitive("AdjustSaturation", _adjust_saturation_fwd)
_adjust_hue = Primitive("AdjustHue", _adjust_hue_fwd)


def adjust_saturation(image, saturation_factor, name=None) -> Tensor:
    """Multiplies the HSV saturation of RGB images by ``saturation_factor``, clipped to
    ``[0, 1]`` (follows `tf.image.adjust_saturation`). Integer images are converted to float32
    and back. No gradient, as in TensorFlow.

    Raises:
        ValueError: a last dimension other than 3, or a non-scalar factor.

    >>> ek.image.adjust_saturation([[[1.0, 0.5, 0.0]]], 0.5).numpy()
    array([[[1.  , 0.75, 0.5 ]]], dtype=float32)
    """
    op = "adjust_saturation"
    image = _rgb(image, op)
    flt = float_image(image)
    factor = _scalar(saturation_factor, op, "saturation_factor", flt)
    return convert_image_dtype(apply(_adjust_saturation, (flt, factor)), image.dtype)


def adjust_hue(image, delta, name=None) -> Tensor:
    """Rotates the hue of RGB images by ``delta`` (a fraction of the colour circle; follows
    `tf.image.adjust_hue`). Integer images are converted to float32 and back. No gradient, as
    in TensorFlow.

    Raises:
        ValueError: ``delta`` outside ``[-1, 1]``, or a last dimension other than 3.

    >>> ek.image.adjust_hue([[[1.0, 0.0, 0.0]]], 1 / 3).numpy().round(4)
    array([[[0., 1., 0.]]], dtype=float32)
    """
    op = "adjust_hue"
    image = _rgb(image, op)
    flt = float_image(image)
    delta_t = _scalar(delta, op, "delta", flt)
    if not -1.0 <= float(delta_t.numpy()) <= 1.0:
        raise ValueError("delta must be in the interval [-1, 1]")
    return convert_image_dtype(apply(_adjust_hue, (flt, delta_t)), image.dtype)


def grayscale_to_rgb(images, name=None) -> Tensor:
    """Repeats the single channel of ``[..., 1]`` images three times (follows
    `tf.image.grayscale_to_rgb`).

    Raises:
        ValueError: rank below 2 or a last dimension other than 1.

    >>> ek.image.grayscale_to_rgb([[[0.5]]]).numpy()
    array([[[0.5, 0.5, 0.5]]], dtype=float32)
    """
    from .array_ops import tile

    images = tensor(images, "grayscale_to_rgb")
    if images.ndim < 2 or images.shape[-1] != 1:
        raise ValueError(
            f"grayscale_to_rgb: 'images' must be at least 2-D with 1 channel in its last "
            f"dimension, got shape {tuple(images.shape)}."
        )
    return tile(images, [1] * (images.ndim - 1) + [3])


def per_image_standardization(image) -> Tensor:
    """Scales each image to mean 0 and variance 1 (follows
    `tf.image.per_image_standardization`): ``(x - mean) / max(stddev, 1 / sqrt(N))`` over the
    last three axes, ``N`` their element count. The image is cast to float32 first (integer
    values are not rescaled), so the result is float32, as in TensorFlow 2.

    Raises:
        ValueError: rank below 3.

    >>> x = ek.reshape(ek.range(1, 13), [2, 2, 3])
    >>> ek.image.per_image_standardization(x)[0, 0].numpy()
    array([-1.593255 , -1.3035723, -1.0138896], dtype=float32)
    """
    from .elementwise import cast, maximum
    from .reduction import reduce_mean, reduce_std

    image = _at_least_3d(image, "per_image_standardization")
    if image.dtype != dtypes.float32:
        image = cast(image, dtypes.float32)
    n = int(np.prod(image.shape[-3:]))
    mean = reduce_mean(image, axis=[-3, -2, -1], keepdims=True)
    std = reduce_std(image, axis=[-3, -2, -1], keepdims=True)
    floor = tensor(np.asarray(1.0 / np.sqrt(n), image._value.dtype), "per_image_standardization")
    return (image - mean) / maximum(std, floor)


def _check_range(lower, upper) -> tuple[float, float]:
    lower, upper = float(lower), float(upper)
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return lower, upper


def _check_max_delta(max_delta, limit=None) -> float:
    max_delta = float(max_delta)
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    if limit is not None and max_delta > limit:
        raise ValueError(f"max_delta must be <= {limit}.")
    return max_delta


def _draw(lo: float, hi: float, seed):
    from .. import random

    return random.uniform([], lo, hi, seed=seed)


def _stateless_draw(lo: float, hi: float, seed):
    from ..random_generator import stateless_uniform

    return stateless_uniform([], seed, lo, hi)


@stateful  # a fresh draw on every call of a graph function
def random_brightness(image, max_delta, seed=None) -> Tensor:
    """`adjust_brightness` by a delta drawn uniformly from ``[-max_delta, max_delta)``
    (follows `tf.image.random_brightness`), seeded through `ek.random`.

    Raises:
        ValueError: a negative ``max_delta``.
    """
    delta = _check_max_delta(max_delta)
    return adjust_brightness(image, _draw(-delta, delta, seed))


@stateful  # a fresh draw on every call of a graph function
def random_contrast(image, lower, upper, seed=None) -> Tensor:
    """`adjust_contrast` by a factor drawn uniformly from ``[lower, upper)`` (follows
    `tf.image.random_contrast`), seeded through `ek.random`.

    Raises:
        ValueError: ``upper <= lower`` or a negative ``lower``.
    """
    lower, upper = _check_range(lower, upper)
    return adjust_contrast(image, _draw(lower, upper, seed))


@stateful  # a fresh draw on every call of a graph function
def random_saturation(image, lower, upper, seed=None) -> Tensor:
    """`adjust_saturation` by a factor drawn uniformly from ``[lower, upper)`` (follows
    `tf.image.random_saturation`), seeded through `ek.random`.

    Raises:
        ValueError: ``upper <= lower`` or a negative ``lower``.
    """
    lower, upper = _check_range(lower, upper)
    return adjust_saturation(image, _draw(lower, upper, seed))


@stateful  # a fresh draw on every call of a graph function
def random_hue(image, max_delta, seed=None) -> Tensor:
    """`adjust_hue` by a delta drawn uniformly from ``[-max_delta, max_delta)`` (follows
    `tf.image.random_hue`), seeded through `ek.random`.

    Raises:
        ValueError: ``max_delta`` negative or above 0.5.
    """
    delta = _check_max_delta(max_delta, 0.5)
    return adjust_hue(image, _draw(-delta, delta, seed))


def stateless_random_brightness(image, max_delta, seed) -> Tensor:
    """`random_brightness` with the delta determined by ``seed`` (shape ``[2]`` integers;
    follows `tf.image.stateless_random_brightness`)."""
    delta = _check_max_delta(max_delta)
    return adjust_brightness(image, _stateless_draw(-delta, delta, seed))


def stateless_random_contrast(image, lower, upper, seed) -> Tensor:
    """`random_contrast` with the factor determined by ``seed`` (follows
    `tf.image.stateless_random_contrast`)."""
    lower, upper = _check_range(lower, upper)
    return adjust_contrast(image, _stateless_draw(lower, upper, seed))


def stateless_random_saturation(image, lower, upper, seed) -> Tensor:
    """`random_saturation` with the factor determined by ``seed`` (follows
    `tf.image.stateless_random_saturation`)."""
    lower, upper = _check_range(lower, upper)
    return adjust_saturation(image, _stateless_draw(lower, upper, seed))


def stateless_random_hue(image, max_delta, seed) -> Tensor:
    """`random_hue` with the delta determined by ``seed`` (follows
    `tf.image.stateless_random_hue`)."""
    delta = _check_max_delta(max_delta, 0.5)
    return adjust_hue(image, _stateless_draw(-delta, delta, seed))


# -- YIQ and YUV: linear maps of the channels (TensorFlow's kernels, image_ops_impl.py) ---------

_RGB_TO_YIQ = [
    [0.299, 0.59590059, 0.2115],
    [0.587, -0.27455667, -0.52273617],
    [0.114, -0.32134392, 0.31119955],
]
_YIQ_TO_RGB = [
    [1, 1, 1],
    [0.95598634, -0.27201283, -1.10674021],
    [0.6208248, -0.64720424, 1.70423049],
]
_RGB_TO_YUV = [
    [0.299, -0.14714119, 0.61497538],
    [0.587, -0.28886916, -0.51496512],
    [0.114, 0.43601035, -0.10001026],
]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _channel_map(images, kernel, op: str) -> Tensor:
    from .linalg import tensordot

    images = _float_rgb(images, op)
    k = tensor(np.asarray(kernel, dtype=images.dtype._np), op)
    return tensordot(images, k, axes=[[images.ndim - 1], [0]])


def rgb_to_yiq(images, name=None) -> Tensor:
    """RGB to YIQ, a linear map of the last axis (follows `tf.image.rgb_to_yiq`, with its
    matrix); Y in [0, 1], I in [-0.5957, 0.5957], Q in [-0.5226, 0.5226] for RGB in [0, 1].
    Differentiable.

    Raises:
        ValueError: a last axis other than 3. TypeError: non-floating images.

    >>> ek.image.rgb_to_yiq(ek.constant([[0.2, 0.5, 0.9]])).numpy()
    array([[ 0.4559    , -0.30730772,  0.06101148]], dtype=float32)
    """
    return _channel_map(images, _RGB_TO_YIQ, "rgb_to_yiq")


def yiq_to_rgb(images, name=None) -> Tensor:
    """YIQ to RGB, the inverse of `rgb_to_yiq` (follows `tf.image.yiq_to_rgb`, with its
    matrix); errors as `rgb_to_yiq`."""
    return _channel_map(images, _YIQ_TO_RGB, "yiq_to_rgb")


def rgb_to_yuv(images, name=None) -> Tensor:
    """RGB to YUV, a linear map of the last axis (follows `tf.image.rgb_to_yuv`, with its
    matrix); Y in [0, 1], U in [-0.436, 0.436], V in [-0.615, 0.615] for RGB in [0, 1].
    Differentiable; errors as `rgb_to_yiq`.

    >>> ek.image.rgb_to_yuv(ek.constant([[0.2, 0.5, 0.9]])).numpy()
    array([[ 0.4559    ,  0.2185465 , -0.22449672]], dtype=float32)
    """
    return _channel_map(images, _RGB_TO_YUV, "rgb_to_yuv")


def yuv_to_rgb(images, name=None) -> Tensor:
    """YUV to RGB, the inverse of `rgb_to_yuv` (follows `tf.image.yuv_to_rgb`, with its
    matrix); errors as `rgb_to_yiq`."""
    return _channel_map(images, _YUV_TO_RGB, "yuv_to_rgb")
