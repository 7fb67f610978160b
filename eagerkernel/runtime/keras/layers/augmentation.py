"""Image augmentation and resizing layers (follow Keras 3's `RandomFlip`, `RandomRotation`,
`RandomZoom`, `RandomTranslation`, `RandomContrast`, `RandomBrightness`, `RandomCrop`,
`Resizing` and `CenterCrop`).

The random layers change their inputs unless called with ``training=False``: as in Keras 3, a
plain call and a model's ``model(x)`` augment (their ``call`` defaults to ``training=True``),
``fit`` does, ``predict`` and ``evaluate`` do not. They draw from ``ek.random`` with the
layer's ``seed``, as `Dropout` does, in a stateful step (`augmentation_base.draw_params`), so
that a graph function draws again on every call. Rotation, zoom and translation are one op,
`ImageProjectiveTransformV3` (TensorFlow's name): each output pixel ``(x, y)`` samples the input at
``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)`` with ``k = c0 x + c1 y + 1``, bilinearly
or from the nearest pixel, outside the image per ``fill_mode`` (``"reflect"``,
``"wrap"``, ``"nearest"``, ``"constant"``), with the rules Keras documents for each. Its
gradient with respect to the images is the exact adjoint of the sampling (each output's
cotangent spread over the input pixels it read, with the same weights). Images are NHWC:
``[H, W, C]`` or ``[B, H, W, C]``.
"""

from __future__ import annotations

import numpy as np

from ...core.dispatch import Primitive, defvjp, dispatch
from ...core.tensor import Tensor, to_tensor
from ...ops import image as _image
from ...ops.array_ops import reshape
from ...ops.dtype_ops import saturate_cast
from ...ops.elementwise import cast, clip_by_value, where
from ...ops.elementwise import round as elementwise_round
from .. import random as keras_random
from .augmentation_base import channels_last_only, draw_params
from .base import Layer

__all__ = [
    "CenterCrop",
    "RandomBrightness",
    "RandomContrast",
    "RandomCrop",
    "RandomFlip",
    "RandomRotation",
    "RandomTranslation",
    "RandomZoom",
    "Resizing",
    "aspect_crop",
    "smart_resize",
    "transform",
]

_FILL_MODES = ("reflect", "wrap", "nearest", "constant")


# -- the projective transform -------------------------------------------------------------------


def _map_coord(xp, c, size: int, mode: str):
    """TensorFlow's ImageProjectiveTransform coordinate mapping for ``fill_mode``."""
    if mode == "constant":
        return c
    if size <= 1:
        return xp.zeros_like(c)
    if mode == "nearest":
        return xp.clip(c, 0, size - 1)
    if mode == "reflect":
        sz2 = 2.0 * size
        lo = c < 0
        neg = xp.where(c < -sz2, c + sz2 * xp.trunc(-c / sz2), c)
        neg = xp.where(neg < -size, neg + sz2, -neg - 1)
        pos = c - sz2 * xp.trunc(c / sz2)
        pos = xp.where(pos >= size, sz2 - pos - 1, pos)
        out = xp.where(lo, neg, xp.where(c > size - 1, pos, c))
        return xp.clip(out, 0, size - 1)
    # wrap: (a b c d | a b c d | a b c d), as documented (TensorFlow's kernel misplaces exact
    # multiples of the length minus one; the documented rule is kept)
    return xp.clip(c - size * xp.floor(c / size), 0, size - 1)


