"""What outlives an ek.data pass: background threads, which stop when their iterator is
exhausted, abandoned or dropped (worker exceptions reach the consuming loop with their type,
message and traceback; nothing hangs at interpreter exit; worker ops stay off the main thread's
tape), and caches, in memory and in files that later datasets and processes reuse."""

from __future__ import annotations

import collections
import gc
import os
import subprocess
import sys
import textwrap
import threading
import time
import traceback

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.data import plan

Dataset = ek.data.Dataset


def values(ds) -> list:
    """Dataset output as plain Python values (lists, tuples, dicts, numbers)."""

    def py(value):
        if isinstance(value, tuple):
            return tuple(py(v) for v in value)
        if isinstance(value, dict):
            return {k: py(v) for k, v in value.items()}
        return value.tolist() if isinstance(value, (np.ndarray, np.generic)) else value

    return [py(e) for e in ds.as_numpy_iterator()]


def data_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("ek.data")]


def wait_for_no_data_threads(timeout: float = 60.0) -> list[str]:
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
    deadline = time.monotonic() + 60  # a wait, not a limit: it ends when the buffer is full
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
    # A hang at exit (a worker thread that never stops) fails through the timeout.
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"


# -- cache --------------------------------------------------------------------------------------


def _counting_dataset(n, calls):
    def f(x):
        calls.append(int(x))
        return x * 2, ek.cast(x, ek.float32) * np.ones(3, np.float32)

    return Dataset.range(n).map(f)


def test_cache_in_memory():
    calls = []
    ds = _counting_dataset(4, calls).cache()
    assert next(iter(ds)) is not None  # a partial pass caches nothing
    first, second = values(ds), values(ds)
    assert first == second and len(first) == 4
    assert calls == [0, 0, 1, 2, 3]


def test_cache_to_file_is_reused_and_never_partial(tmp_path):
    path = str(tmp_path / "cache.bin")
    calls = []
    ds = _counting_dataset(5, calls).cache(path)
    it = iter(ds)
    next(it), next(it)
    del it
    assert os.listdir(tmp_path) == []  # an incomplete pass leaves no file, not even a temp
    expected = values(ds)
    assert os.listdir(tmp_path) == ["cache.bin"]
    calls.clear()
    assert values(ds) == expected and calls == []
    again = _counting_dataset(5, calls).cache(path)  # a later dataset, same filename
    assert values(again) == expected and calls == []
    assert again.element_spec == ds.element_spec and calls == []  # read from the file


def test_cache_file_is_reused_by_a_later_process(tmp_path):
    path = str(tmp_path / "cache")
    Pair = collections.namedtuple("Pair", "a b")
    ds = Dataset.range(3).map(lambda x: {"p": Pair(x, [x, x]), "q": ek.cast(x, ek.float32)})
    expected = values(ds.cache(path))
    script = textwrap.dedent(
        f"""
        import eagerkernel as ek

        def must_not_run(x):
            raise AssertionError("the cache should have been read")

        ds = ek.data.Dataset.range(3).map(must_not_run).cache({path!r})
        for e in ds:
            print(type(e["p"]).__name__, int(e["p"].a), e["p"].b.numpy().tolist(), float(e["q"]))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"Pair {e['p'][0]} {e['p'][1]} {e['q']}" for e in expected]


def test_cache_file_with_ragged_components_and_errors(tmp_path):
    path = str(tmp_path / "ragged")
    ds = Dataset.range(1, 4).map(lambda x: ek.fill([x], x)).cache(path)
    assert values(ds) == values(ds) == [[1], [2, 2], [3, 3, 3]]
    assert values(Dataset.range(3).map(lambda x: x).cache(path)) == [[1], [2, 2], [3, 3, 3]]
    other = Dataset.from_tensor_slices([1.0, 2.0]).cache(path)  # a known spec: checked
    with pytest.raises(ValueError, match="delete the file"):
        list(other)
    junk = tmp_path / "junk"
    junk.write_bytes(b"not a cache")
    with pytest.raises(ValueError, match="not a readable cache file"):
        list(Dataset.range(3).cache(str(junk)))
    with pytest.raises(TypeError, match="cannot cache"):
        Dataset.range(3).window(2).cache(str(tmp_path / "w"))


def test_filled_cache_runs_on_the_fast_path_with_the_same_order(tmp_path):
    def pipeline(filename):
        cached = Dataset.range(40).map(lambda x: (x, x * 2)).cache(filename)
        list(cached)  # fills the cache
        return cached, cached.shuffle(16, seed=2).batch(5)

    for filename in ("", str(tmp_path / "c")):
        cached, fast = pipeline(filename)
        assert cached._plan() is not None
        fast_values = values(fast)
        plan.enabled[0] = False
        try:
            if filename:
                os.remove(filename)
            slow = pipeline(filename)[1]
            assert values(slow) == fast_values
        finally:
            plan.enabled[0] = True
        assert values(cached) == [(i, 2 * i) for i in range(40)]
