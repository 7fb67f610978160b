"""`keras.ops.image` colour conversions, resizing, cropping and padding, and the helpers
the other image modules share (follows ``keras/src/ops/image.py`` and its TensorFlow
backend, ``keras/src/backend/tensorflow/image.py``). `image.py` gathers them with the
filters of `image_filters.py` and the warps of `image_warp.py` into the
``ek.keras.ops.image`` namespace.

Every function composes eagerkernel's dispatched ops (``ek.image``, convolutions, gathers),
so tapes differentiate through them and `ek.function` replays recompute them. Images are
``(height, width, channels)`` or ``(batch, height, width, channels)``; with
``data_format="channels_first"`` the channels axis comes first (after the batch). A
``data_format`` of None means ``keras.config.image_data_format()``.
"""

from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.tensor import Tensor
from ...ops import image as image_ops
from ...ops import image_color
from ._base import keras_op, result_type, to_tensor
from ._tf import tf

__all__ = [
    "crop_images",
    "hsv_to_rgb",
    "pad_images",
    "resize",
    "rgb_to_grayscale",
    "rgb_to_hsv",
]

_METHODS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")


# -- data formats and checks -------------------------------------------------------------------


def data_format_of(data_format, op: str) -> str:
    """``data_format`` standardized (None: ``keras.config.image_data_format()``)."""
    from ..backend import image_data_format

    data_format = data_format or image_data_format()
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(
            f"keras.ops.image.{op}: `data_format` must be 'channels_last' or 'channels_first'. "
            f"Received: data_format={data_format!r}"
        )
    return data_format


def check_rank(images: Tensor, op: str, name: str = "images") -> None:
    """ValueError unless ``images`` is one image (rank 3) or a batch (rank 4)."""
    if images.shape.rank not in (3, 4):
        raise ValueError(
            f"keras.ops.image.{op}: invalid {name} rank: expected rank 3 (single image) or "
            f"rank 4 (batch of images). Received: {name}.shape={tuple(images.shape)}"
        )


def images_arg(images, data_format, op: str) -> tuple[Tensor, str]:
    """``images`` as a Tensor of rank 3 or 4 and the standardized ``data_format``."""
    images = to_tensor(images)
    data_format = data_format_of(data_format, op)
    check_rank(images, op)
    return images, data_format


def to_channels_last(x: Tensor, data_format: str) -> Tensor:
    """An image ``(C, H, W)`` or batch ``(B, C, H, W)`` with its channels moved last."""
    if data_format == "channels_last":
        return x
    return tf.transpose(x, [1, 2, 0] if x.shape.rank == 3 else [0, 2, 3, 1])


def from_channels_last(x: Tensor, data_format: str) -> Tensor:
    """The inverse of `to_channels_last`."""
    if data_format == "channels_last":
        return x
    return tf.transpose(x, [2, 0, 1] if x.shape.rank == 3 else [0, 3, 1, 2])


def check_float(images: Tensor, op: str) -> None:
    """ValueError unless ``images`` is floating (as Keras's colour conversions)."""
    if not images.dtype.is_floating:
        raise ValueError(
            f"keras.ops.image.{op}: invalid images dtype: expected float dtype. "
            f"Received: images.dtype={images.dtype.name}"
        )


def compute_dtype(x: Tensor) -> dtypes.DType:
    """Keras's ``result_type(x.dtype, float)``: floats keep theirs, others give floatx."""
    return result_type(x, 1.0)


def choice(value, allowed, op: str, name: str):
    """``value``, or a ValueError naming ``op`` and ``name`` when it is not in ``allowed``."""
    if value not in allowed:
        raise ValueError(
            f"keras.ops.image.{op}: invalid value for argument `{name}`. Expected one of "
            f"{allowed}. Received: {name}={value!r}"
        )
    return value


# -- colour -------------------------------------------------------------------------------------


