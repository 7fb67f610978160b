"""Keras 3's documented behaviour found by running its docstring examples on eagerkernel:
``keras.tree``, a KerasTensor's shape shown as a tuple, the schedules' serialized form.

Expected values are those of Keras 3.15's docstrings, or printed by Keras 3.15 (TensorFlow
backend) where a comment says so.
"""

from __future__ import annotations

import collections
import warnings

import pytest

from eagerkernel import keras

tree = keras.tree
Foo = collections.namedtuple("Foo", ["a", "b"])


def test_flatten_sorts_dict_keys_keeps_ordered_dict_order_and_none_is_a_leaf():
    assert tree.flatten([[1, 2, 3], [4, [5], [[6]]]]) == [1, 2, 3, 4, 5, 6]
    assert tree.flatten(None) == [None]
    assert tree.flatten({100: "world!", 6: "Hello"}) == ["Hello", "world!"]
    assert tree.flatten(collections.OrderedDict([("b", 1), ("a", 2)])) == [1, 2]
    assert tree.flatten(collections.deque([1, [2]])) == [1, 2]
    assert tree.flatten("abc") == ["abc"]
    assert tree.is_nested({"foo": 42}) and not tree.is_nested(42)


def test_flatten_with_path_and_pack_sequence_as_round_trip():
    structure = [{"foo": 42}, (1, {"b": 2, "a": 3})]
    assert tree.flatten_with_path(structure) == [
        ((0, "foo"), 42),
        ((1, 0), 1),
        ((1, 1, "a"), 3),
        ((1, 1, "b"), 2),
    ]
    packed = tree.pack_sequence_as({"key3": "", "key1": "", "key2": ""}, ["v1", "v2", "v3"])
    assert packed == {"key3": "v3", "key1": "v1", "key2": "v2"}
    assert list(packed) == ["key3", "key1", "key2"]  # the structure's own key order
    flat = tree.flatten(structure)
    assert tree.pack_sequence_as(structure, flat) == structure
    with pytest.raises(ValueError, match="2 leaves but flat_sequence has 1"):
        tree.pack_sequence_as([1, 2], [1])


def test_map_structure_namedtuple_none_is_leaf_and_mismatch_is_value_error():
    assert tree.map_structure(lambda v: v * 2, Foo(a=1, b=2)) == Foo(a=2, b=4)
    assert tree.map_structure(lambda x, y: x * y, [[1], [2]], [[1], [2]]) == [[1], [4]]
    assert tree.map_structure(lambda x: 1, [None, 2], none_is_leaf=False) == [None, 1]
    assert tree.map_structure(lambda x: 1, [None, 2]) == [1, 1]
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        tree.map_structure(lambda x, y: x, [1, 2], (1, 2))  # Keras 3: ValueError
    with pytest.raises(TypeError, match="callable"):
        tree.map_structure(3, [1])


def test_map_structure_up_to_maps_subtrees_whole():
    assert tree.map_structure_up_to([0, [0, 0]], str, [[1, 1], [2, 2]]) == ["[1, 1]", ["2", "2"]]
    assert tree.map_structure_up_to([0, 0], len, [[1, 1], [2, 2]]) == [2, 2]
    with pytest.raises(ValueError, match="does not match the shallow structure"):
        tree.map_structure_up_to([0, [0, 0]], str, [1, 2])


def test_assert_same_structure_and_paths():
    tree.assert_same_structure([(0, 1)], [(2, 3)])
    tree.assert_same_structure({"a": 1}, collections.OrderedDict(a=2))  # dicts of any kind
    also_foo = collections.namedtuple("Foo", ["a", "b"])
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        tree.assert_same_structure(Foo(0, 1), also_foo(2, 3))
    with pytest.raises(ValueError):
        tree.assert_same_structure([0], (0,))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tree.assert_same_structure([0], [1], check_types=True)
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    tree.assert_same_paths([0, 1], (2, 3))
    tree.assert_same_paths(Foo(0, 1), also_foo(2, 3))
    with pytest.raises(ValueError, match=r"Paths in a but not in b: \[\(1,\)\]"):
        tree.assert_same_paths([0, 1], [2])


