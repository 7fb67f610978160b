"""EfficientNetB0 to EfficientNetB7 (follows `keras.applications.EfficientNetB0` and friends):
Tan and Le, "EfficientNet: Rethinking Model Scaling for Convolutional Neural Networks" (2019),
with Keras's layer names (``stem_conv``, ``block1a_dwconv``, ``block2b_se_reduce``, ...).

The models rescale and normalize their input themselves (a `Rescaling` to 0..1 and a
`Normalization` whose mean and variance are weights, 0 and 1 until loaded), so they take RGB
values on 0..255 and `preprocess_input` is the identity, as Keras's.
"""

from __future__ import annotations

import math

from .. import layers
from . import imagenet_utils

__all__ = [
    "EfficientNetB0",
    "EfficientNetB1",
    "EfficientNetB2",
    "EfficientNetB3",
    "EfficientNetB4",
    "EfficientNetB5",
    "EfficientNetB6",
    "EfficientNetB7",
    "decode_predictions",
    "preprocess_input",
]

decode_predictions = imagenet_utils.decode_predictions

# Keras's DEFAULT_BLOCKS_ARGS: (kernel, repeats, filters in, filters out, expansion, stride)
# of the seven stages of EfficientNetB0; every block has squeeze-and-excite of ratio 0.25.
_STAGES = (
    (3, 1, 32, 16, 1, 1),
    (3, 2, 16, 24, 6, 2),
    (5, 2, 24, 40, 6, 2),
    (3, 3, 40, 80, 6, 2),
    (5, 3, 80, 112, 6, 1),
    (5, 4, 112, 192, 6, 2),
    (3, 1, 192, 320, 6, 1),
)
_CONV_INIT = {
    "class_name": "VarianceScaling",
    "config": {"scale": 2.0, "mode": "fan_out", "distribution": "truncated_normal"},
}
_DENSE_INIT = {
    "class_name": "VarianceScaling",
    "config": {"scale": 1.0 / 3.0, "mode": "fan_out", "distribution": "uniform"},
}


def preprocess_input(x, data_format=None):
    """Returns ``x`` unchanged (follows `keras.applications.efficientnet.preprocess_input`):
    the models rescale and normalize RGB values on 0..255 themselves."""
    return x


def _block(inputs, drop_rate, name, filters_in, filters_out, kernel_size, strides, expand_ratio):
    """Keras's ``block``: the inverted residual block with squeeze-and-excite (ratio 0.25),
    swish activations, and drop-connect (a Dropout of noise shape ``(None, 1, 1, 1)``) on
    the residual branch."""
    filters = filters_in * expand_ratio
    x = inputs
    if expand_ratio != 1:
        x = layers.Conv2D(
            filters, 1, padding="same", use_bias=False, kernel_initializer=_CONV_INIT,
            name=f"{name}expand_conv",
        )(x)  # fmt: skip
        x = layers.BatchNormalization(axis=3, name=f"{name}expand_bn")(x)
        x = layers.Activation("swish", name=f"{name}expand_activation")(x)
    if strides == 2:
        pad = imagenet_utils.correct_pad(x, kernel_size)
        x = layers.ZeroPadding2D(pad, name=f"{name}dwconv_pad")(x)
    x = layers.DepthwiseConv2D(
        kernel_size, strides=strides, padding="valid" if strides == 2 else "same",
        use_bias=False, depthwise_initializer=_CONV_INIT, name=f"{name}dwconv",
    )(x)  # fmt: skip
    x = layers.BatchNormalization(axis=3, name=f"{name}bn")(x)
    x = layers.Activation("swish", name=f"{name}activation")(x)
    se = layers.GlobalAveragePooling2D(name=f"{name}se_squeeze")(x)
    se = layers.Reshape((1, 1, filters), name=f"{name}se_reshape")(se)
    se = layers.Conv2D(
        max(1, int(filters_in * 0.25)), 1, padding="same", activation="swish",
        kernel_initializer=_CONV_INIT, name=f"{name}se_reduce",
    )(se)  # fmt: skip
    se = layers.Conv2D(
        filters, 1, padding="same", activation="sigmoid", kernel_initializer=_CONV_INIT,
        name=f"{name}se_expand",
    )(se)  # fmt: skip
    x = layers.multiply([x, se], name=f"{name}se_excite")
    x = layers.Conv2D(
        filters_out, 1, padding="same", use_bias=False, kernel_initializer=_CONV_INIT,
        name=f"{name}project_conv",
    )(x)  # fmt: skip
    x = layers.BatchNormalization(axis=3, name=f"{name}project_bn")(x)
    if strides == 1 and filters_in == filters_out:
        if drop_rate > 0:
            x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
        x = layers.add([x, inputs], name=f"{name}add")
    return x


