"""TFRecord files, tf.train.Example messages and parse_example, checked against TensorFlow's
documented record framing (length, masked CRC-32C, data, masked CRC-32C), the protobuf wire
format of example.proto/feature.proto built by hand, and TensorFlow's parser semantics and
messages. If TensorFlow is importable, the bytes are also compared with its own."""

import gzip
import struct
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.io import tfrecord

google_crc32c = pytest.importorskip("google_crc32c")
pytest.importorskip("google.protobuf")


def _masked(data: bytes) -> int:
    crc = google_crc32c.value(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _framed_by_hand(data: bytes) -> bytes:
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", _masked(length)) + data + struct.pack("<I", _masked(data))


def _example(**features) -> "ek.train.Example":
    """An Example from keyword arguments: ints -> int64_list, floats -> float_list,
    bytes -> bytes_list (lists of one kind)."""
    out = {}
    for key, values in features.items():
        if all(isinstance(v, bytes) for v in values):
            out[key] = ek.train.Feature(bytes_list=ek.train.BytesList(value=values))
        elif all(isinstance(v, int) for v in values):
            out[key] = ek.train.Feature(int64_list=ek.train.Int64List(value=values))
        else:
            out[key] = ek.train.Feature(float_list=ek.train.FloatList(value=values))
    return ek.train.Example(features=ek.train.Features(feature=out))


# -- CRC-32C and framing ------------------------------------------------------------------------


def test_crc32c_check_value_and_masking():
    assert tfrecord.crc32c(b"123456789") == 0xE3069283
    crc = 0xE3069283
    expected = (((crc >> 15) | (crc << 17)) + 0xA282EAD8) % 2**32
    assert tfrecord.masked_crc32c(b"123456789") == expected


def test_written_file_is_byte_exact_framing(tmp_path):
    path = tmp_path / "a.tfrecord"
    records = [b"", b"abc", bytes(range(256)) * 40]
    with ek.io.TFRecordWriter(str(path)) as writer:
        for r in records:
            writer.write(r)
    assert path.read_bytes() == b"".join(_framed_by_hand(r) for r in records)
    # Empty record: 8 length bytes of zero, their masked CRC, no data, the masked CRC of b"".
    assert path.read_bytes()[:16] == bytes(8) + struct.pack("<II", _masked(bytes(8)), _masked(b""))


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_round_trip_by_compression(tmp_path, compression):
    path = str(tmp_path / f"r{compression}.tfrecord")
    records = [b"first", b"", b"x" * 100_000, "text as utf-8 \u00e9"]
    with ek.io.TFRecordWriter(path, ek.io.TFRecordOptions(compression_type=compression)) as w:
        for r in records:
            w.write(r)
    want = [r.encode() if isinstance(r, str) else r for r in records]
    got = [t.numpy() for t in ek.data.TFRecordDataset(path, compression_type=compression)]
    assert got == want
    assert list(ek.io.tf_record_iterator(path, compression)) == want
    raw = Path(path).read_bytes()
    framed = b"".join(_framed_by_hand(r) for r in want)
    if compression == "GZIP":
        assert gzip.decompress(raw) == framed
    elif compression == "ZLIB":
        assert zlib.decompress(raw) == framed
    else:
        assert raw == framed


def test_options_as_string_and_zlib_parameters(tmp_path):
    path = str(tmp_path / "z.tfrecord")
    opts = ek.io.TFRecordOptions("ZLIB", compression_level=9, window_bits=10, mem_level=9)
    with ek.io.TFRecordWriter(path, opts) as w:
        w.write(b"a" * 5000)
    assert zlib.decompressobj(10).decompress(Path(path).read_bytes()) == _framed_by_hand(
        b"a" * 5000
    )
    with ek.io.TFRecordWriter(path, "GZIP") as w:
        w.write(b"q")
    assert gzip.decompress(Path(path).read_bytes()) == _framed_by_hand(b"q")
    assert ek.io.TFRecordOptions.get_compression_type_string(opts) == "ZLIB"
    assert ek.io.TFRecordOptions.get_compression_type_string(2) == "GZIP"


def test_flush_makes_records_readable_before_close(tmp_path):
    for compression in ("", "GZIP"):
        path = str(tmp_path / f"f{compression}.tfrecord")
        w = ek.io.TFRecordWriter(path, compression)
        w.write(b"one")
        w.flush()
        assert [r.numpy() for r in ek.data.TFRecordDataset(path, compression)] == [b"one"]
        w.write(b"two")
        w.close()
        w.close()  # a second close does nothing
        assert list(ek.io.tf_record_iterator(path, compression)) == [b"one", b"two"]
        with pytest.raises(ValueError, match="closed"):
            w.write(b"three")


def test_bad_writer_arguments(tmp_path):
    with pytest.raises(ValueError, match="compression_type"):
        ek.io.TFRecordWriter(str(tmp_path / "a"), "BZIP2")
    with pytest.raises(ValueError, match="compression_level"):
        ek.io.TFRecordOptions("GZIP", compression_level=12)
    with pytest.raises(ValueError, match="window_bits"):
        ek.io.TFRecordOptions("", window_bits=12)
    with pytest.raises(NotImplementedError, match="flush_mode"):
        ek.io.TFRecordOptions("ZLIB", flush_mode=2)
    with pytest.raises(ek.errors.NotFoundError, match="no_such_dir"):
        ek.io.TFRecordWriter(str(tmp_path / "no_such_dir" / "a"))
    with ek.io.TFRecordWriter(str(tmp_path / "b")) as w, pytest.raises(TypeError, match="bytes"):
        w.write(3)
    with pytest.raises(ValueError, match="compression_type"):
        ek.data.TFRecordDataset(str(tmp_path / "b"), compression_type="LZ4")


def test_tf1_names(tmp_path):
    path = str(tmp_path / "v1.tfrecord")
    opts = ek.python_io.TFRecordOptions(ek.python_io.TFRecordCompressionType.GZIP)
    with ek.python_io.TFRecordWriter(path, opts) as w:
        w.write(b"v1")
    assert list(ek.python_io.tf_record_iterator(path, opts)) == [b"v1"]


# -- corrupt and truncated files ----------------------------------------------------------------


def _write(path, records, compression=""):
    with ek.io.TFRecordWriter(str(path), compression) as w:
        for r in records:
            w.write(r)


def test_corrupt_data_byte_raises_data_loss_naming_file_and_offset(tmp_path):
    path = tmp_path / "c.tfrecord"
    _write(path, [b"good", b"bad!", b"never"])
    raw = bytearray(path.read_bytes())
    second = len(_framed_by_hand(b"good"))  # offset of the second record: 20
    raw[second + 12 + 1] ^= 0x01  # one bit of its data
    path.write_bytes(bytes(raw))
    it = iter(ek.data.TFRecordDataset(str(path)))
    assert next(it).numpy() == b"good"  # records before the damage still read
    with pytest.raises(
        ek.errors.DataLossError, match=rf"c\.tfrecord.*corrupted record at {second}"
    ):
        next(it)


def test_corrupt_length_raises_data_loss(tmp_path):
    path = tmp_path / "l.tfrecord"
    _write(path, [b"abc"])
    raw = bytearray(path.read_bytes())
    raw[0] = 200  # the length no longer matches its CRC
    path.write_bytes(bytes(raw))
    with pytest.raises(ek.errors.DataLossError, match=r"corrupted record at 0.*length"):
        list(ek.io.tf_record_iterator(str(path)))
    assert issubclass(ek.errors.DataLossError, ek.errors.OpError)


@pytest.mark.parametrize("cut", [1, 4, 13, 5])
def test_truncated_file_raises_data_loss(tmp_path, cut):
    path = tmp_path / "t.tfrecord"
    _write(path, [b"complete", b"cut short"])
    raw = path.read_bytes()
    path.write_bytes(raw[:-cut])
    second = len(_framed_by_hand(b"complete"))
    with pytest.raises(
        ek.errors.DataLossError, match=rf"t\.tfrecord.*truncated record at {second}"
    ):
        list(ek.data.TFRecordDataset(str(path)))


def test_truncated_gzip_file_raises_data_loss(tmp_path):
    path = tmp_path / "t.gz"
    _write(path, [bytes(range(256)) * 50], "GZIP")
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ek.errors.DataLossError, match="truncated record at 0"):
        list(ek.data.TFRecordDataset(str(path), "GZIP"))


