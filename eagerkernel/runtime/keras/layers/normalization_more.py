"""Per-example normalization layers: LayerNormalization, GroupNormalization,
UnitNormalization and RMSNormalization (follow the `tf.keras.layers` classes of those names,
Keras 3)."""

from __future__ import annotations

import numbers

import numpy as np

from ...ops import array_ops, elementwise, reduction
from ...ops import nn as _nn
from .. import initializers, regularizers
from ._utils import add_gamma_and_beta, set_weight_args, shape_of
from .base import Layer

__all__ = ["GroupNormalization", "LayerNormalization", "RMSNormalization", "UnitNormalization"]


def _axes(axis, rank: int, layer) -> list:
    """``axis`` (an int or a sequence) as sorted non-negative axes of a rank-``rank`` input."""
    axes = [axis] if isinstance(axis, numbers.Integral) else list(axis)
    out = []
    for a in axes:
        if not -rank <= int(a) < rank:
            raise ValueError(
                f'Layer "{layer.name}": invalid axis {a} for an input of rank {rank}. '
                f"Received: axis={axis}"
            )
        out.append(int(a) % rank)
    return sorted(set(out))


def _check_axis_arg(axis, layer_name: str):
    if isinstance(axis, numbers.Integral) and not isinstance(axis, bool):
        return int(axis)
    if isinstance(axis, (list, tuple)) and all(isinstance(a, numbers.Integral) for a in axis):
        return [int(a) for a in axis]
    raise TypeError(
        f"{layer_name}: expected an int or a list/tuple of ints for the argument 'axis', but "
        f"received: {axis!r}"
    )


def _param_shape(shape: tuple, axes: list) -> list:
    """The shape that broadcasts a weight over ``axes`` of ``shape`` (1 elsewhere)."""
    return [shape[i] if i in axes else 1 for i in range(len(shape))]


