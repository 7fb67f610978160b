"""`ek.keras.ops.image`: every name of Keras 3's ``keras.ops.image``, its values on small
hand-made inputs (literals checked against Keras 3.15 / TensorFlow 2.21, the TensorFlow
backend), closed forms, gradients against finite differences, graph functions against eager
calls, and the errors for bad input."""

from __future__ import annotations

import numpy as np
import pytest
from eagerkernel.keras import ops

import eagerkernel as ek

IMG = np.arange(1, 13, dtype=np.float32).reshape(3, 4, 1)  # 3 x 4, one channel
KERAS_IMAGE_NAMES = [
    "affine_transform",
    "crop_images",
    "elastic_transform",
    "extract_patches",
    "extract_patches_3d",
    "gaussian_blur",
    "hsv_to_rgb",
    "map_coordinates",
    "pad_images",
    "perspective_transform",
    "resize",
    "rgb_to_grayscale",
    "rgb_to_hsv",
    "scale_and_translate",
    "sobel_edges",
    "ssim",
]


def close(got, want, atol=1e-5, rtol=1e-5):
    got = got.numpy() if hasattr(got, "numpy") else got
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=atol, rtol=rtol)


def numeric_grad(f, x, eps=1e-4):
    """Central differences of ``sum(f(x) * weights)`` in float64."""
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (float(f(ek.constant(x + d))) - float(f(ek.constant(x - d)))) / (2 * eps)
    return g


def tape_grad(f, x):
    x = ek.constant(np.asarray(x, np.float64))
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x).numpy()


def test_namespace_lists_exactly_keras_names():
    public = [n for n in dir(ops.image) if not n.startswith("_")]
    assert public == KERAS_IMAGE_NAMES
    assert sorted(ops.image.__all__) == KERAS_IMAGE_NAMES


# -- resize, grayscale, HSV ---------------------------------------------------------------------


def test_resize_aspect_ratio_options():
    # checked against Keras 3 / TF 2.21
    close(
        ops.image.resize(IMG, (2, 2), crop_to_aspect_ratio=True)[..., 0],
        [[2.25, 3.75], [8.25, 9.75]],
    )
    x = np.arange(30, dtype=np.float32).reshape(5, 6, 1)
    close(
        ops.image.resize(x, (2, 4), crop_to_aspect_ratio=True)[..., 0],
        [[7.75, 9.25, 10.75, 12.25], [16.75, 18.25, 19.75, 21.25]],
    )
    padded = ops.image.resize(
        x, (4, 2), pad_to_aspect_ratio=True, fill_value=9.0, interpolation="nearest"
    )
    close(padded[..., 0], [[9, 9], [7, 10], [19, 22], [9, 9]])
    # 3 x 4 to a square: one row of padding on neither side (Keras pads the same on both)
    close(
        ops.image.resize(IMG, (2, 2), pad_to_aspect_ratio=True)[..., 0], [[2.5, 4.5], [8.5, 10.5]]
    )
    cf = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    got = ops.image.resize(
        cf, (4, 4), pad_to_aspect_ratio=True, data_format="channels_first", interpolation="nearest"
    )
    close(got[0, 0], [[0, 1, 2, 3], [4, 5, 6, 7], [4, 5, 6, 7], [8, 9, 10, 11]])


def test_resize_keeps_the_input_dtype():
    x = np.arange(16, dtype=np.int32).reshape(4, 4, 1)
    got = ops.image.resize(x, (3, 3))
    assert got.dtype == ek.int32
    close(got[..., 0], [[1, 2, 4], [6, 8, 9], [12, 13, 14]])  # checked against Keras 3
    assert ops.image.resize(np.ones((4, 4, 1), np.float16), (2, 2)).dtype == ek.float16
    assert ops.image.resize(np.ones((4, 4, 1), np.uint8) * 250, (2, 2)).dtype == ek.uint8


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"size": (0, 2)}, r"resize.*positive"),
        ({"size": (1, 2, 3)}, r"resize.*size.*2 integers"),
        ({"size": (2, 2), "interpolation": "cubic"}, r"resize.*interpolation"),
        ({"size": (2, 2), "pad_to_aspect_ratio": True, "fill_mode": "reflect"}, r"fill_mode"),
        (
            {"size": (2, 2), "pad_to_aspect_ratio": True, "crop_to_aspect_ratio": True},
            r"resize.*only one",
        ),
        ({"size": (2, 2), "data_format": "nhwc"}, r"resize.*data_format"),
    ],
)
def test_resize_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ops.image.resize(IMG, **kwargs)


