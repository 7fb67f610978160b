"""The checkpoint file format: safetensors arrays plus a JSON object graph, written atomically.

`eagerkernel.runtime.io.checkpoint` decides *what* is saved (the object graph and its paths);
this module decides *how* it is stored and read back, and owns the directory's state file.

File format (version 1)
-----------------------
A checkpoint with prefix ``P`` is one file, ``P.safetensors`` (``P`` itself when it already
ends in ``.safetensors``, as `Model.save_weights` paths may):

- the arrays, stored with safetensors (a JSON header plus raw little-endian bytes; it
  cannot run code when read, unlike pickle). Tensor key = object path, so
  ``safetensors.numpy.load_file(P + ".safetensors")`` gives ``{path: array}``.
- the header's ``__metadata__`` (string to string) holds:
  ``"eagerkernel.graph"``: JSON text ``{"format": "eagerkernel-checkpoint",
  "format_version": 1, "library_version": ..., "objects": {path: class name},
  "variables": {path: {"dtype", "shape", "sha256"}}, "aliases": {path: path}}``
  (``sha256``: hex digest of the array's C-order bytes; ``"order"``, a list of the
  ``objects`` paths in the graph's depth-first order, is written too, for `CheckpointView`;
  ``aliases``: every other path by
  which a saved object was reachable, mapped to the path it is stored under, so that a
  restore can match an object by any of its paths; absent in files from before it was
  added, which read as having none), and ``"eagerkernel.graph_sha256"``: the digest of that
  JSON text.

Readers (`load_checkpoint`, `list_variables`) name a variable as TensorFlow does: its object
path followed by ``/.ATTRIBUTES/VARIABLE_VALUE`` (``net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE``,
``net/l1/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE``), and list the object
graph itself as ``_CHECKPOINTABLE_OBJECT_GRAPH`` (a string: the JSON text above, where
TensorFlow stores a protocol buffer). `CheckpointReader.get_tensor` accepts the bare object
path too.

A directory of checkpoints also holds the *state file* ``checkpoint``, TensorFlow's text
format, names relative to the directory, the latest first::

    model_checkpoint_path: "ckpt-3"
    all_model_checkpoint_paths: "ckpt-2"
    all_model_checkpoint_paths: "ckpt-3"
    all_model_checkpoint_timestamps: 1764100000.25
    all_model_checkpoint_timestamps: 1764100060.5
    last_preserved_timestamp: 1764099999.0

A state file that cannot be parsed is ignored with a warning (TensorFlow's "Checkpoint
ignored"). Savers take turns through the lock file ``checkpoint.lock`` (`state_lock`).

Integrity
---------
Every file is written to a temporary file in the same directory, flushed, fsynced, renamed
over its final name (`os.replace`, atomic on POSIX and Windows) and the directory fsynced.
The state file is written after the data file, so its latest checkpoint is always complete.
A `CheckpointManager` then, as TensorFlow's, records the new checkpoint, deletes the old ones
and records again without them; a crash while deleting leaves a state file that may name a
deleted old checkpoint, which the next manager drops (it keeps only files that exist). A crash
at any moment leaves the latest complete checkpoint restorable.

Reading checks the header, every array's dtype, shape and sha256, and the graph digest, and
raises `CheckpointError` (a ValueError) naming the file and the object path; a file that does
not exist raises `CheckpointNotFoundError`, which is also TensorFlow's `NotFoundError` (and a
FileNotFoundError), as `tf.train.Checkpoint.restore` raises there.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import struct
import tempfile

import numpy as np

from ..core.errors import FailedPreconditionError, NotFoundError

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "LOCK_FILE",
    "OBJECT_GRAPH_KEY",
    "STATE_FILE",
    "VARIABLE_VALUE_SUFFIX",
    "CheckpointError",
    "CheckpointNotFoundError",
    "CheckpointReader",
    "CheckpointState",
    "atomic_write",
    "c_order",
    "data_file",
    "encode",
    "get_checkpoint_state",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_checkpoint_arrays",
    "object_path",
    "read_checkpoint",
    "read_state",
    "resolve_alias",
    "state_lock",
    "tf_key",
    "write_state",
]

FORMAT = "eagerkernel-checkpoint"
FORMAT_VERSION = 1
STATE_FILE = "checkpoint"
_GRAPH_KEY = "eagerkernel.graph"
_GRAPH_SHA_KEY = "eagerkernel.graph_sha256"
VARIABLE_VALUE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


class CheckpointError(ValueError):
    """A checkpoint is unreadable, corrupt, or does not fit the objects restored into."""


class CheckpointNotFoundError(NotFoundError, CheckpointError):
    """A checkpoint file that does not exist: TensorFlow's `ek.errors.NotFoundError` (so also a
    FileNotFoundError), and a `CheckpointError` as before."""


def data_file(prefix) -> str:
    """The file a checkpoint prefix names: ``prefix + ".safetensors"``, or ``prefix`` itself
    when it already ends in ``.safetensors``.

    >>> data_file("run/ckpt-3"), data_file("weights.safetensors")
    ('run/ckpt-3.safetensors', 'weights.safetensors')
    """
    prefix = os.fspath(prefix)
    return prefix if prefix.endswith(".safetensors") else prefix + ".safetensors"


def c_order(array) -> np.ndarray:
    """``array`` as a C-contiguous NumPy array of the same shape (a copy only when needed).
    Not `np.ascontiguousarray`, which turns a 0-d array into shape (1,)."""
    a = np.asarray(array)
    return a if a.flags.c_contiguous else a.copy(order="C")


def _digest(array: np.ndarray) -> str:
    return hashlib.sha256(c_order(array).tobytes()).hexdigest()


def _fsync_dir(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # Windows cannot open directories; its rename is durable enough
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def make_directory(directory: str) -> None:
    """``os.makedirs(directory, exist_ok=True)``, with TensorFlow's FailedPreconditionError
    ("... is not a directory") when a file stands where a directory of the path must be."""
    try:
        os.makedirs(directory, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise FailedPreconditionError(
            f"Checkpoint: cannot create the directory {directory!r}: a part of this path is a "
            "file, not a directory."
        ) from None


def atomic_write(path: str, data: bytes) -> None:
    """Writes ``data`` to ``path`` so that a crash leaves either the old or the new file."""
    directory = os.path.dirname(os.path.abspath(path))
    make_directory(directory)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(directory)


def encode(
    variables: dict, objects: dict, aliases: dict | None = None, name_based: bool = False
) -> bytes:
    """The bytes of a checkpoint file (see the module docstring).

    Args:
        variables: ``{object path: Variable}``; their values are stored.
        objects: ``{object path: object}``; their class names are stored.
        aliases: ``{other path: stored path}`` of the objects reachable by several paths.
        name_based: a TensorFlow 1.x ``Saver`` checkpoint: ``variables`` is keyed by variable
            name, which readers give as is (``"scoped/c"``, no object graph), as TF's.
    """
    from safetensors.numpy import save

    from ... import __version__

    arrays = {}
    entries = {}
    for path, v in variables.items():
        a = c_order(v.numpy())
        arrays[path] = a
        entries[path] = {"dtype": a.dtype.name, "shape": list(a.shape), "sha256": _digest(a)}
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "library_version": __version__,
        "objects": {p: type(o).__name__ for p, o in objects.items()},
        "order": list(objects),  # the graph's own order (the tables' keys get sorted)
        "variables": entries,
    }
    if aliases:
        meta["aliases"] = dict(aliases)
    if name_based:
        meta["name_based"] = True
    text = json.dumps(meta, sort_keys=True)
    digest = hashlib.sha256(text.encode()).hexdigest()
    return save(arrays, metadata={_GRAPH_KEY: text, _GRAPH_SHA_KEY: digest})


def read_checkpoint(prefix) -> tuple[str, dict, dict]:
    """``(file, graph metadata, {path: array})`` of a checkpoint, fully verified.

    Raises:
        CheckpointNotFoundError: no such file (a NotFoundError and a CheckpointError).
        CheckpointError: unreadable, truncated or corrupt file (named, with the object path
            when one is at fault).
    """
    from safetensors.numpy import load

    path = data_file(prefix)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise CheckpointNotFoundError(
            None,
            "RestoreV2",
            f"Checkpoint file {path} does not exist (prefix {os.fspath(prefix)!r}).",
        ) from None
    except OSError as exc:
        raise CheckpointError(f"Checkpoint file {path} cannot be read: {exc}.") from None

    def bad(why: str) -> CheckpointError:
        return CheckpointError(f"Checkpoint file {path} is corrupt or truncated: {why}.")

    if len(data) < 8:
        raise bad(f"{len(data)} bytes, shorter than the safetensors header length")
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8:
        raise bad(f"the header claims {n} bytes, the file has {len(data) - 8} after it")
    try:
        header = json.loads(data[8 : 8 + n])
        text = header["__metadata__"][_GRAPH_KEY]
        digest = header["__metadata__"][_GRAPH_SHA_KEY]
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        raise bad(f"its header is not an eagerkernel checkpoint header ({exc!r:.200})") from None
    if not isinstance(text, str) or not isinstance(digest, str):
        raise bad("its header is not an eagerkernel checkpoint header (graph not a string)")
    try:
        actual = hashlib.sha256(text.encode()).hexdigest()
    except UnicodeEncodeError:  # a lone surrogate from a \ud800 escape
        raise bad("its object graph is not valid UTF-8 text") from None
    if actual != digest:
        raise bad("the object graph does not match its checksum")
    meta = _graph(text, path, bad)
    try:
        arrays = load(data)
    except Exception as exc:  # safetensors raises its own error types
        raise bad(f"safetensors cannot parse it ({exc})") from None
    entries = meta["variables"]
    for key in sorted(set(entries) ^ set(arrays)):
        raise bad(f"object path {key!r} is in the {'graph' if key in entries else 'arrays'} only")
    for key, entry in entries.items():
        a = arrays[key]
        if a.dtype.name != entry["dtype"] or list(a.shape) != entry["shape"]:
            raise bad(
                f"object path {key!r} is stored as {a.dtype.name}{list(a.shape)}, the graph "
                f"says {entry['dtype']}{entry['shape']}"
            )
        if _digest(a) != entry["sha256"]:
            raise bad(f"object path {key!r}: the array's sha256 checksum does not match")
    return path, meta, arrays


def _is_dim(d) -> bool:
    return isinstance(d, int) and not isinstance(d, bool) and d >= 0


def _graph(text: str, path: str, bad) -> dict:
    """The object graph's JSON, its structure checked (a crafted file whose digest matches
    must still raise `CheckpointError`, never a KeyError or a RecursionError)."""
    try:
        meta = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise bad(f"its object graph is not valid JSON ({type(exc).__name__})") from None
    if not isinstance(meta, dict):
        raise bad(f"its object graph is a JSON {type(meta).__name__}, not an object")
    version = meta.get("format_version")
    if meta.get("format") != FORMAT or not _is_dim(version) or version > FORMAT_VERSION:
        raise CheckpointError(
            f"Checkpoint file {path} has format {meta.get('format')!r:.80} version "
            f"{version!r:.40}; this eagerkernel reads {FORMAT!r} up to version "
            f"{FORMAT_VERSION}."
        )
    entries, objects = meta.get("variables"), meta.get("objects", {})
    if not isinstance(entries, dict) or not isinstance(objects, dict):
        raise bad("its object graph lacks the 'variables' and 'objects' tables")
    for key, entry in entries.items():
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("dtype"), str)
            and isinstance(entry.get("sha256"), str)
            and isinstance(entry.get("shape"), list)
            and all(_is_dim(d) for d in entry["shape"])
        ):
            raise bad(f"object path {key!r:.200} has a malformed entry {entry!r:.200}")
    aliases = meta.setdefault("aliases", {})
    if not isinstance(aliases, dict) or not all(isinstance(v, str) for v in aliases.values()):
        raise bad(f"its 'aliases' table is not a map of paths to paths ({aliases!r:.200})")
    return meta


def resolve_alias(path: str, aliases: dict) -> str:
    """``path`` with every prefix that is another path of a saved object replaced by the path
    that object is stored under (``aliases``: ``{other path: stored path}``).

    >>> resolve_alias("mapped/two/kernel", {"mapped/two": "listed/1"})
    'listed/1/kernel'
    """
    for _ in range(len(aliases) + 1):  # a crafted file's cycle of aliases must end
        parts = path.split("/")
        for i in range(len(parts), 0, -1):
            stored = aliases.get("/".join(parts[:i]))
            if stored is not None:
                path = "/".join([stored, *parts[i:]])
                break
        else:
            return path
    return path


def tf_key(path: str) -> str:
    """TensorFlow's name for the variable at object ``path`` in a checkpoint.

    >>> tf_key("net/l1/kernel")
    'net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE'
    """
    return path + VARIABLE_VALUE_SUFFIX


def object_path(key: str) -> str:
    """The object path of a variable named as TensorFlow names it (or already a path).

    >>> object_path("net/l1/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE")
    'net/l1/kernel/.OPTIMIZER_SLOT/optimizer/m'
    """
    return key[: -len(VARIABLE_VALUE_SUFFIX)] if key.endswith(VARIABLE_VALUE_SUFFIX) else key


def load_checkpoint_arrays(prefix) -> dict:
    """``{object path: NumPy array}`` of a checkpoint, verified (raises `CheckpointError`)."""
    return read_checkpoint(prefix)[2]


def _checkpoint_path(ckpt_dir_or_file, op: str) -> str:
    """A checkpoint prefix: the argument, or a directory's latest checkpoint."""
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise ValueError(
                f"{op}: Couldn't find 'checkpoint' file or checkpoints in given directory {path}"
            )
        return latest
    return path


