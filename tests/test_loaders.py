"""ek.keras.datasets: the IDX reader, the MNIST-format loaders and the digits loader.

The loaders run on the real Fashion-MNIST files where Debian's `dataset-fashion-mnist` put
them (skipped with a reason when absent), and on damaged copies and small synthetic IDX files
written here.
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.keras.datasets import fashion_mnist, idx, mnist
from eagerkernel.runtime.keras.datasets.idx import read_idx

DATA_ENV = "EAGERKERNEL_DATA"  # where load_data looks first (the documented variable)

FASHION_DIR = Path("/usr/share/datasets/fashion-mnist")
STEMS = list(mnist.FILES.values())
needs_fashion = pytest.mark.skipif(
    not all((FASHION_DIR / f"{s}.gz").is_file() for s in STEMS),
    reason=f"Fashion-MNIST is not in {FASHION_DIR} (apt-get install dataset-fashion-mnist)",
)

# Type code -> a dtype to write with it (written big-endian by `idx_bytes`).
CODES = {0x08: "u1", 0x09: "i1", 0x0B: "i2", 0x0C: "i4", 0x0D: "f4", 0x0E: "f8"}


def idx_bytes(array: np.ndarray, code: int | None = None) -> bytes:
    """The IDX encoding of ``array``: magic ``00 00 code ndim``, big-endian dims and data."""
    array = np.asarray(array)
    if code is None:
        code = {np.dtype(v): k for k, v in CODES.items()}[array.dtype.newbyteorder("=")]
    header = bytes([0, 0, code, array.ndim]) + b"".join(d.to_bytes(4, "big") for d in array.shape)
    return header + array.astype(array.dtype.newbyteorder(">")).tobytes()


def write_idx(path: Path, array: np.ndarray, gz: bool = False) -> Path:
    data = idx_bytes(array)
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def write_set(directory: Path, n_train=12, n_test=5, gz=True, seed=0) -> Path:
    """A tiny data set in MNIST's layout (random images, labels 0..9) in ``directory``."""
    rng = np.random.default_rng(seed)
    directory.mkdir(parents=True, exist_ok=True)
    arrays = {
        "x_train": rng.integers(0, 256, (n_train, 28, 28), dtype=np.uint8),
        "y_train": (np.arange(n_train) % 10).astype(np.uint8),
        "x_test": rng.integers(0, 256, (n_test, 28, 28), dtype=np.uint8),
        "y_test": (np.arange(n_test) % 10).astype(np.uint8),
    }
    suffix = ".gz" if gz else ""
    for key, stem in mnist.FILES.items():
        write_idx(directory / f"{stem}{suffix}", arrays[key], gz=gz)
    return directory


@pytest.fixture
def no_system_dirs(monkeypatch, tmp_path):
    """No $EAGERKERNEL_DATA, and Debian's locations replaced by one empty temporary one."""
    monkeypatch.delenv(DATA_ENV, raising=False)
    debian = tmp_path / "debian" / "fashion-mnist"
    monkeypatch.setattr(fashion_mnist, "DEBIAN_DIRS", (str(debian),))
    monkeypatch.setattr(mnist, "DEBIAN_DIRS", (str(tmp_path / "debian" / "mnist"),))
    return debian


# ------------------------------------------------------------------------- the IDX reader


@pytest.mark.parametrize("code", sorted(CODES))
@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_read_idx_every_type_code_big_endian(tmp_path, code, gz):
    dtype = np.dtype(CODES[code])
    values = np.array([[0, 1, -2], [3, 100, 7]])
    if dtype.kind == "u":
        values = np.abs(values)
    expected = values.astype(dtype)
    path = write_idx(tmp_path / "a-idx2", expected, gz=gz)
    raw = path.read_bytes()
    if not gz:
        assert raw[2] == code and raw[3] == 2
        # The elements are stored big-endian whatever the machine's order.
        assert (
            raw[12 : 12 + dtype.itemsize]
            == expected[0, 0:1].astype(dtype.newbyteorder(">")).tobytes()
        )
    got = read_idx(path)
    assert got.dtype == dtype and got.dtype.isnative
    assert got.shape == (2, 3)
    np.testing.assert_array_equal(got, expected)
    assert got.flags.writeable and got.flags.c_contiguous


