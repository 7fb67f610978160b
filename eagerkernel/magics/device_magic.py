"""``%device``: list the devices and the default one; set the default for the next cells."""

from __future__ import annotations

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from ..runtime.config import get_default_device
from ..runtime.core import device as _device
from .formatting import html_table, text_table

__all__ = ["DeviceListing", "DeviceMagics"]


class DeviceListing:
    """The devices present, CPU first, with the default one marked ``*``.

    Virtual GPUs (``EAGERKERNEL_VIRTUAL_GPUS``) are labelled as such in every form.

    Attributes:
        devices: the `Device` objects.
        default: the default device's name, e.g. ``"/cpu:0"``.

    >>> print(DeviceListing())  # doctest: +ELLIPSIS
    Devices (* = default for new tensors):
        device  type  description
        ------  ----  -----------...
      * /cpu:0  CPU   NumPy ...
    """

    def __init__(self):
        self.devices = _device.list_devices()
        self.default = get_default_device()

    def _rows(self) -> list[list[str]]:
        return [
            [
                "*" if d.name == self.default else "",
                d.name,
                d.device_type,
                d.describe().removeprefix(d.name).strip(" ()"),
            ]
            for d in self.devices
        ]

    def __repr__(self) -> str:
        rows = self._rows()
        body = text_table(
            ["device", "type", "description"],
            [r[1:] for r in rows],
            marks=[r[0] or " " for r in rows],
        )
        return "Devices (* = default for new tensors):\n" + "\n".join(
            "  " + line for line in body.splitlines()
        )

    def _repr_pretty_(self, p, cycle: bool) -> None:
        p.text(repr(self))

    def _repr_html_(self) -> str:
        return html_table(
            ["default", "device", "type", "description"],
            self._rows(),
            caption="Devices (* = default for new tensors)",
        )


@magics_class
class DeviceMagics(Magics):
    """The ``%device`` line magic."""

    @magic_arguments()
    @argument("name", nargs="?", help="a device name: /cpu:0, /gpu:0, gpu:1, GPU:0, ...")
    @line_magic
    def device(self, line: str) -> DeviceListing:
        """Show the devices and the default one, or set the default device.

        ``%device`` lists the devices present (virtual GPUs are labelled virtual) and marks
        the default with ``*``. ``%device /gpu:0`` makes ``/gpu:0`` the default: tensors
        created in the following cells go there (as with ``ek.config.set_default_device``).
        ``%device /cpu:0`` goes back to the CPU. An unknown or absent device is a one-line
        error and leaves the default unchanged.

        Returns the `DeviceListing` (shown as the cell's result).
        """
        args = parse_argstring(self.device, line)
        if args.name:
            try:
                _device.set_default_device(args.name)
            except (ValueError, RuntimeError) as e:
                raise UsageError(f"%device: {e}") from None
        return DeviceListing()
