"""TensorFlow 2.15's new type promotion (``experimental_enable_numpy_behavior(
dtype_conversion_mode="all"|"safe")``): every code cell of TensorFlow's guide "TF-NumPy Type
Promotion" with the dtype and value it documents, the promotion table against TensorFlow's
(``flexible_dtypes._BINARY_DTYPE_RES_HALF``, transcribed below) on real ops, commutativity and
associativity, "safe" mode's refusals, weak tensors through ops, gradients and the C fast
path, Variable assignments, and the default and legacy modes left as they were.

Every test that switches a mode puts NumPy behavior back as it found it (`mode`): the switch is
process-wide, and the suite runs in parallel workers in random order.
"""

from __future__ import annotations

import contextlib
import itertools

import eagerkernel.experimental.numpy as tnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerkernel as tf
from eagerkernel.runtime.core import dispatch, type_promotion
from eagerkernel.runtime.core.numpy_methods import STATE
from eagerkernel.runtime.core.type_promotion import is_weak, keep_weak, result_type_of


@contextlib.contextmanager
def mode(name: str):
    """NumPy behavior in ``name`` mode for the block, then back as it was."""
    saved = (STATE.enabled, STATE.prefer_float32, STATE.promotion)
    try:
        tnp.experimental_enable_numpy_behavior(dtype_conversion_mode=name)
        yield
    finally:
        STATE.enabled, STATE.prefer_float32, STATE.promotion = saved


@pytest.fixture
def all_mode():
    with mode("all"):
        yield


@pytest.fixture
def safe_mode():
    with mode("safe"):
        yield


def check(t, dtype, value, weak: bool):
    assert isinstance(t, tf.Tensor)
    assert t.dtype == dtype, (t.dtype, dtype)
    np.testing.assert_allclose(t.numpy(), value, rtol=1e-3)
    assert is_weak(t) is weak, repr(t)
    assert repr(t).endswith(", weak=True>") is weak


# -- the guide, cell by cell ------------------------------------------------------------------


def test_guide_all_mode_i32_plus_f32(all_mode):
    a = tf.constant(10, dtype=tf.int32)
    b = tf.constant(5.0, dtype=tf.float32)
    check(a + b, tf.float32, 15.0, weak=False)  # <tf.Tensor: dtype=float32, numpy=15.0>


def test_guide_safe_mode_refuses_i32_plus_f32(safe_mode):
    a = tf.constant(10, dtype=tf.int32)
    b = tf.constant(5.0, dtype=tf.float32)
    with pytest.raises(TypeError, match="explicitly specify the dtype or switch to ALL mode"):
        a + b


def test_guide_bit_widening_i8_plus_u32(all_mode):
    a = tf.constant(10, dtype=tf.int8)
    b = tf.constant(5, dtype=tf.uint32)
    check(a + b, tf.int64, 15, weak=False)


def test_guide_safe_mode_refuses_i8_plus_u32(safe_mode):
    a = tf.constant(10, dtype=tf.int8)
    b = tf.constant(5, dtype=tf.uint32)
    with pytest.raises(TypeError, match=r"\(int8, weak=False\) and \(uint32, weak=False\)"):
        a + b


def test_guide_i64_plus_f16_is_f16(all_mode):
    out = tf.constant(1, tf.int64) + tf.constant(3.2, tf.float16)
    check(out, tf.float16, 4.2, weak=False)
    assert repr(out) == "<Tensor: shape=(), dtype=float16, numpy=4.2>"


def test_guide_weak_constant_defers_to_f16(all_mode):
    out = tf.constant(1.2) + tf.constant(3.1, tf.float16)
    check(out, tf.float16, 4.3, weak=False)
    assert repr(out) == "<Tensor: shape=(), dtype=float16, numpy=4.3>"


def test_guide_weak_tensor_construction(all_mode):
    assert repr(tf.constant(5)) == "<Tensor: shape=(), dtype=int32, numpy=5, weak=True>"
    assert repr(tf.constant([5.0, 10.0, 3])) == (
        "<Tensor: shape=(3,), dtype=float32, numpy=array([ 5., 10.,  3.], dtype=float32), "
        "weak=True>"
    )
    assert repr(tf.constant(5, tf.int32)) == "<Tensor: shape=(), dtype=int32, numpy=5>"
    assert repr(tf.math.abs([100.0, 4.0])) == (
        "<Tensor: shape=(2,), dtype=float32, numpy=array([100.,   4.], dtype=float32), weak=True>"
    )
    assert str(tf.constant(5)) == "Tensor(5, shape=(), dtype=int32, weak=True)"


