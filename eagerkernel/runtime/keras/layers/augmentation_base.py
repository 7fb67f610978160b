"""What Keras 3's image preprocessing layers share (its ``BaseImagePreprocessingLayer``):
one call path for images and ``{"images", "labels", "segmentation_masks"}`` dicts, the
``data_format`` and ``value_range`` arguments, Keras's checks of ``factor`` arguments, and the
random parameters of a call.

A layer draws its random parameters from its shapes alone (`ImagePreprocessingLayer._sample`,
host code drawing from the layer's `keras.random.SeedGenerator` what Keras draws, in its
order), in one stateful step (`draw_params`): a graph function (`ek.function`) draws them
again on every call, as TensorFlow's random ops do. Everything that depends on the images'
values is computed from those parameters with eagerkernel ops (`ImagePreprocessingLayer.
_apply`), so a replayed graph recomputes it and gradients flow through it.

As in Keras 3, a layer called without ``training`` augments (its ``call`` defaults to
``training=True``); ``fit`` and ``predict`` pass ``training`` down, and ``training=False``
leaves the inputs unchanged (AutoContrast, whose ``_ALWAYS`` is set, applies at inference
too). Images are ``(H, W, C)`` or ``(B, H, W, C)``, or channels first with
``data_format="channels_first"``; the layers work on NHWC and transpose around it.
"""

from __future__ import annotations

import numbers

import numpy as np

from ...core.dispatch import stateful
from ...core.tensor import Tensor, make, to_tensor
from ...ops import array_ops
from ...ops.elementwise import cast
from .. import random as keras_random
from ..backend import image_data_format
from .base import Layer

__all__ = [
    "ImagePreprocessingLayer",
    "base_factor",
    "channels_last_only",
    "check_value_range",
    "draw_params",
    "named_factor",
    "standardize_data_format",
    "to_value_range",
]

VALUE_RANGE_ERROR = "The `value_range` argument should be a list of two numbers. "


def standardize_data_format(data_format) -> str:
    """Keras's ``backend.standardize_data_format``: None is the configured default."""
    if data_format is None:
        return image_data_format()
    fmt = str(data_format).lower()
    if fmt not in ("channels_first", "channels_last"):
        raise ValueError(
            "The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
            f"Received: data_format={fmt}"
        )
    return fmt


def channels_last_only(name: str, kwargs: dict) -> None:
    """Takes Keras 3's ``data_format`` (in the configs of Resizing, CenterCrop) out of a
    layer's ``kwargs``: channels_last only (None: the configured default)."""
    data_format = standardize_data_format(kwargs.pop("data_format", None))
    if data_format != "channels_last":
        raise NotImplementedError(f"{name}: data_format={data_format!r} is not supported.")


def check_value_range(value_range) -> list:
    """Keras's ``_set_value_range``: a pair, sorted (ValueError otherwise)."""
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
        raise ValueError(VALUE_RANGE_ERROR + f"Received: value_range={value_range}")
    return sorted(value_range)


def _number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def base_factor(factor, bounds=(-1, 1)) -> tuple:
    """``BaseImagePreprocessingLayer._set_factor``: a number ``f`` in ``bounds`` means
    ``(max(-|f|, low), |f|)``, a pair is sorted (it must overlap ``bounds``)."""
    error = (
        "The `factor` argument should be a number (or a list of two numbers) in the range "
        f"[{bounds[0]}, {bounds[1]}]. Received: factor={factor}"
    )
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or factor[0] > bounds[1] or factor[1] < bounds[0]:
            raise ValueError(error)
        return tuple(sorted(factor))
    if not _number(factor) or factor < bounds[0] or factor > bounds[1]:
        raise ValueError(error)
    factor = abs(factor)
    return (max(-factor, bounds[0]), factor)


def named_factor(factor, name: str, bounds=(0, 1)) -> tuple:
    """``_set_factor_by_name`` of RandomGaussianBlur, RandomErasing and
    RandomElasticTransform: `base_factor` with the argument's name in the message."""
    try:
        return base_factor(factor, bounds)
    except ValueError:
        raise ValueError(
            f"The `{name}` argument should be a number (or a list of two numbers) in the range "
            f"[{bounds[0]}, {bounds[1]}]. Received: factor={factor}"
        ) from None


