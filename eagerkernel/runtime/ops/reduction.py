"""Reductions: reduce_sum, reduce_mean, ... (follow `tf.math.reduce_*`).

``axis`` is None (all axes), an int or a sequence of ints, negative allowed; ``keepdims``
keeps reduced axes with length 1. The VJPs re-insert the reduced axes and broadcast.
"""

from __future__ import annotations

from ..tape import Primitive, defvjp
from ..tensor import Tensor
from ._core import apply, tensor

__all__ = ["reduce_mean", "reduce_sum"]


def normalize_axis(axis, ndim: int, op: str) -> tuple | None:
    """``axis`` as a sorted tuple of non-negative ints (None stays None).

    Raises:
        ValueError: an axis outside ``[-ndim, ndim)``.
    """
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        axis = axis.numpy().tolist()
    axes = (axis,) if isinstance(axis, int) or not hasattr(axis, "__len__") else tuple(axis)
    out = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < max(ndim, 1):
            raise ValueError(f"{op}: axis {a} is out of range for a tensor of rank {ndim}.")
        out.append(a % ndim if ndim else 0)
    return tuple(sorted(set(out)))


def expand_reduced(g: Tensor, x: Tensor, axis, keepdims: bool) -> Tensor:
    """Reshapes a reduction's cotangent so it broadcasts against the input ``x``."""
    from .array_ops import reshape

    if keepdims or axis is None and g.ndim == x.ndim:
        return g
    shape = [1 if (axis is None or i in axis) else n for i, n in enumerate(x._value.shape)]
    return reshape(g, shape)


def _reduce(prim, x, axis, keepdims, op):
    x = tensor(x, op)
    return apply(prim, (x,), {"axis": normalize_axis(axis, x.ndim, op), "keepdims": bool(keepdims)})


_sum = Primitive("Sum", lambda xp, x, axis, keepdims: xp.sum(x, axis=axis, keepdims=keepdims))
defvjp(
    _sum,
    lambda g, ans, x, axis, keepdims: expand_reduced(g, x, axis, keepdims) * _ones(x),
)


def _ones(x):
    from .creation import ones_like

    return ones_like(x)


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """Sum over ``axis`` (follows `tf.math.reduce_sum`; ints keep their dtype).

    >>> ek.reduce_sum(ek.constant([[1.0, 2.0], [3.0, 4.0]]), axis=0).numpy()
    array([4., 6.], dtype=float32)
    """
    return _reduce(_sum, input_tensor, axis, keepdims, "reduce_sum")


def _mean_fwd(xp, x, axis, keepdims):
    out = xp.mean(x, axis=axis, keepdims=keepdims)
    return out.astype(x.dtype, copy=False) if x.dtype.kind in "iu" else out


_mean = Primitive("Mean", _mean_fwd)
defvjp(
    _mean,
    lambda g, ans, x, axis, keepdims: expand_reduced(g, x, axis, keepdims)
    * _ones(x)
    / (x._value.size // max(ans._value.size, 1) if x._value.size else 1),
)


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """Mean over ``axis`` (follows `tf.math.reduce_mean`; integer means truncate, as in TF).

    >>> ek.reduce_mean(ek.constant([1.0, 2.0])).numpy()
    np.float32(1.5)
    """
    return _reduce(_mean, input_tensor, axis, keepdims, "reduce_mean")
