"""Fused kernels in C for the CPU: Adam's update, a tiling max pool's gradient, conv2d's
col2im, ``sum(a * b)``, and elementwise programs: sigmoid, softplus, tanh, exp, ReLU, erf and
the exact GELU, and the gradients of sigmoid, tanh, ReLU, softplus and GELU.

NumPy computes Adam's update as twelve passes over memory (`keras/optimizers/adam.py`), and a
max pool's gradient and col2im as several (`ops/pool2d.py`, `ops/conv.py`); the C extension
``eagerkernel.runtime.native._kernels`` (``_kernels.c``, built by ``pip install``) does each in
one loop that reads and writes each element once, with the GIL released. The results are the
NumPy kernels', bit for bit (the same operations in the same order). The extension is
optional: where it was not built (no C compiler at install time), each function here declines
(False or None) and the caller runs its NumPy kernel.

The elementwise ops run as *programs* (``_PROGRAMS``): a few steps, each either NumPy's own
inner loop for the dtype (taken from the ufunc: ``np.exp``, ``np.log1p``, ``np.multiply``...,
so the step computes exactly what that NumPy call would) or a C pass (``-|x|``, the stable
sigmoid's select and division, erf). A program runs block by block (1024 elements, so the
intermediates stay in the L1 cache: one pass over memory, no temporaries), and an array of at
least `PARALLEL_MIN` elements is dealt out in chunks to a small pool of threads (the caller
and up to ``n - 1`` workers, ``n`` from `set_num_threads`, which
``ek.config.threading.set_intra_op_parallelism_threads`` sets; by default as many as the
process may run on). Each result is the NumPy formula's, bit for bit, whatever the thread
count: the elements do not depend on each other. Idle workers wait on a condition variable
(they cost nothing between ops); a forked child starts its own.

Where one of NumPy's loops was the bottleneck, a C pass computes the same bits instead:

- ReLU's ``maximum(x, 0)`` is a C select (NumPy's ``maximum`` loop with a scalar operand is
  not vectorized: four times a copy, measured), NaN kept, ``-0`` giving ``+0`` as NumPy's.
- float32 ``exp`` inside the sigmoid, softplus, SoftplusGrad and the GELU gradient is
  ``_EXP32``: NumPy's own SIMD float32 exp algorithm (the loop ``np.exp`` runs on CPUs with
  AVX2 and FMA or AVX-512: Cody-Waite reduction, a degree 5/2 rational approximation with
  NumPy's constants, the same fused multiply-adds and rounding) written in C (AVX-512F
  intrinsics where the CPU has them, else portable C that GCC vectorizes), so that the
  sigmoid and SoftplusGrad are one loop each and the GELU gradient's ten NumPy steps after
  erf one pass (with erf itself, one loop on AVX-512F): the float32 sigmoid takes 0.5 ns an
  element on one thread, from 0.83 for NumPy's loops as steps (measured with its data in
  the L2 cache). It is used after `_exp32_matches` found it equal to ``np.exp`` on a probe of
  its cases at first use;
  elsewhere (a CPU without FMA, where ``np.exp`` runs another loop) the programs keep
  calling NumPy's exp.
- In the float32 sigmoid (both its passes) and SoftplusGrad (AVX-512F) that exp drops its
  case masks, which cost a third of the sigmoid's instructions: the argument ``-|x|`` is
  never above 0, a NaN gives NaN through the arithmetic itself, and raising the argument to
  -150 at least makes the arithmetic give exp's ``+0`` at or below its underflow threshold
  (SoftplusGrad still masks +-inf, so that its IEEE flags stay exp's value by value; the
  sigmoid ignores its flags, as before). The sigmoid takes 0.35 ns an element on one thread
  (from 0.50; PyTorch's 0.41; the portable C 0.45 from 0.66-0.83), SoftplusGrad likewise,
  both NumPy's bits.

So every op here is still its NumPy formula bit for bit (0 ulp), none needing the "within 1
ulp" the issue allowed: an accurate exp would not do, as NumPy's float32 exp is up to 2.5
ulp from the exact value and such an exp would be 2 ulp from it, measured.
``benchmarks/exhaustive_float32.py`` proves it for the float32 sigmoid (intrinsics and
portable C) and SoftplusGrad on all 2^32 inputs (a minute each: 0 differ from NumPy's
formula, NaN payloads aside).
``tests/test_elementwise_exhaustive.py`` checks the exp pass against ``np.exp`` on every
float32 whose bit pattern is a multiple of 7 (all of them, NaNs included), the ops against
their NumPy formulas on those in [-128, 128] (every 21st for the gradients; both the
intrinsics and the portable C, the latter five times coarser) plus subnormals,
+-0, +-inf, NaNs and the overflow and underflow thresholds, and the error flags value by
value. erf is within 1 ulp of SciPy's (below), and the GELU and GeluGrad are their NumPy
formulas around it, bit for bit.

The GELU's cost is its erf. On AVX-512F CPUs the erf pass is float32 arithmetic on 16 lanes
(a degree-5 polynomial of erf(t) / t on 32 intervals of [0, 4), looked up from registers; the
tables come from ``tools/erf32_tables.py``): 0.45 ns an element on one thread, from 1.15 for
the degree-18 double polynomial that other CPUs run (half the lanes of a float32 vector).
Both are within 1 ulp of the correctly rounded erf (largest error 0.58 ulp for the tables), so
they may differ from each other by 1 ulp, and the float32 GELU of an AVX-512F CPU from another
CPU's accordingly (below 0, ``1 + erf`` cancels and that ulp is many of the GELU's), as NumPy's
own float32 SIMD loops differ across CPUs. GeluGrad runs as one loop there too (erf, exp and
the arithmetic of its steps, the same bits as the program of steps). PyTorch's float32 erf is
less accurate: over every float32 in [-10, 10] its GELU is up to 41 ulp off in [-2, 0), 2.2 in
[0, 2) and 5.5 in [2, 10), against 12.5, 1.7 and 1.3 here, and up to 1.3e-6 off in absolute
terms against 4.8e-7 here (below -2 both lose every digit to ``1 + erf`` cancelling;
``benchmarks/gelu_accuracy.py``).

`multiply` is ``a * b`` as `ek.multiply` computes it (dispatch's array function for Mul):
two C-contiguous float arrays of one shape with at least `PARALLEL_MIN` elements go to
NumPy's multiply loop run as a program on the kernel threads, the rest to ``a * b`` itself.
Every product of two big tensors gains (the exp gradient ``g * y``, a loss's ``a * b``): the
NumPy call runs on one thread. It is a C builtin, so that small products cost what
``operator.mul`` did.

Outputs of at least `STREAM_MIN` bytes of the memory-bound programs (ReLU, the arithmetic
gradients and `multiply`) are written with streaming stores: straight to memory without
first reading each cache line (a third of the traffic of a one-input op, 15-25% of its time
on a 31 MB array, measured), leaving the cache to the inputs. The programs bound by exp, tanh or
erf write as usual (streaming stalled them, measured).

``benchmarks/elementwise.py`` measures them beside numexpr, the library made for fused
elementwise expressions, on the same formulas: numexpr's own transcendental functions (no
Intel VML here) were 5-30x slower than NumPy's SIMD loops, and its results are not NumPy's bit
for bit; hence NumPy's loops, driven from C.

Floating-point errors follow NumPy's error state (`numpy.errstate`), as the NumPy kernels'
do: the C loop reports which IEEE flags it raised (each thread its own, OR-ed), and the
wrapper ignores them, warns with a RuntimeWarning, or raises FloatingPointError as
``np.geterr()`` says. The exp pass raises the flags NumPy's exp loop raises, value by value
(overflow and underflow past its thresholds decided on the bits, underflow for subnormal
inputs and inexact subnormal results), except "invalid" for a signalling NaN given to exp
itself (no op does: the programs' other steps raise it where NumPy's did).
"""

