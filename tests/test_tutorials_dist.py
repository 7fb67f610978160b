"""Divergences found running TensorFlow's distribute / generative / audio / video tutorials
(distribute/keras, distribute/save_and_load, multi_worker_*, cyclegan, music_generation,
video_classification) against eagerkernel; expected values come from the oracle
(tensorflow-cpu 2.21 + Keras 3.15) as noted per test."""

import json

import numpy as np
import pytest

import eagerkernel as ek


def test_fit_verbose2_prints_small_values_in_e_notation(capsys):
    # distribute/keras: LearningRateScheduler drops the rate to 1e-4; Keras 3.15 prints
    # "loss: 0.0000e+00 - learning_rate: 1.0000e-04" (oracle run of this same model).
    model = ek.keras.Sequential([ek.keras.layers.Dense(1, kernel_initializer="zeros")])
    model.compile(optimizer=ek.keras.optimizers.SGD(1e-4), loss="mse")
    x, y = np.zeros((4, 2), "float32"), np.zeros((4, 1), "float32")
    sched = ek.keras.callbacks.LearningRateScheduler(lambda epoch: 1e-4)
    model.fit(x, y, epochs=1, verbose=2, callbacks=[sched])
    assert capsys.readouterr().out.endswith("loss: 0.0000e+00 - learning_rate: 1.0000e-04\n")
    model.evaluate(x, y, verbose=2)
    assert capsys.readouterr().out == "1/1 - loss: 0.0000e+00\n"


def test_save_options_accept_the_local_host_as_io_device(tmp_path):
    # distribute/save_and_load passes experimental_io_device='/job:localhost' to SaveOptions
    # and LoadOptions; TensorFlow accepts it (oracle: both constructors return), and so does a
    # round trip through ek.saved_model here.
    save_options = ek.saved_model.SaveOptions(experimental_io_device="/job:localhost")
    load_options = ek.saved_model.LoadOptions(experimental_io_device="/job:localhost")
    module = ek.Module()
    module.v = ek.Variable([1.0, 2.0])
    ek.saved_model.save(module, str(tmp_path / "m"), options=save_options)
    loaded = ek.saved_model.load(str(tmp_path / "m"), options=load_options)
    np.testing.assert_array_equal(loaded.v.numpy(), [1.0, 2.0])
    with pytest.raises(NotImplementedError, match="experimental_io_device"):
        ek.saved_model.SaveOptions(experimental_io_device="/job:worker/task:1")


def test_model_save_rejects_tf2_options_with_keras3_value_error(tmp_path):
    # Keras 3.15 (oracle): model.save("m.keras", options=...) raises
    # ValueError("The following argument(s) are not supported: ['options']").
    model = ek.keras.Sequential([ek.keras.Input((2,)), ek.keras.layers.Dense(1)])
    with pytest.raises(
        ValueError, match=r"^The following argument\(s\) are not supported: \['options'\]$"
    ):
        model.save(str(tmp_path / "m.keras"), options=object())


class _Singleton:
    """A communicator of one process, as mpi4py gives a script not started by mpiexec."""

    rank, size = 0, 1


def test_tf_config_user_without_mpiexec_is_told_how_to_launch(monkeypatch):
    # distribute/multi_worker_with_keras starts `python main.py` once per TF_CONFIG task;
    # eagerkernel's workers come from MPI, so each such process is a world of one. The error
    # must say so and give the mpiexec command line (for the 2 tasks of the tutorial).
    cluster = {"worker": ["localhost:12345", "localhost:23456"]}
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster, "task": {"index": 0}}))
    with pytest.raises(ValueError) as info:
        ek.distribute.cluster_resolver.MPIClusterResolver(communicator=_Singleton())
    message = str(info.value)
    assert message.startswith("TF_CONFIG names 2 tasks (0 chief, 2 worker), but this process ")
    assert "not started by an MPI launcher" in message
    assert "`mpiexec -n 2 python script.py`" in message
    monkeypatch.delenv("TF_CONFIG")
    resolver = ek.distribute.cluster_resolver.MPIClusterResolver(communicator=_Singleton())
    # A local run is worker 0 of 1 here (TensorFlow's resolver says None, None; the
    # tutorial's _is_chief accepts both).
    assert (resolver.task_type, resolver.task_id, resolver.num_workers) == ("worker", 0, 1)


_WORKER_STEP = """
import json, sys
import numpy as np
import eagerkernel as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
rank = strategy.cluster_resolver.task_id
x_local = tf.constant([[1.0, 2.0], [3.0, 4.0]][rank])  # worker 0's batch, worker 1's batch
with strategy.scope():
    w = tf.Variable(0.0)
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)
    mean_x = tf.keras.metrics.Mean()

@tf.function
def train_step(x):
    def step_fn(x):
        with tf.GradientTape() as tape:
            loss = tf.nn.compute_average_loss(w * x, global_batch_size=4)
        optimizer.apply_gradients([(tape.gradient(loss, w), w)])
        mean_x.update_state(x)
        return loss
    return strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(step_fn, args=(x,)), None)

losses = [float(train_step(x_local)) for _ in range(3)]
print(json.dumps({"rank": rank, "w": float(w.numpy()), "mean": float(mean_x.result()),
                  "losses": losses}))
"""


