"""``ek.version``: the version strings TensorFlow exposes as ``tf.version``.

``VERSION`` is the package version (also ``ek.__version__``); ``GIT_VERSION`` is ``"unknown"``,
TensorFlow's value for a build without git information; ``COMPILER_VERSION`` names the C
compiler of the running Python, which builds eagerkernel's native kernels.

>>> ek.version.VERSION == ek.__version__
True
"""

from __future__ import annotations

import platform

from . import __version__ as VERSION

GIT_VERSION = "unknown"
COMPILER_VERSION = platform.python_compiler()

__all__ = ["COMPILER_VERSION", "GIT_VERSION", "VERSION"]
