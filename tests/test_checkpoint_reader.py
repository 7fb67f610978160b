"""`ek.train.load_checkpoint` and `ek.train.list_variables` (follow TensorFlow's: a prefix or a
directory, shapes as lists, `get_tensor` raising NotFoundError for an unknown key)."""

import numpy as np
import pytest

import eagerkernel as ek


def saved(tmp_path):
    model = ek.keras.Sequential([ek.keras.layers.Dense(3, input_shape=(4,))])
    model(np.ones((1, 4), np.float32))
    ckpt = ek.train.Checkpoint(model=model, step=ek.Variable(5, dtype="int64"))
    manager = ek.train.CheckpointManager(ckpt, tmp_path, max_to_keep=2)
    manager.save()
    return model, manager.save()


def test_load_checkpoint_reads_values_shapes_and_dtypes(tmp_path):
    model, path = saved(tmp_path)
    reader = ek.train.load_checkpoint(path)
    shapes = reader.get_variable_to_shape_map()
    assert shapes == {
        "model/layer-0/bias": [3],
        "model/layer-0/kernel": [4, 3],
        "save_counter": [],
        "step": [],
    }
    dtypes = reader.get_variable_to_dtype_map()
    assert dtypes["step"] == ek.int64 and dtypes["model/layer-0/kernel"] == ek.float32
    np.testing.assert_array_equal(
        reader.get_tensor("model/layer-0/kernel"), model.layers[0].kernel.numpy()
    )
    assert int(reader.get_tensor("save_counter")) == 2
    assert reader.has_tensor("step") and not reader.has_tensor("nope")
    with pytest.raises(ek.errors.NotFoundError, match="Key nope not found in checkpoint"):
        reader.get_tensor("nope")


def test_a_directory_means_its_latest_checkpoint(tmp_path):
    _, path = saved(tmp_path)
    assert ek.train.load_checkpoint(tmp_path).get_tensor("save_counter") == 2
    assert ek.train.list_variables(tmp_path) == ek.train.list_variables(path)
    assert ek.train.list_variables(path)[0] == ("model/layer-0/bias", [3])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file or checkpoints"):
        ek.train.load_checkpoint(empty)
    with pytest.raises(ek.errors.NotFoundError):
        ek.train.load_checkpoint(tmp_path / "missing")
