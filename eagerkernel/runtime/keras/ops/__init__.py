"""`ek.keras.ops`: Keras 3's backend-agnostic ops (follows `keras.ops`).

NumPy-style functions (``ops.matmul``, ``ops.sum``, ``ops.concatenate``), neural-network
functions (``ops.relu``, ``ops.softmax``, ``ops.binary_crossentropy``), math
(``ops.top_k``, ``ops.logsumexp``), core (``ops.convert_to_tensor``, ``ops.cond``,
``ops.slice_update``), linear algebra (``ops.norm``, also ``ops.linalg.*``) and
``ops.image.*``; ``ops.numpy.*``, ``ops.nn.*``, ``ops.math.*``, ``ops.core.*`` group them as
Keras does. Each runs eagerly on tensors, arrays and Python numbers (differentiable through
`ek.GradientTape`), and records a `KerasOpLayer` when given a KerasTensor, so functional
models can be built with them and saved. Dtypes follow Keras 3's promotion rules (see each
function).

>>> from eagerkernel.keras import ops
>>> ops.sum(ops.ones((2, 3)), axis=1).numpy()
array([3., 3.], dtype=float32)
>>> x = ek.keras.Input(shape=(4,))
>>> ops.mean(ops.relu(x), axis=-1).shape
(None,)
"""

from __future__ import annotations

import types as _types

from . import (
    core,
    einops,
    image,
    linalg,
    linalg_base,
    linalg_more,
    math,
    nn_more,
    numpy_data,
    numpy_rest,
)
from . import nn as _nn_first
from . import numpy as _numpy_first
from ._base import KerasOpLayer
from .core import *  # noqa: F403
from .einops import *  # noqa: F403
from .linalg_base import *  # noqa: F403
from .linalg_more import *  # noqa: F403
from .math import *  # noqa: F403
from .nn import *  # noqa: F403
from .nn_more import *  # noqa: F403
from .numpy import *  # noqa: F403
from .numpy_data import *  # noqa: F403
from .numpy_rest import *  # noqa: F403

__all__ = [
    "KerasOpLayer",
    "image",
    "linalg",
    *core.__all__,
    *einops.__all__,
    *linalg_base.__all__,
    *math.__all__,
    *_nn_first.__all__,
    *_numpy_first.__all__,
    *numpy_rest.__all__,
    *numpy_data.__all__,
    *linalg_more.__all__,
    *nn_more.__all__,
]


def _namespace(name: str, doc: str, modules: tuple, more: tuple = ()) -> _types.ModuleType:
    """A module object holding every public function of ``modules`` and the functions named
    ``more`` (defined in other files here, grouped there by Keras)."""
    space = _types.ModuleType(f"{__name__}.{name}", doc)
    names = [n for m in modules for n in m.__all__]
    for module in modules:
        for fn in module.__all__:
            setattr(space, fn, getattr(module, fn))
    for fn in more:
        setattr(space, fn, globals()[fn])
    space.__all__ = sorted({*names, *more})
    return space


# `keras.ops.numpy` and `keras.ops.nn` hold all of their group's functions, which live in
# several files here.
numpy = _namespace(
    "numpy",
    "`keras.ops.numpy`: the NumPy-style functions.",
    (_numpy_first, numpy_rest, numpy_data),
    (
        *("angle", "conj", "conjugate", "get_item", "i0", "imag", "real", "slogdet", "tanh"),
        *("vectorize", "view"),
    ),
)
nn = _namespace(
    "nn", "`keras.ops.nn`: the neural-network functions.", (_nn_first, nn_more), ("polar",)
)
