"""Activation functions by name (`ek.keras.activations`), with Keras's names and arguments.

Each is a function of a Tensor written with `ek.nn` ops, so it is differentiable to any order.
`get` turns what a layer's ``activation=`` argument accepts (a name, a function or None) into a
function.
"""

from __future__ import annotations

import functools

from ..core.tensor import Tensor, to_tensor
from ..ops import elementwise as _ew
from ..ops import nn as _nn
from .activations_more import (
    celu,
    glu,
    hard_shrink,
    hard_silu,
    hard_swish,
    hard_tanh,
    log_sigmoid,
    mish,
    soft_shrink,
    sparse_plus,
    squareplus,
    tanh_shrink,
    threshold,
)
from .keras_tensor import KerasTensor
from .logits import remember

__all__ = [
    "celu",
    "deserialize",
    "elu",
    "exponential",
    "gelu",
    "get",
    "glu",
    "hard_shrink",
    "hard_sigmoid",
    "hard_silu",
    "hard_swish",
    "hard_tanh",
    "leaky_relu",
    "linear",
    "log_sigmoid",
    "log_softmax",
    "mish",
    "relu",
    "relu6",
    "selu",
    "serialize",
    "sigmoid",
    "silu",
    "soft_shrink",
    "softmax",
    "softplus",
    "softsign",
    "sparse_plus",
    "sparse_sigmoid",
    "sparsemax",
    "squareplus",
    "swish",
    "tanh",
    "tanh_shrink",
    "threshold",
]


def relu(x, alpha=0.0, max_value=None, threshold=0.0, negative_slope=None) -> Tensor:
    """Rectified linear unit with Keras's options (follows `tf.keras.activations.relu`).

    ``x`` above ``threshold``, else ``alpha * (x - threshold)``; then clipped at ``max_value``.
    ``negative_slope`` is Keras 3's name for ``alpha`` (give one of them).

    Raises:
        TypeError: both ``alpha`` and ``negative_slope`` given.

    >>> ek.keras.activations.relu(ek.constant([-2.0, 1.0, 8.0]), alpha=0.5, max_value=6.0).numpy()
    array([-1.,  1.,  6.], dtype=float32)
    >>> ek.keras.activations.relu(ek.constant([-1.0, 2.0]), negative_slope=0.1).numpy()
    array([-0.1,  2. ], dtype=float32)
    """
    if negative_slope is not None:
        if alpha != 0.0:
            raise TypeError(
                "relu: give alpha (Keras 2) or negative_slope (Keras 3), not both. Received: "
                f"alpha={alpha!r}, negative_slope={negative_slope!r}."
            )
        alpha = negative_slope
    x = to_tensor(x, None, "relu")
    if alpha == 0 and max_value is None and threshold == 0:
        return _nn.relu(x)
    negative = None
    if alpha != 0:
        negative = _nn.relu(threshold - x) if threshold != 0 else _nn.relu(-x)
    if threshold != 0:  # x above the threshold, else +0 (not x * 0, which is -0 for x < 0)
        y = _ew.where(x > threshold, x, 0)
    else:
        y = _nn.relu(x)
    if max_value is not None:
        y = _ew.minimum(y, to_tensor(max_value, x._value.dtype, "relu"))
    if negative is not None:
        y = y - alpha * negative
    return y


def sigmoid(x) -> Tensor:
    """``1 / (1 + exp(-x))``; the output remembers ``x`` for the cross-entropies (see
    `keras.logits`)."""
    return remember(_ew.sigmoid(x), x, "sigmoid")


def tanh(x) -> Tensor:
    """Hyperbolic tangent."""
    return _ew.tanh(x)


def softmax(x, axis=-1) -> Tensor:
    """Softmax over ``axis`` (default the last).

    >>> ek.keras.activations.softmax(ek.constant([[0.0, 0.0]])).numpy()
    array([[0.5, 0.5]], dtype=float32)
    """
    return remember(_nn.softmax(x, axis=axis), x, "softmax", axis)


def log_softmax(x, axis=-1) -> Tensor:
    """Log of the softmax over ``axis``, computed stably."""
    return _nn.log_softmax(x, axis=axis)


def linear(x) -> Tensor:
    """The identity (what ``activation=None`` means)."""
    return to_tensor(x, None, "linear")


def elu(x, alpha=1.0) -> Tensor:
    """``x`` where positive, else ``alpha * (exp(x) - 1)``."""
    y = _nn.elu(x)
    if alpha == 1.0:
        return y
    return _ew.where(to_tensor(x, None, "elu") > 0, y, alpha * y)


def selu(x) -> Tensor:
    """Scaled ELU with the self-normalizing constants."""
    return _nn.selu(x)


def softplus(x) -> Tensor:
    """``log(1 + exp(x))``, overflow-free."""
    return _nn.softplus(x)


def softsign(x) -> Tensor:
    """``x / (1 + |x|)``."""
    return _nn.softsign(x)


def leaky_relu(x, negative_slope=0.2) -> Tensor:
    """``x`` where positive, else ``negative_slope * x``."""
    return _nn.leaky_relu(x, alpha=negative_slope)


