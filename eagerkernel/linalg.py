"""`ek.linalg`: linear algebra under TensorFlow's `tf.linalg` names."""

from __future__ import annotations

from .runtime.ops.creation import eye
from .runtime.ops.linalg import (
    einsum,
    global_norm,
    matmul,
    matrix_transpose,
    norm,
    solve,
    tensordot,
    trace,
)
from .runtime.ops.linalg_structured import (
    banded_triangular_solve,
    eigh_tridiagonal,
    tridiagonal_matmul,
    tridiagonal_solve,
)
from .runtime.ops.linear_operator_tridiag import LinearOperatorTridiag
from .runtime.ops.matrix_decompositions import (
    eigh,
    eigvalsh,
    lstsq,
    lu,
    lu_matrix_inverse,
    lu_reconstruct,
    lu_solve,
    normalize,
    pinv,
    qr,
    svd,
    tensor_diag,
    tensor_diag_part,
)
from .runtime.ops.matrix_eig import eig, eigvals, matrix_rank
from .runtime.ops.matrix_functions import expm, logm, sqrtm
from .runtime.ops.matrix_ops import (
    adjoint,
    band_part,
    cholesky,
    cholesky_solve,
    cross,
    det,
    diag,
    diag_part,
    inv,
    logdet,
    matvec,
    set_diag,
    slogdet,
    triangular_solve,
)
from .runtime.ops.nn import l2_normalize

transpose = matrix_transpose
