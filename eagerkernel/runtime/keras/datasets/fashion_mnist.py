"""Fashion-MNIST from local IDX files (follows `tf.keras.datasets.fashion_mnist`).

Debian's package ``dataset-fashion-mnist`` installs the four files in
``/usr/share/datasets/fashion-mnist``, where `load_data` finds them without arguments.
"""

from __future__ import annotations

import os

from ._paths import ENV_VAR
from .mnist import Split, load_mnist_format

__all__ = ["CLASS_NAMES", "load_data"]

# Label -> name, from the data set's documentation (Keras's docs list the same).
CLASS_NAMES = (
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
)
# Names tried under $EAGERKERNEL_DATA, then system directories (tests replace this tuple).
SUBDIRS = ("fashion-mnist", "fashion_mnist")
DEBIAN_DIRS: tuple[str, ...] = ("/usr/share/datasets/fashion-mnist",)
HOW_TO_INSTALL = (
    "Install it with `apt-get install dataset-fashion-mnist` (Debian, Ubuntu), or put its four"
    f" IDX files (gzipped or not) in ${ENV_VAR}/fashion-mnist, or pass"
    " load_data(path=DIRECTORY)."
)


def load_data(path: str | os.PathLike | None = None) -> tuple[Split, Split]:
    """Loads Fashion-MNIST; follows `tf.keras.datasets.fashion_mnist.load_data`.

    Keras's version takes no argument and downloads the files into its cache; here nothing is
    ever downloaded, and the optional ``path`` is a directory holding the four IDX files.
    The directories tried, in order: ``path`` if given, ``$EAGERKERNEL_DATA/fashion-mnist``
    (or ``$EAGERKERNEL_DATA/fashion_mnist``), then ``/usr/share/datasets/fashion-mnist``
    (Debian's package ``dataset-fashion-mnist``); the first that holds all four files is
    used. Each file may be gzipped (``.gz``) or not.

    Args:
      path: a directory with ``train-images-idx3-ubyte[.gz]``, ``train-labels-idx1-ubyte[.gz]``,
        ``t10k-images-idx3-ubyte[.gz]`` and ``t10k-labels-idx1-ubyte[.gz]``, or None.

    Returns:
      ``((x_train, y_train), (x_test, y_test))``: uint8 images of shape ``(60000, 28, 28)``
      and ``(10000, 28, 28)`` with values 0..255, and uint8 labels of shape ``(60000,)`` and
      ``(10000,)`` with values 0..9 (names in `CLASS_NAMES`).

    Raises:
      FileNotFoundError: no directory holds the four files; the message lists every directory
        tried and how to install the data set.
      ValueError: a file is damaged (see `read_idx`), has the wrong dtype or shape, has labels
        outside 0..9, or the numbers of images and labels disagree (naming both files).

    Example:
      >>> (x_train, y_train), (x_test, y_test) = load_data()  # doctest: +SKIP
      >>> x_train.shape, x_train.dtype, y_test.shape  # doctest: +SKIP
      ((60000, 28, 28), dtype('uint8'), (10000,))
    """
    return load_mnist_format("Fashion-MNIST", path, SUBDIRS, DEBIAN_DIRS, HOW_TO_INSTALL)
