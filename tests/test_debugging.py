"""`ek.debugging`: TensorFlow's eager assertions, check_numerics and traceback filtering.

Pass and fail cases for every function; where TensorFlow is importable, the oracle tests run
the same calls on it and compare the error class and message (they skip otherwise).
"""

from __future__ import annotations

import threading
import traceback

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime import traceback_utils

D = ek.debugging
IAE = ek.errors.InvalidArgumentError

# -- check_numerics -----------------------------------------------------------------------------


def test_check_numerics_returns_the_tensor():
    x = ek.constant([[1.0, -2.0]], dtype=ek.float64)
    y = D.check_numerics(x, "fine")
    assert (y.shape, y.dtype) == ((1, 2), ek.float64)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    assert D.assert_all_finite(x, "fine").shape == (1, 2)


@pytest.mark.parametrize(
    "values, what",
    [([1.0, np.nan], "NaN"), ([np.inf, 1.0], "Inf"), ([-np.inf, np.nan], "Inf and NaN")],
)
def test_check_numerics_names_what_it_found(values, what):
    for check in (D.check_numerics, D.assert_all_finite):
        with pytest.raises(IAE) as info:
            check(ek.constant(values), "after the layer")
        assert str(info.value) == f"after the layer : Tensor had {what} values"
        assert type(info.value) is IAE and info.value.op == "CheckNumerics"


def test_check_numerics_refuses_non_floating_tensors():
    with pytest.raises(
        TypeError, match=r"check_numerics: tensor must be float16, float32 or .*int32"
    ):
        D.check_numerics(ek.constant([1, 2]), "ints")


def test_check_numerics_gradient_passes_through_and_is_checked():
    x = ek.Variable([1.0, 4.0])
    with ek.GradientTape() as outer:
        with ek.GradientTape() as tape:
            y = ek.reduce_sum(D.check_numerics(x * x, "square") * 3.0)
        g = tape.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), [6.0, 24.0])
    assert "CheckNumerics" in [e.prim.name for e in outer.entries]  # an op on the tape
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), [6.0, 6.0])  # second order

    x = ek.Variable([0.0, 4.0])  # d sqrt(x)/dx is Inf at 0
    with ek.GradientTape() as tape:
        y = ek.reduce_sum(ek.sqrt(D.check_numerics(x, "before sqrt")))
    with pytest.raises(IAE) as info, np.errstate(divide="ignore"):
        tape.gradient(y, x)
    assert str(info.value) == (
        "Not a number (NaN) or infinity (Inf) values detected in gradient. before sqrt : "
        "Tensor had Inf values"
    )


# -- elementwise assertions ---------------------------------------------------------------------

BINARY = [
    (D.assert_equal, "==", [1, 2, 3], [1, 2, 3], [1, 5, 3]),
    (D.assert_none_equal, "!=", [1, 2, 3], [4, 5, 6], [4, 2, 6]),
    (D.assert_less, "<", [1, 2, 3], [2, 3, 4], [2, 2, 4]),
    (D.assert_less_equal, "<=", [1, 2, 3], [1, 2, 3], [1, 1, 3]),
    (D.assert_greater, ">", [5, 6, 7], [1, 2, 3], [1, 6, 3]),
    (D.assert_greater_equal, ">=", [5, 6, 7], [5, 6, 7], [5, 9, 7]),
]


@pytest.mark.parametrize("fn, sym, x, ok, bad", BINARY, ids=[b[1] for b in BINARY])
def test_binary_asserts(fn, sym, x, ok, bad):
    x = ek.constant(x)
    assert fn(x, ek.constant(ok)) is None
    assert fn(ek.zeros((0, 3), ek.int32), ek.zeros((0, 3), ek.int32)) is None  # empty holds
    with pytest.raises(IAE) as info:
        fn(x, ek.constant(bad), message="step 7")
    assert type(info.value) is IAE
    assert str(info.value) == "\n".join(
        [
            "step 7",
            f"Condition x {sym} y did not hold.",
            "Indices of first 1 different values:",
            "[[1]]",
            "Corresponding x values:",
            f"[{x.numpy()[1]}]",
            "Corresponding y values:",
            f"[{bad[1]}]",
            "First 3 elements of x:",
            str(x.numpy()),
            "First 3 elements of y:",
            str(np.array(bad, np.int32)),
        ]
    )


