"""ek.io.decode_image / decode_png / decode_jpeg / decode_gif / decode_bmp: pixel values of
lossless files against the arrays they were written from (closed forms), JPEG against the
colour it encodes, TensorFlow's channel and dtype rules, and its errors."""

import io

import numpy as np
import pytest
from PIL import Image

import eagerkernel as ek


def _encode(arr, fmt, **kw) -> bytes:
    buf = io.BytesIO()
    img = arr if isinstance(arr, Image.Image) else Image.fromarray(arr)
    img.save(buf, fmt, **kw)
    return buf.getvalue()


RGB = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3) * 4


def test_png_keeps_its_channels_and_values():
    gray = RGB[..., 0]
    out = ek.io.decode_png(_encode(gray, "PNG"))
    assert out.dtype == ek.uint8 and out.shape == (4, 5, 1)
    np.testing.assert_array_equal(out.numpy()[..., 0], gray)
    np.testing.assert_array_equal(ek.io.decode_png(_encode(RGB, "PNG")).numpy(), RGB)
    rgba = np.concatenate([RGB, RGB[..., :1] + 1], axis=-1)
    np.testing.assert_array_equal(ek.io.decode_image(_encode(rgba, "PNG")).numpy(), rgba)


def test_requested_channels_convert():
    rgb_png = _encode(RGB, "PNG")
    four = ek.io.decode_png(rgb_png, channels=4).numpy()
    np.testing.assert_array_equal(four[..., :3], RGB)
    assert (four[..., 3] == 255).all()  # opaque alpha added
    gray = RGB[..., 1]
    three = ek.io.decode_png(_encode(gray, "PNG"), channels=3).numpy()
    np.testing.assert_array_equal(three, np.repeat(gray[..., None], 3, axis=-1))
    # RGB -> grayscale: ITU-R 601-2 luma, Pillow's L conversion (rounded).
    one = ek.io.decode_png(rgb_png, channels=1).numpy()[..., 0].astype(int)
    r, g, b = (RGB[..., k].astype(float) for k in range(3))
    luma = r * 299 / 1000 + g * 587 / 1000 + b * 114 / 1000
    assert np.abs(one - luma).max() <= 1


def test_palette_png_gives_rgb_or_rgba():
    idx = np.array([[0, 1], [1, 0]], np.uint8)
    pal = Image.fromarray(idx, "P")
    pal.putpalette([10, 20, 30, 200, 100, 0] + [0] * 762)
    out = ek.io.decode_png(_encode(pal, "PNG")).numpy()
    np.testing.assert_array_equal(out[0, 0], [10, 20, 30])
    np.testing.assert_array_equal(out[0, 1], [200, 100, 0])
    with_alpha = ek.io.decode_png(_encode(pal, "PNG", transparency=0)).numpy()
    assert with_alpha.shape == (2, 2, 4)
    np.testing.assert_array_equal(with_alpha[0, 0], [10, 20, 30, 0])
    np.testing.assert_array_equal(with_alpha[0, 1], [200, 100, 0, 255])


def test_sixteen_bit_png_and_uint16_output():
    wide = np.array([[0, 300], [65535, 4660]], np.uint16)
    png16 = _encode(Image.fromarray(wide), "PNG")
    out16 = ek.io.decode_png(png16, dtype=ek.uint16)
    assert out16.dtype == ek.uint16
    np.testing.assert_array_equal(out16.numpy()[..., 0], wide)
    np.testing.assert_array_equal(ek.io.decode_png(png16).numpy()[..., 0], wide >> 8)
    eight = ek.io.decode_png(_encode(RGB, "PNG"), dtype=ek.uint16).numpy()
    np.testing.assert_array_equal(eight, RGB.astype(np.uint16) * 257)
    with pytest.raises(TypeError, match="uint8 or uint16"):
        ek.io.decode_png(png16, dtype=ek.float32)


