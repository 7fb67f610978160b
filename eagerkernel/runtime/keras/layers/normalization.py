"""Normalization layers: BatchNormalization."""

from __future__ import annotations

from ...core.tape import stop_recording
from ...core.tensor import to_tensor
from ...ops import array_ops, elementwise
from ...ops import nn as _nn
from .. import initializers, regularizers
from ._utils import add_gamma_and_beta, set_weight_args, shape_of
from .base import Layer
from .deferred import assign_later

__all__ = ["BatchNormalization"]


class BatchNormalization(Layer):
    """Normalizes each feature with batch statistics in training and moving averages in
    inference (follows `tf.keras.layers.BatchNormalization`).

    ``y = gamma * (x - mean) / sqrt(var + epsilon) + beta``. With ``training=True`` (directly
    or through the enclosing model) ``mean`` and ``var`` are the batch's, over every axis but
    ``axis``, and the moving statistics are updated as
    ``moving = moving * momentum + batch * (1 - momentum)`` (the population variance, as
    `ek.nn.moments` gives it); with a Keras mask (``mask=``, or the one the input carries,
    shaped as the input without its last axis) the batch statistics are over the kept steps
    only, as in Keras 3. Otherwise, and always when the layer is not trainable (Keras's rule
    for fine-tuning), the moving statistics are used and nothing is updated.

    Args:
        axis: the feature axis (default -1, channels last).
        momentum: of the moving averages (default 0.99).
        epsilon: added to the variance (default 1e-3).
        center, scale: learn ``beta`` and ``gamma`` (default True).
        beta_initializer, gamma_initializer, moving_mean_initializer,
            moving_variance_initializer: initializers (zeros, ones, zeros, ones).
        beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint: as for `Dense`.

    Input shape:
        Any, with a known size along ``axis``.

    Output shape:
        Same as the input.

    Weights: ``gamma``, ``beta`` (trainable), then ``moving_mean``, ``moving_variance``
    (non-trainable), each of shape ``(features,)``.

    Raises:
        ValueError: ``axis`` out of range for the input, or an input whose feature size
            differs from the one the layer was built for (both shapes named).

    >>> bn = ek.keras.layers.BatchNormalization(name="bn")
    >>> x = ek.constant([[0.0, 10.0], [2.0, 30.0]])
    >>> bn(x, training=True).numpy().round(2)
    array([[-1., -1.],
           [ 1.,  1.]], dtype=float32)
    >>> bn.moving_mean.numpy().round(3)
    array([0.01, 0.2 ], dtype=float32)
    >>> [v.name for v in bn.non_trainable_variables]
    ['bn/moving_mean:0', 'bn/moving_variance:0']
    """

    supports_masking = True  # passes a Keras mask on (see keras.masking)

    _computes_in_variable_dtype = True  # statistics in float32 under mixed_float16 (Keras)

    def __init__(
        self,
        axis=-1,
        momentum=0.99,
        epsilon=1e-3,
        center=True,
        scale=True,
        beta_initializer="zeros",
        gamma_initializer="ones",
        moving_mean_initializer="zeros",
        moving_variance_initializer="ones",
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        renorm=False,
        virtual_batch_size=None,
        adjustment=None,
        fused=None,
        synchronized=False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if renorm or virtual_batch_size is not None or adjustment is not None:
            raise NotImplementedError(
                "BatchNormalization: renorm, virtual_batch_size and adjustment are not supported."
            )
        if isinstance(axis, (list, tuple)):
            if len(axis) != 1:
                raise ValueError(
                    f"BatchNormalization: only one feature axis is supported. Received: axis={axis}"
                )
            (axis,) = axis
        self.axis = int(axis)
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        set_weight_args(
            self, "gamma", gamma_initializer, gamma_regularizer, gamma_constraint, "ones"
        )
        set_weight_args(self, "beta", beta_initializer, beta_regularizer, beta_constraint, "zeros")
        self.moving_mean_initializer = initializers.get(moving_mean_initializer or "zeros")
        self.moving_variance_initializer = initializers.get(moving_variance_initializer or "ones")

    def _feature_axis(self, shape: tuple) -> int:
        rank = len(shape)
        if not -rank <= self.axis < rank:
            raise ValueError(
                f'Layer "{self.name}": axis {self.axis} is out of range for an input of shape '
                f"{shape}."
            )
        return self.axis % rank

    def build(self, input_shape) -> None:
        input_shape = tuple(input_shape)
        dim = input_shape[self._feature_axis(input_shape)]
        if dim is None:
            raise ValueError(
                f'Layer "{self.name}": axis {self.axis} of the input should have a defined '
                f"dimension. Full shape received: {input_shape}"
            )
        self._built_shape = input_shape
        add_gamma_and_beta(self, (dim,), self.scale, self.center)
        self.moving_mean = self.add_weight(
            "moving_mean", shape=(dim,), initializer=self.moving_mean_initializer, trainable=False
        )
        self.moving_variance = self.add_weight(
            "moving_variance",
            shape=(dim,),
            initializer=self.moving_variance_initializer,
            trainable=False,
        )
        self.built = True

    def call(self, inputs, training=None, mask=None):
        shape = shape_of(inputs)
        axis = self._feature_axis(shape)
        dim = self.moving_mean.shape[0]
        if shape[axis] != dim:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected axis '
                f"{self.axis} of input shape to have value {dim} (the layer was built for input "
                f"shape {self._built_shape}), but received input with shape {shape}"
            )
        if training and self.trainable:
            axes = [i for i in range(len(shape)) if i != axis]
            if mask is None:
                mean, variance = _nn.moments(inputs, axes)
            else:
                mean, variance = _masked_moments(inputs, mask, axes)
            with stop_recording():  # the update is state, not part of the differentiated graph
                m = self.momentum
                # Deferred to the end of a fit step, so that a failing step changes nothing.
                assign_later(self.moving_mean, self.moving_mean * m + mean * (1 - m))
                assign_later(self.moving_variance, self.moving_variance * m + variance * (1 - m))
        else:
            mean, variance = self.moving_mean, self.moving_variance
        # TF's formulation: one multiply and one add on the full-size tensor.
        inv = elementwise.rsqrt(variance + self.epsilon)
        if self.scale:
            inv = inv * self.gamma
        offset = -mean * inv
        if self.center:
            offset = offset + self.beta
        if axis != len(shape) - 1:
            bshape = [1] * len(shape)
            bshape[axis] = dim
            inv = array_ops.reshape(inv, bshape)
            offset = array_ops.reshape(offset, bshape)
        return inputs * inv + offset

    def compute_output_shape(self, input_shape) -> tuple:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "axis": self.axis,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "beta_regularizer": regularizers.serialize(self.beta_regularizer),
            "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
        }


def _masked_moments(inputs, mask, axes):
    """Keras 3's moments over the steps a mask keeps (``mask``: the input's shape without the
    feature axis), each divided by the kept count plus Keras's epsilon 1e-7."""
    from ...ops import reduction

    keep = elementwise.cast(array_ops.expand_dims(to_tensor(mask), -1), inputs.dtype)
    keep = array_ops.broadcast_to(keep, shape_of(inputs))
    count = reduction.reduce_sum(keep, axes) + 1e-7
    mean = reduction.reduce_sum(inputs * keep, axes) / count
    centered = (inputs - mean) * keep
    return mean, reduction.reduce_sum(centered * centered, axes) / count
