"""Structured solvers and products: `tridiagonal_solve`, `tridiagonal_matmul`,
`banded_triangular_solve` and `eigh_tridiagonal` (follow the `tf.linalg` functions).

The forwards run on the host (a device array is copied there and back): the tridiagonal
solver is TensorFlow's CPU kernel (Gaussian elimination with partial pivoting as LAPACK's
``gtsv``, the Thomas algorithm without it, ``xLAGTF``/``xLAGTS`` with ``perturb_singular``)
vectorised over the batch; the banded solver is a substitution over the rows; the eigenvalues
of a tridiagonal matrix come from LAPACK's ``stebz``/``stemr`` through SciPy. The VJPs are
TensorFlow's (``linalg_grad.py``: TridiagonalSolveGrad, TridiagonalMatMulGrad,
BandedTriangularSolveGrad) written with public ops, so they are differentiable again.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..core.dispatch import Primitive, defjointvjp, dtype_error
from ..core.errors import InvalidArgumentError, UnsupportedDTypeError
from ..core.tensor import Tensor
from ._core import apply, tensor
from .array_ops import expand_dims, pad, reshape, squeeze, stack
from .complex_ops import conj_if_complex as _conj
from .complex_ops import real
from .creation import zeros_like
from .elementwise import cast, where
from .indexing import gather
from .linalg import matmul, matrix_transpose
from .math_ops import on_device_of
from .matrix_decompositions import eigen_gaps
from .matrix_ops import diag_part
from .reduction import reduce_sum

__all__ = [
    "banded_triangular_solve",
    "eigh_tridiagonal",
    "tridiagonal_matmul",
    "tridiagonal_solve",
]

_SOLVE_DTYPES = ("float32", "float64", "complex64", "complex128")


def _host(xp, a):
    return a if xp is np else xp.asnumpy(a)


def _back(xp, a):
    return a if xp is np else xp.asarray(a)


def _check_dtype(x: Tensor, op: str, arg: str, allowed=_SOLVE_DTYPES) -> None:
    if x.dtype.name not in allowed:
        raise UnsupportedDTypeError(
            None, op, f"{op}: {arg} must be one of {', '.join(allowed)}, got {x.dtype.name}."
        )


def _diagonals_of(dense: Tensor, offsets) -> Tensor:
    """``out[..., r, i] = dense[..., i, i + offsets[r]]`` (0 where that is outside the matrix):
    the 'LEFT_RIGHT'-aligned band of a ``[..., M, M]`` matrix, as a differentiable gather."""
    m = dense.shape[-1]
    rows = np.arange(m)
    cols = rows[None, :] + np.asarray(offsets)[:, None]
    valid = (cols >= 0) & (cols < m)
    flat_index = np.where(valid, rows[None, :] * m + cols, 0)
    flat = reshape(dense, (*dense.shape[:-2], m * m))
    xp = dense._device.xp
    index = on_device_of(xp.asarray(flat_index.astype(np.int64)), dense)
    out = gather(flat, index, axis=flat.ndim - 1)
    return where(on_device_of(xp.asarray(valid), dense), out, zeros_like(out))


# -- tridiagonal_solve ---------------------------------------------------------------------------


def _thomas(sup, dia, sub, b):
    m = dia.shape[1]
    x = np.empty_like(b)
    u = np.empty_like(dia)
    bad = dia[:, 0] == 0
    u[:, 0] = sup[:, 0] / dia[:, 0]
    x[:, 0] = b[:, 0] / dia[:, 0, None]
    for i in range(1, m):
        denom = dia[:, i] - sub[:, i] * u[:, i - 1]
        bad |= denom == 0
        u[:, i] = sup[:, i] / denom
        x[:, i] = (b[:, i] - sub[:, i, None] * x[:, i - 1]) / denom[:, None]
    for i in range(m - 2, -1, -1):
        x[:, i] -= u[:, i, None] * x[:, i + 1]
    return x, bad


def _pivoting(sup, dia, sub, b):
    # TensorFlow's SolveWithGaussianEliminationWithPivoting (LAPACK's dgtsv), every matrix of
    # the batch at once: u0, u1, u2 are U's diagonal and two superdiagonals.
    m = dia.shape[1]
    u0, u1, u2 = dia.copy(), np.zeros_like(dia), np.zeros_like(dia)
    u1[:, 0] = sup[:, 0]
    x = b.copy()
    bad = np.zeros(dia.shape[0], bool)
    for i in range(m - 1):
        keep = np.abs(u0[:, i]) >= np.abs(sub[:, i + 1])
        bad |= keep & (u0[:, i] == 0)
        f = np.where(keep, sub[:, i + 1] / np.where(keep, u0[:, i], 1), 0)
        f2 = np.where(keep, 0, u0[:, i] / np.where(keep, 1, sub[:, i + 1]))
        next_u0 = np.where(keep, dia[:, i + 1] - f * u1[:, i], u1[:, i] - f2 * dia[:, i + 1])
        next_x = np.where(
            keep[:, None], b[:, i + 1] - f[:, None] * x[:, i], x[:, i] - f2[:, None] * b[:, i + 1]
        )
        x[:, i] = np.where(keep[:, None], x[:, i], b[:, i + 1])
        x[:, i + 1] = next_x
        u0[:, i] = np.where(keep, u0[:, i], sub[:, i + 1])
        u1[:, i] = np.where(keep, u1[:, i], dia[:, i + 1])
        u0[:, i + 1] = next_u0
        if i != m - 2:
            u1[:, i + 1] = np.where(keep, sup[:, i + 1], -f2 * sup[:, i + 1])
            u2[:, i] = np.where(keep, 0, sup[:, i + 1])
    bad |= u0[:, m - 1] == 0
    x[:, m - 1] /= u0[:, m - 1, None]
    if m > 1:
        x[:, m - 2] = (x[:, m - 2] - u1[:, m - 2, None] * x[:, m - 1]) / u0[:, m - 2, None]
    for i in range(m - 3, -1, -1):
        x[:, i] = (x[:, i] - u1[:, i, None] * x[:, i + 1] - u2[:, i, None] * x[:, i + 2]) / u0[
            :, i, None
        ]
    return x, bad


def _perturb_pivot(perturb, pivot, row, real_dtype):
    """TensorFlow's MaybePerturbPivot (from LAPACK's xLAGTS): moves a tiny pivot away from 0."""
    info = np.finfo(real_dtype)
    one = real_dtype(1)
    small = one / info.max
    safemin = info.tiny if small < info.tiny else (one + info.eps) * small
    bignum = one / safemin
    abs_pivot = abs(pivot)
    if abs_pivot >= one:
        return pivot, row
    perturb = np.copysign(max(abs(perturb), safemin), np.real(pivot))
    max_factor = np.abs(row).max() if row.size else 0.0
    while abs_pivot < one:
        if abs_pivot < safemin:
            if abs_pivot == 0 or max_factor * safemin > abs_pivot:
                pivot, perturb = pivot + perturb, perturb * 2
            else:
                return pivot * bignum, row * bignum
        elif max_factor > abs_pivot * bignum:
            pivot, perturb = pivot + perturb, perturb * 2
        else:
            break
        abs_pivot = abs(pivot)
    return pivot, row


def _perturbed_one(sup, dia, sub, rhs):
    # TensorFlow's SolveWithGaussianEliminationWithPivotingAndPerturbSingular, one matrix.
    real = np.finfo(dia.dtype).dtype.type
    eps = np.finfo(dia.dtype).eps
    n = dia.shape[0]
    x = rhs.copy()
    if n == 1:
        denom, row = _perturb_pivot(eps * abs(dia[0]), dia[0], rhs[0].copy(), real)
        return row * (1 / denom)
    u = np.zeros((n, 3), dia.dtype)
    u[0, 0], u[0, 1] = dia[0], sup[0]
    max_abs_u = max(abs(u[0, 0]), abs(u[0, 1]))
    scale1 = abs(u[0, 0]) + abs(u[0, 1])
    for k in range(n - 1):
        u[k + 1, 0] = dia[k + 1]
        scale2 = abs(sub[k + 1]) + abs(u[k + 1, 0])
        if k < n - 2:
            scale2 += abs(sup[k + 1])
        if sub[k + 1] == 0:
            scale1 = scale2
            u[k + 1, 1] = sup[k + 1]
            u[k, 2] = 0
            x[k + 1] = rhs[k + 1]
        else:
            piv1 = 0.0 if u[k, 0] == 0 else abs(u[k, 0]) / scale1
            piv2 = abs(sub[k + 1]) / scale2
            if piv2 <= piv1:
                scale1 = scale2
                factor = sub[k + 1] / u[k, 0]
                u[k + 1, 0] = dia[k + 1] - factor * u[k, 1]
                u[k + 1, 1] = sup[k + 1]
                u[k, 2] = 0
                x[k + 1] = rhs[k + 1] - factor * x[k]
            else:
                factor = u[k, 0] / sub[k + 1]
                u[k, 0] = sub[k + 1]
                u[k + 1, 0] = u[k, 1] - factor * dia[k + 1]
                u[k, 1] = dia[k + 1]
                if k < n - 2:
                    u[k, 2] = sup[k + 1]
                    u[k + 1, 1] = -factor * sup[k + 1]
                x[k + 1] = x[k] - factor * rhs[k + 1]
                x[k] = rhs[k + 1]
        if k < n - 2:
            max_abs_u = max(max_abs_u, *np.abs(u[k]))
    max_abs_u = max(max_abs_u, abs(u[n - 1, 0]))
    tol = eps * max_abs_u
    denom, row = _perturb_pivot(tol, u[n - 1, 0], x[n - 1].copy(), real)
    x[n - 1] = row * (1 / denom)
    for k in range(n - 2, -1, -1):
        row = x[k] - u[k, 1] * x[k + 1] - (u[k, 2] * x[k + 2] if k < n - 2 else 0)
        denom, row = _perturb_pivot(np.copysign(tol, np.real(u[k, 0])), u[k, 0], row, real)
        x[k] = row * (1 / denom)
    return x


def _tridiagonal_solve_fwd(xp, diagonals, rhs, partial_pivoting, perturb_singular):
    d, b = _host(xp, diagonals), _host(xp, rhs)
    m, k = b.shape[-2:]
    if m == 0 or b.size == 0:
        return _back(xp, np.zeros(b.shape, b.dtype))
    d3 = d.reshape(-1, 3, m)
    b3 = b.reshape(-1, m, k)
    sup, dia, sub = d3[:, 0], d3[:, 1], d3[:, 2]
    with np.errstate(all="ignore"):
        if perturb_singular:
            x = np.stack([_perturbed_one(*ds, bs) for ds, bs in zip(zip(sup, dia, sub), b3)])
        else:
            x, bad = (_pivoting if partial_pivoting else _thomas)(sup, dia, sub, b3)
            x[bad] = np.nan  # TensorFlow's kernel: NaN for a matrix it cannot invert
    return _back(xp, x.reshape(b.shape).astype(b.dtype, copy=False))


def _transpose_tridiagonal(diags: Tensor) -> Tensor:
    """The compact diagonals of each matrix's transpose (TF's _TransposeTridiagonalMatrix)."""
    zero = [[0, 0]] * (diags.ndim - 2)
    superdiag = pad(diags[..., 2, 1:], [*zero, [0, 1]])
    subdiag = pad(diags[..., 0, :-1], [*zero, [1, 0]])
    return stack([superdiag, diags[..., 1, :], subdiag], axis=-2)


def _three_diagonals(x: Tensor, y: Tensor) -> Tensor:
    """The three diagonals of ``x @ y^T`` in compact form (TF's
    _MatmulExtractingThreeDiagonals), without the product."""
    zero = [[0, 0]] * (y.ndim - 2)
    y_up = pad(y[..., 1:, :], [*zero, [0, 1], [0, 0]])
    y_down = pad(y[..., :-1, :], [*zero, [1, 0], [0, 0]])
    return stack(
        [reduce_sum(x * y_up, -1), reduce_sum(x * y, -1), reduce_sum(x * y_down, -1)], axis=-2
    )


def _tridiagonal_solve_vjp(g, ans, diagonals, rhs, partial_pivoting, perturb_singular):
    # TensorFlow's TridiagonalSolveGrad (the transposed matrix, also for complex input).
    grad_rhs = apply(
        _tridiagonal_solve,
        (_transpose_tridiagonal(diagonals), g),
        {"partial_pivoting": partial_pivoting, "perturb_singular": perturb_singular},
    )
    return -_three_diagonals(grad_rhs, ans), grad_rhs


_tridiagonal_solve = Primitive("TridiagonalSolve", _tridiagonal_solve_fwd)
defjointvjp(_tridiagonal_solve, _tridiagonal_solve_vjp)


def _compact(diagonals, diagonals_format, op: str, dtype_hint=None) -> Tensor:
    """``diagonals`` in any of TensorFlow's three formats as a ``[..., 3, M]`` Tensor."""
    if diagonals_format == "compact":
        return tensor(diagonals, op, dtype_hint)
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (tuple, list)) or len(diagonals) != 3:
            raise ValueError(
                f"{op}: diagonals must be a sequence of length 3 (superdiagonal, diagonal, "
                f"subdiagonal) in the 'sequence' format, got {type(diagonals).__name__}"
                + (f" of length {len(diagonals)}." if isinstance(diagonals, (tuple, list)) else ".")
            )
        sup, main, sub = (tensor(t, op, dtype_hint) for t in diagonals)
        shapes = [tuple(t.shape) for t in (sup, main, sub)]
        if any(len(s) < 1 or s[:-1] != shapes[1][:-1] for s in shapes):
            raise ValueError(
                f"{op}: the three diagonals must have the same shape except for the last "
                f"dimension, got {shapes[0]}, {shapes[1]} and {shapes[2]}."
            )
        if len({t.dtype for t in (sup, main, sub)}) != 1:
            raise dtype_error(op, (sup, main, sub), ("superdiag", "maindiag", "subdiag"))
        m = shapes[1][-1]
        out = []
        for t, name, padding in ((sup, "superdiagonal", [0, 1]), (sub, "subdiagonal", [1, 0])):
            n = t.shape[-1]
            if n == m - 1 and op == "tridiagonal_solve":
                t = pad(t, [[0, 0]] * (t.ndim - 1) + [padding])
            elif n != m:
                lengths = f"{m} or {m - 1}" if op == "tridiagonal_solve" else f"{m}"
                raise ValueError(f"{op}: the {name} must have length {lengths}, got {n}.")
            out.append(t)
        return stack([out[0], main, out[1]], axis=-2)
    if diagonals_format == "matrix":
        a = tensor(diagonals, op, dtype_hint)
        s = tuple(a.shape)
        if len(s) < 2 or s[-1] != s[-2]:
            raise ValueError(
                f"{op}: diagonals must be square matrices [..., M, M] in the 'matrix' format, "
                f"got shape {s}."
            )
        return _diagonals_of(a, (1, 0, -1))
    raise ValueError(
        f"{op}: unrecognized diagonals_format {diagonals_format!r} (expected 'compact', "
        "'sequence' or 'matrix')."
    )


