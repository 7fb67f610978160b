"""`ek.io`: file and byte ops under TensorFlow's `tf.io` names."""

from __future__ import annotations

from .runtime.ops.image_codecs import (
    decode_image,
    decode_jpeg,
    decode_png,
    encode_jpeg,
    encode_png,
)
from .runtime.ops.io_ops import decode_raw, read_file, write_file

__all__ = [
    "decode_image",
    "decode_jpeg",
    "decode_png",
    "decode_raw",
    "encode_jpeg",
    "encode_png",
    "read_file",
    "write_file",
]
