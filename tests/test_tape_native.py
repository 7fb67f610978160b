"""The C twin of a tape's `record` (native/_tape.c) against the Python methods it mirrors.

Each scenario runs twice, once with tapes recording through the C `TapeRecorder` and once
through the Python `record` methods (the specification), and must give the same records, the
same running counts and the same gradients.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.core import tape as tape_mod
from eagerkernel.runtime.core.profiling_tape import ProfilingTape

native = pytest.mark.skipif(tape_mod._NativeRecord is None, reason="_tape.c was not built")


def run(scenario, use_native: bool):
    old = tape_mod.native_recording[0]
    tape_mod.native_recording[0] = use_native
    try:
        return scenario()
    finally:
        tape_mod.native_recording[0] = old


def summary(tape) -> list:
    """What a record holds, with ids replaced by positions, so two runs compare."""
    where = {}

    def name(i):
        return where.setdefault(i, len(where))

    rows = []
    for r in tape.records:
        rows.append(
            (
                r.prim.name,
                tuple(name(i) for i in r.ids),
                tuple(name(id(o)) for o in r.outputs),
                sorted(r.params),
                r.saved is None,
                r.seconds is None,
            )
        )
    return rows


def plain_scenario():
    x = ek.constant(np.linspace(0.1, 1.0, 4).astype(np.float32))
    w = ek.Variable(np.full(4, 0.5, np.float32))
    i = ek.constant(np.arange(4, dtype=np.int32))
    c = ek.constant(np.full(4, 2.0, np.float32))
    with ek.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * c + c  # tracked through x
        z = c * c  # untracked: not recorded
        k = i + i  # integer: not recorded
        u = y * w  # a Variable: the Python path (snapshot)
        parts = ek.unstack(ek.reshape(u, (2, 2)))  # a multi-output op
        s = ek.reduce_sum(parts[0] * parts[1]) + ek.reduce_sum(ek.exp(y))
    grads = [g.numpy() for g in tape.gradient(s, [x, w])]
    return summary(tape), grads, float(ek.reduce_sum(z)), int(ek.reduce_sum(k))


def profiling_scenario():
    x = ek.constant(np.array([0.5, 1.5], np.float32))
    v = ek.Variable(np.array([2.0, 3.0], np.float32))
    with ProfilingTape() as tape:
        y = ek.exp(x * x)
        z = y * v + ek.cast(ek.constant([1, 2]) + 1, ek.float32)
        s = ek.reduce_sum(z)
    from eagerkernel.runtime.core.records import Records

    counts = [(p.name, n, seconds is not None) for p, n, seconds in Records(tape).by_op()]
    grads = [g.numpy() for g in tape.gradient(s, [x, v])]
    return summary(tape), counts, grads


def variable_reads_scenario():
    """First reads of Variables by fresh tapes, as every training step makes them: a Variable
    read before the tape existed (its snapshot still alive), one updated in place between
    reads (a stale snapshot), a frozen one, an integer one, a tape that does not watch what
    it reads, and two tapes nested around the same reads."""
    x = ek.constant(np.array([0.5, -1.0, 2.0], np.float32))
    w = ek.Variable(np.array([1.0, 2.0, 3.0], np.float32), name="w")
    b = ek.Variable(np.array([0.5, 0.5, 0.5], np.float32), name="b")
    frozen = ek.Variable(np.array([2.0, 2.0, 2.0], np.float32), trainable=False)
    count = ek.Variable(np.array([1, 2, 3], np.int32))
    out = []
    with ek.GradientTape(persistent=True) as keeper:  # its snapshot of w lives as long as it
        early = w * 1.0
    for _ in range(3):
        with ek.GradientTape() as tape:
            y = x * w + b
            y = y * frozen + ek.cast(count, ek.float32)
            loss = ek.reduce_sum(y * w)  # a second read of w: the steady state
        watched = [v.name for v in tape.watched_variables()]
        rows = summary(tape)
        grads = [g.numpy() for g in tape.gradient(loss, [w, b])]
        out.append((rows, watched, grads))
        w.assign_sub(0.1 * grads[0])  # a new value: the next read makes a new snapshot
    with ek.GradientTape(watch_accessed_variables=False) as quiet:
        z = ek.reduce_sum(x * w)
    out.append((summary(quiet), list(quiet.watched_variables()), [quiet.gradient(z, w)]))
    with ek.GradientTape() as outer:
        with ek.GradientTape() as inner:
            y = ek.reduce_sum(w * w * x)
        (g,) = inner.gradient(y, [w])
        h = ek.reduce_sum(g)
    out.append(
        (
            summary(outer),
            [v.name for v in outer.watched_variables()],
            [outer.gradient(h, w).numpy()],
        )
    )
    del early, keeper
    return out


@native
def test_c_and_python_record_the_same_variable_reads():
    c, python = run(variable_reads_scenario, True), run(variable_reads_scenario, False)
    assert len(c) == len(python) == 5
    for (rows_c, watched_c, grads_c), (rows_py, watched_py, grads_py) in zip(c, python):
        assert rows_c == rows_py
        assert watched_c == watched_py
        for ga, gb in zip(grads_c, grads_py):
            if gb is None:
                assert ga is None
            else:
                np.testing.assert_array_equal(ga, gb)
    # the values, against the closed form: d/dw sum((x w + b) f + c) w) = x f w + (x w + b) f + c
    x, f, c_ = np.array([0.5, -1.0, 2.0]), 2.0, np.array([1.0, 2.0, 3.0])
    w0 = np.array([1.0, 2.0, 3.0])
    want = x * f * w0 + (x * w0 + 0.5) * f + c_
    np.testing.assert_allclose(c[0][2][0], want, rtol=1e-6)
    assert c[0][1] == ["w:0", "b:0"]  # trainable floating Variables, in order of first read
    assert c[3][1] == [] and c[3][2] == [None]  # watch_accessed_variables=False
    np.testing.assert_allclose(c[4][2][0], 2 * x, rtol=1e-6)  # d/dw sum(2 w x) = 2 x


@native
@pytest.mark.parametrize("scenario", [plain_scenario, profiling_scenario])
def test_c_and_python_record_the_same(scenario):
    c, python = run(scenario, True), run(scenario, False)
    assert c[0] == python[0] and c[0]  # the records
    for a, b in zip(c[1:], python[1:]):
        if isinstance(a, list) and a and isinstance(a[0], np.ndarray):
            for ga, gb in zip(a, b):
                np.testing.assert_array_equal(ga, gb)
        else:
            assert a == b


@native
def test_tapes_record_through_the_c_twin_when_it_is_built():
    tape = ek.GradientTape()
    assert isinstance(tape.record, tape_mod._NativeRecord)
    tape_mod.native_recording[0] = False
    try:
        assert "record" not in vars(ek.GradientTape())
    finally:
        tape_mod.native_recording[0] = True


@native
def test_op_totals_in_c_equal_the_python_loop(monkeypatch):
    from eagerkernel.runtime.core import records as records_mod

    @ek.custom_gradient
    def ident(t):
        return t * 1.0, lambda g: g

    x = ek.constant(np.ones(3, np.float32))
    with ProfilingTape() as tape:
        for _ in range(5):
            x = ek.exp(x * 0.5) - 1.0
        x = ident(x)  # an untimed record
    view = records_mod.Records(tape)
    op_totals = records_mod._op_totals
    c = view.by_op()
    monkeypatch.setattr(records_mod, "_op_totals", None)
    python = view.by_op()
    assert [(p.name, n) for p, n, _ in c] == [(p.name, n) for p, n, _ in python]
    assert [p.name for p, _, _ in c] == ["Mul", "Exp", "Sub", "CustomGradient:ident"]
    for (_, _, a), (_, _, b) in zip(c, python):
        assert a == pytest.approx(b, rel=1e-12) if b is not None else a is None
    with pytest.raises(TypeError, match="not a Record"):
        op_totals([1], records_mod.Record)


@native
def test_op_totals_past_the_first_sixteen_primitives(monkeypatch):
    # op_totals finds its first 16 distinct primitives by address and the rest in a dict:
    # 20 op types, recorded twice in turn, count and time the same as the Python loop.
    from eagerkernel.runtime.core import records as records_mod

    ops = [
        ek.exp,
        ek.sin,
        ek.cos,
        ek.tanh,
        ek.sigmoid,
        ek.abs,
        ek.square,
        ek.negative,
        ek.math.log1p,
        ek.math.softplus,
        ek.math.erf,
        ek.math.atan,
        ek.math.sinh,
        ek.math.cosh,
        ek.math.expm1,
        ek.math.floor,
        ek.math.ceil,
        ek.math.round,
        ek.math.sign,
        ek.math.asinh,
    ]
    x = ek.constant(np.full(3, 0.5, np.float32))
    with ProfilingTape() as tape:
        for _ in range(2):
            for op in ops:
                op(x)
    view = records_mod.Records(tape)
    c = view.by_op()
    monkeypatch.setattr(records_mod, "_op_totals", None)
    python = view.by_op()
    assert len({p.name for p, _, _ in c}) == 20
    assert [(p, n) for p, n, _ in c] == [(p, n) for p, n, _ in python]
    assert all(n == 2 for _, n, _ in c)
    for (_, _, a), (_, _, b) in zip(c, python):
        assert a == pytest.approx(b, rel=1e-12)


@native
def test_a_tape_is_freed_by_reference_counting_alone():
    """The C recorder holds its tape weakly: no cycle keeps a tape's records alive."""
    x = ek.constant(1.0)
    gc.disable()
    try:
        with ek.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * 2.0
        ref = weakref.ref(y)
        del tape, y
        assert ref() is None
    finally:
        gc.enable()


