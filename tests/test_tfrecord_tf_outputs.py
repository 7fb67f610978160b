"""Bytes and results TensorFlow 2.21 (with protobuf 7.36) gave for the same calls: Example
and TensorProto serialization, GZIP/ZLIB TFRecord files, parse_example and SequenceExample
parsing with their error messages. The constants were produced by TensorFlow itself."""

import numpy as np
import pytest

import eagerkernel as ek

pytest.importorskip("google_crc32c")
pytest.importorskip("google.protobuf")


def _example(**features):
    """An Example: ints -> int64_list, floats -> float_list, bytes -> bytes_list."""
    out = {}
    for key, values in features.items():
        if all(isinstance(v, bytes) for v in values):
            out[key] = ek.train.Feature(bytes_list=ek.train.BytesList(value=values))
        elif all(isinstance(v, int) for v in values):
            out[key] = ek.train.Feature(int64_list=ek.train.Int64List(value=values))
        else:
            out[key] = ek.train.Feature(float_list=ek.train.FloatList(value=values))
    return ek.train.Example(features=ek.train.Features(feature=out))


def _write(path, records, compression=""):
    with ek.io.TFRecordWriter(str(path), compression) as w:
        for r in records:
            w.write(r)


# -- bytes and results TensorFlow 2.21 (protobuf 7.36) gave for the same calls --------------------

# tf.train.Example with a=[1, 300, -5] (int64), b=[b"xy", b""], c=[0.25, -1e30] (float),
# SerializeToString(deterministic=True).
TF_EXAMPLE = (
    "0a3a0a160a016112111a0f0a0d01ac02fbffffffffffffffff010a0d0a016212080a060a0278790a000a110a"
    "0163120c120a0a080000803ecaf249f1"
)
# TFRecordWriter(path, "GZIP") / "ZLIB" with the records b"", an Example (60 bytes) and
# b"z" * 300.
TF_GZIP = (
    "1f8b0800000000000003636080004de619ec375e352db281f24f6c5f1cc465c5c5cbc59824c4c1c5c6c5545"
    "1c9c5c025c8c5982cc423c4c5c5c1c0d06077ea93e7472e312ec6442141297e2e5ec6354cbfff4301e39c23"
    "39bd3a8c10b33efd8b9e5b350a88068f364fe60400321bec0f98010000"
)
TF_ZLIB = (
    "789c636080004de619ec375e352db281f24f6c5f1cc465c5c5cbc59824c4c1c5c6c55451c9c5c025c8c598"
    "2cc423c4c5c5c1c0d06077ea93e7472e312ec6442141297e2e5ec6354cbfff4301e39c2339bd3a8c10b33efd"
    "8b9e5b350a88068f364fe6040043e8ae0d"
)
# tf.io.serialize_tensor(...).numpy().hex()
TF_SERIALIZED = {
    "i32": (lambda: ek.constant(3), "08031200220403000000"),
    "f32": (lambda: ek.constant([[1.0, 2.0]]), "08011208120208011202080222080000803f00000040"),
    "str": (lambda: ek.constant(["a", "bc"]), "080712041202080242016142026263"),
    "bool": (lambda: ek.constant([True, False]), "080a12041202080222020100"),
    "f16": (lambda: ek.constant(np.float16([1.5, 2])), "08131204120208022204003e0040"),
    "f64": (lambda: ek.constant(2.5, ek.float64), "0802120022080000000000000440"),
    "u8": (lambda: ek.constant(np.uint8([1, 255])), "0804120412020802220201ff"),
    "i64": (
        lambda: ek.constant(np.arange(6, dtype=np.int64).reshape(2, 3)),
        "0809120812020802120208032230" + "".join(f"{i:02x}00000000000000" for i in range(6)),
    ),
}


def test_example_bytes_match_tensorflows():
    ex = _example(a=[1, 300, -5], b=[b"xy", b""], c=[0.25, -1e30])
    assert ex.SerializeToString(deterministic=True).hex() == TF_EXAMPLE
    back = ek.train.Example.FromString(bytes.fromhex(TF_EXAMPLE))
    assert list(back.features.feature["a"].int64_list.value) == [1, 300, -5]
    assert list(back.features.feature["c"].float_list.value) == [0.25, np.float32(-1e30)]


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_compressed_files_are_tensorflows_bytes(tmp_path, compression):
    theirs = bytes.fromhex(TF_GZIP if compression == "GZIP" else TF_ZLIB)
    src = tmp_path / "tf.tfrecord"
    src.write_bytes(theirs)
    records = [r.numpy() for r in ek.data.TFRecordDataset(str(src), compression)]
    assert records[0] == b"" and records[2] == b"z" * 300
    assert ek.train.Example.FromString(records[1]) == ek.train.Example.FromString(
        bytes.fromhex(TF_EXAMPLE)
    )
    mine = tmp_path / "ek.tfrecord"
    _write(mine, records, compression)
    assert mine.read_bytes() == theirs  # same framing, same zlib stream


