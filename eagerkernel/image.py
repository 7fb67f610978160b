"""`ek.image`: image ops under TensorFlow's `tf.image` names."""

from __future__ import annotations

from .runtime.io.image_codecs import (
    decode_bmp,
    decode_gif,
    decode_image,
    decode_jpeg,
    decode_png,
)
from .runtime.ops.image import (
    ResizeMethod,
    adjust_contrast,
    convert_image_dtype,
    flip_left_right,
    flip_up_down,
    random_flip_left_right,
    resize,
    rgb_to_grayscale,
)

__all__ = [
    "ResizeMethod",
    "adjust_contrast",
    "convert_image_dtype",
    "decode_bmp",
    "decode_gif",
    "decode_image",
    "decode_jpeg",
    "decode_png",
    "flip_left_right",
    "flip_up_down",
    "random_flip_left_right",
    "resize",
    "rgb_to_grayscale",
]