def test_binary_asserts_broadcast_and_take_python_numbers():
    x = ek.constant([[1.0, 2.0], [3.0, 4.0]])
    assert D.assert_less(x, 5.0) is None
    assert D.assert_greater(x, [0.0, 1.0]) is None
    assert D.assert_equal(x, x) is None
    with pytest.raises(IAE) as info:
        D.assert_less(x, 4.0)
    # Different shapes: no index section, as in TensorFlow.
    assert str(info.value) == (
        "Condition x < y did not hold.\nFirst 3 elements of x:\n[1. 2. 3.]\n"
        "First 1 elements of y:\n[4.]"
    )


def test_binary_assert_summarize():
    x, y = ek.range(10), ek.zeros(10, ek.int32)
    with pytest.raises(IAE) as info:
        D.assert_equal(x, y, summarize=2)
    assert "Indices of first 2 different values:\n[[1]\n [2]]\n" in str(info.value)
    assert "First 2 elements of x:\n[0 1]\n" in str(info.value)
    with pytest.raises(IAE) as info:
        D.assert_equal(x, y, summarize=-1)
    assert "First 10 elements of x:" in str(info.value)
    assert "[0 1 2 3 4 5 6 7 8 9]" in str(info.value)


def test_binary_assert_errors_of_shape_and_dtype():
    with pytest.raises(
        IAE, match=r"assert_equal: x and y must broadcast .*x: \(2,\) and y: \(3,\)"
    ):
        D.assert_equal(ek.zeros(2), ek.zeros(3))
    with pytest.raises(TypeError, match=r"float32.*int32"):
        D.assert_equal(ek.zeros(2), ek.zeros(2, ek.int32))
    # bools (and strings) compare for equality, as TensorFlow's assert_equal; order does not
    D.assert_equal(ek.constant([True]), ek.constant([True]))
    with pytest.raises(IAE, match="Condition x == y did not hold"):
        D.assert_equal(ek.constant([True]), ek.constant([False]))
    with pytest.raises(TypeError, match="numeric"):
        D.assert_less(ek.constant([True]), ek.constant([True]))


UNARY = [
    (D.assert_positive, "> 0", [1, 2], [1, -2, 3]),
    (D.assert_negative, "< 0", [-1, -2], [-1, 2, -3]),
    (D.assert_non_negative, ">= 0", [0, 2], [0, -2, 3]),
    (D.assert_non_positive, "<= 0", [0, -2], [0, 2, -3]),
]


@pytest.mark.parametrize("fn, sym, ok, bad", UNARY, ids=[u[1] for u in UNARY])
def test_unary_asserts(fn, sym, ok, bad):
    assert fn(ek.constant(ok)) is None
    assert fn(ek.zeros(0)) is None
    with pytest.raises(IAE) as info:
        fn(ek.constant(bad))
    assert str(info.value) == (
        f"Condition x {sym} did not hold element-wise:\n"
        f"x (shape=(3,) dtype=int32) = \n{[str(v) for v in bad]}"
    )
    with pytest.raises(IAE) as info:
        fn(ek.constant(bad * 2), message="weights", summarize=2)
    assert str(info.value).splitlines()[0] == "weights.  "
    assert str(info.value).splitlines()[-1] == str([str(v) for v in bad[:2]] + ["..."])


def test_assert_near():
    x = ek.constant([1.0, 2.0])
    assert D.assert_near(x, [1.0, 2.0 + 1e-6]) is None
    assert D.assert_near(x, [1.1, 2.1], atol=0.2) is None
    assert D.assert_near(x, [1.1, 2.2], rtol=0.1) is None
    with pytest.raises(IAE) as info:
        D.assert_near(x, [1.0, 2.1], message="loss")
    lines = str(info.value).splitlines()
    assert lines[0] == "Expected 'False' to be true. Summarized data: loss.  "
    assert lines[1].startswith("x and y not equal to tolerance rtol = 1.19")
    assert lines[2:] == [
        "x (shape=(2,) dtype=float32) = ",
        "1.0, 2.0",
        "y (shape=(2,) dtype=float32) = ",
        "1.0, 2.1",
    ]
    with pytest.raises(IAE):  # strict, as TensorFlow's: no tolerance, no pass
        D.assert_near(x, x, rtol=0.0, atol=0.0)
    with pytest.raises(TypeError, match="floating"):
        D.assert_near(ek.constant([1]), [1])


