"""What Keras's ImageNet models share (follows `keras.applications.imagenet_utils`): argument
checks, the input, the weights, `preprocess_input` and `decode_predictions`.

Nothing is downloaded: ``weights="imagenet"`` raises FileNotFoundError saying so, and
`decode_predictions` reads Keras's class index only from Keras's cache directory.
"""

from __future__ import annotations

import json
import os

import numpy as np

from ...core.tensor import Tensor, to_tensor
from .. import layers
from ..functional import Functional, Input
from ..keras_tensor import KerasTensor

__all__ = [
    "build",
    "correct_pad",
    "decode_predictions",
    "preprocess_input",
    "preprocessor",
    "start",
    "variant",
]

_MEANS = {
    "caffe": np.array([103.939, 116.779, 123.68]),  # BGR, on 0..255; cast to the input's dtype
    "torch": np.array([0.485, 0.456, 0.406]),  # RGB, on 0..1
}
_TORCH_STD = np.array([0.229, 0.224, 0.225])


def check_arguments(name: str, weights, include_top: bool, classes: int, activation) -> None:
    """Keras's checks of ``weights``, ``classes`` and ``classifier_activation``."""
    if not (
        weights in {"imagenet", None} or (isinstance(weights, str) and os.path.exists(weights))
    ):
        raise ValueError(
            "The `weights` argument should be either `None` (random initialization), "
            "'imagenet' (pre-training on ImageNet), or the path to the weights file to be "
            f"loaded.  Received: weights={weights}"
        )
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError(
            "If using `weights='imagenet'` with `include_top=True`, `classes` should be "
            f"1000.  Received classes={classes}"
        )
    if weights is not None and activation not in {"softmax", None}:
        raise ValueError(
            "Only `None` and `softmax` activations are allowed for the "
            "`classifier_activation` argument when using pretrained weights, with "
            f"`include_top=True`; Received: classifier_activation={activation}"
        )
    if weights == "imagenet":
        raise FileNotFoundError(
            f"{name}: weights='imagenet' are files Keras downloads, and eagerkernel downloads "
            "nothing at run time. Pass weights=None (random initialization), or the path of "
            "weights saved earlier with model.save_weights."
        )


def input_tensor_for(name, input_shape, input_tensor, include_top: bool, min_size: int = 32):
    """The model's input: ``input_tensor`` (a KerasTensor) or a new `Input` of
    ``input_shape`` (default ``(224, 224, 3)`` with the top, ``(None, None, 3)`` without:
    Keras's ``obtain_input_shape``)."""
    if input_tensor is not None:
        if not isinstance(input_tensor, KerasTensor):
            raise ValueError(
                f"{name}: input_tensor must be a KerasTensor (the output of keras.Input or of "
                f"a layer). Received: {type(input_tensor).__name__}"
            )
        return input_tensor
    if input_shape is None:
        input_shape = (224, 224, 3) if include_top else (None, None, 3)
    input_shape = tuple(input_shape)
    if len(input_shape) != 3:
        raise ValueError(f"{name}: `input_shape` must be a tuple of three integers.")
    if include_top and None in input_shape:
        raise ValueError(
            f"{name}: If `include_top` is True, you should specify a static `input_shape`. "
            f"Received: input_shape={input_shape}"
        )
    if any(d is not None and d < min_size for d in input_shape[:2]):
        raise ValueError(
            f"{name}: Input size must be at least {min_size}x{min_size} (Keras's message); "
            f"Received: input_shape={input_shape}"
        )
    return Input(shape=input_shape)


def start(name, weights, include_top, classes, activation, input_tensor, input_shape):
    """`check_arguments`, then the model's input (`input_tensor_for`)."""
    check_arguments(name, weights, include_top, classes, activation)
    return input_tensor_for(name, input_shape, input_tensor, include_top)


def variant(builder, config, default_name: str, doc: str, function_name: str):
    """The public model function ``function_name``, with Keras's signature (``include_top,
    weights, input_tensor, input_shape, pooling, classes, classifier_activation, name``),
    calling ``builder(name, config, include_top, weights, input_tensor, input_shape, pooling,
    classes, classifier_activation)``; ``doc`` becomes its docstring."""

    def model(
        include_top=True,
        weights="imagenet",
        input_tensor=None,
        input_shape=None,
        pooling=None,
        classes=1000,
        classifier_activation="softmax",
        name=default_name,
    ):
        return builder(
            name, config, include_top, weights, input_tensor, input_shape, pooling, classes,
            classifier_activation,
        )  # fmt: skip

    model.__doc__ = doc
    model.__module__ = builder.__module__
    model.__name__ = model.__qualname__ = function_name
    return model


def preprocessor(mode: str, trained: str):
    """The ``preprocess_input(x, data_format=None)`` of a model trained on inputs in
    ``mode`` (see `preprocess_input`)."""

    def preprocess(x, data_format=None):
        return preprocess_input(x, data_format=data_format, mode=mode)

    preprocess.__doc__ = f"`imagenet_utils.preprocess_input` in ``{mode!r}`` mode, {trained}."
    preprocess.__name__ = preprocess.__qualname__ = "preprocess_input"
    return preprocess


