"""`ek.keras.layers`: the Layer base class and Keras's built-in layers."""

from __future__ import annotations

from .attention import AdditiveAttention, Attention, MultiHeadAttention
from .audio_preprocessing import MelSpectrogram, STFTSpectrogram
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
from .augmentation_color import (
    RandomColorDegeneration,
    RandomColorJitter,
    RandomGaussianBlur,
    RandomHue,
    RandomSaturation,
    RandomSharpness,
)
from .augmentation_geometry import RandomElasticTransform, RandomPerspective, RandomShear
from .augmentation_mix import CutMix, MaxNumBoundingBoxes, MixUp, RandomErasing
from .augmentation_pixel import (
    AutoContrast,
    Equalization,
    RandomGrayscale,
    RandomInvert,
    RandomPosterization,
    Solarization,
)
from .augmentation_policy import AugMix, RandAugment
from .base import Layer
from .conv import Conv1D, Conv1DTranspose, Conv2D, Conv2DTranspose, Conv3D, Conv3DTranspose
from .conv_depthwise import DepthwiseConv1D, DepthwiseConv2D, SeparableConv1D, SeparableConv2D
from .conv_lstm import ConvLSTM1D, ConvLSTM2D, ConvLSTM3D
from .core import Activation, Dense, Dropout, Flatten, InputLayer, Lambda, ReLU, Reshape
from .core_more import (
    ELU,
    ActivityRegularization,
    Dot,
    Identity,
    LeakyReLU,
    Masking,
    Permute,
    PReLU,
    RepeatVector,
    dot,
)
from .einsum_dense import EinsumDense
from .embedding import Embedding
from .embedding_reversible import ReversibleEmbedding
from .grouped_query_attention import GroupedQueryAttention
from .hashing import HashedCrossing, Hashing
from .input_spec import InputSpec
from .lookup import (
    CategoryEncoding,
    Discretization,
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
from .noise import (
    AlphaDropout,
    GaussianDropout,
    GaussianNoise,
    SpatialDropout1D,
    SpatialDropout2D,
    SpatialDropout3D,
)
from .normalization import BatchNormalization
from .normalization_more import (
    GroupNormalization,
    LayerNormalization,
    RMSNormalization,
    UnitNormalization,
)
from .normalization_spectral import SpectralNormalization
from .pipeline import Pipeline
from .pooling import (
    AveragePooling1D,
    AveragePooling2D,
    AveragePooling3D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAveragePooling3D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    GlobalMaxPooling3D,
    MaxPooling1D,
    MaxPooling2D,
    MaxPooling3D,
)
from .pooling_adaptive import (
    AdaptiveAveragePooling1D,
    AdaptiveAveragePooling2D,
    AdaptiveAveragePooling3D,
    AdaptiveMaxPooling1D,
    AdaptiveMaxPooling2D,
    AdaptiveMaxPooling3D,
)
from .preprocessing import Normalization, Rescaling, Softmax
from .recurrent import GRU, LSTM, RNN, Bidirectional, GRUCell, LSTMCell, SimpleRNN, SimpleRNNCell
from .reshaping import (
    Cropping1D,
    Cropping2D,
    Cropping3D,
    UpSampling1D,
    UpSampling2D,
    UpSampling3D,
    ZeroPadding1D,
    ZeroPadding2D,
    ZeroPadding3D,
)
from .rnn_stacked import StackedRNNCells
from .wrappers import TimeDistributed, Wrapper

# Keras's aliases.
Convolution2D = Conv2D
MaxPool2D = MaxPooling2D
AvgPool2D = AveragePooling2D
SeparableConvolution2D = SeparableConv2D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalMaxPool2D = GlobalMaxPooling2D
Convolution1D = Conv1D
Convolution2DTranspose = Conv2DTranspose
GlobalAvgPool1D = GlobalAveragePooling1D
GlobalMaxPool1D = GlobalMaxPooling1D
MaxPool1D = MaxPooling1D
AvgPool1D = AveragePooling1D
Convolution3D = Conv3D
Convolution3DTranspose = Conv3DTranspose
MaxPool3D = MaxPooling3D
AvgPool3D = AveragePooling3D
GlobalAvgPool3D = GlobalAveragePooling3D
GlobalMaxPool3D = GlobalMaxPooling3D
Convolution1DTranspose = Conv1DTranspose
SeparableConvolution1D = SeparableConv1D


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


GroupQueryAttention = GroupedQueryAttention  # the name Keras 3 exports

__all__ = [
    "ELU",
    "GRU",
    "LSTM",
    "RNN",
    "Activation",
    "ActivityRegularization",
    "AdaptiveAveragePooling1D",
    "AdaptiveAveragePooling2D",
    "AdaptiveAveragePooling3D",
    "AdaptiveMaxPooling1D",
    "AdaptiveMaxPooling2D",
    "AdaptiveMaxPooling3D",
    "Add",
    "AdditiveAttention",
    "AlphaDropout",
    "Attention",
    "AugMix",
    "AutoContrast",
    "Average",
    "AveragePooling1D",
    "AveragePooling2D",
    "AveragePooling3D",
    "AvgPool1D",
    "AvgPool2D",
    "AvgPool3D",
    "BatchNormalization",
    "Bidirectional",
    "CategoryEncoding",
    "CenterCrop",
    "Concatenate",
    "Conv1D",
    "Conv1DTranspose",
    "Conv2D",
    "Conv2DTranspose",
    "Conv3D",
    "Conv3DTranspose",
    "ConvLSTM1D",
    "ConvLSTM2D",
    "ConvLSTM3D",
    "Convolution1D",
    "Convolution1DTranspose",
    "Convolution2D",
    "Convolution2DTranspose",
    "Convolution3D",
    "Convolution3DTranspose",
    "Cropping1D",
    "Cropping2D",
    "Cropping3D",
    "CutMix",
    "Dense",
    "DepthwiseConv1D",
    "DepthwiseConv2D",
    "Discretization",
    "Dot",
    "Dropout",
    "EinsumDense",
    "Embedding",
    "Equalization",
    "Flatten",
    "GRUCell",
    "GaussianDropout",
    "GaussianNoise",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalAveragePooling3D",
    "GlobalAvgPool1D",
    "GlobalAvgPool2D",
    "GlobalAvgPool3D",
    "GlobalMaxPool1D",
    "GlobalMaxPool2D",
    "GlobalMaxPool3D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "GlobalMaxPooling3D",
    "GroupNormalization",
    "GroupQueryAttention",
    "GroupedQueryAttention",
    "HashedCrossing",
    "Hashing",
    "Identity",
    "Input",
    "InputLayer",
    "InputSpec",
    "IntegerLookup",
    "LSTMCell",
    "Lambda",
    "Layer",
    "LayerNormalization",
    "LeakyReLU",
    "Masking",
    "MaxNumBoundingBoxes",
    "MaxPool1D",
    "MaxPool2D",
    "MaxPool3D",
    "MaxPooling1D",
    "MaxPooling2D",
    "MaxPooling3D",
    "Maximum",
    "MelSpectrogram",
    "Minimum",
    "MixUp",
    "MultiHeadAttention",
    "Multiply",
    "Normalization",
    "PReLU",
    "Permute",
    "Pipeline",
    "RMSNormalization",
    "RandAugment",
    "RandomBrightness",
    "RandomColorDegeneration",
    "RandomColorJitter",
    "RandomContrast",
    "RandomCrop",
    "RandomElasticTransform",
    "RandomErasing",
    "RandomFlip",
    "RandomGaussianBlur",
    "RandomGrayscale",
    "RandomHue",
    "RandomInvert",
    "RandomPerspective",
    "RandomPosterization",
    "RandomRotation",
    "RandomSaturation",
    "RandomSharpness",
    "RandomShear",
    "RandomTranslation",
    "RandomZoom",
    "ReLU",
    "RepeatVector",
    "Rescaling",
    "Reshape",
    "Resizing",
    "ReversibleEmbedding",
    "STFTSpectrogram",
    "SeparableConv1D",
    "SeparableConv2D",
    "SeparableConvolution1D",
    "SeparableConvolution2D",
    "SimpleRNN",
    "SimpleRNNCell",
    "Softmax",
    "Solarization",
    "SpatialDropout1D",
    "SpatialDropout2D",
    "SpatialDropout3D",
    "SpectralNormalization",
    "StackedRNNCells",
    "StringLookup",
    "Subtract",
    "TextVectorization",
    "TimeDistributed",
    "UnitNormalization",
    "UpSampling1D",
    "UpSampling2D",
    "UpSampling3D",
    "Wrapper",
    "ZeroPadding1D",
    "ZeroPadding2D",
    "ZeroPadding3D",
    "add",
    "average",
    "concatenate",
    "deserialize",
    "dot",
    "maximum",
    "minimum",
    "multiply",
    "serialize",
    "subtract",
]
