"""Image ops that sample: glimpses, JPEG-quality noise and distorted bounding boxes (follow
`tf.image.extract_glimpse`, `tf.image.adjust_jpeg_quality`, `tf.image.random_jpeg_quality`,
`tf.image.stateless_random_jpeg_quality`, `tf.image.sample_distorted_bounding_box` and
`tf.image.stateless_sample_distorted_bounding_box`).

The random numbers are NumPy's (seeded from ``seed``), not TensorFlow's Philox streams, except
the stateless JPEG quality, drawn with `stateless_uniform` as TensorFlow draws it.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.dispatch import stateful
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, constant, convert_to_tensor
from .image import convert_image_dtype

__all__ = [
    "adjust_jpeg_quality",
    "extract_glimpse",
    "random_jpeg_quality",
    "sample_distorted_bounding_box",
    "stateless_random_jpeg_quality",
    "stateless_sample_distorted_bounding_box",
]


def _numpy(x) -> np.ndarray:
    return x.numpy() if isinstance(x, Tensor) else np.asarray(x)


def _rng(seed) -> np.random.Generator:
    """A NumPy generator for an op seed (None: the global `ek.random` seed sequence)."""
    if seed is None:
        from .. import random

        seed = int(random.uniform([], 0, 2**31 - 1, dtype=dtypes.int64).numpy())
    return np.random.default_rng(np.asarray(seed, np.int64).ravel().tolist())


# -- glimpses -----------------------------------------------------------------------------
def extract_glimpse(
    input, size, offsets, centered=True, normalized=True, noise="uniform", name=None
) -> Tensor:
    """Windows of ``size`` around ``offsets`` from each image of a batch (follows
    `tf.image.extract_glimpse`, TensorFlow 2's ExtractGlimpseV2).

    With ``centered`` and ``normalized`` (the defaults) an offset is the window's centre;
    otherwise, as in TensorFlow's kernel, it is the window's top-left corner (pixel
    coordinates truncated toward zero). The window's parts outside the image are filled
    with noise: ``"uniform"`` (uniform between each channel's minimum and maximum in that
    image), ``"gaussian"`` (normal with the channel's mean and standard deviation, clipped to
    its range) or ``"zero"``.

    Args:
        input: float32 ``[batch, height, width, channels]`` (other floats are converted).
        size: ``[glimpse_height, glimpse_width]`` ints.
        offsets: float ``[batch, 2]``: each window's centre as ``(y, x)``.
        centered: offsets relative to the image centre (default) or its top-left corner.
        normalized: offsets as fractions of the size (in [-1, 1] when centered, else
            [0, 1]) or, when False, in pixels.
        noise: "uniform" (default), "gaussian" or "zero".

    Returns:
        float32 ``[batch, glimpse_height, glimpse_width, channels]``.

    Raises:
        InvalidArgumentError: ``input`` not 4-D, ``size`` not 2 ints, ``offsets`` not
            ``[batch, 2]``, or an unknown ``noise``.

    >>> x = ek.reshape(ek.range(9.0), [1, 3, 3, 1])
    >>> extract_glimpse(x, size=(2, 2), offsets=[[1, 1]], centered=False,
    ...                 normalized=False).numpy()[0, :, :, 0]
    array([[4., 5.],
           [7., 8.]], dtype=float32)
    """
    op = "ExtractGlimpseV2"
    x = _numpy(convert_to_tensor(input, dtype_hint=dtypes.float32)).astype(np.float32)
    sz, off = _numpy(size), _numpy(offsets).astype(np.float32)
    if x.ndim != 4:
        raise InvalidArgumentError(
            None,
            op,
            f"input must be 4-dimensional (batch_size, height, width, depth){list(x.shape)}",
        )
    if sz.shape != (2,):
        raise InvalidArgumentError(
            None, op, f"input must be a vector of size 2 (height, width){list(sz.shape)}"
        )
    if off.ndim != 2 or off.shape[0] != x.shape[0]:
        raise InvalidArgumentError(None, op, f"first dimension should be batch{list(off.shape)}")
    if off.shape[1] != 2:
        raise InvalidArgumentError(
            None, op, f"second dimension should be of size 2{list(off.shape)}"
        )
    if noise not in ("uniform", "gaussian", "zero"):
        raise InvalidArgumentError(
            None, op, f"The noise could only be uniform, gaussian, or zero, got{noise}"
        )
    batch, h, w, c = x.shape
    gh, gw = int(sz[0]), int(sz[1])
    # The V2 kernel's float32 arithmetic (eigen_attention.h), y and x alike: only normalized
    # centred offsets are window centres; the others are the window's top-left corner.
    y, xx = off[:, 0].copy(), off[:, 1].copy()
    half_h, half_w = np.float32(h) / np.float32(2), np.float32(w) / np.float32(2)
    if normalized:
        y, xx = y * np.float32(h), xx * np.float32(w)
        if centered:
            y = y / np.float32(2) + half_h - np.float32(gh) / np.float32(2)
            xx = xx / np.float32(2) + half_w - np.float32(gw) / np.float32(2)
    elif centered:
        y, xx = y + half_h, xx + half_w
    top, left = np.trunc(y).astype(np.int64), np.trunc(xx).astype(np.int64)
    rows = top[:, None] + np.arange(gh)  # [batch, gh]
    cols = left[:, None] + np.arange(gw)
    inside = ((rows >= 0) & (rows < h))[:, :, None] & ((cols >= 0) & (cols < w))[:, None, :]
    b = np.arange(batch)[:, None, None]
    out = x[b, np.clip(rows, 0, h - 1)[:, :, None], np.clip(cols, 0, w - 1)[:, None, :]]
    if noise == "zero":
        fill = np.zeros_like(out)
    else:
        rng = np.random.default_rng()
        lo, hi = x.min(axis=(1, 2)), x.max(axis=(1, 2))  # [batch, channels]
        shape = (batch, gh, gw, c)
        if noise == "uniform":
            fill = rng.uniform(lo[:, None, None], hi[:, None, None], shape)
        else:
            mean, std = x.mean(axis=(1, 2)), x.std(axis=(1, 2))
            fill = rng.normal(mean[:, None, None], std[:, None, None], shape)
            fill = np.clip(fill, lo[:, None, None], hi[:, None, None])
    out = np.where(inside[..., None], out, fill.astype(np.float32))
    return constant(out, dtype=dtypes.float32)


# -- JPEG quality -------------------------------------------------------------------------
def adjust_jpeg_quality(image, jpeg_quality, dct_method="", name=None) -> Tensor:
    """Re-encodes ``image`` as a JPEG of ``jpeg_quality`` and decodes it back (follows
    `tf.image.adjust_jpeg_quality`).

    The image is converted to uint8 (saturating), encoded (this encoder writes TensorFlow's
    bytes), decoded and converted back to its dtype. The decoder is libjpeg's accurate
    integer IDCT ("INTEGER_ACCURATE"): TensorFlow's default ``dct_method=""`` is libjpeg's
    fast IDCT, so pixels can differ from TensorFlow's by a few levels.

    Args:
        image: ``[height, width, channels]`` (1 or 3 channels), any dtype
            `convert_image_dtype` takes.
        jpeg_quality: an int (or int scalar tensor) in [0, 100].
        dct_method: "" or "INTEGER_ACCURATE" (as `decode_jpeg`).

    Returns:
        The image, same shape and dtype.

    Raises:
        InvalidArgumentError: ``image`` not 3-D, channels other than 1 or 3, a quality
            outside [0, 100].
    """
    from ..io.image_codecs import decode_jpeg
    from ..io.image_encoders import encode_jpeg

    op = "EncodeJpegVariableQuality"
    image = convert_to_tensor(image)
    quality = int(_numpy(jpeg_quality))
    if not 0 <= quality <= 100:
        raise InvalidArgumentError(None, op, f"quality must be in [0,100], got {quality}")
    if image.shape.rank != 3:
        raise InvalidArgumentError(None, op, f"image must be 3-dimensional{image.shape.as_list()}")
    channels = image.shape[-1]
    if channels not in (1, 3):
        raise InvalidArgumentError(
            None, op, f"image must have 1 or 3 channels, got {image.shape.as_list()}"
        )
    pixels = convert_image_dtype(image, dtypes.uint8, saturate=True)
    decoded = decode_jpeg(
        encode_jpeg(pixels, quality=quality), channels=channels, dct_method=dct_method
    )
    return convert_image_dtype(decoded, image.dtype, saturate=True)


def _check_jpeg_range(lo, hi) -> None:
    if lo < 0 or hi < 0 or lo > 100 or hi > 100:
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if lo >= hi:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")


@stateful  # a fresh draw on every call of a graph function
def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None) -> Tensor:
    """`adjust_jpeg_quality` with a quality drawn uniformly from ``[min_jpeg_quality,
    max_jpeg_quality)`` (follows `tf.image.random_jpeg_quality`), seeded through `ek.random`.

    Raises:
        ValueError: a bound outside [0, 100], or ``min_jpeg_quality >= max_jpeg_quality``.
    """
    from .. import random

    _check_jpeg_range(min_jpeg_quality, max_jpeg_quality)
    quality = random.uniform([], min_jpeg_quality, max_jpeg_quality, dtype=dtypes.int32, seed=seed)
    return adjust_jpeg_quality(image, quality)


def stateless_random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed) -> Tensor:
    """`adjust_jpeg_quality` with a quality determined by ``seed`` (shape ``[2]`` ints; the
    quality is TensorFlow's draw; follows `tf.image.stateless_random_jpeg_quality`).

    Raises:
        ValueError: a bound outside [0, 100], or ``min_jpeg_quality >= max_jpeg_quality``.
    """
    from ..random_generator import stateless_uniform

    _check_jpeg_range(min_jpeg_quality, max_jpeg_quality)
    quality = stateless_uniform([], seed, min_jpeg_quality, max_jpeg_quality, dtype=dtypes.int32)
    return adjust_jpeg_quality(image, quality)


# -- distorted bounding boxes (sample_distorted_bounding_box_op.cc) ------------------------
def _area(r) -> int:
    return max(r[2] - r[0], 0) * max(r[3] - r[1], 0)  # r = (min_x, min_y, max_x, max_y)


def _random_crop(rng, width, height, min_area, max_area, aspect):
    """TensorFlow's GenerateRandomCrop: a crop of about ``aspect`` with an area in the range
    (relative areas), or None."""
    if max_area <= 0 or aspect <= 0 or width <= 0 or height <= 0 or min_area > max_area:
        return None
    min_area, max_area = (np.float32(a * width * height) for a in (min_area, max_area))
    crop_h = int(np.rint(np.sqrt(min_area / aspect)))
    max_h = int(np.rint(np.sqrt(max_area / aspect)))
    if np.rint(max_h * aspect) > width:
        max_h = int((width + 0.5 - 1e-7) / aspect)
        if np.rint(max_h * aspect) > width:
            max_h -= 1
    max_h = min(max_h, height)
    crop_h = min(crop_h, max_h)
    if crop_h < max_h:
        crop_h += int(rng.integers(max_h - crop_h + 1))
    crop_w = int(np.rint(crop_h * aspect))
    area = crop_w * crop_h
    if area < min_area:
        crop_h += 1
        crop_w = int(np.rint(crop_h * aspect))
        area = crop_w * crop_h
    if area > max_area:
        crop_h -= 1
        crop_w = int(np.rint(crop_h * aspect))
        area = crop_w * crop_h
    if not (min_area <= area <= max_area and 0 < crop_w <= width and 0 < crop_h <= height):
        return None
    y = int(rng.integers(height - crop_h)) if crop_h < height else 0
    x = int(rng.integers(width - crop_w)) if crop_w < width else 0
    return (x, y, x + crop_w, y + crop_h)


def _covers(crop, boxes, min_covered: float) -> bool:
    """TensorFlow's SatisfiesOverlapConstraints."""
    if _area(crop) < 1:
        return False
    for b in boxes:
        if _area(b) < 1:
            continue
        inter = (max(crop[0], b[0]), max(crop[1], b[1]), min(crop[2], b[2]), min(crop[3], b[3]))
        if np.float32(_area(inter)) / np.float32(_area(b)) >= min_covered:
            return True
    return False


def _sample_box(
    rng,
    image_size,
    bounding_boxes,
    min_object_covered,
    aspect_ratio_range,
    area_range,
    max_attempts,
    use_image_if_no_bounding_boxes,
    op,
):
    size_t = convert_to_tensor(image_size)
    size = _numpy(size_t)
    boxes = _numpy(convert_to_tensor(bounding_boxes, dtype=dtypes.float32))
    if size.shape != (3,):
        raise InvalidArgumentError(
            None, op, f"image_size must be 1-dimensional with 3 elements: {list(size.shape)}"
        )
    if boxes.ndim != 3 or boxes.shape[-1] != 4:
        raise InvalidArgumentError(
            None,
            op,
            f"input boxes must be 3-dimensional [batch, num_boxes, coords]: {list(boxes.shape)}",
        )
    min_covered = float(_numpy(min_object_covered))
    if min_covered < 0:
        raise InvalidArgumentError(
            None, op, f"min_object_covered must be non-negative: {min_covered}"
        )
    aspect_lo, aspect_hi = (float(a) for a in (aspect_ratio_range or (0.75, 1.33)))
    area_lo, area_hi = (float(a) for a in (area_range or (0.05, 1.0)))
    attempts = 100 if max_attempts is None else int(max_attempts)
    if attempts <= 0:
        raise InvalidArgumentError(None, op, f"Max attempts should be > 0, got {attempts}")
    height, width = int(size[0]), int(size[1])
    flat = boxes.reshape(-1, 4)
    if ((flat < 0) | (flat > 1)).any():
        bad = flat[(flat < 0) | (flat > 1)][0]
        raise InvalidArgumentError(
            None, op, f"All bounding box coordinates must be in [0.0, 1.0]: {bad:g}"
        )
    rects = [
        (int(b[1] * width), int(b[0] * height), int(b[3] * width), int(b[2] * height))
        for b in flat.astype(np.float32)
    ]
    if not rects:
        if not use_image_if_no_bounding_boxes:
            raise InvalidArgumentError(
                None,
                op,
                "No bounding boxes provided as input. One must enable "
                "use_image_if_no_bounding_boxes if you wish to not provide any bounding boxes.",
            )
        rects = [(0, 0, width, height)]
    crop = None
    for _ in range(attempts):
        aspect = np.float32(rng.random(dtype=np.float32) * (aspect_hi - aspect_lo) + aspect_lo)
        crop = _random_crop(rng, width, height, area_lo, area_hi, aspect)
        if crop is not None and _covers(crop, rects, min_covered):
            break
        crop = None
    if crop is None:
        crop = (0, 0, width, height)
    x0, y0, x1, y1 = crop
    dt = size_t.dtype
    begin = constant([y0, x0, 0], dtype=dt)
    extent = constant([y1 - y0, x1 - x0, -1], dtype=dt)
    box = np.array([[[y0 / height, x0 / width, y1 / height, x1 / width]]], np.float32)
    return begin, extent, constant(box, dtype=dtypes.float32)


@stateful  # a fresh draw on every call of a graph function
def sample_distorted_bounding_box(
    image_size,
    bounding_boxes,
    seed=0,
    min_object_covered=0.1,
    aspect_ratio_range=None,
    area_range=None,
    max_attempts=None,
    use_image_if_no_bounding_boxes=None,
    name=None,
):
    """A random crop of an image that covers enough of one of ``bounding_boxes`` (follows
    `tf.image.sample_distorted_bounding_box`; TensorFlow's algorithm, NumPy's numbers).

    Up to ``max_attempts`` times, an aspect ratio is drawn from ``aspect_ratio_range`` and a
    crop of that ratio with a relative area in ``area_range``; the first crop covering at
    least ``min_object_covered`` of some box is returned (the whole image after
    ``max_attempts`` failures).

    Args:
        image_size: int ``[height, width, channels]`` (uint8, int8, int16, int32 or int64).
        bounding_boxes: float32 ``[batch, N, 4]`` boxes ``[y_min, x_min, y_max, x_max]`` in
            [0, 1].
        seed: an int (0, the default: drawn through `ek.random`).
        min_object_covered: default 0.1. aspect_ratio_range: default ``(0.75, 1.33)``
            (width / height). area_range: default ``(0.05, 1.0)``. max_attempts: default 100.
        use_image_if_no_bounding_boxes: with no boxes, use the whole image (else an error).

    Returns:
        ``(begin, size, bboxes)``: ``begin`` ``[offset_height, offset_width, 0]`` and
        ``size`` ``[target_height, target_width, -1]`` (``image_size``'s dtype) for
        `ek.slice`; ``bboxes`` float32 ``[1, 1, 4]`` for `draw_bounding_boxes`.

    Raises:
        InvalidArgumentError: malformed shapes, coordinates outside [0, 1], a negative
            ``min_object_covered``, no boxes without ``use_image_if_no_bounding_boxes``.
    """
    return _sample_box(
        _rng(seed or None),
        image_size,
        bounding_boxes,
        min_object_covered,
        aspect_ratio_range,
        area_range,
        max_attempts,
        use_image_if_no_bounding_boxes,
        "SampleDistortedBoundingBoxV2",
    )


def stateless_sample_distorted_bounding_box(
    image_size,
    bounding_boxes,
    seed,
    min_object_covered=0.1,
    aspect_ratio_range=None,
    area_range=None,
    max_attempts=None,
    use_image_if_no_bounding_boxes=None,
    name=None,
):
    """`sample_distorted_bounding_box` determined by ``seed``, a shape ``[2]`` int32/int64
    seed (follows `tf.image.stateless_sample_distorted_bounding_box`): the same seed gives
    the same box (not TensorFlow's box: the numbers are NumPy's).

    Raises:
        InvalidArgumentError: a seed not of shape [2], or as `sample_distorted_bounding_box`.

    >>> image = ek.reshape(ek.range(9), [3, 3, 1])
    >>> begin, size, _ = stateless_sample_distorted_bounding_box(
    ...     ek.shape(image), [[[0.0, 0.0, 1.0, 1.0]]], seed=(1, 2))
    >>> ek.slice(image, begin, size).shape.rank
    3
    """
    op = "StatelessSampleDistortedBoundingBox"
    s = _numpy(seed)
    if s.shape != (2,) or s.dtype.kind not in "iu":
        raise InvalidArgumentError(
            None, op, f"seed must have shape [2] and an integer dtype, not {list(s.shape)}"
        )
    return _sample_box(
        np.random.default_rng([int(v) & 0xFFFFFFFF for v in s]),
        image_size,
        bounding_boxes,
        min_object_covered,
        aspect_ratio_range,
        area_range,
        max_attempts,
        use_image_if_no_bounding_boxes,
        op,
    )
