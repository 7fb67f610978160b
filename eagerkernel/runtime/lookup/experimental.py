"""`ek.lookup.experimental` (follows `tf.lookup.experimental`)."""

from __future__ import annotations

from .mutable import MutableHashTable

__all__ = ["MutableHashTable"]
