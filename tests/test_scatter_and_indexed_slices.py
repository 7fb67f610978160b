"""Variable's sparse updates (scatter_*, scatter_nd_*, batch_scatter_update), IndexedSlices and
its densification, IndexedSlices gradients in Keras optimizers, tf.compat.v1's scatter
functions. Expected values are NumPy's (``np.add.at`` and friends) or closed forms."""

import numpy as np
import pytest

import eagerkernel as ek
import eagerkernel.compat.v1 as tf1

RNG = np.random.default_rng(0)


def _table(shape=(5, 3), dtype=np.float32):
    return (RNG.standard_normal(shape) * 3).astype(dtype)


# -- IndexedSlices ---------------------------------------------------------------------------------


def test_indexed_slices_properties_and_repr():
    values = ek.constant([[1.0, 2.0], [3.0, 4.0]])
    s = ek.IndexedSlices(values, ek.constant([2, 0]), [3, 2])
    assert s.values is values
    np.testing.assert_array_equal(s.indices.numpy(), [2, 0])
    np.testing.assert_array_equal(s.dense_shape.numpy(), [3, 2])
    assert s.dtype == ek.float32
    assert s.shape == (3, 2)
    assert s.device == values.device
    assert repr(s).startswith("IndexedSlices(indices=Tensor([2 0]")
    assert "dense_shape=Tensor([3 2]" in repr(s)
    neg = -s
    assert isinstance(neg, ek.IndexedSlices)
    np.testing.assert_array_equal(neg.values.numpy(), -values.numpy())
    np.testing.assert_array_equal(neg.indices.numpy(), [2, 0])
    bare = ek.IndexedSlices(values, [0, 1])
    assert bare.dense_shape is None
    assert bare.shape.rank is None
    assert "dense_shape" not in repr(bare)


def test_indexed_slices_bad_arguments():
    with pytest.raises(TypeError, match="indices must be an integer tensor"):
        ek.IndexedSlices(ek.constant([[1.0]]), ek.constant([0.5]))
    with pytest.raises(ValueError, match="one slice per index"):
        ek.IndexedSlices(ek.constant([[1.0], [2.0]]), [0, 1, 2])
    with pytest.raises(ValueError, match="one slice per index"):
        ek.IndexedSlices(ek.constant(1.0), 0)


def test_convert_to_tensor_densifies_and_sums_duplicates():
    values = _table((6, 3))
    idx = np.array([4, 0, 4, 2, 0, 4])
    dense = ek.convert_to_tensor(ek.IndexedSlices(ek.constant(values), idx, [5, 3]))
    expected = np.zeros((5, 3), np.float32)
    np.add.at(expected, idx, values)
    np.testing.assert_allclose(dense.numpy(), expected, rtol=1e-6)
    s = ek.IndexedSlices(ek.constant(values), idx, [5, 3])
    assert ek.convert_to_tensor(s, ek.float32).dtype == ek.float32
    with pytest.raises(TypeError, match="requested float64"):
        ek.convert_to_tensor(s, ek.float64)
    # Ops densify too (TF converts an IndexedSlices operand).
    s = ek.IndexedSlices(ek.constant([[1.0, -2.0]]), [1], [2, 2])
    np.testing.assert_array_equal(ek.abs(s).numpy(), [[0, 0], [1, 2]])
    np.testing.assert_array_equal((ek.constant(1.0) + s).numpy(), [[1, 1], [2, -1]])


def test_densify_errors():
    with pytest.raises(ValueError, match="without dense_shape"):
        ek.convert_to_tensor(ek.IndexedSlices(ek.constant([[1.0]]), [0]))
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"indices\[1\] = 3 is not in"):
        ek.convert_to_tensor(ek.IndexedSlices(ek.constant([[1.0], [2.0]]), [0, 3], [3, 1]))
    with pytest.raises(ek.errors.InvalidArgumentError, match="do not fit dense_shape"):
        ek.convert_to_tensor(ek.IndexedSlices(ek.constant([[1.0, 2.0]]), [0], [3, 1]))


