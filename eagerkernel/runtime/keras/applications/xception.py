"""Xception (follows `keras.applications.Xception`): Chollet, "Xception: Deep Learning with
Depthwise Separable Convolutions" (2017), with Keras's layer names (``block1_conv1``,
``block2_sepconv1``, ...), so that `summary()` and the weight order are Keras's."""

from __future__ import annotations

from .. import layers
from . import imagenet_utils

__all__ = ["Xception", "decode_predictions", "preprocess_input"]

decode_predictions = imagenet_utils.decode_predictions
preprocess_input = imagenet_utils.preprocessor("tf", "to -1..1, as Xception was trained")


def _sepconv_bn(x, filters, name, relu_first=True):
    """[ReLU,] SeparableConv2D 3x3 (no bias), BatchNormalization, as Keras names them."""
    if relu_first:
        x = layers.Activation("relu", name=f"{name}_act")(x)
    x = layers.SeparableConv2D(filters, 3, padding="same", use_bias=False, name=name)(x)
    return layers.BatchNormalization(axis=-1, name=f"{name}_bn")(x)


def _downsampling_block(x, block, filters, relu_first=True):
    """Two separable convolutions and a stride-2 max pooling, plus a strided 1x1 shortcut."""
    residual = layers.Conv2D(filters[1], 1, strides=2, padding="same", use_bias=False)(x)
    residual = layers.BatchNormalization(axis=-1)(residual)
    x = _sepconv_bn(x, filters[0], f"block{block}_sepconv1", relu_first)
    if not relu_first:  # block 2: the ReLU between the two convolutions only
        x = layers.Activation("relu", name=f"block{block}_sepconv2_act")(x)
    x = _sepconv_bn(x, filters[1], f"block{block}_sepconv2", relu_first)
    x = layers.MaxPooling2D(3, strides=2, padding="same", name=f"block{block}_pool")(x)
    return layers.add([x, residual])


def _xception(name, _config, include_top, weights, input_tensor, input_shape, pooling, classes,
              classifier_activation):  # fmt: skip
    imagenet_utils.check_arguments(name, weights, include_top, classes, classifier_activation)
    if input_shape is None and input_tensor is None and include_top:
        input_shape = (299, 299, 3)  # Keras's default size for Xception
    inputs = imagenet_utils.input_tensor_for(
        name, input_shape, input_tensor, include_top, min_size=71
    )
    x = layers.Conv2D(32, 3, strides=2, use_bias=False, name="block1_conv1")(inputs)
    x = layers.BatchNormalization(axis=-1, name="block1_conv1_bn")(x)
    x = layers.Activation("relu", name="block1_conv1_act")(x)
    x = layers.Conv2D(64, 3, use_bias=False, name="block1_conv2")(x)
    x = layers.BatchNormalization(axis=-1, name="block1_conv2_bn")(x)
    x = layers.Activation("relu", name="block1_conv2_act")(x)
    x = _downsampling_block(x, 2, (128, 128), relu_first=False)
    x = _downsampling_block(x, 3, (256, 256))
    x = _downsampling_block(x, 4, (728, 728))
    for block in range(5, 13):  # the middle flow: eight residual blocks of three convolutions
        residual = x
        for i in (1, 2, 3):
            x = _sepconv_bn(x, 728, f"block{block}_sepconv{i}")
        x = layers.add([x, residual])
    x = _downsampling_block(x, 13, (728, 1024))
    for i, filters in ((1, 1536), (2, 2048)):
        x = _sepconv_bn(x, filters, f"block14_sepconv{i}", relu_first=False)
        x = layers.Activation("relu", name=f"block14_sepconv{i}_act")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    return imagenet_utils.build(
        name, inputs, x, include_top, pooling, classes, classifier_activation, weights
    )


Xception = imagenet_utils.variant(
    _xception,
    None,
    "xception",
    """The Xception model, as a functional `Model` (follows `keras.applications.Xception`).

    Args:
        include_top: end with global average pooling and the ``classes``-way
            ``predictions`` layer (default True); else end at ``block14_sepconv2_act`` (see
            ``pooling``).
        weights: None (random initialization) or the path of weights saved with
            `Model.save_weights`; ``"imagenet"`` (Keras's default) raises FileNotFoundError:
            eagerkernel downloads nothing. Pass ``weights=None`` explicitly.
        input_tensor: a KerasTensor to use as the input.
        input_shape: ``(height, width, 3)``, at least 71x71; default ``(299, 299, 3)`` with
            the top, ``(None, None, 3)`` without.
        pooling: without the top: None (4-D output, 2048 channels), ``"avg"`` or ``"max"``.
        classes: size of the top's output (default 1000).
        classifier_activation: the top's activation (default softmax; None gives logits).
        name: the model's name.

    Raises:
        ValueError: Keras's argument errors (an input under 71x71 among them).
        FileNotFoundError: ``weights="imagenet"``.

    >>> m = ek.keras.applications.Xception(weights=None, include_top=False,
    ...                                    input_shape=(71, 71, 3))
    >>> m.count_params(), m.output_shape
    (20861480, (None, 3, 3, 2048))
    """,
    "Xception",
)
