"""Decoding image files into uint8 / uint16 tensors (follows `tf.io.decode_image`,
`tf.io.decode_png`, `tf.io.decode_jpeg`, `tf.io.decode_gif` and `tf.io.decode_bmp`; also
under `ek.image`).

As in TensorFlow 2, every decoder reads any of the formats it knows (JPEG, PNG, GIF, BMP),
told apart by their first bytes; the name only sets the defaults and the arguments it takes.
Pillow (a dependency of the project) does the decoding; its JPEG decoder is libjpeg, as
TensorFlow's is. The op, ``DecodeImage``, runs through `dispatch` and has no gradient.

>>> import io
>>> from PIL import Image
>>> buf = io.BytesIO()
>>> Image.fromarray(np.array([[0, 128], [255, 7]], np.uint8)).save(buf, "PNG")
>>> img = ek.io.decode_png(buf.getvalue())
>>> img.shape, img.dtype
(TensorShape([2, 2, 1]), ek.uint8)
>>> img.numpy()[..., 0]
array([[  0, 128],
       [255,   7]], dtype=uint8)
"""

from __future__ import annotations

import io

import numpy as np

from ..core import dtypes
from ..core.dispatch import Primitive, dispatch
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, to_tensor

__all__ = ["decode_bmp", "decode_gif", "decode_image", "decode_jpeg", "decode_png"]

_OBJ = np.dtype(object)
_SIGNATURES = (
    (b"\xff\xd8\xff", "JPEG"),
    (b"\x89PNG\r\n\x1a\n", "PNG"),
    (b"GIF8", "GIF"),
    (b"BM", "BMP"),
)


def _format(data: bytes, op: str) -> str:
    for magic, name in _SIGNATURES:
        if data.startswith(magic):
            return name
    raise InvalidArgumentError(
        None,
        op,
        f"{op}: Unknown image file format. One of JPEG, PNG, GIF, BMP required. (The contents "
        f"start with {data[:8]!r}.)",
    )


def _to_array(img, fmt: str, channels: int, uint16: bool) -> np.ndarray:
    """One Pillow frame as ``[h, w, c]`` uint8 / uint16, with TensorFlow's channel rules:
    0 keeps the file's channels (GIF: always RGB; a PNG palette with transparency: RGBA)."""
    mode = img.mode
    if mode in ("I;16", "I;16B", "I;16L", "I"):  # 16-bit (or wider) grayscale PNG
        arr = np.asarray(img).astype(np.uint32)
        if mode == "I":
            arr = np.clip(arr, 0, 65535)
        wide = arr.astype(np.uint16)
        if channels in (0, 1):
            out = wide[..., None]
        else:
            out = np.repeat(wide[..., None], 3, axis=-1)
            if channels == 4:
                out = np.concatenate([out, np.full_like(out[..., :1], 65535)], axis=-1)
        return out if uint16 else (out >> 8).astype(np.uint8)
    if fmt == "GIF":
        target = {0: "RGB", 1: "L", 3: "RGB", 4: "RGBA"}[channels]
    elif channels == 0:
        if mode == "P":
            target = "RGBA" if "transparency" in img.info else "RGB"
        elif mode == "PA":
            target = "RGBA"
        elif mode in ("L", "LA", "RGB", "RGBA"):
            target = mode
        elif mode == "1":
            target = "L"
        else:  # CMYK, YCbCr, ...
            target = "RGB"
    else:
        target = {1: "L", 3: "RGB", 4: "RGBA"}[channels]
    if target == "L" and fmt == "PNG" and mode not in ("L", "LA", "1"):
        # libpng's RGB-to-gray, as TensorFlow's decoder sets it up: 0.299 and 0.587 truncated
        # to 15-bit fixed point, (9797 R + 19234 G + 3737 B) >> 15, alpha dropped
        rgb = np.asarray(img.convert("RGB"), dtype=np.uint32)
        gray = ((rgb @ np.asarray([9797, 19234, 3737], np.uint32)) >> 15)[..., None]
        return gray.astype(np.uint16) * 257 if uint16 else gray.astype(np.uint8)
    if mode != target:
        img = img.convert(target)
    arr = np.asarray(img, dtype=np.uint8)
    if arr.ndim == 2:
        arr = arr[..., None]
    return arr.astype(np.uint16) * 257 if uint16 else arr


