"""`ek.keras.ops`: values against NumPy and closed forms, Keras 3's dtype rules, gradients
against finite differences, symbolic calls in functional models (saved and loaded), errors."""

import math
import re

import numpy as np
import pytest
from eagerkernel.keras import ops

import eagerkernel as ek

keras = ek.keras


def rand(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).normal(size=shape).astype(dtype)


def close(t, expected, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(t), expected, rtol=rtol, atol=atol)


def test_import_paths():
    import eagerkernel.keras.ops as by_import

    assert by_import is ops is ek.keras.ops
    assert "ops" in ek.keras.__all__
    assert ops.relu.__doc__ and "keras.ops.relu" in ops.relu.__doc__


# -- tier 1 values against NumPy ----------------------------------------------------------------

BINARY = [
    ("add", np.add),
    ("subtract", np.subtract),
    ("multiply", np.multiply),
    ("maximum", np.maximum),
    ("minimum", np.minimum),
    ("equal", np.equal),
    ("not_equal", np.not_equal),
    ("greater", np.greater),
    ("less", np.less),
]


@pytest.mark.parametrize("name,ref", BINARY)
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((2, 1, 4), (3, 1))])
def test_binary_broadcast_against_numpy(name, ref, shapes):
    a, b = rand(*shapes[0]), rand(*shapes[1], seed=1)
    out = getattr(ops, name)(a, b)
    close(out, ref(a, b))
    assert out.shape == np.broadcast_shapes(*shapes)


def test_divide_and_dtype_rules():
    i = ek.constant([1, 2, 3])
    assert ops.divide(i, 2).dtype == ek.float32  # true division of ints: floatx
    close(ops.divide(i, 2), [0.5, 1.0, 1.5])
    assert ops.add(i, 1).dtype == ek.int32  # a Python int is weak
    assert ops.add(i, 1.5).dtype == ek.float32
    assert ops.add(ek.constant([1.0], ek.float16), 2.0).dtype == ek.float16
    assert ops.add(i, ek.constant([1.0], ek.float16)).dtype == ek.float16
    assert ops.multiply(ek.constant([1], ek.int64), ek.constant([2.0])).dtype == ek.float32
    assert ops.add(ek.constant([1.0]), np.ones(1)).dtype == ek.float64
    assert ops.add(1, 2).dtype == ek.int32 and ops.add(1.0, 2).dtype == ek.float32
    close(ops.add(ek.constant([True, False]), ek.constant([False, False])), [True, False])


@pytest.mark.parametrize(
    "name,ref",
    [("square", np.square), ("sqrt", np.sqrt), ("exp", np.exp), ("log", np.log),
     ("abs", np.abs), ("absolute", np.abs)],
)  # fmt: skip
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_against_numpy(name, ref, dtype):
    x = np.abs(rand(2, 3, dtype=dtype)) + 0.1
    if name.startswith("abs"):
        x = -x
    out = getattr(ops, name)(x)
    close(out, ref(x))
    assert out.dtype == ek.as_dtype(dtype)


