"""Keras 3's saving hooks in .keras files: save_own_variables/load_own_variables (per-layer
stores), save_assets/load_assets (assets/<layer path>/), and files of the earlier layout."""

import json
import os
import zipfile

import numpy as np
import pytest
from safetensors.numpy import load as load_bytes

import eagerkernel as ek

keras = ek.keras
layers = keras.layers


def rand(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def weights_of(path):
    with zipfile.ZipFile(path) as zf:
        return load_bytes(zf.read("model.weights.safetensors"))


# -- keras-io customizing_saving_and_serialization.py: LayerWithCustomVariable ----------------
@keras.saving.register_keras_serializable(package="hooks_test")
class LayerWithCustomVariable(layers.Dense):
    def __init__(self, units, **kwargs):
        super().__init__(units, **kwargs)
        self.my_variable = ek.Variable(
            np.random.random((units,)), name="my_variable", dtype="float32"
        )

    def save_own_variables(self, store):
        super().save_own_variables(store)
        store["variables"] = self.my_variable.numpy()

    def load_own_variables(self, store):
        self.my_variable.assign(store["variables"])
        for i, v in enumerate(self.weights):
            v.assign(store[f"{i}"])

    def call(self, inputs):
        return super().call(inputs) + self.my_variable


def test_default_store_keys_are_the_layers_own_variables_in_weights_order(tmp_path):
    inner = layers.Dense(3, name="inner")
    model = keras.Sequential([keras.Input((4,)), layers.Dense(5), layers.BatchNormalization()])
    model.add(inner)
    model.save(tmp_path / "m.keras")
    arrays = weights_of(tmp_path / "m.keras")
    assert sorted(arrays) == [
        "layers/batch_normalization/vars/0",  # gamma, beta, moving mean, moving variance
        "layers/batch_normalization/vars/1",
        "layers/batch_normalization/vars/2",
        "layers/batch_normalization/vars/3",
        "layers/dense/vars/0",
        "layers/dense/vars/1",
        "layers/dense_1/vars/0",  # by class name, not by the layer's name
        "layers/dense_1/vars/1",
    ]
    bn = model.layers[1]
    for i, v in enumerate(bn.weights):
        np.testing.assert_array_equal(arrays[f"layers/batch_normalization/vars/{i}"], v.numpy())
    np.testing.assert_array_equal(arrays["layers/dense_1/vars/0"], inner.kernel.numpy())


def test_nested_layers_get_their_attribute_paths(tmp_path):
    @keras.saving.register_keras_serializable(package="hooks_test")
    class Block(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.proj = layers.Dense(2)
            self.heads = [layers.Dense(1), layers.Dense(1)]
            self.scale = self.add_weight(name="scale", shape=(), initializer="ones")

        def call(self, x):
            h = self.proj(x) * self.scale
            return self.heads[0](h) + self.heads[1](h)

    inputs = keras.Input((3,))
    model = keras.Model(inputs, Block(name="block")(inputs))
    model.save(tmp_path / "m.keras")
    assert sorted(weights_of(tmp_path / "m.keras")) == [
        "layers/block/heads/dense/vars/0",
        "layers/block/heads/dense/vars/1",
        "layers/block/heads/dense_1/vars/0",
        "layers/block/heads/dense_1/vars/1",
        "layers/block/proj/vars/0",
        "layers/block/proj/vars/1",
        "layers/block/vars/0",  # the block's own weight only
    ]
    loaded = keras.models.load_model(tmp_path / "m.keras")
    x = rand(4, 3)
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))


