"""keras.config (Keras 3's settings), interactive logging, the run caps, and the grouping of
keras.ops.numpy / keras.ops.nn."""

from __future__ import annotations

import logging
import warnings

import numpy as np
import pytest

import eagerkernel as ek

config = ek.keras.config


def test_settings_are_the_backends_and_policies():
    assert config.backend() == "tensorflow"
    config.set_backend("tensorflow")
    with pytest.raises(ValueError, match="only 'tensorflow' is available"):
        config.set_backend("jax")
    assert config.floatx() == ek.keras.backend.floatx() == "float32"
    assert config.epsilon() == pytest.approx(1e-7)
    assert config.image_data_format() == "channels_last"
    try:
        config.set_dtype_policy("mixed_float16")
        assert config.dtype_policy().name == "mixed_float16"
        assert ek.keras.layers.Dense(2).compute_dtype == "float16"
    finally:
        config.set_dtype_policy(None)  # back to the default, which follows floatx
    assert config.is_traceback_filtering_enabled() is ek.debugging.is_traceback_filtering_enabled()
    assert not config.is_flash_attention_enabled() and not config.is_nnx_enabled()
    config.disable_flash_attention()
    with pytest.raises(NotImplementedError, match="flash attention is not available"):
        config.enable_flash_attention()


