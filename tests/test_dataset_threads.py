"""ek.data's background threads: they stop when their iterator is exhausted, abandoned or
dropped; worker exceptions reach the consuming loop with their type, message and traceback;
nothing hangs at interpreter exit; worker ops stay off the main thread's tape."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap
import threading
import time
import traceback

import numpy as np
import pytest

import eagerkernel as ek

Dataset = ek.data.Dataset


def data_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("ek.data")]


def wait_for_no_data_threads(timeout: float = 5.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while data_threads() and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.01)
    return data_threads()


@pytest.fixture(autouse=True)
def _no_leftover_threads():
    assert wait_for_no_data_threads() == []
    yield
    assert wait_for_no_data_threads() == []


def slow(x):
    time.sleep(0.001)
    return x


def pipelines():
    base = Dataset.range(10**9)
    return {
        "parallel map": base.map(slow, num_parallel_calls=3),
        "prefetch": base.map(slow).prefetch(4),
        "map + prefetch": base.map(slow, num_parallel_calls=2).prefetch(ek.data.AUTOTUNE),
        "interleave": base.interleave(
            lambda x: Dataset.range(x, x + 10**6), cycle_length=3, num_parallel_calls=2
        ),
    }


@pytest.mark.parametrize("name", list(pipelines()))
def test_dropping_the_iterator_stops_its_threads(name):
    it = iter(pipelines()[name])
    assert int(next(it)) == 0
    assert data_threads()
    del it
    gc.collect()
    assert wait_for_no_data_threads() == []


@pytest.mark.parametrize("name", list(pipelines()))
def test_breaking_out_of_a_loop_stops_its_threads(name):
    for i, _ in enumerate(pipelines()[name]):
        if i == 5:
            break
    assert wait_for_no_data_threads() == []


def test_exhausted_passes_leave_no_threads():
    ds = Dataset.range(20).map(slow, num_parallel_calls=4).prefetch(2)
    assert [int(x) for x in ds] == list(range(20))
    assert [int(x) for x in ds.interleave(lambda x: Dataset.range(2), 2, 1, 2)] == [0, 0, 1, 1] * 10


def test_prefetch_runs_ahead_in_a_thread_with_a_bounded_buffer():
    produced = []

    def gen():
        for i in range(100):
            produced.append(i)
            yield i

    ds = Dataset.from_generator(gen, output_types=ek.int64).prefetch(3)
    it = iter(ds)
    assert int(next(it)) == 0
    deadline = time.monotonic() + 2
    while len(produced) < 4 and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(0.05)
    # One element consumed, three buffered, one more in the producer's hands at most.
    assert 4 <= len(produced) <= 5
    assert "ek.data prefetch" in data_threads()
    assert [int(x) for x in it] == list(range(1, 100))


def test_prefetch_autotune_makes_in_memory_batches_inline():
    x = np.zeros((100, 4), np.float32)
    ds = Dataset.from_tensor_slices(x).shuffle(10).batch(8).prefetch(ek.data.AUTOTUNE)
    it = iter(ds)
    next(it)
    assert data_threads() == []  # no thread: gathering in place is cheaper
    assert len(list(it)) == 12


def user_function_that_fails(x):
    if int(x) == 7:
        raise KeyError(f"no key for element {int(x)}")
    return x


@pytest.mark.parametrize(
    "make",
    [
        lambda: Dataset.range(20).map(user_function_that_fails, num_parallel_calls=3),
        lambda: Dataset.range(20).map(user_function_that_fails).prefetch(2),
        lambda: Dataset.range(20).map(user_function_that_fails, 2, deterministic=False),
        lambda: Dataset.range(2).interleave(
            lambda x: Dataset.range(10).map(user_function_that_fails), 2, 1, num_parallel_calls=2
        ),
    ],
)
def test_worker_exceptions_reach_the_loop_with_their_traceback(make):
    seen = []
    with pytest.raises(KeyError, match="no key for element 7") as info:
        for x in make():
            seen.append(int(x))
    names = [frame.name for frame in traceback.extract_tb(info.value.__traceback__)]
    assert "user_function_that_fails" in names
    assert 7 not in seen


def test_parallel_map_ops_are_not_recorded_on_the_main_tape():
    w = ek.Variable(3.0)
    ds = Dataset.from_tensor_slices([1.0, 2.0]).map(lambda x: x * w, num_parallel_calls=2)
    with ek.GradientTape(persistent=True) as tape:
        total = ek.constant(0.0)
        for x in ds:
            total = total + x
        own = w * 2.0
    assert float(total) == 9.0
    assert tape.gradient(total, w) is None
    assert float(tape.gradient(own, w)) == 2.0


def test_parallel_map_really_runs_in_parallel():
    barrier = threading.Barrier(3, timeout=5)

    def wait_for_others(x):
        barrier.wait()  # deadlocks (times out) unless three calls run at once
        return x

    ds = Dataset.range(3).map(wait_for_others, num_parallel_calls=3)
    assert sorted(int(x) for x in ds) == [0, 1, 2]


def test_interpreter_exits_with_live_pipelines():
    script = textwrap.dedent(
        """
        import time
        import eagerkernel as ek

        def f(x):
            time.sleep(0.001)
            return x

        ds = ek.data.Dataset.range(10**12).map(f, num_parallel_calls=4).prefetch(8)
        ds = ds.interleave(lambda x: ek.data.Dataset.range(3), 2, 1, num_parallel_calls=2)
        it = iter(ds)
        print(int(next(it)))
        """
    )
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"
    assert time.monotonic() - start < 30
