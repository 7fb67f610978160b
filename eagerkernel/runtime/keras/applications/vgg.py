"""VGG16 and VGG19 (follows `keras.applications.VGG16`/`VGG19`): Simonyan and Zisserman,
"Very Deep Convolutional Networks for Large-Scale Image Recognition" (2014), with Keras's layer
names, so that `summary()` and the weight order are Keras's."""

from __future__ import annotations

from .. import layers
from . import imagenet_utils

__all__ = ["VGG16", "VGG19", "decode_predictions", "preprocess_input"]

decode_predictions = imagenet_utils.decode_predictions
preprocess_input = imagenet_utils.preprocessor(
    "caffe", "RGB to BGR, minus the ImageNet channel means, as the VGG models were trained"
)


def _vgg(name, convs, include_top, weights, input_tensor, input_shape, pooling, classes,
         classifier_activation):  # fmt: skip
    inputs = imagenet_utils.start(
        name, weights, include_top, classes, classifier_activation, input_tensor, input_shape
    )
    x = inputs
    for block, (filters, count) in enumerate(zip((64, 128, 256, 512, 512), convs), start=1):
        for i in range(1, count + 1):
            x = layers.Conv2D(
                filters, 3, activation="relu", padding="same", name=f"block{block}_conv{i}"
            )(x)
        x = layers.MaxPooling2D(2, strides=2, name=f"block{block}_pool")(x)
    if include_top:
        x = layers.Flatten(name="flatten")(x)
        x = layers.Dense(4096, activation="relu", name="fc1")(x)
        x = layers.Dense(4096, activation="relu", name="fc2")(x)
    return imagenet_utils.build(
        name, inputs, x, include_top, pooling, classes, classifier_activation, weights
    )


VGG16 = imagenet_utils.variant(
    _vgg,
    (2, 2, 3, 3, 3),
    "vgg16",
    """The VGG16 model, as a functional `Model` (follows `keras.applications.VGG16`).

    Args:
        include_top: end with Flatten, two Dense(4096) and the ``classes``-way ``predictions``
            layer (default True); else end at the last pooling (see ``pooling``).
        weights: None (random initialization) or the path of weights saved with
            `Model.save_weights`; ``"imagenet"`` (Keras's default) raises FileNotFoundError:
            eagerkernel downloads nothing. Pass ``weights=None`` explicitly.
        input_tensor: a KerasTensor to use as the input.
        input_shape: ``(height, width, 3)``, at least 32x32; default ``(224, 224, 3)`` with
            the top, ``(None, None, 3)`` without.
        pooling: without the top: None (4-D output), ``"avg"`` or ``"max"`` (global pooling).
        classes: size of the top's output (default 1000).
        classifier_activation: the top's activation (default softmax; None gives logits).
        name: the model's name.

    Raises:
        ValueError: Keras's argument errors. FileNotFoundError: ``weights="imagenet"``.

    >>> m = ek.keras.applications.VGG16(weights=None, input_shape=(32, 32, 3), classes=10)
    >>> m.count_params(), m.output_shape
    (33638218, (None, 10))
    """,
    "VGG16",
)
VGG19 = imagenet_utils.variant(
    _vgg,
    (2, 2, 4, 4, 4),
    "vgg19",
    """The VGG19 model (follows `keras.applications.VGG19`): `VGG16` with four convolutions
    in each of the last three blocks; `VGG16`'s arguments.""",
    "VGG19",
)