def test_unary_integer_inputs_give_floatx():
    for fn in (ops.sqrt, ops.exp, ops.log, ops.mean):
        assert fn(ek.constant([1, 4])).dtype == ek.float32
    assert ops.square(ek.constant([True, False])).dtype == ek.int32
    assert ops.abs(ek.constant([-2, 3])).dtype == ek.int32


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_against_numpy(axis, keepdims):
    x = rand(2, 3, 4)
    for name, ref in [("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min)]:
        close(
            getattr(ops, name)(x, axis=axis, keepdims=keepdims),
            ref(x, axis=axis, keepdims=keepdims),
        )
    b = x > 0
    for name, ref in [("any", np.any), ("all", np.all)]:
        close(
            getattr(ops, name)(b, axis=axis, keepdims=keepdims),
            ref(b, axis=axis, keepdims=keepdims),
        )


def test_reduction_dtypes_and_initial():
    assert ops.sum(ek.constant([True, True, False])).dtype == ek.int32
    assert int(ops.sum(ek.constant([True, True, False]))) == 2
    assert ops.sum(ek.constant([1, 2], ek.int8)).dtype == ek.int32
    assert ops.max(ek.constant([1, 5])).dtype == ek.int32
    close(ops.max(np.array([1.0, 2.0], np.float32), initial=3.0), 3.0)
    close(ops.min(np.array([1.0, 2.0], np.float32), initial=0.0), 0.0)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_argmax_argmin(axis, keepdims):
    x = rand(3, 5)
    for name, ref in [("argmax", np.argmax), ("argmin", np.argmin)]:
        out = getattr(ops, name)(x, axis=axis, keepdims=keepdims)
        assert out.dtype == ek.int32
        np.testing.assert_array_equal(out, ref(x, axis=axis, keepdims=keepdims))


def test_matmul_and_dot_numpy_rules():
    a, b = rand(2, 3, 4), rand(4, 5, seed=1)
    close(ops.matmul(a, b), a @ b, rtol=1e-5)
    v = rand(4, seed=2)
    close(ops.matmul(a, v), a @ v)
    close(ops.matmul(v, b), v @ b)
    close(ops.matmul(v, v), v @ v)
    close(ops.dot(a, b), np.dot(a, b))
    c = rand(6, 4, 2, seed=3)
    close(ops.dot(a, c), np.dot(a, c), rtol=1e-5)
    close(ops.dot(2.0, v), 2 * v)


def test_creation():
    z = ops.zeros((2, 3))
    assert z.dtype == ek.float32 and z.shape == (2, 3) and not np.any(z)
    assert ops.ones((2,), dtype="int32").dtype == ek.int32
    x = ek.constant([[1, 2]])
    assert (
        ops.zeros_like(x).dtype == ek.int32
        and ops.ones_like(x, dtype="float16").dtype == ek.float16
    )
    np.testing.assert_array_equal(ops.ones_like(x), [[1, 1]])
    np.testing.assert_array_equal(ops.arange(5), np.arange(5))
    assert ops.arange(5).dtype == ek.int32
    close(ops.arange(0, 1, 0.25), [0, 0.25, 0.5, 0.75])
    assert ops.arange(0, 1, 0.25).dtype == ek.float32
    assert ops.arange(3, dtype="float64").dtype == ek.float64


def test_join_and_reshape():
    a, b = rand(2, 3), rand(2, 1, seed=1)
    close(ops.concatenate([a, b], axis=1), np.concatenate([a, b], axis=1))
    close(ops.concatenate([a, b], axis=-1), np.concatenate([a, b], axis=-1))
    close(ops.stack([a, a], axis=1), np.stack([a, a], axis=1))
    close(ops.stack([a, a], axis=-1), np.stack([a, a], axis=-1))
    close(ops.reshape(a, (3, -1)), a.reshape(3, -1))
    assert ops.expand_dims(a, (0, -1)).shape == (1, 2, 3, 1)
    assert ops.expand_dims(a, 1).shape == (2, 1, 3)
    assert ops.squeeze(b).shape == (2,) and ops.squeeze(b, axis=-1).shape == (2,)
    c = rand(2, 3, 4)
    close(ops.transpose(c), c.T)
    close(ops.transpose(c, (1, 0, 2)), np.transpose(c, (1, 0, 2)))
    assert ops.shape(c) == (2, 3, 4)


def test_where_clip_logical():
    x = rand(3, 4)
    close(ops.where(x > 0, x, 0.0), np.where(x > 0, x, 0.0))
    assert ops.where(x > 0, 1, 0).dtype == ek.int32
    nz = ops.where(np.array([[0, 1], [1, 0]]))
    assert [list(np.asarray(t)) for t in nz] == [[0, 1], [1, 0]]
    close(ops.clip(x, -0.5, 0.5), np.clip(x, -0.5, 0.5))
    assert ops.clip(ek.constant([1, 5, 9]), 2, 6).dtype == ek.int32
    np.testing.assert_array_equal(ops.clip(ek.constant([1, 5, 9]), 2, 6), [2, 5, 6])
    a, b = np.array([True, False, True]), np.array([1, 0, 0])
    np.testing.assert_array_equal(ops.logical_and(a, b), [True, False, False])
    np.testing.assert_array_equal(ops.logical_or(a, b), [True, False, True])
    np.testing.assert_array_equal(ops.logical_not(b), [False, True, True])


def test_one_hot_take_cumsum_sort_tile_repeat_pad():
    oh = ops.one_hot(np.array([0, 2, -1, 3]), 3)
    np.testing.assert_array_equal(oh, [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])
    assert oh.dtype == ek.float32
    assert ops.one_hot(np.array([1, 0]), 2, axis=0).numpy().tolist() == [[0, 1], [1, 0]]
    x = rand(3, 4)
    close(ops.take(x, [2, -1], axis=1), np.take(x, [2, -1], axis=1))
    close(ops.take(x, [5, 0]), np.take(x, [5, 0]))
    close(ops.cumsum(x, axis=1), np.cumsum(x, axis=1))
    close(ops.cumsum(x), np.cumsum(x))
    assert ops.cumsum(np.array([True, True])).dtype == ek.int32
    close(ops.sort(x, axis=0), np.sort(x, axis=0))
    np.testing.assert_array_equal(ops.argsort(np.array([3, 1, 2, 1])), [1, 3, 2, 0])
    np.testing.assert_array_equal(ops.sort(np.array([True, False, True])), [False, True, True])
    close(ops.tile(x, 2), np.tile(x, 2))
    close(ops.tile(x, (2, 1, 1)), np.tile(x, (2, 1, 1)))
    close(ops.repeat(x, 2, axis=0), np.repeat(x, 2, axis=0))
    close(ops.repeat(x, 2), np.repeat(x, 2))
    close(ops.pad(x, ((1, 0), (0, 2))), np.pad(x, ((1, 0), (0, 2))))
    close(ops.pad(x, 1, constant_values=3.0), np.pad(x, 1, constant_values=3.0))
    close(ops.pad(x, ((1, 1), (2, 2)), mode="reflect"), np.pad(x, ((1, 1), (2, 2)), "reflect"))


def test_nn_activations():
    x = rand(2, 5)
    close(ops.relu(x), np.maximum(x, 0))
    sig = 1 / (1 + np.exp(-x))
    close(ops.sigmoid(x), sig)
    close(ops.tanh(x), np.tanh(x))
    close(ops.silu(x), x * sig)
    close(ops.softplus(x), np.log1p(np.exp(x)))
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    close(ops.softmax(x), e / e.sum(-1, keepdims=True))
    close(ops.log_softmax(x, axis=-1), np.log(e / e.sum(-1, keepdims=True)), atol=1e-5)
    e0 = np.exp(x - x.max(axis=0, keepdims=True))
    close(ops.softmax(x, axis=0), e0 / e0.sum(0, keepdims=True))
    ea = np.exp(x - x.max())
    close(ops.softmax(x, axis=(0, 1)), ea / ea.sum())
    erf = np.vectorize(math.erf)
    close(ops.erf(x), erf(x))
    close(ops.gelu(x, approximate=False), x * 0.5 * (1 + erf(x / np.sqrt(2))))
    approx = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    close(ops.gelu(x), approx)  # approximate=True is Keras's default
    close(ops.leaky_relu(x), np.where(x > 0, x, 0.2 * x))
    close(ops.elu(x, alpha=0.5), np.where(x > 0, x, 0.5 * (np.exp(x) - 1)))
    close(ops.hard_sigmoid(x), np.clip(x + 3, 0, 6) / 6)
    assert ops.relu(ek.constant([-1, 2])).dtype == ek.int32  # Keras 3.15 keeps int32


def test_crossentropies_against_closed_forms():
    p = np.array([[0.2, 0.7, 0.1], [0.5, 0.25, 0.25]], np.float32)
    t = np.array([[0, 1, 0], [1, 0, 0]], np.float32)
    close(ops.categorical_crossentropy(t, p), [-np.log(0.7), -np.log(0.5)])
    logits = rand(2, 3)
    lsm = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    close(ops.categorical_crossentropy(t, logits, from_logits=True), -(t * lsm).sum(-1))
    close(ops.sparse_categorical_crossentropy([1, 0], p), [-np.log(0.7), -np.log(0.5)])
    close(
        ops.sparse_categorical_crossentropy([[1], [0]], logits, from_logits=True),
        -lsm[[0, 1], [1, 0]],
    )
    y, q = np.array([1.0, 0.0, 1.0], np.float32), np.array([0.9, 0.2, 0.6], np.float32)
    bce = -(y * np.log(q) + (1 - y) * np.log(1 - q))
    close(ops.binary_crossentropy(y, q), bce)
    z = rand(3)
    sz = 1 / (1 + np.exp(-z))
    close(
        ops.binary_crossentropy(y, z, from_logits=True),
        -(y * np.log(sz) + (1 - y) * np.log(1 - sz)),
    )
    close(
        ops.binary_crossentropy(np.ones(1, np.float32), np.zeros(1, np.float32)),
        [-np.log(1e-7)],
        rtol=1e-3,
    )


def test_moments_norm_logsumexp_top_k():
    x = rand(4, 3)
    m, v = ops.moments(x, axes=[0])
    close(m, x.mean(0))
    close(v, x.var(0))
    m, v = ops.moments(x, axes=(0, 1), keepdims=True)
    assert m.shape == (1, 1)
    close(v, x.var().reshape(1, 1))
    close(ops.norm(x), np.linalg.norm(x))
    close(ops.norm(x, axis=1), np.linalg.norm(x, axis=1))
    for o in (1, np.inf, 3):
        close(ops.norm(x, ord=o, axis=0), np.linalg.norm(x, ord=o, axis=0), rtol=1e-5)
    for o in ("fro", 1, -1, np.inf, 2, "nuc"):
        close(ops.norm(x, ord=o), np.linalg.norm(x, ord=o), rtol=1e-5)
    close(ops.norm(x, axis=(0, 1), keepdims=True), np.linalg.norm(x, axis=(0, 1), keepdims=True))
    close(ops.logsumexp(x, axis=1), np.log(np.exp(x).sum(1)))
    close(ops.logsumexp(x, axis=0, keepdims=True), np.log(np.exp(x).sum(0, keepdims=True)))
    values, indices = ops.top_k(np.array([1.0, 5.0, 3.0, 4.0], np.float32), 2)
    close(values, [5.0, 4.0])
    np.testing.assert_array_equal(indices, [1, 3])
    _, ties = ops.top_k(np.array([1.0, 3.0, 3.0, 0.0, 3.0], np.float32), 3, is_stable=True)
    np.testing.assert_array_equal(ties, [1, 2, 4])  # equal values: lower index first
    preds = np.array([[0.1, 0.8, 0.1], [0.6, 0.3, 0.1]], np.float32)
    np.testing.assert_array_equal(ops.in_top_k([1, 2], preds, 1), [True, False])
    np.testing.assert_array_equal(ops.in_top_k([1, 2], preds, 3), [True, True])


def test_core_ops():
    t = ops.convert_to_tensor([1.0, 2.0])
    assert isinstance(t, ek.Tensor) and t.dtype == ek.float32
    assert ops.convert_to_tensor([1, 2], dtype="float16").dtype == ek.float16
    assert ops.convert_to_tensor(np.ones(2)).dtype == ek.float64
    assert ops.cast(t, "int32").dtype == ek.int32
    out = ops.scatter([[0, 1], [2, 0], [0, 1]], [1.0, 2.0, 3.0], (3, 2))
    np.testing.assert_array_equal(out, [[0, 4], [0, 0], [2, 0]])
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(ops.slice(x, (1, 1), (2, 2)), x[1:3, 1:3])
    upd = ops.slice_update(x, (1, 2), np.zeros((2, 2), np.float32))
    ref = x.copy()
    ref[1:3, 2:4] = 0
    np.testing.assert_array_equal(upd, ref)
    assert int(ops.while_loop(lambda i: i < 10, lambda i: i + 3, 0)) == 12
    i, s = ops.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i), (0, 0))
    assert (int(i), int(s)) == (4, 6)
    assert int(ops.while_loop(lambda i: i < 100, lambda i: i + 1, 0, maximum_iterations=5)) == 5
    close(ops.cond(True, lambda: ek.constant(1.0), lambda: ek.constant(2.0)), 1.0)
    close(ops.cond(ek.constant(False), lambda: ek.constant(1.0), lambda: ek.constant(2.0)), 2.0)
    close(ops.vectorized_map(lambda r: ops.sum(r * r), x), (x * x).sum(1))
    v = ek.Variable([1.0, 2.0])
    with ek.GradientTape() as tape:
        y = ops.sum(ops.stop_gradient(v) * v)
    close(tape.gradient(y, v), [1.0, 2.0])


