"""Image, audio and raw tensor summaries (follows `tf.summary.image`, `tf.summary.audio` and
`tf.summary.write`).

They are written in TensorBoard's TF 2 form, a tensor summary tagged with the plugin that
shows it, as TensorFlow's own ``summary_v2`` writers do:

- an image summary is a string tensor ``[width, height, png_1, ..., png_k]`` for the
  ``images`` plugin;
- an audio summary is a string tensor ``[k, 2]`` of ``(wav, label)`` rows for the ``audio``
  plugin (WAV encoding);
- `write` stores any tensor under the metadata given.

Images and audio are encoded only when a default writer records them (`record_if`).
"""

from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import to_tensor
from . import summary as _summary_mod
from .tensor_proto import serialize_tensor

__all__ = ["audio", "image", "write"]

_WAV_ENCODING = b"\x10\x0b"  # AudioPluginData(version=0, encoding=WAV) serialized


def _metadata(plugin: str, content: bytes = b"", description=None):
    from tensorboardX.proto.summary_pb2 import SummaryMetadata

    md = SummaryMetadata()
    md.plugin_data.plugin_name = plugin
    md.plugin_data.content = content
    if description:
        md.summary_description = str(description)
    return md


def _tensor_summary(tag: str, tensor, metadata):
    from tensorboardX.proto.summary_pb2 import Summary
    from tensorboardX.proto.tensor_pb2 import TensorProto

    proto = TensorProto.FromString(serialize_tensor(tensor).numpy())
    return Summary(value=[Summary.Value(tag=tag, tensor=proto, metadata=metadata)])


def _max_outputs(max_outputs, what: str) -> int:
    if isinstance(max_outputs, bool) or not isinstance(max_outputs, (int, np.integer)):
        raise TypeError(f"{what}: max_outputs must be an integer, got {max_outputs!r}.")
    if max_outputs < 0:
        raise InvalidArgumentError(f"{what}: max_outputs must be >= 0, got {max_outputs}.")
    return int(max_outputs)


def image(name: str, data, step=None, max_outputs=3, description=None):
    """Writes up to ``max_outputs`` images as PNG; returns a bool Tensor, True if they were
    written (False without a default writer or outside the recording condition). Follows
    `tf.summary.image`.

    Args:
        name: the summary's tag.
        data: ``[k, height, width, channels]`` with 1 (grayscale), 2, 3 (RGB) or 4 (RGBA)
            channels; floats in ``[0, 1]`` (converted to uint8 with saturation, as
            ``tf.image.convert_image_dtype(..., saturate=True)``) or integers (uint8 as is).
        step: as in `scalar`.
        max_outputs: how many of the ``k`` images to keep (the first ones); default 3.
        description: as in `scalar`.

    Raises:
        InvalidArgumentError: ``data`` not rank 4, a channel count outside 1-4, or a
            negative ``max_outputs``.
        ValueError: no step.
    """
    from ..ops.image import convert_image_dtype
    from .image_encoders import encode_png

    what = f"summary.image({name!r})"
    keep = _max_outputs(max_outputs, what)
    images = to_tensor(data)
    if len(images.shape) != 4 or not 1 <= images.shape[-1] <= 4:
        raise InvalidArgumentError(
            f"{what}: data must be [k, height, width, channels] with 1 to 4 channels, got "
            f"shape {list(images.shape)}."
        )

    def build():
        pixels = convert_image_dtype(images[:keep], "uint8", saturate=True)
        pngs = [encode_png(pixels[i]).numpy() for i in range(pixels.shape[0])]
        _, height, width, _ = images.shape
        tensor = to_tensor(np.array([str(width).encode(), str(height).encode(), *pngs], object))
        return _tensor_summary(name, tensor, _metadata("images", b"", description))

    return _summary_mod.record_summary("image", name, build, step)


def audio(
    name: str,
    data,
    sample_rate,
    step=None,
    max_outputs=3,
    encoding=None,
    description=None,
):
    """Writes up to ``max_outputs`` audio clips as WAV; returns a bool Tensor, True if they
    were written. Follows `tf.summary.audio`.

    Args:
        name: the summary's tag.
        data: float ``[k, samples, channels]``, values in ``[-1.0, 1.0)``.
        sample_rate: samples per second, a positive integer.
        step: as in `scalar`.
        max_outputs: how many of the ``k`` clips to keep; default 3.
        encoding: ``"wav"`` or None (the default, WAV).
        description: as in `scalar`.

    Raises:
        ValueError: an ``encoding`` other than WAV ("Unknown encoding"), or no step.
        InvalidArgumentError: ``data`` not rank 3, or a negative ``max_outputs``.
    """
    from .wav import encode_wav

    what = f"summary.audio({name!r})"
    if encoding is not None and encoding != "wav":
        raise ValueError(f"{what}: Unknown encoding: {encoding!r}")
    keep = _max_outputs(max_outputs, what)
    clips = to_tensor(data)
    if len(clips.shape) != 3:
        raise InvalidArgumentError(
            f"{what}: data must be [k, samples, channels], got shape {list(clips.shape)}."
        )

    def build():
        wavs = [encode_wav(clips[i], sample_rate).numpy() for i in range(min(keep, len(clips)))]
        rows = np.array([[w, b""] for w in wavs], object).reshape(len(wavs), 2)
        return _tensor_summary(
            name, to_tensor(rows), _metadata("audio", _WAV_ENCODING, description)
        )

    return _summary_mod.record_summary("audio", name, build, step)


def write(tag: str, tensor, step=None, metadata=None, name=None):
    """Writes ``tensor`` as a tensor summary under ``tag``; returns a bool Tensor, True if it
    was written. Follows `tf.summary.write`, the primitive the other summaries are built on.

    Args:
        tag: the summary's tag.
        tensor: any tensor (or value convertible to one), or a zero-argument callable that
            returns it, called only when the summary is recorded.
        step: as in `scalar`.
        metadata: a ``SummaryMetadata`` protobuf (TensorBoard's or tensorboardX's), its
            serialized bytes, or None.
        name: unused by eager execution (TensorFlow's op name); accepted as in TensorFlow.

    Raises:
        TypeError: ``metadata`` of another type.
        ValueError: no step.
    """
    from tensorboardX.proto.summary_pb2 import SummaryMetadata

    what = f"summary.write({tag!r})"
    if metadata is None:
        md = SummaryMetadata()
    elif isinstance(metadata, (bytes, bytearray)):
        md = SummaryMetadata.FromString(bytes(metadata))
    elif hasattr(metadata, "SerializeToString"):
        md = SummaryMetadata.FromString(metadata.SerializeToString())
    else:
        raise TypeError(
            f"{what}: metadata must be a SummaryMetadata protobuf or its bytes, got "
            f"{type(metadata).__name__}."
        )

    def build():
        value = tensor() if callable(tensor) else tensor
        return _tensor_summary(tag, to_tensor(value), md)

    return _summary_mod.record_summary("write", tag, build, step)