def test_resize_rank_error():
    with pytest.raises(ValueError, match=r"resize.*rank"):
        ops.image.resize(np.ones((4, 4)), (2, 2))


def test_rgb_to_grayscale():
    close(ops.image.rgb_to_grayscale(np.array([[[10, 200, 30]]], np.uint8)), [[[123]]])
    one = np.full((2, 2, 1), 7.0, np.float32)
    close(ops.image.rgb_to_grayscale(one), one)
    cf = ops.image.rgb_to_grayscale(np.ones((2, 3, 4, 5), np.float32), data_format="channels_first")
    assert cf.shape == (2, 1, 4, 5)
    close(cf, np.full((2, 1, 4, 5), 0.9999))
    with pytest.raises(ValueError, match=r"rgb_to_grayscale.*channel"):
        ops.image.rgb_to_grayscale(np.ones((2, 2, 2), np.float32))


RGB = np.array([[[1.0, 0.5, 0.0], [0.2, 0.4, 0.6]], [[0.0, 0.0, 0.0], [0.3, 0.3, 0.9]]], np.float32)
HSV = [  # checked against Keras 3 / TF 2.21
    [[0.083333, 1.0, 1.0], [0.583333, 0.666667, 0.6]],
    [[0.0, 0.0, 0.0], [0.666667, 0.666667, 0.9]],
]


def test_hsv_conversions():
    close(ops.image.rgb_to_hsv(RGB), HSV, atol=1e-6)
    cf = ops.image.rgb_to_hsv(np.transpose(RGB, (2, 0, 1))[None], data_format="channels_first")
    close(cf[0], np.transpose(np.asarray(HSV), (2, 0, 1)), atol=1e-6)
    hsv = np.array([[[0.1, 0.5, 0.8], [0.9, 1.0, 0.3]]], np.float32)
    close(ops.image.hsv_to_rgb(hsv), [[[0.8, 0.64, 0.4], [0.3, 0.0, 0.18]]], atol=1e-6)
    assert ops.image.hsv_to_rgb(hsv.astype(np.float64)).dtype == ek.float64
    close(ops.image.hsv_to_rgb(ops.image.rgb_to_hsv(RGB)), RGB, atol=1e-6)
    x = ek.constant(RGB)
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.reduce_sum(ops.image.rgb_to_hsv(x))
    assert tape.gradient(y, x) is not None


@pytest.mark.parametrize("fn", [ops.image.rgb_to_hsv, ops.image.hsv_to_rgb])
def test_hsv_errors(fn):
    name = fn.__name__
    with pytest.raises(ValueError, match=rf"{name}.*float"):
        fn(np.ones((2, 2, 3), np.int32))
    with pytest.raises(ValueError, match=rf"{name}.*rank"):
        fn(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"3 channels"):
        fn(np.ones((2, 2, 4), np.float32))


# -- pad and crop -------------------------------------------------------------------------------


