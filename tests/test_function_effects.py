"""Effects that restoring state cannot take back (a numpy_function's Python callback, print, an
iterator's next element) happen once per call of a graph function, also when a replay misses a
guard after them and the call goes on with another branch or an eager run. Expected values are
what TensorFlow 2.21 gives for the same programs (each op of a graph runs once per call)."""

from __future__ import annotations

import numpy as np

import eagerkernel as ek


def test_a_callback_steered_break_runs_the_callback_once_per_step():
    # The actor-critic tutorial's episode loop: the environment's `done` flag ends the loop.
    state = {"n": 0, "k": 3}

    @ek.numpy_function(Tout=[ek.int32, ek.int32])
    def env_step(action):
        state["n"] += 1
        return np.array(1, np.int32), np.array(state["n"] >= state["k"], np.int32)

    @ek.function
    def episode(max_steps):
        rewards = ek.TensorArray(dtype=ek.int32, size=0, dynamic_size=True)
        for t in ek.range(max_steps):
            reward, done = env_step(t)
            rewards = rewards.write(t, reward)
            if ek.cast(done, ek.bool):
                break
        return ek.reduce_sum(rewards.stack())

    results = []
    for k in [3, 5, 2, 4, 5, 3]:
        state["n"], state["k"] = 0, k
        results.append((int(episode(10)), state["n"]))
    # TensorFlow 2.21: the reward sum is the episode length, and the callback ran k times.
    assert results == [(3, 3), (5, 5), (2, 2), (4, 4), (5, 5), (3, 3)]


def test_print_before_a_missed_guard_prints_once(capfd):
    @ek.function
    def f(x):
        ek.print("value", x)
        if x > 0:
            return x
        return -x

    outputs = [int(f(ek.constant(v))) for v in (1, -1, -2, 3)]
    assert outputs == [1, 1, 2, 3]
    printed = capfd.readouterr().err.split("\n")
    assert [line for line in printed if line] == ["value 1", "value -1", "value -2", "value 3"]


def test_an_iterator_read_before_a_missed_guard_is_not_read_again():
    it = iter(ek.data.Dataset.range(10))

    @ek.function
    def take_while_small():
        total = ek.constant(0, ek.int64)
        first = next(it)
        total += first
        if first < 3:  # the trace saw 0; the replay with 3 misses after reading it
            total += 100
        return total

    values = [int(take_while_small()) for _ in range(6)]
    assert values == [100, 101, 102, 3, 4, 5]  # every element read once, in order


def test_undoable_effects_are_put_back_and_done_once():
    v = ek.Variable(0.0)

    @ek.function
    def bump(x):
        v.assign_add(1.0)
        if x > 0:
            return v * 2.0
        return v * -1.0

    outs = [float(bump(ek.constant(s))) for s in (1.0, -1.0, -1.0, 1.0)]
    assert outs == [2.0, -2.0, -3.0, 8.0] and float(v) == 4.0