def list_variables(ckpt_dir_or_file) -> list:
    """``[(name, shape)]`` of a checkpoint (a prefix, or a directory: its latest checkpoint),
    sorted by name; names as TensorFlow's (``model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE``,
    and ``_CHECKPOINTABLE_OBJECT_GRAPH`` for the object graph), shapes as lists (follows
    `tf.train.list_variables`).

    Raises:
        ValueError: a directory without a checkpoint. CheckpointError: an unreadable file.
    """
    reader = CheckpointReader(_checkpoint_path(ckpt_dir_or_file, "list_variables"))
    return sorted(reader.get_variable_to_shape_map().items())


class CheckpointReader:
    """Reads the values of a checkpoint by name (follows the reader that
    `tf.train.load_checkpoint` returns). The whole file is read and verified once, when the
    reader is made.

    Names are TensorFlow's: the object path followed by ``/.ATTRIBUTES/VARIABLE_VALUE``, and
    ``_CHECKPOINTABLE_OBJECT_GRAPH`` for the object graph (here the JSON text of the format,
    a string scalar); `get_tensor` and `has_tensor` accept the bare object path as well. A
    TF 1.x ``Saver``'s checkpoint has the variables' names (``"scoped/c"``) and no graph.

    >>> import tempfile
    >>> path = ek.train.Checkpoint(v=ek.Variable([1.0, 2.0])).write(tempfile.mkdtemp() + "/c")
    >>> reader = ek.train.load_checkpoint(path)
    >>> reader.get_variable_to_shape_map()
    {'_CHECKPOINTABLE_OBJECT_GRAPH': [], 'v/.ATTRIBUTES/VARIABLE_VALUE': [2]}
    >>> reader.get_tensor("v/.ATTRIBUTES/VARIABLE_VALUE")
    array([1., 2.], dtype=float32)
    >>> reader.get_tensor("v")
    array([1., 2.], dtype=float32)
    """

    def __init__(self, prefix: str):
        self._file, meta, self._arrays = read_checkpoint(prefix)
        self._entries = meta["variables"]
        self._graph_text = json.dumps(meta, sort_keys=True)
        # A TF 1.x Saver's checkpoint: variable names as they are, no object graph.
        self._name_based = meta.get("name_based") is True
        self._key = (lambda p: p) if self._name_based else tf_key
        self._extra = {} if self._name_based else {OBJECT_GRAPH_KEY: None}

    def get_tensor(self, tensor_str: str) -> np.ndarray | bytes:
        """The saved value named ``tensor_str`` (TensorFlow's name or the object path): a
        NumPy array (a copy; a NumPy scalar such as ``np.float32(1.0)`` for a scalar, as
        TensorFlow's reader gives); for ``_CHECKPOINTABLE_OBJECT_GRAPH``, the graph's JSON as
        bytes.

        Raises:
            NotFoundError: no such name in the checkpoint (TensorFlow's error).
        """
        if tensor_str in self._extra:
            return self._graph_text.encode()
        path = tensor_str if self._name_based else object_path(tensor_str)
        if path not in self._arrays:
            raise NotFoundError(
                None,
                "CheckpointReader.get_tensor",
                f"Key {tensor_str} not found in checkpoint {self._file} (it holds "
                f"{sorted(self.get_variable_to_shape_map())[:20]}).",
            )
        value = np.array(self._arrays[path])
        return value[()] if value.ndim == 0 else value  # a scalar as a NumPy scalar, as TF's

    def has_tensor(self, tensor_str: str) -> bool:
        """Whether the checkpoint holds ``tensor_str`` (TensorFlow's name or object path)."""
        if self._name_based:
            return tensor_str in self._arrays
        return tensor_str == OBJECT_GRAPH_KEY or object_path(tensor_str) in self._arrays

    def get_variable_to_shape_map(self) -> dict:
        """``{name: shape as a list}``, names as TensorFlow's, sorted."""
        out = {k: [] for k in self._extra}
        out.update({self._key(p): list(e["shape"]) for p, e in self._entries.items()})
        return dict(sorted(out.items()))

    def get_variable_to_dtype_map(self) -> dict:
        """``{name: dtype}`` (eagerkernel dtypes, as TensorFlow's DType objects), sorted."""
        from ..core import dtypes

        out = {k: dtypes.string for k in self._extra}
        out.update({self._key(p): dtypes.as_dtype(e["dtype"]) for p, e in self._entries.items()})
        return dict(sorted(out.items()))

    def debug_string(self) -> bytes:
        """One line per variable: ``name (dtype) [shape]``."""
        lines = [
            f"{self._key(p)} ({e['dtype']}) {e['shape']}" for p, e in sorted(self._entries.items())
        ]
        return ("\n".join(lines) + "\n").encode()


