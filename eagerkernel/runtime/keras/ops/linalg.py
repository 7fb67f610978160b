"""`keras.ops.linalg` (follows ``keras/src/ops/linalg.py``): the linear algebra functions,
also at ``keras.ops`` top level, and nothing else (``dir()`` lists Keras's names). They live
in `linalg_base` (``cholesky``, ``det``, ``inv``, ``norm``, ``solve``) and `linalg_more`
(decompositions, least squares, ``jvp``); integer inputs give floatx.

>>> float(ek.keras.ops.linalg.norm(ek.constant([3.0, 4.0])))
5.0
"""

from .linalg_base import cholesky, det, inv, norm, solve
from .linalg_more import (
    cholesky_inverse,
    eig,
    eigh,
    jvp,
    lstsq,
    lu_factor,
    matrix_rank,
    pinv,
    qr,
    solve_triangular,
    svd,
)

__all__ = [
    "cholesky",
    "cholesky_inverse",
    "det",
    "eig",
    "eigh",
    "inv",
    "jvp",
    "lstsq",
    "lu_factor",
    "matrix_rank",
    "norm",
    "pinv",
    "qr",
    "solve",
    "solve_triangular",
    "svd",
]
