"""The C kernels (eagerkernel/runtime/_kernels.c through kernels.py): built wherever a C
compiler was at install time, equal to the NumPy kernels, NumPy's error-state policy for
floating-point errors, and the cases where they decline and leave NumPy to run."""

from __future__ import annotations

import shutil
import sysconfig
import warnings

import numpy as np
import pytest

from eagerkernel.runtime.keras.optimizers import adam as adam_module
from eagerkernel.runtime.native import kernels
from eagerkernel.runtime.ops import conv, pool2d

ADAM = {"b1": 0.9, "b2": 0.999, "epsilon": 1e-7, "lr_t": 3e-3}
needs_c = pytest.mark.skipif(not kernels.available(), reason="C extension not built")


def arrays(n, dtype, seed=0):
    rng = np.random.default_rng(seed)
    g, var, m = (rng.standard_normal(n).astype(dtype) for _ in range(3))
    v = rng.uniform(0.0, 2.0, n).astype(dtype)
    return g, var, m, v


def numpy_adam(g, var, m, v):
    """The NumPy kernel of keras/optimizers/adam.py (the fallback of the C one)."""
    adam_module._adam(np, np.empty_like(var), g, var, m, v, **ADAM)


def test_the_extension_is_built_where_a_compiler_is():
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}) here: the NumPy kernels run")
    assert kernels.available(), "pip install -e . did not build eagerkernel.runtime.native._kernels"


@needs_c
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_adam_matches_the_numpy_kernel_bit_for_bit_and_the_formula(dtype):
    c = arrays(1000, dtype)
    ref = [a.copy() for a in c]
    g, var, m, v = (a.copy() for a in c)
    assert kernels.adam(*c, **ADAM) is True
    numpy_adam(*ref)
    for got, want in zip(c[1:], ref[1:]):
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, want)
    m = 0.9 * m + 0.1 * g  # the formula, in float64
    v = 0.999 * v + 0.001 * g.astype(np.float64) ** 2
    var = var - 3e-3 * m / (np.sqrt(v) + 1e-7)
    np.testing.assert_allclose(c[1], var, rtol=1e-5 if dtype == np.float32 else 1e-12)


@needs_c
def test_adam_accepts_a_non_contiguous_gradient():
    g, var, m, v = arrays(20, np.float32)
    wide = np.repeat(g, 2)[::2]  # the same values, strided
    ref = [a.copy() for a in (g, var, m, v)]
    assert not wide.flags.c_contiguous
    assert kernels.adam(wide, var, m, v, **ADAM)
    numpy_adam(*ref)
    np.testing.assert_array_equal(var, ref[1])


@needs_c  # without the extension every call declines: nothing to tell apart
@pytest.mark.parametrize(
    "case", ["float16", "mixed dtypes", "strided var", "list", "shapes differ", "int"]
)
def test_adam_declines_and_changes_nothing(case):
    g, var, m, v = arrays(8, np.float32)
    if case == "float16":
        g, var, m, v = (a.astype(np.float16) for a in (g, var, m, v))
    elif case == "mixed dtypes":
        g = g.astype(np.float64)
    elif case == "strided var":
        var = np.repeat(var, 2)[::2]
    elif case == "list":
        var = var.tolist()
    elif case == "shapes differ":
        g = g[:4]
    elif case == "int":
        g, var, m, v = (a.astype(np.int32) for a in (g, var, m, v))
    before = [np.array(a, copy=True) for a in (var, m, v)]
    assert kernels.adam(g, var, m, v, **ADAM) is False
    for a, b in zip((var, m, v), before):
        np.testing.assert_array_equal(np.asarray(a), b)


