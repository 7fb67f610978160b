"""`ek.keras.datasets`: real data sets read from local files (nothing is downloaded).

- `mnist.load_data(path=None)` and `fashion_mnist.load_data(path=None)` read the IDX files
  from a directory: ``path``, ``$EAGERKERNEL_DATA/<name>``, or Debian's
  ``/usr/share/datasets/fashion-mnist`` (package ``dataset-fashion-mnist``).
- `digits.load_data()` gives scikit-learn's bundled 8x8 digits.
- `cifar10.load_data(path=None)` and `cifar100.load_data(label_mode, path=None)` read the
  binary version of CIFAR (the python version is pickles, never loaded here);
  `boston_housing.load_data(path)` reads Keras's ``boston_housing.npz``.
- `idx.read_idx(path)` reads one IDX file, gzipped or not.

Each ``load_data`` returns Keras's ``((x_train, y_train), (x_test, y_test))``.
"""

from __future__ import annotations

from . import boston_housing, cifar10, cifar100, digits, fashion_mnist, idx, mnist
from .idx import read_idx

__all__ = [
    "boston_housing",
    "cifar10",
    "cifar100",
    "digits",
    "fashion_mnist",
    "idx",
    "mnist",
    "read_idx",
]