def tridiagonal_solve(
    diagonals,
    rhs,
    diagonals_format="compact",
    transpose_rhs=False,
    conjugate_rhs=False,
    name=None,
    partial_pivoting=True,
    perturb_singular=False,
) -> Tensor:
    """Solves tridiagonal systems ``A x = rhs`` (follows `tf.linalg.tridiagonal_solve`).

    Args:
        diagonals: the matrices ``A``, in one of three formats: ``"compact"`` (default), one
            ``[..., 3, M]`` tensor with rows superdiagonal, diagonal, subdiagonal (the
            superdiagonal's last and the subdiagonal's first element are ignored);
            ``"sequence"``, a list ``[superdiag, diag, subdiag]`` of ``[..., N]``,
            ``[..., M]``, ``[..., N]`` tensors with ``N`` = ``M`` or ``M - 1``; ``"matrix"``,
            ``[..., M, M]`` matrices (entries off the three diagonals are ignored). float32,
            float64, complex64 or complex128.
        rhs: ``[..., M]`` or ``[..., M, K]`` (``[..., K, M]`` with ``transpose_rhs``), same
            dtype and batch shape as ``diagonals``.
        transpose_rhs: transpose a matrix ``rhs`` first (no effect on a vector).
        conjugate_rhs: conjugate ``rhs`` first.
        partial_pivoting: Gaussian elimination with partial pivoting (default); without it,
            the Thomas algorithm (fails on a zero pivot).
        perturb_singular: perturb tiny pivots of a (numerically) singular matrix to give a
            finite result (as LAPACK's xLAGTS; needs ``partial_pivoting``).

    Returns:
        Shape ``[..., M]`` or ``[..., M, K]``. A matrix the algorithm cannot invert gives NaN
        (TensorFlow's CPU kernel logs a warning and returns NaN). Differentiable in both
        arguments (TensorFlow's TridiagonalSolveGrad).

    Raises:
        ValueError: an unknown format, shapes that do not fit (TensorFlow's checks), or
            ``perturb_singular`` without ``partial_pivoting``.
        TypeError: other dtypes, or dtypes that differ.

    >>> diags = [[1.0, 1.0, 0.0], [2.0, 2.0, 2.0], [0.0, 0.0, 0.0]]  # [[2, 1, 0], [0, 2, 1], ...]
    >>> ek.linalg.tridiagonal_solve(diags, [3.0, 3.0, 2.0]).numpy()
    array([1., 1., 1.], dtype=float32)
    """
    op = "tridiagonal_solve"
    if perturb_singular and not partial_pivoting:
        raise ValueError(f"{op}: partial_pivoting must be True if perturb_singular is.")
    d = _compact(diagonals, diagonals_format, op)
    b = tensor(rhs, op, d._value.dtype)
    _check_dtype(d, op, "diagonals")
    if b.dtype != d.dtype:
        raise dtype_error(op, (d, b), ("diagonals", "rhs"))
    dr, br = d.ndim, b.ndim
    if dr < 2:
        raise ValueError(f"{op}: diagonals must have rank at least 2, got shape {d.shape}.")
    if br not in (dr, dr - 1):
        raise ValueError(
            f"{op}: rhs must have rank {dr - 1} or {dr} (diagonals have shape {d.shape}), got "
            f"shape {b.shape}."
        )
    if tuple(d.shape[:-2]) != tuple(b.shape[: dr - 2]):
        raise ValueError(
            f"{op}: batch shapes {tuple(d.shape[:-2])} (diagonals) and "
            f"{tuple(b.shape[: dr - 2])} (rhs) differ."
        )
    if d.shape[-2] != 3:
        raise ValueError(f"{op}: expected 3 diagonals, got {d.shape[-2]} (shape {d.shape}).")
    vector = br == dr - 1
    if conjugate_rhs:
        b = _conj(b)
    if vector:
        b = expand_dims(b, -1)
    elif transpose_rhs:
        b = matrix_transpose(b)
    if d.shape[-1] != b.shape[-2]:
        raise ValueError(
            f"{op}: the number of left-hand sides ({d.shape[-1]}) and of right-hand sides "
            f"({b.shape[-2]}) differ."
        )
    params = {
        "partial_pivoting": bool(partial_pivoting),
        "perturb_singular": bool(perturb_singular),
    }
    x = apply(_tridiagonal_solve, (d, b), params)
    return squeeze(x, -1) if vector else x


