"""The general eigen decomposition and the rank: `eig`, `eigvals` and `matrix_rank` (follow the
`tf.linalg` functions).

`eig` runs LAPACK's ``geev`` through NumPy on the host (float32/complex64 input computed in
double precision, rounded once to complex64). Its VJP is TensorFlow's EigGrad
(``linalg_grad.py``, after Boeddeker et al., eq. 4.77): exact for distinct eigenvalues and
losses that do not depend on each eigenvector's phase. It solves with the adjoint of the
eigenvector matrix, with a solve primitive of its own here.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..core.dispatch import Primitive, defjointvjp, defvjp
from ..core.errors import InvalidArgumentError, UnsupportedDTypeError
from ..core.tensor import Tensor
from ._core import apply, tensor
from .complex_ops import conj, real
from .elementwise import cast
from .linalg import matmul, matrix_transpose
from .matrix_decompositions import eigen_gaps, svd
from .matrix_ops import diag, diag_part
from .reduction import reduce_max, reduce_sum

__all__ = ["eig", "eigvals", "matrix_rank"]

_OUT = {"float32": np.complex64, "complex64": np.complex64}  # else complex128


def _host(xp, a):
    return a if xp is np else xp.asnumpy(a)


def _back(xp, a):
    return a if xp is np else xp.asarray(a)


def adjoint(x: Tensor) -> Tensor:
    """The conjugate transpose of each matrix."""
    return conj(matrix_transpose(x))


# -- a complex solve for the VJPs ----------------------------------------------------------------


def _solve_fwd(xp, matrix, rhs):
    return xp.linalg.solve(matrix, rhs)


def _solve_vjp(g, ans, matrix, rhs):
    # TensorFlow's MatrixSolveGrad: adjoint solves.
    grad_rhs = apply(_solve, (adjoint(matrix), g))
    return -matmul(grad_rhs, adjoint(ans)), grad_rhs


_solve = Primitive("MatrixSolve", _solve_fwd)
defjointvjp(_solve, _solve_vjp)


# -- eig, eigvals --------------------------------------------------------------------------------


def _eig_fwd(xp, a, vectors):
    host = _host(xp, a)
    out = _OUT.get(host.dtype.name, np.complex128)
    wide = host.astype(np.complex128 if host.dtype.kind == "c" else np.float64)
    try:
        if vectors:
            e, v = np.linalg.eig(wide)
        else:
            e = np.linalg.eigvals(wide)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError(
            None, "Eig", f"eig: the decomposition did not converge for input of shape {a.shape}."
        ) from None
    e = _back(xp, e.astype(out))
    return (e, _back(xp, v.astype(out))) if vectors else e


def _to_input(grad: Tensor, a: Tensor) -> Tensor:
    """TensorFlow's ``cast(grad_a, a.dtype)``: a real input gets the real part."""
    return grad if a.dtype.is_complex else cast(real(grad), a.dtype)


def _eig_vjp(g, ans, a, vectors):
    # TensorFlow's EigGrad with compute_v=True.
    grad_e, grad_v = g
    e, v = ans
    vt = adjoint(v)
    f = conj(eigen_gaps(e))  # f[i, j] = conj(1 / (e_j - e_i)), 0 on the diagonal
    vgv = matmul(vt, grad_v)
    diag_grad_part = diag(cast(real(diag_part(vgv)), vgv.dtype))
    mid = diag(grad_e) + f * (vgv - matmul(matmul(vt, v), diag_grad_part))
    return _to_input(apply(_solve, (vt, matmul(mid, vt))), a)


def _eigvals_vjp(g, ans, a, vectors):
    # TensorFlow's EigGrad with compute_v=False: the eigenvectors are recomputed.
    _, v = apply(_eig, (a,), {"vectors": True})
    vt = adjoint(v)
    return _to_input(apply(_solve, (vt, matmul(diag(g), vt))), a)


_eig = Primitive("Eig", _eig_fwd, n_out=0)
defvjp(_eig, _eig_vjp)
_eigvals = Primitive("Eig", _eig_fwd)
defvjp(_eigvals, _eigvals_vjp)


def _eig_input(x, op: str) -> Tensor:
    a = tensor(x, op)
    if a.dtype.name not in ("float32", "float64", "complex64", "complex128"):
        raise UnsupportedDTypeError(
            None,
            op,
            f"{op}: tensor must be float32, float64, complex64 or complex128, got {a.dtype.name}.",
        )
    s = tuple(a.shape)
    if len(s) < 2 or s[-1] != s[-2]:
        raise InvalidArgumentError(
            None, "Eig", f"{op}: input must be square matrices [..., N, N], got shape {s}."
        )
    return a