from __future__ import annotations

import math
import os
import sys
import warnings

import numpy as np

from . import parallel

try:
    from . import _kernels
except ImportError:  # not built: every kernel declines and NumPy's runs
    _kernels = None

__all__ = [
    "PARALLEL_MIN",
    "STREAM_MIN",
    "adam",
    "available",
    "col2im",
    "erf",
    "exp",
    "gelu",
    "gelu_grad",
    "get_num_threads",
    "max_pool_grad",
    "mul_sum",
    "multiply",
    "relu",
    "relu_grad",
    "set_num_threads",
    "sigmoid",
    "sigmoid_grad",
    "softplus",
    "softplus_grad",
    "tanh",
    "tanh_grad",
]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def available() -> bool:
    """Whether the C extension was built and imported."""
    return _kernels is not None


def adam(g, var, m, v, *, b1: float, b2: float, epsilon: float, lr_t: float) -> bool:
    """Adam's update of ``var``, ``m`` and ``v`` in place, in one pass (Keras's formula)::

        m = b1 * m + (1 - b1) * g;  v = b2 * v + (1 - b2) * g * g
        var -= lr_t * m / (sqrt(v) + epsilon)

    Args:
        g: the gradient, a NumPy array of ``var``'s shape and dtype (float32 or float64);
            copied first if not C-contiguous.
        var, m, v: the variable and its two slots, C-contiguous NumPy arrays of that shape
            and dtype, updated in place.
        b1, b2, epsilon, lr_t: Adam's ``beta_1``, ``beta_2``, ``epsilon`` and this step's
            bias-corrected learning rate.

    Returns:
        True once the update is done; False, having changed nothing, when the C kernel does
        not apply (extension not built, another array type or dtype, mismatched shapes, a
        non-contiguous ``var``, ``m`` or ``v``): the caller then runs the NumPy kernel.

    Raises:
        FloatingPointError: the update overflowed, made a NaN or divided by zero, and
            ``np.geterr()`` says ``"raise"`` for that error (the arrays are then already
            updated, as after NumPy's kernel: the optimizer restores them).
    """
    if _kernels is None or any(type(a) is not np.ndarray for a in (g, var, m, v)):
        return False
    dtype = var.dtype
    if dtype not in _FLOATS or g.dtype != dtype or m.dtype != dtype or v.dtype != dtype:
        return False
    if not (var.shape == g.shape == m.shape == v.shape):
        return False
    if not (var.flags.c_contiguous and m.flags.c_contiguous and v.flags.c_contiguous):
        return False
    if not g.flags.c_contiguous:
        g = np.ascontiguousarray(g)
    n = var.size
    if n < parallel.ROWS_SPLIT_MIN:  # the common case, one call (this runs per variable)
        flags = _kernels.adam(g, var, m, v, b1, b2, epsilon, lr_t)
    else:  # elementwise: a large variable (a dense layer's kernel) splits over the cores
        flat = [a.reshape(-1) for a in (g, var, m, v)]
        flags = _flags(
            parallel.run_rows(
                lambda lo, hi: _kernels.adam(*(a[lo:hi] for a in flat), b1, b2, epsilon, lr_t),
                n,
                n,
            )
        )
    if flags:
        _fp_errors(flags, "adam")
    return True


