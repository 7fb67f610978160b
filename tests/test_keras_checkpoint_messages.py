"""`ModelCheckpoint(verbose=1)`'s messages as Keras 3.15 prints them (each after an empty
line: "improved from None to ...", "did not improve from ...", "saving model to ...", then
"finished saving model to ..."), the files written, and the clear error for a list of arrays
fed to a single-input model."""

from __future__ import annotations

import os

import numpy as np
import pytest

from eagerkernel import keras

X = np.linspace(-1, 1, 32, dtype=np.float32).reshape(16, 2)
Y = (X.sum(1, keepdims=True) > 0).astype(np.float32)


def small_model():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, activation="sigmoid")])
    model.compile(keras.optimizers.SGD(0.5), "binary_crossentropy", metrics=["accuracy"])
    return model


def drive(callback, logs_per_epoch) -> None:
    """Runs ``callback``'s epoch hooks with the given logs, as `fit` would."""
    callback.set_model(small_model())
    callback.on_train_begin()
    for epoch, logs in enumerate(logs_per_epoch):
        callback.on_epoch_begin(epoch)
        callback.on_epoch_end(epoch, logs)
    callback.on_train_end()


def test_save_best_only_messages_and_files(tmp_path, capsys):
    path = str(tmp_path / "mymodel_{epoch}.keras")
    cb = keras.callbacks.ModelCheckpoint(path, save_best_only=True, verbose=1)
    drive(cb, [{"val_loss": 0.818114}, {"val_loss": 0.9}, {"val_loss": 0.5}])
    first, third = str(tmp_path / "mymodel_1.keras"), str(tmp_path / "mymodel_3.keras")
    assert capsys.readouterr().out == (
        f"\nEpoch 1: val_loss improved from None to 0.81811, saving model to {first}\n"
        f"\nEpoch 1: finished saving model to {first}\n"
        "\nEpoch 2: val_loss did not improve from 0.81811\n"
        f"\nEpoch 3: val_loss improved from 0.81811 to 0.50000, saving model to {third}\n"
        f"\nEpoch 3: finished saving model to {third}\n"
    )
    assert sorted(os.listdir(tmp_path)) == ["mymodel_1.keras", "mymodel_3.keras"]
    assert cb.best == 0.5


def test_mode_max_and_auto_accuracy(tmp_path, capsys):
    path = str(tmp_path / "best.keras")
    for kwargs in ({"mode": "max"}, {}):  # auto: accuracies grow
        cb = keras.callbacks.ModelCheckpoint(
            path, monitor="val_accuracy", save_best_only=True, verbose=1, **kwargs
        )
        drive(cb, [{"val_accuracy": 0.0}, {"val_accuracy": 0.0}, {"val_accuracy": 0.125}])
        assert capsys.readouterr().out.splitlines()[1::2] == [
            f"Epoch 1: val_accuracy improved from None to 0.00000, saving model to {path}",
            f"Epoch 1: finished saving model to {path}",
            "Epoch 2: val_accuracy did not improve from 0.00000",
            f"Epoch 3: val_accuracy improved from 0.00000 to 0.12500, saving model to {path}",
            f"Epoch 3: finished saving model to {path}",
        ]
    assert os.listdir(tmp_path) == ["best.keras"]


def test_mode_min_with_initial_value_threshold(tmp_path, capsys):
    path = str(tmp_path / "m.keras")
    cb = keras.callbacks.ModelCheckpoint(
        path, monitor="loss", mode="min", save_best_only=True, initial_value_threshold=0.5
    )
    cb.verbose = 1
    drive(cb, [{"loss": 0.6}, {"loss": 0.25}])
    assert capsys.readouterr().out.splitlines()[1::2] == [
        "Epoch 1: loss did not improve from 0.50000",
        f"Epoch 2: loss improved from 0.50000 to 0.25000, saving model to {path}",
        f"Epoch 2: finished saving model to {path}",
    ]


def test_every_epoch_messages(tmp_path, capsys):
    path = str(tmp_path / "all_{epoch}.keras")
    drive(keras.callbacks.ModelCheckpoint(path, verbose=1), [{"loss": 1.0}, {"loss": 2.0}])
    lines = capsys.readouterr().out.splitlines()
    assert lines[::2] == ["", "", "", ""]
    assert lines[1::2] == [
        f"Epoch 1: saving model to {tmp_path / 'all_1.keras'}",
        f"Epoch 1: finished saving model to {tmp_path / 'all_1.keras'}",
        f"Epoch 2: saving model to {tmp_path / 'all_2.keras'}",
        f"Epoch 2: finished saving model to {tmp_path / 'all_2.keras'}",
    ]
    assert sorted(os.listdir(tmp_path)) == ["all_1.keras", "all_2.keras"]


