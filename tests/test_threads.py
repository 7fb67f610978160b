"""Tapes and device scopes are per thread: threads recording at once never see each other's ops."""

from __future__ import annotations

import sys
import threading

import numpy as np

import eagerkernel as ek
from eagerkernel.runtime.core import context


def test_eight_threads_each_with_its_own_tape_get_every_gradient_right():
    """8 threads x 2000 steps, each step its own tape over its own ops, with the interpreter
    switching threads as often as it can: every gradient equals the closed form."""
    n_threads, steps = 8, 2000
    errors: list = []
    start = threading.Barrier(n_threads)

    def worker(k: int) -> None:
        try:
            a = ek.constant(np.float32(k + 1))
            w = ek.Variable(np.float32(0.5 * (k + 1)))
            start.wait()
            for step in range(steps):
                x = ek.constant(np.float32(step % 7 + 1))
                with ek.GradientTape() as tape:
                    tape.watch(x)
                    y = x * x * a + w * x  # dy/dx = 2 a x + w, dy/dw = x
                gx, gw = tape.gradient(y, [x, w])
                xv = float(step % 7 + 1)
                want = (2 * (k + 1) * xv + 0.5 * (k + 1), xv)
                if gx is None or gw is None or (float(gx), float(gw)) != want:
                    errors.append((k, step, gx, gw, want))
                    return
        except Exception as exc:  # pragma: no cover - reported below
            errors.append((k, repr(exc)))

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=worker, args=(k,)) for k in range(n_threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert errors == []
    assert context.ACTIVE == []  # every tape popped its token


def test_a_tape_never_sees_another_threads_ops():
    x = ek.constant(2.0)
    inside = threading.Event()
    done = threading.Event()
    other: dict = {}

    def worker():
        inside.wait(10)
        with ek.GradientTape() as tape:  # the other thread's own tape
            tape.watch(x)
            other["y"] = x * 5.0
        other["records"] = [r.prim.name for r in tape.records]
        done.set()

    t = threading.Thread(target=worker)
    t.start()
    with ek.GradientTape(persistent=True) as mine:
        mine.watch(x)
        y = x * x
        inside.set()
        done.wait(10)
        z = y + 1.0
    t.join()
    assert [r.prim.name for r in mine.records] == ["Mul", "AddV2"]
    assert other["records"] == ["Mul"]
    assert float(mine.gradient(z, x)) == 4.0


def test_a_thread_that_ended_inside_a_tape_leaves_it_to_no_other_thread():
    """The dispatcher keeps the last thread's state at hand (native/_dispatch.c): a thread that
    ends while its tape is still entered must not pass that tape on to the next thread, which
    may get the dead thread's address for its own thread state (it does not always). Tensor
    operands, so that the ops take the C path."""
    x = ek.constant(np.ones(3, np.float32))
    two, three = ek.constant(np.float32(2.0)), ek.constant(np.float32(3.0))

    def leaves_a_tape_entered(tapes):
        tape = ek.GradientTape(persistent=True)
        tape.__enter__()
        tape.watch(x)
        tapes.append(tape)
        _ = x * two  # recorded; the thread ends without exiting the tape

    def runs_ops(out):
        out.append((x * three).numpy().tolist())

    for _ in range(20):
        tapes: list = []
        out: list = []
        try:
            for target, arg in ((leaves_a_tape_entered, tapes), (runs_ops, out)):
                t = threading.Thread(target=target, args=(arg,))
                t.start()
                t.join()
            assert out == [[3.0, 3.0, 3.0]]
            assert [r.prim.name for r in tapes[0].records] == ["Mul"]
            # the dead thread took its tape out of ACTIVE: ops are back on the fast path
            assert not any(token is tapes[0] for token in context.ACTIVE)
        finally:  # should the check above fail, keep the other tests clean
            for tape in tapes:
                context.discard_recorder(tape)
    assert not context.ACTIVE


def test_a_thread_that_ended_inside_a_device_scope_takes_its_token_out():
    entered = []

    def leaves_a_scope_entered():
        scope = ek.device("/cpu:0")
        scope.__enter__()
        entered.append(len(context.ACTIVE))

    t = threading.Thread(target=leaves_a_scope_entered)
    t.start()
    t.join()
    assert entered and not context.ACTIVE