def relu_grad(g, x):
    """ReLU's gradient ``g * (x > 0)`` (TF's ReluGrad) in one pass, or None to decline.

    Args:
        g, x: NumPy arrays of one shape and dtype (float32 or float64), C-contiguous.

    Returns:
        A new array of that shape and dtype; None (nothing done) for anything else
        (broadcasting shapes, other dtypes, strided arrays, CuPy, extension not built).

    Raises:
        FloatingPointError: as NumPy's multiply would (``0 * inf``), if ``np.geterr()`` says
            ``"raise"``.
    """
    return _run("relu_grad", g, x)


# Kinds of the C passes (``EW_KINDS`` in ``_kernels.c``).
_NEG_ABS, _SIGMOID_FINISH, _SOFTPLUS_FINISH, _SIGMOID_GRAD, _TANH_GRAD, _ERF, _GELU = range(7)
_RELU_GRAD, _RELU, _EXP32, _SIGMOID32, _SOFTPLUS_GRAD32, _GELU_GRAD_FINISH32 = range(7, 13)
_EXP32_NEGABS, _GELU_GRAD32 = 13, 14
_FLOAT32 = np.dtype(np.float32)

# Operands of a program's steps (``_kernels.program``): scratch registers, the inputs, the
# constants (rounded to the arrays' dtype, as NumPy rounds a Python scalar) and the output.
_R0, _R1 = 0, 1
_X0, _X1 = 16, 17
_C0, _C1, _C2, _C3, _C4 = 32, 33, 34, 35, 36
_OUT = 48

_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)

