"""`keras.ops` ``cholesky``, ``det``, ``inv``, ``norm`` and ``solve`` (follows
``keras/src/ops/linalg.py``); integer inputs give floatx. `linalg.py` gathers them with the
decompositions of `linalg_more.py` into ``ek.keras.ops.linalg``."""

from __future__ import annotations

import numpy as np

from ...ops import linalg as linalg_ops
from ...ops import matrix_decompositions, matrix_ops
from ._base import canonical_axis, float_like, keras_op, promote, to_tensor
from ._tf import tf
from .linalg_more import adjoint, matrix_arg

__all__ = ["cholesky", "det", "inv", "norm", "solve"]


def _vector_norm(x, ord, axis, keepdims):
    a = tf.abs(x)
    if ord is None or ord == 2:
        return tf.sqrt(tf.reduce_sum(tf.square(a), axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return tf.reduce_max(a, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return tf.reduce_min(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        nonzero = tf.cast(tf.not_equal(x, tf.zeros_like(x)), x.dtype)
        return tf.reduce_sum(nonzero, axis=axis, keepdims=keepdims)
    if ord == 1:
        return tf.reduce_sum(a, axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(
            f"keras.ops.norm: ord={ord!r} is a matrix norm; give a 2-tuple `axis` for it."
        )
    p = to_tensor(float(ord), x.dtype)
    return tf.pow(tf.reduce_sum(tf.pow(a, p), axis=axis, keepdims=keepdims), 1.0 / p)


def _matrix_norm(x, ord, axes, keepdims):
    r, c = axes
    a = tf.abs(x)
    if ord in (None, "fro"):
        out = tf.sqrt(tf.reduce_sum(tf.square(a), axis=[r, c], keepdims=True))
    elif ord in (1, -1, np.inf, -np.inf):
        sum_axis, pick_axis = (r, c) if ord in (1, -1) else (c, r)
        sums = tf.reduce_sum(a, axis=sum_axis, keepdims=True)
        pick = tf.reduce_max if ord in (1, np.inf) else tf.reduce_min
        out = pick(sums, axis=pick_axis, keepdims=True)
    elif ord in (2, -2, "nuc"):
        rank = x.shape.rank
        rest = [i for i in range(rank) if i not in (r, c)]
        moved = tf.transpose(x, [*rest, r, c])
        s = matrix_decompositions.svd(moved, compute_uv=False)
        if ord == "nuc":
            out = tf.reduce_sum(s, axis=-1)
        else:
            out = (tf.reduce_max if ord == 2 else tf.reduce_min)(s, axis=-1)
        for axis in sorted((r, c)):
            out = tf.expand_dims(out, axis)
    else:
        raise ValueError(
            "keras.ops.norm: invalid `ord` for a matrix norm; expected None, 'fro', 'nuc', "
            f"1, -1, 2, -2, inf or -inf. Received: ord={ord!r}"
        )
    return out if keepdims else tf.squeeze(out, axis=[r, c])


@keras_op
def norm(x, ord=None, axis=None, keepdims=False):
    """The vector norm over one ``axis`` (``ord``: None/2, 1, inf, -inf, 0 or any p) or the
    matrix norm over a 2-tuple ``axis`` (None/'fro', 'nuc', 1, -1, 2, -2, inf, -inf), NumPy's
    definitions (follows `keras.ops.norm`); ``axis=None`` with ``ord=None`` is the 2-norm of
    all elements, with another ``ord`` the norm of a 1-D or 2-D ``x``.

    >>> float(ek.keras.ops.norm(ek.constant([3.0, 4.0])))
    5.0

    Raises:
        ValueError: a bad ``ord`` or ``axis``.
    """
    x = float_like(x)
    rank = x.shape.rank
    keepdims = bool(keepdims)
    if axis is None:
        if ord is None:
            out = tf.sqrt(tf.reduce_sum(tf.square(tf.abs(x))))
            return tf.reshape(out, [1] * rank) if keepdims else out
        if rank not in (1, 2):
            raise ValueError(
                "keras.ops.norm: with `ord` given and axis=None, x must be 1-D or 2-D. "
                f"Received: x.shape={tuple(x.shape)}, ord={ord!r}"
            )
        axis = tuple(range(rank))
    if isinstance(axis, (list, tuple)):
        axes = [canonical_axis(a, rank, "norm") for a in axis]
        if len(axes) == 1:
            return _vector_norm(x, ord, axes[0], keepdims)
        if len(axes) != 2 or axes[0] == axes[1]:
            raise ValueError(
                "keras.ops.norm: `axis` must be an int or a pair of distinct axes. "
                f"Received: axis={axis!r}"
            )
        return _matrix_norm(x, ord, axes, keepdims)
    return _vector_norm(x, ord, canonical_axis(axis, rank, "norm"), keepdims)


@keras_op
def det(x):
    """Determinants of the square matrices in the last two axes (follows
    `keras.ops.det`): ``(..., M, M)`` to ``(...)``.

    Raises:
        ValueError: rank below 2 or non-square matrices.

    >>> float(ek.keras.ops.det([[1.0, 2.0], [3.0, 4.0]]))
    -2.0...
    """
    return matrix_ops.det(matrix_arg(x, "det", square=True))


@keras_op
def inv(x):
    """Inverses of the square matrices in the last two axes (follows `keras.ops.inv`).

    Raises:
        ValueError: rank below 2 or non-square matrices.
    """
    return matrix_ops.inv(matrix_arg(x, "inv", square=True))


@keras_op
def solve(a, b):
    """``x`` with ``a @ x = b`` (follows `keras.ops.solve`): ``a`` ``(..., M, M)``, ``b``
    ``(..., M)`` (a vector) or ``(..., M, N)``; the result has ``b``'s shape.

    Raises:
        ValueError: ``a`` of rank below 2 or not square, a scalar ``b``, or shapes that do
            not match.

    >>> ek.keras.ops.solve([[2.0, 0.0], [0.0, 4.0]], [1.0, 2.0]).numpy()
    array([0.5, 0.5], dtype=float32)
    """
    a, b = promote(float_like(a), float_like(b))
    a = matrix_arg(a, "solve", square=True)
    if b.shape.rank < 1:
        raise ValueError(
            f"keras.ops.solve: expected b to have rank >= 1. Received: b.shape={b.shape}"
        )
    vector = b.shape.rank == a.shape.rank - 1
    if (vector and b.shape[-1] != a.shape[-1]) or (not vector and b.shape[-2] != a.shape[-2]):
        raise ValueError(
            "keras.ops.solve: incompatible shapes between `a` and `b`. "
            f"Received: a.shape={tuple(a.shape)}, b.shape={tuple(b.shape)}"
        )
    if vector:
        return tf.squeeze(linalg_ops.solve(a, tf.expand_dims(b, -1)), [-1])
    return linalg_ops.solve(a, b)


@keras_op
def cholesky(x, upper=False):
    """The lower (``upper=True``: upper) Cholesky factor of each symmetric positive-definite
    matrix (follows `keras.ops.cholesky`).

    Raises:
        ValueError: rank below 2, non-square matrices, or a matrix that is not positive
            definite ("Cholesky decomposition failed", as Keras).

    >>> ek.keras.ops.cholesky([[4.0, 2.0], [2.0, 2.0]]).numpy()
    array([[2., 0.],
           [1., 1.]], dtype=float32)
    """
    x = matrix_arg(x, "cholesky", square=True)
    try:
        out = matrix_ops.cholesky(x)
    except ValueError as e:
        raise ValueError(f"keras.ops.cholesky: Cholesky decomposition failed: {e}") from e
    return adjoint(out) if upper else out
