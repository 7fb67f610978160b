"""The one part of the build pyproject.toml cannot declare: the optional C extensions.

- ``eagerkernel.runtime.native._kernels`` (``_kernels.c``): fused optimizer and gradient kernels
  and the elementwise programs (NumPy's ufunc inner loops run block by block on kernel
  threads; built against NumPy's headers); without it the NumPy kernels run.
- ``eagerkernel.runtime.native._tape`` (``_tape.c``): a tape's ``record`` in C; without it the
  Python methods of ``core/tape.py`` run.
- ``eagerkernel.runtime.native._dispatch`` (``_dispatch.c``): dispatch's observed path for the
  common case; without it ``core/dispatch.py``'s ``_observed`` runs.
- ``eagerkernel.runtime.native._philox`` (``_philox.c``): Philox-4x32-10 and TensorFlow's
  distributions on it; without it ``runtime/philox.py``'s NumPy code runs.

Without a C compiler the install still succeeds (``optional=True``) and the Python side runs.

Flags: ``-ffp-contract=off`` keeps every multiply and add separate (results bit for bit
NumPy's); ``-fno-trapping-math`` lets GCC turn the kernels' selects into vector blends, so
loops with comparisons (the stable sigmoid, erf's clamps) vectorize. The operations that run
still raise their IEEE flags, which each kernel's wrapper reports as ``np.errstate`` says
(GCC may then also compute an operation on both sides of a select: the exp passes clean their
arguments in a loop of their own, so that no flag comes from a value the result drops).
"""

import sys

from setuptools import Extension, setup

try:  # _kernels.c reads NumPy's ufunc objects: NumPy's headers (pyproject's build requires)
    import numpy

    numpy_include = [numpy.get_include()]
except ImportError:  # then _kernels fails to build and, being optional, is left out
    numpy_include = []

flags = (
    []
    if sys.platform == "win32"
    else ["-O3", "-fno-math-errno", "-ffp-contract=off", "-fno-trapping-math"]
)
setup(
    ext_modules=[
        Extension(
            f"eagerkernel.runtime.native.{name}",
            [f"eagerkernel/runtime/native/{name}.c"],
            extra_compile_args=flags,
            include_dirs=numpy_include if name == "_kernels" else [],
            optional=True,
        )
        for name in ("_kernels", "_tape", "_dispatch", "_philox")
    ]
)
