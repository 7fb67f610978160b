"""MobileNetV3Small and MobileNetV3Large (follows `keras.applications.MobileNetV3Small` and
`MobileNetV3Large`): Howard et al., "Searching for MobileNetV3" (2019), with Keras's layer
names (``conv``, ``expanded_conv_1_expand``, ``expanded_conv_1_squeeze_excite_conv``, ...), its
``alpha``, ``minimalistic`` and ``include_preprocessing`` (a `Rescaling` to -1..1 inside the
model, so that `preprocess_input` is the identity, as Keras's).

The squeeze-and-excite gate's ``relu6(x + 3) / 6`` uses operators on KerasTensors, which are
the model's `operations` but not its `layers`, as in Keras 3 (``len(model.layers)`` is Keras's).
"""

from __future__ import annotations

from .. import layers
from . import imagenet_utils

__all__ = ["MobileNetV3Large", "MobileNetV3Small", "decode_predictions", "preprocess_input"]

decode_predictions = imagenet_utils.decode_predictions
_BN = {"axis": -1, "epsilon": 1e-3, "momentum": 0.999}

# (expansion, filters, kernel, stride, squeeze-excite, activation) of each inverted residual
# block; kernel "k", squeeze-excite "se" and activation "act" are the variant's (5, 0.25 and
# hard swish; 3, None and ReLU when minimalistic).
_SMALL = (
    (1, 16, 3, 2, "se", "relu"),
    (72.0 / 16, 24, 3, 2, None, "relu"),
    (88.0 / 24, 24, 3, 1, None, "relu"),
    (4, 40, "k", 2, "se", "act"),
    (6, 40, "k", 1, "se", "act"),
    (6, 40, "k", 1, "se", "act"),
    (3, 48, "k", 1, "se", "act"),
    (3, 48, "k", 1, "se", "act"),
    (6, 96, "k", 2, "se", "act"),
    (6, 96, "k", 1, "se", "act"),
    (6, 96, "k", 1, "se", "act"),
)
_LARGE = (
    (1, 16, 3, 1, None, "relu"),
    (4, 24, 3, 2, None, "relu"),
    (3, 24, 3, 1, None, "relu"),
    (3, 40, "k", 2, "se", "relu"),
    (3, 40, "k", 1, "se", "relu"),
    (3, 40, "k", 1, "se", "relu"),
    (6, 80, 3, 2, None, "act"),
    (2.5, 80, 3, 1, None, "act"),
    (2.3, 80, 3, 1, None, "act"),
    (2.3, 80, 3, 1, None, "act"),
    (6, 112, 3, 1, "se", "act"),
    (6, 112, 3, 1, "se", "act"),
    (6, 160, "k", 2, "se", "act"),
    (6, 160, "k", 1, "se", "act"),
    (6, 160, "k", 1, "se", "act"),
)


def preprocess_input(x, data_format=None):
    """Returns ``x`` unchanged (follows `keras.applications.mobilenet_v3.preprocess_input`):
    the models rescale their input themselves (``include_preprocessing=True``) and take RGB
    values on 0..255."""
    return x


def _relu(x):
    return layers.ReLU()(x)


def _hard_swish(x):
    return layers.Activation("hard_swish")(x)


def _hard_sigmoid(x):
    return layers.ReLU(6.0)(x + 3.0) * (1.0 / 6.0)


def _depth(v, divisor=8, min_value=None):
    """``v`` rounded to a multiple of ``divisor``, never below 90% of ``v`` (Keras's)."""
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def _se_block(inputs, filters, se_ratio, prefix):
    x = layers.GlobalAveragePooling2D(keepdims=True, name=f"{prefix}squeeze_excite_avg_pool")(
        inputs
    )
    x = layers.Conv2D(
        _depth(filters * se_ratio), 1, padding="same", name=f"{prefix}squeeze_excite_conv"
    )(x)
    x = layers.ReLU(name=f"{prefix}squeeze_excite_relu")(x)
    x = layers.Conv2D(filters, 1, padding="same", name=f"{prefix}squeeze_excite_conv_1")(x)
    x = _hard_sigmoid(x)
    return layers.Multiply(name=f"{prefix}squeeze_excite_mul")([inputs, x])