def _taps(xp, shape, transforms, fill_mode, interpolation):
    """Per output pixel, the input pixels it reads and their weights: ``(ys, xs, weights)``,
    each ``[B, H, W, K]`` (K = 4 bilinear, 1 nearest); a tap outside the image has weight
    on the fill value instead (``inside`` False)."""
    b, h, w = shape[0], shape[1], shape[2]
    yy, xx = xp.meshgrid(
        xp.arange(h, dtype=np.float64), xp.arange(w, dtype=np.float64), indexing="ij"
    )
    t = transforms.astype(np.float64)
    a0, a1, a2, b0, b1, b2, c0, c1 = (t[:, i, None, None] for i in range(8))
    k = c0 * xx + c1 * yy + 1.0
    x_in = _map_coord(xp, (a0 * xx + a1 * yy + a2) / k, w, fill_mode)
    y_in = _map_coord(xp, (b0 * xx + b1 * yy + b2) / k, h, fill_mode)
    if interpolation == "nearest":
        ys = xp.round(y_in)[..., None]
        xs = xp.round(x_in)[..., None]
        weights = xp.ones(ys.shape)
    else:
        y0, x0 = xp.floor(y_in), xp.floor(x_in)
        y1, x1 = y0 + 1, x0 + 1
        ys = xp.stack([y0, y0, y1, y1], -1)
        xs = xp.stack([x0, x1, x0, x1], -1)
        weights = xp.stack(
            [
                (y1 - y_in) * (x1 - x_in),
                (y1 - y_in) * (x_in - x0),
                (y_in - y0) * (x1 - x_in),
                (y_in - y0) * (x_in - x0),
            ],
            -1,
        )
    inside = (ys >= 0) & (ys <= h - 1) & (xs >= 0) & (xs <= w - 1)
    bidx = xp.broadcast_to(xp.arange(b)[:, None, None, None], ys.shape)
    yi = xp.clip(ys, 0, h - 1).astype(np.int64)
    xi = xp.clip(xs, 0, w - 1).astype(np.int64)
    return bidx, yi, xi, weights, inside


def _transform_fwd(xp, images, transforms, fill_mode, interpolation, fill_value):
    bidx, yi, xi, weights, inside = _taps(xp, images.shape, transforms, fill_mode, interpolation)
    picked = images[bidx, yi, xi]  # [B, H, W, K, C]
    values = xp.where(inside[..., None], picked, images.dtype.type(fill_value))
    out = (weights[..., None] * values).sum(axis=3)
    return out.astype(images.dtype, copy=False)


def _transform_grad_fwd(xp, g, transforms, shape, fill_mode, interpolation):
    bidx, yi, xi, weights, inside = _taps(xp, shape, transforms, fill_mode, interpolation)
    contrib = (weights * inside)[..., None] * g[:, :, :, None, :]  # [B, H, W, K, C]
    out = xp.zeros(shape, g.dtype)
    flat = ((bidx * shape[1] + yi) * shape[2] + xi).reshape(-1)
    values = contrib.reshape(-1, shape[3]).astype(g.dtype, copy=False)
    if xp is np:
        np.add.at(out.reshape(-1, shape[3]), flat, values)
    else:
        import cupyx

        cupyx.scatter_add(out.reshape(-1, shape[3]), flat, values)
    return out


_transform = Primitive("ImageProjectiveTransformV3", _transform_fwd)
_transform_grad = Primitive("ImageProjectiveTransformV3Grad", _transform_grad_fwd)
defvjp(
    _transform,
    lambda g, ans, images, transforms, fill_mode, interpolation, fill_value: dispatch(
        _transform_grad,
        (g, transforms),
        {
            "shape": tuple(images._value.shape),
            "fill_mode": fill_mode,
            "interpolation": interpolation,
        },
    ),
    None,
)
defvjp(
    _transform_grad,
    lambda h, ans, g, transforms, shape, fill_mode, interpolation: dispatch(
        _transform,
        (h, transforms),
        {"fill_mode": fill_mode, "interpolation": interpolation, "fill_value": 0.0},
    ),
    None,
)