@keras_op
def rgb_to_grayscale(images, data_format=None):
    """RGB images to one channel, ``0.2989 R + 0.5870 G + 0.1140 B`` (follows
    `keras.ops.image.rgb_to_grayscale`).

    Args:
        images: ``(H, W, 3)`` or ``(B, H, W, 3)`` (channels first: ``(3, H, W)`` ...); a
            one-channel image is returned unchanged.
        data_format: ``"channels_last"`` or ``"channels_first"`` (default: the config's).

    Returns:
        The same rank with one channel, in ``images``' dtype: integers are computed in
        floatx and truncated back, as Keras's TensorFlow backend does.

    Raises:
        ValueError: rank other than 3 or 4, a channel count other than 1 or 3, or a bad
            ``data_format``.

    >>> ek.keras.ops.image.rgb_to_grayscale(np.array([[[10, 200, 30]]], np.uint8)).numpy()
    array([[[123]]], dtype=uint8)
    """
    op = "rgb_to_grayscale"
    images, data_format = images_arg(images, data_format, op)
    axis = images.shape.rank - 1 if data_format == "channels_last" else images.shape.rank - 3
    channels = images.shape[axis]
    if channels not in (1, 3):
        raise ValueError(
            f"keras.ops.image.{op}: Invalid channel size: expected 3 (RGB) or 1 (Grayscale). "
            f"Received input with shape: images.shape={tuple(images.shape)}"
        )
    if channels == 1:
        return tf.identity(images)
    dtype = compute_dtype(images)
    weights = to_tensor(np.asarray([0.2989, 0.5870, 0.1140], dtype.as_numpy_dtype))
    gray = tf.tensordot(tf.cast(images, dtype), weights, [[axis], [0]])
    return tf.cast(tf.expand_dims(gray, axis), images.dtype)


def _hsv(images, data_format, op, convert):
    images, data_format = images_arg(images, data_format, op)
    check_float(images, op)
    out = convert(to_channels_last(images, data_format))
    return from_channels_last(out, data_format)


@keras_op
def rgb_to_hsv(images, data_format=None):
    """RGB to HSV, every channel in ``[0, 1]`` (hue 0 red, 1/3 green, 2/3 blue) (follows
    `keras.ops.image.rgb_to_hsv`); defined for RGB values in ``[0, 1]``; differentiable.

    Args:
        images: float ``(H, W, 3)`` or ``(B, H, W, 3)`` (or channels first).
        data_format: ``"channels_last"`` or ``"channels_first"`` (default: the config's).

    Returns:
        The shape and dtype of ``images``.

    Raises:
        ValueError: rank other than 3 or 4, a non-float dtype, not 3 channels, or a bad
            ``data_format``.

    >>> ek.keras.ops.image.rgb_to_hsv([[[1.0, 0.5, 0.0]]]).numpy().round(4)
    array([[[0.0833, 1.    , 1.    ]]], dtype=float32)
    """
    return _hsv(images, data_format, "rgb_to_hsv", image_color.rgb_to_hsv)


@keras_op
def hsv_to_rgb(images, data_format=None):
    """HSV to RGB (follows `keras.ops.image.hsv_to_rgb`); the inverse of `rgb_to_hsv` for
    values in ``[0, 1]``. Not differentiable, as TensorFlow's HSVToRGB.

    Args:
        images: float ``(H, W, 3)`` or ``(B, H, W, 3)`` (or channels first).
        data_format: ``"channels_last"`` or ``"channels_first"`` (default: the config's).

    Returns:
        The shape and dtype of ``images``.

    Raises:
        ValueError: rank other than 3 or 4, a non-float dtype, not 3 channels, or a bad
            ``data_format``.

    >>> ek.keras.ops.image.hsv_to_rgb([[[0.0, 1.0, 0.5]]]).numpy()
    array([[[0.5, 0. , 0. ]]], dtype=float32)
    """
    return _hsv(images, data_format, "hsv_to_rgb", image_color.hsv_to_rgb)


# -- resize, crop, pad --------------------------------------------------------------------------


def _f32_int(numerator: int, denominator) -> int:
    """``int(float32(numerator) / denominator)``: Keras's TensorFlow backend sizes its crop
    and pad boxes in float32."""
    return int(np.float32(numerator) / np.float32(denominator))


def _crop_to_aspect(images: Tensor, size) -> Tensor:
    height, width = int(images.shape[-3]), int(images.shape[-2])
    target_height, target_width = size
    crop_height = max(min(height, _f32_int(width * target_height, target_width)), 1)
    crop_width = max(min(width, _f32_int(height * target_width, target_height)), 1)
    top = _f32_int(height - crop_height, 2)
    left = _f32_int(width - crop_width, 2)
    return images[..., top : top + crop_height, left : left + crop_width, :]


def _pad_to_aspect(images: Tensor, size, fill_value) -> Tensor:
    height, width = int(images.shape[-3]), int(images.shape[-2])
    target_height, target_width = size
    pad_height = max(height, _f32_int(width * target_height, target_width))
    pad_width = max(width, _f32_int(height * target_width, target_height))
    # Keras pads the same amount on both sides (an odd difference loses one row or column).
    top = _f32_int(pad_height - height, 2)
    left = _f32_int(pad_width - width, 2)
    if top == 0 and left == 0:
        return images
    paddings = [[0, 0]] * (images.shape.rank - 3) + [[top, top], [left, left], [0, 0]]
    fill = np.asarray(fill_value).astype(images.dtype.as_numpy_dtype)
    return tf.pad(images, paddings, constant_values=fill)