def load_checkpoint(ckpt_dir_or_file) -> CheckpointReader:
    """A `CheckpointReader` for a checkpoint prefix, or a directory's latest checkpoint
    (follows `tf.train.load_checkpoint`).

    Raises:
        ValueError: a directory without a checkpoint. CheckpointNotFoundError: no such file.
        CheckpointError: a corrupt file.
    """
    return CheckpointReader(_checkpoint_path(ckpt_dir_or_file, "load_checkpoint"))


# -- state file --------------------------------------------------------------------------------

LOCK_FILE = "checkpoint.lock"


def state_lock(directory):
    """An inter-process lock on ``directory``'s state (a `filelock.FileLock` on
    ``<directory>/checkpoint.lock``): `Checkpoint.save` and `CheckpointManager.save` hold it
    from choosing a checkpoint's number until the state file names it, so savers in several
    threads or processes take turns. The lock file stays (removing it would race)."""
    import filelock

    make_directory(directory)
    return filelock.FileLock(os.path.join(directory, LOCK_FILE))


class CheckpointState:
    """The state file's contents (TensorFlow's ``CheckpointState`` proto): absolute
    prefixes, oldest first, with the time each was written (seconds since the epoch)."""

    __slots__ = (
        "all_model_checkpoint_paths",
        "all_model_checkpoint_timestamps",
        "last_preserved_timestamp",
        "model_checkpoint_path",
    )

    def __init__(self, model_checkpoint_path, paths=(), timestamps=(), last_preserved=None):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(paths)
        self.all_model_checkpoint_timestamps = list(timestamps)
        self.last_preserved_timestamp = last_preserved