def test_guide_legacy_add_order(all_mode):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="legacy")
    a = np.array(1, dtype=np.int8)
    b = tf.constant(1)
    c = np.array(1, dtype=np.float16)
    assert not is_weak(b)
    # The guide's two orders, as TensorFlow 2.21 runs them. (a + b) + c: the first operand
    # (a, int8) sets the dtype and the tensor b (int32) cannot convert to it:
    # InvalidArgumentError (eagerkernel's is also a TypeError).
    with pytest.raises(tf.errors.InvalidArgumentError, match="AddV2: inputs must have the same"):
        tf.add(tf.add(a, b), c)
    # (b + a) + c: b's int32 decides, and the op converts the NumPy operands to it (the
    # float16 too), where the `+` operator would promote them: int32 3.
    check(tf.add(tf.add(b, a), c), tf.int32, 3, weak=False)
    check((b + a) + c, tf.float64, 3.0, weak=False)  # the operators promote (NumPy's types)


def test_guide_new_promotion_is_order_independent(all_mode):
    a = np.array(1, dtype=np.int8)
    b = tf.constant(1)
    c = np.array(1, dtype=np.float16)
    check(tf.add(tf.add(a, b), c), tf.float16, 3.0, weak=False)
    check(tf.add(tf.add(b, a), c), tf.float16, 3.0, weak=False)


def test_guide_bit_widening_old_and_new():
    with mode("legacy"):
        out = np.array(3.2, np.float16) + tf.constant(1, tf.int8) + tf.constant(50)
        assert repr(out) == "<Tensor: shape=(), dtype=float64, numpy=54.19921875>"
    with mode("all"):
        out = np.array(3.2, np.float16) + tf.constant(1, tf.int8) + tf.constant(50)
        assert repr(out) == "<Tensor: shape=(), dtype=float16, numpy=54.2>"


def test_guide_dunders(all_mode):
    assert repr(-tf.constant(5)) == "<Tensor: shape=(), dtype=int32, numpy=-5, weak=True>"
    out = tf.constant(5, tf.int16) - tf.constant(1, tf.float32)
    assert repr(out) == "<Tensor: shape=(), dtype=float32, numpy=4.0>"


def test_guide_variable_assign_add(all_mode):
    a = tf.Variable(10, tf.int32)
    a.assign_add(tf.constant(5, tf.int16))
    assert a.dtype == tf.int32 and a.numpy() == 15
    assert repr(a).endswith("dtype=int32, numpy=15>")


def test_guide_constant_converts_a_tensor(all_mode):
    a = tf.constant(10, tf.int16)
    check(tf.constant(a, tf.float32), tf.float32, 10.0, weak=False)


def test_guide_tnp_array_is_32_bit_weak(all_mode):
    assert repr(tnp.array(1)) == "<Tensor: shape=(), dtype=int32, numpy=1, weak=True>"
    # The guide's comment shows int32 for tnp.array(1.0) too, a copy of the cell above; its
    # text ("tnp.array defaults to i32* and f32*") and TensorFlow give a weak float32.
    assert repr(tnp.array(1.0)) == "<Tensor: shape=(), dtype=float32, numpy=1.0, weak=True>"
    check(tnp.asarray([1, 2]), tf.int32, [1, 2], weak=True)
    check(tnp.array(np.array([1, 2])), tf.int64, [1, 2], weak=False)
    check(tnp.array(1, dtype=np.int16), tf.int16, 1, weak=False)


def test_guide_modes_switch_back_and_forth():
    with mode("all"):
        assert is_weak(tf.constant(1))
        tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="legacy")
        assert not is_weak(tf.constant(1))
        assert (tf.constant(1) + tf.constant(1, tf.int64)).dtype == tf.int64  # NumPy's rule
        tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="safe")
        assert is_weak(tf.constant(1))
        with pytest.raises(TypeError):
            tf.constant(1, tf.int32) + tf.constant(1.0)
    assert STATE.promotion is None


