"""MobileNetV2 (follows `keras.applications.MobileNetV2`): Sandler et al., "MobileNetV2:
Inverted Residuals and Linear Bottlenecks" (2018), with Keras's layer names (``Conv1``,
``block_1_expand``, ...) and its ``alpha`` width multiplier."""

from __future__ import annotations

from .. import layers
from . import imagenet_utils

__all__ = ["MobileNetV2", "decode_predictions", "preprocess_input"]

decode_predictions = imagenet_utils.decode_predictions
preprocess_input = imagenet_utils.preprocessor("tf", "to -1..1, as MobileNetV2 was trained")

# (filters, stride, expansion) of the 17 inverted residual blocks, in order.
_BLOCKS = (
    [(16, 1, 1)]
    + [(24, 2, 6), (24, 1, 6)]
    + [(32, 2, 6)]
    + [(32, 1, 6)] * 2
    + [(64, 2, 6)]
    + [(64, 1, 6)] * 3
    + [(96, 1, 6)] * 3
    + [(160, 2, 6)]
    + [(160, 1, 6)] * 2
    + [(320, 1, 6)]
)


def _make_divisible(v, divisor=8, min_value=None):
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def _inverted_res_block(inputs, expansion, stride, alpha, filters, block_id):
    bn = {"axis": -1, "epsilon": 1e-3, "momentum": 0.999}
    in_channels = inputs.shape[-1]
    pointwise_filters = _make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_"
    if block_id:
        x = layers.Conv2D(
            expansion * in_channels, 1, padding="same", use_bias=False, name=f"{prefix}expand"
        )(x)
        x = layers.BatchNormalization(**bn, name=f"{prefix}expand_BN")(x)
        x = layers.ReLU(6.0, name=f"{prefix}expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(imagenet_utils.correct_pad(x, 3), name=f"{prefix}pad")(x)
    x = layers.DepthwiseConv2D(
        3,
        strides=stride,
        use_bias=False,
        padding="same" if stride == 1 else "valid",
        name=f"{prefix}depthwise",
    )(x)
    x = layers.BatchNormalization(**bn, name=f"{prefix}depthwise_BN")(x)
    x = layers.ReLU(6.0, name=f"{prefix}depthwise_relu")(x)
    x = layers.Conv2D(
        pointwise_filters, 1, padding="same", use_bias=False, name=f"{prefix}project"
    )(x)
    x = layers.BatchNormalization(**bn, name=f"{prefix}project_BN")(x)
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=f"{prefix}add")([inputs, x])
    return x


def MobileNetV2(
    input_shape=None,
    alpha=1.0,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name=None,
):
    """The MobileNetV2 model, as a functional `Model` (follows
    `keras.applications.MobileNetV2`).

    Args:
        input_shape: ``(height, width, 3)``, at least 32x32; default ``(224, 224, 3)`` with
            the top, ``(None, None, 3)`` without.
        alpha: width multiplier of every layer's filters (default 1.0).
        include_top: end with global average pooling and the ``classes``-way ``predictions``
            layer (default True).
        weights: None (random initialization) or the path of weights saved with
            `Model.save_weights`; ``"imagenet"`` (Keras's default) raises FileNotFoundError:
            eagerkernel downloads nothing. Pass ``weights=None`` explicitly.
        input_tensor, pooling, classes, classifier_activation: as for `ResNet50`.
        name: default ``mobilenetv2_{alpha:0.2f}_{rows}`` (Keras's).

    Raises:
        ValueError: Keras's argument errors. FileNotFoundError: ``weights="imagenet"``.

    >>> m = ek.keras.applications.MobileNetV2(weights=None)
    >>> m.count_params(), m.name
    (3538984, 'mobilenetv2_1.00_224')
    """
    inputs = imagenet_utils.start(
        "MobileNetV2", weights, include_top, classes, classifier_activation, input_tensor,
        input_shape,
    )  # fmt: skip
    rows = inputs.shape[1]
    bn = {"axis": -1, "epsilon": 1e-3, "momentum": 0.999}
    x = layers.Conv2D(
        _make_divisible(32 * alpha, 8), 3, strides=2, padding="same", use_bias=False, name="Conv1"
    )(inputs)
    x = layers.BatchNormalization(**bn, name="bn_Conv1")(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_res_block(x, expansion, stride, alpha, filters, block_id)
    last = _make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last, 1, use_bias=False, name="Conv_1")(x)
    x = layers.BatchNormalization(**bn, name="Conv_1_bn")(x)
    x = layers.ReLU(6.0, name="out_relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D()(x)
    name = name if name is not None else f"mobilenetv2_{alpha:0.2f}_{rows}"
    return imagenet_utils.build(
        name, inputs, x, include_top, pooling, classes, classifier_activation, weights
    )