# -- tridiagonal_matmul --------------------------------------------------------------------------


def _tridiagonal_matmul_fwd(xp, diagonals, rhs):
    sup, main, sub = diagonals[..., 0, :], diagonals[..., 1, :], diagonals[..., 2, :]
    out = main[..., :, None] * rhs
    out[..., :-1, :] += sup[..., :-1, None] * rhs[..., 1:, :]
    out[..., 1:, :] += sub[..., 1:, None] * rhs[..., :-1, :]
    return out


def _tridiagonal_matmul_vjp(g, ans, diagonals, rhs):
    # TensorFlow's TridiagonalMatMulGrad: rhs's cotangent is A^H g.
    adjoint = _conj(_transpose_tridiagonal(diagonals))
    return _three_diagonals(g, _conj(rhs)), apply(_tridiagonal_matmul, (adjoint, g))


_tridiagonal_matmul = Primitive("TridiagonalMatMul", _tridiagonal_matmul_fwd)
defjointvjp(_tridiagonal_matmul, _tridiagonal_matmul_vjp)


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None) -> Tensor:
    """Multiplies tridiagonal matrices by matrices (follows `tf.linalg.tridiagonal_matmul`).

    Args:
        diagonals: the tridiagonal ``[..., M, M]`` matrices: ``"compact"`` (default), one
            ``[..., 3, M]`` tensor of superdiagonal, diagonal and subdiagonal rows;
            ``"sequence"``, ``[superdiag, diag, subdiag]``, each ``[..., M]``; ``"matrix"``,
            the matrices themselves (entries off the three diagonals are ignored). The
            superdiagonal's last and the subdiagonal's first elements are ignored. float32,
            float64, complex64 or complex128.
        rhs: ``[..., M, N]``, same dtype and batch shape.

    Returns:
        ``[..., M, N]``. Differentiable in both arguments (TensorFlow's
        TridiagonalMatMulGrad).

    Raises:
        ValueError: an unknown format, diagonals of the wrong shape.
        InvalidArgumentError: ``rhs`` of the wrong rank or shape.
        TypeError: other dtypes, or dtypes that differ.

    >>> diags = [[1.0, 1.0, 0.0], [2.0, 2.0, 2.0], [0.0, 1.0, 1.0]]
    >>> ek.linalg.tridiagonal_matmul(diags, [[1.0], [1.0], [1.0]]).numpy().ravel()
    array([3., 4., 3.], dtype=float32)
    """
    op = "tridiagonal_matmul"
    d = _compact(diagonals, diagonals_format, op)
    b = tensor(rhs, op, d._value.dtype)
    _check_dtype(d, op, "diagonals")
    if b.dtype != d.dtype:
        raise dtype_error(op, (d, b), ("diagonals", "rhs"))
    if d.ndim < 2 or d.shape[-2] != 3:
        raise ValueError(f"{op}: diagonals must have shape [..., 3, M], got {d.shape}.")
    if b.ndim != d.ndim or tuple(b.shape[:-2]) != tuple(d.shape[:-2]) or b.shape[-2] != d.shape[-1]:
        raise InvalidArgumentError(
            None,
            "TridiagonalMatMul",
            f"{op}: rhs must have shape [..., M, N] with the diagonals' batch shape and M = "
            f"{d.shape[-1]} (diagonals: {d.shape}), got {b.shape}.",
        )
    return apply(_tridiagonal_matmul, (d, b))


