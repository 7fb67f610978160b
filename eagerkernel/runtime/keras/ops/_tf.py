"""The TensorFlow-style functions `ek.keras.ops` is built on, gathered (as
``eagerkernel.math`` gathers them) into one namespace, `tf`, so each op reads
``tf.reduce_sum(...)``."""

from __future__ import annotations

import types

from ...autodiff import stop_gradient  # noqa: F401
from ...core.tensor import convert_to_tensor  # noqa: F401
from ...ops import *  # noqa: F403
from ...ops import nn  # noqa: F401
from ...ops.linalg import *  # noqa: F403
from ...ops.math_more import *  # noqa: F403
from ...ops.math_ops import *  # noqa: F403
from ...ops.reduction import *  # noqa: F403
from ...ops.segment_ops import *  # noqa: F403
from ...ops.special_math import *  # noqa: F403

#: The functions above as one namespace (``from ._tf import tf``).
tf = types.SimpleNamespace(**{k: v for k, v in globals().items() if not k.startswith("_")})
