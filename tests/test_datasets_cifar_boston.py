"""CIFAR-10/100 from their binary version and Boston housing from Keras's npz, written here
in the published layouts (nothing is downloaded)."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

datasets = ek.keras.datasets


def _cifar_records(rng, n: int, label_bytes: list) -> tuple[bytes, np.ndarray]:
    images = rng.integers(0, 256, (n, 3, 32, 32), dtype=np.uint8)  # channel-major, as stored
    labels = np.stack([rng.integers(0, hi, n, dtype=np.uint8) for hi in label_bytes], 1)
    records = np.concatenate([labels, images.reshape(n, -1)], axis=1)
    return records.tobytes(), images, labels


def test_cifar10_reads_the_binary_batches_channels_last(tmp_path):
    rng = np.random.default_rng(0)
    expected = []
    for name in [f"data_batch_{k}.bin" for k in range(1, 6)] + ["test_batch.bin"]:
        raw, images, labels = _cifar_records(rng, 3, [10])
        (tmp_path / name).write_bytes(raw)
        expected.append((images, labels))
    (x_train, y_train), (x_test, y_test) = datasets.cifar10.load_data(path=tmp_path)
    assert x_train.shape == (15, 32, 32, 3) and x_train.dtype == np.uint8
    assert y_train.shape == (15, 1) and x_test.shape == (3, 32, 32, 3)
    first_images, first_labels = expected[0]
    # Pixel (row 4, col 7) of image 1: its red, green and blue bytes.
    np.testing.assert_array_equal(x_train[1, 4, 7], first_images[1, :, 4, 7])
    np.testing.assert_array_equal(y_train[:3], first_labels)
    np.testing.assert_array_equal(y_test, expected[-1][1])


def test_cifar100_label_modes_and_errors(tmp_path):
    rng = np.random.default_rng(1)
    raw_train, _, train_labels = _cifar_records(rng, 4, [20, 100])
    raw_test, _, _ = _cifar_records(rng, 2, [20, 100])
    (tmp_path / "train.bin").write_bytes(raw_train)
    (tmp_path / "test.bin").write_bytes(raw_test)
    (_, fine), _ = datasets.cifar100.load_data(path=tmp_path)
    (_, coarse), (x_test, _) = datasets.cifar100.load_data("coarse", path=tmp_path)
    np.testing.assert_array_equal(fine[:, 0], train_labels[:, 1])
    np.testing.assert_array_equal(coarse[:, 0], train_labels[:, 0])
    assert x_test.shape == (2, 32, 32, 3)
    with pytest.raises(ValueError, match="`label_mode` must be one of"):
        datasets.cifar100.load_data("medium", path=tmp_path)
    (tmp_path / "test.bin").write_bytes(raw_test[:-5])
    with pytest.raises(ValueError, match="not a whole number of 3074-byte CIFAR records"):
        datasets.cifar100.load_data(path=tmp_path)
    with pytest.raises(FileNotFoundError, match="binary version of CIFAR-10"):
        datasets.cifar10.load_data(path=tmp_path)


def test_boston_housing_splits_as_keras(tmp_path):
    x = np.arange(506 * 13, dtype=np.float64).reshape(506, 13)
    y = np.arange(506, dtype=np.float64)
    np.savez(tmp_path / "boston_housing.npz", x=x, y=y)
    (x_train, y_train), (x_test, _) = datasets.boston_housing.load_data(
        path=tmp_path / "boston_housing.npz"
    )
    assert x_train.shape == (404, 13) and x_test.shape == (102, 13)
    order = np.arange(506)
    np.random.RandomState(113).shuffle(order)  # Keras's shuffle
    np.testing.assert_array_equal(y_train, y[order[:404]])
    np.testing.assert_array_equal(x_test, x[order[404:]])
    (_, _), (x_test2, _) = datasets.boston_housing.load_data(path=tmp_path, test_split=0.5)
    assert x_test2.shape == (253, 13)
    with pytest.raises(ValueError, match=r"test_split must be in \[0, 1\)"):
        datasets.boston_housing.load_data(path=tmp_path, test_split=1.0)
