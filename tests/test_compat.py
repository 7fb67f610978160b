"""`ek.compat` (as `tf.compat`): the text helpers, `v2` as the package itself, and `v1` with
TensorFlow 1.x's eager names, every TensorFlow 2 name, and graph-mode names that raise."""

from __future__ import annotations

import importlib
import logging
import pathlib

import numpy as np
import pytest

import eagerkernel as ek


def test_text_helpers_follow_tensorflow():
    assert ek.compat.as_bytes("é") == b"\xc3\xa9"
    assert ek.compat.as_bytes(bytearray(b"x")) == b"x"
    assert ek.compat.as_text(b"\xc3\xa9") == "é" == ek.compat.as_str(b"\xc3\xa9")
    assert ek.compat.as_str_any(3) == "3"
    assert ek.compat.path_to_str(pathlib.Path("/tmp/a")) == "/tmp/a"
    assert ek.compat.dimension_value(ek.TensorShape([None, 3])[1]) == 3
    assert ek.compat.dimension_at_index(ek.TensorShape([2, None]), 1).value is None
    with pytest.raises(TypeError, match="Expected binary or unicode string, got 3"):
        ek.compat.as_bytes(3)


def test_v1_and_v2_import_as_modules():
    tf1 = importlib.import_module("eagerkernel.compat.v1")
    tf2 = importlib.import_module("eagerkernel.compat.v2")
    assert tf2 is ek is ek.compat.v2
    assert tf1 is ek.compat.v1
    # TensorFlow 1.x's eager training names
    w = tf1.Variable(3.0)
    opt = tf1.train.GradientDescentOptimizer(0.5)
    step = tf1.train.get_or_create_global_step()  # the process's: an earlier test's, maybe
    before = int(step.numpy())
    opt.minimize(lambda: w * w, global_step=step)
    assert float(w.numpy()) == pytest.approx(0.0) and int(step.numpy()) == before + 1
    assert tf1.layers.Dense is ek.layers.Dense
    assert tf1.losses.mean_squared_error([1.0], [3.0]).numpy() == pytest.approx(4.0)
    tf1.set_random_seed(3)
    a = tf1.random_normal([2]).numpy()
    ek.random.set_seed(3)
    np.testing.assert_array_equal(a, ek.random.normal([2]).numpy())
    tf1.enable_eager_execution()
    tf1.reset_default_graph()
    assert tf1.executing_eagerly()
    assert "reduce_sum" in dir(tf1)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_op'"):
        tf1.no_such_op  # noqa: B018


@pytest.mark.parametrize(
    "name", ["Session", "placeholder", "disable_eager_execution", "global_variables_initializer"]
)
def test_v1_graph_mode_names_raise_saying_why(name):
    with pytest.raises(NotImplementedError, match=rf"tf\.compat\.v1\.{name}: .*runs eagerly only"):
        getattr(ek.compat.v1, name)()


def test_v1_logging_sets_the_eagerkernel_logger_level():
    log = ek.compat.v1.logging
    before = logging.getLogger("eagerkernel").level
    try:
        log.set_verbosity(log.ERROR)
        assert log.get_verbosity() == logging.ERROR
    finally:
        logging.getLogger("eagerkernel").setLevel(before)


def test_tensor_shape_of_unknown_rank_and_dims_follows_tensorflow():
    unknown = ek.TensorShape(None)
    assert isinstance(unknown, ek.TensorShape) and not unknown
    assert unknown.rank is None and unknown.dims is None and repr(unknown) == "TensorShape(None)"
    with pytest.raises(ValueError, match="as_list\\(\\) is not defined on an unknown TensorShape"):
        unknown.as_list()
    partial = ek.TensorShape([None, 3])
    assert isinstance(partial, ek.TensorShape) and partial.as_list() == [None, 3]
    assert [d.value for d in partial.dims] == [None, 3]
    assert not partial.is_fully_defined() and partial.num_elements() is None
    assert ek.TensorShape([-1, 2]) == ek.TensorShape([None, 2])
    assert partial.is_compatible_with([7, 3]) and not partial.is_compatible_with([7, 4])
    assert unknown.is_compatible_with([1, 2, 3])
    assert partial.merge_with([5, None]) == ek.TensorShape([5, 3])
    assert partial.concatenate([2]).as_list() == [None, 3, 2]
    assert unknown.merge_with(partial) == partial
    with pytest.raises(ValueError, match=r"Shapes \(None, 3\) and \(None, 4\) are incompatible"):
        partial.assert_is_compatible_with([None, 4])
    with pytest.raises(TypeError, match="TensorShape: invalid dimension"):
        ek.TensorShape([2.5])
    full = ek.TensorShape([2, 3])
    assert full.is_fully_defined() and full.num_elements() == 6
    assert ek.TensorShape(4) == ek.TensorShape([4])
    t = ek.constant(np.ones((2, 3)))
    assert type(t.shape) is ek.TensorShape and t.shape == full


def test_v1_has_the_complex_ops_at_top_level():
    import eagerkernel.compat.v1 as tf1

    z = ek.constant([1 + 2j])
    np.testing.assert_array_equal(tf1.conj(z).numpy(), [1 - 2j])
    np.testing.assert_array_equal(tf1.real(z).numpy(), [1.0])
    np.testing.assert_array_equal(tf1.imag(z).numpy(), [2.0])
    assert {"conj", "real", "imag", "angle"} <= set(dir(tf1))


def test_tf1_top_level_names_of_moved_ops():
    import eagerkernel.compat.v1 as tf1

    # TF 1.x's tf_records tutorial (r1/tutorials/load_data/tf_records), with only the import
    # changed: an Example written and parsed back with the top-level TF 1.x names.
    feature = {
        "id": tf1.train.Feature(int64_list=tf1.train.Int64List(value=[7])),
        "x": tf1.train.Feature(float_list=tf1.train.FloatList(value=[0.5, 1.5])),
    }
    serialized = tf1.train.Example(features=tf1.train.Features(feature=feature))
    spec = {
        "id": tf1.FixedLenFeature([], tf1.int64, default_value=0),
        "x": tf1.VarLenFeature(tf1.float32),
    }
    parsed = tf1.parse_single_example(serialized.SerializeToString(), spec)
    assert int(parsed["id"]) == 7
    np.testing.assert_array_equal(tf1.sparse_tensor_to_dense(parsed["x"]).numpy(), [0.5, 1.5])
    # each TF 1.x name is the TF 2 op itself
    assert tf1.truncated_normal is ek.random.truncated_normal
    assert tf1.string_to_number is ek.strings.to_number
    assert tf1.arg_max is ek.math.argmax
    assert tf1.py_func is ek.numpy_function
    assert "FixedLenFeature" in dir(tf1)
    for name in tf1._RENAMED:
        assert getattr(tf1, name) is not None, name
    # the TF 1.x casts and Python 2 division
    assert tf1.to_float(ek.constant([1, 2])).dtype == ek.float32
    assert tf1.to_int64(ek.constant([1.7])).numpy().tolist() == [1]
    assert tf1.div(ek.constant([7, -7]), 2).numpy().tolist() == [3, -4]  # floor, as Python 2
    np.testing.assert_allclose(tf1.div(ek.constant([7.0]), 2.0).numpy(), [3.5])
    with pytest.raises(AttributeError, match="no attribute 'no_such_tf1_name'"):
        tf1.no_such_tf1_name  # noqa: B018
