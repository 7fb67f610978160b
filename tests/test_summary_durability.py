"""Summaries survive a crash as TensorFlow bounds it: ``max_queue`` and ``flush_millis`` are
honoured (a background thread flushes an idle writer), a normal exit flushes, and a process
killed with SIGKILL keeps what was due (issue 17 item 3). Also the step must be an integer
(item 8)."""

import glob
import os
import signal
import struct
import subprocess
import sys
import textwrap
import time

import pytest

import eagerkernel as ek

pytest.importorskip("tensorboardX")
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")


def scalars(logdir) -> list:
    """``[(step, value)]`` of the scalar events under ``logdir`` (TFRecord framing read by
    hand; a record cut short by the kill ends the file)."""
    from tensorboardX.proto.event_pb2 import Event

    out = []
    for path in sorted(glob.glob(f"{logdir}/events.out.tfevents.*")):
        data = open(path, "rb").read()  # noqa: SIM115
        pos = 0
        while pos + 12 <= len(data):
            (n,) = struct.unpack("<Q", data[pos : pos + 8])
            if pos + 12 + n + 4 > len(data):
                break
            event = Event.FromString(data[pos + 12 : pos + 12 + n])
            pos += 12 + n + 4
            for value in event.summary.value:
                out.append((event.step, value.simple_value))
    return out


def run_child(logdir, body: str, then: str = "kill", wait: float = 0.0) -> subprocess.Popen:
    """Starts a Python process that runs ``body`` (with ``ek`` imported and ``logdir`` set),
    prints ``done`` and then sleeps (``then="kill"``: the parent SIGKILLs it after ``wait``
    seconds) or exits normally (``then="exit"``)."""
    code = textwrap.dedent(
        f"""
        import sys, time
        import eagerkernel as ek
        logdir = {str(logdir)!r}
        """
    ) + textwrap.dedent(body)
    code += "\nprint('done', flush=True)\n"
    if then == "kill":
        code += "time.sleep(600)\n"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env)
    assert proc.stdout.readline().strip() == b"done"
    if then == "kill":
        time.sleep(wait)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.wait() == 0
    return proc


def test_max_queue_1_keeps_every_scalar_through_sigkill(tmp_path):
    run_child(
        tmp_path,
        """
        w = ek.summary.create_file_writer(logdir, max_queue=1, flush_millis=100)
        w.set_as_default()
        for i in range(10):
            ek.summary.scalar("x", float(i), step=i)
        """,
    )
    assert scalars(tmp_path) == [(i, float(i)) for i in range(10)]


def test_flush_millis_flushes_an_idle_writer_before_sigkill(tmp_path):
    run_child(
        tmp_path,
        """
        w = ek.summary.create_file_writer(logdir, max_queue=1000, flush_millis=100)
        w.set_as_default()
        for i in range(100):
            ek.summary.scalar("x", float(i), step=i)
        """,
        wait=1.0,  # ten flush intervals: the background flush has run
    )
    assert scalars(tmp_path) == [(i, float(i)) for i in range(100)]


def test_default_queue_loses_at_most_max_queue_on_sigkill(tmp_path):
    run_child(
        tmp_path,
        """
        w = ek.summary.create_file_writer(logdir, max_queue=10)  # flush_millis: 120 s
        w.set_as_default()
        for i in range(100):
            ek.summary.scalar("x", float(i), step=i)
        """,
    )
    got = scalars(tmp_path)
    assert got == [(i, float(i)) for i in range(len(got))]
    assert len(got) >= 100 - 10


def test_interpreter_exit_flushes(tmp_path):
    run_child(
        tmp_path,
        """
        w = ek.summary.create_file_writer(logdir, max_queue=1000)
        w.set_as_default()
        for i in range(25):
            ek.summary.scalar("x", float(i), step=i)
        """,
        then="exit",
    )
    assert len(scalars(tmp_path)) == 25


def test_bad_queue_arguments_and_float_step_raise(tmp_path):
    with pytest.raises(ValueError, match="max_queue"):
        ek.summary.create_file_writer(tmp_path, max_queue=-1)
    with pytest.raises(ValueError, match="flush_millis"):
        ek.summary.create_file_writer(tmp_path, flush_millis=1.5)
    w = ek.summary.create_file_writer(tmp_path / "s")
    with w.as_default(), pytest.raises(TypeError, match=r"step=1\.5"):
        ek.summary.scalar("x", 1.0, step=1.5)
    w.close()
