"""ResNet50V2, ResNet101V2 and ResNet152V2 (follows `keras.applications.ResNet50V2` and
friends): He et al., "Identity Mappings in Deep Residual Networks" (2016), pre-activation
bottleneck blocks with Keras's layer names (``conv2_block1_preact_bn``, ...), so that
`summary()` and the weight order are Keras's."""

from __future__ import annotations

from .. import layers
from . import imagenet_utils

__all__ = [
    "ResNet50V2",
    "ResNet101V2",
    "ResNet152V2",
    "decode_predictions",
    "preprocess_input",
]

decode_predictions = imagenet_utils.decode_predictions
preprocess_input = imagenet_utils.preprocessor(
    "tf", "scaled to -1..1, as the V2 ResNets were trained"
)


def _block(x, filters, stride=1, conv_shortcut=False, name=""):
    """Keras's ``residual_block_v2``: BatchNormalization and ReLU before the block (shared
    with a 1x1 convolution shortcut), then 1x1, 3x3 (with ``stride``, padded) and 1x1
    (``4 * filters``) convolutions; an identity shortcut of a strided block is a 1x1 max
    pooling, as Keras's."""
    bn = {"axis": 3, "epsilon": 1.001e-5}
    preact = layers.BatchNormalization(**bn, name=f"{name}_preact_bn")(x)
    preact = layers.Activation("relu", name=f"{name}_preact_relu")(preact)
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=f"{name}_1_conv")(preact)
    x = layers.BatchNormalization(**bn, name=f"{name}_1_bn")(x)
    x = layers.Activation("relu", name=f"{name}_1_relu")(x)
    x = layers.ZeroPadding2D(((1, 1), (1, 1)), name=f"{name}_2_pad")(x)
    x = layers.Conv2D(filters, 3, strides=stride, use_bias=False, name=f"{name}_2_conv")(x)
    x = layers.BatchNormalization(**bn, name=f"{name}_2_bn")(x)
    x = layers.Activation("relu", name=f"{name}_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    return layers.Add(name=f"{name}_out")([shortcut, x])


def _stack(x, filters, blocks, stride1=2, name=""):
    """Keras's ``stack_residual_blocks_v2``: a conv-shortcut block, identity blocks, and a
    last block with stride ``stride1``."""
    x = _block(x, filters, conv_shortcut=True, name=f"{name}_block1")
    for i in range(2, blocks):
        x = _block(x, filters, name=f"{name}_block{i}")
    return _block(x, filters, stride=stride1, name=f"{name}_block{blocks}")


def _resnet_v2(name, blocks, include_top, weights, input_tensor, input_shape, pooling, classes,
               classifier_activation):  # fmt: skip
    inputs = imagenet_utils.start(
        name, weights, include_top, classes, classifier_activation, input_tensor, input_shape
    )
    x = layers.ZeroPadding2D(((3, 3), (3, 3)), name="conv1_pad")(inputs)
    x = layers.Conv2D(64, 7, strides=2, name="conv1_conv")(x)
    x = layers.ZeroPadding2D(((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    for stage, (filters, count) in enumerate(zip((64, 128, 256, 512), blocks), start=2):
        x = _stack(x, filters, count, stride1=1 if stage == 5 else 2, name=f"conv{stage}")
    x = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name="post_bn")(x)
    x = layers.Activation("relu", name="post_relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    return imagenet_utils.build(
        name, inputs, x, include_top, pooling, classes, classifier_activation, weights, True
    )


ResNet50V2 = imagenet_utils.variant(
    _resnet_v2,
    (3, 4, 6, 3),
    "resnet50v2",
    """The ResNet50V2 model, as a functional `Model` (follows `keras.applications.ResNet50V2`).

    The arguments are `ResNet50`'s; blocks are pre-activation (BatchNormalization and ReLU
    before each block, ``post_bn``/``post_relu`` after the last), and the stride 2 of a
    stage is in its last block. Inputs are expected as `preprocess_input` makes them (-1..1).

    >>> m = ek.keras.applications.ResNet50V2(weights=None)
    >>> m.count_params(), len(m.layers)
    (25613800, 192)
    """,
    "ResNet50V2",
)
ResNet101V2 = imagenet_utils.variant(
    _resnet_v2,
    (3, 4, 23, 3),
    "resnet101v2",
    """The ResNet101V2 model (follows `keras.applications.ResNet101V2`): `ResNet50V2` with 23
    blocks in the fourth stage.""",
    "ResNet101V2",
)
ResNet152V2 = imagenet_utils.variant(
    _resnet_v2,
    (3, 8, 36, 3),
    "resnet152v2",
    """The ResNet152V2 model (follows `keras.applications.ResNet152V2`): `ResNet50V2` with 8
    and 36 blocks in the third and fourth stages.""",
    "ResNet152V2",
)
