"""Fused elementwise kernels (sigmoid, softplus, SigmoidGrad, TanhGrad in `native/kernels.py`)
against the unfused NumPy formulas they replace, bit for bit (0 ulp: the transcendental part
is NumPy's own exp/log1p, the arithmetic the same operations in the same order), and the ops
built on them against finite differences; reduce_sum/reduce_mean gradients as broadcast views;
``tf.device('')``."""

from __future__ import annotations

import math

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.core import context
from eagerkernel.runtime.native import kernels

needs_c = pytest.mark.skipif(not kernels.available(), reason="C extension not built")
FLOATS = [np.float32, np.float64]


def sample(dtype, shape=(37, 53), seed=0):
    """Normal values spread to +-40 plus the special ones: signed zeros, infinities, NaN,
    the largest and subnormal magnitudes, and the region where exp(-|x|) underflows."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 10).astype(dtype)
    info = np.finfo(dtype)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, info.max, -info.max, info.tiny / 4]
    special += [-info.tiny / 4, 88.5, -88.5, 104.0, -104.0, 745.0, -745.0, 1e-8, -1e-8]
    x.flat[: len(special)] = np.array(special, dtype)
    return x


def numpy_sigmoid(x):
    """The unfused formula ops/elementwise.py ran before the kernel (and still runs off it)."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


def numpy_softplus(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


def same_bits(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    # NaN payloads aside, the values must be identical bit for bit (0 ulp).
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got[~nan].view(np.uint8), want[~nan].view(np.uint8))


@needs_c
@pytest.mark.parametrize("dtype", FLOATS)
def test_sigmoid_kernel_is_the_numpy_formula_bit_for_bit(dtype):
    x = sample(dtype)
    with np.errstate(all="ignore"):
        want = numpy_sigmoid(x)
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # NaN input included
        got = kernels.sigmoid(x)
    same_bits(got, want)
    assert got[0, 2] == 1.0 and got[0, 3] == 0.0  # +-inf


@needs_c
@pytest.mark.parametrize("dtype", FLOATS)
def test_softplus_kernel_is_the_numpy_formula_bit_for_bit(dtype):
    x = sample(dtype, seed=1)
    with np.errstate(all="ignore"):
        want = numpy_softplus(x)
    got = kernels.softplus(x)
    same_bits(got, want)


@needs_c
@pytest.mark.parametrize("dtype", FLOATS)
def test_gradient_kernels_are_the_numpy_formulas_bit_for_bit(dtype):
    rng = np.random.default_rng(2)
    y = rng.uniform(-1, 1, (64, 33)).astype(dtype)
    g = (rng.standard_normal((64, 33)) * 100).astype(dtype)
    same_bits(kernels.sigmoid_grad(y, g), g * y * (1 - y))
    same_bits(kernels.tanh_grad(y, g), g * (1 - y * y))


@needs_c
def test_gradient_kernels_apply_numpys_error_state():
    g = np.full(4, np.finfo(np.float32).max, np.float32)
    g[1] = np.inf
    overflow = pytest.raises(FloatingPointError, match="overflow encountered in multiply")
    with np.errstate(over="raise"), overflow:
        kernels.tanh_grad(np.full(4, -2.0, np.float32), g)
    invalid = pytest.raises(FloatingPointError, match="invalid value encountered in multiply")
    with np.errstate(invalid="raise"), invalid:
        kernels.sigmoid_grad(np.zeros(4, np.float32), g)  # inf * 0
    with np.errstate(all="ignore"):
        assert np.isnan(kernels.sigmoid_grad(np.zeros(4, np.float32), g)[1])


@needs_c
def test_kernels_decline_what_they_do_not_handle():
    x = np.ones((4, 6), np.float32)
    assert kernels.sigmoid(x[:, ::2]) is None  # strided
    assert kernels.sigmoid(np.ones(3, np.int32)) is None
    assert kernels.sigmoid(np.float32(1.0)) is None  # a NumPy scalar, not an array
    assert kernels.sigmoid_grad(x, np.ones((1, 6), np.float32)) is None  # broadcasting
    assert kernels.sigmoid_grad(x, np.ones((4, 6), np.float64)) is None  # dtypes differ
    assert kernels.tanh_grad(x, np.broadcast_to(np.float32(1), (4, 6))) is None  # a view
    same_bits(kernels.sigmoid(np.array(2.0, np.float32)), numpy_sigmoid(np.float32(2.0)))


@pytest.mark.parametrize("dtype", FLOATS)
def test_ops_give_the_numpy_formula_with_or_without_the_kernel(dtype):
    x = sample(dtype, seed=3)[:, ::2]  # strided: the NumPy path; contiguous: the C path
    with np.errstate(all="ignore"):
        for t in (x, np.ascontiguousarray(x)):
            same_bits(ek.sigmoid(ek.constant(t)).numpy(), numpy_sigmoid(t))
            same_bits(ek.nn.softplus(ek.constant(t)).numpy(), numpy_softplus(t))


def numeric_gradient(f, x, eps=1e-6):
    """Central differences of the scalar function ``f`` at ``x`` (float64)."""
    grad = np.empty_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = eps
        grad.flat[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return grad


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


# op, f, f' in closed form (the second derivative is checked against differences of f')
CASES = [
    (ek.sigmoid, _sigmoid, lambda x: _sigmoid(x) * (1 - _sigmoid(x))),
    (ek.tanh, np.tanh, lambda x: 1 - np.tanh(x) ** 2),
    (ek.nn.softplus, lambda x: np.log1p(np.exp(x)), _sigmoid),
]


@pytest.mark.parametrize("op, f, fprime", CASES)
def test_first_and_second_derivatives_match_finite_differences(op, f, fprime):
    x0 = np.random.default_rng(5).uniform(-3, 3, (3, 4))
    w = np.random.default_rng(4).standard_normal(x0.shape)
    x = ek.constant(x0)
    with ek.GradientTape() as outer:
        outer.watch(x)
        with ek.GradientTape() as inner:
            inner.watch(x)
            y = ek.reduce_sum(op(x) * w)
        g = inner.gradient(y, x)
        s = ek.reduce_sum(g * w)
    want = numeric_gradient(lambda v: np.sum(f(v) * w), x0)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-6, atol=1e-9)
    want2 = numeric_gradient(lambda v: np.sum(fprime(v) * w * w), x0)
    np.testing.assert_allclose(outer.gradient(s, x).numpy(), want2, rtol=1e-6, atol=1e-9)


def test_gradient_ops_are_recorded_by_their_tensorflow_names():
    x = ek.constant(np.linspace(-2, 2, 6))
    for op, name in ((ek.sigmoid, "SigmoidGrad"), (ek.tanh, "TanhGrad")):
        with ek.GradientTape(persistent=True) as outer:
            outer.watch(x)
            with ek.GradientTape() as inner:
                inner.watch(x)
                y = op(x)
            inner.gradient(y, x)
        assert name in [r.prim.name for r in outer._records]


@pytest.mark.parametrize("reduce", [ek.reduce_sum, ek.reduce_mean])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2)])
def test_reduction_gradients_are_broadcast_views_of_the_right_value(reduce, axis):
    x0 = np.random.default_rng(6).standard_normal((3, 4, 5))
    x = ek.constant(x0)
    w = ek.constant(np.random.default_rng(7).standard_normal(reduce(x, axis=axis).shape))
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.reduce_sum(reduce(x, axis=axis) * w)
    g = tape.gradient(y, x).numpy()
    f = lambda v: np.sum(reduce(ek.constant(v), axis=axis).numpy() * w.numpy())
    np.testing.assert_allclose(g, numeric_gradient(f, x0), rtol=1e-6, atol=1e-9)


