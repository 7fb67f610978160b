"""`ek.linalg.LinearOperatorTridiag` (follows `tf.linalg.LinearOperatorTridiag`): a [batch]
square tridiagonal matrix kept as its three diagonals.

Products and solves run on the diagonals (`tridiagonal_matmul`, `tridiagonal_solve`: O(N)
per column); the determinant is taken from the dense matrix. Every method is made of
differentiable ops. eagerkernel has no general ``LinearOperator`` base class: this class
offers the `tf.linalg.LinearOperator` methods that make sense for it.
"""

from __future__ import annotations

import numpy as np

from ..core.tensor import Tensor, TensorShape, convert_to_tensor
from .array_ops import broadcast_to, concat, pad, stack
from .complex_ops import conj
from .linalg_structured import tridiagonal_matmul, tridiagonal_solve
from .matrix_ops import adjoint as _matrix_adjoint
from .matrix_ops import det, diag_part, slogdet

__all__ = ["LinearOperatorTridiag"]


class LinearOperatorTridiag:
    """A [batch] ``N x N`` tridiagonal matrix ``A`` that is not materialized (follows
    `tf.linalg.LinearOperatorTridiag`).

    Args:
        diagonals: in ``diagonals_format``: ``"compact"`` (default), a ``[..., 3, N]`` tensor
            of superdiagonal, diagonal and subdiagonal rows (the superdiagonal's last and the
            subdiagonal's first entries are ignored); ``"sequence"``, ``[superdiag, diag,
            subdiag]``, each ``[..., N]`` (or ``[..., N - 1]`` for the off-diagonals);
            ``"matrix"``, ``[..., N, N]`` matrices (entries off the three diagonals ignored).
            float32, float64, complex64 or complex128.
        is_non_singular, is_self_adjoint, is_positive_definite, is_square: hints, not checked
            (``is_square`` must not be False).
        name: the operator's name.

    Raises:
        ValueError: an unknown ``diagonals_format``, a malformed ``diagonals``, or
            ``is_square=False``.

    >>> op = LinearOperatorTridiag([[3., 4., 5.], [1., -1., 2.], [6., 7., 8.]],
    ...                            diagonals_format="sequence")
    >>> op.to_dense().numpy()
    array([[ 1.,  3.,  0.],
           [ 7., -1.,  4.],
           [ 0.,  8.,  2.]], dtype=float32)
    >>> round(float(op.log_abs_determinant()), 5)
    4.33073
    """

    def __init__(
        self,
        diagonals,
        diagonals_format="compact",
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorTridiag",
    ):
        if is_square is False:
            raise ValueError("A tridiagonal operator is always square.")
        if diagonals_format not in ("compact", "sequence", "matrix"):
            raise ValueError(
                "Diagonals Format must be one of compact, matrix, sequence. "
                f"Received: diagonals_format={diagonals_format!r}"
            )
        self._diagonals = diagonals
        self._diagonals_format = diagonals_format
        self._compact = _to_compact(diagonals, diagonals_format)
        self.is_non_singular = is_non_singular
        self.is_self_adjoint = is_self_adjoint
        self.is_positive_definite = is_positive_definite
        self.is_square = True
        self.name = name

    # -- properties ----------------------------------------------------------------------
    @property
    def diagonals(self):
        """The diagonals as given (in `diagonals_format`)."""
        return self._diagonals

    @property
    def diagonals_format(self) -> str:
        """``"compact"``, ``"matrix"`` or ``"sequence"``: how `diagonals` is laid out."""
        return self._diagonals_format

    @property
    def dtype(self):
        """The dtype of the operator's entries."""
        return self._compact.dtype

    @property
    def shape(self) -> TensorShape:
        """``batch_shape + [N, N]``."""
        n = self._compact.shape[-1]
        return TensorShape([*self._compact.shape[:-2], n, n])

    @property
    def batch_shape(self) -> TensorShape:
        """The leading (batch) dimensions, before the ``[N, N]`` matrix ones."""
        return TensorShape(self._compact.shape[:-2])

    @property
    def domain_dimension(self):
        """``N``: the size of the vectors the operator takes."""
        return self.shape[-1]

    @property
    def range_dimension(self):
        """``N``: the size of the vectors the operator gives."""
        return self.shape[-2]

    @property
    def tensor_rank(self) -> int:
        """The rank of the dense matrix: ``len(batch_shape) + 2``."""
        return self.shape.rank

    def shape_tensor(self, name="shape_tensor") -> Tensor:
        """The shape as an int32 Tensor (``[*batch_shape, N, N]``)."""
        return convert_to_tensor(list(self.shape), dtype="int32")

    # -- methods -------------------------------------------------------------------------
    def to_dense(self, name="to_dense") -> Tensor:
        """The ``[..., N, N]`` matrix (in the "matrix" format, ``diagonals`` itself, entries off
        the three diagonals included, as TensorFlow returns it)."""
        if self._diagonals_format == "matrix":
            return convert_to_tensor(self._diagonals, dtype=self.dtype)
        n = self._compact.shape[-1]
        eye = np.broadcast_to(np.eye(n, dtype=self.dtype.as_numpy_dtype), self.shape)
        return tridiagonal_matmul(self._compact, eye)

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul") -> Tensor:
        """``A @ x`` (``A^H`` with ``adjoint``; ``x^H`` with ``adjoint_arg``), batch dims
        broadcast. ``x``: ``[..., N, R]``."""
        if isinstance(x, LinearOperatorTridiag):
            x = x.to_dense()
        x = convert_to_tensor(x, dtype=self.dtype)
        if adjoint_arg:
            x = _matrix_adjoint(x)
        diags, x = self._broadcast(self._adjoint_compact() if adjoint else self._compact, x)
        return tridiagonal_matmul(diags, x)

    def __matmul__(self, other) -> Tensor:
        return self.matmul(other)

    def matvec(self, x, adjoint=False, name="matvec") -> Tensor:
        """``A @ x`` for vectors ``x`` ``[..., N]``."""
        x = convert_to_tensor(x, dtype=self.dtype)
        return self.matmul(x[..., None], adjoint=adjoint)[..., 0]

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve") -> Tensor:
        """``X`` with ``A X = rhs`` (``A^H X = rhs`` with ``adjoint``), by the tridiagonal
        solver (partial pivoting), batch dims broadcast. ``rhs``: ``[..., N, R]``."""
        rhs = convert_to_tensor(rhs, dtype=self.dtype)
        if adjoint_arg:
            rhs = _matrix_adjoint(rhs)
        diags, rhs = self._broadcast(self._adjoint_compact() if adjoint else self._compact, rhs)
        return tridiagonal_solve(diags, rhs)

    def solvevec(self, rhs, adjoint=False, name="solve") -> Tensor:
        """`solve` for vectors ``rhs`` ``[..., N]``."""
        rhs = convert_to_tensor(rhs, dtype=self.dtype)
        return self.solve(rhs[..., None], adjoint=adjoint)[..., 0]

    def determinant(self, name="det") -> Tensor:
        """The determinant of each matrix, ``batch_shape``."""
        return det(self.to_dense())

    def log_abs_determinant(self, name="log_abs_det") -> Tensor:
        """``log |det|`` of each matrix, ``batch_shape``."""
        return slogdet(self.to_dense())[1]

    def diag_part(self, name="diag_part") -> Tensor:
        """The main diagonal, ``[*batch_shape, N]``."""
        return self._compact[..., 1, :]

    def trace(self, name="trace") -> Tensor:
        """The sum of the main diagonal, ``batch_shape``."""
        from .reduction import reduce_sum

        return reduce_sum(self.diag_part(), axis=-1)

    def adjoint(self, name=None) -> LinearOperatorTridiag:
        """The operator ``A^H`` (its diagonals in the compact format)."""
        return LinearOperatorTridiag(
            self._adjoint_compact(),
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
        )

    H = property(adjoint)

    def inverse(self):
        """Not provided (TF returns another LinearOperator).

        Raises:
            NotImplementedError: always; use `solve` or ``ek.linalg.inv(to_dense())``.
        """
        raise NotImplementedError(
            "LinearOperatorTridiag.inverse: eagerkernel has no general LinearOperator "
            "classes; use ek.linalg.inv(operator.to_dense()) or operator.solve(rhs)."
        )

    def __repr__(self) -> str:
        return (
            f"<ek.linalg.LinearOperatorTridiag '{self.name}' shape={self.shape} "
            f"dtype={self.dtype.name}>"
        )

    # -- helpers -------------------------------------------------------------------------
    def _adjoint_compact(self) -> Tensor:
        """The compact diagonals of ``A^H``: the conjugated off-diagonals swap places."""
        sup, main, sub = (self._compact[..., i, :] for i in range(3))
        rank = sup.shape.rank
        new_sup = pad(sub[..., 1:], [[0, 0]] * (rank - 1) + [[0, 1]])
        new_sub = pad(sup[..., :-1], [[0, 0]] * (rank - 1) + [[1, 0]])
        out = stack([new_sup, main, new_sub], axis=-2)
        return conj(out) if self.dtype.is_complex else out

    @staticmethod
    def _broadcast(diags: Tensor, x: Tensor):
        batch = np.broadcast_shapes(tuple(diags.shape[:-2]), tuple(x.shape[:-2]))
        if tuple(diags.shape[:-2]) != batch:
            diags = broadcast_to(diags, [*batch, *diags.shape[-2:]])
        if tuple(x.shape[:-2]) != batch:
            x = broadcast_to(x, [*batch, *x.shape[-2:]])
        return diags, x


