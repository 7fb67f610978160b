"""Differential fuzzing of Keras 3's deterministic preprocessing layers against TensorFlow
2.21 (Keras 3.15): the expected values below were computed with that oracle (see each
comment) and hard-coded here."""

import numpy as np
import pytest

import eagerkernel as ek

L = ek.keras.layers


def test_adapt_drops_only_the_mask_and_oov_tokens():
    # TF 2.21: the empty string is a token unless it is the mask; the OOV token is not counted
    layer = L.StringLookup(
        mask_token="[MASK]", oov_token="[OOV]", output_mode="one_hot", max_tokens=6
    )
    layer.adapt(np.array([["", "b ", "b "], ["c", "b ", "x"], ["A", "", "b "]]))
    assert layer.get_vocabulary() == ["[OOV]", "b ", "", "x", "c", "A"]
    layer = L.StringLookup(mask_token="a")
    layer.adapt(np.array([["b ", "A", "[UNK]"], ["x", "x", "a"]]))
    assert layer.get_vocabulary() == ["a", "[UNK]", "x", "b ", "A"]
    np.testing.assert_array_equal(
        layer(ek.constant(["a", "x", "[UNK]", "zz"])).numpy(), [0, 2, 1, 1]
    )


def test_adapt_slices_to_max_tokens_without_checking_again():
    # TF 2.21: max_tokens=2 minus 3 OOV indices keeps all sorted tokens but the last
    layer = L.StringLookup(output_mode="one_hot", num_oov_indices=3, max_tokens=2)
    layer.adapt(np.array([["q", "a", "q"], ["b", "c", "a"]]))
    assert layer.get_vocabulary() == ["[UNK]", "[UNK]", "[UNK]", "q", "a", "c"]


def test_oov_token_in_a_vocabulary_is_refused_only_when_inverting():
    # TF 2.21: ['[UNK]', '[UNK]', '[UNK]', 'b'] and [3, 2, 1] ('q' hashes to OOV bucket 1)
    layer = L.StringLookup(vocabulary=["[UNK]", "b"], num_oov_indices=2)
    assert layer.get_vocabulary() == ["[UNK]", "[UNK]", "[UNK]", "b"]
    np.testing.assert_array_equal(layer(ek.constant(["b", "[UNK]", "q"])).numpy(), [3, 2, 1])
    with pytest.raises(ValueError, match="reserved token"):
        L.StringLookup(vocabulary=["[UNK]", "b"], num_oov_indices=2, invert=True)
    # the mask token is refused in every output mode (TF: "Found reserved mask token")
    with pytest.raises(ValueError, match=r"IntegerLookup: .*reserved token 0"):
        L.IntegerLookup(output_mode="one_hot", mask_token=0, vocabulary=[6, -2, 0, -3])


def test_vocabulary_files(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("x\ny\nz\n", encoding="utf-8")
    # TF 2.21 does not check a file's size against max_tokens
    assert L.StringLookup(vocabulary=str(path), max_tokens=2).get_vocabulary() == [
        "[UNK]",
        "x",
        "y",
        "z",
    ]
    with pytest.raises(ValueError, match=r"StringLookup: .*'tf_idf'.* from file"):
        L.StringLookup(vocabulary=str(path), output_mode="tf_idf", idf_weights=[1.0, 1.0, 1.0])
    bad = tmp_path / "v2.txt"
    bad.write_text("x\n\ny\n", encoding="utf-8")
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"StringLookup: .*empty line"):
        L.StringLookup(vocabulary=str(bad))


def test_idf_weights_cover_the_special_tokens_when_given_with_them():
    # TF 2.21: [1.5, 0.25] (three OOV values at weight 0.5, then 9)
    layer = L.IntegerLookup(output_mode="tf_idf", vocabulary=[-1, 9], idf_weights=[0.5, 0.25])
    np.testing.assert_allclose(layer(ek.constant([9, 8, 13, -3])).numpy(), [1.5, 0.25])


def test_lookup_with_no_oov_index_raises_invalid_argument():
    # TF 2.21 raises InvalidArgumentError (its lookup assertion)
    with pytest.raises(
        ek.errors.InvalidArgumentError, match=r"StringLookup: 'b'.*num_oov_indices=0"
    ):
        L.StringLookup(vocabulary=["a"], num_oov_indices=0)(ek.constant(["b"]))


def test_text_vectorization_lowers_ascii_only_and_takes_a_split_callable():
    # TF 2.21: tf.strings.lower changes ASCII letters only
    layer = L.TextVectorization(standardize="lower")
    layer.adapt(np.array(["Éa ΩB İx"]))
    assert layer.get_vocabulary() == ["", "[UNK]", "Ωb", "İx", "Éa"]
    layer = L.TextVectorization(split=lambda x: ek.strings.split(x, ","))
    layer.adapt(np.array(["a,b c", "d"]))
    assert layer.get_vocabulary() == ["", "[UNK]", "d", "ab c"]
    np.testing.assert_array_equal(layer(ek.constant(["d,zz", "a,b c,d"])).numpy(), [[1], [1]])


