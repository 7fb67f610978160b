"""All ops, and the Python operators of `Tensor` bound to them."""

from __future__ import annotations

from ..core.tensor import Tensor
from . import array_ops, creation, elementwise, indexing, linalg, nn, placement, reduction
from .array_ops import *  # noqa: F403
from .creation import *  # noqa: F403
from .elementwise import *  # noqa: F403
from .indexing import *  # noqa: F403
from .linalg import *  # noqa: F403
from .reduction import *  # noqa: F403

__all__ = [
    *creation.__all__,
    *elementwise.__all__,
    *indexing.__all__,
    *linalg.__all__,
    *reduction.__all__,
    *array_ops.__all__,
    "nn",
    "placement",
]


def _reflected(op):
    def method(self, other):
        return op(other, self)

    method.__name__ = f"r{op.__name__}"
    return method


def _eq(self, other):
    if other is None:
        return False
    return elementwise.equal(self, other)


def _ne(self, other):
    if other is None:
        return True
    return elementwise.not_equal(self, other)


def _bind_operators() -> None:
    e = elementwise
    for name, op in {
        "add": e.add,
        "sub": e.subtract,
        "mul": e.multiply,
        "truediv": e.truediv,
        "floordiv": e.floordiv,
        "mod": e.mod,
        "pow": e.pow,
        "matmul": linalg.matmul,
    }.items():
        setattr(Tensor, f"__{name}__", op)
        setattr(Tensor, f"__r{name}__", _reflected(op))
    Tensor.__neg__ = e.negative
    Tensor.__abs__ = e.abs
    Tensor.__pos__ = lambda self: self
    Tensor.__invert__ = e.logical_not
    Tensor.__and__ = e.logical_and
    Tensor.__or__ = e.logical_or
    Tensor.__lt__ = e.less
    Tensor.__le__ = e.less_equal
    Tensor.__gt__ = e.greater
    Tensor.__ge__ = e.greater_equal
    Tensor.__eq__ = _eq
    Tensor.__ne__ = _ne
    Tensor.__getitem__ = indexing.getitem


_bind_operators()
