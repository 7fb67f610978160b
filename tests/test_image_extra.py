"""The rest of `ek.image`'s everyday ops: geometry, colour, measures and codecs, against NumPy
closed forms, Python's colorsys, Pillow, TensorFlow's documented examples and finite
differences."""

from __future__ import annotations

import colorsys
import io

import numpy as np
import pytest
from PIL import Image

import eagerkernel as ek
from eagerkernel.testing import check_gradients


def check_float32_gradients(f, *args):
    """Finite differences for ops that compute in float32 as TensorFlow's do (float64 images
    are converted to float32 and back), so a larger step and tolerance."""
    check_gradients(f, *args, rtol=2e-3, atol=1e-4, eps=1e-3)


RNG = np.random.default_rng(0)
IMG = RNG.uniform(size=(5, 7, 3)).astype(np.float32)
BATCH = RNG.uniform(size=(2, 5, 7, 3)).astype(np.float32)


# -- geometry -----------------------------------------------------------------------------------
@pytest.mark.parametrize("k", [-1, 0, 1, 2, 3, 5])
def test_rot90_matches_numpy(k):
    np.testing.assert_array_equal(ek.image.rot90(IMG, k).numpy(), np.rot90(IMG, k, (0, 1)))
    np.testing.assert_array_equal(ek.image.rot90(BATCH, k).numpy(), np.rot90(BATCH, k, (1, 2)))


def test_rot90_and_transpose_gradients():
    x = RNG.normal(size=(3, 4, 2))
    check_gradients(lambda t: ek.image.rot90(t, 1) * np.arange(24.0).reshape(4, 3, 2), x)
    check_gradients(lambda t: ek.image.transpose(t) * np.arange(24.0).reshape(4, 3, 2), x)


def test_transpose_swaps_height_and_width():
    np.testing.assert_array_equal(ek.image.transpose(IMG).numpy(), IMG.transpose(1, 0, 2))
    np.testing.assert_array_equal(ek.image.transpose(BATCH).numpy(), BATCH.transpose(0, 2, 1, 3))
    with pytest.raises(ValueError, match=r"transpose: 'image' must have 3 or 4 dimensions"):
        ek.image.transpose(np.zeros((2, 2)))


def test_central_crop():
    x = RNG.uniform(size=(10, 8, 3)).astype(np.float32)
    # start = int((10 - 10 * 0.5) / 2) = 2, keep 6 rows; int((8 - 4) / 2) = 2, keep 4 columns
    np.testing.assert_array_equal(ek.image.central_crop(x, 0.5).numpy(), x[2:8, 2:6])
    np.testing.assert_array_equal(ek.image.central_crop(x[None], 0.5).numpy()[0], x[2:8, 2:6])
    np.testing.assert_array_equal(ek.image.central_crop(x, 1.0).numpy(), x)
    for bad in (0.0, 1.5):
        with pytest.raises(ValueError, match=r"central_fraction must be within \(0, 1\]"):
            ek.image.central_crop(x, bad)


def test_crop_to_bounding_box_values_and_errors():
    np.testing.assert_array_equal(
        ek.image.crop_to_bounding_box(BATCH, 1, 2, 3, 4).numpy(), BATCH[:, 1:4, 2:6]
    )
    cases = [
        ((0, -1, 2, 2), "offset_width must be >= 0."),
        ((-1, 0, 2, 2), "offset_height must be >= 0."),
        ((0, 0, 2, 0), "target_width must be > 0."),
        ((0, 0, 0, 2), "target_height must be > 0."),
        ((0, 4, 2, 4), "width must be >= target \\+ offset."),
        ((3, 0, 3, 2), "height must be >= target \\+ offset."),
    ]
    for args, msg in cases:
        with pytest.raises(ValueError, match=msg):
            ek.image.crop_to_bounding_box(IMG, *args)


def test_pad_to_bounding_box_values_and_errors():
    out = ek.image.pad_to_bounding_box(IMG, 1, 2, 8, 10).numpy()
    want = np.zeros((8, 10, 3), np.float32)
    want[1:6, 2:9] = IMG
    np.testing.assert_array_equal(out, want)
    cases = [
        ((-1, 0, 8, 10), "offset_height must be >= 0"),
        ((0, -1, 8, 10), "offset_width must be >= 0"),
        ((0, 4, 8, 10), "width must be <= target - offset"),
        ((4, 0, 8, 10), "height must be <= target - offset"),
    ]
    for args, msg in cases:
        with pytest.raises(ValueError, match=msg):
            ek.image.pad_to_bounding_box(IMG, *args)
    check_gradients(
        lambda t: ek.image.pad_to_bounding_box(t, 1, 0, 4, 3), RNG.normal(size=(2, 2, 1))
    )


