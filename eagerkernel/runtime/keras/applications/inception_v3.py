"""InceptionV3 (follows `keras.applications.InceptionV3`): Szegedy et al., "Rethinking the
Inception Architecture for Computer Vision" (2016), with Keras's layer order and its named
concatenations (``mixed0`` .. ``mixed10``, ``mixed9_0``, ``mixed9_1``); the convolutions and
normalizations are unnamed in Keras too, so a Keras weights file maps by order."""

from __future__ import annotations

from .. import layers
from . import imagenet_utils

__all__ = ["InceptionV3", "conv2d_bn", "decode_predictions", "preprocess_input"]

decode_predictions = imagenet_utils.decode_predictions
preprocess_input = imagenet_utils.preprocessor("tf", "to -1..1, as InceptionV3 was trained")


def conv2d_bn(x, filters, num_row, num_col, padding="same", strides=(1, 1), name=None):
    """Keras's ``conv2d_bn``: a ``num_row`` x ``num_col`` convolution without bias,
    BatchNormalization without scale, ReLU (named ``{name}_conv``, ``{name}_bn`` and ``name``
    when ``name`` is given)."""
    conv_name, bn_name = (None, None) if name is None else (f"{name}_conv", f"{name}_bn")
    x = layers.Conv2D(
        filters, (num_row, num_col), strides=strides, padding=padding, use_bias=False,
        name=conv_name,
    )(x)  # fmt: skip
    x = layers.BatchNormalization(axis=3, scale=False, name=bn_name)(x)
    return layers.Activation("relu", name=name)(x)


def _avg_pool_branch(x, filters):
    branch = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x)
    return conv2d_bn(branch, filters, 1, 1)


def _block_35(x, pool_filters, name):
    """The 35x35 modules ``mixed0``..``mixed2``: 1x1, 5x5, double 3x3 and pooling branches."""
    branch1x1 = conv2d_bn(x, 64, 1, 1)
    branch5x5 = conv2d_bn(x, 48, 1, 1)
    branch5x5 = conv2d_bn(branch5x5, 64, 5, 5)
    branch3x3dbl = conv2d_bn(x, 64, 1, 1)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3)
    branch_pool = _avg_pool_branch(x, pool_filters)
    return layers.concatenate([branch1x1, branch5x5, branch3x3dbl, branch_pool], 3, name=name)


def _block_17(x, filters, name):
    """The 17x17 modules ``mixed4``..``mixed7``: factorized 7x7 branches of ``filters``
    inner channels (1x7 then 7x1)."""
    branch1x1 = conv2d_bn(x, 192, 1, 1)
    branch7x7 = conv2d_bn(x, filters, 1, 1)
    branch7x7 = conv2d_bn(branch7x7, filters, 1, 7)
    branch7x7 = conv2d_bn(branch7x7, 192, 7, 1)
    branch7x7dbl = conv2d_bn(x, filters, 1, 1)
    branch7x7dbl = conv2d_bn(branch7x7dbl, filters, 7, 1)
    branch7x7dbl = conv2d_bn(branch7x7dbl, filters, 1, 7)
    branch7x7dbl = conv2d_bn(branch7x7dbl, filters, 7, 1)
    branch7x7dbl = conv2d_bn(branch7x7dbl, 192, 1, 7)
    branch_pool = _avg_pool_branch(x, 192)
    return layers.concatenate([branch1x1, branch7x7, branch7x7dbl, branch_pool], 3, name=name)


def _block_8(x, i):
    """The 8x8 modules ``mixed9``, ``mixed10``: expanded 3x3 branches (1x3 and 3x1 side by
    side)."""
    branch1x1 = conv2d_bn(x, 320, 1, 1)
    branch3x3 = conv2d_bn(x, 384, 1, 1)
    branch3x3_1 = conv2d_bn(branch3x3, 384, 1, 3)
    branch3x3_2 = conv2d_bn(branch3x3, 384, 3, 1)
    branch3x3 = layers.concatenate([branch3x3_1, branch3x3_2], 3, name=f"mixed9_{i}")
    branch3x3dbl = conv2d_bn(x, 448, 1, 1)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 384, 3, 3)
    branch3x3dbl_1 = conv2d_bn(branch3x3dbl, 384, 1, 3)
    branch3x3dbl_2 = conv2d_bn(branch3x3dbl, 384, 3, 1)
    branch3x3dbl = layers.concatenate([branch3x3dbl_1, branch3x3dbl_2], 3)
    branch_pool = _avg_pool_branch(x, 192)
    return layers.concatenate(
        [branch1x1, branch3x3, branch3x3dbl, branch_pool], 3, name=f"mixed{9 + i}"
    )


