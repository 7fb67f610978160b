"""`ek.keras`: Keras-style layers, models, optimizers, losses and metrics."""

from __future__ import annotations

from ..version_info import VERSION
from . import (
    activations,
    applications,
    backend,
    callbacks,
    config,
    constraints,
    datasets,
    export,
    initializers,
    layers,
    losses,
    metrics,
    mixed_precision,
    ops,
    optimizers,
    preprocessing,
    random,
    regularizers,
    saving,
    tree,
    utils,
)
from .dtype_policies import DTypePolicy
from .functional import Input
from .keras_tensor import KerasTensor
from .layers.input_spec import InputSpec
from .models import Model, Sequential
from .variables import Variable

#: eagerkernel's own version: this Keras is part of it, not a Keras release (tf.keras's
#: ``__version__`` is the Keras release's).
__version__ = VERSION


def version() -> str:
    """This Keras's version: eagerkernel's (follows `keras.version()`)."""
    return VERSION


__all__ = [
    "DTypePolicy",
    "Input",
    "InputSpec",
    "KerasTensor",
    "Model",
    "Sequential",
    "Variable",
    "activations",
    "applications",
    "backend",
    "callbacks",
    "config",
    "constraints",
    "datasets",
    "export",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "mixed_precision",
    "ops",
    "optimizers",
    "preprocessing",
    "random",
    "regularizers",
    "saving",
    "tree",
    "utils",
    "version",
]
