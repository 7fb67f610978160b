"""Matrix decompositions under `tf.linalg` names: `svd`, `qr`, `eigh`, `eigvalsh`, `lu`, and
what is built on them: `pinv`, `lstsq`, `lu_solve`, `lu_reconstruct`, `lu_matrix_inverse`;
and the composites `normalize`, `tensor_diag`, `tensor_diag_part`.

Each decomposition is a `Primitive` with TensorFlow's gradient (``linalg_grad.py``: SvdGrad,
QrGrad, SelfAdjointEigV2Grad) written with public ops, so derivatives of any order come for
free. As in TensorFlow, the gradients of singular/eigen vectors are undefined where singular
values/eigenvalues repeat (the reciprocal of their gaps is softened by TF's ``1e-20``
Lorentz broadening, not made exact), and they assume a loss that does not depend on the sign
(phase) of each vector.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..core.dispatch import Primitive, defvjp
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ._core import apply, dtype_error, tensor
from .linalg import matmul, matrix_transpose, norm
from .matrix_ops import (
    band_part,
    cholesky,
    cholesky_solve,
    diag,
    diag_part,
    float_matrix,
    lapack_dtype,
    set_diag,
    triangular_solve,
)

__all__ = [
    "eigh",
    "eigvalsh",
    "lstsq",
    "lu",
    "lu_matrix_inverse",
    "lu_reconstruct",
    "lu_solve",
    "normalize",
    "pinv",
    "qr",
    "svd",
    "tensor_diag",
    "tensor_diag_part",
]

_tensor = tensor  # `normalize` has an argument named `tensor` (TensorFlow's name)


def _adj(x: Tensor) -> Tensor:
    """The conjugate transpose of each matrix (the transpose for real dtypes)."""
    return matrix_transpose(x, conjugate=True)


def _safe_reciprocal(x: Tensor, epsilon: float = 1e-20) -> Tensor:
    """TensorFlow's `_SafeReciprocal`: ``x / (x^2 + eps)``, finite where ``x`` is 0."""
    return x / (x * x + epsilon)


def eigen_gaps(x: Tensor) -> Tensor:
    """``f[..., i, j] = 1 / (x_j - x_i)`` off the diagonal, 0 on it (TF's ``f``)."""
    from .array_ops import expand_dims

    f = _safe_reciprocal(expand_dims(x, -2) - expand_dims(x, -1))
    return set_diag(f, x * 0)


def _lapack_failed(op: str, tf_op: str, a) -> InvalidArgumentError:
    return InvalidArgumentError(
        None, tf_op, f"{op}: the decomposition did not converge for input of shape {a.shape}."
    )


# -- svd ----------------------------------------------------------------------------------------


def _nonfinite_matrices(xp, a):
    """``(bad, a)``: which matrices hold a NaN or inf, and ``a`` with those zeroed. TensorFlow's
    SVD returns NaN factors for them where LAPACK fails to converge."""
    bad = ~xp.isfinite(a).all(axis=(-2, -1))
    return bad, (xp.where(bad[..., None, None], 0, a) if bad.any() else a)


def _svd_fwd(xp, a, full_matrices):
    bad, finite = _nonfinite_matrices(xp, a)
    try:
        u, s, vh = xp.linalg.svd(finite.astype(lapack_dtype(a), copy=False), full_matrices)
    except np.linalg.LinAlgError:
        raise _lapack_failed("svd", "Svd", a) from None
    dt = a.dtype
    v = xp.swapaxes(vh, -1, -2).conj()
    if bad.any():
        s = xp.where(bad[..., None], np.nan, s)
        u, v = (xp.where(bad[..., None, None], np.nan, f) for f in (u, v))
    s = s.astype(np.finfo(dt).dtype, copy=False)  # real, also for complex input
    return s, u.astype(dt, copy=False), v.astype(dt, copy=False)


