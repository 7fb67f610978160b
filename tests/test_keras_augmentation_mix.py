"""Keras 3's geometric, batch-mixing and policy preprocessing layers
(keras/layers/augmentation_geometry.py, augmentation_mix.py, augmentation_policy.py): shears
and homographies against Keras 3.15 / TensorFlow 2.21 (literals below), invariants of the
random draws (MixUp's output is its mixed labels times the batch, CutMix pastes a rectangle
and weights the labels by its area, RandAugment at strength 0 is one of its operations' fixed
outputs, ...), get_config round trips, Keras's errors, gradients, and fresh draws inside
`ek.function`."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.keras.layers.augmentation import transform
from eagerkernel.runtime.keras.layers.augmentation_geometry import coordinate_taps, read_taps
from eagerkernel.runtime.keras.ops.image_warp import homography

L = ek.keras.layers


def _values(text: str, shape) -> np.ndarray:
    """Whitespace-separated numbers as an array of ``shape``."""
    return np.array(text.split(), np.float64).reshape(shape)


RAMP = np.arange(2 * 4 * 5, dtype=np.float32).reshape(2, 4, 5, 1)
RNG = np.random.default_rng(0)
PHOTO = RNG.uniform(0, 255, (4, 6, 7, 3)).astype(np.float32)

# keras.layers.RandomShear(x_factor=(0.3, 0.3), y_factor=(0.2, 0.2), fill_mode="constant") on
# RAMP: the two outputs (one per sign) of each image; checked against Keras 3 / TF 2.21.
SHEARED = _values(
    """
        0 2 4 6 8 5.3 7.3 9.3 11.3 9.1 10.6 12.6 14.6 16.6 7.2 15.9 13.52 10.74 7.56 0.38 0 0.8 1.2
        1.2 0.8 3.5 4.7 4.7 4.7 4.7 4 9.4 9.4 9.4 9.4 1.5 14.1 14.1 14.1 14.1 20 22 24 26 28 25.3
        27.3 29.3 31.3 23.1 30.6 32.6 34.6 36.6 15.2 35.9 29.52 22.74 15.56 0.78 20 16.8 13.2 9.2
        4.8 17.5 24.7 24.7 24.7 24.7 12 29.4 29.4 29.4 29.4 3.5 34.1 34.1 34.1 34.1
    """,
    (2, 2, 4, 5),
)

# keras.ops.image.perspective_transform(RAMP, START, END) and Keras's homography for them;
# checked against Keras 3 / TF 2.21.
START = np.array([[[0, 0], [4, 0], [0, 3], [4, 3]]], np.float64)
END = START + START * np.array([[[0.1, -0.2], [0.05, 0.1], [-0.1, 0.2], [0.15, -0.05]]])
HOMOGRAPHY = [0.771222, 0.0, 0.0, 0.0, 0.933584, 0.0, -0.04529, 0.033417]
WARPED = _values(
    """
        0 0.807807 1.696073 2.677449 3.767384 4.516977 5.504497 6.586889 7.778515 9.09679 8.75098
        9.893908 11.142881 12.513376 14.024033 12.727791 14.005243 15.397296 16.920103 17.488081 20
        20.807804 21.696074 22.67745 23.767384 24.516975 25.504496 26.58689 27.778513 29.096788
        28.750978 29.893906 31.142881 32.51338 34.024033 32.72779 34.00524 35.3973 36.920105
        36.54196
    """,
    (2, 4, 5),
)


def test_shear_outputs_are_keras_outputs():
    seen = set()
    for seed in range(8):
        layer = L.RandomShear((0.3, 0.3), (0.2, 0.2), fill_mode="constant", seed=seed)
        out = layer(RAMP).numpy()[..., 0]
        for b in range(2):
            match = [np.allclose(out[b], c, atol=1e-4) for c in SHEARED[b]]
            assert any(match), out[b]
            seen.add((b, match.index(True)))
    assert len(seen) == 4  # both signs occur
    np.testing.assert_array_equal(L.RandomShear()(PHOTO).numpy(), PHOTO)  # factor 0


def test_homography_and_perspective_warp_match_keras():
    transforms = homography(ek.constant(START), ek.constant(END)).numpy()
    np.testing.assert_allclose(transforms[0], HOMOGRAPHY, atol=1e-6)
    warped = transform(RAMP, transforms[0].astype(np.float32), fill_mode="constant")
    np.testing.assert_allclose(warped.numpy()[..., 0], WARPED, atol=1e-4)
    # scale 0 or a zero probability: unchanged; otherwise values stay in the range or are
    # partly the fill value
    np.testing.assert_array_equal(L.RandomPerspective(scale=0.0)(PHOTO).numpy(), PHOTO)
    np.testing.assert_array_equal(L.RandomPerspective(factor=0.0)(PHOTO).numpy(), PHOTO)
    out = L.RandomPerspective((1.0, 1.0), scale=0.5, fill_value=-1.0, seed=2)(PHOTO).numpy()
    assert out.min() >= -1.0 and out.max() <= PHOTO.max() + 1e-3
    assert all(not np.array_equal(o, p) for o, p in zip(out, PHOTO))
    # channels first moves the same way
    layer = L.RandomPerspective((1.0, 1.0), scale=0.5, seed=2, data_format="channels_first")
    first = layer(np.transpose(PHOTO, (0, 3, 1, 2))).numpy()
    assert first.shape == (4, 3, 6, 7)


def test_coordinate_taps_follow_keras_map_coordinates():
    image = np.arange(4.0).reshape(1, 1, 4, 1)  # one row a b c d = 0 1 2 3
    xs = np.array([[[-2.0, -1.0, 0.5, 3.0, 4.0, 5.0, 6.5]]])
    ys = np.zeros_like(xs)
    expected = {
        "constant": [9, 9, 0.5, 3, 9, 9, 9],
        "nearest": [0, 0, 0.5, 3, 3, 3, 3],
        "wrap": [2, 3, 0.5, 3, 0, 1, 2.5],
        "reflect": [2, 1, 0.5, 3, 3, 2, 0.5],  # Keras's TensorFlow backend's rule
        "mirror": [2, 1, 0.5, 3, 2, 1, 0.5],
    }
    for mode, values in expected.items():
        taps = coordinate_taps(ys, xs, (1, 1, 4), 1, mode)
        out = read_taps(ek.constant(image), *(ek.constant(t) for t in taps), 9.0)
        np.testing.assert_allclose(out.numpy().ravel(), values, err_msg=mode)
    xs = np.array([[[0.5, 1.5, 2.4]]])
    nearest = coordinate_taps(np.zeros_like(xs), xs, (1, 1, 4), 0, "nearest")
    assert nearest[0].ravel().tolist() == [0, 2, 2]  # half to even, as tf.round


def test_elastic_transform_moves_pixels_within_the_image():
    np.testing.assert_array_equal(L.RandomElasticTransform(scale=0.0)(PHOTO).numpy(), PHOTO)
    np.testing.assert_array_equal(L.RandomElasticTransform(factor=0.0)(PHOTO).numpy(), PHOTO)
    x = RNG.uniform(0, 255, (2, 24, 24, 3)).astype(np.float32)
    out = L.RandomElasticTransform(
        (1.0, 1.0), (1.0, 1.0), interpolation="nearest", fill_mode="nearest", seed=3
    )(x).numpy()
    assert not np.array_equal(out, x)
    for o, i in zip(out, x):  # every output pixel is one of its image's pixels
        pixels = {tuple(p) for p in i.reshape(-1, 3)}
        assert all(tuple(p) in pixels for p in o.reshape(-1, 3))
    out = L.RandomElasticTransform(
        (1.0, 1.0), fill_mode="constant", fill_value=-50.0, value_range=(0, 200), seed=4
    )(x).numpy()
    assert out.min() >= 0.0 and out.max() <= 200.0
    masks = {"images": x, "segmentation_masks": np.arange(2 * 24 * 24).reshape(2, 24, 24, 1)}
    moved = L.RandomElasticTransform((1.0, 1.0), fill_mode="wrap", seed=5)(masks)
    values = moved["segmentation_masks"].numpy()
    assert values.dtype == np.int64 and set(np.unique(values)) <= set(range(2 * 24 * 24))
    np.testing.assert_array_equal(values[1] // 576, 1)  # each image keeps its own pixels


def _mixed(layer, x, training=True):
    labels = np.eye(len(x), dtype=np.float32)
    out = layer({"images": x, "labels": labels}, training=training)
    return out["images"].numpy(), out["labels"].numpy()


def test_mixup_is_a_convex_combination_with_the_same_weights():
    images, labels = _mixed(L.MixUp(alpha=0.4, seed=1), PHOTO)
    assert (labels >= 0).all() and np.allclose(labels.sum(1), 1.0)
    assert ((labels > 0).sum(1) <= 2).all() and not np.allclose(labels, np.eye(4))
    np.testing.assert_allclose(images, np.einsum("ij,jhwc->ihwc", labels, PHOTO), atol=1e-3)
    # the weights follow Beta(alpha, alpha): near 0 or 1 for a small alpha
    zeros = np.zeros((400, 1, 1, 1), np.float32)
    spread = {}
    for alpha in (0.1, 5.0):
        w = np.diag(_mixed(L.MixUp(alpha=alpha, seed=2), zeros)[1])
        spread[alpha] = np.abs(w - 0.5).mean()
    assert spread[0.1] > 0.35 and spread[5.0] < 0.15
    # training=False, one image: unchanged
    images, labels = _mixed(L.MixUp(), PHOTO, training=False)
    np.testing.assert_array_equal(images, PHOTO)
    np.testing.assert_allclose(L.MixUp(seed=3)(PHOTO[0]).numpy(), PHOTO[0], rtol=1e-6)


def test_mixup_gradient_is_the_mixing_matrix_transposed():
    x = ek.constant(PHOTO)
    cotangent = RNG.normal(size=PHOTO.shape).astype(np.float32)
    with ek.GradientTape() as tape:
        tape.watch(x)
        out = L.MixUp(alpha=1.0, seed=4)({"images": x, "labels": np.eye(4, dtype=np.float32)})
        loss = ek.reduce_sum(out["images"] * cotangent)
    grad = tape.gradient(loss, x).numpy()
    mixing = out["labels"].numpy()
    np.testing.assert_allclose(grad, np.einsum("ij,ihwc->jhwc", mixing, cotangent), rtol=1e-4)


def test_cutmix_pastes_a_rectangle_and_weights_labels_by_its_area():
    x = np.arange(1.0, 17.0, dtype=np.float32).reshape(16, 1, 1, 1) * np.ones((1, 20, 30, 2))
    x = x.astype(np.float32)
    images, labels = _mixed(L.CutMix(seed=5), x)
    assert np.allclose(labels.sum(1), 1.0) and ((labels > 0).sum(1) <= 2).all()
    pasted_some = False
    for i in range(16):
        other = np.argmax(np.where(np.arange(16) == i, -1, labels[i]))
        if labels[i, other] == 0:  # mixed with itself, or a zero-sized patch
            np.testing.assert_array_equal(images[i], x[i])
            continue
        mask = images[i, :, :, 0] == other + 1
        assert np.isin(images[i], [i + 1, other + 1]).all()
        side = np.sqrt(labels[i, other])  # the patch's sides over the image's
        if not mask.any():  # a patch narrower than a pixel may cover no pixel corner
            assert min(side * 30, side * 20) < 1
            continue
        rows, cols = mask.any(1), mask.any(0)
        np.testing.assert_array_equal(mask, np.outer(rows, cols))  # a rectangle
        assert abs(cols.sum() - side * 30) <= 1 and abs(rows.sum() - side * 20) <= 1
        pasted_some = True
    assert pasted_some
    single, _ = _mixed(L.CutMix(seed=6), x[:1])
    np.testing.assert_array_equal(single, x[:1])


def test_random_erasing_fills_a_rectangle():
    x = np.full((64, 10, 12, 3), 100.0, np.float32)
    out = L.RandomErasing(scale=(0.1, 0.4), fill_value=7.0, seed=6)(x).numpy()
    erased = 0
    for o in out:
        mask = o[..., 0] == 7.0
        assert np.isin(o, [7.0, 100.0]).all() and (o[mask] == 7.0).all()
        if mask.any():
            erased += 1
            rows, cols = mask.any(1), mask.any(0)
            np.testing.assert_array_equal(mask, np.outer(rows, cols))
            assert np.sqrt(0.1) * 12 - 1 <= cols.sum() <= np.sqrt(0.4) * 12 + 1
    assert 12 < erased < 52  # a probability drawn from (0, 1)
    per_channel = L.RandomErasing((1.0, 1.0), fill_value=(1, 2, 3), seed=7)(x).numpy()
    changed = per_channel != 100.0
    assert changed.any() and set(np.unique(per_channel[changed])) <= {1.0, 2.0, 3.0}
    noise = L.RandomErasing((1.0, 1.0), value_range=(0, 150), seed=8)(x).numpy()
    assert noise.min() >= 0 and noise.max() <= 150 and (noise != 100).any()
    np.testing.assert_array_equal(L.RandomErasing(0.0)(x).numpy(), x)


def _strength_zero_candidates(x):
    return {
        "identity": x,
        "blur": L.RandomSharpness((0.0, 0.0))(x).numpy(),
        "one bit": L.RandomPosterization((1, 1))(x).numpy(),
        "inverted": 255.0 - x,
        "auto contrast": L.AutoContrast()(x).numpy(),
        "equalized": L.Equalization()(x).numpy(),
    }


def test_randaugment_at_strength_zero_is_one_fixed_operation():
    x = PHOTO
    candidates = _strength_zero_candidates(x)
    seen = set()
    layer = L.RandAugment(num_ops=1, factor=0.0, seed=9)
    for _ in range(40):
        out = layer(x).numpy()
        names = [n for n, c in candidates.items() if np.allclose(out, c, atol=1e-3)]
        assert names, "not one of the operations' outputs"
        seen.add(names[0])
    assert len(seen) >= 3
    np.testing.assert_array_equal(L.RandAugment(num_ops=0)(x).numpy(), x)
    np.testing.assert_array_equal(L.RandAugment()(x, training=False).numpy(), x)
    out = L.RandAugment(num_ops=3, factor=0.8, seed=10)(x).numpy()
    assert out.shape == x.shape and np.isfinite(out).all()


def test_augmix_mixes_chains_with_the_image():
    x = PHOTO
    np.testing.assert_allclose(L.AugMix(chain_depth=0, seed=1)(x).numpy(), x, rtol=1e-5)
    out = L.AugMix(num_chains=2, chain_depth=2, value_range=(0, 200), seed=2)(x).numpy()
    assert out.min() >= 0 and out.max() <= 200 and not np.allclose(out, np.clip(x, 0, 200))
    assert len(L.AugMix(all_ops=False)._operations) == 7
    np.testing.assert_array_equal(L.AugMix()(x, training=False).numpy(), x)


CONFIGS = [
    (L.RandomShear, {"x_factor": 0.2, "y_factor": (0.1, 0.3), "fill_mode": "wrap", "seed": 1}),
    (L.RandomPerspective, {"factor": 0.5, "scale": 0.3, "interpolation": "nearest", "seed": 2}),
    (L.RandomElasticTransform, {"scale": (0.2, 0.5), "fill_mode": "mirror", "seed": 3}),
    (L.MixUp, {"alpha": 0.5, "seed": 4}),
    (L.CutMix, {"factor": (0.2, 0.8), "seed": 5}),
    (L.RandomErasing, {"factor": 0.5, "fill_value": 3.0, "seed": 6}),
    (L.RandAugment, {"num_ops": 3, "factor": 0.3, "seed": 7}),
    (L.AugMix, {"num_chains": 2, "chain_depth": 1, "factor": 0.2, "seed": 8}),
]


@pytest.mark.parametrize("cls, kwargs", CONFIGS, ids=[c.__name__ for c, _ in CONFIGS])
def test_config_round_trip_and_seeds(cls, kwargs):
    layer = cls(**kwargs)
    config = layer.get_config()
    again = cls.from_config(config)
    assert again.get_config() == config
    restored = ek.keras.layers.deserialize(ek.keras.layers.serialize(layer))
    assert type(restored) is cls and restored.get_config() == config
    assert layer.compute_output_shape((2, 6, 7, 3)) == (2, 6, 7, 3)
    try:
        # Python's random too: AugMix picks its operations with it, as Keras's does
        ek.keras.utils.set_random_seed(12)
        first = cls(**kwargs)(PHOTO).numpy()
        ek.keras.utils.set_random_seed(12)
        np.testing.assert_array_equal(cls.from_config(config)(PHOTO).numpy(), first)
    finally:
        ek.random.set_seed(None)


def test_keras_config_values():
    config = L.RandomShear(0.2).get_config()
    assert config["x_factor"] == (-0.2, 0.2) and config["y_factor"] == (-0.0, 0.0)
    assert L.RandomPerspective().get_config()["factor"] == (0, 1.0)
    assert L.RandomElasticTransform().get_config()["scale"] == (0, 1.0)
    assert L.AugMix().get_config()["factor"] == (0, 0.3)
    assert L.RandAugment().get_config()["factor"] == (0, 0.5)
    assert L.CutMix().get_config()["factor"] == (0, 1.0)
    assert L.RandomErasing().get_config()["scale"] == (0.02, 0.33)


ERRORS = [
    (lambda: L.RandomShear(x_factor=-0.5), ValueError, "Received: input_number=-0.5"),
    (lambda: L.RandomShear(y_factor=[0.1]), ValueError, r"Received: y_factor=\[0.1\]"),
    (lambda: L.RandomShear(fill_mode="mirror"), NotImplementedError, "Unknown `fill_mode`"),
    (lambda: L.RandomShear(interpolation="cubic"), NotImplementedError, "`interpolation`"),
    (lambda: L.RandomPerspective(scale=1.5), ValueError, r"range \[0,1\]. Received: scale"),
    (lambda: L.RandomPerspective(factor=2), ValueError, r"Received: factor=2"),
    (lambda: L.RandomElasticTransform(scale=(2, 3)), ValueError, "The `scale` argument"),
    (lambda: L.RandomElasticTransform(fill_mode="x"), NotImplementedError, "Unknown `fill"),
    (lambda: L.RandomErasing(scale=1.5), ValueError, "The `scale` argument"),
    (lambda: L.RandomErasing(fill_value="x"), ValueError, "`fill_value` argument"),
    (lambda: L.RandomErasing(fill_value=(1, 2)), ValueError, "list of three numbers"),
    (lambda: L.CutMix(factor=1.5), ValueError, r"in the range \[0, 1\]"),
    (lambda: L.RandAugment(factor=-1), ValueError, r"in the range \[0, 1\]"),
    (lambda: L.AugMix(value_range=5), ValueError, "`value_range` argument"),
    (lambda: L.RandomShear(bounding_box_format="xyxy"), NotImplementedError, "RandomShear"),
    (lambda: L.RandAugment(bounding_box_format="xyxy"), NotImplementedError, "bounding_box"),
    (
        lambda: L.MixUp()({"images": PHOTO, "bounding_boxes": {"boxes": np.zeros((4, 1, 4))}}),
        NotImplementedError,
        "MixUp: bounding boxes",
    ),
]


@pytest.mark.parametrize("make, error, message", ERRORS)
def test_errors_carry_keras_messages(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_graph_functions_redraw_and_follow_their_inputs():
    a, b = PHOTO, PHOTO[::-1].copy()
    mixup = L.MixUp(alpha=1.0, seed=1)
    f = ek.function(lambda x: mixup({"images": x, "labels": ek.eye(4)}))
    draws = []
    for x in (a, b, a):
        out = f(x)
        mixing = out["labels"].numpy()
        np.testing.assert_allclose(
            out["images"].numpy(), np.einsum("ij,jhwc->ihwc", mixing, x), atol=1e-3
        )
        draws.append(mixing)
    assert not np.array_equal(draws[0], draws[2])
    for layer in (
        L.CutMix(seed=2),
        L.RandAugment(seed=3),
        L.RandomShear(0.3, 0.3),
        L.RandomElasticTransform(seed=4),
        L.RandomErasing(seed=5),
    ):
        g = ek.function(lambda x, layer=layer: layer(x))
        outs = [g(a).numpy() for _ in range(4)]
        assert any(not np.array_equal(outs[0], o) for o in outs[1:]), layer.name
    candidates = [_strength_zero_candidates(x) for x in (a, b)]
    policy = L.RandAugment(num_ops=1, factor=0.0, seed=6)
    h = ek.function(lambda x: policy(x))
    for _ in range(3):
        for x, c in zip((a, b), candidates):
            out = h(x).numpy()
            assert any(np.allclose(out, v, atol=1e-3) for v in c.values())