@pytest.mark.parametrize("name", sorted(TF_SERIALIZED))
def test_serialize_tensor_matches_tensorflow(name):
    make, hexed = TF_SERIALIZED[name]
    t = make()
    raw = ek.io.serialize_tensor(t)
    assert raw.dtype == ek.string and raw.shape == ()
    assert raw.numpy().hex() == hexed
    back = ek.io.parse_tensor(bytes.fromhex(hexed), t.dtype)
    assert back.dtype == t.dtype and back.shape == t.shape
    np.testing.assert_array_equal(back.numpy(), t.numpy())


def test_parse_tensor_errors_and_value_fields():
    raw = ek.io.serialize_tensor(ek.constant(1.0))
    with pytest.raises(
        ek.errors.InvalidArgumentError,
        match=r"Type mismatch between parsed tensor \(float\) and dtype \(double\)",
    ):
        ek.io.parse_tensor(raw, ek.float64)
    with pytest.raises(ValueError, match="scalar"):
        ek.io.parse_tensor([raw.numpy()], ek.float32)
    # A TensorProto holding float_val [1, 2] for shape [4]: the last value repeats.
    # dtype (field 1) DT_FLOAT; tensor_shape (2) {dim (2) {size (1): 4}}; float_val (5) packed.
    proto = bytes.fromhex("0801" + "120412020804" + "2a08" + "0000803f00000040")
    np.testing.assert_array_equal(ek.io.parse_tensor(proto, ek.float32).numpy(), [1, 2, 2, 2])


def test_parse_results_match_tensorflow():
    batch = [
        bytes.fromhex(
            "0a2a0a0a0a016e12051a030a01010a0d0a0176120812060a040000003f0a0d0a017012081a060a04"
            "01020304"
        ),
        bytes.fromhex(
            "0a240a150a01761210120e0a0c0000803f00000040000040400a0b0a017012061a040a020506"
        ),
        bytes.fromhex("0a0c0a0a0a017312050a030a0171"),
    ]
    r = ek.io.parse_example(
        batch,
        {
            "n": ek.io.FixedLenFeature([], ek.int64, default_value=-1),
            "v": ek.io.VarLenFeature(ek.float32),
            "p": ek.io.FixedLenSequenceFeature([2], ek.int64, allow_missing=True, default_value=-7),
            "s": ek.io.FixedLenFeature([], ek.string, default_value="d"),
        },
    )
    assert r["n"].numpy().tolist() == [1, -1, -1]
    assert r["v"].indices.numpy().tolist() == [[0, 0], [1, 0], [1, 1], [1, 2]]
    assert r["v"].values.numpy().tolist() == [0.5, 1.0, 2.0, 3.0]
    assert r["v"].dense_shape.numpy().tolist() == [3, 3]
    assert r["p"].numpy().tolist() == [[[1, 2], [3, 4]], [[5, 6], [-7, -7]], [[-7, -7], [-7, -7]]]
    assert r["s"].numpy().tolist() == [b"d", b"d", b"q"]
    one = ek.io.parse_single_example(
        batch[1],
        {
            "v": ek.io.VarLenFeature(ek.float32),
            "p": ek.io.FixedLenSequenceFeature([2], ek.int64, allow_missing=True),
        },
    )
    assert one["v"].indices.numpy().tolist() == [[0], [1], [2]]
    assert one["v"].dense_shape.numpy().tolist() == [3]
    assert one["p"].numpy().tolist() == [[5, 6]]
    with pytest.raises(
        ek.errors.InvalidArgumentError,
        match=r"^Could not parse example input, value: '\n\x05abc'$",
    ):
        ek.io.parse_single_example(b"\x0a\x05abc", {"a": ek.io.FixedLenFeature([], ek.int64)})


# -- SequenceExample (results TensorFlow 2.21 gave for these two messages) ------------------------

# context {len: [3]}; feature_lists {tok: [[1, 2], [3, 4], [5, 6]], w: [[a], [b, c], [d]]}
SEQ_A = (
    "0a0e0a0c0a036c656e12051a030a010312400a1f0a03746f6b12180a061a040a0201020a061a040a0203040a"
    "061a040a0205060a1d0a017712180a050a030a01610a080a060a01620a01630a050a030a0164"
)
# no context; feature_lists {tok: [[7, 8]], w: []}
SEQ_B = "0a0012180a0f0a03746f6b12080a061a040a0207080a050a01771200"
CONTEXT = {
    "len": ek.io.FixedLenFeature([], ek.int64, default_value=0),
    "missing": ek.io.VarLenFeature(ek.float32),
}
SEQUENCE = {
    "tok": ek.io.FixedLenSequenceFeature([2], ek.int64),
    "w": ek.io.VarLenFeature(ek.string),
    "opt": ek.io.FixedLenSequenceFeature([], ek.float32, allow_missing=True),
}