# -- the promotion table --------------------------------------------------------------------------

# TensorFlow's table (flexible_dtypes._BINARY_DTYPE_RES_HALF): "a: b=result", "!" marking the
# pairs allowed in ALL mode only.
TF_TABLE = """
b: b=b u8=u8 u16=u16 u32=u32 u64=u64 i8=i8 i16=i16 i32=i32 i64=i64 bf16=bf16 f16=f16 f32=f32
   f64=f64 c64=c64 c128=c128 i32*=i32* i64*=i64* f32*=f32* f64*=f64* c128*=c128*
u8: u8=u8 u16=u16 u32=u32 u64=u64 i8=i16! i16=i16 i32=i32 i64=i64 bf16=bf16 f16=f16 f32=f32
   f64=f64 c64=c64 c128=c128 i32*=u8 i64*=u8 f32*=f64*! f64*=f64* c128*=c128*
u16: u16=u16 u32=u32 u64=u64 i8=i32! i16=i32! i32=i32 i64=i64 bf16=bf16! f16=f16! f32=f32
   f64=f64 c64=c64 c128=c128 i32*=u16 i64*=u16 f32*=f64*! f64*=f64* c128*=c128*
u32: u32=u32 u64=u64 i8=i64! i16=i64! i32=i64! i64=i64 bf16=bf16! f16=f16! f32=f32! f64=f64
   c64=c64! c128=c128 i32*=u32 i64*=u32 f32*=f64*! f64*=f64* c128*=c128*
u64: u64=u64 i8=f64*! i16=f64*! i32=f64*! i64=f64*! bf16=bf16! f16=f16! f32=f32! f64=f64!
   c64=c64! c128=c128! i32*=u64 i64*=u64 f32*=f64*! f64*=f64*! c128*=c128*!
i8: i8=i8 i16=i16 i32=i32 i64=i64 bf16=bf16 f16=f16 f32=f32 f64=f64 c64=c64 c128=c128 i32*=i8
   i64*=i8 f32*=f64*! f64*=f64* c128*=c128*
i16: i16=i16 i32=i32 i64=i64 bf16=bf16! f16=f16! f32=f32 f64=f64 c64=c64 c128=c128 i32*=i16
   i64*=i16 f32*=f64*! f64*=f64* c128*=c128*
i32: i32=i32 i64=i64 bf16=bf16! f16=f16! f32=f32! f64=f64 c64=c64! c128=c128 i32*=i32 i64*=i32
   f32*=f64*! f64*=f64* c128*=c128*
i64: i64=i64 bf16=bf16! f16=f16! f32=f32! f64=f64! c64=c64! c128=c128! i32*=i64 i64*=i64
   f32*=f64*! f64*=f64*! c128*=c128*!
bf16: bf16=bf16 f16=f32! f32=f32 f64=f64 c64=c64 c128=c128 i32*=bf16 i64*=bf16 f32*=bf16
   f64*=bf16 c128*=c64!
f16: f16=f16 f32=f32 f64=f64 c64=c64 c128=c128 i32*=f16 i64*=f16 f32*=f16 f64*=f16 c128*=c64!
f32: f32=f32 f64=f64 c64=c64 c128=c128 i32*=f32 i64*=f32 f32*=f32 f64*=f32 c128*=c64!
f64: f64=f64 c64=c128! c128=c128 i32*=f64 i64*=f64 f32*=f64 f64*=f64 c128*=c128
c64: c64=c64 c128=c128 i32*=c64 i64*=c64 f32*=c64 f64*=c64 c128*=c64
c128: c128=c128 i32*=c128 i64*=c128 f32*=c128 f64*=c128 c128*=c128
i32*: i32*=i32* i64*=i64* f32*=f32* f64*=f64* c128*=c128*
i64*: i64*=i64* f32*=f32* f64*=f64* c128*=c128*
f32*: f32*=f32* f64*=f64* c128*=c128*
f64*: f64*=f64* c128*=c128*
c128*: c128*=c128*
"""


def _tf_table() -> dict:
    table, row = {}, None
    for token in TF_TABLE.split():
        if token.endswith(":"):
            row = token[:-1]
            continue
        col, res = token.split("=")
        unsafe = res.endswith("!")
        table[row, col] = table[col, row] = (res.rstrip("!"), unsafe)
    return table


