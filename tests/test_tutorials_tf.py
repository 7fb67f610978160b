"""Behaviour TensorFlow's tutorials (site/en/tutorials in tensorflow/docs) rely on."""

import numpy as np
import pytest
from eagerkernel.keras import layers

import eagerkernel as ek


def test_sequential_takes_a_column_for_input_shape_1():
    # keras/regression: Sequential([Normalization(input_shape=[1], axis=None), Dense(1)])
    # predicts on a (batch,) array; Keras adds the trailing axis of size 1
    x = np.array([1.0, 2.0, 3.0, 4.0], "float32")
    norm = layers.Normalization(input_shape=[1], axis=None)
    norm.adapt(x)
    dense = layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")
    model = ek.keras.Sequential([norm, dense])
    out = model.predict(x, verbose=0)
    assert out.shape == (4, 1)
    expected = (x - x.mean()) / x.std()
    np.testing.assert_allclose(out[:, 0], expected, rtol=1e-5)
    model.compile(loss="mean_absolute_error", optimizer="adam")
    history = model.fit(x, x * 2, epochs=1, verbose=0)
    assert len(history.history["loss"]) == 1


def test_sequential_squeezes_a_trailing_axis_of_size_1():
    model = ek.keras.Sequential([ek.keras.Input((3,)), layers.Dense(2)])
    x = np.arange(6.0, dtype="float32").reshape(2, 3)
    np.testing.assert_allclose(model(x[..., None]).numpy(), model(x).numpy())


def test_sequential_other_rank_mismatch_still_raises():
    model = ek.keras.Sequential([ek.keras.Input((3,)), layers.Dense(2)])
    with pytest.raises(ValueError, match="expected min_ndim=2, found ndim=1"):
        model(np.zeros((3,), "float32"))


def test_functional_adjusts_input_rank_as_keras():
    inp = ek.keras.Input((1,))
    model = ek.keras.Model(inp, layers.Lambda(lambda t: t * 2.0)(inp))
    out = model(np.array([1.0, 2.0], "float32"))
    np.testing.assert_allclose(out.numpy(), [[2.0], [4.0]])
    inp3 = ek.keras.Input((3,))
    model3 = ek.keras.Model(inp3, layers.Lambda(lambda t: t + 1.0)(inp3))
    out3 = model3(np.zeros((2, 3, 1), "float32"))
    assert out3.shape.as_list() == [2, 3]
    with pytest.raises(ValueError, match=r"expected shape=\(None, 3\), found shape=\(2,\)"):
        model3(np.zeros((2,), "float32"))


def test_summary_of_sequential_with_adapted_first_layer(capsys):
    # keras/regression: build_and_compile_model(normalizer).summary() before any fit
    norm = layers.Normalization(axis=-1, name="norm")
    norm.adapt(np.random.RandomState(0).rand(10, 9).astype("float32"))
    model = ek.keras.Sequential([norm, layers.Dense(64, name="d1"), layers.Dense(1, name="d2")])
    model.summary()
    out = capsys.readouterr().out
    norm_row = next(line for line in out.splitlines() if line.startswith("norm"))
    assert norm_row.split()[-2:] == ["?", "19"]  # mean 9 + variance 9 + count 1
    assert out.count("0 (unbuilt)") == 2
    assert "Total params: 19" in out and "Trainable params: 0" in out
    assert "Non-trainable params: 19" in out
    model(np.zeros((2, 9), "float32"))
    model.summary()
    out = capsys.readouterr().out
    assert "(None, 64)" in out and "Total params: 724" in out  # 19 + 9*64+64 + 64+1


