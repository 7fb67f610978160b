"""`ek.strings`: string ops under TensorFlow's `tf.strings` names."""

from __future__ import annotations

from .runtime.ops.strings import *  # noqa: F403
from .runtime.ops.strings import __all__  # noqa: F401
