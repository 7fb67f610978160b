"""RaggedTensor, checked against TensorFlow's ragged tensor guide (guide/ragged_tensor.ipynb and
the ragged part of guide/tensor.ipynb) with the outputs TensorFlow 2.21 prints, and its
gradients against finite differences."""

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients


@pytest.fixture
def digits():
    return ek.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])


# -- the guide's overview cells -----------------------------------------------------------------


def test_ops_on_ragged_tensors(digits):
    words = ek.ragged.constant([["So", "long"], ["thanks", "for", "all", "the", "fish"]])
    assert str(ek.add(digits, 3)) == "<RaggedTensor [[6, 4, 7, 4], [], [8, 12, 5], [9], []]>"
    mean = ek.reduce_mean(digits, axis=1)
    # TF: tf.Tensor([2.25 nan 5.33333333 6. nan], shape=(5,), dtype=float64)
    assert mean.dtype == ek.float64
    np.testing.assert_allclose(mean.numpy(), [2.25, np.nan, 16 / 3, 6.0, np.nan])
    assert str(ek.concat([digits, [[5, 3]]], axis=0)) == (
        "<RaggedTensor [[3, 1, 4, 1], [], [5, 9, 2], [6], [], [5, 3]]>"
    )
    assert ek.strings.substr(words, 0, 2).to_list() == [
        [b"So", b"lo"],
        [b"th", b"fo", b"al", b"th", b"fi"],
    ]
    assert str(ek.tile(digits, [1, 2])) == (
        "<RaggedTensor [[3, 1, 4, 1, 3, 1, 4, 1], [], [5, 9, 2, 5, 9, 2], [6, 6], []]>"
    )
    assert str(ek.math.square(digits)) == (
        "<RaggedTensor [[9, 1, 16, 1], [], [25, 81, 4], [36], []]>"
    )


def test_indexing_cells(digits):
    assert str(digits[0]) == "Tensor([3 1 4 1], shape=(4,), dtype=int32)"
    assert str(digits[:, :2]) == "<RaggedTensor [[3, 1], [], [5, 9], [6], []]>"
    assert str(digits[:, -2:]) == "<RaggedTensor [[4, 1], [], [9, 2], [6], []]>"
    assert str(digits[1:3]) == "<RaggedTensor [[], [5, 9, 2]]>"
    assert digits[-1].shape == (0,)
    with pytest.raises(ValueError, match="Cannot index into an inner ragged dimension"):
        digits[:, 1]


def test_operators_and_map_flat_values(digits):
    assert str(digits + 3) == "<RaggedTensor [[6, 4, 7, 4], [], [8, 12, 5], [9], []]>"
    other = ek.ragged.constant([[1, 2, 3, 4], [], [5, 6, 7], [8], []])
    assert str(digits + other) == "<RaggedTensor [[4, 3, 7, 5], [], [10, 15, 9], [14], []]>"
    assert str(ek.ragged.map_flat_values(lambda x: x * 2 + 1, digits)) == (
        "<RaggedTensor [[7, 3, 9, 3], [], [11, 19, 5], [13], []]>"
    )
    assert (digits == 3).to_list() == [[True, False, False, False], [], [False] * 3, [False], []]
    assert (-digits).to_list()[2] == [-5, -9, -2]
    assert ek.cast(digits, ek.float32).dtype == ek.float32


def test_to_list_and_numpy(digits):
    assert digits.to_list() == [[3, 1, 4, 1], [], [5, 9, 2], [6], []]
    rows = digits.numpy()
    assert rows.dtype == object and [r.tolist() for r in rows] == digits.to_list()
    rt = ek.ragged.constant([[1, 2], [3, 4, 5], [6], [], [7]])
    assert rt.values.numpy().tolist() == [1, 2, 3, 4, 5, 6, 7]
    assert rt.row_splits.numpy().tolist() == [0, 2, 5, 6, 6, 7]
    assert rt[1].numpy().tolist() == [3, 4, 5]


