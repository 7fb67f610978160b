"""Keras 3's per-pixel and colour preprocessing layers (keras/layers/augmentation_pixel.py,
augmentation_color.py, augmentation_base.py, pipeline.py): values of the deterministic
configurations against Keras 3.15 / TensorFlow 2.21 (literals below), invariants of the random
ones, data formats, dict inputs, get_config round trips, Keras's errors, gradients, and fresh
draws inside `ek.function`."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients

L = ek.keras.layers


def _values(text: str, shape) -> np.ndarray:
    """Whitespace-separated numbers as an array of ``shape``."""
    return np.array(text.split(), np.float64).reshape(shape)


# A (2, 2, 3, 3) batch of RGB images in [0, 255].
IMG = _values(
    """
        217 163 130 69 78 10 19 4 44 208 166 233 128 155 248 186 161 139 143 239 71 208 171 0 100
        219 141 8 195 186 216 44 22 220 5 138
    """,
    (2, 2, 3, 3),
).astype(np.float32)

# Outputs of Keras 3.15 (TensorFlow 2.21 backend) on IMG, rounded as written; checked against
# Keras 3 / TF 2.21.
KERAS = {
    "AutoContrast()": _values(
        """
            255 250.278 128.571 64.394 116.481 0 0 0 36.429 243.409 255 238.929 140.379 237.685 255
            215.076 247.13 138.214 162.382 255 97.339 240.566 180.897 0 110.66 233.205 193.306 0
            207.051 255 250.189 42.5 30.161 255 0 189.194
        """,
        IMG.shape,
    ),
    "AutoContrast((0, 1))": _values(
        """
            1 0.98148 0.5042 0.25253 0.45679 0 0 0 0.14286 0.95455 1 0.93697 0.55051 0.9321 1
            0.84343 0.96914 0.54202 0.63679 1 0.38172 0.9434 0.7094 0 0.43396 0.91453 0.75806 0
            0.81197 1 0.98113 0.16667 0.11828 1 0 0.74194
        """,
        IMG.shape,
    ),
    "Solarization((0, 1))": _values(
        """
            0.14902 0.36078 0.4902 0.72941 0.69412 0.96078 0.92549 0.98431 0.82745 0.18431 0.34902
            0.08627 0.49804 0.39216 0.02745 0.27059 0.36863 0.4549 0.43922 0.06275 0.72157 0.18431
            0.32941 1 0.60784 0.14118 0.44706 0.96863 0.23529 0.27059 0.15294 0.82745 0.91373
            0.13725 0.98039 0.45882
        """,
        IMG.shape,
    ),
    "Equalization()": _values(
        """
            232 139 116 46 70 23 23 0 70 185 162 232 93 93 255 139 116 162 116 255 93 185 185 0 70
            232 185 0 209 209 209 46 46 255 23 139
        """,
        IMG.shape,
    ),
    "Equalization((0, 1), bins=8)": _values(
        """
            0.90196 0.69804 0.66667 0.10196 0.2 0 0 0 0.22353 0.90196 0.69804 1 0.4 0.69804 1
            0.90196 0.69804 0.66667 0.4 1 0.22353 0.90196 0.69804 0 0.2 1 0.66667 0 0.8 0.77647
            0.90196 0.10196 0 1 0 0.66667
        """,
        IMG.shape,
    ),
    "RandomGrayscale(1.0)": _values(
        """
            175.362 175.362 175.362 67.55 67.55 67.55 13.043 13.043 13.043 186.175 186.175 186.175
            157.516 157.516 157.516 165.948 165.948 165.948 191.13 191.13 191.13 162.548 162.548
            162.548 174.517 174.517 174.517 138.06 138.06 138.06 92.898 92.898 92.898 84.425 84.425
            84.425
        """,
        IMG.shape,
    ),
    "RandomPosterization((3, 3))": _values(
        """
            192 160 128 64 64 0 0 0 32 192 160 224 128 128 224 160 160 128 128 224 64 192 160 0 96
            192 128 0 192 160 192 32 0 192 0 128
        """,
        IMG.shape,
    ),
    "RandomPosterization(1, (0, 1))": _values(
        """
            0.50196 0.50196 0.50196 0 0 0 0 0 0 0.50196 0.50196 0.50196 0.50196 0.50196 0.50196
            0.50196 0.50196 0.50196 0.50196 0.50196 0 0.50196 0.50196 0 0 0.50196 0.50196 0 0.50196
            0.50196 0.50196 0 0 0.50196 0 0.50196
        """,
        IMG.shape,
    ),
    "RandomSaturation((0, 0))": _values(
        """
            217 217 217 78 78 78 44 44 44 233 233 233 248 248 248 186 186 186 239 239 239 208 208
            208 219 219 219 195 195 195 216 216 216 220 220 220
        """,
        IMG.shape,
    ),
    "RandomColorDegeneration((0.5, 0.5))": _values(
        """
            196.181 169.181 152.681 68.275 72.775 38.775 16.022 8.522 28.522 197.088 176.088 209.588
            142.758 156.258 202.758 175.974 163.474 152.474 167.065 215.065 131.065 185.274 166.774
            81.274 137.259 196.759 157.759 73.03 166.53 162.03 154.449 68.449 57.449 152.212 44.713
            111.213
        """,
        IMG.shape,
    ),
    "RandomSharpness((0, 0))": _values(
        """
            114.615 93.385 87.769 84.846 79.923 64.923 36.769 31.846 47.462 111.846 94.308 119.462
            103 103.615 138.154 88.154 80.154 76.692 88.231 123.462 43.308 132.846 119.769 42.923 88
            101.154 66.538 46.692 109.923 78.692 135.308 80.692 49.692 124.923 35.308 65.615
        """,
        IMG.shape,
    ),
    "RandomSharpness((1, 1))": _values(
        """
            255 232.615 172.231 53.154 76.077 0 1.231 0 40.538 255 237.692 255 153 206.385 255 255
            241.846 201.308 197.769 255 98.692 255 222.231 0 112 255 215.462 0 255 255 255 7.308 0
            255 0 210.385
        """,
        IMG.shape,
    ),
    "RandomGaussianBlur((1, 1), sigma=(0.8, 0.8))": _values(
        """
            101.001 83.711 79.906 86.719 80.104 76.621 44.302 39.76 44.744 103.662 89.362 111.221
            106.122 102.302 125.175 72.965 68.163 74.877 78.252 113.301 43.809 126.966 120.649 47.7
            92.983 84.147 56.895 58.849 98.21 62.287 127.133 84.435 58.526 111.253 43.941 57.94
        """,
        IMG.shape,
    ),
    "RandomColorJitter(brightness (0.1, 0.1), contrast (-0.5, 0.5))": _values(
        """
            255 209.417 155.333 60.083 81.917 0 0 0 26.333 255 213.917 255 148.583 197.417 255
            235.583 206.417 168.833 165.417 255 85.5 255 210.042 0 100.917 255 190.5 0 246.042 255
            255 19.542 12 255 0 186
        """,
        IMG.shape,
    ),
}

DETERMINISTIC = {
    "AutoContrast()": (L.AutoContrast, {}, 1.0),
    "AutoContrast((0, 1))": (L.AutoContrast, {"value_range": (0, 1)}, 1 / 255),
    "Solarization((0, 1))": (L.Solarization, {"value_range": (0, 1)}, 1 / 255),
    "Equalization()": (L.Equalization, {}, 1.0),
    "Equalization((0, 1), bins=8)": (L.Equalization, {"value_range": (0, 1), "bins": 8}, 1 / 255),
    "RandomGrayscale(1.0)": (L.RandomGrayscale, {"factor": 1.0}, 1.0),
    "RandomPosterization((3, 3))": (L.RandomPosterization, {"factor": (3, 3)}, 1.0),
    "RandomPosterization(1, (0, 1))": (
        L.RandomPosterization,
        {"factor": 1, "value_range": (0, 1)},
        1 / 255,
    ),
    "RandomSaturation((0, 0))": (L.RandomSaturation, {"factor": (0.0, 0.0)}, 1.0),
    "RandomColorDegeneration((0.5, 0.5))": (
        L.RandomColorDegeneration,
        {"factor": (0.5, 0.5)},
        1.0,
    ),
    "RandomSharpness((0, 0))": (L.RandomSharpness, {"factor": (0.0, 0.0)}, 1.0),
    "RandomSharpness((1, 1))": (L.RandomSharpness, {"factor": (1.0, 1.0)}, 1.0),
    "RandomGaussianBlur((1, 1), sigma=(0.8, 0.8))": (
        L.RandomGaussianBlur,
        {"factor": (1.0, 1.0), "sigma": (0.8, 0.8)},
        1.0,
    ),
    "RandomColorJitter(brightness (0.1, 0.1), contrast (-0.5, 0.5))": (
        L.RandomColorJitter,
        {"brightness_factor": (0.1, 0.1), "contrast_factor": (-0.5, 0.5)},
        1.0,
    ),
}


@pytest.mark.parametrize("name", sorted(DETERMINISTIC))
def test_deterministic_configurations_match_keras(name):
    cls, kwargs, scale = DETERMINISTIC[name]
    expected = np.asarray(KERAS[name], np.float32)
    out = cls(**kwargs)(IMG * np.float32(scale))
    assert out.dtype == ek.float32 and out.shape == IMG.shape
    np.testing.assert_allclose(out.numpy(), expected, atol=6e-4 if scale == 1.0 else 6e-6)
    # channels_first gives the same images, transposed; one image, its slice
    first = cls(data_format="channels_first", **kwargs)(np.transpose(IMG * scale, (0, 3, 1, 2)))
    np.testing.assert_allclose(np.transpose(first.numpy(), (0, 2, 3, 1)), out.numpy(), atol=1e-4)
    if not name.startswith("Equalization"):  # Equalization counts the whole batch
        np.testing.assert_allclose(cls(**kwargs)(IMG[1] * scale).numpy(), out.numpy()[1])


def test_inverting_layers_follow_keras_value_range_rules():
    # Solarization with a zero threshold and RandomInvert((1, 1)) invert: 255 - x
    np.testing.assert_array_equal(L.Solarization()(IMG).numpy(), 255 - IMG)
    np.testing.assert_array_equal(L.RandomInvert((1.0, 1.0))(IMG).numpy(), 255 - IMG)
    # RandomInvert subtracts from the high end only, as Keras does
    x = IMG / 255
    out = L.RandomInvert((1.0, 1.0), value_range=(0.2, 1.0))(x).numpy()
    np.testing.assert_allclose(out, 1.0 - x, rtol=1e-6)
    # integer images come back as float32 values
    out = L.AutoContrast()(IMG.astype(np.uint8))
    assert out.dtype == ek.float32
    np.testing.assert_allclose(out.numpy(), KERAS["AutoContrast()"], atol=6e-4)


def test_constant_channels_and_training_false():
    flat = np.full((1, 2, 2, 3), 7.0, np.float32)
    np.testing.assert_array_equal(L.AutoContrast()(flat).numpy(), flat)  # Keras's NaN rule
    np.testing.assert_array_equal(L.Equalization()(flat).numpy(), flat)  # one bin: unchanged
    # AutoContrast applies at inference too; the others return their input
    np.testing.assert_allclose(
        L.AutoContrast()(IMG, training=False).numpy(), KERAS["AutoContrast()"], atol=6e-4
    )
    for layer in (
        L.Solarization(),
        L.Equalization(),
        L.RandomGrayscale(1.0),
        L.RandomInvert((1.0, 1.0)),
        L.RandomPosterization(2),
        L.RandomHue(0.5),
        L.RandomSaturation(0.5),
        L.RandomColorDegeneration(0.5),
        L.RandomColorJitter(brightness_factor=0.5),
        L.RandomSharpness(0.5),
        L.RandomGaussianBlur(),
    ):
        np.testing.assert_array_equal(layer(IMG, training=False).numpy(), IMG)


def test_no_op_factors():
    np.testing.assert_array_equal(L.RandomGrayscale(0.0)(IMG).numpy(), IMG)
    np.testing.assert_array_equal(L.RandomInvert(0.0)(IMG).numpy(), IMG)
    np.testing.assert_array_equal(L.RandomColorJitter()(IMG).numpy(), IMG)
    np.testing.assert_array_equal(L.RandomGaussianBlur((0.0, 0.0))(IMG).numpy(), IMG)
    np.testing.assert_allclose(L.RandomHue(0.0)(IMG).numpy(), IMG, atol=1e-4)
    np.testing.assert_allclose(L.RandomSaturation((0.5, 0.5))(IMG).numpy(), IMG, atol=1e-3)
    np.testing.assert_allclose(L.RandomColorDegeneration(0.0)(IMG).numpy(), IMG, atol=1e-4)
    np.testing.assert_allclose(L.RandomSharpness((0.5, 0.5))(IMG).numpy(), IMG, atol=1e-4)
    np.testing.assert_array_equal(L.RandomPosterization((8, 8))(IMG).numpy(), IMG)


def _hsv(x):
    return ek.image.rgb_to_hsv(np.asarray(x, np.float32) / 255).numpy()


def _blend_weights(x, target, out):
    """The per-image ``f`` with ``out = x + f (target - x)`` (least squares), after checking
    that one exists."""
    d, e = (target - x).reshape(len(x), -1), (out - x).reshape(len(x), -1)
    f = (d * e).sum(1) / (d * d).sum(1)
    np.testing.assert_allclose(e, f[:, None] * d, atol=2e-3)
    return f


def test_random_colour_draws_stay_in_their_ranges():
    rng = np.random.default_rng(0)
    x = rng.uniform(30, 220, (64, 3, 3, 3)).astype(np.float32)
    # hue: one shift per image of at most factor / 2, saturation and value kept
    out = L.RandomHue(0.6, seed=1)(x).numpy()
    before, after = _hsv(x), _hsv(out)
    np.testing.assert_allclose(after[..., 1:], before[..., 1:], atol=2e-4)
    shift = (after[..., 0] - before[..., 0] + 0.5) % 1.0 - 0.5
    np.testing.assert_allclose(shift, np.broadcast_to(shift[:, :1, :1], shift.shape), atol=2e-4)
    assert np.abs(shift).max() <= 0.3 + 1e-4 and np.abs(shift).max() > 0.2
    assert (shift[:, 0, 0] > 0).any() and (shift[:, 0, 0] < 0).any()
    # saturation: hue and value kept
    out = L.RandomSaturation((0.2, 0.7), seed=1)(x).numpy()
    np.testing.assert_allclose(_hsv(out)[..., 2], before[..., 2], atol=1e-5)
    # degeneration: x + f (gray - x), f per image in the range
    out = L.RandomColorDegeneration((0.2, 0.6), seed=2)(x).numpy()
    gray = ek.image.rgb_to_grayscale(x).numpy()
    f = _blend_weights(x, gray, out)
    assert f.min() >= 0.2 - 1e-4 and f.max() <= 0.6 + 1e-4 and f.max() - f.min() > 0.2
    # grayscale: each image either unchanged or gray, about half of them gray
    out = L.RandomGrayscale(0.5, seed=3)(x).numpy()
    gray3 = np.broadcast_to(gray, x.shape)
    is_gray = np.array([np.allclose(o, g, atol=1e-4) for o, g in zip(out, gray3)])
    is_same = np.array([np.array_equal(o, i) for o, i in zip(out, x)])
    assert (is_gray | is_same).all() and 16 < is_gray.sum() < 48
    # posterization: keeps 1..7 bits (factor 8 means [1, 8) as Keras's randint)
    out = L.RandomPosterization(8, seed=4)(np.full((200, 1, 1, 3), 255.0, np.float32)).numpy()
    kept = 8 - np.log2(256 - out[:, 0, 0, 0])
    assert set(np.round(kept).astype(int)) == set(range(1, 8))


def test_solarization_and_invert_probabilities():
    x = np.full((400, 1, 1, 1), 100.0, np.float32)
    inverted = L.RandomInvert(seed=5)(x).numpy().ravel() == 155.0  # p ~ U(0, 1): 1/2
    assert 0.4 < inverted.mean() < 0.6
    # a threshold drawn from [0, 0.5 * 255]: 100 is inverted when above it, p = 100 / 127.5
    solarized = L.Solarization(threshold_factor=0.5, seed=6)(x).numpy().ravel() == 155.0
    assert 0.7 < solarized.mean() < 0.87
    # an offset in [0, 0.2 * 255] added first, values clipped to 255 before the threshold
    out = L.Solarization(addition_factor=0.2, threshold_factor=(1.0, 1.0), seed=7)(x).numpy()
    assert (out >= 100.0).all() and (out <= 155.0).all() and out.std() > 5


def test_sharpness_and_blur_blend_with_a_smoothed_copy():
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 255, (64, 5, 5, 3)).astype(np.float32)
    kwargs = {"value_range": (-1e4, 1e4)}
    smooth = L.RandomSharpness((0.0, 0.0), **kwargs)(x).numpy()
    out = L.RandomSharpness(0.8, seed=8, **kwargs)(x).numpy()
    f = _blend_weights(x, smooth, out)  # 1 - 2 s, s in [0, 0.8]
    assert f.min() >= -0.6 - 1e-4 and f.max() <= 1 + 1e-4 and f.max() - f.min() > 0.5
    blurred = L.RandomGaussianBlur(seed=9)(x).numpy()  # p ~ U(0, 1)
    changed = np.array([not np.array_equal(b, i) for b, i in zip(blurred, x)])
    assert 12 < changed.sum() < 52


def test_dict_inputs_and_bounding_boxes():
    labels = np.eye(2, dtype=np.float32)
    masks = np.ones((2, 2, 3, 1), np.int32)
    out = L.RandomInvert((1.0, 1.0))({"images": IMG, "labels": labels, "segmentation_masks": masks})
    np.testing.assert_array_equal(out["images"].numpy(), 255 - IMG)
    np.testing.assert_array_equal(out["labels"].numpy(), labels)
    np.testing.assert_array_equal(out["segmentation_masks"].numpy(), masks)
    boxes = {"boxes": np.zeros((2, 1, 4), np.float32), "labels": np.zeros((2, 1), np.int32)}
    with pytest.raises(ValueError, match="didn't specify a bounding box format"):
        L.RandomInvert()({"images": IMG, "bounding_boxes": boxes})
    kept = L.AutoContrast(bounding_box_format="xyxy")({"images": IMG, "bounding_boxes": boxes})
    np.testing.assert_array_equal(kept["bounding_boxes"]["boxes"], boxes["boxes"])
    assert L.AutoContrast(bounding_box_format="xyxy").get_config()["bounding_box_format"] == "xyxy"
    layer = L.MaxNumBoundingBoxes(2, bounding_box_format="xyxy")
    three = {"boxes": np.arange(24.0).reshape(2, 3, 4), "labels": np.ones((2, 3), np.int32)}
    out = layer({"images": IMG, "bounding_boxes": three})
    np.testing.assert_array_equal(out["bounding_boxes"]["boxes"].numpy(), three["boxes"][:, :2])
    one = {"boxes": np.ones((2, 1, 4)), "labels": np.ones((2, 1), np.int32)}
    out = layer({"images": IMG, "bounding_boxes": one}, training=False)["bounding_boxes"]
    np.testing.assert_array_equal(out["labels"].numpy(), [[1, -1], [1, -1]])
    shapes = {"images": (2, 4, 4, 3), "bounding_boxes": {"boxes": (2, 5, 4), "labels": (2, 5)}}
    assert layer.compute_output_shape(shapes)["bounding_boxes"]["boxes"] == [2, 2, 4]
    with pytest.raises(KeyError, match="unsupported keys"):
        layer.compute_output_shape({"bounding_boxes": {"boxes": (2, 5, 4), "scores": (2, 5)}})


CONFIGS = [
    (L.AutoContrast, {"value_range": [0, 1]}),
    (L.Solarization, {"addition_factor": 0.2, "threshold_factor": (0.1, 0.5), "seed": 3}),
    (L.Equalization, {"bins": 64, "value_range": (0, 1), "data_format": "channels_first"}),
    (L.RandomGrayscale, {"factor": 0.3, "seed": 1}),
    (L.RandomInvert, {"factor": 0.4, "value_range": (0, 1), "seed": 2}),
    (L.RandomPosterization, {"factor": 5, "seed": 4}),
    (L.RandomHue, {"factor": 0.4, "seed": 5}),
    (L.RandomSaturation, {"factor": 0.3, "seed": 6}),
    (L.RandomColorDegeneration, {"factor": 0.3, "seed": 7}),
    (L.RandomColorJitter, {"brightness_factor": 0.1, "hue_factor": 0.2, "seed": 8}),
    (L.RandomSharpness, {"factor": (0.1, 0.9), "seed": 9}),
    (L.RandomGaussianBlur, {"factor": 0.5, "kernel_size": 5, "sigma": (0.2, 0.6), "seed": 1}),
    (L.MaxNumBoundingBoxes, {"max_number": 4, "fill_value": -2}),
]


@pytest.mark.parametrize("cls, kwargs", CONFIGS, ids=[c.__name__ for c, _ in CONFIGS])
def test_config_round_trip_and_seeds(cls, kwargs):
    layer = cls(**kwargs)
    config = layer.get_config()
    again = cls.from_config(config)
    assert again.get_config() == {**config, "name": again.name}
    assert cls.from_config(config).compute_output_shape((2, 4, 4, 3)) == (2, 4, 4, 3)
    restored = ek.keras.layers.deserialize(ek.keras.layers.serialize(layer))
    assert type(restored) is cls
    x = np.random.default_rng(0).uniform(0, 1, (4, 5, 5, 3)).astype(np.float32)
    if "channels_first" in kwargs.values():
        x = np.transpose(x, (0, 3, 1, 2))
    try:
        ek.random.set_seed(11)
        first = cls(**kwargs)(x).numpy()
        ek.random.set_seed(11)
        np.testing.assert_array_equal(cls.from_config(config)(x).numpy(), first)
    finally:
        ek.random.set_seed(None)


def test_keras_config_values():
    assert L.RandomInvert().get_config()["factor"] == (0, 1.0)
    assert L.RandomPosterization(3).get_config()["factor"] == (1, 3)
    assert L.Solarization().get_config()["threshold_factor"] == (0, 0.0)
    assert L.RandomSaturation(0.5).factor == (-0.5, 0.5)
    assert L.RandomHue(0.5).factor == (0, 0.5)
    blur = L.RandomGaussianBlur()
    assert (blur.factor, blur.kernel_size, blur.sigma) == ((0, 1.0), (3, 3), (0, 1.0))
    assert L.Equalization().get_config()["value_range"] == [0, 255]
    assert L.AutoContrast(value_range=(1, 0)).value_range == [0, 1]


ERRORS = [
    (lambda: L.AutoContrast(value_range=5), "`value_range` argument should be a list"),
    (lambda: L.AutoContrast(value_range=(0, 1, 2)), r"Received: value_range=\(0, 1, 2\)"),
    (lambda: L.Equalization(value_range=[1]), "`value_range` argument should be a list"),
    (lambda: L.Solarization(addition_factor=1.5), "Received: input_number=1.5"),
    (lambda: L.Solarization(threshold_factor="x"), "Received: threshold_factor=x"),
    (lambda: L.Solarization(threshold_factor=(0.1, 0.2, 0.3)), "in the range \\[0, 1\\]"),
    (lambda: L.RandomGrayscale(1.5), "`factor` should be between 0 and 1"),
    (lambda: L.RandomInvert(factor=-0.1), r"in the range \[0, 1\]. Received: factor=-0.1"),
    (lambda: L.RandomPosterization(9), r"in the range \[1, 8\]"),
    (lambda: L.RandomPosterization((9, 10)), r"Received: factor=\(9, 10\)"),
    (lambda: L.RandomHue(1.5), r"\[0, 1\]. Received: factor=1.5"),
    (lambda: L.RandomSaturation(-2), r"\[-1, 1\]. Received: factor=-2"),
    (lambda: L.RandomColorDegeneration("a"), "Received: factor=a"),
    (lambda: L.RandomSharpness(2), r"\[0, 1\]"),
    (lambda: L.RandomGaussianBlur(kernel_size=4), "kernel_size must be an odd number"),
    (lambda: L.RandomGaussianBlur(kernel_size=(3, 5, 7)), "should be a number"),
    (lambda: L.RandomGaussianBlur(sigma=2.0), r"The `sigma` argument .*Received: factor=2.0"),
    (lambda: L.RandomColorJitter(contrast_factor=1.5), r"\[0, 1\]"),
    (lambda: L.Equalization(data_format="NHWC"), "`data_format` argument must be one of"),
    (lambda: L.RandomInvert()(np.zeros((2, 3))), r"rank 3 \(single image\) or 4"),
    (lambda: L.RandomGrayscale(1.0)(np.zeros((1, 2, 2, 2))), "Invalid channel size"),
    (lambda: L.RandomColorDegeneration(0.1).compute_output_shape((1, 2, 2, 4)), "3 channels"),
]


@pytest.mark.parametrize("make, message", ERRORS)
def test_errors_carry_keras_messages(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_pipeline_runs_layers_in_order_and_serializes():
    pipeline = L.Pipeline([L.Rescaling(0.5), L.RandomInvert((1.0, 1.0)), L.AutoContrast()])
    assert len(pipeline.layers) == 3
    x = IMG[:, :, :, :]
    expected = L.AutoContrast()(255 - 0.5 * IMG).numpy()
    np.testing.assert_allclose(pipeline(x).numpy(), expected, rtol=1e-6)
    # training=False reaches the layers: no inversion
    expected = L.AutoContrast()(0.5 * IMG).numpy()
    np.testing.assert_allclose(pipeline(x, training=False).numpy(), expected, rtol=1e-6)
    config = pipeline.get_config()
    assert set(config) == {"layers", "name"} and config["layers"][1]["class_name"] == "RandomInvert"
    again = L.Pipeline.from_config(config)
    assert [type(layer) for layer in again.layers] == [type(layer) for layer in pipeline.layers]
    np.testing.assert_allclose(again(x).numpy(), pipeline(x).numpy())
    assert pipeline.compute_output_shape((2, 4, 4, 3)) == (2, 4, 4, 3)
    with pytest.raises(ValueError, match="must contain a `layers` key"):
        L.Pipeline.from_config({"name": "p"})
    # in a model, fit passes training=True and predict training=False
    model = ek.keras.Sequential([L.Input((2, 3, 3)), L.Pipeline([L.RandomInvert((1.0, 1.0))])])
    np.testing.assert_array_equal(model.predict(IMG, verbose=0), IMG)


def test_gradients_reach_the_images():
    rng = np.random.default_rng(3)
    x = rng.uniform(0.1, 0.9, (2, 3, 3, 2))
    check_gradients(lambda v: L.AutoContrast((0, 1), dtype="float64")(v) ** 2, x)
    check_gradients(
        lambda v: L.RandomColorDegeneration((0.4, 0.4), (0, 1), dtype="float64")(v) ** 2,
        rng.uniform(0.1, 0.9, (2, 3, 3, 3)),
    )
    check_gradients(lambda v: L.RandomSharpness((0.2, 0.2), (-5, 5), dtype="float64")(v), x)


def test_graph_functions_recompute_and_redraw():
    rng = np.random.default_rng(4)
    a, b = (rng.uniform(0, 255, (6, 4, 4, 3)).astype(np.float32) for _ in range(2))
    # deterministic layers: a replay with new inputs equals the eager result
    for layer in (L.AutoContrast(), L.Equalization(), L.RandomSaturation((0.0, 0.0))):
        f = ek.function(lambda x, layer=layer: layer(x))
        for x in (a, b, a):
            np.testing.assert_allclose(f(x).numpy(), layer(x).numpy(), rtol=1e-6)
    # random layers (seeded or not): a fresh draw on every call, on the call's inputs
    for layer in (
        L.RandomInvert((0.5, 0.5), seed=1),
        L.RandomHue(0.5),
        L.RandomGaussianBlur(seed=2),
        L.RandomRotation(0.3, seed=1),  # augmentation.py's layers draw in the same step
        L.RandomFlip(seed=1),
        L.RandomContrast(0.5, seed=1),
        L.RandomCrop(2, 2, seed=1),
    ):
        f = ek.function(lambda x, layer=layer: layer(x, training=True))
        outs = [f(a).numpy() for _ in range(4)]
        assert any(not np.array_equal(outs[0], o) for o in outs[1:]), layer.name
    crop = L.RandomCrop(2, 3, seed=2)
    g = ek.function(lambda x: crop(x, training=True))
    for x in (a, b):
        out = g(x).numpy()
        assert any(
            np.array_equal(out, x[:, t : t + 2, c : c + 3]) for t in range(3) for c in range(2)
        )
    invert = L.RandomInvert((1.0, 1.0))
    f = ek.function(lambda x: invert(x))
    np.testing.assert_array_equal(f(a).numpy(), 255 - a)
    np.testing.assert_array_equal(f(b).numpy(), 255 - b)