TABLE = _tf_table()
NODES = sorted({a for a, _ in TABLE})
DTYPES = {
    "b": tf.bool,
    "u8": tf.uint8,
    "u16": tf.uint16,
    "u32": tf.uint32,
    "u64": tf.uint64,
    "i8": tf.int8,
    "i16": tf.int16,
    "i32": tf.int32,
    "i64": tf.int64,
    "f16": tf.float16,
    "f32": tf.float32,
    "f64": tf.float64,
    "c64": tf.complex64,
    "c128": tf.complex128,
}
TENSOR_NODES = sorted(set(DTYPES) | {f"{n}*" for n in ("i32", "i64", "f32", "f64", "c128")})


def test_tf_table_covers_every_pair():
    assert len(NODES) == 20 and len(TABLE) == 400
    assert set(NODES) == set(type_promotion.LATTICE)


@pytest.mark.parametrize(("a", "b"), [(a, b) for a in NODES for b in NODES])
def test_lattice_join_is_tensorflows_table(a, b):
    res, unsafe = TABLE[a, b]
    assert result_type_of(a, b) == res
    assert type_promotion.is_unsafe(a, b) is unsafe


def operand(node: str):
    """A tensor of the lattice type ``node`` (``"f32*"``: a weak float32)."""
    weak = node.endswith("*")
    name = node.rstrip("*")
    value = True if name == "b" else 1
    t = tf.constant(value, DTYPES[name])
    return keep_weak(t, True) if weak else t


def node_of(t) -> str:
    name = {v: k for k, v in DTYPES.items()}[t.dtype]
    return name + ("*" if is_weak(t) else "")


@pytest.mark.parametrize(("a", "b"), list(itertools.combinations_with_replacement(TENSOR_NODES, 2)))
def test_ops_on_tensors_follow_the_table(all_mode, a, b):
    x, y = operand(a), operand(b)
    res, _ = TABLE[a, b]
    if res != "b":  # TensorFlow has no arithmetic kernel for two bools
        assert node_of(tf.add(x, y)) == res
        assert node_of(y * x) == res
        assert node_of(tf.math.subtract(x, y)) == res
    if res.rstrip("*") in ("c64", "c128"):  # TensorFlow has no kernel ordering complex numbers
        with pytest.raises(TypeError, match="Less: x must be a real number"):
            x < y  # noqa: B015
        with pytest.raises(TypeError, match="Maximum: x must be a real number"):
            tf.maximum(x, y)
        return
    less = x < y
    assert less.dtype == tf.bool and not is_weak(less)
    assert not is_weak(tf.maximum(x, y))  # TensorFlow's "comparison-method": never weak
    assert tf.maximum(x, y).dtype == DTYPES[res.rstrip("*")]


@pytest.mark.parametrize(("a", "b"), [(a, b) for a in TENSOR_NODES for b in TENSOR_NODES])
def test_safe_mode_refuses_tensorflows_unsafe_pairs(safe_mode, a, b):
    x, y = operand(a), operand(b)
    res, unsafe = TABLE[a, b]
    if unsafe:
        with pytest.raises(TypeError, match="in promotion mode SAFE"):
            x + y
        with pytest.raises(TypeError, match="in promotion mode SAFE"):
            tf.math.multiply(x, y)
    elif res == "b":  # two bools: no arithmetic kernel, but maximum
        assert node_of(tf.maximum(x, y)) == "b"
    else:
        assert node_of(x + y) == res


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(NODES), st.sampled_from(NODES))
def test_promotion_is_commutative(a, b):
    assert result_type_of(a, b) == result_type_of(b, a)


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(NODES), st.sampled_from(NODES), st.sampled_from(NODES))
def test_promotion_is_associative(a, b, c):
    assert result_type_of(result_type_of(a, b), c) == result_type_of(a, result_type_of(b, c))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(TENSOR_NODES), st.sampled_from(TENSOR_NODES), st.sampled_from(TENSOR_NODES))
def test_ops_are_associative_and_commutative_on_tensors(a, b, c):
    with mode("all"):
        x, y, z = operand(a), operand(b), operand(c)
        if "b" in (TABLE[a, b][0], TABLE[b, c][0]):
            return  # no arithmetic on two bools
        assert node_of((x + y) + z) == node_of(x + (y + z)) == node_of(z + (y + x))


