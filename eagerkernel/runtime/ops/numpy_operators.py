"""The operators of `Tensor` whose form under NumPy behavior is more than the op's: ``@`` and
the bitwise ``& | ^`` of two integer tensors.

Under `tf.experimental.numpy.experimental_enable_numpy_behavior` (legacy promotion),
TensorFlow's ``Tensor.__matmul__`` is `tf.experimental.numpy.matmul` (``matmul_wrapper``: 1-D
operands, NumPy promotion), and its bitwise operators promote their operands
(``maybe_promote_tensors``: ``int32 & int8`` is int32). Otherwise they are the plain ops.
"""

from __future__ import annotations

from ..core.numpy_methods import STATE, promoted, tnp
from ..core.tensor import Tensor
from . import bitwise as _bitwise
from .linalg import matmul as _matmul


def matmul(a, b) -> Tensor:
    """``a @ b``: `tf.experimental.numpy.matmul` under NumPy behavior's legacy mode (a 1-D
    operand is a vector), else `ek.matmul`.

    >>> ek.constant([[1.0, 2.0]]) @ ek.constant([[3.0], [4.0]])
    <Tensor: shape=(1, 1), dtype=float32, numpy=array([[11.]], dtype=float32)>
    """
    if STATE.enabled and STATE.promotion is None:
        return tnp().matmul(a, b)
    return _matmul(a, b)


def _promoting(fn):
    def op(x, y) -> Tensor:
        try:
            return fn(x, y)
        except TypeError as exc:  # NumPy behavior promotes; else the op's error
            return promoted(exc, fn, x, y)

    op.__name__ = op.__qualname__ = fn.__name__
    op.__doc__ = f"``{fn.__name__}`` of two tensors, promoted as NumPy does under NumPy behavior."
    return op


bitwise_and = _promoting(_bitwise.bitwise_and)
bitwise_or = _promoting(_bitwise.bitwise_or)
bitwise_xor = _promoting(_bitwise.bitwise_xor)
