"""Object-based checkpoints: paths, save/restore, deferred restoration, manager, integrity."""

import json
import os

import numpy as np
import pytest
from safetensors.numpy import load_file

import eagerkernel as ek
from eagerkernel.runtime.core.device import Device
from eagerkernel.runtime.io.checkpoint import CheckpointError, list_variables

layers = ek.keras.layers


def make_model(units=3):
    return ek.keras.Sequential(
        [layers.Dense(units, activation="relu", input_shape=(4,)), layers.Dense(2)]
    )


def train_step(model, optimizer, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(8, 4)).astype(np.float32)
    y = rng.normal(size=(8, 2)).astype(np.float32)
    with ek.GradientTape() as tape:
        loss = ek.reduce_mean(ek.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))


def values(variables):
    return [np.array(v.numpy()) for v in variables]


def test_paths_follow_tensorflow_and_arrays_read_with_safetensors(tmp_path):
    model = make_model()
    opt = ek.keras.optimizers.Adam(0.01)
    train_step(model, opt)
    step = ek.Variable(7, dtype="int64")
    ckpt = ek.train.Checkpoint(model=model, optimizer=opt, step=step)
    path = ckpt.save(str(tmp_path / "ckpt"))
    assert path == str(tmp_path / "ckpt-1")
    arrays = load_file(path + ".safetensors")
    for key in (
        "model/layer-0/kernel",
        "model/layer-0/bias",
        "model/layer-1/kernel",
        "optimizer/iter",
        "step",
        "save_counter",
        "model/layer-0/kernel/.OPTIMIZER_SLOT/optimizer/m",
        "model/layer-1/bias/.OPTIMIZER_SLOT/optimizer/v",
    ):
        assert key in arrays, sorted(arrays)
    np.testing.assert_array_equal(arrays["model/layer-0/kernel"], model.layers[0].kernel.numpy())
    assert int(arrays["step"]) == 7 and int(arrays["optimizer/iter"]) == 1
    # TF's names: the object path and "/.ATTRIBUTES/VARIABLE_VALUE"; shapes are lists.
    assert ("model/layer-0/kernel/.ATTRIBUTES/VARIABLE_VALUE", [4, 3]) in list_variables(path)
    assert os.path.basename(ckpt.save(str(tmp_path / "ckpt"))) == "ckpt-2"
    assert ek.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "ckpt-2")
    state = (tmp_path / "checkpoint").read_text()
    assert 'model_checkpoint_path: "ckpt-2"' in state
    assert 'all_model_checkpoint_paths: "ckpt-1"' in state
    with open(path + ".safetensors", "rb") as f:  # a safetensors file, not a pickle
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
    graph = json.loads(header["__metadata__"]["eagerkernel.graph"])
    assert graph["format_version"] == 1 and graph["library_version"] == ek.__version__
    assert graph["objects"]["model/layer-0"] == "Dense"
    assert len(graph["variables"]["step"]["sha256"]) == 64


