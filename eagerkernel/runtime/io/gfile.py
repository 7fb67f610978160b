"""`ek.io.gfile`: TensorFlow's file API on the local file system (follows `tf.io.gfile`).

The functions take ``str``, ``bytes`` or ``os.PathLike`` paths (a Tensor is a TypeError, as
in TensorFlow) and raise TensorFlow's error classes, which are also the Python built-ins code
already catches: a missing file is `NotFoundError` (a ``FileNotFoundError``), an existing
destination `AlreadyExistsError` (a ``FileExistsError``). There are no other file systems
here: a ``gs://`` or ``s3://`` path is `UnimplementedError`.

>>> import tempfile
>>> root = tempfile.mkdtemp()
>>> path = ek.io.gfile.join(root, "notes", "a.txt")
>>> ek.io.gfile.makedirs(ek.io.gfile.join(root, "notes"))
>>> with ek.io.gfile.GFile(path, "w") as f:
...     f.write("hello\\nworld\\n")
>>> ek.io.gfile.GFile(path).readlines()
['hello\\n', 'world\\n']
>>> ek.io.gfile.listdir(ek.io.gfile.join(root, "notes"))
['a.txt']
>>> ek.io.gfile.stat(path).length
12
"""

from __future__ import annotations

import glob as _glob
import os
import shutil

from ..core.errors import (
    AlreadyExistsError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
    UnimplementedError,
)

__all__ = [
    "GFile",
    "copy",
    "exists",
    "get_registered_schemes",
    "glob",
    "isdir",
    "join",
    "listdir",
    "makedirs",
    "mkdir",
    "remove",
    "rename",
    "rmtree",
    "stat",
    "walk",
]

_MODES = ("r", "w", "a", "r+", "w+", "a+")


def _path(path, op: str) -> str:
    """``path`` as a local ``str``; TypeError for anything that is not a path."""
    if isinstance(path, bytes):
        path = path.decode("utf-8")
    elif isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str):
        raise TypeError(
            f"gfile.{op}: expected a path (str, bytes or os.PathLike), got "
            f"{type(path).__name__} {path!r:.60}."
        )
    scheme, sep, _ = path.partition("://")
    if sep and scheme not in ("file",):
        raise UnimplementedError(
            None, None, f"gfile.{op}: file system scheme '{scheme}' not implemented ({path})."
        )
    return path[len("file://") :] if sep else path


def _not_found(path: str, what: str = "No such file or directory") -> NotFoundError:
    return NotFoundError(None, None, f"{path}; {what}")


