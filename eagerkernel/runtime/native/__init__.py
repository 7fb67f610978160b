"""Optional C extensions and their NumPy/Python twins, the allocator policy and BLAS threads.

The C twins of the runtime's hot paths (``_dispatch.c``: dispatch's observed path;
``_tape.c``: a tape's ``record``; ``_philox.c``: TensorFlow's random number kernels) run when
they were built and ``EAGERKERNEL_NATIVE`` is not ``0``; with ``EAGERKERNEL_NATIVE=0`` the
Python functions they mirror run instead (the tests compare the two).
"""

import os

ENABLED = os.environ.get("EAGERKERNEL_NATIVE", "1") != "0"
