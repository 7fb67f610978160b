"""DenseNet121, DenseNet169 and DenseNet201 (follows `keras.applications.DenseNet121` and
friends): Huang et al., "Densely Connected Convolutional Networks" (2017), with Keras's layer
names (``conv2_block1_0_bn``, ``pool2_conv``, ...), so that `summary()` and the weight order
are Keras's."""

from __future__ import annotations

from .. import layers
from . import imagenet_utils

__all__ = [
    "DenseNet121",
    "DenseNet169",
    "DenseNet201",
    "conv_block",
    "decode_predictions",
    "dense_block",
    "preprocess_input",
    "transition_block",
]

decode_predictions = imagenet_utils.decode_predictions
preprocess_input = imagenet_utils.preprocessor(
    "torch", "to 0..1, then the ImageNet mean and standard deviation, as DenseNet was trained"
)
_BN = {"axis": 3, "epsilon": 1.001e-5}


def conv_block(x, growth_rate, name):
    """One building block of a dense block (Keras's ``conv_block``): BatchNormalization,
    ReLU, 1x1 convolution to ``4 * growth_rate`` channels, BatchNormalization, ReLU, 3x3
    convolution to ``growth_rate`` channels, concatenated to ``x``.

    Input ``(batch, h, w, c)`` (NHWC); output ``(batch, h, w, c + growth_rate)``.
    """
    x1 = layers.BatchNormalization(**_BN, name=f"{name}_0_bn")(x)
    x1 = layers.Activation("relu", name=f"{name}_0_relu")(x1)
    x1 = layers.Conv2D(4 * growth_rate, 1, use_bias=False, name=f"{name}_1_conv")(x1)
    x1 = layers.BatchNormalization(**_BN, name=f"{name}_1_bn")(x1)
    x1 = layers.Activation("relu", name=f"{name}_1_relu")(x1)
    x1 = layers.Conv2D(growth_rate, 3, padding="same", use_bias=False, name=f"{name}_2_conv")(x1)
    return layers.Concatenate(axis=3, name=f"{name}_concat")([x, x1])


def dense_block(x, blocks: int, name: str):
    """``blocks`` `conv_block` of growth rate 32, named ``{name}_block1``, ... (Keras's
    ``dense_block``): ``c`` input channels become ``c + 32 * blocks``."""
    for i in range(blocks):
        x = conv_block(x, 32, name=f"{name}_block{i + 1}")
    return x


def transition_block(x, reduction: float, name: str):
    """Keras's ``transition_block``: BatchNormalization, ReLU, a 1x1 convolution to
    ``int(channels * reduction)`` channels and a 2x2 average pooling of stride 2."""
    x = layers.BatchNormalization(**_BN, name=f"{name}_bn")(x)
    x = layers.Activation("relu", name=f"{name}_relu")(x)
    x = layers.Conv2D(int(x.shape[3] * reduction), 1, use_bias=False, name=f"{name}_conv")(x)
    return layers.AveragePooling2D(2, strides=2, name=f"{name}_pool")(x)


def _densenet(name, blocks, include_top, weights, input_tensor, input_shape, pooling, classes,
              classifier_activation):  # fmt: skip
    inputs = imagenet_utils.start(
        name, weights, include_top, classes, classifier_activation, input_tensor, input_shape
    )
    x = layers.ZeroPadding2D(((3, 3), (3, 3)))(inputs)
    x = layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1_conv")(x)
    x = layers.BatchNormalization(**_BN, name="conv1_bn")(x)
    x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for stage, count in enumerate(blocks, start=2):
        x = dense_block(x, count, name=f"conv{stage}")
        if stage < 5:
            x = transition_block(x, 0.5, name=f"pool{stage}")
    x = layers.BatchNormalization(**_BN, name="bn")(x)
    x = layers.Activation("relu", name="relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    return imagenet_utils.build(
        name, inputs, x, include_top, pooling, classes, classifier_activation, weights, True
    )


DenseNet121 = imagenet_utils.variant(
    _densenet,
    (6, 12, 24, 16),
    "densenet121",
    """The DenseNet121 model, as a functional `Model` (follows
    `keras.applications.DenseNet121`).

    Input ``(batch, height, width, 3)`` (NHWC, RGB scaled by `preprocess_input`); output
    ``(batch, classes)`` with the top, else ``(batch, height / 32, width / 32, 1024)`` or, with
    ``pooling``, ``(batch, 1024)``.

    Args:
        include_top: end with global average pooling (``avg_pool``) and the ``classes``-way
            ``predictions`` layer (default True); else end at ``relu`` (see ``pooling``).
        weights: None (random initialization) or the path of weights saved with
            `Model.save_weights`; ``"imagenet"`` (Keras's default) raises FileNotFoundError:
            eagerkernel downloads nothing. Pass ``weights=None`` explicitly.
        input_tensor: a KerasTensor to use as the input.
        input_shape: ``(height, width, 3)``, at least 32x32; default ``(224, 224, 3)`` with
            the top, ``(None, None, 3)`` without.
        pooling: without the top: None (4-D output), ``"avg"`` or ``"max"`` (global pooling,
            layers named ``avg_pool``/``max_pool``).
        classes: size of the top's output (default 1000).
        classifier_activation: the top's activation (default softmax; None gives logits).
        name: the model's name.

    Raises:
        ValueError: Keras's argument errors (an input under 32x32 among them).
        FileNotFoundError: ``weights="imagenet"``.

    >>> m = ek.keras.applications.DenseNet121(weights=None, include_top=False,
    ...                                       input_shape=(32, 32, 3), pooling="avg")
    >>> m.count_params(), m.output_shape
    (7037504, (None, 1024))
    """,
    "DenseNet121",
)
DenseNet169 = imagenet_utils.variant(
    _densenet,
    (6, 12, 32, 32),
    "densenet169",
    """The DenseNet169 model (follows `keras.applications.DenseNet169`): `DenseNet121` with 32
    blocks in the last two dense blocks (1664 output channels); `DenseNet121`'s arguments.""",
    "DenseNet169",
)
DenseNet201 = imagenet_utils.variant(
    _densenet,
    (6, 12, 48, 32),
    "densenet201",
    """The DenseNet201 model (follows `keras.applications.DenseNet201`): `DenseNet121` with 48
    and 32 blocks in the last two dense blocks (1920 output channels); `DenseNet121`'s
    arguments.""",
    "DenseNet201",
)