def _inverted_res_block(x, expansion, filters, kernel_size, stride, se_ratio, activation,
                        block_id):  # fmt: skip
    shortcut = x
    prefix = "expanded_conv_"
    infilters = x.shape[-1]
    if block_id:
        prefix = f"expanded_conv_{block_id}_"
        x = layers.Conv2D(
            _depth(infilters * expansion), 1, padding="same", use_bias=False,
            name=f"{prefix}expand",
        )(x)  # fmt: skip
        x = layers.BatchNormalization(**_BN, name=f"{prefix}expand_bn")(x)
        x = activation(x)
    if stride == 2:
        pad = imagenet_utils.correct_pad(x, kernel_size)
        x = layers.ZeroPadding2D(pad, name=f"{prefix}depthwise_pad")(x)
    x = layers.DepthwiseConv2D(
        kernel_size,
        strides=stride,
        padding="same" if stride == 1 else "valid",
        use_bias=False,
        name=f"{prefix}depthwise",
    )(x)
    x = layers.BatchNormalization(**_BN, name=f"{prefix}depthwise_bn")(x)
    x = activation(x)
    if se_ratio:
        x = _se_block(x, _depth(infilters * expansion), se_ratio, prefix)
    x = layers.Conv2D(filters, 1, padding="same", use_bias=False, name=f"{prefix}project")(x)
    x = layers.BatchNormalization(**_BN, name=f"{prefix}project_bn")(x)
    if stride == 1 and infilters == filters:
        x = layers.Add(name=f"{prefix}add")([shortcut, x])
    return x