# -- Assert -------------------------------------------------------------------------------------


def test_assert():
    assert D.Assert(True, ["never shown"]) is None
    assert D.Assert(ek.constant(True), []) is None
    x = ek.range(5)
    with pytest.raises(IAE) as info:
        D.Assert(ek.reduce_all(x < 3), ["x is", x, 7])
    assert str(info.value) == (
        "Expected 'Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: x is\n"
        "0, 1, 2, ...\n7"
    )
    with pytest.raises(IAE, match=r"data: 0, 1, 2, 3, 4$"):
        D.Assert(False, [x], summarize=-1)
    with pytest.raises(IAE, match=r"data: 0, \.\.\.$"):
        D.Assert(False, [x], summarize=1)


# -- ranks and shapes ---------------------------------------------------------------------------


def test_rank_asserts():
    x = ek.zeros((2, 3))
    assert D.assert_rank(x, 2) is None and D.assert_rank(x, ek.constant(2)) is None
    assert D.assert_rank_at_least(x, 1) is None and D.assert_rank_at_least(x, 2) is None
    assert D.assert_rank_in(x, [0, 2]) is None
    with pytest.raises(ValueError) as info:
        D.assert_rank(x, 3, message="features")
    assert str(info.value) == ("features.  Tensor must have rank 3.  Received rank 2, shape (2, 3)")
    assert type(info.value) is ValueError
    with pytest.raises(ValueError, match=r"^Tensor must have rank at least 3\.  Received rank 2"):
        D.assert_rank_at_least(x, 3)
    with pytest.raises(ValueError, match=r"^Tensor must have rank in \(0, 1\)\.  Received rank 2"):
        D.assert_rank_in(x, (0, 1))
    with pytest.raises(ValueError, match=r"^Rank must be a scalar\.$"):
        D.assert_rank(x, [2])
    with pytest.raises(TypeError, match=r"rank must be of type ek\.int32; got ek\.int64"):
        D.assert_rank(x, np.int64(2))


def test_assert_shapes_accepts_tensorflows_examples():
    n, q, d = 10, 3, 7
    x, y = ek.zeros([n, q]), ek.ones([n, d])
    param, scalar = ek.Variable([1.0, 2.0, 3.0]), 1.0
    assert (
        D.assert_shapes([(x, ("N", "Q")), (y, ("N", "D")), (param, ("Q",)), (scalar, ())]) is None
    )
    assert D.assert_shapes([(x, (n, None)), (y, (".", d))]) is None
    assert D.assert_shapes([(ek.zeros((4, 5, 3)), (..., "Q")), (x, ("*", "Q"))]) is None
    assert D.assert_shapes([(x, None), (y, ("N", "D"))]) is None
    assert D.assert_shapes([(ek.constant(1.0), (1,))]) is None  # a scalar is shape (1,)


@pytest.mark.parametrize(
    "shapes, message",
    [
        (
            [(ek.zeros((10, 3)), ("N", "D")), (ek.zeros((10, 7)), ("N", "D"))],
            "Specified by tensor shape=(10, 3) dtype=float32 dimension 1.  Tensor "
            "shape=(10, 7) dtype=float32 dimension 1 must have size 3.  Received size 7, "
            "shape (10, 7)",
        ),
        (
            [(ek.zeros((10, 3)), (10, 4))],
            "Specified explicitly.  Tensor shape=(10, 3) dtype=float32 dimension 1 must have "
            "size 4.  Received size 3, shape (10, 3)",
        ),
        (
            [(ek.zeros((10, 3)), ("N",))],
            "Tensor must have rank in (0, 1).  Received rank 2, shape (10, 3)",
        ),
        (
            [(ek.zeros((10, 3)), ("A", "B", "C"))],
            "Tensor must have rank 3.  Received rank 2, shape (10, 3)",
        ),
        (
            [(ek.zeros(3), (..., "A", "B"))],
            "Tensor must have rank at least 2.  Received rank 1, shape (3,)",
        ),
        (
            [(ek.zeros((4, 3)), (..., "Q")), (ek.zeros((5, 2)), ("*", "Q"))],
            "Specified by tensor shape=(4, 3) dtype=float32 dimension -1.  Tensor "
            "shape=(5, 2) dtype=float32 dimension -1 must have size 3.  Received size 2, "
            "shape (5, 2)",
        ),
        (
            [(ek.zeros((10, 3)), ("N", ...))],
            "Tensor shape=(10, 3) dtype=float32 specified shape index 1.  Symbol `...` or `*` "
            "for a variable number of unspecified dimensions is only allowed as the first entry",
        ),
        (
            [(ek.zeros(3), 3)],
            "Tensor shape=(3,) dtype=float32.  Specified shape must be an iterable.  An "
            "iterable has the attribute `__iter__` or `__getitem__`.  Received specified "
            "shape: 3",
        ),
    ],
)
def test_assert_shapes_failures(shapes, message):
    with pytest.raises(ValueError) as info:
        D.assert_shapes(shapes)
    assert str(info.value) == message
    with pytest.raises(ValueError, match=r"^checked\.  "):
        D.assert_shapes(shapes, message="checked")