# -- banded_triangular_solve ---------------------------------------------------------------------


def _banded_offsets(k: int, lower: bool) -> tuple[int, ...]:
    """The diagonal offset each of the ``k`` band rows holds (TensorFlow's layout)."""
    return tuple(-j for j in range(k)) if lower else tuple(k - 1 - r for r in range(k))


def _banded_solve_fwd(xp, bands, rhs, lower, adjoint):
    a, b = _host(xp, bands), _host(xp, rhs)
    dt = b.dtype
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, (*batch, *a.shape[-2:]))
    b = np.broadcast_to(b, (*batch, *b.shape[-2:]))
    k, m = a.shape[-2:]
    offsets = _banded_offsets(k, lower)
    diag_row = offsets.index(0)
    # coef(i, j): the matrix entry A[i, j] (or A^H's), read from the bands
    if not adjoint:

        def coef(i, j):
            return a[..., offsets.index(j - i), i]

    else:

        def coef(i, j):  # A^H[i, j] = conj(A[j, i])
            return np.conj(a[..., offsets.index(i - j), j])

    forward = lower != adjoint  # a lower triangular system is solved from the top
    diag = a[..., diag_row, :]
    if bool((diag == 0).any()):
        raise InvalidArgumentError(
            None,
            "BandedTriangularSolve",
            "banded_triangular_solve: Input matrix is not invertible.",
        )
    x = np.zeros_like(b)
    reach = min(k, m) - 1
    order = range(m) if forward else range(m - 1, -1, -1)
    for i in order:
        acc = b[..., i, :].copy()
        for step in range(1, reach + 1):
            j = i - step if forward else i + step
            if 0 <= j < m:
                acc -= coef(i, j)[..., None] * x[..., j, :]
        x[..., i, :] = acc / (np.conj(diag[..., i]) if adjoint else diag[..., i])[..., None]
    return _back(xp, x.astype(dt, copy=False))