def test_densification_is_differentiable():
    values = ek.Variable([[1.0, 2.0], [3.0, 4.0]])
    w = ek.constant([[1.0, 10.0], [100.0, 1000.0], [0.5, 0.25]])
    with ek.GradientTape() as tape:
        dense = ek.convert_to_tensor(ek.IndexedSlices(values * 1.0, [2, 0], [3, 2]))
        loss = ek.reduce_sum(dense * w)
    # d loss / d values[i] = w[indices[i]]
    np.testing.assert_array_equal(tape.gradient(loss, values).numpy(), w.numpy()[[2, 0]])


# -- Variable.scatter_* -------------------------------------------------------------------------

_UFUNCS = {
    "scatter_add": np.add,
    "scatter_sub": np.subtract,
    "scatter_mul": np.multiply,
    "scatter_div": np.divide,
    "scatter_max": np.maximum,
    "scatter_min": np.minimum,
}


@pytest.mark.parametrize("method", sorted(_UFUNCS))
def test_scatter_arithmetic_accumulates_duplicates(method):
    init = _table()
    idx = np.array([3, 1, 3, 3, 0])
    upd = _table((5, 3)) + (5.0 if method == "scatter_div" else 0.0)
    v = ek.Variable(init, name="table")
    out = getattr(v, method)(ek.IndexedSlices(ek.constant(upd), ek.constant(idx)))
    assert out is v
    expected = init.copy()
    _UFUNCS[method].at(expected, idx, upd)
    np.testing.assert_allclose(v.numpy(), expected, rtol=1e-6)
    assert v.dtype == ek.float32 and v.shape == (5, 3)


def test_scatter_update_last_wins():
    v = ek.Variable(np.zeros((4, 2), np.float32))
    upd = np.array([[1, 1], [2, 2], [3, 3], [4, 4]], np.float32)
    v.scatter_update(ek.IndexedSlices(ek.constant(upd), [2, 0, 2, 2]))
    np.testing.assert_array_equal(v.numpy(), [[2, 2], [0, 0], [4, 4], [0, 0]])


def test_scatter_with_multidimensional_indices():
    init = _table((4, 2))
    idx = np.array([[0, 3], [3, 1]])
    upd = _table((2, 2, 2))
    v = ek.Variable(init)
    v.scatter_add(ek.IndexedSlices(ek.constant(upd), idx))
    expected = init.copy()
    np.add.at(expected, idx, upd)
    np.testing.assert_allclose(v.numpy(), expected, rtol=1e-6)


def test_integer_scatter_div_truncates_in_order():
    v = ek.Variable([7, -7, 100])
    v.scatter_div(ek.IndexedSlices(ek.constant([2, 2, 3, 2]), [0, 1, 2, 0]))
    # 7 / 2 -> 3, then / 2 -> 1; -7 / 2 -> -3 (toward zero); 100 / 3 -> 33
    np.testing.assert_array_equal(v.numpy(), [1, -3, 33])
    with pytest.raises(ek.errors.InvalidArgumentError, match="division by zero"):
        v.scatter_div(ek.IndexedSlices(ek.constant([0]), [0]))
    np.testing.assert_array_equal(v.numpy(), [1, -3, 33])


@pytest.mark.parametrize("method", ["scatter_update", *sorted(_UFUNCS)])
def test_out_of_range_index_raises_and_writes_nothing(method):
    init = _table((3, 2))
    v = ek.Variable(init, name="emb")
    before = v.numpy().copy()
    delta = ek.IndexedSlices(ek.constant(np.ones((3, 2), np.float32)), [0, 1, 3])
    with pytest.raises(ek.errors.InvalidArgumentError) as info:
        getattr(v, method)(delta)
    message = str(info.value)
    assert f"Variable.{method}" in message
    assert "indices[2] = 3 is not in [0, 3)" in message
    assert "emb:0" in message
    np.testing.assert_array_equal(v.numpy(), before)
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"indices\[0\] = -1"):
        getattr(v, method)(ek.IndexedSlices(ek.constant(np.ones((1, 2), np.float32)), [-1]))
    np.testing.assert_array_equal(v.numpy(), before)


