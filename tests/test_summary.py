"""TensorBoard summaries, written with tensorboardX and read back with an event reader."""

import glob
import struct

import numpy as np
import pytest

import eagerkernel as ek

pytest.importorskip("tensorboardX")


def read_events(logdir):
    """``{tag: [(step, value or histogram count)]}`` from the event files under ``logdir``.

    TensorBoard's own reader when it is installed, else TFRecord framing plus tensorboardX's
    copy of the Event protobuf.
    """
    out: dict = {}
    try:
        from tensorboard.backend.event_processing import event_accumulator
    except ImportError:
        event_accumulator = None
    if event_accumulator is not None:
        acc = event_accumulator.EventAccumulator(str(logdir), size_guidance={"histograms": 0})
        acc.Reload()
        for tag in acc.Tags()["scalars"]:
            out[tag] = [(e.step, e.value) for e in acc.Scalars(tag)]
        for tag in acc.Tags()["histograms"]:
            out[tag] = [(e.step, e.histogram_value.num) for e in acc.Histograms(tag)]
        return out
    from tensorboardX.proto.event_pb2 import Event

    for path in sorted(glob.glob(f"{logdir}/events.out.tfevents.*")):
        data = open(path, "rb").read()  # noqa: SIM115
        pos = 0
        while pos < len(data):
            (n,) = struct.unpack("<Q", data[pos : pos + 8])
            event = Event.FromString(data[pos + 12 : pos + 12 + n])
            pos += 12 + n + 4
            for v in event.summary.value:
                value = v.simple_value if v.HasField("simple_value") else v.histo.num
                out.setdefault(v.tag, []).append((event.step, value))
    return out


def test_create_file_writer_scalar_histogram_and_steps(tmp_path):
    writer = ek.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        for step in range(3):
            assert ek.summary.scalar("loss", 1.0 / (step + 1), step=step)
        assert ek.summary.histogram("weights", ek.constant([1.0, 2.0, 2.0, 3.0]), step=2)
    with writer.as_default(step=7):
        ek.summary.scalar("default_step", ek.constant(3.5))
    ek.summary.flush(writer)
    events = read_events(tmp_path)
    assert [s for s, _ in events["loss"]] == [0, 1, 2]
    np.testing.assert_allclose([v for _, v in events["loss"]], [1.0, 0.5, 1 / 3], rtol=1e-6)
    assert events["weights"] == [(2, 4.0)]
    assert events["default_step"] == [(7, 3.5)]
    assert not ek.summary.scalar("nowhere", 1.0, step=0)  # no default writer outside


def test_global_step_and_set_as_default(tmp_path):
    step = ek.train.get_or_create_global_step()
    step.assign(np.int64(41))
    writer = ek.summary.create_file_writer(str(tmp_path))
    writer.set_as_default()
    try:
        ek.summary.scalar("acc", 0.25)
        writer.flush()
    finally:
        writer.close()
    assert read_events(tmp_path)["acc"] == [(41, 0.25)]
    other = ek.summary.create_file_writer(str(tmp_path / "b"))
    with pytest.raises(ValueError, match="scalar"), other.as_default():
        ek.summary.scalar("vector", [1.0, 2.0], step=0)


def test_contrib_summary_records_every_n_global_steps(tmp_path):
    step = ek.train.get_or_create_global_step()
    step.assign(np.int64(0))
    writer = ek.contrib.summary.create_file_writer(str(tmp_path))
    with writer.as_default(), ek.contrib.summary.record_summaries_every_n_global_steps(3):
        for _ in range(10):
            ek.contrib.summary.scalar("loss", float(step.numpy()))
            ek.contrib.summary.histogram("h", np.arange(4.0))
            step.assign_add(np.int64(1))
    with writer.as_default(), ek.contrib.summary.always_record_summaries():
        ek.contrib.summary.scalar("always", 1.0)
    with writer.as_default(), ek.contrib.summary.never_record_summaries():
        assert not ek.contrib.summary.scalar("never", 1.0)
    events = read_events(tmp_path)
    assert [s for s, _ in events["loss"]] == [0, 3, 6, 9]
    assert [v for _, v in events["loss"]] == [0.0, 3.0, 6.0, 9.0]
    assert [s for s, _ in events["h"]] == [0, 3, 6, 9]
    assert events["always"] == [(10, 1.0)]
    assert "never" not in events


def _raw_values(logdir):
    """Every ``Summary.Value`` written under ``logdir``, by tag (TFRecord framing)."""
    from tensorboardX.proto.event_pb2 import Event

    out = {}
    for path in sorted(glob.glob(f"{logdir}/events.out.tfevents.*")):
        data = open(path, "rb").read()  # noqa: SIM115
        pos = 0
        while pos < len(data):
            (n,) = struct.unpack("<Q", data[pos : pos + 8])
            for v in Event.FromString(data[pos + 12 : pos + 12 + n]).summary.value:
                out[v.tag] = v
            pos += 12 + n + 4
    return out


def test_histogram_buckets_and_descriptions_are_written(tmp_path):
    writer = ek.summary.create_file_writer(str(tmp_path))
    values = np.linspace(0.0, 1.0, 101)
    with writer.as_default(step=0):
        ek.summary.histogram("few", values, buckets=4, description="four buckets")
        ek.summary.histogram("default", values)
        ek.summary.scalar("loss", 0.5, description="the **training** loss")
        ek.summary.text("note", "hello", description="a note")
        with pytest.raises(ValueError, match=r"histogram\('bad'\): buckets must be a positive"):
            ek.summary.histogram("bad", values, buckets=0)
        with pytest.raises(TypeError, match="description must be a string"):
            ek.summary.scalar("bad", 1.0, description=3)
    writer.flush()
    got = _raw_values(tmp_path)
    few, default = got["few"].histo, got["default"].histo
    assert few.num == default.num == 101
    # Fewer buckets hold the same values: every count is summed into fewer, fuller buckets.
    assert sum(few.bucket) == sum(default.bucket) == 101
    assert len(few.bucket) < len(default.bucket)
    assert max(few.bucket) >= 101 / 4
    assert got["few"].metadata.summary_description == "four buckets"
    assert got["default"].metadata.summary_description == ""
    assert got["loss"].metadata.summary_description == "the **training** loss"
    assert got["note"].metadata.summary_description == "a note"
    assert "bad" not in got


def test_text_summary_is_a_string_tensor_of_the_datas_shape(tmp_path):
    # TensorFlow 2's text summary: tag `name`, the strings themselves (not their repr), the
    # data's shape kept (TensorBoard shows a matrix as a table).
    writer = ek.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=3):
        assert ek.summary.text("scalar", ek.constant("héllo"))
        assert ek.summary.text("table", [["a", "b"], ["c", "d"]])
        with pytest.raises(TypeError, match=r"summary.text\('bad'\): data must be a string"):
            ek.summary.text("bad", ek.constant([1.0, 2.0]))
    writer.flush()
    got = _raw_values(tmp_path)
    scalar, table = got["scalar"].tensor, got["table"].tensor
    assert list(scalar.string_val) == ["héllo".encode()]
    assert [d.size for d in scalar.tensor_shape.dim] == []
    assert list(table.string_val) == [b"a", b"b", b"c", b"d"]
    assert [d.size for d in table.tensor_shape.dim] == [2, 2]
    assert got["table"].metadata.plugin_data.plugin_name == "text"
    assert "bad" not in got
