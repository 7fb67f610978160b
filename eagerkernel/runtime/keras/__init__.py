"""`ek.keras`: Keras-style layers, models, optimizers, losses and metrics."""

from __future__ import annotations

from . import callbacks, datasets, layers
from .models import Model, Sequential

__all__ = ["Model", "Sequential", "callbacks", "datasets", "layers"]
