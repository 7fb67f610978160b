"""`ek.summary.image`, `audio` and `write`, and `ek.audio.encode_wav` / `decode_wav`: the
event files are read back with TensorBoard's own reader and plugin protos, the images and
clips decoded from what was written."""

from __future__ import annotations

import io
import wave

import numpy as np
import pytest

import eagerkernel as ek

pytest.importorskip("tensorboardX")
event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")


def _tensors(logdir) -> event_accumulator.EventAccumulator:
    acc = event_accumulator.EventAccumulator(str(logdir), size_guidance={"tensors": 0})
    acc.Reload()
    return acc


def _strings(event) -> list[bytes]:
    return list(event.tensor_proto.string_val)


# -- tf.audio -------------------------------------------------------------------------------------


def test_encode_wav_is_16_bit_pcm_with_tensorflows_rounding_and_clamping():
    x = np.array([[0.0, 1.0], [0.25, -1.0], [2.0, -2.0], [1e-5, -1e-5]], np.float32)
    raw = ek.audio.encode_wav(ek.constant(x), 8000).numpy()
    with wave.open(io.BytesIO(raw)) as f:
        assert (f.getnchannels(), f.getsampwidth(), f.getframerate()) == (2, 2, 8000)
        pcm = np.frombuffer(f.readframes(f.getnframes()), "<i2").reshape(-1, 2)
    # round(x * 32768), clamped to int16: 1.0 becomes 32767, -1.0 stays -32768
    assert pcm.tolist() == [[0, 32767], [8192, -32768], [32767, -32768], [0, 0]]


def test_decode_wav_round_trip_channels_and_samples():
    x = np.array([[0.5], [-0.25], [0.125]], np.float32)
    raw = ek.audio.encode_wav(x, 22050)
    audio, rate = ek.audio.decode_wav(raw)
    assert audio.dtype == ek.float32 and rate.dtype == ek.int32 and int(rate) == 22050
    np.testing.assert_array_equal(audio.numpy(), x)
    two, _ = ek.audio.decode_wav(raw, desired_channels=2)  # the last channel repeated
    np.testing.assert_array_equal(two.numpy(), np.repeat(x, 2, axis=1))
    padded, _ = ek.audio.decode_wav(raw, desired_samples=5)
    np.testing.assert_array_equal(padded.numpy().ravel(), [0.5, -0.25, 0.125, 0.0, 0.0])
    cut, _ = ek.audio.decode_wav(raw, desired_samples=2)
    np.testing.assert_array_equal(cut.numpy().ravel(), [0.5, -0.25])
    stereo = ek.audio.encode_wav(np.array([[0.5, -0.5]], np.float32), 100)
    mono, _ = ek.audio.decode_wav(stereo, desired_channels=1)  # the first channel kept
    assert mono.numpy().tolist() == [[0.5]]


def test_wav_bad_input_names_the_op_and_argument():
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"encode_wav: audio must be \["):
        ek.audio.encode_wav(ek.constant([0.1, 0.2]), 8000)
    with pytest.raises(ek.errors.InvalidArgumentError, match="sample_rate must be a positive"):
        ek.audio.encode_wav(ek.constant([[0.1]]), 0)
    with pytest.raises(ek.errors.InvalidArgumentError, match="audio must be floating point"):
        ek.audio.encode_wav(ek.constant([[1]]), 8000)
    with pytest.raises(ek.errors.InvalidArgumentError, match="not a WAV file"):
        ek.audio.decode_wav(b"RIFF but not really")


# -- tf.summary.image / audio / write --------------------------------------------------------------


def test_image_summary_is_tensorboards_tf2_form_with_decodable_pngs(tmp_path):
    rng = np.random.default_rng(0)
    images = rng.random((5, 6, 4, 3)).astype(np.float32)
    writer = ek.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        assert ek.summary.image("batch", images, step=3, description="inputs")
        assert ek.summary.image("gray", ek.constant(np.full((1, 2, 2, 1), 7, np.uint8)), step=4)
    writer.flush()
    acc = _tensors(tmp_path)
    assert set(acc.Tags()["tensors"]) >= {"batch", "gray"}
    (event,) = acc.Tensors("batch")
    assert event.step == 3
    strings = _strings(event)
    assert strings[:2] == [b"4", b"6"]  # width, height
    assert len(strings) == 2 + 3  # max_outputs=3 of 5
    meta = acc.SummaryMetadata("batch")
    assert meta.plugin_data.plugin_name == "images" and meta.summary_description == "inputs"
    for i, png in enumerate(strings[2:]):
        decoded = ek.io.decode_png(png).numpy()
        # convert_image_dtype(saturate=True): floor(x * 255.5) clamped to [0, 255]
        expected = np.clip(np.floor(images[i] * 255.5), 0, 255).astype(np.uint8)
        np.testing.assert_array_equal(decoded, expected)
    (gray,) = acc.Tensors("gray")
    assert ek.io.decode_png(_strings(gray)[2]).numpy().ravel().tolist() == [7, 7, 7, 7]


