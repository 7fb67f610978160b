"""CIFAR-100 from local binary files (follows `tf.keras.datasets.cifar100`; see `cifar`)."""

from __future__ import annotations

from .cifar import load_cifar100

__all__ = ["load_data"]


def load_data(label_mode="fine", path=None):
    """Loads CIFAR-100: 50000 training and 10000 test images (follows
    `tf.keras.datasets.cifar100.load_data`; nothing is downloaded).

    Args:
        label_mode: ``"fine"`` (100 classes, default) or ``"coarse"`` (20 superclasses).
        path: a directory holding the binary version's ``train.bin`` and ``test.bin``; None
            tries ``$EAGERKERNEL_DATA/cifar-100-binary`` and ``$EAGERKERNEL_DATA/cifar100``.

    Returns:
        ``((x_train, y_train), (x_test, y_test))``: uint8 images ``(N, 32, 32, 3)`` and
        uint8 labels ``(N, 1)``.

    Raises:
        ValueError: another ``label_mode`` (Keras's message), or a damaged file.
        FileNotFoundError: no directory holds the files.
    """
    return load_cifar100(label_mode, path)
