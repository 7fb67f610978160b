"""Profiling tapes (the %%tape magic's recorder) and the displays that read their records.

A profiling tape records every op of its thread with its forward time and running counts per
op. These tests check that every tape semantic holds for it: gradients of any order,
Variables as snapshots, integer ops, per-thread recording, nested and paused tapes, --sync,
and that the displays and the graph layout read the same records.
"""

from __future__ import annotations

import contextlib
import io
import random
import threading

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.magics import TapeGraph, TapeRecord
from eagerkernel.runtime.core import context
from eagerkernel.runtime.core.profiling_tape import ProfilingTape
from eagerkernel.runtime.core.records import Record, Records


def names(tape) -> list[str]:
    return [e.prim.name for e in tape.entries]


def test_profiling_tape_records_timed_ops_and_differentiates():
    x = ek.constant(np.array([1.0, 2.0], np.float32))
    a = ek.constant(np.array([3.0, 0.5], np.float32))
    tape = ProfilingTape()
    with tape:
        assert context.current_recorders() == (tape,)
        y = ek.exp(x * a) + x
    assert context.current_recorders() == () and not context.ACTIVE
    entries = tape.entries
    assert [e.prim.name for e in entries] == ["Mul", "Exp", "AddV2"]
    assert all(isinstance(e, Record) and e.seconds > 0 for e in entries)
    assert entries[0].inputs[0] is x and entries[0].inputs[1] is a
    assert entries[2].output is y and entries[1].inputs == (entries[0].output,)
    assert entries[0].ids == (id(x), id(a))
    gx, ga = tape.gradient(y, [x, a])  # d/dx exp(a x) + x = a exp(a x) + 1
    want = np.exp([3.0, 1.0])
    np.testing.assert_allclose(gx.numpy(), [3.0, 0.5] * want + 1, rtol=1e-6)
    np.testing.assert_allclose(ga.numpy(), [1.0, 2.0] * want, rtol=1e-6)
    assert tape.entries == entries  # the same Record objects on every read


def test_chain_gradient_matches_closed_form():
    x = ek.constant(np.ones(10, np.float32))
    a = ek.constant(np.full(10, 0.999, np.float32))
    b = ek.constant(np.full(10, 0.001, np.float32))
    with ProfilingTape() as tape:
        y = x
        for _ in range(500):
            y = y * a + b
    assert len(Records(tape)) == 1000
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 0.999**500, rtol=1e-4)


def test_profiling_and_plain_tape_together():
    x = ek.constant(2.0)
    c = ek.constant(5.0)
    with ProfilingTape() as prof:
        k = c * c  # before the plain tape
        with ek.GradientTape() as plain:
            assert context.current_recorders() == (prof, plain)
            plain.watch(x)
            y = x * x * k
            z = c + 1.0  # untracked by the plain tape, recorded by the profiling one
        w = y * 2.0
    assert float(plain.gradient(y, x)) == pytest.approx(2 * 2.0 * 25.0)
    assert names(plain) == []  # released
    assert names(prof) == ["Mul", "Mul", "Mul", "AddV2", "Mul"]
    assert all(e.seconds is not None for e in prof.entries)
    dw_dx, dw_dc = prof.gradient(w, [x, c])  # w = 2 x^2 c^2
    assert float(dw_dx) == pytest.approx(4 * 2.0 * 25.0)
    assert float(dw_dc) == pytest.approx(4 * 4.0 * 5.0)
    assert float(z) == 6.0


def test_variable_while_profiling_is_a_snapshot_and_gets_its_gradient():
    v = ek.Variable(3.0)
    x = ek.constant(2.0)
    with ProfilingTape() as tape:
        y = v * x  # a Variable: recorded as a snapshot
        z = y * y
        v.assign(100.0)
    entries = tape.entries
    assert [e.prim.name for e in entries] == ["Mul", "Mul"]
    assert entries[0].inputs[0] is not v and float(entries[0].inputs[0]) == 3.0
    assert entries[0].ids[0] == id(v)
    assert v in tape.watched_variables()
    # z = (v x)^2 with v as it was: dz/dv = 2 v x^2 = 24
    assert float(tape.gradient(z, v)) == pytest.approx(24.0)