def _svd_vjp(g, ans, a, full_matrices):
    # TensorFlow's SvdGrad (full_matrices=False, or |m - n| <= 1).
    from .elementwise import cast

    grad_s, grad_u, grad_v = g
    s, u, v = ans
    if a.dtype.is_complex:  # s is real; TensorFlow casts it and its cotangent to a's dtype
        grad_s, s = cast(grad_s, a.dtype), cast(s, a.dtype)
    m, n = a._value.shape[-2:]
    if full_matrices and abs(m - n) > 1:
        raise NotImplementedError(
            "svd: the gradient is not implemented for abs(m - n) > 1 when full_matrices is "
            f"True (input shape {tuple(a._value.shape)}), as in TensorFlow."
        )
    grad_s_mat = diag(grad_s)
    use_adjoint = m > n
    if use_adjoint:  # the gradient of A^H = V S U^H, adjoined at the end
        m, n = n, m
        u, v = v, u
        grad_u, grad_v = grad_v, grad_u
    s_mat = diag(s)
    f = eigen_gaps(s * s)
    v1 = v[..., :, :m]
    grad_v1 = grad_v[..., :, :m]
    u_gu = matmul(u, grad_u, adjoint_a=True)
    v_gv = matmul(v1, grad_v1, adjoint_a=True)
    f_u = f * u_gu
    f_v = f * v_gv
    term1_nouv = grad_s_mat + matmul(f_u + _adj(f_u), s_mat) + matmul(s_mat, f_v + _adj(f_v))
    grad_a = matmul(u, matmul(term1_nouv, v1, adjoint_b=True))
    s_inv_mat = diag(_safe_reciprocal(s))
    if m != n:
        gv1t = _adj(grad_v1)
        term2_nous = gv1t - matmul(matmul(gv1t, v1), v1, adjoint_b=True)
        if full_matrices:
            v2 = v[..., :, m:n]
            grad_v2 = grad_v[..., :, m:n]
            term2_nous = term2_nous - matmul(
                matmul(v1, grad_v2, adjoint_a=True), v2, adjoint_b=True
            )
        grad_a = grad_a + matmul(matmul(u, s_inv_mat), term2_nous)
    if a.dtype.is_complex:  # the phase of v's columns: TensorFlow's term3
        l_mat = diag(diag_part(v_gv))
        term3_nouv = matmul(s_inv_mat, _adj(l_mat) - l_mat)
        grad_a = grad_a + 0.5 * matmul(u, matmul(term3_nouv, v1, adjoint_b=True))
    return _adj(grad_a) if use_adjoint else grad_a


_svd = Primitive("Svd", _svd_fwd, n_out=0)
defvjp(_svd, _svd_vjp)


def _svd_values_fwd(xp, a):
    bad, finite = _nonfinite_matrices(xp, a)
    try:
        s = xp.linalg.svd(finite.astype(lapack_dtype(a), copy=False), compute_uv=False)
    except np.linalg.LinAlgError:
        raise _lapack_failed("svd", "Svd", a) from None
    return xp.where(bad[..., None], np.nan, s).astype(np.finfo(a.dtype).dtype, copy=False)


def _svd_values_vjp(g, ans, a):
    # TensorFlow's SvdGrad with compute_uv=False: U diag(g) V^H from a fresh decomposition.
    from .elementwise import cast

    _, u, v = svd(a)
    return matmul(u, matmul(diag(cast(g, a.dtype)), v, adjoint_b=True))


_svd_values = Primitive("Svd", _svd_values_fwd)
defvjp(_svd_values, _svd_values_vjp)


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """Singular value decomposition ``tensor = u @ diag(s) @ v^H`` of each matrix (follows
    `tf.linalg.svd`).

    Args:
        tensor: shape ``[..., M, N]``, float16 (computed in float32), float32, float64,
            complex64 or complex128.
        full_matrices: return square ``u`` ``[..., M, M]`` and ``v`` ``[..., N, N]`` instead
            of the reduced ``[..., M, P]`` and ``[..., N, P]``, with ``P = min(M, N)``.
        compute_uv: return the singular vectors too.

    Returns:
        ``(s, u, v)`` (TensorFlow's order; note ``v``, not ``v^H``) with ``s`` of shape
        ``[..., P]`` in descending order, or only ``s`` if ``compute_uv`` is False. ``s`` is
        real (float32 for complex64 input, float64 for complex128). Differentiable
        (TensorFlow's SvdGrad): exact for distinct nonzero singular values and losses that do
        not depend on the sign (phase) of each singular vector pair; with
        ``full_matrices=True`` only for ``|M - N| <= 1``.

    Raises:
        InvalidArgumentError: rank below 2, or no convergence.
        TypeError: an integer dtype.
        NotImplementedError: (in the gradient) ``full_matrices=True`` with ``|M - N| > 1``,
            as TensorFlow.

    >>> s, u, v = ek.linalg.svd([[3.0, 0.0], [0.0, -2.0]])
    >>> s.numpy()
    array([3., 2.], dtype=float32)
    >>> ek.linalg.svd([[3.0, 0.0], [0.0, -2.0]], compute_uv=False).numpy()
    array([3., 2.], dtype=float32)
    """
    a = float_matrix(tensor, "svd", "Svd", "tensor", square=False, complex_ok=True)
    if not compute_uv:
        return apply(_svd_values, (a,))
    return apply(_svd, (a,), {"full_matrices": bool(full_matrices)})


