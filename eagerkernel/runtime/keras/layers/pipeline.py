"""`Pipeline`: a plain layer that runs a list of layers in order (follows
`keras.layers.Pipeline`)."""

from __future__ import annotations

from ..masking import attach
from .base import Layer

__all__ = ["Pipeline"]


class Pipeline(Layer):
    """Runs ``layers`` one after the other (follows `keras.layers.Pipeline`), typically
    preprocessing and augmentation layers. Unlike `Sequential` it is a layer, not a model;
    ``training`` (default True, as in Keras) is passed to each layer that takes it, and a
    Keras mask travels on the tensors from one layer to the next.

    Args:
        layers: a list of layers. name: optional.

    Raises:
        ValueError (`from_config`): a config without a list under ``"layers"`` (Keras's
            message).

    >>> pipeline = ek.keras.layers.Pipeline(
    ...     [ek.keras.layers.Rescaling(2.0), ek.keras.layers.RandomInvert((1.0, 1.0))])
    >>> pipeline(ek.constant([[[[10.0]]]])).numpy().ravel()
    array([235.], dtype=float32)
    >>> pipeline(ek.constant([[[[10.0]]]]), training=False).numpy().ravel()
    array([20.], dtype=float32)
    """

    def __init__(self, layers, name=None):
        super().__init__(name=name)
        self._pipeline_layers = list(layers)

    @property
    def layers(self) -> list:
        return self._pipeline_layers

    def call(self, inputs, training=True, mask=None):
        attach(inputs, mask)
        for layer in self._pipeline_layers:
            inputs = layer(inputs) if training is None else layer(inputs, training=training)
        return inputs

    def compute_output_shape(self, input_shape):
        for layer in self._pipeline_layers:
            input_shape = layer.compute_output_shape(input_shape)
        return input_shape

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from ..saving import deserialize_keras_object

        layers = config.get("layers")
        if not isinstance(layers, (list, tuple)):
            raise ValueError(
                "`Pipeline` config must contain a `layers` key mapping to a list of serialized "
                f"layers. Received config with layers={layers}."
            )
        config = {**config}
        config["layers"] = [deserialize_keras_object(x, custom_objects) for x in layers]
        return cls(**config)

    def get_config(self) -> dict:
        from ..saving import serialize_keras_object

        return {"layers": serialize_keras_object(self._pipeline_layers), "name": self.name}
