"""`ek.lookup` (follows `tf.lookup`): static, vocabulary and mutable tables, initializers."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as tf


def _table(default=-1):
    init = tf.lookup.KeyValueTensorInitializer(tf.constant(["a", "b", "c"]), tf.constant([7, 8, 9]))
    return tf.lookup.StaticHashTable(init, default_value=default)


def _write(tmp_path, text, name="vocab.txt"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# -- StaticHashTable ----------------------------------------------------------------------------


def test_static_hash_table_doc_example():
    table = _table()
    out = table.lookup(tf.constant(["a", "f"]))
    assert out.dtype == tf.int32
    np.testing.assert_array_equal(out.numpy(), [7, -1])
    np.testing.assert_array_equal(table[tf.constant(["c", "b"])].numpy(), [9, 8])
    assert table.size().numpy() == 3 and table.size().dtype == tf.int64
    assert table.key_dtype == tf.string and table.value_dtype == tf.int32
    assert table.default_value.numpy() == -1


def test_static_hash_table_any_shape_and_scalar():
    table = _table(default=0)
    out = table.lookup(tf.constant([["a", "x"], ["c", "b"]]))
    assert out.shape == (2, 2)
    np.testing.assert_array_equal(out.numpy(), [[7, 0], [9, 8]])
    assert table.lookup(tf.constant("b")).numpy() == 8
    assert table.lookup(tf.constant("b")).shape == ()
    assert table.lookup(tf.constant(np.empty((0, 3), object))).shape == (0, 3)


def test_static_hash_table_python_keys_are_converted():
    np.testing.assert_array_equal(_table().lookup(["b", "zz"]).numpy(), [8, -1])


def test_static_hash_table_ragged_and_sparse_keys():
    table = _table()
    rt = table.lookup(tf.ragged.constant([["a"], ["b", "f"], []]))
    assert isinstance(rt, tf.RaggedTensor)
    assert rt.to_list() == [[7], [8, -1], []]
    st = tf.SparseTensor([[0, 0], [1, 2]], tf.constant(["c", "q"]), [2, 3])
    out = table[st]
    assert isinstance(out, tf.SparseTensor)
    np.testing.assert_array_equal(out.values.numpy(), [9, -1])
    np.testing.assert_array_equal(out.indices.numpy(), [[0, 0], [1, 2]])


def test_static_hash_table_int_keys_string_values():
    init = tf.lookup.KeyValueTensorInitializer(
        tf.constant([10, 20, 30], tf.int64), tf.constant(["ten", "twenty", "thirty"])
    )
    table = tf.lookup.StaticHashTable(init, default_value="?")
    out = table.lookup(tf.constant([[30, 5], [10, 20]], tf.int64))
    assert out.dtype == tf.string
    assert out.numpy().tolist() == [[b"thirty", b"?"], [b"ten", b"twenty"]]


def test_static_hash_table_export():
    keys, values = _table().export()
    assert keys.dtype == tf.string and values.dtype == tf.int32
    assert dict(zip(keys.numpy().tolist(), values.numpy().tolist())) == {
        b"a": 7,
        b"b": 8,
        b"c": 9,
    }


def test_initializer_dtypes_and_casts():
    init = tf.lookup.KeyValueTensorInitializer([1, 2], [0.5, 1.5], tf.int64, tf.float64)
    assert (init.key_dtype, init.value_dtype) == (tf.int64, tf.float64)
    table = tf.lookup.StaticHashTable(init, 0)
    assert table.default_value.dtype == tf.float64
    np.testing.assert_array_equal(table.lookup(tf.constant([2, 3], tf.int64)).numpy(), [1.5, 0])


def test_table_in_dataset_map_and_function():
    table = _table()
    ds = tf.data.Dataset.from_tensor_slices(["a", "b", "q"]).map(lambda s: table[s])
    assert [int(v) for v in ds.as_numpy_iterator()] == [7, 8, -1]

    @tf.function
    def f(x):
        return table.lookup(x) * 2

    np.testing.assert_array_equal(f(tf.constant(["c", "z"])).numpy(), [18, -2])


# -- errors -------------------------------------------------------------------------------------


def test_wrong_key_dtype_names_table_and_dtypes():
    table = _table()
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"StaticHashTable.*string.*int32"):
        table.lookup(tf.constant([1, 2]))
    with pytest.raises(TypeError):
        table.lookup(tf.constant([1, 2]))
    m = tf.lookup.experimental.MutableHashTable(tf.int64, tf.int64, -1)
    with pytest.raises(TypeError, match=r"MutableHashTable.*int64.*string"):
        m.lookup(tf.constant(["a"]))
    with pytest.raises(TypeError, match="MutableHashTable"):
        m.insert(tf.constant(["a"]), tf.constant([1], tf.int64))


def test_initializer_and_table_argument_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected shape \\[2\\]"):
        tf.lookup.KeyValueTensorInitializer(["a", "b"], [1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Keys must be a vector"):
        tf.lookup.KeyValueTensorInitializer([["a"]], [[1]])
    init = tf.lookup.KeyValueTensorInitializer(["a", "a"], [1, 2])
    with pytest.raises(tf.errors.FailedPreconditionError, match="different value for same key"):
        tf.lookup.StaticHashTable(init, -1)
    same = tf.lookup.KeyValueTensorInitializer(["a", "a"], [1, 1])
    assert tf.lookup.StaticHashTable(same, -1).size().numpy() == 1
    with pytest.raises(TypeError, match="default_value"):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a"], [1]), "x")
    with pytest.raises(tf.errors.InvalidArgumentError, match="scalar"):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a"], [1]), [1, 2])


# -- StaticVocabularyTable ----------------------------------------------------------------------


def _vocab_init():
    return tf.lookup.KeyValueTensorInitializer(
        keys=tf.constant(["emerson", "lake", "palmer"]),
        values=tf.constant([0, 1, 2], dtype=tf.int64),
    )


def test_vocabulary_table_doc_example_matches_tensorflow_buckets():
    # The project's to_hash_bucket_fast is FarmHash Fingerprint64, TensorFlow's hash: these are
    # the ids of TensorFlow's docstring.
    table = tf.lookup.StaticVocabularyTable(_vocab_init(), num_oov_buckets=5)
    out = table[tf.constant(["emerson", "lake", "palmer", "king", "crimson"])]
    assert out.dtype == tf.int64
    np.testing.assert_array_equal(out.numpy(), [0, 1, 2, 6, 7])
    assert table.size().numpy() == 8
    assert table.key_dtype == tf.string and table.value_dtype == tf.int64


def test_vocabulary_table_text_file_doc_example(tmp_path):
    path = _write(tmp_path, "\n".join(["emerson", "lake", "palmer", "crimnson"]))
    init = tf.lookup.TextFileInitializer(
        path,
        key_dtype=tf.string,
        key_index=tf.lookup.TextFileIndex.WHOLE_LINE,
        value_dtype=tf.int64,
        value_index=tf.lookup.TextFileIndex.LINE_NUMBER,
    )
    table = tf.lookup.StaticVocabularyTable(init, 3)
    out = table.lookup(tf.constant(["palmer", "crimnson", "king", "tarkus", "black", "moon"]))
    np.testing.assert_array_equal(out.numpy(), [2, 3, 5, 6, 6, 4])


def test_vocabulary_table_oov_range_ragged_and_no_initializer():
    table = tf.lookup.StaticVocabularyTable(_vocab_init(), num_oov_buckets=4)
    words = [f"w{i}" for i in range(50)]
    ids = table.lookup(tf.constant(words)).numpy()
    assert ids.min() >= 3 and ids.max() <= 6 and len(set(ids.tolist())) > 1
    expected = 3 + tf.strings.to_hash_bucket_fast(tf.constant(words), 4).numpy()
    np.testing.assert_array_equal(ids, expected)
    rt = table.lookup(tf.ragged.constant([["lake", "w1"], []]))
    assert rt.to_list() == [[1, int(expected[1])], []]
    only = tf.lookup.StaticVocabularyTable(None, 7)
    assert only.size().numpy() == 7
    np.testing.assert_array_equal(
        only.lookup(tf.constant(words)).numpy(),
        tf.strings.to_hash_bucket_fast(tf.constant(words), 7).numpy(),
    )


def test_vocabulary_table_int_keys_hash_their_decimal_string():
    init = tf.lookup.KeyValueTensorInitializer(
        tf.constant([100, 200], tf.int64), tf.constant([0, 1], tf.int64)
    )
    table = tf.lookup.StaticVocabularyTable(init, 7, lookup_key_dtype=tf.int32)
    assert table.key_dtype == tf.int32
    out = table.lookup(tf.constant([200, 42, 100], tf.int32)).numpy()
    bucket = tf.strings.to_hash_bucket_fast(tf.constant(["42"]), 7).numpy()[0]
    np.testing.assert_array_equal(out, [1, 2 + bucket, 0])


def test_vocabulary_table_errors():
    with pytest.raises(ValueError, match="num_oov_buckets"):
        tf.lookup.StaticVocabularyTable(_vocab_init(), 0)
    bad = tf.lookup.KeyValueTensorInitializer(["a"], [1])  # int32 values
    with pytest.raises(TypeError, match="expected int64 but got int32"):
        tf.lookup.StaticVocabularyTable(bad, 2)
    table = tf.lookup.StaticVocabularyTable(_vocab_init(), 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"StaticVocabularyTable.*string"):
        table.lookup(tf.constant([1]))


# -- TextFileInitializer ------------------------------------------------------------------------


def test_text_file_columns_with_delimiter(tmp_path):
    path = _write(tmp_path, "emerson 10\nlake 20\npalmer 30\n")
    init = tf.lookup.TextFileInitializer(
        filename=path,
        key_dtype=tf.string,
        key_index=0,
        value_dtype=tf.int64,
        value_index=1,
        delimiter=" ",
    )
    table = tf.lookup.StaticHashTable(init, default_value=-1)
    np.testing.assert_array_equal(
        table.lookup(tf.constant(["palmer", "lake", "tarkus"])).numpy(), [30, 20, -1]
    )
    assert table.size().numpy() == 3


def test_text_file_whole_line_and_line_number(tmp_path):
    path = _write(tmp_path, "\n".join(["emerson", "lake", "palmer", ""]))
    init = tf.lookup.TextFileInitializer(
        filename=path,
        key_dtype=tf.string,
        key_index=tf.lookup.TextFileIndex.WHOLE_LINE,
        value_dtype=tf.int64,
        value_index=tf.lookup.TextFileIndex.LINE_NUMBER,
    )
    table = tf.lookup.StaticHashTable(init, -1)
    assert table.lookup(tf.constant("palmer")).numpy() == 2
    assert table.size().numpy() == 3
    # line number -> whole line, with a vocab_size cut and a tab-separated file
    path2 = _write(tmp_path, "a\t1.5\nb\t2.5\nc\t3.5\n", "tab.txt")
    inv = tf.lookup.TextFileInitializer(
        path2, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER, tf.string, -2, vocab_size=2
    )
    t2 = tf.lookup.StaticHashTable(inv, "UNK")
    assert t2.lookup(tf.constant([0, 1, 2], tf.int64)).numpy().tolist() == [
        b"a\t1.5",
        b"b\t2.5",
        b"UNK",
    ]
    floats = tf.lookup.TextFileInitializer(path2, tf.string, 0, tf.float32, 1)
    t3 = tf.lookup.StaticHashTable(floats, 0.0)
    np.testing.assert_allclose(t3.lookup(tf.constant(["c", "z"])).numpy(), [3.5, 0.0])


def test_text_file_errors(tmp_path):
    missing = str(tmp_path / "nope.txt")
    init = tf.lookup.TextFileInitializer(missing, tf.string, -2, tf.int64, -1)
    with pytest.raises(tf.errors.NotFoundError, match=r"nope\.txt"):
        tf.lookup.StaticHashTable(init, -1)
    path = _write(tmp_path, "a 1\nb\n")
    short = tf.lookup.TextFileInitializer(path, tf.string, 0, tf.int64, 1, delimiter=" ")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid number of columns"):
        tf.lookup.StaticHashTable(short, -1)
    path = _write(tmp_path, "a x\n", "nan.txt")
    nan = tf.lookup.TextFileInitializer(path, tf.string, 0, tf.int64, 1, delimiter=" ")
    with pytest.raises(tf.errors.InvalidArgumentError, match="not a valid int64"):
        tf.lookup.StaticHashTable(nan, -1)
    big = tf.lookup.TextFileInitializer(path, tf.string, -2, tf.int64, -1, vocab_size=5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid vocab_size"):
        tf.lookup.StaticHashTable(big, -1)
    with pytest.raises(ValueError, match="int64"):
        tf.lookup.TextFileInitializer(path, tf.string, -2, tf.int32, -1)
    with pytest.raises(ValueError, match="key_index"):
        tf.lookup.TextFileInitializer(path, tf.string, -3, tf.int64, -1)


# -- MutableHashTable ---------------------------------------------------------------------------


def test_mutable_hash_table_doc_example():
    table = tf.lookup.experimental.MutableHashTable(
        key_dtype=tf.string, value_dtype=tf.int64, default_value=-1
    )
    table.insert(tf.constant(["a", "b", "c"]), tf.constant([7, 8, 9], dtype=tf.int64))
    np.testing.assert_array_equal(table.lookup(tf.constant(["a", "f"])).numpy(), [7, -1])
    table.remove(tf.constant(["c"]))
    np.testing.assert_array_equal(
        table.lookup(tf.constant(["a", "b", "c", "d"])).numpy(), [7, 8, -1, -1]
    )
    assert table.size().numpy() == 2


def test_mutable_hash_table_overwrite_remove_export_and_vectors():
    table = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, [0.0, 0.0])
    table.insert(tf.constant([1, 2, 3], tf.int64), [[1, 1], [2, 2], [3, 3]])
    table.insert(tf.constant([2], tf.int64), [[20, 20]])
    table.remove(tf.constant([1, 99], tf.int64))
    out = table.lookup(tf.constant([[2, 1]], tf.int64))
    assert out.shape == (1, 2, 2) and out.dtype == tf.float32
    np.testing.assert_array_equal(out.numpy(), [[[20, 20], [0, 0]]])
    keys, values = table.export()
    assert keys.dtype == tf.int64 and values.shape == (2, 2)
    got = {int(k): v.tolist() for k, v in zip(keys.numpy(), values.numpy())}
    assert got == {2: [20.0, 20.0], 3: [3.0, 3.0]}
    for i in range(10, 40):  # removes compact the storage; lookups stay right
        table.insert(tf.constant([i], tf.int64), [[i, i]])
    table.remove(tf.constant(list(range(10, 38)), tf.int64))
    assert table.size().numpy() == 4
    np.testing.assert_array_equal(
        table.lookup(tf.constant([39, 3, 12], tf.int64)).numpy(), [[39, 39], [3, 3], [0, 0]]
    )
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected shape \\[1, 2\\]"):
        table.insert(tf.constant([5], tf.int64), [1.0])
    getattr(table, "import")(tf.constant([7], tf.int64), [[7, 7]])
    assert table.size().numpy() == 1


def test_mutable_hash_table_in_function_sees_later_inserts():
    table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int32, 0)

    @tf.function
    def f(x):
        return table.lookup(x)

    assert f(tf.constant(["k"])).numpy().tolist() == [0]
    table.insert(["k"], [5])
    assert f(tf.constant(["k"])).numpy().tolist() == [5]
