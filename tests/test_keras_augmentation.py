"""Keras's image augmentation and resizing layers (keras/layers/augmentation.py): the
projective transform against closed forms (rotations by quarter turns are np.rot90, and a
linear ramp is sampled exactly by bilinear interpolation), its gradient against finite
differences, fill modes, training-only randomness with seeds, and a model that uses them."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.keras.layers.augmentation import transform
from eagerkernel.testing import check_gradients

L = ek.keras.layers
IMG = np.arange(16.0).reshape(1, 4, 4, 1)


def test_quarter_turns_are_np_rot90_counter_clockwise():
    for factor, k in ((0.25, 1), (-0.25, -1), (0.5, 2)):
        layer = L.RandomRotation((factor, factor), fill_mode="constant")
        out = layer(ek.constant(IMG), training=True).numpy()[0, :, :, 0]
        # within float32 rounding: Keras's matrix is float32 (cos(pi / 2) = -4.4e-8)
        np.testing.assert_allclose(out, np.rot90(IMG[0, :, :, 0], k), atol=1e-5)


def test_bilinear_sampling_of_a_ramp_is_exact_for_zoom_and_translation():
    ramp = np.tile(np.arange(8.0), (8, 1)).reshape(1, 8, 8, 1)  # value = x
    zoom = L.RandomZoom((-0.5, -0.5), fill_mode="nearest")  # in 2x: x_in = 0.5 x + 1.75
    out = zoom(ek.constant(ramp), training=True).numpy()[0, :, :, 0]
    np.testing.assert_allclose(out[0], 0.5 * np.arange(8.0) + 1.75)
    shift = L.RandomTranslation(0.0, (0.25, 0.25), fill_mode="constant", fill_value=-1.0)
    out = shift(ek.constant(ramp), training=True).numpy()[0, 0, :, 0]
    np.testing.assert_allclose(out, [-1, -1, 0, 1, 2, 3, 4, 5])  # moved right by 2


def test_fill_modes_follow_the_documented_extensions():
    row = np.arange(4.0).reshape(1, 1, 4, 1)
    left3 = np.array([[1.0, 0, -3, 0, 1, 0, 0, 0]])  # reads x - 3
    expected = {
        "constant": [0, 0, 0, 0],
        "nearest": [0, 0, 0, 0],
        "reflect": [2, 1, 0, 0],  # d c b a | a b c d
        "wrap": [1, 2, 3, 0],  # a b c d | a b c d
    }
    for mode, want in expected.items():
        got = transform(ek.constant(row), left3, fill_mode=mode, interpolation="nearest")
        np.testing.assert_array_equal(got.numpy().ravel(), want, err_msg=mode)
    with pytest.raises(ValueError, match="fill_mode must be one of"):
        transform(ek.constant(row), left3, fill_mode="mirror")


def test_transform_gradient_is_the_adjoint_of_the_sampling():
    rng = np.random.default_rng(0)
    images = rng.normal(size=(2, 5, 6, 2))
    t = np.array([[0.9, 0.1, 0.4, -0.2, 1.1, 0.3, 0.0, 0.0], [1.0, 0.0, -0.6, 0.0, 1.0, 0.7, 0, 0]])
    for mode in ("reflect", "constant"):
        check_gradients(lambda x, m=mode: transform(x, t, fill_mode=m) ** 2, images)


def test_random_layers_act_only_in_training_and_follow_their_seed():
    x = ek.constant(np.random.default_rng(1).uniform(0, 255, (3, 8, 8, 3)).astype(np.float32))
    for layer in (
        L.RandomFlip(seed=1),
        L.RandomRotation(0.2, seed=1),
        L.RandomZoom(0.3, seed=1),
        L.RandomTranslation(0.2, 0.2, seed=1),
        L.RandomContrast(0.5, seed=1),
        L.RandomBrightness(0.3, seed=1),
    ):
        inference = layer(x, training=False).numpy()
        np.testing.assert_array_equal(inference, x.numpy(), err_msg=type(layer).__name__)
        # Keras 3: a plain call augments (call's training defaults to True)
        plain = type(layer).from_config(layer.get_config())(x).numpy()
        assert not np.array_equal(plain, x.numpy()), type(layer).__name__
        ek.random.set_seed(7)
        a = layer(x, training=True).numpy()
        ek.random.set_seed(7)
        fresh = type(layer).from_config(layer.get_config())
        b = fresh(x, training=True).numpy()
        np.testing.assert_array_equal(a, b, err_msg=type(layer).__name__)
        assert not np.array_equal(a, x.numpy()), type(layer).__name__


def test_flip_contrast_brightness_values():
    x = ek.constant(np.random.default_rng(2).uniform(0, 255, (6, 4, 5, 1)).astype(np.float32))
    out = L.RandomFlip("horizontal", seed=3)(x, training=True).numpy()
    for o, i in zip(out, x.numpy()):
        assert np.array_equal(o, i) or np.array_equal(o, i[:, ::-1])
    bright = L.RandomBrightness((0.1, 0.1), value_range=(0, 255))(x, training=True).numpy()
    np.testing.assert_allclose(bright, np.clip(x.numpy() + 25.5, 0, 255), rtol=1e-6)
    contrast = L.RandomContrast((0.5, 0.5), seed=1)(x, training=True).numpy()
    mean = x.numpy().mean(axis=(1, 2), keepdims=True)
    factor = (contrast - mean) / (x.numpy() - mean)
    assert np.all(
        (factor > 0.5 - 1e-3) & (factor < 1.5 + 1e-3) | (contrast == 0) | (contrast == 255)
    )
    with pytest.raises(ValueError, match=r"factor must be in \[-1, 1\]"):
        L.RandomBrightness(1.5)


def test_crops_and_resizing_shapes_and_values():
    x = ek.constant(np.arange(2 * 6 * 6 * 1, dtype=np.float32).reshape(2, 6, 6, 1))
    crop = L.RandomCrop(4, 3, seed=0)
    windows = {tuple(crop(x, training=True).numpy()[0, :, 0, 0]) for _ in range(20)}
    assert len(windows) > 1 and all(len(w) == 4 for w in windows)  # random 4 x 3 windows
    # At inference (Keras's documentation): the largest centred 4:3 window (6 x 4.5 -> rows
    # 0-5, columns 1-4), resized to 4 x 3; TensorFlow's numbers (ek.image.resize).
    window = x[:, :, 1:5]
    np.testing.assert_allclose(
        crop(x, training=False).numpy(), ek.image.resize(window, [4, 3]).numpy(), rtol=1e-6
    )
    assert L.Resizing(3, 9)(x).shape == (2, 3, 9, 1)
    np.testing.assert_array_equal(L.CenterCrop(2, 2)(x).numpy(), x.numpy()[:, 2:4, 2:4])
    big = L.CenterCrop(8, 8)(x)  # a smaller input: smart_resize, as Keras 3
    np.testing.assert_allclose(big.numpy(), ek.image.resize(x, [8, 8]).numpy(), rtol=1e-6)
    # Wider than tall and too low: the centre square, resized (Keras 3.15's numbers).
    wide = ek.constant(np.arange(12.0, dtype=np.float32).reshape(2, 6, 1))
    np.testing.assert_allclose(
        L.CenterCrop(4, 4)(wide).numpy()[:, :, 0],
        [
            [2.0, 2.25, 2.75, 3.0],
            [3.5, 3.75, 4.25, 4.5],
            [6.5, 6.75, 7.25, 7.5],
            [8.0, 8.25, 8.75, 9.0],
        ],
        rtol=1e-6,
    )


def test_a_models_plain_call_augments_and_predict_does_not():
    # TensorFlow 2.21 (Keras 3): model(x) augments, predict(x) does not.
    x = ek.reshape(ek.range(16.0), [1, 4, 4, 1])
    model = ek.keras.Sequential([L.RandomFlip("horizontal", seed=2)])
    assert any(not np.array_equal(model(x).numpy(), x.numpy()) for _ in range(10))
    np.testing.assert_array_equal(model.predict(x, verbose=0), x.numpy())


def test_augmentation_pipeline_in_a_model_trains():
    ek.random.set_seed(0)
    data_augmentation = ek.keras.Sequential(
        [L.RandomFlip("horizontal"), L.RandomRotation(0.1), L.RandomZoom(0.1)]
    )
    model = ek.keras.Sequential(
        [
            L.Input((8, 8, 1)),
            data_augmentation,
            L.Rescaling(1.0 / 255),
            L.Conv2D(2, 3, activation="relu"),
            L.Flatten(),
            L.Dense(2),
        ]
    )
    model.compile("adam", ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    x = np.random.default_rng(0).uniform(0, 255, (16, 8, 8, 1)).astype(np.float32)
    y = (x.mean(axis=(1, 2, 3)) > 127).astype(np.int64)
    history = model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    # inference does not augment: two predictions agree
    np.testing.assert_array_equal(model.predict(x, verbose=0), model.predict(x, verbose=0))
