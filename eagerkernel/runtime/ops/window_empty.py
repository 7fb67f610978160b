"""Window ops (convolutions, pooling) whose window does not fit in the padded input.

TensorFlow's kernels return an empty output then (a height or width of 0, so no element), not
an error: ``tf.nn.conv2d`` of a ``[1, 2, 2, 3]`` input with a 3x3 filter and VALID padding is
a ``[1, 0, 0, 4]`` tensor, and its gradients with respect to the input and the filter are
zeros. Keras's convolution layers check the output size themselves and raise (a ValueError,
`keras.layers.Conv2D`), its pooling layers do not.
"""

from __future__ import annotations

import functools

from ..core.dispatch import Primitive, defvjp
from ..core.tensor import Tensor
from ._core import apply
from .creation import zeros_like


def is_empty(out_sizes) -> bool:
    """Whether a window op's output sizes (``output_hw``, which may be negative) hold a 0."""
    return min(out_sizes) < 1


def empty_output(shape, inputs: tuple, op: str) -> Tensor:
    """The empty output of shape ``shape`` (negative sizes taken as 0) of window op ``op`` on
    ``inputs`` (its input first, then its filter, if any): ``inputs[0]``'s dtype and device,
    with zero gradients for every input, as TensorFlow's backprop kernels give.

    >>> y = empty_output((1, -1, 0, 4), (ek.zeros([1, 2, 2, 3]),), "conv2d")
    >>> y.shape, y.dtype.name
    (TensorShape([1, 0, 0, 4]), 'float32')
    """
    shape = tuple(max(0, int(n)) for n in shape)
    return apply(_EMPTY[len(inputs) - 1], tuple(inputs), {"shape": shape, "op": op})


def _empty_fwd(xp, x, *rest, shape, op):
    return xp.zeros(shape, x.dtype)


def _zero_cotangent(g, ans, *inputs, index, **params):
    return zeros_like(inputs[index])


def _empty_primitive(arity: int) -> Primitive:
    """The primitive for window ops with ``arity`` inputs: zeros out, zero cotangents in."""
    prim = Primitive("EmptyWindowOutput", _empty_fwd)
    defvjp(prim, *(functools.partial(_zero_cotangent, index=i) for i in range(arity)))
    return prim


_EMPTY = (_empty_primitive(1), _empty_primitive(2))
