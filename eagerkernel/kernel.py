"""The Eager kernel: ipykernel's IPython kernel with eagerkernel preloaded.

At start the kernel runs ``import eagerkernel as ek`` and ``import numpy as np`` in the user
namespace and loads the ``%%tape``, ``%grad`` and ``%device`` magics (``%load_ext
eagerkernel``). Its banner names the eagerkernel version and the devices found. Everything
else is IPythonKernel's, so the kernel speaks the Jupyter protocol exactly as ipykernel does.

Launch it with ``python -m eagerkernel.kernel -f CONNECTION_FILE`` (what the ``eager``
kernelspec installed by ``python -m eagerkernel install`` does).
"""

from __future__ import annotations

import sys

import IPython
import numpy as np
from ipykernel.ipkernel import IPythonKernel

import eagerkernel as ek

from .runtime.core.device import list_devices

__all__ = ["EagerKernel", "banner"]


def banner() -> str:
    """The kernel banner: versions, devices (virtual GPUs labelled virtual) and the magics.

    >>> "/cpu:0" in banner()
    True
    """
    devices = "\n".join(f"  {d.describe()}" for d in list_devices())
    return (
        f"Eager kernel: eagerkernel {ek.__version__} on IPython {IPython.__version__}, "
        f"Python {sys.version.split()[0]}\n"
        f"Devices:\n{devices}\n"
        "Preloaded: `ek` (eagerkernel), `np` (NumPy). "
        "Magics: %%tape, %grad, %device (append ? for help).\n"
    )


class EagerKernel(IPythonKernel):
    """IPythonKernel with the eagerkernel runtime and magics preloaded."""

    implementation = "eagerkernel"
    implementation_version = ek.__version__
    # The same language_info as IPythonKernel: the kernel runs Python with IPython syntax.
    language_info = IPythonKernel.language_info

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        # Hidden from %who, like the names IPython's own exec_lines define.
        self.shell.push({"ek": ek, "np": np}, interactive=False)
        self.shell.extension_manager.load_extension("eagerkernel")

    @property
    def banner(self) -> str:  # type: ignore[override]
        """The banner shown by frontends (kernel_info_reply)."""
        return banner()


if __name__ == "__main__":
    from ipykernel.kernelapp import IPKernelApp

    IPKernelApp.launch_instance(kernel_class=EagerKernel)
