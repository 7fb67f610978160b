"""The Boston housing prices from a local ``boston_housing.npz`` (follows
`tf.keras.datasets.boston_housing`)."""

from __future__ import annotations

import os

import numpy as np

from ._paths import ENV_VAR, candidate_dirs, find_files

__all__ = ["load_data"]


def load_data(path="boston_housing.npz", test_split=0.2, seed=113):
    """Loads the 506 samples of 13 features and their prices (in k$), shuffled with ``seed``
    and split as Keras splits them (follows `tf.keras.datasets.boston_housing.load_data`;
    nothing is downloaded).

    Args:
        path: the ``.npz`` file Keras caches (arrays ``x`` (506, 13) and ``y`` (506,)), or a
            directory holding ``boston_housing.npz``; a bare file name is also looked for in
            ``$EAGERKERNEL_DATA`` and ``$EAGERKERNEL_DATA/boston_housing``.
        test_split: the fraction kept for the test set, in [0, 1).
        seed: the shuffle's seed (NumPy's ``RandomState``, as Keras).

    Returns:
        ``((x_train, y_train), (x_test, y_test))``: float64 arrays (404 and 102 samples).

    Raises:
        ValueError: ``test_split`` outside [0, 1), or a file without ``x`` and ``y``.
        FileNotFoundError: the file is nowhere (the message lists where it was looked for).
    """
    if not 0 <= test_split < 1:
        raise ValueError(f"test_split must be in [0, 1). Received: test_split={test_split}")
    target = os.fspath(path)
    if os.path.isfile(target):
        file = target
    else:
        name = "boston_housing.npz" if os.path.isdir(target) else os.path.basename(target)
        given = target if os.path.isdir(target) else None
        dirs = candidate_dirs(given, ("", "boston_housing"), ())
        how = (
            f"Put Keras's {name} (arrays x and y) in ${ENV_VAR} or pass its path as "
            "load_data(path=...)."
        )
        file = find_files("Boston housing", [name], dirs, how)[name]
    with np.load(file, allow_pickle=False) as f:  # numeric arrays: no pickle needed
        if "x" not in f or "y" not in f:
            raise ValueError(f"{file}: expected arrays 'x' and 'y', found {sorted(f.files)}")
        x, y = f["x"], f["y"]
    rng = np.random.RandomState(seed)
    indices = np.arange(len(x))
    rng.shuffle(indices)
    x, y = x[indices], y[indices]
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))