_STATE_LINE = re.compile(
    r"^(model_checkpoint_path|all_model_checkpoint_paths|all_model_checkpoint_timestamps"
    r"|last_preserved_timestamp):\s*(.*?)\s*$"
)


def _parse_state(text: str, directory: str) -> CheckpointState:
    """Parses the text format; raises ValueError on anything it does not understand."""
    latest, paths, stamps, preserved = None, [], [], None
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _STATE_LINE.match(line.strip())
        if m is None:
            raise ValueError(f"unrecognised line {line.strip()[:80]!r}")
        key, raw = m.groups()
        if key in ("model_checkpoint_path", "all_model_checkpoint_paths"):
            value = json.loads(raw)
            if not isinstance(value, str) or not value or "\0" in value:
                raise ValueError(f"{key} is not a path: {raw[:80]!r}")
            value = os.path.join(directory, value)
            if key == "model_checkpoint_path":
                latest = value
            else:
                paths.append(value)
        else:
            number = float(raw)
            if not np.isfinite(number):
                raise ValueError(f"{key} is not a finite number: {raw[:80]!r}")
            if key == "last_preserved_timestamp":
                preserved = number
            else:
                stamps.append(number)
    if stamps and len(stamps) != len(paths):
        raise ValueError(f"{len(stamps)} timestamps for {len(paths)} checkpoint paths")
    return CheckpointState(latest, paths, stamps, preserved)


