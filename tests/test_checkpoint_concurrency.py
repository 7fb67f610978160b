"""Concurrent savers into one directory, in real threads and real processes: every save
succeeds, every checkpoint gets its own number, the state file always parses and names
complete checkpoints only (issue 17 item 5)."""

import multiprocessing
import os
import sys
import threading

import numpy as np
import pytest

import eagerkernel as ek

SAVES = 100


def check_directory(directory, expected: int) -> None:
    state = ek.train.get_checkpoint_state(directory)
    assert state is not None
    listed = state.all_model_checkpoint_paths
    assert len(listed) == len(set(listed)) == expected
    for p in listed:
        assert os.path.exists(p + ".safetensors"), p
    data = [f for f in os.listdir(directory) if f.endswith(".safetensors")]
    assert len(data) == expected
    assert not [f for f in os.listdir(directory) if ".tmp-" in f]


def test_threads_sharing_one_manager(tmp_path):
    v = ek.Variable(np.zeros(64, np.float32))
    ckpt = ek.train.Checkpoint(v=v)
    manager = ek.train.CheckpointManager(ckpt, tmp_path, max_to_keep=None)
    paths, errors = [], []

    def saver():
        try:
            for _ in range(SAVES):
                paths.append(manager.save())
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=saver) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(paths) == len(set(paths)) == 2 * SAVES
    assert int(ckpt.save_counter.numpy()) == 2 * SAVES  # no increment lost
    check_directory(tmp_path, 2 * SAVES)


def test_threads_with_one_manager_each(tmp_path):
    paths, errors = [], []

    def saver(k):
        try:
            ckpt = ek.train.Checkpoint(v=ek.Variable(float(k)))
            manager = ek.train.CheckpointManager(ckpt, tmp_path, max_to_keep=None)
            for _ in range(SAVES):
                paths.append(manager.save())
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=saver, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(paths) == len(set(paths)) == 2 * SAVES
    check_directory(tmp_path, 2 * SAVES)


def _process_saver(directory, k, queue):
    try:
        ckpt = ek.train.Checkpoint(v=ek.Variable(float(k)))
        manager = ek.train.CheckpointManager(ckpt, directory, max_to_keep=None)
        queue.put((k, [manager.save() for _ in range(SAVES)]))
    except BaseException as exc:
        queue.put(repr(exc))


@pytest.mark.skipif(sys.platform == "win32", reason="uses fork")
def test_processes_with_one_manager_each(tmp_path):
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    procs = [
        context.Process(target=_process_saver, args=(str(tmp_path), k, queue)) for k in range(2)
    ]
    for p in procs:
        p.start()
    results = [queue.get() for _ in procs]
    for p in procs:
        p.join()
        assert p.exitcode == 0
    for r in results:
        assert isinstance(r, tuple), r
    results = [paths for _, paths in sorted(results)]
    paths = results[0] + results[1]
    assert len(paths) == len(set(paths)) == 2 * SAVES
    check_directory(tmp_path, 2 * SAVES)
    # Each process's checkpoints hold its own value.
    for k, mine in enumerate(results):
        v = ek.Variable(-1.0)
        ek.train.Checkpoint(v=v).restore(mine[-1])
        assert float(v.numpy()) == float(k)


def test_threads_with_max_to_keep_keep_a_valid_state(tmp_path):
    errors = []

    def saver(k):
        try:
            ckpt = ek.train.Checkpoint(v=ek.Variable(float(k)))
            manager = ek.train.CheckpointManager(ckpt, tmp_path, max_to_keep=3)
            for _ in range(SAVES // 2):
                manager.save()
                latest = ek.train.latest_checkpoint(tmp_path)
                assert latest is not None and os.path.exists(latest + ".safetensors")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=saver, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    check_directory(tmp_path, 3)


def test_a_later_manager_never_overwrites_a_listed_checkpoint(tmp_path):
    first = ek.train.Checkpoint(v=ek.Variable(1.0))
    manager = ek.train.CheckpointManager(first, tmp_path, max_to_keep=None)
    old = [manager.save() for _ in range(3)]
    # A second saver (another thread, process or an unrestored run) starts counting at 1.
    second = ek.train.Checkpoint(v=ek.Variable(2.0))
    path = ek.train.CheckpointManager(second, tmp_path, max_to_keep=None).save()
    assert os.path.basename(path) == "ckpt-4"
    assert int(second.save_counter.numpy()) == 4
    v = ek.Variable(0.0)
    ek.train.Checkpoint(v=v).restore(old[0])
    assert float(v.numpy()) == 1.0