def test_integer_ops_are_recorded_with_no_gradient():
    i = ek.constant(np.array([1, 2], np.int32))
    x = ek.constant(np.array([1.0, 2.0], np.float32))
    with ProfilingTape() as tape:
        j = i + i
        y = x * ek.cast(j, ek.float32)
    assert names(tape) == ["AddV2", "Cast", "Mul"]
    gi, gx = tape.gradient(y, [i, x])
    assert gi is None
    np.testing.assert_allclose(gx.numpy(), [2.0, 4.0])


def test_other_thread_is_not_recorded():
    x = ek.constant(2.0)
    results = []

    def worker():
        results.append(float(x * 3.0 + 1.0))

    with ProfilingTape() as tape:
        y = x * x
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    assert results == [7.0]
    assert names(tape) == ["Mul"]
    assert float(tape.gradient(y, x)) == 4.0


def test_each_record_keeps_its_own_forward_time(monkeypatch):
    from eagerkernel.runtime.core import dispatch

    x = ek.constant(np.ones(3, np.float32))
    clock = iter(range(100))  # every perf_counter call reads the next integer
    monkeypatch.setattr(dispatch, "_perf_counter", lambda: float(next(clock)))
    monkeypatch.setattr(dispatch, "_observe", dispatch._observed)  # the Python path reads it
    with ProfilingTape() as tape:
        y = ek.exp(x * x) + x
    outputs, seconds = Records(tape).fields("output", "seconds")
    assert outputs[-1] is y
    assert seconds == [1.0, 1.0, 1.0]  # each op: its end - its start
    assert Records(tape).by_op()[0][2] == 1.0  # the running counts add the same times


def test_sync_synchronizes_around_each_op_and_still_times(monkeypatch):
    from eagerkernel.runtime.core.device import Device

    synced = []
    monkeypatch.setattr(Device, "synchronize", lambda self: synced.append(self.name))
    x = ek.constant(2.0)
    tape = ProfilingTape()
    with tape:
        x * x
        tape.set_sync(True)
        assert context.context().state[2]  # sync
        x + x
        tape.set_sync(False)
        assert not context.context().state[2]
    assert synced == ["/cpu:0"] * 2  # before and after the one synchronized op
    assert names(tape) == ["Mul", "AddV2"]
    assert all(e.seconds >= 0 for e in tape.entries)


def test_second_and_third_derivatives_through_profiling_tapes():
    x = ek.constant(0.7)
    with ProfilingTape() as t3:
        with ProfilingTape() as t2:
            with ProfilingTape() as t1:
                y = ek.sin(x)
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    np.testing.assert_allclose(
        [float(d1), float(d2), float(d3)], [np.cos(0.7), -np.sin(0.7), -np.cos(0.7)], rtol=1e-6
    )


def test_gradient_inside_the_recording_tape_is_recorded_too():
    x = ek.constant(3.0)
    with ProfilingTape() as tape:
        y = x * x * x
        dy = tape.gradient(y, x)  # its VJPs are recorded on the same tape
        d2y = tape.gradient(dy, x)
    assert float(dy) == 27.0 and float(d2y) == 18.0
    assert len(tape.entries) > 2


def test_reset_and_stop_recording_while_profiling():
    x = ek.constant(2.0)
    with ProfilingTape() as tape:
        x * x
        tape.reset()
        y = x + x
        with tape.stop_recording():
            assert context.current_recorders() == ()
            x - x
        z = y * y
    assert names(tape) == ["AddV2", "Mul"]
    assert float(tape.gradient(z, x)) == 16.0  # z = 4 x^2


def test_custom_gradient_while_profiling_keeps_the_order():
    @ek.custom_gradient
    def twice(t):
        return t * 2.0, lambda g: g * 10.0

    x = ek.constant(1.5)
    with ProfilingTape() as tape:
        a = x * x
        b = twice(a)
        c = b + x
    assert names(tape) == ["Mul", "CustomGradient:twice", "AddV2"]
    assert tape.entries[1].seconds is None
    assert float(tape.gradient(c, x)) == pytest.approx(10.0 * 2 * 1.5 + 1.0)


