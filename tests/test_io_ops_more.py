"""`ek.fingerprint`, `ek.io.matching_files`, `decode_compressed`, `decode_json_example`,
`is_jpeg`, and file ops inside graph functions. Expected bytes and errors were checked against
TensorFlow 2.21 on the same calls."""

from __future__ import annotations

import gzip
import zlib

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel import errors


def test_fingerprint_is_tensorflows():
    pytest.importorskip("farmhash")
    cases = [
        (
            ek.constant(["a", "b"]),
            [[227, 117, 223, 182, 101, 66, 69, 179], [22, 241, 200, 94, 33, 96, 178, 163]],
        ),
        (
            ek.constant([["a", "b"], ["c", "d"]]),
            [[122, 64, 59, 169, 136, 60, 55, 83], [52, 252, 224, 38, 64, 226, 155, 60]],
        ),
        (ek.constant([[["a", "b"], ["c", "d"]]]), [[231, 192, 98, 129, 36, 133, 31, 178]]),
        (
            ek.constant([[1, 2], [3, 4]]),
            [[76, 18, 253, 133, 168, 204, 240, 10], [254, 162, 60, 240, 103, 244, 53, 255]],
        ),
        (
            ek.constant([1.0, 2.0]),
            [[42, 171, 211, 87, 251, 146, 121, 4], [156, 206, 45, 21, 1, 1, 236, 37]],
        ),
        (ek.constant([[[1, 2], [3, 4]]], ek.int64), [[20, 22, 69, 105, 139, 191, 144, 16]]),
        (
            ek.constant([True, False]),
            [[62, 88, 126, 177, 19, 76, 162, 71], [84, 75, 233, 245, 237, 86, 96, 190]],
        ),
    ]
    for data, expected in cases:
        got = ek.fingerprint(data)
        assert got.dtype == ek.uint8
        np.testing.assert_array_equal(got.numpy(), np.array(expected, np.uint8))
    assert ek.fingerprint(ek.zeros([0, 3])).shape == (0, 8)
    with pytest.raises(errors.InvalidArgumentError, match="at least one dimension"):
        ek.fingerprint(ek.constant(1.0))
    with pytest.raises(errors.InvalidArgumentError, match="Unsupported fingerprint method: foo"):
        ek.fingerprint(ek.constant(["a"]), method="foo")


def test_matching_files(tmp_path):
    for name in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / name).write_text(name)
    root = str(tmp_path)
    got = ek.io.matching_files([root + "/*.txt", root + "/?.csv"])
    assert got.dtype == ek.string
    assert got.numpy().tolist() == [f"{root}/{n}".encode() for n in ("a.txt", "b.txt", "c.csv")]
    assert ek.io.matching_files(root + "/none*").shape == (0,)
    with pytest.raises(errors.InvalidArgumentError, match="must be scalar or vector"):
        ek.io.matching_files([[root + "/*"]])
    with pytest.raises(TypeError, match="matching_files: pattern must be a string tensor"):
        ek.io.matching_files(1)


def test_decode_compressed():
    data = ek.constant([gzip.compress(b"hello"), gzip.compress(b"xy")])
    assert ek.io.decode_compressed(data, "GZIP").numpy().tolist() == [b"hello", b"xy"]
    assert ek.io.decode_compressed(zlib.compress(b"abc"), "ZLIB").numpy() == b"abc"
    assert ek.io.decode_compressed(b"raw").numpy() == b"raw"
    with pytest.raises(errors.DataLossError, match="GZIP data is corrupt"):
        ek.io.decode_compressed(b"abc", "GZIP")
    with pytest.raises(errors.InvalidArgumentError, match="Only ZLIB, ZSTD, GZIP or NONE"):
        ek.io.decode_compressed(b"abc", "FOO")


def test_decode_json_example_round_trips_through_parse_example():
    js = [
        '{"features": {"feature": {"a": {"int64List": {"value": [1, 2]}},'
        ' "s": {"bytesList": {"value": ["aGk="]}}}}}',
        '{"features": {"feature": {"a": {"int64List": {"value": [3, 4]}},'
        ' "s": {"bytesList": {"value": ["eW8="]}}}}}',
    ]
    serialized = ek.io.decode_json_example(js)
    spec = {"a": ek.io.FixedLenFeature([2], ek.int64), "s": ek.io.FixedLenFeature([], ek.string)}
    parsed = ek.io.parse_example(serialized, spec)
    np.testing.assert_array_equal(parsed["a"].numpy(), [[1, 2], [3, 4]])
    assert parsed["s"].numpy().tolist() == [b"hi", b"yo"]
    with pytest.raises(errors.InvalidArgumentError, match="Error while parsing JSON"):
        ek.io.decode_json_example(["{}", "bad"])


def test_is_jpeg():
    got = ek.io.is_jpeg([b"\xff\xd8\xff\xe0", b"\xff\xd8", b"\x89PNG\r\n"])
    assert got.dtype == ek.bool and got.numpy().tolist() == [True, False, False]
    jpeg = ek.io.encode_jpeg(ek.zeros([2, 2, 3], ek.uint8))
    assert bool(ek.io.is_jpeg(jpeg)) and not bool(
        ek.io.is_jpeg(ek.io.encode_png(ek.zeros([2, 2, 3], ek.uint8)))
    )


def test_file_ops_run_on_every_call_of_a_graph_function(tmp_path):
    # read_file / write_file / matching_files touch the file system: a graph function must do
    # it on every call (a trace that kept the first call's bytes answered stale values).
    src, dst = tmp_path / "in.txt", tmp_path / "out.txt"

    @ek.function
    def copy_upper(path_in, path_out):
        n = ek.size(ek.io.matching_files(str(tmp_path) + "/*.txt"))  # before the write
        data = ek.strings.upper(ek.io.read_file(path_in))
        ek.io.write_file(path_out, data)
        return data, n

    src.write_text("one")
    data, n = copy_upper(str(src), str(dst))
    assert (data.numpy(), int(n), dst.read_text()) == (b"ONE", 1, "ONE")
    src.write_text("two")
    data, n = copy_upper(ek.constant(str(src)), ek.constant(str(dst)))
    assert (data.numpy(), int(n)) == (b"TWO", 2) and dst.read_text() == "TWO"
    src.write_text("three")
    data, _ = copy_upper(ek.constant(str(src)), ek.constant(str(dst)))
    assert data.numpy() == b"THREE" and dst.read_text() == "THREE"


def test_a_saved_model_reads_the_file_on_every_call(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("one")

    class Reader(ek.Module):
        @ek.function(input_signature=[ek.TensorSpec([], ek.string)])
        def read(self, path):
            return ek.io.read_file(path), ek.size(ek.io.matching_files(path))

        @ek.function(input_signature=[ek.TensorSpec([1, 8, 8, 1], ek.float32)])
        def pool(self, x):  # fractional pooling's regions: a fresh draw per call
            return ek.nn.fractional_max_pool(x, [1.0, 1.5, 1.5, 1.0], pseudo_random=True)[0]

    reader = Reader()
    reader.read(str(src))  # traced on a real path (a trace on "" would fail to read)
    ek.saved_model.save(reader, str(tmp_path / "model"))
    loaded = ek.saved_model.load(str(tmp_path / "model"))
    data, n = loaded.read(ek.constant(str(src)))
    assert (data.numpy(), int(n)) == (b"one", 1)
    src.write_text("two")
    assert loaded.read(ek.constant(str(src)))[0].numpy() == b"two"
    assert loaded.pool(ek.reshape(ek.range(64.0), [1, 8, 8, 1])).shape == (1, 5, 5, 1)