# -- qr -----------------------------------------------------------------------------------------


def _qr_fwd(xp, a, full_matrices):
    mode = "complete" if full_matrices else "reduced"
    try:
        q, r = xp.linalg.qr(a.astype(lapack_dtype(a), copy=False), mode=mode)
    except np.linalg.LinAlgError:
        raise _lapack_failed("qr", "Qr", a) from None
    return q.astype(a.dtype, copy=False), r.astype(a.dtype, copy=False)


def _tri_solve_right(x: Tensor, r: Tensor) -> Tensor:
    """``x @ inv(r)^H`` for upper-triangular ``r`` (TF's ``_TriangularSolve``)."""
    return _adj(triangular_solve(r, _adj(x), lower=False))


def _qr_grad_deep(q, r, dq, dr):
    """QrGrad for M >= N with reduced factors."""
    from .complex_ops import real
    from .elementwise import cast

    qdq = matmul(q, dq, adjoint_a=True)
    qdq_ = qdq - _adj(qdq)
    rdr = matmul(r, dr, adjoint_b=True)
    rdr_ = rdr - _adj(rdr)
    tril = band_part(qdq_ + rdr_, -1, 0)
    grad_a = matmul(q, dr + _tri_solve_right(tril, r))
    grad_b = _tri_solve_right(dq - matmul(q, qdq), r)
    if not q.dtype.is_complex:
        return grad_a + grad_b
    # TensorFlow's correction for complex input: the imaginary part of diag(R dR^H - dQ^H Q).
    eyem = diag(diag_part(rdr - _adj(qdq)))
    correction = eyem - cast(real(eyem), q.dtype)
    return grad_a + grad_b + _tri_solve_right(matmul(q, _adj(correction)), r)


def _qr_vjp(g, ans, a, full_matrices):
    # TensorFlow's QrGrad.
    from .array_ops import concat

    dq, dr = g
    q, r = ans
    m, n = a._value.shape[-2:]
    if m > n and full_matrices:
        raise NotImplementedError(
            "qr: the gradient is not implemented when nrows > ncols and full_matrices is True "
            f"(input shape {tuple(a._value.shape)}), as in TensorFlow."
        )
    if m >= n:
        return _qr_grad_deep(q, r, dq, dr)
    # Wide: partition a = [x, y], r = [u, v] and reduce to the square case.
    y = a[..., :, m:]
    u = r[..., :, :m]
    dv = dr[..., :, m:]
    du = dr[..., :, :m]
    dy = matmul(q, dv)
    dx = _qr_grad_deep(q, u, dq + matmul(y, dv, adjoint_b=True), du)
    return concat([dx, dy], axis=-1)


_qr = Primitive("Qr", _qr_fwd, n_out=0)
defvjp(_qr, _qr_vjp)


def qr(input, full_matrices=False, name=None) -> tuple[Tensor, Tensor]:
    """QR decomposition ``input = q @ r`` of each matrix (follows `tf.linalg.qr`).

    Args:
        input: shape ``[..., M, N]``, float16 (computed in float32), float32, float64,
            complex64 or complex128.
        full_matrices: return the full ``q`` ``[..., M, M]`` and ``r`` ``[..., M, N]``
            instead of the reduced ``[..., M, P]`` and ``[..., P, N]``, ``P = min(M, N)``.

    Returns:
        ``(q, r)``: ``q`` with orthonormal columns, ``r`` upper triangular. Differentiable
        (TensorFlow's QrGrad) except for ``full_matrices=True`` with ``M > N``.

    Raises:
        InvalidArgumentError: rank below 2.
        TypeError: an integer dtype.
        NotImplementedError: (in the gradient) ``full_matrices=True`` with ``M > N``, as
            TensorFlow.

    >>> q, r = ek.linalg.qr([[3.0, 1.0], [4.0, 2.0]])
    >>> bool(ek.reduce_all(abs(ek.matmul(q, r) - [[3.0, 1.0], [4.0, 2.0]]) < 1e-5))
    True
    """
    a = float_matrix(input, "qr", "Qr", square=False, complex_ok=True)
    return apply(_qr, (a,), {"full_matrices": bool(full_matrices)})