def test_text_vectorization_encoded_modes_drop_empty_tokens():
    # TF 2.21: [[0, 0], [0, 1], [1, 0]] (the empty string is the mask token)
    layer = L.TextVectorization(output_mode="count", split=None, vocabulary=["a"])
    out = layer(ek.constant([[""], ["a"], ["b"]])).numpy()
    np.testing.assert_array_equal(out, [[0, 0], [0, 1], [1, 0]])


def test_text_vectorization_split_none_one_dimensional_batch_is_one_sequence():
    # TF 2.21: [2, 3, 1] and [1, 1, 0]
    layer = L.TextVectorization(
        standardize=None, split=None, output_sequence_length=3, vocabulary=["a", "b"]
    )
    np.testing.assert_array_equal(layer(ek.constant(["a", "b", "c", "a"])).numpy(), [2, 3, 1])
    layer = L.TextVectorization(
        standardize=None, split=None, output_mode="multi_hot", vocabulary=["a", "b"]
    )
    np.testing.assert_array_equal(layer(ek.constant(["a", "c"])).numpy(), [1, 1, 0])


def test_text_vectorization_adapt_documents():
    # TF 2.21: a 1-D array is one document per string; a 1-D Dataset batch one document
    layer = L.TextVectorization(standardize=None, split=None, output_mode="tf_idf")
    layer.adapt(np.array(["a", "b", "a", "c"]))
    assert layer.get_vocabulary() == ["[UNK]", "a", "c", "b"]
    np.testing.assert_allclose(
        layer(ek.constant([["a"], ["c"]])).numpy(),
        [[0.0, 0.84729785, 0.0, 0.0], [0.0, 0.0, 1.0986123, 0.0]],
        rtol=1e-6,
    )
    layer = L.TextVectorization(standardize=None, split=None, output_mode="tf_idf")
    layer.adapt(ek.data.Dataset.from_tensor_slices(["a", "b", "a", "c"]).batch(2))
    np.testing.assert_allclose(
        layer(ek.constant([["a"], ["c"]])).numpy(),
        [[0.0, 0.51082563, 0.0, 0.0], [0.0, 0.0, 0.6931472, 0.0]],
        rtol=1e-6,
    )


def test_text_vectorization_ragged_truncation_and_output_shape():
    # TF 2.21: ragged rows are cut to output_sequence_length too: [[2, 3], [3]]
    layer = L.TextVectorization(ragged=True, output_sequence_length=2, vocabulary=["a", "b"])
    assert layer(ek.constant(["a b a", "b"])).to_list() == [[2, 3], [3]]
    # TF 2.21's compute_output_shape: [(None, 1, 3), (None, 3), (None, 5), (None, 5), (None, 4)]
    count = L.TextVectorization(output_mode="count", vocabulary=["a", "b"])
    padded = L.TextVectorization(
        output_mode="multi_hot", split=None, max_tokens=5, pad_to_max_tokens=True, vocabulary=["a"]
    )
    ints = L.TextVectorization(output_sequence_length=4, vocabulary=["a"])
    assert [
        count.compute_output_shape((None, 1)),
        count.compute_output_shape((None,)),
        padded.compute_output_shape((None,)),
        padded.compute_output_shape((None, 1)),
        ints.compute_output_shape((None, 1)),
    ] == [(None, 1, 3), (None, 3), (None, 5), (None, 5), (None, 4)]


def test_hashing_output_shape_and_mask_dtype():
    # TF 2.21: [(None, 5), (5,), (None, 5)]; a mask of the other kind: TypeError
    layer = L.Hashing(num_bins=5, output_mode="one_hot")
    shapes = [layer.compute_output_shape(s) for s in [(None, 3), (None,), (None, 1)]]
    assert shapes == [(None, 5), (5,), (None, 5)]
    with pytest.raises(TypeError, match=r"Hashing: .*mask_value=0"):
        L.Hashing(num_bins=5, mask_value=0)(ek.constant(["a"]))
    with pytest.raises(TypeError, match=r"Hashing: .*mask_value=''"):
        L.Hashing(num_bins=5, mask_value="")(ek.constant([1, 2]))