@keras_op
def resize(
    images,
    size,
    interpolation="bilinear",
    antialias=False,
    crop_to_aspect_ratio=False,
    pad_to_aspect_ratio=False,
    fill_mode="constant",
    fill_value=0.0,
    data_format=None,
):
    """``images`` resized to ``size = (height, width)`` (follows `keras.ops.image.resize`).

    Args:
        images: ``(H, W, C)`` or ``(B, H, W, C)`` (or channels first).
        size: two positive ints.
        interpolation: ``"bilinear"`` (default), ``"nearest"``, ``"bicubic"``, ``"area"``,
            ``"lanczos3"`` or ``"lanczos5"``, TensorFlow's kernels (`ek.image.resize`).
        antialias: widen the kernel when downsampling.
        crop_to_aspect_ratio: first crop the largest centred window with the target aspect
            ratio (its sides computed in float32 and truncated, as Keras does).
        pad_to_aspect_ratio: first pad the short side, the same number of rows (or
            columns) on both sides, with ``fill_value``.
        fill_mode: only ``"constant"``.
        fill_value: the padding value (``pad_to_aspect_ratio``).
        data_format: ``"channels_last"`` or ``"channels_first"`` (default: the config's).

    Returns:
        ``images``' dtype: floats computed in float32 are cast back, integers rounded and
        saturated, as Keras does.

    Raises:
        ValueError: a ``size`` that is not two positive ints, rank other than 3 or 4, both
            aspect options, a ``fill_mode`` other than "constant", an unknown
            ``interpolation`` or ``data_format``.

    >>> img = ek.reshape(ek.range(12.0), (3, 4, 1))
    >>> ek.keras.ops.image.resize(img, (2, 2), crop_to_aspect_ratio=True)[..., 0].numpy()
    array([[1.25, 2.75],
           [7.25, 8.75]], dtype=float32)
    """
    op = "resize"
    if len(size) != 2:
        raise ValueError(
            f"keras.ops.image.{op}: expected `size` to be a tuple of 2 integers. "
            f"Received: size={size!r}"
        )
    size = (int(size[0]), int(size[1]))
    if size[0] <= 0 or size[1] <= 0:
        raise ValueError(
            f"keras.ops.image.{op}: `size` must have positive height and width. "
            f"Received: size={size!r}"
        )
    images, data_format = images_arg(images, data_format, op)
    if pad_to_aspect_ratio and crop_to_aspect_ratio:
        raise ValueError(
            f"keras.ops.image.{op}: only one of `pad_to_aspect_ratio` & "
            "`crop_to_aspect_ratio` can be `True`."
        )
    choice(interpolation, _METHODS, op, "interpolation")
    if fill_mode != "constant":
        raise ValueError(
            f"keras.ops.image.{op}: invalid value for argument `fill_mode`. Only 'constant' is "
            f"supported. Received: fill_mode={fill_mode!r}"
        )
    x = to_channels_last(images, data_format)
    if crop_to_aspect_ratio:
        x = _crop_to_aspect(x, size)
    elif pad_to_aspect_ratio:
        x = _pad_to_aspect(x, size, fill_value)
    out = image_ops.resize(x, list(size), method=interpolation, antialias=bool(antialias))
    out = from_channels_last(out, data_format)
    if out.dtype == images.dtype:
        return out
    if images.dtype.is_integer:
        out = tf.round(out)
    return tf.saturate_cast(out, images.dtype)


def _exactly_two(values: dict, op: str) -> None:
    if list(values.values()).count(None) != 1:
        names = ", ".join(values)
        got = ", ".join(f"{k}={v!r}" for k, v in values.items())
        raise ValueError(
            f"keras.ops.image.{op}: must specify exactly two of {names}. Received: {got}"
        )


def _non_negative(op: str, **values) -> None:
    for name, value in values.items():
        if value is not None and value < 0:
            raise ValueError(
                f"keras.ops.image.{op}: `{name}` must be >= 0. Received: {name}={value!r}"
            )


def _edges(op: str, names: tuple, before, after, target, size: int, grow: bool) -> tuple:
    """``(before, after, target)`` of one spatial axis of `pad_images` (``grow``) or
    `crop_images`, from exactly two of them: the edges add up to ``target - size`` when
    padding and to ``size - target`` when cropping. Raises Keras's ValueErrors."""
    given = dict(zip(names, (before, after, target)))
    _exactly_two(given, op)
    _non_negative(op, **given)
    if target is None:
        target = size + before + after if grow else size - before - after
    spare = target - size if grow else size - target
    if before is None:
        before = spare - after
    if after is None:
        after = spare - before
    # the derived edge or target (a crop's far edge is checked with the window, by the caller)
    _non_negative(
        op,
        **({names[0]: before, names[1]: after} if grow else {names[0]: before, names[2]: target}),
    )
    return int(before), int(after), int(target)


