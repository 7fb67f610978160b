"""`ek.keras.applications`: Keras's ImageNet architectures, built with Keras's layer names
(follows `keras.applications`): `VGG16`, `VGG19`, `ResNet50`, `ResNet101`, `ResNet152`,
`ResNet50V2`, `ResNet101V2`, `ResNet152V2`, `MobileNet`, `MobileNetV2`, `MobileNetV3Small`,
`MobileNetV3Large`, `DenseNet121`, `DenseNet169`, `DenseNet201`, `InceptionV3`,
`EfficientNetB0` .. `EfficientNetB7` and `Xception`, each with its module's
``preprocess_input`` and ``decode_predictions``.

Pretrained ImageNet weights are files Keras downloads; eagerkernel downloads nothing, so
``weights="imagenet"`` (Keras's default) raises FileNotFoundError and models start from a
random initialization (``weights=None``) or weights saved earlier with `Model.save_weights`.
"""

from . import (
    densenet,
    efficientnet,
    imagenet_utils,
    inception_v3,
    mobilenet,
    mobilenet_v2,
    mobilenet_v3,
    resnet,
    resnet_v2,
    vgg,
    xception,
)
from .densenet import DenseNet121, DenseNet169, DenseNet201
from .efficientnet import (
    EfficientNetB0,
    EfficientNetB1,
    EfficientNetB2,
    EfficientNetB3,
    EfficientNetB4,
    EfficientNetB5,
    EfficientNetB6,
    EfficientNetB7,
)
from .inception_v3 import InceptionV3
from .mobilenet import MobileNet
from .mobilenet_v2 import MobileNetV2
from .mobilenet_v3 import MobileNetV3Large, MobileNetV3Small
from .resnet import ResNet50, ResNet101, ResNet152
from .resnet_v2 import ResNet50V2, ResNet101V2, ResNet152V2
from .vgg import VGG16, VGG19
from .xception import Xception

resnet50 = resnet  # keras.applications.resnet50.preprocess_input
vgg16 = vgg19 = vgg

__all__ = [
    "VGG16",
    "VGG19",
    "DenseNet121",
    "DenseNet169",
    "DenseNet201",
    "EfficientNetB0",
    "EfficientNetB1",
    "EfficientNetB2",
    "EfficientNetB3",
    "EfficientNetB4",
    "EfficientNetB5",
    "EfficientNetB6",
    "EfficientNetB7",
    "InceptionV3",
    "MobileNet",
    "MobileNetV2",
    "MobileNetV3Large",
    "MobileNetV3Small",
    "ResNet50",
    "ResNet50V2",
    "ResNet101",
    "ResNet101V2",
    "ResNet152",
    "ResNet152V2",
    "Xception",
    "densenet",
    "efficientnet",
    "imagenet_utils",
    "inception_v3",
    "mobilenet",
    "mobilenet_v2",
    "mobilenet_v3",
    "resnet",
    "resnet50",
    "resnet_v2",
    "vgg16",
    "vgg19",
    "xception",
]
