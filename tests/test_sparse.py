"""SparseTensor and `ek.sparse`, checked against TensorFlow's sparse tensor guide
(guide/sparse_tensor.ipynb and the sparse part of guide/tensor.ipynb) with the outputs
TensorFlow 2.21 prints, and gradients against finite differences."""

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.core.profiling_tape import ProfilingTape
from eagerkernel.testing import check_gradients


def pprint_sparse_tensor(st):  # the guide's helper, unchanged
    s = "<SparseTensor shape=%s \n values={" % (st.dense_shape.numpy().tolist(),)  # noqa: UP031
    for index, value in zip(st.indices, st.values):
        s += "\n  %s: %s" % (index.numpy().tolist(), value.numpy().tolist())  # noqa: UP031
    return s + "}>"


def test_construct_and_print_as_in_the_guide():
    st1 = ek.sparse.SparseTensor(indices=[[0, 3], [2, 4]], values=[10, 20], dense_shape=[3, 10])
    assert str(st1) == (
        "SparseTensor(indices=Tensor(\n[[0 3]\n [2 4]], shape=(2, 2), dtype=int64), "
        "values=Tensor([10 20], shape=(2,), dtype=int32), "
        "dense_shape=Tensor([ 3 10], shape=(2,), dtype=int64))"
    )
    assert pprint_sparse_tensor(st1) == (
        "<SparseTensor shape=[3, 10] \n values={\n  [0, 3]: 10\n  [2, 4]: 20}>"
    )
    assert st1.shape == (3, 10) and st1.dtype == ek.int32
    assert ek.SparseTensor is ek.sparse.SparseTensor


def test_from_dense_and_to_dense():
    st2 = ek.sparse.from_dense([[1, 0, 0, 8], [0, 0, 0, 0], [0, 0, 3, 0]])
    assert pprint_sparse_tensor(st2) == (
        "<SparseTensor shape=[3, 4] \n values={\n  [0, 0]: 1\n  [0, 3]: 8\n  [2, 2]: 3}>"
    )
    st3 = ek.sparse.to_dense(st2)
    assert st3.numpy().tolist() == [[1, 0, 0, 8], [0, 0, 0, 0], [0, 0, 3, 0]]
    st_c = ek.sparse.SparseTensor([[0, 1], [1, 0], [1, 1]], [13, 15, 17], (2, 2))
    assert ek.sparse.to_dense(st_c, default_value=-1).numpy().tolist() == [[-1, 13], [15, 17]]
    words = ek.sparse.SparseTensor([[1]], ["b"], [2])
    assert ek.sparse.to_dense(words).numpy().tolist() == [b"", b"b"]
    assert ek.sparse.from_dense(["", "x"]).indices.numpy().tolist() == [[1]]


def test_to_dense_errors_are_tensorflows():
    with pytest.raises(
        ek.errors.InvalidArgumentError,
        match=r"indices\[0\] = \[5,0\] is out of bounds: need 0 <= index < \[2,2\]",
    ):
        ek.sparse.to_dense(ek.sparse.SparseTensor([[5, 0]], [1], [2, 2]))
    unordered = ek.sparse.SparseTensor([[1, 0], [0, 0]], [1, 2], [2, 2])
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"indices\[1\] = \[0,0\] is out of"):
        ek.sparse.to_dense(unordered)
    assert pprint_sparse_tensor(ek.sparse.reorder(unordered)) == (
        "<SparseTensor shape=[2, 2] \n values={\n  [0, 0]: 2\n  [1, 0]: 1}>"
    )
    with pytest.raises(ValueError, match="one entry per row of indices"):
        ek.sparse.SparseTensor([[0, 0]], [1, 2], [2, 2])


def test_add_as_in_the_guide():
    st_a = ek.sparse.SparseTensor(indices=[[0, 2], [3, 4]], values=[31, 2], dense_shape=[4, 10])
    st_b = ek.sparse.SparseTensor(indices=[[0, 2], [3, 0]], values=[56, 38], dense_shape=[4, 10])
    st_sum = ek.sparse.add(st_a, st_b)
    assert pprint_sparse_tensor(st_sum) == (
        "<SparseTensor shape=[4, 10] \n values={\n  [0, 2]: 87\n  [3, 0]: 38\n  [3, 4]: 2}>"
    )
    dense = ek.sparse.add(st_a, ek.ones([4, 10], ek.int32))
    assert dense.numpy()[0, 2] == 32 and dense.numpy()[3, 4] == 3 and dense.numpy().sum() == 40 + 33
    small = ek.sparse.SparseTensor([[0, 2]], [-30], [4, 10])
    kept = ek.sparse.to_dense(ek.sparse.add(st_a, small, threshold=2)).numpy()
    assert kept.sum() == 2 and kept[3, 4] == 2  # |31 - 30| < 2 is dropped
    with pytest.raises(ek.errors.InvalidArgumentError, match="shapes do not match"):
        ek.sparse.add(st_a, ek.sparse.SparseTensor([[0, 0]], [1], [2, 2]))


