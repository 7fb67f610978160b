"""An object reachable by several paths restores from any of them, including paths that exist
only in the checkpoint (its recorded aliases), and a Checkpoint's lists and dicts restore what
is added to them later: TensorFlow's checkpoint guide, "Lists and dictionaries"."""

import gc
import hashlib
import json

import numpy as np
import pytest
from safetensors.numpy import load_file, save

import eagerkernel as ek
from eagerkernel.runtime.io import checkpoint_format
from eagerkernel.runtime.io.checkpoint_format import CheckpointError


def graph_of(path):
    with open(path + ".safetensors", "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        return json.loads(json.loads(f.read(n))["__metadata__"]["eagerkernel.graph"])


def guide_save(tmp_path):
    # The guide's cell, unchanged but for the path.
    save = ek.train.Checkpoint()
    save.listed = [ek.Variable(1.0)]
    save.listed.append(ek.Variable(2.0))
    save.mapped = {"one": save.listed[0]}
    save.mapped["two"] = save.listed[1]
    return save.save(str(tmp_path / "tf_list_example"))


def test_every_path_of_a_saved_object_is_recorded(tmp_path):
    save_path = guide_save(tmp_path)
    assert sorted(load_file(save_path + ".safetensors")) == ["listed/0", "listed/1", "save_counter"]
    assert graph_of(save_path)["aliases"] == {"mapped/one": "listed/0", "mapped/two": "listed/1"}


def test_the_guides_restore_through_an_alias_then_a_list_appended_later(tmp_path):
    save_path = guide_save(tmp_path)
    restore = ek.train.Checkpoint()
    v2 = ek.Variable(0.0)
    assert v2.numpy() == 0.0  # Not restored yet
    restore.mapped = {"two": v2}
    restore.restore(save_path)
    assert v2.numpy() == 2.0

    restore.listed = []
    assert repr(restore.listed) == "ListWrapper([])"  # the guide prints ListWrapper([])
    v1 = ek.Variable(0.0)
    restore.listed.append(v1)  # Restores v1, from restore() in the previous cell
    assert v1.numpy() == 1.0
    assert restore.listed == [v1] and isinstance(restore.listed, list)


def test_dict_items_and_attributes_added_after_the_restore_get_their_values(tmp_path):
    save_path = guide_save(tmp_path)
    restore = ek.train.Checkpoint(mapped={})
    status = restore.restore(save_path)
    one, two = ek.Variable(0.0), ek.Variable(0.0)
    restore.mapped["one"] = one  # found through the alias mapped/one -> listed/0
    assert float(one) == 1.0
    restore.other = ek.Variable(5.0)  # nothing saved there: unchanged
    restore.listed = [ek.Variable(0.0), two]  # an attribute set later
    assert float(two) == 2.0 and float(restore.other) == 5.0
    with pytest.raises(AssertionError, match="'other'"):
        status.assert_consumed()  # `other` has no saved value
    assert not ek.Module.attribute_observers  # nothing waits any more


def test_alias_of_a_layer_restores_its_weights_when_they_are_built(tmp_path):
    dense = ek.keras.layers.Dense(2)
    dense(np.ones((1, 3), np.float32))
    save = ek.train.Checkpoint(layers=[dense], by_name={"head": dense})
    path = save.write(str(tmp_path / "c"))
    assert graph_of(path)["aliases"] == {"by_name/head": "layers/0"}
    fresh = ek.keras.layers.Dense(2)  # not built: its kernel is made later
    ek.train.Checkpoint(by_name={"head": fresh}).restore(path)
    fresh(np.ones((1, 3), np.float32))
    np.testing.assert_array_equal(fresh.kernel.numpy(), dense.kernel.numpy())
    np.testing.assert_array_equal(fresh.bias.numpy(), dense.bias.numpy())


def test_two_objects_that_were_one_both_get_its_value(tmp_path):
    save_path = guide_save(tmp_path)
    a, b = ek.Variable(0.0), ek.Variable(0.0)
    ek.train.Checkpoint(listed=[a], mapped={"one": b}).restore(save_path)
    assert (float(a), float(b)) == (1.0, 1.0)


def test_a_checkpoint_without_aliases_still_loads(tmp_path):
    # A file written before aliases were recorded: no "aliases" table in its graph.
    v = ek.Variable([1.0, 2.0])
    data = checkpoint_format.encode({"listed/0": v}, {"listed/0": v})
    (tmp_path / "old.safetensors").write_bytes(data)
    assert "aliases" not in graph_of(str(tmp_path / "old"))
    into = ek.Variable([0.0, 0.0])
    ek.train.Checkpoint(listed=[into]).restore(str(tmp_path / "old")).assert_consumed()
    np.testing.assert_array_equal(into.numpy(), [1.0, 2.0])
    assert ek.train.list_variables(str(tmp_path / "old"))[1] == (
        "listed/0/.ATTRIBUTES/VARIABLE_VALUE",
        [2],
    )


def test_a_malformed_alias_table_is_a_checkpoint_error(tmp_path):
    v = ek.Variable(1.0)
    entry = {"dtype": "float32", "shape": [], "sha256": checkpoint_format._digest(v.numpy())}
    text = json.dumps(
        {
            "format": checkpoint_format.FORMAT,
            "format_version": 1,
            "library_version": ek.__version__,
            "objects": {"v": "Variable"},
            "variables": {"v": entry},
            "aliases": {"w": 3},
        }
    )
    digest = hashlib.sha256(text.encode()).hexdigest()
    metadata = {"eagerkernel.graph": text, "eagerkernel.graph_sha256": digest}
    (tmp_path / "bad.safetensors").write_bytes(
        save({"v": np.asarray(v.numpy())}, metadata=metadata)
    )
    into = ek.Variable(0.0)
    with pytest.raises(CheckpointError, match="'aliases' table"):
        ek.train.Checkpoint(v=into).restore(str(tmp_path / "bad"))
    assert float(into) == 0.0


def test_a_cycle_of_aliases_ends():
    # A crafted file may alias in a circle: resolving stops instead of looping for ever.
    assert checkpoint_format.resolve_alias("a/x", {"a": "b", "b": "a"}) in ("a/x", "b/x")


def test_wrappers_are_lists_and_dicts_and_keep_their_items():
    ckpt = ek.train.Checkpoint(listed=[1, 2], mapped={"k": 3})
    assert ckpt.listed == [1, 2] and ckpt.mapped == {"k": 3}
    ckpt.listed += [3]
    ckpt.listed.extend([4])
    ckpt.listed.insert(0, 0)
    ckpt.listed[0] = -1
    assert ckpt.listed == [-1, 1, 2, 3, 4]
    ckpt.mapped.update(z=1)
    assert ckpt.mapped.setdefault("y", 2) == 2
    assert repr(ckpt.mapped) == "DictWrapper({'k': 3, 'z': 1, 'y': 2})"
    del ckpt
    gc.collect()
