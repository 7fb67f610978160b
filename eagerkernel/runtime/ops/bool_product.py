"""``x * y`` of bool tensors, as TensorFlow's ``*`` operator computes it.

TensorFlow's Mul kernel takes no bools (``tf.multiply`` of two bool tensors raises
InvalidArgumentError), but its ``Tensor.__mul__`` casts a bool operand's pair to int32,
multiplies and casts the product back to bool (tensor_math_operator_overrides.py), so
``a * b`` of bools is their AND and ``a * 2`` is ``a``.
"""

from __future__ import annotations

import numpy as np

from ..core.numpy_methods import promoted
from ..core.tensor import Tensor
from .elementwise import cast, multiply


def multiply_fallback(exc: TypeError, x, y) -> Tensor:
    """``x * y`` (`Tensor.__mul__` / ``__rmul__``) after `multiply` raised ``exc`` (a
    TypeError): NumPy behavior's promotion first (a bool and an int8 tensor multiply as int8);
    then, with a bool tensor operand, the int32 product cast back to bool; otherwise ``exc``.

    >>> a = ek.constant([True, False, True])
    >>> (a * ek.constant([True, True, False])).numpy()
    array([ True, False, False])
    >>> (a * 2).numpy()
    array([ True, False,  True])
    """
    try:
        return promoted(exc, multiply.operator, x, y)
    except TypeError as error:
        if error is not exc or not any(
            isinstance(v, Tensor) and v._value.dtype == np.bool_ for v in (x, y)
        ):
            raise
    return cast(multiply(cast(x, "int32"), cast(y, "int32")), "bool")