def test_parse_single_sequence_example_matches_tensorflow():
    a, b = bytes.fromhex(SEQ_A), bytes.fromhex(SEQ_B)
    ctx, seq = ek.io.parse_single_sequence_example(a, CONTEXT, SEQUENCE)
    assert int(ctx["len"]) == 3
    assert ctx["missing"].dense_shape.numpy().tolist() == [0]
    assert seq["tok"].numpy().tolist() == [[1, 2], [3, 4], [5, 6]]
    assert seq["opt"].shape == (0,) and seq["opt"].dtype == ek.float32
    w = seq["w"]
    assert w.indices.numpy().tolist() == [[0, 0], [1, 0], [1, 1], [2, 0]]
    assert w.values.numpy().tolist() == [b"a", b"b", b"c", b"d"]
    assert w.dense_shape.numpy().tolist() == [3, 2]
    ctx, seq = ek.io.parse_single_sequence_example(b, CONTEXT, SEQUENCE)
    assert int(ctx["len"]) == 0
    assert seq["tok"].numpy().tolist() == [[7, 8]]
    assert seq["w"].dense_shape.numpy().tolist() == [0, 0]
    _, seq = ek.io.parse_single_sequence_example(
        a, sequence_features={"w": ek.io.RaggedFeature(ek.string)}
    )
    assert seq["w"].to_list() == [[b"a"], [b"b", b"c"], [b"d"]]


def test_parse_sequence_example_batch_matches_tensorflow():
    batch = [bytes.fromhex(SEQ_A), bytes.fromhex(SEQ_B)]
    ctx, seq, lengths = ek.io.parse_sequence_example(batch, CONTEXT, SEQUENCE)
    assert ctx["len"].numpy().tolist() == [3, 0]
    assert seq["tok"].numpy().tolist() == [[[1, 2], [3, 4], [5, 6]], [[7, 8], [0, 0], [0, 0]]]
    assert seq["opt"].shape == (2, 0)
    w = seq["w"]
    assert w.indices.numpy().tolist() == [[0, 0, 0], [0, 1, 0], [0, 1, 1], [0, 2, 0]]
    assert w.dense_shape.numpy().tolist() == [2, 3, 2]
    assert lengths["tok"].numpy().tolist() == [3, 1]
    assert lengths["opt"].numpy().tolist() == [0, 0]
    assert set(lengths) == {"tok", "opt"}
    _, seq, lengths = ek.io.parse_sequence_example(
        batch, sequence_features={"w": ek.io.RaggedFeature(ek.string)}
    )
    assert seq["w"].to_list() == [[[b"a"], [b"b", b"c"], [b"d"]], []]
    assert lengths == {}


def test_sequence_example_errors_match_tensorflow():
    a = bytes.fromhex(SEQ_A)
    cases = [
        (
            {"zz": ek.io.FixedLenSequenceFeature([], ek.int64)},
            "Name: <unknown>, Feature list 'zz' is required but could not be found.  Did you "
            "mean to include it in feature_list_dense_missing_assumed_empty or "
            "feature_list_dense_defaults?",
        ),
        (
            {"tok": ek.io.FixedLenSequenceFeature([3], ek.int64)},
            "Name: <unknown>, Key: tok, Index: 0.  Number of values != expected.  values size: "
            "2 but output shape: [3]",
        ),
        (
            {"tok": ek.io.FixedLenSequenceFeature([2], ek.float32)},
            "Name: <unknown>, Feature list: tok, Index: 0.  Data types don't match. Expected "
            "type: float",
        ),
        (
            {"w": ek.io.VarLenFeature(ek.int64)},
            "Name: <unknown>, Feature list: w, Index: 0.  Data types don't match. Expected "
            "type: int64",
        ),
    ]
    for spec, message in cases:
        with pytest.raises(ek.errors.InvalidArgumentError) as info:
            ek.io.parse_single_sequence_example(a, None, spec)
        assert str(info.value) == message
    with pytest.raises(ValueError, match="Unsupported FixedLenFeature"):
        ek.io.parse_single_sequence_example(a, None, {"tok": ek.io.FixedLenFeature([2], ek.int64)})
    with pytest.raises(ValueError, match="must be None"):
        ek.io.parse_single_sequence_example(
            a, None, {"tok": ek.io.FixedLenSequenceFeature([2], ek.int64, default_value=0)}
        )
    with pytest.raises(ValueError, match="at least one should have values"):
        ek.io.parse_single_sequence_example(a)
    with pytest.raises(ValueError, match="vector"):
        ek.io.parse_sequence_example(a, None, SEQUENCE)