def transform(images, transforms, fill_mode="reflect", interpolation="bilinear", fill_value=0.0):
    """Applies one projective transform per image (TensorFlow's
    ``ImageProjectiveTransformV3``; see the module docstring).

    Args:
        images: float ``[B, H, W, C]``. transforms: ``[B, 8]`` (or ``[8]`` for all).
        fill_mode: ``"reflect"`` (default), ``"wrap"``, ``"nearest"`` or ``"constant"``.
        interpolation: ``"bilinear"`` (default) or ``"nearest"``.
        fill_value: the value outside the image with ``"constant"``.

    Raises:
        ValueError: a bad mode, or shapes that do not fit.

    >>> img = ek.constant(np.arange(9.0, dtype=np.float32).reshape(1, 3, 3, 1))
    >>> shift = ek.constant([[1.0, 0, 1, 0, 1, 0, 0, 0]])  # read one pixel to the right
    >>> transform(img, shift, fill_mode="constant")[0, :, :, 0].numpy()
    array([[1., 2., 0.],
           [4., 5., 0.],
           [7., 8., 0.]], dtype=float32)
    """
    if fill_mode not in _FILL_MODES:
        raise ValueError(
            f"transform: fill_mode must be one of {list(_FILL_MODES)}. Received: {fill_mode!r}"
        )
    if interpolation not in ("bilinear", "nearest"):
        raise ValueError(
            f"transform: interpolation must be 'bilinear' or 'nearest'. Received: {interpolation!r}"
        )
    x = to_tensor(images)
    if x.ndim != 4 or x._value.dtype.kind != "f":
        raise ValueError(
            f"transform: images must be float [B, H, W, C], got {x.dtype.name} {tuple(x.shape)}."
        )
    t = to_tensor(transforms, x._value.dtype)
    if t.ndim == 1:
        t = reshape(t, [1, 8]) if x.shape[0] == 1 else _tile_rows(t, x.shape[0])
    if tuple(t.shape) != (x.shape[0], 8):
        raise ValueError(f"transform: transforms must be [{x.shape[0]}, 8], got {tuple(t.shape)}.")
    params = {
        "fill_mode": fill_mode,
        "interpolation": interpolation,
        "fill_value": float(fill_value),
    }
    return dispatch(_transform, (x, t), params)


def _tile_rows(t: Tensor, n: int) -> Tensor:
    from ...ops.array_ops import tile

    return tile(reshape(t, [1, 8]), [n, 1])


# -- layers -------------------------------------------------------------------------------------


class _RandomLayer(Layer):
    """Seeding shared by the random layers, as Keras's: a `keras.random.SeedGenerator` made
    at construction (from Python's `random` when ``seed`` is None), each draw a float32
    ``keras.random.uniform`` from it, in Keras's order."""

    def __init__(self, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.seed = seed
        self.generator = keras_random.SeedGenerator(seed)

    def _uniform(self, shape, lo=0.0, hi=1.0, seed=None):
        """Drawn from ``seed`` (a SeedGenerator: RandAugment's, for its steps) or the layer's."""
        seed = self.generator if seed is None else seed
        return keras_random.uniform(shape, lo, hi, seed=seed).numpy()

    def get_config(self) -> dict:
        return {**super().get_config(), "seed": self.seed}


def _batched(inputs):
    x = to_tensor(inputs)
    if x.ndim not in (3, 4):
        raise ValueError(f"expected images [H, W, C] or [B, H, W, C], got shape {tuple(x.shape)}.")
    return (reshape(x, [1, *x.shape]), True) if x.ndim == 3 else (x, False)


def _unbatched(x, single):
    return reshape(x, x.shape[1:]) if single else x


def _factor_range(factor, name: str, arg: str, symmetric=True):
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2:
            raise ValueError(f"{name}: {arg} must be a float or a pair. Received: {factor!r}")
        lo, hi = float(factor[0]), float(factor[1])
    else:
        f = float(factor)
        lo, hi = (-f, f) if symmetric else (0.0, f)
    if lo > hi:
        raise ValueError(f"{name}: {arg} lower bound {lo} > upper bound {hi}.")
    return lo, hi


class RandomFlip(_RandomLayer):
    """Flips images at random in training (follows `tf.keras.layers.RandomFlip`).

    Args:
        mode: ``"horizontal"``, ``"vertical"`` or ``"horizontal_and_vertical"`` (default).
        seed: the seed of the layer's `keras.random.SeedGenerator` (Keras's draws).

    >>> layer = ek.keras.layers.RandomFlip("horizontal", seed=1)
    >>> x = ek.constant(np.arange(4.0, dtype=np.float32).reshape(1, 1, 4, 1))
    >>> layer(x, training=False).numpy().ravel()  # inference: unchanged
    array([0., 1., 2., 3.], dtype=float32)
    """

    def __init__(self, mode="horizontal_and_vertical", seed=None, **kwargs):
        if mode not in ("horizontal", "vertical", "horizontal_and_vertical"):
            raise ValueError(f"RandomFlip: unknown mode={mode!r}.")
        super().__init__(seed, **kwargs)
        self.mode = mode

    def _flips(self, n):  # Keras's: one draw per image, for both directions
        flips = self._uniform([n, 1, 1, 1]) <= 0.5
        return {key: flips for key in ("horizontal", "vertical") if key in self.mode}

    def call(self, inputs, training=True):
        inputs = cast(inputs, self.compute_dtype)  # in both modes, as Keras 3's
        if not training:
            return inputs
        x, single = _batched(inputs)
        # drawn in a stateful step: a graph function flips anew on every call
        flips = draw_params(self, "_flips", (int(x.shape[0]),), x.dtype.name, x._device)
        if "horizontal" in flips:
            x = where(flips["horizontal"], _image.flip_left_right(x), x)
        if "vertical" in flips:
            x = where(flips["vertical"], _image.flip_up_down(x), x)
        return _unbatched(x, single)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "mode": self.mode}