def test_schedules_take_an_array_of_steps():
    # keras/overfit_and_underfit plots lr_schedule(np.linspace(0, 100000))
    schedules = ek.keras.optimizers.schedules
    inv = schedules.InverseTimeDecay(0.001, decay_steps=20 * 1000, decay_rate=1, staircase=False)
    step = np.linspace(0, 100000)
    lr = inv(step)
    assert isinstance(lr, ek.Tensor) and lr.dtype == ek.float32 and lr.shape.as_list() == [50]
    np.testing.assert_allclose(lr.numpy(), 0.001 / (1 + step / 20000), rtol=1e-6)
    one = inv(20000)  # one step: a 0-d float32 tensor, as TensorFlow returns it
    assert isinstance(one, ek.Tensor) and one.shape == () and float(one) == np.float32(0.0005)
    stair = schedules.InverseTimeDecay(1.0, decay_steps=10, decay_rate=1, staircase=True)
    np.testing.assert_allclose(stair(ek.constant([9, 10, 25])).numpy(), [1.0, 0.5, 1 / 3])
    exp = schedules.ExponentialDecay(1.0, decay_steps=2, decay_rate=0.5, staircase=True)
    np.testing.assert_allclose(exp(np.array([[1, 2], [5, 6]])).numpy(), [[1, 0.5], [0.25, 0.125]])
    pw = schedules.PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1])
    np.testing.assert_allclose(pw(np.array([0, 10, 11, 20, 21])).numpy(), [1, 1, 0.5, 0.5, 0.1])
    assert float(pw(20)) == 0.5 and float(pw(21)) == np.float32(0.1)


def test_decode_csv_parses_columns_with_defaults():
    # load_data/csv: tf.io.decode_csv(lines, record_defaults=titanic_types)
    lines = ["0,male,22.0,1,0,7.25,Third,unknown,Southampton,n", "1,female,,1,0,71.2833,First,C,,n"]
    types = [0, "", 0.0, 0, 0, 0.0, "", "", "", ""]
    features = ek.io.decode_csv(lines, record_defaults=types)
    assert [f.dtype for f in features][:5] == [ek.int32, ek.string, ek.float32, ek.int32, ek.int32]
    assert [f.dtype for f in features][5:] == [ek.float32] + [ek.string] * 4
    assert all(f.shape.as_list() == [2] for f in features)
    np.testing.assert_array_equal(features[0].numpy(), [0, 1])
    np.testing.assert_allclose(features[2].numpy(), [22.0, 0.0])  # empty field -> default
    assert list(features[1].numpy()) == [b"male", b"female"]
    assert list(features[8].numpy()) == [b"Southampton", b""]
    strings = ek.io.decode_csv(lines, record_defaults=[""] * 10)
    assert all(f.dtype == ek.string for f in strings) and strings[5].numpy()[1] == b"71.2833"
    # a scalar record gives scalars; quotes enclose a delimiter; select_cols; na_value
    a, b = ek.io.decode_csv('"x,y",NA,3', [ek.string, 5], select_cols=[0, 1], na_value="NA")
    assert a.shape.as_list() == [] and a.numpy() == b"x,y" and int(b) == 5
    grid = ek.io.decode_csv(
        ek.constant([["1;2"], ["3;4"]]), [ek.int64, ek.float64], field_delim=";"
    )
    assert grid[0].dtype == ek.int64 and grid[0].numpy().tolist() == [[1], [3]]


def test_decode_csv_errors_name_the_record():
    with pytest.raises(
        ek.errors.InvalidArgumentError, match="Expect 3 fields but have 2 in record 1"
    ):
        ek.io.decode_csv(["1,2,3", "1,2"], [0, 0, 0])
    with pytest.raises(ek.errors.InvalidArgumentError, match="Field 1 is required but missing"):
        ek.io.decode_csv(["1,"], [0, ek.int32])
    with pytest.raises(ek.errors.InvalidArgumentError, match="Field 0 in record 0 is not a valid"):
        ek.io.decode_csv(["a"], [0.0])
    with pytest.raises(ValueError, match="record_defaults must be a non-empty list"):
        ek.io.decode_csv(["1"], [])
    with pytest.raises(TypeError, match="must have dtype"):
        ek.io.decode_csv(["1"], [True])