def test_assert_scalar():
    assert int(D.assert_scalar(ek.constant(3))) == 3
    with pytest.raises(ValueError, match=r"^Expected scalar shape, saw shape: \(2,\)\.$"):
        D.assert_scalar(ek.zeros(2))


# -- dtypes -------------------------------------------------------------------------------------


def test_type_asserts():
    assert D.assert_type(ek.constant(1.0), ek.float32) is None
    assert D.assert_type(ek.Variable(1), "int32") is None
    with pytest.raises(TypeError, match=r"^tensor must be of type ek.bool; got ek.int32$"):
        D.assert_type(ek.constant(21), ek.bool)
    with pytest.raises(TypeError, match=r"^w\.  v:0 must be of type ek.float64; got ek.float32$"):
        D.assert_type(ek.Variable(1.0, name="v"), ek.float64, message="w")
    assert D.assert_integer(ek.constant([1], ek.uint8)) is None
    for bad in (ek.constant([1.0]), ek.constant([True])):
        with pytest.raises(TypeError, match=r'Expected "x" to be integer type\.  Found: tensor'):
            D.assert_integer(bad)
    assert D.assert_same_float_dtype([ek.zeros(1, ek.float64), None]) == ek.float64
    assert D.assert_same_float_dtype() == ek.float32
    with pytest.raises(ValueError, match=r"tensors\[1\] has dtype ek\.float64"):
        D.assert_same_float_dtype([ek.zeros(1), ek.zeros(1, ek.float64)])
    with pytest.raises(ValueError, match=r"Expected floating point type, got ek\.int32"):
        D.assert_same_float_dtype([ek.zeros(1, ek.int32)])


def test_is_numeric_tensor_and_proper_iterables():
    for t in (ek.constant(1), ek.constant(1.0), ek.zeros(2, ek.uint8), ek.Variable(2.0)):
        assert D.is_numeric_tensor(t)
    for t in (ek.constant(True), 1.0, np.zeros(2), "x"):
        assert not D.is_numeric_tensor(t)
    assert (
        D.assert_proper_iterable([1, 2]) is None and D.assert_proper_iterable(x for x in []) is None
    )
    for bad in (ek.zeros(2), np.zeros(2), "ab", b"ab"):
        with pytest.raises(TypeError, match='to be a "proper" iterable'):
            D.assert_proper_iterable(bad)
    with pytest.raises(TypeError, match="to be iterable"):
        D.assert_proper_iterable(3)


def test_top_level_aliases_are_tensorflow_2s():
    for name in ("Assert", "assert_equal", "assert_greater", "assert_less", "assert_rank"):
        assert getattr(ek, name) is getattr(D, name)
    assert not hasattr(ek, "check_numerics")  # TensorFlow 2 has it under tf.debugging only
    assert set(D.__all__) <= set(dir(D))


# -- traceback filtering ------------------------------------------------------------------------


def _eagerkernel_frames(exc: BaseException) -> list:
    return [
        f.filename
        for f in traceback.extract_tb(exc.__traceback__)
        if traceback_utils.is_internal(f.filename)
    ]


class _BadReshape(ek.keras.layers.Layer):
    def call(self, x):
        return ek.reshape(x, [-1, 5])  # 8 x 3 elements: not a multiple of 5


def _failing_fit():
    model = ek.keras.Sequential([_BadReshape()])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(np.zeros((8, 3), np.float32), np.zeros((8, 5), np.float32), verbose=0)


