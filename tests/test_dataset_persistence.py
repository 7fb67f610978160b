"""`Dataset.save` / `Dataset.load` / `Dataset.snapshot` (and their `tf.data.experimental`
forms) and `Dataset.rejection_resample`: values and specs round-trip, the files on disk, GZIP,
shards and readers, argument errors by type and message, crash safety of an interrupted save,
snapshots that are not recomputed, and the resampled class distribution."""

import collections
import gzip
import json
import os

import numpy as np
import pytest

import eagerkernel as ek

D = ek.data.Dataset
X = ek.data.experimental


def files_under(path):
    return sorted(
        os.path.relpath(os.path.join(d, f), path) for d, _, fs in os.walk(path) for f in fs
    )


def shard_files(path):
    return [f for f in files_under(path) if f.endswith(".tfrecord")]


def as_lists(element):
    if isinstance(element, dict):
        return {k: as_lists(v) for k, v in element.items()}
    if isinstance(element, tuple):
        return tuple(as_lists(v) for v in element)
    if isinstance(element, ek.RaggedTensor):
        return ("ragged", element.to_list())
    if isinstance(element, ek.sparse.SparseTensor):
        return ("sparse", element.indices.numpy().tolist(), element.values.numpy().tolist())
    return np.asarray(element.numpy()).tolist()


def values(ds):
    return [as_lists(e) for e in ds]


# -- save / load --------------------------------------------------------------------------------


def nested_dataset():
    def gen():
        for i in range(5):
            yield {
                "word": f"w{i}" * (i + 1),
                "pair": (np.arange(i, dtype=np.float32), np.full((2, 3), i, np.int64)),
                "flag": i % 2 == 0,
            }

    return D.from_generator(
        gen,
        output_signature={
            "word": ek.TensorSpec([], ek.string),
            "pair": (ek.TensorSpec([None], ek.float32), ek.TensorSpec([2, 3], ek.int64)),
            "flag": ek.TensorSpec([], ek.bool),
        },
    )


def test_round_trip_of_nested_values_and_spec(tmp_path):
    ds = nested_dataset()
    path = str(tmp_path / "saved")
    ds.save(path)
    loaded = D.load(path)
    assert loaded.element_spec == ds.element_spec
    assert values(loaded) == values(ds)
    assert values(loaded)[3]["pair"][0] == [0.0, 1.0, 2.0]
    assert values(loaded)[2]["word"] == b"w2w2w2"
    assert len(loaded) == 5 and int(loaded.cardinality()) == 5
    assert values(loaded) == values(loaded)  # every pass reads the files again


def test_files_on_disk_and_metadata(tmp_path):
    path = tmp_path / "saved"
    D.range(10).save(path)  # a PathLike is accepted
    files = files_under(path)
    assert "dataset_spec.json" in files
    assert len(shard_files(path)) == 1
    meta = json.loads((path / "dataset_spec.json").read_text())
    assert meta["cardinality"] == 10
    assert meta["element_spec"] == {"tensor": [[], "int64", None]}
    assert [s["count"] for s in meta["shards"]] == [10]
    # each element is a TFRecord record
    records = list(ek.io.tf_record_iterator(str(path / shard_files(path)[0])))
    assert len(records) == 10


def test_scalars_tuples_namedtuples_and_dtypes(tmp_path):
    Point = collections.namedtuple("Point", ["x", "y"])
    ds = D.from_tensor_slices(
        (
            np.array([1.5, 2.5], np.float64),
            Point(np.array([1, 2], np.int32), np.array([[1, 2], [3, 4]], np.uint8)),
            np.array([b"a", b"\x00\xff"], dtype=object),
            np.array([1 + 2j, 3j], np.complex64),
        )
    )
    ds.save(str(tmp_path / "p"))
    loaded = D.load(str(tmp_path / "p"))
    assert loaded.element_spec == ds.element_spec
    got = list(loaded)
    assert type(got[0][1]).__name__ == "Point" and got[0][1]._fields == ("x", "y")
    assert values(loaded) == values(ds)
    assert got[1][2].numpy() == b"\x00\xff"
    assert got[1][1].y.dtype == ek.uint8


