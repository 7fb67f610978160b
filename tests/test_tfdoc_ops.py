"""TensorFlow's own docstring examples (and the oracle's numbers where said) for ops that
differed: tf.constant's gradient pass-through, string gathers, TensorShape ``+``, top_k's
int16 indices, sparse reduce_max of empty groups, as_dtype names, max pools on ints and with
explicit padding, bands of diagonals, sparse.expand_dims's default, assert_type on composites,
and the compat.v1 casts, initializers and string_split."""

# ruff: noqa: RUF005  (TensorShape's `+` is what these tests check)

import numpy as np
import pytest

import eagerkernel as ek
import eagerkernel.compat.v1 as tf1

IAE = ek.errors.InvalidArgumentError


def test_constant_passes_an_eager_tensor_through_with_its_gradient():
    # tf.constant docstring: `loss = tf.constant(v + v)` -> gradient array([2.]).
    v = ek.Variable([0.0])
    with ek.GradientTape() as g:
        loss = ek.constant(v + v)
    np.testing.assert_array_equal(g.gradient(loss, v).numpy(), [2.0])
    t = ek.constant([1, 2])
    assert ek.constant(t) is t and ek.constant(t, dtype=ek.int32) is t
    # The oracle: a Variable, or a reshape, gives a constant (no gradient).
    with ek.GradientTape(persistent=True) as g:
        a, b = ek.constant(v), ek.constant(v * 2, shape=[1, 1])
    assert g.gradient(a, v) is None and g.gradient(b, v) is None


def test_gather_of_strings_with_a_scalar_index():
    # tf.gather docstring: tf.gather(params, 3).numpy() -> b'p3'.
    params = ek.constant(["p0", "p1", "p2", "p3", "p4", "p5"])
    assert ek.gather(params, 3).numpy() == b"p3"
    assert ek.gather(params, 3).shape == ()


def test_tensor_shape_addition_concatenates_as_tensorflow():
    s = ek.TensorShape([2, 3])
    assert isinstance(s + [4], ek.TensorShape) and (s + [4]).as_list() == [2, 3, 4]
    assert ([4] + s).as_list() == [4, 2, 3] and isinstance((4,) + s, ek.TensorShape)
    assert (s + (None,)).as_list() == [2, 3, None] and (s + 5).as_list() == [2, 3, 5]
    assert (s + ek.TensorShape(None)).rank is None
    # tf.gather_nd docstring: batch_shape + outer_shape + inner_shape -> [5, 3].
    params, indices = ek.zeros([5, 7, 3]), ek.zeros([5, 1])
    out = indices.shape[:1] + indices.shape[1:-1] + params.shape[2:]
    assert out.as_list() == [5, 3]
    assert isinstance(params.shape[:-1], ek.TensorShape)


def test_top_k_shapes_and_int16_indices():
    # tf.math.top_k docstring.
    x = ek.random.uniform([3, 4, 5])
    values, indices = ek.math.top_k(x, k=2)
    assert values.shape == indices.shape == x.shape[:-1] + [2]
    r = ek.math.top_k([1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0], k=3, index_type=ek.int16)
    np.testing.assert_array_equal(r.indices.numpy(), np.array([0, 1, 3], np.int16))
    assert r.indices.dtype == ek.int16
    with pytest.raises(IAE, match="index_type' of int8 is not in the list"):
        ek.math.top_k([1, 2], k=1, index_type=ek.int8)


def test_sparse_reduce_max_of_an_empty_group_is_zero():
    # tf.sparse.reduce_max docstring: [-7, 4, 0].
    y = ek.sparse.SparseTensor([[0, 0], [1, 0], [1, 1]], [-7, 4, 3], [3, 2])
    np.testing.assert_array_equal(ek.sparse.reduce_max(y, 1).numpy(), [-7, 4, 0])
    np.testing.assert_array_equal(tf1.sparse_reduce_max(y, 1).numpy(), [-7, 4, 0])
    # The oracle: floats too (not -inf), NaN kept; the sparse output lists stored groups only.
    f = ek.sparse.SparseTensor([[0, 0], [1, 2]], [-7.0, float("nan")], [3, 3])
    np.testing.assert_array_equal(ek.sparse.reduce_max(f, 1).numpy(), [-7.0, np.nan, 0.0])
    sp = ek.sparse.reduce_max(f, 1, keepdims=True, output_is_sparse=True)
    np.testing.assert_array_equal(sp.indices.numpy(), [[0, 0], [1, 0]])
    np.testing.assert_array_equal(sp.values.numpy(), [-7.0, np.nan])
    np.testing.assert_array_equal(sp.dense_shape.numpy(), [3, 1])
    empty = ek.sparse.SparseTensor(np.zeros((0, 2), np.int64), ek.zeros([0]), [3, 3])
    np.testing.assert_array_equal(ek.sparse.reduce_max(empty, 1).numpy(), [0.0, 0.0, 0.0])


