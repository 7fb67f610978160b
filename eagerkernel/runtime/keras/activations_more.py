"""Keras 3's newer activations (`mish`, `celu`, `glu`, the shrink family, ...).

Each follows `keras.activations.<name>` (keras/src/activations/activations.py and the formulas in
keras/src/ops/nn.py) with the same argument names and defaults, and is written with
differentiable eagerkernel ops so its gradient comes from the tape. `activations.py` registers
them by name for ``activation="mish"``, `get` and `serialize`.
"""

from __future__ import annotations

from ..core.tensor import Tensor, to_tensor
from ..ops import array_ops as _array
from ..ops import elementwise as _ew
from ..ops import nn as _nn

__all__ = [
    "celu",
    "glu",
    "hard_shrink",
    "hard_silu",
    "hard_swish",
    "hard_tanh",
    "log_sigmoid",
    "mish",
    "soft_shrink",
    "sparse_plus",
    "squareplus",
    "tanh_shrink",
    "threshold",
]


def _float(x, name: str) -> Tensor:
    x = to_tensor(x, None, name)
    if x.dtype.is_integer or x.dtype.is_bool:
        x = _ew.cast(x, "float32")
    return x


def mish(x) -> Tensor:
    """``x * tanh(softplus(x))`` (follows `keras.activations.mish`).

    >>> ek.keras.activations.mish(ek.constant([-1.0, 0.0, 1.0])).numpy().round(4)
    array([-0.3034,  0.    ,  0.8651], dtype=float32)
    """
    x = _float(x, "mish")
    return x * _ew.tanh(_nn.softplus(x))


def hard_silu(x) -> Tensor:
    """Hard SiLU (hard swish): ``x * relu6(x + 3) / 6`` (follows `keras.activations.hard_silu`).

    0 for ``x <= -3``, ``x`` for ``x >= 3``, ``x * (x + 3) / 6`` between.

    >>> ek.keras.activations.hard_silu(ek.constant([-4.0, 0.0, 1.0, 4.0])).numpy().round(4)
    array([-0.    ,  0.    ,  0.6667,  4.    ], dtype=float32)
    """
    x = _float(x, "hard_silu")
    return x * (_nn.relu6(x + 3.0) / 6.0)


hard_swish = hard_silu


def log_sigmoid(x) -> Tensor:
    """``log(sigmoid(x)) = -softplus(-x)``, overflow-free (follows `keras.activations.log_sigmoid`).

    >>> ek.keras.activations.log_sigmoid(ek.constant([0.0])).numpy().round(4)
    array([-0.6931], dtype=float32)
    """
    x = _float(x, "log_sigmoid")
    return -_nn.softplus(-x)


def celu(x, alpha=1.0) -> Tensor:
    """Continuously differentiable ELU (follows `keras.activations.celu`).

    ``x`` for ``x >= 0``, ``alpha * (exp(x / alpha) - 1)`` otherwise.

    Args:
        x: Input tensor.
        alpha: Positive float, the scale of the negative part (default 1.0).

    Raises:
        ValueError: ``alpha`` is 0 (the formula divides by it).

    >>> ek.keras.activations.celu(ek.constant([-1.0, 2.0]), alpha=2.0).numpy().round(4)
    array([-0.7869,  2.    ], dtype=float32)
    """
    if alpha == 0:
        raise ValueError(f"celu: alpha must be nonzero. Received: alpha={alpha}")
    x = _float(x, "celu")
    negative = alpha * (_ew.exp(_ew.minimum(x, 0.0) / alpha) - 1.0)
    return _nn.relu(x) + negative


def glu(x, axis=-1) -> Tensor:
    """Gated linear unit: split ``x`` in halves ``a, b`` along ``axis``; ``a * sigmoid(b)``.

    Follows `keras.activations.glu`. The output has half the size of ``x`` along ``axis``.

    Raises:
        ValueError: the size of ``axis`` is odd.

    >>> ek.keras.activations.glu(ek.constant([[1.0, 2.0, 0.0, 0.0]])).numpy()
    array([[0.5, 1. ]], dtype=float32)
    """
    x = _float(x, "glu")
    size = x.shape[axis]
    if size is not None and size % 2:
        raise ValueError(
            f"axis size must be divisible by 2. Received: x.shape={tuple(x.shape)} with axis={axis}"
        )
    a, b = _array.split(x, 2, axis=axis)
    return a * _ew.sigmoid(b)


