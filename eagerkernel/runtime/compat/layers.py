"""TensorFlow 1.x layer names: `ek.layers` (``tf.layers``) and `ek.Network` (``tfe.Network``).

The classes are the Keras layers themselves, so TF 1.x eager code such as::

    class MNISTModel(tfe.Network):
        def __init__(self):
            super().__init__()
            self.conv = self.track_layer(tf.layers.Conv2D(32, 5, padding="same"))

runs unchanged. The functional forms that own no weights (``flatten``, ``dropout``,
``max_pooling2d``, ``average_pooling2d``) are here too; the ones that create weights at each
call (``tf.layers.dense``) have no meaning in eager execution and are not provided.
"""

from __future__ import annotations

from ..keras.layers import (
    AveragePooling2D,
    BatchNormalization,
    Conv2D,
    Dense,
    Embedding,
    Flatten,
    Layer,
    MaxPooling2D,
)
from ..keras.layers import Dropout as _KerasDropout

__all__ = [
    "AveragePooling2D",
    "BatchNormalization",
    "Conv2D",
    "Dense",
    "Dropout",
    "Embedding",
    "Flatten",
    "Layer",
    "MaxPooling2D",
    "Network",
    "average_pooling2d",
    "dropout",
    "flatten",
    "max_pooling2d",
]


class Dropout(_KerasDropout):
    """`ek.keras.layers.Dropout` with TF 1.x's default ``rate=0.5`` (follows `tf.layers.Dropout`).

    >>> ek.layers.Dropout().rate
    0.5
    """

    def __init__(self, rate=0.5, noise_shape=None, seed=None, **kwargs):
        super().__init__(rate, noise_shape=noise_shape, seed=seed, **kwargs)


def flatten(inputs, name=None, data_format="channels_last"):
    """Flattens all axes but the first (follows `tf.layers.flatten`).

    >>> ek.layers.flatten(ek.ones((2, 3, 4))).shape
    TensorShape([2, 12])
    """
    return Flatten(data_format=data_format)(inputs)


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """Dropout that is active only when ``training`` is true (follows `tf.layers.dropout`).

    >>> ek.layers.dropout(ek.ones((2,)), rate=0.5).numpy()
    array([1., 1.], dtype=float32)
    """
    return Dropout(rate, noise_shape=noise_shape, seed=seed)(inputs, training=training)


def max_pooling2d(
    inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None
):
    """Max pooling (follows `tf.layers.max_pooling2d`).

    >>> ek.layers.max_pooling2d(ek.ones((1, 4, 4, 2)), 2, 2).shape
    TensorShape([1, 2, 2, 2])
    """
    return MaxPooling2D(pool_size, strides, padding=padding, data_format=data_format)(inputs)


def average_pooling2d(
    inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None
):
    """Average pooling (follows `tf.layers.average_pooling2d`).

    >>> ek.layers.average_pooling2d(ek.ones((1, 4, 4, 2)), 2, 2).shape
    TensorShape([1, 2, 2, 2])
    """
    return AveragePooling2D(pool_size, strides, padding=padding, data_format=data_format)(inputs)


class Network(Layer):
    """A layer made of layers (follows TF 1.x's `tfe.Network`).

    Subclass it, create sublayers in ``__init__`` and register them with `track_layer` (or
    simply assign them to attributes: both are tracked), and write ``call``. Its `variables`
    are its layers' variables, in creation order; the layers built in its call are named in
    its scope (``two/hidden/kernel:0``), as a Keras model's are.

    >>> class TwoLayers(ek.Network):
    ...     def __init__(self):
    ...         super().__init__(name="two")
    ...         self.hidden = self.track_layer(ek.layers.Dense(4, name="hidden"))
    ...         self.out = self.track_layer(ek.layers.Dense(1, name="out"))
    ...     def call(self, x):
    ...         return self.out(self.hidden(x))
    >>> net = TwoLayers()
    >>> net(ek.ones((2, 3))).shape
    TensorShape([2, 1])
    >>> [v.name for v in net.variables]
    ['two/hidden/kernel:0', 'two/hidden/bias:0', 'two/out/kernel:0', 'two/out/bias:0']
    """

    def __init__(self, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self._network_layers = []

    @property
    def layers(self) -> list:
        """The direct sublayers, in attribute order (TF 1.x's `Network.layers`)."""
        return [c for c in self._children() if isinstance(c, Layer)]

    def track_layer(self, layer: Layer) -> Layer:
        """Tracks ``layer`` (its variables become this network's) and returns it.

        Raises:
            TypeError: if ``layer`` is not a Layer.
        """
        if not isinstance(layer, Layer):
            raise TypeError(
                f"Network.track_layer: expected a Layer, got {type(layer).__name__}: {layer!r}."
            )
        if not any(t is layer for t in self._network_layers):
            self._network_layers.append(layer)
        return layer

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """A tracked layer by name or index (TF 1.x's `Network.get_layer`).

        Raises:
            ValueError: no such layer, or neither or both of ``name`` and ``index`` given.
        """
        if (name is None) == (index is None):
            raise ValueError("Network.get_layer: give exactly one of name and index.")
        layers = self.layers
        if index is not None:
            if not -len(layers) <= index < len(layers):
                raise ValueError(
                    f"Network.get_layer: index {index} is out of range ({len(layers)} layers)."
                )
            return layers[index]
        for layer in layers:
            if layer.name == name:
                return layer
        raise ValueError(
            f"Network.get_layer: no layer named {name!r}; layers: {[x.name for x in layers]}."
        )