def test_shape_error_names_the_op():
    x = ek.constant(np.ones(3))
    with ProfilingTape(), pytest.raises(ValueError, match="Mul: incompatible shapes"):
        x * ek.constant(np.ones(4))


# -- Records and the displays ---------------------------------------------------------------


def test_records_fields_cover_every_record():
    v = ek.Variable(2.0)
    x = ek.constant(3.0)
    with ProfilingTape() as tape:
        y = v * x  # a Variable's snapshot
        z = ek.exp(y)
    records = Records(tape)
    prims, inputs, outputs, seconds, ids, params = records.fields(
        "prim", "inputs", "output", "seconds", "ids", "params"
    )
    assert [p.name for p in prims] == ["Mul", "Exp"]
    assert inputs[1] == (y,) and outputs == [y, z]
    assert ids[0][0] == id(v) and ids[1] in (None, (id(y),))  # None: the inputs' own ids
    assert all(s > 0 for s in seconds) and params == [{}, {}]
    assert records.entry(1).output is z and records.entry(0) is tape.records[0]
    with pytest.raises(ValueError, match="no field 'shape'"):
        records.fields("shape")


def test_timing_totals_by_op_name_with_an_untimed_op():
    @ek.custom_gradient
    def ident(t):
        return t * 1.0, lambda g: g

    x = ek.constant(2.0)
    with ProfilingTape() as tape:
        y = ident(x * x) * x
    record = TapeRecord(tape, "t")
    timing = record.timing
    seconds = [e.seconds for e in tape.entries]
    assert seconds[1] is None
    assert timing.total == pytest.approx(seconds[0] + seconds[2])
    assert list(timing.by_op) == ["Mul", "CustomGradient:ident"]
    assert timing.by_op["Mul"] == (2, pytest.approx(seconds[0] + seconds[2]))
    assert timing.by_op["CustomGradient:ident"] == (1, None)
    assert "—" in repr(timing)
    assert y is not None


def recount(records: Records) -> list[tuple]:
    """`Records.by_op` the slow way: one record at a time."""
    totals: dict = {}
    for i in range(len(records)):
        e = records.entry(i)
        slot = totals.setdefault(e.prim, [0, 0.0])
        slot[0] += 1
        slot[1] += e.seconds or 0.0
    return [(p, c, s) for p, (c, s) in totals.items()]


def assert_by_op(records: Records) -> None:
    got, want = records.by_op(), recount(records)
    assert [(p, c) for p, c, _ in got] == [(p, c) for p, c, _ in want]
    np.testing.assert_allclose([s for *_, s in got], [s for *_, s in want], rtol=1e-12)


def test_by_op_from_running_counts_matches_a_recount():
    """The profiling tape's running counts cover exactly its records: one cell, a persistent
    tape over two cells, Variables and params, a gradient in between, and a reset."""
    x = ek.constant(np.ones(4, np.float32))
    v = ek.Variable(np.ones(4, np.float32))
    tape = ProfilingTape()
    with tape:
        y = ek.exp(x) * x + x
        y = y * x - 1.0  # a Python number: converted first
    assert_by_op(Records(tape))
    with tape:  # a second cell on the same (persistent) tape
        z = ek.reduce_sum(y * x, axis=0)
        w = z * 2.0
    records = Records(tape)
    assert [p.name for p, *_ in records.by_op()] == ["Exp", "Mul", "AddV2", "Sub", "Sum"]
    assert [n for _, n, _ in records.by_op()] == [1, 4, 1, 1, 1]
    assert_by_op(records)
    with tape:
        u = v * x
        u = u * u
    assert_by_op(Records(tape))
    tape.gradient(u, x)
    with tape:
        x * x
    assert_by_op(Records(tape))
    with tape:
        tape.reset()
    assert Records(tape).by_op() == []
    assert float(w) > 0


