"""scikit-learn's bundled 8x8 digits, split like a Keras data set (no download; small).

1797 images of handwritten digits, 8x8 pixels with 17 grey levels (0..16), shipped inside
scikit-learn (the ``datasets`` extra: ``pip install 'eagerkernel[datasets]'``). Keras has no
such loader; this one returns Keras's format so that code written for
`tf.keras.datasets.mnist.load_data` runs on it at once.
"""

from __future__ import annotations

import numpy as np

from .mnist import Split

__all__ = ["TEST_SIZE", "load_data"]

TEST_SIZE = 0.2
RANDOM_STATE = 0


def load_data() -> tuple[Split, Split]:
    """Loads scikit-learn's 8x8 digits in the format of `tf.keras.datasets.mnist.load_data`.

    The split is ``train_test_split(test_size=0.2, random_state=0, stratify=labels)``: fixed,
    so every call returns the same arrays, and every class keeps its share in both halves.

    Returns:
      ``((x_train, y_train), (x_test, y_test))``: uint8 images of shape ``(1437, 8, 8)`` and
      ``(360, 8, 8)`` with values 0..16, and uint8 labels of shape ``(1437,)`` and ``(360,)``
      with values 0..9.

    Raises:
      ImportError: scikit-learn is not installed (it comes with the ``datasets`` extra).

    Example:
      >>> (x_train, y_train), (x_test, y_test) = load_data()
      >>> x_train.shape, x_train.dtype, int(x_train.max()), y_test.shape
      ((1437, 8, 8), dtype('uint8'), 16, (360,))
    """
    try:
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split
    except ImportError as exc:
        raise ImportError(
            "digits.load_data() needs scikit-learn, which ships the digits: install the"
            " `datasets` extra (pip install 'eagerkernel[datasets]') or scikit-learn"
            f" itself ({exc})"
        ) from exc
    bunch = load_digits()
    # The pixels are stored as float64 but are whole numbers 0..16: uint8 holds them exactly.
    images = bunch.images.astype(np.uint8)
    labels = bunch.target.astype(np.uint8)
    x_train, x_test, y_train, y_test = train_test_split(
        images, labels, test_size=TEST_SIZE, random_state=RANDOM_STATE, stratify=labels
    )
    return (x_train, y_train), (x_test, y_test)