def test_constructing_ragged_tensors():
    sentences = ek.ragged.constant(
        [
            ["Let's", "build", "some", "ragged", "tensors", "!"],
            ["We", "can", "use", "tf.ragged.constant", "."],
        ]
    )
    assert str(sentences) == (
        "<RaggedTensor [[b\"Let's\", b'build', b'some', b'ragged', b'tensors', b'!'],\n"
        " [b'We', b'can', b'use', b'tf.ragged.constant', b'.']]>"
    )
    expected = "<RaggedTensor [[3, 1, 4, 1], [], [5, 9], [2]]>"
    values = [3, 1, 4, 1, 5, 9, 2]
    assert str(ek.RaggedTensor.from_value_rowids(values, [0, 0, 0, 0, 2, 2, 3])) == expected
    assert str(ek.RaggedTensor.from_row_lengths(values, [4, 0, 2, 1])) == expected
    assert str(ek.RaggedTensor.from_row_splits(values, [0, 4, 4, 6, 7])) == expected
    assert str(ek.ragged.constant([["Hi"], ["How", "are", "you"]])) == (
        "<RaggedTensor [[b'Hi'], [b'How', b'are', b'you']]>"
    )
    assert str(ek.ragged.constant([[[1, 2], [3]], [[4, 5]]])) == (
        "<RaggedTensor [[[1, 2], [3]], [[4, 5]]]>"
    )
    with pytest.raises(ValueError, match="mixed types"):
        ek.ragged.constant([["one", "two"], [3, 4]])
    with pytest.raises(ValueError, match="all scalar values must have the same nesting depth"):
        ek.ragged.constant(["A", ["B", "C"]])


def test_shapes_and_partitions():
    hi = ek.ragged.constant([["Hi"], ["How", "are", "you"]])
    assert hi.shape == (2, None) and repr(hi.shape) == "TensorShape([2, None])"
    assert hi.bounding_shape().numpy().tolist() == [2, 3]
    rt = ek.RaggedTensor.from_row_splits(
        values=ek.RaggedTensor.from_row_splits(
            values=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19], row_splits=[0, 3, 3, 5, 9, 10]
        ),
        row_splits=[0, 1, 1, 5],
    )
    assert str(rt) == "<RaggedTensor [[[10, 11, 12]], [], [[], [13, 14], [15, 16, 17, 18], [19]]]>"
    assert f"Shape: {rt.shape}" == "Shape: (3, None, None)"
    assert rt.ragged_rank == 2
    same = ek.RaggedTensor.from_nested_row_splits(
        flat_values=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
        nested_row_splits=([0, 1, 1, 5], [0, 3, 3, 5, 9, 10]),
    )
    assert same.to_list() == rt.to_list()
    uniform = ek.RaggedTensor.from_row_splits(
        values=[[1, 3], [0, 0], [1, 3], [5, 3], [3, 3], [1, 2]], row_splits=[0, 3, 4, 6]
    )
    assert str(uniform) == (
        "<RaggedTensor [[[1, 3],\n  [0, 0],\n  [1, 3]], [[5, 3]], [[3, 3],\n"
        "                      [1, 2]]]>"
    )
    assert f"{uniform.shape}" == "(3, None, 2)" and uniform.ragged_rank == 1
    assert uniform.flat_values.shape == (6, 2)
    d = ek.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    assert d.row_lengths().numpy().tolist() == [4, 0, 3, 1, 0]
    assert int(d.nrows()) == 5 and d.nrows().dtype == ek.int64
    assert d.value_rowids().numpy().tolist() == [0, 0, 0, 0, 2, 2, 2, 3]
    with pytest.raises(TypeError):
        len(d)  # TF: object of type 'RaggedTensor' has no len()
    assert [r.numpy().tolist() for r in d] == d.to_list()


def test_factory_validation_errors():
    with pytest.raises(ek.errors.InvalidArgumentError, match="must equal the number of values"):
        ek.RaggedTensor.from_row_splits([1, 2, 3], [0, 2])
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"row_splits\[0\] must be 0"):
        ek.RaggedTensor.from_row_splits([1, 2, 3], [1, 3])
    with pytest.raises(ek.errors.InvalidArgumentError, match="non-decreasing"):
        ek.RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 1, 3])
    with pytest.raises(ValueError, match="constructor is private"):
        ek.RaggedTensor([1], [0, 1])


