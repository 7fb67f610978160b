"""The C lean recorder (eagerkernel/runtime/_records.c through records.py): built wherever a
C compiler was at install time, its clock, and its argument checks. What it records is tested
beside the Python recorder in test_profiling_tape.py."""

from __future__ import annotations

import shutil
import sysconfig
import threading

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.core import records

needs_c = pytest.mark.skipif(
    records.LeanRecorder is None, reason="C extension eagerkernel.runtime.native._records not built"
)


def test_the_extension_is_built_where_a_compiler_is():
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}) here: the Python recorder runs")
    assert records.LeanRecorder is not None, "pip install -e . did not build _records"


@needs_c
def test_c_lean_times_are_the_forward_alone():
    """The C recorder's clock is perf_counter's: a forward that sleeps 20 ms reads as at
    least that, and within the wall time around the call."""
    import time

    def slow(xp, a, b):
        time.sleep(0.02)
        return a + b

    lean, x = [], ek.constant(1.0)
    record = records.lean_recorder(lean, threading.get_ident())
    t0 = time.perf_counter()
    y = record("Slow", slow, np, x._device, x, x._value, x, x._value)
    wall = time.perf_counter() - t0
    assert float(y) == 2.0 and lean[:2] == ["Slow", y] and lean[3:] == [x, x]
    assert 0.02 <= lean[2] <= wall


@needs_c
def test_c_lean_recorder_checks_its_arguments():
    x = ek.constant(1.0)
    record = records.lean_recorder([], threading.get_ident())
    with pytest.raises(TypeError, match=r"expected 8 positional arguments .* got 3"):
        record("Mul", None, np)
    with pytest.raises(TypeError, match=r"expected 8 positional arguments .* got 9"):
        record("Mul", None, np, x._device, x, x._value, x, x._value, prim=1)
    with pytest.raises(TypeError, match="list"):
        records.LeanRecorder((), ek.Tensor, 0)
    with pytest.raises(TypeError, match="no __slots__ member _value"):
        records.LeanRecorder([], int, 0)


@needs_c
def test_c_lean_recorder_extend_checks_its_record():
    x = ek.constant(1.0)
    lean: list = []
    record = records.lean_recorder(lean, threading.get_ident())
    with pytest.raises(TypeError, match=r"expected a tuple \(prim, output, seconds, x, y\)"):
        record.extend(["Mul", x, 0.5, x, x])
    for seconds in ("0.5", None):  # a lean record is always timed
        with pytest.raises(TypeError, match="must be real number"):
            record.extend(("Mul", x, seconds, x, x))
    assert lean == [] and record.stats() == (0, [])
    record.extend(("Mul", x, 0.25, x, x))
    record.extend(("Mul", x, 0.5, x, None))
    assert record.stats() == (2, [("Mul", 2, 0.75)]) and lean[5:] == ["Mul", x, 0.5, x, None]


@needs_c
def test_release_survives_a_callback_that_records_and_drops_the_list():
    """Letting go of an old record may run a weakref callback; one that records an op itself
    and drops the recorder's release list (its only owner) must leave both ops recorded, in
    the order they ran."""
    import weakref

    lean: list = []
    record = records.lean_recorder(lean, threading.get_ident())
    x = ek.constant(3.0)
    dev, xv = x._device, x._value
    old_output = ek.constant(np.float32(2.0))
    inner = []

    def callback(_):
        record.release = None  # the list's last reference goes, mid-release
        inner.append(record("Neg", lambda xp, a: -a, np, dev, x, xv, None, None))

    ref = weakref.ref(old_output, callback)
    record.release = ["OldMul", old_output, 0.5, x, None]
    del old_output
    out = record("Mul", lambda xp, a, b: a * b, np, dev, x, xv, x, xv)
    assert ref() is None and record.release is None
    assert float(inner[0]) == -3.0 and float(out) == 9.0
    assert lean[0::5] == ["Neg", "Mul"] and lean[1] is inner[0] and lean[6] is out