def test_dtype_and_shape_mismatch():
    v = ek.Variable(np.zeros((3, 2), np.float32), name="w")
    with pytest.raises(ValueError, match="w:0 has dtype float32, the updates have dtype int32"):
        v.scatter_add(ek.IndexedSlices(ek.constant([[1, 2]]), [0]))
    with pytest.raises(ek.errors.InvalidArgumentError, match="updates must have shape"):
        v.scatter_update(ek.IndexedSlices(ek.constant([[1.0, 2.0, 3.0]]), [0]))
    with pytest.raises(TypeError, match=r"must be an ek\.IndexedSlices"):
        v.scatter_update(ek.constant([[1.0, 2.0]]))
    with pytest.raises(TypeError, match="int32 or int64"):
        v.scatter_nd_update([[0.5, 1.0]], [1.0])
    with pytest.raises(TypeError, match="not a numeric dtype"):
        ek.Variable([True, False]).scatter_add(ek.IndexedSlices(ek.constant([True]), [0]))
    np.testing.assert_array_equal(v.numpy(), np.zeros((3, 2)))


def test_use_locking_and_name_are_accepted():
    v = ek.Variable([1.0, 2.0])
    v.scatter_add(ek.IndexedSlices(ek.constant([1.0]), [1]), use_locking=True, name="s")
    v.scatter_nd_add([[0]], [1.0], name="t")
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])


# -- scatter_nd_* and batch_scatter_update --------------------------------------------------------


def test_scatter_nd_family():
    init = _table((3, 4))
    idx = np.array([[0, 1], [2, 3], [0, 1]])
    upd = np.array([1.0, 2.0, 4.0], np.float32)
    for method, fn in [("scatter_nd_add", np.add), ("scatter_nd_sub", np.subtract)]:
        v = ek.Variable(init)
        assert getattr(v, method)(idx, upd) is v
        expected = init.copy()
        fn.at(expected, (idx[:, 0], idx[:, 1]), upd)
        np.testing.assert_allclose(v.numpy(), expected, rtol=1e-6)
    for method, fn in [("scatter_nd_max", np.maximum), ("scatter_nd_min", np.minimum)]:
        v = ek.Variable(init)
        getattr(v, method)(idx, upd)
        expected = init.copy()
        fn.at(expected, (idx[:, 0], idx[:, 1]), upd)
        np.testing.assert_array_equal(v.numpy(), expected)
    v = ek.Variable(init)
    v.scatter_nd_update(idx, upd)
    expected = init.copy()
    expected[0, 1], expected[2, 3] = 4.0, 2.0  # the last of the repeated [0, 1] wins
    np.testing.assert_array_equal(v.numpy(), expected)


def test_scatter_nd_slices_and_errors():
    v = ek.Variable(np.zeros((2, 3), np.float32), name="m")
    v.scatter_nd_update([[1]], [[1.0, 2.0, 3.0]])  # k=1 < rank: whole rows
    np.testing.assert_array_equal(v.numpy(), [[0, 0, 0], [1, 2, 3]])
    before = v.numpy().copy()
    with pytest.raises(ek.errors.InvalidArgumentError) as info:
        v.scatter_nd_add([[0, 0], [1, 3]], [1.0, 1.0])
    assert "Variable.scatter_nd_add" in str(info.value)
    assert "indices[1] = [1, 3] does not index into param shape [2, 3]" in str(info.value)
    with pytest.raises(ek.errors.InvalidArgumentError, match="updates must have shape"):
        v.scatter_nd_add([[0, 0]], [1.0, 2.0])
    with pytest.raises(ek.errors.InvalidArgumentError, match="k <= rank"):
        v.scatter_nd_add([[0, 0, 0]], [1.0])
    np.testing.assert_array_equal(v.numpy(), before)


def test_batch_scatter_update():
    init = np.arange(12, dtype=np.int32).reshape(2, 6)
    v = ek.Variable(init)
    idx = np.array([[5, 0], [1, 1]])
    upd = np.array([[-1, -2], [-3, -4]], np.int32)
    v.batch_scatter_update(ek.IndexedSlices(ek.constant(upd), ek.constant(idx)))
    expected = init.copy()
    for b in range(2):
        for j in range(2):
            expected[b, idx[b, j]] = upd[b, j]
    np.testing.assert_array_equal(v.numpy(), expected)  # [1, 1]: the last (-4) wins
    with pytest.raises(ek.errors.InvalidArgumentError, match="batch dimensions"):
        v.batch_scatter_update(ek.IndexedSlices(ek.constant([[[1]]] * 3), [[[0]]] * 3))
    with pytest.raises(ek.errors.InvalidArgumentError, match="does not index"):
        v.batch_scatter_update(ek.IndexedSlices(ek.constant([[1], [2]]), [[0], [6]]))
    np.testing.assert_array_equal(v.numpy(), expected)
    w = ek.Variable([1, 2, 3])  # 1-D indices: scatter_update
    w.batch_scatter_update(ek.IndexedSlices(ek.constant([9]), [1]))
    np.testing.assert_array_equal(w.numpy(), [1, 9, 3])


