"""Guards: the places where a trace read a tensor's value into Python (``bool()``, ``int()``,
``.numpy()``, ...). A replay recomputes each guard's value and raises `GuardMiss` when it
differs from the traced one: that program does not apply to the call.
"""

from __future__ import annotations

import numpy as np

__all__ = ["GuardMiss", "make_guard"]


def _python_value(kind: str, value):
    """What ``kind(tensor)`` gave while tracing, computed from the replay's array."""
    if kind == "array":
        return value
    if hasattr(value, "get"):  # a CuPy array
        value = value.get()
    item = np.asarray(value).reshape(()).item()
    return {"bool": bool, "int": int, "index": int, "float": float, "complex": complex}[kind](item)


def _same(kind: str, a, b) -> bool:
    if kind != "array":
        return a == b or (a != a and b != b)  # NaN guards match NaN
    a = np.asarray(a.get() if hasattr(a, "get") else a)
    return (
        a.shape == b.shape
        and a.dtype == b.dtype
        and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    )


class GuardMiss(Exception):
    """A guard's value differs from the traced one: this program does not apply."""

    def __init__(self, index: int, value):
        super().__init__(index, value)
        self.index = index
        self.value = value


def make_guard(index: int, kind: str, expected):
    """The check of the ``index``-th guard of a program: called with the replay's array, it
    raises `GuardMiss` when ``kind(array)`` differs from the traced value ``expected``."""

    def check(value):
        got = _python_value(kind, value)
        if not _same(kind, got, expected):
            raise GuardMiss(index, got)

    return check
