"""`ek.sparse`: sparse tensors (follows `tf.sparse`).

>>> st = ek.sparse.from_dense([[1, 0], [0, 2]])
>>> ek.sparse.reduce_sum(st).numpy()
np.int32(3)
"""

from __future__ import annotations

from . import sparse_more, sparse_ops
from .cross import cross, cross_hashed
from .sampled import sampled_addmm
from .sparse_more import *  # noqa: F403
from .sparse_ops import *  # noqa: F403

__all__ = [*sparse_ops.__all__, *sparse_more.__all__, "cross", "cross_hashed", "sampled_addmm"]
