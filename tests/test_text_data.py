"""TextLineDataset, CsvDataset, make_csv_dataset, py_function and numpy_function, checked
against the outputs TensorFlow 2.21 gives for the same files and calls."""

import collections
import gzip
import zlib

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.core.profiling_tape import ProfilingTape
from eagerkernel.testing import check_gradients


@pytest.fixture
def files(tmp_path):
    (tmp_path / "l.txt").write_bytes(b"line1\r\nline2\nline3")
    (tmp_path / "m.txt").write_bytes(b"A\nB\n")
    (tmp_path / "l.txt.gz").write_bytes(gzip.compress(b"line1\r\nline2\nline3"))
    (tmp_path / "l.txt.z").write_bytes(zlib.compress(b"z1\nz2\n"))
    (tmp_path / "t.csv").write_text('a,b,name\n1,2.5,"x, y"\n,3,z\n7,,w\n')
    return tmp_path


# -- TextLineDataset ----------------------------------------------------------------------------


def test_text_lines_drop_their_newlines(files):
    ds = ek.data.TextLineDataset(str(files / "l.txt"))
    assert [x.numpy() for x in ds] == [b"line1", b"line2", b"line3"]
    assert ds.element_spec == ek.TensorSpec((), ek.string)


def test_text_lines_compressed_and_from_several_files(files):
    gz = ek.data.TextLineDataset([str(files / "l.txt.gz")], compression_type="GZIP")
    assert [x.numpy() for x in gz] == [b"line1", b"line2", b"line3"]
    z = ek.data.TextLineDataset(ek.constant([str(files / "l.txt.z")]), compression_type="ZLIB")
    assert [x.numpy() for x in z] == [b"z1", b"z2"]
    both = [str(files / "l.txt"), str(files / "m.txt")]
    in_turn = ek.data.TextLineDataset(both, num_parallel_reads=2)
    # TF 2.21: [b'line1', b'A', b'line2', b'B', b'line3']
    assert [x.numpy() for x in in_turn] == [b"line1", b"A", b"line2", b"B", b"line3"]
    one_by_one = ek.data.TextLineDataset(both, buffer_size=4)
    assert [x.numpy() for x in one_by_one] == [b"line1", b"line2", b"line3", b"A", b"B"]


def test_text_lines_with_string_ops(files):
    ds = ek.data.TextLineDataset(str(files / "l.txt")).map(
        lambda line: ek.strings.to_number(ek.strings.substr(line, 4, 1), ek.int32)
    )
    assert [int(x) for x in ds.batch(2).unbatch()] == [1, 2, 3]


def test_text_line_errors(files):
    with pytest.raises(ek.errors.NotFoundError, match=r"nope\.txt; No such file or directory"):
        list(ek.data.TextLineDataset(str(files / "nope.txt")))
    with pytest.raises(ValueError, match="compression_type"):
        ek.data.TextLineDataset("x", compression_type="BZIP2")
    with pytest.raises(ValueError, match="num_parallel_reads"):
        ek.data.TextLineDataset("x", num_parallel_reads=0)
    with pytest.raises(TypeError, match="filenames"):
        ek.data.TextLineDataset(ek.constant([1]))


# -- CsvDataset ---------------------------------------------------------------------------------


def _rows(ds):
    return [tuple(v.numpy() for v in r) for r in ds]


def test_csv_records_with_defaults(files):
    ds = ek.data.experimental.CsvDataset(
        str(files / "t.csv"), [ek.constant(0), ek.constant(0.0), ek.string], header=True
    )
    # TF 2.21: [(1, 2.5, b'x, y'), (0, 3.0, b'z'), (7, 0.0, b'w')]
    assert _rows(ds) == [(1, 2.5, b"x, y"), (0, 3.0, b"z"), (7, 0.0, b"w")]
    a, b, name = next(iter(ds))
    assert (a.dtype, b.dtype, name.dtype) == (ek.int32, ek.float32, ek.string)
    assert ds.element_spec == (
        ek.TensorSpec((), ek.int32),
        ek.TensorSpec((), ek.float32),
        ek.TensorSpec((), ek.string),
    )


