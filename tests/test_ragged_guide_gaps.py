"""The ragged and sparse guides' remaining cells (guide/ragged_tensor.ipynb,
guide/sparse_tensor.ipynb): `ek.map_fn`, ragged `reverse`/`stack`/`gather`, `ek.shape` of a
RaggedTensor (`DynamicRaggedShape`), `ek.function` with ragged arguments and
`RaggedTensorSpec` signatures, Datasets of ragged and sparse rows, and
`keras.Input(sparse=True)`. Values are the outputs TensorFlow prints in the guides and the API
docs' examples; gradients are checked against finite differences."""

import math

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients


@pytest.fixture
def digits():
    return ek.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])


SPLITS = [0, 2, 2, 5]


def _rt(values):
    return ek.RaggedTensor.from_row_splits(values, SPLITS)


def _values():
    return np.array([0.3, -1.2, 0.8, 2.0, -0.4])


# -- map_fn (tf.map_fn's documented examples) -------------------------------------------------


def test_map_fn_on_a_ragged_tensor_keeps_it_ragged(digits):
    # The guide's cell 2: <tf.RaggedTensor [[9, 1, 16, 1], [], [25, 81, 4], [36], []]>
    out = ek.map_fn(ek.math.square, digits)
    assert isinstance(out, ek.RaggedTensor)
    assert out.to_list() == [[9, 1, 16, 1], [], [25, 81, 4], [36], []]


def test_map_fn_documented_examples():
    out = ek.map_fn(lambda t: ek.range(t, t + 3), ek.constant([3, 5, 2]))
    np.testing.assert_array_equal(out.numpy(), [[3, 4, 5], [5, 6, 7], [2, 3, 4]])
    out = ek.map_fn(
        lambda x: x[0] * x[1],
        (np.array([1, 2, 3]), np.array([-1, 1, -1])),
        fn_output_signature=ek.int64,
    )
    assert out.dtype == ek.int64
    np.testing.assert_array_equal(out.numpy(), [-1, 2, -3])
    ragged = ek.ragged.constant([[1, 2, 3], [4, 5], [6, 7]])
    sums = ek.map_fn(ek.reduce_sum, ragged, fn_output_signature=ek.int32)
    np.testing.assert_array_equal(sums.numpy(), [6, 9, 13])
    st = ek.sparse.SparseTensor(
        indices=[[0, 0], [2, 1], [2, 3]], values=[1, 2, 3], dense_shape=[4, 5]
    )
    out = ek.map_fn(ek.sparse.reduce_sum, st, fn_output_signature=ek.int32)
    np.testing.assert_array_equal(out.numpy(), [1, 0, 5, 0])
    out = ek.map_fn(
        ek.range,
        ek.constant([3, 5, 0, 2]),
        fn_output_signature=ek.RaggedTensorSpec(shape=[None], dtype=ek.int32),
    )
    assert out.to_list() == [[0, 1, 2], [0, 1, 2, 3, 4], [], [0, 1]]


def test_map_fn_structures_and_empty_elems():
    out = ek.map_fn(
        lambda d: (d["a"] + 1, d["b"] * 2.0),
        {"a": ek.constant([1, 2]), "b": ek.constant([3.0, 4.0])},
        fn_output_signature=(ek.int32, ek.float32),
    )
    assert isinstance(out, tuple)
    np.testing.assert_array_equal(out[0].numpy(), [2, 3])
    np.testing.assert_array_equal(out[1].numpy(), [6.0, 8.0])
    empty = ek.map_fn(lambda v: v * 2.0, ek.zeros([0, 3]))
    assert empty.shape == (0,)  # TensorFlow 2.21's eager map_fn: no signature shape, (0,)
    # dtype= is fn_output_signature's deprecated name
    out = ek.map_fn(lambda v: ek.cast(v, ek.float32), ek.constant([1, 2]), dtype=ek.float32)
    assert out.dtype == ek.float32


def test_map_fn_errors():
    with pytest.raises(ValueError, match="not scalars"):
        ek.map_fn(lambda x: x, ek.constant(3))
    with pytest.raises(ValueError, match="same first dimension"):
        ek.map_fn(lambda x: x[0], (ek.constant([1, 2]), ek.constant([1, 2, 3])))
    with pytest.raises(ValueError, match="different shapes"):
        ek.map_fn(ek.range, ek.constant([1, 2]))
    with pytest.raises(TypeError, match="dtype int32, but fn_output_signature says float32"):
        ek.map_fn(lambda x: x, ek.constant([1, 2]), fn_output_signature=ek.float32)
    with pytest.raises(ValueError, match="returned 1 value"):
        ek.map_fn(lambda x: x[0], (ek.constant([1, 2]), ek.constant([1, 2])))
    with pytest.raises(ValueError, match="parallel_iterations"):
        ek.map_fn(lambda x: x, ek.constant([1]), parallel_iterations=0)
    with pytest.raises(TypeError, match="callable"):
        ek.map_fn(3, ek.constant([1]))


