"""`ek.io`: file and byte ops under TensorFlow's `tf.io` names."""

from __future__ import annotations

from .runtime.ops.io_ops import decode_raw, read_file, write_file

__all__ = ["decode_raw", "read_file", "write_file"]