def test_traceback_filtering_flags_are_per_thread():
    assert D.is_traceback_filtering_enabled()
    D.disable_traceback_filtering()
    try:
        assert not D.is_traceback_filtering_enabled()
        seen = []
        t = threading.Thread(target=lambda: seen.append(D.is_traceback_filtering_enabled()))
        t.start()
        t.join()
        assert seen == [True]
    finally:
        D.enable_traceback_filtering()
    assert D.is_traceback_filtering_enabled()


def test_fit_errors_show_the_users_frames_only():
    with pytest.raises(IAE, match="reshape") as info:
        _failing_fit()
    internal = _eagerkernel_frames(info.value)
    assert internal and all(f.endswith("traceback_utils.py") for f in internal)
    names = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert "_failing_fit" in names and "call" in names  # the user's frames are kept

    D.disable_traceback_filtering()
    try:
        with pytest.raises(IAE, match="reshape") as info:
            _failing_fit()
    finally:
        D.enable_traceback_filtering()
    internal = _eagerkernel_frames(info.value)
    assert any(f.endswith("models.py") for f in internal)
    assert any(f.endswith("array_ops.py") for f in internal)


def test_strip_internal_frames_keeps_the_exception():
    try:
        try:
            ek.reshape(ek.zeros(6), [4])
        except ValueError as inner:
            raise RuntimeError("while reshaping") from inner
    except RuntimeError as exc:
        outer = exc
    inner = outer.__cause__
    assert _eagerkernel_frames(inner)
    same = traceback_utils.strip_internal_frames(inner)
    assert same is inner and not _eagerkernel_frames(inner) and outer.__cause__ is inner
    assert traceback.extract_tb(inner.__traceback__)  # the user's frame is left

    err = ValueError("only internal frames")
    try:
        ek.zeros([-1])
    except ValueError as exc:
        err = exc
    frames = traceback.extract_tb(err.__traceback__)
    rest = traceback_utils.strip_internal_frames(err.with_traceback(err.__traceback__.tb_next))
    assert len(traceback.extract_tb(rest.__traceback__)) == 1 < len(frames)  # the last is kept


def test_filter_traceback_decorator_respects_the_flag():
    @traceback_utils.filter_traceback
    def entry(x):
        return ek.reshape(x, [4])

    with pytest.raises(IAE) as info:
        entry(ek.zeros(6))
    assert [f.endswith("traceback_utils.py") for f in _eagerkernel_frames(info.value)] == [True]
    assert entry.__name__ == "entry" and entry(ek.zeros(4)).shape == (4,)


# -- TensorFlow as an oracle (skipped unless it is installed) -----------------------------------


def _oracle_calls(m):
    d = m.debugging
    x = m.constant([1, 2, 3])
    return {
        "equal": lambda: d.assert_equal(x, m.constant([1, 5, 3]), message="step 7"),
        "equal broadcast": lambda: d.assert_equal(m.constant([[1, 2], [3, 4]]), m.constant([1, 2])),
        "equal shapes": lambda: d.assert_equal(m.zeros(2), m.zeros(3)),
        "none_equal": lambda: d.assert_none_equal(x, m.constant([4, 2, 6]), summarize=1),
        "less": lambda: d.assert_less(x, m.constant([2, 2, 4])),
        "less_equal scalar": lambda: d.assert_less_equal(x, 2),
        "greater": lambda: d.assert_greater(x, m.constant([1, 6, 3])),
        "greater_equal all": lambda: d.assert_greater_equal(m.range(10), 5, summarize=-1),
        "positive": lambda: d.assert_positive(m.constant([1, -2, 3])),
        "negative": lambda: d.assert_negative(m.constant([-1.0, 2.0]), message="w"),
        "non_negative": lambda: d.assert_non_negative(m.constant([0, -2, 3])),
        "near": lambda: d.assert_near(m.constant([1.0, 2.0]), m.constant([1.0, 2.1])),
        "rank": lambda: d.assert_rank(m.zeros((2, 3)), 3, message="features"),
        "rank_at_least": lambda: d.assert_rank_at_least(m.zeros((2, 3)), 3),
        "rank_in": lambda: d.assert_rank_in(m.zeros((2, 3)), (0, 1)),
        "rank int64": lambda: d.assert_rank(m.zeros((2, 3)), np.int64(2)),
        "shapes N": lambda: d.assert_shapes(
            [(m.zeros((10, 3)), ("N", "D")), (m.zeros((10, 7)), ("N", "D"))]
        ),
        "shapes explicit": lambda: d.assert_shapes([(m.zeros((10, 3)), (10, 4))]),
        "shapes rank": lambda: d.assert_shapes([(m.zeros((10, 3)), ("A", "B", "C"))]),
        "shapes ellipsis": lambda: d.assert_shapes([(m.zeros((10, 3)), ("N", ...))]),
        "scalar": lambda: d.assert_scalar(m.zeros(2)),
        "type": lambda: d.assert_type(m.constant(21), m.bool),
        "integer": lambda: d.assert_integer(m.constant([1.0])),
        "proper_iterable": lambda: d.assert_proper_iterable("ab"),
        "check_numerics": lambda: d.check_numerics(m.constant([1.0, np.nan]), "found"),
        "check_numerics inf": lambda: d.check_numerics(m.constant([np.inf, np.nan]), "found"),
        "Assert": lambda: d.Assert(m.reduce_all(x < 2), [x]),
    }


