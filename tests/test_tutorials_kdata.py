"""Divergences from TensorFlow 2.21 / Keras 3.15 found by running TensorFlow's tutorials
(keras/overfit_and_underfit, keras/save_and_load, keras/text_classification, load_data/*,
structured_data/*, customization/custom_training_walkthrough, distribute/*) on eagerkernel.
Expected values were printed by the oracle (tensorflow-cpu 2.21 with Keras 3.15) on the same
code, unless a comment says otherwise."""

import numpy as np
import pytest

import eagerkernel as tf


def _tiny_compiled_model():
    x = np.arange(8, dtype="float32").reshape(4, 2) / 8
    y = np.array([0, 1, 1, 0], "float32")
    m = tf.keras.Sequential(
        [tf.keras.Input((2,)), tf.keras.layers.Dense(1, kernel_initializer="ones")]
    )
    m.compile(
        "sgd",
        tf.keras.losses.BinaryCrossentropy(from_logits=True),
        metrics=["accuracy", tf.keras.metrics.AUC(name="auc")],
    )
    return m, x, y


def test_logs_are_sorted_like_keras3():
    # keras/overfit_and_underfit and keras/text_classification print history.history.keys()
    # and evaluate(return_dict=True); Keras 3's pythonify_logs sorts the keys, and fit appends
    # the sorted val_ keys after the sorted training keys.
    m, x, y = _tiny_compiled_model()
    h = m.fit(x, y, epochs=1, verbose=0, validation_data=(x, y))
    assert list(h.history) == ["accuracy", "auc", "loss", "val_accuracy", "val_auc", "val_loss"]
    logs = m.evaluate(x, y, verbose=0, return_dict=True)
    assert list(logs) == ["accuracy", "auc", "loss"]
    # the oracle: {'accuracy': 0.75, 'auc': 0.625, 'loss': 0.8174026012420654}
    assert logs["loss"] == pytest.approx(0.8174026012420654, rel=1e-6)
    assert logs["accuracy"] == 0.75 and logs["auc"] == 0.625
    assert list(m.test_on_batch(x, y, return_dict=True)) == ["accuracy", "auc", "loss"]


def test_flat_logs_keep_metrics_order():
    # without return_dict Keras 3 returns loss first, then the compiled metrics in order
    m, x, y = _tiny_compiled_model()
    m.fit(x, y, epochs=1, verbose=0)
    values = m.evaluate(x, y, verbose=0)
    np.testing.assert_allclose(values, [0.8174026012420654, 0.75, 0.625], rtol=1e-6)


def test_dataset_repr_uses_tensorflow_class_names():
    # keras/overfit_and_underfit prints `train_ds`, keras/text_classification a prefetched map;
    # the names are TensorFlow 2.21's reprs of the same pipelines
    d = tf.data.Dataset.range(6)
    names = {
        "<_RangeDataset": d,
        "<_BatchDataset": d.batch(2),
        "<_MapDataset": d.map(lambda x: x),
        "<CacheDataset": d.cache(),
        "<_PrefetchDataset": d.prefetch(1),
        "<_TensorSliceDataset": tf.data.Dataset.from_tensor_slices(np.arange(3)),
        "<_TensorDataset": tf.data.Dataset.from_tensors(1),
        "<_ShuffleDataset": d.shuffle(3),
        "<_ZipDataset": d.enumerate(),
        "<_OptionsDataset": d.with_options(tf.data.Options()),
    }
    for prefix, ds in names.items():
        assert repr(ds).startswith(prefix + " element_spec="), repr(ds)
    assert repr(d.take(2)) == (
        "<_TakeDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>".replace(
            "tf.", "ek."
        )
    )


class _ArrayLike:
    """Stands for a pandas DataFrame: an object NumPy converts through ``__array__``."""

    def __init__(self, values):
        self.values = np.asarray(values)

    def __array__(self, dtype=None, copy=None):
        return self.values if dtype is None else self.values.astype(dtype)