class _Geometric(_RandomLayer):
    def __init__(
        self, fill_mode="reflect", interpolation="bilinear", seed=None, fill_value=0.0, **kwargs
    ):
        name = type(self).__name__
        if fill_mode not in _FILL_MODES:
            raise ValueError(
                f"{name}: fill_mode must be one of {list(_FILL_MODES)}. Received: {fill_mode!r}"
            )
        if interpolation not in ("bilinear", "nearest"):
            raise ValueError(
                f"{name}: interpolation must be 'bilinear' or 'nearest'. "
                f"Received: {interpolation!r}"
            )
        super().__init__(seed, **kwargs)
        self.fill_mode = fill_mode
        self.interpolation = interpolation
        self.fill_value = float(fill_value)

    def call(self, inputs, training=True):
        inputs = cast(inputs, self.compute_dtype)  # in both modes, as Keras 3's
        if not training:
            return inputs
        x, single = _batched(inputs)
        b, h, w = int(x.shape[0]), int(x.shape[1]), int(x.shape[2])
        # drawn in a stateful step: a graph function draws new transforms on every call
        transforms = draw_params(self, "_transforms", (b, h, w), x.dtype.name, x._device)
        out = transform(x, transforms, self.fill_mode, self.interpolation, self.fill_value)
        return _unbatched(out, single)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "fill_mode": self.fill_mode,
            "interpolation": self.interpolation,
            "fill_value": self.fill_value,
        }


class RandomRotation(_Geometric):
    """Rotates images by a random angle in training (follows
    `tf.keras.layers.RandomRotation`): ``factor`` is a fraction of a full turn, a float ``f``
    meaning ``[-f, f]`` or a pair ``(lower, upper)``; about the image center.

    Raises:
        ValueError: a bad factor, fill_mode or interpolation.
    """

    def __init__(
        self,
        factor,
        fill_mode="reflect",
        interpolation="bilinear",
        seed=None,
        fill_value=0.0,
        **kwargs,
    ):
        super().__init__(fill_mode, interpolation, seed, fill_value, **kwargs)
        self.factor = factor
        self._range = _factor_range(factor, "RandomRotation", "factor")

    def _transforms(self, b, h, w, seed=None):  # Keras's _compute_affine_matrix, in float32
        f32 = np.float32
        angle = self._uniform([b], self._range[0] * 360.0, self._range[1] * 360.0, seed)
        angle = angle * f32(np.pi / 180.0)
        cos, sin = np.cos(angle), np.sin(angle)
        cx, cy = f32(0.5) * f32(w - 1), f32(0.5) * f32(h - 1)
        a2 = cx - cx * cos - cy * -sin
        b2 = cy - cx * sin - cy * cos
        zeros = np.zeros(b, f32)
        return np.stack([cos, -sin, a2, sin, cos, b2, zeros, zeros], axis=1)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor}