@needs_c
def test_floating_point_errors_follow_numpys_error_state():
    def run():
        g, var, m, v = arrays(4, np.float32)
        g[1] = 1e30  # g * g overflows float32
        return kernels.adam(g, var, m, v, **ADAM)

    with np.errstate(over="warn"), pytest.warns(RuntimeWarning, match="overflow .* in adam"):
        run()
    with np.errstate(over="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        run()
    with np.errstate(over="raise"), pytest.raises(FloatingPointError, match="overflow"):
        run()
    g, var, m, v = arrays(4, np.float32)
    g[0] = np.inf  # m / sqrt(v): inf / inf, a NaN
    with (
        np.errstate(all="ignore", invalid="raise"),
        pytest.raises(FloatingPointError, match="invalid"),
    ):
        kernels.adam(g, var, m, v, **ADAM)


@needs_c
def test_the_c_function_names_a_bad_argument():
    g, var, m, v = arrays(4, np.float32)
    with pytest.raises(TypeError, match="adam: g has format 'i'"):
        kernels._kernels.adam(g.astype(np.int32), var, m, v, 0.9, 0.999, 1e-7, 1e-3)
    with pytest.raises(TypeError, match=r"adam: m has format 'd'; expected float32"):
        kernels._kernels.adam(g, var, m.astype(np.float64), v, 0.9, 0.999, 1e-7, 1e-3)
    with pytest.raises(ValueError, match="adam: v has 3 elements; expected 4"):
        kernels._kernels.adam(g, var, m, v[:3], 0.9, 0.999, 1e-7, 1e-3)
    var.flags.writeable = False
    with pytest.raises(TypeError, match="var must be a C-contiguous, writable"):
        kernels._kernels.adam(g, var, m, v, 0.9, 0.999, 1e-7, 1e-3)


def numpy_max_pool_grad(x, ans, g, ksize):
    tiles = pool2d._tiles(x, ksize, ksize, ((0, 0), (0, 0)))
    out = pool2d._first_maxima_tiled(np, tiles, ans).astype(g.dtype)
    out *= g[:, :, None, :, None, :]
    return out.reshape(x.shape)


@needs_c
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ksize", [(2, 2), (3, 2), (1, 4)])
def test_max_pool_grad_matches_the_numpy_kernel_bit_for_bit(dtype, ksize):
    rng = np.random.default_rng(1)
    shape = (3, 6, 8, 5)
    x = np.maximum(rng.integers(-2, 3, shape), 0).astype(dtype)  # many ties, as after a ReLU
    x[0, 0, 0, 0] = np.nan  # a NaN window: no element equals its maximum
    ans = pool2d._max_pool_fwd(np, x, ksize, ksize, ((0, 0), (0, 0)))
    g = rng.standard_normal(ans.shape).astype(dtype)
    g[1, 0, 0, 1] = -2.0  # negative: the other elements of its window get -0.0
    got = kernels.max_pool_grad(x, ans, g, ksize)
    want = numpy_max_pool_grad(x, ans, g, ksize)
    assert got.dtype == dtype and got.shape == x.shape
    np.testing.assert_array_equal(got, want)
    assert (np.signbit(got) == np.signbit(want)).all()
    strided = np.repeat(g, 2, axis=3)[..., ::2]  # a strided cotangent is copied first
    np.testing.assert_array_equal(kernels.max_pool_grad(x, ans, strided, ksize), want)


@needs_c  # without the extension every call declines: nothing to tell apart
@pytest.mark.parametrize("case", ["not tiling", "float16", "strided x", "wrong ans shape"])
def test_max_pool_grad_declines(case):
    x = np.ones((2, 4, 4, 3), np.float32)
    ans, g, ksize = np.ones((2, 2, 2, 3), np.float32), np.ones((2, 2, 2, 3), np.float32), (2, 2)
    if case == "not tiling":
        ksize = (3, 3)
    elif case == "float16":
        x, ans, g = (a.astype(np.float16) for a in (x, ans, g))
    elif case == "strided x":
        x = np.ones((2, 4, 8, 3), np.float32)[:, :, ::2]
    elif case == "wrong ans shape":
        ans = ans[:, :1]
    assert kernels.max_pool_grad(x, ans, g, ksize) is None


@needs_c
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_grad_matches_the_numpy_kernel_bit_for_bit(dtype):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(1000).astype(dtype)
    x[:10] = 0.0  # the gradient at 0 is 0
    x[10] = np.nan
    g = rng.standard_normal(1000).astype(dtype)
    with np.errstate(invalid="ignore"):
        g[11] = np.inf  # times a 0.0 mask where x <= 0: NaN, as in NumPy
        x[11] = -1.0
        got = kernels.relu_grad(g, x)
        want = np.multiply(g, x > 0, dtype=dtype)
    np.testing.assert_array_equal(got, want)
    assert np.isnan(got[11]) and (np.signbit(got) == np.signbit(want)).all()
    with pytest.warns(RuntimeWarning, match="invalid value encountered in multiply"):
        kernels.relu_grad(g, x)
    assert kernels.relu_grad(g[:10], x[:10].astype(np.float16)) is None
    assert kernels.relu_grad(g[::2], x[::2]) is None  # strided: NumPy's path


@needs_c
def test_pools_and_relu_use_the_c_kernels_through_the_ops(monkeypatch):
    # The ops' gradients are the same with the extension and without it.
    import eagerkernel as ek

    rng = np.random.default_rng(3)
    x = ek.constant(np.maximum(rng.standard_normal((2, 8, 8, 4)), 0).astype(np.float32))

    def grad():
        with ek.GradientTape() as tape:
            tape.watch(x)
            y = ek.nn.max_pool2d(ek.nn.relu(x * 2.0 - 0.5), 2, 2, "VALID")
            loss = ek.reduce_sum(y * y)
        return tape.gradient(loss, x).numpy()

    calls = []
    for name in ("run", "max_pool_grad"):  # run: the program kernels, ReLU's gradient among them
        original = getattr(kernels._kernels, name)
        monkeypatch.setattr(
            kernels._kernels, name, lambda *a, f=original, n=name: calls.append(n) or f(*a)
        )
    with_c = grad()
    assert set(calls) == {"run", "max_pool_grad"}
    monkeypatch.setattr(kernels, "_kernels", None)
    np.testing.assert_array_equal(with_c, grad())


@needs_c
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    ("strides", "dilations", "pads"),
    [
        ((1, 1), (1, 1), ((2, 2), (2, 2))),
        ((2, 1), (1, 2), ((1, 0), (0, 3))),
        ((1, 3), (2, 1), ((0, 0), (0, 0))),
    ],
)
def test_col2im_matches_the_numpy_loop_bit_for_bit(monkeypatch, dtype, strides, dilations, pads):
    rng = np.random.default_rng(4)
    input_shape, ksize = (3, 9, 10, 4), (3, 2)
    out_hw = conv.output_hw(input_shape[1:3], ksize, strides, dilations, pads)
    cols = rng.standard_normal((3, *out_hw, *ksize, 4)).astype(dtype)
    got = conv.col2im(np, cols, input_shape, strides, dilations, pads)
    monkeypatch.setattr(kernels, "_kernels", None)
    want = conv.col2im(np, cols, input_shape, strides, dilations, pads)
    assert got.shape == want.shape == input_shape and got.dtype == dtype
    np.testing.assert_array_equal(got, want)


