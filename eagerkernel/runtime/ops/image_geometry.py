"""`ek.image` geometry (follows `tf.image`): rotations, transposes, crops, pads, random crops
and flips, patch extraction and ``crop_and_resize``.

Every function is built from differentiable ops (slicing, gather, reverse, pad, arithmetic), so
gradients flow to the image as in TensorFlow. Images are ``[height, width, channels]`` or
``[batch, height, width, channels]``; sizes and offsets are Python integers or integer scalar
tensors.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.dispatch import Primitive, dispatch, stateful
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ._core import tensor
from .image import flip_left_right, flip_up_down, image_arg, resize
from .image_nms import greedy_nms, scalar_float

__all__ = [
    "central_crop",
    "crop_and_resize",
    "crop_to_bounding_box",
    "draw_bounding_boxes",
    "extract_patches",
    "non_max_suppression",
    "non_max_suppression_with_scores",
    "pad_to_bounding_box",
    "random_crop",
    "random_flip_up_down",
    "resize_with_crop_or_pad",
    "resize_with_pad",
    "rot90",
    "stateless_random_crop",
    "stateless_random_flip_left_right",
    "stateless_random_flip_up_down",
    "transpose",
]


def _int(value, op: str, name: str) -> int:
    """A static integer argument (a Python int or an integer scalar tensor)."""
    arr = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
    if arr.shape != () or arr.dtype.kind not in "iu":
        raise TypeError(f"{op}: '{name}' must be an integer scalar, got {value!r}.")
    return int(arr)


def _int_list(value, op: str, name: str, length=None) -> list[int]:
    arr = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
    if arr.ndim != 1 or arr.dtype.kind not in "iu" or (length and arr.shape[0] != length):
        want = f"{length} integers" if length else "a 1-D list of integers"
        raise ValueError(f"{op}: '{name}' must be {want}, got {value!r}.")
    return [int(v) for v in arr]


def _hw_axes(image: Tensor) -> tuple[int, int]:
    return image.ndim - 3, image.ndim - 2


def rot90(image, k=1, name=None) -> Tensor:
    """Rotates images counter-clockwise by ``k`` times 90 degrees (follows `tf.image.rot90`).

    Args:
        image: ``[H, W, C]`` or ``[B, H, W, C]``.
        k: an integer (any sign; taken modulo 4).

    Returns:
        ``[W, H, C]`` (or batched) for odd ``k``, the input's shape for even ``k``.

    Raises:
        ValueError: rank other than 3 or 4.
        TypeError: ``k`` is not an integer.

    >>> x = ek.reshape(ek.range(4), [2, 2, 1])
    >>> ek.image.rot90(x)[..., 0].numpy()
    array([[1, 3],
           [0, 2]], dtype=int32)
    """
    image = image_arg(image, "rot90")
    k = _int(k, "rot90", "k") % 4
    if k == 0:
        return image
    if k == 2:
        return flip_left_right(flip_up_down(image))
    if k == 1:
        return transpose(flip_left_right(image))
    return flip_left_right(transpose(image))


def transpose(image, name=None) -> Tensor:
    """Swaps the height and width axes (follows `tf.image.transpose`).

    Raises:
        ValueError: rank other than 3 or 4.

    >>> ek.image.transpose(ek.zeros([2, 5, 3])).shape
    TensorShape([5, 2, 3])
    """
    from .array_ops import transpose as _transpose

    image = image_arg(image, "transpose")
    perm = [0, 2, 1, 3] if image.ndim == 4 else [1, 0, 2]
    return _transpose(image, perm)


def central_crop(image, central_fraction) -> Tensor:
    """Crops the central region keeping ``central_fraction`` of each side (follows
    `tf.image.central_crop`): the crop starts at ``int((size - size * fraction) / 2)`` and keeps
    ``size - 2 * start`` pixels.

    Raises:
        ValueError: ``central_fraction`` outside ``(0, 1]``, or rank other than 3 or 4.

    >>> ek.image.central_crop(ek.zeros([10, 8, 3]), 0.5).shape
    TensorShape([6, 4, 3])
    """
    image = image_arg(image, "central_crop")
    fraction = float(central_fraction)
    if fraction <= 0.0 or fraction > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if fraction == 1.0:
        return image
    h_axis, w_axis = _hw_axes(image)
    height, width = image.shape[h_axis], image.shape[w_axis]
    top = int((height - height * fraction) / 2)
    left = int((width - width * fraction) / 2)
    return _crop(image, top, left, height - 2 * top, width - 2 * left)


def _crop(image: Tensor, top: int, left: int, height: int, width: int) -> Tensor:
    if image.ndim == 4:
        return image[:, top : top + height, left : left + width, :]
    return image[top : top + height, left : left + width, :]


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Crops ``[target_height, target_width]`` starting at ``(offset_height, offset_width)``
    (follows `tf.image.crop_to_bounding_box`).

    Raises:
        ValueError: rank other than 3 or 4, a negative offset, a non-positive target, or a box
            reaching past the image (TensorFlow's messages).

    >>> x = ek.reshape(ek.range(16), [4, 4, 1])
    >>> ek.image.crop_to_bounding_box(x, 1, 2, 2, 2)[..., 0].numpy()
    array([[ 6,  7],
           [10, 11]], dtype=int32)
    """
    op = "crop_to_bounding_box"
    image = image_arg(image, op)
    top, left = _int(offset_height, op, "offset_height"), _int(offset_width, op, "offset_width")
    height, width = _int(target_height, op, "target_height"), _int(target_width, op, "target_width")
    h_axis, w_axis = _hw_axes(image)
    if left < 0:
        raise ValueError("offset_width must be >= 0.")
    if top < 0:
        raise ValueError("offset_height must be >= 0.")
    if width <= 0:
        raise ValueError("target_width must be > 0.")
    if height <= 0:
        raise ValueError("target_height must be > 0.")
    if image.shape[w_axis] < width + left:
        raise ValueError("width must be >= target + offset.")
    if image.shape[h_axis] < height + top:
        raise ValueError("height must be >= target + offset.")
    return _crop(image, top, left, height, width)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Pads with zeros to ``[target_height, target_width]``, placing the image at
    ``(offset_height, offset_width)`` (follows `tf.image.pad_to_bounding_box`).

    Raises:
        ValueError: rank other than 3 or 4, a negative offset, or a target smaller than image
            plus offset (TensorFlow's messages).

    >>> ek.image.pad_to_bounding_box(ek.ones([1, 2, 1]), 1, 0, 3, 3)[..., 0].numpy()
    array([[0., 0., 0.],
           [1., 1., 0.],
           [0., 0., 0.]], dtype=float32)
    """
    from .array_ops import pad

    op = "pad_to_bounding_box"
    image = image_arg(image, op)
    top, left = _int(offset_height, op, "offset_height"), _int(offset_width, op, "offset_width")
    height, width = _int(target_height, op, "target_height"), _int(target_width, op, "target_width")
    h_axis, w_axis = _hw_axes(image)
    bottom = height - top - image.shape[h_axis]
    right = width - left - image.shape[w_axis]
    if top < 0:
        raise ValueError("offset_height must be >= 0")
    if left < 0:
        raise ValueError("offset_width must be >= 0")
    if right < 0:
        raise ValueError("width must be <= target - offset")
    if bottom < 0:
        raise ValueError("height must be <= target - offset")
    paddings = [[top, bottom], [left, right], [0, 0]]
    if image.ndim == 4:
        paddings = [[0, 0], *paddings]
    return pad(image, paddings)


def resize_with_crop_or_pad(image, target_height, target_width) -> Tensor:
    """Crops (centrally) or pads (evenly, with zeros) each side to the target size (follows
    `tf.image.resize_with_crop_or_pad`).

    Raises:
        ValueError: rank other than 3 or 4, or a non-positive target.

    >>> x = ek.reshape(ek.range(1, 10), [3, 3, 1])
    >>> ek.image.resize_with_crop_or_pad(x, 1, 5)[..., 0].numpy()
    array([[0, 4, 5, 6, 0]], dtype=int32)
    """
    op = "resize_with_crop_or_pad"
    image = image_arg(image, op)
    height, width = _int(target_height, op, "target_height"), _int(target_width, op, "target_width")
    if width <= 0:
        raise ValueError("target_width must be > 0.")
    if height <= 0:
        raise ValueError("target_height must be > 0.")
    h_axis, w_axis = _hw_axes(image)
    in_h, in_w = image.shape[h_axis], image.shape[w_axis]
    dw, dh = width - in_w, height - in_h
    cropped = _crop(image, max(-dh // 2, 0), max(-dw // 2, 0), min(height, in_h), min(width, in_w))
    return pad_to_bounding_box(cropped, max(dh // 2, 0), max(dw // 2, 0), height, width)


def resize_with_pad(
    image, target_height, target_width, method="bilinear", antialias=False
) -> Tensor:
    """Resizes keeping the aspect ratio so the image fits, then pads with zeros to the target
    size, centred (follows `tf.image.resize_with_pad`). ``method`` and ``antialias`` are
    `resize`'s (every `ResizeMethod`), and so is the result's dtype (float32 for every method
    but nearest).

    Raises:
        ValueError: rank other than 3 or 4, a non-positive target, or an unknown method.

    >>> ek.image.resize_with_pad(ek.ones([2, 4, 1]), 4, 4)[..., 0].numpy()
    array([[0., 0., 0., 0.],
           [1., 1., 1., 1.],
           [1., 1., 1., 1.],
           [0., 0., 0., 0.]], dtype=float32)
    """
    op = "resize_with_pad"
    image = image_arg(image, op)
    height, width = _int(target_height, op, "target_height"), _int(target_width, op, "target_width")
    if width <= 0:
        raise ValueError("target_width must be > 0.")
    if height <= 0:
        raise ValueError("target_height must be > 0.")
    h_axis, w_axis = _hw_axes(image)
    f32 = np.float32
    in_h, in_w = f32(image.shape[h_axis]), f32(image.shape[w_axis])
    ratio = max(in_w / f32(width), in_h / f32(height))
    new_h, new_w = in_h / ratio, in_w / ratio
    top = max(0, int(np.floor((f32(height) - new_h) / f32(2))))
    left = max(0, int(np.floor((f32(width) - new_w) / f32(2))))
    resized = resize(
        image, [int(np.floor(new_h)), int(np.floor(new_w))], method, antialias=antialias
    )
    return pad_to_bounding_box(resized, top, left, height, width)


def _random_crop(value, size, offsets_fn, op: str) -> Tensor:
    value = tensor(value, op)
    size = _int_list(size, op, "size")
    if len(size) != value.ndim:
        raise ValueError(
            f"{op}: 'size' must have one entry per dimension of 'value' ({value.ndim}), got {size}."
        )
    shape = list(value.shape)
    if any(s > d or s < 0 for s, d in zip(size, shape)):
        from ..core.errors import InvalidArgumentError

        raise InvalidArgumentError(
            None, op, f"Need value.shape >= size, got shape {shape} and size {size}"
        )
    limits = np.asarray([d - s + 1 for s, d in zip(size, shape)], np.int64)
    offsets = np.asarray(offsets_fn(len(shape)).numpy(), np.int64) % limits
    key = tuple(slice(int(o), int(o) + s) for o, s in zip(offsets, size))
    return value[key]


@stateful  # a fresh draw on every call of a graph function
def random_crop(value, size, seed=None, name=None) -> Tensor:
    """Crops a random ``size`` slice of ``value`` (any rank; follows `tf.image.random_crop`):
    each offset is uniform over the positions where the slice fits. Seeded through
    `ek.random` (global and op seed, as `ek.random.uniform`).

    Raises:
        ValueError: ``size`` with a length other than ``value``'s rank.
        InvalidArgumentError: ``size`` larger than ``value`` in some dimension.

    >>> ek.image.random_crop(ek.zeros([5, 5, 3]), [2, 3, 3], seed=1).shape
    TensorShape([2, 3, 3])
    """
    from .. import random

    return _random_crop(
        value,
        size,
        lambda n: random.uniform([n], 0, np.iinfo(np.int32).max, dtypes.int32, seed=seed),
        "random_crop",
    )


def stateless_random_crop(value, size, seed, name=None) -> Tensor:
    """`random_crop` with offsets determined by ``seed`` (shape ``[2]`` integers; follows
    `tf.image.stateless_random_crop`): the same seed gives the same crop.

    Raises:
        as `random_crop`; a malformed ``seed`` raises as `ek.random.stateless_uniform`.
    """
    from ..random_generator import stateless_uniform

    return _random_crop(
        value,
        size,
        lambda n: stateless_uniform([n], seed, 0, np.iinfo(np.int32).max, dtypes.int32),
        "stateless_random_crop",
    )


def _random_flip(image, flip_fn, uniform_fn, op: str) -> Tensor:
    """TensorFlow's rule: one image flips when its draw is below 0.5; a batch draws one value
    per image and flips those whose draw rounds to 1 (above 0.5)."""
    from .array_ops import reshape
    from .elementwise import greater, less, where

    image = image_arg(image, op)
    if image.ndim == 3:
        return where(less(uniform_fn([]), 0.5), flip_fn(image), image)
    n = image.shape[0]
    flip = reshape(greater(uniform_fn([n]), 0.5), [n, 1, 1, 1])
    return where(flip, flip_fn(image), image)


@stateful  # a fresh draw on every call of a graph function
def random_flip_up_down(image, seed=None) -> Tensor:
    """Flips each image upside down with probability 1/2 (follows
    `tf.image.random_flip_up_down`); a batch ``[B, H, W, C]`` draws once per image.
    Seeded through `ek.random` (global and op seed).

    Raises:
        ValueError: rank other than 3 or 4.
    """
    from .. import random

    return _random_flip(
        image,
        flip_up_down,
        lambda shape: random.uniform(shape, 0.0, 1.0, seed=seed),
        "random_flip_up_down",
    )


def stateless_random_flip_left_right(image, seed) -> Tensor:
    """Flips each image left to right with probability 1/2, determined by ``seed`` (shape
    ``[2]`` integers; follows `tf.image.stateless_random_flip_left_right`).

    Raises:
        ValueError: rank other than 3 or 4.
    """
    from ..random_generator import stateless_uniform

    return _random_flip(
        image,
        flip_left_right,
        lambda shape: stateless_uniform(shape, seed),
        "stateless_random_flip_left_right",
    )


def stateless_random_flip_up_down(image, seed) -> Tensor:
    """Flips each image upside down with probability 1/2, determined by ``seed`` (shape
    ``[2]`` integers; follows `tf.image.stateless_random_flip_up_down`).

    Raises:
        ValueError: rank other than 3 or 4.
    """
    from ..random_generator import stateless_uniform

    return _random_flip(
        image,
        flip_up_down,
        lambda shape: stateless_uniform(shape, seed),
        "stateless_random_flip_up_down",
    )


def extract_patches(images, sizes, strides, rates, padding, name=None) -> Tensor:
    """Gathers ``[ksize_rows, ksize_cols]`` patches into the depth axis (follows
    `tf.image.extract_patches`).

    Args:
        images: ``[batch, in_rows, in_cols, depth]``.
        sizes, strides, rates: 4 integers each, ``[1, rows, cols, 1]``.
        padding: ``"VALID"`` or ``"SAME"`` (zero padding, TensorFlow's split of the total).

    Returns:
        ``[batch, out_rows, out_cols, ksize_rows * ksize_cols * depth]``, each patch flattened
        in (row, col, depth) order.

    Raises:
        ValueError: rank other than 4, malformed ``sizes``/``strides``/``rates`` (the batch
            and depth entries must be 1), or an unknown padding.
        InvalidArgumentError: with ``"VALID"``, a patch so much larger than the image that
            TensorFlow's output size is negative (a slightly larger one gives an empty output).

    >>> x = ek.reshape(ek.range(16), [1, 4, 4, 1])
    >>> p = ek.image.extract_patches(x, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID")
    >>> p[0, 0].numpy()
    array([[0, 1, 4, 5],
           [2, 3, 6, 7]], dtype=int32)
    """
    from .array_ops import pad, reshape, stack

    op = "extract_patches"
    images = image_arg(images, op, ranks=(4,), name="images")
    args = {}
    for key, value in (("sizes", sizes), ("strides", strides), ("rates", rates)):
        vals = _int_list(value, op, key, 4)
        if vals[0] != 1 or vals[3] != 1 or min(vals) < 1:
            raise ValueError(
                f"{op}: '{key}' must be [1, rows, cols, 1] with positive entries, got {vals}."
            )
        args[key] = vals[1:3]
    padding = str(padding).upper()
    if padding not in ("VALID", "SAME"):
        raise ValueError(f"{op}: 'padding' must be 'VALID' or 'SAME', got {padding!r}.")
    (kh, kw), (sh, sw), (rh, rw) = args["sizes"], args["strides"], args["rates"]
    _, in_h, in_w, depth = images.shape
    eff_h, eff_w = kh + (kh - 1) * (rh - 1), kw + (kw - 1) * (rw - 1)
    if padding == "VALID":
        for size, eff, st in ((in_h, eff_h, sh), (in_w, eff_w, sw)):
            if size - eff <= -2 * st:  # TensorFlow's (size - eff + st) / st, truncated, < 0
                raise InvalidArgumentError(
                    None,
                    op,
                    f"{op}: computed output size would be negative: {-((eff - size - st) // st)} "
                    f"[input_size: {size}, effective_filter_size: {eff}, stride: {st}].",
                )
        out_h, out_w = max((in_h - eff_h) // sh + 1, 0), max((in_w - eff_w) // sw + 1, 0)
        x = images
    else:
        out_h, out_w = -(-in_h // sh), -(-in_w // sw)
        pad_h = max((out_h - 1) * sh + eff_h - in_h, 0)
        pad_w = max((out_w - 1) * sw + eff_w - in_w, 0)
        x = pad(
            images,
            [[0, 0], [pad_h // 2, pad_h - pad_h // 2], [pad_w // 2, pad_w - pad_w // 2], [0, 0]],
        )
    batch = images.shape[0]
    if out_h == 0 or out_w == 0:
        return reshape(images[:, :0, :0, :], [batch, out_h, out_w, kh * kw * depth])
    taps = []
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * rh, j * rw
            taps.append(
                x[:, r0 : r0 + (out_h - 1) * sh + 1 : sh, c0 : c0 + (out_w - 1) * sw + 1 : sw, :]
            )
    return reshape(stack(taps, axis=3), [batch, out_h, out_w, kh * kw * depth])


def crop_and_resize(
    image,
    boxes,
    box_indices,
    crop_size,
    method="bilinear",
    extrapolation_value=0.0,
    name=None,
) -> Tensor:
    """Crops boxes out of a batch of images and resizes each to ``crop_size`` (follows
    `tf.image.crop_and_resize`).

    Args:
        image: ``[batch, height, width, depth]``, any real dtype.
        boxes: ``[num_boxes, 4]`` float, normalized ``[y1, x1, y2, x2]`` (``y * (height - 1)``
            is the pixel row; ``y1 > y2`` flips the crop; coordinates outside ``[0, 1]``
            sample ``extrapolation_value``).
        box_indices: ``[num_boxes]`` int, the image of each box.
        crop_size: ``[crop_height, crop_width]`` positive ints.
        method: ``"bilinear"`` or ``"nearest"``.

    Returns:
        float32 ``[num_boxes, crop_height, crop_width, depth]``. Gradients flow to ``image``
        and (bilinear) to ``boxes``, as TensorFlow's; extrapolated points pass none.

    Raises:
        ValueError: malformed shapes, a non-positive ``crop_size`` or an unknown method.
        InvalidArgumentError: a box index outside ``[0, batch)``.

    >>> img = ek.reshape(ek.range(9, dtype=ek.float32), [1, 3, 3, 1])
    >>> ek.image.crop_and_resize(img, [[0.0, 0.0, 1.0, 1.0]], [0], [2, 2])[0, ..., 0].numpy()
    array([[0., 2.],
           [6., 8.]], dtype=float32)
    """
    from ..core.errors import InvalidArgumentError
    from .array_ops import reshape
    from .elementwise import cast, where
    from .indexing import gather_nd

    op = "crop_and_resize"
    image = image_arg(image, op, ranks=(4,))
    boxes_np = np.asarray(tensor(boxes, op).numpy(), np.float32)
    idx_np = np.asarray(tensor(box_indices, op).numpy())
    if boxes_np.ndim != 2 or boxes_np.shape[1] != 4:
        raise ValueError(f"{op}: 'boxes' must have shape [num_boxes, 4], got {boxes_np.shape}.")
    if idx_np.shape != (boxes_np.shape[0],) or idx_np.dtype.kind not in "iu":
        raise ValueError(
            f"{op}: 'box_indices' must be [num_boxes] integers, got shape {idx_np.shape}."
        )
    crop_h, crop_w = _int_list(crop_size, op, "crop_size", 2)
    if crop_h <= 0 or crop_w <= 0:
        raise ValueError(f"{op}: 'crop_size' must be positive, got {[crop_h, crop_w]}.")
    method = str(method).lower()
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"{op}: 'method' must be 'bilinear' or 'nearest', got {method!r}.")
    batch, height, width, _depth = image.shape
    if np.any((idx_np < 0) | (idx_np >= batch)):
        raise InvalidArgumentError(None, op, f"box_index has values outside [0, {batch})")
    x = image if image.dtype == dtypes.float32 else cast(image, dtypes.float32)

    boxes_t = tensor(boxes, op)
    if boxes_t.dtype != dtypes.float32:
        boxes_t = cast(boxes_t, dtypes.float32)

    def coords(lo, hi, size, n):
        """Sample positions ``[num_boxes, n]`` as differentiable functions of the boxes."""
        if n > 1:
            steps = tensor(np.arange(n, dtype=np.float32)[None, :], op)
            return lo * float(size - 1) + steps * ((hi - lo) * float(size - 1) / float(n - 1))
        return (lo + hi) * 0.5 * float(size - 1)

    ys_t = coords(boxes_t[:, 0:1], boxes_t[:, 2:3], height, crop_h)
    xs_t = coords(boxes_t[:, 1:2], boxes_t[:, 3:4], width, crop_w)
    ys, xs = np.asarray(ys_t.numpy(), np.float32), np.asarray(xs_t.numpy(), np.float32)
    valid = ((ys >= 0) & (ys <= height - 1))[:, :, None] & ((xs >= 0) & (xs <= width - 1))[:, None]
    nb = boxes_np.shape[0]
    b = np.broadcast_to(idx_np[:, None, None], (nb, crop_h, crop_w))

    def sample(yi, xi):
        yi = np.clip(yi, 0, height - 1).astype(np.int64)
        xi = np.clip(xi, 0, width - 1).astype(np.int64)
        index = np.stack(np.broadcast_arrays(b, yi[:, :, None], xi[:, None, :]), axis=-1)
        return gather_nd(x, index)

    if method == "nearest":
        out = sample(np.floor(ys + 0.5), np.floor(xs + 0.5))  # C's roundf
    else:
        y0, x0 = np.floor(ys), np.floor(xs)
        # the weights stay functions of the boxes, so gradients reach them as in TensorFlow
        wy = reshape(ys_t - tensor(y0, op), [nb, crop_h, 1, 1])
        wx = reshape(xs_t - tensor(x0, op), [nb, 1, crop_w, 1])
        top = sample(y0, x0) + (sample(y0, np.ceil(xs)) - sample(y0, x0)) * wx
        bottom = sample(np.ceil(ys), x0)
        bottom = bottom + (sample(np.ceil(ys), np.ceil(xs)) - bottom) * wx
        out = top + (bottom - top) * wy
    fill = tensor(np.asarray(extrapolation_value, np.float32), op)
    return where(tensor(valid[..., None], op), out, fill)


def _nms_fwd(xp, boxes, scores, max_output_size, iou_threshold, score_threshold):
    return xp.asarray(greedy_nms(boxes, scores, max_output_size, iou_threshold, score_threshold))


# Indices have no gradient (TensorFlow registers none for NonMaxSuppressionV3).
_nms = Primitive("NonMaxSuppressionV3", _nms_fwd)


def non_max_suppression(
    boxes,
    scores,
    max_output_size,
    iou_threshold=0.5,
    score_threshold=float("-inf"),
    name=None,
) -> Tensor:
    """Greedily selects boxes by descending score, dropping any box whose IoU with an already
    selected box exceeds ``iou_threshold`` (follows `tf.image.non_max_suppression`).

    Args:
        boxes: ``[num_boxes, 4]`` float, ``[y1, x1, y2, x2]`` (either corner order).
        scores: ``[num_boxes]`` float.
        max_output_size: at most this many indices are returned.
        iou_threshold: boxes overlapping more than this are suppressed.
        score_threshold: boxes scoring at or below this are never selected.

    Returns:
        int32 ``[M]`` indices into ``boxes``, ``M <= max_output_size``, by descending score
        (ties keep the lower index first).

    Raises:
        ValueError: malformed shapes, a negative ``max_output_size`` or an ``iou_threshold``
            outside ``[0, 1]``.

    >>> boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]]
    >>> ek.image.non_max_suppression(boxes, [0.9, 0.8, 0.7], 3).numpy()
    array([0, 2], dtype=int32)
    """
    op = "non_max_suppression"
    boxes_t = tensor(boxes, op, np.float32)
    scores_t = tensor(scores, op, np.float32)
    if boxes_t.ndim != 2 or boxes_t.shape[1] != 4:
        raise ValueError(
            f"{op}: 'boxes' must have shape [num_boxes, 4], got {tuple(boxes_t.shape)}."
        )
    if tuple(scores_t.shape) != (boxes_t.shape[0],):
        raise ValueError(
            f"{op}: 'scores' must have shape [num_boxes] = [{boxes_t.shape[0]}], got "
            f"{tuple(scores_t.shape)}."
        )
    limit = _int(max_output_size, op, "max_output_size")
    if limit < 0:
        raise ValueError(f"{op}: 'max_output_size' must be non-negative, got {limit}.")
    iou = scalar_float(iou_threshold, op, "iou_threshold")
    if not 0.0 <= iou <= 1.0:
        raise ValueError(f"{op}: 'iou_threshold' must be in [0, 1], got {iou}.")
    floor = scalar_float(score_threshold, op, "score_threshold")
    params = {"max_output_size": limit, "iou_threshold": iou, "score_threshold": floor}
    return dispatch(_nms, (boxes_t, scores_t), params)


def non_max_suppression_with_scores(
    boxes,
    scores,
    max_output_size,
    iou_threshold=0.5,
    score_threshold=float("-inf"),
    soft_nms_sigma=0.0,
    name=None,
) -> tuple[Tensor, Tensor]:
    """`non_max_suppression` that also returns the selected scores (follows
    `tf.image.non_max_suppression_with_scores`).

    Raises:
        as `non_max_suppression`; NotImplementedError for ``soft_nms_sigma`` other than 0
        (Soft-NMS).
    """
    from .indexing import gather

    if float(soft_nms_sigma) != 0.0:
        raise NotImplementedError(
            "non_max_suppression_with_scores: soft_nms_sigma (Soft-NMS) other than 0 is not "
            "supported."
        )
    selected = non_max_suppression(boxes, scores, max_output_size, iou_threshold, score_threshold)
    return selected, gather(tensor(scores, "non_max_suppression_with_scores", np.float32), selected)


def _draw_boxes_fwd(xp, images, boxes, colors):
    canvas = np.array(images, copy=True)
    boxes, colors = np.asarray(boxes), np.asarray(colors)
    _, height, width, depth = canvas.shape
    for b in range(canvas.shape[0]):
        for k in range(boxes.shape[1]):
            color = colors[k % colors.shape[0], :depth]
            # TensorFlow's kernel: corners scaled by (size - 1), truncated toward zero
            top, left, bottom, right = (
                int(np.float32(v) * np.float32(n - 1))
                for v, n in zip(boxes[b, k], (height, width, height, width))
            )
            if top > bottom or left > right:
                continue
            if top >= height or bottom < 0 or left >= width or right < 0:
                continue
            r0, r1 = max(top, 0), min(bottom, height - 1)
            c0, c1 = max(left, 0), min(right, width - 1)
            if top >= 0:
                canvas[b, top, c0 : c1 + 1] = color
            if bottom < height:
                canvas[b, bottom, c0 : c1 + 1] = color
            if left >= 0:
                canvas[b, r0 : r1 + 1, left] = color
            if right < width:
                canvas[b, r0 : r1 + 1, right] = color
    return canvas if xp is np else xp.asarray(canvas)


# No VJP, as TensorFlow registers none: a tape differentiating through it raises LookupError.
_draw_boxes = Primitive("DrawBoundingBoxesV2", _draw_boxes_fwd)


def draw_bounding_boxes(images, boxes, colors, name=None) -> Tensor:
    """Draws the outline of each box, one pixel wide, on a copy of ``images`` (follows
    `tf.image.draw_bounding_boxes`, TensorFlow 2's, with its kernel's pixel rounding).

    Box ``k`` of image ``b`` is ``boxes[b, k] = [y_min, x_min, y_max, x_max]`` in
    ``[0, 1]`` of ``(height - 1)`` and ``(width - 1)`` (truncated to pixels); it is drawn in
    ``colors[k % num_colors]`` (its first ``depth`` channels), later boxes over earlier ones.
    A box whose corners are reversed, or that lies wholly outside the image, is skipped; the
    sides of a box that fall outside the image are not drawn.

    Args:
        images: ``[batch, height, width, depth]``, depth 1 to 4; float16 stays float16, any
            other dtype is cast to float32 (as TensorFlow's result).
        boxes: ``[batch, num_boxes, 4]`` floats.
        colors: ``[num_colors, channels]`` floats, ``channels >= depth``.

    Raises:
        InvalidArgumentError: shapes other than those, or colors with fewer channels than
            the images (TensorFlow's message). Not differentiable (LookupError on a tape).

    >>> img = ek.zeros((1, 3, 4, 1))
    >>> out = ek.image.draw_bounding_boxes(img, [[[0.0, 0.0, 1.0, 1.0]]], [[1.0, 0.0, 0.0, 1.0]])
    >>> out[0, :, :, 0].numpy().astype(int)
    array([[1, 1, 1, 1],
           [1, 0, 0, 1],
           [1, 1, 1, 1]])
    """
    from ..core.errors import InvalidArgumentError
    from .elementwise import cast

    op = "DrawBoundingBoxesV2"
    x = tensor(images, "draw_bounding_boxes")
    if x.dtype != dtypes.float16 and x.dtype != dtypes.float32:
        x = cast(x, dtypes.float32)
    b = tensor(boxes, "draw_bounding_boxes", np.float32)
    c = tensor(colors, "draw_bounding_boxes", np.float32)
    if x.ndim != 4 or not 1 <= x.shape[-1] <= 4:
        raise InvalidArgumentError(
            None,
            op,
            f"draw_bounding_boxes: images must be [batch, height, width, depth] "
            f"with depth 1 to 4, got shape {tuple(x.shape)}.",
        )
    if b.ndim != 3 or b.shape[0] != x.shape[0] or b.shape[2] != 4:
        raise InvalidArgumentError(
            None,
            op,
            f"draw_bounding_boxes: boxes must be [batch, num_boxes, 4] with the "
            f"images' batch {x.shape[0]}, got shape {tuple(b.shape)}.",
        )
    if c.ndim != 2 or c.shape[0] < 1:
        raise InvalidArgumentError(
            None,
            op,
            f"draw_bounding_boxes: colors must be [num_colors, channels], got shape "
            f"{tuple(c.shape)}.",
        )
    if c.shape[1] < x.shape[-1]:
        raise InvalidArgumentError(
            None,
            op,
            f"colors must have equal or more channels than the image provided: {list(c.shape)}",
        )
    if c.dtype != x.dtype:
        c = cast(c, x.dtype)
    return dispatch(_draw_boxes, (x, b, c), {})