def test_ragged_queries_indexing():
    queries = ek.ragged.constant(
        [
            ["Who", "is", "George", "Washington"],
            ["What", "is", "the", "weather", "tomorrow"],
            ["Goodnight"],
        ]
    )
    assert queries[1].numpy().tolist() == [b"What", b"is", b"the", b"weather", b"tomorrow"]
    assert queries[1, 2].numpy() == b"the"
    assert queries[1:].to_list() == [
        [b"What", b"is", b"the", b"weather", b"tomorrow"],
        [b"Goodnight"],
    ]
    assert queries[:, :3].to_list()[0] == [b"Who", b"is", b"George"]
    assert queries[:, -2:].to_list() == [
        [b"George", b"Washington"],
        [b"weather", b"tomorrow"],
        [b"Goodnight"],
    ]
    rt = ek.ragged.constant([[[1, 2, 3], [4]], [[5], [], [6]], [[7]], [[8, 9], [10]]])
    assert str(rt[1]) == "<RaggedTensor [[5], [], [6]]>"
    assert rt[3, 0].numpy().tolist() == [8, 9]
    assert str(rt[:, 1:3]) == "<RaggedTensor [[[4]], [[], [6]], [], [[10]]]>"
    assert str(rt[:, -1:]) == "<RaggedTensor [[[4]],\n\n [[6]],\n\n [[7]],\n\n [[10]]]>"


def test_conversion_to_and_from_dense():
    sentences = ek.ragged.constant([["Hi"], ["Welcome", "to", "the", "fair"], ["Have", "fun"]])
    dense = sentences.to_tensor(default_value="", shape=[None, 10])
    assert dense.shape == (3, 10)
    assert dense.numpy()[1].tolist() == [b"Welcome", b"to", b"the", b"fair"] + [b""] * 6
    x = [[1, 3, -1, -1], [2, -1, -1, -1], [4, 5, 8, 9]]
    assert str(ek.RaggedTensor.from_tensor(x, padding=-1)) == (
        "<RaggedTensor [[1, 3], [2], [4, 5, 8, 9]]>"
    )
    assert ek.RaggedTensor.from_tensor(x, lengths=[2, 0, 3]).to_list() == [[1, 3], [], [4, 5, 8]]
    d = ek.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    assert d.to_tensor(default_value=-1).numpy().tolist()[2] == [5, 9, 2, -1]
    assert d.to_tensor(shape=[2, 2]).numpy().tolist() == [[3, 1], [0, 0]]
    st = sentences.to_sparse()
    assert st.indices.numpy().tolist() == [[0, 0], [1, 0], [1, 1], [1, 2], [1, 3], [2, 0], [2, 1]]
    assert st.dense_shape.numpy().tolist() == [3, 4]
    back = ek.RaggedTensor.from_sparse(
        ek.sparse.SparseTensor([[0, 0], [2, 0], [2, 1]], ["a", "b", "c"], [3, 3])
    )
    assert str(back) == "<RaggedTensor [[b'a'], [], [b'b', b'c']]>"


