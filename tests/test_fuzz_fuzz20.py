"""Differential fuzzing of data sources and tf.io parsing against TensorFlow 2.21 (fuzz20).

Expected values were computed with tensorflow-cpu 2.21 on the same inputs (noted per test)."""

from __future__ import annotations

import gzip
import zlib

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.core.errors import (
    DataLossError,
    InvalidArgumentError,
    PermissionDeniedError,
)

# -- decode_base64: "=" padding only ends a string whose length is a multiple of 4 -------------


def test_decode_base64_accepts_padding_only_at_a_multiple_of_four():
    # TF 2.21: both decode to the same 7 bytes
    assert ek.io.decode_base64(b"4zi4wiahOQ==").numpy() == b"\xe38\xb8\xc2&\xa19"
    assert ek.io.decode_base64(b"4zi4wiahOQ").numpy() == b"\xe38\xb8\xc2&\xa19"


@pytest.mark.parametrize(
    "text, message",
    [  # TF 2.21's message for each
        (b"4zi4wiahOQ=", "Invalid character"),
        (b"4zi4wiahOQ===", "Invalid character"),
        (b"tg=", "Invalid character"),
        (b"ZI1AWjSt=", "1 modulo 4"),
        (b"=", "1 modulo 4"),
    ],
)
def test_decode_base64_rejects_misplaced_padding(text, message):
    with pytest.raises(InvalidArgumentError, match=f"decode_base64: .*{message}"):
        ek.io.decode_base64(text)


# -- decode_raw ----------------------------------------------------------------------------------


@pytest.mark.parametrize("length, dtype", [(0, ek.uint16), (-2, ek.uint16), (3, ek.int32)])
def test_decode_raw_fixed_length_must_be_a_positive_multiple(length, dtype):
    # TF 2.21: "fixed_length (0) must be greater than zero", "fixed_length (3) must be a
    # multiple of the size of out_type (4)"
    with pytest.raises(InvalidArgumentError, match="decode_raw: fixed_length"):
        ek.io.decode_raw([b"ab"], dtype, fixed_length=length)


@pytest.mark.parametrize("dtype, fixed", [(ek.uint32, None), (ek.uint64, None), (ek.bool, 4)])
def test_decode_raw_refuses_out_types_tf_lacks(dtype, fixed):
    # TF 2.21: "Value for attr 'out_type' of uint32 is not in the list of allowed values"
    with pytest.raises(InvalidArgumentError, match="decode_raw: out_type"):
        ek.io.decode_raw([b"abcd"], dtype, fixed_length=fixed)


def test_decode_raw_complex_and_empty_fixed_length():
    z = np.array([1 + 2j, -0.5j], np.complex64)
    out = ek.io.decode_raw(z.tobytes(), ek.complex64)  # TF 2.21 decodes complex64
    np.testing.assert_array_equal(out.numpy(), z)
    empty = ek.io.decode_raw(ek.constant([], ek.string), ek.uint16, fixed_length=4)
    assert empty.shape == (0, 2)  # TF 2.21: shape (0, 2)


# -- decode_csv / CsvDataset ---------------------------------------------------------------------


def test_decode_csv_empty_record_has_no_fields():
    # TF 2.21: "Expect 1 fields but have 0 in record 0"; '""' is one (empty) field
    with pytest.raises(InvalidArgumentError, match="Expect 1 fields but have 0 in record 0"):
        ek.io.decode_csv("", [[1]])
    with pytest.raises(InvalidArgumentError, match="Expect 2 fields but have 0 in record 0"):
        ek.io.decode_csv("", [[1], [2]])
    assert ek.io.decode_csv('""', [["x"]])[0].numpy() == b"x"


@pytest.mark.parametrize(
    "cols, message", [([1, 0], "not strictly increasing"), ([-1, 0], "negative")]
)
def test_decode_csv_select_cols_errors_are_value_errors(cols, message):
    with pytest.raises(ValueError, match=f"decode_csv: select_cols .*{message}"):  # as TF 2.21
        ek.io.decode_csv("1,2", [[1], [2]], select_cols=cols)


