"""Keras 3's random geometric layers: RandomShear, RandomPerspective and
RandomElasticTransform (follow the ``keras.layers`` classes of those names; see
`augmentation_base` for the call, ``training``, ``seed`` and ``data_format``).

Shear and perspective run `augmentation.transform` (TensorFlow's
``ImageProjectiveTransformV3``, as Keras's TensorFlow backend does) with per-image transforms
drawn from the layer's factors. The elastic deformation draws a smooth random displacement
field and reads each output pixel at its displaced position with the taps of Keras's
``map_coordinates`` (one or four pixels, ``fill_mode`` outside the image); the taps depend on
the draw alone, the read is a `gather`, so gradients reach the images. Segmentation masks
(dict inputs) move with their images, read from the nearest pixel.
"""

from __future__ import annotations

import numpy as np

from ...core.tensor import to_tensor
from ...ops import array_ops, reduction
from ...ops.elementwise import cast, clip_by_value, where
from ...ops.indexing import gather
from .augmentation import transform
from .augmentation_base import ImagePreprocessingLayer, base_factor, named_factor, unit_pair

__all__ = ["AffineStep", "RandomElasticTransform", "RandomPerspective", "RandomShear"]

_FILL_MODES = ("reflect", "wrap", "constant", "nearest")
_INTERPOLATIONS = ("nearest", "bilinear")


def _check_mode(value, allowed, name: str) -> None:
    if value not in allowed:
        raise NotImplementedError(f"Unknown `{name}` {value}. Expected of one {allowed}.")


def _nearest_masks(masks, transforms, fill_mode, fill_value):
    """Segmentation masks moved by ``transforms`` (nearest pixel), in their dtype."""
    moved = transform(cast(masks, "float32"), transforms, fill_mode, "nearest", fill_value)
    return cast(moved, masks.dtype.name)


class AffineStep(ImagePreprocessingLayer):
    """`augmentation`'s RandomRotation or RandomTranslation as a step of AugMix and
    RandAugment: the layer's own transforms (Keras 3 draws them the same way), applied with its
    fill mode and interpolation."""

    _DRAWS = False

    def __init__(self, layer, **kwargs):
        super().__init__(**kwargs)
        self._layer = layer

    def _sample(self, rng, batch, height, width, channels):
        # drawn from the caller's generator, as Keras's RandAugment/AugMix pass theirs
        return {"transforms": self._layer._transforms(batch, height, width, rng.generator)}

    def _apply(self, images, params):
        layer = self._layer
        return transform(
            images, params["transforms"], layer.fill_mode, layer.interpolation, layer.fill_value
        )


class _ProjectiveLayer(ImagePreprocessingLayer):
    """A layer whose `_sample` gives ``transforms`` ([B, 8]) and ``apply`` ([B, 1, 1, 1])."""

    _BOXES_UNCHANGED = False
    fill_mode = "constant"

    def _apply(self, images, params):
        moved = transform(
            images, params["transforms"], self.fill_mode, self.interpolation, self.fill_value
        )
        return where(params["apply"], moved, images)

    def _apply_masks(self, masks, params):
        moved = _nearest_masks(masks, params["transforms"], self.fill_mode, self.fill_value)
        return where(params["apply"], moved, masks)