# Each op as a program: (number of inputs, constants, steps), each step a NumPy ufunc (its own
# inner loop for the dtype, so the step is that NumPy call bit for bit) or a C pass, and its
# operands, output last. A program runs block by block (the intermediates stay in cache) and
# big arrays in parts on the kernel threads.
_PROGRAMS = {
    # where(x >= 0, 1 / (1 + e), e / (1 + e)), e = exp(-|x|)
    "sigmoid": (
        1,
        (),
        (
            (_NEG_ABS, (_X0, _R0)),
            (np.exp, (_R0, _R0)),
            (_SIGMOID_FINISH, (_X0, _R0, _OUT)),
        ),
    ),
    # log1p(exp(-|x|)) + maximum(x, 0)
    "softplus": (
        1,
        (),
        (
            (_NEG_ABS, (_X0, _R0)),
            (np.exp, (_R0, _R0)),
            (np.log1p, (_R0, _R0)),
            (_SOFTPLUS_FINISH, (_X0, _R0, _OUT)),
        ),
    ),
    "tanh": (1, (), ((np.tanh, (_X0, _OUT)),)),
    "exp": (1, (), ((np.exp, (_X0, _OUT)),)),
    "relu": (1, (), ((_RELU, (_X0, _OUT)),)),  # maximum(x, 0), as np.maximum computes it
    "erf": (1, (), ((_ERF, (_X0, _OUT)),)),
    "gelu": (1, (), ((_GELU, (_X0, _OUT)),)),
    # the gradients: inputs (g, y) for SigmoidGrad and TanhGrad, (g, x) for the others
    "sigmoid_grad": (2, (), ((_SIGMOID_GRAD, (_X0, _X1, _OUT)),)),  # g * y * (1 - y)
    "tanh_grad": (2, (), ((_TANH_GRAD, (_X0, _X1, _OUT)),)),  # g * (1 - y * y)
    "relu_grad": (2, (), ((_RELU_GRAD, (_X0, _X1, _OUT)),)),  # g * (x > 0)
    # g * sigmoid(x)
    "softplus_grad": (
        2,
        (),
        (
            (_NEG_ABS, (_X1, _R0)),
            (np.exp, (_R0, _R0)),
            (_SIGMOID_FINISH, (_X1, _R0, _R0)),
            (np.multiply, (_X0, _R0, _OUT)),
        ),
    ),
    # g * (cdf + x * exp(-0.5 * x * x) * (1 / sqrt(2 pi))), cdf = 0.5 * (1 + erf(x * sqrt(1/2)))
    "gelu_grad": (
        2,
        (_SQRT_HALF, 1.0, 0.5, -0.5, _INV_SQRT_2PI),
        (
            (np.multiply, (_X1, _C0, _R0)),
            (_ERF, (_R0, _R1)),
            (np.add, (_C1, _R1, _R1)),
            (np.multiply, (_C2, _R1, _R1)),
            (np.multiply, (_C3, _X1, _R0)),
            (np.multiply, (_R0, _X1, _R0)),
            (np.exp, (_R0, _R0)),
            (np.multiply, (_X1, _R0, _R0)),
            (np.multiply, (_R0, _C4, _R0)),
            (np.add, (_R1, _R0, _R0)),
            (np.multiply, (_X0, _R0, _OUT)),
        ),
    ),
}
_FLOAT32_ONLY = frozenset(("erf", "gelu", "gelu_grad"))
# float32 programs that compute exp with the C pass _EXP32 (NumPy's float32 SIMD exp
# algorithm, see `_exp32_matches`) instead of calling NumPy's exp loop for each block; the
# sigmoid and SoftplusGrad as one loop each. Same operations, same bits.
_PROGRAMS_EXP32 = {
    "sigmoid": (1, (), ((_SIGMOID32, (_X0, _OUT)),)),
    "softplus_grad": (2, (), ((_SOFTPLUS_GRAD32, (_X0, _X1, _OUT)),)),
    "softplus": (  # exp(-|x|) in one pass
        1,
        (),
        (
            (_EXP32_NEGABS, (_X0, _R0)),
            (np.log1p, (_R0, _R0)),
            (_SOFTPLUS_FINISH, (_X0, _R0, _OUT)),
        ),
    ),
    # g * finish(x, erf(x * sqrt(1/2))), the program above with the ten NumPy steps after erf
    # as one C pass, all of it in one loop
    "gelu_grad": (2, (), ((_GELU_GRAD32, (_X0, _X1, _OUT)),)),
}
_exp32_state: list = []  # [True/False] once `_exp32_matches` has run
_compiled: dict = {}  # (name, dtype char) -> (the compiled program (a capsule), streamed)

# Outputs of at least STREAM_MIN bytes of the memory-bound programs (_STREAMED: arithmetic
# only) are written with streaming stores (straight to memory, not read into the cache
# first: a third less memory traffic for a one-input op); smaller ones stay in the cache for
# the op that reads them next. The programs computing exp, tanh or erf are not streamed: they
# are bound by their arithmetic, and a block's burst of streaming stores stalled them (the
# sigmoid took 4.7-4.9 ms streamed against 3.9-4.0 ms not, measured on 31 MB).
STREAM_MIN = 8 << 20
_STREAMED = frozenset(("relu", "relu_grad", "sigmoid_grad", "tanh_grad"))

# Arrays of at least PARALLEL_MIN elements run on several threads, each part at least
# PARALLEL_MIN // 2 elements; smaller ones run on the calling thread alone (waking a thread
# costs more than it saves there).
PARALLEL_MIN = 1 << 17
_threads = [0]  # [n]: kernel threads; 0: as many as this process may run on


def _default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no sched_getaffinity (macOS, Windows)
        return max(1, os.cpu_count() or 1)


