"""`ek.debugging`: TensorFlow's `tf.debugging` names (assertions, `check_numerics`, traceback
filtering, device placement logging). The functions live in ``runtime/debugging.py``; this
module holds their public names only."""

from .runtime.debugging import *  # noqa: F403
from .runtime.debugging import __all__  # noqa: F401
