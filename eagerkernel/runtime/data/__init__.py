"""`ek.data`: tf.data-style input pipelines (being built; see issue 3)."""

from __future__ import annotations

__all__: list[str] = []