def test_mean_gradient_is_a_view_not_an_array_of_ones():
    x = ek.constant(np.ones((200, 300), np.float32))
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.reduce_mean(x)
    g = tape.gradient(y, x)
    assert g.shape == (200, 300) and g.dtype == ek.float32
    assert g._value.strides == (0, 0)  # one element, broadcast: nothing materialized
    np.testing.assert_array_equal(g.numpy(), np.full((200, 300), 1 / 60000, np.float32))


def test_mean_of_square_gradient_and_its_second_derivative():
    x0 = np.random.default_rng(8).standard_normal((4, 5))
    x = ek.constant(x0)
    with ek.GradientTape() as outer:
        outer.watch(x)
        with ek.GradientTape() as inner:
            inner.watch(x)
            y = ek.reduce_mean(ek.square(x))
        g = inner.gradient(y, x)
        z = ek.reduce_sum(g * g)
    np.testing.assert_allclose(g.numpy(), 2 * x0 / 20, rtol=1e-12)
    np.testing.assert_allclose(outer.gradient(z, x).numpy(), 8 * x0 / 400, rtol=1e-12)


def test_empty_device_name_adds_no_constraint():
    before = list(context.ACTIVE)
    with ek.device(""):
        assert list(context.ACTIVE) == before  # ops keep the fast path
        assert ek.constant(1.0).device.endswith("CPU:0")
    with ek.device("/cpu:0"), ek.device("  "):
        assert context.context().device.name == "/cpu:0"  # the outer scope stays in force
    with pytest.raises(ValueError, match="cannot parse device name"):
        ek.device("cpu-zero")


QUIET_SCOPE_CHILD = """
import json
import eagerkernel as ek
from eagerkernel.runtime.core import context
seen = {}
with ek.device("/cpu:0"):
    seen["quiet"] = (list(context.ACTIVE), context.context().device.name)
    seen["value"] = float(ek.constant(2.0) * 3.0)
    ek.config.experimental.set_virtual_gpus(1)  # a second device appears inside the scope
    seen["active"] = [d.name for d in context.ACTIVE]
    with ek.device("/gpu:0"):
        g = ek.constant([1.0, 2.0])
    y = g * 2.0  # the CPU scope moves the GPU input now
    seen["placed"] = (g.device[-5:], y.device[-5:])
seen["after"] = list(context.ACTIVE)
print(json.dumps(seen))
"""