def get_checkpoint_state(checkpoint_dir, latest_filename=None) -> CheckpointState | None:
    """The state file of ``checkpoint_dir`` (follows `tf.train.get_checkpoint_state`;
    ``latest_filename``: its name, default ``"checkpoint"``).

    Returns None when there is none, and, with a warning, when it cannot be read or parsed
    (TensorFlow logs "Checkpoint ignored" and carries on likewise).

    Raises:
        ValueError: a state file that parses but names no ``model_checkpoint_path``
            ("Invalid checkpoint state loaded from ...", as TensorFlow raises).
    """
    import warnings

    directory = os.fspath(checkpoint_dir)
    file = os.path.join(directory, latest_filename or STATE_FILE)
    try:
        with open(file, "rb") as f:
            state = _parse_state(f.read().decode("utf-8"), directory)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError) as exc:  # UnicodeDecodeError, JSONDecodeError are ValueErrors
        warnings.warn(
            f"{file}: {type(exc).__name__}: {exc}. Checkpoint ignored.",
            RuntimeWarning,
            stacklevel=3,
        )
        return None
    if state.model_checkpoint_path is None:
        raise ValueError(f"Invalid checkpoint state loaded from {directory}")
    return state


def read_state(directory) -> tuple[str | None, list]:
    """``(latest, all)`` as absolute prefixes from ``directory``'s state file (see
    `get_checkpoint_state`; a damaged file reads as empty, with a warning)."""
    state = get_checkpoint_state(directory)
    if state is None:
        return None, []
    return state.model_checkpoint_path, state.all_model_checkpoint_paths