# -- gradients against finite differences -------------------------------------------------------


def numeric_grad(f, x, eps=1e-3):
    x = x.astype(np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (float(f(x + d)) - float(f(x - d))) / (2 * eps)
    return g


@pytest.mark.parametrize(
    "f",
    [
        lambda x: ops.sum(ops.square(ops.relu(x)) * 2.0),
        lambda x: ops.mean(ops.softmax(x, axis=-1)[:, 0] * ops.exp(x[:, 1])),
        lambda x: ops.sum(ops.log_softmax(x, axis=0) * ops.arange(6, dtype=x.dtype)[:3, None]),
        lambda x: ops.norm(x) + ops.logsumexp(x),
        lambda x: ops.sum(
            ops.categorical_crossentropy(ops.one_hot([0, 1, 0], 2), x, from_logits=True)
        ),
        lambda x: ops.sum(ops.binary_crossentropy(ops.ones_like(x) * 0.3, ops.sigmoid(x))),
        lambda x: ops.sum(ops.matmul(x, ops.transpose(x)) * ops.take(x, [0], axis=1)),
        lambda x: ops.sum(ops.slice_update(x, (1, 0), ops.tanh(x[:1]))),
        lambda x: ops.max(ops.concatenate([x, ops.gelu(x)], axis=1)),
        lambda x: ops.sum(ops.where(x > 0, ops.sqrt(ops.abs(x)), ops.square(x))),
    ],
)
def test_gradients_against_finite_differences(f):
    x0 = rand(3, 2, seed=4).astype(np.float64) + 0.05
    v = ek.Variable(x0)
    with ek.GradientTape() as tape:
        y = f(v)
    g = tape.gradient(y, v)
    close(g, numeric_grad(lambda a: f(ek.constant(a)), x0), rtol=1e-4, atol=1e-5)


# -- symbolic calls -----------------------------------------------------------------------------


def ops_model():
    inputs = keras.Input(shape=(4,), name="x")
    h = ops.relu(inputs)
    m = ops.mean(h, axis=-1, keepdims=True)
    c = ops.concatenate([h, m, inputs * 2.0], axis=-1)
    r = ops.reshape(c, (-1, 3, 3))
    out = ops.sum(
        ops.softmax(r, axis=1) * ops.convert_to_tensor(np.full((3, 3), 0.5, np.float32)), axis=-1
    )
    return keras.Model(inputs, out)


def eager_expr(x):
    h = ops.relu(x)
    c = ops.concatenate([h, ops.mean(h, axis=-1, keepdims=True), x * 2.0], axis=-1)
    r = ops.reshape(c, (-1, 3, 3))
    return ops.sum(ops.softmax(r, axis=1) * 0.5, axis=-1)


def test_symbolic_ops_record_layers():
    x = keras.Input(shape=(None, 3))
    y = ops.mean(ops.relu(x), axis=-1)
    assert isinstance(y, keras.KerasTensor) and tuple(y.shape) == (None, None)
    assert ops.shape(x) == (None, None, 3)  # static shape, no layer
    assert ops.argmax(x, axis=-1).dtype == ek.int32
    assert tuple(ops.one_hot(ops.argmax(x, axis=-1), 5).shape) == (None, None, 5)
    layer = y._keras_history.layer
    assert isinstance(layer, ops.KerasOpLayer) and layer.op_name == "mean"
    assert layer.get_config()["arguments"] == [[{"__input__": 0}], {"axis": -1}]


def test_functional_model_matches_eager_and_round_trips(tmp_path):
    model = ops_model()
    x = rand(5, 4, seed=7)
    expected = eager_expr(x)
    close(model(x), expected)
    close(model.predict(x, verbose=0), expected)
    path = tmp_path / "m.keras"
    model.save(str(path))
    loaded = keras.models.load_model(str(path))
    assert loaded is not model
    assert [type(la).__name__ for la in loaded.layers] == [type(la).__name__ for la in model.layers]
    np.testing.assert_array_equal(loaded(x), model(x))


def test_functional_model_with_ops_trains():
    inputs = keras.Input(shape=(3,))
    h = keras.layers.Dense(4)(inputs)
    out = ops.sigmoid(ops.sum(ops.relu(h), axis=-1, keepdims=True))
    model = keras.Model(inputs, out)
    model.compile(optimizer="sgd", loss="binary_crossentropy")
    before = [w.numpy().copy() for w in model.weights]
    model.fit(rand(16, 3), (rand(16, 1, seed=1) > 0).astype("float32"), epochs=1, verbose=0)
    assert any(not np.array_equal(b, w.numpy()) for b, w in zip(before, model.weights))


def test_unsaveable_argument_names_it(tmp_path):
    x = keras.Input(shape=(3,))
    y = ops.add(x, ek.constant([1.0, 2.0, 3.0]))
    model = keras.Model(x, y)
    model.save(str(tmp_path / "ok.keras"))  # a constant tensor argument is stored as an array
    loaded = keras.models.load_model(str(tmp_path / "ok.keras"))
    close(loaded(np.zeros((1, 3), np.float32)), [[1.0, 2.0, 3.0]])
    layer = ops.KerasOpLayer("add", arguments=[[{"__input__": 0}, 1.0], {}])
    with pytest.raises(TypeError, match=r"cannot be saved"):
        ops.KerasOpLayer("add", _template=([object(), 1.0], {})).get_config()
    close(layer(ek.constant([1.0])), [2.0])
    with pytest.raises(ValueError, match=r"unknown keras.ops function 'nope'"):
        ops.KerasOpLayer("nope", arguments=[[], {}])


# -- errors -------------------------------------------------------------------------------------


def test_bad_axis_names_the_op():
    x = rand(2, 3)
    for name in ("sum", "mean", "max", "any", "argmax", "cumsum", "softmax", "logsumexp"):
        with pytest.raises(ValueError, match=rf"keras.ops.{name}: axis 2 is out of bounds.*rank 2"):
            getattr(ops, name)(x, axis=2)
    with pytest.raises(ValueError, match=r"keras.ops.concatenate: axis -3"):
        ops.concatenate([x, x], axis=-3)
    with pytest.raises(ValueError, match=r"repeated axis"):
        ops.sum(x, axis=(0, 0))
    with pytest.raises(TypeError, match=r"axis must be an int"):
        ops.mean(x, axis=1.0)
    with pytest.raises(ValueError, match=r"cannot squeeze axis 1 of size 3"):
        ops.squeeze(x, axis=1)


def test_mismatched_shapes():
    with pytest.raises(ek.errors.InvalidArgumentError):
        ops.add(rand(2, 3), rand(4))
    with pytest.raises(ek.errors.InvalidArgumentError):
        ops.matmul(rand(2, 3), rand(4, 2))
    with pytest.raises(ValueError, match=r"binary_crossentropy.*same shape.*target.shape=\(3,\)"):
        ops.binary_crossentropy(rand(3), rand(4))
    with pytest.raises(ValueError, match=r"categorical_crossentropy.*same rank"):
        ops.categorical_crossentropy(rand(2, 3), rand(3))
    with pytest.raises(
        ValueError, match=r"sparse_categorical_crossentropy.*Received: target.shape"
    ):
        ops.sparse_categorical_crossentropy([0, 1, 2], rand(2, 3))


def test_unsupported_arguments_raise():
    with pytest.raises(NotImplementedError, match=r"sparse=True"):
        ops.one_hot([0], 2, sparse=True)
    with pytest.raises(NotImplementedError, match=r"synchronized"):
        ops.moments(rand(3), axes=[0], synchronized=True)
    with pytest.raises(ValueError, match=r"mode"):
        ops.pad(rand(3), 1, mode="edge")
    with pytest.raises(ValueError, match=r"x1.*x2"):
        ops.where(rand(2) > 0, 1.0)
    with pytest.raises(NotImplementedError):
        ops.convert_to_tensor([1], sparse=True)
    assert callable(ops.ctc_loss)  # mapped onto ek.nn.ctc_loss since it exists


# -- tier 2 -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,ref",
    [
        ("sin", np.sin),
        ("cos", np.cos),
        ("tan", np.tan),
        ("arctan", np.arctan),
        ("sinh", np.sinh),
        ("cosh", np.cosh),
        ("arcsinh", np.arcsinh),
        ("log1p", np.log1p),
        ("expm1", np.expm1),
        ("log2", np.log2),
        ("log10", np.log10),
        ("exp2", np.exp2),
        ("floor", np.floor),
        ("ceil", np.ceil),
        ("reciprocal", np.reciprocal),
        ("negative", np.negative),
        ("sign", np.sign),
        ("round", np.round),
    ],
)
def test_tier2_unary_against_numpy(name, ref):
    x = np.abs(rand(3, 4)) * 3 + 0.1
    out = getattr(ops, name)(x)
    close(out, ref(x), rtol=1e-5)
    assert out.dtype == ek.float32


