"""Matrix functions: `expm`, `sqrtm` and `logm` (follow `tf.linalg.expm`, `tf.linalg.sqrtm` and
`tf.linalg.logm`), on SciPy.

Both run on the host (``scipy.linalg``; a device array is copied there and back) over the
innermost two axes, batched over the others. Their VJPs are the adjoint Fréchet derivatives:
for ``expm`` the Fréchet derivative of ``expm`` at ``A^H`` in the direction of the cotangent
(``scipy.linalg.expm_frechet``), for ``sqrtm`` the solution ``X`` of the Sylvester equation
``S^H X + X S^H = G`` (``scipy.linalg.solve_sylvester``). They are primitives of their own, so a
second derivative raises LookupError. ``logm`` has no gradient, as in TensorFlow (which
registers none for MatrixLogarithm): differentiating it raises LookupError.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.dispatch import Primitive, defvjp
from ..core.errors import InvalidArgumentError, UnsupportedDTypeError
from ..core.tensor import Tensor
from ._core import apply, float_check, tensor

__all__ = ["expm", "logm", "sqrtm"]


def _host(xp, a):
    return a if xp is np else xp.asnumpy(a)


def _batched(xp, fn, *arrays):
    """``fn`` applied to each matrix of the arrays' common leading axes, on the host."""
    host = [_host(xp, a) for a in arrays]
    lead = host[0].shape[:-2]
    # An explicit count: -1 is ambiguous when the matrices are 0 x 0.
    flat = [h.reshape((math.prod(h.shape[:-2]), *h.shape[-2:])) for h in host]
    out = np.stack([fn(*ms) for ms in zip(*flat)]) if flat[0].size else flat[0].copy()
    out = out.reshape((*lead, *out.shape[-2:])).astype(arrays[0].dtype, copy=False)
    return out if xp is np else xp.asarray(out)


def _scipy_linalg():
    try:
        import scipy.linalg
    except ImportError as exc:  # pragma: no cover (SciPy is a dependency)
        raise ImportError("expm/sqrtm need SciPy (pip install scipy).") from exc
    return scipy.linalg


def _expm_fwd(xp, a):
    return _batched(xp, _scipy_linalg().expm, a)


def _expm_grad_fwd(xp, a, g):
    linalg = _scipy_linalg()
    return _batched(xp, lambda m, d: linalg.expm_frechet(m.conj().T, d, compute_expm=False), a, g)


def _sqrtm_fwd(xp, a):
    sqrtm = _scipy_linalg().sqrtm

    def root(m):
        s = sqrtm(m)
        return s if m.dtype.kind == "c" else np.real_if_close(s)

    return _batched(xp, root, a)


def _sqrtm_grad_fwd(xp, s, g):
    linalg = _scipy_linalg()
    return _batched(xp, lambda m, d: linalg.solve_sylvester(m.conj().T, m.conj().T, d), s, g)


_expm = Primitive("MatrixExponential", _expm_fwd)
_expm_grad = Primitive("MatrixExponentialGrad", _expm_grad_fwd)
defvjp(_expm, lambda g, ans, a: apply(_expm_grad, (a, g)))
_sqrtm = Primitive("MatrixSquareRoot", _sqrtm_fwd)
_sqrtm_grad = Primitive("MatrixSquareRootGrad", _sqrtm_grad_fwd)
defvjp(_sqrtm, lambda g, ans, a: apply(_sqrtm_grad, (ans, g)))


def _logm_fwd(xp, a):
    logm = _scipy_linalg().logm
    return _batched(xp, lambda m: logm(m.astype(np.complex128)), a)


_logm = Primitive("MatrixLogarithm", _logm_fwd)  # no VJP, as in TensorFlow


def _square_input(input, op: str) -> Tensor:
    x = tensor(input, op)
    float_check(op, x, "input")
    if x.ndim < 2 or x._value.shape[-1] != x._value.shape[-2]:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: input must be square matrices (shape [..., M, M]), got shape "
            f"{tuple(x._value.shape)}.",
        )
    return x


def expm(input, name=None) -> Tensor:
    """The matrix exponential of each innermost ``[M, M]`` matrix (follows
    `tf.linalg.expm`); differentiable (the adjoint Fréchet derivative).

    Raises:
        TypeError: a non-floating input.
        InvalidArgumentError: matrices that are not square.

    >>> ek.linalg.expm(ek.constant([[0.0, 1.0], [0.0, 0.0]])).numpy()
    array([[1., 1.],
           [0., 1.]], dtype=float32)
    """
    return apply(_expm, (_square_input(input, "expm"),))


def sqrtm(input, name=None) -> Tensor:
    """The principal square root of each innermost ``[M, M]`` matrix (follows
    `tf.linalg.sqrtm`): ``S`` with ``S @ S == input``; differentiable (a Sylvester equation
    per matrix). A real matrix with a real square root gives a real result.

    Raises:
        TypeError: a non-floating input.
        InvalidArgumentError: matrices that are not square.

    >>> ek.linalg.sqrtm(ek.constant([[4.0, 0.0], [0.0, 9.0]])).numpy()
    array([[2., 0.],
           [0., 3.]], dtype=float32)
    """
    return apply(_sqrtm, (_square_input(input, "sqrtm"),))


def logm(input, name=None) -> Tensor:
    """The principal matrix logarithm of each innermost ``[M, M]`` matrix (follows
    `tf.linalg.logm`): ``L`` with ``expm(L) == input``.

    Args:
        input: ``[..., M, M]``, complex64 or complex128 only, as in TensorFlow (for a real
            matrix with a real logarithm, e.g. positive definite, cast it to complex, take
            the logarithm and keep the real part). Computed in complex128 (SciPy's
            inverse scaling and squaring), rounded to the input's dtype.

    Returns:
        ``input``'s shape and dtype. Not differentiable: TensorFlow registers no gradient
        for MatrixLogarithm, so a tape raises LookupError.

    Raises:
        TypeError: a real or integer input (TensorFlow's MatrixLogarithm has only complex
            kernels).
        InvalidArgumentError: matrices that are not square.

    >>> ek.linalg.logm(ek.constant([[1.0, 1.0], [0.0, 1.0]], ek.complex64)).numpy()
    array([[0.+0.j, 1.+0.j],
           [0.+0.j, 0.+0.j]], dtype=complex64)
    """
    x = tensor(input, "logm")
    if x.dtype.name not in ("complex64", "complex128"):
        raise UnsupportedDTypeError(
            None,
            "logm",
            f"logm: input must be complex64 or complex128 (TensorFlow's MatrixLogarithm has no "
            f"real kernel; cast with ek.cast(x, ek.complex64)), got {x.dtype.name}.",
        )
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise InvalidArgumentError(
            None,
            "MatrixLogarithm",
            f"logm: input must be square matrices (shape [..., M, M]), got shape "
            f"{tuple(x._value.shape)}.",
        )
    return apply(_logm, (x,))
