"""RMSNormalization (follows `tf.keras.layers.RMSNormalization`, Keras 3)."""

from __future__ import annotations

import numbers

import numpy as np

from ...ops import array_ops, elementwise, reduction
from ._utils import shape_of
from .base import Layer
from .normalization_more import _axes, _check_axis_arg, _param_shape

__all__ = ["RMSNormalization"]


class RMSNormalization(Layer):
    """Root-mean-square normalization (follows `tf.keras.layers.RMSNormalization`, Keras 3;
    Zhang and Sennrich, 2019): ``y = x * rsqrt(mean(square(x), axis) + epsilon) * scale``,
    computed in at least float32 and returned in the input's dtype. Unlike
    `LayerNormalization`, the mean is not subtracted and there is no offset.

    Args:
        axis: an int or a list/tuple of ints, the axes normalized over (default -1).
        epsilon: float added to the mean square (default 1e-6).

    Input shape: any; output shape: the same.

    Weights: ``scale`` of the shape of the normalized axes, initialized to ones.

    Raises:
        TypeError: ``axis`` is not an int or a list/tuple of ints.
        ValueError: a negative ``epsilon``, or an axis outside the input's rank (Keras's
            message).

    >>> layer = ek.keras.layers.RMSNormalization()
    >>> layer(ek.constant([[3.0, 4.0]])).numpy().round(5)
    array([[0.84853, 1.13137]], dtype=float32)
    >>> tuple(layer.scale.shape)
    (2,)
    """

    def __init__(self, axis=-1, epsilon=1e-6, **kwargs):
        super().__init__(**kwargs)
        self.axis = _check_axis_arg(axis, "RMSNormalization")
        if not isinstance(epsilon, numbers.Real) or epsilon < 0:
            raise ValueError(
                f"RMSNormalization: epsilon must be a non-negative float. Received: "
                f"epsilon={epsilon!r}"
            )
        self.epsilon = float(epsilon)

    def _check_axes(self, input_shape) -> list:
        rank = len(input_shape)
        axes = [self.axis] if isinstance(self.axis, int) else self.axis
        for a in axes:
            if a >= rank or a < -rank:
                raise ValueError(
                    f"Axis {a} is out of bounds for input shape {tuple(input_shape)}. "
                    f"Received: axis={self.axis}"
                )
        return _axes(self.axis, rank, self)

    def build(self, input_shape) -> None:
        shape = tuple(input_shape)
        axes = self._check_axes(shape)
        if any(shape[a] is None for a in axes):
            raise ValueError(
                f'Layer "{self.name}": the normalized axes {axes} must have known sizes. '
                f"Full shape received: {shape}"
            )
        self._norm_axes = axes
        self.scale = self.add_weight(
            "scale", shape=tuple(shape[a] for a in axes), initializer="ones"
        )
        self.built = True

    def call(self, inputs):
        shape = shape_of(inputs)
        axes = self._check_axes(shape)
        if axes != self._norm_axes:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: it was built '
                f"for rank {max(self._norm_axes) + 1}+ inputs normalized over axes "
                f"{self._norm_axes}; received shape {shape}"
            )
        dtype = inputs._value.dtype if hasattr(inputs, "_value") else np.float32
        compute = np.result_type(dtype, np.float32)
        x = inputs if dtype == compute else elementwise.cast(inputs, compute)
        mean_square = reduction.reduce_mean(elementwise.square(x), axis=axes, keepdims=True)
        y = x * elementwise.rsqrt(mean_square + self.epsilon)
        scale = self.scale if self.scale.dtype == compute else elementwise.cast(self.scale, compute)
        y = y * array_ops.reshape(scale, _param_shape(shape, axes))
        return y if compute == dtype else elementwise.cast(y, dtype)

    def compute_output_shape(self, input_shape) -> tuple:
        self._check_axes(tuple(input_shape))
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon}