class GFile:
    """A file, opened lazily on its first read or write (follows `tf.io.gfile.GFile`).

    Args:
        name: the path.
        mode: ``"r"``, ``"w"``, ``"a"``, ``"r+"``, ``"w+"`` or ``"a+"``, each optionally with
            ``"b"``. Text modes read ``str`` (UTF-8); binary modes read ``bytes``; writes take
            either.

    Raises:
        InvalidArgumentError: an unknown mode (when constructed).
        PermissionDeniedError: a read of a file opened to write, or a write of one opened to
            read ("File isn't open for reading").
        NotFoundError: on the first read of a missing file, or the first write into a
            missing directory.
    """

    def __init__(self, name, mode: str = "r"):
        self.__name = _path(name, "GFile")
        if not isinstance(mode, str) or mode.replace("b", "") not in _MODES:
            raise InvalidArgumentError(
                None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'"
            )
        self.__mode = mode
        self.__binary = "b" in mode
        self.__file = None

    @property
    def name(self) -> str:
        """The path the file was opened with."""
        return self.__name

    @property
    def mode(self) -> str:
        """The mode the file was opened with."""
        return self.__mode

    def _handle(self):
        if self.__file is None:
            mode = self.__mode.replace("b", "") + "b"
            try:
                self.__file = open(self.__name, mode)  # noqa: SIM115 (closed by close())
            except FileNotFoundError:
                raise _not_found(self.__name) from None
            except IsADirectoryError:
                raise FailedPreconditionError(
                    None, None, f"{self.__name}; Is a directory"
                ) from None
        return self.__file

    def _check(self, kind: str) -> None:
        # as TensorFlow: reading a "w"/"a" file or writing an "r" file is refused
        if "+" not in self.__mode and (self.__mode[0] == "r") != (kind == "reading"):
            raise PermissionDeniedError(None, None, f"File isn't open for {kind}")

    def _text(self, data: bytes):
        return data if self.__binary else data.decode("utf-8")

    def read(self, n: int = -1):
        """``n`` bytes (all that is left if ``n`` < 0): ``str`` in text mode."""
        self._check("reading")
        return self._text(self._handle().read(-1 if n is None else n))

    def readline(self):
        """The next line, with its ``\\n``; empty at the end of the file."""
        self._check("reading")
        return self._text(self._handle().readline())

    def readlines(self) -> list:
        """Every remaining line."""
        self._check("reading")
        return [self._text(line) for line in self._handle().readlines()]

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def write(self, file_content) -> None:
        """Writes ``str`` (as UTF-8) or ``bytes``."""
        if isinstance(file_content, str):
            file_content = file_content.encode("utf-8")
        self._check("writing")
        self._handle().write(file_content)

    def seek(self, offset=None, whence: int = 0, position=None) -> None:
        """Moves to byte ``offset`` from ``whence`` (0 start, 1 current, 2 end);
        ``position`` is TensorFlow's deprecated name of ``offset``."""
        if position is not None:
            if offset is not None:
                raise ValueError("GFile.seek: pass offset or position, not both.")
            offset = position
        self._handle().seek(0 if offset is None else offset, whence)

    def tell(self) -> int:
        """The current byte position."""
        return self._handle().tell()

    def seekable(self) -> bool:
        """True: local files can seek."""
        return True

    def size(self) -> int:
        """The file's length in bytes (pending writes included)."""
        if self.__file is not None:
            self.__file.flush()
        return stat(self.__name).length

    def flush(self) -> None:
        """Writes buffered data to the file."""
        if self.__file is not None:
            self.__file.flush()

    def close(self) -> None:
        """Closes the file (a later read or write opens it again)."""
        if self.__file is not None:
            self.__file.close()
            self.__file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<ek.io.gfile.GFile {self.__name!r} mode={self.__mode!r}>"


def exists(path) -> bool:
    """Whether ``path`` (a file or a directory) exists (follows `tf.io.gfile.exists`)."""
    return os.path.exists(_path(path, "exists"))


def isdir(path) -> bool:
    """Whether ``path`` is a directory (follows `tf.io.gfile.isdir`)."""
    return os.path.isdir(_path(path, "isdir"))


def join(path, *paths) -> str:
    """The paths joined with ``/`` (follows `tf.io.gfile.join`)."""
    return os.path.join(_path(path, "join"), *(_path(p, "join") for p in paths))


def listdir(path) -> list:
    """The names of the entries of directory ``path``, without ``.`` and ``..`` (follows
    `tf.io.gfile.listdir`).

    Raises:
        NotFoundError: ``path`` is not a directory.
    """
    path = _path(path, "listdir")
    if not os.path.isdir(path):
        raise NotFoundError(None, None, f"Could not find directory {path}")
    return os.listdir(path)


def glob(pattern) -> list:
    """The paths matching a pattern (``*``, ``?``, ``[...]``), or a list of patterns, in order
    (follows `tf.io.gfile.glob`); an empty list if nothing matches."""
    patterns = pattern if isinstance(pattern, (list, tuple)) else [pattern]
    out: list = []
    for p in patterns:
        out += _glob.glob(_path(p, "glob"))
    return out


def makedirs(path) -> None:
    """Creates directory ``path`` and its missing parents; nothing if it exists (follows
    `tf.io.gfile.makedirs`).

    Raises:
        FailedPreconditionError: a file is in the way.
    """
    path = _path(path, "makedirs")
    try:
        os.makedirs(path, exist_ok=True)
    except FileExistsError:
        raise FailedPreconditionError(None, None, f"{path}; Not a directory") from None


def mkdir(path) -> None:
    """Creates directory ``path``, whose parent must exist; nothing if it exists (follows
    `tf.io.gfile.mkdir`).

    Raises:
        NotFoundError: the parent directory is missing.
    """
    path = _path(path, "mkdir")
    if os.path.isdir(path):
        return
    try:
        os.mkdir(path)
    except FileNotFoundError:
        raise _not_found(path) from None