def write_state(
    directory: str,
    latest: str,
    everything: list,
    timestamps: list | None = None,
    last_preserved_timestamp: float | None = None,
    filename: str | None = None,
) -> None:
    """Atomically writes ``directory``'s state file (``filename``, default ``checkpoint``):
    ``latest`` and ``everything`` (absolute prefixes, oldest first) as names relative to
    ``directory``, with their ``timestamps`` and the ``last_preserved_timestamp`` when given
    (TensorFlow's text format)."""

    def rel(p: str) -> str:
        return json.dumps(os.path.relpath(p, directory))

    lines = [f"model_checkpoint_path: {rel(latest)}"]
    lines += [f"all_model_checkpoint_paths: {rel(p)}" for p in everything]
    lines += [f"all_model_checkpoint_timestamps: {t!r}" for t in timestamps or ()]
    if last_preserved_timestamp is not None:
        lines.append(f"last_preserved_timestamp: {float(last_preserved_timestamp)!r}")
    path = os.path.join(directory, filename or STATE_FILE)
    atomic_write(path, ("\n".join(lines) + "\n").encode())


def latest_checkpoint(checkpoint_dir, latest_filename=None) -> str | None:
    """The prefix of the newest complete checkpoint in ``checkpoint_dir``, or None
    (follows `tf.train.latest_checkpoint`; ``latest_filename``: the state file's name).

    A damaged state file gives None and a warning, as in TensorFlow."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is None or not os.path.exists(data_file(state.model_checkpoint_path)):
        return None
    return state.model_checkpoint_path