def test_sparse_dense_matmul_as_in_the_guide():
    st_c = ek.sparse.SparseTensor(
        indices=([0, 1], [1, 0], [1, 1]), values=[13, 15, 17], dense_shape=(2, 2)
    )
    mb = ek.constant([[4], [6]])
    product = ek.sparse.sparse_dense_matmul(st_c, mb)
    assert str(product) == "Tensor(\n[[ 78]\n [162]], shape=(2, 1), dtype=int32)"
    adj_b = ek.sparse.sparse_dense_matmul(st_c, ek.constant([[4, 6]]), adjoint_b=True)
    assert adj_b.numpy().tolist() == [[78], [162]]
    adj_a = ek.sparse.sparse_dense_matmul(st_c, mb, adjoint_a=True)
    assert adj_a.numpy().tolist() == [[90], [154]]
    dense_first = ek.sparse.sparse_dense_matmul(ek.constant([[1, 2]]), st_c)
    assert dense_first.numpy().tolist() == [[30, 47]]
    a = ek.sparse.SparseTensor(indices=[[0, 3], [2, 4]], values=[15, 25], dense_shape=[3, 10])
    b = ek.sparse.to_dense(ek.sparse.transpose(a))
    c = ek.sparse.sparse_dense_matmul(a, b)
    assert c.numpy().tolist() == [[225, 0, 0], [0, 0, 0], [0, 0, 625]]
    with pytest.raises(
        ek.errors.InvalidArgumentError, match=r"inner dimension does not match: 2 vs\. 1"
    ):
        ek.sparse.sparse_dense_matmul(st_c, ek.constant([[1, 2, 3]]))
    with pytest.raises(TypeError, match="dtype"):
        ek.sparse.sparse_dense_matmul(st_c, ek.constant([[1.0], [2.0]]))
    with ProfilingTape() as tape:
        ek.sparse.sparse_dense_matmul(st_c, mb)
    assert [r.prim.name for r in tape.records] == ["SparseTensorDenseMatMul"]


def test_concat_slice_and_map_values_as_in_the_guide():
    a = ek.sparse.SparseTensor(
        [[2, 4], [3, 3], [3, 4], [4, 3], [4, 4], [5, 4]], [1] * 6, dense_shape=[8, 5]
    )
    b = ek.sparse.SparseTensor(
        [[0, 2], [1, 1], [1, 3], [2, 0], [2, 4], [2, 5], [3, 5], [4, 5], [5, 0], [5, 4], [5, 5],
         [6, 1], [6, 3], [7, 2]],
        [1] * 14,
        dense_shape=[8, 6],
    )  # fmt: skip
    c = ek.sparse.SparseTensor([[3, 0], [4, 0]], [1, 1], dense_shape=[8, 6])
    pattern = ek.sparse.to_dense(ek.sparse.concat(axis=1, sp_inputs=[a, b, c])).numpy()
    assert pattern.shape == (8, 17)
    assert pattern.tolist()[3] == [0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0]
    assert pattern.tolist()[0] == [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    assert ek.sparse.to_dense(ek.sparse.slice(a, [0, 0], [8, 5])).numpy().sum() == 6
    sliced_b = ek.sparse.to_dense(ek.sparse.slice(b, start=[0, 5], size=[8, 6])).numpy()
    assert sliced_b.ravel().tolist() == [0, 0, 1, 1, 1, 1, 0, 0]
    assert ek.sparse.to_dense(ek.sparse.slice(c, [0, 10], [8, 6])).shape == (8, 0)
    st2 = ek.sparse.from_dense([[1, 0, 0, 8], [0, 0, 0, 0], [0, 0, 3, 0]])
    plus5 = ek.sparse.to_dense(ek.sparse.map_values(ek.add, st2, 5)).numpy().tolist()
    assert plus5 == [[6, 0, 0, 13], [0, 0, 0, 0], [0, 0, 8, 0]]
    again = ek.sparse.SparseTensor(st2.indices, st2.values + 5, st2.dense_shape)
    assert ek.sparse.to_dense(again).numpy().tolist() == plus5
    assert pprint_sparse_tensor(st2 * 2).endswith("[2, 2]: 6}>")


def test_reductions():
    st_a = ek.sparse.SparseTensor([[0, 2], [3, 4]], [31, 2], [4, 10])
    assert int(ek.sparse.reduce_sum(st_a)) == 33
    assert ek.sparse.reduce_sum(st_a, axis=1).numpy().tolist() == [31, 0, 0, 2]
    keep = ek.sparse.reduce_sum(st_a, axis=0, keepdims=True)
    assert keep.shape == (1, 10) and keep.numpy()[0, 2] == 31
    as_sparse = ek.sparse.reduce_sum(st_a, axis=1, output_is_sparse=True)
    assert as_sparse.indices.numpy().tolist() == [[0], [3]]
    assert as_sparse.values.numpy().tolist() == [31, 2]
    # The guide: reduce_max of stored values ignores the implicit zeros.
    assert int(ek.sparse.reduce_max(ek.sparse.from_dense([-5, 0, -3]))) == -3
    assert int(ek.math.reduce_max([-5, 0, -3])) == 0


def test_the_sparse_cell_of_the_tensor_guide():
    sparse_tensor = ek.sparse.SparseTensor(
        indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4]
    )
    assert str(ek.sparse.to_dense(sparse_tensor)) == (
        "Tensor(\n[[1 0 0 0]\n [0 0 2 0]\n [0 0 0 0]], shape=(3, 4), dtype=int32)"
    )


