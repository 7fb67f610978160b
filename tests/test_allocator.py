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
