"""Neural-network ops (`ek.nn`)."""

from __future__ import annotations

__all__: list[str] = []
