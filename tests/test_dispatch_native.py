"""dispatch's observed path in C (native/_dispatch.c) against `dispatch._observed`."""

from __future__ import annotations

import inspect
import time

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.core import dispatch
from eagerkernel.runtime.core.profiling_tape import ProfilingTape

native = pytest.mark.skipif(
    dispatch._observe is dispatch._observed, reason="_dispatch.c not built or disabled"
)


def ops():
    """Ops that take the C path (one or two plain inputs) and ones it hands to Python."""
    x = ek.constant(np.array([0.5, -1.5, 2.0], np.float32))
    y = ek.constant(np.array([2.0, 3.0, -1.0], np.float32))
    v = ek.Variable(np.array([1.0, 2.0, 3.0], np.float32))
    return [
        ("Mul", lambda: x * y),  # array_op
        ("Exp", lambda: ek.exp(x)),  # one input
        ("Maximum", lambda: ek.maximum(x, y)),  # fwd(xp, a, b)
        ("Variable", lambda: x * v),
        ("params", lambda: ek.reduce_sum(x * y, axis=0)),
        (
            "matmul params",
            lambda: ek.matmul(ek.reshape(x, (1, 3)), ek.reshape(y, (1, 3)), transpose_b=True),
        ),
        ("bias_add", lambda: ek.nn.bias_add(ek.reshape(x, (1, 3)), v)),
        ("multi-output", lambda: ek.unstack(ek.reshape(x, (3, 1)))),
        (
            "saves",  # the forward returns (output, saved): TF's fused kernel's backprop
            lambda: ek.nn.sparse_softmax_cross_entropy_with_logits(
                labels=ek.constant([2]), logits=ek.reshape(x, (1, 3))
            ),
        ),
        ("int", lambda: ek.constant([1, 2]) + ek.constant([3, 4])),
    ]


def run(observe, make):
    saved = dispatch._observe
    dispatch._observe = observe
    try:
        with ProfilingTape() as tape:
            out = make()
        return out, [
            (r.prim.name, len(r.inputs), dict(r.params), r.seconds is not None)
            for r in tape.records
        ]
    finally:
        dispatch._observe = saved


@native
@pytest.mark.parametrize(("name", "make"), ops(), ids=[n for n, _ in ops()])
def test_c_and_python_observe_the_same(name, make):
    out_c, records_c = run(dispatch._observe, make)
    out_py, records_py = run(dispatch._observed, make)
    assert records_c == records_py and records_c
    outs_c = out_c if isinstance(out_c, list) else [out_c]
    outs_py = out_py if isinstance(out_py, list) else [out_py]
    for a, b in zip(outs_c, outs_py):
        assert type(a) is type(b) and a.device == b.device
        np.testing.assert_array_equal(a.numpy(), b.numpy())


@native
def test_c_path_hands_what_a_primitive_saves_to_a_gradient_tape():
    logits = ek.Variable(np.array([[0.5, -1.5, 2.0], [1.0, 0.0, -1.0]], np.float32))
    labels = ek.constant([2, 0])
    results = []
    for observe in (dispatch._observe, dispatch._observed):
        saved_observe, dispatch._observe = dispatch._observe, observe
        try:
            with ek.GradientTape() as tape:
                loss = ek.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
            (record,) = tape.records
            saved = record.saved
            (grad,) = tape.gradient(loss, [logits])
        finally:
            dispatch._observe = saved_observe
        results.append((loss.numpy(), saved, grad.numpy()))
    (loss_c, saved_c, grad_c), (loss_py, saved_py, grad_py) = results
    z = logits.numpy()
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    want = p - np.eye(3, dtype=np.float32)[[2, 0]]  # softmax minus the one-hot labels
    np.testing.assert_array_equal(loss_c, loss_py)
    np.testing.assert_allclose(saved_c, want, rtol=1e-6)
    np.testing.assert_array_equal(saved_c, saved_py)
    np.testing.assert_array_equal(grad_c, grad_py)


