"""`text_dataset_from_directory` (follows `tf.keras.utils.text_dataset_from_directory`), and
the Keras 1 `Tokenizer` family that `tf.keras.preprocessing.text` still exports."""

from __future__ import annotations

from .text_legacy import (
    Tokenizer,
    hashing_trick,
    one_hot,
    text_to_word_sequence,
    tokenizer_from_json,
)

__all__ = [
    "Tokenizer",
    "hashing_trick",
    "one_hot",
    "text_dataset_from_directory",
    "text_to_word_sequence",
    "tokenizer_from_json",
]


def text_dataset_from_directory(
    directory,
    labels="inferred",
    label_mode="int",
    class_names=None,
    batch_size=32,
    max_length=None,
    shuffle=True,
    seed=None,
    validation_split=None,
    subset=None,
    follow_links=False,
    verbose=True,
):
    """An `ek.data.Dataset` of ``(texts, labels)`` batches from a directory of ``.txt``
    files: ``directory/class_a/*.txt`` are class 0, and so on (as
    `image_dataset_from_directory`, whose labels, splits and shuffling it shares). Texts are
    `ek.string` tensors holding each file's bytes, cut to ``max_length`` bytes when given.

    Raises:
        ValueError: arguments Keras refuses, or no ``.txt`` file found.
    """
    from .image import dataset_from_directory

    op = "text_dataset_from_directory"
    if max_length is not None and (isinstance(max_length, bool) or int(max_length) <= 0):
        raise ValueError(f"{op}: max_length must be a positive integer. Received: {max_length!r}")

    def load(path: str):
        from ...core.tensor import constant

        with open(path, "rb") as f:
            data = f.read()
        return constant(data if max_length is None else data[: int(max_length)])

    return dataset_from_directory(
        op,
        directory,
        labels,
        label_mode,
        class_names,
        batch_size,
        shuffle,
        seed,
        validation_split,
        subset,
        follow_links,
        verbose,
        (".txt",),
        load,
    )