def test_traced_train_step_syncs_gradients_across_workers_on_every_call(tmp_path):
    # distribute/multi_worker_with_ctl: an ek.function train step under
    # MultiWorkerMirroredStrategy (one replica per worker). Its replays used to skip the
    # cross-worker all-reduce (the workers' weights drifted apart from the second call on).
    # Closed form: the summed gradient is (1+2+3+4)/4 = 2.5 every step, so after 3 SGD steps of
    # 0.1, w = -0.75 on both workers; loss_k = w_k * 10/4 = 0, -0.625, -1.25; Mean(x) = 2.5
    # over both workers (TF's metrics read across workers; oracle: 2.0 for the tutorial's
    # Mean of [1, 2] and [3], run with two TF_CONFIG workers).
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    mpiexec = Path(sys.executable).parent / "mpiexec"
    if not mpiexec.exists() or shutil.which(str(mpiexec)) is None:
        pytest.skip("no mpiexec next to the interpreter (the distributed extra)")
    pytest.importorskip("mpi4py")
    script = tmp_path / "step.py"
    script.write_text(_WORKER_STEP)
    cmd = [str(mpiexec), "-n", "2", "--oversubscribe"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    env = {
        k: v for k, v in os.environ.items() if k not in ("TF_CONFIG", "EAGERKERNEL_VIRTUAL_GPUS")
    }
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([root, env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [*cmd, sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    results = sorted(
        (json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")),
        key=lambda r: r["rank"],
    )
    assert [r["rank"] for r in results] == [0, 1]
    for r in results:
        np.testing.assert_allclose(r["w"], -0.75, rtol=1e-6)
        np.testing.assert_allclose(r["losses"], [0.0, -0.625, -1.25], rtol=1e-6)
        np.testing.assert_allclose(r["mean"], 2.5, rtol=1e-6)


def test_train_cluster_spec_is_available():
    # distribute/multi_worker_with_ctl builds tf.train.ClusterSpec(tf_config['cluster']) and
    # reads cluster_spec.as_dict() (oracle: the same dict back).
    cluster = {"worker": ["localhost:12345", "localhost:23456"]}
    spec = ek.train.ClusterSpec(cluster)
    assert spec.as_dict() == cluster
    assert spec.num_tasks("worker") == 2
    assert "chief" not in spec.as_dict()


def test_concat_of_one_tensor_returns_it():
    # video_classification: tf.concat(model.predict(ds), axis=0) on one (N, classes) array.
    # TensorFlow wraps a value that is not a list in a list: the (2, 3) array comes back
    # (oracle: shape (2, 3) for an ndarray and for a tensor), not its rows joined into (6,).
    a = np.arange(6, dtype="float32").reshape(2, 3)
    for value in (a, ek.constant(a)):
        out = ek.concat(value, axis=0)
        assert out.shape == (2, 3)
        np.testing.assert_array_equal(out.numpy(), a)
    assert ek.concat([a, a], axis=0).shape == (4, 3)


def test_sequential_inside_a_custom_layer_has_keras3_weight_paths():
    # video_classification's Conv2Plus1D holds a Sequential; Keras 3.15 (oracle) names its
    # weights block/sequential/dense/kernel, under the holding layer's name.
    keras = ek.keras

    class Block(keras.layers.Layer):
        def __init__(self):
            super().__init__(name="block")
            self.seq = keras.Sequential([keras.layers.Dense(2, name="inner")], name="seq")
            self.out = keras.layers.Dense(3, name="outer")

        def call(self, x):
            return self.out(self.seq(x))

    block = Block()
    block(ek.ones((1, 4)))
    assert [w.path for w in block.weights] == [
        "block/seq/inner/kernel",
        "block/seq/inner/bias",
        "block/outer/kernel",
        "block/outer/bias",
    ]
    top = keras.Sequential([keras.layers.Dense(2, name="d")], name="top")
    top(ek.ones((1, 4)))
    assert [w.path for w in top.weights] == ["top/d/kernel", "top/d/bias"]


def test_load_model_of_a_missing_file_raises_keras_value_error(tmp_path):
    # Keras 3.15: ValueError("File not found: filepath=nope.keras. Please ensure the file is an
    # accessible `.keras` zip file."); a FileNotFoundError too, for code that catches that.
    path = str(tmp_path / "nope.keras")
    with pytest.raises(ValueError, match=r"^File not found: filepath=.*nope\.keras\. Please"):
        ek.keras.models.load_model(path)
    with pytest.raises(FileNotFoundError):
        ek.keras.models.load_model(path)


def test_loaded_signature_outputs_are_named_by_their_keys(tmp_path):
    # TF 2.21: {'output_0': TensorSpec(shape=(None, 2), dtype=tf.float32, name='output_0')}
    class M(ek.Module):
        @ek.function(input_signature=[ek.TensorSpec([None, 2], ek.float32)])
        def f(self, x):
            return x * 2

    m = M()
    ek.saved_model.save(m, str(tmp_path), signatures=m.f)
    outputs = ek.saved_model.load(str(tmp_path)).signatures["serving_default"].structured_outputs
    assert list(outputs) == ["output_0"]
    spec = outputs["output_0"]
    assert (spec.name, tuple(spec.shape), spec.dtype) == ("output_0", (None, 2), ek.float32)