class LayerNormalization(Layer):
    """Normalizes each example over ``axis`` (follows `tf.keras.layers.LayerNormalization`,
    Keras 3).

    ``y = (x - mean) / sqrt(var + epsilon) * gamma + beta`` with ``mean`` and ``var`` (the
    population variance) taken over ``axis`` for each example. With ``rms_scaling=True`` the
    mean is not subtracted and there is no ``beta``: ``y = x / sqrt(var + epsilon) * gamma``
    (Keras 3's formula, which divides by the variance about the mean, not ``mean(x**2)``).

    Args:
        axis: int or list of ints, the axes to normalize over (default -1).
        epsilon: added to the variance (default 1e-3).
        center: learn ``beta`` (default True; ignored with ``rms_scaling``).
        scale: learn ``gamma`` (default True).
        rms_scaling: RMS normalization, see above (default False).
        beta_initializer, gamma_initializer: default zeros and ones.
        beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint: as for `Dense`.

    Input shape: any, with known sizes along ``axis``. Output shape: the input's.

    Weights: ``gamma`` then ``beta``, each of the input's shape along ``axis``.

    Raises:
        TypeError: ``axis`` is not an int or a list of ints.
        ValueError: ``axis`` out of range for the input.

    >>> ln = ek.keras.layers.LayerNormalization()
    >>> ln(ek.constant([[1.0, 3.0]])).numpy().round(4)  # std 1 with epsilon 1e-3
    array([[-0.9995,  0.9995]], dtype=float32)
    """

    _computes_in_variable_dtype = True  # statistics in float32 under mixed_float16 (Keras)

    supports_masking = True

    def __init__(
        self,
        axis=-1,
        epsilon=1e-3,
        center=True,
        scale=True,
        rms_scaling=False,
        beta_initializer="zeros",
        gamma_initializer="ones",
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.axis = _check_axis_arg(axis, "LayerNormalization")
        self.epsilon = float(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self.rms_scaling = bool(rms_scaling)
        set_weight_args(
            self, "gamma", gamma_initializer, gamma_regularizer, gamma_constraint, "ones"
        )
        set_weight_args(self, "beta", beta_initializer, beta_regularizer, beta_constraint, "zeros")

    def build(self, input_shape) -> None:
        input_shape = tuple(input_shape)
        axes = _axes(self.axis, len(input_shape), self)
        shape = tuple(input_shape[a] for a in axes)
        if any(d is None for d in shape):
            raise ValueError(
                f'Layer "{self.name}": the axes {self.axis} of the input should have defined '
                f"dimensions. Full shape received: {input_shape}"
            )
        scale, center = self.scale or self.rms_scaling, self.center and not self.rms_scaling
        add_gamma_and_beta(self, shape, scale, center)
        self.built = True

    def call(self, inputs):
        shape = shape_of(inputs)
        axes = _axes(self.axis, len(shape), self)
        pshape = _param_shape(shape, axes)

        def broadcast(w):
            return w if axes == [len(shape) - 1] else array_ops.reshape(w, pshape)

        mean, variance = _nn.moments(inputs, axes, keepdims=True)
        if self.rms_scaling:
            return inputs * elementwise.rsqrt(variance + self.epsilon) * broadcast(self.gamma)
        inv = elementwise.rsqrt(variance + self.epsilon)
        if self.gamma is not None:
            inv = inv * broadcast(self.gamma)
        offset = -mean * inv
        if self.beta is not None:
            offset = offset + broadcast(self.beta)
        return inputs * inv + offset

    def compute_output_shape(self, input_shape) -> tuple:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "rms_scaling": self.rms_scaling,
            "beta_initializer": initializers.serialize(self.beta_initializer),
            "gamma_initializer": initializers.serialize(self.gamma_initializer),
            "beta_regularizer": regularizers.serialize(self.beta_regularizer),
            "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
        }


class GroupNormalization(Layer):
    """Normalizes each example over groups of channels (follows
    `tf.keras.layers.GroupNormalization`).

    The ``axis`` dimension (channels) is split into ``groups`` groups of consecutive
    channels; mean and variance are taken per example and group over the group's channels
    and every other non-batch axis; then ``gamma`` and ``beta`` (one per channel) apply.
    ``groups=1`` is layer normalization over all non-batch axes; ``groups=channels`` is
    instance normalization.

    Args:
        groups: number of groups (default 32); must divide the channel count.
        axis: the channel axis (default -1).
        epsilon: added to the variance (default 1e-3).
        center, scale, beta_initializer, gamma_initializer, beta_regularizer,
            gamma_regularizer, beta_constraint, gamma_constraint: as for `LayerNormalization`.

    Raises:
        ValueError: more groups than channels, a channel count not a multiple of ``groups``,
            or an unknown channel count (Keras's messages).

    >>> gn = ek.keras.layers.GroupNormalization(groups=2)
    >>> gn(ek.constant([[1.0, 3.0, 0.0, 10.0]])).numpy().round(4)
    array([[-0.9995,  0.9995, -1.    ,  1.    ]], dtype=float32)
    """

    _computes_in_variable_dtype = True  # statistics in float32 under mixed_float16 (Keras)

    supports_masking = True

    def __init__(
        self,
        groups=32,
        axis=-1,
        epsilon=1e-3,
        center=True,
        scale=True,
        beta_initializer="zeros",
        gamma_initializer="ones",
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.groups = int(groups)
        self.axis = int(axis)
        self.epsilon = float(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        set_weight_args(
            self, "gamma", gamma_initializer, gamma_regularizer, gamma_constraint, "ones"
        )
        set_weight_args(self, "beta", beta_initializer, beta_regularizer, beta_constraint, "zeros")

    def build(self, input_shape) -> None:
        input_shape = tuple(input_shape)
        (axis,) = _axes(self.axis, len(input_shape), self)
        dim = input_shape[axis]
        if dim is None:
            raise ValueError(
                f"Axis {self.axis} of input tensor should have a defined dimension but the "
                f"layer received an input with shape {input_shape}."
            )
        if self.groups == -1:
            self.groups = dim
        if dim < self.groups:
            raise ValueError(
                f"Number of groups ({self.groups}) cannot be more than the number of channels "
                f"({dim})."
            )
        if dim % self.groups != 0:
            raise ValueError(
                f"Number of groups ({self.groups}) must be a multiple of the number of channels "
                f"({dim})."
            )
        add_gamma_and_beta(self, (dim,), self.scale, self.center)
        self.built = True

    def call(self, inputs):
        shape = shape_of(inputs)
        rank = len(shape)
        (axis,) = _axes(self.axis, rank, self)
        dim = shape[axis]
        grouped = [*shape[:axis], self.groups, dim // self.groups, *shape[axis + 1 :]]
        x = array_ops.reshape(inputs, grouped)
        # statistics over every axis but the batch's and the group's
        reduce = [i for i in range(1, rank + 1) if i != axis]
        mean, variance = _nn.moments(x, reduce, keepdims=True)
        x = (x - mean) * elementwise.rsqrt(variance + self.epsilon)
        x = array_ops.reshape(x, shape)
        pshape = [dim if i == axis else 1 for i in range(rank)]
        if self.gamma is not None:
            x = x * array_ops.reshape(self.gamma, pshape)
        if self.beta is not None:
            x = x + array_ops.reshape(self.beta, pshape)
        return x

    def compute_output_shape(self, input_shape) -> tuple:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "groups": self.groups,
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "beta_initializer": initializers.serialize(self.beta_initializer),
            "gamma_initializer": initializers.serialize(self.gamma_initializer),
            "beta_regularizer": regularizers.serialize(self.beta_regularizer),
            "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
        }


class UnitNormalization(Layer):
    """Scales each example to unit L2 norm over ``axis`` (follows
    `tf.keras.layers.UnitNormalization`): ``x / sqrt(max(sum(x**2, axis), 1e-12))``, as
    `ek.nn.l2_normalize` computes it.

    Args:
        axis: int or list of ints (default -1).

    Raises:
        TypeError: ``axis`` is not an int or a list of ints.

    >>> ek.keras.layers.UnitNormalization()(ek.constant([[3.0, 4.0]])).numpy()
    array([[0.6, 0.8]], dtype=float32)
    """

    supports_masking = True

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = _check_axis_arg(axis, "UnitNormalization")

    def call(self, inputs):
        axes = _axes(self.axis, len(shape_of(inputs)), self)
        return _nn.l2_normalize(inputs, axis=axes, epsilon=1e-12)

    def compute_output_shape(self, input_shape) -> tuple:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}


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
        self.scale = self.add_weight(
            "scale", shape=tuple(shape[a] for a in axes), initializer="ones"
        )
        self.built = True

    def call(self, inputs):
        shape = shape_of(inputs)
        axes = self._check_axes(shape)
        # As Keras, any rank whose normalized axes (`axis` taken against the input's own
        # rank) have the sizes of `scale`: built on rank 4, a rank-2 input of the same width
        # is normalized too.
        if tuple(shape[a] for a in axes) != tuple(self.scale.shape):
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: its axes '
                f"{axes} (axis={self.axis}) have sizes {[shape[a] for a in axes]}, the layer "
                f"was built for {list(self.scale.shape)}; received shape {shape}"
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
