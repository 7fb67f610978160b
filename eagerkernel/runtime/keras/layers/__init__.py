"""`ek.keras.layers`: the Layer base class and Keras's built-in layers."""

from __future__ import annotations

from .augmentation import (
    CenterCrop,
    RandomBrightness,
    RandomContrast,
    RandomCrop,
    RandomFlip,
    RandomRotation,
    RandomTranslation,
    RandomZoom,
    Resizing,
)
from .base import Layer
from .conv import Conv2D
from .conv_more import (
    Conv1D,
    Conv2DTranspose,
    GlobalAveragePooling1D,
    GlobalMaxPooling1D,
    UpSampling2D,
)
from .core import Activation, Dense, Dropout, Flatten, InputLayer, Lambda, ReLU, Reshape
from .embedding import Embedding
from .lookup import (
    CategoryEncoding,
    Discretization,
    Hashing,
    IntegerLookup,
    StringLookup,
    TextVectorization,
)
from .merging import (
    Add,
    Average,
    Concatenate,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    add,
    average,
    concatenate,
    maximum,
    minimum,
    multiply,
    subtract,
)
from .normalization import BatchNormalization
from .pooling import AveragePooling2D, GlobalAveragePooling2D, GlobalMaxPooling2D, MaxPooling2D
from .preprocessing import Normalization, Rescaling, Softmax
from .recurrent import GRU, LSTM, RNN, Bidirectional, GRUCell, LSTMCell, SimpleRNN, SimpleRNNCell

# Keras's aliases.
Convolution2D = Conv2D
MaxPool2D = MaxPooling2D
AvgPool2D = AveragePooling2D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalMaxPool2D = GlobalMaxPooling2D
Convolution1D = Conv1D
Convolution2DTranspose = Conv2DTranspose
GlobalAvgPool1D = GlobalAveragePooling1D
GlobalMaxPool1D = GlobalMaxPooling1D


def Input(*args, **kwargs):
    """`ek.keras.Input` (Keras exports it from ``keras.layers`` too)."""
    from ..functional import Input as _input

    return _input(*args, **kwargs)


def serialize(layer) -> dict:
    """``ek.keras.saving.serialize_keras_object(layer)`` (follows `tf.keras.layers.serialize`)."""
    from ..saving import serialize_keras_object

    return serialize_keras_object(layer)


def deserialize(config, custom_objects=None):
    """The layer a `serialize` dict describes (follows `tf.keras.layers.deserialize`)."""
    from ..saving import deserialize_keras_object

    return deserialize_keras_object(config, custom_objects)


__all__ = [
    "GRU",
    "LSTM",
    "RNN",
    "Activation",
    "Add",
    "Average",
    "AveragePooling2D",
    "AvgPool2D",
    "BatchNormalization",
    "Bidirectional",
    "CategoryEncoding",
    "CenterCrop",
    "Concatenate",
    "Conv1D",
    "Conv2D",
    "Conv2DTranspose",
    "Convolution1D",
    "Convolution2D",
    "Convolution2DTranspose",
    "Dense",
    "Discretization",
    "Dropout",
    "Embedding",
    "Flatten",
    "GRUCell",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalAvgPool1D",
    "GlobalAvgPool2D",
    "GlobalMaxPool1D",
    "GlobalMaxPool2D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "Hashing",
    "Input",
    "InputLayer",
    "IntegerLookup",
    "LSTMCell",
    "Lambda",
    "Layer",
    "MaxPool2D",
    "MaxPooling2D",
    "Maximum",
    "Minimum",
    "Multiply",
    "Normalization",
    "RandomBrightness",
    "RandomContrast",
    "RandomCrop",
    "RandomFlip",
    "RandomRotation",
    "RandomTranslation",
    "RandomZoom",
    "ReLU",
    "Rescaling",
    "Reshape",
    "Resizing",
    "SimpleRNN",
    "SimpleRNNCell",
    "Softmax",
    "StringLookup",
    "Subtract",
    "TextVectorization",
    "UpSampling2D",
    "add",
    "average",
    "concatenate",
    "deserialize",
    "maximum",
    "minimum",
    "multiply",
    "serialize",
    "subtract",
]