def relu6(x) -> Tensor:
    """``min(max(x, 0), 6)``."""
    return _nn.relu6(x)


def gelu(x, approximate=False) -> Tensor:
    """Gaussian error linear unit (exact, or the tanh approximation)."""
    return _nn.gelu(x, approximate=approximate)


def silu(x) -> Tensor:
    """``x * sigmoid(x)`` (also called swish)."""
    return _nn.silu(x)


swish = silu


def exponential(x) -> Tensor:
    """``exp(x)``."""
    return _ew.exp(x)


def hard_sigmoid(x) -> Tensor:
    """Piecewise linear sigmoid: ``clip(x / 6 + 0.5, 0, 1)`` (Keras 3's definition)."""
    x = to_tensor(x, None, "hard_sigmoid")
    return _ew.clip_by_value(x / 6.0 + 0.5, 0.0, 1.0)


def sparsemax(x, axis=-1) -> Tensor:
    """The Euclidean projection of ``x`` onto the probability simplex along ``axis``: sparse
    probabilities (follows `keras.activations.sparsemax`).

    >>> ek.keras.activations.sparsemax(ek.constant([1.0, 2.0, 5.0])).numpy()
    array([0., 0., 1.], dtype=float32)
    """
    from .ops.nn_more import sparsemax as op

    return op(x, axis=axis)


def sparse_sigmoid(x) -> Tensor:
    """0 below -1, 1 above 1, ``(x + 1) / 2`` between (follows
    `keras.activations.sparse_sigmoid`)."""
    from .ops.nn_more import sparse_sigmoid as op

    return op(x)


_BY_NAME = {
    "relu": relu,
    "sigmoid": sigmoid,
    "tanh": tanh,
    "softmax": softmax,
    "log_softmax": log_softmax,
    "linear": linear,
    "elu": elu,
    "selu": selu,
    "softplus": softplus,
    "softsign": softsign,
    "leaky_relu": leaky_relu,
    "relu6": relu6,
    "gelu": gelu,
    "swish": swish,
    "silu": silu,
    "exponential": exponential,
    "hard_sigmoid": hard_sigmoid,
    "celu": celu,
    "glu": glu,
    "hard_shrink": hard_shrink,
    "hard_silu": hard_silu,
    "hard_swish": hard_swish,
    "hard_tanh": hard_tanh,
    "log_sigmoid": log_sigmoid,
    "mish": mish,
    "soft_shrink": soft_shrink,
    "sparse_plus": sparse_plus,
    "squareplus": squareplus,
    "tanh_shrink": tanh_shrink,
    "threshold": threshold,
    "sparsemax": sparsemax,
    "sparse_sigmoid": sparse_sigmoid,
}


def _on_keras_tensors(fn):
    """``fn`` that, called on a KerasTensor (a functional model being defined), records an
    `Activation` layer on it (Keras 3's activations are ops, recorded likewise), and runs
    ``fn`` on anything else."""

    @functools.wraps(fn)
    def activation(x, *args, **kwargs):
        if isinstance(x, KerasTensor):
            from .layers.core import Activation

            call = functools.partial(fn, *args, **kwargs) if args or kwargs else activation
            return Activation(call)(x)
        return fn(x, *args, **kwargs)

    return activation


_WRAPPED: dict = {}
for _name, _fn in list(_BY_NAME.items()):  # each function once: swish stays silu
    _BY_NAME[_name] = globals()[_name] = _WRAPPED.setdefault(id(_fn), _on_keras_tensors(_fn))
del _name, _fn


def serialize(activation) -> str:
    """The name of a built-in activation (its ``__name__`` otherwise)."""
    for name, fn in _BY_NAME.items():
        if fn is activation:
            return name
    from .saving import get_registered_name

    return get_registered_name(activation)


def get(identifier):
    """The activation function for a name, a callable, or None (which means `linear`).

    Raises:
        ValueError: an unknown name or a value that is neither a name nor callable.

    >>> ek.keras.activations.get("relu")(ek.constant([-1.0, 2.0])).numpy()
    array([0., 2.], dtype=float32)
    >>> ek.keras.activations.get(None) is ek.keras.activations.linear
    True
    """
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        fn = _BY_NAME.get(identifier.lower())
        if fn is None:
            from .saving import get_registered_object

            fn = get_registered_object(identifier)
        if fn is None:
            raise ValueError(
                f"Unknown activation function: {identifier!r}. Known names: {sorted(_BY_NAME)}."
            )
        return fn
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret activation function identifier: {identifier!r}.")


def deserialize(config, custom_objects=None):
    """The activation a `serialize` name (or Keras's ``{"class_name": "function", "config":
    name}`` dict) stands for, looked up in ``custom_objects`` first (follows
    `keras.activations.deserialize`).

    Raises:
        ValueError: an unknown name (see `get`).

    >>> ek.keras.activations.deserialize("relu") is ek.keras.activations.relu
    True
    """
    name = config.get("config", config.get("class_name")) if isinstance(config, dict) else config
    if custom_objects and isinstance(name, str) and name in custom_objects:
        return custom_objects[name]
    return get(name)