def test_varying_shapes_relax_a_spec_learnt_from_the_first_element(tmp_path):
    ds = D.from_tensor_slices([1, 3, 2]).map(lambda n: ek.range(n))  # spec (1,) from a peek
    ds.save(str(tmp_path / "v"))
    loaded = D.load(str(tmp_path / "v"))
    assert values(loaded) == [[0], [0, 1, 2], [0, 1]]
    assert loaded.element_spec == ek.TensorSpec([None], ek.int32)


def test_ragged_and_sparse_components(tmp_path):
    rt = ek.ragged.constant([[[1, 2], [3]], [[4]], [[5, 6, 7], [], [8]]])
    sp = ek.sparse.SparseTensor([[0, 1], [2, 0]], [1.5, -2.0], [3, 2])
    ds = D.from_tensors((rt, sp)).repeat(2)
    ds.save(str(tmp_path / "r"))
    loaded = D.load(str(tmp_path / "r"))
    assert loaded.element_spec == ds.element_spec
    assert values(loaded) == values(ds)
    first = next(iter(loaded))
    assert isinstance(first[0], ek.RaggedTensor) and first[0].ragged_rank == 2
    assert ek.sparse.to_dense(first[1]).numpy().tolist() == [[0, 1.5], [0, 0], [-2.0, 0]]


def test_window_components_cannot_be_saved(tmp_path):
    with pytest.raises(TypeError, match="cannot be saved"):
        D.range(4).window(2).save(str(tmp_path / "w"))
    assert not os.path.exists(tmp_path / "w" / "dataset_spec.json")


def test_empty_dataset_with_a_known_spec(tmp_path):
    D.range(0).save(str(tmp_path / "e"))
    loaded = D.load(str(tmp_path / "e"))
    assert list(loaded) == [] and len(loaded) == 0
    assert loaded.element_spec == ek.TensorSpec([], ek.int64)


def test_cardinality_known_after_a_filter(tmp_path):
    ds = D.range(10).filter(lambda x: x % 3 == 0)
    assert int(ds.cardinality()) == ek.data.UNKNOWN_CARDINALITY
    ds.save(str(tmp_path / "f"))
    assert int(D.load(str(tmp_path / "f")).cardinality()) == 4


def test_gzip_compression(tmp_path):
    ds = D.from_tensors(np.zeros(1000, np.float32)).repeat(20)
    ds.save(str(tmp_path / "plain"))
    ds.save(str(tmp_path / "gz"), compression="GZIP")
    (plain,) = shard_files(tmp_path / "plain")
    (gz,) = shard_files(tmp_path / "gz")
    data = (tmp_path / "gz" / gz).read_bytes()
    assert data[:2] == b"\x1f\x8b"  # the gzip magic
    assert len(data) * 10 < os.path.getsize(tmp_path / "plain" / plain)
    gzip.decompress(data)  # a valid gzip stream
    assert (tmp_path / "plain" / plain).read_bytes()[:2] != b"\x1f\x8b"
    for compression in (None, "GZIP"):
        loaded = D.load(str(tmp_path / "gz"), compression=compression)
        assert values(loaded) == values(ds)
    with pytest.raises(ValueError, match="compression"):
        D.load(str(tmp_path / "gz"), compression="NONE")
    with pytest.raises(ValueError, match="compression"):
        D.load(str(tmp_path / "plain"), compression="GZIP")


@pytest.mark.parametrize("bad", ["ZLIB", "SNAPPY", "gzipped", 1])
def test_bad_compression(tmp_path, bad):
    with pytest.raises(ValueError, match="compression"):
        D.range(3).save(str(tmp_path / "x"), compression=bad)
    with pytest.raises(ValueError, match="compression"):
        D.range(3).snapshot(str(tmp_path / "s"), compression=bad)
    assert not os.path.exists(tmp_path / "x")


def test_shard_func_writes_one_file_per_shard(tmp_path):
    path = str(tmp_path / "s")
    D.range(10).save(path, shard_func=lambda x: x % 3)
    files = shard_files(path)
    assert len(files) == 3
    counts = [len(list(ek.io.tf_record_iterator(os.path.join(path, f)))) for f in files]
    assert counts == [4, 3, 3]
    loaded = D.load(path)
    assert [int(x) for x in loaded] == [0, 3, 6, 9, 1, 4, 7, 2, 5, 8]  # shard by shard
    assert len(loaded) == 10
    # a sparse set of indices makes only the files used
    D.range(4).save(str(tmp_path / "t"), shard_func=lambda x: 7 * (x % 2))
    assert [f.rsplit("/", 1)[1] for f in shard_files(tmp_path / "t")] == [
        "shard_00000000.tfrecord",
        "shard_00000007.tfrecord",
    ]


