"""`ek.keras`: Keras-style layers, models, optimizers, losses and metrics."""

from __future__ import annotations

from . import (
    activations,
    backend,
    callbacks,
    config,
    datasets,
    initializers,
    layers,
    losses,
    metrics,
    mixed_precision,
    optimizers,
    preprocessing,
    regularizers,
    saving,
    utils,
)
from .functional import Input
from .keras_tensor import KerasTensor
from .models import Model, Sequential

__all__ = [
    "Input",
    "KerasTensor",
    "Model",
    "Sequential",
    "activations",
    "backend",
    "callbacks",
    "config",
    "datasets",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "mixed_precision",
    "optimizers",
    "preprocessing",
    "regularizers",
    "saving",
    "utils",
]
