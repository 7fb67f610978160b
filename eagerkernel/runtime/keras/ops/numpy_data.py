"""`keras.ops` NumPy-style functions whose result depends on the data's values rather than
only its shape (``histogram``, ``digitize``, ``isin``, ``unique``, ``bincount``, ...; follows
``keras/src/ops/numpy.py``). They have no gradient; ``histogram`` is built of dispatched ops,
the others run in NumPy."""

from __future__ import annotations

import builtins

import numpy as np

from ._base import keras_op, to_tensor

# fmt: off
__all__ = [
    "argpartition", "bincount", "digitize", "histogram", "isin", "searchsorted", "unique",
    "unravel_index",
]
# fmt: on


def _np(x):
    return np.asarray(to_tensor(x).numpy())


# -- data-dependent (NumPy, no gradient) -------------------------------------------------------


@keras_op
def argpartition(x, kth, axis=-1):
    """Indices that partition ``x`` around its ``kth`` element (follows
    `keras.ops.argpartition`); int32, computed in NumPy."""
    return to_tensor(np.argpartition(_np(x), kth, axis=axis).astype(np.int32))


@keras_op
def bincount(x, weights=None, minlength=0, sparse=False):
    """Counts of each value of non-negative integer ``x`` (follows `keras.ops.bincount`); a
    batch (2-D ``x``) counts per row. int32, or the dtype of ``weights``."""
    if sparse:
        raise ValueError("keras.ops.bincount: sparse=True is not supported. Received: True")
    xa = _np(x)
    if xa.dtype.kind not in "iub" or (xa.size and xa.min() < 0):
        raise ValueError("keras.ops.bincount: x must be non-negative integers.")
    w = None if weights is None else _np(weights)
    length = builtins.max(int(xa.max()) + 1 if xa.size else 0, int(minlength))
    if xa.ndim == 1:
        out = np.bincount(xa, w, length)
    else:
        rows = [np.bincount(r, None if w is None else wr, length) for r, wr in zip(xa, w or xa)]
        out = np.stack(rows)
    return to_tensor(out.astype(np.int32 if w is None else w.dtype))


@keras_op
def digitize(x, bins):
    """The index of the bin of each ``x`` (follows `keras.ops.digitize`); int32."""
    return to_tensor(np.digitize(_np(x), _np(bins)).astype(np.int32))


@keras_op
def searchsorted(sorted_sequence, values, side="left"):
    """Indices inserting ``values`` into 1-D ``sorted_sequence`` keeps it sorted (follows
    `keras.ops.searchsorted`); int32."""
    if side not in ("left", "right"):
        raise ValueError(f"keras.ops.searchsorted: side must be left or right. Received: {side!r}")
    seq = _np(sorted_sequence)
    if seq.ndim != 1:
        raise ValueError(
            f"keras.ops.searchsorted: sorted_sequence must be 1-D. Received: shape={seq.shape}"
        )
    return to_tensor(np.searchsorted(seq, _np(values), side=side).astype(np.int32))