def test_read_idx_big_endian_bytes_by_hand(tmp_path):
    # int16 258 is 01 02 big-endian; float32 1.0 is 3f 80 00 00.
    path = tmp_path / "h"
    path.write_bytes(bytes([0, 0, 0x0B, 1, 0, 0, 0, 2, 0x01, 0x02, 0xFF, 0xFE]))
    np.testing.assert_array_equal(read_idx(path), np.array([258, -2], np.int16))
    path.write_bytes(bytes([0, 0, 0x0D, 1, 0, 0, 0, 1, 0x3F, 0x80, 0, 0]))
    np.testing.assert_array_equal(read_idx(path), np.array([1.0], np.float32))


def test_read_idx_detects_gzip_by_magic_not_name(tmp_path):
    data = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    gz_named_plain = write_idx(tmp_path / "plain-but-named.gz", data, gz=False)
    plain_named_gz = write_idx(tmp_path / "gzip-but-no-suffix", data, gz=True)
    np.testing.assert_array_equal(read_idx(gz_named_plain), data)
    np.testing.assert_array_equal(read_idx(plain_named_gz), data)


def test_read_idx_empty_and_zero_size(tmp_path):
    zero = write_idx(tmp_path / "zero", np.zeros((0, 28, 28), np.uint8))
    assert read_idx(zero).shape == (0, 28, 28)
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="shorter than the header"):
        read_idx(empty)


def test_read_idx_accepts_str_and_path(tmp_path):
    path = write_idx(tmp_path / "s", np.arange(3, dtype=np.int32))
    np.testing.assert_array_equal(read_idx(str(path)), read_idx(path))


def test_read_idx_missing_file(tmp_path):
    missing = tmp_path / "nope"
    with pytest.raises(FileNotFoundError, match="nope") as info:
        read_idx(missing)
    assert info.value.filename == str(missing)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda raw: b"\x01" + raw[1:], r"magic number 0x01000803 should start with two zero"),
        (lambda raw: raw[:2] + b"\x07" + raw[3:], r"unknown IDX type code 0x07"),
        (lambda raw: raw[:10], r"header cut short: 3 dimensions need 16 header bytes, found 10"),
        (lambda raw: raw[:-1], r"expected 168 bytes of data, found 167 \(truncated\)"),
        (lambda raw: raw + b"\0\0", r"expected 168 bytes of data, found 170 \(extra bytes"),
        # ndim 3 -> 2: the third dimension's bytes are read as data.
        (lambda raw: raw[:3] + b"\x02" + raw[4:], r"expected 6 bytes of data, found 172"),
    ],
    ids=["magic", "type-code", "short-header", "truncated", "extra", "ndim"],
)
def test_read_idx_damaged_plain(tmp_path, mutate, message):
    raw = idx_bytes(np.zeros((2, 3, 28), np.uint8))
    path = tmp_path / "bad-idx3-ubyte"
    path.write_bytes(mutate(raw))
    with pytest.raises(ValueError, match=message) as info:
        read_idx(path)
    assert str(path) in str(info.value)


