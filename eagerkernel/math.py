"""`ek.math`: the math ops under TensorFlow's `tf.math` names."""

from __future__ import annotations

from .runtime.ops.elementwise import *  # noqa: F403
from .runtime.ops.linalg import *  # noqa: F403
from .runtime.ops.reduction import *  # noqa: F403
