"""ResNet50, ResNet101 and ResNet152 (follows `keras.applications.ResNet50` and friends): He et
al., "Deep Residual Learning for Image Recognition" (2015), bottleneck blocks with Keras's
layer names (``conv2_block1_1_conv``, ...), so that `summary()` and the weight order are
Keras's."""

from __future__ import annotations

from .. import layers
from . import imagenet_utils

__all__ = ["ResNet50", "ResNet101", "ResNet152", "decode_predictions", "preprocess_input"]

decode_predictions = imagenet_utils.decode_predictions
preprocess_input = imagenet_utils.preprocessor(
    "caffe", "RGB to BGR, minus the ImageNet channel means, as the ResNets were trained"
)


def _block(x, filters, stride=1, conv_shortcut=True, name=""):
    """Keras's ``residual_block_v1``: 1x1, 3x3, 1x1 (``4 * filters``) convolutions, each with
    BatchNormalization, plus the shortcut."""
    bn = {"axis": 3, "epsilon": 1.001e-5}
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(x)
        shortcut = layers.BatchNormalization(**bn, name=f"{name}_0_bn")(shortcut)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=f"{name}_1_conv")(x)
    x = layers.BatchNormalization(**bn, name=f"{name}_1_bn")(x)
    x = layers.Activation("relu", name=f"{name}_1_relu")(x)
    x = layers.Conv2D(filters, 3, padding="same", name=f"{name}_2_conv")(x)
    x = layers.BatchNormalization(**bn, name=f"{name}_2_bn")(x)
    x = layers.Activation("relu", name=f"{name}_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    x = layers.BatchNormalization(**bn, name=f"{name}_3_bn")(x)
    x = layers.Add(name=f"{name}_add")([shortcut, x])
    return layers.Activation("relu", name=f"{name}_out")(x)


def _resnet(name, blocks, include_top, weights, input_tensor, input_shape, pooling, classes,
            classifier_activation):  # fmt: skip
    inputs = imagenet_utils.start(
        name, weights, include_top, classes, classifier_activation, input_tensor, input_shape
    )
    x = layers.ZeroPadding2D(((3, 3), (3, 3)), name="conv1_pad")(inputs)
    x = layers.Conv2D(64, 7, strides=2, name="conv1_conv")(x)
    x = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name="conv1_bn")(x)
    x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    for stage, (filters, count) in enumerate(zip((64, 128, 256, 512), blocks), start=2):
        x = _block(x, filters, stride=1 if stage == 2 else 2, name=f"conv{stage}_block1")
        for i in range(2, count + 1):
            x = _block(x, filters, conv_shortcut=False, name=f"conv{stage}_block{i}")
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    return imagenet_utils.build(
        name, inputs, x, include_top, pooling, classes, classifier_activation, weights, True
    )


ResNet50 = imagenet_utils.variant(
    _resnet,
    (3, 4, 6, 3),
    "resnet50",
    """The ResNet50 model, as a functional `Model` (follows `keras.applications.ResNet50`).

    The arguments are `VGG16`'s, except that the top is global average pooling (``avg_pool``)
    and the ``classes``-way ``predictions`` layer, and the global pooling layers without the
    top are named ``avg_pool``/``max_pool``.

    >>> m = ek.keras.applications.ResNet50(weights=None)
    >>> m.count_params(), len(m.layers)
    (25636712, 177)
    """,
    "ResNet50",
)
ResNet101 = imagenet_utils.variant(
    _resnet,
    (3, 4, 23, 3),
    "resnet101",
    """The ResNet101 model (follows `keras.applications.ResNet101`): `ResNet50` with 23 blocks
    in the fourth stage.""",
    "ResNet101",
)
ResNet152 = imagenet_utils.variant(
    _resnet,
    (3, 8, 36, 3),
    "resnet152",
    """The ResNet152 model (follows `keras.applications.ResNet152`): `ResNet50` with 8 and 36
    blocks in the third and fourth stages.""",
    "ResNet152",
)