def test_shard_func_gets_tuple_elements_unpacked(tmp_path):
    ds = D.from_tensor_slices(([0, 1, 2, 3], ["a", "b", "c", "d"]))
    ds.save(str(tmp_path / "s"), shard_func=lambda i, w: ek.cast(i % 2, ek.int64))
    assert len(shard_files(tmp_path / "s")) == 2
    got = [(int(i), w.numpy()) for i, w in D.load(str(tmp_path / "s"))]
    assert got == [(0, b"a"), (2, b"c"), (1, b"b"), (3, b"d")]


def test_bad_shard_func(tmp_path):
    with pytest.raises(TypeError, match="shard_func"):
        D.range(3).save(str(tmp_path / "a"), shard_func=3)
    with pytest.raises(TypeError, match="shard_func"):
        D.range(3).save(str(tmp_path / "b"), shard_func=lambda x: ek.cast(x, ek.float32))
    with pytest.raises(ValueError, match="shard_func"):
        D.range(3).save(str(tmp_path / "c"), shard_func=lambda x: -x - 1)
    for name in "abc":
        with pytest.raises(ek.errors.NotFoundError):
            D.load(str(tmp_path / name))


def test_reader_func(tmp_path):
    path = str(tmp_path / "r")
    D.range(9).save(path, shard_func=lambda x: x % 3)
    seen = []

    def reader(shards):
        seen.append((int(shards.cardinality()), shards.element_spec))
        return shards.interleave(lambda d: d, cycle_length=3)

    loaded = D.load(path, reader_func=reader)
    assert [int(x) for x in loaded] == list(range(9))  # round-robin over the shards
    assert seen == [(3, ek.data.DatasetSpec(ek.TensorSpec([], ek.int64)))]
    only_last = D.load(path, reader_func=lambda shards: shards.skip(2).flat_map(lambda d: d))
    assert [int(x) for x in only_last] == [2, 5, 8]
    with pytest.raises(TypeError, match="reader_func"):
        D.load(path, reader_func=lambda shards: [1, 2])
    with pytest.raises(TypeError, match="reader_func"):
        D.load(path, reader_func="interleave")


def test_checkpoint_args_and_wait_are_not_ignored(tmp_path):
    with pytest.raises(NotImplementedError, match="checkpoint_args"):
        D.range(3).save(str(tmp_path / "c"), checkpoint_args={"checkpoint_interval": 1})
    assert not os.path.exists(tmp_path / "c" / "dataset_spec.json")
    D.range(3).save(str(tmp_path / "d"))
    with pytest.raises(NotImplementedError, match="wait"):
        D.load(str(tmp_path / "d"), wait=True)


def test_element_spec_argument(tmp_path):
    path = str(tmp_path / "e")
    D.from_tensor_slices(({"a": [[1, 2], [3, 4]]}, [1.0, 2.0])).save(path)
    spec = ({"a": ek.TensorSpec([None], ek.int32)}, ek.TensorSpec([], ek.float32))
    loaded = D.load(path, element_spec=spec)
    assert loaded.element_spec == spec
    assert values(loaded) == [({"a": [1, 2]}, 1.0), ({"a": [3, 4]}, 2.0)]
    for bad in (
        ({"a": ek.TensorSpec([None], ek.int64)}, ek.TensorSpec([], ek.float32)),  # dtype
        ({"b": ek.TensorSpec([None], ek.int32)}, ek.TensorSpec([], ek.float32)),  # key
        ({"a": ek.TensorSpec([3], ek.int32)}, ek.TensorSpec([], ek.float32)),  # shape
        ek.TensorSpec([], ek.float32),  # nesting
    ):
        with pytest.raises(ValueError, match="element_spec"):
            D.load(path, element_spec=bad)