def test_jpeg_decodes_the_encoded_colour():
    solid = np.zeros((16, 24, 3), np.uint8) + np.array([200, 100, 50], np.uint8)
    jpg = _encode(solid, "JPEG", quality=95)
    out = ek.io.decode_jpeg(jpg)
    assert out.shape == (16, 24, 3) and out.dtype == ek.uint8
    assert np.abs(out.numpy().astype(int) - solid).max() <= 3
    gray = ek.io.decode_jpeg(_encode(solid[..., 0], "JPEG", quality=95))
    assert gray.shape == (16, 24, 1) and np.abs(gray.numpy().astype(int) - 200).max() <= 2
    half = ek.io.decode_jpeg(_encode(np.zeros((17, 9, 3), np.uint8), "JPEG"), ratio=2)
    assert half.shape == (9, 5, 3)  # each side rounded up, as libjpeg scales
    assert ek.io.decode_jpeg(jpg, channels=1).shape == (16, 24, 1)
    # TensorFlow 2's decoders read any known format: decode_jpeg of a PNG works.
    np.testing.assert_array_equal(ek.io.decode_jpeg(_encode(RGB, "PNG")).numpy(), RGB)


def test_jpeg_arguments_it_cannot_honour_raise():
    jpg = _encode(RGB, "JPEG")
    with pytest.raises(NotImplementedError, match="fancy_upscaling"):
        ek.io.decode_jpeg(jpg, fancy_upscaling=False)
    with pytest.raises(NotImplementedError, match="try_recover_truncated"):
        ek.io.decode_jpeg(jpg, try_recover_truncated=True)
    with pytest.raises(NotImplementedError, match="INTEGER_FAST"):
        ek.io.decode_jpeg(jpg, dct_method="INTEGER_FAST")
    with pytest.raises(ek.errors.InvalidArgumentError, match="ratio"):
        ek.io.decode_jpeg(jpg, ratio=3)
    with pytest.raises(ek.errors.InvalidArgumentError, match="channels"):
        ek.io.decode_jpeg(jpg, channels=4)


def test_gif_frames():
    frames = [Image.fromarray(np.full((3, 4, 3), v, np.uint8)) for v in (0, 255)]
    buf = io.BytesIO()
    frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:])
    gif = buf.getvalue()
    all_frames = ek.io.decode_image(gif)
    assert all_frames.shape == (2, 3, 4, 3)
    np.testing.assert_array_equal(all_frames.numpy()[:, 0, 0, 0], [0, 255])
    assert ek.io.decode_image(gif, expand_animations=False).shape == (3, 4, 3)
    assert ek.io.decode_gif(gif).shape == (2, 3, 4, 3)
    assert ek.io.decode_gif(_encode(RGB, "PNG")).shape == (1, 4, 5, 3)


def test_bmp_and_float_output():
    bmp = _encode(RGB, "BMP")
    np.testing.assert_array_equal(ek.io.decode_bmp(bmp).numpy(), RGB)
    with pytest.raises(ek.errors.InvalidArgumentError, match="Trying to decode PNG format"):
        ek.io.decode_bmp(_encode(RGB, "PNG"))
    f = ek.io.decode_image(bmp, dtype=ek.float32)
    assert f.dtype == ek.float32
    np.testing.assert_allclose(f.numpy(), RGB / 255, rtol=1e-6)


def test_bad_contents_raise_invalid_argument():
    with pytest.raises(ek.errors.InvalidArgumentError, match="Unknown image file format"):
        ek.io.decode_image(b"not an image")
    png = _encode(RGB, "PNG")
    with pytest.raises(ek.errors.InvalidArgumentError, match="Invalid PNG data"):
        ek.io.decode_png(png[: len(png) // 2])
    with pytest.raises(ValueError, match="scalar"):
        ek.io.decode_png([png])
    with pytest.raises(TypeError, match="string"):
        ek.io.decode_png(ek.constant([1, 2]))


def test_image_namespace_and_dataset_pipeline(tmp_path):
    assert ek.image.decode_png is ek.io.decode_png
    paths = []
    for i in range(3):
        p = tmp_path / f"{i}.png"
        p.write_bytes(_encode(RGB + i, "PNG"))
        paths.append(str(p))
    ds = ek.data.Dataset.from_tensor_slices(paths).map(
        lambda path: ek.io.decode_png(ek.io.read_file(path), channels=3)
    )
    images = [t.numpy() for t in ds]
    for i, img in enumerate(images):
        np.testing.assert_array_equal(img, RGB + i)
