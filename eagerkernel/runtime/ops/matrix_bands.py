"""Bands of diagonals for `tf.linalg.diag`, `diag_part` and `set_diag` (``k=(k0, k1)``
with ``k0 < k1``; `matrix_ops` hands these calls here and keeps the single diagonal).

A band is stored as TensorFlow's ``MatrixDiagV3`` family stores it: shape ``[..., num_diags,
max_diag_len]`` with ``num_diags = k1 - k0 + 1``, row ``i`` holding diagonal ``k1 - i`` (the
highest first). A diagonal shorter than ``max_diag_len`` is padded: ``align`` (one of
``"RIGHT_LEFT"``, the default, ``"LEFT_RIGHT"``, ``"LEFT_LEFT"``, ``"RIGHT_RIGHT"``) says on
which side its entries sit, the first word for the superdiagonals (``d >= 0``), the second
for the subdiagonals (``d <= 0``; the main diagonal is left-aligned if either word says so).

Each op is a `Primitive` with its VJPs below it: reading a band and writing one are each
other's adjoints (the padding slots take no part).
"""

from __future__ import annotations

import numbers

import numpy as np

from ..core.dispatch import Primitive, defvjp
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ._core import apply

__all__ = ["band_diag", "band_diag_part", "band_k", "band_set_diag"]

ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def band_k(k):
    """``(k0, k1)`` when ``k`` (an int, a pair or a Tensor of them) names two or more
    diagonals, else None (one diagonal: `matrix_ops` handles it)."""
    if isinstance(k, Tensor):
        k = k.numpy()
    vals = np.asarray(k).ravel()
    if vals.size != 2 or vals[0] == vals[1]:
        return None
    if vals.dtype.kind not in "iu":
        raise TypeError(f"k must be an int or a pair of ints, got {k!r}.")
    return int(vals[0]), int(vals[1])


def _layout(xp, k0: int, k1: int, rows: int, cols: int, width: int, align: str):
    """Per band slot ``(i, p)`` (shape ``(num_diags, width)``): the matrix row and column it
    holds, and whether it holds one (False on padding)."""
    left_super, left_sub = (part == "LEFT" for part in align.split("_"))
    d = np.arange(k1, k0 - 1, -1)[:, None]  # diagonal of each band row
    length = np.maximum(0, np.minimum(rows + np.minimum(d, 0), cols - np.maximum(d, 0)))
    left = ((d >= 0) & left_super) | ((d <= 0) & left_sub)
    j = np.arange(width)[None, :] - np.where(left, 0, width - length)  # index along diagonal
    valid = (j >= 0) & (j < length)
    r = np.where(valid, j + np.maximum(-d, 0), 0)
    c = np.where(valid, j + np.maximum(d, 0), 0)
    return xp.asarray(r), xp.asarray(c), xp.asarray(valid)


def _width(rows: int, cols: int, k0: int, k1: int) -> int:
    return max(0, min(rows + min(k1, 0), cols - max(k0, 0)))


def _part_fwd(xp, x, k0, k1, padding_value, align):
    rows, cols = x.shape[-2:]
    r, c, valid = _layout(xp, k0, k1, rows, cols, _width(rows, cols, k0, k1), align)
    return xp.where(valid, x[..., r, c], xp.asarray(padding_value, dtype=x.dtype))


def _diag_fwd(xp, d, k0, k1, rows, cols, padding_value, align):
    out = xp.full((*d.shape[:-2], rows, cols), padding_value, dtype=d.dtype)
    r, c, valid = _layout(xp, k0, k1, rows, cols, d.shape[-1], align)
    out[..., r[valid], c[valid]] = d[..., valid]
    return out


def _set_fwd(xp, x, d, k0, k1, align):
    out = x.copy()
    r, c, valid = _layout(xp, k0, k1, x.shape[-2], x.shape[-1], d.shape[-1], align)
    out[..., r[valid], c[valid]] = d[..., valid]
    return out


_band_part = Primitive("MatrixDiagPartV3", _part_fwd)


def _part_vjp(g, ans, x, k0, k1, padding_value, align):
    rows, cols = x._value.shape[-2:]
    return _apply(_band_diag, g, k0=k0, k1=k1, rows=rows, cols=cols, padding_value=0, align=align)


defvjp(_band_part, _part_vjp)
_band_diag = Primitive("MatrixDiagV3", _diag_fwd)
defvjp(
    _band_diag,
    lambda g, ans, d, k0, k1, rows, cols, padding_value, align: _apply(
        _band_part, g, k0=k0, k1=k1, padding_value=0, align=align
    ),
)
_band_set = Primitive("MatrixSetDiagV3", _set_fwd)
defvjp(
    _band_set,
    lambda g, ans, x, d, k0, k1, align: _apply(_band_set, g, d * 0, k0=k0, k1=k1, align=align),
    lambda g, ans, x, d, k0, k1, align: _apply(
        _band_part, g, k0=k0, k1=k1, padding_value=0, align=align
    ),
)


def _apply(prim, *args, **params):
    return apply(prim, args, params)


def _check_k(k0: int, k1: int, rows: int, cols: int, op: str, tf_op: str) -> None:
    if k0 > k1:
        raise InvalidArgumentError(
            None, tf_op, f"{op}: k[0] must not exceed k[1], got k=({k0}, {k1})."
        )
    if not all(-rows < k < cols or k == 0 for k in (k0, k1)):  # TensorFlow's bounds, also 0x0
        raise InvalidArgumentError(
            None,
            tf_op,
            f"{op}: k=({k0}, {k1}) is out of range for {rows}x{cols} matrices (each diagonal "
            f"must be in ({-rows}, {cols}) or 0).",
        )


