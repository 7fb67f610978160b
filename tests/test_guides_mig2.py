"""The TensorFlow 2 migration guides (site/en/guide/migrate: migrating_checkpoints,
saved_model, early_stopping, tensorboard, sessionrunhook_callback, fault_tolerance,
multi_worker_cpu_gpu_training) run with ``import eagerkernel as tf``: the calls that diverged
from TensorFlow 2.21 + Keras 3.15, with the values the oracle gave (named where they are
hard-coded)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import eagerkernel as tf
import eagerkernel.compat.v1 as tf1
from eagerkernel import keras


def test_saved_model_constants_are_tensorflows():
    # Values printed by TensorFlow 2.21's tf.saved_model.
    assert tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY == "serving_default"
    assert (tf.saved_model.SERVING, tf.saved_model.TRAINING) == ("serve", "train")
    assert tf.saved_model.PREDICT_METHOD_NAME == "tensorflow/serving/predict"
    assert tf.saved_model.CLASSIFY_OUTPUT_SCORES == "scores"
    assert tf.saved_model.SAVED_MODEL_SCHEMA_VERSION == 1


def test_saved_model_signature_from_get_concrete_function_of_specs(tmp_path):
    # saved_model.ipynb: a signature made with get_concrete_function(TensorSpec) and never
    # called is saved (TensorFlow traced it when it was made).
    class MyModel(tf.Module):
        @tf.function
        def __call__(self, x):
            return x + 2

    model = MyModel()

    @tf.function
    def serving_default(x):
        return {"output": model(x)}

    concrete = serving_default.get_concrete_function(tf.TensorSpec(shape=[], dtype=tf.float32))
    key = tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY
    tf.saved_model.save(model, str(tmp_path / "m"), signatures={key: concrete})
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    out = loaded.signatures[key](tf.constant(5.0))["output"]
    assert out.dtype == tf.float32 and float(out) == 7.0


def test_sparse_categorical_crossentropy_clips_then_renormalizes():
    # Keras 3's TensorFlow backend clips the probabilities, then takes a softmax
    # cross-entropy of their log: -log(p[y] / sum(p)). Oracle values (TF 2.21, Keras 3.15).
    y_pred = np.array([[-1.0, 2.0, 0.5], [0.2, 0.3, 0.5], [-2.0, -1.0, -0.5]], np.float32)
    y_true = np.array([1, 2, 0])
    expected = [0.40546528, 0.6931472, 1.0986123]  # log(1.5), log(2), log(3): closed forms
    np.testing.assert_allclose(
        keras.losses.sparse_categorical_crossentropy(y_true, y_pred).numpy(), expected, rtol=1e-6
    )
    np.testing.assert_allclose(
        np.asarray(keras.ops.sparse_categorical_crossentropy(y_true, y_pred)), expected, rtol=1e-6
    )
    metric = keras.metrics.SparseCategoricalCrossentropy()
    metric.update_state(y_true, y_pred)
    assert float(metric.result()) == pytest.approx(0.7324082255363464, rel=1e-6)
    x = tf.constant(y_pred)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(keras.losses.sparse_categorical_crossentropy(y_true, x))
    np.testing.assert_allclose(
        tape.gradient(loss, x).numpy(),
        [[0.0, 0.0, 0.66666657], [1.0, 0.99999994, -0.99999994], [0.0, 0.0, 0.0]],
        atol=1e-6,
    )


def test_keras_tensor_value_is_a_value_error():
    # metrics_optimizers.ipynb: tf.math.argmax on a keras.Input; Keras 3 raises ValueError.
    x = keras.Input((2,))
    with pytest.raises(ValueError, match="KerasTensor is symbolic"):
        np.asarray(x)
    with pytest.raises(ValueError, match="KerasTensor is symbolic"):
        tf.math.argmax(x, axis=1)
    with pytest.raises(TypeError):  # still a TypeError too, as before
        float(x)


def test_session_run_hook_subclasses_define_and_run():
    # sessionrunhook_callback.ipynb / fault_tolerance.ipynb define hooks at top level.
    class InterruptHook(tf1.train.SessionRunHook):
        def begin(self):
            self._step = -1

        def before_run(self, run_context):
            self._step += 1

    hook = InterruptHook()
    hook.begin()
    assert hook.before_run(None) is None and hook._step == 0
    assert tf1.train.SessionRunHook().after_run(None, None) is None
    args = tf1.train.SessionRunArgs(fetches=[1])
    assert (args.fetches, args.feed_dict, args.options) == ([1], None, None)
    ctx = tf1.train.SessionRunContext(args, None)
    ctx.request_stop()
    assert ctx.stop_requested and ctx.original_args is args
    assert tf1.train.SessionRunValues._fields == ("results", "options", "run_metadata")


def test_tf_config_cluster_resolver(monkeypatch):
    # multi_worker_cpu_gpu_training.ipynb; values from TF 2.21's resolver.
    cluster = {"chief": ["localhost:11111"], "worker": ["localhost:12345", "localhost:23456"]}
    monkeypatch.setenv(
        "TF_CONFIG", json.dumps({"cluster": cluster, "task": {"type": "worker", "index": 1}})
    )
    r = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    assert (r.task_type, r.task_id, r.rpc_layer) == ("worker", 1, None)
    assert r.cluster_spec().as_dict() == cluster
    assert r.master() == "localhost:23456"
    assert r.master(rpc_layer="grpc") == "grpc://localhost:23456"
    assert r.master("chief", 0) == "localhost:11111"
    monkeypatch.delenv("TF_CONFIG")
    assert (r.task_type, r.task_id, r.cluster_spec().as_dict(), r.master()) == (None, None, {}, "")
    r = tf.distribute.cluster_resolver.TFConfigClusterResolver("worker", 3, "grpc")
    assert (r.task_type, r.task_id, r.rpc_layer) == ("worker", 3, "grpc")


def test_tensorboard_histograms_are_tagged_by_weight_path(tmp_path):
    # tensorboard.ipynb: Keras 3 tags a weight's histogram "<weight.path>/histogram".
    pytest.importorskip("tensorboardX")
    from tensorboardX.proto.event_pb2 import Event

    model = keras.Sequential([keras.layers.Dense(2, name="layers_dense")], name="seq")
    model.compile("sgd", "mse")
    tb = keras.callbacks.TensorBoard(log_dir=str(tmp_path), histogram_freq=1)
    model.fit(np.ones((4, 3), np.float32), np.ones((4, 2), np.float32), callbacks=[tb], verbose=0)
    tags = set()
    for name in os.listdir(tmp_path / "train"):
        for raw in tf.data.TFRecordDataset(str(tmp_path / "train" / name)):
            tags.update(v.tag for v in Event.FromString(raw.numpy()).summary.value)
    hist = sorted(t for t in tags if t.endswith("/histogram"))
    assert hist == [
        "seq/layers_dense/bias/histogram",
        "seq/layers_dense/kernel/histogram",
    ]


def _abc():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    with tf.name_scope("scoped"):
        c = tf.Variable(3.0, name="c")
    return a, b, c


def test_saver_in_eager_mode_writes_a_name_based_checkpoint(tmp_path):
    # migrating_checkpoints.ipynb, "Save a TF1 checkpoint in TF2" (the oracle's output).
    path = tf1.train.Saver(var_list=list(_abc())).save(None, str(tmp_path / "tf1-ckpt"))
    assert path == str(tmp_path / "tf1-ckpt")
    reader = tf.train.load_checkpoint(path)
    assert reader.get_variable_to_shape_map() == {"a": [], "b": [], "scoped/c": []}
    assert {k: v.name for k, v in reader.get_variable_to_dtype_map().items()} == {
        "a": "float32",
        "b": "float32",
        "scoped/c": "float32",
    }
    value = reader.get_tensor("scoped/c")
    assert type(value) is np.float32 and value == 3.0  # a NumPy scalar, as TF's reader
    assert not reader.has_tensor("_CHECKPOINTABLE_OBJECT_GRAPH")
    assert tf.train.latest_checkpoint(str(tmp_path)) == path

    a, b, c = (tf.Variable(0.0, name=n) for n in ("a", "b", "scoped/c"))
    tf1.train.Saver(var_list=[a, b, c]).restore(sess=None, save_path=path)
    assert [a.numpy(), b.numpy(), c.numpy()] == [1.0, 2.0, 3.0]
    x, y = tf.Variable(0.0), tf.Variable(0.0)
    tf1.train.Saver({"a": x, "scoped/c": y}).restore(None, path)  # a dict maps names
    assert (float(x), float(y)) == (1.0, 3.0)


def test_saver_steps_max_to_keep_and_errors(tmp_path):
    (a,) = (tf.Variable(1.0, name="a"),)
    saver = tf1.train.Saver(var_list=[a], max_to_keep=2)
    paths = [saver.save(None, str(tmp_path / "m"), global_step=i) for i in range(3)]
    assert paths == [str(tmp_path / f"m-{i}") for i in range(3)]
    assert saver.last_checkpoints == paths[1:]  # TF 2.21 keeps m-1 and m-2
    assert sorted(f for f in os.listdir(tmp_path) if f.startswith("m-")) == [
        "m-1.safetensors",
        "m-2.safetensors",
    ]
    assert tf.train.latest_checkpoint(str(tmp_path)) == paths[2]
    # latest_filename names the state file instead of "checkpoint" (TF's argument).
    other = saver.save(None, str(tmp_path / "o" / "m"), global_step=7, latest_filename="state")
    assert sorted(os.listdir(tmp_path / "o")) == ["m-7.safetensors", "state"]
    assert tf.train.latest_checkpoint(str(tmp_path / "o"), latest_filename="state") == other
    with pytest.raises(RuntimeError, match="`var_list` must specify a list or dict"):
        tf1.train.Saver()
    with pytest.raises(ValueError, match="not a valid checkpoint"):
        saver.restore(None, str(tmp_path / "nope"))
    with pytest.raises(tf.errors.NotFoundError, match="Key zz not found"):
        tf1.train.Saver([tf.Variable(0.0, name="zz")]).restore(None, paths[2])
    with pytest.raises(ValueError, match="same name"):
        tf1.train.Saver([tf.Variable(0.0, name="q"), tf.Variable(1.0, name="q")])


def test_checkpoint_restores_a_saver_checkpoint_by_name(tmp_path):
    # migrating_checkpoints.ipynb: tf.train.Checkpoint(...).restore(<Saver checkpoint>)
    # matches variables by name; the oracle printed [1.0, 2.0, 3.0, 3.0].
    path = tf1.train.Saver(var_list=list(_abc())).save(None, str(tmp_path / "tf1-ckpt"))
    a, b = tf.Variable(0.0, name="a"), tf.Variable(0.0, name="b")
    with tf.name_scope("scoped"):
        c = tf.Variable(0.0, name="c")
    c_2 = tf.Variable(0.0, name="scoped/c")
    status = tf.train.Checkpoint(variables=[a, b, c, c_2]).restore(path)
    assert [float(v) for v in (a, b, c, c_2)] == [1.0, 2.0, 3.0, 3.0]
    status.assert_consumed()
    zz = tf.Variable(5.0, name="zz")
    status = tf.train.Checkpoint(v=[zz]).restore(path)
    assert float(zz) == 5.0 and type(status).__name__ == "NameBasedSaverStatus"
    with pytest.raises(AssertionError, match="Some objects had attributes which were not"):
        status.assert_consumed()
    assert status.expect_partial() is status


def test_tf_graph_is_named_and_says_graphs_are_unsupported():
    with pytest.raises(NotImplementedError, match="runs eagerly only"):
        tf.Graph()
