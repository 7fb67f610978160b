"""All ops: each primitive's forward and VJPs side by side, and the public functions."""

from __future__ import annotations

from . import (
    array_extra,
    array_ops,
    control_flow,
    creation,
    elementwise,
    functional_ops,
    graph_compat,
    indexing,
    linalg,
    nn,  # noqa: F401 (loaded with the others; its public names are eagerkernel/nn.py's)
    rearrange_ops,
    reduction,
    script_ops,
)
from .array_extra import *  # noqa: F403
from .array_ops import *  # noqa: F403
from .complex_ops import complex
from .control_flow import *  # noqa: F403
from .creation import *  # noqa: F403
from .dtype_ops import bitcast, realdiv, saturate_cast
from .elementwise import *  # noqa: F403
from .functional_ops import *  # noqa: F403
from .graph_compat import *  # noqa: F403
from .indexing import *  # noqa: F403
from .linalg import *  # noqa: F403
from .math_ops import (
    acos,
    acosh,
    argsort,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    cosh,
    sinh,
    sort,
    truncatediv,
    truncatemod,
    unique,
    unique_with_counts,
)
from .rearrange_ops import *  # noqa: F403
from .reduction import *  # noqa: F403
from .script_ops import *  # noqa: F403

__all__ = [
    *array_extra.__all__,
    *control_flow.__all__,
    *graph_compat.__all__,
    *creation.__all__,
    *elementwise.__all__,
    *functional_ops.__all__,
    *indexing.__all__,
    *linalg.__all__,
    *rearrange_ops.__all__,
    *reduction.__all__,
    *array_ops.__all__,
    *script_ops.__all__,
    # TensorFlow's top-level names among the tf.math additions (the rest: ek.math only)
    "acos",
    "acosh",
    "argsort",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "cosh",
    "sinh",
    "sort",
    "truncatediv",
    "truncatemod",
    "unique",
    "unique_with_counts",
    "complex",
    "bitcast",
    "realdiv",
    "saturate_cast",
]
