"""Object paths never collide: two objects never share a key (TensorFlow escapes ``/`` as
``.S`` and ``.`` as ``..`` in each edge), a non-string dict key and a ``save_counter`` keyword
raise where TensorFlow raises, and an object reachable by two paths restores from either."""

import os

import numpy as np
import pytest
from safetensors.numpy import load_file

import eagerkernel as ek


def keys(path):
    return sorted(load_file(path + ".safetensors"))


def test_save_counter_keyword_is_refused():
    # TensorFlow: setattr on the read-only `save_counter` property raises AttributeError.
    with pytest.raises(AttributeError, match="save_counter"):
        ek.train.Checkpoint(save_counter=ek.Variable(3.0))
    ckpt = ek.train.Checkpoint(v=ek.Variable(1.0))
    with pytest.raises(AttributeError, match="save_counter"):
        ckpt.save_counter = ek.Variable(3.0)


def test_slash_in_a_key_is_escaped_so_both_variables_are_kept(tmp_path):
    v1, v2 = ek.Variable(1.0), ek.Variable(2.0)
    ckpt = ek.train.Checkpoint(d={"a/b": v1, "a": {"b": v2}, "x.y": ek.Variable(3.0)})
    path = ckpt.write(str(tmp_path / "c"))
    assert keys(path) == ["d/a.Sb", "d/a/b", "d/x..y"]
    v1.assign(0.0)
    v2.assign(0.0)
    ckpt.restore(path).assert_consumed()
    assert (float(v1.numpy()), float(v2.numpy())) == (1.0, 2.0)


def test_non_string_dict_key_raises_and_writes_nothing(tmp_path):
    ckpt = ek.train.Checkpoint(d={0: ek.Variable(1.0), "0": ek.Variable(2.0)})
    with pytest.raises(ValueError, match="non-string key 0"):
        ckpt.save(str(tmp_path / "c"))
    assert os.listdir(tmp_path) in ([], ["checkpoint.lock"])
    # A non-string key whose value holds nothing trackable is not an object: ignored as TF.
    ek.train.Checkpoint(d={0: "label", "w": ek.Variable(1.0)}).write(str(tmp_path / "ok"))
    assert keys(str(tmp_path / "ok")) == ["d/w"]


def test_two_objects_on_one_edge_raise(tmp_path):
    class Twice(ek.keras.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(name="kernel", shape=(1,))
            self.kernel = ek.Variable([5.0], name="other")  # a different Variable, same edge

        def call(self, x):
            return x * self.w

    layer = Twice()
    layer(np.ones((1, 1), np.float32))
    with pytest.raises(ValueError, match=r"object path 'layer/kernel'"):
        ek.train.Checkpoint(layer=layer).write(str(tmp_path / "c"))
    assert not os.path.exists(tmp_path / "c.safetensors")


def test_object_reachable_by_two_paths_restores_from_either(tmp_path):
    shared = ek.Variable([1.0, 2.0])
    saved = ek.train.Checkpoint(first=shared, second=shared).write(str(tmp_path / "c"))
    assert keys(saved) == ["first"]  # saved once, under the first path found
    # Restored where the first path found is the other one: still matched.
    into = ek.Variable([0.0, 0.0])
    status = ek.train.Checkpoint(second=into, first=into).restore(saved)
    status.assert_consumed()
    np.testing.assert_array_equal(into.numpy(), [1.0, 2.0])
    # The same with a layer shared by two attributes of a model.
    dense = ek.keras.layers.Dense(2)
    dense(np.ones((1, 3), np.float32))
    path = ek.train.Checkpoint(a=dense, b=dense).write(str(tmp_path / "d"))
    other = ek.keras.layers.Dense(2)
    other(np.ones((1, 3), np.float32))
    ek.train.Checkpoint(b=other, a=other).restore(path).assert_consumed()
    np.testing.assert_array_equal(other.kernel.numpy(), dense.kernel.numpy())


def test_root_children_keep_their_paths(tmp_path):
    class Blocks(ek.keras.Model):
        def __init__(self):
            super().__init__()
            self.blocks = [ek.keras.layers.Dense(2), ek.keras.layers.Dense(1)]

        def call(self, x):
            for b in self.blocks:
                x = b(x)
            return x

    model = Blocks()
    model(np.ones((1, 3), np.float32))
    path = ek.train.Checkpoint(root=model).write(str(tmp_path / "c"))
    assert keys(path) == ["blocks/0/bias", "blocks/0/kernel", "blocks/1/bias", "blocks/1/kernel"]