def test_save_weights_only_messages_say_model_too(tmp_path, capsys):
    path = str(tmp_path / "w.weights.h5")
    cb = keras.callbacks.ModelCheckpoint(path, save_weights_only=True, verbose=1)
    drive(cb, [{"loss": 1.0}])
    assert capsys.readouterr().out.splitlines()[1::2] == [  # Keras 3: "model" for weights too
        f"Epoch 1: saving model to {path}",
        f"Epoch 1: finished saving model to {path}",
    ]
    assert os.listdir(tmp_path) == ["w.weights.h5.safetensors"]  # see Model.save_weights
    best = keras.callbacks.ModelCheckpoint(
        path, save_weights_only=True, save_best_only=True, verbose=1
    )
    drive(best, [{"val_loss": 0.25}, {"val_loss": 0.5}])
    assert capsys.readouterr().out.splitlines()[1::2] == [
        f"Epoch 1: val_loss improved from None to 0.25000, saving model to {path}",
        f"Epoch 1: finished saving model to {path}",
        "Epoch 2: val_loss did not improve from 0.25000",
    ]


def test_missing_monitor_warns_and_saves_as_keras_3(tmp_path, capsys):
    path = str(tmp_path / "m.keras")
    cb = keras.callbacks.ModelCheckpoint(
        path, monitor="val_nothing", save_best_only=True, verbose=1
    )
    with pytest.warns(
        UserWarning, match=r"^Can save best model only with val_nothing available\.$"
    ):
        drive(cb, [{"loss": 1.0}])
    assert capsys.readouterr().out == f"\nEpoch 1: finished saving model to {path}\n"
    assert os.listdir(tmp_path) == ["m.keras"]


def test_verbose_0_prints_nothing(tmp_path, capsys):
    cb = keras.callbacks.ModelCheckpoint(str(tmp_path / "m.keras"), save_best_only=True)
    drive(cb, [{"val_loss": 1.0}, {"val_loss": 2.0}])
    assert capsys.readouterr().out == ""
    assert os.listdir(tmp_path) == ["m.keras"]


def test_messages_in_fit_and_with_save_freq(tmp_path, capsys):
    model = small_model()
    path = str(tmp_path / "v.keras")
    cb = keras.callbacks.ModelCheckpoint(path, save_best_only=True, verbose=1)
    model.fit(X, Y, validation_data=(X, Y), epochs=2, verbose=0, callbacks=[cb])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("Epoch 1: val_loss improved from None to ")
    assert lines[1].endswith(f", saving model to {path}")
    assert lines[3] == f"Epoch 1: finished saving model to {path}"
    assert lines[5].startswith("Epoch 2: val_loss ")
    # Keras 3.15, 16 samples in one batch an epoch, save_freq=2: "Epoch 2: saving model to
    # b1.keras" (the batch is 1-based)
    every_2 = keras.callbacks.ModelCheckpoint(str(tmp_path / "b{batch}.keras"), save_freq=2)
    every_2.verbose = 1
    model.fit(X, Y, epochs=2, verbose=0, callbacks=[every_2])
    assert capsys.readouterr().out.splitlines()[1::2] == [
        f"Epoch 2: saving model to {tmp_path / 'b1.keras'}",
        f"Epoch 2: finished saving model to {tmp_path / 'b1.keras'}",
    ]


def test_messages_go_to_logging_when_interactive_logging_is_off(tmp_path, caplog):
    keras.config.disable_interactive_logging()
    try:
        with caplog.at_level("INFO", logger="eagerkernel"):
            drive(keras.callbacks.ModelCheckpoint(str(tmp_path / "m.keras"), verbose=1), [{}])
    finally:
        keras.config.enable_interactive_logging()
    assert [r.getMessage() for r in caplog.records] == [
        f"\nEpoch 1: saving model to {tmp_path / 'm.keras'}",
        f"\nEpoch 1: finished saving model to {tmp_path / 'm.keras'}",
    ]


# -- a list of arrays fed to a single-input model --------------------------------------------
def test_list_of_arrays_into_a_single_input_sequential_names_the_layer():
    model = keras.Sequential(
        [keras.Input((5, 3)), keras.layers.LSTM(4, name="lstm"), keras.layers.Dense(1)]
    )
    model.compile("adam", "mse")
    two = [np.ones((8, 5, 3)), np.ones((8, 5, 3))]
    message = (
        'Layer "lstm" expects 1 input(s), but it received 2 input tensors. Inputs received: '
        "['Tensor(shape=(8, 5, 3))', 'Tensor(shape=(8, 5, 3))']"
    )
    for run in (
        lambda: model.fit(two, np.ones((8, 1)), verbose=0),
        lambda: model.predict(two, verbose=0),
        lambda: model(two),
    ):
        with pytest.raises(ValueError) as info:
            run()
        assert str(info.value) == message


def test_structured_input_into_a_built_dense_layer():
    dense = keras.layers.Dense(2, name="d")
    dense.build((None, 3))
    with pytest.raises(ValueError) as info:
        dense({"a": np.ones((4, 3), np.float32)})
    assert str(info.value) == (
        'Layer "d" expects 1 input(s), but it received its input inside a dict. Inputs '
        "received: {'a': 'Tensor(shape=(4, 3))'}"
    )
