"""Stateful random ops drawn from several threads at once (a Dataset's workers, replicas):
every call reserves its own part of the op's Philox stream, so the draws of 8 threads are
exactly the draws of one thread making the same calls, in some order."""

import sys
import threading

import numpy as np

import eagerkernel as ek


def _draws(calls: int, threads: int) -> list[tuple]:
    ek.random.set_seed(1)
    out: list = []
    lock = threading.Lock()

    def work():
        mine = [tuple(ek.random.uniform([4], seed=3).numpy()) for _ in range(calls)]
        with lock:
            out.extend(mine)

    workers = [threading.Thread(target=work) for _ in range(threads)]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        sys.setswitchinterval(old)
    return out


def test_threads_share_one_stream_without_repeating_a_draw():
    threaded = _draws(50, 8)
    sequential = _draws(400, 1)
    assert len(set(threaded)) == 400  # no two calls got the same counter
    assert sorted(threaded) == sorted(sequential)
    assert np.all((np.array(threaded) >= 0) & (np.array(threaded) < 1))