def _banded_solve_vjp(g, ans, bands, rhs, lower, adjoint):
    # TensorFlow's BandedTriangularSolveGrad; the tape sums broadcast batch axes.
    grad_rhs = apply(_banded_solve, (bands, g), {"lower": lower, "adjoint": not adjoint})
    if adjoint:
        dense = -matmul(ans, _conj(grad_rhs), transpose_b=True)
    else:
        dense = -matmul(grad_rhs, _conj(ans), transpose_b=True)
    return _diagonals_of(dense, _banded_offsets(bands.shape[-2], lower)), grad_rhs


_banded_solve = Primitive("BandedTriangularSolve", _banded_solve_fwd)
defjointvjp(_banded_solve, _banded_solve_vjp)


def banded_triangular_solve(bands, rhs, lower=True, adjoint=False, name=None) -> Tensor:
    """Solves triangular systems whose matrices are given by their bands (follows
    `tf.linalg.banded_triangular_solve`).

    Args:
        bands: ``[..., K, M]``: the ``K`` stored diagonals of ``[M, M]`` triangular matrices,
            'LEFT_RIGHT' aligned. With ``lower`` row 0 is the diagonal and row ``j`` the
            ``j``-th subdiagonal (``A[i, i - j] = bands[j, i]``); otherwise row ``K - 1`` is
            the diagonal and row ``K - 1 - j`` the ``j``-th superdiagonal
            (``A[i, i + j] = bands[K - 1 - j, i]``). float32, float64, complex64 or
            complex128 (TensorFlow has no float16 kernel on CPU).
        rhs: ``[..., M, N]``, same dtype; batch dimensions broadcast with ``bands``'.
        lower: whether the matrices are lower (default) or upper triangular.
        adjoint: solve with each matrix's adjoint (conjugate transpose) instead.

    Returns:
        ``[..., M, N]``. Differentiable in both arguments (TensorFlow's
        BandedTriangularSolveGrad; ``bands``' cotangent has the bands' layout).

    Raises:
        InvalidArgumentError: rank below 2, ``M`` that differ, batch shapes that do not
            broadcast, or a zero on the diagonal ("Input matrix is not invertible.").
        TypeError: other dtypes, or dtypes that differ.

    >>> bands = [[2.0, 3.0, 4.0], [1.0, 2.0, 3.0]]  # [[2, 0, 0], [2, 3, 0], [0, 3, 4]]
    >>> ek.linalg.banded_triangular_solve(bands, ek.ones([3, 1])).numpy().ravel()
    array([0.5 , 0.  , 0.25], dtype=float32)
    """
    op = "banded_triangular_solve"
    a = tensor(bands, op)
    b = tensor(rhs, op, a._value.dtype)
    _check_dtype(a, op, "bands")
    if a.dtype != b.dtype:
        raise dtype_error(op, (a, b), ("bands", "rhs"))
    sa, sb = tuple(a.shape), tuple(b.shape)
    problem = None
    if len(sa) < 2 or len(sb) < 2:
        problem = "bands and rhs must have rank >= 2"
    elif sa[-1] != sb[-2]:
        problem = f"bands' M ({sa[-1]}) and rhs' M ({sb[-2]}) differ"
    else:
        try:
            np.broadcast_shapes(sa[:-2], sb[:-2])
        except ValueError:
            problem = "batch shapes do not broadcast"
    if problem:
        raise InvalidArgumentError(
            None, "BandedTriangularSolve", f"{op}: {problem}: bands {sa}, rhs {sb}."
        )
    return apply(_banded_solve, (a, b), {"lower": bool(lower), "adjoint": bool(adjoint)})