class RandomZoom(_Geometric):
    """Zooms images by a random amount in training (follows `tf.keras.layers.RandomZoom`):
    a positive factor zooms out, a negative one in (``height_factor`` 0.2: up to 20% out);
    ``width_factor=None`` keeps the aspect ratio.

    Raises:
        ValueError: a factor below -1, or bad modes.
    """

    def __init__(
        self,
        height_factor,
        width_factor=None,
        fill_mode="reflect",
        interpolation="bilinear",
        seed=None,
        fill_value=0.0,
        **kwargs,
    ):
        super().__init__(fill_mode, interpolation, seed, fill_value, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self._h = _factor_range(height_factor, "RandomZoom", "height_factor")
        self._w = (
            None
            if width_factor is None
            else _factor_range(width_factor, "RandomZoom", "width_factor")
        )
        if min(self._h[0], (self._w or (0, 0))[0]) < -1:
            raise ValueError(
                f"RandomZoom: factors must be >= -1. Received: {height_factor!r}, {width_factor!r}"
            )

    def _transforms(self, b, h, w, seed=None):  # Keras's draws and float32 arithmetic
        zy = self._uniform([b], 1.0 + self._h[0], 1.0 + self._h[1], seed)
        if self._w is None:
            zx = zy
        else:
            zx = self._uniform([b], 1.0 + self._w[0], 1.0 + self._w[1], seed)
        x_off = (np.float32(w) - 1) / 2 * (1 - zx)
        y_off = (np.float32(h) - 1) / 2 * (1 - zy)
        zeros = np.zeros(b, np.float32)
        return np.stack([zx, zeros, x_off, zeros, zy, y_off, zeros, zeros], axis=1)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "height_factor": self.height_factor,
            "width_factor": self.width_factor,
        }


class RandomTranslation(_Geometric):
    """Shifts images by a random fraction of their size in training (follows
    `tf.keras.layers.RandomTranslation`).

    Raises:
        ValueError: bad factors or modes.
    """

    def __init__(
        self,
        height_factor,
        width_factor,
        fill_mode="reflect",
        interpolation="bilinear",
        seed=None,
        fill_value=0.0,
        **kwargs,
    ):
        super().__init__(fill_mode, interpolation, seed, fill_value, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self._h = _factor_range(height_factor, "RandomTranslation", "height_factor")
        self._w = _factor_range(width_factor, "RandomTranslation", "width_factor")

    def _transforms(self, b, h, w, seed=None):
        dy = self._uniform([b], *self._h, seed) * np.float32(h)  # Keras's order and float32
        dx = self._uniform([b], *self._w, seed) * np.float32(w)
        ones, zeros = np.ones(b, np.float32), np.zeros(b, np.float32)
        return np.stack([ones, zeros, -dx, zeros, ones, -dy, zeros, zeros], axis=1)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "height_factor": self.height_factor,
            "width_factor": self.width_factor,
        }


class _ColorLayer(_RandomLayer):
    """The random colour layers: in training, `_adjust` a float batch by per-image
    `_factors` (drawn in a stateful step), then clip it to ``value_range``; the input
    unchanged otherwise."""

    def __init__(self, factor, value_range, seed, **kwargs):
        super().__init__(seed, **kwargs)
        self.factor, self.value_range = factor, tuple(value_range)

    def call(self, inputs, training=True):
        if not training:
            return inputs
        x, single = _batched(inputs)
        if x._value.dtype.kind != "f":
            x = cast(x, "float32")
        low, high = float(self.value_range[0]), float(self.value_range[1])
        # drawn in a stateful step: a graph function draws new factors on every call
        factors = draw_params(self, "_factors", (int(x.shape[0]),), x.dtype.name, x._device)
        return _unbatched(clip_by_value(self._adjust(x, factors), low, high), single)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "factor": self.factor,
            "value_range": list(self.value_range),
        }