def test_map_fn_gradients():
    check_gradients(lambda x: ek.map_fn(lambda v: ek.sin(v) * v, x), np.array([0.3, -1.0, 2.0]))
    check_gradients(lambda v: ek.map_fn(lambda r: r * r, _rt(v)).flat_values, _values())
    check_gradients(
        lambda v: ek.map_fn(ek.reduce_sum, _rt(v), fn_output_signature=ek.float64), _values()
    )
    # a variable read by fn: d/dw sum_i (x_i * w)^2 = 2 w sum x_i^2
    w = ek.Variable(1.5, dtype=ek.float64)
    x = ek.constant([1.0, 2.0, 3.0], ek.float64)
    with ek.GradientTape() as tape:
        y = ek.reduce_sum(ek.map_fn(lambda v: (v * w) ** 2, x))
    assert float(tape.gradient(y, w)) == pytest.approx(2 * 1.5 * 14.0)
    # back_prop=False stops the gradient, as tf.stop_gradient
    with ek.GradientTape() as tape:
        y = ek.reduce_sum(ek.map_fn(lambda v: v * w, x, back_prop=False))
    assert tape.gradient(y, w) is None


# -- the guide's ragged string cell (cell 20) --------------------------------------------------


def test_ragged_embedding_bigrams_cell():
    queries = ek.ragged.constant(
        [["Who", "is", "Dan", "Smith"], ["Pause"], ["Will", "it", "rain", "later", "today"]]
    )
    table = ek.Variable(ek.random.truncated_normal([1024, 4], stddev=1.0 / math.sqrt(4)))
    word_buckets = ek.strings.to_hash_bucket_fast(queries, 1024)
    word_embeddings = ek.nn.embedding_lookup(table, word_buckets)
    assert isinstance(word_embeddings, ek.RaggedTensor)
    assert word_embeddings.shape.as_list() == [3, None, 4]
    marker = ek.fill([queries.nrows(), 1], "#")
    padded = ek.concat([marker, queries, marker], axis=1)
    bigrams = ek.strings.join([padded[:, :-1], padded[:, 1:]], separator="+")
    assert bigrams.to_list()[1] == [b"#+Pause", b"Pause+#"]
    bigram_embeddings = ek.nn.embedding_lookup(table, ek.strings.to_hash_bucket_fast(bigrams, 1024))
    all_embeddings = ek.concat([word_embeddings, bigram_embeddings], axis=1)
    avg = ek.reduce_mean(all_embeddings, axis=1)
    assert avg.shape == (3, 4)
    # row 1: "Pause" and its two bigrams
    rows = ek.gather(table, ek.strings.to_hash_bucket_fast(["Pause", "#+Pause", "Pause+#"], 1024))
    np.testing.assert_allclose(avg.numpy()[1], rows.numpy().mean(axis=0), rtol=1e-6)


def test_gather_with_ragged_indices_and_params(digits):
    params = ek.constant([10, 11, 12, 13, 14, 15, 16, 17, 18, 19])
    out = ek.gather(params, digits)
    assert out.to_list() == [[13, 11, 14, 11], [], [15, 19, 12], [16], []]
    assert ek.gather(digits, [2, 0]).to_list() == [[5, 9, 2], [3, 1, 4, 1]]
    assert ek.gather(digits, [[3], [0]]).to_list() == [[[6]], [[3, 1, 4, 1]]]
    with pytest.raises(ek.errors.InvalidArgumentError, match="out of range"):
        ek.gather(digits, -2)  # TF's RaggedGather takes no negative index
    with pytest.raises(ek.errors.InvalidArgumentError, match="out of range"):
        ek.gather(digits, [5])
    with pytest.raises(ek.errors.InvalidArgumentError, match="out of range"):
        ek.gather(digits, [0], axis=1)  # rows 1 and 4 are empty (TF raises too)
    with pytest.raises(TypeError, match="integer"):
        ek.gather(params, ek.ragged.constant([["a"]]))
    check_gradients(lambda v: ek.gather(_rt(v), [2, 0, 2]).flat_values, _values())


# -- reverse and stack (cells 39-41 and the supported-ops list) ---------------------------------