def test_traverse_top_down_bottom_up_and_map_to_none():
    # The Keras 3 docstring's example, both orders.
    v: list = []
    assert tree.traverse(v.append, [(1, 2), [3], {"a": 4}]) == [(1, 2), [3], {"a": 4}]
    assert v == [[(1, 2), [3], {"a": 4}], (1, 2), 1, 2, [3], 3, {"a": 4}, 4]
    v = []
    tree.traverse(v.append, [(1, 2), [3], {"a": 4}], top_down=False)
    assert v == [1, 2, (1, 2), 3, [3], 4, {"a": 4}, [(1, 2), [3], {"a": 4}]]
    replace = tree.traverse(lambda x: "X" if isinstance(x, tuple) else None, [(1, 2), [3]])
    assert replace == ["X", [3]]
    to_none = tree.traverse(lambda x: tree.MAP_TO_NONE if x == 3 else None, [(1, 2), [3]])
    assert to_none == [(1, 2), [None]]


def test_lists_to_tuples_and_map_shape_structure():
    assert tree.lists_to_tuples([1, [2, {"a": [3]}]]) == (1, (2, {"a": (3,)}))
    shapes = {"a": (None, 3), "b": [(2,), (4, 5)]}
    assert tree.map_shape_structure(len, shapes) == {"a": 2, "b": [1, 2]}


def test_keras_tensor_shape_is_shown_as_a_tuple_and_keeps_tensor_shape_methods():
    # Keras 3's docstrings: `y.shape` of Flatten on Input((10, 64)) is `(None, 640)`.
    x = keras.Input((10, 64))
    y = keras.layers.Flatten()(x)
    assert repr(y.shape) == "(None, 640)"
    assert repr(x.shape[1:]) == "(10, 64)"
    assert y.shape == (None, 640) and y.shape.as_list() == [None, 640] and y.shape.rank == 2
    assert repr(keras.layers.RepeatVector(3)(keras.Input((32,))).shape) == "(None, 3, 32)"


def test_schedule_serialize_has_keras_3_keys_and_default_names():
    s = keras.optimizers.schedules
    # Printed by Keras 3.15.
    assert s.serialize(s.ExponentialDecay(0.1, 100000, 0.96, staircase=True)) == {
        "module": "keras.optimizers.schedules",
        "class_name": "ExponentialDecay",
        "config": {
            "initial_learning_rate": 0.1,
            "decay_steps": 100000,
            "decay_rate": 0.96,
            "staircase": True,
            "name": "ExponentialDecay",
        },
        "registered_name": None,
    }
    assert s.InverseTimeDecay(0.1, 10, 0.5).get_config()["name"] == "InverseTimeDecay"
    assert s.PiecewiseConstantDecay([1], [0.1, 0.2]).get_config()["name"] == "PiecewiseConstant"

    class Mine(s.LearningRateSchedule):
        def __call__(self, step):
            return 0.1

        def get_config(self):
            return {}

    described = s.serialize(Mine())
    assert described == {
        "module": None,
        "class_name": "Mine",
        "config": {},
        "registered_name": "Mine",
    }
    assert isinstance(s.deserialize(described, custom_objects={"Mine": Mine}), Mine)
    with pytest.raises(ValueError, match="Unknown learning-rate schedule"):
        s.deserialize(described)