def set_num_threads(n: int) -> None:
    """Sets how many threads the elementwise kernels use for big arrays (the calling thread
    included): ``n >= 1``, or 0 for as many as the process may run on (the default).
    `ek.config.threading.set_intra_op_parallelism_threads` calls this.

    Raises:
        ValueError: ``n`` is negative or above 64 (the pool's limit).
        TypeError: ``n`` is not an int.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"set_num_threads: n must be an int, got {type(n).__name__}")
    if not 0 <= n <= 64:
        raise ValueError(f"set_num_threads: n must be in [0, 64], got {n}")
    _threads[0] = int(n)
    _configure_multiply()


def _configure_multiply() -> None:
    if _kernels is not None:
        _kernels._configure_multiply(
            PARALLEL_MIN, STREAM_MIN, min(64, _threads[0] or _default_threads())
        )


def get_num_threads() -> int:
    """The thread count `set_num_threads` set (0: as many as the process may run on)."""
    return _threads[0]


def _multiply_fallback(a, b):
    return a * b


_multiply_fallback.__name__ = "multiply"
_multiply_fallback.__doc__ = "``a * b`` (the C extension is not built)."
#: ``a * b`` for any operands, bit for bit; two C-contiguous float32 or float64 NumPy arrays
#: of one shape with at least `PARALLEL_MIN` elements are multiplied by NumPy's multiply loop
#: on the kernel threads (the output of at least `STREAM_MIN` bytes streamed), the IEEE
#: flags handled as NumPy's (a flag ``np.geterr()`` does not ignore: NumPy multiplies again,
#: and warns or raises). A C builtin, so that the small products `ek.multiply` passes on cost
#: what ``operator.mul`` did. Without the extension, a Python ``a * b``.
multiply = _kernels.multiply if _kernels is not None else _multiply_fallback


def _run(name: str, *arrays, threads: int | None = None):
    """Runs program ``name`` on the arrays into a new array, or None when the kernels do not
    apply (see `_applies`; ``threads`` overrides the thread count, for tests)."""
    if not _applies(*arrays):
        return None
    dtype = arrays[0].dtype
    if name in _FLOAT32_ONLY and dtype != _FLOAT32:
        return None
    key = (name, dtype.char)
    compiled = _compiled.get(key)
    if compiled is None:
        compiled = _compiled[key] = (_compile(name, dtype), name in _STREAMED)
    prog, streamed = compiled
    out = np.empty_like(arrays[0])
    n = out.size
    if threads is None:
        threads = 1
        if n >= PARALLEL_MIN:
            threads = min(_threads[0] or _default_threads(), n // (PARALLEL_MIN // 2))
    flags = _kernels.run(prog, arrays, out, threads, streamed and out.nbytes >= STREAM_MIN)
    if flags:
        _FLAG_POLICY[name](flags)
    return out


def _compile(name: str, dtype: np.dtype):
    """Program ``name`` for ``dtype``, compiled: the float32 variant with the C exp where
    `_exp32_matches`, else the one calling NumPy's loops."""
    table = _PROGRAMS
    if dtype == _FLOAT32 and name in _PROGRAMS_EXP32 and _exp32_matches():
        table = _PROGRAMS_EXP32
    ninputs, consts, steps = table[name]
    return _kernels.program(dtype.char, ninputs, consts, steps)


def _exp32_probe() -> np.ndarray:
    """float32 values covering exp's cases: +-0, +-inf, NaNs of both signs, subnormals, the
    overflow and underflow thresholds and their neighbours, and a sweep of [-110, 100]."""
    special = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 1e-40, -1e-38],
        np.float32,
    )
    edges = np.array([88.72283935546875, -103.97208404541015625, 88.0, -87.5, 0.5], np.float32)
    near = (edges.view(np.int32)[:, None] + np.arange(-3, 4, dtype=np.int32)).view(np.float32)
    sweep = np.linspace(-110.0, 100.0, 8191, dtype=np.float32)
    return np.concatenate([special, near.ravel(), sweep, sweep * np.float32(1e-3)])


def _exp32_matches() -> bool:
    """Whether the C float32 exp (``_EXP32``) gives np.exp's bits on a probe of its cases
    (checked once). It reproduces NumPy's own SIMD float32 exp, the loop np.exp runs on
    CPUs with FMA (AVX2 or AVX-512); where np.exp runs another loop (a CPU without FMA,
    another NumPy), the probe differs and the programs keep calling NumPy's exp."""
    if not _exp32_state:  # (a Ctrl-C in between leaves it unchecked: checked next time)
        x = _exp32_probe()
        prog = _kernels.program("f", 1, (), ((_EXP32, (_X0, _OUT)),))
        out = np.empty_like(x)
        _kernels.run(prog, (x,), out, 1)
        with np.errstate(all="ignore"):
            ok = bool(np.array_equal(out.view(np.int32), np.exp(x).view(np.int32)))
        _exp32_state.append(ok)
    return _exp32_state[0]


