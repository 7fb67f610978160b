"""`ek.random`: random numbers under TensorFlow's `tf.random` names (the global seed, stateful
and stateless samplers, `Generator`). The ops live in ``runtime/random.py``; this module holds
their public names only."""

from .runtime.random import *  # noqa: F403
from .runtime.random import __all__  # noqa: F401
