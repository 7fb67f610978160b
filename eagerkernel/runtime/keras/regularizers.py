"""Weight and activity regularizers (`ek.keras.regularizers`), as Keras 3's.

A regularizer is called on a weight (or a layer's output) and returns a scalar penalty of its
dtype. Layers take them as ``kernel_regularizer=``, ``bias_regularizer=`` (collected in
`Layer.losses` from the weights at each read) and ``activity_regularizer=`` (added with
`Layer.add_loss` at each call); `Model.fit` adds ``model.losses`` to the compiled loss.

>>> reg = ek.keras.regularizers.L1L2(l1=0.5, l2=0.25)
>>> float(reg(ek.constant([1.0, -2.0])))
2.75
>>> ek.keras.regularizers.get("l2").get_config()
{'l2': 0.01}
"""

from __future__ import annotations

import math

from ..ops import creation as _creation
from ..ops import elementwise as _ew
from ..ops import linalg as _linalg
from ..ops import reduction as _reduction

__all__ = [
    "L1",
    "L1L2",
    "L2",
    "OrthogonalRegularizer",
    "Regularizer",
    "deserialize",
    "get",
    "l1",
    "l1_l2",
    "l2",
    "orthogonal_regularizer",
    "serialize",
]


def _factor(value, name: str) -> float:
    """Keras's check of a penalty factor: a finite non-negative Python number."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (float, int))
        or math.isinf(value)
        or math.isnan(value)
        or value < 0
    ):
        raise ValueError(
            f"Invalid value for argument {name}: expected a non-negative float. "
            f"Received: {name}={value!r}"
        )
    return float(value)


class Regularizer:
    """Base class (follows `tf.keras.regularizers.Regularizer`): subclasses implement
    ``__call__(x)`` returning a scalar and `get_config`; `from_config` calls the constructor
    with the config."""

    def __call__(self, x):
        return 0.0

    def get_config(self) -> dict:
        raise NotImplementedError(f"{type(self).__name__} does not implement get_config().")

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    def __repr__(self) -> str:
        try:
            args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        except NotImplementedError:
            args = ""
        return f"{type(self).__name__}({args})"


class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x ** 2)`` (follows `tf.keras.regularizers.L1L2`; also
    ``l1_l2``).

    Args:
        l1, l2: non-negative floats, default 0.0 (None also means 0.0).

    Raises:
        ValueError: a negative, infinite, NaN or non-numeric factor.
    """

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = _factor(0.0 if l1 is None else l1, "l1")
        self.l2 = _factor(0.0 if l2 is None else l2, "l2")

    def __call__(self, x):
        total = _reduction.reduce_sum(x * 0)  # a scalar zero of x's dtype (and device)
        if self.l1:
            total = total + self.l1 * _reduction.reduce_sum(_ew.abs(x))
        if self.l2:
            total = total + self.l2 * _reduction.reduce_sum(_ew.square(x))
        return total

    def get_config(self) -> dict:
        return {"l1": self.l1, "l2": self.l2}


class L1(Regularizer):
    """``l1 * sum(|x|)`` (follows `tf.keras.regularizers.L1`; also ``l1``).

    Args:
        l1: non-negative float, default 0.01 (None also means 0.01).

    Raises:
        ValueError: a negative, infinite, NaN or non-numeric factor.
    """

    def __init__(self, l1=0.01):
        self.l1 = _factor(0.01 if l1 is None else l1, "l1")

    def __call__(self, x):
        return self.l1 * _reduction.reduce_sum(_ew.abs(x))

    def get_config(self) -> dict:
        return {"l1": self.l1}


