"""`ek.image` / `ek.io` codecs (follow `tf.io.decode_png`, `decode_jpeg`, `decode_image`,
`encode_png`, `encode_jpeg`) through Pillow: string scalars in, uint8 (or uint16 PNG) images
out, and back. Decoding and encoding have no gradient, as in TensorFlow."""

from __future__ import annotations

import io

import numpy as np

from ..core import dtypes
from ..core.dispatch import Primitive, dispatch
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, to_tensor
from ._core import tensor

__all__ = ["decode_image", "decode_jpeg", "decode_png", "encode_jpeg", "encode_png"]

_OBJ = np.dtype(object)
_PNG = b"\x89PNG\r\n\x1a\n"
_JPEG = b"\xff\xd8\xff"
_GIF = (b"GIF87a", b"GIF89a")
_BMP = b"BM"


def _contents(contents, op: str) -> bytes:
    t = contents if isinstance(contents, Tensor) else to_tensor(contents, None, op)
    if t._value.dtype != _OBJ:
        raise TypeError(f"{op}: 'contents' must be a string tensor, got dtype {t.dtype.name}.")
    if t.ndim != 0:
        raise ValueError(f"{op}: 'contents' must be a scalar, got shape {tuple(t.shape)}.")
    return t


def _channels(channels, op: str, allowed) -> int:
    channels = 0 if channels is None else int(channels)
    if channels not in allowed:
        raise ValueError(f"{op}: 'channels' must be one of {list(allowed)}, got {channels}.")
    return channels


def _open(data: bytes, op: str, gray: bool = False, ratio: int = 1):
    from PIL import Image, UnidentifiedImageError

    try:
        image = Image.open(io.BytesIO(data))
        if image.format == "JPEG" and (gray or ratio > 1):
            # libjpeg's own grayscale output (the Y channel) and DCT scaling by 1/ratio
            # (Pillow picks the largest scale dividing the size by at most size // wanted)
            size = (max(image.size[0] // ratio, 1), max(image.size[1] // ratio, 1))
            image.draft("L" if gray else image.mode, size)
        image.load()
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise InvalidArgumentError(None, op, f"{op}: could not decode the image: {exc}") from None
    return image


_MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}


def _frame_array(image, channels: int, uint16: bool) -> np.ndarray:
    """One Pillow frame as ``[H, W, C]`` uint8 (or uint16 for 16-bit grayscale)."""
    if image.mode in ("I;16", "I;16B", "I;16L"):  # 16-bit grayscale
        arr = np.asarray(image, dtype=np.uint16)[..., None]
        if not uint16:
            arr = (arr >> 8).astype(np.uint8)  # the high byte, as libpng's strip_16
        if channels in (0, 1):
            return arr
        arr = np.repeat(arr, 3, axis=-1)
        if channels == 4:
            opaque = np.full((*arr.shape[:2], 1), np.iinfo(arr.dtype).max, arr.dtype)
            arr = np.concatenate([arr, opaque], -1)
        return arr
    if channels == 0:
        if image.mode == "P":
            has_alpha = "transparency" in image.info or image.palette.mode == "RGBA"
            image = image.convert("RGBA" if has_alpha else "RGB")
        elif image.mode in ("1", "I", "F"):
            image = image.convert("L")
        elif image.mode == "CMYK" or image.mode == "YCbCr":
            image = image.convert("RGB")
        elif image.mode not in ("L", "LA", "RGB", "RGBA"):
            image = image.convert("RGBA" if "A" in image.mode else "RGB")
    elif channels == 1 and image.mode not in ("L", "LA"):
        # libpng's RGB-to-gray (as TensorFlow's decoder sets it): (9797 R + 19234 G + 3737 B)
        # >> 15, libpng truncates 0.299 and 0.587 to 15-bit fixed point, alpha dropped
        rgb = np.asarray(image.convert("RGB"), dtype=np.uint32)
        weights = np.asarray([9797, 19234, 3737], np.uint32)
        return ((rgb @ weights) >> 15).astype(np.uint8)[..., None]
    elif image.mode != _MODES[channels]:
        image = image.convert(_MODES[channels])
    arr = np.asarray(image, dtype=np.uint8)
    if arr.ndim == 2:
        arr = arr[..., None]
    if uint16:
        arr = arr.astype(np.uint16) * np.uint16(257)
    return arr


def _decode_fwd(xp, contents, op, channels, uint16, animated, ratio=1):
    image = _open(np.asarray(contents).item(), op, gray=channels == 1, ratio=ratio)
    if animated:
        frames = []
        for index in range(getattr(image, "n_frames", 1)):
            image.seek(index)
            frames.append(_frame_array(image.convert("RGB"), channels or 3, False))
        return xp.asarray(np.stack(frames))
    return xp.asarray(_frame_array(image, channels, uint16))


_decode = Primitive("DecodeImage", _decode_fwd)  # string input: nothing to differentiate


def _png_bit_depth(data: bytes) -> int:
    return data[24] if len(data) > 24 and data.startswith(_PNG) else 8


def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None) -> Tensor:
    """Decodes a PNG string scalar to ``[height, width, channels]`` (follows
    `tf.io.decode_png`).

    Args:
        channels: 0 keeps the file's channels (palette images become RGB or RGBA), 1
            grayscale, 3 RGB, 4 RGBA.
        dtype: uint8, or uint16 (8-bit files are scaled by 257; 16-bit grayscale files keep
            their values).

    Raises:
        ValueError: another ``channels`` or ``dtype``, or a non-scalar ``contents``.
        NotImplementedError: ``dtype=uint16`` for a 16-bit colour PNG (Pillow reads those as
            8-bit).
        InvalidArgumentError: the bytes are not an image.
    """
    op = "decode_png"
    contents = _contents(contents, op)
    channels = _channels(channels, op, (0, 1, 3, 4))
    dt = dtypes.as_dtype(dtype)
    if dt not in (dtypes.uint8, dtypes.uint16):
        raise ValueError(f"{op}: 'dtype' must be uint8 or uint16, got {dt.name}.")
    uint16 = dt == dtypes.uint16
    data = np.asarray(contents._value).item()
    if uint16 and _png_bit_depth(data) == 16 and data[25] not in (0,):
        raise NotImplementedError(
            f"{op}: dtype=uint16 for a 16-bit colour PNG is not supported (Pillow decodes it "
            "to 8 bits); 16-bit grayscale is."
        )
    params = {"op": op, "channels": channels, "uint16": uint16, "animated": False}
    return dispatch(_decode, (contents,), params)


