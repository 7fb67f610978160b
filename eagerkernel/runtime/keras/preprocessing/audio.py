"""`audio_dataset_from_directory` (follows `tf.keras.utils.audio_dataset_from_directory`)."""

from __future__ import annotations

__all__ = ["audio_dataset_from_directory"]


def audio_dataset_from_directory(
    directory,
    labels="inferred",
    label_mode="int",
    class_names=None,
    batch_size=32,
    sampling_rate=None,
    output_sequence_length=None,
    ragged=False,
    shuffle=True,
    seed=None,
    validation_split=None,
    subset=None,
    follow_links=False,
    verbose=True,
):
    """An `ek.data.Dataset` of ``(audio, labels)`` batches from a directory of ``.wav`` files:
    ``directory/class_a/*.wav`` are class 0, and so on (labels, splits and shuffling as
    `image_dataset_from_directory`). Each file is decoded with `ek.audio.decode_wav` to a
    float32 ``[samples, channels]`` tensor in [-1, 1), cut or zero-padded to
    ``output_sequence_length`` samples when given; batches are then
    ``[batch, output_sequence_length, channels]``. Without it, a batch is zero-padded to its
    longest clip (Keras's ``padded_batch``).

    Args:
        sampling_rate: not supported (Keras resamples with TensorFlow I/O, which eagerkernel
            does not have): anything but None raises.
        ragged: not supported (raises), as eagerkernel batches dense tensors here.

    Raises:
        ValueError: arguments Keras refuses (``ragged`` with ``output_sequence_length``, a
            non-positive ``output_sequence_length``), ``sampling_rate`` or ``ragged``, or no
            ``.wav`` file found.
    """
    from ...io.wav import decode_wav
    from .image import dataset_from_directory

    op = "audio_dataset_from_directory"
    if ragged and output_sequence_length is not None:
        raise ValueError("Cannot set both `ragged` and `output_sequence_length`")
    if ragged:
        raise ValueError(f"{op}: ragged=True is not supported by eagerkernel.")
    if sampling_rate is not None:
        raise ValueError(
            f"{op}: resampling (sampling_rate={sampling_rate!r}) needs TensorFlow I/O, which "
            "eagerkernel does not have; pass sampling_rate=None."
        )
    length = -1
    if output_sequence_length is not None:
        if isinstance(output_sequence_length, bool) or int(output_sequence_length) <= 0:
            raise ValueError(
                f"{op}: output_sequence_length must be a positive integer. Received: "
                f"output_sequence_length={output_sequence_length!r}"
            )
        length = int(output_sequence_length)

    def load(path: str):
        with open(path, "rb") as f:
            audio, _ = decode_wav(f.read(), desired_samples=length)
        return audio

    def batched(data):
        if batch_size is None:
            return data
        names, paths = data.class_names, data.file_paths
        data = data.padded_batch(int(batch_size)) if length < 0 else data.batch(int(batch_size))
        data.class_names, data.file_paths = names, paths
        return data

    out = dataset_from_directory(
        op,
        directory,
        labels,
        label_mode,
        class_names,
        None,  # batched below: padded when the clips' lengths differ
        shuffle,
        seed,
        validation_split,
        subset,
        follow_links,
        verbose,
        (".wav",),
        load,
    )
    if subset == "both":
        return batched(out[0]), batched(out[1])
    return batched(out)