@native
def test_errors_raised_in_the_c_path_are_the_python_paths():
    x, y = ek.constant(np.ones(2)), ek.constant(np.ones(3))
    with ek.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(ek.errors.InvalidArgumentError, match="AddV2: incompatible shapes"):
            x + y
    assert tape.records == []  # the failed op recorded nothing


@native
def test_c_path_hands_device_scopes_and_sync_to_python(monkeypatch):
    from eagerkernel.runtime.core.device import Device

    calls = []
    monkeypatch.setattr(Device, "synchronize", lambda self: calls.append(self.name))
    x = ek.constant(2.0)
    with ProfilingTape() as tape:
        tape.set_sync(True)
        y = x * x
        tape.set_sync(False)
        with ek.device("/cpu:0"):
            z = y + 1.0
    assert calls == ["/cpu:0", "/cpu:0"] and float(z) == 5.0
    assert [r.prim.name for r in tape.records] == ["Mul", "AddV2"]


@native
def test_observe_rejects_bad_calls():
    with pytest.raises(TypeError, match=r"expected \(prim, inputs\[, params\]\)"):
        dispatch._observe(1)


@native
def test_a_thread_that_never_recorded_runs_its_ops_unobserved_while_another_records():
    import threading

    x = ek.constant(np.array([1.0, 2.0], np.float32))
    seen = {}

    def worker():
        y = x * 3.0  # this thread has no recorder and no scope: nothing records it
        seen["y"] = y.numpy().tolist()
        seen["device"] = y.device

    with ProfilingTape() as tape:
        z = x * 2.0
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    assert seen == {"y": [3.0, 6.0], "device": "/job:localhost/replica:0/task:0/device:CPU:0"}
    assert [r.prim.name for r in tape.records] == ["Mul"] and tape.records[0].output is z


# -- BinaryOp: the public two-input ops' fast path in C, against their Python op ------------------

binary_native = pytest.mark.skipif(
    not hasattr(ek.multiply, "__wrapped__"), reason="_dispatch.c not built or disabled"
)


def binary_cases():
    """Calls the C op runs itself (two tensors of one dtype and device, nothing recording) and
    calls it hands to the Python op (conversion, keyword, a composite tensor, errors)."""
    x = ek.constant(np.array([0.5, -1.5, 2.0], np.float32))
    y = ek.constant(np.array([2.0, 3.0, -1.0], np.float32))
    v = ek.Variable(np.array([1.0, 2.0, 3.0], np.float32))
    i = ek.constant(np.array([1, 2, 3], np.int32))
    s = ek.constant(np.float32(4.0))  # a 0-d tensor
    return [
        ("tensors", lambda op: op(x, y)),
        ("variable", lambda op: op(x, v)),
        ("variable first", lambda op: op(v, x)),
        ("scalar tensor", lambda op: op(x, s)),
        ("ints", lambda op: op(i, i)),
        ("python number", lambda op: op(x, 2.0)),
        ("number first", lambda op: op(3.0, x)),
        ("inexact number", lambda op: op(x, 0.1)),  # rounded to float32 first, as TF does
        ("python int", lambda op: op(x, 3)),
        ("int first", lambda op: op(-2, x)),
        ("big int", lambda op: op(x, 2**40 + 1)),  # rounded to float32, as a cast rounds it
        ("float64 tensor", lambda op: op(ek.constant(np.array([0.1, 2.5])), 0.1)),
        ("beyond float32", lambda op: op(x, 1e300)),  # the Python op's conversion decides
        ("nan", lambda op: op(x, float("nan"))),
        ("negative zero", lambda op: op(-0.0, x)),
        ("bool", lambda op: op(x, True)),
        ("int tensor and number", lambda op: op(i, 2)),
        ("0-d tensor and number", lambda op: op(s, 0.5)),
        ("numpy array", lambda op: op(x, np.array([1.0, 2.0, 3.0], np.float32))),
        ("name keyword", lambda op: op(x, y, name="m")),
        ("ragged", lambda op: op(ek.ragged.constant([[1.0, 2.0], [3.0]]), 2.0)),
    ]


