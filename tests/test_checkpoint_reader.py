"""`ek.train.load_checkpoint` and `ek.train.list_variables` (follow TensorFlow's: a prefix or a
directory, shapes as lists, `get_tensor` raising NotFoundError for an unknown key)."""

import json

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


V = "/.ATTRIBUTES/VARIABLE_VALUE"  # TensorFlow names a variable's value by its path and this


def test_load_checkpoint_reads_values_shapes_and_dtypes(tmp_path):
    model, path = saved(tmp_path)
    reader = ek.train.load_checkpoint(path)
    shapes = reader.get_variable_to_shape_map()
    assert shapes == {
        "_CHECKPOINTABLE_OBJECT_GRAPH": [],
        "model/layer-0/bias" + V: [3],
        "model/layer-0/kernel" + V: [4, 3],
        "save_counter" + V: [],
        "step" + V: [],
    }
    assert list(shapes) == sorted(shapes)
    dtypes = reader.get_variable_to_dtype_map()
    assert dtypes["step" + V] == ek.int64 and dtypes["model/layer-0/kernel" + V] == ek.float32
    assert dtypes["_CHECKPOINTABLE_OBJECT_GRAPH"] == ek.string
    kernel = model.layers[0].kernel.numpy()
    np.testing.assert_array_equal(reader.get_tensor("model/layer-0/kernel" + V), kernel)
    np.testing.assert_array_equal(reader.get_tensor("model/layer-0/kernel"), kernel)  # the path
    assert int(reader.get_tensor("save_counter" + V)) == 2
    assert reader.has_tensor("step") and reader.has_tensor("step" + V)
    assert not reader.has_tensor("nope")
    with pytest.raises(ek.errors.NotFoundError, match="Key nope not found in checkpoint"):
        reader.get_tensor("nope")
    graph = json.loads(reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
    assert graph["variables"]["step"]["shape"] == [] and graph["objects"]["model"] == "Sequential"


def test_slot_variables_have_tensorflows_slot_names(tmp_path):
    # The checkpoint guide's cell: a slot's name is its variable's, .OPTIMIZER_SLOT, the
    # optimizer's path and the slot name, then .ATTRIBUTES/VARIABLE_VALUE.
    layer = ek.keras.layers.Dense(2)
    opt = ek.keras.optimizers.Adam(0.1)
    x = np.ones((1, 3), np.float32)
    with ek.GradientTape() as tape:
        loss = ek.reduce_sum(layer(x))
    opt.apply_gradients(zip(tape.gradient(loss, layer.trainable_variables), layer.variables))
    path = ek.train.Checkpoint(net=layer, optimizer=opt).write(str(tmp_path / "c"))
    reader = ek.train.load_checkpoint(path)
    key = "net/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE"
    assert reader.get_variable_to_shape_map()[key] == [3, 2]
    assert reader.get_variable_to_dtype_map()[key].name == "float32"
    # Adam's first moment after one step: (1 - beta_1) * gradient, the gradient being ones.
    np.testing.assert_allclose(reader.get_tensor(key), np.full((3, 2), 0.1), rtol=1e-6)
    assert "optimizer/iter" + V in reader.get_variable_to_shape_map()


def test_a_directory_means_its_latest_checkpoint(tmp_path):
    _, path = saved(tmp_path)
    assert ek.train.load_checkpoint(tmp_path).get_tensor("save_counter") == 2
    assert ek.train.list_variables(tmp_path) == ek.train.list_variables(path)
    assert ek.train.list_variables(path)[:2] == [
        ("_CHECKPOINTABLE_OBJECT_GRAPH", []),
        ("model/layer-0/bias" + V, [3]),
    ]
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file or checkpoints"):
        ek.train.load_checkpoint(empty)
    with pytest.raises(ek.errors.NotFoundError):
        ek.train.load_checkpoint(tmp_path / "missing")
