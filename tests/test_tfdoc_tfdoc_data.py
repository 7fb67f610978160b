"""TensorFlow docstring examples (tf.data, tf.ragged, tf.strings, tf.io) that eagerkernel
diverged from. Expected values are TF's documented outputs (the docstring is named) or, where
marked, numbers printed by TensorFlow 2.21 (the oracle) for the same call."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

R = ek.io.RaggedFeature


# -- TensorSpec / DatasetSpec ---------------------------------------------------------------------


def test_tensorspec_from_spec():
    # tf.TensorSpec.from_spec docstring
    spec = ek.TensorSpec(shape=[8, 3], dtype=ek.int32, name="OriginalName")
    new = ek.TensorSpec.from_spec(spec, "NewName")
    assert new == ek.TensorSpec([8, 3], ek.int32, "NewName")
    assert ek.TensorSpec.from_spec(spec).name == "OriginalName"


def test_datasetspec_from_value():
    # oracle: DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))
    spec = ek.data.DatasetSpec.from_value(ek.data.Dataset.range(3))
    assert spec == ek.data.DatasetSpec(ek.TensorSpec([], ek.int64))


# -- Optional -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cls", [lambda: ek.data.experimental.Optional, lambda: ek.experimental.Optional]
)
def test_optional_from_value_gives_tensors_and_spec(cls):
    # tf.data.experimental.Optional docstring: tf.Tensor(42, shape=(), dtype=int32);
    # Optional.element_spec docstring: TensorSpec(shape=(), dtype=tf.int32, name=None)
    optional = cls().from_value(42)
    value = optional.get_value()
    assert isinstance(value, ek.Tensor) and value.dtype == ek.int32 and int(value) == 42
    assert optional.element_spec == ek.TensorSpec([], ek.int32)
    assert bool(optional.has_value())


def test_optional_structure_spec():
    # oracle: (TensorSpec((), int32), TensorSpec((), string), TensorSpec((2,), float32))
    optional = ek.experimental.Optional.from_value((1, "a", [1.0, 2.0]))
    assert optional.element_spec == (
        ek.TensorSpec([], ek.int32),
        ek.TensorSpec([], ek.string),
        ek.TensorSpec([2], ek.float32),
    )
    assert optional.get_value()[1].numpy() == b"a"


def test_iterator_get_next_as_optional_spec():
    # oracle: both TensorSpec(shape=(), dtype=tf.int64), also once the iterator is exhausted
    it = iter(ek.data.Dataset.range(1))
    first, end = it.get_next_as_optional(), it.get_next_as_optional()
    assert first.element_spec == ek.TensorSpec([], ek.int64)
    assert end.element_spec == ek.TensorSpec([], ek.int64)
    assert not bool(end.has_value())


# -- from_list / get_structure ---------------------------------------------------------------------


def test_from_list_docstring():
    # tf.data.experimental.from_list docstring
    ds = ek.data.experimental.from_list([(1, "a"), (2, "b"), (3, "c")])
    assert [(n.item(), s) for n, s in ds.as_numpy_iterator()] == [(1, b"a"), (2, b"b"), (3, b"c")]
    ds = ek.data.experimental.from_list([[1], [2, 3]])
    out = list(ds.as_numpy_iterator())
    assert [a.tolist() for a in out] == [[1], [2, 3]] and out[0].dtype == np.int32
    # oracle: TensorSpec(shape=(None,), dtype=tf.int32, name=None)
    assert ds.element_spec == ek.TensorSpec([None], ek.int32)


def test_from_list_errors_and_unknown_rank():
    with pytest.raises(ValueError, match="should not be empty"):
        ek.data.experimental.from_list([])
    with pytest.raises(ValueError, match="must be a list"):
        ek.data.experimental.from_list((1, 2))
    # oracle: {'a': TensorSpec(shape=<unknown>, dtype=tf.int32, name=None)}
    ds = ek.data.experimental.from_list([{"a": 1}, {"a": [2, 3]}])
    assert ds.element_spec["a"].shape.rank is None


def test_get_structure_docstring():
    # tf.data.experimental.get_structure docstring
    ds = ek.data.Dataset.from_tensor_slices([1, 2, 3])
    assert ek.data.experimental.get_structure(ds) == ek.TensorSpec([], ek.int32)
    assert ek.data.experimental.get_structure(iter(ds)) == ek.TensorSpec([], ek.int32)
    ds = ek.data.experimental.from_list([(1, "a"), (2, "b"), (3, "c")])
    assert ek.data.experimental.get_structure(ds) == (
        ek.TensorSpec([], ek.int32),
        ek.TensorSpec([], ek.string),
    )
    with pytest.raises(TypeError, match="dataset_or_iterator"):
        ek.data.experimental.get_structure(3)


# -- lookup tables from datasets -------------------------------------------------------------------


def _pairs():
    keys = ek.data.Dataset.range(100)
    values = ek.data.Dataset.range(100).map(lambda x: ek.strings.as_string(x * 2))
    return ek.data.Dataset.zip((keys, values))


def test_dataset_initializer_docstring():
    # tf.data.experimental.DatasetInitializer docstring
    init = ek.data.experimental.DatasetInitializer(_pairs())
    table = ek.lookup.StaticHashTable(init, "")
    out = table.lookup(ek.constant([0, 1, 2], dtype=ek.int64)).numpy()
    assert out.tolist() == [b"0", b"2", b"4"]
    # oracle: TypeError for a dataset of scalars (not pairs); ours says why as ValueError
    with pytest.raises(ValueError, match="key, value"):
        ek.data.experimental.DatasetInitializer(ek.data.Dataset.range(3))


def test_table_from_dataset_docstring_and_oov():
    # tf.data.experimental.table_from_dataset docstring
    table = ek.data.experimental.table_from_dataset(
        _pairs(), default_value="n/a", key_dtype=ek.int64
    )
    out = table.lookup(ek.constant([0, 1, 2, 500], dtype=ek.int64)).numpy()
    assert out.tolist() == [b"0", b"2", b"4", b"n/a"]
    # oracle: IdTableWithHashBuckets: [10 11 4 4], size 5
    ds = ek.data.Dataset.zip((ek.data.Dataset.range(3), ek.data.Dataset.range(10, 13)))
    table = ek.data.experimental.table_from_dataset(ds, num_oov_buckets=2, key_dtype=ek.int64)
    assert table.lookup(ek.constant([0, 1, 5, 9], ek.int64)).numpy().tolist() == [10, 11, 4, 4]
    assert int(table.size()) == 5
    with pytest.raises(ValueError, match="default_value"):
        ek.data.experimental.table_from_dataset(_pairs(), key_dtype=ek.int64)


def test_index_table_from_dataset():
    # oracle: [1 -1]
    ds = ek.data.Dataset.from_tensor_slices(["a", "b"])
    table = ek.data.experimental.index_table_from_dataset(ds)
    assert table.lookup(ek.constant(["b", "z"])).numpy().tolist() == [1, -1]


def test_bucket_by_sequence_length_pad_to_bucket_boundary():
    # tf.data.experimental.bucket_by_sequence_length docstring
    elements = [[0], [1, 2, 3, 4], [5, 6, 7], [7, 8, 9, 10, 11], [13, 14, 15, 16, 19, 20], [21, 22]]

    def run(drop_remainder):
        ds = ek.data.Dataset.from_generator(lambda: elements, ek.int32, output_shapes=[None])
        ds = ds.apply(
            ek.data.experimental.bucket_by_sequence_length(
                element_length_func=lambda elem: ek.shape(elem)[0],
                bucket_boundaries=[4, 7],
                bucket_batch_sizes=[2, 2, 2],
                pad_to_bucket_boundary=True,
                padding_values=-1,
                drop_remainder=drop_remainder,
            )
        )
        return [b.tolist() for b in ds.as_numpy_iterator()]

    expected = [
        [[0, -1, -1], [5, 6, 7]],
        [[1, 2, 3, 4, -1, -1], [7, 8, 9, 10, 11, -1]],
        [[21, 22, -1]],
        [[13, 14, 15, 16, 19, 20]],
    ]
    assert run(False) == expected
    assert run(True) == expected[:2]


# -- RaggedTensor ---------------------------------------------------------------------------------


def test_row_lengths_deeper_axes():
    # tf.RaggedTensor.row_lengths docstring
    rt = ek.ragged.constant([[[3, 1, 4], [1]], [], [[5, 9], [2]], [[6]], []])
    assert rt.row_lengths().numpy().tolist() == [2, 0, 2, 1, 0]
    assert rt.row_lengths(axis=2).to_list() == [[3, 1], [], [2, 1], [1], []]
    # oracle: rank-4 input, axis 3 and -1 alike; axis 0 is nrows
    rt = ek.ragged.constant([[[[1, 2]], [[3, 4], [5]]], [[[6]]]])
    assert rt.row_lengths(axis=3).to_list() == [[[2], [2, 1]], [[1]]]
    assert rt.row_lengths(-1).to_list() == [[[2], [2, 1]], [[1]]]
    assert int(rt.row_lengths(0)) == 2
    # oracle: uniform inner dimension
    dense_inner = ek.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    assert dense_inner.row_lengths(2).to_list() == [[2, 2], [2]]


def test_merge_dims():
    # tf.RaggedTensor.merge_dims docstring
    rt = ek.ragged.constant([[[1, 2], [3]], [[4, 5, 6]]])
    assert rt.merge_dims(0, 1).to_list() == [[1, 2], [3], [4, 5, 6]]
    assert rt.merge_dims(1, 2).to_list() == [[1, 2, 3], [4, 5, 6]]
    merged = rt.merge_dims(0, 2)
    assert isinstance(merged, ek.Tensor) and merged.numpy().tolist() == [1, 2, 3, 4, 5, 6]
    # oracle: rank 4, negative axes, uniform inner dimension
    rt = ek.ragged.constant([[[[1, 2]], [[3, 4], [5]]], [[[6]]]])
    assert rt.merge_dims(1, 3).to_list() == [[1, 2, 3, 4, 5], [6]]
    assert rt.merge_dims(-2, -1).to_list() == [[[1, 2], [3, 4, 5]], [[6]]]
    dense_inner = ek.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    assert dense_inner.merge_dims(1, 2).to_list() == [[1, 2, 3, 4], [5, 6]]
    with pytest.raises(ValueError, match="outer_axis"):
        rt.merge_dims(2, 1)


def test_nested_value_rowids():
    # tf.RaggedTensor.nested_value_rowids docstring
    rt = ek.ragged.constant([[[[3, 1, 4, 1], [], [5, 9, 2]], [], [[6], []]]])
    ids = rt.nested_value_rowids()
    assert [i.numpy().tolist() for i in ids] == [
        [0, 0, 0],
        [0, 0, 0, 2, 2],
        [0, 0, 0, 0, 2, 2, 2, 3],
    ]


def test_from_tensor_nested_lengths():
    # tf.RaggedTensor.from_tensor docstring
    dt = ek.constant([[[5, 0], [7, 0], [0, 0]], [[0, 0], [3, 0], [0, 0]], [[6, 0], [0, 0], [0, 0]]])
    rt = ek.RaggedTensor.from_tensor(dt, lengths=([2, 0, 3], [1, 1, 2, 0, 1]))
    assert rt.to_list() == [[[5], [7]], [], [[6, 0], [], [0]]]
    with pytest.raises(ValueError, match="ragged_rank"):
        ek.RaggedTensor.from_tensor(dt, lengths=([2, 0, 3], [1, 1, 2, 0, 1]), ragged_rank=3)


def test_ragged_tensor_spec_row_splits_dtype():
    # tf.RaggedTensorSpec.row_splits_dtype docstring (eagerkernel's splits are int64)
    rt = ek.RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 3], name=None)
    assert ek.type_spec_from_value(rt).row_splits_dtype == ek.int64


# -- tf.ragged ops --------------------------------------------------------------------------------


def _cross_inputs():
    return [
        ek.ragged.constant([["a"], ["b", "c"]]),
        ek.ragged.constant([["d"], ["e"]]),
        ek.ragged.constant([["f"], ["g"]]),
    ]


def test_ragged_cross_docstring():
    # tf.ragged.cross docstring
    out = ek.ragged.cross(_cross_inputs())
    assert out.to_list() == [[b"a_X_d_X_f"], [b"b_X_e_X_g", b"c_X_e_X_g"]]
    # oracle: inputs keep their order whatever their kind (RaggedCross's input_order)
    mixed = [
        ek.ragged.constant([["a"], ["b", "c"]]),
        ek.constant([[1, 2], [3, 4]]),
        ek.sparse.from_dense(ek.constant([["x"], ["y"]])),
    ]
    assert ek.ragged.cross(mixed).to_list() == [
        [b"a_X_1_X_x", b"a_X_2_X_x"],
        [b"b_X_3_X_y", b"b_X_4_X_y", b"c_X_3_X_y", b"c_X_4_X_y"],
    ]
    with pytest.raises(ValueError, match="Unexpected dtype"):
        ek.ragged.cross([ek.constant([[1.0]])])


def test_ragged_cross_hashed():
    pytest.importorskip("farmhash")
    # tf.ragged.cross_hashed docstring
    out = ek.ragged.cross_hashed(_cross_inputs(), num_buckets=100)
    assert out.to_list() == [[78], [66, 74]]
    # oracle: mixed kinds, and num_buckets=0 (the whole hash)
    mixed = [
        ek.ragged.constant([["a"], ["b", "c"]]),
        ek.constant([[1, 2], [3, 4]]),
        ek.sparse.from_dense(ek.constant([["x"], ["y"]])),
    ]
    assert ek.ragged.cross_hashed(mixed, num_buckets=1000).to_list() == [
        [67, 331],
        [71, 438, 271, 231],
    ]
    whole = ek.ragged.cross_hashed(mixed[:2]).to_list()
    assert whole[0] == [2928842892298887678, 7560904255693475987]


def test_stack_dynamic_partitions():
    # tf.ragged.stack_dynamic_partitions docstring
    out = ek.ragged.stack_dynamic_partitions(["a", "b", "c", "d", "e"], [3, 0, 2, 2, 3], 5)
    assert out.to_list() == [[b"b"], [], [b"c", b"d"], [b"a", b"e"], []]
    # oracle: 2-D partitions, ragged data, ragged partitions, scalar partition
    f = ek.ragged.stack_dynamic_partitions
    assert f([[1, 2], [3, 4], [5, 6]], [[0, 1], [1, 1], [0, 0]], 2).to_list() == [
        [1, 5, 6],
        [2, 3, 4],
    ]
    data = ek.ragged.constant([[1, 2], [3], [4, 5, 6]])
    assert f(data, [1, 0, 1], 3).to_list() == [[[3]], [[1, 2], [4, 5, 6]], []]
    parts = ek.ragged.constant([[0, 1], [1], [0, 0, 1]])
    assert f(data, parts, 2).to_list() == [[1, 4, 5], [2, 3, 6]]
    assert f([1, 2], 1, 3).to_list() == [[], [[1, 2]], []]
    with pytest.raises(ek.errors.InvalidArgumentError):
        f([1, 2], [0, 3], 3)


# -- tf.strings -----------------------------------------------------------------------------------


def test_unicode_split_with_offsets():
    # tf.strings.unicode_split_with_offsets docstring
    chars, offsets = ek.strings.unicode_split_with_offsets(
        ["G\u00f6\u00f6dnight", "\U0001f60a"], "UTF-8"
    )
    assert chars.to_list() == [
        [b"G", b"\xc3\xb6", b"\xc3\xb6", b"d", b"n", b"i", b"g", b"h", b"t"],
        [b"\xf0\x9f\x98\x8a"],
    ]
    assert offsets.to_list() == [[0, 1, 3, 5, 6, 7, 8, 9, 10], [0]]
    # oracle: a scalar gives Tensors
    chars, offsets = ek.strings.unicode_split_with_offsets("abc", "UTF-8")
    assert chars.numpy().tolist() == [b"a", b"b", b"c"] and offsets.numpy().tolist() == [0, 1, 2]


def test_unicode_transcode_other_input_encodings():
    # tf.strings.unicode_transcode docstring
    out = ek.strings.unicode_transcode(["A", "B", "C"], "US ASCII", "UTF-8").numpy()
    assert out.tolist() == [b"A", b"B", b"C"]
    # oracle: invalid ASCII replaced; ISO-8859-1 to UTF-16-BE; decode from latin1
    out = ek.strings.unicode_transcode([b"B\xe9"], "US ASCII", "UTF-8").numpy()
    assert out.tolist() == [b"B\xef\xbf\xbd"]
    out = ek.strings.unicode_transcode([b"B\xe9"], "ISO-8859-1", "UTF-16-BE").numpy()
    assert out.tolist() == [b"\x00B\x00\xe9"]
    assert ek.strings.unicode_decode([b"A\xe9"], "latin1").to_list() == [[65, 233]]
    with pytest.raises(ek.errors.InvalidArgumentError, match="input encoding: FOO"):
        ek.strings.unicode_transcode(["A"], "FOO", "UTF-8")


# -- tf.io ----------------------------------------------------------------------------------------


def _example(d: dict) -> bytes:
    feature = {k: ek.train.Feature(int64_list=ek.train.Int64List(value=v)) for k, v in d.items()}
    return ek.train.Example(features=ek.train.Features(feature=feature)).SerializeToString()


def _batch():
    return [
        _example({"v": [3, 1, 4, 1, 5, 9], "s1": [0, 2, 3, 3, 6], "s2": [0, 2, 3, 4],
                  "l": [2, 1, 0, 3], "ids": [0, 0, 1, 3, 3, 3], "st": [0, 2, 3, 3]}),
        _example({"v": [2, 7, 1, 8, 2, 8, 1], "s1": [0, 3, 4, 5, 7], "s2": [0, 1, 1, 4],
                  "l": [3, 1, 1, 2], "ids": [1, 1, 1, 2, 2, 2, 2], "st": [0, 3, 4, 5]}),
    ]  # fmt: skip


def test_ragged_feature_partitions_docstring():
    # tf.io.RaggedFeature docstring
    features = {
        "f1": R(value_key="v", dtype=ek.int64),
        "f2": R(value_key="v", dtype=ek.int64, partitions=[R.RowSplits("s1")]),
        "f3": R(value_key="v", dtype=ek.int64, partitions=[R.RowSplits("s2"), R.RowSplits("s1")]),
    }
    one = ek.io.parse_single_example(_batch()[0], features)
    assert sorted(one) == ["f1", "f2", "f3"]
    assert one["f1"].numpy().tolist() == [3, 1, 4, 1, 5, 9]
    assert one["f2"].to_list() == [[3, 1], [4], [], [1, 5, 9]]
    assert one["f3"].to_list() == [[[3, 1], [4]], [[]], [[1, 5, 9]]]
    batch = ek.io.parse_example(_batch(), features)
    assert batch["f1"].to_list() == [[3, 1, 4, 1, 5, 9], [2, 7, 1, 8, 2, 8, 1]]
    assert batch["f2"].to_list() == [[[3, 1], [4], [], [1, 5, 9]], [[2, 7, 1], [8], [2], [8, 1]]]
    assert batch["f3"].to_list() == [
        [[[3, 1], [4]], [[]], [[1, 5, 9]]],
        [[[2, 7, 1]], [], [[8], [2], [8, 1]]],
    ]


def test_ragged_feature_other_partitions():
    # oracle: RowLengths / RowStarts / ValueRowIds / UniformRowLength, single and batched
    features = {
        "a": R(ek.int64, "v", [R.RowLengths("l")]),
        "b": R(ek.int64, "v", [R.RowStarts("st")]),
        "d": R(ek.int64, "v", [R.ValueRowIds("ids")]),
        "f": R(ek.int64, "v", [R.UniformRowLength(2)]),
    }
    one = ek.io.parse_single_example(_batch()[0], features)
    for k in "abd":
        assert one[k].to_list() == [[3, 1], [4], [], [1, 5, 9]]
    assert one["f"].numpy().tolist() == [[3, 1], [4, 1], [5, 9]]
    del features["f"]  # 13 values in the batch do not reshape to rows of 2 (TF errors too)
    batch = ek.io.parse_example(_batch(), features)
    assert batch["a"].to_list() == [[[3, 1], [4], [], [1, 5, 9]], [[2, 7, 1], [8], [2], [8, 1]]]
    assert batch["b"].to_list() == batch["a"].to_list()
    assert batch["d"].to_list() == [[[3, 1], [4], [], [1, 5, 9]], [[], [2, 7, 1], [8, 2, 8, 1]]]
    with pytest.raises(TypeError, match="partitions"):
        R(ek.int64, "v", ["s1"])


def test_serialize_tensor_repr_keeps_trailing_nuls():
    # tf.io.serialize_tensor docstring: b'\x08...\x00' (the oracle's bytes are identical)
    t = ek.io.serialize_tensor(ek.constant(1))
    assert t.numpy() == b'\x08\x03\x12\x00"\x04\x01\x00\x00\x00'
    assert repr(t).endswith("numpy=b'\\x08\\x03\\x12\\x00\"\\x04\\x01\\x00\\x00\\x00'>")
    assert str(t).startswith("Tensor(b'\\x08\\x03\\x12\\x00\"\\x04\\x01\\x00\\x00\\x00'")
    nonscalar = ek.io.serialize_tensor(ek.constant([[1, 2], [7, 8]]))
    assert nonscalar.numpy() == (
        b'\x08\x03\x12\x08\x12\x02\x08\x02\x12\x02\x08\x02"\x10\x01\x00\x00\x00\x02\x00\x00\x00'
        b"\x07\x00\x00\x00\x08\x00\x00\x00"
    )
    assert ek.io.parse_tensor(nonscalar, ek.int32).numpy().tolist() == [[1, 2], [7, 8]]