# -- gradients against finite differences ---------------------------------------------------------

IDX = [[0, 1], [1, 0], [1, 2], [2, 2]]


def _st(values):
    return ek.sparse.SparseTensor(IDX, values, [3, 3])


def _vals():
    return ek.constant([0.5, -1.5, 2.0, 0.25], ek.float64)


def test_gradient_of_sparse_dense_matmul_wrt_values_and_dense():
    b = ek.constant([[1.0, -2.0], [0.5, 3.0], [-1.0, 0.75]], ek.float64)
    check_gradients(lambda v, d: ek.sparse.sparse_dense_matmul(_st(v), d), _vals(), b)
    check_gradients(
        lambda v, d: ek.sparse.sparse_dense_matmul(_st(v), d, adjoint_a=True), _vals(), b
    )
    check_gradients(
        lambda v, d: ek.sparse.sparse_dense_matmul(_st(v), d, adjoint_b=True),
        _vals(),
        ek.transpose(b),
    )
    # second order: the VJPs are themselves differentiable ops
    check_gradients(lambda v, d: ek.sparse.sparse_dense_matmul(_st(v), d) ** 2, _vals(), b, order=2)


def test_gradient_of_to_dense_add_and_reduce_sum():
    check_gradients(lambda v: ek.sparse.to_dense(_st(v)), _vals())
    other = ek.sparse.SparseTensor([[0, 1], [2, 0]], ek.constant([1.0, 2.0], ek.float64), [3, 3])
    check_gradients(lambda v: ek.sparse.add(_st(v), other).values, _vals())
    check_gradients(lambda v: ek.sparse.reduce_sum(_st(v), axis=0), _vals())
    check_gradients(
        lambda v: ek.sparse.reduce_sum(_st(v), axis=1, output_is_sparse=True).values, _vals()
    )
    dense = ek.constant(np.arange(9.0).reshape(3, 3) / 4.0)
    check_gradients(lambda v, d: ek.sparse.add(_st(v), d), _vals(), dense)
    check_gradients(lambda d: (_st(_vals()) * d).values, dense)


def test_gradient_reaches_a_variable_as_sparse_values():
    w = ek.Variable([1.0, 2.0, 3.0, 4.0])
    b = ek.constant([[1.0], [2.0], [3.0]])
    with ek.GradientTape() as tape:
        y = ek.reduce_sum(ek.sparse.sparse_dense_matmul(_st(w), b))
    # d/dv_k of sum(A b) is b[col_k]
    np.testing.assert_allclose(tape.gradient(y, w).numpy(), [2.0, 1.0, 3.0, 3.0])


def test_sparse_tensors_in_datasets_as_in_the_guide():
    sparse_data = ek.sparse.SparseTensor(
        indices=[(0, 0), (0, 1), (0, 2), (4, 3), (5, 0), (5, 1)],
        values=[1, 1, 1, 1, 1, 1],
        dense_shape=(6, 4),
    )
    dataset = ek.data.Dataset.from_tensor_slices(sparse_data)
    assert repr(dataset.element_spec) == "SparseTensorSpec(TensorShape([4]), ek.int32)"
    rows = [pprint_sparse_tensor(e) for e in dataset]
    assert rows[0] == "<SparseTensor shape=[4] \n values={\n  [0]: 1\n  [1]: 1\n  [2]: 1}>"
    assert rows[1] == "<SparseTensor shape=[4] \n values={}>"
    assert rows[4] == "<SparseTensor shape=[4] \n values={\n  [3]: 1}>"
    batched_dataset = dataset.batch(2)
    assert repr(batched_dataset.element_spec) == (
        "SparseTensorSpec(TensorShape([None, 4]), ek.int32)"
    )
    batches = [pprint_sparse_tensor(e) for e in batched_dataset]
    assert batches[2] == (
        "<SparseTensor shape=[2, 4] \n values={\n  [0, 3]: 1\n  [1, 0]: 1\n  [1, 1]: 1}>"
    )
    assert [pprint_sparse_tensor(e) for e in batched_dataset.unbatch()] == rows
    doubled = [pprint_sparse_tensor(e) for e in dataset.map(lambda x: x * 2)]
    assert doubled[5] == "<SparseTensor shape=[4] \n values={\n  [0]: 2\n  [1]: 2}>"