PYTHON = [(3, "i32*"), (2.5, "f32*"), (1 + 2j, "c128*"), (True, "b")]


@pytest.mark.parametrize(("value", "node"), PYTHON)
@pytest.mark.parametrize("other", TENSOR_NODES)
def test_python_numbers_are_weak(all_mode, value, node, other):
    res, _ = TABLE[node, other]
    if res.rstrip("*") == "b" or (node == "b" and other.startswith("u")):
        return  # arithmetic on two bools: no such kernel
    x = operand(other)
    assert node_of(x + value) == res
    assert node_of(value + x) == res


def test_numpy_operands_keep_their_dtype(all_mode):
    x = tf.constant([1, 2], tf.int8)
    check(x + np.array([1, 2]), tf.int64, [2, 4], weak=False)  # NumPy's int64, not weak
    check(x + np.float16(1.5), tf.float16, [2.5, 3.5], weak=False)
    check(tf.constant(1.0) + np.float64(2.0), tf.float64, 3.0, weak=False)
    check(tf.add(tf.constant(1), [1.5, 2.5]), tf.float32, [2.5, 3.5], weak=True)


# -- weak tensors through ops ---------------------------------------------------------------------

UNARY = [
    tf.math.abs,
    tf.math.negative,
    tf.math.exp,
    tf.math.log1p,
    tf.math.sqrt,
    tf.math.square,
    tf.math.sin,
    tf.math.tanh,
    tf.math.sigmoid,
    tf.math.floor,
    tf.math.ceil,
    tf.math.round,
    tf.math.sign,
    tf.math.rsqrt,
    tf.math.erf,
    tf.nn.relu,
    tf.nn.elu,
    tf.nn.softplus,
]


@pytest.mark.parametrize("fn", UNARY, ids=lambda f: f.__name__)
def test_unary_ops_keep_weakness(all_mode, fn):
    weak = tf.constant([0.5, 2.0])
    assert is_weak(weak) and is_weak(fn(weak)) and fn(weak).dtype == tf.float32
    assert is_weak(fn([0.5, 2.0]))  # a Python list is weak
    assert not is_weak(fn(tf.constant([0.5, 2.0], tf.float32)))
    assert not is_weak(fn(np.array([0.5, 2.0], np.float32)))
    with tf.GradientTape():  # the recorded path too
        assert is_weak(fn(weak))


SHAPE_AND_REDUCTION = [
    lambda t: tf.reduce_sum(t),
    lambda t: tf.reduce_mean(t, axis=0),
    lambda t: tf.reduce_max(t, keepdims=True),
    lambda t: tf.math.reduce_min(t),
    lambda t: tf.reduce_prod(t),
    lambda t: tf.reshape(t, [2, 1]),
    lambda t: tf.transpose(t),
    lambda t: tf.expand_dims(t, 0),
    lambda t: tf.squeeze(tf.expand_dims(t, 0)),
    lambda t: tf.identity(t),
    lambda t: tf.zeros_like(t),
    lambda t: tf.ones_like(t),
    lambda t: tf.clip_by_value(t, 0.0, 1.0),
    lambda t: tf.nn.leaky_relu(t),
    lambda t: tf.nn.gelu(t),
    lambda t: tf.nn.log_softmax(t),
]


@pytest.mark.parametrize("fn", SHAPE_AND_REDUCTION)
def test_shape_and_reduction_apis_keep_weakness(all_mode, fn):
    weak = tf.constant([0.5, 2.0])
    out = fn(weak)
    assert is_weak(out) and out.dtype == tf.float32
    assert is_weak(fn([0.5, 2.0]))
    strong = fn(tf.constant([0.5, 2.0], tf.float32))
    assert not is_weak(strong)
    np.testing.assert_allclose(out.numpy(), strong.numpy())
    assert not is_weak(tf.zeros_like(weak, dtype=tf.float32))  # a dtype given: never weak