def hard_tanh(x) -> Tensor:
    """``clip(x, -1, 1)`` (follows `keras.activations.hard_tanh`).

    >>> ek.keras.activations.hard_tanh(ek.constant([-3.0, 0.5, 3.0])).numpy()
    array([-1. ,  0.5,  1. ], dtype=float32)
    """
    x = _float(x, "hard_tanh")
    return _ew.clip_by_value(x, -1.0, 1.0)


def hard_shrink(x, threshold=0.5) -> Tensor:
    """``x`` where ``|x| > threshold``, else 0 (follows `keras.activations.hard_shrink`).

    >>> ek.keras.activations.hard_shrink(ek.constant([-1.0, 0.2, 0.7])).numpy()
    array([-1. ,  0. ,  0.7], dtype=float32)
    """
    x = _float(x, "hard_shrink")
    return x * _ew.cast(_ew.abs(x) > threshold, x.dtype)


def soft_shrink(x, threshold=0.5) -> Tensor:
    """``x - threshold`` above ``threshold``, ``x + threshold`` below ``-threshold``, else 0.

    Follows `keras.activations.soft_shrink`.

    >>> ek.keras.activations.soft_shrink(ek.constant([-1.0, 0.2, 0.7])).numpy().round(4)
    array([-0.5,  0. ,  0.2], dtype=float32)
    """
    x = _float(x, "soft_shrink")
    return _nn.relu(x - threshold) - _nn.relu(-x - threshold)


def tanh_shrink(x) -> Tensor:
    """``x - tanh(x)`` (follows `keras.activations.tanh_shrink`).

    >>> ek.keras.activations.tanh_shrink(ek.constant([0.0, 1.0])).numpy().round(4)
    array([0.    , 0.2384], dtype=float32)
    """
    x = _float(x, "tanh_shrink")
    return x - _ew.tanh(x)


def squareplus(x, b=4) -> Tensor:
    """``(x + sqrt(x**2 + b)) / 2`` (follows `keras.activations.squareplus`).

    Args:
        x: Input tensor.
        b: Non-negative smoothness (default 4); ``b=0`` gives ReLU.

    Raises:
        ValueError: ``b`` is negative.

    >>> ek.keras.activations.squareplus(ek.constant([0.0, 1.0])).numpy().round(4)
    array([1.   , 1.618], dtype=float32)
    """
    if b < 0:
        raise ValueError(f"squareplus: b must be non-negative. Received: b={b}")
    x = _float(x, "squareplus")
    return (x + _ew.sqrt(x * x + float(b))) / 2.0


def sparse_plus(x) -> Tensor:
    """0 for ``x <= -1``, ``(x + 1)**2 / 4`` between, ``x`` for ``x >= 1``.

    Follows `keras.activations.sparse_plus`.

    >>> ek.keras.activations.sparse_plus(ek.constant([-2.0, 0.0, 2.0])).numpy()
    array([0.  , 0.25, 2.  ], dtype=float32)
    """
    x = _float(x, "sparse_plus")
    middle = _ew.clip_by_value(x, -1.0, 1.0) + 1.0
    # Below -1 the clipped middle is 0; above 1 it is 1 and the linear part adds x - 1.
    return 0.25 * middle * middle + _nn.relu(x - 1.0)


def threshold(x, threshold, default_value) -> Tensor:
    """``x`` where ``x > threshold``, else ``default_value``.

    Follows `keras.activations.threshold`; both ``threshold`` and ``default_value`` are
    required, as in Keras.

    >>> ek.keras.activations.threshold(ek.constant([-1.0, 2.0]), 0.0, -5.0).numpy()
    array([-5.,  2.], dtype=float32)
    """
    x = _float(x, "threshold")
    keep = x > threshold
    return _ew.where(keep, x, _ew.cast(to_tensor(default_value, None, "threshold"), x.dtype))
