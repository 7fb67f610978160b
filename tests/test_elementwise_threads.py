"""The elementwise programs of `native/kernels.py` (NumPy's ufunc loops and the C passes, run
block by block and on several threads for big arrays) against the NumPy formulas they
replace, bit for bit, on one thread and on several; their floating-point flags from every
thread; `ek.config.threading`; the SoftplusGrad and GeluGrad ops against finite differences;
and `ek.function`'s ``reduce_sum(a * b)`` compiled as a dot product."""

from __future__ import annotations

import math
import os
import warnings

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.native import kernels

needs_c = pytest.mark.skipif(not kernels.available(), reason="C extension not built")
FLOATS = [np.float32, np.float64]
# sizes around the block (1024) and the threads' split, odd ones included
SIZES = [1, 7, 1023, 1025, 4099, 2 * kernels.PARALLEL_MIN + 13]
SQRT_HALF = math.sqrt(0.5)
INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def sample(dtype, n, seed=0):
    """Values spread to +-40, with signed zeros, infinities, NaN, the largest and subnormal
    magnitudes and exp's overflow and underflow edges among them."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 10).astype(dtype)
    info = np.finfo(dtype)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, info.max, -info.max, info.tiny / 4]
    special += [-info.tiny / 4, 88.5, -88.5, 104.0, -104.0, 745.0, -745.0, 1e-8, -1e-8]
    k = min(n, len(special))
    x[:k] = np.array(special[:k], dtype)
    if n > 2 * len(special):  # the same again at the end: the last thread's part
        x[-k:] = np.array(special[:k], dtype)
    return x


def same_bits(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got[~nan].view(np.uint8), want[~nan].view(np.uint8))


def np_sigmoid(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


def np_gelu_grad(g, x):
    """ops/activations.py's GeluGrad formula, op by op (erf: the C erf, tested against SciPy
    in test_fused_elementwise.py)."""
    cdf = 0.5 * (1 + kernels.erf(x * np.float32(SQRT_HALF)))
    return g * (cdf + x * np.exp(-0.5 * x * x) * np.float32(INV_SQRT_2PI))


# name -> (number of inputs, the NumPy formula, dtypes)
TWINS = {
    "sigmoid": (1, np_sigmoid, FLOATS),
    "softplus": (1, lambda x: np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0), FLOATS),
    "tanh": (1, np.tanh, FLOATS),
    "exp": (1, np.exp, FLOATS),
    "relu": (1, lambda x: np.maximum(x, 0), FLOATS),
    "sigmoid_grad": (2, lambda g, y: g * y * (1 - y), FLOATS),
    "tanh_grad": (2, lambda g, y: g * (1 - y * y), FLOATS),
    "relu_grad": (2, lambda g, x: np.multiply(g, x > 0, dtype=g.dtype), FLOATS),
    "softplus_grad": (2, lambda g, x: g * np_sigmoid(x), FLOATS),
    "gelu_grad": (2, np_gelu_grad, [np.float32]),
}
CASES = [(name, dtype) for name, (_, _, dtypes) in TWINS.items() for dtype in dtypes]


def inputs(name, dtype, n):
    count = TWINS[name][0]
    x = sample(dtype, n)
    if count == 1:
        return (x,)
    g = sample(dtype, n, seed=1)[::-1].copy()  # specials against other specials
    if name in ("sigmoid_grad", "tanh_grad"):
        x = np.tanh(x)  # y, an activation's output (NaN kept)
    return g, x


@needs_c
@pytest.mark.parametrize(("name", "dtype"), CASES)
@pytest.mark.parametrize("n", SIZES)
def test_programs_are_the_numpy_formulas_bit_for_bit_on_any_thread_count(name, dtype, n):
    args = inputs(name, dtype, n)
    with np.errstate(all="ignore"):
        want = TWINS[name][1](*args)
        for threads in (1, 2, 3):
            same_bits(kernels._run(name, *args, threads=threads), want)


@needs_c
def test_big_arrays_run_on_several_threads_and_small_ones_on_one(monkeypatch):
    seen = []
    run = kernels._kernels.run
    monkeypatch.setattr(kernels._kernels, "run", lambda *a: seen.append(a[3]) or run(*a))
    monkeypatch.setattr(kernels, "_threads", [4])
    x = sample(np.float32, kernels.PARALLEL_MIN - 1)
    kernels.sigmoid(x)
    kernels.sigmoid(sample(np.float32, 4 * kernels.PARALLEL_MIN))
    kernels.sigmoid(sample(np.float32, kernels.PARALLEL_MIN))  # parts of PARALLEL_MIN / 2
    assert seen == [1, 4, 2]
    assert kernels.tanh(x) is None and kernels.exp(x) is None and kernels.relu(x) is None


@needs_c
def test_the_ops_run_the_programs_on_big_arrays():
    x = sample(np.float32, 3 * kernels.PARALLEL_MIN + 5)
    t = ek.constant(x)
    with np.errstate(all="ignore"):
        same_bits(ek.tanh(t).numpy(), np.tanh(x))
        same_bits(ek.nn.relu(t).numpy(), np.maximum(x, 0))
        same_bits(ek.sigmoid(t).numpy(), np_sigmoid(x))
        want = np.exp(x)
    with pytest.warns(RuntimeWarning, match="overflow encountered in exp"):
        same_bits(ek.exp(t).numpy(), want)
    assert kernels.tanh(1.0) is None  # not an array: NumPy's path


@needs_c
def test_runs_from_several_python_threads_at_once_are_each_right():
    # One run holds the pool; another thread's run meanwhile computes on its own thread.
    from concurrent.futures import ThreadPoolExecutor

    arrays = [sample(np.float64, 2 * kernels.PARALLEL_MIN + k, seed=k) for k in range(8)]
    with np.errstate(all="ignore"):
        wants = [np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0) for x in arrays]
        with ThreadPoolExecutor(4) as pool:
            gots = list(pool.map(lambda x: kernels._run("softplus", x, threads=2), arrays))
    for got, want in zip(gots, wants):
        same_bits(got, want)


@needs_c
def test_the_kernels_decline_strided_broadcast_and_other_arrays():
    x = np.linspace(-5, 5, 4 * kernels.PARALLEL_MIN, dtype=np.float32).reshape(-1, 64)
    g = np.ones_like(x)
    assert kernels.sigmoid(x[:, ::2]) is None  # strided
    assert kernels.sigmoid_grad(x, g[:1]) is None  # broadcast shapes
    assert kernels.sigmoid_grad(x, g.astype(np.float64)) is None  # mixed dtypes
    assert kernels.tanh(x.astype(np.float16)) is None  # (x's infinities stay infinite)
    assert kernels.gelu_grad(g.astype(np.float64), x.astype(np.float64)) is None  # float32 only


@needs_c
@pytest.mark.parametrize("dtype", FLOATS)
def test_the_ops_on_strided_and_broadcast_inputs_take_numpys_path(dtype):
    # What the kernels decline (strided, broadcast) the ops compute with the NumPy formula.
    from eagerkernel.runtime.ops import activations, elementwise

    x = sample(dtype, 4 * kernels.PARALLEL_MIN).reshape(-1, 64)
    with np.errstate(all="ignore"):
        same_bits(elementwise.sigmoid_fwd(np, x[:, ::3]), np_sigmoid(x[:, ::3]))
        same_bits(elementwise._tanh_fwd(np, x[::2]), np.tanh(x[::2]))
        g = np.full((1, 64), 0.5, dtype)
        same_bits(activations._softplus_grad_fwd(np, g, x), g * np_sigmoid(x))
        same_bits(activations._relu_fwd(np, x.T), np.maximum(x.T, 0))


@needs_c
def test_flags_raised_in_a_worker_thread_are_reported():
    # The overflow is only in the last part of the array (another thread's on 2 threads).
    x = np.zeros(4 * kernels.PARALLEL_MIN, np.float32)
    x[-3] = 100.0
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError, match="overflow encountered in exp"):
            kernels._run("exp", x, threads=2)
        g = np.full_like(x, 3e38)
        y = np.zeros_like(x)
        y[-5] = -2.0  # 1 - y * y = -3: 3e38 * -3 overflows
        with pytest.raises(FloatingPointError, match="overflow encountered in multiply"):
            kernels._run("tanh_grad", g, y, threads=2)
    with pytest.warns(RuntimeWarning, match="overflow encountered in exp"):
        ek.exp(ek.constant(x))
    with np.errstate(all="raise"):  # NaN compared in sigmoid's select: not reported
        x[7] = np.nan
        assert np.isnan(kernels._run("sigmoid", x, threads=2)[7])


@needs_c
@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork()")
def test_a_forked_child_starts_its_own_threads():
    x = sample(np.float32, 4 * kernels.PARALLEL_MIN)
    want = kernels._run("sigmoid", x, threads=2)  # the parent's workers exist now
    pid = os.fork()
    if pid == 0:  # the child: no workers were inherited; new ones must start and finish
        ok = np.array_equal(kernels._run("sigmoid", x, threads=2), want, equal_nan=True)
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def _thread_cpus() -> dict:
    """The CPUs each thread of this process may run on (Linux's /proc)."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{tid}/status") as f:
            for line in f:
                if line.startswith("Cpus_allowed_list:"):
                    out[int(tid)] = line.split(":", 1)[1].strip()
    return out


def _cpu_list(text: str) -> set:
    cpus = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


@needs_c
@pytest.mark.skipif(
    not os.path.isdir("/proc/self/task") or len(os.sched_getaffinity(0)) < 2,
    reason="Linux with two CPUs or more",
)
def test_workers_moved_off_the_callers_cpu_stay_within_the_processes_cpus():
    """A worker that last ran on the calling thread's CPU is given the caller's CPUs but that
    one: never an empty set, never a CPU outside the caller's, and the results unchanged."""
    import threading

    x = sample(np.float32, 4 * kernels.PARALLEL_MIN)
    want = kernels._run("sigmoid", x, threads=1)
    allowed = set(os.sched_getaffinity(0))
    for _ in range(40):  # enough runs for the scheduler to put a worker on our CPU now and then
        got = kernels._run("sigmoid", x, threads=2)
        assert np.array_equal(got, want, equal_nan=True)
    me = threading.get_native_id()
    for tid, text in _thread_cpus().items():
        cpus = _cpu_list(text)
        assert cpus and cpus <= allowed, (tid, text)
        if tid == me:
            assert cpus == allowed  # the caller's own affinity is never touched


@needs_c
def test_threads_follow_the_intra_op_setting(monkeypatch):
    seen = []
    run = kernels._kernels.run
    monkeypatch.setattr(kernels._kernels, "run", lambda *a: seen.append(a[3]) or run(*a))
    x = ek.constant(sample(np.float32, 8 * kernels.PARALLEL_MIN))
    before = ek.config.threading.get_intra_op_parallelism_threads()
    try:
        ek.config.threading.set_intra_op_parallelism_threads(1)
        assert ek.config.threading.get_intra_op_parallelism_threads() == 1
        one = ek.sigmoid(x).numpy()
        ek.config.threading.set_intra_op_parallelism_threads(3)
        three = ek.sigmoid(x).numpy()
    finally:
        ek.config.threading.set_intra_op_parallelism_threads(before)
    assert seen == [1, 3]
    same_bits(one, three)


def test_intra_op_setting_rejects_bad_values():
    with pytest.raises(ValueError, match="set_intra_op_parallelism_threads: num_threads"):
        ek.config.threading.set_intra_op_parallelism_threads(-1)
    with pytest.raises(TypeError, match="set_intra_op_parallelism_threads: num_threads"):
        ek.config.threading.set_intra_op_parallelism_threads(2.0)
    assert ek.config.threading.get_intra_op_parallelism_threads() == 0


# -- SoftplusGrad and GeluGrad -----------------------------------------------------------


def finite_difference(f, x, eps=1e-6):
    """Central differences of a scalar function of a float64 array, element by element."""
    out = np.empty_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = eps
        out.flat[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return out


@pytest.mark.parametrize("op", ["softplus", "gelu"])
def test_first_and_second_gradients_match_finite_differences(op):
    f = {"softplus": ek.nn.softplus, "gelu": ek.nn.gelu}[op]
    x0 = np.linspace(-4, 4, 9)
    w = np.linspace(0.5, 1.5, 9)  # a weighted sum: each element's own cotangent

    def loss(v):
        return float(ek.reduce_sum(f(ek.constant(v)) * w))

    def grad(v):
        x = ek.constant(v)
        with ek.GradientTape() as tape:
            tape.watch(x)
            y = ek.reduce_sum(f(x) * w)
        return tape.gradient(y, x).numpy()

    np.testing.assert_allclose(grad(x0), finite_difference(loss, x0), rtol=1e-7, atol=1e-9)
    # second order: the gradient of sum(grad * u)
    u = np.linspace(-1, 1, 9)
    x = ek.constant(x0)
    with ek.GradientTape() as outer:
        outer.watch(x)
        with ek.GradientTape() as inner:
            inner.watch(x)
            y = ek.reduce_sum(f(x) * w)
        gx = inner.gradient(y, x)
        z = ek.reduce_sum(gx * u)
    want = finite_difference(lambda v: float(np.sum(grad(v) * u)), x0)
    np.testing.assert_allclose(outer.gradient(z, x).numpy(), want, rtol=1e-6, atol=1e-8)


@needs_c
@pytest.mark.parametrize("op", ["softplus", "gelu"])
def test_float32_gradients_are_the_same_with_and_without_the_extension(op, monkeypatch):
    f = {"softplus": ek.nn.softplus, "gelu": ek.nn.gelu}[op]
    x = ek.constant(sample(np.float32, 3001))
    g = ek.constant(sample(np.float32, 3001, seed=4))

    def grad():
        with ek.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return tape.gradient(y, x, output_gradients=g).numpy()

    with np.errstate(all="ignore"):
        with_c = grad()
        monkeypatch.setattr(kernels, "_kernels", None)
        if op == "gelu":  # without the extension erf is SciPy's (1 ulp away, at most)
            pytest.importorskip("scipy")
            without = grad()
            ok = np.isfinite(without) & (np.abs(x.numpy()) < 1e30)
            np.testing.assert_array_equal(np.isnan(with_c), np.isnan(without))
            # the erf's ulp, scaled by |g| (cdf + x * pdf cancels for negative x)
            scale = np.abs(g.numpy()[ok]) * 2e-7
            np.testing.assert_array_less(np.abs(with_c[ok] - without[ok]), scale + 1e-37)
        else:
            same_bits(with_c, grad())


# -- reduce_sum(a * b) in ek.function ------------------------------------------------------


def _sources(fn) -> str:
    """The generated source of every program a Function compiled, branches included."""
    out = []
    todo = [e.program for e in fn._cache.values() if e.program is not None]
    while todo:
        program = todo.pop()
        out.append(program.source)
        todo += program.branches.values()
    return "\n".join(out)


@pytest.mark.parametrize("dtype", FLOATS)
def test_reduce_sum_of_a_product_compiles_to_a_dot(dtype):
    rng = np.random.default_rng(5)
    a = ek.constant(rng.standard_normal((300, 7)).astype(dtype))
    b = ek.constant(rng.standard_normal((300, 7)).astype(dtype))
    dot = ek.function(lambda a, b: ek.reduce_sum(a * b))
    dot(a, b)  # traces
    assert "DOT(" in _sources(dot)
    got = dot(a, b)  # replays the compiled program
    assert got.dtype == a.dtype and got.shape == ()
    # NumPy's pairwise order: the eager value bit for bit
    assert got.numpy().tobytes() == ek.reduce_sum(a * b).numpy().tobytes()
    strided = ek.constant(rng.standard_normal((300, 14)).astype(dtype))[:, ::2]
    assert dot(strided, b).numpy().tobytes() == ek.reduce_sum(strided * b).numpy().tobytes()


@needs_c
@pytest.mark.parametrize("dtype", FLOATS)
def test_mul_sum_is_numpys_sum_of_the_product_bit_for_bit(dtype):
    rng = np.random.default_rng(6)
    for shape in [(0,), (1,), (7,), (8,), (129,), (1000,), (8193,), (153664,), (3, 4, 5)]:
        a = (rng.standard_normal(shape) * 1e3).astype(dtype)
        b = rng.standard_normal(shape).astype(dtype)
        got = kernels.mul_sum(a, b)
        assert type(got) is np.dtype(dtype).type
        assert got.tobytes() == np.sum(a * b).tobytes(), shape
    z = np.full(9, -0.0, dtype)
    assert kernels.mul_sum(z, np.ones_like(z)).tobytes() == np.sum(z).tobytes()  # +0
    big = np.full(4, np.finfo(dtype).max, dtype)
    with np.errstate(over="ignore"):
        assert kernels.mul_sum(big, big) == np.inf
    with np.errstate(over="raise"):
        assert kernels.mul_sum(big, big) is None  # the caller's NumPy multiply raises
    assert kernels.mul_sum(a[:, ::2], b[:, ::2]) is None


def test_the_dot_is_not_used_where_the_product_is_needed_or_shapes_broadcast():
    a = ek.constant(np.arange(12.0).reshape(3, 4))
    b = ek.constant(np.linspace(0, 1, 12).reshape(3, 4))
    row = ek.constant(np.linspace(0, 1, 4))
    cases = {
        "product also returned": lambda a, b: (ek.reduce_sum(p := a * b), p),
        "broadcast": lambda a, b: ek.reduce_sum(a * row),
        "partial axis": lambda a, b: ek.reduce_sum(a * b, axis=0),
        "keepdims": lambda a, b: ek.reduce_sum(a * b, keepdims=True),
    }
    for what, f in cases.items():
        fn = ek.function(f)
        eager = f(a, b)
        fn(a, b)
        got = fn(a, b)
        assert "DOT(" not in _sources(fn), what
        for u, v in zip(ek.nest.flatten(got), ek.nest.flatten(eager)):
            np.testing.assert_array_equal(u.numpy(), v.numpy())


def test_a_state_change_between_the_product_and_the_sum_keeps_the_order():
    v = ek.Variable(np.ones(4))
    c = ek.constant(np.full(4, 2.0))

    @ek.function
    def f():
        p = v * c
        v.assign_add(np.ones(4))  # after the product: the sum must see the old v
        return ek.reduce_sum(p)

    assert float(f()) == 8.0
    assert float(f()) == 16.0  # replayed: v was 2, then becomes 3
    assert "DOT(" not in _sources(f)


def test_the_dots_gradient_inside_a_function_matches_finite_differences():
    w = np.linspace(-1, 1, 12)

    @ek.function
    def value_and_grad(x, y):
        with ek.GradientTape() as tape:
            tape.watch(x)
            loss = ek.reduce_sum(ek.sin(x) * y)
        return loss, tape.gradient(loss, x)

    x0 = np.linspace(-2, 2, 12)
    y = ek.constant(w)
    value_and_grad(ek.constant(x0), y)  # traces
    assert "DOT(" in _sources(value_and_grad)
    loss, grad = value_and_grad(ek.constant(x0), y)
    np.testing.assert_allclose(float(loss), np.sum(np.sin(x0) * w), rtol=1e-13)

    def f(v):
        return float(value_and_grad(ek.constant(v), y)[0])

    np.testing.assert_allclose(grad.numpy(), finite_difference(f, x0), rtol=1e-7, atol=1e-9)
    # under an outer tape the program replays op by op: the eager gradient exactly
    x = ek.constant(x0)
    with ek.GradientTape() as tape:
        tape.watch(x)
        loss, _ = value_and_grad(x, y)
    with ek.GradientTape() as eager_tape:
        eager_tape.watch(x)
        eager_loss = ek.reduce_sum(ek.sin(x) * y)
    np.testing.assert_array_equal(
        tape.gradient(loss, x).numpy(), eager_tape.gradient(eager_loss, x).numpy()
    )


# -- multiply: ek.multiply's array function ---------------------------------------------------


def multiply_cases():
    """Pairs that must come back as NumPy's ``a * b``, big and small, kernel and fallback."""
    big = kernels.PARALLEL_MIN + 77
    rng = np.random.default_rng(11)
    f32 = rng.standard_normal((2, big)).astype(np.float32)
    f64 = rng.standard_normal((2, big))
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-45, 3e38], np.float32)
    f32[0, : specials.size], f32[1, -specials.size :] = specials, specials
    swapped = f64[0].astype(">f8")
    return {
        "float32": (f32[0], f32[1]),
        "float64": (f64[0].reshape(-1, 1), f64[1].reshape(-1, 1)),
        "small": (f32[0, :100], f32[1, :100]),
        "broadcast": (f32[0].reshape(-1, 1)[:1000], f32[1, :7]),
        "strided": (f32[0, ::2], f32[1, ::2]),
        "mixed dtypes": (f32[0], f64[1]),
        "int32": (np.arange(big, dtype=np.int32), np.arange(big, dtype=np.int32)),
        "byte-swapped": (swapped, swapped),
        "0-d and scalar": (np.float32(3.0), 2.5),
    }


