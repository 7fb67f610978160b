"""ResNet50, ResNet101 and ResNet152 (follows `keras.applications.ResNet50` and friends): He et
al., "Deep Residual Learning for Image Recognition" (2015), bottleneck blocks with Keras's
layer names (``conv2_block1_1_conv``, ...), so that `summary()` and the weight order are
Keras's."""

from __future__ import annotations

from .. import layers
from . import imagenet_utils
from .imagenet_utils import preprocess_input as _preprocess

__all__ = ["ResNet50", "ResNet101", "ResNet152", "decode_predictions", "preprocess_input"]

decode_predictions = imagenet_utils.decode_predictions


def preprocess_input(x, data_format=None):
    """`imagenet_utils.preprocess_input` in ``"caffe"`` mode, as the ResNets were trained."""
    return _preprocess(x, data_format=data_format, mode="caffe")


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


def _stack(x, filters, blocks, stride1=2, name=""):
    x = _block(x, filters, stride=stride1, name=f"{name}_block1")
    for i in range(2, blocks + 1):
        x = _block(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def _resnet(
    name,
    blocks,
    include_top,
    weights,
    input_tensor,
    input_shape,
    pooling,
    classes,
    classifier_activation,
):
    imagenet_utils.check_arguments(name, weights, include_top, classes, classifier_activation)
    inputs = imagenet_utils.input_tensor_for(name, input_shape, input_tensor, include_top)
    x = layers.ZeroPadding2D(((3, 3), (3, 3)), name="conv1_pad")(inputs)
    x = layers.Conv2D(64, 7, strides=2, name="conv1_conv")(x)
    x = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name="conv1_bn")(x)
    x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    for stage, (filters, count) in enumerate(zip((64, 128, 256, 512), blocks), start=2):
        x = _stack(x, filters, count, stride1=1 if stage == 2 else 2, name=f"conv{stage}")
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    return imagenet_utils.build(
        name, inputs, x, include_top, pooling, classes, classifier_activation, weights, True
    )


def ResNet50(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="resnet50",
):
    """The ResNet50 model, as a functional `Model` (follows `keras.applications.ResNet50`).

    Args:
        include_top: end with global average pooling (``avg_pool``) and the ``classes``-way
            ``predictions`` layer (default True); else end at the last block (see
            ``pooling``).
        weights: None (random initialization) or the path of weights saved with
            `Model.save_weights`; ``"imagenet"`` (Keras's default) raises FileNotFoundError:
            eagerkernel downloads nothing. Pass ``weights=None`` explicitly.
        input_tensor: a KerasTensor to use as the input.
        input_shape: ``(height, width, 3)``, at least 32x32; default ``(224, 224, 3)`` with
            the top, ``(None, None, 3)`` without.
        pooling: without the top: None (4-D output), ``"avg"`` or ``"max"``.
        classes: size of the top's output (default 1000).
        classifier_activation: the top's activation (default softmax; None gives logits).
        name: the model's name.

    Raises:
        ValueError: Keras's argument errors. FileNotFoundError: ``weights="imagenet"``.

    >>> m = ek.keras.applications.ResNet50(weights=None)
    >>> m.count_params(), len(m.layers)
    (25636712, 177)
    """
    return _resnet(
        name,
        (3, 4, 6, 3),
        include_top,
        weights,
        input_tensor,
        input_shape,
        pooling,
        classes,
        classifier_activation,
    )


def ResNet101(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="resnet101",
):
    """The ResNet101 model (follows `keras.applications.ResNet101`): `ResNet50`'s arguments,
    23 blocks in the fourth stage."""
    return _resnet(
        name,
        (3, 4, 23, 3),
        include_top,
        weights,
        input_tensor,
        input_shape,
        pooling,
        classes,
        classifier_activation,
    )


def ResNet152(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="resnet152",
):
    """The ResNet152 model (follows `keras.applications.ResNet152`): `ResNet50`'s arguments,
    8 and 36 blocks in the third and fourth stages."""
    return _resnet(
        name,
        (3, 8, 36, 3),
        include_top,
        weights,
        input_tensor,
        input_shape,
        pooling,
        classes,
        classifier_activation,
    )