def test_missing_path_raises_not_found(tmp_path):
    missing = str(tmp_path / "nothing here")
    with pytest.raises(ek.errors.NotFoundError, match="nothing here"):
        D.load(missing)
    with pytest.raises(FileNotFoundError):
        X.load(missing)
    os.mkdir(missing)
    with pytest.raises(ek.errors.NotFoundError, match=r"dataset_spec\.json"):
        D.load(missing)


def failing_at(n):
    def fn(x):
        if int(x) == n:
            raise RuntimeError(f"element {n} failed")
        return x

    return fn


def test_interrupted_save_leaves_nothing_loadable(tmp_path):
    path = str(tmp_path / "i")
    with pytest.raises(RuntimeError, match="element 5 failed"):
        D.range(10).map(failing_at(5)).save(path, shard_func=lambda x: x % 2)
    with pytest.raises(ek.errors.NotFoundError):
        D.load(path)
    assert files_under(path) == []  # the partial shards were removed


def test_interrupted_overwrite_keeps_the_previous_save(tmp_path):
    path = str(tmp_path / "o")
    D.range(3).save(path)
    with pytest.raises(RuntimeError):
        D.range(10, 20).map(failing_at(15)).save(path)
    assert [int(x) for x in D.load(path)] == [0, 1, 2]
    D.range(10, 12).save(path, compression="GZIP")  # a finished overwrite replaces it
    assert [int(x) for x in D.load(path)] == [10, 11]
    assert len(shard_files(path)) == 1  # the old run's files are gone


