"""keras-io structured_data examples on eagerkernel: `keras.utils.FeatureSpace` and the
symbolic dtypes / configs of the preprocessing layers it builds on. Expected values were
computed with TensorFlow 2.21 + Keras 3.15 (the oracle venv) on the same inputs."""

import numpy as np
import pytest
from eagerkernel.keras.utils import FeatureSpace

import eagerkernel as ek
from eagerkernel import keras

RAW = {"f": [0.0, 0.1, 0.2, 0.3], "s": ["zero", "one", "two", "three"], "i": [0, 1, 2, 3]}


def _concat_space():
    fs = FeatureSpace(
        features={"f": "float_normalized", "s": "string_categorical", "i": "integer_categorical"},
        crosses=[("s", "i")],
        output_mode="concat",
    )
    fs.adapt(ek.data.Dataset.from_tensor_slices(RAW))
    return fs


def test_feature_space_concat_matches_keras():
    fs = _concat_space()
    out = fs(RAW)
    assert out.shape == (4, 43) and out.dtype == ek.float32
    out = out.numpy()
    # oracle: nonzero one-hot positions after the normalized column (i: 5, s: 5, cross: 32)
    assert [np.nonzero(r[1:])[0].tolist() for r in out] == [
        [4, 6, 31],
        [3, 9, 28],
        [2, 7, 37],
        [1, 8, 30],
    ]
    np.testing.assert_allclose(out[:, 0], [-1.3416407, -0.4472136, 0.4472135, 1.3416407], 1e-6)
    one = fs({"f": 0.1, "s": "one", "i": 1})  # scalars: the batch axis is dropped
    assert one.shape == (43,)
    np.testing.assert_allclose(one.numpy(), out[1], atol=1e-6)


def test_feature_space_functional_model():
    fs = _concat_space()
    inputs = fs.get_inputs()
    assert [(k, tuple(v.shape), v.dtype.name) for k, v in inputs.items()] == [
        ("f", (None, 1), "float32"),
        ("s", (None, 1), "string"),
        ("i", (None, 1), "int32"),
    ]
    encoded = fs.get_encoded_features()
    assert tuple(encoded.shape) == (None, 43) and encoded.dtype.name == "float32"
    model = keras.Model(inputs, encoded)
    got = model({k: np.asarray(v)[:, None] for k, v in RAW.items()})
    np.testing.assert_allclose(got.numpy(), fs(RAW).numpy(), atol=1e-6)


def test_feature_space_dict_int_modes_match_keras():
    d = FeatureSpace(
        features={
            "s": FeatureSpace.string_hashed(num_bins=3, output_mode="int"),
            "n": FeatureSpace.float_discretized(num_bins=3, output_mode="int"),
            "c": FeatureSpace.integer_categorical(num_oov_indices=0, output_mode="int"),
        },
        crosses=[FeatureSpace.cross(("s", "c"), crossing_dim=5, output_mode="int")],
        output_mode="dict",
    )
    d.adapt({"s": ["a", "b", "c", "d"], "n": [1.0, 2.0, 3.0, 4.0], "c": [5, 6, 6, 7]})
    np.testing.assert_allclose(d.preprocessors["n"].bin_boundaries, [1.3333334, 2.6666667])
    got = d({"s": "b", "n": 2.5, "c": 6})
    assert {k: (tuple(v.shape), v.dtype.name, v.numpy().tolist()) for k, v in got.items()} == {
        "c": ((1,), "int64", [0]),
        "n": ((1,), "int32", [1]),
        "s": ((1,), "int64", [1]),
        "s_X_c": ((1,), "int64", [3]),
    }
    got = d({"s": ["a", "d"], "n": [0.0, 9.0], "c": [7, 5]})
    assert {k: v.numpy().ravel().tolist() for k, v in got.items()} == {
        "c": [1, 2],
        "n": [0, 2],
        "s": [0, 2],
        "s_X_c": [3, 1],
    }


def test_feature_space_errors():
    with pytest.raises(ValueError, match="cannot be None or empty"):
        FeatureSpace({})
    with pytest.raises(ValueError, match="Invalid feature type"):
        FeatureSpace({"a": "nope"})
    with pytest.raises(ValueError, match="Received unknown features"):
        FeatureSpace({"a": "float"}, crosses=[("a", "b")])
    fs = FeatureSpace({"a": "float_normalized"})
    with pytest.raises(ValueError, match="You need to call"):
        fs({"a": [1.0]})
    fs = FeatureSpace({"a": FeatureSpace.integer_hashed(4, output_mode="int")})
    with pytest.raises(ValueError, match="has not been encoded"):
        fs.adapt({"a": [1, 2]})


def test_feature_space_save_and_load(tmp_path):
    fs = _concat_space()
    path = str(tmp_path / "fs.keras")
    fs.save(path)
    loaded = keras.saving.load_model(path)
    assert type(loaded) is FeatureSpace
    np.testing.assert_allclose(loaded(RAW).numpy(), fs(RAW).numpy(), atol=1e-6)


def test_preprocessing_symbolic_dtypes_match_keras():
    # oracle: KerasTensor dtypes of these layers on symbolic int32 / string inputs
    i = keras.Input(shape=(1,), dtype="int32")
    s = keras.Input(shape=(1,), dtype="string")
    assert keras.layers.CategoryEncoding(4)(i).dtype.name == "float32"
    assert keras.layers.HashedCrossing(4)([i, i]).dtype.name == "int64"
    lookup = keras.layers.IntegerLookup(vocabulary=[1, 2], output_mode="binary")
    assert lookup(i).dtype.name == "float32"
    count = keras.layers.StringLookup(vocabulary=["a", "b"], output_mode="count")
    assert count(s).dtype.name == "float32"
    assert keras.layers.StringLookup(vocabulary=["a", "b"])(s).dtype.name == "int64"


def test_adapted_discretization_config_round_trip():
    layer = keras.layers.Discretization(num_bins=3)
    layer.adapt(np.arange(10.0))
    config = layer.get_config()
    assert config["num_bins"] == 3 and config["bin_boundaries"] is not None
    clone = keras.layers.Discretization.from_config(config)
    # oracle: boundaries [2.3333333, 5.6666665]; 1 -> 0, 4 -> 1, 9 -> 2
    np.testing.assert_allclose(clone.bin_boundaries, [2.3333333, 5.6666665], 1e-6)
    assert clone(np.array([1.0, 4.0, 9.0])).numpy().tolist() == [0, 1, 2]
