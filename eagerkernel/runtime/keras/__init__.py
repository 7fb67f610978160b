"""`ek.keras`: Keras-style layers, models, optimizers, losses and metrics."""

from __future__ import annotations

from . import datasets, layers

__all__ = ["datasets", "layers"]