# -- the write path: snapshots, tapes, graph functions, devices -----------------------------------


def test_earlier_reads_keep_their_values_and_no_gradient_flows():
    v = ek.Variable([1.0, 2.0, 3.0])
    read = v.read_value()
    array = v.numpy()
    with ek.GradientTape(persistent=True) as tape:
        y = v * v
        u = ek.constant([5.0])
        tape.watch(u)
        v.scatter_update(ek.IndexedSlices(u, [0]))
        z = ek.reduce_sum(v * 1.0)
    np.testing.assert_array_equal(read.numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(array, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(v.numpy(), [5.0, 2.0, 3.0])
    # The tape used the value y read: 2 * old v.
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [2.0, 4.0, 6.0])
    assert tape.gradient(z, u) is None  # the update is not differentiable (as in TF)
    del tape


def test_sparse_read_and_gather_nd():
    v = ek.Variable([[1.0, 2.0], [3.0, 4.0]])
    with ek.GradientTape() as tape:
        loss = ek.reduce_sum(v.sparse_read([1, 1])) + ek.reduce_sum(v.gather_nd([[0, 1]]))
    np.testing.assert_array_equal(tape.gradient(loss, v).numpy(), [[0, 1], [2, 2]])


def test_graph_function_replays_the_update():
    v = ek.Variable([0.0, 0.0])

    @ek.function
    def step():
        return v.scatter_add(ek.IndexedSlices(ek.constant([1.0]), [1]))

    for _ in range(3):
        step()
    np.testing.assert_array_equal(v.numpy(), [0.0, 3.0])


def test_variable_on_a_virtual_gpu_stays_there():
    ek.config.experimental.set_virtual_gpus(2)
    with ek.device("/gpu:1"):
        v = ek.Variable([1.0, 2.0, 3.0])
    device = v.device
    assert "GPU:1" in device
    v.scatter_add(ek.IndexedSlices(ek.constant([1.0, 1.0]), [2, 2]))  # updates on the CPU
    v.scatter_nd_update([[0]], [4.0])
    assert v.device == device
    np.testing.assert_array_equal(v.numpy(), [4.0, 2.0, 5.0])


def test_mirrored_variable_updates_every_replica():
    ek.config.experimental.set_virtual_gpus(2)
    strategy = ek.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])
    with strategy.scope():
        v = ek.Variable([1.0, 2.0, 3.0])
    v.scatter_add(ek.IndexedSlices(ek.constant([5.0]), [1]))
    for component in v.values:
        np.testing.assert_array_equal(component.numpy(), [1.0, 7.0, 3.0])


# -- optimizers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: ek.keras.optimizers.SGD(0.1),
        lambda: ek.keras.optimizers.SGD(0.1, momentum=0.9),
        lambda: ek.keras.optimizers.Adam(0.01),
        lambda: ek.keras.optimizers.RMSprop(0.01),
        lambda: ek.keras.optimizers.Adagrad(0.1),
    ],
)
def test_optimizers_take_indexed_slices_gradients(make):
    init = _table((6, 4))
    sparse_var, dense_var = ek.Variable(init), ek.Variable(init)
    sparse_opt, dense_opt = make(), make()
    for step in range(3):
        idx = np.array([step, 5, step, 2])
        values = ek.constant(_table((4, 4)))
        grad = ek.IndexedSlices(values, idx, [6, 4])
        sparse_opt.apply_gradients([(grad, sparse_var)])
        dense = np.zeros((6, 4), np.float32)
        np.add.at(dense, idx, values.numpy())
        dense_opt.apply_gradients([(ek.constant(dense), dense_var)])
    np.testing.assert_allclose(sparse_var.numpy(), dense_var.numpy(), rtol=1e-6, atol=1e-7)


