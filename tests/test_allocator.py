"""The runtime keeps freed memory (glibc's malloc settings, `runtime.native.allocator`)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

from eagerkernel.runtime.native import allocator

glibc = pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="needs glibc"
)

# Allocates and frees a 48 MB array ten times (above the 32 MiB where glibc's dynamic mmap
# threshold stops rising, below the runtime's) after importing eagerkernel; prints the minor
# page faults of the last nine rounds.
CHILD = """
import json, resource
import numpy as np
import eagerkernel.runtime as rt
np._core.multiarray._set_madvise_hugepage(False)  # count 4 KiB pages, not 2 MiB ones
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
a = np.ones(12 << 20, np.float32); del a
before = faults()
for _ in range(9):
    a = np.ones(12 << 20, np.float32); del a
print(json.dumps([rt.KEEPS_FREED_MEMORY, faults() - before]))
"""


def run_child(flag: str | None):
    env = {k: v for k, v in os.environ.items() if k != "EAGERKERNEL_KEEP_FREED_MEMORY"}
    if flag is not None:
        env["EAGERKERNEL_KEEP_FREED_MEMORY"] = flag
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@glibc
def test_freed_arrays_are_reused_without_page_faults():
    kept, faults = run_child(None)
    assert kept is True
    assert faults < 100  # 48 MB is 12288 pages: none of them is faulted in again


@glibc
def test_the_environment_variable_keeps_glibc_defaults():
    kept, faults = run_child("0")
    assert kept is False
    assert faults > 9 * 10000  # every round maps and faults its 48 MB afresh


def test_disabled_or_foreign_libc_changes_nothing():
    assert allocator.keep_freed_memory({"EAGERKERNEL_KEEP_FREED_MEMORY": "0"}) is False
    assert allocator.keep_freed_memory({"EAGERKERNEL_KEEP_FREED_MEMORY": "no"}) is False


@pytest.fixture
def fake_glibc(monkeypatch):
    """`allocator`'s state with a recording stand-in for mallopt and a settable peak."""
    calls, peak = [], [0]

    def mallopt(param, value):
        calls.append((param, value))
        return 1

    monkeypatch.setattr(allocator, "_state", [mallopt, 1 << 30, 0.0, 3 << 29])
    monkeypatch.setattr(allocator, "_peak_rss", lambda: peak[0])
    return calls, peak


def test_the_trim_threshold_follows_the_peak_up_to_the_ceiling(fake_glibc):
    calls, peak = fake_glibc
    peak[0] = 700 << 20  # below the starting threshold: nothing changes
    assert allocator.adapt(now=10.0) == 1 << 30 and calls == []
    peak[0] = 1200 << 20
    assert allocator.adapt(now=10.5) == 1 << 30  # within ADAPT_INTERVAL: not even read
    assert allocator.adapt(now=11.0) == 1200 << 20
    assert calls == [(-1, 1200 << 20)]  # M_TRIM_THRESHOLD
    peak[0] = 4 << 30
    assert allocator.adapt(now=12.0) == 3 << 29  # the ceiling
    peak[0] = 100 << 20
    assert allocator.adapt(now=13.0) == 3 << 29  # never back down
    assert allocator.trim_threshold() == 3 << 29


def test_adapt_does_nothing_where_the_settings_were_not_applied(monkeypatch):
    monkeypatch.setattr(allocator, "_state", [None, 0, 0.0, 0])
    assert allocator.adapt(now=100.0) == 0
    assert allocator.trim_threshold() == 0


ADAPT_CHILD = """
import json
import eagerkernel as ek
from eagerkernel.runtime.native import allocator
start = allocator.trim_threshold()
allocator._peak_rss = lambda: 1536 << 20  # as if a step had peaked at 1.5 GiB
x = ek.constant([1.0, 2.0])
with ek.GradientTape() as tape:
    tape.watch(x)
    y = ek.reduce_sum(x * x)
tape.gradient(y, x)  # each backward pass lets the threshold adapt
print(json.dumps([start, allocator.trim_threshold()]))
"""


@glibc
def test_a_backward_pass_raises_the_real_threshold_to_the_peak():
    out = subprocess.run([sys.executable, "-c", ADAPT_CHILD], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    start, after = json.loads(out.stdout)
    assert start == allocator.TRIM_THRESHOLD
    assert after == min(1536 << 20, allocator._ceiling())  # glibc accepted the new value
