"""The elementwise kernels of `native/kernels.py` over (nearly) every float32, not a sample.

The float32 sigmoid, softplus, SoftplusGrad and GELU gradient compute exp with a C loop of
their own (``_EXP32``: the algorithm of NumPy's SIMD float32 exp, in AVX-512F intrinsics and
in portable C) instead of calling NumPy's exp loop block by block, and ReLU is a C select
instead of NumPy's ``maximum`` loop. The
claim is that nothing changed: each result is the NumPy formula's, bit for bit (0 ulp). These
tests check it on every float32 whose bit pattern is a multiple of 7 (the whole range for
exp, [-128, 128] for the ops) plus the special values: subnormals, +-0, +-inf, NaNs of both
signs, and the overflow and underflow thresholds with their neighbours. They also check the
floating-point error flags against NumPy's under ``np.errstate``, and that the streaming
stores of big outputs (misaligned too) and the thread count leave the bits alone.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from eagerkernel.runtime.native import kernels

needs_exp32 = pytest.mark.skipif(
    not kernels.available() or not kernels._kernels.CPU_FMA,
    reason="C extension not built, or a CPU without FMA (np.exp runs another loop there)",
)
CHUNK = 1 << 22
STEP = 7


@pytest.fixture(params=["native", "portable"])
def path(request):
    """Runs the test with the exp passes' AVX-512F intrinsics (where the CPU has them: else
    the portable C again) and with the portable C (GCC's clones); yields the sweep's step, the
    portable path's five times coarser."""
    before = kernels._kernels._use_avx512(request.param == "native")
    try:
        yield STEP if request.param == "native" else 5 * STEP
    finally:
        kernels._kernels._use_avx512(before)


def float32_sweep(limit: float | None, step: int = STEP):
    """Yields chunks of the float32s with bit patterns ``0, step, 2 step, ...`` of both signs,
    up to ``limit`` in magnitude (None: every pattern, NaNs included), then the specials."""
    top = (1 << 31) if limit is None else int(np.float32(limit).view(np.int32)) + 1
    for start in range(0, top, step * CHUNK):
        bits = np.arange(start, min(top, start + step * CHUNK), step, dtype=np.int64)
        yield bits.astype(np.uint32).view(np.float32)
        yield (bits + (1 << 31)).astype(np.uint32).view(np.float32)
    yield specials()


def specials():
    base = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 1e-40, -1e-40, 1.1754944e-38],
        np.float32,
    )
    edges = np.array(
        [88.72283935546875, -103.97208404541015625, 87.33654, -87.33654, 1.0, 0.5, 103.0, -88.0],
        np.float32,
    )
    near = (edges.view(np.int32)[:, None] + np.arange(-4, 5, dtype=np.int32)).view(np.float32)
    signalling = np.array([0x7F800001, 0xFF800001, 0x7FBFFFFF], np.uint32).view(np.float32)
    return np.concatenate([base, near.ravel(), signalling])


def same_bits(got, want, x):
    """Equal bit for bit; NaNs only need to be NaNs (NumPy's loops differ in the payload)."""
    nan = np.isnan(want)
    bad = (np.isnan(got) != nan) | (~nan & (got.view(np.int32) != want.view(np.int32)))
    assert not bad.any(), (
        f"{bad.sum()} differ, first at x = {x[bad][:5]}: {got[bad][:5]} vs {want[bad][:5]}"
    )


def numpy_sigmoid(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


@needs_exp32
def test_exp32_is_np_exp_bit_for_bit_on_every_7th_float32(path):
    prog = kernels._kernels.program("f", 1, (), ((kernels._EXP32, (kernels._X0, kernels._OUT)),))
    for x in float32_sweep(None, path):
        out = np.empty_like(x)
        kernels._kernels.run(prog, (x,), out, 2)
        with np.errstate(all="ignore"):
            want = np.exp(x)
        # NaN in, NumPy's default NaN out: here the payload is compared too
        np.testing.assert_array_equal(out.view(np.uint32), want.view(np.uint32))


def _run(name, *arrays):
    return kernels._run(name, *arrays, threads=2)


@needs_exp32
@pytest.mark.parametrize("name", ["sigmoid", "softplus_grad"])
def test_sigmoid_passes_are_numpys_on_every_7th_float32_of_the_whole_range(name, path):
    """The sigmoid and SoftplusGrad passes (AVX-512F: exp without case masks, its argument
    raised to -150) against NumPy's formula on every 7th bit pattern, NaNs and the range
    beyond +-150 included (``benchmarks/exhaustive_float32.py`` does all 2^32)."""
    for x in float32_sweep(None, path):
        ones = np.ones_like(x)
        with np.errstate(all="ignore"):
            got = _run("sigmoid", x) if name == "sigmoid" else _run(name, ones, x)
            same_bits(got, numpy_sigmoid(x), x)


@needs_exp32
@pytest.mark.parametrize("name", ["softplus", "relu"])
def test_forward_kernels_are_the_numpy_formula_on_every_7th_float32(name, path):
    formula = {
        "sigmoid": numpy_sigmoid,
        "softplus": lambda x: np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0),
        "relu": lambda x: np.maximum(x, 0),
    }[name]
    for x in float32_sweep(128.0, path):
        with np.errstate(all="ignore"):
            got, want = _run(name, x), formula(x)
        assert want.dtype == np.float32
        same_bits(got, want, x)