# -- eigh ---------------------------------------------------------------------------------------


def _eigh_fwd(xp, a):
    # The lower triangle is read (UPLO="L"), as in TensorFlow, which fails on a NaN there
    # (LAPACK returns garbage instead).
    if xp.isnan(xp.tril(a)).any():
        raise _lapack_failed("eigh", "SelfAdjointEigV2", a)
    try:
        e, v = xp.linalg.eigh(a.astype(lapack_dtype(a), copy=False))
    except np.linalg.LinAlgError:
        raise _lapack_failed("eigh", "SelfAdjointEigV2", a) from None
    return e.astype(a.dtype, copy=False), v.astype(a.dtype, copy=False)


def _symmetric_lower(grad_a: Tensor) -> Tensor:
    # The forward op only reads the lower triangle: symmetrize and keep it (as TF does).
    grad_a = band_part(grad_a + _adj(grad_a), -1, 0)
    return set_diag(grad_a, 0.5 * diag_part(grad_a))


def _eigh_vjp(g, ans, a):
    # TensorFlow's SelfAdjointEigV2Grad.
    grad_e, grad_v = g
    e, v = ans
    f = eigen_gaps(e)
    inner = diag(grad_e) + f * matmul(v, grad_v, adjoint_a=True)
    return _symmetric_lower(matmul(v, matmul(inner, v, adjoint_b=True)))


_eigh = Primitive("SelfAdjointEigV2", _eigh_fwd, n_out=0)
defvjp(_eigh, _eigh_vjp)


def eigh(tensor, name=None) -> tuple[Tensor, Tensor]:
    """Eigen decomposition of each self-adjoint (Hermitian) matrix (follows `tf.linalg.eigh`).

    Args:
        tensor: shape ``[..., N, N]``; only its lower triangle is read (as in TensorFlow).
            float16 (computed in float32), float32, float64, complex64 or complex128.

    Returns:
        ``(e, v)``: eigenvalues ``[..., N]`` in ascending order and eigenvectors
        ``[..., N, N]`` as columns, ``tensor = v @ diag(e) @ v^H``; both of ``tensor``'s
        dtype (complex eigenvalues with a zero imaginary part for complex input, as in
        TensorFlow). Differentiable (TensorFlow's SelfAdjointEigV2Grad, a lower-triangular
        cotangent): exact for distinct eigenvalues and losses that do not depend on the sign
        (phase) of each eigenvector.

    Raises:
        InvalidArgumentError: a matrix that is not square, or no convergence.
        TypeError: an integer dtype.

    >>> e, v = ek.linalg.eigh([[2.0, 1.0], [1.0, 2.0]])
    >>> e.numpy()
    array([1., 3.], dtype=float32)
    """
    a = float_matrix(tensor, "eigh", "SelfAdjointEigV2", "tensor", complex_ok=True)
    return apply(_eigh, (a,))


def _eigvalsh_fwd(xp, a):
    return _eigh_fwd(xp, a)[0]


def _eigvalsh_vjp(g, ans, a):
    # TensorFlow's SelfAdjointEigV2Grad with compute_v=False: V diag(g) V^H, V recomputed.
    _, v = eigh(a)
    return _symmetric_lower(matmul(v, matmul(diag(g), v, adjoint_b=True)))


_eigvalsh = Primitive("SelfAdjointEigV2", _eigvalsh_fwd)
defvjp(_eigvalsh, _eigvalsh_vjp)


def eigvalsh(tensor, name=None) -> Tensor:
    """The eigenvalues of each self-adjoint (Hermitian) matrix, ascending (follows
    `tf.linalg.eigvalsh`).

    Args:
        tensor: shape ``[..., N, N]``; only its lower triangle is read. float16, float32,
            float64, complex64 or complex128.

    Returns:
        Shape ``[..., N]``, ``tensor``'s dtype (a zero imaginary part for complex input, as
        in TensorFlow). Differentiable: ``V diag(g) V^H`` (TensorFlow's gradient).

    Raises:
        InvalidArgumentError: a matrix that is not square. TypeError: an integer dtype.

    >>> ek.linalg.eigvalsh([[2.0, 1.0], [1.0, 2.0]]).numpy()
    array([1., 3.], dtype=float32)
    """
    a = float_matrix(tensor, "eigvalsh", "SelfAdjointEigV2", "tensor", complex_ok=True)
    return apply(_eigvalsh, (a,))