def _applies(*arrays) -> bool:
    """Whether the elementwise kernels take these arrays: the C extension is built, and they
    are NumPy arrays (not scalars, not CuPy) of one shape and float dtype, C-contiguous."""
    if _kernels is None:
        return False
    first = arrays[0]
    for a in arrays:
        if type(a) is not np.ndarray or not a.flags.c_contiguous:
            return False
        if a.dtype is not first.dtype and a.dtype != first.dtype:
            return False
        if a.shape != first.shape:
            return False
    return first.dtype in _FLOATS


def _ignore(flags: int) -> None:
    pass


def _report(op: str, mask: int = ~0):
    return lambda flags: _fp_errors(flags & mask, op) if flags & mask else None


_NOT_INVALID = ~2  # every flag but "invalid" (``_kernels.INVALID``): a NaN compared


# What each program reports of the IEEE flags it raised, as its NumPy formula would:
# comparisons with NaN raise "invalid", which NumPy's comparisons, where and maximum do not
# report; sigmoid's exp never overflows (its argument is <= 0) and its underflows are NumPy's
# default-ignored kind, as they would be from np.exp; erf and gelu cannot overflow.
_FLAG_POLICY = {
    "sigmoid": _ignore,
    "softplus": _report("add", _NOT_INVALID),
    "tanh": _report("tanh"),
    "exp": _report("exp"),
    "relu": _ignore,
    "erf": _ignore,
    "gelu": _ignore,
    "sigmoid_grad": _report("multiply"),
    "tanh_grad": _report("multiply"),
    "relu_grad": _report("multiply"),
    # (0 * inf is then not reported either: its "invalid" cannot be told from a NaN's)
    "softplus_grad": _report("multiply", _NOT_INVALID),
    "gelu_grad": _report("multiply"),
}


def sigmoid(x):
    """The stable sigmoid, ``where(x >= 0, 1 / (1 + e), e / (1 + e))`` with ``e = exp(-|x|)``,
    in one pass over memory without temporaries (multi-threaded for big arrays), or None to
    decline.

    Args:
        x: a C-contiguous float32 or float64 NumPy array.

    Returns:
        A new array of x's shape and dtype, equal bit for bit to that NumPy formula (``e``
        as ``np.exp`` computes it: NumPy's loop, or for float32 its algorithm in C, see the
        module docstring; NaN in, NaN out, its payload aside); None (nothing done) for
        anything else. Floating-point flags are ignored, as the formula's where() did.
    """
    return _run("sigmoid", x)


def softplus(x):
    """The stable softplus, ``log1p(exp(-|x|)) + maximum(x, 0)``, in one pass without
    temporaries, or None to decline; bit for bit that NumPy formula (NumPy's ``log1p`` loop,
    ``exp`` as in `sigmoid`). Takes and returns what `sigmoid` does."""
    return _run("softplus", x)


def tanh(x):
    """``np.tanh(x)`` bit for bit (NumPy's loop), on the kernel threads, for arrays of at
    least `PARALLEL_MIN` elements; None (the caller runs ``np.tanh``) below that or where
    `sigmoid` declines."""
    return _run("tanh", x) if getattr(x, "size", 0) >= PARALLEL_MIN else None


def exp(x):
    """``np.exp(x)`` bit for bit on the kernel threads, as `tanh` does."""
    return _run("exp", x) if getattr(x, "size", 0) >= PARALLEL_MIN else None


def relu(x):
    """``np.maximum(x, 0)`` bit for bit (NaN stays NaN, ``-0`` gives ``+0``) as a vectorized
    C select, on the kernel threads, as `tanh` does."""
    return _run("relu", x) if getattr(x, "size", 0) >= PARALLEL_MIN else None


def erf(x):
    """The error function of a float32 array in one pass, or None to decline.

    On AVX-512F CPUs evaluated in float32 from tables (largest error 0.58 ulp), elsewhere in
    double precision (a polynomial with relative error below 4e-10) and rounded once: either
    way within 1 ulp of SciPy's float32 ``erf`` (its double erf, rounded) and equal to it for
    all but about one value in a thousand (see the module's docstring). Raises no
    floating-point warnings (erf cannot overflow).

    Args:
        x: a C-contiguous float32 NumPy array (float64 declines: 1 ulp of float64 is beyond
            this polynomial, and SciPy's double erf runs).

    Returns:
        A new float32 array of x's shape; None for anything else.
    """
    return _run("erf", x)