def _to_compact(diagonals, diagonals_format: str) -> Tensor:
    """``[..., 3, N]`` from any of the three formats (differentiable ops)."""
    if diagonals_format == "compact":
        out = convert_to_tensor(diagonals, dtype_hint="float32")
        if out.shape.rank < 2 or out.shape[-2] != 3:
            raise ValueError(
                "LinearOperatorTridiag: compact diagonals must have shape [..., 3, N]. "
                f"Received: shape {out.shape}."
            )
        return out
    if diagonals_format == "matrix":
        m = convert_to_tensor(diagonals, dtype_hint="float32")
        if m.shape.rank < 2 or m.shape[-1] != m.shape[-2]:
            raise ValueError(
                f"LinearOperatorTridiag: matrix diagonals must be [..., N, N]. Received: "
                f"shape {m.shape}."
            )
        rank = m.shape.rank - 1
        sup = pad(diag_part(m[..., :-1, 1:]), [[0, 0]] * (rank - 1) + [[0, 1]])
        sub = pad(diag_part(m[..., 1:, :-1]), [[0, 0]] * (rank - 1) + [[1, 0]])
        return stack([sup, diag_part(m), sub], axis=-2)
    if not isinstance(diagonals, (list, tuple)) or len(diagonals) != 3:
        raise ValueError(
            "LinearOperatorTridiag: sequence diagonals must be [superdiag, diag, subdiag]."
        )
    main = convert_to_tensor(diagonals[1], dtype_hint="float32")
    sup, sub = (convert_to_tensor(d, dtype=main.dtype) for d in (diagonals[0], diagonals[2]))
    n, rank = main.shape[-1], main.shape.rank
    if sup.shape[-1] == n - 1:
        sup = concat([sup, sup[..., :1] * 0], axis=-1)
    if sub.shape[-1] == n - 1:
        sub = concat([sub[..., :1] * 0, sub], axis=-1)
    if sup.shape[-1] != n or sub.shape[-1] != n or rank < 1:
        raise ValueError(
            f"LinearOperatorTridiag: the off-diagonals must have length {n} or {n - 1}. "
            f"Received: {sup.shape} and {sub.shape}."
        )
    return stack([sup, main, sub], axis=-2)