# -- pinv, lstsq --------------------------------------------------------------------------------


def pinv(a, rcond=None, validate_args=False, name=None) -> Tensor:
    """The Moore-Penrose pseudo-inverse of each matrix, from its SVD (follows
    `tf.linalg.pinv`).

    Singular values at most ``rcond * max(s)`` are treated as zero.

    Args:
        a: shape ``[..., M, N]``, float32 or float64 (float16 computed in float32).
        rcond: the cutoff; default ``10 * max(M, N) * eps`` of the dtype (TensorFlow's).
        validate_args: check that ``a`` is a floating matrix (always done here).

    Returns:
        Shape ``[..., N, M]``. Differentiable through `svd`.

    Raises:
        InvalidArgumentError: rank below 2. TypeError: an integer or complex dtype.

    >>> ek.linalg.pinv([[1.0, 0.0], [0.0, 0.0]]).numpy()
    array([[1., 0.],
           [0., 0.]], dtype=float32)
    """
    x = float_matrix(a, "pinv", "Svd", "a", square=False)
    if rcond is not None and not isinstance(rcond, (numbers.Real, Tensor)):
        raise TypeError(f"pinv: rcond must be a number or a tensor, got {rcond!r}.")
    return _pinv(x, rcond)


def _pinv(x: Tensor, rcond) -> Tensor:
    """`pinv` of a checked matrix, also complex (for `lstsq`; TensorFlow's pinv refuses it)."""
    from .array_ops import expand_dims
    from .elementwise import cast, where
    from .reduction import reduce_max

    m, n = x._value.shape[-2:]
    if rcond is None:
        rcond = 10.0 * max(m, n) * float(np.finfo(x._value.dtype).eps)
    s, u, v = svd(x)
    cutoff = rcond * reduce_max(s, axis=-1)
    s = where(s > expand_dims(cutoff, -1), s, np.inf)
    return matmul(v / cast(expand_dims(s, -2), x.dtype), u, adjoint_b=True)


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None) -> Tensor:
    """Least-squares solution of ``matrix @ x = rhs`` (follows `tf.linalg.lstsq`).

    With ``fast=True`` (TensorFlow's default) this solves the regularized normal equations
    with a Cholesky factorization: for ``M >= N``
    ``x = (A^H A + l2_regularizer I)^-1 A^H rhs``, else
    ``x = A^H (A A^H + l2_regularizer I)^-1 rhs`` (the minimum-norm solution). Gradients flow
    through `cholesky` and `triangular_solve`.

    Args:
        matrix: shape ``[..., M, N]``, float32, float64, complex64 or complex128 (float16
            computed in float32).
        rhs: shape ``[..., M, K]``, same dtype and batch dimensions.
        l2_regularizer: a non-negative scalar.
        fast: False computes the minimum-norm least-squares solution ``pinv(matrix) @ rhs``
            from the SVD instead (robust to rank-deficient matrices; TensorFlow uses a
            complete orthogonal decomposition, which gives the same solution), and takes no
            ``l2_regularizer``. It is differentiable through `svd` (TensorFlow's is not).

    Returns:
        ``x``, shape ``[..., N, K]``.

    Raises:
        InvalidArgumentError: shapes that do not fit, a negative ``l2_regularizer``, or a
            rank-deficient ``matrix`` with ``l2_regularizer=0`` and ``fast=True`` (the
            Cholesky factorization fails).
        ValueError: a nonzero ``l2_regularizer`` with ``fast=False``.
        NotImplementedError: complex128 with a nonzero ``l2_regularizer`` (TensorFlow's
            refusal, "due to poor accuracy").
        TypeError: an integer dtype, or dtypes that differ.

    >>> a = ek.constant([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> ek.linalg.lstsq(a, [[1.0], [1.0], [2.0]]).numpy().ravel()
    array([1., 1.], dtype=float32)
    """
    from .creation import eye

    a = float_matrix(matrix, "lstsq", "MatrixSolveLs", "matrix", square=False, complex_ok=True)
    b = tensor(rhs, "lstsq", a._value.dtype)
    if a._value.dtype != b._value.dtype:
        raise dtype_error("lstsq", (a, b), ("matrix", "rhs"))
    sa, sb = tuple(a._value.shape), tuple(b._value.shape)
    if len(sb) != len(sa) or sb[:-2] != sa[:-2] or sb[-2] != sa[-2]:
        raise InvalidArgumentError(
            None,
            "MatrixSolveLs",
            f"lstsq: rhs must have shape {(*sa[:-1], 'K')} for matrix of shape {sa}, got "
            f"shape {sb}.",
        )
    l2 = l2_regularizer.numpy().item() if isinstance(l2_regularizer, Tensor) else l2_regularizer
    if not isinstance(l2, numbers.Real) or not l2 >= 0:
        raise InvalidArgumentError(
            None,
            "MatrixSolveLs",
            f"lstsq: l2_regularizer must be a non-negative scalar, got {l2_regularizer!r}.",
        )
    if a.dtype.name == "complex128" and l2:
        raise NotImplementedError(
            "lstsq: matrix_solve_ls is disabled for complex128 with l2_regularizer != 0 (as "
            f"in TensorFlow, due to poor accuracy), got l2_regularizer={l2_regularizer!r}."
        )
    if not fast:
        if l2:
            # TensorFlow ignores l2_regularizer here; an argument is never silently ignored.
            raise ValueError(
                f"lstsq: l2_regularizer={l2_regularizer!r} has no effect with fast=False (the "
                "minimum-norm solution); pass l2_regularizer=0.0 or fast=True."
            )
        return matmul(_pinv(a, None), b)
    m, n = sa[-2:]
    overdetermined = m >= n
    gramian = matmul(a, a, adjoint_a=overdetermined, adjoint_b=not overdetermined)
    if l2:
        size = n if overdetermined else m
        gramian = gramian + float(l2) * eye(size, dtype=a.dtype)
    try:
        chol = cholesky(gramian)
    except InvalidArgumentError:
        raise InvalidArgumentError(
            None,
            "MatrixSolveLs",
            f"lstsq: Input matrix was rank deficient or ill-conditioned (shape {sa}). Try "
            "setting fast=False or provide a larger l2_regularizer > 0.",
        ) from None
    if overdetermined:
        return cholesky_solve(chol, matmul(a, b, adjoint_a=True))
    return matmul(a, cholesky_solve(chol, b), adjoint_a=True)