def test_subclassed_model_uses_attribute_names_and_containers(tmp_path):
    class Net(ek.keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = layers.Dense(3)
            self.heads = [layers.Dense(1), layers.Dense(1)]
            self.extra = {"scale": ek.Variable(2.0)}

        def call(self, x):
            h = self.hidden(x)
            return self.heads[0](h) * self.extra["scale"] + self.heads[1](h)

    net = Net()
    net(np.zeros((1, 2), np.float32))
    path = ek.train.Checkpoint(net=net).write(str(tmp_path / "w"))
    keys = set(load_file(path + ".safetensors"))
    assert keys == {
        "net/hidden/kernel",
        "net/hidden/bias",
        "net/heads/0/kernel",
        "net/heads/0/bias",
        "net/heads/1/kernel",
        "net/heads/1/bias",
        "net/extra/scale",
    }


def test_save_change_restore_roundtrip_including_metric_global_step_and_nesting(tmp_path):
    model = make_model()
    opt = ek.keras.optimizers.Adam(0.01)
    train_step(model, opt)
    metric = ek.keras.metrics.Mean()
    metric.update_state([1.0, 3.0])
    gstep = ek.Variable(0, trainable=False, name="global_step", dtype="int64")
    gstep.assign(np.int64(12))
    inner = ek.train.Checkpoint(w=ek.Variable([1.0, 2.0]))
    ckpt = ek.train.Checkpoint(model=model, optimizer=opt, metric=metric, step=gstep, inner=inner)
    path = ckpt.save(str(tmp_path / "ckpt"))
    saved = values([*model.variables, *opt.variables, *metric.variables, gstep, inner.w])
    train_step(model, opt, seed=1)
    metric.update_state([100.0])
    gstep.assign(np.int64(0))
    inner.w.assign([0.0, 0.0])
    ckpt.save_counter.assign(np.int64(9))
    status = ckpt.restore(path)
    status.assert_consumed().assert_existing_objects_matched().assert_nontrivial_match()
    now = values([*model.variables, *opt.variables, *metric.variables, gstep, inner.w])
    for a, b in zip(saved, now):
        np.testing.assert_array_equal(a, b)
    assert float(metric.result()) == 2.0
    assert int(ckpt.save_counter.numpy()) == 1  # the counter is restored: next save is -2
    assert ckpt.save(str(tmp_path / "ckpt")).endswith("ckpt-2")


def test_deferred_restoration_into_unbuilt_model_and_optimizer_without_slots(tmp_path):
    model = make_model()
    opt = ek.keras.optimizers.Adam(0.01)
    train_step(model, opt)
    path = ek.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "ckpt"))
    train_step(model, opt, seed=1)  # the reference continues training from the checkpoint
    expected = values(model.variables)

    fresh = ek.keras.Sequential([layers.Dense(3, activation="relu"), layers.Dense(2)])
    fresh_opt = ek.keras.optimizers.Adam(0.01)
    ckpt = ek.train.Checkpoint(model=fresh, optimizer=fresh_opt)
    status = ckpt.restore(path)
    assert not fresh.variables
    with pytest.raises(AssertionError, match="model/layer-0/kernel"):
        status.assert_consumed()  # the values wait for the layers to be built
    status.assert_existing_objects_matched()
    assert int(fresh_opt.iterations.numpy()) == 1
    train_step(fresh, fresh_opt, seed=1)  # builds the layers, then creates the Adam slots
    status.assert_consumed()
    for a, b in zip(expected, values(fresh.variables)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    assert int(fresh_opt.iterations.numpy()) == 2


def test_status_errors_list_unmatched_paths(tmp_path):
    a, b = ek.Variable(1.0), ek.Variable(2.0)
    path = ek.train.Checkpoint(a=a, b=b).write(str(tmp_path / "ab"))
    status = ek.train.Checkpoint(a=ek.Variable(0.0), c=ek.Variable(0.0)).restore(path)
    with pytest.raises(AssertionError) as info:
        status.assert_consumed()
    assert "'b'" in str(info.value) and "'c'" in str(info.value)
    with pytest.raises(AssertionError, match="'c'"):
        status.assert_existing_objects_matched()
    assert status.expect_partial() is status


def test_checkpoint_manager_keeps_newest_and_deletes_oldest(tmp_path):
    v = ek.Variable(0)
    ckpt = ek.train.Checkpoint(v=v)
    manager = ek.train.CheckpointManager(ckpt, str(tmp_path / "run"), max_to_keep=3)
    assert manager.latest_checkpoint is None
    assert ek.train.latest_checkpoint(str(tmp_path / "run")) is None
    assert ek.train.latest_checkpoint(str(tmp_path / "nowhere")) is None
    for i in range(5):
        v.assign(i)
        manager.save()
    names = [os.path.basename(p) for p in manager.checkpoints]
    assert names == ["ckpt-3", "ckpt-4", "ckpt-5"]
    assert sorted(os.listdir(tmp_path / "run")) == [
        "checkpoint",
        "checkpoint.lock",  # the savers' lock file (filelock), kept: removing it would race
        "ckpt-3.safetensors",
        "ckpt-4.safetensors",
        "ckpt-5.safetensors",
    ]
    assert ek.train.latest_checkpoint(str(tmp_path / "run")) == manager.latest_checkpoint
    again = ek.train.CheckpointManager(
        ek.train.Checkpoint(v=v), str(tmp_path / "run"), max_to_keep=3, checkpoint_name="ckpt"
    )
    assert again.checkpoints == manager.checkpoints
    v.assign(-1)
    ckpt.restore(again.latest_checkpoint).assert_consumed()
    assert int(v.numpy()) == 4
    assert ek.Checkpoint is ek.train.Checkpoint


def test_model_save_and_load_weights_use_checkpoints(tmp_path):
    model = make_model()
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((8, 4), np.float32), np.ones((8, 2), np.float32), epochs=1, verbose=0)
    model.save_weights(str(tmp_path / "weights"))
    assert "model/layer-0/kernel" in load_file(str(tmp_path / "weights.safetensors"))
    saved = model.get_weights()
    fresh = make_model()
    fresh.load_weights(str(tmp_path / "weights"))
    for a, b in zip(saved, fresh.get_weights()):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(FileExistsError):
        model.save_weights(str(tmp_path / "weights"), overwrite=False)