def _inception_v3(name, _config, include_top, weights, input_tensor, input_shape, pooling,
                  classes, classifier_activation):  # fmt: skip
    imagenet_utils.check_arguments(name, weights, include_top, classes, classifier_activation)
    if input_shape is None and input_tensor is None and include_top:
        input_shape = (299, 299, 3)  # Keras's default size for InceptionV3
    inputs = imagenet_utils.input_tensor_for(
        name, input_shape, input_tensor, include_top, min_size=75
    )
    x = conv2d_bn(inputs, 32, 3, 3, strides=(2, 2), padding="valid")
    x = conv2d_bn(x, 32, 3, 3, padding="valid")
    x = conv2d_bn(x, 64, 3, 3)
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = conv2d_bn(x, 80, 1, 1, padding="valid")
    x = conv2d_bn(x, 192, 3, 3, padding="valid")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    for i, pool_filters in enumerate((32, 64, 64)):
        x = _block_35(x, pool_filters, f"mixed{i}")
    branch3x3 = conv2d_bn(x, 384, 3, 3, strides=(2, 2), padding="valid")  # mixed3: to 17x17
    branch3x3dbl = conv2d_bn(x, 64, 1, 1)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3, strides=(2, 2), padding="valid")
    branch_pool = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = layers.concatenate([branch3x3, branch3x3dbl, branch_pool], 3, name="mixed3")
    for i, filters in enumerate((128, 160, 160, 192)):
        x = _block_17(x, filters, f"mixed{4 + i}")
    branch3x3 = conv2d_bn(x, 192, 1, 1)  # mixed8: to 8x8
    branch3x3 = conv2d_bn(branch3x3, 320, 3, 3, strides=(2, 2), padding="valid")
    branch7x7x3 = conv2d_bn(x, 192, 1, 1)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 1, 7)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 7, 1)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 3, 3, strides=(2, 2), padding="valid")
    branch_pool = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = layers.concatenate([branch3x3, branch7x7x3, branch_pool], 3, name="mixed8")
    for i in range(2):
        x = _block_8(x, i)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    return imagenet_utils.build(
        name, inputs, x, include_top, pooling, classes, classifier_activation, weights
    )


InceptionV3 = imagenet_utils.variant(
    _inception_v3,
    None,
    "inception_v3",
    """The InceptionV3 model, as a functional `Model` (follows
    `keras.applications.InceptionV3`).

    Input ``(batch, height, width, 3)`` (NHWC, RGB scaled by `preprocess_input` to -1..1);
    output ``(batch, classes)`` with the top, else ``(batch, h, w, 2048)`` (8x8 for 299x299
    inputs) or, with ``pooling``, ``(batch, 2048)``.

    Args:
        include_top: end with global average pooling (``avg_pool``) and the ``classes``-way
            ``predictions`` layer (default True); else end at ``mixed10`` (see ``pooling``).
        weights: None (random initialization) or the path of weights saved with
            `Model.save_weights`; ``"imagenet"`` (Keras's default) raises FileNotFoundError:
            eagerkernel downloads nothing. Pass ``weights=None`` explicitly.
        input_tensor: a KerasTensor to use as the input.
        input_shape: ``(height, width, 3)``, at least 75x75; default ``(299, 299, 3)`` with
            the top, ``(None, None, 3)`` without.
        pooling: without the top: None (4-D output), ``"avg"`` or ``"max"`` (global pooling).
        classes: size of the top's output (default 1000).
        classifier_activation: the top's activation (default softmax; None gives logits).
        name: the model's name.

    Raises:
        ValueError: Keras's argument errors (an input under 75x75 among them).
        FileNotFoundError: ``weights="imagenet"``.

    >>> m = ek.keras.applications.InceptionV3(weights=None, include_top=False,
    ...                                       input_shape=(75, 75, 3))
    >>> m.count_params(), m.output_shape
    (21802784, (None, 1, 1, 2048))
    """,
    "InceptionV3",
)