# Messages compared after normalizing whitespace; TensorFlow's eager text differs from ours in:
# ("Tensor  must", TensorFlow's empty eager name, and its leading empty line when no message
# is given, vanish with the whitespace).
MESSAGE_DIFFERS = {
    # tensors and strings rendered as tf.Tensor(...) and b'...'
    "near",
    "Assert",
    # our messages name the assertion and the shapes; TensorFlow's name the kernel
    "equal shapes",
    "rank int64",
    # TensorFlow's dtype reprs (tf.bool, <dtype: 'float32'>)
    "type",
    "integer",
    # the kernel's name and [Op:CheckNumerics] around the same text
    "check_numerics",
    "check_numerics inf",
}


@pytest.mark.parametrize("what", sorted(_oracle_calls(ek)))
def test_same_error_as_tensorflow(what):
    tf = pytest.importorskip("tensorflow")
    with pytest.raises(Exception) as theirs:
        _oracle_calls(tf)[what]()
    with pytest.raises(Exception) as ours:
        _oracle_calls(ek)[what]()
    assert type(ours.value).__name__ == type(theirs.value).__name__, str(theirs.value)
    if what not in MESSAGE_DIFFERS:
        assert " ".join(str(ours.value).split()) == " ".join(str(theirs.value).split())
    elif what.startswith("check_numerics"):
        assert str(ours.value) in str(theirs.value)


def test_passing_checks_pass_in_tensorflow_too():
    tf = pytest.importorskip("tensorflow")
    for m in (tf, ek):
        d = m.debugging
        x = m.constant([1.0, 2.0])
        assert d.assert_equal(x, x) is None
        assert d.assert_less(x, 3.0) is None
        assert d.assert_near(x, m.constant([1.0, 2.0 + 1e-6])) is None
        assert d.assert_rank(x, 1) is None
        assert d.assert_shapes([(x, ("N",)), (m.zeros((2, 3)), ("N", 3))]) is None
        assert d.Assert(True, [x]) is None
        assert d.is_numeric_tensor(x) and not d.is_numeric_tensor(m.constant(True))


def test_set_log_device_placement_logs_each_op_of_this_thread(capsys):
    import threading

    assert not ek.debugging.get_log_device_placement()
    ek.debugging.set_log_device_placement(True)
    try:
        assert ek.debugging.get_log_device_placement()
        a = ek.constant([[1.0, 2.0], [3.0, 4.0]])
        c = ek.matmul(a, a) + 1.0
        worker = threading.Thread(target=lambda: ek.constant([1.0]) * 3.0)  # not this thread
        worker.start()
        worker.join()
    finally:
        ek.debugging.set_log_device_placement(False)
    ek.matmul(a, a)  # off again: not logged
    lines = capsys.readouterr().err.splitlines()
    cpu = "/job:localhost/replica:0/task:0/device:CPU:0"
    assert lines == [f"Executing op MatMul in device {cpu}", f"Executing op AddV2 in device {cpu}"]
    np.testing.assert_array_equal(c.numpy(), [[8.0, 11.0], [16.0, 23.0]])
    with pytest.raises(TypeError, match="enabled must be a bool"):
        ek.debugging.set_log_device_placement("yes")