@pytest.mark.parametrize("target", [(3, 4), (8, 10), (2, 11), (6, 6)])
def test_resize_with_crop_or_pad_matches_numpy(target):
    th, tw = target
    out = ek.image.resize_with_crop_or_pad(IMG, th, tw).numpy()
    want = np.zeros((th, tw, 3), np.float32)
    h, w = IMG.shape[:2]
    # crop offset floor((in - target) / 2) when cropping, pad offset floor((target - in) / 2)
    ch, cw = max((h - th) // 2, 0), max((w - tw) // 2, 0)
    ph, pw = max((th - h) // 2, 0), max((tw - w) // 2, 0)
    kh, kw = min(th, h), min(tw, w)
    want[ph : ph + kh, pw : pw + kw] = IMG[ch : ch + kh, cw : cw + kw]
    np.testing.assert_array_equal(out, want)
    with pytest.raises(ValueError, match=r"target_width must be > 0\."):
        ek.image.resize_with_crop_or_pad(IMG, 3, 0)


def test_resize_with_pad():
    x = RNG.uniform(size=(2, 4, 1)).astype(np.float32)
    out = ek.image.resize_with_pad(x, 4, 4).numpy()
    np.testing.assert_allclose(out[1:3], x, rtol=1e-6)  # ratio 1: no resampling
    np.testing.assert_array_equal(out[[0, 3]], 0)
    # 4x2 into 4x8: scaled by 1 (height-bound), padded by 3 columns each side
    y = RNG.uniform(size=(4, 2, 1)).astype(np.float32)
    out = ek.image.resize_with_pad(y[None], 4, 8).numpy()[0]
    np.testing.assert_allclose(out[:, 3:5], y, rtol=1e-6)
    assert out.shape == (4, 8, 1) and not out[:, :3].any() and not out[:, 5:].any()
    # downscale by 2: bilinear with half-pixel centres averages 2x2 blocks
    z = RNG.uniform(size=(4, 8, 1)).astype(np.float32)
    out = ek.image.resize_with_pad(z, 4, 4).numpy()
    blocks = z.reshape(2, 2, 4, 2, 1).mean(axis=(1, 3))
    np.testing.assert_allclose(out[1:3], blocks, rtol=1e-5)
    # resize computes in float32; the map is linear, so a large step is exact
    check_gradients(
        lambda t: ek.image.resize_with_pad(t, 4, 4), RNG.normal(size=(2, 4, 1)), rtol=1e-4, eps=1e-2
    )


def test_random_crop_is_a_seeded_window():
    x = np.arange(6 * 7 * 2).reshape(6, 7, 2)
    ek.random.set_seed(5)
    a = ek.image.random_crop(x, [3, 4, 2], seed=1).numpy()
    ek.random.set_seed(5)
    b = ek.image.random_crop(x, [3, 4, 2], seed=1).numpy()
    np.testing.assert_array_equal(a, b)
    windows = np.lib.stride_tricks.sliding_window_view(x, (3, 4, 2)).reshape(-1, 3, 4, 2)
    assert any(np.array_equal(a, w) for w in windows)
    seen = {ek.image.random_crop(x, [3, 4, 2]).numpy()[0, 0, 0] for _ in range(40)}
    assert len(seen) > 3  # offsets vary between calls
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"Need value\.shape >= size"):
        ek.image.random_crop(x, [7, 4, 2])
    with pytest.raises(ValueError, match="random_crop: 'size' must have one entry"):
        ek.image.random_crop(x, [3, 4])


def test_stateless_random_crop_and_flips_follow_the_seed():
    x = np.arange(6 * 7 * 2, dtype=np.float32).reshape(6, 7, 2)
    a = ek.image.stateless_random_crop(x, [3, 4, 2], seed=[1, 2]).numpy()
    np.testing.assert_array_equal(a, ek.image.stateless_random_crop(x, [3, 4, 2], [1, 2]).numpy())
    crops = {
        ek.image.stateless_random_crop(x, [3, 4, 2], [s, 0]).numpy()[0, 0, 0] for s in range(30)
    }
    assert len(crops) > 3
    batch = np.stack([x] * 16)
    for fn, flip in (
        (ek.image.stateless_random_flip_left_right, lambda t: t[:, ::-1]),
        (ek.image.stateless_random_flip_up_down, lambda t: t[::-1]),
    ):
        out = fn(batch, seed=[3, 4]).numpy()
        np.testing.assert_array_equal(out, fn(batch, seed=[3, 4]).numpy())
        flipped = [np.array_equal(o, flip(x)) for o in out]
        assert all(f or np.array_equal(o, x) for f, o in zip(flipped, out))
        assert 0 < sum(flipped) < 16


def test_random_flip_up_down():
    batch = np.stack([IMG] * 16)
    ek.random.set_seed(3)
    out = ek.image.random_flip_up_down(batch, seed=2).numpy()
    ek.random.set_seed(3)
    np.testing.assert_array_equal(out, ek.image.random_flip_up_down(batch, seed=2).numpy())
    flipped = [np.array_equal(o, IMG[::-1]) for o in out]
    assert all(f or np.array_equal(o, IMG) for f, o in zip(flipped, out))
    assert 0 < sum(flipped) < 16


def _patches_reference(x, k, s, r, padding):
    b, h, w, c = x.shape
    eff = [k[i] + (k[i] - 1) * (r[i] - 1) for i in range(2)]
    if padding == "SAME":
        out = [-(-h // s[0]), -(-w // s[1])]
        pads = [max((out[i] - 1) * s[i] + eff[i] - (h, w)[i], 0) for i in range(2)]
        x = np.pad(
            x,
            [
                (0, 0),
                (pads[0] // 2, pads[0] - pads[0] // 2),
                (pads[1] // 2, pads[1] - pads[1] // 2),
                (0, 0),
            ],
        )
    else:
        out = [(h - eff[0]) // s[0] + 1, (w - eff[1]) // s[1] + 1]
    res = np.zeros((b, out[0], out[1], k[0] * k[1] * c), x.dtype)
    for i in range(out[0]):
        for j in range(out[1]):
            rows = i * s[0] + np.arange(k[0]) * r[0]
            cols = j * s[1] + np.arange(k[1]) * r[1]
            res[:, i, j] = x[:, rows][:, :, cols].reshape(b, -1)
    return res


@pytest.mark.parametrize(
    "k,s,r,padding",
    [
        ((2, 2), (2, 2), (1, 1), "VALID"),
        ((3, 2), (1, 2), (1, 1), "SAME"),
        ((2, 3), (2, 1), (2, 2), "SAME"),
        ((2, 2), (3, 2), (2, 1), "VALID"),
    ],
)
def test_extract_patches_matches_reference(k, s, r, padding):
    x = RNG.uniform(size=(2, 7, 8, 3)).astype(np.float32)
    out = ek.image.extract_patches(x, [1, *k, 1], [1, *s, 1], [1, *r, 1], padding).numpy()
    np.testing.assert_array_equal(out, _patches_reference(x, k, s, r, padding))


def test_extract_patches_gradient_and_errors():
    x = RNG.normal(size=(1, 4, 5, 2))
    check_gradients(
        lambda t: (
            ek.image.extract_patches(t, [1, 2, 2, 1], [1, 1, 2, 1], [1, 1, 1, 1], "SAME") ** 2
        ),
        x,
    )
    with pytest.raises(ValueError, match=r"extract_patches: 'sizes' must be \[1, rows, cols, 1\]"):
        ek.image.extract_patches(x, [2, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    with pytest.raises(ValueError, match="extract_patches: 'padding' must be 'VALID' or 'SAME'"):
        ek.image.extract_patches(x, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "FULL")


def _crop_and_resize_reference(image, boxes, idx, size, method, extrap):
    _, h, w, c = image.shape
    ch, cw = size
    out = np.zeros((len(boxes), ch, cw, c), np.float32)
    for n, ((y1, x1, y2, x2), b) in enumerate(zip(boxes, idx)):
        for i in range(ch):
            y = (
                y1 * (h - 1) + i * (y2 - y1) * (h - 1) / (ch - 1)
                if ch > 1
                else 0.5 * (y1 + y2) * (h - 1)
            )
            for j in range(cw):
                x = (
                    x1 * (w - 1) + j * (x2 - x1) * (w - 1) / (cw - 1)
                    if cw > 1
                    else 0.5 * (x1 + x2) * (w - 1)
                )
                if not (0 <= y <= h - 1 and 0 <= x <= w - 1):
                    out[n, i, j] = extrap
                elif method == "nearest":
                    out[n, i, j] = image[b, int(np.floor(y + 0.5)), int(np.floor(x + 0.5))]
                else:
                    y0, x0 = int(np.floor(y)), int(np.floor(x))
                    y1_, x1_ = int(np.ceil(y)), int(np.ceil(x))
                    dy, dx = y - y0, x - x0
                    top = image[b, y0, x0] * (1 - dx) + image[b, y0, x1_] * dx
                    bot = image[b, y1_, x0] * (1 - dx) + image[b, y1_, x1_] * dx
                    out[n, i, j] = top * (1 - dy) + bot * dy
    return out


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_crop_and_resize_matches_reference(method):
    image = RNG.uniform(size=(2, 6, 5, 2)).astype(np.float32)
    boxes = np.asarray(
        [[0.1, 0.2, 0.8, 0.9], [0.9, 0.7, 0.1, 0.0], [-0.2, 0.3, 0.5, 1.2], [0.3, 0.3, 0.3, 0.6]],
        np.float32,
    )
    idx = np.asarray([0, 1, 1, 0], np.int32)
    for size in ([3, 4], [1, 3]):
        out = ek.image.crop_and_resize(image, boxes, idx, size, method, extrapolation_value=-1.0)
        want = _crop_and_resize_reference(image, boxes, idx, size, method, -1.0)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6)


def test_crop_and_resize_gradient_and_errors():
    image = RNG.normal(size=(1, 4, 4, 1))
    boxes = np.asarray([[0.1, 0.0, 0.7, 0.9]], np.float32)

    def f(t):
        return ek.image.crop_and_resize(ek.cast(t, ek.float32), boxes, [0], [3, 3])

    check_float32_gradients(f, image)
    with pytest.raises(ek.errors.InvalidArgumentError, match="box_index has values outside"):
        ek.image.crop_and_resize(image, boxes, [1], [2, 2])
    with pytest.raises(
        ValueError, match=r"crop_and_resize: 'boxes' must have shape \[num_boxes, 4\]"
    ):
        ek.image.crop_and_resize(image, [[0.0, 1.0]], [0], [2, 2])


# -- colour -------------------------------------------------------------------------------------
def test_adjust_brightness():
    np.testing.assert_allclose(ek.image.adjust_brightness(IMG, 0.2).numpy(), IMG + 0.2, rtol=1e-6)
    u8 = np.asarray([[[0, 100, 250]]], np.uint8)
    out = ek.image.adjust_brightness(u8, 0.1).numpy()
    # to float /255, + 0.1, back * 255.5 truncated and saturated
    want = np.clip((u8 / 255.0 + 0.1) * 255.5, 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(out, want)
    assert out.dtype == np.uint8 and out[0, 0, 2] == 255
    check_float32_gradients(
        lambda t: ek.image.adjust_brightness(t, 0.3) ** 2, RNG.normal(size=(2, 2, 3))
    )


def test_adjust_gamma():
    out = ek.image.adjust_gamma(IMG, gamma=2.2, gain=0.8).numpy()
    np.testing.assert_allclose(out, 0.8 * IMG**2.2, rtol=1e-5)
    u8 = np.asarray([[[0, 64, 255]]], np.uint8)
    want = ((u8 / 255.0) ** 0.5 * 255.5).astype(np.uint8)
    np.testing.assert_array_equal(ek.image.adjust_gamma(u8, 0.5).numpy(), want)
    with pytest.raises(ValueError, match=r"Gamma should be a non-negative real number\."):
        ek.image.adjust_gamma(IMG, -1.0)
    check_float32_gradients(
        lambda t: ek.image.adjust_gamma(t, 2.0, 1.5), RNG.uniform(0.2, 1, (2, 2, 1))
    )


def _colorsys_map(fn, arr):
    flat = arr.reshape(-1, 3).astype(np.float64)
    return np.asarray([fn(*p) for p in flat]).reshape(arr.shape)


def test_rgb_hsv_round_trip_matches_colorsys():
    rgb = np.concatenate(
        [IMG, [[[0.3, 0.3, 0.3], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0]] + [[0.5, 0.2, 0.2]] * 4]]
    ).astype(np.float32)
    hsv = ek.image.rgb_to_hsv(rgb).numpy()
    np.testing.assert_allclose(hsv, _colorsys_map(colorsys.rgb_to_hsv, rgb), atol=1e-6)
    np.testing.assert_allclose(ek.image.hsv_to_rgb(hsv).numpy(), rgb, atol=1e-6)
    np.testing.assert_allclose(
        ek.image.hsv_to_rgb(hsv).numpy(), _colorsys_map(colorsys.hsv_to_rgb, hsv), atol=1e-6
    )
    with pytest.raises(ValueError, match="rgb_to_hsv: 'images' must have 3 channels"):
        ek.image.rgb_to_hsv(np.zeros((2, 2, 4), np.float32))
    with pytest.raises(TypeError, match="hsv_to_rgb: 'images' must be float"):
        ek.image.hsv_to_rgb(np.zeros((2, 2, 3), np.uint8))


def test_hsv_gradients():
    rgb = RNG.uniform(0.1, 0.9, size=(2, 3, 3))
    check_gradients(ek.image.rgb_to_hsv, rgb, rtol=1e-4, atol=1e-6)
    # TensorFlow marks HSVToRGB not differentiable: the tape gives None
    hsv = ek.Variable(IMG)
    with ek.GradientTape() as tape:
        out = ek.reduce_sum(ek.image.hsv_to_rgb(hsv))
    assert tape.gradient(out, hsv) is None


def test_adjust_saturation_and_hue_match_colorsys():
    hsv = _colorsys_map(colorsys.rgb_to_hsv, IMG)
    sat = hsv.copy()
    sat[..., 1] = np.clip(sat[..., 1] * 1.7, 0, 1)
    np.testing.assert_allclose(
        ek.image.adjust_saturation(IMG, 1.7).numpy(),
        _colorsys_map(colorsys.hsv_to_rgb, sat),
        atol=1e-5,
    )
    hue = hsv.copy()
    hue[..., 0] = np.mod(hue[..., 0] - 0.3, 1.0)
    np.testing.assert_allclose(
        ek.image.adjust_hue(IMG, -0.3).numpy(), _colorsys_map(colorsys.hsv_to_rgb, hue), atol=1e-5
    )
    u8 = (IMG * 255).astype(np.uint8)
    out = ek.image.adjust_saturation(u8, 0.0).numpy()
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(out[..., 0], out[..., 1])  # fully desaturated: gray
    with pytest.raises(ValueError, match=r"delta must be in the interval \[-1, 1\]"):
        ek.image.adjust_hue(IMG, 1.5)


def test_adjust_saturation_and_hue_have_no_gradient():
    image = ek.Variable(IMG)
    for fn, name in (
        (lambda t: ek.image.adjust_saturation(t, 0.5), "AdjustSaturation"),
        (lambda t: ek.image.adjust_hue(t, 0.1), "AdjustHue"),
    ):
        with ek.GradientTape() as tape:
            out = fn(image)
        with pytest.raises(LookupError, match=name):
            tape.gradient(out, image)


def test_grayscale_to_rgb():
    g = RNG.uniform(size=(2, 3, 4, 1)).astype(np.float32)
    np.testing.assert_array_equal(ek.image.grayscale_to_rgb(g).numpy(), np.repeat(g, 3, -1))
    with pytest.raises(
        ValueError, match="grayscale_to_rgb: 'images' must be at least 2-D with 1 channel"
    ):
        ek.image.grayscale_to_rgb(IMG)


def test_per_image_standardization():
    # TensorFlow's documented example
    x = np.arange(1, 13, dtype=np.int32).reshape(2, 2, 3)
    out = ek.image.per_image_standardization(x)
    assert out.dtype == ek.float32
    np.testing.assert_allclose(out.numpy()[1, 1], [1.0138896, 1.3035723, 1.593255], rtol=1e-6)
    batch = ek.image.per_image_standardization(BATCH).numpy()
    for img, got in zip(BATCH, batch):
        np.testing.assert_allclose(got, (img - img.mean()) / img.std(), rtol=1e-4, atol=1e-5)
    flat = ek.image.per_image_standardization(np.full((2, 2, 1), 3.0, np.float32)).numpy()
    np.testing.assert_array_equal(flat, 0.0)  # stddev floored at 1/sqrt(N)
    # The op computes in float32, whose rounding makes finite differences of the op itself
    # too noisy for some draws: the tape's gradient is checked against finite differences of
    # the float64 formula instead, on several images.
    rng = np.random.default_rng(3)

    def reference(img):
        return (img - img.mean()) / max(img.std(), 1 / np.sqrt(img.size))

    for _ in range(5):
        image = rng.normal(size=(2, 3, 2))
        weights = rng.normal(size=image.shape)
        x = ek.constant(image.astype(np.float32))
        with ek.GradientTape() as tape:
            tape.watch(x)
            loss = ek.reduce_sum(ek.image.per_image_standardization(x) * weights.astype(np.float32))
        got = tape.gradient(loss, x).numpy()
        numeric = np.zeros_like(image)
        for idx in np.ndindex(image.shape):
            step = np.zeros_like(image)
            step[idx] = 1e-6
            numeric[idx] = (
                np.sum(weights * reference(image + step))
                - np.sum(weights * reference(image - step))
            ) / 2e-6
        np.testing.assert_allclose(got, numeric, rtol=1e-3, atol=1e-4)


def test_random_colour_ops_errors():
    cases = [
        (lambda: ek.image.random_brightness(IMG, -0.1), "max_delta must be non-negative."),
        (lambda: ek.image.random_contrast(IMG, 0.8, 0.5), "upper must be > lower."),
        (lambda: ek.image.random_contrast(IMG, -0.5, 0.5), "lower must be non-negative."),
        (lambda: ek.image.random_saturation(IMG, 1.0, 1.0), "upper must be > lower."),
        (lambda: ek.image.random_hue(IMG, 0.6), "max_delta must be <= 0.5."),
        (lambda: ek.image.random_hue(IMG, -0.1), "max_delta must be non-negative."),
        (
            lambda: ek.image.stateless_random_contrast(IMG, 0.8, 0.5, [1, 2]),
            "upper must be > lower.",
        ),
    ]
    for fn, msg in cases:
        with pytest.raises(ValueError, match=msg):
            fn()


def test_random_brightness_contrast_are_seeded_draws_in_range():
    ek.random.set_seed(7)
    a = ek.image.random_brightness(IMG, 0.2, seed=3).numpy()
    ek.random.set_seed(7)
    b = ek.image.random_brightness(IMG, 0.2, seed=3).numpy()
    np.testing.assert_array_equal(a, b)
    delta = (a - IMG).ravel()
    np.testing.assert_allclose(delta, delta[0], atol=1e-6)
    assert -0.2 <= delta[0] < 0.2
    out = ek.image.random_contrast(IMG, 0.3, 0.6, seed=1).numpy()
    mean = IMG.mean(axis=(0, 1))
    factor = (out - mean) / (IMG - mean)
    np.testing.assert_allclose(factor, factor.flat[0], rtol=1e-3)
    assert 0.3 <= factor.flat[0] < 0.6


def test_random_saturation_and_hue_match_adjust_with_some_factor():
    out = ek.image.random_saturation(IMG, 0.2, 0.4, seed=2).numpy()
    matches = [
        np.allclose(out, ek.image.adjust_saturation(IMG, f).numpy(), atol=2e-3)
        for f in np.linspace(0.2, 0.4, 201)
    ]
    assert any(matches)
    assert not np.allclose(out, ek.image.adjust_saturation(IMG, 1.0).numpy(), atol=1e-2)
    hue = ek.image.random_hue(IMG, 0.2, seed=2).numpy()
    matches = [
        np.allclose(hue, ek.image.adjust_hue(IMG, d).numpy(), atol=3e-3)
        for d in np.linspace(-0.2, 0.2, 401)
    ]
    assert any(matches)


def test_stateless_random_colour_ops_use_the_stateless_draw():
    seed = [4, 9]
    for fn, adjust, lo, hi in (
        (
            lambda s: ek.image.stateless_random_brightness(IMG, 0.3, s),
            ek.image.adjust_brightness,
            -0.3,
            0.3,
        ),
        (
            lambda s: ek.image.stateless_random_contrast(IMG, 0.2, 0.9, s),
            ek.image.adjust_contrast,
            0.2,
            0.9,
        ),
        (
            lambda s: ek.image.stateless_random_saturation(IMG, 0.2, 0.9, s),
            ek.image.adjust_saturation,
            0.2,
            0.9,
        ),
        (lambda s: ek.image.stateless_random_hue(IMG, 0.3, s), ek.image.adjust_hue, -0.3, 0.3),
    ):
        draw = ek.random.stateless_uniform([], seed, lo, hi)
        np.testing.assert_allclose(fn(seed).numpy(), adjust(IMG, draw).numpy(), rtol=1e-6)
        np.testing.assert_array_equal(fn(seed).numpy(), fn(seed).numpy())
        assert not np.array_equal(fn(seed).numpy(), fn([5, 9]).numpy())


# -- measures -----------------------------------------------------------------------------------
def test_total_variation():
    tv = np.abs(np.diff(IMG, axis=0)).sum() + np.abs(np.diff(IMG, axis=1)).sum()
    np.testing.assert_allclose(ek.image.total_variation(IMG).numpy(), tv, rtol=1e-5)
    per = [np.abs(np.diff(i, axis=0)).sum() + np.abs(np.diff(i, axis=1)).sum() for i in BATCH]
    np.testing.assert_allclose(ek.image.total_variation(BATCH).numpy(), per, rtol=1e-5)
    check_gradients(ek.image.total_variation, RNG.normal(size=(2, 3, 3, 1)))


def test_psnr():
    b = np.clip(IMG + RNG.normal(scale=0.05, size=IMG.shape), 0, 1).astype(np.float32)
    mse = np.mean((IMG.astype(np.float64) - b) ** 2)
    np.testing.assert_allclose(
        ek.image.psnr(IMG, b, 1.0).numpy(), 10 * np.log10(1 / mse), rtol=1e-5
    )
    u1, u2 = (IMG * 255).astype(np.uint8), (b * 255).astype(np.uint8)
    mse8 = np.mean((u1 / 255.0 - u2 / 255.0) ** 2)
    np.testing.assert_allclose(
        ek.image.psnr(u1, u2, 255).numpy(), 10 * np.log10(1 / mse8), rtol=1e-5
    )
    np.testing.assert_allclose(
        ek.image.psnr(BATCH, BATCH * 0.9, 2.0).numpy(),
        [10 * np.log10(4 / np.mean((0.1 * i.astype(np.float64)) ** 2)) for i in BATCH],
        rtol=1e-5,
    )
    with pytest.raises(ValueError, match="psnr: both images must have the same shape and dtype"):
        ek.image.psnr(IMG, BATCH, 1.0)


def _ssim_reference(x, y, max_val, size=11, sigma=1.5, k1=0.01, k2=0.03):
    coords = np.arange(size) - (size - 1) / 2
    g = np.exp(-(coords[:, None] ** 2 + coords[None] ** 2) / (2 * sigma**2))
    g /= g.sum()

    def filt(a):
        win = np.lib.stride_tricks.sliding_window_view(a, (size, size), axis=(-3, -2))
        return np.einsum("...hwcij,ij->...hwc", win, g)

    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mx, my = filt(x), filt(y)
    lum = (2 * mx * my + c1) / (mx**2 + my**2 + c1)
    cs = (2 * (filt(x * y) - mx * my) + c2) / (filt(x * x + y * y) - mx**2 - my**2 + c2)
    return (lum * cs).mean(axis=(-3, -2)).mean(-1)


def test_ssim_matches_the_gaussian_window_formula():
    x = RNG.uniform(size=(2, 16, 14, 3)).astype(np.float32)
    y = np.clip(x + RNG.normal(scale=0.1, size=x.shape), 0, 1).astype(np.float32)
    got = ek.image.ssim(x, y, 1.0).numpy()
    np.testing.assert_allclose(got, _ssim_reference(x.astype(np.float64), y, 1.0), rtol=1e-4)
    np.testing.assert_allclose(ek.image.ssim(x, x, 1.0).numpy(), 1.0, rtol=1e-6)
    u1, u2 = (x * 255).astype(np.uint8), (y * 255).astype(np.uint8)
    np.testing.assert_allclose(
        ek.image.ssim(u1, u2, 255).numpy(), _ssim_reference(u1 / 255.0, u2 / 255.0, 1.0), rtol=1e-4
    )
    got = ek.image.ssim(x, y, 1.0, filter_size=5, filter_sigma=1.0, k1=0.02, k2=0.05).numpy()
    np.testing.assert_allclose(
        got, _ssim_reference(x.astype(np.float64), y, 1.0, 5, 1.0, 0.02, 0.05), rtol=1e-4
    )
    with pytest.raises(ek.errors.InvalidArgumentError, match="filter_size=11"):
        ek.image.ssim(x[:, :8], y[:, :8], 1.0)


def test_ssim_of_flat_images_is_the_luminance_term_exactly():
    # Flat images have no contrast: SSIM = (2 a b + c1) / (a^2 + b^2 + c1), c1 = 0.01^2. The
    # contrast term's E[xy] - E[x]E[y] cancels to 0 only without float32 rounding (TensorFlow
    # 2.21 gives 0.5506824 for b = 0.3, the closed form 0.5505).
    ones = np.ones((1, 16, 16, 1), np.float32)
    for b in (0.9, 0.3):
        want = (2 * b + 1e-4) / (1 + b * b + 1e-4)
        got = ek.image.ssim(ones, ones * np.float32(b), 1.0)
        assert got.dtype == ek.float32
        assert float(got[0]) == pytest.approx(want, rel=1e-6)


def test_ssim_gradient():
    y = RNG.uniform(size=(5, 5, 1))
    check_float32_gradients(
        lambda t: ek.image.ssim(t, ek.constant(y), 1.0, filter_size=3), RNG.uniform(size=(5, 5, 1))
    )


def test_image_gradients():
    x = RNG.normal(size=(2, 4, 5, 3)).astype(np.float32)
    dy, dx = ek.image.image_gradients(x)
    want_dy = np.concatenate([np.diff(x, axis=1), np.zeros((2, 1, 5, 3), np.float32)], axis=1)
    want_dx = np.concatenate([np.diff(x, axis=2), np.zeros((2, 4, 1, 3), np.float32)], axis=2)
    np.testing.assert_allclose(dy.numpy(), want_dy, rtol=1e-6)
    np.testing.assert_allclose(dx.numpy(), want_dx, rtol=1e-6)
    with pytest.raises(
        ValueError, match=r"image_gradients expects a 4D tensor \[batch_size, h, w, d\]"
    ):
        ek.image.image_gradients(x[0])


def test_sobel_edges():
    x = RNG.normal(size=(2, 4, 5, 3)).astype(np.float32)
    p = np.pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)], mode="reflect")
    ky = np.asarray([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], np.float32)
    win = np.lib.stride_tricks.sliding_window_view(p, (3, 3), axis=(1, 2))
    want = np.stack([np.einsum("bhwcij,ij->bhwc", win, k) for k in (ky, ky.T)], -1)
    out = ek.image.sobel_edges(x)
    assert out.shape == (2, 4, 5, 3, 2)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)
    check_gradients(lambda t: ek.image.sobel_edges(t) ** 2, RNG.normal(size=(1, 3, 3, 1)))


# -- codecs -------------------------------------------------------------------------------------
U8 = (RNG.uniform(size=(6, 5, 3)) * 255).astype(np.uint8)


@pytest.mark.parametrize("channels", [1, 3, 4])
def test_png_round_trip_and_pillow_agree(tmp_path, channels):
    arr = (RNG.uniform(size=(6, 5, channels)) * 255).astype(np.uint8)
    data = ek.io.encode_png(arr)
    assert data.dtype == ek.string and data.shape == ()
    np.testing.assert_array_equal(ek.io.decode_png(data).numpy(), arr)
    path = tmp_path / "x.png"
    ek.io.write_file(str(path), data)
    pil = np.asarray(Image.open(path))
    np.testing.assert_array_equal(pil.reshape(arr.shape), arr)
    decoded = ek.image.decode_image(ek.io.read_file(str(path)))
    np.testing.assert_array_equal(decoded.numpy(), arr)


def test_decode_png_channels_and_uint16():
    data = ek.io.encode_png(U8)
    rgba = ek.io.decode_png(data, channels=4).numpy()
    np.testing.assert_array_equal(rgba[..., :3], U8)
    np.testing.assert_array_equal(rgba[..., 3], 255)
    wide = ek.io.decode_png(data, dtype=ek.uint16).numpy()
    np.testing.assert_array_equal(wide, U8.astype(np.uint16) * 257)
    g16 = (RNG.uniform(size=(4, 3, 1)) * 65535).astype(np.uint16)
    np.testing.assert_array_equal(
        ek.io.decode_png(ek.io.encode_png(g16), dtype=ek.uint16).numpy(), g16
    )
    with pytest.raises(
        ek.errors.InvalidArgumentError, match="decode_png: channels must be 0, 1, 3 or 4"
    ):
        ek.io.decode_png(data, channels=2)
    with pytest.raises(
        ek.errors.InvalidArgumentError, match="decode_png: Unknown image file format"
    ):
        ek.io.decode_png(b"not an image")


def test_jpeg_round_trip_matches_pillow():
    smooth = np.clip(
        np.add.outer(np.arange(16), np.arange(16))[..., None] * 8 + np.asarray([0, 20, 40]), 0, 255
    ).astype(np.uint8)
    data = ek.io.encode_jpeg(smooth, quality=90)
    raw = np.asarray(data.numpy()).item() if hasattr(data.numpy(), "item") else data.numpy()
    out = ek.io.decode_jpeg(data).numpy()
    np.testing.assert_array_equal(out, np.asarray(Image.open(io.BytesIO(raw))))
    assert np.abs(out.astype(int) - smooth).mean() < 3
    low = np.asarray(ek.io.encode_jpeg(smooth, quality=10).numpy()).item()
    assert len(low) < len(raw)
    gray = ek.image.decode_jpeg(data, channels=1).numpy()
    assert gray.shape == (16, 16, 1)
    with pytest.raises(ValueError, match=r"encode_jpeg: 'quality' must be in 0\.\.100"):
        ek.io.encode_jpeg(smooth, quality=101)
    with pytest.raises(TypeError, match="encode_jpeg: 'image' must be uint8"):
        ek.io.encode_jpeg(smooth.astype(np.float32))
    half = ek.io.decode_jpeg(data, ratio=2).numpy()  # libjpeg's DCT scaling, ceil(size / 2)
    pil = Image.open(io.BytesIO(raw))
    pil.draft("RGB", (8, 8))
    np.testing.assert_array_equal(half, np.asarray(pil))
    assert half.shape == (8, 8, 3) and ek.io.decode_jpeg(data, ratio=8).shape == (2, 2, 3)
    with pytest.raises(ValueError, match="decode_jpeg: ratio must be 1, 2, 4 or 8"):
        ek.io.decode_jpeg(data, ratio=3)
    with pytest.raises(NotImplementedError, match="decode_jpeg: try_recover_truncated=True"):
        ek.io.decode_jpeg(data, try_recover_truncated=True)


def test_decode_image_gif_frames_and_float():
    frames = [Image.fromarray(np.full((4, 3, 3), v, np.uint8)) for v in (0, 255)]
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:])
    out = ek.io.decode_image(buf.getvalue()).numpy()
    assert out.shape == (2, 4, 3, 3)
    np.testing.assert_array_equal(out[0], 0)
    np.testing.assert_array_equal(out[1], 255)
    assert ek.io.decode_image(buf.getvalue(), expand_animations=False).shape == (4, 3, 3)
    flt = ek.image.decode_image(ek.io.encode_png(U8), dtype=ek.float32).numpy()
    np.testing.assert_allclose(flt, U8 / 255.0, rtol=1e-6)
    with pytest.raises(ek.errors.InvalidArgumentError, match="Unknown image file format"):
        ek.io.decode_image(b"plain text")


# -- the data_augmentation tutorial's pipeline ---------------------------------------------------
def test_random_split_is_tensorflows_documented_example():
    np.testing.assert_array_equal(
        ek.random.split([1, 2], num=3).numpy(),
        [[1105988140, 1738052849], [-335576002, 370444179], [10670227, -246211131]],
    )
    assert ek.random.fold_in is ek.random.experimental.stateless_fold_in


def test_tutorial_augment_through_a_dataset_map():
    size = 12
    images = RNG.integers(0, 256, size=(4, 16, 20, 3), dtype=np.uint8)

    def augment(image_label, seed):
        image, label = image_label
        image = ek.image.resize(ek.cast(image, ek.float32), [size, size]) / 255.0
        image = ek.image.resize_with_crop_or_pad(image, size + 6, size + 6)
        new_seed = ek.random.split(seed, num=1)[0, :]
        image = ek.image.stateless_random_crop(image, size=[size, size, 3], seed=seed)
        image = ek.image.stateless_random_brightness(image, max_delta=0.5, seed=new_seed)
        return ek.clip_by_value(image, 0, 1), label

    counter = ek.data.experimental.Counter()
    ds = ek.data.Dataset.zip(
        (ek.data.Dataset.from_tensor_slices((images, np.arange(4))), (counter, counter))
    )
    first = [x.numpy() for x, _ in ds.map(augment).batch(4)]
    again = [x.numpy() for x, _ in ds.map(augment).batch(4)]
    np.testing.assert_array_equal(first[0], again[0])
    assert first[0].shape == (4, size, size, 3)
    assert first[0].min() >= 0 and first[0].max() <= 1


# -- non_max_suppression ------------------------------------------------------------------------
def _iou(a, b):
    ya, yb = sorted(a[::2]), sorted(b[::2])
    xa, xb = sorted(a[1::2]), sorted(b[1::2])
    inter = max(min(ya[1], yb[1]) - max(ya[0], yb[0]), 0) * max(
        min(xa[1], xb[1]) - max(xa[0], xb[0]), 0
    )
    union = (ya[1] - ya[0]) * (xa[1] - xa[0]) + (yb[1] - yb[0]) * (xb[1] - xb[0]) - inter
    return inter / union


def test_non_max_suppression_is_greedy_by_score():
    boxes = RNG.uniform(0, 1, size=(40, 4)).astype(np.float32)
    boxes[:, 2:] = boxes[:, :2] + RNG.uniform(0.1, 0.4, size=(40, 2))
    boxes[::3] = boxes[::3][:, [2, 3, 0, 1]]  # either corner order
    scores = RNG.uniform(size=40).astype(np.float32)
    got = ek.image.non_max_suppression(boxes, scores, 10, iou_threshold=0.3, score_threshold=0.2)
    assert got.dtype == ek.int32
    want = []
    for i in np.argsort(-scores):
        if (
            scores[i] > 0.2
            and len(want) < 10
            and all(_iou(boxes[i], boxes[j]) <= 0.3 for j in want)
        ):
            want.append(i)
    np.testing.assert_array_equal(got.numpy(), want)
    idx, sel = ek.image.non_max_suppression_with_scores(boxes, scores, 10, 0.3, 0.2)
    np.testing.assert_array_equal(idx.numpy(), want)
    np.testing.assert_array_equal(sel.numpy(), scores[want])
    assert ek.image.non_max_suppression(boxes, scores, 0).shape == (0,)


def test_non_max_suppression_errors():
    boxes = np.zeros((3, 4), np.float32)
    with pytest.raises(
        ValueError, match=r"non_max_suppression: 'scores' must have shape \[num_boxes\]"
    ):
        ek.image.non_max_suppression(boxes, [1.0, 2.0], 2)
    with pytest.raises(
        ValueError, match=r"non_max_suppression: 'iou_threshold' must be in \[0, 1\]"
    ):
        ek.image.non_max_suppression(boxes, [1.0, 2.0, 3.0], 2, iou_threshold=1.5)
    with pytest.raises(NotImplementedError, match="soft_nms_sigma"):
        ek.image.non_max_suppression_with_scores(boxes, [1.0, 2.0, 3.0], 2, soft_nms_sigma=0.5)


def test_stateless_flips_use_tensorflows_rule():
    # one image flips when its draw is below 0.5; a batch flips the images whose draw rounds to 1
    for seed in ([1, 2], [7, 0], [3, 4], [9, 9]):
        u = float(ek.random.stateless_uniform([], seed))
        out = ek.image.stateless_random_flip_left_right(IMG, seed).numpy()
        np.testing.assert_array_equal(out, IMG[:, ::-1] if u < 0.5 else IMG)
        draws = ek.random.stateless_uniform([2], seed).numpy()
        out = ek.image.stateless_random_flip_up_down(BATCH, seed).numpy()
        for img, got, d in zip(BATCH, out, draws):
            np.testing.assert_array_equal(got, img[::-1] if d > 0.5 else img)


def test_decode_grayscale_follows_libpng_and_libjpeg():
    data = ek.io.encode_png(U8)
    # libpng's fixed-point weights (0.299 and 0.587 truncated to 15 bits), as TensorFlow's decoder
    want = (U8.astype(np.int64) @ np.asarray([9797, 19234, 3737])) >> 15
    np.testing.assert_array_equal(ek.io.decode_png(data, channels=1).numpy()[..., 0], want)
    rgba = np.concatenate([U8, np.full((6, 5, 1), 7, np.uint8)], -1)
    gray = ek.io.decode_png(ek.io.encode_png(rgba), channels=1).numpy()[..., 0]
    np.testing.assert_array_equal(gray, want)  # alpha dropped
    # a JPEG decoded to one channel is libjpeg's luma plane (Pillow's draft mode "L")
    jpeg = np.asarray(ek.io.encode_jpeg(U8, quality=90).numpy()).item()
    pil = Image.open(io.BytesIO(jpeg))
    pil.draft("L", pil.size)
    np.testing.assert_array_equal(
        ek.io.decode_jpeg(jpeg, channels=1).numpy()[..., 0], np.asarray(pil)
    )


# -- TensorFlow as the oracle (skipped when it is not installed) ---------------------------------
def _oracle_cases():
    boxes = np.asarray(
        [[0.1, 0.2, 0.8, 0.9], [0.9, 0.7, 0.1, 0.0], [-0.2, 0.3, 0.5, 1.2]], np.float32
    )
    img, u8 = BATCH, (IMG * 255).astype(np.uint8)
    rng = np.random.default_rng(1)
    big = rng.uniform(size=(2, 16, 13, 3)).astype(np.float32)
    big2 = np.clip(big + rng.normal(scale=0.1, size=big.shape), 0, 1).astype(np.float32)
    return {
        "rot90": lambda m: m.image.rot90(img, 3),
        "central_crop": lambda m: m.image.central_crop(img, 0.37),
        "resize_with_crop_or_pad": lambda m: m.image.resize_with_crop_or_pad(img, 4, 16),
        "resize_with_pad": lambda m: m.image.resize_with_pad(img, 5, 17),
        "resize_with_pad_nearest": lambda m: m.image.resize_with_pad(u8, 7, 7, method="nearest"),
        "extract_patches": lambda m: m.image.extract_patches(
            img, [1, 3, 2, 1], [1, 2, 3, 1], [1, 2, 1, 1], "SAME"
        ),
        "crop_and_resize": lambda m: m.image.crop_and_resize(
            img, boxes, [0, 1, 1], [4, 5], extrapolation_value=-1
        ),
        "crop_and_resize_nearest": lambda m: m.image.crop_and_resize(
            img, boxes, [0, 1, 1], [1, 3], "nearest"
        ),
        "adjust_brightness": lambda m: m.image.adjust_brightness(u8, 0.3),
        "adjust_gamma": lambda m: m.image.adjust_gamma(u8, 0.7, 1.2),
        "adjust_saturation": lambda m: m.image.adjust_saturation(img, 2.5),
        "adjust_hue": lambda m: m.image.adjust_hue(u8, 0.2),
        "rgb_to_hsv": lambda m: m.image.rgb_to_hsv(img),
        "hsv_to_rgb": lambda m: m.image.hsv_to_rgb(img),
        "per_image_standardization": lambda m: m.image.per_image_standardization(u8),
        "total_variation": lambda m: m.image.total_variation(m.constant(img)),
        "psnr": lambda m: m.image.psnr(big, big2, 1.0),
        "ssim": lambda m: m.image.ssim(big, big2, 1.0),
        "sobel_edges": lambda m: m.image.sobel_edges(m.constant(img)),
        "stateless_random_brightness": lambda m: m.image.stateless_random_brightness(
            img, 0.5, (3, 4)
        ),
        "stateless_random_hue": lambda m: m.image.stateless_random_hue(img, 0.3, (3, 4)),
        "stateless_random_crop": lambda m: m.image.stateless_random_crop(img, [1, 5, 6, 3], (3, 4)),
        "stateless_random_flip_left_right": lambda m: m.image.stateless_random_flip_left_right(
            img, (3, 4)
        ),
        "decode_png_gray": lambda m: m.io.decode_png(m.io.encode_png(u8), channels=1),
        "decode_jpeg_ratio": lambda m: m.io.decode_jpeg(
            m.io.encode_jpeg(u8), ratio=2, channels=1, dct_method="INTEGER_ACCURATE"
        ),
    }


@pytest.mark.parametrize("case", sorted(_oracle_cases()))
def test_matches_tensorflow(case):
    tf = pytest.importorskip("tensorflow")
    fn = _oracle_cases()[case]
    np.testing.assert_allclose(fn(ek).numpy(), fn(tf).numpy(), rtol=1e-5, atol=1e-5)


def test_crop_and_resize_gradient_with_respect_to_boxes():
    image = RNG.normal(size=(1, 5, 6, 2)).astype(np.float32)
    boxes = np.asarray([[0.13, 0.07, 0.71, 0.88], [0.52, 0.91, 0.11, 0.23]])
    check_float32_gradients(lambda b: ek.image.crop_and_resize(image, b, [0, 0], [3, 4]), boxes)


def test_crop_and_resize_gradients_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    image = RNG.normal(size=(2, 5, 6, 2)).astype(np.float32)
    boxes = np.asarray([[0.13, 0.07, 0.71, 0.88], [0.52, 0.91, -0.3, 0.23]], np.float32)
    upstream = RNG.normal(size=(2, 3, 4, 2)).astype(np.float32)
    grads = []
    for m in (ek, tf):
        x, b = m.Variable(image), m.Variable(boxes)
        with m.GradientTape() as tape:
            y = m.reduce_sum(m.image.crop_and_resize(x, b, [1, 0], [3, 4]) * upstream)
        grads.append([g.numpy() for g in tape.gradient(y, [x, b])])
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "case", ["rgb_to_hsv", "per_image_standardization", "ssim", "extract_patches"]
)
def test_gradients_match_tensorflow(case):
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(2)
    x = rng.uniform(0.05, 0.95, size=(2, 12, 11, 3)).astype(np.float32)
    y = rng.uniform(0.05, 0.95, size=(2, 12, 11, 3)).astype(np.float32)
    fns = {
        "rgb_to_hsv": lambda m, t: m.image.rgb_to_hsv(t),
        "per_image_standardization": lambda m, t: m.image.per_image_standardization(t) * y,
        "ssim": lambda m, t: m.image.ssim(t, y, 1.0, filter_size=5),
        "extract_patches": lambda m, t: m.image.extract_patches(
            t, [1, 3, 2, 1], [1, 2, 1, 1], [1, 1, 2, 1], "SAME"
        ),
    }
    grads = []
    for m in (ek, tf):
        v = m.Variable(x)
        with m.GradientTape() as tape:
            out = m.reduce_sum(fns[case](m, v))
        grads.append(tape.gradient(out, v).numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-3, atol=1e-5)