def test_read_idx_damaged_gzip(tmp_path):
    compressed = gzip.compress(idx_bytes(np.arange(4000, dtype=np.int32)))
    cut = tmp_path / "cut.gz"
    cut.write_bytes(compressed[: len(compressed) // 2])
    with pytest.raises(ValueError, match="damaged gzip data") as info:
        read_idx(cut)
    assert str(cut) in str(info.value)
    # A flipped bit in the CRC at the end: the stream decodes but does not check out.
    crc = tmp_path / "crc.gz"
    crc.write_bytes(compressed[:-8] + bytes([compressed[-8] ^ 1]) + compressed[-7:])
    with pytest.raises(ValueError, match="damaged gzip data"):
        read_idx(crc)
    # Valid gzip around a truncated IDX payload: the IDX check catches it.
    short = tmp_path / "short.gz"
    short.write_bytes(gzip.compress(idx_bytes(np.arange(10, dtype=np.int32))[:-4]))
    with pytest.raises(ValueError, match="expected 40 bytes of data, found 36"):
        read_idx(short)


# ------------------------------------------------------------------ the real Fashion-MNIST


@pytest.fixture(scope="module")
def fashion():
    return fashion_mnist.load_data()


@needs_fashion
def test_fashion_mnist_shapes_dtypes_and_counts(fashion):
    (x_train, y_train), (x_test, y_test) = fashion
    assert x_train.shape == (60000, 28, 28) and x_test.shape == (10000, 28, 28)
    assert y_train.shape == (60000,) and y_test.shape == (10000,)
    for a in (x_train, y_train, x_test, y_test):
        assert a.dtype == np.uint8
    assert y_train.min() == 0 and y_train.max() == 9
    assert set(np.unique(y_test)) == set(range(10))
    # The data set is balanced: 6000 per class in train, 1000 in test.
    assert np.bincount(y_train, minlength=10).tolist() == [6000] * 10
    assert np.bincount(y_test, minlength=10).tolist() == [1000] * 10
    # Real images, not zeros: every image has ink and a background.
    assert x_train.max(axis=(1, 2)).min() > 0 and x_train.min() == 0
    assert len(fashion_mnist.CLASS_NAMES) == 10


@needs_fashion
def test_fashion_mnist_via_the_public_namespace(fashion):
    (x_train, y_train), _ = ek.keras.datasets.fashion_mnist.load_data(path=FASHION_DIR)
    np.testing.assert_array_equal(x_train, fashion[0][0])
    np.testing.assert_array_equal(y_train, fashion[0][1])


@needs_fashion
def test_gzip_and_plain_copies_give_identical_arrays(tmp_path, fashion):
    for stem in STEMS:
        raw = gzip.decompress((FASHION_DIR / f"{stem}.gz").read_bytes())
        (tmp_path / stem).write_bytes(raw)
    plain = fashion_mnist.load_data(path=tmp_path)
    for (a, b), (c, d) in zip(plain, fashion):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)
    gz = read_idx(FASHION_DIR / "t10k-labels-idx1-ubyte.gz")
    np.testing.assert_array_equal(gz, read_idx(tmp_path / "t10k-labels-idx1-ubyte"))


def _damaged_copy(tmp_path: Path, stem: str, mutate, gz: bool = True) -> Path:
    """A copy of the real data set in which ``stem``'s file is replaced by ``mutate(raw)``."""
    directory = tmp_path / "copy"
    directory.mkdir()
    for s in STEMS:
        if s != stem:
            shutil.copy(FASHION_DIR / f"{s}.gz", directory / f"{s}.gz")
    raw = gzip.decompress((FASHION_DIR / f"{stem}.gz").read_bytes())
    damaged = mutate(raw)
    if gz:
        (directory / f"{stem}.gz").write_bytes(gzip.compress(damaged, compresslevel=1))
    else:
        (directory / stem).write_bytes(damaged)
    return directory


@needs_fashion
@pytest.mark.parametrize(
    ("stem", "mutate", "gz", "message"),
    [
        (
            "train-images-idx3-ubyte",
            lambda raw: raw[: 16 + 1000],
            False,
            r"train-images-idx3-ubyte: shape \(60000, 28, 28\) of uint8 expected 47040000"
            r" bytes of data, found 1000 \(truncated\)",
        ),
        (
            "t10k-images-idx3-ubyte",
            lambda raw: raw + b"\0" * 28,
            True,
            r"t10k-images-idx3-ubyte.gz: .*expected 7840000 bytes of data, found 7840028",
        ),
        (
            "train-labels-idx1-ubyte",
            lambda raw: raw[:2] + bytes([raw[2] ^ 0x10]) + raw[3:],  # type 0x08 -> 0x18
            True,
            r"train-labels-idx1-ubyte.gz: unknown IDX type code 0x18",
        ),
        (
            "t10k-labels-idx1-ubyte",
            lambda raw: bytes([raw[0] ^ 0x80]) + raw[1:],
            False,
            r"t10k-labels-idx1-ubyte: not an IDX file: magic number 0x80000801",
        ),
        (
            # Type 0x08 -> 0x09 (int8) is still valid IDX, but not MNIST's pixel type.
            "t10k-images-idx3-ubyte",
            lambda raw: raw[:2] + b"\x09" + raw[3:],
            True,
            r"t10k-images-idx3-ubyte.gz: expected uint8 images of shape \(N, 28, 28\),"
            r" found int8 of shape \(10000, 28, 28\)",
        ),
        (
            # Dims 10000x28x28 -> 10000x784x1: the same payload, the wrong image shape.
            "t10k-images-idx3-ubyte",
            lambda raw: raw[:8] + (784).to_bytes(4, "big") + (1).to_bytes(4, "big") + raw[16:],
            False,
            r"expected uint8 images of shape \(N, 28, 28\), found uint8 of shape \(10000, 784, 1\)",
        ),
        (
            "t10k-labels-idx1-ubyte",
            lambda raw: raw[:8] + b"\x0a" + raw[9:],
            False,
            r"t10k-labels-idx1-ubyte: labels must be 0..9, found 10",
        ),
    ],
    ids=[
        "truncated-plain",
        "oversized-gz",
        "bitflip-type",
        "bitflip-magic",
        "int8",
        "wrong-dims",
        "label-10",
    ],
)
def test_damaged_real_files(tmp_path, no_system_dirs, stem, mutate, gz, message):
    directory = _damaged_copy(tmp_path, stem, mutate, gz)
    with pytest.raises(ValueError, match=message) as info:
        fashion_mnist.load_data(path=directory)
    assert str(directory) in str(info.value)


@needs_fashion
def test_truncated_real_gzip(tmp_path, no_system_dirs):
    directory = tmp_path / "copy"
    directory.mkdir()
    for s in STEMS:
        shutil.copy(FASHION_DIR / f"{s}.gz", directory / f"{s}.gz")
    target = directory / "train-images-idx3-ubyte.gz"
    target.write_bytes(target.read_bytes()[:100_000])
    with pytest.raises(ValueError, match="damaged gzip data") as info:
        fashion_mnist.load_data(path=directory)
    assert str(target) in str(info.value)


@needs_fashion
def test_mismatched_counts_name_both_files(tmp_path, no_system_dirs):
    # 9999 test labels against 10000 test images, each file valid on its own.
    def drop_last(raw):
        return raw[:4] + (9999).to_bytes(4, "big") + raw[8:-1]

    directory = _damaged_copy(tmp_path, "t10k-labels-idx1-ubyte", drop_last)
    with pytest.raises(ValueError) as info:
        fashion_mnist.load_data(path=directory)
    message = str(info.value)
    assert "10000 images in" in message and "9999 labels in" in message
    assert str(directory / "t10k-images-idx3-ubyte.gz") in message
    assert str(directory / "t10k-labels-idx1-ubyte.gz") in message


# --------------------------------------------------------------------------- search order


def test_mismatched_counts_synthetic(tmp_path, no_system_dirs):
    directory = write_set(tmp_path / "set", gz=False)
    write_idx(directory / "train-labels-idx1-ubyte", np.zeros(11, np.uint8))
    with pytest.raises(ValueError, match=r"train split: 12 images in .* but 11 labels in"):
        mnist.load_data(path=directory)


def test_path_argument_first(tmp_path, monkeypatch, no_system_dirs):
    mine = write_set(tmp_path / "mine", seed=1)
    write_set(tmp_path / "env" / "mnist", seed=2)
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "env"))
    (x_train, y_train), (x_test, y_test) = mnist.load_data(path=mine)
    assert x_train.shape == (12, 28, 28) and x_test.shape == (5, 28, 28)
    assert y_train.dtype == np.uint8 and y_test.tolist() == [0, 1, 2, 3, 4]
    np.testing.assert_array_equal(x_train, read_idx(mine / "train-images-idx3-ubyte.gz"))
    # A str is a directory too.
    np.testing.assert_array_equal(mnist.load_data(path=str(mine))[0][0], x_train)