def _efficientnet(name, config, include_top, weights, input_tensor, input_shape, pooling,
                  classes, classifier_activation):  # fmt: skip
    width, depth, default_size, dropout_rate = config
    imagenet_utils.check_arguments(name, weights, include_top, classes, classifier_activation)
    if input_shape is None and input_tensor is None and include_top:
        input_shape = (default_size, default_size, 3)  # Keras's default size per variant
    inputs = imagenet_utils.input_tensor_for(name, input_shape, input_tensor, include_top)

    def round_filters(filters, divisor=8):
        filters *= width
        new_filters = max(divisor, int(filters + divisor / 2) // divisor * divisor)
        return int(new_filters + divisor if new_filters < 0.9 * filters else new_filters)

    def round_repeats(repeats):
        return math.ceil(depth * repeats)

    x = layers.Rescaling(1.0 / 255.0)(inputs)
    x = layers.Normalization(axis=3)(x)
    x = layers.ZeroPadding2D(imagenet_utils.correct_pad(x, 3), name="stem_conv_pad")(x)
    x = layers.Conv2D(
        round_filters(32), 3, strides=2, padding="valid", use_bias=False,
        kernel_initializer=_CONV_INIT, name="stem_conv",
    )(x)  # fmt: skip
    x = layers.BatchNormalization(axis=3, name="stem_bn")(x)
    x = layers.Activation("swish", name="stem_activation")(x)
    total = float(sum(round_repeats(stage[1]) for stage in _STAGES))
    b = 0
    for i, (kernel, repeats, filters_in, filters_out, expansion, stride) in enumerate(_STAGES):
        filters_in, filters_out = round_filters(filters_in), round_filters(filters_out)
        for j in range(round_repeats(repeats)):
            x = _block(
                x, 0.2 * b / total, f"block{i + 1}{chr(j + 97)}_",
                filters_in if j == 0 else filters_out, filters_out, kernel,
                stride if j == 0 else 1, expansion,
            )  # fmt: skip
            b += 1
    x = layers.Conv2D(
        round_filters(1280), 1, padding="same", use_bias=False, kernel_initializer=_CONV_INIT,
        name="top_conv",
    )(x)  # fmt: skip
    x = layers.BatchNormalization(axis=3, name="top_bn")(x)
    x = layers.Activation("swish", name="top_activation")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        x = layers.Dense(
            classes, activation=classifier_activation, kernel_initializer=_DENSE_INIT,
            name="predictions",
        )(x)  # fmt: skip
    return imagenet_utils.build(
        name, inputs, x, False, None if include_top else pooling, classes, None, weights, True
    )


_DOC = """The EfficientNet{v} model, as a functional `Model` (follows
    `keras.applications.EfficientNet{v}`): width x{width}, depth x{depth}, default input
    {size}x{size}, top dropout {dropout}.

    Input ``(batch, height, width, 3)`` (NHWC, RGB on 0..255: the model rescales it);
    output ``(batch, classes)`` with the top, else ``(batch, height / 32, width / 32, {ch})``
    or, with ``pooling``, ``(batch, {ch})``.

    Args:
        include_top: end with global average pooling (``avg_pool``), ``top_dropout`` and the
            ``classes``-way ``predictions`` layer (default True); else end at
            ``top_activation`` (see ``pooling``).
        weights: None (random initialization) or the path of weights saved with
            `Model.save_weights`; ``"imagenet"`` (Keras's default) raises FileNotFoundError:
            eagerkernel downloads nothing. Pass ``weights=None`` explicitly.
        input_tensor: a KerasTensor to use as the input.
        input_shape: ``(height, width, 3)``, at least 32x32; default ``({size}, {size}, 3)``
            with the top, ``(None, None, 3)`` without.
        pooling: without the top: None (4-D output), ``"avg"`` or ``"max"`` (global pooling,
            layers named ``avg_pool``/``max_pool``).
        classes: size of the top's output (default 1000).
        classifier_activation: the top's activation (default softmax; None gives logits).
        name: the model's name (default ``"efficientnet{lower}"``).

    Raises:
        ValueError: Keras's argument errors (an input under 32x32 among them).
        FileNotFoundError: ``weights="imagenet"``.
"""
# variant: (width, depth, default size, top dropout), Keras's
_VARIANTS = {
    "B0": (1.0, 1.0, 224, 0.2),
    "B1": (1.0, 1.1, 240, 0.2),
    "B2": (1.1, 1.2, 260, 0.3),
    "B3": (1.2, 1.4, 300, 0.3),
    "B4": (1.4, 1.8, 380, 0.4),
    "B5": (1.6, 2.2, 456, 0.4),
    "B6": (1.8, 2.6, 528, 0.5),
    "B7": (2.0, 3.1, 600, 0.5),
}


def _variant(v, example=""):
    width, depth, size, dropout = _VARIANTS[v]
    channels = int(max(8, int(1280 * width + 4) // 8 * 8))
    doc = _DOC.format(
        v=v, width=width, depth=depth, size=size, dropout=dropout, ch=channels, lower=v.lower()
    )
    return imagenet_utils.variant(
        _efficientnet, _VARIANTS[v], f"efficientnet{v.lower()}", doc + example,
        f"EfficientNet{v}",
    )  # fmt: skip


EfficientNetB0 = _variant(
    "B0",
    """
    >>> m = ek.keras.applications.EfficientNetB0(weights=None)
    >>> m.count_params(), m.output_shape
    (5330571, (None, 1000))
    """,
)
EfficientNetB1 = _variant("B1")
EfficientNetB2 = _variant("B2")
EfficientNetB3 = _variant("B3")
EfficientNetB4 = _variant("B4")
EfficientNetB5 = _variant("B5")
EfficientNetB6 = _variant("B6")
EfficientNetB7 = _variant("B7")