def test_as_dtype_names_follow_tensorflow():
    # tf.as_dtype docstring: tf.as_dtype('float') is tf.float32; the rest per the oracle.
    names = {"float": "float32", "double": "float64", "half": "float16", "float16": "float16"}
    for name, want in names.items():
        assert ek.as_dtype(name).name == want
    for numpy_only in ("int", "long", "f4", "complex", "object", "single"):
        with pytest.raises(TypeError, match="to a TensorFlow DType"):
            ek.as_dtype(numpy_only)
    with pytest.raises(TypeError, match="'bfloat16' is not supported"):
        ek.as_dtype("bfloat16")


def test_max_pool_of_ints_and_explicit_padding():
    # tf.nn.max_pool docstring: int32 input, ksize=2, strides=2, SAME.
    x = ek.reshape(ek.constant([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), [1, 3, 3, 1])
    out = ek.nn.max_pool(x, ksize=2, strides=2, padding="SAME")
    np.testing.assert_array_equal(out.numpy()[0, :, :, 0], [[5, 6], [8, 9]])
    assert out.dtype == ek.int32
    # tf.nn.max_pool2d docstring: explicit width-1 padding on all sides.
    x = ek.constant([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]])
    x = x[ek.newaxis, :, :, ek.newaxis]
    r = ek.nn.max_pool2d(x, (2, 2), (2, 2), padding=[[0, 0], [1, 1], [1, 1], [0, 0]])
    np.testing.assert_array_equal(r[0, :, :, 0].numpy(), [[1.0, 3.0, 4.0], [9.0, 11.0, 12.0]])
    # The oracle: padded positions never win, also for negative inputs; 1-D too.
    r = ek.nn.max_pool2d(-x, 2, 2, [[0, 0], [1, 1], [1, 1], [0, 0]])
    np.testing.assert_array_equal(r[0, :, :, 0].numpy(), [[-1, -2, -4], [-5, -6, -8]])
    assert ek.nn.max_pool1d(-x[0], 2, 2, [[0, 0], [1, 1], [0, 0]]).shape == (3, 3, 1)
    with pytest.raises(TypeError, match="avg_pool2d: input must be a floating-point"):
        ek.nn.avg_pool2d(ek.zeros([1, 2, 2, 1], ek.int32), 2, 2, "SAME")


def test_depthwise_conv2d_with_explicit_padding():
    # tf.nn.depthwise_conv2d docstring.
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32).reshape((1, 3, 2, 1))
    kernel = np.array([[1.0, 2.0], [3.0, 4]], np.float32).reshape((2, 1, 1, 2))
    out = ek.nn.depthwise_conv2d(x, kernel, [1, 1, 1, 1], padding=[[0, 0], [1, 0], [1, 0], [0, 0]])
    want = [
        [[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]],
        [[0.0, 0.0], [10.0, 14.0], [14.0, 20.0]],
        [[0.0, 0.0], [18.0, 26.0], [22.0, 32.0]],
    ]
    np.testing.assert_array_equal(out.numpy()[0], want)


def test_bands_of_diagonals():
    # tf.linalg.banded_triangular_solve docstring: set_diag with a band.
    x = [[2.0, 3.0, 4.0], [1.0, 2.0, 3.0]]
    z = ek.linalg.set_diag(ek.zeros([3, 3]), x, align="LEFT_RIGHT", k=(-1, 0))
    np.testing.assert_array_equal(z.numpy(), [[2, 0, 0], [2, 3, 0], [0, 3, 4]])
    x = [[2.0, 3.0, 4.0, 5.0], [-1.0, -2.0, -3.0, -4.0]]
    z = ek.linalg.set_diag(ek.zeros([4, 4]), x, align="LEFT_RIGHT", k=(0, 1))
    want = [[-1, 2, 0, 0], [0, -2, 3, 0], [0, 0, -3, 4], [0, 0, 0, -4]]
    np.testing.assert_array_equal(z.numpy(), want)
    # The oracle: diag_part of a band k=(1, 3), RIGHT_LEFT (the default) and LEFT_RIGHT.
    m = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 8, 7, 6]], np.float32)
    np.testing.assert_array_equal(
        ek.linalg.diag_part(m, k=(1, 3)).numpy(), [[0, 0, 4], [0, 3, 8], [2, 7, 6]]
    )
    np.testing.assert_array_equal(
        ek.linalg.diag_part(m, k=(1, 3), align="LEFT_RIGHT").numpy(),
        [[4, 0, 0], [3, 8, 0], [2, 7, 6]],
    )
    # The oracle: diag of a band k=(-1, 1) (RIGHT_LEFT: padding slots ignored).
    d = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    np.testing.assert_array_equal(
        ek.linalg.diag(d, k=(-1, 1)).numpy(), [[4, 2, 0], [7, 5, 3], [0, 8, 6]]
    )
    # The oracle's gradients (diag_part with LEFT_RIGHT, padding 5).
    v = ek.Variable(np.arange(1, 13, dtype=np.float32).reshape(3, 4))
    with ek.GradientTape() as g:
        p = ek.linalg.diag_part(v, k=(-1, 1), align="LEFT_RIGHT", padding_value=5)
        s = ek.reduce_sum(p * np.arange(9, dtype=np.float32).reshape(3, 3))
    np.testing.assert_array_equal(
        g.gradient(s, v).numpy(), [[3, 0, 0, 0], [7, 4, 1, 0], [0, 8, 5, 2]]
    )
    with pytest.raises(IAE, match=r"k\[0\] must not exceed k\[1\]"):
        ek.linalg.diag_part(m, k=(1, 0))
    with pytest.raises(IAE, match="set_diag: diagonal must have shape"):
        ek.linalg.set_diag(m, np.zeros((2, 2), np.float32), k=(0, 1))


