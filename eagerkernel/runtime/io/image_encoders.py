"""Encoding images as PNG / JPEG string scalars (follows `tf.io.encode_png` and
`tf.io.encode_jpeg`; also under `ek.image`) through Pillow. The ops run through `dispatch`
and have no gradient, as in TensorFlow; `decode_png` / `decode_jpeg` (`image_codecs`) read
them back.

>>> data = ek.io.encode_png(np.array([[[0], [255]]], np.uint8))
>>> data.dtype, ek.io.decode_png(data).numpy().ravel()
(ek.string, array([  0, 255], dtype=uint8))
"""

from __future__ import annotations

import io

import numpy as np

from ..core.dispatch import Primitive, dispatch
from ..core.tensor import Tensor, to_tensor

__all__ = ["encode_jpeg", "encode_png"]

_MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}


def _image_hwc(image, op: str, kinds) -> np.ndarray:
    image = to_tensor(image, None, op)
    arr = np.asarray(image.numpy())
    if arr.ndim != 3 or arr.shape[-1] not in (1, 2, 3, 4):
        raise ValueError(
            f"{op}: 'image' must be [height, width, channels] with 1-4 channels, got shape "
            f"{arr.shape}."
        )
    if arr.dtype not in kinds:
        names = " or ".join(np.dtype(k).name for k in kinds)
        raise TypeError(f"{op}: 'image' must be {names}, got {image.dtype.name}.")
    return arr


def _encode_png_fwd(xp, image, compression):
    from PIL import Image

    arr = np.asarray(image)
    if arr.dtype == np.uint16:
        if arr.shape[-1] != 1:
            raise NotImplementedError(
                "encode_png: uint16 images with more than one channel are not supported "
                "(Pillow writes 16-bit grayscale only)."
            )
        pil = Image.fromarray(arr[..., 0].astype("<u2"))  # mode I;16
    else:
        pil = Image.fromarray(arr[..., 0] if arr.shape[-1] == 1 else arr)  # L, LA, RGB, RGBA
    buf = io.BytesIO()
    pil.save(buf, format="PNG", compress_level=6 if compression == -1 else compression)
    return np.asarray(buf.getvalue(), dtype=object)


_encode_png = Primitive("EncodePng", _encode_png_fwd)


def encode_png(image, compression=-1, name=None) -> Tensor:
    """Encodes a uint8 (or single-channel uint16) ``[height, width, channels]`` image as a PNG
    string scalar (follows `tf.io.encode_png`).

    Args:
        compression: zlib level 0-9, or -1 for the default (6).

    Raises:
        ValueError: a shape other than ``[H, W, 1..4]`` or a compression outside -1..9.
        TypeError: a dtype other than uint8/uint16.
    """
    op = "encode_png"
    arr = _image_hwc(image, op, (np.uint8, np.uint16))
    compression = int(compression)
    if not -1 <= compression <= 9:
        raise ValueError(f"{op}: 'compression' must be in -1..9, got {compression}.")
    return dispatch(_encode_png, (to_tensor(arr, None, op),), {"compression": compression})


def _encode_jpeg_fwd(xp, image, quality, progressive, optimize, subsampling, dpi, xmp):
    from PIL import Image

    arr = np.asarray(image)
    pil = Image.fromarray(arr[..., 0] if arr.shape[-1] == 1 else arr)  # L or RGB
    buf = io.BytesIO()
    extra = {"xmp": xmp} if xmp else {}
    pil.save(
        buf,
        format="JPEG",
        quality=quality,
        progressive=progressive,
        optimize=optimize,
        subsampling=subsampling,
        dpi=dpi,
        **extra,
    )
    return np.asarray(buf.getvalue(), dtype=object)


_encode_jpeg = Primitive("EncodeJpeg", _encode_jpeg_fwd)


def encode_jpeg(
    image,
    format="",
    quality=95,
    progressive=False,
    optimize_size=False,
    chroma_downsampling=True,
    density_unit="in",
    x_density=300,
    y_density=300,
    xmp_metadata="",
    name=None,
) -> Tensor:
    """Encodes a uint8 ``[height, width, channels]`` image as a JPEG string scalar (follows
    `tf.io.encode_jpeg`).

    Args:
        format: ``""`` (from the channels: 1 grayscale, 3 RGB), ``"grayscale"`` or ``"rgb"``.
        quality: 0-100.
        chroma_downsampling: 4:2:0 chroma subsampling when True, 4:4:4 when False.
        density_unit, x_density, y_density: the JFIF density; ``density_unit`` ``"in"`` only.
        xmp_metadata: written as an XMP segment when non-empty.

    Raises:
        ValueError: channels other than 1 or 3 (or not matching ``format``), quality outside
            0-100, an unknown ``format``.
        TypeError: a dtype other than uint8.
        NotImplementedError: ``density_unit="cm"``.
    """
    op = "encode_jpeg"
    arr = _image_hwc(image, op, (np.uint8,))
    want = {"": None, "grayscale": 1, "rgb": 3}
    if format not in want:
        raise ValueError(f"{op}: 'format' must be '', 'grayscale' or 'rgb', got {format!r}.")
    channels = arr.shape[-1]
    if channels not in (1, 3) or (want[format] and want[format] != channels):
        raise ValueError(
            f"{op}: image must have 1 or 3 channels (matching format={format!r}), got {channels}."
        )
    quality = int(quality)
    if not 0 <= quality <= 100:
        raise ValueError(f"{op}: 'quality' must be in 0..100, got {quality}.")
    if density_unit != "in":
        raise NotImplementedError(f"{op}: density_unit={density_unit!r} is not supported.")
    params = {
        "quality": quality,
        "progressive": bool(progressive),
        "optimize": bool(optimize_size),
        "subsampling": 2 if chroma_downsampling else 0,
        "dpi": (int(x_density), int(y_density)),
        "xmp": xmp_metadata.encode() if isinstance(xmp_metadata, str) else bytes(xmp_metadata),
    }
    return dispatch(_encode_jpeg, (to_tensor(arr, None, op),), params)