@needs_exp32
@pytest.mark.parametrize("name", ["softplus_grad", "gelu_grad"])
def test_gradient_kernels_are_the_numpy_formula_on_every_7th_float32(name, path):
    sqrt_half, inv_sqrt_2pi = math.sqrt(0.5), 1 / math.sqrt(2 * math.pi)

    def gelu_grad(g, x):  # the float32 NumPy steps of the C-less program, in its order
        erf = kernels._run("erf", x * np.float32(sqrt_half), threads=1)
        cdf = np.float32(0.5) * (np.float32(1.0) + erf)
        pdf = (x * np.exp((np.float32(-0.5) * x) * x)) * np.float32(inv_sqrt_2pi)
        return g * (cdf + pdf)

    formula = {"softplus_grad": lambda g, x: g * numpy_sigmoid(x), "gelu_grad": gelu_grad}[name]
    rng = np.random.default_rng(7)
    for x in float32_sweep(128.0, 3 * path):
        g = rng.standard_normal(x.size).astype(np.float32) * 3
        with np.errstate(all="ignore"):
            got, want = _run(name, g, x), formula(g, x)
        same_bits(got, want, x)


@needs_exp32
def test_exp32_programs_match_the_programs_calling_numpys_exp(path):
    """The two tables of programs (C exp or NumPy's exp loop) give the same bits and flags;
    the C ones are in use (the first-use check against np.exp passed)."""
    assert kernels._exp32_matches()
    x = np.concatenate([specials(), np.linspace(-120, 120, 200001, dtype=np.float32)])
    g = np.random.default_rng(3).standard_normal(x.size).astype(np.float32)
    for name, program in kernels._PROGRAMS_EXP32.items():
        ninputs, consts, steps = kernels._PROGRAMS[name]
        old = kernels._kernels.program("f", ninputs, consts, steps)
        new = kernels._kernels.program("f", *program)
        inputs = (x,) if ninputs == 1 else (g, x)
        a, b = np.empty_like(x), np.empty_like(x)
        flags_old = kernels._kernels.run(old, inputs, a, 1)
        flags_new = kernels._kernels.run(new, inputs, b, 1)
        same_bits(b, a, x)
        assert flags_new == flags_old, name


@needs_exp32
@pytest.mark.parametrize("name", ["sigmoid", "softplus", "softplus_grad", "gelu_grad"])
def test_error_flags_follow_errstate_as_before(name, path):
    """Subnormal and flushed results of exp raise underflow; NumPy ignores it by default and
    the kernels report it as their NumPy formula's last operation when asked to."""
    x = np.array([-200.0, -90.0, -1.0, 0.0, 3.0], np.float32)
    g = np.ones_like(x)
    args = (x,) if name in ("sigmoid", "softplus") else (g, x)
    with np.errstate(all="raise", under="ignore"):
        kernels._run(name, *args)  # nothing but underflow happens here
    if name == "sigmoid":  # the sigmoid ignores exp's underflow, as its formula's where() did
        with np.errstate(under="raise"):
            kernels._run(name, *args)
        return
    with np.errstate(under="raise"), pytest.raises(FloatingPointError, match="underflow"):
        kernels._run(name, *args)


@needs_exp32
def test_streamed_output_misaligned_and_threads_give_the_same_bits(path):
    rng = np.random.default_rng(4)
    n = kernels.STREAM_MIN // 4 + 12345
    x = (rng.standard_normal(n + 1) * 20).astype(np.float32)[1:]  # misaligned input
    prog = kernels._compile("sigmoid", np.dtype(np.float32))
    want = np.empty(n, np.float32)
    kernels._kernels.run(prog, (x,), want, 1, False)
    same_bits(want, numpy_sigmoid(x), x)
    for threads in (1, 2, 3):
        buf = np.full(n + 1, 7.0, np.float32)
        out = buf[1:]  # 4 bytes past an alignment boundary: the head is written plainly
        kernels._kernels.run(prog, (x,), out, threads, True)
        assert buf[0] == 7.0
        same_bits(out, want, x)


