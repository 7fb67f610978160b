"""`ek.linalg`: linear algebra under TensorFlow's `tf.linalg` names."""

from __future__ import annotations

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
from .runtime.ops.nn import l2_normalize

transpose = matrix_transpose