# -- eigh_tridiagonal ----------------------------------------------------------------------------


def _eigh_tridiagonal_fwd(xp, alpha, beta, vectors, select, select_range, tol):
    import scipy.linalg

    a, b = _host(xp, alpha), _host(xp, beta)
    real = np.real(a).dtype
    d = np.real(a).astype(np.float64)  # float32 in float64: eigenvalues rounded once
    e = (np.abs(b) if b.dtype.kind == "c" else b).astype(np.float64)
    kwargs = {"select": select, "select_range": select_range, "check_finite": False}
    if tol is not None:
        kwargs.update(tol=tol, lapack_driver="stebz")
    if a.shape[0] == 1:  # LAPACK needs no work: the one eigenvalue is alpha
        inside = select == "a" or (
            select_range[0] <= 0 <= select_range[1]
            if select == "i"
            else select_range[0] < d[0] <= select_range[1]
        )
        w = d[:1] if inside else d[:0]
        v = np.ones((1, w.shape[0]), a.dtype)
    else:
        out = scipy.linalg.eigh_tridiagonal(d, e, eigvals_only=not vectors, **kwargs)
        w, v = (out, None) if not vectors else out
    w = w.astype(real, copy=False)
    if not vectors:
        return _back(xp, w)
    if b.dtype.kind == "c":
        # T = D S D^H with S real (|beta| off the diagonal) and D = diag(phases):
        # phase[i + 1] = phase[i] * conj(beta[i]) / |beta[i]|.
        with np.errstate(all="ignore"):
            unit = np.where(e == 0, 1, np.conj(b) / np.where(e == 0, 1, e))
        phases = np.concatenate([[1], np.cumprod(unit)])
        v = phases[:, None] * v
    return _back(xp, w), _back(xp, v.astype(a.dtype if a.dtype.kind == "c" else real))


