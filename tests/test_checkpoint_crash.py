"""SIGKILL during repeated saves never leaves `latest_checkpoint` pointing at a bad state.

The parent forks a child (cheap: eagerkernel is already imported) that restores the latest
checkpoint, then saves ever newer states, each one a state where every variable holds the
same number ``k``, reporting ``k`` through a pipe after each completed save. The parent kills
it with SIGKILL after a short random delay (in three trials of four, counted from its first
completed save, so that a loaded machine still has kills land during saves), then checks
that the latest checkpoint restores completely (checksums pass), consistently (every variable
holds one ``k``) and recently (``k`` is at least the last save the child reported finished).
"""

import os
import random
import select
import signal
import sys
import time

import numpy as np
import pytest

import eagerkernel as ek

pytestmark = pytest.mark.skipif(
    sys.platform == "win32" or not hasattr(os, "fork"), reason="needs fork and SIGKILL"
)

TRIALS = 60


def objects():
    model = ek.keras.Sequential(
        [ek.keras.layers.Dense(256, input_shape=(128,)), ek.keras.layers.Dense(64)]
    )
    opt = ek.keras.optimizers.SGD(0.1, momentum=0.9)
    step = ek.Variable(0, dtype="int64", trainable=False)
    return model, opt, step


def set_state(model, step, k: int) -> None:
    for v in model.variables:
        v.assign(np.full(v.shape, float(k), np.float32))
    step.assign(np.int64(k))


def read_state(model, step) -> int:
    k = int(step.numpy())
    for v in model.variables:
        assert np.all(v.numpy() == float(k)), f"{v.name} is not all {k}: mixed checkpoint"
    return k


def child(directory: str, write_fd: int) -> None:
    model, opt, step = objects()
    ckpt = ek.train.Checkpoint(model=model, optimizer=opt, step=step)
    manager = ek.train.CheckpointManager(ckpt, directory, max_to_keep=3)
    k = 0
    if manager.latest_checkpoint is not None:
        ckpt.restore(manager.latest_checkpoint)
        k = read_state(model, step)
    while True:
        k += 1
        set_state(model, step, k)
        manager.save()
        os.write(write_fd, f"{k}\n".encode())


def test_sigkill_during_saves_never_loses_the_latest_checkpoint(tmp_path):
    directory = str(tmp_path / "run")
    rng = random.Random(1234)
    reported = 0
    restored_counts = []
    torn = {"data": 0, "state": 0}  # kills that hit a write (its temporary file remained)
    seen_tmp: set = set()
    for trial in range(TRIALS):
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns into pytest
            try:
                os.close(read_fd)
                child(directory, write_fd)
            finally:
                os._exit(1)
        os.close(write_fd)
        chunks = []
        if trial % 4 == 0:  # some kills may land before the child's first save ends
            time.sleep(rng.uniform(0.0, 0.06))
        else:  # the others land while later saves run, however slow the machine is
            if select.select([read_fd], [], [], 120)[0]:
                chunks.append(os.read(read_fd, 65536))
            time.sleep(rng.uniform(0.0, 0.06))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status), f"trial {trial}: the child exited by itself ({status})"
        while True:
            chunk = os.read(read_fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
        os.close(read_fd)
        done = [int(x) for x in b"".join(chunks).split()]
        if done:
            reported = done[-1]

        latest = ek.train.latest_checkpoint(directory)
        if reported == 0 and latest is None:
            continue  # killed before the first save finished: nothing promised yet
        assert latest is not None, f"trial {trial}: saves finished but no latest checkpoint"
        model, opt, step = objects()
        ckpt = ek.train.Checkpoint(model=model, optimizer=opt, step=step)
        ckpt.restore(latest)  # raises CheckpointError on a torn or corrupt file
        k = read_state(model, step)
        assert k >= reported, f"trial {trial}: restored {k}, but save {reported} had finished"
        assert k <= reported + 1, f"trial {trial}: restored {k}, only {reported} reported"
        restored_counts.append(k)
        reported = k  # the next child starts from k: its first save is k + 1
        leftovers = {f for f in os.listdir(directory) if ".tmp-" in f}
        torn["data"] += any(f.startswith(".ckpt-") for f in leftovers - seen_tmp)
        torn["state"] += any(f.startswith(".checkpoint") for f in leftovers - seen_tmp)
        seen_tmp |= leftovers
    if os.environ.get("CRASH_DEBUG"):
        print(f"{TRIALS} kills, torn writes left behind: {torn}", file=sys.stderr)
    assert len(restored_counts) >= TRIALS // 2, "too few trials got a save done"
    assert restored_counts == sorted(restored_counts), "went back to an older checkpoint"
    kept = sorted(f for f in os.listdir(directory) if f.endswith(".safetensors"))
    assert len(kept) <= 4  # max_to_keep=3, plus one possibly orphaned by a kill
