"""`ek.keras.mixed_precision` (follows `tf.keras.mixed_precision`): dtype policies and loss
scaling.

>>> from eagerkernel.keras import mixed_precision
>>> mixed_precision.set_global_policy("mixed_float16")
>>> dense = ek.keras.layers.Dense(3)
>>> y = dense(ek.ones((2, 4)))
>>> y.dtype, dense.kernel.dtype, dense.compute_dtype, dense.dtype
(ek.float16, ek.float32, 'float16', 'float32')
>>> mixed_precision.set_global_policy("float32")
"""

from __future__ import annotations

from .dtype_policies import DTypePolicy, Policy, global_policy, set_global_policy
from .optimizers.loss_scale_optimizer import LossScaleOptimizer

__all__ = [
    "DTypePolicy",
    "LossScaleOptimizer",
    "Policy",
    "dtype_policy",
    "global_policy",
    "set_dtype_policy",
    "set_global_policy",
]

dtype_policy = global_policy  # Keras 3's names
set_dtype_policy = set_global_policy
