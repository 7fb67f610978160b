"""`keras.ops` linear algebra (follows ``keras/src/ops/linalg.py``); integer inputs give
floatx."""

from __future__ import annotations

import numpy as np

from ...ops import linalg as linalg_ops
from ...ops import matrix_decompositions, matrix_ops
from ._base import canonical_axis, float_like, keras_op, promote, to_tensor
from ._tf import tf

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
    `keras.ops.det`)."""
    return matrix_ops.det(float_like(x))


@keras_op
def inv(x):
    """Inverses of the square matrices in the last two axes (follows `keras.ops.inv`)."""
    return matrix_ops.inv(float_like(x))


@keras_op
def solve(a, b):
    """``X`` with ``a @ X = b`` (``b`` a matrix in the last two axes) (follows
    `keras.ops.solve`)."""
    a, b = promote(float_like(a), float_like(b))
    return linalg_ops.solve(a, b)


@keras_op
def cholesky(x, upper=False):
    """The lower (``upper=True``: upper) Cholesky factor of each symmetric positive-definite
    matrix (follows `keras.ops.cholesky`)."""
    out = matrix_ops.cholesky(float_like(x))
    return linalg_ops.matrix_transpose(out) if upper else out
