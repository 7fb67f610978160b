"""Which Modules and Variables a layer's attributes hold (Keras's attribute tracking): the
walk `Layer._children` makes over a layer's attributes, lists, tuples and dicts at every
`trainable_variables`.
"""

from __future__ import annotations

from ...core.variable import Variable
from ...module import Module

__all__ = ["gather_tracked"]


def gather_tracked(values, out: list, seen: set) -> None:
    """Appends the Modules and Variables in ``values`` (lists, tuples and dicts walked) to
    ``out``, each once, in order. A loop, not a generator, with each type's kind looked up
    once (`_KINDS`): `trainable_variables` runs it over every attribute of every layer at
    every training step."""
    for value in values:
        kind = _KINDS.get(type(value))
        if kind is None:
            kind = _kind(type(value))
        if kind == _SKIP:
            continue
        if kind == _LEAF:
            if id(value) not in seen:
                seen.add(id(value))
                out.append(value)
        elif kind == _SEQUENCE:
            gather_tracked(value, out, seen)
        else:
            gather_tracked(value.values(), out, seen)


_SKIP, _LEAF, _SEQUENCE, _MAPPING = range(4)
_KINDS: dict[type, int] = {t: _SKIP for t in (str, int, float, bool, type(None))}


def _kind(cls: type) -> int:
    """How `gather_tracked` treats values of type ``cls`` (remembered in `_KINDS`)."""
    if issubclass(cls, (Module, Variable)):
        kind = _LEAF
    elif issubclass(cls, (list, tuple)):
        kind = _SEQUENCE
    elif issubclass(cls, dict):
        kind = _MAPPING
    else:
        kind = _SKIP
    _KINDS[cls] = kind
    return kind