def test_csv_select_cols_na_value_and_quotes(files):
    path = str(files / "t.csv")
    ds = ek.data.experimental.CsvDataset(path, [0.0, ""], header=True, select_cols=[1, 2])
    assert _rows(ds) == [(2.5, b"x, y"), (3.0, b"z"), (0.0, b"w")]
    excl = ek.data.experimental.CsvDataset(path, [0, 0.0], header=True, exclude_cols=[2])
    assert _rows(excl) == [(1, 2.5), (0, 3.0), (7, 0.0)]
    (files / "n.csv").write_text('1;"q"\nNA;r\n')
    na = ek.data.experimental.CsvDataset(
        str(files / "n.csv"), [-1, ""], field_delim=";", na_value="NA", use_quote_delim=False
    )
    assert _rows(na) == [(1, b'"q"'), (-1, b"r")]


def test_csv_errors_are_tensorflows(files):
    path = str(files / "t.csv")
    required = ek.data.experimental.CsvDataset(path, [ek.int32, ek.float32, ek.string], header=True)
    with pytest.raises(ek.errors.InvalidArgumentError, match="Field 0 is required but missing"):
        list(required)
    with pytest.raises(ek.errors.InvalidArgumentError, match="Expect 2 fields but have 3"):
        list(ek.data.experimental.CsvDataset(path, [0.0, ""], header=True))
    with pytest.raises(ek.errors.InvalidArgumentError, match="Field 1 in record 0 is not a valid"):
        list(ek.data.experimental.CsvDataset(path, [0, 0, 0], header=True))
    with pytest.raises(ValueError, match="field_delim"):
        ek.data.experimental.CsvDataset(path, [0], field_delim=";;")
    with pytest.raises(ek.errors.InvalidArgumentError, match="select_cols or exclude_cols"):
        ek.data.experimental.CsvDataset(path, [0], select_cols=[0], exclude_cols=[1])
    with pytest.raises(TypeError, match="record_defaults"):
        ek.data.experimental.CsvDataset(path, [ek.bool])


# -- make_csv_dataset ---------------------------------------------------------------------------


def test_make_csv_dataset_infers_types_and_splits_the_label(files):
    ds = ek.data.experimental.make_csv_dataset(
        str(files / "t.csv"), batch_size=2, label_name="a", num_epochs=1, shuffle=False
    )
    out = [({k: v.numpy().tolist() for k, v in f.items()}, lab.numpy().tolist()) for f, lab in ds]
    # TF 2.21: [({'b': [2.5, 3.], 'name': [b'x, y', b'z']}, [1, 0]),
    #           ({'b': [0.], 'name': [b'w']}, [7])]
    assert out == [
        ({"b": [2.5, 3.0], "name": [b"x, y", b"z"]}, [1, 0]),
        ({"b": [0.0], "name": [b"w"]}, [7]),
    ]
    features, label = next(iter(ds))
    assert isinstance(features, collections.OrderedDict) and list(features) == ["b", "name"]
    assert features["b"].dtype == ek.float32 and label.dtype == ek.int32


def test_make_csv_dataset_repeats_shuffles_and_drops_the_remainder(files):
    ds = ek.data.experimental.make_csv_dataset(
        str(files / "t.csv"), batch_size=2, shuffle=True, shuffle_seed=3, num_epochs=None
    )
    batches = [f for f, _ in zip(ds, range(5))]
    assert all(f["a"].shape == (2,) for f in batches)  # num_epochs=None: full batches only
    seen = sorted(v for f in batches[:3] for v in f["a"].numpy().tolist())
    assert seen == [0, 0, 1, 1, 7, 7]  # two full epochs, each record once per epoch
    cols = ek.data.experimental.make_csv_dataset(
        str(files / "t.csv"), 3, select_columns=["name", "a"], num_epochs=1, shuffle=False
    )
    f = next(iter(cols))
    assert list(f) == ["a", "name"] and f["name"].numpy().tolist() == [b"x, y", b"z", b"w"]