def _int(v, op: str, arg: str) -> int:
    if isinstance(v, Tensor):
        v = v.numpy().item()
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"{op}: {arg} must be an int, got {v!r}.")
    return int(v)


def band_diag_part(x: Tensor, k: tuple, padding_value=0, align: str = "RIGHT_LEFT") -> Tensor:
    """Diagonals ``k0..k1`` of each matrix of ``x`` (shape ``[..., M, N]``), as a band of
    shape ``[..., k1 - k0 + 1, min(M + min(k1, 0), N - max(k0, 0))]`` padded with
    ``padding_value`` (follows `tf.linalg.diag_part` with a pair ``k``). Differentiable.

    Raises:
        InvalidArgumentError: ``k0 > k1``, or a diagonal outside ``(-M, N)``.

    >>> x = ek.reshape(ek.range(1.0, 10.0), (3, 3))
    >>> ek.linalg.diag_part(x, k=(-1, 0)).numpy()
    array([[1., 5., 9.],
           [4., 8., 0.]], dtype=float32)
    """
    k0, k1 = k
    rows, cols = x._value.shape[-2:]
    _check_k(k0, k1, rows, cols, "diag_part", "MatrixDiagPartV3")
    pad = padding_value.numpy().item() if isinstance(padding_value, Tensor) else padding_value
    return _apply(_band_part, x, k0=k0, k1=k1, padding_value=pad, align=align)


def band_diag(d: Tensor, k: tuple, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Matrices holding the band ``d`` (shape ``[..., k1 - k0 + 1, L]``) on diagonals
    ``k0..k1`` and ``padding_value`` elsewhere (follows `tf.linalg.diag` with a pair ``k``):
    shape ``[..., num_rows, num_cols]``; a size left at -1 is the smallest that holds the
    band (both: square). Differentiable.

    Raises:
        InvalidArgumentError: ``d`` of rank below 2 or without ``k1 - k0 + 1`` rows,
            ``k0 > k1``, or sizes that do not fit the band.

    >>> ek.linalg.diag([[1, 2], [3, 4]], k=(0, 1)).numpy()
    array([[3, 2],
           [0, 4]], dtype=int32)
    """
    k0, k1 = k
    op, tf_op = "diag", "MatrixDiagV3"
    if k0 > k1 or d.ndim < 2 or d._value.shape[-2] != k1 - k0 + 1:
        raise InvalidArgumentError(
            None,
            tf_op,
            f"{op}: a band k=({k0}, {k1}) needs a diagonal of shape [..., {k1 - k0 + 1}, L], "
            f"got shape {tuple(d._value.shape)}.",
        )
    n = d._value.shape[-1]
    min_rows, min_cols = n - min(k1, 0), n + max(k0, 0)
    rows, cols = _int(num_rows, op, "num_rows"), _int(num_cols, op, "num_cols")
    if rows < 0 and cols < 0:
        rows = cols = max(min_rows, min_cols)
    elif rows < 0:
        rows = min_rows
    elif cols < 0:
        cols = min_cols
    if rows < min_rows or cols < min_cols:  # TensorFlow's "number of rows is too small"
        raise InvalidArgumentError(
            None,
            tf_op,
            f"{op}: num_rows={rows} and num_cols={cols} are too small for a band k=({k0}, "
            f"{k1}) of diagonals of length {n} (it needs {min_rows} rows, {min_cols} columns).",
        )
    if rows != min_rows and cols != min_cols:
        raise InvalidArgumentError(
            None,
            tf_op,
            f"{op}: num_rows={rows} and num_cols={cols} do not fit a band k=({k0}, {k1}) of "
            f"diagonals of length {n} (one must be {min_rows} rows or {min_cols} columns).",
        )
    pad = padding_value.numpy().item() if isinstance(padding_value, Tensor) else padding_value
    params = {"k0": k0, "k1": k1, "rows": rows, "cols": cols, "padding_value": pad}
    return _apply(_band_diag, d, align=align, **params)


def band_set_diag(x: Tensor, d: Tensor, k: tuple, align: str = "RIGHT_LEFT") -> Tensor:
    """``x`` (shape ``[..., M, N]``) with diagonals ``k0..k1`` replaced by the band ``d``
    (shape ``[..., k1 - k0 + 1, min(M + min(k1, 0), N - max(k0, 0))]``) (follows
    `tf.linalg.set_diag` with a pair ``k``). Differentiable in both.

    Raises:
        InvalidArgumentError: ``k0 > k1``, a diagonal outside ``(-M, N)``, or ``d`` of
            another shape (both named).

    >>> ek.linalg.set_diag(ek.zeros((2, 3)), [[1.0, 2.0], [3.0, 4.0]], k=(0, 1)).numpy()
    array([[3., 1., 0.],
           [0., 4., 2.]], dtype=float32)
    """
    k0, k1 = k
    sx, sd = tuple(x._value.shape), tuple(d._value.shape)
    _check_k(k0, k1, sx[-2], sx[-1], "set_diag", "MatrixSetDiagV3")
    want = (*sx[:-2], k1 - k0 + 1, _width(sx[-2], sx[-1], k0, k1))
    if sd != want:
        raise InvalidArgumentError(
            None,
            "MatrixSetDiagV3",
            f"set_diag: diagonal must have shape {want} for input of shape {sx} and "
            f"k=({k0}, {k1}), got shape {sd}.",
        )
    return _apply(_band_set, x, d, k0=k0, k1=k1, align=align)