def test_env_var_then_debian(tmp_path, monkeypatch, no_system_dirs):
    env_set = write_set(tmp_path / "env" / "fashion-mnist", seed=2)
    write_set(no_system_dirs, seed=3)
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "env"))
    got = fashion_mnist.load_data()[0][0]
    np.testing.assert_array_equal(got, read_idx(env_set / "train-images-idx3-ubyte.gz"))
    # A path without the files is passed over in favour of the next place.
    got = fashion_mnist.load_data(path=tmp_path / "elsewhere")[0][0]
    np.testing.assert_array_equal(got, read_idx(env_set / "train-images-idx3-ubyte.gz"))
    # Without the variable: Debian's location.
    monkeypatch.delenv(DATA_ENV)
    got = fashion_mnist.load_data()[0][0]
    np.testing.assert_array_equal(got, read_idx(no_system_dirs / "train-images-idx3-ubyte.gz"))


def test_env_var_accepts_underscore_name(tmp_path, monkeypatch, no_system_dirs):
    env_set = write_set(tmp_path / "env" / "fashion_mnist", gz=False)
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "env"))
    got = fashion_mnist.load_data()[1][0]
    np.testing.assert_array_equal(got, read_idx(env_set / "t10k-images-idx3-ubyte"))


def test_incomplete_directory_is_passed_over(tmp_path, monkeypatch, no_system_dirs):
    partial = write_set(tmp_path / "partial", seed=1)
    (partial / "t10k-labels-idx1-ubyte.gz").unlink()
    full = write_set(no_system_dirs, seed=3)
    got = fashion_mnist.load_data(path=partial)[0][0]
    np.testing.assert_array_equal(got, read_idx(full / "train-images-idx3-ubyte.gz"))


