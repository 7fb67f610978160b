"""Norms and norm clipping (follow TensorFlow's): `norm` (``tf.norm`` / ``tf.linalg.norm``),
`clip_by_norm`, `global_norm` and `clip_by_global_norm`, each forward beside its VJP."""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..core.dispatch import Primitive, defvjp
from ..core.errors import UnsupportedDTypeError
from ..core.tensor import Tensor
from ._core import apply, float_check, tensor
from .reduction import expand_reduced, normalize_axis

_tensor = tensor  # `norm` has an argument named `tensor` (TensorFlow's name)

__all__ = ["clip_by_global_norm", "clip_by_norm", "global_norm", "norm"]


# -- norms --------------------------------------------------------------------------------------


def _safe(a: Tensor) -> Tensor:
    """``a`` with zeros replaced by ones, for dividing by a norm that may be 0."""
    from .elementwise import where

    return where(a > 0, a, 1)


_euclidean = Primitive(
    "EuclideanNorm",
    lambda xp, x, axis, keepdims: xp.sqrt(xp.sum(x * x, axis=axis, keepdims=keepdims)),
)
# Where the norm is 0, x is 0 too, so x / safe(norm) gives the subgradient 0 instead of 0/0.
defvjp(
    _euclidean,
    lambda g, ans, x, axis, keepdims: (
        expand_reduced(g, x, axis, keepdims) * x / _safe(expand_reduced(ans, x, axis, keepdims))
    ),
)


def _pnorm_fwd(xp, x, axis, keepdims, p):
    a = xp.abs(x)  # real for complex x: TensorFlow's pow(sum(pow(abs(x), p)), 1/p) is real
    s = xp.sum(a**p, axis=axis, keepdims=keepdims)
    return (s ** (1.0 / p)).astype(a.dtype, copy=False)


def _pnorm_vjp(g, ans, x, axis, keepdims, p):
    from .elementwise import abs, sign, where

    r = abs(x) / _safe(expand_reduced(ans, x, axis, keepdims))
    r = where(r > 0, r, 1)  # sign(x) is 0 there anyway; keeps 0 ** (p - 1) out for p < 1
    return expand_reduced(g, x, axis, keepdims) * sign(x) * r ** (p - 1)


_pnorm = Primitive("PNorm", _pnorm_fwd)
defvjp(_pnorm, _pnorm_vjp)


def _spectral_norm(x: Tensor, axis, keepdims: bool) -> Tensor:
    """TensorFlow's ord=2 matrix norm: the largest singular value (-inf for empty matrices)."""
    from .array_ops import expand_dims, transpose
    from .matrix_decompositions import svd
    from .reduction import reduce_max

    rows, cols = (int(a) % x.ndim for a in axis)
    perm = [i for i in range(x.ndim) if i not in (rows, cols)] + [rows, cols]
    out = reduce_max(svd(transpose(x, perm), compute_uv=False), -1)
    if keepdims:
        for a in sorted((rows, cols)):
            out = expand_dims(out, a)
    return out


def norm(tensor, ord="euclidean", axis=None, keepdims=False, name=None) -> Tensor:
    """Vector or matrix norm (follows `tf.norm`).

    Args:
        tensor: a floating tensor.
        ord: for vectors ``"euclidean"`` (= 2), 1, ``np.inf`` or any p > 0; for matrices
            (``axis`` a pair) ``"euclidean"``/``"fro"`` (Frobenius), 1 (max column sum),
            ``np.inf`` (max row sum) or 2 (the largest singular value; real input only).
        axis: None (the whole tensor as one vector), an int (vectors along it) or a pair of
            ints (matrices over those axes). Negative allowed.
        keepdims: keep the reduced axes with length 1.

    Returns:
        The norm, of ``tensor``'s dtype. The gradient is 0 (not NaN) where the norm is 0.

    Raises:
        ValueError: an unsupported ``ord`` for the kind of norm, or a bad ``axis``.
        TypeError: non-floating input.

    >>> ek.norm(ek.constant([3.0, 4.0])).numpy()
    np.float32(5.0)
    >>> ek.norm(ek.constant([[1.0, -2.0], [3.0, 4.0]]), ord=1, axis=[0, 1]).numpy()
    np.float32(6.0)
    """
    from .elementwise import abs
    from .reduction import reduce_max, reduce_sum

    x = _tensor(tensor, "norm")
    float_check("norm", x, "tensor")
    matrix = isinstance(axis, (list, tuple)) and len(axis) == 2
    if not matrix and axis is not None and not isinstance(axis, numbers.Integral):
        raise ValueError(f"norm: axis must be None, an int or a pair of ints, got {axis!r}.")
    if matrix:  # each on its own: a repeated axis gets this message, not the reductions'
        axes = sum((normalize_axis(a, x.ndim, "norm") for a in axis), ())
        if len(set(axes)) != 2:
            raise ValueError(f"norm: a matrix norm needs two different axes, got {axis!r}.")
        axes = tuple(sorted(axes))
    else:
        axes = normalize_axis(axis, x.ndim, "norm")
    if ord in ("euclidean", "fro", 2) and (matrix or ord != "fro"):
        if matrix and ord == 2:
            return _spectral_norm(x, axis, keepdims)
        if x._value.dtype.kind == "c":  # TensorFlow's: sqrt(sum(x * conj(x))), complex-typed
            from .complex_ops import conj
            from .elementwise import sqrt

            return sqrt(reduce_sum(x * conj(x), axes, keepdims))
        return apply(_euclidean, (x,), {"axis": axes, "keepdims": bool(keepdims)})
    if matrix:
        if ord not in (1, math.inf):
            raise ValueError(
                f"norm: ord={ord!r} is not a supported matrix norm ('euclidean', 'fro', 1, inf)."
            )
        # ord=1 sums over rows and takes the largest column; inf the other way round.
        rows, cols = (int(a) % x.ndim for a in axis)  # the order given, not sorted
        inner, outer = (rows, cols) if ord == 1 else (cols, rows)
        sums = reduce_sum(abs(x), inner, keepdims=True)
        return reduce_max(sums, (inner, outer), keepdims=keepdims)
    if isinstance(ord, str) or not isinstance(ord, numbers.Real) or not ord > 0:
        raise ValueError(
            f"norm: ord={ord!r} is not a supported vector norm ('euclidean', 1, 2, inf, p > 0)."
        )
    if ord == 1:
        return reduce_sum(abs(x), axes, keepdims)
    if ord == math.inf:
        return reduce_max(abs(x), axes, keepdims)
    return apply(_pnorm, (x,), {"axis": axes, "keepdims": bool(keepdims), "p": float(ord)})