def test_scatter_update_reductions():
    import numpy as np

    ops = keras.ops
    # Keras 3.15's docstring: repeated indices add up.
    added = ops.scatter_update(np.zeros((4,)), [[0], [0], [1]], np.array([1.0, 1.0, 1.0]), "add")
    np.testing.assert_array_equal(added.numpy(), [2.0, 1.0, 0.0, 0.0])
    ones, idx, upd = np.ones((4,)), [[0], [0], [2]], np.array([2.0, 3.0, 5.0])
    # Printed by Keras 3.15 (TensorFlow backend).
    np.testing.assert_array_equal(ops.scatter_update(ones, idx, upd, "mul").numpy(), [6, 1, 5, 1])
    np.testing.assert_array_equal(ops.scatter_update(ones, idx, upd, "max").numpy(), [3, 1, 5, 1])
    np.testing.assert_array_equal(ops.scatter_update(ones, idx, upd, "min").numpy(), [1, 1, 1, 1])
    np.testing.assert_array_equal(ops.scatter_update(ones, idx, upd).numpy()[1:], [1, 5, 1])
    with pytest.raises(ValueError, match="reduction='sum'"):
        ops.scatter_update(ones, idx, upd, "sum")


def test_sparse_top_k_accuracy_from_sorted_ids():
    # Printed by Keras 3.15: y_pred holds category ids, best first.
    m = keras.metrics.SparseTopKCategoricalAccuracy(k=1, from_sorted_ids=True)
    m.update_state([2, 1], [[1, 0, 3], [1, 2, 3]])
    assert float(m.result()) == 0.5
    hits = keras.metrics.sparse_top_k_categorical_accuracy(
        [[2], [1]], [[1, 0, 3], [1, 2, 3]], k=2, from_sorted_ids=True
    )
    assert hits.shape == (2, 1) and hits.numpy().ravel().tolist() == [0.0, 1.0]
    assert m.get_config()["from_sorted_ids"] is True


def test_rms_normalization_normalizes_any_rank_with_the_built_width():
    import numpy as np

    # Keras 3.15's docstring: built for (5, 20, 30, 10), then called on a (1, 10) input.
    layer = keras.layers.RMSNormalization()
    layer.build([5, 20, 30, 10])
    x = np.random.default_rng(0).random((1, 10))
    expected = x / np.sqrt(np.mean(x**2) + 1e-6)
    np.testing.assert_allclose(layer(x).numpy(), expected, rtol=1e-5)
    with pytest.raises(ValueError, match=r"have sizes \[9\], the layer was built for \[10\]"):
        layer(np.ones((1, 9)))


def test_rearrange_transposes_merges_and_splits_as_einops():
    import numpy as np

    images = np.random.default_rng(0).random((4, 6, 8, 3)).astype("float32")
    rearrange = keras.ops.rearrange
    np.testing.assert_array_equal(
        rearrange(images, "b h w c -> b c h w").numpy(), images.transpose(0, 3, 1, 2)
    )
    np.testing.assert_array_equal(
        rearrange(images, "b h w c -> h (b w) c").numpy(),
        images.transpose(1, 0, 2, 3).reshape(6, 32, 3),
    )
    # Space to depth: h = (h h1), w = (w w1), the parts moved to channels.
    s2d = rearrange(images, "b (h h1) (w w1) c -> b h w (c h1 w1)", h1=2, w1=2).numpy()
    expected = images.reshape(4, 3, 2, 4, 2, 3).transpose(0, 1, 3, 5, 2, 4).reshape(4, 3, 4, 12)
    np.testing.assert_array_equal(s2d, expected)
    patches = rearrange(images, "b (h1 h) (w1 w) c -> (b h1 w1) h w c", h1=2, w1=2)
    assert tuple(patches.shape) == (16, 3, 4, 3)  # Keras 3.15 gives the same shapes
    x = keras.Input((6, 8, 3))
    assert rearrange(x, "b h w c -> b (h w) c").shape == (None, 48, 3)
    with pytest.raises(ValueError, match="same axes"):
        rearrange(images, "b h w c -> b h w")
    with pytest.raises(ValueError, match="4 input axes, but the tensor has shape"):
        rearrange(images[0], "b h w c -> c b h w")
    with pytest.raises(ValueError, match="does not split"):
        rearrange(images, "b (h h1) w c -> b h h1 w c", h1=4)
    with pytest.raises(ValueError, match="unsupported"):
        rearrange(images, "b ... -> b ...")