def gelu(x):
    """The exact GELU ``0.5 * x * (1 + erf(x * sqrt(1/2)))`` of a float32 array in one pass,
    NumPy's float32 operations in NumPy's order around `erf` (so within 1 ulp of the NumPy
    formula with SciPy's erf), or None to decline. Unlike the NumPy formula it does not warn
    for ``x = -inf`` (``-inf * 0``: NaN either way). Takes and returns what `erf` does."""
    return _run("gelu", x)


def sigmoid_grad(y, g):
    """TF's SigmoidGrad, ``g * y * (1 - y)`` for ``y = sigmoid(x)``, in one pass, or None.

    Args:
        y: the sigmoid's output; g: its cotangent. NumPy arrays of one shape and float dtype,
            C-contiguous.

    Returns:
        A new array, NumPy's ``g * y * (1 - y)`` bit for bit; None when the kernel does not
        apply (broadcast or strided cotangents, other types): the caller's NumPy path runs.

    Raises:
        FloatingPointError: as NumPy's multiply would (overflow, ``0 * inf``), if
            ``np.geterr()`` says ``"raise"``.
    """
    return _run("sigmoid_grad", g, y)


def tanh_grad(y, g):
    """TF's TanhGrad, ``g * (1 - y * y)`` for ``y = tanh(x)``, in one pass, or None; takes,
    returns and raises what `sigmoid_grad` does."""
    return _run("tanh_grad", g, y)


def softplus_grad(g, x):
    """TF's SoftplusGrad, ``g * sigmoid(x)`` (the stable sigmoid of `sigmoid`), in one pass,
    or None; NumPy's ``g * sigmoid(x)`` bit for bit. Takes, returns and raises what
    `sigmoid_grad` does (``x`` in place of ``y``)."""
    return _run("softplus_grad", g, x)


def gelu_grad(g, x):
    """The exact GELU's gradient of a float32 array in one pass, or None:
    ``g * (cdf + x * exp(-0.5 * x * x) * (1 / sqrt(2 pi)))`` with
    ``cdf = 0.5 * (1 + erf(x * sqrt(1/2)))``, NumPy's float32 operations in that order (erf
    as `erf`, exp as in `sigmoid`), so bit for bit the same formula run op by op. Takes,
    returns and raises what `sigmoid_grad` does (``x`` in place of ``y``; float32 only)."""
    return _run("gelu_grad", g, x)


def mul_sum(a, b):
    """``np.sum(a * b)`` without the product array, bit for bit, or None to decline.

    One pass that multiplies and adds in NumPy's pairwise summation order (blocks of 128 in
    8 accumulators, as NumPy's sum does over a contiguous array), so the value is the one
    NumPy's multiply and sum give. `ek.function` compiles ``reduce_sum(a * b)`` to it.

    Args:
        a, b: C-contiguous float32 or float64 NumPy arrays of one shape and dtype.

    Returns:
        The sum, a NumPy scalar of that dtype; None for anything else, and where the pass
        raised a floating-point flag that ``np.geterr()`` does not ignore (the caller's NumPy
        multiply and sum then warn or raise as they would).
    """
    if not _applies(a, b):
        return None
    value, flags = _kernels.mul_sum(a, b)
    if flags:
        policy = np.geterr()
        bits = (_kernels.OVERFLOW, _kernels.INVALID, _kernels.DIVBYZERO, _kernels.UNDERFLOW)
        for bit, (kind, _, _) in zip(bits, _ERRORS):
            if flags & bit and policy[kind] != "ignore":
                return None
    return a.dtype.type(value)


