"""`ek.audio`: WAV encoding and decoding under TensorFlow's `tf.audio` names (the functions
live in ``runtime/io/wav.py``)."""

from __future__ import annotations

from .runtime.io.wav import decode_wav, encode_wav

__all__ = ["decode_wav", "encode_wav"]
