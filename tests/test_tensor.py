"""Tensors: dtype rules, reprs, Python protocol, NumPy interop, errors."""

import contextlib

import numpy as np
import pytest

import eagerkernel as ek


@pytest.mark.parametrize(
    ("value", "dtype"),
    [
        (1.0, ek.float32),
        (1, ek.int32),
        (True, ek.bool),
        ([1.0, 2], ek.float32),
        ([[1, 2], [3, 4]], ek.int32),
        (2**40, ek.int64),
        (np.float64(1.0), ek.float64),
        (np.arange(3), ek.int64),
        (np.ones(2, np.float16), ek.float16),
        (np.uint8(3), ek.uint8),
    ],
)
def test_dtype_inference_follows_tensorflow(value, dtype):
    assert ek.constant(value).dtype == dtype


@pytest.mark.parametrize(
    ("dtype", "result"),
    [
        (np.int8, ek.float32),
        (np.int16, ek.float32),
        (np.uint8, ek.float32),
        (np.int32, ek.float64),
        (np.int64, ek.float64),
        (np.float16, ek.float16),
        (np.float32, ek.float32),
        (np.float64, ek.float64),
    ],
)
def test_truediv_dtype_table(dtype, result):
    a = ek.constant(np.array([3], dtype))
    b = ek.constant(np.array([2], dtype))
    q = a / b
    assert q.dtype == result
    assert float(q[0]) == 1.5


def test_python_numbers_take_tensor_dtype():
    x = ek.constant([1.0, 2.0])
    assert (x * 2).dtype == ek.float32
    assert (2 * x).dtype == ek.float32
    assert (x + np.float64(1.0)).dtype == ek.float32  # np.float64 is a Python float
    i = ek.constant([1, 2])
    assert (i * 3).dtype == ek.int32


def test_float_into_int_tensor_is_rejected():
    i = ek.constant([1, 2])
    with pytest.raises(TypeError, match=r"Mul: cannot convert 2\.5 to a Tensor of dtype int32"):
        i * 2.5


def test_mixed_dtypes_are_rejected_with_both_named():
    with pytest.raises(TypeError, match=r"AddV2: .*x: float32, y: int32"):
        ek.add(ek.constant(1.0), ek.constant(1))