@binary_native
@pytest.mark.parametrize("public", ["multiply", "add", "subtract"])
@pytest.mark.parametrize(("case", "call"), binary_cases(), ids=[c for c, _ in binary_cases()])
def test_binary_op_in_c_computes_what_its_python_op_does(public, case, call):
    op = getattr(ek, public)
    got, want = call(op), call(op.__wrapped__)
    assert type(got) is type(want)
    if isinstance(want, ek.Tensor):
        assert got.dtype == want.dtype and got.device == want.device
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    else:  # a RaggedTensor
        assert got.to_list() == want.to_list()


@binary_native
def test_an_int_beyond_64_bits_beside_a_float_tensor_is_rounded_to_its_dtype():
    # TensorFlow 2.21: tf.constant([1.0, 2.0]) * 2**70 == [1.1805916e+21, 2.3611832e+21]
    x = ek.constant(np.array([1.0, 2.0], np.float32))
    for got in (ek.multiply(x, 2**70), ek.multiply.__wrapped__(x, 2**70), 2**70 * x):
        assert got.dtype == ek.float32
        np.testing.assert_array_equal(got.numpy(), np.float32([2.0**70, 2.0**71]))
    y = ek.constant(np.array([1.0], np.float64)) - (2**64 + 5)
    np.testing.assert_array_equal(y.numpy(), [1.0 - 2.0**64])


@binary_native
def test_binary_op_in_c_leaves_numbers_to_the_python_op_under_a_tape_or_numpy_behavior():
    x = ek.constant(np.array([0.5, -1.5], np.float32))
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.multiply(x, 3.0)  # recorded: the Python op converts 3.0 to a tensor input
    assert [(r.prim.name, len(r.inputs)) for r in tape.records] == [("Mul", 2)]
    (g,) = tape.gradient(y, [x])
    np.testing.assert_array_equal(g.numpy(), [3.0, 3.0])
    from eagerkernel.runtime.core.numpy_methods import STATE

    saved = STATE.enabled, STATE.promotion
    try:
        STATE.enabled, STATE.promotion = True, "all"  # the new type promotion: weak numbers
        got, want = ek.multiply(x, 2.0), ek.multiply.__wrapped__(x, 2.0)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    finally:
        STATE.enabled, STATE.promotion = saved


@binary_native
@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: (ek.constant([1.0]), ek.constant([1, 2])), TypeError, "Mul: inputs must have"),
        (
            lambda: (ek.constant([1.0, 2.0]), ek.constant([1.0, 2.0, 3.0])),
            ek.errors.InvalidArgumentError,
            r"Mul: incompatible shapes x: \(2,\), y: \(3,\)",
        ),
        (
            lambda: (ek.constant([1.0], dtype=ek.float64), ek.constant([1.0])),
            TypeError,
            "x: float64, y: float32",
        ),
    ],
    ids=["dtype", "shape", "float widths"],
)
def test_binary_op_in_c_raises_the_python_ops_errors(make, error, message):
    x, y = make()
    with pytest.raises(error, match=message):
        ek.multiply(x, y)
    with pytest.raises(error, match=message):
        x * y


@binary_native
def test_binary_op_in_c_rejects_tensors_on_two_devices():
    from eagerkernel.runtime.core.device import Device
    from eagerkernel.runtime.core.tensor import make

    other = Device("GPU", 0, np, virtual=True)  # a NumPy-backed second device
    x = ek.constant([1.0, 2.0])
    y = make(np.array([3.0, 4.0], np.float32), other)
    with pytest.raises(ek.errors.InvalidArgumentError, match="Mul: inputs are on different"):
        ek.multiply(x, y)