class L2(Regularizer):
    """``l2 * sum(x ** 2)`` (follows `tf.keras.regularizers.L2`; also ``l2``). There is no
    factor 1/2.

    Args:
        l2: non-negative float, default 0.01 (None also means 0.01).

    Raises:
        ValueError: a negative, infinite, NaN or non-numeric factor.
    """

    def __init__(self, l2=0.01):
        self.l2 = _factor(0.01 if l2 is None else l2, "l2")

    def __call__(self, x):
        return self.l2 * _reduction.reduce_sum(_ew.square(x))

    def get_config(self) -> dict:
        return {"l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """Penalizes non-orthogonal rows (or columns) of a rank-2 weight (follows
    `tf.keras.regularizers.OrthogonalRegularizer`).

    The rows (``mode="rows"``) or columns are L2-normalized, and the penalty is
    ``factor * 0.5 * sum(|off-diagonal entries of their Gram matrix|) / (n * (n - 1) / 2)``
    for ``n`` rows (columns).

    Args:
        factor: non-negative float, default 0.01.
        mode: ``"rows"`` (default) or ``"columns"``.

    Raises:
        ValueError: a bad ``factor`` or ``mode``; at call, an input whose rank is not 2.
    """

    def __init__(self, factor=0.01, mode="rows"):
        self.factor = _factor(factor, "factor")
        if mode not in ("rows", "columns"):
            raise ValueError(
                'Invalid value for argument `mode`. Expected one of {"rows", "columns"}. '
                f"Received: mode={mode!r}"
            )
        self.mode = mode

    def __call__(self, inputs):
        shape = tuple(inputs.shape)
        if len(shape) != 2:
            raise ValueError(
                f"Inputs to OrthogonalRegularizer must have rank 2. Received: inputs.shape={shape}"
            )
        x = inputs if self.mode == "rows" else _linalg.matrix_transpose(inputs)
        norms = _ew.sqrt(
            _ew.maximum(_reduction.reduce_sum(_ew.square(x), axis=1, keepdims=True), 1e-12)
        )
        x = x / norms
        gram = _linalg.matmul(x, x, transpose_b=True)
        n = x.shape[0]
        off = _reduction.reduce_sum(_ew.abs(gram * (1.0 - _creation.eye(n, dtype=gram.dtype))))
        return self.factor * 0.5 * off / (n * (n - 1.0) / 2.0)

    def get_config(self) -> dict:
        return {"factor": self.factor, "mode": self.mode}


l1 = L1
l2 = L2
l1_l2 = L1L2
orthogonal_regularizer = OrthogonalRegularizer

_BUILTIN = {
    "L1": L1,
    "L2": L2,
    "L1L2": L1L2,
    "OrthogonalRegularizer": OrthogonalRegularizer,
    "Regularizer": Regularizer,
    "l1": L1,
    "l2": L2,
    "l1_l2": L1L2,
    "orthogonal_regularizer": OrthogonalRegularizer,
}


def serialize(regularizer):
    """Keras 3's description of ``regularizer`` (``{"module", "class_name", "config",
    "registered_name"}``); a plain function as `saving.serialize_function` writes it; None
    stays None (follows `tf.keras.regularizers.serialize`).

    Raises:
        NotImplementedError: an object that is neither a function nor has ``get_config``.
    """
    from . import saving

    return saving.serialize_callable(regularizer, "regularizer")


def deserialize(config, custom_objects=None):
    """The regularizer a `serialize` description (or a name) gives (follows
    `tf.keras.regularizers.deserialize`).

    Raises:
        ValueError: an unknown name or class.
    """
    from . import saving

    return saving.deserialize_callable(config, _BUILTIN, "regularizer", custom_objects)


def get(identifier):
    """A regularizer from None, a name (``"l1"``, ``"l2"``, ``"l1_l2"``, ``"L2"``,
    ``"orthogonal_regularizer"``, ...; with default factors), a `serialize` dict, or a
    callable (returned as is) (follows `tf.keras.regularizers.get`).

    Raises:
        ValueError: an identifier that is none of these.
    """
    if identifier is None or isinstance(identifier, Regularizer):
        return identifier
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret regularizer identifier: {identifier!r}")
