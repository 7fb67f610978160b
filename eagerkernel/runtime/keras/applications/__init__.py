"""`ek.keras.applications`: Keras's ImageNet architectures, built with Keras's layer names
(follows `keras.applications`): `VGG16`, `VGG19`, `ResNet50`, `ResNet101`, `ResNet152`,
`MobileNetV2` and `Xception`, each with its module's ``preprocess_input`` and
``decode_predictions``.

Pretrained ImageNet weights are files Keras downloads; eagerkernel downloads nothing, so
``weights="imagenet"`` (Keras's default) raises FileNotFoundError and models start from a
random initialization (``weights=None``) or weights saved earlier with `Model.save_weights`.
"""

from . import imagenet_utils, mobilenet_v2, resnet, vgg, xception
from .mobilenet_v2 import MobileNetV2
from .resnet import ResNet50, ResNet101, ResNet152
from .vgg import VGG16, VGG19
from .xception import Xception

resnet50 = resnet  # keras.applications.resnet50.preprocess_input
vgg16 = vgg19 = vgg

__all__ = [
    "VGG16",
    "VGG19",
    "MobileNetV2",
    "ResNet50",
    "ResNet101",
    "ResNet152",
    "Xception",
    "imagenet_utils",
    "mobilenet_v2",
    "resnet",
    "resnet50",
    "vgg16",
    "vgg19",
    "xception",
]
