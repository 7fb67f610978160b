"""`ek.keras.layers`: the Layer base class and Keras's built-in layers."""

from __future__ import annotations

from .base import Layer
from .conv import Conv2D
from .core import Activation, Dense, Dropout, Flatten, InputLayer, Lambda, ReLU, Reshape
from .embedding import Embedding
from .normalization import BatchNormalization
from .pooling import AveragePooling2D, GlobalAveragePooling2D, GlobalMaxPooling2D, MaxPooling2D

# Keras's aliases.
Convolution2D = Conv2D
MaxPool2D = MaxPooling2D
AvgPool2D = AveragePooling2D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalMaxPool2D = GlobalMaxPooling2D

__all__ = [
    "Activation",
    "AveragePooling2D",
    "AvgPool2D",
    "BatchNormalization",
    "Conv2D",
    "Convolution2D",
    "Dense",
    "Dropout",
    "Embedding",
    "Flatten",
    "GlobalAveragePooling2D",
    "GlobalAvgPool2D",
    "GlobalMaxPool2D",
    "GlobalMaxPooling2D",
    "InputLayer",
    "Lambda",
    "Layer",
    "MaxPool2D",
    "MaxPooling2D",
    "ReLU",
    "Reshape",
]
