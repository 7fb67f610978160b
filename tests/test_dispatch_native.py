"""dispatch's observed path in C (native/_dispatch.c) against `dispatch._observed`."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.core import dispatch
from eagerkernel.runtime.core.tape import ProfilingTape

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
        ("multi-output", lambda: ek.unstack(ek.reshape(x, (3, 1)))),
        ("int", lambda: ek.constant([1, 2]) + ek.constant([3, 4])),
    ]


def run(observe, make):
    saved = dispatch._observe
    dispatch._observe = observe
    try:
        with ProfilingTape() as tape:
            out = make()
        return out, [(r.prim.name, len(r.inputs), r.seconds is not None) for r in tape.records]
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
    with pytest.raises(TypeError, match=r"expected \(prim, inputs\)"):
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