def remove(path) -> None:
    """Deletes file ``path`` (follows `tf.io.gfile.remove`).

    Raises:
        NotFoundError: no such file. FailedPreconditionError: ``path`` is a directory.
    """
    path = _path(path, "remove")
    if os.path.isdir(path):
        raise FailedPreconditionError(None, None, f"{path}; Is a directory")
    try:
        os.remove(path)
    except FileNotFoundError:
        raise _not_found(path) from None


def rmtree(path) -> None:
    """Deletes directory ``path`` and everything under it (follows `tf.io.gfile.rmtree`).

    Raises:
        NotFoundError: no such directory.
    """
    path = _path(path, "rmtree")
    if not os.path.exists(path):
        raise NotFoundError(None, None, f"{path} not found")
    shutil.rmtree(path)


def copy(src, dst, overwrite: bool = False) -> None:
    """Copies file ``src`` to ``dst`` (follows `tf.io.gfile.copy`).

    Raises:
        NotFoundError: no file ``src``. AlreadyExistsError: ``dst`` exists and not
            ``overwrite``.
    """
    src, dst = _path(src, "copy"), _path(dst, "copy")
    if not os.path.exists(src):
        raise _not_found(src)
    if not overwrite and os.path.exists(dst):
        raise AlreadyExistsError(None, None, "file already exists")
    tmp = f"{dst}.tmp{os.getpid()}"
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)  # the destination appears whole


def rename(src, dst, overwrite: bool = False) -> None:
    """Renames (moves) ``src`` to ``dst`` (follows `tf.io.gfile.rename`).

    Raises:
        NotFoundError: no ``src``. AlreadyExistsError: ``dst`` exists and not ``overwrite``.
    """
    src, dst = _path(src, "rename"), _path(dst, "rename")
    if not os.path.exists(src):
        raise _not_found(src)
    if not overwrite and os.path.exists(dst):
        raise AlreadyExistsError(None, None, "file already exists")
    os.replace(src, dst)


class FileStatistics:
    """What `stat` returns: ``length`` (bytes), ``mtime_nsec`` (int, nanoseconds since the
    epoch) and ``is_directory``."""

    __slots__ = ("is_directory", "length", "mtime_nsec")

    def __init__(self, length: int, mtime_nsec: int, is_directory: bool):
        self.length = length
        self.mtime_nsec = mtime_nsec
        self.is_directory = is_directory

    def __repr__(self) -> str:
        return (
            f"FileStatistics(length={self.length}, mtime_nsec={self.mtime_nsec}, "
            f"is_directory={self.is_directory})"
        )


def stat(path) -> FileStatistics:
    """The size, modification time and kind of ``path`` (follows `tf.io.gfile.stat`).

    Raises:
        NotFoundError: no such file or directory.
    """
    path = _path(path, "stat")
    try:
        s = os.stat(path)
    except FileNotFoundError:
        raise _not_found(path) from None
    directory = os.path.isdir(path)
    return FileStatistics(0 if directory else s.st_size, s.st_mtime_ns, directory)


def walk(top, topdown: bool = True, onerror=None):
    """Yields ``(dirname, subdirectory names, file names)`` for ``top`` and each directory
    under it, parents first unless ``topdown`` is False (follows `tf.io.gfile.walk`); nothing
    for a missing ``top``. ``onerror`` is called with the `NotFoundError` of a directory that
    cannot be listed."""
    top = _path(top, "walk")

    def on_error(error: OSError) -> None:
        if onerror is not None:
            onerror(NotFoundError(None, None, f"{error.filename}; {error.strerror}"))

    yield from os.walk(top, topdown=topdown, onerror=on_error)


def get_registered_schemes() -> list:
    """The URL schemes paths may have: ``""`` and ``"file"``, the local file system."""
    return ["", "file"]


def _walk_v1(top, in_order: bool = True):
    return walk(top, topdown=in_order)


# TensorFlow 1.x's `tf.gfile` (`tf.compat.v1.gfile`): the same functions, CamelCase names.
V1_NAMES = {
    "Copy": copy,
    "DeleteRecursively": rmtree,
    "Exists": exists,
    "FastGFile": GFile,
    "GFile": GFile,
    "Glob": glob,
    "IsDirectory": isdir,
    "ListDirectory": listdir,
    "MakeDirs": makedirs,
    "MkDir": mkdir,
    "Open": GFile,
    "Remove": remove,
    "Rename": rename,
    "Stat": stat,
    "Walk": _walk_v1,
}