@needs_c
def test_col2im_refuses_windows_that_do_not_fit():
    cols = np.ones((1, 4, 4, 3, 3, 2), np.float32)
    out = np.empty((1, 5, 5, 2), np.float32)  # 4 windows of 3 need 6 rows
    with pytest.raises(ValueError, match="col2im: the windows do not fit"):
        kernels._kernels.col2im(cols, out, 3, 3, 1, 4, 4, 2, 5, 5, 1, 1, 1, 1)
    assert kernels.col2im(cols[..., :1], (1, 6, 6, 2), (1, 1), (1, 1)) is None  # channels differ


@needs_c
def test_training_steps_are_bit_for_bit_the_same_without_the_extension(monkeypatch):
    # A small CNN of the guide's kind (conv, ReLU, 2x2 max pool, dense, Adam), trained three
    # steps with the C kernels and three without, from the same start: the same weights.
    import eagerkernel as ek

    rng = np.random.default_rng(6)
    x = ek.constant(rng.standard_normal((8, 12, 12, 2)).astype(np.float32))
    y = ek.constant(rng.integers(0, 5, 8).astype(np.int32))

    def train():
        ek.keras.utils.set_random_seed(0)
        layers = ek.keras.layers
        model = ek.keras.Sequential(
            [
                layers.Conv2D(6, 3, padding="same", activation="relu", input_shape=(12, 12, 2)),
                layers.MaxPooling2D(2),
                # More output channels than input: its input gradient is col2im's (fewer
                # would take the full convolution instead, see ops/conv.py).
                layers.Conv2D(8, 3, padding="same", activation="relu"),
                layers.Flatten(),
                layers.Dense(5),
            ]
        )
        opt = ek.keras.optimizers.Adam(1e-2)
        for _ in range(3):
            with ek.GradientTape() as tape:
                logits = model(x, training=True)
                loss = ek.reduce_mean(
                    ek.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
                )
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
        return [v.numpy() for v in model.trainable_variables]

    calls = []
    for name in ("adam", "run", "max_pool_grad", "col2im"):
        original = getattr(kernels._kernels, name)
        monkeypatch.setattr(
            kernels._kernels, name, lambda *a, f=original, n=name: calls.append(n) or f(*a)
        )
    with_c = train()
    assert set(calls) == {"adam", "run", "max_pool_grad", "col2im"}
    monkeypatch.setattr(kernels, "_kernels", None)
    for a, b in zip(with_c, train()):
        np.testing.assert_array_equal(a, b)


@needs_c
def test_call_log_and_print_error_modes_behave_as_numpys(capsys):
    # NumPy's forms: the callback gets ("overflow", 2) (checked against NumPy's own multiply),
    # a "log" object a "Warning: ..." line, and "print" writes that line to stderr.
    def overflow():
        g, var, m, v = arrays(4, np.float32)
        g[1] = 1e30  # g * g overflows inside the kernel
        kernels.adam(g, var, m, v, **ADAM)

    seen = []
    lines = []
    log = type("Log", (), {"write": lambda self, line: lines.append(line)})()
    old = np.seterrcall(lambda *args: seen.append(args))
    try:
        with np.errstate(over="call"):
            overflow()
            np.array([1e30], np.float32) * np.float32(1e10)
        assert seen == [("overflow", 2), ("overflow", 2)]
        np.seterrcall(log)
        with np.errstate(over="log"):
            overflow()
        assert lines == ["Warning: overflow encountered in adam\n"]
    finally:
        np.seterrcall(old)
    with np.errstate(over="print"):
        overflow()
    assert "Warning: overflow encountered in adam" in capsys.readouterr().err


@needs_c
def test_underflow_follows_numpys_error_state_too():
    # NumPy ignores underflow by default; set to raise, its kernel and ours both raise.
    g, var, m, v = arrays(4, np.float32)
    g[:] = 1e-30  # g * g underflows float32
    with np.errstate(under="raise"), pytest.raises(FloatingPointError, match="underflow"):
        np.multiply(g, g)
    with (
        np.errstate(under="raise"),
        pytest.raises(FloatingPointError, match="underflow encountered in adam"),
    ):
        kernels.adam(g, var, m, v, **ADAM)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kernels.adam(g, var, m, v, **ADAM)  # the default: ignored
