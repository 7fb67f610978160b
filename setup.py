"""The one part of the build pyproject.toml cannot declare: the optional C extensions.

- ``eagerkernel.runtime._kernels`` (``_kernels.c``): fused optimizer and gradient kernels;
  without it the NumPy kernels run.
- ``eagerkernel.runtime._records`` (``_records.c``): the %%tape magic's lean recorder; without
  it the Python recorder of ``records.py`` runs.

Without a C compiler the install still succeeds (``optional=True``) and the Python side runs.
"""

import sys

from setuptools import Extension, setup

flags = [] if sys.platform == "win32" else ["-O3", "-fno-math-errno", "-ffp-contract=off"]
setup(
    ext_modules=[
        Extension(
            f"eagerkernel.runtime.{name}",
            [f"eagerkernel/runtime/{name}.c"],
            extra_compile_args=flags,
            optional=True,
        )
        for name in ("_kernels", "_records")
    ]
)
