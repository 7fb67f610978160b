"""Wrapper, the base of the layers that hold another layer, and TimeDistributed: one layer
applied to every temporal slice (follow `tf.keras.layers.Wrapper` and `TimeDistributed`)."""

from __future__ import annotations

import inspect

from ...ops import array_ops
from ._utils import shape_of
from .base import Layer

__all__ = ["TimeDistributed", "Wrapper"]


class Wrapper(Layer):
    """The base class of layers that wrap another layer (follows `tf.keras.layers.Wrapper`):
    holds it as ``self.layer`` (its weights are the wrapper's), builds it with the wrapper's
    input shape, and puts its serialized config under ``"layer"`` in `get_config`.

    Args:
        layer: a `Layer` instance.

    Raises:
        ValueError: ``layer`` is not a Layer (the message names what was received).

    >>> class Twice(ek.keras.layers.Wrapper):
    ...     def call(self, inputs):
    ...         return 2.0 * self.layer(inputs)
    >>> w = Twice(ek.keras.layers.Dense(3, kernel_initializer="ones"))
    >>> w(ek.ones((1, 2))).numpy().tolist(), len(w.weights)
    ([[4.0, 4.0, 4.0]], 2)
    >>> type(Twice.from_config(w.get_config()).layer).__name__
    'Dense'
    """

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(
                f"Layer {layer!r} supplied to {type(self).__name__} isn't a supported layer "
                "type. Please ensure wrapped layer is a valid Keras layer. Received: "
                f"layer={layer!r} of type {type(layer).__name__}"
            )
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape=None) -> None:
        if not self.layer.built:
            with self.layer.name_scope:
                self.layer._maybe_build_shapes(input_shape)
        self.built = True

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)

    def get_config(self) -> dict:
        from ..saving import serialize_keras_object

        layer = serialize_keras_object(self.layer)
        layer.pop("build_config", None)  # built by the wrapper's build
        return {**super().get_config(), "layer": layer}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        from ..saving import deserialize_keras_object

        config = dict(config)
        layer = deserialize_keras_object(config.pop("layer"), custom_objects)
        return cls(layer, **config)


class TimeDistributed(Wrapper):
    """Applies ``layer`` to every slice ``inputs[:, t]`` of a ``(batch, time, ...)`` input,
    with the same weights for every step (follows `tf.keras.layers.TimeDistributed`).

    The steps run as one call of ``layer`` on the input reshaped to ``(batch * time, ...)``,
    which for every layer whose output for an example depends on that example alone gives
    Keras 3's per-step results. (A BatchNormalization inside, in training, sees the statistics
    of all steps together, as in Keras 2, where Keras 3 takes each step's batch separately.)

    Args:
        layer: a `Layer` instance.

    Call arguments:
        inputs: ``(batch, time, ...)``, rank >= 3. training: passed to ``layer``.
        mask: optional boolean ``(batch, time, ...)``, passed (reshaped) to ``layer`` when its
        call takes a mask.

    Output: ``(batch, time, *layer_output_shape[1:])``; it carries the input's Keras mask on
    (as tf_keras 2's TimeDistributed; Keras 3's drops it, with a warning).

    Raises:
        ValueError: ``layer`` is not a Layer, an input of rank < 3, or a mask whose leading
            axes are not ``(batch, time)`` (Keras's messages).

    >>> td = ek.keras.layers.TimeDistributed(ek.keras.layers.Dense(8))
    >>> td(ek.ones((32, 10, 16))).shape
    TensorShape([32, 10, 8])
    """

    supports_masking = True

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(
                "Please initialize `TimeDistributed` layer with a `keras.layers.Layer` "
                f"instance. Received: {layer!r}"
            )
        super().__init__(layer, **kwargs)
        try:
            self._layer_takes_mask = "mask" in inspect.signature(layer.call).parameters
        except (TypeError, ValueError):
            self._layer_takes_mask = False

    def _child_shape(self, input_shape) -> tuple:
        if not isinstance(input_shape, (tuple, list)) or len(input_shape) < 3:
            raise ValueError(
                "`TimeDistributed` Layer should be passed an `input_shape` with at least 3 "
                f"dimensions, received: {input_shape}"
            )
        return (input_shape[0], *tuple(input_shape)[2:])

    def build(self, input_shape) -> None:
        child = self._child_shape(tuple(input_shape))
        if not self.layer.built:
            with self.layer.name_scope:
                self.layer._maybe_build_shapes(child)
        self.built = True

    def call(self, inputs, training=None, mask=None):
        shape = shape_of(inputs)
        self._child_shape(shape)
        batch, steps = shape[0], shape[1]
        kwargs = {}
        if training is not None:
            kwargs["training"] = training
        if mask is not None:
            mask_shape = shape_of(mask)
            if tuple(mask_shape[:2]) != (batch, steps):
                raise ValueError(
                    f"`TimeDistributed` Layer should be passed a `mask` of shape ({batch}, "
                    f"{steps}, ...), received: mask.shape={tuple(mask_shape)}"
                )
            if self._layer_takes_mask and len(mask_shape) > 2:
                kwargs["mask"] = array_ops.reshape(mask, (batch * steps, *mask_shape[2:]))
        flat = array_ops.reshape(inputs, (batch * steps, *shape[2:]))
        out = self.layer(flat, **kwargs)
        return array_ops.reshape(out, (batch, steps, *shape_of(out)[1:]))

    def compute_output_shape(self, input_shape) -> tuple:
        child = self.layer.compute_output_shape(self._child_shape(tuple(input_shape)))
        return (child[0], input_shape[1], *tuple(child)[1:])