def test_a_scope_on_the_only_device_keeps_the_fast_path_until_another_appears():
    import json
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "EAGERKERNEL_VIRTUAL_GPUS"}
    out = subprocess.run(
        [sys.executable, "-c", QUIET_SCOPE_CHILD], capture_output=True, text=True, env=env
    )
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    if seen["active"] == []:
        pytest.skip("set_virtual_gpus did not add a GPU here")
    assert seen["quiet"] == [[], "/cpu:0"]  # no token: ops inside run the fast path
    assert seen["value"] == 6.0
    assert seen["active"] == ["/cpu:0"]  # the open scope got its token
    assert seen["placed"] == ["GPU:0", "CPU:0"]
    assert seen["after"] == []


def ulps(got, want):
    """|got - want| in units in the last place, float32, NaN positions required equal."""
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    a = got[~nan].view(np.int32).astype(np.int64)
    b = want[~nan].view(np.int32).astype(np.int64)
    a = np.where(a < 0, -(a & 0x7FFFFFFF), a)  # sign-magnitude to a monotone integer line
    b = np.where(b < 0, -(b & 0x7FFFFFFF), b)
    return np.abs(a - b)


def float32_grid(step=9973):
    """Every ``step``-th float32 bit pattern of either sign, plus the special values."""
    x = np.arange(0, 0x7F800000, step, dtype=np.uint32).view(np.float32)
    special = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 3.92, -3.92, 4.0, 1e-45], np.float32)
    return np.concatenate([x, -x, special])


@needs_c
def test_erf_kernel_is_within_1_ulp_of_scipys_float32_erf():
    special = pytest.importorskip("scipy.special")
    x = float32_grid()
    d = ulps(kernels.erf(x), special.erf(x))
    assert d.max() <= 1
    assert np.count_nonzero(d) <= x.size // 100  # and equal to it almost everywhere
    got = kernels.erf(np.array([-0.0, np.inf, -np.inf], np.float32))
    assert np.signbit(got[0]) and got[1] == 1.0 and got[2] == -1.0


@needs_c
def test_gelu_kernel_is_the_numpy_formula_around_its_erf():
    special = pytest.importorskip("scipy.special")
    x = float32_grid(step=7919)
    half = np.float32(math.sqrt(0.5))
    with np.errstate(all="ignore"):
        # bit for bit: NumPy's float32 operations in NumPy's order around the kernel's erf
        same_bits(kernels.gelu(x), 0.5 * x * (1 + kernels.erf(x * half)))
        today = 0.5 * x * (1 + special.erf(x * half))  # the formula with SciPy's erf
    got = kernels.gelu(x)
    # erf's 1 ulp: at most 1 ulp of the result for x >= 0, where 1 + erf is in [1, 2].
    # Below 0, 1 + erf cancels: erf's 1 ulp (<= 2**-24) moves 1 + erf by at most one of its
    # own ulps (<= 2**-24 below 1), i.e. the result by 0.5 |x| 2**-24, plus its rounding.
    pos = x >= 0
    assert ulps(got[pos], today[pos]).max() <= 1
    finite = np.isfinite(x) & ~pos
    gap = np.abs(got[finite].astype(np.float64) - today[finite])
    bound = 0.5 * np.abs(x[finite].astype(np.float64)) * 2.0**-24 * 1.01
    ulp = np.spacing(np.abs(today[finite])).astype(np.float64)
    assert np.all(gap <= bound + 2 * ulp)


@needs_c
def test_erf_and_gelu_kernels_take_float32_only():
    assert kernels.erf(np.ones(3)) is None  # float64: SciPy's double erf runs
    assert kernels.gelu(np.ones(3, np.float32)[::2]) is None


@pytest.mark.parametrize("approximate", [False, True])
def test_gelu_first_derivative_matches_finite_differences(approximate):
    x0 = np.random.default_rng(9).uniform(-4, 4, (3, 5))
    w = np.random.default_rng(10).standard_normal(x0.shape)
    x = ek.constant(x0)
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.reduce_sum(ek.nn.gelu(x, approximate=approximate) * w)
    f = lambda v: np.sum(ek.nn.gelu(ek.constant(v), approximate=approximate).numpy() * w)
    np.testing.assert_allclose(
        tape.gradient(y, x).numpy(), numeric_gradient(f, x0), rtol=1e-6, atol=1e-9
    )


def test_gelu_float32_op_matches_float64_closely():
    x = np.random.default_rng(11).uniform(-6, 6, 1000)
    got = ek.nn.gelu(ek.constant(x.astype(np.float32))).numpy()
    np.testing.assert_allclose(got, ek.nn.gelu(ek.constant(x)).numpy(), rtol=2e-6, atol=1e-7)


def test_erf_keeps_half_and_double_precision_dtypes():
    # float16 goes through SciPy, which computes in float64: the result is cast back.
    for dtype in (ek.float16, ek.float64):
        x = ek.constant([-1.0, 0.25, 2.0], dtype)
        y = ek.math.erf(x)
        assert y.dtype == dtype
        np.testing.assert_allclose(
            y.numpy().astype(np.float64), [-0.8427008, 0.2763264, 0.9953223], rtol=1e-3
        )