def test_tier2_values():
    x, y = rand(3, 4), rand(3, 4, seed=1)
    assert ops.sin(ek.constant([1, 2])).dtype == ek.float32  # integers give floatx
    close(ops.floor_divide(x, 0.3), np.floor_divide(x, 0.3), rtol=1e-5)
    np.testing.assert_array_equal(ops.mod(ek.constant([-7, 7]), 3), [2, 1])
    close(ops.power(np.abs(x), 1.5), np.abs(x) ** 1.5, rtol=1e-5)
    close(ops.arctan2(x, y), np.arctan2(x, y))
    np.testing.assert_array_equal(ops.logical_xor([1, 0, 1], [1, 1, 0]), [False, True, True])
    close(ops.round(np.array([1.234, 5.678], np.float32), 1), [1.2, 5.7])
    np.testing.assert_array_equal(ops.isnan(np.array([1.0, np.nan])), [False, True])
    np.testing.assert_array_equal(ops.isfinite(np.array([1.0, np.inf])), [True, False])
    np.testing.assert_array_equal(ops.isinf(ek.constant([1, 2])), [False, False])
    for axis in (None, 0, (0, 1)):
        close(ops.prod(x, axis=axis), np.prod(x, axis=axis), rtol=1e-5)
        close(ops.var(x, axis=axis), np.var(x, axis=axis), rtol=1e-5)
        close(ops.std(x, axis=axis, keepdims=True), np.std(x, axis=axis, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(ops.count_nonzero(np.array([[0, 1], [2, 0]]), axis=0), [1, 1])
    close(ops.diff(x, n=2, axis=1), np.diff(x, n=2, axis=1))
    close(ops.full((2, 2), 3.0), np.full((2, 2), 3.0))
    assert (
        ops.full((2,), 1).dtype == ek.float32
        and ops.full_like(ek.constant([1, 2]), 7).dtype == ek.int32
    )
    close(ops.eye(3, 4, k=1), np.eye(3, 4, k=1))
    close(ops.identity(2), np.eye(2))
    close(ops.linspace(0.0, 1.0, 5), np.linspace(0, 1, 5))
    close(ops.linspace(0.0, 1.0, 4, endpoint=False), np.linspace(0, 1, 4, endpoint=False))
    close(ops.linspace([0.0, 1.0], [1.0, 3.0], 3, axis=1), np.linspace([0, 1], [1, 3], 3, axis=1))
    close(ops.diag(x[:, :3]), np.diag(x[:, :3]))
    close(ops.diag(x[0], k=-1), np.diag(x[0], k=-1))
    close(ops.tril(x, k=1), np.tril(x, k=1))
    close(ops.triu(x, k=-1), np.triu(x, k=-1))
    close(ops.broadcast_to(x[0], (2, 4)), np.broadcast_to(x[0], (2, 4)))
    for got, want in zip(
        ops.meshgrid(x[0], y[0, :2], indexing="ij"), np.meshgrid(x[0], y[0, :2], indexing="ij")
    ):
        close(got, want)
    close(ops.einsum("ij,kj->ik", x, y), np.einsum("ij,kj->ik", x, y), rtol=1e-5)
    close(ops.tensordot(x, y, axes=[[1], [1]]), np.tensordot(x, y, axes=[[1], [1]]), rtol=1e-5)
    close(ops.outer(x[0], y[1]), np.outer(x[0], y[1]))
    close(ops.flip(x, axis=1), np.flip(x, axis=1))
    close(ops.flip(x), np.flip(x))
    close(ops.roll(x, 2, axis=1), np.roll(x, 2, axis=1))
    close(ops.roll(x, -3), np.roll(x, -3))
    z = rand(2, 3, 4)
    assert ops.moveaxis(z, 0, -1).shape == (3, 4, 2)
    close(ops.moveaxis(z, [0, 1], [-1, 0]), np.moveaxis(z, [0, 1], [-1, 0]))
    close(ops.swapaxes(z, 0, 2), np.swapaxes(z, 0, 2))
    close(ops.ravel(z), z.ravel())
    for got, want in zip(ops.split(x, 2, axis=1), np.split(x, 2, axis=1)):
        close(got, want)
    for got, want in zip(ops.split(x, [1, 3], axis=1), np.split(x, [1, 3], axis=1)):
        close(got, want)
    with pytest.raises(ValueError, match="does not split into 3 equal sections"):
        ops.split(x, 3, axis=1)
    idx = ops.nonzero(np.array([[0, 1], [1, 1]]))
    assert [np.asarray(i).tolist() for i in idx] == [[0, 1, 1], [1, 0, 1]]
    assert int(ops.size(x)) == 12 and ops.ndim(x) == 2


def test_nn_tier2_against_closed_forms():
    x = rand(2, 5)
    close(
        ops.selu(x), np.where(x > 0, 1.0507009873554805 * x, 1.7580993408473766 * (np.exp(x) - 1))
    )
    close(ops.relu6(x * 5), np.clip(x * 5, 0, 6))
    close(ops.log_sigmoid(x), -np.log1p(np.exp(-x)), rtol=1e-5)
    close(ops.softsign(x), x / (1 + np.abs(x)))
    close(ops.hard_silu(x), x * np.clip(x + 3, 0, 6) / 6)
    close(ops.normalize(x), x / np.linalg.norm(x, axis=-1, keepdims=True))
    close(ops.normalize(x, axis=0, order=1), x / np.abs(x).sum(0, keepdims=True))
    mean, var = x.mean(0), x.var(0)
    gamma, beta = np.arange(1, 6, dtype=np.float32), np.ones(5, np.float32)
    close(
        ops.batch_normalization(x, mean, var, axis=-1, offset=beta, scale=gamma, epsilon=1e-3),
        (x - mean) / np.sqrt(var + 1e-3) * gamma + beta,
        rtol=1e-5,
    )
    # conv and pooling against a direct NumPy loop
    img, ker = rand(1, 5, 5, 2), rand(3, 3, 2, 4, seed=1)
    ref = np.zeros((1, 3, 3, 4), np.float32)
    for i in range(3):
        for j in range(3):
            ref[0, i, j] = np.tensordot(img[0, i : i + 3, j : j + 3], ker, axes=3)
    close(ops.conv(img, ker), ref, rtol=1e-4, atol=1e-5)
    assert ops.conv(img, ker, padding="same", strides=2).shape == (1, 3, 3, 4)
    nchw = np.transpose(img, (0, 3, 1, 2))
    close(
        ops.conv(nchw, ker, data_format="channels_first"),
        np.transpose(ref, (0, 3, 1, 2)),
        rtol=1e-4,
        atol=1e-5,
    )
    mp = img[:, :4, :4].reshape(1, 2, 2, 2, 2, 2).max(axis=(2, 4))
    close(ops.max_pool(img, 2), mp)
    ap = img[:, :4, :4].reshape(1, 2, 2, 2, 2, 2).mean(axis=(2, 4))
    close(ops.average_pool(img, 2, strides=2), ap, rtol=1e-5)
    with pytest.raises(ValueError, match="padding"):
        ops.max_pool(img, 2, padding="full")


def test_linalg_against_numpy():
    a = rand(3, 3) + 3 * np.eye(3, dtype=np.float32)
    b = rand(3, 2, seed=1)
    close(ops.det(a), np.linalg.det(a), rtol=1e-5)
    close(ops.inv(a), np.linalg.inv(a), rtol=1e-4, atol=1e-5)
    close(ops.solve(a, b), np.linalg.solve(a, b), rtol=1e-4, atol=1e-5)
    spd = a @ a.T
    close(ops.cholesky(spd), np.linalg.cholesky(spd), rtol=1e-4, atol=1e-5)
    close(ops.cholesky(spd, upper=True), np.linalg.cholesky(spd).T, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match=r"keras.ops.norm: invalid `ord`"):
        ops.norm(a, ord=3)


def test_operator_with_array_operand_is_saved(tmp_path):
    x = keras.Input(shape=(3,))
    y = x * np.array([1.0, 2.0, 3.0], np.float32) + ek.constant([0.5, 0.5, 0.5])
    model = keras.Model(x, y)
    data = rand(2, 3)
    close(model(data), data * [1, 2, 3] + 0.5)
    model.save(str(tmp_path / "m.keras"))
    close(keras.models.load_model(str(tmp_path / "m.keras"))(data), data * [1, 2, 3] + 0.5)


def test_image_and_namespaces():
    img = rand(2, 4, 6, 3)
    gray = ops.image.rgb_to_grayscale(img)
    close(gray, (img @ np.array([0.2989, 0.5870, 0.1140], np.float32))[..., None], rtol=1e-4)
    first = ops.image.rgb_to_grayscale(
        np.transpose(img, (0, 3, 1, 2)), data_format="channels_first"
    )
    close(first, np.transpose(gray, (0, 3, 1, 2)))
    up = ops.image.resize(img, (8, 12), interpolation="nearest")
    close(up, img.repeat(2, axis=1).repeat(2, axis=2))
    assert ops.image.resize(img[0], (2, 3)).shape == (2, 3, 3)
    with pytest.raises(ValueError, match="interpolation"):
        ops.image.resize(img, (2, 2), interpolation="cubic")
    assert ops.image.resize(img, (2, 2), crop_to_aspect_ratio=True).shape == (2, 2, 2, 3)
    assert ops.numpy.sin is ops.sin and ops.numpy.sum is ops.sum
    assert ops.nn.relu is ops.relu and ops.linalg.norm is ops.norm and ops.math.top_k is ops.top_k
    assert not hasattr(ops, "resize")  # image functions live under ops.image only, as in Keras


def test_symbolic_shape_inference_is_quiet_and_dynamic_lengths_unknown():
    import warnings

    x = keras.Input(shape=(3,))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # log(0) / 0/0 on the stand-ins must not warn
        y = ops.log(x)
        z = ops.divide(x, x)
    assert tuple(y.shape) == (None, 3) and tuple(z.shape) == (None, 3)
    rows, cols = ops.nonzero(x)
    assert tuple(rows.shape) == (None,) and rows.dtype == ek.int32
    model = keras.Model(x, [rows, cols])
    r, c = model(np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]], np.float32))
    assert np.asarray(r).tolist() == [0, 0, 1] and np.asarray(c).tolist() == [1, 2, 0]