class RandomContrast(_ColorLayer):
    """Scales each image's deviation from its per-channel mean by a random factor in
    ``[1 - lower, 1 + upper]`` in training (follows `tf.keras.layers.RandomContrast`), then
    clips to ``value_range`` (default ``(0, 255)``).

    Raises:
        ValueError: a factor outside [0, 1].
    """

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        lo, hi = _factor_range(factor, "RandomContrast", "factor", symmetric=False)
        if isinstance(factor, (int, float)):
            lo = hi
        if not (0 <= lo <= 1 and hi >= 0):
            raise ValueError(
                f"RandomContrast: factor must be in [0, 1]. Received: factor={factor!r}"
            )
        super().__init__(factor, value_range, seed, **kwargs)
        self._range = (1.0 - lo, 1.0 + hi)

    def _factors(self, n):
        return self._uniform([n, 1, 1, 1], *self._range)

    def _adjust(self, x, factors):
        from ...ops.reduction import reduce_mean

        # Keras's mean: over the height, then over the width
        mean = reduce_mean(reduce_mean(x, axis=1, keepdims=True), axis=2, keepdims=True)
        return (x - mean) * factors + mean


class RandomBrightness(_ColorLayer):
    """Adds a random offset of ``factor`` times the value range to each image in training
    (follows `tf.keras.layers.RandomBrightness`), then clips to ``value_range``.

    Raises:
        ValueError: a factor outside [-1, 1].
    """

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        lo, hi = _factor_range(factor, "RandomBrightness", "factor")
        if lo < -1 or hi > 1:
            raise ValueError(
                f"RandomBrightness: factor must be in [-1, 1]. Received: factor={factor!r}"
            )
        super().__init__(factor, value_range, seed, **kwargs)
        self._range = (lo, hi)

    def _factors(self, n):
        span = float(self.value_range[1]) - float(self.value_range[0])
        return (self._uniform([n], *self._range) * span).reshape(-1, 1, 1, 1)

    def _adjust(self, x, delta):
        return x + delta


def _center_crop(x: Tensor, height: int, width: int) -> Tensor:
    h, w = x.shape[1], x.shape[2]
    top, left = (h - height) // 2, (w - width) // 2
    return x[:, top : top + height, left : left + width, :]


def aspect_crop(x: Tensor, height: int, width: int) -> Tensor:
    """The largest centred window of the batch ``x`` (NHWC) with the aspect ratio of ``height``
    x ``width``, by Keras's arithmetic (``smart_resize``'s crop box, also Resizing's
    ``crop_to_aspect_ratio``)."""
    h, w = int(x.shape[1]), int(x.shape[2])
    crop_h = max(min(h, int(float(w * height) / width)), 1)
    crop_w = max(min(w, int(float(h * width) / height)), 1)
    top, left = int(float(h - crop_h) / 2), int(float(w - crop_w) / 2)
    return x[:, top : top + crop_h, left : left + crop_w, :]