def _hw(images: Tensor, data_format: str) -> tuple[int, int]:
    if data_format == "channels_last":
        return int(images.shape[-3]), int(images.shape[-2])
    return int(images.shape[-2]), int(images.shape[-1])


@keras_op
def pad_images(
    images,
    top_padding=None,
    left_padding=None,
    bottom_padding=None,
    right_padding=None,
    target_height=None,
    target_width=None,
    data_format=None,
):
    """``images`` padded with zeros (follows `keras.ops.image.pad_images`).

    Give exactly two of ``top_padding``, ``bottom_padding``, ``target_height`` and two of
    ``left_padding``, ``right_padding``, ``target_width``; the third follows.

    Args:
        images: ``(H, W, C)`` or ``(B, H, W, C)`` (or channels first), any dtype.
        data_format: ``"channels_last"`` or ``"channels_first"`` (default: the config's).

    Returns:
        ``images``' dtype, ``target_height`` by ``target_width``.

    Raises:
        ValueError: rank other than 3 or 4, not exactly two arguments per axis, or a
            negative (given or inferred) padding or target.

    >>> img = ek.ones((1, 2, 1))
    >>> ek.keras.ops.image.pad_images(img, 1, 0, 0, 1)[..., 0].numpy()
    array([[0., 0., 0.],
           [1., 1., 0.]], dtype=float32)
    """
    op = "pad_images"
    images, data_format = images_arg(images, data_format, op)
    height, width = _hw(images, data_format)
    top_padding, bottom_padding, _ = _edges(
        op,
        ("top_padding", "bottom_padding", "target_height"),
        top_padding,
        bottom_padding,
        target_height,
        height,
        grow=True,
    )
    left_padding, right_padding, _ = _edges(
        op,
        ("left_padding", "right_padding", "target_width"),
        left_padding,
        right_padding,
        target_width,
        width,
        grow=True,
    )
    spatial = [[int(top_padding), int(bottom_padding)], [int(left_padding), int(right_padding)]]
    paddings = [*spatial, [0, 0]] if data_format == "channels_last" else [[0, 0], *spatial]
    if images.shape.rank == 4:
        paddings = [[0, 0], *paddings]
    return tf.pad(images, paddings)


@keras_op
def crop_images(
    images,
    top_cropping=None,
    left_cropping=None,
    bottom_cropping=None,
    right_cropping=None,
    target_height=None,
    target_width=None,
    data_format=None,
):
    """``images`` cropped (follows `keras.ops.image.crop_images`).

    Give exactly two of ``top_cropping``, ``bottom_cropping``, ``target_height`` and two of
    ``left_cropping``, ``right_cropping``, ``target_width``; the third follows.

    Args:
        images: ``(H, W, C)`` or ``(B, H, W, C)`` (or channels first), any dtype.
        data_format: ``"channels_last"`` or ``"channels_first"`` (default: the config's).

    Returns:
        ``images``' dtype, ``target_height`` by ``target_width``.

    Raises:
        ValueError: rank other than 3 or 4, not exactly two arguments per axis, a negative
            (given or inferred) cropping or target, or a window outside the image.

    >>> img = ek.reshape(ek.range(1.0, 13.0), (3, 4, 1))
    >>> ek.keras.ops.image.crop_images(img, 1, 1, 0, 1)[..., 0].numpy()
    array([[ 6.,  7.],
           [10., 11.]], dtype=float32)
    """
    op = "crop_images"
    images, data_format = images_arg(images, data_format, op)
    height, width = _hw(images, data_format)
    top_cropping, _, target_height = _edges(
        op,
        ("top_cropping", "bottom_cropping", "target_height"),
        top_cropping,
        bottom_cropping,
        target_height,
        height,
        grow=False,
    )
    left_cropping, _, target_width = _edges(
        op,
        ("left_cropping", "right_cropping", "target_width"),
        left_cropping,
        right_cropping,
        target_width,
        width,
        grow=False,
    )
    if top_cropping + target_height > height or left_cropping + target_width > width:
        raise ValueError(
            f"keras.ops.image.{op}: the crop window does not fit in the images. Received: "
            f"top_cropping={top_cropping}, target_height={target_height}, "
            f"left_cropping={left_cropping}, target_width={target_width}, "
            f"images.shape={tuple(images.shape)}"
        )
    rows = slice(int(top_cropping), int(top_cropping + target_height))
    cols = slice(int(left_cropping), int(left_cropping + target_width))
    if data_format == "channels_last":
        return images[..., rows, cols, :]
    return images[..., rows, cols]