def test_missing_file_raises_not_found(tmp_path):
    ds = ek.data.TFRecordDataset([str(tmp_path / "absent.tfrecord")])
    with pytest.raises(ek.errors.NotFoundError, match=r"absent\.tfrecord"):
        list(ds)


# -- TFRecordDataset ----------------------------------------------------------------------------


def test_dataset_reads_files_in_order_or_interleaved(tmp_path):
    a, b = tmp_path / "a.tfrecord", tmp_path / "b.tfrecord"
    _write(a, [b"a0", b"a1", b"a2"])
    _write(b, [b"b0"])
    ds = ek.data.TFRecordDataset([str(a), str(b)])
    assert [r.numpy() for r in ds] == [b"a0", b"a1", b"a2", b"b0"]
    assert ds.element_spec == ek.TensorSpec((), ek.string)
    first = next(iter(ds))
    assert first.shape == () and first.dtype == ek.string
    ds2 = ek.data.TFRecordDataset(ek.constant([str(a), str(b)]), num_parallel_reads=2)
    assert [r.numpy() for r in ds2] == [b"a0", b"b0", b"a1", b"a2"]
    files = ek.data.Dataset.from_tensor_slices([str(b), str(a)])
    assert [r.numpy() for r in ek.data.TFRecordDataset(files)] == [b"b0", b"a0", b"a1", b"a2"]
    assert [r.numpy() for r in ek.data.TFRecordDataset(str(a), buffer_size=1)][-1] == b"a2"


