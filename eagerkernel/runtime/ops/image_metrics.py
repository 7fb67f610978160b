"""`ek.image` measures (follows `tf.image`): total variation, PSNR, SSIM, finite-difference
image gradients and Sobel edges, all built from differentiable ops."""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.tensor import Tensor
from ._core import tensor
from .image import convert_image_dtype, image_arg

__all__ = ["image_gradients", "psnr", "sobel_edges", "ssim", "total_variation"]


def total_variation(images, name=None) -> Tensor:
    """The sum of absolute differences between neighbouring pixels, vertically and
    horizontally (follows `tf.image.total_variation`).

    Returns:
        A scalar for a 3-D image, ``[batch]`` for 4-D images, in the input's dtype.

    Raises:
        ValueError: rank other than 3 or 4.

    >>> ek.image.total_variation([[[1.0], [4.0]], [[2.0], [2.0]]]).numpy()
    np.float32(6.0)
    """
    from .elementwise import abs
    from .reduction import reduce_sum

    images = image_arg(images, "total_variation", name="images")
    if images.ndim == 3:
        dy = images[1:, :, :] - images[:-1, :, :]
        dx = images[:, 1:, :] - images[:, :-1, :]
        axes = None
    else:
        dy = images[:, 1:, :, :] - images[:, :-1, :, :]
        dx = images[:, :, 1:, :] - images[:, :, :-1, :]
        axes = [1, 2, 3]
    return reduce_sum(abs(dy), axis=axes) + reduce_sum(abs(dx), axis=axes)


def _same_shape(a: Tensor, b: Tensor, op: str, same_dtype: bool = True) -> None:
    if tuple(a.shape) != tuple(b.shape) or (same_dtype and a.dtype != b.dtype):
        raise ValueError(
            f"{op}: both images must have the same shape and dtype, got {tuple(a.shape)} "
            f"{a.dtype.name} and {tuple(b.shape)} {b.dtype.name}."
        )
    if a.ndim < 3:
        raise ValueError(
            f"{op}: images must be at least 3-D [..., height, width, channels], got shape "
            f"{tuple(a.shape)}."
        )


def _max_val(max_val, dtype, op: str) -> Tensor:
    """``max_val`` in the images' dtype, then on the float32 scale (TensorFlow's rule: 255 for
    uint8 images becomes 1.0)."""
    from .elementwise import cast

    return convert_image_dtype(cast(tensor(max_val, op), dtype), dtypes.float32)


def psnr(a, b, max_val, name=None) -> Tensor:
    """Peak signal-to-noise ratio ``20 log10(max_val) - 10 log10(mse)`` per image (follows
    `tf.image.psnr`), over the last three axes.

    Args:
        a, b: images ``[..., height, width, channels]`` of the same shape. Their dtypes may
            differ, as in TensorFlow: each goes through `convert_image_dtype` to float32 on
            its own (integers scaled to [0, 1], floats kept), and ``max_val`` is cast to
            ``a``'s dtype first, so a uint8 ``a`` with ``max_val=255`` compares on the [0, 1]
            scale even when ``b`` holds floats in [0, 255].
        max_val: the dynamic range (255 for uint8 images, 1.0 for float images in [0, 1]).

    Returns:
        float32 ``[...]`` (``inf`` for identical images).

    Raises:
        ValueError: different shapes, or rank below 3.

    >>> ek.image.psnr(ek.zeros([2, 2, 1]), ek.fill([2, 2, 1], 0.1), 1.0).numpy().round(4)
    np.float32(20.0)
    """
    from .elementwise import log, squared_difference
    from .reduction import reduce_mean

    a, b = tensor(a, "psnr"), tensor(b, "psnr")
    _same_shape(a, b, "psnr", same_dtype=False)
    max_val = _max_val(max_val, a.dtype, "psnr")
    a, b = convert_image_dtype(a, dtypes.float32), convert_image_dtype(b, dtypes.float32)
    mse = reduce_mean(squared_difference(a, b), axis=[-3, -2, -1])
    return 20.0 * log(max_val) / np.float32(np.log(10.0)) - np.float32(10 / np.log(10)) * log(mse)


def _gaussian_window(size: int, sigma: float) -> np.ndarray:
    """TensorFlow's window (a softmax of the squared distances over 2 sigma^2), float64."""
    coords = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    g = coords**2 * (-0.5 / sigma**2)
    g = (g[None, :] + g[:, None]).ravel()
    g = np.exp(g - g.max())
    return (g / g.sum()).reshape(size, size, 1, 1)


def _filter_per_channel(x: Tensor, window: np.ndarray, op: str) -> Tensor:
    """Correlates every channel of ``[..., H, W, C]`` with ``window`` ([k, k, 1, 1]), VALID."""
    from .array_ops import reshape, transpose
    from .conv import conv2d

    lead = list(x.shape[:-3])
    h, w, c = x.shape[-3:]
    flat = reshape(x, [-1, h, w, c])
    planes = reshape(transpose(flat, [0, 3, 1, 2]), [-1, h, w, 1])
    out = conv2d(planes, tensor(window, op), 1, "VALID")
    oh, ow = out.shape[1], out.shape[2]
    out = transpose(reshape(out, [-1, c, oh, ow]), [0, 2, 3, 1])
    return reshape(out, [*lead, oh, ow, c])


