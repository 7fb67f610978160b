"""Matrix ops under `tf.linalg` names: inverse, determinants, Cholesky, triangular solves and
the diagonal/band structure ops (`diag`, `diag_part`, `set_diag`, `band_part`), `cross`,
`matvec`, `adjoint`.

Each op is a `Primitive` whose forward runs on ``xp`` (NumPy or CuPy) with its VJPs right
below, written with public ops so that derivatives of any order come for free. The gradient
formulas are TensorFlow's (``tensorflow/python/ops/linalg_grad.py``): MatrixInverse,
MatrixDeterminant, LogMatrixDeterminant, Cholesky (CholeskyGrad), MatrixTriangularSolve.
The decompositions (`svd`, `qr`, `eigh`) and what is built on them live in
`matrix_decompositions`.

LAPACK has no half precision: float16 inputs are computed in float32 and rounded back.
Complex inputs are taken where TensorFlow takes them, with its gradients (adjoints where real
inputs have transposes); integer inputs raise TypeError naming the op; a singular matrix, a
matrix that is not positive definite or shapes that do not fit raise
`~ek.errors.InvalidArgumentError`.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..core.dispatch import Primitive, defjointvjp, defvjp
from ..core.errors import InvalidArgumentError, UnsupportedDTypeError
from ..core.tensor import Tensor
from ._core import apply, dtype_error, tensor
from .linalg import matmul, matrix_transpose
from .matrix_bands import band_diag, band_diag_part, band_k, band_set_diag
from .matrix_cross import cross

__all__ = [
    "adjoint",
    "band_part",
    "cholesky",
    "cholesky_solve",
    "cross",
    "det",
    "diag",
    "diag_part",
    "inv",
    "logdet",
    "matvec",
    "set_diag",
    "slogdet",
    "triangular_solve",
]


# -- argument checks ----------------------------------------------------------------------------


def float_matrix(
    x, op: str, tf_op: str, arg: str = "input", square: bool = True, complex_ok: bool = False
) -> Tensor:
    """``x`` as a floating (or, if ``complex_ok``, complex) Tensor of rank >= 2 (square if
    asked), or the error TF raises."""
    x = tensor(x, op)
    dt = x._value.dtype
    if dt.kind != "f" and not (complex_ok and dt.kind == "c"):
        what = "complex matrices are not supported" if dt.kind == "c" else "a floating dtype"
        raise UnsupportedDTypeError(
            f"{op}: {arg} must be a float16, float32 or float64 tensor ({what}), got "
            f"{x.dtype.name}."
        )
    s = tuple(x._value.shape)
    if len(s) < 2 or (square and s[-1] != s[-2]):
        kind = "a square matrix" if square else "a matrix"
        raise InvalidArgumentError(
            None, tf_op, f"{op}: {arg} must be {kind} of rank >= 2 ([..., M, N]), got shape {s}."
        )
    return x


def any_matrix(x, op: str, tf_op: str, arg: str = "input") -> Tensor:
    """``x`` (any dtype) of rank >= 2."""
    x = tensor(x, op)
    if x.ndim < 2:
        raise InvalidArgumentError(
            None, tf_op, f"{op}: {arg} must have rank >= 2, got shape {tuple(x._value.shape)}."
        )
    return x


def lapack_dtype(a):
    """The dtype LAPACK computes ``a`` in (float32 for float16)."""
    return np.float32 if a.dtype == np.float16 else a.dtype


def _finite(xp, out) -> bool:
    """CuPy's solvers return NaN instead of raising; NumPy's raise LinAlgError."""
    return xp is np or bool(xp.isfinite(out).all())


def _int(v, op: str, arg: str) -> int:
    if isinstance(v, Tensor):
        if v.ndim != 0:
            raise InvalidArgumentError(
                None, op, f"{op}: {arg} must be a scalar, got shape {tuple(v._value.shape)}."
            )
        v = v.numpy().item()
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"{op}: {arg} must be an int, got {v!r}.")
    return int(v)


# -- inverse and determinants -------------------------------------------------------------------


def _inv_fwd(xp, a, adjoint):
    dt = a.dtype
    if adjoint:
        a = xp.swapaxes(a, -1, -2).conj()
    try:
        out = xp.linalg.inv(a.astype(lapack_dtype(a), copy=False))
    except np.linalg.LinAlgError:
        raise InvalidArgumentError(None, "MatrixInverse", "inv: Input is not invertible.") from None
    if not _finite(xp, out):
        raise InvalidArgumentError(None, "MatrixInverse", "inv: Input is not invertible.")
    return out.astype(dt, copy=False)


def _inv_vjp(g, ans, a, adjoint):
    # TensorFlow's MatrixInverse gradient, -C^H g C^H with C = inv(A). For adjoint=True,
    # C = inv(A^H) and dC = -C dA^H C, so the cotangent of A is -C g^H C.
    if adjoint:
        return -matmul(ans, matmul(g, ans, adjoint_a=True))
    return -matmul(ans, matmul(g, ans, adjoint_b=True), adjoint_a=True)


_inv = Primitive("MatrixInverse", _inv_fwd)
defvjp(_inv, _inv_vjp)


def inv(input, adjoint=False, name=None) -> Tensor:
    """The inverse of each square matrix (follows `tf.linalg.inv`).

    Args:
        input: shape ``[..., M, M]``, float16 (computed in float32), float32, float64,
            complex64 or complex128.
        adjoint: invert the adjoint (conjugate transpose) of each matrix instead.

    Returns:
        Shape ``[..., M, M]``, ``input``'s dtype. Differentiable (TensorFlow's MatrixInverse
        gradient ``-inv(A)^H g inv(A)^H``), to any order.

    Raises:
        InvalidArgumentError: a matrix that is not square, or a singular matrix ("Input is
            not invertible.").
        TypeError: an integer dtype.

    >>> ek.linalg.inv([[2.0, 0.0], [0.0, 4.0]]).numpy()
    array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """
    a = float_matrix(input, "inv", "MatrixInverse", complex_ok=True)
    return apply(_inv, (a,), {"adjoint": bool(adjoint)})


def _det_fwd(xp, a):
    return xp.linalg.det(a.astype(lapack_dtype(a), copy=False)).astype(a.dtype, copy=False)


def _bcast_mat(x: Tensor) -> Tensor:
    """``x[..., None, None]``: a per-matrix scalar against a batch of matrices."""
    from .array_ops import reshape

    return reshape(x, (*x._value.shape, 1, 1))


_det = Primitive("MatrixDeterminant", _det_fwd)
# TensorFlow's MatrixDeterminant gradient: g * det(A) * inv(A)^H (det(A), not its conjugate).
defvjp(_det, lambda g, ans, a: _bcast_mat(g * ans) * inv(a, adjoint=True))


def det(input, name=None) -> Tensor:
    """The determinant of each square matrix (follows `tf.linalg.det`).

    Args:
        input: shape ``[..., M, M]``, float16 (computed in float32), float32, float64,
            complex64 or complex128.

    Returns:
        Shape ``[...]``. The gradient is ``g * det(A) * inv(A)^H`` (TensorFlow's), which
        raises InvalidArgumentError at a singular matrix.

    Raises:
        InvalidArgumentError: a matrix that is not square.
        TypeError: an integer dtype.

    >>> float(ek.linalg.det([[1.0, 2.0], [3.0, 4.0]]))
    -2.0
    """
    a = float_matrix(input, "det", "MatrixDeterminant", complex_ok=True)
    return apply(_det, (a,))


def _slogdet_fwd(xp, a):
    with np.errstate(invalid="ignore"):
        sign, logdet = xp.linalg.slogdet(a.astype(lapack_dtype(a), copy=False))
    # LAPACK may report a NaN matrix as singular (sign 0, -inf), and gives an inf one the sign
    # 1 and a NaN log; TensorFlow gives NaN, NaN to both.
    nan = xp.isnan(a).any(axis=(-2, -1)) | xp.isnan(logdet)
    nan_sign = complex(np.nan, np.nan) if a.dtype.kind == "c" else np.nan  # TensorFlow's
    sign, logdet = xp.where(nan, nan_sign, sign), xp.where(nan, np.nan, logdet)
    return sign.astype(a.dtype, copy=False), logdet.astype(a.dtype, copy=False)


_slogdet = Primitive("LogMatrixDeterminant", _slogdet_fwd, n_out=0)
# TensorFlow's LogMatrixDeterminant gradient: the sign is piecewise constant, and the
# cotangent of log|det(A)| is g * inv(A)^H.
defvjp(_slogdet, lambda g, ans, a: _bcast_mat(g[1]) * inv(a, adjoint=True))


def slogdet(input, name=None) -> tuple[Tensor, Tensor]:
    """Sign and log of the absolute value of each determinant (follows `tf.linalg.slogdet`).

    Args:
        input: shape ``[..., M, M]``, float16 (computed in float32), float32, float64,
            complex64 or complex128.

    Returns:
        ``(sign, log_abs_determinant)``, each of shape ``[...]`` and ``input``'s dtype (for
        complex input, ``sign`` has modulus 1 and ``log_abs_determinant`` a zero imaginary
        part, as in TensorFlow; sign 0 and log -inf for a singular matrix). Only
        ``log_abs_determinant`` has a gradient, ``g * inv(A)^H``.

    Raises:
        InvalidArgumentError: a matrix that is not square.
        TypeError: an integer dtype.

    >>> sign, logdet = ek.linalg.slogdet([[1.0, 2.0], [3.0, 4.0]])
    >>> float(sign), round(float(logdet), 5)
    (-1.0, 0.69315)
    """
    a = float_matrix(input, "slogdet", "LogMatrixDeterminant", complex_ok=True)
    return apply(_slogdet, (a,))


def logdet(matrix, name=None) -> Tensor:
    """``log(det(matrix))`` of Hermitian positive definite matrices, via the Cholesky factor
    (follows `tf.linalg.logdet`): ``2 * sum(log(diag_part(cholesky(matrix))))``.

    Args:
        matrix: shape ``[..., M, M]``, Hermitian positive definite (only its lower triangle
            is read), float16/float32/float64/complex64/complex128.

    Returns:
        Shape ``[...]``, real: float32 for complex64 input, float64 for complex128 (as in
        TensorFlow); differentiable through `cholesky`.

    Raises:
        InvalidArgumentError: a matrix that is not square or not positive definite.
        TypeError: an integer dtype.

    >>> round(float(ek.linalg.logdet([[4.0, 0.0], [0.0, 9.0]])), 4)
    3.5835
    """
    from .complex_ops import real
    from .elementwise import log
    from .reduction import reduce_sum

    a = float_matrix(matrix, "logdet", "Cholesky", "matrix", complex_ok=True)
    return 2.0 * reduce_sum(log(real(diag_part(cholesky(a)))), axis=-1)


# -- Cholesky and triangular solves -------------------------------------------------------------

_NOT_PD = (
    "cholesky: Cholesky decomposition was not successful. The input might not be valid "
    "(a symmetric positive definite matrix is needed)."
)


def _cholesky_fwd(xp, a):
    # Only the lower triangle is read, as in TensorFlow (NumPy's and CuPy's potrf do the same).
    try:
        out = xp.linalg.cholesky(a.astype(lapack_dtype(a), copy=False))
    except np.linalg.LinAlgError:
        raise InvalidArgumentError(None, "Cholesky", _NOT_PD) from None
    if not _finite(xp, out):
        raise InvalidArgumentError(None, "Cholesky", _NOT_PD)
    return out.astype(a.dtype, copy=False)


def _cholesky_vjp(g, ans, a):
    # TensorFlow's CholeskyGrad: L^-H Phi(L^H g) L^-1, made Hermitian, where Phi keeps the
    # lower triangle and halves the diagonal.
    from .creation import eye

    n = ans._value.shape[-1]
    identity = eye(n, batch_shape=ans._value.shape[:-2], dtype=ans.dtype)
    l_inverse = triangular_solve(ans, identity)
    middle = matmul(ans, g, adjoint_a=True)
    middle = set_diag(middle, 0.5 * diag_part(middle))
    middle = band_part(middle, -1, 0)
    grad_a = matmul(matmul(l_inverse, middle, adjoint_a=True), l_inverse)
    return 0.5 * (grad_a + matrix_transpose(grad_a, conjugate=True))


_cholesky = Primitive("Cholesky", _cholesky_fwd)
defvjp(_cholesky, _cholesky_vjp)


def cholesky(input, name=None) -> Tensor:
    """The lower-triangular Cholesky factor ``L`` of each matrix, ``input = L @ L^H``
    (follows `tf.linalg.cholesky`).

    Args:
        input: shape ``[..., M, M]``, Hermitian positive definite; only the lower triangle is
            read (as in TensorFlow). float16 (computed in float32), float32, float64,
            complex64 or complex128.

    Returns:
        ``L``, shape ``[..., M, M]``, zero above the diagonal (a real diagonal).
        Differentiable (TensorFlow's CholeskyGrad, a Hermitian cotangent).

    Raises:
        InvalidArgumentError: a matrix that is not square, or not positive definite
            ("Cholesky decomposition was not successful...").
        TypeError: an integer dtype.

    >>> ek.linalg.cholesky([[4.0, 2.0], [2.0, 5.0]]).numpy()
    array([[2., 0.],
           [1., 2.]], dtype=float32)
    """
    a = float_matrix(input, "cholesky", "Cholesky", complex_ok=True)
    return apply(_cholesky, (a,))


def _triangular_solve_fwd(xp, matrix, rhs, lower, adjoint):
    dt = matrix.dtype
    a = xp.tril(matrix) if lower else xp.triu(matrix)  # the other triangle is never read
    if adjoint:
        a = xp.swapaxes(a, -1, -2).conj()
    batch = np.broadcast_shapes(a.shape[:-2], rhs.shape[:-2])
    a = xp.broadcast_to(a, (*batch, *a.shape[-2:])).astype(lapack_dtype(a))
    b = xp.broadcast_to(rhs, (*batch, *rhs.shape[-2:])).astype(lapack_dtype(a))
    msg = "triangular_solve: Input matrix is not invertible."
    try:
        out = xp.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError(None, "MatrixTriangularSolve", msg) from None
    if not _finite(xp, out):
        raise InvalidArgumentError(None, "MatrixTriangularSolve", msg)
    return out.astype(dt, copy=False)


def _triangular_solve_vjps(g, ans, matrix, rhs, lower, adjoint):
    # TensorFlow's MatrixTriangularSolve gradient; the tape sums broadcast batch axes.
    grad_rhs = triangular_solve(matrix, g, lower=lower, adjoint=not adjoint)
    if adjoint:
        grad_matrix = -matmul(ans, grad_rhs, adjoint_b=True)
    else:
        grad_matrix = -matmul(grad_rhs, ans, adjoint_b=True)
    grad_matrix = band_part(grad_matrix, -1, 0) if lower else band_part(grad_matrix, 0, -1)
    return grad_matrix, grad_rhs


_triangular_solve = Primitive("MatrixTriangularSolve", _triangular_solve_fwd)
defjointvjp(_triangular_solve, _triangular_solve_vjps)


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None) -> Tensor:
    """Solves ``matrix @ x = rhs`` for a triangular ``matrix`` (follows
    `tf.linalg.triangular_solve`).

    Args:
        matrix: shape ``[..., M, M]``; only its lower (``lower=True``) or upper triangle is
            read. float16 (computed in float32), float32, float64, complex64 or complex128.
        rhs: shape ``[..., M, K]``, same dtype; batch dimensions broadcast with ``matrix``'s.
        lower: whether ``matrix`` is lower or upper triangular.
        adjoint: solve with the adjoint (conjugate transpose) of ``matrix`` instead.

    Returns:
        ``x``, shape ``batch + [M, K]``. Differentiable in both arguments (TensorFlow's
        MatrixTriangularSolve gradient; ``matrix``'s cotangent is triangular too).

    Raises:
        InvalidArgumentError: a matrix that is not square, shapes that do not fit, or a zero
            on the diagonal ("Input matrix is not invertible.").
        TypeError: an integer dtype, or dtypes that differ.

    >>> ek.linalg.triangular_solve([[2.0, 0.0], [1.0, 1.0]], [[2.0], [3.0]]).numpy().ravel()
    array([1., 2.], dtype=float32)
    """
    a = float_matrix(matrix, "triangular_solve", "MatrixTriangularSolve", "matrix", complex_ok=True)
    b = tensor(rhs, "triangular_solve", a._value.dtype)
    if a._value.dtype != b._value.dtype:
        raise dtype_error("triangular_solve", (a, b), ("matrix", "rhs"))
    sa, sb = tuple(a._value.shape), tuple(b._value.shape)
    ok = len(sb) >= 2 and sb[-2] == sa[-1]
    if ok:
        try:
            np.broadcast_shapes(sa[:-2], sb[:-2])
        except ValueError:
            ok = False
    if not ok:
        raise InvalidArgumentError(
            None,
            "MatrixTriangularSolve",
            f"triangular_solve: rhs must have shape [..., {sa[-1]}, K] with batch dimensions "
            f"that broadcast with matrix's, got matrix shape {sa} and rhs shape {sb}.",
        )
    return apply(_triangular_solve, (a, b), {"lower": bool(lower), "adjoint": bool(adjoint)})


def cholesky_solve(chol, rhs, name=None) -> Tensor:
    """Solves ``A @ x = rhs`` given the Cholesky factor ``chol`` of ``A`` (follows
    `tf.linalg.cholesky_solve`): two triangular solves, differentiable through them.

    Args:
        chol: shape ``[..., M, M]``, lower triangular (as returned by `cholesky`).
        rhs: shape ``[..., M, K]``, same dtype.

    Returns:
        ``x``, shape ``[..., M, K]``.

    Raises:
        InvalidArgumentError: shapes that do not fit, or a zero on ``chol``'s diagonal.
        TypeError: an integer dtype, or dtypes that differ.

    >>> a = ek.constant([[4.0, 2.0], [2.0, 5.0]])
    >>> ek.linalg.cholesky_solve(ek.linalg.cholesky(a), [[6.0], [7.0]]).numpy().ravel()
    array([1., 1.], dtype=float32)
    """
    y = triangular_solve(chol, rhs, lower=True, adjoint=False)
    return triangular_solve(chol, y, lower=True, adjoint=True)


# -- diagonals and bands ------------------------------------------------------------------------


def _diag_index(xp, k: int, length: int):
    """Row and column indices of diagonal ``k``, ``length`` entries long."""
    i = xp.arange(length)
    return i + max(-k, 0), i + max(k, 0)


def _diag_len(rows: int, cols: int, k: int) -> int:
    return max(0, min(rows + min(k, 0), cols - max(k, 0)))


def _k_arg(k, op: str) -> int:
    """The diagonal offset ``k``: an int, or a pair naming one diagonal twice (a band goes to
    `matrix_bands`)."""
    if isinstance(k, Tensor):
        k = k.numpy()
    if np.ndim(k) > 0:
        vals = np.asarray(k).ravel()
        if vals.size not in (1, 2) or vals[0] != vals[-1]:
            raise InvalidArgumentError(
                None, op, f"{op}: k must be an int or a pair of ints, got k={k!r}."
            )
        k = vals[0]
    if isinstance(k, (np.ndarray, np.generic)):
        k = k.item()
    return _int(k, op, "k")


def _diag_fwd(xp, d, k, rows, cols, padding_value):
    out = xp.full((*d.shape[:-1], rows, cols), padding_value, dtype=d.dtype)
    r, c = _diag_index(xp, k, d.shape[-1])
    out[..., r, c] = d
    return out


_diag = Primitive("MatrixDiagV3", _diag_fwd)
defvjp(_diag, lambda g, ans, d, k, rows, cols, padding_value: diag_part(g, k=k))


def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Batched matrices with ``diagonal`` on diagonal ``k`` (follows `tf.linalg.diag`).

    Args:
        diagonal: shape ``[..., L]``, any dtype.
        k: the diagonal: 0 the main one, positive above it, negative below; or a band
            ``(k0, k1)``, ``diagonal`` then of shape ``[..., k1 - k0 + 1, L]`` (`band_diag`).
        num_rows, num_cols: the matrices' size; -1 infers it (both -1: square,
            ``L + |k|``; one given: the other as small as fits).
        padding_value: the value off the diagonal (a Python number).
        align: how a band's shorter diagonals are padded (`matrix_bands`); it has no
            effect on one diagonal.

    Returns:
        Shape ``[..., num_rows, num_cols]``, ``diagonal``'s dtype. Differentiable:
        the cotangent of ``diagonal`` is ``diag_part(g, k)``.

    Raises:
        InvalidArgumentError: ``num_rows``/``num_cols`` whose diagonal ``k`` does not hold
            ``L`` entries, or ``diagonal`` of rank 0.
        ValueError: an unknown ``align``.

    >>> ek.linalg.diag([1.0, 2.0]).numpy()
    array([[1., 0.],
           [0., 2.]], dtype=float32)
    >>> ek.linalg.diag([1, 2], k=1).numpy()
    array([[0, 1, 0],
           [0, 0, 2],
           [0, 0, 0]], dtype=int32)
    """
    d = tensor(diagonal, "diag")
    _align_arg(align, "diag")
    if d.ndim < 1:
        raise InvalidArgumentError(
            None, "MatrixDiagV3", "diag: diagonal must have rank >= 1, got a scalar."
        )
    if (band := band_k(k)) is not None:
        return band_diag(d, band, num_rows, num_cols, padding_value, align)
    k = _k_arg(k, "diag")
    n = d._value.shape[-1]
    rows, cols = _int(num_rows, "diag", "num_rows"), _int(num_cols, "diag", "num_cols")
    if rows < 0 and cols < 0:
        rows = cols = n + abs(k)
    elif rows < 0:
        rows = n + max(-k, 0)
    elif cols < 0:
        cols = n + max(k, 0)
    if _diag_len(rows, cols, k) != n:
        raise InvalidArgumentError(
            None,
            "MatrixDiagV3",
            f"diag: diagonal k={k} of a {rows}x{cols} matrix does not have {n} entries "
            f"(diagonal shape {tuple(d._value.shape)}, num_rows={num_rows}, "
            f"num_cols={num_cols}).",
        )
    pad = padding_value.numpy().item() if isinstance(padding_value, Tensor) else padding_value
    params = {"k": k, "rows": rows, "cols": cols, "padding_value": pad}
    return apply(_diag, (d,), params)


_ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def _align_arg(align, op: str) -> None:
    if align not in _ALIGNS:
        raise ValueError(f"{op}: align must be one of {', '.join(_ALIGNS)}, got {align!r}.")


def _k_range(x: Tensor, k: int, op: str, tf_op: str) -> None:
    rows, cols = x._value.shape[-2:]
    if not (-rows < k < cols or k == 0):  # TensorFlow's bounds, also for 0x0 matrices
        raise InvalidArgumentError(
            None,
            tf_op,
            f"{op}: k={k} is out of range for matrices of shape {tuple(x._value.shape)} "
            f"(it must be in ({-rows}, {cols}) or 0).",
        )


def _diag_part_fwd(xp, x, k):
    return xp.diagonal(x, offset=k, axis1=-2, axis2=-1).copy()


_diag_part = Primitive("MatrixDiagPartV3", _diag_part_fwd)
defvjp(
    _diag_part,
    lambda g, ans, x, k: diag(g, k=k, num_rows=x._value.shape[-2], num_cols=x._value.shape[-1]),
)


def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT") -> Tensor:
    """Diagonal ``k`` of each matrix (follows `tf.linalg.diag_part`).

    Args:
        input: shape ``[..., M, N]``, any dtype.
        k: the diagonal: 0 the main one, positive above it, negative below; in
            ``(-M, N)``; or a band ``(k0, k1)`` (`band_diag_part`).
        padding_value, align: the padding and alignment of a band's shorter diagonals
            (`matrix_bands`); no effect on one diagonal (as in TensorFlow).

    Returns:
        Shape ``[..., L]`` with ``L`` the diagonal's length. Differentiable: the cotangent
        is ``g`` on diagonal ``k``, zero elsewhere.

    Raises:
        InvalidArgumentError: rank below 2, ``k`` out of range.
        ValueError: an unknown ``align``.

    >>> ek.linalg.diag_part([[1.0, 2.0], [3.0, 4.0]]).numpy()
    array([1., 4.], dtype=float32)
    """
    x = any_matrix(input, "diag_part", "MatrixDiagPartV3")
    _align_arg(align, "diag_part")
    if (band := band_k(k)) is not None:
        return band_diag_part(x, band, padding_value, align)
    k = _k_arg(k, "diag_part")
    _k_range(x, k, "diag_part", "MatrixDiagPartV3")
    return apply(_diag_part, (x,), {"k": k})


def _set_diag_fwd(xp, x, d, k):
    out = x.copy()
    r, c = _diag_index(xp, k, d.shape[-1])
    out[..., r, c] = d
    return out


_set_diag = Primitive("MatrixSetDiagV3", _set_diag_fwd)
defvjp(
    _set_diag,
    lambda g, ans, x, d, k: set_diag(g, d * 0, k=k),
    lambda g, ans, x, d, k: diag_part(g, k=k),
)


def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT") -> Tensor:
    """``input`` with diagonal ``k`` replaced by ``diagonal`` (follows `tf.linalg.set_diag`).

    Args:
        input: shape ``[..., M, N]``, any dtype.
        diagonal: shape ``[..., L]`` (``input``'s batch dimensions and the diagonal's
            length), same dtype.
        k: the diagonal, in ``(-M, N)``; or a band ``(k0, k1)`` (`band_set_diag`).
        align: the alignment of a band's shorter diagonals; no effect on one diagonal.

    Returns:
        Shape ``[..., M, N]``. Differentiable in both arguments.

    Raises:
        InvalidArgumentError: shapes that do not fit (both are named), ``k`` out of range.
        TypeError: dtypes that differ. ValueError: an unknown ``align``.

    >>> ek.linalg.set_diag(ek.zeros((2, 2)), [1.0, 2.0]).numpy()
    array([[1., 0.],
           [0., 2.]], dtype=float32)
    """
    x = any_matrix(input, "set_diag", "MatrixSetDiagV3")
    d = tensor(diagonal, "set_diag", x._value.dtype)
    if x._value.dtype != d._value.dtype:
        raise dtype_error("set_diag", (x, d), ("input", "diagonal"))
    _align_arg(align, "set_diag")
    if (band := band_k(k)) is not None:
        return band_set_diag(x, d, band, align)
    k = _k_arg(k, "set_diag")
    _k_range(x, k, "set_diag", "MatrixSetDiagV3")
    sx, sd = tuple(x._value.shape), tuple(d._value.shape)
    want = (*sx[:-2], _diag_len(sx[-2], sx[-1], k))
    if sd != want:
        raise InvalidArgumentError(
            None,
            "MatrixSetDiagV3",
            f"set_diag: diagonal must have shape {want} for input of shape {sx} and k={k}, "
            f"got shape {sd}.",
        )
    return apply(_set_diag, (x, d), {"k": k})


def _band_fwd(xp, x, num_lower, num_upper):
    rows, cols = x.shape[-2:]
    i = xp.arange(rows)[:, None]
    j = xp.arange(cols)[None, :]
    keep = xp.ones((rows, cols), dtype=bool)
    if num_lower >= 0:
        keep &= i - j <= num_lower
    if num_upper >= 0:
        keep &= j - i <= num_upper
    return xp.where(keep, x, xp.zeros((), dtype=x.dtype))


_band_part = Primitive("MatrixBandPart", _band_fwd)
defvjp(_band_part, lambda g, ans, x, num_lower, num_upper: band_part(g, num_lower, num_upper))


def band_part(input, num_lower, num_upper, name=None) -> Tensor:
    """Zeros everything outside a central band of each matrix (follows `tf.linalg.band_part`).

    Keeps ``input[..., m, n]`` where ``(num_lower < 0 or m - n <= num_lower) and
    (num_upper < 0 or n - m <= num_upper)``: ``band_part(x, -1, 0)`` is the lower triangle,
    ``band_part(x, 0, -1)`` the upper one, ``band_part(x, 0, 0)`` the diagonal.

    Args:
        input: shape ``[..., M, N]``, any dtype.
        num_lower, num_upper: ints (or scalar integer tensors): the number of
            subdiagonals/superdiagonals kept; negative keeps the whole triangle.

    Returns:
        ``input``'s shape and dtype. Differentiable: the cotangent is ``band_part(g, ...)``.

    Raises:
        InvalidArgumentError: rank below 2, ``num_lower`` >= M or ``num_upper`` >= N.
        TypeError: non-integer ``num_lower``/``num_upper``.

    >>> ek.linalg.band_part(ek.ones((3, 3)), 1, 0).numpy()
    array([[1., 0., 0.],
           [1., 1., 0.],
           [0., 1., 1.]], dtype=float32)
    """
    x = any_matrix(input, "band_part", "MatrixBandPart")
    lo = _int(num_lower, "band_part", "num_lower")
    up = _int(num_upper, "band_part", "num_upper")
    rows, cols = x._value.shape[-2:]
    if lo > rows or up > cols:
        # TensorFlow's MatrixBandPart: "num_lower must be negative or less or equal to number
        # of rows"
        raise InvalidArgumentError(
            None,
            "MatrixBandPart",
            f"band_part: num_lower must be negative or <= the number of rows ({rows}) and "
            f"num_upper negative or <= the number of columns ({cols}), got num_lower={lo}, "
            f"num_upper={up} for shape {tuple(x._value.shape)}.",
        )
    return apply(_band_part, (x,), {"num_lower": lo, "num_upper": up})


# -- matvec, adjoint ----------------------------------------------------------------------------


def matvec(a, b, transpose_a=False, adjoint_a=False, name=None) -> Tensor:
    """Matrix-vector product ``a @ b`` batched over leading axes (follows `tf.linalg.matvec`).

    Args:
        a: shape ``[..., M, N]`` (``[..., N, M]`` with ``transpose_a``/``adjoint_a``).
        b: shape ``[..., N]``, same dtype.
        transpose_a, adjoint_a: multiply by the transpose (the conjugate transpose, which is
            the same for real dtypes) of ``a``; at most one may be set.

    Returns:
        Shape ``[..., M]``. Differentiable through `matmul`.

    Raises:
        ValueError: both ``transpose_a`` and ``adjoint_a``.
        InvalidArgumentError: shapes that do not fit (from `matmul`). TypeError: dtypes
            that differ.

    >>> ek.linalg.matvec([[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0]).numpy()
    array([3., 7.], dtype=float32)
    """
    from .array_ops import expand_dims, squeeze

    if transpose_a and adjoint_a:
        raise ValueError("matvec: only one of transpose_a and adjoint_a can be True.")
    a = tensor(a, "matvec")
    b = tensor(b, "matvec", a._value.dtype)
    if b.ndim < 1:
        raise InvalidArgumentError(
            None, "MatMul", f"matvec: b must have rank >= 1, got shape {tuple(b._value.shape)}."
        )
    out = matmul(a, expand_dims(b, -1), transpose_a=bool(transpose_a), adjoint_a=bool(adjoint_a))
    return squeeze(out, -1)


def adjoint(matrix, name=None) -> Tensor:
    """The conjugate transpose of each matrix (for real dtypes, `matrix_transpose`)
    (follows `tf.linalg.adjoint`).

    Args:
        matrix: shape ``[..., M, N]``.

    Returns:
        Shape ``[..., N, M]``.

    Raises:
        ValueError: rank below 2.

    >>> ek.linalg.adjoint([[1.0, 2.0, 3.0]]).shape
    TensorShape([3, 1])
    """
    return matrix_transpose(matrix, conjugate=True)
