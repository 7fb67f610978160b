"""`ek.math`: the math ops under TensorFlow's `tf.math` names (and the array ops TF 1.x
kept at top level, so that `ek.math.reduce_sum` and friends resolve as they do in TF)."""

from __future__ import annotations

from .runtime.ops.array_ops import *  # noqa: F403
from .runtime.ops.complex_ops import angle, conj, imag, real
from .runtime.ops.elementwise import *  # noqa: F403
from .runtime.ops.indexing import *  # noqa: F403
from .runtime.ops.linalg import *  # noqa: F403
from .runtime.ops.math_more import *  # noqa: F403
from .runtime.ops.math_ops import *  # noqa: F403
from .runtime.ops.nn import l2_normalize, log_sigmoid, log_softmax, softmax, softplus, softsign
from .runtime.ops.nn_more import approx_max_k, approx_min_k
from .runtime.ops.reduction import *  # noqa: F403
from .runtime.ops.segment_ops import *  # noqa: F403
from .runtime.ops.sobol import sobol_sample
from .runtime.ops.special_math import *  # noqa: F403

floormod = mod  # noqa: F405  (tf.math.floormod is tf.math.mod)

from types import SimpleNamespace as _Namespace  # noqa: E402

from .runtime.ops import special_functions as _special  # noqa: E402

#: ``tf.math.special``: Bessel functions, Dawson's and the exponential integral, Fresnel
#: integrals, Spence's function.
special = _Namespace(**{name: getattr(_special, name) for name in _special.__all__})