def test_make_csv_dataset_errors(files):
    with pytest.raises(ValueError, match="label_name 'q'"):
        ek.data.experimental.make_csv_dataset(str(files / "t.csv"), 2, label_name="q")
    with pytest.raises(ValueError, match="no files match"):
        ek.data.experimental.make_csv_dataset(str(files / "nofile*.csv"), 2)
    with pytest.raises(ValueError, match="without a header"):
        ek.data.experimental.make_csv_dataset(str(files / "t.csv"), 2, header=False)
    with pytest.raises(ValueError, match="column_defaults"):
        ek.data.experimental.make_csv_dataset(str(files / "t.csv"), 2, column_defaults=[0])


# -- py_function / numpy_function -----------------------------------------------------------------


def test_py_function_is_differentiable_through_the_tape():
    x = ek.constant(3.0)
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.py_function(lambda a: a * a, [x], ek.float32)
    assert float(y) == 9.0 and float(tape.gradient(y, x)) == 6.0

    def f(a, b):
        return ek.py_function(lambda u, v: [ek.sin(u) * v, u + v], [a, b], [ek.float64] * 2)

    check_gradients(f, ek.constant([0.3, -1.2], ek.float64), ek.constant([2.0, 0.5], ek.float64))


def test_py_function_outputs_and_errors():
    assert ek.py_function(lambda a: 5, [1], ek.float32).dtype == ek.float32
    assert ek.py_function(lambda a: None, [1.0], []) == []
    with pytest.raises(ek.errors.InvalidArgumentError, match="requested dtype float32"):
        ek.py_function(lambda a: a, [1], ek.float32)
    with pytest.raises(ek.errors.UnknownError, match="ZeroDivisionError") as info:
        ek.py_function(lambda a: 1 / 0, [1.0], ek.float32)
    assert isinstance(info.value.__cause__, ZeroDivisionError)
    ds = ek.data.Dataset.from_tensor_slices(["a b", "c"]).map(
        lambda s: ek.py_function(lambda t: t.numpy().decode().upper(), [s], ek.string)
    )
    assert [x.numpy() for x in ds] == [b"A B", b"C"]


def test_numpy_function_is_one_op_without_a_gradient():
    x = ek.constant(3.0)
    with ProfilingTape() as profile, ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.numpy_function(lambda a: a * a, [x], ek.float32)
    assert float(y) == 9.0 and tape.gradient(y, x) is None
    assert [r.prim.name for r in profile.records] == ["PyFunc"]
    got = []
    out = ek.numpy_function(lambda a: (got.append(a), a)[1], [ek.constant("ab")], ek.string)
    assert isinstance(got[0], np.ndarray) and got[0][()] == b"ab" and out.numpy() == b"ab"
    pair = ek.numpy_function(lambda a, b: (a + b, a * b), [1.0, 2.0], [ek.float32, ek.float32])
    assert [float(t) for t in pair] == [3.0, 2.0]
    with pytest.raises(ek.errors.InvalidArgumentError, match="float64, but Tout says float32"):
        ek.numpy_function(lambda a: a * 2.0, [np.float64(1.0)], ek.float32)
    with pytest.raises(ZeroDivisionError):  # raised as is, as in TensorFlow's eager mode
        ek.numpy_function(lambda a: 1 / 0, [1.0], ek.float32)


def test_py_function_as_a_decorator():
    @ek.py_function(Tout=ek.float32)
    def py_plus(x, y):
        return x + y

    assert float(py_plus(ek.constant(1.0), ek.constant(2.0))) == 3.0