def max_pool_grad(x, ans, g, ksize: tuple[int, int]):
    """The gradient of a max pool whose ``ksize`` windows tile ``x`` (stride = window, no
    padding), in one pass, or None to decline. Follows TF's MaxPoolGrad: each window's
    cotangent goes to its first maximum in row-major order (ties after a ReLU included).

    Args:
        x: the pool's input, NHWC, float32 or float64, C-contiguous; its height and width
            multiples of ``ksize``.
        ans: the pool's output, ``(N, H // kh, W // kw, C)``, x's dtype, C-contiguous.
        g: the cotangent of ``ans``: same shape and dtype (copied if strided).
        ksize: ``(kh, kw)``.

    Returns:
        The cotangent of ``x`` (a new array of x's shape and dtype); None when the kernel does
        not apply (the caller's NumPy path then runs).

    Raises:
        FloatingPointError: as NumPy's multiply would (``0 * inf``), if ``np.geterr()`` says
            ``"raise"``.
    """
    if _kernels is None or type(x) is not np.ndarray or type(ans) is not np.ndarray:
        return None
    if type(g) is not np.ndarray or x.ndim != 4:
        return None
    dtype = x.dtype
    if dtype not in _FLOATS or ans.dtype != dtype or g.dtype != dtype:
        return None
    n, h, w, c = x.shape
    kh, kw = ksize
    if h % kh or w % kw or ans.shape != (n, h // kh, w // kw, c) or g.shape != ans.shape:
        return None
    if not (x.flags.c_contiguous and ans.flags.c_contiguous):
        return None
    if not g.flags.c_contiguous:
        g = np.ascontiguousarray(g)
    out = np.empty_like(x)

    def images(lo, hi):  # each image's windows are its own: the batch splits over the cores
        return _kernels.max_pool_grad(
            x[lo:hi], ans[lo:hi], g[lo:hi], out[lo:hi], hi - lo, h, w, c, kh, kw
        )

    flags = _flags(parallel.run_rows(images, n, x.size))
    if flags:
        _fp_errors(flags, "multiply")
    return out


def col2im(cols, padded_shape, strides, dilations):
    """Sums window columns back into a zero padded input (conv2d's input VJP), or None.

    Args:
        cols: ``(N, OH, OW, KH, KW, C)`` (im2col's layout), float32 or float64,
            C-contiguous: what each kernel position read from each window.
        padded_shape: ``(N, HP, WP, C)``, the padded input.
        strides, dilations: ``(sh, sw)`` and ``(dh, dw)`` of the convolution.

    Returns:
        A new array of ``padded_shape``: element ``(b, y, x, c)`` is the sum, over the
        kernel positions in row-major order, of the columns that read it (NumPy's loop of
        ``conv.col2im`` in one pass, bit for bit). None when the kernel does not apply.

    Raises:
        FloatingPointError: as NumPy's additions would (overflow), if ``np.geterr()`` says
            ``"raise"``.
    """
    if _kernels is None or type(cols) is not np.ndarray or cols.dtype not in _FLOATS:
        return None
    if cols.ndim != 6 or not cols.flags.c_contiguous:
        return None
    n, oh, ow, kh, kw, c = cols.shape
    pn, hp, wp, pc = padded_shape
    if (pn, pc) != (n, c):
        return None
    out = np.empty(padded_shape, cols.dtype)

    def images(lo, hi):  # each image's output is its own: the batch splits over the cores
        return _kernels.col2im(
            cols[lo:hi], out[lo:hi], kh, kw, hi - lo, oh, ow, c, hp, wp, *strides, *dilations
        )

    flags = _flags(parallel.run_rows(images, n, cols.size))
    if flags:
        _fp_errors(flags, "add")
    return out


def _flags(parts: list) -> int:
    """The floating-point flags the parts of a split kernel raised, together (OR)."""
    flags = 0
    for part in parts:
        flags |= part
    return flags


# (np.geterr() key, NumPy's wording, NumPy's status bit for "call" callbacks) per kernel flag.
_ERRORS = (
    ("over", "overflow", 2),
    ("invalid", "invalid value", 8),
    ("divide", "divide by zero", 1),
    ("under", "underflow", 4),
)


def _fp_errors(flags: int, op: str) -> None:
    """Applies ``np.geterr()`` to the flags a kernel raised (overflow, invalid, divide, under),
    as NumPy does after a ufunc, with its messages ("overflow encountered in adam"): "ignore",
    "warn" (RuntimeWarning), "raise" (FloatingPointError), "call" (``np.geterrcall()`` with the
    error's name and NumPy's status bit), "print" (to stderr) and "log" (the call object's
    ``write``)."""
    policy = np.geterr()
    bits = (_kernels.OVERFLOW, _kernels.INVALID, _kernels.DIVBYZERO, _kernels.UNDERFLOW)
    for bit, (kind, text, status) in zip(bits, _ERRORS):
        mode = policy[kind]
        if not flags & bit or mode == "ignore":
            continue
        message = f"{text} encountered in {op}"
        if mode == "raise":
            raise FloatingPointError(message)
        handler = np.geterrcall()
        if mode == "call" and handler is not None:
            handler(text, status)
        elif mode == "log" and handler is not None:
            handler.write(f"Warning: {message}\n")
        elif mode == "print":
            print(f"Warning: {message}", file=sys.stderr)
        else:  # "warn", NumPy's default
            warnings.warn(message, RuntimeWarning, stacklevel=4)


_configure_multiply()
