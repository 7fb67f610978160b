"""Divergences found running TensorFlow's basic tutorials (quickstart, keras/classification,
keras/regression, load_data, images/classification, customization) against Keras 3.15."""

import numpy as np

import eagerkernel as ek

K = ek.keras.optimizers


def test_optimizer_config_has_every_base_key():
    # load_data/numpy prints `model.optimizer.get_config()`; Keras 3.15's RMSprop() gives
    # (oracle, /tmp/tfvenv) these base keys, None included, then the subclass's own.
    config = K.RMSprop().get_config()
    expected = {
        "weight_decay": None,
        "clipnorm": None,
        "global_clipnorm": None,
        "clipvalue": None,
        "use_ema": False,
        "ema_momentum": 0.99,
        "ema_overwrite_frequency": None,
        "loss_scale_factor": None,
        "gradient_accumulation_steps": None,
        "rho": 0.9,
        "momentum": 0.0,
        "epsilon": 1e-07,
        "centered": False,
    }
    assert {k: config[k] for k in expected} == expected
    assert np.isclose(config["learning_rate"], 0.001)
    assert list(config)[2:11] == list(expected)[:9]  # Keras 3's order


def test_optimizer_config_round_trips_set_values():
    opt = K.Adam(learning_rate=0.01, clipnorm=1.0, use_ema=True, ema_momentum=0.9)
    config = opt.get_config()
    assert config["clipnorm"] == 1.0 and config["use_ema"] is True
    assert config["ema_momentum"] == 0.9 and config["clipvalue"] is None
    again = K.Adam.from_config(config)
    assert again.get_config() == config


def test_rmsprop_steps_match_keras():
    # quickstart-style step: var 1.0, grads 2.0 then -1.0, RMSprop(0.01); Keras 3.15 (oracle)
    # gives 0.96837723 then 0.98312145 (closed form: rms=0.4 -> 1 - 0.02/sqrt(0.4+1e-7);
    # rms=0.36+0.1=0.46 -> + 0.01/sqrt(0.46+1e-7)).
    v = ek.Variable([1.0])
    opt = K.RMSprop(learning_rate=0.01)
    opt.apply_gradients([(ek.constant([2.0]), v)])
    assert np.isclose(float(v.numpy()[0]), 1 - 0.02 / np.sqrt(0.4 + 1e-7), atol=1e-7)
    opt.apply_gradients([(ek.constant([-1.0]), v)])
    want = 1 - 0.02 / np.sqrt(0.4 + 1e-7) + 0.01 / np.sqrt(0.46 + 1e-7)
    assert np.isclose(float(v.numpy()[0]), want, atol=1e-6)


# A uint8 image batch, (2, 6, 8, 3): (i * 7) % 256 in C order.
U8 = (np.arange(2 * 6 * 8 * 3) * 7 % 256).astype(np.uint8).reshape(2, 6, 8, 3)


def test_center_and_random_crop_cast_to_compute_dtype():
    # Keras 3.15 (oracle): CenterCrop(4, 4)(U8) is float32 [210. 217. 224. 231. 238.];
    # RandomCrop(4, 4) in training returns float32 too.
    out = ek.keras.layers.CenterCrop(4, 4)(U8)
    assert out.dtype == ek.float32 and out.shape == (2, 4, 4, 3)
    np.testing.assert_array_equal(out.numpy().ravel()[:5], [210, 217, 224, 231, 238])
    crop = ek.keras.layers.RandomCrop(4, 4, seed=1)(U8, training=True)
    assert crop.dtype == ek.float32 and crop.shape == (2, 4, 4, 3)
    assert set(crop.numpy().ravel()) <= set(U8.astype(np.float32).ravel())  # a crop, not a resize


def test_a_sequential_with_an_input_converts_numbers_to_its_dtype():
    # Keras 3.15 (the oracle): Sequential([Input((3,)), Identity()]) on uint8 data gives
    # float32 [1. 2. 3.], as a functional model converts its inputs to the Input's dtype;
    # an int Input keeps ints, and strings reach a string Input as they are.
    keras = ek.keras
    u8 = np.array([[1, 2, 3]], np.uint8)
    out = keras.Sequential([keras.Input((3,)), keras.layers.Identity()])(u8)
    assert out.dtype == ek.float32 and out.numpy().tolist() == [[1.0, 2.0, 3.0]]
    out = keras.Sequential([keras.Input((3,), dtype="int32"), keras.layers.Identity()])(u8)
    assert out.dtype == ek.int32
    lookup = keras.Sequential(
        [keras.Input((1,), dtype="string"), keras.layers.StringLookup(vocabulary=["a"])]
    )
    assert lookup(np.array([["a"]])).numpy().tolist() == [[1]]