def test_make_palindrome_cells():
    @ek.function
    def make_palindrome(x, axis):
        return ek.concat([x, ek.reverse(x, [axis])], axis)

    dense = make_palindrome(ek.constant([[1, 2], [3, 4], [5, 6]]), axis=1)
    np.testing.assert_array_equal(dense.numpy(), [[1, 2, 2, 1], [3, 4, 4, 3], [5, 6, 6, 5]])
    ragged = make_palindrome(ek.ragged.constant([[1, 2], [3], [4, 5, 6]]), axis=1)
    # <tf.RaggedTensor [[1, 2, 2, 1], [3, 3], [4, 5, 6, 6, 5, 4]]>
    assert str(ragged) == "<RaggedTensor [[1, 2, 2, 1], [3, 3], [4, 5, 6, 6, 5, 4]]>"
    again = make_palindrome(ek.ragged.constant([[7], [8, 9], []]), axis=1)
    assert again.to_list() == [[7, 7], [8, 9, 9, 8], []]


def test_reverse_axes(digits):
    assert ek.reverse(digits, [0]).to_list() == [[], [6], [5, 9, 2], [], [3, 1, 4, 1]]
    assert ek.reverse(digits, [-1]).to_list() == [[1, 4, 1, 3], [], [2, 9, 5], [6], []]
    rt = ek.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    assert ek.reverse(rt, [2]).to_list() == [[[2, 1], [4, 3]], [[6, 5]]]
    assert ek.reverse(rt, [0, 1]).to_list() == [[[5, 6]], [[3, 4], [1, 2]]]
    with pytest.raises(ek.errors.InvalidArgumentError, match="twice"):
        ek.reverse(digits, [1, -1])
    with pytest.raises(ek.errors.InvalidArgumentError, match="out of range"):
        ek.reverse(digits, [2])
    check_gradients(lambda v: ek.reverse(_rt(v), [1]).flat_values, _values())
    check_gradients(lambda v: ek.reverse(_rt(v), [0]).flat_values, _values())


def test_stack(digits):
    a = ek.ragged.constant([[1, 2], [3]])
    b = ek.ragged.constant([[4], [5, 6, 7]])
    assert ek.stack([a, b]).to_list() == [[[1, 2], [3]], [[4], [5, 6, 7]]]
    assert ek.stack([a, b]).ragged_rank == 2
    assert ek.stack([a, b], axis=1).to_list() == [[[1, 2], [4]], [[3], [5, 6, 7]]]
    assert ek.stack([a, ek.constant([[8, 9], [10, 11]])], axis=0).to_list() == [
        [[1, 2], [3]],
        [[8, 9], [10, 11]],
    ]
    with pytest.raises(ek.errors.InvalidArgumentError, match="same number of rows"):
        ek.stack([a, digits], axis=1)
    with pytest.raises(TypeError, match="same dtype"):
        ek.stack([a, ek.ragged.constant([[1.0]])])
    check_gradients(lambda v: ek.stack([_rt(v), _rt(v * v)], axis=1).flat_values, _values())
    check_gradients(lambda v: ek.stack([_rt(v), _rt(2.0 * v)]).flat_values, _values())


def test_zeros_like_and_size_rank(digits):
    assert ek.zeros_like(digits).to_list() == [[0] * 4, [], [0] * 3, [0], []]
    assert ek.ones_like(digits, dtype=ek.float32).dtype == ek.float32
    assert int(ek.size(digits)) == 8
    assert int(ek.rank(digits)) == 2


# -- ek.shape of a RaggedTensor: DynamicRaggedShape (cells 66-74) --------------------------------


def test_dynamic_ragged_shape_cells():
    rt = ek.ragged.constant([[1], [2, 3, 4], [], [5, 6]])
    rt_shape = ek.shape(rt)
    assert str(rt_shape) == "<DynamicRaggedShape lengths=[4, (1, 3, 0, 2)] num_row_partitions=1>"
    x = ek.constant([["a", "b"], ["c", "d"], ["e", "f"]])
    assert str(ek.reshape(x, rt_shape)) == (
        "<RaggedTensor [[b'a'], [b'b', b'c', b'd'], [], [b'e', b'f']]>"
    )
    assert ek.zeros(rt_shape).to_list() == [[0.0], [0.0] * 3, [], [0.0] * 2]
    assert ek.zeros(rt_shape).dtype == ek.float32
    assert ek.ones(rt_shape).to_list() == [[1.0], [1.0] * 3, [], [1.0] * 2]
    assert ek.fill(rt_shape, "x").to_list() == [[b"x"], [b"x"] * 3, [], [b"x"] * 2]
    first = rt_shape[0]
    assert first.dtype == ek.int32 and int(first) == 4
    with pytest.raises(ValueError, match="Index 1 is not uniform"):
        rt_shape[1]
    assert str(rt_shape[:1]) == "<DynamicRaggedShape lengths=[4] num_row_partitions=0>"
    assert ek.shape(rt, out_type=ek.int64)[0].dtype == ek.int64
    with pytest.raises(ek.errors.InvalidArgumentError, match="7 values"):
        ek.reshape(ek.range(7), rt_shape)