def test_audio_summary_rows_of_wav_and_label(tmp_path):
    from tensorboard.plugins.audio import plugin_data_pb2

    clips = np.sin(np.linspace(0, 20, 2 * 50)).reshape(2, 50, 1).astype(np.float32) * 0.5
    writer = ek.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        assert ek.summary.audio("tone", clips, 8000, step=1, max_outputs=5)
    writer.flush()
    acc = _tensors(tmp_path)
    (event,) = acc.Tensors("tone")
    shape = [d.size for d in event.tensor_proto.tensor_shape.dim]
    assert shape == [2, 2]
    strings = _strings(event)
    assert strings[1] == strings[3] == b""  # the labels
    audio, rate = ek.audio.decode_wav(strings[2])
    assert int(rate) == 8000
    np.testing.assert_allclose(audio.numpy(), clips[1], atol=1 / 32768)
    meta = acc.SummaryMetadata("tone")
    assert meta.plugin_data.plugin_name == "audio"
    data = plugin_data_pb2.AudioPluginData.FromString(meta.plugin_data.content)
    assert data.encoding == plugin_data_pb2.AudioPluginData.WAV


def test_write_stores_any_tensor_and_calls_a_callable_only_when_recording(tmp_path):
    from tensorboard.compat.proto.summary_pb2 import SummaryMetadata

    calls = []

    def value():
        calls.append(1)
        return ek.constant([[1.5, 2.5]])

    assert not ek.summary.write("unrecorded", value, step=0)  # no default writer
    assert calls == []
    md = SummaryMetadata()
    md.plugin_data.plugin_name = "custom"
    writer = ek.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=9):
        assert ek.summary.write("matrix", value, metadata=md)
        assert ek.summary.write("counts", ek.constant([1, 2, 3], ek.int64), step=2)
        with ek.summary.record_if(False):
            assert not ek.summary.write("skipped", value, step=1)
    writer.flush()
    assert calls == [1]
    acc = _tensors(tmp_path)
    (event,) = acc.Tensors("matrix")
    assert event.step == 9
    np.testing.assert_array_equal(
        ek.io.parse_tensor(event.tensor_proto.SerializeToString(), ek.float32).numpy(), [[1.5, 2.5]]
    )
    assert acc.SummaryMetadata("matrix").plugin_data.plugin_name == "custom"
    (counts,) = acc.Tensors("counts")
    assert counts.step == 2
    assert "skipped" not in acc.Tags()["tensors"]


def test_media_summaries_check_their_arguments(tmp_path, monkeypatch):
    writer = ek.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0):
        with pytest.raises(ek.errors.InvalidArgumentError, match=r"summary.image\('x'\).*\[k,"):
            ek.summary.image("x", np.zeros((2, 2, 3), np.float32))
        with pytest.raises(ek.errors.InvalidArgumentError, match="1 to 4 channels"):
            ek.summary.image("x", np.zeros((1, 2, 2, 5), np.float32))
        with pytest.raises(ek.errors.InvalidArgumentError, match="max_outputs must be >= 0"):
            ek.summary.image("x", np.zeros((1, 2, 2, 3), np.float32), max_outputs=-1)
        with pytest.raises(ValueError, match="Unknown encoding"):
            ek.summary.audio("a", np.zeros((1, 4, 1), np.float32), 8000, encoding="mp3")
        with pytest.raises(ek.errors.InvalidArgumentError, match=r"\[k, samples, channels\]"):
            ek.summary.audio("a", np.zeros((4, 1), np.float32), 8000)
        with pytest.raises(TypeError, match="metadata must be a SummaryMetadata"):
            ek.summary.write("w", 1.0, metadata={"plugin": "x"})
    # No step anywhere: an earlier test may have made the global step, which would be used.
    from eagerkernel.runtime.compat import v1

    monkeypatch.setattr(v1, "get_global_step", lambda: None)
    other = ek.summary.create_file_writer(str(tmp_path / "b"))
    with other.as_default(), pytest.raises(ValueError, match="no step given"):
        ek.summary.image("x", np.zeros((1, 2, 2, 3), np.float32))