@native
def test_c_recorder_rejects_bad_calls():
    tape = ek.GradientTape()
    with pytest.raises(TypeError, match="expected 6 positional arguments"):
        tape.record(1, 2)
    with pytest.raises(TypeError, match="weakref"):
        tape_mod._NativeRecord(
            set(), [], False, {}, print, tape, ek.Tensor, ek.Variable, tape_mod.Record
        )


@native
def test_the_tape_suites_pass_with_the_python_twins(tmp_path):
    """The same tests, in a fresh process where tapes record and dispatch observes ops through
    the Python functions that the C twins mirror (EAGERKERNEL_NATIVE=0)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    here = Path(__file__).parent
    suites = [
        "test_tape.py",
        "test_tape_semantics.py",
        "test_threads.py",
        "test_autodiff.py",
        "test_profiling_tape.py",
        "test_devices.py",
        "test_elementwise.py",
    ]
    env = {**os.environ, "EAGERKERNEL_NATIVE": "0", "MPLBACKEND": "Agg"}
    code = (
        "import sys, pytest\n"
        "from eagerkernel.runtime.core import tape\n"
        "from eagerkernel.runtime.core import dispatch\n"
        "assert tape.native_recording == [False]\n"
        "assert dispatch._observe is dispatch._observed\n"
        "sys.exit(pytest.main(sys.argv[1:]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
        + [str(here / s) for s in suites],
        env=env,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert " passed" in result.stdout and "failed" not in result.stdout


@native
def test_the_c_record_behaves_as_the_python_record():
    from eagerkernel.runtime.native._tape import Record as CRecord

    from eagerkernel.runtime.core import records as records_mod

    assert records_mod.Record is CRecord
    x, y = ek.constant(1.0), ek.constant(2.0)
    out = x * y

    class Prim:  # any object with a name serves as the primitive here
        name = "Mul"

    made = []
    for cls in (CRecord, records_mod.PyRecord):
        r = cls(Prim(), (x, y), None, out)
        assert r.params == {} and r.saved is None and r.seconds is None
        assert r.ids == (id(x), id(y)) and r.outputs == (out,) and repr(r) == "<Record Mul>"
        r2 = cls(Prim(), (x,), (7,), (out, out), {"axis": 0}, "s", 1.5)
        assert (r2.ids, r2.outputs, r2.params, r2.saved, r2.seconds) == (
            (7,),
            (out, out),
            {"axis": 0},
            "s",
            1.5,
        )
        r2.seconds = 2.5  # fields are writable, as the Python class's slots
        made.append((r2.seconds, r2._ids))
    assert made[0] == made[1]
    with pytest.raises(TypeError):
        CRecord(Prim(), (x,))  # ids and output are required


@native
def test_c_and_python_note_the_same_callers_and_scopes():
    # Where each op was called from (the innermost frame outside eagerkernel) and the scope
    # it ran in: the C recorder and the Python one agree, ops of a layer and plain ops alike.
    dense = ek.keras.layers.Dense(2, name="caller_dense")
    x = ek.ones((1, 3))

    def user_function(t):
        return ek.exp(t) * 2.0  # this line runs two ops

    def run():
        tape = ProfilingTape()
        with tape:
            y = dense(x)
            z = user_function(y)
        assert z is not None
        return (
            [(code.co_name, line) for code, line in tape.sources],
            [tuple(name for _, name in path) for path in tape.scopes],
        )

    results = []
    for use_native in (True, False):
        old = tape_mod.native_recording[0]
        tape_mod.native_recording[0] = use_native
        try:
            results.append(run())
        finally:
            tape_mod.native_recording[0] = old
    assert results[0] == results[1]
    sources, scopes = results[0]
    line = user_function.__code__.co_firstlineno + 1
    assert sources[-2:] == [("user_function", line)] * 2
    assert sources[0][0] == "run" and scopes[:2] == [("caller_dense",)] * 2
    assert scopes[-2:] == [(), ()]


@native
def test_c_and_python_agree_on_the_lines_of_a_loop():
    # The C recorder resolves each call site (code object and instruction) to its line once
    # and reuses it: ops of one statement, of a loop's later rounds, and of a statement
    # spread over lines must still get the line the Python recorder reads from the frame.
    a, b = ek.constant(0.5), ek.constant(1.0)

    def loop(y):
        for _ in range(3):
            y = y * a + b
            y = (
                ek.exp(
                    y * a,  # a statement over lines: each op gets its instruction's line
                )
                + b
            )
        return y

    def run():
        tape = ProfilingTape()
        with tape:
            loop(ek.constant(0.0))
        return [(code.co_name, line) for code, line in tape.sources]

    results = []
    for use_native in (True, False):
        old = tape_mod.native_recording[0]
        tape_mod.native_recording[0] = use_native
        try:
            results.append(run())
        finally:
            tape_mod.native_recording[0] = old
    assert results[0] == results[1]
    first = loop.__code__.co_firstlineno
    assert len(results[0]) == 15  # 5 ops a round
    assert results[0][:2] == [("loop", first + 2)] * 2  # y * a + b: two ops, one line
    assert results[0][5:10] == results[0][:5]  # the next round: the same lines
    assert len({line for _, line in results[0][:5]}) > 1


@native
def test_c_and_python_count_the_same_owned_bytes(monkeypatch):
    from eagerkernel.runtime.core import records as records_mod
    from eagerkernel.runtime.core.records import Records

    x = ek.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    with ProfilingTape() as tape:
        y = x * x  # float32[2,3]: 24 bytes
        ek.transpose(y)  # a view
        ek.reduce_sum(ek.cast(y, ek.float64))  # float64[2,3] (48) and a float64 scalar (8)
        ek.constant([1, 2]) + ek.constant([3, 4])  # int32[2]: 8
    with ProfilingTape() as multi:
        ek.unstack(x)  # a multi-output op
    c = (Records(tape).owned_bytes(), Records(multi).owned_bytes())
    monkeypatch.setattr(records_mod, "_owned_bytes", None)
    python = (Records(tape).owned_bytes(), Records(multi).owned_bytes())
    assert c == python
    assert c[0] == (24 + 48 + 8 + 8, [1]) and c[1] is None


def _chain(x, a, steps):
    y = x
    for _ in range(steps):
        y = y * a + 1.0
    return y


@pytest.mark.parametrize("use_native", [True, False])
def test_release_while_recording_lets_go_of_the_old_tape_and_records_right(use_native):
    """A tape that takes an old tape's records (`release_while_recording`, as a re-run %%tape
    cell does) empties the old tape, records its own ops as usual (values, times and
    gradients), and leaves alone the old records something else still refers to."""
    if use_native and tape_mod._NativeRecord is None:
        pytest.skip("_tape.c was not built")
    old_flag = tape_mod.native_recording[0]
    tape_mod.native_recording[0] = use_native
    try:
        x = ek.constant(np.array([1.0, 2.0], np.float32))
        a = ek.constant(np.array([0.5, 0.25], np.float32))
        with ProfilingTape() as old:
            _chain(x, a, 6)
        kept = old.records[3]  # a record the user still holds
        kept_fields = (kept.prim, kept.inputs, kept.output, kept.seconds)
        kept_value = kept.output.numpy().copy()
        tape = ProfilingTape()
        tape.release_while_recording(old)
        assert len(old) == 0
        with tape:
            y = _chain(x, a, 4)  # fewer ops than the old tape: the rest is freed at the end
        assert len(tape) == 8
        assert [r.prim.name for r in tape.records] == ["Mul", "AddV2"] * 4
        assert all(r.seconds > 0 for r in tape.records)
        assert tape.records[-1].output is y
        (g,) = tape.gradient(y, [x])
        np.testing.assert_allclose(g.numpy(), a.numpy() ** 4)
        assert (kept.prim, kept.inputs, kept.output, kept.seconds) == kept_fields
        np.testing.assert_array_equal(kept.output.numpy(), kept_value)
    finally:
        tape_mod.native_recording[0] = old_flag