def build(name, inputs, x, include_top, pooling, classes, activation, weights, named=False):
    """The top (``Dense(classes)`` named ``predictions``) or the ``pooling`` (its layer named
    ``avg_pool``/``max_pool`` when ``named``, as ResNet's), the model, and ``weights`` loaded
    from a file when given one."""
    if include_top:
        x = layers.Dense(classes, activation=activation, name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D(name="avg_pool" if named else None)(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D(name="max_pool" if named else None)(x)
    elif pooling is not None:
        raise ValueError(f"{name}: pooling must be None, 'avg' or 'max'. Received: {pooling!r}")
    model = Functional(inputs, x, name=name)
    if weights is not None:
        model.load_weights(weights)
    return model


def correct_pad(inputs, kernel_size) -> tuple:
    """The zero padding before a stride-2 convolution of ``kernel_size`` on ``inputs`` (Keras's
    ``correct_pad``: one less on the top and left of an even size)."""
    size = tuple(inputs.shape)[1:3]
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    correct = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((correct[0] - adjust[0], correct[0]), (correct[1] - adjust[1], correct[1]))


def preprocess_input(x, data_format=None, mode="caffe"):
    """Scales a batch of RGB images on 0..255 (NHWC) as a model was trained (follows
    `keras.applications.imagenet_utils.preprocess_input`).

    Args:
        x: an array or Tensor, float or integer, channels last.
        data_format: ``"channels_last"`` or None only.
        mode: ``"caffe"`` (RGB to BGR, minus the ImageNet means: VGG, ResNet), ``"tf"``
            (to -1..1: MobileNetV2) or ``"torch"`` (to 0..1, then the ImageNet mean and
            standard deviation).

    Returns:
        Floats of ``x``'s dtype (float16/float64 stay so, as Keras 3), float32 for integer
        input: a NumPy array for an array, a KerasTensor for a KerasTensor (its
        steps are operations of the functional model, not layers: `Model.layers` does not
        list them, as Keras 3), else a Tensor computed with tensor ops (differentiable,
        on ``x``'s device).

    Raises:
        ValueError: another ``mode`` or ``data_format``.

    >>> ek.keras.applications.imagenet_utils.preprocess_input(
    ...     np.full((1, 1, 1, 3), 255, np.uint8), mode="tf"
    ... )
    array([[[[1., 1., 1.]]]], dtype=float32)
    """
    if data_format not in (None, "channels_last"):
        raise ValueError(
            f"preprocess_input: data_format must be 'channels_last'. Received: {data_format!r}"
        )
    if mode not in ("caffe", "tf", "torch"):
        raise ValueError(
            f"preprocess_input: mode must be 'caffe', 'tf' or 'torch'. Received: {mode!r}"
        )
    if isinstance(x, np.ndarray):
        dt = _float_dtype(x.dtype)
        a = x.astype(dt)
    elif isinstance(x, KerasTensor):  # recorded as operations, not layers, as Keras 3
        from ..ops.core import cast as keras_cast

        dt = _float_dtype(x.dtype)
        a = x if getattr(x.dtype, "name", x.dtype) == dt.name else keras_cast(x, dt.name)
    else:  # Tensor ops: differentiable, and on the tensor's device
        from ...ops.elementwise import cast

        t = to_tensor(x, None, "preprocess_input")
        dt = _float_dtype(t.dtype.name)
        a = cast(t, dt.name)
    if mode == "tf":
        return a / dt.type(127.5) - dt.type(1.0)
    if mode == "torch":
        return (a / dt.type(255.0) - _MEANS["torch"].astype(dt)) / _TORCH_STD.astype(dt)
    return a[..., ::-1] - _MEANS["caffe"].astype(dt)  # RGB to BGR


def _float_dtype(dtype) -> np.dtype:
    # Keras 3 keeps a float input's dtype and computes integer images in floatx (float32)
    try:
        dt = np.dtype(getattr(dtype, "name", dtype))  # NumPy or eagerkernel dtypes
    except TypeError:  # bfloat16 and other non-NumPy names: float32, as before
        return np.dtype(np.float32)
    return dt if np.issubdtype(dt, np.floating) else np.dtype(np.float32)


def decode_predictions(preds, top=5):
    """The ``top`` classes of each row of ImageNet predictions as ``(class_id, name, score)``
    (follows `keras.applications.imagenet_utils.decode_predictions`), read from Keras's
    ``imagenet_class_index.json`` in its cache directory (``~/.keras/models``).

    Raises:
        ValueError: ``preds`` not of shape ``(samples, 1000)``.
        FileNotFoundError: no class index there (eagerkernel downloads nothing).
    """
    p = np.asarray(preds._value if isinstance(preds, Tensor) else preds)
    if p.ndim != 2 or p.shape[1] != 1000:
        raise ValueError(
            "`decode_predictions` expects a batch of predictions (i.e. a 2D array of shape "
            f"(samples, 1000)). Received array with shape: {p.shape}"
        )
    home = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    path = os.path.join(home, "models", "imagenet_class_index.json")
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"decode_predictions: no ImageNet class index at {path}; Keras downloads it, "
            "eagerkernel downloads nothing at run time. Put Keras's imagenet_class_index.json "
            "there."
        )
    with open(path, encoding="utf-8") as f:
        index = json.load(f)
    results = []
    for row in p:
        best = row.argsort()[-top:][::-1]
        results.append([(*index[str(i)], float(row[i])) for i in best])
    return results