def decode_jpeg(
    contents,
    channels=0,
    ratio=1,
    fancy_upscaling=True,
    try_recover_truncated=False,
    acceptable_fraction=1,
    dct_method="",
    name=None,
) -> Tensor:
    """Decodes a JPEG string scalar to uint8 ``[height, width, channels]`` (follows
    `tf.io.decode_jpeg`).

    Args:
        channels: 0 keeps the file's channels, 1 grayscale, 3 RGB.
        ratio: 1, 2, 4 or 8: libjpeg's downscaling while decoding (``ceil(size / ratio)``).
        dct_method: a hint, as in TensorFlow. Pillow's libjpeg always uses the accurate integer
            DCT, so every value decodes as TensorFlow's ``"INTEGER_ACCURATE"``; TensorFlow's
            default (``""``, its fast DCT) can differ by a few levels per pixel.

    Raises:
        ValueError: another ``channels``, ``ratio`` or ``dct_method``.
        NotImplementedError: ``fancy_upscaling=False``,
            ``try_recover_truncated=True`` or ``acceptable_fraction`` other than 1.
        InvalidArgumentError: the bytes are not an image.
    """
    op = "decode_jpeg"
    contents = _contents(contents, op)
    channels = _channels(channels, op, (0, 1, 3))
    for arg, value, default in (
        ("fancy_upscaling", fancy_upscaling, True),
        ("try_recover_truncated", try_recover_truncated, False),
        ("acceptable_fraction", acceptable_fraction, 1),
    ):
        if value != default:
            raise NotImplementedError(f"{op}: {arg}={value!r} is not supported.")
    if dct_method not in ("", "INTEGER_ACCURATE", "INTEGER_FAST"):
        raise ValueError(
            f"{op}: 'dct_method' must be '', 'INTEGER_FAST' or 'INTEGER_ACCURATE', got "
            f"{dct_method!r}."
        )
    ratio = int(ratio)
    if ratio not in (1, 2, 4, 8):
        raise ValueError(f"{op}: 'ratio' must be 1, 2, 4 or 8, got {ratio}.")
    params = {"op": op, "channels": channels, "uint16": False, "animated": False, "ratio": ratio}
    return dispatch(_decode, (contents,), params)


def decode_image(
    contents, channels=None, dtype=dtypes.uint8, name=None, expand_animations=True
) -> Tensor:
    """Decodes a PNG, JPEG, GIF or BMP string scalar (follows `tf.io.decode_image`).

    Returns:
        ``[height, width, channels]``; an animated GIF with ``expand_animations=True`` gives
        ``[frames, height, width, 3]`` (without, its first frame). A floating ``dtype``
        rescales with `convert_image_dtype` (to ``[0, 1]``).

    Raises:
        ValueError: ``channels`` not in None/0/1/3/4, or a dtype other than uint8, uint16 or
            floating.
        InvalidArgumentError: unknown format or undecodable bytes.
    """
    from .image import convert_image_dtype

    op = "decode_image"
    contents = _contents(contents, op)
    channels = _channels(channels, op, (0, 1, 3, 4))
    dt = dtypes.as_dtype(dtype)
    if dt not in (dtypes.uint8, dtypes.uint16) and not dt.is_floating:
        raise ValueError(f"{op}: 'dtype' must be uint8, uint16 or floating, got {dt.name}.")
    data = np.asarray(contents._value).item()
    if data.startswith(_PNG):
        out = decode_png(contents, channels, dtypes.uint16 if dt == dtypes.uint16 else dtypes.uint8)
    elif data.startswith(_JPEG) or data.startswith(_BMP) or data.startswith(_GIF):
        if data.startswith(_JPEG) and channels == 4:
            raise InvalidArgumentError(None, op, f"{op}: channels=4 is not valid for JPEG.")
        gif = data.startswith(_GIF)
        params = {"op": op, "channels": channels, "uint16": False, "animated": gif}
        out = dispatch(_decode, (contents,), params)
        if gif and not expand_animations:
            out = out[0]
        if dt == dtypes.uint16:
            out = convert_image_dtype(out, dtypes.uint16)
    else:
        raise InvalidArgumentError(
            None, op, f"{op}: Unknown image file format. One of JPEG, PNG, GIF, BMP required."
        )
    return out if dt in (dtypes.uint8, dtypes.uint16) else convert_image_dtype(out, dt)


def _image_hwc(image, op: str, kinds) -> np.ndarray:
    image = tensor(image, op)
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
    return dispatch(_encode_png, (tensor(arr, op),), {"compression": compression})


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
    return dispatch(_encode_jpeg, (tensor(arr, op),), params)