def test_layers_take_array_likes_as_keras3_does():
    # load_data/pandas_dataframe calls `normalizer(numeric_features.iloc[:3])` on a DataFrame;
    # Keras 3's DTypePolicy.convert_input converts anything with __array__ (float64 -> float32)
    frame = _ArrayLike([[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]])
    norm = tf.keras.layers.Normalization(axis=-1)
    norm.adapt(np.asarray(frame))
    out = norm(frame)
    assert out.dtype == tf.float32 and out.shape == (3, 2)
    # (x - mean) / std per column: -sqrt(3/2), 0, sqrt(3/2)
    np.testing.assert_allclose(out.numpy()[:, 0], [-1.2247448, 0.0, 1.2247448], rtol=1e-6)
    dense = tf.keras.layers.Dense(2, kernel_initializer="ones")
    np.testing.assert_array_equal(dense(frame).numpy(), [[5, 5], [7, 7], [9, 9]])
    flat = tf.keras.layers.Flatten()(frame)
    assert flat.dtype == tf.float32  # the oracle: float32, not the frame's float64


def test_fit_reads_a_pandas_series_as_a_column():
    # Keras 3's PandasSeriesSliceable: a Series is (n, 1), so the tutorial's dict of Series
    # concatenated on axis 1 works in predict/fit
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [4.0, 5.0, 6.0]})
    inputs = {k: tf.keras.Input(shape=(1,), name=k) for k in df}
    out = tf.keras.layers.Concatenate(axis=1)([inputs["a"], inputs["b"]])
    model = tf.keras.Model(inputs, out)
    pred = model.predict(dict(df), verbose=0)
    assert pred.shape == (3, 2) and pred.dtype == np.float32
    np.testing.assert_array_equal(pred, df.to_numpy())


def test_merging_promotes_int_and_float_as_keras3():
    # load_data/pandas_dataframe concatenates int64 Inputs with float32 ones; the oracle
    # (Keras 3.15): the KerasTensor is float32 whichever input comes first, and Add of int64
    # and float32 arrays gives float32
    a = tf.keras.Input((1,), dtype="int64")
    b = tf.keras.Input((2,), dtype="float32")
    assert tf.keras.layers.Concatenate()([a, b]).dtype == tf.float32
    assert tf.keras.layers.Concatenate()([b, a]).dtype == tf.float32
    out = tf.keras.layers.Add()([np.ones((1, 2), "int64"), np.full((1, 2), 0.5, "float32")])
    assert out.dtype == tf.float32
    np.testing.assert_array_equal(out.numpy(), [[1.5, 1.5]])
    ints = tf.keras.layers.Concatenate()([np.ones((1, 1), "int64"), np.ones((1, 2), "int64")])
    assert ints.dtype == tf.int64


def test_sequential_called_on_strings_exports_a_string_signature():
    # load_data/text exports Sequential([TextVectorization, Dense]) fitted on strings; Keras 3
    # builds it on the first layer's dtype, and the oracle's endpoint reads
    # "args_0: TensorSpec(shape=(None,), dtype=tf.string)"
    from eagerkernel.runtime.keras.export import input_signature_of

    tv = tf.keras.layers.TextVectorization(max_tokens=20, output_mode="binary")
    tv.adapt(tf.constant(["a b c", "b c d"]))
    model = tf.keras.Sequential([tv, tf.keras.layers.Dense(2, kernel_initializer="ones")])
    np.testing.assert_array_equal(model(tf.constant(["a b"])).numpy(), [[2.0, 2.0]])
    (spec,) = input_signature_of(model)
    assert spec.dtype == tf.string and tuple(spec.shape) == (None,)
    dense = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    dense(np.ones((1, 3)))  # float64 data: the signature stays the compute dtype
    assert input_signature_of(dense)[0].dtype == tf.float32