# -- tf.train.Example ---------------------------------------------------------------------------


def test_example_bytes_match_the_wire_format_built_by_hand():
    # int64_list {1, 300}: packed field 1 = 0a 03 01 ac 02; Feature.int64_list is field 3.
    ex = _example(a=[1, 300])
    assert ex.SerializeToString() == bytes.fromhex("0a0e 0a0c 0a0161 1207 1a05 0a0301ac02")
    # float_list {1.0}: packed fixed32 = 0a 04 0000803f; Feature.float_list is field 2.
    f = ek.train.Feature(float_list=ek.train.FloatList(value=[1.0]))
    assert f.SerializeToString() == bytes.fromhex("1206 0a04 0000803f")
    # bytes_list {"xy"}: field 1 = 0a 02 7879; Feature.bytes_list is field 1.
    f = ek.train.Feature(bytes_list=ek.train.BytesList(value=[b"xy"]))
    assert f.SerializeToString() == bytes.fromhex("0a04 0a02 7879")
    # SequenceExample.feature_lists is field 2; FeatureLists maps to FeatureList (field 1).
    seq = ek.train.SequenceExample(
        feature_lists=ek.train.FeatureLists(feature_list={"s": ek.train.FeatureList(feature=[f])})
    )
    assert seq.SerializeToString() == bytes.fromhex("120f 0a0d 0a0173 1208 0a06 0a04 0a02 7879")


def test_example_parses_back_and_prints_as_text():
    raw = _example(label=[7], name=[b"cat"], score=[0.5]).SerializeToString()
    ex = ek.train.Example.FromString(raw)
    feature = ex.features.feature
    assert feature["label"].WhichOneof("kind") == "int64_list"
    assert list(feature["label"].int64_list.value) == [7]
    assert list(feature["name"].bytes_list.value) == [b"cat"]
    assert list(feature["score"].float_list.value) == [0.5]
    other = ek.train.Example()
    other.ParseFromString(raw)
    assert other == ex
    text = str(_example(label=[7]))
    assert text == (
        'features {\n  feature {\n    key: "label"\n    value {\n      int64_list {\n'
        "        value: 7\n      }\n    }\n  }\n}\n"
    )


def test_feature_lists_accept_tensors_and_numpy_scalars():
    f = ek.train.Int64List(value=[ek.constant(3, ek.int64), np.int64(4), ek.constant(True)])
    assert list(f.value) == [3, 4, 1]
    g = ek.train.FloatList(value=[ek.constant(2.5, ek.float64), np.float32(0.25)])
    assert list(g.value) == [2.5, 0.25]


