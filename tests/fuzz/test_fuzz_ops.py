"""Op fuzzer: random shapes (empty ones included), dtypes (mismatched ones included) and values
(NaN, Inf, zeros, extremes). Each call either matches NumPy under TensorFlow's dtype rules or
raises one of `ek.errors`' classes, TypeError or ValueError with the op's name in the message:
never NumPy's raw error, a crash or a hang.

Brief in the unit suite; ``make fuzz`` runs it long (``EAGERKERNEL_FUZZ=long``, with
``EAGERKERNEL_FUZZ_EXAMPLES`` examples per fuzzer).
"""

import os
import warnings

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

import eagerkernel as ek  # noqa: E402

LONG = os.environ.get("EAGERKERNEL_FUZZ") == "long"
FUZZ = settings(
    max_examples=int(os.environ.get("EAGERKERNEL_FUZZ_EXAMPLES", "20000")) if LONG else 60,
    deadline=None,
    derandomize=not LONG,
    suppress_health_check=list(HealthCheck),
)

DTYPES = ["float32", "float64", "int32", "int64"]
ALLOWED = (ek.errors.OpError, TypeError, ValueError)

# name -> (ek function, NumPy oracle or None when the result is checked otherwise, names
# a message may use for the op)
BINARY = {
    "add": (ek.add, np.add, ("add", "addv2")),
    "subtract": (ek.subtract, np.subtract, ("sub",)),
    "multiply": (ek.multiply, np.multiply, ("mul",)),
    "maximum": (ek.maximum, np.maximum, ("maximum",)),
    "minimum": (ek.minimum, np.minimum, ("minimum",)),
    "floordiv": (ek.math.floordiv, np.floor_divide, ("floordiv",)),
    "mod": (ek.math.mod, np.mod, ("mod",)),
    "truediv": (ek.math.truediv, None, ("div", "truediv")),
    "pow": (ek.pow, np.power, ("pow",)),
}
UNARY = {
    "negative": (ek.negative, np.negative, ("neg",)),
    "abs": (ek.abs, np.abs, ("abs",)),
    "square": (ek.square, np.square, ("square",)),
    "sign": (ek.sign, np.sign, ("sign",)),
    "exp": (ek.exp, np.exp, ("exp",)),
    "log": (ek.math.log, np.log, ("log",)),
    "sqrt": (ek.sqrt, np.sqrt, ("sqrt",)),
    "tanh": (ek.tanh, np.tanh, ("tanh",)),
}
REDUCTIONS = {
    "reduce_sum": (ek.reduce_sum, np.sum, ("reduce_sum", "sum")),
    "reduce_max": (ek.reduce_max, np.max, ("reduce_max", "max")),
    "reduce_min": (ek.reduce_min, np.min, ("reduce_min", "min")),
    "reduce_mean": (ek.reduce_mean, np.mean, ("reduce_mean", "mean")),
}
FLOAT_ONLY = {"exp", "log", "sqrt", "tanh"}

shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)


@st.composite
def arrays(draw, dtype=None, shape=None):
    dtype = dtype or draw(st.sampled_from(DTYPES))
    shape = draw(shapes) if shape is None else shape
    if dtype.startswith("float"):
        elements = st.floats(width=32 if dtype == "float32" else 64, allow_subnormal=False)
    else:
        info = np.iinfo(dtype)
        elements = st.one_of(st.integers(-3, 3), st.sampled_from([int(info.min), int(info.max), 0]))
    return draw(hnp.arrays(dtype, shape, elements=elements))


def broadcastable(a, b) -> bool:
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        return False
    return True


def check_error(exc: BaseException, names) -> None:
    assert isinstance(exc, ALLOWED), f"{type(exc).__name__}: {exc}"
    message = str(exc).lower()
    assert any(n in message for n in names), f"the message does not name the op: {exc}"
    for raw in ("inhomogeneous", "operands could not be broadcast", "zero-size array"):
        assert raw not in message, f"NumPy's raw message: {exc}"


def assert_matches(got, want) -> None:
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=0, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


@FUZZ
@given(name=st.sampled_from(sorted(BINARY)), x=arrays(), y=arrays(), data=st.data())
def test_binary_ops(name, x, y, data):
    fn, oracle, names = BINARY[name]
    if data.draw(st.booleans()):  # same dtype half the time, so results get compared
        y = data.draw(arrays(dtype=x.dtype.name))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = fn(ek.constant(x), ek.constant(y)).numpy()
        except Exception as exc:
            check_error(exc, names)
            expected_error = (
                x.dtype != y.dtype
                or not broadcastable(x, y)
                or (name in ("floordiv", "mod") and x.dtype.kind == "i" and not np.all(y))
                or (name == "pow" and x.dtype.kind == "i" and np.any(y < 0))
            )
            assert expected_error, f"{name} raised on valid input: {exc!r}"
            return
        assert x.dtype == y.dtype, f"{name} accepted {x.dtype} with {y.dtype}"
        if name == "truediv":
            target = np.float64 if x.dtype.kind == "i" else x.dtype
            want = np.true_divide(x.astype(target), y.astype(target))
        else:
            want = oracle(x, y)
        assert_matches(got, want)


@FUZZ
@given(name=st.sampled_from(sorted(UNARY)), x=arrays())
def test_unary_ops(name, x):
    fn, oracle, names = UNARY[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = fn(ek.constant(x)).numpy()
        except Exception as exc:
            check_error(exc, names)
            assert name in FLOAT_ONLY and x.dtype.kind == "i", f"{name} raised: {exc!r}"
            return
        assert_matches(got, oracle(x))


@FUZZ
@given(name=st.sampled_from(sorted(REDUCTIONS)), x=arrays(), data=st.data())
def test_reductions(name, x, data):
    fn, oracle, names = REDUCTIONS[name]
    axis = data.draw(st.one_of(st.none(), st.integers(-4, 3)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = fn(ek.constant(x), axis=axis).numpy()
        except Exception as exc:
            check_error(exc, names)
            assert axis is not None and not -x.ndim <= axis < max(x.ndim, 1), repr(exc)
            return
        if (name in ("reduce_max", "reduce_min") and x.size == 0) or (
            axis is not None and x.ndim and x.shape[axis] == 0 and name != "reduce_sum"
        ):
            return  # TensorFlow's identities (-inf, inf, nan) where NumPy has none
        want = oracle(x, axis=axis if x.ndim else None)
        if name == "reduce_mean" and x.dtype.kind == "i":
            return  # TensorFlow's integer mean truncates; checked in the unit tests
        assert_matches(got, np.asarray(want, dtype=x.dtype))


@FUZZ
@given(a=arrays(), b=arrays())
def test_matmul(a, b):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = ek.matmul(ek.constant(a), ek.constant(b)).numpy()
        except Exception as exc:
            check_error(exc, ("matmul",))
            return
        assert a.dtype == b.dtype and a.ndim >= 2 and b.ndim >= 2
        want = np.matmul(a, b)
        if a.dtype.kind == "i":  # exact; float sums may be ordered differently (BLAS)
            assert_matches(got, want)
        assert got.shape == want.shape and got.dtype == want.dtype
