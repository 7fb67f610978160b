"""`ek.keras.datasets`: real data sets read from local files (nothing is downloaded)."""

from __future__ import annotations

__all__: list[str] = []