def test_pad_images():
    got = ops.image.pad_images(IMG, 1, 0, 0, 2)
    want = np.pad(IMG, [[1, 0], [0, 2], [0, 0]])
    close(got, want)
    got = ops.image.pad_images(IMG, top_padding=1, left_padding=1, target_height=5, target_width=6)
    close(got, np.pad(IMG, [[1, 1], [1, 1], [0, 0]]))
    x = np.ones((2, 3, 4, 2), np.float32)
    assert ops.image.pad_images(x, 1, 1, 0, 0, data_format="channels_first").shape == (2, 3, 5, 3)
    assert ops.image.pad_images(x, 1, 1, 0, 0).shape == (2, 4, 5, 2)
    small = ops.image.pad_images(np.ones((1, 1, 1), np.uint8), 1, 1, 0, 0)
    assert small.dtype == ek.uint8
    close(small[..., 0], [[0, 0], [0, 1]])


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        ((1, 1, 1, 1), {"target_height": 3, "target_width": 3}, r"exactly two of top_padding"),
        ((1, None, None, 1), {}, r"exactly two of top_padding"),
        ((-1, 0, 0, 0), {}, r"`top_padding` must be >= 0"),
        (
            (),
            {"top_padding": 3, "left_padding": 0, "target_height": 2, "target_width": 4},
            r"`bottom_padding` must be >= 0",
        ),
    ],
)
def test_pad_images_errors(args, kwargs, match):
    with pytest.raises(ValueError, match=r"pad_images: .*" + match):
        ops.image.pad_images(IMG, *args, **kwargs)
    with pytest.raises(ValueError, match=r"pad_images.*rank"):
        ops.image.pad_images(np.ones((2, 2)), 1, 1, 1, 1)


def test_crop_images():
    close(ops.image.crop_images(IMG, 1, 1, 0, 1)[..., 0], [[6, 7], [10, 11]])
    got = ops.image.crop_images(
        IMG, top_cropping=1, left_cropping=1, target_height=1, target_width=2
    )
    close(got[..., 0], [[6, 7]])
    got = ops.image.crop_images(
        IMG, bottom_cropping=1, right_cropping=2, target_height=1, target_width=2
    )
    close(got[..., 0], [[5, 6]])
    x = np.arange(48, dtype=np.float32).reshape(2, 3, 4, 2)
    close(ops.image.crop_images(x, 1, 0, 1, 1, data_format="channels_first"), x[:, :, 1:3, 0:1])


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        ((1, 1, 1, 1), {"target_height": 1, "target_width": 1}, r"exactly two of top_cropping"),
        ((-1, 0, 0, 0), {}, r"`top_cropping` must be >= 0"),
        ((3, 0, 1, 0), {}, r"`target_height` must be >= 0"),
        (
            (),
            {"top_cropping": 2, "left_cropping": 0, "target_height": 3, "target_width": 2},
            r"does not fit",
        ),
    ],
)
def test_crop_images_errors(args, kwargs, match):
    with pytest.raises(ValueError, match=r"crop_images: .*" + match):
        ops.image.crop_images(IMG, *args, **kwargs)


# -- blur, patches, Sobel, SSIM -----------------------------------------------------------------


def test_gaussian_blur():
    # checked against Keras 3 / TF 2.21
    want = [
        [1.5217514, 2.5481372, 3.2740684, 2.7047706],
        [3.9037254, 6.0000005, 7.0, 5.5333824],
        [4.145922, 6.163039, 6.888971, 5.3289413],
    ]
    close(ops.image.gaussian_blur(IMG)[..., 0], want)
    close(ops.image.gaussian_blur(IMG.astype(np.float64))[..., 0], want)
    cf = ops.image.gaussian_blur(np.transpose(IMG, (2, 0, 1))[None], data_format="channels_first")
    close(cf[0, 0], want)
    two = ops.image.gaussian_blur(np.concatenate([IMG, -IMG], -1))
    close(two[..., 1], -np.asarray(want))
    close(  # a non-square kernel: Keras reshapes outer(g(5, 2.0), g(3, 0.5)) to (3, 5)
        ops.image.gaussian_blur(IMG, kernel_size=(3, 5), sigma=(0.5, 2.0))[..., 0],
        [
            [1.2370769, 1.782691, 2.8660626, 2.2617252],
            [3.4271383, 4.508801, 5.703314, 4.5698757],
            [3.75319, 5.0567937, 4.081655, 3.9720526],
        ],
    )
    close(  # a square kernel: sigma[1] acts along the height, as in Keras's TF backend
        ops.image.gaussian_blur(IMG, kernel_size=(3, 3), sigma=(0.5, 2.0))[..., 0],
        [
            [1.821529, 2.6383355, 3.3191679, 3.5014586],
            [4.5739717, 6.0, 7.0000005, 7.041437],
            [4.406687, 5.531651, 6.2124834, 6.086616],
        ],
    )