def test_numpy_operands_take_the_tensor_dtype_as_in_tensorflow():
    # TensorFlow converts an ndarray operand with the tensor's dtype (make_tensor_proto casts
    # it): the values below are TensorFlow 2.21's for the same expressions.
    cases = [
        (lambda: ek.constant([1.0]) + np.array([2.5]), "float32", [3.5]),
        (lambda: np.array([2.5]) + ek.constant([1.0]), "float32", [3.5]),
        (lambda: ek.constant(1) + np.array(1.5), "int32", 2),
        (lambda: ek.constant([7]) // np.array([2.5]), "int32", [3]),
        (lambda: ek.constant([7]) / np.array([2.0]), "float64", [3.5]),
        (lambda: ek.constant([2]) ** np.array([0.5]), "int32", [1]),
        (lambda: ek.constant([1], ek.uint8) + np.array([-1]), "uint8", [0]),
        (lambda: ek.constant([1.5]) + np.array([1 + 2j]), "float32", [2.5]),
        (lambda: np.array([[2.0]]) @ ek.constant([[1.5]]), "float32", [[3.0]]),
        (lambda: ek.matmul(ek.ones([1, 1]), np.ones([1, 1])), "float32", [[1.0]]),
        (lambda: ek.concat([ek.constant([1.5]), np.array([2.0])], 0), "float32", [1.5, 2.0]),
    ]
    for make, dtype, value in cases:
        out = make()
        assert out.dtype.name == dtype
        np.testing.assert_array_equal(out.numpy(), value)
    with pytest.raises(TypeError, match=r"AddV2: .*x: float32, y: string"):
        ek.constant([1.5]) + np.array(["a"])  # not numeric: no cast, the dtypes differ


def test_str_and_repr():
    assert str(ek.constant([[4.0]])) == "Tensor([[4.]], shape=(1, 1), dtype=float32)"
    assert repr(ek.constant(6.0)) == "<Tensor: shape=(), dtype=float32, numpy=6.0>"
    # TensorFlow's form: NumPy's repr, on lines of its own when it takes several.
    assert (
        repr(ek.constant([1, 2]))
        == "<Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>"
    )
    assert repr(ek.constant([[1.0], [2.0]])) == (
        "<Tensor: shape=(2, 1), dtype=float32, numpy=\narray([[1.],\n       [2.]], dtype=float32)>"
    )
    assert repr(ek.Variable([1.0, 2.0], name="v")) == (
        "<Variable 'v:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    )
    assert str(ek.constant(3)) == "Tensor(3, shape=(), dtype=int32)"


def test_format_with_numeric_spec():
    loss = ek.constant(0.123456)
    assert f"{loss:.3f}" == "0.123"
    assert f"{ek.constant(2.0):.2f}" == "2.00"
    assert f"{ek.constant([1.0, 2.5]):.1f}" == "[1.0 2.5]"


def test_operators_both_directions():
    a = ek.constant([1.0, 2.0])
    np.testing.assert_allclose((3 * a + 1).numpy(), [4.0, 7.0])
    np.testing.assert_allclose((1 - a).numpy(), [0.0, -1.0])
    np.testing.assert_allclose((2 / a).numpy(), [2.0, 1.0])
    np.testing.assert_allclose((a**2).numpy(), [1.0, 4.0])
    np.testing.assert_allclose((2**a).numpy(), [2.0, 4.0])
    np.testing.assert_allclose((-a).numpy(), [-1.0, -2.0])
    np.testing.assert_allclose(abs(-a).numpy(), [1.0, 2.0])
    np.testing.assert_allclose((a // 1.5).numpy(), [0.0, 1.0])
    np.testing.assert_allclose((ek.constant([-3, 3]) % 2).numpy(), [1, 1])
    assert (a < 2).numpy().tolist() == [True, False]
    assert (a == 2.0).numpy().tolist() == [False, True]
    assert (a != 2.0).numpy().tolist() == [True, False]
    np.testing.assert_allclose((np.array([1.0, 1.0], np.float32) + a).numpy(), [2.0, 3.0])
    assert isinstance(np.array([1.0, 1.0], np.float32) * a, ek.Tensor)


def test_accumulate_with_python_number():
    total = 0
    for v in [ek.constant(1.5), ek.constant(2.5)]:
        total += v
    assert isinstance(total, ek.Tensor)
    assert float(total) == 4.0


def test_matmul_operator_and_shape_error_names_both_shapes():
    a = ek.ones((2, 3))
    assert (a @ ek.ones((3, 4))).shape == (2, 4)
    with pytest.raises(ValueError, match=r"matmul: .*\(2, 3\).*\(2, 3\)"):
        a @ a


@pytest.mark.parametrize("where", ["no tape", "tape", "two tapes", "device scope"])
def test_broadcast_error_names_op_and_shapes(where):
    # The same message on the fast path and on tape.execute's (recording, placement).
    x = ek.ones(2)
    with contextlib.ExitStack() as stack:
        if where != "no tape" and where != "device scope":
            stack.enter_context(ek.GradientTape()).watch(x)
        if where == "two tapes":
            stack.enter_context(ek.GradientTape()).watch(x)
        if where == "device scope":
            stack.enter_context(ek.device("/cpu:0"))
        with pytest.raises(ValueError, match=r"AddV2: incompatible shapes x: \(2,\), y: \(3,\)"):
            x + ek.ones(3)


def test_scalar_conversions():
    assert bool(ek.constant(True)) is True
    assert float(ek.constant([2.5])) == 2.5
    assert int(ek.constant(7)) == 7
    assert [10, 20, 30][ek.constant(1)] == 20
    with pytest.raises(TypeError, match="one-element"):
        bool(ek.constant([1.0, 2.0]))
    with pytest.raises(TypeError, match="only integer"):
        [1, 2][ek.constant(1.0)]


def test_len_and_iteration():
    t = ek.constant([[1, 2], [3, 4], [5, 6]])
    assert len(t) == 3
    rows = list(t)
    assert [r.numpy().tolist() for r in rows] == [[1, 2], [3, 4], [5, 6]]
    with pytest.raises(TypeError, match="scalar"):
        len(ek.constant(1.0))
    with pytest.raises(TypeError, match="scalar"):
        iter(ek.constant(1.0))


def test_iteration_is_differentiable():
    x = ek.constant([1.0, 2.0, 3.0])
    with ek.GradientTape() as t:
        t.watch(x)
        y = sum(v * v for v in x)
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [2.0, 4.0, 6.0])


def test_numpy_interop():
    t = ek.constant([[1.0, 2.0], [3.0, 4.0]])
    assert np.sum(t) == 10.0
    np.testing.assert_allclose(np.exp(t), np.exp(t.numpy()))
    assert np.asarray(t).dtype == np.float32
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert isinstance(t.numpy(), np.ndarray)


def test_constant_copies_numpy_input():
    a = np.ones(3)
    t = ek.constant(a)
    a[0] = 5.0
    assert t.numpy()[0] == 1.0


def test_constant_shape_and_dtype():
    assert ek.constant(0, shape=(2, 2)).numpy().tolist() == [[0, 0], [0, 0]]
    assert ek.constant([1, 2, 3, 4], shape=(2, 2)).shape == (2, 2)
    assert ek.constant(1, dtype=ek.float64).dtype == ek.float64
    with pytest.raises(ValueError, match="cannot take shape"):
        ek.constant([1, 2, 3], shape=(2, 2))
    with pytest.raises(TypeError, match="fractional"):
        ek.constant(2.5, dtype=ek.int32)


def test_shape_object():
    s = ek.ones((2, 3)).shape
    assert s.as_list() == [2, 3]
    assert s == (2, 3)
    assert s.rank == 2
    assert s.num_elements() == 6


def test_unhashable_with_ref():
    t = ek.constant(1.0)
    with pytest.raises(TypeError):
        hash(t)
    d = {t.ref(): 1}
    assert d[t.ref()] == 1
    assert t.ref().deref() is t


def test_strings_are_string_tensors():
    # TensorFlow 2: a Python str is a `tf.string` scalar holding UTF-8 bytes.
    t = ek.constant("hello")
    assert t.dtype == ek.string and t.numpy() == b"hello"


def test_convert_to_tensor():
    assert ek.convert_to_tensor(1.0).dtype == ek.float32
    assert ek.convert_to_tensor(1, dtype_hint=ek.float32).dtype == ek.float32
    assert ek.convert_to_tensor(1.5, dtype_hint=ek.int32).dtype == ek.float32
    with pytest.raises(TypeError, match="requested int32"):
        ek.convert_to_tensor(ek.constant(1.0), dtype=ek.int32)
    v = ek.Variable(2.0)
    t = ek.convert_to_tensor(v)
    assert type(t) is ek.Tensor
    v.assign(3.0)
    assert float(t) == 2.0


def test_dtypes_api():
    assert ek.as_dtype("float32") == ek.float32
    assert ek.as_dtype(np.int64) == ek.int64
    assert ek.as_dtype(float) == ek.float32
    assert ek.float32.is_floating and not ek.int32.is_floating
    assert ek.float32.as_numpy_dtype is np.float32
    assert repr(ek.float32) == "ek.float32"
    with pytest.raises(TypeError):
        ek.as_dtype("nope")


def test_executing_eagerly_and_enable():
    ek.enable_eager_execution()
    assert ek.executing_eagerly() is True


def test_contrib_eager_is_the_same_namespace_with_tf1_in_place_operators():
    import eagerkernel.contrib.eager as imported

    tfe = ek.contrib.eager
    assert imported is tfe and tfe.gradients_function is ek.gradients_function
    # TF 1.x eager's Variable (the l-BFGS article's `x += t * d`): a new Tensor is bound to x
    x = tfe.Variable([1.0, 2.0])
    original = x
    x += ek.constant([0.5, 0.5])
    assert isinstance(original, ek.Variable) and type(x) is ek.Tensor
    np.testing.assert_array_equal(x.numpy(), [1.5, 2.5])
    np.testing.assert_array_equal(original.numpy(), [1.0, 2.0])
    v = ek.Variable(1.0)  # TensorFlow 2's raises, and keeps its value
    with pytest.raises(RuntimeError, match="assign_add"):
        v += 1.0
    assert float(v) == 1.0


def test_float_only_ops_reject_ints():
    with pytest.raises(TypeError, match="Exp: x must be a floating-point tensor, got int32"):
        ek.exp(ek.constant([1, 2]))


def test_as_dtype_takes_tensorflow_datatype_enum_numbers():
    # types.proto's numbers, as `tf.as_dtype(1)` and `tf.zeros(1, 1)` (dtype=1) read them.
    expected = {1: "float32", 2: "float64", 3: "int32", 4: "uint8", 5: "int16", 6: "int8"}
    expected.update({7: "string", 8: "complex64", 9: "int64", 10: "bool", 17: "uint16"})
    expected.update({18: "complex128", 19: "float16", 22: "uint32", 23: "uint64"})
    for number, name in expected.items():
        dt = ek.as_dtype(number)
        assert dt.name == name
        assert dt.as_datatype_enum == number
    assert ek.zeros(1, 1).dtype == ek.float32
    assert ek.as_dtype(np.int64(9)) == ek.int64
    with pytest.raises(TypeError, match="14 is not the DataType enum number"):
        ek.as_dtype(14)  # bfloat16: no such dtype here
    with pytest.raises(TypeError, match="cannot convert True"):
        ek.as_dtype(True)


def test_set_shape_checks_compatibility_as_eager_tensorflow():
    t = ek.constant([[1.0, 2.0, 3.0]])
    assert t.set_shape([None, 3]) is None and t.set_shape((1, 3)) is None
    assert t.get_shape() == (1, 3)
    with pytest.raises(ValueError, match=r"shape \(1, 3\) is not compatible with .*\(2, 3\)"):
        t.set_shape([2, 3])
    with pytest.raises(ValueError, match="not compatible"):
        t.set_shape([3])  # another rank
    ds = ek.data.Dataset.from_tensor_slices(np.ones((2, 4), np.float32))

    def tf_map(x):  # TF's pattern: a numpy_function's output shape set afterwards
        y = ek.numpy_function(lambda a: a * 2, [x], ek.float32)
        y.set_shape([4])
        return y

    assert [list(e.numpy()) for e in ds.map(tf_map)] == [[2.0] * 4, [2.0] * 4]
