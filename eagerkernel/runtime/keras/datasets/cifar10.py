"""CIFAR-10 from local binary files (follows `tf.keras.datasets.cifar10`; see `cifar`)."""

from __future__ import annotations

from .cifar import load_cifar10

__all__ = ["load_data"]


def load_data(path=None):
    """Loads CIFAR-10: 50000 training and 10000 test images of 10 classes (follows
    `tf.keras.datasets.cifar10.load_data`; nothing is downloaded).

    Args:
        path: a directory holding the binary version's ``data_batch_1.bin`` ..
            ``data_batch_5.bin`` and ``test_batch.bin``; None tries
            ``$EAGERKERNEL_DATA/cifar-10-batches-bin`` and ``$EAGERKERNEL_DATA/cifar10``.

    Returns:
        ``((x_train, y_train), (x_test, y_test))``: uint8 images ``(N, 32, 32, 3)`` and
        uint8 labels ``(N, 1)`` with values 0..9, as Keras returns them.

    Raises:
        FileNotFoundError: no directory holds the files (the message says where to get them).
        ValueError: a file that is not whole records of the binary version.
    """
    return load_cifar10(path)
