"""CIFAR-10 and CIFAR-100 from their local *binary* files (follow `tf.keras.datasets.cifar10`
and ``cifar100``).

Keras downloads the "python version" of these data sets, whose batches are pickles; this
runtime loads no pickle, so it reads the "binary version" the CIFAR site publishes beside it
(the same images and labels): ``cifar-10-batches-bin/`` (``data_batch_1.bin`` ..
``data_batch_5.bin``, ``test_batch.bin``: records of 1 label byte and 3072 pixel bytes) and
``cifar-100-binary/`` (``train.bin``, ``test.bin``: a coarse and a fine label byte, then 3072
pixel bytes). Pixels are stored channel by channel (32x32 red, green, blue); the arrays
returned are channels last, as Keras returns them.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ._paths import ENV_VAR, candidate_dirs, find_files

__all__ = ["load_cifar10", "load_cifar100"]

PIXELS = 3 * 32 * 32
Split = tuple[np.ndarray, np.ndarray]


def _records(path: Path, labels: int) -> tuple[np.ndarray, np.ndarray]:
    """``(images (N, 32, 32, 3) uint8, labels (N, labels) uint8)`` of one binary batch file."""
    raw = np.fromfile(path, dtype=np.uint8)
    width = labels + PIXELS
    if raw.size == 0 or raw.size % width:
        raise ValueError(
            f"{path}: {raw.size} bytes is not a whole number of {width}-byte CIFAR records "
            f"({labels} label byte(s) and {PIXELS} pixels each); is it the binary version?"
        )
    records = raw.reshape(-1, width)
    images = records[:, labels:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
    return np.ascontiguousarray(images), records[:, :labels].copy()


def _find(dataset: str, path, subdirs: tuple, stems: list) -> dict:
    dirs = candidate_dirs(path, subdirs, ())
    how = (
        f"Download the binary version of {dataset} from https://www.cs.toronto.edu/~kriz/"
        f"cifar.html, unpack it and pass load_data(path=DIRECTORY) or put it in "
        f"${ENV_VAR}/{subdirs[0]} (the python version is pickles, which eagerkernel does "
        "not load)."
    )
    return find_files(dataset, stems, dirs, how)


def load_cifar10(path: str | os.PathLike | None = None) -> tuple[Split, Split]:
    """CIFAR-10 (see `cifar10.load_data`)."""
    stems = [f"data_batch_{k}.bin" for k in range(1, 6)] + ["test_batch.bin"]
    files = _find("CIFAR-10", path, ("cifar-10-batches-bin", "cifar10"), stems)
    train = [_records(files[s], 1) for s in stems[:5]]
    x_test, y_test = _records(files["test_batch.bin"], 1)
    x_train = np.concatenate([x for x, _ in train])
    y_train = np.concatenate([y for _, y in train])
    return (x_train, y_train), (x_test, y_test)


def load_cifar100(label_mode: str = "fine", path=None) -> tuple[Split, Split]:
    """CIFAR-100 (see `cifar100.load_data`)."""
    if label_mode not in ("fine", "coarse"):
        raise ValueError(
            f"`label_mode` must be one of `'fine'`, `'coarse'`. Received: label_mode={label_mode}."
        )
    files = _find("CIFAR-100", path, ("cifar-100-binary", "cifar100"), ["train.bin", "test.bin"])
    column = 1 if label_mode == "fine" else 0
    out = []
    for stem in ("train.bin", "test.bin"):
        x, y = _records(files[stem], 2)
        out.append((x, y[:, column : column + 1]))
    return out[0], out[1]
