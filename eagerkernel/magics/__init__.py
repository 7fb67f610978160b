"""IPython magics and rich displays for eagerkernel: ``%%tape``, ``%grad``, ``%device``.

``%load_ext eagerkernel`` (or the Eager kernel, which loads it at start) calls
`load_ipython_extension`: it registers the magics and HTML views of Tensors, Variables and
GradientTapes. Every display has a plain-text form too. This package imports the runtime;
the runtime never imports IPython.
"""

from __future__ import annotations

from ..runtime.tape import GradientTape
from ..runtime.tensor import Tensor
from .device_magic import DeviceListing, DeviceMagics
from .formatting import format_seconds, tensor_html
from .grad_magic import GradMagics, GradResult
from .tape_magic import TapeMagics, TapeRecord, TapeTiming

__all__ = [
    "DeviceListing",
    "DeviceMagics",
    "GradMagics",
    "GradResult",
    "TapeMagics",
    "TapeRecord",
    "TapeTiming",
    "format_seconds",
    "load_ipython_extension",
    "unload_ipython_extension",
]

MAGICS = (TapeMagics, GradMagics, DeviceMagics)
_NAMES = {"cell": ("tape",), "line": ("grad", "device")}


def _tape_html(tape: GradientTape) -> str:
    return TapeRecord(tape, None)._repr_html_()


def _tape_pretty(tape: GradientTape, p, cycle: bool) -> None:
    p.text(repr(TapeRecord(tape, None)))


_HTML = ((Tensor, tensor_html), (GradientTape, _tape_html))
_PLAIN = ((GradientTape, _tape_pretty),)


def load_ipython_extension(ipython) -> None:
    """Registers ``%%tape``, ``%grad``, ``%device`` and the rich views in ``ipython``.

    Tensors and Variables get an HTML view (their text stays the runtime's repr);
    GradientTapes show their recorded ops as text and HTML.

    Loading twice is harmless.
    """
    for magics in MAGICS:
        ipython.register_magics(magics)
    formatters = ipython.display_formatter.formatters
    for mime, table in (("text/html", _HTML), ("text/plain", _PLAIN)):
        for cls, func in table:
            formatters[mime].for_type(cls, func)


def unload_ipython_extension(ipython) -> None:
    """Removes the magics and HTML views that `load_ipython_extension` registered."""
    mm = ipython.magics_manager
    for kind, names in _NAMES.items():
        for name in names:
            func = mm.magics[kind].get(name)
            if func is not None and isinstance(getattr(func, "__self__", None), MAGICS):
                del mm.magics[kind][name]
    for magics in MAGICS:
        mm.registry.pop(magics.__name__, None)
    formatters = ipython.display_formatter.formatters
    for mime, table in (("text/html", _HTML), ("text/plain", _PLAIN)):
        for cls, _ in table:
            formatters[mime].pop(cls, None)
