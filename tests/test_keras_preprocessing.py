"""`ek.keras.preprocessing` and the dataset makers of `ek.keras.utils`, on files the tests write
themselves: values against the files' pixels and Keras's documented examples."""

import os

import numpy as np
import pytest

import eagerkernel as ek

Image = pytest.importorskip("PIL.Image")

utils = ek.keras.utils
image = ek.keras.preprocessing.image


def write_images(root, classes=("cats", "dogs"), n=5, size=(20, 30), seed=0):
    """``{path: uint8 array}`` of PNG files root/<class>/<i>.png."""
    rng = np.random.RandomState(seed)
    written = {}
    for c in classes:
        os.makedirs(root / c, exist_ok=True)
        for i in range(n):
            a = rng.randint(0, 256, (*size, 3), dtype=np.uint8)
            path = str(root / c / f"{i}.png")
            Image.fromarray(a).save(path)
            written[path] = a
    return written


# -- pad_sequences ---------------------------------------------------------------------------


def test_pad_sequences_follows_keras_examples():
    seqs = [[1], [2, 3], [4, 5, 6]]
    np.testing.assert_array_equal(utils.pad_sequences(seqs), [[0, 0, 1], [0, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(
        utils.pad_sequences(seqs, value=-1), [[-1, -1, 1], [-1, 2, 3], [4, 5, 6]]
    )
    np.testing.assert_array_equal(
        utils.pad_sequences(seqs, padding="post"), [[1, 0, 0], [2, 3, 0], [4, 5, 6]]
    )
    np.testing.assert_array_equal(utils.pad_sequences(seqs, maxlen=2), [[0, 1], [2, 3], [5, 6]])
    np.testing.assert_array_equal(
        utils.pad_sequences(seqs, maxlen=2, truncating="post"), [[0, 1], [2, 3], [4, 5]]
    )
    out = ek.keras.preprocessing.sequence.pad_sequences([[[1, 2]], []], dtype="float32")
    assert out.shape == (2, 1, 2) and out.dtype == np.float32 and out[1].tolist() == [[0, 0]]
    with pytest.raises(ValueError, match='Padding type "middle" not understood'):
        utils.pad_sequences(seqs, padding="middle")
    with pytest.raises(ValueError, match='Truncating type "x" not understood'):
        utils.pad_sequences(seqs, truncating="x")
    with pytest.raises(ValueError, match="non-iterable"):
        utils.pad_sequences([1, 2])
    with pytest.raises(ValueError, match="shape of sample"):
        utils.pad_sequences([[[1, 2]], [[1, 2, 3]]])


# -- timeseries_dataset_from_array -----------------------------------------------------------


def test_timeseries_follows_keras_examples():
    # Keras's example 1: indices 0..98, sequence_length=10, sampling_rate=2, sequence_stride=3.
    data = np.arange(100)
    ds = utils.timeseries_dataset_from_array(
        data[:99], None, sequence_length=10, sampling_rate=2, sequence_stride=3, batch_size=None
    )
    windows = [w.numpy() for w in ds]
    np.testing.assert_array_equal(windows[0], [0, 2, 4, 6, 8, 10, 12, 14, 16, 18])
    np.testing.assert_array_equal(windows[1], [3, 5, 7, 9, 11, 13, 15, 17, 19, 21])
    np.testing.assert_array_equal(windows[-1], [78, 80, 82, 84, 86, 88, 90, 92, 94, 96])
    # Example 2: targets 10 steps ahead.
    input_data, targets = data[:-10], data[10:]
    ds = utils.timeseries_dataset_from_array(input_data, targets, sequence_length=10)
    inputs, target = next(iter(ds))
    np.testing.assert_array_equal(inputs[0].numpy(), data[:10])
    assert int(target[0]) == 10 and inputs.shape == (81, 10)
    # Example 3: each target the next value.
    X, Y = np.arange(1, 11), np.arange(1, 11) * 2
    ds = utils.timeseries_dataset_from_array(X, Y, sequence_length=3, batch_size=2)
    x, y = next(iter(ds))
    np.testing.assert_array_equal(x.numpy(), [[1, 2, 3], [2, 3, 4]])
    np.testing.assert_array_equal(y.numpy(), [2, 4])


def test_timeseries_start_end_shuffle_and_errors():
    data = np.arange(20, dtype=np.float32)[:, None]
    ds = utils.timeseries_dataset_from_array(
        data, None, sequence_length=2, start_index=5, end_index=9, batch_size=None
    )
    assert [w.numpy()[:, 0].tolist() for w in ds] == [[5, 6], [6, 7], [7, 8]]
    a = [
        w.numpy().tolist()
        for w in utils.timeseries_dataset_from_array(
            data, None, 3, shuffle=True, seed=4, batch_size=None
        )
    ]
    b = [
        w.numpy().tolist()
        for w in utils.timeseries_dataset_from_array(
            data, None, 3, shuffle=True, seed=4, batch_size=None
        )
    ]
    assert a == b and sorted(a) == [[[i], [i + 1], [i + 2]] for i in range(18)] and a != sorted(a)
    with pytest.raises(ValueError, match="same number of time steps"):
        utils.timeseries_dataset_from_array(data, np.arange(3), 2)
    with pytest.raises(ValueError, match="`sequence_length` must be a positive integer"):
        utils.timeseries_dataset_from_array(data, None, 0)
    with pytest.raises(ValueError, match="`end_index`"):
        utils.timeseries_dataset_from_array(data, None, 2, start_index=5, end_index=3)


# -- image_dataset_from_directory ------------------------------------------------------------


def test_image_dataset_reads_pixels_and_infers_labels(tmp_path, capsys):
    written = write_images(tmp_path)
    ds = utils.image_dataset_from_directory(
        tmp_path, image_size=(20, 30), batch_size=4, shuffle=False
    )
    assert capsys.readouterr().out == "Found 10 files belonging to 2 classes.\n"
    assert ds.class_names == ["cats", "dogs"] and len(ds.file_paths) == 10
    images, labels = zip(*[(x.numpy(), y.numpy()) for x, y in ds])
    images, labels = np.concatenate(images), np.concatenate(labels)
    assert images.dtype == np.float32 and images.shape == (10, 20, 30, 3)
    assert labels.dtype == np.int32 and labels.tolist() == [0] * 5 + [1] * 5
    for path, img in zip(ds.file_paths, images):
        np.testing.assert_array_equal(img, written[path])  # same size: the pixels themselves


def test_image_dataset_label_modes_colors_sizes_and_seeded_splits(tmp_path, capsys):
    write_images(tmp_path)
    ds = utils.image_dataset_from_directory(
        tmp_path,
        label_mode="categorical",
        color_mode="grayscale",
        image_size=(10, 15),
        batch_size=None,
        seed=3,
    )
    x, y = next(iter(ds))
    assert x.shape == (10, 15, 1) and y.dtype == ek.float32 and float(ek.reduce_sum(y)) == 1.0
    binary = utils.image_dataset_from_directory(tmp_path, label_mode="binary", seed=1)
    _, y = next(iter(binary))
    assert y.shape == (10, 1) and set(y.numpy().ravel()) <= {0.0, 1.0}
    capsys.readouterr()
    train, val = utils.image_dataset_from_directory(
        tmp_path, validation_split=0.2, subset="both", seed=7, image_size=(4, 4)
    )
    assert "Using 8 files for training." in capsys.readouterr().out
    assert set(train.file_paths).isdisjoint(val.file_paths) and len(val.file_paths) == 2
    again = utils.image_dataset_from_directory(
        tmp_path, validation_split=0.2, subset="validation", seed=7, image_size=(4, 4)
    )
    assert again.file_paths == val.file_paths  # the seed fixes the split
    only = utils.image_dataset_from_directory(tmp_path, class_names=["dogs"], labels="inferred")
    assert only.class_names == ["dogs"] and len(only.file_paths) == 5
    no_labels = utils.image_dataset_from_directory(tmp_path, labels=None, image_size=(4, 4))
    assert next(iter(no_labels)).shape == (10, 4, 4, 3)


def test_image_dataset_errors_are_keras(tmp_path):
    write_images(tmp_path, classes=("a", "b", "c"), n=1)
    with pytest.raises(ValueError, match="exactly 2 class_names"):
        utils.image_dataset_from_directory(tmp_path, label_mode="binary")
    with pytest.raises(ValueError, match="you must provide a `seed`"):
        utils.image_dataset_from_directory(tmp_path, validation_split=0.5, subset="training")
    with pytest.raises(ValueError, match="`validation_split` must be set"):
        utils.image_dataset_from_directory(tmp_path, subset="training", seed=1)
    with pytest.raises(ValueError, match="did not match the names of the subdirectories"):
        utils.image_dataset_from_directory(tmp_path, class_names=["zebra"])
    with pytest.raises(ValueError, match="`color_mode` must be one of"):
        utils.image_dataset_from_directory(tmp_path, color_mode="cmyk")
    with pytest.raises(ValueError, match="same length as the number of files"):
        utils.image_dataset_from_directory(tmp_path, labels=[0, 1])
    with pytest.raises(FileNotFoundError):
        utils.image_dataset_from_directory(tmp_path / "missing")


def test_text_dataset_reads_files_and_cuts_to_max_length(tmp_path):
    for c, texts in (("neg", ["bad", "awful film"]), ("pos", ["good"])):
        os.makedirs(tmp_path / c)
        for i, t in enumerate(texts):
            (tmp_path / c / f"{i}.txt").write_text(t)
    ds = utils.text_dataset_from_directory(tmp_path, batch_size=8, shuffle=False, max_length=4)
    texts, labels = next(iter(ds))
    assert ds.class_names == ["neg", "pos"]
    assert texts.numpy().tolist() == [b"bad", b"awfu", b"good"] and labels.numpy().tolist() == [
        0,
        0,
        1,
    ]


# -- ImageDataGenerator ----------------------------------------------------------------------


def test_the_data_guides_image_data_generator(tmp_path, capsys):
    write_images(tmp_path, classes=("daisy", "roses"), n=3)
    img_gen = image.ImageDataGenerator(rescale=1.0 / 255, rotation_range=20)
    images, labels = next(img_gen.flow_from_directory(str(tmp_path)))
    assert capsys.readouterr().out == "Found 6 images belonging to 2 classes.\n"
    assert (images.dtype, images.shape) == (np.float32, (6, 256, 256, 3))
    assert (labels.dtype, labels.shape) == (np.float32, (6, 2))
    assert images.min() >= 0.0 and images.max() <= 1.0 and labels.sum(axis=1).tolist() == [1] * 6
    ds = ek.data.Dataset.from_generator(
        lambda: img_gen.flow_from_directory(str(tmp_path), batch_size=2),
        output_types=(ek.float32, ek.float32),
        output_shapes=([2, 256, 256, 3], [2, 2]),
    )
    for images, labels in ds.take(1):
        assert images.shape == (2, 256, 256, 3) and labels.shape == (2, 2)


def test_flow_from_directory_order_classes_and_seeded_epochs(tmp_path):
    written = write_images(tmp_path, n=3, size=(8, 8))
    it = image.ImageDataGenerator().flow_from_directory(
        str(tmp_path), target_size=(8, 8), batch_size=4, shuffle=False, class_mode="sparse"
    )
    assert it.class_indices == {"cats": 0, "dogs": 1} and it.filenames[0] == os.path.join(
        "cats", "0.png"
    )
    assert len(it) == 2
    x, y = next(it)
    np.testing.assert_array_equal(x[0], written[it.filepaths[0]])  # no transformation: pixels
    assert y.tolist() == [0, 0, 0, 1]
    x2, y2 = next(it)
    assert x2.shape[0] == 2 and y2.tolist() == [1, 1]  # the epoch's last, smaller batch
    assert next(it)[1].tolist() == [0, 0, 0, 1]  # a new epoch
    gen = image.ImageDataGenerator(rotation_range=40, horizontal_flip=True, zoom_range=0.2)
    a = gen.flow_from_directory(str(tmp_path), target_size=(8, 8), batch_size=3, seed=5)
    b = gen.flow_from_directory(str(tmp_path), target_size=(8, 8), batch_size=3, seed=5)
    for _ in range(3):
        (xa, ya), (xb, yb) = next(a), next(b)
        np.testing.assert_array_equal(xa, xb)
        np.testing.assert_array_equal(ya, yb)
    val = image.ImageDataGenerator(validation_split=1 / 3).flow_from_directory(
        str(tmp_path), subset="validation", target_size=(8, 8)
    )
    assert val.filenames == [os.path.join("cats", "0.png"), os.path.join("dogs", "0.png")]


def test_flow_standardizes_in_keras_order():
    x = np.arange(2 * 2 * 2 * 3, dtype=np.float32).reshape(2, 2, 2, 3)
    gen = image.ImageDataGenerator(
        preprocessing_function=lambda img: img + 1.0, rescale=0.5, samplewise_center=True
    )
    batch, labels = next(gen.flow(x, np.array([7, 8]), batch_size=2, shuffle=False))
    expected = (x + 1.0) * 0.5
    expected -= expected.mean(axis=(1, 2, 3), keepdims=True)
    np.testing.assert_allclose(batch, expected, rtol=1e-6)
    assert labels.tolist() == [7, 8]
    fitted = image.ImageDataGenerator(featurewise_center=True, featurewise_std_normalization=True)
    fitted.fit(x)
    out = next(fitted.flow(x, batch_size=2, shuffle=False))
    mean, std = x.mean(axis=(0, 1, 2)), x.std(axis=(0, 1, 2))
    np.testing.assert_allclose(out, (x - mean) / (std + 1e-6), rtol=1e-5)


def test_affine_transforms_match_closed_forms():
    pytest.importorskip("scipy")
    img = np.arange(16, dtype=np.float32).reshape(4, 4, 1)
    gen = image.ImageDataGenerator(fill_mode="constant", cval=-1.0)
    # A shift by whole pixels: "tx" moves along columns (Keras's "width shift").
    shifted = gen.apply_transform(img, {"tx": 1})
    np.testing.assert_allclose(shifted[:, :3, 0], img[:, 1:, 0], atol=1e-6)
    np.testing.assert_array_equal(shifted[:, 3, 0], [-1, -1, -1, -1])
    # A quarter turn about the centre is a transposition with a flip.
    turned = gen.apply_transform(img, {"theta": 90})
    np.testing.assert_allclose(turned[..., 0], np.rot90(img[..., 0], k=1), atol=1e-4)
    np.testing.assert_array_equal(gen.apply_transform(img, {"flip_horizontal": True}), img[:, ::-1])
    np.testing.assert_array_equal(gen.apply_transform(img, {}), img)
    with pytest.raises(ValueError, match="fill_mode"):
        image.ImageDataGenerator(fill_mode="mirror")
    with pytest.raises(ValueError, match="zoom_range"):
        image.ImageDataGenerator(zoom_range=[0.5, 1.0, 2.0])
    with pytest.raises(NotImplementedError, match="channels_last"):
        image.ImageDataGenerator(data_format="channels_first")


# -- get_file --------------------------------------------------------------------------------


def test_get_file_returns_cached_files_and_never_downloads(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    url = "https://example.com/data/flower_photos.tgz"
    with pytest.raises(FileNotFoundError, match="downloads nothing at run time"):
        utils.get_file("flower_photos", url, untar=True)
    cache = tmp_path / "datasets"
    cache.mkdir()
    (cache / "notes.txt").write_text("hello")
    assert utils.get_file("notes.txt", "https://example.com/notes.txt") == str(cache / "notes.txt")
    assert utils.get_file(origin="https://example.com/notes.txt") == str(cache / "notes.txt")
    import hashlib
    import tarfile

    digest = hashlib.sha256(b"hello").hexdigest()
    assert utils.get_file("notes.txt", file_hash=digest, origin=url).endswith("notes.txt")
    with pytest.raises(ValueError, match="expected 0000"):
        utils.get_file("notes.txt", file_hash="0000", origin=url)
    with pytest.raises(ValueError, match="force_download"):
        utils.get_file("notes.txt", origin=url, force_download=True)
    # An archive in the cache is extracted, as Keras does after its download.
    src = tmp_path / "flower_photos"
    (src / "roses").mkdir(parents=True)
    (src / "roses" / "a.txt").write_text("x")
    with tarfile.open(cache / "flower_photos.tgz", "w:gz") as tar:
        tar.add(src, arcname="flower_photos")
    path = utils.get_file("flower_photos", url, untar=True)
    assert path == str(cache / "flower_photos") and os.path.isfile(
        os.path.join(path, "roses", "a.txt")
    )