@binary_native
def test_binary_op_in_c_is_recorded_like_the_python_op():
    x = ek.constant(np.array([1.0, 2.0], np.float32))
    w = ek.Variable(np.array([3.0, 4.0], np.float32))
    with ek.GradientTape() as tape:  # w is watched as it is read, through the C op
        y = ek.multiply(x, w) + w
    # d(x * w + w)/dw = x + 1
    np.testing.assert_array_equal(tape.gradient(y, w).numpy(), [2.0, 3.0])
    with ProfilingTape() as profiled:
        z = x * x
    (record,) = profiled.records
    assert record.prim.name == "Mul" and record.output is z and record.seconds > 0


@binary_native
def test_binary_op_in_c_behaves_as_a_function():
    op = ek.multiply
    assert op.__name__ == "Mul" and "tf.math.multiply" in op.__doc__
    assert str(inspect.signature(op)) == "(x, y, name=None)"

    class Holder:
        mul = ek.multiply  # binds as a method, like a Python function

    h = Holder()
    assert h.mul.__self__ is h and h.mul.__func__ is ek.multiply
    with pytest.raises(TypeError, match=r"Mul: Attempt to convert a value .*Holder"):
        h.mul(ek.constant(3.0))  # bound: h is passed as x, and is not convertible
    assert Holder.mul is ek.multiply
    import copy

    assert copy.copy(op) is op and copy.deepcopy({"op": op})["op"] is op  # as functions


@binary_native
def test_binary_op_in_c_hands_composite_tensors_the_public_op():
    # A SparseTensor supports `*` with a dense value (TF's sparse-dense product) and not
    # `+`: it tells them apart by the op it is handed, which must be the public one.
    st = ek.sparse.from_dense([[1.0, 0.0], [0.0, 3.0]])
    doubled = ek.sparse.to_dense(ek.multiply(st, 2.0)).numpy().tolist()
    assert doubled == [[2.0, 0.0], [0.0, 6.0]]
    assert ek.sparse.to_dense(st * 2.0).numpy().tolist() == doubled
    with pytest.raises(TypeError, match="AddV2: not supported between a SparseTensor"):
        ek.add(st, 2.0)


@native
@pytest.mark.parametrize("tsc", [False, True])
def test_observed_forward_times_agree_with_perf_counter(tsc):
    """The C path times a forward with the time-stamp counter or CLOCK_MONOTONIC
    (`use_tsc`); either way a record's seconds lie within the wall time around the op."""
    from eagerkernel.runtime.native import _dispatch

    previous = _dispatch.forward_clock()[0] == "tsc"
    try:
        used = _dispatch.use_tsc(tsc)
        name, per_tick = _dispatch.forward_clock()
        assert name == ("tsc" if used else "monotonic")
        if used:
            assert 1e-11 < per_tick < 1e-8  # a 0.1-100 GHz counter
        x = ek.constant(np.random.default_rng(0).random((300, 300), np.float32))
        for _ in range(5):
            with ProfilingTape() as tape:
                t0 = time.perf_counter()
                y = x * x
                wall = time.perf_counter() - t0
            (record,) = tape.records
            assert record.output is y
            assert 0 < record.seconds <= wall * 1.001 + 1e-6
    finally:
        _dispatch.use_tsc(previous)


@native
def test_c_path_with_params_gives_the_same_gradient_as_python():
    w = ek.Variable(np.array([[1.0, -2.0], [0.5, 3.0]], np.float32))
    x = ek.constant(np.array([[1.0, 2.0]], np.float32))

    def grad(observe):
        saved = dispatch._observe
        dispatch._observe = observe
        try:
            with ek.GradientTape() as tape:
                y = ek.reduce_sum(ek.matmul(x, w, transpose_b=True) ** 2.0, axis=1)
            return tape.gradient(y, w).numpy()
        finally:
            dispatch._observe = saved

    expected = 2.0 * (x.numpy() @ w.numpy().T).T @ x.numpy()  # d/dw sum((x w^T)^2)
    np.testing.assert_allclose(grad(dispatch._observe), expected, rtol=1e-6)
    np.testing.assert_allclose(grad(dispatch._observed), expected, rtol=1e-6)