def test_more_activations_against_closed_forms():
    x = rand(3, 4) * 2
    close(ops.celu(x, alpha=0.5), np.maximum(x, 0) + 0.5 * np.expm1(np.minimum(x, 0) / 0.5))
    a, b = x[:, :2], x[:, 2:]
    close(ops.glu(x), a / (1 + np.exp(-b)))
    with pytest.raises(ValueError, match="divisible by 2"):
        ops.glu(x[:, :3])
    close(ops.hard_tanh(x), np.clip(x, -1, 1))
    close(ops.hard_shrink(x), np.where(np.abs(x) > 0.5, x, 0))
    close(ops.soft_shrink(x, 0.3), np.where(x > 0.3, x - 0.3, np.where(x < -0.3, x + 0.3, 0)))
    close(ops.tanh_shrink(x), x - np.tanh(x))
    close(ops.squareplus(x), (x + np.sqrt(x**2 + 4)) / 2)
    close(ops.sparse_plus(x), np.where(x <= -1, 0, np.where(x < 1, (x + 1) ** 2 / 4, x)))
    close(ops.threshold(x, 0.1, -5.0), np.where(x > 0.1, x, -5.0))


def test_numpy_extra_against_numpy():
    x, y = rand(3, 4), rand(3, 4, seed=1)
    close(ops.amax(x, axis=0), np.amax(x, axis=0))
    close(ops.amin(x, axis=1, keepdims=True), np.amin(x, axis=1, keepdims=True))
    close(ops.append(x, y), np.append(x, y))
    close(ops.append(x, y, axis=0), np.append(x, y, axis=0))
    assert ops.array([1, 2], dtype="float16").dtype == ek.float16
    close(ops.copy(x), x)
    w = np.abs(rand(4, seed=2)) + 0.1
    close(ops.average(x, axis=1, weights=w), np.average(x, axis=1, weights=w), rtol=1e-5)
    close(ops.average(x, axis=0, weights=np.abs(y)), np.average(x, axis=0, weights=np.abs(y)))
    close(ops.average(x), np.average(x))
    with pytest.raises(ValueError, match="axis must be specified"):
        ops.average(x, weights=w)
    assert ops.average(ek.constant([1, 2])).dtype == ek.float32
    close(ops.cumprod(x, axis=1), np.cumprod(x, axis=1), rtol=1e-5)
    close(ops.cumprod(x), np.cumprod(x), rtol=1e-4)
    close(ops.hstack([x, y]), np.hstack([x, y]))
    close(ops.hstack([x[0], y[0]]), np.hstack([x[0], y[0]]))
    close(ops.vstack([x, y[0]]), np.vstack([x, y[0]]))
    a = np.array([1.0, np.inf, np.nan, 1.0], np.float32)
    b = np.array([1.0 + 1e-7, np.inf, np.nan, 1.1], np.float32)
    np.testing.assert_array_equal(ops.isclose(a, b), np.isclose(a, b))
    np.testing.assert_array_equal(
        ops.isclose(a, b, equal_nan=True), np.isclose(a, b, equal_nan=True)
    )
    close(ops.hypot(x, y), np.hypot(x, y))
    assert ops.hypot(ek.constant([3]), ek.constant([4])).dtype == ek.float32
    close(ops.logaddexp(x, y), np.logaddexp(x, y))
    close(ops.vdot(x, y), np.vdot(x, y), rtol=1e-5)
    close(ops.inner(x, y), np.inner(x, y), rtol=1e-5)
    idx = np.argsort(x, axis=1)
    close(ops.take_along_axis(x, idx, axis=1), np.take_along_axis(x, idx, axis=1))
    close(ops.take_along_axis(x, np.array([3, 0]), axis=None), x.ravel()[[3, 0]])
    close(ops.trace(x, offset=1), np.trace(x, offset=1))
    assert ops.trace(np.ones((2, 2), np.int8)).dtype == ek.int32
    close(ops.tri(3, 4, k=-1), np.tri(3, 4, k=-1))
    close(ops.trunc(np.array([-1.7, 1.7], np.float32)), [-1.0, 1.0])
    c = np.array([np.nan, np.inf, -np.inf, 2.0], np.float32)
    close(ops.nan_to_num(c), np.nan_to_num(c))
    close(ops.nan_to_num(c, nan=1.0, posinf=9.0, neginf=-9.0), [1.0, 9.0, -9.0, 2.0])