def test_csv_dataset_blank_line_is_one_empty_field(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("1\n\n2\n")
    rows = [[int(x) for x in r] for r in ek.data.experimental.CsvDataset(str(path), [[0]])]
    assert rows == [[1], [0], [2]]  # TF 2.21
    path.write_text("1,1\n\n2,2\n")
    with pytest.raises(InvalidArgumentError, match="Expect 2 fields but have 1"):
        list(ek.data.experimental.CsvDataset(str(path), [[0], [0]]))


def test_csv_dataset_header_of_empty_file(tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("")
    with pytest.raises(InvalidArgumentError, match="Can't read header of file"):  # TF 2.21
        list(ek.data.experimental.CsvDataset(str(path), [[0]], header=True))


# -- TextLineDataset -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, lines",
    [  # TF 2.21's lines
        (b"l0\rl1\rl2", [b"l0l1l2"]),
        (b"a\r\nb\r\n", [b"a", b"b"]),
        (b"a\rb\r\n\r", [b"ab"]),
        (b"\r", []),
        (b"\n", [b""]),
    ],
)
def test_text_line_dataset_drops_every_carriage_return(tmp_path, data, lines):
    path = tmp_path / "t.txt"
    path.write_bytes(data)
    assert [x.numpy() for x in ek.data.TextLineDataset(str(path))] == lines


# -- TFRecord / decode_compressed ----------------------------------------------------------------


def test_decode_compressed_truncated_or_trailing_data():
    d = b"hello world hello world 12345" * 3
    z, g = zlib.compress(d), gzip.compress(d, mtime=0)
    # TF 2.21: the bytes inflated so far; data after a stream ignored; GZIP members joined
    for data, kind, want in [
        (z[:-2], "ZLIB", d),
        (z + b"xx", "ZLIB", d),
        (g[:-8], "GZIP", d),
        (g + g, "GZIP", d + d),
        (g + b"x", "GZIP", d),
        (b"", "GZIP", b""),
    ]:
        assert ek.io.decode_compressed(data, compression_type=kind).numpy() == want
    with pytest.raises(DataLossError, match="decode_compressed"):
        ek.io.decode_compressed(b"garbage!", compression_type="ZLIB")


# -- files ----------------------------------------------------------------------------------------


def test_list_files_and_matching_files_keep_duplicates_sorted(tmp_path):
    for name in ("a1", "a2", "b1"):
        (tmp_path / name).write_text("x")
    pats = [str(tmp_path / "b*"), str(tmp_path / "a*"), str(tmp_path / "a1")]
    want = [str(tmp_path / n).encode() for n in ("a1", "a1", "a2", "b1")]  # TF 2.21
    assert list(ek.io.matching_files(pats).numpy()) == want
    assert [x.numpy() for x in ek.data.Dataset.list_files(pats, shuffle=False)] == want


def test_gfile_read_write_mode_is_checked(tmp_path):
    path = str(tmp_path / "f.txt")
    with ek.io.gfile.GFile(path, "w") as f:
        f.write("a")
        with pytest.raises(PermissionDeniedError, match="File isn't open for reading"):
            f.read()
    with (
        ek.io.gfile.GFile(path, "r") as f,
        pytest.raises(PermissionDeniedError, match="File isn't open for writing"),
    ):
        f.write("x")


# -- FixedLengthRecordDataset --------------------------------------------------------------------


def _fixed(tmp_path, data, record, compression="", **kw):
    path = tmp_path / "x.bin"
    raw = {"": data, "ZLIB": zlib.compress(data), "GZIP": gzip.compress(data)}[compression]
    path.write_bytes(raw)
    return ek.data.FixedLengthRecordDataset(str(path), record, compression_type=compression, **kw)


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_fixed_length_record_dataset_header_footer(tmp_path, compression):
    ds = _fixed(tmp_path, b"abcdefgh", 2, compression, header_bytes=2, footer_bytes=2)
    assert ds.element_spec == ek.TensorSpec([], ek.string)
    assert [r.numpy() for r in ds] == [b"cd", b"ef"]  # TF 2.21


def test_fixed_length_record_dataset_partial_record(tmp_path):
    # TF 2.21: a plain file fails before any record, a compressed one after its whole records
    with pytest.raises(InvalidArgumentError, match="body length 8 bytes, which is not an exact"):
        list(_fixed(tmp_path, b"abcdefgh", 3))
    got = []
    with pytest.raises(DataLossError, match="not an exact multiple of the record length"):
        for r in _fixed(tmp_path, b"abcdefgh", 3, "GZIP"):
            got.append(r.numpy())
    assert got == [b"abc", b"def"]
    with pytest.raises(InvalidArgumentError, match="`record_bytes` must be > 0"):
        list(_fixed(tmp_path, b"abcdefgh", 0))


# -- SparseFeature / parse_example ---------------------------------------------------------------


def _example(**features):
    fm = {}
    for k, v in features.items():
        if k.startswith("i"):
            fm[k] = ek.train.Feature(int64_list=ek.train.Int64List(value=v))
        else:
            fm[k] = ek.train.Feature(float_list=ek.train.FloatList(value=v))
    return ek.train.Example(features=ek.train.Features(feature=fm)).SerializeToString()


def _sparse(sp):
    return sp.indices.numpy().tolist(), sp.values.numpy().tolist(), sp.dense_shape.numpy().tolist()


def test_sparse_feature_parse_example():
    spec = {"sp": ek.io.SparseFeature(index_key="ix", value_key="v", dtype=ek.float32, size=5)}
    out = ek.io.parse_example([_example(ix=[3, 1, 1], v=[1.0, 2.0, 3.0]), _example()], spec)
    assert list(out) == ["sp"]
    # TF 2.21: sorted within each Example, stable for equal indices
    assert _sparse(out["sp"]) == ([[0, 1], [0, 1], [0, 3]], [2.0, 3.0, 1.0], [2, 5])
    spec["sp"] = ek.io.SparseFeature("ix", "v", ek.float32, 5, already_sorted=True)
    out = ek.io.parse_example([_example(ix=[3, 1], v=[1.0, 2.0]), _example(ix=[0], v=[5.0])], spec)
    assert _sparse(out["sp"]) == ([[0, 3], [0, 1], [1, 0]], [1.0, 2.0, 5.0], [2, 5])


def test_sparse_feature_single_example_and_errors():
    spec = {"sp": ek.io.SparseFeature("ix", "v", ek.float32, 5)}
    out = ek.io.parse_single_example(_example(ix=[3, -1, 7], v=[1.0, 2.0, 3.0]), spec)
    assert _sparse(out["sp"]) == ([[-1], [3], [7]], [2.0, 1.0, 3.0], [5])  # TF 2.21: unchecked
    with pytest.raises(ValueError, match="parse_example: SparseFeature 'sp' has 2 indices"):
        ek.io.parse_example([_example(ix=[3, 1], v=[1.0])], spec)


def test_parse_example_default_value_of_wrong_size():
    spec = {"f": ek.io.FixedLenFeature([2, 2], ek.float32, default_value=[1.0] * 5)}
    with pytest.raises(InvalidArgumentError, match="default_value of feature 'f' has 5"):
        ek.io.parse_example([_example()], spec)  # TF 2.21: InvalidArgumentError (Reshape)


# -- from_generator ------------------------------------------------------------------------------


def test_from_generator_args_are_numpy_values_of_tensors():
    seen = []

    def gen(s, n, x):
        seen.extend([s, n, x])
        yield s + b"!"

    ds = ek.data.Dataset.from_generator(
        gen, args=("hi", 3, 1.5), output_signature=ek.TensorSpec([], ek.string)
    )
    assert [x.numpy() for x in ds] == [b"hi!"]
    # TF 2.21: b'hi', np.int32(3), np.float32(1.5)
    assert [type(v) for v in seen] == [bytes, np.int32, np.float32]


def test_from_generator_empty_list_and_sparse_spec():
    def gen():
        yield {"a": [], "s": ek.SparseTensor([[0, 1]], [1.0], [1, 5])}

    sig = {"a": ek.TensorSpec([None], ek.int64), "s": ek.SparseTensorSpec([1, 5], ek.float32)}
    (e,) = list(ek.data.Dataset.from_generator(gen, output_signature=sig))
    assert e["a"].dtype == ek.int64 and e["a"].shape == (0,)  # TF 2.21
    assert _sparse(e["s"]) == ([[0, 1]], [1.0], [1, 5])
