"""Malformed files raise the library's own error naming the file, on every path (issue 17 item
10): a crafted checkpoint object graph whose digest is valid (so only its structure is wrong)
raises `CheckpointError` and changes nothing; a `Dataset.cache` file whose metadata disagrees
with its arrays raises ValueError whether it is read by the stacked fast path or element by
element."""

import hashlib
import json

import numpy as np
import pytest
from safetensors.numpy import save, save_file

import eagerkernel as ek
from eagerkernel.runtime.io.checkpoint_format import CheckpointError

GOOD_ENTRY = {
    "dtype": "float32",
    "shape": [],
    "sha256": hashlib.sha256(np.float32(2.0).tobytes()).hexdigest(),
}


def graph(variables=None, **extra):
    return {
        "format": "eagerkernel-checkpoint",
        "format_version": 1,
        "objects": {},
        "variables": {"v": GOOD_ENTRY} if variables is None else variables,
        **extra,
    }


CRAFTED = {
    "not json": "not json at all",
    "json list": "[1, 2, 3]",
    "string version": json.dumps(graph(format_version="1")),
    "bool version": json.dumps(graph(format_version=True)),
    "no variables": json.dumps({"format": "eagerkernel-checkpoint", "format_version": 1}),
    "variables a list": json.dumps(graph(variables=["v"])),
    "entry a number": json.dumps(graph(variables={"v": 3})),
    "entry without dtype": json.dumps(graph(variables={"v": {"shape": [], "sha256": "0"}})),
    "negative dim": json.dumps(graph(variables={"v": {**GOOD_ENTRY, "shape": [-1]}})),
    "shape of strings": json.dumps(graph(variables={"v": {**GOOD_ENTRY, "shape": ["a"]}})),
    "objects a list": json.dumps(graph(objects=[1])),
    "deep nesting": "[" * 100_000 + "]" * 100_000,
}


def crafted_file(tmp_path, text: str, array=True) -> str:
    """A safetensors file whose metadata holds ``text`` as the object graph with a matching
    digest: only the graph's structure can be wrong."""
    arrays = {"v": np.array(2.0, np.float32)} if array else {}
    meta = {
        "eagerkernel.graph": text,
        "eagerkernel.graph_sha256": hashlib.sha256(text.encode()).hexdigest(),
    }
    path = tmp_path / "crafted.safetensors"
    path.write_bytes(save(arrays, metadata=meta))
    return str(tmp_path / "crafted")


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_crafted_graph_raises_checkpoint_error_naming_the_file(tmp_path, name):
    prefix = crafted_file(tmp_path, CRAFTED[name])
    v = ek.Variable(7.0)
    with pytest.raises(CheckpointError, match=r"crafted\.safetensors"):
        ek.train.Checkpoint(v=v).restore(prefix)
    assert float(v.numpy()) == 7.0
    with pytest.raises(CheckpointError, match=r"crafted\.safetensors"):
        ek.train.list_variables(prefix)


def test_the_crafting_itself_is_sound(tmp_path):
    # The same crafting with a well-formed graph restores: the tests above fail for the
    # reason they name.
    prefix = crafted_file(tmp_path, json.dumps(graph()))
    v = ek.Variable(7.0)
    ek.train.Checkpoint(v=v).restore(prefix).assert_consumed()
    assert float(v.numpy()) == 2.0


# -- Dataset.cache -------------------------------------------------------------------------------


def cache_file(tmp_path, n=5):
    path = str(tmp_path / "cache.safetensors")
    ds = ek.data.Dataset.from_tensor_slices(np.arange(n, dtype=np.float32)).cache(path)
    assert [float(x) for x in ds] == list(range(n))
    return path


def rewrite(path, arrays=None, **meta_changes):
    from safetensors import safe_open

    with safe_open(path, framework="numpy") as f:
        meta = dict(f.metadata())
        old = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118
    meta.update({k: v if isinstance(v, str) else json.dumps(v) for k, v in meta_changes.items()})
    save_file(old if arrays is None else arrays, path, metadata=meta)


def read_both_ways(path, n=5):
    """The file read by the stacked fast path and element by element (a filtered dataset)."""
    fast = ek.data.Dataset.from_tensor_slices(np.arange(n, dtype=np.float32)).cache(path)
    yield lambda: list(fast)
    slow = ek.data.Dataset.from_tensor_slices(np.arange(n, dtype=np.float32)).cache(path)
    yield lambda: list(slow.as_numpy_iterator())
    yield lambda: list(slow.batch(2))


@pytest.mark.parametrize("count", ["9", "3", "-1"])
def test_cache_count_disagreeing_with_the_data_raises_on_every_path(tmp_path, count):
    path = cache_file(tmp_path)
    rewrite(path, count=count)
    for read in read_both_ways(path):
        with pytest.raises(ValueError, match=r"cache\.safetensors"):
            read()


def test_cache_dtype_disagreeing_with_the_data_raises(tmp_path):
    path = cache_file(tmp_path)
    rewrite(path, arrays={"0": np.arange(5, dtype=np.int64)})
    for read in read_both_ways(path):
        with pytest.raises(ValueError, match="dtype"):
            read()


def test_cache_missing_array_raises(tmp_path):
    path = cache_file(tmp_path)
    rewrite(path, arrays={"other": np.zeros(5, np.float32)})
    for read in read_both_ways(path):
        with pytest.raises(ValueError, match=r"cache\.safetensors"):
            read()