@needs_c
@pytest.mark.parametrize("case", list(multiply_cases()))
def test_multiply_is_numpys_product_bit_for_bit(case):
    a, b = multiply_cases()[case]
    with np.errstate(all="ignore"):
        want = a * b
        for threads in (1, 2, 3):
            kernels.set_num_threads(threads)
            try:
                got = kernels.multiply(a, b)
            finally:
                kernels.set_num_threads(0)
            assert type(got) is type(want) and np.shape(got) == np.shape(want)
            assert np.asarray(got).dtype == np.asarray(want).dtype
            same_bits(np.asarray(got), np.asarray(want))


@needs_c
def test_multiply_handles_the_ieee_flags_as_numpy():
    n = kernels.PARALLEL_MIN + 5
    a = np.full(n, 3e38, np.float32)
    tiny = np.full(n, 1e-30, np.float32)
    with pytest.warns(RuntimeWarning, match="overflow encountered in multiply"):
        same_bits(kernels.multiply(a, a), np.full(n, np.inf, np.float32))
    with np.errstate(over="raise"), pytest.raises(FloatingPointError, match="overflow"):
        kernels.multiply(a, a)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # underflow: ignored by NumPy's default policy
        same_bits(kernels.multiply(tiny, tiny), tiny * tiny)
    with np.errstate(under="raise"), pytest.raises(FloatingPointError, match="underflow"):
        kernels.multiply(tiny, tiny)
    with pytest.raises(TypeError, match="multiply: takes 2 arguments, got 3"):
        kernels._kernels.multiply(a, a, a)