# -- lu -----------------------------------------------------------------------------------------


def _lu_fwd(xp, a, index_dtype):
    # Gaussian elimination with partial pivoting, one column at a time over the whole batch
    # (LAPACK's getrf is not in NumPy's API).
    n = a.shape[-1]
    lu = a.astype(lapack_dtype(a)).reshape(math.prod(a.shape[:-2]), n, n)
    count = lu.shape[0]
    perm = xp.broadcast_to(xp.arange(n), (count, n)).copy()
    batch = xp.arange(count)
    for k in range(n):
        piv = k + xp.argmax(xp.abs(lu[:, k:, k]), axis=1)
        row = lu[batch, k].copy()
        lu[batch, k] = lu[batch, piv]
        lu[batch, piv] = row
        index = perm[batch, k].copy()
        perm[batch, k] = perm[batch, piv]
        perm[batch, piv] = index
        pivot = lu[:, k, k]
        if not bool((pivot != 0).all()):
            raise InvalidArgumentError(None, "Lu", "lu: Input is not invertible.")
        lu[:, k + 1 :, k] /= pivot[:, None]
        lu[:, k + 1 :, k + 1 :] -= lu[:, k + 1 :, k, None] * lu[:, k, None, k + 1 :]
    return lu.reshape(a.shape).astype(a.dtype, copy=False), perm.reshape(a.shape[:-1]).astype(
        index_dtype
    )


_lu = Primitive("Lu", _lu_fwd, n_out=0)  # no gradient, as in TensorFlow