def _tridiagonal_grads(w_grad: Tensor, v: Tensor, alpha: Tensor, beta: Tensor):
    """alpha's and beta's cotangents of eigenvalues with cotangent ``w_grad``: first-order
    perturbation theory, ``d lambda_k = v_k^H dT v_k``."""
    weights = expand_dims(w_grad, -2)  # [1, k]
    if v.dtype.is_complex:
        grad_alpha = reduce_sum(real(v * _conj(v)) * weights, -1)
        weights = cast(weights, v.dtype)
    else:
        grad_alpha = reduce_sum(v * v * weights, -1)
    grad_beta = 2 * reduce_sum(v[:-1, :] * _conj(v[1:, :]) * weights, -1)
    if alpha.dtype.is_complex:
        grad_alpha = cast(grad_alpha, alpha.dtype)
    return grad_alpha, grad_beta


def _eigh_tridiagonal_values_vjp(g, ans, alpha, beta, vectors, select, select_range, tol):
    params = {"vectors": True, "select": select, "select_range": select_range, "tol": tol}
    _, v = apply(_eigh_tridiagonal_vectors, (alpha, beta), params)
    return _tridiagonal_grads(g, v, alpha, beta)


def _eigh_tridiagonal_vectors_vjp(g, ans, alpha, beta, vectors, select, select_range, tol):
    g_w, g_v = g
    w, v = ans
    grad_alpha, grad_beta = _tridiagonal_grads(g_w, v, alpha, beta)
    if not bool((g_v._value != 0).any()):
        return grad_alpha, grad_beta
    if select != "a" or v.dtype.is_complex:
        raise NotImplementedError(
            "eigh_tridiagonal: the gradient of the eigenvectors is implemented for real input "
            "with select='a' only."
        )
    # The eigenvector part of TensorFlow's SelfAdjointEigV2Grad for the dense T, read back on
    # T's three diagonals (beta enters T twice).
    inner = eigen_gaps(w) * matmul(v, g_v, transpose_a=True)
    grad_t = matmul(v, matmul(inner, v, transpose_b=True))
    grad_alpha = grad_alpha + diag_part(grad_t)
    grad_beta = grad_beta + diag_part(grad_t, k=1) + diag_part(grad_t, k=-1)
    return grad_alpha, grad_beta


