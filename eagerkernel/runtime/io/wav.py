"""WAV audio as bytes (follows `tf.audio.encode_wav` and `tf.audio.decode_wav`).

16-bit PCM, little-endian, through Python's `wave` module. Samples are floats in
``[-1.0, 1.0)``: encoding multiplies by 32768, rounds and clamps to the int16 range, decoding
divides by 32768, as TensorFlow's ``wav_io`` does, so a decoded file encodes back to the same
bytes.

>>> x = ek.constant([[0.0], [0.5], [-1.0]])
>>> audio, rate = ek.audio.decode_wav(ek.audio.encode_wav(x, 16000))
>>> audio.numpy().ravel().tolist(), int(rate)
([0.0, 0.5, -1.0], 16000)
"""

from __future__ import annotations

import io
import wave

import numpy as np

from ..core.dispatch import Primitive, dispatch
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, to_tensor

__all__ = ["decode_wav", "encode_wav"]


def _encode_wav_fwd(xp, audio, sample_rate):
    samples = np.rint(np.asarray(audio, np.float32) * 32768.0)
    pcm = np.clip(samples, -32768, 32767).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as f:
        f.setnchannels(pcm.shape[1])
        f.setsampwidth(2)
        f.setframerate(sample_rate)
        f.writeframes(pcm.tobytes())
    return np.asarray(buf.getvalue(), dtype=object)


_encode_wav = Primitive("EncodeWav", _encode_wav_fwd)


def encode_wav(audio, sample_rate, name=None) -> Tensor:
    """Encodes ``audio`` as a 16-bit PCM WAV file (follows `tf.audio.encode_wav`).

    Args:
        audio: float32 ``[samples, channels]``, values in ``[-1.0, 1.0)`` (outside it,
            clamped).
        sample_rate: samples per second, a positive integer (Python int or scalar tensor).

    Returns:
        A scalar string tensor: the file's bytes.

    Raises:
        InvalidArgumentError: ``audio`` not rank 2 or not floating point, no channel, or a
            ``sample_rate`` that is not a positive integer.
    """
    x = to_tensor(audio)
    if x.dtype.name not in ("float16", "float32", "float64", "bfloat16"):
        raise InvalidArgumentError(f"encode_wav: audio must be floating point, got {x.dtype.name}.")
    if len(x.shape) != 2 or x.shape[1] < 1:
        raise InvalidArgumentError(
            f"encode_wav: audio must be [samples, channels] with at least one channel, got "
            f"shape {list(x.shape)}."
        )
    rate = np.asarray(sample_rate.numpy() if hasattr(sample_rate, "numpy") else sample_rate)
    if rate.shape != () or rate.dtype.kind not in "iu" or not 0 < int(rate) < 2**31:
        raise InvalidArgumentError(
            f"encode_wav: sample_rate must be a positive integer, got {sample_rate!r}."
        )
    return dispatch(_encode_wav, (x,), {"sample_rate": int(rate)})


def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """Decodes a 16-bit PCM WAV file (follows `tf.audio.decode_wav`).

    Args:
        contents: a scalar string tensor (or bytes): the file.
        desired_channels: -1 (default) keeps the file's channels; more than the file has
            repeats its last channel, fewer keeps the first ones.
        desired_samples: -1 (default) keeps every sample; otherwise the audio is cropped or
            padded with zeros to that many samples.

    Returns:
        ``(audio, sample_rate)``: float32 ``[samples, channels]`` in ``[-1.0, 1.0)`` and an
        int32 scalar.

    Raises:
        InvalidArgumentError: bytes that are not a WAV file, or a sample width other than
            16 bits (TensorFlow reads 16-bit PCM only).
    """
    raw = contents.numpy() if hasattr(contents, "numpy") else contents
    raw = raw.item() if isinstance(raw, np.ndarray) else raw
    if isinstance(raw, str):
        raw = raw.encode("latin-1")
    try:
        with wave.open(io.BytesIO(raw), "rb") as f:
            channels, width, rate = f.getnchannels(), f.getsampwidth(), f.getframerate()
            frames = f.readframes(f.getnframes())
    except (wave.Error, EOFError) as e:
        raise InvalidArgumentError(f"decode_wav: contents are not a WAV file ({e}).") from None
    if width != 2:
        raise InvalidArgumentError(
            f"decode_wav: only 16-bit PCM is supported, the file has {8 * width}-bit samples."
        )
    audio = np.frombuffer(frames, "<i2").reshape(-1, channels).astype(np.float32) / 32768.0
    if desired_channels > 0 and desired_channels != channels:
        if desired_channels < channels:
            audio = audio[:, :desired_channels]
        else:
            extra = np.repeat(audio[:, -1:], desired_channels - channels, axis=1)
            audio = np.concatenate([audio, extra], axis=1)
    if desired_samples >= 0:
        n = int(desired_samples)
        audio = audio[:n] if n <= len(audio) else np.pad(audio, ((0, n - len(audio)), (0, 0)))
    return to_tensor(np.ascontiguousarray(audio)), to_tensor(np.asarray(rate, np.int32))