def clip_by_norm(t, clip_norm, axes=None, name=None) -> Tensor:
    """Rescales ``t`` so that its L2 norm over ``axes`` is at most ``clip_norm``
    (follows `tf.clip_by_norm`).

    Returns ``t * clip_norm / max(norm(t), clip_norm)``; where the norm is 0, ``t`` is
    returned unchanged with a finite gradient.

    Args:
        t: a floating tensor.
        clip_norm: a positive scalar.
        axes: None (the whole tensor) or the axes the norm is taken over.

    Raises:
        TypeError: non-floating ``t``.

    >>> ek.clip_by_norm(ek.constant([3.0, 4.0]), 1.0).numpy()
    array([0.6, 0.8], dtype=float32)
    """
    from .elementwise import maximum, sqrt, where
    from .reduction import reduce_sum

    t = _tensor(t, "clip_by_norm")
    float_check("clip_by_norm", t, "t")
    c = _tensor(clip_norm, "clip_by_norm", t._value.dtype)
    # TF's formulation: the square root only ever sees positive values, so the gradient is
    # finite at t = 0.
    l2sum = reduce_sum(t * t, normalize_axis(axes, t.ndim, "clip_by_norm"), keepdims=True)
    positive = l2sum > 0
    l2norm = where(positive, sqrt(where(positive, l2sum, 1)), l2sum)
    return t * c / maximum(l2norm, c)


def _tensor_list(t_list, op: str) -> list:
    if isinstance(t_list, Tensor) or not isinstance(t_list, (list, tuple)):
        raise TypeError(
            f"{op}: t_list must be a list or tuple of tensors, got {type(t_list).__name__}."
        )
    return [None if t is None else _tensor(t, op) for t in t_list]


def global_norm(t_list, name=None) -> Tensor:
    """``sqrt(sum(norm(t) ** 2 for t in t_list))``, skipping None (follows `tf.linalg.global_norm`).

    Args:
        t_list: a list or tuple of floating tensors (None entries are ignored).

    Returns:
        A scalar of the first tensor's dtype (0 for an empty list).

    Raises:
        TypeError: ``t_list`` is not a list or tuple.
        UnsupportedDTypeError: an integer, bool or complex tensor (TensorFlow's
            InvalidArgumentError; also a TypeError).

    >>> ek.global_norm([ek.constant([3.0]), ek.constant([[4.0]])]).numpy()
    np.float32(5.0)
    """
    from .elementwise import cast, sqrt
    from .reduction import reduce_sum

    ts = [t for t in _tensor_list(t_list, "global_norm") if t is not None]
    if not ts:
        return _tensor(0.0, "global_norm")
    dt = ts[0]._value.dtype
    total = None
    for t in ts:
        if t._value.dtype.kind != "f":  # TensorFlow's L2Loss kernel takes floats only
            raise UnsupportedDTypeError(
                None, "L2Loss", f"global_norm: tensors must be floating, got {t.dtype.name}."
            )
        s = reduce_sum(t * t)
        s = cast(s, dt) if s._value.dtype != dt else s
        total = s if total is None else total + s
    return sqrt(total)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None) -> tuple[list, Tensor]:
    """Scales every tensor by ``clip_norm / max(global_norm, clip_norm)``
    (follows `tf.clip_by_global_norm`).

    Args:
        t_list: a list or tuple of tensors (None entries stay None).
        clip_norm: a positive scalar.
        use_norm: a precomputed global norm; computed from ``t_list`` if None.

    Returns:
        ``(clipped_list, global_norm)``. If the global norm is Inf or NaN, every clipped
        tensor is NaN, as in TensorFlow.

    Raises:
        TypeError: ``t_list`` is not a list or tuple.

    >>> clipped, n = ek.clip_by_global_norm([ek.constant([3.0]), ek.constant([4.0])], 1.0)
    >>> float(n), [c.numpy() for c in clipped]
    (5.0, [array([0.6], dtype=float32), array([0.8], dtype=float32)])
    """
    from .elementwise import cast, minimum

    ts = _tensor_list(t_list, "clip_by_global_norm")
    n = global_norm(ts) if use_norm is None else _tensor(use_norm, "clip_by_global_norm")
    c = _tensor(clip_norm, "clip_by_global_norm", n._value.dtype)
    # TF's form: a zero norm gives scale 1 (1/0 = inf loses the minimum), and a non-finite
    # norm makes the scale NaN through (n - n).
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = c * minimum(1.0 / n, 1.0 / c) + (n - n)
    out = []
    for t in ts:
        if t is None:
            out.append(None)
        else:
            s = scale if scale._value.dtype == t._value.dtype else cast(scale, t._value.dtype)
            out.append(t * s)
    return out, n