def test_gaussian_blur_gradient_and_errors():
    weights = np.random.default_rng(1).normal(size=(3, 4, 1))

    def f(x):
        return ek.reduce_sum(ops.image.gaussian_blur(x) * weights)

    close(tape_grad(f, IMG), numeric_grad(f, IMG), atol=1e-6)
    with pytest.raises(ValueError, match=r"gaussian_blur.*rank"):
        ops.image.gaussian_blur(IMG[..., 0])
    with pytest.raises(TypeError, match=r"gaussian_blur.*float"):
        ops.image.gaussian_blur(IMG.astype(np.int32))
    with pytest.raises(ValueError, match=r"gaussian_blur.*kernel_size"):
        ops.image.gaussian_blur(IMG, kernel_size=3)
    with pytest.raises(ValueError, match=r"gaussian_blur.*sigma"):
        ops.image.gaussian_blur(IMG, sigma=(1.0, 1.0, 1.0))


X45 = np.arange(1, 41, dtype=np.float32).reshape(4, 5, 2)


def test_extract_patches():
    # checked against Keras 3 / TF 2.21
    close(
        ops.image.extract_patches(X45, 2),
        [
            [[1, 2, 3, 4, 11, 12, 13, 14], [5, 6, 7, 8, 15, 16, 17, 18]],
            [[21, 22, 23, 24, 31, 32, 33, 34], [25, 26, 27, 28, 35, 36, 37, 38]],
        ],
    )
    same = ops.image.extract_patches(X45, (3, 3), strides=2, padding="same")
    assert same.shape == (2, 3, 18)
    close(
        same[..., :4],
        [
            [[0, 0, 1, 2], [3, 4, 5, 6], [7, 8, 9, 10]],
            [[0, 0, 21, 22], [23, 24, 25, 26], [27, 28, 29, 30]],
        ],
    )
    dilated = ops.image.extract_patches(X45, 2, strides=1, dilation_rate=2)
    close(
        dilated[..., :4],
        [
            [[1, 2, 5, 6], [3, 4, 7, 8], [5, 6, 9, 10]],
            [[11, 12, 15, 16], [13, 14, 17, 18], [15, 16, 19, 20]],
        ],
    )
    assert ops.image.extract_patches(X45, (2, 3), strides=(1, 2)).shape == (3, 2, 12)
    assert ops.image.extract_patches(X45, 2, padding="SAME").shape == (2, 3, 8)
    ints = ops.image.extract_patches(X45.astype(np.int32), 2)
    assert ints.dtype == ek.int32
    cf = ops.image.extract_patches(
        np.transpose(X45, (2, 0, 1))[None], 2, data_format="channels_first"
    )
    close(cf[0], np.transpose(ops.image.extract_patches(X45, 2).numpy(), (2, 0, 1)))
    batch = ops.image.extract_patches(np.stack([X45, -X45]), 2)
    close(batch[1], -ops.image.extract_patches(X45, 2).numpy())


def test_extract_patches_errors():
    with pytest.raises(ValueError, match=r"extract_patches.*length 2 or 3"):
        ops.image.extract_patches(X45, (2, 2, 2, 2))
    with pytest.raises(TypeError, match=r"extract_patches.*int or a tuple"):
        ops.image.extract_patches(X45, "2")
    with pytest.raises(ValueError, match=r"extract_patches.*padding"):
        ops.image.extract_patches(X45, 2, padding="full")
    with pytest.raises(ValueError, match=r"extract_patches.*rank 3"):
        ops.image.extract_patches(X45[..., 0], 2)


V = np.arange(1, 49, dtype=np.float32).reshape(3, 4, 4, 1)