def smart_resize(x, size, interpolation="bilinear", data_format="channels_last"):
    """Resizes images to ``size`` without distorting them: the largest centred window with
    the target's aspect ratio, resized to it (follows `keras.preprocessing.image.smart_resize`).

    Args:
        x: an image ``(height, width, channels)`` or a batch ``(batch, height, width,
            channels)``: a Tensor or a NumPy array.
        size: ``(height, width)``, the output's.
        interpolation: ``"bilinear"`` (default), ``"nearest"``, ``"bicubic"``, ``"area"``,
            ``"lanczos3"``, ``"lanczos5"``, ``"gaussian"`` or ``"mitchellcubic"``.
        data_format: ``"channels_last"`` only.

    Returns:
        ``x``'s batch (if any), ``size`` and channels; a NumPy array for a NumPy input, else
        a float Tensor.

    Raises:
        ValueError: ``size`` not two ints, an input of rank other than 3 or 4 (Keras's
            messages), or ``data_format="channels_first"``.

    >>> x = np.arange(12.0, dtype=np.float32).reshape(2, 6, 1)  # 2 x 6: the centre 2 x 2
    >>> ek.keras.preprocessing.image.smart_resize(x, (2, 2))[..., 0]
    array([[2., 3.],
           [8., 9.]], dtype=float32)
    """
    if len(size) != 2:
        raise ValueError(f"Expected `size` to be a tuple of 2 integers, but got: {size}.")
    if data_format != "channels_last":
        raise ValueError(
            f"smart_resize: data_format={data_format!r} is not supported; images are "
            "channels_last (NHWC)."
        )
    t = to_tensor(x)
    if t.ndim not in (3, 4):
        raise ValueError(
            "Expected an image array with shape `(height, width, channels)`, or "
            "`(batch_size, height, width, channels)`, but got input with incorrect rank, of "
            f"shape {tuple(t.shape)}."
        )
    batch, single = _batched(t)
    height, width = int(size[0]), int(size[1])
    out = _image.resize(aspect_crop(batch, height, width), [height, width], method=interpolation)
    out = _unbatched(out, single)
    return out.numpy() if isinstance(x, np.ndarray) else out


class RandomCrop(_RandomLayer):
    """Crops a random ``height`` x ``width`` window in training (follows
    `tf.keras.layers.RandomCrop`, whose window is drawn when the input is larger than the
    target in both dimensions). Otherwise (at inference, or an input not larger) the input is
    `smart_resize`d to the target: its largest centred window of the target's aspect ratio,
    resized, as Keras's documentation says. (Keras 3.15 returns the input unchanged at
    inference, contrary to its documentation.)

    Raises:
        ValueError: non-positive sizes.
    """

    def __init__(self, height, width, seed=None, **kwargs):
        if int(height) < 1 or int(width) < 1:
            raise ValueError(
                f"RandomCrop: height and width must be >= 1. Received: {height}, {width}"
            )
        super().__init__(seed, **kwargs)
        self.height, self.width = int(height), int(width)

    def call(self, inputs, training=True):
        x, single = _batched(inputs)
        h, w = x.shape[1], x.shape[2]
        if not (training and h > self.height and w > self.width):
            return smart_resize(inputs, (self.height, self.width))
        from ...ops.indexing import gather

        # the window's rows and columns, drawn in a stateful step: a graph function draws a
        # new window on every call
        window = draw_params(self, "_window", (int(h), int(w)), x.dtype.name, x._device)
        x = gather(gather(x, window["rows"], axis=1), window["cols"], axis=2)
        return _unbatched(cast(x, self.compute_dtype), single)  # Keras 3 casts when cropping

    def _window(self, h, w):  # Keras's draws: float32 uniforms truncated
        top = int(self._uniform([], 0.0, float(h - self.height + 1)))
        left = int(self._uniform([], 0.0, float(w - self.width + 1)))
        return {"rows": top + np.arange(self.height), "cols": left + np.arange(self.width)}

    def compute_output_shape(self, input_shape):
        return (*tuple(input_shape)[:-3], self.height, self.width, input_shape[-1])

    def get_config(self) -> dict:
        return {**super().get_config(), "height": self.height, "width": self.width}


# The interpolations Keras's TensorFlow backend passes to `tf.image.resize` (its
# RESIZE_INTERPOLATIONS), in its order, for its error message.
RESIZE_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")


def check_resize_interpolation(interpolation) -> None:
    """Raises Keras's ValueError for an ``interpolation`` its resize does not take."""
    if interpolation not in RESIZE_INTERPOLATIONS:
        raise ValueError(
            "Invalid value for argument `interpolation`. Expected of one "
            f"{RESIZE_INTERPOLATIONS}. Received: interpolation={interpolation}"
        )