# -- integrity --------------------------------------------------------------------------------


def read_bytes(file):
    with open(file, "rb") as f:
        return f.read()


def write_bytes(file, data):
    with open(file, "wb") as f:
        f.write(bytes(data))


def saved_model(tmp_path):
    model = make_model()
    path = ek.train.Checkpoint(model=model).write(str(tmp_path / "m"))
    return model, path + ".safetensors"


def assert_untouched(model, before):
    for a, b in zip(before, values(model.variables)):
        np.testing.assert_array_equal(a, b)


def test_truncated_file_names_file(tmp_path):
    _, file = saved_model(tmp_path)
    data = read_bytes(file)
    other = make_model()
    before = values(other.variables)
    for cut in (4, 100, len(data) - 3):
        write_bytes(file, data[:cut])
        with pytest.raises(CheckpointError, match=r"m\.safetensors.*(corrupt|truncated)"):
            ek.train.Checkpoint(model=other).restore(str(tmp_path / "m"))
    assert_untouched(other, before)


def test_bit_flip_in_data_names_file_and_object_path(tmp_path):
    _, file = saved_model(tmp_path)
    data = bytearray(read_bytes(file))
    data[-1] ^= 0x10  # the last array's last byte
    write_bytes(file, data)
    other = make_model()
    before = values(other.variables)
    with pytest.raises(CheckpointError, match=r"m\.safetensors.*object path 'model/layer-") as e:
        ek.train.Checkpoint(model=other).restore(str(tmp_path / "m"))
    assert "sha256" in str(e.value)
    assert_untouched(other, before)