def ssim(
    img1,
    img2,
    max_val,
    filter_size=11,
    filter_sigma=1.5,
    k1=0.01,
    k2=0.03,
    return_index_map=False,
) -> Tensor:
    """Structural similarity with a Gaussian window (follows `tf.image.ssim`): luminance times
    contrast-structure, averaged over the VALID window positions and then over channels.
    The windowed statistics are computed in float64: contrast-structure subtracts nearly
    equal terms (``E[xy] - E[x]E[y]``), and float32 rounding there would move SSIM by 1e-4
    on flat images; the result is float32, as TensorFlow's.

    Args:
        img1, img2: images ``[..., height, width, channels]``, same shape and dtype (integer
            images are converted to float32 in [0, 1], ``max_val`` with them).
        max_val: the dynamic range (255 for uint8, 1.0 for float images in [0, 1]).
        filter_size, filter_sigma: the Gaussian window (11, 1.5).
        k1, k2: TensorFlow's stability constants (0.01, 0.03).
        return_index_map: return the per-position map ``[..., h', w']`` instead of the mean.

    Returns:
        float32 ``[...]`` (one value per image).

    Raises:
        ValueError: different shapes or dtypes, rank below 3.
        InvalidArgumentError: an image smaller than ``filter_size``.

    >>> x = ek.random.uniform([16, 16, 3], seed=1)
    >>> float(ek.image.ssim(x, x, 1.0))
    1.0
    """
    from ..core.errors import InvalidArgumentError
    from .elementwise import cast
    from .reduction import reduce_mean

    op = "ssim"
    img1, img2 = tensor(img1, op), tensor(img2, op)
    _same_shape(img1, img2, op)
    size = int(filter_size)
    if min(img1.shape[-3:-1]) < size:
        raise InvalidArgumentError(
            None,
            op,
            f"ssim: images must be at least filter_size={size} high and wide, got shape "
            f"{tuple(img1.shape)}.",
        )
    max_val = cast(_max_val(max_val, img1.dtype, op), dtypes.float64)
    x = cast(convert_image_dtype(img1, dtypes.float32), dtypes.float64)
    y = cast(convert_image_dtype(img2, dtypes.float32), dtypes.float64)
    window = _gaussian_window(size, float(filter_sigma))
    c1 = (float(k1) * max_val) ** 2
    c2 = (float(k2) * max_val) ** 2
    mean0 = _filter_per_channel(x, window, op)
    mean1 = _filter_per_channel(y, window, op)
    num0 = mean0 * mean1 * 2.0
    den0 = mean0 * mean0 + mean1 * mean1
    luminance = (num0 + c1) / (den0 + c1)
    num1 = _filter_per_channel(x * y, window, op) * 2.0
    den1 = _filter_per_channel(x * x + y * y, window, op)
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    per_position = luminance * cs
    if return_index_map:
        return cast(reduce_mean(per_position, axis=-1), dtypes.float32)
    return cast(reduce_mean(reduce_mean(per_position, axis=[-3, -2]), axis=-1), dtypes.float32)


def image_gradients(image) -> tuple[Tensor, Tensor]:
    """Forward differences ``(dy, dx)`` of ``[batch, height, width, depth]`` images (follows
    `tf.image.image_gradients`): ``dy[i, j] = image[i + 1, j] - image[i, j]``, zero in the last
    row; ``dx`` likewise along the width, zero in the last column.

    Raises:
        ValueError: rank other than 4.

    >>> dy, dx = ek.image.image_gradients(ek.reshape(ek.range(4.0), [1, 2, 2, 1]))
    >>> dy[0, ..., 0].numpy(), dx[0, ..., 0].numpy()
    (array([[2., 2.],
           [0., 0.]], dtype=float32), array([[1., 0.],
           [1., 0.]], dtype=float32))
    """
    from .array_ops import pad

    if tensor(image, "image_gradients").ndim != 4:
        raise ValueError(
            "image_gradients expects a 4D tensor [batch_size, h, w, d], not "
            f"{tuple(tensor(image, 'image_gradients').shape)}."
        )
    image = tensor(image, "image_gradients")
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    return pad(dy, [[0, 0], [0, 1], [0, 0], [0, 0]]), pad(dx, [[0, 0], [0, 0], [0, 1], [0, 0]])


def sobel_edges(image) -> Tensor:
    """Sobel responses ``[batch, h, w, d, 2]`` (``[..., 0]`` vertical ``dy``, ``[..., 1]``
    horizontal ``dx``) with reflect padding (follows `tf.image.sobel_edges`). Integer images
    are cast to float32.

    Raises:
        ValueError: rank other than 4.

    >>> x = ek.reshape(ek.range(9.0), [1, 3, 3, 1])
    >>> ek.image.sobel_edges(x)[0, 1, 1, 0].numpy()
    array([24.,  8.], dtype=float32)
    """
    from .array_ops import pad, stack
    from .elementwise import cast

    op = "sobel_edges"
    image = image_arg(image, op, ranks=(4,))
    if not image.dtype.is_floating:
        image = cast(image, dtypes.float32)
    ky = np.asarray([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], np.float64)
    kx = ky.T
    padded = pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    h, w = image.shape[1], image.shape[2]
    out = []
    for kernel in (ky, kx):
        acc = None
        for i in range(3):
            for j in range(3):
                if kernel[i, j] == 0:
                    continue
                term = padded[:, i : i + h, j : j + w, :] * float(kernel[i, j])
                acc = term if acc is None else acc + term
        out.append(acc)
    return stack(out, axis=-1)