def test_no_nan_ops_promote_and_keep_weakness(all_mode):
    i8, f16, w = tf.constant([4, 6], tf.int8), tf.constant([2.0, 0.0], tf.float16), tf.constant(2.0)
    check(tf.math.divide_no_nan(i8, f16), tf.float16, [2.0, 0.0], weak=False)
    check(tf.math.multiply_no_nan(i8, f16), tf.float16, [8.0, 0.0], weak=False)
    check(tf.math.divide_no_nan(w, 4.0), tf.float32, 0.5, weak=True)
    check(tf.math.multiply_no_nan(w, 4.0), tf.float32, 8.0, weak=True)
    check(tf.math.xdivy(w, tf.constant(4.0, tf.float16)), tf.float16, 0.5, weak=False)


def test_weak_and_strong_in_binary_ops(all_mode):
    w, s = tf.constant(2.0), tf.constant(3.0, tf.float32)
    check(w + w, tf.float32, 4.0, weak=True)
    check(w * s, tf.float32, 6.0, weak=False)
    check(s - w, tf.float32, 1.0, weak=False)
    check(w + 1, tf.float32, 3.0, weak=True)
    check(tf.constant(1) / tf.constant(2), tf.float64, 0.5, weak=True)  # i32* / i32*: f64*
    check(tf.constant([7]) // 2, tf.int32, [3], weak=True)
    check(tf.constant([7]) % 2, tf.int32, [1], weak=True)
    check(tf.math.pow(tf.constant(2), 3), tf.int32, 8, weak=True)
    check(tf.constant(2.0) ** tf.constant(2, tf.float16), tf.float16, 4.0, weak=False)
    check(tf.math.floordiv(tf.constant(7, tf.int16), 2.0), tf.float64, 3.0, weak=True)
    check(tf.math.floormod(tf.constant(7, tf.int64), tf.constant(2)), tf.int64, 1, weak=False)
    check(tf.math.divide(tf.constant(1, tf.int8), tf.constant(2, tf.int16)), tf.float32, 0.5, False)
    check(tf.matmul([[1.0, 2.0]], [[3.0], [4.0]]), tf.float32, [[11.0]], weak=True)
    check(tf.constant([[1.0]]) @ tf.constant([[2.0]], tf.float64), tf.float64, [[2.0]], False)
    eq = tf.constant(1) == 1
    assert eq.dtype == tf.bool and not is_weak(eq) and bool(eq)


def test_weak_plus_weak_through_the_c_fast_path(all_mode):
    x, y = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    assert is_weak(tf.add(x, y)) and is_weak(tf.multiply(x, y)) and is_weak(x - y)
    python_op = getattr(tf.add, "__wrapped__", tf.add)
    assert is_weak(python_op(x, y))
    assert not is_weak(tf.add(x, tf.constant([3.0, 4.0], tf.float32)))


def test_native_binary_op_is_still_the_c_twin():
    if dispatch._native_binary is None:
        pytest.skip("_dispatch.c not built")
    assert type(tf.add).__name__ == "BinaryOp"


def test_gradients_through_weak_and_promoted_operands(all_mode):
    x = tf.constant(3.0)  # weak float32
    h = tf.constant(2.0, tf.float16)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x + 1  # weak
        z = x * h  # x cast to float16
    assert is_weak(y) and z.dtype == tf.float16 and not is_weak(z)
    assert tape.gradient(y, x).numpy() == 6.0
    gz = tape.gradient(z, x)
    assert gz.dtype == tf.float32 and gz.numpy() == 2.0
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(v * tf.constant([1.0, 2.0]) + 0.5)
    assert tape.gradient(loss, v).numpy() == 3.0


def test_weak_tensors_are_tensors_everywhere(all_mode):
    t = tf.constant([1.0, 2.0, 3.0])
    assert is_weak(t) and isinstance(t, tf.Tensor) and type(t) is tf.Tensor
    assert t.numpy().tolist() == [1.0, 2.0, 3.0] and float(t[0]) == 1.0
    assert [float(e) for e in tf.data.Dataset.from_tensor_slices(t)] == [1.0, 2.0, 3.0]
    assert tf.convert_to_tensor(t) is t
    assert tf.reduce_sum(t).numpy() == 6.0 and np.asarray(t).sum() == 6.0
    assert f"{tf.constant(1.5):.2f}" == "1.50"


# -- Variables and constants ----------------------------------------------------------------------


def test_variable_assignments_convert_to_the_variable_dtype(all_mode):
    v = tf.Variable([1.0, 2.0])
    v.assign(tf.constant([3, 4], tf.int16))
    v.assign_add([1, 1])
    v.assign_sub(tf.constant([0.5, 0.5], tf.float16))
    assert v.dtype == tf.float32 and v.numpy().tolist() == [3.5, 4.5]
    i = tf.Variable(1, dtype=tf.int64)
    i.assign_add(tf.constant(2, tf.int8))
    assert i.dtype == tf.int64 and i.numpy() == 3
    with pytest.raises(TypeError, match="Variable dtype is immutable"):
        i.assign_add(1.5)  # i64 + f32* promotes to f64*
    with pytest.raises(TypeError, match="Variable dtype is immutable"):
        tf.Variable(1, dtype=tf.int8).assign(tf.constant(3, tf.int16))
    assert i.numpy() == 3


def test_variable_assignments_in_safe_mode(safe_mode):
    v = tf.Variable(1.0)
    v.assign_add(tf.constant(1, tf.int8))  # i8 + f32: safe
    assert v.numpy() == 2.0
    with pytest.raises(TypeError, match="in promotion mode SAFE"):
        v.assign_add(tf.constant(1, tf.int32))  # i32 + f32 may lose precision
    assert v.numpy() == 2.0


def test_constant_conversions(all_mode):
    check(tf.constant(tf.constant(1, tf.int16), tf.int32), tf.int32, 1, weak=False)
    check(tf.constant(tf.constant(2.0)), tf.float32, 2.0, weak=True)  # weak stays weak
    check(tf.constant(np.array([1, 2])), tf.int64, [1, 2], weak=False)
    check(tf.constant(1, tf.float16), tf.float16, 1.0, weak=False)
    check(tf.constant([True, False]), tf.bool, [True, False], weak=False)
    with pytest.raises(TypeError, match="does not convert implicitly to int32"):
        tf.constant(tf.constant(1.5, tf.float32), tf.int32)
    with pytest.raises(TypeError):
        tf.constant(1.5, tf.int32)


# -- errors ---------------------------------------------------------------------------------------


def test_errors_name_the_op_and_what_they_received(all_mode):
    with pytest.raises(OverflowError, match="AddV2: Python int 4294967296 is too large"):
        tf.constant(1, tf.int64) + 2**32
    with pytest.raises(OverflowError, match="constant: Python int"):
        tf.constant(2**40)
    with pytest.raises(TypeError, match="AddV2: implicit conversion between a string"):
        tf.constant(["a"]) + 1
    with pytest.raises(TypeError, match="Attempt to convert a value"):
        tf.constant(1) + object()
    with pytest.raises(tf.errors.InvalidArgumentError, match="incompatible shapes"):
        tf.constant([1.0, 2.0]) + tf.constant([1, 2, 3])
    joined = tf.constant(["a"]) + "b"
    assert joined.dtype == tf.string and joined.numpy().tolist() == [b"ab"] and not is_weak(joined)


def test_unknown_mode_is_a_value_error():
    with pytest.raises(ValueError, match="dtype_conversion_mode must be 'legacy', 'all' or"):
        tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="jax")
    assert STATE.promotion is None


# -- the default mode is unchanged ----------------------------------------------------------------


def test_default_mode_creates_no_weak_tensor_and_does_not_promote():
    assert STATE.promotion is None
    t = tf.constant(5)
    assert not is_weak(t) and repr(t) == "<Tensor: shape=(), dtype=int32, numpy=5>"
    assert "weak" not in repr(-t) + repr(t + 1) + repr(tf.math.abs([1.0])) + repr(tnp.array(1))
    with pytest.raises(TypeError, match="AddV2: inputs must have the same dtype"):
        tf.constant(1, tf.int8) + tf.constant(1)
    with pytest.raises(TypeError):
        tf.constant([1, 2]) + 1.5
    with pytest.raises(TypeError):
        tf.matmul(tf.constant([[1.0]]), tf.constant([[1.0]], tf.float64))
    assert tnp.asarray(1).dtype == tf.int64 and tnp.asarray(1.0).dtype == tf.float64


def test_weak_tensors_left_over_from_a_new_mode_act_as_plain_ones():
    with mode("all"):
        w = tf.constant(1.0)
    assert is_weak(w) and not is_weak(w + w) and not is_weak(-w)
    with pytest.raises(TypeError):
        w + tf.constant(1.0, tf.float16)