class Resizing(Layer):
    """Resizes images to ``height`` x ``width`` (follows `tf.keras.layers.Resizing`).

    Args:
        interpolation: Keras's names for `ek.image.resize`'s methods: ``"bilinear"``
            (default), ``"nearest"``, ``"bicubic"``, ``"area"``, ``"lanczos3"``,
            ``"lanczos5"`` (the TensorFlow backend's list); integer images come back rounded
            and saturate-cast to their dtype, as Keras 3's. crop_to_aspect_ratio: crop the
            largest centered window of the target aspect ratio first. antialias: passed to
            `ek.image.resize` (a low-pass filter when downsampling; default False).

    Raises:
        ValueError: non-positive sizes, or an ``interpolation`` outside that list (Keras's
            message). NotImplementedError: ``pad_to_aspect_ratio``.

    >>> layer = ek.keras.layers.Resizing(1, 2, interpolation="area")
    >>> layer(ek.reshape(ek.range(8.0), [2, 4, 1]))[..., 0].numpy()
    array([[2.5, 4.5]], dtype=float32)
    """

    def __init__(
        self,
        height,
        width,
        interpolation="bilinear",
        crop_to_aspect_ratio=False,
        pad_to_aspect_ratio=False,
        fill_mode="constant",
        fill_value=0.0,
        antialias=False,
        **kwargs,
    ):
        if int(height) < 1 or int(width) < 1:
            raise ValueError(
                f"Resizing: height and width must be >= 1. Received: {height}, {width}"
            )
        if pad_to_aspect_ratio:
            raise NotImplementedError("Resizing: pad_to_aspect_ratio is not supported.")
        check_resize_interpolation(interpolation)
        channels_last_only("Resizing", kwargs)
        super().__init__(**kwargs)
        self.height, self.width = int(height), int(width)
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)
        self.antialias = bool(antialias)

    def call(self, inputs):
        x, single = _batched(inputs)
        if self.crop_to_aspect_ratio:
            x = aspect_crop(x, self.height, self.width)
        out = _image.resize(
            x, [self.height, self.width], method=self.interpolation, antialias=self.antialias
        )
        if out.dtype != x.dtype and x.dtype.is_integer:  # Keras 3 rounds back to int images
            out = saturate_cast(elementwise_round(out), x.dtype)
        return _unbatched(out, single)

    def compute_output_shape(self, input_shape):
        return (*tuple(input_shape)[:-3], self.height, self.width, input_shape[-1])

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "height": self.height,
            "width": self.width,
            "interpolation": self.interpolation,
            "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
            "antialias": self.antialias,
        }


class CenterCrop(Layer):
    """Crops the central ``height`` x ``width`` window (follows
    `tf.keras.layers.CenterCrop`); an input smaller than the target in either dimension is
    `smart_resize`d to it instead (its largest centred window of the target's aspect ratio,
    resized), as Keras 3 does. Inputs are cast to the layer's compute dtype (float32 by
    default, also for a ``uint8`` image), as Keras 3's.

    >>> x = ek.constant(np.arange(16.0, dtype=np.float32).reshape(4, 4, 1))
    >>> ek.keras.layers.CenterCrop(2, 2)(x)[..., 0].numpy()
    array([[ 5.,  6.],
           [ 9., 10.]], dtype=float32)
    """

    def __init__(self, height, width, **kwargs):
        if int(height) < 1 or int(width) < 1:
            raise ValueError(
                f"CenterCrop: height and width must be >= 1. Received: {height}, {width}"
            )
        channels_last_only("CenterCrop", kwargs)
        super().__init__(**kwargs)
        self.height, self.width = int(height), int(width)

    def call(self, inputs):
        x, single = _batched(cast(to_tensor(inputs), self.compute_dtype))  # as Keras 3 casts
        h, w = x.shape[1], x.shape[2]
        if h < self.height or w < self.width:
            return smart_resize(inputs, (self.height, self.width))
        return _unbatched(_center_crop(x, self.height, self.width), single)

    def compute_output_shape(self, input_shape):
        return (*tuple(input_shape)[:-3], self.height, self.width, input_shape[-1])

    def get_config(self) -> dict:
        return {**super().get_config(), "height": self.height, "width": self.width}