def test_sgd_step_with_indexed_slices_closed_form():
    v = ek.Variable(np.ones((3, 2), np.float32))
    grad = ek.IndexedSlices(ek.constant([[1.0, 2.0], [3.0, 4.0]]), [2, 2], [3, 2])
    ek.keras.optimizers.SGD(0.5).apply_gradients([(grad, v)])
    np.testing.assert_allclose(v.numpy(), [[1, 1], [1, 1], [1 - 2.0, 1 - 3.0]])


def test_embedding_gradient_through_tape_as_indexed_slices():
    table = ek.Variable(_table((5, 2)))
    ids = np.array([1, 3, 1])
    with ek.GradientTape() as tape:
        loss = ek.reduce_sum(ek.gather(table, ids) ** 2)
    dense = tape.gradient(loss, table)
    rows = ek.gather(table, ids)
    grad = ek.IndexedSlices(2.0 * rows, ids, [5, 2])
    np.testing.assert_allclose(ek.convert_to_tensor(grad).numpy(), dense.numpy(), rtol=1e-6)


# -- tf.compat.v1 --------------------------------------------------------------------------------


def test_compat_v1_scatter_functions():
    v = ek.Variable([1.0, 2.0, 3.0, 4.0])
    assert tf1.scatter_update(v, [0, 3], [10.0, 40.0]) is v
    tf1.scatter_add(v, [1, 1], [1.0, 1.0])
    tf1.scatter_sub(v, 2, 1.0)
    np.testing.assert_array_equal(v.numpy(), [10.0, 4.0, 2.0, 40.0])
    tf1.scatter_update(v, [1, 2], 0.0)  # a scalar update goes to every index
    np.testing.assert_array_equal(v.numpy(), [10.0, 0.0, 0.0, 40.0])
    tf1.scatter_nd_update(v, [[1]], [7.0])
    tf1.scatter_nd_add(v, [[0], [0]], [1.0, 1.0])
    tf1.scatter_nd_sub(v, [[3]], [40.0])
    tf1.scatter_mul(v, [0], [2.0])
    tf1.scatter_div(v, [1], [7.0])
    tf1.scatter_max(v, [2], [5.0])
    tf1.scatter_min(v, [0], [20.0])
    np.testing.assert_array_equal(v.numpy(), [20.0, 1.0, 5.0, 0.0])
    m = ek.Variable([[1, 2], [3, 4]])
    tf1.batch_scatter_update(m, [[1], [0]], [[9], [8]])
    np.testing.assert_array_equal(m.numpy(), [[1, 9], [8, 4]])
    with pytest.raises(TypeError, match="ref must be a Variable"):
        tf1.scatter_update(ek.constant([1.0]), [0], [2.0])
    with pytest.raises(ek.errors.InvalidArgumentError, match="indices"):
        tf1.scatter_add(v, [4], [1.0])
    np.testing.assert_array_equal(v.numpy(), [20.0, 1.0, 5.0, 0.0])


def test_tf_tensor_protocol_converts_user_objects_and_checks_the_result():
    class Celsius:
        def __init__(self, degrees):
            self.degrees = degrees

        def __tf_tensor__(self, dtype=None, name=None):
            return ek.constant(self.degrees, dtype=dtype)

    class Broken:
        def __tf_tensor__(self, dtype=None, name=None):
            return [1.0]

    np.testing.assert_allclose((ek.convert_to_tensor(Celsius([1.5, 2.0])) * 2.0).numpy(), [3, 4])
    np.testing.assert_allclose(ek.add(Celsius(1.0), 2.0).numpy(), 3.0)
    with pytest.raises(TypeError, match=r"Broken.__tf_tensor__ returned list, not a Tensor"):
        ek.convert_to_tensor(Broken())
    slices = ek.IndexedSlices(ek.constant([[1.0]]), ek.constant([0]), ek.constant([2, 1]))
    with pytest.raises(ValueError, match="requested dtype float64 for IndexedSlices"):
        slices.__tf_tensor__(ek.float64)
