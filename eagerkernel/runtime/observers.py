"""`Observers`: how one part of the runtime watches another without patching it.

A class that offers a hook owns an `Observers` list and calls `notify` at the moment its
documentation names (`Layer.variable_observers`: a layer created a weight;
`Optimizer.slot_observers`: an optimizer created a slot variable). Whoever wants to react
registers an object with the documented methods and unregisters it when done, as IPython
extensions do with ``shell.events.register``; no method of the observed class is replaced.

Observers are held weakly: registering keeps neither the observer nor what it references
alive. The registrant keeps its observer referenced for as long as it should be called; an
observer that is garbage collected is dropped from the list.

>>> class Printer:
...     def created(self, what):
...         print("created", what)
>>> observers = Observers()
>>> printer = Printer()
>>> observers.register(printer)
>>> observers.notify("created", "kernel")
created kernel
>>> observers.unregister(printer)
>>> len(observers)
0
"""

from __future__ import annotations

import weakref

__all__ = ["Observers"]


class Observers:
    """An ordered list of observers, each held weakly and registered at most once."""

    __slots__ = ("_refs",)

    def __init__(self) -> None:
        self._refs: list[weakref.ref] = []

    def register(self, observer) -> None:
        """Adds ``observer`` (last in call order); registering it again does nothing.

        Raises:
            TypeError: if ``observer`` cannot be weakly referenced.
        """
        if observer not in self:
            self._refs = [*self._live_refs(), weakref.ref(observer)]

    def unregister(self, observer) -> None:
        """Removes ``observer``; one that is not registered is ignored."""
        self._refs = [r for r in self._live_refs() if r() is not observer]

    def notify(self, method: str, *args) -> None:
        """Calls ``observer.<method>(*args)`` on every live observer, in registration order.

        The list is copied first, so an observer may unregister itself (or register another,
        called from the next notification on). An exception raised by an observer propagates
        to the caller of `notify`, and the observers after it are not called.
        """
        for observer in list(self):
            getattr(observer, method)(*args)

    def _live_refs(self) -> list:
        return [r for r in self._refs if r() is not None]

    def __iter__(self):
        """The live observers, in registration order (a snapshot)."""
        return iter([o for o in (r() for r in self._refs) if o is not None])

    def __contains__(self, observer) -> bool:
        return any(r() is observer for r in self._refs)

    def __len__(self) -> int:
        """The number of live observers."""
        return sum(r() is not None for r in self._refs)

    def __bool__(self) -> bool:
        # The notifying code's fast path: an empty list costs one check.
        if self._refs and not len(self):
            self._refs = []
        return bool(self._refs)

    def __repr__(self) -> str:
        return f"<Observers: {len(self)} registered>"