@needs_exp32
@pytest.mark.parametrize("name", ["exp", "sigmoid", "softplus", "softplus_grad", "gelu_grad"])
def test_each_value_raises_the_flags_numpys_exp_loop_raised(name, path):
    if name == "sigmoid":
        # the sigmoid's passes drop exp32's cases (its flags are ignored, see
        # kernels._FLAG_POLICY): their raw flags may differ (underflow for +-inf, ...), never
        # what np.errstate shows: test_sigmoid_reports_no_flag_whatever_errstate
        pytest.skip("the sigmoid's passes raise other raw flags, ignored")
    """Value by value (alone, and filling a vector of 16 and one of 21), the C passes raise
    the IEEE flags of the programs calling NumPy's exp: overflow and underflow past the
    thresholds, underflow for subnormal inputs and inexact subnormal results, and nothing for
    NaN or the infinities (the cases are decided on the bits, never by a float operation on
    NaN or inf that the compiler might run on both sides of a select)."""
    if name == "exp":
        old = ((np.exp, (kernels._X0, kernels._OUT)),)
        programs = [(1, (), old), (1, (), ((kernels._EXP32, (kernels._X0, kernels._OUT)),))]
    else:
        programs = [kernels._PROGRAMS[name], kernels._PROGRAMS_EXP32[name]]
    old, new = (kernels._kernels.program("f", *p) for p in programs)
    # "invalid" from comparing a NaN: the old C pass raised it in vectors but not in its scalar
    # tail (GCC's choice of comparison); the sigmoid ignores every flag, SoftplusGrad this one
    mask = ~kernels._kernels.INVALID if name in ("sigmoid", "softplus_grad") else ~0
    ninputs = programs[0][0]
    values = np.concatenate(
        [specials(), np.float32([3e38, -3e38, -87.4, -88.5, -100, 1e20, -1e20, 13.0, -13.0])]
    )
    if name == "exp":  # a signalling NaN makes NumPy's exp raise "invalid", the C pass not;
        # the ops' programs still raise it where their other steps meet the NaN (the other
        # parameters of this test, signalling NaNs included)
        values = values[~np.isnan(values) | (values.view(np.uint32) & 0x400000 != 0)]
    for v in values:
        for n in (1, 16, 21):
            for gv in (1.0,) if ninputs == 1 else (1.0, 0.0, 1e-30, 3e38, np.inf):
                x, g = np.full(n, v, np.float32), np.full(n, gv, np.float32)
                inputs, out = ((x,) if ninputs == 1 else (g, x)), np.empty(n, np.float32)
                want = kernels._kernels.run(old, inputs, out, 1) & mask
                assert kernels._kernels.run(new, inputs, out, 1) & mask == want, (v, n, gv)


@needs_exp32
def test_sigmoid_reports_no_flag_whatever_errstate(path):
    """The sigmoid ignores the IEEE flags its arithmetic raises (underflow of exp, invalid of
    comparing a NaN), as its NumPy formula's where() did: under every errstate it neither
    warns nor raises, and gives the formula's bits."""
    x = np.concatenate([specials(), np.float32([3e38, -3e38, -87.4, -88.5, -100, -150, -200])])
    for n in (1, 16, 21, x.size):
        xs = np.resize(x, n)
        with np.errstate(all="raise"):
            got = _run("sigmoid", xs)
        with np.errstate(all="ignore"):
            same_bits(got, numpy_sigmoid(xs), xs)


def ulp_distance(got, want):
    """Per element, the count of float32 values between ``got`` and ``want`` (finite)."""
    a, b = got.view(np.int32).astype(np.int64), want.view(np.int32).astype(np.int64)
    a = np.where(a < 0, -(a & 0x7FFFFFFF), a)  # sign-magnitude to a monotone integer line
    b = np.where(b < 0, -(b & 0x7FFFFFFF), b)
    return np.abs(a - b)


@pytest.mark.skipif(not kernels.available(), reason="C extension not built")
def test_erf_kernel_is_within_1_ulp_of_the_rounded_double_erf_on_every_7th_float32(path):
    """Both erf passes (the float32 tables on AVX-512F, the double polynomial elsewhere) are
    at most 1 ulp from SciPy's double erf rounded to float32 for every 7th float32 in [0, 4.5]
    (erf rounds to 1 from 3.92 on), and odd to the bit."""
    special = pytest.importorskip("scipy.special")
    differ = checked = 0
    for x in float32_sweep(4.5, path):
        got = kernels._run("erf", x, threads=1)
        nan = np.isnan(x)
        assert np.isnan(got[nan]).all()
        x, got = x[~nan], got[~nan]
        want = special.erf(x.astype(np.float64)).astype(np.float32)
        d = ulp_distance(got, want)
        i = int(np.argmax(d))
        assert d[i] <= 1, f"erf({x[i]!r}) = {got[i]!r}, SciPy's {want[i]!r}"
        differ, checked = differ + np.count_nonzero(d), checked + x.size
        negated = kernels._run("erf", -x, threads=1)
        assert np.array_equal((-got).view(np.uint32), negated.view(np.uint32))
    assert differ <= checked // 100  # the correctly rounded result almost everywhere
    big = np.array([4.0, 10.0, 3e38, np.inf], np.float32)
    assert np.array_equal(kernels._run("erf", np.concatenate([big, -big])), [1.0] * 4 + [-1.0] * 4)
    tiny = np.array([0.0, 1e-45, 1e-40, 1e-38, 1e-30], np.float32)  # erf(t) = 2 t / sqrt(pi)
    want = (tiny.astype(np.float64) * (2 / math.sqrt(math.pi))).astype(np.float32)
    assert ulp_distance(kernels._run("erf", tiny), want).max() <= 1
    got = kernels._run("erf", np.array([-0.0, np.nan], np.float32))
    assert np.signbit(got[0]) and got[0] == 0 and np.isnan(got[1])