def test_dynamic_ragged_shape_constructors():
    shape = ek.experimental.DynamicRaggedShape(
        row_partitions=[ek.experimental.RowPartition.from_row_lengths([5, 3, 2])],
        inner_shape=[10, 8],
    )
    assert repr(shape) == "<DynamicRaggedShape lengths=[3, (5, 3, 2), 8] num_row_partitions=1>"
    assert shape.rank == 3 and int(shape[2]) == 8
    shape = ek.experimental.DynamicRaggedShape.from_lengths([4, (2, 1, 0, 8), 12])
    assert repr(shape) == "<DynamicRaggedShape lengths=[4, (2, 1, 0, 8), 12] num_row_partitions=1>"
    assert ek.zeros(shape).flat_values.shape == (11, 12)
    dense = ek.experimental.DynamicRaggedShape.from_lengths([2, 3])
    assert dense.num_row_partitions == 0 and dense.static_lengths() == [2, 3]
    with pytest.raises(ValueError, match="row_partitions\\[0\\] has 10 values"):
        ek.experimental.DynamicRaggedShape(
            [ek.experimental.RowPartition.from_row_lengths([5, 3, 2])], [9]
        )
    with pytest.raises(ValueError, match="2 row lengths for 3 rows"):
        ek.experimental.DynamicRaggedShape.from_lengths([3, (1, 2)])


def test_from_uniform_row_length_shape():
    # The guide's cell 89: Shape: (2, 2, None), 2 partitioned dimensions
    rt = ek.RaggedTensor.from_uniform_row_length(
        values=ek.RaggedTensor.from_row_splits(
            values=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19], row_splits=[0, 3, 5, 9, 10]
        ),
        uniform_row_length=2,
    )
    assert rt.to_list() == [[[10, 11, 12], [13, 14]], [[15, 16, 17, 18], [19]]]
    assert str(rt.shape) == "(2, 2, None)"
    assert rt.ragged_rank == 2
    assert int(rt.uniform_row_length) == 2
    assert str((rt * 2).shape) == "(2, 2, None)"
    assert int(ek.shape(rt)[1]) == 2
    flat = ek.RaggedTensor.from_uniform_row_length([1, 2, 3, 4, 5, 6], 3)
    assert str(flat.shape) == "(2, 3)"
    assert ek.RaggedTensor.from_row_lengths([1, 2], [1, 1]).uniform_row_length is None


# -- ek.function with ragged arguments (cells 42-43) ----------------------------------------------


def test_function_with_ragged_input_signature():
    @ek.function(input_signature=[ek.RaggedTensorSpec(shape=[None, None], dtype=ek.int32)])
    def max_and_min(rt):
        return (ek.math.reduce_max(rt, axis=-1), ek.math.reduce_min(rt, axis=-1))

    hi, lo = max_and_min(ek.ragged.constant([[1, 2], [3], [4, 5, 6]]))
    np.testing.assert_array_equal(hi.numpy(), [2, 3, 6])
    np.testing.assert_array_equal(lo.numpy(), [1, 3, 4])
    # the same row partition replays the program on the new values
    hi, lo = max_and_min(ek.ragged.constant([[10, -2], [3], [4, 50, 6]]))
    np.testing.assert_array_equal(hi.numpy(), [10, 3, 50])
    np.testing.assert_array_equal(lo.numpy(), [-2, 3, 4])
    assert max_and_min.experimental_get_tracing_count() == 1
    # another partition: traced for it
    hi, _ = max_and_min(ek.ragged.constant([[1], [2, 3, 9]]))
    np.testing.assert_array_equal(hi.numpy(), [1, 9])
    with pytest.raises(TypeError, match=r"Binding inputs to tf.function `max_and_min` failed"):
        max_and_min(ek.ragged.constant([[1.0]]))
    with pytest.raises(TypeError, match="Binding inputs"):
        max_and_min(ek.constant([[1, 2]]))
    with pytest.raises(TypeError, match="input_signature must hold"):
        ek.function(lambda x: x, input_signature=["int32"])


