"""The data guide's pandas and counter cells (tensorflow/docs site/en/guide/data.ipynb): a
DataFrame's columns sliced into a Dataset, pandas Series converted to tensors, and
`tf.data.experimental.Counter` zipped with a text file's lines."""

import numpy as np
import pytest

import eagerkernel as ek

CSV = """survived,sex,age,n_siblings_spouses,fare
0,male,22.0,1,7.25
1,female,38.0,1,71.2833
1,female,26.0,0,7.925
"""


def test_a_dataframes_columns_become_typed_tensors(tmp_path):
    pd = pytest.importorskip("pandas")
    path = tmp_path / "train.csv"
    path.write_text(CSV)
    df = pd.read_csv(path)
    titanic_slices = ek.data.Dataset.from_tensor_slices(dict(df))
    first = next(iter(titanic_slices))
    # TensorFlow: pandas int64 and float64 columns keep their dtypes, text becomes bytes.
    assert first["survived"].dtype == ek.int64 and int(first["survived"]) == 0
    assert first["age"].dtype == ek.float64 and float(first["age"]) == 22.0
    assert first["sex"].dtype == ek.string and first["sex"].numpy() == b"male"
    assert "{!r:20s}: {}".format("sex", first["sex"]) == "'sex'               : b'male'"
    assert [int(e["survived"]) for e in titanic_slices] == [0, 1, 1]
    sexes = ek.constant(df["sex"])
    assert sexes.dtype == ek.string and sexes.numpy().tolist() == [b"male", b"female", b"female"]
    np.testing.assert_array_equal(ek.convert_to_tensor(df["fare"]).numpy(), df["fare"].to_numpy())
    assert ek.constant(df.columns).numpy()[0] == b"survived"  # an Index too


def test_counter_counts_for_ever(tmp_path):
    counter = ek.data.experimental.Counter()
    assert counter.element_spec == ek.TensorSpec((), ek.int64)
    assert int(counter.cardinality()) == ek.data.INFINITE_CARDINALITY
    assert [int(x) for x in counter.take(3)] == [0, 1, 2]
    odd = ek.data.experimental.Counter(start=1, step=2, dtype=ek.int32)
    assert [int(x) for x in odd.take(3)] == [1, 3, 5] and odd.element_spec.dtype == ek.int32
    assert [int(x) for x in ek.data.Dataset.counter(10, -5).take(3)] == [10, 5, 0]


def test_the_guides_counter_zipped_with_lines(tmp_path):
    path = tmp_path / "train.csv"
    path.write_text("".join(f"line {i}\n" for i in range(50)))
    lines = ek.data.TextLineDataset(str(path))
    counter = ek.data.experimental.Counter()
    dataset = ek.data.Dataset.zip((counter, lines))
    dataset = dataset.shuffle(buffer_size=100).batch(20)
    n, line_batch = next(iter(dataset))
    ids = n.numpy().tolist()
    assert len(set(ids)) == 20 and all(0 <= i < 50 for i in ids)
    assert [line_batch.numpy()[k] for k in range(20)] == [f"line {i}".encode() for i in ids]
    assert sum(len(b[0]) for b in dataset) == 50  # zip stops with the lines