def _mobilenet_v3(blocks, last_point_ch, input_shape, alpha, minimalistic, include_top,
                  weights, input_tensor, classes, pooling, dropout_rate, classifier_activation,
                  include_preprocessing, name):  # fmt: skip
    if weights == "imagenet" and (
        (not minimalistic and alpha not in (0.75, 1.0)) or (minimalistic and alpha != 1.0)
    ):
        raise ValueError(
            "If imagenet weights are being loaded, alpha can be one of `0.75`, `1.0` for non "
            "minimalistic or `1.0` for minimalistic only."
        )
    imagenet_utils.check_arguments(name, weights, include_top, classes, classifier_activation)
    # Keras's default input is (None, None, 3) with the top too: it ends in global pooling.
    inputs = imagenet_utils.input_tensor_for(
        name, input_shape if input_shape is not None else (None, None, 3), input_tensor, False
    )
    if minimalistic:
        kernel, activation, se_ratio = 3, _relu, None
    else:
        kernel, activation, se_ratio = 5, _hard_swish, 0.25
    x = inputs
    if include_preprocessing:
        x = layers.Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = layers.Conv2D(16, 3, strides=2, padding="same", use_bias=False, name="conv")(x)
    x = layers.BatchNormalization(**_BN, name="conv_bn")(x)
    x = activation(x)
    for block_id, (expansion, filters, size, stride, se, act) in enumerate(blocks):
        x = _inverted_res_block(
            x, expansion, _depth(filters * alpha), kernel if size == "k" else size, stride,
            se_ratio if se else None, activation if act == "act" else _relu, block_id,
        )  # fmt: skip
    last_conv_ch = _depth(x.shape[-1] * 6)
    if alpha > 1.0:
        last_point_ch = _depth(last_point_ch * alpha)
    x = layers.Conv2D(last_conv_ch, 1, padding="same", use_bias=False, name="conv_1")(x)
    x = layers.BatchNormalization(**_BN, name="conv_1_bn")(x)
    x = activation(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Conv2D(last_point_ch, 1, padding="same", use_bias=True, name="conv_2")(x)
        x = activation(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate)(x)
        x = layers.Conv2D(classes, 1, padding="same", name="logits")(x)
        x = layers.Flatten()(x)
        x = layers.Activation(classifier_activation, name="predictions")(x)
    return imagenet_utils.build(
        name, inputs, x, False, None if include_top else pooling, classes, None, weights, True
    )


_DOC = """The {name} model, as a functional `Model` (follows `keras.applications.{name}`).

    Input ``(batch, height, width, 3)`` (NHWC, RGB on 0..255 with ``include_preprocessing``,
    else already scaled to -1..1); output ``(batch, classes)`` with the top, else
    ``(batch, height / 32, width / 32, {channels})`` (for ``alpha=1``) or, with ``pooling``,
    ``(batch, {channels})``.

    Args:
        input_shape: ``(height, width, 3)``, at least 32x32; default ``(None, None, 3)``,
            with the top too (Keras's).
        alpha: width multiplier of the blocks' filters (default 1.0).
        minimalistic: 3x3 depthwise kernels, ReLU and no squeeze-and-excite (default False:
            5x5 kernels in the later blocks, hard swish, squeeze-and-excite).
        include_top: end with global average pooling, the 1x1 convolutions ``conv_2`` and
            ``logits``, a Flatten and the ``predictions`` activation (default True).
        weights: None (random initialization) or the path of weights saved with
            `Model.save_weights`; ``"imagenet"`` (Keras's default) raises FileNotFoundError:
            eagerkernel downloads nothing. Pass ``weights=None`` explicitly.
        input_tensor: a KerasTensor to use as the input.
        classes: size of the top's output (default 1000).
        pooling: without the top: None (4-D output), ``"avg"`` or ``"max"`` (global pooling,
            layers named ``avg_pool``/``max_pool``).
        dropout_rate: rate of the top's Dropout (default 0.2; 0 leaves it out).
        classifier_activation: the top's activation (default softmax; None gives logits).
        include_preprocessing: begin with ``Rescaling(1 / 127.5, offset=-1)`` (default True).
        name: the model's name (default ``"{name}"``).

    Raises:
        ValueError: Keras's argument errors (an input under 32x32 among them).
        FileNotFoundError: ``weights="imagenet"``.
"""


def MobileNetV3Small(
    input_shape=None,
    alpha=1.0,
    minimalistic=False,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    classes=1000,
    pooling=None,
    dropout_rate=0.2,
    classifier_activation="softmax",
    include_preprocessing=True,
    name="MobileNetV3Small",
):
    return _mobilenet_v3(
        _SMALL, 1024, input_shape, alpha, minimalistic, include_top, weights, input_tensor,
        classes, pooling, dropout_rate, classifier_activation, include_preprocessing, name,
    )  # fmt: skip


def MobileNetV3Large(
    input_shape=None,
    alpha=1.0,
    minimalistic=False,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    classes=1000,
    pooling=None,
    dropout_rate=0.2,
    classifier_activation="softmax",
    include_preprocessing=True,
    name="MobileNetV3Large",
):
    return _mobilenet_v3(
        _LARGE, 1280, input_shape, alpha, minimalistic, include_top, weights, input_tensor,
        classes, pooling, dropout_rate, classifier_activation, include_preprocessing, name,
    )  # fmt: skip


MobileNetV3Small.__doc__ = (
    _DOC.format(name="MobileNetV3Small", channels=576)
    + """
    >>> m = ek.keras.applications.MobileNetV3Small(weights=None)
    >>> m.count_params(), m.output_shape
    (2554968, (None, 1000))
    """
)
MobileNetV3Large.__doc__ = (
    _DOC.format(name="MobileNetV3Large", channels=960)
    + """
    >>> m = ek.keras.applications.MobileNetV3Large(weights=None)
    >>> m.count_params(), m.output_shape
    (5507432, (None, 1000))
    """
)