def test_concrete_function_of_a_ragged_argument():
    @ek.function
    def increment(x):
        return x + 1

    rt = ek.ragged.constant([[1, 2], [3], [4, 5, 6]])
    cf = increment.get_concrete_function(rt)
    assert str(cf(rt)) == "<RaggedTensor [[2, 3], [4], [5, 6, 7]]>"
    # a ragged result is rebuilt on every call (never the traced one)
    assert cf(rt * 10).to_list() == [[11, 21], [31], [41, 51, 61]]
    assert "RaggedTensorSpec" in cf.pretty_printed_signature()
    with pytest.raises(TypeError, match="does not match"):
        cf(ek.constant([1]))
    spec_cf = increment.get_concrete_function(ek.RaggedTensorSpec([None, None], ek.int32))
    assert spec_cf(rt).to_list() == [[2, 3], [4], [5, 6, 7]]


def test_function_gradients_through_ragged_arguments():
    @ek.function
    def f(rt):
        return ek.reduce_sum(ek.math.square(rt), axis=1)

    v = ek.constant([1.0, 2.0, 3.0])
    for _ in range(2):  # the trace, then the replay under the tape
        with ek.GradientTape() as tape:
            tape.watch(v)
            y = f(ek.RaggedTensor.from_row_splits(v, [0, 1, 3]))
        np.testing.assert_allclose(y.numpy(), [1.0, 13.0])
        np.testing.assert_allclose(tape.gradient(y, v).numpy(), [2.0, 4.0, 6.0])


def test_saved_model_refuses_ragged_signatures(tmp_path):
    class Grow(ek.Module):
        def __init__(self):
            super().__init__()
            self.v = ek.Variable(100.0)

        @ek.function
        def grow(self, x):
            return x * self.v

    module = Grow()
    module.grow(ek.ragged.constant([[1.0, 4.0, 3.0], [2.0]]))
    with pytest.raises(NotImplementedError, match="RaggedTensor or SparseTensor argument"):
        ek.saved_model.save(module, str(tmp_path / "m"))
    assert not (tmp_path / "m").exists()
    # the guide's cell 45: a concrete function from a RaggedTensorSpec, then save
    other = Grow()
    other.grow.get_concrete_function(ek.RaggedTensorSpec(shape=[None, None], dtype=ek.float32))
    with pytest.raises(
        NotImplementedError, match="ragged, sparse and ExtensionType signatures cannot be"
    ):
        ek.saved_model.save(other, str(tmp_path / "m2"))
    assert not (tmp_path / "m2").exists()


# -- Datasets of ragged rows (cells 34-38, fed without tf.train.Example) -------------------------


def _features():
    return {
        "colors": ek.ragged.constant([["red", "blue"], ["orange"], ["black", "yellow"], []]),
        "lengths": ek.ragged.constant([[7], [], [1, 2, 3, 4], [3, 5]], dtype=ek.int64),
    }


def test_dataset_of_ragged_rows_batches_into_ragged():
    dataset = ek.data.Dataset.from_tensor_slices(_features())
    spec = dataset.element_spec["lengths"]
    assert isinstance(spec, ek.RaggedTensorSpec) and spec.ragged_rank == 0
    first = next(iter(dataset))
    np.testing.assert_array_equal(first["colors"].numpy(), [b"red", b"blue"])
    batches = list(dataset.batch(2))
    assert [b["colors"].to_list() for b in batches] == [
        [[b"red", b"blue"], [b"orange"]],
        [[b"black", b"yellow"], []],
    ]
    assert [b["lengths"].to_list() for b in batches] == [[[7], []], [[1, 2, 3, 4], [3, 5]]]
    batched_spec = dataset.batch(2).element_spec["lengths"]
    assert batched_spec.ragged_rank == 1 and batched_spec.dtype == ek.int64
    unbatched = list(dataset.batch(2).unbatch())
    assert [e["lengths"].numpy().tolist() for e in unbatched] == [[7], [], [1, 2, 3, 4], [3, 5]]
    # unbatched rows batch again into RaggedTensors
    again = list(dataset.batch(2).unbatch().batch(3))
    assert again[0]["lengths"].to_list() == [[7], [], [1, 2, 3, 4]]


# element 1 has no lengths: the mean of an empty int64 vector (NumPy warns)
@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value encountered")
def test_dataset_map_over_ragged_rows():
    def transform_lengths(features):
        return {
            "mean_length": ek.math.reduce_mean(features["lengths"]),
            "length_ranges": ek.ragged.range(features["lengths"]),
        }

    out = list(ek.data.Dataset.from_tensor_slices(_features()).map(transform_lengths))
    assert int(out[0]["mean_length"]) == 7
    assert out[2]["length_ranges"].to_list() == [[0], [0, 1], [0, 1, 2], [0, 1, 2, 3]]
    assert out[3]["length_ranges"].to_list() == [[0, 1, 2], [0, 1, 2, 3, 4]]