def test_extract_patches_3d():
    # checked against Keras 3 / TF 2.21
    close(
        ops.image.extract_patches_3d(V, 2),
        [
            [
                [[1, 2, 5, 6, 17, 18, 21, 22], [3, 4, 7, 8, 19, 20, 23, 24]],
                [[9, 10, 13, 14, 25, 26, 29, 30], [11, 12, 15, 16, 27, 28, 31, 32]],
            ]
        ],
    )
    same = ops.image.extract_patches_3d(V, (2, 3, 3), strides=(1, 2, 2), padding="same")
    assert same.shape == (3, 2, 2, 18)
    close(
        same[0, :, :, :5],
        [[[1, 2, 3, 5, 6], [3, 4, 0, 7, 8]], [[9, 10, 11, 13, 14], [11, 12, 0, 15, 16]]],
    )
    close(same[2, 1, 1, :5], [43, 44, 0, 47, 48])
    close(ops.image.extract_patches(V, (2, 2, 2)), ops.image.extract_patches_3d(V, 2))
    assert ops.image.extract_patches_3d(V, 2, strides=1, dilation_rate=2).shape == (1, 2, 2, 8)
    cf = ops.image.extract_patches_3d(np.moveaxis(V, -1, 0)[None], 2, data_format="channels_first")
    assert cf.shape == (1, 8, 1, 2, 2)
    close(np.moveaxis(cf.numpy()[0], 0, -1), ops.image.extract_patches_3d(V, 2))
    with pytest.raises(ValueError, match=r"extract_patches_3d.*strides"):
        ops.image.extract_patches_3d(V, 2, strides=(1, 2))
    with pytest.raises(TypeError, match=r"extract_patches_3d.*length 3"):
        ops.image.extract_patches_3d(V, (2, 2))
    with pytest.raises(ValueError, match=r"extract_patches_3d.*rank 4"):
        ops.image.extract_patches_3d(V[..., 0], 2)


def test_sobel_edges():
    e = np.zeros((1, 4, 4, 1), np.float32)
    e[0, :, 2:, 0] = 1.0
    e[0, 3, :, 0] += 0.5
    want = np.zeros((4, 4, 2), np.float32)  # checked against Keras 3 / TF 2.21
    want[:, 1:3, 1] = 4.0
    want[2, :, 0] = 2.0
    close(ops.image.sobel_edges(e)[0, :, :, 0], want)
    cf = ops.image.sobel_edges(np.moveaxis(e, -1, 1), data_format="channels_first")
    assert cf.shape == (1, 1, 4, 4, 2)
    close(cf[0, 0], want)
    with pytest.raises(ValueError, match=r"sobel_edges.*rank 4"):
        ops.image.sobel_edges(e[0])


def _ssim_pair():
    rng = np.random.RandomState(0)
    a = rng.rand(2, 12, 13, 2).astype(np.float32)
    b = np.clip(a + 0.1 * rng.randn(*a.shape), 0, 1).astype(np.float32)
    return a, b


def test_ssim():
    a, b = _ssim_pair()
    close(ops.image.ssim(a, b), [0.957962, 0.9568157])  # checked against Keras 3 / TF 2.21
    close(
        ops.image.ssim(a, b, filter_size=3, filter_sigma=0.8, k1=0.02, k2=0.05, max_val=2.0),
        [0.9468144, 0.9526468],
    )
    single = ops.image.ssim(a[0], b[0])
    assert single.shape == ()
    close(single, 0.957962)
    cf = ops.image.ssim(np.moveaxis(a, -1, 1), np.moveaxis(b, -1, 1), data_format="channels_first")
    close(cf, [0.957962, 0.9568157])
    assert ops.image.ssim(a.astype(np.float64), b.astype(np.float64)).dtype == ek.float64
    u8 = ops.image.ssim((a * 255).astype(np.uint8), (b * 255).astype(np.uint8), max_val=255.0)
    assert u8.dtype == ek.uint8  # Keras casts back to image1's dtype
    close(u8, [0, 0])
    close(ops.image.ssim(a, a), [1.0, 1.0])
    x = ek.constant(b)
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.reduce_sum(ops.image.ssim(a, x))
    assert tape.gradient(y, x).shape == b.shape


def test_ssim_errors():
    a, b = _ssim_pair()
    with pytest.raises(ValueError, match=r"ssim.*filter_size=11"):
        ops.image.ssim(a[:, :5], b[:, :5])
    with pytest.raises(ValueError, match=r"ssim.*image1 rank"):
        ops.image.ssim(a[0, ..., 0], b[0, ..., 0])
    with pytest.raises(ValueError, match=r"ssim.*same shape"):
        ops.image.ssim(a, b[:1])
