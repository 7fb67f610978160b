"""Linear algebra: matmul, tensordot, einsum, transpose-free products."""

from __future__ import annotations

from ..tape import Primitive, defvjp
from ..tensor import Tensor
from ._core import apply, dtype_error, tensor

__all__ = ["matmul"]


def _matmul_fwd(xp, a, b, transpose_a, transpose_b):
    if transpose_a:
        a = xp.swapaxes(a, -1, -2)
    if transpose_b:
        b = xp.swapaxes(b, -1, -2)
    return xp.matmul(a, b)


_matmul = Primitive("MatMul", _matmul_fwd)
defvjp(
    _matmul,
    lambda g, ans, a, b, transpose_a, transpose_b: (
        matmul(b, g, transpose_a=transpose_b, transpose_b=True)
        if transpose_a
        else matmul(g, b, transpose_b=not transpose_b)
    ),
    lambda g, ans, a, b, transpose_a, transpose_b: (
        matmul(g, a, transpose_a=True, transpose_b=transpose_a)
        if transpose_b
        else matmul(a, g, transpose_a=not transpose_a)
    ),
)


def matmul(a, b, transpose_a=False, transpose_b=False, name=None) -> Tensor:
    """Matrix product of the last two axes, batched over leading axes (follows `tf.linalg.matmul`).

    Args:
        a: shape ``[..., m, k]`` (``[..., k, m]`` with ``transpose_a``).
        b: shape ``[..., k, n]`` (``[..., n, k]`` with ``transpose_b``); same dtype as ``a``.

    Returns:
        Shape ``[..., m, n]``; leading axes broadcast.

    Raises:
        ValueError: rank below 2 or inner dimensions that differ (both shapes are named).
        TypeError: different dtypes.

    >>> ek.matmul(ek.ones((2, 3)), ek.ones((3, 4))).shape
    TensorShape([2, 4])
    """
    a = tensor(a, "matmul")
    b = tensor(b, "matmul", a._value.dtype)
    if a._value.dtype != b._value.dtype:
        raise dtype_error("matmul", (a, b), ("a", "b"))
    sa, sb = tuple(a._value.shape), tuple(b._value.shape)
    if len(sa) < 2 or len(sb) < 2:
        raise ValueError(f"matmul: inputs must have rank >= 2, got shapes a: {sa} and b: {sb}.")
    ka = sa[-2] if transpose_a else sa[-1]
    kb = sb[-1] if transpose_b else sb[-2]
    if ka != kb:
        raise ValueError(
            f"matmul: inner dimensions differ: a has shape {sa}"
            f"{' (transposed)' if transpose_a else ''} and b has shape {sb}"
            f"{' (transposed)' if transpose_b else ''} ({ka} != {kb})."
        )
    return apply(
        _matmul, (a, b), {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)}
    )
