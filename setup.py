"""The one part of the build pyproject.toml cannot declare: the optional C extension of fused
optimizer kernels (eagerkernel/runtime/_kernels.c). Without a C compiler the install still
succeeds (``optional=True``) and the optimizers use their NumPy kernels."""

import sys

from setuptools import Extension, setup

flags = [] if sys.platform == "win32" else ["-O3", "-fno-math-errno", "-ffp-contract=off"]
setup(
    ext_modules=[
        Extension(
            "eagerkernel.runtime._kernels",
            ["eagerkernel/runtime/_kernels.c"],
            extra_compile_args=flags,
            optional=True,
        )
    ]
)