def _decode_fwd(xp, contents, *, op, channels, uint16, expand_animations, ratio, allowed):
    from PIL import Image, ImageSequence, UnidentifiedImageError

    data = np.asarray(contents, dtype=_OBJ).item()
    fmt = _format(data, op)
    if allowed and fmt not in allowed:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: Trying to decode {fmt} format using {op}. Use `decode_{fmt.lower()}` or "
            "`decode_image` instead.",
        )
    try:
        img = Image.open(io.BytesIO(data))
        if fmt == "JPEG" and (ratio > 1 or channels == 1):
            # Pillow picks the largest DCT scale whose output is at least this size; one
            # channel is libjpeg's own grayscale output (the luma plane), as TensorFlow's.
            mode = "L" if channels == 1 else img.mode
            img.draft(mode, (max(img.width // ratio, 1), max(img.height // ratio, 1)))
        if fmt == "GIF" and expand_animations:
            frames = [
                _to_array(f.copy(), fmt, channels, uint16) for f in ImageSequence.Iterator(img)
            ]
            return xp.asarray(np.stack(frames))
        img.load()
        return xp.asarray(_to_array(img, fmt, channels, uint16))
    except (OSError, SyntaxError, ValueError, UnidentifiedImageError) as exc:
        raise InvalidArgumentError(
            None, op, f"{op}: Invalid {fmt} data, size {len(data)}: {exc}"
        ) from None


_decode = Primitive("DecodeImage", _decode_fwd)  # bytes in: no gradient


def _run(contents, op, channels, dtype, expand_animations=False, ratio=1, allowed=()):
    x = contents if isinstance(contents, Tensor) else to_tensor(contents, _OBJ, op)
    if x.dtype != dtypes.string:
        raise TypeError(f"{op}: contents must be a string tensor, got dtype {x.dtype.name}.")
    if x.ndim != 0:
        raise ValueError(f"{op}: contents must be a scalar. Received: shape={list(x.shape)}")
    if channels is None:
        channels = 0
    if channels not in (0, 1, 3, 4):
        raise InvalidArgumentError(
            None, op, f"{op}: channels must be 0, 1, 3 or 4. Received: channels={channels!r}"
        )
    dt = dtypes.as_dtype(dtype)
    if dt not in (dtypes.uint8, dtypes.uint16) and not (op == "decode_image" and dt.is_floating):
        raise TypeError(f"{op}: dtype must be uint8 or uint16. Received: dtype={dt.name}")
    params = {
        "op": op,
        "channels": int(channels),
        "uint16": dt == dtypes.uint16,
        "expand_animations": bool(expand_animations),
        "ratio": int(ratio),
        "allowed": tuple(allowed),
    }
    image = dispatch(_decode, (x,), params)
    if dt.is_floating:
        from ..ops.image import convert_image_dtype

        image = convert_image_dtype(image, dt)
    return image


def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None, expand_animations=True):
    """Decodes a JPEG, PNG, GIF or BMP file (follows `tf.io.decode_image`).

    Args:
        contents: a string scalar: the file's bytes.
        channels: None or 0 (the file's), 1 (grayscale), 3 (RGB) or 4 (RGBA).
        dtype: uint8, uint16, or a float dtype (values scaled to [0, 1] as
            `ek.image.convert_image_dtype` does).
        expand_animations: a GIF gives all its frames, ``[frames, h, w, 3]``; False gives the
            first, ``[h, w, 3]``.

    Returns:
        ``[height, width, channels]`` (or ``[frames, ...]`` for an animated GIF).

    Raises:
        InvalidArgumentError: an unknown format ("Unknown image file format. One of JPEG, PNG,
            GIF, BMP required."), corrupt data, or bad ``channels``.
    """
    return _run(contents, "decode_image", channels, dtype, expand_animations)


def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None):
    """Decodes a PNG (or any format `decode_image` reads) into ``[h, w, channels]`` (follows
    `tf.io.decode_png`). ``dtype=ek.uint16`` keeps 16-bit PNGs' depth (8-bit values are
    scaled by 257); uint8 keeps the high byte of 16-bit ones.

    Raises:
        InvalidArgumentError: as `decode_image`.
        TypeError: ``dtype`` other than uint8 or uint16.
    """
    return _run(contents, "decode_png", channels, dtype)


def decode_jpeg(
    contents,
    channels=0,
    ratio=1,
    fancy_upscaling=True,
    try_recover_truncated=False,
    acceptable_fraction=1,
    dct_method="",
    name=None,
):
    """Decodes a JPEG (or any format `decode_image` reads) into uint8 ``[h, w, channels]``
    (follows `tf.io.decode_jpeg`).

    Args:
        contents: a string scalar: the file's bytes.
        channels: 0 (the file's), 1 (grayscale) or 3 (RGB).
        ratio: 1, 2, 4 or 8: downscale while decoding (libjpeg's DCT scaling; each side
            rounded up).
        fancy_upscaling: must be True (libjpeg's default, which Pillow always uses).
        try_recover_truncated, acceptable_fraction: must be False and 1 (a truncated file
            raises InvalidArgumentError).
        dct_method: "" or "INTEGER_ACCURATE" (libjpeg's default); others are not available.

    Raises:
        NotImplementedError: an argument value this decoder does not offer (named).
        InvalidArgumentError: as `decode_image`.
    """
    op = "decode_jpeg"
    if ratio not in (1, 2, 4, 8):
        raise InvalidArgumentError(
            None, op, f"{op}: ratio must be 1, 2, 4 or 8. Received: ratio={ratio!r}"
        )
    unsupported = {
        "fancy_upscaling": (fancy_upscaling, True),
        "try_recover_truncated": (try_recover_truncated, False),
        "acceptable_fraction": (acceptable_fraction, 1),
    }
    for arg, (value, default) in unsupported.items():
        if value != default:
            raise NotImplementedError(
                f"{op}: {arg}={value!r} is not supported (Pillow's libjpeg decoder is used "
                f"with {arg}={default!r})."
            )
    if dct_method not in ("", "INTEGER_ACCURATE"):
        raise NotImplementedError(
            f"{op}: dct_method={dct_method!r} is not supported; '' and 'INTEGER_ACCURATE' "
            "(libjpeg's accurate integer DCT) are."
        )
    if channels not in (0, 1, 3):
        raise InvalidArgumentError(
            None, op, f"{op}: channels must be 0, 1 or 3. Received: channels={channels!r}"
        )
    return _run(contents, op, channels, dtypes.uint8, ratio=ratio)


def decode_gif(contents, name=None):
    """Decodes every frame of a GIF into uint8 ``[frames, h, w, 3]`` (follows
    `tf.io.decode_gif`; other formats give one frame).

    Raises:
        InvalidArgumentError: as `decode_image`.
    """
    image = _run(contents, "decode_gif", 3, dtypes.uint8, expand_animations=True)
    return image if image.ndim == 4 else image[None]


def decode_bmp(contents, channels=0, name=None):
    """Decodes a BMP into uint8 ``[h, w, channels]`` (follows `tf.io.decode_bmp`).

    Raises:
        InvalidArgumentError: not BMP data, or as `decode_image`.
    """
    return _run(contents, "decode_bmp", channels, dtypes.uint8, allowed=("BMP",))