def test_crash_before_the_metadata_is_written(tmp_path, monkeypatch):
    # A process killed after its shards are complete but before the metadata is renamed into
    # place: the rename is the commit point.
    from eagerkernel.runtime.data import saved

    def crash(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(saved.os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        D.range(5).save(str(tmp_path / "k"))
    monkeypatch.undo()
    with pytest.raises(ek.errors.NotFoundError):
        D.load(str(tmp_path / "k"))
    assert files_under(tmp_path / "k") == []


def test_experimental_aliases(tmp_path):
    for name in ("save", "load", "snapshot", "rejection_resample"):
        assert name in X.__all__ and callable(getattr(X, name))
    path = str(tmp_path / "x")
    X.save(D.from_tensor_slices({"a": [1, 2]}), path, compression="GZIP")
    loaded = X.load(path, element_spec={"a": ek.TensorSpec([], ek.int32)}, compression="GZIP")
    assert values(loaded) == [{"a": 1}, {"a": 2}]
    reversed_shards = X.load(path, reader_func=lambda s: s.flat_map(lambda d: d.skip(1)))
    assert values(reversed_shards) == [{"a": 2}]
    with pytest.raises(TypeError, match="dataset"):
        X.save([1, 2], path)
    with pytest.raises(NotImplementedError, match="checkpoint_args"):
        X.save(D.range(2), path, checkpoint_args=object())


# -- snapshot -----------------------------------------------------------------------------------


def counting_pipeline(calls, scale=10):
    return D.range(5).map(lambda x: calls.append(int(x)) or x * scale)


def test_snapshot_reads_instead_of_recomputing(tmp_path):
    calls = []
    ds = counting_pipeline(calls).snapshot(str(tmp_path))
    assert [int(x) for x in ds] == [0, 10, 20, 30, 40]
    assert calls == [0, 1, 2, 3, 4]
    assert [int(x) for x in ds] == [0, 10, 20, 30, 40]
    assert calls == [0, 1, 2, 3, 4]  # the second pass read the snapshot
    again = counting_pipeline(calls).snapshot(str(tmp_path))  # a new pipeline, same input
    assert [int(x) for x in again] == [0, 10, 20, 30, 40]
    assert calls == [0, 1, 2, 3, 4]
    assert len([d for d in os.listdir(tmp_path)]) == 1
    assert again.element_spec == ek.TensorSpec([], ek.int64)
    assert len(again) == 5


def test_snapshot_of_another_pipeline_is_not_reused(tmp_path):
    calls = []
    list(counting_pipeline(calls).snapshot(str(tmp_path)))
    other = counting_pipeline(calls, scale=100).snapshot(str(tmp_path))
    assert [int(x) for x in other] == [0, 100, 200, 300, 400]
    assert len(calls) == 10
    assert len(os.listdir(tmp_path)) == 2  # one directory per fingerprint
    longer = D.range(6).map(lambda x: calls.append(int(x)) or x * 10).snapshot(str(tmp_path))
    assert len(list(longer)) == 6


def test_partial_pass_leaves_no_snapshot(tmp_path):
    calls = []
    ds = counting_pipeline(calls).snapshot(str(tmp_path))
    it = iter(ds)
    next(it), next(it)
    del it
    assert [int(x) for x in ds.take(3)] == [0, 10, 20]  # take stops early too
    assert not any("dataset_spec.json" in f for f in files_under(tmp_path))
    calls.clear()
    assert [int(x) for x in ds] == [0, 10, 20, 30, 40]
    assert calls == [0, 1, 2, 3, 4]
    assert [int(x) for x in ds] == [0, 10, 20, 30, 40]
    assert calls == [0, 1, 2, 3, 4]


def test_failed_pass_leaves_no_snapshot(tmp_path):
    ds = D.range(5).map(failing_at(3)).snapshot(str(tmp_path))
    with pytest.raises(RuntimeError):
        list(ds)
    assert files_under(tmp_path) == []


def test_snapshot_compression_shards_and_reader(tmp_path):
    calls = []
    make = lambda: counting_pipeline(calls)
    ds = make().snapshot(str(tmp_path), compression="GZIP", shard_func=lambda x: x // 10 % 2)
    assert [int(x) for x in ds] == [0, 10, 20, 30, 40]
    shards = shard_files(tmp_path)
    assert len(shards) == 2
    assert all((tmp_path / f).read_bytes()[:2] == b"\x1f\x8b" for f in shards)
    read = make().snapshot(
        str(tmp_path),
        compression="GZIP",
        shard_func=lambda x: x // 10 % 2,
        reader_func=lambda s: s.interleave(lambda d: d, cycle_length=2),
    )
    assert [int(x) for x in read] == [0, 10, 20, 30, 40]
    assert len(calls) == 5
    default_reader = make().snapshot(
        str(tmp_path), compression="GZIP", shard_func=lambda x: x // 10 % 2
    )
    assert [int(x) for x in default_reader] == [0, 20, 40, 10, 30]  # shard by shard
    assert len(calls) == 5
    with pytest.raises(TypeError, match="shard_func"):
        make().snapshot(str(tmp_path), shard_func=1)
    with pytest.raises(TypeError, match="reader_func"):
        make().snapshot(str(tmp_path), reader_func=1)


def test_snapshot_functional_form(tmp_path):
    calls = []
    ds = counting_pipeline(calls).apply(X.snapshot(str(tmp_path)))
    list(ds), list(ds)
    assert len(calls) == 5


# -- rejection_resample -------------------------------------------------------------------------


def skewed(n=20000, seed=0):
    labels = (np.random.default_rng(seed).random(n) < 0.1).astype(np.int64)  # 90/10
    return labels, D.from_tensor_slices((labels, np.arange(n)))


@pytest.mark.parametrize("initial_dist", [None, [0.9, 0.1]])
def test_rejection_resample_balances_classes(initial_dist):
    labels, ds = skewed()
    out = ds.rejection_resample(lambda y, i: y, [0.5, 0.5], initial_dist, seed=7)
    pairs = [(int(c), int(y), int(i)) for c, (y, i) in out]
    classes = np.array([c for c, _, _ in pairs])
    assert len(pairs) > 3000
    assert abs(classes.mean() - 0.5) < 0.03
    assert all(c == y == labels[i] for c, y, i in pairs)  # (class, element) pairs
    assert abs(labels.mean() - 0.1) < 0.01  # the input was skewed


def test_rejection_resample_other_target_and_classes():
    rng = np.random.default_rng(1)
    labels = rng.choice(3, size=20000, p=[0.6, 0.3, 0.1])
    ds = D.from_tensor_slices(labels)
    out = ds.rejection_resample(lambda y: y, ek.constant([0.2, 0.3, 0.5]), seed=3)
    classes = np.array([int(c) for c, _ in out])
    fractions = np.bincount(classes, minlength=3) / len(classes)
    assert np.abs(fractions - [0.2, 0.3, 0.5]).max() < 0.03


def test_rejection_resample_is_repeatable_with_a_seed():
    _, ds = skewed(2000)
    a = ds.rejection_resample(lambda y, i: y, [0.5, 0.5], seed=5)
    first = [int(i) for _, (_, i) in a]
    assert first == [int(i) for _, (_, i) in a]
    b = ds.rejection_resample(lambda y, i: y, [0.5, 0.5], seed=5)
    assert first == [int(i) for _, (_, i) in b]


def test_rejection_resample_static_cases_and_functional_form():
    ds = D.range(100).map(lambda x: x % 2)
    same = ds.rejection_resample(lambda c: c, [0.5, 0.5], [0.5, 0.5], seed=0)
    assert [int(x) for _, x in same] == [i % 2 for i in range(100)]  # nothing to change
    only_ones = ds.apply(X.rejection_resample(lambda c: c, [0.0, 1.0], [0.5, 0.5], seed=0))
    assert [int(c) for c, _ in only_ones] == [1] * 50


def test_rejection_resample_errors():
    ds = D.range(10).map(lambda x: x % 2)
    with pytest.raises(ValueError, match="target_dist"):
        ds.rejection_resample(lambda c: c, [[0.5, 0.5]])
    with pytest.raises(ValueError, match="target_dist"):
        ds.rejection_resample(lambda c: c, [-0.5, 1.5])
    with pytest.raises(ValueError, match="initial_dist"):
        ds.rejection_resample(lambda c: c, [0.5, 0.5], [0.2, 0.3, 0.5])
    with pytest.raises(TypeError, match="class_func"):
        ds.rejection_resample(3, [0.5, 0.5])
    with pytest.raises(ek.errors.InvalidArgumentError, match="class 2"):
        list(ds.map(lambda c: c + 1).rejection_resample(lambda c: c, [0.5, 0.5], seed=0))
    with pytest.raises(TypeError, match="integer scalar"):
        list(ds.rejection_resample(lambda c: ek.cast(c, ek.float32), [0.5, 0.5], seed=0))


def test_fingerprint_sees_the_whole_pipeline_and_ignores_run_state():
    from eagerkernel.runtime.data.saved import fingerprint

    def long_pipeline(source):
        ds = D.from_tensor_slices(source)
        for k in range(30):
            ds = ds.map(lambda x, k=k: x + k)
        return ds

    assert fingerprint(long_pipeline([1, 2])) == fingerprint(long_pipeline([1, 2]))
    assert fingerprint(long_pipeline([1, 2])) != fingerprint(long_pipeline([1, 3]))
    shuffled = D.range(5).shuffle(5)
    before = fingerprint(shuffled)
    list(shuffled), list(shuffled)  # advances the shuffle's epoch
    assert fingerprint(shuffled) == before == fingerprint(D.range(5).shuffle(5))
    assert fingerprint(D.range(5).shuffle(5)) != fingerprint(D.range(5).shuffle(4))


def test_ragged_rows_as_tensors(tmp_path):
    ds = D.from_tensor_slices(ek.ragged.constant([[1, 2], [3]]))  # ragged rank 0 elements
    ds.save(str(tmp_path / "r"))
    loaded = D.load(str(tmp_path / "r"))
    assert loaded.element_spec == ds.element_spec
    assert values(loaded) == [[1, 2], [3]]


def test_two_passes_writing_one_snapshot(tmp_path):
    calls = []
    ds = counting_pipeline(calls).snapshot(str(tmp_path))
    a, b = iter(ds), iter(ds)  # both start before either finishes: both write
    assert [int(next(a)) for _ in range(5)] == [int(next(b)) for _ in range(5)]
    for it in (a, b):
        with pytest.raises(StopIteration):
            next(it)
    assert len(shard_files(tmp_path)) == 1  # the pass that finished second kept nothing
    again = counting_pipeline(calls).snapshot(str(tmp_path))
    assert [int(x) for x in again] == [0, 10, 20, 30, 40]
    assert len(calls) == 10


def test_save_to_an_existing_file_names_the_op_and_path(tmp_path):
    target = tmp_path / "a_file"
    target.write_text("not a directory")
    with pytest.raises(FileExistsError, match=r"save: path .*a_file.* is not a directory"):
        ek.data.Dataset.range(3).save(str(target))
    assert target.read_text() == "not a directory"