def test_layer_overriding_the_hooks_round_trips_its_variable(tmp_path):
    model = keras.Sequential([keras.Input((10,)), LayerWithCustomVariable(1)])
    model.compile(optimizer="adam", loss="mean_squared_error")
    model.fit(rand(8, 10), rand(8, 1, seed=1), verbose=0)
    model.layers[0].my_variable.assign([7.5])
    model.save(tmp_path / "custom_vars_model.keras")
    arrays = weights_of(tmp_path / "custom_vars_model.keras")
    assert sorted(arrays) == [
        "layers/layer_with_custom_variable/vars/0",
        "layers/layer_with_custom_variable/vars/1",
        "layers/layer_with_custom_variable/vars/2",
        "layers/layer_with_custom_variable/vars/variables",
    ]
    np.testing.assert_array_equal(arrays["layers/layer_with_custom_variable/vars/variables"], [7.5])
    restored = keras.models.load_model(tmp_path / "custom_vars_model.keras")
    np.testing.assert_array_equal(restored.layers[0].my_variable.numpy(), [7.5])
    for a, b in zip(model.weights, restored.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # The optimizer's state sits in the checkpoint next to the stores: training continues.
    assert int(restored.optimizer.iterations) == 1
    x, y = rand(8, 10, seed=2), rand(8, 1, seed=3)
    h1 = model.fit(x, y, epochs=2, verbose=0, shuffle=False).history
    h2 = restored.fit(x, y, epochs=2, verbose=0, shuffle=False).history
    assert h1 == h2


def test_what_a_store_is_given_and_what_load_receives(tmp_path):
    seen = {}

    @keras.saving.register_keras_serializable(package="hooks_test")
    class Counter(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.count = 0

        def call(self, x):
            self.count += 1
            return x

        def save_own_variables(self, store):
            store["count"] = np.int64(self.count)
            store["history"] = np.arange(self.count, dtype=np.float64)

        def load_own_variables(self, store):
            seen["keys"], seen["len"] = list(store.keys()), len(store)
            self.count = int(store["count"])
            with pytest.raises(KeyError, match=r"no entry 'missing'.*holds \['count', 'history'\]"):
                store["missing"]

    model = keras.Sequential([keras.Input((2,)), Counter()])
    model.predict(np.ones((1, 2)), verbose=0)
    model.predict(np.ones((1, 2)), verbose=0)
    model.save(tmp_path / "m.keras")
    count = model.layers[0].count
    history = weights_of(tmp_path / "m.keras")["layers/counter/vars/history"]
    np.testing.assert_array_equal(history, np.arange(count, dtype=np.float64))
    loaded = keras.models.load_model(tmp_path / "m.keras")
    assert count >= 2 and loaded.layers[0].count == count
    assert seen == {"keys": ["count", "history"], "len": 2}


def test_bad_store_writes_raise_and_leave_the_old_file(tmp_path):
    class Bad(layers.Layer):
        def __init__(self, key, value, **kwargs):
            super().__init__(**kwargs)
            self.key, self.value = key, value

        def save_own_variables(self, store):
            store[self.key] = self.value

        def get_config(self):
            return {**super().get_config(), "key": self.key, "value": None}

    path = tmp_path / "m.keras"
    keras.Sequential([keras.Input((2,)), layers.Dense(1)]).save(path)
    before = path.read_bytes()
    for key, value, error, match in [
        (
            "vocab",
            np.array(["a", "b"]),
            TypeError,
            r"store\['vocab'\] must be an array of numbers.*<U1.*save_assets",
        ),
        ("a/b", 1.0, ValueError, r"layer 'bad' \(path 'layers/bad'\).*Received: key='a/b'"),
        (3, 1.0, ValueError, r"Received: key=3"),
    ]:
        model = keras.Sequential([keras.Input((2,)), Bad(key, value, name="bad")])
        with pytest.raises(error, match=match):
            model.save(path)
        assert path.read_bytes() == before


def test_load_checks_count_and_shapes_and_names_the_layer(tmp_path):
    layer = layers.Dense(2, name="d")
    layer(np.ones((1, 3), np.float32))
    with pytest.raises(
        ValueError,
        match=r"Layer 'd' expected 2 variables, but received 3 .*"
        r"Expected: \['d/kernel:0', 'd/bias:0'\]",
    ):
        layer.load_own_variables({"0": np.zeros((3, 2)), "1": np.zeros(2), "2": np.zeros(1)})
    kernel = layer.kernel.numpy()
    with pytest.raises(
        ValueError,
        match=r"Layer 'd' expected variable 'd/kernel:0' \(store key '0'\) of shape "
        r"\(3, 2\), but received shape \(4, 2\)",
    ):
        layer.load_own_variables({"0": np.zeros((4, 2)), "1": np.zeros(2)})
    np.testing.assert_array_equal(layer.kernel.numpy(), kernel)  # nothing assigned
    unbuilt = layers.Dense(2, name="never_built")
    with pytest.raises(
        ValueError,
        match=r"(?s)Layer .never_built. was never built.*lists 2 variables.*build_from_config",
    ):
        unbuilt.load_own_variables({"0": np.zeros((3, 2)), "1": np.zeros(2)})
    # Through load_model, the .keras file is named too.
    inputs = keras.Input((3,))
    model = keras.Model(inputs, layers.Dense(2, name="d")(inputs))
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as zf:
        entries = {n: zf.read(n) for n in zf.namelist()}
    config = json.loads(entries["config.json"])
    config["config"]["layers"][1]["config"]["units"] = 5  # another model, same layer names
    entries["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(tmp_path / "other.keras", "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    with pytest.raises(
        ValueError,
        match=r"other\.keras.*Layer 'd' expected variable '(d/)?kernel:0'.*\(3, 5\).*\(3, 2\)",
    ):
        keras.models.load_model(tmp_path / "other.keras")


# -- keras-io customizing_saving_and_serialization.py: LayerWithCustomAssets -------------------
@keras.saving.register_keras_serializable(package="hooks_test")
class LayerWithCustomAssets(layers.Dense):
    def __init__(self, vocab=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.vocab = vocab

    def save_assets(self, inner_path):
        with open(os.path.join(inner_path, "vocabulary.txt"), "w") as f:
            f.write(self.vocab)

    def load_assets(self, inner_path):
        with open(os.path.join(inner_path, "vocabulary.txt")) as f:
            text = f.read()
        self.vocab = text.replace("<unk>", "little")


def test_assets_are_stored_in_the_zip_and_given_back_after_the_weights(tmp_path):
    model = keras.Sequential([LayerWithCustomAssets(vocab="Mary had a <unk> lamb.", units=5)])
    model(rand(10, 10))
    model.save(tmp_path / "custom_assets_model.keras")
    with zipfile.ZipFile(tmp_path / "custom_assets_model.keras") as zf:
        assert sorted(zf.namelist()) == [
            "assets/layers/layer_with_custom_assets/vocabulary.txt",
            "config.json",
            "metadata.json",
            "model.checkpoint.safetensors",
            "model.weights.safetensors",
        ]
        assert (
            zf.read("assets/layers/layer_with_custom_assets/vocabulary.txt")
            == b"Mary had a <unk> lamb."
        )
    restored = keras.models.load_model(tmp_path / "custom_assets_model.keras")
    np.testing.assert_string_equal(restored.layers[0].vocab, "Mary had a little lamb.")
    np.testing.assert_array_equal(restored.layers[0].kernel.numpy(), model.layers[0].kernel.numpy())


def test_load_assets_runs_after_every_layers_weights(tmp_path):
    order = []

    @keras.saving.register_keras_serializable(package="hooks_test")
    class Watcher(layers.Dense):
        def load_own_variables(self, store):
            super().load_own_variables(store)
            order.append(("weights", self.name))

        def save_assets(self, dir_path):
            pass  # writes nothing: load_assets still gets an (empty) directory

        def load_assets(self, dir_path):
            order.append(("assets", self.name, os.listdir(dir_path)))

    model = keras.Sequential([keras.Input((2,)), Watcher(2, name="w1"), Watcher(1, name="w2")])
    model.save(tmp_path / "m.keras")
    keras.models.load_model(tmp_path / "m.keras")
    assert order == [
        ("weights", "w1"),
        ("weights", "w2"),
        ("assets", "w1", []),
        ("assets", "w2", []),
    ]


def test_an_asset_outside_the_assets_directory_is_refused(tmp_path):
    model = keras.Sequential([LayerWithCustomAssets(vocab="v", units=1)])
    model(rand(1, 2))
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as zf:
        entries = {n: zf.read(n) for n in zf.namelist()}
    entries["assets/../../evil.txt"] = b"x"
    with zipfile.ZipFile(tmp_path / "evil.keras", "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    with pytest.raises(
        ValueError, match=r"evil\.keras.*'assets/\.\./\.\./evil\.txt' points outside"
    ):
        keras.models.load_model(tmp_path / "evil.keras")


# -- files written before the per-layer stores -------------------------------------------------
def write_old_layout(model, path, tmp_path):
    """What save_model wrote before: one eagerkernel checkpoint as model.weights.safetensors."""
    from eagerkernel.runtime.keras.saving import _compile_config, serialize_keras_object

    config = serialize_keras_object(model)
    config["compile_config"] = _compile_config(model)
    prefix = str(tmp_path / "old_weights")
    ek.train.Checkpoint(model=model).write(prefix)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("metadata.json", json.dumps({"keras_version": "eagerkernel-0"}))
        zf.writestr("config.json", json.dumps(config))
        zf.write(prefix + ".safetensors", "model.weights.safetensors")


def test_files_of_the_earlier_layout_still_load_with_the_optimizer_state(tmp_path):
    inputs = keras.Input((4,))
    h = layers.BatchNormalization()(layers.Dense(8, activation="relu")(inputs))
    model = keras.Model(inputs, layers.Dense(3)(h))
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="sparse_categorical_crossentropy")
    x, y = rand(32, 4), np.arange(32) % 3
    model.fit(x, y, batch_size=8, verbose=0, shuffle=False)
    write_old_layout(model, tmp_path / "old.keras", tmp_path)
    with zipfile.ZipFile(tmp_path / "old.keras") as zf:
        assert "model.checkpoint.safetensors" not in zf.namelist()
    loaded = keras.models.load_model(tmp_path / "old.keras")
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    assert int(loaded.optimizer.iterations) == 4
    h1 = model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False).history
    h2 = loaded.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False).history
    assert h1 == h2
    # Saved again, it gets the new layout and still loads.
    loaded.save(tmp_path / "new.keras")
    again = keras.models.load_model(tmp_path / "new.keras", compile=False)
    np.testing.assert_array_equal(again.predict(x, verbose=0), loaded.predict(x, verbose=0))


def test_save_weights_and_checkpoint_are_unaffected_by_overridden_hooks(tmp_path):
    model = keras.Sequential([keras.Input((10,)), LayerWithCustomVariable(2)])
    model.save_weights(tmp_path / "w")
    other = keras.Sequential([keras.Input((10,)), LayerWithCustomVariable(2)])
    other.load_weights(tmp_path / "w")
    for a, b in zip(model.weights, other.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    ek.train.Checkpoint(model=model).write(str(tmp_path / "ck"))
    third = keras.Sequential([keras.Input((10,)), LayerWithCustomVariable(2)])
    ek.train.Checkpoint(model=third).read(str(tmp_path / "ck")).assert_consumed()
    np.testing.assert_array_equal(
        third.layers[0].my_variable.numpy(), model.layers[0].my_variable.numpy()
    )