def test_broadcasting_cells():
    assert str(ek.ragged.constant([[1, 2], [3]]) + 3) == "<RaggedTensor [[4, 5], [6]]>"
    x = ek.ragged.constant([[10, 87, 12], [19, 53], [12, 32]])
    y = [[1000], [2000], [3000]]
    assert str(x + y) == ("<RaggedTensor [[1010, 1087, 1012], [2019, 2053], [3012, 3032]]>")
    x3 = ek.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8]]], ragged_rank=1)
    assert (x3 + ek.constant([[10]])).to_list() == [[[11, 12], [13, 14], [15, 16]], [[17, 18]]]
    with pytest.raises(ek.errors.InvalidArgumentError):
        ek.ragged.constant([[1, 2], [3, 4, 5, 6], [7]]) + ek.constant(
            [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
        )
    with pytest.raises(ek.errors.InvalidArgumentError, match="row partitions differ"):
        ek.ragged.constant([[1, 2, 3], [4], [5, 6]]) + ek.ragged.constant(
            [[10, 20], [30, 40], [50]]
        )


def test_reductions_along_the_ragged_axis(digits):
    # TF 2.21's values, empty rows included.
    assert ek.reduce_sum(digits, axis=0).numpy().tolist() == [14, 10, 6, 1]
    assert int(ek.reduce_sum(digits)) == 31
    assert ek.reduce_max(digits, axis=1).numpy().tolist() == [4, -(2**31), 9, 6, -(2**31)]
    assert ek.reduce_min(digits, axis=-1).numpy().tolist() == [1, 2**31 - 1, 2, 6, 2**31 - 1]
    assert ek.reduce_prod(digits, axis=1).numpy().tolist() == [12, 1, 90, 6, 1]
    assert ek.reduce_sum(digits, axis=1, keepdims=True).numpy().tolist() == [
        [9],
        [0],
        [16],
        [6],
        [0],
    ]
    f = ek.ragged.constant([[1.0, 2.0], []])
    np.testing.assert_array_equal(ek.reduce_mean(f, axis=1).numpy(), [1.5, np.nan])
    assert ek.reduce_max(f, axis=1).numpy().tolist() == [2.0, float(np.finfo(np.float32).min)]
    b = ek.ragged.constant([[True], []])
    assert ek.reduce_any(b, axis=1).numpy().tolist() == [True, False]


def test_concat_along_rows_and_columns():
    rx = ek.ragged.constant([["John"], ["a", "big", "dog"], ["my", "cat"]])
    ry = ek.ragged.constant([["fell", "asleep"], ["barked"], ["is", "fuzzy"]])
    assert ek.concat([rx, ry], axis=1).to_list() == [
        [b"John", b"fell", b"asleep"],
        [b"a", b"big", b"dog", b"barked"],
        [b"my", b"cat", b"is", b"fuzzy"],
    ]
    assert str(ek.concat([ek.ragged.constant([[1.0]]), ek.constant([[2.0, 3.0]])], axis=1)) == (
        "<RaggedTensor [[1.0, 2.0, 3.0]]>"
    )


def test_ragged_tensor_guide_cells_in_tensor_guide():
    ragged_list = [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]
    with pytest.raises((ValueError, TypeError)):
        ek.constant(ragged_list)
    ragged_tensor = ek.ragged.constant(ragged_list)
    assert str(ragged_tensor) == "<RaggedTensor [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]>"
    assert str(ragged_tensor.shape) == "(4, None)"


# -- gradients against finite differences ---------------------------------------------------------


SPLITS = [0, 2, 2, 5]


def _rt(values):
    return ek.RaggedTensor.from_row_splits(values, SPLITS)


def _values():
    return ek.constant([0.3, -1.2, 0.8, 2.0, -0.4], ek.float64)


def test_gradient_of_elementwise_math_on_values():
    def f(v):
        rt = _rt(v)
        out = ek.math.sin(rt) * rt + ek.math.square(rt) / 3.0 - rt
        return out.flat_values

    check_gradients(f, _values())


def test_gradient_of_ragged_reductions_and_to_tensor():
    check_gradients(lambda v: ek.reduce_sum(_rt(v), axis=1), _values())
    check_gradients(lambda v: ek.reduce_sum(_rt(v), axis=0), _values())
    # (the empty row's maximum is the dtype's lowest value, too large for finite differences)
    check_gradients(lambda v: ek.gather(ek.reduce_max(_rt(v), axis=1), [0, 2]), _values())
    check_gradients(lambda v: ek.reduce_prod(_rt(v), axis=1), _values())
    check_gradients(lambda v: _rt(v).to_tensor(default_value=7.0), _values())
    check_gradients(lambda v: _rt(v).to_tensor(shape=[3, 2]), _values())


@pytest.mark.filterwarnings("ignore:invalid value encountered")  # the empty row's 0 / 0
def test_gradient_of_mean_indexing_concat_and_dense_broadcast():
    def mean(v):
        m = ek.reduce_mean(_rt(v), axis=1)
        return ek.gather(m, [0, 2])  # row 1 is empty: NaN, as in TensorFlow

    check_gradients(mean, _values())
    check_gradients(lambda v: _rt(v)[:, -2:].flat_values, _values())
    check_gradients(lambda v: _rt(v)[2], _values())
    check_gradients(lambda v: ek.concat([_rt(v), _rt(v * 2.0)], axis=1).flat_values, _values())

    def with_dense(v, d):
        return (_rt(v) * d).flat_values

    check_gradients(with_dense, _values(), ek.constant([[1.5], [2.0], [-0.5]], ek.float64))


def test_gradient_reaches_a_variable_through_ragged_values():
    w = ek.Variable([1.0, 2.0, 3.0])
    with ek.GradientTape() as tape:
        rt = ek.RaggedTensor.from_row_lengths(w * 1.0, [2, 1])
        loss = ek.reduce_sum(ek.reduce_sum(rt * rt, axis=1))
    np.testing.assert_allclose(tape.gradient(loss, w).numpy(), [2.0, 4.0, 6.0])


def test_a_tape_differentiates_with_respect_to_a_ragged_tensor():
    # TF 2.21: <tf.RaggedTensor [[2.0, 4.0], [6.0]]> and [[3.0, 3.0], [3.0]]
    rt = ek.ragged.constant([[1.0, 2.0], [3.0]])
    with ek.GradientTape(persistent=True) as tape:
        tape.watch(rt)
        y = ek.reduce_sum(rt * rt, axis=1)
        r2 = rt * 3.0
    assert str(tape.gradient(y, rt)) == "<RaggedTensor [[2.0, 4.0], [6.0]]>"
    assert tape.gradient(r2, rt).to_list() == [[3.0, 3.0], [3.0]]
    grads = tape.gradient(y, {"rt": rt, "other": ek.constant(1.0)})
    assert isinstance(grads["rt"], ek.RaggedTensor) and grads["other"] is None
    st = ek.sparse.SparseTensor([[0, 0]], [1.0], [1, 1])
    with pytest.raises(ValueError, match="SparseTensor is not supported as a gradient source"):
        tape.gradient(y, st)


# -- Datasets -------------------------------------------------------------------------------------


def test_ragged_batch_as_tensorflow():
    ds = ek.data.Dataset.from_tensor_slices([1, 5, 3, 2, 8]).map(ek.range)
    batches = [str(b) for b in ds.ragged_batch(2)]
    assert batches == [
        "<RaggedTensor [[0], [0, 1, 2, 3, 4]]>",
        "<RaggedTensor [[0, 1, 2], [0, 1]]>",
        "<RaggedTensor [[0, 1, 2, 3, 4, 5, 6, 7]]>",
    ]
    assert ds.ragged_batch(2).element_spec == ek.RaggedTensorSpec([None, None], ek.int32, 1)
    scalars = [b.numpy().tolist() for b in ek.data.Dataset.range(3).ragged_batch(2)]
    assert scalars == [[0, 1], [2]]
    pairs = ek.data.Dataset.range(3).map(lambda x: (x, ek.range(x)))
    ((n, rt),) = list(pairs.ragged_batch(2, drop_remainder=True))
    assert n.numpy().tolist() == [0, 1] and rt.to_list() == [[], [0]]
    two_d = next(iter(ek.data.Dataset.range(1, 3).map(lambda x: ek.ones([x, 2])).ragged_batch(2)))
    assert two_d.to_list() == [[[1.0, 1.0]], [[1.0, 1.0], [1.0, 1.0]]]


def test_datasets_carry_ragged_components():
    ds = ek.data.Dataset.from_tensor_slices(["a b", "c d e"]).batch(2).map(ek.strings.split)
    (rt,) = list(ds)
    assert rt.to_list() == [[b"a", b"b"], [b"c", b"d", b"e"]]
    rows = [r.numpy().tolist() for r in ds.unbatch()]
    assert rows == [[b"a", b"b"], [b"c", b"d", b"e"]]
    sliced = ek.data.Dataset.from_tensor_slices(ek.ragged.constant([[1], [2, 3], []]))
    assert [r.numpy().tolist() for r in sliced] == [[1], [2, 3], []]
    nested = ek.data.Dataset.from_tensors(ek.ragged.constant([[1], [2, 3]])).repeat(2).batch(2)
    assert next(iter(nested)).to_list() == [[[1], [2, 3]], [[1], [2, 3]]]


def test_from_generator_with_a_ragged_signature():
    def gen():
        yield [[1, 2], [3]]
        yield ek.ragged.constant([[4]])

    spec = ek.RaggedTensorSpec(shape=[None, None], dtype=ek.int32)
    ds = ek.data.Dataset.from_generator(gen, output_signature=spec)
    assert [rt.to_list() for rt in ds] == [[[1, 2], [3]], [[4]]]
    assert ds.element_spec == spec
    bad = ek.data.Dataset.from_generator(lambda: iter([[[1.5]]]), output_signature=spec)
    with pytest.raises(TypeError, match="does not match"):
        list(bad)