class RandomShear(_ProjectiveLayer):
    """Shears each image by a random amount along x and y (follows
    `keras.layers.RandomShear`): the output pixel ``(x, y)`` reads the input at ``(x + sx y,
    sy x + y)``, ``sx`` and ``sy`` drawn from ``x_factor`` and ``y_factor`` (a number ``f``
    means ``(-f, f)``) with one random sign per image for both.

    Args:
        x_factor, y_factor: a number or a pair, in [0, 1] (default 0: no shear).
        interpolation: ``"bilinear"`` (default) or ``"nearest"``.
        fill_mode: ``"reflect"`` (default), ``"wrap"``, ``"constant"`` or ``"nearest"``.
        fill_value: the value outside with ``"constant"``. data_format, seed: as usual.

    Raises:
        ValueError: factors outside [0, 1] (Keras's message). NotImplementedError: an unknown
            ``fill_mode`` or ``interpolation`` (Keras's message), or bounding boxes.

    Unlike Keras's, `from_config` takes `get_config`'s ``(-f, f)`` ranges back.
    """

    _ERROR = (
        "The `factor` argument should be a number (or a list of two numbers) in the range "
        "[0, 1.0]. "
    )

    def __init__(
        self,
        x_factor=0.0,
        y_factor=0.0,
        interpolation="bilinear",
        fill_mode="reflect",
        fill_value=0.0,
        data_format=None,
        seed=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.x_factor = unit_pair(x_factor, "x_factor", self._ERROR, True)
        self.y_factor = unit_pair(y_factor, "y_factor", self._ERROR, True)
        _check_mode(fill_mode, _FILL_MODES, "fill_mode")
        _check_mode(interpolation, _INTERPOLATIONS, "interpolation")
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.interpolation = interpolation

    def _sample(self, rng, batch, height, width, channels):
        sign = np.where(rng.uniform(0.0, 1.0, batch) > 0.5, -1.0, 1.0)
        shear_y = rng.uniform(self.y_factor[0], self.y_factor[1], batch) * sign
        shear_x = rng.uniform(self.x_factor[0], self.x_factor[1], batch) * sign
        ones, zeros = np.ones(batch), np.zeros(batch)
        transforms = np.stack([ones, shear_x, zeros, shear_y, ones, zeros, zeros, zeros], 1)
        return {"transforms": transforms, "apply": np.ones((batch, 1, 1, 1), bool)}

    @classmethod
    def from_config(cls, config: dict):
        # A number f is stored as (-f, f), which the constructor's check refuses (Keras's
        # from_config fails there); it is given back as f.
        config = dict(config)
        for key in ("x_factor", "y_factor"):
            value = config.get(key)
            if isinstance(value, (tuple, list)) and len(value) == 2 and value[0] == -value[1]:
                config[key] = abs(value[1])
        return cls(**config)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "x_factor": self.x_factor,
            "y_factor": self.y_factor,
            "fill_mode": self.fill_mode,
            "interpolation": self.interpolation,
            "seed": self.seed,
            "fill_value": self.fill_value,
        }


class RandomPerspective(_ProjectiveLayer):
    """Applies a random perspective warp to images (follows
    `keras.layers.RandomPerspective`): with a probability drawn from ``factor`` per image (a
    number ``f``: ``(0, f)``), the four corners move by up to ``scale / 2`` of their
    coordinates, and the image follows (bilinear or nearest, ``fill_value`` outside).

    Args:
        factor: a number in [0, 1] or a pair (default 1.0). scale: in [0, 1] (default 1.0;
            0 leaves the images as they are). interpolation: ``"bilinear"`` or ``"nearest"``.
        fill_value, seed, data_format: as usual.

    Raises:
        ValueError: a factor or ``scale`` outside [0, 1] (Keras's messages).
        NotImplementedError: an unknown ``interpolation``, or bounding boxes.
    """

    def __init__(
        self,
        factor=1.0,
        scale=1.0,
        interpolation="bilinear",
        fill_value=0.0,
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = base_factor(factor, (0, 1))
        if scale < 0.0 or scale > 1.0:
            raise ValueError(
                f"The `scale` argument should be a number in the range [0,1]. Received: "
                f"scale={scale}"
            )
        _check_mode(interpolation, _INTERPOLATIONS, "interpolation")
        self.scale = scale
        self.fill_value = fill_value
        self.interpolation = interpolation

    def _sample(self, rng, batch, height, width, channels):
        probability = rng.uniform(self.factor[0], self.factor[1], batch)
        apply = rng.uniform(0.0, 1.0, batch) < probability
        moves = rng.uniform(-0.5 * self.scale, 0.5 * self.scale, (batch, 4, 2))
        corners = [[0.0, 0.0], [width - 1, 0.0], [0.0, height - 1], [width - 1, height - 1]]
        start = np.repeat(np.asarray([corners]), batch, axis=0)
        transforms = _homography(start, start + start * moves)
        return {"transforms": transforms, "apply": apply.reshape(-1, 1, 1, 1)}

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "factor": self.factor,
            "scale": self.scale,
            "interpolation": self.interpolation,
            "fill_value": self.fill_value,
            "seed": self.seed,
        }


