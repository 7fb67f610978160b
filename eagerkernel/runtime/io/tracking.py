"""The lists and dicts a `Checkpoint` holds: `ListWrapper` and `DictWrapper` (follow
TensorFlow's ``ListWrapper`` and ``_DictWrapper``).

``ckpt.listed = []`` stores a `ListWrapper`, a `list` in every respect, that also tells
`Module.attribute_observers` (``attribute_set(owner, name, wrapper)``) when an object is added
to it. A restore that waits for ``listed/0`` (deferred restoration) then assigns the value as
soon as ``ckpt.listed.append(v)`` runs, as TensorFlow's guide shows:

>>> lst = ListWrapper([1])
>>> lst.append(2)
>>> lst
ListWrapper([1, 2])
>>> lst == [1, 2], isinstance(lst, list)
(True, True)
"""

from __future__ import annotations

import weakref

from ..module import Module

__all__ = ["DictWrapper", "ListWrapper", "wrap"]


class _Tracked:
    """The owner (held weakly) and attribute name a wrapper reports additions for."""

    _owner: weakref.ref | None = None
    _attribute: str = ""

    def _bind(self, owner, attribute: str) -> None:
        self._owner = weakref.ref(owner)
        self._attribute = attribute

    def _added(self) -> None:
        if self._owner is None or not Module.attribute_observers:
            return
        owner = self._owner()
        if owner is not None:
            Module.attribute_observers.notify("attribute_set", owner, self._attribute, self)


class ListWrapper(_Tracked, list):
    """A `list` whose additions (``append``, ``extend``, ``insert``, ``+=``, item
    assignment) are reported to a waiting checkpoint restore."""

    def append(self, value) -> None:
        super().append(value)
        self._added()

    def extend(self, values) -> None:
        super().extend(values)
        self._added()

    def insert(self, index, value) -> None:
        super().insert(index, value)
        self._added()

    def __setitem__(self, index, value) -> None:
        super().__setitem__(index, value)
        self._added()

    def __iadd__(self, values):
        super().__iadd__(values)
        self._added()
        return self

    def __repr__(self) -> str:
        return f"ListWrapper({list.__repr__(self)})"


class DictWrapper(_Tracked, dict):
    """A `dict` whose additions (item assignment, ``update``, ``setdefault``) are reported to a
    waiting checkpoint restore."""

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        self._added()

    def update(self, *args, **kwargs) -> None:
        super().update(*args, **kwargs)
        self._added()

    def setdefault(self, key, default=None):
        out = super().setdefault(key, default)
        self._added()
        return out

    def __repr__(self) -> str:
        return f"DictWrapper({dict.__repr__(self)})"


def wrap(owner, attribute: str, value):
    """``value`` as the object ``owner.<attribute>`` holds: a list or dict becomes a wrapper
    reporting to ``owner`` (the same items, not copies of them); anything else is itself."""
    if type(value) is list:
        value = ListWrapper(value)
    elif type(value) is dict:
        value = DictWrapper(value)
    if isinstance(value, _Tracked):
        value._bind(owner, attribute)
    return value