@keras_op
def histogram(x, bins=10, range=None):
    """``(counts, bin_edges)`` of 1-D ``x`` (follows `keras.ops.histogram` with its
    TensorFlow backend): ``bins`` equal bins from ``range`` (default ``x``'s min and max),
    the last one closed; values outside ``range`` are dropped.

    Returns:
        ``counts`` ``(bins,)`` and ``bin_edges`` ``(bins + 1,)``, both in ``x``'s dtype (as
        Keras's TensorFlow backend: float counts for float ``x``, and integer ``x`` gets
        edges truncated to integers). Computed by dispatched ops (a mask, a sorted search, a
        scatter), so graph functions recompute it.

    Raises:
        TypeError: a non-int ``bins``.
        ValueError: a negative ``bins``, a ``range`` that is not a tuple of two increasing
            numbers, or ``x`` of rank above 1.

    >>> counts, edges = ek.keras.ops.histogram(ek.constant([0.0, 0.5, 1.0, 2.0]), bins=2)
    >>> counts.numpy(), edges.numpy()
    (array([2., 2.], dtype=float32), array([0., 1., 2.], dtype=float32))
    """
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)):
        raise TypeError(
            f"keras.ops.histogram: argument `bins` must be of type `int`. Received: bins={bins!r}"
        )
    if bins < 0:
        raise ValueError(
            "keras.ops.histogram: argument `bins` should be a non-negative integer. "
            f"Received: bins={bins}"
        )
    if range:
        if not isinstance(range, tuple) or len(range) < 2:
            raise ValueError(
                "keras.ops.histogram: argument `range` must be a tuple of two elements. "
                f"Received: range={range!r}"
            )
        if range[1] < range[0]:
            raise ValueError(
                "keras.ops.histogram: the second element of `range` must be greater than the "
                f"first. Received: range={range!r}"
            )
    x = to_tensor(x)
    if x.shape.rank > 1:
        raise ValueError(
            f"keras.ops.histogram: input tensor must be 1-dimensional. Received: x.shape={x.shape}"
        )
    from ._tf import tf

    if range:
        lo, hi = to_tensor(range[0], x.dtype), to_tensor(range[1], x.dtype)
    else:
        lo, hi = tf.reduce_min(x), tf.reduce_max(x)
    x = tf.boolean_mask(x, tf.logical_and(x >= lo, x <= hi))
    space = x.dtype if x.dtype.is_floating else "float64"
    edges = tf.cast(tf.linspace(tf.cast(lo, space), tf.cast(hi, space), int(bins) + 1), x.dtype)
    index = tf.searchsorted(edges[1:-1], x, side="right")
    counts = tf.scatter_nd(tf.expand_dims(index, -1), tf.ones_like(x), [int(bins)])
    return counts, edges


@keras_op
def isin(x1, x2, assume_unique=False, invert=False):
    """Whether each element of ``x1`` is in ``x2`` (follows `keras.ops.isin`); bool.

    >>> ek.keras.ops.isin([1, 2, 3], [2, 5]).numpy()
    array([False,  True, False])
    """
    return to_tensor(np.isin(_np(x1), _np(x2), assume_unique=assume_unique, invert=invert))


@keras_op
def unique(
    x,
    sorted=True,
    return_index=False,
    return_inverse=False,
    return_counts=False,
    axis=None,
    size=None,
    fill_value=None,
):
    """The unique elements of ``x`` (follows `keras.ops.unique`), with first indices, inverse
    indices and counts (int32) when asked; ``size`` pads (with ``fill_value``, default the
    smallest element) or truncates to a fixed length. Computed in NumPy: no gradient."""
    xa = _np(x)
    res = np.unique(
        xa,
        return_index=return_index,
        return_inverse=return_inverse,
        return_counts=return_counts,
        axis=axis,
    )
    res = list(res) if isinstance(res, tuple) else [res]
    if size is not None:
        u, n = res[0], len(res[0])
        fill = fill_value if fill_value is not None else (u.min() if u.size else 0)
        pad = np.full((builtins.max(size - n, 0), *u.shape[1:]), fill, u.dtype)
        res[0] = np.concatenate([u, pad])[:size]
        extra = 1 + return_index
        if return_index:
            res[1] = np.concatenate([res[1], np.zeros(len(pad), res[1].dtype)])[:size]
        if return_counts:
            c = res[extra + return_inverse]
            c = np.concatenate([c, np.zeros(len(pad), c.dtype)])[:size]
            res[extra + return_inverse] = c
    out = [to_tensor(res[0])]
    for i, r in enumerate(res[1:]):
        if return_inverse and i == int(return_index) and axis is None:
            r = r.reshape(xa.shape)
        out.append(to_tensor(np.asarray(r).astype(np.int32)))
    return out[0] if len(out) == 1 else tuple(out)


@keras_op
def unravel_index(indices, shape):
    """Flat ``indices`` as a tuple of coordinate tensors into ``shape`` (follows
    `keras.ops.unravel_index`)."""
    idx = _np(indices)
    return tuple(to_tensor(c.astype(idx.dtype)) for c in np.unravel_index(idx, tuple(shape)))