@needs_c
def test_multiply_follows_the_intra_op_setting():
    before = ek.config.threading.get_intra_op_parallelism_threads()
    try:
        ek.config.threading.set_intra_op_parallelism_threads(3)
        assert kernels._kernels._configure_multiply()[2] == 3
        ek.config.threading.set_intra_op_parallelism_threads(1)
        assert kernels._kernels._configure_multiply() == (
            kernels.PARALLEL_MIN,
            kernels.STREAM_MIN,
            1,
        )
    finally:
        ek.config.threading.set_intra_op_parallelism_threads(before)
    assert kernels._kernels._configure_multiply()[2] == min(64, kernels._default_threads())


@needs_c
def test_ek_multiply_and_the_exp_gradient_use_it():
    x = sample(np.float32, 2 * kernels.PARALLEL_MIN + 3)
    g = sample(np.float32, x.size)
    tx, tg = ek.constant(x), ek.constant(g)
    with np.errstate(all="ignore"):  # inf * 0 among the samples
        same_bits(ek.multiply(tx, tg).numpy(), x * g)
        same_bits((tx * tg).numpy(), x * g)
        with ek.GradientTape() as tape:
            tape.watch(tx)
            y = ek.exp(tx)
            z = tx * tg  # recorded: the observed path calls the same function
        dx = tape.gradient([y, z], tx, output_gradients=[tg, tg])
        same_bits(dx.numpy(), (g * np.exp(x)) + g * g)
