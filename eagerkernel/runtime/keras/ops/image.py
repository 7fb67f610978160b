"""`keras.ops.image` (follows ``keras/src/ops/image.py``): image functions, only under
``ops.image`` as in Keras. Images are ``(height, width, channels)`` or batched
``(batch, height, width, channels)`` (``data_format="channels_first"``: channels first)."""

from __future__ import annotations

from ...ops import image as image_ops
from ._base import keras_op, to_tensor
from ._tf import tf

__all__ = ["resize", "rgb_to_grayscale"]

_METHODS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5")


def _data_format(data_format, rank, op):
    from ..backend import image_data_format

    data_format = data_format or image_data_format()
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(
            f"keras.ops.image.{op}: `data_format` must be 'channels_last' or 'channels_first'. "
            f"Received: data_format={data_format!r}"
        )
    if rank not in (3, 4):
        raise ValueError(
            f"keras.ops.image.{op}: images must be 3D (height, width, channels) or 4D (batch, "
            f"height, width, channels). Received: rank {rank}"
        )
    return data_format


def _channels_last(x, data_format):
    if data_format == "channels_first":
        return tf.transpose(x, [1, 2, 0] if x.shape.rank == 3 else [0, 2, 3, 1])
    return x


def _back(x, data_format):
    if data_format == "channels_first":
        return tf.transpose(x, [2, 0, 1] if x.shape.rank == 3 else [0, 3, 1, 2])
    return x


@keras_op
def rgb_to_grayscale(images, data_format=None):
    """RGB images to one-channel grayscale, ``0.2989 R + 0.5870 G + 0.1140 B`` (follows
    `keras.ops.image.rgb_to_grayscale`); the dtype of ``images``."""
    images = to_tensor(images)
    data_format = _data_format(data_format, images.shape.rank, "rgb_to_grayscale")
    out = image_ops.rgb_to_grayscale(_channels_last(images, data_format))
    return _back(out, data_format)


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
    """``images`` resized to ``size`` ``(height, width)`` (follows
    `keras.ops.image.resize`); ``interpolation`` one of bilinear, nearest, bicubic, area,
    lanczos3, lanczos5; float32 output as TensorFlow's resize (nearest keeps the dtype).

    Raises:
        ValueError: a bad ``size``, ``interpolation`` or ``data_format``.
        NotImplementedError: ``crop_to_aspect_ratio``/``pad_to_aspect_ratio`` (and their
            ``fill_mode``/``fill_value``).
    """
    if crop_to_aspect_ratio or pad_to_aspect_ratio:
        raise NotImplementedError(
            "keras.ops.image.resize: crop_to_aspect_ratio and pad_to_aspect_ratio are not "
            "supported."
        )
    if fill_mode != "constant" or fill_value != 0.0:
        raise NotImplementedError(
            "keras.ops.image.resize: fill_mode and fill_value only apply with "
            f"pad_to_aspect_ratio. Received: fill_mode={fill_mode!r}, fill_value={fill_value!r}"
        )
    if interpolation not in _METHODS:
        raise ValueError(
            f"keras.ops.image.resize: `interpolation` must be one of {_METHODS}. Received: "
            f"interpolation={interpolation!r}"
        )
    if len(size) != 2:
        raise ValueError(
            f"keras.ops.image.resize: `size` must be (height, width). Received: size={size!r}"
        )
    images = to_tensor(images)
    data_format = _data_format(data_format, images.shape.rank, "resize")
    out = image_ops.resize(
        _channels_last(images, data_format),
        [int(s) for s in size],
        method=interpolation,
        antialias=bool(antialias),
    )
    return _back(out, data_format)