def test_category_encoding_scalars_and_out_of_range_ids():
    # TF 2.21 values (one_hot: zero rows; bincount drops ids >= num_tokens, refuses negatives)
    one_hot = L.CategoryEncoding(num_tokens=3, output_mode="one_hot")
    np.testing.assert_array_equal(one_hot(ek.constant(1)).numpy(), [[0, 1, 0]])
    np.testing.assert_array_equal(
        one_hot(ek.constant([3, -1, 1])).numpy(), [[0, 0, 0], [0, 0, 0], [0, 1, 0]]
    )
    count = L.CategoryEncoding(num_tokens=3, output_mode="count")
    np.testing.assert_array_equal(
        count(ek.constant([[3, 0, 0], [1, 5, 2]])).numpy(), [[2, 0, 0], [0, 1, 1]]
    )
    weights = ek.constant([0.5, 0.25, 2.0])
    np.testing.assert_allclose(
        count(ek.constant([3, 0, 2]), count_weights=weights).numpy(), [0.25, 0.0, 2.0]
    )
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"CategoryEncoding: .*negative"):
        L.CategoryEncoding(num_tokens=3, output_mode="multi_hot")(ek.constant([[-1, 0]]))


def test_resizing_integer_images_come_back_rounded_in_their_dtype():
    # TF 2.21 (Keras rounds and saturate-casts back to uint8)
    x = np.array([[[0], [255], [100]], [[7], [8], [9]]], np.uint8)
    out = L.Resizing(3, 2, interpolation="bilinear")(x)
    assert out.dtype == ek.uint8
    np.testing.assert_array_equal(out.numpy()[..., 0], [[64, 139], [36, 74], [7, 9]])
    out = L.Resizing(4, 4, interpolation="bicubic")(x)
    np.testing.assert_array_equal(
        out.numpy()[..., 0],
        [[0, 185, 233, 99], [0, 137, 172, 75], [3, 41, 51, 26], [9, 0, 0, 2]],
    )


_POLICY = {
    "module": "keras",
    "class_name": "DTypePolicy",
    "config": {"name": "float32"},
    "registered_name": None,
}


def test_keras3_configs_load():
    # get_config() output of TF 2.21's Keras 3.15 layers (copied), loaded here
    common = {"trainable": True, "dtype": _POLICY, "max_tokens": None, "sparse": False}
    lookup = {**common, "invert": False, "pad_to_max_tokens": False, "idf_weights": None}
    string = L.StringLookup.from_config(
        {
            **lookup,
            "name": "string_lookup",
            "num_oov_indices": 2,
            "oov_token": "[UNK]",
            "mask_token": "",
            "output_mode": "int",
            "vocabulary": ["a", "b"],
            "vocabulary_size": 5,
            "oov_method": "floormod",
            "salt": None,
            "encoding": "utf-8",
        }
    )
    np.testing.assert_array_equal(string(ek.constant(["b", ""])).numpy(), [4, 0])
    integer = L.IntegerLookup.from_config(
        {
            **lookup,
            "name": "integer_lookup",
            "num_oov_indices": 1,
            "oov_token": -1,
            "mask_token": None,
            "output_mode": "multi_hot",
            "vocabulary_dtype": "int64",
            "vocabulary": [3, 4],
            "vocabulary_size": 3,
            "oov_method": "floormod",
            "salt": None,
        }
    )
    np.testing.assert_array_equal(integer(ek.constant([[4, 9]])).numpy(), [[1, 0, 1]])
    text = L.TextVectorization.from_config(
        {
            **common,
            "name": "text_vectorization",
            "standardize": "lower_and_strip_punctuation",
            "split": "whitespace",
            "ngrams": 2,
            "output_mode": "int",
            "output_sequence_length": 3,
            "pad_to_max_tokens": False,
            "ragged": False,
            "vocabulary": ["a", "b"],
            "idf_weights": None,
            "encoding": "utf-8",
            "vocabulary_size": 4,
        }
    )
    np.testing.assert_array_equal(text(ek.constant(["a b"])).numpy(), [[2, 3, 1]])
    image = {"trainable": True, "dtype": _POLICY, "data_format": "channels_last"}
    resizing = L.Resizing.from_config(
        {
            **image,
            "name": "resizing",
            "height": 3,
            "width": 4,
            "interpolation": "nearest",
            "crop_to_aspect_ratio": True,
            "pad_to_aspect_ratio": False,
            "fill_mode": "constant",
            "fill_value": 0.0,
            "antialias": False,
        }
    )
    assert resizing(np.zeros((5, 7, 2), np.float32)).shape == (3, 4, 2)
    crop = L.CenterCrop.from_config({**image, "name": "center_crop", "height": 2, "width": 3})
    assert crop(np.zeros((5, 7, 2), np.float32)).shape == (2, 3, 2)
    with pytest.raises(NotImplementedError, match="CenterCrop: data_format='channels_first'"):
        L.CenterCrop(2, 3, data_format="channels_first")
    with pytest.raises(NotImplementedError, match="IntegerLookup: only oov_method='floormod'"):
        L.IntegerLookup(oov_method="farmhash")