def test_symbolic_error_names_op_and_symbolic_shapes():
    a, b = keras.Input(shape=(3,)), keras.Input(shape=(4,))
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"incompatible shapes") as info:
        ops.add(a, b)
    shapes = r"\(KerasOpLayer\) on symbolic inputs of shapes \(None, 3\), \(None, 4\)"
    assert re.search(r"layer 'add(_\d+)?' " + shapes, str(info.value))
    with pytest.raises(ValueError, match=r"keras.ops.sum: axis 2 is out of bounds"):
        ops.sum(a, axis=2)


def test_depthwise_conv_and_multi_hot():
    img, ker = rand(1, 5, 5, 2), rand(3, 3, 2, 2, seed=1)
    ref = np.zeros((1, 3, 3, 4), np.float32)
    for i in range(3):
        for j in range(3):
            patch = img[0, i : i + 3, j : j + 3]  # (3, 3, in)
            ref[0, i, j] = np.einsum("hwc,hwcm->cm", patch, ker).reshape(-1)
    close(ops.depthwise_conv(img, ker), ref, rtol=1e-4, atol=1e-5)
    seq, k1 = rand(2, 6, 3), rand(2, 3, 1, seed=2)
    ref1 = np.stack([(seq[:, t : t + 2] * k1[:, :, 0]).sum(1) for t in range(5)], axis=1)
    close(ops.depthwise_conv(seq, k1), ref1, rtol=1e-4, atol=1e-5)
    hot = ops.multi_hot(np.array([[0, 2], [1, 1]]), 4)
    np.testing.assert_array_equal(hot, [[1, 0, 1, 0], [0, 1, 0, 0]])
    assert hot.dtype == ek.float32
    np.testing.assert_array_equal(ops.multi_hot(np.array([3, 0]), 4, dtype="bool"), [1, 0, 0, 1])


def test_segment_reductions():
    data = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    ids = np.array([0, 2, 0])
    close(ops.segment_sum(data, ids), [[6, 8], [0, 0], [3, 4]])
    close(ops.segment_max(data, ids, num_segments=4)[:1], [[5, 6]])
    close(ops.segment_min(data, np.array([0, 0, 1]), sorted=True), [[1, 2], [5, 6]])
    close(ops.segment_prod(data, np.array([1, 1, 1])), [[1, 1], [15, 48]])
