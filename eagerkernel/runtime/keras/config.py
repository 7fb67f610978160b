"""`ek.keras.config`: process-wide Keras settings (follows `keras.config`)."""

from __future__ import annotations

from .saving import enable_unsafe_deserialization

__all__ = ["enable_unsafe_deserialization"]