def _model():
    model = ek.keras.Sequential([ek.keras.Input((2,)), ek.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    return model


def test_max_epochs_and_steps_cap_fit_with_a_warning():
    x, y = np.ones((64, 2), np.float32), np.ones((64, 1), np.float32)
    model = _model()
    try:
        config.set_max_epochs(2)
        config.set_max_steps_per_epoch(3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            history = model.fit(x, y, epochs=5, batch_size=4, verbose=0)
            model.evaluate(x, y, batch_size=4, verbose=0)
        assert len(history.history["loss"]) == 2 and int(model.optimizer.iterations) == 6
        messages = [str(w.message) for w in caught]
        assert "Limiting epochs to 2" in messages and "Limiting steps_per_epoch to 3" in messages
        assert config.max_epochs() == 2 and config.max_steps_per_epoch() == 3
    finally:
        config.set_max_epochs(None)
        config.set_max_steps_per_epoch(None)
    history = model.fit(x, y, epochs=2, batch_size=32, verbose=0)
    assert int(model.optimizer.iterations) == 10  # 6, then 2 uncapped epochs of 2 batches
    with pytest.raises(ValueError, match=r"expected a positive int or None\. Received: 0"):
        config.set_max_epochs(0)


def test_without_interactive_logging_fit_logs_its_lines(caplog, capsys):
    model = _model()
    x, y = np.ones((8, 2), np.float32), np.ones((8, 1), np.float32)
    config.disable_interactive_logging()
    try:
        assert not config.is_interactive_logging_enabled()
        with caplog.at_level(logging.INFO, logger="eagerkernel"):
            model.fit(x, y, epochs=2, batch_size=4, verbose=1)
    finally:
        config.enable_interactive_logging()
    lines = [r.getMessage() for r in caplog.records if r.name == "eagerkernel"]
    assert [line.split(" - ")[0] for line in lines] == ["Epoch 1/2", "Epoch 2/2"]
    assert all("loss: " in line for line in lines)
    captured = capsys.readouterr()
    assert "Epoch" not in captured.out and "step" not in captured.err  # no bar, no print
    assert config.is_interactive_logging_enabled()


def test_ops_numpy_and_nn_hold_their_groups():
    ops = ek.keras.ops
    assert ops.numpy.cbrt(8.0).numpy() == pytest.approx(2.0)
    assert ops.numpy.conj is ops.conj and ops.numpy.slogdet is ops.slogdet
    np.testing.assert_allclose(ops.nn.sparsemax(ek.constant([1.0, 2.0, 5.0])).numpy(), [0, 0, 1])
    assert ops.nn.polar is ops.polar and ops.nn.relu is ops.relu
    assert "cbrt" in ops.numpy.__all__ and "polar" in ops.nn.__all__


def test_keras_3_names_that_were_missing(tmp_path):
    k = ek.keras
    # keras.metrics' functions are the loss functions
    assert k.metrics.mean_squared_error is k.losses.mean_squared_error
    assert float(k.metrics.log_cosh([0.0], [0.0])) == 0.0
    # activations
    assert k.activations.deserialize("sparsemax") is k.activations.sparsemax
    assert k.activations.deserialize({"class_name": "function", "config": "relu"}) is (
        k.activations.relu
    )
    np.testing.assert_allclose(
        k.activations.sparse_sigmoid(ek.constant([-2.0, 0.0, 0.5, 3.0])).numpy(),
        [0.0, 0.5, 0.75, 1.0],
    )
    assert k.initializers.OrthogonalInitializer is k.initializers.Orthogonal
    assert k.initializers.IdentityInitializer is k.initializers.Identity
    # backend's dtype helpers, with Keras 3's promotion (checked against Keras 3.15)
    assert k.backend.backend() == "tensorflow"
    assert k.backend.result_type("int32", "float16") == "float16"
    assert k.backend.result_type("int8", float) == "float32"
    assert k.backend.result_type("bool", int) == "int32"
    assert k.backend.standardize_dtype(np.float64) == "float64"
    assert k.backend.is_float_dtype("float16") and not k.backend.is_float_dtype("int8")
    assert k.backend.is_int_dtype("uint8") and not k.backend.is_int_dtype("float32")
    first = k.backend.get_uid("t")
    assert k.backend.get_uid("t") == first + 1
    # layers.dot, the functional Dot
    a, b = ek.constant([[1.0, 2.0]]), ek.constant([[3.0, 4.0]])
    assert float(k.layers.dot([a, b], axes=1)[0, 0]) == 11.0
    # random: gamma, beta, binomial (means of many draws; an int seed repeats)
    g = k.random.gamma((20000,), alpha=3.0, seed=4)
    assert float(ek.reduce_mean(g)) == pytest.approx(3.0, rel=0.03)
    np.testing.assert_array_equal(g.numpy(), k.random.gamma((20000,), alpha=3.0, seed=4).numpy())
    assert float(ek.reduce_mean(k.random.beta((20000,), 2.0, 6.0, seed=1))) == pytest.approx(
        0.25, rel=0.03
    )
    draws = k.random.binomial((20000,), counts=10, probabilities=0.3, seed=2)
    assert draws.dtype == ek.float32 and float(ek.reduce_mean(draws)) == pytest.approx(3, rel=0.03)
    # utils: get_source_inputs, split_dataset, save_img; saving.save_weights/load_weights
    x1, x2 = k.Input((2,)), k.Input((2,))
    out = k.layers.Dense(1)(k.layers.add([x1, x2]))
    assert k.utils.get_source_inputs(out) == [x1, x2]
    left, right = k.utils.split_dataset(
        (np.arange(10), np.arange(10) * 10), right_size=3, shuffle=True, seed=0
    )
    pairs = [(int(a), int(b)) for a, b in left] + [(int(a), int(b)) for a, b in right]
    assert len(pairs) == 10 and all(b == 10 * a for a, b in pairs)
    assert sorted(a for a, _ in pairs) == list(range(10)) and len(list(right)) == 3
    with pytest.raises(ValueError, match="exceed the data's 10 samples"):
        k.utils.split_dataset(np.arange(10), left_size=8, right_size=5)
    img = np.zeros((4, 5, 3), np.float32)
    img[1, 2] = 1.0
    k.utils.save_img(tmp_path / "a.png", img)
    back = k.utils.img_to_array(k.utils.load_img(tmp_path / "a.png"))
    assert back.shape == (4, 5, 3) and back[1, 2, 0] == 255 and back[0, 0, 0] == 0
    assert k.preprocessing.image.save_img is k.utils.save_img
    model = k.Sequential([k.Input((2,)), k.layers.Dense(1)])
    k.saving.save_weights(model, tmp_path / "w.weights.h5")
    twin = k.Sequential([k.Input((2,)), k.layers.Dense(1)])
    k.saving.load_weights(twin, tmp_path / "w.weights.h5")
    for u, v in zip(model.get_weights(), twin.get_weights()):
        np.testing.assert_array_equal(u, v)
    with pytest.raises(NotImplementedError, match="skip_mismatch=True is not supported"):
        k.saving.load_weights(twin, tmp_path / "w.weights.h5", skip_mismatch=True)


def test_utils_config_as_keras():
    config = ek.keras.utils.Config(learning_rate=0.1)
    config.seed = 123
    config["momentum"] = 0.9
    assert list(config) == ["learning_rate", "momentum", "seed"]  # sorted, as Keras iterates
    assert config.seed == config["seed"] == 123 and config.get("nothing", 5) == 5
    assert config.to_json() == '{"learning_rate": 0.1, "seed": 123, "momentum": 0.9}'
    assert config.as_dict() == {"learning_rate": 0.1, "seed": 123, "momentum": 0.9}
    with pytest.raises(AttributeError, match=r"Unknown attribute: 'learnin_rate'\. Did you mean"):
        _ = config.learnin_rate
    config.freeze()
    for change in (lambda: setattr(config, "a", 1), lambda: config.update(a=1)):
        with pytest.raises(ValueError, match="Cannot mutate attribute"):
            change()
    config.unfreeze()
    assert config.pop("seed") == 123 and "seed" not in list(config)
    with pytest.raises(AttributeError, match="is a method or property of Config"):
        config.keys = 1