def _homography(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """`keras.ops.image`'s homography (Keras's ``compute_homography_matrix``) on host arrays:
    the ``[B, 8]`` transforms taking each ``end`` quad to its ``start`` quad."""
    from ..ops.image_warp import homography

    return homography(to_tensor(start), to_tensor(end)).numpy()


def _fix_index(index: np.ndarray, size: int, fill_mode: str):
    """`keras.ops.image.map_coordinates`' index rule for ``fill_mode`` on host arrays:
    ``(index inside, valid or None)``."""
    from ..ops.image_warp import fix_index

    inside, valid = fix_index(to_tensor(index), size, fill_mode)
    return inside.numpy(), None if valid is None else valid.numpy()


def coordinate_taps(ys, xs, shape, order: int, fill_mode: str):
    """The pixels that reading ``[B, H, W]`` images at ``(ys, xs)`` (``[B, H, W]`` each)
    combines: flat indices into ``B * H * W``, weights and validity, ``[B, H, W, K]`` each (K
    = 1 nearest, 4 linear)."""
    b, h, w = shape
    if order == 0:
        nodes_y = [(np.round(ys).astype(np.int64), 1.0)]
        nodes_x = [(np.round(xs).astype(np.int64), 1.0)]
    else:
        y0, x0 = np.floor(ys), np.floor(xs)
        nodes_y = [(y0.astype(np.int64), 1.0 - (ys - y0)), (y0.astype(np.int64) + 1, ys - y0)]
        nodes_x = [(x0.astype(np.int64), 1.0 - (xs - x0)), (x0.astype(np.int64) + 1, xs - x0)]
    batch = np.arange(b).reshape(-1, 1, 1)
    index, weight, valid = [], [], []
    for iy, wy in nodes_y:
        iy, vy = _fix_index(iy, h, fill_mode)
        for ix, wx in nodes_x:
            ix, vx = _fix_index(ix, w, fill_mode)
            index.append((batch * h + iy) * w + ix)
            weight.append(np.broadcast_to(wy * wx, iy.shape))
            valid.append(np.ones(iy.shape, bool) if vy is None else vy & vx)
    return np.stack(index, -1), np.stack(weight, -1), np.stack(valid, -1)


def read_taps(images, index, weight, valid, fill_value):
    """``images`` ``[B, H, W, C]`` read at `coordinate_taps`' taps: ``[B, H, W, C]``."""
    b, h, w, c = (int(d) for d in images.shape)
    flat = array_ops.reshape(images, [b * h * w, c])
    picked = gather(flat, index)  # [B, H, W, K, C]
    picked = where(array_ops.expand_dims(valid, -1), picked, float(fill_value))
    return reduction.reduce_sum(picked * array_ops.expand_dims(weight, -1), axis=3)


def _smooth(noise: np.ndarray, sigma: float) -> np.ndarray:
    """Keras's ``gaussian_blur`` of ``[B, H, W]`` fields: a ``6 int(sigma) | 1`` wide kernel,
    zero padded (separable, as the kernel is an outer product)."""
    size = (6 * int(sigma)) | 1
    x = np.arange(size) - (size - 1) / 2
    kernel = np.exp(-0.5 * (x / sigma) ** 2)
    kernel /= kernel.sum()
    half = size // 2
    for axis in (1, 2):
        pad = [(0, 0)] * 3
        pad[axis] = (half, half)
        padded = np.pad(noise, pad)
        n = noise.shape[axis]
        noise = sum(
            k * np.take(padded, np.arange(i, i + n), axis=axis) for i, k in enumerate(kernel)
        )
    return noise


class RandomElasticTransform(ImagePreprocessingLayer):
    """Deforms images with a random smooth displacement field (follows
    `keras.layers.RandomElasticTransform`): with ``d`` drawn from ``scale`` per call,
    ``alpha = max(H, W) d / 10`` and ``sigma = min(H, W) d / 20``; each pixel's displacement
    is standard normal noise times ``sigma``, blurred with a Gaussian of width ``sigma``
    (kernel ``6 int(sigma) | 1``), times ``alpha``. Each image is deformed with a probability
    drawn from ``factor``, then clipped to ``value_range``. A zero upper ``factor`` or
    ``scale`` leaves the images as they are. (Keras draws the x and y noise from one seed,
    equal; they are independent here.)

    Args:
        factor: a number in [0, 1] or a pair (default 1.0). scale: a number in [0, 1] or a
            pair (default 1.0). interpolation: ``"bilinear"`` or ``"nearest"``. fill_mode:
            ``"reflect"`` (default), ``"wrap"``, ``"constant"``, ``"nearest"`` or
            ``"mirror"``. fill_value, value_range, seed, data_format: as usual.

    Raises:
        ValueError: factors outside [0, 1] (Keras's messages). NotImplementedError: an
            unknown ``interpolation`` or ``fill_mode``, or bounding boxes.
    """

    _BOXES_UNCHANGED = False
    _FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")

    def __init__(
        self,
        factor=1.0,
        scale=1.0,
        interpolation="bilinear",
        fill_mode="reflect",
        fill_value=0.0,
        value_range=(0, 255),
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = base_factor(factor, (0, 1))
        self.scale = named_factor(scale, "scale")
        _check_mode(interpolation, _INTERPOLATIONS, "interpolation")
        _check_mode(fill_mode, self._FILL_MODES, "fill_mode")
        self.interpolation = interpolation
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.value_range = value_range

    def _sample(self, rng, batch, height, width, channels):
        if self.scale[1] == 0 or self.factor[1] == 0:
            return None
        probability = rng.uniform(self.factor[0], self.factor[1], batch)
        apply = rng.uniform(0.0, 1.0, batch) < probability
        distortion = rng.uniform(self.scale[0], self.scale[1])
        alpha = max(height, width) * 0.1 * distortion
        sigma = min(height, width) * 0.05 * distortion
        dx = _smooth(rng.standard_normal((batch, height, width)) * sigma, sigma)
        dy = _smooth(rng.standard_normal((batch, height, width)) * sigma, sigma)
        grid_y, grid_x = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
        order = _INTERPOLATIONS.index(self.interpolation)
        shape = (batch, height, width)
        taps = coordinate_taps(
            grid_y + alpha * dy, grid_x + alpha * dx, shape, order, self.fill_mode
        )
        nearest = coordinate_taps(
            grid_y + alpha * dy, grid_x + alpha * dx, shape, 0, self.fill_mode
        )
        return {"taps": taps, "nearest": nearest, "apply": apply.reshape(-1, 1, 1, 1)}

    def _apply(self, images, params):
        if params is None:
            return images
        moved = read_taps(images, *params["taps"], self.fill_value)
        moved = where(params["apply"], moved, images)
        return clip_by_value(moved, float(self.value_range[0]), float(self.value_range[1]))

    def _apply_masks(self, masks, params):
        if params is None:
            return masks
        moved = read_taps(cast(masks, "float32"), *params["nearest"], self.fill_value)
        return where(params["apply"], cast(moved, masks.dtype.name), masks)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "factor": self.factor,
            "scale": self.scale,
            "interpolation": self.interpolation,
            "fill_mode": self.fill_mode,
            "fill_value": self.fill_value,
            "value_range": self.value_range,
            "seed": self.seed,
        }
