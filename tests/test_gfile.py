"""`ek.io.gfile` and TF 1.x's `tf.compat.v1.gfile`: TensorFlow's file API on local files, with
TensorFlow's errors (checked against TensorFlow 2.21's on the same calls)."""

from __future__ import annotations

import os
import pathlib

import pytest

import eagerkernel as ek
from eagerkernel import errors

gfile = ek.io.gfile


def test_directories_listing_and_glob(tmp_path):
    root = str(tmp_path)
    gfile.makedirs(gfile.join(root, "d", "e", "f"))
    gfile.makedirs(gfile.join(root, "d", "e", "f"))  # exists: nothing to do
    gfile.mkdir(gfile.join(root, "d"))  # exists: nothing to do, as TensorFlow
    with pytest.raises(errors.NotFoundError, match="No such file or directory"):
        gfile.mkdir(gfile.join(root, "x", "y"))
    (tmp_path / "d" / "a.txt").write_text("hello")
    assert gfile.exists(gfile.join(root, "d")) and gfile.isdir(gfile.join(root, "d", "e"))
    assert not gfile.isdir(gfile.join(root, "d", "a.txt")) and not gfile.exists(root + "/no")
    assert sorted(gfile.listdir(gfile.join(root, "d"))) == ["a.txt", "e"]
    with pytest.raises(errors.NotFoundError, match="Could not find directory"):
        gfile.listdir(gfile.join(root, "d", "a.txt"))
    assert sorted(gfile.glob(root + "/d/*")) == [root + "/d/a.txt", root + "/d/e"]
    assert sorted(gfile.glob([root + "/d/*.txt", root + "/d/e/*"])) == [
        root + "/d/a.txt",
        root + "/d/e/f",
    ]
    assert gfile.glob(root + "/nope/*") == []
    walked = list(gfile.walk(gfile.join(root, "d")))
    assert [(os.path.relpath(d, root), sorted(s), f) for d, s, f in walked] == [
        ("d", ["e"], ["a.txt"]),
        ("d/e", ["f"], []),
        ("d/e/f", [], []),
    ]
    assert [d for d, _, _ in gfile.walk(root + "/d", topdown=False)][-1] == root + "/d"
    assert list(gfile.walk(root + "/nope")) == []
    # Paths may be bytes or os.PathLike; a Tensor is a TypeError, as in TensorFlow.
    assert gfile.exists(root.encode()) and gfile.exists(pathlib.Path(root))
    with pytest.raises(TypeError, match=r"gfile\.exists: expected a path"):
        gfile.exists(ek.constant(root))
    with pytest.raises(errors.UnimplementedError, match="scheme 'gs'"):
        gfile.exists("gs://bucket/x")


def test_gfile_reads_writes_and_seeks(tmp_path):
    path = str(tmp_path / "a.txt")
    with gfile.GFile(path, "w") as f:
        f.write("hello\n")
        f.write(b"w\xc3\xb6rld\n")  # bytes into a text file, as TensorFlow allows
    assert gfile.GFile(path).read() == "hello\nwörld\n"
    assert gfile.GFile(path, "rb").read() == b"hello\nw\xc3\xb6rld\n"
    assert gfile.GFile(path).readlines() == ["hello\n", "wörld\n"]
    assert list(gfile.GFile(path)) == ["hello\n", "wörld\n"]
    f = gfile.GFile(path)
    assert (f.read(3), f.tell()) == ("hel", 3)
    f.seek(1)
    assert f.readline() == "ello\n" and f.seekable() and (f.name, f.mode) == (path, "r")
    f.close()
    with gfile.GFile(path, "a") as f:
        f.write("more")
        assert f.size() == 17  # pending writes count
    assert gfile.GFile(path).read().endswith("more")
    with pytest.raises(errors.InvalidArgumentError, match="mode is not 'r' or 'w'"):
        gfile.GFile(path, "q")
    missing = gfile.GFile(str(tmp_path / "nope.txt"))  # opened lazily, as TensorFlow's
    with pytest.raises(errors.NotFoundError, match=r"nope\.txt; No such file or directory"):
        missing.read()
    with pytest.raises(FileNotFoundError):  # NotFoundError is the built-in too
        gfile.GFile(str(tmp_path / "no" / "dir.txt"), "w").write("x")


def test_copy_rename_remove_rmtree_stat(tmp_path):
    a, b, c = (str(tmp_path / n) for n in ("a.txt", "b.txt", "c.txt"))
    gfile.GFile(a, "w").write("12345")
    gfile.copy(a, b)
    with pytest.raises(errors.AlreadyExistsError, match="file already exists"):
        gfile.copy(a, b)
    gfile.GFile(a, "w").write("abc")
    gfile.copy(a, b, overwrite=True)
    assert gfile.GFile(b).read() == "abc"
    with pytest.raises(errors.NotFoundError):
        gfile.copy(str(tmp_path / "nope"), c)
    gfile.rename(b, c)
    assert not gfile.exists(b) and gfile.GFile(c).read() == "abc"
    with pytest.raises(errors.AlreadyExistsError):
        gfile.rename(a, c)
    gfile.rename(a, c, overwrite=True)
    assert not gfile.exists(a)
    s = gfile.stat(c)
    assert (s.length, s.is_directory, isinstance(s.mtime_nsec, int)) == (3, False, True)
    assert gfile.stat(str(tmp_path)).is_directory
    with pytest.raises(errors.NotFoundError):
        gfile.stat(a)
    with pytest.raises(errors.FailedPreconditionError, match="Is a directory"):
        gfile.remove(str(tmp_path))
    gfile.remove(c)
    with pytest.raises(errors.NotFoundError):
        gfile.remove(c)
    gfile.makedirs(str(tmp_path / "t" / "u"))
    gfile.rmtree(str(tmp_path / "t"))
    assert not gfile.exists(str(tmp_path / "t"))
    with pytest.raises(errors.NotFoundError, match="not found"):
        gfile.rmtree(str(tmp_path / "t"))


def test_tf1_gfile_names(tmp_path):
    v1 = ek.compat.v1.gfile
    path = str(tmp_path / "x.txt")
    with v1.GFile(path, "w") as f:
        f.write("x")
    assert v1.Exists(path) and v1.ListDirectory(str(tmp_path)) == ["x.txt"]
    assert v1.Glob(str(tmp_path / "*.txt")) == [path] and not v1.IsDirectory(path)
    v1.MakeDirs(str(tmp_path / "d"))
    v1.Copy(path, str(tmp_path / "d" / "y.txt"))
    assert [f for _, _, f in v1.Walk(str(tmp_path / "d"))] == [["y.txt"]]
    v1.DeleteRecursively(str(tmp_path / "d"))
    assert v1.Stat(path).length == 1 and not v1.Exists(str(tmp_path / "d"))
