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
        config.set_dtype_policy("float32")
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