def eig(tensor, name=None) -> tuple[Tensor, Tensor]:
    """Eigenvalues and right eigenvectors of general square matrices (follows
    `tf.linalg.eig`): ``tensor @ v[..., :, i] = e[..., i] * v[..., :, i]``.

    Args:
        tensor: ``[..., N, N]``, float32, float64, complex64 or complex128.

    Returns:
        ``(e, v)``: eigenvalues ``[..., N]`` (in no particular order) and eigenvectors
        ``[..., N, N]`` as unit-norm columns, complex64 for float32/complex64 input and
        complex128 for float64/complex128. The phase of each eigenvector is not guaranteed
        to match TensorFlow's (any unit-modulus multiple is an eigenvector too), nor the
        order of the eigenvalues. Differentiable (TensorFlow's EigGrad): exact for distinct
        eigenvalues and losses that do not depend on the eigenvectors' phases.

    Raises:
        InvalidArgumentError: matrices that are not square, or no convergence.
        TypeError: other dtypes.

    >>> e, v = ek.linalg.eig([[2.0, 0.0], [0.0, 3.0]])
    >>> e.numpy()
    array([2.+0.j, 3.+0.j], dtype=complex64)
    """
    return apply(_eig, (_eig_input(tensor, "eig"),), {"vectors": True})


def eigvals(tensor, name=None) -> Tensor:
    """The eigenvalues of general square matrices (follows `tf.linalg.eigvals`).

    Args:
        tensor: ``[..., N, N]``, float32, float64, complex64 or complex128.

    Returns:
        ``[..., N]``, complex64 for float32/complex64 input and complex128 for
        float64/complex128, in no particular order. Differentiable (TensorFlow's EigGrad
        without eigenvectors: ``V^-H diag(g) V^H``).

    Raises:
        InvalidArgumentError: matrices that are not square, or no convergence.
        TypeError: other dtypes.

    >>> ek.linalg.eigvals([[0.0, -1.0], [1.0, 0.0]]).numpy()  # a rotation by 90 degrees
    array([0.+1.j, 0.-1.j], dtype=complex64)
    """
    return apply(_eigvals, (_eig_input(tensor, "eigvals"),), {"vectors": False})


# -- matrix_rank ---------------------------------------------------------------------------------


def matrix_rank(a, tol=None, validate_args=False, name=None) -> Tensor:
    """The number of singular values of each matrix above a tolerance (follows
    `tf.linalg.matrix_rank`).

    Args:
        a: ``[..., M, N]``, float16 (computed in float32), float32 or float64; a Python list
            of ints is converted to float32 (TensorFlow's dtype hint).
        tol: singular values at most ``tol`` count as zero; default TensorFlow's
            ``eps * max(M, N) * max(s)`` per matrix (``eps`` of ``a``'s dtype).
        validate_args: check ``a``'s rank and dtype (always done here).

    Returns:
        int32 ``[...]``. Not differentiable (a count).

    Raises:
        ValueError: rank below 2. TypeError: a complex or integer dtype, or a ``tol`` that
            is not a number or Tensor.

    >>> ek.linalg.matrix_rank([[1.0, 2.0], [2.0, 4.0]]).numpy()
    np.int32(1)
    """
    op = "matrix_rank"
    x = tensor(a, op, np.float32)
    if x.dtype.name not in ("float16", "float32", "float64"):
        raise UnsupportedDTypeError(
            None, op, f"{op}: input `a` must have a float dtype, got {x.dtype.name}."
        )
    if x.ndim < 2:
        raise ValueError(f"{op}: input `a` must have at least 2 dimensions, got shape {x.shape}.")
    s = svd(x, compute_uv=False)
    if tol is None:
        eps = float(np.finfo(x._value.dtype).eps)
        tol = eps * max(x.shape[-2:]) * reduce_max(s, axis=-1, keepdims=True)
    elif not isinstance(tol, (numbers.Real, Tensor)) or isinstance(tol, bool):
        raise TypeError(f"{op}: tol must be a number or a Tensor, got {tol!r}.")
    return reduce_sum(cast(s > tol, "int32"), axis=-1)