def _example(**feature):
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def test_parse_example_scalar_string_feature_holds_bytes():
    # load_data/tfrecord: tf.io.parse_example of scalar string features; the oracle gives
    # array([b'chicken', b'horse'], dtype=object), each element bytes (not a 0-d array)
    records = [
        _example(feature2=tf.train.Feature(bytes_list=tf.train.BytesList(value=[s])))
        for s in (b"chicken", b"horse")
    ]
    spec = {
        "feature2": tf.io.FixedLenFeature([], tf.string, default_value=""),
        "pair": tf.io.FixedLenFeature([2], tf.string, default_value=["a", "b"]),
    }
    out = tf.io.parse_example(tf.constant(records), spec)
    got = out["feature2"].numpy()
    assert got.shape == (2,) and [type(v) for v in got] == [bytes, bytes]
    assert got.tolist() == [b"chicken", b"horse"]
    assert out["pair"].numpy().tolist() == [[b"a", b"b"], [b"a", b"b"]]
    single = tf.io.parse_single_example(records[1], spec)
    assert single["feature2"].shape == () and single["feature2"].numpy() == b"horse"


def _early_stopping_run(values, capsys, **kwargs):
    model = tf.keras.Sequential(
        [
            tf.keras.Input((1,)),
            tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="zeros"),
        ]
    )
    cb = tf.keras.callbacks.EarlyStopping(
        monitor="val_loss", restore_best_weights=True, verbose=1, **kwargs
    )
    cb.set_model(model)
    cb.on_train_begin()
    for epoch, value in enumerate(values):
        model.layers[0].kernel.assign([[float(epoch)]])  # the weights tell the epoch
        cb.on_epoch_end(epoch, {"val_loss": value})
        if getattr(model, "stop_training", False):
            break
    cb.on_train_end()
    kernel = float(model.layers[0].kernel.numpy()[0, 0])
    return cb.stopped_epoch, cb.best_epoch, kernel, cb.wait, capsys.readouterr().out


def test_early_stopping_restores_best_weights_at_train_end(capsys):
    # structured_data/imbalanced_data fits with EarlyStopping(restore_best_weights=True);
    # Keras 3 restores the best epoch's weights when training ends even without stopping.
    # Every tuple below is what the oracle printed for the same calls.
    got = _early_stopping_run([3.0, 2.0, 1.0, 1.5], capsys, patience=5)
    assert got == (0, 2, 2.0, 1, "Restoring model weights from the end of the best epoch: 3.\n")
    got = _early_stopping_run([3.0, 2.0, 2.5, 2.6, 2.7], capsys, patience=2)
    assert got == (
        3,
        1,
        1.0,
        2,
        "Epoch 4: early stopping\nRestoring model weights from the end of the best epoch: 2.\n",
    )
    got = _early_stopping_run([3.0, 2.8, 2.9, 2.7], capsys, patience=2, baseline=2.75)
    assert got[:4] == (2, 1, 1.0, 3)


_TWO_CPUS = """
import eagerkernel as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(
    cpu, [tf.config.LogicalDeviceConfiguration() for _ in range(2)]
)
strategy = tf.distribute.MirroredStrategy()
print(strategy.num_replicas_in_sync)
ds = tf.data.Dataset.from_tensors(([1.0], [1.0])).repeat(4).batch(4)
x = next(iter(strategy.experimental_distribute_dataset(ds)))
print(strategy.run(lambda inputs: inputs[1] - 0.3 * inputs[0], args=(x,)))
print(tf.distribute.experimental.CentralStorageStrategy().num_replicas_in_sync)
"""


def test_mirrored_strategy_uses_every_logical_cpu():
    # distribute/input splits the CPU in two; TensorFlow's MirroredStrategy() then has two
    # replicas (all_local_devices) and print() of a PerReplica shows each value's str:
    # the oracle printed "2" and "PerReplica:{\n  0: tf.Tensor(\n[[0.7]\n [0.7]], shape=(2, 1),
    # dtype=float32),\n  1: ...}". CentralStorageStrategy keeps one CPU, as TensorFlow's.
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", _TWO_CPUS], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[0] == "2"
    assert out[1] == "PerReplica:{"
    assert out[2] == "  0: Tensor("
    assert out[4] == " [0.7]], shape=(2, 1), dtype=float32),"
    assert out[-1] == "1"