def test_mixed_plain_and_gzip_files(tmp_path, no_system_dirs):
    directory = write_set(tmp_path / "mixed", gz=True)
    gz = directory / "train-images-idx3-ubyte.gz"
    (directory / "train-images-idx3-ubyte").write_bytes(gzip.decompress(gz.read_bytes()))
    gz.unlink()
    (x_train, _), _ = mnist.load_data(path=directory)
    assert x_train.shape == (12, 28, 28)


def test_not_found_lists_every_place(tmp_path, monkeypatch, no_system_dirs):
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "env"))
    (tmp_path / "given").mkdir()
    with pytest.raises(FileNotFoundError) as info:
        fashion_mnist.load_data(path=tmp_path / "given")
    message = str(info.value)
    places = [
        tmp_path / "given",
        tmp_path / "env" / "fashion-mnist",
        tmp_path / "env" / "fashion_mnist",
        no_system_dirs,
    ]
    positions = [message.index(str(p) + ":") for p in places]
    assert positions == sorted(positions), message  # in search order
    assert "missing train-images-idx3-ubyte[.gz]" in message
    assert "no such directory" in message
    assert "apt-get install dataset-fashion-mnist" in message
    assert "EAGERKERNEL_DATA" in message and "path=" in message
    assert "nothing is downloaded" in message


def test_not_found_mentions_unset_env_var(no_system_dirs):
    with pytest.raises(FileNotFoundError, match=r"\$EAGERKERNEL_DATA: not set") as info:
        mnist.load_data()
    assert str(mnist.DEBIAN_DIRS[0]) in str(info.value)
    assert "MNIST has no Debian package" in str(info.value)


def test_real_debian_location_is_the_default():
    assert fashion_mnist.DEBIAN_DIRS == ("/usr/share/datasets/fashion-mnist",)
    assert mnist.DEBIAN_DIRS == ("/usr/share/datasets/mnist",)


# ---------------------------------------------------------------------------------- digits


def test_digits_shapes_dtypes_and_values():
    pytest.importorskip("sklearn", reason="digits needs scikit-learn (the datasets extra)")
    (x_train, y_train), (x_test, y_test) = ek.keras.datasets.digits.load_data()
    assert x_train.shape == (1437, 8, 8) and x_test.shape == (360, 8, 8)
    assert y_train.shape == (1437,) and y_test.shape == (360,)
    for a in (x_train, y_train, x_test, y_test):
        assert a.dtype == np.uint8
    assert x_train.min() == 0 and x_train.max() == 16
    assert set(np.unique(y_train)) == set(range(10))


def test_digits_split_is_stratified_and_deterministic():
    sklearn_datasets = pytest.importorskip("sklearn.datasets")
    from eagerkernel.runtime.keras.datasets import digits

    (x_train, y_train), (x_test, y_test) = digits.load_data()
    (x_train2, y_train2), (x_test2, y_test2) = digits.load_data()
    for a, b in [(x_train, x_train2), (y_train, y_train2), (x_test, x_test2), (y_test, y_test2)]:
        np.testing.assert_array_equal(a, b)
    # Stratified: each class's share of the test set is its share of the whole, +- one image.
    full = sklearn_datasets.load_digits().target
    expected = np.bincount(full, minlength=10) * 0.2
    assert np.all(np.abs(np.bincount(y_test, minlength=10) - expected) <= 1)
    # The two halves together are the whole data set.
    assert len(x_train) + len(x_test) == len(full)
    np.testing.assert_array_equal(
        np.sort(np.concatenate([y_train, y_test])), np.sort(full.astype(np.uint8))
    )
    # The pairs stay together: the images match the bundled ones with those labels.
    images = sklearn_datasets.load_digits().images.astype(np.uint8).reshape(len(full), -1)
    lookup = {row.tobytes(): label for row, label in zip(images, full)}
    assert all(lookup[x.tobytes()] == y for x, y in zip(x_test.reshape(360, -1), y_test))


def test_digits_without_sklearn_says_what_to_install(monkeypatch):
    import builtins

    from eagerkernel.runtime.keras.datasets import digits

    real_import = builtins.__import__

    def no_sklearn(name, *args, **kwargs):
        if name == "sklearn" or name.startswith("sklearn."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_sklearn)
    with pytest.raises(ImportError, match=r"needs scikit-learn.*eagerkernel\[datasets\]"):
        digits.load_data()


def test_public_names():
    datasets = ek.keras.datasets
    assert datasets.mnist.load_data is mnist.load_data
    assert datasets.fashion_mnist.load_data is fashion_mnist.load_data
    assert datasets.read_idx is idx.read_idx