# -- sparse: keras.Input(sparse=True) and Datasets (guide/sparse_tensor.ipynb, cells 14-18) ------


def _sparse_data():
    return ek.sparse.SparseTensor(
        indices=[(0, 0), (0, 1), (0, 2), (4, 3), (5, 0), (5, 1)],
        values=[1, 1, 1, 1, 1, 1],
        dense_shape=(6, 4),
    )


def test_sparse_keras_input_into_dense():
    x = ek.keras.Input(shape=(4,), sparse=True)
    assert x.sparse
    layer = ek.keras.layers.Dense(4)
    model = ek.keras.Model(x, layer(x))
    sparse_data = _sparse_data()
    dense = ek.cast(ek.sparse.to_dense(sparse_data), ek.float32).numpy()
    expected = dense @ layer.kernel.numpy() + layer.bias.numpy()
    np.testing.assert_allclose(model(sparse_data).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(model.predict(sparse_data, batch_size=4), expected, rtol=1e-6)
    assert model.layers[0].get_config()["sparse"] is True
    dense_input = ek.keras.Input(shape=(4,))
    dense_model = ek.keras.Model(dense_input, ek.keras.layers.Dense(2)(dense_input))
    with pytest.raises(ValueError, match="received a SparseTensor"):
        dense_model(sparse_data)


def test_sparse_input_gradients_and_fit():
    x = ek.keras.Input(shape=(4,), sparse=True)
    layer = ek.keras.layers.Dense(3)
    model = ek.keras.Model(x, layer(x))
    st = ek.sparse.SparseTensor([[0, 1], [1, 3], [2, 0]], [2.0, -1.0, 0.5], [3, 4])
    with ek.GradientTape() as tape:
        loss = ek.reduce_sum(model(st) ** 2)
    grads = tape.gradient(loss, [layer.kernel, layer.bias])
    dense = ek.sparse.to_dense(st).numpy()
    y = dense @ layer.kernel.numpy() + layer.bias.numpy()
    np.testing.assert_allclose(grads[0].numpy(), dense.T @ (2 * y), rtol=1e-5)
    np.testing.assert_allclose(grads[1].numpy(), (2 * y).sum(axis=0), rtol=1e-5)
    model.compile(optimizer="sgd", loss="mse")
    before = layer.kernel.numpy().copy()
    model.fit(st, np.ones((3, 3), np.float32), batch_size=2, epochs=1, verbose=0)
    assert not np.allclose(before, layer.kernel.numpy())


def _pprint(st):
    # The guide's pprint_sparse_tensor
    s = f"<SparseTensor shape={st.dense_shape.numpy().tolist()} \n values={{"
    for index, value in zip(st.indices, st.values):
        s += f"\n  {index.numpy().tolist()}: {value.numpy().tolist()}"
    return s + "}>"


def test_dataset_of_sparse_rows():
    dataset = ek.data.Dataset.from_tensor_slices(_sparse_data())
    rows = [_pprint(e) for e in dataset]
    assert rows[0] == "<SparseTensor shape=[4] \n values={\n  [0]: 1\n  [1]: 1\n  [2]: 1}>"
    assert rows[1] == "<SparseTensor shape=[4] \n values={}>"
    assert rows[5] == "<SparseTensor shape=[4] \n values={\n  [0]: 1\n  [1]: 1}>"
    batches = [_pprint(e) for e in dataset.batch(2)]
    assert batches[2] == (
        "<SparseTensor shape=[2, 4] \n values={\n  [0, 3]: 1\n  [1, 0]: 1\n  [1, 1]: 1}>"
    )
    assert [_pprint(e) for e in dataset.batch(2).unbatch()] == rows
    doubled = [e.values.numpy().tolist() for e in dataset.map(lambda x: x * 2)]
    assert doubled == [[2, 2, 2], [], [], [], [2], [2, 2]]


# -- more ops of TensorFlow's ragged dispatch list ----------------------------------------------


def test_expand_dims_identity_clip_one_hot(digits):
    assert ek.expand_dims(digits, 0).shape.as_list() == [1, 5, None]
    assert ek.expand_dims(digits, 0).to_list() == [digits.to_list()]
    assert ek.expand_dims(digits, 1).shape.as_list() == [5, 1, None]
    assert ek.expand_dims(digits, 1).to_list()[2] == [[5, 9, 2]]
    assert ek.expand_dims(digits, -1).shape.as_list() == [5, None, 1]
    assert ek.expand_dims(digits, -1).to_list()[0] == [[3], [1], [4], [1]]
    with pytest.raises(ek.errors.InvalidArgumentError, match="out of range"):
        ek.expand_dims(digits, 3)
    assert ek.identity(digits).to_list() == digits.to_list()
    assert ek.clip_by_value(digits, 2, 4).to_list() == [[3, 2, 4, 2], [], [4, 4, 2], [4], []]
    hot = ek.one_hot(ek.ragged.constant([[0, 2], [1]]), 3)
    assert hot.to_list() == [[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], [[0.0, 1.0, 0.0]]]
    check_gradients(lambda v: ek.expand_dims(_rt(v), 1).flat_values, _values())
    check_gradients(lambda v: ek.clip_by_value(_rt(v), -0.5, 1.0).flat_values, _values())


def test_where_unstack_add_n(digits):
    assert ek.where(digits > 2, digits, ek.zeros_like(digits)).to_list() == [
        [3, 0, 4, 0],
        [],
        [5, 9, 0],
        [6],
        [],
    ]
    assert ek.where(digits > 4, digits, -1).to_list()[2] == [5, 9, -1]
    np.testing.assert_array_equal(
        ek.where(digits > 4).numpy(), [[2, 0], [2, 1], [3, 0]]
    )  # the coordinates of the true values
    with pytest.raises(ek.errors.InvalidArgumentError, match="row partitions differ"):
        ek.where(digits > 2, digits, ek.ragged.constant([[1], [], [2], [3], []]))
    rows = ek.unstack(digits)
    assert [r.numpy().tolist() for r in rows] == [[3, 1, 4, 1], [], [5, 9, 2], [6], []]
    assert ek.add_n([digits, digits, digits]).to_list()[0] == [9, 3, 12, 3]
    check_gradients(lambda v: ek.where(_rt(v) > 0.0, _rt(v), _rt(v) * 3.0).flat_values, _values())


def test_ragged_boolean_mask():
    T, F = True, False
    rt = ek.ragged.constant([[1, 2, 3], [4], [5, 6], []])
    mask = ek.ragged.constant([[F, F, T], [F], [T, T], []])
    assert ek.ragged.boolean_mask(rt, mask).to_list() == [[3], [], [5, 6], []]
    assert ek.ragged.boolean_mask(rt, [T, F, T, F]).to_list() == [[1, 2, 3], [5, 6]]
    dense = ek.ragged.boolean_mask([[1, 2, 3], [4, 5, 6]], [[T, F, T], [F, F, F]])
    assert dense.to_list() == [[1, 3], []]
    with pytest.raises(ValueError, match="row lengths"):
        ek.ragged.boolean_mask(rt, ek.ragged.constant([[T], [F], [T, T], [T]]))
    with pytest.raises(TypeError, match="bool"):
        ek.ragged.boolean_mask(rt, [1, 0, 1, 0])
    check_gradients(lambda v: ek.ragged.boolean_mask(_rt(v), _rt(v) > 0.0).flat_values, _values())


@pytest.mark.filterwarnings("ignore:invalid value encountered")  # the empty row's 0 / 0
def test_row_variance_std_logsumexp():
    rt = ek.ragged.constant([[3.0, 1.0, 4.0, 1.0], [], [5.0, 9.0, 2.0]])
    np.testing.assert_allclose(
        ek.math.reduce_variance(rt, axis=1).numpy(),
        [np.var([3, 1, 4, 1]), np.nan, np.var([5, 9, 2])],
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        ek.math.reduce_std(rt, axis=1).numpy(),
        [np.std([3, 1, 4, 1]), np.nan, np.std([5, 9, 2])],
        rtol=1e-6,
    )
    lse = ek.math.reduce_logsumexp(rt, axis=1, keepdims=True)
    assert lse.shape == (3, 1)
    expected = [np.log(np.exp([3, 1, 4, 1]).sum()), -np.inf, np.log(np.exp([5, 9, 2]).sum())]
    np.testing.assert_allclose(lse.numpy()[:, 0], expected, rtol=1e-6)

    def rows(op):
        return lambda v: ek.gather(getattr(ek.math, op)(_rt(v), axis=1), [0, 2])

    for op in ("reduce_variance", "reduce_std", "reduce_logsumexp"):
        check_gradients(rows(op), _values())


def test_ragged_rows_through_dataset_transformations():
    rows = ek.ragged.constant([[7], [], [1, 2, 3, 4], [3, 5]], dtype=ek.int64)
    ds = ek.data.Dataset.from_tensor_slices(rows)
    assert [b.to_list() for b in ds.cache().batch(3)] == [[[7], [], [1, 2, 3, 4]], [[3, 5]]]
    assert [b.to_list() for b in ds.prefetch(2).repeat(2).batch(4)][1] == rows.to_list()
    kept = ds.filter(lambda x: ek.size(x) > 0).batch(2)
    assert [b.to_list() for b in kept] == [[[7], [1, 2, 3, 4]], [[3, 5]]]
    # as in TensorFlow, a map's dense results of different lengths do not batch
    with pytest.raises(ValueError, match="different shapes"):
        list(ds.map(lambda x: x * 2).batch(2))


def test_function_with_sparse_arguments_replays_per_indices():
    @ek.function
    def f(x, y):
        return ek.sparse.sparse_dense_matmul(x, y)

    a = ek.sparse.SparseTensor(indices=[[0, 3], [2, 4]], values=[15, 25], dense_shape=[3, 10])
    b = ek.sparse.to_dense(ek.sparse.transpose(a))
    # the sparse guide's cell 19
    np.testing.assert_array_equal(f(a, b).numpy(), [[225, 0, 0], [0, 0, 0], [0, 0, 625]])
    same_indices = ek.sparse.SparseTensor([[0, 3], [2, 4]], [1, 2], [3, 10])
    np.testing.assert_array_equal(f(same_indices, b).numpy(), [[15, 0, 0], [0, 0, 0], [0, 0, 50]])
    assert f.experimental_get_tracing_count() == 1
    moved = ek.sparse.SparseTensor([[1, 3], [2, 4]], [1, 2], [3, 10])
    np.testing.assert_array_equal(f(moved, b).numpy(), [[0, 0, 0], [15, 0, 0], [0, 0, 50]])
    assert f.experimental_get_tracing_count() == 2

    @ek.function(input_signature=[ek.sparse.SparseTensorSpec([None, 10], ek.int32)])
    def total(x):
        return ek.sparse.reduce_sum(x)

    assert int(total(a)) == 40
    with pytest.raises(TypeError, match="Binding inputs"):
        total(ek.sparse.SparseTensor([[0, 0]], [1.0], [1, 10]))


def test_sparse_input_model_saves_and_loads(tmp_path):
    x = ek.keras.Input(shape=(4,), sparse=True)
    model = ek.keras.Model(x, ek.keras.layers.Dense(3)(x))
    st = ek.sparse.SparseTensor([[0, 1], [2, 3]], [1.0, 2.0], [3, 4])
    model.save(str(tmp_path / "sparse.keras"))
    loaded = ek.keras.models.load_model(str(tmp_path / "sparse.keras"))
    assert loaded.inputs[0].sparse
    np.testing.assert_allclose(loaded(st).numpy(), model(st).numpy(), rtol=1e-6)


def test_partition_mismatch_names_the_ragged_dimension():
    # the guide's cell 81: equal rows, different inner rows
    x = ek.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10]]], ragged_rank=2)
    y = ek.ragged.constant([[[1, 2, 0], [3, 4, 0], [5, 6, 0]], [[7, 8, 0], [9, 10, 0]]])
    with pytest.raises(ek.errors.InvalidArgumentError, match="in ragged dimension 2"):
        x + y


