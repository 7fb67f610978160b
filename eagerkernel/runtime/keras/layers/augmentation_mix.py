"""Keras 3's batch-mixing and erasing layers: MixUp, CutMix and RandomErasing (follow the
``keras.layers`` classes of those names; see `augmentation_base` for the call, ``training``,
``seed`` and ``data_format``).

MixUp and CutMix mix each image with another image of the batch (a random permutation) and,
given ``{"images": ..., "labels": ...}``, mix the labels by the same weight: MixUp blends the
whole images by a Beta-distributed weight, CutMix pastes a rectangle of the other image and
weights the labels by the rectangle's area. The mixing is `gather` and elementwise ops, so it
is differentiable with respect to the images and labels.
"""

from __future__ import annotations

import numpy as np

from ...core.tensor import to_tensor
from ...ops import array_ops
from ...ops.elementwise import cast, where
from ...ops.indexing import gather
from .augmentation_base import ImagePreprocessingLayer, base_factor, named_factor

__all__ = ["CutMix", "MaxNumBoundingBoxes", "MixUp", "RandomErasing"]


def _float_labels(labels, like):
    return labels if labels.dtype.is_floating else cast(labels, like)


class MixUp(ImagePreprocessingLayer):
    """MixUp (follows `keras.layers.MixUp`): each image ``i`` becomes ``w_i x_i + (1 - w_i)
    x_p(i)``, ``p`` a random permutation of the batch and ``w_i ~ Beta(alpha, alpha)``;
    labels (``[B, classes]``, a dict's ``"labels"``) are mixed by the same weights, and so
    are segmentation masks.

    Args:
        alpha: the Beta distribution's parameter (default 0.2). data_format, seed: as usual.

    Raises:
        NotImplementedError: bounding boxes.

    Input shape: images ``(B, H, W, C)`` (one image mixes with itself), or a dict with
    ``"images"`` and ``"labels"``. Output: the same structure, float images and labels.
    """

    _BOXES_UNCHANGED = False

    def __init__(self, alpha=0.2, data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.alpha = alpha

    def _sample(self, rng, batch, height, width, channels):
        return {
            "permutation": rng.permutation(batch),
            "weight": rng.beta(self.alpha, self.alpha, batch),
        }

    def _mix(self, values, params):
        weight = array_ops.reshape(params["weight"], [-1] + [1] * (values.ndim - 1))
        weight = cast(weight, values.dtype.name)
        return weight * values + (1.0 - weight) * gather(values, params["permutation"])

    def _apply(self, images, params):
        return self._mix(images, params)

    def _apply_labels(self, labels, params):
        return self._mix(_float_labels(labels, self.compute_dtype), params)

    def _apply_masks(self, masks, params):
        return self._mix(_float_labels(masks, self.compute_dtype), params)

    def get_config(self) -> dict:
        return {**super().get_config(), "alpha": self.alpha, "seed": self.seed}


def _crop_bounds(rng, batch, length, ratio):
    """Keras's ``_compute_crop_bounds``: ``ratio * length`` long, at a random start."""
    crop = ratio * length
    start = rng.uniform(0.0, 1.0, batch) * (length - crop)
    return start, start + crop


def _box_mask(x0, x1, y0, y1, height, width):
    """``[B, H, W, 1]``: pixels with ``x0 <= x < x1`` and ``y0 <= y < y1``."""
    gy, gx = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    x0, x1, y0, y1 = (v.reshape(-1, 1, 1) for v in (x0, x1, y0, y1))
    inside = (gx >= x0) & (gx < x1) & (gy >= y0) & (gy < y1)
    return inside[..., None]


class CutMix(ImagePreprocessingLayer):
    """CutMix (follows `keras.layers.CutMix`): each image gets a rectangle of another image
    of the batch (a random permutation) pasted in; the rectangle's sides are ``sqrt(1 - w)``
    of the image's, ``w ~ Beta(a, a)`` with ``a`` drawn from ``factor``, at a random place;
    labels are mixed as ``w' y_i + (1 - w') y_p(i)`` with ``1 - w'`` the rectangle's area
    over the image's (Keras's continuous area; the pasted pixels are those whose corner lies
    in it). A single image is left as it is (it can only mix with itself).

    Args:
        factor: a number in [0, 1] or a pair (default 1.0). seed, data_format: as usual.

    Raises:
        ValueError: a factor outside [0, 1]. NotImplementedError: bounding boxes (as in
            Keras).
    """

    _BOXES_UNCHANGED = False

    def __init__(self, factor=1.0, seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = base_factor(factor, (0, 1))

    def _sample(self, rng, batch, height, width, channels):
        alpha = rng.uniform(self.factor[0], self.factor[1]) + 1e-6
        ratio = np.sqrt(1.0 - rng.beta(alpha, alpha, batch))
        x0, x1 = _crop_bounds(rng, batch, width, ratio)
        y0, y1 = _crop_bounds(rng, batch, height, ratio)
        return {
            "permutation": rng.permutation(batch),
            "mask": _box_mask(x0, x1, y0, y1, height, width),
            "weight": 1.0 - (x1 - x0) * (y1 - y0) / (width * height),
        }

    def _apply(self, images, params):
        return where(params["mask"], gather(images, params["permutation"]), images)

    def _apply_labels(self, labels, params):
        labels = _float_labels(labels, self.compute_dtype)
        weight = cast(array_ops.reshape(params["weight"], [-1, 1]), labels.dtype.name)
        return weight * labels + (1.0 - weight) * gather(labels, params["permutation"])

    def _apply_masks(self, masks, params):
        return self._apply(masks, params)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "seed": self.seed}


class RandomErasing(ImagePreprocessingLayer):
    """Random erasing (follows `keras.layers.RandomErasing`): with a probability drawn from
    ``factor`` per image, a rectangle is replaced by ``fill_value`` (None: Gaussian noise
    times ``value_range[1]``), clipped to ``value_range``. Its sides are ``sqrt(s)`` of the
    image's, one ``s`` per side drawn from ``scale``.

    Args:
        factor: a number in [0, 1] or a pair (default 1.0, a number ``f`` meaning ``(0,
            f)``). scale: a pair in [0, 1] (default ``(0.02, 0.33)``). fill_value: None, a
            number, or three numbers (one per channel). value_range, seed, data_format: as
            usual.

    Raises:
        ValueError: a factor or scale outside [0, 1], a ``fill_value`` of another kind
            (Keras's messages).
    """

    def __init__(
        self,
        factor=1.0,
        scale=(0.02, 0.33),
        fill_value=None,
        value_range=(0, 255),
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = base_factor(factor, (0, 1))
        self.scale = named_factor(scale, "scale")
        numbers = isinstance(fill_value, (tuple, list)) and len(fill_value) == 3
        if fill_value is not None and not (isinstance(fill_value, (int, float)) or numbers):
            raise ValueError(
                "The `fill_value` argument should be a number (or a list of three numbers) "
            )
        self.fill_value = fill_value
        self.value_range = value_range

    def _sample(self, rng, batch, height, width, channels):
        sides = np.sqrt(rng.uniform(self.scale[0], self.scale[1], (batch, 2)))
        x0, x1 = _crop_bounds(rng, batch, width, sides[:, 0])
        y0, y1 = _crop_bounds(rng, batch, height, sides[:, 1])
        probability = rng.uniform(self.factor[0], self.factor[1], batch)
        apply = rng.uniform(0.0, 1.0, batch) < probability
        mask = _box_mask(x0, x1, y0, y1, height, width) & apply.reshape(-1, 1, 1, 1)
        params = {"mask": mask}
        if self.fill_value is None:
            shape = (batch, height, width, channels)
            fill = rng.standard_normal(shape) * self.value_range[1]
            params["fill"] = np.clip(fill, self.value_range[0], self.value_range[1])
        return params

    def _apply(self, images, params):
        fill = params.get("fill")
        if fill is None:
            value = np.broadcast_to(np.asarray(self.fill_value, float), (int(images.shape[-1]),))
            fill = np.clip(value, self.value_range[0], self.value_range[1])
            fill = fill.astype(images.dtype.as_numpy_dtype)
        return where(params["mask"], fill, images)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "factor": self.factor,
            "scale": self.scale,
            "fill_value": self.fill_value,
            "value_range": self.value_range,
            "seed": self.seed,
        }


class MaxNumBoundingBoxes(ImagePreprocessingLayer):
    """Pads or truncates the bounding boxes of each image to ``max_number`` (follows
    `keras.layers.MaxNumBoundingBoxes`): a dict's ``"bounding_boxes"`` ``{"boxes": (B, N,
    4), "labels": (B, N)}`` (dense; one image: ``(N, 4)`` and ``(N,)``) keeps its first
    ``max_number`` boxes and is padded with ``fill_value``; images and labels pass unchanged.
    Applied with ``training=False`` too.

    Args:
        max_number: the number of boxes. fill_value: the padding (default -1).
        bounding_box_format: required with bounding boxes (Keras's ValueError otherwise).

    >>> layer = ek.keras.layers.MaxNumBoundingBoxes(3, bounding_box_format="xyxy")
    >>> out = layer({"images": ek.zeros((4, 4, 3)),
    ...              "bounding_boxes": {"boxes": [[0.0, 0.0, 1.0, 1.0]], "labels": [2]}})
    >>> out["bounding_boxes"]["labels"].numpy()
    array([ 2, -1, -1], dtype=int32)
    """

    _DRAWS = False

    _ALWAYS = True

    def __init__(self, max_number, fill_value=-1, **kwargs):
        super().__init__(**kwargs)
        self.max_number = int(max_number)
        self.fill_value = int(fill_value)

    def _apply(self, images, params):
        return images

    def _fit(self, values, single: bool):
        values = to_tensor(values)
        if single:
            values = array_ops.expand_dims(values, 0)
        values = values[:, : self.max_number]
        pad = [[0, 0], [0, self.max_number - int(values.shape[1])]]
        pad += [[0, 0]] * (values.ndim - 2)
        values = array_ops.pad(values, pad, constant_values=self.fill_value)
        return array_ops.squeeze(values, [0]) if single else values

    def _apply_boxes(self, boxes: dict, single: bool) -> dict:
        out = dict(boxes)
        out["boxes"] = self._fit(boxes["boxes"], single)
        out["labels"] = self._fit(boxes["labels"], single)
        return out

    def compute_output_shape(self, input_shape):
        if isinstance(input_shape, dict) and "bounding_boxes" in input_shape:
            extra = set(input_shape["bounding_boxes"]) - {"boxes", "labels"}
            if extra:
                raise KeyError(
                    f"There are unsupported keys in `bounding_boxes`: {list(extra)}. Only "
                    "`boxes` and `labels` are supported."
                )
            shapes = dict(input_shape["bounding_boxes"])
            for key in ("boxes", "labels"):
                shape = list(shapes[key])
                shape[1] = self.max_number
                shapes[key] = shape
            return {**input_shape, "bounding_boxes": shapes}
        return input_shape

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "max_number": self.max_number,
            "fill_value": self.fill_value,
        }
