"""MobileNet (follows `keras.applications.MobileNet`): Howard et al., "MobileNets: Efficient
Convolutional Neural Networks for Mobile Vision Applications" (2017), with Keras's layer names
(``conv1``, ``conv_dw_1``, ``conv_pw_1``, ...), its ``alpha`` width multiplier and
``depth_multiplier``."""

from __future__ import annotations

from .. import layers
from . import imagenet_utils

__all__ = ["MobileNet", "decode_predictions", "preprocess_input"]

decode_predictions = imagenet_utils.decode_predictions
preprocess_input = imagenet_utils.preprocessor("tf", "to -1..1, as MobileNet was trained")

# (pointwise filters, stride) of the 13 depthwise separable blocks, ``conv_dw_1``..``conv_dw_13``.
_BLOCKS = (
    [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)]
    + [(512, 1)] * 5
    + [(1024, 2), (1024, 1)]
)


def _depthwise_conv_block(x, filters, alpha, depth_multiplier, stride, block_id):
    """Keras's ``_depthwise_conv_block``: a 3x3 depthwise convolution and a 1x1 pointwise one,
    each with BatchNormalization and ReLU6; a stride-2 block pads bottom and right first."""
    if stride != 1:
        x = layers.ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(x)
    x = layers.DepthwiseConv2D(
        3,
        padding="same" if stride == 1 else "valid",
        depth_multiplier=depth_multiplier,
        strides=stride,
        use_bias=False,
        name=f"conv_dw_{block_id}",
    )(x)
    x = layers.BatchNormalization(axis=-1, name=f"conv_dw_{block_id}_bn")(x)
    x = layers.ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = layers.Conv2D(
        int(filters * alpha), 1, padding="same", use_bias=False, name=f"conv_pw_{block_id}"
    )(x)
    x = layers.BatchNormalization(axis=-1, name=f"conv_pw_{block_id}_bn")(x)
    return layers.ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)


def MobileNet(
    input_shape=None,
    alpha=1.0,
    depth_multiplier=1,
    dropout=1e-3,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name=None,
):
    """The MobileNet (v1) model, as a functional `Model` (follows
    `keras.applications.MobileNet`).

    Input ``(batch, height, width, 3)`` (NHWC, RGB scaled by `preprocess_input` to -1..1);
    output ``(batch, classes)`` with the top, else ``(batch, height / 32, width / 32,
    1024 * alpha)`` or, with ``pooling``, ``(batch, 1024 * alpha)``.

    Args:
        input_shape: ``(height, width, 3)``, at least 32x32; default ``(224, 224, 3)`` with
            the top, ``(None, None, 3)`` without.
        alpha: width multiplier of every layer's filters (default 1.0).
        depth_multiplier: the depthwise convolutions' channel multiplier (default 1).
        dropout: rate of the top's ``dropout`` layer (default 0.001).
        include_top: end with global average pooling, ``dropout``, the 1x1 convolution
            ``conv_preds`` to ``classes`` channels, ``reshape_2`` and the ``predictions``
            activation (default True); else end at ``conv_pw_13_relu`` (see ``pooling``).
        weights: None (random initialization) or the path of weights saved with
            `Model.save_weights`; ``"imagenet"`` (Keras's default) raises FileNotFoundError:
            eagerkernel downloads nothing. Pass ``weights=None`` explicitly.
        input_tensor: a KerasTensor to use as the input.
        pooling: without the top: None (4-D output), ``"avg"`` or ``"max"`` (global pooling).
        classes: size of the top's output (default 1000).
        classifier_activation: the top's activation (default softmax; None gives logits).
        name: default ``mobilenet_{alpha:0.2f}_{rows}`` (Keras's).

    Raises:
        ValueError: Keras's argument errors (an input under 32x32 among them; with
            ``weights="imagenet"``, ``depth_multiplier`` other than 1 or ``alpha`` not one of
            0.25, 0.5, 0.75, 1.0).
        FileNotFoundError: ``weights="imagenet"``.

    >>> m = ek.keras.applications.MobileNet(weights=None)
    >>> m.count_params(), m.name, m.output_shape
    (4253864, 'mobilenet_1.00_224', (None, 1000))
    """
    if weights == "imagenet":  # Keras's checks of the pretrained variants come first
        if depth_multiplier != 1:
            raise ValueError(
                "If imagenet weights are being loaded, depth multiplier must be 1.  "
                f"Received depth_multiplier={depth_multiplier}"
            )
        if alpha not in (0.25, 0.50, 0.75, 1.0):
            raise ValueError(
                "If imagenet weights are being loaded, alpha can be one of `0.25`, `0.50`, "
                f"`0.75` or `1.0` only.  Received alpha={alpha}"
            )
    inputs = imagenet_utils.start(
        "MobileNet", weights, include_top, classes, classifier_activation, input_tensor,
        input_shape,
    )  # fmt: skip
    if input_shape is not None:
        rows = input_shape[0]
    else:  # Keras's obtain_input_shape: the default size only with the top
        rows = 224 if include_top else None
    x = layers.Conv2D(int(32 * alpha), 3, strides=2, padding="same", use_bias=False, name="conv1")(
        inputs
    )
    x = layers.BatchNormalization(axis=-1, name="conv1_bn")(x)
    x = layers.ReLU(6.0, name="conv1_relu")(x)
    for block_id, (filters, stride) in enumerate(_BLOCKS, start=1):
        x = _depthwise_conv_block(x, filters, alpha, depth_multiplier, stride, block_id)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, 1, padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        x = layers.Activation(classifier_activation, name="predictions")(x)
    name = name if name is not None else f"mobilenet_{alpha:0.2f}_{rows}"
    return imagenet_utils.build(
        name, inputs, x, False, None if include_top else pooling, classes, None, weights
    )