def test_import_does_not_load_protobuf_or_crc():
    import subprocess

    code = (
        "import sys, eagerkernel; "
        "print('google.protobuf' in sys.modules, 'google_crc32c' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_missing_packages_raise_import_error_naming_them(monkeypatch):
    from eagerkernel.runtime.io import example

    monkeypatch.setitem(sys.modules, "google_crc32c", None)
    with pytest.raises(ImportError, match="google-crc32c"):
        ek.io.TFRecordWriter("/tmp/never-written.tfrecord")
    monkeypatch.setitem(sys.modules, "google.protobuf", None)
    with pytest.raises(ImportError, match="protobuf"):
        example.protobuf_modules()


# -- parse_single_example / parse_example -------------------------------------------------------


def test_parse_single_example_fixed_features_and_defaults():
    raw = _example(i=[5], f=[1.5, 2.5, 3.5, 4.5], s=[b"a", b"b"], empty=[]).SerializeToString()
    out = ek.io.parse_single_example(
        raw,
        {
            "i": ek.io.FixedLenFeature([], ek.int64),
            "f": ek.io.FixedLenFeature([2, 2], ek.float32),
            "s": ek.io.FixedLenFeature((2,), ek.string),
            "missing": ek.io.FixedLenFeature([3], ek.int64, default_value=[7, 8, 9]),
            "missing_s": ek.io.FixedLenFeature([], ek.string, default_value="dflt"),
        },
    )
    assert out["i"].dtype == ek.int64 and out["i"].shape == () and int(out["i"]) == 5
    assert out["f"].dtype == ek.float32
    np.testing.assert_array_equal(out["f"].numpy(), [[1.5, 2.5], [3.5, 4.5]])  # row-major
    assert list(out["s"].numpy()) == [b"a", b"b"]
    np.testing.assert_array_equal(out["missing"].numpy(), [7, 8, 9])
    assert out["missing_s"].numpy() == b"dflt"


def test_missing_required_feature_raises_invalid_argument():
    raw = _example(a=[1]).SerializeToString()
    with pytest.raises(ek.errors.InvalidArgumentError) as info:
        ek.io.parse_single_example(raw, {"b": ek.io.FixedLenFeature([], ek.float32)})
    assert str(info.value) == (
        "Name: <unknown>, Feature: b (data type: float) is required but could not be found."
    )


def test_wrong_type_or_count_raises_invalid_argument():
    raw = _example(a=[1, 2]).SerializeToString()
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"Key: a, Index: 0\.  Data types "):
        ek.io.parse_single_example(raw, {"a": ek.io.FixedLenFeature([2], ek.float32)})
    with pytest.raises(
        ek.errors.InvalidArgumentError,
        match=r"Number of int64 values != expected\.  Values size: 2 but output shape: \[\]",
    ):
        ek.io.parse_single_example(raw, {"a": ek.io.FixedLenFeature([], ek.int64)})
    with pytest.raises(ek.errors.InvalidArgumentError, match="Could not parse example input"):
        ek.io.parse_single_example(b"\xff\xff", {"a": ek.io.FixedLenFeature([], ek.int64)})


def test_bad_feature_configs():
    raw = _example(a=[1]).SerializeToString()
    with pytest.raises(ValueError, match="features"):
        ek.io.parse_single_example(raw, {})
    with pytest.raises(ValueError, match="need to be known"):
        ek.io.parse_single_example(raw, {"a": ek.io.FixedLenFeature([None], ek.int64)})
    with pytest.raises(ek.errors.InvalidArgumentError, match="Invalid config dtype: int32"):
        ek.io.parse_single_example(raw, {"a": ek.io.FixedLenFeature([], ek.int32)})
    with pytest.raises(ValueError, match="has 2 elements"):
        ek.io.parse_single_example(
            raw, {"b": ek.io.FixedLenFeature([3], ek.int64, default_value=[1, 2])}
        )
    with pytest.raises(ValueError, match="must be a scalar"):
        ek.io.parse_single_example([raw], {"a": ek.io.FixedLenFeature([], ek.int64)})
    with pytest.raises(ValueError, match="allow_missing"):
        ek.io.parse_single_example(raw, {"a": ek.io.FixedLenSequenceFeature([], ek.int64)})
    with pytest.raises(TypeError, match="unsupported feature config"):
        ek.io.parse_single_example(raw, {"a": ek.int64})


def test_var_len_feature_gives_a_sparse_tensor():
    raw = _example(tags=[b"x", b"y", b"z"]).SerializeToString()
    out = ek.io.parse_single_example(raw, {"tags": ek.io.VarLenFeature(ek.string)})["tags"]
    assert isinstance(out, ek.sparse.SparseTensor)
    np.testing.assert_array_equal(out.indices.numpy(), [[0], [1], [2]])
    assert list(out.values.numpy()) == [b"x", b"y", b"z"]
    np.testing.assert_array_equal(out.dense_shape.numpy(), [3])
    assert out.indices.dtype == ek.int64 and out.dense_shape.dtype == ek.int64
    none = ek.io.parse_single_example(raw, {"other": ek.io.VarLenFeature(ek.float32)})["other"]
    assert none.values.dtype == ek.float32 and none.values.shape == (0,)
    np.testing.assert_array_equal(none.dense_shape.numpy(), [0])


