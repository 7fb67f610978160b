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
TensorShape([None])
"""

from __future__ import annotations

from . import (
    core,
    image,
    linalg,
    linalg_base,
    linalg_more,
    math,
    nn,
    nn_more,
    numpy,
    numpy_data,
    numpy_rest,
)
from ._base import KerasOpLayer
from .core import *  # noqa: F403
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
    *linalg_base.__all__,
    *math.__all__,
    *nn.__all__,
    *numpy.__all__,
    *numpy_rest.__all__,
    *numpy_data.__all__,
    *linalg_more.__all__,
    *nn_more.__all__,
]