def lu(input, output_idx_type="int32", name=None) -> tuple[Tensor, Tensor]:
    """LU decomposition with partial pivoting of each square matrix (follows `tf.linalg.lu`).

    ``input[..., perm, :] = L @ U`` with ``L`` unit lower triangular and ``U`` upper
    triangular, returned packed in one matrix (``L`` below the diagonal, ``U`` on and above
    it).

    Args:
        input: shape ``[..., M, M]``, float16 (computed in float32), float32, float64,
            complex64 or complex128.
        output_idx_type: ``int32`` (default) or ``int64``, the dtype of ``perm``.

    Returns:
        ``(lu, perm)``: shapes ``[..., M, M]`` and ``[..., M]``. Not differentiable (as in
        TensorFlow: the tape raises LookupError).

    Raises:
        InvalidArgumentError: a matrix that is not square, or a singular one ("Input is not
            invertible.").
        TypeError: an integer dtype, or an index dtype other than int32/int64.

    >>> lu, perm = ek.linalg.lu([[1.0, 2.0], [3.0, 4.0]])
    >>> lu.numpy(), perm.numpy()
    (array([[3.        , 4.        ],
           [0.33333334, 0.6666666 ]], dtype=float32), array([1, 0], dtype=int32))
    """
    from ..core import dtypes

    a = float_matrix(input, "lu", "Lu", complex_ok=True)
    idx = dtypes.as_dtype(output_idx_type)
    if idx not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"lu: output_idx_type must be int32 or int64, got {idx.name}.")
    return apply(_lu, (a,), {"index_dtype": idx.as_numpy_dtype})


def _lu_parts(lower_upper, perm, op: str) -> tuple[Tensor, Tensor, Tensor]:
    """``(L, U, P)`` from `lu`'s packed factors, ``P @ input = L @ U``."""
    from .creation import one_hot, ones_like

    packed = float_matrix(lower_upper, op, "Lu", "lower_upper", complex_ok=True)
    p = tensor(perm, op)
    m = packed._value.shape[-1]
    if p._value.dtype.kind not in "iu" or tuple(p._value.shape) != tuple(packed._value.shape[:-1]):
        raise InvalidArgumentError(
            None,
            "Lu",
            f"{op}: perm must be an integer tensor of shape {tuple(packed._value.shape[:-1])} "
            f"for lower_upper of shape {tuple(packed._value.shape)}, got {p.dtype.name} of "
            f"shape {tuple(p._value.shape)}.",
        )
    lower = set_diag(band_part(packed, -1, 0), ones_like(diag_part(packed)))
    upper = band_part(packed, 0, -1)
    return lower, upper, one_hot(p, m, dtype=packed.dtype)


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None) -> Tensor:
    """The matrix whose `lu` factors are ``(lower_upper, perm)`` (follows
    `tf.linalg.lu_reconstruct`): ``P^T @ L @ U``.

    Args:
        lower_upper: shape ``[..., M, M]``, as returned by `lu`.
        perm: shape ``[..., M]``, integer, as returned by `lu`.
        validate_args: check the arguments (always done here).

    Returns:
        Shape ``[..., M, M]``. Differentiable in ``lower_upper``.

    Raises:
        InvalidArgumentError: shapes that do not fit. TypeError: a non-floating
            ``lower_upper``.

    >>> ek.linalg.lu_reconstruct(*ek.linalg.lu([[1.0, 2.0], [3.0, 4.0]])).numpy()
    array([[1., 2.],
           [3., 4.]], dtype=float32)
    """
    lower, upper, p = _lu_parts(lower_upper, perm, "lu_reconstruct")
    return matmul(p, matmul(lower, upper), transpose_a=True)


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None) -> Tensor:
    """Solves ``A @ x = rhs`` given `lu`'s factors of ``A`` (follows `tf.linalg.lu_solve`):
    two triangular solves, differentiable through them.

    Args:
        lower_upper, perm: `lu`'s outputs for ``A``, shapes ``[..., M, M]`` and ``[..., M]``.
        rhs: shape ``[..., M, K]``, the dtype of ``lower_upper``.
        validate_args: check the arguments (always done here).

    Returns:
        ``x``, shape ``[..., M, K]``.

    Raises:
        InvalidArgumentError: shapes that do not fit. TypeError: dtypes that differ.

    >>> lu, perm = ek.linalg.lu([[1.0, 2.0], [3.0, 4.0]])
    >>> ek.linalg.lu_solve(lu, perm, [[5.0], [11.0]]).numpy().ravel()
    array([1., 2.], dtype=float32)
    """
    lower, upper, p = _lu_parts(lower_upper, perm, "lu_solve")
    y = triangular_solve(lower, matmul(p, tensor(rhs, "lu_solve", lower._value.dtype)))
    return triangular_solve(upper, y, lower=False)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None) -> Tensor:
    """The inverse of ``A`` from `lu`'s factors (follows `tf.linalg.lu_matrix_inverse`).

    Args:
        lower_upper, perm: `lu`'s outputs for ``A``, shapes ``[..., M, M]`` and ``[..., M]``.
        validate_args: check the arguments (always done here).

    Returns:
        Shape ``[..., M, M]``, differentiable in ``lower_upper``.

    >>> lu, perm = ek.linalg.lu([[2.0, 0.0], [0.0, 4.0]])
    >>> ek.linalg.lu_matrix_inverse(lu, perm).numpy()
    array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """
    from .creation import eye

    packed = float_matrix(lower_upper, "lu_matrix_inverse", "Lu", "lower_upper", complex_ok=True)
    shape = packed._value.shape
    identity = eye(shape[-1], batch_shape=shape[:-2], dtype=packed.dtype)
    return lu_solve(packed, perm, identity)