def test_reshape_of_a_ragged_tensor_to_a_dense_shape():
    rt = ek.ragged.constant([[1], [2, 3, 4], [], [5, 6]])
    np.testing.assert_array_equal(ek.reshape(rt, [-1]).numpy(), [1, 2, 3, 4, 5, 6])
    np.testing.assert_array_equal(ek.reshape(rt, [2, 3]).numpy(), [[1, 2, 3], [4, 5, 6]])
    with pytest.raises(ek.errors.InvalidArgumentError):
        ek.reshape(rt, [4, 2])
    check_gradients(lambda v: ek.reshape(_rt(v), [5, 1]), _values())


def test_map_fn_inside_a_function_replays():
    @ek.function
    def f(x):
        return ek.map_fn(lambda r: ek.reduce_sum(r * r), x)

    a = ek.constant([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(f(a).numpy(), [5.0, 25.0])
    np.testing.assert_allclose(f(a * 2.0).numpy(), [20.0, 100.0])
    assert f.experimental_get_tracing_count() == 1

    @ek.function
    def g(rt):
        return ek.map_fn(ek.reduce_max, rt, fn_output_signature=ek.int32)

    np.testing.assert_array_equal(g(ek.ragged.constant([[1, 5], [3]])).numpy(), [5, 3])
    np.testing.assert_array_equal(g(ek.ragged.constant([[7, 2], [9]])).numpy(), [7, 9])
    assert g.experimental_get_tracing_count() == 1
    nested = ek.ragged.constant([[[1, 2], [3]], [[4]]])
    assert ek.map_fn(lambda r: r * 2, nested).to_list() == [[[2, 4], [6]], [[8]]]
