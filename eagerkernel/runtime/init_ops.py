"""TensorFlow 2's top-level initializer classes (`tf.zeros_initializer`, `tf.ones_initializer`,
`tf.constant_initializer`, `tf.random_uniform_initializer`, `tf.random_normal_initializer`).

They are called as ``init(shape, dtype=float32)``, as Keras's initializers are, with the same
defaults (``minval=-0.05, maxval=0.05``; ``mean=0.0, stddev=0.05``), so four of them are
Keras's classes. `tf.constant_initializer` differs from Keras's `Constant`: a list or array
``value`` is *reshaped* to the requested shape (it must have that many elements), as
`tf.constant(value, shape=shape)` does, where Keras broadcasts it.
"""

from __future__ import annotations

import numpy as np

from .core import dtypes
from .core.tensor import Tensor, constant
from .keras.initializers import Constant, Ones, RandomNormal, RandomUniform, Zeros

__all__ = [
    "constant_initializer",
    "ones_initializer",
    "random_normal_initializer",
    "random_uniform_initializer",
    "zeros_initializer",
]

zeros_initializer = Zeros
ones_initializer = Ones
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal


class constant_initializer(Constant):
    """Fills a tensor with ``value`` (follows TF 2's `tf.constant_initializer`).

    Called as ``init(shape, dtype=None)``: without a dtype, the value's own is used (int32
    for Python ints, float32 for floats), as `tf.constant` infers it.

    Args:
        value: a Python scalar, list or tuple of values, or a NumPy array. A scalar fills the
            shape; a list or array must have as many elements as the shape and is reshaped.

    Raises:
        TypeError: another type of ``value`` (TensorFlow's check), or a dtype it cannot
            convert to.
        ValueError: at the call, a ``value`` whose number of elements does not fit the shape.

    >>> ek.constant_initializer([1, 2, 3, 4])(shape=[2, 2], dtype=ek.float32).numpy()
    array([[1., 2.],
           [3., 4.]], dtype=float32)
    """

    def __init__(self, value=0):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray, Tensor))):
            raise TypeError(
                f"constant_initializer: Invalid type for initial value: {type(value).__name__}. "
                "Expected Python scalar, list or tuple of values, or numpy.ndarray."
            )
        super().__init__(value)

    def __call__(self, shape, dtype=None, **kwargs) -> Tensor:
        shape = [int(s) for s in (shape if isinstance(shape, (list, tuple)) else [shape])]
        dt = None if dtype is None else dtypes.as_dtype(dtype)
        value = self.value.numpy() if isinstance(self.value, Tensor) else self.value
        return constant(value, dtype=dt, shape=shape)
