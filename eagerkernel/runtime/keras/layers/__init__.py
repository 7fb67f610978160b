"""`ek.keras.layers`."""

from __future__ import annotations

from .base import Layer

__all__ = ["Layer"]