# -- normalize, tensor_diag, tensor_diag_part ------------------------------------------------------


def normalize(tensor, ord="euclidean", axis=None, name=None) -> tuple[Tensor, Tensor]:
    """``tensor`` divided by its norm, and the norm (follows `tf.linalg.normalize`).

    Args:
        tensor: a floating tensor.
        ord, axis: as in `ek.norm` (vector norms for ``axis`` None or an int, matrix norms
            for a pair of axes).

    Returns:
        ``(normalized, norm)``: ``tensor``'s shape, and the norm with the reduced axes kept
        (length 1). A zero norm gives NaN, as in TensorFlow. Differentiable.

    Raises:
        ValueError: an unsupported ``ord`` or a bad ``axis``. TypeError: non-floating input.

    >>> x, n = ek.linalg.normalize([3.0, 4.0])
    >>> x.numpy(), n.numpy()
    (array([0.6, 0.8], dtype=float32), array([5.], dtype=float32))
    """
    x = _tensor(tensor, "normalize")
    n = norm(x, ord=ord, axis=axis, keepdims=True)
    return x / n, n


def tensor_diag(diagonal, name=None) -> Tensor:
    """A tensor with ``diagonal`` on its diagonal (follows `tf.linalg.tensor_diag`):
    ``output[i1, ..., ik, i1, ..., ik] = diagonal[i1, ..., ik]``, zero elsewhere.

    Args:
        diagonal: rank ``k >= 1``, any dtype.

    Returns:
        Rank ``2k``, shape ``diagonal.shape + diagonal.shape``. Differentiable.

    Raises:
        InvalidArgumentError: a scalar ``diagonal``.

    >>> ek.linalg.tensor_diag([1, 2]).numpy()
    array([[1, 0],
           [0, 2]], dtype=int32)
    """
    from .array_ops import reshape

    d = _tensor(diagonal, "tensor_diag")
    shape = tuple(d._value.shape)
    if not shape:
        raise InvalidArgumentError(
            None, "Diag", "tensor_diag: diagonal must have rank >= 1, got a scalar."
        )
    return reshape(diag(reshape(d, [-1])), shape + shape)


def tensor_diag_part(input, name=None) -> Tensor:
    """The diagonal of a rank-``2k`` tensor (follows `tf.linalg.tensor_diag_part`):
    ``output[i1, ..., ik] = input[i1, ..., ik, i1, ..., ik]``.

    Args:
        input: shape ``[D1, ..., Dk, D1, ..., Dk]``, ``k >= 1``, any dtype.

    Returns:
        Shape ``[D1, ..., Dk]``. Differentiable.

    Raises:
        InvalidArgumentError: an odd rank, a scalar, or two halves of the shape that differ.

    >>> ek.linalg.tensor_diag_part([[1, 2], [3, 4]]).numpy()
    array([1, 4], dtype=int32)
    """
    from .array_ops import reshape

    x = _tensor(input, "tensor_diag_part")
    shape = tuple(x._value.shape)
    k = len(shape) // 2
    if not shape or len(shape) % 2 or shape[:k] != shape[k:]:
        raise InvalidArgumentError(
            None,
            "DiagPart",
            "tensor_diag_part: input must have an even rank >= 2 and a shape "
            f"[D1, ..., Dk, D1, ..., Dk], got shape {shape}.",
        )
    n = int(np.prod(shape[:k]))
    return reshape(diag_part(reshape(x, [n, n])), shape[:k])