def test_parse_example_batches():
    batch = [
        _example(n=[1], v=[0.5]).SerializeToString(),
        _example(n=[2], v=[1.0, 2.0, 3.0]).SerializeToString(),
        _example().SerializeToString(),
        ek.train.Example(
            features=ek.train.Features(
                feature={"v": ek.train.Feature(float_list=ek.train.FloatList())}
            )
        ).SerializeToString(),
    ]
    out = ek.io.parse_example(
        ek.constant(batch),
        {
            "n": ek.io.FixedLenFeature([], ek.int64, default_value=-1),
            "v": ek.io.VarLenFeature(ek.float32),
            "seq": ek.io.FixedLenSequenceFeature([], ek.float32, allow_missing=True),
        },
    )
    np.testing.assert_array_equal(out["n"].numpy(), [1, 2, -1, -1])
    v = out["v"]
    np.testing.assert_array_equal(v.indices.numpy(), [[0, 0], [1, 0], [1, 1], [1, 2]])
    np.testing.assert_array_equal(v.values.numpy(), [0.5, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(v.dense_shape.numpy(), [4, 3])
    assert out["seq"].shape == (4, 0)
    wrong = _example(v=[b"s"]).SerializeToString()
    with pytest.raises(
        ek.errors.InvalidArgumentError,
        match=r"Key: v, Index: 0\.  Data types don't match\. Expected type: float, Actual type: "
        "string",
    ):
        ek.io.parse_example([wrong], {"v": ek.io.VarLenFeature(ek.float32)})


def test_fixed_len_sequence_feature_pads():
    batch = [
        _example(p=[1, 2, 3, 4]).SerializeToString(),
        _example(p=[5, 6]).SerializeToString(),
        _example().SerializeToString(),
    ]
    spec = {"p": ek.io.FixedLenSequenceFeature([2], ek.int64, allow_missing=True, default_value=-1)}
    out = ek.io.parse_example(batch, spec)["p"]
    np.testing.assert_array_equal(
        out.numpy(), [[[1, 2], [3, 4]], [[5, 6], [-1, -1]], [[-1, -1], [-1, -1]]]
    )
    single = ek.io.parse_single_example(batch[1], spec)["p"]
    np.testing.assert_array_equal(single.numpy(), [[5, 6]])
    with pytest.raises(ek.errors.InvalidArgumentError, match="not a multiple of stride length"):
        ek.io.parse_single_example(_example(p=[1, 2, 3]).SerializeToString(), spec)


def test_example_names_appear_in_errors():
    batch = [_example(a=[1]).SerializeToString(), _example(b=[1]).SerializeToString()]
    with pytest.raises(ek.errors.InvalidArgumentError, match="Name: second, Feature: a "):
        ek.io.parse_example(
            batch, {"a": ek.io.FixedLenFeature([], ek.int64)}, example_names=["first", "second"]
        )


def test_guide_pipeline_write_read_map_parse_batch(tmp_path):
    """tfrecord.ipynb's pipeline: serialize with py_function, write, TFRecordDataset, map
    parse_single_example; then data.ipynb's parse_example over a batch."""
    rng = np.random.default_rng(0)
    n = 40
    feature0 = rng.choice([False, True], n)
    feature1 = rng.integers(0, 5, n)
    feature2 = np.array([b"cat", b"dog", b"chicken", b"horse", b"goat"])[feature1]
    feature3 = rng.standard_normal(n)

    @ek.py_function(Tout=ek.string)
    def serialize_example(f0, f1, f2, f3):
        feature = {
            "feature0": ek.train.Feature(int64_list=ek.train.Int64List(value=[f0])),
            "feature1": ek.train.Feature(int64_list=ek.train.Int64List(value=[f1])),
            "feature2": ek.train.Feature(bytes_list=ek.train.BytesList(value=[f2.numpy()])),
            "feature3": ek.train.Feature(float_list=ek.train.FloatList(value=[f3])),
        }
        return ek.train.Example(features=ek.train.Features(feature=feature)).SerializeToString()

    path = str(tmp_path / "test.tfrecord")
    with ek.io.TFRecordWriter(path) as writer:
        for i in range(n):
            writer.write(
                serialize_example(feature0[i], feature1[i], feature2[i], feature3[i]).numpy()
            )

    description = {
        "feature0": ek.io.FixedLenFeature([], ek.int64, default_value=0),
        "feature1": ek.io.FixedLenFeature([], ek.int64, default_value=0),
        "feature2": ek.io.FixedLenFeature([], ek.string, default_value=""),
        "feature3": ek.io.FixedLenFeature([], ek.float32, default_value=0.0),
    }
    parsed = ek.data.TFRecordDataset([path]).map(
        lambda proto: ek.io.parse_single_example(proto, description)
    )
    rows = list(parsed)
    assert len(rows) == n
    np.testing.assert_array_equal([int(r["feature0"]) for r in rows], feature0.astype(int))
    np.testing.assert_array_equal([int(r["feature1"]) for r in rows], feature1)
    assert [r["feature2"].numpy() for r in rows] == list(feature2)
    np.testing.assert_array_equal(
        [r["feature3"].numpy() for r in rows], feature3.astype(np.float32)
    )

    batched = (
        ek.data.TFRecordDataset(path)
        .batch(16)
        .map(lambda protos: ek.io.parse_example(protos, description))
    )
    first = next(iter(batched))
    assert first["feature3"].shape == (16,) and first["feature2"].dtype == ek.string
    np.testing.assert_array_equal(first["feature1"].numpy(), feature1[:16])


def test_parse_inside_a_graph_function():
    spec = {"a": ek.io.FixedLenFeature([2], ek.float32)}

    @ek.function
    def total(raw):
        return ek.reduce_sum(ek.io.parse_single_example(raw, spec)["a"])

    assert float(total(ek.constant(_example(a=[1.0, 2.0]).SerializeToString()))) == 3.0
    assert float(total(ek.constant(_example(a=[4.0, 8.0]).SerializeToString()))) == 12.0


# -- TensorFlow as an oracle (skipped without it) ------------------------------------------------


def test_bytes_match_tensorflow(tmp_path):
    tf = pytest.importorskip("tensorflow")
    ours = _example(a=[1, 2], b=[b"x"], c=[0.25]).SerializeToString()
    theirs = tf.train.Example.FromString(ours)
    assert theirs.SerializeToString() == ours
    path = str(tmp_path / "tf.tfrecord")
    with tf.io.TFRecordWriter(path, "GZIP") as w:
        w.write(ours)
    assert [r.numpy() for r in ek.data.TFRecordDataset(path, "GZIP")] == [ours]
    mine = str(tmp_path / "ek.tfrecord")
    _write(mine, [ours, b"z"])
    assert [r.numpy() for r in tf.data.TFRecordDataset(mine)] == [ours, b"z"]


def test_ragged_feature_as_in_the_ragged_guide():
    """guide/ragged_tensor.ipynb's tf.Example cells: Examples from text format, parsed with
    RaggedFeature into RaggedTensors."""
    text_format = pytest.importorskip("google.protobuf.text_format")

    def build(s):
        return text_format.Merge(s, ek.train.Example()).SerializeToString()

    batch = [
        build(
            'features { feature {key: "colors" value {bytes_list {value: ["red", "blue"]} } }'
            ' feature {key: "lengths" value {int64_list {value: [7]} } } }'
        ),
        build(
            'features { feature {key: "colors" value {bytes_list {value: ["orange"]} } }'
            ' feature {key: "lengths" value {int64_list {value: []} } } }'
        ),
        build('features { feature {key: "colors" value {bytes_list {value: ["green"]} } } }'),
    ]
    spec = {
        "colors": ek.io.RaggedFeature(ek.string),
        "lengths": ek.io.RaggedFeature(ek.int64),
        "n": ek.io.RaggedFeature(ek.int64, value_key="lengths", row_splits_dtype=ek.int64),
    }
    out = ek.io.parse_example(batch, spec)
    assert isinstance(out["colors"], ek.RaggedTensor)
    assert out["colors"].to_list() == [[b"red", b"blue"], [b"orange"], [b"green"]]
    assert out["lengths"].to_list() == [[7], [], []]
    np.testing.assert_array_equal(out["lengths"].row_splits.numpy(), [0, 1, 1, 1])
    assert out["n"].row_splits.dtype == ek.int64 and out["n"].to_list() == [[7], [], []]
    one = ek.io.parse_single_example(batch[0], spec)["colors"]
    assert isinstance(one, ek.Tensor) and list(one.numpy()) == [b"red", b"blue"]
    with pytest.raises(ek.errors.InvalidArgumentError, match="Expected type: float"):
        ek.io.parse_example(batch, {"colors": ek.io.RaggedFeature(ek.float32)})
    with pytest.raises(TypeError, match="partitions"):  # as TF 2.21: not a partition type
        ek.io.RaggedFeature(ek.string, partitions=[object()])
    with pytest.raises(NotImplementedError, match="row_splits_dtype"):
        ek.io.RaggedFeature(ek.string, row_splits_dtype=ek.int32)


def test_data_experimental_tfrecord_writer(tmp_path):
    path = str(tmp_path / "ds.tfrecord")
    records = ek.data.Dataset.from_tensor_slices([b"x", b"", b"zz"])
    ek.data.experimental.TFRecordWriter(path, "ZLIB").write(records)
    assert list(ek.io.tf_record_iterator(path, "ZLIB")) == [b"x", b"", b"zz"]
    with pytest.raises(TypeError, match="scalar string"):
        ek.data.experimental.TFRecordWriter(path).write(ek.data.Dataset.range(3))
    with pytest.raises(TypeError, match="scalar string"):
        ek.data.experimental.TFRecordWriter(path).write(records.batch(2))


def test_data_guide_parsing_cells(tmp_path):
    """guide/data.ipynb's "Parsing tf.Example" cells, on a local file shaped like its FSNS
    sample (a PNG and its text per record) instead of the downloaded one."""
    import io

    from PIL import Image

    path = str(tmp_path / "fsns.tfrec")
    pixels = (np.arange(150 * 60 * 3) % 251).astype(np.uint8).reshape(150, 60, 3)
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, "PNG")
    with ek.io.TFRecordWriter(path) as w:
        for k in range(12):
            ex = _example(**{"image/encoded": [buf.getvalue()], "image/text": [b"Rue %d" % k]})
            w.write(ex.SerializeToString())
    dataset = ek.data.TFRecordDataset(filenames=[path])
    raw_example = next(iter(dataset))
    parsed = ek.train.Example.FromString(raw_example.numpy())
    feature = parsed.features.feature
    img = ek.image.decode_png(feature["image/encoded"].bytes_list.value[0])
    np.testing.assert_array_equal(img.numpy(), pixels)
    assert feature["image/text"].bytes_list.value[0] == b"Rue 0"

    def tf_parse(eg):
        example = ek.io.parse_example(
            eg[ek.newaxis],
            {
                "image/encoded": ek.io.FixedLenFeature(shape=(), dtype=ek.string),
                "image/text": ek.io.FixedLenFeature(shape=(), dtype=ek.string),
            },
        )
        return example["image/encoded"][0], example["image/text"][0]

    img, txt = tf_parse(raw_example)
    assert txt.numpy() == b"Rue 0" and img.numpy()[:8] == b"\x89PNG\r\n\x1a\n"
    image_batch, text_batch = next(iter(dataset.map(tf_parse).batch(10)))
    assert image_batch.shape == (10,)
    assert list(text_batch.numpy()) == [b"Rue %d" % k for k in range(10)]


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_concatenated_streams_and_trailing_garbage(tmp_path, compression):
    a, b = tmp_path / "a", tmp_path / "b"
    _write(a, [b"a" * 10_000, b"b"], compression)
    _write(b, [b"c"], compression)
    both = tmp_path / "ab"
    both.write_bytes(a.read_bytes() + b.read_bytes())
    for buffer_size in (None, 7, 1):
        ds = ek.data.TFRecordDataset(str(both), compression, buffer_size=buffer_size)
        assert [r.numpy() for r in ds] == [b"a" * 10_000, b"b", b"c"]
    junk = tmp_path / "junk"
    junk.write_bytes(a.read_bytes() + b"garbage!")
    with pytest.raises(ek.errors.DataLossError, match="compressed data is corrupt"):
        list(ek.io.tf_record_iterator(str(junk), compression))