def test_graph_text_without_a_picture_needs_no_layout(monkeypatch):
    from eagerkernel.magics import graph as graph_mod

    x = ek.constant(1.0)
    with ProfilingTape() as tape:
        x * x + x
    monkeypatch.setattr(graph_mod, "build_graph", lambda *a, **k: pytest.fail("laid out"))
    assert repr(TapeGraph(Records(tape), "t", picture=False)) == "<graph of tape `t`: 2 ops>"


@pytest.fixture
def shell():
    """IPython's test shell with the extension loaded, text displays only."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.testing.globalipapp import start_ipython

    start_ipython()
    ip = InteractiveShell.instance()
    ip.extension_manager.load_extension("eagerkernel")
    formatter = ip.display_formatter
    active = list(formatter.active_types)
    formatter.active_types = ["text/plain"]
    ip.user_ns.update(ek=ek)
    yield ip
    formatter.active_types = active
    for name in ("_tape", "old", "refs", "dead", "x", "z", "weakref"):
        ip.user_ns.pop(name, None)


def test_text_only_tape_cell_shows_the_op_count(shell, monkeypatch):
    from IPython.utils.capture import capture_output

    from eagerkernel.magics import graph as graph_mod

    monkeypatch.setattr(graph_mod, "build_graph", lambda *a, **k: pytest.fail("laid out"))
    with capture_output() as cap:
        shell.run_cell("%%tape\nx = ek.constant(2.0)\nfor _ in range(60):\n    x = x * 1.0\n")
    record, graph = (o.data["text/plain"] for o in cap.outputs[-2:])
    # a terminal's text form: the first and last 10 ops (a notebook's table shows 50)
    assert "60 ops recorded" in record and "… 40 more ops …" in record
    assert "By op type" in record and "total" in record
    assert graph == "<graph of tape `_tape`: 60 ops>"
    with capture_output() as cap:
        shell.run_cell(
            "%%tape --max-rows 4\nx = ek.constant(2.0)\nfor _ in range(6):\n    x = x * 1.0\n"
        )
    assert "… 2 more ops …" in cap.outputs[-2].data["text/plain"]  # --max-rows sets it


def test_tape_cell_in_a_notebook_shows_more_rows_in_html_than_in_text(shell):
    from IPython.utils.capture import capture_output

    from eagerkernel.magics.tape_views import DEFAULT_MAX_ROWS, DEFAULT_TEXT_ROWS

    shell.display_formatter.active_types = ["text/plain", "text/html"]
    try:
        with capture_output() as cap:
            shell.run_cell("%%tape\nx = ek.constant(2.0)\nfor _ in range(60):\n    x = x * 1.0\n")
    finally:
        shell.display_formatter.active_types = shell.display_formatter.format_types
    bundle = next(o.data for o in cap.outputs if "60 ops recorded" in o.data["text/plain"])
    assert f"… {60 - DEFAULT_TEXT_ROWS} more ops …" in bundle["text/plain"]
    assert f"… {60 - DEFAULT_MAX_ROWS} more ops …" in bundle["text/html"]
    assert bundle["text/html"].count(">Mul</td>") == DEFAULT_MAX_ROWS + 1  # + the totals row
    assert bundle["text/plain"].count(" Mul ") == DEFAULT_TEXT_ROWS + 1


def run_quietly(ip, code: str):
    from IPython.utils.capture import capture_output

    with capture_output():
        result = ip.run_cell(code)
    assert result.success, result.error_in_exec or result.error_before_exec
    return result


OLD_CELL = "%%tape\nx = ek.constant(2.0)\nfor _ in range(10):\n    x * 3.0\n"
WEAKREFS = "import weakref\nrefs = [weakref.ref(r.output) for r in _tape.records]"


def test_rerun_tape_cell_lets_go_of_the_old_records_while_recording(shell):
    run_quietly(shell, OLD_CELL)
    run_quietly(shell, WEAKREFS)
    refs = shell.user_ns["refs"]
    assert len(refs) == 10 and all(r() is not None for r in refs)
    run_quietly(shell, "%%tape\nz = x * 2.0\nz = z * 2.0\ndead = [r() is None for r in refs]")
    # One old record let go of per new op, newest first; the rest when the cell ended.
    assert shell.user_ns["dead"] == [False] * 8 + [True] * 2
    assert all(r() is None for r in refs)
    assert float(shell.user_ns["z"]) == 8.0
    assert [e.prim.name for e in shell.user_ns["_tape"].entries] == ["Mul", "Mul"]


def test_rerun_tape_cell_keeps_an_old_tape_that_is_still_referenced(shell):
    run_quietly(shell, OLD_CELL)
    run_quietly(shell, "old = _tape\n" + WEAKREFS)
    run_quietly(shell, "%%tape\nz = x * 2.0\nz = z * 2.0")
    old = shell.user_ns["old"]
    assert old is not shell.user_ns["_tape"]
    assert all(r() is not None for r in shell.user_ns["refs"])
    assert [e.prim.name for e in old.entries] == ["Mul"] * 10
    assert float(old.gradient(old.entries[-1].output, shell.user_ns["x"])) == 3.0


def _program(rng: random.Random, n_ops: int):
    """A random tape of `n_ops` ops: repeated patterns (collapsing chains), branches, ops on
    a Variable (Entries among lean records), multi-output ops and runs of fresh leaves."""
    unary = {"exp": ek.exp, "neg": ek.negative, "sq": ek.square}
    binary = {"mul": ek.multiply, "add": ek.add}
    ops = [*unary, *binary]

    def apply(name, a, b):
        return unary[name](a) if name in unary else binary[name](a, b)

    leaves = [ek.constant(np.full(2, 0.5 + i, np.float32)) for i in range(4)]
    var = ek.Variable(np.full(2, 0.1, np.float32))
    pool = list(leaves)
    labels = {}
    tape = ProfilingTape()
    with tape, np.errstate(all="ignore"):
        while len(Records(tape)) < n_ops:
            mode = rng.choice(["pattern", "random", "var", "multi", "fresh"])
            if mode == "pattern":
                pattern = [rng.choice(ops) for _ in range(rng.randint(1, 4))]
                y, other = rng.choice(pool), rng.choice(pool)
                for _ in range(rng.randint(1, 8)):
                    for name in pattern:
                        y = apply(name, y, other)
                pool.append(y)
            elif mode == "random":
                pool.append(apply(rng.choice(ops), rng.choice(pool), rng.choice(pool)))
            elif mode == "var":
                pool.append(rng.choice(pool) * var)
            elif mode == "multi":
                a = rng.choice(pool)
                pool.extend(ek.unstack(a) if a.shape.rank else [ek.exp(a)])
            else:
                y = rng.choice(pool)
                for i in range(rng.randint(1, 8)):
                    c = ek.constant(np.full(2, 1.0 + i, np.float32))
                    if rng.random() < 0.5:
                        labels[id(c)] = f"c{i}"
                    leaves.append(c)
                    y = y * c
                pool.append(y)
    labels.update({id(leaves[0]): "a", id(var): "v", id(pool[-1]): "last"})
    return tape, labels


def test_layout_of_an_output_recorded_twice():
    @ek.custom_gradient
    def same(t):
        return t, lambda g: g

    x = ek.constant(np.ones(2, np.float32))
    with ProfilingTape() as tape:
        y = x
        for _ in range(40):
            y = same(ek.negative(y))  # the custom op's output is Negative's output
    spec = TapeGraph(Records(tape), "t").spec
    assert spec.n_ops == 80 and spec.drawn_ops == 80  # 81 nodes: x and one per op
    # the custom op's output is its input: each CustomGradient node reads Negative's node
    # and the next Negative reads the CustomGradient's, the same tensor recorded twice
    assert ("o0", "o1") in spec.edges and ("o1", "o2") in spec.edges


def test_displays_of_a_plain_gradient_tape():
    x = ek.constant(2.0)
    with ek.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    with contextlib.redirect_stdout(io.StringIO()):
        text = repr(TapeRecord(tape, None))
    assert "1 op recorded" in text and "Mul" in text
    assert float(tape.gradient(y, x)) == 4.0