def test_bit_flip_in_header_is_detected(tmp_path):
    _, file = saved_model(tmp_path)
    data = bytearray(read_bytes(file))
    n = int.from_bytes(data[:8], "little")
    flipped = 0
    for i in range(8, 8 + n, max(1, n // 40)):  # flips all over the header, one at a time
        bad = bytearray(data)
        bad[i] ^= 0x01
        write_bytes(file, bad)
        with pytest.raises(CheckpointError, match=r"m\.safetensors"):
            ek.train.Checkpoint(model=make_model()).restore(str(tmp_path / "m"))
        flipped += 1
    assert flipped >= 40


def test_missing_file(tmp_path):
    with pytest.raises(CheckpointError, match=r"nothing-here\.safetensors does not exist"):
        ek.train.Checkpoint(v=ek.Variable(1.0)).restore(str(tmp_path / "nothing-here"))
    assert issubclass(CheckpointError, ValueError)


def test_wrong_shape_names_both_shapes_and_changes_nothing(tmp_path):
    saved_model(tmp_path)
    other = make_model(units=5)
    extra = ek.Variable(3.0)
    before = values(other.variables)
    with pytest.raises(CheckpointError) as info:
        ek.train.Checkpoint(model=other).restore(str(tmp_path / "m"))
    msg = str(info.value)
    assert "m.safetensors" in msg and "'model/layer-0/kernel'" in msg
    assert "(4, 3)" in msg and "(4, 5)" in msg
    assert_untouched(other, before)
    assert float(extra) == 3.0


def test_wrong_dtype_is_an_error(tmp_path):
    path = ek.train.Checkpoint(v=ek.Variable([1.0, 2.0])).write(str(tmp_path / "v"))
    target = ek.Variable(np.zeros(2, np.float64))
    with pytest.raises(CheckpointError, match=r"'v'.*float32.*float64"):
        ek.train.Checkpoint(v=target).restore(path)
    np.testing.assert_array_equal(target.numpy(), [0.0, 0.0])


def test_checkpoint_of_a_different_model_is_an_error(tmp_path):
    saved_model(tmp_path)
    other = ek.train.Checkpoint(net=ek.Variable(1.0), opt=ek.Variable(2.0))
    with pytest.raises(CheckpointError, match=r"m\.safetensors.*different model"):
        other.restore(str(tmp_path / "m"))


def test_load_weights_restores_the_layers_a_checkpoint_shares(tmp_path):
    # TF 2's serialization guide: a pretrained body's weights, loaded into a model that adds a
    # new head; the head keeps its initial values and the status says what is missing.
    body = ek.keras.Sequential([layers.Dense(3, input_shape=(4,))])
    body.layers[0].kernel.assign(np.arange(12, dtype=np.float32).reshape(4, 3))
    body.save_weights(str(tmp_path / "body"))
    model = make_model()
    head_before = [w.numpy().copy() for w in model.layers[1].weights]
    status = model.load_weights(str(tmp_path / "body"))
    np.testing.assert_array_equal(model.layers[0].kernel.numpy(), body.layers[0].kernel.numpy())
    for w, before in zip(model.layers[1].weights, head_before):
        np.testing.assert_array_equal(w.numpy(), before)
    with pytest.raises(
        AssertionError,
        match=r"without a saved value: \['model/layer-1/bias', 'model/layer-1/kernel'\]",
    ):
        status.assert_consumed()
    with pytest.raises(AssertionError, match="model/layer-1/bias"):
        status.assert_existing_objects_matched()
    # a weight of a shape that differs is still an error, and nothing is assigned
    wide = ek.keras.Sequential([layers.Dense(5, input_shape=(4,)), layers.Dense(2)])
    before = [w.numpy().copy() for w in wide.weights]
    with pytest.raises(CheckpointError, match=r"'model/layer-0/kernel'.*\(4, 3\).*\(4, 5\)"):
        wide.load_weights(str(tmp_path / "body"))
    for w, b in zip(wide.weights, before):
        np.testing.assert_array_equal(w.numpy(), b)


def test_restore_across_devices(tmp_path):
    gpu = Device("GPU", 0, np, virtual=True)
    with ek.device(gpu):
        v = ek.Variable([1.0, 2.0, 3.0])
    assert v.device == "/job:localhost/replica:0/task:0/device:GPU:0"
    path = ek.train.Checkpoint(v=v).write(str(tmp_path / "gpu"))
    cpu = ek.Variable([0.0, 0.0, 0.0])
    ek.train.Checkpoint(v=cpu).restore(path).assert_consumed()
    np.testing.assert_array_equal(cpu.numpy(), [1.0, 2.0, 3.0])
    assert cpu.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    v.assign([9.0, 9.0, 9.0])
    ek.train.Checkpoint(v=v).restore(path)  # back onto the GPU variable: stays there
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])
    assert v.device == "/job:localhost/replica:0/task:0/device:GPU:0"
