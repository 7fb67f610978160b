"""IPython magics and rich displays for eagerkernel: ``%%tape``, ``%grad``, ``%device``.

``%load_ext eagerkernel`` (or the Eager kernel, which loads it at start) calls
`load_ipython_extension`: it registers the magics and HTML views of Tensors, Variables and
GradientTapes. Every display has a plain-text form too. This package imports the runtime;
the runtime never imports IPython.
"""

from __future__ import annotations

from ..runtime.core.tape import GradientTape
from ..runtime.core.tensor import Tensor
from . import displays
from .device_magic import DeviceListing, DeviceMagics
from .formatting import format_seconds, tensor_html
from .grad_magic import GradMagics, GradResult
from .graph import GraphSpec, TapeGraph
from .plots import GradPlots
from .tape_magic import TapeMagics, TapeRecord, TapeTiming
from .timing import CellTiming, TimingMagics

__all__ = [
    "CellTiming",
    "DeviceListing",
    "DeviceMagics",
    "GradMagics",
    "GradPlots",
    "GradResult",
    "GraphSpec",
    "TapeGraph",
    "TapeMagics",
    "TapeRecord",
    "TapeTiming",
    "TimingMagics",
    "format_seconds",
    "load_ipython_extension",
    "unload_ipython_extension",
]

MAGICS = (TapeMagics, GradMagics, DeviceMagics, TimingMagics)
_NAMES = {"cell": ("tape",), "line": ("grad", "device", "eager_timing")}


def _tape_html(tape: GradientTape) -> str:
    return TapeRecord(tape, None)._repr_html_()


def _tape_pretty(tape: GradientTape, p, cycle: bool) -> None:
    p.text(repr(TapeRecord(tape, None)))


_RUNTIME_HTML, _RUNTIME_PLAIN = displays.formatters()
_HTML = ((Tensor, tensor_html), (GradientTape, _tape_html), *_RUNTIME_HTML)
_PLAIN = ((GradientTape, _tape_pretty), *_RUNTIME_PLAIN)


def _filtered_traceback(shell, etype, value, tb, tb_offset=None):
    """IPython's custom exception handler (``set_custom_exc``): shows an exception that a
    cell raised with eagerkernel's internal frames left out (`strip_internal_frames`, as
    Keras filters its tracebacks), unless ``ek.debugging.disable_traceback_filtering()``."""
    from ..runtime.traceback_utils import is_traceback_filtering_enabled, strip_internal_frames

    if is_traceback_filtering_enabled():
        value.__traceback__ = tb
        tb = strip_internal_frames(value).__traceback__
    # IPython's own display from here (usage errors in one line, %debug's post-mortem).
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)
    return None


def load_ipython_extension(ipython) -> None:
    """Registers ``%%tape``, ``%grad``, ``%device`` and the rich views in ``ipython``.

    Tensors and Variables get an HTML view (their text stays the runtime's repr);
    GradientTapes (the ``_tape`` of ``%%tape``) show their recorded ops as text and HTML;
    Keras models show their summary, Datasets their element spec and cardinality, and
    checkpoint restore statuses their matched and unmatched counts. ``%eager_timing on``
    adds a timing display after each cell. Exceptions raised by cells are shown without
    eagerkernel's internal frames (IPython's ``set_custom_exc``; see
    ``ek.debugging.disable_traceback_filtering``), unless another handler is installed.

    Loading twice is harmless.
    """
    previous = ipython.magics_manager.registry.get(TimingMagics.__name__)
    if isinstance(previous, TimingMagics):
        previous.stop()
    for magics in MAGICS:
        ipython.register_magics(magics)
    if not ipython.custom_exceptions:  # never replace a handler someone else installed
        ipython.set_custom_exc((Exception,), _filtered_traceback)
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
    instance = mm.registry.get(TimingMagics.__name__)
    if isinstance(instance, TimingMagics):
        instance.stop()
    for magics in MAGICS:
        mm.registry.pop(magics.__name__, None)
    if getattr(ipython.CustomTB, "__func__", None) is not None and ipython.custom_exceptions == (
        Exception,
    ):
        ipython.set_custom_exc((), None)
    formatters = ipython.display_formatter.formatters
    for mime, table in (("text/html", _HTML), ("text/plain", _PLAIN)):
        for cls, _ in table:
            formatters[mime].pop(cls, None)