def unit_pair(factor, name: str, error: str, symmetric: bool) -> tuple:
    """The factor check of Solarization and RandomShear: each number in [0, 1]; a number
    ``f`` means ``(-f, f)`` (``symmetric``) or ``(0, f)``."""
    values = factor if isinstance(factor, (tuple, list)) else [factor]
    if isinstance(factor, (tuple, list)) and len(factor) != 2:
        raise ValueError(error + f"Received: {name}={factor}")
    for v in values:
        if not _number(v):
            raise ValueError(error + f"Received: {name}={factor}")
        if v > 1.0 or v < 0:
            raise ValueError(error + f"Received: input_number={v}")
    if isinstance(factor, (tuple, list)):
        return tuple(sorted(factor))
    return (-abs(factor), abs(factor)) if symmetric else (0, factor)


def to_value_range(images: Tensor, source, target) -> Tensor:
    """Keras's ``_transform_value_range``: maps ``source`` (low, high) linearly onto
    ``target``; unchanged when they are equal."""
    if source[0] == target[0] and source[1] == target[1]:
        return images
    scaled = (images - float(source[0])) / (float(source[1]) - float(source[0]))
    return scaled * (float(target[1]) - float(target[0])) + float(target[0])


@stateful  # fresh parameters on every call of a graph function
def draw_params(layer, method: str, args: tuple, dtype: str, device):
    """Runs ``getattr(layer, method)(*args)``, host code that draws a layer's random
    parameters from shapes alone, and hands its NumPy results (an array, None, or dicts and
    lists of them) back as Tensors on ``device``, floating ones in ``dtype``."""

    def wrap(value):
        if value is None:
            return None
        if isinstance(value, dict):
            return {k: wrap(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(wrap(v) for v in value)
        value = np.asarray(value)
        if value.dtype.kind == "f":
            value = value.astype(dtype)
        return make(device.xp.asarray(value) if device.xp is not np else value, device)

    return wrap(getattr(layer, method)(*args))


def rank_error(shape) -> ValueError:
    return ValueError(
        "Expected image tensor to have rank 3 (single image) or 4 (batch of images). "
        f"Received: data.shape={tuple(shape)}"
    )


class KerasDraws:
    """The ``rng`` a layer's `_sample` draws from: NumPy ``Generator`` methods, each one
    ``keras.random`` draw (float32 for floats) from the layer's `SeedGenerator`, so a
    `_sample` drawing what Keras's ``get_random_transformation`` draws, in its order, gives
    Keras's numbers."""

    def __init__(self, generator):
        self.generator = generator

    @staticmethod
    def _shape(size) -> tuple:
        if size is None:
            return ()
        return tuple(size) if isinstance(size, (tuple, list)) else (int(size),)

    def uniform(self, low=0.0, high=1.0, size=None) -> np.ndarray:
        return keras_random.uniform(self._shape(size), low, high, seed=self.generator).numpy()

    def standard_normal(self, size=None) -> np.ndarray:
        return keras_random.normal(self._shape(size), seed=self.generator).numpy()

    def integers(self, low, high, size=None, dtype="int32") -> np.ndarray:
        shape = self._shape(size)
        return keras_random.randint(shape, low, high, dtype, seed=self.generator).numpy()

    def beta(self, a, b, size=None) -> np.ndarray:
        return keras_random.beta(self._shape(size), a, b, seed=self.generator).numpy()

    def standard_gamma(self, shape, size=None) -> np.ndarray:
        return keras_random.gamma(self._shape(size), shape, seed=self.generator).numpy()

    def permutation(self, n: int) -> np.ndarray:
        return keras_random.shuffle(np.arange(int(n)), seed=self.generator).numpy()


class ImagePreprocessingLayer(Layer):
    """Base of the Keras 3 image preprocessing layers (``BaseImagePreprocessingLayer``).

    Subclasses define `_sample` (host: the random parameters of one call, from the batch,
    height, width and channels) and `_apply` (eagerkernel ops on an NHWC float batch), and
    optionally `_apply_labels`, `_apply_masks` and `_apply_boxes` (for dict inputs).

    Args:
        data_format: ``"channels_last"`` (default: ``keras.config.image_data_format()``) or
            ``"channels_first"``.
        seed: the seed of the layer's `keras.random.SeedGenerator` (None: one from Python's
            `random`, as Keras's).
        bounding_box_format: kept for the layers whose Keras version leaves bounding boxes
            unchanged; the others raise NotImplementedError.
    """

    _ALWAYS = False  # applied with training=False too (AutoContrast)
    _BOXES_UNCHANGED = True  # Keras's transform_bounding_boxes returns them as they are
    _DRAWS = True  # has a SeedGenerator (Keras's AutoContrast, Equalization... have none)

    def __init__(self, data_format=None, seed=None, bounding_box_format=None, **kwargs):
        super().__init__(**kwargs)
        if bounding_box_format is not None and not self._BOXES_UNCHANGED:
            raise NotImplementedError(
                f"{type(self).__name__}: bounding boxes are not supported "
                f"(bounding_box_format={bounding_box_format!r})."
            )
        self.data_format = standardize_data_format(data_format)
        self.bounding_box_format = bounding_box_format
        self.seed = seed
        # Keras's (unseeded: from Python's random), made now
        self.generator = keras_random.SeedGenerator(seed) if self._DRAWS else None

    # -- randomness ------------------------------------------------------------------------------

    def _sample_call(self, batch, height, width, channels):
        return self._sample(KerasDraws(self.generator), batch, height, width, channels)

    def _sample(self, rng, batch, height, width, channels):
        """The random parameters of one call (NumPy arrays in a dict), or None."""
        return None

    def _params(self, images: Tensor):
        """`_sample`'s parameters as Tensors, drawn in a stateful step."""
        return draw_params(
            self,
            "_sample_call",
            tuple(int(d) for d in images.shape),
            images.dtype.name,
            images._device,
        )

    # -- transforms (NHWC float batches) ---------------------------------------------------------

    def _apply(self, images: Tensor, params) -> Tensor:
        raise NotImplementedError

    def _apply_labels(self, labels: Tensor, params) -> Tensor:
        return labels

    def _apply_masks(self, masks: Tensor, params) -> Tensor:
        return masks

    def _apply_boxes(self, boxes: dict, single: bool) -> dict:
        """A ``{"boxes", "labels"}`` dict, for the layers that support bounding boxes."""
        return boxes

    # -- the call --------------------------------------------------------------------------------

    def _float(self, x: Tensor) -> Tensor:
        dtype = self.compute_dtype
        return x if x.dtype.name == dtype else cast(x, dtype)

    def _nhwc(self, x: Tensor):
        """``x`` as an NHWC batch, and whether it was one image."""
        if x.ndim not in (3, 4):
            raise rank_error(x.shape)
        single = x.ndim == 3
        if single:
            x = array_ops.expand_dims(x, 0)
        if self.data_format == "channels_first":
            x = array_ops.transpose(x, [0, 2, 3, 1])
        return x, single

    def _restore(self, x: Tensor, single: bool) -> Tensor:
        if self.data_format == "channels_first":
            x = array_ops.transpose(x, [0, 3, 1, 2])
        return array_ops.squeeze(x, [0]) if single else x

    def call(self, data, training=True):
        if isinstance(data, dict):
            return self._call_dict(data, training)
        images = to_tensor(data)
        if images.ndim not in (3, 4):
            raise rank_error(images.shape)
        if not (training or self._ALWAYS):
            return images
        x, single = self._nhwc(self._float(images))
        params = self._params(x) if training else None
        return self._restore(self._apply(x, params), single)

    def _call_dict(self, data: dict, training):
        out = dict(data)
        images = to_tensor(data["images"])
        if images.ndim not in (3, 4):
            raise rank_error(images.shape)
        if "bounding_boxes" in data:
            name = type(self).__name__
            if not self._BOXES_UNCHANGED:
                raise NotImplementedError(
                    f"{name}: bounding boxes are not supported (a 'bounding_boxes' input)."
                )
            if not self.bounding_box_format:
                raise ValueError(
                    "You passed an input with a 'bounding_boxes' key, but you didn't specify "
                    f"a bounding box format. Pass a `bounding_box_format` argument to your "
                    f"{name} layer, e.g. `bounding_box_format='xyxy'`."
                )
        if not (training or self._ALWAYS):
            out["images"] = images
            return out
        x, single = self._nhwc(self._float(images))
        params = self._params(x) if training else None
        out["images"] = self._restore(self._apply(x, params), single)
        if "bounding_boxes" in data:
            out["bounding_boxes"] = self._apply_boxes(data["bounding_boxes"], single)
        if "labels" in data and training:
            labels = to_tensor(data["labels"])
            if single:
                labels = array_ops.expand_dims(labels, 0)
            labels = self._apply_labels(labels, params)
            out["labels"] = array_ops.squeeze(labels, [0]) if single else labels
        if "segmentation_masks" in data and training:
            masks, _ = self._nhwc(to_tensor(data["segmentation_masks"]))
            out["segmentation_masks"] = self._restore(self._apply_masks(masks, params), single)
        return out

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self) -> dict:
        config = {**super().get_config(), "data_format": self.data_format}
        if self.bounding_box_format is not None:
            config["bounding_box_format"] = self.bounding_box_format
        return config
