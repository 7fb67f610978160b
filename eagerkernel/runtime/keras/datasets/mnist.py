"""MNIST handwritten digits from local IDX files (follows `tf.keras.datasets.mnist`).

Debian has no MNIST package: put the four files of the data set (``train-images-idx3-ubyte``,
``train-labels-idx1-ubyte``, ``t10k-images-idx3-ubyte``, ``t10k-labels-idx1-ubyte``, gzipped or
not) in ``$EAGERKERNEL_DATA/mnist`` or any directory you pass as ``path``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from ._paths import ENV_VAR, candidate_dirs, find_files
from .idx import read_idx

__all__ = ["load_data"]

# Part of the data set -> IDX file name without ``.gz``; the same for MNIST and Fashion-MNIST.
FILES = {
    "x_train": "train-images-idx3-ubyte",
    "y_train": "train-labels-idx1-ubyte",
    "x_test": "t10k-images-idx3-ubyte",
    "y_test": "t10k-labels-idx1-ubyte",
}
# Names tried under $EAGERKERNEL_DATA, then system directories (tests replace this tuple).
SUBDIRS = ("mnist",)
DEBIAN_DIRS: tuple[str, ...] = ("/usr/share/datasets/mnist",)
HOW_TO_INSTALL = (
    "MNIST has no Debian package: put its four IDX files (gzipped or not) in"
    f" ${ENV_VAR}/mnist, or pass load_data(path=DIRECTORY)."
)
IMAGE_SHAPE = (28, 28)
NUM_CLASSES = 10

Split = tuple[np.ndarray, np.ndarray]


def load_data(path: str | os.PathLike | None = None) -> tuple[Split, Split]:
    """Loads MNIST from local IDX files; follows `tf.keras.datasets.mnist.load_data`.

    Unlike Keras, whose ``path`` is a file name inside its download cache, ``path`` here is a
    directory holding the four IDX files, and nothing is ever downloaded. The directories
    tried, in order: ``path`` if given, ``$EAGERKERNEL_DATA/mnist``, ``/usr/share/datasets/mnist``;
    the first that holds all four files is used. Each file may be gzipped (``.gz``) or not.

    Args:
      path: a directory with ``train-images-idx3-ubyte[.gz]``, ``train-labels-idx1-ubyte[.gz]``,
        ``t10k-images-idx3-ubyte[.gz]`` and ``t10k-labels-idx1-ubyte[.gz]``, or None.

    Returns:
      ``((x_train, y_train), (x_test, y_test))``: uint8 images of shape ``(60000, 28, 28)``
      and ``(10000, 28, 28)`` with values 0..255, and uint8 labels of shape ``(60000,)`` and
      ``(10000,)`` with values 0..9.

    Raises:
      FileNotFoundError: no directory holds the four files; the message lists every directory
        tried and how to install the data set.
      ValueError: a file is damaged (see `read_idx`), has the wrong dtype or shape, has labels
        outside 0..9, or the numbers of images and labels disagree (naming both files).
    """
    return load_mnist_format("MNIST", path, SUBDIRS, DEBIAN_DIRS, HOW_TO_INSTALL)


def load_mnist_format(
    dataset: str,
    path: str | os.PathLike | None,
    subdirs: Sequence[str],
    debian_dirs: Sequence[str],
    how_to_install: str,
) -> tuple[Split, Split]:
    """Finds and reads a data set laid out as MNIST's four IDX files, and checks it.

    Shared by `mnist.load_data` and `fashion_mnist.load_data`; see them for the return value
    and the errors.
    """
    dirs = candidate_dirs(path, subdirs, debian_dirs)
    files = find_files(dataset, list(FILES.values()), dirs, how_to_install)
    splits = []
    for split in ("train", "test"):
        image_file, label_file = files[FILES[f"x_{split}"]], files[FILES[f"y_{split}"]]
        images, labels = read_idx(image_file), read_idx(label_file)
        if images.dtype != np.uint8 or images.shape[1:] != IMAGE_SHAPE:
            raise ValueError(
                f"{image_file}: expected uint8 images of shape (N, 28, 28), found"
                f" {images.dtype} of shape {images.shape}"
            )
        if labels.dtype != np.uint8 or labels.ndim != 1:
            raise ValueError(
                f"{label_file}: expected uint8 labels of shape (N,), found"
                f" {labels.dtype} of shape {labels.shape}"
            )
        if len(images) != len(labels):
            raise ValueError(
                f"{dataset} {split} split: {len(images)} images in {image_file} but"
                f" {len(labels)} labels in {label_file}"
            )
        if labels.size and labels.max() >= NUM_CLASSES:
            raise ValueError(
                f"{label_file}: labels must be 0..{NUM_CLASSES - 1}, found {labels.max()}"
            )
        splits.append((images, labels))
    return splits[0], splits[1]