def test_sparse_expand_dims_defaults_to_the_last_axis():
    # tf.sparse.expand_dims docstring: shape [2, 3] -> [2, 3, 1].
    sp = ek.sparse.SparseTensor([[0, 0], [1, 2]], [1, 2], [2, 3])
    assert ek.sparse.expand_dims(sp).shape.as_list() == [2, 3, 1]


def test_assert_type_checks_composites_by_their_dtype():
    # tf.debugging.assert_type docstring.
    c = ek.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
    ek.debugging.assert_type(c, tf_type=ek.int32)
    with pytest.raises(TypeError, match=r"tensor must be of type ek\.float32; got ek\.int32"):
        ek.debugging.assert_type(c, ek.float32)
    ek.debugging.assert_type(ek.ragged.constant([[1], [2, 3]]), ek.int32)
    with pytest.raises(TypeError):
        ek.debugging.assert_type(ek.constant(21), tf_type=ek.bool)


def test_compat_v1_casts_initializers_and_string_split():
    # tf.compat.v1.to_complex64 / to_complex128 docstrings.
    assert tf1.to_complex64(ek.constant(1.0 + 2.0j, dtype=ek.complex128)).dtype == ek.complex64
    assert tf1.to_complex128(ek.constant(1.0 + 2.0j, dtype=ek.complex64)).dtype == ek.complex128
    with pytest.raises(NotImplementedError, match="no bfloat16"):
        tf1.to_bfloat16(ek.constant(3.14))
    # tf.compat.v1.zeros_initializer docstring.
    init = tf1.zeros_initializer(dtype=ek.float32)
    np.testing.assert_array_equal(ek.Variable(init(shape=[3])).numpy(), [0.0, 0.0, 0.0])
    assert init(shape=[3, 3]).dtype == ek.float32
    # The oracle: the init dtype is the default, the call's wins; config names it.
    assert tf1.zeros_initializer(dtype=ek.int32)([2]).dtype == ek.int32
    assert tf1.zeros_initializer(dtype=ek.int32)([2], dtype=ek.float32).dtype == ek.float32
    assert tf1.ones_initializer(ek.float64)([2]).dtype == ek.float64
    assert tf1.constant_initializer([1, 2])([2]).dtype == ek.float32
    assert tf1.constant_initializer(3, dtype=ek.int32)([2]).numpy().tolist() == [3, 3]
    assert tf1.zeros_initializer(dtype=ek.int32).get_config() == {"dtype": "int32"}
    # tf.compat.v1.string_split docstring.
    st = tf1.string_split(["hello world", "a b c"])
    np.testing.assert_array_equal(st.indices.numpy(), [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]])
    assert st.values.numpy().tolist() == [b"hello", b"world", b"a", b"b", b"c"]
    np.testing.assert_array_equal(st.dense_shape.numpy(), [2, 3])
    rt = tf1.string_split(["hello world", "a b c"], result_type="RaggedTensor")
    assert rt.to_list() == [[b"hello", b"world"], [b"a", b"b", b"c"]]
    # The oracle: each character of sep splits; empty sep gives bytes; skip_empty=False.
    rt = tf1.string_split(["a,;b", "x;y"], delimiter=",;", result_type="RaggedTensor")
    assert rt.to_list() == [[b"a", b"b"], [b"x", b"y"]]
    rt = tf1.string_split(["a,,b"], sep=",", skip_empty=False, result_type="RaggedTensor")
    assert rt.to_list() == [[b"a", b"", b"b"]]
    assert tf1.string_split(["ab"], sep="", result_type="RaggedTensor").to_list() == [[b"a", b"b"]]
    with pytest.raises(IAE, match="input must be a vector"):
        tf1.string_split("a b")


def test_equality_operators_of_shapes_that_do_not_broadcast_give_a_scalar():
    # TF 2.21: `==` and `!=` call Equal with incompatible_shape_error=False (a scalar bool);
    # tf.math.equal itself raises.
    a = ek.constant([1, 2, 3])
    eq, ne = a == ek.constant([1, 2]), a != [1, 2]
    assert eq.shape == () and eq.dtype == ek.bool and not bool(eq)
    assert ne.shape == () and bool(ne)
    grid = ek.constant([[1, 2, 3]]) == ek.constant([[1], [2]])  # shapes that broadcast
    np.testing.assert_array_equal(grid.numpy(), [[True, False, False], [False, True, False]])
    with pytest.raises(IAE, match="incompatible shapes"):
        ek.math.equal(a, [1, 2])