_eigh_tridiagonal_values = Primitive("EighTridiagonal", _eigh_tridiagonal_fwd)
defjointvjp(_eigh_tridiagonal_values, _eigh_tridiagonal_values_vjp)
_eigh_tridiagonal_vectors = Primitive("EighTridiagonal", _eigh_tridiagonal_fwd, n_out=0)
defjointvjp(_eigh_tridiagonal_vectors, _eigh_tridiagonal_vectors_vjp)


def eigh_tridiagonal(
    alpha, beta, eigvals_only=True, select="a", select_range=None, tol=None, name=None
):
    """Eigenvalues (and eigenvectors) of a Hermitian tridiagonal matrix (follows
    `tf.linalg.eigh_tridiagonal`).

    Args:
        alpha: ``[n]``, the diagonal (only its real part is read for complex input). float32,
            float64, complex64 or complex128.
        beta: ``[n - 1]``, the superdiagonal, same dtype (the subdiagonal is its conjugate).
        eigvals_only: return only the eigenvalues (default), else ``(eigvalues, vectors)``.
        select: ``"a"`` all eigenvalues, ``"i"`` those with indices ``select_range[0]`` to
            ``select_range[1]`` (inclusive, ascending order), ``"v"`` those in the interval
            ``(select_range[0], select_range[1]]``.
        select_range: the indices or interval for ``"i"``/``"v"``.
        tol: the absolute tolerance of the eigenvalues' bisection (LAPACK's ``stebz``; the
            results are within it, not bitwise TensorFlow's); None: machine precision.

    Returns:
        The eigenvalues ``[k]`` in ascending order, real (float32 for float32/complex64,
        float64 for float64/complex128); with ``eigvals_only=False`` also the orthonormal
        eigenvectors ``[n, k]`` as columns, in ``alpha``'s dtype (also for ``n = 1``, where
        TensorFlow 2.21 returns the eigenvalues alone). Each eigenvector's sign
        (phase for complex input) is not guaranteed to match TensorFlow's. Differentiable: the
        eigenvalues by first-order perturbation theory (``d lambda_k = v_k^H dT v_k``, exact
        for distinct eigenvalues), the eigenvectors for real input with ``select="a"``
        (TensorFlow's self-adjoint eigen gradient on the tridiagonal matrix). TensorFlow's own
        gradient runs through its bisection's bounds and is not the derivative.

    Raises:
        ValueError: ``alpha`` and ``beta`` of different dtypes, an unknown ``select``, a
            missing or empty ``select_range``, or shapes other than ``[n]`` and ``[n - 1]``.
        TypeError: an integer dtype.

    >>> ek.linalg.eigh_tridiagonal([2.0, 2.0], [1.0]).numpy()
    array([1., 3.], dtype=float32)
    """
    op = "eigh_tridiagonal"
    a = tensor(alpha, op)
    b = tensor(beta, op, a._value.dtype)
    if a.dtype != b.dtype:
        raise ValueError(
            f"{op}: 'alpha' and 'beta' must have the same type, got {a.dtype.name} and "
            f"{b.dtype.name}."
        )
    _check_dtype(a, op, "alpha")
    if a.ndim != 1 or b.ndim != 1 or b.shape[0] != max(a.shape[0] - 1, 0):
        raise ValueError(
            f"{op}: alpha must have shape [n] and beta shape [n - 1] (no batching, as "
            f"TensorFlow), got {a.shape} and {b.shape}."
        )
    if select not in ("a", "i", "v"):
        raise ValueError(f"{op}: select must be one of 'a', 'i', 'v', got {select!r}.")
    rng = None
    if select != "a":
        if select_range is None or len(select_range) != 2:
            raise ValueError(
                f"{op}: select={select!r} needs select_range=(low, high), got {select_range!r}."
            )
        lo, hi = (x.numpy().item() if isinstance(x, Tensor) else x for x in select_range)
        if select == "i":
            lo, hi = int(lo), int(hi)
            if not 0 <= lo <= hi < a.shape[0]:
                raise ValueError(
                    f"{op}: select_range must be indices 0 <= low <= high < {a.shape[0]} for "
                    f"select='i', got {select_range!r}."
                )
        elif not float(lo) < float(hi):
            raise ValueError(f"{op}: got empty interval in select_range {select_range!r}.")
        rng = (lo, hi) if select == "i" else (float(lo), float(hi))
    if tol is not None and not (isinstance(tol, numbers.Real) and tol >= 0):
        raise ValueError(f"{op}: tol must be a non-negative number or None, got {tol!r}.")
    if a.shape[0] == 0:
        raise ValueError(f"{op}: alpha must not be empty.")
    params = {
        "vectors": not eigvals_only,
        "select": select,
        "select_range": rng,
        "tol": None if not tol else float(tol),
    }
    if eigvals_only:
        return apply(_eigh_tridiagonal_values, (a, b), params)
    return apply(_eigh_tridiagonal_vectors, (a, b), params)
